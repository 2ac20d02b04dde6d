"""fe52's batch (session 38): numba loop code and NumPy array code as third-party users write
them, in areas the earlier batches touch least, written before looking at what is supported:
a biquad cascade (transposed direct form II), Goertzel bins through an @njit helper, loop
autocorrelation, CIC interpolation in int64, float32 pre-emphasis, a leaky integrate-and-fire
neuron; integral images (uint8 to int64), box sums from one, histogram equalisation, a 3x3 median
by insertion sort, a 2-d bilateral filter with ``continue``, a 1-d guided filter through a nested
helper, union-find labelling and island counts with path compression; an American binomial put,
a trinomial call on shrinking arrays, rolling VWAP and Sharpe, drawdown with its dates, FIFO order
matching in a ``while`` loop, RiskMetrics volatility; SPH density, Lennard-Jones forces with a
cutoff, Verlet pairs counted then filled, an Ising sweep on given uniforms, velocity Verlet;
k-means++ seeding, k-medoids swap costs, logistic regression by gradient steps, Gaussian naive
Bayes, a weighted decision stump, a histogram split search, an averaged perceptron; KMP's prefix
function, the Z-algorithm, run-length encoding to two arrays and expansion, banded Levenshtein,
common prefixes; dense Dijkstra, PageRank to a tolerance, DAG longest paths, Floyd-Warshall;
ray casting, a monotone-chain hull's area, haversine distances, polyline centroids; West's
weighted variance, quickselect, average ranks with ties, bootstrap means on given indices,
Spearman, a float32 moving MAD; Lambert W by Newton, bisection of cubics, Romberg, symmetric
Gauss-Seidel, CG, Householder's R, power iteration, Kepler by the secant method; 17 NumPy programs
(standardise, one-hot, cosine similarity, batch norm, im2col, polynomial features, masked
statistics, np.where chains, min-max scaling, squared distances, Huber, logsumexp, cross-entropy,
np.add.at confusion matrix, quantile winsorising, EMA crossovers).

At 392a40f (cpu and python targets, four seeds each, POLYFUSE_NUM_THREADS=2): 71 of 77 match, 6
refused, none wrong or crashed.  After fe52's fixes 74 match: gbm_split_gain (``gain = gl * gl /
...`` assigned only in the loop, read by ``best = gain`` under an if whose kind flag reads gain's:
frontend/lift's fixpoint retries with the flag set in place), power_iteration_rayleigh (``return
0.0, x`` in the loop beside ``return lam, x``, x bound again after the early return:
frontend/early_return) and masked_mean_std_np (``v = x[m]`` read by ``v.mean(), v.std()`` after
an ``if v.size == 0: return np.nan, np.nan``: frontend/arrays' selections).  Refused:
trinomial_euro_call (``v = nv`` of a new array of another extent in the loop), rle_encode_pairs
(an early return of empty arrays before a count-then-allocate pair: now refused at the return,
as a single array is, not as "if-condition '0 == runs'" at the def line) and poly_features_deg2_np
(a list of arrays joined by np.hstack).  Dropped in the session's review as the same programs up to
names as earlier corpus kernels (benchmarks/corpus_duplicates.py): integral_image_u8 (batch_fe41's
integral_image), logsumexp_rows_np (batch_fe33's logsumexp_rows), cross_entropy_onehot_np
(batch_np37b's softmax_cross_entropy); 74 kernels remain."""

import math

import numpy as np
from corpus_case import Case
from numba import njit


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


# ---------------------------------------------------------------- helpers


@njit
def _find_root_compress(parent, i):
    root = i
    while parent[root] != root:
        root = parent[root]
    while parent[i] != root:
        nxt = parent[i]
        parent[i] = root
        i = nxt
    return root


@njit
def _sq_dist(x0, y0, x1, y1):
    dx = x1 - x0
    dy = y1 - y0
    return dx * dx + dy * dy


@njit
def _sigmoid(z):
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@njit
def _cross2(ox, oy, ax, ay, bx, by):
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@njit
def _poly_eval(c, x):
    s = 0.0
    for k in range(c.shape[0] - 1, -1, -1):
        s = s * x + c[k]
    return s


# ---------------------------------------------------------------- signal


def biquad_cascade_df2t(x, sos):
    # sos[k] = b0 b1 b2 a0 a1 a2 (a0 == 1), transposed direct form II per section
    y = x.astype(np.float64)
    nsec = sos.shape[0]
    for s in range(nsec):
        b0, b1, b2 = sos[s, 0], sos[s, 1], sos[s, 2]
        a1, a2 = sos[s, 4], sos[s, 5]
        z1 = 0.0
        z2 = 0.0
        for i in range(y.shape[0]):
            xi = y[i]
            yi = b0 * xi + z1
            z1 = b1 * xi - a1 * yi + z2
            z2 = b2 * xi - a2 * yi
            y[i] = yi
    return y


@njit
def _goertzel_mag2(x, k):
    n = x.shape[0]
    w = 2.0 * math.pi * k / n
    coeff = 2.0 * math.cos(w)
    s_prev = 0.0
    s_prev2 = 0.0
    for i in range(n):
        s = x[i] + coeff * s_prev - s_prev2
        s_prev2 = s_prev
        s_prev = s
    return s_prev2 * s_prev2 + s_prev * s_prev - coeff * s_prev * s_prev2


def goertzel_bins(x, bins):
    out = np.empty(bins.shape[0])
    for j in range(bins.shape[0]):
        out[j] = _goertzel_mag2(x, bins[j])
    return out


def autocorr_biased_loops(x, maxlag):
    n = x.shape[0]
    mean = 0.0
    for i in range(n):
        mean += x[i]
    mean /= n
    r = np.zeros(maxlag + 1)
    for lag in range(maxlag + 1):
        acc = 0.0
        for i in range(n - lag):
            acc += (x[i] - mean) * (x[i + lag] - mean)
        r[lag] = acc / n
    if r[0] > 0:
        for lag in range(maxlag, -1, -1):
            r[lag] /= r[0]
    return r


def cic_interp_int(x, R, N):
    # N comb stages at low rate, zero-stuff by R, N integrators at the high rate (int64)
    n = x.shape[0]
    c = x.astype(np.int64)
    for stage in range(N):
        prev = 0
        for i in range(n):
            cur = c[i]
            c[i] = cur - prev
            prev = cur
    y = np.zeros(n * R, dtype=np.int64)
    for i in range(n):
        y[i * R] = c[i]
    for stage in range(N):
        acc = 0
        for i in range(n * R):
            acc += y[i]
            y[i] = acc
    return y


def preemphasis_f32(x, alpha):
    out = np.empty_like(x)
    if x.shape[0] == 0:
        return out
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = x[i] - np.float32(alpha) * x[i - 1]
    return out


def lif_neuron_spikes(current, dt, tau, v_th, v_reset):
    # leaky integrate-and-fire: membrane trace and spike count
    n = current.shape[0]
    v = np.empty(n)
    vm = v_reset
    spikes = 0
    for i in range(n):
        vm += dt / tau * (-(vm - v_reset) + current[i])
        if vm >= v_th:
            spikes += 1
            vm = v_reset
        v[i] = vm
    return v, spikes


