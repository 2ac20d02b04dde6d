"""The suite's stencils in C (gcc -O3 -march=native) next to polyfuse (1 and 2 threads) and numba.

    python benchmarks/gcc_stencils.py [--preset bench|large|quick|medium] [--rounds 5]
        [--kernels jacobi-1d,jacobi-2d,heat-3d,fdtd-2d,seidel-2d] [--json out.json]
        [--cc gcc] [--cflags "-O3 -march=native"] [--ceiling]

For each kernel this writes PolyBench/C 4.2's loop nest (the same loops as the kernel in
``polyfuse/bench/suite.py``, float64, sizes as compile-time constants as PolyBench's LARGE_DATASET
builds do), compiles it into a shared library with ``CC CFLAGS -shared -fPIC`` and calls it through
ctypes on the suite's inputs (``make_args`` with seed 0).  Every contender's outputs are checked
against numba's (np.allclose, rtol 1e-7, atol 1e-9, as the bench); then each round runs every
contender once on fresh copies of the inputs (gcc, numba, polyfuse on 1 thread, polyfuse on 2
threads) and the minimum over rounds is kept, so a burst of another job's load lands on all of
them alike.  Before the rounds, each polyfuse contender runs untimed as ``polyfuse bench`` warms
up (``measure.warm_up``: up to ``WARM_CALLS`` calls within a second), so the 2-thread column times
the runtime's settled choice between the team and one thread, not its first trials.  A kernel
whose one call is shorter than 20 ms is repeated within a round (the minimum per call of those
repeats counts).  Without a C compiler the script says so and exits 0.

Prints one row per kernel with the load average and writes the rows as JSON (``--json``).

``--ceiling`` adds, per kernel, what a one-thread code can gain over gcc at all: gcc and polyfuse
on one thread run the same kernel on a grid that stays in L2 (``IN_CACHE``), with enough time
steps for as many point updates as the preset (at least ``MIN_UPDATES``), and gcc once more at the preset, all timed by the
thread's CPU time (``time.thread_time``: a thread the load preempts is not charged for the wait),
interleaved, min over ``--rounds``.  ``ceiling`` is gcc's time per update at the preset over the
faster of the two in-cache times per update: where the compilers' in-cache loops run alike (they
do here: the same arithmetic, vectorized alike), time tiling can at best turn the preset run into
the in-cache one, so a one-thread "gcc over polyfuse" above ``ceiling`` needs faster arithmetic
than either compiler's loop, not better tiles.  ``tiled`` is polyfuse's in-cache time per update
over its preset one (1.0: the tiles cost nothing over a grid that fits).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

import polyfuse
from polyfuse.bench import measure as measure_
from polyfuse.bench import suite
from polyfuse.runtime import threads

# The PolyBench/C 4.2 kernels, written as in the suite (same statement order and expressions).
# Sizes are macros (-D...), arrays arrive as pointers in the suite function's argument order.
C_SOURCES = {
    "jacobi-1d": """
void kernel(double *restrict A, double *restrict B) {
  for (int t = 0; t < TSTEPS; t++) {
    for (int i = 1; i < N - 1; i++) B[i] = 0.33333 * (A[i-1] + A[i] + A[i+1]);
    for (int i = 1; i < N - 1; i++) A[i] = 0.33333 * (B[i-1] + B[i] + B[i+1]);
  }
}
""",
    "jacobi-2d": """
void kernel(double A_[N][N], double B_[N][N]) {
  double (*restrict A)[N] = A_; double (*restrict B)[N] = B_;
  for (int t = 0; t < TSTEPS; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j-1] + B[i][j+1] + B[i+1][j] + B[i-1][j]);
  }
}
""",
    "heat-3d": """
void kernel(double A_[N][N][N], double B_[N][N][N]) {
  double (*restrict A)[N][N] = A_; double (*restrict B)[N][N] = B_;
  for (int t = 1; t <= TSTEPS; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          B[i][j][k] = 0.125 * (A[i+1][j][k] - 2.0 * A[i][j][k] + A[i-1][j][k])
                     + 0.125 * (A[i][j+1][k] - 2.0 * A[i][j][k] + A[i][j-1][k])
                     + 0.125 * (A[i][j][k+1] - 2.0 * A[i][j][k] + A[i][j][k-1])
                     + A[i][j][k];
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          A[i][j][k] = 0.125 * (B[i+1][j][k] - 2.0 * B[i][j][k] + B[i-1][j][k])
                     + 0.125 * (B[i][j+1][k] - 2.0 * B[i][j][k] + B[i][j-1][k])
                     + 0.125 * (B[i][j][k+1] - 2.0 * B[i][j][k] + B[i][j][k-1])
                     + B[i][j][k];
  }
}
""",
    "fdtd-2d": """
