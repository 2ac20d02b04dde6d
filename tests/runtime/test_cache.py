"""The disk cache of compiled kernels: hits, explain() after a hit, unwritable folders, the CLI."""

from __future__ import annotations

import gc
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import polyfuse
from polyfuse.cli import main as cli_main
from polyfuse.options import Options
from polyfuse.runtime import cache


def axpy(a, X, Y):
    for i in range(X.shape[0]):
        Y[i] = a * X[i] + Y[i]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYFUSE_CACHE_DIR", str(tmp_path / "kernels"))
    monkeypatch.delenv("POLYFUSE_DISABLE_CACHE", raising=False)
    return tmp_path / "kernels"


def _run(kernel):
    X, Y = np.arange(5.0), np.ones(5)
    kernel(2.0, X, Y)
    return X, Y


def test_a_new_kernel_object_loads_the_compiled_code(cache_dir):
    first = polyfuse.kernel(axpy)
    _run(first)
    assert len(list(cache_dir.glob("*.pkl"))) == 1
    second = polyfuse.kernel(axpy)
    X, Y = _run(second)
    np.testing.assert_array_equal(Y, 2.0 * X + 1.0)
    variant = second.compile(2.0, X, Y)
    assert variant.from_cache
    explanation = second.explain(2.0, X, Y)
    assert explanation["cache"] == "loaded from the disk cache"
    assert "for _t0 in range(0, X.shape[0])" in explanation["loop code"]
    assert "define void" in second.inspect_llvm(2.0, X, Y)


def test_why_a_loop_is_parallel_is_computed_by_explain_and_kept_by_the_cache(cache_dir, monkeypatch):
    # astgen's reason is a LazyText: no isl check in the compile until explain() reads it (a
    # cache entry stores it unread), and the same words after a disk-cache load
    from polyfuse.model.loop_ast import For, LazyText, nodes

    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    X, Y = np.arange(5.0), np.ones(5)
    uncached = polyfuse.kernel(axpy)
    loops = [n for n in nodes(uncached.compile(2.0, X, Y).program.root) if isinstance(n, For) and n.parallel]
    assert loops and all(isinstance(n.why_parallel, LazyText) and n.why_parallel._text is None for n in loops)
    words = [loop["why"] for loop in uncached.explain(2.0, X, Y)["parallel loops"] if loop["parallel"]]
    assert words == [str(n.why_parallel) for n in loops] and all(isinstance(w, str) and w for w in words)
    monkeypatch.delenv("POLYFUSE_DISABLE_CACHE")
    stored = polyfuse.kernel(axpy)
    _run(stored)
    # storing the entry (its explanation with it) did not compute the reasons: they are pickled lazy
    loops = [n for n in nodes(stored.compile(2.0, X, Y).program.root) if isinstance(n, For) and n.parallel]
    assert loops and all(isinstance(n.why_parallel, LazyText) and n.why_parallel._text is None for n in loops)
    loaded = polyfuse.kernel(axpy)
    assert loaded.compile(2.0, X, Y).from_cache
    assert [loop["why"] for loop in loaded.explain(2.0, X, Y)["parallel loops"] if loop["parallel"]] == words


def smooth(A, B, steps):
    for t in range(steps):
        for i in range(1, A.shape[0] - 1):
            B[i] = A[i - 1] + A[i + 1]
        for i in range(1, A.shape[0] - 1):
            A[i] = 0.5 * B[i]


def _isl_objects(root) -> list:
    """The isl objects ``root`` keeps alive (through containers and bound methods, not through
    functions' globals)."""
    found, stack, seen = [], [root], set()
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (str, bytes, int, float, type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(obj))
        if type(obj).__module__.startswith("islpy"):
            found.append(obj)
        stack.extend(gc.get_referents(obj))
    return found


def test_a_loop_ast_keeps_no_isl_objects_for_its_reasons(monkeypatch):
    # the reasons keep isl text until explain() reads them (as fusion footprints do), not the
    # dependences; each loop's words name only the dependences among its own statements
    from polyfuse.model.loop_ast import For, nodes

    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    A, B = np.arange(8.0), np.zeros(8)
    k = polyfuse.kernel(smooth, fuse="none")
    loops = [n for n in nodes(k.compile(A, B, 3).program.root) if isinstance(n, For) and n.parallel]
    assert len(loops) == 2 and all(n.why_parallel._text is None for n in loops)
    assert _isl_objects(loops[0].why_parallel) == []
    assert [str(n.why_parallel) for n in loops] == [
        f"carries none of its statements' dependences (WAW on {array}): each is carried by an outer loop "
        "or stays within one iteration" for array in "BA"]
    assert [loop.get("why") for loop in k.explain(A, B, 3)["parallel loops"] if loop["parallel"]] == [
        str(n.why_parallel) for n in loops]
    smooth(A, B, 3)
    got = np.arange(8.0), np.zeros(8)
    k(*got, 3)
    np.testing.assert_array_equal(got[0], A)
    np.testing.assert_array_equal(got[1], B)


