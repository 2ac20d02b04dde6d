"""Shared fixtures and helpers for the polyfuse test suite."""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import linecache
import math
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# numba's CUDA simulator unless a real GPU run is asked for; must precede the first numba import
if "NUMBA_ENABLE_CUDASIM" not in os.environ and os.environ.get("POLYFUSE_TEST_GPU", "") in ("", "0"):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

# Compile cold in every session: a per-session disk cache, so a cached kernel from an earlier run
# (or from the user's ~/.cache) never hides a compiler change.  Set before polyfuse is used.
# Each test process (pytest-xdist worker) gets its own, so that no test finds a kernel another
# process compiled; a folder the user set is kept.
if "POLYFUSE_CACHE_DIR" not in os.environ or os.environ.get("_POLYFUSE_TEST_CACHE_DIR") == "1":
    os.environ["POLYFUSE_CACHE_DIR"] = tempfile.mkdtemp(prefix="polyfuse-test-cache-")
    os.environ["_POLYFUSE_TEST_CACHE_DIR"] = "1"

# The compile's CPU-time safety net (POLYFUSE_COMPILE_SECONDS) makes what a compile decides depend
# on the machine's speed; tests compare schedules and code, so they get a far one.  The tests of the
# deadline itself (tests/end_to_end/test_regressions.py and test_compile_deadline.py) set
# the default back.
os.environ.setdefault("POLYFUSE_COMPILE_SECONDS", "120")

import polyfuse  # noqa: E402

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def has_cpu_backend() -> bool:
    """The LLVM backend (target="cpu") is importable."""
    try:
        return importlib.util.find_spec("polyfuse.backends.cpu.llvm") is not None
    except (ImportError, ValueError):
        return False


