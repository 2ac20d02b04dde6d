"""Elementwise NumPy programs against the memory-bandwidth bound (issue 15: within 1.5x of it).

    python benchmarks/elementwise_bound.py [rounds] [preset=bench] [programs=gelu_tanh,quantize_int8]

For each elementwise program of ``polyfuse bench --section numpy`` (and the loop suite's chain3),
the bound is the bytes the program must move (every input array read once, every output written
once, at its element size) divided by the STREAM triad bandwidth, the triad compiled by polyfuse
(polyfuse/bench/limits.py's kernel, 2**24 elements, 24 bytes each) on the same thread count.
Programs and triads run interleaved in one process, each at 1 and 2 threads; the minimum over
``rounds`` is printed with time / bound and the load.  Every output is checked against NumPy
(the undecorated function) once before timing.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.limits import TRIAD_ELEMENTS, TRIAD_SCALAR, stream_triad
from polyfuse.bench.machine import set_polyfuse_threads
from polyfuse.bench.numpy_suite import PROGRAMS

#: programs of the numpy section whose every statement is elementwise (no reduction, no stencil)
ELEMENTWISE = ("gelu_tanh", "add_relu_sigmoid", "clip_grad", "quantize_int8", "adam_step")
THREADS = (1, 2)


def moved_bytes(args, result, writes_args: bool) -> int:
    """Inputs read once, outputs written once (a program that updates its arguments in place
    writes back every array it was given but the read-only gradient: adam_step's m, v, w)."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    read = sum(a.nbytes for a in arrays)
    outs = result if isinstance(result, tuple) else (result,)
    written = sum(o.nbytes for o in outs if isinstance(o, np.ndarray))
    if writes_args:
        written += read - arrays[1].nbytes  # adam_step(w, g, m, v, ...): g is only read
    return read + written


def fresh(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def cases(preset: str, names: list[str]):
    for name in names:
        if name == "chain3":
            kernel = suite.KERNELS["chain3"]
            args = kernel.make_args(np.random.default_rng(0), **kernel.sizes[preset])
            expected = fresh(args)
            kernel.func(*expected)
            compiled = polyfuse.kernel(kernel.func)
            got = fresh(args)
            compiled(*got)
            np.testing.assert_allclose(got[2], expected[2], rtol=1e-12)
            yield name, compiled, args, 3 * args[0].nbytes, False  # A, B read; out written
            continue
        program = PROGRAMS[name]
        args = program.args(preset)
        expected = program.func(*fresh(args))
        compiled = polyfuse.kernel(program.func)
        got_args = fresh(args)
        got = compiled(*got_args)
        if expected is None:
            reference = fresh(args)
            program.func(*reference)
            for a, b in zip(got_args, reference):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
        yield name, compiled, args, moved_bytes(args, expected, expected is None), expected is None


def main(argv: list[str]) -> None:
    rounds = int(argv[0]) if argv and "=" not in argv[0] else 20
    options = dict(a.split("=", 1) for a in argv if "=" in a)
    preset = options.get("preset", "bench")
    names = options.get("programs", ",".join(ELEMENTWISE + ("chain3",))).split(",")
    runs = list(cases(preset, names))
    n = TRIAD_ELEMENTS[preset]
    a, b, c = np.zeros(n), np.full(n, 1.0), np.full(n, 2.0)
    triad = polyfuse.kernel(stream_triad)
    triad(TRIAD_SCALAR, a, b, c)
    best: dict[tuple[str, int], float] = {}
    for _ in range(rounds):
        for threads in THREADS:
            set_polyfuse_threads(threads)
            began = time.perf_counter()
            triad(TRIAD_SCALAR, a, b, c)
            key = ("triad", threads)
            best[key] = min(best.get(key, np.inf), time.perf_counter() - began)
            for name, compiled, args, _, writes in runs:
                inputs = fresh(args) if writes else args
                began = time.perf_counter()
                compiled(*inputs)
                key = (name, threads)
                best[key] = min(best.get(key, np.inf), time.perf_counter() - began)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"{'program':18s} {'MB':>6s} " + " ".join(f"{'T' + str(t) + ' ms':>8s} {'GB/s':>6s} {'x bound':>7s}"
                                                 for t in THREADS))
    triad_gb = {t: 3 * 8 * n / best[("triad", t)] / 1e9 for t in THREADS}
    print(f"{'triad':18s} {3 * 8 * n / 1e6:6.0f} " + " ".join(
        f"{best[('triad', t)] * 1e3:8.3f} {triad_gb[t]:6.1f} {1.0:7.2f}" for t in THREADS))
    for name, _, _, nbytes, _ in runs:
        cells = []
        for t in THREADS:
            seconds = best[(name, t)]
            cells.append(f"{seconds * 1e3:8.3f} {nbytes / seconds / 1e9:6.1f} "
                         f"{seconds / (nbytes / (triad_gb[t] * 1e9)):7.2f}")
        print(f"{name:18s} {nbytes / 1e6:6.0f} " + " ".join(cells))
    print(f"(preset {preset}, min of {rounds} interleaved rounds; load {load} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main(sys.argv[1:])
