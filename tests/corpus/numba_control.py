"""Data-dependent control flow as numba users write it: ``if`` on array values, argmax with its
index, counts, clamps and piecewise functions (frontend/control.py lifts them by if-conversion)."""

from __future__ import annotations

import math

import numpy as np
from corpus_case import Case


def relu(x, out):
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            out[i] = x[i]
        else:
            out[i] = 0.0


def threshold_keep(x, y, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            y[i] = x[i]


def clamp(x, out, lo, hi):
    for i in range(x.shape[0]):
        v = x[i]
        if v < lo:
            out[i] = lo
        elif v > hi:
            out[i] = hi
        else:
            out[i] = v


def argmax(x, out):
    best = x[0]
    k = 0
    for i in range(1, x.shape[0]):
        if x[i] > best:
            best = x[i]
            k = i
    out[0] = best
    out[1] = k


def argmin_rows(A, idx):
    for i in range(A.shape[0]):
        m = A[i, 0]
        k = 0
        for j in range(A.shape[1]):
            if A[i, j] < m:
                m = A[i, j]
                k = j
        idx[i] = k


def count_above(x, t, out):
    count = 0
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > t:
            count += 1
            total += x[i]
    out[0] = count
    out[1] = total


def piecewise(x, y):
    for i in range(x.shape[0]):
        v = x[i]
        if v < -1.0:
            y[i] = -1.0 - 0.5 * (v + 1.0)
        elif v < 0.0:
            y[i] = v * v
        elif v < 1.0:
            y[i] = 2.0 * v
        else:
            y[i] = 2.0 + np.sqrt(v - 1.0)


def sign_counts(x, pos, neg):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if x[i, j] > 0:
                pos[i] += 1
            elif x[i, j] < 0:
                neg[i] += 1


def normalize_positive_rows(A, out):
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += A[i, j]
        if s > 0.0:
            for j in range(A.shape[1]):
                out[i, j] = A[i, j] / s
        else:
            for j in range(A.shape[1]):
                out[i, j] = 0.0


def leaky_relu_inplace(x, alpha):
    for i in range(x.shape[0]):
        if x[i] < 0:
            x[i] *= alpha


def running_max(x, out):
    m = x[0]
    for i in range(x.shape[0]):
        if x[i] > m:
            m = x[i]
        out[i] = m


def nested_mask(A, B, out):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] > 0.0:
                if B[i, j] > 0.0:
                    out[i, j] = A[i, j] * B[i, j]
                else:
                    out[i, j] = A[i, j]


def _vec(n):
    return lambda rng: (rng.standard_normal(n), np.zeros(n))


CASES = [
    Case("relu", relu, _vec(37)),
    Case("threshold_keep", threshold_keep,
         lambda rng: (rng.random(29), np.full(29, -0.0), 0.5)),
    Case("clamp", clamp, lambda rng: (rng.standard_normal(31), np.zeros(31), -0.5, 0.75)),
    Case("argmax_with_ties", argmax,
         lambda rng: (rng.integers(0, 4, 23).astype(np.float64), np.zeros(2))),
    Case("argmin_rows", argmin_rows,
         lambda rng: (rng.integers(0, 3, (6, 9)).astype(np.float32), np.zeros(6, np.int64))),
    Case("count_above", count_above, lambda rng: (rng.random(41), 0.3, np.zeros(2))),
    Case("piecewise", piecewise, lambda rng: (3.0 * rng.standard_normal(40), np.zeros(40))),
    Case("sign_counts", sign_counts,
         lambda rng: (rng.integers(-2, 3, (5, 8)), np.zeros(5, np.int32), np.zeros(5, np.int64))),
    Case("normalize_positive_rows", normalize_positive_rows,
         lambda rng: (rng.standard_normal((6, 7)) + 0.2, np.zeros((6, 7)))),
    Case("leaky_relu_inplace", leaky_relu_inplace, lambda rng: (rng.standard_normal(33), 0.1)),
    Case("running_max", running_max, _vec(27)),
    Case("nested_mask", nested_mask,
         lambda rng: (rng.standard_normal((5, 6)), rng.standard_normal((5, 6)), np.full((5, 6), np.nan))),
]


# ---- indirect and non-affine subscripts ------------------------------------------------------
def gather(x, idx, out):
    for i in range(idx.shape[0]):
        out[i] = x[idx[i]]


def scatter_add(x, idx, out):
    for i in range(x.shape[0]):
        out[idx[i]] += x[i]


def histogram(x, nbins, hist):
    for i in range(x.shape[0]):
        b = math.floor(x[i] * nbins)
        hist[b] += 1


def embedding(E, tokens, out):
    for t in range(tokens.shape[0]):
        for j in range(E.shape[1]):
            out[t, j] = E[tokens[t], j]


def triangle_index(A, out):
    for i in range(A.shape[0]):
        for j in range(A.shape[0]):
            out[i, j] = A[(i * j) % A.shape[0]]


def cyclic_shift(x, k, out):
    for i in range(x.shape[0]):
        out[i] = x[(i + k) % x.shape[0]]


def guarded_gather(x, idx, out):
    for i in range(idx.shape[0]):
        if idx[i] >= 0 and idx[i] < x.shape[0]:
            out[i] = x[idx[i]]
        else:
            out[i] = 0.0


def _gather_args(rng):
    x = rng.standard_normal(17)
    return x, rng.integers(-17, 17, 23), np.zeros(23)


CASES += [
    Case("gather_negative_indices", gather, _gather_args),
    Case("scatter_add", scatter_add,
         lambda rng: (rng.standard_normal(30), rng.integers(-8, 8, 30), np.zeros(8))),
    Case("histogram_floor_bins", histogram,
         lambda rng: (rng.random(50), 7, np.zeros(7, np.int64))),
    Case("embedding_rows", embedding,
         lambda rng: (rng.standard_normal((9, 4)), rng.integers(0, 9, 6), np.zeros((6, 4)))),
    Case("product_subscript", triangle_index,
         lambda rng: (rng.standard_normal(8), np.zeros((8, 8)))),
    Case("cyclic_shift_runtime_k", cyclic_shift,
         lambda rng: (rng.standard_normal(13), int(rng.integers(-20, 20)), np.zeros(13))),
    Case("guarded_gather", guarded_gather,
         lambda rng: (rng.standard_normal(10), rng.integers(-15, 15, 20), np.zeros(20))),
]
