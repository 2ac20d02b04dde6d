"""Native team: a parallel phase's pieces run by threads parked in machine code.

What it takes: a phase function (the kernel's parameters, then the first and last iteration), one
argument frame per piece (64-bit words: addresses, integers, a double's bits), and the pieces'
bounds.  What it guarantees: every piece runs exactly once, on the calling thread or on a helper,
and ``run`` returns when all of them are done; any partition of a parallel loop's iterations
gives the same result (backends/cpu/parallel.py ``_run_chunks``, the Python way).

Why: the Python way starts a phase's team with a ``Pieces`` object, a queue put that wakes a
helper thread, and the helper's Python to take its piece and call the function through ctypes;
on this 2-core VM that was 50-70 us of the caller's CPU per team phase and a helper that starts
late (it waits for the GIL).  Here the helpers are Python threads that entered ``worker`` through
ctypes once and never come back to Python: they poll the block's ticket (with the pause hint,
``SPIN_POLLS`` polls) after each phase, then sleep on a futex.  The caller's whole team start,
its own pieces and the wait are one ctypes call of ``run``.

The block (int64 words): ``TICKET`` packs the generation (bits 40-63), the piece count (20-39)
and the next piece to hand out (0-19), so a member decides with one compare-and-swap whether it
has a piece of the generation it saw; the other fields are read only after that swap succeeded,
and the caller rewrites them only after every piece of the previous generation is done.  ``DONE``
counts the pieces done; ``SIGNAL`` (32 bits) is the futex word the sleepers wait on and
``SLEEPERS`` how many may be asleep (the caller makes the wake-up system call only then).
``TARGETS``, where not 0, is a table of one function per piece, whose bounds are then pairs
(``run``'s ``targets``: the two products of a pair, each piece over its own rows).

One block serves one team run at a time (``run`` holds a lock, and a caller that finds it taken
uses the Python way).  After a fork the child has no helpers: it gets a fresh block, and ``run``
starts new helpers there on first use.
"""

from __future__ import annotations

import ctypes
import os
import struct
import threading
from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir as ll

from polyfuse.hardware import llvm_host
from polyfuse.options import team_affinity

TICKET, DONE, SIGNAL, SLEEPERS, WAITING = 0, 8, 16, 24, 28  # words (the first four on cache lines of their own)
PIECES, TRAMPOLINE, TARGET, FRAMES, FRAME_WORDS, BOUNDS, TARGETS = 32, 33, 34, 35, 36, 37, 38
BLOCK_WORDS = 40
GEN_SHIFT, PIECES_SHIFT, FIELD_MASK = 40, 20, (1 << 20) - 1
GEN_MASK = (1 << 24) - 1
MAX_PIECES = FIELD_MASK
SPIN_POLLS = 4000  # a helper's polls of the ticket (pause hint each) after a phase, before it sleeps
SYS_FUTEX, FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE = 202, 128, 129
_SYSCALL = "polyfuse.team.syscall"

_i32, _i64 = ll.IntType(32), ll.IntType(64)
_p64 = _i64.as_pointer()
_i8p = ll.IntType(8).as_pointer()


def _c(value: int) -> ll.Constant:
    return ll.Constant(_i64, value)


