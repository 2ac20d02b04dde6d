"""Packed row panels: a parallel loop of dot products down strided rows, run as a register tile.

Cholesky's left-looking update, blocked by ``outer_parallelism.pivot_blocked``, is a nest of this
shape (read off the loops and statements, no kernel names)::

    for j in J:                              # any loop; here a block of columns
        for i in range(ilo, ihi):            # parallel; bounds do not depend on j
            <calls before>
            for k in range(klo, j):          # one statement: X[i, j] = f(X[i, j], X[i, k], ...)
                S(i, j, k)
            <calls after>

Each row ``i`` is one chain of dependent operations down ``k``; without this pass
``passes.interleave`` runs 8 rows side by side, whose loads ``X[i..i+7, k]`` lie a row apart, one
scalar load each, and whose accumulators ``X[i, j]`` go through memory every ``k`` (LLVM cannot
tell them from the other loads of ``X``): ~0.42 ns per multiply-add at n = 2000.  This pass rewrites the nest as::

    if J is not empty:                       # a transposed copy of the rows' columns before J's first
        for k in range(klo, min(j0, s2)): for i in range(ilo, ihi): P[k, i] = X[i, k]
    for j in J:
        for g in range(ilo, ihi, W):         # parallel; W rows at once
            if g + W <= ihi:
                <calls before, row by row>
                a_c = X[g + c, j]                                  (c = 0 .. W-1, local scalars)
                for k in range(klo, min(j, s2)): a_c = f(a_c, P[k, g + c], ...)   (c = 0 .. W-1)
                for k in range(max(klo, min(j, s2)), j): a_c = f(a_c, X[g + c, k], ...)
                X[g + c, j] = a_c
                <calls after, row by row>
            else: the rows g .. ihi - 1 as before (parallel: passes.interleave takes them)
        if klo <= j < min(last j, s2):       # column j is done: later chains read it
            for i in range(ilo, ihi): P[j, i] = X[i, j]

The second ``k`` loop is left out where isl proves that it never runs (``_panel_only``: every
``j`` of ``J`` at most ``s2``, as in cholesky).  ``P[k, g .. g + W - 1]`` is contiguous: the ``W`` chains are ``W / 8`` vector operations per
``k`` with their accumulators in registers, instead of ``W`` scalar ones with a load and a store.
``P[k, i]`` is stored at ``ilo * X.shape[1] + (k - klo) * (ihi - ilo) + (i - ilo)`` of a flat
array of ``X``'s size: each iteration of a parallel loop around ``J`` has its rows' part, and a
column of its rows is one short contiguous run (a 32-row tile's panel at n = 2000: 500 KB in
L2, not 2000 pages 16 KB apart).

Why it computes the same values in the same order (bit for bit, whatever the values):

- **Rows side by side**: the ``i`` loop is parallel (no dependence joins two of its iterations)
  and ``k``'s bounds do not depend on ``i``, so any interleaving of whole iterations that keeps
  each row's own order is allowed (``passes.interleave``'s argument); each row still runs its
  calls before, its ``k`` chain in ascending ``k``, its calls after.
- **Accumulators in registers**: ``X[i, j]`` is the statement's own element (its write and one
  read, the same subscripts ``(i, j)``); every other load of ``X`` in the chain has column ``k``,
  and ``k < j`` in the loop (its bound is ``j``), so no other access of the chain reads or writes
  it.  Other rows' accesses do not touch it (parallel loop).
- **The copy**: every column a statement of ``J``'s body writes in ``X`` must be ``j`` itself
  (written in iteration ``j`` only) or the iterator of a loop inside ``J``, bounded below by that
  loop's start; ``s2`` is the least of those starts (anything else refuses the nest).  So
  ``X[i, k]`` for ``k < min(j0, s2)`` does not change during ``J`` (copied before it), and column
  ``k`` with ``j0 <= k < s2`` does not change after iteration ``k`` (copied at its end): the
  chain at ``j`` reads from ``P`` exactly the values the original reads.  Every copied element is
  one a later chain reads (``klo <= k < j``), so the copies read nothing the original does not
  (no race with other threads' rows), and two iterations of a parallel loop around ``J`` own
  distinct rows: a row ``i`` in both would have both write ``X[i, j]``.

``P`` is shared by the threads (each its own rows' part).  ``W`` is
``POLYFUSE_PACKED_ROWS`` (default 32: four AVX-512 vectors of float64 in flight, which covers the
add latency); 0 turns the pass off.  Runs before ``passes.interleave``, which then leaves these
nests alone (their ``if`` depends on ``g``) and interleaves the rest as before.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

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
)
from polyfuse.model.scop import ArrayInfo, Statement, isl_affine_text, isl_name

#: at most this many rows at once (statement copies: compile time)
MAX_ROWS = 64


@dataclass(frozen=True)
class PackedRows:
    """One rewritten row loop, for ``explain()``."""

    loop: str  # the parallel row loop
    outer: str  # the loop before which the panel is copied
    reduction: str  # the statement of the k chain
    array: str
    panel: str  # the transposed copy
    rows: int
    split_at: str  # s: the chain reads the copy below it
    reason: str


def pack_rows(program: LoopProgram, *, rows: int,
              rest_loops: bool = False) -> tuple[LoopProgram, tuple[PackedRows, ...]]:
    """``program`` with every nest of the module docstring's shape rewritten (``rest_loops``: the
    chains' second loops kept where they never run, ``POLYFUSE_PACKED_REST_LOOPS``)."""
    if rows < 2 or rows > MAX_ROWS:
        return program, ()
    edit = ProgramEdit(program)
    decisions: list[PackedRows] = []

    def visit(node: Node, around: tuple[For, ...]) -> tuple[Node, tuple[str, ...]]:
        """The rewritten node (inside the loops ``around``) and the local scalars made below it
        (to privatise above)."""
        if isinstance(node, Block):
            made: tuple[str, ...] = ()
            children = []
            for c in node.children:
                new, names = visit(c, around)
                children.append(new)
                made += names
            return Block(tuple(children)), made
        if isinstance(node, If):
            then, a = visit(node.then, around)
            otherwise, b = (None, ()) if node.otherwise is None else visit(node.otherwise, around)
            return replace(node, then=then, otherwise=otherwise), a + b
        if isinstance(node, For):
            done = _rewrite(edit, node, rows, around, rest_loops)
            if done is not None:
                new_node, record, names = done
                decisions.append(record)
                return new_node, names
            body, names = visit(node.body, around + (node,))
            if node.parallel and names:
                return replace(node, body=body, private=node.private + names), names
            return replace(node, body=body), names
        return node, ()

    root, _ = visit(program.root, ())
    if not decisions:
        return program, ()
    new = edit.program_with(root)
    # the rows' chains run from L1/L2 in vectors: their phases prefer wide vectors (backends/cpu/llvm.py)
    made = frozenset(s.name for s in edit.statements)
    return replace(new, cache_blocked=new.cache_blocked | made, packed_rows=new.packed_rows | made), tuple(decisions)