def box_sum_from_integral(img, r):
    h, w = img.shape
    ii = np.zeros((h + 1, w + 1))
    for i in range(h):
        for j in range(w):
            ii[i + 1, j + 1] = img[i, j] + ii[i, j + 1] + ii[i + 1, j] - ii[i, j]
    out = np.empty((h, w))
    for i in range(h):
        i0 = max(i - r, 0)
        i1 = min(i + r + 1, h)
        for j in range(w):
            j0 = max(j - r, 0)
            j1 = min(j + r + 1, w)
            out[i, j] = ii[i1, j1] - ii[i0, j1] - ii[i1, j0] + ii[i0, j0]
    return out


def hist_equalize_u8(img):
    hist = np.zeros(256, dtype=np.int64)
    h, w = img.shape
    for i in range(h):
        for j in range(w):
            hist[img[i, j]] += 1
    cdf = np.zeros(256, dtype=np.int64)
    run = 0
    cdf_min = -1
    for v in range(256):
        run += hist[v]
        cdf[v] = run
        if cdf_min < 0 and run > 0:
            cdf_min = run
    total = h * w
    out = np.empty((h, w), dtype=np.uint8)
    denom = total - cdf_min
    for i in range(h):
        for j in range(w):
            if denom <= 0:
                out[i, j] = img[i, j]
            else:
                out[i, j] = (cdf[img[i, j]] - cdf_min) * 255 // denom
    return out


def median3x3_sort9(img):
    h, w = img.shape
    out = img.copy()
    buf = np.empty(9)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            k = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    buf[k] = img[i + di, j + dj]
                    k += 1
            # insertion sort
            for a in range(1, 9):
                v = buf[a]
                b = a - 1
                while b >= 0 and buf[b] > v:
                    buf[b + 1] = buf[b]
                    b -= 1
                buf[b + 1] = v
            out[i, j] = buf[4]
    return out


def bilateral_gray_2d(img, radius, sigma_s, sigma_r):
    h, w = img.shape
    out = np.empty_like(img)
    for i in range(h):
        for j in range(w):
            num = 0.0
            den = 0.0
            c = img[i, j]
            for di in range(-radius, radius + 1):
                ii = i + di
                if ii < 0 or ii >= h:
                    continue
                for dj in range(-radius, radius + 1):
                    jj = j + dj
                    if jj < 0 or jj >= w:
                        continue
                    d = img[ii, jj] - c
                    wgt = math.exp(-(di * di + dj * dj) / (2 * sigma_s ** 2) - d * d / (2 * sigma_r ** 2))
                    num += wgt * img[ii, jj]
                    den += wgt
            out[i, j] = num / den
    return out


def guided_filter_1d(p, I, r, eps):
    # He et al. guided filter on a 1-D signal with box means by running sums
    n = p.shape[0]

    def box(a):
        cs = np.zeros(n + 1)
        for i in range(n):
            cs[i + 1] = cs[i] + a[i]
        m = np.empty(n)
        for i in range(n):
            lo = max(0, i - r)
            hi = min(n, i + r + 1)
            m[i] = (cs[hi] - cs[lo]) / (hi - lo)
        return m

    mI = box(I)
    mp = box(p)
    mIp = box(I * p)
    mII = box(I * I)
    a = (mIp - mI * mp) / (mII - mI * mI + eps)
    b = mp - a * mI
    return box(a) * I + box(b)


def connected_components_uf(mask):
    # 4-connected labelling with union-find; labels are the root's flat index + 1, 0 for background
    h, w = mask.shape
    parent = np.arange(h * w)
    for i in range(h):
        for j in range(w):
            if not mask[i, j]:
                continue
            p = i * w + j
            if i > 0 and mask[i - 1, j]:
                a = _find_root_compress(parent, p)
                b = _find_root_compress(parent, p - w)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            if j > 0 and mask[i, j - 1]:
                a = _find_root_compress(parent, p)
                b = _find_root_compress(parent, p - 1)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    labels = np.zeros((h, w), dtype=np.int64)
    for i in range(h):
        for j in range(w):
            if mask[i, j]:
                labels[i, j] = _find_root_compress(parent, i * w + j) + 1
    return labels


def count_islands_uf(mask):
    h, w = mask.shape
    parent = np.arange(h * w)
    count = 0
    for i in range(h):
        for j in range(w):
            if mask[i, j]:
                count += 1
    for i in range(h):
        for j in range(w):
            if not mask[i, j]:
                continue
            for di, dj in ((1, 0), (0, 1)):
                ni = i + di
                nj = j + dj
                if ni < h and nj < w and mask[ni, nj]:
                    a = _find_root_compress(parent, i * w + j)
                    b = _find_root_compress(parent, ni * w + nj)
                    if a != b:
                        parent[b] = a
                        count -= 1
    return count


# ---------------------------------------------------------------- finance


def binomial_american_put(S, K, T, r, sigma, steps):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    v = np.empty(steps + 1)
    for j in range(steps + 1):
        v[j] = max(K - S * u ** j * d ** (steps - j), 0.0)
    for i in range(steps - 1, -1, -1):
        for j in range(i + 1):
            cont = disc * (p * v[j + 1] + (1 - p) * v[j])
            ex = K - S * u ** j * d ** (i - j)
            v[j] = cont if cont > ex else ex
    return v[0]


def trinomial_euro_call(S, K, T, r, sigma, steps):
    dt = T / steps
    dx = sigma * math.sqrt(3 * dt)
    nu = r - 0.5 * sigma * sigma
    pu = 0.5 * ((sigma * sigma * dt + nu * nu * dt * dt) / (dx * dx) + nu * dt / dx)
    pd = 0.5 * ((sigma * sigma * dt + nu * nu * dt * dt) / (dx * dx) - nu * dt / dx)
    pm = 1.0 - pu - pd
    disc = math.exp(-r * dt)
    m = 2 * steps + 1
    v = np.empty(m)
    for k in range(m):
        v[k] = max(S * math.exp((k - steps) * dx) - K, 0.0)
    for i in range(steps - 1, -1, -1):
        nv = np.empty(2 * i + 1)
        for k in range(2 * i + 1):
            nv[k] = disc * (pu * v[k + 2] + pm * v[k + 1] + pd * v[k])
        v = nv
    return v[0]


def rolling_vwap(price, volume, w):
    n = price.shape[0]
    out = np.full(n, np.nan)
    pv = 0.0
    vv = 0.0
    for i in range(n):
        pv += price[i] * volume[i]
        vv += volume[i]
        if i >= w:
            pv -= price[i - w] * volume[i - w]
            vv -= volume[i - w]
        if i >= w - 1 and vv > 0:
            out[i] = pv / vv
    return out


def max_drawdown_with_dates(equity):
    peak = equity[0]
    peak_i = 0
    mdd = 0.0
    start = 0
    end = 0
    for i in range(1, equity.shape[0]):
        if equity[i] > peak:
            peak = equity[i]
            peak_i = i
        dd = (peak - equity[i]) / peak
        if dd > mdd:
            mdd = dd
            start = peak_i
            end = i
    return mdd, start, end


