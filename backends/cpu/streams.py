"""Non-temporal ("streaming") stores for large results the kernel never reads back.

An innermost parallel loop that writes a contiguous array the program never reads, and moves at
least ``options.stream_store_bytes()`` bytes (default: the last-level cache's size) together with
the runs of it that the loops around store to other elements (a 2-d result's rows; not a time
loop's passes over the same elements), each run storing at least ``MIN_STREAM_ROW`` bytes, is cut
in two by ``KernelCodegen._emit_streaming``: a head loop up to the array's first 64-byte
boundary (or the whole loop, where the run is short or not contiguous) and the main loop, whose
store is marked ``STREAM_MARK``.  LLVM's loop vectorizer refuses a scalar store marked
``!nontemporal`` (x86 stores vectors non-temporally only at the vector's alignment, and the
scalar store says 8 bytes), so the mark is an alias scope that no other access names, which the
vectorizer carries to the vector stores and which means nothing else (``scope_marks``); after the
optimiser, ``nontemporal_stores`` gives those vector stores ``!nontemporal`` and the alignment the
head loop made (each vector store of the main loop starts a multiple of its own size past the
boundary).  Stores of a line that is never read skip the read of the line before the write
(x86 ``vmovntpd``): the STREAM triad into a preallocated 16 M-element array ran 1.31x faster by
hand (benchmarks/nontemporal_ab.py; docs/performance.md).  The function drains them with one
fence before each barrier and before it returns (``KernelCodegen.fence_streams``).

The loads' side (``POLYFUSE_PREFETCH``, default off): ``prefetched_loads`` gives every vector
load of float64/float32 elements of the optimised module a software prefetch of the address a
fixed number of bytes past it, for loops that read several rows side by side (one hardware
prefetcher stream per row: bicg and mvt 6-8% less CPU on one thread); off by default because
every other vector load gets one too, and loops reading from the caches lost (jacobi-2d 1.09-1.13x).
"""

from __future__ import annotations

import re

from polyfuse.model import ir
from polyfuse.model.funcs import VECTOR_MATH
from polyfuse.model.loop_ast import LoopProgram

STREAM_MARK = "polyfuse.stream"  # the metadata kind codegen puts on a main loop's store
#: lazy streams (``options.lazy_streams``): the streaming twin of a function ``f`` is ``f.streams``;
#: ``f`` sets the i64 ``f.streams.wanted`` where a run would stream, and once the runtime has
#: generated the twin it puts its address in ``f.streams.address``, where ``f`` finds it and runs it
STREAMED_SUFFIX = ".streams"
STREAMED_WANTED = ".streams.wanted"
STREAMED_ADDRESS = ".streams.address"
ALIGNMENT = 64  # bytes: the head loop ends where the array's address is a multiple of this
#: bytes one run of the loop must store to stream: shorter rows of a 2-d result lost (a 100000 x 32
#: float64 sum 2.4 -> 3.6-5.6 ms, 50000 x 64 even, 25000 x 128 2.0-2.7 -> 1.7-1.8 ms; load 8)
MIN_STREAM_ROW = 1024
#: element types whose vector stores x86 makes non-temporal (an int8/int16 result is stored by a
#: narrowing ``vpmovdb``/``vpmovdw``, which drops the hint: quantize_int8's loop was unchanged)
_NUMERIC = ("float64", "float32", "int64", "int32", "uint64", "uint32")


def streamable_arrays(program: LoopProgram) -> frozenset[str]:
    """Arrays whose stores may stream: the caller's arrays and returned results (not kernel-local
    temporaries) of 4- and 8-byte numbers that no statement of the program reads."""
    read: set[str] = set()
    for stmt in program.statements:
        read |= stmt.sources()
        if stmt.region is not None:  # a loop kept as written: whatever it writes counts as read too
            read |= set(stmt.region.writes)
    return frozenset(a.name for a in program.arrays
                     if a.kind in ("arg", "result") and a.dtype in _NUMERIC and a.shape and a.name not in read)


def plain_store(stmt) -> bool:
    """A statement whose store is one affine element (no run-time subscript, no opaque region)."""
    return stmt.region is None and bool(stmt.index) and not any(
        isinstance(e, ir.Index) for i in stmt.index for e in ir.walk(i))


