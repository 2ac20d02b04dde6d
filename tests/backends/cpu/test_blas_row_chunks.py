"""Matrix products kept whole, cut by rows among polyfuse's threads (backends/cpu/phases.py,
``row_chunked``): each chunk calls BLAS on its rows on one thread, or runs the loops over them
where BLAS does not take the layout.  Results against NumPy on forced threads, and NumPy's
OpenBLAS thread count (process-wide) as it was after every call, also after concurrent ones."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

import polyfuse
from polyfuse.model.loop_ast import StmtCall
from polyfuse.runtime import threads
from polyfuse.runtime.linalg_library import blas_on_one_thread, can_set_blas_threads, thread_count_functions

pytestmark = pytest.mark.skipif(not can_set_blas_threads(),
                                reason="needs NumPy's bundled OpenBLAS, whose (process-wide) thread count polyfuse sets")
RNG = np.random.default_rng(3)


def _openblas_count():
    """NumPy's OpenBLAS thread count (get, set), or None where its symbols differ."""
    from polyfuse.runtime.linalg_library import library

    handle = library().handle
    for suffix in ("64_", "_64_", ""):
        get = getattr(handle, f"scipy_openblas_get_num_threads{suffix}", None)
        put = getattr(handle, f"scipy_openblas_set_num_threads{suffix}", None)
        if get is not None and put is not None:
            return get, put
    return None


@pytest.fixture(autouse=True)
def chunks_on(monkeypatch):
    """The knob on (it is off by default, see the last test); every test must leave OpenBLAS's
    process-wide thread count as it found it (put back here too, so one failure stays one)."""
    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS", "1")
    count = _openblas_count()
    before = count[0]() if count else None
    yield
    if count:
        after = count[0]()
        count[1](before)
        assert after == before, f"OpenBLAS's thread count {before} -> {after}"


def attention(Q, K, V):
    S = Q @ K.T * (1.0 / math.sqrt(Q.shape[1]))
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    return (P / P.sum(axis=-1, keepdims=True)) @ V


def accumulate(A, B, C):
    C += A @ B


def three_products(A, B, C, D):
    E = A @ B
    F = C @ D
    return E @ F


def strided(A, B):
    return A[::2] @ B  # not a BLAS layout: each chunk runs the loops over its rows


def chunked_phases(kernel, args):
    backend = kernel.compile(*args).backend
    return [p.index for p in backend.artifact.phases if p.parallel and isinstance(p.node, StmtCall)], backend


def test_the_serial_run_of_a_chunked_product_is_the_chunk_of_every_row(monkeypatch):
    """One copy of each chunked product's BLAS calls (and layout tests and loops) serves a
    chunk's rows and the serial run; ``POLYFUSE_PRODUCT_TWINS=1`` emits the two copies again."""
    Q, K, V = (RNG.standard_normal(shape) for shape in ((13, 8), (11, 8), (11, 40)))
    calls = {}
    for twins in ("0", "1"):
        monkeypatch.setenv("POLYFUSE_PRODUCT_TWINS", twins)
        text = polyfuse.kernel(attention, cache=False).inspect_llvm(Q, K, V, optimized=False)
        calls[twins] = text.count('call void @"polyfuse.blas.dgemm"(')
    assert calls["1"] == 2 * calls["0"] > 0, calls


@pytest.mark.parametrize("threads_count, nq, nk, d", [(2, 13, 11, 8), (3, 97, 90, 40)])
def test_attention_on_row_chunks_matches_numpy(monkeypatch, forced, threads_count, nq, nk, d):
    """Small sizes run the loops over each chunk's rows, the larger ones BLAS on each chunk
    (work over BLAS_MIN_WORK also at 97 / 3 rows); the rows forced (the library's threads are
    measured too, ``POLYFUSE_BLAS_PLAIN_LIBRARY``)."""
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "rows")
    Q, K, V = (RNG.standard_normal(shape) for shape in ((nq, d), (nk, d), (nk, 5 * d)))
    k = polyfuse.kernel(attention)
    threads.set_num_threads(threads_count)
    for _ in range(3):  # the first call is the measuring (serial) one
        np.testing.assert_allclose(k(Q, K, V), attention(Q, K, V), rtol=1e-12, atol=1e-14)
    chunked, backend = chunked_phases(k, (Q, K, V))
    assert len(chunked) == 2, backend.artifact.phases
    assert [r["rows"] for r in k.explain(Q, K, V)["row-chunked products"]] == ["Q.shape[0]"] * 2
    assert all(backend.phase_runs.get(i, 0) >= 1 for i in chunked), backend.phase_runs


def test_few_columns_on_row_chunks_each_chunk_narrow(monkeypatch, forced):
    """A float64 product with few columns whose chunks of rows each take blas.py's narrow way
    (``?dgemm`` with m = the chunk's rows into a buffer, copied to the chunk's rows of out)."""
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "rows")
    from polyfuse.backends.cpu.blas import NARROW_MIN_DEPTH, NARROW_MIN_ROWS

    rows, depth = 2 * NARROW_MIN_ROWS + 3, NARROW_MIN_DEPTH  # two chunks of at least NARROW_MIN_ROWS
    Q, K, V = (RNG.standard_normal(shape) for shape in ((rows, 8), (depth, 8), (depth, 6)))
    k = polyfuse.kernel(attention)
    threads.set_num_threads(2)
    for _ in range(3):  # the first call is the measuring (serial) one
        np.testing.assert_allclose(k(Q, K, V), attention(Q, K, V), rtol=1e-12, atol=1e-14)
    chunked, backend = chunked_phases(k, (Q, K, V))
    assert all(backend.phase_runs.get(i, 0) >= 1 for i in chunked), backend.phase_runs


def test_accumulating_product_and_strided_rows_on_chunks(monkeypatch, forced):
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "rows")
    A, B, C = RNG.standard_normal((9, 6)), RNG.standard_normal((6, 7)), RNG.standard_normal((9, 7))
    threads.set_num_threads(2)
    k = polyfuse.kernel(accumulate)
    for _ in range(3):
        out = C.copy()
        k(A, B, out)
        np.testing.assert_allclose(out, C + A @ B, rtol=1e-12, atol=1e-14)
    A2 = RNG.standard_normal((18, 6))
    s = polyfuse.kernel(strided)
    for _ in range(3):
        np.testing.assert_allclose(s(A2, B), A2[::2] @ B, rtol=1e-12, atol=1e-14)
    for kernel, args in ((k, (A, B, C)), (s, (A2, B))):
        chunked, backend = chunked_phases(kernel, args)
        assert chunked and all(backend.phase_runs.get(i, 0) >= 1 for i in chunked), backend.phase_runs


def gesummv(A, B, x, alpha, beta):
    return alpha * (A @ x) + beta * (B @ x)


def vector_times_matrix(x, A):
    return x @ A


def transposed_times_vector(A, y):
    return A.T @ y  # the chunk's rows are columns of A


def test_matrix_times_vector_stays_whole_without_the_knob(monkeypatch, forced):
    """``POLYFUSE_BLAS_ROW_CHUNKS_GEMV=0`` leaves ``A @ x`` whole, on the library's threads
    (``A @ x`` on ``?gemv`` at all: ``POLYFUSE_GEMV_ROW_LOOPS=0``)."""
    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GEMV", "0")
    monkeypatch.setenv("POLYFUSE_GEMV_ROW_LOOPS", "0")
    A, B, x = RNG.standard_normal((300, 303)), RNG.standard_normal((300, 303)), RNG.standard_normal(303)
    threads.set_num_threads(2)
    k = polyfuse.kernel(gesummv, cache=False)
    for _ in range(3):
        np.testing.assert_allclose(k(A, B, x, 1.5, 0.5), gesummv(A, B, x, 1.5, 0.5), rtol=1e-12, atol=1e-13)
    assert chunked_phases(k, (A, B, x, 1.5, 0.5))[0] == []


