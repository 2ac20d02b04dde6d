"""LLVM backend: loop AST + statement bodies -> LLVM IR (llvmlite) -> O3 for the host -> JIT.

The generated function takes, in order: each argument (arrays as element pointers, ints as i64,
floats as double), the strides of arrays passed with any layout, the array extents, and the
kernel-local arrays.  Local scalars are stack slots, so LLVM keeps them in registers.  A phase
that runs as a parallel region (``polyfuse.phases``) gets a second function, ``<phase>.region``,
taking also the thread's number, the thread count and the barrier block; its barrier is a
function of a separate module (``barrier_module``), so the optimiser of the kernel treats it as
an opaque call that may read and write every array (their pointers are passed to it).
Python semantics are kept exactly: floor ``//`` and ``%``, integer division by zero gives 0
(numpy), no fast-math reassociation.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import ctypes.util
import functools
import hashlib
import operator
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir as ll
from polyfuse.backends.cpu import llvm_complex as cx
from polyfuse.backends.cpu import quotients
from polyfuse.backends.cpu.blas import PREFIX as BLAS_PREFIX
from polyfuse.backends.cpu.blas import ROW_GEMM, ROW_GEMM_MODULE, row_gemm_text, row_gemm_tiles
from polyfuse.backends.cpu.blas import register_symbols as register_blas
from polyfuse.backends.cpu.lapack import PREFIX as LAPACK_PREFIX
from polyfuse.backends.cpu.lapack import register_symbols as register_lapack
from polyfuse.backends.cpu.llvm_exprs import (
    CHECK_AT,
    CHECK_LOCK,
    CHECK_PHASE,
    INDEX_ERROR,
    INDEX_EXTENT,
    INDEX_VALUE,
    RECORD_CHECK,
    ExprEmitter,
    has_index,
    llvm_type,
)
from polyfuse.backends.cpu.mask_moves import active as mask_moves_active
from polyfuse.backends.cpu.mask_moves import guarded as mask_moves_guarded
from polyfuse.backends.cpu.parallel import (
    BARRIER_ABORT,
    BARRIER_GENERATION,
    BARRIER_WORDS,
    CHUNK_COUNTER,
    PARALLEL_LOOPS,
    BlasTimes,
    RegionTimes,
    blas_record,
    library_calls,
    run_call,
    run_chain,
    run_pair,
    run_parallel,
    run_region,
    team_record,
    trip_count,
)
from polyfuse.backends.cpu.phases import (
    Phase,
    library_here,
    phase_plan,
    region_groups,
    region_level,
    region_role,
    rerunnable_checks,
    shared_scalars,
    statement_roots,
)
from polyfuse.backends.cpu.quotients import checked_quotients
from polyfuse.backends.cpu.region import RegionEmitter
from polyfuse.backends.cpu.streams import (
    ALIGNMENT,
    MIN_STREAM_ROW,
    STREAM_MARK,
    STREAMED_ADDRESS,
    STREAMED_SUFFIX,
    STREAMED_WANTED,
    computes_math,
    nontemporal_stores,
    plain_store,
    prefetched_loads,
    scope_marks,
    streamable_arrays,
)
from polyfuse.backends.cpu.vector_math import FALLBACK, fallback_module

from polyfuse.analysis.carried_loads import carried_loads
from polyfuse.errors import ArgumentError
from polyfuse.hardware import llvm_host
from polyfuse.model import ir
from polyfuse.model.loop_ast import (
    ITERATOR_PREFIX,
    WALK_OUTER,
    Block,
    For,
    If,
    LoopProgram,
    Node,
    StmtCall,
    TileWalk,
    exclusive_bound,
    nodes,
    statements_in,
)
from polyfuse.model.scop import ArrayInfo, isl_name
from polyfuse.options import (
    carried_loads_enabled,
    carried_loads_guarded,
    jit_small_code,
    lazy_streams,
    library_entry,
    math_loop_interleave,
    one_row_copy,
    packed_twins,
    prefetch_bytes,
    rare_loops,
    register_tiles_wide,
    row_alias_checks,
    row_heads,
    row_heads_alike,
    row_tails,
    stream_math,
    stream_store_bytes,
    tiled_frozen_ivs,
    tiled_load_pre,
    tiled_lsr,
    tiled_twins,
    tiled_wide,
    vector_bytes,
    vector_checks,
)
from polyfuse.runtime import threads
from polyfuse.runtime.variant import address, evaluate_int

_INIT_LOCK = threading.Lock()
MAX_STREAM_SIZES = 64  # sets of sizes whose arrays' bytes LLVMKernel.stream_sizes keeps
_TARGET: dict[str, Any] = {}


def _initialize() -> str:
    """Initialise LLVM once per process; returns the host triple."""
    with _INIT_LOCK:
        if not _TARGET:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            libm = ctypes.util.find_library("m")
            if libm:
                llvm.load_library_permanently(libm)
            libc = ctypes.CDLL(None)
            llvm.add_symbol("sched_yield", ctypes.cast(libc.sched_yield, ctypes.c_void_p).value)
            _TARGET["triple"] = llvm.get_process_triple()
        return _TARGET["triple"]


def _target_machine(triple: str, *, gathers: bool = True):
    """A fresh host target machine: the JIT engine takes ownership of the one it is given.

    ``gathers=False`` (``Options.vector_gathers``): LLVM's vectorizers load strided elements one by
    one instead of with gather instructions, which its cost model rates cheap on our AMD EPYC
    (znver5) VM, where they ran 2-4x slower than scalar loads: syr2k's ``A[j, k]`` loop, and the
    interleaved rows of a matrix-vector product, which the SLP vectorizer packed into one
    gather per column (docs/performance.md)."""
    code = dict(codemodel=JIT_CODE_MODEL, reloc="pic") if _small_code(triple) else {}
    return llvm.Target.from_triple(triple).create_target_machine(
        cpu=llvm_host()[0], features=machine_features(gathers), opt=3, jit=True, **code,
    )


def machine_features(gathers: bool) -> str:
    """The feature string of ``_target_machine``'s machines (the host's, ``gathers`` or not)."""
    return llvm_host()[1] + ("" if gathers else ",+prefer-no-gather")


def _small_code(triple: str) -> bool:
    """Does the JIT's machine code use the small code model (``JIT_CODE_MODEL``)?"""
    return triple.startswith("x86_64") and jit_small_code()


_MACHINES: dict[tuple, Any] = {}


def _shared_machine(triple: str, *, gathers: bool = True):
    """``_target_machine``'s machine for what only reads it (the optimiser's pass builder, the
    data layout), made once per process and settings: making one took ~1.4 ms (LLVM's host
    name and features, then the machine), once per generated module and function; a target
    machine holds its settings only, so every optimisation reads the same one."""
    key = (triple, gathers, _small_code(triple))
    with _INIT_LOCK:
        machine = _MACHINES.get(key)
        if machine is None:
            machine = _MACHINES[key] = _target_machine(triple, gathers=gathers)
        return machine


#: The code model of the JIT's machine code on x86-64.  The JIT default there is "large": every constant
#: of the pool is addressed by a 64-bit immediate, so where a loop has more constants than free
#: registers (an inline exp's polynomial inside a row loop) each use is ``movabs`` + a broadcast
#: load instead of an FMA's memory operand: softmax's exp loop ran 116 instructions per 16 elements
#: instead of 81, 20-25% slower (docs/performance.md).  "small" with position-independent code
#: addresses them relative to the instruction: llvmlite's memory manager reserves one block for an
#: object's code and data, so those offsets stay in range, and calls and data of other objects and
#: libraries go through the stubs and GOT entries RuntimeDyld makes.  (Without PIC, "small" also
#: emits 32-bit absolute addresses, which RuntimeDyld cannot place above 4 GiB: an abort.)
JIT_CODE_MODEL = "small"


@dataclass(frozen=True)
class Param:
    """One parameter of the generated function and where its value comes from."""

    name: str
    kind: str  # "array" | "stride" | "i64" | "f64" | "re" | "im" (a complex argument's parts)
    array: str = ""
    axis: int = 0


@dataclass
class CompiledPhase:
    """One phase's JIT functions, each generated on first use (``LLVMKernel.function``): the
    phase's function (parallel phases take (first, last) iteration indices too) and, for a phase
    that runs as a parallel region (``phase.is_region``), the region function, taking (thread,
    threads, barrier block) too.  Only what the runtime runs is generated: a process on one
    thread never generates the region functions, and one on a team generates a serial twin when
    it first runs it (at sizes too small for threads, or on a re-check: backends/cpu/parallel.py)."""

    phase: Phase
    kernel: LLVMKernel = field(repr=False)
    _function: Any = field(default=None, repr=False)
    _region: Any = field(default=None, repr=False)
    _address: int | None = field(default=None, repr=False)

    @property
    def function(self):
        function = self._function
        if function is None:
            extra = [ctypes.c_int64] * 2 if self.phase.parallel else []
            function = self._function = self.kernel.function(phase_name(self.kernel.artifact.name, self.phase), extra)
        return function

    @property
    def address(self) -> int:
        """The phase function's machine-code address (the native team calls it: native_team.py)."""
        address = self._address
        if address is None:
            _ = self.function  # (generated on first use)
            with self.kernel.lock:
                address = self._address = self.kernel._generated(phase_name(self.kernel.artifact.name, self.phase))
        return address

    @property
    def region(self):
        """The region function (None: the phase is no region)."""
        region = self._region
        if region is None and self.phase.is_region:
            name = phase_name(self.kernel.artifact.name, self.phase, region=True)
            region = self._region = self.kernel.function(name, [ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p])
        return region

    def ready(self, *, region: bool) -> None:
        """Generate the function that is about to run (before a timer starts: parallel.py)."""
        _ = self.region if region else self.function


