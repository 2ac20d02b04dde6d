"""Opaque regions: code kept as written, one statement of the polyhedral model.

A ``while`` loop, a ``for`` loop whose bounds are not affine (``range(indptr[i], indptr[i + 1])``)
or a loop holding ``break``/``continue`` cannot be described by isl sets.  The frontend keeps the
smallest such loop as one statement whose body is a ``Region``: structured operations executed
in order, with expressions of :mod:`polyfuse.model.ir` (run-time subscripts are ``ir.Index``,
checked as everywhere).  The model sees only its accesses: what it may read and write, each
element it may write modelled as read and written back (so a may-write never hides an earlier
write from the dataflow).  Backends run the body as written; nothing inside it is transformed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from polyfuse.model import ir


@dataclass(frozen=True)
class Assign:
    """``array[index] = value``; local scalars have an empty index."""

    array: str
    index: tuple[ir.Expr, ...]
    value: ir.Expr


@dataclass(frozen=True)
class While:
    cond: ir.Expr
    body: tuple[Op, ...]


@dataclass(frozen=True)
class ForRange:
    """``for var in range(start, stop, step)`` with bounds computed at run time (int64) and a
    constant non-zero step.  ``var`` exists only inside the loop."""

    var: str
    start: ir.Expr
    stop: ir.Expr
    step: int
    body: tuple[Op, ...]


@dataclass(frozen=True)
class IfElse:
    cond: ir.Expr
    then: tuple[Op, ...]
    otherwise: tuple[Op, ...] = ()


@dataclass(frozen=True)
class Break:
    pass


@dataclass(frozen=True)
class Continue:
    pass


#: The call the NumPy frontend writes for a product kept whole (frontend.array_linalg; a name no
#: kernel can use, frontend.lift turns it into a ``Matmul``): ``MATMUL_CALL(out[r, c], a[r, s],
#: b[s, c], rows, cols, depth, "r", "c", "s", *batch)``, each batch item a tuple ``("v", extent)``:
#: a variable of a stack of products (``X3 @ W``) and its extent, outermost first; keyword
#: ``alpha=``: a number or a scalar argument the kernel never assigns, ``out = alpha * (a @ b)``
#: (``Matmul.alpha``: BLAS's alpha; frontend.array_linalg moves ``alpha * A @ B``'s scale there).
MATMUL_CALL = "_polyfuse_matmul"

#: Below this many multiply-adds (rows x cols x depth) a product is not worth a BLAS call: about
#: 1 us of dispatch and packing, what 32 x 32 x 32 multiply-adds take as loops.  Products known to
#: be smaller stay loops the scheduler can fuse; backends test it again per call.
BLAS_MIN_WORK = 32 * 32 * 32
#: The same for a matrix times a matrix (?gemm): measured on this machine (session 18, load ~5),
#: OpenBLAS's dgemm beats the loops from n = 8 (A @ B returned: 0.41 vs 0.49 us at n = 8, 0.94 vs
#: 4.26 us at n = 24; NumPy's own 0.85 and 1.42 us), and at n = 6 the two are level.  Only for NumPy's
#: ``@`` (NumPy calls ?gemm at every size): a product written as loops keeps its loops' bits
#: (each sum in index order) up to BLAS_MIN_WORK.
GEMM_MIN_WORK = 8 * 8 * 8


@dataclass(frozen=True)
class Operand:
    """``array[index]`` with each subscript affine in a Matmul's variables (integer coefficients)."""

    array: str
    index: tuple[ir.Expr, ...]


@dataclass(frozen=True)
class Summed:
    """How the user's code sums a product that schedule/accumulators.py folded into ``out``:
    ``scalar = start; for s: scalar += term`` per element, then ``out = value``: the consumer as
    written (``beta * out + alpha * scalar``), ``out`` read for its ``rest``, which the fold's
    first statement writes there.  Where ``alpha`` is 0 or not finite, the product's loops
    compute exactly that (:meth:`Matmul.summed_loops`): each element's sum in ``s`` order,
    then scaled once, as the user's function does, not ``alpha`` times each term (``inf * 0.0``
    terms are NaN where ``inf * sum`` is an inf).  ``scalar`` is a kernel-local scalar of its
    own, written and read only there (a register of whichever thread runs the loops)."""

    scalar: str
    term: ir.Expr
    value: ir.Expr
    start: ir.Expr  # the user's zero (``-0.0`` stays one)