@pytest.mark.parametrize("n", [7, 300])
def test_matrix_times_vector_on_row_chunks(monkeypatch, forced, n):
    """With POLYFUSE_BLAS_ROW_CHUNKS_GEMV (default), ``A @ x`` runs ``?gemv`` on each chunk's rows
    (the loops below BLAS_MIN_WORK; the rows forced, the library's threads being a candidate too);
    ``x @ A`` has one row and stays whole.  (``A @ x`` on ``?gemv`` at all: ``POLYFUSE_GEMV_ROW_LOOPS=0``.)"""
    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GEMV", "1")
    monkeypatch.setenv("POLYFUSE_GEMV_ROW_LOOPS", "0")
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "rows")
    A, B, x = RNG.standard_normal((n, n + 3)), RNG.standard_normal((n, n + 3)), RNG.standard_normal(n + 3)
    threads.set_num_threads(2)
    k = polyfuse.kernel(gesummv)
    for _ in range(3):
        np.testing.assert_allclose(k(A, B, x, 1.5, 0.5), gesummv(A, B, x, 1.5, 0.5), rtol=1e-12, atol=1e-13)
    chunked, backend = chunked_phases(k, (A, B, x, 1.5, 0.5))
    assert len(chunked) == 2, backend.artifact.phases
    assert all(backend.phase_runs.get(i, 0) >= 1 for i in chunked), backend.phase_runs
    t = polyfuse.kernel(transposed_times_vector)
    for _ in range(3):
        np.testing.assert_allclose(t(A, x[:n]), A.T @ x[:n], rtol=1e-12, atol=1e-13)
    assert len(chunked_phases(t, (A, x[:n]))[0]) == 1
    v = polyfuse.kernel(vector_times_matrix)
    np.testing.assert_allclose(v(x[:n], A), x[:n] @ A, rtol=1e-12, atol=1e-13)
    assert chunked_phases(v, (x[:n], A))[0] == []


@pytest.mark.parametrize("setting", ["0", None])
def test_the_knob(monkeypatch, forced, setting):
    """On by default; 0 leaves the products to the library's threads.  Either way a call leaves
    NumPy's OpenBLAS count (process-wide) as it was."""
    if setting is None:
        monkeypatch.delenv("POLYFUSE_BLAS_ROW_CHUNKS")
    else:
        monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS", setting)
    count = _openblas_count()
    before = count[0]() if count else None
    threads.set_num_threads(2)
    Q, K, V = (RNG.standard_normal(shape) for shape in ((97, 40), (90, 40), (90, 200)))
    k = polyfuse.kernel(attention, cache=False)
    for _ in range(3):
        np.testing.assert_allclose(k(Q, K, V), attention(Q, K, V), rtol=1e-12, atol=1e-14)
    assert len(chunked_phases(k, (Q, K, V))[0]) == (0 if setting == "0" else 2)
    assert ("row-chunked products" in k.explain(Q, K, V).to_dict()) == (setting != "0")
    assert count is None or count[0]() == before


@pytest.mark.parametrize("setting", ["1", "0"])
def test_a_plain_product_measures_the_library_too(monkeypatch, forced, setting):
    """``POLYFUSE_BLAS_PLAIN_LIBRARY`` (default on): a NumPy product ``A @ B`` kept whole and cut
    by rows has the library's threads as a candidate (``Phase.library``), as a guarded one has;
    forced, every call runs there and gives NumPy's result.  0: only the rows and one BLAS thread,
    the forced mode not taken."""
    monkeypatch.setenv("POLYFUSE_BLAS_PLAIN_LIBRARY", setting)
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "library")
    threads.set_num_threads(2)
    A, B = RNG.standard_normal((97, 40)), RNG.standard_normal((40, 90))
    k = polyfuse.kernel(accumulate, cache=False)
    for _ in range(4):
        out = np.ones((97, 90))
        k(A, B, out)
        np.testing.assert_allclose(out, 1.0 + A @ B, rtol=1e-12, atol=1e-14)
    backend = k.compile(A, B, out).backend
    sites = [p.index for p in backend.artifact.phases if p.blas_rows and p.library]
    assert len(sites) == (1 if setting == "1" else 0), backend.artifact.phases
    assert set(backend.blas_modes.values()) == ({"library"} if setting == "1" else set()), backend.blas_modes
    # two products that share no array then pair (``POLYFUSE_BLAS_PAIRS`` needs ``Phase.library``)
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "measure")
    C, D = RNG.standard_normal((90, 50)), RNG.standard_normal((50, 60))
    p = polyfuse.kernel(three_products, cache=False)
    for _ in range(4):
        np.testing.assert_allclose(p(A, B, C, D), (A @ B) @ (C @ D), rtol=1e-12)
    flags = [(ph.library, ph.pair) for ph in p.compile(A, B, C, D).backend.artifact.phases if ph.blas_rows]
    assert flags == ([(True, True), (True, False), (True, False)] if setting == "1" else [(False, False)] * 3), flags


def test_one_thread_holders_are_counted():
    """Nested and concurrent holders: the count is 1 while any holds it, the old one after the last."""
    get, put = thread_count_functions()
    before = get()
    put(2)
    try:
        entered, release = threading.Barrier(3), threading.Event()

        def hold():
            with blas_on_one_thread():
                entered.wait()
                release.wait()

        holders = [threading.Thread(target=hold) for _ in range(2)]
        for t in holders:
            t.start()
        entered.wait()
        with blas_on_one_thread():
            assert get() == 1
        assert get() == 1  # the two threads still hold it
        release.set()
        for t in holders:
            t.join()
        assert get() == 2
    finally:
        put(before)


def test_concurrent_kernel_calls_leave_numpys_count(forced):
    """Two Python threads calling chunked kernels at once (each a team run on one-thread BLAS):
    results as NumPy's, and NumPy's count as before once both are done."""
    get, put = thread_count_functions()
    before = get()
    put(2)
    try:
        threads.set_num_threads(2)
        Q, K, V = (RNG.standard_normal(shape) for shape in ((97, 40), (90, 40), (90, 200)))
        k = polyfuse.kernel(attention)
        expected = attention(Q, K, V)
        for _ in range(3):
            k(Q, K, V)
        errors: list = []

        def calls():
            try:
                for _ in range(6):
                    np.testing.assert_allclose(k(Q, K, V), expected, rtol=1e-12, atol=1e-14)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        callers = [threading.Thread(target=calls) for _ in range(2)]
        for t in callers:
            t.start()
        for t in callers:
            t.join()
        assert not errors, errors
        assert get() == 2
        chunked, backend = chunked_phases(k, (Q, K, V))
        assert chunked and all(backend.phase_runs.get(i, 0) >= 1 for i in chunked), backend.phase_runs
    finally:
        put(before)


def test_the_measured_serial_run_of_a_chunked_product_keeps_blas_on_one_thread():
    """The serial run the runtime times against the team (a product cut by rows) holds one BLAS
    thread too, so that it leaves no OpenBLAS worker spinning beside the team's next run; any
    other phase's serial run is its plain function."""
    from types import SimpleNamespace

    from polyfuse.backends.cpu import parallel

    get, put = thread_count_functions()
    before = get()
    put(2)
    try:
        seen: list[int] = []

        def function(*args):
            seen.append(get())

        parallel._serial_function(SimpleNamespace(function=function, phase=SimpleNamespace(blas_rows=True)))(0, 4)
        plain = parallel._serial_function(SimpleNamespace(function=function, phase=SimpleNamespace(blas_rows=False)))
        plain(0, 4)
        assert plain is function and seen == [1, 2] and get() == 2
    finally:
        put(before)


