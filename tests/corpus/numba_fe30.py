"""Session 26's unseen programs (fe30): 100 third-party-style kernels, loop and NumPy style
(particle updates, histograms, image filters, PDE steps, dynamic programming, graph relaxation,
statistics, signal processing, small ML layers, CSR products, union-find, ODE steps, Viterbi,
cellular automata, broadcasting, rolls, pads, einsum, small integer dtypes;
tests/corpus/batch_fe30.py and batch_fe30b..e.py, run by tests/corpus/batch_report.py on four
inputs each, edge sizes included, with 1 and 2 threads).  On main (54221fd): 87 matched,
13 refused, none wrong.  One refusal is per call (an ArgumentError for a non-square matrix that
an in-place transpose indexes out of range, where Python raises IndexError); the other 12:
helpers defined in the kernel (2), ``np.zeros(len(np.unique(y)))`` (2), ``for di in (-1, 0, 1)``
(2), ``if fg.size == 0 or bg.size == 0`` of an image mask, ``np.bincount(np.diff(indptr))``, a
ping-pong ``a, b = b, a``, ``for v in img.ravel()``, ``for v in x`` then ``for v in range(k)``,
``m.size`` of a local mask.  On fe30: 99 match, the transpose's per-call refusal left.  Kept
here, two of the refused ones that now compile, one size and an edge size each (the suite is at
its time budget; tests/frontend/test_fe30_forms.py holds the other forms)."""

from __future__ import annotations

import numpy as np
from corpus_case import Case

FUSES = ("none", "smart")  # its subject is how constructs are lowered (numpy_np21)


def _n(rng, big=7, edge=1):
    """``big`` elements for seed 0, ``edge`` for seed 1."""
    return big if rng.integers(0, 2) == 0 else edge


def class_means(x, y):
    classes = np.unique(y)
    means = np.zeros(len(classes))
    for k in range(len(classes)):
        means[k] = x[y == classes[k]].mean()
    return means



def pingpong_smooth(u, steps):
    a = u.copy()
    b = np.empty_like(u)
    n = u.shape[0]
    for _ in range(steps):
        b[0] = a[0]
        b[n - 1] = a[n - 1]
        for i in range(1, n - 1):
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0
        a, b = b, a
    return a


def _labelled(rng, n):
    return rng.standard_normal(n), rng.integers(0, 3, n)


CASES = [
    Case("class_means", class_means, lambda r: _labelled(r, _n(r, 8))),
    Case("pingpong_smooth", pingpong_smooth, lambda r: (r.standard_normal(_n(r, 6, 2)), int(r.integers(0, 3)))),
]