def rolling_sharpe(returns, w, periods):
    n = returns.shape[0]
    out = np.full(n, np.nan)
    s = 0.0
    s2 = 0.0
    for i in range(n):
        s += returns[i]
        s2 += returns[i] * returns[i]
        if i >= w:
            s -= returns[i - w]
            s2 -= returns[i - w] * returns[i - w]
        if i >= w - 1:
            m = s / w
            var = (s2 - w * m * m) / (w - 1)
            if var > 1e-300:
                out[i] = m / math.sqrt(var) * math.sqrt(periods)
    return out


def match_orders_fifo(bid_qty, ask_qty):
    # two queues of quantities matched in order; returns filled per bid and the total traded
    nb = bid_qty.shape[0]
    na = ask_qty.shape[0]
    bids = bid_qty.copy()
    asks = ask_qty.copy()
    filled = np.zeros(nb, dtype=np.int64)
    i = 0
    j = 0
    total = 0
    while i < nb and j < na:
        q = min(bids[i], asks[j])
        bids[i] -= q
        asks[j] -= q
        filled[i] += q
        total += q
        if bids[i] == 0:
            i += 1
        if asks[j] == 0:
            j += 1
    return filled, total


def ewma_vol_riskmetrics(r, lam):
    n = r.shape[0]
    var = np.empty(n)
    v = r[0] * r[0] if n > 0 else 0.0
    for i in range(n):
        var[i] = v
        v = lam * v + (1 - lam) * r[i] * r[i]
    return np.sqrt(var)


# ---------------------------------------------------------------- physics


def sph_density_poly6(x, y, mass, h):
    n = x.shape[0]
    rho = np.zeros(n)
    h2 = h * h
    c = 315.0 / (64.0 * math.pi * h ** 9)
    for i in range(n):
        for j in range(n):
            r2 = _sq_dist(x[i], y[i], x[j], y[j])
            if r2 < h2:
                t = h2 - r2
                rho[i] += mass * c * t * t * t
    return rho


def lj_forces_cutoff(pos, rc, eps, sigma):
    n = pos.shape[0]
    f = np.zeros((n, 3))
    energy = 0.0
    rc2 = rc * rc
    s6 = sigma ** 6
    for i in range(n - 1):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dz = pos[i, 2] - pos[j, 2]
            r2 = dx * dx + dy * dy + dz * dz
            if r2 >= rc2 or r2 == 0.0:
                continue
            inv2 = 1.0 / r2
            inv6 = inv2 * inv2 * inv2 * s6
            energy += 4 * eps * (inv6 * inv6 - inv6)
            fs = 24 * eps * inv2 * (2 * inv6 * inv6 - inv6)
            f[i, 0] += fs * dx
            f[i, 1] += fs * dy
            f[i, 2] += fs * dz
            f[j, 0] -= fs * dx
            f[j, 1] -= fs * dy
            f[j, 2] -= fs * dz
    return f, energy


def verlet_pairs_count_then_fill(pos, rlist):
    n = pos.shape[0]
    cnt = 0
    for i in range(n):
        for j in range(i + 1, n):
            d = 0.0
            for k in range(pos.shape[1]):
                t = pos[i, k] - pos[j, k]
                d += t * t
            if d < rlist * rlist:
                cnt += 1
    pairs = np.empty((cnt, 2), dtype=np.int64)
    m = 0
    for i in range(n):
        for j in range(i + 1, n):
            d = 0.0
            for k in range(pos.shape[1]):
                t = pos[i, k] - pos[j, k]
                d += t * t
            if d < rlist * rlist:
                pairs[m, 0] = i
                pairs[m, 1] = j
                m += 1
    return pairs


def ising_metropolis_sweep(spins, beta, rand):
    # one checkerboard-free sweep, site order, periodic; rand[i, j] uniform in [0, 1)
    L, M = spins.shape
    s = spins.copy()
    accepted = 0
    for i in range(L):
        for j in range(M):
            nb = s[(i + 1) % L, j] + s[(i - 1) % L, j] + s[i, (j + 1) % M] + s[i, (j - 1) % M]
            dE = 2 * s[i, j] * nb
            if dE <= 0 or rand[i, j] < math.exp(-beta * dE):
                s[i, j] = -s[i, j]
                accepted += 1
    return s, accepted


def velocity_verlet_harmonic(x0, v0, k, m, dt, steps):
    x = x0.copy()
    v = v0.copy()
    a = -k / m * x
    for _ in range(steps):
        x += v * dt + 0.5 * a * dt * dt
        a_new = -k / m * x
        v += 0.5 * (a + a_new) * dt
        a = a_new
    return x, v


# ---------------------------------------------------------------- machine learning


def kmeans_pp_init(X, u, k):
    # k-means++ seeding with the uniforms u[0..k-1] given (D^2 sampling by a cumulative search)
    n, d = X.shape
    centers = np.empty(k, dtype=np.int64)
    centers[0] = min(int(u[0] * n), n - 1)
    dist = np.empty(n)
    for i in range(n):
        s = 0.0
        for t in range(d):
            diff = X[i, t] - X[centers[0], t]
            s += diff * diff
        dist[i] = s
    for c in range(1, k):
        total = 0.0
        for i in range(n):
            total += dist[i]
        target = u[c] * total
        acc = 0.0
        pick = n - 1
        for i in range(n):
            acc += dist[i]
            if acc >= target:
                pick = i
                break
        centers[c] = pick
        for i in range(n):
            s = 0.0
            for t in range(d):
                diff = X[i, t] - X[pick, t]
                s += diff * diff
            if s < dist[i]:
                dist[i] = s
    return centers


def kmedoids_cost_swap(D, medoids):
    # total cost of assigning each point to its nearest medoid, then the best single swap's cost
    n = D.shape[0]
    k = medoids.shape[0]
    best_cost = 0.0
    for i in range(n):
        m = np.inf
        for a in range(k):
            if D[i, medoids[a]] < m:
                m = D[i, medoids[a]]
        best_cost += m
    best_swap = best_cost
    for a in range(k):
        for cand in range(n):
            cost = 0.0
            for i in range(n):
                m = D[i, cand]
                for b in range(k):
                    if b != a and D[i, medoids[b]] < m:
                        m = D[i, medoids[b]]
                cost += m
            if cost < best_swap:
                best_swap = cost
    return best_cost, best_swap


def logreg_gd_steps(X, y, lr, iters, l2):
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    for _ in range(iters):
        gw = np.zeros(d)
        gb = 0.0
        for i in range(n):
            z = b
            for j in range(d):
                z += X[i, j] * w[j]
            err = _sigmoid(z) - y[i]
            for j in range(d):
                gw[j] += err * X[i, j]
            gb += err
        for j in range(d):
            w[j] -= lr * (gw[j] / n + l2 * w[j])
        b -= lr * gb / n
    return w, b


def gaussian_nb_fit_predict(X, y, Xt, nclass):
    n, d = X.shape
    mu = np.zeros((nclass, d))
    var = np.zeros((nclass, d))
    cnt = np.zeros(nclass)
    for i in range(n):
        c = y[i]
        cnt[c] += 1
        for j in range(d):
            mu[c, j] += X[i, j]
    for c in range(nclass):
        for j in range(d):
            mu[c, j] /= max(cnt[c], 1.0)
    for i in range(n):
        c = y[i]
        for j in range(d):
            t = X[i, j] - mu[c, j]
            var[c, j] += t * t
    for c in range(nclass):
        for j in range(d):
            var[c, j] = var[c, j] / max(cnt[c], 1.0) + 1e-9
    m = Xt.shape[0]
    pred = np.empty(m, dtype=np.int64)
    for i in range(m):
        best = -np.inf
        arg = 0
        for c in range(nclass):
            if cnt[c] == 0:
                continue
            lp = math.log(cnt[c] / n)
            for j in range(d):
                t = Xt[i, j] - mu[c, j]
                lp -= 0.5 * math.log(2 * math.pi * var[c, j]) + t * t / (2 * var[c, j])
            if lp > best:
                best = lp
                arg = c
        pred[i] = arg
    return pred