# ---- helpers ---------------------------------------------------------------------------------------

def _vars(expr: ir.Expr) -> set[str]:
    return {e.name for e in ir.walk(expr) if isinstance(e, ir.Var)}


def _is_var(expr: ir.Expr, name: str) -> bool:
    return isinstance(expr, ir.Var) and expr.name == name


def _children(node: Node) -> tuple[Node, ...]:
    """The nodes of a body, nested blocks flattened."""
    if isinstance(node, Block):
        return tuple(n for c in node.children for n in _children(c))
    return (node,)


def _loop(name: str, lo: ir.Expr, hi: ir.Expr, body: Node, step: int = 1) -> For:
    return For(name, lo, ir.Compare("<", ir.Var(name, ir.INT), hi), step, body)


def _bound(stmt: Statement, call: StmtCall, expr: ir.Expr) -> ir.Expr:
    """``expr`` (in the statement's iterators) in the loop iterators of ``call``."""
    return ir.substitute(expr, dict(zip(stmt.iterators, call.args)))


def _loads(expr: ir.Expr) -> list[ir.Load]:
    return [e for e in ir.walk(expr) if isinstance(e, ir.Load)]


@dataclass(frozen=True)
class _Nest:
    j: For
    i: For
    k: For
    call: StmtCall  # the chain's statement call
    before: tuple[StmtCall, ...]
    after: tuple[StmtCall, ...]
    array: ArrayInfo
    packed: ir.Load  # the load X[i, k] (in the statement's iterators)
    own: ir.Load  # the load X[i, j]
    others: ir.Expr | None  # s2: the least column written other than j (None: no other)