HAS_CPU = has_cpu_backend()
TARGETS = ["python", pytest.param("cpu", marks=pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py yet"))]
FUSES = ["none", "smart", "max"]


@pytest.fixture(params=TARGETS)
def target(request):
    return request.param


@pytest.fixture(params=FUSES)
def fuse(request):
    return request.param


def corpus_kernel(batch: str, name: str):
    """The function ``name`` of the corpus module ``tests/corpus/<batch>.py``, for a test elsewhere
    that checks more about one of its kernels (its module imports ``corpus_case`` from there)."""
    corpus = str(Path(__file__).parent / "corpus")
    if corpus not in sys.path:
        sys.path.insert(0, corpus)
    return getattr(importlib.import_module(batch), name)


_serial = itertools.count()


def define(src: str, name: str | None = None, namespace: dict | None = None):
    """exec ``src`` (one or more defs) under a unique fake filename registered in linecache.

    Returns the function called ``name`` (default: the first def), whose source
    ``inspect.getsource`` can find, so polyfuse can compile it.
    """
    filename = f"<polyfuse-test-{next(_serial)}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = {"np": np, "math": math}
    if namespace:
        ns.update(namespace)
    exec(compile(src, filename, "exec"), ns)  # noqa: S102 - test-generated code
    if name is None:
        name = src.split("def ", 1)[1].split("(", 1)[0].strip()
    return ns[name]


@contextlib.contextmanager
def threads_forced():
    """Every parallel phase and parallel region goes to the team of threads once measured,
    whatever its size and however fast the team turns out (the serial-first rule of
    ``backends/cpu/parallel.py`` would keep the small sizes of the tests serial); the thread count
    and the rule are restored after.  Tests check ``phase_runs`` / ``region_runs`` of the backend
    to see that the team really ran."""
    from polyfuse.backends.cpu import parallel

    from polyfuse.runtime import threads

    saved = (parallel.MIN_PARALLEL_SECONDS, parallel.REGION_MIN_SECONDS_PER_BARRIER,
             parallel.RegionTimes.use_team, threads._num_threads)
    parallel.MIN_PARALLEL_SECONDS = 0.0  # phases: the measured chunk run is always "worth threads"
    parallel.REGION_MIN_SECONDS_PER_BARRIER = 0.0  # regions: so is any work per barrier
    parallel.RegionTimes.use_team = lambda times: times.worth_threads  # never back to serial
    try:
        yield parallel
    finally:
        (parallel.MIN_PARALLEL_SECONDS, parallel.REGION_MIN_SECONDS_PER_BARRIER,
         parallel.RegionTimes.use_team, threads._num_threads) = saved
        threads.THREADS_EPOCH.value += 1  # (as set_num_threads: native entries made in the block check it)


@pytest.fixture
def num_threads():
    """``threads.set_num_threads`` for the rest of one test: call it with a count; the count the
    test found is put back after it (``threads.limited_to``), as ``thread_policy_kept`` checks."""
    from polyfuse.runtime import threads

    with contextlib.ExitStack() as stack:
        yield lambda count: stack.enter_context(threads.limited_to(count))


@pytest.fixture
def forced():
    """``threads_forced()`` for one test."""
    with threads_forced() as parallel:
        yield parallel


def team_runs(backend) -> int:
    """Calls of this LLVM backend's phases and regions that ran on a team of threads."""
    return sum(backend.phase_runs.values()) + sum(backend.region_runs.values())


def assert_regions_ran(backend, runs: int) -> None:
    """Every parallel region of this LLVM backend ran ``runs`` calls on the team, except one whose
    serial measurement met no barrier (its parallel loops are empty at the sizes called, as
    fdtd-2d's second time-tiled phase at the suite's test sizes) or no parallel loop (jacobi-1d's
    whole-row side at the test sizes: its sweeps fused into one serial row loop), or one never
    called because its loop has no iteration at the sizes called (llvm.runs_nothing: no function
    of it generated); at least one ran if any was measured worth a team."""
    from polyfuse.backends.cpu.llvm import phase_name, runs_nothing

    regions = [p.index for p in backend.artifact.phases if p.is_region]
    # the integer arguments of the calls measured (region_times keys: (phase, threads, *sizes)),
    # by name: a backend loaded from the disk cache generates nothing, so ask runs_nothing
    names = [backend.params[k].name for k in backend.int_positions]
    called = [dict(zip(names, key[2:])) for key in backend.region_times]
    for phase in backend.artifact.phases:
        functions = {phase_name(backend.artifact.name, phase), phase_name(backend.artifact.name, phase, region=True)}
        if phase.is_region and (not functions & set(backend.generated) and not backend.known
                                or called and all(runs_nothing(phase, sizes) for sizes in called)):
            regions.remove(phase.index)  # never called (runs nothing at these sizes)
    worth = []
    for index in regions:
        measured = [t for key, t in backend.region_times.items() if key[0] == index]
        assert measured, f"region {index} was never measured on more than one thread"
        if any(t.worth_threads for t in measured):
            assert backend.region_runs.get(index) == runs, (index, backend.region_runs)
            worth.append(index)
    assert set(backend.region_runs) <= set(regions)
    assert bool(backend.region_runs) == bool(worth), backend.region_runs


@contextlib.contextmanager
def einsum_compiled(fallback_work: int = -1):
    """polyfuse.einsum runs its own code (BLAS, staged steps or the generated kernel) for every
    call inside, however small (``FALLBACK_WORK``), with plans made before set aside; yields the
    list of the plan kinds the calls ran ("kernel", "blas", "staged", or "numpy"), so that a test
    can assert that what it compared with numpy was not numpy itself."""
    import importlib

    einsum = importlib.import_module("polyfuse.tensor.einsum")
    einsum_plan = importlib.import_module("polyfuse.tensor.einsum_plan")
    saved = (einsum_plan.FALLBACK_WORK, einsum._plans, einsum._run)
    ran: list[str] = []

    def run(plan, *args, **kwargs):
        result = saved[2](plan, *args, **kwargs)
        ran.append(plan.kind)  # after the call: a call that raised ran nothing to compare
        return result

    einsum_plan.FALLBACK_WORK, einsum._plans, einsum._run = fallback_work, {}, run
    try:
        yield ran
    finally:
        einsum_plan.FALLBACK_WORK, einsum._plans, einsum._run = saved


def compiled_suite_kernel(name: str):
    """A suite kernel at its test sizes, compiled without the disk cache:
    (spec, args, kernel, variant)."""
    from polyfuse.bench import suite

    spec = suite.get(name)
    args = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    kernel = polyfuse.kernel(spec.func, cache=False)
    return spec, args, kernel, kernel.compile(*args)


def copy_args(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def assert_same_result(expected, actual, scalar_rtol=0.0, array_rtol=0.0):
    """A returned value (a tuple item by item) of the undecorated function's type, dtype and
    shape, with its elements: arrays equal (within ``array_rtol``, NaN where NaN), scalars within
    ``scalar_rtol`` (0: equal)."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for e, a in zip(expected, actual):
            assert_same_result(e, a, scalar_rtol, array_rtol)
        return
    assert type(actual) is type(expected)
    if isinstance(expected, np.ndarray):
        assert (actual.dtype, actual.shape) == (expected.dtype, expected.shape)
        if array_rtol:
            np.testing.assert_allclose(actual, expected, rtol=array_rtol, equal_nan=True)
        else:
            np.testing.assert_array_equal(actual, expected)
    elif scalar_rtol:
        np.testing.assert_allclose(actual, expected, rtol=scalar_rtol)
    else:
        np.testing.assert_array_equal(actual, expected)


def assert_same_arrays(expected, actual, rtol=1e-9, atol=1e-12, names=None):
    for pos, (e, a) in enumerate(zip(expected, actual)):
        if not isinstance(e, np.ndarray):
            continue
        label = names[pos] if names else f"arg {pos}"
        assert a.dtype == e.dtype, f"{label}: dtype {a.dtype} != {e.dtype}"
        if np.issubdtype(e.dtype, np.integer):
            np.testing.assert_array_equal(a, e, err_msg=label)
        else:
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=label)


def ulps_against_libm(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Error in units in the last place of the expected value; where that is 0, infinite or NaN
    the element must be libm's exactly (the sign of a zero too)."""
    finite = np.isfinite(expected) & (expected != 0)
    np.testing.assert_array_equal(actual[~finite], expected[~finite])
    zero = expected == 0
    np.testing.assert_array_equal(np.signbit(actual[zero]), np.signbit(expected[zero]))
    ulps = np.zeros(expected.shape)
    ulps[finite] = np.abs(actual[finite] - expected[finite]) / np.spacing(np.abs(expected[finite]))
    return ulps


def check_against_python(fn, args, *, target="python", fuse="smart", rtol=1e-9, atol=1e-12, kernel=None):
    """Run ``fn`` plainly and compiled on copies of ``args``; compare every array argument."""
    k = kernel or polyfuse.kernel(fn, target=target, fuse=fuse, verify=True)
    expected = copy_args(args)
    fn(*expected)
    actual = copy_args(args)
    k(*actual)
    assert_same_arrays(expected, actual, rtol=rtol, atol=atol)
    return k


@contextlib.contextmanager
def lift_reused():
    """The variants of one program (fusion modes, targets) compiled inside share one lift, scalar
    check and dependence analysis (``POLYFUSE_LIFT_MEMO``, polyfuse/lift_memo.py): a third of
    their compiles' CPU.  The rest of each compile, and every check, runs as before; at the
    default isl budgets the reused front half changed no loop code of the corpus or the suite
    kernels.  ``POLYFUSE_LIFT_MEMO=0`` in the environment compiles every variant cold."""
    saved = os.environ.get("POLYFUSE_LIFT_MEMO")
    os.environ["POLYFUSE_LIFT_MEMO"] = saved if saved is not None else "1"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["POLYFUSE_LIFT_MEMO"]


def _polyfuse_variables() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name.startswith("POLYFUSE_")}


@pytest.fixture(autouse=True)
def polyfuse_variables_kept():
    """Every test leaves the ``POLYFUSE_*`` variables as it found them (it sets them through
    ``monkeypatch`` or ``lift_reused()``): one left behind changes every later test of its
    process.  (A bench run in tests/bench left ``POLYFUSE_DISABLE_CACHE=1``, and every later test
    of that xdist process compiled without the disk cache: session 33.)  The variables are put
    back, and the test fails naming them."""
    before = _polyfuse_variables()
    yield
    after = _polyfuse_variables()
    if after != before:
        for name in after.keys() - before.keys():
            del os.environ[name]
        os.environ.update(before)
        changed = sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
        pytest.fail(f"the test left {', '.join(changed)} changed in os.environ (set it with monkeypatch)")


_THREAD_POLICY = ("MIN_PARALLEL_SECONDS", "REGION_MIN_SECONDS_PER_BARRIER", "PRIOR_MIN_SECONDS")


def _thread_policy() -> dict[str, object]:
    from polyfuse.backends.cpu import parallel

    policy: dict[str, object] = {name: getattr(parallel, name) for name in _THREAD_POLICY}
    policy["RegionTimes.use_team"] = parallel.RegionTimes.__dict__["use_team"]
    return policy


def _thread_counts() -> tuple[int | None, int | None]:
    """polyfuse's thread count as set (``threads._num_threads``; None: the default) and NumPy's
    OpenBLAS count (None where it cannot be read)."""
    from polyfuse.runtime import threads
    from polyfuse.runtime.linalg_library import thread_count_functions

    functions = thread_count_functions()
    return threads._num_threads, None if functions is None else functions[0]()


@pytest.fixture(autouse=True)
def thread_policy_kept():
    """Every test leaves the serial-first rule's thresholds of ``backends/cpu/parallel.py`` as it
    found them (``threads_forced()`` and monkeypatch set them for one test): one left at 0 sends
    every later small phase of its process to the team, and test_team_choice's made-up clock ran
    on a threshold of 0 once (session 34's CI, ZeroDivisionError).  So are the thread counts,
    polyfuse's and NumPy's OpenBLAS's (a count left at 1 or 2 decides every later test's team
    and BLAS modes: set one for a test with ``num_threads``, ``forced`` or monkeypatch).  They are
    put back, and a test that left one fails naming it."""
    before, counts = _thread_policy(), _thread_counts()
    yield
    after, counts_after = _thread_policy(), _thread_counts()
    left = []
    if after != before:
        from polyfuse.backends.cpu import parallel

        for name in _THREAD_POLICY:
            setattr(parallel, name, before[name])
        parallel.RegionTimes.use_team = before["RegionTimes.use_team"]  # type: ignore[method-assign]
        changed = sorted(n for n in before if before[n] is not after[n] and before[n] != after[n])
        left.append(f"parallel.{', parallel.'.join(changed)} changed (set it with monkeypatch)")
    if counts_after != counts:
        from polyfuse.runtime import threads
        from polyfuse.runtime.linalg_library import thread_count_functions

        threads._num_threads = counts[0]
        threads.THREADS_EPOCH.value += 1  # (a native entry made at the count left checks it again)
        functions = thread_count_functions()
        if functions is not None and counts[1] is not None:
            functions[1](counts[1])
        left.append(f"the thread counts (polyfuse's, OpenBLAS's) at {counts_after}, found at {counts} "
                    "(set polyfuse's with the num_threads fixture)")
    if left:
        pytest.fail(f"the test left {'; '.join(left)}")


@pytest.fixture
def one_lift_per_program():
    """``lift_reused()`` for one test: a differential module whose variants of a program are
    consecutive tests."""
    with lift_reused():
        yield


#: The tests that may ask for ``client`` (tests/dask); the cluster is closed when this process
#: moves past them (``pytest_runtest_teardown``)
DASK_TESTS = Path(__file__).parent / "dask"
_cluster: dict = {}


@pytest.fixture
def client():
    """The LocalCluster the dask tests share (tests/dask), started on first use.  Here rather
    than in tests/dask/conftest.py: a second module named ``conftest`` shadows this one for the
    tests that import helpers from it.

    Closed once this test process moves past the cluster tests (the next test it runs is not one,
    ``on_cluster``; they run one after the other, ``pytest_collection_modifyitems``), not at the
    session's end: an idle cluster is not free (its scheduler, nannies and two worker processes
    tick, heartbeat and sample their threads: 6 CPU-s a minute at load 10), and the tests after
    tests/dask took minutes of a 2-core CI run.  A test process that comes back to them
    (pytest-xdist hands it stolen tests) starts another.  The workers' statistical
    profiler (every 10 ms, for the dashboard) is off: half their idle CPU."""
    pytest.importorskip("distributed")
    if not _cluster:
        import dask
        from distributed import Client, LocalCluster

        with dask.config.set({"distributed.worker.profile.enabled": False}):
            cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, memory_limit="1GiB",
                                   dashboard_address=":0")
        _cluster.update(cluster=cluster, client=Client(cluster))
    return _cluster["client"]


def close_cluster() -> None:
    """Close ``client``'s cluster, if one is running."""
    if _cluster:
        _cluster.pop("client").close()
        _cluster.pop("cluster").close()


def on_cluster(item) -> bool:
    """Does this test of tests/dask run on ``client``'s cluster (it asks for the fixture, or its
    name says so: the parametrized ones ask for it with ``request.getfixturevalue``)?"""
    return DASK_TESTS in item.path.parents and ("client" in getattr(item, "fixturenames", ())
                                                 or "cluster" in item.name)


def pytest_collection_modifyitems(session, config, items):
    """The cluster tests of tests/dask run one after the other, where the first test of
    tests/dask stood (each file's in its order), so that the cluster lives only while they run
    (``pytest_runtest_teardown``).  Spread over the 232 tests of tests/dask (15 of them), they
    kept it idle through the rest: its scheduler and two worker processes took 7.3 CPU-s while a
    ninth of the tests between them ran (session 37); tests/dask in one process, 50.9 -> 48.1
    CPU-s and 108 -> 86 s of wall (session 38, load 7-8).  The same order in every test process,
    as pytest-xdist needs."""
    cluster = [item for item in items if on_cluster(item)]
    if not cluster:
        return
    first = next(k for k, item in enumerate(items) if DASK_TESTS in item.path.parents)
    rest = [item for item in items if not on_cluster(item)]
    items[:] = rest[:first] + cluster + rest[first:]


#: Python's thread switch interval while numba's CUDA simulator runs a block (0: Python's own, 5
#: ms).  The simulator runs a block's threads as Python threads while its main thread polls them
#: in a loop that holds the GIL until the interval forces a switch, so at 5 ms most of a
#: block's time went to that poll: a promoted contraction at n=13 (tests/backends/cuda), three
#: calls, 9.0-15.6 s wall and 2.9-3.6 s CPU at 5 ms against 4.2-7.2 s and 1.4-1.9 s at 0.5 ms
#: (1 ms and 0.3 ms alike; 0.1 ms and 0.02 ms slower than 5 ms: the threads switch too often),
#: interleaved, load 18-28.  What a kernel computes does not depend on it (the race detector
#: of tests/backends/cuda/simulator_order.py switches every microsecond).
SIMULATOR_SWITCH_SECONDS = float(os.environ.get("PYTEST_SIMULATOR_SWITCH_SECONDS", "0.0005"))
CUDA_TESTS = Path(__file__).parent / "backends" / "cuda"


def _switching_often(run):
    def run_switching_often(self, *args):
        interval = sys.getswitchinterval()
        sys.setswitchinterval(min(interval, SIMULATOR_SWITCH_SECONDS))  # (a race test's 1 us is kept)
        try:
            return run(self, *args)
        finally:
            sys.setswitchinterval(interval)

    run_switching_often.switches_often = True  # type: ignore[attr-defined]
    return run_switching_often


def _simulator_switches_often(item) -> None:
    """Wrap the simulator's ``BlockManager.run`` with ``SIMULATOR_SWITCH_SECONDS`` once it is
    imported (by a test that compiled for the cuda target; a test of tests/backends/cuda imports
    it here, so that its first simulated kernel runs wrapped too)."""
    if SIMULATOR_SWITCH_SECONDS <= 0 or os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        return
    if CUDA_TESTS in item.path.parents and "numba.cuda" not in sys.modules:
        importlib.import_module("numba.cuda")
    for name, module in list(sys.modules.items()):
        manager = getattr(module, "BlockManager", None) if name.endswith("cuda.simulator.kernel") else None
        if manager is not None and not getattr(manager.run, "switches_often", False):
            manager.run = _switching_often(manager.run)


def pytest_runtest_setup(item):
    _simulator_switches_often(item)


def pytest_runtest_teardown(item, nextitem):
    if _cluster and (nextitem is None or not on_cluster(nextitem)):
        close_cluster()


def pytest_sessionfinish(session, exitstatus):
    close_cluster()


#: PolyBench's symm as loops (``temp2`` accumulates the row's second product beside the
#: ``C[k, j] +=`` updates): the source the loop-product, accumulator and BLAS tests compile
SYMM_LOOPS = """
def k(alpha, beta, C, A, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            temp2 = 0.0
            for k in range(i):
                C[k, j] += alpha * B[i, j] * A[i, k]
                temp2 += B[k, j] * A[i, k]
            C[i, j] = beta * C[i, j] + alpha * B[i, j] * A[i, i] + alpha * temp2
"""


def rewritten_dependences_checked(monkeypatch, *modules) -> list[frozenset[str]]:
    """Each call of ``dependences_after_rewrite`` from ``modules`` (only the rewritten arrays'
    dependences computed again) compared with all of them computed again; returns the sets of
    arrays checked."""
    from polyfuse.analysis.dependences import compute_dependences, dependences_after_rewrite

    checked: list[frozenset[str]] = []

    def both(scop, kept, arrays):
        ours, full = dependences_after_rewrite(scop, kept, arrays), compute_dependences(scop)
        key = [(d.kind, d.array, d.local, d.approximation) for d in ours.items]
        assert key == [(d.kind, d.array, d.local, d.approximation) for d in full.items]
        assert all(a.relation.is_equal(b.relation) for a, b in zip(ours.items, full.items))
        checked.append(arrays)
        return ours

    for module in modules:
        monkeypatch.setattr(module, "dependences_after_rewrite", both)
    return checked
