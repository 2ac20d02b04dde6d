"""Compilation options, and every ``POLYFUSE_*`` environment knob, typed.

This is the one module that reads the environment: passes take what they need as arguments
(the compiler passes them from ``Options``), so a pass's output depends only on its inputs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from polyfuse import hardware
from polyfuse.errors import ArgumentError

TARGETS = ("cpu", "python", "cuda")
FUSE_MODES = ("none", "smart", "max")
INTERLEAVE_COPIES = 4  # iterations side by side around a float reduction, interleave=True (polyfuse.passes.interleave)
SUM_BLOCK = 2048  # terms per innermost chunk of a NumPy float sum (polyfuse.passes.blocked_sums)
CACHE_SIZE_KNOBS = {"l1d": "POLYFUSE_L1_BYTES", "l2": "POLYFUSE_L2_BYTES", "l3": "POLYFUSE_L3_BYTES",
                    "line": "POLYFUSE_LINE_BYTES"}
DEFAULT_ISL_OPERATIONS = 3_000_000
# one compile's optional isl work (model/isl_budget.Deadline): operations of the transformations
# that ran out of theirs, and optional blocks in all (the suite and NumPy programs: none ran out,
# at most 138 blocks); a safety net on CPU time above both.  One transformation's budget: the
# first optional step that runs out ends optional work (regression programs b and e took 2-4x the
# CPU of the old 5 s wall-clock deadline with four budgets, as much as before with one)
DEFAULT_COMPILE_OPERATIONS = DEFAULT_ISL_OPERATIONS
DEFAULT_COMPILE_BLOCKS = 2_000
DEFAULT_COMPILE_SECONDS = 30.0


def env_flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() not in ("", "0", "false", "no", "off")


def env_text(name: str) -> str:
    """The variable's text, "" when unset."""
    return os.environ.get(name, "")


# ---- the machine, as detected and as overridden ----------------------------------------------

def machine(root=hardware.CACHE_ROOT) -> hardware.CpuInfo:
    """Cache sizes and CPUs: sysfs, overridden by ``POLYFUSE_L1_BYTES`` / ``_L2_`` / ``_L3_`` /
    ``POLYFUSE_LINE_BYTES`` (e.g. ``2M``)."""
    overrides = {key: hardware.parse_size(os.environ[name])
                 for key, name in CACHE_SIZE_KNOBS.items() if os.environ.get(name)}
    return hardware.cpu_info(root, overrides)


def vector_bytes() -> int:
    """SIMD register width: ``POLYFUSE_VECTOR_BYTES``, else the CPU's (hardware.simd_bytes)."""
    text = os.environ.get("POLYFUSE_VECTOR_BYTES")
    return int(text) if text else hardware.simd_bytes()


def register_tile_sums(vector_bytes: int) -> int:
    """``POLYFUSE_REGISTER_TILE_SUMS``: the vectors of sums a register tile keeps in registers
    (schedule/tiling.py ``choose_register_tile``: 4 rows of a quarter of them each).  Default half
    the vector registers of ``vector_bytes``' ISA: 16 with AVX-512 (4 x 4 vectors), 8 with AVX2
    (4 x 2); the rest hold a row of the right operand, the broadcasts and the products.  A bad
    value is an ArgumentError."""
    text = os.environ.get("POLYFUSE_REGISTER_TILE_SUMS", "").strip()
    if not text:
        return hardware.vector_registers(vector_bytes) // 2
    if not text.isdigit() or int(text) < 1:
        raise ArgumentError(f"POLYFUSE_REGISTER_TILE_SUMS={text!r}: a positive number of vector registers")
    return int(text)


#: Inline math whose loops ran slower with 4 vectors side by side than with fewer on AVX-512 (znver4,
#: one thread, 250 K float64 elements, min of 150 interleaved rounds; counts 1 / 2 / 4, ms): atan
#: 0.280 / 0.313 / 0.332, asin 0.505 / 0.445 / 0.462, acos 0.508 / 0.459 / 0.507, asinh 0.751 /
#: 0.657 / 0.766, acosh 0.867 / 0.748 / 0.857, expm1 0.437 / 0.410 / 0.426 (atan2, atanh and the
#: rest were fastest at 4).  A loop takes the smallest count of the functions in it.
WIDE_MATH_INTERLEAVE = {"atan": 1, "asin": 2, "acos": 2, "asinh": 2, "acosh": 2, "expm1": 2}


