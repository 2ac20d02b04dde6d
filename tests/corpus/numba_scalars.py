"""Loop kernels with np.* scalar functions, casts and small dtypes, as numba users write them."""

from __future__ import annotations

import math

import numpy as np
from corpus_case import Case


def relu(x, out):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = np.maximum(x[i, j], 0.0)


def clip(x, lo, hi, out):
    for i in range(x.shape[0]):
        out[i] = np.minimum(np.maximum(x[i], lo), hi)


def sigmoid(x, out):
    for i in range(x.shape[0]):
        out[i] = 1.0 / (1.0 + np.exp(-x[i]))


def softplus(x, out):
    for i in range(x.shape[0]):
        out[i] = np.log1p(np.exp(-np.abs(x[i]))) + np.maximum(x[i], 0.0)


def gelu_tanh(x, out):
    c = math.sqrt(2.0 / math.pi)
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = 0.5 * v * (1.0 + np.tanh(c * (v + 0.044715 * v * v * v)))


def brighten_uint8(img, delta, out, wrapped):
    """Brightness with saturation (through int16) and, for contrast, with uint8 wrap-around."""
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            v = np.int16(img[i, j]) + delta
            out[i, j] = np.uint8(min(max(v, 0), 255))
            wrapped[i, j] = img[i, j] + np.uint8(delta)


def count_in_range_int32(a, lo, hi, counts):
    """Per-row counts without a histogram: bool arithmetic into int32."""
    for i in range(a.shape[0]):
        counts[i] = 0
        for j in range(a.shape[1]):
            counts[i] += (a[i, j] >= lo) and (a[i, j] < hi)


def masked_fill(x, mask, fill, out):
    for i in range(x.shape[0]):
        out[i] = x[i] if mask[i] else fill


def make_mask(x, threshold, mask):
    for i in range(x.shape[0]):
        mask[i] = np.isfinite(x[i]) and np.abs(x[i]) > threshold


def scale_float32(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * np.float32(0.5) + np.float32(1.25)


def polar(x, y, r, theta):
    for i in range(x.shape[0]):
        r[i] = np.hypot(x[i], y[i])
        theta[i] = np.rad2deg(np.arctan2(y[i], x[i]))


def angle_wrap(a, out):
    for i in range(a.shape[0]):
        out[i] = math.atan2(math.sin(a[i]), math.cos(a[i]))


def nan_safe_max(a, b, out):
    for i in range(a.shape[0]):
        out[i] = np.fmax(a[i], b[i]) + np.fmin(a[i], b[i])


def quantize(x, scale, out):
    """Round to int8 steps: np.rint then a wrapping cast, like (x / s).round().astype(int8)."""
    for i in range(x.shape[0]):
        out[i] = np.int8(np.rint(x[i] / scale))


def signed_log(x, out):
    for i in range(x.shape[0]):
        out[i] = np.sign(x[i]) * np.log1p(np.abs(x[i]))


def floor_to_grid(x, h, cell):
    for i in range(x.shape[0]):
        cell[i] = int(math.floor(x[i] / h))


def logsumexp_pairs(a, b, out):
    for i in range(a.shape[0]):
        out[i] = np.logaddexp(a[i], b[i])


def smooth_step(x, out):
    for i in range(x.shape[0]):
        t = np.minimum(np.maximum(x[i], 0.0), 1.0)
        out[i] = np.where(x[i] > 0.5, t * t * (3.0 - 2.0 * t), np.square(t))


def _specials(rng, n):
    x = rng.standard_normal(n) * 3.0
    x[:5] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
    return x


CASES = [
    Case("relu", relu, lambda rng: (_specials(rng, 24).reshape(4, 6), np.zeros((4, 6)))),
    Case("clip", clip, lambda rng: (_specials(rng, 30), -1.0, 2.0, np.zeros(30))),
    Case("sigmoid", sigmoid, lambda rng: (_specials(rng, 30), np.zeros(30)), rtol=1e-14),
    Case("softplus", softplus, lambda rng: (_specials(rng, 30), np.zeros(30)), rtol=1e-14),
    Case("gelu_tanh", gelu_tanh, lambda rng: (rng.standard_normal(30).astype(np.float32),
                                              np.zeros(30, np.float32)), rtol=1e-6, atol=1e-7),
    Case("brighten_uint8", brighten_uint8,
         lambda rng: (rng.integers(0, 256, (5, 7), dtype=np.uint8), 70, np.zeros((5, 7), np.uint8),
                      np.zeros((5, 7), np.uint8))),
    Case("count_in_range_int32", count_in_range_int32,
         lambda rng: (rng.integers(-50, 50, (6, 9), dtype=np.int32), -10, 20, np.zeros(6, np.int32))),
    Case("masked_fill", masked_fill,
         lambda rng: (rng.standard_normal(20), rng.random(20) > 0.5, -1.0, np.zeros(20))),
    Case("make_mask", make_mask, lambda rng: (_specials(rng, 20), 1.0, np.zeros(20, bool))),
    Case("scale_float32", scale_float32, lambda rng: (rng.standard_normal(20).astype(np.float32),
                                                      np.zeros(20, np.float32)), rtol=0, atol=0),
    Case("polar", polar, lambda rng: (_specials(rng, 20), rng.standard_normal(20), np.zeros(20),
                                      np.zeros(20)), rtol=1e-14),
    Case("angle_wrap", angle_wrap, lambda rng: (rng.uniform(-20, 20, 20), np.zeros(20)), rtol=1e-13,
         atol=1e-15),
    Case("nan_safe_max", nan_safe_max, lambda rng: (_specials(rng, 20), _specials(rng, 20)[::-1].copy(),
                                                    np.zeros(20)), rtol=0, atol=0),
    Case("quantize", quantize, lambda rng: (rng.standard_normal(30) * 2.0, 0.05, np.zeros(30, np.int8))),
    Case("signed_log", signed_log, lambda rng: (_specials(rng, 20), np.zeros(20)), rtol=1e-14),
    Case("floor_to_grid", floor_to_grid, lambda rng: (rng.standard_normal(20) * 5, 0.3,
                                                      np.zeros(20, np.int64))),
    Case("logsumexp_pairs", logsumexp_pairs, lambda rng: (_specials(rng, 20), rng.standard_normal(20),
                                                          np.zeros(20)), rtol=1e-14),
    Case("smooth_step", smooth_step, lambda rng: (rng.uniform(-0.5, 1.5, 20), np.zeros(20)), rtol=0, atol=0),
]
