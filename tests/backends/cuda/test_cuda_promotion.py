"""Shared-memory and register promotion of the CUDA backend (backends/cuda_promote.py).

Runs on numba's CUDA simulator (set before numba is imported, as in test_cuda.py).  Every kernel
is compared with the plain Python function with promotion on (the default) and off
(``POLYFUSE_CUDA_SHARED=0``), at sizes that are not multiples of the block (boundary tiles).
"""

from __future__ import annotations

import os
import sys

if "NUMBA_ENABLE_CUDASIM" not in os.environ and os.environ.get("POLYFUSE_TEST_GPU", "") in ("", "0"):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    if "numba.cuda" not in sys.modules and "numba.core.config" in sys.modules:
        sys.modules["numba.core.config"].ENABLE_CUDASIM = 1

import numpy as np
import pytest
from conftest import assert_same_arrays, copy_args, define
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from program_gen import programs
from simulator_order import device_launches, recorded_launches, shuffled_simulator

import polyfuse
from polyfuse.bench import suite

cuda = pytest.importorskip("numba.cuda")
from numba import config as numba_config  # noqa: E402
from polyfuse.backends.cuda import promote as cuda_promote  # noqa: E402
from polyfuse.backends.cuda.affine import Linear, interval, linear, variable  # noqa: E402
from test_cuda import cuda_matches_python_function  # noqa: E402

SIMULATOR = bool(numba_config.ENABLE_CUDASIM)
if not SIMULATOR and not cuda.is_available():
    pytest.skip("no CUDA GPU and the simulator is off", allow_module_level=True)
REAL_GPU = not SIMULATOR
needs_gpu = pytest.mark.skipif(not REAL_GPU, reason="needs a real CUDA GPU (the simulator is on or no GPU)")
#: tests that assert the simulator's launch shapes (8 x 8 tiles, chunks of 8, 64 threads); a real
#: GPU compiles the device's (test_promoted_kernels_with_the_device_tiles checks those decisions)
simulator_shapes = pytest.mark.skipif(not SIMULATOR, reason="asserts the simulator's tiles and grids; "
                                      "a real GPU gets the device's launch configuration")


def compiled(func, args, fuse="smart"):
    k = polyfuse.kernel(func, target="cuda", fuse=fuse)
    return k, k.compile(*args).backend


def check(func, args, fuse="smart", rtol=1e-9):
    """Run with promotion on (default) and compare with the Python function; return the backend."""
    expected = copy_args(args)
    func(*expected)
    actual = copy_args(args)
    k, backend = compiled(func, args, fuse)
    k(*actual)
    assert_same_arrays(expected, actual, rtol=rtol)
    return backend


def staged(backend):
    return {(d.array, d.loop) for d in backend.promotion_decisions() if d.storage == "shared"}


def registers(backend):
    return {d.array for d in backend.promotion_decisions() if d.storage == "register"}


# ---- differential: promotion on and off, boundary sizes ---------------------------------------

CASES = [  # (kernel, fuse, sizes): sizes not multiples of the simulator's 8 x 8 / 32 blocks
    ("gemm", "smart", dict(ni=17, nj=9, nk=13)),
    ("2mm", "none", dict(ni=17, nj=11, nk=13, nl=9)),
    ("matmul_bias_relu", "none", dict(ni=9, nk=17, nj=10)),
    ("syrk", "none", dict(n=17, m=11)),
    ("mvt", "smart", dict(n=31)),
    ("atax", "smart", dict(m=9, n=17)),
    ("attention_rows", "none", dict(nq=9, nk=11, d=5, dv=7)),
]


@pytest.mark.parametrize("name, fuse, sizes", CASES, ids=[c[0] for c in CASES])
def test_promoted_kernels_match_python_on_and_off(name, fuse, sizes, monkeypatch):
    sk = suite.KERNELS[name]
    args = sk.make_args(np.random.default_rng(0), **sizes)
    on = check(sk.func, args, fuse)
    monkeypatch.setenv("POLYFUSE_CUDA_SHARED", "0")
    off = check(sk.func, args, fuse)
    assert "_cuda.shared.array" not in off.source and "_cuda.syncthreads" not in off.source
    assert not off.promotion_decisions()
    if name != "atax":  # atax's launches have no sequential loop inside a grid: nothing to stage
        assert staged(on), on.explain_sections()


