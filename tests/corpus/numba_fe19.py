"""Session 18's third-party-style numba kernels (histogram with a branch-local bin, early exits
from the kernel, complex powers of any exponent, integer powers, sums of rows, ``float("nan")``,
``round``, range steps that are not constants, dynamic programming, Monte Carlo with a given
random array): each was refused or typed differently before, or covers a form the other modules
lack."""

from __future__ import annotations

import math

import numpy as np
from corpus_case import Case


def histogram(x, lo, hi, nbins):
    hist = np.zeros(nbins, dtype=np.int64)
    width = (hi - lo) / nbins
    for i in range(x.shape[0]):
        v = x[i]
        if v >= lo and v < hi:
            b = int((v - lo) / width)  # a local of the branch: never read where it is not taken
            if b >= nbins:
                b = nbins - 1
            hist[b] += 1
    return hist


def first_index_above(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i
    return -1


def find_pair(A, target):
    n = A.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            if A[i] + A[j] == target:
                return i, j
    return -1, -1


def clipped_mean(x, lo):
    if x.shape[0] == 0:
        return 0.0
    s = 0.0
    for i in range(x.shape[0]):
        s += max(x[i], lo)
    return s / x.shape[0]


def bisect_search(sorted_x, v):
    lo = 0
    hi = sorted_x.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_x[mid] == v:
            return mid
        if sorted_x[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return -(lo + 1)


def contour_power(zs, p):
    total = 0j
    for k in range(zs.shape[0] - 1):
        dz = zs[k + 1] - zs[k]
        mid = 0.5 * (zs[k + 1] + zs[k])
        total += mid ** p * dz
    return total


def python_complex_power(x, y, out):
    for i in range(x.shape[0]):
        c = complex(x[i], y[i])
        out[i] = c ** 1.5 + np.power(c, -0.5) + 2.0 ** c


def mandelbrot(xs, ys, max_iter, out):
    for i in range(ys.shape[0]):
        for j in range(xs.shape[0]):
            c = complex(xs[j], ys[i])
            z = 0j
            n = 0
            while n < max_iter and abs(z) <= 2.0:
                z = z * z + c
                n += 1
            out[i, j] = n


def power_sums(a, k):
    s = 0
    t = 0
    for i in range(a.shape[0]):
        s += a[i] ** k
        t += 2 ** i
    return s, t


def column_sums(A):
    return sum(A)


def ising_sweep(spins, J, beta, rand):
    n, m = spins.shape
    accepted = 0
    for i in range(n):
        for j in range(m):
            s = spins[i, j]
            nb = spins[(i + 1) % n, j] + spins[(i - 1) % n, j] + spins[i, (j + 1) % m] + spins[i, (j - 1) % m]
            dE = 2.0 * J * s * nb
            if dE <= 0.0 or rand[i, j] < math.exp(-beta * dE):
                spins[i, j] = -s
                accepted += 1
    return accepted


def knapsack(weights, values, cap):
    dp = np.zeros(cap + 1, dtype=np.int64)
    for i in range(weights.shape[0]):
        w = weights[i]
        for c in range(cap, w - 1, -1):
            if dp[c - w] + values[i] > dp[c]:
                dp[c] = dp[c - w] + values[i]
    return dp[cap]


def gcd_array(a, b, out):
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        while y != 0:
            x, y = y, x % y
        out[i] = x


def welford(x):
    mean = 0.0
    m2 = 0.0
    n = 0
    for v in x:
        n += 1
        delta = v - mean
        mean += delta / n
        m2 += delta * (v - mean)
    return mean, m2 / (n - 1)


def nan_mean(x):
    s = 0.0
    c = 0
    for i in range(x.shape[0]):
        if math.isnan(x[i]):
            continue
        s += x[i]
        c += 1
    return s / c if c > 0 else float("nan")


def running_min(x):
    m = float("inf")
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        m = min(m, x[i])
        out[i] = m
    return out


def rounded(x, out):
    total = 0
    for i in range(x.shape[0]):
        out[i] = round(x[i], 2)
        total += round(x[i])
    return total


def count_primes(n):
    sieve = np.ones(n + 1, dtype=np.bool_)
    sieve[0] = False
    sieve[1] = False
    i = 2
    while i * i <= n:
        if sieve[i]:
            for j in range(i * i, n + 1, i):
                sieve[j] = False
        i += 1
    c = 0
    for k in range(n + 1):
        if sieve[k]:
            c += 1
    return c


def every_kth(x, k):
    s = 0.0
    for i in range(x.shape[0] - 1, -1, -k):
        s = 0.5 * s + x[i]
    return s


def _root(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving: the helper writes its array argument
        x = parent[x]
    return x


def union_find(parent, edges):
    for e in range(edges.shape[0]):
        a = _root(parent, edges[e, 0])
        b = _root(parent, edges[e, 1])
        if a != b:
            parent[a] = b
    count = 0
    for i in range(parent.shape[0]):
        if _root(parent, i) == i:
            count += 1
    return count


def same_set(parent, pairs, out):
    for e in range(pairs.shape[0]):
        out[e] = _root(parent, pairs[e, 0]) == _root(parent, pairs[e, 1])


def _hist_args(rng):
    return (rng.standard_normal(64), -2.0, 2.0, 8)


def _pair_args(rng):
    return (rng.integers(0, 9, 12), 9)


CASES = [
    Case("histogram", histogram, _hist_args),
    Case("first_index_above", first_index_above, lambda rng: (rng.standard_normal(20), 1.0)),
    Case("first_index_above_none", first_index_above, lambda rng: (rng.standard_normal(20), 9.0)),
    Case("find_pair", find_pair, _pair_args),
    Case("clipped_mean", clipped_mean, lambda rng: (rng.standard_normal(9).astype(np.float32), np.float32(0.1))),
    Case("bisect_search", bisect_search, lambda rng: (np.sort(rng.integers(0, 30, 16)), 11)),
    Case("contour_power", contour_power, lambda rng: (2 * np.exp(1j * np.linspace(0, 6, 17)), 2.5)),
    Case("python_complex_power", python_complex_power,
         lambda rng: (rng.uniform(0.1, 2, 8), rng.standard_normal(8), np.zeros(8, np.complex128))),
    Case("mandelbrot", mandelbrot,
         lambda rng: (np.linspace(-2, 1, 9), np.linspace(-1.5, 1.5, 7), 20, np.zeros((7, 9), np.int32))),
    Case("power_sums", power_sums, lambda rng: (rng.integers(0, 5, 7).astype(np.int32), 3)),
    Case("column_sums", column_sums, lambda rng: (rng.standard_normal((5, 3)),)),
    Case("ising_sweep", ising_sweep, lambda rng: (np.where(rng.random((6, 6)) < 0.5, -1, 1), 1.0, 0.4,
                                                   rng.random((6, 6)))),
    Case("knapsack", knapsack, lambda rng: (rng.integers(1, 6, 6), rng.integers(1, 10, 6), 12)),
    Case("gcd_array", gcd_array, lambda rng: (rng.integers(1, 100, 8), rng.integers(0, 100, 8), np.zeros(8, np.int64))),
    Case("welford", welford, lambda rng: (rng.standard_normal(16),)),
    Case("nan_mean", nan_mean, lambda rng: (np.where(rng.random(12) < 0.3, np.nan, rng.standard_normal(12)),)),
    Case("running_min", running_min, lambda rng: (rng.standard_normal(9).astype(np.float32),)),
    Case("rounded", rounded, lambda rng: (np.round(rng.standard_normal(12) * 50, 1) / 4, np.zeros(12))),
    Case("count_primes", count_primes, lambda rng: (40,)),
    Case("every_kth", every_kth, lambda rng: (rng.standard_normal(11), 3)),
    Case("union_find", union_find, lambda rng: (np.arange(10), rng.integers(0, 10, (7, 2)))),
    Case("same_set", same_set, lambda rng: (np.array([0, 0, 1, 2, 3, 5, 5, 6, 7, 8]), rng.integers(0, 10, (6, 2)),
                                            np.zeros(6, np.bool_))),
]
