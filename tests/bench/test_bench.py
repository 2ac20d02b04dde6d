"""polyfuse bench: the suite's numpy formulations, the numpy column and the limits section."""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import io
import json
import os
import threading
import time

import numpy as np
import pytest
from conftest import copy_args

from polyfuse.bench import harness as bench
from polyfuse.bench import limits as bench_limits
from polyfuse.bench import measure, records, suite
from polyfuse.bench import report as bench_report
from polyfuse.runtime import threads

WITH_NUMPY = [name for name, sk in suite.KERNELS.items() if sk.numpy_func is not None]


def test_numpy_formulations_listed():
    assert set(WITH_NUMPY) == {"gemm", "2mm", "3mm", "atax", "bicg", "mvt", "gemver", "gesummv", "chain3",
                               "matmul_bias_relu", "softmax", "attention_rows", "syrk", "syr2k", "trmm", "symm",
                               "doitgen", "covariance", "correlation"}
    assert suite.KERNELS["lu"].numpy_func is None


@pytest.mark.parametrize("name", WITH_NUMPY)
def test_numpy_formulation_matches_python(name):
    sk = suite.KERNELS[name]
    params = list(inspect.signature(sk.func).parameters)
    for seed in (0, 1):
        args = sk.make_args(np.random.default_rng(seed), **sk.sizes["test"])
        expected = copy_args(args)
        sk.func(*expected)
        got = suite.numpy_outputs(sk, copy_args(args))
        assert set(got) == set(sk.outputs)
        for out in sk.outputs:
            ok, diff = measure.close_enough(got[out], expected[params.index(out)])
            assert ok, (name, out, diff)


def test_numpy_outputs_accepts_returned_results():
    sk = suite.KERNELS["chain3"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])

    def returning(A, B, out):
        return 1.0 / (1.0 + np.exp(-np.maximum(A + B, 0.0)))

    for fn in (returning, lambda A, B, out: {"out": returning(A, B, out)},
               lambda A, B, out: (returning(A, B, out),)):
        got = suite.numpy_outputs(dataclasses.replace(sk, numpy_func=fn), args)
        np.testing.assert_allclose(got["out"], returning(*args))
    with pytest.raises(ValueError, match="no numpy formulation"):
        suite.numpy_outputs(suite.KERNELS["lu"], ())


def test_flops_and_streaming_name_suite_kernels():
    assert set(bench_limits.STREAMING) <= set(suite.KERNELS)
    assert set(bench_limits.FLOPS) <= set(suite.KERNELS)
    assert bench_limits.FLOPS["gemm"](dict(ni=2, nj=3, nk=4)) == 48
    assert set(bench_limits.EXTRA_TRAFFIC) <= set(bench_limits.STREAMING)


def test_min_traffic_counts_gemvers_second_pass_over_A():
    # gemver(n=10): A (100) and 8 vectors (80) once, then A written back and read again, w and x written back
    args = suite.KERNELS["gemver"].make_args(np.random.default_rng(0), n=10)
    once = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
    assert once == 8 * 180
    assert bench_limits.min_traffic("gemver", dict(n=10), once) == 8 * (180 + 200 + 20)
    assert bench_limits.min_traffic("atax", dict(m=7, n=9), 1000) == 1000
    row = records.StreamRow("gemver", "test", once, bench_limits.min_traffic("gemver", dict(n=10), once))
    assert row.ceiling_pct == pytest.approx(100 * 180 / 400)
    assert records.StreamRow("atax", "test", 1000).ceiling_pct is None


def test_format_limits_without_rows():
    limits = records.Limits(triad_elements=16, triad_bytes=384, l3_bytes=None, matmul_shape=[1, 2, 3])
    text = bench_limits.format_limits(limits, bench.BenchSettings(preset="test"))
    assert "triad bandwidth: - GB/s" in text
    assert "none of chain3" in text


@pytest.mark.skipif(importlib.util.find_spec("numba") is None or not bench.backend_available("cpu"),
                    reason="needs numba and the LLVM backend")
