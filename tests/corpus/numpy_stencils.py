"""Stencils and small array programs as NumPy users write them: time loops over shifted slices,
row sweeps, slice bounds in loop variables and sizes, views, transposes, clip/astype chains and
reductions over axis tuples.

Float sums reduce in a plain loop (NumPy sums pairwise), so cases with sums compare at rtol 1e-12.
"""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def jacobi_1d(A, B, tsteps):
    for t in range(tsteps):
        B[1:-1] = (A[:-2] + A[1:-1] + A[2:]) / 3.0
        A[1:-1] = (B[:-2] + B[1:-1] + B[2:]) / 3.0


def jacobi_2d_sized(A, B, tsteps):
    n = A.shape[0]
    for t in range(tsteps):
        B[1:n - 1, 1:n - 1] = 0.2 * (A[1:n - 1, 1:n - 1] + A[1:n - 1, :n - 2] + A[1:n - 1, 2:]
                                     + A[2:, 1:n - 1] + A[:n - 2, 1:n - 1])
        A[1:n - 1, 1:n - 1] = 0.2 * (B[1:n - 1, 1:n - 1] + B[1:n - 1, :n - 2] + B[1:n - 1, 2:]
                                     + B[2:, 1:n - 1] + B[:n - 2, 1:n - 1])


def heat_3d_inplace(A, tsteps):
    for t in range(tsteps):
        c = A[1:-1, 1:-1, 1:-1]
        A[1:-1, 1:-1, 1:-1] += 0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * c + A[:-2, 1:-1, 1:-1]) \
            + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * c + A[1:-1, :-2, 1:-1]) \
            + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * c + A[1:-1, 1:-1, :-2])


def seidel_2d_rows(A, tsteps):
    n, m = A.shape
    for t in range(tsteps):
        for i in range(1, n - 1):
            A[i, 1:m - 1] = (A[i - 1, 0:m - 2] + A[i - 1, 1:m - 1] + A[i - 1, 2:m]
                             + A[i, 0:m - 2] + A[i, 1:m - 1] + A[i, 2:m]
                             + A[i + 1, 0:m - 2] + A[i + 1, 1:m - 1] + A[i + 1, 2:m]) / 9.0


def fdtd_2d(ex, ey, hz, fict):
    for t in range(fict.shape[0]):
        ey[0, :] = fict[t]
        ey[1:, :] = ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] = ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] = hz[:-1, :-1] - 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def blur_9point(img, out):
    out[1:-1, 1:-1] = (img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:]
                       + img[1:-1, :-2] + img[1:-1, 1:-1] + img[1:-1, 2:]
                       + img[2:, :-2] + img[2:, 1:-1] + img[2:, 2:]) / 9.0
    out[0, :] = img[0, :]
    out[-1, :] = img[-1, :]
    out[1:-1, 0] = img[1:-1, 0]
    out[1:-1, -1] = img[1:-1, -1]


def upwind_advection(q, c, steps, dt):
    for t in range(steps):
        flux = np.where(c[1:-1] > 0.0, c[1:-1] * (q[1:-1] - q[:-2]), c[1:-1] * (q[2:] - q[1:-1]))
        q[1:-1] -= dt * flux


def shallow_water(h, u, v, dt, dx, g, steps):
    for t in range(steps):
        hc = h[1:-1, 1:-1]
        uc = u[1:-1, 1:-1]
        vc = v[1:-1, 1:-1]
        du = -uc * (u[1:-1, 2:] - u[1:-1, :-2]) / (2.0 * dx) - vc * (u[2:, 1:-1] - u[:-2, 1:-1]) / (2.0 * dx) \
            - g * (h[1:-1, 2:] - h[1:-1, :-2]) / (2.0 * dx)
        dv = -uc * (v[1:-1, 2:] - v[1:-1, :-2]) / (2.0 * dx) - vc * (v[2:, 1:-1] - v[:-2, 1:-1]) / (2.0 * dx) \
            - g * (h[2:, 1:-1] - h[:-2, 1:-1]) / (2.0 * dx)
        dh = -(h[1:-1, 2:] * u[1:-1, 2:] - h[1:-1, :-2] * u[1:-1, :-2]) / (2.0 * dx) \
            - (h[2:, 1:-1] * v[2:, 1:-1] - h[:-2, 1:-1] * v[:-2, 1:-1]) / (2.0 * dx)
        u[1:-1, 1:-1] = uc + dt * du
        v[1:-1, 1:-1] = vc + dt * dv
        h[1:-1, 1:-1] = hc + dt * dh


