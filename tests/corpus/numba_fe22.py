"""Session 20's unseen third-party-style programs (numba ``@njit`` loops and NumPy array code as
users already have them): lists built with ``append`` then ``np.array``-ed, compaction into a
buffer returned as ``buf[:k]``, graph algorithms on adjacency matrices (BFS,
Dijkstra, label propagation, PageRank), dynamic programming (Needleman-Wunsch, longest increasing
subsequence, coin change, matrix-chain order), finance Monte Carlo with the normal draws passed in,
a binomial tree, N-body forces, IIR filters, Goertzel, image histogram equalisation, counting
sort, ML preprocessing (min-max scaling, k-means assignment, row masks, np.nonzero, np.unique).
A second batch: grid BFS and knight moves over global offset tables, 2-d local maxima and COO
conversion by appends (triangular loops too), outliers and a sieve's primes by np.nonzero, rows
without NaN, np.unique, scalar np.polyval, a mean that is the int 0 when empty.  Three programs
of the probe stay refused and are not here (session 20's report): a run-length encoder
appending inside a ``while`` loop, ``np.bincount``, and an inverse permutation
``inv[perm] = np.arange(n)`` (a store through run-time indices)."""

from __future__ import annotations

import math

import numpy as np
from corpus_case import Case

# ---- lists built by append (numba's reflected/typed lists), compaction ----------------------


def find_peaks(x, thresh):
    peaks = []
    for i in range(1, x.shape[0] - 1):
        if x[i] > x[i - 1] and x[i] > x[i + 1] and x[i] > thresh:
            peaks.append(i)
    return np.array(peaks)


