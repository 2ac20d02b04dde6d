"""Session 25's unseen programs (fe29): 86 third-party-style kernels, loop and NumPy style
(numba examples, scientific repos, Stack Overflow answers: early exits, while loops, small
helpers, tuples, np.* calls on slices, masks, argsort/cumsum/where/clip/diff/histogram/bincount,
kernels of scalar arguments and constant loops), each run against the undecorated function on
several inputs, edge sizes included, with 1 and 2 threads (cpu target, smart fusion).  On main
(210ffea): 68 matched, 13 refused (3 of them per call, an ArgumentError for short arrays where
Python never read past the end), 3 returned wrong values (kernels without parameters, such as a
bisection over float arguments: isl read the loop's band ``[] -> [...]`` as empty, so the
loop's statements ran as separate loops), 2 equal values of another type (a weak ``0.0`` where
no data-dependent update ran: documented), none crashed.  On fe29: 82 match, 2 refused (an
allocation of ``len(np.unique(x))``; a ``def`` inside the kernel, now named as such), the 2
documented type differences.  Kept here, one size and an edge size each (the suite is at its
time budget; tests/frontend/test_fe29_forms.py holds the bincount, triu/tril and argsort ones).
"""

from __future__ import annotations

import numpy as np
from corpus_case import Case

FUSES = ("none", "smart")  # its subject is how constructs are lowered (numpy_np21)


def _n(rng, edge=1):
    """7 elements for seed 0, ``edge`` for seed 1."""
    return 7 if rng.integers(0, 2) == 0 else edge


def bisect_cube_root(c, lo, hi):
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if mid * mid * mid - c > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def guarded_next_diff(x):
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(n):
        if x[i] > 0 and i + 1 < n:
            out[i] = x[i + 1] - x[i]
    return out


def short_circuit_else(x, d):
    if x.shape[0] > 2 and d > 0:
        v = x[2]
    else:
        v = -1.0
    return v


def unique_span(x):
    u = np.unique(x)
    return u[-1] - u[0], u.size, u.sum()


def first_above(x, t):
    idx = np.where(x > t)[0]
    if idx.shape[0] == 0:
        return -1
    return idx[0]


CASES = [
    Case("bisect_cube_root", bisect_cube_root, lambda rng: (float(rng.integers(1, 30)), 0.0, 5.0)),
    Case("guarded_next_diff", guarded_next_diff, lambda rng: (rng.standard_normal(_n(rng)),)),
    Case("short_circuit_else", short_circuit_else, lambda rng: (rng.standard_normal(_n(rng, 2)), 1.0)),
    Case("unique_span", unique_span, lambda rng: (rng.integers(0, 4, _n(rng)),)),
    Case("first_above", first_above, lambda rng: (rng.standard_normal(_n(rng)), 0.5)),
]
