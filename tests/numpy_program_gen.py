"""A hypothesis strategy that writes random NumPy array programs (the frontend's NumPy path).

Every program is ``kern(n, alpha, X, Y, S, v, w)`` with ``X`` and ``Y`` of shape ``(R, C)``, ``S`` of
``(C, C)``, ``v`` of ``(C,)`` and ``w`` of ``(R,)``, where ``R = n + 2`` and ``C = n + 3``, so
that the two axes differ (a transpose or a wrong axis shows) and every slice below is non-empty.
Expressions are typed by their shape (a matrix ``(R, C)``, a row ``(C,)``, a column ``(R,)``, a
scalar) and drawn from what array code does: elementwise arithmetic and ufuncs, broadcasting
(``v[None, :]``, ``w[:, None]``), reversed and stepped slices, reductions with ``axis=``,
``np.cumsum``, ``@``, ``np.where``, ``np.maximum``.  Statements bind locals, assign slices of the
arguments (overlapping reads of the array written: ``X[1:] = X[:-1] + ...``, ``S[:] = S.T``),
update in place (``+=``, ``*=``), and the program returns a tuple of values.  With ``extra``
(``numpy_programs(extra=True)``) they also gather and store through index arrays computed from the
data (``I`` of ``(C,)`` in ``[0, C)``, ``J`` of ``(R,)`` in ``[0, R)``, repeated values and negative
ones: ``v[I] = ...``, ``w[J] += ...``, ``X[J, I[:R]] = ...``, ``v[I] = v[I] * 2``, gathers from
views ``v[1:][J]``, ``v[::-1][I - C]``), take ``a if c else b`` of arrays, ``x ** 0.5`` and
``np.nan_to_num``.

With ``wild`` (cp37; ``cpu_campaign.py --style numpy-wild``; implies ``extra``) also boolean-mask
stores and reductions (``X[X > c] = ...``, ``v[v < 0] *= -1``, ``np.sum(X[Y > 0])``), steps of -2 and
-3 (``v[::-3]``, ``X[::-2, 1::2]``), ``np.clip``, ``np.minimum``, ``//`` and ``%`` by arrays of
negatives (``X // (np.abs(Y) + 1)``, ``X % -(np.abs(Y) + 1)``) and ``.astype`` between int64 and the
float dtype.

``dtype`` is float64, float32 or int64 for all arrays; int64 programs avoid ``/`` and the float
ufuncs.  Values stay moderate (no overflow in the plain function for float programs).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

ROWS, COLS = "n + 2", "n + 3"
KINDS = ("M", "row", "col", "s")  # (R, C), (C,), (R,), scalar


@dataclass
class NumpyProgram:
    source: str
    dtype: str
    features: set[str] = field(default_factory=set)

    def make_args(self, rng: np.random.Generator, n: int, alpha: float = 0.75, views: bool = False) -> tuple:
        from program_gen import as_view

        r, c = n + 2, n + 3
        shapes = [(r, c), (r, c), (c, c), (c,), (r,)]
        arrays = []
        for shape in shapes:
            if self.dtype == "int64":
                a = rng.integers(-9, 10, size=shape).astype(np.int64)
            else:
                a = (rng.standard_normal(shape) * 2.0).astype(self.dtype)
            arrays.append(as_view(rng, a) if views else a)
        return (n, alpha, *arrays)

    @property
    def tolerance(self) -> tuple[float, float]:
        return (1e-4, 1e-4) if self.dtype == "float32" else (1e-9, 1e-9)


class NumpyGen:
    def __init__(self, draw, extra: bool = False, wild: bool = False) -> None:
        self.draw = draw
        self.wild = wild
        self.extra = extra or wild
        self.indexed = False  # the program reads the index arrays I and J (defined first)
        self.dtype = draw(st.sampled_from(["float64"] * 3 + ["float32", "int64"]))
        self.is_int = self.dtype == "int64"
        self.features: set[str] = set()
        self.locals: dict[str, str] = {}  # name -> kind

    def pick(self, options: list[tuple[str, str]]) -> str:
        feature, text = self.draw(st.sampled_from(options))
        self.features.add(feature)
        return text

    # ---- expressions by kind ---------------------------------------------------------------------
    def expr(self, kind: str, depth: int) -> str:
        if depth <= 0 or self.draw(st.integers(0, 2)) == 0:
            return self.leaf(kind, depth)
        if self.draw(st.integers(0, 2)) == 0:
            return self.special(kind, depth)
        a, b = self.expr(kind, depth - 1), self.expr(kind, depth - 1)
        forms = [("add", f"({a} + {b})"), ("sub", f"({a} - {b})"), ("mul", f"({a} * {b})"),
                 ("neg", f"(-{a})"), ("abs", f"np.abs({a})"), ("maximum", f"np.maximum({a}, {b})")]
        if self.is_int:
            forms += [("floordiv", f"({a} // 3)"), ("mod", f"({a} % 4)")]
        else:
            forms += [("div", f"({a} / (1.0 + np.abs({b})))"), ("sqrt", f"np.sqrt(np.abs({a}))"),
                      ("tanh", f"np.tanh({a})"), ("alpha", f"alpha * {a}")]
        if kind != "s":
            c = self.expr("s", 0)
            forms += [("where", f"np.where({a} > {b}, {a}, {c})"), ("scalar-bcast", f"({a} + {c})")]
        if self.extra and not self.is_int:
            forms += [("pow-half", f"(np.abs({a}) ** 0.5)"), ("nan-to-num", f"np.nan_to_num({a} / {b})")]
        if self.extra and kind != "s":
            forms.append(("ifexp", f"({a} if alpha > 0.5 else {b})"))
        if self.wild:
            forms += [("clip", f"np.clip({a}, -2, 3)"), ("minimum", f"np.minimum({a}, {b})"),
                      ("floordiv-arr", f"({a} // (np.abs({b}) + 1))"), ("mod-neg-arr", f"({a} % -(np.abs({b}) + 1))")]
            if kind != "s":
                cast = "np.int64" if not self.is_int else "np.float64"
                forms.append(("astype", f"({a}).astype({cast}).astype(np.{self.dtype})"))
        return self.pick(forms)

    def leaf(self, kind: str, depth: int) -> str:
        names = [name for name, k in self.locals.items() if k == kind]
        options: list[tuple[str, str]] = [("local", name) for name in names]
        if kind == "M":
            options += [("arg", "X"), ("arg", "Y"), ("rev-rows", "X[::-1]"), ("rev-cols", "Y[:, ::-1]"),
                        ("bcast-row", "(X + v[None, :])"), ("bcast-col", "(Y - w[:, None])"),
                        ("bcast-both", "(w[:, None] * v)"),
                        ("shift-rows", "np.concatenate((X[1:], X[:1]))")]
        elif kind == "row":
            options += [("arg", "v"), ("rev", "v[::-1]"), ("row-of", "X[0]"), ("row-of", "Y[-1, :]"),
                        ("col-of", "S[:, 1]")]
            if self.wild:
                options += [("rev-step", "np.concatenate((v[::-3], v[::-3], v[::-3]))[:" + COLS + "]"),
                            ("masked-row", "np.where(v > 0, v, -v)")]
            if self.extra:
                options += [("gather", "v[I]"), ("gather-rev-neg", f"v[::-1][I - ({COLS})]"),
                            ("gather-pair", "S[I, I[::-1]]")]
        elif kind == "col":
            options += [("arg", "w"), ("rev", "w[::-1]"), ("col-of", "X[:, 2]"), ("col-of", "Y[:, -1]")]
            if self.extra:
                options += [("gather", "w[J]"), ("gather-view", "v[1:][J]"), ("gather-view-neg", f"v[1:][J - ({ROWS})]"),
                            ("gather-col", "X[:, 1][J]")]
        else:
            options += [("const", "2" if self.is_int else "0.5"), ("const", "-1" if self.is_int else "-1.5"),
                        ("elem", "X[1, 2]"), ("elem", "v[-1]")]
            if not self.is_int:
                options.append(("alpha", "alpha"))
        return self.pick(options)

    def special(self, kind: str, depth: int) -> str:
        """Reductions, products and scans that change the kind."""
        m = self.expr("M", depth - 1)
        if kind == "M":
            forms = [("cumsum-0", f"np.cumsum({m}, axis=0)"), ("cumsum-1", f"np.cumsum({m}, axis=1)"),
                     ("matmul", f"({m} @ S)"), ("outer", f"np.outer({self.expr('col', depth - 1)}, "
                                                         f"{self.expr('row', depth - 1)})")]
        elif kind == "row":
            forms = [("sum-0", f"{m}.sum(axis=0)"), ("max-0", f"np.max({m}, axis=0)"),
                     ("vecmat", f"({self.expr('col', depth - 1)} @ {m})"), ("matvec-S", f"(S @ {self.expr('row', depth - 1)})"),
                     ("cumsum", f"np.cumsum({self.expr('row', depth - 1)})")]
            if not self.is_int:
                forms.append(("mean-0", f"np.mean({m}, axis=0)"))
        elif kind == "col":
            forms = [("sum-1", f"np.sum({m}, axis=1)"), ("min-1", f"{m}.min(axis=1)"),
                     ("matvec", f"({m} @ {self.expr('row', depth - 1)})")]
        elif self.wild and self.draw(st.booleans()):
            forms = [("mask-sum", f"np.sum(X[Y > {self.expr('s', 0)}])"), ("mask-count", "len(v[v > 0])"),
                     ("step-sum", "X[::-2, 1::2].sum()")]
        else:
            forms = [("sum", f"{m}.sum()"), ("max", f"np.max({self.expr('row', depth - 1)})"),
                     ("dot", f"np.dot({self.expr('col', depth - 1)}, {self.expr('col', depth - 1)})"),
                     ("argmax", f"int(np.argmax({self.expr('row', depth - 1)}))")]
        return self.pick(forms)

    # ---- statements ------------------------------------------------------------------------------
    def statement(self) -> list[str]:
        kind = self.draw(st.sampled_from(["local", "local", "slice", "overlap", "inplace", "square"]
                                         + ["indexed"] * 2 * self.extra + ["masked"] * 2 * self.wild))
        if kind == "masked":
            c = self.expr("s", 0)
            return [self.pick([
                ("mask-store", f"    X[X > {c}] = {c}"),
                ("mask-store-other", f"    Y[X < 0] = {self.expr('s', 1)}"),
                ("mask-aug", "    v[v < 0] *= -1"),
                ("mask-aug-rows", f"    w[w > {c}] -= 1"),
                ("mask-where", f"    X[:] = np.where(Y > X, {self.expr('M', 1)}, X)"),
                ("step-store", f"    v[::-3] = {self.expr('row', 1)}[::-3]"),
                ("step-store-2d", f"    X[::-2, 1::2] = ({self.expr('M', 1)})[::-2, 1::2]"),
            ])]
        if kind == "indexed":
            ops = ["+=", "-="] + ([] if self.is_int else ["*=", "**="])
            op = self.draw(st.sampled_from(ops))
            # a negative base ** a non-integer is NaN: NumPy's float32 SIMD tanh is 1 ulp below the
            # correctly rounded +-1.0 near |x| = 9 (0.99999994 at 9.457, where libm and polyfuse give 1.0;
            # seed 33107), which turned x ** 1.0 into NaN: a power's exponents go in steps of 1/8 instead
            bounded = "{}" if self.is_int else "0.125 * np.round(8 * np.tanh({}))" if op == "**=" else "np.tanh({})"
            return [self.pick([
                ("store-gather", f"    v[I] = {self.expr('row', 1)}"),
                ("store-gather-neg", f"    v[I - ({COLS})] = {self.expr('row', 1)}"),
                ("store-self", "    v[I] = v[I] * 2 + 1"),
                ("store-self-rev", "    w[J] = w[J[::-1]] - w[J]"),
                ("aug-gather", f"    w[J] {op} {bounded.format(self.expr('col', 1))}"),
                ("aug-gather-rows", f"    X[J] {op} {bounded.format(self.expr('M', 1))}"),
                ("store-pair", f"    X[J, I[:{ROWS}]] = {self.expr('col', 1)}"),
                ("aug-pair", f"    Y[J, -1 - I[:{ROWS}]] {op} {bounded.format(self.expr('col', 1))}"),
                ("store-view", f"    v[1:][J - ({ROWS})] = {self.expr('col', 1)}"),
            ])]
        if kind == "local":
            name = f"t{len(self.locals)}"
            k = self.draw(st.sampled_from(KINDS))
            line = f"    {name} = {self.expr(k, 2)}"
            self.locals[name] = k
            return [line]
        if kind == "slice":
            target, k = self.pick([("set-rows", ("X[1::2]", "M")), ("set-cols", ("Y[:, ::-2]", "M")),
                                   ("set-row", ("X[0, :]", "row")), ("set-col", ("Y[:, 1]", "col")),
                                   ("set-vec", ("v[::2]", "row")), ("set-all", ("w[:]", "col"))])
            value = self.expr(k, 2)
            if target.startswith(("X[1::2]", "Y[:, ::-2]", "v[::2]")):  # the value's shape is that of the slice
                value = f"({value})" + {"X[1::2]": "[1::2]", "Y[:, ::-2]": "[:, ::-2]", "v[::2]": "[::2]"}[target]
            return [f"    {target} = {value}"]
        if kind == "overlap":
            return [self.pick([
                ("overlap-rows", "    X[1:] = X[:-1] + 1" if self.is_int else "    X[1:] = X[:-1] * 0.5 + X[1:]"),
                ("overlap-cols", "    Y[:, :-1] += Y[:, 1:]"),
                ("overlap-rev", "    v[:] = v[::-1]"),
                ("overlap-stencil", "    w[1:-1] = w[2:] - w[:-2]"),
                ("overlap-transpose", "    S[:] = S.T"),
                ("overlap-symmetric", "    S += S.T"),
            ])]
        if kind == "inplace":
            target, k = self.pick([("iadd", ("X", "M")), ("iadd", ("v", "row")), ("iadd", ("w", "col"))])
            op = self.draw(st.sampled_from(["+=", "-="] + ([] if self.is_int else ["*="])))
            value = self.expr(k, 1)
            if op == "*=":
                value = f"np.tanh({value})"
            return [f"    {target} {op} {value}"]
        return [f"    S[:] = {self.pick([('square-matmul', 'S @ S.T'), ('square-transpose', 'S.T - S')])}"]

    def program(self) -> NumpyProgram:
        lines = ["def kern(n, alpha, X, Y, S, v, w):"]
        for _ in range(self.draw(st.integers(1, 4))):
            lines += self.statement()
        values = [self.expr(self.draw(st.sampled_from(KINDS)), 2) for _ in range(self.draw(st.integers(1, 2)))]
        lines.append(f"    return {', '.join(values)}")
        if any(f.startswith(("gather", "store-", "aug-")) for f in self.features):
            scaled = "np.abs(v) * 7" if self.is_int else "(np.abs(v) * 7).astype(np.int64)"
            lines[1:1] = [f"    I = {scaled} % ({COLS})", f"    J = I[:{ROWS}] % ({ROWS})"]
        return NumpyProgram("\n".join(lines) + "\n", self.dtype, self.features)


@st.composite
def numpy_programs(draw, extra: bool = False, wild: bool = False) -> NumpyProgram:
    return NumpyGen(draw, extra, wild).program()