def positive_values(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            out.append(x[i])
    return np.array(out)




def compact_above(x, t):
    out = np.empty_like(x)
    k = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            out[k] = x[i]
            k += 1
    return out[:k]


def threshold_crossings(x, level):
    idx = []
    for i in range(1, len(x)):
        if x[i - 1] < level <= x[i]:
            idx.append(i)
    return np.asarray(idx, dtype=np.int64)


# ---- graphs on adjacency matrices -----------------------------------------------------------


def bfs_levels(adj, src):
    n = adj.shape[0]
    level = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    level[src] = 0
    queue[tail] = src
    tail += 1
    while head < tail:
        u = queue[head]
        head += 1
        for v in range(n):
            if adj[u, v] != 0 and level[v] < 0:
                level[v] = level[u] + 1
                queue[tail] = v
                tail += 1
    return level


def dijkstra_dense(w, src):
    n = w.shape[0]
    dist = np.full(n, np.inf)
    done = np.zeros(n, dtype=np.bool_)
    dist[src] = 0.0
    for _ in range(n):
        u = -1
        best = np.inf
        for v in range(n):
            if not done[v] and dist[v] < best:
                best = dist[v]
                u = v
        if u < 0:
            break
        done[u] = True
        for v in range(n):
            if w[u, v] > 0.0 and dist[u] + w[u, v] < dist[v]:
                dist[v] = dist[u] + w[u, v]
    return dist


def label_propagation(adj):
    n = adj.shape[0]
    labels = np.arange(n)
    changed = True
    while changed:
        changed = False
        for u in range(n):
            for v in range(n):
                if adj[u, v] and labels[v] < labels[u]:
                    labels[u] = labels[v]
                    changed = True
    return labels


def pagerank(adj, d, iters):
    n = adj.shape[0]
    deg = adj.sum(axis=1)
    deg = np.where(deg == 0, 1.0, deg)
    m = adj / deg[:, None]
    r = np.full(n, 1.0 / n)
    for _ in range(iters):
        r = (1.0 - d) / n + d * (m.T @ r)
    return r


def triangle_count(adj):
    a2 = adj @ adj
    return np.trace(a2 @ adj) / 6.0


def out_in_degree(adj):
    outd = np.count_nonzero(adj, axis=1)
    ind = np.count_nonzero(adj, axis=0)
    return outd, ind


# ---- dynamic programming --------------------------------------------------------------------


def needleman_wunsch(a, b, match, mismatch, gap):
    n, m = a.shape[0], b.shape[0]
    f = np.zeros((n + 1, m + 1))
    for i in range(n + 1):
        f[i, 0] = gap * i
    for j in range(m + 1):
        f[0, j] = gap * j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            f[i, j] = max(f[i - 1, j - 1] + s, f[i - 1, j] + gap, f[i, j - 1] + gap)
    return f[n, m]


def longest_increasing_subsequence(x):
    n = x.shape[0]
    if n == 0:
        return 0
    best = np.ones(n, dtype=np.int64)
    for i in range(1, n):
        for j in range(i):
            if x[j] < x[i] and best[j] + 1 > best[i]:
                best[i] = best[j] + 1
    return best.max()


def coin_change_ways(coins, amount):
    ways = np.zeros(amount + 1, dtype=np.int64)
    ways[0] = 1
    for c in range(coins.shape[0]):
        for v in range(coins[c], amount + 1):
            ways[v] += ways[v - coins[c]]
    return ways[amount]


def matrix_chain_cost(dims):
    n = dims.shape[0] - 1
    m = np.zeros((n, n))
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            m[i, j] = np.inf
            for k in range(i, j):
                c = m[i, k] + m[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < m[i, j]:
                    m[i, j] = c
    return m[0, n - 1]


def max_drawdown(prices):
    peak = prices[0]
    mdd = 0.0
    for i in range(prices.shape[0]):
        if prices[i] > peak:
            peak = prices[i]
        dd = (peak - prices[i]) / peak
        if dd > mdd:
            mdd = dd
    return mdd


# ---- finance Monte Carlo (draws passed in), trees ------------------------------------------


def gbm_paths(s0, mu, sigma, dt, z):
    npaths, nsteps = z.shape
    paths = np.empty((npaths, nsteps + 1))
    drift = (mu - 0.5 * sigma * sigma) * dt
    vol = sigma * math.sqrt(dt)
    for p in range(npaths):
        paths[p, 0] = s0
        for t in range(nsteps):
            paths[p, t + 1] = paths[p, t] * math.exp(drift + vol * z[p, t])
    return paths


def asian_call(z, s0, k, r, sigma, t):
    npaths, nsteps = z.shape
    dt = t / nsteps
    payoff = 0.0
    for p in range(npaths):
        s = s0
        avg = 0.0
        for j in range(nsteps):
            s *= math.exp((r - 0.5 * sigma**2) * dt + sigma * math.sqrt(dt) * z[p, j])
            avg += s
        avg /= nsteps
        payoff += max(avg - k, 0.0)
    return math.exp(-r * t) * payoff / npaths


def american_put_binomial(s0, k, r, sigma, t, n):
    dt = t / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    v = np.empty(n + 1)
    for i in range(n + 1):
        v[i] = max(k - s0 * u ** (n - i) * d**i, 0.0)
    for step in range(n - 1, -1, -1):
        for i in range(step + 1):
            cont = disc * (p * v[i] + (1.0 - p) * v[i + 1])
            ex = k - s0 * u ** (step - i) * d**i
            v[i] = max(cont, ex)
    return v[0]


def portfolio_var(returns, weights, alpha):
    pnl = returns @ weights
    return -np.quantile(pnl, alpha)


# ---- physics --------------------------------------------------------------------------------


def lennard_jones(pos, eps, sig, rcut):
    n = pos.shape[0]
    f = np.zeros_like(pos)
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dz = pos[i, 2] - pos[j, 2]
            r2 = dx * dx + dy * dy + dz * dz
            if r2 < rcut * rcut:
                s6 = (sig * sig / r2) ** 3
                energy += 4.0 * eps * (s6 * s6 - s6)
                fmag = 24.0 * eps * (2.0 * s6 * s6 - s6) / r2
                f[i, 0] += fmag * dx
                f[i, 1] += fmag * dy
                f[i, 2] += fmag * dz
                f[j, 0] -= fmag * dx
                f[j, 1] -= fmag * dy
                f[j, 2] -= fmag * dz
    return f, energy


def spring_chain_verlet(x, v, k, dt, steps):
    n = x.shape[0]
    a = np.zeros(n)
    for _ in range(steps):
        for i in range(1, n - 1):
            a[i] = k * (x[i - 1] - 2.0 * x[i] + x[i + 1])
        for i in range(n):
            v[i] += dt * a[i]
            x[i] += dt * v[i]
    return x


def ising_energy(spins, j):
    n, m = spins.shape
    e = 0
    for a in range(n):
        for b in range(m):
            s = spins[a, b]
            e += s * (spins[(a + 1) % n, b] + spins[a, (b + 1) % m])
    return -j * e


# ---- signal processing ----------------------------------------------------------------------


def convolve_valid(x, h):
    n, m = x.shape[0], h.shape[0]
    out = np.zeros(n - m + 1)
    for i in range(n - m + 1):
        acc = 0.0
        for k in range(m):
            acc += x[i + k] * h[m - 1 - k]
        out[i] = acc
    return out


def biquad(x, b0, b1, b2, a1, a2):
    y = np.zeros_like(x)
    x1 = x2 = 0.0
    y1 = y2 = 0.0
    for i in range(x.shape[0]):
        y[i] = b0 * x[i] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1
        x1 = x[i]
        y2 = y1
        y1 = y[i]
    return y


def goertzel_power(x, k):
    n = x.shape[0]
    w = 2.0 * math.pi * k / n
    coeff = 2.0 * math.cos(w)
    s1 = 0.0
    s2 = 0.0
    for i in range(n):
        s0 = x[i] + coeff * s1 - s2
        s2 = s1
        s1 = s0
    return s1 * s1 + s2 * s2 - coeff * s1 * s2


def autocorr(x, maxlag):
    n = x.shape[0]
    mu = x.mean()
    out = np.empty(maxlag + 1)
    for lag in range(maxlag + 1):
        s = 0.0
        for i in range(n - lag):
            s += (x[i] - mu) * (x[i + lag] - mu)
        out[lag] = s / n
    return out


def rolling_std(x, w):
    n = x.shape[0]
    out = np.full(n, np.nan)
    for i in range(w - 1, n):
        m = 0.0
        for k in range(i - w + 1, i + 1):
            m += x[k]
        m /= w
        s = 0.0
        for k in range(i - w + 1, i + 1):
            s += (x[k] - m) ** 2
        out[i] = math.sqrt(s / (w - 1))
    return out


def cumsum_reset(x):
    out = np.empty_like(x)
    acc = 0.0
    for i in range(x.shape[0]):
        if x[i] == 0.0:
            acc = 0.0
        else:
            acc += x[i]
        out[i] = acc
    return out


# ---- images ----------------------------------------------------------------------------------


def equalize_hist(img):
    hist = np.zeros(256, dtype=np.int64)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            hist[img[i, j]] += 1
    cdf = np.cumsum(hist)
    total = cdf[-1]
    lut = np.empty(256, dtype=np.uint8)
    for v in range(256):
        lut[v] = np.uint8(255 * cdf[v] // total)
    out = np.empty_like(img)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            out[i, j] = lut[img[i, j]]
    return out


def dilate3x3(img):
    n, m = img.shape
    out = np.zeros_like(img)
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            v = img[i, j]
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if img[i + di, j + dj] > v:
                        v = img[i + di, j + dj]
            out[i, j] = v
    return out


def rgb_to_gray(img):
    h, w, _ = img.shape
    out = np.empty((h, w))
    for i in range(h):
        for j in range(w):
            out[i, j] = 0.299 * img[i, j, 0] + 0.587 * img[i, j, 1] + 0.114 * img[i, j, 2]
    return out


# ---- sorting, searching, counting -----------------------------------------------------------


def counting_sort(a, maxv):
    counts = np.zeros(maxv + 1, dtype=np.int64)
    for i in range(a.shape[0]):
        counts[a[i]] += 1
    out = np.empty_like(a)
    k = 0
    for v in range(maxv + 1):
        for _ in range(counts[v]):
            out[k] = v
            k += 1
    return out


def two_sum_sorted(a, target):
    i = 0
    j = a.shape[0] - 1
    while i < j:
        s = a[i] + a[j]
        if s == target:
            return i, j
        if s < target:
            i += 1
        else:
            j -= 1
    return -1, -1


def count_inversions(a):
    c = 0
    n = a.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            if a[i] > a[j]:
                c += 1
    return c


# ---- NumPy array code: ML preprocessing, finance --------------------------------------------


def minmax_columns(x):
    lo = x.min(axis=0)
    hi = x.max(axis=0)
    return (x - lo) / (hi - lo)


def kmeans_assign(x, c):
    d = ((x[:, None, :] - c[None, :, :]) ** 2).sum(axis=-1)
    return np.argmin(d, axis=1)


def cumulative_returns(prices):
    r = np.diff(prices) / prices[:-1]
    return np.cumprod(1.0 + r) - 1.0


def sharpe_ratio(returns, rf):
    ex = returns - rf
    return ex.mean() / ex.std() * np.sqrt(252.0)




def select_rows(x, y, cls):
    return x[y == cls]


def nonzero_positions(x, t):
    return np.nonzero(x > t)[0]


def where_indices(x):
    return np.where(x < 0.0)[0]


def unique_labels(labels):
    return np.unique(labels)






def int_sum(x):
    return sum(x)


def clipped_mean_rows(x, lo, hi):
    y = np.clip(x, lo, hi)
    return y.mean(axis=1)


# ---- probe batch 2: grids with global offset tables, lists in nested loops, selections ------

NEIGH4 = ((-1, 0), (1, 0), (0, -1), (0, 1))
KNIGHT = ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))


def grid_bfs(grid, si, sj):
    n, m = grid.shape
    dist = np.full((n, m), -1, dtype=np.int64)
    qi = np.empty(n * m, dtype=np.int64)
    qj = np.empty(n * m, dtype=np.int64)
    head = 0
    tail = 1
    qi[0] = si
    qj[0] = sj
    dist[si, sj] = 0
    while head < tail:
        i = qi[head]
        j = qj[head]
        head += 1
        for di, dj in NEIGH4:
            a = i + di
            b = j + dj
            if 0 <= a < n and 0 <= b < m and grid[a, b] == 0 and dist[a, b] < 0:
                dist[a, b] = dist[i, j] + 1
                qi[tail] = a
                qj[tail] = b
                tail += 1
    return dist


def knight_moves(n):
    count = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(n):
            for k in range(8):
                a = i + KNIGHT[k][0]
                b = j + KNIGHT[k][1]
                if 0 <= a < n and 0 <= b < n:
                    count[i, j] += 1
    return count


def local_maxima_2d(img):
    n, m = img.shape
    rows = []
    cols = []
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            v = img[i, j]
            if v > img[i - 1, j] and v > img[i + 1, j] and v > img[i, j - 1] and v > img[i, j + 1]:
                rows.append(i)
                cols.append(j)
    return np.array(rows), np.array(cols)


def outlier_indices(x, k):
    mu = x.mean()
    sd = x.std()
    return np.nonzero(np.abs(x - mu) > k * sd)[0]


def dedupe_sorted(a):
    out = np.empty_like(a)
    n = 0
    for i in range(a.shape[0]):
        if n == 0 or out[n - 1] != a[i]:
            out[n] = a[i]
            n += 1
    return out[:n]


def valid_rows(X):
    ok = ~np.isnan(X).any(axis=1)
    return X[ok]


def primes_list(n):
    sieve = np.ones(n + 1, dtype=np.bool_)
    sieve[:2] = False
    for i in range(2, int(math.sqrt(n)) + 1):
        if sieve[i]:
            for j in range(i * i, n + 1, i):
                sieve[j] = False
    return np.nonzero(sieve)[0]


def zero_crossing_times(t, y):
    out = []
    for i in range(1, y.shape[0]):
        if y[i - 1] * y[i] < 0:
            out.append(t[i - 1] - y[i - 1] * (t[i] - t[i - 1]) / (y[i] - y[i - 1]))
    return np.array(out)


def sparse_to_coo(A):
    r = []
    c = []
    v = []
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] != 0:
                r.append(i)
                c.append(j)
                v.append(A[i, j])
    return np.array(r), np.array(c), np.array(v)


