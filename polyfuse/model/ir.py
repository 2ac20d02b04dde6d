"""Expression IR shared by statement bodies and the loop AST.

Nodes are small frozen dataclasses.  Every node carries its numpy dtype name (``"float64"``,
``"int64"``, ``"bool"``, ``"complex128"``, ...) so backends never infer types; ``weak`` marks values
that behave like Python scalars under numpy's promotion rules (NEP 50): literals, loop variables,
int/float/complex arguments.  Complex values are single values of the IR (the LLVM backend keeps
them as ``{double, double}`` structs); ``Call`` ``real``/``imag``/``conj``/``complex`` take them apart
and build them, and a complex constant is ``complex`` of two float constants (``complex_const``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

from polyfuse.errors import ArgumentError, UnsupportedError
from polyfuse.model import funcs

INT = "int64"
BOOL = "bool"


@dataclass(frozen=True)
class Const:
    """A constant; a ``float32`` constant holds a value that ``float32`` represents (rounded here), so
    that converting it on (``np.float32(0.1) * x_float64`` is ``0.10000000149011612 * x``) keeps the
    rounding numpy's ``float32`` scalar has."""

    value: int | float | bool
    dtype: str
    weak: bool = True

    def __post_init__(self) -> None:
        if self.dtype == "float32" and not isinstance(self.value, bool):
            with np.errstate(over="ignore"):  # 1e300 is inf in float32, as numpy converts it
                rounded = float(np.float32(self.value))
            if rounded != self.value or isinstance(self.value, int):
                object.__setattr__(self, "value", rounded)


@dataclass(frozen=True)
class Var:
    """A loop iterator, an integer/float argument, or a local scalar (by name)."""

    name: str
    dtype: str
    weak: bool = True


@dataclass(frozen=True)
class Load:
    """Read of ``array[index]``; rank-0 arrays (local scalars) have an empty index."""

    array: str
    index: tuple[Expr, ...]
    dtype: str
    weak: bool = False


@dataclass(frozen=True)
class BinOp:
    """Arithmetic with Python semantics: ``//`` and ``%`` floor, ``/`` is true division.

    ``& | ^ << >>`` are numpy's bitwise ufuncs on integers (``>>`` arithmetic for signed dtypes,
    logical for unsigned; a shift count is read as unsigned, and one of at least the dtype's
    width, a negative one included, gives 0, or -1 for ``>>`` of a negative value, as numpy's
    ``npy_lshift``/``npy_rshift``); ``& | ^`` of two bools are the logical operations.

    ``reassoc`` marks the float ``+`` that accumulates a reduction polyfuse lowered
    from NumPy array code (``np.sum``, ``x.mean(axis=1)``, ``a @ b`` as loops; the ``lhs`` is
    the accumulator): NumPy promises no summation order there, so a backend may regroup it
    with the other updates of the same accumulator (the LLVM backend: the ``reassoc`` flag,
    which vectorizes the loop into partial sums).  Loops the user wrote never carry it, and
    the Python backend (the reference) ignores it."""

    op: str  # + - * / // % ** min max & | ^ << >>
    lhs: Expr
    rhs: Expr
    dtype: str
    weak: bool = False
    reassoc: bool = False


@dataclass(frozen=True)
class Unary:
    # neg, not, abs, invert (``~`` of an integer: all bits flipped, -x - 1), numpy_abs (a complex
    # value's magnitude as NumPy's array loop computes it: ``larger * sqrt(fma(r, r, 1))`` with
    # ``r = smaller / larger`` where NumPy has SIMD loops; ``abs`` of a complex is ``hypot``)
    op: str
    operand: Expr
    dtype: str
    weak: bool = False


@dataclass(frozen=True)
class Compare:
    op: str  # < <= > >= == !=
    lhs: Expr
    rhs: Expr
    dtype: str = BOOL
    weak: bool = False


@dataclass(frozen=True)
class BoolOp:
    op: str  # and, or
    values: tuple[Expr, ...]
    dtype: str = BOOL
    weak: bool = False