void kernel(double ex_[NX][NY], double ey_[NX][NY], double hz_[NX][NY], double *restrict fict) {
  double (*restrict ex)[NY] = ex_; double (*restrict ey)[NY] = ey_; double (*restrict hz)[NY] = hz_;
  for (int t = 0; t < TMAX; t++) {
    for (int j = 0; j < NY; j++) ey[0][j] = fict[t];
    for (int i = 1; i < NX; i++)
      for (int j = 0; j < NY; j++) ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i-1][j]);
    for (int i = 0; i < NX; i++)
      for (int j = 1; j < NY; j++) ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j-1]);
    for (int i = 0; i < NX - 1; i++)
      for (int j = 0; j < NY - 1; j++)
        hz[i][j] = hz[i][j] - 0.7 * (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j]);
  }
}
""",
    "seidel-2d": """
void kernel(double A_[N][N]) {
  double (*restrict A)[N] = A_;
  for (int t = 0; t < TSTEPS; t++)
    for (int i = 1; i <= N - 2; i++)
      for (int j = 1; j <= N - 2; j++)
        A[i][j] = (A[i-1][j-1] + A[i-1][j] + A[i-1][j+1]
                   + A[i][j-1] + A[i][j] + A[i][j+1]
                   + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1]) / 9.0;
}
""",
}

# PolyBench/C 4.2's MEDIUM_DATASET (the suite has no such preset): ``--preset medium``
MEDIUM = {"jacobi-1d": {"tsteps": 100, "n": 400}, "jacobi-2d": {"tsteps": 100, "n": 250},
          "heat-3d": {"tsteps": 100, "n": 40}, "fdtd-2d": {"tmax": 100, "nx": 200, "ny": 240},
          "seidel-2d": {"tsteps": 100, "n": 400}}


def preset_sizes(sk, preset: str) -> dict[str, int]:
    """The kernel's sizes at ``preset``: the suite's, or PolyBench's MEDIUM for "medium"."""
    return dict(MEDIUM[sk.name]) if preset == "medium" else dict(sk.sizes[preset])


# grid sizes that stay in L2 (1 MiB here) with rows as long as the preset's where that fits
IN_CACHE = {"jacobi-1d": {"n": 2000}, "jacobi-2d": {"n": 130}, "heat-3d": {"n": 30},
            "fdtd-2d": {"nx": 30, "ny": 1200}, "seidel-2d": {"n": 130}}
MIN_UPDATES = 50_000_000  # the in-cache run does at least this many updates (~10 ms)
_TIME = {"jacobi-1d": "tsteps", "jacobi-2d": "tsteps", "heat-3d": "tsteps", "fdtd-2d": "tmax", "seidel-2d": "tsteps"}


def updates_per_step(name: str, s: dict[str, int]) -> int:
    """Statement instances of one time step of the C loops (point updates)."""
    if name == "fdtd-2d":
        nx, ny = s["nx"], s["ny"]
        return ny + (nx - 1) * ny + nx * (ny - 1) + (nx - 1) * (ny - 1)
    dims = {"jacobi-1d": 1, "jacobi-2d": 2, "heat-3d": 3, "seidel-2d": 2}[name]
    return (1 if name == "seidel-2d" else 2) * (s["n"] - 2) ** dims

# suite parameter name -> C macro
_MACROS = {"tsteps": "TSTEPS", "n": "N", "tmax": "TMAX", "nx": "NX", "ny": "NY"}


def compile_c(name: str, sizes: dict[str, int], cc: str, cflags: list[str], workdir: str) -> ctypes.CDLL:
    src = os.path.join(workdir, f"{name}.c")
    lib = os.path.join(workdir, f"{name}.so")
    with open(src, "w") as f:
        f.write(C_SOURCES[name])
    defines = [f"-D{_MACROS[k]}={v}" for k, v in sizes.items()]
    subprocess.run([cc, *cflags, "-std=c11", "-shared", "-fPIC", *defines, src, "-o", lib], check=True)
    return ctypes.CDLL(lib)


