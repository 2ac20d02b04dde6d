"""NumPy programs with slice bounds that are products of a loop variable and an argument
(strided windows, a filter adapted over decimated windows), np.repeat by an argument and
allocations whose extents are products of arguments. Written for this corpus, not copied."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def decimated_means(x, factor, width, count):
    out = np.empty(count)
    for i in range(count):
        out[i] = np.mean(x[i * factor:i * factor + width])
    return out


def lms_equalizer(E, W, mu, stride):
    taps = W.shape[-1]
    count = (E.shape[1] // stride // taps - 1) * taps
    err = np.zeros((W.shape[0], E.shape[1]), dtype=np.complex128)
    for k in range(W.shape[0]):
        for i in range(count):
            X = E[:, i * stride:i * stride + taps]
            y = np.sum(X * np.conj(W[k]))
            err[k, i] = (2.0 - abs(y) ** 2) * y
            W[k] += mu * np.conj(err[k, i]) * X
    return err


def upsampled_series(x, factor):
    n = x.shape[0]
    out = np.empty(n * (factor + 1))
    out[:n] = x
    out[n:] = np.repeat(x, factor) * 0.5
    return out


def block_ids(rows, cols):
    ids = np.arange(rows * cols)
    table = np.zeros((rows * cols, 2), dtype=np.int64)
    table[:, 0] = ids // cols
    table[:, 1] = ids % cols
    return table


CASES = [
    Case("upsampled_series", upsampled_series, lambda r: (r.random(9), 4)),
    Case("block_ids", block_ids, lambda r: (3, 5)),
    Case("decimated_means", decimated_means, lambda r: (r.random(40), 3, 5, 12)),
    Case("lms_equalizer", lms_equalizer, lambda r: (r.random((2, 64)) + 1j * r.random((2, 64)),
                                                   np.eye(2)[:, :, None] * np.ones(5) * 0.2 + 0j, 1e-3, 2)),
]
