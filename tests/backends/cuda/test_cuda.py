"""The CUDA backend (target="cuda"), on numba's CUDA simulator unless a real GPU was asked for.

This module turns the simulator on before numba.cuda is imported (tests/conftest.py may do it
earlier for the whole session).  The simulator
runs every GPU thread as a Python thread, so sizes stay tiny; ``@pytest.mark.gpu`` tests need a
real GPU (``POLYFUSE_TEST_GPU=1 pytest -m gpu``) and are skipped here.
"""

from __future__ import annotations

import os
import sys

# numba chooses the simulator or the driver when numba.cuda is first imported: choose now.
# NUMBA_ENABLE_CUDASIM=0 or POLYFUSE_TEST_GPU=1 keep the real GPU (``pytest -m gpu``).
if "NUMBA_ENABLE_CUDASIM" not in os.environ and os.environ.get("POLYFUSE_TEST_GPU", "") in ("", "0"):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    if "numba.cuda" not in sys.modules and "numba.core.config" in sys.modules:
        sys.modules["numba.core.config"].ENABLE_CUDASIM = 1  # numba itself was imported before us

import inspect
import linecache
import logging
import math
import warnings

import numpy as np
import pytest
from conftest import assert_same_arrays, copy_args, define
from hypothesis import HealthCheck, given, note, reject, settings
from hypothesis import strategies as st
from program_gen import programs
from simulator_order import device_launches, recorded_launches, shuffled_simulator

import polyfuse
from polyfuse.bench import suite

cuda = pytest.importorskip("numba.cuda")
from numba import config as numba_config  # noqa: E402

SIMULATOR = bool(numba_config.ENABLE_CUDASIM)
if not SIMULATOR and not cuda.is_available():
    pytest.skip("no CUDA GPU and the simulator is off (numba.cuda was imported first?)", allow_module_level=True)

REAL_GPU = not SIMULATOR and cuda.is_available()
gpu = pytest.mark.gpu
needs_gpu = pytest.mark.skipif(not REAL_GPU, reason="needs a real CUDA GPU (the simulator is on or no GPU)")

KERNELS = list(suite.KERNELS)
CORE = ["gemm", "atax", "jacobi-2d", "chain3", "matmul_bias_relu", "softmax"]


def run_both(func, args, *, fuse="smart", rtol=1e-9, kernel=None):
    k = kernel or polyfuse.kernel(func, target="cuda", fuse=fuse, verify=True)
    expected = copy_args(args)
    func(*expected)
    actual = copy_args(args)
    assert k(*actual) is None
    assert_same_arrays(expected, actual, rtol=rtol, names=list(inspect.signature(func).parameters))
    return k, actual


def backend_of(k, *args):
    return k.compile(*args).backend


# ---- differential: the suite against the plain Python function ----------------------------------

@pytest.mark.parametrize("fuse", ["smart", "none"])
@pytest.mark.parametrize("name", KERNELS)
def test_suite_kernel_matches_python(name, fuse):
    sk = suite.KERNELS[name]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    k, _ = run_both(sk.func, args, fuse=fuse)
    # a second call with other values reuses the compiled kernels
    run_both(sk.func, sk.make_args(np.random.default_rng(1), **sk.sizes["test"]), kernel=k)
    assert len(k.signatures) == 1
    assert_written_arrays_never_staged(backend_of(k, *args), (name, fuse))


def assert_written_arrays_never_staged(backend, label) -> None:
    """No promoted buffer holds an array its launch writes, and each
    launch's buffers fit its budget (backends/cuda/promote.py)."""
    from polyfuse.model.loop_ast import statements_in

    for promo in backend.promotions.values():
        launch = backend.plan.launches[promo.launch]
        written = {backend.program.statement(s).array for s in statements_in(launch.node)}
        assert not {b.array for b in promo.buffers()} & written, label
        assert sum(b.nbytes for b in promo.buffers()) <= promo.budget, label


def test_core_kernels_are_in_the_suite():
    assert set(CORE) <= set(KERNELS)


#: Sizes at which the device's launch configuration differs from the simulator's small grids
#: (at most SIM_MAX_THREADS threads): 256-thread blocks (promoted tiles: gemm, matmul_bias_relu,
#: softmax; a 1-D grid of two blocks: atax, chain3) and 32 x 8 blocks (jacobi-2d).  atax launches
#: its two-block update of ``y`` once per row of ``A``: two rows run it twice, the second adding to
#: what the first left, as nine did (m=9: 14-28 s of wall on the shuffled simulator, m=2: 3-7 s,
#: load 11-15; the same launch configurations)
DEVICE_SIZES = {"gemm": None, "atax": dict(m=2, n=300), "jacobi-2d": dict(tsteps=1, n=34),
                "chain3": dict(n=300), "matmul_bias_relu": None, "softmax": None}


