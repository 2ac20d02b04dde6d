"""fe50's batch (session 37): numba loop code and NumPy array code as third-party users write
them, in areas the earlier batches touch least, written before looking at what is supported:
lattice Boltzmann (a D2Q9 collide-and-stream step), morphology (3x3 opening, a white top-hat by
NumPy slices of a padded image), Canny's non-maximum suppression, a separable [1 2 1] pyramid
step, alpha blending in uint8 integer arithmetic, CIC decimation in integers, Savitzky-Golay and
Clenshaw's Chebyshev sums, linear interpolation by a hand-written search, Holt's linear trend,
Heston and CIR paths on given normals, Kaplan-Meier survival, Kendall's tau, Mann-Whitney's AUC
with tied ranks, a two-sample Kolmogorov-Smirnov statistic, kernel density estimates, weighted
and trimmed statistics, a Thomas tridiagonal solve inside a Crank-Nicolson step, SOR to a
tolerance, RK4 on the Lorenz system, Kuramoto oscillators, the XY model's energy, Lax-Wendroff
and leapfrog waves, Needleman-Wunsch with integer scores, the longest increasing subsequence by
patience sorting, coin-change counts, matrix-chain order, Bellman-Ford with an early exit,
Kahn's topological order, Kruskal's tree with union-find after np.argsort, Prim on a dense
matrix and Mandelbrot escape counts.

At e578533 (cpu target, four seeds each, POLYFUSE_NUM_THREADS=2): 48 of 52 match, 3 refused, 1
crashed, none wrong.  After fe50's fixes 51 match: lax_wendroff_periodic (``cur[i - 1]`` at ``i =
0``, Python's last element: frontend/negative_wrap.py; and ping-pong buffers ``cur = u.copy()``,
``nxt = np.empty(n)`` swapped in a loop where ``ul = cur[i - 1]`` reads an element: ranks of
``np.empty(n)`` of an integer size, array_swaps), holt_linear (an early ``return np.full(horizon,
...)`` beside a final ``return fc`` of an array filled in a loop: early_return) and
ks_statistic_np (``np.searchsorted(a, np.concatenate([a, b]), side="right")``: the rank of a join
of vectors).  Left: auc_mann_whitney, ``np.argsort`` (default kind) of scores with ties, whose
kernel raises AssertionError by design (NumPy orders ties in no set order; the average ranks it
computes would not depend on that order, but the kernel cannot tell).

A second round of 22 (after the fixes; a periodic 2-D wave, the shoelace area's ``x[i - 1]``,
frames counted by shape arithmetic, Collatz and digit sums in while loops, gcd by a tuple swap in a
helper, a sieve, phase unwrapping, a clamped histogram over ``for v in x`` with ``continue``, top-k
by insertion, Simpson's rule with an early ``return math.nan``, a Hough accumulator with
``int(round(...))``, NumPy's sliding_window_view, bincount LUTs, keepdims softmax, np.roll): 20
match, 2 refused: zero_crossing_rate_frames (``if n < frame: return np.zeros(0)`` beside ``count =
1 + (n - frame) // hop`` bound after it: a size the call cannot compute where the branch is
not taken) and ecdf_unique_np (``np.cumsum`` of np.unique's counts).

Dropped after both rounds (session 38, ts52), as kernels of earlier corpus modules up to names
(the counts above are the batch's as it came): heston_paths (batch_fe43's heston_euler_paths),
bellman_ford (batch_fe30's), pairwise_dist_np (numpy_np21's and batch_fe30d's pairwise_dist) and
softmax_rows_np (numpy_np21's softmax_rows).  gcd_pairs stays: its gcd is an @njit helper
(``while b:``, a tuple swap), where batch_fe37's and numba_fe19's are written inline."""

import math

import numpy as np
from corpus_case import Case
from numba import njit


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


# ---------------------------------------------------------------- helpers


@njit
def _root(parent, i):
    while parent[i] != i:
        i = parent[i]
    return i


@njit
def _gauss(u):
    return math.exp(-0.5 * u * u) / math.sqrt(2.0 * math.pi)


# ---------------------------------------------------------------- physics (numba loops)


def lbm_d2q9_step(f, omega):
    # f[9, nx, ny]: BGK collision then periodic streaming; returns the new f and the density
    nx, ny = f.shape[1], f.shape[2]
    cx = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
    cy = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
    w = np.array([4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36])
    out = np.empty_like(f)
    rho = np.zeros((nx, ny))
    for x in range(nx):
        for y in range(ny):
            r = 0.0
            ux = 0.0
            uy = 0.0
            for k in range(9):
                r += f[k, x, y]
                ux += cx[k] * f[k, x, y]
                uy += cy[k] * f[k, x, y]
            ux /= r
            uy /= r
            rho[x, y] = r
            usq = ux * ux + uy * uy
            for k in range(9):
                cu = cx[k] * ux + cy[k] * uy
                feq = w[k] * r * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * usq)
                post = f[k, x, y] + omega * (feq - f[k, x, y])
                out[k, (x + cx[k]) % nx, (y + cy[k]) % ny] = post
    return out, rho


def rk4_lorenz(state, sigma, rho, beta, dt, steps):
    traj = np.empty((steps + 1, 3))
    x, y, z = state[0], state[1], state[2]
    traj[0, 0], traj[0, 1], traj[0, 2] = x, y, z
    for s in range(steps):
        k1x = sigma * (y - x)
        k1y = x * (rho - z) - y
        k1z = x * y - beta * z
        x2, y2, z2 = x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, z + 0.5 * dt * k1z
        k2x = sigma * (y2 - x2)
        k2y = x2 * (rho - z2) - y2
        k2z = x2 * y2 - beta * z2
        x3, y3, z3 = x + 0.5 * dt * k2x, y + 0.5 * dt * k2y, z + 0.5 * dt * k2z
        k3x = sigma * (y3 - x3)
        k3y = x3 * (rho - z3) - y3
        k3z = x3 * y3 - beta * z3
        x4, y4, z4 = x + dt * k3x, y + dt * k3y, z + dt * k3z
        k4x = sigma * (y4 - x4)
        k4y = x4 * (rho - z4) - y4
        k4z = x4 * y4 - beta * z4
        x += dt / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x)
        y += dt / 6.0 * (k1y + 2 * k2y + 2 * k3y + k4y)
        z += dt / 6.0 * (k1z + 2 * k2z + 2 * k3z + k4z)
        traj[s + 1, 0] = x
        traj[s + 1, 1] = y
        traj[s + 1, 2] = z
    return traj


