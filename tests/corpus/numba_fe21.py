"""Session 19's third-party-style numba kernels (numba examples, scientific codes, Stack Overflow
answers): builtin helpers inside the user's own helpers (``np.sort``, ``sum``, ``math.isclose``,
``np.interp``), global lookup tables read as frozen constants, prefix sums, histograms, particle
updates, distance matrices, small solvers, image filters, Monte Carlo with explicit loops,
``while`` loops with ``break``, tuples returned, integer ``//`` and ``%``, boolean masks."""

from __future__ import annotations

import math

import numpy as np
from corpus_case import Case

# ---- builtin helpers inside user helpers ---------------------------------------------------


def _median_of(a):
    s = np.sort(a)
    n = len(s)
    if n % 2 == 1:
        return s[n // 2]
    return 0.5 * (s[n // 2 - 1] + s[n // 2])


def robust_center(x):
    return _median_of(x) + 0.0


def _total(a):
    return sum(a)


def mean_by_helper(x):
    return _total(x) / x.shape[0]


def _close(a, b):
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def count_close(x, y):
    c = 0
    for i in range(x.shape[0]):
        if _close(x[i], y[i]):
            c += 1
    return c


def _lookup(v, xp, fp):
    return np.interp(v, xp, fp)


def calibrate(raw, xp, fp, out):
    for i in range(raw.shape[0]):
        out[i] = _lookup(raw[i], xp, fp)


def _bucket(edges, v):
    return np.searchsorted(edges, v, side="right") - 1


def bucket_counts(x, edges, counts):
    for i in range(x.shape[0]):
        b = _bucket(edges, x[i])
        if 0 <= b < counts.shape[0]:
            counts[b] += 1


def _poly(c, t):
    return np.polyval(c, t)


def eval_poly(coeffs, ts):
    return _poly(coeffs, ts) * 2.0


def _mad(a):
    m = np.median(a)
    return np.median(np.abs(a - m))


def median_abs_deviation(x):
    return _mad(x)


# ---- global lookup tables (numba freezes them as constants) ---------------------------------

WEIGHTS = np.array([0.25, 0.5, 0.25])
POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
STENCIL = np.array([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])
OFFSETS = (-1, 0, 1)  # global tuples of numbers: constants too
SIZE = 3
WTS = (0.25, 0.5, 0.25)


def smooth_global(x, out):
    for i in range(1, x.shape[0] - 1):
        s = 0.0
        for k in range(3):
            s += WEIGHTS[k] * x[i + k - 1]
        out[i] = s


def popcount_bytes(data):
    total = 0
    for i in range(data.shape[0]):
        total += POPCOUNT[data[i]]
    return total


def laplace_global(img, out):
    n, m = img.shape
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            acc = 0.0
            for di in range(3):
                for dj in range(3):
                    acc += STENCIL[di, dj] * img[i + di - 1, j + dj - 1]
            out[i, j] = acc


def _weighted(x, i):
    return WEIGHTS[0] * x[i - 1] + WEIGHTS[1] * x[i] + WEIGHTS[2] * x[i + 1]


def smooth_global_helper(x, out):
    for i in range(1, x.shape[0] - 1):
        out[i] = _weighted(x, i)


# ---- prefix sums, scans, histograms ----------------------------------------------------------


def prefix_sum(x):
    out = np.empty_like(x)
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out


def exclusive_scan(x, out):
    acc = 0
    for i in range(x.shape[0]):
        out[i] = acc
        acc += x[i]
    return acc


def prefix_sum_2d(img):
    n, m = img.shape
    s = np.zeros((n + 1, m + 1))
    for i in range(n):
        for j in range(m):
            s[i + 1, j + 1] = img[i, j] + s[i, j + 1] + s[i + 1, j] - s[i, j]
    return s


def box_sum(img, r):
    n, m = img.shape
    s = np.zeros((n + 1, m + 1))
    for i in range(n):
        for j in range(m):
            s[i + 1, j + 1] = img[i, j] + s[i, j + 1] + s[i + 1, j] - s[i, j]
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            i0 = max(i - r, 0)
            i1 = min(i + r + 1, n)
            j0 = max(j - r, 0)
            j1 = min(j + r + 1, m)
            out[i, j] = s[i1, j1] - s[i0, j1] - s[i1, j0] + s[i0, j0]
    return out


def histogram_2d(x, y, nbins, lo, hi):
    h = np.zeros((nbins, nbins), dtype=np.int64)
    scale = nbins / (hi - lo)
    for i in range(x.shape[0]):
        bx = int((x[i] - lo) * scale)
        by = int((y[i] - lo) * scale)
        if 0 <= bx < nbins and 0 <= by < nbins:
            h[bx, by] += 1
    return h


def int_histogram(values, nbins):
    counts = np.zeros(nbins, dtype=np.int64)
    for v in values:
        counts[v % nbins] += 1
    return counts


def cumulative_max(x):
    out = np.empty_like(x)
    m = x[0]
    for i in range(x.shape[0]):
        if x[i] > m:
            m = x[i]
        out[i] = m
    return out


# ---- particles and distances ----------------------------------------------------------------


def pairwise_distances(X):
    n, d = X.shape
    D = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(d):
                t = X[i, k] - X[j, k]
                s += t * t
            D[i, j] = np.sqrt(s)
    return D


def nearest_neighbour(X):
    n = X.shape[0]
    idx = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = np.inf
        bj = -1
        for j in range(n):
            if i == j:
                continue
            d = (X[i, 0] - X[j, 0]) ** 2 + (X[i, 1] - X[j, 1]) ** 2
            if d < best:
                best = d
                bj = j
        idx[i] = bj
    return idx


def nbody_step(pos, vel, mass, dt):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                r2 = dx * dx + dy * dy + 1e-3
                inv = mass[j] / (r2 * math.sqrt(r2))
                acc[i, 0] += dx * inv
                acc[i, 1] += dy * inv
    for i in range(n):
        vel[i, 0] += dt * acc[i, 0]
        vel[i, 1] += dt * acc[i, 1]
        pos[i, 0] += dt * vel[i, 0]
        pos[i, 1] += dt * vel[i, 1]


def bounce(pos, vel, lo, hi, dt, steps):
    for _ in range(steps):
        for i in range(pos.shape[0]):
            p = pos[i] + dt * vel[i]
            if p < lo:
                p = 2 * lo - p
                vel[i] = -vel[i]
            elif p > hi:
                p = 2 * hi - p
                vel[i] = -vel[i]
            pos[i] = p


def kinetic_energy(vel, mass):
    e = 0.0
    for i in range(vel.shape[0]):
        v2 = 0.0
        for k in range(vel.shape[1]):
            v2 += vel[i, k] ** 2
        e += 0.5 * mass[i] * v2
    return e


def centroid(points):
    cx = 0.0
    cy = 0.0
    n = points.shape[0]
    for i in range(n):
        cx += points[i, 0]
        cy += points[i, 1]
    return cx / n, cy / n


# ---- small solvers ------------------------------------------------------------------------


def jacobi_solve(A, b, iters):
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
        for i in range(n):
            x[i] = xn[i]
    return x


def gauss_seidel(A, b, x, iters):
    n = b.shape[0]
    for _ in range(iters):
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            x[i] = s / A[i, i]


def newton_sqrt(a, tol):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        x = a[i] if a[i] > 1.0 else 1.0
        while True:
            nx = 0.5 * (x + a[i] / x)
            if abs(nx - x) < tol:
                break
            x = nx
        out[i] = nx
    return out


def bisection_root(c, lo, hi, tol):
    it = 0
    f_lo = lo * lo * lo - c
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        f_mid = mid * mid * mid - c
        if (f_mid < 0) == (f_lo < 0):
            lo = mid
            f_lo = f_mid
        else:
            hi = mid
        it += 1
    return 0.5 * (lo + hi), it


def tridiagonal_solve(a, b, c, d):
    n = d.shape[0]
    cp = np.empty(n)
    dp = np.empty(n)
    x = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def power_iteration(A, iters):
    n = A.shape[0]
    v = np.ones(n)
    lam = 0.0
    for _ in range(iters):
        w = np.zeros(n)
        for i in range(n):
            for j in range(n):
                w[i] += A[i, j] * v[j]
        s = 0.0
        for i in range(n):
            s += w[i] * w[i]
        norm = math.sqrt(s)
        for i in range(n):
            v[i] = w[i] / norm
        lam = norm
    return lam, v


# ---- image filters ------------------------------------------------------------------------


def median3x3(img, out):
    n, m = img.shape
    win = np.empty(9)
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            k = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    win[k] = img[i + di, j + dj]
                    k += 1
            for a in range(1, 9):  # insertion sort of the window
                v = win[a]
                b = a - 1
                while b >= 0 and win[b] > v:
                    win[b + 1] = win[b]
                    b -= 1
                win[b + 1] = v
            out[i, j] = win[4]


def sobel(img):
    n, m = img.shape
    out = np.zeros((n, m))
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            gx = (img[i - 1, j + 1] + 2 * img[i, j + 1] + img[i + 1, j + 1]
                  - img[i - 1, j - 1] - 2 * img[i, j - 1] - img[i + 1, j - 1])
            gy = (img[i + 1, j - 1] + 2 * img[i + 1, j] + img[i + 1, j + 1]
                  - img[i - 1, j - 1] - 2 * img[i - 1, j] - img[i - 1, j + 1])
            out[i, j] = math.sqrt(gx * gx + gy * gy)
    return out


def threshold_mask(img, t):
    mask = np.zeros(img.shape, dtype=np.bool_)
    count = 0
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            if img[i, j] > t:
                mask[i, j] = True
                count += 1
    return mask, count


def erode(mask, out):
    n, m = mask.shape
    for i in range(n):
        for j in range(m):
            keep = mask[i, j]
            if i > 0:
                keep = keep and mask[i - 1, j]
            if i < n - 1:
                keep = keep and mask[i + 1, j]
            if j > 0:
                keep = keep and mask[i, j - 1]
            if j < m - 1:
                keep = keep and mask[i, j + 1]
            out[i, j] = keep


def gamma_u8(img, gamma):
    out = np.empty_like(img)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            v = (img[i, j] / 255.0) ** gamma
            out[i, j] = np.uint8(min(255.0, round(v * 255.0)))
    return out


def downsample2(img):
    n = img.shape[0] // 2
    m = img.shape[1] // 2
    out = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = 0.25 * (img[2 * i, 2 * j] + img[2 * i + 1, 2 * j] + img[2 * i, 2 * j + 1]
                                + img[2 * i + 1, 2 * j + 1])
    return out


# ---- Monte Carlo with given random numbers --------------------------------------------------


def mc_pi(u, v):
    inside = 0
    for i in range(u.shape[0]):
        if u[i] * u[i] + v[i] * v[i] <= 1.0:
            inside += 1
    return 4.0 * inside / u.shape[0]


def random_walk(steps):
    pos = 0
    maxpos = 0
    for i in range(steps.shape[0]):
        if steps[i] < 0.5:
            pos -= 1
        else:
            pos += 1
        if pos > maxpos:
            maxpos = pos
    return pos, maxpos


def metropolis_1d(x0, proposals, uniforms):
    x = x0
    accepted = 0
    chain = np.empty(proposals.shape[0])
    for i in range(proposals.shape[0]):
        y = x + proposals[i]
        if uniforms[i] < math.exp(0.5 * (x * x - y * y)):
            x = y
            accepted += 1
        chain[i] = x
    return chain, accepted


def option_payoff(z, s0, k, r, sigma, t):
    total = 0.0
    drift = (r - 0.5 * sigma * sigma) * t
    vol = sigma * math.sqrt(t)
    for i in range(z.shape[0]):
        st = s0 * math.exp(drift + vol * z[i])
        total += max(st - k, 0.0)
    return math.exp(-r * t) * total / z.shape[0]


# ---- while loops, breaks, integers ---------------------------------------------------------


def collatz_lengths(n, out):
    for i in range(1, n + 1):
        x = i
        steps = 0
        while x != 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            steps += 1
        out[i - 1] = steps


def digit_sums(a, out):
    for i in range(a.shape[0]):
        x = a[i]
        s = 0
        while x > 0:
            s += x % 10
            x //= 10
        out[i] = s


def first_repeat(a):
    seen = np.zeros(256, dtype=np.bool_)
    for i in range(a.shape[0]):
        v = a[i]
        if seen[v]:
            return i, int(v)
        seen[v] = True
    return -1, -1


def run_lengths(a):
    longest = 0
    current = 0
    for i in range(a.shape[0]):
        if i > 0 and a[i] == a[i - 1]:
            current += 1
        else:
            current = 1
        if current > longest:
            longest = current
    return longest


def isqrt_floor(a, out):
    for i in range(a.shape[0]):
        v = a[i]
        r = 0
        while (r + 1) * (r + 1) <= v:
            r += 1
        out[i] = r


def modpow(base, exp, mod, out):
    for i in range(base.shape[0]):
        result = 1
        b = base[i] % mod
        e = exp[i]
        while e > 0:
            if e % 2 == 1:
                result = (result * b) % mod
            b = (b * b) % mod
            e //= 2
        out[i] = result


def divmod_table(a, d):
    q = np.empty_like(a)
    r = np.empty_like(a)
    for i in range(a.shape[0]):
        q[i] = a[i] // d
        r[i] = a[i] % d
    return q, r


def local_extrema(a, out):
    n = a.shape[0]
    for i in range(n):
        out[i] = i == 0 or i == n - 1 or a[i - 1] < a[i] > a[i + 1]  # the ends never read a[-1], a[n]


def below_twice(a, t):
    c = 0
    for i in range(a.shape[0]):
        if i >= 2 and a[i - 2] < t and a[i - 1] < t:
            c += 1
    return c


def linear_search_break(x, t):
    idx = -1
    for i in range(x.shape[0]):
        if x[i] >= t:
            idx = i
            break
    return idx


def masked_sum(x, mask):
    s = 0.0
    n = 0
    for i in range(x.shape[0]):
        if mask[i]:
            s += x[i]
            n += 1
    return s, n


def argmax_manual(x):
    best = x[0]
    k = 0
    for i in range(1, x.shape[0]):
        if x[i] > best:
            best = x[i]
            k = i
    return k, best


def min_max(x):
    lo = x[0]
    hi = x[0]
    for v in x:
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


def bool_and_or(a, b, out_and, out_xor):
    n_and = 0
    for i in range(a.shape[0]):
        out_and[i] = a[i] and b[i]
        out_xor[i] = a[i] != b[i]
        if out_and[i]:
            n_and += 1
    return n_and


def wrap_index_sum(x, shift):
    n = x.shape[0]
    out = np.empty_like(x)
    for i in range(n):
        out[i] = x[(i + shift) % n] - x[(i - shift) % n]
    return out


def lcs_length(a, b):
    n = a.shape[0]
    m = b.shape[0]
    dp = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                dp[i, j] = dp[i - 1, j - 1] + 1
            else:
                dp[i, j] = max(dp[i - 1, j], dp[i, j - 1])
    return dp[n, m]


def edit_distance(a, b):
    n = a.shape[0]
    m = b.shape[0]
    dp = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        dp[i, 0] = i
    for j in range(m + 1):
        dp[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            dp[i, j] = min(dp[i - 1, j] + 1, dp[i, j - 1] + 1, dp[i - 1, j - 1] + cost)
    return dp[n, m]


def trapezoid_integral(y, dx):
    s = 0.0
    for i in range(1, y.shape[0]):
        s += 0.5 * (y[i] + y[i - 1]) * dx
    return s


def moving_average(x, w):
    n = x.shape[0]
    out = np.zeros(n - w + 1)
    acc = 0.0
    for i in range(w):
        acc += x[i]
    out[0] = acc / w
    for i in range(w, n):
        acc += x[i] - x[i - w]
        out[i - w + 1] = acc / w
    return out


def ewma(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def matmul_loops(A, B):
    n, k = A.shape
    m = B.shape[1]
    C = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            acc = 0.0
            for p in range(k):
                acc += A[i, p] * B[p, j]
            C[i, j] = acc
    return C


# ---- more: tuple-returning helpers, sorts, k-means, Python bools returned -----------------------


def _minmax(x):
    lo = x[0]
    hi = x[0]
    for v in x:
        lo = min(lo, v)
        hi = max(hi, v)
    return lo, hi


def normalize(x):
    lo, hi = _minmax(x)
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = (x[i] - lo) / (hi - lo)
    return out


def _qr(a, b):
    return a // b, a % b


def split_index(flat, ncols, rows, cols):
    for k in range(flat.shape[0]):
        r, c = _qr(flat[k], ncols)
        rows[k] = r
        cols[k] = c


def dist_rows(X):
    n = X.shape[0]
    D = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            d = np.sqrt(np.sum((X[i] - X[j]) ** 2))
            D[i, j] = d
            D[j, i] = d
    return D


def kmeans_step(X, centers):
    n, d = X.shape
    k = centers.shape[0]
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = np.inf
        for c in range(k):
            dist = 0.0
            for j in range(d):
                dist += (X[i, j] - centers[c, j]) ** 2
            if dist < best:
                best = dist
                labels[i] = c
    new = np.zeros((k, d))
    counts = np.zeros(k)
    for i in range(n):
        counts[labels[i]] += 1
        for j in range(d):
            new[labels[i], j] += X[i, j]
    for c in range(k):
        if counts[c] > 0:
            for j in range(d):
                new[c, j] /= counts[c]
    return labels, new


def row_normalize(A):
    out = np.empty_like(A)
    for i in range(A.shape[0]):
        s = A[i].sum()
        out[i, :] = A[i, :] / s
    return out


def insertion_sort(a):
    b = a.copy()
    for i in range(1, b.shape[0]):
        key = b[i]
        j = i - 1
        while j >= 0 and b[j] > key:
            b[j + 1] = b[j]
            j -= 1
        b[j + 1] = key
    return b


def bubble_sort_inplace(a):
    n = a.shape[0]
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
                swapped = True
        if not swapped:
            break


def game_of_life(grid):
    n, m = grid.shape
    new = np.zeros_like(grid)
    for i in range(n):
        for j in range(m):
            s = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if di != 0 or dj != 0:
                        s += grid[(i + di) % n, (j + dj) % m]
            if grid[i, j] == 1 and (s == 2 or s == 3):
                new[i, j] = 1
            elif grid[i, j] == 0 and s == 3:
                new[i, j] = 1
    return new


def is_sorted(x):
    for i in range(1, x.shape[0]):
        if x[i] < x[i - 1]:
            return False
    return True


def any_negative(x):
    found = False
    for i in range(x.shape[0]):
        if x[i] < 0:
            found = True
            break
    return found


def weighted_choice(weights, u):
    total = 0.0
    for w in weights:
        total += w
    r = u * total
    acc = 0.0
    for i in range(weights.shape[0]):
        acc += weights[i]
        if r < acc:
            return i
    return weights.shape[0] - 1


def max_subarray(x):
    best = x[0]
    cur = x[0]
    for i in range(1, x.shape[0]):
        cur = max(x[i], cur + x[i])
        best = max(best, cur)
    return best


def string_hash(codes, mod):
    h = 0
    for i in range(codes.shape[0]):
        h = (h * 31 + codes[i]) % mod
    return h


# ---- global tuples, temporaries, generators, nested while, softmax ----------------------------


def tuple_global(x, out):
    for i in range(1, x.shape[0] - 1):
        s = 0.0
        for k in range(SIZE):
            s += x[i + OFFSETS[k]]
        out[i] = s / SIZE


def tuple_global_loop(x):
    s = 0.0
    for o in OFFSETS:
        s += x[o + 1]
    return s


def tuple_len(x):
    s = 0.0
    for k in range(len(WTS)):
        s += WTS[k] * x[k]
    return s + WTS[-1] + len(OFFSETS)


def local_temp_in_loop(X):
    n = X.shape[0]
    out = np.empty(n)
    for i in range(n):
        t = np.zeros(3)
        for k in range(3):
            t[k] = X[i, k] * 2.0
        out[i] = t[0] + t[1] * t[2]
    return out


def unpack_rows(pos):
    s = 0.0
    for i in range(pos.shape[0]):
        x, y = pos[i]
        s += math.hypot(x, y)
    return s


def sum_of_squares_gen(x):
    return sum(v * v for v in x)


def nested_while(n):
    count = 0
    i = 0
    while i < n:
        j = 0
        while j < i:
            if (i + j) % 3 == 0:
                count += 1
            j += 1
        i += 1
    return count


def mean_std(x):
    n = x.shape[0]
    m = 0.0
    for v in x:
        m += v
    m /= n
    var = 0.0
    for v in x:
        var += (v - m) ** 2
    return m, math.sqrt(var / n)


def matrix_power_loop(A, k):
    n = A.shape[0]
    R = np.eye(n)
    for _ in range(k):
        T = np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                for p in range(n):
                    T[i, j] += R[i, p] * A[p, j]
        R = T
    return R


def softmax_rows(X):
    out = np.empty_like(X)
    for i in range(X.shape[0]):
        m = X[i].max()
        s = 0.0
        for j in range(X.shape[1]):
            out[i, j] = math.exp(X[i, j] - m)
            s += out[i, j]
        for j in range(X.shape[1]):
            out[i, j] /= s
    return out


def cross_entropy(p, labels):
    loss = 0.0
    for i in range(p.shape[0]):
        loss -= math.log(p[i, labels[i]] + 1e-12)
    return loss / p.shape[0]


def _wsum(x, i):
    return WTS[0] * x[i - 1] + WTS[1] * x[i] + WTS[2] * x[i + 1]


def tuple_in_helper_ret(x):
    return _wsum(x, 1)


# ---- image thresholds, interpolation, counts by pairs, a buffer and its count ---------------------


def bilinear(img, xs, ys):
    out = np.empty(xs.shape[0])
    for k in range(xs.shape[0]):
        x = xs[k]
        y = ys[k]
        i = int(math.floor(y))
        j = int(math.floor(x))
        fy = y - i
        fx = x - j
        out[k] = ((1 - fy) * ((1 - fx) * img[i, j] + fx * img[i, j + 1])
                  + fy * ((1 - fx) * img[i + 1, j] + fx * img[i + 1, j + 1]))
    return out


def zero_crossings(x):
    idx = np.zeros(x.shape[0], dtype=np.int64)
    c = 0
    for i in range(1, x.shape[0]):
        if x[i - 1] * x[i] < 0:
            idx[c] = i
            c += 1
    return idx, c


def otsu(h):
    total = 0
    for i in range(256):
        total += h[i]
    sum_all = 0.0
    for i in range(256):
        sum_all += i * h[i]
    wb = 0
    sb = 0.0
    best = -1.0
    t = 0
    for i in range(256):
        wb += h[i]
        if wb == 0:
            continue
        wf = total - wb
        if wf == 0:
            break
        sb += i * h[i]
        mb = sb / wb
        mf = (sum_all - sb) / wf
        between = wb * wf * (mb - mf) ** 2
        if between > best:
            best = between
            t = i
    return t


def ngram_counts(tokens, vocab):
    counts = np.zeros((vocab, vocab), dtype=np.int64)
    for i in range(tokens.shape[0] - 1):
        counts[tokens[i], tokens[i + 1]] += 1
    return counts


def primes_below(n):
    is_p = np.ones(n, dtype=np.bool_)
    is_p[:2] = False
    for i in range(2, int(math.sqrt(n)) + 1):
        if is_p[i]:
            is_p[i * i::i] = False  # a slice step computed at run time: the loop it means
    return is_p


CASES = [
    # builtin helpers inside user helpers
    Case("robust_center_odd", robust_center, lambda rng: (rng.standard_normal(9),)),
    Case("robust_center_even", robust_center, lambda rng: (rng.standard_normal(10),)),
    Case("mean_by_helper", mean_by_helper, lambda rng: (rng.standard_normal(11),)),
    Case("count_close", count_close, lambda rng: (np.arange(8.0), np.arange(8.0) + np.where(rng.random(8) < 0.5, 1e-8,
                                                                                            1e-2))),
    Case("calibrate", calibrate, lambda rng: (rng.uniform(-1, 5, 10), np.array([0.0, 1.0, 2.5, 4.0]),
                                              np.array([1.0, 3.0, 2.0, 0.5]), np.zeros(10))),
    Case("bucket_counts", bucket_counts, lambda rng: (rng.uniform(-1, 5, 20), np.array([0.0, 1.0, 2.0, 4.0]),
                                                      np.zeros(3, np.int64))),
    Case("eval_poly", eval_poly, lambda rng: (rng.standard_normal(4), rng.standard_normal(7))),
    Case("median_abs_deviation", median_abs_deviation, lambda rng: (rng.standard_normal(13),)),
    # global tables
    Case("smooth_global", smooth_global, lambda rng: (rng.standard_normal(12), np.zeros(12))),
    Case("popcount_bytes", popcount_bytes, lambda rng: (rng.integers(0, 256, 30),)),
    Case("laplace_global", laplace_global, lambda rng: (rng.standard_normal((6, 7)), np.zeros((6, 7)))),
    Case("smooth_global_helper", smooth_global_helper, lambda rng: (rng.standard_normal(12), np.zeros(12))),
    # scans and histograms
    Case("prefix_sum", prefix_sum, lambda rng: (rng.standard_normal(13),)),
    Case("exclusive_scan", exclusive_scan, lambda rng: (rng.integers(0, 9, 10), np.zeros(10, np.int64))),
    Case("prefix_sum_2d", prefix_sum_2d, lambda rng: (rng.standard_normal((5, 6)),)),
    Case("box_sum", box_sum, lambda rng: (rng.standard_normal((6, 7)), 1)),
    Case("histogram_2d", histogram_2d, lambda rng: (rng.uniform(-0.2, 1.2, 40), rng.uniform(0, 1, 40), 4, 0.0, 1.0)),
    Case("int_histogram", int_histogram, lambda rng: (rng.integers(0, 50, 30), 7)),
    Case("cumulative_max", cumulative_max, lambda rng: (rng.standard_normal(11),)),
    # particles and distances
    Case("pairwise_distances", pairwise_distances, lambda rng: (rng.standard_normal((6, 3)),)),
    Case("nearest_neighbour", nearest_neighbour, lambda rng: (rng.standard_normal((7, 2)),)),
    Case("nbody_step", nbody_step, lambda rng: (rng.standard_normal((5, 2)), rng.standard_normal((5, 2)),
                                                rng.uniform(0.5, 1, 5), 0.01)),
    Case("bounce", bounce, lambda rng: (rng.uniform(0, 1, 6), rng.standard_normal(6), 0.0, 1.0, 0.3, 5)),
    Case("kinetic_energy", kinetic_energy, lambda rng: (rng.standard_normal((6, 3)), rng.uniform(1, 2, 6))),
    Case("centroid", centroid, lambda rng: (rng.standard_normal((9, 2)),)),
    # solvers
    Case("jacobi_solve", jacobi_solve, lambda rng: (np.eye(5) * 6 + rng.uniform(0, 1, (5, 5)),
                                                    rng.standard_normal(5), 6)),
    Case("gauss_seidel", gauss_seidel, lambda rng: (np.eye(5) * 6 + rng.uniform(0, 1, (5, 5)),
                                                    rng.standard_normal(5), np.zeros(5), 4)),
    Case("newton_sqrt", newton_sqrt, lambda rng: (rng.uniform(0.1, 50, 8), 1e-10)),
    Case("bisection_root", bisection_root, lambda rng: (float(rng.uniform(1, 20)), 0.0, 5.0, 1e-9)),
    Case("tridiagonal_solve", tridiagonal_solve, lambda rng: (rng.uniform(0, 1, 7), rng.uniform(3, 4, 7),
                                                              rng.uniform(0, 1, 7), rng.standard_normal(7))),
    Case("power_iteration", power_iteration, lambda rng: (np.diag([3.0, 1.0, 0.5, 0.2]) + 0.01, 8)),
    # image filters
    Case("median3x3", median3x3, lambda rng: (rng.standard_normal((5, 6)), np.zeros((5, 6)))),
    Case("sobel", sobel, lambda rng: (rng.standard_normal((6, 7)),)),
    Case("threshold_mask", threshold_mask, lambda rng: (rng.standard_normal((5, 6)), 0.2)),
    Case("erode", erode, lambda rng: (rng.random((6, 5)) < 0.7, np.zeros((6, 5), np.bool_))),
    Case("gamma_u8", gamma_u8, lambda rng: (rng.integers(0, 256, (4, 5)).astype(np.uint8), 0.8)),
    Case("downsample2", downsample2, lambda rng: (rng.standard_normal((6, 9)),)),
    # Monte Carlo
    Case("mc_pi", mc_pi, lambda rng: (rng.random(50), rng.random(50))),
    Case("random_walk", random_walk, lambda rng: (rng.random(40),)),
    Case("metropolis_1d", metropolis_1d, lambda rng: (0.1, rng.standard_normal(30), rng.random(30))),
    Case("option_payoff", option_payoff, lambda rng: (rng.standard_normal(40), 100.0, 105.0, 0.02, 0.3, 1.0)),
    # while loops, breaks, integers, masks, tuples
    Case("collatz_lengths", collatz_lengths, lambda rng: (12, np.zeros(12, np.int64))),
    Case("digit_sums", digit_sums, lambda rng: (rng.integers(0, 100000, 9), np.zeros(9, np.int64))),
    Case("first_repeat", first_repeat, lambda rng: (rng.integers(0, 40, 12),)),
    Case("first_repeat_none", first_repeat, lambda rng: (np.arange(10),)),
    Case("run_lengths", run_lengths, lambda rng: (rng.integers(0, 2, 20),)),
    Case("isqrt_floor", isqrt_floor, lambda rng: (rng.integers(0, 200, 9), np.zeros(9, np.int64))),
    Case("modpow", modpow, lambda rng: (rng.integers(1, 1000, 8), rng.integers(0, 50, 8), 97, np.zeros(8, np.int64))),
    Case("divmod_table", divmod_table, lambda rng: (rng.integers(-50, 50, 10), 7)),
    Case("local_extrema", local_extrema, lambda rng: (rng.standard_normal(10), np.zeros(10, np.bool_))),
    Case("below_twice", below_twice, lambda rng: (rng.standard_normal(12), 0.2)),
    Case("linear_search_break", linear_search_break, lambda rng: (np.sort(rng.standard_normal(12)), 0.3)),
    Case("masked_sum", masked_sum, lambda rng: (rng.standard_normal(12), rng.random(12) < 0.5)),
    Case("argmax_manual", argmax_manual, lambda rng: (rng.standard_normal(12),)),
    Case("min_max", min_max, lambda rng: (rng.standard_normal(12),)),
    Case("bool_and_or", bool_and_or, lambda rng: (rng.random(10) < 0.5, rng.random(10) < 0.5, np.zeros(10, np.bool_),
                                                  np.zeros(10, np.bool_))),
    Case("wrap_index_sum", wrap_index_sum, lambda rng: (rng.standard_normal(9), 2)),
    Case("lcs_length", lcs_length, lambda rng: (rng.integers(0, 3, 8), rng.integers(0, 3, 7))),
    Case("edit_distance", edit_distance, lambda rng: (rng.integers(0, 3, 8), rng.integers(0, 3, 6))),
    Case("trapezoid_integral", trapezoid_integral, lambda rng: (rng.standard_normal(10), 0.1)),
    Case("moving_average", moving_average, lambda rng: (rng.standard_normal(12), 3)),
    Case("ewma", ewma, lambda rng: (rng.standard_normal(12), 0.3)),
    Case("matmul_loops", matmul_loops, lambda rng: (rng.standard_normal((4, 5)), rng.standard_normal((5, 3)))),
    # more
    Case("normalize", normalize, lambda rng: (rng.standard_normal(9),)),
    Case("split_index", split_index, lambda rng: (rng.integers(0, 40, 8), 6, np.zeros(8, np.int64), np.zeros(8, np.int64))),
    Case("dist_rows", dist_rows, lambda rng: (rng.standard_normal((5, 3)),)),
    Case("kmeans_step", kmeans_step, lambda rng: (rng.standard_normal((12, 2)), rng.standard_normal((3, 2)))),
    Case("row_normalize", row_normalize, lambda rng: (rng.uniform(0.5, 1, (4, 5)),)),
    Case("string_hash", string_hash, lambda rng: (rng.integers(0, 128, 20), 1000003)),
    Case("insertion_sort", insertion_sort, lambda rng: (rng.standard_normal(9),)),
    Case("bubble_sort_inplace", bubble_sort_inplace, lambda rng: (rng.standard_normal(9),)),
    Case("game_of_life", game_of_life, lambda rng: ((rng.random((6, 6)) < 0.4).astype(np.int64),)),
    Case("is_sorted", is_sorted, lambda rng: (np.sort(rng.standard_normal(6)),)),
    Case("is_sorted_no", is_sorted, lambda rng: (rng.standard_normal(6),)),
    Case("weighted_choice", weighted_choice, lambda rng: (rng.uniform(0, 1, 6), float(rng.random()))),
    Case("any_negative", any_negative, lambda rng: (rng.standard_normal(6),)),
    Case("max_subarray", max_subarray, lambda rng: (rng.standard_normal(12),)),
    # global tuples and more
    Case("tuple_global", tuple_global, lambda rng: (rng.standard_normal(9), np.zeros(9))),
    Case("tuple_global_loop", tuple_global_loop, lambda rng: (rng.standard_normal(4),)),
    Case("local_temp_in_loop", local_temp_in_loop, lambda rng: (rng.standard_normal((5, 3)),)),
    Case("unpack_rows", unpack_rows, lambda rng: (rng.standard_normal((5, 2)),)),
    Case("sum_of_squares_gen", sum_of_squares_gen, lambda rng: (rng.standard_normal(8),)),
    Case("nested_while", nested_while, lambda rng: (9,)),
    Case("mean_std", mean_std, lambda rng: (rng.standard_normal(12),)),
    Case("matrix_power_loop", matrix_power_loop, lambda rng: (rng.standard_normal((3, 3)) * 0.5, 3)),
    Case("cross_entropy", cross_entropy, lambda rng: (rng.uniform(0.1, 1, (5, 3)), rng.integers(0, 3, 5))),
    Case("softmax_rows", softmax_rows, lambda rng: (rng.standard_normal((3, 4)),)),
    Case("tuple_len", tuple_len, lambda rng: (rng.standard_normal(4),)),
    Case("tuple_in_helper_ret", tuple_in_helper_ret, lambda rng: (rng.standard_normal(4),)),
    # images, interpolation, a buffer with its count (what list.append code becomes)
    Case("bilinear", bilinear, lambda rng: (rng.standard_normal((5, 5)), rng.uniform(0, 3.9, 6), rng.uniform(0, 3.9, 6))),
    Case("zero_crossings", zero_crossings, lambda rng: (rng.standard_normal(12),)),
    Case("otsu", otsu, lambda rng: (rng.integers(0, 20, 256),)),
    Case("ngram_counts", ngram_counts, lambda rng: (rng.integers(0, 4, 15), 4)),
    Case("primes_below", primes_below, lambda rng: (30,)),
]
