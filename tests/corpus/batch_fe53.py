"""fe53's batch (session 39): numba loop code as third-party users write it, written before
looking at what is supported: a kick-drift-kick n-body step with softening through a helper that
fills the accelerations, periodic cloud-in-cell charge deposit, a checkerboard Ising sweep on given
uniforms, a D1Q3 lattice Boltzmann step, an Euler-Cromer damped pendulum; BFS levels on CSR with a
queue array, PageRank with dangling mass, connected components by label propagation, triangle
counts by sorted-list intersection, shortest paths on a DAG in topological order; word counts,
upper-casing, comma-separated integer parsing, UTF-8 code point counts and naive substring search on uint8 buffers;
edit distance on two swapped rows, longest common substring, coin-change ways, the scaled HMM
forward algorithm, matrix-chain order; winding numbers, polygon area/perimeter/orientation,
segment intersection counts, box IoU matrices; Black-Scholes greeks, a CRR binomial call,
bias-corrected EWMA, drawdown with recovery, implied volatility by Newton; an RBJ biquad low-pass
in direct form I, forward-backward one-pole smoothing, peaks with a minimum distance, an
attack/release envelope; two-pass 4-connected labelling with an equivalence table, bilinear
resize to uint8, cross dilation with ping-pong buffers, a 3-4 chamfer distance transform; an
insertion sort of keys carrying values, a merge of sorted arrays without repeats, interpolation
search of many queries, Shell sort and heap sort with a sift-down helper.  A second round (10,
written after the first's fixes): a Boris particle push, Kruskal's tree with path halving, the
longest palindrome by centre expansion, weighted interval scheduling with a bisection helper,
point-to-polyline distances through an @njit helper returning a tuple, a down-and-out binomial
barrier call, MACD signal crossings with an early return, YIN pitch, gray-world white balance of
a uint8 image, inversions by bottom-up merge sort.  A third round (9): Bellman-Ford on CSR with
an early exit and a negative-cycle return, a float32 EWMA crossover, 2-bit histogram counts that
wrap in uint8, the longest run of True, Viterbi with its backtrack, Gauss-Legendre panels through
nested @njit helpers, LZ77 match lengths, a stable counting sort carrying values, 1-d k-means.

At 8256061 (cpu and python targets, four seeds each, POLYFUSE_NUM_THREADS=2): 39 of the first
42 match, 3 refused, none wrong or crashed; the second round's 10 and the third's 9 match.
After fe53's fixes 60 of 61 match: utf8_codepoints_u8 (``step`` assigned in every branch of an if/elif chain but the
``else`` that ends in ``continue``, read after it in a while loop: frontend/opaque ``_exposed``),
edit_distance_two_rows (``prev, cur = cur, prev`` of ``prev = np.arange(m + 1)``:
frontend/array_swaps) and, in part, ccl_two_pass_4 (``root = _find_label(eq, lab)`` copied from a
local of a Python int and an np.int64 beside int32 arrays: frontend/local_versions ``holders``).
Refused: ccl_two_pass_4, whose ``_find_label(eq, up)`` of an int32 label makes the helper's ``a``
an np.int32 and an np.int64 in its while loop, its result copied into ``ru`` (then ``min(ru, rl)``)
inside the ``for j`` loop kept as written for its ``continue``: a copy there is not followed
(frontend/local_versions.reads_typed; the find alone, ``out[i] = _find_label(eq, labels[i])``,
compiles since fe53)."""

import math

import numpy as np
from corpus_case import Case
from numba import njit


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


# ---------------------------------------------------------------- helpers


@njit
def _accel_soft(pos, mass, eps, acc):
    n = pos.shape[0]
    for i in range(n):
        acc[i, 0] = 0.0
        acc[i, 1] = 0.0
        acc[i, 2] = 0.0
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            r2 = dx * dx + dy * dy + dz * dz + eps * eps
            inv = mass[j] / (r2 * math.sqrt(r2))
            acc[i, 0] += dx * inv
            acc[i, 1] += dy * inv
            acc[i, 2] += dz * inv


@njit
def _orient(ax, ay, bx, by, cx, cy):
    v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    if v > 0:
        return 1
    if v < 0:
        return -1
    return 0


@njit
def _on_segment(ax, ay, bx, by, cx, cy):
    return min(ax, bx) <= cx <= max(ax, bx) and min(ay, by) <= cy <= max(ay, by)


@njit
def _norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@njit
def _norm_pdf(x):
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


@njit
def _bs_call(s, k, t, r, sigma):
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    return s * _norm_cdf(d1) - k * math.exp(-r * t) * _norm_cdf(d2)


@njit
def _find_label(eq, a):
    while eq[a] != a:
        a = eq[a]
    return a


@njit
def _sift_down(a, start, end):
    root = start
    while 2 * root + 1 <= end:
        child = 2 * root + 1
        swap = root
        if a[swap] < a[child]:
            swap = child
        if child + 1 <= end and a[swap] < a[child + 1]:
            swap = child + 1
        if swap == root:
            return
        a[root], a[swap] = a[swap], a[root]
        root = swap


@njit
def _seg_dist2(px, py, ax, ay, bx, by):
    dx = bx - ax
    dy = by - ay
    L2 = dx * dx + dy * dy
    if L2 == 0.0:
        return (px - ax) ** 2 + (py - ay) ** 2, 0.0
    t = ((px - ax) * dx + (py - ay) * dy) / L2
    t = max(0.0, min(1.0, t))
    qx = ax + t * dx
    qy = ay + t * dy
    return (px - qx) ** 2 + (py - qy) ** 2, t


def _last_compatible(ends, start, j):
    lo = 0
    hi = j
    while lo < hi:
        mid = (lo + hi) // 2
        if ends[mid] <= start:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


def _uf_find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit
def _gl3(f_a, f_b, a, b):
    half = 0.5 * (b - a)
    mid = 0.5 * (a + b)
    r = math.sqrt(0.6)
    x0 = mid - half * r
    x2 = mid + half * r
    return half * (5.0 / 9.0 * _bump(x0, f_a, f_b) + 8.0 / 9.0 * _bump(mid, f_a, f_b)
                   + 5.0 / 9.0 * _bump(x2, f_a, f_b))


@njit
def _bump(x, c, w):
    return math.exp(-((x - c) / w) ** 2)


# ---------------------------------------------------------------- physics


def nbody_kdk_soft(pos, vel, mass, dt, eps, nsteps):
    n = pos.shape[0]
    acc = np.zeros((n, 3))
    _accel_soft(pos, mass, eps, acc)
    for step in range(nsteps):
        for i in range(n):
            for d in range(3):
                vel[i, d] += 0.5 * dt * acc[i, d]
                pos[i, d] += dt * vel[i, d]
        _accel_soft(pos, mass, eps, acc)
        for i in range(n):
            for d in range(3):
                vel[i, d] += 0.5 * dt * acc[i, d]
    ke = 0.0
    for i in range(n):
        ke += 0.5 * mass[i] * (vel[i, 0] ** 2 + vel[i, 1] ** 2 + vel[i, 2] ** 2)
    return ke