class _Emitter:
    """The team module's three functions: ``work`` (take and run pieces of one generation),
    ``run`` (the caller: publish, wake, work, wait) and ``worker`` (a helper's loop)."""

    def __init__(self) -> None:
        self.module = ll.Module(name="polyfuse.team")
        self.module.triple = llvm.get_process_triple()
        m = self.module
        self.syscall = ll.Function(m, ll.FunctionType(_i64, [_i64], var_arg=True), name=_SYSCALL)
        self.pause = ll.Function(m, ll.FunctionType(ll.VoidType(), []), name="llvm.x86.sse2.pause")
        self.tramp_type = ll.FunctionType(ll.VoidType(), [_i8p, _p64, _i64, _i64])
        self.work = ll.Function(m, ll.FunctionType(ll.VoidType(), [_p64, _i64]), name="work")
        self.work.linkage = "internal"
        self._work()
        self._run()
        self._worker()

    @staticmethod
    def _at(b: ll.IRBuilder, block, word: int):
        return b.gep(block, [_c(word)])

    def _work(self) -> None:
        fn = self.work
        block, gen = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        ticket_at = self._at(b, block, TICKET)
        loop, take, done = fn.append_basic_block("loop"), fn.append_basic_block("take"), fn.append_basic_block("done")
        b.branch(loop)
        b.position_at_end(loop)
        ticket = b.load_atomic(ticket_at, "acquire", 8)
        same = b.icmp_unsigned("==", b.lshr(ticket, _c(GEN_SHIFT)), gen)
        piece = b.and_(ticket, _c(FIELD_MASK))
        pieces = b.and_(b.lshr(ticket, _c(PIECES_SHIFT)), _c(FIELD_MASK))
        left = b.icmp_unsigned("<", piece, pieces)
        b.cbranch(b.and_(same, left), take, done)
        b.position_at_end(take)
        swap = b.cmpxchg(ticket_at, ticket, b.add(ticket, _c(1)), "acq_rel", "acquire")
        got = b.extract_value(swap, 1)
        with b.if_then(got):
            tramp = b.inttoptr(b.load(self._at(b, block, TRAMPOLINE)), self.tramp_type.as_pointer())
            frames = b.inttoptr(b.load(self._at(b, block, FRAMES)), _p64)
            bounds = b.inttoptr(b.load(self._at(b, block, BOUNDS)), _p64)
            frame = b.gep(frames, [b.mul(piece, b.load(self._at(b, block, FRAME_WORDS)))])
            target, first, last = self._piece(b, block, bounds, piece)
            b.call(tramp, [b.inttoptr(target, _i8p), frame, first, last])
            b.atomic_rmw("add", self._at(b, block, DONE), _c(1), "seq_cst")
            with b.if_then(b.icmp_signed("!=", b.load_atomic(self._at(b, block, WAITING), "seq_cst", 8), _c(0))):
                b.call(self.syscall, [_c(SYS_FUTEX), self._at(b, block, DONE), _c(FUTEX_WAKE_PRIVATE), _c(1)])
        b.branch(loop)
        b.position_at_end(done)
        b.ret_void()

    def _piece(self, b: ll.IRBuilder, block, bounds, piece):
        """(target, first, last) of ``piece``: the run's one target and ``bounds[piece]``,
        ``bounds[piece + 1]``; or, where the run has a table of targets (``TARGETS`` not 0: a pair
        of products, backends/cpu/parallel.py ``run_pair``), the piece's own target and its own
        bounds ``bounds[2 piece]``, ``bounds[2 piece + 1]``."""
        table = b.load(self._at(b, block, TARGETS))
        own = b.icmp_unsigned("!=", table, _c(0))
        # (both addresses valid, the table's only read where there is one)
        target_at = b.select(own, b.gep(b.inttoptr(table, _p64), [piece]), self._at(b, block, TARGET))
        first_at = b.select(own, b.mul(piece, _c(2)), piece)
        return (b.load(target_at), b.load(b.gep(bounds, [first_at])),
                b.load(b.gep(bounds, [b.add(first_at, _c(1))])))

    def _run(self) -> None:
        """``run(block, trampoline, target, frames, frame_words, bounds, pieces, targets)``."""
        fn = ll.Function(self.module, ll.FunctionType(ll.VoidType(), [_p64, _i64, _i64, _i64, _i64, _i64, _i64, _i64]),
                         name="run")
        block, tramp, target, frames, words, bounds, pieces, targets = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        ticket_at = self._at(b, block, TICKET)
        gen = b.and_(b.add(b.lshr(b.load_atomic(ticket_at, "acquire", 8), _c(GEN_SHIFT)), _c(1)), _c(GEN_MASK))
        b.store_atomic(_c(0), self._at(b, block, DONE), "monotonic", 8)
        for word, value in ((TRAMPOLINE, tramp), (TARGET, target), (FRAMES, frames), (FRAME_WORDS, words),
                            (BOUNDS, bounds), (TARGETS, targets)):
            b.store(value, self._at(b, block, word))
        published = b.or_(b.shl(gen, _c(GEN_SHIFT)), b.shl(pieces, _c(PIECES_SHIFT)))
        b.store_atomic(published, ticket_at, "seq_cst", 8)
        signal_at = b.bitcast(self._at(b, block, SIGNAL), _i32.as_pointer())
        b.store_atomic(b.trunc(gen, _i32), signal_at, "seq_cst", 4)
        sleepers = b.load_atomic(self._at(b, block, SLEEPERS), "seq_cst", 8)
        with b.if_then(b.icmp_signed(">", sleepers, _c(0))):
            b.call(self.syscall, [_c(SYS_FUTEX), signal_at, _c(FUTEX_WAKE_PRIVATE), _c(2**31 - 1)])
        b.call(self.work, [block, gen])
        self._wait_done(fn, b, block, pieces)

    def _wait_done(self, fn, b: ll.IRBuilder, block, pieces) -> None:
        """Poll ``DONE`` until every piece is done: the pause hint for ``SPIN_POLLS`` polls, then
        sleep on ``DONE``'s futex (``WAITING`` set: the member that finishes a piece wakes it),
        as the Python way's caller sleeps on a lock: a member on a core shared with other jobs
        may take a while."""
        polls = b.alloca(_i64)
        b.store(_c(0), polls)
        poll, out = fn.append_basic_block("poll"), fn.append_basic_block("out")
        b.branch(poll)
        b.position_at_end(poll)
        finished = b.icmp_signed(">=", b.load_atomic(self._at(b, block, DONE), "acquire", 8), pieces)
        more = fn.append_basic_block("more")
        b.cbranch(finished, out, more)
        b.position_at_end(more)

        def sleep(b: ll.IRBuilder) -> None:
            done_at, waiting_at = self._at(b, block, DONE), self._at(b, block, WAITING)
            b.store_atomic(_c(1), waiting_at, "seq_cst", 8)
            seen = b.load_atomic(done_at, "seq_cst", 8)
            with b.if_then(b.icmp_signed("<", seen, pieces)):
                b.call(self.syscall, [_c(SYS_FUTEX), done_at, _c(FUTEX_WAIT_PRIVATE),
                                      b.and_(seen, _c(0xFFFFFFFF)), ll.Constant(_i8p, None)])

        self._pause_or(b, polls, sleep)
        b.branch(poll)
        b.position_at_end(out)
        b.store_atomic(_c(0), self._at(b, block, WAITING), "seq_cst", 8)
        b.ret_void()

    def _pause_or(self, b: ll.IRBuilder, polls, sleep: Callable[[ll.IRBuilder], None]) -> None:
        """One more poll counted in ``polls``: the pause hint below ``SPIN_POLLS`` polls, from
        then on ``sleep`` (what the caller's wait and a helper's loop sleep on differs: the done
        count, or the generation's signal)."""
        count = b.load(polls)
        b.store(b.add(count, _c(1)), polls)
        with b.if_else(b.icmp_signed("<", count, _c(SPIN_POLLS))) as (spin, slow):
            with spin:
                b.call(self.pause, [])
            with slow:
                sleep(b)

    def _worker(self) -> None:
        """``worker(block)``: never returns."""
        fn = ll.Function(self.module, ll.FunctionType(ll.VoidType(), [_p64]), name="worker")
        (block,) = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        ticket_at = self._at(b, block, TICKET)
        signal_at = b.bitcast(self._at(b, block, SIGNAL), _i32.as_pointer())
        sleepers_at = self._at(b, block, SLEEPERS)
        seen, polls = b.alloca(_i64), b.alloca(_i64)
        b.store(b.lshr(b.load_atomic(ticket_at, "acquire", 8), _c(GEN_SHIFT)), seen)
        b.store(_c(0), polls)
        poll = fn.append_basic_block("poll")
        b.branch(poll)
        b.position_at_end(poll)
        gen = b.lshr(b.load_atomic(ticket_at, "acquire", 8), _c(GEN_SHIFT))
        new, idle = fn.append_basic_block("new"), fn.append_basic_block("idle")
        b.cbranch(b.icmp_unsigned("!=", gen, b.load(seen)), new, idle)
        b.position_at_end(new)
        b.store(gen, seen)
        b.call(self.work, [block, gen])
        b.store(_c(0), polls)
        b.branch(poll)
        b.position_at_end(idle)

        def sleep(b: ll.IRBuilder) -> None:
            b.atomic_rmw("add", sleepers_at, _c(1), "seq_cst")
            signal = b.load_atomic(signal_at, "seq_cst", 4)
            again = b.lshr(b.load_atomic(ticket_at, "seq_cst", 8), _c(GEN_SHIFT))
            with b.if_then(b.icmp_unsigned("==", again, b.load(seen))):
                b.call(self.syscall, [_c(SYS_FUTEX), signal_at, _c(FUTEX_WAIT_PRIVATE), b.zext(signal, _i64),
                                      ll.Constant(_i8p, None)])
            b.atomic_rmw("sub", sleepers_at, _c(1), "seq_cst")
            b.store(_c(0), polls)

        self._pause_or(b, polls, sleep)
        b.branch(poll)


