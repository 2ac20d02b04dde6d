"""fe37's batch: numba-style loop nests as published in docs, examples and scientific code
(n-body, k-means, DP alignments, sorting, LU, Ising sweeps with given random numbers, image
erosion, CSR, bit tricks, while loops with break, early returns, tuples, @njit helpers, float32 /
int32 / bool / complex dtypes, 0-d and 3-d arrays); written before looking at what is supported.
Two were the corpus's numba_fe19.first_index_above and numba_fe21.any_negative (same bodies and
argument types): dropped."""

import math

import numpy as np
from corpus_case import Case
from numba import njit


def _n(rng, big=7, edge=1):
    return big if rng.integers(0, 3) else edge


@njit
def _wrap(i, n):
    return (i + n) % n


@njit(cache=True)
def _sqdist(a, b, i, j):
    s = 0.0
    for k in range(a.shape[1]):
        d = a[i, k] - b[j, k]
        s += d * d
    return s


@njit
def _popcount(v):
    c = 0
    while v:
        v &= v - 1
        c += 1
    return c


def nbody_accel(pos, mass, soft):
    n = pos.shape[0]
    acc = np.zeros((n, 3))
    for i in range(n):
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            inv = (dx * dx + dy * dy + dz * dz + soft * soft) ** -1.5
            ax += mass[j] * dx * inv
            ay += mass[j] * dy * inv
            az += mass[j] * dz * inv
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az
    return acc


def kmeans_assign_update(X, C):
    n, d = X.shape
    k = C.shape[0]
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = np.inf
        lab = 0
        for c in range(k):
            dist = _sqdist(X, C, i, c)
            if dist < best:
                best = dist
                lab = c
        labels[i] = lab
    newC = np.zeros_like(C)
    counts = np.zeros(k, dtype=np.int64)
    for i in range(n):
        counts[labels[i]] += 1
        for j in range(d):
            newC[labels[i], j] += X[i, j]
    for c in range(k):
        if counts[c] > 0:
            for j in range(d):
                newC[c, j] /= counts[c]
        else:
            for j in range(d):
                newC[c, j] = C[c, j]
    return labels, newC


def pairwise_euclid_f32(X):
    n = X.shape[0]
    D = np.empty((n, n), dtype=np.float32)
    for i in range(n):
        for j in range(n):
            s = np.float32(0.0)
            for k in range(X.shape[1]):
                t = X[i, k] - X[j, k]
                s += t * t
            D[i, j] = np.sqrt(s)
    return D


def smith_waterman(a, b, match, mismatch, gap):
    n = a.shape[0]
    m = b.shape[0]
    H = np.zeros((n + 1, m + 1), dtype=np.int32)
    best = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            h = max(0, H[i - 1, j - 1] + s, H[i - 1, j] - gap, H[i, j - 1] - gap)
            H[i, j] = h
            if h > best:
                best = h
    return best


def levenshtein_two_rows(a, b):
    n = len(a)
    m = len(b)
    prev = np.arange(m + 1)
    cur = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        cur[0] = i
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        for j in range(m + 1):
            prev[j] = cur[j]
    return prev[m]


def histogram_fixed(x, lo, hi, nbins):
    h = np.zeros(nbins, dtype=np.int64)
    w = (hi - lo) / nbins
    for v in x:
        if v >= lo and v < hi:
            b = int((v - lo) / w)
            if b >= nbins:
                b = nbins - 1
            h[b] += 1
    return h


def inclusive_scan_int32(x):
    out = np.empty_like(x)
    acc = np.int32(0)
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out


def mandelbrot_counts(xs, ys, maxiter):
    out = np.zeros((ys.shape[0], xs.shape[0]), dtype=np.int32)
    for r in range(ys.shape[0]):
        for c in range(xs.shape[0]):
            z = 0j
            p = complex(xs[c], ys[r])
            k = 0
            while k < maxiter:
                z = z * z + p
                if z.real * z.real + z.imag * z.imag > 4.0:
                    break
                k += 1
            out[r, c] = k
    return out