@pytest.mark.parametrize("chains", ["0", "1", "epilogue"])
def test_matrix_times_vector_written_as_loops_under_its_guard_on_row_chunks(monkeypatch, forced, chains):
    """PolyBench's gesummv as loops: each ``?gemv`` sits under its nest's guard (``if n >= 1``)
    and is cut by rows with POLYFUSE_BLAS_ROW_CHUNKS_GEMV too; with POLYFUSE_PHASE_CHAINS its
    two products and the combination run as one chain (the guard seen through); with
    POLYFUSE_EPILOGUE_CHAINS alone the second product and the combination that reads it."""
    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GEMV", "1")
    monkeypatch.setenv("POLYFUSE_PHASE_CHAINS", "1" if chains == "1" else "0")
    monkeypatch.setenv("POLYFUSE_EPILOGUE_CHAINS", "1" if chains == "epilogue" else "0")
    backend = _suite_kernel_on_two_threads(suite.get("gesummv"), 1e-13, n=130)
    guarded = [p.index for p in backend.artifact.phases if p.parallel and p.blas_rows]
    assert len(guarded) == 2, backend.artifact.phases
    lengths = [(p.chain, p.chain_whole) for p in backend.artifact.phases if p.chain]
    assert lengths == {"0": [], "1": [(3, False)], "epilogue": [(2, True)]}[chains], backend.artifact.phases
    assert backend.blas_modes, "the chain (or each product) measured the library's threads too"


@pytest.mark.parametrize("mode", ["library", "rows"])
def test_a_chain_with_a_library_site_in_each_blas_thread_mode(monkeypatch, forced, mode):
    """gesummv's chain (two guarded ``?gemv`` and the combination, POLYFUSE_PHASE_CHAINS) keeps
    the library's threads as a candidate (``run_chain`` used to run such a chain on one BLAS
    thread only): forced to each mode, the Python function's results, and the chain ran so."""
    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GEMV", "1")
    monkeypatch.setenv("POLYFUSE_PHASE_CHAINS", "1")
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", mode)
    backend = _suite_kernel_on_two_threads(suite.get("gesummv"), 1e-13, calls=4, n=130)
    head = next(p.index for p in backend.artifact.phases if p.chain)
    assert backend.blas_modes == {head: mode}
    assert (backend.phase_runs.get(head, 0) >= 1) == (mode == "rows")


@pytest.mark.parametrize("setting", ["0", "1"])
def test_a_product_written_as_loops_under_its_guard_on_row_chunks_with_the_knob(monkeypatch, forced, setting):
    """PolyBench's 3mm as loops: its three ``?gemm`` sit under their nests' guards and keep the
    library's threads, or with POLYFUSE_BLAS_ROW_CHUNKS_GUARDED are cut by rows; the user's results."""
    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GUARDED", setting)
    backend = _suite_kernel_on_two_threads(suite.get("3mm"), 1e-12, ni=61, nj=47, nk=53, nl=45, nm=50)
    assert len([p for p in backend.artifact.phases if p.blas_rows]) == (3 if setting == "1" else 0)


def _suite_kernel_on_two_threads(sk, atol: float, calls: int = 3, **sizes):
    """``sk`` compiled and called ``calls`` times on a 2-thread team, each call's arrays against the
    Python function's (rtol 1e-12); the compiled backend, for the test's assertions on its phases."""
    args = sk.make_args(np.random.default_rng(0), **sizes)
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    sk.func(*want)
    threads.set_num_threads(2)
    k = polyfuse.kernel(sk.func, cache=False)
    for _ in range(calls):
        got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        k(*got)
        for w, g in zip(want, got):
            if isinstance(w, np.ndarray):
                np.testing.assert_allclose(g, w, rtol=1e-12, atol=atol)
    return k.compile(*args).backend


@pytest.mark.parametrize("mode", ["library", "rows", "serial", "measure"])
@pytest.mark.parametrize("name, sizes", [("gesummv", {"n": 130}), ("gemm", {"ni": 41, "nj": 37, "nk": 43})])
def test_guarded_products_in_each_blas_thread_mode(monkeypatch, forced, mode, name, sizes):
    """A guarded ``?gemv`` (gesummv) or ``?gemm`` (gemm) cut by rows, its library's threads a
    third candidate (``Phase.library``): each mode forced through POLYFUSE_BLAS_THREADS (and the
    measured choice) gives the Python function's results, runs in that mode, and explain()
    reports what was measured.  The measured choice here measures at these small sizes (no
    floor for threads nor for the prior, ``BlasTimes.prior``): its trials, checks and duels run
    each mode in turn, every call checked."""
    from polyfuse.backends.cpu import parallel

    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", mode)
    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GUARDED", "1")
    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GEMV", "1")
    if mode == "measure":  # (``forced`` has MIN_PARALLEL_SECONDS at 0 already: a monkeypatch of it
        # here, set up before ``forced``, put its 0 back after ``forced`` restored the threshold)
        monkeypatch.setattr(parallel, "PRIOR_MIN_SECONDS", 0.0)
    sk = suite.get(name)
    backend = _suite_kernel_on_two_threads(sk, 1e-12, calls=40 if mode == "measure" else 6, **sizes)
    sites = [p.index for p in backend.artifact.phases if p.blas_rows and p.library]
    assert sites and backend.blas_modes.keys() == set(sites), backend.artifact.phases
    if mode != "measure":
        assert set(backend.blas_modes.values()) == {mode}
    else:  # the trials: one BLAS thread, the library's threads, the rows
        assert set(backend.blas_modes.values()) <= {"library", "rows", "serial"}
    assert all((backend.phase_runs.get(i, 0) >= 1) == (mode == "rows") for i in sites) or mode == "measure"
    explained = backend.explain_sections()[0][1]
    products, (calls,) = [r for r in explained if "phase" in r], [r for r in explained if "call" in r]
    assert [r["phase"] for r in products] == sites
    assert all(r["latest"] == backend.blas_modes[r["phase"]] for r in products)
    assert all(r["how"] == f"POLYFUSE_BLAS_THREADS={mode}" for r in products) or mode == "measure"
    assert calls["latest"] in {r["latest"] for r in products} and calls["threads"] == 2
    assert ("prior" in calls) == (mode == "measure"), calls


@pytest.mark.parametrize("mode", ["rows", "measure"])
def test_symm_cut_by_rows(monkeypatch, forced, mode):
    """symm's ``?symm`` (the two mirrored triangular products, ``Matmul.mirror``) under its nest's
    guard is cut by the rows of C's transpose (the columns of C and B), each chunk one ``?symm``
    on one BLAS thread with its own copy of A's triangle; measured like a guarded ``?gemm``."""
    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", mode)
    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GUARDED", "1")
    backend = _suite_kernel_on_two_threads(suite.get("symm"), 1e-12, calls=6, m=48, n=50)
    sites = [p.index for p in backend.artifact.phases if p.blas_rows and p.library]
    assert len(sites) == 1 and backend.blas_modes.keys() == set(sites)
    assert mode == "measure" or (set(backend.blas_modes.values()) == {"rows"} and backend.phase_runs[sites[0]] >= 1)