def _trampoline_module(kinds: tuple[str, ...]) -> str:
    """``trampoline(target, frame, first, last)``: ``target(*frame, first, last)`` for a phase
    function whose parameters are ``kinds`` ("array": a pointer, "f64": a double, else an int64)."""
    module = ll.Module(name="polyfuse.team.trampoline")
    module.triple = llvm.get_process_triple()
    types = [_i8p if k == "array" else ll.DoubleType() if k == "f64" else _i64 for k in kinds]
    target_type = ll.FunctionType(ll.VoidType(), [*types, _i64, _i64])
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [_i8p, _p64, _i64, _i64]), name="trampoline")
    target, frame, first, last = fn.args
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    values = []
    for k, t in enumerate(types):
        word = b.load(b.gep(frame, [_c(k)]))
        values.append(b.inttoptr(word, t) if t == _i8p else b.bitcast(word, t) if t != _i64 else word)
    b.call(b.bitcast(target, target_type.as_pointer()), [*values, first, last])
    b.ret_void()
    return str(module)


#: the parameter kinds whose values are doubles in a frame, and those the team does not take
_DOUBLE_KINDS = {"f64", "re", "im"}
_WORD_KINDS = {"array", "stride", "i64"} | _DOUBLE_KINDS

_lock = threading.Lock()  # module state: engines, trampolines, helpers
_engines: list[Any] = []
_trampolines: dict[tuple[str, ...], int] = {}
_state: dict[str, Any] = {}


