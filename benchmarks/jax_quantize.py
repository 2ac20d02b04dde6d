"""What ``jax.jit`` computes for the NumPy suite's quantize_int8, against NumPy and polyfuse.

    python benchmarks/jax_quantize.py [hlo]

XLA's optimized HLO (``jax.jit(f).lower(...).compile().as_text()``, printed with ``hlo``) turns
``x / scale`` into ``x * (1 / scale)``: one scalar division (``wrapped_divide``) and a multiply
per element in the fused loop.  That is not NumPy's quotient: where x / s lies within an ulp of a
half-integer, ``rint`` of the two can differ.  The script counts the differing results on such
inputs (k + 1/2) s and their float64 neighbours, and prints the first: -2.11 / 0.02 is
-105.49999999999999, -2.11 * (1 / 0.02) is -105.5, so NumPy gives -105 and jax.jit -106.
polyfuse divides, as NumPy does (0 differences).
"""

from __future__ import annotations

import sys

import numpy as np

import polyfuse
from polyfuse.bench.numpy_suite import quantize_int8, with_numpy_namespace


def main(argv: list[str]) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    jitted = jax.jit(with_numpy_namespace(quantize_int8, jax.numpy))
    scale = 0.02
    halves = (np.arange(-120, 120) + 0.5) * scale
    x = np.concatenate([halves, np.nextafter(halves, np.inf), np.nextafter(halves, -np.inf)])
    if "hlo" in argv:
        print(jitted.lower(jax.numpy.asarray(x), scale).compile().as_text())
    expected = quantize_int8(x, scale)
    by_jax = np.asarray(jitted(jax.numpy.asarray(x), scale))
    by_polyfuse = polyfuse.kernel(quantize_int8)(x, scale)
    differ = np.flatnonzero(by_jax != expected)
    print(f"{x.size} dividends near (k + 1/2) * {scale}: jax.jit differs from NumPy at {differ.size}, "
          f"polyfuse at {np.count_nonzero(by_polyfuse != expected)}")
    if differ.size:
        first = x[differ[0]]
        print(f"x = {first!r}: x / s = {first / scale!r}, x * (1 / s) = {first * (1 / scale)!r}; "
              f"NumPy {expected[differ[0]]}, jax.jit {by_jax[differ[0]]}")


if __name__ == "__main__":
    main(sys.argv[1:])
