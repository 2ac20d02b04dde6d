"""NumPy bit manipulation on whole arrays: packing, bit planes, SWAR popcounts, flag masks."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def pack_rgb(r, g, b):
    return (r.astype(np.uint32) << 16) | (g.astype(np.uint32) << 8) | b


def unpack_rgb(rgb):
    return (rgb >> 16) & 0xFF, (rgb >> 8) & 0xFF, rgb & 0xFF


def bit_plane(img, k):
    return ((img >> k) & 1).astype(np.bool_)


def hamming_distance(a, b):
    """SWAR popcount of a ^ b, summed (uint64 wraps in the multiply, as intended)."""
    x = a ^ b
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return np.sum((x * 0x0101010101010101) >> 56)


def toggle_flags(flags, mask, on):
    flags ^= mask
    flags[::2] &= ~mask
    flags |= np.left_shift(on.astype(np.int16), 3)
    return np.bitwise_and(flags, 0x0FFF), np.invert(on), on & (flags > 4)


CASES = [
    Case("pack_rgb", pack_rgb,
         lambda rng: tuple(rng.integers(0, 256, (4, 5)).astype(np.uint8) for _ in range(3))),
    Case("unpack_rgb", unpack_rgb, lambda rng: (rng.integers(0, 2**24, 23).astype(np.uint32),)),
    Case("bit_plane", bit_plane, lambda rng: (rng.integers(0, 256, (6, 7)).astype(np.uint8), 5)),
    Case("hamming_distance", hamming_distance,
         lambda rng: (rng.integers(0, 2**64 - 1, 31, dtype=np.uint64, endpoint=True),
                      rng.integers(0, 2**64 - 1, 31, dtype=np.uint64, endpoint=True))),
    Case("toggle_flags", toggle_flags,
         lambda rng: (rng.integers(0, 2**15, 13).astype(np.int16), np.int16(0x00F0), rng.random(13) > 0.5)),
]