def _machine():
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    cpu, features = llvm_host()
    return llvm.Target.from_triple(llvm.get_process_triple()).create_target_machine(
        cpu=cpu, features=features, opt=2)


def _engine(text: str):
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(text), _machine())
    engine.finalize_object()
    _engines.append(engine)
    return engine


def available() -> bool:
    """Whether the team can run here: Linux on x86-64 (the futex system call, the pause hint)."""
    return os.uname().sysname == "Linux" and os.uname().machine == "x86_64"


def _team() -> dict[str, Any]:
    """The module's functions and this process's block (made on first use)."""
    with _lock:
        if not _state:
            libc = ctypes.CDLL(None)
            llvm.add_symbol(_SYSCALL, ctypes.cast(libc.syscall, ctypes.c_void_p).value)
            engine = _engine(str(_Emitter().module))
            args = [ctypes.c_void_p] + [ctypes.c_int64] * 7
            _state["run"] = ctypes.CFUNCTYPE(None, *args)(engine.get_function_address("run"))
            _state["worker"] = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.get_function_address("worker"))
            _state["getcpu"] = _getcpu(libc) if team_affinity() else None
            _fresh_block()
    return _state


def _fresh_block() -> None:
    block = np.zeros(BLOCK_WORDS + 8, dtype=np.int64)
    offset = (-block.ctypes.data % 64) // 8  # (the words on their own cache lines)
    _state["block"] = block[offset:offset + BLOCK_WORDS]
    _state["address"] = _state["block"].ctypes.data
    _state["buffer"] = ctypes.create_string_buffer(1024)  # frames and bounds of the run under way
    _state["helpers"] = 0
    _state["busy"] = threading.Lock()
    _state["helper_ids"] = []  # the helpers' thread ids (``_keep_apart``)
    _state["apart_from"] = None  # the caller's CPU the helpers were kept off, the helpers then


def trampoline(kinds: tuple[str, ...]) -> int:
    """The address of the trampoline for phase functions with parameters of these kinds."""
    address = _trampolines.get(kinds)
    if address is None:
        with _lock:
            address = _trampolines.get(kinds)
            if address is None:
                address = _engine(_trampoline_module(kinds)).get_function_address("trampoline")
                _trampolines[kinds] = address
    return address


def _start_helpers(wanted: int) -> None:
    state = _state
    while state["helpers"] < wanted:
        helper = threading.Thread(target=state["worker"], args=(state["address"],),
                                  name=f"polyfuse-native-{state['helpers']}", daemon=True)
        helper.start()
        state["helper_ids"].append(helper.native_id)
        state["helpers"] += 1


def _getcpu(libc) -> Callable[[], int] | None:
    """libc's ``sched_getcpu`` (the CPU the calling thread is on), or None where there is none."""
    function = getattr(libc, "sched_getcpu", None)
    if function is None:
        return None
    function.restype, function.argtypes = ctypes.c_int, []
    return function


