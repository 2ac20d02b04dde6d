"""Replay ``BlasTimes`` (backends/cpu/parallel.py) on a fake clock: what the measurement schedules,
not what the modes cost.

    python benchmarks/blas_modes_replay.py 3 0.75 0.80 1.40 [calls] [noise]
    python benchmarks/blas_modes_replay.py clock 2.12 2.74 3.9 [calls] [noise] [key=value ...]

The first form (session 24): each of N sites (3mm has three products) gets the same per-mode time
in ms (library, rows, serial) times ``1 + noise * u`` (u uniform in [0, 1), seeded), and every
call asks each site for its mode and records the time, as ``run_blas_site`` does.  Prints the
modes each call ran (one letter per site), then how many calls after the trials mixed the
library's threads with one BLAS thread per call (rows or serial) and how many ran a mode other
than each site's choice.

The second form (session 29, ``clock``): one ``BlasTimes`` for whole calls (``run_call``) as the
runtime makes it (fair trials, quick checks, OpenBLAS's ``spin`` of 0.1 s), the first call's run
on one BLAS thread, then ``calls`` calls on a fake clock, ``series`` calls in a row with ``gap``
seconds between series (the bench's ``settle``).  A run's time: the mode's ms times
``1 + noise * |N(0, 1)|``, a spike (``spikes``: probability; times 1.5-4) now and then, a run on
the rows or one BLAS thread within 0.1 s of one on the library's threads ``beside`` times slower
(OpenBLAS's workers spin on the core it needs), and the library's first run after another mode
``wake`` times slower (its pool wakes).  With ``entry=1`` the calls that ``library_calls`` leaves
to the native entry run on the library's threads unmeasured, as they do in the runtime.  Keys:
seeds (how many seeded replays; each is printed when 1), robust (``POLYFUSE_BLAS_ROBUST_CHOICE``,
1 or 0; ``both``: each, side by side), prior, quiet (``POLYFUSE_BLAS_QUIET_CHECKS``, default 0; ``both``),
lnoise (the library's own noise), settled (``POLYFUSE_BLAS_SETTLED_TRIALS``, default 1; ``both``).  Prints per setting the calls per mode after the first
``settle`` calls (default 20), how often the choice changed there, and the time of those calls
over each mode forced on the same seeds (the fastest of them).
"""

from __future__ import annotations

import random
import sys

from polyfuse.backends.cpu.parallel import BlasTimes

from polyfuse.bench.measure import WARM_CALLS

ROBUST = getattr(BlasTimes, "robust", None)  # (absent before session 29)
QUIET = getattr(BlasTimes, "quiet_checks", None)  # (absent before session 38)
SETTLED = getattr(BlasTimes, "settled", None)  # (absent before session 40)


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


def clock_replay(seconds: dict[str, float], calls: int, noise: float, seed: int, *, series: int = 3,
                 gap: float = 0.2, spikes: float = 0.05, beside: float = 1.3, wake: float = 1.2,
                 entry: bool = True, spin: float = 0.1,
                 robust: bool | None = None, lnoise: float | None = None, forced: str = "measure",
                 prior: bool | None = None, burst: float = 1.0, burst_at: int = 3, burst_calls: int = 6,
                 bench: bool = False, quiet: bool | None = None,
                 settled: bool | None = None) -> tuple[list[str], list[float], list[str]]:
    """One seeded replay: the mode of each call (``L``: the library's threads on the native entry,
    unmeasured), each call's seconds and the chosen mode after each call.  ``burst``: calls
    ``burst_at`` to ``burst_at + burst_calls`` (0 the first call's) meet another job on one core,
    the threaded modes' runs ``burst`` times slower there, one BLAS thread's 1.1x.  ``bench``: the
    calls run as the bench runs them (polyfuse/bench/measure.py: the warm-up until ``in_trials``
    ends, then ``calls`` timed calls in a row, no gaps), and only the timed calls are returned."""
    rng = random.Random(seed)
    call_index = [0]

    def took(mode: str, beside_spin: bool, woken: bool) -> float:
        spread = lnoise if mode == "library" and lnoise is not None else noise
        t = seconds[mode] * (1 + spread * abs(rng.gauss(0.0, 1.0)))
        if rng.random() < spikes:
            t *= rng.uniform(1.5, 4.0)
        if burst_at <= call_index[0] < burst_at + burst_calls:
            t *= 1.1 if mode == "serial" else burst
        if mode != "library" and beside_spin:
            t *= beside
        if mode == "library" and woken:
            t *= wake
        return t

    first = [took("serial", False, False) * 1.3]  # (the first call: cold)
    times = BlasTimes(True, {"serial": first}, forced, spin=spin, recheck_trials=True,
                      **({"robust": robust} if robust is not None else {}),
                      **({"prior": prior} if prior is not None else {}),
                      **({"quiet_checks": quiet} if quiet is not None else {}),
                      **({"settled": settled} if settled is not None else {}))
    now, library_end, previous = 10.0, -1.0, "serial"
    modes, costs, chosen = [], [], []
    entry_left = 0
    settle = gap
    if bench:
        series, gap = 1 << 30, 0.0  # (the bench's calls follow each other, after ``settle``)
    timed_from = None if bench else 0
    call = 0
    while timed_from is None or call < timed_from + calls:
        if timed_from is None and call >= WARM_CALLS and not times.in_trials():
            timed_from = call
            now += settle
        if call > 10_000:
            break
        call_index[0] = call = call + 1
        if call > 1 and (call - 1) % series == 0:
            now += gap
        if entry and entry_left > 0:
            t = took("library", False, previous != "library")
            now += t
            library_end, previous = now, "library"
            times.entry_ran(1, now)
            entry_left -= 1
            modes.append("L")
            costs.append(t)
            chosen.append(times.best())
            continue
        mode = times.choose(now) if QUIET is not None else times.choose()
        t = took(mode, now - library_end < spin, previous != "library")
        times.record(mode, t, now)
        now += t
        if mode == "library":
            library_end = now
        previous = mode
        modes.append(mode[0])
        costs.append(t)
        chosen.append(times.best())
        if entry:
            entry_left = times.library_calls()
    if bench:
        return modes[timed_from:], costs[timed_from:], chosen[timed_from:]
    return modes, costs, chosen