@dataclass(frozen=True)
class Matmul:
    """``out[r, c] = sum(a[r, s] * b[s, c] for s < depth)`` for every ``r < rows``, ``c < cols``: a matrix
    product NumPy code wrote (``x @ W``, ``np.dot(A, v)``), kept whole so that it can run on BLAS;
    with ``accumulate``, ``out[r, c] += sum(term)``: a product written as loops
    (schedule/loop_products.py), whose ``term`` is the loops' own ``alpha * a * b`` and ``alpha``
    its loop-invariant factors (None: 1), BLAS's ``C = alpha A B + C``.

    ``variables`` name r, c and s inside the operands' subscripts; a vector operand simply does not
    use r or c (its extent is 1).  The element each (r, c, s) touches is exact, so the model's
    accesses are exact rectangles.  :meth:`loops` is the meaning (and the backends' fallback where
    BLAS cannot run: other layouts, small sizes, no BLAS): each element's sum in index order.
    """

    out: Operand
    a: Operand
    b: Operand
    rows: ir.Expr
    cols: ir.Expr
    depth: ir.Expr
    variables: tuple[str, str, str]
    dtype: str
    accumulate: bool = False
    alpha: ir.Expr | None = None
    term: ir.Expr | None = None
    # a stack of products (``X3 @ W``): (variable, extent) of each batch axis, outermost first;
    # one operand and ``out`` use them, and where their strides chain the stack is one product
    batch: tuple[tuple[str, ir.Expr], ...] = ()
    # "lower": only the elements with c <= r of a square ``out`` (rows == cols), "upper": c >= r,
    # "": all; a triangle of ``a @ a.T`` runs on ?syrk (PolyBench's syrk, covariance)
    triangle: str = ""
    # with ``triangle``: ``term`` is ``alpha * (a[r, s] * b[c, s] + b[r, s] * a[c, s])`` (PolyBench's
    # syr2k), ``b`` indexed by c and s as written; ?syr2k
    pair: bool = False
    # with ``triangle``: c0 - r0, the first column the loops update less their first row (1:
    # correlation's ``for j in range(i + 1, m)``, whose operands and ``out`` are subscripted from
    # those firsts, so that the triangle has its diagonal here); 1 or -1 runs as the triangle of
    # one more row, the diagonal kept, on ?syrk
    offset: int = 0
    # "left": ``b`` is ``out``'s own rows (``out[s, c]``: trmm's ``B += T @ B``), "right": ``a`` is
    # its own columns (``B += B @ T``), read as they were before the statement; ``T`` (``a``,
    # ``b``) taken only strictly on one side of its diagonal, ``factor``: "upper" (T's column
    # variable above its row one: s > r, c > s) or "lower"; ?trmm with a unit diagonal
    in_place: str = ""
    factor: str = ""
    # "a" or "b": that operand is read only strictly on one side of its diagonal (``factor``, its
    # row and column variables over one range: symm's ``A[i, k]`` for ``k < i``), ``out`` is not
    # an operand; ?trmm on copies (the operand's triangle with a zero diagonal, the other operand)
    triangular: str = ""
    # with ``triangular``: the same product with the triangular operand's other subscript order
    # (``A[s, c]`` for ``c < s`` beside ``A[c, s]`` for ``c > s``: the same stored elements, read
    # as the transpose), into the same ``out``, with the same other operand and ``alpha``
    # (symm's two products): together ``out += alpha * G @ (T + T.T)`` with ``T + T.T``
    # symmetric, one ``?symm`` on a copy of the triangle with a zero diagonal
    # (schedule/loop_products.py ``fold_mirrors``); its loops run after this one's
    mirror: Matmul | None = None
    # a folded accumulator's product (schedule/accumulators.py): where alpha is 0 or not finite
    # the loops sum each element's terms first and scale the sum, as the user wrote it
    # (``scaled_by_sum``); ``term`` is its terms times alpha
    summed: Summed | None = None
    # a run-time test (a bool of scalars computed before) under which the product of ``a`` and
    # ``b`` as stored is the meaning; where it fails, ``term`` (a ``Select`` on it) is NumPy's
    # order instead, an operand scaled term by term (frontend.array_linalg ``_scaled_product``:
    # ``(x / f) @ b`` whose factor has a zero, an inf or a NaN).  BLAS runs only where it holds.
    check: ir.Expr | None = None

    def loops(self) -> tuple[Op, ...]:
        nest = self.single_loops()
        for var, extent in reversed(self.batch):
            nest = (ForRange(var, ir.int_const(0), extent, 1, nest),)
        return nest

    def single_loops(self) -> tuple[Op, ...]:
        """One product of the stack (the batch variables keep their values)."""
        if self.in_place:
            return self.in_place_loops()
        if self.triangular:
            return self.triangular_loops() + (self.mirror.single_loops() if self.mirror is not None else ())
        if self.summed is not None:
            return self.scaled_by_sum()
        r, c, s = self.variables
        out = ir.Load(self.out.array, self.out.index, self.dtype)
        term = self.term if self.term is not None else ir.BinOp(
            "*", ir.Load(self.a.array, self.a.index, self.dtype), ir.Load(self.b.array, self.b.index, self.dtype),
            self.dtype)
        first: ir.Expr = ir.int_const(0)
        stop = self.cols
        if self.triangle == "lower":
            stop = ir.BinOp("+", ir.Var(r, ir.INT), ir.int_const(1), ir.INT)
        elif self.triangle == "upper":
            first = ir.Var(r, ir.INT)
        # r, s, c: each out[r, c] still adds its terms in s order (the same sums, bit for bit), and
        # the innermost loop runs along a row of out and of b (contiguous in C order: vectorized)
        update = ForRange(c, first, stop, 1, (Assign(out.array, out.index, ir.BinOp("+", out, term, self.dtype)),))
        body: tuple[Op, ...] = (ForRange(s, ir.int_const(0), self.depth, 1, (update,)),)
        if not self.accumulate:
            body = (ForRange(c, first, stop, 1, (Assign(out.array, out.index, ir.Const(0.0, self.dtype, False)),)),
                    *body)
        return (ForRange(r, ir.int_const(0), self.rows, 1, body),)

    def columns(self) -> tuple[ir.Expr, ir.Expr]:
        """(first, stop) of the columns of row r: all, or those of ``triangle``."""
        r = ir.Var(self.variables[0], ir.INT)
        if self.triangle == "lower":
            return ir.int_const(0), ir.BinOp("+", r, ir.int_const(1), ir.INT)
        return (r if self.triangle == "upper" else ir.int_const(0)), self.cols

    def scaled_by_sum(self) -> tuple[Op, ...]:
        """A folded accumulator's loops: with ``alpha`` finite and not zero, ``alpha`` times
        each term (the plain loops, vectorized along c: they differ from the user's sums as
        BLAS's do, in rounding); else :meth:`summed_loops`, the user's own arithmetic, where an
        inf or NaN ``alpha`` times each term would make NaNs the user's ``alpha * s`` does not
        (and ``0 * term`` ones where ``s`` is finite).  No scale: the plain loops."""
        plain = dataclasses.replace(self, summed=None)
        loops = plain.triangular_loops() if self.triangular else plain.single_loops()
        if self.alpha is None:
            return loops
        zero = ir.Const(0.0, self.dtype, False)
        finite = ir.Compare("==", ir.BinOp("-", self.alpha, self.alpha, self.dtype), zero)
        (rows,), (summed,) = loops, self.summed_loops()  # each over r from 0 (a chunk's window takes r)
        assert isinstance(rows, ForRange) and isinstance(summed, ForRange) and rows.var == summed.var
        test = ir.BoolOp("and", (finite, ir.Compare("!=", self.alpha, zero)))
        return (dataclasses.replace(rows, body=(IfElse(test, rows.body, summed.body),)),)

    def summed_loops(self) -> tuple[Op, ...]:
        """A folded accumulator's product as the user wrote it (``summed``): r, c, s, each
        element's terms summed into the scalar in s order from the user's zero, then ``out``
        set to its ``value`` (which reads ``out`` for the rest: zeroed first without
        ``accumulate``)."""
        assert self.summed is not None
        r, c, s = self.variables
        first, stop = self.columns()
        out = ir.Load(self.out.array, self.out.index, self.dtype)
        name, total = self.summed.scalar, ir.Load(self.summed.scalar, (), self.dtype)
        rest = not self.accumulate and any(e == out for e in ir.walk(self.summed.value))
        start = (Assign(out.array, out.index, ir.Const(0.0, self.dtype, False)),) if rest else ()
        element = (*start, Assign(name, (), self.summed.start),
                   ForRange(s, *self.summed_range(), 1, (Assign(name, (), ir.BinOp("+", total, self.summed.term,
                                                                                    self.dtype)),)),
                   Assign(out.array, out.index, self.summed.value))
        return (ForRange(r, ir.int_const(0), self.rows, 1, (ForRange(c, first, stop, 1, element),)),)

    def summed_range(self) -> tuple[ir.Expr, ir.Expr]:
        """(first, stop) of s for element (r, c): all of ``depth``, or for a triangular operand
        its strict side (:meth:`triangular_loops`)."""
        if not self.triangular:
            return ir.int_const(0), self.depth
        r, c, _ = self.variables
        other = ir.Var(r if self.triangular == "a" else c, ir.INT)
        after = (self.factor == "upper") == (self.triangular == "a")
        return (ir.BinOp("+", other, ir.int_const(1), ir.INT), self.depth) if after else (ir.int_const(0), other)

    def in_place_loops(self) -> tuple[Op, ...]:
        """``out += T @ out`` ("left") or ``out @ T``: each row (column) of ``out`` reads the others
        before they change, so the rows (columns) run from the side T reads last: for "left" with
        T "upper" (row r reads rows s > r), r ascending; "lower", descending."""
        r, c, s = self.variables
        out = ir.Load(self.out.array, self.out.index, self.dtype)
        assert self.term is not None
        total_var, other, extent = (r, c, self.rows) if self.in_place == "left" else (c, r, self.cols)
        after = (self.factor == "upper") == (self.in_place == "left")  # s runs after the outer variable
        outer = ir.Var(total_var, ir.INT)
        first, stop = ((ir.BinOp("+", outer, ir.int_const(1), ir.INT), self.depth) if after
                       else (ir.int_const(0), outer))
        total = ForRange(s, first, stop, 1, (Assign(out.array, out.index, ir.BinOp("+", out, self.term, self.dtype)),))
        inner = ForRange(other, ir.int_const(0), self.cols if self.in_place == "left" else self.rows, 1, (total,))
        last = ir.BinOp("-", extent, ir.int_const(1), ir.INT)
        if after:
            return (ForRange(total_var, ir.int_const(0), extent, 1, (inner,)),)
        return (ForRange(total_var, last, ir.int_const(-1), -1, (inner,)),)

    def triangular_loops(self) -> tuple[Op, ...]:
        """``out += term`` over the triangle: s beyond r ("a", "upper": s > r), or c beyond s
        ("b", "upper": c > s), and the mirror images for "lower"."""
        if self.summed is not None:
            return self.scaled_by_sum()
        r, c, s = self.variables
        out = ir.Load(self.out.array, self.out.index, self.dtype)
        assert self.term is not None
        other = ir.Var(r if self.triangular == "a" else c, ir.INT)
        one = ir.int_const(1)
        after = (self.factor == "upper") == (self.triangular == "a")  # s runs after the other variable
        first, stop = (ir.BinOp("+", other, one, ir.INT), self.depth) if after else (ir.int_const(0), other)
        total = ForRange(s, first, stop, 1, (Assign(out.array, out.index, ir.BinOp("+", out, self.term, self.dtype)),))
        inner = ForRange(c, ir.int_const(0), self.cols, 1, (total,))
        return (ForRange(r, ir.int_const(0), self.rows, 1, (inner,)),)

    def describe(self) -> str:
        scale = "" if self.alpha is None else f"{ir.to_python(self.alpha)} * "
        stack = "".join(f"{ir.to_python(extent)} x " for _, extent in self.batch)
        if self.pair:
            return (f"{self.out.array} += {scale}({self.a.array} @ {self.b.array}.T + {self.b.array} @ "
                    f"{self.a.array}.T) ({ir.to_python(self.rows)} x {ir.to_python(self.depth)})"
                    + self.describe_triangle())
        if self.in_place:
            r, c, s = self.variables
            tri = self.a.array if self.in_place == "left" else self.b.array
            upper = self.factor == "upper"
            side = f"{s} {'>' if upper else '<'} {r}" if self.in_place == "left" else f"{c} {'>' if upper else '<'} {s}"
            product = f"(I + {tri}) @ {self.out.array}" if self.in_place == "left" else f"{self.out.array} @ (I + {tri})"
            return (f"{self.out.array} = {product} ({ir.to_python(self.rows)} x {ir.to_python(self.cols)}, "
                    f"unit triangle {side})")
        return (f"{self.out.array} {'+=' if self.accumulate else '='} {scale}{self.a.array} @ {self.b.array} "
                f"({stack}{ir.to_python(self.rows)} x {ir.to_python(self.depth)} @ {ir.to_python(self.depth)} x "
                f"{ir.to_python(self.cols)})" + self.describe_triangle() + self.describe_factor()
                + self.describe_mirror())

    def describe_mirror(self) -> str:
        """``", plus its transpose: A symmetric"``: ``mirror`` reads the same triangle transposed."""
        if self.mirror is None:
            return ""
        name = self.a.array if self.triangular == "a" else self.b.array
        return f", plus its transpose: {name} read as symmetric"

    def describe_factor(self) -> str:
        """``", A strictly triangular: k < i"``: the part of the triangular operand read."""
        if not self.triangular:
            return ""
        r, c, s = self.variables
        x, y = (r, s) if self.triangular == "a" else (s, c)
        name = self.a.array if self.triangular == "a" else self.b.array
        return f", {name} strictly triangular: {y} {'>' if self.factor == 'upper' else '<'} {x}"

    def describe_triangle(self) -> str:
        """``", triangle j <= i"``: the elements updated, in the loops' own names."""
        r, c, _ = self.variables
        if not self.triangle:
            return ""
        shift = f" + {self.offset}" if self.offset > 0 else f" - {-self.offset}" if self.offset else ""
        return f", triangle {c} {'<=' if self.triangle == 'lower' else '>='} {r}{shift}"


