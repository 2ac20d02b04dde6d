"""NumPy programs that index from the end with a loop variable (``x[-1 - i]``, ``x[i - n]``) and
take one element of a helper's returned tuple (``hist_and_edges(x, n)[0]``), the forms of npbench's
durbin and azimint_hist (pythran versions). Written for this corpus, not copied."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def reversed_copy(a):
    b = np.empty_like(a)
    for i in range(b.shape[0]):
        b[i] = a[-1 - i]
    return b


def levinson(r):
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(reversed_copy(r[:k]), y[:k])) / beta
        y[:k] += alpha * reversed_copy(y[:k])
        y[k] = alpha
    return y


def last_window_sums(x, w):
    out = np.zeros(w)
    for i in range(w):
        out[i] = x[i - w] + x[-1 - i] * 0.5
    return out


def mirror_rows(A):
    B = np.empty_like(A)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[i, j] = A[-1 - i, j] - A[i, -1 - j]
    return B


def hist_and_edges(a, bins, weights):
    edges = np.linspace(a.min(), a.max(), bins + 1)
    hist = np.zeros(bins)
    for i in range(a.shape[0]):
        b = min(int((a[i] - edges[0]) / (edges[-1] - edges[0]) * bins), bins - 1)
        hist[b] += weights[i]
    return hist, edges


def weighted_mean_per_bin(a, w, bins):
    counts = hist_and_edges(a, bins, np.ones_like(a))[0]
    sums = hist_and_edges(a, bins, weights=w)[0]
    return sums / np.maximum(counts, 1.0)


CASES = [
    Case("levinson", levinson, lambda r: (np.arange(12.0, 0.0, -1.0) / 12.0 + 0.1 * r.random(12),), rtol=1e-8),
    Case("last_window_sums", last_window_sums, lambda r: (r.random(15), 6)),
    Case("mirror_rows", mirror_rows, lambda r: (r.random((5, 4)),)),
    Case("weighted_mean_per_bin", weighted_mean_per_bin, lambda r: (r.random(40), r.random(40), 6)),
]
