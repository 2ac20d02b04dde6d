"""np37's batch: NumPy programs as npbench, scikit-style preprocessing, finance, signal and image
code write them (views, in-place slice updates, masked stores, np.add.at, einsum, tensordot,
stack/concatenate, reshape/transpose, keepdims, axis tuples, ufunc accumulate, float32 / int /
bool / complex dtypes, tuples and scalars returned); written before looking at what is supported."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


# ---- npbench-style programs ----


def azimint_naive(data, radius, npt):
    rmax = radius.max()
    res = np.zeros(npt, dtype=np.float64)
    for i in range(npt):
        r1 = rmax * i / npt
        r2 = rmax * (i + 1) / npt
        mask_r12 = np.logical_and((r1 <= radius), (radius < r2))
        values_r12 = data[mask_r12]
        res[i] = values_r12.mean()
    return res


def azimint_hist(data, radius, npt):
    histu = np.histogram(radius, npt)[0]
    histw = np.histogram(radius, npt, weights=data)[0]
    return histw / histu


def _build_up_b(b, rho, dt, u, v, dx, dy):
    b[1:-1, 1:-1] = (rho * (1 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) +
                                      (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) -
                            ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)) ** 2 -
                            2 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) *
                                 (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx)) -
                            ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) ** 2))


def _pressure_poisson(nit, p, dx, dy, b):
    pn = np.empty_like(p)
    pn = p.copy()
    for q in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = (((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy ** 2 +
                          (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx ** 2) /
                         (2 * (dx ** 2 + dy ** 2)) -
                         dx ** 2 * dy ** 2 / (2 * (dx ** 2 + dy ** 2)) * b[1:-1, 1:-1])
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]
        p[:, 0] = p[:, 1]
        p[-1, :] = 0


def cavity_flow(nx, ny, nt, nit, u, v, dt, dx, dy, p, rho, nu):
    un = np.empty_like(u)
    vn = np.empty_like(v)
    b = np.zeros((ny, nx))
    for n in range(nt):
        un = u.copy()
        vn = v.copy()
        _build_up_b(b, rho, dt, u, v, dx, dy)
        _pressure_poisson(nit, p, dx, dy, b)
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx *
                         (un[1:-1, 1:-1] - un[1:-1, 0:-2]) -
                         vn[1:-1, 1:-1] * dt / dy *
                         (un[1:-1, 1:-1] - un[0:-2, 1:-1]) - dt / (2 * rho * dx) *
                         (p[1:-1, 2:] - p[1:-1, 0:-2]) + nu *
                         (dt / dx ** 2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2]) +
                          dt / dy ** 2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx *
                         (vn[1:-1, 1:-1] - vn[1:-1, 0:-2]) -
                         vn[1:-1, 1:-1] * dt / dy *
                         (vn[1:-1, 1:-1] - vn[0:-2, 1:-1]) - dt / (2 * rho * dy) *
                         (p[2:, 1:-1] - p[0:-2, 1:-1]) + nu *
                         (dt / dx ** 2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2]) +
                          dt / dy ** 2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u[0, :] = 0
        u[:, 0] = 0
        u[:, -1] = 0
        u[-1, :] = 1
        v[0, :] = 0
        v[-1, :] = 0
        v[:, 0] = 0
        v[:, -1] = 0


def channel_flow_periodic(u, v, p, dt, dx, dy, rho, nu, F, nt):
    for _ in range(nt):
        un = u.copy()
        vn = v.copy()
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
                         - dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
                         + nu * (dt / dx ** 2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2]))
                         + F * dt)
        # periodic boundary in x: the last column from the wrapped neighbours
        u[1:-1, -1] = (un[1:-1, -1] - un[1:-1, -1] * dt / dx * (un[1:-1, -1] - un[1:-1, -2])
                       - dt / (2 * rho * dx) * (p[1:-1, 0] - p[1:-1, -2]) + F * dt)
        u[1:-1, 0] = (un[1:-1, 0] - un[1:-1, 0] * dt / dx * (un[1:-1, 0] - un[1:-1, -1])
                      - dt / (2 * rho * dx) * (p[1:-1, 1] - p[1:-1, -1]) + F * dt)
        u[0, :] = 0
        u[-1, :] = 0
        v[0, :] = 0
        v[-1, :] = 0
    return u, v


def vadv(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage):
    BET_M = 0.5
    BET_P = 0.5
    I, J, K = utens_stage.shape[0], utens_stage.shape[1], utens_stage.shape[2]
    ccol = np.ndarray((I, J, K), dtype=utens_stage.dtype)
    dcol = np.ndarray((I, J, K), dtype=utens_stage.dtype)
    data_col = np.ndarray((I, J), dtype=utens_stage.dtype)
    for k in range(1):
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        cs = gcv * BET_M
        ccol[:, :, k] = gcv * BET_P
        bcol = dtr_stage - ccol[:, :, k]
        correction_term = -cs * (u_stage[:, :, k + 1] - u_stage[:, :, k])
        dcol[:, :, k] = (dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] + correction_term)
        divided = 1.0 / bcol
        ccol[:, :, k] = ccol[:, :, k] * divided
        dcol[:, :, k] = dcol[:, :, k] * divided
    for k in range(1, K - 1):
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        as_ = gav * BET_M
        cs = gcv * BET_M
        acol = gav * BET_P
        ccol[:, :, k] = gcv * BET_P
        bcol = dtr_stage - acol - ccol[:, :, k]
        correction_term = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k]) - cs * (
            u_stage[:, :, k + 1] - u_stage[:, :, k])
        dcol[:, :, k] = (dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] + correction_term)
        divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        ccol[:, :, k] = ccol[:, :, k] * divided
        dcol[:, :, k] = (dcol[:, :, k] - (dcol[:, :, k - 1]) * acol) * divided
    for k in range(K - 1, K):
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        as_ = gav * BET_M
        acol = gav * BET_P
        bcol = dtr_stage - acol
        correction_term = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k])
        dcol[:, :, k] = (dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] + correction_term)
        divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        dcol[:, :, k] = (dcol[:, :, k] - (dcol[:, :, k - 1]) * acol) * divided
    for k in range(K - 1, K - 2, -1):
        datacol = dcol[:, :, k]
        data_col[:] = datacol
        utens_stage[:, :, k] = dtr_stage * (datacol - u_pos[:, :, k])
    for k in range(K - 2, -1, -1):
        datacol = dcol[:, :, k] - ccol[:, :, k] * data_col[:, :]
        data_col[:] = datacol
        utens_stage[:, :, k] = dtr_stage * (datacol - u_pos[:, :, k])


def _match(b1, b2):
    if b1 + b2 == 3:
        return 1
    else:
        return 0


def nussinov(N, seq):
    table = np.zeros((N, N), np.int32)
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if j - 1 >= 0:
                table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < N:
                table[i, j] = max(table[i, j], table[i + 1, j])
            if j - 1 >= 0 and i + 1 < N:
                if i < j - 1:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1] + _match(seq[i], seq[j]))
                else:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])
    return table


def deriche(imgIn, alpha):
    k = (1.0 - np.exp(-alpha)) * (1.0 - np.exp(-alpha)) / (
        1.0 + alpha * np.exp(-alpha) - np.exp(2.0 * alpha))
    a1 = a5 = k
    a2 = a6 = k * np.exp(-alpha) * (alpha - 1.0)
    a3 = a7 = k * np.exp(-alpha) * (alpha + 1.0)
    a4 = a8 = -k * np.exp(-2.0 * alpha)
    b1 = 2.0 ** (-alpha)
    b2 = -np.exp(-2.0 * alpha)
    c1 = c2 = 1
    y1 = np.empty_like(imgIn)
    y1[:, 0] = a1 * imgIn[:, 0]
    y1[:, 1] = a1 * imgIn[:, 1] + a2 * imgIn[:, 0] + b1 * y1[:, 0]
    for j in range(2, imgIn.shape[1]):
        y1[:, j] = (a1 * imgIn[:, j] + a2 * imgIn[:, j - 1] + b1 * y1[:, j - 1] + b2 * y1[:, j - 2])
    y2 = np.empty_like(imgIn)
    y2[:, -1] = 0.0
    y2[:, -2] = a3 * imgIn[:, -1]
    for j in range(imgIn.shape[1] - 3, -1, -1):
        y2[:, j] = (a3 * imgIn[:, j + 1] + a4 * imgIn[:, j + 2] + b1 * y2[:, j + 1] + b2 * y2[:, j + 2])
    imgOut = c1 * (y1 + y2)
    y1[0, :] = a5 * imgOut[0, :]
    y1[1, :] = a5 * imgOut[1, :] + a6 * imgOut[0, :] + b1 * y1[0, :]
    for i in range(2, imgIn.shape[0]):
        y1[i, :] = (a5 * imgOut[i, :] + a6 * imgOut[i - 1, :] + b1 * y1[i - 1, :] + b2 * y1[i - 2, :])
    y2[-1, :] = 0.0
    y2[-2, :] = a7 * imgOut[-1, :]
    for i in range(imgIn.shape[0] - 3, -1, -1):
        y2[i, :] = (a7 * imgOut[i + 1, :] + a8 * imgOut[i + 2, :] + b1 * y2[i + 1, :] + b2 * y2[i + 2, :])
    imgOut[:] = c2 * (y1 + y2)
    return imgOut


def cholesky2(A):
    A[:] = np.linalg.cholesky(A) + np.triu(A, k=1)


def scattering_self_energies(neigh_idx, dH, G, D, Sigma):
    for k in range(G.shape[0]):
        for E in range(G.shape[1]):
            for q in range(D.shape[0]):
                for w in range(D.shape[1]):
                    for i in range(D.shape[-2]):
                        for j in range(D.shape[-1]):
                            for a in range(neigh_idx.shape[0]):
                                for b in range(neigh_idx.shape[1]):
                                    if E - w >= 0:
                                        dHG = G[k, E - w, neigh_idx[a, b]] @ dH[a, b, i]
                                        dHD = dH[a, b, j] * D[q, w, a, b, i, j]
                                        Sigma[k, E, a] += dHG @ dHD


def spmv(A_row, A_col, A_val, x):
    y = np.empty(A_row.size - 1, A_val.dtype)
    for i in range(A_row.size - 1):
        cols = A_col[A_row[i]:A_row[i + 1]]
        vals = A_val[A_row[i]:A_row[i + 1]]
        y[i] = vals @ x[cols]
    return y


def _conv2d(inp, weights):
    K = weights.shape[0]
    H_out = inp.shape[1] - K + 1
    W_out = inp.shape[2] - K + 1
    output = np.empty((inp.shape[0], H_out, W_out, weights.shape[3]), dtype=np.float32)
    for i in range(H_out):
        for j in range(W_out):
            output[:, i, j, :] = np.sum(inp[:, i:i + K, j:j + K, :, np.newaxis] *
                                        weights[np.newaxis, :, :, :], axis=(1, 2, 3))
    return output


def _batchnorm2d(x, eps=1e-5):
    mean = np.mean(x, axis=0, keepdims=True)
    std = np.std(x, axis=0, keepdims=True)
    return (x - mean) / np.sqrt(std + eps)


def resnet_basicblock(inp, conv1, conv2, conv3):
    padded = np.zeros((inp.shape[0], inp.shape[1] + 2, inp.shape[2] + 2, conv1.shape[3]), dtype=np.float32)
    padded[:, 1:-1, 1:-1, :] = _conv2d(inp, conv3)
    x = _conv2d(padded, conv1)
    x = _batchnorm2d(x)
    x = np.maximum(x, 0)
    padded[:, 1:-1, 1:-1, :] = x
    x = _conv2d(padded, conv2)
    x = _batchnorm2d(x)
    return np.maximum(x + inp, 0)


def fft_vectorized(x):
    N = x.shape[0]
    n_min = min(N, 4)
    n = np.arange(n_min)
    k = n[:, None]
    M = np.exp(-2j * np.pi * n * k / n_min)
    X = np.dot(M, x.reshape((n_min, -1)))
    while X.shape[0] < N:
        X_even = X[:, :X.shape[1] // 2]
        X_odd = X[:, X.shape[1] // 2:]
        factor = np.exp(-1j * np.pi * np.arange(X.shape[0]) / X.shape[0])[:, None]
        X = np.vstack([X_even + factor * X_odd, X_even - factor * X_odd])
    return X.ravel()


def dft_matrix(x):
    n = x.shape[0]
    k = np.arange(n)
    W = np.exp(-2j * np.pi * np.outer(k, k) / n)
    X = W @ x
    return np.abs(X), np.angle(X)


# ---- scikit-style preprocessing ----


def standard_scaler(X):
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale == 0.0] = 1.0
    return (X - mean) / scale, mean, scale


def impute_col_mean(X):
    X = X.copy()
    col_mean = np.nanmean(X, axis=0)
    inds = np.where(np.isnan(X))
    X[inds] = np.take(col_mean, inds[1])
    return X


def poly_features2(X):
    n, d = X.shape
    cols = [np.ones(n), X[:, 0], X[:, 1], X[:, 0] ** 2, X[:, 0] * X[:, 1], X[:, 1] ** 2]
    return np.stack(cols, axis=1)


def binarize_f32(X, threshold):
    return (X > threshold).astype(np.float32), np.count_nonzero(X > threshold, axis=0)


def normalize_l2_f32(X):
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    norms[norms == 0] = 1
    return X / norms


def kbins_uniform(x, n_bins):
    lo, hi = x.min(), x.max()
    edges = np.linspace(lo, hi, n_bins + 1)
    codes = np.searchsorted(edges[1:-1], x, side="right")
    return codes, edges


# ---- finance ----


def _ncdf(x):
    # Abramowitz-Stegun 26.2.17
    t = 1.0 / (1.0 + 0.2316419 * np.abs(x))
    poly = t * (0.319381530 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))))
    pdf = np.exp(-0.5 * x * x) / np.sqrt(2.0 * np.pi)
    cnd = 1.0 - pdf * poly
    return np.where(x < 0, 1.0 - cnd, cnd)


def black_scholes_both(S, K, T, r, sigma):
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrtT)
    d2 = d1 - sigma * sqrtT
    disc = np.exp(-r * T)
    call = S * _ncdf(d1) - K * disc * _ncdf(d2)
    put = K * disc * _ncdf(-d2) - S * _ncdf(-d1)
    return call, put


def barrier_mc(S0, K, B, r, sigma, T, Z):
    n_paths, n_steps = Z.shape
    dt = T / n_steps
    increments = (r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * Z
    log_paths = np.log(S0) + np.cumsum(increments, axis=1)
    S = np.exp(log_paths)
    knocked = np.any(S >= B, axis=1)
    payoff = np.maximum(S[:, -1] - K, 0.0)
    payoff[knocked] = 0.0
    price = np.exp(-r * T) * payoff.mean()
    stderr = np.exp(-r * T) * payoff.std(ddof=1) / np.sqrt(n_paths)
    return price, stderr


def drawdown_f32(prices):
    peak = np.maximum.accumulate(prices, axis=0)
    dd = (prices - peak) / peak
    return dd.min(axis=0), np.argmin(dd, axis=0)


def portfolio_var_einsum(W, R):
    cov = np.cov(R, rowvar=False)
    return np.einsum("pi,ij,pj->p", W, cov, W)


# ---- signal processing ----


def reflect_moving_avg(x, k):
    p = np.pad(x, (k, k), mode="reflect")
    c = np.cumsum(p)
    c = np.concatenate(([0.0], c))
    w = 2 * k + 1
    return (c[w:] - c[:-w]) / w


def frames_window(x, flen, hop):
    nframes = 1 + (x.shape[0] - flen) // hop
    idx = np.arange(flen)[None, :] + hop * np.arange(nframes)[:, None]
    win = 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(flen) / (flen - 1))
    frames = x[idx] * win
    return frames, (frames ** 2).sum(axis=1)


def phase_increments(z):
    d = np.angle(z[1:] * np.conj(z[:-1]))
    inst = np.concatenate(([0.0], np.cumsum(d)))
    return inst, z.real.mean(), np.abs(z).max()


def correlate_valid(x, w):
    return np.correlate(x, w, mode="valid"), np.convolve(x, w, mode="full")[:3]


def diff_second_append(x):
    d1 = np.diff(x, prepend=x[0])
    d2 = np.diff(x, n=2, append=[0.0, 0.0])
    return d1, d2


def preemphasis_inplace(x, coef):
    y = x.astype(np.float32)
    y[1:] -= coef * x[:-1]
    return y


# ---- image operations ----


def filter3x3_f32(img, k):
    p = np.pad(img, 1, mode="constant")
    out = np.zeros_like(img)
    h, w = img.shape
    for di in range(3):
        for dj in range(3):
            out += k[di, dj] * p[di:di + h, dj:dj + w]
    return out


def to_chw_u8(img):
    bgr = img[..., ::-1]
    chw = np.transpose(bgr, (2, 0, 1))
    return np.clip(chw * 255.0, 0, 255).astype(np.uint8)


def maxpool_reshape_int(img):
    h, w = img.shape
    return img[:h // 2 * 2, :w // 2 * 2].reshape(h // 2, 2, w // 2, 2).max(axis=(1, 3))


def threshold_inplace(img, lo, hi):
    img[img < lo] = 0
    img[img > hi] *= 2
    return img.sum(), int(np.count_nonzero(img))


def rgb_luma_keepdims(img):
    luma = np.tensordot(img, np.array([0.299, 0.587, 0.114]), axes=([2], [0]))
    mx = img.max(axis=-1, keepdims=True)
    mn = img.min(axis=-1, keepdims=True)
    sat = np.where(mx > 0, (mx - mn) / np.where(mx > 0, mx, 1.0), 0.0)
    return luma, sat[..., 0]


# ---- general forms ----


def add_at_2d(shape_src, rows, cols, vals):
    A = np.zeros_like(shape_src)
    np.add.at(A, (rows, cols), vals)
    return A


def einsum_forms(A, B, v):
    d = np.einsum("ii->i", A)
    s = np.einsum("i,i", v, v)
    t = np.einsum("ij->ji", B)
    o = np.einsum("i,j->ij", v, v)
    return d, s, t, o


def tensordot_int_axes(A, B):
    return np.tensordot(A, B, axes=2), np.tensordot(A, B, axes=([0, 1], [0, 1]))


def stack_reshape(a, b, c):
    pts = np.stack([a, b, c], axis=-1)
    flat = pts.reshape(-1, 3)
    return flat, np.concatenate([a, b], axis=0).T


def smooth_inplace_overlap(a, steps):
    for _ in range(steps):
        a[1:-1] += 0.25 * (a[:-2] - 2 * a[1:-1] + a[2:])
    return a


def axis_tuple_stats(x):
    m = x.mean(axis=(0, 2))
    s = x.sum(axis=(1, 2), keepdims=True)
    return m, x / s, x.max(axis=(0, 1))


def minimum_accumulate_rows(x):
    return np.minimum.accumulate(x, axis=1), np.add.accumulate(x, axis=0)


def scalar_results(x):
    i = int(np.argmax(x))
    total = float(x.sum())
    ok = bool(np.all(x > -10.0))
    return i, total, ok


def f32_scalar_tuple(x):
    s = x.sum()
    m = np.float32(0.5) * x.max()
    return s, m, x.shape[0]


def bool_ops_mask(a, b):
    x = a > 0.5
    y = b < 0.5
    return x ^ y, ~x & y, np.count_nonzero(x | y, axis=0), np.logical_xor(x, y).sum()


def int_shift_mod(a, s):
    return (a >> s) & 7, a % 5, a // -3, np.cumsum(a, dtype=np.int64)


def complex_rotate(z, theta):
    r = z * np.exp(1j * theta)
    return r, r.real, r.imag, np.abs(r) ** 2, np.conj(r).sum()


def linalg_mix(A, b):
    x = np.linalg.solve(A, b)
    Ainv = np.linalg.inv(A)
    d = np.linalg.det(A)
    return x, Ainv @ b, d, np.linalg.norm(A @ x - b)


def gauss_loglik_chol(X, mu, S):
    L = np.linalg.cholesky(S)
    d = X - mu
    y = np.linalg.solve(L, d.T)
    maha = np.sum(y * y, axis=0)
    logdet = 2.0 * np.sum(np.log(np.diag(L)))
    return -0.5 * (maha + logdet + X.shape[1] * np.log(2.0 * np.pi))


def sort_desc_axis0(x):
    s = np.sort(x, axis=0)[::-1]
    return s, np.argsort(-x[:, 0])


def where_chain_int(x):
    out = np.where(x > 2, x * 2, np.where(x < -2, -x, 0))
    return out, np.where(out)[0]


def masked_mul_assign(x):
    x = x.copy()
    x[x < 0] *= -0.5
    return x


def transpose_view_inplace(A):
    At = A.T
    At[0, :] += 1.0
    A[:, -1] = A[:, 0] * 2
    return A


def repeat_tile_concat(x):
    r = np.repeat(x, 2)
    t = np.tile(x, 3)
    return np.concatenate((r, t, x[::-1]))


def outer_keepdims_softmax_f32(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _csr_np(r):
    n = int(r.integers(2, 6))
    dense = (r.random((n, n)) < 0.5) * r.standard_normal((n, n))
    rows = np.concatenate(([0], np.cumsum((dense != 0).sum(axis=1)))).astype(np.int64)
    cols = np.nonzero(dense)[1].astype(np.int64)
    vals = dense[dense != 0]
    return rows, cols, vals, r.standard_normal(n)


def _cavity(r):
    nx = ny = 6
    return (nx, ny, int(r.integers(1, 3)), 3, np.zeros((ny, nx)), np.zeros((ny, nx)), 0.001,
            2.0 / (nx - 1), 2.0 / (ny - 1), np.zeros((ny, nx)), 1.0, 0.1)


def _channel(r):
    return (r.random((5, 6)) * 0.1, r.random((5, 6)) * 0.1, r.random((5, 6)), 0.001, 0.1, 0.1, 1.0, 0.1,
            1.0, int(r.integers(0, 3)))


def _vadv(r):
    I, J, K = 3, 4, int(r.integers(3, 6))
    return (r.random((I, J, K)), r.random((I, J, K)), r.random((I + 1, J, K)), r.random((I, J, K)),
            r.random((I, J, K)), r.random() + 2.0)


def _scattering(r):
    NA, NB, Nkz, NE, Nqz, Nw, N3D, Norb = 2, 2, 2, 3, 1, 2, 2, 2
    neigh = r.integers(0, NA, (NA, NB))
    dH = r.random((NA, NB, N3D, Norb, Norb)) + 1j * r.random((NA, NB, N3D, Norb, Norb))
    G = r.random((Nkz, NE, NA, Norb, Norb)) + 1j * r.random((Nkz, NE, NA, Norb, Norb))
    D = r.random((Nqz, Nw, NA, NB, N3D, N3D)) + 1j * r.random((Nqz, Nw, NA, NB, N3D, N3D))
    Sigma = np.zeros((Nkz, NE, NA, Norb, Norb), dtype=np.complex128)
    return neigh, dH, G, D, Sigma


def _resnet(r):
    inp = r.random((2, 5, 5, 3)).astype(np.float32)
    c1 = r.random((3, 3, 3, 3)).astype(np.float32)
    c2 = r.random((3, 3, 3, 3)).astype(np.float32)
    c3 = r.random((1, 1, 3, 3)).astype(np.float32)
    # conv3 is 1x1 so the shapes match; padded to 7x7 then 3x3 convs back to 5x5
    return inp, c1, c2, c3


def _spd(r, n):
    A = r.standard_normal((n, n))
    return A @ A.T + n * np.eye(n)


def _az(r):
    n = _n(r, 30, 4)
    return r.random(n), r.random(n) * 3.0 + 0.5, int(r.integers(1, 4))


CASES = [
    Case("azimint_naive", azimint_naive, _az, rtol=1e-7, atol=1e-9),
    Case("azimint_hist", azimint_hist, _az, rtol=1e-7, atol=1e-9),
    Case("cavity_flow", cavity_flow, _cavity, rtol=1e-7, atol=1e-9),
    Case("channel_flow_periodic", channel_flow_periodic, _channel, rtol=1e-7, atol=1e-9),
    Case("vadv", vadv, _vadv, rtol=1e-7, atol=1e-9),
    Case("nussinov", nussinov, lambda r: (lambda n: (n, r.integers(0, 4, n).astype(np.int32)))(_n(r, 7, 1))),
    Case("deriche", deriche, lambda r: (r.random((_n(r, 5, 3), 6)).astype(np.float32), 0.25), rtol=1e-4, atol=1e-5),
    Case("cholesky2", cholesky2, lambda r: (_spd(r, _n(r, 4, 1)),), rtol=1e-7, atol=1e-9),
    Case("scattering_self_energies", scattering_self_energies, _scattering, rtol=1e-7, atol=1e-9),
    Case("spmv", spmv, _csr_np, rtol=1e-7, atol=1e-9),
    Case("resnet_basicblock", resnet_basicblock, _resnet, rtol=1e-3, atol=1e-3),
    Case("fft_vectorized", fft_vectorized, lambda r: (r.standard_normal(2 ** int(r.integers(2, 5))),),
         rtol=1e-7, atol=1e-9),
    Case("dft_matrix", dft_matrix, lambda r: (r.standard_normal(_n(r, 6, 1)),), rtol=1e-7, atol=1e-9),
    Case("standard_scaler", standard_scaler,
         lambda r: (r.standard_normal((_n(r, 6, 1), 3)) * np.array([1.0, 0.0, 2.0]),), rtol=1e-7, atol=1e-9),
    Case("impute_col_mean", impute_col_mean,
         lambda r: (np.where(r.random((5, 3)) < 0.3, np.nan, r.standard_normal((5, 3))),), rtol=1e-7, atol=1e-9),
    Case("poly_features2", poly_features2, lambda r: (r.standard_normal((_n(r, 5, 1), 2)),)),
    Case("binarize_f32", binarize_f32, lambda r: (r.standard_normal((_n(r, 5, 1), 3)), 0.1)),
    Case("normalize_l2_f32", normalize_l2_f32,
         lambda r: ((r.standard_normal((4, 3)) * (r.random((4, 1)) < 0.7)).astype(np.float32),), rtol=1e-5,
         atol=1e-6),
    Case("kbins_uniform", kbins_uniform, lambda r: (r.standard_normal(_n(r, 9, 2)), int(r.integers(1, 5)))),
    Case("black_scholes_both", black_scholes_both,
         lambda r: (r.random(6) * 50 + 75, r.random(6) * 50 + 75, r.random(6) + 0.2, 0.03, 0.2), rtol=1e-7,
         atol=1e-9),
    Case("barrier_mc", barrier_mc, lambda r: (100.0, 100.0, 120.0, 0.02, 0.3, 1.0, r.standard_normal((8, 5))),
         rtol=1e-7, atol=1e-9),
    Case("drawdown_f32", drawdown_f32, lambda r: ((r.random((_n(r, 7, 1), 3)) + 1.0).astype(np.float32),),
         rtol=1e-5, atol=1e-6),
    Case("portfolio_var_einsum", portfolio_var_einsum, lambda r: (r.random((3, 4)), r.standard_normal((9, 4))),
         rtol=1e-7, atol=1e-9),
    Case("reflect_moving_avg", reflect_moving_avg, lambda r: (r.standard_normal(9), int(r.integers(1, 4))),
         rtol=1e-7, atol=1e-9),
    Case("frames_window", frames_window, lambda r: (r.standard_normal(12), 4, int(r.integers(1, 4))),
         rtol=1e-7, atol=1e-9),
    Case("phase_increments", phase_increments,
         lambda r: (lambda n: (r.standard_normal(n) + 1j * r.standard_normal(n),))(_n(r, 7, 2)), rtol=1e-7,
         atol=1e-9),
    Case("correlate_valid", correlate_valid, lambda r: (r.standard_normal(8), r.standard_normal(3)),
         rtol=1e-7, atol=1e-9),
    Case("diff_second_append", diff_second_append, lambda r: (r.standard_normal(_n(r, 7, 1)),)),
    Case("preemphasis_inplace", preemphasis_inplace, lambda r: (r.standard_normal(_n(r, 7, 1)), 0.97),
         rtol=1e-5, atol=1e-6),
    Case("filter3x3_f32", filter3x3_f32,
         lambda r: (r.random((_n(r, 5, 1), 4)).astype(np.float32), r.random((3, 3)).astype(np.float32)),
         rtol=1e-5, atol=1e-6),
    Case("to_chw_u8", to_chw_u8, lambda r: (r.random((3, 4, 3)) * 1.2,)),
    Case("maxpool_reshape_int", maxpool_reshape_int, lambda r: (r.integers(-9, 9, (_n(r, 5, 2), 6)),)),
    Case("threshold_inplace", threshold_inplace, lambda r: (r.integers(0, 10, (4, 5)), 3, 7)),
    Case("rgb_luma_keepdims", rgb_luma_keepdims, lambda r: (r.random((3, 4, 3)) * (r.random((3, 4, 1)) < 0.8),),
         rtol=1e-7, atol=1e-9),
    Case("add_at_2d", add_at_2d,
         lambda r: (np.zeros((3, 4)), r.integers(0, 3, 7), r.integers(0, 4, 7), r.standard_normal(7)),
         rtol=1e-7, atol=1e-9),
    Case("einsum_forms", einsum_forms, lambda r: (r.standard_normal((3, 3)), r.standard_normal((2, 4)),
                                                  r.standard_normal(3)), rtol=1e-7, atol=1e-9),
    Case("tensordot_int_axes", tensordot_int_axes,
         lambda r: (r.standard_normal((2, 3)), r.standard_normal((2, 3, 4))), rtol=1e-7, atol=1e-9),
    Case("stack_reshape", stack_reshape, lambda r: (r.standard_normal((2, 3)), r.standard_normal((2, 3)),
                                                    r.standard_normal((2, 3)))),
    Case("smooth_inplace_overlap", smooth_inplace_overlap, lambda r: (r.standard_normal(_n(r, 8, 2)),
                                                                      int(r.integers(0, 3))), rtol=1e-7, atol=1e-9),
    Case("axis_tuple_stats", axis_tuple_stats, lambda r: (r.random((2, 3, 4)) + 0.5,), rtol=1e-7, atol=1e-9),
    Case("minimum_accumulate_rows", minimum_accumulate_rows, lambda r: (r.standard_normal((_n(r, 4, 1), 5)),),
         rtol=1e-7, atol=1e-9),
    Case("scalar_results", scalar_results, lambda r: (r.standard_normal(_n(r, 6, 1)),), rtol=1e-7, atol=1e-9),
    Case("f32_scalar_tuple", f32_scalar_tuple, lambda r: (r.random(_n(r, 6, 1)).astype(np.float32),),
         rtol=1e-5, atol=1e-6),
    Case("bool_ops_mask", bool_ops_mask, lambda r: (r.random((3, 4)), r.random((3, 4)))),
    Case("int_shift_mod", int_shift_mod, lambda r: (r.integers(-50, 50, 7).astype(np.int32), 2)),
    Case("complex_rotate", complex_rotate,
         lambda r: (r.standard_normal(5) + 1j * r.standard_normal(5), 0.3), rtol=1e-7, atol=1e-9),
    Case("linalg_mix", linalg_mix, lambda r: (_spd(r, 3), r.standard_normal(3)), rtol=1e-7, atol=1e-9),
    Case("gauss_loglik_chol", gauss_loglik_chol,
         lambda r: (r.standard_normal((5, 3)), r.standard_normal(3), _spd(r, 3)), rtol=1e-7, atol=1e-9),
    Case("sort_desc_axis0", sort_desc_axis0, lambda r: (r.standard_normal((_n(r, 5, 1), 3)),)),
    Case("where_chain_int", where_chain_int, lambda r: (r.integers(-5, 6, 9),)),
    Case("masked_mul_assign", masked_mul_assign, lambda r: (r.standard_normal((3, 4)),)),
    Case("transpose_view_inplace", transpose_view_inplace, lambda r: (r.standard_normal((3, 4)),)),
    Case("repeat_tile_concat", repeat_tile_concat, lambda r: (r.standard_normal(_n(r, 4, 1)),)),
    Case("outer_keepdims_softmax_f32", outer_keepdims_softmax_f32,
         lambda r: (r.standard_normal((3, 5)).astype(np.float32),), rtol=1e-5, atol=1e-6),
]