def test_bench_loops_numpy_column_and_limits(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")  # the bench sets it; restored after the test
    settings = bench.BenchSettings(preset="test", kernels=("chain3", "gemm", "atax", "lu"), repeats=1,
                                   min_time=0.0, section="loops")
    out = io.StringIO()
    with threads.limited_to(2):  # the one-thread column is measured when polyfuse has more
        report = bench.run(settings, out=out)
    text = out.getvalue()
    rows = {r.kernel: r for r in report.rows}
    assert all(r.check == "ok" for r in rows.values()), text
    assert all(r.polyfuse_1t_ms and r.speedup_1t for r in rows.values()), text
    assert report.geomean_speedup_1t and "pf 1T ms" in text and "on 1 thread" in text
    assert rows["gemm"].numba_par_check == "ok" and rows["gemm"].numba_par_loops and rows["gemm"].speedup_par
    assert report.geomean_speedup_par and "nb par ms" in text
    assert rows["lu"].numpy_check == "" and rows["lu"].numpy_ms is None
    for name in ("chain3", "gemm", "atax"):
        row = rows[name]
        assert row.numpy_check == "ok" and row.numpy_ms and row.numpy_ratio, (name, row.numpy_error)
        assert row.numpy_ms == min(row.numpy_ms_by_blas.values())
        assert row.numpy_ratio == pytest.approx(row.numpy_ms / row.polyfuse_numpy_ms)  # (series in turn)
    assert rows["chain3"].array_bytes == 3 * 8 * suite.KERNELS["chain3"].sizes["test"]["n"]
    assert not report.failed and report.numpy_geomean

    limits = report.limits
    assert limits is not None and limits.triad_elements == bench_limits.TRIAD_ELEMENTS["test"]
    assert [r.name for r in limits.triad] == ["polyfuse", "numba", "numpy"]
    assert all(r.check == "ok" and r.gb_s for r in limits.triad), limits.triad
    assert limits.triad_gb_s and limits.triad_reference in ("polyfuse", "numba")
    assert [r.kernel for r in limits.streaming] == ["chain3", "atax"]
    chain3 = limits.streaming[0]
    assert chain3.bytes == rows["chain3"].array_bytes
    polyfuse_ms = min(rows["chain3"].polyfuse_ms, rows["chain3"].polyfuse_numpy_ms)  # (its best series)
    assert chain3.gb_s["polyfuse"] == pytest.approx(chain3.bytes / (polyfuse_ms * 1e-3) / 1e9)
    assert chain3.pct_of_triad["polyfuse"] == pytest.approx(100 * chain3.gb_s["polyfuse"] / limits.triad_gb_s)
    assert chain3.min_bytes == chain3.bytes and chain3.ceiling_pct == 100.0 and "ceiling" in text
    [gemm] = limits.compute
    assert gemm.kernel == "gemm" and gemm.flops == 2 * 7 * 9 * 8
    assert limits.matmul_gflop_s and gemm.pct_of_matmul["polyfuse"]
    assert "limits: STREAM triad" in text and "numpy ms" in text and "% matmul" in text

    path = bench.write_json(report, tmp_path / "bench.json")
    data = json.loads(path.read_text())
    assert data["schema"] == records.SCHEMA and data["limits"]["streaming"][0]["kernel"] == "chain3"
    assert data["rows"][0]["numpy_check"] == "ok"


def test_chart_is_written_when_matplotlib_is_there(tmp_path, monkeypatch):
    from polyfuse.bench import harness as bench

    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")  # the bench sets it; restored after the test

    settings = bench.BenchSettings(preset="test", target="cpu", kernels=("chain3",), repeats=1, min_time=0.0,
                                   seed=0, threads=None, use_cache=False, section="loops")
    report = bench.run(settings, out=io.StringIO())
    path = bench.write_chart(report, tmp_path / "bench.png")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert path is None
    else:
        assert path is not None and path.stat().st_size > 1000


class _WrongAfterFirstCall:
    """A compiled kernel whose first call is right and whose later (timed) calls are not: the
    serial-first rule means a check of the first call alone would pass it."""

    def __init__(self, real):
        self.real, self.calls = real, 0

    def __getattr__(self, name):
        return getattr(self.real, name)

    def __call__(self, *args):
        result = self.real(*args)
        self.calls += 1
        if self.calls > 1:
            for a in args:
                if isinstance(a, np.ndarray) and a.dtype.kind == "f":
                    a.flat[0] += 1.0
        return result


def test_a_kernel_wrong_only_in_its_timed_calls_is_a_mismatch_and_fails_the_run(tmp_path, monkeypatch):
    kernel_module = importlib.import_module("polyfuse.kernel")  # the package's `kernel` is the decorator
    real_kernel = kernel_module.kernel
    monkeypatch.setattr(kernel_module, "kernel", lambda fn, **kw: _WrongAfterFirstCall(real_kernel(fn, **kw)))
    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    settings = bench.BenchSettings(preset="test", kernels=("chain3",), repeats=2, min_time=0.0, section="loops")
    out = io.StringIO()
    status = bench.main(settings, json_path=tmp_path / "bench.json", out=out)
    [row] = json.loads((tmp_path / "bench.json").read_text())["rows"]
    assert row["check"] == "MISMATCH" and "timed call" in row["error"], row
    assert status != 0 and "MISMATCH" in out.getvalue()


def test_every_kernel_has_large_sizes_polybench_s_where_it_is_polybench():
    """``--preset large`` is PolyBench 4.2's LARGE dataset (gemm 1000 x 1100 x 1200, ...) with the
    same parameters as the other presets; the fusion kernels keep their bench sizes."""
    for name, sk in suite.KERNELS.items():
        assert set(sk.sizes["large"]) == set(sk.sizes["bench"]), name
        if sk.category == "polybench":
            assert sk.sizes["large"] != sk.sizes["test"], name
    assert suite.KERNELS["gemm"].sizes["large"] == dict(ni=1000, nj=1100, nk=1200)


class _FakeClock:
    """``time`` for polyfuse.bench.measure: each sleep advances the wall clock, and the process's
    CPU clock with it as long as a made-up pool still spins (``spinning`` sleeps)."""

    def __init__(self, spinning: int):
        self.wall = self.cpu = 0.0
        self.spinning = spinning
        self.sleeps = 0

    def perf_counter(self) -> float:
        return self.wall

    def process_time(self) -> float:
        return self.cpu

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        self.wall += seconds
        if self.sleeps <= self.spinning:
            self.cpu += seconds  # one core busy while the main thread sleeps


@pytest.mark.parametrize("spinning", [0, 3, 10_000])
def test_settle_waits_while_the_process_burns_cpu(monkeypatch, spinning):
    """The bench times a contender only once other pools of the process stopped spin-waiting
    (OpenBLAS after a multi-threaded call), and never waits longer than SETTLE_MAX."""
    clock = _FakeClock(spinning)
    monkeypatch.setattr(measure, "time", clock)
    monkeypatch.setattr(measure, "other_threads", lambda: (clock.process_time(), False))
    waited = measure.settle()
    steps = measure.SETTLE_MAX / measure.SETTLE_STEP  # the most it sleeps (give or take one)
    quiet = measure.SETTLE_QUIET
    assert clock.sleeps == spinning + quiet if spinning < steps - quiet else abs(clock.sleeps - steps) <= 1
    assert waited == pytest.approx(clock.sleeps * measure.SETTLE_STEP)


def test_settle_waits_while_another_thread_is_runnable_without_cpu(monkeypatch):
    """A thread that is runnable at the end of a step counts even when it got no CPU in it (a
    virtual core the host held, a yielding spinner that other jobs keep off the cores)."""
    clock = _FakeClock(spinning=0)
    monkeypatch.setattr(measure, "time", clock)
    monkeypatch.setattr(measure, "other_threads", lambda: (0.0, clock.sleeps < 5))
    measure.settle()
    assert clock.sleeps == 4 + measure.SETTLE_QUIET


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="Linux's per-thread schedstat")
def test_settle_waits_for_a_thread_that_wants_a_core():
    """Another thread of the process counts while it is runnable, however little CPU other jobs
    on the machine leave it (OpenBLAS's worker spins with ``sched_yield``): here one that hashes
    32 MiB in one call, without the GIL."""
    import hashlib

    data = bytes(32 << 20)
    finished: list[float] = []

    def work() -> None:
        hashlib.sha256(data).digest()
        finished.append(time.perf_counter())

    worker = threading.Thread(target=work)
    worker.start()
    waited = measure.settle()
    returned = time.perf_counter()
    worker.join()
    assert returned >= finished[0] or waited > measure.SETTLE_MAX
    # nothing runs any more: quiet steps end the wait before its cap (a time bar such as 0.05 s
    # failed at load 20, where two 2 ms sleeps took 57 ms)
    assert measure.settle() < measure.SETTLE_MAX