def ising_sweep(spins, rand, beta):
    n, m = spins.shape
    s = spins.copy()
    flips = 0
    for i in range(n):
        for j in range(m):
            nb = s[_wrap(i - 1, n), j] + s[_wrap(i + 1, n), j] + s[i, _wrap(j - 1, m)] + s[i, _wrap(j + 1, m)]
            dE = 2.0 * s[i, j] * nb
            if dE <= 0.0 or rand[i, j] < math.exp(-beta * dE):
                s[i, j] = -s[i, j]
                flips += 1
    return s, flips


def bilinear_resize(img, oh, ow):
    h, w = img.shape
    out = np.empty((oh, ow))
    sy = (h - 1) / max(oh - 1, 1)
    sx = (w - 1) / max(ow - 1, 1)
    for i in range(oh):
        y = i * sy
        y0 = int(math.floor(y))
        y1 = min(y0 + 1, h - 1)
        fy = y - y0
        for j in range(ow):
            x = j * sx
            x0 = int(math.floor(x))
            x1 = min(x0 + 1, w - 1)
            fx = x - x0
            top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
            bot = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
            out[i, j] = top * (1 - fy) + bot * fy
    return out


def conv2d_valid_3d(img, k):
    c, h, w = img.shape
    kh, kw = k.shape
    out = np.zeros((c, h - kh + 1, w - kw + 1))
    for ch in range(c):
        for i in range(h - kh + 1):
            for j in range(w - kw + 1):
                acc = 0.0
                for u in range(kh):
                    for v in range(kw):
                        acc += img[ch, i + u, j + v] * k[u, v]
                out[ch, i, j] = acc
    return out


def csr_matvec_f32(data, indices, indptr, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n, dtype=np.float32)
    for i in range(n):
        s = np.float32(0)
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * x[indices[p]]
        y[i] = s
    return y


def bubble_sort_swaps(a):
    x = a.copy()
    n = x.shape[0]
    swaps = 0
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if x[j] > x[j + 1]:
                x[j], x[j + 1] = x[j + 1], x[j]
                swaps += 1
                swapped = True
        if not swapped:
            break
    return x, swaps


def insertion_sort_inplace(a):
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key


def lu_nopivot(A):
    n = A.shape[0]
    L = np.eye(n)
    U = A.copy()
    for k in range(n):
        for i in range(k + 1, n):
            f = U[i, k] / U[k, k]
            L[i, k] = f
            for j in range(k, n):
                U[i, j] -= f * U[k, j]
    return L, U


def horner_many(coef, xs):
    out = np.empty_like(xs)
    for i in range(xs.shape[0]):
        acc = 0.0
        for c in coef:
            acc = acc * xs[i] + c
        out[i] = acc
    return out


def trapezoid(f, a, b):
    n = f.shape[0]
    if n < 2:
        return 0.0
    h = (b - a) / (n - 1)
    s = 0.5 * (f[0] + f[n - 1])
    for i in range(1, n - 1):
        s += f[i]
    return s * h


def cummax_int(x):
    out = np.empty_like(x)
    m = x[0]
    for i in range(x.shape[0]):
        if x[i] > m:
            m = x[i]
        out[i] = m
    return out


def laplacian_2d(u, h):
    n, m = u.shape
    out = np.zeros_like(u)
    inv = 1.0 / (h * h)
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = (u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4.0 * u[i, j]) * inv
    return out


def erode_bool(mask):
    n, m = mask.shape
    out = np.zeros((n, m), dtype=np.bool_)
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            ok = True
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if not mask[i + di, j + dj]:
                        ok = False
            out[i, j] = ok
    return out


def popcount_total(x):
    total = 0
    for i in range(x.shape[0]):
        total += _popcount(x[i])
    return total


def xor_checksum(x):
    h = np.uint32(2166136261)
    for i in range(x.shape[0]):
        h = (h ^ np.uint32(x[i])) * np.uint32(16777619)
    return h


