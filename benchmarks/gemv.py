"""Matrix-vector products in NumPy code: @polyfuse.kernel (fused loops) against NumPy (BLAS).

    python benchmarks/gemv.py [N] [repeats] [--json FILE]

PolyBench's matrix-vector kernels in their NumPy form (npbench's), with N x N float64
matrices (default N = 4000, npbench's M preset), plus npbench nbody's ``(dx * inv_r3) @ mass``.
polyfuse lowers matrix-vector products to loops (frontend/array_linalg.py ``_blas_shape``):
each reads its matrix once, so memory bounds it, and fused with its neighbours
(``alpha * A @ x + beta * B @ x``) the matrix is read once in all where NumPy makes a scaled
copy and calls BLAS once per product.  Each kernel is checked against NumPy on the same inputs (relative error of
the results and written arguments); times are the minimum of ``repeats`` calls, NumPy's and
polyfuse's interleaved, fresh copies of the inputs outside the timed region.
"""

from __future__ import annotations

import copy
import json
import sys
import time

import numpy as np

import polyfuse


def gesummv(alpha, beta, A, B, x):
    return alpha * A @ x + beta * B @ x


def atax(A, x):
    return (A @ x) @ A


def bicg(A, p, r):
    return r @ A, A @ p


def mvt(x1, x2, y_1, y_2, A):
    x1 += A @ y_1
    x2 += y_2 @ A


def gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * y @ A + z
    w += alpha * A @ x


def nbody_acc(pos, mass, G, softening):
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    z = pos[:, 2:3]
    dx = x.T - x
    dy = y.T - y
    dz = z.T - z
    inv_r3 = dx**2 + dy**2 + dz**2 + softening**2
    inv_r3[inv_r3 > 0] = inv_r3[inv_r3 > 0] ** (-1.5)
    ax = G * (dx * inv_r3) @ mass
    ay = G * (dy * inv_r3) @ mass
    az = G * (dz * inv_r3) @ mass
    return ax, ay, az


def cases(n: int, rng) -> dict:
    def m():
        return rng.random((n, n))

    def v():
        return rng.random(n)

    bodies = max(n // 4, 2)
    return {
        gesummv: (1.5, 1.2, m(), m(), v()),
        atax: (m(), v()),
        bicg: (m(), v(), v()),
        mvt: (v(), v(), v(), v(), m()),
        gemver: (1.5, 1.2, m(), v(), v(), v(), v(), v(), v(), v(), v()),
        nbody_acc: (rng.random((bodies, 3)), rng.random((bodies, 1)), 1.0, 0.1),
    }


def rel_error(expected, actual) -> float:
    if expected is None:
        return 0.0
    if isinstance(expected, tuple):
        return max(rel_error(e, a) for e, a in zip(expected, actual))
    scale = float(np.abs(expected).max()) or 1.0
    return float(np.abs(np.asarray(expected) - np.asarray(actual)).max()) / scale


def measure(fn, args, repeats: int) -> dict:
    kernel = polyfuse.kernel(fn)
    want, got = copy.deepcopy(args), copy.deepcopy(args)
    expected, actual = fn(*want), kernel(*got)
    error = max([rel_error(expected, actual)] + [rel_error(e, a) for e, a in zip(want, got)
                                                  if isinstance(e, np.ndarray)])
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for k, call in enumerate((fn, kernel)):
            fresh = copy.deepcopy(args)
            start = time.perf_counter()
            call(*fresh)
            best[k] = min(best[k], time.perf_counter() - start)
    return {"kernel": fn.__name__, "numpy_ms": best[0] * 1e3, "polyfuse_ms": best[1] * 1e3,
            "speedup": best[0] / best[1], "rel_error": error}


def main(argv: list[str]) -> None:
    json_path = None
    if "--json" in argv:
        json_path = argv[argv.index("--json") + 1]
        del argv[argv.index("--json"):argv.index("--json") + 2]
    positional = [a for a in argv if not a.startswith("--")]
    n = int(positional[0]) if positional else 4000
    repeats = int(positional[1]) if len(positional) > 1 else 5
    rows = [measure(fn, args, repeats) for fn, args in cases(n, np.random.default_rng(0)).items()]
    print(f"matrix-vector products, N = {n}, min of {repeats} (speedup = NumPy time / polyfuse time)")
    print(f"{'kernel':10s} {'NumPy ms':>9s} {'polyfuse ms':>12s} {'speedup':>8s} {'rel err':>8s}")
    for row in rows:
        print(f"{row['kernel']:10s} {row['numpy_ms']:9.2f} {row['polyfuse_ms']:12.2f} {row['speedup']:7.2f}x "
              f"{row['rel_error']:8.1e}")
    if json_path:
        with open(json_path, "w") as out:
            json.dump({"n": n, "repeats": repeats, "rows": rows}, out, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
