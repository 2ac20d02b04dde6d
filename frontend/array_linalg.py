"""Matrix products in NumPy array statements: ``@``, np.matmul, np.dot, np.inner, np.outer, np.einsum.

Called by :class:`frontend.arrays.Lowering` for those operators and calls, and for assignments
of them (frontend.lift hands it :data:`PRODUCT_RULES`, so this module builds on arrays.py
without an import circle).  Each product is first written as a :class:`Contraction`: every
operand axis gets a label, the result keeps some labels and sums over the others (``A @ B`` is
``ik,kj->ij``).  A contraction with labels to sum becomes a reduction in ``pre``, the pattern of
the axis reductions::

    y[:] = A @ x + b     ->   for pf_i1 in range(A.shape[0]):
                                  pf_mm3[pf_i1] = 0
                              for pf_i1 in range(A.shape[0]):
                                  for pf_i2 in range(A.shape[1]):
                                      pf_mm3[pf_i1] = pf_mm3[pf_i1] + A[pf_i1, pf_i2] * x[pf_i2]
                              for pf_i4 in range(y.shape[0]):
                                  y[pf_i4] = pf_mm3[pf_i4] + b[pf_i4]

so the scheduler sees the product as ordinary statements to fuse with its producers and
consumers, reorder and tile.  ``C[...] = A @ B`` sums into ``C`` itself when NumPy's result is
the same (same dtype, no broadcast, operands that do not read ``C``): no temporary then shares
the nest, so a whole-array product gets the register tiles of a hand-written one.  A product
with nothing to sum (np.outer, ``ij->ji``) is an element-wise value, computed where it is used.
A product to a scalar (``x @ y`` of two vectors) accumulates into a scalar local.  Each update
``acc + term`` is marked reassociable (``checker.reassociable``), as NumPy's reductions are: the
CPU backend may keep partial sums in vector lanes, neither in index order nor in BLAS's blocked
order, so float results differ from NumPy's in the last bits.  Shapes follow NumPy's rules; extents that must be equal are checked at compile time where
they are constants and otherwise assumed in the Scop's context and checked per call
(``Lowering.mismatch``).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from polyfuse.model.region import BLAS_MIN_WORK, MATMUL_CALL
from polyfuse.options import gemv_row_loops, integer_checks, product_sums, scale_after_product

from .array_lapack import linalg_parts, lower_linalg
from .array_sparse import names_a_sparse_matrix, sparse_product
from .arrays import NP_NAME, UNKNOWN, Lowering, ProductRules, Sym, View, _store, atom, const, leaf, scalar
from .checker import module_of, reassociable
from .source import walk
from .types import VType, promote

PRODUCTS = ("dot", "matmul", "vdot", "inner", "outer", "einsum")
_CONSTRUCT = "matrix product"
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Contraction:
    """``output = sum over the other labels of the product of the operands``: ``labels[k]``
    names each axis of ``operands[k]``; a label in ``broadcast`` may have size 1 on one operand
    and n on another (matmul's batch axes, every einsum label), the others must be equal."""

    operands: tuple[View, ...]
    labels: tuple[tuple[str, ...], ...]
    output: tuple[str, ...]
    what: str  # the NumPy function, for messages
    broadcast: frozenset[str] = frozenset()


# ---- entry points -----------------------------------------------------------------------------
def lower_product(lw: Lowering, node: ast.expr) -> View | None:
    """The value of ``a @ b`` or of a product call (np.dot(...) and friends, ``a.dot(b)``,
    ``dot(...)`` imported from numpy), or of a name's binding to such a product plus a term
    (``_product_sum``); None for any other node."""
    summed = _product_sum(lw, node)
    if summed is not None:
        return summed
    found = product_of(lw, node)
    return contract(lw, node, found) if isinstance(found, Contraction) else found


def store_product(lw: Lowering, stmt: ast.Assign, target: View) -> list[ast.stmt] | None:
    """``target = <product>`` (None when the value is not a product): summed into the target in
    place when the sum alone decides the result (same dtype, no broadcast, the operands do not
    read the target), so no temporary shares the nest and register tiles apply; else through
    the product's value and ``lw.store``."""
    if target.rank == 0 or not _names_a_product(lw, stmt.value):
        return None
    found = product_of(lw, stmt.value)
    assert found is not None, "_names_a_product said it is one"
    if not isinstance(found, Contraction):
        return lw.store(stmt, target, found)
    s = _resolve(lw, stmt.value, found)
    in_place = _accumulate(lw, stmt.value, s, target)
    return in_place if in_place is not None else lw.store(stmt, target, _value(lw, stmt.value, s))


def product_of(lw: Lowering, node: ast.expr) -> Contraction | View | None:
    """The contraction a product node means (a View where NumPy's rule is a plain ``*``, or
    where an operand is a scipy.sparse matrix: frontend/array_sparse.py)."""
    sparse = sparse_product(lw, node)
    if sparse is not None:
        lw.changed = True
        return sparse
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        lw.changed = True
        left, right = _operand(lw, node.left), _operand(lw, node.right)
        scaled = _scaled_product(lw, node, left, right)
        return scaled if scaled is not None else matmul(lw, node, left.whole, right.whole)
    if not _names_a_product(lw, node):
        return None
    assert isinstance(node, ast.Call)
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    lw.changed = True
    method = isinstance(func, ast.Attribute) and not _is_numpy(func.value, lw)
    exprs = ([func.value] if isinstance(func, ast.Attribute) and method else []) + list(node.args)
    allowed = {"optimize"} if name == "einsum" else set()
    for kw in node.keywords:
        if kw.arg not in allowed:
            raise lw.error(kw.value, f"np.{name}() with keyword {kw.arg}=; write the result into an array "
                           "with an assignment instead", _CONSTRUCT)
    if name == "einsum":
        return einsum(lw, node, exprs)
    if any(isinstance(e, ast.Starred) for e in exprs) or len(exprs) != 2:
        raise lw.error(node, f"np.{name}() takes two arrays", _CONSTRUCT)
    left, right = _operand(lw, exprs[0]), _operand(lw, exprs[1])
    scaled = _scaled_product(lw, node, left, right) if name in ("dot", "matmul") else None  # (rank 2: the same)
    if scaled is not None:
        return scaled
    a, b = left.whole, right.whole
    return {"dot": dot, "matmul": matmul, "vdot": vdot, "inner": inner, "outer": outer}[name](lw, node, a, b)


def _names_a_product(lw: Lowering, node: ast.expr) -> bool:
    """``a @ b``, ``np.<product>(...)``, ``<product>(...)`` imported from numpy, ``a.dot(b)``."""
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.MatMult)
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in PRODUCTS and lw.globals.get(func.id) is getattr(np, func.id)
    if isinstance(func, ast.Attribute) and func.attr in PRODUCTS:
        return _is_numpy(func.value, lw) or func.attr == "dot"
    return False