def kuramoto_step(theta, omega, k, dt):
    n = theta.shape[0]
    new = np.empty(n)
    for i in range(n):
        acc = 0.0
        for j in range(n):
            acc += math.sin(theta[j] - theta[i])
        new[i] = theta[i] + dt * (omega[i] + k / n * acc)
    r_re = 0.0
    r_im = 0.0
    for i in range(n):
        r_re += math.cos(new[i])
        r_im += math.sin(new[i])
    return new, math.sqrt(r_re * r_re + r_im * r_im) / n


def xy_model_energy(theta, j_coupling):
    h, w = theta.shape
    e = 0.0
    for i in range(h):
        for j in range(w):
            t = theta[i, j]
            e -= j_coupling * math.cos(t - theta[(i + 1) % h, j])
            e -= j_coupling * math.cos(t - theta[i, (j + 1) % w])
    return e / (h * w)


def lax_wendroff_periodic(u, c, steps):
    n = u.shape[0]
    cur = u.copy()
    nxt = np.empty(n)
    for _ in range(steps):
        for i in range(n):
            ul = cur[i - 1]
            ur = cur[(i + 1) % n]
            nxt[i] = cur[i] - 0.5 * c * (ur - ul) + 0.5 * c * c * (ur - 2.0 * cur[i] + ul)
        cur, nxt = nxt, cur
    return cur


def crank_nicolson_heat(u, r, steps):
    # interior points, zero Dirichlet ends; the tridiagonal system solved by Thomas' algorithm
    n = u.shape[0]
    cp = np.empty(n)
    dp = np.empty(n)
    d = np.empty(n)
    a = -0.5 * r
    b = 1.0 + r
    for _ in range(steps):
        for i in range(n):
            left = u[i - 1] if i > 0 else 0.0
            right = u[i + 1] if i < n - 1 else 0.0
            d[i] = 0.5 * r * left + (1.0 - r) * u[i] + 0.5 * r * right
        cp[0] = a / b
        dp[0] = d[0] / b
        for i in range(1, n):
            m = b - a * cp[i - 1]
            cp[i] = a / m
            dp[i] = (d[i] - a * dp[i - 1]) / m
        u[n - 1] = dp[n - 1]
        for i in range(n - 2, -1, -1):
            u[i] = dp[i] - cp[i] * u[i + 1]
    return u


def sor_poisson(f, h, omega, tol, max_iter):
    ny, nx = f.shape
    u = np.zeros((ny, nx))
    it = 0
    while it < max_iter:
        diff = 0.0
        for i in range(1, ny - 1):
            for j in range(1, nx - 1):
                new = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h * h * f[i, j])
                d = new - u[i, j]
                u[i, j] += omega * d
                if abs(d) > diff:
                    diff = abs(d)
        it += 1
        if diff < tol:
            break
    return u, it


def mandelbrot_counts(re, im, max_iter):
    out = np.zeros((im.shape[0], re.shape[0]), dtype=np.int32)
    for i in range(im.shape[0]):
        for j in range(re.shape[0]):
            zr = 0.0
            zi = 0.0
            k = 0
            while k < max_iter and zr * zr + zi * zi <= 4.0:
                zr, zi = zr * zr - zi * zi + re[j], 2.0 * zr * zi + im[i]
                k += 1
            out[i, j] = k
    return out


# ---------------------------------------------------------------- images (numba loops)


def morph_open3(img):
    h, w = img.shape
    er = np.empty_like(img)
    for i in range(h):
        for j in range(w):
            m = img[i, j]
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    ii, jj = i + di, j + dj
                    if 0 <= ii < h and 0 <= jj < w and img[ii, jj] < m:
                        m = img[ii, jj]
            er[i, j] = m
    out = np.empty_like(img)
    for i in range(h):
        for j in range(w):
            m = er[i, j]
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    ii, jj = i + di, j + dj
                    if 0 <= ii < h and 0 <= jj < w and er[ii, jj] > m:
                        m = er[ii, jj]
            out[i, j] = m
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
                p, q = mag[i, j - 1], mag[i, j + 1]
            elif a < 67.5:
                p, q = mag[i - 1, j + 1], mag[i + 1, j - 1]
            elif a < 112.5:
                p, q = mag[i - 1, j], mag[i + 1, j]
            else:
                p, q = mag[i - 1, j - 1], mag[i + 1, j + 1]
            if mag[i, j] >= p and mag[i, j] >= q:
                out[i, j] = mag[i, j]
    return out


def pyramid_down_121(img):
    h, w = img.shape
    tmp = np.empty((h, w))
    for i in range(h):
        for j in range(w):
            l = img[i, max(j - 1, 0)]
            r = img[i, min(j + 1, w - 1)]
            tmp[i, j] = 0.25 * l + 0.5 * img[i, j] + 0.25 * r
    oh, ow = (h + 1) // 2, (w + 1) // 2
    out = np.empty((oh, ow))
    for i in range(oh):
        for j in range(ow):
            y = 2 * i
            u = tmp[max(y - 1, 0), 2 * j]
            d = tmp[min(y + 1, h - 1), 2 * j]
            out[i, j] = 0.25 * u + 0.5 * tmp[y, 2 * j] + 0.25 * d
    return out


