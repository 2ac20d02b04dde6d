"""Claims about symbolic slice bounds and extents, decided over the enclosing loops with isl.

A slice whose bounds use loop variables (``A[i, :i]``, ``x[p:p + h]``) has an extent that
changes from one iteration to the next, and NumPy's meaning of a bound depends on its sign (a
negative one counts from the end).  The array lowering states what it needs as a claim
(``i >= 0``, ``min(p + h, n) - p == h``) and asks here whether it holds at every iteration of the
enclosing ``range`` loops.  The answer is one of: proven (nothing to do), a condition on the
parameters alone (sizes and integer arguments) under which it holds, which the lowering adds to
the kernel's assumptions (a call outside them raises ``ArgumentError``), or unusable (never
holds, or needs a condition isl can only state with a division).

Claims are written in Python syntax over names, ``X.shape[d]``, ``+ - *`` by constants, ``//``
by a constant, ``min`` and ``max``; anything else makes a claim undecidable here.
"""

from __future__ import annotations

import ast
import copy
import functools
from dataclasses import dataclass, replace

import islpy as isl

from polyfuse.model.isl_budget import ISL_LOCK

from .source import parse

_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "="}
_NEGATED = {ast.Lt: ">=", ast.LtE: ">", ast.Gt: "<=", ast.GtE: "<"}


@dataclass(frozen=True)
class LoopRange:
    """An enclosing ``for var in range(start, stop, step)`` (texts in Python syntax); ``step``
    0 for a loop whose range is not known here (its variable is then unconstrained)."""

    var: str
    start: str
    stop: str
    step: int


@dataclass(frozen=True)
class Verdict:
    """``proven``: holds everywhere; else ``assume`` is the parameter condition (a Python
    comparison AST) under which it holds, or None when there is none usable."""

    proven: bool
    assume: ast.expr | None = None


class _Names:
    """Python atoms (names, ``X.shape[d]``) <-> isl variables ``v0, v1, ...``."""

    def __init__(self, loop_vars: set[str], params: frozenset[str]) -> None:
        self.loop_vars = loop_vars
        self.allowed = loop_vars | params
        self.isl: dict[str, str] = {}

    def var(self, text: str) -> str | None:
        if text.split(".shape[")[0] not in self.allowed:
            return None
        if text not in self.isl:
            self.isl[text] = f"v{len(self.isl)}"
        return self.isl[text]

    def params(self) -> list[str]:
        return [t for t in self.isl if t not in self.loop_vars]


