"""fe32's batch: third-party-style kernels written as numba / NumPy users write them, in forms the
earlier batches did not use (tuple axes, negative axes, keyword-heavy calls, method chains,
``np.gradient``/``np.pad``/``np.interp``/``np.histogram``, float32 and small-int images, while
loops with counters, mask updates through ``x[mask] op= v``)."""

import math

import numpy as np
from corpus_case import Case


def _n(rng, big=9, edge=1):
    return big if rng.integers(0, 3) else edge


# ---- image processing ---------------------------------------------------------------------------

def gamma_lut_u8(img, gamma):
    f = img.astype(np.float32) / 255.0
    g = np.power(f, gamma) * 255.0
    return np.clip(np.rint(g), 0, 255).astype(np.uint8)


def sepia(img):
    m = np.array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]])
    out = img @ m.T
    return np.minimum(out, 1.0)


def unsharp_f32(img, amount):
    h, w = img.shape
    blur = img.copy()
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            acc = np.float32(0.0)
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    acc += img[i + di, j + dj]
            blur[i, j] = acc / np.float32(9.0)
    return img + amount * (img - blur)


def grad_mag(img):
    gy, gx = np.gradient(img)
    return np.hypot(gx, gy)


def integral_image(img):
    return img.cumsum(axis=0).cumsum(axis=1)


def box_from_integral(img, r):
    s = np.zeros((img.shape[0] + 1, img.shape[1] + 1))
    s[1:, 1:] = img.cumsum(0).cumsum(1)
    h, w = img.shape
    out = np.empty((h - 2 * r, w - 2 * r))
    for i in range(r, h - r):
        for j in range(r, w - r):
            out[i - r, j - r] = (s[i + r + 1, j + r + 1] - s[i - r, j + r + 1]
                                 - s[i + r + 1, j - r] + s[i - r, j - r])
    return out


def channel_standardize(img):
    mu = img.mean(axis=(0, 1), keepdims=True)
    sd = img.std(axis=(0, 1), keepdims=True)
    return (img - mu) / (sd + 1e-8)


def alpha_blend_u8(a, b, alpha):
    out = (alpha * a.astype(np.float64) + (1.0 - alpha) * b).round()
    return out.astype(np.uint8)


def value_channel(img):
    return img.max(axis=-1) - img.min(axis=-1)


def flip_both(img):
    return np.flipud(img) + np.fliplr(img)


def edge_pad_blur(img):
    p = np.pad(img, 1, mode="edge")
    return (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] + p[1:-1, 1:-1]) / 5.0


def hysteresis_1d(x, lo, hi):
    n = x.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    i = 0
    while i < n:
        if x[i] >= hi:
            j = i
            while j < n and x[j] >= lo:
                keep[j] = True
                j += 1
            k = i - 1
            while k >= 0 and x[k] >= lo:
                keep[k] = True
                k -= 1
            i = j
        i += 1
    return keep


def orientation_hist(gx, gy, nbins):
    ang = np.arctan2(gy, gx) + math.pi
    mag = np.sqrt(gx * gx + gy * gy)
    hist = np.zeros(nbins)
    for i in range(gx.shape[0]):
        for j in range(gx.shape[1]):
            b = int(ang[i, j] / (2 * math.pi) * nbins)
            if b >= nbins:
                b = nbins - 1
            hist[b] += mag[i, j]
    return hist


# ---- finance / statistics -----------------------------------------------------------------------

def log_returns(p):
    return np.diff(np.log(p))


def rolling_vol(r, w):
    n = r.shape[0]
    out = np.full(n, np.nan)
    for t in range(w - 1, n):
        win = r[t - w + 1:t + 1]
        out[t] = win.std(ddof=1)
    return out