def math_loop_interleave(functions: Iterable[str] = (), chains: int = 1) -> int:
    """``POLYFUSE_MATH_INTERLEAVE``: how many vectors a loop with inline transcendentals works on
    side by side (backends.cpu.llvm, ``interleave_math_loops``).  Default 4 with 512-bit vectors
    (AVX-512 has 32 vector registers), lowered for the ``functions`` in the loop that run faster
    with fewer (``WIDE_MATH_INTERLEAVE``), else 2 (AVX2's 16 spilled at 4); a set value applies to
    every loop; a bad value is an ArgumentError.  A loop whose body has ``chains`` statements that
    compute transcendentals (rows the interleave pass put side by side: softmax's 8) already has
    that many independent chains per iteration: with ``math_chains`` (default on) the default is
    divided by them, down to 1."""
    count = _count("POLYFUSE_MATH_INTERLEAVE")
    if count is not None:
        return count
    if vector_bytes() < 64:
        base = 2
    else:
        base = min([4, *(WIDE_MATH_INTERLEAVE.get(f, 4) for f in functions)])
    return max(1, base // chains) if math_chains() else base


def math_chains() -> bool:
    """``POLYFUSE_MATH_CHAINS=0``: a loop with several statements that compute transcendentals
    keeps the full interleave count of ``math_loop_interleave``; by default it is divided by their
    number.  softmax ran 4-5% faster with it on an Intel VM, LLVM's work on it fell 0.43 -> 0.32 s
    (docs/performance.md, *One copy of a headed row's loop, session 30*); on the AMD VM
    (session 33) attention_rows and softmax ran as fast with it (one thread, min of 41: 8.22 /
    8.22 ms, 6.71 / 6.77) and attention_rows' first call compiled ~0.2 s sooner."""
    return env_flag("POLYFUSE_MATH_CHAINS", True)


def _count(variable: str) -> int | None:
    """The positive integer environment ``variable`` holds (None when unset); a bad value is an
    ArgumentError naming it."""
    value = os.environ.get(variable)
    if not value:
        return None
    try:
        count = int(value)
    except ValueError:
        raise ArgumentError(f"{variable}={value!r} is not an integer") from None
    if count < 1:
        raise ArgumentError(f"{variable}={value!r} must be at least 1")
    return count


# ---- run-time knobs ----------------------------------------------------------------------------

def num_threads() -> int | None:
    """``POLYFUSE_NUM_THREADS`` (None when unset); a bad value is an ArgumentError."""
    return _count("POLYFUSE_NUM_THREADS")


def isl_operations() -> int:
    """isl operations one optional transformation may spend: ``POLYFUSE_ISL_BUDGET`` (0: unlimited)."""
    value = os.environ.get("POLYFUSE_ISL_BUDGET")
    return int(value) if value else DEFAULT_ISL_OPERATIONS


def jit_small_code() -> bool:
    """``POLYFUSE_JIT_SMALL_CODE``: x86-64 machine code in the small code model with PIC, constants
    addressed relative to the instruction (backends.cpu.llvm.JIT_CODE_MODEL).  Default on; 0 gives
    LLVM's JIT default (large: 64-bit constant addresses)."""
    return env_flag("POLYFUSE_JIT_SMALL_CODE", True)


def mask_moves_guard() -> bool:
    """``POLYFUSE_MASK_MOVES_GUARD``: functions at risk of LLVM 22's miscompiled sign masks
    (``vpmov*2m`` + ``kmov`` made a VEX ``vmovmskpd`` of ymm16-31, llvm/llvm-project#191304) are
    generated without AVX512DQ/BW (backends/cpu/mask_moves.py).  Default on; 0 for A/B."""
    return env_flag("POLYFUSE_MASK_MOVES_GUARD", True)


def row_alias_checks() -> bool:
    """``POLYFUSE_ROW_ALIAS_CHECKS``: the vectorizer's run-time overlap checks stay with the loop
    they guard instead of being hoisted over the loops around it (backends.cpu.llvm,
    ``PIPELINE_OPTIONS``).  Default on; 0 gives LLVM's default (hoisted)."""
    return env_flag("POLYFUSE_ROW_ALIAS_CHECKS", True)


def stream_store_bytes() -> int:
    """``POLYFUSE_STREAM_STORES``: from how many bytes an innermost parallel loop moves (an
    element of each array it touches per iteration, all threads together, times the runs of it
    that store other elements: a 2-d result's rows), its stores to an array that the kernel never
    reads are non-temporal: they bypass the caches and skip the read of each line before its
    write (backends/cpu/streams.py; a run must also store ``streams.MIN_STREAM_ROW`` bytes, or
    this size where smaller).  Default the last-level cache's size
    (``machine().l3``); sizes as ``16M``; 0 turns them off; a bad value is an ArgumentError."""
    text = os.environ.get("POLYFUSE_STREAM_STORES")
    if text is None or not text.strip():
        return machine().l3
    try:
        return hardware.parse_size(text)
    except ValueError:
        raise ArgumentError(f"POLYFUSE_STREAM_STORES={text!r} is not a size (bytes, or with K, M, G)") from None


def lazy_streams() -> bool:
    """``POLYFUSE_LAZY_STREAMS``: a function with a loop that may stream its stores (non-temporal,
    ``POLYFUSE_STREAM_STORES``) holds that loop once, plain, and checks at run time whether a run
    of it is long enough to stream; the twin with the streaming copy (a function of its own,
    machine code kept with the kernel's in the disk cache) is generated before the first call
    whose arrays hold ``stream_store_bytes()`` together, or after the first call where a run
    wanted it, and later calls run it (backends/cpu/llvm.py ``LLVMKernel.switch_streams``).
    Default on: the copy was 30-45% of LLVM's work on small kernels that never stream; 0 puts
    both copies in the one function."""
    return env_flag("POLYFUSE_LAZY_STREAMS", True)


def prefetch_bytes() -> int:
    """``POLYFUSE_PREFETCH``: after LLVM's optimiser, every vector load of float64/float32
    elements gets a software prefetch (``llvm.prefetch``, read, to L1) of the address this many
    bytes past it (backends/cpu/streams.py ``prefetched_loads``).  A hardware prefetcher follows
    each stream of lines, but a block of rows read side by side (atax, bicg and mvt read 8 rows
    of ``A`` at once) is 8 streams per core.  256 bytes (4 lines ahead): one-thread CPU time at
    the bench size 3-8% lower for atax, bicg and mvt in 9 of 9 interleaved pairs (load 11-12;
    docs/performance.md, session 37 mv50), but kernels that read from the caches lost (one
    thread, three runs: jacobi-2d 1.09-1.13x, conv_bn_relu 1.05-1.12x, heat-3d 1.04-1.11x the time), and two
    threads were not measured on a quiet machine, so default 0 (off).  Sizes as ``256`` or
    ``1K``; read at compile time (part of the disk cache's key); a bad value is an ArgumentError."""
    text = os.environ.get("POLYFUSE_PREFETCH")
    if text is None or not text.strip():
        return 0
    try:
        size = hardware.parse_size(text)
    except ValueError:
        size = -1
    if size < 0:
        raise ArgumentError(f"POLYFUSE_PREFETCH={text!r} is not a size (bytes, or with K, M, G)")
    return size


def vector_checks() -> bool:
    """``POLYFUSE_VECTOR_CHECKS``: a loop nest whose statements hold run-time checks (ir.Check:
    NumPy's element-store range checks, asserts) and read no array or scalar they write runs
    first with each check or-ed into a flag local to the function (backends/cpu/llvm.py
    ``KernelCodegen._emit_checked_twice``): no branch per element, so LLVM vectorizes it; where
    the flag is set the nest runs again as written, whose checks record the first failure as
    before (the same inputs, so the same values and the same stores).  Default on: ``y_int8[i] =
    x_int64[i] + n`` ~610 -> ~110 us, ``y_int32[i] = x_float64[i] + n`` ~2410 -> ~230 us at 2^20
    elements (ir.Check.guard; docs/performance.md, ov46); 0: every check branches where it runs."""
    return env_flag("POLYFUSE_VECTOR_CHECKS", True)


def guarded_checks() -> bool:
    """``POLYFUSE_GUARDED_CHECKS``: a check that branches where it runs and has a guard (ir.Check.
    guard, a cheaper test that holds wherever it fails: the float store checks' one range test for
    their four) branches on the guard first and computes its operand and its own test only where the
    guard holds (backends/cpu/llvm_exprs.py ``ExprEmitter._Check``).  Default on: ``y_int32[i] =
    x_float64[i] + n`` with branching checks (a nest that reads what it writes, or
    ``POLYFUSE_VECTOR_CHECKS=0``) 3.2 -> 1.8 ms at 2^20 elements, one thread (fe08657 2.4;
    docs/performance.md, session 36 ov48); 0: each check's own test branches (ov47's form)."""
    return env_flag("POLYFUSE_GUARDED_CHECKS", True)


def tiled_frozen_ivs() -> bool:
    """``POLYFUSE_TILED_FROZEN_IVS``: in the functions of time-tiled nests, each loop at least
    ``FROZEN_IV_DEPTH`` (5) loops deep reads the variables of the loops around it through LLVM's
    ``freeze`` (backends/cpu/llvm.py ``KernelCodegen._freeze_outer``): the same values, which
    LLVM's scalar evolution then takes as opaque inside the loop instead of expressions of every
    loop further out.  Loop strength reduction re-checked those expressions at every lookup:
    heat-3d's region function 149 -> 80 ms of code generation (docs/performance.md, *Session 35:
    compile time*).  Default on; 0: the loops' recurrences as before."""
    return env_flag("POLYFUSE_TILED_FROZEN_IVS", True)


def first_violation() -> bool:
    """``POLYFUSE_FIRST_VIOLATION``: the check of a schedule candidate (a fusion, a loop order, a
    tiling, isl's schedule, time tiles) stops at the first array whose dataflow it changes
    (analysis/verify.py ``schedule_violations(first=True)``): one problem refuses it, and
    checking the other arrays cost as much again (heat-3d's refused loop order: B's dataflow, 41
    ms after A's had failed).  The recorded reason then names that array's problems only.
    Default on; 0 checks every array of every candidate (as before session 35; part of the cache
    key: a candidate's isl work counts against the operation budget)."""
    return env_flag("POLYFUSE_FIRST_VIOLATION", True)


def row_tails() -> bool:
    """``POLYFUSE_ROW_TAILS``: the rows of a time-tiled out-of-place sweep end with one vector
    step over their last elements (repeating a few) instead of a scalar remainder (backends.cpu.llvm,
    ``_emit_row_tail``).  Default on; 0 keeps LLVM's scalar remainder."""
    return env_flag("POLYFUSE_ROW_TAILS", True)


def carried_loads_enabled() -> bool:
    """``POLYFUSE_CARRIED_LOADS``: a serial row loop's loads of what it stored a few iterations
    before come from registers (polyfuse/analysis/carried_loads.py).  Default on; 0 loads them from memory."""
    return env_flag("POLYFUSE_CARRIED_LOADS", True)


def carried_loads_guarded() -> bool:
    """``POLYFUSE_CARRIED_GUARD``: a loop with carried loads (``carried_loads_enabled``) runs them
    only where it has at least as many iterations as its longest queue, whose preloads then read
    the elements its first iterations load, at plain addresses; a copy of the loop without queues
    (scalar) runs shorter rows.  Default on: 0 keeps one loop whose preloads clamp each address to
    the loop's last iteration (a select), after which LLVM's vector loop for queues of 2 and more
    took twice the shuffles (two 5-point sweeps fused: 1.5x slower; docs/performance.md, *Session 34*)."""
    return env_flag("POLYFUSE_CARRIED_GUARD", True)


#: Rows shorter than this many vectors (per sweep fused into the first: three sweeps, twice as
#: many) run the sweeps of a time step as separate row loops on the untiled side of the whole-row
#: version, not fused (``Options.time_tile_fused_rows``, ``POLYFUSE_TIME_TILE_FUSED_ROWS_MIN``; 0:
#: fused at every length).  The fused loop ends each row
#: in up to 2 x lanes - 1 scalar iterations of every sweep (LLVM's vector loop takes two vectors
#: a step; no row tail: it reads what it stored), the separate loops in one overlapping vector
#: step each (``row_tail_lanes``).
FUSED_ROWS_MIN_VECTORS = 64

#: Rows shorter than this many vectors get no row head (``row_heads``).  The head is one vector
#: step more per row; with heads only where the arrays lie alike (``row_heads_alike``) heat-3d's
#: rows of 118 points (15 steps) won it back, 1.04-1.05x at LARGE, and rows of 78 1.07x where
#: the arrays lie alike, even where not (docs/performance.md, *Row heads where the arrays lie
#: alike*; 20 before, when heads also ran where they aligned the stores only).
ROW_HEAD_MIN_VECTORS = 8


def row_heads() -> int:
    """``POLYFUSE_ROW_HEADS``: a row that gets row tails (``row_tails``) and is at least this many
    vectors long also starts with one vector step over its first elements, and its vector loop then
    starts at the first element whose store address is a multiple of the vector's bytes (repeating
    up to a vector's worth of the head's iterations), so that the loop's stores, and the loads of
    arrays laid out like the stored one, are whole cache lines (backends.cpu.llvm,
    ``_emit_row_tail``).  Default (or 1, on) ``ROW_HEAD_MIN_VECTORS``; another number that many
    vectors; 0 (off) starts every vector loop at its row's first element."""
    text = env_text("POLYFUSE_ROW_HEADS").strip().lower()
    if text in ("0", "off", "false", "no"):
        return 0
    if text in ("", "1", "on", "true", "yes"):
        return ROW_HEAD_MIN_VECTORS
    if not text.isdigit():
        raise ArgumentError(f"POLYFUSE_ROW_HEADS={text!r} is not a number of vectors (or 0, 1)")
    return int(text)


def row_heads_alike() -> bool:
    """``POLYFUSE_ROW_HEADS_ALIKE``: a row takes its head (``row_heads``) only where every other
    array its statements access with the stored array's element size starts at the same offset
    modulo the vector's bytes as the stored one, so that aligning the stores aligns those
    arrays' loads at the same elements too (backends.cpu.llvm, ``_laid_out_alike``).  Where they
    lie apart, the head aligned the stores and left every load split, one vector step more per
    row for nothing: jacobi-2d 0.91-0.94x against no heads, and NumPy's allocator gives two
    large arrays allocated after a large one was freed offsets 48 bytes apart modulo 64
    (docs/performance.md, *Row heads where the arrays lie alike*).  Default on; 0 takes the head
    wherever the stores allow it."""
    return env_flag("POLYFUSE_ROW_HEADS_ALIKE", True)


def one_row_copy() -> bool:
    """``POLYFUSE_ONE_ROW_COPY``: a row with heads (``row_heads``) emits its counted loop and
    tail once, after the head's step where it runs, instead of one copy for each of the head's
    three cases (backends.cpu.llvm, ``_headed_row``): the same loops, a third of the code for
    LLVM to optimise and generate.  Default on; 0 emits the three copies."""
    return env_flag("POLYFUSE_ONE_ROW_COPY", True)


def one_thread_tiles() -> bool:
    """``POLYFUSE_ONE_THREAD_TILES``: a team of one thread runs a time-tiled nest's tiles in
    lexicographic order or by columns instead of wavefronts (polyfuse.schedule.time_tiling,
    ``one_thread_order``; backends.cpu.llvm, ``KernelCodegen.emit_tile_orders``): the order is
    chosen at run time by the team's size, in the one region function.  Default on; 0 keeps the
    wavefronts on one thread too."""
    return env_flag("POLYFUSE_ONE_THREAD_TILES", True)


def rare_loops() -> bool:
    """``POLYFUSE_RARE_LOOPS``: loops on rarely taken paths (``loop_ast.For.rare``: the exact rerun of
    a min/max reduction whose lanes found a zero or a NaN, passes/lanes.py) are generated with
    LLVM's unrolling and vectorizing off (backends.cpu.llvm, ``RARE_LOOP``): the rerun is a
    compare-and-select chain that neither speeds up, and attention_rows' softmax phase has eight
    of them (its interleaved rows), a sixth of the instructions LLVM generated for it
    (docs/performance.md, *Session 34: compile time*).  0: LLVM's defaults (for A/B measurements)."""
    return env_flag("POLYFUSE_RARE_LOOPS", True)


def tiled_lsr() -> bool:
    """``POLYFUSE_TILED_LSR``: LLVM's loop strength reduction runs on the machine code of
    time-tiled nests too (backends.cpu.llvm, ``without_lsr``).  Default on (LLVM's default
    everywhere); 0 generates those functions without it: a third of their code generation
    (fdtd-2d 0.33 s of 0.95), at a run-time cost: fdtd-2d 3-6% slower per call on one thread,
    interleaved on a loaded machine (docs/performance.md, *Compile time*, sessions 18 and 22)."""
    return env_flag("POLYFUSE_TILED_LSR", True)


def tiled_load_pre() -> bool:
    """``POLYFUSE_TILED_LOAD_PRE``: GVN's load PRE across loop iterations runs on the functions of
    time-tiled nests (backends.cpu.llvm, ``without_load_pre``).  Default on (LLVM's default
    everywhere); 0 optimises those functions with ``-enable-load-in-loop-pre=false``: a stencil's
    row loop then loads ``A[k]`` again instead of rebuilding it from the previous iteration's
    ``A[k + 1]`` with a shuffle (docs/performance.md, *Stencils against gcc, session 33*)."""
    return env_flag("POLYFUSE_TILED_LOAD_PRE", True)


def tiled_wide() -> bool:
    """``POLYFUSE_TILED_WIDE``: the functions of time-tiled nests prefer the CPU's widest vectors
    (backends.cpu.llvm, ``tiled_functions``).  Default on; 0 leaves LLVM's preference for the CPU
    (256 bits on Intel's AVX-512 server cores)."""
    return env_flag("POLYFUSE_TILED_WIDE", True)


def register_tiles_wide() -> bool:
    """``POLYFUSE_REGISTER_TILES_WIDE``: the functions of nests with register tiles
    (passes/registers.py) prefer the CPU's widest vectors (backends.cpu.llvm, ``tiled_functions``),
    the width their tiles are sized for (schedule/tiling.py: two vectors of ``simd_bytes``).
    Default on; 0 leaves LLVM's preference (256 bits on Intel's AVX-512 cores, where a 4 x 16
    tile became 16 half-width sums: docs/performance.md, *Session 40 (gm56)*)."""
    return env_flag("POLYFUSE_REGISTER_TILES_WIDE", True)


def tiled_twins() -> bool:
    """``POLYFUSE_TILED_TWINS``: a parallel region that runs a time-tiled nest gets a serial
    twin of its own (the same loops without the team's chunks and barriers) instead of a small
    function that runs the region function on one thread (backends.cpu.llvm,
    ``shared_twins``).  Default off: the twin doubled LLVM's work on those nests (fdtd-2d,
    heat-3d), and the region on one thread runs as fast (docs/performance.md, *Compile time,
    session 19*); 1 brings the twins back."""
    return env_flag("POLYFUSE_TILED_TWINS", False)


def product_twins() -> bool:
    """``POLYFUSE_PRODUCT_TWINS``: a matrix product cut into row chunks (phases.row_chunked) keeps
    two copies of its layout tests, BLAS calls and fallback loops in its phase function, one for a
    chunk's rows and one for the serial run of every row (backends/cpu/blas.py
    ``MatmulEmitter.emit``).  Default off: the serial run is the chunk of every row, one copy
    (attention's two products: ~0.1 s less of LLVM on the first call; docs/performance.md, *Compile
    time, session 32*); 1 brings the second copy back."""
    return env_flag("POLYFUSE_PRODUCT_TWINS", False)


def packed_twins() -> bool:
    """``POLYFUSE_PACKED_TWINS``: a parallel region that runs packed rows (passes/packed_rows.py:
    cholesky's blocked update, W rows at once) gets a serial twin of its own instead of a small
    function that runs the region function on one thread (backends.cpu.llvm, ``shared_twins``).
    Default off: the W copies of the row statements make the body large (cholesky's twin: ~4,900
    LLVM instructions, ~0.5 s of LLVM's optimiser and code generator), and the whole kernel on one
    thread runs within +-3% of the twins' (docs/performance.md, *Compile time, session 31*); 1
    brings the twins back."""
    return env_flag("POLYFUSE_PACKED_TWINS", False)


def blas_row_chunks() -> bool:
    """``POLYFUSE_BLAS_ROW_CHUNKS``: a matrix product kept whole runs as a phase polyfuse's threads
    cut by rows, each chunk on BLAS with one thread (backends.cpu.phases.row_chunked).  NumPy's
    OpenBLAS (pthreads build) keeps one thread count for the whole process, so the team's caller
    sets it to 1 once around the team run, counted across nested and concurrent calls, and the
    last one out restores it (runtime.linalg_library.blas_on_one_thread).  Default on; 0 leaves
    the products to the library's own threads."""
    return env_flag("POLYFUSE_BLAS_ROW_CHUNKS", True)


def reciprocal_quotients() -> bool:
    """``POLYFUSE_RECIPROCAL_QUOTIENTS``: ``rint(a / b)`` by a loop-invariant ``b`` is computed as
    ``rint(a * (1 / b))`` where a test proves it the same value, with the division elsewhere
    (backends/cpu/quotients.py).  Default on; 0 divides every element."""
    return env_flag("POLYFUSE_RECIPROCAL_QUOTIENTS", True)


def join_phases() -> bool:
    """``POLYFUSE_JOIN_PHASES``: consecutive phases of which two or more are parallel loops (with
    only scalars private) and the others serial statements run as one parallel region: one
    wake-up of the team per call instead of one per parallel phase, a barrier between them
    (backends/cpu/phases.py ``join_regions``; mean_std's two sums).  Default off (not measured on
    a quiet machine yet); 1 turns it on."""
    return env_flag("POLYFUSE_JOIN_PHASES", False)


def overlap_rows() -> bool:
    """``POLYFUSE_OVERLAP_ROWS``: a sequential row loop that carries values only through folded
    rows of small kernel-local arrays (hdiff's fused stencil chain) runs on the team in overlapped
    chunks, each recomputing a few rows before its first (backends/cpu/overlap.py).  Default on;
    0 keeps such a loop on one thread (as a parallel region where its inner loops allow)."""
    return env_flag("POLYFUSE_OVERLAP_ROWS", True)


def phase_chains() -> bool:
    """``POLYFUSE_PHASE_CHAINS``: consecutive parallel phases over the same rows that exchange data
    only at the current row (attention's scores, softmax rows, ``P @ V``, normalisation) run on the
    team as one chain, each member running every phase block by block of its rows
    (backends/cpu/chains.py).  Default off (measured no faster under load: docs/performance.md,
    *Phase chains*); 1 turns them on."""
    return env_flag("POLYFUSE_PHASE_CHAINS", False)


def mirror_epilogues() -> bool:
    """``POLYFUSE_MIRROR_EPILOGUE``: a triangle of a product cut by rows (covariance's ``cov[i, j]``
    for ``j >= i`` on ?syrk) followed by its mirror (``cov[j, i] = cov[i, j]`` over the same
    triangle) runs as one chain where the rows run on polyfuse's threads: the product's pieces
    of the rows (cut by the triangle's work), then the mirror's pieces of the same rows
    (backends/cpu/chains.py ``_mirror``), instead of the mirror as a phase of its own after the
    product, serially or on the team with its tiles cut evenly (the first half of the tiles
    holds three quarters of an upper triangle's work).  Read at compile time (part of the disk cache's key); 0 keeps the phases apart."""
    return env_flag("POLYFUSE_MIRROR_EPILOGUE", True)


def epilogue_chains() -> bool:
    """``POLYFUSE_EPILOGUE_CHAINS``: with ``POLYFUSE_PHASE_CHAINS`` off, a product cut by rows
    (``x @ W`` on polyfuse's threads, one BLAS thread each) and the parallel phases right after it
    that read its result at the current row only (matmul_bias_relu's bias and relu, mlp's
    ``maximum(x @ W1 + b1, 0)``) run as one chain whose members each call the product once on
    their whole piece of the rows and then run the epilogue on those rows (backends/cpu/chains.py,
    ``ChainDecision``): no more ``?gemm`` calls than unchained, and the team is woken once.
    Read at compile time (part of the disk cache's key); 0 keeps the phases apart."""
    return env_flag("POLYFUSE_EPILOGUE_CHAINS", True)


def chain_block_rows() -> int | None:
    """``POLYFUSE_CHAIN_BLOCK_ROWS``: rows per block of a chain of phases, fixed (experiments;
    read at run time); unset: the model (backends/cpu/parallel.py ``chain_block_rows``)."""
    text = env_text("POLYFUSE_CHAIN_BLOCK_ROWS")
    return int(text) if text else None


def triangle_chunks() -> bool:
    """``POLYFUSE_BLAS_TRIANGLE_CHUNKS``: one triangle of an array times itself written as loops
    (covariance's, syrk's) is cut by rows too (with ``POLYFUSE_BLAS_ROW_CHUNKS`` on), each chunk's
    diagonal block on ``?syrk`` and the rest of its rows on ``?gemm``, one BLAS thread each, the
    rows cut so that the chunks have the same work; so is syr2k's pair ``a[r] . b[c] + b[r] .
    a[c]`` (``?syr2k`` on the block, two ``?gemm`` on the rest).  OpenBLAS's own threads split a ``?syrk``
    into parts that wait for each other; two independent halves finish sooner
    (docs/performance.md, *Triangles of a product cut by rows*).  Default on; 0 leaves the
    triangle to one ``?syrk`` on the library's threads."""
    return env_flag("POLYFUSE_BLAS_TRIANGLE_CHUNKS", True)


def narrow_gemm() -> bool:
    """``POLYFUSE_NARROW_GEMM``: a float64 product into a row-major result with few columns and
    many rows (``P @ V``: 1024 x 1100 @ 1100 x 64) calls ``?dgemm`` with m = the result's rows into
    a column-major heap buffer, then copies it into the result, instead of NumPy's row-major call
    (m = the result's columns): OpenBLAS's kernels run it about 10% faster so
    (backends/cpu/blas.py ``NARROW_*``; docs/performance.md, *Products with few columns*).
    Default on; 0 makes NumPy's call (and its bits)."""
    return env_flag("POLYFUSE_NARROW_GEMM", True)


def register_gemm() -> bool:
    """``POLYFUSE_REGISTER_GEMM``: a float64 product into a row-major result of at most 1024
    columns (``register_gemm.MAX_COLS``), both operands row-major (``P @ V``, ``R @ W2``), that reaches ``ROW_GEMM`` (so with
    ``POLYFUSE_NARROW_GEMM`` on) runs polyfuse's own register tiles (backends/cpu/register_gemm.py)
    instead of ``?dgemm`` (from 2^23 multiply-adds only while NumPy's OpenBLAS is on one thread:
    the tiles use the calling thread alone; blas.py ``THREADS_MIN_WORK``): OpenBLAS's kernels run
    such products 5-60% slower on this Zen 4
    (docs/performance.md, *Products with few columns in registers*).  AVX-512 hosts only.  Read
    where a kernel's engine gets ``ROW_GEMM`` (part of the disk cache's key: its machine code is
    stored with the kernel's); default on, 0 keeps ``?dgemm``."""
    return env_flag("POLYFUSE_REGISTER_GEMM", True)


def shared_packing() -> bool:
    """``POLYFUSE_SHARED_PACKING``: calls of the register tiles (``POLYFUSE_REGISTER_GEMM``) that
    run at the same time on the same right operand (a product's rows cut among polyfuse's
    threads, one call per chunk) share one packed copy of it, each panel packed once, instead of
    each call packing all of it (backends/cpu/register_gemm.py ``_SharedPacking``).  Read when
    the tiles are compiled (once per process, not part of any cache key: they are not stored);
    default on, 0 packs per call."""
    return env_flag("POLYFUSE_SHARED_PACKING", True)


def tile_buffers() -> bool:
    """``POLYFUSE_TILE_BUFFERS``: the register tiles' packed copies of ``B`` (and the shared
    copies' tables) are ``malloc``'d through a cache of ``register_gemm.BUFFER_SLOTS`` freed
    buffers (64 KiB to ``BUFFER_MAX_BYTES`` each, kept for the process) instead of from and back to
    the C library at every call, where glibc returns them to the system (a 2.4 MB copy is
    ``mmap``'d or trimmed, and its 600 pages fault in again at the next call).  Read when the tiles
    are compiled (part of their machine code's disk-cache key); default on, 0: ``malloc`` and
    ``free`` at every call (backends/cpu/register_gemm.py ``define_buffer_cache``)."""
    return env_flag("POLYFUSE_TILE_BUFFERS", True)


def blas_beta_zero() -> bool:
    """``POLYFUSE_BLAS_BETA_ZERO``: a statement that sets to zero exactly the elements a matrix
    product written as loops then adds to (``tmp[i] = 0.0`` before ``tmp[i] += A[i, j] * x[j]``)
    is taken over by the product, which writes them (BLAS's beta = 0) instead of adding
    (schedule/loop_products.py ``fold_zeroing``): one pass over the result fewer.  Default on; 0
    keeps the zeroing pass and beta = 1."""
    return env_flag("POLYFUSE_BLAS_BETA_ZERO", True)


def blas_scale_fold() -> bool:
    """``POLYFUSE_BLAS_SCALE_FOLD``: a statement that multiplies or divides exactly the elements a
    matrix product written as loops has just written (beta = 0) by a loop-invariant factor
    (covariance's ``cov[i, j] /= float_n - 1.0`` after its ``?syrk``) is taken over by the
    product as its alpha (BLAS's ``C = alpha A B``; ``1 / f`` for a division, so the result
    differs in the last bits as the product's own sums do), and the scaling pass goes
    (schedule/loop_products.py ``fold_scales``); where alpha is 0 or not finite the loops sum
    each element and scale the sum as written.  Default on; 0 keeps the scaling pass."""
    return env_flag("POLYFUSE_BLAS_SCALE_FOLD", True)


def blas_library() -> str:
    """``POLYFUSE_BLAS``: whose BLAS the products call: ``numpy`` (the default: NumPy's bundled
    OpenBLAS, else SciPy's), ``scipy`` (SciPy's, to compare or to work around a build) or
    ``none`` (no BLAS: products run as loops); used by runtime/linalg_library.py ``library``."""
    choice = os.environ.get("POLYFUSE_BLAS", "numpy")
    if choice not in ("numpy", "scipy", "none"):
        raise ValueError(f"POLYFUSE_BLAS={choice!r}: expected 'numpy', 'scipy' or 'none'")
    return choice


def blas_symm() -> bool:
    """``POLYFUSE_BLAS_SYMM``: two products written as loops that read one operand's strict
    triangle, one as stored and one transposed, into the same result with the same other operand
    and scale (symm's ``C[k, j] += alpha * B[i, j] * A[i, k]`` and ``temp2 += B[k, j] * A[i, k]``
    over ``k < i``) run as one ``?symm`` on a copy of the triangle (schedule/loop_products.py
    ``fold_mirrors``) instead of two ``?trmm`` on copies of both operands added back.  Default
    on; 0 keeps the two products."""
    return env_flag("POLYFUSE_BLAS_SYMM", True)


def integer_checks() -> bool:
    """``POLYFUSE_INTEGER_CHECKS``: the per-call check of a product's moved factor
    (frontend/array_linalg.py ``_checked_product``: ``(P / s) @ V`` as ``(P @ V) / s``) counts the
    factor's zeros, infs and NaNs in an int64 local, one plain loop.  0: sums ``0.0``/``1.0`` in
    the product's dtype as NumPy's reduction (blocked sums, chunks on threads, three loop nests:
    attention's check cost ~0.1 s of LLVM on its first call; docs/performance.md, *Compile time,
    session 32*).  Default on."""
    return env_flag("POLYFUSE_INTEGER_CHECKS", True)


def scale_after_product() -> bool:
    """``POLYFUSE_SCALE_AFTER_PRODUCT``: a matrix product kept whole for BLAS whose operand is a
    plain array scaled by a factor constant along the summed axis multiplies the plain arrays:
    ``alpha * A @ B`` (a number or a scalar argument never assigned) as ``?gemm``'s alpha,
    ``(P / P.sum(axis=-1, keepdims=True)) @ V`` and ``A @ (B * w)`` (a row ``w``) as the product
    scaled after, element-wise, fused with what reads it (frontend/array_linalg.py,
    ``_scaled_product``): no stored copy of the scaled operand.  It reassociates (docs/subset.md,
    *Matrix products*); a factor with a zero, an inf or a NaN (tested per call) runs NumPy's
    order in the product's loops.  Default on; 0 scales the operand first, as NumPy does."""
    return env_flag("POLYFUSE_SCALE_AFTER_PRODUCT", True)


def product_sums() -> bool:
    """``POLYFUSE_PRODUCT_SUMS``: a name bound to (or a return of) a matrix product kept whole
    plus or minus an array (gemm's ``alpha * A @ B + beta * C``) writes the other term into the
    result first and has ``?gemm`` add the product to it (``beta`` = 1; frontend/array_linalg.py
    ``_product_sum``), where the sum has the product's shape and dtype: no temporary that the
    product writes and a second pass reads back beside the other term.  It reassociates as BLAS
    does (the term added before the product's partial sums, not after them; docs/subset.md,
    *Matrix products*).  Default on; 0 stores the product, then the sum, as NumPy does."""
    return env_flag("POLYFUSE_PRODUCT_SUMS", True)


def blas_row_chunks_guarded() -> bool:
    """``POLYFUSE_BLAS_ROW_CHUNKS_GUARDED``: a matrix product written as loops that sits under its
    nest's guard (PolyBench's gemm, 2mm, 3mm: ``if ni >= 1 and nj >= 1 and nk >= 1``) is cut by
    rows too (with ``POLYFUSE_BLAS_ROW_CHUNKS`` on), and the runtime measures which way runs it
    fastest: the library's own threads, the rows on polyfuse's threads with one BLAS thread each,
    or one BLAS thread (``POLYFUSE_BLAS_THREADS``; backends/cpu/parallel.py ``BlasTimes``).
    Default on; 0 leaves it to one call on the library's threads, unmeasured."""
    return env_flag("POLYFUSE_BLAS_ROW_CHUNKS_GUARDED", True)


def blas_plain_library() -> bool:
    """``POLYFUSE_BLAS_PLAIN_LIBRARY``: a plain matrix product kept whole that ``row_chunked``
    cuts (NumPy's ``x @ W``, not under a nest's guard) has the library's own threads as a third
    mode the runtime measures too (backends/cpu/phases.py ``library_mode``; ``BlasTimes``), as the
    guarded products, the stacks and the matrix-vector products have: the rows on polyfuse's
    threads need the team's helper on the other core when the call starts, OpenBLAS's workers are
    already spinning there (NumPy programs gemm and mlp at the bench size, boosted, load 11: the
    rows 20.3 / 19.3 ms by their 25th percentile, the product whole on the library's threads 11.0
    / 12.6, NumPy 11.9 / 14.0; docs/performance.md, session 39).  Read at compile time (part of
    the disk cache's key); 0 measures only the rows and one BLAS thread for them.  On one
    polyfuse thread such a product runs as is, unmeasured (``Phase.plain``,
    ``phases.library_here``): ``ROW_GEMM`` on the library's threads, NumPy's ``A @ B`` and its
    bits (session 40; before, it was measured there between the library and one BLAS thread,
    whose first call gave other bits than NumPy's).  Default on since session 40 (pl56: boosted
    A/B at load 10-12, gemm's NumPy program 1.03-1.14x NumPy with it against 0.57-1.11x without,
    attention 1.34-2.12x against 1.13-2.02x; docs/performance.md)."""
    return env_flag("POLYFUSE_BLAS_PLAIN_LIBRARY", True)


def gemv_row_loops() -> bool:
    """``POLYFUSE_GEMV_ROW_LOOPS``: a NumPy matrix-vector product whose summed axis is the
    matrix's last subscript (``A @ x``, ``np.dot(A, x)``: a dot product per row of ``A``) runs as
    polyfuse's own loops, not ``?gemv``: a parallel loop over the rows, 8 rows side by side sharing
    each load of ``x`` (passes/interleave.py), each row summed in NumPy's blocks, fused with what
    reads the result.  On one core they stream ``A`` faster than OpenBLAS's ``?gemv`` (n = 2800:
    3.44 against 4.63 ms), and they run on polyfuse's team instead of the library's threads
    (docs/performance.md, *Matrix-vector rows as loops*, session 29); but on two threads at the
    bench's sizes on a quiet machine the NumPy programs atax and gesummv ran 0.65x / 0.74x NumPy
    with them against 1.00x / 1.01x on ``?gemv``, so they are off by default.  The other orientation (``A.T @ y``,
    ``x @ A``) stays on BLAS, where the loops were not faster, and so does a Fortran-ordered or
    strided argument ``A`` (the call signature's layout).  Sums in another order than
    ``?gemv``'s: the last bits differ (docs/subset.md).  Default off (``?gemv``); 1 turns them on."""
    return env_flag("POLYFUSE_GEMV_ROW_LOOPS", False)


def stream_math() -> bool:
    """``POLYFUSE_STREAM_MATH``: an innermost loop whose statements compute a transcendental
    (``exp``, ``tanh``, ``**``) may stream its result too (non-temporal stores, backends/cpu/
    streams.py), as other loops do past ``POLYFUSE_STREAM_STORES``; without it such loops store
    through the cache, reading each line first (chain3's ``out = 1 / (1 + exp(-t))``: 48 MB moved
    for 36).  Default off (a second copy of a long loop body costs LLVM time); 1 turns it on."""
    return env_flag("POLYFUSE_STREAM_MATH", False)


def overwritten_stores() -> bool:
    """``POLYFUSE_OVERWRITTEN_STORES``: a store whose every value is read back only by a later
    statement that overwrites the same element (row softmax's ``out[i, j] = e`` then
    ``out[i, j] = out[i, j] / s``) writes a kernel-local array instead, which contraction shrinks
    to a row; the array is then written once per element (non-temporal stores where it is never
    read), not twice with its lines read from memory first (polyfuse/schedule/overwritten.py;
    docs/performance.md, *Session 32: matrix-vector kernels against the triad*).  cpu target only.
    Default on; 0 keeps the stores as written."""
    return env_flag("POLYFUSE_OVERWRITTEN_STORES", True)


def overwritten_forward() -> bool:
    """``POLYFUSE_OVERWRITTEN_FORWARD``: where an overwritten store (``overwritten_stores``) stores
    a local scalar that one statement of the same loops sets and every reader reads in its
    iteration (row softmax's ``e = exp(X[i, j] - m); out[i, j] = e; s += e``), that statement
    writes the store's local and the readers read it there: one row of values instead of a row
    of ``e`` and a copy of it (polyfuse/schedule/overwritten.py).  cpu target only.  Default on
    (softmax 5-8% less CPU time, docs/performance.md, *Session 34: bandwidth-bound kernels*); 0
    keeps the scalar and its copy."""
    return env_flag("POLYFUSE_OVERWRITTEN_FORWARD", True)


def overwritten_companions() -> bool:
    """``POLYFUSE_OVERWRITTEN_COMPANIONS``: a store whose values are also read, in their own
    iteration, by other statements of its loops before one overwrites them (numba-style softmax's
    ``out[i, j] = exp(...); s += out[i, j]`` then ``out[i, j] /= s``) goes through a local too,
    every such read reading the local (polyfuse/schedule/overwritten.py): the array is written
    once (non-temporal stores where nothing reads it) instead of read for ownership and written
    twice.  Default off: the same CPU time on the loaded session-34 machine (wall time not
    measurable there; benchmarks/overwritten_forward_ab.py); 1 turns it on."""
    return env_flag("POLYFUSE_OVERWRITTEN_COMPANIONS", False)


def blas_row_chunks_gemv() -> bool:
    """``POLYFUSE_BLAS_ROW_CHUNKS_GEMV``: a matrix times a vector (``A @ x``, also one written as
    loops under its nest's guard: gesummv) is cut by rows too (with ``POLYFUSE_BLAS_ROW_CHUNKS``
    on), measured against the library's threads as ``POLYFUSE_BLAS_ROW_CHUNKS_GUARDED``.  A
    ``?gemv`` takes well under a millisecond, and waking polyfuse's pool can cost more than
    OpenBLAS's own hand-off to its spinning workers (NumPy-form gesummv, n = 1900: 0.45 ms in two
    one-thread halves against 0.35 ms on the library's two threads, min of 300, load 4.4), but
    the library's threads collapse under load once they went idle (gesummv LARGE: 45.5 ms on two
    against 1.22 ms on one): the measurement chooses.  Default off (session 22's quiet A/B: the
    cut gesummv at the bench size ran 1.43 ms against 1.20 whole, even with the library's mode
    forced: the cut's structure costs, not the measurement; session 23: that mode now keeps the
    native entry, ``POLYFUSE_BLAS_LIBRARY_ENTRY``, and costs what the uncut kernel costs in thread
    CPU time; a quiet A/B is owed); 1 turns it on (under load it wins: gesummv LARGE 21-53 ->
    1.4-6.5 ms in bl24's bench pairs)."""
    return env_flag("POLYFUSE_BLAS_ROW_CHUNKS_GEMV", False)


def blas_stack_chunks() -> bool:
    """``POLYFUSE_BLAS_STACK_CHUNKS``: a stack of products (``Matmul.batch``: doitgen's
    ``acc[r, q, :] = A[r, q, :] @ C4``), one ``?gemm`` of all the stack's rows on the library's
    threads, is cut by its outermost batch axis too (with ``POLYFUSE_BLAS_ROW_CHUNKS`` on): each
    of polyfuse's threads runs the products of its part of the stack on one BLAS thread, and the
    runtime measures that against the one call on the library's threads and on one BLAS thread
    (``POLYFUSE_BLAS_THREADS``; backends/cpu/parallel.py ``BlasTimes``).  Default on since session 33
    (mm41: with ``POLYFUSE_STACK_ROW_GEMM`` each part runs the register tiles; doitgen's rows on two
    threads, busiest thread's CPU 4.9 against 5.8 ms for the one call on the library's threads at
    the bench size, 13.3 against 17.7 at LARGE: docs/performance.md, *Session 33 (mm41)*); 0
    keeps the one call."""
    return env_flag("POLYFUSE_BLAS_STACK_CHUNKS", True)


def stack_row_gemm() -> bool:
    """``POLYFUSE_STACK_ROW_GEMM``: a stack of products whose strides chain into one product of all
    its rows (doitgen's ``acc[r, q, :] = A[r, q, :] @ C4``, NumPy's ``X3 @ W``), or a chunk's part of
    it (``POLYFUSE_BLAS_STACK_CHUNKS``), goes through ``ROW_GEMM`` as a plain product does: on the
    register tiles where the library is on one thread (polyfuse's one-BLAS-thread modes, a chunk,
    a process held at one BLAS thread) and the product fits them, on ``?dgemm`` (the library's
    threads) otherwise.  0: ``?dgemm`` always, as before session 33 (the tiles then could not tell
    the library's threads from one, backends/cpu/blas.py ``row_gemm_module``'s ``counted``)."""
    return env_flag("POLYFUSE_STACK_ROW_GEMM", True)


def library_entry() -> bool:
    """``POLYFUSE_BLAS_LIBRARY_ENTRY``: a kernel whose products cut by rows have the library's
    threads as a candidate (``Phase.library``) keeps its native entry (runtime/native.py) for
    the calls between two measurements while the library's threads are the fastest mode: those
    calls run as the uncut kernel does, without the Python path (~50 us per call of gesummv,
    docs/performance.md).  Default on; 0: such a kernel always takes the Python path."""
    return env_flag("POLYFUSE_BLAS_LIBRARY_ENTRY", True)


def blas_call_mode() -> bool:
    """``POLYFUSE_BLAS_CALL_MODE``: the products of one kernel call whose library's threads are a
    candidate (``Phase.library``) all run in one BLAS mode, chosen per call by measuring whole
    calls (backends/cpu/parallel.py ``run_call``), so that no call mixes OpenBLAS's threads with
    polyfuse's rows or one BLAS thread.  Default on; 0: each product chooses its own mode."""
    return env_flag("POLYFUSE_BLAS_CALL_MODE", True)


def product_pairs() -> bool:
    """``POLYFUSE_BLAS_PAIRS``: two consecutive products cut by rows whose library's threads are a
    candidate and that share no array (3mm's ``E = A @ B`` and ``F = C @ D``) run at once, one per
    thread on one BLAS thread each, in calls whose products run on polyfuse's rows (the "rows" BLAS
    mode, measured against the others as before: backends/cpu/phases.py ``pair_products``,
    parallel.py ``run_pair``), the two threads given equal shares of the pair's measured CPU time
    (``POLYFUSE_BLAS_PAIR_BALANCE``).  Default on since session 31 (bl37: 3mm's rows at the bench
    size on the busiest thread's CPU 8-18% below the rows without pairs, at LARGE even; no quiet
    machine to time walls); 0: each product on the rows alone.  Read when a kernel is compiled."""
    return env_flag("POLYFUSE_BLAS_PAIRS", True)


def blas_pair_balance() -> bool:
    """``POLYFUSE_BLAS_PAIR_BALANCE``: a pair of products run at once (``POLYFUSE_BLAS_PAIRS``)
    gives its two threads equal shares of the two products' measured one-thread time: the faster
    product whole on one thread after the first rows of the other, the rest of the other on the
    second thread (backends/cpu/parallel.py ``pair_members``).  Default on; 0: each product whole
    on its own thread.  Read at each pair's run."""
    return env_flag("POLYFUSE_BLAS_PAIR_BALANCE", True)


def native_pairs() -> bool:
    """``POLYFUSE_NATIVE_PAIRS``: a pair of products run at once (``POLYFUSE_BLAS_PAIRS``) runs
    on the native team (backends/cpu/native_team.py, ``POLYFUSE_NATIVE_TEAM``) once its first
    ``parallel.PAIR_TIMED_RUNS`` runs on the Python pool have measured each product's CPU time
    per row (the balanced cut's input): one ctypes call instead of the executor's ``submit``,
    a pool thread's wake-up and its GIL hand-offs, and the helper that ran the pair still spins
    when the next phase (3mm's ``G = E @ F`` on the rows) starts its team.  Default on; 0: every
    pair run on the Python pool, measured (as before session 36).  Read at each pair's run."""
    return env_flag("POLYFUSE_NATIVE_PAIRS", True)


def blas_ready_rows() -> bool:
    """``POLYFUSE_BLAS_READY_ROWS``: before a call's first run on polyfuse's rows is timed (the
    BLAS call mode's trial, backends/cpu/parallel.py ``run_call``), what that run would pay for
    once is done untimed (``_ready_rows``: the products' row functions, the native team's code
    and helpers, a pair's pool thread), as a product's own first run on the rows already was
    (``_ready_team``).  Default on; 0: the first run on the rows pays for them and is timed with
    them (3mm at the bench size: 26.6 ms, which cut the rows' trials short).  Read at that run."""
    return env_flag("POLYFUSE_BLAS_READY_ROWS", True)


def team_affinity() -> bool:
    """``POLYFUSE_TEAM_AFFINITY``: the native team's helpers (backends/cpu/native_team.py) may
    run on every CPU the process may use but the one its caller is on when a team run starts
    (``sched_setaffinity``, set again only when the caller's CPU changed).  Why: a helper woken
    from its futex on a machine with no idle core is placed on its waker's core, where it and
    the caller take turns; the balancer moved it away only after ~20 calls (covariance with the
    rows forced, boosted, load 8: 6.5-8 ms a call with both on one CPU, 3.4-3.9 once apart), so
    the BLAS call mode's trials saw the rows at about one thread's time and chose the library's
    threads.  Default off (the lead, session 37): on a quiet machine the placement did not
    measure better (bench subsets gemm/symm/cholesky/floyd-warshall 10-15% slower in one
    alternating pair, even in the next), and the full quiet bench with it on ran gemm at one
    thread's time (27.5 ms, 1T 28.9: a helper pinned where the caller then moved).  1: keep
    the helpers off the caller's CPU.  Read once, when the team is made."""
    return env_flag("POLYFUSE_TEAM_AFFINITY", False)


def blas_fair_trials() -> bool:
    """``POLYFUSE_BLAS_FAIR_TRIALS``: the BLAS modes' measurement (backends/cpu/parallel.py
    ``BlasTimes``) tries polyfuse's rows before the library's threads, and does not count a run on
    one BLAS thread or on the rows that starts while OpenBLAS's workers still spin after a run on
    the library's threads (``blas_spin_seconds``), as if they were no longer there.  Default on;
    0: the trials in the order serial, library, rows and every run counted (as at db3ee18).  Read
    when a product or a call is first measured at given sizes."""
    return env_flag("POLYFUSE_BLAS_FAIR_TRIALS", True)


def blas_warm_trials() -> bool:
    """``POLYFUSE_BLAS_WARM_TRIALS``: with fair trials, the first run on polyfuse's rows at given
    sizes is not counted (backends/cpu/parallel.py ``BlasTimes.warm_first``): it pays once for
    what the rows' later runs find ready (a native helper's first BLAS call, its first placement;
    covariance at the bench size, boosted, load 10: 7.3 ms against 3.6-3.9 later), and the trial's
    next runs judge the rows.  One more call in the rows' trial.  The library's first run stays
    counted: the wake of OpenBLAS's pool it pays recurs after every pause or other mode.  And a
    whole call's measured time (``run_call``) leaves out the one-time work done inside it
    (functions built on first use, the native team made for a phase's first team run: the call
    mode's second run on one BLAS thread took 20-37 ms against 6.5 so).  Default on; 0: every
    trial run counted whole (as before session 37).  Read when a product or a call is first
    measured."""
    return env_flag("POLYFUSE_BLAS_WARM_TRIALS", True)


def blas_quiet_checks() -> bool:
    """``POLYFUSE_BLAS_QUIET_CHECKS``: while the library's threads are the chosen BLAS mode, a
    check of polyfuse's rows or of one BLAS thread that falls due waits (at most
    ``parallel.QUIET_CHECK_WAIT`` calls) for a call that starts once OpenBLAS's workers went
    quiet (0.1 s after the library's latest run: a pause between calls), and runs then; after that
    many calls it runs as before.  Why: the workers spin in user space without yielding for
    ~0.1 s after a call on the library's threads, and a check run beside them (its runs not
    counted until they stop, backends/cpu/parallel.py ``BlasTimes.spin``) ran ~0.1 s of calls at
    about one thread's time, a bench series whole (docs/performance.md, *Session 38 (bl52)*).
    Default off; 1 turns it on.  Read when a product or a call is first measured."""
    return env_flag("POLYFUSE_BLAS_QUIET_CHECKS", False)


def blas_settled_trials() -> bool:
    """``POLYFUSE_BLAS_SETTLED_TRIALS``: the BLAS modes' measurement counts as still in its trials
    (backends/cpu/parallel.py ``BlasTimes.in_trials``, which ``polyfuse bench`` waits out before
    it times a kernel) until the early checks of the modes judged on their trials alone have run
    too (``BlasTimes.settled``): those come at most ``parallel.RECHECK_EVERY`` calls after the
    trials, and with ``--repeats 3 --min-time 0`` they fell into the timed series
    (matmul_bias_relu at PolyBench LARGE: a check of the library's threads and one of one BLAS
    thread among 15 timed calls, 0.74x NumPy; docs/performance.md, *Session 40 (mb56)*).  Changes
    only when the bench starts timing, never which mode a call runs.  Default on; 0: the trials
    alone.  Read when a product or a call is first measured."""
    return env_flag("POLYFUSE_BLAS_SETTLED_TRIALS", True)


def blas_quick_checks() -> bool:
    """``POLYFUSE_BLAS_QUICK_CHECKS``: with fair trials, the BLAS modes' checks cost fewer calls
    (backends/cpu/parallel.py ``BlasTimes.quick``): a check of one BLAS thread or the rows waits
    while OpenBLAS's workers spin unless the library's threads are chosen, one BLAS thread clearly
    beaten (``SERIAL_CLEAR_LOSS``) is checked once and priced, the first checks are judged again
    when the trials end, and a check that must wait out the spin is priced as a moment's.
    Default on; 0: the checks as at cv34.  Read when a product or a call is first measured."""
    return env_flag("POLYFUSE_BLAS_QUICK_CHECKS", True)


def blas_robust_choice() -> bool:
    """``POLYFUSE_BLAS_ROBUST_CHOICE``: with fair trials, the BLAS modes' choice (backends/cpu/
    parallel.py ``BlasTimes.robust``) judges each mode by the median of its latest runs, not their
    best; a mode takes over from the chosen one by a margin that follows the two modes' measured
    spread (2-25%) instead of a fixed 5%; and each check in a row that a mode loses clearly doubles
    the calls until its next one.  Default on; 0: the choice of session 28.  Read when a product or
    a call is first measured."""
    return env_flag("POLYFUSE_BLAS_ROBUST_CHOICE", True)


def blas_prior() -> bool:
    """``POLYFUSE_BLAS_PRIOR``: with fair trials, the BLAS modes' choice (backends/cpu/parallel.py
    ``BlasTimes.prior``) starts from a cost model: where the first run on one thread took 1 ms or
    more and threads are there, the threaded modes (polyfuse's rows, the library's threads) should
    win, and one BLAS thread is chosen only after it beat the fastest of them by 10% in a duel
    (two rounds of two runs of each, taken in turn, compared by their minima); the next duel
    comes after 16 calls or as many as keep its extra time within 5% of the calls' (doubling per
    duel in a row with the same outcome), and one BLAS thread chosen so is put to another duel
    when its runs get 20% faster than in the duel (or 20% slower, once the next duel is due).
    Default on; 0: the runs alone choose (session 29's choice).  Read when a product or a call
    is first measured."""
    return env_flag("POLYFUSE_BLAS_PRIOR", True)


#: Seconds OpenBLAS's idle workers spin after a call on its threads, at its default
#: ``THREAD_TIMEOUT`` of 2^28 cycles: 96-104 ms on the Intel VM of session 27 (a 600 x 600 ``@``
#: on 2 threads, then the process's CPU time in 5 ms windows, five times, load 6.5).
OPENBLAS_SPIN_SECONDS = 0.1


def blas_spin_seconds() -> float:
    """``OPENBLAS_SPIN_SECONDS`` scaled to ``OPENBLAS_THREAD_TIMEOUT`` (OpenBLAS's own variable:
    2^N cycles, N clamped to 4-30, default 28) where that is set."""
    text = os.environ.get("OPENBLAS_THREAD_TIMEOUT", "").strip()
    if not text.isdigit() or int(text) <= 0:
        return OPENBLAS_SPIN_SECONDS
    return OPENBLAS_SPIN_SECONDS * 2.0 ** (min(30, max(4, int(text))) - 28)


#: ``POLYFUSE_BLAS_THREADS`` values: how a product that ``POLYFUSE_BLAS_ROW_CHUNKS_GUARDED`` or
#: ``..._GEMV`` cut by rows runs (backends/cpu/parallel.py ``BLAS_MODES``).
BLAS_THREAD_MODES = ("measure", "library", "rows", "serial")


def blas_threads() -> str:
    """``POLYFUSE_BLAS_THREADS``: how a product cut by rows where the library's threads are a
    candidate (``POLYFUSE_BLAS_ROW_CHUNKS_GUARDED``, ``..._GEMV``) runs once its sizes are
    measured worth threads: "measure" (default) the fastest of the three by measurement, re-checked
    now and then; "library" one call on the library's threads; "rows" the rows cut among
    polyfuse's threads, one BLAS thread each; "serial" one call on one BLAS thread.  Read when a
    site is first measured at given sizes (tests, experiments)."""
    text = env_text("POLYFUSE_BLAS_THREADS").strip().lower() or "measure"
    if text not in BLAS_THREAD_MODES:
        raise ValueError(f"POLYFUSE_BLAS_THREADS={text!r}: expected one of {', '.join(BLAS_THREAD_MODES)}")
    return text


def compile_operations() -> int | None:
    """``POLYFUSE_COMPILE_OPERATIONS``: once the optional transformations of one compile that ran
    out of their isl operations (``isl_operations``) have spent this many together, it starts no
    more optional isl work (fusion, loop-order and tiling checks, exact dependences): each keeps
    its legal choice.  Counted, not timed, so the code does not depend on the machine's load.
    Default 12,000,000; 0 means no limit."""
    text = os.environ.get("POLYFUSE_COMPILE_OPERATIONS")
    value = int(text) if text else DEFAULT_COMPILE_OPERATIONS
    return value if value > 0 else None


def compile_seconds() -> float | None:
    """``POLYFUSE_COMPILE_SECONDS``: a safety net: after this many seconds of the compiling thread's
    CPU time a compile starts no more optional isl work.  Only pathological programs meet it (the
    counted ``compile_operations`` budget bounds the others); a compile that did is not cached.
    Default 30; 0 means no limit."""
    text = os.environ.get("POLYFUSE_COMPILE_SECONDS")
    value = float(text) if text else DEFAULT_COMPILE_SECONDS
    return value if value > 0 else None


def lift_memo() -> bool:
    """``POLYFUSE_LIFT_MEMO=1``: a compile of a function already compiled in this process for the
    same call signature (under other options: another fusion mode or target) reuses that
    compile's lift, scalar check and dependence analysis (polyfuse/lift_memo.py: the key, and
    where the result can differ from a cold compile's).  Default off: the test corpus turns it on."""
    return env_flag("POLYFUSE_LIFT_MEMO", False)


def cache_enabled() -> bool:
    """The disk cache, unless ``POLYFUSE_DISABLE_CACHE=1``."""
    return not env_flag("POLYFUSE_DISABLE_CACHE")


def cache_directory_setting() -> tuple[str, str]:
    """(``POLYFUSE_CACHE_DIR``, ``XDG_CACHE_HOME``), each "" when unset."""
    return env_text("POLYFUSE_CACHE_DIR"), env_text("XDG_CACHE_HOME")


def cuda_promotion() -> bool:
    """Shared-memory and register promotion on GPUs, unless ``POLYFUSE_CUDA_SHARED=0``."""
    return env_flag("POLYFUSE_CUDA_SHARED", True)


def cuda_shared_bytes() -> int | None:
    """``POLYFUSE_CUDA_SHARED_BYTES``: the shared-memory budget per block (None: the device's)."""
    text = os.environ.get("POLYFUSE_CUDA_SHARED_BYTES")
    return int(text) if text else None


def cuda_device_launches() -> bool:
    """``POLYFUSE_CUDA_LAUNCH=device``: on numba's CUDA simulator, launch with the block shapes
    and grids a real GPU gets (256 threads, 32 x 8 blocks) instead of small simulator grids; slow
    (every thread is a Python thread), for tests of the real launch configuration."""
    return env_text("POLYFUSE_CUDA_LAUNCH").strip().lower() == "device"


def cuda_show_source() -> bool:
    """``POLYFUSE_CUDA_SHOW=1`` prints each generated CUDA module."""
    return bool(os.environ.get("POLYFUSE_CUDA_SHOW"))


def time_tile_sizes() -> tuple[int, ...]:
    """``POLYFUSE_TIME_TILE_SIZES=8,64,256``: fixed time-tile sizes (time first) for experiments;
    () when unset."""
    text = os.environ.get("POLYFUSE_TIME_TILE_SIZES", "")
    return tuple(int(v) for v in text.split(",") if v.strip())


#: pivots and rows per pivot block (polyfuse.schedule.outer_parallelism, ``pivot_blocked``).
#: lu at n = 2000, one thread, interleaved (docs/performance.md, *Pivot blocks*): 16, 32 and 64
#: within noise of each other, all well ahead of no blocks.
PIVOT_BLOCK = 32


def transpose_tile_side() -> int:
    """``POLYFUSE_TRANSPOSE_TILE_SIDE``: a fixed side for the square tiles of a transposing copy
    (polyfuse.schedule.tiling, ``choose_transpose_tile``); unset or 0: the largest that fits half
    of L1."""
    text = os.environ.get("POLYFUSE_TRANSPOSE_TILE_SIDE", "").strip()
    return int(text) if text else 0


def pivot_block() -> int:
    """``POLYFUSE_PIVOT_BLOCK``: the block size of pivot blocks (outer-parallel nests whose outer
    loop is sequential: lu, cholesky); 0 or 1 turns them off.  Default ``PIVOT_BLOCK``."""
    text = os.environ.get("POLYFUSE_PIVOT_BLOCK", "").strip()
    return int(text) if text else PIVOT_BLOCK


PIVOT_ROWS = 32


def pivot_rows() -> int:
    """``POLYFUSE_PIVOT_ROWS``: pivots per block of ``passes.pivot_rows`` (serial pivot loops
    whose rows read only themselves and the pivot row: Floyd-Warshall); 0 or 1 turns it off.
    Default ``PIVOT_ROWS``."""
    text = os.environ.get("POLYFUSE_PIVOT_ROWS", "").strip()
    return int(text) if text else PIVOT_ROWS


#: rows at once of ``passes.packed_rows`` (cholesky's update: four AVX-512 vectors of float64)
PACKED_ROWS = 32


def packed_rows() -> int:
    """``POLYFUSE_PACKED_ROWS``: rows run at once by ``passes.packed_rows`` (a parallel row loop of
    dot products down strided rows, read from a transposed copy); 0 or 1 turns it off.  Default
    ``PACKED_ROWS``."""
    text = os.environ.get("POLYFUSE_PACKED_ROWS", "").strip()
    return int(text) if text else PACKED_ROWS


def packed_rest_loops() -> bool:
    """``POLYFUSE_PACKED_REST_LOOPS``: ``passes.packed_rows`` keeps each chain's second loop (the
    ``k`` it reads from the rows themselves) where isl proves that it never runs.  Default off: the
    loop is left out (cholesky's: 32 strided rows, ~0.1 s of LLVM's optimiser and code generator,
    run time unchanged: docs/performance.md, *Compile time, session 31*); 1 keeps it."""
    return env_flag("POLYFUSE_PACKED_REST_LOOPS", False)


def native_team() -> bool:
    """``POLYFUSE_NATIVE_TEAM``: a parallel phase's team runs its pieces on helper threads parked
    in machine code (backends/cpu/native_team.py), its start, the caller's pieces and the wait in
    one ctypes call; 0: the Python way (``threads.hand_off`` and ``Pieces``).  Read when
    backends/cpu/parallel.py is imported (``parallel.NATIVE_TEAM``)."""
    return env_flag("POLYFUSE_NATIVE_TEAM", True)


def native_entries() -> bool:
    """Native entries for call plans called often (backends/cpu/entry.py), unless
    ``POLYFUSE_NATIVE_ENTRY=0`` (read when a plan is made)."""
    return env_flag("POLYFUSE_NATIVE_ENTRY", True)


def default_verify() -> bool:
    """``POLYFUSE_VERIFY=1`` turns the schedule verifier on for every kernel."""
    return env_flag("POLYFUSE_VERIFY")


def debug_errors() -> bool:
    """``POLYFUSE_DEBUG=1`` re-raises internal exceptions with their full traceback."""
    return env_flag("POLYFUSE_DEBUG")


@dataclass(frozen=True)
class Options:
    """What a kernel is compiled with; part of every cache key."""

    target: str = "cpu"
    fuse: str = "smart"
    verify: bool = False  # re-check the final schedule against every dependence (tests turn it on)
    opt_level: int = 3
    contract: bool = True  # shrink kernel-local arrays that fusion made short-lived
    # tile perfect nests with reuse to fit half of the L2 cache; off by default because on our
    # benchmark machine it did not pay without register blocking (see docs/performance.md)
    tile: bool = False
    # register tiles: a matrix product's outputs stay in vector registers across its reduction
    # loop (polyfuse.registers); POLYFUSE_REGISTER_TILES=0 turns them off everywhere
    registers: bool = True
    # interleave iterations of a parallel loop around float reductions so that their add chains
    # overlap (polyfuse.passes.interleave).  None (default): on the cpu target, for reductions
    # written as loops whose innermost loop is only loads and + - * min max (latency-bound add
    # chains: matrix-vector rows), one vector of lanes of copies.  True: every float reduction
    # inside a parallel loop, INTERLEAVE_COPIES copies (polyfuse.tensor.spec turns it on for its
    # row-blocked loop steps).  False, or POLYFUSE_INTERLEAVE=0: never
    interleave: bool | None = None
    # allow LLVM to reassociate float arithmetic (vectorized reductions); results then differ
    # from the Python function in the last bits, so it is off unless asked for
    fastmath: bool = False
    # exp and log as inline polynomials LLVM can vectorize (within 2 ulp of libm, no
    # reassociation) instead of one libm call per element; False: exactly Python's math results
    vector_math: bool = True
    # numba's parallel=False: every loop runs on the calling thread (CPU targets; a GPU kernel
    # needs its parallel loops)
    parallel: bool = True
    # numba's cache=: False keeps this kernel out of the disk cache (it decides nothing in the code)
    cache: bool = True
    # NumPy matrix products (``x @ W``, np.dot, GEMM-shaped einsum) kept whole and run on BLAS
    # where the layout allows (CPU targets; the Python target runs the same statement as loops).
    # False lowers them to loops the scheduler fuses with their neighbours (faster for small ones)
    blas: bool = True

    def blas_products(self) -> bool:
        """Whether the frontend keeps matrix products whole: not for CUDA (no BLAS in a kernel)."""
        return self.blas and self.target != "cuda"

    def private_sums(self) -> bool:
        """Whether a sequential loop carried only by ``+=`` updates runs in chunks with partial
        sums on the thread team (polyfuse.passes.private_sums): it reassociates those sums as
        BLAS does, so only with ``blas`` (the default), on the cpu target with ``parallel``, unless
        POLYFUSE_PRIVATE_SUMS=0."""
        return (self.blas_products() and self.parallel and self.target == "cpu"
                and env_flag("POLYFUSE_PRIVATE_SUMS", True))

    def tile_budget(self) -> int:
        """Bytes a tile's footprint may use (0: no tiling)."""
        if not self.tile:
            return 0
        return machine().l2 // 2

    def register_cache_budget(self) -> int:
        """Bytes of the cache tiles a register-tiled nest gets where ``tile`` gives it none: half
        of L2, as ``tile_budget`` (schedule/tiling.py, ``cache_around_registers``); 0 without
        register tiles or where ``POLYFUSE_REGISTER_CACHE_TILES=0``."""
        if not self.register_tile_bytes() or not env_flag("POLYFUSE_REGISTER_CACHE_TILES", True):
            return 0
        return machine().l2 // 2

    def transpose_tile_budget(self) -> int:
        """Bytes of cache lines a transposing copy's square tile may touch: half of L1 (0: such
        nests run untiled): the cpu target, unless ``POLYFUSE_TRANSPOSE_TILES=0``."""
        if self.target != "cpu" or not env_flag("POLYFUSE_TRANSPOSE_TILES", True):
            return 0
        return machine().l1d // 2

    def time_tile_budget(self) -> int:
        """Bytes a time tile's footprint may use: half the L2 cache."""
        return machine().l2 // 2

    def time_tile_whole_row(self) -> int:
        """A time-tiled nest of one space dimension runs untiled when its rows fit in this many
        bytes (the L1 data cache), chosen at run time on its parameters (schedule/time_tiling.py,
        ``whole_row_version``); 0 where ``POLYFUSE_TIME_TILE_WHOLE_ROW=0`` (default: on)."""
        return machine().l1d if env_flag("POLYFUSE_TIME_TILE_WHOLE_ROW", True) else 0

    def time_tile_fused_rows(self) -> int:
        """The untiled side of ``time_tile_whole_row`` runs a time step's sweeps fused into one
        row loop (schedule/time_tiling.py, ``fused_sweeps``) where its rows hold at least this
        many bytes of each array (``POLYFUSE_TIME_TILE_FUSED_ROWS_MIN`` vectors of the CPU's
        width; 1 where that is 0: every row); 0 (no fused rows) where
        ``POLYFUSE_TIME_TILE_FUSED_ROWS=0`` or carried loads are off (``carried_loads_enabled``:
        without them the fused loop is slower)."""
        if not (env_flag("POLYFUSE_TIME_TILE_FUSED_ROWS", True) and carried_loads_enabled()):
            return 0
        text = env_text("POLYFUSE_TIME_TILE_FUSED_ROWS_MIN").strip()
        if text and not text.isdigit():
            raise ArgumentError(f"POLYFUSE_TIME_TILE_FUSED_ROWS_MIN={text!r} is not a count of vectors")
        vectors = int(text) if text else FUSED_ROWS_MIN_VECTORS
        return max(1, vectors * vector_bytes())

    def time_tile_fused_tiles(self) -> int:
        """The most space dimensions a time-tiled stencil's sweeps may have for a tile to run a
        time step's sweeps in one point loop nest, each later sweep shifted (schedule/time_tiling.py,
        ``tile_sweep_shifts``): ``POLYFUSE_TIME_TILE_FUSED_TILES=N``, default 1 (one-dimensional
        sweeps, jacobi-1d: measured 1.11x; jacobi-2d and heat-3d measured slower, ``=3`` for A/B);
        0 turns it off, as does ``POLYFUSE_CARRIED_LOADS=0`` (the fused row loop needs its queues)."""
        text = env_text("POLYFUSE_TIME_TILE_FUSED_TILES").strip()
        if text.lower() in ("false", "no", "off"):
            dims = 0
        elif not text:
            dims = 1
        elif text.isdigit():
            dims = int(text)
        else:
            raise ArgumentError(f"POLYFUSE_TIME_TILE_FUSED_TILES={text!r} is not a count of space dimensions")
        return dims if carried_loads_enabled() else 0

    def time_tile_atomic(self) -> bool:
        """One loop nest of tile loops for all of a time-tiled nest's statements (isl's ``atomic``
        on the tile band; schedule/time_tiling.py ``tiled_wavefront``) rather than a copy of the
        point loops per range of tiles where other statements have points (fdtd-2d: three copies,
        two parallel regions): ``POLYFUSE_TIME_TILE_ATOMIC``, default on; 0 for A/B."""
        return env_flag("POLYFUSE_TIME_TILE_ATOMIC", True)

    def time_tiling_enabled(self) -> bool:
        """Time tiling of stencils (polyfuse.time_tiling): CPU targets, unless POLYFUSE_TIME_TILING=0."""
        return self.target != "cuda" and env_flag("POLYFUSE_TIME_TILING", True)

    def outer_parallelism_enabled(self) -> bool:
        """isl's outer-parallel schedule for nests whose parallel loops lie deep
        (polyfuse.schedule.outer_parallelism): CPU and Python targets when loops may run in
        parallel, unless POLYFUSE_OUTER_PARALLELISM=0."""
        return self.target != "cuda" and self.parallel and env_flag("POLYFUSE_OUTER_PARALLELISM", True)

    def noop_versions_enabled(self) -> bool:
        """Per-iteration versions of serial loops on a check that their shared writes are no-ops
        (polyfuse.passes.noop_versions: Floyd-Warshall): the check evaluates the statements as the
        loops do, which fastmath and the CUDA target do not promise; on unless
        POLYFUSE_NOOP_VERSIONS=0."""
        return self.target != "cuda" and not self.fastmath and env_flag("POLYFUSE_NOOP_VERSIONS", True)

    def serial_fusion_enabled(self) -> bool:
        """Smart fusion may fuse a parallel loop into a serial one when it only reads the big
        arrays the serial one reads too (polyfuse.schedule.fusion: SmartFusion.rides_along):
        CPU and Python targets (a GPU needs the parallel loop), unless POLYFUSE_SERIAL_FUSION=0."""
        return self.target != "cuda" and env_flag("POLYFUSE_SERIAL_FUSION", True)

    def _time_tiling_key(self) -> str:
        # POLYFUSE_TIME_TILE_SIZES (fixed sizes for experiments) changes the code too
        # and the model's budget follows the L2 size (POLYFUSE_L2_BYTES or sysfs)
        if not self.time_tiling_enabled():
            return "off"
        whole = f",whole:{self.time_tile_whole_row()}" if self.time_tile_whole_row() else ""
        whole += f",fused-rows:{self.time_tile_fused_rows()}" if whole and self.time_tile_fused_rows() else ""
        whole += f",fused-tiles:{self.time_tile_fused_tiles()}" if self.time_tile_fused_tiles() else ""
        whole += "" if self.time_tile_atomic() else ",separate-tiles"
        return (env_text("POLYFUSE_TIME_TILE_SIZES") or f"model:{self.time_tile_budget()}") + whole

    def register_tile_bytes(self) -> int:
        """SIMD register width the register tiles are sized for (0: no register tiles)."""
        if not self.registers or self.target == "cuda" or not env_flag("POLYFUSE_REGISTER_TILES", True):
            return 0
        return vector_bytes()

    def register_narrower_tiles(self) -> bool:
        """``POLYFUSE_REGISTER_NARROWER_TILES``: the columns of a register-tiled nest outside its
        full tiles get tiles of half the width, down to one vector (schedule/tiling.py,
        ``choose_register_tile``).  Default off (session 40: the parts cost isl's AST generation
        ~3x the compile of such nests, 2mm with ``blas=False`` 0.64 -> 2.1 s); 1: on."""
        return env_flag("POLYFUSE_REGISTER_NARROWER_TILES", False)

    def register_sums(self) -> int:
        """Vectors of sums a register tile keeps (``register_tile_sums``; 0: no register tiles)."""
        bytes_ = self.register_tile_bytes()
        return register_tile_sums(bytes_) if bytes_ else 0

    def minmax_lane_bytes(self) -> int:
        """SIMD width max/min reductions are split into lanes for (polyfuse.lanes; 0: not split).
        Exact, so always on for CPU targets unless POLYFUSE_MINMAX_LANES=0."""
        if self.target == "cuda" or not env_flag("POLYFUSE_MINMAX_LANES", True):
            return 0
        return vector_bytes()

    def coalesce_rows(self) -> bool:
        """Whether nested loops over whole rows of C-ordered arrays run as one flat loop
        (polyfuse.passes.coalesce): LLVM addresses only, so the cpu target; exact (same elements
        in the same order), on unless POLYFUSE_COALESCE=0."""
        return self.target == "cpu" and env_flag("POLYFUSE_COALESCE", True)

    def reduction_block(self) -> int:
        """Terms per block of a NumPy float sum (polyfuse.passes.blocked_sums; 0: summed in one
        run of vector lanes).  CPU targets only: the Python backend is the reference, GPU threads
        keep their own sums.  POLYFUSE_BLOCKED_SUMS=0 turns it off."""
        if self.target != "cpu" or not env_flag("POLYFUSE_BLOCKED_SUMS", True):
            return 0
        return SUM_BLOCK

    def interleave_copies(self) -> int:
        """Iterations interleaved around every float reduction (interleave=True; 0: not this mode;
        GPUs map the loop to threads)."""
        if self.interleave is not True or self.target == "cuda" or not env_flag("POLYFUSE_INTERLEAVE", True):
            return 0
        return INTERLEAVE_COPIES

    def interleave_lane_bytes(self) -> int:
        """The default interleaving (interleave=None, the cpu target): latency-bound reductions
        get ``this // itemsize`` copies, one vector of lanes (0: not this mode)."""
        if self.interleave is not None or self.target != "cpu" or not env_flag("POLYFUSE_INTERLEAVE", True):
            return 0
        return vector_bytes()

    def _interleave_key(self) -> str:
        # the mode is in the key: entries compiled before the default turned on must miss
        if self.interleave_lane_bytes():
            return f"{self.interleave_lane_bytes()}B:latency"
        return str(self.interleave_copies())

    def vector_gathers(self) -> bool:
        """Whether LLVM may vectorize strided loads into gather instructions: not unless
        POLYFUSE_VECTOR_GATHERS=1 (they lost 2-4x to scalar loads on our benchmark machine;
        backends/cpu/llvm.py)."""
        return env_flag("POLYFUSE_VECTOR_GATHERS")

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ArgumentError(f"target={self.target!r}; choose one of {', '.join(TARGETS)}")
        if self.fuse not in FUSE_MODES:
            raise ArgumentError(f"fuse={self.fuse!r}; choose one of {', '.join(FUSE_MODES)}")
        if not 0 <= self.opt_level <= 3:
            raise ArgumentError(f"opt_level={self.opt_level!r}; choose 0..3")

    def key(self) -> str:
        return (f"target={self.target} fuse={self.fuse} verify={self.verify} O{self.opt_level} "
                f"contract={self.contract} tile={self.tile} fastmath={self.fastmath} vector_math={self.vector_math} "
                f"registers={self.register_tile_bytes()}x{self.register_sums()} lanes={self.minmax_lane_bytes()} "
                f"interleave={self._interleave_key()} blocked_sums={self.reduction_block()} "
                f"time_tiling={self._time_tiling_key()}" + ("" if self.parallel else " parallel=False")
                + ("" if self.outer_parallelism_enabled() or not self.parallel else " outer_parallelism=off")
                + ("" if pivot_block() == PIVOT_BLOCK or not self.outer_parallelism_enabled()
                   else f" pivot_block={pivot_block()}")
                + ("" if self.blas_products() else " blas=False")
                + ("" if self.private_sums() or not self.blas_products() or self.target != "cpu"
                   or not self.parallel else " private_sums=off")
                + ("" if self.serial_fusion_enabled() else " serial_fusion=off")
                + ("" if self.noop_versions_enabled() or self.target == "cuda" or self.fastmath
                   else " noop_versions=off")
                + ("" if self.register_cache_budget() or not self.register_tile_bytes()
                   else " register_cache_tiles=off")
                + ("" if self.register_narrower_tiles() or not self.register_tile_bytes()
                   else " register_narrower_tiles=off")
                + (f" transpose_tiles={self.transpose_tile_budget()}/{machine().line}/{transpose_tile_side()}"
                   if self.target == "cpu" else "")
                + ("" if pivot_rows() == PIVOT_ROWS or self.target == "cuda" else f" pivot_rows={pivot_rows()}")
                + ("" if packed_rows() == PACKED_ROWS or self.target == "cuda" else f" packed_rows={packed_rows()}")
                + (" packed_rest_loops" if packed_rest_loops() and self.target != "cuda" else "")
                + (f" gathers={'on' if self.vector_gathers() else 'off'}" if self.target == "cpu" else "")
                + ("" if self.coalesce_rows() or self.target != "cpu" else " coalesce=off")
                + ("" if row_tails() or self.target != "cpu" or not self.time_tiling_enabled() else " row_tails=off")
                + (f" stream_stores={stream_store_bytes()}" if self.target == "cpu" else "")
                + ("" if lazy_streams() or self.target != "cpu" else " lazy_streams=off")
                + ("" if register_gemm() or self.target != "cpu" else " register_gemm=off")
                + ("" if one_thread_tiles() or self.target != "cpu" or not self.time_tiling_enabled()
                   else " one_thread_tiles=off")
                + self._cuda_key())

    def _cuda_key(self) -> str:
        # shared-memory promotion and its byte budget change the generated CUDA code
        if self.target != "cuda":
            return ""
        return f" promote={cuda_promotion()} shared={cuda_shared_bytes()}"