def decision_stump_best(x, y, w):
    # weighted 0/1 stump on one feature: threshold over sorted values, polarity +-1
    order = np.argsort(x, kind="mergesort")
    n = x.shape[0]
    total_pos = 0.0
    total_neg = 0.0
    for i in range(n):
        if y[i] > 0:
            total_pos += w[i]
        else:
            total_neg += w[i]
    best_err = min(total_pos, total_neg)
    best_thr = -np.inf
    best_pol = 1 if total_pos >= total_neg else -1
    left_pos = 0.0
    left_neg = 0.0
    for k in range(n - 1):
        i = order[k]
        if y[i] > 0:
            left_pos += w[i]
        else:
            left_neg += w[i]
        if x[order[k + 1]] == x[i]:
            continue
        err1 = left_pos + (total_neg - left_neg)
        err2 = left_neg + (total_pos - left_pos)
        thr = 0.5 * (x[i] + x[order[k + 1]])
        if err1 < best_err:
            best_err = err1
            best_thr = thr
            best_pol = 1
        if err2 < best_err:
            best_err = err2
            best_thr = thr
            best_pol = -1
    return best_thr, best_pol, best_err


def gbm_split_gain(x_binned, grad, hess, nbins, lam):
    # histogram-based split search (LightGBM style) on one binned feature
    G = np.zeros(nbins)
    H = np.zeros(nbins)
    for i in range(x_binned.shape[0]):
        b = x_binned[i]
        G[b] += grad[i]
        H[b] += hess[i]
    gt = G.sum()
    ht = H.sum()
    parent = gt * gt / (ht + lam)
    gl = 0.0
    hl = 0.0
    best = 0.0
    best_bin = -1
    for b in range(nbins - 1):
        gl += G[b]
        hl += H[b]
        gr = gt - gl
        hr = ht - hl
        gain = gl * gl / (hl + lam) + gr * gr / (hr + lam) - parent
        if gain > best:
            best = gain
            best_bin = b
    return best_bin, 0.5 * best


def averaged_perceptron_loops(X, y, epochs):
    n, d = X.shape
    w = np.zeros(d + 1)
    wsum = np.zeros(d + 1)
    mistakes = 0
    for _ in range(epochs):
        errs = 0
        for i in range(n):
            a = w[d]
            for j in range(d):
                a += w[j] * X[i, j]
            if y[i] * a <= 0:
                for j in range(d):
                    w[j] += y[i] * X[i, j]
                w[d] += y[i]
                errs += 1
            for j in range(d + 1):
                wsum[j] += w[j]
        mistakes += errs
        if errs == 0:
            break
    return wsum / max(1, n * epochs), mistakes


def kmp_prefix_function(s):
    n = s.shape[0]
    pi = np.zeros(n, dtype=np.int64)
    for i in range(1, n):
        k = pi[i - 1]
        while k > 0 and s[i] != s[k]:
            k = pi[k - 1]
        if s[i] == s[k]:
            k += 1
        pi[i] = k
    return pi


def z_function_arr(s):
    n = s.shape[0]
    z = np.zeros(n, dtype=np.int64)
    if n == 0:
        return z
    z[0] = n
    l = 0
    r = 0
    for i in range(1, n):
        if i < r:
            z[i] = min(r - i, z[i - l])
        while i + z[i] < n and s[z[i]] == s[i + z[i]]:
            z[i] += 1
        if i + z[i] > r:
            l = i
            r = i + z[i]
    return z


def rle_encode_pairs(a):
    n = a.shape[0]
    if n == 0:
        return np.empty(0, dtype=a.dtype), np.empty(0, dtype=np.int64)
    runs = 1
    for i in range(1, n):
        if a[i] != a[i - 1]:
            runs += 1
    vals = np.empty(runs, dtype=a.dtype)
    lens = np.empty(runs, dtype=np.int64)
    k = 0
    vals[0] = a[0]
    lens[0] = 1
    for i in range(1, n):
        if a[i] == a[i - 1]:
            lens[k] += 1
        else:
            k += 1
            vals[k] = a[i]
            lens[k] = 1
    return vals, lens


def rle_expand_fixed(vals, lens, total):
    out = np.empty(total, dtype=vals.dtype)
    pos = 0
    for k in range(vals.shape[0]):
        for t in range(lens[k]):
            if pos < total:
                out[pos] = vals[k]
            pos += 1
    return out


def levenshtein_banded(a, b, band):
    n = a.shape[0]
    m = b.shape[0]
    big = n + m + 1
    prev = np.full(m + 1, big, dtype=np.int64)
    cur = np.full(m + 1, big, dtype=np.int64)
    for j in range(min(m, band) + 1):
        prev[j] = j
    for i in range(1, n + 1):
        for j in range(m + 1):
            cur[j] = big
        lo = max(0, i - band)
        hi = min(m, i + band)
        if lo == 0:
            cur[0] = i
            lo = 1
        for j in range(lo, hi + 1):
            c = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + c)
        prev, cur = cur, prev
    return min(prev[m], big)


def longest_common_prefix_pairs(s, starts_a, starts_b):
    n = s.shape[0]
    out = np.zeros(starts_a.shape[0], dtype=np.int64)
    for q in range(starts_a.shape[0]):
        i = starts_a[q]
        j = starts_b[q]
        k = 0
        while i + k < n and j + k < n and s[i + k] == s[j + k]:
            k += 1
        out[q] = k
    return out


# ---------------------------------------------------------------- graphs


def dijkstra_dense_matrix(W, src):
    n = W.shape[0]
    dist = np.full(n, np.inf)
    done = np.zeros(n, dtype=np.bool_)
    prev = np.full(n, -1, dtype=np.int64)
    dist[src] = 0.0
    for _ in range(n):
        u = -1
        best = np.inf
        for v in range(n):
            if not done[v] and dist[v] < best:
                best = dist[v]
                u = v
        if u == -1:
            break
        done[u] = True
        for v in range(n):
            if W[u, v] > 0 and dist[u] + W[u, v] < dist[v]:
                dist[v] = dist[u] + W[u, v]
                prev[v] = u
    return dist, prev


def pagerank_power_dense(A, d, tol, maxit):
    n = A.shape[0]
    outdeg = A.sum(axis=1)
    r = np.full(n, 1.0 / n)
    it = 0
    while it < maxit:
        nr = np.full(n, (1.0 - d) / n)
        dangling = 0.0
        for i in range(n):
            if outdeg[i] == 0:
                dangling += r[i]
        for i in range(n):
            if outdeg[i] > 0:
                share = d * r[i] / outdeg[i]
                for j in range(n):
                    if A[i, j] != 0:
                        nr[j] += share
        for j in range(n):
            nr[j] += d * dangling / n
        diff = 0.0
        for j in range(n):
            diff += abs(nr[j] - r[j])
        r = nr
        it += 1
        if diff < tol:
            break
    return r, it