def ewma_alpha(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for t in range(1, x.shape[0]):
        out[t] = alpha * x[t] + (1 - alpha) * out[t - 1]
    return out


def drawdown_series(p):
    peak = np.maximum.accumulate(p)
    return (p - peak) / peak


def vwap(price, vol):
    return np.sum(price * vol) / np.sum(vol)


def rsi(p, w):
    d = np.diff(p)
    up = np.where(d > 0, d, 0.0)
    dn = np.where(d < 0, -d, 0.0)
    out = np.zeros(d.shape[0])
    for t in range(w, d.shape[0] + 1):
        g = up[t - w:t].mean()
        l_ = dn[t - w:t].mean()
        out[t - 1] = 100.0 if l_ == 0 else 100.0 - 100.0 / (1.0 + g / l_)
    return out


def bollinger(p, w, k):
    n = p.shape[0]
    mid = np.zeros(n - w + 1)
    band = np.zeros(n - w + 1)
    for t in range(n - w + 1):
        s = 0.0
        ss = 0.0
        for u in range(t, t + w):
            s += p[u]
            ss += p[u] * p[u]
        m = s / w
        mid[t] = m
        band[t] = k * math.sqrt(max(ss / w - m * m, 0.0))
    return mid - band, mid + band


def cov_centered(X):
    Xc = X - X.mean(axis=0)
    return Xc.T @ Xc / (X.shape[0] - 1)


def skew_kurt(x):
    m = x.mean()
    d = x - m
    s2 = (d ** 2).mean()
    return (d ** 3).mean() / s2 ** 1.5, (d ** 4).mean() / s2 ** 2 - 3.0


def weighted_median(x, w):
    order = np.argsort(x)
    cw = np.cumsum(w[order])
    k = np.searchsorted(cw, 0.5 * cw[-1])
    return x[order[k]]


def zscore_ddof(X):
    return (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)


def corr_np(a, b):
    return np.corrcoef(a, b)[0, 1]


def macd(p, fast, slow):
    ef = np.empty_like(p)
    es = np.empty_like(p)
    af = 2.0 / (fast + 1)
    as_ = 2.0 / (slow + 1)
    ef[0] = p[0]
    es[0] = p[0]
    for t in range(1, len(p)):
        ef[t] = ef[t - 1] + af * (p[t] - ef[t - 1])
        es[t] = es[t - 1] + as_ * (p[t] - es[t - 1])
    return ef - es


# ---- physics stencils ---------------------------------------------------------------------------

def wave_roll(u, up, c2):
    lap = np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1) + np.roll(u, -1, axis=1) - 4 * u
    return 2 * u - up + c2 * lap


def advect_diffuse(u, vel, nu, steps):
    u = u.copy()
    for _ in range(steps):
        du = np.where(vel > 0, u[1:-1] - u[:-2], u[2:] - u[1:-1])
        u[1:-1] = u[1:-1] - vel[1:-1] * du + nu * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def heat_neumann(T, k, steps):
    for _ in range(steps):
        T[1:-1, 1:-1] += k * (T[2:, 1:-1] + T[:-2, 1:-1] + T[1:-1, 2:] + T[1:-1, :-2] - 4 * T[1:-1, 1:-1])
        T[0, :] = T[1, :]
        T[-1, :] = T[-2, :]
        T[:, 0] = T[:, 1]
        T[:, -1] = T[:, -2]
    return T


def potential_energy(pos):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            e -= 1.0 / np.sqrt(np.dot(d, d) + 0.01)
    return e


def verlet_f32(x0, v0, dt, steps):
    x = np.float32(x0)
    v = np.float32(v0)
    xs = np.empty(steps, dtype=np.float32)
    for s in range(steps):
        a = -x
        x = x + v * dt + np.float32(0.5) * a * dt * dt
        v = v + np.float32(0.5) * (a - x) * dt
        xs[s] = x
    return xs


def laplace3d(u):
    out = np.zeros_like(u)
    out[1:-1, 1:-1, 1:-1] = (u[2:, 1:-1, 1:-1] + u[:-2, 1:-1, 1:-1] + u[1:-1, 2:, 1:-1]
                             + u[1:-1, :-2, 1:-1] + u[1:-1, 1:-1, 2:] + u[1:-1, 1:-1, :-2]
                             - 6.0 * u[1:-1, 1:-1, 1:-1])
    return out