def _isl_expr(node: ast.expr, names: _Names) -> str | None:
    """``node`` in isl's syntax, or None when it is not affine in the supported forms."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return str(node.value)
    if isinstance(node, ast.Name) or (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
                                      and node.value.attr == "shape"):
        return names.var(ast.unparse(node))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _isl_expr(node.operand, names)
        return None if inner is None else f"-({inner})"
    if isinstance(node, ast.BinOp):
        lhs, rhs = _isl_expr(node.left, names), _isl_expr(node.right, names)
        if lhs is None or rhs is None:
            return None
        if isinstance(node.op, (ast.Add, ast.Sub)):
            return f"({lhs}) {'+' if isinstance(node.op, ast.Add) else '-'} ({rhs})"
        if isinstance(node.op, ast.Mult) and isinstance(node.left, ast.Constant):
            return f"{lhs} * ({rhs})"  # isl reads "2 * (x)" but not "(2) * (x)"
        if isinstance(node.op, ast.Mult) and isinstance(node.right, ast.Constant):
            return f"({lhs}) * {rhs}"
        divisor = node.right.value if isinstance(node.right, ast.Constant) else None
        if isinstance(node.op, ast.FloorDiv) and type(divisor) is int and divisor > 0:
            return f"floor(({lhs}) / {rhs})"
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max") \
            and len(node.args) == 2 and not node.keywords:
        args = [_isl_expr(a, names) for a in node.args]
        return None if None in args else f"{node.func.id}({args[0]}, {args[1]})"
    return None


def is_affine(node: ast.expr, params: frozenset[str]) -> bool:
    """Whether ``node`` is affine in ``params`` (integer arguments, ``X.shape[d]`` of array
    arguments) in the forms claims may use."""
    return _isl_expr(node, _Names(set(), params)) is not None


def decided(claim: str, loops: tuple[LoopRange, ...], params: frozenset[str],
            facts: tuple[str, ...] = ()) -> Verdict:
    """``decide``, remembered: the lowering asks the same claims over and over (its passes over
    the same subscripts: heat-3d's 132 claims are 9 distinct, 0.3 s of isl at a time); the
    assumption is a fresh AST each time (callers place it)."""
    verdict = _remembered(claim, loops, params, facts)
    return verdict if verdict.assume is None else replace(verdict, assume=copy.deepcopy(verdict.assume))


@functools.lru_cache(maxsize=4096)
def _remembered(claim: str, loops: tuple[LoopRange, ...], params: frozenset[str], facts: tuple[str, ...]) -> Verdict:
    return decide(claim, loops, params, facts)


def decide(claim: str, loops: tuple[LoopRange, ...], params: frozenset[str], facts: tuple[str, ...] = ()) -> Verdict:
    """Whether ``claim`` (one comparison) holds at every point of ``loops``; see the module.
    ``params`` are the integer and array arguments (the other names a claim may use, besides
    loop variables, as ``n`` and ``X.shape[d]``).  ``facts`` are comparisons known to hold
    where the claim is made (the tests of enclosing ``if`` statements, ``k > 1``): only those
    points of the loops count."""
    tree = parse(claim, mode="eval").body
    assert isinstance(tree, ast.Compare) and len(tree.ops) == 1, claim
    names = _Names({loop.var for loop in loops}, params)
    lhs, rhs = _isl_expr(tree.left, names), _isl_expr(tree.comparators[0], names)
    op = type(tree.ops[0])
    if lhs is None or rhs is None or op not in _OPS:
        return Verdict(False)
    domain = []
    for loop in loops:
        if loop.step == 0:  # a loop we cannot bound: its variable ranges freely (still sound)
            continue
        start, stop = (_isl_expr(parse(t, mode="eval").body, names) for t in (loop.start, loop.stop))
        v = names.isl.setdefault(loop.var, f"v{len(names.isl)}")
        lower, upper = (start, stop) if loop.step > 0 else (stop, start)
        lo_op, hi_op = ("<=", "<") if loop.step > 0 else ("<", "<=")
        if lower is not None:
            domain.append(f"{lower} {lo_op} {v}")
        if upper is not None:
            domain.append(f"{v} {hi_op} {upper}")
    for fact in facts:
        known = parse(fact, mode="eval").body
        assert isinstance(known, ast.Compare) and len(known.ops) == 1 and type(known.ops[0]) in _OPS, fact
        left, right = _isl_expr(known.left, names), _isl_expr(known.comparators[0], names)
        if left is not None and right is not None:  # one the caller found affine; else it is left out (sound)
            domain.append(f"{left} {_OPS[type(known.ops[0])]} {right}")
    shapes = [f"{v} >= 0" for t, v in names.isl.items() if ".shape[" in t]
    space = "[" + ", ".join(names.isl[t] for t in names.params()) + "]"
    iters = "[" + ", ".join(names.isl[t] for t in names.isl if t in names.loop_vars) + "]"
    negated = f"({lhs} < {rhs} or {lhs} > {rhs})" if op is ast.Eq else f"{lhs} {_NEGATED[op]} {rhs}"
    with ISL_LOCK:
        sizes = isl.Set(f"{space} -> {{ : {' and '.join(shapes) or 'true'} }}")
        bad = isl.Set(f"{space} -> {{ {iters} : {' and '.join(domain + shapes + [negated])} }}").params()
        if bad.is_empty():
            return Verdict(True)
        good = sizes.subtract(bad).coalesce()
        runs = isl.Set(f"{space} -> {{ {iters} : {' and '.join(domain + shapes) or 'true'} }}").params()
        if good.intersect(runs).is_empty():  # it holds only where the loops do not run: useless
            return Verdict(False)
        return Verdict(False, _condition(good, {v: t for t, v in names.isl.items()}))


def _condition(good: isl.Set, texts: dict[str, str]) -> ast.expr | None:
    """A division-free parameter set as a Python condition (``or`` of ``and`` of comparisons)."""
    disjuncts: list[ast.expr] = []
    for basic in good.get_basic_sets():
        if basic.dim(isl.dim_type.div):
            return None
        parts = []
        for c in basic.get_constraints():
            text = "0"
            for k in range(basic.dim(isl.dim_type.param)):
                coeff = c.get_coefficient_val(isl.dim_type.param, k).to_python()
                if coeff:
                    atom = texts[str(basic.get_dim_name(isl.dim_type.param, k))]
                    text += f" {'+' if coeff > 0 else '-'} {abs(coeff)} * {atom}"
            constant = c.get_constant_val().to_python()
            text += f" {'+' if constant >= 0 else '-'} {abs(constant)}"
            parts.append(f"{text} {'==' if c.is_equality() else '>='} 0")
        disjuncts.append(parse(" and ".join(parts) or "True", mode="eval").body)
    return disjuncts[0] if len(disjuncts) == 1 else ast.BoolOp(ast.Or(), disjuncts)