def newton_sqrt_while(a, tol):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        x = a[i] if a[i] > 1.0 else 1.0
        it = 0
        while True:
            nx = 0.5 * (x + a[i] / x)
            it += 1
            if abs(nx - x) < tol or it > 50:
                break
            x = nx
        out[i] = nx
    return out


def minmax_tuple(x):
    lo = x[0]
    hi = x[0]
    for v in x[1:]:
        if v < lo:
            lo = v
        elif v > hi:
            hi = v
    return lo, hi


def mean_std_loop(x):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        s += x[i]
    mu = s / n
    v = 0.0
    for i in range(n):
        v += (x[i] - mu) ** 2
    return mu, math.sqrt(v / n)


def complex_rotate(z, theta):
    out = np.empty_like(z)
    w = complex(math.cos(theta), math.sin(theta))
    for i in range(z.shape[0]):
        out[i] = z[i] * w
    return out


def complex_energy(z):
    e = 0.0
    for i in range(z.shape[0]):
        e += z[i].real ** 2 + z[i].imag ** 2
    return e


def zero_d_accumulate(out, x):
    for i in range(x.shape[0]):
        out[()] += x[i]


def volume_sum_axis(v):
    a, b, c = v.shape
    s = np.zeros((b, c))
    for i in range(a):
        for j in range(b):
            for k in range(c):
                s[j, k] += v[i, j, k]
    return s


def count_int32_hits(x, lo, hi):
    n = np.int32(0)
    for i in range(x.shape[0]):
        if lo <= x[i] < hi:
            n += 1
    return n


def max_or_default(x):
    r = x.max() if x.size else 1.5
    return r


def power_iteration(A, iters, tol):
    n = A.shape[0]
    v = np.ones(n) / math.sqrt(n)
    lam = 0.0
    for _ in range(iters):
        w = A @ v
        nl = np.linalg.norm(w)
        v = w / nl
        if abs(nl - lam) < tol:
            lam = nl
            break
        lam = nl
    return lam


def rolling_corr(x, y, w):
    n = x.shape[0]
    out = np.full(n, np.nan)
    for i in range(w - 1, n):
        a = x[i - w + 1:i + 1]
        b = y[i - w + 1:i + 1]
        am = a - a.mean()
        bm = b - b.mean()
        den = np.sqrt(np.sum(am * am) * np.sum(bm * bm))
        out[i] = np.sum(am * bm) / den if den > 0 else 0.0
    return out


def jacobi_iterations(A, b, iters):
    n = b.shape[0]
    x = np.zeros(n)
    xn = np.zeros(n)
    for _ in range(iters):
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            xn[i] = s / A[i, i]
        x, xn = xn, x
    return x


def matmul_int64(A, B):
    n, k = A.shape
    m = B.shape[1]
    C = np.zeros((n, m), dtype=np.int64)
    for i in range(n):
        for p in range(k):
            a = A[i, p]
            for j in range(m):
                C[i, j] += a * B[p, j]
    return C