def red_black_sor(u, f, omega, sweeps):
    n, m = u.shape
    for _ in range(sweeps):
        for color in range(2):
            for i in range(1, n - 1):
                start = 1 + (i + color) % 2
                for j in range(start, m - 1, 2):
                    r = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - f[i, j]) - u[i, j]
                    u[i, j] += omega * r
    return u


# ---- data processing ----------------------------------------------------------------------------

def np_histogram(x, nb):
    counts, edges = np.histogram(x, bins=nb, range=(-3.0, 3.0))
    return counts, edges


def bin_then_count(x, edges):
    idx = np.searchsorted(edges, x, side="right") - 1
    idx = np.clip(idx, 0, edges.shape[0] - 2)
    return np.bincount(idx, minlength=edges.shape[0] - 1)


def exclusive_prefix(x):
    return np.concatenate((np.zeros(1, dtype=x.dtype), np.cumsum(x)[:-1]))


def rle_counts(x):
    n = x.shape[0]
    vals = np.empty(n, dtype=x.dtype)
    cnts = np.empty(n, dtype=np.int64)
    k = 0
    i = 0
    while i < n:
        j = i
        while j + 1 < n and x[j + 1] == x[i]:
            j += 1
        vals[k] = x[i]
        cnts[k] = j - i + 1
        k += 1
        i = j + 1
    return vals[:k], cnts[:k]


def argmax_first_loop(x):
    best = 0
    for i in range(1, x.shape[0]):
        if x[i] > x[best]:
            best = i
    return best


def argmin_rows_while(X):
    n, m = X.shape
    out = np.empty(n, dtype=np.int64)
    for r in range(n):
        j = 1
        b = 0
        while j < m:
            if X[r, j] < X[r, b]:
                b = j
            j += 1
        out[r] = b
    return out


def first_cumsum_over(x, t):
    s = 0.0
    i = 0
    while i < x.shape[0]:
        s += x[i]
        if s > t:
            return i
        i += 1
    return -1


def halving_steps(x, eps):
    steps = np.zeros(x.shape[0], dtype=np.int32)
    for i in range(x.shape[0]):
        v = abs(x[i])
        c = 0
        while v > eps:
            v *= 0.5
            c += 1
        steps[i] = c
    return steps


def mask_zero_neg(x):
    x[x < 0] = 0
    return x


def mask_scale_inplace(x, k):
    m = np.abs(x) > 1.0
    x[m] *= k
    return x


def nested_where(x):
    return np.where(x > 1, 1.0, np.where(x < -1, -1.0, x))


def clamp_chain(x, lo, hi):
    return np.maximum(np.minimum(x, hi), lo) - np.clip(x, lo, hi)


def softmax_keepdims(X):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sqdist_bcast(A, B):
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)


def pair_sums_reshape(x):
    return x.reshape(-1, 2).sum(axis=1)


def gram_transpose(X, Y):
    return X.T @ Y


def f32_sum_dtype(x):
    return x.sum(dtype=np.float64), x.astype(np.float64).mean()


def int_digit_stats(a):
    return a // 10 % 10, a & 7, (a >> 1) ^ a


def any_all_axes(X):
    return np.any(X > 1.0, axis=0), np.all(X > -2.0, axis=1)


def count_nonzero_axis(X):
    return np.count_nonzero(X > 0, axis=1)


def argmax_take_along(X):
    idx = np.argmax(X, axis=0)
    return np.take_along_axis(X, idx[None, :], axis=0)[0]


def every_other_flat(X):
    return X.ravel()[::2].sum()


def row_norms(X):
    return np.linalg.norm(X, axis=1)


def maxabs_scale(X):
    return X / np.abs(X).max(axis=0)


def ptp_cols(X):
    return np.ptp(X, axis=0)


def weighted_avg(x, w):
    return np.average(x, weights=w)


def median_axis1(X):
    return np.median(X, axis=1)


def round_two(x):
    return np.round(x, 2)