def test_options_are_part_of_the_key(cache_dir):
    _run(polyfuse.kernel(axpy, fuse="smart"))
    _run(polyfuse.kernel(axpy, fuse="none"))
    assert len(list(cache_dir.glob("*.pkl"))) == 2


def test_the_cache_sizes_time_tiling_reads_are_part_of_the_key(cache_dir, monkeypatch):
    """Time tiling sizes its tiles from the L2 size: another L2 must not load the other's code."""
    monkeypatch.delenv("POLYFUSE_TIME_TILE_SIZES", raising=False)
    monkeypatch.setenv("POLYFUSE_L2_BYTES", "256K")
    _run(polyfuse.kernel(axpy))
    monkeypatch.setenv("POLYFUSE_L2_BYTES", "4M")
    _run(polyfuse.kernel(axpy))
    assert len(list(cache_dir.glob("*.pkl"))) == 2


_DEFAULT_OFF_KNOBS = {"POLYFUSE_REGISTER_NARROWER_TILES"}  # the others default on


@pytest.mark.parametrize("knob", ["POLYFUSE_TILED_LSR", "POLYFUSE_TILED_WIDE", "POLYFUSE_OVERLAP_ROWS",
                                  "POLYFUSE_RECIPROCAL_QUOTIENTS", "POLYFUSE_ONE_ROW_COPY",
                                  "POLYFUSE_ROW_HEADS_ALIKE", "POLYFUSE_STACK_ROW_GEMM",
                                  "POLYFUSE_TILED_LOAD_PRE", "POLYFUSE_RARE_LOOPS", "POLYFUSE_LAZY_STREAMS",
                                  "POLYFUSE_REGISTER_TILES_WIDE", "POLYFUSE_REGISTER_CACHE_TILES",
                                  "POLYFUSE_REGISTER_NARROWER_TILES"])
def test_the_llvm_code_generation_knobs_are_part_of_the_key(cache_dir, monkeypatch, knob):
    """These knobs change the machine code an entry stores: one entry per setting."""
    monkeypatch.delenv(knob, raising=False)
    _run(polyfuse.kernel(axpy))
    monkeypatch.setenv(knob, "1" if knob in _DEFAULT_OFF_KNOBS else "0")
    _run(polyfuse.kernel(axpy))
    assert len(list(cache_dir.glob("*.pkl"))) == 2


@pytest.mark.parametrize("knob", ["POLYFUSE_FIRST_VIOLATION", "POLYFUSE_TILED_FROZEN_IVS"])
def test_session_35_compile_knobs_are_part_of_the_key(monkeypatch, knob):
    """Default on, 0 for A/B measurements: each setting its own key (no compile: cpu_key alone)."""
    monkeypatch.delenv(knob, raising=False)
    default = cache.cpu_key()
    monkeypatch.setenv(knob, "0")
    assert cache.cpu_key() != default


def test_the_prefetch_distance_is_part_of_the_key(monkeypatch):
    """Default off (0); a distance changes every function's machine code (backends/cpu/streams.py)."""
    monkeypatch.delenv("POLYFUSE_PREFETCH", raising=False)
    off = cache.cpu_key()
    monkeypatch.setenv("POLYFUSE_PREFETCH", "256")
    assert cache.cpu_key() != off


def test_the_packed_rows_knobs_are_part_of_the_key(monkeypatch):
    """Default off, 1 changes the code (backends/cpu/llvm.py shared_twins, passes/packed_rows.py)."""
    monkeypatch.delenv("POLYFUSE_PACKED_TWINS", raising=False)
    monkeypatch.delenv("POLYFUSE_PACKED_REST_LOOPS", raising=False)
    cpu, options = cache.cpu_key(), Options().key()
    monkeypatch.setenv("POLYFUSE_PACKED_TWINS", "1")
    assert cache.cpu_key() != cpu
    monkeypatch.setenv("POLYFUSE_PACKED_REST_LOOPS", "1")
    assert Options().key() != options


