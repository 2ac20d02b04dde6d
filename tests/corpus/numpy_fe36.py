"""fe36's fixed forms as users write them: an fftshift by half the length (np.roll by a size
expression), histogram equalization whose scale is int(max(...)) of an np.int64 and a Python
int, counts of np.digitize bins (np.bincount of a helper's result), and an entropy of a mask
selection bound to a local."""

import numpy as np
from corpus_case import Case

FUSES = ("none", "smart")  # its subject is how constructs are lowered (numpy_np21)


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


def fftshift_spectrum(power):
    n = power.shape[0]
    shifted = np.roll(power, n // 2)
    freqs = (np.arange(n) - n // 2) / n
    return freqs, shifted / shifted.max()


def equalize_hist(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    cdf_min = cdf[cdf > 0].min()
    lut = np.round((cdf - cdf_min) * 255.0 / int(max(cdf[-1] - cdf_min, 1)))
    lut = np.clip(lut, 0, 255).astype(np.uint8)
    return lut[img]


def digitize_counts(x, edges):
    bins = np.digitize(x, edges)
    return np.bincount(bins, minlength=edges.shape[0] + 1) / max(x.shape[0], 1)


CASES = [
    Case("fftshift_spectrum", fftshift_spectrum, lambda r: (r.random(_n(r, 9, 2)) + 0.1,)),
    Case("equalize_hist", equalize_hist, lambda r: (r.integers(0, 256, (_n(r, 6, 1), 5)).astype(np.uint8),)),
    Case("digitize_counts", digitize_counts, lambda r: (r.standard_normal(_n(r, 10, 1)), np.linspace(-1.0, 1.0, 4))),
]


def entropy_bits(labels, k):
    counts = np.bincount(labels, minlength=k)
    p = counts[counts > 0] / labels.shape[0]
    return -(p * np.log2(p)).sum()


CASES.append(Case("entropy_bits", entropy_bits, lambda r: (r.integers(0, 5, _n(r, 12, 1)), 5), rtol=1e-7, atol=1e-9))
