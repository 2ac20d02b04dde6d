"""fe35's batch, part 4: dynamic programming, graph and sorting loops, ODE steppers, trading
indicators, reduceat/partition groupings, as people publish them."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


def _sized(rng, make, big=8, edge=1):
    return make(_n(rng, big, edge))


def edit_distance(a, b):
    n, m = len(a), len(b)
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
    dp = np.zeros(cap + 1)
    for i in range(len(weights)):
        w = weights[i]
        for c in range(cap, w - 1, -1):
            dp[c] = max(dp[c], dp[c - w] + values[i])
    return dp[cap]


def lcs_length(a, b):
    n, m = a.shape[0], b.shape[0]
    L = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n):
        for j in range(m):
            if a[i] == b[j]:
                L[i + 1, j + 1] = L[i, j] + 1
            else:
                L[i + 1, j + 1] = max(L[i, j + 1], L[i + 1, j])
    return L[n, m]


def insertion_sort(x):
    a = x.copy()
    for i in range(1, len(a)):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def degree_counts(src, dst, n):
    deg = np.zeros(n, dtype=np.int64)
    for k in range(src.shape[0]):
        deg[src[k]] += 1
        deg[dst[k]] += 1
    return deg, deg.argmax()


def bfs_levels(adj, start):
    n = adj.shape[0]
    level = np.full(n, -1)
    level[start] = 0
    frontier = np.zeros(n, dtype=np.bool_)
    frontier[start] = True
    d = 0
    while frontier.any():
        nxt = np.zeros(n, dtype=np.bool_)
        for u in range(n):
            if frontier[u]:
                for v in range(n):
                    if adj[u, v] and level[v] < 0:
                        level[v] = d + 1
                        nxt[v] = True
        frontier = nxt
        d += 1
    return level


def union_find_components(edges, n):
    parent = np.arange(n)
    for k in range(edges.shape[0]):
        a, b = edges[k, 0], edges[k, 1]
        while parent[a] != a:
            a = parent[a]
        while parent[b] != b:
            b = parent[b]
        if a != b:
            parent[max(a, b)] = min(a, b)
    roots = np.empty(n, dtype=np.int64)
    for i in range(n):
        r = i
        while parent[r] != r:
            r = parent[r]
        roots[i] = r
    return len(np.unique(roots))


def rk4_decay(y0, k, dt, steps):
    y = y0
    out = np.empty(steps + 1)
    out[0] = y
    for i in range(steps):
        k1 = -k * y
        k2 = -k * (y + 0.5 * dt * k1)
        k3 = -k * (y + 0.5 * dt * k2)
        k4 = -k * (y + dt * k3)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        out[i + 1] = y
    return out


def simpson(f_vals, h):
    n = f_vals.shape[0] - 1
    s = f_vals[0] + f_vals[n]
    s += 4.0 * f_vals[1:n:2].sum()
    s += 2.0 * f_vals[2:n - 1:2].sum()
    return s * h / 3.0


def mandelbrot(xs, ys, max_iter):
    out = np.zeros((ys.shape[0], xs.shape[0]), dtype=np.int64)
    for i in range(ys.shape[0]):
        for j in range(xs.shape[0]):
            c = complex(xs[j], ys[i])
            z = 0j
            n = 0
            while abs(z) <= 2.0 and n < max_iter:
                z = z * z + c
                n += 1
            out[i, j] = n
    return out


def kalman_1d(z, q, r):
    n = z.shape[0]
    xhat = np.zeros(n)
    P = 1.0
    x = z[0]
    for k in range(n):
        P = P + q
        K = P / (P + r)
        x = x + K * (z[k] - x)
        P = (1 - K) * P
        xhat[k] = x
    return xhat


def bollinger(p, w):
    n = len(p)
    mid = np.full(n, np.nan)
    up = np.full(n, np.nan)
    lo = np.full(n, np.nan)
    for i in range(w - 1, n):
        seg = p[i - w + 1:i + 1]
        m = seg.mean()
        s = seg.std()
        mid[i] = m
        up[i] = m + 2 * s
        lo[i] = m - 2 * s
    return mid, up, lo


def macd(p):
    def ema(x, span):
        a = 2.0 / (span + 1)
        out = np.empty_like(x)
        out[0] = x[0]
        for i in range(1, len(x)):
            out[i] = a * x[i] + (1 - a) * out[i - 1]
        return out
    line = ema(p, 3) - ema(p, 6)
    signal = ema(line, 2)
    return line - signal


def vwap(price, volume):
    return np.cumsum(price * volume) / np.cumsum(volume)


def drawdown_duration(p):
    peak = p[0]
    cur = 0
    longest = 0
    for i in range(1, len(p)):
        if p[i] >= peak:
            peak = p[i]
            cur = 0
        else:
            cur += 1
            if cur > longest:
                longest = cur
    return longest


def reduceat_sums(x, starts):
    return np.add.reduceat(x, starts)


def partition_smallest(x, k):
    part = np.partition(x, k)
    return np.sort(part[:k + 1])


def argpartition_knn(D, k):
    idx = np.argpartition(D, k, axis=1)[:, :k]
    return np.sort(np.take_along_axis(D, idx, axis=1), axis=1)


def group_max_sorted(keys, vals):
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    v = vals[order]
    out_k = []
    out_v = []
    i = 0
    n = len(k)
    for i in range(n):
        if i == 0 or k[i] != k[i - 1]:
            out_k.append(k[i])
            out_v.append(v[i])
        elif v[i] > out_v[-1]:
            out_v[-1] = v[i]
    return np.array(out_k), np.array(out_v)


def cellular_automaton(cells, rule, steps):
    n = cells.shape[0]
    cur = cells.copy()
    for _ in range(steps):
        nxt = np.zeros_like(cur)
        for i in range(n):
            l = cur[(i - 1) % n]
            c = cur[i]
            r = cur[(i + 1) % n]
            idx = 4 * l + 2 * c + r
            nxt[i] = (rule >> idx) & 1
        cur = nxt
    return cur


def cosine_similarity_matrix(X):
    norms = np.sqrt((X * X).sum(axis=1))
    Xn = X / norms[:, None]
    return Xn @ Xn.T


def pairwise_hamming(B):
    n = B.shape[0]
    out = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            d = np.count_nonzero(B[i] != B[j])
            out[i, j] = d
            out[j, i] = d
    return out


CASES = [
    Case("edit_distance", edit_distance, lambda r: (r.integers(0, 3, _n(r, 6, 0)), r.integers(0, 3, 5))),
    Case("knapsack", knapsack, lambda r: (r.integers(1, 5, 5), r.random(5), int(r.integers(0, 10)))),
    Case("lcs_length", lcs_length, lambda r: (r.integers(0, 3, _n(r, 6, 0)), r.integers(0, 3, 5))),
    Case("insertion_sort", insertion_sort, lambda r: (r.standard_normal(_n(r)),)),
    Case("degree_counts", degree_counts, lambda r: (r.integers(0, 5, 7), r.integers(0, 5, 7), 5)),
    Case("bfs_levels", bfs_levels, lambda r: (r.random((6, 6)) < 0.3, int(r.integers(0, 6)))),
    Case("union_find_components", union_find_components, lambda r: (r.integers(0, 6, (_n(r, 4, 0), 2)), 6)),
    Case("rk4_decay", rk4_decay, lambda r: (1.0, 0.5, 0.1, int(r.integers(0, 8)))),
    Case("simpson", simpson, lambda r: (r.standard_normal(2 * int(r.integers(1, 5)) + 1), 0.1)),
    Case("mandelbrot", mandelbrot, lambda r: (np.linspace(-2, 1, _n(r, 6, 1)), np.linspace(-1, 1, 4), 20)),
    Case("kalman_1d", kalman_1d, lambda r: (r.standard_normal(_n(r)), 1e-3, 0.1)),
    Case("bollinger", bollinger, lambda r: (r.standard_normal(_n(r, 10, 2)).cumsum(), 3)),
    Case("macd", macd, lambda r: (r.standard_normal(_n(r, 10, 1)).cumsum() + 10,)),
    Case("vwap", vwap, lambda r: _sized(r, lambda n: (r.random(n) + 10, r.random(n) + 1))),
    Case("drawdown_duration", drawdown_duration, lambda r: (r.standard_normal(_n(r, 12)).cumsum(),)),
    Case("reduceat_sums", reduceat_sums, lambda r: (r.standard_normal(9), np.array([0, 3, 4, 7]))),
    Case("partition_smallest", partition_smallest, lambda r: (r.standard_normal(8), int(r.integers(0, 7)))),
    Case("argpartition_knn", argpartition_knn, lambda r: (r.random((4, 6)), 2)),
    Case("group_max_sorted", group_max_sorted, lambda r: _sized(r, lambda n: (r.integers(0, 4, n), r.standard_normal(n)), 9)),
    Case("cellular_automaton", cellular_automaton, lambda r: (r.integers(0, 2, _n(r, 10, 3)), 110, int(r.integers(0, 5)))),
    Case("cosine_similarity_matrix", cosine_similarity_matrix, lambda r: (r.standard_normal((_n(r, 4), 3)),), rtol=1e-9),
    Case("pairwise_hamming", pairwise_hamming, lambda r: (r.integers(0, 2, (_n(r, 5), 6)),)),
]