def test_the_mask_moves_guard_is_part_of_the_key(monkeypatch):
    """Entries made before the guard may hold llvm#191304's machine code (backends/cpu/mask_moves.py)."""
    monkeypatch.delenv("POLYFUSE_MASK_MOVES_GUARD", raising=False)
    guarded = cache.cpu_key()
    monkeypatch.setenv("POLYFUSE_MASK_MOVES_GUARD", "0")
    assert cache.cpu_key() != guarded


def test_cuda_promotion_settings_are_part_of_the_options_key(monkeypatch):
    monkeypatch.setenv("POLYFUSE_CUDA_SHARED_BYTES", "16384")
    small = Options(target="cuda").key()
    monkeypatch.setenv("POLYFUSE_CUDA_SHARED_BYTES", "32768")
    assert Options(target="cuda").key() != small
    assert "shared=" not in Options(target="cpu").key()


def test_disabled_cache_writes_nothing(cache_dir, monkeypatch):
    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    _run(polyfuse.kernel(axpy))
    assert not cache_dir.exists()


def test_unwritable_folder_warns_once_and_keeps_working(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("POLYFUSE_CACHE_DIR", str(blocker / "kernels"))
    monkeypatch.delenv("POLYFUSE_DISABLE_CACHE", raising=False)
    monkeypatch.setattr(cache, "_warned", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        X, Y = _run(polyfuse.kernel(axpy))
        _run(polyfuse.kernel(axpy, fuse="none"))
    np.testing.assert_array_equal(Y, 2.0 * X + 1.0)
    messages = [str(w.message) for w in caught if "cannot write the kernel cache" in str(w.message)]
    assert len(messages) == 1


def test_damaged_entry_is_a_miss(cache_dir):
    _run(polyfuse.kernel(axpy))
    for entry in cache_dir.glob("*.pkl"):
        entry.write_bytes(b"not a pickle")
    X, Y = _run(polyfuse.kernel(axpy))
    np.testing.assert_array_equal(Y, 2.0 * X + 1.0)


def test_cli_cache_info_and_clear(cache_dir, capsys):
    _run(polyfuse.kernel(axpy))
    assert cli_main(["cache", "info"]) == 0
    assert "entries: 1" in capsys.readouterr().out
    assert cli_main(["cache", "clear"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out
    assert not list(cache_dir.glob("*.pkl"))


def test_the_source_digest_covers_modules_in_subpackages(tmp_path):
    """Editing a module deep inside a stage folder changes the key: stale kernels are never reused."""
    stage = tmp_path / "polyfuse" / "schedule"
    stage.mkdir(parents=True)
    (tmp_path / "polyfuse" / "__init__.py").write_text("")
    (stage / "tiling.py").write_text("TILE = 32\n")
    before = cache.digest_of([tmp_path / "polyfuse"])
    (stage / "tiling.py").write_text("TILE = 64\n")
    assert cache.digest_of([tmp_path / "polyfuse"]) != before


def test_the_source_digest_reads_every_stage_folder():
    folders = cache.code_folders()
    hashed = {p.resolve() for folder in folders for p in folder.rglob("*.py")}
    import polyfuse.backends.cuda.plan

    import polyfuse.schedule.tiling

    for module in (polyfuse.schedule.tiling, polyfuse.backends.cuda.plan):
        assert Path(module.__file__).resolve() in hashed


def test_the_same_source_in_another_file_does_not_load_its_locations(cache_dir):
    """explain(), errors and bounds messages carry file and line: identical text elsewhere is
    another entry (a corpus kernel and a test kernel with the same body once shared one)."""
    from conftest import define

    text = "def twin(X, Y):\n    for i in range(X.shape[0]):\n        Y[i] = 2.0 * X[i]\n"
    first, second = define(text, "twin"), define("\n\n" + text, "twin")  # two fake files, other lines
    X, Y = np.arange(5.0), np.ones(5)
    polyfuse.kernel(first)(X, Y)
    kernel = polyfuse.kernel(second)
    kernel(X, Y)
    assert not kernel.compile(X, Y).from_cache
    assert len(list(cache_dir.glob("*.pkl"))) == 2


def shifted_copy(n, X, Y):
    for i in range(n):
        Y[i] = X[i + 1]


def test_out_of_bounds_message_after_a_cache_load(cache_dir):
    """The touched elements (kept as isl text in the entry) are parsed only to word the error."""
    X, Y = np.zeros(4), np.zeros(4)
    polyfuse.kernel(shifted_copy)(3, X, Y)
    loaded = polyfuse.kernel(shifted_copy)
    assert loaded.compile(3, X, Y).from_cache
    with pytest.raises(polyfuse.ArgumentError, match=r"touches X\[1\.\.4\] but axis 0 of X has extent 4"):
        loaded(4, X, Y)