def _is_numpy(node: ast.expr, lw: Lowering) -> bool:
    return module_of(node, lw.globals) == "np"


# ---- scaled operands: the scale moved onto the product -------------------------------------------
@dataclass(frozen=True)
class _Operand:
    """An operand of ``@`` as NumPy computes it (``whole``) and, where the source writes it as
    ``x * f``, ``f * x`` or ``x / f``, the two sides of that operator (``parts``: the node, the
    left view, the right view), lowered once."""

    whole: View
    parts: tuple[ast.BinOp, View, View] | None = None


def _operand(lw: Lowering, node: ast.expr) -> _Operand:
    """``lw.value(node)``, keeping the sides of a top-level ``*`` or ``/`` (lowered exactly as
    ``Lowering._BinOp`` lowers them, so nothing is lowered twice)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        lhs, rhs = lw.value(node.left), lw.value(node.right)
        return _Operand(lw.binop(node, node.op, lhs, rhs), (node, lhs, rhs))
    return _Operand(lw.value(node))


def _scaled_product(lw: Lowering, node: ast.expr, left: _Operand, right: _Operand) -> View | None:
    """``(x * f) @ b`` as ``(x @ b) * f`` (also ``f * x`` and ``x / f``, and on the right operand
    with a factor per column), where ``x`` is a plain array and ``f`` does not vary along the
    summed axis: a scalar, or a column ``(m, 1)`` on the left (``P / P.sum(axis=-1,
    keepdims=True)``), a row ``(n,)``/``(1, n)`` on the right.  The product then runs on the
    arrays as stored (BLAS reads ``x`` itself: no scaled copy is written and read back) and the
    scaling is an element-wise step on the ``m x n`` result, which fuses with the product's
    consumer (gemm's ``alpha * A @ B + beta * C``: one pass over the result; attention's
    softmax: ``m x n`` divisions instead of ``m x k``).  Only for a matrix times a matrix of one
    float dtype kept whole for BLAS (``POLYFUSE_SCALE_AFTER_PRODUCT``, default on); it
    reassociates like BLAS itself (docs/subset.md).  ``np.dot`` and ``np.matmul`` of two
    matrices the same way.  None: NumPy's order."""
    moved = _moved_factors(lw, left, right)
    if moved is None:
        return None
    a, b, x, y = moved
    alpha = _alpha(x, y)
    if all(found is None or found[1][1].rank == 0 for found in (x, y)):
        return _value(lw, node, _resolve(lw, node, matmul(lw, node, a, b)), alpha)
    return _checked_product(lw, node, (a, b), ((x, "scale_a"), (y, "scale_b")), alpha)


def _moved_factors(lw: Lowering, left: _Operand, right: _Operand) -> tuple | None:
    """(a, b, x, y) where a factor of an operand moves onto the product (``_scaled_product``):
    the plain arrays and each side's ``_factored`` (None for a side without one); else None."""
    if not (lw.products.blas and scale_after_product()) or (left.parts is None and right.parts is None):
        return None
    x = _factored(lw, left, "left")
    y = _factored(lw, right, "right")
    a = x[0] if x is not None else left.whole
    b = y[0] if y is not None else right.whole
    if (x is None and y is None) or not _worth_blas(a, b):
        return None
    return a, b, x, y


def _alpha(*found) -> ast.expr | None:
    """The product of the scalar factors of ``_factored``'s findings (None where there is none)."""
    alpha = None
    for number in (f[1][1].element(()) for f in found if f is not None and f[1][1].rank == 0):
        alpha = number if alpha is None else ast.BinOp(alpha, ast.Mult(), number)
    return alpha


def _product_sum(lw: Lowering, node: ast.expr) -> View | None:
    """``name = P + E`` (also ``E + P`` and ``P - E``; the final ``return`` of one binds a name
    too) where ``P`` is a matrix times a matrix kept whole for BLAS (``alpha * A @ B``, the
    scale ``?gemm``'s alpha): ``E`` written into the product's fresh result first, then one
    ``MATMUL_CALL(..., accumulate=True)`` adds the product to it (``?gemm``'s beta = 1;
    ``POLYFUSE_PRODUCT_SUMS``), where the sum has the product's shape and dtype.  The temporary
    the product wrote and a second pass read back beside ``E`` goes away (gemm's ``alpha * A @ B
    + beta * C``).  Only as the whole value of a binding: inside a larger expression
    (``np.maximum(x @ W + b, 0)``) ``E`` would take a pass of its own before the product instead
    of riding its consumer's.  No dependence to check: the result is an array allocated here,
    which neither ``E`` nor the operands (lowered before it) can read.  None, nothing lowered,
    for any other node."""
    here = lw.here
    if not (lw.products.blas and product_sums() and isinstance(node, ast.BinOp)
            and isinstance(node.op, (ast.Add, ast.Sub)) and isinstance(here, ast.Assign)
            and here.value is node and len(here.targets) == 1 and isinstance(here.targets[0], ast.Name)):
        return None
    if _is_matmul(node.left):
        product, other, first = node.left, node.right, True
    elif isinstance(node.op, ast.Add) and _is_matmul(node.right):
        product, other, first = node.right, node.left, False
    else:
        return None
    if names_a_sparse_matrix(lw, node):
        return None  # frontend/array_sparse.py's
    assert isinstance(product, ast.BinOp)
    lw.changed = True
    left, right = _operand(lw, product.left), _operand(lw, product.right)
    moved = _moved_factors(lw, left, right)
    if moved is not None and not all(found is None or found[1][1].rank == 0 for found in moved[2:]):
        value = _scaled_product(lw, product, left, right)  # a factor per row or column: checked per call
        assert value is not None, "_moved_factors found one"
        term = lw.value(other)
        return lw.binop(node, node.op, *((value, term) if first else (term, value)))
    a, b, alpha = (moved[0], moved[1], _alpha(*moved[2:])) if moved is not None else (left.whole, right.whole, None)
    s = _resolve(lw, product, matmul(lw, product, a, b))
    term = lw.value(other)
    folded = _folded_sum(lw, node, s, alpha, term, first)
    if folded is not None:
        return folded
    value = _value(lw, product, s, alpha)
    return lw.binop(node, node.op, *((value, term) if first else (term, value)))


