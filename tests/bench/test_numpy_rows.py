"""The numpy section of polyfuse bench end to end, its failure rows and its table (no timed assertions)."""

from __future__ import annotations

import io
import json
import sys

import numpy as np
import pytest
from conftest import HAS_CPU

from polyfuse import cli
from polyfuse.bench import harness as bench
from polyfuse.bench import numpy_rows, numpy_suite, records, report
from polyfuse.bench.numpy_suite import NumpyProgram
from polyfuse.runtime import threads

needs_cpu = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")


def positives(x):
    return x * np.random.random()  # random numbers drawn in a kernel stay outside the subset (docs/subset.md)


def _positives_args(rng, n):
    return (rng.standard_normal(n),)


MASKED = NumpyProgram("positives", positives, _positives_args, {p: {"n": 9} for p in numpy_suite.NUMPY_PRESETS},
                      "a random draw", needs="random numbers in kernels")


#: The programs the section test runs: the path through the section is the same for every program
#: (compile, check, warm-up, interleaved timing, check of the timed calls, the row); these three
#: cover its branches: jacobi_2d writes its inputs (fresh copies per run, no JAX column: "n/a"),
#: attention goes to BLAS and runs under jax.jit, mean_std returns a tuple.  Every program of the
#: section is checked at the quick preset, on the calls the timer makes, by
#: tests/bench/test_numpy_suite.py::test_program_matches_numpy (cpu), which compiles them anyway.
SECTION_SAMPLE = ("jacobi_2d", "attention", "mean_std")


@needs_cpu
def test_section_end_to_end_at_the_quick_preset(tmp_path, monkeypatch):
    monkeypatch.setattr(numpy_rows, "NUMPY_ROUNDS", 1)
    names = [name for name in numpy_suite.all_programs() if name in SECTION_SAMPLE or name in numpy_suite.PENDING]
    settings = bench.BenchSettings(preset="quick", section="numpy", repeats=1, min_time=0.0, use_cache=True,
                                   kernels=tuple(names))
    out = io.StringIO()
    result = bench.run(settings, out=out)
    text = out.getvalue()
    rows = {r.name: r for r in result.numpy_rows}
    assert list(rows) == names and len(names) >= len(SECTION_SAMPLE)
    for name in SECTION_SAMPLE:
        row = rows[name]
        assert row.check == "ok", (name, row.error, row.max_abs_diff)
        assert row.numpy_ms and row.polyfuse_ms and row.compile_ms and row.ratios["numpy"], name
        assert row.shapes and row.runs_timed["numpy"] >= 1
        assert row.jax in ("", "ok", "n/a"), (name, row.jax_note)
        if threads.get_num_threads() > 1:  # timed on one thread too, as NumPy's ufuncs run
            assert row.polyfuse_1t_ms and row.ratios["numpy_1t"] and row.runs_timed["polyfuse_1t"] >= 1, name
    if numpy_rows.load_jax() is not None:
        assert rows["attention"].jax == "ok" and rows["jacobi_2d"].jax == "n/a", (rows["attention"].jax_note,)
    for name in numpy_suite.PENDING:
        row = rows[name]
        assert row.check in ("ok", "pending"), (name, row.error)
        if row.check == "pending":
            assert row.pending.startswith("not yet compiled: numpy_suite.py:") and row.pending in text
    assert rows["jacobi_2d"].shapes == [[400, 400], [400, 400], []]
    assert not result.numpy_failed and result.numpy_geomeans["numpy"]
    assert "np/pf" in text and "geometric mean numpy time / polyfuse time" in text
    assert "slowest against numpy:" in text

    data = json.loads(bench.write_json(result, tmp_path / "bench.json").read_text())
    assert data["schema"] == records.SCHEMA and "einsum" not in data
    assert [r["name"] for r in data["numpy"]["rows"]] == list(rows)
    assert data["numpy"]["geomean_ratios"]["numpy"] == pytest.approx(result.numpy_geomeans["numpy"])


