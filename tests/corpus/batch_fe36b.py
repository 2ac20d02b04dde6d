"""fe36's batch, part 2: NumPy programs and loops as found in scientific Python code (signal
features, wave and heat steps, rank statistics, image pyramids, graph measures); written before
looking at what is supported."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


def smooth_same(x):
    k = np.array([1.0, 2.0, 3.0, 2.0, 1.0])
    k = k / k.sum()
    return np.convolve(x, k, mode="same")


def detrend(x):
    n = x.shape[0]
    t = np.arange(n, dtype=np.float64)
    tm = t.mean()
    xm = x.mean()
    denom = ((t - tm) ** 2).sum()
    slope = ((t - tm) * (x - xm)).sum() / denom if denom > 0 else 0.0
    return x - (xm + slope * (t - tm))


def find_peaks(x):
    inner = (x[1:-1] > x[:-2]) & (x[1:-1] > x[2:])
    return np.nonzero(inner)[0] + 1


def running_max(x, w):
    n = x.shape[0]
    out = np.empty(n)
    for i in range(n):
        lo = max(0, i - w + 1)
        m = x[lo]
        for j in range(lo + 1, i + 1):
            if x[j] > m:
                m = x[j]
        out[i] = m
    return out


def best_lag(a, b):
    c = np.correlate(a, b, mode="full")
    return np.argmax(c) - (b.shape[0] - 1)


def wave_1d(u0, c, steps):
    u_prev = u0.copy()
    u = u0.copy()
    u_next = np.zeros_like(u0)
    n = u0.shape[0]
    for _ in range(steps):
        for i in range(1, n - 1):
            u_next[i] = 2 * u[i] - u_prev[i] + c * c * (u[i + 1] - 2 * u[i] + u[i - 1])
        u_prev, u, u_next = u, u_next, u_prev
    return u


def heat_2d(u, alpha, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                                 - 4 * u[1:-1, 1:-1])
    return u


def first_passage(steps, level):
    pos = np.cumsum(steps)
    hit = np.abs(pos) >= level
    if not hit.any():
        return -1, np.abs(pos).max() if pos.size else 0
    return int(np.argmax(hit)), np.abs(pos).max()


def zscore_clean_mean(x, thresh):
    z = (x - x.mean()) / x.std()
    keep = np.abs(z) <= thresh
    return x[keep].mean()


def weighted_median(x, w):
    order = np.argsort(x)
    xs = x[order]
    cw = np.cumsum(w[order])
    k = np.searchsorted(cw, 0.5 * cw[-1])
    return xs[k]


def ecdf(x):
    xs = np.sort(x)
    ys = np.arange(1, xs.shape[0] + 1) / xs.shape[0]
    return xs, ys


def kendall_tau(x, y):
    n = x.shape[0]
    s = 0
    for i in range(n):
        for j in range(i + 1, n):
            s += np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
    return 2.0 * s / (n * (n - 1))


def spearman(x, y):
    rx = np.argsort(np.argsort(x)).astype(np.float64)
    ry = np.argsort(np.argsort(y)).astype(np.float64)
    rx -= rx.mean()
    ry -= ry.mean()
    return (rx * ry).sum() / np.sqrt((rx * rx).sum() * (ry * ry).sum())


def sobel_np(img):
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2])
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:])
    return np.hypot(gx, gy)


def box_sums(img, r):
    S = np.zeros((img.shape[0] + 1, img.shape[1] + 1))
    S[1:, 1:] = img.cumsum(axis=0).cumsum(axis=1)
    h, w = img.shape
    out = np.zeros((h, w))
    for i in range(h):
        for j in range(w):
            i0, i1 = max(i - r, 0), min(i + r + 1, h)
            j0, j1 = max(j - r, 0), min(j + r + 1, w)
            out[i, j] = S[i1, j1] - S[i0, j1] - S[i1, j0] + S[i0, j0]
    return out


def nms_1d(scores, radius):
    n = scores.shape[0]
    keep = np.ones(n, dtype=np.bool_)
    order = np.argsort(-scores)
    for a in range(n):
        i = order[a]
        if not keep[i]:
            continue
        for j in range(max(0, i - radius), min(n, i + radius + 1)):
            if j != i and scores[j] <= scores[i]:
                keep[j] = False
    return keep


def degree_centrality(src, dst, n):
    deg = np.zeros(n)
    np.add.at(deg, src, 1)
    np.add.at(deg, dst, 1)
    return deg / max(n - 1, 1)


def triangle_count(A):
    A2 = A @ A
    return np.trace(A2 @ A) / 6.0


def kahn_order(adj):
    n = adj.shape[0]
    indeg = adj.sum(axis=0).astype(np.int64)
    order = np.empty(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    top = 0
    for v in range(n):
        if indeg[v] == 0:
            stack[top] = v
            top += 1
    k = 0
    while top > 0:
        top -= 1
        u = stack[top]
        order[k] = u
        k += 1
        for v in range(n):
            if adj[u, v]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    stack[top] = v
                    top += 1
    return order[:k]


def max_pool2(img):
    h, w = img.shape
    return img[:h // 2 * 2, :w // 2 * 2].reshape(h // 2, 2, w // 2, 2).max(axis=(1, 3))


def rgb_to_gray(img):
    return img[..., :3] @ np.array([0.299, 0.587, 0.114])


def _dag(r):
    n = _n(r, 6, 1)
    return np.triu(r.random((n, n)) < 0.4, 1).astype(np.int64)


def _sym(r):
    n = _n(r, 5, 1)
    A = np.triu((r.random((n, n)) < 0.5).astype(np.float64), 1)
    return (A + A.T,)


CASES = [
    Case("smooth_same", smooth_same, lambda r: (r.standard_normal(_n(r, 9, 3)),), rtol=1e-7, atol=1e-9),
    Case("detrend", detrend, lambda r: (r.standard_normal(_n(r, 9, 1)),), rtol=1e-7, atol=1e-9),
    Case("find_peaks", find_peaks, lambda r: (r.standard_normal(_n(r, 12, 2)),)),
    Case("running_max", running_max, lambda r: (r.standard_normal(_n(r, 10, 1)), int(r.integers(1, 4)))),
    Case("best_lag", best_lag, lambda r: (r.standard_normal(_n(r, 8, 2)), r.standard_normal(3))),
    Case("wave_1d", wave_1d, lambda r: (r.standard_normal(_n(r, 9, 2)), 0.5, int(r.integers(0, 5))),
         rtol=1e-7, atol=1e-9),
    Case("heat_2d", heat_2d, lambda r: (r.random((_n(r, 6, 2), 5)), 0.1, int(r.integers(0, 4))), rtol=1e-7, atol=1e-9),
    Case("first_passage", first_passage, lambda r: (r.choice([-1, 1], _n(r, 12, 1)), 3)),
    Case("zscore_clean_mean", zscore_clean_mean, lambda r: (r.standard_normal(_n(r, 12, 3)), 1.5), rtol=1e-7, atol=1e-9),
    Case("weighted_median", weighted_median, lambda r: (lambda n: (r.standard_normal(n), r.random(n) + 0.1))(_n(r, 7, 1))),
    Case("ecdf", ecdf, lambda r: (r.standard_normal(_n(r, 7, 1)),)),
    Case("kendall_tau", kendall_tau, lambda r: (r.standard_normal(6), r.standard_normal(6)), rtol=1e-7, atol=1e-9),
    Case("spearman", spearman, lambda r: (r.standard_normal(7), r.standard_normal(7)), rtol=1e-7, atol=1e-9),
    Case("sobel_np", sobel_np, lambda r: (r.random((_n(r, 6, 2), 5)),), rtol=1e-7, atol=1e-9),
    Case("box_sums", box_sums, lambda r: (r.random((_n(r, 5, 1), 4)), int(r.integers(0, 3))), rtol=1e-7, atol=1e-9),
    Case("nms_1d", nms_1d, lambda r: (r.random(_n(r, 9, 1)), int(r.integers(0, 3)))),
    Case("degree_centrality", degree_centrality, lambda r: (r.integers(0, 5, 6), r.integers(0, 5, 6), 5)),
    Case("triangle_count", triangle_count, _sym),
    Case("kahn_order", kahn_order, lambda r: (_dag(r),)),
    Case("max_pool2", max_pool2, lambda r: (r.random((_n(r, 6, 1), 5)),)),
    Case("rgb_to_gray", rgb_to_gray, lambda r: (r.random((_n(r, 4, 1), 3, 4)),), rtol=1e-7, atol=1e-9),
]
