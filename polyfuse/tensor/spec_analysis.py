"""Analysis: names, ranks and index ranges of a parsed spec, and the call-time checks.

Takes the parsed statements (spec_parse); decides which names are array inputs, scalar inputs,
intermediates and outputs, infers every index's range from the subscripts that use it (as source
expressions over the inputs' shapes), and records the checks a call must pass.  Every static
error of a spec that parses is raised here; code generation and staging assume an analysed spec.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from polyfuse.tensor.codegen import Caret
from polyfuse.tensor.spec_syntax import (
    FUNCTIONS,
    REDUCTIONS,
    Access,
    Expr,
    Index,
    Name,
    Reduce,
    SpecError,
    Statement,
    _children,
    _walk,
)


@dataclass
class _Check:
    """A call-time condition ``lhs == rhs`` (or ``lhs <= rhs``) on extents, with its message."""

    lhs: str
    op: str
    rhs: str
    message: str
    pos: int
    width: int
    involved: tuple[str, ...] = ()  # extents that must be non-zero for the access to happen


def _paren(expr: str) -> str:
    return expr if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*\.shape\[\d+\]|\d+", expr) else f"({expr})"


class _Analysis:
    def __init__(self, text: str, statements: list[Statement], outputs: list[str] | str | None) -> None:
        self.text = text
        self.statements = statements
        self.inputs: list[str] = []  # array inputs, first appearance order
        self.scalars: list[str] = []
        self.ranks: dict[str, int] = {}
        self.first_use: dict[str, Access] = {}
        self.defined: dict[str, Statement] = {}
        self.shapes: dict[str, list[str]] = {}  # tensor -> extent expressions (inputs: X.shape[d])
        self.checks: list[_Check] = []
        self.nonempty: list[tuple[str, str, int, int]] = []  # (extent, reduction, pos, width)
        self.run()
        self.outputs = self.pick_outputs(outputs)

    def error(self, message: str, pos: int, width: int = 1) -> SpecError:
        return SpecError(message, self.text, pos, width)

    def run(self) -> None:
        for stmt in self.statements:
            self.names(stmt)
            self.ranges(stmt)
            self.defined[stmt.target] = stmt
            self.shapes[stmt.target] = [stmt.extents[n] for n, _ in stmt.indices]

    def names(self, stmt: Statement) -> None:
        if stmt.target in self.defined:
            raise self.error(f"{stmt.target!r} is assigned twice (first at line "
                             f"{Caret(self.text, self.defined[stmt.target].pos).line_col()[0]}); "
                             "every tensor is defined once", stmt.pos, len(stmt.target))
        if stmt.target in self.ranks and stmt.target not in self.defined:
            use = self.first_use[stmt.target]
            raise self.error(f"{stmt.target!r} is read before this statement defines it", use.pos,
                             len(stmt.target))
        if stmt.target in self.scalars:
            raise self.error(f"{stmt.target!r} is used as a scalar input earlier", stmt.pos, len(stmt.target))
        target_idx = {n for n, _ in stmt.indices}
        self.scope_check(stmt.expr, set(target_idx), stmt)
        used = {v for node in _walk(stmt.expr) if isinstance(node, Access) for ix in node.index
                for v, _ in ix.coefs} | {node.name for node in _walk(stmt.expr) if isinstance(node, Name)}
        for name, pos in stmt.indices:
            if name not in used:
                raise self.error(f"index {name!r} of the target does not appear on the right-hand side, "
                                 "so its range cannot be inferred", pos, len(name))

    def scope_check(self, node: Expr, scope: set[str], stmt: Statement) -> None:
        if isinstance(node, Reduce):
            inner = set(scope)
            for var, pos in node.vars:
                if var in scope:
                    raise self.error(f"reduction index {var!r} is already an index here", pos, len(var))
                inner.add(var)
            used = {v for n in _walk(node.body) if isinstance(n, Access) for ix in n.index for v, _ in ix.coefs}
            for var, pos in node.vars:
                if var not in used:
                    raise self.error(f"reduction index {var!r} is not used as a subscript in the body, so "
                                     "its range cannot be inferred", pos, len(var))
            self.scope_check(node.body, inner, stmt)
            return
        if isinstance(node, Access):
            if node.tensor in self.scalars or node.tensor in REDUCTIONS or node.tensor in FUNCTIONS:
                raise self.error(f"{node.tensor!r} is not a tensor", node.pos, len(node.tensor))
            if node.tensor == stmt.target:
                raise self.error(f"{node.tensor!r} reads itself; a statement cannot use its own target",
                                 node.pos, len(node.tensor))
            rank = len(node.index)
            known = len(self.shapes[node.tensor]) if node.tensor in self.defined else self.ranks.get(node.tensor)
            if known is not None and known != rank:
                raise self.error(f"{node.tensor!r} has {known} indices elsewhere but {rank} here",
                                 node.pos, node.end - node.pos)
            if node.tensor not in self.defined and node.tensor not in self.ranks:
                self.inputs.append(node.tensor)
                self.first_use[node.tensor] = node
            self.ranks[node.tensor] = rank
            for ix in node.index:
                for var, pos in ix.var_pos:
                    if var not in scope:
                        hint = f"; sum it with sum[{var}](...)" if var not in scope else ""
                        raise self.error(f"index {var!r} is neither an index of the target nor of an "
                                         f"enclosing reduction{hint}", pos, len(var))
                for var, coef in ix.coefs:
                    if coef < 0:
                        raise self.error(f"subscript {self.text[ix.pos:ix.end]!r} decreases with {var!r}; "
                                         "subscripts must be index sums with positive coefficients",
                                         ix.pos, ix.end - ix.pos)
                if ix.const < 0:
                    raise self.error(f"subscript {self.text[ix.pos:ix.end]!r} is negative at {' = '.join(v for v, _ in ix.coefs) or 'all'} = 0; "
                                     "index ranges start at 0, so write the other accesses shifted "
                                     "(e.g. X[i] and X[i + 1] instead of X[i - 1] and X[i])",
                                     ix.pos, ix.end - ix.pos)
            return
        if isinstance(node, Name):
            if node.name in scope:
                return
            if node.name in self.ranks or node.name in self.defined:
                raise self.error(f"{node.name!r} is a tensor; index it (e.g. {node.name}[...])", node.pos,
                                 len(node.name))
            if node.name in REDUCTIONS or node.name in FUNCTIONS:
                raise self.error(f"{node.name!r} is a built-in", node.pos, len(node.name))
            if node.name not in self.scalars:
                self.scalars.append(node.name)
            return
        for child in _children(node):
            self.scope_check(child, scope, stmt)

    def dim(self, tensor: str, axis: int) -> str:
        if tensor in self.defined:
            return self.shapes[tensor][axis]
        return f"{tensor}.shape[{axis}]"

    def ranges(self, stmt: Statement) -> None:
        """Index ranges ``0 <= v < extent``: a plain subscript ``X[.., v, ..]`` gives ``v`` the
        extent of that axis (every plain use must agree, checked at call time); a subscript with
        offsets bounds the range so that the access stays inside the array (``x[i + 2]`` shrinks
        ``i`` to ``x.shape[0] - 2``; ``X[h + r]`` with a known ``r`` gives ``h`` the rest)."""
        accesses = [n for n in _walk(stmt.expr) if isinstance(n, Access)]
        variables = [n for n, _ in stmt.indices]
        for node in _walk(stmt.expr):
            if isinstance(node, Reduce):
                variables += [v for v, _ in node.vars if v not in variables]
        plain: dict[str, str] = {}
        source: dict[str, tuple[Access, int]] = {}
        pending: list[tuple[Access, int, Index]] = []
        for acc in accesses:
            for axis, ix in enumerate(acc.index):
                var = ix.plain
                if var is not None and var not in plain:
                    plain[var] = self.dim(acc.tensor, axis)
                    source[var] = (acc, axis)
                elif var is None:
                    pending.append((acc, axis, ix))
        extents: dict[str, str] = dict(plain)
        shrink: dict[str, list[str]] = {}
        solved: set[int] = set()
        progress = True
        while progress:
            progress = False
            candidates: dict[str, list[str]] = {}
            for n, (acc, axis, ix) in enumerate(pending):
                names = [v for v, _ in ix.coefs]
                unknown = [v for v in names if v not in extents]
                if n in solved or not (len(unknown) == 1 or (len(names) == 1 and not unknown)):
                    continue
                var = unknown[0] if unknown else names[0]
                solved.add(n)
                candidates.setdefault(var, []).append(self.solve(acc, axis, ix, var, extents))
                source.setdefault(var, (acc, axis))
            for var, cands in candidates.items():
                shrink.setdefault(var, [])
                shrink[var] += [c for c in cands if c not in shrink[var]]
                bounds = ([plain[var]] if var in plain else []) + shrink[var]
                extents[var] = bounds[0] if len(bounds) == 1 else f"min({', '.join(bounds)})"
                progress = True
        for var in variables:
            if var not in extents:
                pos = next((p for n, p in stmt.indices if n == var), stmt.pos)
                raise self.error(f"cannot infer the range of index {var!r}: every subscript using it also "
                                 "uses another index whose range is unknown", pos, len(var))
        self.add_checks(accesses, pending, solved, plain, source, extents)
        stmt.extents = {v: extents[v] for v in variables}
        for node in _walk(stmt.expr):
            if isinstance(node, Reduce) and node.op in ("max", "min"):
                for var, _pos in node.vars:
                    self.nonempty.append((extents[var], f"{node.op}[{var}]", node.pos, len(node.op)))

    def solve(self, acc: Access, axis: int, ix: Index, var: str, extents: dict[str, str]) -> str:
        """The largest extent of ``var`` that keeps ``acc``'s subscript ``ix`` inside the axis."""
        coef = dict(ix.coefs)[var]
        expr = self.dim(acc.tensor, axis)
        parts = [_paren(expr) if len(ix.coefs) > 1 or ix.const else expr]
        if ix.const:
            parts.append(f"- {ix.const}")
        for other, c in ix.coefs:
            if other != var:
                parts.append(f"- {_paren(extents[other])} + 1" if c == 1 else f"- {c} * ({extents[other]} - 1)")
        cand = " ".join(parts)
        return cand if coef == 1 else f"({cand} - 1) // {coef} + 1"

    def add_checks(self, accesses: list[Access], pending: list[tuple[Access, int, Index]], solved: set[int],
                   plain: dict[str, str], source: dict[str, tuple[Access, int]],
                   extents: dict[str, str]) -> None:
        """Call-time checks: plain uses agree with the defining axis, the rest stay in bounds."""
        for acc in accesses:
            for axis, ix in enumerate(acc.index):
                dim = self.dim(acc.tensor, axis)
                var = ix.plain
                if var is None:
                    continue
                src_acc, src_axis = source[var]
                if (src_acc is acc and src_axis == axis) or dim == plain[var]:
                    continue
                here = f"{acc.tensor}[{', '.join(self.text[i.pos:i.end] for i in acc.index)}]"
                where = Caret(self.text, src_acc.pos).line_col()
                self.checks.append(_Check(
                    dim, "==", plain[var],
                    f"index {var!r} has range {{rhs}} (from axis {src_axis} of {src_acc.tensor}, "
                    f"line {where[0]} col {where[1] + 1}) but axis {axis} of {acc.tensor} has extent "
                    f"{{lhs}} in {here}", ix.pos, ix.end - ix.pos))
        for n, (acc, axis, ix) in enumerate(pending):
            if n in solved:
                continue
            top = " + ".join([f"{c} * ({extents[v]} - 1)" if c != 1 else f"({extents[v]} - 1)"
                              for v, c in ix.coefs] + [str(ix.const)])
            self.checks.append(_Check(
                top, "<", self.dim(acc.tensor, axis),
                f"subscript {self.text[ix.pos:ix.end]!r} reaches {{lhs}} but axis {axis} of "
                f"{acc.tensor} has extent {{rhs}}", ix.pos, ix.end - ix.pos,
                tuple(extents[v] for v, _ in ix.coefs)))

    def pick_outputs(self, outputs: list[str] | str | None) -> list[str]:
        targets = [s.target for s in self.statements]
        if outputs is None:
            used = {n.tensor for s in self.statements for n in _walk(s.expr) if isinstance(n, Access)}
            return [t for t in targets if t not in used]
        if isinstance(outputs, str):
            outputs = [outputs]
        result: list[str] = []
        for name in outputs:
            if name not in targets:
                raise SpecError(f"outputs: {name!r} is not a target of the spec (targets: {', '.join(targets)})")
            if name in result:
                raise SpecError(f"outputs: {name!r} is listed twice")
            result.append(name)
        if not result:
            raise SpecError("outputs: the spec must return at least one tensor")
        return result
