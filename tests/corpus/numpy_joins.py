"""NumPy programs that join arrays (np.concatenate, np.hstack, np.vstack, np.stack,
np.column_stack), written the way their authors write them: npbench's nbody acceleration, a
periodic stencil padded with np.concatenate, run counting with a boolean edge array, least-squares
features built with np.column_stack, block matrices.  Written for this corpus, not copied."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def nbody_get_acc(pos, mass, G, softening):
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    z = pos[:, 2:3]
    dx = x.T - x
    dy = y.T - y
    dz = z.T - z
    inv_r3 = (dx**2 + dy**2 + dz**2 + softening**2)
    inv_r3[inv_r3 > 0] = inv_r3[inv_r3 > 0]**(-1.5)
    ax = G * (dx * inv_r3) @ mass
    ay = G * (dy * inv_r3) @ mass
    az = G * (dz * inv_r3) @ mass
    a = np.hstack((ax, ay, az))
    return a


def periodic_laplacian(u, steps, nu):
    for _ in range(steps):
        padded = np.concatenate((u[-1:], u, u[:1]))
        u[:] = u + nu * (padded[2:] - 2.0 * padded[1:-1] + padded[:-2])
    return u


def count_runs(x):
    starts = np.concatenate(([True], x[1:] != x[:-1]))
    return np.sum(starts)


def poly_fit_residual(x, y, w):
    features = np.column_stack((np.ones(x.shape[0]), x, x * x))
    return y - features @ w


def blocks(A, B):
    top = np.hstack((A, B))
    bottom = np.hstack((B.T @ A, np.eye(B.shape[1])))
    return np.vstack((top, bottom)), np.stack((A, A.T), axis=-1).sum(axis=-1)


def _bodies(rng, n):
    return rng.standard_normal((n, 3)), rng.random((n, 1)) * 20.0 / n, 1.0, 0.1


CASES = [
    Case("nbody_get_acc", nbody_get_acc, lambda r: _bodies(r, 30), rtol=1e-9),
    Case("periodic_laplacian", periodic_laplacian, lambda r: (r.random(17), 4, 0.2)),
    Case("count_runs", count_runs, lambda r: (r.integers(0, 3, 25),)),
    Case("poly_fit_residual", poly_fit_residual, lambda r: (r.random(12), r.random(12), r.random(3))),
    Case("blocks", blocks, lambda r: (r.random((4, 4)), r.random((4, 3)))),
]
