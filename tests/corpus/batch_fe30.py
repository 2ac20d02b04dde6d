"""fe30's batch: 40 third-party-style kernels (kept whole for the batch tool; the corpus module
numba_fe30.py keeps a few)."""

import math

import numpy as np
from corpus_case import Case


def _n(rng, big=9, edge=1):
    return big if rng.integers(0, 3) else edge


# ---- particles -------------------------------------------------------------------------------
def leapfrog_step(pos, vel, dt, L):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dx -= L * round(dx / L)
            dy -= L * round(dy / L)
            r2 = dx * dx + dy * dy + 1e-3
            inv = 1.0 / (r2 * math.sqrt(r2))
            acc[i, 0] += dx * inv
            acc[i, 1] += dy * inv
    for i in range(n):
        for d in range(2):
            vel[i, d] += dt * acc[i, d]
            pos[i, d] = (pos[i, d] + dt * vel[i, d]) % L
    return pos, vel


def reflect_walls(x, v, lo, hi):
    for i in range(x.shape[0]):
        x[i] += v[i]
        if x[i] < lo:
            x[i] = 2 * lo - x[i]
            v[i] = -v[i]
        elif x[i] > hi:
            x[i] = 2 * hi - x[i]
            v[i] = -v[i]


def kinetic_energy(m, v):
    return 0.5 * np.sum(m[:, None] * v ** 2)


def center_of_mass(m, pos):
    total = m.sum()
    return (m[:, None] * pos).sum(axis=0) / total


# ---- histogramming ---------------------------------------------------------------------------
def hist_uniform(x, nbins, lo, hi):
    h = np.zeros(nbins, dtype=np.int64)
    width = (hi - lo) / nbins
    for v in x:
        if v < lo or v >= hi:
            continue
        k = int((v - lo) / width)
        if k >= nbins:
            k = nbins - 1
        h[k] += 1
    return h


def hist2d_counts(x, y, nb):
    H = np.zeros((nb, nb))
    for i in range(x.shape[0]):
        a = int(x[i] * nb)
        b = int(y[i] * nb)
        if 0 <= a < nb and 0 <= b < nb:
            H[a, b] += 1.0
    return H


def weighted_mean_by_label(labels, w, k):
    s = np.zeros(k)
    c = np.zeros(k)
    for i in range(labels.shape[0]):
        s[labels[i]] += w[i]
        c[labels[i]] += 1
    out = np.zeros(k)
    for j in range(k):
        if c[j] > 0:
            out[j] = s[j] / c[j]
    return out


def class_means(x, y):
    classes = np.unique(y)
    means = np.zeros(len(classes))
    for k in range(len(classes)):
        means[k] = x[y == classes[k]].mean()
    return means


# ---- image filters ---------------------------------------------------------------------------
def box_blur3(img):
    h, w = img.shape
    out = np.zeros_like(img)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            s = 0.0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    s += img[i + di, j + dj]
            out[i, j] = s / 9.0
    return out


def sobel_mag(img):
    gx = img[1:-1, 2:] - img[1:-1, :-2]
    gy = img[2:, 1:-1] - img[:-2, 1:-1]
    return np.sqrt(gx ** 2 + gy ** 2)


def median3_1d(x):
    n = x.shape[0]
    out = x.copy()
    for i in range(1, n - 1):
        a, b, c = x[i - 1], x[i], x[i + 1]
        out[i] = max(min(a, b), min(max(a, b), c))
    return out


def threshold_otsu_like(img, t):
    fg = img[img > t]
    bg = img[img <= t]
    if fg.size == 0 or bg.size == 0:
        return 0.0
    return fg.mean() - bg.mean()


def dilate_binary(mask):
    h, w = mask.shape
    out = np.zeros((h, w), dtype=np.bool_)
    for i in range(h):
        for j in range(w):
            v = False
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    a, b = i + di, j + dj
                    if 0 <= a < h and 0 <= b < w and mask[a, b]:
                        v = True
            out[i, j] = v
    return out


# ---- PDE steps -------------------------------------------------------------------------------
def heat1d_steps(u, alpha, steps):
    n = u.shape[0]
    for _ in range(steps):
        new = u.copy()
        for i in range(1, n - 1):
            new[i] = u[i] + alpha * (u[i - 1] - 2 * u[i] + u[i + 1])
        u = new
    return u