def alpha_blend_u8(fg, bg, alpha):
    h, w, c = fg.shape
    out = np.empty((h, w, c), dtype=np.uint8)
    for i in range(h):
        for j in range(w):
            a = np.int32(alpha[i, j])
            for k in range(c):
                v = (np.int32(fg[i, j, k]) * a + np.int32(bg[i, j, k]) * (255 - a) + 127) // 255
                out[i, j, k] = v
    return out


def bilateral_1d(x, radius, sigma_s, sigma_r):
    n = x.shape[0]
    out = np.empty(n)
    for i in range(n):
        num = 0.0
        den = 0.0
        for k in range(-radius, radius + 1):
            j = i + k
            if j < 0 or j >= n:
                continue
            d = x[j] - x[i]
            wgt = math.exp(-(k * k) / (2.0 * sigma_s ** 2) - d * d / (2.0 * sigma_r ** 2))
            num += wgt * x[j]
            den += wgt
        out[i] = num / den
    return out


# ---------------------------------------------------------------- signals (numba loops)


def cic_decimate(x, r, stages):
    # integrators at the input rate, combs at the output rate, int64 arithmetic
    n = x.shape[0]
    integ = np.zeros(stages, dtype=np.int64)
    comb_prev = np.zeros(stages, dtype=np.int64)
    out = np.empty(n // r, dtype=np.int64)
    k = 0
    for i in range(n):
        v = np.int64(x[i])
        for s in range(stages):
            integ[s] += v
            v = integ[s]
        if (i + 1) % r == 0:
            for s in range(stages):
                t = v
                v = v - comb_prev[s]
                comb_prev[s] = t
            out[k] = v
            k += 1
    return out


def savgol5_smooth(x):
    # quadratic 5-point Savitzky-Golay; the ends copied
    n = x.shape[0]
    y = x.copy()
    for i in range(2, n - 2):
        y[i] = (-3.0 * x[i - 2] + 12.0 * x[i - 1] + 17.0 * x[i] + 12.0 * x[i + 1] - 3.0 * x[i + 2]) / 35.0
    return y


def clenshaw_chebyshev(coef, xs):
    n = coef.shape[0]
    out = np.empty(xs.shape[0])
    for k in range(xs.shape[0]):
        x = xs[k]
        b1 = 0.0
        b2 = 0.0
        for j in range(n - 1, 0, -1):
            b1, b2 = 2.0 * x * b1 - b2 + coef[j], b1
        out[k] = x * b1 - b2 + coef[0]
    return out


def interp_linear_search(xp, fp, x):
    # xp increasing; values outside clamp to the end values (np.interp's rule)
    n = xp.shape[0]
    out = np.empty(x.shape[0])
    for k in range(x.shape[0]):
        v = x[k]
        if v <= xp[0]:
            out[k] = fp[0]
            continue
        if v >= xp[n - 1]:
            out[k] = fp[n - 1]
            continue
        lo, hi = 0, n - 1
        while hi - lo > 1:
            mid = (lo + hi) >> 1
            if xp[mid] <= v:
                lo = mid
            else:
                hi = mid
        t = (v - xp[lo]) / (xp[hi] - xp[lo])
        out[k] = fp[lo] + t * (fp[hi] - fp[lo])
    return out


def envelope_follower(x, attack, release):
    env = np.empty(x.shape[0])
    e = 0.0
    for i in range(x.shape[0]):
        a = abs(x[i])
        coef = attack if a > e else release
        e = coef * e + (1 - coef) * a
        env[i] = e
    return env


# ---------------------------------------------------------------- finance (numba loops)


def holt_linear(y, alpha, beta, horizon):
    n = y.shape[0]
    if n < 2:
        return np.full(horizon, y[0] if n == 1 else 0.0)
    level = y[0]
    trend = y[1] - y[0]
    for t in range(1, n):
        prev = level
        level = alpha * y[t] + (1 - alpha) * (level + trend)
        trend = beta * (level - prev) + (1 - beta) * trend
    fc = np.empty(horizon)
    for h in range(horizon):
        fc[h] = level + (h + 1) * trend
    return fc


def cir_bond_price_mc(z, r0, a, b, sigma, dt):
    npath, nstep = z.shape
    total = 0.0
    for p in range(npath):
        r = r0
        integral = 0.0
        for t in range(nstep):
            integral += r * dt
            r = abs(r + a * (b - r) * dt + sigma * math.sqrt(max(r, 0.0) * dt) * z[p, t])
        total += math.exp(-integral)
    return total / npath


def bs_digital_and_delta(s, k, t, r, sigma):
    n = s.shape[0]
    price = np.empty(n)
    delta = np.empty(n)
    sq = sigma * math.sqrt(t)
    for i in range(n):
        d2 = (math.log(s[i] / k) + (r - 0.5 * sigma * sigma) * t) / sq
        nd2 = 0.5 * math.erfc(-d2 / math.sqrt(2.0))
        price[i] = math.exp(-r * t) * nd2
        delta[i] = math.exp(-r * t) * math.exp(-0.5 * d2 * d2) / (math.sqrt(2 * math.pi) * s[i] * sq)
    return price, delta


def underwater_durations(prices):
    # the longest stretch below a running peak, and where it started
    peak = prices[0]
    start = 0
    longest = 0
    longest_start = 0
    for i in range(1, prices.shape[0]):
        if prices[i] >= peak:
            peak = prices[i]
            start = i
        elif i - start > longest:
            longest = i - start
            longest_start = start
    return longest, longest_start


# ---------------------------------------------------------------- statistics (numba loops)


def kaplan_meier(time, event):
    # time sorted ascending; event 1 = death, 0 = censored; survival after each distinct time
    n = time.shape[0]
    surv = np.empty(n)
    times = np.empty(n)
    m = 0
    s = 1.0
    at_risk = n
    i = 0
    while i < n:
        t = time[i]
        d = 0
        c = 0
        while i < n and time[i] == t:
            if event[i]:
                d += 1
            else:
                c += 1
            i += 1
        if d > 0:
            s *= 1.0 - d / at_risk
        times[m] = t
        surv[m] = s
        m += 1
        at_risk -= d + c
    return times[:m], surv[:m]


def kendall_tau(x, y):
    n = x.shape[0]
    conc = 0
    disc = 0
    for i in range(n):
        for j in range(i + 1, n):
            s = (x[i] - x[j]) * (y[i] - y[j])
            if s > 0:
                conc += 1
            elif s < 0:
                disc += 1
    total = n * (n - 1) // 2
    if total == 0:
        return 0.0
    return (conc - disc) / total


def auc_mann_whitney(score, label):
    # average ranks for ties, then AUC = (R1 - n1 (n1 + 1) / 2) / (n1 n0)
    n = score.shape[0]
    order = np.argsort(score)
    ranks = np.empty(n)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and score[order[j + 1]] == score[order[i]]:
            j += 1
        r = 0.5 * (i + j) + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = r
        i = j + 1
    n1 = 0
    r1 = 0.0
    for k in range(n):
        if label[k]:
            n1 += 1
            r1 += ranks[k]
    n0 = n - n1
    if n1 == 0 or n0 == 0:
        return math.nan
    return (r1 - n1 * (n1 + 1) / 2.0) / (n1 * n0)


def ks_two_sample(a, b):
    # both sorted
    na, nb = a.shape[0], b.shape[0]
    i = j = 0
    d = 0.0
    while i < na and j < nb:
        v = min(a[i], b[j])
        while i < na and a[i] <= v:
            i += 1
        while j < nb and b[j] <= v:
            j += 1
        gap = abs(i / na - j / nb)
        if gap > d:
            d = gap
    return d


def kde_gaussian(samples, grid, bw):
    n = samples.shape[0]
    out = np.zeros(grid.shape[0])
    for g in range(grid.shape[0]):
        acc = 0.0
        for i in range(n):
            acc += _gauss((grid[g] - samples[i]) / bw)
        out[g] = acc / (n * bw)
    return out


def weighted_median(x, w):
    order = np.argsort(x)
    total = 0.0
    for i in range(w.shape[0]):
        total += w[i]
    acc = 0.0
    for k in range(order.shape[0]):
        acc += w[order[k]]
        if acc >= 0.5 * total:
            return x[order[k]]
    return x[order[-1]]


def online_covariance(x, y):
    n = 0
    mx = 0.0
    my = 0.0
    c = 0.0
    for i in range(x.shape[0]):
        n += 1
        dx = x[i] - mx
        mx += dx / n
        my += (y[i] - my) / n
        c += dx * (y[i] - my)
    return c / (n - 1) if n > 1 else math.nan


# ---------------------------------------------------------------- graphs and DP (numba loops)


def needleman_wunsch(a, b, match, mismatch, gap):
    n, m = a.shape[0], b.shape[0]
    s = np.empty((n + 1, m + 1), dtype=np.int32)
    for i in range(n + 1):
        s[i, 0] = i * gap
    for j in range(m + 1):
        s[0, j] = j * gap
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            diag = s[i - 1, j - 1] + (match if a[i - 1] == b[j - 1] else mismatch)
            s[i, j] = max(diag, s[i - 1, j] + gap, s[i, j - 1] + gap)
    return s[n, m]


def lis_patience(x):
    n = x.shape[0]
    tails = np.empty(n)
    size = 0
    for i in range(n):
        lo, hi = 0, size
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] < x[i]:
                lo = mid + 1
            else:
                hi = mid
        tails[lo] = x[i]
        if lo == size:
            size += 1
    return size