def sorted_gaps(x):
    return np.diff(np.sort(x))


def cumprod_growth(r):
    return np.cumprod(1.0 + r) - 1.0


def mse_square(a, b):
    return np.mean(np.square(a - b))


def polar_f32(x, y):
    return np.hypot(x, y), np.arctan2(y, x)


def allclose_flag(a, b):
    return np.allclose(a, b, rtol=1e-5, atol=1e-8), np.isclose(a, b).sum()


def flatnonzero_pos(x):
    return np.flatnonzero(x > 0.5)


def einsum_rowdot(A, B):
    return np.einsum("ij,ij->i", A, B)


def trace_diag(A):
    return np.trace(A), np.diag(A) * 2


def tile_repeat(x):
    return np.tile(x, 2) + np.repeat(x, 2)


def interp_grid(xp, fp, x):
    return np.interp(x, xp, fp)


def convolve_valid_np(x, k):
    return np.convolve(x, k, mode="valid")


def linspace_eval(n):
    t = np.linspace(0.0, 1.0, n)
    return np.sin(2 * np.pi * t) * t


def nan_clean_mean(x):
    y = np.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0)
    return y.mean(axis=0)


def nan_to_num_inplace(x):
    np.nan_to_num(x, copy=False)
    return x


def clipped_inplace_out(x, lo, hi):
    np.clip(x, lo, hi, out=x)
    return x


def transpose_view_update(A):
    B = A.T
    B[0, :] += 1.0
    return A


def outer_minus_keep(x):
    d = x[:, None] - x[None, :]
    return np.abs(d).min(axis=1, keepdims=True)


def cumulative_count_int(labels, k):
    out = np.zeros((labels.shape[0], k), dtype=np.int32)
    c = np.zeros(k, dtype=np.int32)
    for i in range(labels.shape[0]):
        c[labels[i]] += 1
        out[i, :] = c
    return out


def binary_search_while(a, v):
    lo = 0
    hi = a.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


def i32_image_diff(a, b):
    d = a.astype(np.int32) - b.astype(np.int32)
    return np.abs(d).astype(np.uint8), (d * d).sum()


def _img(rng, h=6, w=7):
    return rng.random((h, w))


def _u8(rng, shape):
    return rng.integers(0, 256, shape).astype(np.uint8)


def _nans(rng, shape):
    x = rng.standard_normal(shape)
    x[rng.random(shape) < 0.2] = np.nan
    x[rng.random(shape) < 0.1] = np.inf
    x[rng.random(shape) < 0.1] = -np.inf
    return x


def _price(rng, n=20):
    return 100.0 * np.exp(np.cumsum(rng.standard_normal(n) * 0.01))


