"""Random programs of the supported subset, compiled under every fusion mode and compared with
the plain Python function (see ``program_gen`` for what is generated and why it stays in bounds)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import FUSES, HAS_CPU, assert_same_arrays, copy_args, define, lift_reused
from hypothesis import given, note, reject, settings
from hypothesis import strategies as st
from numpy_program_gen import numpy_programs
from program_gen import COMMON, copy_keeping_layout, programs, run_plain

import polyfuse

_PLAIN_ERRORS = (ArithmeticError, ValueError)  # math.sin(inf), math.floor(nan), float ** overflow


def differential(prog, target: str, sizes, seed: int, views: bool = False) -> None:
    note(prog.source)
    fn = define(prog.source, "kern")
    rng = np.random.default_rng(seed)
    cases = []
    for n in sizes:
        args = prog.make_args(rng, n, views=views)
        try:
            expected = run_plain(fn, args)
        except _PLAIN_ERRORS:
            reject()  # the plain function itself fails on these values; nothing to compare
        cases.append((n, args, expected))
    rtol, atol = prog.tolerance
    with lift_reused():  # one lift of the program for its three fusion modes
        for fuse in FUSES:
            k = polyfuse.kernel(fn, target=target, fuse=fuse, verify=True)
            for n, args, expected in cases:
                actual = copy_keeping_layout(args)
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    k(*actual)
                note(f"fuse={fuse} n={n}")
                assert_same_arrays(expected, actual, rtol=rtol, atol=atol,
                                   names=["n", "alpha"] + [a.name for a in prog.arg_arrays])


@settings(max_examples=11, **COMMON)
@given(prog=programs(), n=st.integers(0, 7), seed=st.integers(0, 2**16))
def test_random_programs_python(prog, n, seed):
    differential(prog, "python", sorted({n, 5}), seed)


@pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py yet")
@settings(max_examples=10, **COMMON)
@given(prog=programs(), n=st.integers(0, 7), seed=st.integers(0, 2**16))
def test_random_programs_cpu(prog, n, seed):
    # 17 as well: longer loops reach schedules the small sizes do not (fuse="max" contracted an
    # array its schedule left unordered, 5cd7bdd, failed only from n = 17 on)
    differential(prog, "cpu", sorted({n, 6, 17}), seed)


@settings(max_examples=8, **COMMON)
@given(prog=programs(numba_style=True), n=st.integers(0, 7), seed=st.integers(0, 2**16))
def test_random_numba_style_programs_python(prog, n, seed):
    """Sizes from shapes, helper calls, data-dependent ifs and run-time subscripts."""
    differential(prog, "python", sorted({n, 5}), seed)


@pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py yet")
@settings(max_examples=8, **COMMON)
@given(prog=programs(numba_style=True), n=st.integers(0, 7), seed=st.integers(0, 2**16))
def test_random_numba_style_programs_cpu(prog, n, seed):
    differential(prog, "cpu", sorted({n, 6, 17}), seed)


@settings(max_examples=4, **COMMON)
@given(prog=programs(extra=True), n=st.integers(0, 7), seed=st.integers(0, 2**16))
def test_random_extra_programs_on_views_python(prog, n, seed):
    """Searches (break, while), running maxima, int8/int16/int32 over their whole range, and
    every array a non-contiguous view."""
    differential(prog, "python", sorted({n, 5}), seed, views=True)


@pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py yet")
@settings(max_examples=4, **COMMON)
@given(prog=programs(extra=True), n=st.integers(0, 7), seed=st.integers(0, 2**16))
def test_random_extra_programs_on_views_cpu(prog, n, seed):
    differential(prog, "cpu", sorted({n, 17}), seed, views=True)


@settings(max_examples=5, **COMMON)
@given(prog=numpy_programs(), n=st.integers(0, 5), seed=st.integers(0, 2**16))
def test_random_numpy_programs(prog, n, seed):
    """NumPy array programs (slices with steps, broadcasting, reductions with axis, @, np.where,
    cumsum, overlapping slice assignments) on views, python and cpu targets, default fusion."""
    note(prog.source)
    fn = define(prog.source, "kern")
    args = prog.make_args(np.random.default_rng(seed), n, views=True)
    expected = copy_args(args)
    with np.errstate(all="ignore"), warnings.catch_warnings(), lift_reused():  # one lift, two targets
        warnings.simplefilter("ignore")
        returned = fn(*expected)
        for target in ("python", "cpu") if HAS_CPU else ("python",):
            actual = copy_keeping_layout(args)
            got = polyfuse.kernel(fn, target=target, verify=True)(*actual)
            rtol, atol = prog.tolerance
            assert_same_arrays(expected, actual, rtol=rtol, atol=atol)
            assert isinstance(got, tuple) == isinstance(returned, tuple), target
            pairs = zip(returned, got) if isinstance(returned, tuple) else [(returned, got)]
            for e, a in pairs:
                assert np.asarray(a).dtype == np.asarray(e).dtype and np.shape(a) == np.shape(e), target
                np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=target)


def test_generated_extra_and_numpy_programs_cover_their_forms():
    seen: set[str] = set()

    @settings(max_examples=80, database=None, **COMMON)
    @given(prog=programs(extra=True), numpy_prog=numpy_programs(), indexed=numpy_programs(extra=True))
    def collect(prog, numpy_prog, indexed):
        seen.update(prog.features)
        seen.update(f"np-{f}" for f in numpy_prog.features | indexed.features)

    collect()
    wanted = {"search", "while", "break", "running-max", "np-overlap-rows", "np-overlap-transpose",
              "np-cumsum-0", "np-matmul", "np-where", "np-sum-0", "np-set-cols", "np-bcast-row",
              "np-store-self", "np-aug-gather", "np-gather-view-neg", "np-ifexp"}
    assert wanted <= seen, wanted - seen


def test_generated_numba_style_programs_cover_their_forms():
    seen: set[str] = set()

    @settings(max_examples=200, database=None, **COMMON)
    @given(prog=programs(numba_style=True))
    def collect(prog):
        seen.update(prog.features)

    collect()
    wanted = {"size-unpack", "size-len", "size-local", "size-half", "data-if", "sub-runtime", "helper-call"}
    assert wanted <= seen, wanted - seen


def test_generated_programs_cover_the_subset():
    """The generator really produces the features the differential tests are meant to exercise."""
    seen: set[str] = set()
    modes: set[str] = set()

    @settings(max_examples=300, database=None, **COMMON)
    @given(prog=programs())
    def collect(prog):
        seen.update(prog.features)
        modes.add(prog.mode)

    collect()
    wanted = {"range-step", "range-negstep", "range-tri_lo", "range-tri_hi", "range-min", "range-max",
              "sub-off", "sub-div", "sub-mod", "sub-rev", "if", "scalar-reduction", "top-scalar",
              "local-empty", "local-zeros", "chained-subscript", "aug+="}
    assert wanted <= seen, wanted - seen
    assert {"f64", "i64"} <= modes