def coin_change_ways(coins, amount):
    ways = np.zeros(amount + 1, dtype=np.int64)
    ways[0] = 1
    for c in coins:
        for v in range(c, amount + 1):
            ways[v] += ways[v - c]
    return ways[amount]


def matrix_chain_order(dims):
    n = dims.shape[0] - 1
    cost = np.zeros((n, n), dtype=np.int64)
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            best = -1
            for k in range(i, j):
                c = cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1]
                if best < 0 or c < best:
                    best = c
            cost[i, j] = best
    return cost[0, n - 1]


def kahn_toposort(indptr, indices):
    n = indptr.shape[0] - 1
    indeg = np.zeros(n, dtype=np.int64)
    for e in range(indices.shape[0]):
        indeg[indices[e]] += 1
    queue = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    for v in range(n):
        if indeg[v] == 0:
            queue[tail] = v
            tail += 1
    while head < tail:
        v = queue[head]
        head += 1
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            indeg[u] -= 1
            if indeg[u] == 0:
                queue[tail] = u
                tail += 1
    return queue[:tail], tail == n


def kruskal_mst_weight(src, dst, w, n):
    order = np.argsort(w)
    parent = np.arange(n)
    total = 0.0
    used = 0
    for k in order:
        a = _root(parent, src[k])
        b = _root(parent, dst[k])
        if a != b:
            parent[a] = b
            total += w[k]
            used += 1
            if used == n - 1:
                break
    return total, used


def prim_dense(adj):
    n = adj.shape[0]
    in_tree = np.zeros(n, dtype=np.bool_)
    key = np.full(n, np.inf)
    parent = np.full(n, -1)
    key[0] = 0.0
    for _ in range(n):
        u = -1
        best = np.inf
        for v in range(n):
            if not in_tree[v] and key[v] < best:
                best = key[v]
                u = v
        if u == -1:
            break
        in_tree[u] = True
        for v in range(n):
            if adj[u, v] > 0 and not in_tree[v] and adj[u, v] < key[v]:
                key[v] = adj[u, v]
                parent[v] = u
    return parent


# ---------------------------------------------------------------- NumPy array programs


def tophat_white_np(img):
    p = np.pad(img, 1, mode="edge")
    h, w = img.shape
    er = p[1:h + 1, 1:w + 1].copy()
    for di in range(3):
        for dj in range(3):
            er = np.minimum(er, p[di:di + h, dj:dj + w])
    q = np.pad(er, 1, mode="edge")
    op = er.copy()
    for di in range(3):
        for dj in range(3):
            op = np.maximum(op, q[di:di + h, dj:dj + w])
    return img - op