#: The call the NumPy frontend writes for an ``np.linalg`` routine (frontend.array_lapack; a name
#: no kernel can use, frontend.lift turns it into a ``Lapack``): ``LAPACK_CALL(routine="gesv", a=..., n=...,
#: ...)``, every field a keyword (frontend.opaque.lapack_parts), arrays and scalars by name.
LAPACK_CALL = "_polyfuse_lapack"

#: The LAPACK routines (without their s/d letter) and the NumPy function each serves.
LAPACK_LETTERS = {"float64": "d", "float32": "s", "complex128": "z", "complex64": "c"}
LAPACK_ROUTINES = {"potrf": "np.linalg.cholesky", "gesv": "np.linalg.solve", "getrf": "np.linalg.slogdet",
                   "gelsd": "np.linalg.lstsq", "geqrf": "np.linalg.qr", "syevd": "np.linalg.eigh",
                   "gesdd": "np.linalg.svd"}
#: The routines polyfuse runs for real matrices only (complex ones are refused by the frontend).
LAPACK_REAL_ONLY = ("gelsd", "geqrf", "syevd", "gesdd")


@dataclass(frozen=True)
class Lapack:
    """One LAPACK routine on kernel-local buffers, as NumPy's ``np.linalg`` calls it.

    ``a`` holds an ``n x n`` matrix in Fortran's column-major order: element (i, j) at
    ``a[j, i]`` of the row-major local (the frontend copied the operand in transposed, as NumPy
    linearizes it); LAPACK overwrites it with its factor.  ``potrf`` ('L'): the lower Cholesky
    factor in the lower triangle.  ``gesv``: ``b`` (``nrhs x n`` row-major, so column-major
    ``n x nrhs``, or a vector of ``n``) overwritten by the solution of ``A X = B``.  ``getrf``:
    the LU factors and, as NumPy's slogdet computes them from those, ``sign`` and ``logdet``
    (:meth:`slogdet`).  ``info`` (an int64 local) is LAPACK's: 0, or > 0 for a matrix that is
    not positive definite / singular (the frontend raises NumPy's LinAlgError from it).

    ``geqrf``, ``syevd`` and ``gesdd`` take ``a`` as ``gelsd`` does (``m x n``, ``a[j, i]``; syevd's
    ``m`` is ``n``).  ``geqrf``: R in ``a``'s upper triangle and, unless ``jobz`` is "N" (NumPy's
    mode 'r'), dorgqr's Q in ``u`` (column-major ``m x mc``: ``u[j, i]``; ``mc`` is ``m`` for
    "A", NumPy's mode 'complete', and ``min(m, n)`` for "S", its 'reduced'), built from a copy of
    ``a``'s reflectors as NumPy's qr_reduced / qr_complete do.  ``syevd`` (``jobz`` "V" or "N",
    ``uplo`` "L" or "U"): the ascending eigenvalues in ``s`` and, for "V", the eigenvectors in
    ``a``'s columns.  ``gesdd`` (``jobz`` "A", "S" or "N"): the singular values in ``s``, U in ``u``
    (column-major ``m x ucols``) and V^H in ``vt`` (column-major ``vrows x n``: ``vt[j, i]``), an
    identity where "A" meets an empty matrix (NumPy fills it so, LAPACK leaves it).
    """

    routine: str  # a key of LAPACK_ROUTINES
    call: str  # the NumPy function the user wrote, for explain() and messages
    dtype: str  # float64 or complex128: np.linalg runs the d / z routines for every real / complex dtype
    a: str
    n: ir.Expr
    info: str
    b: str = ""
    b_rank: int = 0  # 1: a vector, 2: a matrix of nrhs columns
    nrhs: ir.Expr = ir.Const(1, ir.INT)
    pivots: str = ""  # int64 (the CPU backend widens a 32-bit library's), 1-based, as LAPACK writes them
    sign: str = ""  # of ``dtype`` (a complex matrix's sign is complex)
    logdet: str = ""  # float64
    m: ir.Expr | None = None  # gelsd: ``a`` is ``m x n`` column-major (``a[j, i]``, ``n`` rows of ``m``)
    s: str = ""  # gelsd: the singular values (min(m, n) of them)
    rank: str = ""  # gelsd: the effective rank (an int64 local)
    rcond: str = ""  # gelsd: the float64 local of the cut-off (singular values below rcond * largest are 0)
    jobz: str = ""  # geqrf: "A"/"S"/"N" (Q m x m, m x min(m, n), none); syevd: "V"/"N"; gesdd: "A"/"S"/"N"
    uplo: str = ""  # syevd: the triangle read, "L" or "U"
    u: str = ""  # geqrf: Q; gesdd: U (both column-major, ``m`` rows)
    vt: str = ""  # gesdd: V^H (column-major, ``n`` columns)

    def outputs(self) -> tuple[str, ...]:
        """The buffers and scalars the routine writes (whole)."""
        return tuple(name for name in (self.a, self.b, self.pivots, self.info, self.sign, self.logdet, self.s,
                                       self.rank, self.u, self.vt) if name)

    def rows(self) -> ir.Expr:
        """``m``: the rows of ``a`` (``n`` where the matrix is square)."""
        return self.n if self.m is None else self.m

    def u_columns(self) -> ir.Expr:
        """The columns of ``u``: ``m`` for jobz "A", ``min(m, n)`` otherwise."""
        return self.rows() if self.jobz == "A" else ir.int_min(self.rows(), self.n)

    def vt_rows(self) -> ir.Expr:
        """The rows of ``vt``: ``n`` for jobz "A", ``min(m, n)`` otherwise."""
        return self.n if self.jobz == "A" else ir.int_min(self.rows(), self.n)

    def q_copy(self) -> tuple[Op, ...]:
        """geqrf's reflectors copied into ``u`` for dorgqr (NumPy's qr_reduced / qr_complete
        linearize the factored matrix into Q): the first ``min(mc, n)`` columns."""
        j, i = ir.Var("_pf_lapack_j", ir.INT), ir.Var("_pf_lapack_i", ir.INT)
        inner = ForRange(i.name, ir.int_const(0), self.rows(), 1,
                         (Assign(self.u, (j, i), ir.Load(self.a, (j, i), self.dtype)),))
        return (ForRange(j.name, ir.int_const(0), ir.int_min(self.u_columns(), self.n), 1, (inner,)),)

    def empty_identities(self) -> tuple[Op, ...]:
        """gesdd "A" of an empty matrix: U and V^H identities (NumPy's svd fills them so)."""
        def identity(array: str, order: ir.Expr) -> Op:
            j, i = ir.Var("_pf_lapack_j", ir.INT), ir.Var("_pf_lapack_i", ir.INT)
            one = ir.Select(ir.Compare("==", i, j), ir.Const(1.0, self.dtype, False), ir.Const(0.0, self.dtype, False),
                            self.dtype)
            return ForRange(j.name, ir.int_const(0), order, 1, (
                ForRange(i.name, ir.int_const(0), order, 1, (Assign(array, (j, i), one),)),))
        empty = ir.Compare("==", ir.int_min(self.rows(), self.n), ir.int_const(0))
        return (IfElse(empty, (identity(self.u, self.rows()), identity(self.vt, self.n))),)

    @property
    def symbol(self) -> str:
        """The LAPACK routine's name: ``dpotrf``, ``zgesv``, ..."""
        return LAPACK_LETTERS[self.dtype] + self.routine

    def slogdet(self) -> tuple[Op, ...]:
        """NumPy's ``slogdet`` of the factored ``a`` (umath_linalg: slogdet_single_element):
        where getrf succeeded, the sign of the row swaps, then along the diagonal the sign of
        each element and the sum of the logarithms of their magnitudes, in order; a singular
        matrix (info > 0) has sign 0 and logdet -inf."""
        if self.dtype.startswith("complex"):
            return self.complex_slogdet()
        real, i = self.dtype, ir.Var("_pf_lapack_i", ir.INT)
        one, zero = ir.Const(1.0, real, False), ir.Const(0.0, real, False)
        sign, logdet = ir.Load(self.sign, (), real), ir.Load(self.logdet, (), real)
        flipped = ir.Unary("neg", sign, real)
        swapped = ir.Compare("!=", ir.Load(self.pivots, (i,), ir.INT),
                             ir.BinOp("+", i, ir.int_const(1), ir.INT))
        diagonal = ir.Load(self.a, (i, i), real)
        magnitude = ir.Call("fabs", (diagonal,), real)
        scan = (
            Assign(self.sign, (), one), Assign(self.logdet, (), zero),
            ForRange(i.name, ir.int_const(0), self.n, 1, (Assign(self.sign, (), ir.Select(swapped, flipped, sign, real)),)),
            ForRange(i.name, ir.int_const(0), self.n, 1, (
                Assign(self.sign, (), ir.Select(ir.Compare("<", diagonal, zero), flipped, sign, real)),
                Assign(self.logdet, (), ir.BinOp("+", logdet, ir.Call("log", (magnitude,), real), real)))),
        )
        singular = (Assign(self.sign, (), zero), Assign(self.logdet, (), ir.Const(float("-inf"), real, False)))
        return (IfElse(ir.Compare("==", ir.Load(self.info, (), ir.INT), ir.int_const(0)), scan, singular),)

    def complex_slogdet(self) -> tuple[Op, ...]:
        """NumPy's complex slogdet: the sign starts at -1 or 1 (+0j) by the parity of the row
        swaps (here the real part negated per swap: the same value, zeros' signs included), then
        along the diagonal it is multiplied by each element over its magnitude (``cabs``:
        hypot) and the logarithms of the magnitudes are summed; singular: 0j and -inf."""
        cplx, real, i = self.dtype, "float64", ir.Var("_pf_lapack_i", ir.INT)
        one, zero = ir.Const(1.0, real, False), ir.Const(0.0, real, False)
        sign, logdet = ir.Load(self.sign, (), cplx), ir.Load(self.logdet, (), real)

        def make(re: ir.Expr, im: ir.Expr) -> ir.Expr:
            return ir.Call("complex", (re, im), cplx)

        def part(name: str, z: ir.Expr) -> ir.Expr:
            return ir.Call(name, (z,), real)

        flipped = make(ir.Unary("neg", part("real", sign), real), part("imag", sign))
        swapped = ir.Compare("!=", ir.Load(self.pivots, (i,), ir.INT),
                             ir.BinOp("+", i, ir.int_const(1), ir.INT))
        diagonal = ir.Load(self.a, (i, i), cplx)
        magnitude = ir.Unary("abs", diagonal, real)
        unit = make(ir.BinOp("/", part("real", diagonal), magnitude, real),
                    ir.BinOp("/", part("imag", diagonal), magnitude, real))
        scan = (
            Assign(self.sign, (), make(one, zero)), Assign(self.logdet, (), zero),
            ForRange(i.name, ir.int_const(0), self.n, 1, (Assign(self.sign, (), ir.Select(swapped, flipped, sign, cplx)),)),
            ForRange(i.name, ir.int_const(0), self.n, 1, (
                Assign(self.sign, (), ir.BinOp("*", sign, unit, cplx)),
                Assign(self.logdet, (), ir.BinOp("+", logdet, ir.Call("log", (magnitude,), real), real)))),
        )
        singular = (Assign(self.sign, (), make(zero, zero)),
                    Assign(self.logdet, (), ir.Const(float("-inf"), real, False)))
        return (IfElse(ir.Compare("==", ir.Load(self.info, (), ir.INT), ir.int_const(0)), scan, singular),)

    def helpers(self) -> tuple[Op, ...]:
        """The region operations the CPU backend emits around the call (slogdet's scan, qr's copy,
        svd's identities of an empty matrix), for :func:`ops`."""
        if self.routine == "getrf":
            return self.slogdet()
        if self.routine == "geqrf" and self.u:
            return self.q_copy()
        if self.routine == "gesdd" and self.jobz == "A":
            return self.empty_identities()
        return ()

    def describe(self) -> str:
        return f"LAPACK {self.symbol} ({self.call}) on {self.a}" + (f", {self.b}" if self.b else "")

    def python(self) -> list[str]:
        """The routine's effect in NumPy (the Python backend and explain()): NumPy's own
        np.linalg functions call these LAPACK routines on the same column-major matrices."""
        n = ir.to_python(self.n)
        matrix = f"{self.a}[:{n}, :{n}].T"
        if self.routine == "getrf":
            return [f"{self.sign}[()], {self.logdet}[()] = _np.linalg.slogdet({matrix})",
                    f"{self.info}[()] = 0"]
        if self.routine == "gelsd":
            assert self.m is not None, "gelsd has m rows"
            m, k = ir.to_python(self.m), ir.to_python(self.nrhs)
            call = (f"_pf_x, _pf_res, {self.rank}[()], {self.s}[:min({m}, {n})] = _np.linalg.lstsq("
                    f"{self.a}[:{n}, :{m}].T, {self.b}[:{k}, :{m}].T, rcond={self.rcond}[()])")
            return ["try:", f"    {call}", f"    {self.b}[:{k}, :{n}].T[...] = _pf_x", f"    {self.info}[()] = 0",
                    "except _np.linalg.LinAlgError:", f"    {self.info}[()] = 1"]
        if self.routine in ("geqrf", "syevd", "gesdd"):
            return self.factor_python()
        if self.routine == "potrf":
            work = f"{matrix}[...] = _np.where(_np.tri({n}, dtype=bool), _np.linalg.cholesky({matrix}), {matrix})"
        else:
            rhs = f"{self.b}[:{n}]" if self.b_rank == 1 else f"{self.b}[:{ir.to_python(self.nrhs)}, :{n}].T"
            work = f"{rhs}[...] = _np.linalg.solve({matrix}, {rhs})"
        return ["try:", f"    {work}", f"    {self.info}[()] = 0", "except _np.linalg.LinAlgError:",
                f"    {self.info}[()] = 1"]

    def factor_python(self) -> list[str]:
        """qr, eigh / eigvalsh and svd: NumPy's own call on the Fortran-ordered matrix, its results
        stored where LAPACK leaves them."""
        n, m = ir.to_python(self.n), ir.to_python(self.rows())
        matrix, k = f"{self.a}[:{n}, :{m}].T", f"min({m}, {n})"
        if self.routine == "syevd":
            if self.jobz == "N":
                work = [f"{self.s}[:{n}] = _np.linalg.eigvalsh({matrix}, UPLO={self.uplo!r})"]
            else:
                work = [f"{self.s}[:{n}], {matrix}[...] = _np.linalg.eigh({matrix}, UPLO={self.uplo!r})"]
        elif self.routine == "geqrf":
            if self.jobz == "N":
                work = [f"{matrix}[:{k}] = _np.linalg.qr({matrix}, mode='r')"]
            else:
                mode, mc = ("complete", m) if self.jobz == "A" else ("reduced", k)
                work = [f"_pf_q, _pf_r = _np.linalg.qr({matrix}, mode={mode!r})",
                        f"{self.u}[:{mc}, :{m}].T[...] = _pf_q", f"{matrix}[:{k}] = _pf_r[:{k}]"]
        elif self.jobz == "N":
            work = [f"{self.s}[:{k}] = _np.linalg.svd({matrix}, compute_uv=False)"]
        else:
            ucols, vrows = (m, n) if self.jobz == "A" else (k, k)
            work = [f"_pf_u, {self.s}[:{k}], _pf_vt = _np.linalg.svd({matrix}, full_matrices={self.jobz == 'A'})",
                    f"{self.u}[:{ucols}, :{m}].T[...] = _pf_u", f"{self.vt}[:{n}, :{vrows}].T[...] = _pf_vt"]
        return ["try:", *[f"    {line}" for line in work], f"    {self.info}[()] = 0",
                "except _np.linalg.LinAlgError:", f"    {self.info}[()] = 1"]


