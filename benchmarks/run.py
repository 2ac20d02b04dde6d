#!/usr/bin/env python3
"""Run the polyfuse benchmark suite: a thin wrapper around ``polyfuse bench``.

    python benchmarks/run.py --quick                # whole suite, small sizes (about a minute)
    python benchmarks/run.py                        # whole suite, benchmark sizes
    python benchmarks/run.py --kernels gemm,chain3  # a few kernels

Takes exactly the options of ``polyfuse bench`` (``--help`` lists them).
"""

from __future__ import annotations

import sys

from polyfuse.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