def dag_longest_path_topo(order, indptr, indices, weight):
    # order is a topological order; edges in CSR
    n = order.shape[0]
    best = np.zeros(n)
    for t in range(n):
        u = order[t]
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if best[u] + weight[e] > best[v]:
                best[v] = best[u] + weight[e]
    return best.max() if n > 0 else 0.0


def floyd_warshall_count_neg(W):
    n = W.shape[0]
    D = W.copy()
    for k in range(n):
        for i in range(n):
            dik = D[i, k]
            for j in range(n):
                if dik + D[k, j] < D[i, j]:
                    D[i, j] = dik + D[k, j]
    neg = 0
    for i in range(n):
        if D[i, i] < 0:
            neg += 1
    return D, neg


# ---------------------------------------------------------------- geometry


def point_in_polygon_ray(px, py, vx, vy):
    m = px.shape[0]
    n = vx.shape[0]
    inside = np.zeros(m, dtype=np.bool_)
    for q in range(m):
        c = False
        j = n - 1
        for i in range(n):
            if (vy[i] > py[q]) != (vy[j] > py[q]):
                xint = (vx[j] - vx[i]) * (py[q] - vy[i]) / (vy[j] - vy[i]) + vx[i]
                if px[q] < xint:
                    c = not c
            j = i
        inside[q] = c
    return inside


def monotone_chain_hull_area(xs, ys):
    order = np.argsort(xs * 1e6 + ys, kind="mergesort")
    n = xs.shape[0]
    if n < 3:
        return 0.0
    hx = np.empty(2 * n)
    hy = np.empty(2 * n)
    k = 0
    for t in range(n):
        i = order[t]
        while k >= 2 and _cross2(hx[k - 2], hy[k - 2], hx[k - 1], hy[k - 1], xs[i], ys[i]) <= 0:
            k -= 1
        hx[k] = xs[i]
        hy[k] = ys[i]
        k += 1
    lower = k + 1
    for t in range(n - 2, -1, -1):
        i = order[t]
        while k >= lower and _cross2(hx[k - 2], hy[k - 2], hx[k - 1], hy[k - 1], xs[i], ys[i]) <= 0:
            k -= 1
        hx[k] = xs[i]
        hy[k] = ys[i]
        k += 1
    area = 0.0
    for t in range(k - 1):
        area += hx[t] * hy[t + 1] - hx[t + 1] * hy[t]
    return 0.5 * abs(area)


def haversine_pairwise_km(lat, lon):
    n = lat.shape[0]
    out = np.zeros((n, n))
    R = 6371.0
    for i in range(n):
        for j in range(i + 1, n):
            p1 = math.radians(lat[i])
            p2 = math.radians(lat[j])
            dp = p2 - p1
            dl = math.radians(lon[j] - lon[i])
            a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
            d = 2 * R * math.asin(math.sqrt(a))
            out[i, j] = d
            out[j, i] = d
    return out


def polyline_length_and_centroid(x, y):
    n = x.shape[0]
    L = 0.0
    cx = 0.0
    cy = 0.0
    for i in range(n - 1):
        seg = math.hypot(x[i + 1] - x[i], y[i + 1] - y[i])
        L += seg
        cx += seg * 0.5 * (x[i] + x[i + 1])
        cy += seg * 0.5 * (y[i] + y[i + 1])
    if L == 0.0:
        return 0.0, 0.0, 0.0
    return L, cx / L, cy / L


# ---------------------------------------------------------------- statistics


def weighted_incremental_variance(x, w):
    # West (1979): weighted mean and (reliability-free) weighted variance in one pass
    wsum = 0.0
    mean = 0.0
    S = 0.0
    for i in range(x.shape[0]):
        if w[i] <= 0:
            continue
        wsum_old = wsum
        wsum += w[i]
        delta = x[i] - mean
        mean += delta * w[i] / wsum
        S += w[i] * delta * (x[i] - mean)
        if wsum_old == 0.0:
            S = 0.0
    if wsum == 0.0:
        return np.nan, np.nan
    return mean, S / wsum