def kde_broadcast_np(samples, grid, bw):
    u = (grid[:, None] - samples[None, :]) / bw
    return np.exp(-0.5 * u ** 2).sum(axis=1) / (len(samples) * bw * np.sqrt(2 * np.pi))


def ks_statistic_np(a, b):
    a = np.sort(a)
    b = np.sort(b)
    allv = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, allv, side="right") / a.size
    cdf_b = np.searchsorted(b, allv, side="right") / b.size
    return np.max(np.abs(cdf_a - cdf_b))


def gini_sorted_np(x):
    x = np.sort(x)
    n = x.shape[0]
    idx = np.arange(1, n + 1)
    return (2.0 * np.sum(idx * x) / (n * np.sum(x))) - (n + 1.0) / n


def trimmed_mean_np(x, frac):
    s = np.sort(x)
    k = int(frac * len(s))
    return s[k:len(s) - k].mean()


def kuramoto_np(theta, omega, k, dt, steps):
    n = theta.size
    for _ in range(steps):
        coupling = np.sin(theta[None, :] - theta[:, None]).sum(axis=1)
        theta = theta + dt * (omega + k / n * coupling)
    return theta, np.abs(np.exp(1j * theta).mean())


def wave_leapfrog_np(u0, c2, steps):
    prev = u0.copy()
    cur = u0.copy()
    for _ in range(steps):
        nxt = np.zeros_like(cur)
        nxt[1:-1] = 2 * cur[1:-1] - prev[1:-1] + c2 * (cur[2:] - 2 * cur[1:-1] + cur[:-2])
        prev, cur = cur, nxt
    return cur


def lax_wendroff_roll_np(u, c, steps):
    for _ in range(steps):
        up = np.roll(u, -1)
        um = np.roll(u, 1)
        u = u - 0.5 * c * (up - um) + 0.5 * c ** 2 * (up - 2 * u + um)
    return u


def alpha_blend_np(fg, bg, alpha):
    a = alpha[..., None].astype(np.uint16)
    out = (fg.astype(np.uint16) * a + bg.astype(np.uint16) * (255 - a) + 127) // 255
    return out.astype(np.uint8)


def savgol_convolve_np(x):
    k = np.array([-3.0, 12.0, 17.0, 12.0, -3.0]) / 35.0
    y = x.copy()
    if x.size >= 5:
        y[2:-2] = np.convolve(x, k, mode="valid")
    return y


def histogram_density_np(x, bins):
    counts, edges = np.histogram(x, bins=bins, range=(0.0, 1.0))
    width = edges[1] - edges[0]
    return counts / (counts.sum() * width), edges


def ecdf_at_np(sample, points):
    s = np.sort(sample)
    return np.searchsorted(s, points, side="right") / s.size


def heston_np(z1, z2, s0, v0, kappa, theta, xi, rho, r, dt):
    npath, nstep = z1.shape
    s = np.full(npath, float(s0))
    v = np.full(npath, float(v0))
    for t in range(nstep):
        vp = np.maximum(v, 0.0)
        w2 = rho * z1[:, t] + np.sqrt(1 - rho ** 2) * z2[:, t]
        s = s * np.exp((r - 0.5 * vp) * dt + np.sqrt(vp * dt) * z1[:, t])
        v = v + kappa * (theta - vp) * dt + xi * np.sqrt(vp * dt) * w2
    return s


def nbody_step_np(pos, vel, mass, dt, eps):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d ** 2).sum(-1) + eps ** 2
    inv = r2 ** -1.5
    np.fill_diagonal(inv, 0.0)
    acc = (d * (mass[None, :, None] * inv[:, :, None])).sum(axis=1)
    vel = vel + dt * acc
    return pos + dt * vel, vel


# ---------------------------------------------------------------- second round (after the first's fixes)


@njit
def _median3(a, b, c):
    return max(min(a, b), min(max(a, b), c))


@njit
def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def polygon_area_shoelace(x, y):
    n = x.shape[0]
    area = 0.0
    for i in range(n):
        area += x[i - 1] * y[i] - x[i] * y[i - 1]
    return abs(area) / 2.0


def wave2d_periodic(u, c2, steps):
    h, w = u.shape
    prev = u.copy()
    cur = u.copy()
    nxt = np.empty((h, w))
    for _ in range(steps):
        for i in range(h):
            for j in range(w):
                lap = cur[i - 1, j] + cur[(i + 1) % h, j] + cur[i, j - 1] + cur[i, (j + 1) % w] - 4.0 * cur[i, j]
                nxt[i, j] = 2.0 * cur[i, j] - prev[i, j] + c2 * lap
        prev, cur, nxt = cur, nxt, prev
    return cur


def zero_crossing_rate_frames(x, frame, hop):
    n = x.shape[0]
    if n < frame:
        return np.zeros(0)
    count = 1 + (n - frame) // hop
    out = np.empty(count)
    for f in range(count):
        start = f * hop
        z = 0
        for i in range(start + 1, start + frame):
            if (x[i - 1] >= 0) != (x[i] >= 0):
                z += 1
        out[f] = z / (frame - 1)
    return out


def collatz_lengths(n):
    out = np.empty(n, dtype=np.int64)
    for k in range(n):
        v = k + 1
        steps = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            steps += 1
        out[k] = steps
    return out


