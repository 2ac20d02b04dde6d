"""Exact rounded quotients by a loop-invariant divisor: ``rint(a / b)`` as ``rint(a * (1 / b))``
where that provably gives the same value, the division where it may not.

quantize_int8's ``np.rint(x / scale)`` ran at the divider's pace (about one cycle per float64
element on the Intel AVX-512 VM, against about half a cycle for everything else of the loop;
docs/performance.md, *Round, clip, cast*).  ``jax.jit`` multiplies by ``1 / scale``, which is not
NumPy's result where ``x / scale`` lies within an ulp or two of a half-integer
(benchmarks/jax_quantize.py).  Here the product is used only where its rounding cannot differ:

With ``r = fl(1 / b)`` (``b`` and ``1 / b`` normal, ``|b|`` in ``[2**-1021, 2**1021]``), ``q =
fl(a * r)`` is within ``(2u + u**2) |a / b|`` of the exact quotient (``u = 2**-53``; no relative
bound is needed below the normal range: there ``rint`` gives a zero of the quotient's sign either
way), and ``fl(a / b)`` within ``u |a / b|``: the two are less than ``2**-50 |q|`` apart.  Let ``n =
rint(q)`` and ``h = q - n`` (exact).  When ``|h| + 2**-50 |q| < 0.5`` (one FMA and a compare;
rounding the FMA can only turn a true "< 0.5" false, never the reverse) no half-integer lies
between ``q`` and ``fl(a / b)``, nor on either, so ``rint(fl(a / b)) == n``, the sign of a zero
included.  NaNs, infinities, ``|q| >= 2**49`` and overflow all fail the test.

The loop runs in blocks of ``BLOCK`` iterations: the block with the products, OR-ing each test's
failure into one flag (a vector reduction), then, where the flag is set, the same block again as
written (with the division), whose stores replace the first ones.  So a block's statements may
read no array the loop writes (running them twice then stores the same values), and the loop
writes no scalar.  ``checked_quotients`` says where the rule applies: a float64 ``rint`` of a
division in a statement of an innermost loop of step 1 with a simple bound, the divisor made of
constants and parameters only (computed once before the loop).  A divisor outside the range
above runs the loop as written.
"""

from __future__ import annotations

from polyfuse.model import ir
from polyfuse.model.loop_ast import For, LoopProgram, StmtCall, exclusive_bound, nodes
from polyfuse.model.scop import isl_name
from polyfuse.options import reciprocal_quotients

#: Iterations per block: the flag is tested once per block, a failing block runs twice.
BLOCK = 512
#: ``2**-50``: a bound on ``|fl(a * fl(1 / b)) - fl(a / b)| / |fl(a * fl(1 / b))|`` with margin.
SLACK = 2.0 ** -50
#: The divisors whose reciprocal is normal and accurate to half an ulp: ``LOW <= |b| <= HIGH``.
LOW, HIGH = 2.0 ** -1021, 2.0 ** 1021


def checked_quotients(program: LoopProgram, loop: For) -> tuple[ir.Expr, ...]:
    """The divisors of the ``rint(a / b)`` sites of ``loop`` that the blocked form may compute
    with a reciprocal (see the module docstring); () where it does not apply."""
    if not reciprocal_quotients() or loop.step != 1 or exclusive_bound(loop) is None or any(
            isinstance(n, For) for n in nodes(loop.body)):
        return ()
    calls = [n for n in nodes(loop.body) if isinstance(n, StmtCall)]
    stmts = [program.statement(c.statement) for c in calls]
    if not stmts or any(s.region is not None or not s.index for s in stmts):
        return ()
    written = {s.array for s in stmts}
    local_names = {isl_name(v) for s in stmts for v in s.iterators} | {loop.iterator}
    divisors: list[ir.Expr] = []
    for stmt in stmts:
        for root in (stmt.value, *stmt.index):
            for e in ir.walk(root):
                if isinstance(e, (ir.Index, ir.Check)) or (isinstance(e, ir.Load) and e.array in written):
                    return ()
        for e in ir.walk(stmt.value):
            if _site(e) and _invariant(e.args[0].rhs, local_names) and e.args[0].rhs not in divisors:
                divisors.append(e.args[0].rhs)
    return tuple(divisors)


def _site(e: ir.Expr) -> bool:
    """``rint(a / b)`` in float64?"""
    return (isinstance(e, ir.Call) and e.func == "rint" and len(e.args) == 1 and e.dtype == "float64"
            and isinstance(e.args[0], ir.BinOp) and e.args[0].op == "/" and e.args[0].dtype == "float64"
            and e.args[0].lhs.dtype == "float64" and e.args[0].rhs.dtype == "float64")


def quotient_site(e: ir.Call) -> ir.BinOp | None:
    """The division of a ``rint(a / b)`` site, for the expression emitter."""
    return e.args[0] if _site(e) else None  # type: ignore[return-value]


def _invariant(expr: ir.Expr, local_names: set[str]) -> bool:
    """Made of constants and names bound outside the loop only (parameters, float arguments)."""
    return all(isinstance(e, ir.Const) or (isinstance(e, ir.Var) and e.name not in local_names)
               or isinstance(e, (ir.BinOp, ir.Unary)) for e in ir.walk(expr)) and not any(
        isinstance(e, ir.Var) and e.name.startswith("_t") for e in ir.walk(expr))
