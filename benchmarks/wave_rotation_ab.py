"""fe38 A/B: a wave_1d time loop (u_next = np.zeros_like(u) ... u_prev, u = u, u_next) compiled as
chained copies (two a step, the default), or as the full rotation of three buffers (every buffer
copied out and back: mode ``rotation`` monkeypatches frontend/array_swaps._chain_order away), or
NumPy itself (mode ``numpy``, the undecorated function).  One
mode per process, each with a fresh cache directory; alternate the modes from the shell:

    for m in chain rotation numpy chain rotation numpy; do python benchmarks/wave_rotation_ab.py $m; done

Prints the process CPU time per call (min of 7), one thread."""

from __future__ import annotations

import os
import resource
import sys
import tempfile

import numpy as np

os.environ["POLYFUSE_CACHE_DIR"] = tempfile.mkdtemp(prefix="pf_wave_ab_")

from polyfuse.frontend import array_swaps  # noqa: E402

import polyfuse  # noqa: E402


def wave(u0, u1, c, steps):
    u_prev = u0.copy()
    u = u1.copy()
    for _ in range(steps):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return u


def main(mode: str, n: int = 100_000, steps: int = 50) -> None:
    if mode == "rotation":
        array_swaps._chain_order = lambda moves: None  # type: ignore[assignment]
    polyfuse.set_num_threads(1)
    r = np.random.default_rng(0)
    u0, u1 = r.random(n), r.random(n)
    k = polyfuse.kernel(wave, target="cpu") if mode != "numpy" else wave
    np.testing.assert_allclose(k(u0, u1, 0.1, steps), wave(u0, u1, 0.1, steps), rtol=1e-12)
    best = float("inf")
    for _ in range(7):
        t = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        k(u0, u1, 0.1, steps)
        best = min(best, resource.getrusage(resource.RUSAGE_SELF).ru_utime - t)
    print(f"{mode}: {1e3 * best:.2f} ms per call (n={n}, steps={steps})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "chain")
