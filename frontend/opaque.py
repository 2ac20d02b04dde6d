"""Loops that are not affine, kept as written: one opaque statement each (model/region.py).

A ``while`` loop, a ``for`` loop whose bounds are not affine (``range(indptr[i], indptr[i+1])``)
and a loop holding its own ``break``/``continue`` become one statement of the Scop.  Its domain
is the enclosing affine loops' iterations; its body is lifted to region operations in order,
with every subscript that is affine in the enclosing loop variables kept exact and every other
one (it uses a variable of the region) computed and checked at run time (``ir.Index``).

Accesses are over-approximated so that the model stays sound:

* everything the body may read is read by the statement;
* every element it may write is read *and* written: where the body does not write it, the
  statement "writes back" the value it found, so the write is a must-write that never hides an
  earlier writer from the dataflow (the if-conversion argument of ``frontend.control``);
* a scalar the body writes before any read of it, and that nobody outside reads, is
  ``private``: written only (its old value never matters, and parallel loops privatise it).
"""

from __future__ import annotations

import ast
import dataclasses

from polyfuse.errors import UnsupportedError
from polyfuse.model import ir
from polyfuse.model import region as rg
from polyfuse.model.scop import isl_name

from .checker import assert_message, is_lapack_call, is_matmul_call
from .control import ASSERT_PREFIX, access_text, guard_expr, read_names, written_names
from .local_versions import local_write
from .returns import (
    STRONG,
    choice_kinds,
    choice_of,
    flag_first,
    flag_operands,
    inherited_flag,
    inherited_names,
    kind_choice,
    kind_varies,
    value_kind,
)
from .scalars import element_store_checked, range_checked
from .source import walk
from .types import VType, power_hint


def region_var(name: str) -> str:
    """The generated name of a loop variable inside a region (never an isl iterator's ``c0``)."""
    return f"_pf_{name}"


def own_jump(loop: ast.For | ast.While) -> ast.stmt | None:
    """The first ``break``/``continue`` that belongs to ``loop`` (not to a loop inside it)."""
    stack: list[ast.stmt] = list(loop.body)
    while stack:
        stmt = stack.pop(0)
        if isinstance(stmt, (ast.Break, ast.Continue)):
            return stmt
        if isinstance(stmt, ast.If):
            stack[:0] = stmt.body + stmt.orelse
    return None


def kept_inside(lifter, node: ast.If) -> str:
    """Why a data-dependent ``if`` is kept as written whole ("" when it is if-converted): it
    holds a loop that is kept as written, whose assignments then stay real branches."""
    for inner in walk(node):
        if isinstance(inner, ast.While):
            return "while loop inside a data-dependent if"
        if isinstance(inner, (ast.Break, ast.Continue)):
            return f"{'break' if isinstance(inner, ast.Break) else 'continue'} inside a data-dependent if"
        if isinstance(inner, ast.For) and isinstance(inner.iter, ast.Call):
            for name in (n for a in inner.iter.args for n in walk(a)):
                local = isinstance(name, ast.Name) and name.id in lifter.arrays and lifter.arrays[name.id].is_scalar
                if local or isinstance(name, ast.Subscript) and isinstance(name.value, ast.Name):
                    return bound_reason(inner.iter.args) + " inside a data-dependent if"
    return ""


def bound_reason(args: list[ast.expr]) -> str:
    """Why a ``range(...)`` is not affine, for explain()."""
    arrays = sorted({ast.unparse(n.value) for a in args for n in walk(a)
                     if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)})
    if arrays:
        return f"loop bound reads array {', '.join(arrays)}"
    return f"loop bound {', '.join(ast.unparse(a) for a in args)} is not affine"


def lift_region(lifter, node: ast.For | ast.While | ast.If, scope, reason: str) -> list:
    """``node`` as one opaque statement of ``lifter``'s Scop (returns its schedule-tree node)."""
    written = written_names([node])
    candidates = _private_scalars(lifter, node, written)
    builder = _RegionBuilder(lifter, scope)
    body = builder.block([node])
    if lifter.guards:  # inside a data-dependent if: the region runs where its condition holds
        body = (rg.IfElse(guard_expr(lifter.guards, builder.exprs), body),)
    candidates |= builder.asserts  # written, never read
    private = _with_flags(lifter, {p for p in candidates if p in lifter.arrays and lifter.arrays[p].is_scalar})
    # a scalar the region surely assigns before any read of it (while True: nx = ...): its old
    # value is never read, so neither its reads nor a write-back read are the statement's
    exposed: set[str] = set()
    _exposed([node], set(), written, exposed)
    surely = () if lifter.guards else _with_flags(lifter, (_surely_assigned(node) & written) - exposed)
    reads = [(text, guard) for text, guard in builder.exprs.read_texts
             if not any(text.startswith(f"{isl_name(p)}[") for p in private + surely)]
    reads += [(text, guard) for text, guard in builder.write_texts
              if not any(text.startswith(f"{isl_name(p)}[") for p in private + surely)]
    routines = sorted({f"LAPACK {op.symbol} for {op.call}" for op in rg.ops(body) if isinstance(op, rg.Lapack)})
    if routines:  # explain() names the routines run inside
        reason = f"{reason} (runs {', '.join(routines)})"
    region = rg.Region(
        body=body, reason=reason, line=lifter.source.span(node).line,
        reads=tuple(sorted(builder.read_names)), writes=tuple(sorted(builder.written)), private=private,
    )
    return [lifter.add_region(node, region, scope, reads, builder.write_texts)]


