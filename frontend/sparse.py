"""scipy.sparse matrix parameters: the parameter unpacked into its parts, and the uses checked.

The call passes a CSR (or CSC) matrix ``A`` as four arguments (model/scop.py ``sparse_part``).
:func:`unpack_parameters` runs before every other rewrite: it gives the ``def`` those four
parameters in ``A``'s place and writes out what the matrix's attributes mean in them::

    n = A.shape[0]      ->   n = A__csr_indptr.shape[0] - 1
    m = A.nnz           ->   m = int(A__csr_indptr[A__csr_indptr.shape[0] - 1])

so sizes stay affine.  :func:`check_uses` runs after the rewrites (helpers are inlined by then;
the attributes they brought in are written out there too):
the matrix (or ``A.T``, or either times a scalar) may only be an operand of a product
(``A @ x``, ``A.dot(x)``, ``x @ A``, ``A @ B``), which frontend/array_sparse.py lowers to loops or
refuses there; anything else is an
UnsupportedError at its location, as scipy's other operations (elementwise arithmetic,
indexing, ``.toarray()``) are not compiled.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from dataclasses import dataclass

from polyfuse.errors import UnsupportedError
from polyfuse.model.scop import SPARSE_FORMATS, SPARSE_PARTS, Argument, sparse_part

from .source import KernelSource, parse, walk

SUPPORTED = ("A @ x, x @ A, A.dot(x) (of a dense 1-D or 2-D x), A.T and alpha * A in them, C[...] = A @ B + D "
             "(A, B CSR), A.shape, A.nnz, A.ndim and A.dtype")


@dataclass(frozen=True)
class SparseParam:
    """A sparse matrix parameter: its name, format and the names of its parts."""

    name: str
    fmt: str  # "csr" | "csc"

    def part(self, part: str) -> str:
        return sparse_part(self.name, self.fmt, part)

    @property
    def major(self) -> ast.expr:
        """The number of rows (CSR) or columns (CSC): indptr's length less one."""
        return parse(f"{self.part('indptr')}.shape[0] - 1", mode="eval").body

    @property
    def shape(self) -> tuple[ast.expr, ast.expr]:
        minor = ast.Name(self.part("minor"), ast.Load())
        return (self.major, minor) if self.fmt == "csr" else (minor, self.major)


def sparse_params(tree: ast.FunctionDef, arguments: tuple[Argument, ...]) -> dict[str, SparseParam]:
    """The parameters of ``tree`` the call passed as sparse matrices."""
    names = {a.name for a in arguments}
    found = {}
    for param in tree.args.args:
        for fmt in SPARSE_FORMATS:
            if param.arg not in names and sparse_part(param.arg, fmt, "data") in names:
                found[param.arg] = SparseParam(param.arg, fmt)
    return found


def unpack_parameters(source: KernelSource, arguments: tuple[Argument, ...]) -> KernelSource:
    """``source`` with each sparse matrix parameter replaced by its parts and its attributes
    written out (a new tree; ``source`` itself unchanged)."""
    params = sparse_params(source.tree, arguments)
    if not params:
        return source
    source = dataclasses.replace(source, tree=copy.deepcopy(source.tree))
    args = source.tree.args
    new: list[ast.arg] = []
    for param in args.args:
        matrix = params.get(param.arg)
        parts = [param] if matrix is None else [ast.arg(matrix.part(p)) for p in SPARSE_PARTS]
        new.extend(ast.copy_location(p, param) for p in parts)
    args.args = new  # (defaults belong to the last parameters: still the same ones)
    source.tree.body = [_Attributes(source, params).visit(stmt) for stmt in source.tree.body]
    return source


