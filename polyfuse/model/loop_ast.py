"""The loop AST: the only thing backends see.

Built from isl's AST (``AstBuild``) and immutable.  Loops carry whether they may run in parallel
and which kernel-local arrays each parallel iteration needs a private copy of.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from polyfuse.model import ir
from polyfuse.model.names import user_name
from polyfuse.model.region import render as render_region
from polyfuse.model.scop import Argument, ArrayInfo, Statement


@dataclass(frozen=True)
class Carried:
    """What a sequential loop carries, from the dependences (``passes.astgen`` records it only
    for loops around a ``+=`` update, for ``passes.private_sums``): the arrays and scalars whose
    validity dependences (flow, and false ones of non-local arrays) join two of its iterations,
    and the kernel-local ones whose false dependences alone do (a private copy per iteration
    removes those)."""

    arrays: tuple[str, ...]
    private: tuple[str, ...] = ()


class LazyText:
    """Text computed on first ``str()``: explain()'s notes whose isl work a compile need not pay
    (astgen's reason why a loop is parallel: 47 ms of fdtd-2d's 0.67 s compile).  Callers read it
    where the compile's isl work may run (explain() holds the compile lock); it pickles as its text,
    or as its maker while nobody read it (a cache entry's explanation, made at every compile).
    Its maker should hold what it needs as text, not isl objects (astgen's ``_Reasons``): a loop
    AST lives as long as its kernel."""

    __slots__ = ("_make", "_text")

    def __init__(self, make: Callable[[], str]) -> None:
        self._make: Callable[[], str] | None = make
        self._text: str | None = None

    def __str__(self) -> str:
        if self._text is None:
            assert self._make is not None
            self._text, self._make = self._make(), None
        return self._text

    def __bool__(self) -> bool:
        return bool(str(self))

    def __repr__(self) -> str:
        return repr(str(self))

    def __reduce__(self) -> tuple[Any, ...]:
        # not yet computed: pickled with its maker (text only, as its maker must hold), so that
        # a disk-cache entry stores it without running its isl work (explain() may never ask)
        if self._text is None:
            return (LazyText, (self._make,))
        return (str, (self._text,))


@dataclass(frozen=True)
class For:
    """``for iterator = init; cond; iterator += step`` (isl's loop form)."""

    iterator: str
    init: ir.Expr
    cond: ir.Expr
    step: int
    body: Node
    parallel: bool = False
    private: tuple[str, ...] = ()
    # the dependence check that allowed ``parallel`` (explain() shows it, ``str()``; code never
    # depends on it): astgen's is a LazyText, its isl checks run only when explain() reads it
    why_parallel: str | LazyText = field(default="", compare=False)
    # a sequential loop's carried dependences by array, where astgen was asked for them
    carried: Carried | None = field(default=None, compare=False)
    # a loop isl generated from a time-tiled nest's tile band (the schedule's ``TIME_TILES_MARK``,
    # schedule/time_tiling.py): only such a wavefront loop may have its tiles walked in another
    # order (backends/cpu/llvm.py, ``tile_pair``), not the same statements' untiled loops
    time_tiles: bool = False
    # a loop on a path that runs only in rare cases (the exact rerun of a min/max reduction whose
    # lanes found a zero or a NaN: passes/lanes.py): the cpu backend generates it plainly, without
    # LLVM's unrolling and vectorizing (``options.rare_loops``: compile time)
    rare: bool = False


@dataclass(frozen=True)
class If:
    cond: ir.Expr
    then: Node
    otherwise: Node | None = None


@dataclass(frozen=True)
class Block:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class StmtCall:
    """Execute statement ``statement`` at the domain point ``args`` (one value per iterator)."""

    statement: str
    args: tuple[ir.Expr, ...]


Node = For | If | Block | StmtCall


@dataclass(frozen=True)
class TileWalk:
    """The tiles of one time-tiled nest in a one-thread order, as two loops with tight bounds:
    ``for a in [outer_lo, outer_hi]: for k in [inner_lo, inner_hi]`` (inclusive), the inner
    bounds in terms of ``Var(WALK_OUTER)``; lexicographic: ``a = tile0``, ``k = tile1``;
    columns: ``a = tile1``, ``k = tile0`` (``tile0 = wavefront - tile1``).  Every tile of the
    nest is in the walk; the walk may hold pairs that are no tile (the backend skips them)."""

    statements: frozenset[str]
    order: str
    outer_lo: ir.Expr
    outer_hi: ir.Expr
    inner_lo: ir.Expr
    inner_hi: ir.Expr


WALK_OUTER = "tiles.a"  # the name of a TileWalk's outer counter in its inner bounds
#: isl names each generated loop by its schedule dimension: ``_t0`` the outermost, ``_t1`` ...
#: (passes/astgen.py); a time-tiled nest's wavefront loop is ``_t0``, its tile1 loop ``_t1``
ITERATOR_PREFIX = "_t"


@dataclass(frozen=True)
class LoopProgram:
    """A scheduled kernel: loop AST plus the statement bodies and arrays it refers to."""

    name: str
    root: Node
    arguments: tuple[Argument, ...]
    params: tuple[str, ...]
    arrays: tuple[ArrayInfo, ...]
    statements: tuple[Statement, ...]
    #: the statements of the nests time tiling transformed (backends may compile those phases
    #: differently: backends/cpu/llvm.py, ``without_lsr``)
    time_tiled: frozenset[str] = frozenset()
    #: (statement, order) for the statements of time-tiled nests whose tiles a team of one thread
    #: runs in another order than wavefronts: "lexicographic" or "columns"
    #: (time_tiling.one_thread_order checked it; backends/cpu/llvm.py, ``emit_tile_orders``)
    one_thread_tiles: frozenset[tuple[str, str]] = frozenset()
    #: the tight bounds of those orders' two tile loops, one walk per nest (passes/tile_walks.py)
    tile_walks: tuple[TileWalk, ...] = ()
    #: statements of nests blocked so that they run from L1/L2 (passes/pivot_rows.py): their
    #: phases prefer wide vectors, as time-tiled ones do (backends/cpu/llvm.py, ``tiled_functions``)
    cache_blocked: frozenset[str] = frozenset()
    #: statements of time-tiled nests that run untiled where their rows fit in L1
    #: (time_tiling.whole_row_version): their regions keep a serial twin (backends/cpu/llvm.py,
    #: ``shared_twins``), so the untiled version runs without a barrier per sweep on one thread
    whole_row: frozenset[str] = frozenset()
    #: the statements passes/packed_rows.py made (rows W at once, under a block loop): their
    #: regions share one body with their serial function (backends/cpu/llvm.py, ``shared_twins``)
    packed_rows: frozenset[str] = frozenset()
    #: the user's names of the frontend's fresh ones (Scop.user_names), for error messages
    user_names: tuple[tuple[str, str], ...] = ()

    def shown(self, name: str) -> str:
        """``name`` as the user wrote it (polyfuse.model.names)."""
        return user_name(name, dict(self.user_names))

    def statement(self, name: str) -> Statement:
        return self._statements_by_name[name]

    @functools.cached_property
    def _statements_by_name(self) -> dict[str, Statement]:
        """The statements by name (the first of a name, as a search in order finds it), made on
        the first ``statement`` call: the backend asks it for each statement call it emits and
        the phase planner for each statement it walks (a linear search cost cholesky's 560
        statements ~10 ms of its backend stage).  Not pickled (``__getstate__``)."""
        found: dict[str, Statement] = {}
        for stmt in self.statements:
            found.setdefault(stmt.name, stmt)
        return found

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_statements_by_name", None)
        return state

    def local_arrays(self) -> tuple[ArrayInfo, ...]:
        """The arrays the runtime allocates per call: kernel-local ones and returned results."""
        return tuple(a for a in self.arrays if a.kind in ("local", "result"))


class ProgramEdit:
    """What a loop-AST pass adds to a program: local arrays and statements, under names no array,
    statement or loop iterator of the program uses yet."""

    def __init__(self, program: LoopProgram) -> None:
        self.program = program
        self.infos = {a.name: a for a in program.arrays}
        self.arrays: list[ArrayInfo] = []
        self.statements: list[Statement] = []
        self.taken = {a.name for a in program.arrays} | {s.name for s in program.statements}
        self.taken |= {n.iterator for n in nodes(program.root) if isinstance(n, For)}

    def fresh(self, stem: str) -> str:
        name, n = stem, 0
        while name in self.taken:
            n += 1
            name = f"{stem}{n}"
        self.taken.add(name)
        return name

    def add_array(self, info: ArrayInfo) -> ArrayInfo:
        self.arrays.append(info)
        self.infos[info.name] = info
        return info

    def add_statement(self, statement: Statement) -> Statement:
        self.statements.append(statement)
        return statement

    def program_with(self, root: Node) -> LoopProgram:
        """The program with ``root`` and everything added."""
        return replace(self.program, root=root, arrays=self.program.arrays + tuple(self.arrays),
                       statements=self.program.statements + tuple(self.statements))


class LoopRewrite(ProgramEdit):
    """A loop-AST pass that replaces some loops (``rewrite(loop)``: the new node, or None to keep
    it and look inside) and records a decision for each; a parallel loop privatises the local
    arrays the pass made below it (each iteration needs its own)."""

    def __init__(self, program: LoopProgram) -> None:
        super().__init__(program)
        self.decisions: list = []

    def rewrite(self, loop: For) -> Node | None:
        raise NotImplementedError

    def run(self) -> tuple[LoopProgram, tuple]:
        """The program with every rewrite, and the decisions (unchanged and () when none)."""
        root = self.visit(self.program.root)
        if not self.decisions:
            return self.program, ()
        return self.program_with(root), tuple(self.decisions)

    def visit(self, node: Node) -> Node:
        if isinstance(node, Block):
            return Block(tuple(self.visit(c) for c in node.children))
        if isinstance(node, If):
            otherwise = None if node.otherwise is None else self.visit(node.otherwise)
            return replace(node, then=self.visit(node.then), otherwise=otherwise)
        if not isinstance(node, For):
            return node
        rewritten = self.rewrite(node)
        if rewritten is not None:
            return rewritten
        before = len(self.arrays)
        body = self.visit(node.body)
        created = tuple(a.name for a in self.arrays[before:])
        if node.parallel and created:
            return replace(node, body=body, private=node.private + created)
        return replace(node, body=body)


def nodes(node: Node):
    """Yield every node of the tree, parents first."""
    yield node
    if isinstance(node, For):
        yield from nodes(node.body)
    elif isinstance(node, If):
        yield from nodes(node.then)
        if node.otherwise is not None:
            yield from nodes(node.otherwise)
    elif isinstance(node, Block):
        for child in node.children:
            yield from nodes(child)


def calls_with_loops(node: Node, loops: tuple[For, ...] = ()) -> Iterator[tuple[StmtCall, tuple[For, ...]]]:
    """Each statement call below ``node`` with the loops around it there (outermost first)."""
    if isinstance(node, StmtCall):
        yield node, loops
    elif isinstance(node, For):
        yield from calls_with_loops(node.body, loops + (node,))
    elif isinstance(node, If):
        yield from calls_with_loops(node.then, loops)
        if node.otherwise is not None:
            yield from calls_with_loops(node.otherwise, loops)
    else:
        for child in node.children:
            yield from calls_with_loops(child, loops)


def calls_only(node: Node) -> list[StmtCall] | None:
    """The statement calls of a body made of calls alone, in order through nested blocks (None
    when it holds loops or ifs)."""
    if isinstance(node, StmtCall):
        return [node]
    if isinstance(node, Block):
        found: list[StmtCall] = []
        for child in node.children:
            inner = calls_only(child)
            if inner is None:
                return None
            found += inner
        return found
    return None


def statements_in(node: Node) -> list[str]:
    return [n.statement for n in nodes(node) if isinstance(n, StmtCall)]


def top_level(node: Node) -> tuple[Node, ...]:
    return node.children if isinstance(node, Block) else (node,)


def exclusive_bound(loop: For) -> ir.Expr | None:
    """``e`` such that the loop runs while ``iterator < e`` (simplifying ``(x - 1) + 1``)."""
    cond = loop.cond
    if not (isinstance(cond, ir.Compare) and isinstance(cond.lhs, ir.Var) and cond.lhs.name == loop.iterator):
        return None
    if cond.op == "<":
        return cond.rhs
    if cond.op != "<=":
        return None
    rhs = cond.rhs
    if isinstance(rhs, ir.BinOp) and rhs.op == "-" and rhs.rhs == ir.int_const(1):
        return rhs.lhs
    return ir.BinOp("+", rhs, ir.int_const(1), ir.INT, True)


def display_names(text: str) -> str:
    """``A__shape0`` -> ``A.shape[0]`` for people."""
    return re.sub(r"\b([A-Za-z_][A-Za-z0-9_]*)__shape(\d+)\b", r"\1.shape[\2]", text)


def render(program: LoopProgram) -> str:
    """Readable pseudo-Python of the loop structure (what ``explain()`` shows)."""
    lines: list[str] = []
    _render(program.root, program, 0, lines)
    return "\n".join(lines)


def _render(node: Node, program: LoopProgram, depth: int, out: list[str]) -> None:
    pad = "    " * depth
    if isinstance(node, Block):
        for child in node.children:
            _render(child, program, depth, out)
    elif isinstance(node, For):
        bound = exclusive_bound(node)
        tag = "  # parallel" + (f", private {', '.join(node.private)}" if node.private else "") if node.parallel else ""
        if bound is not None:
            step = f", {node.step}" if node.step != 1 else ""
            out.append(display_names(f"{pad}for {node.iterator} in range({ir.to_python(node.init)}, "
                                f"{ir.to_python(bound)}{step}):{tag}"))
        else:
            out.append(display_names(f"{pad}for {node.iterator} from {ir.to_python(node.init)} while "
                                f"{ir.to_python(node.cond)} step {node.step}:{tag}"))
        _render(node.body, program, depth + 1, out)
    elif isinstance(node, If):
        out.append(display_names(f"{pad}if {ir.to_python(node.cond)}:"))
        _render(node.then, program, depth + 1, out)
        if node.otherwise is not None:
            out.append(f"{pad}else:")
            _render(node.otherwise, program, depth + 1, out)
    else:
        stmt = program.statement(node.statement)
        args = ", ".join(ir.to_python(a) for a in node.args)
        if stmt.region is not None:  # the loop kept as written, below its call
            out.append(display_names(f"{pad}{stmt.name}({args})") + f"  # kept as written: {stmt.region.reason}")
            out.extend(display_names(line) for line in render_region(stmt.region.body, depth + 1))
            return
        out.append(display_names(f"{pad}{stmt.name}({args})") + f"  # {stmt.source_line}")


def arrays_used(program: LoopProgram, node: Node) -> set[str]:
    """The arrays (and scalars) the statements under ``node`` write or read."""
    used: set[str] = set()
    for name in statements_in(node):
        stmt = program.statement(name)
        used.update(stmt.targets)
        used.update(stmt.sources())
    return used