def _with_flags(lifter, names: set[str]) -> tuple[str, ...]:
    """``names`` and the strength flags (``STRONG + name``) of those that have one, sorted.  A
    flagged local's flag is written beside each of its assignments in the region and read only
    where the local is (``r = s`` reads ``s``'s flag: ``_RegionBuilder.strength_flag``), so it is
    private (or surely assigned) where the local is: its reads are not the statement's (cp48's
    ``p = 0.0`` then ``p += w[i]`` in an np.unique-length loop read ``__strong_p`` before any
    assignment, as the statement saw it)."""
    flags = {STRONG + n for n in names if STRONG + n in lifter.arrays}
    return tuple(sorted(names | flags))


class _RegionBuilder:
    """Lifts the statements of one region to region operations, collecting its accesses."""

    def __init__(self, lifter, scope) -> None:
        self.lifter = lifter
        self.scope = scope
        self.exprs = lifter.expressions(scope)
        self.asserts: set[str] = set()  # the locals of its asserts (private: never read)
        self.write_texts: list[tuple[str, object]] = []  # (isl access text, guard set or None)
        self.written: set[str] = set()

    @property
    def read_names(self) -> set[str]:
        names = {isl_name(a): a for a in self.lifter.arrays}
        heads = {text.split("[", 1)[0] for text, _ in self.exprs.read_texts}
        return {names.get(head, head) for head in heads}

    def block(self, stmts: list[ast.stmt]) -> tuple[rg.Op, ...]:
        ops: list[rg.Op] = []
        for stmt in stmts:
            handler = getattr(self, f"_{type(stmt).__name__}", None)
            if handler is None:
                raise self.lifter.error(stmt, f"{type(stmt).__name__} inside a loop kept as written",
                                        type(stmt).__name__)
            ops.extend(handler(stmt))
        return tuple(ops)

    def _Pass(self, node: ast.Pass) -> list:
        return []

    def _Expr(self, node: ast.Expr) -> list:
        """A product frontend.array_linalg kept whole (``MATMUL_CALL``), inside the kept loop: a
        region ``Matmul`` over the region's own variables (its operands read, its output written,
        as an assignment's are); a docstring is nothing."""
        if is_lapack_call(node):
            return self.lapack(node)
        if not is_matmul_call(node):
            return []
        call = node.value
        assert isinstance(call, ast.Call)
        out, a, b, *extent_nodes = call.args[:6]
        variables3, stack = matmul_variables(call)
        names = variables3 + tuple(name for name, _ in stack)
        lifter = self.lifter
        rows, cols, depth, *batch_extents = (self.exprs.coerce(self.exprs.convert(e), VType("int64", True))
                                             for e in [*extent_nodes, *(extent for _, extent in stack)])
        lifter.region_vars.update(names)
        try:
            loads = [self.exprs.convert(sub) for sub in (a, b)]
            if matmul_accumulates(call):  # (it reads its output too)
                self.exprs.convert(out)
            assert isinstance(out, ast.Subscript), "written by array_linalg"
            array, index_aff = self.exprs.subscript(out, write=True)
        finally:
            lifter.region_vars.difference_update(names)
        assert all(isinstance(load, ir.Load) for load in loads), "plain operands, written by array_linalg"
        self.write_texts.append((access_text(isl_name(array), lifter.arrays[array], index_aff), self.guard()))
        self.written.add(array)
        # array_linalg wrote the subscripts over the operands' own extents: in bounds, so the
        # run-time checks a kept loop's subscripts get are dropped (Matmul needs them affine)
        a_op, b_op = (rg.Operand(load.array, tuple(_unchecked(i) for i in load.index))  # type: ignore[union-attr]
                      for load in loads)
        out_op = rg.Operand(array, tuple(_unchecked(x.expr) for x in index_aff))
        variables = tuple(region_var(n) for n in variables3)
        batch = tuple((region_var(name), extent) for (name, _), extent in zip(stack, batch_extents))
        dtype = lifter.arrays[array].dtype
        alpha = matmul_alpha(call, lambda e: self.exprs.coerce(self.exprs.convert(e), VType(dtype, False)))
        product = scaled_matmul(rg.Matmul(out_op, a_op, b_op, rows, cols, depth, variables,  # type: ignore[arg-type]
                                          dtype, accumulate=matmul_accumulates(call), batch=batch), alpha)

        def factor(sub: ast.expr, key: str) -> rg.Operand:
            load = self.exprs.convert(sub)
            assert isinstance(load, ir.Load), "a plain factor, written by array_linalg"
            return rg.Operand(load.array, tuple(_unchecked(i) for i in load.index))

        lifter.region_vars.update(names)
        try:
            product = checked_matmul(product, call, self.exprs.convert, factor)
        finally:
            lifter.region_vars.difference_update(names)
        return [product]

    def lapack(self, node: ast.Expr) -> list:
        """An np.linalg routine inside the kept loop (a Newton iteration in a ``while``): its
        buffers read and written whole, as in :func:`lift_lapack`, its sizes computed where it runs."""
        call = node.value
        assert isinstance(call, ast.Call)
        parts = lapack_parts(call)
        op = lapack_op(parts, lambda node: self.exprs.coerce(self.exprs.convert(node), VType("int64", True)))
        arrays = self.lifter.arrays
        for name in (op.a, op.b, op.rcond):
            if name:
                self.exprs.read_texts.append((_whole(name, arrays[name]), self.guard()))
        for name in op.outputs():
            self.write_texts.append((_whole(name, arrays[name]), self.guard()))
            self.written.add(name)
        return [op]

    def _Break(self, node: ast.Break) -> list:
        return [rg.Break()]

    def _Continue(self, node: ast.Continue) -> list:
        return [rg.Continue()]

    def condition(self, test: ast.expr) -> ir.Expr:
        return self.exprs.truth(self.exprs.convert(test))

    def _While(self, node: ast.While) -> list:
        return [rg.While(self.condition(node.test), self.block(node.body))]

    def _If(self, node: ast.If) -> list:
        """A real branch; where its condition is affine in the enclosing loops' variables
        (``if i > 0:``), the accesses of each branch are recorded only where it is taken."""
        cond = self.condition(node.test)
        holds = self.exprs.affine_condition(node.test)
        if holds is None:
            return [rg.IfElse(cond, self.block(node.body), self.block(node.orelse))]
        then = self.guarded(node.body, holds)
        otherwise = self.guarded(node.orelse, self.exprs.universe(node.test).subtract(holds))
        return [rg.IfElse(cond, then, otherwise)]

    def guarded(self, stmts: list[ast.stmt], where) -> tuple[rg.Op, ...]:
        self.exprs.guards.append(where)
        try:
            return self.block(stmts)
        finally:
            self.exprs.guards.pop()

    def guard(self):
        """The affine conditions around the current operation (None: everywhere)."""
        result = None
        for condition in self.exprs.guards:
            result = condition if result is None else result.intersect(condition)
        return result

    def _For(self, node: ast.For) -> list:
        assert isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call), "checked by the subset checker"
        var = node.target.id
        lifter = self.lifter
        if var in self.scope.loop_vars or var in lifter.region_vars:
            raise lifter.error(node.target, f"loop variable {var!r} reuses the name of an enclosing loop")
        if var in lifter.arguments or var in lifter.arrays or var in lifter.scalar_types:
            raise lifter.error(node.target, f"loop variable {var!r} shadows an argument or local")
        args = list(node.iter.args)
        step = 1
        if len(args) == 3:
            try:
                step_aff = lifter.affine(args[2], self.scope)
            except UnsupportedError:
                step_aff = None
            if step_aff is None or not step_aff.const:
                raise lifter.error(node.iter, "range() step must be a non-zero integer constant")
            step = step_aff.const
        bounds = [self.bound(a) for a in args[:2]]
        start, stop = (ir.int_const(0), bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
        lifter.loop_names.add(var)
        lifter.region_vars.add(var)
        try:
            body = self.block(node.body)
        finally:
            lifter.region_vars.discard(var)
        return [rg.ForRange(region_var(var), start, stop, step, body)]

    def bound(self, node: ast.expr) -> ir.Expr:
        value = self.exprs.convert(node)
        python_bool = value.dtype == "bool" and value.weak  # range(True) is range(1); a numpy bool raises
        if value.dtype not in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32") and not python_bool:
            kind = "numpy bool" if value.dtype == "bool" else f"{value.dtype} value"
            raise self.lifter.error(node, f"non-integer loop bound: range() bound {ast.unparse(node)!r} is a "
                                    f"{kind}; range() takes integers{power_hint(node)}", "non-integer loop bound")
        return self.exprs.coerce(value, VType("int64", True))

    def _Assign(self, node: ast.Assign) -> list:
        value = self.exprs.convert(node.value)
        target, choice = node.targets[0], choice_of(node)
        if isinstance(target, ast.Name) and choice is not None:  # each operand's kind (Lifter.assign)
            # (converted apart: a leaf read out of its branch's guard, labels[i - 1, j] of i > 0, is
            # not an access of the region's)
            kinds = choice_kinds(self.lifter.expressions(self.scope), target, choice, self.lifter.flagged)
            self.lifter.strengths.setdefault(target.id, set()).update(kinds)
        flag = self.strength_flag(node, node.targets[0], value)
        if flag and flag_first(node):  # the flag's tests read the value before the write
            return flag + [self.assign(node, node.targets[0], value)]
        return [self.assign(node, node.targets[0], value)] + flag

    def _Assert(self, node: ast.Assert) -> list:
        """An assert inside the kept loop, checked where it runs (see control.lift_assert)."""
        failed = ir.Unary("not", self.condition(node.test), "bool")
        flag = ir.Select(failed, ir.int_const(1), ir.int_const(0), ir.INT, False)
        error, message = assert_message(node.msg) or ("AssertionError", None)
        target = ast.copy_location(ast.Name(f"{ASSERT_PREFIX}{self.lifter.assert_count}", ast.Store()), node)
        self.lifter.assert_count += 1
        self.asserts.add(target.id)
        return [self.assign(node, target, ir.Check(flag, ir.int_const(1), "", 0, message=message,
                                                            error=error))]

    def _AugAssign(self, node: ast.AugAssign) -> list:
        current = self.exprs.convert(node.target)
        value = self.exprs.binary(node, node.op, current, self.exprs.convert(node.value))
        flag = self.strength_flag(node, node.target, value)
        if flag and flag_first(node):  # s += x[i] if x[i] > s else s: its test reads the old s (mix_fuzz)
            return flag + [self.assign(node, node.target, value)]
        return [self.assign(node, node.target, value)] + flag

    def strength_flag(self, node: ast.stmt, target: ast.expr, value: ir.Expr) -> list:
        """``STRONG + name = kind`` beside an assignment to a local whose returned value is a
        Python number on some paths and a NumPy scalar on others (``Lifter.strength_flag``)."""
        if not (isinstance(target, ast.Name) and target.id in self.lifter.flagged_in_place):
            return []
        kind = value_kind(value)
        flag = ast.copy_location(ast.Name(STRONG + target.id, ast.Store()), target)
        if kind_varies(self.exprs, target, node, value, self.lifter.flagged):  # the operand chosen's kind
            choice = choice_of(node)
            self.lifter.flag_reads.update(flag_operands(choice, target, self.lifter.flagged) if choice else ())
            return [self.assign(node, flag, kind_choice(self.exprs, target, choice))]
        inherited = self.lifter.inherited_kind(node, target, value, self.scope)
        if inherited is not None:  # r = s of a flagged s: s's kind (it gave NumPy's always, cp48)
            self.lifter.flag_reads.update(n for n in inherited_names(inherited) if n != target.id)
            return [self.assign(node, flag, inherited_flag(self.exprs, inherited, target))]
        return [self.assign(node, flag, ir.Const(kind, "int8", False))]

    def assign(self, node: ast.stmt, target: ast.expr, value: ir.Expr) -> rg.Assign:
        lifter = self.lifter
        if isinstance(target, ast.Name):
            if target.id in lifter.region_vars:
                raise lifter.error(target, f"assignment to loop variable {target.id!r}")
            array, index, dtype = lifter.assign_scalar(target, value)
            lifter.writes.append(local_write(self.exprs, node, target.id, value, True))
            if not value.weak and isinstance(node, (ast.Assign, ast.AugAssign)):  # (Lifter.assign)
                lifter.feeds.setdefault(target.id, set()).update(read_names(node.value) - {target.id})
            lifter.opaque_scalars.add(target.id)  # its Python-or-NumPy type is not tracked in here
            self.write_texts.append((f"{isl_name(array)}[]", self.guard()))
        else:
            assert isinstance(target, ast.Subscript), "checked by the subset checker"
            array, index_aff = self.exprs.subscript(target, write=True)
            index = tuple(a.expr for a in index_aff)
            dtype = lifter.arrays[array].dtype
            self.write_texts.append((access_text(isl_name(array), lifter.arrays[array], index_aff), self.guard()))
            if id(node) in lifter.element_stores:  # y[i] = v as written: NumPy's checks (Lifter.add_statement)
                value, = range_checked(lifter, (value,), VType(dtype, False), node)
                stored = self.exprs.coerce(value, VType(dtype, False))
                self.written.add(array)
                return rg.Assign(array, index, element_store_checked(lifter, value, stored, dtype, node))
        self.written.add(array)
        return rg.Assign(array, index, self.exprs.coerce(value, VType(dtype, False)))


def _whole(array: str, info) -> str:
    """Every element of ``array`` in isl syntax."""
    dims = [f"pf_o{d}" for d in range(info.rank)]
    bounds = " and ".join(f"0 <= {d} < {e}" for d, e in zip(dims, info.extent_texts))
    return f"{isl_name(array)}[{', '.join(dims)}]" + (f" : {bounds}" if bounds else "")


def _unchecked(index: ir.Expr) -> ir.Expr:
    """A subscript without its run-time bounds check (``ir.Index``)."""
    return index.operand if isinstance(index, ir.Index) and not isinstance(index, ir.Check) else index


# ---- scalars private to a region ------------------------------------------------------------
def _private_scalars(lifter, node: ast.stmt, written: set[str]) -> set[str]:
    """Scalars ``node`` writes before it reads them, and that no read elsewhere may see from it:
    every read outside ``node`` follows an assignment in its own straight-line code."""
    exposed: set[str] = set()
    _exposed([node], set(), written, exposed)
    _exposed(lifter.source.tree.body, set(), written, exposed, skip=node)
    return written - exposed


def _surely_assigned(node: ast.stmt) -> set[str]:
    """The names ``node`` assigns on every path: for ``while True:`` those its body assigns before
    the first statement that may leave or skip the rest (``break``, ``continue``, ``return``),
    which the first iteration always runs (Newton's ``while True: nx = ...; if done: break``);
    nothing for any other loop (it may run no iteration).  For a data-dependent ``if`` kept
    whole (it holds a while loop: ``if x.mean() > 0: c = np.median(x) else: c = x.mean()``)
    those both branches assign on every path, where no ``break``, ``continue`` or ``return``
    may leave it first (a loop's own ``break``/``continue`` inside a branch leaves only that
    loop: ``if old == new: r = 0 else: for ...: if ...: continue ...; r = k``)."""
    if isinstance(node, ast.If):
        if _leaves(node.body + node.orelse):
            return set()
        return _exposed([node], set(), set(), set())
    if not (isinstance(node, ast.While) and isinstance(node.test, ast.Constant) and node.test.value is True):
        return set()
    prefix: list[ast.stmt] = []
    for stmt in node.body:
        if any(isinstance(n, (ast.Break, ast.Continue, ast.Return)) for n in walk(stmt)):
            break
        prefix.append(stmt)
    return _exposed(prefix, set(), set(), set())


def _leaves(stmts: list[ast.stmt]) -> bool:
    """Whether a ``break``, ``continue`` or ``return`` of ``stmts`` may leave them: a ``return``
    anywhere, a jump outside the loops they hold (a loop's own jumps stay inside it)."""
    for stmt in stmts:
        if isinstance(stmt, (ast.Break, ast.Continue, ast.Return)):
            return True
        if isinstance(stmt, (ast.For, ast.While)):
            if any(isinstance(n, ast.Return) for n in walk(stmt)) or _leaves(stmt.orelse):
                return True
            continue
        if any(isinstance(n, ast.Return) for n in walk(stmt)):
            return True
        if any(_leaves(inner) for inner in _blocks(stmt)):
            return True
    return False


def _jumps_away(stmts: list[ast.stmt]) -> bool:
    """Whether ``stmts`` never fall through to the statement after them: they end in a
    ``break``, ``continue``, ``return`` or ``raise``, or in an ``if`` whose branches both do."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Break, ast.Continue, ast.Return, ast.Raise)):
        return True
    return isinstance(last, ast.If) and _jumps_away(last.body) and _jumps_away(last.orelse)


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists directly inside ``stmt`` (an if's branches, a try's bodies)."""
    found = [getattr(stmt, f) for f in ("body", "orelse", "finalbody") if isinstance(getattr(stmt, f, None), list)]
    found += [h.body for h in getattr(stmt, "handlers", [])]
    return found


def _names(node: ast.AST | None) -> set[str]:
    return set() if node is None else {n.id for n in walk(node) if isinstance(n, ast.Name)}


def _enclosing(stmts: list[ast.stmt], skip: ast.stmt) -> set[int]:
    """The ids of ``skip`` and of every node of ``stmts`` it is inside (one walk: ``_exposed``
    asked each loop on the way down whether it holds ``skip``, a walk of the loop each time)."""
    parent: dict[int, ast.AST] = {}
    for stmt in stmts:
        for node in walk(stmt):
            for child in ast.iter_child_nodes(node):
                parent[id(child)] = node
    found = {id(skip)}
    inner: ast.AST = skip
    while id(inner) in parent:
        inner = parent[id(inner)]
        found.add(id(inner))
    return found


def _exposed(stmts: list[ast.stmt], defined: set[str], watched: set[str], out: set[str],
             skip: ast.stmt | None = None, enclosing: set[int] | None = None) -> set[str]:
    """Add to ``out`` the ``watched`` names some read of ``stmts`` may see from before them
    (``skip`` and what is inside it not counted); returns the names surely assigned after
    ``stmts`` (given ``defined`` before).  Loops may run no iteration: they define nothing.
    ``enclosing``: ``_enclosing(stmts, skip)``, computed by the outermost call."""
    if skip is not None and enclosing is None:
        enclosing = _enclosing(stmts, skip)
    defined = set(defined)
    for stmt in stmts:
        if stmt is skip:  # it may write them (a search's q = j; break): a later read may see its value
            defined -= watched
            continue
        if isinstance(stmt, ast.Assign):
            target = stmt.targets[0]
            read = _names(stmt.value) | (set() if isinstance(target, ast.Name) else _names(target))
            out.update((read & watched) - defined)
            if isinstance(target, ast.Name):
                defined.add(target.id)
        elif isinstance(stmt, ast.If):
            out.update((_names(stmt.test) & watched) - defined)
            then = _exposed(stmt.body, defined, watched, out, skip, enclosing)
            otherwise = _exposed(stmt.orelse, defined, watched, out, skip, enclosing)
            # a branch that always jumps away reaches no later statement: what follows runs
            # after the other one only (``if c < 0x80: step = 1 ... else: i += 1; continue``)
            if _jumps_away(stmt.body):
                then = defined | watched
            if _jumps_away(stmt.orelse):
                otherwise = defined | watched
            defined |= then & otherwise
        elif isinstance(stmt, (ast.While, ast.For)):
            head = stmt.test if isinstance(stmt, ast.While) else stmt.iter
            out.update((_names(head) & watched) - defined)
            around = enclosing is not None and id(stmt) in enclosing
            # around skip: each iteration may read what skip wrote in the one before, and so may
            # the code after the loop
            _exposed(stmt.body, defined - watched if around else defined, watched, out, skip, enclosing)
            if around:
                defined -= watched
        else:  # augmented assignments, returns, jumps: every name they mention is read
            out.update((_names(stmt) & watched) - defined)
    return defined


# ---- matrix products kept whole (model/region.py Matmul) -------------------------------------
def matmul_variables(call: ast.Call) -> tuple[tuple[str, str, str], list[tuple[str, ast.expr]]]:
    """The names of a ``MATMUL_CALL``'s row, column and sum variables, and its batch items
    (name, extent node), outermost first (model/region.py MATMUL_CALL)."""
    r, c, s = (str(arg.value) for arg in call.args[6:9] if isinstance(arg, ast.Constant))
    stack = []
    for item in call.args[9:]:
        assert isinstance(item, ast.Tuple) and isinstance(item.elts[0], ast.Constant), "written by array_linalg"
        stack.append((str(item.elts[0].value), item.elts[1]))
    return (r, c, s), stack


def matmul_alpha(call: ast.Call, convert) -> ir.Expr | None:
    """A ``MATMUL_CALL``'s ``alpha=`` (a number or a scalar argument the kernel never assigns,
    frontend.array_linalg ``_blas_alpha``) as an expression of the product's dtype, or None."""
    given = [kw.value for kw in call.keywords if kw.arg == "alpha"]
    return convert(given[0]) if given else None


def matmul_accumulates(call: ast.Call) -> bool:
    """A ``MATMUL_CALL``'s ``accumulate=True``: the product is added to ``out``, which it then
    reads too (frontend.array_linalg ``_product_sum``)."""
    return any(kw.arg == "accumulate" and isinstance(kw.value, ast.Constant) and kw.value.value is True
               for kw in call.keywords)


def scaled_matmul(product: rg.Matmul, alpha: ir.Expr | None) -> rg.Matmul:
    """``product`` times ``alpha``: BLAS's alpha, and in its loops' term (``alpha * (a * b)``, each
    element's sum in index order as before, then scaled term by term)."""
    if alpha is None:
        return product
    loads = (ir.Load(product.a.array, product.a.index, product.dtype),
             ir.Load(product.b.array, product.b.index, product.dtype))
    term = ir.BinOp("*", alpha, ir.BinOp("*", *loads, product.dtype), product.dtype)
    return dataclasses.replace(product, alpha=alpha, term=term)


def checked_matmul(product: rg.Matmul, call: ast.Call, convert, factor) -> rg.Matmul:
    """``product`` with a ``MATMUL_CALL``'s ``check=`` and ``scale_a=``/``scale_b=`` (``(op,
    factor_first, factor[...])``, frontend.array_linalg ``_checked_product``): the product of the
    operands as stored where ``check`` holds (BLAS), else each term with its operand scaled
    first, NumPy's order (``Matmul.check``, its ``term`` a ``Select``).  ``convert``: an AST to
    an expression; ``factor(subscript, key)``: the factor's ``Operand``."""
    checked = [kw.value for kw in call.keywords if kw.arg == "check"]
    if not checked:
        return product
    scales = {kw.arg: kw.value for kw in call.keywords if kw.arg in ("scale_a", "scale_b")}
    check = convert(checked[0])
    dtype = product.dtype
    loads: list[ir.Expr] = [ir.Load(product.a.array, product.a.index, dtype),
                            ir.Load(product.b.array, product.b.index, dtype)]
    plain_term = product.term if product.term is not None else ir.BinOp("*", loads[0], loads[1], dtype)
    for k, key in enumerate(("scale_a", "scale_b")):
        given = scales.get(key)
        if given is None:
            continue
        assert isinstance(given, ast.Tuple), "written by array_linalg"
        how, first, sub = given.elts
        assert isinstance(how, ast.Constant) and isinstance(first, ast.Constant)
        f_op = factor(sub, key)
        f = ir.Load(f_op.array, f_op.index, dtype)
        lhs, rhs = (f, loads[k]) if first.value else (loads[k], f)
        loads[k] = ir.BinOp(str(how.value), lhs, rhs, dtype)
    scaled: ir.Expr = ir.BinOp("*", loads[0], loads[1], dtype)
    if product.alpha is not None:
        scaled = ir.BinOp("*", product.alpha, scaled, dtype)
    return dataclasses.replace(product, check=check, term=ir.Select(check, plain_term, scaled, dtype))


def lift_matmul(lifter, node: ast.Expr, scope, inner_scope) -> list:
    """The product as one statement whose body is a ``Matmul``.  Its accesses are exact: the
    rectangle of each operand the sums touch (``inner_scope``: ``scope`` with the product's three
    variables as loop variables, for the subscripts).  Inside a data-dependent if, the output is
    a may-write, so it is read too (as for any region)."""
    call = node.value
    assert isinstance(call, ast.Call)
    out, a, b, *extent_nodes = call.args[:6]
    variables, stack = matmul_variables(call)
    r, c, s = variables
    rows, cols, depth = (lifter.affine(e, scope) for e in extent_nodes)
    batch = [(name, lifter.affine(extent, scope)) for name, extent in stack]
    extents = [rows, cols, depth, *(extent for _, extent in batch)]
    every = variables + tuple(name for name, _ in stack)
    bounds = {v: f"0 <= {isl_name(v)} < {e.text}" for v, e in zip(every, extents)}
    over_batch = tuple(name for name, _ in stack)

    def operand(sub: ast.expr, over: tuple[str, ...]) -> tuple[rg.Operand, str]:
        assert isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name), "written by array_linalg"
        array = sub.value.id
        items = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
        index = [lifter.affine(item, inner_scope) for item in items]
        dims = [f"pf_o{d}" for d in range(len(index))]
        where = [f"{d} = {a.text}" for d, a in zip(dims, index)] + [bounds[v] for v in over]
        text = (f"{isl_name(array)}[{', '.join(dims)}] : exists ({', '.join(isl_name(v) for v in over)} : "
                f"{' and '.join(where)})")
        return rg.Operand(array, tuple(a.expr for a in index)), text

    out_op, out_text = operand(out, (r, c) + over_batch)
    a_op, a_text = operand(a, (r, s) + over_batch)
    b_op, b_text = operand(b, (s, c) + over_batch)
    dtype = lifter.arrays[out_op.array].dtype
    exprs = lifter.expressions(scope)
    alpha = matmul_alpha(call, lambda e: exprs.coerce(exprs.convert(e), VType(dtype, False)))
    accumulate = matmul_accumulates(call)
    product = scaled_matmul(rg.Matmul(out_op, a_op, b_op, rows.expr, cols.expr, depth.expr, (r, c, s), dtype,
                                      accumulate=accumulate,
                                      batch=tuple((name, extent.expr) for name, extent in batch)), alpha)
    reads = [(a_text, None), (b_text, None)] + ([(out_text, None)] if accumulate else [])
    factors: set[str] = set()

    def factor(sub: ast.expr, key: str) -> rg.Operand:
        f_op, f_text = operand(sub, ((r,) if key == "scale_a" else (c,)) + over_batch)
        reads.append((f_text, None))
        factors.add(f_op.array)
        return f_op

    known = len(exprs.read_texts)
    product = checked_matmul(product, call, exprs.convert, factor)
    reads += exprs.read_texts[known:]  # (the scalars of the check)
    if product.check is not None:
        factors.update(e.array for e in ir.walk(product.check) if isinstance(e, ir.Load))
    body: tuple[rg.Op, ...] = (product,)
    if lifter.guards:  # inside a data-dependent if: runs where its condition holds
        body = (rg.IfElse(guard_expr(lifter.guards, lifter.expressions(scope)), body),)
        reads.append((out_text, None))
    region = rg.Region(body=body, reason="matrix product (BLAS where the layout allows)",
                       line=lifter.source.span(node).line,
                       reads=tuple(sorted({a_op.array, b_op.array} | factors
                                          | ({out_op.array} if lifter.guards or accumulate else set()))),
                       writes=(out_op.array,))
    return [lifter.add_region(node, region, scope, reads, [(out_text, None)])]