def bincount_manual(labels, k):
    counts = np.zeros(k, dtype=np.int64)
    for i in range(labels.shape[0]):
        counts[labels[i]] += 1
    return counts


def unique_sorted_values(x):
    u = np.unique(x)
    return u


def poly_eval_grid(coef, xs):
    out = np.empty_like(xs)
    for i in range(xs.shape[0]):
        out[i] = np.polyval(coef, xs[i])
    return out


def running_argmax_list(x):
    best = []
    m = -np.inf
    for i in range(x.shape[0]):
        if x[i] > m:
            m = x[i]
            best.append(i)
    return np.array(best)


def pairs_within(x, r):
    out = []
    for i in range(x.shape[0]):
        for j in range(i + 1, x.shape[0]):
            if abs(x[i] - x[j]) < r:
                out.append(i)
    return np.array(out)


def mean_or_zero(x):
    m = 0
    if x.shape[0] > 0:
        m = x.mean()
    return m


def horner_scalar(p, t):
    return np.polyval(p, t)


# ---- inputs ----------------------------------------------------------------------------------


def _adj(rng, n, p=0.3):
    a = (rng.random((n, n)) < p).astype(np.float64)
    a = np.maximum(a, a.T)
    np.fill_diagonal(a, 0.0)
    return a


def _weights(rng, n):
    w = rng.uniform(0.5, 3.0, (n, n)) * (rng.random((n, n)) < 0.4)
    return np.maximum(w, w.T)


