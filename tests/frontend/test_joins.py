"""Joins inside kernels (frontend/array_joins.py): np.concatenate, np.stack, np.hstack, np.vstack,
np.dstack, np.column_stack, np.tile and np.repeat, compiled for the python and cpu targets and compared with the
undecorated function (``kernel.py_func``) on the same inputs: values, shapes and dtypes, and the
errors NumPy raises for pieces that do not fit."""

from __future__ import annotations

import linecache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse import ArgumentError, UnsupportedError

TARGETS = ("python", "cpu")
RNG = np.random.default_rng(7)
V, W = RNG.random(10), RNG.random(4)
M, N = RNG.random((6, 7)), RNG.random((6, 3))


def _kernel_from(source: str):
    filename = f"<joins-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["k"]


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _same(fn, *args, targets=TARGETS, rtol=1e-12, what=""):
    """Each target writes and returns what ``kernel.py_func`` does on copies of ``args``."""
    for target in targets:
        kernel = polyfuse.kernel(fn, target=target, verify=True)
        expected, actual = _copies(args), _copies(args)
        want = kernel.py_func(*expected)
        got = kernel(*actual)
        for e, a in zip(expected + [want], actual + [got]):
            if e is None:
                assert a is None
                continue
            e, a = np.asarray(e), np.asarray(a)
            assert (a.shape, a.dtype) == (e.shape, e.dtype), f"{target}: {a.shape} {a.dtype}\n{what}"
            np.testing.assert_allclose(a, e, rtol=rtol, atol=1e-14, err_msg=f"{target}\n{what}")


# ---- random joins: functions, ranks, axes, dtypes, piece forms ----------------------------------
_DTYPES = ("float64", "float32", "int32", "int64", "bool")


@st.composite
def _joins(draw) -> tuple[str, list[np.ndarray]]:
    """A join of 1 to 3 pieces whose shapes fit the function's rule, as a ``return`` or a store
    into ``out``, each piece an argument, a reversed slice of one or (for rank 1) a literal."""
    name = draw(st.sampled_from(["concatenate", "stack", "hstack", "vstack", "column_stack", "dstack"]))
    count = draw(st.integers(1, 3))
    size = st.integers(0, 3)
    rank = draw(st.integers(0 if name == "stack" else 1, 3 if name in ("concatenate", "dstack") else 2))
    base = [draw(st.integers(1, 3)) for _ in range(rank)]
    call_axis = ""
    if name == "concatenate":
        axis = draw(st.integers(-rank, rank - 1))
        call_axis = f", axis={axis}"
        shapes = [tuple(draw(size) if d == axis % rank else e for d, e in enumerate(base)) for _ in range(count)]
    elif name == "stack":
        call_axis = f", axis={draw(st.integers(-rank - 1, rank))}"
        shapes = [tuple(base)] * count
    else:  # the joined axis of the (promoted) pieces, where their extents may differ
        joined = {"hstack": 0 if rank == 1 else 1, "vstack": 0 if rank == 2 else None,
                  "column_stack": 1 if rank == 2 else None, "dstack": 2 if rank == 3 else None}[name]
        shapes = [tuple(draw(size) if d == joined else e for d, e in enumerate(base)) for _ in range(count)]
    dtypes = [draw(st.sampled_from(_DTYPES)) for _ in range(count)]
    rng = np.random.default_rng(len(shapes) + rank)
    args = [np.asarray(rng.random(s) * 10 - 3 if t != "bool" else rng.random(s) > 0.5).astype(t) for s, t in zip(shapes, dtypes)]
    args = [a if a.ndim else a[()] for a in args]  # a numpy scalar for a 0-d piece
    pieces = []
    for k, shape in enumerate(shapes):
        form = draw(st.sampled_from(["{p}", "{p}[::-1]", "literal"] if len(shape) == 1 else
                                    ["{p}", "{p}[::-1]"] if shape else ["{p}"]))
        if form == "literal" and name in ("concatenate", "hstack"):
            pieces.append(draw(st.sampled_from(["[True]", "[2, -1]", "[0.5]"])))
        else:
            pieces.append(form.replace("literal", "{p}").format(p=f"p{k}"))
    brackets = draw(st.sampled_from(["({},)", "[{}]"]))
    call = f"np.{name}({brackets.format(', '.join(pieces))}{call_axis})"
    names = ", ".join(f"p{k}" for k in range(count))
    if draw(st.booleans()):
        return f"def k({names}):\n    return {call}\n", args
    want = _kernel_from(f"def k({names}):\n    return {call}\n")(*args)
    return f"def k({names}, out):\n    out[...] = {call}\n", args + [np.zeros(want.shape, want.dtype)]


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_joins())
def test_random_joins_match_numpy(program):
    source, args = program
    _same(_kernel_from(source), *args, what=source)


