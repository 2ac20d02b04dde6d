"""fe43's batch: numba code from corners earlier batches leave (finance lattices and path
payoffs on given normals, GARCH and technical indicators, DP with item/operation tracebacks,
sparse formats other than CSR SpMV (ELL, COO, CSR triangular solves, CSR times dense), graphs
with queue and stack arrays (bipartite tests, k-cores, DAG shortest paths, Kruskal), physics
with cell lists and periodic images, images (two-pass distance transforms, 8-connected
labelling with equivalences, rotations, non-maximum suppression, Harris), signals (biquad
cascades, decimating FIR, DC blockers, interpolated crossings, prominences), text on uint8
arrays (KMP, RLE decoding, CSV fields, palindromes), integer hashing and bit tricks, while loops
to convergence; @njit helpers, tuple returns, early exits, ``s = 0`` then ``s += x[i]``.

At ec6efd2 (cpu and python targets, four seeds each, POLYFUSE_NUM_THREADS=2): 72 match, 8 refused,
none wrong or crashed.  After fe43's fixes 75 match (np.uint64 of literals above int64: murmur's
fmix64 and splitmix64; ``return out[:i]`` from inside the loop: hex_decode_u8), and the five
refusals left are the supported answer (test_batches.REFUSED): a recursive helper, an early return
of an empty array before a count-then-allocate buffer (two), and allocations whose extent is an
element of the data (a CSR-style prefix sum's last entry, a sum of run lengths)."""

import math

import numpy as np
from corpus_case import Case
from numba import njit


def _n(rng, big=7, edge=0):
    return big if rng.integers(0, 3) else edge


# ---------------------------------------------------------------- helpers


@njit
def _norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@njit
def _bs_call(s, k, t, r, sigma):
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    return s * _norm_cdf(d1) - k * math.exp(-r * t) * _norm_cdf(d2)


@njit
def _find_root(parent, x):
    while parent[x] != x:
        x = parent[x]
    return x


@njit
def _fmix64(h):
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


@njit
def _spread_bits3(v):
    v = v & 0x3FF
    v = (v | (v << 16)) & 0x30000FF
    v = (v | (v << 8)) & 0x300F00F
    v = (v | (v << 4)) & 0x30C30C3
    v = (v | (v << 2)) & 0x9249249
    return v