@dataclass
class LLVMKernel:
    """JIT-compiled phases; call it with the runtime's value dict."""

    artifact: LLVMArtifact  # its ``objects`` grow as functions are generated
    locals: dict[str, ArrayInfo]
    engine: Any = field(repr=False)
    phases: tuple[CompiledPhase, ...] = ()
    # the modules not yet given to the engine, by function name (split_functions), and the
    # machine code the engine generated since the artifact was last updated
    pending: dict[str, str] = field(default_factory=dict, repr=False)
    known: dict[str, bytes] = field(default_factory=dict, repr=False)  # the machine code the artifact came with
    emitted: dict[str, bytes] = field(default_factory=dict, repr=False)
    generated: list[str] = field(default_factory=list, repr=False)  # modules generated in this process, in order
    # called after a function's generation added machine code to ``artifact`` (the disk cache
    # stores the entry again: kernel.py); during a call (``__call__``), once at its end for all
    # the functions it generated: a first call generates each phase's function in turn, and each
    # store pickles and writes the whole entry again (~1 ms each: 2.2% of a sample of 40 small
    # corpus compiles, docs/performance.md, session 33 (ts42))
    on_objects: Callable[[LLVMArtifact], None] | None = field(default=None, repr=False)
    calls_running: int = field(default=0, repr=False)  # ``__call__``s under way (the stores wait for their end)
    objects_unstored: bool = field(default=False, repr=False)  # machine code on_objects has not been given
    lock: Any = field(default_factory=threading.Lock, repr=False)
    # seconds spent optimising and generating functions on first use (``function``): compile work
    # a call did, which the bench adds to the compile column
    build_seconds: float = 0.0
    # seconds spent making the native team ready inside calls (``parallel._ready_team``): with
    # ``build_seconds``, one-time work that the BLAS call mode's timer leaves out (``run_call``)
    ready_seconds: float = 0.0
    # what backends/parallel.py measured: (phase, threads, sizes) -> RegionTimes, for parallel
    # phases (sizes: the trip count) and regions (sizes: the integer arguments); serial_sizes:
    # (phase, sizes) measured not worth threads (cleared, never replaced: Launch steps hold it);
    # also ("pair row", phase, trip count) -> the least CPU seconds per row of a paired product
    # and ("pair runs", first phase, trip counts) -> the pair runs that measured them (parallel.run_pair)
    phase_times: dict[tuple, Any] = field(default_factory=dict, repr=False)
    region_times: dict[tuple, Any] = field(default_factory=dict, repr=False)
    serial_sizes: set[tuple] = field(default_factory=set, repr=False)
    phase_runs: dict[int, int] = field(default_factory=dict, repr=False)  # phase -> calls run in chunks on threads
    region_runs: dict[int, int] = field(default_factory=dict, repr=False)  # phase -> calls run on a team
    # phase -> the mode its latest call ran in, for a product whose library's threads are a candidate
    # (parallel.BlasTimes: "library", "rows", "serial")
    blas_modes: dict[int, str] = field(default_factory=dict, repr=False)
    # the mode every such product of the call under way runs in (parallel.run_call; None: each its own)
    call_blas_mode: str | None = field(default=None, repr=False)
    index_flags: Any = field(default=None, repr=False)  # (error, value[, extent]) ctypes views, run-time subscripts
    # who runs phases now, where there are index flags (``owning_index_flags``): (Python-path calls,
    # native entries) as ctypes int64s, and the lock of the Python-path calls
    index_owners: Any = field(default=None, repr=False)
    index_lock: Any = field(default_factory=threading.RLock, repr=False)
    # counts the times serial_sizes was cleared: a native entry (entry.py) that calls a parallel
    # phase serially, as measured, checks that the count is still the one it was made at
    serial_epoch: ctypes.c_int64 = field(default_factory=ctypes.c_int64, repr=False)
    team_frames: Any = field(default=None, repr=False)  # native_team.Frames of the parameters (parallel.py)
    small_code: bool = False  # the engine's target machine uses the small code model (_small_code)
    # lazy streams: (wanted flag, twin address, twin's name) of each function that probes its
    # streaming loops (``artifact.streamed``) and does not run its twin yet
    stream_switches: list[tuple[Any, Any, str]] = field(default_factory=list, repr=False)
    # lazy streams: whether the arrays of a call at these sizes (the integer parameters, which
    # give every array's shape) hold ``stream_bytes`` together, for the latest MAX_STREAM_SIZES
    # sets of sizes called while a function probes (``switch_streams``: summed once per set)
    stream_sizes: dict[Any, bool] = field(default_factory=dict, repr=False)
    # function -> its streaming twin, for the functions switched before they were generated: asking
    # for the function gives the twin (``_generated``), and the function is never generated
    switched: dict[str, str] = field(default_factory=dict, repr=False)

    def in_trials(self) -> bool:
        """Whether the BLAS modes' measurement (``parallel.BlasTimes``) of the whole calls, or
        without one of any product, is still in its trials at some sizes called: the next calls
        run each mode in turn (bench/measure.py ``warm_up`` waits for them to end)."""
        calls = [times for key, times in self.phase_times.items() if key[0] == "blas call"]
        sites = calls or [times for key, times in self.phase_times.items() if key[0] == "blas"]
        return any(isinstance(times, BlasTimes) and times.in_trials() for times in sites)

    @functools.cached_property
    def int_positions(self) -> tuple[int, ...]:
        """Positions of the integer parameters (sizes) in the argument list."""
        return tuple(k for k, p in enumerate(self.params) if p.kind == "i64")

    @property
    def params(self) -> tuple[Param, ...]:
        return self.artifact.params

    @property
    def llvm_ir(self) -> str:
        return self.artifact.llvm_ir

    @property
    def optimized_ir(self) -> str:
        return self.artifact.optimized_ir  # (optimised when asked: an O3 run of the whole module)

    def function(self, name: str, extra: list) -> Any:
        """The JIT function ``name`` (taking the parameters and ``extra``), its machine code
        generated now if no earlier call asked for it (or loaded from the disk cache's objects).
        Thread-safe: one generation per function."""
        with self.lock:
            address = self._generated(name)
        return ctypes.CFUNCTYPE(None, *[_CTYPES[p.kind] for p in self.params], *extra)(address)

    def _generated(self, name: str) -> int:
        """``function``'s work under the lock: the address of ``name``'s machine code, generated
        after that of the function it calls (a serial twin that runs its region: ``twins``),
        which MCJIT resolves among the modules it has."""
        for serial, region in self.artifact.twins:
            if serial == name:
                self._generated(region)
        if name in self.switched:
            return self._generated(self.switched[name])
        start = time.perf_counter()
        text = self.pending.pop(name, None)
        key = None
        if text is not None and name not in self.known:
            # the same function (same IR, same settings) generated earlier in the process, by
            # another kernel: its machine code is what LLVM would make again
            key = _object_key(self, name, text)
            reused = _generated_object(key)
            if reused is not None:
                self.known[name] = self.emitted[name] = reused  # (kept with the artifact's objects too)
                key = None
        if text is not None:
            # machine code from the disk cache needs no optimiser, nor the function's IR:
            # MCJIT takes the object for a module that defines the name (and only its name)
            module = llvm.parse_assembly(_stub(name) if name in self.known else text)
            if name not in self.known:
                optimize(module, self.artifact, name)
                # printed and parsed again, as the whole module was before it was cut: the
                # parse orders each value's uses as the text does, and the register allocator
                # follows that order (without it 56 of 162 functions got other registers)
                # (mask_moves: a function at risk of LLVM 22's miscompiled sign masks loses AVX512DQ/BW)
                module = llvm.parse_assembly(mask_moves_guarded(self.artifact.after_optimiser(str(module)),
                                                                machine_features(self.artifact.gathers)))
            module.name = name  # (the object cache keys by module name)
            self.engine.add_module(module)
        # (MCJIT generates the machine code of the module just added here)
        with _llvm_options(NO_LSR_OPTIONS, text is not None and name not in self.known
                           and name in self.artifact.without_lsr):
            address = self.engine.get_function_address(name)
        if text is not None:
            self.build_seconds += time.perf_counter() - start
        fresh, self.emitted = self.emitted, {}
        if key is not None and name in fresh:
            _remember_object(key, fresh[name])
        if fresh:
            self.generated.extend(fresh)
            objects = tuple(sorted({**dict(self.artifact.objects), **fresh}.items()))
            self.artifact = replace(self.artifact, objects=objects)
            if self.on_objects is not None:  # (under the lock: the latest objects stored last)
                if self.calls_running:
                    self.objects_unstored = True
                else:
                    self.on_objects(self.artifact)
        return address

    def __call__(self, values: dict[str, Any]) -> None:
        # (a count without the lock: concurrent calls of one kernel that miscount it only store
        # the objects earlier or later)
        self.calls_running += 1
        try:
            if self.stream_switches:
                self.switch_streams(values)
            args = [self._value(p, values) for p in self.params]
            if self.has_library():
                run_call(self, tuple(args[k] for k in self.int_positions), lambda: self._run_phases(args, values))
            else:
                self._run_phases(args, values)
        finally:
            self.calls_running -= 1
            if self.stream_switches:
                self.switch_streams(None)
            if self.objects_unstored and self.calls_running <= 0:
                self._store_objects()

    def switch_streams(self, values: dict[str, Any] | None) -> None:
        """Before a call (``values``) whose arrays hold at least ``stream_bytes`` bytes together,
        every function that may stream; after a call (None: the first one at each set of sizes
        takes this path, before its plan is made), each function whose run would have streamed
        (its wanted flag set): its streaming twin is generated (or linked from the disk cache's
        objects; ``build_seconds`` counts it) and from now on runs, wherever the function is
        called from.  Before a large first call the function itself is then never generated
        (``switched``): the bench's sizes cost the LLVM work they cost with both copies inline.
        The arrays' bytes only say that a loop may stream (a loop that reads a broadcast row
        moves more): the wanted flag has the last word."""
        if values is not None and not self._streams_at(values):
            return
        for switch in [s for s in self.stream_switches if values is not None or s[0].value]:
            _, target, twin = switch
            with self.lock:
                if switch not in self.stream_switches:
                    continue
                self.stream_switches.remove(switch)
                name = twin[:-len(STREAMED_SUFFIX)]
                if name in self.pending and name not in {r for _, r in self.artifact.twins}:
                    # (generated when the runtime first asks for the function, as the function would
                    # be: a region twin only on a team; a serial twin's region is called by name)
                    self.switched[name] = twin
                else:
                    target.value = self._generated(twin)

    def _streams_at(self, values: dict[str, Any]) -> bool:
        """Do the arrays of a call with ``values`` hold ``stream_bytes`` together?  The sum over
        its arrays is taken at the first call at each set of sizes; later calls look it up (the
        check runs on every call that takes this path until each twin runs: a call with keyword
        arguments, or with an integer that differs on every call, never has a plan)."""
        sizes = self._sizes_of(values)
        large = self.stream_sizes.get(sizes)
        if large is None:
            total = sum(v.nbytes for v in values.values() if type(v) is np.ndarray)
            large = total >= self.artifact.stream_bytes
            if len(self.stream_sizes) >= MAX_STREAM_SIZES:
                self.stream_sizes.pop(next(iter(self.stream_sizes)), None)  # the oldest
            self.stream_sizes[sizes] = large
        return large

    @functools.cached_property
    def _sizes_of(self) -> Callable[[dict[str, Any]], Any]:
        """The integer parameters' values of a call's ``values`` (a tuple; one value where the
        kernel has one), a key of ``stream_sizes``."""
        names = [self.params[k].name for k in self.int_positions]
        return operator.itemgetter(*names) if names else (lambda values: ())

    def store_after_call(self) -> bool:
        """Have ``on_objects`` (set) called at the end of the next call even if it generates no
        machine code: the kernel compiled for that call stores its disk-cache entry then, once
        (kernel.py ``_build``).  True: it will be."""
        with self.lock:
            if self.on_objects is None:
                return False
            self.objects_unstored = True
            return True

    def _store_objects(self) -> None:
        """The machine code the calls generated, given to ``on_objects`` once."""
        with self.lock:
            if self.objects_unstored:
                self.objects_unstored = False
                if self.on_objects is not None:
                    self.on_objects(self.artifact)

    def has_library(self) -> bool:
        """Has the kernel, at the present polyfuse thread count, a product whose library's threads
        are a candidate (``Phase.library``, ``phases.library_here``): its calls then choose one
        BLAS mode for all such products (``parallel.run_call``)."""
        one, more = self._library_sites
        if one == more:  # the count cannot change the answer: do not ask for it
            return one
        return more if threads.get_num_threads() > 1 else one

    @functools.cached_property
    def _library_sites(self) -> tuple[bool, bool]:
        """``has_library`` on one polyfuse thread, then on more."""
        return (any(library_here(c.phase, 1) for c in self.phases),
                any(library_here(c.phase, 2) for c in self.phases))

    @contextlib.contextmanager
    def owning_index_flags(self):
        """One call of the kernel at a time runs its phases where they record index errors (or
        failed asserts) in the module's flag, which the call reads and clears after each phase:
        two Python threads' calls at once raised each other's IndexError, or neither (an access
        skipped, the call returning). A Python-path call takes ``index_lock``, marks itself, so
        that native entries miss from then on (runtime/native.py; they take the Python path), and
        waits for the native entry under way, if any; a native entry owns the flags by its own
        word (backends/cpu/entry.py ``take_flags``), set while it holds the GIL."""
        if self.index_owners is None:
            yield
            return
        python, native = self.index_owners
        with self.index_lock:
            python.value += 1
            try:
                while native.value:
                    time.sleep(0)  # (the entry runs without the GIL)
                yield
            finally:
                python.value -= 1

    def _run_phases(self, args: list, values: dict[str, Any]) -> None:
        with self.owning_index_flags():
            self._run_owned_phases(args, values)

    def _run_owned_phases(self, args: list, values: dict[str, Any]) -> None:
        paired = -1
        for k, compiled in enumerate(self.phases):
            if compiled.phase.chained or k == paired or runs_nothing(compiled.phase, values):
                continue  # (a chained phase is run by its chain's first phase; a chain's phases share its rows)
            if (compiled.phase.pair and not runs_nothing(self.phases[k + 1].phase, values)
                    and run_pair(self, compiled, self.phases[k + 1], args, values)):
                paired = k + 1  # (both ran)
            elif compiled.phase.chain:
                run_chain(self, self.phases[k:k + compiled.phase.chain], args, values)
            elif compiled.phase.parallel:
                run_parallel(self, compiled, args, values)
            elif compiled.phase.is_region:
                run_region(self, compiled, args)
            else:
                compiled.function(*args)
            self.raise_index_error()

    def explain_sections(self) -> tuple[tuple[str, Any], ...]:
        """explain()'s "BLAS threads" section: for each product whose library's threads are a
        candidate (``Phase.library``), what was measured at each trip count in this process; and
        its "team or serial" section: for each parallel phase, chain and region, what the team
        and the serial function measured at each size and which one runs (``team_record``)."""
        records = [blas_record(key, times, self.blas_modes.get(key[1]))
                   for key, times in self.phase_times.items() if key[0] in ("blas call", "blas")]
        teams = [team_record(key, times) for key, times in self.phase_times.items()
                 if isinstance(times, RegionTimes)]
        teams += [team_record(("region", *key), times) for key, times in self.region_times.items()]
        return (*((("BLAS threads", records),) if records else ()),
                *((("team or serial", teams),) if teams else ()))

    def raise_index_error(self) -> None:
        """IndexError for a run-time subscript outside its axis, recorded by the phase just run
        (which skipped that access), or AssertionError for an assert that failed there.  Called
        while the call owns the flags (``owning_index_flags``)."""
        if self.index_flags is None or not self.index_flags[0].value:
            return
        error, value, *extent = self.index_flags
        code, error.value = error.value - 1, 0
        if code >= 64 * len(self.artifact.arrays):  # an assert that failed (ir.Check)
            kind, message = self.artifact.checks[code - 64 * len(self.artifact.arrays)]
            ir.raise_check(kind, message, value.value)
        array, axis = self.artifact.arrays[code // 64], code % 64
        size = f" with size {extent[0].value}" if extent else ""  # (an artifact from before the extent was kept)
        raise IndexError(f"index {value.value} is out of bounds for axis {axis} of {array!r}{size}")

    def prepare(self, values: dict[str, Any], arguments: tuple[str, ...]) -> Launch | None:
        """What every call with these sizes shares (``values``: a call's that passed the runtime's
        checks): the parameters after the call's own ``arguments`` (strides, extents; local
        arrays left to the caller) and the phase steps with their trip counts.  None when the
        parameters do not start with the arguments (the runtime then keeps the full path)."""
        if tuple(p.name for p in self.params[:len(arguments)]) != arguments:
            return None
        tail: list[Any] = []
        slots: list[Any] = []
        for param in self.params[len(arguments):]:
            if param.kind == "array":
                slots.append((len(tail), param.name))
                tail.append(0)
            else:
                tail.append(self._value(param, values))
        sizes = {name: value for name, value in values.items() if type(value) is int}
        steps = tuple(self._step(k, sizes) for k in range(len(self.phases)))
        # one serial phase and nothing checked at run time: the runtime may call it straight
        plain = len(self.phases) == 1 and not self.phases[0].phase.parallel and not self.phases[0].phase.is_region
        direct = self.phases[0].function if plain and self.index_flags is None else None
        return Launch(self, tuple(tail), tuple(slots), steps, direct, sizes)

    def serial_key(self, compiled: CompiledPhase, sizes: dict[str, int]) -> tuple | None:
        """The ``serial_sizes`` entry under which a phase runs serially at these sizes (None:
        it always does)."""
        phase = compiled.phase
        if phase.parallel:
            count = trip_count(phase, sizes)
            return (phase.index, count) if count > 1 else None
        if phase.is_region:
            return (phase.index, tuple(sizes[self.params[k].name] for k in self.int_positions))
        return None

    def serial_call(self, compiled: CompiledPhase, sizes: dict[str, int]) -> SerialCall:
        """How one phase runs serially at these sizes, for a native entry (backends/cpu/entry.py)."""
        address = ctypes.cast(compiled.function, ctypes.c_void_p).value or 0
        count = trip_count(compiled.phase, sizes) if compiled.phase.parallel else None
        return SerialCall(address, count, self.serial_key(compiled, sizes))

    def _step(self, index: int, sizes: dict[str, int]) -> Callable[[list], None]:
        """How phase ``index`` runs at these sizes, given the argument list: once measured too
        small for threads (``serial_sizes``), straight to its serial function; a chain's first
        phase runs the chain, its other phases nothing; the first of a pair of products
        (``Phase.pair``) runs both, at once where ``run_pair`` takes them, the second nothing."""
        compiled = self.phases[index]
        phase = compiled.phase
        if phase.chained:
            return lambda args: None
        if phase.pair and not runs_nothing(phase, sizes) and not runs_nothing(self.phases[index + 1].phase, sizes):
            alone, second = self._step_alone(index, sizes), self._step_alone(index + 1, sizes)

            def pair(args: list) -> None:
                if not run_pair(self, compiled, self.phases[index + 1], args, sizes):
                    alone(args)
                    self.raise_index_error()
                    second(args)

            return pair
        if index > 0 and self.phases[index - 1].phase.pair and not runs_nothing(self.phases[index - 1].phase, sizes):
            return lambda args: None  # (run by the pair's step)
        return self._step_alone(index, sizes)

    def _step_alone(self, index: int, sizes: dict[str, int]) -> Callable[[list], None]:
        compiled = self.phases[index]
        phase, serial_sizes = compiled.phase, self.serial_sizes
        if runs_nothing(phase, sizes):
            return _nothing
        if phase.chain:
            chain, count = self.phases[index:index + phase.chain], trip_count(phase, sizes)
            return lambda args: run_chain(self, chain, args, sizes, count)
        if phase.parallel:
            function, count = compiled.function, trip_count(phase, sizes)
            serial = (phase.index, count)

            def chunks(args: list) -> None:
                if serial in serial_sizes:
                    function(*args, 0, count)
                else:
                    run_parallel(self, compiled, args, sizes, count)

            return chunks
        if phase.is_region:  # (the serial twin is generated when it first runs)
            key = tuple(sizes[self.params[k].name] for k in self.int_positions)
            serial = (phase.index, key)

            def region(args: list) -> None:
                if serial in serial_sizes:
                    compiled.function(*args)
                else:
                    run_region(self, compiled, args, key)

            return region
        function = compiled.function
        return lambda args: function(*args)

    @staticmethod
    def _value(param: Param, values: dict[str, Any]):
        if param.kind == "array":
            array = values[param.name]
            return address(array) if type(array) is np.ndarray else array.ctypes.data
        if param.kind in ("re", "im"):
            return getattr(values[param.array], "real" if param.kind == "re" else "imag")
        if param.kind == "stride":
            arr = values[param.array]
            stride, rem = divmod(arr.strides[param.axis], arr.itemsize)
            if rem:
                raise ArgumentError(f"array {param.array!r} has a stride that is not a whole number of elements")
            return stride
        return values[param.name]


@dataclass(frozen=True)
class Launch:
    """An LLVM kernel's calls at one set of sizes (``LLVMKernel.prepare``): called with the full
    argument list, the call's own arguments followed by ``tail`` with the local arrays' addresses
    put at ``local_slots``."""

    kernel: LLVMKernel
    tail: tuple  # ctypes values after the call's arguments: strides, extents; 0 where a local goes
    local_slots: tuple[tuple[int, str], ...]  # (position in tail, local array)
    steps: tuple[Callable[[list], None], ...]  # one per phase
    direct: Callable[..., None] | None = None  # the one phase's function, where calling it is all
    sizes: dict[str, int] = field(default_factory=dict, repr=False)  # the integer values of the call

    @functools.cached_property
    def serial(self) -> tuple[SerialCall, ...]:
        """Each phase run serially (a native entry's calls): asked for only when an entry is
        made, since it generates every phase's serial function."""
        return tuple(self.kernel.serial_call(c, self.sizes) for c in self._running)

    @functools.cached_property
    def _running(self) -> tuple[CompiledPhase, ...]:
        """The phases that do something at these sizes (``runs_nothing``: the others' machine
        code is never generated for them)."""
        return tuple(c for c in self.kernel.phases if not runs_nothing(c.phase, self.sizes))

    def __call__(self, args: list) -> None:
        countdown = self.library_countdown()
        self.disarm()
        if self.kernel.has_library():
            run_call(self.kernel, self.call_sizes, lambda: self._run_steps(args))
        else:
            self._run_steps(args)
        if countdown is not None:  # the calls a native entry may run before the next measurement
            workers = threads.get_num_threads()
            countdown.value = library_calls(self.kernel, self.library_keys(), 0, self.call_sizes, workers=workers)
            self._armed[:] = [countdown.value, workers]

    def disarm(self) -> None:
        """Count the calls a native entry ran on the library's threads since the last call here,
        at the thread count its countdown was set at (``_armed``), and set it to none: each call
        here, and each entry made (``native.native_call``; after the thread count changed, the
        new entry would otherwise run the calls the old count's measurement allowed, reported
        later at another count), so that only this path sets it, from the current count's
        measurement."""
        countdown = self.library_countdown()
        if countdown is not None and self._armed[0]:
            library_calls(self.kernel, self.library_keys(self._armed[1]), self._armed[0] - countdown.value,
                          self.call_sizes, workers=self._armed[1])
            countdown.value = self._armed[0] = 0

    def _run_steps(self, args: list) -> None:
        with self.kernel.owning_index_flags():
            for step in self.steps:
                step(args)
                self.kernel.raise_index_error()

    @functools.cached_property
    def call_sizes(self) -> tuple:
        """The call's integer arguments, as ``LLVMKernel.__call__`` keys its one BLAS mode."""
        params = self.kernel.params
        return tuple(self.sizes[params[k].name] for k in self.kernel.int_positions)

    def library_keys(self, workers: int | None = None) -> frozenset[tuple]:
        """The ``serial_key`` of each product whose library's threads are a candidate on
        ``workers`` polyfuse threads (the current count by default; ``Phase.library``,
        ``phases.library_here``, ``parallel.BlasTimes``)."""
        candidates = [c for c in self._running if c.phase.library]
        if not candidates:  # no product: do not ask for the thread count
            return frozenset()
        if workers is None:
            workers = threads.get_num_threads()
        keys = (self.kernel.serial_key(c, self.sizes) for c in candidates if library_here(c.phase, workers))
        return frozenset(key for key in keys if key is not None)

    def library_countdown(self) -> ctypes.c_int64 | None:
        """The calls a native entry may run with such products on the library's threads before
        the runtime measures again (runtime/native.py ``EntrySpec.countdown``): set after each
        call of the Python path while every such product's measurement has the library's threads
        fastest and no mode due for a check; None where the launch has none (or a chain)."""
        if not self._library_entry or not self.library_keys():
            return None
        return self._countdown

    @functools.cached_property
    def _library_entry(self) -> bool:
        # (a product and its epilogue chained, ``Phase.chain_whole``, runs in the library's mode as
        # unchained: the product on the library's threads, then the epilogue, each phase whole)
        return library_entry() and not any(c.phase.chain and not c.phase.chain_whole for c in self.kernel.phases)

    @functools.cached_property
    def _countdown(self) -> ctypes.c_int64:
        return ctypes.c_int64(0)

    @functools.cached_property
    def _armed(self) -> list[int]:
        # what the countdown was set to after the last call here, and the thread count then: the
        # entry's calls are counted there (``disarm``), not at the count of the call that reports
        # them (the bench's one-thread column's entry calls were counted as the library's threads
        # on two, and the next 0.1 s of runs on two threads went uncounted, as beside its workers)
        return [0, 0]

    def serial_keys(self) -> frozenset[tuple]:
        """The ``serial_sizes`` entries under which ``serial`` is how every phase runs now."""
        keys = (self.kernel.serial_key(c, self.sizes) for c in self._running)
        return frozenset(key for key in keys if key is not None)

    def compile_entry(self, spec) -> Callable[..., Any] | None:
        """The native entry ``spec`` describes (runtime/native.py), as a CPython function."""
        from polyfuse.backends.cpu.entry import compile_entry

        return compile_entry(spec)

    def index_flag(self) -> int:
        """The address of the kernel's index-error flag (0: it has none)."""
        flags = self.kernel.index_flags
        return 0 if flags is None else ctypes.addressof(flags[0])

    def index_owners(self) -> tuple[int, int]:
        """The addresses of the kernel's (Python-path, native-entry) owner words of the index
        flags (``LLVMKernel.owning_index_flags``; 0s: it has no flags)."""
        owners = self.kernel.index_owners
        return (0, 0) if owners is None else (ctypes.addressof(owners[0]), ctypes.addressof(owners[1]))


def runs_nothing(phase: Phase, sizes: dict[str, Any]) -> bool:
    """Does ``phase`` do nothing at these sizes: a loop (parallel, or a parallel region's) with no
    iteration, whose function would only return?  Then the runtime does not call it, and LLVM
    never generates its machine code (mvt's versions for other shapes of A: 5 of its 10
    functions at square sizes, a third of its compile).  False where the loop's bounds cannot
    be evaluated from the sizes.  A region whose code is a guard on the sizes (the versions of
    time_tiling.whole_row_version: ``if rows fit: untiled else: tiles``) runs nothing where the
    branch the sizes take runs nothing (or there is none)."""
    node = phase.node
    if not (phase.parallel or phase.is_region) or not (isinstance(node, For)
                                                      or isinstance(node, If) and phase.is_region):
        return False
    try:
        if phase.parallel:
            return trip_count(phase, sizes) == 0
        return _empty_at(node, sizes)
    except (ArgumentError, KeyError, TypeError, ValueError, ZeroDivisionError):
        return False


def _empty_at(node: Node | None, sizes: dict[str, Any]) -> bool:
    """Does ``node`` (a region's loop, or guards on the sizes around loops) run nothing at these
    sizes: a loop without an iteration, or a guard whose branch taken does nothing?"""
    if node is None:
        return True
    if isinstance(node, For):
        return not evaluate_int(node.cond, {**sizes, node.iterator: evaluate_int(node.init, sizes)})
    if isinstance(node, If):
        return _empty_at(node.then if evaluate_int(node.cond, sizes) else node.otherwise, sizes)
    return False


def _nothing(args: list) -> None:
    """A phase's step where it runs nothing (``runs_nothing``)."""


@dataclass(frozen=True)
class SerialCall:
    """One phase's serial function at one set of sizes: its address, the trip count a parallel
    phase's function takes ([0, count)), and the ``serial_sizes`` entry that must hold for the
    phase to run serially (None: it always does)."""

    address: int
    count: int | None = None
    serial_key: tuple | None = None


def signature(program: LoopProgram, shared: set[str]) -> tuple[Param, ...]:
    params: list[Param] = []
    for arg in program.arguments:
        if arg.kind == "complex":  # two doubles: a struct by value would depend on the C ABI
            params.extend(Param(f"{arg.name}__{part}", part, arg.name) for part in ("re", "im"))
            continue
        kind = {"array": "array", "int": "i64", "bool": "i64", "float": "f64"}[arg.kind]
        params.append(Param(arg.name, kind))
    for arg in program.arguments:
        if arg.kind == "array" and arg.layout != "C":
            params.extend(Param(f"{arg.name}__stride{d}", "stride", arg.name, d) for d in range(arg.rank))
    taken = {p.name for p in params}
    params.extend(Param(p, "i64") for p in program.params if p not in taken)
    params.extend(Param(a.name, "array") for a in program.local_arrays()
                  if not a.is_scalar or a.name in shared)
    return tuple(params)


@dataclass(frozen=True)
class LLVMArtifact:
    """Everything needed to JIT a kernel again without polyfuse's earlier stages (disk cache)."""

    name: str
    params: tuple[Param, ...]
    phases: tuple[Phase, ...]
    locals: tuple[ArrayInfo, ...]
    llvm_ir: str  # as generated (``inspect_llvm(optimized=False)``)
    linked_ir: str  # with the libm fallbacks linked in, for the host: what the optimiser takes
    arrays: tuple[str, ...] = ()  # every array's name as the user wrote it, to name a run-time subscript's array
    checks: tuple[tuple[str, str | None], ...] = ()  # the errors and messages of the asserts checked at run time (ir.Check)
    # the machine code MCJIT emitted for each module (by module name): a disk-cache load links it
    # instead of running LLVM's code generator again, which took most of a warm load (0.7 s of
    # fdtd-2d's 0.8 s).  Valid for this CPU and LLVM only: both are part of the cache key.
    objects: tuple[tuple[str, bytes], ...] = ()
    gathers: bool = True  # Options.vector_gathers (the optimiser's and code generation's target machine)
    opt_level: int = 3  # Options.opt_level
    row_alias_checks: bool = True  # options.row_alias_checks() when the kernel was compiled
    # the functions whose machine code is generated without loop strength reduction (``without_lsr``)
    without_lsr: tuple[str, ...] = ()
    # the functions optimised without GVN's load PRE across iterations (``without_load_pre``)
    without_load_pre: tuple[str, ...] = ()
    # (serial function, region function): serial phase functions that run their region function
    # on one thread (``shared_twins``)
    twins: tuple[tuple[str, str], ...] = ()
    # (function, its streaming twin): functions that probe their streaming loops (lazy_streams)
    streamed: tuple[tuple[str, str], ...] = ()
    stream_bytes: int = 0  # options.stream_store_bytes() when the kernel was compiled
    prefetch: int = 0  # options.prefetch_bytes() when the kernel was compiled
    chains: tuple = ()  # the chain decisions of the phases' plan (``phase_plan``), for explain()

    @functools.cached_property
    def optimized_ir(self) -> str:
        """The whole module after the optimiser (``inspect_llvm()``; the runtime optimises each
        function when it first runs, ``split_functions``)."""
        module = llvm.parse_assembly(self.linked_ir)
        optimize(module, self)
        return mask_moves_guarded(self.after_optimiser(str(module)), machine_features(self.gathers))

    def after_optimiser(self, text: str) -> str:
        """The optimised module's text with the streams' marks made non-temporal stores and,
        with ``prefetch``, its vector loads prefetched (backends/cpu/streams.py)."""
        return prefetched_loads(nontemporal_stores(text), self.prefetch)


def compile_llvm(program: LoopProgram, options) -> LLVMKernel:
    """Generate, optimise and JIT-compile ``program`` for the host CPU, one function per phase."""
    return load_artifact(generate(program, options))


def generate(program: LoopProgram, options) -> LLVMArtifact:
    """LLVM IR for ``program`` for the host CPU (each function is optimised when it first runs)."""
    phases, chains = phase_plan(program)
    shared = shared_scalars(program)
    params = signature(program, shared)
    module = ll.Module(name=program.name)
    emitted = []
    twins = shared_twins(program, phases)
    math = {"fastmath": options.fastmath, "vector_math": options.fastmath or options.vector_math,
            "stream_bytes": stream_store_bytes(), "probe": lazy_streams()}
    for phase in phases:
        if phase in twins:
            pair = streamed_pair(module, program, params, phase, shared, math, region=True)
            serial_through_region(module, params, phase_name(program.name, phase), pair[0].function)
            emitted += pair
            continue
        emitted += streamed_pair(module, program, params, phase, shared, math)
        if phase.is_region:
            emitted += streamed_pair(module, program, params, phase, shared, math, region=True)
    tiled = set(tiled_functions(program, phases)) if tiled_wide() else set()
    tiled |= set(register_tiled_functions(program, phases)) if register_tiles_wide() else set()
    text = wide_vector_functions(str(module), [cg.function.name for cg in emitted
                                               if cg.inline_math_used or cg.base_name in tiled
                                               or cg.checked_quotients])
    text = scope_marks(row_loop_hints(interleave_math_loops(text)))
    triple = _initialize()
    tm = _shared_machine(triple, gathers=options.vector_gathers())
    parsed = llvm.parse_assembly(text)
    parsed.triple = triple
    parsed.data_layout = str(tm.target_data)
    link_fallbacks(parsed, module, triple)
    parsed.verify()
    streamed = tuple((cg.function.name, cg.base_name + STREAMED_SUFFIX) for cg in emitted if cg.probed)
    return LLVMArtifact(program.name, params, phases, program.local_arrays(), text, str(parsed),
                        tuple(program.shown(a.name) for a in program.arrays), check_messages(program),
                        gathers=options.vector_gathers(), opt_level=options.opt_level,
                        row_alias_checks=row_alias_checks(),
                        without_lsr=with_streamed(without_lsr(program, phases), streamed),
                        without_load_pre=() if tiled_load_pre() else with_streamed(tiled_functions(program, phases),
                                                                                   streamed),
                        twins=tuple((phase_name(program.name, p), phase_name(program.name, p, region=True))
                                    for p in twins), streamed=streamed, stream_bytes=stream_store_bytes(),
                        prefetch=prefetch_bytes(), chains=chains)


def streamed_pair(module: ll.Module, program: LoopProgram, params: tuple[Param, ...], phase: Phase,
                  shared: set[str], math: dict, *, region: bool = False) -> list[KernelCodegen]:
    """The phase's function (``math["probe"]``: with each streaming loop plain, probed), and,
    where it probed one, the twin that streams (``STREAMED_SUFFIX``, generated when a call first
    wants it: ``LLVMKernel.switch_streams``)."""
    plain = KernelCodegen(module, program, params, phase, shared, **math, region=region)
    if not plain.probed:
        return [plain]
    twin = KernelCodegen(module, program, params, phase, shared, **{**math, "probe": False}, region=region,
                         suffix=STREAMED_SUFFIX)
    return [plain, twin]


def with_streamed(names: tuple[str, ...], streamed: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """``names`` and the streaming twin of each that has one (they take the same LLVM settings)."""
    twins = dict(streamed)
    return names + tuple(twins[n] for n in names if n in twins)


def shared_twins(program: LoopProgram, phases: tuple[Phase, ...]) -> tuple[Phase, ...]:
    """The parallel regions whose serial function runs the region function on one thread
    (``serial_through_region``) instead of being a copy of its loops without the team's chunks
    and barriers, where the copy doubled LLVM's work and the region on one thread runs as fast
    (its barriers return at once, one per block of work):

    - regions that run time-tiled nests (``program.time_tiled``; a barrier per wavefront of tiles;
      fdtd-2d's optimiser and code generator took 0.1-0.25 s per function; docs/performance.md,
      *Compile time, session 19*), but not their whole-row versions (a barrier per sweep).  None
      with ``POLYFUSE_TILED_TWINS=1``;
    - regions that run packed rows (``program.packed_rows``; a barrier per block of 32 pivots;
      cholesky's twin was ~4,900 instructions, ~0.5 s of LLVM; *Compile time, session 31*).
      None with ``POLYFUSE_PACKED_TWINS=1``.

    Other regions keep their twins: a small region ran 1.2-2.5x slower on one thread than its
    twin (covariance's 40 us phase: chunk counter and barriers per outer iteration; floyd-warshall
    1.85x at 300 nodes)."""
    tiled = frozenset() if tiled_twins() else program.time_tiled
    packed = frozenset() if packed_twins() else program.packed_rows

    def shares(phase: Phase) -> bool:
        names = statements_in(phase.node)
        return bool(packed.intersection(names)
                    or (tiled.intersection(names) and not program.whole_row.intersection(names)))
    return tuple(phase for phase in phases if phase.is_region and not phase.parallel and shares(phase))


def serial_through_region(module: ll.Module, params: tuple[Param, ...], name: str, region) -> None:
    """``name(params)``: ``region(params, 0, 1, block)`` on a zeroed barrier block of its own,
    the region function on one thread (each of its barriers returns at once: the one thread is
    the last to arrive)."""
    count = len(region.args) - 3
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [a.type for a in region.args[:count]]), name=name)
    for param, arg in zip(params, fn.args):
        arg.name = param.name
        if param.kind == "array":
            arg.add_attribute("noalias")
    builder = ll.IRBuilder(fn.append_basic_block("entry"))
    block = builder.alloca(ll.ArrayType(_I64, BARRIER_WORDS), name="barrier")
    builder.store(ll.Constant(ll.ArrayType(_I64, BARRIER_WORDS), None), block)
    first = builder.gep(block, [_i64(0), _i64(0)])
    builder.call(region, [*fn.args, _i64(0), _i64(1), first])
    builder.ret_void()


