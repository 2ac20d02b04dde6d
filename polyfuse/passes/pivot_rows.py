"""Blocks of pivots for a serial loop whose rows read only themselves and the pivot's row.

Takes the loop program ``passes.astgen`` made; gives it with some pivot loops blocked, and a
``PivotRows`` record for each.  Runs right after astgen, before ``passes.noop_versions`` (which
then leaves the blocked loops alone: their iterators are not isl's).

Floyd-Warshall is the example::

    for k in range(n):
        for i in range(n):
            for j in range(n):
                p[i, j] = p[i, j] if p[i, j] < p[i, k] + p[k, j] else p[i, k] + p[k, j]

Each pivot ``k`` streams the whole matrix (at n = 2800, 63 MB per pivot, 2800 pivots).  The nest
has this shape, read off the statements (no kernel names): a perfect nest ``k, i, j`` whose ``i``
and ``j`` bounds do not depend on ``k``, with statements that write ``A[i, j]`` or *temporaries*
(local scalars written once per point before they are read there and accessed nowhere else: the
condition of an ``if``); every load of ``A`` is of row ``i`` (``A[i, c]``) or of row ``k``
(``A[k, c]``); nothing else is written.
So row ``i``'s instances of pivot ``k`` (contiguous in the original order) read only row ``i`` and
row ``k``, and row ``k``'s values they see are known without running the other rows: for ``i <
k`` the row as it was when pivot ``k`` began (rows are visited in ascending order, row ``k`` not
yet), for ``i > k`` the row as pivot ``k`` left it (row ``k`` done), for ``i = k`` the row itself.
Hence, per block ``K = [kb, kb + B)`` of pivots::

    for k in K:                                  # the rows of the block, in the original order
        pre[k - kb, :] = A[k, :]
        for i in rows, kb <= i < kb + B: for j: S(k, i, j)   # (S: the statements in order)
        post[k - kb, :] = A[k, :]
    for i in rows, i < kb:              # parallel: rows are independent
        for k in K: for j: S(k, i, j) reading pre[k - kb, c] for A[k, c]
    for i in rows, i >= kb + B:         # parallel
        for k in K: for j: S(k, i, j) reading post[k - kb, c] for A[k, c]

Each instance reads the very values it reads in the original order (the rows of the block only
read rows of the block, so the first part is the original restricted to them; ``pre`` and
``post`` hold row ``k`` exactly as rows above and below ``k`` see it), and each element takes its
updates in the same order: results bit for bit the original's, whatever the values (negative
cycles, NaNs, signed zeros: no run-time check is needed).  Row ``i`` (22 KB at n = 2800) stays in
L1 across the block's ``B`` pivots, the ``2B`` buffered rows in L2, instead of one pass over the
matrix per pivot.

Within a row, a load ``A[i, c]`` whose column does not depend on ``j`` (``p[i, k]``) changes only
at ``j = c``: the ``j`` loop is split there, and the two parts read it once before them (a local
scalar, private to each row), which lets them vectorize; only done when there is one such
column.  The rows outside the block use their own copies of the temporaries, private to each row
(a region keeps a register scalar to one part of it).  ``POLYFUSE_PIVOT_ROWS`` sets ``B`` (default 32; 0 turns the pass off).
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
    calls_only,
    exclusive_bound,
    statements_in,
)
from polyfuse.model.scop import ArrayInfo, Statement, isl_name
from polyfuse.passes.noop_versions import _Hoist


@dataclass(frozen=True)
class PivotRows:
    """One serial pivot loop run in blocks of pivots: the rows of the block first, then every
    other row across the whole block, reading the pivot rows from copies."""

    loop: str
    statements: tuple[str, ...]
    array: str
    block: int
    split_at: str  # the column where each row's j loop is split ("" when it is not)
    buffers: tuple[str, ...]
    reason: str


def block_pivot_rows(program: LoopProgram, *, block: int) -> tuple[LoopProgram, tuple[PivotRows, ...]]:
    """``program`` with each matching pivot loop blocked (see the module docstring)."""
    if block < 2:
        return program, ()
    edit = ProgramEdit(program)
    decisions: list[PivotRows] = []

    def visit(node: Node) -> Node:
        if isinstance(node, Block):
            return Block(tuple(visit(c) for c in node.children))
        if isinstance(node, If):
            return replace(node, then=visit(node.then),
                           otherwise=None if node.otherwise is None else visit(node.otherwise))
        if isinstance(node, For):
            made = _blocked(edit, node, block)
            if made is not None:
                new, record = made
                decisions.append(record)
                return new
            return replace(node, body=visit(node.body))
        return node

    root = visit(program.root)
    if not decisions:
        return program, ()
    program = edit.program_with(root)
    # the blocked rows run from L1/L2: their phases prefer wide vectors (backends/cpu/llvm.py)
    blocked = frozenset(s.name for s in edit.statements)
    return replace(program, cache_blocked=program.cache_blocked | blocked), tuple(decisions)


# ---- the shape -------------------------------------------------------------------------------------

def _vars(expr: ir.Expr) -> set[str]:
    return {e.name for e in ir.walk(expr) if isinstance(e, ir.Var)}


def _is_var(expr: ir.Expr, name: str) -> bool:
    return isinstance(expr, ir.Var) and expr.name == name


def _binding(stmt: Statement, call: StmtCall) -> dict[str, ir.Expr]:
    binding: dict[str, ir.Expr] = dict(zip(stmt.iterators, call.args))
    binding.update({isl_name(v): a for v, a in zip(stmt.iterators, call.args)})
    return binding


def _loads(stmt: Statement) -> list[ir.Load]:
    return [e for root in (stmt.value, *stmt.index) for e in ir.walk(root) if isinstance(e, ir.Load)]


@dataclass(frozen=True)
class _Nest:
    i: For
    j: For
    calls: tuple[StmtCall, ...]
    array: ArrayInfo  # the matrix the nest updates
    temporaries: tuple[str, ...]  # local scalars written and read at the same point (an ``if``'s condition)
    column: ir.Expr | None  # the one column of row-i loads not at j (loop iterators), or None


def _shape(program: LoopProgram, k: For) -> _Nest | None:
    """The nest when ``k`` has the shape of the module docstring, else None."""
    if k.parallel or k.step != 1 or exclusive_bound(k) is None:
        return None
    i = k.body
    if isinstance(i, Block) and len(i.children) == 1:
        i = i.children[0]
    if not isinstance(i, For) or i.step != 1 or exclusive_bound(i) is None:
        return None
    j = i.body
    if isinstance(j, Block) and len(j.children) == 1:
        j = j.children[0]
    if not isinstance(j, For) or j.step != 1 or exclusive_bound(j) is None:
        return None
    calls = calls_only(j.body)
    if not calls:
        return None
    kv, iv, jv = k.iterator, i.iterator, j.iterator
    i_hi, j_hi = exclusive_bound(i), exclusive_bound(j)
    assert i_hi is not None and j_hi is not None
    if kv in _vars(i.init) | _vars(i_hi) | _vars(j.init) | _vars(j_hi) or jv in _vars(i.init) | _vars(i_hi):
        return None  # rows and columns the same for every pivot
    names = [c.statement for c in calls]
    everywhere = statements_in(program.root)
    if len(set(names)) != len(names) or any(everywhere.count(n) != 1 for n in names):
        return None
    stmts = [program.statement(n) for n in names]
    infos = {a.name: a for a in program.arrays}
    temporaries = [s.array for s in stmts if s.array in infos and infos[s.array].is_scalar]
    matrices = {s.array for s in stmts if s.array not in temporaries}
    if len(matrices) != 1 or len(set(temporaries)) != len(temporaries):
        return None
    info = infos.get(next(iter(matrices)))
    if info is None or info.rank != 2:
        return None
    # a temporary: written once per point before it is read there, accessed nowhere else
    for t in temporaries:
        first = next(n for n, s in enumerate(stmts) if s.array == t)
        if any(load.array == t for s in stmts[:first + 1] for load in _loads(s)):
            return None
        if any(s.array == t or any(load.array == t for load in _loads(s))
               for s in program.statements if s.name not in names):
            return None
    columns: set[ir.Expr] = set()
    for call, stmt in zip(calls, stmts):
        if stmt.region is not None:
            return None
        for root in (stmt.value, *stmt.index):
            for e in ir.walk(root):
                if isinstance(e, (ir.Index, ir.Call)) or (isinstance(e, ir.BinOp) and e.reassoc):
                    return None
        if any(kv in _vars(a) or iv in _vars(a) or jv in _vars(a)
               for a in call.args if not any(_is_var(a, v) for v in (kv, iv, jv))):
            return None
        binding = _binding(stmt, call)
        if stmt.array == info.name:
            index = tuple(ir.substitute(x, binding) for x in stmt.index)
            if not (_is_var(index[0], iv) and _is_var(index[1], jv)):
                return None
        for load in (e for e in ir.walk(stmt.value) if isinstance(e, ir.Load)):
            at = tuple(ir.substitute(x, binding) for x in load.index)
            if any(isinstance(e, ir.Load) for x in at for e in ir.walk(x)):
                return None
            if load.array != info.name:
                continue  # a temporary, or read only: the nest writes the matrix and its temporaries alone
            if len(at) != 2:
                return None
            if _is_var(at[0], iv):
                if not _is_var(at[1], jv):
                    if jv in _vars(at[1]):
                        return None  # another column of row i along j: kept simple
                    columns.add(at[1])
            elif not _is_var(at[0], kv):
                return None
    column = next(iter(columns)) if len(columns) == 1 else None
    return _Nest(i, j, tuple(calls), info, tuple(temporaries), column)


# ---- the blocked loop ------------------------------------------------------------------------------

def _loop(name: str, lo: ir.Expr, hi: ir.Expr, body: Node, parallel: bool = False, why: str = "") -> For:
    return For(name, lo, ir.Compare("<", ir.Var(name, ir.INT), hi), 1, body, parallel=parallel, why_parallel=why)


def _blocked(edit: ProgramEdit, k: For, block: int):
    nest = _shape(edit.program, k)
    if nest is None:
        return None
    i, j, info, column = nest.i, nest.j, nest.array, nest.column
    kv, iv, jv = k.iterator, i.iterator, j.iterator
    k_hi, i_hi, j_hi = exclusive_bound(k), exclusive_bound(i), exclusive_bound(j)
    assert k_hi is not None and i_hi is not None and j_hi is not None
    stmts = [edit.program.statement(c.statement) for c in nest.calls]
    writer = next(s for s in stmts if s.array == info.name)
    size = ir.int_const(block)
    kb, kk, ii, jj = (edit.fresh(s) for s in ("_pr_kb", "_pr_k", "_pr_i", "_pr_j"))
    vkb, vkk, vii, vjj = (ir.Var(n, ir.INT) for n in (kb, kk, ii, jj))
    k_end = ir.int_min(ir.int_add(vkb, size), k_hi)
    pre, post = (edit.add_array(ArrayInfo(edit.fresh(f"_pr_{what}"), info.dtype, (size, info.shape[1]), "local"))
                 for what in ("pre", "post"))

    def args(call: StmtCall, kx: ir.Expr, ix: ir.Expr, jx: ir.Expr) -> tuple[ir.Expr, ...]:
        values = {kv: kx, iv: ix, jv: jx}
        return tuple(ir.substitute(a, values) for a in call.args)

    def copy(buffer: ArrayInfo) -> Node:
        c = edit.fresh("_pr_c")
        vc = ir.Var(c, ir.INT)
        made = edit.add_statement(replace(
            writer, name=edit.fresh(f"{writer.name}_{buffer.name.lstrip('_')}"), iterators=(kb, kk, c),
            array=buffer.name, index=(ir.BinOp("-", vkk, vkb, ir.INT, True), vc),
            value=ir.Load(info.name, (vkk, vc), info.dtype), region=None))
        # row k exists wherever an instance reads it (the bounds check); a pivot no row reads may not
        in_rows = ir.BoolOp("and", (ir.Compare("<=", ir.int_const(0), vkk), ir.Compare("<", vkk, info.shape[0])))
        return If(in_rows, _loop(c, ir.int_const(0), info.shape[1], StmtCall(made.name, (vkb, vkk, vc))))

    # the rows of the block, in the original order, between the copies of the pivot row
    own_rows = _loop(ii, ir.int_max(i.init, vkb), ir.int_min(i_hi, ir.int_add(vkb, size)),
                     _loop(jj, ir.substitute(j.init, {iv: vii}), ir.substitute(j_hi, {iv: vii}),
                           Block(tuple(StmtCall(c.statement, args(c, vkk, vii, vjj)) for c in nest.calls))))
    first = _loop(kk, vkb, k_end, Block((copy(pre), own_rows, copy(post))))

    def reading(buffer: ArrayInfo) -> tuple[list[str], tuple[str, ...]]:
        """The statements reading ``buffer`` for the pivot row, and their own temporaries (fresh
        local scalars, private to each row: a region keeps a register scalar to one part)."""
        renamed = {t: edit.add_array(replace(edit.infos[t], name=edit.fresh(t))).name for t in nest.temporaries}
        made = []
        for call, stmt in zip(nest.calls, stmts):
            binding = _binding(stmt, call)
            stmt_k = next(v for v, a in zip(stmt.iterators, call.args) if _is_var(a, kv))

            def swap(load: ir.Load, binding=binding, stmt_k=stmt_k) -> ir.Expr:
                if load.array in renamed:
                    return replace(load, array=renamed[load.array])
                at = tuple(ir.substitute(x, binding) for x in load.index)
                if load.array == info.name and _is_var(at[0], kv):
                    return replace(load, array=buffer.name,
                                   index=(ir.BinOp("-", ir.Var(stmt_k, ir.INT), ir.Var(kb, ir.INT), ir.INT, True),
                                          load.index[1]))
                return load
            made.append(edit.add_statement(replace(
                stmt, name=edit.fresh(f"{stmt.name}_{buffer.name.lstrip('_')}"), iterators=stmt.iterators + (kb,),
                array=renamed.get(stmt.array, stmt.array), value=ir.map_loads(stmt.value, swap))).name)
        return made, tuple(renamed.values())

    def row(names: list[str]) -> Node:
        def at_j(jx: ir.Expr) -> Block:
            return Block(tuple(StmtCall(n, args(c, vkk, vii, jx) + (vkb,)) for n, c in zip(names, nest.calls)))

        lo, hi = ir.substitute(j.init, {iv: vii}), ir.substitute(j_hi, {iv: vii})
        if column is None:
            return _loop(jj, lo, hi, at_j(vjj))
        at = ir.substitute(column, {kv: vkk, iv: vii})
        inside = ir.BoolOp("and", (ir.Compare("<=", lo, at), ir.Compare("<", at, hi)))
        return Block((_loop(jj, lo, ir.int_min(hi, at), at_j(vjj)), If(inside, at_j(at)),
                      _loop(jj, ir.int_max(lo, ir.int_add(at, ir.int_const(1))), hi, at_j(vjj))))

    why = "each row reads only itself and the block's pivot rows, copied (pivot rows)"
    (above_names, above_private), (below_names, below_private) = reading(pre), reading(post)
    above: Node = replace(_loop(ii, i.init, ir.int_min(i_hi, vkb), _loop(kk, vkb, k_end, row(above_names)),
                                parallel=True, why=why), private=above_private)
    below: Node = replace(_loop(ii, ir.int_max(i.init, ir.int_add(vkb, size)), i_hi, _loop(kk, vkb, k_end, row(below_names)),
                                parallel=True, why=why), private=below_private)
    if column is not None:
        (above, below), _ = _hoisted(edit, (above, below))
    blocks = For(kb, k.init, ir.Compare("<", vkb, k_hi), block, Block((first, above, below)))
    record = PivotRows(
        loop=kv, statements=tuple(s.name for s in stmts), array=info.name, block=block,
        split_at="" if column is None else ir.to_python(column), buffers=(pre.name, post.name),
        reason=(f"each row {iv} of {info.name} reads only itself and the pivot row {kv}: per block of {block} "
                f"pivots, the block's rows run first in the original order, copying each pivot row before "
                f"and after its pivot, then every other row runs the whole block ({iv} parallel), reading "
                f"the copy its position sees in the original order"))
    return blocks, record


def _hoisted(edit: ProgramEdit, loops: tuple[Node, Node]) -> tuple[tuple[Node, Node], tuple[str, ...]]:
    """The row loops with the loads that do not change along a split ``j`` loop read once before
    it: in each part the row's one other column is not written, and nothing else is."""
    hoist = _Hoist(edit)
    made = tuple(hoist._node(loop) for loop in loops)
    return (made[0], made[1]), tuple(hoist.hoisted)
