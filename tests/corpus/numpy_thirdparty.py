"""NumPy programs in the forms a probe of third-party code (npbench, numpy-benchmarks) found
refused: arguments bound again (``image = image.astype(...)``), small arrays from lists, np.linspace,
mask stores that read through the mask, reshapes that add unit axes, argmin in a loop, np.average,
logical ufuncs, shapes sliced from shapes, temporaries bound again per loop, helpers whose argument
is read several times, list defaults NumPy converts, float32 np.linspace, argmax of guarded
prefixes.  Written for this corpus, not copied."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def box_blur(image, out):
    image = image.astype(np.float32)
    taps = np.array([1.0, 2.0, 1.0], dtype=np.float32) / 4.0
    rows = np.empty((image.shape[0], image.shape[1] - 2), dtype=np.float32)
    for y in range(rows.shape[0]):
        rows[y, :] = taps[0] * image[y, :-2] + taps[1] * image[y, 1:-1] + taps[2] * image[y, 2:]
    out = np.clip(rows, 0.0, 255.0).astype(np.uint8)
    return out


def escape_times(x0, x1, y0, y1, nx, ny, steps):
    re = np.linspace(x0, x1, nx)
    im = np.linspace(y0, y1, ny)
    c = re + im[:, None] * 1j
    count = np.zeros(c.shape, dtype=np.int64)
    z = np.zeros(c.shape, dtype=np.complex128)
    for n in range(steps):
        alive = np.less(np.abs(z), 2.0)
        count[alive] = n
        z[alive] = z[alive] * z[alive] + c[alive]
    count[count == steps - 1] = 0
    return count, np.abs(z)


def inverse_powers(r2, w):
    r2[r2 > 0.01] = r2[r2 > 0.01] ** -1.5
    w[np.logical_and(r2 > 1.0, w < 0.5)] *= 2.0
    return r2, w


def batched_mix(A, C4):
    n0, n1, n2 = A.shape
    A[:] = np.reshape(np.reshape(A, (n0, n1, 1, n2)) @ C4, (n0, n1, n2))


def nearest_symbol(E, symbols):
    out = np.zeros(E.shape[0], dtype=E.dtype)
    for i in range(E.shape[0]):
        k = np.argmin(np.abs(E[i] - symbols) ** 2)
        out[i] = symbols[k]
    return out


def band_stats(x, w, lo, hi):
    inside = np.logical_and(x >= lo, x < hi)
    count = np.sum(inside)
    mean = np.average(x, weights=w)
    return count, mean, np.argmax(x), np.average(x, axis=0)


def luma_chroma(image):
    image = image.astype(np.float64)
    gray = np.empty(image.shape[:2])
    gray[:, :] = 0.299 * image[:, :, 0] + 0.587 * image[:, :, 1] + 0.114 * image[:, :, 2]
    cr = (image[:, :, 0] - gray) * 0.713 + 128
    return np.clip(gray + 1.4 * (cr - 128), 0, 255)


def column_sweeps(wcon, u):
    out = np.zeros_like(u)
    for k in range(1):
        g = 0.25 * (wcon[1:, k + 1] + wcon[:-1, k + 1])
        out[:, k] = g * u[:, k]
    for k in range(1, u.shape[1]):
        g = 0.25 * (wcon[1:, k] + wcon[:-1, k])  # a new g: the first loop's has ended
        out[:, k] = g * u[:, k] + out[:, k - 1]
    return out


def reversed_view(A):
    A = np.transpose(A, (2, 1, 0))
    A[0] += 1.0
    return A


def row_softmax(v):
    top = np.max(v, axis=-1, keepdims=True)
    e = np.exp(v - top)
    return e / np.sum(e, axis=-1, keepdims=True)


def relu(v):
    return np.maximum(v, 0)


def two_layers(x, w1, b1, w2, b2, out):
    h = relu(x @ w1 + b1)
    out[:, :] = row_softmax(h @ w2 + b2)


def heat_steps(u, dt, steps):
    dt = dt / 2  # bound again: a new value from here on
    for t in range(steps):
        u[1:-1] = u[1:-1] + dt * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def flagged_rows(bits, pattern=[1, 1]):  # noqa: B006 - a list default NumPy converts (check_mask's form)
    keep = np.zeros(bits.shape[0], dtype=np.int64)
    for r in range(bits.shape[0]):
        if (pattern == np.bitwise_and(pattern, bits[r, 1:])).all():
            keep[r] = bits[r, 0]
    return keep


def float32_grid(lo, hi, n, w):
    g = np.linspace(lo, hi, n, dtype=np.float32)
    return g[:, None] * g[None, :] + w


def running_peaks(x):
    at = np.zeros(x.shape[0], dtype=np.int64)
    for k in range(x.shape[0]):
        if k > 0:
            at[k] = np.argmax(x[:k])
    return at


CASES = [
    Case("box_blur", box_blur, lambda r: ((r.random((7, 9)) * 300).astype(np.uint8), np.zeros((7, 7), np.uint8)),
         rtol=0, atol=0),
    # NumPy's SIMD complex multiply rounds 1 ulp from the scalar formula
    Case("escape_times", escape_times, lambda r: (-2.0, 1.0, -1.0, 1.0, 11, 7, 14), rtol=1e-12),
    Case("inverse_powers", inverse_powers, lambda r: (r.random(20) * 3, r.random(20))),
    Case("batched_mix", batched_mix, lambda r: (r.random((3, 4, 5)), r.random((5, 5)))),
    Case("nearest_symbol", nearest_symbol, lambda r: (r.random(30) + 1j * r.random(30), r.random(6) + 1j * r.random(6))),
    Case("band_stats", band_stats, lambda r: (r.random((6, 5)), r.random((6, 5)), 0.25, 0.75)),
    Case("luma_chroma", luma_chroma, lambda r: ((r.random((5, 6, 3)) * 255).astype(np.uint8),)),
    Case("column_sweeps", column_sweeps, lambda r: (r.random((9, 6)), r.random((8, 6)))),
    Case("reversed_view", reversed_view, lambda r: (r.random((2, 3, 4)),)),
    Case("two_layers", two_layers, lambda r: (r.random((4, 6)), r.random((6, 40)), r.random(40), r.random((40, 36)),
                                              r.random(36), np.zeros((4, 36))), rtol=1e-12),
    Case("heat_steps", heat_steps, lambda r: (r.random(16), 0.4, 5)),
    Case("flagged_rows", flagged_rows, lambda r: (r.integers(0, 2, size=(25, 3)),)),
    Case("float32_grid", float32_grid, lambda r: (-1.5, 2.0, 9, r.random((9, 9)).astype(np.float32)), rtol=0, atol=0),
    Case("running_peaks", running_peaks, lambda r: (r.random(12),)),
]
