"""np47's batch (70 programs, in three rounds, each written after the last had run): NumPy
programs as scientific Python users write them, in areas the earlier
batches touch little: option pricing by Monte-Carlo on given normal draws (European, Asian,
barrier, a GBM path matrix), portfolio statistics (drawdown, Sharpe, covariance by centring),
image processing (gamma, histogram equalisation, box blur by cumsum, Sobel magnitude,
thresholding, downsampling by reshape), signal processing (moving RMS, zero crossings, a
first-order IIR filter, pre-emphasis, framing and windowing), statistics (weighted moments,
a bootstrap mean on given indices, outlier clipping by the IQR rule, a 2-D histogram by
bincount), physics (a particle step in a box, pairwise Lennard-Jones energies, a heat
explicit step, Verlet), and ML preprocessing (min-max scaling with keepdims, L2-normalised rows,
one-vs-rest labels, a cosine-similarity top-1, a train/test mask split, a logistic-regression
gradient step); written before looking at what is supported."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


# -- finance ----------------------------------------------------------------------------------

def mc_european_call(z, s0, k, r, sigma, t):
    st = s0 * np.exp((r - 0.5 * sigma ** 2) * t + sigma * np.sqrt(t) * z)
    payoff = np.maximum(st - k, 0.0)
    disc = np.exp(-r * t) * payoff
    return disc.mean(), disc.std(ddof=1) / np.sqrt(len(z))


def mc_asian_call(z, s0, k, r, sigma, dt):
    steps = (r - 0.5 * sigma * sigma) * dt + sigma * np.sqrt(dt) * z
    paths = s0 * np.exp(np.cumsum(steps, axis=1))
    avg = paths.mean(axis=1)
    return np.exp(-r * dt * z.shape[1]) * np.mean(np.maximum(avg - k, 0))


def mc_barrier_knock_out(z, s0, k, barrier, r, sigma, dt):
    log_paths = np.log(s0) + np.cumsum((r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * z, axis=1)
    paths = np.exp(log_paths)
    alive = np.all(paths < barrier, axis=1)
    payoff = np.where(alive, np.maximum(paths[:, -1] - k, 0.0), 0.0)
    return payoff.mean() * np.exp(-r * dt * z.shape[1]), alive.sum()


def max_drawdown(prices):
    peak = np.maximum.accumulate(prices)
    dd = (prices - peak) / peak
    i = np.argmin(dd)
    return dd[i], i


def sharpe_by_column(returns, rf):
    excess = returns - rf
    mu = excess.mean(axis=0)
    sd = excess.std(axis=0, ddof=1)
    sharpe = np.zeros_like(mu)
    ok = sd > 0
    sharpe[ok] = mu[ok] / sd[ok] * np.sqrt(252)
    return sharpe


def cov_by_centring(R):
    C = R - R.mean(axis=0, keepdims=True)
    cov = C.T @ C / (R.shape[0] - 1)
    d = np.sqrt(np.diag(cov))
    return cov / np.outer(d, d)


def portfolio_var(w, R, alpha):
    pnl = R @ w
    losses = np.sort(-pnl)
    idx = int(np.ceil(alpha * len(losses))) - 1
    return losses[idx]


# -- images -----------------------------------------------------------------------------------

def gamma_correct_u8(img, gamma):
    f = img.astype(np.float64) / 255.0
    out = np.power(f, 1.0 / gamma) * 255.0
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def hist_equalize(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist).astype(np.float64)
    cdf = (cdf - cdf.min()) / max(cdf.max() - cdf.min(), 1.0) * 255.0
    return cdf[img].astype(np.uint8)


def box_blur_integral(img, r):
    p = np.pad(img, r, mode="edge").astype(np.float64)
    s = np.cumsum(np.cumsum(p, axis=0), axis=1)
    s = np.pad(s, ((1, 0), (1, 0)))
    h, w = img.shape
    k = 2 * r + 1
    tot = s[k:k + h, k:k + w] - s[:h, k:k + w] - s[k:k + h, :w] + s[:h, :w]
    return tot / (k * k)


def sobel_magnitude(img):
    gx = img[1:-1, 2:] - img[1:-1, :-2]
    gx = 2 * gx + (img[:-2, 2:] - img[:-2, :-2]) + (img[2:, 2:] - img[2:, :-2])
    gy = img[2:, 1:-1] - img[:-2, 1:-1]
    gy = 2 * gy + (img[2:, :-2] - img[:-2, :-2]) + (img[2:, 2:] - img[:-2, 2:])
    return np.hypot(gx, gy)


def otsu_like_threshold(img, t):
    mask = img > t
    fg = img[mask]
    bg = img[~mask]
    w1 = mask.mean()
    m1 = fg.mean() if fg.size else 0.0
    m0 = bg.mean() if bg.size else 0.0
    return w1 * (1 - w1) * (m1 - m0) ** 2


def downsample_2x_mean(img):
    h, w = img.shape[0] // 2 * 2, img.shape[1] // 2 * 2
    return img[:h, :w].reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))


def rgb_to_gray_inplace_norm(rgb):
    gray = rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114
    gray -= gray.min()
    m = gray.max()
    if m > 0:
        gray /= m
    return gray


# -- signals ----------------------------------------------------------------------------------

def moving_rms(x, w):
    c = np.cumsum(np.concatenate(([0.0], x * x)))
    return np.sqrt((c[w:] - c[:-w]) / w)


def zero_crossings(x):
    s = np.signbit(x)
    return np.count_nonzero(s[1:] != s[:-1])


def iir_lowpass(x, a):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = a * x[i] + (1 - a) * y[i - 1]
    return y


def preemph_frames_hamming(x, frame, hop):
    y = np.append(x[0], x[1:] - 0.97 * x[:-1])
    n = 1 + (len(y) - frame) // hop
    idx = np.arange(frame)[None, :] + hop * np.arange(n)[:, None]
    return y[idx] * np.hamming(frame)


# -- statistics -------------------------------------------------------------------------------

def weighted_moments(x, w):
    w = w / w.sum()
    m = np.sum(w * x)
    v = np.sum(w * (x - m) ** 2)
    skew = np.sum(w * (x - m) ** 3) / v ** 1.5
    return m, v, skew


def bootstrap_means(x, idx):
    return x[idx].mean(axis=1)


def iqr_clip(x):
    q1, q3 = np.percentile(x, [25, 75])
    lo, hi = q1 - 1.5 * (q3 - q1), q1 + 2.5 * (q3 - q1)
    y = x.copy()
    y[y < lo] = lo
    y[y > hi] = hi
    return y


def hist2d_bincount(x, y, nb):
    ix = np.clip((x * nb).astype(np.int64), 0, nb - 1)
    iy = np.clip((y * nb).astype(np.int64), 0, nb - 1)
    return np.bincount(ix * nb + iy, minlength=nb * nb).reshape(nb, nb)


# -- physics ----------------------------------------------------------------------------------

def particles_in_box(pos, vel, dt, L):
    pos = pos + vel * dt
    hit_lo = pos < 0
    hit_hi = pos > L
    vel = np.where(hit_lo | hit_hi, -vel, vel)
    pos = np.where(hit_lo, -pos, pos)
    pos = np.where(hit_hi, 2 * L - pos, pos)
    return pos, vel


def lennard_jones_energy(P, eps, sig):
    d = P[:, None, :] - P[None, :, :]
    r2 = np.sum(d * d, axis=-1)
    iu = np.triu_indices(len(P), 1)
    s6 = (sig * sig / r2[iu]) ** 3
    return np.sum(4 * eps * (s6 * s6 - s6))


def heat_explicit_steps(u, alpha, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] += alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def velocity_verlet_spring(x, v, k, m, dt, steps):
    a = -k / m * x
    for _ in range(steps):
        x = x + v * dt + 0.5 * a * dt * dt
        a_new = -k / m * x
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
    return x, v


# -- ML preprocessing -------------------------------------------------------------------------

def minmax_scale_keepdims(X):
    lo = X.min(axis=0, keepdims=True)
    hi = X.max(axis=0, keepdims=True)
    rng = np.where(hi - lo == 0, 1.0, hi - lo)
    return (X - lo) / rng


def l2_normalize_rows(X):
    n = np.linalg.norm(X, axis=1, keepdims=True)
    n[n == 0] = 1.0
    return X / n


def one_vs_rest(y, k):
    Y = -np.ones((len(y), k), dtype=np.int8)
    Y[np.arange(len(y)), y] = 1
    return Y


def cosine_top1(Q, D):
    Qn = Q / np.linalg.norm(Q, axis=1)[:, None]
    Dn = D / np.linalg.norm(D, axis=1)[:, None]
    S = Qn @ Dn.T
    best = S.argmax(axis=1)
    return best, S[np.arange(len(Q)), best]


def train_test_split_mask(X, y, u, frac):
    train = u < frac
    return X[train].sum(axis=0), y[~train].mean() if (~train).any() else 0.0


def logreg_step(X, y, w, lr):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    grad = X.T @ (p - y) / len(y)
    w -= lr * grad
    loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
    return loss


def standardize_int_features(X):
    Xf = X.astype(np.float32)
    mu = Xf.mean(axis=0)
    sd = Xf.std(axis=0)
    sd[sd == 0] = 1
    return (Xf - mu) / sd


def label_smooth_onehot(y, k, eps):
    Y = np.full((y.shape[0], k), eps / k)
    Y[np.arange(y.shape[0]), y] += 1 - eps
    return Y


# -- a second round, written after the first ran: idioms from answers and notebooks --------------

def fill_nan_col_means(X):
    X = X.copy()
    col_mean = np.nanmean(X, axis=0)
    inds = np.where(np.isnan(X))
    X[inds] = np.take(col_mean, inds[1])
    return X


def mode_by_unique(x):
    vals, counts = np.unique(x, return_counts=True)
    return vals[np.argmax(counts)]


def inverse_cdf_sample(p, u):
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return np.searchsorted(cdf, u, side="right")


def local_peaks(x):
    return np.where((x[1:-1] > x[:-2]) & (x[1:-1] > x[2:]))[0] + 1


def torque_cross(r, F):
    tau = np.cross(r, F)
    return tau.sum(axis=0), np.linalg.norm(tau, axis=1)


def minimum_image_dist(P, L):
    d = P[:, None, :] - P[None, :, :]
    d -= L * np.round(d / L)
    return np.sqrt((d ** 2).sum(-1))


def discounted_returns(r, gamma):
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        running = r[t] + gamma * running
        out[t] = running
    return (out - out.mean()) / (out.std() + 1e-8)


def ridge_normal_eq(X, y, lam):
    d = X.shape[1]
    A = X.T @ X + lam * np.eye(d)
    return np.linalg.solve(A, X.T @ y)


def gaussian_smooth_same(x, sigma):
    r = int(3 * sigma)
    t = np.arange(-r, r + 1)
    k = np.exp(-t ** 2 / (2 * sigma ** 2))
    k /= k.sum()
    return np.convolve(x, k, mode="same")


def topk_sorted_desc(x, k):
    return np.sort(x)[::-1][:k]


def rsi_wilder(prices, n):
    d = np.diff(prices)
    up = np.where(d > 0, d, 0.0)
    down = np.where(d < 0, -d, 0.0)
    au = up[:n].mean()
    ad = down[:n].mean()
    out = np.empty(len(d) - n + 1)
    out[0] = 100 - 100 / (1 + au / ad) if ad > 0 else 100.0
    for i in range(n, len(d)):
        au = (au * (n - 1) + up[i]) / n
        ad = (ad * (n - 1) + down[i]) / n
        out[i - n + 1] = 100 - 100 / (1 + au / ad) if ad > 0 else 100.0
    return out


def kalman_1d(z, q, r):
    xhat = np.zeros_like(z)
    P = 1.0
    xhat[0] = z[0]
    for k in range(1, len(z)):
        Pm = P + q
        K = Pm / (Pm + r)
        xhat[k] = xhat[k - 1] + K * (z[k] - xhat[k - 1])
        P = (1 - K) * Pm
    return xhat


def clip_percentile_cols(X):
    lo = np.percentile(X, 5, axis=0)
    hi = np.percentile(X, 95, axis=0)
    return np.clip(X, lo, hi)


def binned_means_digitize(x, y, edges):
    idx = np.digitize(x, edges)
    s = np.bincount(idx, weights=y, minlength=len(edges) + 1)
    c = np.bincount(idx, minlength=len(edges) + 1)
    return np.divide(s, c, out=np.zeros_like(s), where=c > 0)


def rot_flip_augment(img):
    return np.rot90(img) + np.flipud(img.T) * 0.5, img[::-1, ::2].sum()


def inplace_out_ops(a, b):
    np.multiply(a, b, out=a)
    np.clip(a, -0.5, 0.5, out=a)
    return np.round(a, 2)


def float32_pipeline(img):
    f = img.astype(np.float32) / np.float32(255)
    f = (f - f.mean()) / (f.std() + np.float32(1e-6))
    return f.reshape(-1, 3).mean(axis=1)


# -- a third round, written after the second ran: more idioms from notebooks ------------------------

def topk_take_along(S, k):
    idx = np.argsort(-S, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(S, idx, axis=1)

def hist_density(x, bins):
    h, edges = np.histogram(x, bins=bins, range=(0.0, 1.0))
    return h / (h.sum() * np.diff(edges))

def nan_to_num_scale(x):
    y = np.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0)
    return y * 2

def nanargmax_rows(X):
    return np.nanargmax(np.where(np.isnan(X), -np.inf, X), axis=1)

def repeat_upsample(img):
    return np.repeat(np.repeat(img, 2, axis=0), 2, axis=1)

def kron_block(A):
    return np.kron(np.eye(2), A)

def setdiff_count(a, b):
    return np.isin(a, b).sum(), np.count_nonzero(~np.isin(a, b))

def median_filter_rows(X):
    return np.median(X, axis=1) - np.percentile(X, 50, axis=1)

def ewma_vectorized_weights(x, alpha):
    n = len(x)
    w = (1 - alpha) ** np.arange(n)[::-1]
    return np.cumsum(w * x) / np.cumsum(w)

def cumulative_max_drawdown_2d(P):
    peak = np.maximum.accumulate(P, axis=0)
    return ((P - peak) / peak).min(axis=0)

def pairwise_sq_dists_expand(X, Y):
    return np.maximum((X ** 2).sum(1)[:, None] + (Y ** 2).sum(1)[None, :] - 2 * X @ Y.T, 0)

def softmax_temperature(z, T):
    z = z / T
    z -= z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

def take_along_sorted_cols(X):
    o = np.argsort(X, axis=0, kind="stable")
    return np.take_along_axis(X, o, axis=0)

def rank_transform(x):
    r = np.empty(len(x), dtype=np.int64)
    r[np.argsort(x, kind="stable")] = np.arange(len(x))
    return r

def trapz_cumulative(y, dx):
    return np.concatenate(([0.0], np.cumsum((y[1:] + y[:-1]) * dx / 2)))

def tile_center(X):
    return X - np.tile(X.mean(axis=0), (X.shape[0], 1))

def count_per_row_threshold(X, t):
    return (X > t).sum(axis=1, dtype=np.int32)

def apply_along_norm(X):
    return np.apply_along_axis(np.linalg.norm, 1, X)

def meshgrid_gauss(n, s):
    x = np.linspace(-1, 1, n)
    xx, yy = np.meshgrid(x, x)
    return np.exp(-(xx ** 2 + yy ** 2) / (2 * s * s))


CASES = [
    # finance
    Case("mc_european_call", mc_european_call, lambda r: (r.standard_normal(_n(r, 64, 2)), 100.0, 95.0, 0.03, 0.2, 1.0),
         rtol=1e-7, atol=1e-9),
    Case("mc_asian_call", mc_asian_call, lambda r: (r.standard_normal((_n(r, 16, 1), 12)), 100.0, 100.0, 0.02, 0.3,
                                                    1 / 12), rtol=1e-7, atol=1e-9),
    Case("mc_barrier_knock_out", mc_barrier_knock_out,
         lambda r: (r.standard_normal((_n(r, 16, 1), 10)), 100.0, 100.0, 125.0, 0.01, 0.4, 0.1), rtol=1e-7, atol=1e-9),
    Case("max_drawdown", max_drawdown, lambda r: (np.cumprod(1 + 0.02 * r.standard_normal(_n(r, 30, 1))),),
         rtol=1e-9, atol=1e-12),
    Case("sharpe_by_column", sharpe_by_column, lambda r: (0.01 * r.standard_normal((_n(r, 20, 2), 4)), 0.0001),
         rtol=1e-7, atol=1e-9),
    Case("cov_by_centring", cov_by_centring, lambda r: (r.standard_normal((_n(r, 12, 3), 4)),), rtol=1e-7, atol=1e-9),
    Case("portfolio_var", portfolio_var, lambda r: (r.dirichlet(np.ones(3)), 0.01 * r.standard_normal((_n(r, 40, 5), 3)),
                                                    0.95)),
    # images
    Case("gamma_correct_u8", gamma_correct_u8, lambda r: (r.integers(0, 256, (_n(r, 6, 1), 7), dtype=np.uint8), 2.2)),
    Case("hist_equalize", hist_equalize, lambda r: (r.integers(0, 256, (_n(r, 8, 1), 9), dtype=np.uint8),),
         rtol=1e-9, atol=1e-9),
    Case("box_blur_integral", box_blur_integral, lambda r: (r.random((_n(r, 7, 2), 6)), 1), rtol=1e-7, atol=1e-9),
    Case("sobel_magnitude", sobel_magnitude, lambda r: (r.random((_n(r, 8, 3), 6)),), rtol=1e-9, atol=1e-12),
    Case("otsu_like_threshold", otsu_like_threshold, lambda r: (r.random((_n(r, 6, 1), 5)), 0.5), rtol=1e-7,
         atol=1e-9),
    Case("downsample_2x_mean", downsample_2x_mean, lambda r: (r.random((_n(r, 7, 2), 9)),), rtol=1e-7, atol=1e-9),
    Case("rgb_to_gray_inplace_norm", rgb_to_gray_inplace_norm, lambda r: (r.random((_n(r, 5, 1), 4, 3)),),
         rtol=1e-7, atol=1e-9),
    # signals
    Case("moving_rms", moving_rms, lambda r: (r.standard_normal(_n(r, 12, 3)), 3), rtol=1e-7, atol=1e-9),
    Case("zero_crossings", zero_crossings, lambda r: (r.standard_normal(_n(r, 15, 1)),)),
    Case("iir_lowpass", iir_lowpass, lambda r: (r.standard_normal(_n(r, 10, 1)), 0.2), rtol=1e-9, atol=1e-12),
    Case("preemph_frames_hamming", preemph_frames_hamming, lambda r: (r.standard_normal(_n(r, 20, 6)), 6, 3),
         rtol=1e-7, atol=1e-9),
    # statistics
    Case("weighted_moments", weighted_moments, lambda r: (lambda n: (r.standard_normal(n), r.random(n) + 0.1))(_n(r, 10, 2)), rtol=1e-6, atol=1e-9),
    Case("bootstrap_means", bootstrap_means, lambda r: (lambda n: (r.random(n), r.integers(0, n, (5, n))))(_n(r, 9)),
         rtol=1e-7, atol=1e-9),
    Case("iqr_clip", iqr_clip, lambda r: (r.standard_normal(_n(r, 15, 1)),), rtol=1e-9, atol=1e-12),
    Case("hist2d_bincount", hist2d_bincount, lambda r: (lambda n: (r.random(n), r.random(n), 4))(_n(r, 20, 1))),
    # physics
    Case("particles_in_box", particles_in_box, lambda r: (lambda n: (r.random((n, 2)), r.standard_normal((n, 2)), 0.3, 1.0))(_n(r, 8))),
    Case("lennard_jones_energy", lennard_jones_energy, lambda r: (r.random((_n(r, 6, 2), 3)) * 3, 1.0, 0.5),
         rtol=1e-7, atol=1e-9),
    Case("heat_explicit_steps", heat_explicit_steps, lambda r: (r.random(_n(r, 12, 3)), 0.25, 4), rtol=1e-9,
         atol=1e-12),
    Case("velocity_verlet_spring", velocity_verlet_spring,
         lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n), 2.0, 1.5, 0.01, 5))(_n(r, 6)),
         rtol=1e-9, atol=1e-12),
    # ML preprocessing
    Case("minmax_scale_keepdims", minmax_scale_keepdims, lambda r: (r.random((_n(r, 7, 1), 3)),), rtol=1e-9,
         atol=1e-12),
    Case("l2_normalize_rows", l2_normalize_rows, lambda r: (r.standard_normal((_n(r, 6, 1), 4)),), rtol=1e-9,
         atol=1e-12),
    Case("one_vs_rest", one_vs_rest, lambda r: (r.integers(0, 4, _n(r, 9)), 4)),
    Case("cosine_top1", cosine_top1, lambda r: (r.standard_normal((_n(r, 4, 1), 5)), r.standard_normal((6, 5))),
         rtol=1e-7, atol=1e-9),
    Case("train_test_split_mask", train_test_split_mask,
         lambda r: (lambda n: (r.random((n, 3)), r.random(n), r.random(n), 0.7))(_n(r, 10)), rtol=1e-7, atol=1e-9),
    Case("logreg_step", logreg_step, lambda r: (lambda n: (r.standard_normal((n, 3)), (r.random(n) < 0.5) * 1.0,
                                                           r.standard_normal(3), 0.1))(_n(r, 10)),
         rtol=1e-7, atol=1e-9),
    Case("standardize_int_features", standardize_int_features, lambda r: (r.integers(0, 9, (_n(r, 8, 1), 3)),),
         rtol=1e-5, atol=1e-6),
    Case("label_smooth_onehot", label_smooth_onehot, lambda r: (r.integers(0, 3, _n(r, 7)), 3, 0.1), rtol=1e-9,
         atol=1e-12),
    # second round
    Case("fill_nan_col_means", fill_nan_col_means,
         lambda r: (lambda X: (np.where(r.random(X.shape) < 0.2, np.nan, X),))(r.random((_n(r, 6, 2), 3))),
         rtol=1e-7, atol=1e-9),
    Case("mode_by_unique", mode_by_unique, lambda r: (r.integers(0, 5, _n(r, 15)),)),
    Case("inverse_cdf_sample", inverse_cdf_sample, lambda r: (r.random(_n(r, 5, 1)) + 0.01, r.random(12))),
    Case("local_peaks", local_peaks, lambda r: (r.standard_normal(_n(r, 15, 3)),)),
    Case("torque_cross", torque_cross, lambda r: (lambda n: (r.standard_normal((n, 3)), r.standard_normal((n, 3))))(
        _n(r, 5)), rtol=1e-9, atol=1e-12),
    Case("minimum_image_dist", minimum_image_dist, lambda r: (r.random((_n(r, 5, 1), 3)) * 4, 4.0), rtol=1e-9,
         atol=1e-12),
    Case("discounted_returns", discounted_returns, lambda r: (r.random(_n(r, 10)), 0.9), rtol=1e-7, atol=1e-9),
    Case("ridge_normal_eq", ridge_normal_eq, lambda r: (lambda n: (r.standard_normal((n, 3)), r.standard_normal(n),
                                                                   0.5))(_n(r, 10, 2)), rtol=1e-7, atol=1e-9),
    Case("gaussian_smooth_same", gaussian_smooth_same, lambda r: (r.standard_normal(_n(r, 20, 9)), 1.0), rtol=1e-7,
         atol=1e-9),
    Case("topk_sorted_desc", topk_sorted_desc, lambda r: (r.standard_normal(_n(r, 10, 2)), 3)),
    Case("rsi_wilder", rsi_wilder, lambda r: (100 + np.cumsum(r.standard_normal(_n(r, 20, 6))), 4), rtol=1e-7,
         atol=1e-9),
    Case("kalman_1d", kalman_1d, lambda r: (r.standard_normal(_n(r, 12)), 1e-3, 0.1), rtol=1e-9, atol=1e-12),
    Case("clip_percentile_cols", clip_percentile_cols, lambda r: (r.standard_normal((_n(r, 12, 1), 3)),), rtol=1e-9,
         atol=1e-12),
    Case("binned_means_digitize", binned_means_digitize,
         lambda r: (lambda n: (r.random(n), r.standard_normal(n), np.linspace(0.2, 0.8, 4)))(_n(r, 15)),
         rtol=1e-7, atol=1e-9),
    Case("rot_flip_augment", rot_flip_augment, lambda r: (r.random((_n(r, 4, 1), 4)),), rtol=1e-9, atol=1e-12),
    Case("inplace_out_ops", inplace_out_ops, lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n)))(_n(r, 8))),
    Case("float32_pipeline", float32_pipeline, lambda r: (r.integers(0, 256, (_n(r, 4, 1), 6), dtype=np.uint8),),
         rtol=1e-5, atol=1e-6),
    # third round
    Case("topk_take_along", topk_take_along, lambda r: (r.standard_normal((_n(r, 5, 1), 6)), 3)),
    Case("hist_density", hist_density, lambda r: (r.random(_n(r, 20, 1)), 5), rtol=1e-9, atol=1e-12),
    Case("nan_to_num_scale", nan_to_num_scale, lambda r: (np.array([1.0, np.nan, np.inf, -np.inf, 2.5])[: _n(r, 5, 1)],)),
    Case("nanargmax_rows", nanargmax_rows, lambda r: (np.where(r.random((4, 5)) < 0.3, np.nan, r.random((4, 5))),)),
    Case("repeat_upsample", repeat_upsample, lambda r: (r.random((_n(r, 3, 1), 4)),)),
    Case("kron_block", kron_block, lambda r: (r.random((2, 3)),)),
    Case("setdiff_count", setdiff_count, lambda r: (r.integers(0, 9, _n(r, 10)), r.integers(0, 9, 4))),
    Case("median_filter_rows", median_filter_rows, lambda r: (r.random((_n(r, 4, 1), 5)),), rtol=1e-9, atol=1e-12),
    Case("ewma_vectorized_weights", ewma_vectorized_weights, lambda r: (r.random(_n(r, 9)), 0.3), rtol=1e-9, atol=1e-12),
    Case("cumulative_max_drawdown_2d", cumulative_max_drawdown_2d, lambda r: (1 + r.random((_n(r, 9, 1), 3)),), rtol=1e-9, atol=1e-12),
    Case("pairwise_sq_dists_expand", pairwise_sq_dists_expand, lambda r: (r.random((_n(r, 5, 1), 3)), r.random((4, 3))), rtol=1e-9, atol=1e-12),
    Case("softmax_temperature", softmax_temperature, lambda r: (r.standard_normal((_n(r, 4, 1), 5)), 0.7), rtol=1e-9, atol=1e-12),
    Case("take_along_sorted_cols", take_along_sorted_cols, lambda r: (r.standard_normal((_n(r, 6, 1), 3)),)),
    Case("rank_transform", rank_transform, lambda r: (r.standard_normal(_n(r, 9, 1)),)),
    Case("trapz_cumulative", trapz_cumulative, lambda r: (r.random(_n(r, 9, 2)), 0.1), rtol=1e-9, atol=1e-12),
    Case("tile_center", tile_center, lambda r: (r.random((_n(r, 5, 1), 3)),), rtol=1e-9, atol=1e-12),
    Case("count_per_row_threshold", count_per_row_threshold, lambda r: (r.random((_n(r, 5, 1), 4)), 0.5)),
    Case("apply_along_norm", apply_along_norm, lambda r: (r.random((_n(r, 5, 1), 4)),), rtol=1e-9, atol=1e-12),
    Case("meshgrid_gauss", meshgrid_gauss, lambda r: (_n(r, 6, 1), 0.5), rtol=1e-9, atol=1e-12),
]
