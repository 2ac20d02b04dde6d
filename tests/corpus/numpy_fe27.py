"""Session 24's unseen programs, NumPy style (fe27; the batch is described in numba_fe27):
statistics on selections, a median under a data-dependent test, the row swaps of Gaussian
elimination by list indices, counts of np.nonzero and of an inline selection, and a class loop
over np.unique.  Each was refused on main (38e95b9) and runs here on an ordinary size and an
edge size."""

from __future__ import annotations

import numpy as np
from corpus_case import Case

FUSES = ("none", "smart")  # its subject is how constructs are lowered (numpy_np21)


def _n(rng, edge=0):
    """7 elements for seed 0, ``edge`` (0 or 1) for seed 1."""
    return (7, edge, edge, 7)[rng.integers(0, 4)]


def center_positive(x):
    m = x > 0
    return x[m] - x[m].mean()


def robust_center(x):
    if x.mean() > 0:
        c = np.median(x)
    else:
        c = x.mean()
    return x - c


def count_positive(x):
    return np.where(x > 0)[0].shape[0] + len(np.nonzero(x < -1.0)[0]) + len(x[x > 1.0])


def swap_rows(A, b, k):
    """The row swap of Gaussian elimination with partial pivoting, by list indices."""
    A[[0, k]] = A[[k, 0]]
    b[[0, k]] = b[[k, 0]]
    A[:, [0, k]] = A[:, [k, 0]]
    return A, b


def gini_weighted(y, w):
    classes = np.unique(y)
    g = 1.0
    for k in range(len(classes)):
        c = classes[k]
        p = 0.0
        for i in range(y.shape[0]):
            if y[i] == c:
                p += w[i]
        g -= p * p
    return g


def _system(rng):
    n = _n(rng, 1)
    return rng.standard_normal((n, n)), rng.standard_normal(n), n - 1


CASES = [
    Case("center_positive", center_positive, lambda rng: (rng.standard_normal(_n(rng)),)),
    Case("robust_center", robust_center, lambda rng: (rng.standard_normal(_n(rng, 1)) + 0.3,)),
    Case("count_positive", count_positive, lambda rng: (rng.standard_normal(_n(rng)),)),
    Case("swap_rows", swap_rows, _system),
    Case("gini_weighted", gini_weighted,
         lambda rng: (lambda n: (rng.integers(0, 3, n), rng.random(n) / 7))(_n(rng, 1)),
         fuses=("smart",), targets=("cpu",), why_narrowed="suite time budget: np.unique's sort compiles slowly"),
]