def digit_sums(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        v = abs(int(x[i]))
        s = 0
        while v > 0:
            v, r = divmod(v, 10)
            s += r
        out[i] = s
    return out


def gcd_pairs(a, b):
    out = np.empty(a.shape[0], dtype=np.int64)
    for i in range(a.shape[0]):
        out[i] = _gcd(a[i], b[i])
    return out


def sieve_count(n):
    is_p = np.ones(n + 1, dtype=np.bool_)
    is_p[0] = False
    if n >= 1:
        is_p[1] = False
    p = 2
    while p * p <= n:
        if is_p[p]:
            for q in range(p * p, n + 1, p):
                is_p[q] = False
        p += 1
    count = 0
    for i in range(n + 1):
        if is_p[i]:
            count += 1
    return count


def polyline_length(pts):
    total = 0.0
    for i in range(1, pts.shape[0]):
        total += math.hypot(pts[i, 0] - pts[i - 1, 0], pts[i, 1] - pts[i - 1, 1])
    return total


def unwrap_phase(p):
    out = np.empty_like(p)
    if p.shape[0] == 0:
        return out
    out[0] = p[0]
    offset = 0.0
    for i in range(1, p.shape[0]):
        d = p[i] - p[i - 1]
        while d > math.pi:
            d -= 2 * math.pi
            offset -= 2 * math.pi
        while d < -math.pi:
            d += 2 * math.pi
            offset += 2 * math.pi
        out[i] = p[i] + offset
    return out


def cumulative_trapezoid(y, x):
    n = y.shape[0]
    if n < 2:
        return np.zeros(0)
    out = np.empty(n - 1)
    acc = 0.0
    for i in range(1, n):
        acc += 0.5 * (x[i] - x[i - 1]) * (y[i] + y[i - 1])
        out[i - 1] = acc
    return out


def bin_counts_clamped(x, lo, hi, nbins):
    counts = np.zeros(nbins, dtype=np.int64)
    width = (hi - lo) / nbins
    for v in x:
        if not math.isfinite(v) or v < lo or v > hi:
            continue
        b = int(math.floor((v - lo) / width))
        if b == nbins:
            b -= 1
        counts[b] += 1
    return counts


def median3_filter(x):
    n = x.shape[0]
    y = x.copy()
    for i in range(1, n - 1):
        y[i] = _median3(x[i - 1], x[i], x[i + 1])
    return y


def topk_insertion(x, k):
    vals = np.full(k, -np.inf)
    idx = np.full(k, -1, dtype=np.int64)
    for i in range(x.shape[0]):
        v = x[i]
        if v <= vals[k - 1]:
            continue
        j = k - 1
        while j > 0 and vals[j - 1] < v:
            vals[j] = vals[j - 1]
            idx[j] = idx[j - 1]
            j -= 1
        vals[j] = v
        idx[j] = i
    return vals, idx


def ew_zscore(x, alpha):
    out = np.empty(x.shape[0])
    m, v = x[0], 0.0
    for i in range(x.shape[0]):
        d = x[i] - m
        m += alpha * d
        v = (1 - alpha) * (v + alpha * d * d)
        out[i] = d / math.sqrt(v) if v > 0 else 0.0
    return out


def simpson_integrate(f, h):
    n = f.shape[0]
    if n < 3 or n % 2 == 0:
        return math.nan
    s = f[0] + f[n - 1]
    for i in range(1, n - 1):
        s += (4 if i % 2 == 1 else 2) * f[i]
    return s * h / 3


def hough_accumulate(points, n_theta, n_rho, rho_max):
    acc = np.zeros((n_theta, n_rho), dtype=np.int32)
    for t in range(n_theta):
        theta = math.pi * t / n_theta
        c, s = math.cos(theta), math.sin(theta)
        for p in range(points.shape[0]):
            rho = points[p, 0] * c + points[p, 1] * s
            r = int(round((rho + rho_max) / (2 * rho_max) * (n_rho - 1)))
            if 0 <= r < n_rho:
                acc[t, r] += 1
    return acc


def hist_equalize_lut_np(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    lut = np.round(255.0 * cdf / cdf[-1]).astype(np.uint8)
    return lut[img]


def polygon_area_roll_np(x, y):
    return 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


def rolling_std_windows_np(x, w):
    win = np.lib.stride_tricks.sliding_window_view(x, w)
    return win.std(axis=1)


def ecdf_unique_np(x):
    vals, counts = np.unique(x, return_counts=True)
    return vals, np.cumsum(counts) / x.size


# ---------------------------------------------------------------- inputs


def _dag(rng, n):
    a = np.triu(rng.random((n, n)) < 0.35, 1)
    perm = rng.permutation(n)
    a = a[perm][:, perm]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(a.sum(axis=1))
    return indptr, np.nonzero(a)[1].astype(np.int64)


def _graph_edges(rng, n, m):
    return rng.integers(0, n, m), rng.integers(0, n, m), rng.random(m) * 5 + 0.1, n


def _dense_weights(rng, n):
    a = rng.random((n, n)) * (rng.random((n, n)) < 0.6)
    return (np.triu(a, 1) + np.triu(a, 1).T,)


def _survival(rng, n):
    t = np.sort(rng.integers(1, 6, n)).astype(np.float64)
    return t, rng.integers(0, 2, n)


def _lbm(rng, nx, ny):
    w = np.array([4.0 / 9] + [1.0 / 9] * 4 + [1.0 / 36] * 4)
    return (w[:, None, None] * (1.0 + 0.05 * rng.standard_normal((9, nx, ny))), 1.2)


CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


_add("lbm_d2q9_step", lbm_d2q9_step, lambda r: _lbm(r, _n(r, 5, 1), 4), rtol=1e-9, atol=1e-12)
_add("rk4_lorenz", rk4_lorenz, lambda r: (r.standard_normal(3), 10.0, 28.0, 8.0 / 3.0, 0.01, _n(r, 12, 0)),
     rtol=1e-9, atol=1e-12)
_add("kuramoto_step", kuramoto_step, lambda r: (lambda n: (r.random(n) * 6, r.standard_normal(n) * 0.2 + 1.0, 0.5, 0.1))(_n(r, 7)), rtol=1e-9, atol=1e-12)
_add("xy_model_energy", xy_model_energy, lambda r: (r.random((_n(r, 5), 4)) * 6.28, 1.0), rtol=1e-9, atol=1e-12)
_add("lax_wendroff_periodic", lax_wendroff_periodic, lambda r: (r.random(_n(r, 9, 2)), 0.4, 3), rtol=1e-9,
     atol=1e-12)
_add("crank_nicolson_heat", crank_nicolson_heat, lambda r: (r.random(_n(r, 9, 1)), 0.5, 3), rtol=1e-9, atol=1e-12)
_add("sor_poisson", sor_poisson, lambda r: (r.standard_normal((_n(r, 6, 2), 5)), 0.1, 1.5, 1e-6, 50), rtol=1e-9,
     atol=1e-12)
_add("mandelbrot_counts", mandelbrot_counts, lambda r: (np.linspace(-2, 0.5, _n(r, 6)), np.linspace(-1, 1, 5), 30))
_add("morph_open3", morph_open3, lambda r: (r.random((_n(r, 6, 1), 5)),))
_add("nonmax_suppress", nonmax_suppress, lambda r: (lambda h: (r.random((h, 5)), (r.random((h, 5)) - 0.5) * 6.28))(_n(r, 6, 2)))
_add("pyramid_down_121", pyramid_down_121, lambda r: (r.random((_n(r, 7, 1), 6)),), rtol=1e-9, atol=1e-12)
_add("alpha_blend_u8", alpha_blend_u8, lambda r: (lambda h: (r.integers(0, 256, (h, 4, 3), dtype=np.uint8),
                                                            r.integers(0, 256, (h, 4, 3), dtype=np.uint8),
                                                            r.integers(0, 256, (h, 4), dtype=np.uint8)))(_n(r, 5)))
_add("bilateral_1d", bilateral_1d, lambda r: (r.standard_normal(_n(r, 12)), 2, 1.5, 0.5), rtol=1e-9, atol=1e-12)
_add("cic_decimate", cic_decimate, lambda r: (r.integers(-50, 50, _n(r, 24, 3)).astype(np.int16), 4, 3))
_add("savgol5_smooth", savgol5_smooth, lambda r: (r.standard_normal(_n(r, 11, 3)),), rtol=1e-9, atol=1e-12)
_add("clenshaw_chebyshev", clenshaw_chebyshev, lambda r: (r.standard_normal(_n(r, 5)), r.random(6) * 2 - 1),
     rtol=1e-9, atol=1e-12)
_add("interp_linear_search", interp_linear_search,
     lambda r: (lambda n: (np.sort(r.random(n)), r.standard_normal(n), r.random(8) * 1.2 - 0.1))(_n(r, 6, 2)),
     rtol=1e-9, atol=1e-12)
_add("envelope_follower", envelope_follower, lambda r: (r.standard_normal(_n(r, 12)), 0.3, 0.9), rtol=1e-9,
     atol=1e-12)
_add("holt_linear", holt_linear, lambda r: (r.random(_n(r, 10, int(r.integers(0, 2)))), 0.5, 0.3, 3), rtol=1e-9,
     atol=1e-12)
_add("cir_bond_price_mc", cir_bond_price_mc, lambda r: (r.standard_normal((_n(r, 5), 6)), 0.03, 0.5, 0.04, 0.1,
                                                         0.1), rtol=1e-9, atol=1e-12)
_add("bs_digital_and_delta", bs_digital_and_delta, lambda r: (r.random(_n(r, 6)) * 40 + 80, 100.0, 0.5, 0.02, 0.25),
     rtol=1e-9, atol=1e-12)
_add("underwater_durations", underwater_durations, lambda r: (np.cumprod(1 + 0.05 * r.standard_normal(_n(r, 20))),))
_add("kaplan_meier", kaplan_meier, lambda r: _survival(r, _n(r, 10)), rtol=1e-9, atol=1e-12)
_add("kendall_tau", kendall_tau, lambda r: (lambda n: (r.integers(0, 4, n), r.integers(0, 4, n)))(_n(r, 8)))
_add("auc_mann_whitney", auc_mann_whitney, lambda r: (lambda n: (r.integers(0, 5, n) * 0.5, r.integers(0, 2, n)))(_n(r, 10)),
     rtol=1e-9, atol=1e-12)
_add("ks_two_sample", ks_two_sample, lambda r: (np.sort(r.random(_n(r, 7))), np.sort(r.random(5))), rtol=1e-9,
     atol=1e-12)
_add("kde_gaussian", kde_gaussian, lambda r: (r.standard_normal(_n(r, 9)), np.linspace(-2, 2, 5), 0.5), rtol=1e-9,
     atol=1e-12)
_add("weighted_median", weighted_median, lambda r: (lambda n: (r.standard_normal(n), r.random(n) + 0.1))(_n(r, 9)))
_add("online_covariance", online_covariance, lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n)))(_n(r, 9)),
     rtol=1e-9, atol=1e-12)
