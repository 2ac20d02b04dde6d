"""Bitwise operators on target="cuda" (numba's simulator unless a real GPU was asked for), and the
shift helpers of backends/cuda/exprs.py compiled by numba's CPU jit, whose integer typing and
LLVM ``shl``/``ashr``/``lshr`` lowering numba.cuda shares (the simulator runs Python instead, so
it would not see a shift by the width turn into poison)."""

from __future__ import annotations

import os
import sys

if "NUMBA_ENABLE_CUDASIM" not in os.environ and os.environ.get("POLYFUSE_TEST_GPU", "") in ("", "0"):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # as tests/backends/cuda/test_cuda.py, before numba.cuda
    if "numba.cuda" not in sys.modules and "numba.core.config" in sys.modules:
        sys.modules["numba.core.config"].ENABLE_CUDASIM = 1

import numpy as np
import pytest
from polyfuse.backends.cuda.exprs import ExprRenderer, helper_source

import polyfuse
from polyfuse.model import ir

cuda = pytest.importorskip("numba.cuda")
numba = pytest.importorskip("numba")

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def edge_pairs(dtype: str) -> list[tuple[int, int]]:
    """(value, count) pairs: counts 0 .. past the width and negative ones, values 1, a negative or
    large one and the extremes."""
    info, width = np.iinfo(dtype), np.dtype(dtype).itemsize * 8
    counts = [c for c in (0, 1, width - 1, width, width + 1, 64, 100, -1, -width) if info.min <= c <= info.max]
    values = [1, -5 if info.min else 200, int(info.max), int(info.min)]
    return [(v, c) for v in values for c in counts]


NUMPY_OPS = {"<<": np.left_shift, ">>": np.right_shift, "&": np.bitwise_and, "|": np.bitwise_or,
             "^": np.bitwise_xor, "~": lambda a, c: np.invert(a)}


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", list(NUMPY_OPS))
def test_emitted_operators_under_numbas_jit_are_numpys(op, dtype):
    """The text the CUDA backend emits for ``a op c`` (with its narrowing cast and helpers),
    compiled by numba's CPU jit, against numpy on the edge values and counts."""
    a, c = ir.Var("a", dtype, False), ir.Var("c", dtype, False)
    expr = ir.Unary("invert", a, dtype) if op == "~" else ir.BinOp(op, a, c, dtype)
    renderer = ExprRenderer(set(), set())
    text = renderer.render(expr)
    source = helper_source(renderer.helpers).replace("@_cuda.jit(device=True)", "@_nb.njit")
    namespace: dict = {"_nb": numba}
    exec(source + f"\n@_nb.njit\ndef run(a, c):\n    return {text}\n", namespace)  # noqa: S102
    kind = np.dtype(dtype).type
    for value, count in edge_pairs(dtype):
        expected = NUMPY_OPS[op](kind(value), kind(count))
        assert namespace["run"](kind(value), kind(count)) == expected, (text, value, count)


def crc16_into(data, out, poly=0x8408):
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
    out[0] = crc & 0xFFFF


def shifts(a, c, left, right):
    for i in range(a.shape[0]):
        left[i] = a[i] << c[i]
        right[i] = a[i] >> c[i]


def mixed(a, b, m, out, flags):
    for i in range(a.shape[0]):
        out[i] = (a[i] & b[i]) ^ (~a[i] | (b[i] >> 3)) ^ (m[i] & 1)
        flags[i] = (m[i] ^ (a[i] > b[i])) & ~m[i]


def arrays(a, b, out):
    out[:] = (a << 2) | (b & 0x0F) ^ ~a
    out[1:] ^= a[:-1]


def same(fn, *args):
    kernel = polyfuse.kernel(fn, target="cuda", verify=True)
    mine = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    theirs = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    kernel(*mine)
    fn(*theirs)
    for m, t in zip(mine, theirs):
        if isinstance(t, np.ndarray):
            assert m.dtype == t.dtype
            np.testing.assert_array_equal(m, t)


def test_crc16_on_cuda():
    rng = np.random.default_rng(0)
    for n in (0, 1, 9):
        same(crc16_into, rng.integers(0, 256, n).astype(np.uint8), np.zeros(1, np.int64))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "uint64"])
def test_shift_edges_on_cuda(dtype):
    pairs = edge_pairs(dtype)
    a = np.array([v for v, _ in pairs], dtype=dtype)
    c = np.array([k for _, k in pairs], dtype=dtype)
    same(shifts, a, c, np.zeros_like(a), np.zeros_like(a))


def test_operators_and_array_forms_on_cuda():
    rng = np.random.default_rng(1)
    a, b = rng.integers(-100, 100, 8).astype(np.int16), rng.integers(0, 100, 8).astype(np.int16)
    m = rng.random(8) > 0.5
    same(mixed, a, b, m, np.zeros(8, np.int16), np.zeros(8, bool))
    same(arrays, a, b, np.zeros(8, np.int16))
