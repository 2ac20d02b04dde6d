"""``python -m polyfuse ...`` runs the ``polyfuse`` command (see :mod:`polyfuse.cli`)."""

import sys

from polyfuse.cli import main

sys.exit(main())
