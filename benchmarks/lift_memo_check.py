"""Whether ``POLYFUSE_LIFT_MEMO=1`` (polyfuse/lift_memo.py) compiles what cold compiles do.

Compiles every Nth case of tests/corpus (all variants of a case, in the test's order: python
none, cpu smart, cpu max) without the disk cache, and writes per variant a hash of each explain()
section and the compile deadline's tallies, the compile CPU seconds and how many variants reused
a lift.  Run it once with the memo off and once on, then compare:

    POLYFUSE_LIFT_MEMO=0 python benchmarks/lift_memo_check.py 1 off.json
    POLYFUSE_LIFT_MEMO=1 python benchmarks/lift_memo_check.py 1 on.json
    python benchmarks/lift_memo_check.py --compare off.json on.json

(session 31, ts37: 1502 variants, 836 reused, no difference in "loop code" or the tallies; the
sections that differed print isl relations, whose text isl's in-place simplification changes,
and a few differ between any two processes: statement order follows string hashing.)
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("POLYFUSE_COMPILE_SECONDS", "120")  # as the tests run
os.environ["POLYFUSE_DISABLE_CACHE"] = "1"
ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "corpus"), str(ROOT / "tests")]

import numpy as np  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.explain import Explanation  # noqa: E402


def _groups(step: int) -> list[list]:
    import test_corpus

    groups: dict[int, list] = {}
    for param in test_corpus.CASES:
        groups.setdefault(id(param.values[0]), []).append(param)
    return list(groups.values())[::step]


def _row(kernel, variant) -> dict[str, str]:
    sections = Explanation.of(variant, kernel.options).sections
    row = {name: hashlib.sha256(repr(value).encode()).hexdigest()[:12] for name, value in sections
           if name not in ("compile seconds", "cache")}
    d = variant.stages["deadline"]
    row["tallies"] = f"{d.spent},{d.blocks},{d.skipped},{d.timed_out}"
    return row


def run(step: int, out: str) -> None:
    rows: dict[str, object] = {}
    reused, start = 0, time.process_time()
    for group in _groups(step):
        previous = None
        for param in group:
            case, target, fuse = param.values
            kernel = polyfuse.kernel(case.func, target=target, fuse=fuse, verify=True)
            try:
                with np.errstate(all="ignore"):
                    variant = kernel.compile(*case.make_args(np.random.default_rng(0)))
            except Exception as exc:  # noqa: BLE001 - an error is a result to compare too
                rows[param.id] = f"{type(exc).__name__}: {exc}"
                continue
            reused += variant.stages["lift"] is previous
            previous = variant.stages["lift"]
            rows[param.id] = _row(kernel, variant)
    Path(out).write_text(json.dumps(rows, indent=0))
    print(f"{len(rows)} variants, {reused} reused a lift, {time.process_time() - start:.1f} CPU-s")


def compare(first: str, second: str) -> None:
    a, b = json.loads(Path(first).read_text()), json.loads(Path(second).read_text())
    differ: collections.defaultdict[str, list[str]] = collections.defaultdict(list)
    for name, row in a.items():
        other = b.get(name)
        if isinstance(row, str) or isinstance(other, str):
            if row != other:
                differ["error"].append(name)
            continue
        for section, digest in row.items():
            if other.get(section) != digest:
                differ[section].append(name)
    print(f"{len(a)} variants; sections that differ: " + (", ".join(f"{s} {len(v)}" for s, v in differ.items()) or "none"))
    for section, names in differ.items():
        print(f"  {section}: {' '.join(names[:8])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("args", nargs=2, help="STEP OUT.json, or with --compare two files")
    parser.add_argument("--compare", action="store_true")
    ns = parser.parse_args()
    if ns.compare:
        compare(*ns.args)
    else:
        run(int(ns.args[0]), ns.args[1])


if __name__ == "__main__":
    main()