def test_warm_up_makes_the_untimed_calls_within_its_budget(monkeypatch):
    """The bench's untimed calls before each timed series: as many as a plan needs for its native
    entry, fewer when they take longer than the budget, each on fresh copies of the inputs.  On a
    made-up clock: on a loaded machine even the time before the first call can pass a 10 ms budget."""
    from polyfuse.bench import measure
    from polyfuse.runtime.native import NATIVE_AFTER

    clock = _FakeClock(spinning=0)
    monkeypatch.setattr(measure, "time", clock)

    assert measure.WARM_CALLS == NATIVE_AFTER
    seen: list = []
    data = np.zeros(3)

    def record(a):
        seen.append(a)
        a += 1

    assert measure.warm_up(record, (data,)) == NATIVE_AFTER
    assert len(seen) == NATIVE_AFTER and not data.any() and len({id(a) for a in seen}) == NATIVE_AFTER
    assert measure.warm_up(record, (data,), max_seconds=0.0) == 0

    def slow(a):
        clock.sleep(0.02)

    assert measure.warm_up(slow, (data,), max_seconds=0.01) == 1  # the first call alone


def test_warm_up_waits_for_the_blas_modes_trials(monkeypatch):
    """With ``trials`` (the LLVM backend's ``in_trials``) the untimed calls go on while the BLAS
    modes' trials are open, within the budget; a fresh measured ``BlasTimes`` is in its trials
    until each mode ran, a forced one never."""
    from polyfuse.backends.cpu.parallel import BLAS_MODES, BlasTimes

    from polyfuse.bench import measure
    from polyfuse.runtime.native import NATIVE_AFTER

    clock = _FakeClock(spinning=0)
    monkeypatch.setattr(measure, "time", clock)
    times = BlasTimes(True, {"serial": [0.01]}, "measure", BLAS_MODES)

    def call(a):
        clock.sleep(0.001)
        mode = times.choose()
        times.record(mode, {"library": 0.002, "rows": 0.003, "serial": 0.01}[mode], clock.wall)

    ran = measure.warm_up(call, (np.zeros(3),), trials=times.in_trials)
    assert ran > NATIVE_AFTER and not times.in_trials()
    assert measure.warm_up(call, (np.zeros(3),), max_seconds=0.0, trials=lambda: True) == 0
    assert not BlasTimes(True, {"serial": [0.01]}, "rows", BLAS_MODES).in_trials()
    assert not BlasTimes(False, {"serial": [0.01]}, "measure", BLAS_MODES).in_trials()


