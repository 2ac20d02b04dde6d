"""fe39's batch: kernels as third-party numba code writes them (numba's examples, blog posts,
course notes): escape-time fractals, n-body and Lennard-Jones with cutoffs, Metropolis on
pre-drawn numbers, k-means / DBSCAN steps, DP tables (edit distance, LCS, knapsack, DTW, Viterbi),
graphs on edge and CSR arrays with explicit queues, FIR/IIR filters, Black-Scholes with math.erf,
CRR trees, Monte Carlo on given normals, Sobel / bilinear / histogram equalisation, sorts and
two-pointer merges, transposed SpMV, scans, early exits, @njit / numba.jit helpers, tuple
returns, np.empty inside, while loops; written before looking at what is supported.  Its two-pointer
pair_with_sum was numba_fe22's two_sum_sorted (same body and argument types, in the corpus): dropped."""

import math

import numba
import numpy as np
from corpus_case import Case
from numba import jit, njit, prange


def _n(rng, big=7, edge=0):
    return big if rng.integers(0, 3) else edge


# ---------------------------------------------------------------- helpers, as numba code has them


@njit(cache=True)
def _cnd(d):
    return 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))


@numba.jit(nopython=True)
def _sigmoid(z):
    return 1.0 / (1.0 + math.exp(-z))


@jit(nopython=True, fastmath=True)
def _dist2(a, b, i, j):
    acc = 0.0
    for k in range(a.shape[1]):
        t = a[i, k] - b[j, k]
        acc += t * t
    return acc


@njit
def _min3(a, b, c):
    m = a
    if b < m:
        m = b
    if c < m:
        m = c
    return m


@njit(inline="always")
def _clampi(v, lo, hi):
    return max(lo, min(v, hi))


# ---------------------------------------------------------------- fractals


def julia_escape(xs, ys, cr, ci, max_iter):
    out = np.empty((ys.shape[0], xs.shape[0]), dtype=np.int32)
    for j in range(ys.shape[0]):
        for i in range(xs.shape[0]):
            zr = xs[i]
            zi = ys[j]
            n = 0
            while zr * zr + zi * zi <= 4.0 and n < max_iter:
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                n += 1
            out[j, i] = n
    return out


def mandel_complex(xs, ys, max_iter):
    img = np.zeros((ys.shape[0], xs.shape[0]), dtype=np.uint8)
    for j in range(ys.shape[0]):
        for i in range(xs.shape[0]):
            c = complex(xs[i], ys[j])
            z = 0.0j
            for k in range(max_iter):
                z = z * z + c
                if (z.real * z.real + z.imag * z.imag) >= 4:
                    img[j, i] = k
                    break
    return img


def mandel_smooth(xs, ys, max_iter):
    out = np.zeros((ys.shape[0], xs.shape[0]))
    for j in prange(ys.shape[0]):
        for i in range(xs.shape[0]):
            x = 0.0
            y = 0.0
            it = 0
            while x * x + y * y < 256.0 and it < max_iter:
                x, y = x * x - y * y + xs[i], 2 * x * y + ys[j]
                it += 1
            if it < max_iter:
                out[j, i] = it + 1 - math.log(math.log(math.sqrt(x * x + y * y))) / math.log(2.0)
    return out


# ---------------------------------------------------------------- particles


def nbody_energy(pos, vel, mass):
    ke = 0.0
    pe = 0.0
    n = len(mass)
    for i in range(n):
        ke += 0.5 * mass[i] * (vel[i, 0] ** 2 + vel[i, 1] ** 2 + vel[i, 2] ** 2)
        for j in range(i + 1, n):
            r = math.sqrt(_dist2(pos, pos, i, j))
            pe -= mass[i] * mass[j] / r
    return ke, pe


def lj_cutoff_forces(pos, box, rc):
    n = pos.shape[0]
    f = np.zeros_like(pos)
    rc2 = rc * rc
    energy = 0.0
    for i in range(n - 1):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dx -= box * round(dx / box)
            dy -= box * round(dy / box)
            r2 = dx * dx + dy * dy
            if r2 > rc2:
                continue
            ir2 = 1.0 / r2
            ir6 = ir2 * ir2 * ir2
            ff = 48.0 * ir2 * ir6 * (ir6 - 0.5)
            f[i, 0] += ff * dx
            f[i, 1] += ff * dy
            f[j, 0] -= ff * dx
            f[j, 1] -= ff * dy
            energy += 4.0 * ir6 * (ir6 - 1.0)
    return f, energy


def ising_metropolis(spins, rand, beta):
    s = spins.copy()
    L = s.shape[0]
    accepted = 0
    for sweep in range(rand.shape[0]):
        for i in range(L):
            for j in range(L):
                nb = s[(i + 1) % L, j] + s[(i - 1) % L, j] + s[i, (j + 1) % L] + s[i, (j - 1) % L]
                dE = 2 * s[i, j] * nb
                if dE <= 0 or rand[sweep, i, j] < math.exp(-beta * dE):
                    s[i, j] = -s[i, j]
                    accepted += 1
    return s, accepted


def random_walk_reflect(steps, lo, hi):
    x = np.empty(steps.shape[0] + 1)
    x[0] = 0.0
    bounces = 0
    for t in range(steps.shape[0]):
        nx = x[t] + steps[t]
        if nx > hi:
            nx = 2 * hi - nx
            bounces += 1
        elif nx < lo:
            nx = 2 * lo - nx
            bounces += 1
        x[t + 1] = nx
    return x, bounces


# ---------------------------------------------------------------- clustering


def kmeans_one_step(X, C):
    n, d = X.shape
    k = C.shape[0]
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = 0
        bestd = _dist2(X, C, i, 0)
        for c in range(1, k):
            dd = _dist2(X, C, i, c)
            if dd < bestd:
                bestd = dd
                best = c
        labels[i] = best
    newC = np.zeros((k, d))
    counts = np.zeros(k, dtype=np.int64)
    for i in range(n):
        counts[labels[i]] += 1
        for q in range(d):
            newC[labels[i], q] += X[i, q]
    for c in range(k):
        if counts[c] > 0:
            for q in range(d):
                newC[c, q] /= counts[c]
        else:
            for q in range(d):
                newC[c, q] = C[c, q]
    return labels, newC


