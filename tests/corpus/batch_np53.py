"""np53's batch (31 programs): NumPy programs as signal-processing, statistics, finance, imaging
and machine-learning users write them, written before looking at what is supported: pre-emphasis
and framing, energy and zero crossings, autocorrelation, weighted and rank statistics, drawdowns,
RSI, VWAP, EWMA, grayscale and gamma, unsharp masks and box filters, Otsu's threshold, one-hot and label
smoothing, focal, Huber and triplet losses, logsumexp, cosine similarities, run lengths by
np.flatnonzero and segment sums by np.add.reduceat, masked scatters by np.add.at, medians of three
planes by np.sort of an np.stack, positions by np.nonzero in arithmetic.  Replaced after the
first run (where it matched), as the same program up to names as an earlier corpus kernel
(benchmarks/corpus_duplicates.py): sobel_magnitude_valid (batch_fe36b's sobel_np), by
unsharp_mask_pad."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


# -- signal processing --------------------------------------------------------------------------

def preemphasis_energy(x, alpha):
    y = np.empty_like(x)
    y[0] = x[0]
    y[1:] = x[1:] - alpha * x[:-1]
    energy = np.sum(y ** 2) / len(y)
    return y, energy


def frame_rms(x, frame, hop):
    n_frames = 1 + (len(x) - frame) // hop
    out = np.zeros(n_frames)
    for i in range(n_frames):
        seg = x[i * hop:i * hop + frame]
        out[i] = np.sqrt(np.mean(seg * seg))
    return out


def autocorr_normalized(x, maxlag):
    x = x - x.mean()
    denom = np.dot(x, x)
    r = np.empty(maxlag + 1)
    for k in range(maxlag + 1):
        r[k] = np.dot(x[:len(x) - k], x[k:]) / denom if denom > 0 else 0.0
    return r


def sign_change_rate(x):
    s = np.sign(x)
    s[s == 0] = 1
    changes = np.abs(np.diff(s)) > 0
    return changes.mean() if changes.size else 0.0


def hann_window_spectrum_power(x):
    n = x.shape[0]
    w = 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(n) / max(n - 1, 1))
    xw = x * w
    return xw, np.sum(xw ** 2) / np.sum(w ** 2)


# -- statistics ---------------------------------------------------------------------------------

def weighted_mean_var(x, w):
    wsum = w.sum()
    mu = np.sum(w * x) / wsum
    var = np.sum(w * (x - mu) ** 2) / wsum
    return mu, var


def standardize_cols_ddof1(X):
    mu = X.mean(axis=0)
    sd = X.std(axis=0, ddof=1)
    sd = np.where(sd > 0, sd, 1.0)
    return (X - mu) / sd


def spearman_rank_corr(a, b):
    ra = np.argsort(np.argsort(a)).astype(np.float64)
    rb = np.argsort(np.argsort(b)).astype(np.float64)
    ra -= ra.mean()
    rb -= rb.mean()
    return np.sum(ra * rb) / np.sqrt(np.sum(ra ** 2) * np.sum(rb ** 2))


def covariance_centered(X):
    Xc = X - X.mean(axis=0, keepdims=True)
    return Xc.T @ Xc / (X.shape[0] - 1)


def run_lengths_flatnonzero(x):
    change = np.flatnonzero(x[1:] != x[:-1]) + 1
    bounds = np.concatenate(([0], change, [len(x)]))
    return np.diff(bounds)


def segment_sums_reduceat(labels, vals):
    starts = np.concatenate(([0], np.flatnonzero(np.diff(labels)) + 1))
    return np.add.reduceat(vals, starts)


# -- finance ------------------------------------------------------------------------------------

def max_drawdown(prices):
    peak = np.maximum.accumulate(prices)
    dd = (prices - peak) / peak
    return dd.min(), dd


def rsi_simple(prices, period):
    delta = np.diff(prices)
    gain = np.where(delta > 0, delta, 0.0)
    loss = np.where(delta < 0, -delta, 0.0)
    avg_gain = gain[:period].mean()
    avg_loss = loss[:period].mean()
    if avg_loss == 0:
        return 100.0
    rs = avg_gain / avg_loss
    return 100.0 - 100.0 / (1.0 + rs)


def vwap_cumulative(price, volume):
    pv = np.cumsum(price * volume)
    vol = np.cumsum(volume)
    return pv / np.where(vol > 0, vol, 1.0)


def ewma_returns(prices, span):
    r = np.log(prices[1:] / prices[:-1])
    alpha = 2.0 / (span + 1.0)
    out = np.empty_like(r)
    out[0] = r[0]
    for t in range(1, r.shape[0]):
        out[t] = alpha * r[t] + (1.0 - alpha) * out[t - 1]
    return out


def sharpe_annualized(returns, rf):
    excess = returns - rf / 252.0
    sd = excess.std(ddof=1)
    return np.sqrt(252.0) * excess.mean() / sd if sd > 0 else 0.0


# -- image ops ----------------------------------------------------------------------------------

def rgb_to_gray_gamma(img, gamma):
    gray = img[..., 0] * 0.299 + img[..., 1] * 0.587 + img[..., 2] * 0.114
    return np.clip(gray, 0.0, 1.0) ** (1.0 / gamma)


def unsharp_mask_pad(img, amount):
    p = np.pad(img, 1, mode="reflect")
    blur = (p[:-2, :-2] + p[:-2, 1:-1] + p[:-2, 2:] + p[1:-1, :-2] + p[1:-1, 1:-1] + p[1:-1, 2:]
            + p[2:, :-2] + p[2:, 1:-1] + p[2:, 2:]) / 9.0
    sharp = img + amount * (img - blur)
    return np.clip(sharp, 0.0, 1.0)


def box_blur_integral(img, r):
    ii = np.zeros((img.shape[0] + 1, img.shape[1] + 1))
    ii[1:, 1:] = img.cumsum(axis=0).cumsum(axis=1)
    k = 2 * r + 1
    s = ii[k:, k:] - ii[:-k, k:] - ii[k:, :-k] + ii[:-k, :-k]
    return s / (k * k)


def otsu_threshold_u8(img):
    hist = np.bincount(img.ravel(), minlength=256).astype(np.float64)
    p = hist / hist.sum()
    omega = np.cumsum(p)
    mu = np.cumsum(p * np.arange(256))
    mu_t = mu[-1]
    denom = omega * (1.0 - omega)
    sigma_b = np.where(denom > 0, (mu_t * omega - mu) ** 2 / np.where(denom > 0, denom, 1.0), 0.0)
    return int(np.argmax(sigma_b))


# -- ML preprocessing and losses -----------------------------------------------------------------

def one_hot_label_smoothing(y, k, eps):
    onehot = np.eye(k)[y]
    return onehot * (1.0 - eps) + eps / k


def focal_loss_binary(p, y, gamma, alpha):
    p = np.clip(p, 1e-7, 1.0 - 1e-7)
    pt = np.where(y == 1, p, 1.0 - p)
    at = np.where(y == 1, alpha, 1.0 - alpha)
    return np.mean(-at * (1.0 - pt) ** gamma * np.log(pt))


def huber_loss_grad(pred, target, delta):
    r = pred - target
    small = np.abs(r) <= delta
    loss = np.where(small, 0.5 * r ** 2, delta * (np.abs(r) - 0.5 * delta))
    grad = np.where(small, r, delta * np.sign(r))
    return loss.mean(), grad / r.shape[0]


def logsumexp_rows(Z):
    m = Z.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(Z - m).sum(axis=1, keepdims=True))).ravel()


def cosine_sim_matrix(A, B):
    An = A / np.maximum(np.linalg.norm(A, axis=1, keepdims=True), 1e-12)
    Bn = B / np.maximum(np.linalg.norm(B, axis=1, keepdims=True), 1e-12)
    return An @ Bn.T


def triplet_margin_loss(anchor, pos, neg, margin):
    d_ap = np.sum((anchor - pos) ** 2, axis=1)
    d_an = np.sum((anchor - neg) ** 2, axis=1)
    losses = np.maximum(d_ap - d_an + margin, 0.0)
    return losses.mean(), np.count_nonzero(losses)


def masked_scatter_add(n_bins, idx, vals):
    out = np.zeros(n_bins)
    ok = (idx >= 0) & (idx < n_bins)
    np.add.at(out, idx[ok], vals[ok])
    return out


def stack_channels_median(a, b, c):
    s = np.stack([a, b, c])
    return np.sort(s, axis=0)[1]


def positive_diffs_of_selection(x):
    p = x[x > 0]
    return p[1:] - p[:-1]


def gaps_between_events(flag):
    idx = np.nonzero(flag)[0]
    return np.diff(idx)


def event_positions_shifted(flag, shift):
    idx = np.nonzero(flag)[0]
    k = idx + shift
    return k


CASES = [
    Case("preemphasis_energy", preemphasis_energy, lambda r: (r.standard_normal(_n(r, 16, 1)), 0.97)),
    Case("frame_rms", frame_rms, lambda r: (r.standard_normal(_n(r, 20, 6)), 6, 3)),
    Case("autocorr_normalized", autocorr_normalized, lambda r: (r.standard_normal(_n(r, 16, 5)), 4)),
    Case("sign_change_rate", sign_change_rate,
         lambda r: (np.round(r.standard_normal(_n(r, 15, 1)), 0),)),
    Case("hann_window_spectrum_power", hann_window_spectrum_power, lambda r: (r.standard_normal(_n(r, 12, 2)),)),
    Case("weighted_mean_var", weighted_mean_var,
         lambda r: (lambda n: (r.standard_normal(n), r.random(n) + 0.1))(_n(r, 10, 1))),
    Case("standardize_cols_ddof1", standardize_cols_ddof1, lambda r: (r.standard_normal((_n(r, 8, 2), 3)),)),
    Case("spearman_rank_corr", spearman_rank_corr,
         lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n)))(_n(r, 12, 3))),
    Case("covariance_centered", covariance_centered, lambda r: (r.standard_normal((_n(r, 9, 2), 4)),)),
    Case("run_lengths_flatnonzero", run_lengths_flatnonzero, lambda r: (r.integers(0, 3, _n(r, 14, 1)),)),
    Case("segment_sums_reduceat", segment_sums_reduceat,
         lambda r: (lambda n: (np.sort(r.integers(0, 4, n)), r.standard_normal(n)))(_n(r, 12, 1))),
    Case("max_drawdown", max_drawdown, lambda r: (np.exp(np.cumsum(0.1 * r.standard_normal(_n(r, 15, 1)))),)),
    Case("rsi_simple", rsi_simple, lambda r: (100 + np.cumsum(r.standard_normal(_n(r, 20, 6))), 5)),
    Case("vwap_cumulative", vwap_cumulative,
         lambda r: (lambda n: (10 + r.random(n), r.integers(0, 5, n).astype(np.float64)))(_n(r, 10, 1))),
    Case("ewma_returns", ewma_returns, lambda r: (np.exp(np.cumsum(0.05 * r.standard_normal(_n(r, 12, 2)))), 5.0)),
    Case("sharpe_annualized", sharpe_annualized, lambda r: (0.01 * r.standard_normal(_n(r, 30, 3)), 0.02)),
    Case("rgb_to_gray_gamma", rgb_to_gray_gamma, lambda r: (r.random((_n(r, 5, 1), 4, 3)), 2.2)),
    Case("unsharp_mask_pad", unsharp_mask_pad, lambda r: (r.random((_n(r, 7, 2), 6)), 0.8)),
    Case("box_blur_integral", box_blur_integral, lambda r: (r.random((_n(r, 8, 3), 7)), 1)),
    Case("otsu_threshold_u8", otsu_threshold_u8,
         lambda r: (r.integers(0, 256, (_n(r, 6, 1), 5), dtype=np.uint8),)),
    Case("one_hot_label_smoothing", one_hot_label_smoothing, lambda r: (r.integers(0, 4, _n(r, 7, 1)), 4, 0.1)),
    Case("focal_loss_binary", focal_loss_binary,
         lambda r: (lambda n: (r.random(n), r.integers(0, 2, n)))(_n(r, 10, 1)) + (2.0, 0.25)),
    Case("huber_loss_grad", huber_loss_grad,
         lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n)))(_n(r, 10, 1)) + (1.0,)),
    Case("logsumexp_rows", logsumexp_rows, lambda r: (5 * r.standard_normal((_n(r, 6, 1), 4)),)),
    Case("cosine_sim_matrix", cosine_sim_matrix,
         lambda r: (r.standard_normal((_n(r, 5, 1), 3)), r.standard_normal((4, 3)))),
    Case("triplet_margin_loss", triplet_margin_loss,
         lambda r: (lambda n: (r.standard_normal((n, 3)), r.standard_normal((n, 3)),
                               r.standard_normal((n, 3))))(_n(r, 6, 1)) + (0.5,)),
    Case("masked_scatter_add", masked_scatter_add,
         lambda r: (lambda n: (5, r.integers(-2, 7, n), r.standard_normal(n)))(_n(r, 12, 1))),
    Case("stack_channels_median", stack_channels_median,
         lambda r: (lambda s: (r.random(s), r.random(s), r.random(s)))((_n(r, 4, 1), 5))),
    Case("positive_diffs_of_selection", positive_diffs_of_selection, lambda r: (r.standard_normal(_n(r, 12, 1)),)),
    Case("gaps_between_events", gaps_between_events, lambda r: (r.random(_n(r, 15, 1)) < 0.4,)),
    Case("event_positions_shifted", event_positions_shifted, lambda r: (r.random(_n(r, 15, 1)) < 0.4, 2)),
]