class _Attributes(ast.NodeTransformer):
    """``A.shape``, ``A.shape[d]``, ``A.nnz``, ``A.ndim``, ``A.dtype`` in terms of the parts."""

    def __init__(self, source: KernelSource, params: dict[str, SparseParam]) -> None:
        self.source = source
        self.params = params

    def matrix(self, node: ast.expr) -> SparseParam | None:
        return self.params.get(node.id) if isinstance(node, ast.Name) else None

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        value = node.value
        if isinstance(value, ast.Attribute) and value.attr == "shape" and self.matrix(value.value):
            matrix = self.matrix(value.value)
            assert matrix is not None
            axis = _axis(node.slice)
            if axis is None:
                raise self.source.error(node, "a sparse matrix's shape indexed other than by 0, 1, -1 or -2",
                                        "sparse matrix")
            return self.placed(matrix.shape[axis], node)
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        matrix = self.matrix(node.value)
        if matrix is None:
            return self.generic_visit(node)
        if node.attr == "shape":
            return self.placed(ast.Tuple(list(matrix.shape), ast.Load()), node)
        if node.attr == "nnz":  # scipy's nnz: indptr[-1], stored entries (explicit zeros, duplicates)
            indptr = matrix.part("indptr")
            return self.placed(parse(f"int({indptr}[{indptr}.shape[0] - 1])", mode="eval").body, node)
        if node.attr == "ndim":
            return self.placed(ast.Constant(2), node)
        if node.attr == "dtype":
            return self.placed(ast.Attribute(ast.Name(matrix.part("data"), ast.Load()), "dtype", ast.Load()), node)
        return node  # A.T, A.dot: products (frontend/array_sparse.py); the rest check_uses refuses

    def placed(self, new: ast.expr, like: ast.AST) -> ast.expr:
        for sub in walk(new):
            if "lineno" in sub._attributes:
                ast.copy_location(sub, like)
        return new


def _axis(node: ast.expr) -> int | None:
    """0, 1, -1 or -2 written as a literal (None for anything else)."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int and -2 <= sign * node.value < 2:
        return sign * node.value
    return None


def check_uses(source: KernelSource, arguments: tuple[Argument, ...]) -> None:
    """Refuse every use of a sparse matrix that is not an operand of a product with it, after
    writing out the attributes that inlined helpers brought in (``M.shape`` of a helper's
    parameter ``M``, now ``A.shape``)."""
    given = {a.name for a in arguments}
    params = {name: SparseParam(name, fmt) for name in {part_owner(n) for n in given} if name is not None
              for fmt in SPARSE_FORMATS if sparse_part(name, fmt, "data") in given}
    if not params:
        return
    names = set(params)
    source.tree.body = [_Attributes(source, params).visit(stmt) for stmt in source.tree.body]
    allowed: set[int] = set()
    for node in walk(source.tree):
        for operand in _product_operands(node):
            scaled = isinstance(operand, ast.BinOp) and isinstance(operand.op, ast.Mult)
            for part in [operand.left, operand.right] if isinstance(operand, ast.BinOp) and scaled else [operand]:
                allowed.add(id(part))
                if isinstance(part, ast.Attribute) and part.attr == "T":
                    allowed.add(id(part.value))
    for node in walk(source.tree):
        if isinstance(node, ast.Name) and node.id in names and id(node) not in allowed:
            raise _refusal(source, node)


def _refusal(source: KernelSource, node: ast.Name) -> UnsupportedError:
    return source.error(node, f"this use of the scipy.sparse matrix {node.id!r} (a sparse matrix may be used in "
                        f"{SUPPORTED}; convert it with .toarray() outside the kernel for other uses)",
                        "sparse matrix")


def _product_operands(node: ast.AST) -> list[ast.expr]:
    """The operands ``A @ x``, ``x @ A`` and ``A.dot(x)`` may give a sparse matrix."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        return [node.left, node.right]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "dot":
        return [node.func.value]
    return []


def part_owner(name: str) -> str | None:
    """The matrix a sparse part's argument name belongs to (None for other names)."""
    for fmt in SPARSE_FORMATS:
        for part in SPARSE_PARTS:
            suffix = sparse_part("", fmt, part)
            if name.endswith(suffix) and len(name) > len(suffix):
                return name[: -len(suffix)]
    return None