_add("needleman_wunsch", needleman_wunsch, lambda r: (r.integers(0, 4, _n(r, 8)).astype(np.uint8),
                                                       r.integers(0, 4, 6).astype(np.uint8), 2, -1, -2))
_add("lis_patience", lis_patience, lambda r: (r.standard_normal(_n(r, 12)),))
_add("coin_change_ways", coin_change_ways, lambda r: (np.array([1, 2, 5, 10]), int(_n(r, 23, 0))))
_add("matrix_chain_order", matrix_chain_order, lambda r: (r.integers(1, 20, _n(r, 6, 2)),))
_add("kahn_toposort", kahn_toposort, lambda r: _dag(r, _n(r, 7, 1)))
_add("kruskal_mst_weight", kruskal_mst_weight, lambda r: _graph_edges(r, 6, _n(r, 12, 1)), rtol=1e-9, atol=1e-12)
_add("prim_dense", prim_dense, lambda r: _dense_weights(r, _n(r, 6, 1)))
_add("tophat_white_np", tophat_white_np, lambda r: (r.random((_n(r, 6, 1), 5)),))
_add("kde_broadcast_np", kde_broadcast_np, lambda r: (r.standard_normal(_n(r, 9)), np.linspace(-2, 2, 5), 0.5),
     rtol=1e-9, atol=1e-12)
