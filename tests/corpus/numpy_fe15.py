"""NumPy programs with slice bounds that are products of a loop variable and an argument
(strided windows, a filter adapted over decimated windows), np.repeat by an argument and
allocations whose extents are products of arguments, sizes computed from float arguments
(``int(T / dt)``, ``int(xn)``). Written for this corpus, not copied."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def decimated_means(x, factor, width, count):
    out = np.empty(count)
    for i in range(count):
        out[i] = np.mean(x[i * factor:i * factor + width])
    return out


def lms_equalizer(E, W, mu, stride):
    taps = W.shape[-1]
    count = (E.shape[1] // stride // taps - 1) * taps
    err = np.zeros((W.shape[0], E.shape[1]), dtype=np.complex128)
    for k in range(W.shape[0]):
        for i in range(count):
            X = E[:, i * stride:i * stride + taps]
            y = np.sum(X * np.conj(W[k]))
            err[k, i] = (2.0 - abs(y) ** 2) * y
            W[k] += mu * np.conj(err[k, i]) * X
    return err


def upsampled_series(x, factor):
    n = x.shape[0]
    out = np.empty(n * (factor + 1))
    out[:n] = x
    out[n:] = np.repeat(x, factor) * 0.5
    return out


def block_ids(rows, cols):
    ids = np.arange(rows * cols)
    table = np.zeros((rows * cols, 2), dtype=np.int64)
    table[:, 0] = ids // cols
    table[:, 1] = ids % cols
    return table


def strided_energy(x, hop, width):
    frames = (x.shape[0] - width) // hop + 1
    energy = np.empty(frames)
    for f in range(frames):
        energy[f] = np.sum(x[f * hop:f * hop + width] ** 2)
    return energy


def cooling(T0, k, t_end, dt):
    steps = int(t_end / dt)
    temps = np.empty(steps + 1)
    temps[0] = T0
    for s in range(steps):
        temps[s + 1] = temps[s] - k * dt * temps[s]
    return temps


def sampled_wave(x0, x1, samples):
    t = np.linspace(x0, x1, int(samples))
    return np.sin(t) * np.exp(-t)


CASES = [
    Case("upsampled_series", upsampled_series, lambda r: (r.random(9), 4)),
    Case("block_ids", block_ids, lambda r: (3, 5)),
    Case("strided_energy", strided_energy, lambda r: (r.random(50), 4, 6)),
    Case("cooling", cooling, lambda r: (90.0, 0.3, 2.0, 0.125)),
    Case("sampled_wave", sampled_wave, lambda r: (0.0, 3.0, 17.5)),
    Case("decimated_means", decimated_means, lambda r: (r.random(40), 3, 5, 12)),
    Case("lms_equalizer", lms_equalizer, lambda r: (r.random((2, 64)) + 1j * r.random((2, 64)),
                                                   np.eye(2)[:, :, None] * np.ones(5) * 0.2 + 0j, 1e-3, 2)),
]