def test_blas_times_choose_by_measurement_and_adapt():
    """``BlasTimes``: each mode's trials in a row (one BLAS thread, the rows, then the library's
    threads), then the fastest
    by its best recent run, a slower mode checked again (``BLAS_CHECK_RUNS`` in a row) after the
    calls its extra time is worth, and a new fastest taken over once its runs say so."""
    from polyfuse.backends.cpu.parallel import BLAS_CHECK_RUNS, WINDOW, BlasTimes

    times = BlasTimes(True, {"serial": [1.0]})
    seconds = {"library": 40.0, "rows": 0.6, "serial": 1.0}  # the library's threads collapsed
    ran = []
    for _ in range(12):
        mode = times.choose()
        ran.append(mode)
        times.record(mode, seconds[mode])
    trials = ["serial"] * 2 + ["rows"] * WINDOW + ["library"] * BLAS_CHECK_RUNS  # the library cut short
    assert ran[:len(trials)] == trials and ran[len(trials)] == "rows" and times.best() == "rows"
    assert set(ran[len(trials):]) <= {"rows", "serial"}  # (one BLAS thread checked again: it led once)
    assert times.next_check["library"] - times.calls > 500  # 39 s more over 0.6: many calls' worth
    seconds["library"] = 0.3  # the machine went quiet
    while (mode := times.choose()) != "library":
        times.record(mode, seconds[mode])
    checks = [mode]
    times.record(mode, seconds[mode])
    for _ in range(BLAS_CHECK_RUNS - 1):
        checks.append(times.choose())
        times.record(checks[-1], seconds[checks[-1]])
    assert checks == ["library"] * BLAS_CHECK_RUNS and times.best() == "library"
    assert BlasTimes(False, {"serial": [1e-5]}).choose() == "library"  # too small for threads
    assert BlasTimes(True, {"serial": [1.0]}, forced="serial").choose() == "serial"
    one = BlasTimes(True, {"serial": [1.0]}, modes=("library", "serial"))  # one polyfuse thread
    chosen = []
    for _ in range(20):
        chosen.append(one.choose())
        one.record(chosen[-1], 0.5 if chosen[-1] == "library" else 1.0)
    assert "rows" not in chosen and chosen[-1] == "library"


def test_blas_times_warm_first_runs_are_not_counted():
    """``BlasTimes.warm_first`` (``POLYFUSE_BLAS_WARM_TRIALS``): the rows' first run pays once for
    what their later runs find ready (here three times their time): not counted, the trial goes
    on, and the rows, faster after it, are chosen; counted, that run ended the rows' trial at once
    (over twice one BLAS thread's time) and the library's threads won."""
    from polyfuse.backends.cpu.parallel import WINDOW, BlasTimes

    def replay(times: BlasTimes) -> list[str]:
        ran: list[str] = []
        for _ in range(3 * WINDOW + 2):
            mode = times.choose()
            first = mode == "rows" and mode not in ran
            times.record(mode, {"library": 0.9, "rows": 0.7, "serial": 1.0}[mode] * (3 if first else 1))
            ran.append(mode)
        return ran

    warm = BlasTimes(True, {"serial": [1.0]}, warm_first=True)
    assert replay(warm) == ["serial"] * (WINDOW - 1) + ["rows"] * (WINDOW + 1) + ["library"] * WINDOW + ["rows"] * 2
    assert warm.runs["rows"] == [0.7] * (WINDOW + 2) and warm.uncounted == 1 and warm.best() == "rows"
    cold = BlasTimes(True, {"serial": [1.0]})
    replay(cold)
    assert cold.runs["rows"] == [pytest.approx(2.1)] and cold.best() == "library"


def test_run_call_leaves_one_time_work_out_of_a_timed_call(monkeypatch):
    """``run_call`` with ``POLYFUSE_BLAS_WARM_TRIALS``: what a timed call spent on functions built on
    first use (``build_seconds``) and on the native team made ready (``ready_seconds``) is not the
    mode's time (the call mode's second serial run paid for the other phases' first team runs)."""
    import time
    from types import SimpleNamespace

    from polyfuse.backends.cpu import parallel

    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "measure")
    kernel = SimpleNamespace(phase_times={}, call_blas_mode=None, build_seconds=0.0, ready_seconds=0.0)

    def body(once: float) -> None:  # ``once`` seconds of one-time work, half a build, half a team's making
        time.sleep(once)
        kernel.build_seconds += once / 2
        kernel.ready_seconds += once / 2

    parallel.run_call(kernel, (4,), lambda: body(0.002))  # the first call (one BLAS thread), measured
    (times,) = kernel.phase_times.values()
    for warm in (True, False):
        times.warm_first = warm
        parallel.run_call(kernel, (4,), lambda: body(0.05))
        latest = times.runs[times.latest][-1]
        assert latest < 0.02 if warm else latest >= 0.05


def test_blas_times_close_modes_are_not_checked_every_few_calls():
    """Two modes within a few per cent (3mm's three products on the library's threads or on
    polyfuse's rows, bench sizes): each check also pays for leaving the chosen mode
    (``BLAS_MODE_CHANGE``), so after the trials the runner-up runs in at most one call in ten,
    and noise within ``BLAS_SWITCH_MARGIN`` does not swap the choice; a mode faster by more
    than the margin takes over."""
    from polyfuse.backends.cpu.parallel import BLAS_SWITCH_MARGIN, BlasTimes

    times = BlasTimes(True, {"serial": [2.0]})
    ran = []
    for call in range(120):
        mode = times.choose()
        ran.append(mode)
        noise = 0.02 * ((call * 7) % 5) / 4  # 0-2%, deterministic
        times.record(mode, {"library": 1.0, "rows": 1.03, "serial": 1.9}[mode] * (1 + noise))
    settled = ran[20:]
    assert times.best() == "library" and settled.count("rows") <= 0.1 * len(settled)
    times.record("rows", 1.0 * (1 - BLAS_SWITCH_MARGIN / 2))  # within the margin: kept
    assert times.best() == "library"
    times.record("rows", 1.0 * (1 - 2 * BLAS_SWITCH_MARGIN))
    # (``robust``: by the median of five, one or two faster runs are not enough; three are)
    assert times.best() == ("library" if times.robust else "rows")
    times.record("rows", 1.0 * (1 - 2 * BLAS_SWITCH_MARGIN))
    assert times.best() == "library"
    times.record("rows", 1.0 * (1 - 2 * BLAS_SWITCH_MARGIN))
    assert times.best() == "rows"


def test_guarded_product_on_one_polyfuse_thread(monkeypatch, forced):
    """On one polyfuse thread a guarded product chooses between the library's threads and one
    BLAS thread ("rows" forced runs it on one BLAS thread); results as the Python function's."""
    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GEMV", "1")
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "rows")
    sk = suite.get("gesummv")
    args = sk.make_args(np.random.default_rng(0), n=130)
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    sk.func(*want)
    threads.set_num_threads(1)
    k = polyfuse.kernel(sk.func, cache=False)
    backend = k.compile(*args).backend
    for _ in range(7):  # (past the native entry's NATIVE_AFTER calls: it must not bypass the choice)
        backend.blas_modes.clear()
        got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        k(*got)
        for w, g in zip(want, got):
            if isinstance(w, np.ndarray):
                np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13)
    assert set(backend.blas_modes.values()) == {"serial"} and not backend.phase_runs


def test_native_entry_calls_counted_at_the_thread_count_they_ran_at(monkeypatch, forced):
    """A native entry's calls on the library's threads are counted at the thread count its
    countdown was set at, and an entry made anew after the count changed runs none until the
    Python path set it from the new count's measurement (``Launch.disarm``).  Before, the entry
    remade on one thread ran the calls two threads' measurement allowed, never reported there, and
    they were counted on two threads at the next call of the Python path (the bench's modes line:
    "library 3" on two threads from the one-thread column)."""
    from polyfuse.backends.cpu.parallel import BlasTimes

    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "library")
    sk = suite.get("matmul_bias_relu")
    args = sk.make_args(np.random.default_rng(0), ni=20, nk=30, nj=25)
    want = [a.copy() for a in args]
    sk.func(*want)
    k = polyfuse.kernel(sk.func, cache=False)
    backend = k.compile(*args).backend
    for count, calls in ((2, 8), (1, 8), (2, 1)):
        threads.set_num_threads(count)
        for _ in range(calls):
            got = [a.copy() for a in args]
            k(*got)
            np.testing.assert_allclose(got[3], want[3], rtol=1e-12, atol=1e-15)
    counted = {key[1]: sum(t.tally.values()) for key, t in backend.phase_times.items()
               if key[0] == "blas call" and isinstance(t, BlasTimes)}
    assert counted == {2: 8, 1: 7}, counted  # (each count's first call measures, uncounted)