def pic_deposit_cic_periodic(x, q, ngrid, length):
    rho = np.zeros(ngrid)
    dx = length / ngrid
    for p in range(x.shape[0]):
        xp = x[p] / dx
        j = int(math.floor(xp))
        frac = xp - j
        j0 = j % ngrid
        j1 = (j + 1) % ngrid
        rho[j0] += q[p] * (1.0 - frac) / dx
        rho[j1] += q[p] * frac / dx
    return rho


def ising_checkerboard_sweep(spins, beta, rand):
    L = spins.shape[0]
    M = spins.shape[1]
    accepted = 0
    for color in range(2):
        for i in range(L):
            for j in range(M):
                if (i + j) % 2 != color:
                    continue
                nb = (spins[(i + 1) % L, j] + spins[(i - 1) % L, j]
                      + spins[i, (j + 1) % M] + spins[i, (j - 1) % M])
                dE = 2 * spins[i, j] * nb
                if dE <= 0 or rand[i, j] < math.exp(-beta * dE):
                    spins[i, j] = -spins[i, j]
                    accepted += 1
    return accepted, spins.sum()


def lbm_d1q3_steps(f, omega, nsteps):
    n = f.shape[1]
    w0 = 2.0 / 3.0
    w1 = 1.0 / 6.0
    tmp = np.empty_like(f)
    for step in range(nsteps):
        for i in range(n):
            rho = f[0, i] + f[1, i] + f[2, i]
            u = (f[1, i] - f[2, i]) / rho
            feq0 = w0 * rho * (1.0 - 1.5 * u * u)
            feq1 = w1 * rho * (1.0 + 3.0 * u + 3.0 * u * u)
            feq2 = w1 * rho * (1.0 - 3.0 * u + 3.0 * u * u)
            f[0, i] += omega * (feq0 - f[0, i])
            f[1, i] += omega * (feq1 - f[1, i])
            f[2, i] += omega * (feq2 - f[2, i])
        for i in range(n):
            tmp[0, i] = f[0, i]
            tmp[1, (i + 1) % n] = f[1, i]
            tmp[2, (i - 1 + n) % n] = f[2, i]
        for k in range(3):
            for i in range(n):
                f[k, i] = tmp[k, i]
    dens = np.empty(n)
    for i in range(n):
        dens[i] = f[0, i] + f[1, i] + f[2, i]
    return dens


def pendulum_euler_cromer(theta0, omega0, g, length, b, dt, nsteps):
    theta = np.empty(nsteps + 1)
    omega = np.empty(nsteps + 1)
    theta[0] = theta0
    omega[0] = omega0
    for k in range(nsteps):
        alpha = -(g / length) * math.sin(theta[k]) - b * omega[k]
        omega[k + 1] = omega[k] + alpha * dt
        theta[k + 1] = theta[k] + omega[k + 1] * dt
    return theta, omega


# ---------------------------------------------------------------- graphs on CSR


def bfs_levels_csr_queue(indptr, indices, src):
    n = indptr.shape[0] - 1
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
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if level[v] < 0:
                level[v] = level[u] + 1
                queue[tail] = v
                tail += 1
    return level, tail


def pagerank_csr_dangling(indptr, indices, d, iters):
    n = indptr.shape[0] - 1
    outdeg = np.zeros(n)
    for u in range(n):
        outdeg[u] = indptr[u + 1] - indptr[u]
    pr = np.full(n, 1.0 / n)
    nxt = np.empty(n)
    for it in range(iters):
        dangling = 0.0
        for u in range(n):
            if outdeg[u] == 0:
                dangling += pr[u]
        for v in range(n):
            nxt[v] = (1.0 - d) / n + d * dangling / n
        for u in range(n):
            if outdeg[u] > 0:
                share = d * pr[u] / outdeg[u]
                for k in range(indptr[u], indptr[u + 1]):
                    nxt[indices[k]] += share
        for v in range(n):
            pr[v] = nxt[v]
    return pr


def label_propagation_cc(indptr, indices):
    n = indptr.shape[0] - 1
    label = np.arange(n)
    changed = True
    rounds = 0
    while changed:
        changed = False
        rounds += 1
        for u in range(n):
            for k in range(indptr[u], indptr[u + 1]):
                v = indices[k]
                if label[v] < label[u]:
                    label[u] = label[v]
                    changed = True
                elif label[u] < label[v]:
                    label[v] = label[u]
                    changed = True
    ncomp = 0
    for u in range(n):
        if label[u] == u:
            ncomp += 1
    return label, ncomp, rounds


def triangles_sorted_csr(indptr, indices):
    n = indptr.shape[0] - 1
    count = 0
    for u in range(n):
        for a in range(indptr[u], indptr[u + 1]):
            v = indices[a]
            if v <= u:
                continue
            i = indptr[u]
            j = indptr[v]
            while i < indptr[u + 1] and j < indptr[v + 1]:
                x = indices[i]
                y = indices[j]
                if x == y:
                    if x > v:
                        count += 1
                    i += 1
                    j += 1
                elif x < y:
                    i += 1
                else:
                    j += 1
    return count


def dag_shortest_topo(indptr, indices, weights, order, src):
    n = indptr.shape[0] - 1
    dist = np.full(n, np.inf)
    dist[src] = 0.0
    for t in range(n):
        u = order[t]
        if dist[u] == np.inf:
            continue
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            nd = dist[u] + weights[k]
            if nd < dist[v]:
                dist[v] = nd
    return dist


# ---------------------------------------------------------------- bytes


def word_count_u8(buf):
    words = 0
    lines = 0
    inword = False
    for i in range(buf.shape[0]):
        c = buf[i]
        if c == 10:
            lines += 1
        if c == 32 or c == 10 or c == 9:
            inword = False
        elif not inword:
            inword = True
            words += 1
    return words, lines


def upper_ascii_u8(buf):
    out = np.empty_like(buf)
    changed = 0
    for i in range(buf.shape[0]):
        c = buf[i]
        if 97 <= c <= 122:
            out[i] = c - 32
            changed += 1
        else:
            out[i] = c
    return out, changed


def parse_csv_ints_u8(buf):
    count = 1
    for i in range(buf.shape[0]):
        if buf[i] == 44:
            count += 1
    out = np.zeros(count, dtype=np.int64)
    k = 0
    val = 0
    for i in range(buf.shape[0]):
        c = buf[i]
        if c == 44:
            out[k] = val
            k += 1
            val = 0
        else:
            val = val * 10 + (int(c) - 48)
    out[k] = val
    return out


def utf8_codepoints_u8(buf):
    n = buf.shape[0]
    i = 0
    count = 0
    bad = 0
    while i < n:
        c = buf[i]
        if c < 0x80:
            step = 1
        elif (c & 0xE0) == 0xC0:
            step = 2
        elif (c & 0xF0) == 0xE0:
            step = 3
        elif (c & 0xF8) == 0xF0:
            step = 4
        else:
            bad += 1
            i += 1
            continue
        if i + step > n:
            bad += 1
            break
        ok = True
        for k in range(1, step):
            if (buf[i + k] & 0xC0) != 0x80:
                ok = False
        if ok:
            count += 1
            i += step
        else:
            bad += 1
            i += 1
    return count, bad


