"""Transcendental chains against the memory-bandwidth bound: polyfuse, NumPy, numba, jax.jit.

    python benchmarks/vector_math.py [elements] [repeats]

Two elementwise chains over ``elements`` float64 values (default 8M): GELU in tanh form
(``x ** 3`` and ``tanh``; reads x, writes out: 16 bytes per element) and a sin/cos chain
(``sin(x) * cos(y) + 0.5``: 24 bytes per element).  polyfuse (vector_math on and off) and numba
``@njit`` compile the same loop function; NumPy and ``jax.jit`` (float64, where installed) run the
array form.  The bound is bytes moved / STREAM triad bandwidth, the triad compiled by polyfuse
on the same threads (polyfuse/bench/limits.py's kernel); ratio = time / bound.  Min of
``repeats`` (default 7) runs each; every result checked against NumPy's.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench.limits import stream_triad


def gelu_loop(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = 0.5 * v * (1.0 + math.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3)))


def gelu_array(np, x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def trig_loop(x, y, out):
    for i in range(x.shape[0]):
        out[i] = math.sin(x[i]) * math.cos(y[i]) + 0.5


def trig_array(np, x, y):
    return np.sin(x) * np.cos(y) + 0.5


def best_ms(fn, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def triad_gb_s(n: int, repeats: int) -> float:
    a, b, c = np.zeros(n), np.ones(n), np.full(n, 2.0)
    kernel = polyfuse.kernel(stream_triad)
    ms = best_ms(lambda: kernel(3.0, a, b, c), repeats)
    return 24 * n / (ms * 1e-3) / 1e9


def contenders(loop, array, inputs, out):
    """name -> a call that leaves its result in ``out`` (except jax's "no copy out" timing)."""
    import numba

    fast, libm, jitted_loop = polyfuse.kernel(loop), polyfuse.kernel(loop, vector_math=False), numba.njit(loop)
    found = {
        "polyfuse": lambda: fast(*inputs, out),
        "polyfuse vector_math=False": lambda: libm(*inputs, out),
        "numba njit": lambda: jitted_loop(*inputs, out),
        "numpy": lambda: np.copyto(out, array(np, *inputs)),
    }
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        jitted = jax.jit(lambda *a: array(jax.numpy, *a))
        on_device = [jax.device_put(a) for a in inputs]
        found["jax.jit"] = lambda: np.copyto(out, np.asarray(jax.block_until_ready(jitted(*on_device))))
        found["jax.jit (no copy out)"] = lambda: jax.block_until_ready(jitted(*on_device))
    except ImportError:
        pass
    return found


def main(n: int = 1 << 23, repeats: int = 7) -> None:
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-4, 4, n), rng.uniform(-10, 10, n)
    bandwidth = triad_gb_s(n, repeats)
    print(f"{n} float64 elements; STREAM triad (polyfuse, "
          f"{polyfuse.runtime.threads.get_num_threads()} threads): {bandwidth:.1f} GB/s")
    for name, loop, array, inputs, nbytes in (("gelu_tanh", gelu_loop, gelu_array, (x,), 16 * n),
                                              ("sin_cos", trig_loop, trig_array, (x, y), 24 * n)):
        bound_ms = nbytes / (bandwidth * 1e9) * 1e3
        expected = array(np, *inputs)
        print(f"\n{name}: {nbytes / 1e6:.0f} MB moved, bandwidth bound {bound_ms:.2f} ms")
        print(f"  {'contender':28s} {'ms':>9s} {'x bound':>8s}  max |diff| vs numpy")
        out = np.empty(n)
        for label, call in contenders(loop, array, inputs, out).items():
            out.fill(np.nan)
            ms = best_ms(call, repeats)
            diff = "-" if "no copy" in label else f"{np.max(np.abs(out - expected)):.2e}"
            print(f"  {label:28s} {ms:9.2f} {ms / bound_ms:8.2f}  {diff}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