def quickselect_median_copy(x):
    a = x.copy()
    n = a.shape[0]
    k = n // 2
    lo = 0
    hi = n - 1
    while lo < hi:
        pivot = a[(lo + hi) // 2]
        i = lo
        j = hi
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


def rank_average_ties(x):
    n = x.shape[0]
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(n)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and x[order[j + 1]] == x[order[i]]:
            j += 1
        avg = 0.5 * (i + j) + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = avg
        i = j + 1
    return ranks


def bootstrap_mean_ci(x, idx):
    # idx[b, n]: given resampling indices; returns the bootstrap means and a crude 90% interval
    B, n = idx.shape
    means = np.empty(B)
    for b in range(B):
        s = 0.0
        for t in range(n):
            s += x[idx[b, t]]
        means[b] = s / n
    srt = np.sort(means)
    lo = srt[int(0.05 * (B - 1))]
    hi = srt[int(0.95 * (B - 1))]
    return means, lo, hi


def spearman_loop(x, y):
    rx = rank_average_ties(x)
    ry = rank_average_ties(y)
    n = x.shape[0]
    mx = 0.0
    my = 0.0
    for i in range(n):
        mx += rx[i]
        my += ry[i]
    mx /= n
    my /= n
    sxy = 0.0
    sxx = 0.0
    syy = 0.0
    for i in range(n):
        sxy += (rx[i] - mx) * (ry[i] - my)
        sxx += (rx[i] - mx) ** 2
        syy += (ry[i] - my) ** 2
    if sxx == 0 or syy == 0:
        return 0.0
    return sxy / math.sqrt(sxx * syy)


def moving_mad_f32(x, w):
    n = x.shape[0]
    out = np.zeros(n, dtype=np.float32)
    for i in range(w - 1, n):
        m = np.float32(0.0)
        for k in range(i - w + 1, i + 1):
            m += x[k]
        m /= w
        d = np.float32(0.0)
        for k in range(i - w + 1, i + 1):
            d += abs(x[k] - m)
        out[i] = d / w
    return out


# ---------------------------------------------------------------- numerical methods


def lambert_w_newton(x, tol, maxit):
    # principal branch W(x) for x >= 0 by Newton on w e^w - x; iteration counts too
    out = np.empty_like(x)
    iters = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        if x[i] == 0.0:
            out[i] = 0.0
            continue
        w = math.log1p(x[i])
        k = 0
        while k < maxit:
            ew = math.exp(w)
            f = w * ew - x[i]
            nw = w - f / (ew * (w + 1.0))
            k += 1
            if abs(nw - w) <= tol * (1.0 + abs(nw)):
                w = nw
                break
            w = nw
        out[i] = w
        iters[i] = k
    return out, iters


def bisection_cubic_roots(c, lo, hi, tol):
    # root of c0 + c1 x + c2 x^2 + c3 x^3 in [lo[i], hi[i]] per row of c, nan without a sign change
    m = c.shape[0]
    out = np.empty(m)
    for r in range(m):
        a = lo[r]
        b = hi[r]
        fa = _poly_eval(c[r], a)
        fb = _poly_eval(c[r], b)
        if fa * fb > 0:
            out[r] = np.nan
            continue
        while b - a > tol:
            mid = 0.5 * (a + b)
            fm = _poly_eval(c[r], mid)
            if fa * fm <= 0:
                b = mid
            else:
                a = mid
                fa = fm
        out[r] = 0.5 * (a + b)
    return out


def romberg_exp_sin(a, b, levels):
    R = np.zeros((levels, levels))
    h = b - a
    R[0, 0] = 0.5 * h * (math.exp(math.sin(a)) + math.exp(math.sin(b)))
    for i in range(1, levels):
        h /= 2
        s = 0.0
        for k in range(1, 2 ** i, 2):
            s += math.exp(math.sin(a + k * h))
        R[i, 0] = 0.5 * R[i - 1, 0] + h * s
        for j in range(1, i + 1):
            R[i, j] = R[i, j - 1] + (R[i, j - 1] - R[i - 1, j - 1]) / (4 ** j - 1)
    return R[levels - 1, levels - 1]


def sgs_forward_backward(A, b, sweeps):
    # symmetric Gauss-Seidel: a forward then a backward sweep, the residual's norm at the end
    n = A.shape[0]
    x = np.zeros(n)
    for _ in range(sweeps):
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            x[i] = s / A[i, i]
        for i in range(n - 1, -1, -1):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            x[i] = s / A[i, i]
    res = 0.0
    for i in range(n):
        t = b[i]
        for j in range(n):
            t -= A[i, j] * x[j]
        res += t * t
    return x, math.sqrt(res)


def conjugate_gradient_dense(A, b, tol, maxit):
    n = b.shape[0]
    x = np.zeros(n)
    r = b.copy()
    p = r.copy()
    rs = r @ r
    k = 0
    while k < maxit and math.sqrt(rs) > tol:
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
        k += 1
    return x, k


def householder_qr_r(A):
    m, n = A.shape
    R = A.copy()
    for k in range(min(m - 1, n)):
        norm = 0.0
        for i in range(k, m):
            norm += R[i, k] * R[i, k]
        norm = math.sqrt(norm)
        if norm == 0.0:
            continue
        alpha = -norm if R[k, k] >= 0 else norm
        v = np.zeros(m)
        v[k] = R[k, k] - alpha
        for i in range(k + 1, m):
            v[i] = R[i, k]
        vnorm2 = 0.0
        for i in range(k, m):
            vnorm2 += v[i] * v[i]
        if vnorm2 == 0.0:
            continue
        for j in range(k, n):
            dot = 0.0
            for i in range(k, m):
                dot += v[i] * R[i, j]
            f = 2.0 * dot / vnorm2
            for i in range(k, m):
                R[i, j] -= f * v[i]
    return R


def power_iteration_rayleigh(A, x0, iters):
    x = x0 / np.linalg.norm(x0)
    lam = 0.0
    for _ in range(iters):
        y = A @ x
        nrm = np.linalg.norm(y)
        if nrm == 0.0:
            return 0.0, x
        x = y / nrm
        lam = x @ (A @ x)
    return lam, x


def secant_kepler(M, e, tol):
    E = M.copy()
    for i in range(M.shape[0]):
        x0 = M[i]
        x1 = M[i] + e
        f0 = x0 - e * math.sin(x0) - M[i]
        f1 = x1 - e * math.sin(x1) - M[i]
        for _ in range(50):
            if f1 == f0:
                break
            x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
            x0, f0 = x1, f1
            x1 = x2
            f1 = x1 - e * math.sin(x1) - M[i]
            if abs(x1 - x0) < tol:
                break
        E[i] = x1
    return E


# ---------------------------------------------------------------- NumPy programs


def standardize_columns_np(X):
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    sd = np.where(sd == 0, 1.0, sd)
    return (X - mu) / sd


def one_hot_labels_np(y, k):
    out = np.zeros((y.shape[0], k), dtype=np.float32)
    out[np.arange(y.shape[0]), y] = 1.0
    return out


def cosine_similarity_matrix_np(X):
    norms = np.sqrt((X * X).sum(axis=1))
    norms[norms == 0] = 1.0
    Xn = X / norms[:, None]
    return Xn @ Xn.T


def batch_norm_forward_np(x, gamma, beta, eps):
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    xhat = (x - mu) / np.sqrt(var + eps)
    return gamma * xhat + beta, mu, var


def im2col_conv2d_np(img, k):
    H, W = img.shape
    kh, kw = k.shape
    oh = H - kh + 1
    ow = W - kw + 1
    cols = np.empty((oh * ow, kh * kw))
    for i in range(oh):
        for j in range(ow):
            cols[i * ow + j] = img[i:i + kh, j:j + kw].ravel()
    return (cols @ k.ravel()).reshape(oh, ow)


def poly_features_deg2_np(X):
    n, d = X.shape
    feats = [np.ones((n, 1)), X]
    for i in range(d):
        for j in range(i, d):
            feats.append((X[:, i] * X[:, j])[:, None])
    return np.hstack(feats)


def masked_mean_std_np(x, mask):
    vals = x[mask]
    if vals.size == 0:
        return np.nan, np.nan
    return vals.mean(), vals.std()


def where_chain_grade_np(scores):
    return np.where(scores >= 90, 4, np.where(scores >= 80, 3, np.where(scores >= 70, 2, np.where(scores >= 60, 1, 0))))


def minmax_scale_clip_np(X, lo, hi):
    mn = X.min(axis=0)
    mx = X.max(axis=0)
    rng = np.where(mx > mn, mx - mn, 1.0)
    return np.clip((X - mn) / rng * (hi - lo) + lo, lo, hi)


def pairwise_sqdist_np(A, B):
    aa = (A * A).sum(axis=1)[:, None]
    bb = (B * B).sum(axis=1)[None, :]
    d = aa + bb - 2.0 * A @ B.T
    return np.maximum(d, 0.0)


def huber_loss_grad_np(r, delta):
    a = np.abs(r)
    loss = np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))
    grad = np.where(a <= delta, r, delta * np.sign(r))
    return loss.mean(), grad


def confusion_matrix_np(y_true, y_pred, k):
    cm = np.zeros((k, k), dtype=np.int64)
    np.add.at(cm, (y_true, y_pred), 1)
    return cm


def winsorize_quantile_np(x, q):
    lo = np.quantile(x, q)
    hi = np.quantile(x, 1 - q)
    return np.clip(x, lo, hi)


def ema_crossover_signal_np(p, a_fast, a_slow):
    fast = np.empty_like(p)
    slow = np.empty_like(p)
    fast[0] = p[0]
    slow[0] = p[0]
    for i in range(1, p.shape[0]):
        fast[i] = a_fast * p[i] + (1 - a_fast) * fast[i - 1]
        slow[i] = a_slow * p[i] + (1 - a_slow) * slow[i - 1]
    sig = np.sign(fast - slow).astype(np.int64)
    return sig, np.count_nonzero(np.diff(sig))


# ---------------------------------------------------------------- inputs


def _sos(rng, k):
    sos = np.zeros((k, 6))
    for s in range(k):
        r = 0.3 + 0.5 * rng.random()
        th = rng.random() * 3.0
        sos[s, :3] = rng.standard_normal(3) * 0.5
        sos[s, 3] = 1.0
        sos[s, 4] = -2 * r * math.cos(th)
        sos[s, 5] = r * r
    return sos


