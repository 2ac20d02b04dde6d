"""Products of a scipy.sparse matrix with a dense array, lowered to loops over its stored entries.

A CSR matrix parameter ``A`` reaches the lowering as its parts (frontend/sparse.py); a product
with a dense vector or matrix becomes a fresh local array filled by a loop over the rows whose
inner loop runs over each row's stored entries, with data-dependent bounds (frontend.opaque
keeps it as written; the run-time subscripts are bounds-checked)::

    y = A @ x           ->   for pf_i1 in range(A__csr_indptr.shape[0] - 1):
                                 pf_sp2[pf_i1] = 0
                             for pf_i3 in range(A__csr_indptr.shape[0] - 1):
                                 for pf_k4 in range(A__csr_indptr[pf_i3], A__csr_indptr[pf_i3 + 1]):
                                     pf_sp2[pf_i3] = pf_sp2[pf_i3] + A__csr_data[pf_k4] * x[A__csr_indices[pf_k4]]

``A.T @ x`` (and ``A @ x`` of a CSC matrix) adds into ``pf_sp2[A__csr_indices[pf_k4]]`` instead.
These are scipy's own loops (sparsetools ``csr_matvec``, ``csc_matvec``, ``csr_matvecs``,
``csc_matvecs``): every sum starts at zero and adds the stored entries in storage order (row by
row, each row's entries as stored, duplicates each added), in scipy's result dtype, so the
results are scipy's bit for bit.  The updates are not marked reassociable, so no backend
reorders them.  ``x @ A`` is scipy's ``(A.T @ x.T).T``.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from dataclasses import dataclass

from polyfuse.model.scop import SPARSE_FORMATS, sparse_part

from .arrays import NP_NAME, Lowering, Sym, View, _store, atom, const, leaf, promote_any
from .source import walk
from .types import VType

_CONSTRUCT = "sparse matrix product"


@dataclass(frozen=True)
class SparseOperand:
    """A sparse matrix parameter as a product reads it: its stored form (``fmt``: CSR rows or
    CSC columns are the major axis) and whether the product sees it transposed."""

    name: str
    fmt: str
    dtype: str  # of its stored data
    transposed: bool  # ``.T`` of it
    scale: View | None = None  # ``alpha * A``: scipy's data * alpha, a sparse matrix of that dtype

    def part(self, part: str) -> str:
        return sparse_part(self.name, self.fmt, part)

    @property
    def vtype(self) -> VType:
        """The dtype of the matrix the product sees (the scaled data's, NEP 50)."""
        stored = VType(self.dtype, False)
        return stored if self.scale is None else promote_any(stored, self.scale.vtype)

    def value(self, k: str) -> ast.expr:
        """The stored entry ``k`` (times the scale, data first, as scipy's ``data * alpha``)."""
        data = ast.parse(f"{self.part('data')}[{k}]", mode="eval").body
        if self.scale is None:
            return data
        return ast.BinOp(data, ast.Mult(), copy.deepcopy(self.scale.element(())))

    @property
    def scatter(self) -> bool:
        """Whether the product's rows are the stored minor axis (entries add into ``y[indices[k]]``)."""
        return (self.fmt == "csc") != self.transposed

    @property
    def major(self) -> Sym:
        return atom(f"{self.part('indptr')}.shape[0]") - const(1)

    @property
    def minor(self) -> Sym:
        return atom(self.part("minor"))

    @property
    def shape(self) -> tuple[Sym, Sym]:
        """(rows, columns) of the matrix as the product sees it."""
        return (self.minor, self.major) if self.scatter else (self.major, self.minor)


def sparse_operand(lw: Lowering, node: ast.expr) -> SparseOperand | None:
    """``A``, ``A.T``, or either times a scalar (``alpha * A``), where ``A`` is a sparse matrix
    parameter; None for anything else (the scale is lowered only when the matrix is sparse)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for matrix, other in ((node.left, node.right), (node.right, node.left)):
            found = _stored_operand(lw, matrix)
            if found is None:
                continue
            if _stored_operand(lw, other) is not None:
                raise lw.error(node, "an elementwise product of two sparse matrices", _CONSTRUCT)
            scale = lw.value(other)
            if scale.rank:
                raise lw.error(node, "a sparse matrix times an array (elementwise for csr_array, a matrix product "
                               "for csr_matrix); use '@' with a dense operand", _CONSTRUCT)
            return dataclasses.replace(found, scale=scale)
        return None
    return _stored_operand(lw, node)


def names_a_sparse_matrix(lw: Lowering, node: ast.expr) -> bool:
    """Whether any name in ``node`` is a sparse matrix parameter (nothing lowered)."""
    return any(_stored_operand(lw, n) is not None for n in walk(node) if isinstance(n, ast.Name))


def _names_sparse(lw: Lowering, node: ast.expr) -> bool:
    """Whether ``sparse_operand`` would find a sparse matrix in ``node`` (nothing lowered)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _stored_operand(lw, node.left) is not None or _stored_operand(lw, node.right) is not None
    return _stored_operand(lw, node) is not None


def _stored_operand(lw: Lowering, node: ast.expr) -> SparseOperand | None:
    """``A`` or ``A.T`` of a sparse matrix parameter ``A``."""
    transposed = isinstance(node, ast.Attribute) and node.attr == "T"
    if transposed:
        assert isinstance(node, ast.Attribute)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    for fmt in SPARSE_FORMATS:
        entry = lw.names.get(sparse_part(node.id, fmt, "data"))
        if entry is not None and entry.kind == "arg":
            return SparseOperand(node.id, fmt, entry.dtype, transposed)
    return None


def sparse_product(lw: Lowering, node: ast.expr) -> View | None:
    """The value of ``A @ x``, ``x @ A`` or ``A.dot(x)`` with ``A`` sparse; None for other nodes."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return _sparse_sum(lw, node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        left, right = sparse_operand(lw, node.left), sparse_operand(lw, node.right)
        if left is not None and right is not None:
            raise lw.error(node, "a product of two sparse matrices whose sparse result is used other than plus or "
                           "minus a dense array stored into an array (C[:] = A @ B + D)", _CONSTRUCT)
        if left is not None:
            return _times_dense(lw, node, left, lw.value(node.right))
        if right is not None:
            return _dense_times(lw, node, lw.value(node.left), right)
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "dot":
        matrix = sparse_operand(lw, node.func.value)
        if matrix is None:
            return None
        if len(node.args) != 1 or node.keywords or sparse_operand(lw, node.args[0]) is not None:
            raise lw.error(node, "a sparse matrix's .dot() takes one dense array", _CONSTRUCT)
        return _times_dense(lw, node, matrix, lw.value(node.args[0]))
    return None


def _times_dense(lw: Lowering, node: ast.AST, m: SparseOperand, x: View) -> View:
    """``m @ x``: one sum per row of ``m`` (and column of a 2-D ``x``)."""
    vtype = _result_type(lw, node, m, x)
    rows, cols = m.shape
    lw.mismatch(cols, x.extents[0], node)  # scipy: ValueError('dimension mismatch')
    x = _readable(lw, node, x)
    extents = (rows,) + x.extents[1:]
    result = _zeros(lw, node, extents, vtype)
    lw.pre.extend(_entries(lw, m, lambda row, col, rest: (result.element((row,) + rest), x.element((col,) + rest)),
                           x.extents[1:]))
    return result


def _dense_times(lw: Lowering, node: ast.AST, x: View, m: SparseOperand) -> View:
    """``x @ m``: scipy computes ``(m.T @ x.T).T``, so the same sums with ``x``'s axes swapped."""
    vtype = _result_type(lw, node, m, x)
    flipped = SparseOperand(m.name, m.fmt, m.dtype, not m.transposed)
    rows, cols = flipped.shape
    lw.mismatch(cols, x.extents[-1], node)
    x = _readable(lw, node, x)
    extents = x.extents[:-1] + (rows,)
    result = _zeros(lw, node, extents, vtype)
    lw.pre.extend(_entries(lw, flipped, lambda row, col, rest: (result.element(rest + (row,)),
                                                                 x.element(rest + (col,))), x.extents[:-1]))
    return result


def _result_type(lw: Lowering, node: ast.AST, m: SparseOperand, x: View) -> VType:
    """scipy's result dtype, NumPy's promotion of the data's and the dense operand's; the
    operands scipy refuses or answers with a sparse matrix are refused."""
    if x.rank == 0:
        raise lw.error(node, "a product of a sparse matrix and a scalar (scipy: '@' raises ValueError, "
                       ".dot() gives a sparse matrix); use '*' outside the kernel", _CONSTRUCT)
    if x.rank > 2:
        raise lw.error(node, f"a product of a sparse matrix and a {x.rank}-d array (scipy takes vectors and "
                       "matrices)", _CONSTRUCT)
    if x.vtype.weak:
        raise lw.error(node, "a product of a sparse matrix and an array of Python numbers; make it a NumPy "
                       "array of a dtype", _CONSTRUCT)
    _not_bool(lw, node, m)
    if x.vtype.dtype == "bool":
        raise lw.error(node, "a product with a boolean array (scipy computes it in booleans); convert it to a "
                       "number dtype first", _CONSTRUCT)
    return promote_any(m.vtype, VType(x.vtype.dtype, False))


def _not_bool(lw: Lowering, node: ast.AST, m: SparseOperand) -> None:
    if m.vtype.dtype == "bool":
        raise lw.error(node, "a product with a boolean sparse matrix (scipy computes it in booleans); convert it "
                       "to a number dtype first", _CONSTRUCT)


def _readable(lw: Lowering, node: ast.AST, x: View) -> View:
    """``x`` itself where its elements are reads of an array, else its values stored first
    (scipy multiplies by the evaluated array; inside the loop they would be recomputed)."""
    probe = x.element(tuple(atom(f"pf_probe{d}") for d in range(x.rank)))
    if isinstance(probe, ast.Subscript) and isinstance(probe.value, ast.Name):
        if not any(isinstance(n, (ast.Subscript, ast.Call)) for n in walk(probe.slice)):
            return x
    dtype = lw.temp_dtype(node, x)
    array = lw.fresh("spx")
    lw.allocate(array, x.extents, dtype)
    stored = leaf(array, x.extents, dtype)
    lw.pre.extend(lw.nest(x.extents, lambda k: [ast.Assign([_store(stored.element(k))], x.element(k))]))
    return stored


def _zeros(lw: Lowering, node: ast.AST, extents: tuple[Sym, ...], vtype: VType) -> View:
    """A fresh local array of ``extents``, set to zero in ``lw.pre``."""
    dtype = lw.temp_dtype(node, View(extents, vtype, lambda idx: ast.Constant(0)))
    array = lw.fresh("sp")
    lw.allocate(array, extents, dtype)
    result = leaf(array, extents, dtype)
    lw.pre.extend(lw.nest(extents, lambda k: [ast.Assign([_store(result.element(k))], ast.Constant(0))]))
    return result


def _entries(lw: Lowering, m: SparseOperand, at, rest: tuple[Sym, ...]) -> list[ast.stmt]:
    """``out += data[k] * x`` for every stored entry k of ``m``, major axis then storage order,
    then over the dense operand's other axis ``rest``; ``at(row, col, rest)`` gives the output
    element and the dense element the entry at (row, col) of the product's view meets."""
    major, k = lw.fresh("i"), lw.fresh("k")
    index = atom(f"{m.part('indices')}[{k}]")
    row, col = (index, atom(major)) if m.scatter else (atom(major), index)

    def update(idx: tuple[Sym, ...]) -> list[ast.stmt]:
        out, dense = at(row, col, idx)
        return [_add_into(out, ast.BinOp(m.value(k), ast.Mult(), dense))]

    inner = _row_loop(k, m, major, lw.nest(rest, update))
    return [_loop(major, m.major.node, [inner])]


def _sparse_sum(lw: Lowering, node: ast.BinOp) -> View | None:
    """``A @ B + D``, ``D + A @ B``, ``A @ B - D``, ``D - A @ B`` (``A``, ``B`` CSR, ``D`` dense)
    stored into an array, as scipy computes them: ``S + D`` is D (in the result dtype) plus each
    stored entry of S, and scipy stores only the nonzero sums, so the element is ``D + T`` where
    the dense sum ``T`` is not zero and ``D`` where it is; ``S - D`` is ``S.todense() - D``.
    None when neither side is a product of two sparse matrices."""
    left, right = _sparse_pair(lw, node.left), _sparse_pair(lw, node.right)
    if not (left or right):
        return None
    if left and right:
        raise lw.error(node, "a sum of two sparse matrix products (scipy's result is sparse)", _CONSTRUCT)
    stmt = lw.here
    if not (isinstance(stmt, ast.Assign) and stmt.value is node and isinstance(stmt.targets[0], ast.Subscript)):
        raise lw.error(node, "a sparse product plus or minus a dense array other than as the whole value stored "
                       "into an array (C[:] = A @ B + D): scipy's result is an np.matrix for a csr_matrix",
                       _CONSTRUCT)
    product, dense = (node.left, node.right) if left else (node.right, node.left)
    assert isinstance(product, ast.BinOp)
    a, b = sparse_operand(lw, product.left), sparse_operand(lw, product.right)
    assert a is not None and b is not None
    total = _sparse_times_sparse(lw, product, a, b)
    d = lw.value(dense)
    if d.rank == 0 or d.rank > 2 or d.vtype.weak or d.vtype.dtype == "bool":
        raise lw.error(dense, "a sparse product plus or minus other than a 1-d or 2-d array of a number dtype "
                       "(scipy refuses scalars)", _CONSTRUCT)
    index = lw.broadcast_to(dense, total.extents, d)  # scipy: np.broadcast_to(D, S.shape)
    vtype = promote_any(total.vtype, d.vtype)
    sub = isinstance(node.op, ast.Sub)

    def element(idx: tuple[Sym, ...]) -> ast.expr:
        t, x = total.element(idx), _cast(d.element(index(idx)), d.vtype, vtype)
        if sub:
            return ast.BinOp(t, ast.Sub(), x) if left else ast.BinOp(x, ast.Sub(), t)
        stored = ast.Compare(copy.deepcopy(t), [ast.NotEq()], [ast.Constant(0)])
        return ast.IfExp(stored, ast.BinOp(x, ast.Add(), t), copy.deepcopy(x))
    return View(total.extents, vtype, element)


def _sparse_pair(lw: Lowering, node: ast.expr) -> bool:
    """``A @ B`` with both operands sparse (nothing lowered)."""
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult)
            and _names_sparse(lw, node.left) and _names_sparse(lw, node.right))