def computes_math(stmt) -> bool:
    """Does the statement compute a transcendental (``funcs.VECTOR_MATH``, ``**``)?  Such loops
    are bound by their arithmetic, not by memory (gelu_tanh: 4.5x its bandwidth bound), and their
    bodies are long: a second copy of one for the streaming loop cost 50-180 ms of LLVM."""
    return stmt.region is not None or any(
        (isinstance(e, ir.Call) and e.func in VECTOR_MATH) or (isinstance(e, ir.BinOp) and e.op == "**")
        for e in ir.walk(stmt.value))


def scope_marks(text: str) -> str:
    """The printed module with each ``!polyfuse.stream !N`` store mark replaced by an alias scope
    of a domain named ``polyfuse.stream`` (no ``!noalias`` names it: it changes no alias answer)."""
    mark = f"!{STREAM_MARK} !"
    if mark not in text:
        return text
    taken = [int(n) for n in re.findall(r"^!(\d+) = ", text, flags=re.M)]
    domain = max(taken, default=-1) + 1
    scope, scopes = domain + 1, domain + 2
    text = re.sub(rf", !{re.escape(STREAM_MARK)} !\d+", f", !alias.scope !{scopes}", text)
    return (text + f'\n!{domain} = distinct !{{!{domain}, !"{STREAM_MARK}"}}\n'
            f"!{scope} = distinct !{{!{scope}, !{domain}}}\n!{scopes} = !{{!{scope}}}\n")


_STORE = re.compile(r"^(?P<head>\s*store <(?P<lanes>\d+) x (?P<type>\w+)> .*?, align )(?P<align>\d+)"
                    r"(?P<tail>.*, !alias\.scope !(?P<scopes>\d+).*)$", flags=re.M)
_BYTES = {"double": 8, "float": 4, "i64": 8, "i32": 4, "i16": 2, "i8": 1}


def nontemporal_stores(text: str) -> str:
    """The optimised module with the vector stores that carry the stream scope made
    non-temporal, at their vector's alignment (at most ``ALIGNMENT``); scalar stores (the head
    loop, a remainder) are left as they are."""
    domain = re.search(rf'^!(\d+) = distinct !{{!\1, !"{re.escape(STREAM_MARK)}"}}$', text, flags=re.M)
    if domain is None:
        return text
    scope = re.search(rf"^!(\d+) = distinct !{{!\1, !{domain.group(1)}}}$", text, flags=re.M)
    if scope is None:
        return text
    # the scope lists that hold it (the vectorizer's run-time overlap checks add scopes of their own)
    lists = set(re.findall(rf"^!(\d+) = !{{[^}}\n]*!{scope.group(1)}(?!\d)[^}}\n]*}}$", text, flags=re.M))
    marker = max([int(n) for n in re.findall(r"^!(\d+) = ", text, flags=re.M)], default=-1) + 1
    changed = False

    def stream(match: re.Match) -> str:
        nonlocal changed
        size = _BYTES.get(match["type"])
        if match["scopes"] not in lists or size is None:
            return match.group(0)
        changed = True
        align = min(ALIGNMENT, int(match["lanes"]) * size)
        return f"{match['head']}{align}{match['tail']}, !nontemporal !{marker}"

    text = _STORE.sub(stream, text)
    return text + f"\n!{marker} = !{{i32 1}}\n" if changed else text


_VECTOR_LOAD = re.compile(r"^(?P<indent>\s*)%[\w.]+ = load <\d+ x (?:double|float)>, ptr (?P<address>%[\w.]+), align \d+",
                          flags=re.M)
_PREFETCH = "llvm.prefetch.p0"


def prefetched_loads(text: str, distance: int) -> str:
    """The optimised module with a read prefetch to L1 (``llvm.prefetch``: locality 3, data) of
    the address ``distance`` bytes past each vector load of float64/float32 elements put before
    that load (``options.prefetch_bytes``).  A prefetch never faults, so one past an array's end
    is harmless; 0 leaves the module as it is."""
    if distance <= 0:
        return text
    count = 0

    def prefetch(match: re.Match) -> str:
        nonlocal count
        count += 1
        ahead = f"%polyfuse.prefetch.{count}"
        return (f"{match['indent']}{ahead} = getelementptr i8, ptr {match['address']}, i64 {distance}\n"
                f"{match['indent']}call void @{_PREFETCH}(ptr {ahead}, i32 0, i32 3, i32 1)\n{match.group(0)}")

    text = _VECTOR_LOAD.sub(prefetch, text)
    if count and f"declare void @{_PREFETCH}(" not in text:
        text += f"\ndeclare void @{_PREFETCH}(ptr nocapture readonly, i32 immarg, i32 immarg, i32 immarg)\n"
    return text