def _keep_apart(state: dict[str, Any]) -> None:
    """Let the helpers run on every CPU the caller may use but the one it is on now
    (``POLYFUSE_TEAM_AFFINITY``), set again only when that CPU or the helpers changed: a helper
    woken from its futex on a machine with no idle core is placed on its waker's core, where it
    and the caller take turns (covariance with the rows forced, load 8: 20 calls at about one
    thread's time until the balancer moved the helper).  Nothing where the caller may use no
    other CPU; the knob's placement is dropped for good where the system refuses it."""
    cpu = state["getcpu"]()
    placed = (cpu, state["helpers"])
    if cpu < 0 or state["apart_from"] == placed:
        return
    state["apart_from"] = placed
    others = os.sched_getaffinity(0) - {cpu}
    if not others:
        return
    try:
        for helper in state["helper_ids"]:
            os.sched_setaffinity(helper, others)
    except OSError:  # (a sandbox's seccomp, a thread gone): the scheduler places them
        state["getcpu"] = None


class Frames:
    """How a kernel's argument list becomes a frame of 64-bit words (``struct`` formats by kind)."""

    def __init__(self, kinds: tuple[str, ...]) -> None:
        self.kinds = tuple("f64" if k in _DOUBLE_KINDS else k for k in kinds)
        self.ok = all(k in _WORD_KINDS for k in kinds)
        self.struct = struct.Struct("".join("d" if k in _DOUBLE_KINDS else "q" for k in kinds))
        self.trampoline = 0  # its address, once compiled

    def pack(self, args: list) -> bytes:
        return self.struct.pack(*args)

    def compile(self) -> int:
        self.trampoline = trampoline(self.kinds)
        return self.trampoline


def prepare(frames: Frames, helpers: int) -> None:
    """Do once what the first ``run`` with ``frames`` would do inside it: generate this process's
    team code and the trampoline for the frames' kinds (tens of ms of LLVM) and start the
    helpers.  The runtime calls it before it times a phase's first team run
    (backends/cpu/parallel.py ``_ready_team``), which would otherwise measure all that as the
    team's time and judge the team by it."""
    if not frames.ok:
        return
    state = _state or _team()
    if not frames.trampoline:
        frames.compile()
    if state["helpers"] < helpers:
        with _lock:
            _start_helpers(helpers)


def run(frames: Frames, target: int, rows: list[list], bounds: list[int], helpers: int,
        targets: list[int] | None = None) -> bool:
    """Run piece ``k`` as ``target(*rows[k], bounds[k], bounds[k + 1])`` for every k, the caller
    and up to ``helpers`` native helper threads taking them (in order: the first pieces go to
    the members that come first, the rest to whichever member is free); False (nothing ran)
    where the block is in use by another Python thread's team or an argument does not fit a
    frame.  With ``targets`` (one function address per piece, ``target`` unused), piece ``k`` is
    ``targets[k](*rows[k], bounds[2 k], bounds[2 k + 1])``: pieces of different phase functions
    of one kernel, each over its own iterations (a pair of products, parallel.py ``run_pair``)."""
    pieces = len(rows)
    if not 0 < pieces <= MAX_PIECES or len(bounds) != (2 * pieces if targets else pieces + 1):
        return False
    if targets is not None and len(targets) != pieces:
        return False
    try:
        data = b"".join([frames.pack(row) for row in rows]) + struct.pack(f"{len(bounds)}q", *bounds)
        table = struct.pack(f"{pieces}q", *targets) if targets else b""
    except (struct.error, TypeError):
        return False
    state = _state or _team()
    busy = state["busy"]
    if not busy.acquire(blocking=False):
        return False
    try:
        if state["helpers"] < helpers:
            with _lock:
                _start_helpers(helpers)
        if state["getcpu"] is not None and helpers > 0:
            _keep_apart(state)
        buffer = state["buffer"]
        if ctypes.sizeof(buffer) < len(data) + len(table):  # (the buffer is the block holder's alone)
            buffer = state["buffer"] = ctypes.create_string_buffer(2 * (len(data) + len(table)))
        ctypes.memmove(buffer, data + table, len(data) + len(table))
        address = ctypes.addressof(buffer)
        tramp = frames.trampoline or frames.compile()
        state["run"](state["address"], tramp, target, address, len(frames.kinds), address + len(data) - 8 * len(bounds),
                     pieces, address + len(data) if table else 0)
    finally:
        busy.release()
    return True


def _forget_after_fork() -> None:
    """In a child just forked: the helpers were the parent's threads (fork copies only the
    caller), and the block may hold a run under way there: a fresh block, no helpers."""
    global _lock
    _lock = threading.Lock()
    if _state:
        _fresh_block()


os.register_at_fork(after_in_child=_forget_after_fork)