def _sparse_times_sparse(lw: Lowering, node: ast.AST, a: SparseOperand, b: SparseOperand) -> View:
    """The dense values of ``a @ b`` (two CSR matrices) as scipy's ``csr_matmat`` sums them: per row
    of ``a``, its entries in storage order, and for each the matching row of ``b`` in storage order."""
    if a.scatter or b.scatter:
        raise lw.error(node, "a product of sparse matrices other than CSR @ CSR (scipy converts the formats "
                       "first, which changes the order of the sums)", _CONSTRUCT)
    _not_bool(lw, node, a)
    _not_bool(lw, node, b)
    rows, inner = a.shape
    lw.mismatch(inner, b.shape[0], node)  # scipy: ValueError('dimension mismatch')
    result = _zeros(lw, node, (rows, b.shape[1]), promote_any(a.vtype, b.vtype))
    i, jj, kk = lw.fresh("i"), lw.fresh("k"), lw.fresh("k")
    out = result.element((atom(i), atom(f"{b.part('indices')}[{kk}]")))
    update = _add_into(out, ast.BinOp(a.value(jj), ast.Mult(), b.value(kk)))
    across = _row_loop(kk, b, f"{a.part('indices')}[{jj}]", [update])
    lw.pre.append(_loop(i, a.major.node, [_row_loop(jj, a, i, [across])]))
    return result