def _is_matmul(node: ast.expr) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult)


def _folded_sum(lw: Lowering, node: ast.BinOp, s: _Sum, alpha: ast.expr | None, term: View,
                first: bool) -> View | None:
    """``_product_sum``'s result where it folds: the term (``-0.0 + E``, ``-0.0 - E`` or
    ``E + -0.0``: ``E``, or ``-E``, exactly, signed zeros kept) stored into a fresh array of the
    product's shape and dtype, the product added to it.  None where the product is not a matrix
    times a matrix on BLAS, or the term would change the sum's shape or dtype."""
    shape = _blas_shape(lw, s)
    if shape is None or shape.row is None or shape.col is None or shape.batch or term.picks:
        return None
    zero = View(s.out_extents, s.vtype, lambda idx: ast.Constant(-0.0))
    rest = lw.binop(node, node.op, zero, term) if first else lw.binop(node, node.op, term, zero)
    if rest.vtype != s.vtype or rest.rank != len(s.out_extents) or not all(
            lw.equal_extents(mine, theirs) for mine, theirs in zip(rest.extents, s.out_extents)):
        return None
    dtype = lw.temp_dtype(node, rest)
    array = lw.fresh("mm")
    lw.allocate(array, s.out_extents, dtype)
    result = leaf(array, s.out_extents, dtype)
    lw.pre.extend(lw.nest(result.extents, lambda k: [ast.Assign([_store(result.element(k))], rest.element(k))]))
    lw.pre.extend(_blas_into(lw, s, shape, result, alpha, accumulate=True))
    return result


def _checked_product(lw: Lowering, node: ast.expr, plain: tuple[View, View], found: tuple,
                     alpha: ast.expr | None) -> View | None:
    """``(x * f) @ b`` (``x / f``, ``f * x``; or on the right) for a vector factor ``f``:
    ``(x @ b) * f`` only where that is exact in its infs and NaNs, decided per call.  A finite
    ``f`` other than zero scales every term of a sum by the same finite number, so each element
    is an inf or a NaN exactly where NumPy's is (up to overflow and rounding); a zero, an inf or a
    NaN in ``f`` does not (NumPy's ``0 * inf`` of a term is NaN, the sum times ``inf`` an inf).
    So one pass over each factor sums ``0 if f * 0 == 0 and f != 0 else 1`` into a scalar local
    (cheap against the product), and the product kept whole has ``check=`` (those sums are 0):
    BLAS on the arrays as stored where it is 0, else the product's loops with the operand
    scaled term by term, NumPy's order (model/region.py ``Matmul.check``); the scaling after
    is ``(x @ b) * f if check else (x @ b)``, fused with the consumer as before.  None
    (NumPy's order) where the product is not kept whole."""
    s = _resolve(lw, node, matmul(lw, node, *plain))
    blas = _blas_shape(lw, s) if s.summed and s.c.output else None
    if blas is None or blas.batch:
        return None
    dtype = s.vtype.dtype
    checks: list[ast.expr] = []
    scales: list[tuple[str, ast.BinOp, View, bool]] = []
    for found_side, key in found:
        if found_side is None:
            continue
        op_node, factor, first = found_side[1]
        if factor.rank == 0:
            continue
        if not (_plain(factor) and factor.vtype.dtype == dtype):
            factor = _stored(lw, factor, dtype)
        def plain_at(k: tuple, f: View = factor) -> ast.expr:  # f finite and not zero at k
            return ast.BoolOp(ast.And(), [ast.Compare(ast.BinOp(f.element(k), ast.Mult(), ast.Constant(0.0)),
                                                      [ast.Eq()], [ast.Constant(0.0)]),
                                          ast.Compare(f.element(k), [ast.NotEq()], [ast.Constant(0.0)])])
        if integer_checks():
            total = _scalar_count(lw, factor.extents, plain_at)
        else:
            total = _scalar_sum(lw, dtype, factor.extents, lambda k: ast.IfExp(
                plain_at(k), ast.Constant(0.0), ast.Constant(1.0)))
        checks.append(ast.Compare(total.element(()), [ast.Eq()], [ast.Constant(0)]))
        scales.append((key, op_node, factor, first))
    test = checks[0] if len(checks) == 1 else ast.BoolOp(ast.And(), checks)
    array = lw.fresh("mm")
    lw.allocate(array, s.out_extents, dtype)
    result = leaf(array, s.out_extents, dtype)
    call = _blas_into(lw, s, blas, result, alpha)
    assert len(call) == 1 and isinstance(call[0], ast.Expr) and isinstance(call[0].value, ast.Call)
    names = [arg.value for arg in call[0].value.args[6:9] if isinstance(arg, ast.Constant)]
    r, c, _ = (atom(str(name)) for name in names)

    def along(extent: Sym, index: Sym) -> Sym:
        return const(0) if extent.is_const(1) else index

    for key, op_node, factor, first in scales:
        at: tuple[Sym, ...]
        if key == "scale_a":  # a column (m, 1)
            at = (along(factor.extents[0], r), const(0))
        else:  # a row (n,) or (1, n)
            at = (along(factor.extents[-1], c),) if factor.rank == 1 else (const(0), along(factor.extents[1], c))
        how = "*" if isinstance(op_node.op, ast.Mult) else "/"
        call[0].value.keywords.append(ast.keyword(key, ast.Tuple(
            [ast.Constant(how), ast.Constant(first), factor.element(at)], ast.Load())))
    call[0].value.keywords.append(ast.keyword("check", copy.deepcopy(test)))
    lw.pre.extend(call)
    scaled = result
    for _, op_node, factor, first in scales:
        scaled = lw.binop(op_node, op_node.op, *((factor, scaled) if first else (scaled, factor)))
    after = scaled
    return View(after.extents, after.vtype,
                lambda idx: ast.IfExp(copy.deepcopy(test), after.element(idx), result.element(idx)))