def find_substring_u8(hay, needle):
    n = hay.shape[0]
    m = needle.shape[0]
    for i in range(n - m + 1):
        ok = True
        for j in range(m):
            if hay[i + j] != needle[j]:
                ok = False
                break
        if ok:
            return i
    return -1


# ---------------------------------------------------------------- dynamic programming


def edit_distance_two_rows(a, b):
    n = a.shape[0]
    m = b.shape[0]
    prev = np.arange(m + 1)
    cur = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        cur[0] = i
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev, cur = cur, prev
    return prev[m]


def longest_common_substring(a, b):
    n = a.shape[0]
    m = b.shape[0]
    table = np.zeros((n + 1, m + 1), dtype=np.int32)
    best = 0
    end = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                table[i, j] = table[i - 1, j - 1] + 1
                if table[i, j] > best:
                    best = table[i, j]
                    end = i
    return best, end


def coin_change_ways(coins, amount):
    ways = np.zeros(amount + 1, dtype=np.int64)
    ways[0] = 1
    for c in range(coins.shape[0]):
        coin = coins[c]
        for v in range(coin, amount + 1):
            ways[v] += ways[v - coin]
    return ways[amount]


def hmm_forward_scaled(obs, pi, A, B):
    T = obs.shape[0]
    S = pi.shape[0]
    alpha = np.zeros((T, S))
    loglik = 0.0
    c = 0.0
    for s in range(S):
        alpha[0, s] = pi[s] * B[s, obs[0]]
        c += alpha[0, s]
    for s in range(S):
        alpha[0, s] /= c
    loglik += math.log(c)
    for t in range(1, T):
        c = 0.0
        for s in range(S):
            acc = 0.0
            for r in range(S):
                acc += alpha[t - 1, r] * A[r, s]
            alpha[t, s] = acc * B[s, obs[t]]
            c += alpha[t, s]
        for s in range(S):
            alpha[t, s] /= c
        loglik += math.log(c)
    return loglik, alpha


def matrix_chain_order(dims):
    n = dims.shape[0] - 1
    cost = np.zeros((n, n), dtype=np.int64)
    split = np.zeros((n, n), dtype=np.int64)
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            cost[i, j] = 2**62
            for k in range(i, j):
                q = cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1]
                if q < cost[i, j]:
                    cost[i, j] = q
                    split[i, j] = k
    return cost[0, n - 1], split


# ---------------------------------------------------------------- geometry


def winding_numbers(px, py, poly):
    m = poly.shape[0]
    out = np.zeros(px.shape[0], dtype=np.int64)
    for p in range(px.shape[0]):
        x = px[p]
        y = py[p]
        wn = 0
        for i in range(m):
            x0 = poly[i, 0]
            y0 = poly[i, 1]
            x1 = poly[(i + 1) % m, 0]
            y1 = poly[(i + 1) % m, 1]
            side = (x1 - x0) * (y - y0) - (x - x0) * (y1 - y0)
            if y0 <= y:
                if y1 > y and side > 0:
                    wn += 1
            elif y1 <= y and side < 0:
                wn -= 1
        out[p] = wn
    return out


def polygon_area_perimeter(xs, ys):
    n = xs.shape[0]
    area2 = 0.0
    perim = 0.0
    for i in range(n):
        j = i + 1
        if j == n:
            j = 0
        area2 += xs[i] * ys[j] - xs[j] * ys[i]
        perim += math.hypot(xs[j] - xs[i], ys[j] - ys[i])
    return abs(area2) / 2.0, perim, area2 > 0


def count_segment_intersections(seg):
    n = seg.shape[0]
    hits = 0
    for i in range(n):
        for j in range(i + 1, n):
            ax, ay, bx, by = seg[i, 0], seg[i, 1], seg[i, 2], seg[i, 3]
            cx, cy, dx, dy = seg[j, 0], seg[j, 1], seg[j, 2], seg[j, 3]
            o1 = _orient(ax, ay, bx, by, cx, cy)
            o2 = _orient(ax, ay, bx, by, dx, dy)
            o3 = _orient(cx, cy, dx, dy, ax, ay)
            o4 = _orient(cx, cy, dx, dy, bx, by)
            if o1 != o2 and o3 != o4:
                hits += 1
            elif o1 == 0 and _on_segment(ax, ay, bx, by, cx, cy):
                hits += 1
            elif o2 == 0 and _on_segment(ax, ay, bx, by, dx, dy):
                hits += 1
            elif o3 == 0 and _on_segment(cx, cy, dx, dy, ax, ay):
                hits += 1
            elif o4 == 0 and _on_segment(cx, cy, dx, dy, bx, by):
                hits += 1
    return hits


def box_iou_matrix(a, b):
    n = a.shape[0]
    m = b.shape[0]
    iou = np.zeros((n, m))
    for i in range(n):
        area_a = (a[i, 2] - a[i, 0]) * (a[i, 3] - a[i, 1])
        for j in range(m):
            area_b = (b[j, 2] - b[j, 0]) * (b[j, 3] - b[j, 1])
            w = min(a[i, 2], b[j, 2]) - max(a[i, 0], b[j, 0])
            h = min(a[i, 3], b[j, 3]) - max(a[i, 1], b[j, 1])
            if w <= 0 or h <= 0:
                continue
            inter = w * h
            iou[i, j] = inter / (area_a + area_b - inter)
    return iou


# ---------------------------------------------------------------- finance


def bs_call_greeks(S, K, T, r, sigma):
    n = S.shape[0]
    delta = np.empty(n)
    gamma = np.empty(n)
    vega = np.empty(n)
    for i in range(n):
        sq = sigma[i] * math.sqrt(T)
        d1 = (math.log(S[i] / K) + (r + 0.5 * sigma[i] ** 2) * T) / sq
        delta[i] = _norm_cdf(d1)
        gamma[i] = _norm_pdf(d1) / (S[i] * sq)
        vega[i] = S[i] * _norm_pdf(d1) * math.sqrt(T)
    return delta, gamma, vega


def crr_binomial_call(S, K, T, r, sigma, steps):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    v = np.empty(steps + 1)
    for j in range(steps + 1):
        v[j] = max(S * u**j * d ** (steps - j) - K, 0.0)
    for i in range(steps - 1, -1, -1):
        for j in range(i + 1):
            v[j] = disc * (p * v[j + 1] + (1.0 - p) * v[j])
    return v[0]


def ewma_adjusted(x, alpha):
    n = x.shape[0]
    out = np.empty(n)
    num = 0.0
    den = 0.0
    w = 1.0 - alpha
    for i in range(n):
        num = num * w + x[i]
        den = den * w + 1.0
        out[i] = num / den
    return out