def wave_step(u, u_prev, c2):
    lap = np.zeros_like(u)
    lap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
    return 2 * u - u_prev + c2 * lap


def upwind_advect(q, c):
    n = q.shape[0]
    out = np.empty_like(q)
    for i in range(n):
        if c > 0:
            out[i] = q[i] - c * (q[i] - q[i - 1])
        else:
            out[i] = q[i] - c * (q[(i + 1) % n] - q[i])
    return out


def jacobi_until(u, f, tol, maxit):
    n = u.shape[0]
    it = 0
    err = tol + 1.0
    while err > tol and it < maxit:
        err = 0.0
        new = u.copy()
        for i in range(1, n - 1):
            new[i] = 0.5 * (u[i - 1] + u[i + 1] - f[i])
            err = max(err, abs(new[i] - u[i]))
        u = new
        it += 1
    return u, it


# ---- dynamic programming ---------------------------------------------------------------------
def edit_distance(a, b):
    n, m = a.shape[0], b.shape[0]
    D = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        D[i, 0] = i
    for j in range(m + 1):
        D[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[n, m]


def knapsack(weights, values, cap):
    best = np.zeros(cap + 1)
    for k in range(weights.shape[0]):
        w = weights[k]
        for c in range(cap, w - 1, -1):
            cand = best[c - w] + values[k]
            if cand > best[c]:
                best[c] = cand
    return best[cap]


def lis_length(x):
    n = x.shape[0]
    L = np.ones(n, dtype=np.int64)
    for i in range(n):
        for j in range(i):
            if x[j] < x[i] and L[j] + 1 > L[i]:
                L[i] = L[j] + 1
    return L.max() if n > 0 else 0


def max_subarray(x):
    best = x[0]
    cur = x[0]
    for i in range(1, x.shape[0]):
        cur = max(x[i], cur + x[i])
        best = max(best, cur)
    return best


# ---- graph relaxation ------------------------------------------------------------------------
def bellman_ford(src, dst, w, n, s):
    dist = np.full(n, np.inf)
    dist[s] = 0.0
    for _ in range(n - 1):
        changed = False
        for e in range(src.shape[0]):
            if dist[src[e]] + w[e] < dist[dst[e]]:
                dist[dst[e]] = dist[src[e]] + w[e]
                changed = True
        if not changed:
            break
    return dist


def floyd_warshall(D):
    n = D.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if D[i, k] + D[k, j] < D[i, j]:
                    D[i, j] = D[i, k] + D[k, j]
    return D


def pagerank_iter(A, d, iters):
    n = A.shape[0]
    out_deg = A.sum(axis=1)
    out_deg[out_deg == 0] = 1.0
    r = np.full(n, 1.0 / n)
    for _ in range(iters):
        r = (1 - d) / n + d * (A.T @ (r / out_deg))
    return r


def degree_histogram(indptr):
    deg = np.diff(indptr)
    return np.bincount(deg)


# ---- statistics ------------------------------------------------------------------------------
def welford(x):
    mean = 0.0
    m2 = 0.0
    for k in range(x.shape[0]):
        delta = x[k] - mean
        mean += delta / (k + 1)
        m2 += delta * (x[k] - mean)
    var = m2 / (x.shape[0] - 1) if x.shape[0] > 1 else 0.0
    return mean, var


def pearson(x, y):
    xm = x - x.mean()
    ym = y - y.mean()
    return (xm * ym).sum() / np.sqrt((xm ** 2).sum() * (ym ** 2).sum())


def zscore_cols(X):
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    return (X - mu) / sd


def ecdf_at(sample, pts):
    s = np.sort(sample)
    out = np.empty(pts.shape[0])
    for i in range(pts.shape[0]):
        out[i] = np.searchsorted(s, pts[i], side="right") / s.shape[0]
    return out


def moving_average(x, w):
    c = np.cumsum(x)
    out = np.empty(x.shape[0] - w + 1)
    out[0] = c[w - 1] / w
    for i in range(1, out.shape[0]):
        out[i] = (c[i + w - 1] - c[i - 1]) / w
    return out


# ---- signal processing -----------------------------------------------------------------------
def fir_filter(x, h):
    n, m = x.shape[0], h.shape[0]
    y = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for k in range(m):
            if i - k >= 0:
                acc += h[k] * x[i - k]
        y[i] = acc
    return y


def iir_biquad(x, b0, b1, b2, a1, a2):
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for i in range(x.shape[0]):
        y[i] = b0 * x[i] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, x[i]
        y2, y1 = y1, y[i]
    return y


def zero_crossings(x):
    count = 0
    for i in range(1, x.shape[0]):
        if (x[i - 1] < 0) != (x[i] < 0):
            count += 1
    return count


def dft_mag(x):
    n = x.shape[0]
    out = np.zeros(n // 2 + 1)
    for k in range(n // 2 + 1):
        re = 0.0
        im = 0.0
        for t in range(n):
            ang = 2 * np.pi * k * t / n
            re += x[t] * np.cos(ang)
            im -= x[t] * np.sin(ang)
        out[k] = np.sqrt(re * re + im * im)
    return out


def envelope_peak_hold(x, decay):
    env = np.empty_like(x)
    e = 0.0
    for i in range(x.shape[0]):
        a = abs(x[i])
        e = a if a > e else e * decay
        env[i] = e
    return env


# ---- small ML layers -------------------------------------------------------------------------
def dense_relu(x, W, b):
    return np.maximum(x @ W + b, 0.0)


def softmax_rows(z):
    m = z.max(axis=1, keepdims=True)
    e = np.exp(z - m)
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x, g, b, eps):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


def conv1d_valid(x, k):
    n, m = x.shape[0], k.shape[0]
    out = np.zeros(n - m + 1)
    for i in range(n - m + 1):
        for j in range(m):
            out[i] += x[i + j] * k[j]
    return out


def cross_entropy(logits, labels):
    n = logits.shape[0]
    total = 0.0
    for i in range(n):
        m = logits[i].max()
        lse = m + np.log(np.exp(logits[i] - m).sum())
        total += lse - logits[i, labels[i]]
    return total / n


def kmeans_assign(X, C):
    n, k = X.shape[0], C.shape[0]
    lab = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = np.inf
        bj = 0
        for j in range(k):
            d = 0.0
            for f in range(X.shape[1]):
                t = X[i, f] - C[j, f]
                d += t * t
            if d < best:
                best = d
                bj = j
        lab[i] = bj
    return lab


def nested_helper_clip(x, lo, hi):
    def clip1(v):
        return lo if v < lo else (hi if v > hi else v)
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = clip1(x[i])
    return out


def lambda_map(x):
    sq = lambda v: v * v  # noqa: E731
    s = 0.0
    for i in range(x.shape[0]):
        s += sq(x[i])
    return s


def unique_counts_loop(x):
    u = np.unique(x)
    counts = np.zeros(len(u), dtype=np.int64)
    for i in range(len(u)):
        counts[i] = np.sum(x == u[i])
    return counts


def _labels_weights(rng, n, k):
    return rng.integers(0, k, n), rng.standard_normal(n), k


CASES = [
    Case("leapfrog_step", leapfrog_step, lambda r: (r.uniform(0, 5, (_n(r, 6), 2)), r.standard_normal((6, 2)) * 0 + 0.1, 0.01, 5.0)),
    Case("reflect_walls", reflect_walls, lambda r: (r.uniform(0, 1, _n(r)), r.standard_normal(9) * 0.5, 0.0, 1.0)),
    Case("kinetic_energy", kinetic_energy, lambda r: (r.uniform(1, 2, 5), r.standard_normal((5, 3)))),
    Case("center_of_mass", center_of_mass, lambda r: (r.uniform(1, 2, 5), r.standard_normal((5, 3)))),
    Case("hist_uniform", hist_uniform, lambda r: (r.uniform(-1, 2, _n(r, 30)), 5, 0.0, 1.0)),
    Case("hist2d_counts", hist2d_counts, lambda r: (r.uniform(-0.1, 1.1, 20), r.uniform(-0.1, 1.1, 20), 4)),
    Case("weighted_mean_by_label", weighted_mean_by_label, lambda r: _labels_weights(r, _n(r, 12), 4)),
    Case("class_means", class_means, lambda r: (r.standard_normal(12), r.integers(0, 3, 12))),
    Case("box_blur3", box_blur3, lambda r: (r.standard_normal((_n(r, 7, 2), 6)),)),
    Case("sobel_mag", sobel_mag, lambda r: (r.standard_normal((6, 7)),)),
    Case("median3_1d", median3_1d, lambda r: (r.standard_normal(_n(r)),)),
    Case("threshold_otsu_like", threshold_otsu_like, lambda r: (r.standard_normal((5, 4)), float(r.choice([0.0, 5.0])))),
    Case("dilate_binary", dilate_binary, lambda r: (r.random((5, 6)) > 0.8,)),
    Case("heat1d_steps", heat1d_steps, lambda r: (r.standard_normal(_n(r, 10, 2)), 0.2, 3)),
    Case("wave_step", wave_step, lambda r: (r.standard_normal((6, 5)), r.standard_normal((6, 5)), 0.1)),
    Case("upwind_advect", upwind_advect, lambda r: (r.standard_normal(_n(r)), float(r.choice([0.3, -0.3])))),
    Case("jacobi_until", jacobi_until, lambda r: (r.standard_normal(8), r.standard_normal(8), 1e-3, 50)),
    Case("edit_distance", edit_distance, lambda r: (r.integers(0, 3, _n(r, 6, 0)), r.integers(0, 3, 5))),
    Case("knapsack", knapsack, lambda r: (r.integers(1, 5, 6), r.uniform(0, 10, 6), 10)),
    Case("lis_length", lis_length, lambda r: (r.standard_normal(_n(r, 10, 0)),)),
    Case("max_subarray", max_subarray, lambda r: (r.standard_normal(_n(r)),)),
    Case("bellman_ford", bellman_ford, lambda r: (r.integers(0, 5, 12), r.integers(0, 5, 12), r.uniform(0, 3, 12), 5, 0)),
    Case("floyd_warshall", floyd_warshall, lambda r: (r.uniform(0, 10, (5, 5)),)),
    Case("pagerank_iter", pagerank_iter, lambda r: ((r.random((6, 6)) > 0.6).astype(np.float64), 0.85, 5)),
    Case("degree_histogram", degree_histogram, lambda r: (np.concatenate(([0], np.cumsum(r.integers(0, 4, 7)))),)),
    Case("welford", welford, lambda r: (r.standard_normal(_n(r)),)),
    Case("pearson", pearson, lambda r: (r.standard_normal(10), r.standard_normal(10))),
    Case("zscore_cols", zscore_cols, lambda r: (np.hstack([r.standard_normal((6, 3)), np.ones((6, 1))]),)),
    Case("ecdf_at", ecdf_at, lambda r: (r.standard_normal(10), r.standard_normal(4))),
    Case("moving_average", moving_average, lambda r: (r.standard_normal(10), int(r.choice([1, 3, 10])))),
    Case("fir_filter", fir_filter, lambda r: (r.standard_normal(_n(r, 12)), r.standard_normal(4))),
    Case("iir_biquad", iir_biquad, lambda r: (r.standard_normal(_n(r, 12)), 0.2, 0.3, 0.2, -0.5, 0.1)),
    Case("zero_crossings", zero_crossings, lambda r: (r.standard_normal(_n(r, 12)),)),
    Case("dft_mag", dft_mag, lambda r: (r.standard_normal(_n(r, 8)),), rtol=1e-7, atol=1e-9),
    Case("envelope_peak_hold", envelope_peak_hold, lambda r: (r.standard_normal(_n(r, 12)), 0.9)),
    Case("dense_relu", dense_relu, lambda r: (r.standard_normal((4, 5)), r.standard_normal((5, 3)), r.standard_normal(3))),
    Case("softmax_rows", softmax_rows, lambda r: (r.standard_normal((4, 5)),)),
    Case("layernorm", layernorm, lambda r: (r.standard_normal((4, 5)), r.standard_normal(5), r.standard_normal(5), 1e-5)),
    Case("conv1d_valid", conv1d_valid, lambda r: (r.standard_normal(_n(r, 10, 3)), r.standard_normal(3))),
    Case("cross_entropy", cross_entropy, lambda r: (r.standard_normal((5, 4)), r.integers(0, 4, 5))),
    Case("kmeans_assign", kmeans_assign, lambda r: (r.standard_normal((_n(r, 8), 2)), r.standard_normal((3, 2)))),
    Case("nested_helper_clip", nested_helper_clip, lambda r: (r.standard_normal(_n(r)), -0.5, 0.5)),
    Case("lambda_map", lambda_map, lambda r: (r.standard_normal(_n(r)),)),
    Case("unique_counts_loop", unique_counts_loop, lambda r: (r.integers(0, 4, _n(r, 10)),)),
]
