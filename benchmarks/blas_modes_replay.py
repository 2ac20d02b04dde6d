"""Replay ``BlasTimes`` (backends/cpu/parallel.py) for a kernel with several BLAS sites.

    python benchmarks/blas_modes_replay.py 3 0.75 0.80 1.40 [calls] [noise]

Each of N sites (3mm has three products) gets the same per-mode time in ms (library, rows,
serial) times ``1 + noise * u`` (u uniform in [0, 1), seeded), and every call asks each site for
its mode and records the time, as ``run_blas_site`` does.  Prints the modes each call ran (one
letter per site), then how many calls after the trials mixed the library's threads with one BLAS
thread per call (rows or serial) and how many ran a mode other than each site's choice.  No
machine is involved: it shows what the measurement schedules, not what the modes cost.
"""

from __future__ import annotations

import random
import sys

from polyfuse.backends.cpu.parallel import BlasTimes


def replay(sites: int, seconds: dict[str, float], calls: int, noise: float, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    times = [BlasTimes(True, {"serial": [seconds["serial"] * 1.05]}) for _ in range(sites)]
    ran = []
    for _ in range(calls):
        modes = []
        for site in times:
            mode = site.choose()
            site.record(mode, seconds[mode] * (1 + noise * rng.random()))
            modes.append(mode[0])
        ran.append("".join(modes))
    return ran


def main(argv: list[str]) -> None:
    sites = int(argv[0])
    seconds = dict(zip(("library", "rows", "serial"), (float(x) * 1e-3 for x in argv[1:4])))
    calls = int(argv[4]) if len(argv) > 4 else 120
    noise = float(argv[5]) if len(argv) > 5 else 0.05
    ran = replay(sites, seconds, calls, noise)
    print(" ".join(ran))
    settled = ran[20:]
    mixed = sum(1 for r in settled if "l" in r and set(r) - {"l"})
    fastest = min(seconds, key=lambda m: seconds[m])[0]
    off = sum(1 for r in settled if set(r) != {fastest})
    print(f"calls 21-{calls}: {mixed} of {len(settled)} mixed the library's threads with rows or serial, "
          f"{off} ran a mode other than the fastest ({fastest}) at some site")


if __name__ == "__main__":
    main(sys.argv[1:])