DEVICE_CASES = [  # the device's tiles (256, or 8 x 32 with 32 along x), two chunks of k or more
    ("gemm", "smart", dict(ni=9, nj=20, nk=37), "tiles 256, chunk 16"),
    ("2mm", "none", dict(ni=8, nj=11, nk=37, nl=33), "tiles 8 x 32, chunk 32"),  # x: 33 = 32 + 1
]


@pytest.mark.skipif(not SIMULATOR, reason="on a real GPU every test runs the device's configuration")
@pytest.mark.parametrize("name, fuse, sizes, tiles", DEVICE_CASES, ids=[c[0] for c in DEVICE_CASES])
def test_promoted_kernels_with_the_device_tiles(name, fuse, sizes, tiles):
    """The promoted tiles, chunks and staging a real GPU gets (POLYFUSE_CUDA_LAUNCH=device), run
    on the simulator with blocks and threads in a shuffled order, against the Python function."""
    sk = suite.KERNELS[name]
    args = sk.make_args(np.random.default_rng(1), **sizes)
    with device_launches():
        k, backend = compiled(sk.func, args, fuse)
    assert backend.launch_kind == "gpu" and tiles in backend.describe() and staged(backend)
    expected = copy_args(args)
    sk.func(*expected)
    actual = copy_args(args)
    with recorded_launches(backend) as launches, shuffled_simulator(1):
        k(*actual)
    assert_same_arrays(expected, actual, rtol=1e-9)
    assert {block for _, _, block in launches} == {(256,) if "256" in tiles else (32, 8)}, launches


@simulator_shapes
@pytest.mark.parametrize("name, fuse, sizes", [("2mm", "none", dict(ni=17, nj=9, nk=10, nl=23)),
                                               ("syrk", "none", dict(n=40, m=9))])
def test_several_blocks_and_tiles_per_block(name, fuse, sizes, monkeypatch):
    """More threads than the simulator's default 64: several blocks, each taking several tiles."""
    from polyfuse.backends.cuda import codegen as backend_module

    monkeypatch.setattr(backend_module, "SIM_MAX_THREADS", 256)
    sk = suite.KERNELS[name]
    grids = []
    original = backend_module._tiled_config
    monkeypatch.setattr(backend_module, "_tiled_config",
                        lambda *a: grids.append(original(*a)) or grids[-1])
    check(sk.func, sk.make_args(np.random.default_rng(0), **sizes), fuse)
    assert grids and all(g[0] > 1 for g, _ in grids), grids  # several blocks along x


@simulator_shapes
def test_matmul_tiles_stage_both_operands_and_keep_the_accumulator_in_a_register():
    sk = suite.KERNELS["2mm"]
    backend = check(sk.func, sk.make_args(np.random.default_rng(0), ni=9, nj=8, nk=17, nl=7), "none")
    assert {"A", "B", "tmp", "C"} <= {array for array, _ in staged(backend)}
    assert registers(backend) == {"tmp", "D"}
    a = next(d for d in backend.promotion_decisions() if d.array == "A" and d.storage == "shared")
    assert a.shape == (8, 8) and a.bytes == 512 and "reuse across threads" in a.reason
    # one shared array per source line (the simulator aliases two on one line), barriers around
    lines = [ln for ln in backend.source.splitlines() if "_cuda.shared.array" in ln]
    assert len(lines) == 4 and all(ln.count("_cuda.shared.array") == 1 for ln in lines)
    assert "_cuda.syncthreads()" in backend.source and "if _on:" in backend.source


