"""fe35's batch, part 3: signal processing, statistics tests, ML preprocessing, particle and
grid simulations, image histograms, as published (numba loops and NumPy array code)."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


def _sized(rng, make, big=8, edge=1):
    return make(_n(rng, big, edge))


def _pair(rng, make, big=8, edge=1):
    n = _n(rng, big, edge)
    return make(n), make(n)


def moving_average_cumsum(x, w):
    c = np.cumsum(np.insert(x, 0, 0.0))
    return (c[w:] - c[:-w]) / w


def moving_average_convolve(x):
    return np.convolve(x, np.ones(3) / 3, mode="valid")


def autocorr(x, maxlag):
    x = x - x.mean()
    denom = (x * x).sum()
    out = np.empty(maxlag + 1)
    for lag in range(maxlag + 1):
        out[lag] = (x[: len(x) - lag] * x[lag:]).sum() / denom
    return out


def zero_crossings(x):
    s = np.sign(x)
    return np.count_nonzero(s[1:] * s[:-1] < 0)


def peak_indices(x):
    peaks = []
    for i in range(1, len(x) - 1):
        if x[i] > x[i - 1] and x[i] >= x[i + 1]:
            peaks.append(i)
    return np.array(peaks, dtype=np.int64)


def welch_t(a, b):
    ma, mb = a.mean(), b.mean()
    va, vb = a.var(ddof=1), b.var(ddof=1)
    t = (ma - mb) / np.sqrt(va / len(a) + vb / len(b))
    return t


def pearson_loop(x, y):
    n = x.shape[0]
    sx = sy = sxx = syy = sxy = 0.0
    for i in range(n):
        sx += x[i]
        sy += y[i]
        sxx += x[i] * x[i]
        syy += y[i] * y[i]
        sxy += x[i] * y[i]
    num = n * sxy - sx * sy
    den = np.sqrt(n * sxx - sx * sx) * np.sqrt(n * syy - sy * sy)
    return num / den


def spearman(x, y):
    rx = np.argsort(np.argsort(x))
    ry = np.argsort(np.argsort(y))
    return np.corrcoef(rx, ry)[0, 1]


def bootstrap_means(x, idx):
    B = idx.shape[0]
    means = np.empty(B)
    for b in range(B):
        means[b] = x[idx[b]].mean()
    return np.percentile(means, 5.0), np.percentile(means, 95.0)


def ecdf(x):
    xs = np.sort(x)
    ys = np.arange(1, len(xs) + 1) / len(xs)
    return xs, ys


def weighted_mean_std(x, w):
    m = np.average(x, weights=w)
    v = np.average((x - m) ** 2, weights=w)
    return m, np.sqrt(v)


def label_encode(y):
    classes = np.unique(y)
    out = np.empty(y.shape[0], dtype=np.int64)
    for i in range(y.shape[0]):
        out[i] = np.searchsorted(classes, y[i])
    return classes, out


def polynomial_features(X):
    n, d = X.shape
    cols = [np.ones(n)]
    for i in range(d):
        cols.append(X[:, i])
    for i in range(d):
        for j in range(i, d):
            cols.append(X[:, i] * X[:, j])
    return np.column_stack(cols)


def robust_scale(X):
    med = np.median(X, axis=0)
    q75 = np.percentile(X, 75, axis=0)
    q25 = np.percentile(X, 25, axis=0)
    return (X - med) / (q75 - q25)


def train_test_split_idx(n_rows, perm, frac):
    cut = int(n_rows * frac)
    return perm[:cut], perm[cut:]


def nbody_step(pos, vel, mass, dt):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                d = pos[j] - pos[i]
                r2 = (d ** 2).sum() + 0.01
                acc[i] += mass[j] * d / r2 ** 1.5
    vel = vel + dt * acc
    pos = pos + dt * vel
    return pos, vel


def ising_energy(spins):
    n, m = spins.shape
    e = 0
    for i in range(n):
        for j in range(m):
            s = spins[i, j]
            e -= s * (spins[(i + 1) % n, j] + spins[i, (j + 1) % m])
    return e


def wave_1d(u, u_prev, c, steps):
    for _ in range(steps):
        u_next = np.empty_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_next[0] = 0.0
        u_next[-1] = 0.0
        u_prev = u
        u = u_next
    return u


def random_walk_2d(dx, dy):
    x = np.cumsum(dx)
    y = np.cumsum(dy)
    dist = np.sqrt(x ** 2 + y ** 2)
    return dist.max(), np.argmax(dist)


def image_histogram_equalize(img):
    hist = np.bincount(img.ravel(), minlength=8)
    cdf = hist.cumsum()
    cdf_min = cdf[cdf > 0].min()
    lut = np.round((cdf - cdf_min) / (img.size - cdf_min) * 7)
    return lut[img]


def rgb_to_gray(img):
    return img[..., 0] * 0.299 + img[..., 1] * 0.587 + img[..., 2] * 0.114


def downsample_2x(img):
    h, w = img.shape
    return img[: h // 2 * 2, : w // 2 * 2].reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))


def integral_image(img):
    return img.cumsum(axis=0).cumsum(axis=1)


def median_filter_1d(x):
    n = len(x)
    out = x.copy()
    for i in range(1, n - 1):
        out[i] = np.median(x[i - 1:i + 2])
    return out


def bilinear_sample(img, ys, xs):
    out = np.empty(len(ys))
    for k in range(len(ys)):
        y, x = ys[k], xs[k]
        y0 = int(np.floor(y))
        x0 = int(np.floor(x))
        y1 = min(y0 + 1, img.shape[0] - 1)
        x1 = min(x0 + 1, img.shape[1] - 1)
        fy, fx = y - y0, x - x0
        out[k] = (img[y0, x0] * (1 - fy) * (1 - fx) + img[y1, x0] * fy * (1 - fx)
                  + img[y0, x1] * (1 - fy) * fx + img[y1, x1] * fy * fx)
    return out


def black_scholes_call(S, K, T, r, sigma):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    from math import erf, sqrt
    cdf1 = np.empty_like(d1)
    cdf2 = np.empty_like(d2)
    for i in range(d1.shape[0]):
        cdf1[i] = 0.5 * (1.0 + erf(d1[i] / sqrt(2.0)))
        cdf2[i] = 0.5 * (1.0 + erf(d2[i] / sqrt(2.0)))
    return S * cdf1 - K * np.exp(-r * T) * cdf2


def portfolio_stats(R, w):
    mu = R.mean(axis=0) @ w
    cov = np.cov(R, rowvar=False)
    vol = np.sqrt(w @ cov @ w)
    return mu, vol, mu / vol


def sharpe_rolling(r, window):
    n = len(r)
    out = np.full(n, np.nan)
    for i in range(window - 1, n):
        seg = r[i - window + 1:i + 1]
        sd = seg.std()
        out[i] = seg.mean() / sd if sd > 0 else np.nan
    return out


def sigmoid_logloss(X, w, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    eps = 1e-12
    p = np.clip(p, eps, 1 - eps)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)), X.T @ (p - y) / len(y)


CASES = [
    Case("moving_average_cumsum", moving_average_cumsum, lambda r: (r.standard_normal(_n(r, 9, 3)), 3)),
    Case("moving_average_convolve", moving_average_convolve, lambda r: (r.standard_normal(_n(r, 9, 3)),)),
    Case("autocorr", autocorr, lambda r: (r.standard_normal(10), int(r.integers(0, 4)))),
    Case("zero_crossings", zero_crossings, lambda r: (r.standard_normal(_n(r, 9, 2)),)),
    Case("peak_indices", peak_indices, lambda r: (r.standard_normal(_n(r, 12, 2)),)),
    Case("welch_t", welch_t, lambda r: (r.standard_normal(6), r.standard_normal(_n(r, 5, 3)) + 0.5)),
    Case("pearson_loop", pearson_loop, lambda r: _pair(r, r.standard_normal, 8, 3), rtol=1e-8),
    Case("spearman", spearman, lambda r: _pair(r, r.standard_normal, 8, 3)),
    Case("bootstrap_means", bootstrap_means, lambda r: (r.standard_normal(7), r.integers(0, 7, (5, 7)))),
    Case("ecdf", ecdf, lambda r: (r.standard_normal(_n(r)),)),
    Case("weighted_mean_std", weighted_mean_std, lambda r: _pair(r, lambda n: r.random(n) + 0.1)),
    Case("label_encode", label_encode, lambda r: (r.integers(0, 5, _n(r, 9)) * 1.5,)),
    Case("polynomial_features", polynomial_features, lambda r: (r.standard_normal((_n(r, 4), 2)),)),
    Case("robust_scale", robust_scale, lambda r: (r.standard_normal((_n(r, 7, 3), 2)),)),
    Case("train_test_split_idx", train_test_split_idx, lambda r: (8, r.permutation(8), 0.75)),
    Case("nbody_step", nbody_step, lambda r: _sized(r, lambda n: (r.standard_normal((n, 2)), r.standard_normal((n, 2)), r.random(n) + 0.5, 0.1), 4, 2),
         rtol=1e-8),
    Case("ising_energy", ising_energy, lambda r: (r.choice([-1, 1], (_n(r, 4, 2), 3)),)),
    Case("wave_1d", wave_1d, lambda r: _sized(r, lambda n: (r.standard_normal(n), r.standard_normal(n), 0.25, int(r.integers(0, 4))), 8, 3)),
    Case("random_walk_2d", random_walk_2d, lambda r: _pair(r, lambda n: r.choice([-1.0, 1.0], n))),
    Case("image_histogram_equalize", image_histogram_equalize, lambda r: (r.integers(0, 8, (4, _n(r, 5, 1))),)),
    Case("rgb_to_gray", rgb_to_gray, lambda r: (r.random((_n(r, 3), 4, 3)),)),
    Case("downsample_2x", downsample_2x, lambda r: (r.random((_n(r, 5, 2), 4)),)),
    Case("integral_image", integral_image, lambda r: (r.random((_n(r, 4), 3)),)),
    Case("median_filter_1d", median_filter_1d, lambda r: (r.standard_normal(_n(r, 7, 2)),)),
    Case("bilinear_sample", bilinear_sample, lambda r: _sized(r, lambda n: (r.random((4, 5)), r.random(n) * 3, r.random(n) * 4), 6)),
    Case("black_scholes_call", black_scholes_call, lambda r: (r.random(_n(r, 5)) * 50 + 75, 100.0, 0.5, 0.01, 0.2), rtol=1e-9),
    Case("portfolio_stats", portfolio_stats, lambda r: (r.standard_normal((8, 3)) * 0.01, np.array([0.5, 0.3, 0.2])), rtol=1e-8),
    Case("sharpe_rolling", sharpe_rolling, lambda r: (r.standard_normal(_n(r, 9, 2)) * 0.01, 3)),
    Case("sigmoid_logloss", sigmoid_logloss, lambda r: (r.standard_normal((6, 3)), r.standard_normal(3), (r.random(6) > 0.5) * 1.0), rtol=1e-9),
]