def tiled_functions(program: LoopProgram, phases: tuple[Phase, ...]) -> tuple[str, ...]:
    """The functions (serial and region) of the phases that run time-tiled nests, which get
    ``WIDE_VECTOR_BITS`` (``POLYFUSE_TILED_WIDE=0``: LLVM's preference).  The footprint model keeps
    their tiles in L2, so their row loops are bound by arithmetic and L1/L2 loads, where 512-bit
    vectors pay as they do for the transcendentals: on an Intel AVX-512 VM (LLVM: ``rocketlake``,
    256 bits preferred), one thread, heat-3d 1.13-1.16x, fdtd-2d 1.10-1.12x, jacobi-2d 1.07-1.09x,
    jacobi-1d 1.22-1.46x (docs/performance.md, *Stencils on Intel*).  The same for the phases of
    nests blocked for L1/L2 another way (``program.cache_blocked``: passes/pivot_rows.py)."""
    blocked = program.time_tiled | program.cache_blocked  # (pivot rows: Floyd-Warshall 1.02-1.16x)
    return functions_running(program, phases, blocked)


def register_tiled_functions(program: LoopProgram, phases: tuple[Phase, ...]) -> tuple[str, ...]:
    """The functions (serial and region) of the phases that run register tiles
    (passes/registers.py: statements into a local array marked ``register_tile``), which get
    ``WIDE_VECTOR_BITS`` too (``POLYFUSE_REGISTER_TILES_WIDE=0``: LLVM's preference).  The tiles
    are sized in vectors of the CPU's widest registers (schedule/tiling.py); at LLVM's 256 bits
    on Intel's AVX-512 cores a 4 x 16 float64 tile ran as 16 half-width sums, twice the
    multiplies and adds per term (gemm, ``blas=False``, one thread: docs/performance.md,
    *Session 40 (gm56)*)."""
    tiles = {a.name for a in program.arrays if a.register_tile}
    tiled = frozenset(s.name for s in program.statements if s.array in tiles)
    return functions_running(program, phases, tiled)


def functions_running(program: LoopProgram, phases: tuple[Phase, ...], statements: frozenset[str]) -> tuple[str, ...]:
    """The functions (serial and region) of the phases that run any of ``statements``."""
    names = []
    for phase in phases:
        if statements and statements.intersection(statements_in(phase.node)):
            names.append(phase_name(program.name, phase))
            if phase.is_region:
                names.append(phase_name(program.name, phase, region=True))
    return tuple(names)


def without_lsr(program: LoopProgram, phases: tuple[Phase, ...]) -> tuple[str, ...]:
    """The functions of the phases that run time-tiled nests (``program.time_tiled``) when
    ``POLYFUSE_TILED_LSR=0``: their machine code is then generated without LLVM's loop strength
    reduction (``-disable-lsr``); by default none.

    Tiled stencil code has many loops whose bounds and subscripts are mins, maxes and floors of
    the tile coordinates, and LSR's search over their induction-variable uses is the largest
    single cost of generating them (fdtd-2d: 0.33 s of LLVM's 0.95 s; heat-3d 0.09 of 0.37).
    Whether the code runs as fast without it was not settled on the loaded development VM
    (docs/performance.md, *Compile time*); elsewhere LSR pays (gemm's register tiles ran up to
    1.5x slower without it)."""
    if not program.time_tiled or tiled_lsr():
        return ()
    names = []
    for phase in phases:
        if program.time_tiled.intersection(statements_in(phase.node)):
            names.append(phase_name(program.name, phase))
            if phase.is_region:
                names.append(phase_name(program.name, phase, region=True))
    return tuple(names)