def _shape(program: LoopProgram, j: For) -> _Nest | None:
    """The nest when ``j`` and the row loop in its body have the module docstring's shape."""
    if j.step != 1 or exclusive_bound(j) is None:
        return None
    rows = [c for c in _children(j.body) if isinstance(c, For) and c.parallel]
    if len(rows) != 1:
        return None
    i = rows[0]
    i_hi = exclusive_bound(i)
    if i.step != 1 or i_hi is None or i.private or j.iterator in _vars(i.init) | _vars(i_hi):
        return None  # (a private local: rows side by side would share it)
    chains = [c for c in _children(i.body) if isinstance(c, For)]
    if len(chains) != 1 or any(not isinstance(c, (For, StmtCall)) for c in _children(i.body)):
        return None
    k = chains[0]
    k_hi = exclusive_bound(k)
    if k.step != 1 or not isinstance(k.body, StmtCall) or k_hi is None or not _is_var(k_hi, j.iterator):
        return None
    if {i.iterator, k.iterator} & _vars(k.init) or j.iterator in _vars(k.init):
        return None
    position = _children(i.body).index(k)
    before = tuple(c for c in _children(i.body)[:position] if isinstance(c, StmtCall))
    after = tuple(c for c in _children(i.body)[position + 1:] if isinstance(c, StmtCall))
    call = k.body
    for c in before + after:
        s = program.statement(c.statement)
        if s.region is not None or any(a.is_scalar for a in program.arrays if a.name == s.array):
            return None
    stmt = program.statement(call.statement)
    infos = {a.name: a for a in program.arrays}
    info = infos.get(stmt.array)
    if stmt.region is not None or info is None or info.rank != 2 or info.is_scalar:
        return None
    iv, jv, kv = i.iterator, j.iterator, k.iterator
    written = tuple(_bound(stmt, call, x) for x in stmt.index)
    if not (_is_var(written[0], iv) and _is_var(written[1], jv)):
        return None
    for e in ir.walk(stmt.value):
        if isinstance(e, (ir.Index, ir.Call)) or (isinstance(e, ir.BinOp) and e.reassoc):
            return None
    own, packed = [], []
    for load in _loads(stmt.value):
        if any(_loads(x) for x in load.index):
            return None
        if load.array != info.name:
            if infos.get(load.array) is not None and infos[load.array].kind == "local":
                return None  # a local read in the chain: kept simple
            continue
        at = tuple(_bound(stmt, call, x) for x in load.index)
        if at == written:
            own.append(load)
        elif not _is_var(at[1], kv):
            return None  # every other load of X in the chain reads column k (< j: never X[i, j])
        elif _is_var(at[0], iv):
            packed.append(load)
    if len(own) != 1 or not packed or any(p != packed[0] for p in packed):
        return None
    # the least column J's body writes in X
    lows: list[ir.Expr] = []
    inner = {n.iterator for _, loops in calls_with_loops(j.body) for n in loops}
    for c, loops in calls_with_loops(j.body):
        s = program.statement(c.statement)
        if s.region is not None:
            if info.name in s.targets:
                return None
            continue
        if s.array != info.name:
            continue
        column = _bound(s, c, s.index[1])
        if _is_var(column, jv):
            continue  # column j, in iteration j only
        elif isinstance(column, ir.Var) and any(n.iterator == column.name for n in loops):
            around = [n for n in loops if n.iterator == column.name][-1]  # the loop that binds it here
            if _vars(around.init) & (inner | {jv}) or around.step <= 0:
                return None
            lows.append(around.init)
        else:
            return None
    others: ir.Expr | None = None
    for low in lows:
        others = low if others is None or low == others else ir.int_min(others, low)
    return _Nest(j, i, k, call, before, after, info, packed[0], own[0], others)