def stacked_product(X, W):
    return X @ W  # a stack of products: one ?gemm of all its rows where the strides chain


@pytest.mark.parametrize("mode", ["rows"])
def test_stack_cut_by_its_batch_axis_in_each_blas_thread_mode(monkeypatch, forced, mode):
    """With POLYFUSE_BLAS_STACK_CHUNKS a stack of products (doitgen's ``acc[r, q, :] = A[r, q, :]
    @ C4``, NumPy's ``X3 @ W``) is cut by its outermost batch axis, its library's threads a
    candidate: each mode gives the Python function's (NumPy's) results and runs in that mode;
    a stack whose strides do not chain (a view of some rows of each matrix) runs its products
    one by one per chunk."""
    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_BLAS_STACK_CHUNKS", "1")
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", mode)
    backend = _suite_kernel_on_two_threads(suite.get("doitgen"), 1e-13, calls=6, nr=7, nq=5, np_=40)
    sites = [p.index for p in backend.artifact.phases if p.blas_rows and p.library]
    assert len(sites) == 1 and backend.blas_modes.keys() == set(sites), backend.artifact.phases
    if mode != "measure":
        assert set(backend.blas_modes.values()) == {mode}
        assert (backend.phase_runs.get(sites[0], 0) >= 1) == (mode == "rows")
    if mode != "rows":
        return
    threads.set_num_threads(2)
    k = polyfuse.kernel(stacked_product, cache=False)
    X, W = RNG.random((9, 6, 34)), RNG.random((34, 33))
    for view in (X, X[:, 1:5]):  # (rows 1-4 of each matrix: the strides do not chain)
        for _ in range(5):
            np.testing.assert_allclose(k(view, W), view @ W, rtol=1e-12, atol=1e-13)
    assert any(p.blas_rows for p in k.compile(X, W).backend.artifact.phases)


def test_library_calls_left_to_a_native_entry():
    """``BlasTimes.library_calls``: none while a mode is on trial or another mode is fastest;
    once the library's threads lead, the calls until the next check is due (the entry runs
    them, ``parallel.library_calls`` counts them back in, and the check then comes on time)."""
    from polyfuse.backends.cpu.parallel import MAX_ENTRY_CALLS, BlasTimes

    times = BlasTimes(True, {"serial": [1.0]})
    seconds = {"library": 0.3, "rows": 0.6, "serial": 1.0}
    left = []
    while len(left) < 12:
        mode = times.choose()
        times.record(mode, seconds[mode])
        left.append(times.library_calls())
    assert left[0] == 0 and left[-1] > 0 and times.best() == "library"
    due = min(check for mode, check in times.next_check.items() if mode != "library")
    times.calls += left[-1]  # what the entry ran
    assert times.calls == due - 1 and times.choose() != "library"  # the check, on time
    assert times.library_calls() == 0  # (the check under way)
    assert BlasTimes(True, {"serial": [1.0]}, forced="library").library_calls() == MAX_ENTRY_CALLS
    assert BlasTimes(True, {"serial": [1.0]}, forced="rows").library_calls() == 0
    assert BlasTimes(False, {"serial": [1e-5]}).library_calls() == MAX_ENTRY_CALLS


@pytest.mark.parametrize("mode", ["library", "serial"])
def test_native_entry_runs_the_library_mode_between_measurements(monkeypatch, forced, mode):
    """gesummv's cut ``?gemv`` on the library's threads (forced here; one polyfuse thread, where
    the combination phase runs serially) runs through the plan's native entry between the
    runtime's measurements (``Launch.library_countdown``), giving the Python function's results;
    on one BLAS thread the entry never runs it (its countdown stays 0: the Python path)."""
    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GEMV", "1")
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", mode)
    threads.set_num_threads(1)
    sk = suite.get("gesummv")
    k = polyfuse.kernel(sk.func, cache=False)
    args = sk.make_args(np.random.default_rng(1), n=130)
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    sk.func(*want)
    for _ in range(8):
        args[-1][:] = -1.0
        k(*args)
        np.testing.assert_allclose(args[-1], want[-1], rtol=1e-12, atol=1e-13)
    (plan,) = k._plans.values()
    countdown, armed = plan.launch.library_countdown(), plan.launch._armed[0]
    assert plan.fast is not None and countdown is not None and plan.launch.library_keys()
    assert (countdown.value < armed) == (mode == "library") and (armed == 0) == (mode == "serial")


def two_products(n, A, B, C, D, E):
    for i in range(n):
        for j in range(n):
            D[i, j] = 0.0
            for k in range(n):
                D[i, j] += A[i, k] * B[k, j]
    for i in range(n):
        for j in range(n):
            E[i, j] = 0.0
            for k in range(n):
                E[i, j] += D[i, k] * C[k, j]


def _settled(fastest: str, modes=("library", "rows", "serial")):
    """``BlasTimes`` whose trials are over, ``fastest`` ahead of the others and no check due."""
    from polyfuse.backends.cpu.parallel import WINDOW, BlasTimes

    runs = {m: [1e-6 if m == fastest else 1.0] * WINDOW for m in modes}
    return BlasTimes(True, runs, next_check={m: 1 << 30 for m in modes}, leader=fastest)


def test_one_blas_mode_per_call(monkeypatch, forced):
    """``parallel.run_call``: the products of one call all run in the mode measured for whole
    calls, whatever each product's own measurement prefers (here the first product's the
    library's threads, the second's the rows); with ``POLYFUSE_BLAS_CALL_MODE=0`` each its own.
    Every call's results against the Python function's (BLAS's tolerance)."""
    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GUARDED", "1")
    n = 40
    A, B, C = (RNG.standard_normal((n, n)) for _ in range(3))
    want = [n, A, B, C, np.zeros((n, n)), np.zeros((n, n))]
    two_products(*want)
    threads.set_num_threads(2)
    k = polyfuse.kernel(two_products, cache=False)

    def call() -> dict[int, str]:
        got = [n, A, B, C, np.full((n, n), np.nan), np.full((n, n), np.nan)]
        k(*got)
        np.testing.assert_allclose(got[5], want[5], rtol=1e-12, atol=1e-12)
        return dict(backend.blas_modes)

    k(*want[:4], np.zeros((n, n)), np.zeros((n, n)))  # the first call: each product measures itself
    backend = k.compile(*want).backend
    sites = sorted(key for key in backend.phase_times if key[0] == "blas")
    (whole,) = [key for key in backend.phase_times if key[0] == "blas call"]
    assert len(sites) == 2, backend.artifact.phases
    for key, own in zip(sites, ("library", "rows")):
        backend.phase_times[key] = _settled(own)
    for mode in ("serial", "rows", "library"):
        backend.phase_times[whole] = _settled(mode)
        assert set(call().values()) == {mode}
    runs = dict(backend.phase_runs)
    record = next(r for r in backend.explain_sections()[0][1] if "call" in r)
    assert record["chosen"] == record["latest"] == "library" and record["threads"] == 2
    monkeypatch.setenv("POLYFUSE_BLAS_CALL_MODE", "0")
    assert call() == {key[1]: own for key, own in zip(sites, ("library", "rows"))}
    assert backend.phase_runs[sites[1][1]] == runs.get(sites[1][1], 0) + 1