def optimize(module, artifact: LLVMArtifact, name: str | None = None) -> None:
    """LLVM's O3 pipeline (``artifact.opt_level``) on ``module``, for the host CPU, with the
    vectorizers on and polyfuse's ``PIPELINE_OPTIONS``.  Its passes work on one function at a
    time or only look at the functions a function calls, and the phase functions call no
    other (split_functions), so optimising one function's module gives it the code it gets
    in the whole module.  ``name``: the one function of ``module``, which takes
    ``NO_LOAD_PRE_OPTIONS`` where it is in ``artifact.without_load_pre``; None (the whole module,
    ``inspect_llvm``): where any function is."""
    if artifact.opt_level == 0:
        return
    pto = llvm.create_pipeline_tuning_options(speed_level=artifact.opt_level)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    builder = llvm.create_pass_builder(_shared_machine(_initialize(), gathers=artifact.gathers), pto)
    no_pre = name in artifact.without_load_pre if name is not None else bool(artifact.without_load_pre)
    options = (PIPELINE_OPTIONS if artifact.row_alias_checks else ()) + (NO_LOAD_PRE_OPTIONS if no_pre else ())
    with _llvm_options(options, bool(options)):
        builder.getModulePassManager().run(module, builder)


#: LLVM command-line options set for polyfuse's O3 pipeline only, with the values they are reset
#: to afterwards (LLVM's defaults): they are global to the process, which numba shares.  The loop
#: vectorizer checks at run time that a loop's stored and loaded rows do not overlap, and by default
#: hoists that check out of the loops around it as one check over every row the outer loop stores:
#: in-place updates that read one fixed row while they write the others (lu's and Floyd-Warshall's
#: ``A[i, j] -= A[i, k] * A[k, j]``) then always fail it, and every row runs the scalar loop.  Kept
#: per row: lu 115.8 -> 46.2 ms, floyd-warshall 217 -> 79 ms on one thread; 14 other suite kernels
#: within 0.94-1.04x (docs/performance.md).  ``POLYFUSE_ROW_ALIAS_CHECKS=0`` leaves LLVM's default.
PIPELINE_OPTIONS = (("-hoist-runtime-checks=false", "-hoist-runtime-checks=true"),)
#: LLVM options for the functions in ``without_load_pre`` (``POLYFUSE_TILED_LOAD_PRE=0``): GVN keeps
#: no loaded value for the next iteration of a loop, so a stencil row's ``A[k]`` is loaded, not
#: rebuilt from the last iteration's ``A[k + 1]`` by a shuffle and a broadcast load.
NO_LOAD_PRE_OPTIONS = (("-enable-load-in-loop-pre=false", "-enable-load-in-loop-pre=true"),)
_OPTIONS_LOCK = threading.Lock()


@contextlib.contextmanager
def _llvm_options(options: tuple[tuple[str, str], ...], enabled: bool):
    """LLVM command-line ``options`` (pairs of the setting and its default) in force while the body
    runs, when ``enabled``: they are global to the process, so one such block at a time."""
    if not enabled:
        yield
        return
    with _OPTIONS_LOCK:
        for option, _ in options:
            llvm.set_option("polyfuse", option)
        try:
            yield
        finally:
            for _, default in options:
                llvm.set_option("polyfuse", default)


#: LLVM command-line options of the code generator for the functions in ``without_lsr``, with
#: the values they are reset to afterwards (global to the process, as ``PIPELINE_OPTIONS``).
NO_LSR_OPTIONS = (("-disable-lsr", "-disable-lsr=false"),)


#: LLVM's preferred vector width for functions with inline transcendentals.  LLVM prefers 256-bit
#: vectors on AVX-512 CPUs (the frequency drop of 512-bit units once cost more than the width
#: gave), which pays for loads and adds, but the polynomials of vector_math.py are arithmetic-
#: bound: 512 bits ran a GELU-tanh chain of 8M elements in 91 ms instead of 172 ms, sin*cos 48
#: instead of 60, softmax 27 instead of 31, while the loop suite without them ran 1.5% slower
#: (covariance 0.87x), so only those functions get it, those of time-tiled nests
#: (``tiled_functions``) and those with exact quotients by reciprocals (backends/cpu/quotients.py:
#: quantize_int8's loop 0.77-0.83 -> 0.64-0.65 ms on one core, Intel AVX-512 VM).  CPUs without
#: 512-bit vectors ignore it.
WIDE_VECTOR_BITS = 512


def wide_vector_functions(text: str, names: list[str]) -> str:
    """``text`` with the function attribute ``"prefer-vector-width"`` on the definitions of
    ``names`` (llvmlite's IR builder only writes the attributes it knows, so it is added to the
    printed definition; the X86 backend reads it per function, for vectorizing and code generation)."""
    for name in names:
        head = f'define void @"{name}"('
        start = text.index(head)
        end = text.index("\n", start)
        text = text[:end] + f' "prefer-vector-width"="{WIDE_VECTOR_BITS}"' + text[end:]
    return text


#: How many vectors an innermost loop with inline transcendentals works on side by side
#: (``options.math_loop_interleave``: 4 with AVX-512, else 2).  Their polynomials are chains of
#: dependent FMAs (exp: 13, 4 cycles each), and LLVM's cost model does not interleave a loop body
#: that large, so one vector's chain waited for the previous one: interleaving two ran np.exp on
#: 3.75 M doubles in 7.0 ms instead of 13.5 (AVX2, one thread; four: 6.3 ms, but a GELU-tanh chain
#: ran slower, its 16 registers spilled).  With AVX-512's 32 registers four ran the GELU-tanh loop
#: 12% faster than two, sin and cos 20% (docs/performance.md, *Vector math*).
MATH_LOOP = "polyfuse.math_loop"  # + ".COUNT": marks the back edge of such a loop in the printed module


def interleave_math_loops(text: str) -> str:
    """``text`` with each back edge marked ``MATH_LOOP.COUNT`` given loop metadata that asks the
    loop vectorizer for COUNT (``math_loop_interleave`` of the loop's functions) vectors side by
    side (llvmlite's IR builder cannot write the self-referencing node that LLVM's loop IDs are,
    so it is added to the printed module)."""
    taken = [int(n) for n in re.findall(r"^!(\d+) = ", text, flags=re.M)]
    first = max(taken, default=-1) + 1
    added: list[str] = []

    def loop_id(match: re.Match) -> str:
        number = first + len(added)
        added.append(f'!{number} = distinct !{{!{number}, '
                     f'!{{!"llvm.loop.interleave.count", i32 {match.group(1)}}}}}')
        return f", !llvm.loop !{number}"

    text = re.sub(rf', !"?{re.escape(MATH_LOOP)}\.(\d+)"? !\d+', loop_id, text)
    return text + "\n" + "\n".join(added) + "\n" if added else text


#: Back-edge markers of ``KernelCodegen._emit_row_tail``'s loops (replaced by loop metadata in the
#: printed module, as ``MATH_LOOP``): the first loop, whose trip count is a multiple of the vector
#: length, runs one vector per step (an interleaved one would leave a scalar remainder again);
#: the last vector step (ROW_TAIL) stays a loop for the loop vectorizer (fully unrolled, its 8
#: copies of the body cost heat-3d ~60 ms more of LLVM); a row shorter than one vector stays a
#: scalar loop (vectorizing it only adds code).
ROW_MAIN = "polyfuse.row_main"
ROW_SHORT = "polyfuse.row_short"
ROW_TAIL = "polyfuse.row_tail"
#: Back-edge marker of a loop on a rarely taken path (``For.rare``, ``POLYFUSE_RARE_LOOPS``): kept a
#: plain scalar loop, as ``ROW_SHORT``.  LLVM's work on a loop grows with the copies its unroller
#: and vectorizer make, whether the loop runs or not: attention_rows' softmax phase has eight such
#: reruns (one per interleaved row), 2,978 -> 2,447 instructions after the optimiser without their
#: copies (docs/performance.md, *Session 34: compile time*).
RARE_LOOP = "polyfuse.rare_loop"


def row_loop_hints(text: str) -> str:
    """``text`` with the back edges marked ``ROW_MAIN``, ``ROW_TAIL``, ``ROW_SHORT``, ``RARE_LOOP``
    given their loop metadata."""
    if ROW_MAIN not in text and ROW_SHORT not in text and RARE_LOOP not in text:
        return text
    taken = [int(n) for n in re.findall(r"^!(\d+) = ", text, flags=re.M)]
    first = max(taken, default=-1) + 1
    added: list[str] = []

    def loop_id(match: re.Match) -> str:
        number = first + len(added)
        if match.group(1) == ROW_MAIN:
            hints = '!{!"llvm.loop.interleave.count", i32 1}'
        elif match.group(1) == ROW_TAIL:
            hints = '!{!"llvm.loop.interleave.count", i32 1}, !{!"llvm.loop.unroll.disable"}'
        else:
            hints = '!{!"llvm.loop.vectorize.enable", i1 false}, !{!"llvm.loop.unroll.disable"}'
        added.append(f"!{number} = distinct !{{!{number}, {hints}}}")
        return f", !llvm.loop !{number}"

    markers = "|".join(re.escape(marker) for marker in (ROW_MAIN, ROW_SHORT, ROW_TAIL, RARE_LOOP))
    text = re.sub(rf', !"?({markers})"? !\d+', loop_id, text)
    return text + "\n" + "\n".join(added) + "\n" if added else text


def link_fallbacks(parsed, module: ll.Module, triple: str) -> None:
    """Link in the libm fallbacks that inline sin/cos/tan/erfc/pow call (vector_math.fallback_module), before
    the optimiser runs so that the loop vectorizer sees their vector variants."""
    names = [name[len(FALLBACK):] for name in module.globals if name.startswith(FALLBACK)]
    if not names:
        return
    helpers = llvm.parse_assembly(fallback_module(names, triple))
    helpers.data_layout = parsed.data_layout
    parsed.link_in(helpers)
    for name in names:
        parsed.get_function(FALLBACK + name).linkage = "internal"


def load_artifact(artifact: LLVMArtifact) -> LLVMKernel:
    """A kernel for generated IR.  Nothing is optimised or generated yet: each function is
    optimised and its machine code generated (or linked from ``artifact.objects``) when the
    runtime first asks for it (``LLVMKernel.function``), from a module of its own
    (``split_functions``)."""
    triple = _initialize()
    if BLAS_PREFIX in artifact.linked_ir:
        register_blas(llvm)
    if LAPACK_PREFIX in artifact.linked_ir:  # a cached kernel that calls LAPACK needs it here too
        register_lapack(llvm)
    pieces = split_functions(artifact.linked_ir)
    if pieces:
        parsed = llvm.parse_assembly(pieces.pop(""))  # the global variables only
        parsed.name = f"{artifact.name}.globals"
    else:  # one module (optimised now)
        parsed = llvm.parse_assembly(artifact.linked_ir if artifact.name in dict(artifact.objects)
                                     else artifact.optimized_ir)
        parsed.name = artifact.name  # (parsed modules are all named "<string>": the object cache keys by name)
    engine = llvm.create_mcjit_compiler(parsed, _target_machine(triple, gathers=artifact.gathers))
    kernel = LLVMKernel(artifact, {a.name: a for a in artifact.locals}, engine, pending=pieces or {},
                        known=dict(artifact.objects), small_code=_small_code(triple))
    # (MCJIT asks the cache for a module's object before generating code for it, and reports
    # what it generated; symbols, BLAS pointers included, are still resolved at load, by name)
    engine.set_object_cache(lambda module, data: _emitted(kernel, module.name, bytes(data)),
                            lambda module: kernel.known.get(module.name))
    if ROW_GEMM in artifact.linked_ir:
        add_row_gemm(kernel)
    if any(phase.is_region for phase in artifact.phases):
        # (its object from the disk cache needs only a module that defines the name, as a function's)
        barrier = llvm.parse_assembly(_stub(BARRIER) if BARRIER in kernel.known else barrier_module(triple))
        barrier.name = BARRIER
        engine.add_module(barrier)
    kernel.phases = tuple(CompiledPhase(phase, kernel) for phase in artifact.phases)
    with kernel.lock:
        for name, twin in artifact.streamed:
            wanted, target = (ctypes.c_int64.from_address(engine.get_global_value_address(name + suffix))
                              for suffix in (STREAMED_WANTED, STREAMED_ADDRESS))
            kernel.stream_switches.append((wanted, target, twin))
    if INDEX_ERROR in artifact.linked_ir:
        with kernel.lock:
            kernel.index_flags = tuple(ctypes.c_int64.from_address(engine.get_global_value_address(name))
                                       for name in (INDEX_ERROR, INDEX_VALUE)
                                       + ((INDEX_EXTENT,) if INDEX_EXTENT in artifact.linked_ir else ()))
            kernel.index_owners = (ctypes.c_int64(0), ctypes.c_int64(0))
    return kernel


#: The machine code of the functions generated in this process, by ``_object_key``, the most
#: recent ``FUNCTION_OBJECTS`` kept: a kernel compiled again with other options that give the same
#: function (the tests compile each program under several fusion modes, whose code is often the
#: same) links it instead of running LLVM's optimiser and code generator again.  Like the disk
#: cache's objects, but keyed by the function's IR and LLVM settings rather than by the kernel.
FUNCTION_OBJECTS = 256
_OBJECTS: collections.OrderedDict[tuple, bytes] = collections.OrderedDict()
_OBJECTS_LOCK = threading.Lock()


def _object_key(kernel: LLVMKernel, name: str, text: str) -> tuple:
    """What the machine code of function ``name`` (its module's IR ``text``) depends on: the IR
    and every LLVM setting the optimiser and code generator read (the host is the process's)."""
    artifact = kernel.artifact
    return (name, hashlib.sha256(text.encode()).digest(), artifact.opt_level, artifact.gathers,
            artifact.row_alias_checks, name in artifact.without_lsr, name in artifact.without_load_pre,
            kernel.small_code, mask_moves_active(), artifact.prefetch)


def _generated_object(key: tuple) -> bytes | None:
    with _OBJECTS_LOCK:
        data = _OBJECTS.get(key)
        if data is not None:
            _OBJECTS.move_to_end(key)
        return data


def _remember_object(key: tuple, data: bytes) -> None:
    with _OBJECTS_LOCK:
        _OBJECTS[key] = data
        while len(_OBJECTS) > FUNCTION_OBJECTS:
            _OBJECTS.popitem(last=False)


#: ``ROW_GEMM``'s machine code, by target machine: generated once per process (~7 ms), for the
#: first kernel that ran it and not found it among the disk cache's objects
_ROW_GEMM_OBJECTS: dict[tuple, bytes] = {}


def _row_gemm_key(kernel: LLVMKernel) -> tuple:
    return (_TARGET["triple"], kernel.artifact.gathers, jit_small_code(), row_gemm_tiles())


def _emitted(kernel: LLVMKernel, name: str, data: bytes) -> None:
    """The object cache's store: the machine code MCJIT generated for module ``name``."""
    kernel.emitted[name] = data
    if name == ROW_GEMM_MODULE:
        _ROW_GEMM_OBJECTS.setdefault(_row_gemm_key(kernel), data)


def add_row_gemm(kernel: LLVMKernel) -> None:
    """blas.py's ``ROW_GEMM`` in the kernel's engine, for the kernel's calls of it.  MCJIT
    generates a module's machine code when a function it generates calls the module's function
    (symbols are resolved among the engine's modules first), so the routine costs nothing to a
    kernel whose call never gets machine code: its object comes from the disk cache's objects
    (it is stored with the kernel's), else from an earlier kernel of the process, else it is
    compiled then (~7 ms: it was once per process, before any kernel ran)."""
    known = kernel.known.get(ROW_GEMM_MODULE)
    if known is None and _row_gemm_key(kernel) in _ROW_GEMM_OBJECTS:
        known = kernel.known[ROW_GEMM_MODULE] = _ROW_GEMM_OBJECTS[_row_gemm_key(kernel)]
        objects = tuple(sorted({**dict(kernel.artifact.objects), ROW_GEMM_MODULE: known}.items()))
        kernel.artifact = replace(kernel.artifact, objects=objects)  # (stored with the functions')
    module = llvm.parse_assembly(_stub(ROW_GEMM) if known is not None else row_gemm_text(row_gemm_tiles()))
    module.name = ROW_GEMM_MODULE
    kernel.engine.add_module(module)


_DEFINE = re.compile(r'define (?P<linkage>(?:internal |private )?)[^@]*@(?P<name>"[^"]+"|[-\w.$]+)\(')
_GLOBAL = re.compile(r'(?P<name>@(?:"[^"]+"|[-\w.$]+)) = (?P<how>(?:local_unnamed_addr |unnamed_addr )?)global '
                     r'(?P<type>[\w]+) [^,]*(?:, align \d+)?$')


