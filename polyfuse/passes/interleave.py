"""Interleaving iterations of a parallel loop around latency-bound reductions (unroll-and-jam).

A floating-point reduction in an inner loop is one chain of dependent operations per iteration of
the loop around it::

    for i in range(lo, hi):            # parallel
        acc = 0.0
        for j in range(m):
            acc += A[i, j]             # each add waits for the previous one (3-4 cycles)
        Z[i] = acc

LLVM may not reorder float adds (results would change), and it does not vectorize ``max``
reductions written as compare-and-select, so such loops run at one element per add latency.
Interleaving ``U`` iterations of the parallel loop gives ``U`` independent chains::

    for i in range(lo, hi, U):         # still parallel
        if i + U <= hi:
            acc_0 = 0.0; ...; acc_3 = 0.0
            for j in range(m):
                acc_0 += A[i, j]; acc_1 += A[i + 1, j]; ...; acc_3 += A[i + 3, j]
            Z[i] = acc_0; ...; Z[i + 3] = acc_3
        else:
            for i2 in range(i, hi): (the original body)

It is legal because the loop is parallel: no dependence joins two of its iterations once each has
its own copy of the locals it privatises, so any interleaving of whole iterations' statements is
allowed, and each iteration's own statements keep their order.  Every value is computed by the same
operations in the same order, so results are bitwise unchanged.

A sequential loop is interleaved only where the jam's reordering (an access of iteration ``i + 1``
may run before one of iteration ``i`` at a later point of an inner loop) is harmless for every
array its body writes (``_Interleaver.carried``): atax's ``tmp[i] = sum_j A[i, j] * x[j]; y[j] += A[i, j] *
tmp[i]`` over ``i`` -- ``tmp[i]`` belongs to one iteration, and each ``y[j]`` still gets its
terms in the loop's order, because the copies of row ``i..i+U-1`` run side by side at each ``j``.

Only loops whose body is the same for every iteration are interleaved: inner loop bounds and ``if``
conditions may not depend on the interleaved iterator.  The innermost parallel loop around a
reduction is chosen (for ``C[i, j] += A[i, k] * B[k, j]`` with ``j`` parallel that is ``j``, whose
copies read neighbouring elements of ``B``).

Two modes.  ``copies`` (``interleave=True``): every float reduction, that many copies.
``vector_bytes`` (the cpu target's default): only *latency-bound* reductions -- written as loops
(a NumPy sum, ``BinOp.reassoc``, is left to passes.blocked_sums, which sums it in blocks of vector
lanes for NumPy's accuracy; except a matrix-vector product's rows, ``_Interleaver.matrix_row``,
whose copies each keep their blocks) and whose innermost loop is
only loads and ``+ - * min max`` (an add chain and nothing else to overlap it with: a
matrix-vector row) -- and one vector of lanes of copies (8 float64 with AVX-512), as many
independent chains as a vectorized sum would have.  Heavier bodies (``exp``, divisions) already
keep the core busy between adds, and streaming them through more registers lost (the suite
softmax 0.67-0.79x with 4 copies).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyfuse.model import ir
from polyfuse.model.loop_ast import (
    Block,
    For,
    If,
    LoopProgram,
    Node,
    ProgramEdit,
    StmtCall,
    calls_with_loops,
    exclusive_bound,
    nodes,
    statements_in,
)
from polyfuse.model.scop import Statement, added_term
from polyfuse.options import INTERLEAVE_COPIES

#: Iterations interleaved: enough independent chains to cover a float add's latency (3-4 cycles)
#: on the two add units of current x86 cores.
INTERLEAVE = INTERLEAVE_COPIES  # the default number of copies, set in polyfuse.options
#: The interleaved body holds at most this many statement copies (compile time, code size).
MAX_STATEMENT_COPIES = 96
_FLOATS = ("float32", "float64")
_ITEMSIZE = {"float32": 4, "float64": 8}
#: What a latency-bound reduction's innermost loop may compute (besides loads, constants, scalars).
_CHAIN_OPS = ("+", "-", "*", "min", "max")


@dataclass(frozen=True)
class Interleaving:
    """One interleaved loop, for ``explain()``."""

    loop: str  # iterator of the parallel loop
    copies: int
    reductions: tuple[str, ...]  # the reduction statements whose chains now run side by side
    renamed: tuple[str, ...]  # private locals that got a copy per interleaved iteration
    # a sequential loop's arrays updated across its iterations (``y[j] += A[i, j] * t[i]`` over
    # ``i``), each element still in the loop's order; () for a parallel loop
    carried: tuple[str, ...] = ()


def interleave_reductions(program: LoopProgram, *, copies: int = INTERLEAVE, vector_bytes: int = 0,
                          ) -> tuple[LoopProgram, tuple[Interleaving, ...]]:
    """``program`` with the innermost parallel loop around each float reduction interleaved
    ``copies`` times, or with ``vector_bytes``, around each latency-bound one, one vector of lanes
    of copies (see the module docstring); unchanged when nothing qualifies."""
    if copies < 2 and vector_bytes <= 0:
        return program, ()
    rewriter = _Interleaver(program, copies, vector_bytes)
    root, _ = rewriter.visit(program.root)
    if not rewriter.decisions:
        return program, ()
    return rewriter.program_with(root), tuple(rewriter.decisions)


class _Interleaver(ProgramEdit):
    def __init__(self, program: LoopProgram, copies: int, vector_bytes: int = 0) -> None:
        super().__init__(program)
        self.copies = copies
        self.vector_bytes = vector_bytes  # > 0: latency-bound reductions only, one vector of copies
        self.decisions: list[Interleaving] = []

    def visit(self, node: Node) -> tuple[Node, dict[str, tuple[str, ...]]]:
        """The rewritten node and, for each private local copied below it, its copies (an
        enclosing parallel loop that privatises the original must privatise the copies too)."""
        if isinstance(node, Block):
            children, copied = [], {}
            for child in node.children:
                new, more = self.visit(child)
                children.append(new)
                copied.update(more)
            return Block(tuple(children)), copied
        if isinstance(node, If):
            then, copied = self.visit(node.then)
            otherwise = None
            if node.otherwise is not None:
                otherwise, more = self.visit(node.otherwise)
                copied.update(more)
            return replace(node, then=then, otherwise=otherwise), copied
        if not isinstance(node, For):
            return node, {}
        before = len(self.decisions)
        body, copied = self.visit(node.body)
        if len(self.decisions) == before:
            # the innermost parallel loop, or a sequential one whose carried arrays allow it
            carried = () if node.parallel else self.carried(node)
            jammed = None if carried is None else self.interleave(node, carried)
            if jammed is not None:
                return jammed
        extra = tuple(c for name in node.private for c in copied.get(name, ()))
        return replace(node, body=body, private=node.private + extra), copied

    # ---- the transformation ------------------------------------------------------------------
    def interleave(self, loop: For, carried: tuple[str, ...]) -> tuple[Node, dict[str, tuple[str, ...]]] | None:
        """``loop`` jammed, or None; ``carried``: what ``self.carried`` allows of a sequential loop."""
        bound = exclusive_bound(loop)
        if bound is None or loop.step != 1:
            return None
        reductions = self.reductions(loop)
        if not reductions or not self.uniform(loop.body, loop.iterator):
            return None
        calls = statements_in(loop.body)
        if any(self.program.statement(name).region is not None for name in calls):
            return None  # a loop kept as written is not rewritten
        if any(_reads_free(self.program.statement(name), loop.iterator) for name in calls):
            return None  # the copies retarget the calls' arguments only (a hoisted load reads p[i, c])
        copies = self.copies
        if self.vector_bytes > 0:
            itemsize = max(_ITEMSIZE[self.infos[self.program.statement(r).array].dtype] for r in reductions)
            copies = min(self.vector_bytes // itemsize, MAX_STATEMENT_COPIES // len(calls))
        if copies < 2 or len(calls) * copies > MAX_STATEMENT_COPIES:
            return None
        renamed = tuple(sorted(a for a in loop.private if a in self.written(loop.body)))
        # the last copy keeps the original names: after the loop a private local holds the value
        # of the last iteration run, as in the loop as written (``C[0, 0] = s`` after the nest)
        names = [{a: self.copy_array(a, k) for a in renamed} for k in range(copies - 1)] + [
            {a: a for a in renamed}]
        var = ir.Var(loop.iterator, ir.INT)
        shifted = [ir.BinOp("+", var, ir.int_const(k), ir.INT, True) if k else var for k in range(copies)]
        versions = [self.retarget(loop.body, loop.iterator, shifted[k], names[k], k) for k in range(copies)]
        rest_var = self.fresh(f"{loop.iterator}_rest")
        rest = For(rest_var, var, ir.Compare("<", ir.Var(rest_var, ir.INT), bound), 1,
                   _rename_iterator(loop.body, loop.iterator, ir.Var(rest_var, ir.INT)))
        full = ir.Compare("<=", ir.BinOp("+", var, ir.int_const(copies), ir.INT, True), bound)
        body = If(full, _jam(versions), rest)
        copied = {a: tuple(n[a] for n in names[:-1]) for a in renamed}
        private = loop.private + tuple(c for a in renamed for c in copied[a])
        self.decisions.append(Interleaving(loop.iterator, copies, tuple(reductions), renamed, carried))
        return replace(loop, step=copies, body=body, private=private), copied

    def reductions(self, loop: For) -> list[str]:
        """Float statements whose innermost loop (inside ``loop``) updates the element they read,
        at an index that loop does not change: one dependence chain per iteration of ``loop``.
        (``acc[j] += ...`` inside its own ``j`` loop is not one: LLVM vectorizes that along ``j``.)
        With ``vector_bytes``: none unless every one is latency-bound (see the module docstring)."""
        found: list[str] = []
        latency_bound = True
        for call, around in calls_with_loops(loop.body, ()):
            inner = around[-1] if around else None
            stmt = self.program.statement(call.statement)
            info = self.infos.get(stmt.array)
            if inner is None or info is None or info.dtype not in _FLOATS or stmt.name in found:
                continue
            index = tuple(_bind(e, stmt, call) for e in stmt.index)
            reads_itself = any(isinstance(e, ir.Load) and e.array == stmt.array
                               and tuple(_bind(i, stmt, call) for i in e.index) == index
                               for e in ir.walk(stmt.value))
            if reads_itself and not any(_uses(e, inner.iterator) for e in index):
                found.append(stmt.name)
                # a NumPy sum (reassociable) in a parallel loop stays in its blocked vector
                # sums, unless it is a matrix-vector product's row; in a sequential row loop
                # (passes.private_sums' chunks: each row's dot product may reassociate there)
                # the copies run side by side, each its own sum
                latency_bound = latency_bound and (
                    not stmt.reassociable or not loop.parallel or self.matrix_row(stmt, call, loop.iterator)) and all(
                    _adds_only(self.program.statement(name).value) for name in statements_in(inner.body))
        if self.vector_bytes > 0 and not latency_bound:
            return []
        return found

    def matrix_row(self, stmt: Statement, call: StmtCall, iterator: str) -> bool:
        """``acc[i] += A[i, j] * x[j]`` written with NumPy's ``@`` (reassociable): one row of a
        matrix-vector product, a product of a matrix element and a value that is the same for
        every ``iterator`` (``x[j]``; not ``X[i, j] * X[i, j]``, a row's sum of squares).  Its
        copies run side by side, each still summed in its own blocks by passes.blocked_sums, so
        8 rows share each load of ``x`` and keep 8 streams of ``A`` in flight: the NumPy form of
        gesummv at N = 4000 ran 1.4-2x faster on one thread than one row at a time
        (docs/performance.md).  Plain sums (``A.sum(1)``) keep their vector lanes."""
        term = added_term(stmt)
        if term is None:
            return False

        def moves(expr: ir.Expr) -> bool:  # reads an element that changes with ``iterator``
            return any(_uses(_bind(i, stmt, call), iterator)
                       for e in ir.walk(expr) if isinstance(e, ir.Load) for i in e.index)

        def matrix(expr: ir.Expr) -> bool:
            return any(isinstance(e, ir.Load) and (info := self.infos.get(e.array)) is not None and info.rank >= 2
                       for e in ir.walk(expr))

        def shared(expr: ir.Expr) -> bool:  # reads something, the same for every copy
            return any(isinstance(e, ir.Load) for e in ir.walk(expr)) and not moves(expr)

        return any(isinstance(e, ir.BinOp) and e.op == "*"
                   and any(matrix(a) and moves(a) and shared(b) for a, b in ((e.lhs, e.rhs), (e.rhs, e.lhs)))
                   for e in ir.walk(term))

    def carried(self, loop: For) -> tuple[str, ...] | None:
        """For a sequential loop: the arrays its iterations pass values through, when interleaving
        its iterations keeps every dependence (else None).  Jammed, the copies of one inner loop
        run side by side at each of its points, so an access of iteration ``i + 1`` may run before
        one of ``i`` at a later point.  That is harmless for an array written in the body that
        either (a) every access reaches at one subscript that holds the loop's iterator bare
        (``tmp[i]``: no two iterations share an element), or (b) only one statement touches, at
        the iterators of the inner loops around it, bare and distinct (``y[j] += ...``: each
        element's updates still come in the loop's order).  Anything else: None."""
        it = loop.iterator
        accesses: dict[str, list[tuple[tuple[ir.Expr, ...], str, tuple[str, ...]]]] = {}
        written: set[str] = set()
        for call, inner in calls_with_loops(loop.body, ()):
            stmt = self.program.statement(call.statement)
            if stmt.region is not None:
                return None
            written.add(stmt.array)
            here = tuple(f.iterator for f in inner)
            # (each shared load once: ir.distinct_nodes; a repeat adds an equal access)
            for array, index in [(stmt.array, stmt.index)] + [(e.array, e.index) for e in ir.distinct_nodes(stmt.value)
                                                              if isinstance(e, ir.Load)]:
                bound = tuple(_bind(e, stmt, call) for e in index)
                if any(isinstance(e, ir.Load | ir.Index) for e in ir.distinct_nodes(*bound)):
                    return None  # a subscript read from memory
                accesses.setdefault(array, []).append((bound, call.statement, here))
        for n in nodes(loop.body):  # a bound or condition read what the body writes: version 0's for all
            headers = (n.init, n.cond) if isinstance(n, For) else (n.cond,) if isinstance(n, If) else ()
            if any(isinstance(e, ir.Load) and e.array in written for e in ir.distinct_nodes(*headers)):
                return None
        carried = []
        for array in sorted(written):
            found = accesses[array]
            first = found[0][0]
            if all(index == first for index, _, _ in found) and any(isinstance(e, ir.Var) and e.name == it
                                                                    for e in first):
                continue  # (a)
            statement, around = found[0][1], found[0][2]
            # subscripts that hold still in the loop (an outer loop's chunk of partial sums:
            # passes.private_sums' ``y_part[c, j]``) do not tell its iterations apart
            moving = [e for e in first if _uses(e, it) or any(_uses(e, a) for a in around)]
            names = [e.name for e in moving if isinstance(e, ir.Var)]
            if (all(s == statement and index == first for index, s, _ in found) and len(names) == len(moving)
                    and sorted(names) == sorted(set(names)) and set(names) == set(around) and it not in names):
                carried.append(array)  # (b)
                continue
            return None
        return tuple(carried)

    def uniform(self, node: Node, iterator: str) -> bool:
        """Loop bounds and conditions below ``node`` do not depend on ``iterator``."""
        for n in nodes(node):
            if isinstance(n, For) and (_uses(n.init, iterator) or _uses(n.cond, iterator)):
                return False
            if isinstance(n, If) and _uses(n.cond, iterator):
                return False
        return True

    def arrays_in(self, node: Node) -> set[str]:
        used: set[str] = set()
        for name in statements_in(node):
            stmt = self.program.statement(name)
            used.add(stmt.array)
            used.update(e.array for e in ir.distinct_nodes(stmt.value) if isinstance(e, ir.Load))
        return used

    def written(self, node: Node) -> set[str]:
        return {self.program.statement(name).array for name in statements_in(node)}

    def copy_array(self, name: str, k: int) -> str:
        return self.add_array(replace(self.infos[name], name=self.fresh(f"{name}_il{k}"))).name

    def retarget(self, node: Node, iterator: str, value: ir.Expr, names: dict[str, str], k: int) -> Node:
        """``node`` for one interleaved iteration: ``iterator`` replaced by ``value`` and the
        private locals by this iteration's copies."""
        if isinstance(node, StmtCall):
            stmt = self.program.statement(node.statement)
            if any(names.get(a, a) != a for a in {stmt.array} | self.arrays_in(node)):
                stmt = self.renamed_statement(stmt, names, k)
            return StmtCall(stmt.name, tuple(ir.substitute(a, {iterator: value}) for a in node.args))
        # a bound or condition may read a private local (the exact rerun of a max in lanes tests
        # its lanes' maximum): each copy tests its own
        if isinstance(node, For):
            return replace(node, init=_renamed_loads(node.init, names), cond=_renamed_loads(node.cond, names),
                           body=self.retarget(node.body, iterator, value, names, k))
        if isinstance(node, If):
            otherwise = None if node.otherwise is None else self.retarget(node.otherwise, iterator, value, names, k)
            return replace(node, cond=_renamed_loads(node.cond, names),
                           then=self.retarget(node.then, iterator, value, names, k), otherwise=otherwise)
        assert isinstance(node, Block)
        return Block(tuple(self.retarget(c, iterator, value, names, k) for c in node.children))

    def renamed_statement(self, stmt: Statement, names: dict[str, str], k: int) -> Statement:
        return self.add_statement(replace(
            stmt, name=self.fresh(f"{stmt.name}_il{k}"), array=names.get(stmt.array, stmt.array),
            value=_renamed_loads(stmt.value, names)))


def _renamed_loads(expr: ir.Expr, names: dict[str, str]) -> ir.Expr:
    """``expr`` reading each array of ``names`` from its copy."""
    return ir.map_loads(expr, lambda load: replace(load, array=names.get(load.array, load.array)))


def _jam(versions: list[Node]) -> Node:
    """One node running the same-shaped ``versions`` side by side: loops merged level by level,
    the versions' statements next to each other inside the innermost ones.  Loops or conditions
    whose headers differ between versions (they read each copy's own locals) are not merged: the
    versions run one after another there, each in its own order, which the parallel loop allows."""
    first = versions[0]
    if isinstance(first, StmtCall):
        return Block(tuple(versions))
    if isinstance(first, For):
        if any((v.init, v.cond) != (first.init, first.cond) for v in versions):  # type: ignore[union-attr]
            return Block(tuple(versions))
        return replace(first, body=_jam([v.body for v in versions]))  # type: ignore[union-attr]
    if isinstance(first, If):
        if any(v.cond != first.cond for v in versions):  # type: ignore[union-attr]
            return Block(tuple(versions))
        otherwise = None if first.otherwise is None else _jam([v.otherwise for v in versions])  # type: ignore
        return replace(first, then=_jam([v.then for v in versions]), otherwise=otherwise)  # type: ignore
    assert isinstance(first, Block)
    return Block(tuple(_jam([v.children[k] for v in versions])  # type: ignore[union-attr]
                       for k in range(len(first.children))))


def _rename_iterator(node: Node, iterator: str, value: ir.Expr) -> Node:
    if isinstance(node, StmtCall):
        return StmtCall(node.statement, tuple(ir.substitute(a, {iterator: value}) for a in node.args))
    if isinstance(node, For):
        return replace(node, body=_rename_iterator(node.body, iterator, value))
    if isinstance(node, If):
        otherwise = None if node.otherwise is None else _rename_iterator(node.otherwise, iterator, value)
        return replace(node, then=_rename_iterator(node.then, iterator, value), otherwise=otherwise)
    assert isinstance(node, Block)
    return Block(tuple(_rename_iterator(c, iterator, value) for c in node.children))


def _bind(expr: ir.Expr, stmt: Statement, call: StmtCall) -> ir.Expr:
    """A statement's subscript in terms of the loop AST's iterators."""
    from polyfuse.model.scop import isl_name

    values = {isl_name(v): a for v, a in zip(stmt.iterators, call.args)}
    values.update(zip(stmt.iterators, call.args))
    return ir.substitute(expr, values)


def _adds_only(expr: ir.Expr) -> bool:
    """``expr`` is loads, constants and scalars joined by ``+ - * min max`` (subscripts not
    looked into: they are integer address arithmetic)."""
    if isinstance(expr, ir.Load | ir.Const | ir.Var):
        return True
    return isinstance(expr, ir.BinOp) and expr.op in _CHAIN_OPS and _adds_only(expr.lhs) and _adds_only(expr.rhs)


def _uses(expr: ir.Expr, name: str) -> bool:
    return any(isinstance(e, ir.Var) and e.name == name for e in ir.walk(expr))


def _reads_free(stmt: Statement, iterator: str) -> bool:
    """Does ``stmt`` use the loop AST's ``iterator`` by name, not through its own iterators (a
    load hoisted out of an inner loop, ``passes.noop_versions._Hoist``: ``t = p[i, 1]`` with no
    iterators)?  Its copies would all read iteration ``i``'s element."""
    from polyfuse.model.scop import isl_name

    own = set(stmt.iterators) | {isl_name(v) for v in stmt.iterators}
    return iterator not in own and any(_uses(root, iterator) for root in (stmt.value, *stmt.index))


__all__ = ["INTERLEAVE", "Interleaving", "interleave_reductions"]
