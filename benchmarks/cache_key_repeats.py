"""How many of a test run's compiles a cache folder shared by its test processes would save.

Reads the files ``benchmarks/pytest_cache_keys.py`` wrote (one per test process) and prints:
the lookups, hits and misses per process; the keys missed in more than one process (each such
miss after the first is a compile a shared folder would turn into a load) with the thread CPU
those compiles and their machine code took, and the test modules they came from; and the
compiles no key names (python target, ``cache=False``) made again in their process.

    python benchmarks/cache_key_repeats.py /tmp/keys.*.tsv
"""

from __future__ import annotations

import collections
import sys


def main(paths: list[str]) -> None:
    rows = []
    for path in paths:
        with open(path) as handle:
            for line in handle:
                worker, test, key, event, compile_s, machine_s, store_s = line.rstrip("\n").split("\t")
                rows.append((worker, test, key, event, float(compile_s), float(machine_s), float(store_s)))
    per_worker: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    cpu: dict[str, float] = collections.defaultdict(float)
    stored: dict[str, float] = collections.defaultdict(float)
    for worker, _, _, event, compile_s, machine_s, store_s in rows:
        per_worker[worker][event] += 1
        cpu[worker] += compile_s + machine_s
        stored[worker] += store_s
    for worker, counts in sorted(per_worker.items()):
        print(f"{worker}: {dict(counts)}, compile + machine code {cpu[worker]:.1f} CPU-s, "
              f"cache entries written {stored[worker]:.1f} CPU-s")
    first: dict[tuple[str, str], float] = {}
    for worker, _, key, event, compile_s, machine_s, _ in rows:
        if event == "miss":
            first.setdefault((worker, key), compile_s + machine_s)
    hits = [first.get((r[0], r[2]), 0.0) for r in rows if r[3] == "hit"]
    print(f"hits: {len(hits)}, whose keys' compiles (in their process) took {sum(hits):.1f} CPU-s")
    misses: dict[str, list] = collections.defaultdict(list)
    for row in rows:
        if row[3] == "miss":
            misses[row[2]].append(row)
    repeated = {k: v for k, v in misses.items() if len({r[0] for r in v}) > 1}
    extra = [r for v in repeated.values() for r in sorted(v, key=lambda r: r[4] + r[5])[:-1]]
    saved = sum(r[4] + r[5] for r in extra)
    total = sum(r[4] + r[5] for r in rows)
    print(f"keys: {len(misses)} compiled, {len(repeated)} in more than one process; "
          f"{len(extra)} repeated compiles, {saved:.1f} of {total:.1f} CPU-s (compile + machine code)")
    modules: collections.Counter = collections.Counter()
    for r in extra:
        modules[r[1].split("::")[0]] += r[4] + r[5]
    for module, seconds in modules.most_common(25):
        print(f"  {seconds:7.1f}  {module}")
    uncached: dict[tuple[str, str], list] = collections.defaultdict(list)
    for row in rows:
        if row[3] == "none":
            uncached[(row[0], row[2])].append(row)
    again = [r for v in uncached.values() for r in v[1:]]
    print(f"uncached compiles (python target, cache=False): {sum(map(len, uncached.values()))}, "
          f"{len(again)} of them again in their process (same code, signature and options), "
          f"{sum(r[4] for r in again):.1f} CPU-s")
    modules = collections.Counter()
    for r in again:
        modules[r[1].split("::")[0]] += r[4]
    for module, seconds in modules.most_common(15):
        print(f"  {seconds:7.1f}  {module}")


if __name__ == "__main__":
    main(sys.argv[1:])