def _dag_order(rng, n):
    a = np.triu(rng.random((n, n)) < 0.4, 1)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(a.sum(axis=1))
    indices = np.nonzero(a)[1].astype(np.int64)
    return np.arange(n), indptr, indices, rng.random(indices.shape[0]) * 3


def _spd(rng, n):
    m = rng.standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


def _dd(rng, n):
    a = rng.standard_normal((n, n))
    return a + np.diag(np.abs(a).sum(axis=1) + 1.0)


def _polygon(rng, k):
    th = np.sort(rng.random(k)) * 2 * math.pi
    rad = 1 + 0.5 * rng.random(k)
    return rad * np.cos(th), rad * np.sin(th)


def _pip(rng):
    vx, vy = _polygon(rng, 7)
    m = _n(rng, 9)
    return rng.random(m) * 3 - 1.5, rng.random(m) * 3 - 1.5, vx, vy


CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


F = dict(rtol=1e-9, atol=1e-12)

_add("biquad_cascade_df2t", biquad_cascade_df2t, lambda r: (r.standard_normal(_n(r, 16)), _sos(r, 2)), **F)
_add("goertzel_bins", goertzel_bins, lambda r: (r.standard_normal(_n(r, 16, 2)), np.array([1, 2, 3])), **F)
_add("autocorr_biased_loops", autocorr_biased_loops, lambda r: (r.standard_normal(_n(r, 12, 4)), 3), **F)
_add("cic_interp_int", cic_interp_int, lambda r: (r.integers(-20, 20, _n(r, 8)).astype(np.int32), 3, 2))
_add("preemphasis_f32", preemphasis_f32, lambda r: (r.standard_normal(_n(r, 10, 0)).astype(np.float32), 0.97),
     rtol=1e-6, atol=1e-6)
_add("lif_neuron_spikes", lif_neuron_spikes, lambda r: (r.random(_n(r, 20, 0)) * 3.0, 0.5, 2.0, 1.0, 0.0), **F)
_add("box_sum_from_integral", box_sum_from_integral, lambda r: (r.random((_n(r, 6, 1), 5)), 1), **F)
_add("hist_equalize_u8", hist_equalize_u8, lambda r: (r.integers(10, 60, (_n(r, 6), 5), dtype=np.uint8),))
_add("median3x3_sort9", median3x3_sort9, lambda r: (r.random((_n(r, 6, 2), 5)),))
_add("bilateral_gray_2d", bilateral_gray_2d, lambda r: (r.random((_n(r, 5, 1), 4)), 1, 1.0, 0.3), **F)
_add("guided_filter_1d", guided_filter_1d, lambda r: (lambda n: (r.random(n), r.random(n), 2, 1e-2))(_n(r, 10)), **F)
_add("connected_components_uf", connected_components_uf, lambda r: (r.random((_n(r, 6, 1), 5)) < 0.5,))
_add("count_islands_uf", count_islands_uf, lambda r: (r.random((_n(r, 6, 1), 5)) < 0.5,))
_add("binomial_american_put", binomial_american_put, lambda r: (100.0, 95.0 + 10 * r.random(), 1.0, 0.03, 0.25,
                                                                 int(_n(r, 12))), **F)
_add("trinomial_euro_call", trinomial_euro_call, lambda r: (100.0, 90.0 + 20 * r.random(), 0.5, 0.02, 0.3,
                                                             int(_n(r, 8))), **F)
_add("rolling_vwap", rolling_vwap, lambda r: (lambda n: (100 + r.standard_normal(n), r.random(n) * 10, 3))(_n(r, 12, 2)),
     rtol=1e-8, atol=1e-10)
_add("max_drawdown_with_dates", max_drawdown_with_dates, lambda r: (np.cumprod(1 + 0.05 * r.standard_normal(_n(r, 15))),),
     **F)
_add("rolling_sharpe", rolling_sharpe, lambda r: (0.01 * r.standard_normal(_n(r, 14, 3)), 4, 252), rtol=1e-7, atol=1e-9)
_add("match_orders_fifo", match_orders_fifo, lambda r: (r.integers(1, 10, _n(r, 6, 1)), r.integers(1, 10, 5)))
_add("ewma_vol_riskmetrics", ewma_vol_riskmetrics, lambda r: (0.01 * r.standard_normal(_n(r, 12, 0)), 0.94), **F)
_add("sph_density_poly6", sph_density_poly6, lambda r: (lambda n: (r.random(n), r.random(n), 0.02, 0.4))(_n(r, 9)), **F)
_add("lj_forces_cutoff", lj_forces_cutoff, lambda r: (r.random((_n(r, 7), 3)) * 3, 2.5, 1.0, 0.8), rtol=1e-8,
     atol=1e-8)
_add("verlet_pairs_count_then_fill", verlet_pairs_count_then_fill, lambda r: (r.random((_n(r, 8), 2)), 0.5))
_add("ising_metropolis_sweep", ising_metropolis_sweep,
     lambda r: (lambda L: (r.choice(np.array([-1, 1]), (L, 4)), 0.4, r.random((L, 4))))(_n(r, 4, 2)))
_add("velocity_verlet_harmonic", velocity_verlet_harmonic,
     lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n), 2.0, 1.5, 0.05, 6))(_n(r, 5)), **F)
_add("kmeans_pp_init", kmeans_pp_init, lambda r: (r.standard_normal((_n(r, 10, 3), 2)), r.random(3), 3))
_add("kmedoids_cost_swap", kmedoids_cost_swap, lambda r: (lambda X: (np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)),
                                                                     np.array([0, 1])))(r.random((_n(r, 7, 2), 2))), **F)
_add("logreg_gd_steps", logreg_gd_steps, lambda r: (lambda n: (r.standard_normal((n, 3)), (r.random(n) < 0.5).astype(np.float64),
                                                              0.1, 5, 0.01))(_n(r, 9)), **F)
_add("gaussian_nb_fit_predict", gaussian_nb_fit_predict, lambda r: (lambda n: (r.standard_normal((n, 2)), r.integers(0, 3, n),
                                                                              r.standard_normal((4, 2)), 3))(_n(r, 12)), **F)
_add("decision_stump_best", decision_stump_best, lambda r: (lambda n: (r.integers(0, 5, n) * 0.5, np.where(r.random(n) < 0.5, 1, -1),
                                                                      r.random(n)))(_n(r, 10)), **F)
_add("gbm_split_gain", gbm_split_gain, lambda r: (lambda n: (r.integers(0, 6, n), r.standard_normal(n), r.random(n) + 0.1, 6,
                                                           1.0))(_n(r, 14)), **F)
_add("averaged_perceptron_loops", averaged_perceptron_loops,
     lambda r: (lambda n: (r.standard_normal((n, 2)), np.where(r.random(n) < 0.5, 1.0, -1.0), 4))(_n(r, 8)), **F)
