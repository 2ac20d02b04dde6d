"""Where a test run's CPU goes in aggregate: per module, per test function (a parametrization
family: the id without its ``[...]``), and per pytest phase.

    python benchmarks/pytest_cpu_aggregate.py CPU.tsv [--durations LOG] [--top 25]

``CPU.tsv`` is what ``benchmarks/pytest_cpu_times.py`` writes (seconds, compile seconds, machine
code seconds, test id); ``LOG`` is the output of a run with ``--durations=0`` (lines ``1.23s
setup|call|teardown ID``: wall seconds per phase).  Each table's share is of the file's total.
A sample of the suite (every Nth id of ``pytest --collect-only -q``, run with ``-n 0`` and the
ids given as ``@FILE``) gives the proportions at a fraction of the cost; a sampled test loses
what the test before it would have shared with it (a lift reused by the next fusion mode of a
corpus case, a warm cluster), so the sample over-counts such families a little.
"""

from __future__ import annotations

import argparse
import collections
import re


def _rows(path: str) -> list[tuple[float, float, float, str]]:
    rows = []
    with open(path) as f:
        for line in f:
            seconds, compile_s, machine, test = line.rstrip("\n").split("\t")
            rows.append((float(seconds), float(compile_s), float(machine), test))
    return rows


def _table(title: str, groups: dict[str, list[tuple[float, float, float, str]]], total: float, top: int) -> None:
    print(f"\n{title}: tests, CPU-s, compile, machine code, share")
    ranked = sorted(groups.items(), key=lambda item: -sum(r[0] for r in item[1]))
    for name, rows in ranked[:top]:
        cpu = sum(r[0] for r in rows)
        print(f"  {name:90.90s} {len(rows):5d} {cpu:8.1f} {sum(r[1] for r in rows):8.1f} "
              f"{sum(r[2] for r in rows):7.1f} {100 * cpu / total:5.1f}%")


def _phases(path: str) -> None:
    pattern = re.compile(r"^([\d.]+)s (setup|call|teardown)\s+(\S.*)$")
    seconds: dict[str, float] = collections.Counter()
    counts: dict[str, int] = collections.Counter()
    with open(path) as f:
        for line in f:
            match = pattern.match(line.strip())
            if match:
                seconds[match[2]] += float(match[1])
                counts[match[2]] += 1
    total = sum(seconds.values()) or 1.0
    print("\nphases (wall, --durations=0; phases under 5 ms are not listed by pytest): count, s, share")
    for phase in ("setup", "call", "teardown"):
        print(f"  {phase:9s} {counts[phase]:6d} {seconds[phase]:9.1f} {100 * seconds[phase] / total:5.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tsv", nargs="+")
    parser.add_argument("--durations", help="a --durations=0 log of the same run")
    parser.add_argument("--top", type=int, default=25)
    ns = parser.parse_args()
    rows = [row for path in ns.tsv for row in _rows(path)]
    total = sum(r[0] for r in rows) or 1.0
    print(f"{len(rows)} tests, {total:.1f} CPU-s (compile {sum(r[1] for r in rows):.1f}, "
          f"machine code {sum(r[2] for r in rows):.1f})")
    modules: dict[str, list] = collections.defaultdict(list)
    families: dict[str, list] = collections.defaultdict(list)
    for row in rows:
        modules[row[3].split("::")[0]].append(row)
        families[row[3].split("[")[0]].append(row)
    _table("modules", modules, total, ns.top)
    _table("test functions (parametrization families)", families, total, ns.top)
    if ns.durations:
        _phases(ns.durations)


if __name__ == "__main__":
    main()