def test_blas_times_do_not_count_runs_beside_openblas_spinning_workers():
    """``BlasTimes.spin``: a run on the rows or one BLAS thread that starts within ``spin`` seconds
    of a run on the library's threads shares a core with OpenBLAS's spinning workers (here it takes
    twice its time) and is not counted, and the rows are tried before the library's threads: the
    rows, faster in calls that follow each other, are chosen and stay so.  Counting every run in
    the order before (``POLYFUSE_BLAS_FAIR_TRIALS=0``) chose the library's threads for good."""
    from polyfuse.backends.cpu.parallel import BLAS_CHECK_RUNS, RECHECK_EVERY, UNFAIR_BLAS_TRIALS, BlasTimes

    def replay(times: BlasTimes) -> list[str]:
        clock, library_end, ran = 100.0, -1.0, []
        for _ in range(300):
            mode = times.choose()
            seconds = {"library": 0.010, "rows": 0.008, "serial": 0.015}[mode]
            if mode != "library" and clock - library_end < 0.1:
                seconds *= 2  # beside the spinning workers
            times.record(mode, seconds, clock)
            clock += seconds
            library_end = clock if mode == "library" else library_end
            ran.append(mode)
        return ran

    fair = BlasTimes(True, {"serial": [0.02]}, spin=0.1)
    ran = replay(fair)
    assert ran[2:5] == ["rows"] * 3 and fair.best() == "rows" and ran[100:].count("rows") > 0.9 * 200
    assert fair.uncounted > 0 and min(fair.runs["rows"]) == 0.008
    early = BlasTimes(True, {"serial": [0.02]}, spin=0.1, recheck_trials=True)
    ran = replay(early)  # the library's trials alone lost: checked again soon (one BLAS thread too)
    soon = 8 + 2 * RECHECK_EVERY + BLAS_CHECK_RUNS
    assert ran[8:soon].count("library") == BLAS_CHECK_RUNS and early.best() == "rows"
    assert "library" not in replay(BlasTimes(True, {"serial": [0.02]}, spin=0.1))[8:soon]
    before = BlasTimes(True, {"serial": [0.02]}, trials=UNFAIR_BLAS_TRIALS)
    assert replay(before)[100:].count("library") > 0.9 * 200 and before.best() == "library"


def test_independent_products_run_at_once(monkeypatch, forced):
    """``POLYFUSE_BLAS_PAIRS=1``: 3mm's ``E = A @ B`` and ``F = C @ D`` share no array and run at
    once (``Phase.pair``, ``parallel.run_pair``) in calls on polyfuse's rows, through the plan's
    steps and through ``LLVMKernel.__call__``; ``G = E @ F``, which reads what they wrote, runs
    as before.  Every call's outputs against the Python function's."""
    import inspect

    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS_GUARDED", "1")
    monkeypatch.setenv("POLYFUSE_BLAS_PAIRS", "1")
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "rows")
    threads.set_num_threads(2)
    sk = suite.get("3mm")
    base = sk.make_args(np.random.default_rng(5), ni=20, nj=22, nk=24, nl=26, nm=28)
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in base]
    sk.func(*want)
    params = list(inspect.signature(sk.func).parameters)
    k = polyfuse.kernel(sk.func, cache=False)

    def fresh() -> list:
        got = [a.copy() if isinstance(a, np.ndarray) else a for a in base]
        for out in sk.outputs:
            got[params.index(out)][...] = np.nan
        return got

    def check(got: list) -> None:
        for out in sk.outputs:
            np.testing.assert_allclose(got[params.index(out)], want[params.index(out)], rtol=1e-12, atol=1e-12)

    from polyfuse.backends.cpu import native_team
    from polyfuse.backends.cpu.parallel import NATIVE_TEAM, PAIR_TIMED_RUNS

    tables = []
    run = native_team.run
    monkeypatch.setattr(native_team, "run", lambda *a, **kw: tables.append(kw.get("targets")) or run(*a, **kw))
    for _ in range(5 + PAIR_TIMED_RUNS):  # (the first call measures; its pair's timed runs, then the native team)
        got = fresh()
        k(*got)
        check(got)
    # POLYFUSE_NATIVE_PAIRS: the runs after the timed ones on the native team, a target per piece
    assert not NATIVE_TEAM or sum(t is not None and len(t) >= 2 for t in tables) >= 2
    backend = k.compile(*base).backend
    assert [c.phase.pair for c in backend.phases] == [True, False, False]
    assert [backend.blas_modes[i] for i in range(3)] == ["pair", "pair", "rows"]
    got = fresh()
    values = dict(zip(params, got))
    values.update({f"{p}__shape{axis}": n for p, a in zip(params, got) if isinstance(a, np.ndarray)
                   for axis, n in enumerate(a.shape)})
    backend.blas_modes.clear()
    backend(values)
    check(got)
    assert backend.blas_modes[0] == "pair"


def test_pair_members_share_the_measured_time_evenly():
    """``parallel.pair_members``: the faster product whole on one member after the first rows of
    the other, the rest on the second member, cut where both members' shares of the products'
    one-thread times are equal; with a time unknown, each product whole on its own member."""
    from polyfuse.backends.cpu.parallel import pair_members

    def first(*args):
        return None

    def second(*args):
        return None

    members = pair_members([(first, 20, 1.0), (second, 30, 3.0)])
    assert members == [[(second, 0, 10), (first, 0, 20)], [(second, 10, 30)]]
    share = [sum((hi - lo) / n * t for f, lo, hi in m for g, n, t in [(first, 20, 1.0), (second, 30, 3.0)] if f is g)
             for m in members]
    assert share == [2.0, 2.0]
    assert pair_members([(first, 20, 2.0), (second, 30, 2.0)]) == [[(first, 0, 20)], [(second, 0, 30)]]
    assert pair_members([(first, 20, 0.0), (second, 30, 3.0)]) == [[(first, 0, 20)], [(second, 0, 30)]]


def _replay_modes(times, seconds, calls: int, clock: float = 100.0) -> list[str]:
    """Run ``calls`` calls of ``times`` on a fake clock: ``seconds(mode, call)`` a run's time, a
    run on the rows or one BLAS thread within 0.1 s of one on the library's threads 1.5x slower
    (OpenBLAS's workers spin beside it)."""
    library_end, ran = -1.0, []
    for call in range(calls):
        mode = times.choose()
        took = seconds(mode, call) * (1.5 if mode != "library" and clock - library_end < 0.1 else 1.0)
        times.record(mode, took, clock)
        clock += took
        library_end = clock if mode == "library" else library_end
        ran.append(mode)
    return ran


def test_blas_times_checks_leave_the_chosen_mode_in_most_calls():
    """``BlasTimes.quick`` (``POLYFUSE_BLAS_QUICK_CHECKS``): covariance's product at the bench size
    (rows 2.6 ms, one BLAS thread 4.5, the library's threads 3.0), 60 calls as a bench series: the
    check of one BLAS thread no longer runs it through OpenBLAS's spin after the library's trials
    (each run uncounted), and one BLAS thread clearly beaten is checked once and priced.  Before:
    the rows in 35 of 60 calls, one BLAS thread in 19."""
    from polyfuse.backends.cpu.parallel import BlasTimes

    costs = {"serial": 4.5e-3, "rows": 2.6e-3, "library": 3.0e-3}
    for library in (3.0e-3, 6.0e-3):
        costs["library"] = library
        new = _replay_modes(BlasTimes(True, {"serial": [6e-3]}, spin=0.1, recheck_trials=True),
                            lambda mode, call: costs[mode], 60)
        old = _replay_modes(BlasTimes(True, {"serial": [6e-3]}, spin=0.1, recheck_trials=True, quick=False),
                            lambda mode, call: costs[mode], 60)
        assert new.count("rows") >= 48 and new.count("serial") <= 4, "".join(m[0] for m in new)
        assert old.count("rows") < 40  # (the test fails on the old checks)
    # the library's threads chosen: a check of the rows must wait out their spin (its runs until
    # then uncounted): once in 100 calls, priced with that wait; one BLAS thread (1.9x) not at all
    costs = {"serial": 4.5e-3, "rows": 2.6e-3, "library": 2.4e-3}
    times = BlasTimes(True, {"serial": [6e-3]}, spin=0.1, recheck_trials=True)
    new = "".join(m[0] for m in _replay_modes(times, lambda mode, call: costs[mode], 100))
    assert times.best() == "library" and new[12:].count("lr") <= 1 and "s" not in new[2:], new
    assert times.next_check["rows"] - times.calls > 40