def _fresh(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _on(count: int | None):
    """polyfuse on ``count`` threads inside the block (None: as set).  Around a whole series of
    calls, not each call: every change of the thread count makes a kernel's native entry miss
    (runtime/native.py checks ``threads.THREADS_EPOCH``), so a ``limited_to`` per call timed the
    plan's Python path and a new entry each call (about 6 us more a call, session 34)."""
    return threads.limited_to(count) if count else contextlib.nullcontext()


def _min_per_call(fn, base: tuple, reps: int, clock=time.perf_counter, count: int | None = None) -> float:
    """The fastest time per call of ``reps`` calls on fresh copies of ``base``, by ``clock``
    (wall time, or ``time.thread_time``: the calling thread's CPU time, blind to preemption by
    other jobs); polyfuse on ``count`` threads (``_on``).  Calls shorter than ~1 ms are timed in
    batches (``_batch``: one clock reading per batch, the copies made before it): on this VM
    ``time.thread_time`` is a system call of ~3.3 us, which a call of 12 us timed alone carried."""
    best = float("inf")
    batch = _batch(fn, base, count)
    with _on(count):
        for _ in range(max(1, reps // batch)):
            copies = [_fresh(base) for _ in range(batch)]
            start = clock()
            for args in copies:
                fn(*args)
            best = min(best, (clock() - start) / batch)
    return best


def _batch(fn, base: tuple, count: int | None = None) -> int:
    """Calls per clock reading: about 1 ms of them (at most 50), by ``fn``'s wall time per call."""
    with _on(count):
        fn(*_fresh(base))
        args = _fresh(base)
        start = time.perf_counter()
        fn(*args)
        once = time.perf_counter() - start
    return max(1, min(50, int(1e-3 / max(once, 1e-7))))


def _reps(fn, base: tuple) -> int:
    """Calls per round: enough for about 20 ms (at most 200), by ``fn``'s time per call."""
    return max(2, min(200, int(0.02 / max(_min_per_call(fn, base, 2), 1e-6))))


def measure(name: str, preset: str, rounds: int, cc: str, cflags: list[str], workdir: str) -> dict:
    sk = suite.get(name)
    sizes = preset_sizes(sk, preset)
    base = sk.make_args(np.random.default_rng(0), **sizes)
    lib = compile_c(name, sizes, cc, cflags, workdir)
    arrays = [i for i, a in enumerate(base) if isinstance(a, np.ndarray)]

    def gcc(*args):
        lib.kernel(*[ctypes.c_void_p(args[i].ctypes.data) for i in arrays])

    pf = polyfuse.kernel(sk.func)
    nb = numba.njit(sk.func)
    # label -> (function, polyfuse's thread count: each contender's calls run under its own)
    contenders = {"gcc": (gcc, None), "numba": (nb, None), "polyfuse 1T": (pf, 1), "polyfuse 2T": (pf, 2)}
    names = list(sk.func.__code__.co_varnames[:sk.func.__code__.co_argcount])
    expected = _fresh(base)
    nb(*expected)  # compiles numba
    first = {}
    for label, (fn, count) in contenders.items():
        args = _fresh(base)
        start = time.perf_counter()
        with _on(count):
            fn(*args)
        first[label] = time.perf_counter() - start
        for out in sk.outputs:
            k = names.index(out)
            if not np.allclose(args[k], expected[k], rtol=1e-7, atol=1e-9):
                raise AssertionError(f"{name}: {label}'s {out} differs from numba's")
    for label in ("polyfuse 1T", "polyfuse 2T"):  # the runtime's team trials and native entry, untimed
        with _on(contenders[label][1]):
            measure_.warm_up(pf, base)
    reps = _reps(gcc, base)
    load_before = os.getloadavg()
    times: dict[str, list[float]] = {c: [] for c in contenders}
    for _ in range(rounds):
        for label, (fn, count) in contenders.items():
            times[label].append(_min_per_call(fn, base, reps, count=count))
    load_after = os.getloadavg()
    ms = {c: min(v) * 1e3 for c, v in times.items()}
    return {"kernel": name, "preset": preset, "sizes": sizes, "rounds": rounds, "calls_per_round": reps,
            "ms": ms, "load": [round(load_before[0], 2), round(load_after[0], 2)],
            "cc": " ".join([cc, *cflags]),
            "polyfuse_compile_s": round(first["polyfuse 1T"], 2)}


def ceiling(name: str, preset: str, rounds: int, cc: str, cflags: list[str], workdir: str) -> dict:
    """gcc and polyfuse (one thread) in L2, gcc at ``preset``: ns per point update, thread CPU time."""
    sk = suite.get(name)
    sizes = preset_sizes(sk, preset)
    small = {**sizes, **IN_CACHE[name]}
    steps = _TIME[name]
    work = max(sizes[steps] * updates_per_step(name, sizes), MIN_UPDATES)
    small[steps] = max(1, round(work / updates_per_step(name, small)))
    runs = {}
    for label, sz in (("preset", sizes), ("in_cache", small)):
        base = sk.make_args(np.random.default_rng(0), **sz)
        lib = compile_c(name, sz, cc, cflags, os.path.join(workdir, label))
        arrays = [i for i, a in enumerate(base) if isinstance(a, np.ndarray)]
        runs[label] = (base, lib, arrays, sz[steps] * updates_per_step(name, sz))
    pf = polyfuse.kernel(sk.func)

    def gcc_of(label: str):
        _, lib, arrays, _ = runs[label]
        return lambda *args: lib.kernel(*[ctypes.c_void_p(args[i].ctypes.data) for i in arrays])

    contenders = {"gcc": ("preset", gcc_of("preset")), "gcc in cache": ("in_cache", gcc_of("in_cache")),
                  "polyfuse 1T": ("preset", pf), "polyfuse 1T in cache": ("in_cache", pf)}
    outputs = {}
    with _on(1):  # polyfuse on one thread throughout (gcc's calls do not look)
        for label, (run, fn) in contenders.items():
            for _ in range(2 if label.startswith("polyfuse") else 1):  # compiles, first calls
                outputs[label] = _fresh(runs[run][0])
                fn(*outputs[label])
        for run in ("preset", "in_cache"):  # the native entry, untimed
            measure_.warm_up(pf, runs[run][0])
    names = list(sk.func.__code__.co_varnames[:sk.func.__code__.co_argcount])
    for c_label, p_label in (("gcc", "polyfuse 1T"), ("gcc in cache", "polyfuse 1T in cache")):
        for out in sk.outputs:
            k = names.index(out)
            if not np.allclose(outputs[p_label][k], outputs[c_label][k], rtol=1e-7, atol=1e-9):
                raise AssertionError(f"{name}: {p_label}'s {out} differs from {c_label}'s")
    # calls per round: enough for ~20 ms each (a MEDIUM jacobi-1d call is ~15 us: the min of 2
    # calls a round was mostly the first call after another contender's)
    reps = {label: _reps(gcc_of(run), runs[run][0]) for label, (run, _) in contenders.items()}
    load_before = os.getloadavg()
    times: dict[str, list[float]] = {c: [] for c in contenders}
    for _ in range(rounds):
        for label, (run, fn) in contenders.items():
            times[label].append(_min_per_call(fn, runs[run][0], reps[label], time.thread_time, count=1))
    load_after = os.getloadavg()
    ns = {c: min(v) * 1e9 / runs[contenders[c][0]][3] for c, v in times.items()}
    best = min(ns["gcc in cache"], ns["polyfuse 1T in cache"])
    return {"kernel": name, "preset": preset, "in_cache_sizes": small, "ns_per_update": ns,
            "ceiling": ns["gcc"] / best, "gcc_over_polyfuse": ns["gcc"] / ns["polyfuse 1T"],
            "tiled": ns["polyfuse 1T in cache"] / ns["polyfuse 1T"],
            "load": [round(load_before[0], 2), round(load_after[0], 2)]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--preset", default="bench")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--kernels", default=",".join(C_SOURCES))
    p.add_argument("--json", default=None)
    p.add_argument("--cc", default="gcc")
    p.add_argument("--cflags", default="-O3 -march=native")
    p.add_argument("--ceiling", action="store_true",
                   help="also gcc and polyfuse on one thread on an in-cache grid (thread CPU time)")
    a = p.parse_args(argv)
    cc = shutil.which(a.cc)
    if cc is None:
        print(f"gcc_stencils: no C compiler {a.cc!r} on PATH; skipped")
        return 0
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"{version}, {a.cflags}; preset {a.preset}; min of {a.rounds} interleaved rounds; ms "
          "(x: gcc over the contender)")
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in a.kernels.split(","):
            r = measure(name, a.preset, a.rounds, cc, a.cflags.split(), workdir)
            rows.append(r)
            g = r["ms"]["gcc"]
            cells = "  ".join(f"{c} {t:.3f} ({g / t:.2f}x)" if c != "gcc" else f"gcc {t:.3f}"
                              for c, t in r["ms"].items())
            print(f"{name} {r['sizes']}: {cells}  [load {r['load'][0]}-{r['load'][1]}, "
                  f"{r['calls_per_round']} calls/round]", flush=True)
            if a.ceiling:
                os.makedirs(os.path.join(workdir, "preset"), exist_ok=True)
                os.makedirs(os.path.join(workdir, "in_cache"), exist_ok=True)
                c = ceiling(name, a.preset, a.rounds, cc, a.cflags.split(), workdir)
                r["ceiling"] = c
                ns = "  ".join(f"{k} {v:.3f}" for k, v in c["ns_per_update"].items())
                print(f"  ceiling, 1 thread, CPU ns per update (in cache: {c['in_cache_sizes']}): {ns}; "
                      f"gcc over polyfuse {c['gcc_over_polyfuse']:.2f}x, ceiling {c['ceiling']:.2f}x, "
                      f"tiled {c['tiled']:.2f}  [load {c['load'][0]}-{c['load'][1]}]", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"compiler": version, "cflags": a.cflags, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