def drawdown_recovery(prices):
    peak = prices[0]
    peak_i = 0
    maxdd = 0.0
    start = 0
    trough = 0
    for i in range(1, prices.shape[0]):
        if prices[i] > peak:
            peak = prices[i]
            peak_i = i
        dd = (peak - prices[i]) / peak
        if dd > maxdd:
            maxdd = dd
            start = peak_i
            trough = i
    recovery = -1
    for i in range(trough + 1, prices.shape[0]):
        if prices[i] >= prices[start]:
            recovery = i
            break
    return maxdd, start, trough, recovery


def implied_vol_newton(prices, S, K, T, r):
    n = prices.shape[0]
    out = np.empty(n)
    iters = np.zeros(n, dtype=np.int64)
    for i in range(n):
        sigma = 0.3
        it = 0
        while it < 50:
            c = _bs_call(S, K[i], T, r, sigma)
            d1 = (math.log(S / K[i]) + (r + 0.5 * sigma * sigma) * T) / (sigma * math.sqrt(T))
            vega = S * _norm_pdf(d1) * math.sqrt(T)
            diff = c - prices[i]
            if abs(diff) < 1e-12 or vega < 1e-14:
                break
            sigma -= diff / vega
            it += 1
        out[i] = sigma
        iters[i] = it
    return out, iters


# ---------------------------------------------------------------- signal


def rbj_lowpass_df1(x, fc, fs, q):
    w0 = 2.0 * math.pi * fc / fs
    alpha = math.sin(w0) / (2.0 * q)
    cw = math.cos(w0)
    a0 = 1.0 + alpha
    b0 = (1.0 - cw) / 2.0 / a0
    b1 = (1.0 - cw) / a0
    b2 = b0
    a1 = -2.0 * cw / a0
    a2 = (1.0 - alpha) / a0
    y = np.zeros_like(x)
    x1 = 0.0
    x2 = 0.0
    y1 = 0.0
    y2 = 0.0
    for i in range(x.shape[0]):
        yi = b0 * x[i] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1
        x1 = x[i]
        y2 = y1
        y1 = yi
        y[i] = yi
    return y


def onepole_filtfilt(x, a):
    n = x.shape[0]
    y = np.empty(n)
    if n == 0:
        return y
    s = x[0]
    for i in range(n):
        s = a * s + (1.0 - a) * x[i]
        y[i] = s
    s = y[n - 1]
    for i in range(n - 1, -1, -1):
        s = a * s + (1.0 - a) * y[i]
        y[i] = s
    return y


def peaks_min_distance(x, height, distance):
    n = x.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    last = -distance - 1
    npk = 0
    for i in range(1, n - 1):
        if x[i] > x[i - 1] and x[i] >= x[i + 1] and x[i] >= height:
            if i - last > distance:
                keep[i] = True
                last = i
                npk += 1
            elif x[i] > x[last]:
                keep[last] = False
                keep[i] = True
                last = i
    out = np.empty(npk, dtype=np.int64)
    k = 0
    for i in range(n):
        if keep[i]:
            out[k] = i
            k += 1
    return out[:k]


def envelope_attack_release(x, attack, release):
    env = np.empty(x.shape[0])
    e = 0.0
    for i in range(x.shape[0]):
        v = abs(x[i])
        if v > e:
            e = attack * e + (1.0 - attack) * v
        else:
            e = release * e + (1.0 - release) * v
        env[i] = e
    return env


# ---------------------------------------------------------------- images


def ccl_two_pass_4(img):
    h = img.shape[0]
    w = img.shape[1]
    labels = np.zeros((h, w), dtype=np.int32)
    eq = np.arange(h * w + 1)
    nxt = 1
    for i in range(h):
        for j in range(w):
            if not img[i, j]:
                continue
            up = labels[i - 1, j] if i > 0 else 0
            left = labels[i, j - 1] if j > 0 else 0
            if up == 0 and left == 0:
                labels[i, j] = nxt
                nxt += 1
            elif up != 0 and left != 0:
                ru = _find_label(eq, up)
                rl = _find_label(eq, left)
                lo = min(ru, rl)
                labels[i, j] = lo
                eq[ru] = lo
                eq[rl] = lo
            else:
                labels[i, j] = max(up, left)
    remap = np.zeros(nxt, dtype=np.int32)
    count = 0
    for lab in range(1, nxt):
        root = _find_label(eq, lab)
        if remap[root] == 0:
            count += 1
            remap[root] = count
        remap[lab] = remap[root]
    for i in range(h):
        for j in range(w):
            if labels[i, j] > 0:
                labels[i, j] = remap[labels[i, j]]
    return labels, count


def bilinear_resize_u8(img, out_h, out_w):
    h = img.shape[0]
    w = img.shape[1]
    out = np.empty((out_h, out_w), dtype=np.uint8)
    sy = (h - 1) / (out_h - 1) if out_h > 1 else 0.0
    sx = (w - 1) / (out_w - 1) if out_w > 1 else 0.0
    for i in range(out_h):
        y = i * sy
        y0 = int(y)
        y1 = min(y0 + 1, h - 1)
        fy = y - y0
        for j in range(out_w):
            x = j * sx
            x0 = int(x)
            x1 = min(x0 + 1, w - 1)
            fx = x - x0
            top = img[y0, x0] * (1.0 - fx) + img[y0, x1] * fx
            bot = img[y1, x0] * (1.0 - fx) + img[y1, x1] * fx
            out[i, j] = np.uint8(min(255.0, top * (1.0 - fy) + bot * fy + 0.5))
    return out


def dilate_cross_pingpong(img, iters):
    a = img.copy()
    b = np.empty_like(img)
    h = img.shape[0]
    w = img.shape[1]
    for it in range(iters):
        for i in range(h):
            for j in range(w):
                v = a[i, j]
                if i > 0 and a[i - 1, j] > v:
                    v = a[i - 1, j]
                if i < h - 1 and a[i + 1, j] > v:
                    v = a[i + 1, j]
                if j > 0 and a[i, j - 1] > v:
                    v = a[i, j - 1]
                if j < w - 1 and a[i, j + 1] > v:
                    v = a[i, j + 1]
                b[i, j] = v
        a, b = b, a
    return a


def chamfer34_distance(mask):
    h = mask.shape[0]
    w = mask.shape[1]
    big = 1 << 20
    d = np.empty((h, w), dtype=np.int64)
    for i in range(h):
        for j in range(w):
            d[i, j] = 0 if mask[i, j] else big
    for i in range(h):
        for j in range(w):
            v = d[i, j]
            if i > 0:
                v = min(v, d[i - 1, j] + 3)
                if j > 0:
                    v = min(v, d[i - 1, j - 1] + 4)
                if j < w - 1:
                    v = min(v, d[i - 1, j + 1] + 4)
            if j > 0:
                v = min(v, d[i, j - 1] + 3)
            d[i, j] = v
    for i in range(h - 1, -1, -1):
        for j in range(w - 1, -1, -1):
            v = d[i, j]
            if i < h - 1:
                v = min(v, d[i + 1, j] + 3)
                if j > 0:
                    v = min(v, d[i + 1, j - 1] + 4)
                if j < w - 1:
                    v = min(v, d[i + 1, j + 1] + 4)
            if j < w - 1:
                v = min(v, d[i, j + 1] + 3)
            d[i, j] = v
    return d