def split_functions(text: str) -> dict[str, str] | None:
    """A printed module cut into one module per function it exports (by the function's name) and
    one, under ``""``, with the global variables it defines (the others declare them), so that
    LLVM optimises a function and MCJIT generates its machine code only when the runtime first
    asks for it: LLVM was most of a cold compile (fdtd-2d: 1.2 s of 1.8), half of it for the
    twins of the parallel regions, of which a run may never use one.  Internal functions (libm
    fallbacks) go into every module that calls them.  The phase functions call no other, and
    the optimiser and the code generator work on one function at a time (or on what it calls),
    so the cut changes no function's machine code (docs/performance.md).  None for a module
    holding something the cut does not know (the backend then uses it whole)."""
    lines = text.splitlines(keepends=True)
    common: list[str] = []  # headers, declarations, attributes, metadata; global variables declared
    base: list[str] = []  # the same with the global variables defined
    exported: dict[str, str] = {}
    internal: dict[str, str] = {}
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("define "):
            match = _DEFINE.match(line)
            if match is None or "}\n" not in lines[k:]:
                return None
            end = lines.index("}\n", k) + 1  # (the printer closes a body with "}" alone on a line)
            (internal if match["linkage"] else exported)[match["name"].strip('"')] = "".join(lines[k:end])
            k = end
            continue
        declared = line
        if line.startswith("@") and " = internal " not in line and " = private " not in line:
            found = _GLOBAL.match(line.rstrip("\n"))  # (internal and private data: every module a copy)
            if found is None:
                return None
            declared = f"{found['name']} = external {found['how']}global {found['type']}\n"
        common.append(declared)
        base.append(line)
        k += 1
    if not exported:
        return None
    head = "".join(common)
    pieces = {"": "".join(base)}
    for name, body in exported.items():
        # (a serial twin that runs its region function declares it: serial_through_region)
        mentioned = _references(body)
        declared = "".join(_declaration(exported[n]) for n in exported if n != name and n in mentioned)
        pieces[name] = head + declared + "".join(internal[n] for n in _called(body, internal)) + body
    return pieces


_REFERENCE = re.compile(r'@(?:"([^"]+)"|([-\w.$]+))')


def _references(body: str) -> set[str]:
    """The global names ``body`` mentions (one pass over it)."""
    return {quoted or plain for quoted, plain in _REFERENCE.findall(body)}


def _declaration(body: str) -> str:
    """The declaration of the function that ``body`` (as LLVM prints it) defines."""
    line = body.split("\n", 1)[0]
    match = _DEFINE.match(line)
    assert match is not None
    close = line.index(")", match.end())
    arguments = re.sub(r' %(?:"[^"]*"|[-\w.$]+)(?=,|$)', "", line[match.end():close])
    return f"declare{line[len('define'):match.end()]}{arguments})\n"


def _stub(name: str) -> str:
    """A module that defines ``name``: what MCJIT needs to load the object the cache has for it."""
    return f'define void @"{name}"() {{\n  ret void\n}}\n'


def _called(body: str, internal: dict[str, str]) -> list[str]:
    """The internal functions ``body`` reaches, in the module's order."""
    reached: set[str] = set()
    work = [body]
    while work:
        text = work.pop()
        for name, other in internal.items():
            if name not in reached and re.search(rf'@"?{re.escape(name)}"?(?![-\w.$])', text):
                reached.add(name)
                work.append(other)
    return [name for name in internal if name in reached]


def check_messages(program: LoopProgram) -> tuple[tuple[str, str | None], ...]:
    """The messages of the program's asserts checked at run time, in the order of their codes."""
    return ir.check_messages([root for stmt in program.statements for root in statement_roots(stmt)])


def phase_name(kernel: str, phase: Phase, *, region: bool = False) -> str:
    return f"{kernel}.phase{phase.index}" + (".region" if region else "")


# ---- the barrier of parallel regions -----------------------------------------------------------

BARRIER = "polyfuse.barrier"
#: On one thread, time-tiled nests whose order is "columns" (time_tiling.one_thread_order) run
#: their tiles so where the longest wavefront holds more than 1 / COLUMN_WAVE_SHARE of tile1's
#: range, else in wavefronts (``KernelCodegen.emit_tile_orders``): a wave over a small part of
#: the grid keeps its data in cache, and there columns ran slower (jacobi-1d at the bench size,
#: tsteps 50, n 10^6: waves of 7 of 489 tiles, one thread, CPU time, 14.3 ms in wavefronts,
#: 14.9-15.0 by columns, load 9.8); at LARGE (tsteps 500) waves span the grid (jacobi-2d: 41 of
#: 72 tiles): one thread, thread CPU time, wavefronts / columns, ms (load 9-10): jacobi-2d 577 /
#: 504, fdtd-2d 577 / 547.
COLUMN_WAVE_SHARE = 4
#: Without isl's tight bounds (``LoopProgram.tile_walks``), a one-thread order runs over a box around
#: the tiles with a guard per pair (``emit_tile_orders``); it is then taken only where the box holds
#: at most this many pairs per tile.  heat-3d: bench 9,
#: LARGE (tsteps 500) 27; in-cache grid of ``gcc_stencils.py --ceiling`` (n 30, tsteps 37423)
#: ~4700, where the guards took longer than the tiles (1.27 against 0.58 ns per update).
BOX_PER_TILE = 64
CHUNKS_PER_THREAD = 4  # chunks each thread takes of a region's parallel loop on average (0: one static chunk)
SPIN_POLLS = 4000  # polls (each with the CPU's pause hint) before every further poll yields the core
_I8PP = ll.IntType(8).as_pointer().as_pointer()
_BARRIER_TYPE = ll.FunctionType(ll.IntType(32), [ll.IntType(64).as_pointer(), ll.IntType(64), _I8PP])


@functools.cache
def barrier_module(triple: str) -> str:
    """``i32 polyfuse.barrier(i64* block, i64 threads, i8** arrays)``: a generation-counter barrier.

    block[0] counts the threads that arrived, block[1] is the generation (how many barriers have
    completed), block[2] is set by the runtime to abort, block[3] is the chunk counter of the
    parallel loop before the barrier, reset here.  The last thread to arrive resets the
    count and bumps the generation (release); the others poll the generation (acquire), with the
    pause hint for ``SPIN_POLLS`` polls and with ``sched_yield`` after that, because the machine's
    cores may be shared with other jobs and a spinning thread would keep a descheduled one out.
    Returns 1 when aborted.  ``arrays`` is unused: it tells the kernel's optimiser that the call
    may touch every array, which is what the other threads do while this one waits.
    """
    i32, i64 = ll.IntType(32), ll.IntType(64)
    module = ll.Module(name=BARRIER)
    fn = ll.Function(module, _BARRIER_TYPE, name=BARRIER)
    block, count, _arrays = fn.args
    sched_yield = ll.Function(module, ll.FunctionType(i32, []), name="sched_yield")
    is_x86 = triple.split("-")[0] in ("x86_64", "i386", "i686")
    pause = ll.Function(module, ll.FunctionType(ll.VoidType(), []), name="llvm.x86.sse2.pause") if is_x86 else None
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    polls = b.alloca(i64, name="polls")
    b.store(ll.Constant(i64, 0), polls)
    generation_at = b.gep(block, [ll.Constant(i64, BARRIER_GENERATION)])
    abort_at = b.gep(block, [ll.Constant(i64, BARRIER_ABORT)])
    generation = b.load_atomic(generation_at, "acquire", 8)
    arrived = b.atomic_rmw("add", block, ll.Constant(i64, 1), "acq_rel")
    with b.if_then(b.icmp_signed("==", arrived, b.sub(count, ll.Constant(i64, 1)))):
        b.store_atomic(ll.Constant(i64, 0), block, "monotonic", 8)
        b.store_atomic(ll.Constant(i64, 0), b.gep(block, [ll.Constant(i64, CHUNK_COUNTER)]), "monotonic", 8)
        b.store_atomic(b.add(generation, ll.Constant(i64, 1)), generation_at, "release", 8)
        b.ret(ll.Constant(i32, 0))
    poll = b.append_basic_block("poll")
    b.branch(poll)
    b.position_at_end(poll)
    with b.if_then(b.icmp_signed("!=", b.load_atomic(generation_at, "acquire", 8), generation)):
        b.ret(ll.Constant(i32, 0))
    with b.if_then(b.icmp_signed("!=", b.load_atomic(abort_at, "monotonic", 8), ll.Constant(i64, 0))):
        b.ret(ll.Constant(i32, 1))
    done = b.load(polls)
    b.store(b.add(done, ll.Constant(i64, 1)), polls)
    with b.if_else(b.icmp_signed("<", done, ll.Constant(i64, SPIN_POLLS))) as (spin, give_way):
        with spin:
            if pause is not None:
                b.call(pause, [])
        with give_way:
            b.call(sched_yield, [])
    b.branch(poll)
    return str(module)


_CTYPES = {"array": ctypes.c_void_p, "stride": ctypes.c_int64, "i64": ctypes.c_int64, "f64": ctypes.c_double,
           "re": ctypes.c_double, "im": ctypes.c_double}
_I64 = ll.IntType(64)


def _i64(value: int) -> ll.Constant:
    return ll.Constant(_I64, value)


def row_tail_lanes(program: LoopProgram, loop: For) -> int:
    """The vector length (elements) by which ``KernelCodegen._emit_row_tail`` may run ``loop``, or 0.

    Only for an innermost parallel loop of step 1 over statements of a time-tiled nest
    (``program.time_tiled``; ``POLYFUSE_ROW_TAILS=0`` turns it off) that store plain
    values into arrays no statement of the loop reads (jacobi's and heat-3d's out-of-place
    sweeps, not fdtd-2d's ``ey[i, j] = ey[i, j] - ...``), with affine subscripts.  Running
    such an iteration a second time stores the value it stored before: nothing it reads
    has changed (no statement of the loop writes what the loop reads, and distinct arrays
    do not overlap: the arguments are ``noalias``), so the loop may repeat a few of its own
    iterations, and the loop's stores touch no element outside its own range."""
    if (loop.step != 1 or not loop.parallel or not program.time_tiled or not row_tails()
            or exclusive_bound(loop) is None):
        return 0
    body = list(nodes(loop.body))
    if not body or any(not isinstance(n, (Block, StmtCall)) for n in body):
        return 0
    calls = [n for n in body if isinstance(n, StmtCall)]
    statements = [program.statement(n.statement) for n in calls]
    if not statements or any(s.name not in program.time_tiled or s.region is not None
                             or s.reassociable or not s.index for s in statements):
        return 0
    written = [s.array for s in statements]
    read = set().union(*(s.sources() for s in statements))
    if len(set(written)) != len(written) or read.intersection(written):
        return 0
    if any(isinstance(e, ir.Index) for s in statements for x in (s.value, *s.index) for e in ir.walk(x)):
        return 0
    sizes = {np.dtype(a.dtype).itemsize for a in program.arrays if a.name in written}
    if len(sizes) != 1:
        return 0
    lanes = vector_bytes() // sizes.pop()
    return lanes if lanes >= 2 else 0


#: How many loops of its function must enclose a loop for it to see their variables frozen
#: (``POLYFUSE_TILED_FROZEN_IVS``, ``KernelCodegen._freeze_outer``): heat-3d's row loops (five
#: loops around them under the two tile loops) took LLVM 267 ms instead of 339 with 5, 301 with
#: 3 or with every loop; jacobi-1d's shallow nest ran 3-6% slower with every loop frozen
#: (docs/performance.md, *Session 35: compile time*).
FROZEN_IV_DEPTH = 5