Op = Assign | While | ForRange | IfElse | Break | Continue | Matmul | Lapack


@dataclass(frozen=True)
class Region:
    """The body of an opaque statement, and what ``explain()`` says about it.

    ``reads``/``writes`` name the arrays and scalars it may read or write; ``private`` are the
    scalars it writes before reading them and nobody reads outside it (modelled as written only).
    """

    body: tuple[Op, ...]
    reason: str  # "while loop", "break", "loop bound reads array indptr", ...
    line: int
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    private: tuple[str, ...] = ()

    def uses(self) -> tuple[str, ...]:
        """Every array or scalar whose value the region may depend on (may-writes included)."""
        return tuple(sorted((set(self.reads) | set(self.writes)) - set(self.private)))


def ops(body: tuple[Op, ...]):
    """Yield every operation of ``body``, nested ones included, parents first."""
    for op in body:
        yield op
        if isinstance(op, (While, ForRange)):
            yield from ops(op.body)
        elif isinstance(op, IfElse):
            yield from ops(op.then)
            yield from ops(op.otherwise)
        elif isinstance(op, Matmul):
            yield from ops(op.loops())
        elif isinstance(op, Lapack):
            yield from ops(op.helpers())


def expressions(body: tuple[Op, ...]):
    """Yield every top-level expression of ``body`` (conditions, bounds, indices, values)."""
    for op in ops(body):
        if isinstance(op, Assign):
            yield from op.index
            yield op.value
        elif isinstance(op, (While, IfElse)):
            yield op.cond
        elif isinstance(op, ForRange):
            yield op.start
            yield op.stop
        elif isinstance(op, Lapack):
            yield op.n
            yield op.nrhs
            if op.m is not None:
                yield op.m