def test_blas_times_quick_checks_still_follow_the_load():
    """With the quick checks a chosen mode that collapses is still left within its window, and one
    BLAS thread that lost its trials clearly (a moment's load on them) is still found once faster,
    by its priced check."""
    from polyfuse.backends.cpu.parallel import MAX_BLAS_RECHECK, WINDOW, BlasTimes

    times = BlasTimes(True, {"serial": [6e-3]}, spin=0.1, recheck_trials=True)
    costs = {"serial": 4.5e-3, "rows": 2.6e-3, "library": 2.4e-3}
    _replay_modes(times, lambda mode, call: costs[mode], 60)
    assert times.best() == "library"
    costs["library"] = 40e-3  # the library's pool collapses: the rows from its window on
    ran = _replay_modes(times, lambda mode, call: costs[mode], 40, clock=200.0)
    assert ran[:WINDOW + 1].count("library") <= WINDOW and ran[WINDOW + 1:].count("library") <= 2
    assert times.best() == "rows" and ran[-10:].count("rows") >= 9, "".join(m[0] for m in ran)
    # one BLAS thread's trials slowed to 8 ms by a moment's load, 2.0 ms afterwards: found
    late = BlasTimes(True, {"serial": [9e-3]}, spin=0.1, recheck_trials=True)
    ran = _replay_modes(late, lambda mode, call: 8e-3 if mode == "serial" and call < 3 else
                        {"serial": 2.0e-3, "rows": 2.6e-3, "library": 3.0e-3}[mode], 200)
    assert late.best() == "serial" and ran[-20:].count("serial") >= 18
    assert ran.index("serial", 3) < MAX_BLAS_RECHECK


def _replay_series(times, costs: dict[str, float], calls: int, series: int, gap: float) -> tuple[str, int]:
    """``_replay_modes`` in series of ``series`` calls with ``gap`` seconds between (0: one tight
    loop), each ``choose`` told when its run starts; also how many runs on the rows or one BLAS
    thread started beside OpenBLAS's spinning workers."""
    clock, library_end, ran, beside = 100.0, -1.0, [], 0
    for call in range(calls):
        if series and call and call % series == 0:
            clock += gap
        mode = times.choose(clock)
        spinning = mode != "library" and clock - library_end < 0.1
        beside += spinning
        took = costs[mode] * (1.5 if spinning else 1.0)
        times.record(mode, took, clock)
        clock += took
        library_end = clock if mode == "library" else library_end
        ran.append(mode[0])
    return "".join(ran), beside


def test_blas_times_quiet_checks_wait_for_a_pause():
    """``BlasTimes.quiet_checks`` (``POLYFUSE_BLAS_QUIET_CHECKS``): with the library's threads
    chosen, a check of the rows that falls due waits for a call that starts after their workers
    went quiet (the bench's series after ``settle``): none of its runs then starts beside them.
    In one tight loop it runs after ``QUIET_CHECK_WAIT`` calls, as before."""
    from polyfuse.backends.cpu.parallel import QUIET_CHECK_WAIT, BlasTimes

    costs = {"serial": 4.5e-3, "rows": 2.6e-3, "library": 2.4e-3}

    def replay(quiet: bool, series: int) -> tuple[str, int, BlasTimes]:
        times = BlasTimes(True, {"serial": [6e-3]}, spin=0.1, recheck_trials=True, quiet_checks=quiet)
        return (*_replay_series(times, costs, 200, series, 0.2), times)

    ran, beside, times = replay(True, 10)
    assert times.best() == "library" and ran.count("r", 10) >= 2 and beside == 0, ran
    assert all(ran[k - 1] != "l" or k % 10 == 0 for k in range(10, 200) if ran[k] == "r"), ran
    assert replay(False, 10)[1] > 0  # (before: its first runs beside the workers, uncounted)
    quiet, beside, times = replay(True, 0)
    old = replay(False, 0)[0]
    first = old.index("r", 10)
    assert quiet.index("r", 10) - first <= QUIET_CHECK_WAIT + 1 and beside > 0, (quiet, old)


def _replay_with_entry(times, seconds, calls: int) -> str:
    """``_replay_modes`` with a native entry: the calls ``library_calls`` leaves to it run on the
    library's threads unmeasured (``L``)."""
    clock, library_end, left, ran = 100.0, -1.0, 0, []
    for call in range(calls):
        if left > 0:
            clock += seconds("library", call)
            library_end = clock
            times.entry_ran(1, clock)
            left, ran = left - 1, [*ran, "L"]
            continue
        mode = times.choose()
        took = seconds(mode, call) * (1.5 if mode != "library" and clock - library_end < 0.1 else 1.0)
        times.record(mode, took, clock)
        clock += took
        library_end = clock if mode == "library" else library_end
        ran.append(mode[0])
        left = times.library_calls()
    return "".join(ran)


def test_blas_times_robust_choice_is_not_led_by_one_lucky_run():
    """``BlasTimes.robust`` (``POLYFUSE_BLAS_ROBUST_CHOICE``): the library's threads under load,
    one run in five fast (2.2 ms) and the others 5.5-7 ms, against the rows' steady 2.8-2.9 ms
    (matmul_bias_relu LARGE at load 5.7, session 29: the library chosen by a 7.8 ms run, its series
    38.7 ms in the median).  Judged by the medians, the rows are chosen and the library runs in no
    call after the trials; by the best runs (before) the library's lucky run led, and its native
    entry's untimed calls kept it for 74 of 100."""
    from polyfuse.backends.cpu.parallel import BlasTimes

    cycle = [2.2e-3, 6.0e-3, 5.5e-3, 7.0e-3, 6.5e-3]

    def seconds(mode: str, call: int) -> float:
        if mode == "library":
            return cycle[call % len(cycle)]
        return {"rows": 2.8e-3, "serial": 4.5e-3}[mode] * (1 + 0.02 * (call % 3))

    for robust in (True, False):
        times = BlasTimes(True, {"serial": [6e-3]}, spin=0.1, recheck_trials=True, robust=robust)
        ran = _replay_with_entry(times, seconds, 120)
        library = ran[20:].count("l") + ran[20:].count("L")
        if robust:
            assert times.best() == "rows" and library <= 5, ran
        else:
            assert library > 50, ran  # (the test fails on the old choice)


def test_blas_times_robust_choice_does_not_flap_on_a_noisy_tie():
    """Two modes 1% apart, each run 0-90% slower (half-normal, 30%): with the margin from the
    modes' spread and the median of five runs the choice changes 8 times in six replays of 280 calls
    after the trials; with the fixed 5% and the best of three runs, 49."""
    import random

    from polyfuse.backends.cpu.parallel import BlasTimes

    changes = {}
    for robust in (True, False):
        changes[robust] = 0
        for seed in range(6):
            rng = random.Random(seed)
            times = BlasTimes(True, {"serial": [2e-3]}, robust=robust)
            chosen = []
            for _ in range(300):
                mode = times.choose()
                times.record(mode, {"library": 1.0e-3, "rows": 1.01e-3, "serial": 1.9e-3}[mode]
                             * (1 + 0.3 * abs(rng.gauss(0, 1))))
                chosen.append(times.best())
            changes[robust] += sum(a != b for a, b in zip(chosen[20:], chosen[21:]))
    assert changes[True] <= 16 and changes[False] > 40, changes