@st.composite
def _copies_of(draw) -> tuple[str, list[np.ndarray]]:
    """np.tile or np.repeat (the function or the method) of an argument with constant counts."""
    rank = draw(st.integers(0, 3))
    shape = tuple(draw(st.integers(0, 3)) for _ in range(rank))
    dtype = draw(st.sampled_from(_DTYPES))
    x = np.asarray(np.random.default_rng(rank).random(shape) * 10 - 3).astype(dtype)
    piece = draw(st.sampled_from(["x", "x[::-1]"] if rank else ["x"]))
    if draw(st.booleans()):
        reps = tuple(draw(st.integers(0, 3)) for _ in range(draw(st.integers(1, 3))))
        call = f"np.tile({piece}, {reps if len(reps) > 1 or draw(st.booleans()) else reps[0]})"
    else:
        axis = draw(st.sampled_from(["", *(f", axis={a}" for a in range(-rank, rank))]) if rank > 1 else
                    st.sampled_from(["", ", axis=0", ", axis=-1"]) if rank else st.just(""))
        count = draw(st.integers(0, 3))
        call = draw(st.sampled_from([f"np.repeat({piece}, {count}{axis})", f"{piece}.repeat({count}{axis})"]
                                    if rank else [f"np.repeat({piece}, {count})"]))
        if not axis and rank > 1:
            call = f"np.repeat({piece}[0, ...], {count}, axis=-1)" if rank == 2 else f"np.repeat({piece}, {count}, 1)"
    return f"def k(x):\n    return {call}\n", [x if x.ndim else x[()]]


@settings(max_examples=16, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_copies_of())
def test_random_tiles_and_repeats_match_numpy(program):
    source, args = program
    _same(_kernel_from(source), *args, what=source)


# ---- forms ---------------------------------------------------------------------------------------
FORMS = {
    "tuple of two": ("np.concatenate((x, y))", V, W),
    "list with a reversed slice": ("np.concatenate([x, y, x[::-1]])", V, W),
    "boolean edges (run starts)": ("np.concatenate(([True], x[1:] != x[:-1], [True]))", V, W),
    "literal pieces promote": ("np.concatenate(([0.5], x, [1, 2]))", V, W),
    "axis=1": ("np.concatenate((x, y), axis=1)", M, N),
    "negative axis in an expression": ("np.concatenate((x, y), axis=-1) * 2.0", M, N),
    "axis=None of vectors": ("np.concatenate((x, y), axis=None)", V, W),
    "float32 and float64": ("np.concatenate((x, y.astype(np.float32)))", V, W),
    "float32 stays float32": ("np.concatenate((x.astype(np.float32), y.astype(np.float32)))", V, W),
    "bool and int32": ("np.concatenate((x > 0.5, (y * 10).astype(np.int32)))", V, W),
    "dtype=": ("np.concatenate((x, y), dtype=np.float32)", V, W),
    "dtype= unsafe casting": ("np.concatenate((x, y * 10), dtype=np.int16, casting='unsafe')", V, W),
    "hstack of vectors and scalars": ("np.hstack((x, 1.0, 2))", V, W),
    "hstack of matrices": ("np.hstack((x, y, x))", M, N),
    "vstack of vectors": ("np.vstack((x, x, x[::-1]))", V, W),
    "vstack of a row and a matrix": ("np.vstack((x, x[0]))", M, N),
    "stack": ("np.stack((x, x))", V, W),
    "stack axis=1 positional": ("np.stack([x, x], 1)", M, N),
    "stack axis=-1": ("np.stack((x, x * 2, x + 1), axis=-1)", M, N),
    "stack of scalars": ("np.stack((1.0, 2.0, x[0]))", V, W),
    "column_stack of vectors": ("np.column_stack((x, x))", V, W),
    "column_stack of a vector and a matrix": ("np.column_stack((x[:, 0], y))", M, N),
    "dstack": ("np.dstack((x[:, :3], x[:, :3] * 0.5 + y))", M, N),
    "sum of a join": ("np.concatenate((x, y)).sum()", V, W),
    "product of joins": ("np.concatenate((x, y)) @ np.concatenate((y, x))", V, W),
    "rotation minus itself": ("np.concatenate((x[1:], x[:1])) - x", V, W),
    "a reduction as a piece": ("np.concatenate((x, y.sum(axis=1, keepdims=True)), axis=1)", M, N),
    "a join of joins": ("np.hstack((np.vstack((x, y)), np.vstack((y, x))))", V, V),
    "tile of a vector into a matrix": ("np.tile(x, (2, 3))", V, W),
    "tile of a list, in an expression": ("np.tile([1.0, 2.0], 3) * x[:6]", V, W),
    "tile of a slice": ("np.tile(x[1:, ::2], 2) - 1.0", M, N),
    "repeat along an axis": ("np.repeat(x, 3, axis=0) + 1.0", M, N),
    "repeat method of a comparison": ("(x > 0.5).repeat(2)", V, W),
    "repeat and tile in a product": ("np.repeat(x[::-1], 2) @ np.tile(x, 2)", V, W),
    "repeat into columns": ("np.column_stack((np.repeat(x, 2), np.tile(x, 2)))", W, W),
}


