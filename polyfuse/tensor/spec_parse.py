"""Tokenizer and parser: spec text -> a list of :class:`~polyfuse.tensor.spec_syntax.Statement`.

Rejects malformed text (syntax, reserved names, indices that are not affine sums) with a
:class:`~polyfuse.tensor.spec_syntax.SpecError` at the offending token.  Knows nothing of shapes
or ranges: that is spec_analysis, which runs next.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from polyfuse.tensor.spec_syntax import (
    FUNCTIONS,
    REDUCTIONS,
    RESERVED,
    Access,
    Bin,
    Call,
    Expr,
    Index,
    Name,
    Neg,
    Num,
    Reduce,
    SpecError,
    Statement,
)

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