CASES = [
    Case("gamma_lut_u8", gamma_lut_u8, lambda r: (_u8(r, (4, 5)), 2.2), rtol=1e-5),
    Case("sepia", sepia, lambda r: (r.random((4, 5, 3)),)),
    Case("unsharp_f32", unsharp_f32, lambda r: (r.random((6, 7)).astype(np.float32), np.float32(0.7)), rtol=1e-5),
    Case("grad_mag", grad_mag, lambda r: (_img(r),)),
    Case("integral_image", integral_image, lambda r: (_img(r),)),
    Case("box_from_integral", box_from_integral, lambda r: (_img(r, 8, 9), 1)),
    Case("channel_standardize", channel_standardize, lambda r: (r.random((4, 5, 3)),)),
    Case("alpha_blend_u8", alpha_blend_u8, lambda r: (_u8(r, (4, 5)), _u8(r, (4, 5)), 0.3)),
    Case("value_channel", value_channel, lambda r: (r.random((4, 5, 3)),)),
    Case("flip_both", flip_both, lambda r: (r.random((5, 5)),)),
    Case("edge_pad_blur", edge_pad_blur, lambda r: (_img(r),)),
    Case("hysteresis_1d", hysteresis_1d, lambda r: (r.random(_n(r, 15, 2)), 0.3, 0.8)),
    Case("orientation_hist", orientation_hist, lambda r: (r.standard_normal((5, 6)), r.standard_normal((5, 6)), 8)),
    Case("log_returns", log_returns, lambda r: (_price(r),)),
    Case("rolling_vol", rolling_vol, lambda r: (r.standard_normal(15), 4)),
    Case("ewma_alpha", ewma_alpha, lambda r: (r.standard_normal(_n(r, 12, 1)), 0.2)),
    Case("drawdown_series", drawdown_series, lambda r: (_price(r),)),
    Case("vwap", vwap, lambda r: (_price(r), r.random(20) + 0.1)),
    Case("rsi", rsi, lambda r: (_price(r), 5)),
    Case("bollinger", bollinger, lambda r: (_price(r), 5, 2.0)),
    Case("cov_centered", cov_centered, lambda r: (r.standard_normal((10, 3)),)),
    Case("skew_kurt", skew_kurt, lambda r: (r.standard_normal(30),)),
    Case("weighted_median", weighted_median, lambda r: (r.standard_normal(11), r.random(11) + 0.01)),
    Case("zscore_ddof", zscore_ddof, lambda r: (r.standard_normal((8, 3)),)),
    Case("corr_np", corr_np, lambda r: (r.standard_normal(12), r.standard_normal(12))),
    Case("macd", macd, lambda r: (_price(r), 3, 7)),
    Case("wave_roll", wave_roll, lambda r: (r.random((6, 7)), r.random((6, 7)), 0.1)),
    Case("advect_diffuse", advect_diffuse, lambda r: (r.random(12), r.standard_normal(12) * 0.2, 0.1, 3)),
    Case("heat_neumann", heat_neumann, lambda r: (r.random((6, 7)), 0.1, 3)),
    Case("potential_energy", potential_energy, lambda r: (r.standard_normal((_n(r, 7, 1), 3)),)),
    Case("verlet_f32", verlet_f32, lambda r: (1.0, 0.0, np.float32(0.1), 10), rtol=1e-5),
    Case("laplace3d", laplace3d, lambda r: (r.random((4, 5, 6)),)),
    Case("red_black_sor", red_black_sor, lambda r: (r.random((6, 7)), r.random((6, 7)), 1.5, 2)),
    Case("np_histogram", np_histogram, lambda r: (r.standard_normal(30), 6)),
    Case("bin_then_count", bin_then_count, lambda r: (r.standard_normal(20), np.linspace(-2, 2, 6))),
    Case("exclusive_prefix", exclusive_prefix, lambda r: (r.integers(0, 9, _n(r, 8, 1)),)),
    Case("rle_counts", rle_counts, lambda r: (r.integers(0, 3, _n(r, 12, 1)),)),
    Case("argmax_first_loop", argmax_first_loop, lambda r: (r.integers(0, 5, _n(r, 10, 1)).astype(np.float64),)),
    Case("argmin_rows_while", argmin_rows_while, lambda r: (r.integers(0, 4, (4, 5)).astype(np.float32),)),
    Case("first_cumsum_over", first_cumsum_over, lambda r: (r.random(10), float(r.choice([0.5, 3.0, 50.0])))),
    Case("halving_steps", halving_steps, lambda r: (r.standard_normal(8) * 10, 0.01)),
    Case("mask_zero_neg", mask_zero_neg, lambda r: (r.standard_normal((4, 5)),)),
    Case("mask_scale_inplace", mask_scale_inplace, lambda r: (r.standard_normal(10) * 2, 0.5)),
    Case("nested_where", nested_where, lambda r: (r.standard_normal((4, 5)) * 2,)),
    Case("clamp_chain", clamp_chain, lambda r: (r.standard_normal(9), -0.5, 0.5)),
    Case("softmax_keepdims", softmax_keepdims, lambda r: (r.standard_normal((4, 6)),)),
    Case("sqdist_bcast", sqdist_bcast, lambda r: (r.standard_normal((4, 3)), r.standard_normal((5, 3)))),
    Case("pair_sums_reshape", pair_sums_reshape, lambda r: (r.standard_normal(10),)),
    Case("gram_transpose", gram_transpose, lambda r: (r.standard_normal((6, 3)), r.standard_normal((6, 4)))),
    Case("f32_sum_dtype", f32_sum_dtype, lambda r: (r.standard_normal(_n(r, 20, 1)).astype(np.float32),)),
    Case("int_digit_stats", int_digit_stats, lambda r: (r.integers(-500, 500, 9),)),
    Case("any_all_axes", any_all_axes, lambda r: (r.standard_normal((4, 5)),)),
    Case("count_nonzero_axis", count_nonzero_axis, lambda r: (r.standard_normal((4, 5)),)),
    Case("argmax_take_along", argmax_take_along, lambda r: (r.standard_normal((4, 5)),)),
    Case("every_other_flat", every_other_flat, lambda r: (r.standard_normal((3, 5)),)),
    Case("row_norms", row_norms, lambda r: (r.standard_normal((4, 5)),)),
    Case("maxabs_scale", maxabs_scale, lambda r: (r.standard_normal((4, 5)),)),
    Case("ptp_cols", ptp_cols, lambda r: (r.standard_normal((4, 5)),)),
    Case("weighted_avg", weighted_avg, lambda r: (r.standard_normal(9), r.random(9) + 0.1)),
    Case("median_axis1", median_axis1, lambda r: (r.standard_normal((4, 5)),)),
    Case("round_two", round_two, lambda r: (r.standard_normal(9) * 10,)),
    Case("sorted_gaps", sorted_gaps, lambda r: (r.standard_normal(_n(r, 9, 1)),)),
    Case("cumprod_growth", cumprod_growth, lambda r: (r.standard_normal(9) * 0.01,)),
    Case("mse_square", mse_square, lambda r: (r.standard_normal(9), r.standard_normal(9))),
    Case("polar_f32", polar_f32, lambda r: (r.standard_normal(9).astype(np.float32), r.standard_normal(9).astype(np.float32)), rtol=1e-6),
    Case("allclose_flag", allclose_flag, lambda r: (np.arange(6.0), np.arange(6.0) + r.choice([0.0, 1e-9, 1e-3]))),
    Case("flatnonzero_pos", flatnonzero_pos, lambda r: (r.random(_n(r, 12, 1)),)),
    Case("einsum_rowdot", einsum_rowdot, lambda r: (r.standard_normal((4, 5)), r.standard_normal((4, 5)))),
    Case("trace_diag", trace_diag, lambda r: (r.standard_normal((4, 4)),)),
    Case("tile_repeat", tile_repeat, lambda r: (r.standard_normal(5),)),
    Case("interp_grid", interp_grid, lambda r: (np.linspace(0, 1, 6), r.standard_normal(6), r.random(9) * 1.4 - 0.2)),
    Case("convolve_valid_np", convolve_valid_np, lambda r: (r.standard_normal(10), r.standard_normal(3))),
    Case("linspace_eval", linspace_eval, lambda r: (int(r.integers(1, 12)),)),
    Case("nan_clean_mean", nan_clean_mean, lambda r: (_nans(r, (5, 4)),)),
    Case("nan_to_num_inplace", nan_to_num_inplace, lambda r: (_nans(r, 8),)),
    Case("clipped_inplace_out", clipped_inplace_out, lambda r: (r.standard_normal(9), -0.5, 0.5)),
    Case("transpose_view_update", transpose_view_update, lambda r: (r.standard_normal((4, 3)),)),
    Case("outer_minus_keep", outer_minus_keep, lambda r: (r.standard_normal(6),)),
    Case("cumulative_count_int", cumulative_count_int, lambda r: (r.integers(0, 3, 8), 3)),
    Case("binary_search_while", binary_search_while, lambda r: (np.sort(r.standard_normal(_n(r, 10, 1))), float(r.standard_normal()))),
    Case("i32_image_diff", i32_image_diff, lambda r: (_u8(r, (4, 5)), _u8(r, (4, 5)))),
]