_add("kmp_prefix_function", kmp_prefix_function, lambda r: (r.integers(0, 2, _n(r, 14, 0)).astype(np.int32),))
_add("z_function_arr", z_function_arr, lambda r: (r.integers(0, 2, _n(r, 14, 0)).astype(np.uint8),))
_add("rle_encode_pairs", rle_encode_pairs, lambda r: (r.integers(0, 3, _n(r, 14, 0)).astype(np.int16),))
_add("rle_expand_fixed", rle_expand_fixed, lambda r: (lambda k: (r.integers(0, 9, k), r.integers(0, 4, k), 8))(_n(r, 5)))
_add("levenshtein_banded", levenshtein_banded, lambda r: (r.integers(0, 3, _n(r, 8, 1)), r.integers(0, 3, 7), 3))
_add("longest_common_prefix_pairs", longest_common_prefix_pairs,
     lambda r: (lambda n: (r.integers(0, 2, n), r.integers(0, n, 4), r.integers(0, n, 4)))(_n(r, 12)))
_add("dijkstra_dense_matrix", dijkstra_dense_matrix,
     lambda r: (lambda n: (r.random((n, n)) * (r.random((n, n)) < 0.5), 0))(_n(r, 6)), **F)
_add("pagerank_power_dense", pagerank_power_dense, lambda r: ((r.random((_n(r, 6), _n(r, 6, 6))) < 0.4).astype(np.float64),
                                                              0.85, 1e-10, 30), **F)
_add("dag_longest_path_topo", dag_longest_path_topo, lambda r: _dag_order(r, _n(r, 7, 1)), **F)
_add("floyd_warshall_count_neg", floyd_warshall_count_neg,
     lambda r: (lambda n: (np.where(np.eye(n) > 0, 0.0,
                                    np.where(r.random((n, n)) < 0.5, r.random((n, n)) * 4 - 0.5, np.inf)),))(_n(r, 5)),
     **F)
_add("point_in_polygon_ray", point_in_polygon_ray, _pip)
_add("monotone_chain_hull_area", monotone_chain_hull_area, lambda r: (lambda n: (r.random(n), r.random(n)))(_n(r, 9, 2)),
     **F)
_add("haversine_pairwise_km", haversine_pairwise_km, lambda r: (lambda n: (r.random(n) * 180 - 90, r.random(n) * 360 - 180))(_n(r, 5)),
     rtol=1e-9, atol=1e-9)
_add("polyline_length_and_centroid", polyline_length_and_centroid,
     lambda r: (lambda n: (r.random(n), r.random(n)))(_n(r, 6, 1)), **F)
_add("weighted_incremental_variance", weighted_incremental_variance,
     lambda r: (lambda n: (r.standard_normal(n), r.random(n) - 0.2))(_n(r, 9, 1)), **F)
_add("quickselect_median_copy", quickselect_median_copy, lambda r: (r.integers(0, 6, _n(r, 11, 1)).astype(np.float64),))
_add("rank_average_ties", rank_average_ties, lambda r: (r.integers(0, 4, _n(r, 9, 1)).astype(np.float64),))
_add("bootstrap_mean_ci", bootstrap_mean_ci, lambda r: (lambda n: (r.standard_normal(n), r.integers(0, n, (_n(r, 10, 1), n))))(6),
     **F)
_add("spearman_loop", spearman_loop, lambda r: (lambda n: (r.integers(0, 4, n) * 1.0, r.standard_normal(n)))(_n(r, 8, 2)),
     **F)
_add("moving_mad_f32", moving_mad_f32, lambda r: (r.standard_normal(_n(r, 10, 2)).astype(np.float32), 3), rtol=1e-5,
     atol=1e-6)
_add("lambert_w_newton", lambert_w_newton, lambda r: (r.random(_n(r, 7)) * 10 * (r.random(1) < 0.9), 1e-13, 40), **F)
_add("bisection_cubic_roots", bisection_cubic_roots,
     lambda r: (lambda m: (r.standard_normal((m, 4)), -np.ones(m) * 2, np.ones(m) * 2, 1e-9))(_n(r, 5)), **F)
_add("romberg_exp_sin", romberg_exp_sin, lambda r: (0.0, 1.0 + r.random(), int(_n(r, 5, 1))), **F)
_add("sgs_forward_backward", sgs_forward_backward, lambda r: (lambda n: (_dd(r, n), r.standard_normal(n), 4))(_n(r, 5)),
     rtol=1e-8, atol=1e-10)
_add("conjugate_gradient_dense", conjugate_gradient_dense,
     lambda r: (lambda n: (_spd(r, n), r.standard_normal(n), 1e-10, 50))(_n(r, 5)), rtol=1e-7, atol=1e-9)
_add("householder_qr_r", householder_qr_r, lambda r: (r.standard_normal((_n(r, 5, 1), 3)),), rtol=1e-8, atol=1e-10)
_add("power_iteration_rayleigh", power_iteration_rayleigh, lambda r: (lambda n: (_spd(r, n), r.standard_normal(n) + 0.1, 8))(_n(r, 4)),
     rtol=1e-8, atol=1e-10)
_add("secant_kepler", secant_kepler, lambda r: (r.random(_n(r, 6)) * 6, 0.3, 1e-12), rtol=1e-8, atol=1e-10)
_add("standardize_columns_np", standardize_columns_np, lambda r: (r.standard_normal((_n(r, 6, 1), 3)),), **F)
_add("one_hot_labels_np", one_hot_labels_np, lambda r: (r.integers(0, 4, _n(r, 7, 0)), 4))
_add("cosine_similarity_matrix_np", cosine_similarity_matrix_np, lambda r: (r.standard_normal((_n(r, 5), 3)),), **F)
_add("batch_norm_forward_np", batch_norm_forward_np, lambda r: (r.standard_normal((_n(r, 6), 3)), r.random(3), r.random(3),
                                                                 1e-5), **F)
_add("im2col_conv2d_np", im2col_conv2d_np, lambda r: (r.random((_n(r, 6, 3), 5)), r.random((3, 2))), **F)
_add("poly_features_deg2_np", poly_features_deg2_np, lambda r: (r.standard_normal((_n(r, 5, 1), 3)),), **F)
_add("masked_mean_std_np", masked_mean_std_np, lambda r: (lambda n: (r.standard_normal(n), r.random(n) < 0.5))(_n(r, 8, 1)),
     **F)
_add("where_chain_grade_np", where_chain_grade_np, lambda r: (r.integers(40, 101, _n(r, 9)),))
_add("minmax_scale_clip_np", minmax_scale_clip_np, lambda r: (r.standard_normal((_n(r, 6, 1), 3)), -1.0, 1.0), **F)
_add("pairwise_sqdist_np", pairwise_sqdist_np, lambda r: (r.standard_normal((_n(r, 5), 3)), r.standard_normal((4, 3))),
     rtol=1e-8, atol=1e-10)
_add("huber_loss_grad_np", huber_loss_grad_np, lambda r: (r.standard_normal(_n(r, 9)) * 2, 1.0), **F)
_add("confusion_matrix_np", confusion_matrix_np, lambda r: (lambda n: (r.integers(0, 3, n), r.integers(0, 3, n), 3))(_n(r, 10)))
_add("winsorize_quantile_np", winsorize_quantile_np, lambda r: (r.standard_normal(_n(r, 11, 2)), 0.1), **F)
_add("ema_crossover_signal_np", ema_crossover_signal_np, lambda r: (100 + np.cumsum(r.standard_normal(_n(r, 12, 2))), 0.4, 0.1),
     **F)