def reverse_inplace(x):
    n = x.shape[0]
    for i in range(n // 2):
        t = x[i]
        x[i] = x[n - 1 - i]
        x[n - 1 - i] = t


def run_lengths(x):
    n = x.shape[0]
    out = np.zeros(n, dtype=np.int64)
    if n == 0:
        return out, 0
    k = 0
    out[0] = 1
    for i in range(1, n):
        if x[i] == x[i - 1]:
            out[k] += 1
        else:
            k += 1
            out[k] = 1
    return out, k + 1


def gcd_pairs(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        while y != 0:
            x, y = y, x % y
        out[i] = x
    return out


def lcg_fill(seed, n):
    out = np.empty(n, dtype=np.uint32)
    s = np.uint32(seed)
    for i in range(n):
        s = s * np.uint32(1664525) + np.uint32(1013904223)
        out[i] = s
    return out


def rk4_decay(y0, k, dt, steps):
    y = y0
    for _ in range(steps):
        k1 = -k * y
        k2 = -k * (y + 0.5 * dt * k1)
        k3 = -k * (y + 0.5 * dt * k2)
        k4 = -k * (y + dt * k3)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def threshold_f32(img, t):
    out = np.empty(img.shape, dtype=np.float32)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            out[i, j] = np.float32(1.0) if img[i, j] > t else np.float32(0.0)
    return out


def sum_int_scalar(x):
    s = 0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def mean_of_empty_or(x):
    if x.shape[0] == 0:
        return 0
    return x.sum() / x.shape[0]


def transpose_3d(v):
    a, b, c = v.shape
    out = np.empty((c, b, a), dtype=v.dtype)
    for i in range(a):
        for j in range(b):
            for k in range(c):
                out[k, j, i] = v[i, j, k]
    return out


def _edge_args(rng):
    n = _n(rng)
    return rng.standard_normal(n), rng.standard_normal(n)


def _csr(rng):
    n = _n(rng, 6, 2)
    dense = rng.standard_normal((n, n)) * (rng.random((n, n)) < 0.4)
    indptr = np.zeros(n + 1, dtype=np.int64)
    idx, val = [], []
    for i in range(n):
        for j in range(n):
            if dense[i, j] != 0:
                idx.append(j)
                val.append(dense[i, j])
        indptr[i + 1] = len(idx)
    return (np.array(val, dtype=np.float32), np.array(idx, dtype=np.int64), indptr,
            rng.standard_normal(n).astype(np.float32))


def _dd(rng):
    n = _n(rng, 5, 1)
    A = rng.standard_normal((n, n)) + n * np.eye(n) * 2
    return A


CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


_add("nbody_accel", nbody_accel, lambda r: (lambda n: (r.standard_normal((n, 3)), r.random(n) + 0.5, 0.1))(_n(r, 6)))
_add("kmeans_assign_update", kmeans_assign_update,
     lambda r: (r.standard_normal((_n(r, 9, 2), 2)), r.standard_normal((3, 2))))
_add("pairwise_euclid_f32", pairwise_euclid_f32,
     lambda r: (r.standard_normal((_n(r, 5), 3)).astype(np.float32),), rtol=1e-5, atol=1e-6)
_add("smith_waterman", smith_waterman,
     lambda r: (r.integers(0, 4, _n(r, 8)), r.integers(0, 4, _n(r, 6, 0)), 3, -3, 2))
_add("levenshtein_two_rows", levenshtein_two_rows,
     lambda r: (r.integers(0, 3, _n(r, 7, 0)), r.integers(0, 3, _n(r, 6))))
_add("histogram_fixed", histogram_fixed, lambda r: (r.standard_normal(_n(r, 30, 0)), -1.0, 1.0, 5))
_add("inclusive_scan_int32", inclusive_scan_int32, lambda r: (r.integers(-9, 9, _n(r)).astype(np.int32),))
_add("mandelbrot_counts", mandelbrot_counts,
     lambda r: (np.linspace(-2, 0.5, _n(r, 6)), np.linspace(-1, 1, _n(r, 5)), 20))
_add("ising_sweep", ising_sweep,
     lambda r: (lambda n: (r.choice([-1.0, 1.0], (n, n)), r.random((n, n)), 0.4))(_n(r, 5, 2)))
_add("bilinear_resize", bilinear_resize, lambda r: (r.random((_n(r, 4, 1), 5)), _n(r, 7, 1), 3))
_add("conv2d_valid_3d", conv2d_valid_3d, lambda r: (r.random((2, _n(r, 6, 3), 5)), r.random((3, 2))))
_add("csr_matvec_f32", csr_matvec_f32, _csr, rtol=1e-5, atol=1e-6)
_add("bubble_sort_swaps", bubble_sort_swaps, lambda r: (r.integers(0, 9, _n(r, 8, 0)),))
_add("insertion_sort_inplace", insertion_sort_inplace, lambda r: (r.standard_normal(_n(r, 8, 0)),))
_add("lu_nopivot", lu_nopivot, lambda r: (_dd(r),))
_add("horner_many", horner_many, lambda r: (r.standard_normal(_n(r, 4, 0)), r.standard_normal(_n(r, 6))))
_add("trapezoid", trapezoid, lambda r: (r.random(_n(r, 9, 1)), 0.0, 2.0))
_add("cummax_int", cummax_int, lambda r: (r.integers(-50, 50, _n(r)),))
_add("laplacian_2d", laplacian_2d, lambda r: (r.random((_n(r, 6, 2), 5)), 0.5))
_add("erode_bool", erode_bool, lambda r: (r.random((_n(r, 6, 2), 6)) < 0.8,))
_add("popcount_total", popcount_total, lambda r: (r.integers(0, 1 << 20, _n(r)),))
_add("xor_checksum", xor_checksum, lambda r: (r.integers(0, 255, _n(r, 9, 0)).astype(np.uint8),))
_add("newton_sqrt_while", newton_sqrt_while, lambda r: (r.random(_n(r)) * 10, 1e-12))
_add("minmax_tuple", minmax_tuple, lambda r: (r.integers(-20, 20, _n(r)).astype(np.int32),))
_add("mean_std_loop", mean_std_loop, lambda r: (r.standard_normal(_n(r)),))
_add("complex_rotate", complex_rotate,
     lambda r: (lambda n: (r.standard_normal(n) + 1j * r.standard_normal(n), 0.3))(_n(r)))
_add("complex_energy", complex_energy,
     lambda r: ((r.standard_normal(5) + 1j * r.standard_normal(5)).astype(np.complex64)[:_n(r, 5, 0)],),
     rtol=1e-6)
_add("zero_d_accumulate", zero_d_accumulate, lambda r: (np.array(1.5), r.standard_normal(_n(r, 6, 0))))
_add("volume_sum_axis", volume_sum_axis, lambda r: (r.random((_n(r, 3, 1), 4, 2)),))
_add("count_int32_hits", count_int32_hits, lambda r: (r.integers(0, 10, _n(r)).astype(np.int32), 2, 7))
_add("max_or_default", max_or_default, lambda r: (r.integers(0, 9, _n(r, 5, 0)),))
_add("power_iteration", power_iteration,
     lambda r: (np.eye(3) * 2.0 + 0.1, r.integers(0, 2) * 30, 1e-10), rtol=1e-7)
_add("rolling_corr", rolling_corr, lambda r: (*_edge_args(r), 3))
_add("jacobi_iterations", jacobi_iterations, lambda r: (lambda A: (A, r.random(A.shape[0]), 3))(_dd(r)))
_add("matmul_int64", matmul_int64, lambda r: (r.integers(-5, 5, (_n(r, 3), 4)), r.integers(-5, 5, (4, 2))))
_add("reverse_inplace", reverse_inplace, lambda r: (r.integers(0, 9, _n(r, 7, 0)).astype(np.int32),))
_add("run_lengths", run_lengths, lambda r: (r.integers(0, 2, _n(r, 9, 0)),))
_add("gcd_pairs", gcd_pairs, lambda r: (lambda n: (r.integers(1, 60, n), r.integers(0, 60, n)))(_n(r)))
_add("lcg_fill", lcg_fill, lambda r: (int(r.integers(0, 1000)), _n(r, 6, 0)))
_add("rk4_decay", rk4_decay, lambda r: (1.0, 0.7, 0.1, _n(r, 10, 0)))
_add("threshold_f32", threshold_f32, lambda r: (r.random((_n(r, 3, 1), 4)), 0.5))
_add("sum_int_scalar", sum_int_scalar, lambda r: (r.integers(0, 9, _n(r, 6, 0)),))
_add("mean_of_empty_or", mean_of_empty_or, lambda r: (r.standard_normal(_n(r, 6, 0)),))
_add("transpose_3d", transpose_3d, lambda r: (r.integers(0, 9, (_n(r, 2, 1), 3, 4)).astype(np.int32),))
