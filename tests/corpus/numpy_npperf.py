"""NumPy programs shaped like the ones the npperf probe found slow (issue 12's "no program slower
than 0.9x NumPy"): a tiny rate function of numpy scalars (per-call overhead: the plan path and one
machine-code phase), kernels that only return views (no machine code at all), boolean masks made
and read in a loop (bool bytes the vectorizer can load), float32 trigonometry (the float32 sin/cos
form) and reversed views of a scan.  Written for this corpus, not copied."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def predator_prey(y, t, grow, eat, convert, die):
    """Three-species rates: each element one scalar statement."""
    rates = np.empty((3,))
    rates[0] = grow * y[0] * (1.0 - y[0] / 4.0) - eat * y[0] * y[1] / (1.0 + y[0])
    rates[1] = convert * eat * y[0] * y[1] / (1.0 + y[0]) - eat * y[1] * y[2] / (2.0 + y[1]) - die * y[1]
    rates[2] = convert * eat * y[1] * y[2] / (2.0 + y[1]) - die * t * y[2]
    return rates


def rotate_axes(T):
    R = np.transpose(T, (1, 2, 0))
    return R


def transposed_pair(A, B):
    return A.T, B[::-1, 1:]


def band_means(values, positions, bands):
    top = positions.max()
    out = np.zeros(bands)
    for b in range(bands):
        low = top * b / bands
        high = top * (b + 1) / bands
        inside = np.logical_and(low <= positions, positions < high)
        out[b] = values[inside].mean()
    return out


def flag_and_count(x, low, high, out):
    out[:] = np.logical_and(x >= low, x < high)
    return np.sum(out)


def haversine32(lat1, lon1, lat2, lon2):
    half = np.sin((lat2 - lat1) * 0.5) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) * 0.5) ** 2
    return 2.0 * np.arctan2(np.sqrt(half), np.sqrt(1.0 - half))


def wave32(x, k):
    return np.sin(k * x) * np.cos(x - k)


def tail_totals(x):
    scan = np.cumsum(x[::-1])
    return scan[::-1] * 0.5


def _scalars(r, count):
    return tuple(np.float64(v) for v in r.random(count))


def _angles32(r, n):
    return tuple((r.random(n) * 6.0 - 3.0).astype(np.float32) for _ in range(4))


CASES = [
    Case("predator_prey", predator_prey, lambda r: (r.random(3), *_scalars(r, 5))),
    Case("rotate_axes", rotate_axes, lambda r: (r.random((3, 4, 5)),)),
    Case("transposed_pair", transposed_pair, lambda r: (r.random((4, 6)), r.random((5, 3)))),
    Case("band_means", band_means, lambda r: (r.random(400), r.random(400) + 0.01, 7)),
    Case("flag_and_count", flag_and_count, lambda r: (r.random(300), 0.25, 0.75, np.empty(300, dtype=bool))),
    Case("haversine32", haversine32, lambda r: _angles32(r, 257), rtol=2e-6, atol=1e-6),
    Case("wave32", wave32, lambda r: ((r.random(300) * 40.0 - 20.0).astype(np.float32), np.float32(1.7)),
         rtol=2e-6, atol=1e-6),
    Case("tail_totals", tail_totals, lambda r: (r.random(50),)),
]