@dataclass(frozen=True)
class Select:
    """``then if cond else otherwise``.  ``guarded`` selects have an affine condition that the
    bounds proof relies on (``A[i - 1] if i > 0 else 0.0``): only the chosen branch may run."""

    cond: Expr
    then: Expr
    otherwise: Expr
    dtype: str
    weak: bool = False
    guarded: bool = False


@dataclass(frozen=True)
class Call:
    """Elementwise function by canonical name (``model/funcs.py``); ``lib`` is ``"np"`` or
    ``"math"``, whose semantics (and, in the Python backend, whose function) apply."""

    func: str
    args: tuple[Expr, ...]
    dtype: str
    weak: bool = False
    lib: str = "np"


@dataclass(frozen=True)
class Cast:
    """Conversion to ``dtype`` with numpy's rules (float to int truncates)."""

    operand: Expr
    dtype: str
    weak: bool = False


@dataclass(frozen=True)
class Index:
    """A subscript that is not affine (``x[idx[i]]``), computed at run time: a negative value
    wraps once as in numpy (``x[-1]`` is the last element) and anything outside ``extent`` after
    that raises IndexError.  The access relations over-approximate it by the whole axis."""

    operand: Expr  # the int64 value of the subscript
    extent: Expr  # the extent of ``axis`` of ``array``
    array: str
    axis: int
    dtype: str = INT
    weak: bool = True
    # a store's subscript under a data-dependent ``if`` (frontend.lift._guarded_index): where
    # ``when`` is false the access is not made (the store skipped, a load 0) and not checked,
    # as Python never runs it there (``hist[b] += 1`` under ``if 0 <= b < n`` of an empty ``hist``)
    when: Expr | None = None


@dataclass(frozen=True)
class Check(Index):
    """An ``assert`` checked where it runs: ``operand`` is 0 where the test holds and 1 where
    it fails, which raises ``error(message)`` (no argument when ``message`` is None) instead
    of IndexError, by the same error flag (``extent`` is 1; ``array`` is empty).  ``error`` is
    AssertionError for the user's asserts, ValueError for NumPy's own checks (np.histogram),
    LinAlgError for np.linalg's (a singular matrix).  In an OverflowError's message ``VALUE``
    (first line) stands for the failing ``operand``: the Python int itself, never 0 there."""

    message: str | None = None
    error: str = "AssertionError"  # a name in CHECK_ERRORS
    # a bool that holds wherever the check fails (or wider) and is cheaper to compute: a nest
    # run twice (POLYFUSE_VECTOR_CHECKS, backends/cpu/llvm.py _emit_checked_twice) ors it in its
    # first run instead of the operand (the float store checks' one range test for their four)
    guard: Expr | None = None
    VALUE: ClassVar[str] = "{value}"


CHECK_ERRORS: dict[str, type[Exception]] = {"AssertionError": AssertionError, "ValueError": ValueError,
                                            "IndexError": IndexError,  # p[0] of an empty selection
                                            "OverflowError": OverflowError,  # a Python int outside a dtype
                                            "ZeroDivisionError": ZeroDivisionError,  # 1.0 / 0.0 of Python floats
                                            "LinAlgError": np.linalg.LinAlgError,  # np.linalg's (frontend.array_lapack)
                                            "UnsupportedError": UnsupportedError,  # slice bounds checked where they run
                                            "UnboundLocalError": UnboundLocalError,  # frontend.loop_values
                                            "ArgumentError": ArgumentError}  # np.max of no elements: a ValueError


Expr = Const | Var | Load | BinOp | Unary | Compare | BoolOp | Select | Call | Cast | Index


def check_messages(roots) -> tuple[tuple[str, str | None], ...]:
    """The errors and messages of the ``Check`` nodes under ``roots``, each once, in order (the
    position is the code the CPU backend records)."""
    found: list[tuple[str, str | None]] = []
    for node in distinct_nodes(*roots):  # (the first of each in walk()'s order)
        if isinstance(node, Check) and (node.error, node.message) not in found:
            found.append((node.error, node.message))
    return tuple(found)


