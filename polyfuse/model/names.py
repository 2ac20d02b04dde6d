"""The user's name for each name the frontend makes from one, for error messages.

The frontend makes new locals out of the user's: a fresh name for a binding of a user's name
(``v`` -> ``v_2``: frontend/branch_locals.py for an if's scratch local, frontend/rewrite.py for a
rebound argument, ...; ``frontend.rewrite.Rewriter.fresh`` records each in a ``renames`` mapping,
fresh name -> the user's), one local per type of a local of several types (``__version0_v`` and
its kind ``__kind_v``: frontend/local_versions.py), a flag of the Python kind a local holds
(``__strong_v``: frontend/returns.py ``STRONG``) and temporaries for a split local's parts
(``__next__version0_v``: frontend/lift.py).  A message shows none of these: ``user_name`` undoes
the prefixes and the renames, ``in_user_names`` does so for every name in a message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: the prefixes the frontend puts before a user's name (the modules above); ``__next`` before another
GENERATED_PREFIX = re.compile(r"__next(?=__)|__version\d+_|__kind_|__strong_")
_IDENTIFIER = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def user_name(name: str, renames: Mapping[str, str] = {}) -> str:  # noqa: B006 - read only
    """The user's name behind ``name`` (``name`` itself where the user wrote it)."""
    for _ in range(8):  # (each step shortens the name or follows a recorded rename)
        stripped = GENERATED_PREFIX.sub("", name, count=1) if GENERATED_PREFIX.match(name) else name
        renamed = renames.get(stripped, stripped)
        if renamed == name:
            return name
        name = renamed
    return name


def in_user_names(text: str, renames: Mapping[str, str] = {}) -> str:  # noqa: B006 - read only
    """``text`` with each name the frontend made written as the user's (``user_name``); an
    attribute (``.name``) is left as it is."""
    if not renames and "__" not in text:
        return text
    return _IDENTIFIER.sub(lambda m: user_name(m.group(0), renames), text)
