"""Bitwise operators ``& | ^ << >> ~`` (and numpy's bitwise ufuncs) on integers and bools, in loop
code and NumPy array code, against the undecorated function (``kernel.py_func``).

Scalars: numpy values follow numpy, Python ints Python (as int64).  Arrays: NumPy's dtypes
(``np.bitwise_and`` & co. asked on the operand types).  Shifts: a count at least the dtype's width,
or negative, gives 0 (``<<``) or the sign fill (``>>``), as numpy computes it on this machine.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from conftest import define
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import polyfuse
from polyfuse import UnsupportedError

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
TARGETS = ["python", "cpu"]


def crc16(data, poly=0x8408):
    """npbench's crc16, as written for numba."""
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


def assert_same(actual, expected):
    """The same value of the same type (a Python int for an int, np.uint64 for np.uint64, ...)."""
    assert type(actual) is type(expected), (type(actual), type(expected))
    if isinstance(expected, tuple):
        for a, e in zip(actual, expected):
            assert_same(a, e)
        return
    assert np.asarray(actual).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(actual, expected)


def run_both(fn, *args, target="cpu"):
    """``fn`` compiled and undecorated on copies of ``args``: the results and the arrays after."""
    kernel = polyfuse.kernel(fn, target=target, verify=True)
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with np.errstate(all="ignore"):
        assert_same(kernel(*mine), kernel.py_func(*theirs))
    for m, t in zip(mine, theirs):
        if isinstance(t, np.ndarray):
            assert_same(m, t)


# ---- loop programs ---------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [0, 1, 2, 7, 64, 301])
def test_crc16_matches_python_and_numba(target, n):
    data = np.random.default_rng(n).integers(0, 256, n).astype(np.uint8)
    kernel = polyfuse.kernel(crc16, target=target, verify=True)
    result = kernel(data)
    assert type(result) is int and result == kernel.py_func(data)
    numba = pytest.importorskip("numba")
    assert result == numba.njit(crc16)(data)
    assert kernel(data, 0xA001) == kernel.py_func(data, 0xA001)


def xorshift64(seed, out):
    """Marsaglia's xorshift on numpy uint64 (logical right shifts, wrapping left shifts)."""
    x = np.uint64(seed)
    for i in range(out.shape[0]):
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
        out[i] = x
    return x


def xorshift_int64(seed, out):
    """The same on int64: ``>>`` is arithmetic, so negative states fill with ones."""
    x = np.int64(seed)
    for i in range(out.shape[0]):
        x ^= x << np.int64(13)
        x ^= x >> 7
        x ^= (x << 17) | ((x >> 47) & 0x1FFFF)
        out[i] = x
    return x


def splitmix64(seed, out):
    """Vigna's splitmix64: its constants are above int64's range, given to np.uint64 (a literal
    that no int64 holds, taken as the uint64 it names; fe43: refused before)."""
    state = np.uint64(seed)
    for i in range(out.shape[0]):
        state += np.uint64(0x9E3779B97F4A7C15)
        z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out[i] = z ^ (z >> np.uint64(31))
    return state


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn, dtype", [(xorshift64, np.uint64), (xorshift_int64, np.int64),
                                       (splitmix64, np.uint64)])
def test_xorshift_generators(target, fn, dtype):
    for seed in (1, 88172645463325252, 2**62 + 12345):
        run_both(fn, seed, np.zeros(50, dtype), target=target)


def popcount_while(a, out):
    """Kernighan's loop: kept as written (a while loop)."""
    for i in range(a.shape[0]):
        v = a[i]
        c = 0
        while v:
            v &= v - 1
            c += 1
        out[i] = c


def popcount_bits(a, out):
    """Every bit of the two's complement: ``>>`` of a negative int32 fills with ones."""
    for i in range(a.shape[0]):
        c = 0
        for b in range(32):
            c += (a[i] >> b) & 1
        out[i] = c


@pytest.mark.parametrize("target", TARGETS)
def test_popcount_loops(target):
    rng = np.random.default_rng(3)
    for dtype in ("uint8", "uint64", "int16"):
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, 40, dtype=dtype, endpoint=True)
        run_both(popcount_while, a, np.zeros(40, np.int64), target=target)
    run_both(popcount_bits, rng.integers(-2**31, 2**31, 40).astype(np.int32), np.zeros(40, np.int32),
             target=target)