def _rewrite(edit: ProgramEdit, j: For, width: int, around: tuple[For, ...],
             rest_loops: bool) -> tuple[Node, PackedRows, tuple[str, ...]] | None:
    nest = _shape(edit.program, j)
    if nest is None:
        return None
    i, k, call, info = nest.i, nest.k, nest.call, nest.array
    iv, kv = i.iterator, k.iterator
    i_hi, j_hi = exclusive_bound(i), exclusive_bound(j)
    assert i_hi is not None and j_hi is not None
    stmt = edit.program.statement(call.statement)
    # the panel: row i, column k at P[base + k * width + i], base = ilo * X.shape[1] - klo * width -
    # ilo, width = ihi - ilo: each parallel iteration's rows [ilo, ihi) in their own part
    # [ilo * X.shape[1], ihi * X.shape[1]) (klo <= k < X.shape[1]), each column's rows contiguous
    panel = edit.add_array(ArrayInfo(edit.fresh(f"_pk_{info.name}"), info.dtype,
                                     (ir.BinOp("*", info.shape[0], info.shape[1], ir.INT, True),), "local"))
    pk, pi, pb, pw = (edit.fresh(x) for x in ("_pk_k", "_pk_i", "_pk_base", "_pk_width"))
    vpk, vpi, vpb, vpw = (ir.Var(x, ir.INT) for x in (pk, pi, pb, pw))
    rows_wide = ir.BinOp("-", i_hi, i.init, ir.INT, True)
    base = ir.BinOp("-", ir.BinOp("-", ir.BinOp("*", i.init, info.shape[1], ir.INT, True),
                                  ir.BinOp("*", k.init, rows_wide, ir.INT, True), ir.INT, True), i.init, ir.INT, True)

    def slot(kx: ir.Expr, ix: ir.Expr) -> tuple[ir.Expr]:
        return (ir.int_add(ir.int_add(vpb, ir.BinOp("*", kx, vpw, ir.INT, True)), ix),)
    # the copy, before J
    copy = edit.add_statement(replace(
        stmt, name=edit.fresh(f"{stmt.name}_pack"), iterators=(pk, pi, pb, pw), array=panel.name,
        index=slot(vpk, vpi), value=ir.Load(info.name, (vpi, vpk), info.dtype), region=None))
    vj = ir.Var(j.iterator, ir.INT)
    first = j.init if nest.others is None else ir.int_min(j.init, nest.others)  # columns before J's first
    split = vj if nest.others is None else ir.int_min(vj, nest.others)  # the chain at j reads the copy below
    packing = If(ir.Compare("<", j.init, j_hi),
                 _loop(pk, k.init, first, _loop(pi, i.init, i_hi, StmtCall(copy.name, (vpk, vpi, base, rows_wide)))))
    # ... and column j once iteration j is over, when a later iteration's chain reads it
    last = ir.BinOp("-", j_hi, ir.int_const(1), ir.INT, True)
    column_done = ir.BoolOp("and", (ir.Compare("<=", k.init, vj),
                                    ir.Compare("<", vj, last if nest.others is None else ir.int_min(last, nest.others))))
    column = If(column_done, _loop(pi, i.init, i_hi, StmtCall(copy.name, (vj, vpi, base, rows_wide))))
    # the rows, W at once
    g = edit.fresh("_pk_g")
    vg = ir.Var(g, ir.INT)
    accs = tuple(edit.add_array(ArrayInfo(edit.fresh(f"_pk_acc{c}"), info.dtype, (), "local")).name
                 for c in range(width))

    def row(c: int) -> dict[str, ir.Expr]:
        return {iv: ir.int_add(vg, ir.int_const(c)) if c else vg}

    def at(node_call: StmtCall, c: int) -> StmtCall:
        return StmtCall(node_call.statement, tuple(ir.substitute(a, row(c)) for a in node_call.args))

    def chain(c: int, from_panel: bool) -> str:
        acc = accs[c]

        def swap(load: ir.Load) -> ir.Expr:
            if load == nest.own:
                return ir.Load(acc, (), load.dtype)
            if from_panel and load == nest.packed:
                return ir.Load(panel.name, slot(load.index[1], load.index[0]), load.dtype)
            return load
        made = edit.add_statement(replace(stmt, name=edit.fresh(f"{stmt.name}_{'p' if from_panel else 'r'}{c}"),
                                          iterators=stmt.iterators + ((pb, pw) if from_panel else ()),
                                          array=acc, index=(), value=ir.map_loads(stmt.value, swap)))
        return made.name

    reads_rows = rest_loops or not _panel_only(around, j, nest.others)  # (the second k loop)
    loads, stores, panel_calls, row_calls = [], [], [], []
    for c in range(width):
        args = at(call, c).args
        ld = edit.add_statement(replace(stmt, name=edit.fresh(f"{stmt.name}_ld{c}"), array=accs[c], index=(),
                                        value=nest.own))
        st = edit.add_statement(replace(stmt, name=edit.fresh(f"{stmt.name}_st{c}"),
                                        value=ir.Load(accs[c], (), info.dtype)))
        outside = tuple(ir.substitute(a, {kv: k.init}) for a in args)  # (their subscripts have no k)
        loads.append(StmtCall(ld.name, outside))
        stores.append(StmtCall(st.name, outside))
        panel_calls.append(StmtCall(chain(c, True), args + (base, rows_wide)))
        if reads_rows:
            row_calls.append(StmtCall(chain(c, False), args))
    k_lo, k_hi = k.init, ir.Var(j.iterator, ir.INT)
    k1 = edit.fresh(f"{kv}_pk")
    inside: list[Node] = [at(b, c) for c in range(width) for b in nest.before]
    inside += loads
    inside.append(_loop(k1, k_lo, split,
                        Block(tuple(StmtCall(x.statement, tuple(ir.substitute(a, {kv: ir.Var(k1, ir.INT)})
                                                                  for a in x.args)) for x in panel_calls))))
    if reads_rows:
        k2 = edit.fresh(f"{kv}_rest")
        inside.append(_loop(k2, ir.int_max(k_lo, split), k_hi,
                            Block(tuple(StmtCall(x.statement, tuple(ir.substitute(a, {kv: ir.Var(k2, ir.INT)})
                                                                      for a in x.args)) for x in row_calls))))
    inside += stores
    inside += [at(a, c) for c in range(width) for a in nest.after]
    rest_i = edit.fresh(f"{iv}_pk_rest")
    # the last rows: the original loop over them (parallel as it was: passes.interleave takes it)
    rest = replace(_loop(rest_i, vg, i_hi, _substitute_node(i.body, iv, ir.Var(rest_i, ir.INT))),
                   parallel=True, why_parallel=i.why_parallel)
    full = ir.Compare("<=", ir.int_add(vg, ir.int_const(width)), i_hi)
    groups = For(g, i.init, ir.Compare("<", vg, i_hi), width, If(full, Block(tuple(inside)), rest),
                 parallel=True, private=i.private + accs,
                 why_parallel=f"groups of rows of the parallel loop {iv} (packed rows)")
    new_j = replace(j, body=Block(tuple(groups if c is i else c for c in _children(j.body)) + (column,)))
    record = PackedRows(
        loop=iv, outer=j.iterator, reduction=stmt.name, array=info.name, panel=panel.name, rows=width,
        split_at=ir.to_python(split),
        reason=(f"{width} rows of {iv} at once, their {kv} chains' accumulators {info.name}[{iv}, {j.iterator}] in "
                f"registers, reading {info.name}[{iv}, {kv}] for {kv} < {ir.to_python(split)} from a transposed "
                f"copy: the columns before loop {j.iterator}'s first made before it, column {j.iterator} at the end of "
                f"its iteration (no statement writes those columns later in the loop)"))
    return Block((packing, new_j)), record, accs


