"""Loops numba compiles that are not affine, as numba users write them: ``while`` loops, ``break``
and ``continue``, and ``range`` bounds read from arrays (CSR kernels).  frontend/opaque.py keeps
each such loop as written, one statement of the model; the affine loops around it are optimised
as usual."""

from __future__ import annotations

import numpy as np
from corpus_case import Case
from numba import prange


def csr_matvec(indptr, indices, data, x, y):
    for i in range(y.shape[0]):
        for k in range(indptr[i], indptr[i + 1]):
            y[i] += data[k] * x[indices[k]]


def bisection_sqrt(a, out, tol):
    for i in range(a.shape[0]):
        lo = 0.0
        hi = a[i] + 1.0
        while hi - lo > tol:
            mid = 0.5 * (lo + hi)
            if mid * mid > a[i]:
                hi = mid
            else:
                lo = mid
        out[i] = 0.5 * (lo + hi)


def newton_cbrt(a, out, steps):
    for i in range(a.shape[0]):
        x = a[i] + 1.0
        n = 0
        while abs(x * x * x - a[i]) > 1e-12 and n < 100:
            x = x - (x * x * x - a[i]) / (3.0 * x * x)
            n += 1
        out[i] = x
        steps[i] = n


def mandelbrot(re, im, counts, max_iter):
    for i in range(re.shape[0]):
        for j in range(im.shape[0]):
            zr = 0.0
            zi = 0.0
            n = 0
            while zr * zr + zi * zi <= 4.0 and n < max_iter:
                t = zr * zr - zi * zi + re[i]
                zi = 2.0 * zr * zi + im[j]
                zr = t
                n += 1
            counts[i, j] = n


def first_match(A, target, out):
    for i in range(A.shape[0]):
        out[i] = -1
        for j in range(A.shape[1]):
            if A[i, j] == target:
                out[i] = j
                break


def prefix_sum_skip_negative(x, out):
    s = 0.0
    for i in range(x.shape[0]):
        out[i] = s
        if x[i] < 0.0:
            continue
        s += x[i]
        out[i] = s


def histogram(x, edges, counts):
    for i in range(x.shape[0]):
        b = 0
        while b < edges.shape[0] - 2 and x[i] >= edges[b + 1]:
            b += 1
        counts[b] += 1


def gcd_elementwise(a, b, out):
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        while y != 0:
            t = x % y
            x = y
            y = t
        out[i] = x


def run_lengths(x, runs):
    for i in range(x.shape[0]):
        n = 1
        while i + n < x.shape[0] and x[i + n] == x[i]:
            n += 1
        runs[i] = n


def smooth_then_iterate(u, v, w, tol):
    n = u.shape[0]
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
    for i in range(1, n - 1):
        r = v[i, 1]
        while r > tol:
            r = r * 0.5
        w[i] = r


def prange_escape(c, counts, limit):
    for i in prange(c.shape[0]):
        z = 0.0
        n = 0
        while abs(z) <= 2.0 and n < limit:
            z = z * z + c[i]
            n += 1
        counts[i] = n


def csr_transpose_count(indptr, indices, colcount):
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            colcount[indices[k]] += 1


def _csr(rng, n=7, m=6):
    per_row = rng.integers(0, 4, n)
    indptr = np.concatenate([[0], np.cumsum(per_row)]).astype(np.int64)
    nnz = int(indptr[-1])
    return indptr, rng.integers(0, m, nnz).astype(np.int64), rng.standard_normal(nnz)


def _csr_args(rng):
    indptr, indices, data = _csr(rng)
    return indptr, indices, data, rng.standard_normal(6), np.zeros(7)


CASES = [
    Case("csr_matvec", csr_matvec, _csr_args),
    Case("bisection_sqrt", bisection_sqrt, lambda rng: (rng.random(9) * 4.0, np.zeros(9), 1e-10)),
    Case("newton_cbrt", newton_cbrt, lambda rng: (rng.random(8) * 8.0, np.zeros(8), np.zeros(8, np.int64))),
    Case("mandelbrot", mandelbrot, lambda rng: (np.linspace(-2.0, 0.5, 6) + 0.01 * rng.random(6),
                                                np.linspace(-1.0, 1.0, 5), np.zeros((6, 5), np.int64), 30)),
    Case("first_match", first_match, lambda rng: (rng.integers(0, 4, (6, 5)), 2, np.zeros(6, np.int64))),
    Case("prefix_sum_skip_negative", prefix_sum_skip_negative,
         lambda rng: (rng.standard_normal(10), np.zeros(10))),
    Case("histogram", histogram, lambda rng: (rng.random(12), np.linspace(0.0, 1.0, 5), np.zeros(4, np.int64))),
    Case("gcd_elementwise", gcd_elementwise, lambda rng: (rng.integers(1, 60, 9), rng.integers(0, 60, 9),
                                                          np.zeros(9, np.int64))),
    Case("run_lengths", run_lengths, lambda rng: (rng.integers(0, 2, 11), np.zeros(11, np.int64))),
    Case("smooth_then_iterate", smooth_then_iterate,
         lambda rng: (rng.random((6, 6)), np.zeros((6, 6)), np.zeros(6), 1e-3)),
    Case("prange_escape", prange_escape, lambda rng: (rng.standard_normal(9) * 0.6, np.zeros(9, np.int64), 25)),
    Case("csr_transpose_count", csr_transpose_count, lambda rng: _csr(rng)[:2] + (np.zeros(6, np.int64),)),
]