@pytest.mark.skipif(not SIMULATOR, reason="on a real GPU every test runs the device's configuration")
@pytest.mark.parametrize("name", CORE)
def test_core_kernels_with_the_device_launch_configuration(name):
    """What a real GPU runs (POLYFUSE_CUDA_LAUNCH=device: 256 or 32 x 8 threads per block, the
    device's promoted tiles) on the simulator, blocks and threads in a shuffled order, against the
    Python function; the recorded launches show the device's block shapes really ran."""
    sk = suite.KERNELS[name]
    args = sk.make_args(np.random.default_rng(3), **(DEVICE_SIZES[name] or sk.sizes["test"]))
    with device_launches():
        k = polyfuse.kernel(sk.func, target="cuda", verify=True)
        backend = backend_of(k, *args)
    assert backend.launch_kind == "gpu"
    with recorded_launches(backend) as launches, shuffled_simulator(3):
        run_both(sk.func, args, kernel=k)
    blocks = {block for _, _, block in launches}
    assert max(math.prod(b) for b in blocks) == 256, launches  # above the simulator's 64
    assert blocks <= {(1,), (256,), (32, 8), (8, 32)}, blocks


# ---- differential: random programs against the Python function --------------------------------
# Each program runs with the small test launch configuration and, with ``shuffled=True``, again
# with the configuration a real GPU gets (POLYFUSE_CUDA_LAUNCH=device) while the simulator runs
# blocks and threads in a shuffled order (simulator_order): an order-dependent (racy) kernel
# then differs from the plain function.