@needs_cpu
def test_cli_runs_the_section_and_exits_zero(capsys):
    status = cli.main(["bench", "--section", "numpy", "--preset", "test", "--kernels", "mean_std,gemm",
                       "--repeats", "1", "--min-time", "0", "--no-json", "--use-cache"])
    text = capsys.readouterr().out
    assert status == 0, text
    assert "mean_std" in text and "gemm" in text


def test_a_refused_program_is_pending_only_on_the_pending_list():
    settings = bench.BenchSettings(preset="test", section="numpy", target="python", repeats=1, min_time=0.0)
    row = numpy_rows.bench_numpy_row(MASKED, settings, pending=True)
    assert row.check == "pending" and not row.failed
    assert row.pending.startswith("not yet compiled: test_numpy_rows.py:")
    line = report.format_numpy_row(row)
    assert line.startswith("positives") and row.pending in line

    row = numpy_rows.bench_numpy_row(MASKED, settings, pending=False)
    assert row.check == "ERROR" and row.failed
    assert row.error.startswith("polyfuse compile: UnsupportedError:") and "test_numpy_rows.py" in row.error


def test_a_wrong_result_is_a_mismatch_and_fails_the_run(monkeypatch):
    class Wrong:
        """A stand-in for polyfuse.kernel whose results are off by one."""

        def __init__(self, fn, **options):
            self.fn = fn

        def compile(self, *args):
            return None

        def __call__(self, *args):
            return self.fn(*args) + 1.0

    monkeypatch.setattr(sys.modules["polyfuse.kernel"], "kernel", Wrong)
    monkeypatch.setattr(numpy_rows, "NUMPY_ROUNDS", 1)
    settings = bench.BenchSettings(preset="test", section="numpy", target="python", repeats=1, min_time=0.0)
    row = numpy_rows.bench_numpy_row(numpy_suite.PROGRAMS["gelu_tanh"], settings)
    assert row.check == "MISMATCH" and row.failed and row.max_abs_diff["polyfuse"] == pytest.approx(1.0)
    assert row.polyfuse_ms is not None  # a mismatch is still timed, and shown
    result = records.BenchReport(settings, {}, [], numpy_rows=[row])
    assert "MISMATCH gelu_tanh: results differ from numpy's: max |diff| 1" in report.numpy_summary(result)
    assert "MISMATCH" in report.format_numpy_row(row)


def test_a_kernel_wrong_only_in_its_timed_calls_is_a_mismatch(monkeypatch):
    class RightOnce:
        """A stand-in for polyfuse.kernel that is right on its first call only."""

        def __init__(self, fn, **options):
            self.fn, self.calls = fn, 0

        def compile(self, *args):
            return None

        def __call__(self, *args):
            self.calls += 1
            return self.fn(*args) + (0.0 if self.calls == 1 else 0.5)

    monkeypatch.setattr(sys.modules["polyfuse.kernel"], "kernel", RightOnce)
    monkeypatch.setattr(numpy_rows, "NUMPY_ROUNDS", 1)
    settings = bench.BenchSettings(preset="test", section="numpy", target="python", repeats=1, min_time=0.0)
    row = numpy_rows.bench_numpy_row(numpy_suite.PROGRAMS["gelu_tanh"], settings)
    assert row.check == "MISMATCH" and row.failed
    assert row.error == ("the last timed call of polyfuse disagrees with numpy (max |diff| 0.5); "
                         "the first call agreed")
    assert row.max_abs_diff["polyfuse"] == pytest.approx(0.5)