@pytest.mark.parametrize("case", list(FORMS))
def test_join_forms_match_numpy(case):
    expr, x, y = FORMS[case]
    _same(_kernel_from(f"def k(x, y):\n    return {expr}\n"), x, y, what=expr)


STATEMENTS = {
    "leave one out, extents in the loop variable": (
        "for i in range(x.shape[0]):\n    t = np.concatenate((x[:i], x[i + 1:]))\n    out[i] = t.sum()", V, np.zeros(10)),
    "a prefix that grows with the loop": (
        "for i in range(x.shape[0]):\n    out[i] = np.concatenate((x[:i], [0.5])).sum()", V, np.zeros(10)),
    "rows rotated in a loop": ("for i in range(x.shape[0]):\n    out[i, :] = np.hstack((x[i, 1:], x[i, :1]))", M,
                               np.zeros((6, 7))),
    "rotated in place": ("x[:] = np.concatenate((x[1:], x[:1]))\nout[...] = x", V, np.zeros(10)),
    "rotated in place, repeatedly": ("for s in range(3):\n    x[:] = np.concatenate((x[2:], x[:2]))\nout[...] = x", V,
                                     np.zeros(10)),
    "broadcast into rows": ("out[...] = np.concatenate((x, x))", V, np.zeros((3, 20))),
    "+=": ("out += np.concatenate((x, x))", V, np.ones(20)),
    "into a slice": ("out[2:] = np.concatenate((x[:3], x[5:]))", V, np.ones(10)),
    "into an int32 array": ("out[:] = np.concatenate((x, x)) * 10", V, np.ones(20, np.int32)),
    "columns of temporaries": ("a = x[:, 0:1] * 2.0\nb = x[:, 1:2] + 1.0\nout[...] = np.hstack((a, b))", M,
                               np.zeros((6, 2))),
    "bound, then returned": ("t = np.vstack((x, x * 2.0))\nout[...] = t[1]\nreturn t", V, np.zeros(10)),
}


@pytest.mark.parametrize("case", list(STATEMENTS))
def test_join_statements_match_numpy(case):
    body, x, out = STATEMENTS[case]
    source = "def k(x, out):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    _same(_kernel_from(source), x, out, what=source)


def test_empty_pieces_take_no_room():
    """``x[n:]`` past the end and ``x[1:]`` of an empty ``x`` have NumPy's length 0 (a slice's
    symbolic length may be negative, which must not move the next piece back)."""
    _same(_kernel_from("def k(x, n):\n    return np.concatenate(([1.0], x[n:], [2.0]))\n"), V, 12)
    _same(_kernel_from("def k(x):\n    return np.concatenate(([True], x[1:] != x[:-1], [True]))\n"), V[:0])


def test_a_store_of_a_join_writes_the_pieces_into_the_target():
    """``out[...] = np.concatenate(...)``: one store nest per piece straight into ``out``, no
    temporary; where a piece reads ``out`` the join is built first, as NumPy builds it."""
    def direct(x, y, out):
        out[...] = np.concatenate((x, y * 2.0))

    def reads_target(x, out):
        out[...] = np.concatenate((out[1:], x[:1]))

    for fn, args in ((direct, (V, W, np.zeros(14))), (reads_target, (V, np.arange(10.0)))):
        _same(fn, *args)
        variant = polyfuse.kernel(fn, target="python", cache=False).compile(*args)
        temporaries = [a.name for a in variant.declared_locals if a.name.startswith("pf_join")]
        assert len(temporaries) == (fn is reads_target), temporaries


def get_acc(pos, mass, G, softening):
    """npbench's nbody getAcc, as written there."""
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    z = pos[:, 2:3]
    dx = x.T - x
    dy = y.T - y
    dz = z.T - z
    inv_r3 = (dx**2 + dy**2 + dz**2 + softening**2)
    inv_r3[inv_r3 > 0] = inv_r3[inv_r3 > 0]**(-1.5)
    ax = G * (dx * inv_r3) @ mass
    ay = G * (dy * inv_r3) @ mass
    az = G * (dz * inv_r3) @ mass
    a = np.hstack((ax, ay, az))
    return a