@settings(max_examples=15, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(prog=programs(), n=st.integers(0, 6), fuse=st.sampled_from(["smart", "none", "max"]),
       seed=st.integers(0, 2**16))
def test_random_programs_match_the_python_function(prog, n, fuse, seed):
    cuda_matches_python_function(prog, n, fuse, seed, shuffled=True, verify=True)


def cuda_matches_python_function(prog, n: int, fuse: str, seed: int, *, shuffled: bool = False,
                                 **options) -> None:
    """Run a generated program on target="cuda" (with ``options``) and as plain Python."""
    note(prog.source)
    fn = define(prog.source, "kern")
    args = prog.make_args(np.random.default_rng(seed), n)
    expected = copy_args(args)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(*expected)
        except (ArithmeticError, ValueError):
            reject()  # the function itself fails on these values: nothing to compare
    rtol, atol = prog.tolerance
    names = ["n", "alpha"] + [a.name for a in prog.arg_arrays]
    for device_order in (False, True) if shuffled else (False,):
        actual = copy_args(args)
        note(f"fuse={fuse} n={n} " + ("device launches, shuffled order" if device_order else "test launches"))
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                if device_order:
                    with device_launches():
                        kernel = polyfuse.kernel(fn, target="cuda", fuse=fuse, **options)
                        kernel.compile(*actual)
                    with shuffled_simulator(seed):
                        kernel(*actual)
                else:
                    polyfuse.kernel(fn, target="cuda", fuse=fuse, **options)(*actual)
            except (ArithmeticError, ValueError):
                if not SIMULATOR:
                    raise
                reject()  # the simulator evaluates math.* on Python floats: math.sqrt(-1) raises
        assert_same_arrays(expected, actual, rtol=rtol, atol=atol, names=names)


def test_host_bounds_are_cached_by_value_not_by_identity():
    """Regression (outside runs: wrong trip counts and NameErrors that looked like races): the host
    driver cached compiled bound expressions by id(); a freed temporary bound's id was reused by
    another expression, which then ran the first one's code.  Two fresh, different temporaries in
    a row must each give their own value."""
    from polyfuse.backends.cuda.codegen import CudaKernel

    from polyfuse.model import ir

    host = CudaKernel.__new__(CudaKernel)
    host._host_code = {}
    n = ir.Var("n", ir.INT)
    for k in range(300):
        first = host._eval(ir.BinOp("+", n, ir.int_const(1), ir.INT, True), {"n": k})
        second = host._eval(ir.BinOp("*", n, ir.int_const(3), ir.INT, True), {"n": k})
        assert (first, second) == (k + 1, 3 * k)


# ---- how loops map to the GPU ------------------------------------------------------------------

def test_stencil_time_loop_runs_on_the_host():
    sk = suite.KERNELS["jacobi-2d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    backend = backend_of(polyfuse.kernel(sk.func, target="cuda"), *args)
    launches = backend.plan.launches
    assert len(launches) == 2 and all(launch.parallel for launch in launches)
    assert all(len(launch.mapped) == 2 and launch.host_vars for launch in launches)
    # A[i, j]: j (the inner loop) is the stride-1 subscript, so it runs along threadIdx.x
    assert all(launch.x == 1 for launch in launches)
    assert "host loop" in backend.describe()


def test_coalescing_picks_the_stride_one_loop():
    src = """
def transpose_add(A, B, C):
    for j in range(A.shape[1]):
        for i in range(A.shape[0]):
            C[i, j] = A[i, j] + B[i, j]
"""
    fn = define(src)
    rng = np.random.default_rng(0)
    args = (rng.random((5, 7)), rng.random((5, 7)), np.zeros((5, 7)))
    k, _ = run_both(fn, args)
    backend = backend_of(k, *args)
    (launch,) = backend.plan.launches
    assert len(launch.mapped) == 2
    # whichever loop order the scheduler kept, the loop that runs j (last subscript) is on x
    (call,) = _stmt_calls(launch.node)
    stmt = backend.program.statement(call.statement)
    j_loop = {v.name for v in _vars(call.args[stmt.iterators.index("j")])}
    assert j_loop == {launch.mapped[launch.x].iterator}


def _stmt_calls(node):
    from polyfuse.model.loop_ast import StmtCall, nodes

    return [n for n in nodes(node) if isinstance(n, StmtCall)]


def _vars(expr):
    from polyfuse.model import ir

    return [e for e in ir.walk(expr) if isinstance(e, ir.Var)]


def test_sequential_phase_runs_single_threaded_and_says_so(caplog):
    sk = suite.KERNELS["seidel-2d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    with caplog.at_level(logging.INFO, logger="polyfuse.cuda"):
        k, _ = run_both(sk.func, args)
    backend = backend_of(k, *args)
    assert not any(launch.parallel for launch in backend.plan.launches)
    assert "SINGLE THREAD <<<1, 1>>>" in backend.source
    assert "single GPU thread" in caplog.text


def test_parametric_private_arrays_use_per_thread_scratch():
    sk = suite.KERNELS["attention_rows"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    k, _ = run_both(sk.func, args, fuse="smart")
    backend = backend_of(k, *args)
    assert backend.storage.scratch == {"S", "P"}
    assert "P = P__scratch[_tid]" in backend.source


def test_constant_private_arrays_use_cuda_local_arrays():
    src = """
def rows(A, out):
    T = np.empty((A.shape[0], 4))
    for i in range(A.shape[0]):
        for k in range(4):
            T[i, k] = A[i, k] * (k + 1)
        for k in range(4):
            out[i] += T[i, k] * T[i, 3 - k]
"""
    fn = define(src)
    rng = np.random.default_rng(0)
    args = (rng.random((6, 4)), rng.random(6))
    k, _ = run_both(fn, args)
    backend = backend_of(k, *args)
    assert backend.storage.local == {"T": (4,)}
    assert "_cuda.local.array((4,), _nb.float64)" in backend.source


def test_cross_launch_scalar_lives_in_device_memory():
    src = """
def norm_then_scale(x, out):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    for i in range(x.shape[0]):
        out[i] = x[i] / math.sqrt(s)
"""
    fn = define(src)
    args = (np.arange(1.0, 10.0), np.zeros(9))
    k, _ = run_both(fn, args, fuse="none")
    backend = backend_of(k, *args)
    assert "s" in backend.storage.cells
    assert "s[0]" in backend.source


def test_generated_source_is_in_linecache():
    sk = suite.KERNELS["chain3"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    backend = backend_of(polyfuse.kernel(sk.func, target="cuda"), *args)
    kernel = backend.kernels[0]
    fn = getattr(kernel, "py_func", None) or getattr(kernel, "fn", None)
    filename = fn.__code__.co_filename
    assert filename.startswith("<polyfuse-cuda-chain3")
    assert "".join(linecache.getlines(filename)) == backend.source


# ---- dtypes and operators ----------------------------------------------------------------------

def test_integer_and_float32_semantics_match_the_python_backend():
    src = """
def ops(n, A, B, X, Y):
    for i in range(n):
        B[i] = A[i] // 3 + A[i] % 5 - (A[i] - 7) // 2 + (-A[i]) % 4 + min(A[i], 3) * max(A[i], -2)
    for i in range(n):
        Y[i] = X[i] * 0.5 + math.sqrt(abs(X[i])) - math.floor(X[i]) + math.ceil(X[i] * 2.0)
"""
    fn = define(src)
    rng = np.random.default_rng(0)
    args = (8, rng.integers(-20, 20, 8).astype(np.int32), np.zeros(8, np.int32),
            (rng.random(8) * 10 - 5).astype(np.float32), np.zeros(8, np.float32))
    expected = copy_args(args)
    polyfuse.kernel(fn, target="python")(*expected)
    actual = copy_args(args)
    polyfuse.kernel(fn, target="cuda")(*actual)
    assert_same_arrays(expected, actual, rtol=1e-6)


def test_floor_division_and_modulo_by_zero_give_zero_like_numpy():
    src = """
def divs(n, d, A, B):
    for i in range(n):
        B[i] = A[i] // d + A[i] % d
"""
    fn = define(src)
    A = np.arange(-4, 4, dtype=np.int64)
    B = np.ones(8, dtype=np.int64)
    polyfuse.kernel(fn, target="cuda")(8, 0, A, B)
    assert (B == 0).all()


def _float_op_as_numpy(op: str) -> None:
    """``C[i] = A[i] op B[i]`` on every pair of a pool of special and ordinary floats, on the
    cuda target against the Python function: equal values, and zeros of equal sign."""
    fn = define(f"def f(n, A, B, C):\n    for i in range(n):\n        C[i] = A[i] {op} B[i]\n")
    pool = [1.0, -1.0, 0.0, -0.0, 0.1, -0.1, 3.0, 7.5, np.inf, -np.inf, np.nan, 1e-300]
    A, B = (np.ascontiguousarray(g.ravel()) for g in np.meshgrid(pool, pool))
    expected, actual = np.zeros_like(A), np.zeros_like(A)
    with np.errstate(all="ignore"):
        fn(A.size, A, B, expected)
        polyfuse.kernel(fn, target="cuda")(A.size, A, B, actual)
    np.testing.assert_array_equal(actual, expected)
    number = ~np.isnan(expected)  # zeros keep their sign; a NaN's sign means nothing
    np.testing.assert_array_equal(np.signbit(actual[number]), np.signbit(expected[number]))


def test_float_floor_division_is_numpys_divmod():
    """``1.0 // 0.1`` is 9.0 in Python and numpy (the remainder is 0.0999...), where
    ``floor(1.0 / 0.1)`` is 10.0; ``inf // 2.0`` is NaN; by zero ``a / b``."""
    _float_op_as_numpy("//")


def test_float_modulo_is_numpys_divmod():
    """``a % b`` of floats as numpy: the sign of ``b`` (a zero's too), NaN for an infinite or NaN ``a`` and for
    ``b == 0`` (the simulator's ``math.fmod`` raises on those), ``a`` itself for an infinite ``b``
    of its sign."""
    _float_op_as_numpy("%")


# ---- arrays: copies, device arrays, layouts ----------------------------------------------------

def test_only_written_numpy_arrays_are_copied_back():
    sk = suite.KERNELS["chain3"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    k, _ = run_both(sk.func, args)
    backend = backend_of(k, *args)
    assert backend.last_transfers.to_device == ["A", "B", "out"]
    assert backend.last_transfers.to_host == ["out"]


def test_device_arrays_are_used_in_place_without_copies():
    sk = suite.KERNELS["gemm"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    expected = copy_args(args)
    sk.func(*expected)
    device = tuple(cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in args)
    k = polyfuse.kernel(sk.func, target="cuda")
    k(*device)
    backend = backend_of(k, *device)
    assert backend.last_transfers.to_device == [] and backend.last_transfers.to_host == []
    np.testing.assert_allclose(device[5].copy_to_host(), expected[5], rtol=1e-9)
    # numpy and device arrays mixed: only the numpy ones move
    mixed = list(copy_args(args))
    mixed[6] = cuda.to_device(mixed[6])
    k(*mixed)
    assert backend.last_transfers.to_device == ["C", "B"]
    np.testing.assert_allclose(mixed[5], expected[5], rtol=1e-9)


def test_device_array_signature():
    from polyfuse.runtime.signature import argument_of

    arg = argument_of("A", cuda.to_device(np.zeros((3, 4), np.float32)))
    assert (arg.kind, arg.dtype, arg.rank, arg.layout) == ("array", "float32", 2, "C")
    with pytest.raises(polyfuse.ArgumentError, match="dtype float16"):
        argument_of("A", cuda.to_device(np.zeros(3, np.float16)))


def test_non_contiguous_numpy_arguments_are_copied_and_written_back():
    sk = suite.KERNELS["chain3"]
    A, B, out = sk.make_args(np.random.default_rng(0), n=22)
    big = np.zeros(44)
    view = big[::2]
    expected = out.copy()
    sk.func(A[::2], B[::2], expected[:11])
    polyfuse.kernel(sk.func, target="cuda")(A[::2], B[::2], view[:11])
    np.testing.assert_allclose(big[:22:2], expected[:11], rtol=1e-9)
    assert (big[1::2] == 0).all()


def test_empty_iteration_space_launches_nothing():
    sk = suite.KERNELS["chain3"]
    A, B, out = (np.zeros(0), np.zeros(0), np.zeros(0))
    k = polyfuse.kernel(sk.func, target="cuda")
    backend = backend_of(k, A, B, out)
    with recorded_launches(backend) as launches:
        assert k(A, B, out) is None
    assert launches == [] and out.shape == (0,)
    # the same compiled kernel at a non-empty size does launch (the record sees launches)
    args = sk.make_args(np.random.default_rng(0), n=5)
    with recorded_launches(backend) as launches:
        run_both(sk.func, args, kernel=k)
    assert len(launches) == 1


# ---- errors ------------------------------------------------------------------------------------

def test_clear_error_without_gpu_or_simulator(monkeypatch):
    from polyfuse.backends.cuda import codegen as backend

    monkeypatch.setattr(numba_config, "ENABLE_CUDASIM", 0)
    monkeypatch.setattr(cuda, "is_available", lambda: False)
    sk = suite.KERNELS["chain3"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    with pytest.raises(polyfuse.UnsupportedError, match="no usable CUDA GPU.*NUMBA_ENABLE_CUDASIM=1"):
        polyfuse.kernel(sk.func, target="cuda")(*args)
    with pytest.raises(polyfuse.UnsupportedError):
        backend.cuda_api()


def test_unknown_target_lists_cuda():
    with pytest.raises(polyfuse.ArgumentError, match="cuda"):
        polyfuse.kernel(lambda: None, target="gpu")


# ---- real GPU only -----------------------------------------------------------------------------

@gpu
@needs_gpu
@pytest.mark.parametrize("name", CORE + ["attention_rows", "heat-3d", "conv_bn_relu"])
def test_real_gpu_quick_sizes(name):
    sk = suite.KERNELS[name]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["quick"])
    k = polyfuse.kernel(sk.func, target="cuda", fuse="smart")
    expected = copy_args(args)
    polyfuse.kernel(sk.func, target="cpu", fuse="smart")(*expected)
    actual = copy_args(args)
    k(*actual)
    assert_same_arrays(expected, actual, rtol=1e-9, atol=1e-9)


@gpu
@needs_gpu
def test_real_gpu_device_arrays_in_place():
    sk = suite.KERNELS["chain3"]
    args = sk.make_args(np.random.default_rng(0), n=1 << 20)
    expected = copy_args(args)
    polyfuse.kernel(sk.func, target="cpu")(*expected)
    device = tuple(cuda.to_device(a) for a in args)
    polyfuse.kernel(sk.func, target="cuda")(*device)
    np.testing.assert_allclose(device[2].copy_to_host(), expected[2], rtol=1e-12)
    assert math.isfinite(float(device[2].copy_to_host().sum()))


def test_complex_values_are_refused_with_the_dtype_and_line():
    def caxpy(a, x, y):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    x = np.ones(4, np.complex64)
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_cuda.py:\d+:.*complex64 values are not supported by "
                       "target='cuda'"):
        polyfuse.kernel(caxpy, target="cuda")(np.complex64(2), x, x.copy())


def test_asserts_checked_at_run_time_are_refused_with_the_line():
    def checked(x, y):
        for i in range(x.shape[0]):
            y[i] = 2.0 * x[i]
            assert y[i] < 10.0, "big"

    x = np.ones(4)
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_cuda.py:\d+:.*an assert checked at run time .* not "
                       "supported by target='cuda'"):
        polyfuse.kernel(checked, target="cuda")(x, x.copy())


def test_reads_of_a_maybe_unbound_local_are_refused_at_the_read():
    """Python's UnboundLocalError is a run-time check (frontend/unbound_locals.py) the device
    does not record: refused at the line of the read."""
    def carried(x, y):
        for i in range(x.shape[0]):
            if x[i] > 0.5:
                w = x[i]
            y[i] += w

    line = inspect.getsourcelines(carried)[1] + 4
    with pytest.raises(polyfuse.UnsupportedError, match=rf"test_cuda.py:{line}:.*local variable 'w'.*UnboundLocalError"
                       r".* not supported by target='cuda'"):
        polyfuse.kernel(carried, target="cuda")(np.ones(4), np.zeros(4))