def test_the_blas_modes_of_the_timed_calls_are_the_runs_since_the_warm_up():
    """bench rows record which BLAS mode the timed calls ran (a two-thread time near the one-thread
    one is then explained: session 32's covariance, correlation, symm), the call's one mode shown."""
    before = {"blas call 2 (6, 7)": {"rows": 3, "serial": 2}, "blas 4 2 6": {"serial": 1}}
    after = {"blas call 2 (6, 7)": {"rows": 8, "serial": 2}, "blas 4 2 6": {"serial": 1}, "blas 4 1 6": {"library": 2}}
    since = measure.tallies_since(before, after)
    assert since == {"blas call 2 (6, 7)": {"rows": 5}, "blas 4 1 6": {"library": 2}}
    assert bench_report._modes(since) == "rows 5" and bench_report._modes({}) == "-"


def test_numpy_column_times_both_sides_in_turn(monkeypatch):
    """The numpy column: ``NUMPY_ROUNDS`` rounds, each a series of the numpy formulation and one of
    polyfuse in turn (polyfuse first in odd rounds), each side's best over its series; the ratio
    compares those (a side timed in one stretch took that stretch's load or pool state alone)."""
    order: list[str] = []
    spec = suite.get("chain3")

    def numpy_func(*args):
        order.append("np")
        return spec.numpy_func(*args)

    def polyfuse_series(row, settings):
        order.append("pf")
        return {3: 2e-3, 4: 1e-3, 7: 4e-3}[len(order)]  # (order[0]: the check's run of numpy)

    monkeypatch.setattr(measure, "blas_plans", lambda settings: [("as configured", None)])
    monkeypatch.setattr(measure, "NUMPY_ROUNDS", 3)
    inputs = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    reference = copy_args(inputs)
    spec.func(*reference)
    row = records.BenchRow("chain3", spec.category, "test", dict(spec.sizes["test"]), polyfuse_ms=5.0)
    settings = records.BenchSettings(preset="test", repeats=1, min_time=0.0)
    measure._bench_numpy(dataclasses.replace(spec, numpy_func=numpy_func), row, inputs, reference,
                         measure.output_positions(spec.func, spec.outputs), settings, polyfuse_series)
    assert row.numpy_check == "ok", row.numpy_error
    assert order[1:] == ["np", "pf", "pf", "np", "np", "pf"]
    assert row.polyfuse_numpy_ms == pytest.approx(1.0) and row.polyfuse_ms == 5.0
    assert row.numpy_ratio == pytest.approx(row.numpy_ms / 1.0) and row.numpy_runs == 3


def test_use_cache_bench_times_a_kernel_loaded_from_the_disk_cache(tmp_path, monkeypatch):
    """`polyfuse bench --use-cache`: the second run's variant comes from the disk cache, which
    keeps no per-stage compile times; the row is still timed and checked (it failed on
    `variant.stages.seconds` before)."""
    from polyfuse.bench import measure, suite
    from polyfuse.bench.records import BenchSettings

    monkeypatch.setenv("POLYFUSE_CACHE_DIR", str(tmp_path / "cache"))
    settings = BenchSettings(preset="test", target="cpu", kernels=("chain3",), repeats=1, min_time=0.0,
                             seed=0, threads=None, use_cache=True, section="loops")
    spec = suite.get("chain3")
    rows = [measure.bench_kernel(spec, settings) for _ in range(2)]
    assert [r.error for r in rows] == ["", ""] and [r.check for r in rows] == ["ok", "ok"]
    assert rows[0].stage_ms and not rows[1].stage_ms