def _add_into(out: ast.expr, term: ast.expr) -> ast.Assign:
    """``out = out + term`` (not reassociable: scipy's order is kept)."""
    return ast.Assign([_store(out)], ast.BinOp(copy.deepcopy(out), ast.Add(), term))


def _row_loop(var: str, m: SparseOperand, row: str, body: list[ast.stmt]) -> ast.For:
    """``for var in range(indptr[row], indptr[row + 1])``: the stored entries of one row."""
    indptr = m.part("indptr")
    bounds = [ast.parse(f"{indptr}[{row}]", mode="eval").body, ast.parse(f"{indptr}[{row} + 1]", mode="eval").body]
    return ast.For(ast.Name(var, ast.Store()), ast.Call(ast.Name("range", ast.Load()), bounds, []), body, [])


def _loop(var: str, extent: ast.expr, body: list[ast.stmt]) -> ast.For:
    return ast.For(ast.Name(var, ast.Store()), ast.Call(ast.Name("range", ast.Load()), [extent], []), body, [])


def _cast(element: ast.expr, have: VType, want: VType) -> ast.expr:
    """``element`` converted to ``want`` where its dtype differs (scipy copies D in the result dtype)."""
    if have.dtype == want.dtype or want.dtype == "unknown":
        return element
    return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), want.dtype, ast.Load()), [element], [])