def render(body: tuple[Op, ...], depth: int = 0) -> list[str]:
    """The body as Python lines (``explain()`` and the Python backend)."""
    pad = "    " * depth
    out: list[str] = []
    for op in body:
        if isinstance(op, Assign):
            index = ", ".join(ir.to_python(i) for i in op.index) if op.index else "()"
            out.append(f"{pad}{op.array}[{index}] = {ir.to_python(op.value)}")
        elif isinstance(op, While):
            out.append(f"{pad}while {ir.to_python(op.cond)}:")
            out += render(op.body, depth + 1) or [f"{pad}    pass"]
        elif isinstance(op, ForRange):
            out.append(f"{pad}for {op.var} in range({ir.to_python(op.start)}, {ir.to_python(op.stop)}, "
                       f"{op.step}):")
            out += render(op.body, depth + 1) or [f"{pad}    pass"]
        elif isinstance(op, Matmul):
            out.append(f"{pad}# matrix product {op.describe()}, on BLAS where the layout allows")
            out += render(op.loops(), depth)
        elif isinstance(op, Lapack):
            out.append(f"{pad}# {op.describe()}")
            out += [pad + line for line in op.python()]
        elif isinstance(op, IfElse):
            out.append(f"{pad}if {ir.to_python(op.cond)}:")
            out += render(op.then, depth + 1) or [f"{pad}    pass"]
            if op.otherwise:
                out.append(f"{pad}else:")
                out += render(op.otherwise, depth + 1)
        else:
            out.append(pad + ("break" if isinstance(op, Break) else "continue"))
    return out