_add("ks_statistic_np", ks_statistic_np, lambda r: (r.random(_n(r, 7)), r.random(5)), rtol=1e-9, atol=1e-12)
_add("gini_sorted_np", gini_sorted_np, lambda r: (r.random(_n(r, 9)) + 0.1,), rtol=1e-9, atol=1e-12)
_add("trimmed_mean_np", trimmed_mean_np, lambda r: (r.standard_normal(_n(r, 12, 3)), 0.2), rtol=1e-9, atol=1e-12)
_add("kuramoto_np", kuramoto_np, lambda r: (lambda n: (r.random(n) * 6, r.standard_normal(n) * 0.2 + 1.0, 0.5, 0.1, 3))(_n(r, 6)), rtol=1e-9, atol=1e-12)
_add("wave_leapfrog_np", wave_leapfrog_np, lambda r: (r.random(_n(r, 9, 3)), 0.25, 3), rtol=1e-9, atol=1e-12)
_add("lax_wendroff_roll_np", lax_wendroff_roll_np, lambda r: (r.random(_n(r, 9, 2)), 0.4, 3), rtol=1e-9, atol=1e-12)
_add("alpha_blend_np", alpha_blend_np, lambda r: (lambda h: (r.integers(0, 256, (h, 4, 3), dtype=np.uint8),
                                                            r.integers(0, 256, (h, 4, 3), dtype=np.uint8),
                                                            r.integers(0, 256, (h, 4), dtype=np.uint8)))(_n(r, 5)))
_add("savgol_convolve_np", savgol_convolve_np, lambda r: (r.standard_normal(_n(r, 11, 3)),), rtol=1e-9, atol=1e-12)
_add("histogram_density_np", histogram_density_np, lambda r: (r.random(_n(r, 20, 3)), 5), rtol=1e-9, atol=1e-12)
_add("ecdf_at_np", ecdf_at_np, lambda r: (r.random(_n(r, 9)), r.random(6)), rtol=1e-9, atol=1e-12)
_add("heston_np", heston_np, lambda r: (lambda p: (r.standard_normal((p, 6)), r.standard_normal((p, 6)), 100.0,
                                                   0.04, 1.5, 0.04, 0.3, -0.6, 0.01, 1 / 12))(_n(r, 5)),
     rtol=1e-9, atol=1e-12)
_add("nbody_step_np", nbody_step_np, lambda r: (lambda n: (r.standard_normal((n, 3)), r.standard_normal((n, 3)),
                                                           r.random(n) + 0.5, 0.01, 0.1))(_n(r, 5)),
     rtol=1e-9, atol=1e-12)
_add("polygon_area_shoelace", polygon_area_shoelace, lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n)))(
    _n(r, 7, 1)), rtol=1e-9, atol=1e-12)
_add("wave2d_periodic", wave2d_periodic, lambda r: (r.random((_n(r, 5, 1), 4)), 0.2, 3), rtol=1e-9, atol=1e-12)
_add("zero_crossing_rate_frames", zero_crossing_rate_frames, lambda r: (r.standard_normal(_n(r, 20, 3)), 6, 3),
     rtol=1e-9, atol=1e-12)
_add("collatz_lengths", collatz_lengths, lambda r: (int(_n(r, 12, 0)),))
_add("digit_sums", digit_sums, lambda r: (r.integers(-5000, 5000, _n(r, 8)),))
_add("gcd_pairs", gcd_pairs, lambda r: (lambda n: (r.integers(0, 60, n), r.integers(0, 60, n)))(_n(r, 8)))
_add("sieve_count", sieve_count, lambda r: (int(_n(r, 40, 1)),))
_add("polyline_length", polyline_length, lambda r: (r.standard_normal((_n(r, 6, 1), 2)),), rtol=1e-9, atol=1e-12)
_add("unwrap_phase", unwrap_phase, lambda r: (np.cumsum(r.standard_normal(_n(r, 10, 0)) * 3),), rtol=1e-9,
     atol=1e-12)
_add("cumulative_trapezoid", cumulative_trapezoid, lambda r: (lambda n: (r.standard_normal(n), np.cumsum(r.random(n))))(
    _n(r, 8, 1)), rtol=1e-9, atol=1e-12)
_add("bin_counts_clamped", bin_counts_clamped, lambda r: (r.random(_n(r, 20, 2)) * 1.4 - 0.2, 0.0, 1.0, 5))
_add("median3_filter", median3_filter, lambda r: (r.standard_normal(_n(r, 9, 2)),))
_add("topk_insertion", topk_insertion, lambda r: (r.standard_normal(_n(r, 10, 1)), 3))
_add("ew_zscore", ew_zscore, lambda r: (r.standard_normal(_n(r, 10, 1)), 0.3), rtol=1e-9, atol=1e-12)
_add("simpson_integrate", simpson_integrate, lambda r: (r.standard_normal(int(r.integers(1, 10))), 0.1), rtol=1e-9,
     atol=1e-12)
_add("hough_accumulate", hough_accumulate, lambda r: (r.random((_n(r, 6, 1), 2)) * 4 - 2, 6, 9, 3.0))
_add("hist_equalize_lut_np", hist_equalize_lut_np, lambda r: (r.integers(0, 256, (_n(r, 5, 1), 4), dtype=np.uint8),))
_add("polygon_area_roll_np", polygon_area_roll_np,
     lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n)))(_n(r, 7, 1)), rtol=1e-9, atol=1e-12)
_add("rolling_std_windows_np", rolling_std_windows_np, lambda r: (r.standard_normal(_n(r, 10, 3)), 3), rtol=1e-9,
     atol=1e-12)
_add("ecdf_unique_np", ecdf_unique_np, lambda r: (r.integers(0, 5, _n(r, 10)).astype(np.float64),), rtol=1e-9,
     atol=1e-12)