def test_uncoalesced_rows_are_staged_and_broadcast_elements_are_not():
    sk = suite.KERNELS["mvt"]
    args = sk.make_args(np.random.default_rng(0), n=12)
    backend = check(sk.func, args)
    by_array = {d.array: d for d in backend.promotion_decisions() if d.launch == 0}
    assert by_array["A"].storage == "shared" and "not coalesced" in by_array["A"].reason
    assert by_array["x1"].storage == "register"
    # the transposed product: A[j, i] is coalesced already and y2[j] is one element per launch
    second = [d for d in backend.promotion_decisions() if d.launch == 1]
    assert all(d.storage == "global" for d in second)


# that written arrays are never staged and the buffers fit the budget is checked for every suite
# kernel and both fusion modes by test_cuda.py's test_suite_kernel_matches_python, on the kernels
# it compiles anyway (a second compile of each here cost about a tenth of this module's time)


# ---- budget, knobs, explain ----------------------------------------------------------------------

@simulator_shapes
def test_budget_shrinks_the_chunk_then_refuses(monkeypatch):
    sk = suite.KERNELS["2mm"]
    args = sk.make_args(np.random.default_rng(0), ni=9, nj=8, nk=11, nl=7)
    monkeypatch.setenv("POLYFUSE_CUDA_SHARED_BYTES", "600")  # 2 x 512 bytes at chunk 8 do not fit
    backend = check(sk.func, args, "none")
    assert all(p.chunk == 4 for p in backend.promotions.values() if p.tiled)
    assert any("chunk shrunk from 8 to 4" in d.reason for d in backend.promotion_decisions())
    monkeypatch.setenv("POLYFUSE_CUDA_SHARED_BYTES", "100")  # not even one 8 x 1 column pair
    backend = check(sk.func, args, "none")
    assert all(sum(b.nbytes for b in p.buffers()) <= 100 for p in backend.promotions.values())
    refused = [d for d in backend.promotion_decisions() if "over the shared-memory budget" in d.reason]
    assert refused and all(d.storage == "global" for d in refused)
    monkeypatch.setenv("POLYFUSE_CUDA_SHARED_BYTES", "0")
    backend = check(sk.func, args, "none")
    assert not staged(backend) and "_cuda.shared.array" not in backend.source
    assert registers(backend) == {"tmp", "D"}  # registers do not use shared memory