# ---- np.linalg routines on LAPACK (model/region.py Lapack) -----------------------------------
_LAPACK_SIZES = ("n", "m", "nrhs", "b_cols")
_LAPACK_NAMES = ("a", "b", "pivots", "info", "sign", "logdet", "s", "rank", "rcond", "jobz", "uplo", "u", "vt")


def lapack_parts(call: ast.Call) -> dict:
    """The keywords of a ``LAPACK_CALL`` frontend.array_lapack wrote: constants, buffer and
    scalar names ("" where absent), and the size ASTs."""
    found: dict = dict.fromkeys(_LAPACK_NAMES, "")
    for kw in call.keywords:
        value = kw.value
        if kw.arg in _LAPACK_SIZES:
            found[kw.arg] = value
        elif isinstance(value, ast.Name):
            found[kw.arg] = value.id
        else:
            assert isinstance(value, ast.Constant), "written by array_lapack"
            found[kw.arg] = value.value
    return found


def lapack_op(parts: dict, size) -> rg.Lapack:
    """The region operation of a LAPACK_CALL's ``parts``; ``size(ast)`` converts a size."""
    names = {key: parts[key] for key in _LAPACK_NAMES if key not in ("a", "info")}
    return rg.Lapack(parts["routine"], parts["call"], parts["dtype"], parts["a"], size(parts["n"]), parts["info"],
                     m=size(parts["m"]), b_rank=parts["b_rank"], nrhs=size(parts["nrhs"]), **names)