@njit
def _insertion_median(buf, n):
    for i in range(1, n):
        v = buf[i]
        j = i - 1
        while j >= 0 and buf[j] > v:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = v
    return buf[n // 2]


@njit
def _gcd_rec(a, b):
    if b == 0:
        return a
    return _gcd_rec(b, a % b)


@njit
def _biquad_section(x, b0, b1, b2, a1, a2, out):
    z1 = 0.0
    z2 = 0.0
    for i in range(x.shape[0]):
        y = b0 * x[i] + z1
        z1 = b1 * x[i] - a1 * y + z2
        z2 = b2 * x[i] - a2 * y
        out[i] = y


# ---------------------------------------------------------------- finance


def trinomial_call(s0, k, t, r, sigma, steps):
    dt = t / steps
    u = math.exp(sigma * math.sqrt(2.0 * dt))
    a = math.exp(r * dt / 2.0)
    b = math.exp(sigma * math.sqrt(dt / 2.0))
    pu = ((a - 1.0 / b) / (b - 1.0 / b)) ** 2
    pd = ((b - a) / (b - 1.0 / b)) ** 2
    pm = 1.0 - pu - pd
    disc = math.exp(-r * dt)
    n = 2 * steps + 1
    v = np.empty(n)
    for j in range(n):
        st = s0 * u ** (j - steps)
        v[j] = max(st - k, 0.0)
    for i in range(steps - 1, -1, -1):
        for j in range(2 * i + 1):
            v[j] = disc * (pd * v[j] + pm * v[j + 1] + pu * v[j + 2])
    return v[0]


def barrier_knockout_mc(z, s0, k, barrier, r, sigma, dt):
    npath, nstep = z.shape
    drift = (r - 0.5 * sigma * sigma) * dt
    vol = sigma * math.sqrt(dt)
    total = 0
    knocked = 0
    for p in range(npath):
        s = s0
        alive = True
        for t in range(nstep):
            s = s * math.exp(drift + vol * z[p, t])
            if s >= barrier:
                alive = False
                break
        if alive:
            total += max(s - k, 0.0)
        else:
            knocked += 1
    price = 0.0
    if npath > 0:
        price = math.exp(-r * dt * nstep) * total / npath
    return price, knocked


def lookback_floating_mc(z, s0, r, sigma, dt):
    npath, nstep = z.shape
    pay = np.zeros(npath)
    for p in range(npath):
        s = s0
        lo = s0
        for t in range(nstep):
            s *= math.exp((r - 0.5 * sigma ** 2) * dt + sigma * math.sqrt(dt) * z[p, t])
            if s < lo:
                lo = s
        pay[p] = s - lo
    return pay


def garch11_variance(ret, omega, alpha, beta):
    n = ret.shape[0]
    var = np.empty(n)
    if n == 0:
        return var
    s = 0
    for i in range(n):
        s += ret[i] * ret[i]
    var[0] = s / n
    for i in range(1, n):
        var[i] = omega + alpha * ret[i - 1] ** 2 + beta * var[i - 1]
    return var


def implied_vol_bisect(prices, s, k, t, r):
    out = np.empty(prices.shape[0])
    for i in range(prices.shape[0]):
        lo, hi = 1e-4, 3.0
        it = 0
        while hi - lo > 1e-10 and it < 200:
            mid = 0.5 * (lo + hi)
            if _bs_call(s, k[i], t, r, mid) > prices[i]:
                hi = mid
            else:
                lo = mid
            it += 1
        out[i] = 0.5 * (lo + hi)
    return out


def bond_ytm_newton(price, coupon, face, n_periods):
    y = 0.05
    for _ in range(100):
        f = 0.0
        df = 0.0
        for t in range(1, n_periods + 1):
            cf = coupon
            if t == n_periods:
                cf += face
            f += cf / (1.0 + y) ** t
            df -= t * cf / (1.0 + y) ** (t + 1)
        step = (f - price) / df
        y -= step
        if abs(step) < 1e-12:
            break
    return y


def amortization_schedule(principal, rate, n):
    pay = principal * rate / (1.0 - (1.0 + rate) ** (-n))
    interest = np.empty(n)
    balance = np.empty(n)
    b = principal
    for i in range(n):
        interest[i] = b * rate
        b = b + interest[i] - pay
        balance[i] = b
    return pay, interest, balance


def stochastic_oscillator(high, low, close, w):
    n = close.shape[0]
    k = np.full(n, np.nan)
    for i in range(w - 1, n):
        hh = high[i]
        ll = low[i]
        for j in range(i - w + 1, i):
            hh = max(hh, high[j])
            ll = min(ll, low[j])
        if hh > ll:
            k[i] = 100.0 * (close[i] - ll) / (hh - ll)
        else:
            k[i] = 50.0
    return k


def atr_wilder(high, low, close, period):
    n = close.shape[0]
    atr = np.zeros(n)
    if n <= period:
        return atr
    s = 0
    for i in range(1, period + 1):
        tr = max(high[i] - low[i], abs(high[i] - close[i - 1]), abs(low[i] - close[i - 1]))
        s += tr
    atr[period] = s / period
    for i in range(period + 1, n):
        tr = max(high[i] - low[i], abs(high[i] - close[i - 1]), abs(low[i] - close[i - 1]))
        atr[i] = (atr[i - 1] * (period - 1) + tr) / period
    return atr


def underwater_stats(equity):
    peak = -np.inf
    longest = 0
    current = 0
    worst = 0.0
    for i in range(equity.shape[0]):
        if equity[i] >= peak:
            peak = equity[i]
            current = 0
        else:
            current += 1
            dd = (peak - equity[i]) / peak
            if dd > worst:
                worst = dd
        if current > longest:
            longest = current
    return longest, worst


def heston_euler_paths(z1, z2, s0, v0, kappa, theta, xi, rho, r, dt):
    npath, nstep = z1.shape
    s = np.empty(npath)
    for p in range(npath):
        si = s0
        vi = v0
        for t in range(nstep):
            w1 = z1[p, t]
            w2 = rho * w1 + math.sqrt(1.0 - rho * rho) * z2[p, t]
            vp = max(vi, 0.0)
            si *= math.exp((r - 0.5 * vp) * dt + math.sqrt(vp * dt) * w1)
            vi += kappa * (theta - vp) * dt + xi * math.sqrt(vp * dt) * w2
        s[p] = si
    return s


def portfolio_rebalance(prices, target):
    nt, na = prices.shape
    value = np.empty(nt)
    shares = np.zeros(na)
    cash = 1.0
    for t in range(nt):
        v = cash
        for a in range(na):
            v += shares[a] * prices[t, a]
        value[t] = v
        cash = v
        for a in range(na):
            shares[a] = v * target[a] / prices[t, a]
            cash -= shares[a] * prices[t, a]
    return value


# ---------------------------------------------------------------- dynamic programming


def knapsack_items(w, v, cap):
    n = w.shape[0]
    dp = np.zeros((n + 1, cap + 1), dtype=np.int64)
    for i in range(1, n + 1):
        for c in range(cap + 1):
            dp[i, c] = dp[i - 1, c]
            if w[i - 1] <= c and dp[i - 1, c - w[i - 1]] + v[i - 1] > dp[i, c]:
                dp[i, c] = dp[i - 1, c - w[i - 1]] + v[i - 1]
    take = np.zeros(n, dtype=np.bool_)
    c = cap
    for i in range(n, 0, -1):
        if dp[i, c] != dp[i - 1, c]:
            take[i - 1] = True
            c -= w[i - 1]
    return dp[n, cap], take


def edit_ops_traceback(a, b):
    n, m = a.shape[0], b.shape[0]
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        d[i, 0] = i
    for j in range(m + 1):
        d[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    subs = 0
    ins = 0
    dels = 0
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and d[i, j] == d[i - 1, j - 1] + (0 if a[i - 1] == b[j - 1] else 1):
            if a[i - 1] != b[j - 1]:
                subs += 1
            i -= 1
            j -= 1
        elif i > 0 and d[i, j] == d[i - 1, j] + 1:
            dels += 1
            i -= 1
        else:
            ins += 1
            j -= 1
    return subs, ins, dels


def lcs_indices(a, b):
    n, m = a.shape[0], b.shape[0]
    L = np.zeros((n + 1, m + 1), dtype=np.int32)
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            if a[i] == b[j]:
                L[i, j] = L[i + 1, j + 1] + 1
            else:
                L[i, j] = max(L[i + 1, j], L[i, j + 1])
    out = np.full(min(n, m), -1, dtype=np.int64)
    i = 0
    j = 0
    k = 0
    while i < n and j < m:
        if a[i] == b[j]:
            out[k] = i
            k += 1
            i += 1
            j += 1
        elif L[i + 1, j] >= L[i, j + 1]:
            i += 1
        else:
            j += 1
    return out, k


def rod_cutting(prices, n):
    best = np.zeros(n + 1)
    first = np.zeros(n + 1, dtype=np.int64)
    for length in range(1, n + 1):
        q = -1.0
        for cut in range(1, min(length, prices.shape[0]) + 1):
            val = prices[cut - 1] + best[length - cut]
            if val > q:
                q = val
                first[length] = cut
        best[length] = q
    return best, first


def longest_palindromic_subseq(s):
    n = s.shape[0]
    if n == 0:
        return 0
    dp = np.zeros((n, n), dtype=np.int64)
    for i in range(n - 1, -1, -1):
        dp[i, i] = 1
        for j in range(i + 1, n):
            if s[i] == s[j]:
                dp[i, j] = dp[i + 1, j - 1] + 2
            else:
                dp[i, j] = max(dp[i + 1, j], dp[i, j - 1])
    return dp[0, n - 1]


def min_path_grid(cost):
    n, m = cost.shape
    acc = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            if i == 0 and j == 0:
                acc[i, j] = cost[i, j]
            elif i == 0:
                acc[i, j] = acc[i, j - 1] + cost[i, j]
            elif j == 0:
                acc[i, j] = acc[i - 1, j] + cost[i, j]
            else:
                acc[i, j] = min(acc[i - 1, j], acc[i, j - 1]) + cost[i, j]
    path = np.zeros((n, m), dtype=np.uint8)
    i, j = n - 1, m - 1
    while i > 0 or j > 0:
        path[i, j] = 1
        if i == 0:
            j -= 1
        elif j == 0:
            i -= 1
        elif acc[i - 1, j] <= acc[i, j - 1]:
            i -= 1
        else:
            j -= 1
    path[0, 0] = 1
    return acc[n - 1, m - 1], path


def weighted_intervals(start, end, weight):
    n = start.shape[0]
    dp = np.zeros(n + 1)
    for i in range(1, n + 1):
        lo = 0
        hi = i - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if end[mid - 1] <= start[i - 1]:
                lo = mid
            else:
                hi = mid - 1
        dp[i] = max(dp[i - 1], dp[lo] + weight[i - 1])
    return dp[n]


def subset_sum_exists(x, target):
    reach = np.zeros(target + 1, dtype=np.bool_)
    reach[0] = True
    for i in range(x.shape[0]):
        for t in range(target, x[i] - 1, -1):
            if reach[t - x[i]]:
                reach[t] = True
    return reach[target], reach


def largest_square_ones(grid):
    n, m = grid.shape
    dp = np.zeros((n + 1, m + 1), dtype=np.int64)
    best = 0
    bi = -1
    bj = -1
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if grid[i - 1, j - 1]:
                dp[i, j] = 1 + min(dp[i - 1, j], dp[i, j - 1], dp[i - 1, j - 1])
                if dp[i, j] > best:
                    best = dp[i, j]
                    bi = i - 1
                    bj = j - 1
    return best, bi, bj


def hmm_forward_backward(obs, A, B, pi):
    T = obs.shape[0]
    S = A.shape[0]
    alpha = np.zeros((T, S))
    beta = np.ones((T, S))
    scale = np.zeros(T)
    for s in range(S):
        alpha[0, s] = pi[s] * B[s, obs[0]]
        scale[0] += alpha[0, s]
    for s in range(S):
        alpha[0, s] /= scale[0]
    for t in range(1, T):
        for j in range(S):
            acc = 0.0
            for i in range(S):
                acc += alpha[t - 1, i] * A[i, j]
            alpha[t, j] = acc * B[j, obs[t]]
            scale[t] += alpha[t, j]
        for j in range(S):
            alpha[t, j] /= scale[t]
    for t in range(T - 2, -1, -1):
        for i in range(S):
            acc = 0.0
            for j in range(S):
                acc += A[i, j] * B[j, obs[t + 1]] * beta[t + 1, j]
            beta[t, i] = acc / scale[t + 1]
    post = alpha * beta
    loglik = 0.0
    for t in range(T):
        loglik += math.log(scale[t])
    return post, loglik


def dtw_path_length(a, b):
    n, m = a.shape[0], b.shape[0]
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            c = abs(a[i - 1] - b[j - 1])
            D[i, j] = c + min(D[i - 1, j], D[i, j - 1], D[i - 1, j - 1])
    steps = 0
    i, j = n, m
    while i > 1 or j > 1:
        steps += 1
        if i == 1:
            j -= 1
        elif j == 1:
            i -= 1
        else:
            k = np.argmin(np.array([D[i - 1, j - 1], D[i - 1, j], D[i, j - 1]]))
            if k == 0:
                i -= 1
                j -= 1
            elif k == 1:
                i -= 1
            else:
                j -= 1
    return D[n, m], steps + 1


# ---------------------------------------------------------------- sparse


def ell_spmv(cols, vals, x):
    n, w = cols.shape
    y = np.zeros(n)
    for i in range(n):
        s = 0
        for k in range(w):
            c = cols[i, k]
            if c < 0:
                break
            s += vals[i, k] * x[c]
        y[i] = s
    return y


def coo_spmv_accumulate(rows, cols, vals, x, n):
    y = np.zeros(n)
    for k in range(vals.shape[0]):
        y[rows[k]] += vals[k] * x[cols[k]]
    return y


def csr_lower_solve(indptr, indices, data, b):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n):
        s = b[i]
        diag = 1.0
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j < i:
                s -= data[k] * x[j]
            elif j == i:
                diag = data[k]
        x[i] = s / diag
    return x


def csr_times_dense(indptr, indices, data, B):
    n = indptr.shape[0] - 1
    m = B.shape[1]
    C = np.zeros((n, m))
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            a = data[k]
            for c in range(m):
                C[i, c] += a * B[j, c]
    return C


def csr_row_normalize_l1(indptr, data):
    out = data.copy()
    for i in range(indptr.shape[0] - 1):
        s = 0
        for k in range(indptr[i], indptr[i + 1]):
            s += abs(data[k])
        if s > 0:
            for k in range(indptr[i], indptr[i + 1]):
                out[k] = data[k] / s
    return out


def csr_jacobi_iterate(indptr, indices, data, b, iters):
    n = b.shape[0]
    x = np.zeros(n)
    xn = np.zeros(n)
    for _ in range(iters):
        for i in range(n):
            s = b[i]
            d = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                j = indices[k]
                if j == i:
                    d = data[k]
                else:
                    s -= data[k] * x[j]
            xn[i] = s / d
        for i in range(n):
            x[i] = xn[i]
    return x


def coo_duplicates_sum(rows, cols, vals, n, m):
    # sorted COO (row-major): sum duplicates in place, return the compacted length
    r = rows.copy()
    c = cols.copy()
    v = vals.copy()
    k = 0
    for t in range(vals.shape[0]):
        if k > 0 and r[k - 1] == rows[t] and c[k - 1] == cols[t]:
            v[k - 1] += vals[t]
        else:
            r[k] = rows[t]
            c[k] = cols[t]
            v[k] = vals[t]
            k += 1
    return r, c, v, k


# ---------------------------------------------------------------- graphs


def bfs_parents_dense(adj, src):
    n = adj.shape[0]
    parent = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    parent[src] = src
    queue[0] = src
    head = 0
    tail = 1
    while head < tail:
        u = queue[head]
        head += 1
        for v in range(n):
            if adj[u, v] and parent[v] == -1:
                parent[v] = u
                queue[tail] = v
                tail += 1
    return parent, tail


def dfs_preorder_stack(indptr, indices, src):
    n = indptr.shape[0] - 1
    seen = np.zeros(n, dtype=np.bool_)
    order = np.full(n, -1, dtype=np.int64)
    stack = np.empty(indices.shape[0] + 1, dtype=np.int64)
    top = 0
    stack[top] = src
    top += 1
    k = 0
    while top > 0:
        top -= 1
        u = stack[top]
        if seen[u]:
            continue
        seen[u] = True
        order[k] = u
        k += 1
        for e in range(indptr[u + 1] - 1, indptr[u] - 1, -1):
            v = indices[e]
            if not seen[v]:
                stack[top] = v
                top += 1
    return order


def bipartite_coloring(adj):
    n = adj.shape[0]
    color = np.full(n, -1, dtype=np.int8)
    queue = np.empty(n, dtype=np.int64)
    for s in range(n):
        if color[s] != -1:
            continue
        color[s] = 0
        head = 0
        tail = 1
        queue[0] = s
        while head < tail:
            u = queue[head]
            head += 1
            for v in range(n):
                if not adj[u, v]:
                    continue
                if color[v] == -1:
                    color[v] = 1 - color[u]
                    queue[tail] = v
                    tail += 1
                elif color[v] == color[u]:
                    return False, color
    return True, color


def k_core_numbers(adj):
    n = adj.shape[0]
    deg = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for j in range(n):
            if adj[i, j]:
                deg[i] += 1
    core = np.zeros(n, dtype=np.int64)
    removed = np.zeros(n, dtype=np.bool_)
    k = 0
    left = n
    while left > 0:
        picked = -1
        for i in range(n):
            if not removed[i] and (picked == -1 or deg[i] < deg[picked]):
                picked = i
        if deg[picked] > k:
            k = deg[picked]
        core[picked] = k
        removed[picked] = True
        left -= 1
        for j in range(n):
            if adj[picked, j] and not removed[j]:
                deg[j] -= 1
    return core


def dag_longest_path(order, indptr, indices, weights):
    n = order.shape[0]
    dist = np.full(n, -np.inf)
    if n == 0:
        return dist
    dist[order[0]] = 0.0
    for t in range(n):
        u = order[t]
        if dist[u] == -np.inf:
            continue
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if dist[u] + weights[e] > dist[v]:
                dist[v] = dist[u] + weights[e]
    return dist


def kruskal_sorted(eu, ev, ew, n):
    parent = np.arange(n)
    total = 0
    used = 0
    for e in range(ew.shape[0]):
        ru = _find_root(parent, eu[e])
        rv = _find_root(parent, ev[e])
        if ru != rv:
            parent[ru] = rv
            total += ew[e]
            used += 1
            if used == n - 1:
                break
    return total, used


def pagerank_dangling(adj, d, tol):
    n = adj.shape[0]
    out = np.zeros(n)
    for i in range(n):
        for j in range(n):
            out[i] += adj[i, j]
    pr = np.full(n, 1.0 / n)
    new = np.empty(n)
    it = 0
    diff = 1.0
    while diff > tol and it < 100:
        dangling = 0.0
        for i in range(n):
            if out[i] == 0:
                dangling += pr[i]
        for j in range(n):
            s = 0
            for i in range(n):
                if adj[i, j]:
                    s += pr[i] / out[i]
            new[j] = (1.0 - d) / n + d * (s + dangling / n)
        diff = 0.0
        for i in range(n):
            diff += abs(new[i] - pr[i])
            pr[i] = new[i]
        it += 1
    return pr, it


def has_cycle_directed(adj):
    n = adj.shape[0]
    indeg = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for j in range(n):
            if adj[i, j]:
                indeg[j] += 1
    stack = np.empty(n, dtype=np.int64)
    top = 0
    for i in range(n):
        if indeg[i] == 0:
            stack[top] = i
            top += 1
    seen = 0
    while top > 0:
        top -= 1
        u = stack[top]
        seen += 1
        for v in range(n):
            if adj[u, v]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    stack[top] = v
                    top += 1
    return seen != n


# ---------------------------------------------------------------- physics


def nbody_leapfrog_energy(pos, vel, mass, dt, steps, eps):
    n = pos.shape[0]
    p = pos.copy()
    v = vel.copy()
    acc = np.zeros((n, 3))
    for _ in range(steps):
        for i in range(n):
            for c in range(3):
                acc[i, c] = 0.0
            for j in range(n):
                if i == j:
                    continue
                dx = p[j, 0] - p[i, 0]
                dy = p[j, 1] - p[i, 1]
                dz = p[j, 2] - p[i, 2]
                r2 = dx * dx + dy * dy + dz * dz + eps * eps
                inv = mass[j] / (r2 * math.sqrt(r2))
                acc[i, 0] += dx * inv
                acc[i, 1] += dy * inv
                acc[i, 2] += dz * inv
        for i in range(n):
            for c in range(3):
                v[i, c] += dt * acc[i, c]
                p[i, c] += dt * v[i, c]
    ke = 0
    for i in range(n):
        ke += 0.5 * mass[i] * (v[i, 0] ** 2 + v[i, 1] ** 2 + v[i, 2] ** 2)
    return p, ke


def sph_density_cells(x, y, h, mass, ncell):
    n = x.shape[0]
    cell = np.empty(n, dtype=np.int64)
    count = np.zeros(ncell * ncell + 1, dtype=np.int64)
    for i in range(n):
        cx = min(int(x[i] / h), ncell - 1)
        cy = min(int(y[i] / h), ncell - 1)
        cell[i] = cx * ncell + cy
        count[cell[i] + 1] += 1
    for c in range(ncell * ncell):
        count[c + 1] += count[c]
    fill = count.copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[fill[cell[i]]] = i
        fill[cell[i]] += 1
    rho = np.zeros(n)
    for i in range(n):
        cx = cell[i] // ncell
        cy = cell[i] % ncell
        for ox in range(-1, 2):
            for oy in range(-1, 2):
                nx = cx + ox
                ny = cy + oy
                if nx < 0 or ny < 0 or nx >= ncell or ny >= ncell:
                    continue
                c = nx * ncell + ny
                for k in range(count[c], count[c + 1]):
                    j = order[k]
                    r2 = (x[i] - x[j]) ** 2 + (y[i] - y[j]) ** 2
                    if r2 < h * h:
                        q = 1.0 - r2 / (h * h)
                        rho[i] += mass * q * q * q
    return rho


def radial_distribution(pos, box, nbins, rmax):
    n = pos.shape[0]
    hist = np.zeros(nbins, dtype=np.int64)
    dr = rmax / nbins
    for i in range(n):
        for j in range(i + 1, n):
            d2 = 0.0
            for c in range(pos.shape[1]):
                d = pos[i, c] - pos[j, c]
                d -= box * round(d / box)
                d2 += d * d
            r = math.sqrt(d2)
            if r < rmax:
                hist[int(r / dr)] += 2
    return hist


def verlet_neighbor_list(pos, cutoff):
    n = pos.shape[0]
    counts = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for j in range(n):
            if i != j:
                d2 = 0.0
                for c in range(pos.shape[1]):
                    d2 += (pos[i, c] - pos[j, c]) ** 2
                if d2 < cutoff * cutoff:
                    counts[i] += 1
    start = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        start[i + 1] = start[i] + counts[i]
    nbr = np.empty(start[n], dtype=np.int64)
    for i in range(n):
        k = start[i]
        for j in range(n):
            if i != j:
                d2 = 0.0
                for c in range(pos.shape[1]):
                    d2 += (pos[i, c] - pos[j, c]) ** 2
                if d2 < cutoff * cutoff:
                    nbr[k] = j
                    k += 1
    return start, nbr


def elastic_collisions_1d(x, v, m, dt, steps, length):
    x = x.copy()
    v = v.copy()
    n = x.shape[0]
    hits = 0
    for _ in range(steps):
        for i in range(n):
            x[i] += v[i] * dt
            if x[i] < 0.0:
                x[i] = -x[i]
                v[i] = -v[i]
            elif x[i] > length:
                x[i] = 2 * length - x[i]
                v[i] = -v[i]
        for i in range(n - 1):
            if x[i] > x[i + 1]:
                u1 = v[i]
                u2 = v[i + 1]
                mt = m[i] + m[i + 1]
                v[i] = ((m[i] - m[i + 1]) * u1 + 2 * m[i + 1] * u2) / mt
                v[i + 1] = ((m[i + 1] - m[i]) * u2 + 2 * m[i] * u1) / mt
                hits += 1
    return x, v, hits


def lj_minimum_image(pos, box, rc):
    n = pos.shape[0]
    f = np.zeros_like(pos)
    e = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dx -= box * np.rint(dx / box)
            dy -= box * np.rint(dy / box)
            r2 = dx * dx + dy * dy
            if r2 < rc * rc:
                ir6 = 1.0 / (r2 * r2 * r2)
                e += 4.0 * (ir6 * ir6 - ir6)
                ff = (48.0 * ir6 * ir6 - 24.0 * ir6) / r2
                f[i, 0] += ff * dx
                f[i, 1] += ff * dy
                f[j, 0] -= ff * dx
                f[j, 1] -= ff * dy
    return f, e


# ---------------------------------------------------------------- images


def median_filter_k(img, k):
    h, w = img.shape
    r = k // 2
    out = img.copy()
    buf = np.empty(k * k)
    for i in range(r, h - r):
        for j in range(r, w - r):
            n = 0
            for di in range(-r, r + 1):
                for dj in range(-r, r + 1):
                    buf[n] = img[i + di, j + dj]
                    n += 1
            out[i, j] = _insertion_median(buf, n)
    return out


def binary_opening(img):
    h, w = img.shape
    er = np.zeros((h, w), dtype=np.bool_)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            ok = True
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if not img[i + di, j + dj]:
                        ok = False
            er[i, j] = ok
    out = np.zeros((h, w), dtype=np.bool_)
    for i in range(h):
        for j in range(w):
            if er[i, j]:
                for di in range(-1, 2):
                    for dj in range(-1, 2):
                        y = i + di
                        x = j + dj
                        if 0 <= y < h and 0 <= x < w:
                            out[y, x] = True
    return out


def chamfer_distance(mask):
    h, w = mask.shape
    big = h + w + 1
    d = np.empty((h, w), dtype=np.int64)
    for i in range(h):
        for j in range(w):
            d[i, j] = 0 if mask[i, j] else big
    for i in range(h):
        for j in range(w):
            if i > 0:
                d[i, j] = min(d[i, j], d[i - 1, j] + 1)
            if j > 0:
                d[i, j] = min(d[i, j], d[i, j - 1] + 1)
    for i in range(h - 1, -1, -1):
        for j in range(w - 1, -1, -1):
            if i < h - 1:
                d[i, j] = min(d[i, j], d[i + 1, j] + 1)
            if j < w - 1:
                d[i, j] = min(d[i, j], d[i, j + 1] + 1)
    return d


def label_two_pass_8(img):
    h, w = img.shape
    labels = np.zeros((h, w), dtype=np.int64)
    parent = np.arange(h * w + 1)
    nxt = 1
    for i in range(h):
        for j in range(w):
            if not img[i, j]:
                continue
            best = 0
            for di, dj in ((-1, -1), (-1, 0), (-1, 1), (0, -1)):
                y = i + di
                x = j + dj
                if y >= 0 and 0 <= x < w and labels[y, x] > 0:
                    r = _find_root(parent, labels[y, x])
                    if best == 0:
                        best = r
                    elif r != best:
                        lo = min(r, best)
                        hi = max(r, best)
                        parent[hi] = lo
                        best = lo
            if best == 0:
                best = nxt
                nxt += 1
            labels[i, j] = best
    for i in range(h):
        for j in range(w):
            if labels[i, j] > 0:
                labels[i, j] = _find_root(parent, labels[i, j])
    return labels


def rotate_bilinear(img, angle):
    h, w = img.shape
    out = np.zeros((h, w))
    ca = math.cos(angle)
    sa = math.sin(angle)
    cy = (h - 1) / 2.0
    cx = (w - 1) / 2.0
    for i in range(h):
        for j in range(w):
            y = ca * (i - cy) - sa * (j - cx) + cy
            x = sa * (i - cy) + ca * (j - cx) + cx
            y0 = int(math.floor(y))
            x0 = int(math.floor(x))
            if y0 < 0 or x0 < 0 or y0 + 1 >= h or x0 + 1 >= w:
                continue
            fy = y - y0
            fx = x - x0
            out[i, j] = ((1 - fy) * ((1 - fx) * img[y0, x0] + fx * img[y0, x0 + 1])
                         + fy * ((1 - fx) * img[y0 + 1, x0] + fx * img[y0 + 1, x0 + 1]))
    return out


def nonmax_suppress(mag, ang):
    h, w = mag.shape
    out = np.zeros((h, w))
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            a = ang[i, j] * 180.0 / math.pi
            if a < 0:
                a += 180.0
            if a < 22.5 or a >= 157.5:
                q = mag[i, j + 1]
                r = mag[i, j - 1]
            elif a < 67.5:
                q = mag[i + 1, j - 1]
                r = mag[i - 1, j + 1]
            elif a < 112.5:
                q = mag[i + 1, j]
                r = mag[i - 1, j]
            else:
                q = mag[i - 1, j - 1]
                r = mag[i + 1, j + 1]
            if mag[i, j] >= q and mag[i, j] >= r:
                out[i, j] = mag[i, j]
    return out


def harris_response(img, k):
    h, w = img.shape
    ix = np.zeros((h, w))
    iy = np.zeros((h, w))
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            ix[i, j] = 0.5 * (img[i, j + 1] - img[i, j - 1])
            iy[i, j] = 0.5 * (img[i + 1, j] - img[i - 1, j])
    r = np.zeros((h, w))
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            sxx = 0
            syy = 0
            sxy = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    gx = ix[i + di, j + dj]
                    gy = iy[i + di, j + dj]
                    sxx += gx * gx
                    syy += gy * gy
                    sxy += gx * gy
            r[i, j] = sxx * syy - sxy * sxy - k * (sxx + syy) ** 2
    return r


def local_variance_integral(img, r):
    h, w = img.shape
    s1 = np.zeros((h + 1, w + 1))
    s2 = np.zeros((h + 1, w + 1))
    for i in range(h):
        for j in range(w):
            v = img[i, j]
            s1[i + 1, j + 1] = s1[i, j + 1] + s1[i + 1, j] - s1[i, j] + v
            s2[i + 1, j + 1] = s2[i, j + 1] + s2[i + 1, j] - s2[i, j] + v * v
    out = np.zeros((h, w))
    for i in range(h):
        for j in range(w):
            y0 = max(i - r, 0)
            y1 = min(i + r + 1, h)
            x0 = max(j - r, 0)
            x1 = min(j + r + 1, w)
            cnt = (y1 - y0) * (x1 - x0)
            a = s1[y1, x1] - s1[y0, x1] - s1[y1, x0] + s1[y0, x0]
            b = s2[y1, x1] - s2[y0, x1] - s2[y1, x0] + s2[y0, x0]
            m = a / cnt
            out[i, j] = b / cnt - m * m
    return out


def hog_cells(gx, gy, cell, nbins):
    h, w = gx.shape
    ch = h // cell
    cw = w // cell
    hist = np.zeros((ch, cw, nbins))
    for i in range(ch * cell):
        for j in range(cw * cell):
            mag = math.hypot(gx[i, j], gy[i, j])
            a = math.atan2(gy[i, j], gx[i, j])
            if a < 0:
                a += math.pi
            b = int(a / math.pi * nbins)
            if b == nbins:
                b = nbins - 1
            hist[i // cell, j // cell, b] += mag
    return hist


# ---------------------------------------------------------------- signals


def biquad_cascade(x, sos):
    y = x.copy()
    tmp = np.empty_like(x)
    for s in range(sos.shape[0]):
        _biquad_section(y, sos[s, 0], sos[s, 1], sos[s, 2], sos[s, 4], sos[s, 5], tmp)
        for i in range(y.shape[0]):
            y[i] = tmp[i] / sos[s, 3]
    return y


def fir_decimate(x, h, q):
    n = x.shape[0]
    m = h.shape[0]
    nout = (n + q - 1) // q
    y = np.zeros(nout)
    for k in range(nout):
        i = k * q
        acc = 0
        for t in range(m):
            if i - t >= 0:
                acc += h[t] * x[i - t]
        y[k] = acc
    return y


def dc_blocker(x, r):
    y = np.empty_like(x)
    xp = 0.0
    yp = 0.0
    for i in range(x.shape[0]):
        yp = x[i] - xp + r * yp
        xp = x[i]
        y[i] = yp
    return y


def zero_cross_interp(x, t):
    n = x.shape[0]
    times = np.empty(max(n - 1, 0))
    k = 0
    for i in range(n - 1):
        if (x[i] < 0.0) != (x[i + 1] < 0.0):
            frac = x[i] / (x[i] - x[i + 1])
            times[k] = t[i] + frac * (t[i + 1] - t[i])
            k += 1
    return times[:k]


def peak_prominence(x):
    n = x.shape[0]
    prom = np.zeros(n)
    for i in range(1, n - 1):
        if not (x[i] > x[i - 1] and x[i] >= x[i + 1]):
            continue
        left_min = x[i]
        j = i - 1
        while j >= 0 and x[j] <= x[i]:
            left_min = min(left_min, x[j])
            j -= 1
        right_min = x[i]
        j = i + 1
        while j < n and x[j] <= x[i]:
            right_min = min(right_min, x[j])
            j += 1
        prom[i] = x[i] - max(left_min, right_min)
    return prom


def rms_windows(x, w, hop):
    n = x.shape[0]
    if n < w:
        return np.zeros(0)
    nf = 1 + (n - w) // hop
    out = np.empty(nf)
    for f in range(nf):
        s = 0
        for k in range(w):
            s += x[f * hop + k] ** 2
        out[f] = math.sqrt(s / w)
    return out


def schmitt_events(x, lo, hi):
    state = x.shape[0] > 0 and x[0] > hi
    rises = 0
    falls = 0
    for i in range(x.shape[0]):
        if not state and x[i] > hi:
            state = True
            rises += 1
        elif state and x[i] < lo:
            state = False
            falls += 1
    return rises, falls


def autocorr_first_min(x, maxlag):
    n = x.shape[0]
    mean = 0
    for i in range(n):
        mean += x[i]
    mean /= max(n, 1)
    prev = np.inf
    for lag in range(maxlag):
        s = 0.0
        for i in range(n - lag):
            s += (x[i] - mean) * (x[i + lag] - mean)
        if s > prev:
            return lag - 1
        prev = s
    return -1


# ---------------------------------------------------------------- text on uint8


def kmp_count(text, pat):
    m = pat.shape[0]
    fail = np.zeros(m, dtype=np.int64)
    k = 0
    for i in range(1, m):
        while k > 0 and pat[i] != pat[k]:
            k = fail[k - 1]
        if pat[i] == pat[k]:
            k += 1
        fail[i] = k
    count = 0
    k = 0
    for i in range(text.shape[0]):
        while k > 0 and text[i] != pat[k]:
            k = fail[k - 1]
        if text[i] == pat[k]:
            k += 1
        if k == m:
            count += 1
            k = fail[k - 1]
    return count


def rle_decode_u8(values, counts):
    total = 0
    for i in range(counts.shape[0]):
        total += counts[i]
    out = np.empty(total, dtype=np.uint8)
    p = 0
    for i in range(values.shape[0]):
        for _ in range(counts[i]):
            out[p] = values[i]
            p += 1
    return out


def csv_row_sums(text):
    sums = np.zeros(text.shape[0] + 1, dtype=np.int64)
    row = 0
    field = 0
    neg = False
    for i in range(text.shape[0]):
        c = text[i]
        if c == 45:
            neg = True
        elif 48 <= c <= 57:
            field = field * 10 + (c - 48)
        elif c == 44 or c == 10:
            sums[row] += -field if neg else field
            field = 0
            neg = False
            if c == 10:
                row += 1
    sums[row] += -field if neg else field
    return sums[:row + 1]


def is_palindrome_alnum(text):
    i = 0
    j = text.shape[0] - 1
    while i < j:
        a = text[i]
        b = text[j]
        if not (48 <= a <= 57 or 65 <= a <= 90 or 97 <= a <= 122):
            i += 1
            continue
        if not (48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122):
            j -= 1
            continue
        if 65 <= a <= 90:
            a += 32
        if 65 <= b <= 90:
            b += 32
        if a != b:
            return False
        i += 1
        j -= 1
    return True


def word_length_histogram(text, maxlen):
    hist = np.zeros(maxlen + 1, dtype=np.int64)
    cur = 0
    for i in range(text.shape[0]):
        c = text[i]
        if c == 32 or c == 10 or c == 9:
            if cur > 0:
                hist[min(cur, maxlen)] += 1
            cur = 0
        else:
            cur += 1
    if cur > 0:
        hist[min(cur, maxlen)] += 1
    return hist


def hex_decode_u8(text):
    n = text.shape[0] // 2
    out = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        v = 0
        for t in range(2):
            c = text[2 * i + t]
            if 48 <= c <= 57:
                d = c - 48
            elif 97 <= c <= 102:
                d = c - 87
            else:
                return out[:i]
            v = v * 16 + d
        out[i] = v
    return out


# ---------------------------------------------------------------- integers and bits


def murmur_fmix_array(keys):
    out = np.empty_like(keys)
    for i in range(keys.shape[0]):
        out[i] = _fmix64(keys[i])
    return out


def morton3d_codes(x, y, z):
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = _spread_bits3(x[i]) | (_spread_bits3(y[i]) << 1) | (_spread_bits3(z[i]) << 2)
    return out


def kernighan_popcount(x):
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        v = x[i]
        c = 0
        while v:
            v &= v - 1
            c += 1
        out[i] = c
    return out


def extended_gcd_pairs(a, b):
    n = a.shape[0]
    g = np.empty(n, dtype=np.int64)
    s = np.empty(n, dtype=np.int64)
    t = np.empty(n, dtype=np.int64)
    for i in range(n):
        old_r, r = a[i], b[i]
        old_s, s_ = 1, 0
        old_t, t_ = 0, 1
        while r != 0:
            q = old_r // r
            old_r, r = r, old_r - q * r
            old_s, s_ = s_, old_s - q * s_
            old_t, t_ = t_, old_t - q * t_
        g[i] = old_r
        s[i] = old_s
        t[i] = old_t
    return g, s, t


def splitmix64_fill(seed, n):
    out = np.empty(n, dtype=np.uint64)
    state = np.uint64(seed)
    for i in range(n):
        state += np.uint64(0x9E3779B97F4A7C15)
        z = state
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out[i] = z ^ (z >> np.uint64(31))
    return out


def bloom_insert_query(inserts, queries, nbits):
    bits = np.zeros(nbits, dtype=np.bool_)
    for i in range(inserts.shape[0]):
        h1 = (inserts[i] * 2654435761) % nbits
        h2 = (inserts[i] * 40503 + 7) % nbits
        bits[h1] = True
        bits[h2] = True
    hits = np.zeros(queries.shape[0], dtype=np.bool_)
    for i in range(queries.shape[0]):
        h1 = (queries[i] * 2654435761) % nbits
        h2 = (queries[i] * 40503 + 7) % nbits
        hits[i] = bits[h1] and bits[h2]
    return hits


def gcd_recursive_helper(a, b):
    out = np.empty(a.shape[0], dtype=np.int64)
    for i in range(a.shape[0]):
        out[i] = _gcd_rec(a[i], b[i])
    return out


# ---------------------------------------------------------------- while loops to convergence


def kepler_solve(mean_anom, ecc, tol):
    out = np.empty(mean_anom.shape[0])
    iters = 0
    for i in range(mean_anom.shape[0]):
        m = mean_anom[i]
        e = m if ecc < 0.8 else math.pi
        delta = 1.0
        while abs(delta) > tol:
            delta = (e - ecc * math.sin(e) - m) / (1.0 - ecc * math.cos(e))
            e -= delta
            iters += 1
        out[i] = e
    return out, iters


def power_method_tol(A, tol, maxit):
    n = A.shape[0]
    v = np.ones(n) / math.sqrt(n)
    lam = 0.0
    for it in range(maxit):
        w = np.zeros(n)
        for i in range(n):
            for j in range(n):
                w[i] += A[i, j] * v[j]
        norm = 0
        for i in range(n):
            norm += w[i] * w[i]
        norm = math.sqrt(norm)
        new_lam = 0.0
        for i in range(n):
            new_lam += v[i] * w[i]
        for i in range(n):
            v[i] = w[i] / norm
        if abs(new_lam - lam) < tol:
            return new_lam, it + 1
        lam = new_lam
    return lam, maxit


def halley_cbrt(a, tol):
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        x = a[i] if a[i] > 1.0 else 1.0
        while True:
            x3 = x * x * x
            nx = x * (x3 + 2 * a[i]) / (2 * x3 + a[i])
            if abs(nx - x) <= tol * nx:
                x = nx
                break
            x = nx
        out[i] = x
    return out


def fixed_point_logistic(r, x0, tol, maxit):
    out = np.empty(r.shape[0])
    used = np.zeros(r.shape[0], dtype=np.int64)
    for i in range(r.shape[0]):
        x = x0
        k = 0
        while k < maxit:
            nx = r[i] * x * (1.0 - x)
            k += 1
            if abs(nx - x) < tol:
                x = nx
                break
            x = nx
        out[i] = x
        used[i] = k
    return out, used


def early_exit_negative_then_count(x, thr):
    for i in range(x.shape[0]):
        if x[i] < -3.0:
            return np.empty(0)
    k = 0
    for i in range(x.shape[0]):
        if x[i] > thr:
            k += 1
    out = np.empty(k)
    p = 0
    for i in range(x.shape[0]):
        if x[i] > thr:
            out[p] = x[i]
            p += 1
    return out


def mean_or_none_sum(x):
    if x.shape[0] == 0:
        return 0.0
    s = 0
    for v in x:
        s += v
    return s / x.shape[0]


# ---------------------------------------------------------------- inputs


def _csr(rng, n, density=0.4, diag=False):
    dense = np.where(rng.random((n, n)) < density, rng.standard_normal((n, n)), 0.0)
    if diag:
        dense[np.arange(n), np.arange(n)] = 2.0 + n + rng.random(n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = []
    data = []
    for i in range(n):
        for j in range(n):
            if dense[i, j] != 0.0:
                indices.append(j)
                data.append(dense[i, j])
        indptr[i + 1] = len(indices)
    return indptr, np.array(indices, dtype=np.int64), np.array(data, dtype=np.float64)


def _lower_csr(rng, n):
    indptr, indices, data = _csr(rng, n, diag=True)
    keep = np.zeros(indices.shape[0], dtype=bool)
    ptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            keep[k] = indices[k] <= i
        ptr[i + 1] = ptr[i] + keep[indptr[i]:indptr[i + 1]].sum()
    return ptr, indices[keep].copy(), data[keep].copy()


def _ell(rng, n, w=3):
    cols = rng.integers(0, n, (n, w))
    for i in range(n):
        cut = rng.integers(0, w + 1)
        cols[i, cut:] = -1
    return cols, rng.standard_normal((n, w)), rng.standard_normal(n)


def _adj(rng, n, p=0.35, sym=True, dtype=np.bool_):
    a = rng.random((n, n)) < p
    np.fill_diagonal(a, False)
    if sym:
        a = a | a.T
    return a.astype(dtype)


def _dag(rng, n):
    order = rng.permutation(n)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = []
    for u in range(n):
        for v in range(n):
            if rank[v] > rank[u] and rng.random() < 0.4:
                indices.append(v)
        indptr[u + 1] = len(indices)
    ind = np.array(indices, dtype=np.int64)
    return order.astype(np.int64), indptr, ind, rng.standard_normal(ind.shape[0])


def _edges_sorted(rng, n):
    m = 2 * n
    eu = rng.integers(0, max(n, 1), m)
    ev = rng.integers(0, max(n, 1), m)
    ew = np.sort(rng.integers(1, 20, m))
    return eu, ev, ew, n


def _text(rng, n=None, alphabet=b"ab c\n12 Zx9\tA,-"):
    chars = np.frombuffer(alphabet, dtype=np.uint8)
    return chars[rng.integers(0, chars.shape[0], _n(rng, 16) if n is None else n)]


def _csv(rng):
    rows = []
    for _ in range(_n(rng, 3, 1)):
        rows.append(",".join(str(int(v)) for v in rng.integers(-50, 200, 3)))
    return (np.frombuffer("\n".join(rows).encode(), dtype=np.uint8).copy(),)


def _hex(rng):
    digits = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    t = digits[rng.integers(0, 16, 2 * _n(rng, 5))].copy()
    if t.shape[0] and rng.integers(0, 2):
        t[rng.integers(0, t.shape[0])] = ord("g")
    return (t,)


def _ohlc(rng, n):
    close = 100 + np.cumsum(rng.standard_normal(n))
    high = close + rng.random(n)
    low = close - rng.random(n)
    return high, low, close


def _hmm(rng):
    S, K, T = 3, 4, _n(rng, 6, 1)
    A = rng.random((S, S)) + 0.1
    A /= A.sum(1, keepdims=True)
    B = rng.random((S, K)) + 0.1
    B /= B.sum(1, keepdims=True)
    pi = rng.random(S) + 0.1
    return rng.integers(0, K, T), A, B, pi / pi.sum()


def _intervals(rng):
    n = _n(rng, 6)
    start = rng.random(n) * 10
    end = start + rng.random(n) * 3
    o = np.argsort(end)
    return start[o].copy(), end[o].copy(), rng.random(n) * 5


def _sph(rng):
    n = _n(rng, 10)
    return rng.random(n) * 3.0, rng.random(n) * 3.0, 0.75, 1.5, 4


def _orbit(rng):
    n = _n(rng, 4, 1)
    return (rng.standard_normal((n, 3)), 0.1 * rng.standard_normal((n, 3)), 0.5 + rng.random(n),
            0.01, 3, 0.1)


def _spd(rng, n):
    a = rng.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


# finance
_add("trinomial_call", trinomial_call, lambda r: (100.0, 90.0 + 20 * r.random(), 1.0, 0.03, 0.2, _n(r, 20, 1)))
_add("barrier_knockout_mc", barrier_knockout_mc,
     lambda r: (r.standard_normal((_n(r, 6), 5)), 100.0, 100.0, 110.0 + 10 * r.random(), 0.02, 0.3, 0.02))
_add("lookback_floating_mc", lookback_floating_mc,
     lambda r: (r.standard_normal((_n(r, 5), _n(r, 6))), 50.0, 0.01, 0.25, 1 / 52))
_add("garch11_variance", garch11_variance, lambda r: (0.01 * r.standard_normal(_n(r, 9)), 1e-6, 0.08, 0.9))
_add("implied_vol_bisect", implied_vol_bisect,
     lambda r: (lambda k: (np.array([_bs_call(100.0, kk, 0.5, 0.01, 0.1 + 0.4 * r.random()) for kk in k]),
                           100.0, k, 0.5, 0.01))(80 + 40 * r.random(_n(r, 4))))
_add("bond_ytm_newton", bond_ytm_newton, lambda r: (90.0 + 20 * r.random(), 4.0, 100.0, int(r.integers(1, 12))))
_add("amortization_schedule", amortization_schedule, lambda r: (1000.0 * (1 + r.random()), 0.01, _n(r, 12, 1)))
_add("stochastic_oscillator", stochastic_oscillator, lambda r: _ohlc(r, _n(r, 10)) + (3,))
_add("atr_wilder", atr_wilder, lambda r: _ohlc(r, _n(r, 10, 3)) + (3,))
_add("underwater_stats", underwater_stats, lambda r: (100 + np.cumsum(r.standard_normal(_n(r, 12))),))
_add("heston_euler_paths", heston_euler_paths,
     lambda r: (lambda s: (r.standard_normal(s), r.standard_normal(s), 100.0, 0.04, 1.5, 0.04, 0.5, -0.7, 0.01,
                           1 / 52))((_n(r, 4), 6)))
_add("portfolio_rebalance", portfolio_rebalance,
     lambda r: (50 + r.random((_n(r, 6), 3)) * 10, np.array([0.5, 0.3, 0.2])))
# dynamic programming
_add("knapsack_items", knapsack_items,
     lambda r: (lambda n: (r.integers(1, 6, n), r.integers(1, 10, n), int(r.integers(0, 12))))(_n(r, 5)))
_add("edit_ops_traceback", edit_ops_traceback, lambda r: (r.integers(0, 3, _n(r, 6)), r.integers(0, 3, 5)))
_add("lcs_indices", lcs_indices, lambda r: (r.integers(0, 3, _n(r, 7)), r.integers(0, 3, 6)))
_add("rod_cutting", rod_cutting, lambda r: (np.cumsum(r.random(4) * 3), _n(r, 8)))
_add("longest_palindromic_subseq", longest_palindromic_subseq, lambda r: (r.integers(0, 3, _n(r, 8)),))
_add("min_path_grid", min_path_grid, lambda r: (r.random((_n(r, 4, 1), _n(r, 5, 1))),))
_add("weighted_intervals", weighted_intervals, _intervals)
_add("subset_sum_exists", subset_sum_exists, lambda r: (r.integers(1, 8, _n(r, 5)), int(r.integers(0, 15))))
_add("largest_square_ones", largest_square_ones, lambda r: (r.random((_n(r, 5), 6)) < 0.7,))
_add("hmm_forward_backward", hmm_forward_backward, _hmm)
_add("dtw_path_length", dtw_path_length, lambda r: (r.standard_normal(_n(r, 6, 1)), r.standard_normal(_n(r, 5, 2))))
# sparse
_add("ell_spmv", ell_spmv, lambda r: _ell(r, _n(r, 6)))
_add("coo_spmv_accumulate", coo_spmv_accumulate,
     lambda r: (lambda m: (r.integers(0, 5, m), r.integers(0, 4, m), r.standard_normal(m), r.standard_normal(4), 5))(
         _n(r, 9)))
_add("csr_lower_solve", csr_lower_solve, lambda r: (lambda n: _lower_csr(r, n) + (r.standard_normal(n),))(_n(r, 5)))
_add("csr_times_dense", csr_times_dense, lambda r: (lambda n: _csr(r, n) + (r.standard_normal((n, 3)),))(_n(r, 5)))
_add("csr_row_normalize_l1", csr_row_normalize_l1, lambda r: (lambda c: (c[0], c[2]))(_csr(r, _n(r, 5))))
_add("csr_jacobi_iterate", csr_jacobi_iterate,
     lambda r: (lambda n: _csr(r, n, diag=True) + (r.standard_normal(n), 4))(_n(r, 5)))
_add("coo_duplicates_sum", coo_duplicates_sum,
     lambda r: (lambda k: (k // 4, k % 4, r.standard_normal(k.shape[0]), 4, 4))(np.sort(r.integers(0, 16, _n(r, 9)))))
# graphs
_add("bfs_parents_dense", bfs_parents_dense, lambda r: (_adj(r, 6), int(r.integers(0, 6))))
_add("dfs_preorder_stack", dfs_preorder_stack,
     lambda r: (lambda c: (c[0], c[1], int(r.integers(0, 5))))(_csr(r, 5)))
_add("bipartite_coloring", bipartite_coloring, lambda r: (_adj(r, _n(r, 6), p=0.2),))
_add("k_core_numbers", k_core_numbers, lambda r: (_adj(r, _n(r, 7), dtype=np.int8),))
_add("dag_longest_path", dag_longest_path, lambda r: _dag(r, _n(r, 6)))
_add("kruskal_sorted", kruskal_sorted, lambda r: _edges_sorted(r, _n(r, 6, 1)))
_add("pagerank_dangling", pagerank_dangling, lambda r: (_adj(r, _n(r, 6, 1), sym=False, dtype=np.float64), 0.85, 1e-10))
_add("has_cycle_directed", has_cycle_directed, lambda r: (_adj(r, _n(r, 6), p=0.2, sym=False),))
# physics
_add("nbody_leapfrog_energy", nbody_leapfrog_energy, _orbit)
_add("sph_density_cells", sph_density_cells, _sph)
_add("radial_distribution", radial_distribution,
     lambda r: (r.random((_n(r, 8), 3)) * 2.0, 2.0, 5, 1.0))
_add("verlet_neighbor_list", verlet_neighbor_list, lambda r: (r.random((_n(r, 7), 2)), 0.5))
_add("elastic_collisions_1d", elastic_collisions_1d,
     lambda r: (lambda n: (np.sort(r.random(n)) * 5, r.standard_normal(n), 1 + r.random(n), 0.05, 6, 5.0))(_n(r, 5)))
_add("lj_minimum_image", lj_minimum_image, lambda r: (r.random((_n(r, 6), 2)) * 4.0, 4.0, 2.5))
# images
_add("median_filter_k", median_filter_k, lambda r: (r.random((_n(r, 6, 2), 7)), 3 if r.integers(0, 2) else 5))
_add("binary_opening", binary_opening, lambda r: (r.random((_n(r, 6, 1), 7)) < 0.75,))
_add("chamfer_distance", chamfer_distance, lambda r: (r.random((_n(r, 5), 6)) < 0.15,))
_add("label_two_pass_8", label_two_pass_8, lambda r: (r.random((_n(r, 6), 7)) < 0.45,))
_add("rotate_bilinear", rotate_bilinear, lambda r: (r.random((_n(r, 6, 1), 5)), r.random() * 3))
_add("nonmax_suppress", nonmax_suppress,
     lambda r: (lambda s: (r.random(s), (r.random(s) - 0.5) * 2 * np.pi))((_n(r, 5, 2), 6)))
_add("harris_response", harris_response, lambda r: (r.random((_n(r, 6, 2), 6)), 0.05))
_add("local_variance_integral", local_variance_integral, lambda r: (r.random((_n(r, 5), 6)), 1))
_add("hog_cells", hog_cells,
     lambda r: (lambda s: (r.standard_normal(s), r.standard_normal(s), 2, 6))((_n(r, 6, 1), 5)))
# signals
_add("biquad_cascade", biquad_cascade,
     lambda r: (r.standard_normal(_n(r, 12)),
                np.array([[0.2, 0.4, 0.2, 1.0, -0.3, 0.1], [0.5, -0.2, 0.1, 1.0, 0.2, 0.05]])))
_add("fir_decimate", fir_decimate, lambda r: (r.standard_normal(_n(r, 11)), r.random(4), 3))
_add("dc_blocker", dc_blocker, lambda r: (1.0 + r.standard_normal(_n(r, 10)), 0.995))
_add("zero_cross_interp", zero_cross_interp,
     lambda r: (lambda n: (r.standard_normal(n), np.arange(n) * 0.1))(_n(r, 10)))
_add("peak_prominence", peak_prominence, lambda r: (r.standard_normal(_n(r, 12)),))
_add("rms_windows", rms_windows, lambda r: (r.standard_normal(_n(r, 11, 2)), 4, 2))
_add("schmitt_events", schmitt_events,
     lambda r: (lambda n: (np.sin(np.arange(n) * 0.7) + 0.3 * r.standard_normal(n), -0.5, 0.5))(_n(r, 20)))
_add("autocorr_first_min", autocorr_first_min,
     lambda r: (lambda n: (np.sin(np.arange(n) * 0.5) + 0.1 * r.standard_normal(n), 8))(_n(r, 16)))
# text
_add("kmp_count", kmp_count, lambda r: (_text(r, alphabet=b"abab"), np.frombuffer(b"aba", dtype=np.uint8).copy()))
_add("rle_decode_u8", rle_decode_u8, lambda r: (lambda n: (_text(r, n), r.integers(0, 4, n)))(_n(r, 5)))
_add("csv_row_sums", csv_row_sums, _csv)
_add("is_palindrome_alnum", is_palindrome_alnum,
     lambda r: (lambda t: (np.concatenate([t, t[::-1]]) if r.integers(0, 2) else t,))(_text(r, _n(r, 5))))
_add("word_length_histogram", word_length_histogram, lambda r: (_text(r), 4))
_add("hex_decode_u8", hex_decode_u8, _hex)
# integers and bits
_add("murmur_fmix_array", murmur_fmix_array, lambda r: (r.integers(0, 2**63, _n(r, 6), dtype=np.uint64),))
_add("morton3d_codes", morton3d_codes, lambda r: tuple(r.integers(0, 1024, 5) for _ in range(3)))
_add("kernighan_popcount", kernighan_popcount, lambda r: (r.integers(0, 2**40, _n(r, 6)),))
_add("extended_gcd_pairs", extended_gcd_pairs,
     lambda r: (lambda n: (r.integers(1, 200, n), r.integers(0, 200, n)))(_n(r, 6)))
_add("splitmix64_fill", splitmix64_fill, lambda r: (int(r.integers(0, 2**62)), _n(r, 5)))
_add("bloom_insert_query", bloom_insert_query, lambda r: (r.integers(0, 1000, _n(r, 6)), r.integers(0, 1000, 8), 61))
_add("gcd_recursive_helper", gcd_recursive_helper,
     lambda r: (lambda n: (r.integers(1, 100, n), r.integers(1, 100, n)))(_n(r, 5)))
# while loops to convergence, early exits
_add("kepler_solve", kepler_solve, lambda r: (r.random(_n(r, 6)) * 2 * np.pi, 0.3 + 0.6 * r.random(), 1e-12))
_add("power_method_tol", power_method_tol, lambda r: (_spd(r, _n(r, 4, 1)), 1e-9, 200))
_add("fixed_point_logistic", fixed_point_logistic, lambda r: (1.5 + 1.5 * r.random(_n(r, 5)), 0.3, 1e-10, 50))
_add("early_exit_negative_then_count", early_exit_negative_then_count,
     lambda r: (r.standard_normal(_n(r, 9)) * (1.0 if r.integers(0, 2) else 2.5), 0.2))
_add("mean_or_none_sum", mean_or_none_sum, lambda r: (r.standard_normal(_n(r, 7)),))
_add("halley_cbrt", halley_cbrt, lambda r: (r.random(_n(r, 6)) * 30, 1e-14))
