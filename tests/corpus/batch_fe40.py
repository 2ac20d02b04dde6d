"""fe40's batch: count, then allocate, then fill, as numba code writes it (numba has no growing
arrays: a first pass counts, ``np.empty(k)`` allocates, a second pass fills): index lists, pairs within a distance, run starts and lengths, a filled array reduced, peaks; returned
alone, in a tuple with the count, or reduced.  Undecorated: batch_report's reference is the function
itself (numba would return Python floats where NumPy gives np.float64).  The plain filter is
tests/frontend/test_count_then_allocate.py's ``above``."""

import numpy as np
from corpus_case import Case


def _n(rng, big=7, edge=0):
    return big if rng.integers(0, 3) else edge


def nonzero_positions(x):
    n = len(x)
    count = 0
    for i in range(n):
        if x[i] != 0:
            count += 1
    idx = np.zeros(count, dtype=np.int64)
    pos = 0
    for i in range(n):
        if x[i] != 0:
            idx[pos] = i
            pos += 1
    return idx, count


def close_pairs(pts, r):
    n = pts.shape[0]
    r2 = r * r
    npairs = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pts[i, 0] - pts[j, 0]
            dy = pts[i, 1] - pts[j, 1]
            if dx * dx + dy * dy < r2:
                npairs += 1
    pairs = np.empty((npairs, 3))
    p = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pts[i, 0] - pts[j, 0]
            dy = pts[i, 1] - pts[j, 1]
            d2 = dx * dx + dy * dy
            if d2 < r2:
                pairs[p, 0] = i
                pairs[p, 1] = j
                pairs[p, 2] = np.sqrt(d2)
                p += 1
    return pairs


def run_starts_lengths(x):
    n = x.shape[0]
    nruns = 0
    for i in range(n):
        if i == 0 or x[i] != x[i - 1]:
            nruns += 1
    starts = np.empty(nruns, dtype=np.int64)
    lengths = np.zeros(nruns, dtype=np.int64)
    r = -1
    for i in range(n):
        if i == 0 or x[i] != x[i - 1]:
            r += 1
            starts[r] = i
        lengths[r] += 1
    return starts, lengths


def positive_streak_lengths(x):
    n = x.shape[0]
    k = 0
    for i in range(n):
        j = i
        while j < n and x[j] > 0.0:
            k += 1
            j += 1
    ahead = np.empty(k)
    m = 0
    for i in range(n):
        j = i
        while j < n and x[j] > 0.0:
            ahead[m] = x[j] - x[i]
            m += 1
            j += 1
    total = ahead.sum()
    top = ahead.max() if len(ahead) > 0 else 0.0
    return total, top, len(ahead)


def peak_heights(x):
    n = x.shape[0]
    k = 0
    for i in range(1, n - 1):
        if x[i] > x[i - 1] and x[i] >= x[i + 1]:
            k += 1
    h = np.empty(k)
    j = 0
    for i in range(1, n - 1):
        if x[i] > x[i - 1] and x[i] >= x[i + 1]:
            h[j] = x[i] - 0.5 * (x[i - 1] + x[i + 1])
            j += 1
    s = 0.0
    for v in h:
        s += v
    return h, s / k if k > 0 else 0.0


CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


_add("nonzero_positions", nonzero_positions, lambda r: (r.integers(0, 3, _n(r, 9)).astype(np.int32),))
_add("close_pairs", close_pairs, lambda r: (r.random((_n(r, 6, 1), 2)), 0.5), rtol=1e-12)
_add("run_starts_lengths", run_starts_lengths, lambda r: (r.integers(0, 2, _n(r, 9)),))
_add("positive_streak_lengths", positive_streak_lengths, lambda r: (r.standard_normal(_n(r, 8)),))
_add("peak_heights", peak_heights, lambda r: (r.standard_normal(_n(r, 9, 2)),))