def raise_check(error: str, message: str | None, value: int | None = None):
    """Raise what a failed ``Check`` raises; ``value``, its operand there, stands in for
    ``Check.VALUE`` in the message's first line."""
    if message is not None and value is not None and error == "OverflowError":
        head, newline, rest = message.partition("\n")
        message = head.replace(Check.VALUE, str(int(value))) + newline + rest
    raise CHECK_ERRORS[error](*(() if message is None else (message,)))

MATH_FUNCS = ("sqrt", "exp", "log", "sin", "cos", "tanh", "pow", "floor", "ceil", "fabs")  # the first set


def int_const(value: int) -> Const:
    return Const(int(value), INT)


def int_min(a: Expr, b: Expr) -> BinOp:
    """``min(a, b)`` of two loop-bound integers (passes that build loops of their own)."""
    return BinOp("min", a, b, INT, True)


def int_max(a: Expr, b: Expr) -> BinOp:
    return BinOp("max", a, b, INT, True)


def int_add(a: Expr, b: Expr) -> BinOp:
    return BinOp("+", a, b, INT, True)


COMPONENT = {"complex64": "float32", "complex128": "float64"}  # the dtype of a complex's parts
INT_DTYPES = frozenset(("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"))


def complex_const(value: complex, dtype: str = "complex128", weak: bool = True) -> Call:
    """A complex constant: ``complex(re, im)`` of two float constants of the component dtype."""
    parts = (Const(float(value.real), COMPONENT[dtype], weak), Const(float(value.imag), COMPONENT[dtype], weak))
    return Call("complex", parts, dtype, weak, "py")


def complex_value(expr: Expr) -> complex | None:
    """The value of a complex constant made by ``complex_const`` (None for anything else)."""
    if isinstance(expr, Call) and expr.func == "complex" and all(isinstance(a, Const) for a in expr.args):
        re, im = (a.value for a in expr.args if isinstance(a, Const))
        return complex(re, im)
    return None