def test_blas_times_clear_loser_is_checked_less_and_less():
    """A mode that loses each check by over ``BLAS_CLEAR_LOSS`` waits twice as long before the next
    (rows 1.5x, one BLAS thread 2x the library's threads: 8 runs of the rows and 4 of one BLAS
    thread in 980 calls, against 48 and 16 before), and is still found once it is the fastest."""
    from polyfuse.backends.cpu.parallel import MAX_BLAS_RECHECK, BlasTimes

    costs = {"library": 1e-3, "rows": 1.5e-3, "serial": 2.0e-3}
    for robust in (True, False):
        times = BlasTimes(True, {"serial": [2e-3]}, robust=robust)
        ran = []
        for _ in range(1000):
            ran.append(times.choose())
            times.record(ran[-1], costs[ran[-1]])
        if robust:
            assert ran[20:].count("rows") <= 12 and ran[20:].count("serial") <= 6, (ran.count("rows"), times.lost)
            assert times.lost["rows"] >= 3 and times.best() == "library"
        else:
            assert ran[20:].count("rows") >= 40  # (the test fails on the old checks)
    costs["rows"] = 0.5e-3  # the rows became the fastest: found by their next check
    for call in range(MAX_BLAS_RECHECK + 10):
        mode = times.choose()
        times.record(mode, costs[mode])
        if times.best() == "rows":
            break
    assert times.best() == "rows" and times.lost.get("rows", 0) == 0


def _bench_replay(times, took, timed: int = 7) -> tuple[list[str], list[str]]:
    """``times`` driven on a fake clock as the bench drives a kernel (polyfuse/bench/measure.py):
    calls until ``in_trials`` ends (6 at least), 0.2 s idle, then ``timed`` calls in a row;
    ``took(mode, call)``: a run's seconds.  The modes of the untimed calls and of the timed ones."""
    clock, ran = max(100.0, times.last_end + 1.0), []
    while len(ran) < 6 or times.in_trials():
        assert len(ran) < 200
        mode = times.choose()
        times.record(mode, took(mode, len(ran)), clock)
        clock += took(mode, len(ran))
        ran.append(mode)
    clock, warm = clock + 0.2, len(ran)
    for _ in range(timed):
        mode = times.choose()
        times.record(mode, took(mode, len(ran)), clock)
        clock += took(mode, len(ran))
        ran.append(mode)
    return ran[:warm], ran[warm:]


def test_blas_times_prior_one_blas_thread_must_win_a_duel():
    """``BlasTimes.prior`` (``POLYFUSE_BLAS_PRIOR``): another job on one core while the threaded
    modes run their trials (here 3x slower, one BLAS thread 1.1x) made the runs choose one BLAS
    thread for every timed call (2mm in session 33's bench: ``serial 7``); with the prior one BLAS
    thread must first beat the fastest threaded mode by ``PRIOR_MARGIN`` in a duel, which the
    rows win once the load went, before the bench's timed calls (``in_trials`` holds meanwhile).
    Where one BLAS thread is faster, it wins the duel and is chosen; when its runs then get faster
    than in the duel (the load that slowed the duel may have gone), another duel comes at once."""
    from polyfuse.backends.cpu.parallel import BlasTimes, blas_record

    base = {"library": 4.2e-3, "rows": 4.0e-3, "serial": 7.7e-3}

    def took(mode: str, call: int) -> float:
        return base[mode] * ((1.1 if mode == "serial" else 3.0) if 1 <= call <= 8 else 1.0)

    for prior in (False, True):
        times = BlasTimes(True, {"serial": [10e-3]}, spin=0.1, recheck_trials=True, prior=prior)
        warm, timed = _bench_replay(times, took)
        assert ("serial" not in timed and timed[-3:] == ["rows"] * 3) if prior else timed == ["serial"] * 7, timed
    assert times.duels.verdict.endswith("lost by the 10% margin") and times.duels.confirmed is None
    assert "against rows" in times.duels.verdict and warm[8:].count("serial") == 4  # (the duel's)

    base.update(library=12e-3, rows=9e-3, serial=6e-3)  # one BLAS thread faster (a loaded machine)
    times = BlasTimes(True, {"serial": [10e-3]}, spin=0.1, recheck_trials=True, prior=True)
    warm, timed = _bench_replay(times, lambda mode, call: base[mode])
    assert timed[2:] == ["serial"] * 5 and times.duels.confirmed == 6e-3 and "won" in times.duels.verdict
    record = blas_record(("blas call", 2, (1,)), times, times.latest)
    assert "chosen by a duel" in record["prior"] and record["chosen"] == "serial"
    base.update(rows=2e-3, serial=4e-3)  # the load went: one BLAS thread's runs 4 ms, under its 6
    _, timed = _bench_replay(times, lambda mode, call: base[mode], timed=40)
    assert times.duels.confirmed is None and times.duels.reopened == 1 and timed[-10:] == ["rows"] * 10
    assert "put to a duel again 1 time" in blas_record(("blas call", 2, (1,)), times, times.latest)["prior"]


def test_blas_times_settled_trials_leave_the_early_checks_to_the_warm_up():
    """``BlasTimes.settled`` (``POLYFUSE_BLAS_SETTLED_TRIALS``): the library's threads, slow in
    their trial (a pool woken under load: 8x), are judged on it alone and checked again within
    ``RECHECK_EVERY`` calls; the bench timed that check (matmul_bias_relu at PolyBench LARGE,
    ``--repeats 3``: library and one-thread checks among its timed calls).  Settled, ``in_trials``
    holds until it ran: the timed calls run the chosen rows alone, and every call runs the mode it
    ran before (only where the bench starts timing moved)."""
    from polyfuse.backends.cpu.parallel import BlasTimes

    base = {"library": 2.3e-3, "rows": 2.0e-3, "serial": 3.7e-3}

    def took(mode: str, call: int) -> float:
        return base[mode] * (8.0 if mode == "library" and call < 12 else 1.0)

    ran = {}
    for settled in (False, True):
        times = BlasTimes(True, {"serial": [4e-3]}, spin=0.1, recheck_trials=True, prior=True,
                          warm_first=True, settled=settled)
        warm, timed = _bench_replay(times, took, timed=12)
        assert times.best() == "rows"
        assert (timed == ["rows"] * 12) if settled else ("library" in timed), timed
        ran[settled] = warm + timed
    assert ran[True][:len(ran[False])] == ran[False]


@pytest.mark.parametrize("mode", ["library", "rows", "serial"])
def test_a_product_and_its_epilogue_chained_in_each_blas_thread_mode(monkeypatch, forced, mode):
    """matmul_bias_relu (``C = A @ B`` kept whole, then ``out = max(C + bias, 0)``): with
    POLYFUSE_EPILOGUE_CHAINS (the default) the product cut by rows and its epilogue are one chain
    run on each member's whole piece of the rows (one product call per member, as unchained);
    forced to each BLAS mode, through the native entry from the 4th call, the Python function's
    results every call."""
    from polyfuse.backends.cpu import parallel

    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_PHASE_CHAINS", "0")
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", mode)
    monkeypatch.setenv("POLYFUSE_CHAIN_BLOCK_ROWS", "8")  # (a chain of blocks would call the product per 8 rows)
    blocks: list[tuple[int, int, int]] = []
    run_blocks = parallel._run_blocks

    def recording(chain, args, first, last, block):
        blocks.append((first, last, block))
        run_blocks(chain, args, first, last, block)

    monkeypatch.setattr(parallel, "_run_blocks", recording)
    backend = _suite_kernel_on_two_threads(suite.get("matmul_bias_relu"), 1e-12, calls=6, ni=61, nk=40, nj=45)
    chains = [p for p in backend.artifact.phases if p.chain]
    assert [(p.index, p.chain, p.chain_whole) for p in chains] == [(0, 2, True)], backend.artifact.phases
    assert backend.blas_modes == {0: mode}
    assert all(block >= last - first for first, last, block in blocks) and (mode == "library" or blocks)
    assert (backend.phase_runs.get(0, 0) >= 1) == (mode == "rows")