# ---------------------------------------------------------------- sorting and searching


def insertion_sort_by_key(keys, vals):
    n = keys.shape[0]
    for i in range(1, n):
        j = i
        while j > 0 and keys[j - 1] > keys[j]:
            keys[j - 1], keys[j] = keys[j], keys[j - 1]
            vals[j - 1], vals[j] = vals[j], vals[j - 1]
            j -= 1
    return keys[n // 2] if n > 0 else -1


def merge_sorted_unique(a, b):
    out = np.empty(a.shape[0] + b.shape[0], dtype=a.dtype)
    i = 0
    j = 0
    k = 0
    while i < a.shape[0] or j < b.shape[0]:
        if j >= b.shape[0] or (i < a.shape[0] and a[i] <= b[j]):
            v = a[i]
            i += 1
        else:
            v = b[j]
            j += 1
        if k == 0 or out[k - 1] != v:
            out[k] = v
            k += 1
    return out[:k]


def interpolation_search_many(sorted_arr, queries):
    out = np.full(queries.shape[0], -1, dtype=np.int64)
    probes = 0
    for q in range(queries.shape[0]):
        t = queries[q]
        lo = 0
        hi = sorted_arr.shape[0] - 1
        while lo <= hi and sorted_arr[lo] <= t <= sorted_arr[hi]:
            probes += 1
            if sorted_arr[hi] == sorted_arr[lo]:
                if sorted_arr[lo] == t:
                    out[q] = lo
                break
            pos = lo + (t - sorted_arr[lo]) * (hi - lo) // (sorted_arr[hi] - sorted_arr[lo])
            if sorted_arr[pos] == t:
                out[q] = pos
                break
            if sorted_arr[pos] < t:
                lo = pos + 1
            else:
                hi = pos - 1
    return out, probes


def shell_sort_knuth(x):
    a = x.copy()
    n = a.shape[0]
    gap = 1
    while gap < n // 3:
        gap = 3 * gap + 1
    while gap >= 1:
        for i in range(gap, n):
            tmp = a[i]
            j = i
            while j >= gap and a[j - gap] > tmp:
                a[j] = a[j - gap]
                j -= gap
            a[j] = tmp
        gap //= 3
    return a


def heap_sort_inplace(a):
    n = a.shape[0]
    for start in range((n - 2) // 2, -1, -1):
        _sift_down(a, start, n - 1)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        _sift_down(a, 0, end - 1)


# ---------------------------------------------------------------- second round


def boris_push(x, v, E, B, qm, dt, nsteps):
    for step in range(nsteps):
        for p in range(x.shape[0]):
            vmx = v[p, 0] + 0.5 * qm * dt * E[0]
            vmy = v[p, 1] + 0.5 * qm * dt * E[1]
            vmz = v[p, 2] + 0.5 * qm * dt * E[2]
            tx = 0.5 * qm * dt * B[0]
            ty = 0.5 * qm * dt * B[1]
            tz = 0.5 * qm * dt * B[2]
            t2 = tx * tx + ty * ty + tz * tz
            sx = 2 * tx / (1 + t2)
            sy = 2 * ty / (1 + t2)
            sz = 2 * tz / (1 + t2)
            vpx = vmx + (vmy * tz - vmz * ty)
            vpy = vmy + (vmz * tx - vmx * tz)
            vpz = vmz + (vmx * ty - vmy * tx)
            v[p, 0] = vmx + (vpy * sz - vpz * sy) + 0.5 * qm * dt * E[0]
            v[p, 1] = vmy + (vpz * sx - vpx * sz) + 0.5 * qm * dt * E[1]
            v[p, 2] = vmz + (vpx * sy - vpy * sx) + 0.5 * qm * dt * E[2]
            for d in range(3):
                x[p, d] += dt * v[p, d]
    return x, v


def kruskal_mst(n, eu, ev, ew):
    order = np.argsort(ew, kind="mergesort")
    parent = np.arange(n)
    total = 0.0
    used = 0
    for k in range(order.shape[0]):
        e = order[k]
        ru = _uf_find(parent, eu[e])
        rv = _uf_find(parent, ev[e])
        if ru == rv:
            continue
        parent[ru] = rv
        total += ew[e]
        used += 1
        if used == n - 1:
            break
    return total, used


def longest_palindrome_expand(s):
    n = s.shape[0]
    if n == 0:
        return 0, 0
    best_start = 0
    best_len = 1
    for center in range(2 * n - 1):
        lo = center // 2
        hi = lo + center % 2
        while lo >= 0 and hi < n and s[lo] == s[hi]:
            lo -= 1
            hi += 1
        length = hi - lo - 1
        if length > best_len:
            best_len = length
            best_start = lo + 1
    return best_start, best_len


def weighted_interval_dp(starts, ends, weights):
    n = starts.shape[0]
    dp = np.zeros(n + 1)
    for j in range(1, n + 1):
        p = _last_compatible(ends, starts[j - 1], j - 1)
        take = weights[j - 1] + dp[p + 1]
        dp[j] = max(dp[j - 1], take)
    return dp[n]


def point_polyline_distance(px, py, line):
    out = np.empty(px.shape[0])
    seg = np.zeros(px.shape[0], dtype=np.int64)
    for p in range(px.shape[0]):
        best = np.inf
        for k in range(line.shape[0] - 1):
            d2, t = _seg_dist2(px[p], py[p], line[k, 0], line[k, 1], line[k + 1, 0], line[k + 1, 1])
            if d2 < best:
                best = d2
                seg[p] = k
        out[p] = math.sqrt(best)
    return out, seg


def barrier_down_out_binomial(S, K, H, T, r, sigma, steps):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    v = np.zeros(steps + 1)
    for j in range(steps + 1):
        st = S * u ** (2 * j - steps)
        v[j] = max(st - K, 0.0) if st > H else 0.0
    for i in range(steps - 1, -1, -1):
        for j in range(i + 1):
            st = S * u ** (2 * j - i)
            if st <= H:
                v[j] = 0.0
            else:
                v[j] = disc * (p * v[j + 1] + (1 - p) * v[j])
    return v[0]


def macd_crossings(x, fast, slow, signal):
    n = x.shape[0]
    if n < slow:
        return 0, -1
    af = 2.0 / (fast + 1)
    a_s = 2.0 / (slow + 1)
    ag = 2.0 / (signal + 1)
    ef = x[0]
    es = x[0]
    sig = 0.0
    prev = 0.0
    crosses = 0
    last = -1
    for i in range(n):
        ef = af * x[i] + (1 - af) * ef
        es = a_s * x[i] + (1 - a_s) * es
        macd = ef - es
        sig = ag * macd + (1 - ag) * sig
        h = macd - sig
        if i > 0 and (h > 0) != (prev > 0):
            crosses += 1
            last = i
        prev = h
    return crosses, last


def yin_pitch(x, fs, tau_max, threshold):
    d = np.zeros(tau_max)
    for tau in range(1, tau_max):
        acc = 0.0
        for j in range(x.shape[0] - tau_max):
            diff = x[j] - x[j + tau]
            acc += diff * diff
        d[tau] = acc
    cmnd = np.ones(tau_max)
    running = 0.0
    for tau in range(1, tau_max):
        running += d[tau]
        cmnd[tau] = d[tau] * tau / running if running > 0 else 1.0
    for tau in range(2, tau_max):
        if cmnd[tau] < threshold:
            while tau + 1 < tau_max and cmnd[tau + 1] < cmnd[tau]:
                tau += 1
            return fs / tau
    return 0.0


def gray_world_u8(img):
    h, w = img.shape[0], img.shape[1]
    means = np.zeros(3)
    for i in range(h):
        for j in range(w):
            for c in range(3):
                means[c] += img[i, j, c]
    means /= h * w
    gray = (means[0] + means[1] + means[2]) / 3.0
    out = np.empty_like(img)
    for i in range(h):
        for j in range(w):
            for c in range(3):
                v = img[i, j, c] * gray / means[c] if means[c] > 0 else 0.0
                out[i, j, c] = min(255, int(v + 0.5))
    return out


def inversions_bottom_up(x):
    a = x.copy()
    n = a.shape[0]
    tmp = np.empty_like(a)
    inv = 0
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                if a[i] <= a[j]:
                    tmp[k] = a[i]
                    i += 1
                else:
                    tmp[k] = a[j]
                    inv += mid - i
                    j += 1
                k += 1
            while i < mid:
                tmp[k] = a[i]
                i += 1
                k += 1
            while j < hi:
                tmp[k] = a[j]
                j += 1
                k += 1
        for k in range(n):
            a[k] = tmp[k]
        width *= 2
    return inv, a


# ---------------------------------------------------------------- third round


def bellman_ford_csr(indptr, indices, w, src):
    n = indptr.shape[0] - 1
    dist = np.full(n, np.inf)
    dist[src] = 0.0
    for it in range(n - 1):
        changed = False
        for u in range(n):
            if dist[u] == np.inf:
                continue
            for k in range(indptr[u], indptr[u + 1]):
                if dist[u] + w[k] < dist[indices[k]]:
                    dist[indices[k]] = dist[u] + w[k]
                    changed = True
        if not changed:
            break
    for u in range(n):
        if dist[u] == np.inf:
            continue
        for k in range(indptr[u], indptr[u + 1]):
            if dist[u] + w[k] < dist[indices[k]]:
                return dist, True
    return dist, False


def ewma_crossover_f32(x, fast, slow):
    af = np.float32(2.0 / (fast + 1))
    a_s = np.float32(2.0 / (slow + 1))
    f = x[0]
    s = x[0]
    signal = np.zeros(x.shape[0], dtype=np.int8)
    for i in range(1, x.shape[0]):
        f = af * x[i] + (1 - af) * f
        s = a_s * x[i] + (1 - a_s) * s
        if f > s:
            signal[i] = 1
        elif f < s:
            signal[i] = -1
    return signal, f - s


def hist_u8_counts_wrap(img):
    h = np.zeros(4, dtype=np.uint8)
    for i in range(img.shape[0]):
        h[img[i] >> 6] += 1
    return h


def longest_streak(bits):
    n = bits.shape[0]
    best = 0
    best_start = -1
    i = 0
    while i < n:
        if not bits[i]:
            i += 1
            continue
        j = i
        while j < n and bits[j]:
            j += 1
        if j - i > best:
            best = j - i
            best_start = i
        i = j
    return best, best_start


def viterbi_backtrack(obs, log_pi, log_A, log_B):
    T = obs.shape[0]
    S = log_pi.shape[0]
    delta = np.empty((T, S))
    psi = np.zeros((T, S), dtype=np.int64)
    for s in range(S):
        delta[0, s] = log_pi[s] + log_B[s, obs[0]]
    for t in range(1, T):
        for s in range(S):
            best = -np.inf
            arg = 0
            for r in range(S):
                v = delta[t - 1, r] + log_A[r, s]
                if v > best:
                    best = v
                    arg = r
            delta[t, s] = best + log_B[s, obs[t]]
            psi[t, s] = arg
    path = np.empty(T, dtype=np.int64)
    last = 0
    for s in range(1, S):
        if delta[T - 1, s] > delta[T - 1, last]:
            last = s
    path[T - 1] = last
    for t in range(T - 1, 0, -1):
        path[t - 1] = psi[t, path[t]]
    return path, delta[T - 1, last]


def gauss_legendre_panels(a, b, npanel, c, w):
    h = (b - a) / npanel
    total = 0.0
    for k in range(npanel):
        total += _gl3(c, w, a + k * h, a + (k + 1) * h)
    return total


def lz77_longest_matches(buf, window):
    n = buf.shape[0]
    length = np.zeros(n, dtype=np.int32)
    offset = np.zeros(n, dtype=np.int32)
    for i in range(n):
        start = max(0, i - window)
        for j in range(start, i):
            m = 0
            while i + m < n and buf[j + m] == buf[i + m]:
                m += 1
            if m > length[i]:
                length[i] = m
                offset[i] = i - j
    return length, offset


def counting_sort_by_key(keys, vals, kmax):
    count = np.zeros(kmax + 1, dtype=np.int64)
    for i in range(keys.shape[0]):
        count[keys[i]] += 1
    for k in range(1, kmax + 1):
        count[k] += count[k - 1]
    out_k = np.empty_like(keys)
    out_v = np.empty_like(vals)
    for i in range(keys.shape[0] - 1, -1, -1):
        count[keys[i]] -= 1
        pos = count[keys[i]]
        out_k[pos] = keys[i]
        out_v[pos] = vals[i]
    return out_k, out_v


def kmeans_1d_lloyd(x, k, iters):
    xs = np.sort(x)
    n = xs.shape[0]
    centers = np.empty(k)
    for c in range(k):
        centers[c] = xs[(2 * c + 1) * n // (2 * k)]
    labels = np.zeros(n, dtype=np.int64)
    for it in range(iters):
        sums = np.zeros(k)
        counts = np.zeros(k, dtype=np.int64)
        for i in range(n):
            best = 0
            bd = abs(xs[i] - centers[0])
            for c in range(1, k):
                d = abs(xs[i] - centers[c])
                if d < bd:
                    bd = d
                    best = c
            labels[i] = best
            sums[best] += xs[i]
            counts[best] += 1
        for c in range(k):
            if counts[c] > 0:
                centers[c] = sums[c] / counts[c]
    return centers, labels


# ---------------------------------------------------------------- inputs


def _csr_undirected(r, n, p=0.35):
    adj = np.triu(r.random((n, n)) < p, 1)
    adj = adj | adj.T
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(adj.sum(axis=1))
    indices = np.nonzero(adj)[1].astype(np.int64)
    return indptr, indices


def _csr_directed(r, n, p=0.3):
    adj = r.random((n, n)) < p
    np.fill_diagonal(adj, False)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(adj.sum(axis=1))
    indices = np.nonzero(adj)[1].astype(np.int64)
    return indptr, indices


def _csr_dag(r, n):
    order = r.permutation(n).astype(np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    adj = (r.random((n, n)) < 0.4) & (rank[:, None] < rank[None, :])
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(adj.sum(axis=1))
    indices = np.nonzero(adj)[1].astype(np.int64)
    weights = r.random(indices.shape[0]) * 5.0
    return indptr, indices, weights, order, int(order[0])


def _text(r, n):
    alphabet = np.frombuffer(b"abcXYZ  \n\t.q", dtype=np.uint8)
    return alphabet[r.integers(0, alphabet.shape[0], n)].copy()


def _utf8(r, n):
    text = "".join(r.choice(np.array(list("ab\u00e9\u20ac\U0001f600"))) for _ in range(n)).encode()
    buf = np.frombuffer(text, dtype=np.uint8).copy()
    if buf.shape[0] > 3 and r.integers(0, 2):
        buf[r.integers(0, buf.shape[0])] = 0xFF
    return buf


def _csv(r, n):
    vals = r.integers(0, 1000, n)
    return np.frombuffer(",".join(str(v) for v in vals).encode(), dtype=np.uint8).copy()


def _needle_case(r):
    hay = r.integers(97, 100, _n(r, 24, 2)).astype(np.uint8)
    m = int(r.integers(1, 4))
    if hay.shape[0] >= m and r.integers(0, 2):
        s = int(r.integers(0, hay.shape[0] - m + 1))
        return hay, hay[s:s + m].copy()
    return hay, r.integers(97, 100, m).astype(np.uint8)


def _hmm(r, t):
    S = 3
    pi = r.random(S) + 0.1
    pi /= pi.sum()
    A = r.random((S, S)) + 0.1
    A /= A.sum(axis=1, keepdims=True)
    B = r.random((S, 4)) + 0.1
    B /= B.sum(axis=1, keepdims=True)
    return r.integers(0, 4, t), pi, A, B


def _polygon(r, m):
    ang = np.sort(r.random(m)) * 2 * np.pi
    rad = 1.0 + 0.5 * r.random(m)
    poly = np.stack([rad * np.cos(ang), rad * np.sin(ang)], axis=1)
    return poly[::-1].copy() if r.integers(0, 2) else poly


def _boxes(r, n):
    lo = r.random((n, 2)) * 4
    return np.concatenate([lo, lo + 0.5 + r.random((n, 2)) * 2], axis=1)


def _implied(r, n):
    K = 80.0 + 40.0 * r.random(n)
    sig = 0.1 + 0.5 * r.random(n)
    prices = np.array([_bs_call(100.0, K[i], 0.75, 0.02, sig[i]) for i in range(n)])
    return prices, 100.0, K, 0.75, 0.02


def _edges(r, n):
    m = 2 * n
    eu = r.integers(0, n, m)
    ev = r.integers(0, n, m)
    return n, eu, ev, r.integers(1, 9, m).astype(np.float64)


def _intervals(r, n):
    ends = np.sort(r.random(n) * 10)
    starts = ends - r.random(n) * 3
    return starts, ends, r.random(n) * 5


def _tone(r):
    n = int(_n(r, 64, 24))
    period = 5 + int(r.integers(0, 8))
    return np.sin(2 * np.pi * np.arange(n) / period) + 0.05 * r.standard_normal(n)


def _bf_graph(r, n):
    indptr, indices = _csr_directed(r, n, 0.35)
    w = r.random(indices.shape[0]) * 4 - (0.6 if r.integers(0, 2) else 0.0)
    return indptr, indices, w, 0


CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


F = dict(rtol=1e-9, atol=1e-12)

_add("nbody_kdk_soft", nbody_kdk_soft, lambda r: (lambda n: (r.standard_normal((n, 3)), 0.1 * r.standard_normal((n, 3)),
                                                               r.random(n) + 0.5, 0.01, 0.1, 3))(_n(r, 6)),
     rtol=1e-8, atol=1e-10)
_add("pic_deposit_cic_periodic", pic_deposit_cic_periodic,
     lambda r: (lambda n: (r.random(n) * 2.0, r.standard_normal(n), 8, 2.0))(_n(r, 20, 0)), **F)
_add("ising_checkerboard_sweep", ising_checkerboard_sweep,
     lambda r: (lambda L: (r.choice(np.array([-1, 1]), (L, 6)), 0.44, r.random((L, 6))))(_n(r, 6, 1)))
_add("lbm_d1q3_steps", lbm_d1q3_steps, lambda r: (1.0 + 0.1 * r.random((3, _n(r, 10, 1))), 1.2, 4), **F)
_add("pendulum_euler_cromer", pendulum_euler_cromer,
     lambda r: (0.5 + r.random(), 0.0, 9.81, 1.0, 0.1, 0.01, int(_n(r, 30, 0))), **F)
_add("bfs_levels_csr_queue", bfs_levels_csr_queue, lambda r: (*_csr_undirected(r, _n(r, 9, 1), 0.25), 0))
_add("pagerank_csr_dangling", pagerank_csr_dangling, lambda r: (*_csr_directed(r, _n(r, 8, 1), 0.25), 0.85, 20), **F)
_add("label_propagation_cc", label_propagation_cc, lambda r: _csr_undirected(r, _n(r, 10, 1), 0.15))
_add("triangles_sorted_csr", triangles_sorted_csr, lambda r: _csr_undirected(r, _n(r, 9, 2), 0.45))
_add("dag_shortest_topo", dag_shortest_topo, lambda r: _csr_dag(r, _n(r, 8, 1)), **F)
_add("word_count_u8", word_count_u8, lambda r: (_text(r, _n(r, 40, 0)),))
_add("upper_ascii_u8", upper_ascii_u8, lambda r: (_text(r, _n(r, 30, 0)),))
_add("parse_csv_ints_u8", parse_csv_ints_u8, lambda r: (_csv(r, _n(r, 6, 1)),))
_add("utf8_codepoints_u8", utf8_codepoints_u8, lambda r: (_utf8(r, _n(r, 12, 0)),))
_add("find_substring_u8", find_substring_u8, _needle_case)
_add("edit_distance_two_rows", edit_distance_two_rows,
     lambda r: (r.integers(0, 3, _n(r, 9, 0)), r.integers(0, 3, _n(r, 7, 1))))
_add("longest_common_substring", longest_common_substring,
     lambda r: (r.integers(0, 3, _n(r, 10, 0)), r.integers(0, 3, _n(r, 9, 1))))
_add("coin_change_ways", coin_change_ways, lambda r: (np.array([1, 2, 5, 10]), int(_n(r, 37, 0))))
_add("hmm_forward_scaled", hmm_forward_scaled, lambda r: _hmm(r, _n(r, 10, 1)), **F)
_add("matrix_chain_order", matrix_chain_order, lambda r: (r.integers(1, 30, _n(r, 7, 2)),))
_add("winding_numbers", winding_numbers,
     lambda r: (lambda n: (3 * r.random(n) - 1.5, 3 * r.random(n) - 1.5, _polygon(r, int(r.integers(3, 9)))))(_n(r, 12, 0)))
_add("polygon_area_perimeter", polygon_area_perimeter,
     lambda r: (lambda p: (p[:, 0].copy(), p[:, 1].copy()))(_polygon(r, _n(r, 7, 3))), **F)
_add("count_segment_intersections", count_segment_intersections,
     lambda r: (r.integers(0, 5, (_n(r, 8, 1), 4)).astype(np.float64),))
_add("box_iou_matrix", box_iou_matrix, lambda r: (_boxes(r, _n(r, 5, 0)), _boxes(r, 4)), **F)
_add("bs_call_greeks", bs_call_greeks,
     lambda r: (lambda n: (80 + 40 * r.random(n), 100.0, 0.5, 0.01, 0.1 + 0.4 * r.random(n)))(_n(r, 8, 0)), **F)
_add("crr_binomial_call", crr_binomial_call, lambda r: (100.0, 90.0 + 20 * r.random(), 1.0, 0.03, 0.2, int(_n(r, 25, 1))),
     **F)
_add("ewma_adjusted", ewma_adjusted, lambda r: (r.standard_normal(_n(r, 12, 0)), 0.3), **F)
_add("drawdown_recovery", drawdown_recovery, lambda r: (np.cumprod(1 + 0.05 * r.standard_normal(_n(r, 20, 1))),), **F)
_add("implied_vol_newton", implied_vol_newton, lambda r: _implied(r, _n(r, 6, 0)), rtol=1e-7, atol=1e-9)
_add("rbj_lowpass_df1", rbj_lowpass_df1, lambda r: (r.standard_normal(_n(r, 16, 0)), 1000.0, 8000.0, 0.707), **F)
_add("onepole_filtfilt", onepole_filtfilt, lambda r: (r.standard_normal(_n(r, 12, 0)), 0.8), **F)
_add("peaks_min_distance", peaks_min_distance, lambda r: (r.standard_normal(_n(r, 30, 2)), 0.0, 3))
_add("envelope_attack_release", envelope_attack_release, lambda r: (r.standard_normal(_n(r, 16, 0)), 0.5, 0.95), **F)
_add("ccl_two_pass_4", ccl_two_pass_4, lambda r: (r.random((_n(r, 7, 1), 6)) < 0.55,))
_add("bilinear_resize_u8", bilinear_resize_u8,
     lambda r: (r.integers(0, 256, (_n(r, 5, 1), 4)).astype(np.uint8), int(_n(r, 7, 1)), 9))
_add("dilate_cross_pingpong", dilate_cross_pingpong, lambda r: (r.integers(0, 9, (_n(r, 6, 1), 5)), int(_n(r, 3, 0))))
_add("chamfer34_distance", chamfer34_distance, lambda r: (r.random((_n(r, 7, 1), 6)) < 0.15,))
_add("insertion_sort_by_key", insertion_sort_by_key,
     lambda r: (lambda n: (r.integers(0, 5, n), r.standard_normal(n)))(_n(r, 12, 0)))
_add("merge_sorted_unique", merge_sorted_unique,
     lambda r: (np.sort(r.integers(0, 10, _n(r, 8, 0))), np.sort(r.integers(0, 10, _n(r, 6, 1)))))
_add("interpolation_search_many", interpolation_search_many,
     lambda r: (np.sort(r.integers(0, 40, _n(r, 10, 0))), r.integers(-2, 42, 7)))
_add("shell_sort_knuth", shell_sort_knuth, lambda r: (r.standard_normal(_n(r, 25, 1)),))
_add("heap_sort_inplace", heap_sort_inplace, lambda r: (r.integers(-50, 50, _n(r, 15, 1)),))

_add("boris_push", boris_push, lambda r: (lambda n: (r.random((n, 3)), r.standard_normal((n, 3)), r.standard_normal(3),
                                                      r.standard_normal(3), -1.0, 0.05, 4))(_n(r, 5, 0)), **F)
_add("kruskal_mst", kruskal_mst, lambda r: _edges(r, _n(r, 7, 1)), **F)
_add("longest_palindrome_expand", longest_palindrome_expand, lambda r: (r.integers(97, 100, _n(r, 15, 0)).astype(np.uint8),))
_add("weighted_interval_dp", weighted_interval_dp, lambda r: _intervals(r, _n(r, 9, 0)), **F)
_add("point_polyline_distance", point_polyline_distance,
     lambda r: (lambda n: (r.random(n) * 4, r.random(n) * 4, r.random((int(_n(r, 5, 2)), 2)) * 4))(_n(r, 6, 0)), **F)
_add("barrier_down_out_binomial", barrier_down_out_binomial,
     lambda r: (100.0, 100.0, 85.0 + 10 * r.random(), 1.0, 0.02, 0.3, int(_n(r, 20, 1))), **F)
_add("macd_crossings", macd_crossings, lambda r: (np.cumsum(r.standard_normal(_n(r, 60, 10))), 12, 26, 9))
_add("yin_pitch", yin_pitch, lambda r: (_tone(r), 8000.0, 20, 0.15), **F)
_add("gray_world_u8", gray_world_u8, lambda r: (r.integers(0, 256, (_n(r, 4, 1), 3, 3)).astype(np.uint8),))
_add("inversions_bottom_up", inversions_bottom_up, lambda r: (r.integers(0, 20, _n(r, 13, 1)),))
_add("bellman_ford_csr", bellman_ford_csr, lambda r: _bf_graph(r, _n(r, 7, 1)), **F)
_add("ewma_crossover_f32", ewma_crossover_f32,
     lambda r: ((100 + np.cumsum(r.standard_normal(_n(r, 30, 1)))).astype(np.float32), 3, 8), rtol=1e-6, atol=1e-5)
_add("hist_u8_counts_wrap", hist_u8_counts_wrap, lambda r: (r.integers(0, 256, _n(r, 1200, 3)).astype(np.uint8),))
_add("longest_streak", longest_streak, lambda r: (r.random(_n(r, 25, 0)) < 0.6,))
_add("viterbi_backtrack", viterbi_backtrack,
     lambda r: (lambda o, p, A, B: (o, np.log(p), np.log(A), np.log(B)))(*_hmm(r, _n(r, 9, 1))), **F)
_add("gauss_legendre_panels", gauss_legendre_panels, lambda r: (-1.0, 2.0, int(_n(r, 12, 1)), 0.3, 0.5), **F)
_add("lz77_longest_matches", lz77_longest_matches, lambda r: (r.integers(97, 99, _n(r, 20, 1)).astype(np.uint8), 6))
_add("counting_sort_by_key", counting_sort_by_key,
     lambda r: (lambda n: (r.integers(0, 6, n), r.standard_normal(n), 5))(_n(r, 14, 0)))
_add("kmeans_1d_lloyd", kmeans_1d_lloyd, lambda r: (np.concatenate([r.normal(0, 1, 6), r.normal(8, 1, _n(r, 6, 0))]), 2, 5),
     **F)