class KernelCodegen:
    """Emits one phase's LLVM function; one ``emit_<node>`` rule per loop-AST node."""

    def __init__(self, module: ll.Module, program: LoopProgram, params: tuple[Param, ...], phase: Phase,
                 shared: set[str], *, fastmath: bool = False, vector_math: bool = False,
                 stream_bytes: int = 0, probe: bool = False, region: bool = False, suffix: str = "") -> None:
        self.program = program
        self.phase = phase
        self.fastmath = fastmath
        # non-temporal stores (backends/cpu/streams.py): from how many bytes a loop run writes,
        # the arrays they may go to, and the statement whose store is being marked
        self.stream_bytes = stream_bytes if llvm.get_process_triple().startswith("x86_64") else 0
        self.streamable = streamable_arrays(program) if self.stream_bytes else frozenset()
        self.streaming: str | None = None
        self.enclosing: list[For] = []  # the loops around the code being emitted, outermost first
        # each loop sees the variables of the loops around it frozen (``_freeze_outer``): the
        # functions of time-tiled nests (POLYFUSE_TILED_FROZEN_IVS)
        self.frozen_ivs = tiled_frozen_ivs() and bool(program.time_tiled.intersection(statements_in(phase.node)))
        self.streams = False  # did the function emit a streaming loop (fence_streams)
        # probe: each loop that may stream is emitted plain, with a check that tells the runtime
        # when a run is long enough (``_probe_streaming``); probed: did the function get one
        self.probe = probe
        self.probed = False
        self.stream_runs: Any = None  # the i64 slot that ors the probes' answers (``_probe_streaming``)
        self.vector_math = vector_math  # exp/log inline (llvm_exprs), without fastmath's flags
        self.in_parallel_loop = False  # is the innermost loop around the code being emitted parallel
        self.row_window: tuple | None = None  # (first, last) row of a product cut by rows (blas.py)
        self.warm_up = False  # emitting an overlapped chunk's warm-up iterations (emit_chunk)
        # exact quotients by reciprocals (backends/cpu/quotients.py): None outside such a loop; {}
        # while emitting its loop as written; {"recips", "bad"} in its blocks with the products
        self.quotients: dict | None = None
        self.checked_quotients = False  # did a loop of this function get them (wide_vector_functions)
        self.inline_math_used = False  # did an inline transcendental go into this function (wide_vector_functions)
        self.inline_math_names: list[str] = []  # each one's name: a loop whose body added some is interleaved (interleave_math_loops)
        self.math_statements = 0  # statements emitted that computed inline transcendentals
        self.module = module
        self.shared = shared
        self.program_arrays = [a.name for a in program.arrays]
        self.check_messages = check_messages(program)
        # POLYFUSE_VECTOR_CHECKS (``_emit_checked_twice``): the i1 slot the checks of the nest being
        # emitted or into (None: each check branches where it runs), and are we inside such a nest
        # or its second run
        self.check_bad: Any = None
        self.checks_twice = False
        arg_types = [self._param_type(program, p) for p in params]
        if phase.parallel and not region:
            arg_types += [_I64, _I64]
        if region:
            arg_types += [_I64, _I64, _I64.as_pointer()]
        self.base_name = phase_name(program.name, phase, region=region)
        fn = ll.Function(module, ll.FunctionType(ll.VoidType(), arg_types), name=self.base_name + suffix)
        self.function = fn
        self.chunk = (fn.args[-2], fn.args[-1]) if phase.parallel and not region else None
        self.entry = fn.append_basic_block("entry")
        body = fn.append_basic_block("body")
        self.builder = ll.IRBuilder(body)
        self.alloca_builder = ll.IRBuilder(self.entry)
        self.values: dict[str, Any] = {}
        # carried loads (polyfuse/analysis/carried_loads.py): id of a statement call -> (its loads that read a
        # queue's head instead of memory, the values it stored this iteration for queues)
        self.carried: dict[int, tuple[dict, list]] = {}
        self.arrays: dict[str, tuple[Any, list[Any]]] = {}
        for param, arg in zip(params, fn.args):
            arg.name = param.name
            if param.kind == "array":
                arg.add_attribute("noalias")
            self.values[param.name] = arg
        self.exprs = ExprEmitter(self)
        for param in params:  # a complex argument: its value packed from the two doubles
            if param.kind == "im":
                parts = (self.values[f"{param.array}__re"], self.values[param.name])
                self.values[param.array] = self.exprs.complex.pack(*parts, builder=self.alloca_builder)
        self._bind_arrays(params)
        if region:
            arrays = [arg for p, arg in zip(params, fn.args) if p.kind == "array"]
            self.team = Team(self, fn.args[-3], fn.args[-2], fn.args[-1], arrays, region_level(phase.node))
            self.emit_region(phase.node)
        elif self.chunk is not None and phase.blas_rows:
            self.row_window = self.chunk  # a product cut by rows (phases.row_chunked)
            self.emit(phase.node)
        elif self.chunk is not None:
            self.emit_chunk(phase.node, *self.chunk)
        else:
            self.emit(phase.node)
        self.fence_streams()
        self._report_probes()
        self.builder.ret_void()
        if self.probed:
            self._forward_to_twin(body)
        else:
            self.alloca_builder.branch(body)

    def _forward_to_twin(self, body) -> None:
        """The entry's end for a function that probed: once the runtime has generated the
        streaming twin (its address in the ``STREAMED_ADDRESS`` global, 0 until then), the
        call runs the twin instead, whoever made it (a native entry, a team's thread)."""
        b = self.alloca_builder
        slot = self.stream_global(STREAMED_ADDRESS)
        twin = b.load_atomic(slot, "monotonic", 8)
        forward = self.function.append_basic_block("twin")
        b.cbranch(b.icmp_unsigned("!=", twin, _i64(0)), forward, body)
        b.position_at_end(forward)
        b.call(b.inttoptr(twin, self.function.type), list(self.function.args))
        b.ret_void()

    def stream_global(self, suffix: str):
        """This function's module-wide i64 ``<name><suffix>`` (lazy streams: the runtime reads
        and writes them, ``LLVMKernel.switch_streams``)."""
        return self.error_global(self.function.name + suffix)

    def record_check(self, code: int, value) -> None:
        """Record a failed ir.Check (``code``, its operand ``value``) where none that comes before
        it in the loop order is: the phase, then the iteration of its chunked loop (a parallel
        phase's outer loop, which team threads run in chunks, any thread first) decide; within
        one chunk the first failure stays.  So a team names the failure one thread would, the
        sequential function's first where the schedule keeps its order (without the order, two
        threads' failures raced: the message could name a later chunk's value)."""
        phase = self.phase
        at = (self.values[phase.node.iterator] if phase.parallel and any(loop is phase.node for loop in self.enclosing)
              else _i64(0))
        self.builder.call(self._check_recorder(), [_i64(code), value, _i64(phase.index), at])

    def _check_recorder(self):
        """The module's cold function that records a failed check under a spin lock (four words
        at once: code, value, phase, iteration) if it comes first (``record_check``)."""
        if RECORD_CHECK in self.module.globals:
            return self.module.globals[RECORD_CHECK]
        function = ll.Function(self.module, ll.FunctionType(ll.VoidType(), [_I64] * 4), name=RECORD_CHECK)
        function.linkage = "internal"
        function.attributes.add("cold")
        function.attributes.add("noinline")
        code, value, phase, at = function.args
        flag, slot, phase_slot, at_slot, lock = (self.error_global(name) for name in (
            INDEX_ERROR, INDEX_VALUE, CHECK_PHASE, CHECK_AT, CHECK_LOCK))
        b = ll.IRBuilder(function.append_basic_block("entry"))
        spin, locked, write, done = (function.append_basic_block(name) for name in ("spin", "locked", "write", "done"))
        b.branch(spin)
        b.position_at_end(spin)
        taken = b.extract_value(b.cmpxchg(lock, _i64(0), _i64(1), "acquire", "monotonic"), 1)
        b.cbranch(taken, locked, spin)
        b.position_at_end(locked)
        recorded_phase, recorded_at = b.load(phase_slot), b.load(at_slot)
        earlier = b.or_(b.icmp_signed("<", phase, recorded_phase),
                        b.and_(b.icmp_signed("==", phase, recorded_phase), b.icmp_signed("<", at, recorded_at)))
        b.cbranch(b.or_(b.icmp_signed("==", b.load(flag), _i64(0)), earlier), write, done)
        b.position_at_end(write)
        for word, target in ((code, flag), (value, slot), (phase, phase_slot), (at, at_slot)):
            b.store(word, target)
        b.branch(done)
        b.position_at_end(done)
        b.store_atomic(_i64(0), lock, "release", 8)
        b.ret_void()
        return function

    def error_global(self, name: str):
        """A module-wide i64 that the runtime reads after each call (run-time index errors)."""
        if name not in self.module.globals:
            var = ll.GlobalVariable(self.module, _I64, name=name)
            var.initializer = ll.Constant(_I64, 0)
        return self.module.globals[name]

    @staticmethod
    def _param_type(program: LoopProgram, param: Param):
        if param.kind == "array":
            info = next(a for a in program.arrays if a.name == param.name)
            return llvm_type(info.dtype).as_pointer()
        return ll.DoubleType() if param.kind in ("f64", "re", "im") else _I64

    def _bind_arrays(self, params: tuple[Param, ...]) -> None:
        strided = {p.array for p in params if p.kind == "stride"}
        for info in self.program.arrays:
            if info.is_scalar and info.name not in self.shared:
                slot = self.alloca_builder.alloca(llvm_type(info.dtype), name=info.name)
                if info.zero_init:  # an np.zeros array contracted to a scalar still starts at zero
                    self.alloca_builder.store(cx.zero(llvm_type(info.dtype)), slot)
                self.arrays[info.name] = (slot, [])
            elif info.name in strided:
                strides = [self.values[f"{info.name}__stride{d}"] for d in range(info.rank)]
                self.arrays[info.name] = (self.values[info.name], strides)
            else:
                self.arrays[info.name] = (self.values[info.name], self._c_strides(info))

    def _c_strides(self, info: ArrayInfo) -> list[Any]:
        """Row-major strides in elements, computed once at function entry."""
        b = self.alloca_builder
        extents = [self.exprs.emit_with(e, b) for e in info.shape]
        strides = [ll.Constant(_I64, 1)]
        for extent in reversed(extents[1:]):
            strides.insert(0, b.mul(strides[0], extent))
        return strides

    # ---- loop AST rules ------------------------------------------------------------------
    def emit(self, node) -> None:
        getattr(self, f"emit_{type(node).__name__}")(node)

    def emit_Block(self, node: Block) -> None:
        for child in node.children:
            self.emit(child)

    def emit_chunk(self, node: For, first, last) -> None:
        """The loop restricted to iterations ``first <= k < last`` (k counts from 0).  A loop run
        in overlapped chunks (``Phase.overlap``, backends/cpu/overlap.py) first runs the
        ``overlap`` iterations before ``first`` (from 0 at the least) with only the statements
        that write its private arrays: the warm-up that makes the rows its own iterations read."""
        step = ll.Constant(_I64, node.step)
        init = self.exprs.emit(node.init)
        start = self.builder.add(init, self.builder.mul(first, step))
        end = self.builder.add(init, self.builder.mul(last, step))
        if self.phase.overlap and node is self.phase.node:
            b = self.builder
            early = b.sub(first, ll.Constant(_I64, self.phase.overlap))
            early = b.select(b.icmp_signed("<", early, ll.Constant(_I64, 0)), ll.Constant(_I64, 0), early)
            self.warm_up = True
            self.emit_For(node, start=b.add(init, b.mul(early, step)), end=start)
            self.warm_up = False
        self.emit_For(node, start=start, end=end)

    def emit_For(self, node: For, start=None, end=None, body=None, *, counted: bool = False,
                 marker: str = "") -> None:
        """The loop; ``start``/``end`` restrict it to ``start <= iterator < end`` (``counted``:
        ``end`` is its only bound, so LLVM sees the trip count ``end - start``)."""
        if body is None and not marker and not self.warm_up and not self.checks_twice and vector_checks() and \
                rerunnable_checks(self.program, node):
            self._emit_checked_twice(node, start, end, counted)
            return
        if node.rare and not marker and rare_loops():
            marker = RARE_LOOP  # (and none of the row forms below: the loop runs only in rare cases)
        if start is None and end is None and body is None and not marker and (
                lanes := row_tail_lanes(self.program, node)):
            self._emit_row_tail(node, lanes)
            return
        if body is None and not marker and self.quotients is None and (
                divisors := checked_quotients(self.program, node)):
            self._emit_checked_quotients(node, divisors, start, end)
            return
        if body is None and not marker and self.streaming is None and not self.warm_up and (
                stmt := self._streamed(node)):
            if self.probe:
                self._probe_streaming(node, stmt, start, end)
            else:
                self._emit_streaming(node, stmt, start, end)
            return
        found = (carried_loads(self.program, node) if start is None and end is None and body is None and not marker
                 and not self.warm_up and self.quotients is None and carried_loads_enabled() else ())
        if found and carried_loads_guarded():
            self._emit_guarded_queues(node, found, counted)
            return
        self._emit_loop(node, start, end, body, counted=counted, marker=marker, found=found)

    def _emit_checked_twice(self, node: For, start, end, counted: bool) -> None:
        """``node`` with its checks or-ed into a flag local to the function (ExprEmitter._Check):
        a vectorizable loop, no branch per element; where one failed the nest runs again as
        written, and its checks record the first failure as before.  ``rerunnable_checks``: the
        nest reads nothing it writes, so the second run computes and stores the same values.  Each
        thread of a team runs its own call of the function, so the flag is its own."""
        b = self.builder
        self.checks_twice = True
        try:
            self.check_bad = self.alloca_builder.alloca(ll.IntType(1), name="checks.failed")
            b.store(ll.Constant(ll.IntType(1), 0), self.check_bad)
            self.emit_For(node, start, end, counted=counted)
            failed, self.check_bad = b.load(self.check_bad), None
            with b.if_then(failed, likely=False):
                self.emit_For(node, start, end, counted=counted)
        finally:
            self.checks_twice, self.check_bad = False, None

    def _emit_guarded_queues(self, node: For, found: tuple, counted: bool) -> None:
        """``node`` with its carried loads where it runs at least as many iterations as its longest
        queue (the preloads then read what its first iterations load, at plain addresses: with
        each address clamped by a select, LLVM's vector loop took twice the shuffles), else as
        written, a scalar loop (``ROW_SHORT``) of at most that many iterations."""
        b = self.builder
        first, bound = self.exprs.emit(node.init), self.exprs.emit(exclusive_bound(node))
        longest = max(carry.distance for carry in found)
        with b.if_else(b.icmp_signed(">=", b.sub(bound, first), _i64(longest))) as (long_row, short_row):
            with long_row:
                self._emit_loop(node, counted=counted, found=found)
            with short_row:
                self._emit_loop(node, counted=counted, marker=ROW_SHORT)

    def _emit_loop(self, node: For, start=None, end=None, body=None, *, counted: bool = False,
                   marker: str = "", found: tuple = ()) -> None:
        """``emit_For``'s plain loop; with the queues of its carried loads ``found``."""
        b = self.builder
        queues = self._carry_queues(node, found) if found else None
        slot = self.alloca_builder.alloca(_I64, name=node.iterator)
        b.store(self.exprs.emit(node.init) if start is None else start, slot)
        header = b.append_basic_block(f"{node.iterator}.header")
        loop_body = b.append_basic_block(f"{node.iterator}.body")
        done = b.append_basic_block(f"{node.iterator}.done")
        outer = self._freeze_outer(node) if self.frozen_ivs and len(self.enclosing) >= FROZEN_IV_DEPTH else {}
        b.branch(header)
        b.position_at_end(header)
        saved = self.values.get(node.iterator)
        self.values[node.iterator] = b.load(slot)
        if counted:
            cond = b.icmp_signed("<", self.values[node.iterator], end)
        else:
            cond = self.exprs.emit(node.cond)
            if end is not None:
                cond = b.and_(cond, b.icmp_signed("<", self.values[node.iterator], end))
        b.cbranch(cond, loop_body, done)
        b.position_at_end(loop_body)
        outer_parallel, self.in_parallel_loop = self.in_parallel_loop, node.parallel or self._sums_only(node)
        math_before = len(self.inline_math_names)
        statements_before = self.math_statements
        self.enclosing.append(node)
        try:
            (self.emit if body is None else body)(node.body)
        finally:
            self.enclosing.pop()
        self.in_parallel_loop = outer_parallel
        if queues:
            self._move_carry_queues(queues)
        current = b.load(slot)
        b.store(b.add(current, ll.Constant(_I64, node.step), flags=["nsw"]), slot)
        back_edge = b.branch(header)
        added = self.inline_math_names[math_before:]
        if marker != RARE_LOOP and added and not any(isinstance(n, For) for n in nodes(node.body)):
            chains = self.math_statements - statements_before
            back_edge.set_metadata(f"{MATH_LOOP}.{math_loop_interleave(added, chains)}", self.module.add_metadata([]))
        elif marker:
            back_edge.set_metadata(marker, self.module.add_metadata([]))
        b.position_at_end(done)
        self._restore(node.iterator, saved)
        self.values.update(outer)
        if queues:
            for call in nodes(node.body):
                self.carried.pop(id(call), None)

    def _freeze_outer(self, loop: For) -> dict[str, Any]:
        """Before ``loop`` (at least ``FROZEN_IV_DEPTH`` loops deep): the values of the loops around
        it, as they were (to put back after it), each replaced by its ``freeze`` while ``loop`` is
        emitted (``frozen_ivs``).  The same numbers; but LLVM's scalar evolution sees each as an
        opaque value in ``loop`` rather than the recurrence of its own loop, whose start holds the
        mins and maxes of every loop further out: in a time-tiled nest eight loops deep each
        address grew to an expression of all of them, and loop strength reduction, which re-checks
        every expression it looks up (llvmlite's LLVM is built with assertions), spent 80 of
        heat-3d's 145 ms of code generation on them."""
        kept = {}
        for around in self.enclosing:
            value = self.values.get(around.iterator)
            if value is not None and around.iterator != loop.iterator and not isinstance(value, ll.Constant):
                kept[around.iterator] = value
                frozen = ll.instructions.Instruction(self.builder.block, value.type, "freeze", [value])
                self.builder._insert(frozen)
                self.values[around.iterator] = frozen
        return kept

    def _carry_queues(self, loop: For, found: tuple) -> list | None:
        """The queues of ``loop``'s carried loads ``found`` (polyfuse/analysis/carried_loads.py), filled
        with what its first iterations load.  Each is (slots, the values its source stored this
        iteration); the carried load reads ``slots[0]``."""
        b = self.builder
        clamp = not carried_loads_guarded()  # (guarded: the loop runs at least as many iterations as a queue holds)
        calls = [n for n in nodes(loop.body) if isinstance(n, StmtCall)]
        first, bound = self.exprs.emit(loop.init), self.exprs.emit(exclusive_bound(loop))
        last = b.sub(bound, _i64(1))
        entries: dict[int, tuple[dict, list]] = {id(c): ({}, []) for c in calls}
        queues = []
        with b.if_then(b.icmp_signed("<", first, bound)):
            for carry in found:
                call = calls[carry.reader]
                stmt = self.program.statement(call.statement)
                slots = []
                for k in range(carry.distance):
                    # what iteration first + k loads (where the loop runs fewer iterations, what its last
                    # one loads: that value is never used, and the element is one the loop reads)
                    at = b.add(first, _i64(k))
                    if clamp:
                        at = b.select(b.icmp_signed("<", at, bound), at, last)
                    value = self._load_at(loop, call, stmt, carry.load, at)
                    slot = self.alloca_builder.alloca(value.type, name=f"carried.{carry.load.array}")
                    b.store(value, slot)
                    slots.append(slot)
                queues.append((slots, entries[id(calls[carry.source])][1]))
                entries[id(call)][0][carry.load] = slots[0]
        self.carried.update(entries)
        return queues

    def _load_at(self, loop: For, call: StmtCall, stmt, load: ir.Load, at):
        """``load`` of ``call``'s statement with ``loop``'s iterator at ``at``."""
        names = [isl_name(v) for v in stmt.iterators]
        saved = {n: self.values.get(n) for n in [loop.iterator, *names]}
        self.values[loop.iterator] = at
        try:
            for name, arg in zip(names, call.args):
                self.values[name] = self.exprs.emit(arg)
            return self.exprs.emit(load)
        finally:
            for name, old in saved.items():
                self._restore(name, old)

    def _move_carry_queues(self, queues: list) -> None:
        """Each queue moves on by one: its head drops, the value its writer stored joins the end."""
        b = self.builder
        for slots, values in queues:
            moved = [b.load(slot) for slot in slots[1:]] + [values[-1]]
            for slot, value in zip(slots, moved):
                b.store(value, slot)
        for _, values in queues:
            values.clear()

    def _emit_checked_quotients(self, loop: For, divisors: tuple, start, end) -> None:
        """``loop`` with its ``rint(a / b)`` computed as ``rint(a * (1 / b))`` where that is
        exact, block by block (backends/cpu/quotients.py): each block runs with the products,
        then again as written where a test failed; the loop as written where a divisor's
        reciprocal is not accurate (outside ``[LOW, HIGH]``, NaN)."""
        b = self.builder
        one, double = ll.Constant(ll.DoubleType(), 1.0), ll.DoubleType()
        recips, valid = {}, ll.Constant(ll.IntType(1), 1)
        self.checked_quotients = True
        for divisor in divisors:
            value = self.exprs.emit(divisor)
            size = self.exprs._intrinsic("llvm.fabs", [value])
            inside = b.and_(b.fcmp_ordered(">=", size, ll.Constant(double, quotients.LOW)),
                            b.fcmp_ordered("<=", size, ll.Constant(double, quotients.HIGH)))
            valid = b.and_(valid, inside)
            recips[divisor] = b.fdiv(one, value)
        lo = self.exprs.emit(loop.init) if start is None else start
        hi = self.exprs.emit(exclusive_bound(loop))
        if end is not None:
            hi = b.select(b.icmp_signed("<", end, hi), end, hi)
        with b.if_else(valid) as (fast, plain):
            with fast:
                self._quotient_blocks(loop, recips, lo, hi)
            with plain:
                self.quotients = {}  # (the loop as written: no blocks inside it again)
                self.emit_For(loop, start=lo, end=hi)
                self.quotients = None

    def _quotient_blocks(self, loop: For, recips: dict, lo, hi) -> None:
        b = self.builder
        slot = self.alloca_builder.alloca(_I64, name=f"{loop.iterator}.block")
        bad = self.alloca_builder.alloca(ll.IntType(1), name=f"{loop.iterator}.inexact")
        b.store(lo, slot)
        header, body, done = (b.append_basic_block(f"{loop.iterator}.blocks.{part}") for part in ("header", "body", "done"))
        b.branch(header)
        b.position_at_end(header)
        first = b.load(slot)
        b.cbranch(b.icmp_signed("<", first, hi), body, done)
        b.position_at_end(body)
        last = b.add(first, ll.Constant(_I64, quotients.BLOCK))
        last = b.select(b.icmp_signed("<", last, hi), last, hi)
        b.store(ll.Constant(ll.IntType(1), 0), bad)
        self.quotients = {"recips": recips, "bad": bad}
        self.emit_For(loop, start=first, end=last)
        self.quotients = {}
        with b.if_then(b.load(bad), likely=False):
            self.emit_For(loop, start=first, end=last)
        self.quotients = None
        b.store(last, slot)
        b.branch(header)
        b.position_at_end(done)

    def _emit_row_tail(self, loop: For, lanes: int) -> None:
        """``loop`` over ``[lo, hi)`` as a counted loop over the first ``lanes * floor(len /
        lanes)`` iterations (its trip count a multiple of the vector length: LLVM's vector loop
        needs no scalar remainder) and then, where a remainder is left and the row has at least
        ``lanes`` iterations, its last ``lanes`` iterations once more as a loop of constant trip
        count (one vector step; it repeats up to ``lanes - 1`` iterations the first loop ran,
        which ``row_tail_lanes`` allows); a row shorter than ``lanes`` runs as the plain loop.
        heat-3d's rows of 118 points had 14 vectors and 6 scalar iterations: 4-9% faster at bench
        sizes on one thread (docs/performance.md, *Stencils against gcc: the one-thread ceiling*).

        Row heads (``POLYFUSE_ROW_HEADS``, ``_row_head``): where the first statement's stores are
        contiguous and the first one is ``peel`` (1 to ``lanes - 1``) elements before a multiple
        of the vector's bytes, and at least ``row_heads()`` vectors follow it, the row's first
        ``lanes`` iterations run as one such vector step and the counted loop starts ``peel``
        iterations in (repeating ``lanes - peel`` of the head's): its stores are whole cache
        lines, and so are the loads of arrays laid out alike (docs/performance.md, *Aligned
        rows*).  The counted loop and the tail are emitted once after the head's step
        (``_headed_row``; ``POLYFUSE_ONE_ROW_COPY=0``: a copy for each of the head's cases)."""
        b = self.builder
        bound = exclusive_bound(loop)
        assert bound is not None
        lo, hi = self.exprs.emit(loop.init), self.exprs.emit(bound)
        count = b.sub(hi, lo)
        whole = b.and_(count, ll.Constant(_I64, -lanes))
        long_row = b.icmp_signed(">=", count, ll.Constant(_I64, lanes))
        call = next(n for n in nodes(loop.body) if isinstance(n, StmtCall))
        size = self._itemsize(self.program.statement(call.statement).array)
        vectors = row_heads() if size & (size - 1) == 0 else 0
        with b.if_else(long_row) as (then, otherwise):
            with then:
                if not vectors:
                    self._row_vectors(loop, lanes, lo, hi, count, whole)
                else:
                    # a short row's code is as without heads, one compare more (the head's test
                    # only where the row is long enough)
                    longer = b.icmp_signed(">=", count, _i64(max(lanes, vectors * lanes) + lanes - 1))
                    if one_row_copy():
                        self._headed_row(loop, call, size, lanes, lo, hi, vectors, longer)
                    else:
                        with b.if_else(longer) as (long_enough, short):
                            with long_enough:
                                head, peel = self._row_head(loop, call, size, lanes, lo, hi, vectors)
                                with b.if_else(head) as (aligned, plain):
                                    with aligned:
                                        # (nsw: LLVM then knows the trip count, one unmasked vector step)
                                        self.emit_For(loop, start=lo, end=b.add(lo, _i64(lanes), flags=["nsw"]), counted=True,
                                                      marker=ROW_TAIL)
                                        start = b.add(lo, peel)
                                        rest = b.sub(hi, start)
                                        self._row_vectors(loop, lanes, start, hi, rest,
                                                          b.and_(rest, ll.Constant(_I64, -lanes)))
                                    with plain:
                                        self._row_vectors(loop, lanes, lo, hi, count, whole)
                            with short:
                                self._row_vectors(loop, lanes, lo, hi, count, whole)
            with otherwise:
                self.emit_For(loop, start=lo, end=hi, counted=True, marker=ROW_SHORT)

    def _headed_row(self, loop: For, call: StmtCall, size: int, lanes: int, lo, hi, vectors: int, longer) -> None:
        """``_emit_row_tail``'s row of at least ``lanes`` iterations with heads, its counted loop and
        tail emitted once: where the row is ``longer`` and ``_row_head`` says so, the head's one
        vector step runs and the loop starts ``peel`` iterations in, else at ``lo`` (a slot that
        LLVM makes a phi).  Before, each of the three cases (head, long row without one, shorter
        row) had its own copy of the loop and tail: the same code three times for LLVM to
        optimise and generate (heat-3d's region function: 16 row loops, now 8; LLVM's CPU on it
        0.59 -> 0.28 s, most of it loop strength reduction, whose time grows faster than the code)."""
        b = self.builder
        slot = self.alloca_builder.alloca(_I64, name=f"{loop.iterator}.start")
        b.store(lo, slot)
        with b.if_then(longer):
            head, peel = self._row_head(loop, call, size, lanes, lo, hi, vectors)
            with b.if_then(head):
                # (nsw: LLVM then knows the trip count, one unmasked vector step)
                self.emit_For(loop, start=lo, end=b.add(lo, _i64(lanes), flags=["nsw"]), counted=True,
                              marker=ROW_TAIL)
                b.store(b.add(lo, peel), slot)
        start = b.load(slot)
        rest = b.sub(hi, start)
        self._row_vectors(loop, lanes, start, hi, rest, b.and_(rest, ll.Constant(_I64, -lanes)))

    def _row_vectors(self, loop: For, lanes: int, start, hi, count, whole) -> None:
        """The counted loop over ``[start, hi)``'s ``whole`` iterations (of ``count``: its whole
        vectors) and the tail's vector step after it where a remainder is left
        (``_emit_row_tail``; at least ``lanes`` iterations)."""
        b = self.builder
        self.emit_For(loop, start=start, end=b.add(start, whole), counted=True, marker=ROW_MAIN)
        with b.if_then(b.icmp_signed("!=", whole, count)):
            self.emit_For(loop, start=b.sub(hi, ll.Constant(_I64, lanes)), end=hi, counted=True,
                          marker=ROW_TAIL)

    def _row_head(self, loop: For, call: StmtCall, size: int, lanes: int, lo, hi, vectors: int):
        """Whether the row ``[lo, hi)`` (at least ``lanes`` long) gets a head (``_emit_row_tail``:
        the stores of its first statement ``call``, of ``size``-byte elements, contiguous, not
        aligned, and at least ``vectors`` vectors after the peel), and the peel: how many
        iterations before the first aligned store."""
        b = self.builder
        first = self._store_address(loop, call, lo)
        second = self._store_address(loop, call, b.add(lo, _i64(1)))
        contiguous = b.icmp_signed("==", b.sub(second, first), _i64(size))
        whole = b.icmp_signed("==", b.and_(first, _i64(size - 1)), _i64(0))
        # to the vector's width (at most ALIGNMENT): the head's one step covers every iteration before
        span = min(ALIGNMENT, lanes * size)
        peel = b.lshr(b.and_(b.sub(_i64(0), first), _i64(span - 1)), _i64(size.bit_length() - 1))
        room = b.icmp_signed(">=", b.sub(b.sub(hi, lo), peel), _i64(max(lanes, vectors * lanes)))
        head = b.and_(b.and_(contiguous, whole), b.and_(room, b.icmp_signed("!=", peel, _i64(0))))
        return (b.and_(head, self._laid_out_alike(loop, call, size, span)) if row_heads_alike() else head), peel

    def _laid_out_alike(self, loop: For, call: StmtCall, size: int, span: int):
        """Whether every other array of ``loop``'s statements with ``size``-byte elements starts at
        the same offset modulo ``span`` bytes as ``call``'s stored array (``row_heads_alike``):
        then the head that aligns the stores aligns those arrays' loads at the same element."""
        b = self.builder
        stored = self.program.statement(call.statement).array
        origin = b.ptrtoint(self.arrays[stored][0], _I64)
        alike = ll.Constant(ll.IntType(1), 1)
        for name in sorted(self._loop_arrays(loop) - {stored}):
            if self._itemsize(name) == size:
                apart = b.sub(b.ptrtoint(self.arrays[name][0], _I64), origin)
                alike = b.and_(alike, b.icmp_signed("==", b.and_(apart, _i64(span - 1)), _i64(0)))
        return alike

    def _streamed(self, loop: For):
        """The statement of ``loop`` whose stores may be non-temporal (streams.py): ``loop`` is an
        innermost parallel loop of step 1 with a plain bound, its body statement calls only, one of
        them a plain store to a streamable array (the first such)."""
        if not (self.streamable and loop.parallel and loop.step == 1) or exclusive_bound(loop) is None:
            return None
        body = list(nodes(loop.body))
        if any(not isinstance(n, (Block, StmtCall)) for n in body):
            return None
        statements = [self.program.statement(c.statement) for c in body if isinstance(c, StmtCall)]
        if not stream_math() and any(computes_math(stmt) for stmt in statements):
            return None
        for call, stmt in zip([c for c in body if isinstance(c, StmtCall)], statements):
            if stmt.array in self.streamable and plain_store(stmt):
                return call
        return None

    def _emit_streaming(self, loop: For, call: StmtCall, start, end) -> None:
        """``loop`` (this thread's ``start``/``end`` of it) as a head loop up to the first
        iteration whose store address is a multiple of ``ALIGNMENT`` and a main loop whose store
        is marked ``STREAM_MARK``.  The head runs the whole loop where its stores are not
        contiguous elements, or where the whole loop (all threads' parts) moves fewer than
        ``stream_bytes`` bytes, counting an element of every array its statements read or write
        per iteration: a loop whose arrays fit in the cache leaves its result there."""
        b = self.builder
        size = self._itemsize(self.program.statement(call.statement).array)
        lo, hi, first, ok = self._stream_test(loop, call, start, end)
        peel = b.lshr(b.and_(b.sub(_i64(0), first), _i64(ALIGNMENT - 1)), _i64(size.bit_length() - 1))
        head_end = b.add(lo, peel)
        split = b.select(ok, b.select(b.icmp_signed("<", head_end, hi), head_end, hi), hi)
        try:
            self.streaming = ""  # (no statement's name: the head's stores stay as they are)
            self.emit_For(loop, start=lo, end=split)
            self.streaming = self.program.statement(call.statement).name
            # bound by memory where it runs: one vector a step (no interleaved copies) is as fast
            self.emit_For(loop, start=split, end=hi, marker=ROW_MAIN)
        finally:
            self.streaming = None
        self.streams = True

    def _stream_test(self, loop: For, call: StmtCall, start, end):
        """(lo, hi, the first store's address, whether this run streams): its stores are
        contiguous elements and the whole loop (all threads' parts) moves at least
        ``stream_bytes`` bytes, counting an element of every array its statements read or write
        per iteration, in runs of at least ``MIN_STREAM_ROW`` bytes each."""
        b = self.builder
        size = self._itemsize(self.program.statement(call.statement).array)
        init, bound = self.exprs.emit(loop.init), self.exprs.emit(exclusive_bound(loop))
        lo = init if start is None else start
        hi = bound if end is None else b.select(b.icmp_signed("<", end, bound), end, bound)
        first, second = self._store_address(loop, call, lo), self._store_address(loop, call, b.add(lo, _i64(1)))
        contiguous = b.icmp_signed("==", b.sub(second, first), _i64(size))
        whole = b.icmp_signed("==", b.and_(first, _i64(size - 1)), _i64(0))
        per_iteration = sum(self._itemsize(a) for a in self._loop_arrays(loop))
        runs = self._stored_runs(call)
        long_run = b.icmp_signed(">=", b.mul(b.sub(bound, init), runs), _i64(-(-self.stream_bytes // per_iteration)))
        long_row = b.icmp_signed(">=", b.sub(bound, init), _i64(-(-min(MIN_STREAM_ROW, self.stream_bytes) // size)))
        return lo, hi, first, b.and_(b.and_(contiguous, whole), b.and_(long_run, long_row))

    def _probe_streaming(self, loop: For, call: StmtCall, start, end) -> None:
        """``loop`` plain (as without streams), after the test ``_emit_streaming`` makes: where
        this run would stream, the ``STREAMED_WANTED`` flag is set, and the runtime generates
        the twin that streams after the call (``LLVMKernel.switch_streams``).  The run itself
        stores as usual: the results are the same, only the cache is not bypassed."""
        b = self.builder
        ok = self._stream_test(loop, call, start, end)[3]
        if self.stream_runs is None:
            self.stream_runs = self.alloca_builder.alloca(_I64, name="streams")
            self.alloca_builder.store(_i64(0), self.stream_runs)
        b.store(b.or_(b.load(self.stream_runs), b.zext(ok, _I64)), self.stream_runs)
        self.probed = True
        try:
            self.streaming = ""  # (the plain loop: not probed again)
            self.emit_For(loop, start=start, end=end)
        finally:
            self.streaming = None

    def _report_probes(self) -> None:
        """Where a probed run would have streamed, the ``STREAMED_WANTED`` flag set, once, as the
        function returns: a branch on each run's answer inside the loops made LLVM unswitch the
        loop around it on that (invariant) answer, two copies of the loop again."""
        if self.stream_runs is None:
            return
        b = self.builder
        with b.if_then(b.icmp_unsigned("!=", b.load(self.stream_runs), _i64(0)), likely=False):
            b.store_atomic(_i64(1), self.stream_global(STREAMED_WANTED), "monotonic", 8)

    def fence_streams(self) -> None:
        """Non-temporal stores are weakly ordered: where the function emitted any, they are drained
        before whatever tells another thread that this part is done can be seen (each barrier of
        a region, the function's return before the pool's completion).  Once there, not after each
        streamed row: a fence waits for the write-combining buffers to reach memory (~300 ns), and
        a fence per row of 24 elements made a 200000 x 24 sum 20x slower."""
        if not self.streams:
            return
        fence = self.module.globals.get("llvm.x86.sse.sfence") or ll.Function(
            self.module, ll.FunctionType(ll.VoidType(), []), name="llvm.x86.sse.sfence")
        self.builder.call(fence, [])

    def _stored_runs(self, call: StmtCall):
        """How many runs of the innermost loop around ``call`` store to distinct elements: the
        product of the trip counts of the enclosing loops whose iterators the store's subscripts
        use (all threads' parts: a 2-d result's rows together).  A loop that repeats over the same
        elements (a time loop) does not count: its result may stay in the cache between passes;
        a loop without a plain bound counts once (fewer streams, never more)."""
        stmt = self.program.statement(call.statement)
        subscripts = {v.name for e in stmt.index for v in ir.walk(e) if isinstance(v, ir.Var)}
        used: set[str] = set()
        for iterator, arg in zip(stmt.iterators, call.args):
            if isl_name(iterator) in subscripts or iterator in subscripts:
                used |= {v.name for v in ir.walk(arg) if isinstance(v, ir.Var)}
        b = self.builder
        runs = _i64(1)
        for outer in self.enclosing:
            bound = exclusive_bound(outer)
            if outer.iterator not in used or bound is None or outer.step <= 0:
                continue
            count = b.sub(self.exprs.emit(bound), self.exprs.emit(outer.init))
            count = b.sdiv(b.add(count, _i64(outer.step - 1)), _i64(outer.step))
            runs = b.mul(runs, b.select(b.icmp_signed(">", count, _i64(0)), count, _i64(1)))
        return runs

    def _itemsize(self, array: str) -> int:
        return np.dtype(next(a.dtype for a in self.program.arrays if a.name == array)).itemsize

    def _loop_arrays(self, loop: For) -> set[str]:
        """The arrays (not scalars) that ``loop``'s statements read or write."""
        names: set[str] = set()
        for call in nodes(loop.body):
            if isinstance(call, StmtCall):
                stmt = self.program.statement(call.statement)
                names |= stmt.sources() | {stmt.array}
        return {a.name for a in self.program.arrays if a.name in names and a.shape}

    def _store_address(self, loop: For, call: StmtCall, value):
        """The byte address (an integer) of ``call``'s store when ``loop``'s iterator is ``value``."""
        stmt = self.program.statement(call.statement)
        names = [isl_name(v) for v in stmt.iterators]
        saved = {n: self.values.get(n) for n in [loop.iterator, *names]}
        self.values[loop.iterator] = value
        try:
            for name, arg in zip(names, call.args):
                self.values[name] = self.exprs.emit(arg)
            base, strides = self.arrays[stmt.array]
            size = self._itemsize(stmt.array)
            offset = _i64(0)
            for expr, stride in zip(stmt.index, strides):
                offset = self.builder.add(offset, self.builder.mul(self.exprs.emit(expr), stride))
            return self.builder.add(self.builder.ptrtoint(base, _I64), self.builder.mul(offset, _i64(size)))
        finally:
            for name, old in saved.items():
                self._restore(name, old)

    def _sums_only(self, loop: For) -> bool:
        """Whether ``loop`` is innermost and holds nothing but NumPy reductions ``acc = acc + term``
        (``reassoc``) whose terms read no accumulator of the loop: LLVM vectorizes such a loop
        into partial sums as it does a parallel one (``np.exp(x - m).sum()``), so inline math pays."""
        body = list(nodes(loop.body))
        if not body or any(not isinstance(n, (Block, StmtCall)) for n in body):
            return False
        statements = [self.program.statement(n.statement) for n in body if isinstance(n, StmtCall)]
        written = {s.array for s in statements}
        return bool(statements) and all(
            s.region is None and s.reassociable and isinstance(s.value, ir.BinOp)
            and s.value.lhs == ir.Load(s.array, s.index, s.value.dtype)
            and not any(isinstance(e, ir.Load) and e.array in written for e in ir.walk(s.value.rhs))
            for s in statements)

    def emit_If(self, node: If, branch=None) -> None:
        emit = self.emit if branch is None else branch
        cond = self.exprs.emit(node.cond)
        if node.otherwise is None:
            with self.builder.if_then(cond):
                emit(node.then)
            return
        with self.builder.if_else(cond) as (then, otherwise):
            with then:
                emit(node.then)
            with otherwise:
                emit(node.otherwise)

    # ---- parallel regions: the same rules, run by every thread of a team -------------------
    def emit_region(self, node: Node, depth: int = 0) -> None:
        """Every thread runs the control; parallel loops are cut, serial sections run on thread 0
        (``depth``: sequential loops around ``node``; see ``polyfuse.phases.region_role``)."""
        role = region_role(node, depth, self.team.level)
        if isinstance(node, For) and (pair := self.tile_pair(node, depth)) is not None:
            self.team.met_parallel()
            self.emit_tile_orders(node, *pair)
        elif role == "parallel":
            assert isinstance(node, For)
            self.team.met_parallel()
            self.team.chunk(node)
        elif role == "serial":
            self.team.serial((node,))
        elif isinstance(node, For):
            self.emit_For(node, body=lambda body: self.emit_region(body, depth + 1))
        elif isinstance(node, If):
            self.emit_If(node, branch=lambda branch: self.emit_region(branch, depth))
        elif isinstance(node, Block):
            for group in region_groups(node.children, depth, self.team.level):
                if len(group) == 1:
                    self.emit_region(group[0], depth)
                else:
                    self.team.serial(group)

    def tile_pair(self, wave: For, depth: int) -> tuple[For, str] | None:
        """(the parallel tile loop directly inside ``wave``, the one-thread order) when ``wave``
        is the wavefront loop of a time-tiled nest whose tiles a team of one thread runs in
        another order (``program.one_thread_tiles``: time_tiling.one_thread_order checked the
        order and that both tile loops exist, so the nest's outermost loop is the wavefront
        ``tile0 + tile1`` and the loop inside it ``tile1``), else None.  The two loops are
        also named as the nest's first two schedule dimensions (``_t0``, ``_t1``): where isl
        peels a wavefront whose tile loops take one value (the first one, ``t < S0`` and
        ``t + i < S1``), the peeled piece is a nest of point loops ``(t, i)`` of the same shape,
        and walking it as tiles ran only its points at ``i = tile1`` (B[3] of a 1-d sweep
        never written: tests/backends/cpu/test_tile_orders.py).  And the wavefront loop is one
        isl generated from the nest's tile band (``For.time_tiles``): the same statements' untiled
        loops (time_tiling.whole_row_version, where the rows fit in L1) have the same names and
        shape (``_t0`` the time loop, ``_t1`` the parallel row loop) where the row loop is one
        loop; walked as tiles, they ran over the tiled side's tile coordinates (its walk), not
        their own bounds: an in-place 3 x 3 sweep ran no point on a team of one thread
        (tests/schedule/test_time_tiling.py)."""
        inner = wave.body
        if (not wave.time_tiles or wave.iterator != f"{ITERATOR_PREFIX}0" or not isinstance(inner, For)
                or inner.iterator != f"{ITERATOR_PREFIX}1"):
            return None
        if (depth != 0 or wave.parallel or wave.step != 1 or not isinstance(inner, For)
                or region_role(inner, depth + 1, self.team.level) != "parallel" or inner.step != 1
                or exclusive_bound(wave) is None or exclusive_bound(inner) is None):
            return None
        statements = set(statements_in(wave))
        orders = {order for s, order in self.program.one_thread_tiles if s in statements}
        covered = {s for s, _order in self.program.one_thread_tiles}
        if not statements or not statements <= covered or len(orders) != 1:
            return None
        return inner, orders.pop()

    def tile_walk(self, wave: For) -> TileWalk | None:
        """isl's tight loops for the one-thread order of the nest under ``wave``, if it has them."""
        statements = set(statements_in(wave))
        return next((w for w in self.program.tile_walks if statements and statements <= w.statements), None)

    def emit_tile_orders(self, wave: For, inner: For, order: str) -> None:
        """The wavefront loop ``wave`` (``w = tile0 + tile1``) and its parallel loop ``inner``
        (``tile1``), with the tiles' order chosen at run time: on a team the wavefronts, ``inner``
        cut among the threads; on one thread ``order`` (time_tiling.one_thread_order):
        "lexicographic" ``(tile0, tile1)``, or "columns" ``(tile1, tile0)`` where the longest
        wave spans more than 1 / ``COLUMN_WAVE_SHARE`` of tile1's range (a shorter wave stays
        in cache: there the wavefronts ran faster).

        One loop pair serves all orders, so the tiles' code is emitted once: the outer loop counts
        ``a``, the inner one ``k``; wavefronts: ``w = a``, ``tile1 = k``; lexicographic:
        ``w = a + k``, ``tile1 = k``; columns: ``w = a + k``, ``tile1 = a``.  Off the wavefronts,
        ``a`` and ``k`` run over the bounds isl gave the order (``program.tile_walks``: every tile,
        and pairs that are no tile only in holes between tiles) or, without them, over a box around
        the tiles (then only where it holds at most ``BOX_PER_TILE`` pairs per tile); a guard (the
        wavefront loops' own bounds at ``w``) skips the pairs that are no tile: the tiles run are
        the wavefronts' tiles in every order."""
        b, exprs, team = self.builder, self.exprs, self.team
        w0, w1 = exprs.emit(wave.init), exprs.emit(exclusive_bound(wave))
        slots = [self.alloca_builder.alloca(_I64, name=f"tiles.{n}") for n in ("first", "end", "wave", "count")]
        for slot in slots:
            b.store(_i64(0), slot)
        saved = {n: self.values.get(n) for n in (wave.iterator, inner.iterator)}

        def span(w) -> None:  # tile1's range over all wavefronts, and the longest wavefront
            self.values[wave.iterator] = w
            lo, hi = exprs.emit(inner.init), exprs.emit(exclusive_bound(inner))
            with b.if_then(b.icmp_signed("<", lo, hi)):
                old_lo, old_hi = b.load(slots[0]), b.load(slots[1])
                first = b.icmp_signed("==", old_hi, old_lo)
                b.store(b.select(b.or_(first, b.icmp_signed("<", lo, old_lo)), lo, old_lo), slots[0])
                b.store(b.select(b.or_(first, b.icmp_signed(">", hi, old_hi)), hi, old_hi), slots[1])
                length, longest = b.sub(hi, lo), b.load(slots[2])
                b.store(b.select(b.icmp_signed(">", length, longest), length, longest), slots[2])
                b.store(b.add(b.load(slots[3]), length), slots[3])

        with b.if_then(b.icmp_signed("==", team.count, _i64(1))):
            self.emit_counted("tiles.span", w0, w1, span)
        ti0, ti1 = b.load(slots[0]), b.load(slots[1])
        columns = order == "columns"
        # one thread (the span loop ran): lexicographic order, or columns where a wave spans
        # more than 1 / COLUMN_WAVE_SHARE of tile1's range
        longest = b.load(slots[2])
        if columns:
            other = b.icmp_signed(">", b.mul(longest, _i64(COLUMN_WAVE_SHARE)), b.sub(ti1, ti0))
        else:
            other = b.icmp_signed(">", longest, _i64(1))
        walk = self.tile_walk(wave)
        if walk is not None:  # isl's tight bounds for the order's two loops (passes/tile_walks.py)
            a0 = b.select(other, exprs.emit(walk.outer_lo), w0)
            a1 = b.select(other, b.add(exprs.emit(walk.outer_hi), _i64(1)), w1)
        else:
            # ... and where the box around the tiles holds at most BOX_PER_TILE times as many
            # pairs as there are tiles (many time steps on a small grid: a long, thin band of tiles)
            if columns:
                box = b.mul(b.sub(ti1, ti0), b.sub(w1, w0))
            else:
                box = b.mul(b.sub(ti1, ti0), b.sub(b.add(w1, ti1), b.add(w0, ti0)))
            other = b.and_(other, b.icmp_signed("<=", box, b.mul(b.load(slots[3]), _i64(BOX_PER_TILE))))
            if columns:
                a0, a1 = b.select(other, ti0, w0), b.select(other, ti1, w1)
            else:
                a0 = b.select(other, b.add(b.sub(w0, ti1), _i64(1)), w0)
                a1 = b.select(other, b.sub(w1, ti0), w1)

        def tile(a, k) -> None:
            w = b.add(a, b.select(other, k, _i64(0)))
            t1 = b.select(other, a, k) if columns else k
            self.values[wave.iterator], self.values[inner.iterator] = w, t1
            lo, hi = exprs.emit(inner.init), exprs.emit(exclusive_bound(inner))
            inside = b.and_(b.and_(b.icmp_signed(">=", w, w0), b.icmp_signed("<", w, w1)),
                            b.and_(b.icmp_signed(">=", t1, lo), b.icmp_signed("<", t1, hi)))
            with b.if_then(inside):
                outer, self.in_parallel_loop = self.in_parallel_loop, True
                self.emit(inner.body)
                self.in_parallel_loop = outer

        def wavefront(a) -> None:
            self.values[wave.iterator] = a
            lo, hi = exprs.emit(inner.init), exprs.emit(exclusive_bound(inner))
            if walk is not None:
                self.values[WALK_OUTER] = a
                k0, k1 = exprs.emit(walk.inner_lo), b.add(exprs.emit(walk.inner_hi), _i64(1))
                self.values.pop(WALK_OUTER)
                first, end = b.select(other, k0, lo), b.select(other, k1, hi)
            elif columns:  # a = tile1, k = tile0 = w - tile1 with w in [w0, w1)
                first, end = b.select(other, b.sub(w0, a), lo), b.select(other, b.sub(w1, a), hi)
            else:
                first, end = b.select(other, ti0, lo), b.select(other, ti1, hi)
            team.chunk_span(inner.iterator, first, end, lambda share, stop: self.emit_counted(
                "tiles.tile1", b.add(first, share), b.add(first, stop), lambda k: tile(a, k)))

        self.emit_counted("tiles.wave", a0, a1, wavefront)
        for name, old in saved.items():
            self._restore(name, old)

    def emit_counted(self, name: str, start, end, body) -> None:
        """``for k in range(start, end): body(k)`` (LLVM values)."""
        b = self.builder
        slot = self.alloca_builder.alloca(_I64, name=name)
        b.store(start, slot)
        header = b.append_basic_block(f"{name}.header")
        loop_body = b.append_basic_block(f"{name}.body")
        done = b.append_basic_block(f"{name}.done")
        b.branch(header)
        b.position_at_end(header)
        k = b.load(slot)
        b.cbranch(b.icmp_signed("<", k, end), loop_body, done)
        b.position_at_end(loop_body)
        body(k)
        b.store(b.add(b.load(slot), _i64(1), flags=["nsw"]), slot)
        b.branch(header)
        b.position_at_end(done)

    def emit_StmtCall(self, node: StmtCall) -> None:
        before = len(self.inline_math_names)
        self._emit_statement(node)
        if len(self.inline_math_names) > before:
            self.math_statements += 1

    def _emit_statement(self, node: StmtCall) -> None:
        stmt = self.program.statement(node.statement)
        if self.warm_up and stmt.array not in self.phase.private:
            return  # (an overlapped chunk's warm-up makes only the rows of its private arrays)
        names = [isl_name(v) for v in stmt.iterators]
        saved = {n: self.values.get(n) for n in names}
        for name, arg in zip(names, node.args):
            self.values[name] = self.exprs.emit(arg)
        if stmt.region is not None:  # a loop kept as written
            RegionEmitter(self, stmt.span).emit(stmt.region.body)
            for name, old in saved.items():
                self._restore(name, old)
            return
        carried = self.carried.get(id(node))
        self.exprs.carried = carried[0] if carried else None
        try:
            value = self.exprs.emit(stmt.value)
        finally:
            self.exprs.carried = None
        if carried:
            carried[1].append(value)  # the stored value, for the queues of the loads it feeds
        if has_index(stmt.index):
            address, ok = self.exprs.checked_address(stmt.array, stmt.index)
            with self.builder.if_then(ok):
                self.exprs.store_element(value, address, True)
        else:
            store = self.exprs.store_element(value, self.exprs._address(stmt.array, stmt.index), bool(stmt.index))
            if self.streaming == stmt.name:  # (scope_marks makes it an alias scope in the printed module)
                store.set_metadata(STREAM_MARK, self.module.add_metadata([]))
        for name, old in saved.items():
            self._restore(name, old)

    def _restore(self, name: str, old) -> None:
        if old is None:
            self.values.pop(name, None)
        else:
            self.values[name] = old


class Team:
    """What a region function adds to the loop rules: this thread's chunk, thread 0, barriers."""

    def __init__(self, cg: KernelCodegen, thread, count, block, arrays: list, level: int) -> None:
        self.cg, self.thread, self.count, self.block, self.level = cg, thread, count, block, level
        self.barrier = cg.module.globals.get(BARRIER) or ll.Function(cg.module, _BARRIER_TYPE, name=BARRIER)
        a = cg.alloca_builder
        self.arrays = a.alloca(_I8PP.pointee, size=max(1, len(arrays)), name="team.arrays")
        for k, array in enumerate(arrays):  # the barrier "may touch" every array (see barrier_module)
            a.store(a.bitcast(array, _I8PP.pointee), a.gep(self.arrays, [ll.Constant(_I64, k)]))
        self.aborted = None

    def chunk(self, node: For) -> None:
        """This thread's share of ``node``'s iterations, then a barrier.  Which thread runs an
        iteration never changes its result."""
        b, exprs = self.cg.builder, self.cg.exprs
        bound = exclusive_bound(node)
        assert bound is not None  # plan_region refuses loops without one
        span = b.sub(exprs.emit(bound), exprs.emit(node.init))
        span = b.select(b.icmp_signed("<", span, _i64(0)), _i64(0), span)
        trips = b.sdiv(b.add(span, _i64(node.step - 1)), _i64(node.step))
        self._cut(node.iterator, trips, lambda first, last: self.cg.emit_chunk(node, first, last))

    def chunk_span(self, iterator: str, start, end, emit) -> None:
        """``emit(first, last)`` for this thread's shares of the ``end - start`` iterations of a
        step-1 loop (``first``, ``last`` count from 0), then a barrier."""
        b = self.cg.builder
        span = b.sub(end, start)
        self._cut(iterator, b.select(b.icmp_signed("<", span, _i64(0)), _i64(0), span), emit)

    def _cut(self, iterator: str, trips, emit) -> None:
        b = self.cg.builder
        if CHUNKS_PER_THREAD > 0:
            self._shared_chunks(iterator, trips, emit)
        else:
            first = b.sdiv(b.mul(trips, self.thread), self.count)
            last = b.sdiv(b.mul(trips, b.add(self.thread, _i64(1))), self.count)
            emit(first, last)
        self.wait()

    def _shared_chunks(self, iterator: str, trips, emit) -> None:
        """Chunks of about trips / (threads x ``CHUNKS_PER_THREAD``) iterations taken from a shared
        counter (``block[CHUNK_COUNTER]``, reset by each barrier): a thread slowed down by another
        job on its core does less of the loop than with one static chunk each."""
        b = self.cg.builder
        pieces = b.mul(self.count, _i64(CHUNKS_PER_THREAD))
        grain = b.sdiv(b.add(trips, b.sub(pieces, _i64(1))), pieces)
        grain = b.select(b.icmp_signed("<", grain, _i64(1)), _i64(1), grain)
        counter = b.gep(self.block, [_i64(CHUNK_COUNTER)])
        take = b.append_basic_block(f"{iterator}.take")
        work = b.append_basic_block(f"{iterator}.chunk")
        done = b.append_basic_block(f"{iterator}.taken")
        b.branch(take)
        b.position_at_end(take)
        first = b.atomic_rmw("add", counter, grain, "monotonic")
        b.cbranch(b.icmp_signed("<", first, trips), work, done)
        b.position_at_end(work)
        last = b.add(first, grain)
        emit(first, b.select(b.icmp_signed("<", last, trips), last, trips))
        b.branch(take)
        b.position_at_end(done)

    def met_parallel(self) -> None:
        """Thread 0 counts a parallel loop (or a time tile pair) reached, for the runtime's
        measure (``parallel.PARALLEL_LOOPS``: a region that reaches none has nothing to share)."""
        b = self.cg.builder
        with b.if_then(b.icmp_signed("==", self.thread, _i64(0))):
            met = b.gep(self.block, [_i64(PARALLEL_LOOPS)])
            b.store(b.add(b.load(met), _i64(1)), met)

    def serial(self, group: tuple[Node, ...]) -> None:
        """Statements outside parallel loops: thread 0 runs them, then a barrier."""
        b = self.cg.builder
        with b.if_then(b.icmp_signed("==", self.thread, ll.Constant(_I64, 0))):
            for node in group:
                self.cg.emit(node)
        self.wait()

    def wait(self) -> None:
        """The barrier; when the runtime aborted the region, return from the function."""
        b = self.cg.builder
        self.cg.fence_streams()
        status = b.call(self.barrier, [self.block, self.count, self.arrays])
        if self.aborted is None:
            self.aborted = self.cg.function.append_basic_block("aborted")
            ll.IRBuilder(self.aborted).ret_void()
        go_on = b.append_basic_block("barrier.done")
        b.cbranch(b.icmp_signed("!=", status, ll.Constant(ll.IntType(32), 0)), self.aborted, go_on)
        b.position_at_end(go_on)