def _factored(lw: Lowering, operand: _Operand, side: str) -> tuple[View, tuple[ast.BinOp, View, bool]] | None:
    """(the plain array, (the operator's node, the factor, whether the factor comes first)) of an
    operand ``x * f``, ``f * x`` or ``x / f`` whose factor can move onto the product; else None.
    A scalar factor becomes BLAS's alpha, so only a product by a number or by a scalar argument
    the kernel never assigns (``_blas_alpha``): the call then scales as it sums, with no pass
    over the result, whatever its size."""
    if operand.parts is None:
        return None
    node, lhs, rhs = operand.parts
    whole = operand.whole
    if whole.rank != 2 or whole.vtype.weak or whole.vtype.dtype not in ("float32", "float64"):
        return None
    sides = [(lhs, rhs, False)] + ([(rhs, lhs, True)] if isinstance(node.op, ast.Mult) else [])
    for plain, factor, factor_first in sides:
        if not (plain.rank == 2 and _plain(plain) and plain.vtype == whole.vtype and _along_free_axis(factor, side)):
            continue
        if factor.rank == 0 and not (isinstance(node.op, ast.Mult) and _blas_alpha(lw, factor.element(()))):
            continue
        return plain, (node, factor, factor_first)
    return None


def _blas_alpha(lw: Lowering, node: ast.expr) -> bool:
    """A number, or a scalar argument the kernel never assigns: a value fixed for the whole call,
    which the product's statement may read wherever the schedule puts it."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    return (isinstance(node, ast.Name) and node.id in lw.args and node.id in lw.scalars
            and lw.stores[node.id] == 0 and lw.scalars[node.id].dtype in ("float64", "float32", "int64", "int32"))


def _along_free_axis(factor: View, side: str) -> bool:
    """Whether ``factor``, broadcast against a rank-2 operand, is constant along its summed axis
    (the columns of a left operand, the rows of a right one), and is a real number."""
    if factor.vtype is UNKNOWN or factor.vtype.dtype == "unknown" or factor.vtype.is_complex:
        return False
    if factor.rank == 0:
        return True
    if side == "left":
        return factor.rank == 2 and factor.extents[1].is_const(1)
    return factor.rank == 1 or (factor.rank == 2 and factor.extents[0].is_const(1))


def _worth_blas(a: View, b: View) -> bool:
    """A matrix times a matrix of one float dtype (no extent known to be 1), not known to be
    below BLAS_MIN_WORK: what _blas_shape keeps whole."""
    if a.rank != 2 or b.rank != 2 or a.vtype != b.vtype:
        return False
    sizes = (a.extents[0], a.extents[1], b.extents[1])
    if any(size.is_const(1) for size in sizes):
        return False
    return not (all(size.is_const() for size in sizes) and math.prod(size.const for size in sizes) < BLAS_MIN_WORK)


# ---- NumPy's shape rules, as contractions -----------------------------------------------------
def matmul(lw: Lowering, node: ast.AST, a: View, b: View) -> Contraction:
    """np.matmul: vectors are promoted to matrices and the added axis dropped again; axes before
    the last two are batch axes that broadcast."""
    if a.rank == 0 or b.rank == 0:
        raise lw.error(node, "matrix product of a scalar (NumPy's matmul raises ValueError); use *", _CONSTRUCT)
    left = ("i", "k") if a.rank >= 2 else ("k",)
    right = ("k", "j") if b.rank >= 2 else ("k",)
    batch = max(a.rank - 2, b.rank - 2, 0)
    names = tuple(f"b{d}" for d in range(batch))
    la = names[batch - max(a.rank - 2, 0):] + left
    lb = names[batch - max(b.rank - 2, 0):] + right
    out = names + (("i",) if a.rank >= 2 else ()) + (("j",) if b.rank >= 2 else ())
    return Contraction((a, b), (la, lb), out, "np.matmul", frozenset(names))


def dot(lw: Lowering, node: ast.AST, a: View, b: View) -> Contraction | View:
    """np.dot: a product with a scalar is ``*`` (a Python number made a float64/int64 array
    first, as np.dot does, unlike ``*``'s NEP 50 rule); otherwise a sum over the last axis of ``a`` and
    the second-to-last of ``b`` (its only one when ``b`` is a vector); no broadcasting."""
    if a.rank == 0 or b.rank == 0:
        return lw.binop(node, ast.Mult(), _as_array(a), _as_array(b))
    la = tuple(f"a{d}" for d in range(a.rank - 1)) + ("k",)
    lb = tuple(f"c{d}" for d in range(b.rank))
    lb = lb[:-2] + ("k",) + lb[-1:] if b.rank >= 2 else ("k",)
    out = la[:-1] + tuple(lab for lab in lb if lab != "k")
    return Contraction((a, b), (la, lb), out, "np.dot")


def inner(lw: Lowering, node: ast.AST, a: View, b: View) -> Contraction | View:
    """np.inner: a sum over the last axes of both; a product with a scalar is ``*``."""
    if a.rank == 0 or b.rank == 0:
        return lw.binop(node, ast.Mult(), _as_array(a), _as_array(b))
    la = tuple(f"a{d}" for d in range(a.rank - 1)) + ("k",)
    lb = tuple(f"c{d}" for d in range(b.rank - 1)) + ("k",)
    return Contraction((a, b), (la, lb), la[:-1] + lb[:-1], "np.inner")


def vdot(lw: Lowering, node: ast.AST, a: View, b: View) -> Contraction | View:
    """np.vdot of two vectors: the inner product with ``a`` conjugated (complex); NumPy flattens
    other ranks first."""
    if a.rank != 1 or b.rank != 1:
        raise lw.error(node, "np.vdot() of other than two vectors (NumPy flattens them; polyfuse does not "
                       "reshape); use np.dot or np.einsum", _CONSTRUCT)
    if a.vtype.is_complex:
        conj = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "conj", ast.Load())
        plain = a
        a = View(a.extents, a.vtype, lambda idx: ast.Call(conj, [plain.element(idx)], []), a.base)
    return inner(lw, node, a, b)


def outer(lw: Lowering, node: ast.AST, a: View, b: View) -> Contraction:
    """np.outer of vectors (and scalars, which NumPy flattens to one element): ``a[:, None] * b``."""
    if a.rank > 1 or b.rank > 1:
        raise lw.error(node, "np.outer() of an array of rank > 1 (NumPy flattens it; polyfuse does not "
                       "reshape); index the vectors or use np.einsum", _CONSTRUCT)
    a, b = _as_array(a), _as_array(b)
    column = View((_first(a),), a.vtype, lambda idx: a.element(idx[:a.rank]), a.base)
    row = View((_first(b),), b.vtype, lambda idx: b.element(idx[:b.rank]), b.base)
    return Contraction((column, row), (("i",), ("j",)), ("i", "j"), "np.outer")


def _first(v: View) -> Sym:
    return v.extents[0] if v.rank else const(1)


def _as_array(v: View) -> View:
    """A Python number as the products convert it (np.asarray: float64 or int64), a numpy
    scalar of that dtype; anything else as it is."""
    if v.rank or not v.vtype.weak or v.vtype.dtype not in ("float64", "int64"):
        return v
    element = v.element(())
    cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), v.vtype.dtype, ast.Load())
    return scalar(ast.Call(cast, [element], []), VType(v.vtype.dtype, False))


# ---- einsum -----------------------------------------------------------------------------------
def einsum(lw: Lowering, node: ast.Call, exprs: list[ast.expr]) -> Contraction:
    """np.einsum with a literal subscripts string: explicit or implicit output, repeated labels
    within an operand (diagonals, traces), '...' and size-1 broadcasting as NumPy has them."""
    if not exprs or not (isinstance(exprs[0], ast.Constant) and isinstance(exprs[0].value, str)):
        raise lw.error(node, "np.einsum() needs its subscripts as a string literal first (the "
                       "operand-and-axis-list form is not supported)", "einsum")
    if any(isinstance(e, ast.Starred) for e in exprs):
        raise lw.error(node, "np.einsum() with *operands", "einsum")
    spec = exprs[0]
    views = tuple(lw.value(e) for e in exprs[1:])
    terms, output = _parse(lw, spec, len(views))
    labels = tuple(_expand(lw, spec, term, view.rank, k) for k, (term, view) in enumerate(zip(terms, views)))
    width = max((v.rank - len(t) + 1 for t, v in zip(terms, views) if "..." in t), default=0)
    ellipsis = tuple(_ell_labels(width))
    if output is None:
        counts: dict[str, int] = {}
        for labs in labels:
            for lab in labs:
                counts[lab] = counts.get(lab, 0) + 1
        out = ellipsis + tuple(sorted(lab for lab, c in counts.items() if c == 1 and lab not in ellipsis))
    else:
        if width and "..." not in output:
            raise lw.error(spec, f"einsum subscripts {spec.value!r}: the operands have axes under '...' but the "
                           "output has no '...' (NumPy raises ValueError)", "einsum")
        out = tuple(lab for tok in output for lab in (ellipsis if tok == "..." else (tok,)))
    every = frozenset(lab for labs in labels for lab in labs)
    return Contraction(views, labels, out, "np.einsum", every)


def _parse(lw: Lowering, spec: ast.Constant, count: int) -> tuple[list[list[str]], list[str] | None]:
    """The tokens (letters and '...') of each input term and of the output (None: implicit)."""
    text = str(spec.value)

    def fail(message: str) -> Exception:
        return lw.error(spec, f"einsum subscripts {text!r}: {message}", "einsum")

    inputs, arrow, rest = text.partition("->")
    if "->" in rest or "-" in inputs.replace("->", "") or ">" in inputs:
        raise fail("'-' and '>' only as one output arrow '->'")
    terms = [_tokens(part, fail) for part in inputs.split(",")]
    if len(terms) != count:
        raise fail(f"it names {len(terms)} operands but {count} are given")
    if not arrow:
        return terms, None
    if "," in rest:
        raise fail("',' in the output")
    output = _tokens(rest, fail)
    known = {t for term in terms for t in term}
    for k, tok in enumerate(output):
        if tok in output[:k]:
            raise fail(f"output label {tok!r} appears more than once")
        if tok != "..." and tok not in known:
            raise fail(f"output label {tok!r} is in no input")
    return terms, output


def _tokens(part: str, fail) -> list[str]:
    tokens: list[str] = []
    rest = part.replace(" ", "")
    while rest:
        if rest.startswith("..."):
            if "..." in tokens:
                raise fail("more than one '...' in a term")
            tokens.append("...")
            rest = rest[3:]
            continue
        if rest[0] not in _LETTERS:
            raise fail(f"invalid label {rest[0]!r} (labels are letters, '...', ',' and '->')")
        tokens.append(rest[0])
        rest = rest[1:]
    return tokens


def _expand(lw: Lowering, spec: ast.Constant, term: list[str], rank: int, k: int) -> tuple[str, ...]:
    """One label per axis of operand ``k``; '...' covers the axes the letters leave, right-aligned
    with the other operands' (see _ell_labels)."""
    letters = [t for t in term if t != "..."]
    if len(letters) > rank or ("..." not in term and len(letters) != rank):
        raise lw.error(spec, f"einsum subscripts {spec.value!r}: operand {k} has {rank} axes but its term names "
                       f"{len(letters)}", "einsum")
    labels: list[str] = []
    extra = rank - len(letters)
    for tok in term:
        labels.extend(_ell_labels(extra) if tok == "..." else [tok])
    return tuple(labels)


def _ell_labels(extra: int) -> list[str]:
    """Labels of ``extra`` axes under '...', numbered from the right (".-1" is the last), so that
    operands line up as NumPy aligns them without knowing the widest."""
    return [f".{p - extra}" for p in range(extra)]


# ---- lowering a contraction -------------------------------------------------------------------
@dataclass(frozen=True)
class _Sum:
    """A contraction with its labels' extents resolved and its result type."""

    c: Contraction
    vtype: VType
    extents: dict[str, Sym]
    summed: tuple[str, ...]  # the labels not in the output, in order of first appearance

    @property
    def out_extents(self) -> tuple[Sym, ...]:
        return tuple(self.extents[lab] for lab in self.c.output)

    def term(self, at: dict[str, Sym]) -> ast.expr:
        """The product of the operands' elements at the labels' indices ``at``."""
        parts = [v.element(tuple(_at(v.extents[d], self.extents[lab], at[lab]) for d, lab in enumerate(labs)))
                 for v, labs in zip(self.c.operands, self.c.labels)]
        value = parts[0]
        for part in parts[1:]:
            value = ast.BinOp(value, ast.Mult(), part)
        return value


def _resolve(lw: Lowering, node: ast.AST, c: Contraction) -> _Sum:
    vtype = _check_operands(lw, node, c.operands, c.what)
    summed = tuple(dict.fromkeys(lab for labs in c.labels for lab in labs if lab not in c.output))
    extents = _extents(lw, node, c)
    if summed:
        c = dataclasses.replace(c, operands=tuple(_stored_once(lw, node, v, labs, c) for v, labs in
                                                  zip(c.operands, c.labels)))
    return _Sum(c, vtype, extents, summed)


def _stored_once(lw: Lowering, node: ast.AST, v: View, labels: tuple[str, ...], c: Contraction) -> View:
    """An operand that computes its elements with more than ``+ - *`` (``np.maximum(h, 0)``,
    ``S / total``) stored in a local array first, as NumPy evaluates it: inside the product's
    nest it would be computed again for every value of the labels it lacks.  Reads and cheap
    arithmetic (``alpha * A``) stay inline, where they keep whole-array products register-tiled."""
    element = v.element(tuple(atom(f"pf_probe{d}") for d in range(v.rank)))
    every = set(c.output).union(*c.labels)
    if _cheap(element) or set(labels) == every:
        return v
    if v.vtype.dtype not in ("float64", "float32", "int64", "int32", "unknown"):
        return v
    return _stored(lw, v, lw.temp_dtype(node, v))


def contract(lw: Lowering, node: ast.AST, c: Contraction) -> View:
    """The value of ``c``: element-wise when nothing is summed, else a reduction into a fresh
    scalar local or array (filled in ``lw.pre``)."""
    return _value(lw, node, _resolve(lw, node, c))


def _value(lw: Lowering, node: ast.AST, s: _Sum, alpha: ast.expr | None = None) -> View:
    """``alpha``: a scale of the sum (a number or a fixed scalar argument, ``_blas_alpha``):
    BLAS's alpha where the product is kept whole, else the result scaled element by element."""
    if alpha is not None and (len(s.c.operands) != 2 or not s.summed or not s.c.output or _blas_shape(lw, s) is None):
        return lw.binop(node, ast.Mult(), lw.value(alpha), _value(lw, node, s))
    c = s.c
    if not s.summed:
        return View(s.out_extents, s.vtype, lambda idx: s.term(dict(zip(c.output, idx))))
    dtype = lw.temp_dtype(node, View(s.out_extents, s.vtype, lambda idx: ast.Constant(0)))
    if not c.output:
        if _dot_shape(lw, s):
            return _blas_dot(lw, s, dtype)
        return _scalar_sum(lw, dtype, tuple(s.extents[lab] for lab in s.summed),
                           lambda k: s.term(dict(zip(s.summed, k))))
    array = lw.fresh("mm")
    lw.allocate(array, s.out_extents, dtype)
    result = leaf(array, s.out_extents, dtype)
    blas = _blas_shape(lw, s)
    lw.pre.extend(_sum_into(lw, s, result) if blas is None else _blas_into(lw, s, blas, result, alpha))
    return result


def _sum_into(lw: Lowering, s: _Sum, target: View) -> list[ast.stmt]:
    """``target[...] = 0`` and one nest over the output and summed labels that adds each term."""
    init = lw.nest(target.extents, lambda k: [ast.Assign([_store(target.element(k))], ast.Constant(0))])
    rank = target.rank

    def add(k: tuple[Sym, ...]) -> list[ast.stmt]:
        at = dict(zip(s.c.output + s.summed, k))
        total = reassociable(ast.BinOp(target.element(k[:rank]), ast.Add(), s.term(at)))
        return [ast.Assign([_store(target.element(k[:rank]))], total)]
    return init + lw.nest(target.extents + tuple(s.extents[lab] for lab in s.summed), add)


def _cheap(node: ast.expr) -> bool:
    """Reads, numbers and ``+ - *`` of them (the index arithmetic of a read does not count)."""
    if isinstance(node, (ast.Subscript, ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        return _cheap(node.left) and _cheap(node.right)
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and _cheap(node.operand)


def _accumulate(lw: Lowering, node: ast.AST, s: _Sum, target: View) -> list[ast.stmt] | None:
    """``target = s`` summed into the target itself, or None when NumPy's result could differ:
    another dtype (NumPy rounds once, at the store), a result that broadcasts into the target,
    operands that read the target (NumPy reads them before the write)."""
    c = s.c
    if not s.summed or target.rank != len(c.output) or target.base is None or s.vtype != target.vtype:
        return None
    for mine, theirs in zip(target.extents, s.out_extents):
        if mine.text != theirs.text and (mine.is_const(1) or theirs.is_const(1)):
            return None
    probe = {lab: atom(f"pf_probe_{k}") for k, lab in enumerate(c.output + s.summed)}
    if any(isinstance(n, ast.Name) and n.id == target.base for n in walk(s.term(probe))):
        return None
    for mine, theirs in zip(target.extents, s.out_extents):
        if mine.text != theirs.text:
            lw.mismatch(mine, theirs)
    blas = _blas_shape(lw, s)
    if blas is not None and _plain(target):
        return _blas_into(lw, s, blas, target)
    return _sum_into(lw, s, target)


# ---- products kept whole for BLAS ------------------------------------------------------------
@dataclass(frozen=True)
class _BlasShape:
    """A product ``out[row, col] = sum over k of a[row, k] * b[k, col]``: the labels of its
    row (of ``a``) and column (of ``b``); None where that operand is a vector.  ``batch``: the
    other free labels of one operand (a stack of matrices times one matrix, ``X3 @ W``), each a
    loop around the product of one matrix of the stack."""

    row: str | None
    col: str | None
    k: str
    batch: tuple[str, ...] = ()


def _blas_shape(lw: Lowering, s: _Sum) -> _BlasShape | None:
    """The matrix-product form of ``s`` when it can run as BLAS gemm calls (and BLAS is on): two
    float operands of the result's dtype, one summed label, no label of both in the output, no
    broadcasting, and not known to be too small to pay.  One operand may have more free labels
    than one (``X3 @ W``): its last of extent other than 1 is the row (column), the others a
    batch, looped over.  A matrix-vector product whose matrix computes its elements
    (``alpha * A @ x``, ``(dx * inv_r3) @ mass``) stays loops: memory bounds it, and fused with
    the matrix's producer it reads the inputs once, where BLAS needs the matrix stored first
    (one more pass to write it and one to read it: benchmarks/gemv.py)."""
    c = s.c
    if not lw.products.blas or len(c.operands) != 2 or len(s.summed) != 1 or not c.output:
        return None
    if s.vtype.dtype not in ("float32", "float64"):
        return None
    (k,) = s.summed
    free: list[list[str]] = []
    for view, labels in zip(c.operands, c.labels):
        if view.vtype.dtype != s.vtype.dtype or view.vtype.weak or len(set(labels)) != len(labels):
            return None
        if k not in labels:
            return None
        if any(extent.is_const(1) and not s.extents[lab].is_const(1) for extent, lab in zip(view.extents, labels)):
            return None  # an axis of size 1 that broadcasts (other extents are equal, checked per call)
        free.append([lab for lab in labels if lab != k])
    if set(free[0]) & set(c.labels[1]) or set(free[1]) & set(c.labels[0]) or set(c.output) != set(free[0] + free[1]):
        return None  # a label of both operands kept in the output: a batch of both, not one matrix
    if len(free[0]) > 1 and len(free[1]) > 1:
        return None
    row, col = (_matrix_axis(s, labels) for labels in free)
    batch = tuple(lab for labels in free for lab in labels if lab not in (row, col))
    vector = row is None or col is None or s.extents[row].is_const(1) or s.extents[col].is_const(1)
    if vector and not all(_plain(view) for view, labels in zip(c.operands, c.labels) if len(labels) >= 2):
        return None  # a matrix-vector product of a computed matrix: fused loops read its inputs once
    if vector and gemv_row_loops() and _row_dots(lw, s):
        return None  # a dot product per row of a plain matrix: polyfuse's row loops stream it faster
    sizes = [s.extents[lab] for lab in (row, col, k) if lab is not None]
    if all(size.is_const() for size in sizes) and math.prod(size.const for size in sizes) < BLAS_MIN_WORK:
        return None  # small enough that the loops, fused with their neighbours, win
    return _BlasShape(row, col, k, batch)


def _row_dots(lw: Lowering, s: _Sum) -> bool:
    """Whether ``s`` is a matrix times a vector whose matrix is summed along its last subscript
    (``A @ x``, ``np.dot(A, x)``, ``A[:, 1:] @ x``: one dot product per row, each reading along a
    row of ``A``), the other operand a vector (``POLYFUSE_GEMV_ROW_LOOPS``), and ``A`` a kernel
    local or an argument C-contiguous in this call's signature (a Fortran-ordered or strided
    argument stays on ``?gemv``, which reads it as stored).  ``A.T @ y`` and ``x @ A`` sum down
    the columns: not these."""
    c = s.c
    (k,) = s.summed
    kinds = [len(labels) for labels in c.labels]
    if sorted(kinds) != [1, 2]:
        return False
    view, labels = next((v, lab) for v, lab in zip(c.operands, c.labels) if len(lab) == 2)
    if any(arg.name == view.base and arg.layout != "C" for arg in lw.arguments):
        return False
    probes = tuple(atom(f"pf_probe{d}") for d in range(view.rank))
    element = view.element(probes)
    if not isinstance(element, ast.Subscript):
        return False
    index = element.slice.elts if isinstance(element.slice, ast.Tuple) else [element.slice]
    summed = probes[labels.index(k)].text
    names = [{n.id for n in walk(part) if isinstance(n, ast.Name)} for part in index]
    return names[-1] & {p.text for p in probes} == {summed} and not any(summed in part for part in names[:-1])


def _matrix_axis(s: _Sum, free: list[str]) -> str | None:
    """The free label of an operand that its matrix uses: the last of extent other than 1 (its
    innermost axis in a C-ordered stack), else the last; None for a vector."""
    wide = [lab for lab in free if not s.extents[lab].is_const(1)]
    return wide[-1] if wide else free[-1] if free else None


def _dot_shape(lw: Lowering, s: _Sum) -> bool:
    """Whether ``s`` is ``x @ y`` of two plain float vectors of the result's dtype (BLAS on):
    NumPy runs those on BLAS ``?dot`` at any length, and so does polyfuse, which gives its sum
    order bit for bit.  A vector that computes its elements stays a loop (it fuses)."""
    c = s.c
    if not lw.products.blas or len(c.operands) != 2 or len(s.summed) != 1 or c.output:
        return False
    if s.vtype.dtype not in ("float32", "float64"):
        return False
    (k,) = s.summed
    for view, labels in zip(c.operands, c.labels):
        if view.vtype.dtype != s.vtype.dtype or view.vtype.weak or tuple(labels) != (k,) or not _plain(view, sizes=True):
            return False
    return True


def _blas_dot(lw: Lowering, s: _Sum, dtype: str) -> View:
    """``x @ y`` as one ``MATMUL_CALL`` with one row and one column into a 1-element local (a
    ``Matmul`` the CPU backend runs as ``?dot``, the others as the loop); its element is the value."""
    (k,) = s.summed
    array = lw.fresh("mm")
    one = const(1)
    lw.allocate(array, (one,), dtype)
    result = leaf(array, (one,), dtype)
    names = [lw.fresh(stem) for stem in ("mr", "mc", "mk")]
    index = atom(names[2])
    operands = [view.element((index,)) for view in s.c.operands]
    extents = [ast.Constant(1), ast.Constant(1), s.extents[k].node]
    call = ast.Call(ast.Name(MATMUL_CALL, ast.Load()),
                    [result.element((atom(names[0]),)), *operands, *extents, *(ast.Constant(n) for n in names)], [])
    lw.pre.append(ast.Expr(call))
    return scalar(result.element((const(0),)), VType(dtype, False))


def _plain(view: View, sizes: bool = False) -> bool:
    """Whether ``view``'s elements are reads of its base array (no arithmetic, no cast);
    ``sizes``: subscripts may use ``X.shape[d]`` (a reversed view ``x[::-1]``)."""
    probe = view.element(tuple(atom(f"pf_probe{d}") for d in range(view.rank)))
    return (view.base is not None and isinstance(probe, ast.Subscript) and isinstance(probe.value, ast.Name)
            and probe.value.id == view.base
            and not any(isinstance(n, ast.Call) or (isinstance(n, ast.Subscript) and not (sizes and _is_size(n)))
                        for n in walk(probe.slice)))


def _is_size(node: ast.Subscript) -> bool:
    return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"


def _blas_into(lw: Lowering, s: _Sum, shape: _BlasShape, target: View,
               alpha: ast.expr | None = None, accumulate: bool = False) -> list[ast.stmt]:
    """One ``MATMUL_CALL(out, a, b, rows, cols, depth, 'r', 'c', 's', *batch[, alpha=...][,
    accumulate=True])`` statement (lifted by frontend.lift as a model/region.py ``Matmul``;
    ``accumulate``: added to ``out``); an operand that computes its elements (``np.maximum(h,
    0)``) is stored in a local array first, as NumPy does."""
    roles = (shape.row, shape.col, shape.k)
    names = [lw.fresh(stem) for stem in ("mr", "mc", "mk")]
    stack = [lw.fresh("mb") for _ in shape.batch]
    at = {lab: atom(name) for lab, name in zip(roles + shape.batch, names + stack) if lab is not None}
    operands = []
    for view, labels in zip(s.c.operands, s.c.labels):
        if not _plain(view):
            view = _stored(lw, view, s.vtype.dtype)
        operands.append(view.element(tuple(at[lab] for lab in labels)))
    out = target.element(tuple(at[lab] for lab in s.c.output))
    extents = [s.extents[lab].node if lab is not None else ast.Constant(1) for lab in roles]
    batch = [ast.Tuple([ast.Constant(name), s.extents[lab].node], ast.Load()) for name, lab in zip(stack, shape.batch)]
    scale = [ast.keyword("alpha", copy.deepcopy(alpha))] if alpha is not None else []
    scale += [ast.keyword("accumulate", ast.Constant(True))] if accumulate else []
    call = ast.Call(ast.Name(MATMUL_CALL, ast.Load()),
                    [out, *operands, *extents, *(ast.Constant(name) for name in names), *batch], scale)
    return [ast.Expr(call)]


def _stored(lw: Lowering, view: View, dtype: str) -> View:
    """``view``'s values in a fresh local array (filled in ``lw.pre``)."""
    array = lw.fresh("mo")
    lw.allocate(array, view.extents, dtype)
    stored = leaf(array, view.extents, dtype)
    lw.pre.extend(lw.nest(view.extents, lambda k: [ast.Assign([_store(stored.element(k))], view.element(k))]))
    return stored


def _scalar_sum(lw: Lowering, dtype: str, sums: tuple[Sym, ...], term) -> View:
    """``acc = <dtype>(0); for ...: acc = acc + term``: a scalar local of the result's dtype.
    It is also set at the top of the kernel, so that it is assigned on every path when the sum
    sits inside an if whose condition reads data (which keeps a local's old value where false)."""
    acc = lw.fresh("mm")
    zero = ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load()), [ast.Constant(0)], [])
    lw.allocate_at_top(ast.Assign([ast.Name(acc, ast.Store())], zero))
    lw.pre.append(ast.Assign([ast.Name(acc, ast.Store())], copy.deepcopy(zero)))
    lw.pre.extend(lw.nest(sums, lambda k: [ast.Assign(
        [ast.Name(acc, ast.Store())], reassociable(ast.BinOp(ast.Name(acc, ast.Load()), ast.Add(), term(k))))]))
    vtype = VType(dtype, False)
    lw.note_scalar(acc, vtype)
    return scalar(ast.Name(acc, ast.Load()), vtype)


def _scalar_count(lw: Lowering, sums: tuple[Sym, ...], plain) -> View:
    """``acc = np.int64(0); for ...: acc = acc + (0 if plain(k) else 1)``: how many elements fail
    ``plain``, in a scalar local, a plain loop.  A count is exact in any order, so it is not marked
    as NumPy's reduction (``reassociable``): no blocked sums, no chunks on threads for a pass of a
    few hundred elements (``POLYFUSE_INTEGER_CHECKS``)."""
    acc = lw.fresh("mm")
    zero = ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "int64", ast.Load()), [ast.Constant(0)], [])
    lw.allocate_at_top(ast.Assign([ast.Name(acc, ast.Store())], zero))
    lw.pre.append(ast.Assign([ast.Name(acc, ast.Store())], copy.deepcopy(zero)))
    lw.pre.extend(lw.nest(sums, lambda k: [ast.Assign([ast.Name(acc, ast.Store())], ast.BinOp(
        ast.Name(acc, ast.Load()), ast.Add(), ast.IfExp(plain(k), ast.Constant(0), ast.Constant(1))))]))
    vtype = VType("int64", False)
    lw.note_scalar(acc, vtype)
    return scalar(ast.Name(acc, ast.Load()), vtype)


