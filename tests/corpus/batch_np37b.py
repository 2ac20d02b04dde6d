"""np37's second batch: more NumPy forms as users write them (4-d einsum attention, pairwise
broadcasting in 3-d, kNN by argsort slices, sliding windows, np.ix_, views updated in place,
strided stores, np.fill_diagonal, ufunc reduce/out=, percentiles of lists, np.fft), written
before looking at what is supported."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


def mha_einsum(q, k, v):
    scale = 1.0 / np.sqrt(q.shape[-1])
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("bhqk,bhkd->bhqd", p, v)


def pairwise_norm3d(x, y):
    d = np.linalg.norm(x[:, None, :] - y[None, :, :], axis=-1)
    return d, d.argmin(axis=1)


def knn_predict(Xtr, ytr, Xte, k):
    d = ((Xte[:, None, :] - Xtr[None, :, :]) ** 2).sum(axis=2)
    idx = np.argsort(d, axis=1)[:, :k]
    votes = ytr[idx]
    return votes.mean(axis=1)


def sliding_max(x, w):
    win = np.lib.stride_tricks.sliding_window_view(x, w)
    return win.max(axis=1)


def ix_block(A, rows, cols):
    return A[np.ix_(rows, cols)].sum(axis=0)


def view_augassign(A):
    A = A.copy()
    inner = A[1:-1, 1:-1]
    inner *= 0.5
    inner += A[:-2, 1:-1]
    return A


def strided_store(a, b):
    out = np.zeros(a.shape[0] + b.shape[0])
    out[::2] = a
    out[1::2] = b
    return out


def fill_diag_zero(A):
    D = A.copy()
    np.fill_diagonal(D, 0.0)
    return D.sum(axis=1), np.triu(A, 1).sum()


def ufunc_reduce_out(x, y):
    s = np.add.reduce(x, axis=0)
    m = np.maximum.reduce(x, axis=1)
    out = np.empty_like(y)
    np.multiply(y, 2.0, out=out)
    np.exp(out, out=out)
    return s, m, out


def iqr_list(x):
    q1, q3 = np.percentile(x, [25, 75])
    return q3 - q1, np.median(x)


def rfft_power(x):
    X = np.fft.rfft(x)
    return np.abs(X) ** 2


def clip_keywords(x):
    return np.clip(x, a_min=None, a_max=1.0), np.clip(x, -0.5, None)


def mean_f32_dtype(x):
    return np.mean(x, axis=-1, keepdims=True, dtype=np.float64), np.var(x, axis=0, ddof=1)


def any_axes_bool(m):
    return np.any(m, axis=(1, 2)), np.all(m, axis=0), np.count_nonzero(m, axis=(0, 1))


def prod_int_axis(a):
    return np.prod(a, axis=1), a.sum(axis=0, dtype=np.int32)


def unique_count_int(x):
    return len(np.unique(x)), int(np.sort(x)[-1])


def topk_mean(x, k):
    return np.sort(x)[-k:].mean()


def vstack_T_matmul(x, y, w):
    return np.vstack([x, y]).T @ w


def gradient_orientation(img):
    gy, gx = np.gradient(img)
    mag = np.hypot(gx, gy)
    ang = np.rad2deg(np.arctan2(gy, gx)) % 180.0
    return mag, ang


def mc_pi(u, v):
    inside = (u ** 2 + v ** 2 <= 1.0).sum()
    return 4.0 * inside / u.size


def lenet_tail(feat, W1, b1, W2):
    n = feat.shape[0]
    h = np.maximum(feat.reshape(n, -1) @ W1 + b1, 0)
    logits = h @ W2
    return logits.argmax(axis=1), logits


def ellipsis_outer(x, y):
    return x[..., None] * y[:, None, :], x[..., ::-1]


def rate_of_change(x, t):
    return np.diff(x, axis=0) / np.diff(t)[:, None]


def log_geom_spaces(n):
    return np.logspace(0.0, 2.0, n), np.geomspace(1.0, 1000.0, n)


def sinc_heaviside(x):
    return np.sinc(x), np.heaviside(x, 0.5)


def swap_move_flat(A):
    B = np.swapaxes(A, 0, 2)
    C = np.moveaxis(A, -1, 0)
    return B.reshape(-1), C.flatten(), A.ravel()[::3]


def reverse_cumsum(x):
    return np.cumsum(x[::-1])[::-1], np.cumprod(1.0 + x)[-1]


def where_mask_cols(A, mask):
    return np.where(mask[:, None], A, 0.0).sum(axis=0)


def isclose_all(a, b):
    return np.isclose(a, b, atol=1e-3).all(), np.allclose(a, b), bool(np.array_equal(a, a))


def crc_bits(data):
    crc = np.uint16(0xFFFF)
    for byte in data:
        crc ^= np.uint16(byte) << np.uint16(8)
        for _ in range(8):
            if crc & np.uint16(0x8000):
                crc = (crc << np.uint16(1)) ^ np.uint16(0x1021)
            else:
                crc = crc << np.uint16(1)
    return crc


def qr_solve(A, b):
    Q, R = np.linalg.qr(A)
    return np.linalg.solve(R, Q.T @ b)


def eigh_top(S):
    w, V = np.linalg.eigh(S)
    return w[-1], np.abs(V[:, -1])


def softmax_cross_entropy(logits, labels):
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -logp[np.arange(labels.shape[0]), labels].mean()


def _spd(r, n):
    A = r.standard_normal((n, n))
    return A @ A.T + n * np.eye(n)


CASES = [
    Case("mha_einsum", mha_einsum, lambda r: tuple(r.standard_normal((1, 2, 3, 4)) for _ in range(3)),
         rtol=1e-7, atol=1e-9),
    Case("pairwise_norm3d", pairwise_norm3d, lambda r: (r.standard_normal((_n(r, 4, 1), 3)),
                                                        r.standard_normal((5, 3))), rtol=1e-7, atol=1e-9),
    Case("knn_predict", knn_predict, lambda r: (r.standard_normal((6, 2)), r.integers(0, 2, 6).astype(np.float64),
                                                r.standard_normal((3, 2)), int(r.integers(1, 4))), rtol=1e-7,
         atol=1e-9),
    Case("sliding_max", sliding_max, lambda r: (r.standard_normal(9), int(r.integers(1, 4)))),
    Case("ix_block", ix_block, lambda r: (r.standard_normal((4, 5)), np.array([0, 2, 3]), np.array([1, 4]))),
    Case("view_augassign", view_augassign, lambda r: (r.standard_normal((_n(r, 5, 2), 4)),)),
    Case("strided_store", strided_store, lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n)))(
        _n(r, 4, 1))),
    Case("fill_diag_zero", fill_diag_zero, lambda r: (r.standard_normal((4, 4)),), rtol=1e-7, atol=1e-9),
    Case("ufunc_reduce_out", ufunc_reduce_out, lambda r: (r.standard_normal((3, 4)), r.standard_normal(5)),
         rtol=1e-7, atol=1e-9),
    Case("iqr_list", iqr_list, lambda r: (r.standard_normal(_n(r, 9, 1)),), rtol=1e-7, atol=1e-9),
    Case("rfft_power", rfft_power, lambda r: (r.standard_normal(8),), rtol=1e-7, atol=1e-9),
    Case("clip_keywords", clip_keywords, lambda r: (r.standard_normal(6) * 2,)),
    Case("mean_f32_dtype", mean_f32_dtype, lambda r: (r.standard_normal((3, 4)).astype(np.float32),),
         rtol=1e-5, atol=1e-6),
    Case("any_axes_bool", any_axes_bool, lambda r: (r.random((2, 3, 4)) < 0.3,)),
    Case("prod_int_axis", prod_int_axis, lambda r: (r.integers(-3, 4, (3, 4)).astype(np.int32),)),
    Case("unique_count_int", unique_count_int, lambda r: (r.integers(0, 5, _n(r, 9, 1)),)),
    Case("topk_mean", topk_mean, lambda r: (r.standard_normal(8), int(r.integers(1, 5))), rtol=1e-7, atol=1e-9),
    Case("vstack_T_matmul", vstack_T_matmul, lambda r: (r.standard_normal(5), r.standard_normal(5),
                                                        r.standard_normal((2, 3))), rtol=1e-7, atol=1e-9),
    Case("gradient_orientation", gradient_orientation, lambda r: (r.random((4, 5)),), rtol=1e-7, atol=1e-9),
    Case("mc_pi", mc_pi, lambda r: (lambda n: (r.random(n), r.random(n)))(_n(r, 20, 1)), rtol=1e-7, atol=1e-9),
    Case("lenet_tail", lenet_tail, lambda r: (r.standard_normal((2, 2, 3)), r.standard_normal((6, 4)),
                                              r.standard_normal(4), r.standard_normal((4, 3))), rtol=1e-7, atol=1e-9),
    Case("ellipsis_outer", ellipsis_outer, lambda r: (r.standard_normal((2, 3)), r.standard_normal((2, 3)))),
    Case("rate_of_change", rate_of_change, lambda r: (r.standard_normal((5, 2)), np.cumsum(r.random(5) + 0.1)),
         rtol=1e-7, atol=1e-9),
    Case("log_geom_spaces", log_geom_spaces, lambda r: (int(r.integers(1, 6)),), rtol=1e-7, atol=1e-9),
    Case("sinc_heaviside", sinc_heaviside, lambda r: (np.concatenate([r.standard_normal(5), [0.0]]),),
         rtol=1e-7, atol=1e-9),
    Case("swap_move_flat", swap_move_flat, lambda r: (r.standard_normal((2, 3, 4)),)),
    Case("reverse_cumsum", reverse_cumsum, lambda r: (r.standard_normal(_n(r, 6, 1)) * 0.1,), rtol=1e-7, atol=1e-9),
    Case("where_mask_cols", where_mask_cols, lambda r: (r.standard_normal((4, 3)), r.random(4) < 0.5),
         rtol=1e-7, atol=1e-9),
    Case("isclose_all", isclose_all, lambda r: (lambda a: (a, a + r.standard_normal(4) * 1e-4))(
        r.standard_normal(4))),
    Case("crc_bits", crc_bits, lambda r: (r.integers(0, 256, _n(r, 6, 1)).astype(np.uint8),)),
    Case("qr_solve", qr_solve, lambda r: (_spd(r, 3), r.standard_normal(3)), rtol=1e-7, atol=1e-9),
    Case("eigh_top", eigh_top, lambda r: (_spd(r, 3),), rtol=1e-7, atol=1e-9),
    Case("softmax_cross_entropy", softmax_cross_entropy, lambda r: (r.standard_normal((4, 3)),
                                                                    r.integers(0, 3, 4)), rtol=1e-7, atol=1e-9),
]