def _panel_only(around: tuple[For, ...], j: For, others: ir.Expr | None) -> bool:
    """Does every chain read only the copy, ``split = min(j, others)`` being ``j`` itself at every
    ``j`` of ``J`` (its last ``j`` at most ``others`` wherever the loops ``around`` run, by isl)?
    Then the chain's second loop, from ``max(klo, split)`` to ``j``, never runs, and is left out:
    cholesky's (``j < 32 * t0 + 32 <= 32 * t1``) was ~120 of the region function's 2,500
    instructions after LLVM's optimiser, 32 strided rows for its loop strength reduction
    (docs/performance.md, *Compile time, session 31*).  The loops' bounds that are no affine
    expression (and their steps) are left out: the question is then asked of more points."""
    if others is None:
        return True
    j_hi = exclusive_bound(j)
    if j_hi is None:
        return False
    last, most = isl_affine_text(j_hi), isl_affine_text(others)
    if last is None or most is None:
        return False
    constraints, names = [f"{last} - 1 > {most}"], set()
    for loop in around:
        hi = exclusive_bound(loop)
        lo, hi_text = isl_affine_text(loop.init), None if hi is None else isl_affine_text(hi)
        if loop.step > 0 and lo is not None and hi_text is not None:
            constraints.append(f"{lo} <= {isl_name(loop.iterator)} < {hi_text}")
    for e in (j_hi, others, *(x for loop in around for x in (loop.init, loop.cond))):
        names |= {isl_name(v.name) for v in ir.walk(e) if isinstance(v, ir.Var)}
    names |= {isl_name(loop.iterator) for loop in around}
    text = f"[{', '.join(sorted(names))}] -> {{ : {' and '.join(constraints)} }}"
    try:
        return bool(isl.Set(text).is_empty())
    except isl.Error:
        return False



def _substitute_node(node: Node, var: str, value: ir.Expr) -> Node:
    def sub(e: ir.Expr) -> ir.Expr:
        return ir.substitute(e, {var: value})
    if isinstance(node, StmtCall):
        return StmtCall(node.statement, tuple(sub(a) for a in node.args))
    if isinstance(node, For):
        return replace(node, init=sub(node.init), cond=sub(node.cond), body=_substitute_node(node.body, var, value))
    if isinstance(node, If):
        return replace(node, cond=sub(node.cond), then=_substitute_node(node.then, var, value),
                       otherwise=None if node.otherwise is None else _substitute_node(node.otherwise, var, value))
    return Block(tuple(_substitute_node(c, var, value) for c in node.children))