def _at(own: Sym, extent: Sym, index: Sym) -> Sym:
    """An operand's index on an axis: 0 where its size-1 axis broadcasts."""
    return const(0) if own.is_const(1) and not extent.is_const(1) else index


def _check_operands(lw: Lowering, node: ast.AST, views: tuple[View, ...], what: str) -> VType:
    """NumPy's result dtype of the product; refuses what would compute in another type."""
    for v in views:
        if v.vtype.weak and v.rank:
            raise lw.error(node, f"{what}() of an array of Python numbers (NumPy makes it a strong "
                           f"{v.vtype.dtype} array); multiply by an array or write the loop", _CONSTRUCT)
    if any(v.vtype is UNKNOWN or v.vtype.dtype == "unknown" for v in views):
        return UNKNOWN
    result = VType(views[0].vtype.dtype, False)
    for v in views[1:]:
        result = promote(result, VType(v.vtype.dtype, False))
    if result.dtype == "bool":
        raise lw.error(node, f"{what}() of boolean arrays only (NumPy gives a boolean: an 'or' of 'and's); "
                       "convert one operand to a number type first", _CONSTRUCT)
    return result


def _extents(lw: Lowering, node: ast.AST, c: Contraction) -> dict[str, Sym]:
    """Each label's extent; equal extents assumed (or a compile-time error when both are
    constants), size 1 broadcasting only for labels in ``c.broadcast``."""
    found: dict[str, Sym] = {}
    for view, labs in zip(c.operands, c.labels):
        own: dict[str, Sym] = {}
        for extent, lab in zip(view.extents, labs):
            if lab in own:  # a diagonal: equal within the operand, never broadcast
                _join(lw, node, own[lab], extent, False, c.what)
            own.setdefault(lab, extent)
            found[lab] = _join(lw, node, found[lab], extent, lab in c.broadcast, c.what) if lab in found else extent
    return found


def _join(lw: Lowering, node: ast.AST, a: Sym, b: Sym, broadcast: bool, what: str) -> Sym:
    if a.text == b.text:
        return a
    if broadcast and a.is_const(1):
        return b
    if broadcast and b.is_const(1):
        return a
    if a.is_const() and b.is_const():
        raise lw.error(node, f"{what}(): the operands' shapes do not match (an axis of size {a.const} meets one "
                       f"of size {b.const}; NumPy raises ValueError)", _CONSTRUCT)
    lw.mismatch(a, b)
    return a


PRODUCT_RULES = ProductRules(lower_product, store_product, linalg=lower_linalg, linalg_parts=linalg_parts)
PRODUCT_RULES_BLAS = ProductRules(lower_product, store_product, blas=True, linalg=lower_linalg,
                                  linalg_parts=linalg_parts)

__all__ = ["PRODUCT_RULES", "PRODUCT_RULES_BLAS", "Contraction", "contract", "lower_product", "store_product"]