def softmax_axis0(X, out):
    e = np.exp(X - X.max(axis=0))
    out[...] = e / e.sum(axis=0)


def softmax_last_axis(X):
    e = np.exp(X - np.max(X, axis=-1, keepdims=True))
    return e / np.add.reduce(e, axis=-1, keepdims=True)


def layernorm_transposed(X, gamma, beta, out, eps):
    Xt = X.T
    mu = Xt.mean(axis=0)
    var = ((Xt - mu) ** 2).mean(axis=0)
    out[...] = ((Xt - mu) / np.sqrt(var + eps)).T * gamma + beta


def conv2d_bias(x, w, bias, out):
    h, wd = out.shape
    out[...] = bias
    for p in range(w.shape[0]):
        for q in range(w.shape[1]):
            out += w[p, q] * x[p:p + h, q:q + wd]


def quantize_clip_astype(x, scale, out):
    q = np.clip(np.rint(x / scale), -127.0, 127.0).astype(np.int8)
    out[...] = q.astype(np.float32) * np.float32(scale)


def minmax_normalize(img, out):
    lo = img.min(axis=(0, 1), keepdims=True)
    hi = np.maximum.reduce(img.max(axis=0), axis=0)
    out[...] = (img - lo) / (hi - lo[0, 0, :] + 1e-9)


def trisolv(L, b, x):
    for i in range(x.shape[0]):
        x[i] = (b[i] - np.sum(L[i, :i] * x[:i])) / L[i, i]


def lower_triangle_scale(A, out):
    n = A.shape[0]
    for i in range(n):
        out[i, :i + 1] = A[i, :i + 1] * (i + 1.0)
        out[i, i + 1:] = -A[i, i + 1:].T


def _spd_lower(rng, n):
    return np.tril(rng.random((n, n))) + n * np.eye(n)


CASES = [
    Case("jacobi_1d", jacobi_1d, lambda rng: (rng.random(12), rng.random(12), 3)),
    Case("jacobi_2d_sized", jacobi_2d_sized, lambda rng: (rng.random((8, 8)), rng.random((8, 8)), 2)),
    Case("heat_3d_inplace", heat_3d_inplace, lambda rng: (rng.random((5, 6, 5)), 2)),
    Case("seidel_2d_rows", seidel_2d_rows, lambda rng: (rng.random((6, 7)), 2)),
    Case("fdtd_2d", fdtd_2d, lambda rng: (rng.random((5, 6)), rng.random((5, 6)), rng.random((5, 6)),
                                          rng.random(3))),
    Case("blur_9point", blur_9point, lambda rng: (rng.random((7, 8)), np.zeros((7, 8)))),
    Case("upwind_advection", upwind_advection, lambda rng: (rng.random(12), rng.random(12) - 0.5, 3, 0.1)),
    Case("shallow_water", shallow_water, lambda rng: (1.0 + 0.1 * rng.random((6, 7)), 0.1 * rng.random((6, 7)),
                                                      0.1 * rng.random((6, 7)), 0.01, 1.0, 9.81, 2)),
    Case("softmax_axis0", softmax_axis0, lambda rng: (rng.random((5, 4)), np.zeros((5, 4))), rtol=1e-12),
    Case("softmax_last_axis", softmax_last_axis, lambda rng: (rng.random((3, 6)),), rtol=1e-12),
    Case("layernorm_transposed", layernorm_transposed,
         lambda rng: (rng.random((6, 4)), rng.random(4), rng.random(4), np.zeros((6, 4)), 1e-5), rtol=1e-12),
    Case("conv2d_bias", conv2d_bias, lambda rng: (rng.random((7, 8)), rng.random((3, 3)), 0.25,
                                                  np.zeros((5, 6)))),
    Case("quantize_clip_astype", quantize_clip_astype,
         lambda rng: ((rng.random((4, 5)) - 0.5).astype(np.float32) * 4, 0.02, np.zeros((4, 5), np.float32)),
         rtol=1e-6, atol=1e-6),
    Case("minmax_normalize", minmax_normalize, lambda rng: (rng.random((4, 5, 3)), np.zeros((4, 5, 3)))),
    Case("trisolv", trisolv, lambda rng: (_spd_lower(rng, 6), rng.random(6), np.zeros(6)), rtol=1e-12),
    Case("lower_triangle_scale", lower_triangle_scale, lambda rng: (rng.random((5, 5)), np.zeros((5, 5)))),
]