def lift_lapack(lifter, node: ast.Expr, scope) -> list:
    """The routine as one statement whose body is a ``Lapack``.  It reads its inputs (``a``,
    ``b``, ``rcond``) and writes every buffer and scalar it is given, each over the block LAPACK
    uses (``a``: ``n x m``, ``b``: ``nrhs x b_cols`` or ``n``; buffers allocated at their largest
    over enclosing loops hold more); inside a data-dependent if, its writes are may-writes, so they
    are read too (as for any region)."""
    call = node.value
    assert isinstance(call, ast.Call)
    parts = lapack_parts(call)
    n, m, nrhs, b_cols = (lifter.affine(parts[key], scope) for key in _LAPACK_SIZES)
    op = lapack_op(parts, lambda node: lifter.affine(node, scope).expr)

    def whole(array: str, extents: tuple) -> str:
        dims = [f"pf_o{d}" for d in range(len(extents))]
        bounds = " and ".join(f"0 <= {d} < {e.text}" for d, e in zip(dims, extents))
        return f"{isl_name(array)}[{', '.join(dims)}]" + (f" : {bounds}" if bounds else "")

    inputs = [whole(op.a, (n, m))]
    if op.b:
        inputs.append(whole(op.b, (n,) if op.b_rank == 1 else (nrhs, b_cols)))
    outputs = inputs + ([whole(op.pivots, (n,))] if op.pivots else [])
    outputs += [_whole(name, lifter.arrays[name]) for name in (op.s, op.u, op.vt) if name]
    outputs += [whole(name, ()) for name in (op.info, op.sign, op.logdet, op.rank) if name]
    if op.rcond:
        inputs.append(whole(op.rcond, ()))
    body: tuple[rg.Op, ...] = (op,)
    reads = [(text, None) for text in inputs]
    read_names = {op.a, op.b, op.rcond} - {""}
    if lifter.guards:  # inside a data-dependent if: runs where its condition holds
        body = (rg.IfElse(guard_expr(lifter.guards, lifter.expressions(scope)), body),)
        reads += [(text, None) for text in outputs]
        read_names |= set(op.outputs())
    written = tuple(sorted(op.outputs()))
    region = rg.Region(body=body, reason=f"LAPACK {op.symbol} for {op.call}", line=lifter.source.span(node).line,
                       reads=tuple(sorted(read_names)), writes=written)
    return [lifter.add_region(node, region, scope, reads, [(text, None) for text in outputs])]
