"""``np.tensordot(a, b, axes=(axes_a, axes_b))``: the axes of ``a`` and ``b`` summed pairwise,
given as two lists (or tuples) of integer constants, or two integers (one axis each), negative
counted from the end, as NumPy's tensordot reads them.  The result's axes are ``a``'s kept axes
in order, then ``b``'s; the einsum of that spec (array_formulas._tensordot)."""

from __future__ import annotations

import ast
import copy

from .arrays import Lowering, View

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _ints(node: ast.expr) -> list[int] | None:
    items = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
    out = []
    for item in items:
        sign = 1
        if isinstance(item, ast.UnaryOp) and isinstance(item.op, ast.USub):
            sign, item = -1, item.operand
        if not (isinstance(item, ast.Constant) and type(item.value) is int):
            return None
        out.append(sign * item.value)
    return out


def pairs_spec(lw: Lowering, node: ast.Call, axes: ast.expr, rank_a: int, rank_b: int) -> str | None:
    """The einsum spec of ``axes=`` given as a pair (None where ``axes`` is no pair display)."""
    if not isinstance(axes, (ast.Tuple, ast.List)):
        return None
    parts = [_ints(e) for e in axes.elts] if len(axes.elts) == 2 else [None]
    if any(p is None for p in parts):
        raise lw.error(axes, "np.tensordot() axes= as a pair of other than integer constants or lists of them",
                       "np.tensordot")
    axes_a, axes_b = parts[0] or [], parts[1] or []
    if len(axes_a) != len(axes_b) or rank_a + rank_b > 26:
        raise lw.error(axes, "np.tensordot() axes= pair of lists of different lengths (NumPy raises ValueError)",
                       "np.tensordot")
    if not all(-rank_a <= k < rank_a for k in axes_a) or not all(-rank_b <= k < rank_b for k in axes_b):
        raise lw.error(axes, "np.tensordot() axes= out of range (NumPy raises)", "np.tensordot")
    fixed_a = [k % rank_a for k in axes_a]
    fixed_b = [k % rank_b for k in axes_b]
    if len(set(fixed_a)) < len(fixed_a) or len(set(fixed_b)) < len(fixed_b):
        raise lw.error(axes, "np.tensordot() axes= with an axis repeated (NumPy raises)", "np.tensordot")
    if len(fixed_a) == rank_a and len(fixed_b) == rank_b:
        raise lw.error(node, "np.tensordot() over every axis (NumPy returns a 0-d array; use np.sum(a * b))",
                       "np.tensordot")
    labels_a = list(LETTERS[:rank_a])
    labels_b = list(LETTERS[rank_a:rank_a + rank_b])
    for i, j in zip(fixed_a, fixed_b):
        labels_b[j] = labels_a[i]  # extents checked equal by the einsum
    kept_a = [labels_a[i] for i in range(rank_a) if i not in fixed_a]
    kept_b = [labels_b[j] for j in range(rank_b) if j not in fixed_b]
    return f"{''.join(labels_a)},{''.join(labels_b)}->{''.join(kept_a + kept_b)}"


def kron_tree(lw: Lowering, node: ast.Call, a: ast.expr, b: ast.expr, va: View, vb: View) -> ast.expr:
    """``np.kron(a, b)`` of arrays of any ranks: NumPy's own steps, both given ``max(rank)`` axes
    by leading ones, the product of ``a`` spread over the even axes of twice as many and ``b``
    over the odd ones, reshaped to the products of their extents."""
    if va.rank == 0 or vb.rank == 0:
        raise lw.error(node, "np.kron() of a scalar", "np.kron")
    nd = max(va.rank, vb.rank)

    def spread(operand: ast.expr, rank: int, first: bool) -> ast.expr:
        index: list[ast.expr] = []
        for d in range(nd):
            own = ast.Slice(None, None, None) if d >= nd - rank else ast.Constant(None)
            index += [own, ast.Constant(None)] if first else [ast.Constant(None), own]
        return ast.Subscript(copy.deepcopy(operand), ast.Tuple(index, ast.Load()), ast.Load())

    def extent(v: View, d: int) -> ast.expr:
        return ast.Constant(1) if d < nd - v.rank else v.extents[d - (nd - v.rank)].node

    product = ast.BinOp(spread(a, va.rank, True), ast.Mult(), spread(b, vb.rank, False))
    shape = ast.Tuple([ast.BinOp(extent(va, d), ast.Mult(), extent(vb, d)) for d in range(nd)], ast.Load())
    return ast.Call(ast.Attribute(product, "reshape", ast.Load()), [shape], [])