@simulator_shapes
def test_explain_shows_the_promotion(monkeypatch):
    sk = suite.KERNELS["matmul_bias_relu"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    explanation = polyfuse.kernel(sk.func, target="cuda", fuse="none").explain(*args)
    assert explanation["gpu promotion"][0] == "shared-memory budget: 49152 bytes per block"
    text = str(explanation)
    assert "== gpu promotion ==" in text and "A[i, k] -> shared (8, 8), 512 bytes, per chunk of loop _t2" in text
    assert "reuse across threads" in text and "gpu mapping" in text
    monkeypatch.setenv("POLYFUSE_CUDA_SHARED", "0")
    text = str(polyfuse.kernel(sk.func, target="cuda", fuse="none").explain(*args))
    assert "promotion off (POLYFUSE_CUDA_SHARED=0)" in text


# ---- register promotion: only when nothing else reaches the element -------------------------------

def test_aliased_accumulator_stays_in_memory():
    src = """
def acc_alias(A, C):
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            C[i, 0] += A[i, k] * C[i, k]
"""
    fn = define(src)
    rng = np.random.default_rng(0)
    args = (rng.random((9, 5)), rng.random((9, 5)))
    backend = check(fn, args)
    assert "C" not in registers(backend)


@simulator_shapes
def test_accumulators_and_a_group_with_a_guarded_shifted_read():
    src = """
def mm(A, B, C, D):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            C[i, j] = 0.0
            D[i, j] = 0.0
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
                D[i, j] = D[i, j] + (A[i, k - 1] if k > 0 else 0.0)
"""
    fn = define(src)
    rng = np.random.default_rng(0)
    args = (rng.random((10, 13)), rng.random((13, 9)), rng.random((10, 9)), rng.random((10, 9)))
    backend = check(fn, args, "none")
    assert registers(backend) == {"C", "D"}
    # A[i, k] and A[i, k - 1] form one group: one chunk plus the column before it (loads of
    # column -1 are skipped by the bounds guard)
    (a,) = [d for d in backend.promotion_decisions() if d.array == "A"]
    assert a.storage == "shared" and a.shape == (8, 9) and "A[i, (k - 1)]" in a.refs


# ---- affine footprints ---------------------------------------------------------------------------

def test_affine_forms_and_intervals():
    from polyfuse.model import ir

    i, k = ir.Var("i", "int64"), ir.Var("k", "int64")
    expr = ir.BinOp("-", ir.BinOp("*", ir.int_const(2), i, "int64"), ir.BinOp("+", k, ir.int_const(3), "int64"),
                    "int64")
    form = linear(expr)
    assert form == Linear.of({"i": 2, "k": -1}, -3)
    assert linear(ir.BinOp("*", i, k, "int64")) is None
    box = interval(form.substitute({"i": variable("_o") + variable("_th")}), {"_th": 8, "k": 4})
    assert box.extent == 2 * 7 + 3 + 1 and box.low == Linear.of({"_o": 2}, -3 - 3)
    assert box.low.render() == "2 * _o - 6"


@pytest.mark.parametrize("dtype, out_dtype", [(np.float32, np.float32), (np.int32, np.int64)])
def test_staged_and_register_dtypes(dtype, out_dtype):
    src = """
def masked_mm(A, B, M, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            C[i, j] = 0
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j] if M[k, j] > 0 else A[i, k]
"""
    rng = np.random.default_rng(0)
    args = ((rng.random((9, 10)) * 10).astype(dtype), (rng.random((10, 11)) * 10).astype(dtype),
            (rng.random((10, 11)) > 0.5).astype(np.int32), np.zeros((9, 11), out_dtype))
    backend = check(define(src), args, "none", rtol=1e-6)
    assert {"A", "B", "M"} <= {a for a, _ in staged(backend)} and registers(backend) == {"C"}
    assert f"_nb.{np.dtype(dtype).name})  # A" in backend.source


def test_register_limit_is_a_hard_limit(monkeypatch):
    src = """
def two_acc(A, B, C, D):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            C[i, j] = 0.0
            D[i, j] = 0.0
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
                D[i, j] += A[i, k]
"""
    monkeypatch.setattr(cuda_promote, "REGISTER_LIMIT", 1)
    rng = np.random.default_rng(0)
    args = (rng.random((5, 4)), rng.random((4, 3)), np.zeros((5, 3)), np.zeros((5, 3)))
    backend = check(define(src), args, "none")
    assert len(registers(backend)) == 1
    assert any("register limit of 1" in d.reason for d in backend.promotion_decisions())


def test_knob_reads():
    assert cuda_promote.promotion_enabled()
    assert cuda_promote.shared_budget(cuda, True) == cuda_promote.SIM_SHARED_BYTES


# ---- real GPU only -------------------------------------------------------------------------------

@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("name", ["gemm", "2mm", "matmul_bias_relu", "mvt", "attention_rows", "syrk"])
def test_real_gpu_promotion_on_and_off_agree(name, monkeypatch):
    sk = suite.KERNELS[name]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["quick"])
    expected = copy_args(args)
    polyfuse.kernel(sk.func, target="cpu", fuse="none")(*expected)
    for knob in ("1", "0"):
        monkeypatch.setenv("POLYFUSE_CUDA_SHARED", knob)
        actual = copy_args(args)
        polyfuse.kernel(sk.func, target="cuda", fuse="none")(*actual)
        assert_same_arrays(expected, actual, rtol=1e-9, atol=1e-9)


# ---- random programs across block boundaries; GPU-sized decisions --------------------------------

