"""polyfuse.einsum against numpy.einsum: fixed cases, random subscripts (hypothesis), errors."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from conftest import einsum_compiled
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.tensor.einsum import einsum, einsum_path

pe = importlib.import_module("polyfuse.tensor.einsum")  # the module (polyfuse.einsum may be the function)
einsum_plan = importlib.import_module("polyfuse.tensor.einsum_plan")  # FALLBACK_WORK is read here
einsum_gen = importlib.import_module("polyfuse.tensor.einsum_gen")  # the compiled kernels

TARGETS = ["python", "cpu"]


@pytest.fixture
def always_compile():
    """Run polyfuse's own code even for tiny inputs (no numpy fallback), and check that every
    call did: otherwise the test would compare numpy.einsum with itself."""
    with einsum_compiled() as ran:
        yield ran
    assert ran and "numpy" not in ran, ran


def _rand(rng, shape, dtype=np.float64):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-3, 4, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _check(result, expected, dtype=np.float64):
    expected = np.asarray(expected)
    assert np.shape(result) == expected.shape
    assert np.asarray(result).dtype == expected.dtype
    rtol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-9
    np.testing.assert_allclose(result, expected, rtol=rtol, atol=rtol)


CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("iij->ji", [(3, 3, 2)]),
    ("ij->ji", [(2, 3)]),
    ("bA", [(2, 3)]),
    ("i,i", [(5,), (5,)]),
    ("i,j->ij", [(2,), (3,)]),
    (",i->i", [(), (3,)]),
    ("", [()]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (3, 4, 5)]),
    ("i...->...", [(3, 2, 2)]),
    ("ij,ij->ij", [(1, 3), (4, 3)]),
    ("ij,j->i", [(3, 4), (1,)]),
    ("ki,k,kj,k->ij", [(6, 3), (6,), (6, 4), (6,)]),
    ("bi,bij,bj->b", [(2, 3), (2, 3, 4), (2, 4)]),
    ("ia,iajb,jbkc,kc->", [(3, 2), (3, 2, 3, 2), (3, 2, 3, 2), (3, 2)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 2), (2, 3)]),
    ("i j -> j i", [(2, 3)]),
    ("ij,ij,ij->", [(2, 0), (2, 0), (2, 0)]),
]


@pytest.mark.parametrize("blas", [True, False])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("subscripts,shapes", CASES, ids=[c[0] or "empty" for c in CASES])
def test_cases_match_numpy(always_compile, target, subscripts, shapes, blas):
    rng = np.random.default_rng(0)
    ops = [_rand(rng, s) for s in shapes]
    _check(einsum(subscripts, *ops, target=target, blas=blas), np.einsum(subscripts, *ops))


@pytest.mark.parametrize("optimize", [False, True, "greedy", "optimal", ["einsum_path", (0, 1), (0, 1)]])
def test_optimize_options(always_compile, optimize):
    rng = np.random.default_rng(1)
    ops = [_rand(rng, s) for s in [(3, 4), (4, 5), (5, 2)]]
    _check(einsum("ij,jk,kl->il", *ops, optimize=optimize), np.einsum("ij,jk,kl->il", *ops))


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int32", "int32"), ("int64", "float32"),
                                    ("int32", "int64")])
def test_dtypes_follow_numpy(always_compile, dtypes):
    rng = np.random.default_rng(2)
    a, b = _rand(rng, (3, 4), dtypes[0]), _rand(rng, (4, 2), dtypes[1])
    _check(einsum("ij,jk->ik", a, b), np.einsum("ij,jk->ik", a, b), dtype=np.result_type(a, b))


def test_out_and_dtype(always_compile):
    rng = np.random.default_rng(3)
    a, b = _rand(rng, (3, 4)), _rand(rng, (4, 5))
    out = np.empty((3, 5))
    assert einsum("ij,jk->ik", a, b, out=out) is out
    _check(out, a @ b)
    f32 = _rand(rng, (3, 4), np.float32)
    _check(einsum("ij->j", f32, dtype=np.float64), np.einsum("ij->j", f32, dtype=np.float64))
    scalar = np.empty(())
    assert einsum("i,i->", a[0], a[0], out=scalar) is scalar
    _check(scalar, a[0] @ a[0])
    with pytest.raises(polyfuse.ArgumentError, match="out has shape"):
        einsum("ij,jk->ik", a, b, out=np.empty((5, 3)))
    # unsafe casts are numpy's TypeError, as with numpy.einsum
    with pytest.raises(TypeError):
        einsum("ij->i", a, out=np.empty(3, dtype=np.int64))


def test_out_aliasing_an_operand(always_compile):
    a = np.arange(9.0).reshape(3, 3)
    expected = a.T.copy()
    einsum("ij->ji", a, out=a)
    np.testing.assert_array_equal(a, expected)


def test_unsupported_dtypes_use_numpy():
    a = (np.arange(6) + 1j).reshape(2, 3)
    np.testing.assert_allclose(einsum("ij->j", a), np.einsum("ij->j", a))
    b = np.ones((2, 3), dtype=bool)
    np.testing.assert_array_equal(einsum("ij->j", b), np.einsum("ij->j", b))


def test_small_inputs_fall_back_and_explain_says_so():
    a, b = np.ones((2, 2)), np.ones((2, 2))
    info = einsum_path("ij,jk->ik", a, b)
    assert info.fallback and "FALLBACK_WORK" in info.fallback
    text = str(pe.explain("ij,jk->ik", a, b))
    assert "numpy.einsum" in text and "generated source" in text
    big = np.ones((64, 64))
    assert einsum_path("ij,jk->ik", big, big).fallback is None
    assert "runs: polyfuse kernel" in str(pe.explain("ij,jk->ik", big, big, blas=False))
    assert "runs: BLAS matmul" in str(pe.explain("ij,jk->ik", big, big))


def test_path_reports_order_flops_and_fusion(always_compile):
    rng = np.random.default_rng(4)
    ops = [_rand(rng, s) for s in [(40, 30), (40,), (40, 20), (40,)]]
    info = einsum_path("ki,k,kj,k->ij", *ops)
    assert info.path[0] == "einsum_path" and len(info.path) == 4
    assert len(info.steps) == 3 and info.flops < info.naive_flops
    assert any(d["fused"] for d in info.fused)
    assert info.loop_nests < info.generated_nests
    assert "fusion:" in str(info)
    _check(einsum("ki,k,kj,k->ij", *ops), np.einsum("ki,k,kj,k->ij", *ops))


def test_one_compilation_serves_all_sizes(always_compile):
    rng = np.random.default_rng(5)
    einsum("ij,jk->ik", _rand(rng, (3, 4)), _rand(rng, (4, 5)), blas=False)
    before = len(einsum_gen._kernels)
    for n in (2, 6, 9):
        a, b = _rand(rng, (n, n + 1)), _rand(rng, (n + 1, 3))
        _check(einsum("ij,jk->ik", a, b, blas=False), a @ b)
    assert len(einsum_gen._kernels) == before


# ---- BLAS dispatch of GEMM-shaped contractions --------------------------------------------

GEMM_CASES = [
    ("ij,jk->ik", [(70, 60), (60, 50)], "(70, 60) @ (60, 50) -> (70, 50)"),
    ("bij,bjk->bik", [(4, 30, 20), (4, 20, 40)], "(4, 30, 20) @ (4, 20, 40) -> (4, 30, 40)"),
    ("ik,jk->ij", [(70, 60), (50, 60)], "(70, 60) @ (60, 50) -> (70, 50)"),
    ("abc,cbd->dab", [(20, 30, 40), (40, 30, 10)], "(30, 20, 40) @ (30, 40, 10) -> (30, 20, 10)"),
    ("...ij,...jk", [(3, 40, 30), (3, 30, 20)], "(3, 40, 30) @ (3, 30, 20) -> (3, 40, 20)"),
    # two free labels of A merged into M; out= cannot be viewed as (M, N): the result is copied in
    ("ijk,lk->jli", [(10, 12, 30), (20, 30)], "(120, 30) @ (30, 20) -> (120, 20)"),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("subscripts,shapes,matmul", GEMM_CASES, ids=[c[0] for c in GEMM_CASES])
def test_gemm_shaped_calls_dispatch_to_blas(subscripts, shapes, matmul, dtype):
    rng = np.random.default_rng(6)
    ops = [_rand(rng, s, dtype) for s in shapes]
    expected = np.einsum(subscripts, *ops)
    info = einsum_path(subscripts, *ops)
    assert info.fallback is None
    assert info.dispatch.startswith("dispatched to BLAS matmul: GEMM-shaped contraction")
    assert f"np.matmul {matmul}" in info.dispatch
    assert "runs:         BLAS matmul (dispatched to BLAS matmul" in str(info)
    assert info.steps and info.source  # the loops blas=False would run are still described
    text = str(pe.explain(subscripts, *ops))
    assert "runs: BLAS matmul (dispatched to BLAS matmul: GEMM-shaped contraction" in text
    _check(einsum(subscripts, *ops), expected, dtype)
    # out=: contiguous, transposed and strided, and an out that aliases an operand
    for out in (np.empty(expected.shape, dtype), np.empty(expected.shape[::-1], dtype).T,
                np.zeros(tuple(2 * d for d in expected.shape), dtype)[(slice(None, None, 2),) * expected.ndim]):
        assert einsum(subscripts, *ops, out=out) is out
        _check(out, expected, dtype)
    # blas=False: the generated loops, same result
    off = einsum_path(subscripts, *ops, blas=False)
    assert off.dispatch is None and off.fallback is None
    assert "runs:         polyfuse kernel" in str(off)
    assert "runs: polyfuse kernel" in str(pe.explain(subscripts, *ops, blas=False))
    _check(einsum(subscripts, *ops, blas=False), expected, dtype)


def test_blas_dispatch_is_recorded_per_call():
    rng = np.random.default_rng(7)
    a, b = _rand(rng, (70, 60)), _rand(rng, (60, 50))
    pe._plans.clear()
    einsum("ij,jk->ik", a, b)
    einsum("ij,jk->ik", a, b, blas=False)
    kinds = sorted(p.kind for p in pe._plans.values())
    assert kinds == ["blas", "kernel"]
    square = np.ones((60, 60))
    einsum("ij,jk->ik", square, square, out=square)  # out aliases both operands
    np.testing.assert_array_equal(square, np.full((60, 60), 60.0))


NOT_GEMM = [
    ("ij,ij->ij", [(300, 300), (300, 300)]),  # nothing contracted
    ("ii->i", [(300, 300)]),  # one operand
    ("ij,jk,kl->il", [(50, 4), (4, 5), (5, 50)]),  # a chain whose contractions are all short
    ("iij,jk->ik", [(40, 40, 50), (50, 40)]),  # a repeated label inside an operand
    ("ij,jk->i", [(70, 60), (60, 50)]),  # k is summed inside one operand only
    ("bij,bjk->bik", [(1, 30, 20), (4, 20, 40)]),  # b broadcasts from size 1
]


@pytest.mark.parametrize("subscripts,shapes", NOT_GEMM, ids=[c[0] + str(i) for i, c in enumerate(NOT_GEMM)])
def test_other_contractions_do_not_dispatch(always_compile, subscripts, shapes):
    rng = np.random.default_rng(8)
    ops = [_rand(rng, s) for s in shapes]
    info = einsum_path(subscripts, *ops)
    assert info.dispatch is None and info.fallback is None
    assert "BLAS" not in str(pe.explain(subscripts, *ops))
    _check(einsum(subscripts, *ops), np.einsum(subscripts, *ops))


@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("int32", "int32"), ("int64", "float64"),
                                    ("float32", "float64"), ("float32", "float32")])
def test_blas_dispatch_needs_float_operands(dtypes):
    rng = np.random.default_rng(9)
    a, b = _rand(rng, (70, 60), dtypes[0]), _rand(rng, (60, 50), dtypes[1])
    info = einsum_path("ij,jk->ik", a, b)
    if "int" in dtypes[0]:
        assert info.dispatch is None and info.fallback is None  # BLAS is float only
    else:
        assert info.dispatch is not None  # mixed float32/float64 promotes to float64 in np.matmul
    _check(einsum("ij,jk->ik", a, b), np.einsum("ij,jk->ik", a, b), dtype=np.result_type(a, b))
    # dtype=float64 converts the operands first (then BLAS applies); an out= of another dtype
    # than the result's keeps to the loops
    _check(einsum("ij,jk->ik", a, b, dtype=np.float64), np.einsum("ij,jk->ik", a, b, dtype=np.float64))
    assert einsum_path("ij,jk->ik", a, b, dtype=np.float64).dispatch is not None
    if np.result_type(a, b) == np.float32:
        out = np.empty((70, 50))
        assert einsum_path("ij,jk->ik", a, b, out=out).dispatch is None
        einsum("ij,jk->ik", a, b, out=out)
        _check(out, np.einsum("ij,jk->ik", a, b).astype(np.float64), dtype=np.float32)


def test_small_gemm_still_falls_back_to_numpy():
    a = np.ones((10, 10))
    info = einsum_path("ij,jk->ik", a, a)
    assert info.fallback and "FALLBACK_WORK" in info.fallback and info.dispatch is None


# ---- random valid subscripts -------------------------------------------------------------

@st.composite
def einsum_problems(draw):
    pool = "abcdAB"
    sizes = {c: draw(st.integers(1, 3)) for c in pool}
    nops = draw(st.integers(1, 4))
    ell_sizes = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    use_ellipsis = draw(st.booleans()) and nops <= 3
    terms, shapes, seen = [], [], []
    for _ in range(nops):
        labels = draw(st.lists(st.sampled_from(pool), min_size=0, max_size=3))
        shape = [sizes[c] for c in labels]
        term = "".join(labels)
        if use_ellipsis and draw(st.booleans()):
            k = draw(st.integers(0, len(ell_sizes)))
            dims = ell_sizes[len(ell_sizes) - k:]
            at = draw(st.integers(0, len(labels)))
            term = term[:at] + "..." + term[at:]
            shape = shape[:at] + dims + shape[at:]
        shape = [1 if d > 1 and draw(st.integers(0, 7)) == 0 else d for d in shape]  # size-1 broadcasting
        terms.append(term)
        shapes.append(tuple(shape))
        seen += labels
    has_ellipsis = any("..." in t for t in terms)
    dtype = draw(st.sampled_from(["float64", "float32", "int64"]))
    subscripts = ",".join(terms)
    if draw(st.booleans()):
        out = draw(st.permutations(sorted(set(seen))))
        out = list(out[:draw(st.integers(0, len(out)))])
        if has_ellipsis:
            out.insert(draw(st.integers(0, len(out))), "...")
        subscripts += "->" + "".join(out)
    return subscripts, shapes, dtype


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=20, deadline=None)
@given(problem=einsum_problems(), seed=st.integers(0, 2**16))
def test_random_subscripts_match_numpy(target, problem, seed):
    subscripts, shapes, dtype = problem
    rng = np.random.default_rng(seed)
    ops = [_rand(rng, s, dtype) for s in shapes]
    try:
        expected = np.einsum(subscripts, *ops)
    except ValueError:  # e.g. '...' whose broadcast dimensions disagree: we must refuse too
        with pytest.raises(ValueError):
            einsum(subscripts, *ops, target=target)
        return
    with einsum_compiled() as ran:
        result = einsum(subscripts, *ops, target=target)
    assert len(ran) == 1 and ran[0] in ("kernel", "blas")  # polyfuse's code, not numpy.einsum
    _check(result, expected, dtype)


# ---- errors ------------------------------------------------------------------------------

BAD = [
    ("ij,jk->ik", [(2, 3)], "operands"),
    ("ij->ik", [(2, 3)], "never appeared"),
    ("ij->ii", [(2, 3)], "more than once"),
    ("i$j", [(2, 3)], "invalid subscript"),
    ("i-j", [(2, 3)], "'-' must be followed"),
    ("ij>i", [(2, 3)], "'>' must follow"),
    ("i..j", [(2, 3)], "ellipsis"),
    ("...i...", [(2, 3)], "more than one ellipsis"),
    ("ijk", [(2, 3)], "2 dimensions"),
    ("ii", [(2, 3)], "don't match"),
    ("ij,jk", [(2, 3), (4, 5)], "could not be broadcast"),
    ("...i->i", [(2, 3)], "no '...'"),
    ("ij->i->j", [(2, 3)], "only one '->'"),
    ("i,j->i,j", [(2,), (3,)], "',' in the output"),
]


@pytest.mark.parametrize("subscripts,shapes,fragment", BAD)
def test_bad_subscripts_point_at_the_position(subscripts, shapes, fragment):
    ops = [np.ones(s) for s in shapes]
    with pytest.raises(polyfuse.ArgumentError, match="position") as info:
        einsum(subscripts, *ops)
    assert fragment in str(info.value)
    assert "^" in str(info.value)
    assert isinstance(info.value, ValueError)
    with pytest.raises(ValueError):  # numpy refuses them too
        np.einsum(subscripts, *ops)


@settings(max_examples=60, deadline=None)
@given(subscripts=st.text(alphabet="ijk.,->$ 1A", max_size=12),
       ranks=st.lists(st.integers(0, 3), min_size=1, max_size=3))
def test_random_subscripts_never_crash(subscripts, ranks):
    ops = [np.ones((2,) * r) for r in ranks]
    try:
        result = einsum(subscripts, *ops)
    except polyfuse.PolyfuseError as exc:
        assert isinstance(exc, ValueError)
        with pytest.raises((ValueError, TypeError)):
            np.einsum(subscripts, *ops)
        return
    np.testing.assert_allclose(result, np.einsum(subscripts, *ops))


def test_bad_options():
    with pytest.raises(polyfuse.ArgumentError, match="target"):
        einsum("i", np.ones(3), target="gpu")
    with pytest.raises(polyfuse.ArgumentError, match="optimize"):
        einsum("i", np.ones(3), optimize=3.5)
    with pytest.raises(polyfuse.ArgumentError, match="string"):
        einsum(5, np.ones(3))