def gray_and_masks(n, out):
    """Python ints (loop variables): Python's operators, in int64."""
    for i in range(n):
        out[i, 0] = i ^ (i >> 1)
        out[i, 1] = (1 << (i % 62)) | (i & 7)
        out[i, 2] = ~i
        out[i, 3] = (-i) >> 2


@pytest.mark.parametrize("target", TARGETS)
def test_python_ints_of_loop_variables(target):
    run_both(gray_and_masks, 70, np.zeros((70, 4), np.int64), target=target)


def bit_reverse32(a, out):
    for i in range(a.shape[0]):
        v = a[i]
        v = ((v >> 1) & 0x55555555) | ((v & 0x55555555) << 1)
        v = ((v >> 2) & 0x33333333) | ((v & 0x33333333) << 2)
        v = ((v >> 4) & 0x0F0F0F0F) | ((v & 0x0F0F0F0F) << 4)
        v = ((v >> 8) & 0x00FF00FF) | ((v & 0x00FF00FF) << 8)
        out[i] = (v >> 16) | (v << 16)


@pytest.mark.parametrize("target", TARGETS)
def test_bit_reverse_uint32(target):
    a = np.random.default_rng(4).integers(0, 2**32, 33).astype(np.uint32)
    run_both(bit_reverse32, a, np.zeros(33, np.uint32), target=target)


# ---- shifts at the edges ---------------------------------------------------------------------
def shifts(a, c, left, right):
    for i in range(a.shape[0]):
        left[i] = a[i] << c[i]
        right[i] = a[i] >> c[i]