def children(expr: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of ``expr`` (for generic walks)."""
    if isinstance(expr, Load):
        return expr.index
    if isinstance(expr, (BinOp, Compare)):
        return (expr.lhs, expr.rhs)
    if isinstance(expr, (Unary, Cast)):
        return (expr.operand,)
    if isinstance(expr, Index):
        extra = tuple(e for e in (expr.when, getattr(expr, "guard", None)) if e is not None)
        return (expr.operand, expr.extent, *extra)
    if isinstance(expr, (BoolOp,)):
        return expr.values
    if isinstance(expr, Select):
        return (expr.cond, expr.then, expr.otherwise)
    if isinstance(expr, Call):
        return expr.args
    return ()


def walk(expr: Expr):
    """Yield ``expr`` and all its sub-expressions, parents first."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def distinct_nodes(*exprs: Expr):
    """Yield each distinct sub-expression of ``exprs`` once (by identity), parents first.

    Expressions are DAGs: the frontend hands one operand object to several nodes (``int(x)``
    tests ``x`` for NaN, infinity and range, so ``x`` appears about ten times), and a nest of
    such calls has a tree exponential in its depth (the 338 nodes of one campaign statement
    were a tree of 207,659).  Questions of the form "is there a node such that" walk this."""
    seen: set[int] = set()
    stack = list(reversed(exprs))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(reversed(children(node)))


_Answer = TypeVar("_Answer")


def by_node(memo: dict[int, tuple[Expr, _Answer]], expr: Expr, answer: Callable[[Expr], _Answer]) -> _Answer:
    """``answer(expr)``, computed once per distinct node (by identity, as ``distinct_nodes``) and
    kept in ``memo``: a recursive question over a DAG then costs its nodes, not its tree.  The
    node is kept beside its answer, so that a reused ``id`` is never mistaken for it."""
    known = memo.get(id(expr))
    if known is None or known[0] is not expr:
        known = memo[id(expr)] = (expr, answer(expr))
    return known[1]


def affine_form(expr: Expr) -> dict[str | None, int] | None:
    """``expr`` as {variable: coefficient, None: constant} when it is integer constants and
    variables under ``+``, ``-``, negation and ``*`` by a constant; else None (a bool constant
    counts as not affine)."""
    if isinstance(expr, Const) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
        return {None: int(expr.value)}
    if isinstance(expr, Var):
        return {expr.name: 1}
    if isinstance(expr, Unary) and expr.op == "neg":
        inner = affine_form(expr.operand)
        return None if inner is None else {k: -v for k, v in inner.items()}
    if isinstance(expr, BinOp) and expr.op in ("+", "-", "*"):
        lhs, rhs = affine_form(expr.lhs), affine_form(expr.rhs)
        if lhs is None or rhs is None:
            return None
        if expr.op == "*":
            if set(lhs) <= {None}:
                return {k: v * lhs.get(None, 0) for k, v in rhs.items()}
            if set(rhs) <= {None}:
                return {k: v * rhs.get(None, 0) for k, v in lhs.items()}
            return None
        sign = 1 if expr.op == "+" else -1
        out = dict(lhs)
        for k, v in rhs.items():
            out[k] = out.get(k, 0) + sign * v
        return out
    return None


def to_python(expr: Expr) -> str:
    """Render as Python source with the same meaning (used by the Python backend and explain).
    A tree walk: an operand shared by several nodes is written at each (``SharedPython`` writes
    it once)."""
    return _PY_RENDER[type(expr)](expr, to_python)


#: a rule renders one node, its sub-expressions through ``sub`` (``to_python`` or a
#: ``SharedPython``'s ``render``), in the order Python evaluates them in the text it makes
_Sub = Callable[[Expr], str]


def _render_const(e: Const, sub: _Sub) -> str:
    if isinstance(e.value, float) and e.value != e.value or e.value in (float("inf"), float("-inf")):
        return f"float({str(e.value)!r})"  # inf and nan have no literal
    if not e.weak and e.dtype in INT_DTYPES and isinstance(e.value, int):
        # the value in its dtype's range, as the cpu target's constant has it (np.int8(368) raises)
        info = np.iinfo(e.dtype)
        value = (e.value - int(info.min)) % (1 << info.bits) + int(info.min)
        return repr(value) if e.dtype == "int64" else f"_np.{e.dtype}({value!r})"
    if not e.weak and e.dtype not in ("float64", "int64", "bool"):
        return f"_np.{e.dtype}({e.value!r})"  # a Python number would compute in float64/int
    return repr(e.value)


def _render_load(e: Load, sub: _Sub) -> str:
    if not e.index:
        return f"{e.array}[()]"
    return f"{e.array}[{', '.join(sub(i) for i in e.index)}]"


def _render_binop(e: BinOp, sub: _Sub) -> str:
    if e.op in ("min", "max"):
        return f"{e.op}({sub(e.lhs)}, {sub(e.rhs)})"
    return f"({sub(e.lhs)} {e.op} {sub(e.rhs)})"


def _render_unary(e: Unary, sub: _Sub) -> str:
    if e.op == "neg":
        return f"(-{sub(e.operand)})"
    if e.op == "not":
        return f"(not {sub(e.operand)})"
    if e.op == "invert":
        return f"(~{sub(e.operand)})"
    if e.op == "numpy_abs":  # NumPy's own array loop on one element: whatever it computes here
        return f"_np.absolute(_np.array([{sub(e.operand)}], _np.{e.operand.dtype}))[0]"
    return f"abs({sub(e.operand)})"


def _render_call(e: Call, sub: _Sub) -> str:
    args = ", ".join(sub(a) for a in e.args)
    if e.func == "complex":  # complex(re, im), in numpy's width when strong
        return f"complex({args})" if e.weak else f"_np.{e.dtype}(complex({args}))"
    if e.lib == "math":  # Python float results
        return f"_math.{funcs.math_name(e.func)}({args})"
    if e.lib == "cmath":  # Python complex results
        return f"_cmath.{e.func}({args})"
    return f"_np.{funcs.np_name(e.func)}({args})"


def _render_cast(e: Cast, sub: _Sub) -> str:
    operand = sub(e.operand)
    if e.operand.dtype in INT_DTYPES and e.dtype in INT_DTYPES and not _holds(e.dtype, e.operand.dtype):
        # the operand may be a Python int at run time (an int argument, a size, a literal), where
        # NumPy's constructor raises if it does not fit (np.uint8(300)): first the NumPy integer
        # its type says, whose cast wraps as the cpu target's does (where a Python int must raise,
        # the frontend checked it first: frontend/scalars.py range_checked)
        return f"_np.{e.dtype}(_np.{e.operand.dtype}({operand}))"
    if e.operand.dtype in ("float32", "float64") and e.dtype in INT_DTYPES and not e.operand.weak:
        # a NumPy float's cast (NaN and beyond the dtype: NumPy's value and RuntimeWarning, where
        # the constructor of a Python float, as a float64 argument may arrive, raises)
        return f"_np.{e.dtype}(_np.{e.operand.dtype}({operand}))"
    return f"_np.{e.dtype}({operand})"


def _holds(dtype: str, other: str) -> bool:
    """Does the integer dtype ``dtype`` hold every value of ``other``?"""
    mine, theirs = np.iinfo(dtype), np.iinfo(other)
    return mine.min <= theirs.min and theirs.max <= mine.max


def _render_select(e: Select, sub: _Sub) -> str:
    cond = sub(e.cond)  # (Python evaluates the condition first)
    return f"({sub(e.then)} if {cond} else {sub(e.otherwise)})"


_PY_RENDER: dict[type, Callable[[Any, _Sub], str]] = {
    Const: _render_const,
    Var: lambda e, sub: e.name,
    Load: _render_load,
    BinOp: _render_binop,
    Unary: _render_unary,
    Compare: lambda e, sub: f"({sub(e.lhs)} {e.op} {sub(e.rhs)})",
    BoolOp: lambda e, sub: "(" + f" {e.op} ".join(sub(v) for v in e.values) + ")",
    Select: _render_select,
    Call: _render_call,
    Cast: _render_cast,
    Index: lambda e, sub: f"_index({sub(e.operand)}, {sub(e.extent)}, {e.array!r}, {e.axis}"
                          + ("" if e.when is None else f", {sub(e.when)}") + ")",
    Check: lambda e, sub: f"_check({sub(e.operand)}, {e.message!r}, {e.error!r})",
}


class SharedPython:
    """Python text of expressions in which each shared operand is computed once.

    The frontend shares operands among nodes (``int(x)`` tests one ``x`` about ten times:
    ``distinct_nodes``), so ``to_python``'s tree walk writes a nest of ``int(round(...))``
    exponentially often (depth 5: 1.2 MB of source for one statement, seconds in ``compile``).
    Here a node reached more than once is written once, as ``(NAME := text)``, and later as
    ``NAME`` where that first value is computed on every path that reaches the later one: in
    the same branch arm or one inside it (``arm``: a ``Select``'s branches and a ``BoolOp``'s
    later operands are arms, evaluated only sometimes), as the LLVM emitter reuses its values
    (backends/cpu/llvm_exprs.ExprEmitter.emit).  Elsewhere it is computed again (and named
    again).  One instance renders one line of code (its expressions evaluate together, in the
    order ``render`` is called: a store's value before its subscripts); nodes evaluate to the
    same value wherever they stand in it (no store runs within a line).  Constants and
    variables are written as they are.  ``names`` lists every variable and array name rendered,
    so that the caller can check that ``prefix`` names nothing else."""

    def __init__(self, roots: Sequence[Expr], prefix: str, serial: Iterator[int]) -> None:
        self.names: set[str] = set()
        parents: dict[int, int] = {}
        for root in roots:
            parents[id(root)] = parents.get(id(root), 0) + 1
        for node in distinct_nodes(*roots):
            if isinstance(node, Var):
                self.names.add(node.name)
            elif isinstance(node, (Load, Index)):
                self.names.add(node.array)
            for child in children(node):
                if not isinstance(child, (Const, Var)):  # (written as they are)
                    parents[id(child)] = parents.get(id(child), 0) + 1
        self.shared = {key for key, count in parents.items() if count > 1}
        self.prefix, self.serial = prefix, serial
        self.known: dict[int, tuple[Expr, str, tuple[int, ...]]] = {}  # node -> (node, name, arm)
        self.arm: tuple[int, ...] = ()
        self.arms = itertools.count()

    def render(self, expr: Expr) -> str:
        if not self.shared:  # (nothing to name: the tree walk's text)
            return to_python(expr)
        if id(expr) not in self.shared or isinstance(expr, (Const, Var)):
            return self._rule(expr)
        known = self.known.get(id(expr))
        if known is not None and known[0] is expr and known[2] == self.arm[:len(known[2])]:
            return known[1]
        text = self._rule(expr)
        name = f"{self.prefix}{next(self.serial)}"
        self.known[id(expr)] = (expr, name, self.arm)
        return f"({name} := {text})"

    def _rule(self, expr: Expr) -> str:
        if isinstance(expr, Select):
            cond = self.render(expr.cond)
            then, otherwise = (self._in_arm(branch) for branch in (expr.then, expr.otherwise))
            return f"({then} if {cond} else {otherwise})"
        if isinstance(expr, BoolOp):
            first, *rest = expr.values
            return "(" + f" {expr.op} ".join([self.render(first), *(self._in_arm(v) for v in rest)]) + ")"
        return _PY_RENDER[type(expr)](expr, self.render)

    def _in_arm(self, expr: Expr) -> str:
        """``expr``'s text where it is evaluated only sometimes (a branch, a later operand)."""
        saved, self.arm = self.arm, (*self.arm, next(self.arms))
        try:
            return self.render(expr)
        finally:
            self.arm = saved


def map_children(expr: Expr, fn) -> Expr:
    """``expr`` rebuilt with ``fn(child)`` in place of each direct sub-expression."""
    from dataclasses import fields, replace

    changes: dict = {}
    for f in fields(expr):
        value = getattr(expr, f.name)
        if isinstance(value, tuple) and value and not isinstance(value[0], str):
            changes[f.name] = tuple(fn(v) for v in value)
        elif f.name in ("lhs", "rhs", "operand", "cond", "then", "otherwise", "extent") or \
                f.name in ("when", "guard") and value is not None:
            changes[f.name] = fn(value)
    return replace(expr, **changes) if changes else expr


def map_loads(expr: Expr, fn) -> Expr:
    """``expr`` with every Load replaced by ``fn(load)`` (bottom-up; other nodes rebuilt)."""
    if isinstance(expr, Load):
        from dataclasses import replace

        return fn(replace(expr, index=tuple(map_loads(i, fn) for i in expr.index)))
    return map_children(expr, lambda child: map_loads(child, fn))


def in_order(expr: Expr) -> Expr:
    """``expr`` with every ``BinOp.reassoc`` mark cleared (evaluated as written)."""
    from dataclasses import replace

    cleared = map_children(expr, in_order)
    return replace(cleared, reassoc=False) if isinstance(cleared, BinOp) and cleared.reassoc else cleared


def substitute(expr: Expr, values: dict[str, Expr]) -> Expr:
    """``expr`` with the variables named in ``values`` replaced (all at once)."""
    if isinstance(expr, Var):
        return values.get(expr.name, expr)
    return map_children(expr, lambda child: substitute(child, values))


def linear_coefficient(expr: Expr, var: str) -> int | None:
    """The coefficient of ``var`` in a linear integer expression (None when not linear)."""
    if isinstance(expr, Var):
        return 1 if expr.name == var else 0
    if isinstance(expr, Const):
        return 0
    if isinstance(expr, Unary) and expr.op == "neg":
        inner = linear_coefficient(expr.operand, var)
        return None if inner is None else -inner
    if isinstance(expr, BinOp) and expr.op in ("+", "-"):
        a, b = linear_coefficient(expr.lhs, var), linear_coefficient(expr.rhs, var)
        if a is None or b is None:
            return None
        return a + b if expr.op == "+" else a - b
    if isinstance(expr, BinOp) and expr.op == "*":
        a, b = linear_coefficient(expr.lhs, var), linear_coefficient(expr.rhs, var)
        if isinstance(expr.rhs, Const) and a is not None:
            return a * int(expr.rhs.value)
        if isinstance(expr.lhs, Const) and b is not None:
            return b * int(expr.lhs.value)
    uses = any(isinstance(e, Var) and e.name == var for e in walk(expr))
    return None if uses else 0
