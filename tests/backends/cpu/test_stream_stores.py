"""Non-temporal stores (backends/cpu/streams.py): which loops get them, and NumPy's bits from the
split loops for outputs at every offset from a 64-byte boundary, of several lengths, element
sizes and strides, on one thread and on the team."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import HAS_CPU, threads_forced

import polyfuse
from polyfuse.errors import ArgumentError

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")


def _triad(s, a, b, c):
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]


def _update(a, b):
    for i in range(a.shape[0]):
        a[i] = a[i] + b[i]


def _scaled(x, scale):
    return np.clip(np.rint(x / scale), -127.0, 127.0).astype(np.int8)


def _halves(x):
    return (x * 0.5).astype(np.float32)


@pytest.fixture
def streaming(monkeypatch):
    """Every eligible loop streams (a threshold of 64 bytes), the disk cache out of the way."""
    monkeypatch.setenv("POLYFUSE_STREAM_STORES", "64")
    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")


def _nontemporal(kernel, *args) -> int:
    return kernel.inspect_llvm(*args).count("!nontemporal !")


def test_a_result_written_and_never_read_streams(streaming):
    rng = np.random.default_rng(0)
    b, c, a = rng.random(100), rng.random(100), np.empty(100)
    assert _nontemporal(polyfuse.kernel(_triad), 3.0, a, b, c) > 0
    assert _nontemporal(polyfuse.kernel(_halves), b) > 0  # float32 results too


def test_narrow_results_keep_ordinary_stores(streaming):
    x = np.random.default_rng(0).random(100)
    assert _nontemporal(polyfuse.kernel(_scaled), x, 0.02) == 0  # int8: x86 drops the hint


def test_an_array_the_kernel_reads_does_not(streaming):
    rng = np.random.default_rng(0)
    a, b = rng.random(100), rng.random(100)
    assert _nontemporal(polyfuse.kernel(_update), a, b) == 0


def _sigmoid(x, out):
    for i in range(x.shape[0]):
        out[i] = 1.0 / (1.0 + math.exp(-x[i]))


def test_math_loops_stream_with_their_knob_only(streaming, monkeypatch):
    x = np.random.default_rng(0).standard_normal(203)
    assert _nontemporal(polyfuse.kernel(_sigmoid), x, np.empty(203)) == 0  # bound by the arithmetic
    monkeypatch.setenv("POLYFUSE_STREAM_MATH", "1")
    kernel, out = polyfuse.kernel(_sigmoid), np.empty(203)
    assert _nontemporal(kernel, x, out) > 0
    kernel(x[1:], out[1:])  # a head loop to the 64-byte boundary, then the streamed part
    expected = np.empty(202)
    _sigmoid(x[1:], expected)
    np.testing.assert_allclose(out[1:], expected, rtol=1e-15)


def test_the_knob_turns_them_off_and_checks_its_value(monkeypatch):
    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    monkeypatch.setenv("POLYFUSE_STREAM_STORES", "0")
    rng = np.random.default_rng(0)
    b, c, a = rng.random(100), rng.random(100), np.empty(100)
    assert _nontemporal(polyfuse.kernel(_triad), 3.0, a, b, c) == 0
    monkeypatch.setenv("POLYFUSE_STREAM_STORES", "lots")
    with pytest.raises(ArgumentError, match="POLYFUSE_STREAM_STORES"):
        polyfuse.kernel(_triad)(3.0, a, b, c)


@pytest.mark.parametrize("n", [0, 1, 7, 9, 64, 203])
def test_outputs_at_every_offset_and_stride(streaming, n):
    rng = np.random.default_rng(n)
    b, c = rng.random(n), rng.random(n)
    kernel = polyfuse.kernel(_triad)
    for offset in range(9):  # 8 bytes apart: every place a float64 can start in a 64-byte line
        for step in (1, 2):
            memory = np.full(offset + step * n + 9, -1.0)
            a = memory[offset:offset + step * n:step]
            kernel(3.0, a, b, c)
            expected = np.full_like(memory, -1.0)
            expected[offset:offset + step * n:step] = b + 3.0 * c
            np.testing.assert_array_equal(memory, expected)  # nothing outside a written


@pytest.mark.parametrize("func", [_scaled, _halves])
def test_narrow_results(streaming, func):
    x = np.random.default_rng(1).standard_normal(301)
    kernel = polyfuse.kernel(func)
    for offset in range(5):
        view = x[offset:]
        args = (view, 0.02) if func is _scaled else (view,)
        result = kernel(*args)
        expected = func(*args)
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result, expected)


def test_on_the_team(streaming):
    rng = np.random.default_rng(2)
    n = 4099
    b, c = rng.random(n), rng.random(n)
    with threads_forced():
        polyfuse.set_num_threads(2)
        kernel = polyfuse.kernel(_triad)
        for offset in (0, 3):
            memory = np.zeros(n + 8)
            kernel(3.0, memory[offset:offset + n], b, c)
            np.testing.assert_array_equal(memory[offset:offset + n], b + 3.0 * c)
        assert kernel.compile(3.0, memory[:n], b, c).backend.phase_runs


def _scaled_rows(a, b, c):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = b[i, j] + 2.0 * c[i, j]


def _passes(a, b):
    for t in range(3):
        for i in range(a.shape[0]):
            a[i] = b[i] * t


@pytest.mark.parametrize("threads", [1, 2])
def test_rows_of_a_matrix_stream_together(streaming, threads):
    """A 2-d result streams by rows (their runs counted together); each row of a padded view
    starts at another offset from a line, so every row has its own head loop."""
    rng = np.random.default_rng(3)
    with threads_forced():
        polyfuse.set_num_threads(threads)
        kernel = polyfuse.kernel(_scaled_rows)
        for rows, cols in ((1, 1), (5, 3), (37, 29), (64, 131)):
            b, c = rng.random((rows, cols)), rng.random((rows, cols))
            for pad in (0, 1, 3):
                memory = np.full((rows, cols + pad + 1), -1.0)
                a = memory[:, 1:cols + 1]
                kernel(a, b, c)
                expected = np.full_like(memory, -1.0)
                expected[:, 1:cols + 1] = b + 2.0 * c
                np.testing.assert_array_equal(memory, expected)
        assert _nontemporal(kernel, a, b, c) > 0


def test_repeated_passes_over_one_result(streaming):
    rng = np.random.default_rng(4)
    b = rng.random(301)
    a = np.empty(301)
    polyfuse.kernel(_passes)(a, b)
    np.testing.assert_array_equal(a, b * 2)


def _twice_row(x, out):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = 2.0 * x[j]


def _checked_calls(kernel, calls):
    """Each call's result against the user's function's, on fresh arrays full of -1."""
    for args in calls:
        got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        kernel(*got)
        kernel.py_func(*want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_the_streaming_twin_is_made_when_a_call_first_may_stream(streaming, monkeypatch, tmp_path):
    """POLYFUSE_LAZY_STREAMS (default on): the phase function holds its loop once, plain; the
    non-temporal copy is a twin, generated for the first call whose arrays hold the threshold's
    bytes (here 64), or after the first call whose run would have streamed (a broadcast row is
    read again for every row of the result: the loop moves more than the arrays hold).  Both
    copies give the user's function's bits; the twin's machine code goes into the disk cache
    with the rest, and a process that loads the entry links it instead of running LLVM."""
    monkeypatch.delenv("POLYFUSE_DISABLE_CACHE")
    monkeypatch.setenv("POLYFUSE_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(5)
    triad = polyfuse.kernel(_triad)
    small = (3.0, np.full(2, -1.0), rng.random(2), rng.random(2))  # 48 bytes of arrays
    backend = triad.compile(*small).backend
    (plain, twin), = backend.artifact.streamed
    _checked_calls(triad, [small])
    assert plain in backend.generated and twin not in backend.generated
    assert list(backend.stream_sizes.values()) == [False]  # (the small sizes' bytes summed once)
    _checked_calls(triad, [(3.0, np.full(203, -1.0), rng.random(203), rng.random(203)), small])
    assert twin in backend.generated  # (and the plain function forwards to it)
    loaded = polyfuse.kernel(_triad).compile(*small)
    assert loaded.from_cache and twin in loaded.backend.known

    monkeypatch.setenv("POLYFUSE_STREAM_STORES", "4K")  # rows of 128 float64 (1 KiB) stream
    row = polyfuse.kernel(_twice_row)
    x = rng.random(128)
    call = (x, np.full((2, 128), -1.0))  # 3 KiB of arrays; 2 x 128 x (8 + 8) bytes moved
    backend = row.compile(*call).backend
    (plain, twin), = backend.artifact.streamed
    _checked_calls(row, [call])
    assert backend.generated[-1] == twin  # after the plain run that wanted it
    _checked_calls(row, [call, (x[:100], np.full((3, 100), -1.0))])


def test_prefetched_loads_text():
    """``prefetched_loads`` (POLYFUSE_PREFETCH): a prefetch of the address ``distance`` bytes on
    before each float vector load, declared once; scalar and integer loads, and distance 0, as
    they were."""
    from polyfuse.backends.cpu.streams import prefetched_loads

    text = ("define void @f(ptr %a, ptr %b) {\n  %v = load <8 x double>, ptr %a, align 8, !tbaa !3\n"
            "  %w = load <16 x float>, ptr %b, align 4\n  %s = load double, ptr %a, align 8\n"
            "  %i = load <8 x i64>, ptr %b, align 8\n  ret void\n}\n")
    assert prefetched_loads(text, 0) == text
    out = prefetched_loads(text, 256)
    assert out.count("call void @llvm.prefetch.p0(") == 2 and out.count("declare void @llvm.prefetch.p0(") == 1
    assert "getelementptr i8, ptr %a, i64 256" in out and "getelementptr i8, ptr %b, i64 256" in out


def test_prefetched_loads_on_the_team(monkeypatch):
    """bicg's fused pair (8 rows side by side, partial sums per chunk) with its vector loads
    prefetched, on the team: the user's function's values; a bad size is refused."""
    from polyfuse.bench import suite

    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    monkeypatch.setenv("POLYFUSE_PREFETCH", "256")
    entry = suite.get("bicg")
    args = entry.make_args(np.random.default_rng(5), m=75, n=131)
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with threads_forced():
        polyfuse.set_num_threads(2)
        kernel = polyfuse.kernel(entry.func)
        for _ in range(2):  # (the first run of a phase is measured on one thread)
            ours = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            kernel(*ours)
        assert kernel.compile(*args).backend.phase_runs
    entry.func(*expected)
    for a, b in zip(ours, expected):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-12)
    assert "@llvm.prefetch.p0(" in kernel.inspect_llvm(*args)
    monkeypatch.setenv("POLYFUSE_PREFETCH", "far")
    with pytest.raises(ArgumentError, match="POLYFUSE_PREFETCH"):
        polyfuse.kernel(entry.func)(*args)