def edge_counts(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Values (1, a negative or large one, the extremes) against counts 0, width - 1, width,
    width + 1, 64, 100 (and negative ones for signed dtypes), every pairing."""
    info, width = np.iinfo(dtype), np.dtype(dtype).itemsize * 8
    counts = [0, 1, width - 1, width, width + 1, 64, 100, -1, -width, -100]
    counts = [c for c in counts if info.min <= c <= info.max]
    values = [1, -5 if info.min else 200, info.max, info.min, 0]
    a = np.array([v for v in values for _ in counts], dtype=dtype)
    return a, np.array(counts * len(values), dtype=dtype)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", INTS)
def test_shift_counts_at_and_past_the_width_are_numpys(target, dtype):
    a, c = edge_counts(dtype)
    run_both(shifts, a, c, np.zeros_like(a), np.zeros_like(a), target=target)
    width = np.dtype(dtype).itemsize * 8
    left, right = np.zeros_like(a), np.zeros_like(a)
    polyfuse.kernel(shifts, target=target)(a, c, left, right)
    out = c.astype(np.int64) >= width
    if np.iinfo(dtype).min:
        out |= c < 0
    assert (left[out] == 0).all() and (right[out] == np.where(a[out] < 0, -1, 0)).all()


def shift_numpy_scalars(n, out):
    one, minus = np.int64(1), np.int64(-8)
    for i in range(n):
        out[i, 0] = one << i
        out[i, 1] = minus >> i
        out[i, 2] = np.uint8(255) << np.uint8(i)


@pytest.mark.parametrize("target", TARGETS)
def test_numpy_scalars_shifted_by_loop_variables(target):
    run_both(shift_numpy_scalars, 70, np.zeros((70, 3), np.int64), target=target)


def shift_python_ints(n, out):
    out[0] = 1 << n
    out[1] = -7 >> n


@pytest.mark.parametrize("n", [-1, 64, 70])
def test_python_int_shifts_outside_int64_give_numpys_result_where_python_raises(n):
    """Python raises ValueError for a negative count and grows past 64 bits (which the store
    then refuses); target="python" runs Python's operator on Python ints, compiled code numpy's."""
    with pytest.raises((ValueError, OverflowError)):
        shift_python_ints(n, np.zeros(2, np.int64))
    with pytest.raises((ValueError, OverflowError)):
        polyfuse.kernel(shift_python_ints, target="python")(n, np.zeros(2, np.int64))
    out = np.zeros(2, np.int64)
    polyfuse.kernel(shift_python_ints)(n, out)
    assert list(out) == [np.left_shift(1, n), np.right_shift(-7, n)] == [0, -1]


# ---- augmented assignment --------------------------------------------------------------------
def aug_scalars(x):
    s, t = 0, np.uint16(0xFFFF)
    for i in range(x.shape[0]):
        s ^= x[i]
        s |= 1
        t &= ~np.uint16(1 << (i % 16))
        t <<= 1
        t >>= 1
    return s, t


def aug_elements(x, y):
    for i in range(x.shape[0]):
        x[i] ^= y[i]
        x[i] <<= 1
        y[i] &= 0x3C
        y[i] >>= 2
        y[i] |= x[i] & 1


def aug_arrays(x, y):
    x &= 0x7F
    x[1:] |= y[:-1]
    x ^= y
    y <<= 2
    y[::2] >>= 1


@pytest.mark.parametrize("target", TARGETS)
def test_augmented_assignments(target):
    rng = np.random.default_rng(5)
    x, y = rng.integers(0, 128, 17).astype(np.int32), rng.integers(0, 128, 17).astype(np.int32)
    run_both(aug_scalars, x, target=target)
    run_both(aug_elements, x, y, target=target)
    run_both(aug_arrays, x, y, target=target)


def test_augmented_assignment_of_a_whole_array_writes_in_place():
    x, y = np.arange(6, dtype=np.uint8), np.full(6, 3, np.uint8)
    polyfuse.kernel(aug_arrays)(x, y)
    expected_x, expected_y = np.arange(6, dtype=np.uint8), np.full(6, 3, np.uint8)
    aug_arrays(expected_x, expected_y)
    assert_same(x, expected_x)  # the caller's arrays, as NumPy's in-place operators
    assert_same(y, expected_y)


# ---- bools -----------------------------------------------------------------------------------
def bool_elements(m, n, out_b, out_i):
    for i in range(m.shape[0]):
        out_b[i, 0] = m[i] & n[i]
        out_b[i, 1] = m[i] | n[i]
        out_b[i, 2] = m[i] ^ (m[i] & n[i])
        out_b[i, 3] = ~m[i]  # a numpy bool: logical not
        out_b[i, 4] = np.invert(n[i])
        out_i[i, 0] = m[i] & 3  # a bool with an int: an int
        out_i[i, 1] = (m[i] << 2) | n[i]


def bool_arrays(m, n, k):
    return m & n, m | ~n, m ^ n, np.bitwise_and(m, n), np.invert(m), ~(m & n), m & k, m << 1


@pytest.mark.parametrize("target", TARGETS)
def test_bools_are_logical_and_meet_ints_as_ints(target):
    rng = np.random.default_rng(6)
    m, n = rng.random(12) > 0.5, rng.random(12) > 0.5
    run_both(bool_elements, m, n, np.zeros((12, 5), bool), np.zeros((12, 2), np.int64), target=target)
    run_both(bool_arrays, m, n, rng.integers(0, 9, 12).astype(np.int16), target=target)


def python_bools(a, b, out_b, out_i):
    out_b[0] = (a < 1) & (b > 0)
    out_b[1] = (a < 1) ^ True
    out_i[0] = (a > 0) | 2
    return ((a > 0) | 2) + 0


def test_python_bools_follow_python():
    for a, b in ((0, 1), (2, 0)):
        run_both(python_bools, a, b, np.zeros(2, bool), np.zeros(1, np.int64))


# ---- numpy functions of scalars ----------------------------------------------------------------
def np_functions(x, n):
    v = x[0]
    return (np.bitwise_and(v, 12), np.bitwise_or(v, n), np.bitwise_xor(v, v >> 1), np.left_shift(v, 2),
            np.right_shift(v, n), np.invert(v), np.bitwise_not(v), np.bitwise_and(5, 3), np.invert(True) + 0)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "uint64"])
def test_numpy_bitwise_functions_of_scalars(target, dtype):
    run_both(np_functions, np.array([77, 3], dtype=dtype), 3, target=target)


# ---- NumPy array forms, with hypothesis --------------------------------------------------------
FORMS = {
    "&": "a & b", "|": "a | b", "^": "a ^ b", "<<": "a << b", ">>": "a >> b",
    "bitwise_and": "np.bitwise_and(a, b)", "bitwise_or": "np.bitwise_or(a, b)",
    "bitwise_xor": "np.bitwise_xor(a, b)", "left_shift": "np.left_shift(a, b)",
    "right_shift": "np.right_shift(a, b)", "scalar |": "a | 3", "scalar <<": "a << 2",
    "mixed": "(a & b) ^ (a >> 1) | ~b",
}
_KERNELS: dict[str, object] = {}


def form_kernel(text: str):
    if text not in _KERNELS:
        _KERNELS[text] = define(f"def k(a, b):\n    return {text}\n")
    return _KERNELS[text]


@st.composite
def operands(draw):
    """Two arrays of integer or bool dtypes, of one shape or a row broadcast over a matrix, values
    over the full range (shift counts too, so negative and too-large counts come up)."""
    dtypes = st.sampled_from(INTS + ["bool"])
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=2, max_side=5))
    other = draw(st.sampled_from([shape, shape[1:] or shape]))
    a = draw(hnp.arrays(draw(dtypes), shape))
    b = draw(hnp.arrays(draw(dtypes), other))
    return a, b


@settings(max_examples=60)
@given(form=st.sampled_from(sorted(FORMS)), ab=operands(), target=st.sampled_from(TARGETS))
def test_array_forms_match_numpy(form, ab, target):
    a, b = ab
    fn = form_kernel(FORMS[form])
    try:
        with np.errstate(all="ignore"):
            expected = fn(a, b)
    except (TypeError, OverflowError):  # int64 with uint64, ~ of ... : NumPy refuses
        with pytest.raises(UnsupportedError):
            polyfuse.kernel(fn, target=target)(a, b)
        return
    actual = polyfuse.kernel(fn, target=target, verify=True)(a, b)
    assert_same(actual, expected)


@settings(max_examples=30)
@given(a=hnp.arrays(st.sampled_from(INTS + ["bool"]), hnp.array_shapes(max_dims=2, max_side=6)),
       target=st.sampled_from(TARGETS))
def test_invert_of_arrays_matches_numpy(a, target):
    fn = form_kernel("(~a, np.invert(a), np.bitwise_not(b))")
    assert_same(polyfuse.kernel(fn, target=target)(a, a), fn(a, a))


# ---- refusals --------------------------------------------------------------------------------
def k_float_and(x):
    return x[0] & 1  # ERR


def k_float_shift(x):
    return x[0] << 1.5  # ERR


def k_float_array(x):
    return x | 1  # ERR


def k_invert_float_array(x):
    return ~x  # ERR


def k_invert_python_bool(flag):
    return ~flag  # ERR


def k_invert_true_literal(x):
    return ~True  # ERR


def k_int64_with_uint64(a, b):
    return a[0] ^ b[0]  # ERR


def k_literal_out_of_range(a):
    return a[0] & 256  # ERR


def k_inplace_int_into_bool(m, y):
    m &= y  # ERR


F = np.ones(3)
REFUSALS = {
    "float &": (k_float_and, (F,), "x[0] & 1", "TypeError"),
    "float <<": (k_float_shift, (np.ones(3, np.int64),), "x[0] << 1.5", "float64"),
    "float array |": (k_float_array, (F,), "x | 1", "refused by NumPy"),
    "~ float array": (k_invert_float_array, (F,), "~x", "float64 array"),
    "~ Python bool": (k_invert_python_bool, (True,), "~flag", "Python bool"),
    "~True": (k_invert_true_literal, (F,), "~True", "Python bool"),
    "int64 ^ uint64": (k_int64_with_uint64, (np.ones(2, np.int64), np.ones(2, np.uint64)), "a[0] ^ b[0]",
                       "no integer type"),
    "uint8 & 256": (k_literal_out_of_range, (np.ones(2, np.uint8),), "a[0] & 256", "OverflowError"),
    "bool &= int": (k_inplace_int_into_bool, (np.ones(2, bool), np.ones(2, np.int64)), "m &= y", "same_kind"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusals_point_at_the_operator(case):
    fn, args, snippet, words = REFUSALS[case]
    lines, first = inspect.getsourcelines(fn)
    line = next(first + k for k, text in enumerate(lines) if "# ERR" in text)
    col = lines[line - first].index(snippet) + 1
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(fn)(*args)
    message = str(info.value)
    assert message.startswith(f"{inspect.getsourcefile(fn)}:{line}:{col}: "), message
    assert words in message
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    if "Python bool" in words:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            assert fn(*copies) == -2  # Python's answer, which polyfuse does not guess at
    else:
        with pytest.raises((TypeError, OverflowError)):  # NumPy's UFuncTypeError is a TypeError
            fn(*copies)