def test_jax_cells_and_summary_lines():
    ok = records.NumpyRow("a", "test", [[3]], check="ok", compile_ms=1.0, numpy_ms=2.0, polyfuse_ms=1.0,
                          jax="ok", jax_ms=4.0, ratios={"numpy": 2.0, "jax": 4.0})
    slow = records.NumpyRow("b", "test", [[3]], check="ok", compile_ms=1.0, numpy_ms=1.0, polyfuse_ms=2.0,
                            jax="n/a", jax_note="writes array elements in place", ratios={"numpy": 0.5, "jax": None})
    bad_jax = records.NumpyRow("c", "test", [[3]], check="ok", numpy_ms=1.0, polyfuse_ms=1.0, jax="MISMATCH",
                               max_abs_diff={"polyfuse": 0.0, "jax": 0.5}, ratios={"numpy": 1.0})
    assert "4.000" in report.format_numpy_row(ok) and "4.00x" in report.format_numpy_row(ok)
    assert " n/a " in report.format_numpy_row(slow)
    assert report.format_numpy_row(bad_jax).endswith("ok, jax MISMATCH") and bad_jax.failed
    settings = bench.BenchSettings(preset="test", section="numpy")
    no_jax = records.NumpyRow("d", "test", [], check="ok", numpy_ms=1.0, polyfuse_ms=1.0, ratios={"numpy": 1.0})
    assert "jax: not installed" in report.numpy_summary(records.BenchReport(settings, {}, [], numpy_rows=[no_jax]))
    text = report.numpy_summary(records.BenchReport(settings, {}, [], numpy_rows=[ok, slow, bad_jax]))
    assert "numpy time / polyfuse time: 1.00x over 3 program(s)" in text
    assert "as NumPy's ufuncs" not in text  # no row was timed on one thread
    assert "jax.jit time / polyfuse time: 4.00x over 1 program(s)" in text
    assert "slowest against numpy: b (0.50x)" in text
    assert "jax n/a for b:" in text
    assert "MISMATCH c (jax): results differ from numpy's: max |diff| 0.5" in text
    one_thread = records.NumpyRow("e", "test", [], check="ok", numpy_ms=1.0, polyfuse_ms=0.5, polyfuse_1t_ms=1.0,
                                  ratios={"numpy": 2.0, "numpy_1t": 1.0})
    text = report.numpy_summary(records.BenchReport(settings, {}, [], numpy_rows=[one_thread, no_jax]))
    assert "with polyfuse on 1 thread, as NumPy's ufuncs: 1.00x" in text
    assert "numpy time / polyfuse time: 1.41x over 2 program(s)" in text


def test_settings_and_names():
    with pytest.raises(ValueError, match="loops and numpy sections"):
        bench.BenchSettings(preset="large", section="all")
    assert bench.BenchSettings(preset="large", section="numpy").preset == "large"
    assert bench.BenchSettings(preset="large", section="loops").preset == "large"
    with pytest.raises(ValueError, match="unknown numpy program"):
        bench.check_names(bench.BenchSettings(section="numpy", kernels=("gemm", "lu")))
    bench.check_names(bench.BenchSettings(section="all", kernels=("lu", "blur9")))  # each known to one section
    with pytest.raises(ValueError, match="unknown kernel"):
        bench.check_names(bench.BenchSettings(section="all", kernels=("nope",)))
    assert [p.name for p, _ in bench.select_programs(("lu", "blur9", "gemm"), strict=False)] == ["blur9", "gemm"]


def test_results_and_compare():
    a = np.arange(3.0)
    assert numpy_rows.results((1.0, a), (a, 2)) == [1.0, a, a]
    assert numpy_rows.results(None, (a,)) == [a]
    assert numpy_rows.compare([a], [a + 1e-12]) == (True, pytest.approx(1e-12))
    assert numpy_rows.compare([a], [a, a]) == (False, None)
    assert numpy_rows.compare([a], [a[:2]]) == (False, None)


def test_the_one_thread_column_holds_the_library_at_one_thread():
    """polyfuse's one-thread contenders (loops and NumPy programs) run with NumPy's OpenBLAS on
    one thread too, so that products polyfuse hands to the library do not use a second core;
    the count is back as it was after the block."""
    from polyfuse.bench.machine import polyfuse_on
    from polyfuse.runtime import threads
    from polyfuse.runtime.linalg_library import thread_count_functions

    functions = thread_count_functions()
    if functions is None:
        pytest.skip("NumPy's BLAS here is not OpenBLAS with a thread count to read")
    get, put = functions
    before = get()
    put(2)
    try:
        with polyfuse_on(1):
            assert threads.get_num_threads() == 1 and get() == 1
        assert get() == 2
        with polyfuse_on(2):
            assert get() == 2
    finally:
        put(before)
