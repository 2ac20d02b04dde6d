"""Session 24's unseen programs, loop style (fe27): numeric loops as numba users write them
(finite differences, running statistics, peak finding, histograms, sparse products, Monte-Carlo
with given random numbers, DP tables, pivoting solvers), each checked against the undecorated
function (cpu target, smart fusion, threads on) on sizes 0, 1, 7 and 12 and float32, float64
and int64 data where they apply.  Of 136 such programs (loop and NumPy style, with
tests/corpus/numpy_fe27.py), main (38e95b9) matched 116, refused 17, returned a wrong count for
one (``len(X[X[:, 0] > t])``: the row length) and equal values of another Python type for two
(a weak initial value returned where no data-dependent update ran: documented); fe27 matches
127 (the wrong count among them), refuses 7 (one only for an empty array).  Kept here, one size and
an edge size each (the suite is at its time budget): lists appended inside counted ``while``
loops, and a local first assigned in a loop after a data-dependent early return.
"""

from __future__ import annotations

import numpy as np
from corpus_case import Case

FUSES = ("none", "smart")  # its subject is how constructs are lowered (numpy_np21)


def _n(rng, edge=0):
    """7 elements for seed 0, ``edge`` (0 or 1) for seed 1."""
    return (7, edge, edge, 7)[rng.integers(0, 4)]


def find_peaks_while(x):
    peaks = []
    i = 1
    n = x.shape[0]
    while i < n - 1:
        if x[i] > x[i - 1] and x[i] > x[i + 1]:
            peaks.append(i)
            i += 2
        else:
            i += 1
    return np.array(peaks)


def collect_above_while(x, t):
    out = []
    i = 0
    while i < x.shape[0]:
        if x[i] > t:
            out.append(x[i])
        i += 1
    return np.array(out)


def histogram_minmax(x, nbins):
    lo = x[0]
    hi = x[0]
    for v in x:
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    counts = np.zeros(nbins, dtype=np.int64)
    if hi == lo:
        counts[0] = x.shape[0]
        return counts
    width = (hi - lo) / nbins
    for v in x:
        b = int((v - lo) / width)
        if b >= nbins:
            b = nbins - 1
        counts[b] += 1
    return counts


CASES = [
    Case("find_peaks_while", find_peaks_while, lambda rng: (rng.standard_normal(_n(rng, 1) + 5),)),
    Case("collect_above_while", collect_above_while,
         lambda rng: (rng.standard_normal(_n(rng)).astype(np.float32), 0.2)),
    Case("histogram_minmax", histogram_minmax, lambda rng: (rng.integers(-5, 6, _n(rng, 1)), 4)),
]