def _case(name, func, make_args, **kw):
    """One mode (cpu, smart): the suite is at its time budget, and tests/frontend/test_growing_lists.py
    and test_data_sized.py run the new constructs on the python backend in program order too."""
    return Case(name, func, make_args, fuses=("smart",), targets=("cpu",),
                why_narrowed="suite time budget (session 20): one mode", **kw)


CASES = [
    _case("find_peaks", find_peaks, lambda rng: (rng.standard_normal(40), 0.2)),
    _case("positive_values", positive_values, lambda rng: (rng.standard_normal(25),)),
    _case("compact_above", compact_above, lambda rng: (rng.standard_normal(20), 0.3)),
    _case("threshold_crossings", threshold_crossings, lambda rng: (np.sin(np.linspace(0, 12, 60)) + 0.1 * rng.standard_normal(60), 0.5)),
    _case("bfs_levels", bfs_levels, lambda rng: (_adj(rng, 12, 0.2), 0)),
    _case("dijkstra_dense", dijkstra_dense, lambda rng: (_weights(rng, 10), 0)),
    _case("label_propagation", label_propagation, lambda rng: (_adj(rng, 12, 0.12) > 0,)),
    _case("pagerank", pagerank, lambda rng: (_adj(rng, 10), 0.85, 20)),
    _case("triangle_count", triangle_count, lambda rng: (_adj(rng, 9, 0.5),)),
    _case("out_in_degree", out_in_degree, lambda rng: ((rng.random((7, 9)) < 0.4).astype(np.int64),)),
    _case("needleman_wunsch", needleman_wunsch, lambda rng: (rng.integers(0, 4, 12), rng.integers(0, 4, 9), 1.0, -1.0, -2.0)),
    _case("lis", longest_increasing_subsequence, lambda rng: (rng.standard_normal(15),)),
    _case("coin_change_ways", coin_change_ways, lambda rng: (np.array([1, 2, 5, 10]), int(rng.integers(10, 40)))),
    _case("matrix_chain_cost", matrix_chain_cost, lambda rng: (rng.integers(2, 20, 7).astype(np.float64),)),
    _case("max_drawdown", max_drawdown, lambda rng: (100.0 * np.exp(np.cumsum(0.02 * rng.standard_normal(30))),)),
    _case("gbm_paths", gbm_paths, lambda rng: (100.0, 0.05, 0.2, 1.0 / 52, rng.standard_normal((5, 8)))),
    _case("asian_call", asian_call, lambda rng: (rng.standard_normal((16, 12)), 100.0, 100.0, 0.03, 0.25, 1.0)),
    _case("american_put_binomial", american_put_binomial, lambda rng: (100.0, float(rng.uniform(90, 110)), 0.05, 0.2, 1.0, 25)),
    _case("portfolio_var", portfolio_var, lambda rng: (0.01 * rng.standard_normal((50, 4)), rng.dirichlet(np.ones(4)), 0.05)),
    _case("lennard_jones", lennard_jones, lambda rng: (rng.uniform(0, 3, (8, 3)), 1.0, 1.0, 2.5)),
    _case("spring_chain_verlet", spring_chain_verlet, lambda rng: (rng.standard_normal(10), np.zeros(10), 0.5, 0.05, 7)),
    _case("ising_energy", ising_energy, lambda rng: (rng.choice(np.array([-1, 1]), (6, 7)), 1.0)),
    _case("convolve_valid", convolve_valid, lambda rng: (rng.standard_normal(20), rng.standard_normal(5))),
    _case("biquad", biquad, lambda rng: (rng.standard_normal(30), 0.2, 0.4, 0.2, -0.3, 0.1)),
    _case("goertzel_power", goertzel_power, lambda rng: (np.sin(2 * np.pi * 3 * np.arange(32) / 32) + 0.1 * rng.standard_normal(32), 3)),
    _case("autocorr", autocorr, lambda rng: (rng.standard_normal(24), 5)),
    _case("rolling_std", rolling_std, lambda rng: (rng.standard_normal(20), 4)),
    _case("cumsum_reset", cumsum_reset, lambda rng: (np.where(rng.random(20) < 0.2, 0.0, rng.standard_normal(20)),)),
    _case("equalize_hist", equalize_hist, lambda rng: (rng.integers(0, 256, (8, 9)).astype(np.uint8),)),
    _case("dilate3x3", dilate3x3, lambda rng: (rng.integers(0, 9, (7, 8)),)),
    _case("rgb_to_gray", rgb_to_gray, lambda rng: (rng.integers(0, 256, (5, 6, 3)).astype(np.uint8),)),
    _case("counting_sort", counting_sort, lambda rng: (rng.integers(0, 10, 25), 9)),
    _case("two_sum_sorted", two_sum_sorted, lambda rng: (np.sort(rng.integers(0, 30, 12)), 25)),
    _case("count_inversions", count_inversions, lambda rng: (rng.integers(0, 20, 15),)),
    _case("minmax_columns", minmax_columns, lambda rng: (rng.standard_normal((9, 4)),)),
    _case("kmeans_assign", kmeans_assign, lambda rng: (rng.standard_normal((12, 3)), rng.standard_normal((4, 3)))),
    _case("cumulative_returns", cumulative_returns, lambda rng: (100.0 + rng.standard_normal(15).cumsum(),)),
    _case("sharpe_ratio", sharpe_ratio, lambda rng: (0.01 * rng.standard_normal(40), 0.0001)),
    _case("select_rows", select_rows, lambda rng: (rng.standard_normal((10, 3)), rng.integers(0, 3, 10), 1)),
    _case("nonzero_positions", nonzero_positions, lambda rng: (rng.standard_normal(20), 0.5)),
    _case("where_indices", where_indices, lambda rng: (rng.standard_normal(20),)),
    _case("unique_labels", unique_labels, lambda rng: (rng.integers(0, 6, 20),)),
    _case("int_sum", int_sum, lambda rng: (rng.integers(-5, 5, 10),)),
    _case("clipped_mean_rows", clipped_mean_rows, lambda rng: (rng.standard_normal((6, 7)), -0.5, 0.5)),
    # probe batch 2
    _case("grid_bfs", grid_bfs, lambda rng: ((rng.random((6, 7)) < 0.25).astype(np.int64) * np.array([0] + [1] * 6)[None, :].clip(0, 1), 0, 0)),
    _case("knight_moves", knight_moves, lambda rng: (5,)),
    _case("local_maxima_2d", local_maxima_2d, lambda rng: (rng.standard_normal((6, 7)),)),
    _case("outlier_indices", outlier_indices, lambda rng: (rng.standard_normal(30), 1.5)),
    _case("dedupe_sorted", dedupe_sorted, lambda rng: (np.sort(rng.integers(0, 6, 15)),)),
    _case("valid_rows", valid_rows, lambda rng: (np.where(rng.random((6, 3)) < 0.2, np.nan, 1.0),)),
    _case("primes_list", primes_list, lambda rng: (30,)),
    _case("zero_crossing_times", zero_crossing_times, lambda rng: (np.linspace(0, 6, 40), np.sin(np.linspace(0, 6, 40)) + 0.1)),
    _case("sparse_to_coo", sparse_to_coo, lambda rng: (np.where(rng.random((4, 5)) < 0.3, rng.standard_normal((4, 5)), 0.0),)),
    _case("bincount_manual", bincount_manual, lambda rng: (rng.integers(0, 4, 20), 4)),
    _case("unique_sorted_values", unique_sorted_values, lambda rng: (rng.integers(0, 5, 12).astype(np.float64),)),
    _case("poly_eval_grid", poly_eval_grid, lambda rng: (rng.standard_normal(4), rng.standard_normal(6))),
    _case("running_argmax_list", running_argmax_list, lambda rng: (rng.standard_normal(20),)),
    _case("pairs_within", pairs_within, lambda rng: (rng.standard_normal(8), 0.3)),
    _case("mean_or_zero", mean_or_zero, lambda rng: (rng.standard_normal(int(rng.integers(0, 2)) * 5),)),
    _case("horner_scalar", horner_scalar, lambda rng: (rng.standard_normal(5), 1.5)),
]