def dbscan_core(X, eps, min_pts):
    n = X.shape[0]
    counts = np.zeros(n, dtype=np.int64)
    eps2 = eps * eps
    for i in prange(n):
        c = 0
        for j in range(n):
            if _dist2(X, X, i, j) <= eps2:
                c += 1
        counts[i] = c
    core = counts >= min_pts
    return counts, core


# ---------------------------------------------------------------- dynamic programming


def edit_distance_ints(a, b):
    n = len(a)
    m = len(b)
    D = np.empty((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        D[i, 0] = i
    for j in range(m + 1):
        D[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = _min3(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[n, m]


def lcs_backtrack(a, b):
    n, m = a.shape[0], b.shape[0]
    L = np.zeros((n + 1, m + 1), dtype=np.int32)
    for i in range(n):
        for j in range(m):
            if a[i] == b[j]:
                L[i + 1, j + 1] = L[i, j] + 1
            else:
                L[i + 1, j + 1] = max(L[i, j + 1], L[i + 1, j])
    out = np.empty(L[n, m], dtype=a.dtype)
    i, j, k = n, m, L[n, m]
    while i > 0 and j > 0:
        if a[i - 1] == b[j - 1]:
            k -= 1
            out[k] = a[i - 1]
            i -= 1
            j -= 1
        elif L[i - 1, j] >= L[i, j - 1]:
            i -= 1
        else:
            j -= 1
    return out


def knapsack_rolling(w, v, cap):
    best = np.zeros(cap + 1, dtype=np.int64)
    for i in range(w.shape[0]):
        wi = w[i]
        for c in range(cap, wi - 1, -1):
            cand = best[c - wi] + v[i]
            if cand > best[c]:
                best[c] = cand
    return best[cap]


def dtw_window(x, y, w):
    n, m = len(x), len(y)
    w = max(w, abs(n - m))
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(max(1, i - w), min(m, i + w) + 1):
            cost = abs(x[i - 1] - y[j - 1])
            D[i, j] = cost + min(D[i - 1, j], D[i, j - 1], D[i - 1, j - 1])
    return D[n, m]


def viterbi_path(log_pi, log_A, log_B, obs):
    T = obs.shape[0]
    S = log_pi.shape[0]
    delta = np.empty((T, S))
    psi = np.zeros((T, S), dtype=np.int64)
    for s in range(S):
        delta[0, s] = log_pi[s] + log_B[s, obs[0]]
    for t in range(1, T):
        for s in range(S):
            bi = 0
            bv = delta[t - 1, 0] + log_A[0, s]
            for r in range(1, S):
                val = delta[t - 1, r] + log_A[r, s]
                if val > bv:
                    bv = val
                    bi = r
            delta[t, s] = bv + log_B[s, obs[t]]
            psi[t, s] = bi
    path = np.empty(T, dtype=np.int64)
    last = 0
    for s in range(1, S):
        if delta[T - 1, s] > delta[T - 1, last]:
            last = s
    path[T - 1] = last
    for t in range(T - 1, 0, -1):
        path[t - 1] = psi[t, path[t]]
    return path, delta[T - 1, last]


def coin_min_count(coins, amount):
    INF = amount + 1
    dp = np.full(amount + 1, INF, dtype=np.int64)
    dp[0] = 0
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a and dp[a - c] + 1 < dp[a]:
                dp[a] = dp[a - c] + 1
    return -1 if dp[amount] > amount else dp[amount]


# ---------------------------------------------------------------- graphs


def bellman_ford_check(src, dst, wt, n, s):
    dist = np.full(n, np.inf)
    dist[s] = 0.0
    for _ in range(n - 1):
        changed = False
        for e in range(src.shape[0]):
            u = src[e]
            if dist[u] + wt[e] < dist[dst[e]]:
                dist[dst[e]] = dist[u] + wt[e]
                changed = True
        if not changed:
            break
    neg = False
    for e in range(src.shape[0]):
        if dist[src[e]] + wt[e] < dist[dst[e]]:
            neg = True
    return dist, neg


def pagerank_csr(indptr, indices, n_iter, d):
    n = indptr.shape[0] - 1
    outdeg = np.zeros(n, dtype=np.int64)
    for u in range(n):
        outdeg[u] = indptr[u + 1] - indptr[u]
    r = np.full(n, 1.0 / n)
    for _ in range(n_iter):
        nr = np.full(n, (1.0 - d) / n)
        dangling = 0.0
        for u in range(n):
            if outdeg[u] == 0:
                dangling += r[u]
            else:
                share = d * r[u] / outdeg[u]
                for k in range(indptr[u], indptr[u + 1]):
                    nr[indices[k]] += share
        for u in range(n):
            nr[u] += d * dangling / n
        r = nr
    return r


def bfs_queue(indptr, indices, start):
    n = indptr.shape[0] - 1
    dist = -np.ones(n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    queue[tail] = start
    tail += 1
    dist[start] = 0
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue[tail] = v
                tail += 1
    return dist, tail


def components_label_prop(src, dst, n):
    label = np.arange(n)
    changed = True
    rounds = 0
    while changed:
        changed = False
        rounds += 1
        for e in range(src.shape[0]):
            a = label[src[e]]
            b = label[dst[e]]
            if a < b:
                label[dst[e]] = a
                changed = True
            elif b < a:
                label[src[e]] = b
                changed = True
    return label, rounds


# ---------------------------------------------------------------- signal processing


def fir_same(x, h):
    n = x.shape[0]
    m = h.shape[0]
    half = m // 2
    y = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for k in range(m):
            j = i + half - k
            if 0 <= j < n:
                acc += h[k] * x[j]
        y[i] = acc
    return y


def iir_df1(b, a, x):
    y = np.zeros_like(x)
    for n in range(len(x)):
        acc = 0.0
        for k in range(len(b)):
            if n - k >= 0:
                acc += b[k] * x[n - k]
        for k in range(1, len(a)):
            if n - k >= 0:
                acc -= a[k] * y[n - k]
        y[n] = acc / a[0]
    return y


def autocorr_normalized(x, maxlag):
    n = x.shape[0]
    mu = 0.0
    for i in range(n):
        mu += x[i]
    mu /= n
    var = 0.0
    for i in range(n):
        var += (x[i] - mu) ** 2
    r = np.empty(maxlag + 1)
    for lag in range(maxlag + 1):
        s = 0.0
        for i in range(n - lag):
            s += (x[i] - mu) * (x[i + lag] - mu)
        r[lag] = s / var
    return r


def moving_median_odd(x, k):
    n = x.shape[0]
    half = k // 2
    out = np.empty(n)
    buf = np.empty(k)
    for i in range(n):
        m = 0
        for j in range(i - half, i + half + 1):
            jj = _clampi(j, 0, n - 1)
            v = x[jj]
            p = m
            while p > 0 and buf[p - 1] > v:
                buf[p] = buf[p - 1]
                p -= 1
            buf[p] = v
            m += 1
        out[i] = buf[half]
    return out


def zero_crossings(x):
    count = 0
    for i in range(1, x.size):
        if (x[i - 1] < 0) != (x[i] < 0):
            count += 1
    return count


# ---------------------------------------------------------------- finance


def bs_erf_prices(S, K, T, r, sigma):
    n = S.shape[0]
    call = np.empty(n)
    put = np.empty(n)
    for i in range(n):
        sqrtT = math.sqrt(T[i])
        d1 = (math.log(S[i] / K[i]) + (r + 0.5 * sigma * sigma) * T[i]) / (sigma * sqrtT)
        d2 = d1 - sigma * sqrtT
        disc = math.exp(-r * T[i])
        call[i] = S[i] * _cnd(d1) - K[i] * disc * _cnd(d2)
        put[i] = K[i] * disc * _cnd(-d2) - S[i] * _cnd(-d1)
    return call, put


def crr_european(S, K, T, r, sigma, steps, is_call):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    values = np.empty(steps + 1)
    for j in range(steps + 1):
        ST = S * u ** j * d ** (steps - j)
        values[j] = max(ST - K, 0.0) if is_call else max(K - ST, 0.0)
    for i in range(steps - 1, -1, -1):
        for j in range(i + 1):
            values[j] = disc * (p * values[j + 1] + (1 - p) * values[j])
    return values[0]


def mc_european_given(Z, S0, K, r, sigma, T):
    n = Z.shape[0]
    drift = (r - 0.5 * sigma ** 2) * T
    vol = sigma * math.sqrt(T)
    total = 0.0
    total2 = 0.0
    for i in range(n):
        payoff = max(S0 * math.exp(drift + vol * Z[i]) - K, 0.0)
        total += payoff
        total2 += payoff * payoff
    mean = total / n
    var = total2 / n - mean * mean
    disc = math.exp(-r * T)
    return disc * mean, disc * math.sqrt(var / n)


def ewma_vol(returns, lam):
    var = returns[0] ** 2
    out = np.empty_like(returns)
    out[0] = math.sqrt(var)
    for t in range(1, returns.shape[0]):
        var = lam * var + (1.0 - lam) * returns[t - 1] ** 2
        out[t] = math.sqrt(var)
    return out


# ---------------------------------------------------------------- images


def sobel_hypot(img):
    h, w = img.shape
    out = np.zeros((h, w))
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            gx = (img[y - 1, x + 1] + 2 * img[y, x + 1] + img[y + 1, x + 1]
                  - img[y - 1, x - 1] - 2 * img[y, x - 1] - img[y + 1, x - 1])
            gy = (img[y + 1, x - 1] + 2 * img[y + 1, x] + img[y + 1, x + 1]
                  - img[y - 1, x - 1] - 2 * img[y - 1, x] - img[y - 1, x + 1])
            out[y, x] = math.hypot(gx, gy)
    return out


def bilinear_align_corners(img, oh, ow):
    h, w = img.shape
    out = np.empty((oh, ow), dtype=img.dtype)
    sy = (h - 1) / (oh - 1) if oh > 1 else 0.0
    sx = (w - 1) / (ow - 1) if ow > 1 else 0.0
    for i in range(oh):
        fy = i * sy
        y0 = int(fy)
        y1 = min(y0 + 1, h - 1)
        ty = fy - y0
        for j in range(ow):
            fx = j * sx
            x0 = int(fx)
            x1 = min(x0 + 1, w - 1)
            tx = fx - x0
            top = img[y0, x0] * (1 - tx) + img[y0, x1] * tx
            bot = img[y1, x0] * (1 - tx) + img[y1, x1] * tx
            out[i, j] = top * (1 - ty) + bot * ty
    return out


def equalize_u8(img):
    hist = np.zeros(256, dtype=np.int64)
    h, w = img.shape
    for i in range(h):
        for j in range(w):
            hist[img[i, j]] += 1
    cdf = np.empty(256, dtype=np.int64)
    run = 0
    for v in range(256):
        run += hist[v]
        cdf[v] = run
    cmin = 0
    for v in range(256):
        if cdf[v] > 0:
            cmin = cdf[v]
            break
    total = h * w
    out = np.empty_like(img)
    for i in range(h):
        for j in range(w):
            if total == cmin:
                out[i, j] = img[i, j]
            else:
                out[i, j] = np.uint8(round((cdf[img[i, j]] - cmin) * 255.0 / (total - cmin)))
    return out


def floyd_steinberg(img):
    a = img.astype(np.float64)
    h, w = a.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            old = a[y, x]
            new = 1.0 if old >= 0.5 else 0.0
            out[y, x] = np.uint8(new)
            err = old - new
            if x + 1 < w:
                a[y, x + 1] += err * 7 / 16
            if y + 1 < h:
                if x > 0:
                    a[y + 1, x - 1] += err * 3 / 16
                a[y + 1, x] += err * 5 / 16
                if x + 1 < w:
                    a[y + 1, x + 1] += err / 16
    return out


def integral_box_mean(img, r):
    h, w = img.shape
    S = np.zeros((h + 1, w + 1))
    for i in range(h):
        rowsum = 0.0
        for j in range(w):
            rowsum += img[i, j]
            S[i + 1, j + 1] = S[i, j + 1] + rowsum
    out = np.empty((h, w))
    for i in range(h):
        for j in range(w):
            y0, y1 = max(i - r, 0), min(i + r + 1, h)
            x0, x1 = max(j - r, 0), min(j + r + 1, w)
            area = (y1 - y0) * (x1 - x0)
            out[i, j] = (S[y1, x1] - S[y0, x1] - S[y1, x0] + S[y0, x0]) / area
    return out


# ---------------------------------------------------------------- sorting and searching


def insertion_argsort(keys):
    n = keys.shape[0]
    idx = np.arange(n)
    for i in range(1, n):
        cur = idx[i]
        j = i - 1
        while j >= 0 and keys[idx[j]] > keys[cur]:
            idx[j + 1] = idx[j]
            j -= 1
        idx[j + 1] = cur
    return idx


def counting_sort_range(a, lo, hi):
    counts = np.zeros(hi - lo + 1, dtype=np.intp)
    for v in a:
        counts[v - lo] += 1
    out = np.empty_like(a)
    pos = 0
    for k in range(counts.shape[0]):
        for _ in range(counts[k]):
            out[pos] = k + lo
            pos += 1
    return out


def lower_bound_many(sorted_a, queries):
    res = np.empty(queries.shape[0], dtype=np.int64)
    for q in range(queries.shape[0]):
        lo = 0
        hi = sorted_a.shape[0]
        v = queries[q]
        while lo < hi:
            mid = (lo + hi) // 2
            if sorted_a[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        res[q] = lo
    return res


def merge_two_sorted(a, b):
    na, nb = a.shape[0], b.shape[0]
    out = np.empty(na + nb, dtype=a.dtype)
    i = j = k = 0
    while i < na and j < nb:
        if a[i] <= b[j]:
            out[k] = a[i]
            i += 1
        else:
            out[k] = b[j]
            j += 1
        k += 1
    while i < na:
        out[k] = a[i]
        i += 1
        k += 1
    while j < nb:
        out[k] = b[j]
        j += 1
        k += 1
    return out


def intersect_count_sorted(a, b):
    i = 0
    j = 0
    common = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            common += 1
            i += 1
            j += 1
        elif a[i] < b[j]:
            i += 1
        else:
            j += 1
    return common


def selection_kth(x, k):
    a = x.copy()
    n = a.shape[0]
    for i in range(k + 1):
        m = i
        for j in range(i + 1, n):
            if a[j] < a[m]:
                m = j
        a[i], a[m] = a[m], a[i]
    return a[k]


# ---------------------------------------------------------------- sparse


def csr_spmv_transposed(indptr, indices, data, x, ncols):
    y = np.zeros(ncols)
    for row in range(indptr.shape[0] - 1):
        xr = x[row]
        for k in range(indptr[row], indptr[row + 1]):
            y[indices[k]] += data[k] * xr
    return y


def csr_diag_extract(indptr, indices, data):
    n = indptr.shape[0] - 1
    d = np.zeros(n)
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            if indices[k] == i:
                d[i] = data[k]
                break
    return d


def coo_to_csr_counts(rows, cols, vals, n):
    indptr = np.zeros(n + 1, dtype=np.int64)
    for k in range(rows.shape[0]):
        indptr[rows[k] + 1] += 1
    for i in range(n):
        indptr[i + 1] += indptr[i]
    fill = indptr[:-1].copy()
    indices = np.empty(rows.shape[0], dtype=np.int64)
    data = np.empty(rows.shape[0])
    for k in range(rows.shape[0]):
        r = rows[k]
        indices[fill[r]] = cols[k]
        data[fill[r]] = vals[k]
        fill[r] += 1
    return indptr, indices, data


# ---------------------------------------------------------------- scans, reductions, early exits


def exclusive_scan_total(a):
    out = np.empty(a.shape[0], dtype=np.int64)
    total = 0
    for i in range(a.shape[0]):
        out[i] = total
        total += a[i]
    return out, total


def first_cumsum_exceeds(x, t):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        if s > t:
            return i
    return -1


def segment_sums(vals, seg_starts):
    nseg = seg_starts.shape[0]
    out = np.zeros(nseg)
    for s in range(nseg):
        stop = seg_starts[s + 1] if s + 1 < nseg else vals.shape[0]
        for k in range(seg_starts[s], stop):
            out[s] += vals[k]
    return out


def running_max_int0(x):
    m = 0
    for i in range(x.shape[0]):
        m = max(m, x[i])
    return m


def best_or_none(x):
    best = None
    for i in range(x.shape[0]):
        if best is None or x[i] > best:
            best = x[i]
    return 0.0 if best is None else best


def last_none_index(x, t):
    last = None
    for i in range(x.shape[0]):
        if x[i] > t:
            last = i
    if last is None:
        return -1
    return last


def repeat_smooth_0d(x, count):
    y = x.copy()
    for _ in range(count):
        for i in range(1, y.shape[0] - 1):
            y[i] = 0.25 * y[i - 1] + 0.5 * y[i] + 0.25 * y[i + 1]
    return y


# ---------------------------------------------------------------- numerics


def thomas_solve(a, b, c, d):
    n = d.shape[0]
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty(n)
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def gauss_partial_pivot(A, b):
    M = A.copy()
    v = b.copy()
    n = M.shape[0]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(M[i, k]) > abs(M[p, k]):
                p = i
        if p != k:
            for j in range(n):
                M[k, j], M[p, j] = M[p, j], M[k, j]
            v[k], v[p] = v[p], v[k]
        for i in range(k + 1, n):
            f = M[i, k] / M[k, k]
            for j in range(k, n):
                M[i, j] -= f * M[k, j]
            v[i] -= f * v[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = v[i]
        for j in range(i + 1, n):
            s -= M[i, j] * x[j]
        x[i] = s / M[i, i]
    return x


def logistic_sgd(X, y, lr, epochs):
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    for ep in range(epochs):
        for i in range(n):
            z = b
            for k in range(d):
                z += w[k] * X[i, k]
            g = _sigmoid(z) - y[i]
            for k in range(d):
                w[k] -= lr * g * X[i, k]
            b -= lr * g
    return w, b


def verlet_oscillator(x0, v0, k, dt, steps):
    xs = np.empty(steps)
    vs = np.empty(steps)
    x = x0
    v = v0
    a = -k * x
    for t in range(steps):
        x = x + v * dt + 0.5 * a * dt * dt
        a_new = -k * x
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
        xs[t] = x
        vs[t] = v
    return xs, vs


def simpson_samples(y, dx):
    n = y.shape[0]
    if n < 3:
        return 0.0
    m = n if n % 2 == 1 else n - 1
    s = y[0] + y[m - 1]
    for i in range(1, m - 1):
        s += (4 if i % 2 == 1 else 2) * y[i]
    total = s * dx / 3.0
    if m < n:
        total += 0.5 * dx * (y[n - 2] + y[n - 1])
    return total


def fixed_bins_hist(x, lo, hi, nbins):
    counts = np.zeros(nbins, dtype=np.int64)
    width = (hi - lo) / nbins
    outside = 0
    for v in x:
        if v < lo or v > hi:
            outside += 1
            continue
        b = int((v - lo) / width)
        if b == nbins:
            b -= 1
        counts[b] += 1
    return counts, outside


def digits_reverse(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        v = a[i]
        r = 0
        while v > 0:
            r = r * 10 + v % 10
            v //= 10
        out[i] = r
    return out



# ---------------------------------------------------------------- more idioms: enumerate / zip,
# helpers returning tuples or writing arrays, globals, unsigned bit tricks, FFT, recursion


G_CONST = 1.0
PERM = np.array([151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225] * 2, dtype=np.int64)


@njit
def _mean_std(x):
    m = 0.0
    for v in x:
        m += v
    m /= len(x)
    s = 0.0
    for v in x:
        s += (v - m) ** 2
    return m, math.sqrt(s / len(x))


@njit
def _sift_down(h, start, end):
    root = start
    while True:
        child = 2 * root + 1
        if child > end:
            break
        if child + 1 <= end and h[child] < h[child + 1]:
            child += 1
        if h[root] < h[child]:
            h[root], h[child] = h[child], h[root]
            root = child
        else:
            break


@njit
def _fade(t):
    return t * t * t * (t * (t * 6 - 15) + 10)


@njit
def _grad(h, x):
    return x if h & 1 == 0 else -x


@njit
def _f_cubic(x):
    return x ** 3 - 2.0 * x - 5.0


def zscore_rows_helper(X):
    out = np.empty_like(X)
    for i in range(X.shape[0]):
        m, s = _mean_std(X[i])
        for j in range(X.shape[1]):
            out[i, j] = (X[i, j] - m) / s if s > 0 else 0.0
    return out


def heapsort_helper(a):
    h = a.copy()
    n = h.shape[0]
    for start in range((n - 2) // 2, -1, -1):
        _sift_down(h, start, n - 1)
    for end in range(n - 1, 0, -1):
        h[end], h[0] = h[0], h[end]
        _sift_down(h, 0, end - 1)
    return h


def enumerate_weighted(x):
    total = 0.0
    for i, v in enumerate(x):
        total += i * v
    return total


def zip_dot_count(a, b):
    s = 0.0
    n = 0
    for u, v in zip(a, b):
        if u > 0 and v > 0:
            s += u * v
            n += 1
    return s, n


def gravity_global(pos, mass):
    n = pos.shape[0]
    pot = np.zeros(n)
    for i in range(n):
        for j in range(n):
            if i != j:
                d = math.sqrt((pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2 + 0.01)
                pot[i] -= G_CONST * mass[j] / d
    return pot


def xorshift_fill(seed, n):
    out = np.empty(n, dtype=np.uint64)
    x = np.uint64(seed)
    for i in range(n):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        out[i] = x
    return out


def fnv1a_u32(data):
    h = np.uint32(2166136261)
    for b in data:
        h ^= np.uint32(b)
        h *= np.uint32(16777619)
    return h


def fft_radix2(x):
    n = x.shape[0]
    a = x.astype(np.complex128)
    j = 0
    for i in range(1, n):
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j ^= bit
        if i < j:
            a[i], a[j] = a[j], a[i]
    length = 2
    while length <= n:
        ang = -2.0 * math.pi / length
        wl = complex(math.cos(ang), math.sin(ang))
        for i in range(0, n, length):
            w = 1.0 + 0.0j
            for k in range(length // 2):
                u = a[i + k]
                v = a[i + k + length // 2] * w
                a[i + k] = u + v
                a[i + k + length // 2] = u - v
                w *= wl
        length <<= 1
    return a


def smith_waterman(a, b, match, mismatch, gap):
    n, m = a.shape[0], b.shape[0]
    H = np.zeros((n + 1, m + 1), dtype=np.int64)
    best = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            H[i, j] = max(0, H[i - 1, j - 1] + s, H[i - 1, j] - gap, H[i, j - 1] - gap)
            best = max(best, H[i, j])
    return best


def prim_mst_weight(W):
    n = W.shape[0]
    in_tree = np.zeros(n, dtype=np.bool_)
    key = np.full(n, np.inf)
    key[0] = 0.0
    total = 0.0
    for _ in range(n):
        u = -1
        for v in range(n):
            if not in_tree[v] and (u == -1 or key[v] < key[u]):
                u = v
        in_tree[u] = True
        total += key[u]
        for v in range(n):
            if not in_tree[v] and W[u, v] < key[v]:
                key[v] = W[u, v]
    return total


def radix_sort_u8_keys(a):
    out = a.copy()
    tmp = np.empty_like(a)
    for shift in range(0, 16, 8):
        count = np.zeros(257, dtype=np.int64)
        for v in out:
            count[((v >> shift) & 255) + 1] += 1
        for k in range(256):
            count[k + 1] += count[k]
        for v in out:
            d = (v >> shift) & 255
            tmp[count[d]] = v
            count[d] += 1
        out, tmp = tmp, out
    return out


def quickselect(x, k):
    a = x.copy()
    lo, hi = 0, a.shape[0] - 1
    while lo < hi:
        pivot = a[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return a[k]


def perlin_1d(xs):
    out = np.empty(xs.shape[0])
    for i in range(xs.shape[0]):
        x = xs[i]
        xi = int(math.floor(x)) & 15
        xf = x - math.floor(x)
        u = _fade(xf)
        g0 = _grad(PERM[xi], xf)
        g1 = _grad(PERM[xi + 1], xf - 1.0)
        out[i] = g0 + u * (g1 - g0)
    return out


def rule30_rows(row0, steps):
    n = row0.shape[0]
    out = np.zeros((steps + 1, n), dtype=np.uint8)
    out[0] = row0
    for t in range(steps):
        for i in range(n):
            l = out[t, (i - 1) % n]
            c = out[t, i]
            r = out[t, (i + 1) % n]
            idx = (l << 2) | (c << 1) | r
            out[t + 1, i] = (30 >> idx) & 1
    return out


def ray_sphere_hits(ox, oy, cx, cy, cz, radius):
    h, w = ox.shape[0], oy.shape[0]
    depth = np.full((w, h), -1.0)
    for j in range(w):
        for i in range(h):
            dx, dy, dz = ox[i] - cx, oy[j] - cy, -cz
            b = dz
            c = dx * dx + dy * dy + dz * dz - radius * radius
            disc = b * b - c
            if disc < 0:
                continue
            t = -b - math.sqrt(disc)
            if t > 0:
                depth[j, i] = t
    return depth


def box_muller(u1, u2):
    n = u1.shape[0]
    z = np.empty(2 * n)
    for i in range(n):
        r = math.sqrt(-2.0 * math.log(u1[i]))
        th = 2.0 * math.pi * u2[i]
        z[2 * i] = r * math.cos(th)
        z[2 * i + 1] = r * math.sin(th)
    return z


def sir_euler(beta, gamma, s0, i0, dt, steps):
    S = np.empty(steps + 1)
    I = np.empty(steps + 1)
    R = np.empty(steps + 1)
    S[0], I[0], R[0] = s0, i0, 1.0 - s0 - i0
    for t in range(steps):
        new_inf = beta * S[t] * I[t] * dt
        new_rec = gamma * I[t] * dt
        S[t + 1] = S[t] - new_inf
        I[t + 1] = I[t] + new_inf - new_rec
        R[t + 1] = R[t] + new_rec
    return S, I, R


def secant_root(x0, x1, tol, maxit):
    f0 = _f_cubic(x0)
    f1 = _f_cubic(x1)
    it = 0
    while abs(x1 - x0) > tol and it < maxit:
        if f1 == f0:
            break
        x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        x0, f0 = x1, f1
        x1 = x2
        f1 = _f_cubic(x1)
        it += 1
    return x1, it


def rle_encode(x):
    n = x.shape[0]
    vals = np.empty(n, dtype=x.dtype)
    lens = np.empty(n, dtype=np.int64)
    k = 0
    i = 0
    while i < n:
        j = i
        while j < n and x[j] == x[i]:
            j += 1
        vals[k] = x[i]
        lens[k] = j - i
        k += 1
        i = j
    return vals[:k], lens[:k]


def unique_count_sorted(a):
    if a.shape[0] == 0:
        return 0
    c = 1
    for i in range(1, a.shape[0]):
        if a[i] != a[i - 1]:
            c += 1
    return c


def argmax_row_copy(X):
    out = np.empty((X.shape[0], 2))
    for i in range(X.shape[0]):
        j = np.argmax(X[i])
        out[i, 0] = j
        out[i, 1] = X[i, j]
    return out


def quicksort_recursive(a):
    b = a.copy()
    _qs(b, 0, b.shape[0] - 1)
    return b


@njit
def _qs(a, lo, hi):
    if lo >= hi:
        return
    p = a[hi]
    i = lo
    for j in range(lo, hi):
        if a[j] < p:
            a[i], a[j] = a[j], a[i]
            i += 1
    a[i], a[hi] = a[hi], a[i]
    _qs(a, lo, i - 1)
    _qs(a, i + 1, hi)


def fixed_point_cos(x0, tol):
    x = x0
    n = 0
    while True:
        nx = math.cos(x)
        n += 1
        if abs(nx - x) < tol or n >= 200:
            return nx, n
        x = nx


def int_sqrt_newton(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        n = a[i]
        if n < 2:
            out[i] = n
            continue
        x = n
        y = (x + 1) // 2
        while y < x:
            x = y
            y = (x + n // x) // 2
        out[i] = x
    return out


def weighted_median(x, w):
    order = np.argsort(x)
    total = w.sum()
    acc = 0.0
    for k in range(order.shape[0]):
        acc += w[order[k]]
        if acc >= 0.5 * total:
            return x[order[k]]
    return np.nan


def bincount_2d_flat(rows, cols, nr, nc):
    out = np.zeros(nr * nc, dtype=np.int64)
    for r, c in zip(rows, cols):
        out[r * nc + c] += 1
    return out.reshape(nr, nc)


def cummin_index(x):
    out = np.empty(x.shape[0], dtype=np.int64)
    best = 0
    for i in range(x.shape[0]):
        if x[i] < x[best]:
            best = i
        out[i] = best
    return out


def max_gap_float(x):
    g = 0.0
    for i in range(1, len(x)):
        g = max(g, x[i] - x[i - 1])
    return g

# ---------------------------------------------------------------- inputs


def _csr_graph(rng, n=None):
    n = n if n is not None else int(rng.integers(1, 7))
    rows = []
    for _ in range(n):
        rows.append(np.unique(rng.integers(0, n, int(rng.integers(0, 3)))))
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r) for r in rows])
    indices = np.concatenate(rows).astype(np.int64) if n else np.zeros(0, np.int64)
    return indptr, indices


def _edges(rng, n, m):
    return rng.integers(0, n, m), rng.integers(0, n, m)


def _hmm(rng):
    S, V, T = 3, 4, int(rng.integers(1, 7))
    pi = rng.random(S) + 0.1
    A = rng.random((S, S)) + 0.1
    B = rng.random((S, V)) + 0.1
    return (np.log(pi / pi.sum()), np.log(A / A.sum(1, keepdims=True)),
            np.log(B / B.sum(1, keepdims=True)), rng.integers(0, V, T))


def _tridiag(rng):
    n = int(rng.integers(1, 7))
    return rng.random(n), rng.random(n) + 3.0, rng.random(n), rng.standard_normal(n)


def _spd(rng):
    n = int(rng.integers(1, 5))
    A = rng.standard_normal((n, n))
    return A + n * np.eye(n), rng.standard_normal(n)


def _coo(rng):
    n = int(rng.integers(1, 5))
    m = _n(rng, 8)
    return rng.integers(0, n, m), rng.integers(0, n, m), rng.random(m), n


def _csr_mat(rng):
    indptr, indices = _csr_graph(rng)
    data = rng.standard_normal(indices.shape[0])
    return indptr, indices, data


CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


_add("julia_escape", julia_escape,
     lambda r: (np.linspace(-1.5, 1.5, _n(r, 6, 1)), np.linspace(-1, 1, 5), -0.8, 0.156, 30))
_add("mandel_complex", mandel_complex,
     lambda r: (np.linspace(-2, 0.5, _n(r, 6, 1)), np.linspace(-1, 1, 4), 40))
_add("mandel_smooth", mandel_smooth,
     lambda r: (np.linspace(-2, 0.5, _n(r, 6, 1)), np.linspace(-1, 1, 4), 40), rtol=1e-7)
_add("nbody_energy", nbody_energy,
     lambda r: (lambda n: (r.standard_normal((n, 3)), r.standard_normal((n, 3)), r.random(n) + 0.5))(_n(r, 5)))
_add("lj_cutoff_forces", lj_cutoff_forces,
     lambda r: (np.array([[0.0, 0.0], [1.1, 0.2], [2.5, 2.9], [0.4, 3.1], [3.3, 1.0]])[:_n(r, 5, 1)], 4.0, 2.0),
     rtol=1e-7)
_add("ising_metropolis", ising_metropolis,
     lambda r: (np.where(r.random((4, 4)) < 0.5, -1, 1).astype(np.int8), r.random((_n(r, 2), 4, 4)), 0.4))
_add("random_walk_reflect", random_walk_reflect, lambda r: (r.standard_normal(_n(r, 9)), -1.0, 1.0))
_add("kmeans_one_step", kmeans_one_step, lambda r: (r.standard_normal((_n(r, 8), 2)), r.standard_normal((3, 2))))
_add("dbscan_core", dbscan_core, lambda r: (r.random((_n(r, 8), 2)), 0.4, 3))
_add("edit_distance_ints", edit_distance_ints,
     lambda r: (r.integers(0, 3, _n(r, 6)), r.integers(0, 3, int(r.integers(0, 5)))))
_add("lcs_backtrack", lcs_backtrack, lambda r: (r.integers(0, 3, _n(r, 6)), r.integers(0, 3, 5)))
_add("knapsack_rolling", knapsack_rolling,
     lambda r: (lambda n: (r.integers(1, 5, n), r.integers(0, 9, n), int(r.integers(0, 9))))(_n(r, 5)))
_add("dtw_window", dtw_window, lambda r: (r.standard_normal(_n(r, 6, 1)), r.standard_normal(5), 1))
_add("viterbi_path", viterbi_path, _hmm)
_add("coin_min_count", coin_min_count, lambda r: (np.array([3, 5, 7]), int(r.integers(0, 12))))
_add("bellman_ford_check", bellman_ford_check,
     lambda r: (lambda m: (*_edges(r, 5, m), r.random(m) * 3 - 0.2, 5, 0))(_n(r, 8)))
_add("pagerank_csr", pagerank_csr, lambda r: (*_csr_graph(r), 4, 0.85))
_add("bfs_queue", bfs_queue, lambda r: (*_csr_graph(r), 0))
_add("components_label_prop", components_label_prop, lambda r: (*_edges(r, 6, _n(r, 4)), 6))
_add("fir_same", fir_same, lambda r: (r.standard_normal(_n(r, 9)), r.standard_normal(3)))
_add("iir_df1", iir_df1,
     lambda r: (np.array([0.2, 0.3]), np.array([1.0, -0.4, 0.1]), r.standard_normal(_n(r, 9))))
_add("autocorr_normalized", autocorr_normalized, lambda r: (r.standard_normal(_n(r, 9, 2)), 3))
_add("moving_median_odd", moving_median_odd, lambda r: (r.standard_normal(_n(r, 9)), 3))
_add("zero_crossings", zero_crossings, lambda r: (r.standard_normal(_n(r, 9)),))
_add("bs_erf_prices", bs_erf_prices,
     lambda r: (lambda n: (r.random(n) * 50 + 75, r.random(n) * 50 + 75, r.random(n) + 0.1, 0.02, 0.3))(_n(r, 5)),
     rtol=1e-7)
_add("crr_european", crr_european, lambda r: (100.0, 95.0, 1.0, 0.03, 0.2, int(r.integers(1, 8)), bool(r.integers(0, 2))),
     rtol=1e-7)
_add("mc_european_given", mc_european_given,
     lambda r: (r.standard_normal(_n(r, 9, 1)), 100.0, 100.0, 0.01, 0.2, 1.0), rtol=1e-7)
_add("ewma_vol", ewma_vol, lambda r: (r.standard_normal(_n(r, 9, 1)) * 0.01, 0.94))
_add("sobel_hypot", sobel_hypot, lambda r: (r.random((_n(r, 6, 2), 5)),))
_add("bilinear_align_corners", bilinear_align_corners, lambda r: (r.random((3, 4)), _n(r, 5, 1), 6))
_add("equalize_u8", equalize_u8, lambda r: (r.integers(0, 256, (_n(r, 4, 1), 5)).astype(np.uint8),))
_add("floyd_steinberg", floyd_steinberg, lambda r: (r.random((_n(r, 4, 1), 5)),))
_add("integral_box_mean", integral_box_mean, lambda r: (r.random((_n(r, 5, 1), 4)), 1))
_add("insertion_argsort", insertion_argsort, lambda r: (r.integers(0, 5, _n(r, 8)),))
_add("counting_sort_range", counting_sort_range, lambda r: (r.integers(-3, 4, _n(r, 9)), -3, 3))
_add("lower_bound_many", lower_bound_many,
     lambda r: (np.sort(r.integers(0, 9, _n(r, 7))), r.integers(-1, 10, 5)))
_add("merge_two_sorted", merge_two_sorted,
     lambda r: (np.sort(r.standard_normal(_n(r, 5))), np.sort(r.standard_normal(int(r.integers(0, 4))))))
_add("intersect_count_sorted", intersect_count_sorted,
     lambda r: (np.sort(r.integers(0, 6, _n(r, 6))), np.sort(r.integers(0, 6, 5))))
_add("selection_kth", selection_kth, lambda r: (r.standard_normal(_n(r, 7, 1)), 0))
_add("csr_spmv_transposed", csr_spmv_transposed,
     lambda r: (lambda p, i, d: (p, i, d, r.standard_normal(p.shape[0] - 1), p.shape[0] - 1))(*_csr_mat(r)))
_add("csr_diag_extract", csr_diag_extract, _csr_mat)
_add("coo_to_csr_counts", coo_to_csr_counts, _coo)
_add("exclusive_scan_total", exclusive_scan_total, lambda r: (r.integers(0, 9, _n(r, 8)).astype(np.int32),))
_add("first_cumsum_exceeds", first_cumsum_exceeds, lambda r: (r.random(_n(r, 8)), 2.0))
_add("segment_sums", segment_sums,
     lambda r: (r.standard_normal(9), np.sort(r.integers(0, 9, _n(r, 4, 1)))))
_add("running_max_int0", running_max_int0, lambda r: (r.integers(-9, 3, _n(r, 6)).astype(np.int32),))
_add("best_or_none", best_or_none, lambda r: (r.standard_normal(_n(r, 6)),))
_add("last_none_index", last_none_index, lambda r: (r.random(_n(r, 6)), 0.5))
_add("repeat_smooth_0d", repeat_smooth_0d, lambda r: (r.random(_n(r, 7)), np.array(int(r.integers(0, 3)))))
_add("thomas_solve", thomas_solve, _tridiag, rtol=1e-7)
_add("gauss_partial_pivot", gauss_partial_pivot, _spd, rtol=1e-7, atol=1e-9)
_add("logistic_sgd", logistic_sgd,
     lambda r: (lambda n: (r.standard_normal((n, 2)), r.integers(0, 2, n), 0.1, 2))(_n(r, 6)))
_add("verlet_oscillator", verlet_oscillator, lambda r: (1.0, 0.0, 2.0, 0.05, _n(r, 9)))
_add("simpson_samples", simpson_samples, lambda r: (r.random(_n(r, 8, 2)), 0.1))
_add("fixed_bins_hist", fixed_bins_hist, lambda r: (r.standard_normal(_n(r, 9)), -1.0, 1.0, 4))
_add("digits_reverse", digits_reverse, lambda r: (r.integers(0, 5000, _n(r, 6)),))

_add("zscore_rows_helper", zscore_rows_helper, lambda r: (r.standard_normal((_n(r, 4), 5)),))
_add("heapsort_helper", heapsort_helper, lambda r: (r.integers(0, 20, _n(r, 9)),))
_add("enumerate_weighted", enumerate_weighted, lambda r: (r.standard_normal(_n(r)),))
_add("zip_dot_count", zip_dot_count, lambda r: (r.standard_normal(_n(r)), r.standard_normal(7)))
_add("gravity_global", gravity_global, lambda r: (lambda n: (r.standard_normal((n, 2)), r.random(n)))(_n(r, 5)))
_add("xorshift_fill", xorshift_fill, lambda r: (int(r.integers(1, 1000)), _n(r, 6)))
_add("fnv1a_u32", fnv1a_u32, lambda r: (r.integers(0, 256, _n(r, 8)).astype(np.uint8),))
_add("fft_radix2", fft_radix2, lambda r: (r.standard_normal(8 if r.integers(0, 3) else 1),), rtol=1e-9, atol=1e-12)
_add("smith_waterman", smith_waterman, lambda r: (r.integers(0, 3, _n(r, 6)), r.integers(0, 3, 5), 2, -1, 1))
_add("prim_mst_weight", prim_mst_weight, lambda r: (lambda A: (A + A.T,))(r.random((_n(r, 5, 1),) * 2)))
_add("radix_sort_u8_keys", radix_sort_u8_keys, lambda r: (r.integers(0, 60000, _n(r, 9)),))
_add("quickselect", quickselect, lambda r: (r.standard_normal(_n(r, 7, 1)), 0))
_add("perlin_1d", perlin_1d, lambda r: (r.random(_n(r)) * 14,))
_add("rule30_rows", rule30_rows, lambda r: (r.integers(0, 2, 8).astype(np.uint8), _n(r, 4)))
_add("ray_sphere_hits", ray_sphere_hits,
     lambda r: (np.linspace(-1, 1, _n(r, 5, 1)), np.linspace(-1, 1, 4), 0.1, 0.0, 3.0, 0.8))
_add("box_muller", box_muller, lambda r: (lambda n: (r.random(n) + 1e-3, r.random(n)))(_n(r)))
_add("sir_euler", sir_euler, lambda r: (0.3, 0.1, 0.99, 0.01, 0.5, _n(r, 8)))
_add("secant_root", secant_root, lambda r: (2.0, 3.0, 1e-12, int(r.integers(0, 30))))
_add("rle_encode", rle_encode, lambda r: (r.integers(0, 3, _n(r, 9)),))
_add("unique_count_sorted", unique_count_sorted, lambda r: (np.sort(r.integers(0, 5, _n(r, 8))),))
_add("argmax_row_copy", argmax_row_copy, lambda r: (r.standard_normal((_n(r, 4), 3)),))
_add("quicksort_recursive", quicksort_recursive, lambda r: (r.standard_normal(_n(r)),))
_add("fixed_point_cos", fixed_point_cos, lambda r: (float(r.random()), 1e-9))
_add("int_sqrt_newton", int_sqrt_newton, lambda r: (r.integers(0, 10000, _n(r)),))
_add("weighted_median", weighted_median, lambda r: (lambda n: (r.standard_normal(n), r.random(n)))(_n(r, 7, 1)))
_add("bincount_2d_flat", bincount_2d_flat, lambda r: (r.integers(0, 3, _n(r, 8)), r.integers(0, 4, 8), 3, 4))
_add("cummin_index", cummin_index, lambda r: (r.standard_normal(_n(r)),))
_add("max_gap_float", max_gap_float, lambda r: (np.sort(r.standard_normal(_n(r))),))
