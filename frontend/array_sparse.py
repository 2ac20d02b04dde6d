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
from dataclasses import dataclass

from polyfuse.model.scop import SPARSE_FORMATS, sparse_part

from .arrays import Lowering, Sym, View, _store, atom, const, leaf
from .types import VType, promote

_CONSTRUCT = "sparse matrix product"


@dataclass(frozen=True)
class SparseOperand:
    """A sparse matrix parameter as a product reads it: its stored form (``fmt``: CSR rows or
    CSC columns are the major axis) and whether the product sees it transposed."""

    name: str
    fmt: str
    dtype: str
    transposed: bool  # ``.T`` of it

    def part(self, part: str) -> str:
        return sparse_part(self.name, self.fmt, part)

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
    """``A`` or ``A.T`` where ``A`` is a sparse matrix parameter; None for anything else."""
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
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        left, right = sparse_operand(lw, node.left), sparse_operand(lw, node.right)
        if left is not None and right is not None:
            raise lw.error(node, "a product of two sparse matrices (scipy's result is sparse)", _CONSTRUCT)
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
    if "bool" in (m.dtype, x.vtype.dtype):
        raise lw.error(node, "a product with a boolean sparse matrix or array (scipy computes it in booleans); "
                       "convert it to a number dtype first", _CONSTRUCT)
    if x.vtype.dtype == "unknown":
        return x.vtype
    return promote(VType(m.dtype, False), VType(x.vtype.dtype, False))


def _readable(lw: Lowering, node: ast.AST, x: View) -> View:
    """``x`` itself where its elements are reads of an array, else its values stored first
    (scipy multiplies by the evaluated array; inside the loop they would be recomputed)."""
    probe = x.element(tuple(atom(f"pf_probe{d}") for d in range(x.rank)))
    if isinstance(probe, ast.Subscript) and isinstance(probe.value, ast.Name):
        if not any(isinstance(n, (ast.Subscript, ast.Call)) for n in ast.walk(probe.slice)):
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
    indptr, index = m.part("indptr"), atom(f"{m.part('indices')}[{k}]")
    row, col = (index, atom(major)) if m.scatter else (atom(major), index)
    data = ast.parse(f"{m.part('data')}[{k}]", mode="eval").body

    def update(idx: tuple[Sym, ...]) -> list[ast.stmt]:
        out, dense = at(row, col, idx)
        term = ast.BinOp(copy.deepcopy(data), ast.Mult(), dense)
        return [ast.Assign([_store(out)], ast.BinOp(copy.deepcopy(out), ast.Add(), term))]

    bounds = [ast.parse(f"{indptr}[{major}]", mode="eval").body, ast.parse(f"{indptr}[{major} + 1]", mode="eval").body]
    inner = ast.For(ast.Name(k, ast.Store()), ast.Call(ast.Name("range", ast.Load()), bounds, []),
                    lw.nest(rest, update), [])
    return [ast.For(ast.Name(major, ast.Store()), ast.Call(ast.Name("range", ast.Load()), [m.major.node], []),
                    [inner], [])]