def _clock_main(argv: list[str]) -> None:
    seconds = dict(zip(("library", "rows", "serial"), (float(x) * 1e-3 for x in argv[0:3])))
    rest = [a for a in argv[3:] if "=" not in a]
    keys = dict(a.split("=", 1) for a in argv[3:] if "=" in a)
    calls = int(rest[0]) if rest else 200
    noise = float(rest[1]) if len(rest) > 1 else 0.05
    seeds = int(keys.pop("seeds", "1"))
    bench = keys.get("bench", "0") != "0"
    skip = int(keys.pop("settle", "0" if bench else "20"))
    settings = [{}]
    for knob in ("robust", "prior", "quiet", "settled"):
        value = keys.pop(knob, {"robust": "both", "prior": "1", "quiet": "0", "settled": "1"}[knob])
        if knob == "prior" and not hasattr(BlasTimes, "prior"):
            continue
        if knob == "quiet" and QUIET is None:
            continue
        if knob == "robust" and ROBUST is None:
            continue
        if knob == "settled" and SETTLED is None:
            continue
        values = (True, False) if value == "both" else (value != "0",)
        settings = [{**s, knob: v} for s in settings for v in values]
    flags = ("entry", "bench")
    kw: dict = {k: (v != "0" if k in flags else int(v) if k in ("series", "burst_at", "burst_calls") else float(v))
                for k, v in keys.items()}
    print(f"library {seconds['library'] * 1e3:g} ms, rows {seconds['rows'] * 1e3:g}, serial "
          f"{seconds['serial'] * 1e3:g}; noise {noise}, {calls} calls, {seeds} seeds, {kw or 'defaults'}")
    for setting in settings:
        name = " ".join(f"{k}={int(v)}" for k, v in setting.items())
        per_mode = {"library": 0, "rows": 0, "serial": 0}
        flips, total, oracle, slow, mins, series_mins = 0, 0.0, 0.0, 0, [], []
        length = int(kw.get("series", 3))
        for seed in range(seeds):
            modes, costs, chosen = clock_replay(seconds, calls, noise, seed, **kw, **setting)
            if seeds == 1:
                print(f"  {name}: {''.join(modes)}")
            for m in modes[skip:]:
                per_mode[{"l": "library", "L": "library", "r": "rows", "s": "serial"}[m]] += 1
            flips += sum(1 for a, b in zip(chosen[skip:], chosen[skip + 1:]) if a != b)
            total += sum(costs[skip:])
            oracle += min(sum(clock_replay(seconds, calls, noise, seed, **kw, forced=mode)[1][skip:])
                          for mode in seconds)
            mins.append(min(costs[skip:]) / min(seconds.values()))
            if not bench:  # each series' fastest call (the bench's minimum of a series), from ``settle`` on
                series_mins += [min(costs[k:k + length]) / min(seconds.values())
                                for k in range(skip - skip % length + length, len(costs) - length + 1, length)]
            slow += mins[-1] > 1.2
        n = seeds * (calls - skip)
        bench_text = (f"; the bench's min over the fastest mode's time: mean {sum(mins) / seeds:.3f}x, "
                      f"over 1.2x in {slow} of {seeds}" if bench else "")
        print(f"  {name}: calls {skip + 1}-{calls} per mode " + ", ".join(
            f"{m} {c / n:.1%}" for m, c in per_mode.items()) + f"; choice changed {flips / seeds:.1f} times "
            f"per replay; time {total / oracle:.3f}x the fastest mode's forced (the same seeds)" + bench_text
            + (f"; series minima over the fastest mode's time: mean {sum(series_mins) / len(series_mins):.3f}x, "
               f"over 1.2x in {sum(m > 1.2 for m in series_mins)} of {len(series_mins)}" if series_mins else ""))


def main(argv: list[str]) -> None:
    if argv and argv[0] == "clock":
        _clock_main(argv[1:])
        return
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