@settings(max_examples=12, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(prog=programs(), n=st.sampled_from([5, 9]), fuse=st.sampled_from(["smart", "none"]),
       seed=st.integers(0, 2**16))
def test_random_programs_with_promotion_match_the_python_function(prog, n, fuse, seed):
    cuda_matches_python_function(prog, n, fuse, seed)


@pytest.mark.parametrize("name, fuse", [("2mm", "none"), ("mvt", "smart"), ("attention_rows", "none"),
                                        ("conv_bn_relu", "smart"), ("gemm", "smart")])
def test_gpu_sized_decisions_fit_48k(name, fuse):
    """The decisions a real GPU would get (256 or 32 x 8 threads, chunks of 32), made here."""
    sk = suite.KERNELS[name]
    _, backend = compiled(sk.func, sk.make_args(np.random.default_rng(0), **sk.sizes["test"]), fuse)
    for launch in backend.plan.launches:
        promo = cuda_promote.promote(backend.program, launch, kind="gpu", budget=48 * 1024, enabled=True)
        assert sum(b.nbytes for b in promo.buffers()) <= 48 * 1024
        if promo.tiled:
            assert promo.block in ((256,), (32, 8), (8, 32)) and promo.chunk in (32, 16, 8)
    if name == "mvt":  # A's 256 x 32 doubles (64 KiB) do not fit: chunk 16
        promo = cuda_promote.promote(backend.program, backend.plan.launches[0], kind="gpu",
                                     budget=48 * 1024, enabled=True)
        assert promo.chunk == 16 and promo.buffers()[0].shape == (256, 16)


def test_device_budget_and_override(monkeypatch):
    class Device:
        MAX_SHARED_MEMORY_PER_BLOCK = 12345

    class FakeCuda:
        @staticmethod
        def get_current_device():
            return Device()

    assert cuda_promote.shared_budget(FakeCuda, simulator=False) == 12345
    monkeypatch.setenv("POLYFUSE_CUDA_SHARED_BYTES", "4096")
    assert cuda_promote.shared_budget(FakeCuda, simulator=False) == 4096


@given(coefs=st.lists(st.integers(-3, 3), min_size=1, max_size=3), const=st.integers(-5, 5),
       extents=st.lists(st.integers(1, 5), min_size=3, max_size=3))
def test_interval_holds_every_value_and_is_tight(coefs, const, extents):
    import itertools

    names = [f"u{k}" for k in range(len(coefs))]
    form = Linear.of(dict(zip(names, coefs)), const)
    ext = dict(zip(names, extents))
    box = interval(form, ext)
    values = [const + sum(c * v for c, v in zip(coefs, point))
              for point in itertools.product(*(range(ext[n]) for n in names))]
    assert box.low.const == min(values) and box.low.const + box.extent - 1 == max(values)


SUBSCRIPTS = ("i", "j", "k", "k + 1", "i + k", "2 * k", "j + k", "n - 1 - k", "0")


@st.composite
def contractions(draw):
    """``C[i, j] += A[..] * B[..]`` nests in any loop order, subscripts drawn from affine forms
    of the loops (shifts, diagonals, strides, reversals, broadcasts), some with a second group."""
    order = draw(st.permutations(["i", "j", "k"]))
    sub = [draw(st.sampled_from(SUBSCRIPTS)) for _ in range(5)]
    shifted = draw(st.booleans())
    extra = f" + A[{sub[0]}, {sub[4]}]" if shifted else ""
    lines = ["def kern(n, A, B, C):"]
    for depth, var in enumerate(order):
        lines.append(f"{'    ' * (depth + 1)}for {var} in range(n):")
    lines.append(f"{'    ' * 4}C[i, j] += A[{sub[0]}, {sub[1]}] * B[{sub[2]}, {sub[3]}]{extra}")
    return "\n".join(lines) + "\n"


@settings(max_examples=15, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(src=contractions(), n=st.sampled_from([5, 9, 13]), fuse=st.sampled_from(["smart", "none"]))
def test_random_contractions_with_staged_groups_match_python(src, n, fuse):
    note(src)
    fn = define(src, "kern")
    rng = np.random.default_rng(n)
    ext = 3 * n + 2
    args = (n, rng.random((ext, ext)), rng.random((ext, ext)), rng.random((n, n)))
    expected, actual = copy_args(args), copy_args(args)
    fn(*expected)
    polyfuse.kernel(fn, target="cuda", fuse=fuse)(*actual)
    assert_same_arrays(expected, actual, rtol=1e-9, names=["n", "A", "B", "C"])
