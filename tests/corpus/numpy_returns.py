"""NumPy functions that return what they compute (array expressions, reductions, tuples)."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def softmax(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)


def relu(x):
    return np.maximum(x, 0.0)


def smooth(a):
    b = np.empty_like(a)
    b[1:-1] = 0.25 * a[:-2] + 0.5 * a[1:-1] + 0.25 * a[2:]
    b[0] = a[0]
    b[-1] = a[-1]
    return b


def mean_std(x):
    return x.mean(), np.sqrt(((x - x.mean()) ** 2).mean())


def scaled_total(x):
    return np.sum(x * 2.0)


def layernorm(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * gamma + beta


CASES = [
    Case("softmax", softmax, lambda rng: (rng.random((4, 7)),), rtol=1e-12),
    Case("relu", relu, lambda rng: (rng.random(9) - 0.5,)),
    Case("smooth", smooth, lambda rng: (rng.random(10),)),
    Case("mean_std", mean_std, lambda rng: (rng.random(12),), rtol=1e-12),
    Case("scaled_total", scaled_total, lambda rng: (rng.random((5, 3)),), rtol=1e-12),
    Case("layernorm", layernorm, lambda rng: (rng.random((3, 8)), rng.random(8), rng.random(8)), rtol=1e-12),
]
