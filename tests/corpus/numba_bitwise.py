"""Bit manipulation as numba users write it: checksums, hashes, PRNGs, bit counts, packing."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def crc16(data, poly=0x8408):
    """npbench's crc16 (CRC-16/X.25), on a uint8 array."""
    crc = 0xFFFF
    for b in data:
        cur_byte = 0xFF & b
        for _ in range(0, 8):
            if (crc & 0x0001) ^ (cur_byte & 0x0001):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            cur_byte >>= 1
    crc = (~crc & 0xFFFF)
    crc = (crc << 8) | ((crc >> 8) & 0xFF)
    return crc & 0xFFFF


def fnv1a_32(data):
    """FNV-1a over bytes in uint32 arithmetic (the multiply wraps)."""
    h = np.uint32(2166136261)
    for b in data:
        h ^= np.uint32(b)
        h *= np.uint32(16777619)
    return h


def xorshift64_fill(seed, out):
    x = np.uint64(seed)
    for i in range(out.shape[0]):
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
        out[i] = x


def popcounts(words, out):
    for i in range(words.shape[0]):
        v = words[i]
        c = 0
        while v != 0:
            v &= v - np.uint64(1)
            c += 1
        out[i] = c


def pack_nibbles(hi, lo, out):
    """Two 4-bit values per byte, and the parity of each byte."""
    for i in range(out.shape[0]):
        out[i, 0] = ((hi[i] & 0x0F) << 4) | (lo[i] & 0x0F)
        p = out[i, 0] ^ (out[i, 0] >> 4)
        p ^= p >> 2
        p ^= p >> 1
        out[i, 1] = p & 1


def morton2d(n, codes):
    """Z-order codes of an n x n grid: the bits of i and j interleaved."""
    for i in range(n):
        for j in range(n):
            code = 0
            for b in range(16):
                code |= ((i >> b) & 1) << (2 * b + 1) | ((j >> b) & 1) << (2 * b)
            codes[i, j] = code


def sign_masks(x, out):
    """Branch-free abs and sign of int32 values through the arithmetic shift."""
    for i in range(x.shape[0]):
        mask = x[i] >> 31
        out[i, 0] = (x[i] ^ mask) - mask
        out[i, 1] = mask | ((-x[i] >> 31) & 1)


CASES = [
    Case("crc16", crc16, lambda rng: (rng.integers(0, 256, 57).astype(np.uint8),)),
    Case("crc16_empty", crc16, lambda rng: (np.zeros(0, np.uint8), 0xA001)),
    Case("fnv1a_32", fnv1a_32, lambda rng: (rng.integers(0, 256, 40).astype(np.uint8),)),
    Case("xorshift64_fill", xorshift64_fill,
         lambda rng: (int(rng.integers(1, 2**62)), np.zeros(32, np.uint64))),
    Case("popcounts", popcounts,
         lambda rng: (rng.integers(0, 2**64 - 1, 25, dtype=np.uint64, endpoint=True), np.zeros(25, np.int64))),
    Case("pack_nibbles", pack_nibbles,
         lambda rng: (rng.integers(0, 256, 19).astype(np.uint8), rng.integers(0, 256, 19).astype(np.uint8),
                      np.zeros((19, 2), np.uint8))),
    Case("morton2d", morton2d, lambda rng: (9, np.zeros((9, 9), np.int64))),
    Case("sign_masks", sign_masks,
         lambda rng: (rng.integers(-2**31 + 1, 2**31, 30).astype(np.int32), np.zeros((30, 2), np.int32))),
]
