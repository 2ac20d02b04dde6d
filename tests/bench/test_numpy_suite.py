"""The numpy section's programs (polyfuse.bench.numpy_suite): each compiles and agrees with NumPy,
or is on the PENDING list and refused with a located UnsupportedError."""

from __future__ import annotations

import types

import numpy as np
import pytest
from conftest import TARGETS

import polyfuse
from polyfuse.bench import numpy_suite
from polyfuse.bench.measure import WARM_CALLS, fresh
from polyfuse.bench.numpy_rows import compare, results
from polyfuse.bench.numpy_suite import NUMPY_PRESETS, PENDING, PROGRAMS, jax_blocker, with_numpy_namespace

IN_PLACE = {"jacobi_1d", "jacobi_2d", "heat_3d", "fdtd_2d", "adam_step"}


def test_registry():
    assert len(PROGRAMS) >= 12
    assert not set(PROGRAMS) & set(PENDING)
    for program in numpy_suite.all_programs().values():
        assert set(program.sizes) == set(NUMPY_PRESETS), program.name
        assert program.description, program.name
    assert all(p.needs for p in PENDING.values())
    assert not any(p.needs for p in PROGRAMS.values())


def _run_both(program, kernel, seed):
    """NumPy's and the kernel's results (returned values, then array arguments) on one input set."""
    args = program.args("test", seed)
    numpy_args, our_args = fresh(args), fresh(args)
    expected = results(program.func(*numpy_args), numpy_args)
    return results(kernel(*our_args), our_args), expected


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_matches_numpy(name, target):
    program = PROGRAMS[name]
    kernel = polyfuse.kernel(program.func, target=target)
    for seed in (0, 1):
        ours, expected = _run_both(program, kernel, seed)
        ok, diff = compare(ours, expected)
        assert ok, (name, target, seed, diff)
    if target == "cpu":
        # the section's sizes (`polyfuse bench --preset quick`, where tiling, threads and BLAS take
        # other paths than at the tiny test sizes), on the variant compiled above, for as many calls
        # as the bench makes before it times (the plan's native entry, the team measured and used)
        args = program.args("quick", 0)
        numpy_args = fresh(args)
        expected = results(program.func(*numpy_args), numpy_args)
        for call in range(WARM_CALLS + 2):
            our_args = fresh(args)
            ok, diff = compare(results(kernel(*our_args), our_args), expected)
            assert ok, (name, "quick", call, diff)


@pytest.mark.parametrize("name", list(PENDING))
def test_pending_program_is_refused_where_it_is_written_or_matches(name):
    program = PENDING[name]
    kernel = polyfuse.kernel(program.func, target="python")
    try:
        ours, expected = _run_both(program, kernel, 0)
    except polyfuse.UnsupportedError as exc:
        assert exc.span is not None and exc.span.filename == numpy_suite.__file__, str(exc)
        return
    ok, diff = compare(ours, expected)
    assert ok, (name, diff)


def test_jax_blocker_names_in_place_writes():
    blocked = {name for name, p in numpy_suite.all_programs().items() if jax_blocker(p.func)}
    assert blocked == IN_PLACE
    assert "B[1:-1] = ..." in jax_blocker(PROGRAMS["jacobi_1d"].func)
    assert jax_blocker(PROGRAMS["adam_step"].func).startswith("writes array elements in place (line 2: m[:]")

    def scale(w, g):
        w -= 0.1 * g

    def rebind(x):
        y = x * 2.0
        y += 1.0
        return y

    assert jax_blocker(scale) == "updates argument w in place (line 2: w -= 0.1 * g)"
    assert jax_blocker(rebind) == ""  # a local rebound by op= is fine for JAX


def test_with_numpy_namespace_runs_the_same_code_on_another_module():
    calls = []

    def counting_exp(x):
        calls.append(x.shape)
        return np.exp(x)

    fake = types.SimpleNamespace(**{name: getattr(np, name) for name in ("sqrt", "maximum", "log")},
                                 exp=counting_exp)
    program = PROGRAMS["softmax"]
    rebuilt = with_numpy_namespace(program.func, fake)  # type: ignore[arg-type]
    x = program.args("test")[0]
    np.testing.assert_array_equal(rebuilt(x), program.func(x))
    assert calls == [x.shape]
    assert rebuilt.__code__ is program.func.__code__ and program.func.__globals__["np"] is np


def test_jax_variant_matches_numpy():
    from polyfuse.bench.numpy_rows import load_jax

    jax = load_jax()
    if jax is None:
        pytest.skip("jax is not installed")
    for name, program in PROGRAMS.items():
        if jax_blocker(program.func):
            continue
        args = program.args("test")
        jitted = jax.jit(with_numpy_namespace(program.func, jax.numpy))
        theirs = [np.asarray(v) for v in results(jitted(*args), ())]
        ok, diff = compare(theirs, results(program.func(*args), ()))
        assert ok, (name, diff)
