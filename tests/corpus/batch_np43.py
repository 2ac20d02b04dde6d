"""np43's batch: NumPy programs as people write them, beside the np37-np41 batches' idioms —
preprocessing (winsorizing by quantiles, outlier rows dropped by a z-score mask, lag features by
column_stack, quantile bins, a train/test split by permutation, nan-aware scaling), image code with
slices (Laplacian, 2x2 mean downsampling, integral images and box sums, unsharp masks, binary
erosion, moments, bilinear resizing, HSV saturation, alpha blending of uint8), simulations (the
game of life by np.roll, random walks, n-body accelerations, SIR and diffusion loops, a leapfrog
wave), statistics (weighted moments, np.cov/corrcoef, bootstrap by an index matrix, ECDFs, KDE,
Spearman ranks, MAD, 2-d histograms by np.add.at, logaddexp.reduce, np.partition medians, a
bincount mode), ML blocks (layer norm, GELU, causal attention, im2col convolution, momentum SGD,
k-NN votes, label smoothing, soft thresholding, max pooling by reshape, embedding means), signal
code (np.convolve/np.correlate 'same' and 'valid', FIR/biquad loops, autocorrelation, framed RMS,
argwhere peaks, Goertzel, a DFT matrix, decimation by reshape) and geometry (bounding boxes,
polyline lengths, Rodrigues rotations, Heron areas, closest pairs, homogeneous transforms,
angles); written before looking at what is supported."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


# -- preprocessing ----------------------------------------------------------------------------

def winsorize_quantile(x):
    lo = np.quantile(x, 0.05)
    hi = np.quantile(x, 0.95)
    return np.clip(x, lo, hi)


def drop_outlier_rows(X):
    z = (X - X.mean(axis=0)) / X.std(axis=0)
    keep = (np.abs(z) < 1.5).all(axis=1)
    return X[keep]


def signed_log1p(X):
    return np.sign(X) * np.log1p(np.abs(X))


def vander_design(x):
    return np.vander(x, 4, increasing=True)


def lag_features(x):
    return np.column_stack([x[2:], x[1:-1], x[:-2]])


def rolling_std_cumsum(x, w):
    c1 = np.cumsum(np.concatenate(([0.0], x)))
    c2 = np.cumsum(np.concatenate(([0.0], x * x)))
    s1 = c1[w:] - c1[:-w]
    s2 = c2[w:] - c2[:-w]
    var = s2 / w - (s1 / w) ** 2
    return np.sqrt(np.maximum(var, 0.0))


def argmax_onehot(P):
    idx = np.argmax(P, axis=1)
    return (np.arange(P.shape[1]) == idx[:, None]).astype(np.float64)


def split_by_perm(X, perm, k):
    return X[perm[:k]], X[perm[k:]]


def nan_standardize(X):
    mu = np.nanmean(X, axis=0)
    sd = np.nanstd(X, axis=0)
    Z = (X - mu) / sd
    return np.where(np.isnan(Z), 0.0, Z)


def quantile_bins(x):
    edges = np.quantile(x, [0.25, 0.5, 0.75])
    return np.searchsorted(edges, x, side="right")


def argwhere_above(A, t):
    return np.argwhere(A > t)


def clip_by_mad(x):
    med = np.median(x)
    mad = np.median(np.abs(x - med))
    return np.clip(x, med - 3 * mad, med + 3 * mad)


# -- image ------------------------------------------------------------------------------------

def laplacian_slices(img):
    out = np.zeros_like(img)
    out[1:-1, 1:-1] = (4 * img[1:-1, 1:-1] - img[:-2, 1:-1] - img[2:, 1:-1]
                       - img[1:-1, :-2] - img[1:-1, 2:])
    return out


def downsample_mean2(img):
    return (img[::2, ::2] + img[1::2, ::2] + img[::2, 1::2] + img[1::2, 1::2]) / 4


def integral_box_sum(img, r):
    ii = np.zeros((img.shape[0] + 1, img.shape[1] + 1))
    ii[1:, 1:] = np.cumsum(np.cumsum(img, axis=0), axis=1)
    return ii[r:, r:] - ii[:-r, r:] - ii[r:, :-r] + ii[:-r, :-r]


def unsharp_mask(img, amount):
    blur = img.copy()
    blur[1:-1, 1:-1] = (img[:-2, 1:-1] + img[2:, 1:-1] + img[1:-1, :-2] + img[1:-1, 2:]
                        + img[1:-1, 1:-1]) / 5
    return np.clip(img + amount * (img - blur), 0.0, 1.0)


def median3_1d(x):
    return np.median(np.stack([x[:-2], x[1:-1], x[2:]]), axis=0)


def bilinear_resize(img, oh, ow):
    h, w = img.shape
    ys = np.linspace(0, h - 1, oh)
    xs = np.linspace(0, w - 1, ow)
    y0 = np.floor(ys).astype(np.int64)
    x0 = np.floor(xs).astype(np.int64)
    y1 = np.minimum(y0 + 1, h - 1)
    x1 = np.minimum(x0 + 1, w - 1)
    wy = (ys - y0)[:, None]
    wx = (xs - x0)[None, :]
    a = img[y0][:, x0]
    b = img[y0][:, x1]
    c = img[y1][:, x0]
    d = img[y1][:, x1]
    return a * (1 - wy) * (1 - wx) + b * (1 - wy) * wx + c * wy * (1 - wx) + d * wy * wx


def u8_channel_stats(img):
    f = img.astype(np.float32) / 255
    return f.mean(axis=(0, 1)), f.std(axis=(0, 1))


def alpha_blend_u8(fg, bg, alpha):
    out = alpha * fg.astype(np.float64) + (1 - alpha) * bg
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


def binary_erosion(m):
    out = np.zeros_like(m)
    out[1:-1, 1:-1] = (m[1:-1, 1:-1] & m[:-2, 1:-1] & m[2:, 1:-1] & m[1:-1, :-2] & m[1:-1, 2:])
    return out


def image_moments(img):
    ys = np.arange(img.shape[0])[:, None]
    xs = np.arange(img.shape[1])[None, :]
    m00 = img.sum()
    cy = (ys * img).sum() / m00
    cx = (xs * img).sum() / m00
    mu20 = ((xs - cx) ** 2 * img).sum() / m00
    mu02 = ((ys - cy) ** 2 * img).sum() / m00
    return cy, cx, mu20, mu02


def pad_edge_gradient(img):
    p = np.pad(img, 1, mode="edge")
    gx = p[1:-1, 2:] - p[1:-1, :-2]
    gy = p[2:, 1:-1] - p[:-2, 1:-1]
    return np.hypot(gx, gy)


def hsv_saturation(rgb):
    mx = rgb.max(axis=-1)
    mn = rgb.min(axis=-1)
    s = np.where(mx > 0, (mx - mn) / np.where(mx > 0, mx, 1.0), 0.0)
    return s, mx


def brightest_pixels_copy(img, t):
    buf = np.empty(img.size)
    k = 0
    flat = img.ravel()
    for i in range(flat.shape[0]):
        if flat[i] > t:
            buf[k] = flat[i]
            k += 1
    return buf[:k].copy()


# -- simulation -------------------------------------------------------------------------------

def life_step(g):
    n = (np.roll(g, 1, 0) + np.roll(g, -1, 0) + np.roll(g, 1, 1) + np.roll(g, -1, 1)
         + np.roll(np.roll(g, 1, 0), 1, 1) + np.roll(np.roll(g, 1, 0), -1, 1)
         + np.roll(np.roll(g, -1, 0), 1, 1) + np.roll(np.roll(g, -1, 0), -1, 1))
    return ((n == 3) | (g & (n == 2))).astype(np.uint8)


def random_walk_stats(steps):
    pos = np.cumsum(steps)
    peak = np.maximum.accumulate(pos)
    return pos[-1], peak.max(), np.argmax(pos), (pos == 0).sum()


def nbody_accel(pos, mass):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d ** 2).sum(axis=-1) + 1e-3
    inv = r2 ** -1.5
    np.fill_diagonal(inv, 0.0)
    return (d * (inv * mass[None, :])[:, :, None]).sum(axis=1)


def sir_euler(beta, gamma, steps):
    out = np.zeros((steps + 1, 3))
    out[0] = [0.99, 0.01, 0.0]
    for t in range(steps):
        s, i, r = out[t]
        out[t + 1, 0] = s - beta * s * i
        out[t + 1, 1] = i + beta * s * i - gamma * i
        out[t + 1, 2] = r + gamma * i
    return out


def diffusion_1d(u, r, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def wave_leapfrog(u0, c2, steps):
    prev = u0.copy()
    cur = u0.copy()
    for _ in range(steps):
        nxt = np.zeros_like(cur)
        nxt[1:-1] = 2 * cur[1:-1] - prev[1:-1] + c2 * (cur[2:] - 2 * cur[1:-1] + cur[:-2])
        prev = cur
        cur = nxt
    return cur


def logistic_map(rs, x0, steps):
    x = np.full(rs.shape[0], x0)
    for _ in range(steps):
        x = rs * x * (1 - x)
    return x


def heat_2d_loop(T, steps):
    T = T.copy()
    for _ in range(steps):
        T[1:-1, 1:-1] = 0.25 * (T[:-2, 1:-1] + T[2:, 1:-1] + T[1:-1, :-2] + T[1:-1, 2:])
    return T


# -- statistics -------------------------------------------------------------------------------

def weighted_moments(x, w):
    m = np.average(x, weights=w)
    v = np.average((x - m) ** 2, weights=w)
    return m, v


def cov_corr(X):
    return np.cov(X, rowvar=False), np.corrcoef(X.T)


def bootstrap_means(x, idx):
    return x[idx].mean(axis=1)


def ecdf_eval(sample, q):
    s = np.sort(sample)
    return np.searchsorted(s, q, side="right") / s.shape[0]


def kde_gauss(x, grid, h):
    u = (grid[:, None] - x[None, :]) / h
    return np.exp(-0.5 * u * u).sum(axis=1) / (x.shape[0] * h * np.sqrt(2 * np.pi))


def spearman_rho(x, y):
    rx = np.argsort(np.argsort(x))
    ry = np.argsort(np.argsort(y))
    n = x.shape[0]
    d = (rx - ry).astype(np.float64)
    return 1 - 6 * (d * d).sum() / (n * (n * n - 1))


def hist2d_add_at(x, y, nb):
    ix = np.minimum((x * nb).astype(np.int64), nb - 1)
    iy = np.minimum((y * nb).astype(np.int64), nb - 1)
    H = np.zeros((nb, nb), dtype=np.int64)
    np.add.at(H, (ix, iy), 1)
    return H


def logaddexp_reduce(x):
    return np.logaddexp.reduce(x)


def ufunc_reduce_forms(A):
    return np.maximum.reduce(A, axis=1), np.multiply.reduce(A[:, :2], axis=0), np.minimum.reduce(A.ravel())


def partition_median(x):
    k = x.shape[0] // 2
    return np.partition(x, k)[k]


def bincount_mode(x):
    return np.bincount(x).argmax()


def zscore_selected(x):
    sel = x[x > 0]
    m = sel.mean()
    s = sel.std()
    return (sel - m) / s


def unique_freqs(x):
    u, c = np.unique(x, return_counts=True)
    freq = c / c.sum()
    return u, freq


def moving_quantiles(x, w):
    n = x.shape[0] - w + 1
    out = np.empty(n)
    for i in range(n):
        out[i] = np.median(x[i:i + w])
    return out


# -- ML ---------------------------------------------------------------------------------------

def layernorm_forward(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def causal_attention(q, k, v):
    d = q.shape[1]
    s = q @ k.T / np.sqrt(d)
    mask = np.triu(np.ones((q.shape[0], k.shape[0]), dtype=bool), 1)
    s = np.where(mask, -np.inf, s)
    s = s - s.max(axis=1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=1, keepdims=True)
    return p @ v


def conv2d_im2col(img, w):
    kh, kw = w.shape
    oh = img.shape[0] - kh + 1
    ow = img.shape[1] - kw + 1
    cols = np.empty((oh * ow, kh * kw))
    for i in range(oh):
        for j in range(ow):
            cols[i * ow + j] = img[i:i + kh, j:j + kw].ravel()
    return (cols @ w.ravel()).reshape(oh, ow)


def sgd_momentum(w, g, v, lr, mu):
    v = mu * v - lr * g
    w = w + v
    return w, v


def knn_vote(Xtr, ytr, Xte, k, ncls):
    d = ((Xte[:, None, :] - Xtr[None, :, :]) ** 2).sum(axis=-1)
    nn = np.argsort(d, axis=1, kind="stable")[:, :k]
    votes = ytr[nn]
    out = np.empty(Xte.shape[0], dtype=np.int64)
    for i in range(Xte.shape[0]):
        out[i] = np.bincount(votes[i], minlength=ncls).argmax()
    return out


def smoothed_xent(logits, y, eps):
    n, c = logits.shape
    t = np.full((n, c), eps / c)
    t[np.arange(n), y] += 1 - eps
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -(t * logp).sum(axis=1).mean()


def soft_threshold(w, lam):
    return np.sign(w) * np.maximum(np.abs(w) - lam, 0.0)


def maxpool_reshape(x):
    return x.reshape(-1, 2).max(axis=1)


def embedding_mean(E, ids):
    return E[ids].mean(axis=1)


def relu_grad_masks(x, dout):
    dx = dout * (x > 0)
    leaky = np.where(x > 0, dout, 0.01 * dout)
    return dx, leaky


def adagrad_steps(w, grads, lr):
    w = w.copy()
    acc = np.zeros_like(w)
    for t in range(grads.shape[0]):
        acc += grads[t] ** 2
        w -= lr * grads[t] / (np.sqrt(acc) + 1e-8)
    return w


# -- signal -----------------------------------------------------------------------------------

def convolve_same(x, h):
    return np.convolve(x, h, mode="same")


def correlate_valid(x, y):
    return np.correlate(x, y, mode="valid")


def convolve_short_first(h, x):
    return np.convolve(h, x)


def fir_loop(x, b):
    y = np.zeros_like(x)
    for n in range(x.shape[0]):
        for k in range(b.shape[0]):
            if n - k >= 0:
                y[n] += b[k] * x[n - k]
    return y


def biquad(x, b0, b1, b2, a1, a2):
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n in range(x.shape[0]):
        y[n] = b0 * x[n] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1
        x1 = x[n]
        y2 = y1
        y1 = y[n]
    return y


def autocorr_lags(x, maxlag):
    x = x - x.mean()
    n = x.shape[0]
    out = np.empty(maxlag + 1)
    for k in range(maxlag + 1):
        out[k] = np.dot(x[:n - k], x[k:])
    return out / out[0]


def frame_rms(x, flen, hop):
    nf = 1 + (x.shape[0] - flen) // hop
    out = np.empty(nf)
    for i in range(nf):
        f = x[i * hop:i * hop + flen]
        out[i] = np.sqrt(np.mean(f * f))
    return out


def peaks_argwhere(x):
    return np.argwhere((x[1:-1] > x[:-2]) & (x[1:-1] > x[2:])).ravel() + 1


def goertzel_power(x, k):
    n = x.shape[0]
    coeff = 2 * np.cos(2 * np.pi * k / n)
    s1 = 0.0
    s2 = 0.0
    for i in range(n):
        s0 = x[i] + coeff * s1 - s2
        s2 = s1
        s1 = s0
    return s1 * s1 + s2 * s2 - coeff * s1 * s2


def dft_power(x):
    n = x.shape[0]
    k = np.arange(n)
    W = np.exp(-2j * np.pi * np.outer(k, k) / n)
    X = W @ x
    return np.abs(X) ** 2


def decimate_mean(x, q):
    m = x.shape[0] // q * q
    return x[:m].reshape(-1, q).mean(axis=1)


def hysteresis_threshold(x, lo, hi):
    out = np.zeros(x.shape[0], dtype=bool)
    on = False
    for i in range(x.shape[0]):
        if x[i] > hi:
            on = True
        elif x[i] < lo:
            on = False
        out[i] = on
    return out


# -- geometry ---------------------------------------------------------------------------------

def bbox_center(P):
    lo = P.min(axis=0)
    hi = P.max(axis=0)
    return lo, hi, (lo + hi) / 2, np.prod(hi - lo)


def polyline_length(P):
    return np.sqrt((np.diff(P, axis=0) ** 2).sum(axis=1)).sum()


def rodrigues(v, k, theta):
    k = k / np.linalg.norm(k)
    c = np.cos(theta)
    s = np.sin(theta)
    return v * c + np.cross(k, v) * s + np.outer(v @ k, k) * (1 - c)


def heron_areas(A, B, C):
    a = np.linalg.norm(B - C, axis=1)
    b = np.linalg.norm(A - C, axis=1)
    c = np.linalg.norm(A - B, axis=1)
    s = (a + b + c) / 2
    return np.sqrt(np.maximum(s * (s - a) * (s - b) * (s - c), 0.0))


def closest_pair(P):
    d = np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(axis=-1))
    np.fill_diagonal(d, np.inf)
    i, j = np.unravel_index(np.argmin(d), d.shape)
    return i, j, d[i, j]


def homogeneous_apply(P, M):
    return P @ M[:3, :3].T + M[:3, 3]


def vector_angles(U, V):
    cos = (U * V).sum(axis=1) / (np.linalg.norm(U, axis=1) * np.linalg.norm(V, axis=1))
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def points_in_circle(P, c, r):
    inside = ((P - c) ** 2).sum(axis=1) <= r * r
    return inside.sum(), np.flatnonzero(inside)


def centroid_polygon(x, y):
    xs = np.roll(x, -1)
    ys = np.roll(y, -1)
    cr = x * ys - xs * y
    a = cr.sum() / 2
    return ((x + xs) * cr).sum() / (6 * a), ((y + ys) * cr).sum() / (6 * a)


def _pts(r, n=6, d=3):
    return (r.standard_normal((n, d)),)


CASES = [
    # preprocessing
    Case("winsorize_quantile", winsorize_quantile, lambda r: (r.standard_normal(_n(r, 20, 1)),), rtol=1e-7, atol=1e-9),
    Case("drop_outlier_rows", drop_outlier_rows, lambda r: (r.standard_normal((10, 3)),), rtol=1e-7, atol=1e-9),
    Case("signed_log1p", signed_log1p, lambda r: (r.standard_normal((4, 5)) * 10,), rtol=1e-7, atol=1e-9),
    Case("vander_design", vander_design, lambda r: (r.standard_normal(_n(r, 6)),), rtol=1e-7, atol=1e-9),
    Case("lag_features", lag_features, lambda r: (r.standard_normal(_n(r, 7, 3)),)),
    Case("rolling_std_cumsum", rolling_std_cumsum, lambda r: (r.random(12), 4), rtol=1e-6, atol=1e-7),
    Case("argmax_onehot", argmax_onehot, lambda r: (r.random((_n(r, 5), 4)),)),
    Case("split_by_perm", split_by_perm, lambda r: (r.standard_normal((7, 2)), r.permutation(7), 5)),
    Case("nan_standardize", nan_standardize, lambda r: (np.where(r.random((6, 3)) < 0.2, np.nan,
                                                                 r.standard_normal((6, 3))),), rtol=1e-7, atol=1e-9),
    Case("quantile_bins", quantile_bins, lambda r: (r.standard_normal(11),)),
    Case("argwhere_above", argwhere_above, lambda r: (r.random((4, 5)), 0.6)),
    Case("clip_by_mad", clip_by_mad, lambda r: (r.standard_normal(_n(r, 9, 2)) ** 3,), rtol=1e-7, atol=1e-9),
    # image
    Case("laplacian_slices", laplacian_slices, lambda r: (r.random((_n(r, 6, 2), 5)),), rtol=1e-7, atol=1e-9),
    Case("downsample_mean2", downsample_mean2, lambda r: (r.random((6, 8)),), rtol=1e-7, atol=1e-9),
    Case("integral_box_sum", integral_box_sum, lambda r: (r.random((5, 6)), 2), rtol=1e-7, atol=1e-9),
    Case("unsharp_mask", unsharp_mask, lambda r: (r.random((5, 6)), 1.5), rtol=1e-7, atol=1e-9),
    Case("median3_1d", median3_1d, lambda r: (r.standard_normal(_n(r, 9, 3)),)),
    Case("bilinear_resize", bilinear_resize, lambda r: (r.random((4, 5)), 7, 3), rtol=1e-7, atol=1e-9),
    Case("u8_channel_stats", u8_channel_stats, lambda r: (r.integers(0, 256, (4, 5, 3)).astype(np.uint8),),
         rtol=1e-5, atol=1e-6),
    Case("alpha_blend_u8", alpha_blend_u8, lambda r: (r.integers(0, 256, (3, 4)).astype(np.uint8),
                                                      r.integers(0, 256, (3, 4)).astype(np.uint8), 0.3)),
    Case("binary_erosion", binary_erosion, lambda r: (r.random((5, 6)) < 0.7,)),
    Case("image_moments", image_moments, lambda r: (r.random((4, 6)),), rtol=1e-7, atol=1e-9),
    Case("pad_edge_gradient", pad_edge_gradient, lambda r: (r.random((4, 5)),), rtol=1e-7, atol=1e-9),
    Case("hsv_saturation", hsv_saturation, lambda r: (r.random((3, 4, 3)) * (r.random((3, 4, 1)) < 0.8),),
         rtol=1e-7, atol=1e-9),
    Case("brightest_pixels_copy", brightest_pixels_copy, lambda r: (r.random((4, 5)), 0.5)),
    # simulation
    Case("life_step", life_step, lambda r: ((r.random((6, 6)) < 0.4).astype(np.uint8),)),
    Case("random_walk_stats", random_walk_stats, lambda r: (r.choice([-1, 1], 15),)),
    Case("nbody_accel", nbody_accel, lambda r: (r.standard_normal((5, 3)), r.random(5) + 0.5), rtol=1e-7, atol=1e-9),
    Case("sir_euler", sir_euler, lambda r: (0.3 + 0.1 * r.random(), 0.1, 6), rtol=1e-7, atol=1e-9),
    Case("diffusion_1d", diffusion_1d, lambda r: (r.random(9), 0.25, 5), rtol=1e-7, atol=1e-9),
    Case("wave_leapfrog", wave_leapfrog, lambda r: (r.random(8), 0.3, 4), rtol=1e-7, atol=1e-9),
    Case("logistic_map", logistic_map, lambda r: (np.linspace(2.5, 3.9, 6), 0.3 + 0.2 * r.random(), 7),
         rtol=1e-6, atol=1e-9),
    Case("heat_2d_loop", heat_2d_loop, lambda r: (r.random((5, 6)), 3), rtol=1e-7, atol=1e-9),
    # statistics
    Case("weighted_moments", weighted_moments, lambda r: (r.standard_normal(8), r.random(8)), rtol=1e-7, atol=1e-9),
    Case("cov_corr", cov_corr, lambda r: (r.standard_normal((7, 3)),), rtol=1e-7, atol=1e-9),
    Case("bootstrap_means", bootstrap_means, lambda r: (r.standard_normal(6), r.integers(0, 6, (4, 6))),
         rtol=1e-7, atol=1e-9),
    Case("ecdf_eval", ecdf_eval, lambda r: (r.standard_normal(9), np.linspace(-2, 2, 5))),
    Case("kde_gauss", kde_gauss, lambda r: (r.standard_normal(7), np.linspace(-2, 2, 5), 0.5), rtol=1e-7, atol=1e-9),
    Case("spearman_rho", spearman_rho, lambda r: (r.standard_normal(8), r.standard_normal(8)), rtol=1e-7, atol=1e-9),
    Case("hist2d_add_at", hist2d_add_at, lambda r: (r.random(12), r.random(12), 3)),
    Case("logaddexp_reduce", logaddexp_reduce, lambda r: (r.standard_normal(_n(r, 7)) * 5,), rtol=1e-7, atol=1e-9),
    Case("ufunc_reduce_forms", ufunc_reduce_forms, lambda r: (r.standard_normal((3, 4)),), rtol=1e-7, atol=1e-9),
    Case("partition_median", partition_median, lambda r: (r.standard_normal(_n(r, 9, 2)),)),
    Case("bincount_mode", bincount_mode, lambda r: (r.integers(0, 5, 11),)),
    Case("zscore_selected", zscore_selected, lambda r: (r.standard_normal(10),), rtol=1e-7, atol=1e-9),
    Case("unique_freqs", unique_freqs, lambda r: (r.integers(0, 4, 9),), rtol=1e-7, atol=1e-9),
    Case("moving_quantiles", moving_quantiles, lambda r: (r.standard_normal(9), 3)),
    # ML
    Case("layernorm_forward", layernorm_forward, lambda r: (r.standard_normal((3, 5)), r.random(5), r.random(5)),
         rtol=1e-7, atol=1e-9),
    Case("gelu_tanh", gelu_tanh, lambda r: (r.standard_normal(7) * 3,), rtol=1e-7, atol=1e-9),
    Case("causal_attention", causal_attention, lambda r: (r.standard_normal((4, 3)), r.standard_normal((4, 3)),
                                                          r.standard_normal((4, 2))), rtol=1e-7, atol=1e-9),
    Case("conv2d_im2col", conv2d_im2col, lambda r: (r.random((5, 6)), r.standard_normal((3, 2))),
         rtol=1e-7, atol=1e-9),
    Case("sgd_momentum", sgd_momentum, lambda r: (r.standard_normal(5), r.standard_normal(5), r.standard_normal(5),
                                                  0.1, 0.9), rtol=1e-7, atol=1e-9),
    Case("knn_vote", knn_vote, lambda r: (r.standard_normal((8, 2)), r.integers(0, 3, 8), r.standard_normal((4, 2)),
                                          3, 3)),
    Case("smoothed_xent", smoothed_xent, lambda r: (r.standard_normal((5, 3)), r.integers(0, 3, 5), 0.1),
         rtol=1e-7, atol=1e-9),
    Case("soft_threshold", soft_threshold, lambda r: (r.standard_normal(8), 0.5)),
    Case("maxpool_reshape", maxpool_reshape, lambda r: (r.standard_normal(10),)),
    Case("embedding_mean", embedding_mean, lambda r: (r.standard_normal((6, 3)), r.integers(0, 6, (4, 2))),
         rtol=1e-7, atol=1e-9),
    Case("relu_grad_masks", relu_grad_masks, lambda r: (r.standard_normal(7), r.standard_normal(7))),
    Case("adagrad_steps", adagrad_steps, lambda r: (r.standard_normal(4), r.standard_normal((3, 4)), 0.1),
         rtol=1e-7, atol=1e-9),
    # signal
    Case("convolve_same", convolve_same, lambda r: (r.random(_n(r, 8, 3)), r.random(3)), rtol=1e-7, atol=1e-9),
    Case("correlate_valid", correlate_valid, lambda r: (r.random(8), r.random(_n(r, 3, 8))), rtol=1e-7, atol=1e-9),
    Case("convolve_short_first", convolve_short_first, lambda r: (r.random(3), r.random(7)), rtol=1e-7, atol=1e-9),
    Case("fir_loop", fir_loop, lambda r: (r.standard_normal(9), r.random(3)), rtol=1e-7, atol=1e-9),
    Case("biquad", biquad, lambda r: (r.standard_normal(10), 0.2, 0.4, 0.2, -0.5, 0.2), rtol=1e-7, atol=1e-9),
    Case("autocorr_lags", autocorr_lags, lambda r: (r.standard_normal(10), 3), rtol=1e-7, atol=1e-9),
    Case("frame_rms", frame_rms, lambda r: (r.standard_normal(12), 4, 2), rtol=1e-7, atol=1e-9),
    Case("peaks_argwhere", peaks_argwhere, lambda r: (r.standard_normal(_n(r, 12, 3)),)),
    Case("goertzel_power", goertzel_power, lambda r: (r.standard_normal(8), 2), rtol=1e-7, atol=1e-9),
    Case("dft_power", dft_power, lambda r: (r.standard_normal(6),), rtol=1e-7, atol=1e-9),
    Case("decimate_mean", decimate_mean, lambda r: (r.standard_normal(11), 3), rtol=1e-7, atol=1e-9),
    Case("hysteresis_threshold", hysteresis_threshold, lambda r: (r.random(12), 0.3, 0.7)),
    # geometry
    Case("bbox_center", bbox_center, lambda r: _pts(r), rtol=1e-7, atol=1e-9),
    Case("polyline_length", polyline_length, lambda r: (r.standard_normal((_n(r, 6, 1), 2)),), rtol=1e-7, atol=1e-9),
    Case("rodrigues", rodrigues, lambda r: (r.standard_normal((4, 3)), r.standard_normal(3), 0.8),
         rtol=1e-7, atol=1e-9),
    Case("heron_areas", heron_areas, lambda r: (r.standard_normal((4, 3)), r.standard_normal((4, 3)),
                                                r.standard_normal((4, 3))), rtol=1e-6, atol=1e-9),
    Case("closest_pair", closest_pair, lambda r: _pts(r, 5, 2), rtol=1e-7, atol=1e-9),
    Case("homogeneous_apply", homogeneous_apply, lambda r: (r.standard_normal((5, 3)), r.standard_normal((4, 4))),
         rtol=1e-7, atol=1e-9),
    Case("vector_angles", vector_angles, lambda r: (r.standard_normal((4, 3)), r.standard_normal((4, 3))),
         rtol=1e-7, atol=1e-9),
    Case("points_in_circle", points_in_circle, lambda r: (r.standard_normal((8, 2)), np.array([0.1, -0.2]), 1.0)),
    Case("centroid_polygon", centroid_polygon, lambda r: (np.cos(np.linspace(0, 6, 6)) + r.random(6) * 0.1,
                                                          np.sin(np.linspace(0, 6, 6))), rtol=1e-7, atol=1e-9),
]
