"""Sums a sequential loop carries, privatised per chunk of its iterations (cpu, ``blas=True``).

A loop whose iterations pass values to one another only through ``+=`` updates of an
accumulator that the loop does not move (atax, bicg: ``y[j] += A[i, j] * t[i]`` over rows ``i``;
mvt's fused ``x2``) is sequential, so it runs on one thread::

    for i in range(lo, hi):                     # carries y (isl), nothing else
        t[i] = 0.0
        for j in range(n): t[i] += A[i, j] * x[j]
        for j in range(n): y[j] += A[i, j] * t[i]

This pass runs it in chunks of consecutive iterations on the thread team, each chunk summing into
its own partial copy of the accumulator (a kernel-local array), and then adds the partials into
the accumulator in chunk order::

    for c in range(chunks):                     # parallel
        for j in range(n): y_part[c, j] = -0.0
        for i in range(lo + c * rows, min(lo + (c + 1) * rows, hi)):
            t[i] = 0.0
            for j in range(n): t[i] += A[i, j] * x[j]
            for j in range(n): y_part[c, j] += A[i, j] * t[i]
    for j in range(n):                          # parallel
        for c in range(chunks): y[j] = y[j] + y_part[c, j]
    (the loop as written, which runs instead below 2 * MIN_ROWS iterations)

``rows = max(MIN_ROWS, ceil(N / CHUNKS))``, rounded up to a multiple of the rows passes.interleave
runs side by side (8 float64 rows with AVX-512), and ``chunks = ceil(N / rows)`` depend on the trip
count ``N`` only, never on the number of threads, so the result is the same on 1, 2 or 3 threads
and from call to call.  It is not the loop's result bit for bit: each element gets the sum of its
terms chunk by chunk, ``y0 + (t_0 + ... + t_r) + (t_r+1 + ...)``, instead of ``((y0 + t_0) +
t_1) + ...``, the reassociation BLAS makes in every matrix product.  So the pass runs only where
user-written products may go to BLAS (``Options.blas``, the default; ``blas=False`` keeps every
sum in the order written).  Partials start at ``-0.0``, the identity of IEEE addition
(``x + -0.0 == x`` for every ``x``, ``+0.0`` included): an element no iteration of a chunk
updates adds nothing, and a chunk's first term enters its partial exactly.

When it is legal (``Privatizer.accumulators``):

1. the loop is a top-level sequential loop (a nest's outer loop: its chunks are one parallel
   phase) stepping by 1, and isl's dependences say which arrays it carries (``For.carried``,
   recorded by passes.astgen for loops around a ``+=`` update);
2. every array it carries is an *accumulator*: a float array or scalar that every statement call
   in the loop touching it updates as ``acc[s] = acc[s] + e`` (or ``e + acc[s]``) with ``e`` not
   reading ``acc`` and multiplying an element of a matrix (rank >= 2) by something: the terms of
   a product, which ``blas=True`` already lets BLAS reassociate (a plain sum ``s += x[i]`` or
   ``y[j] += A[i, j]`` keeps the order written); no other statement reads or writes it, no bound
   or condition reads what the loop writes; each subscript of ``s`` is either an inner loop's iterator, bare (the loops it
   names are *kept*: the partials are zeroed and added over them), or free of the loop's and the
   inner loops' iterators; the kept loops' bounds use neither those iterators.  Each such call
   gets its own partial (isl's AST may split one statement over several loops: mvt's ``x2``);
3. the kernel-local arrays whose false dependences alone the loop carries (a per-row scalar)
   become private to the chunk loop, as for any parallel loop.

Inside the chunks each row's own sums (``t[i] += A[i, j] * x[j]`` over ``j``, the accumulator
held still by the inner loop) become reassociable too (``ir.BinOp.reassoc``): LLVM keeps them in
vector partial sums (passes.blocked_sums in blocks), and passes.interleave still runs 8 rows side
by side, so a row's terms are loaded as vectors instead of one element of each of 8 rows at a time.

So the chunks touch disjoint data apart from what they only read, each element of an accumulator
gets every one of its terms exactly once, and nothing inside the loop sees an accumulator's
partial value.  A ``y[i + j]`` subscript (it moves with the loop), a second statement reading
``y`` in the loop, ``y[j] = y[j] * e`` or ``y[j] = max(y[j], e)`` leave the loop as it is;
explain() says why (``PrivateSum.applied`` False, ``reason``).  Inner loops are never chunked:
a loop nested in another runs its chunks on the team once per outer iteration (mvt's rows'
dot products would each have been a team run).

The partials take ``CHUNKS`` copies of each accumulator; an accumulator of more than
``MAX_ELEMENTS`` elements keeps the loop as written (its partials are then not allocated).
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
)
from polyfuse.model.scop import ArrayInfo, Statement, added_term, isl_name

#: The most chunks a loop is cut into (a partial copy of each accumulator per chunk).  16 keep 2
#: and 4 threads at even work, 3 at 6/5/5 chunks, and the partials' traffic (zeroed, then read
#: once more) within a few percent of a matrix-vector product's: on one thread atax, bicg and mvt
#: at the bench sizes ran 2-6% slower than the loop as written with 8 chunks, 4-13% with 16 and
#: 32 (load 6-7 on 2 cores: noisy; docs/performance.md).
CHUNKS = 16
#: The fewest iterations a chunk gets, so that a chunk's partial stays small next to what its
#: rows read when a row reads as much as the accumulator holds (a matrix-vector product).
MIN_ROWS = 32
#: Accumulators larger than this many elements keep their loop (CHUNKS copies: 16 MiB of float64).
MAX_ELEMENTS = 1 << 17
_FLOATS = ("float32", "float64")
_ITEMSIZE = {"float32": 4, "float64": 8}


@dataclass(frozen=True)
class PrivateSum:
    """A sequential loop whose carried sums were (or were not) privatised, for ``explain()``."""

    loop: str  # iterator of the sequential loop
    applied: bool
    accumulators: tuple[str, ...]  # what the loop carries through += updates
    partials: tuple[str, ...]  # the kernel-local partial sums, one per accumulator (applied)
    private: tuple[str, ...]  # kernel-local arrays each chunk gets its own copy of
    reason: str
    # the rows' own sums (``t[i] += A[i, j] * x[j]`` over ``j``) now in vector partial sums
    row_sums: tuple[str, ...] = ()
    # each chunk's row count is a multiple of this: the rows passes.interleave runs side by side
    rows_multiple: int = 1


def privatize_sums(program: LoopProgram, *, lane_bytes: int = 0) -> tuple[LoopProgram, tuple[PrivateSum, ...]]:
    """``program`` with every eligible sequential loop run in chunks with partial sums (see the
    module docstring); unchanged when none qualifies.  ``lane_bytes``: the vector width with
    which passes.interleave will jam the chunks' rows (0: not jammed); each chunk's row count is
    then a multiple of the rows jammed (``lane_bytes // itemsize``)."""
    edit = Privatizer(program, lane_bytes)
    root = Block(tuple(n for child in _children(program.root) for n in edit.top(child)))
    if not any(d.applied for d in edit.decisions):
        return program, tuple(edit.decisions)
    return edit.program_with(root), tuple(edit.decisions)


@dataclass(frozen=True)
class _Accumulator:
    """One accumulator of a loop: its update call, the update's subscripts in the loop AST's
    iterators, and the inner loops the partials are zeroed and added over."""

    array: str
    call: StmtCall
    subscripts: tuple[ir.Expr, ...]
    kept: tuple[For, ...]


class Privatizer(ProgramEdit):
    def __init__(self, program: LoopProgram, lane_bytes: int = 0) -> None:
        super().__init__(program)
        self.lane_bytes = lane_bytes
        self.decisions: list[PrivateSum] = []
        self.row_sums: list[str] = []  # the chunk loop being made: its rows' reassociated sums

    # ---- the walk: top-level loops (a nest's outer loop: one phase of its own) -----------------
    def top(self, node: Node) -> tuple[Node, ...]:
        """A top-level node, or the loops its chunked form is made of."""
        if isinstance(node, For) and not node.parallel and node.carried is not None and node.carried.arrays:
            chunked = self.chunked(node)
            if chunked is not None:
                return chunked
        return (node,)

    # ---- legality --------------------------------------------------------------------------
    def accumulators(self, loop: For) -> tuple[list[_Accumulator], str]:
        """One record per update of an array the loop carries, or ``([], why not)``."""
        carried = loop.carried
        assert carried is not None
        if loop.step != 1 or exclusive_bound(loop) is None:
            return [], "its step or bound is not a plain range"
        calls = list(calls_with_loops(loop.body, ()))
        if any(self.program.statement(c.statement).region is not None for c, _ in calls):
            return [], "it holds a loop kept as written"
        written = {self.program.statement(c.statement).array for c, _ in calls}
        found: list[_Accumulator] = []
        for array in carried.arrays:
            info = self.infos.get(array)
            if info is None or info.dtype not in _FLOATS:
                return [], f"it carries {array}, not a float array"
            if any(isinstance(e, ir.Load) and e.array in written for h in _headers(loop.body) for e in ir.walk(h)):
                return [], "a bound or condition in it reads what it writes"
            for call, around in calls:
                if array in self.touched(call):
                    acc = self.update_of(loop, array, call, around)
                    if isinstance(acc, str):
                        return [], acc
                    found.append(acc)
        return found, ""

    def update_of(self, loop: For, array: str, call: StmtCall, around: tuple[For, ...]) -> _Accumulator | str:
        """``call`` as a ``+=`` update of ``array`` the loop may privatise, or why not."""
        stmt = self.program.statement(call.statement)
        term = added_term(stmt)
        if stmt.array != array or term is None or any(
                isinstance(e, ir.Load) for i in stmt.index for e in ir.walk(i)):
            return f"it carries {array}, which {stmt.name} ({stmt.source_line}) touches, not as a += update of it"
        if not self.product_term(term):
            return (f"{stmt.name} ({stmt.source_line}) adds no matrix element times a value into {array}: "
                    "a plain sum keeps the order written (only products may reassociate, as on BLAS)")
        inner = {f.iterator for f in around}
        subscripts = tuple(_bind(e, stmt, call) for e in stmt.index)
        for e in subscripts:
            used = _variables(e)
            if loop.iterator in used or (used & inner and not (isinstance(e, ir.Var) and e.name in inner)):
                return f"{stmt.name} updates {array} at a subscript that moves with the loop ({stmt.source_line})"
        kept_names = [e.name for e in subscripts if isinstance(e, ir.Var) and e.name in inner]
        if len(set(kept_names)) != len(kept_names):
            return f"{stmt.name} updates {array} at a repeated iterator"
        kept = tuple(f for f in around if f.iterator in kept_names)
        dropped = inner - set(kept_names)
        for f in kept:
            if any(loop.iterator in _variables(h) or _variables(h) & dropped for h in (f.init, f.cond)):
                return f"the loop around {stmt.name}'s update of {array} changes with the loop"
        return _Accumulator(array, call, subscripts, kept)

    def product_term(self, term: ir.Expr) -> bool:
        """Whether ``term`` multiplies an element of a matrix (an array of rank 2 or more): the
        terms of a matrix-vector product, which ``blas=True`` lets BLAS reassociate anyway."""
        for e in ir.walk(term):
            if isinstance(e, ir.BinOp) and e.op == "*":
                for side in (e.lhs, e.rhs):
                    info = self.infos.get(side.array) if isinstance(side, ir.Load) else None
                    if info is not None and info.rank >= 2:
                        return True
        return False

    def touched(self, call: StmtCall) -> set[str]:
        stmt = self.program.statement(call.statement)
        return {stmt.array} | stmt.sources()

    # ---- the transformation ----------------------------------------------------------------
    def chunked(self, loop: For) -> tuple[Node, ...] | None:
        """The loop in chunks with partial sums, then the partials added, then the loop as written
        for small trip counts; None (and a record) when it does not qualify."""
        carried = loop.carried
        assert carried is not None
        accs, why = self.accumulators(loop)
        if not accs:
            self.decisions.append(PrivateSum(loop.iterator, False, carried.arrays, (), (), f"kept: {why}"))
            return None
        hi, lo = exclusive_bound(loop), loop.init
        assert hi is not None
        count = _int("-", hi, lo)
        rows = _int("max", ir.int_const(MIN_ROWS), _ceil_div(count, ir.int_const(CHUNKS)))
        jammed = self.jammed_rows(accs)
        if jammed > 1:
            rows = _int("*", _ceil_div(rows, ir.int_const(jammed)), ir.int_const(jammed))
        small = [_int("<=", _elements(self.infos[a.array]), ir.int_const(MAX_ELEMENTS)) for a in accs]
        guard = ir.BoolOp("and", (ir.Compare(">=", count, ir.int_const(2 * MIN_ROWS)), *dict.fromkeys(small)))
        chunks = ir.Select(guard, _ceil_div(count, rows), ir.int_const(0), ir.INT, True)
        chunk = self.fresh(f"{loop.iterator}_chunk")
        chunk_var = ir.Var(chunk, ir.INT)
        partials = [self.partial(a, ok) for a, ok in zip(accs, small)]
        first = _int("+", lo, _int("*", chunk_var, rows))
        stop = _int("min", _int("+", first, rows), hi)
        self.row_sums = []
        rows_loop = replace(loop, init=first, cond=ir.Compare("<", ir.Var(loop.iterator, ir.INT), stop),
                            body=self.retarget(loop.body, accs, partials, chunk_var), carried=None)
        zeros = tuple(self.zero(a, p, chunk_var) for a, p in zip(accs, partials))
        names = tuple(dict.fromkeys(a.array for a in accs))
        why = (f"its iterations pass values only through += updates of {', '.join(names)} "
               f"(isl: no other dependence is carried), each summed per chunk into its own partial")
        # a kernel-local array (a per-row scalar) whose false dependences alone join the
        # iterations gets a copy per chunk, as in any parallel loop
        written = {self.program.statement(c.statement).array for c, _ in calls_with_loops(loop.body, ())}
        private = tuple(a for a in carried.private if a in written and a not in names)
        chunk_loop = For(chunk, ir.int_const(0), ir.Compare("<", chunk_var, chunks), 1,
                         Block((*zeros, rows_loop)), parallel=True, private=private, why_parallel=why)
        combines = tuple(self.combine(a, p, chunks) for a, p in zip(accs, partials))
        multiple = f" (a multiple of {jammed}: the rows run side by side)" if jammed > 1 else ""
        self.decisions.append(PrivateSum(loop.iterator, True, tuple(a.array for a in accs),
                                         tuple(p.name for p in partials), private,
                                         f"{why}; at most {CHUNKS} chunks of >= {MIN_ROWS} iterations{multiple}, "
                                         f"added in chunk order (as the loop below {2 * MIN_ROWS})",
                                         tuple(self.row_sums), jammed))
        # the bounds carry the choice (not an ``if``), so each loop stays a phase of its own
        original = replace(loop, cond=ir.Compare("<", ir.Var(loop.iterator, ir.INT),
                                                 ir.Select(guard, lo, hi, ir.INT, True)), carried=None)
        return (chunk_loop, *combines, original)

    def jammed_rows(self, accs: list[_Accumulator]) -> int:
        """How many rows passes.interleave will run side by side in the chunks (one vector of
        lanes of the widest accumulator's dtype), so that whole chunks hold whole groups: at
        atax's 1900 rows, chunks of 119 left 7 rows each to run one at a time, each adding its
        row into the partial on its own (120: the last chunk alone has a rest)."""
        itemsize = max(_ITEMSIZE.get(self.infos[a.array].dtype, 8) for a in accs)
        return self.lane_bytes // itemsize if self.lane_bytes >= 2 * itemsize else 1

    def partial(self, acc: _Accumulator, small: ir.Expr) -> ArrayInfo:
        info = self.infos[acc.array]
        extent = ir.Select(small, ir.int_const(CHUNKS), ir.int_const(0), ir.INT, True)
        return self.add_array(ArrayInfo(self.fresh(f"{acc.array}_part"), info.dtype, (extent, *info.shape), "local"))

    def retarget(self, node: Node, accs: list[_Accumulator], partials: list[ArrayInfo], chunk: ir.Var,
                 inner: For | None = None) -> Node:
        """``node`` with each accumulator's update summing into its chunk's partial (``inner``:
        the innermost loop around ``node`` inside the chunk's rows)."""
        if isinstance(node, StmtCall):
            for acc, part in zip(accs, partials):
                if node is acc.call:
                    return StmtCall(self.update(acc, part).name, node.args + (chunk,))
            if inner is not None:
                return self.reassociated(node, inner)
            return node
        if isinstance(node, For):
            return replace(node, body=self.retarget(node.body, accs, partials, chunk, node))
        if isinstance(node, If):
            otherwise = None if node.otherwise is None else self.retarget(node.otherwise, accs, partials, chunk, inner)
            return replace(node, then=self.retarget(node.then, accs, partials, chunk, inner), otherwise=otherwise)
        assert isinstance(node, Block)
        return Block(tuple(self.retarget(c, accs, partials, chunk, inner) for c in node.children))

    def reassociated(self, call: StmtCall, inner: For) -> StmtCall:
        """A row's own sum (``t[i] += A[i, j] * x[j]`` over its innermost loop ``j``, ``t[i]``
        held still there) as one LLVM may keep in vector partial sums (``ir.BinOp.reassoc``, as
        NumPy's sums; passes.blocked_sums then sums it in blocks): in order, each row's terms
        were loaded one element of 8 rows at a time.  The chunked loop's sums reassociate
        already, under the same ``blas=True``."""
        stmt = self.program.statement(call.statement)
        term = added_term(stmt)
        if term is None or stmt.reassociable:
            return call
        if any(inner.iterator in _variables(_bind(e, stmt, call)) for e in stmt.index):
            return call
        assert isinstance(stmt.value, ir.BinOp)
        value = ir.BinOp("+", ir.Load(stmt.array, stmt.index, stmt.value.dtype), term, stmt.value.dtype,
                         stmt.value.weak, reassoc=True)
        made = self.add_statement(replace(stmt, name=self.fresh(f"{stmt.name}_sum"), value=value))
        self.row_sums.append(made.name)
        return StmtCall(made.name, call.args)

    def update(self, acc: _Accumulator, part: ArrayInfo) -> Statement:
        stmt = self.program.statement(acc.call.statement)
        slot = self.fresh("_chunk")
        while slot in stmt.iterators or isl_name(slot) in stmt.iterators:
            slot = self.fresh("_chunk")
        index = (ir.Var(slot, ir.INT), *stmt.index)
        value = ir.map_loads(stmt.value, lambda ld: replace(ld, array=part.name, index=index)
                             if ld.array == acc.array else ld)
        return self._statement(stmt, f"{stmt.name}_part", stmt.iterators + (slot,), part.name, index, value)

    def zero(self, acc: _Accumulator, part: ArrayInfo, chunk: ir.Var) -> Node:
        """``part[c, s] = -0.0`` over the kept loops."""
        stmt = self.program.statement(acc.call.statement)
        names = (chunk.name, *self.free(acc))
        index = (chunk, *acc.subscripts)
        made = self._statement(stmt, f"{stmt.name}_zero", names, part.name, index, ir.Const(-0.0, part.dtype, False))
        call: Node = StmtCall(made.name, tuple(ir.Var(n, ir.INT) for n in names))
        for f in reversed(acc.kept):
            call = For(f.iterator, f.init, f.cond, f.step, call, parallel=True)
        return call

    def combine(self, acc: _Accumulator, part: ArrayInfo, chunks: ir.Expr) -> Node:
        """``for s (parallel): for c: acc[s] = acc[s] + part[c, s]``, chunks in order."""
        stmt = self.program.statement(acc.call.statement)
        chunk = ir.Var(self.fresh("_chunk"), ir.INT)
        names = (chunk.name, *self.free(acc))
        dtype = self.infos[acc.array].dtype
        value = ir.BinOp("+", ir.Load(acc.array, acc.subscripts, dtype),
                         ir.Load(part.name, (chunk, *acc.subscripts), dtype), dtype)
        made = self._statement(stmt, f"{stmt.name}_combine", names, acc.array, acc.subscripts, value)
        node: Node = For(chunk.name, ir.int_const(0), ir.Compare("<", chunk, chunks), 1,
                         StmtCall(made.name, tuple(ir.Var(n, ir.INT) for n in names)))
        for f in reversed(acc.kept):
            node = For(f.iterator, f.init, f.cond, f.step, node, parallel=True,
                       why_parallel="each iteration adds the partials of its own elements")
        return node

    def free(self, acc: _Accumulator) -> tuple[str, ...]:
        """The loop iterators the accumulator's subscripts use (kept and outer loops')."""
        params = set(self.program.params)
        return tuple(sorted({v for e in acc.subscripts for v in _variables(e)} - params))

    def _statement(self, template: Statement, stem: str, iterators: tuple[str, ...], array: str,
                   index: tuple[ir.Expr, ...], value: ir.Expr) -> Statement:
        text = f"{array}[{', '.join(ir.to_python(i) for i in index)}] = {ir.to_python(value)}"
        return self.add_statement(replace(template, name=self.fresh(stem), iterators=iterators, array=array,
                                          index=index, value=value, span=replace(template.span, text=text)))


def _children(root: Node) -> tuple[Node, ...]:
    return root.children if isinstance(root, Block) else (root,)


def _headers(node: Node):
    """Every loop bound and condition below ``node``."""
    for below in nodes(node):
        if isinstance(below, For):
            yield below.init
            yield below.cond
        elif isinstance(below, If):
            yield below.cond


def _bind(expr: ir.Expr, stmt: Statement, call: StmtCall) -> ir.Expr:
    """A statement's subscript in terms of the loop AST's iterators."""
    values = {isl_name(v): a for v, a in zip(stmt.iterators, call.args)}
    values.update(zip(stmt.iterators, call.args))
    return ir.substitute(expr, values)


def _variables(expr: ir.Expr) -> set[str]:
    return {e.name for e in ir.walk(expr) if isinstance(e, ir.Var)}


def _int(op: str, lhs: ir.Expr, rhs: ir.Expr) -> ir.Expr:
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return ir.Compare(op, lhs, rhs)
    zero, one = ir.int_const(0), ir.int_const(1)
    if (op in ("+", "-") and rhs == zero) or (op == "*" and rhs == one):
        return lhs
    if (op == "+" and lhs == zero) or (op == "*" and lhs == one):
        return rhs
    return ir.BinOp(op, lhs, rhs, ir.INT, True)


def _ceil_div(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return _int("//", _int("-", _int("+", a, b), ir.int_const(1)), b)


def _elements(info: ArrayInfo) -> ir.Expr:
    count: ir.Expr = ir.int_const(1)
    for extent in info.shape:
        count = _int("*", count, extent)
    return count


__all__ = ["CHUNKS", "MAX_ELEMENTS", "MIN_ROWS", "PrivateSum", "privatize_sums"]
