"""``polyfuse.spec``: several tensor statements in a small index notation, compiled as one kernel.

```
H[i, j] = relu(sum[k](X[i, k] * W1[k, j]) + b1[j])
Y[i, l] = sum[j](H[i, j] * W2[j, l])
```

Each statement becomes one loop nest over its target's indices; ``sum[k](e)`` becomes a scalar
accumulator loop (``max``/``min``: a running maximum/minimum, ``prod``: a running product).  The
whole spec is generated as one loop-nest function in the supported subset, wrapped with
``polyfuse.kernel`` (so polyfuse fuses the statements' loops), and called with arrays allocated
from the inferred index ranges.  The language is documented in docs/einsum.md.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from polyfuse.errors import ArgumentError, PolyfuseError
from polyfuse.tensor.codegen import SUPPORTED_DTYPES, Caret, Lines, build_kernel, check_target, dtype_source
from polyfuse.tensor.workspace import Workspace

if TYPE_CHECKING:
    from polyfuse.explain import Explanation
    from polyfuse.kernel import Kernel

__all__ = ["Spec", "SpecError", "spec"]

REDUCTIONS = ("sum", "max", "min", "prod")
#: names a tensor or scalar input may not have (they mean something in the generated kernel)
RESERVED = frozenset({"np", "math", "range", "float", "int", "abs", "min", "max", "spec_kernel", "True",
                      "False", "None"})
#: elementwise functions: name -> (min args, max args)
FUNCTIONS = {
    "exp": (1, 1), "log": (1, 1), "sqrt": (1, 1), "tanh": (1, 1), "sin": (1, 1), "cos": (1, 1),
    "abs": (1, 1), "relu": (1, 1), "sigmoid": (1, 1), "min": (2, 99), "max": (2, 99), "pow": (2, 2),
}


class SpecError(ArgumentError):
    """A spec that cannot be compiled or called: syntax, indices, shapes.  Points at line:col."""

    def __init__(self, message: str, text: str = "", offset: int | None = None, width: int = 1) -> None:
        self.reason = message
        self.line = self.col = None
        if offset is not None and text:
            caret = Caret(text, offset, width)
            self.line, col = caret.line_col()
            self.col = col + 1
            message = f"spec line {self.line}, col {self.col}: {message}\n{caret.render()}"
        super().__init__(message)


# ----------------------------------------------------------------------------------------------
# Syntax tree
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Num:
    value: float | int
    pos: int


@dataclass(frozen=True)
class Name:  # an index variable used as a value, or a scalar input
    name: str
    pos: int


@dataclass(frozen=True)
class Index:
    """An affine subscript: sum(coef * var) + const."""

    coefs: tuple[tuple[str, int], ...]
    const: int
    pos: int
    end: int
    var_pos: tuple[tuple[str, int], ...] = ()

    @property
    def plain(self) -> str | None:
        if self.const == 0 and len(self.coefs) == 1 and self.coefs[0][1] == 1:
            return self.coefs[0][0]
        return None


@dataclass(frozen=True)
class Access:
    tensor: str
    index: tuple[Index, ...]
    pos: int
    end: int


@dataclass(frozen=True)
class Bin:
    op: str
    lhs: Expr
    rhs: Expr
    pos: int


@dataclass(frozen=True)
class Neg:
    operand: Expr
    pos: int


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Expr, ...]
    pos: int


@dataclass(frozen=True)
class Reduce:
    op: str
    vars: tuple[tuple[str, int], ...]  # (name, pos)
    body: Expr
    pos: int
    end: int = -1  # one past the closing parenthesis


#: A node of a statement's right-hand side.
Expr: TypeAlias = Num | Name | Access | Bin | Neg | Call | Reduce


def _children(node: Expr) -> tuple[Expr, ...]:
    """The operands of ``node``, in source order (a reduction's is its body)."""
    if isinstance(node, Bin):
        return node.lhs, node.rhs
    if isinstance(node, Neg):
        return (node.operand,)
    if isinstance(node, Call):
        return node.args
    if isinstance(node, Reduce):
        return (node.body,)
    return ()


@dataclass
class Statement:
    target: str
    indices: tuple[tuple[str, int], ...]
    expr: Expr
    pos: int
    end: int
    extents: dict[str, str] = field(default_factory=dict)  # index -> extent source (in input shapes)


# ----------------------------------------------------------------------------------------------
# Tokenizer and parser
# ----------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+|\#[^\n]*|\\\n)
  | (?P<nl>[\n;])
  | (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>\*\*|[-+*/()\[\],=])
""", re.VERBOSE)


@dataclass(frozen=True)
class _Tok:
    kind: str  # num name op nl end
    text: str
    pos: int


def _tokenize(text: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    depth = 0
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise SpecError(f"unexpected character {text[pos]!r}", text, pos)
        kind = m.lastgroup
        assert kind is not None, "every alternative of _TOKEN is a named group"
        if kind == "nl":
            if depth == 0:
                tokens.append(_Tok("nl", m.group(), pos))
        elif kind != "ws":
            tok = _Tok(kind, m.group(), pos)
            if tok.text in "([":
                depth += 1
            elif tok.text in ")]":
                depth = max(0, depth - 1)
            tokens.append(tok)
        pos = m.end()
    tokens.append(_Tok("end", "", len(text)))
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0

    # helpers
    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def error(self, message: str, tok: _Tok | None = None, width: int | None = None) -> SpecError:
        tok = tok or self.tok
        return SpecError(message, self.text, tok.pos, width or max(1, len(tok.text)))

    def describe(self, tok: _Tok) -> str:
        return {"nl": "end of line", "end": "end of spec"}.get(tok.kind, repr(tok.text))

    def expect(self, text: str, what: str = "") -> _Tok:
        if self.tok.text != text or self.tok.kind not in ("op",):
            raise self.error(f"expected {text!r}{what} but found {self.describe(self.tok)}")
        tok = self.tok
        self.i += 1
        return tok

    def name(self, what: str) -> _Tok:
        if self.tok.kind != "name":
            raise self.error(f"expected {what} but found {self.describe(self.tok)}")
        tok = self.tok
        self.i += 1
        return tok

    def check_name(self, tok: _Tok) -> None:
        import keyword

        text = tok.text
        if text in REDUCTIONS or text in FUNCTIONS or text in RESERVED or keyword.iskeyword(text):
            raise self.error(f"{text!r} is a reserved name and cannot name a tensor or scalar", tok)
        if text.endswith("_") or re.fullmatch(r"acc\d+", text):
            raise self.error(f"{text!r}: names ending in '_' and acc<N> are reserved for generated code", tok)

    # grammar
    def program(self) -> list[Statement]:
        statements: list[Statement] = []
        while True:
            while self.tok.kind == "nl":
                self.i += 1
            if self.tok.kind == "end":
                break
            statements.append(self.statement())
            if self.tok.kind not in ("nl", "end"):
                raise self.error(f"expected the end of the statement but found {self.describe(self.tok)}")
        if not statements:
            raise SpecError("the spec has no statements (expected e.g. 'Y[i] = sum[j](A[i, j] * x[j])')")
        return statements

    def statement(self) -> Statement:
        start = self.tok
        target = self.name("a target tensor, e.g. 'Y[i, j] = ...'")
        self.check_name(target)
        indices: list[tuple[str, int]] = []
        if self.tok.text == "[":
            self.i += 1
            while True:
                tok = self.name("an index name (targets are indexed by plain names, e.g. Y[i, j])")
                if any(n == tok.text for n, _ in indices):
                    raise self.error(f"index {tok.text!r} appears twice in the target", tok)
                indices.append((tok.text, tok.pos))
                if self.tok.text == ",":
                    self.i += 1
                    continue
                if self.tok.text != "]":
                    raise self.error(f"expected ',' or ']' in the target's indices but found "
                                     f"{self.describe(self.tok)} (targets are indexed by plain names)")
                self.i += 1
                break
        if self.tok.text != "=":
            raise self.error(f"expected '=' after the target but found {self.describe(self.tok)}")
        self.i += 1
        expr = self.expr()
        end = self.toks[self.i - 1]
        return Statement(target.text, tuple(indices), expr, start.pos, end.pos + len(end.text))

    def expr(self) -> Expr:
        node = self.term()
        while self.tok.text in ("+", "-") and self.tok.kind == "op":
            op = self.tok
            self.i += 1
            node = Bin(op.text, node, self.term(), op.pos)
        return node

    def term(self) -> Expr:
        node = self.unary()
        while self.tok.text in ("*", "/") and self.tok.kind == "op":
            op = self.tok
            self.i += 1
            node = Bin(op.text, node, self.unary(), op.pos)
        return node

    def unary(self) -> Expr:
        if self.tok.text == "-" and self.tok.kind == "op":
            tok = self.tok
            self.i += 1
            return Neg(self.unary(), tok.pos)
        if self.tok.text == "+" and self.tok.kind == "op":
            self.i += 1
            return self.unary()
        node = self.atom()
        if self.tok.text == "**":
            op = self.tok
            self.i += 1
            return Bin("**", node, self.unary(), op.pos)
        return node

    def atom(self) -> Expr:
        tok = self.tok
        if tok.kind == "num":
            self.i += 1
            is_int = re.fullmatch(r"\d+", tok.text) is not None
            return Num(int(tok.text) if is_int else float(tok.text), tok.pos)
        if tok.text == "(":
            self.i += 1
            node = self.expr()
            self.expect(")", " to close the parenthesis")
            return node
        if tok.kind != "name":
            raise self.error(f"expected a value (number, name, tensor element, function call) but found "
                             f"{self.describe(tok)}")
        self.i += 1
        nxt = self.tok.text
        if tok.text in REDUCTIONS and nxt == "[":
            return self.reduction(tok)
        if tok.text in FUNCTIONS and nxt == "(":
            return self.call(tok)
        if tok.text in REDUCTIONS or tok.text in FUNCTIONS:
            hint = f"{tok.text}[k](...)" if tok.text in REDUCTIONS else f"{tok.text}(...)"
            raise self.error(f"{tok.text!r} must be called, e.g. {hint}", tok)
        if nxt == "(":
            raise self.error(f"unknown function {tok.text!r}; functions are "
                             f"{', '.join(sorted(FUNCTIONS))} and reductions {', '.join(REDUCTIONS)}[...]", tok)
        self.check_name(tok)
        if nxt == "[":
            return self.access(tok)
        return Name(tok.text, tok.pos)

    def reduction(self, tok: _Tok) -> Reduce:
        self.expect("[")
        names: list[tuple[str, int]] = []
        while True:
            var = self.name(f"a reduction index, e.g. {tok.text}[k](...)")
            if any(n == var.text for n, _ in names):
                raise self.error(f"index {var.text!r} appears twice in {tok.text}[...]", var)
            names.append((var.text, var.pos))
            if self.tok.text == ",":
                self.i += 1
                continue
            self.expect("]", f" to close {tok.text}[...]")
            break
        self.expect("(", f" after {tok.text}[...] (e.g. {tok.text}[k](A[i, k]))")
        body = self.expr()
        close = self.expect(")", f" to close {tok.text}[...](...)")
        return Reduce(tok.text, tuple(names), body, tok.pos, close.pos + 1)

    def call(self, tok: _Tok) -> Call:
        self.expect("(")
        args = [self.expr()]
        while self.tok.text == ",":
            self.i += 1
            args.append(self.expr())
        self.expect(")", f" to close {tok.text}(...)")
        lo, hi = FUNCTIONS[tok.text]
        if not lo <= len(args) <= hi:
            want = f"{lo}" if lo == hi else f"at least {lo}"
            raise self.error(f"{tok.text}() takes {want} argument{'s' if lo > 1 else ''}, got {len(args)}", tok)
        return Call(tok.text, tuple(args), tok.pos)

    def access(self, tok: _Tok) -> Access:
        self.expect("[")
        index = [self.index()]
        while self.tok.text == ",":
            self.i += 1
            index.append(self.index())
        close = self.expect("]", f" to close {tok.text}[...]")
        return Access(tok.text, tuple(index), tok.pos, close.pos + 1)

    def index(self) -> Index:
        start = self.tok.pos
        coefs: dict[str, int] = {}
        var_pos: dict[str, int] = {}
        const = 0
        sign = 1
        first = True
        while True:
            if self.tok.text in ("+", "-") and self.tok.kind == "op":
                sign = 1 if self.tok.text == "+" else -1
                self.i += 1
            elif not first:
                break
            first = False
            tok = self.tok
            if tok.kind == "num":
                if not re.fullmatch(r"\d+", tok.text):
                    raise self.error("subscripts must be integers: index names and integer offsets", tok)
                self.i += 1
                value = int(tok.text)
                if self.tok.text == "*":
                    self.i += 1
                    var = self.name("an index name after '*' (e.g. X[2 * i + r])")
                    coefs[var.text] = coefs.get(var.text, 0) + sign * value
                    var_pos.setdefault(var.text, var.pos)
                else:
                    const += sign * value
            elif tok.kind == "name":
                self.i += 1
                coef = 1
                if self.tok.text == "*":
                    self.i += 1
                    num = self.tok
                    if num.kind != "num" or not re.fullmatch(r"\d+", num.text):
                        raise self.error("a subscript may multiply an index only by an integer constant")
                    self.i += 1
                    coef = int(num.text)
                coefs[tok.text] = coefs.get(tok.text, 0) + sign * coef
                var_pos.setdefault(tok.text, tok.pos)
            else:
                raise self.error(f"expected an index (a name, e.g. i, i + 1, 2 * i + r) but found "
                                 f"{self.describe(tok)}")
            if self.tok.text not in ("+", "-"):
                break
        end = self.toks[self.i - 1]
        return Index(tuple((v, c) for v, c in coefs.items() if c != 0), const, start,
                     end.pos + len(end.text), tuple(var_pos.items()))


# ----------------------------------------------------------------------------------------------
# Analysis: names, ranks, index ranges
# ----------------------------------------------------------------------------------------------

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


def _walk(node: Expr) -> Iterator[Expr]:
    yield node
    for child in _children(node):
        yield from _walk(child)


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


# ----------------------------------------------------------------------------------------------
# Code generation
# ----------------------------------------------------------------------------------------------

_UNARY = {"exp": "np.exp({})", "log": "np.log({})", "sqrt": "np.sqrt({})", "tanh": "np.tanh({})",
          "sin": "np.sin({})", "cos": "np.cos({})", "abs": "abs({})", "relu": "max({}, 0.0)",
          "sigmoid": "1.0 / (1.0 + np.exp(-({})))"}


class _Generator:
    def __init__(self, analysis: _Analysis, dtype: np.dtype) -> None:
        self.a = analysis
        self.dtype = dtype
        self.src = Lines()
        self.counter = 0
        self.prelude: list[str] = []  # kernel-local allocations for hoisted reductions
        self.hoisted: dict[int, tuple[str, list[str]]] = {}
        self.locals = [s.target for s in analysis.statements if s.target not in analysis.outputs]

    def var(self, name: str) -> str:
        return f"{name}_"  # never clashes with tensor names, scalars, np or math

    def generate(self) -> str:
        a = self.a
        params = [*a.inputs, *a.scalars, *a.outputs]
        self.src.add(0, f"def spec_kernel({', '.join(params)}):")
        self.src.add(1, '"""generated by polyfuse.spec"""')
        for stmt in a.statements:
            if stmt.target in self.locals:
                shape = ", ".join(stmt.extents[n] for n, _ in stmt.indices) or "1"
                self.src.add(1, f"{stmt.target} = np.empty(({shape},), dtype={dtype_source(self.dtype)})")
        head = len(self.src.lines)
        for stmt in a.statements:
            self.statement(stmt)
        self.src.lines[head:head] = ["    " + line for line in self.prelude]
        return self.src.text()

    def statement(self, stmt: Statement) -> None:
        self.hoisted = {}
        order = [n for n, _ in stmt.indices]
        for node in _top_reductions(stmt.expr):
            free = _update_form(node, order)
            if free is None:
                continue
            temp = f"acc{self.counter}"
            self.counter += 1
            shape = ", ".join(stmt.extents[f] for f in free)
            self.prelude.append(f"{temp} = np.zeros(({shape},), dtype={dtype_source(self.dtype)})")
            loops = free[:-1] + [v for v, _ in node.vars] + free[-1:]
            env = {v: self.var(v) for v in loops}
            depth = 1
            for var in loops:
                self.src.add(depth, f"for {self.var(var)} in range({stmt.extents[var]}):")
                depth += 1
            body = self.expr(node.body, env, depth, stmt)
            self.src.add(depth, f"{temp}[{', '.join(env[f] for f in free)}] += {body}")
            self.hoisted[id(node)] = (temp, free)
        depth = 1
        env = {}
        for name, _ in stmt.indices:
            self.src.add(depth, f"for {self.var(name)} in range({stmt.extents[name]}):")
            env[name] = self.var(name)
            depth += 1
        value = self.expr(stmt.expr, env, depth, stmt)
        index = ", ".join(env[n] for n, _ in stmt.indices) or "0"
        self.src.add(depth, f"{stmt.target}[{index}] = {value}")

    def expr(self, node: Expr, env: dict[str, str], depth: int, stmt: Statement) -> str:
        if isinstance(node, Num):
            return repr(float(node.value)) if isinstance(node.value, float) else str(node.value)
        if isinstance(node, Name):
            return env.get(node.name, node.name)
        if isinstance(node, Access):
            parts = []
            for ix in node.index:
                terms = [env[v] if c == 1 else f"{c} * {env[v]}" for v, c in ix.coefs]
                if ix.const or not terms:
                    terms.append(str(ix.const))
                parts.append(" + ".join(terms))
            return f"{node.tensor}[{', '.join(parts)}]"
        if isinstance(node, Bin):
            lhs = self.expr(node.lhs, env, depth, stmt)
            rhs = self.expr(node.rhs, env, depth, stmt)
            return f"({lhs} {node.op} {rhs})"
        if isinstance(node, Neg):
            return f"(-{self.expr(node.operand, env, depth, stmt)})"
        if isinstance(node, Call):
            args = [self.expr(arg, env, depth, stmt) for arg in node.args]
            if node.func in _UNARY:
                return _UNARY[node.func].format(args[0])
            if node.func == "pow":
                return f"({args[0]} ** {args[1]})"
            return f"{node.func}({', '.join(args)})"
        if isinstance(node, Reduce):
            if id(node) in self.hoisted:
                temp, free = self.hoisted[id(node)]
                return f"{temp}[{', '.join(env[f] for f in free)}]"
            return self.reduction(node, env, depth, stmt)
        raise PolyfuseError(f"spec: unexpected node {node!r}")  # pragma: no cover

    def reduction(self, node: Reduce, env: dict[str, str], depth: int, stmt: Statement) -> str:
        acc = f"acc{self.counter}"
        self.counter += 1
        if node.op in ("sum", "prod"):
            self.src.add(depth, f"{acc} = {'0.0' if node.op == 'sum' else '1.0'}")
        else:  # running max/min starts from the body at index 0 (ranges are checked non-empty)
            first = dict(env)
            first.update({v: "0" for v, _ in node.vars})
            self.src.add(depth, f"{acc} = {self.expr(node.body, first, depth, stmt)}")
        inner = dict(env)
        d = depth
        for var, _ in node.vars:
            self.src.add(d, f"for {self.var(var)} in range({stmt.extents[var]}):")
            inner[var] = self.var(var)
            d += 1
        body = self.expr(node.body, inner, d, stmt)
        if node.op == "sum":
            self.src.add(d, f"{acc} += {body}")
        elif node.op == "prod":
            self.src.add(d, f"{acc} *= {body}")
        else:
            self.src.add(d, f"{acc} = {node.op}({acc}, {body})")
        return acc


def _top_reductions(node: Expr) -> Iterator[Reduce]:
    """Reductions not nested inside another reduction."""
    if isinstance(node, Reduce):
        yield node
        return
    for child in _children(node):
        yield from _top_reductions(child)


def _update_form(node: Reduce, order: list[str]) -> list[str] | None:
    """The target indices a ``sum`` depends on, when it should be computed in "update" form.

    ``sum[k](A[i, k] * B[k, j])`` as a scalar accumulator walks ``B`` down a column in its inner
    loop.  When the last target index the body uses is the last, plain subscript of every access
    that uses it (and no reduction index is), the sum is hoisted into its own nest
    ``acc[i, j] += A[i, k] * B[k, j]`` over ``i, k, j`` (inner loop contiguous and vectorisable,
    no reassociation needed), and the statement reads ``acc[i, j]``.  polyfuse fuses that nest
    with the statement's.
    """
    if node.op != "sum" or any(isinstance(n, Reduce) for n in _walk(node.body)):
        return None
    accesses = [n for n in _walk(node.body) if isinstance(n, Access)]
    used = {v for a in accesses for ix in a.index for v, _ in ix.coefs}
    free = [v for v in order if v in used]

    def contiguous(var: str) -> bool:
        users = [a for a in accesses if any(var in dict(ix.coefs) for ix in a.index)]
        return bool(users) and all(a.index[-1].plain == var for a in users)

    if not free or not contiguous(free[-1]) or any(contiguous(v) for v, _ in node.vars):
        return None
    return free


# ----------------------------------------------------------------------------------------------
# Staged execution: GEMM-shaped sums on BLAS, the rest fused, in row blocks
# ----------------------------------------------------------------------------------------------

#: A GEMM-shaped sum runs on BLAS when its contracted extent is at least BLAS_MIN_K and its
#: work (product of all its index extents) at least BLAS_MIN_WORK; otherwise the spec runs as one
#: fused kernel.  Below these a GEMM cannot block for registers and the fused loops, which keep
#: intermediates in cache, are as fast.
BLAS_MIN_K = 16
BLAS_MIN_WORK = 1 << 16
#: A staged spec runs in row blocks when its intermediates (unblocked) would take more than this
#: many times the bytes of the call's own inputs and outputs, in as few blocks as keep a block's
#: intermediates within that budget.  Blocks are for memory first: 1.5 keeps attention's peak
#: extra memory below 0.75 N^2 doubles at N=512 (N x d operands, d=64).  Measured with reused
#: buffers (2 BLAS threads, min of 30 calls, interleaved; 1 thread: the same order), the block
#: count matters less than the block's rows: attention N=512 in blocks of 64, 103, 112, 120,
#: 128, 136, 144, 171, 256 rows and unblocked: 1.18, 1.15-1.20, 1.17, 1.18, 1.04-1.09, 1.14,
#: 1.15, 1.07-1.11, 0.99-1.01, 0.87-0.95 ms (numpy 1.07-1.13 ms); the bench MLP unblocked
#: 3.6-3.9 ms, in 2 blocks of 512 rows 3.6-3.8 ms, in 128-row blocks 4.0-4.1 ms.  So attention
#: at N=512 (4.25 MiB of intermediates, 1 MiB of Q, K, V, O) runs 4 blocks of 128 rows; the
#: MLP (8 MiB, 4.5 MiB) 2 blocks of 512 rows, with half numpy's temporaries; N=1024 attention
#: 7 blocks of 160 rows (128, 160 and 205 rows measured alike there).
BLOCK_BUDGET = 1.5
#: Intermediates up to this size never make a spec run in blocks: blocking them saves little and
#: costs 5-20% (attention at N=192 and 256, d=64: 1.13 MiB of intermediates at N=256).
BLOCK_MIN_BYTES = 2 << 20
#: Block rows are a multiple of this: the E @ V GEMM of attention blocks took 0.35 ms in blocks
#: of 128 or 160 rows, 0.38-0.42 ms in blocks of 120, 136 or 171 rows (OpenBLAS, 2 threads).
BLOCK_ALIGN = 32
#: Blocks have at least this many rows, so that each GEMM has rows to block over and the per-step
#: call costs stay small next to the work of a block (64-row blocks: +8-13% on attention).
MIN_BLOCK_ROWS = 128


@dataclass(frozen=True)
class BlasStep:
    """``target[free] = sum[...](a[...] * b[...])`` as one ``np.matmul`` (polyfuse.einsum's BLAS
    dispatch on views; ``target`` is the statement's own target when the sum is the whole
    right-hand side, else a fresh temporary that the statement's epilogue reads)."""

    target: str
    a: str
    b: str
    subscripts: str  # the contraction in einsum notation, e.g. "id,jd->ij"
    indices: dict[str, tuple[str, int]] = field(compare=False, hash=False)  # index -> (tensor, axis)
    summed: tuple[str, ...] = ()
    free: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"{self.target} = einsum {self.subscripts!r} of {self.a}, {self.b} on BLAS (np.matmul)"

    def run(self, env: dict[str, np.ndarray], scalars: dict[str, float]) -> None:
        from polyfuse.tensor.blas import matmul_plan, run_matmul

        a, b, out = env[self.a], env[self.b], env[self.target]
        gemm = matmul_plan(self.subscripts, a.shape, b.shape)
        assert gemm is not None, "_gemm_sum made a GEMM-shaped contraction"
        run_matmul(gemm, a, b, out if self.free else out.reshape(()))


@dataclass(frozen=True)
class LoopStep:
    """Consecutive statements (their BLAS sums replaced by reads of the temporaries) compiled as
    one fused polyfuse kernel: a sub-spec whose outputs are what later steps read."""

    spec: Spec
    text: str

    def describe(self) -> str:
        stmts = "; ".join(line.strip() for line in self.text.splitlines() if line.strip())
        return f"fused loops -> {', '.join(self.spec.outputs)}: {stmts}"

    def run(self, env: dict[str, np.ndarray], scalars: dict[str, float]) -> None:
        self.spec.run_named(env, scalars)


@dataclass
class StagedPlan:
    """How a spec with GEMM-shaped sums runs: a sequence of BLAS and loop steps."""

    steps: list[BlasStep | LoopStep]  # in order
    temps: tuple[str, ...]  # BLAS results that are not targets of the spec
    row_inputs: frozenset[str] | None  # inputs sliced by row blocks; None: no row blocking

    @property
    def produced(self) -> list[str]:
        """Arrays the steps write and later steps or the caller read (intermediates of one loop
        step stay kernel-local)."""
        names: list[str] = []
        for step in self.steps:
            names += [step.target] if isinstance(step, BlasStep) else list(step.spec.outputs)
        return names


@dataclass(frozen=True)
class SpecDecision:
    """What one call of a spec runs, and why (shown by :meth:`Spec.explain`)."""

    runs: str  # "fused kernel" | "staged"
    reason: str
    rows: int = 0  # rows of the row-blocked index (0: not row-blocked)
    block_rows: int = 0  # rows per block
    #: staged: the intermediates (temporaries and targets the caller does not get) and their
    #: shapes (a block's rows when row-blocked); they live in the spec's workspace
    buffers: tuple[tuple[str, tuple[int, ...]], ...] = ()
    blocking: str = ""  # why these row blocks (the sizes that decided)

    def describe(self) -> str:
        blocks = f"; row blocks of {self.block_rows} of {self.rows} rows" if self.block_rows else ""
        return f"{self.runs}: {self.reason}{blocks}"


def _block_rows(rows: int, fit: int) -> int:
    """Rows per block when ``fit`` rows fit the budget: as few blocks as that allows, evened
    out, each a multiple of BLOCK_ALIGN rows (never more than ``fit`` unless MIN_BLOCK_ROWS is)."""
    block = max(MIN_BLOCK_ROWS, fit // BLOCK_ALIGN * BLOCK_ALIGN)
    blocks = -(-rows // block)
    return min(block, _round_up(-(-rows // blocks), BLOCK_ALIGN))


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def _mib(nbytes: int) -> str:
    return f"{nbytes / (1 << 20):.2f} MiB"


def _gemm_sum(node: Expr, order: list[str]) -> BlasStep | None:
    """The BLAS form of a top-level ``sum[k](A[...] * B[...])`` with plain subscripts, or None."""
    if not (isinstance(node, Reduce) and node.op == "sum" and isinstance(node.body, Bin)
            and node.body.op == "*" and isinstance(node.body.lhs, Access) and isinstance(node.body.rhs, Access)):
        return None
    a, b = node.body.lhs, node.body.rhs
    ia, ib = _plain_subscripts(a), _plain_subscripts(b)
    if ia is None or ib is None or len(set(ia)) != len(ia) or len(set(ib)) != len(ib):
        return None
    summed = tuple(v for v, _ in node.vars)
    if not set(summed) <= set(ia) & set(ib):  # an index summed inside one operand only
        return None
    free = tuple(v for v in order if v in set(ia) | set(ib))
    letters = {v: chr(ord("a") + n) for n, v in enumerate(dict.fromkeys(ia + ib))}
    if len(letters) > 26:
        return None
    subscripts = (f"{''.join(letters[v] for v in ia)},{''.join(letters[v] for v in ib)}->"
                  f"{''.join(letters[v] for v in free)}")
    indices = {v: (b.tensor, axis) for axis, v in enumerate(ib)}
    indices.update({v: (a.tensor, axis) for axis, v in enumerate(ia)})
    return BlasStep("", a.tensor, b.tensor, subscripts, indices, summed, free)


def _plain_subscripts(acc: Access) -> list[str] | None:
    """The index of each axis of ``acc``, or None when a subscript is not a plain index."""
    names = [ix.plain for ix in acc.index]
    plain = [name for name in names if name is not None]
    return plain if len(plain) == len(names) else None


def _blas_sums(stmt: Statement) -> list[tuple[Reduce, BlasStep]]:
    order = [n for n, _ in stmt.indices]
    found = [(node, _gemm_sum(node, order)) for node in _top_reductions(stmt.expr)]
    return [(node, step) for node, step in found if step is not None]


def _names(analysis: _Analysis) -> set[str]:
    names = set(analysis.inputs) | set(analysis.scalars) | set(analysis.defined)
    for stmt in analysis.statements:
        names |= set(stmt.extents)
    return names


def _rewrite(text: str, stmt: Statement, replaced: list[tuple[Reduce, str]]) -> str:
    """The statement's source with each BLAS sum replaced by a read of its temporary."""
    line = text[stmt.pos:stmt.end]
    for node, ref in sorted(replaced, key=lambda item: -item[0].pos):
        line = line[:node.pos - stmt.pos] + ref + line[node.end - stmt.pos:]
    return line


#: One entry of a spec's split into steps: a BLAS step, or consecutive statements as (target, text).
_Raw: TypeAlias = BlasStep | list[tuple[str, str]]


def _staged_plan(analysis: _Analysis, text: str, target: str, fuse: str, fastmath: bool) -> StagedPlan | None:
    """Split the spec into BLAS steps (GEMM-shaped sums) and fused loop steps (everything else);
    None when no statement has a GEMM-shaped sum."""
    taken = _names(analysis)
    temps: list[str] = []
    raw: list[_Raw] = []
    for stmt in analysis.statements:
        sums = _blas_sums(stmt)
        if not sums:
            _pending(raw).append((stmt.target, text[stmt.pos:stmt.end]))
            continue
        order = tuple(n for n, _ in stmt.indices)
        if len(sums) == 1 and stmt.expr is sums[0][0] and sums[0][1].free == order:
            raw.append(_retarget(sums[0][1], stmt.target))  # the sum is the statement: no epilogue
            continue
        replaced: list[tuple[Reduce, str]] = []
        for node, step in sums:
            temp = _fresh(taken)
            temps.append(temp)
            raw.append(_retarget(step, temp))
            replaced.append((node, f"{temp}[{', '.join(step.free)}]" if step.free else f"{temp}[0]"))
        _pending(raw).append((stmt.target, _rewrite(text, stmt, replaced)))
    if not any(isinstance(step, BlasStep) for step in raw):
        return None
    steps: list[BlasStep | LoopStep | None] = [
        _loop_step(group, raw[n + 1:], analysis, target, fuse, fastmath) if isinstance(group, list) else group
        for n, group in enumerate(raw)]
    return StagedPlan([s for s in steps if s is not None], tuple(temps), _row_inputs(analysis, raw))


def _try_staged_plan(analysis: _Analysis, text: str, target: str, fuse: str,
                     fastmath: bool) -> StagedPlan | None:
    """:func:`_staged_plan`, or None (the single fused kernel) when a rewritten loop step is not
    a valid spec; the spec itself was checked already, so this is never the user's error."""
    try:
        return _staged_plan(analysis, text, target, fuse, fastmath)
    except SpecError:
        return None


def _retarget(step: BlasStep, target: str) -> BlasStep:
    return dataclasses.replace(step, target=target)


def _pending(raw: list[_Raw]) -> list[tuple[str, str]]:
    last = raw[-1] if raw else None
    if not isinstance(last, list):
        last = []
        raw.append(last)
    return last


def _fresh(taken: set[str]) -> str:
    n = 0
    while f"G{n}" in taken:
        n += 1
    taken.add(f"G{n}")
    return f"G{n}"


def _loop_step(group: list[tuple[str, str]], later: list[_Raw], analysis: _Analysis, target: str,
               fuse: str, fastmath: bool) -> LoopStep | None:
    """A fused kernel for consecutive statements; it outputs what later steps (or the caller) read."""
    read_later: set[str] = set()
    for step in later:
        if isinstance(step, BlasStep):
            read_later |= {step.a, step.b}
        else:
            read_later |= {t for _, line in step for t in re.findall(r"([A-Za-z_]\w*)\s*\[", line)}
    outputs = [t for t, _ in group if t in analysis.outputs or t in read_later]
    if not outputs:
        return None  # dead statements (neither returned nor read)
    text = "\n".join(line for _, line in group)
    fused = Spec(text, outputs, target=target, fuse=fuse, blas=False, fastmath=fastmath)
    # its rows come straight from a BLAS step (in cache): interleaving rows overlaps the add chains
    # of row-wise sums (the attention softmax step 1.38x on 128 rows; docs/performance.md)
    fused.interleave = True
    return LoopStep(fused, text)


def _row_inputs(analysis: _Analysis, raw: list[_Raw]) -> frozenset[str] | None:
    """Inputs to slice when the spec runs in row blocks, or None when it cannot.

    Row blocking needs every statement's first target index (its row) to be the first, plain
    subscript of every intermediate it reads and of every BLAS temporary, and no other
    subscript (nor a value) to use the row; inputs are then either sliced by rows (first
    subscript the row) or read whole (no row in any subscript), consistently."""
    sliced: dict[str, bool] = {}
    for stmt in analysis.statements:
        if not stmt.indices:
            return None
        row = stmt.indices[0][0]
        if any(isinstance(n, Name) and n.name == row for n in _walk(stmt.expr)):
            return None
        for acc in (n for n in _walk(stmt.expr) if isinstance(n, Access)):
            by_row = _row_access(acc, row)
            if by_row is None or (acc.tensor in analysis.defined and not by_row):
                return None
            if acc.tensor not in analysis.defined and sliced.setdefault(acc.tensor, by_row) != by_row:
                return None
    for step in raw:
        if isinstance(step, BlasStep) and step.free[:1] != tuple(
                n for n, _ in _statement_of(analysis, step, raw).indices[:1]):
            return None
    return frozenset(name for name, by_row in sliced.items() if by_row)


def _row_access(acc: Access, row: str) -> bool | None:
    """True: ``row`` is the first, plain subscript only; False: unused; None: used otherwise."""
    uses = [axis for axis, ix in enumerate(acc.index) if row in dict(ix.coefs)]
    if not uses:
        return False
    return True if uses == [0] and acc.index[0].plain == row else None


def _statement_of(analysis: _Analysis, step: BlasStep, raw: list[_Raw]) -> Statement:
    """The statement a BLAS step belongs to: its target's, or the one reading its temporary."""
    if step.target in analysis.defined:
        return analysis.defined[step.target]
    for group in raw:
        if isinstance(group, list):
            for target, line in group:
                if re.search(rf"\b{step.target}\s*\[", line):
                    return analysis.defined[target]
    raise PolyfuseError(f"spec: BLAS temporary {step.target} is never read")  # pragma: no cover


# ----------------------------------------------------------------------------------------------
# The callable
# ----------------------------------------------------------------------------------------------

class Spec:
    """A compiled spec: call it with the inputs (keywords, or positionally in :attr:`inputs`
    order, arrays then scalars) to get the outputs.

    Returns the output array when the spec has one output, else a tuple in :attr:`outputs` order.
    Passing an array under an output's name writes the result into it.
    """

    def __init__(self, text: str, outputs: list[str] | str | None = None, *, dtype: Any = None,
                 target: str = "cpu", fuse: str = "smart", blas: bool = True,
                 fastmath: bool = False) -> None:
        check_target(target)
        if not isinstance(text, str):
            raise SpecError(f"spec text must be a string, got {type(text).__name__}")
        self.text = text
        self.dtype = None if dtype is None else np.dtype(dtype)
        if self.dtype is not None and self.dtype not in SUPPORTED_DTYPES - {np.dtype("int32"), np.dtype("int64")}:
            raise SpecError(f"dtype={self.dtype}; specs compute in float32 or float64")
        self.target, self.fuse, self.fastmath = target, fuse, fastmath
        self.statements = _Parser(text).program()
        self._analysis = _Analysis(text, self.statements, outputs)
        a = self._analysis
        self.inputs: tuple[str, ...] = tuple(a.inputs) + tuple(a.scalars)
        self.arrays: tuple[str, ...] = tuple(a.inputs)
        self.scalars: tuple[str, ...] = tuple(a.scalars)
        self.outputs: tuple[str, ...] = tuple(a.outputs)
        self._checks = [(compile(c.lhs, "<spec>", "eval"), compile(c.rhs, "<spec>", "eval"),
                         [compile(e, "<spec>", "eval") for e in c.involved], c) for c in a.checks]
        self._nonempty = [(compile(e, "<spec>", "eval"), what, pos, w) for e, what, pos, w in a.nonempty]
        self._shapes = {name: [compile(e, "<spec>", "eval") for e in a.shapes[name]] for name in self.outputs}
        self._kernels: dict[np.dtype, tuple[Kernel, str]] = {}
        self._validated: dict[tuple, dict[str, tuple[int, ...]]] = {}
        self._staged = _try_staged_plan(a, text, target, fuse, fastmath) if blas else None
        self._target_shapes = {name: [compile(e, "<spec>", "eval") for e in exprs]
                               for name, exprs in a.shapes.items()}
        self._decisions: dict[tuple, SpecDecision] = {}
        self._workspace = Workspace()  # the staged steps' intermediates, kept between calls
        self.interleave = False  # polyfuse.interleave for the kernel (on for staged loop steps)

    def __repr__(self) -> str:
        return f"<polyfuse.Spec inputs={list(self.inputs)} outputs={list(self.outputs)}>"

    # ---- calling ---------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            dtype, arrays, scalars, results = self._prepare(args, kwargs)
            decision = self._decide(arrays, dtype)
            if decision.runs == "staged":
                self._run_staged(decision, arrays, scalars, results, dtype)
            else:
                self.kernel(dtype)(*arrays.values(), *scalars.values(), *results.values())
        except PolyfuseError as exc:
            raise exc.with_traceback(None) from None
        out = [results[n] if self._rank(n) else results[n][0] for n in self.outputs]
        return out[0] if len(out) == 1 else tuple(out)

    def workspace_bytes(self) -> int:
        """Bytes of intermediate buffers this spec keeps between calls (see docs/einsum.md)."""
        return self._workspace.nbytes()

    def clear_workspace(self) -> None:
        """Drop the kept intermediate buffers; the next call allocates them again."""
        self._workspace.clear()

    def _rank(self, name: str) -> int:
        return len(self._analysis.shapes[name])

    def _bind(self, args: tuple, kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        if len(args) > len(self.inputs):
            raise SpecError(f"spec takes {len(self.inputs)} inputs ({', '.join(self.inputs)}), got {len(args)}")
        values = dict(zip(self.inputs, args))
        given_out: dict[str, Any] = {}
        for name, value in kwargs.items():
            if name in self.outputs:
                given_out[name] = value
            elif name not in self.inputs:
                raise SpecError(f"unexpected input {name!r}; the spec's inputs are {', '.join(self.inputs)} "
                                f"(outputs: {', '.join(self.outputs)})")
            elif name in values:
                raise SpecError(f"input {name!r} given twice")
            else:
                values[name] = value
        missing = [n for n in self.inputs if n not in values]
        if missing:
            raise SpecError(f"missing input{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
        return values, given_out

    def _dtype_of(self, arrays: dict[str, np.ndarray]) -> np.dtype:
        if self.dtype is not None:
            return self.dtype
        dt = np.result_type(np.float32, *[a.dtype for a in arrays.values()])
        return dt if dt in SUPPORTED_DTYPES else np.dtype(np.float64)

    def _prepare(self, args: tuple, kwargs: dict[str, Any]) -> tuple[
            np.dtype, dict[str, np.ndarray], dict[str, float], dict[str, np.ndarray]]:
        values, given_out = self._bind(args, kwargs)
        arrays: dict[str, np.ndarray] = {}
        for name in self.arrays:
            value = values[name]
            arr = value if type(value) is np.ndarray else np.asarray(value)
            use = self._analysis.first_use[name]
            if arr.ndim != self._analysis.ranks[name]:
                raise SpecError(f"input {name!r} has {arr.ndim} dimensions (shape {arr.shape}) but the spec "
                                f"indexes it with {self._analysis.ranks[name]}", self.text, use.pos,
                                use.end - use.pos)
            if arr.dtype.kind not in "iuf":  # numbers, not complex (np.issubdtype costs ~0.5 µs)
                raise SpecError(f"input {name!r} has dtype {arr.dtype}; specs take real numbers")
            arrays[name] = arr
        dtype = self._dtype_of(arrays)
        for name, arr in arrays.items():
            if arr.dtype != dtype:
                arrays[name] = arr.astype(dtype)
        scalars: dict[str, float] = {}
        for name in self.scalars:
            value = values[name]
            if isinstance(value, np.ndarray) and value.ndim == 0:
                value = value[()]
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise SpecError(f"scalar input {name!r} must be a real number, got {type(value).__name__}")
            scalars[name] = float(value)
        shapes = self._validate(arrays)
        results: dict[str, np.ndarray] = {}
        for name in self.outputs:
            shape = shapes[name] or (1,)
            out = given_out.get(name)
            if out is None:
                out = np.empty(shape, dtype=dtype)
            elif not isinstance(out, np.ndarray) or out.shape != shapes[name] or out.dtype != dtype:
                raise SpecError(f"output {name!r}: expected an array of shape {shapes[name]} and dtype {dtype}")
            elif not shapes[name]:
                out = out.reshape(1)
            results[name] = out
        return dtype, arrays, scalars, results

    # ---- staged execution (BLAS steps and fused loop steps, in row blocks) ----------------------
    def decide(self, *args: Any, **kwargs: Any) -> SpecDecision:
        """What a call with these inputs runs: the fused kernel, or BLAS and loop steps (and the
        row blocks), and why."""
        try:
            dtype, arrays, _, _ = self._prepare(args, kwargs)
            return self._decide(arrays, dtype)
        except PolyfuseError as exc:
            raise exc.with_traceback(None) from None

    def _decide(self, arrays: dict[str, np.ndarray], dtype: np.dtype) -> SpecDecision:
        key = (dtype.num, *(a.shape for a in arrays.values()))
        decision = self._decisions.get(key)
        if decision is None:
            if len(self._decisions) > 256:
                self._decisions.clear()
            decision = self._decisions[key] = self._choose(arrays, dtype)
        return decision

    def _choose(self, arrays: dict[str, np.ndarray], dtype: np.dtype) -> SpecDecision:
        plan = self._staged
        if plan is None:
            return SpecDecision("fused kernel", "no GEMM-shaped sum (or blas=False)")
        shapes = self._all_shapes(plan, arrays)
        for step in (s for s in plan.steps if isinstance(s, BlasStep)):
            extent = {v: shapes[t][axis] for v, (t, axis) in step.indices.items()}
            k = math.prod(extent[v] for v in step.summed)
            work = math.prod(extent.values())
            if k < BLAS_MIN_K or work < BLAS_MIN_WORK:
                return SpecDecision("fused kernel", f"{step.target} = einsum {step.subscripts!r}: contracted "
                                    f"extent {k} < BLAS_MIN_K={BLAS_MIN_K} or work {work} < "
                                    f"BLAS_MIN_WORK={BLAS_MIN_WORK}; the fused loops are as fast")
        rows, block, why = self._blocking(plan, shapes, dtype.itemsize)
        reason = "; ".join(step.describe() for step in plan.steps)
        buffers = tuple((name, (block, *shapes[name][1:]) if block else shapes[name])
                        for name in plan.produced if name not in self.outputs)
        return SpecDecision("staged", reason, rows, block, buffers, why)

    def _all_shapes(self, plan: StagedPlan, arrays: dict[str, np.ndarray]) -> dict[str, tuple[int, ...]]:
        """The shape of every tensor of the call: inputs, targets and BLAS temporaries."""
        shapes = {name: a.shape for name, a in arrays.items()}
        for name, exprs in self._target_shapes.items():
            shapes[name] = tuple(int(eval(e, {"min": min}, arrays)) for e in exprs)  # noqa: S307
        for step in plan.steps:
            if isinstance(step, BlasStep) and step.target in plan.temps:
                shapes[step.target] = tuple(shapes[step.indices[v][0]][step.indices[v][1]] for v in step.free) or (1,)
        return shapes

    def _blocking(self, plan: StagedPlan, shapes: dict[str, tuple[int, ...]],
                  itemsize: int) -> tuple[int, int, str]:
        """(rows, rows per block, why) for row blocking; rows per block 0: one block (rows 0: the
        spec cannot be row-blocked).

        Blocks are for memory: unblocked, the intermediates (BLAS temporaries and targets the
        caller does not get) take ``T`` bytes; when ``T`` is more than ``BLOCK_BUDGET`` times the
        bytes of the call's own inputs and outputs (attention's N x N scores against its N x d
        operands, the MLP's hidden layer), the rows are cut into as few blocks as keep a block's
        intermediates within that budget, each a multiple of ``BLOCK_ALIGN`` rows and at least
        ``MIN_BLOCK_ROWS``; otherwise, and when ``T`` is at most ``BLOCK_MIN_BYTES``, one block
        runs.  The numbers behind it are at :data:`BLOCK_BUDGET`."""
        sliced = plan.row_inputs
        if sliced is None:
            return 0, 0, "not row-blockable"
        rows = shapes[self.statements[0].target][0]
        if any(shapes[n][0] != rows for n in [*plan.produced, *sliced]):
            return 0, 0, "not row-blockable"
        temps = itemsize * sum(math.prod(shapes[n]) for n in plan.produced if n not in self.outputs)
        own = itemsize * sum(math.prod(shapes[n]) for n in [*self.arrays, *self.outputs])
        budget = BLOCK_BUDGET * own
        sizes = f"intermediates {_mib(temps)}, inputs and outputs {_mib(own)}"
        if temps <= BLOCK_MIN_BYTES:
            return rows, 0, f"{sizes}: intermediates within BLOCK_MIN_BYTES={_mib(BLOCK_MIN_BYTES)}"
        if temps <= budget:
            return rows, 0, f"{sizes}: within BLOCK_BUDGET={BLOCK_BUDGET} x"
        block = _block_rows(rows, int(budget * rows // temps))
        if block >= rows:
            return rows, 0, f"{sizes}: one block of at least MIN_BLOCK_ROWS={MIN_BLOCK_ROWS} rows"
        return rows, block, f"{sizes}: over BLOCK_BUDGET={BLOCK_BUDGET} x, {-(-rows // block)} blocks"

    def _run_staged(self, decision: SpecDecision, arrays: dict[str, np.ndarray], scalars: dict[str, float],
                    results: dict[str, np.ndarray], dtype: np.dtype) -> None:
        """Run the BLAS and loop steps, the intermediates in buffers from the spec's workspace."""
        plan = self._staged
        assert plan is not None, "a staged decision comes from the staged plan"
        layout = tuple((shape, dtype) for _, shape in decision.buffers)
        with self._workspace.take(layout) as taken:
            buffers = dict(zip((name for name, _ in decision.buffers), taken))
            env: dict[str, np.ndarray] = {**arrays, **buffers}
            for name, out in results.items():
                env[name] = out if self._rank(name) else out.reshape(())
            if decision.block_rows:
                self._run_blocks(plan, decision, arrays, scalars, results, buffers, env)
            else:
                for step in plan.steps:
                    step.run(env, scalars)

    @staticmethod
    def _run_blocks(plan: StagedPlan, decision: SpecDecision, arrays: dict[str, np.ndarray],
                    scalars: dict[str, float], results: dict[str, np.ndarray], buffers: dict[str, np.ndarray],
                    env: dict[str, np.ndarray]) -> None:
        """The steps once per block of rows: row inputs and results sliced, buffers cut to the block."""
        row_inputs = plan.row_inputs
        assert row_inputs is not None, "row blocks only where _row_inputs allowed them"
        block = decision.block_rows
        for start in range(0, decision.rows, block):
            stop = min(start + block, decision.rows)
            rows = slice(start, stop)
            for name in row_inputs:
                env[name] = arrays[name][rows]
            for name in results:
                env[name] = results[name][rows]
            for name, buf in buffers.items():
                env[name] = buf[:stop - start]
            for step in plan.steps:
                step.run(env, scalars)

    def run_named(self, env: dict[str, np.ndarray], scalars: dict[str, float]) -> None:
        """Run the fused kernel on arrays taken by name from ``env``: the inputs, and the outputs
        it writes (shapes checked; a rank-0 output may be given as shape ``()``).  ``scalars`` holds
        the scalar inputs by name.  This is how a staged spec runs one of its loop steps on row
        blocks and workspace buffers; a plain call goes through ``__call__``."""
        arrays = {n: env[n] for n in self.arrays}
        self._validate(arrays)
        outs = [env[n] if env[n].ndim else env[n].reshape(1) for n in self.outputs]
        self.kernel(outs[0].dtype)(*arrays.values(), *(scalars[n] for n in self.scalars), *outs)

    def _validate(self, arrays: dict[str, np.ndarray]) -> dict[str, tuple[int, ...]]:
        key = tuple([a.shape for a in arrays.values()])
        known = self._validated.get(key)
        if known is not None:
            return known
        ns = dict(arrays)
        env: dict[str, Any] = {"min": min}
        for lhs, rhs, involved, check in self._checks:
            if any(int(eval(e, env, ns)) <= 0 for e in involved):  # noqa: S307
                continue  # an empty range: the access never happens
            left, right = int(eval(lhs, env, ns)), int(eval(rhs, env, ns))  # noqa: S307
            ok = left == right if check.op == "==" else left < right
            if not ok:
                raise SpecError(check.message.format(lhs=left, rhs=right), self.text, check.pos, check.width)
        for stmt in self.statements:
            for name, extent in stmt.extents.items():
                value = int(eval(extent, {"min": min}, ns))  # noqa: S307
                if value < 0:
                    pos = next((p for n, p in stmt.indices if n == name), stmt.pos)
                    raise SpecError(f"index {name!r} has a negative range {value} ({extent}) for these shapes",
                                    self.text, pos, len(name))
        for expr, what, pos, width in self._nonempty:
            if int(eval(expr, {"min": min}, ns)) < 1:  # noqa: S307
                raise SpecError(f"{what} over an empty range", self.text, pos, width)
        shapes = {n: tuple(int(eval(e, {"min": min}, ns)) for e in exprs)  # noqa: S307
                  for n, exprs in self._shapes.items()}
        if len(self._validated) > 256:
            self._validated.clear()
        self._validated[key] = shapes
        return shapes

    # ---- compilation and introspection -----------------------------------------------------
    def source(self, dtype: Any = np.float64) -> str:
        """The generated kernel source (for float64 unless ``dtype`` says otherwise)."""
        return _Generator(self._analysis, np.dtype(self.dtype or dtype)).generate()

    def kernel(self, dtype: Any = np.float64) -> Kernel:
        dtype = np.dtype(self.dtype or dtype)
        built = self._kernels.get(dtype)
        if built is None:
            src = self.source(dtype)
            built = (build_kernel(src, "spec_kernel", "spec", target=self.target, fuse=self.fuse,
                                  fastmath=self.fastmath, interleave=self.interleave), src)
            self._kernels[dtype] = built
        return built[0]

    def explain(self, *args: Any, **kwargs: Any) -> Explanation:
        """``explain()`` of the generated kernel for these inputs, with the spec's index ranges and
        the generated source in front."""
        from polyfuse.explain import Explanation

        try:
            dtype, arrays, scalars, results = self._prepare(args, kwargs)
            decision = self._decide(arrays, dtype)
            explanation = self.kernel(dtype).explain(*arrays.values(), *scalars.values(), *results.values())
        except PolyfuseError as exc:
            raise exc.with_traceback(None) from None
        ranges = {f"{s.target} (line {Caret(self.text, s.pos).line_col()[0]})":
                  ", ".join(f"{v} < {e}" for v, e in s.extents.items()) for s in self.statements}
        head = {"inputs": ", ".join(self.inputs), "outputs": ", ".join(self.outputs), **ranges,
                "runs": decision.runs, "why": decision.reason}
        if decision.runs == "staged":
            assert self._staged is not None, "a staged decision comes from the staged plan"
            for n, step in enumerate(self._staged.steps):
                head[f"step {n}"] = step.describe()
            blocks = (f"{decision.block_rows} of {decision.rows} rows per block" if decision.block_rows
                      else "none (one block)")
            head["row blocks"] = f"{blocks}; {decision.blocking}"
            kept = sum(math.prod(shape) for _, shape in decision.buffers) * dtype.itemsize
            head["workspace"] = f"{_mib(kept)} of intermediates, kept between calls"
        return Explanation((("spec", head), ("generated source", self.source(dtype))) + explanation.sections)


def spec(text: str, outputs: list[str] | str | None = None, *, dtype: Any = None, target: str = "cpu",
         fuse: str = "smart", blas: bool = True, fastmath: bool = False) -> Spec:
    """Compile a multi-statement tensor spec (see docs/einsum.md).

    ``outputs``: the targets to return (default: every target no later statement reads).
    ``dtype``: float32 or float64 (default: numpy's promotion of the array inputs with float32).
    ``blas``: run GEMM-shaped sums on BLAS, their epilogues in fused loops (``False``: always one
    fused kernel).  ``fastmath``: let LLVM reassociate (vectorized sums, max, exp; results differ
    in the last bits, as numpy's pairwise sums do).
    """
    try:
        return Spec(text, outputs, dtype=dtype, target=target, fuse=fuse, blas=blas, fastmath=fastmath)
    except PolyfuseError as exc:
        raise exc.with_traceback(None) from None