@pytest.mark.parametrize("blas", [True, False])
def test_nbody_get_acc(blas):
    """With BLAS (the default) on the cpu target, this program (the same text, verify=True, fuse
    smart) is tests/corpus/numpy_joins.py's nbody_get_acc: not compiled a second time here."""
    rng = np.random.default_rng(3)
    pos, mass = rng.standard_normal((40, 3)), rng.random((40, 1)) * 20.0 / 40
    for target in (TARGETS if not blas else ("python",)):
        kernel = polyfuse.kernel(get_acc, target=target, blas=blas, verify=True)
        want = kernel.py_func(pos.copy(), mass.copy(), 1.0, 0.1)
        got = kernel(pos.copy(), mass.copy(), 1.0, 0.1)
        assert got.shape == want.shape == (40, 3) and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-10, err_msg=target)


# ---- errors ----------------------------------------------------------------------------------------
CALL_TIME = {
    "rows of another length": ("np.vstack((x, y.T))", M, N),
    "columns of another length": ("np.concatenate((x, y))", M, N),
    "axis=1, rows differ": ("np.concatenate((x, y), axis=1)", M, N[:4]),
    "stack of different shapes": ("np.stack((x, y))", V, W),
    "column_stack of vectors of different lengths": ("np.column_stack((x, y))", V, W),
}


@pytest.mark.parametrize("case", list(CALL_TIME))
def test_pieces_that_do_not_fit_raise_at_call_time(case):
    """NumPy raises ValueError for these sizes; polyfuse's ArgumentError is a ValueError too."""
    expr, x, y = CALL_TIME[case]
    fn = _kernel_from(f"def k(x, y):\n    return {expr}\n")
    with pytest.raises(ValueError):
        fn(x, y)
    for target in TARGETS:
        with pytest.raises(ArgumentError, match="extents they need to be equal differ"):
            polyfuse.kernel(fn, target=target)(x, y)


def k_ranks(x, y):
    return np.concatenate((x, y[0]))


def k_constant_extents(x):
    return np.vstack(([1.0, 2.0], [1.0, 2.0, 3.0])) + x[0]


def k_scalars(x):
    return np.concatenate((x[0], 1.0))


def k_axis(x, y):
    return np.concatenate((x, y), axis=2)


def k_flatten(x, y):
    return np.concatenate((x, y), axis=None)


def k_array_of_pieces(x):
    return np.concatenate(x)


def k_out(x, y):
    return np.concatenate((x, y), out=x)


def k_hstack_axis(x, y):
    return np.hstack((x, y), axis=0)


def k_cast(x, y):
    return np.concatenate(((x * 10).astype(np.int32), y), dtype=np.int32)


def k_nested_list(x):
    return np.concatenate(([[1.0]], x))


def k_tile_counts(x, n):
    return np.tile(x, (n, 2))


def k_tile_many(x):
    return np.tile(x, (10, 10))


def k_repeat_counts(x):
    return np.repeat(x, x.astype(np.int64))


def k_repeat_flattens(x):
    return x.repeat(2)


REFUSALS = {
    "np.tile counts not constants": (k_tile_counts, (V, 2), "non-negative integer constants"),
    "np.tile of too many copies": (k_tile_many, (V,), "of 100 copies"),
    "np.repeat of an array of counts": (k_repeat_counts, (V,), "one non-negative integer constant"),
    "np.repeat of a matrix without axis=": (k_repeat_flattens, (M,), "NumPy flattens it first"),
    "pieces of different ranks": (k_ranks, (M, N), "of arrays of 1 and 2 dimensions"),
    "constant extents that differ": (k_constant_extents, (M,), "extents along axis 1 differ (2 and 3"),
    "0-d pieces of concatenate": (k_scalars, (M,), "of arrays of 0 and 1 dimensions"),
    "axis out of range": (k_axis, (M, N), "axis= must be an integer constant in [-2, 2)"),
    "axis=None of matrices": (k_flatten, (M, N), "NumPy flattens them first"),
    "an array as the sequence": (k_array_of_pieces, (M,), "non-empty list or tuple written in the call"),
    "out=": (k_out, (V, W), "with out="),
    "hstack axis=": (k_hstack_axis, (V, W), "takes no axis="),
    "a cast NumPy refuses": (k_cast, (V, W), "Cannot cast array data from dtype('float64') to dtype('int32')"),
    "a nested list piece of another rank": (k_nested_list, (V,), "arrays of 1 and 2 dimensions"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusals_name_the_construct_and_its_line(case):
    fn, args, words = REFUSALS[case]
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(fn, target="python")(*args)
    message = str(info.value)
    assert words in message, message
    assert info.value.span is not None and info.value.span.filename == __file__
    assert "array_joins.py" not in message and "arrays.py" not in message  # no compiler frames
