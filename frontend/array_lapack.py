"""Dense ``np.linalg`` routines in NumPy array statements: cholesky, inv, solve, det, slogdet,
lstsq, qr, eigh, eigvalsh, svd and svdvals, on LAPACK.

Called by :class:`frontend.arrays.Lowering` for ``np.linalg.<name>(...)`` (frontend.lift hands it
:func:`lower_linalg` in the ProductRules, so this module builds on arrays.py without an import
circle).  Each call is lowered as NumPy's umath_linalg runs it:

    L = np.linalg.cholesky(A)   ->   for pf_i1 in range(A.shape[0]):        # NumPy's linearize:
                                         for pf_i2 in range(A.shape[0]):    # Fortran order
                                             pf_la3[pf_i2, pf_i1] = A[pf_i1, pf_i2]
                                     _polyfuse_lapack(routine='potrf', a=pf_la3, info=pf_info4, ...)
                                     assert pf_info4 == 0, ('LinAlgError', 'Matrix is not positive definite')
                                     L[i, j] = pf_la3[j, i] if j <= i else 0     # wherever L is read

The copy in and the reads of the result are ordinary statements (they fuse with the statements
around them); the call is one statement of the Scop (frontend.opaque.lift_lapack: it reads and
writes its buffers whole), a model/region.py ``Lapack`` that the CPU backend runs on SciPy's
cython_lapack and the Python backend as NumPy's own np.linalg call.  The buffers are the
kernel's own, so the operand is never modified.  Dtypes are NumPy's (its _commonType): every real
dtype is computed in float64 (the d routines, float32 operands converted in the copy), every
complex one in complex128 (the z routines: complex64 too, and real operands meeting a complex
one), and the result is single precision (float32, complex64) where every operand is, double
otherwise (ints and bools count as double); float16 is refused, as is a complex lstsq, qr, eigh
or svd.  Only single matrices (2-D operands): NumPy's stacks of matrices are refused.

The factorizations return several arrays (frontend.arrays' LINALG_TUPLES: unpacked, indexed or
by NumPy's field names), each a view of one call's buffers: ``Q, R = np.linalg.qr(A)`` is
dgeqrf + dorgqr (R read from the factored copy's upper triangle, Q from dorgqr's buffer),
``w, V = np.linalg.eigh(A)`` dsyevd('V') (V read from the overwritten copy), ``U, s, Vh =
np.linalg.svd(A)`` dgesdd; ``qr(A, mode='r')``, ``svd(A, compute_uv=False)``, ``eigvalsh`` and
``svdvals`` are one array.  Their options are constants, as NumPy's modes must be.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np

from polyfuse.model.region import LAPACK_CALL

from .arrays import LINALG_TUPLES, NP_NAME, UNKNOWN, Lowering, Sym, View, _store, const, smin
from .types import VType

_CONSTRUCT = "np.linalg"
WORK = "float64"  # np.linalg computes every real dtype in double and casts the result (its _commonType)
COMPLEX_WORK = "complex128"  # ... and every complex one in complex128 (complex64 included)
_SINGLE = {"float64": "float32", "complex128": "complex64"}
_REAL_OF = {"float32": "float32", "float64": "float64", "complex64": "float32", "complex128": "float64"}


def lower_linalg(lw: Lowering, node: ast.Call, name: str) -> View:
    """The value of ``np.linalg.<name>(...)`` (norm is frontend.arrays' own)."""
    if lw.linalg_tuple(node) is not None:
        raise lw.error(node, f"np.linalg.{name}() as a value: it returns {', '.join(LINALG_TUPLES[name])}; unpack "
                       "it into names or index it ([0], ...)", _CONSTRUCT)
    single = _SINGLE_RULES.get(name)
    if single is not None:  # qr(a, mode='r'), svd(a, compute_uv=False), eigvalsh, svdvals
        return single(lw, node)
    rule = _RULES.get(name)
    if rule is None:
        raise lw.error(node, f"np.linalg.{name}() is not supported (np.linalg.cholesky, inv, solve, det, slogdet, "
                       "lstsq, qr, eigh, eigvalsh, svd, svdvals and norm are); write the loops, or call it outside "
                       "the kernel", _CONSTRUCT)
    return rule(lw, node, *_operands(lw, node, name))


def linalg_parts(lw: Lowering, node: ast.Call, name: str) -> tuple[View | None, ...]:
    """The values of ``np.linalg.slogdet(A)``, ``lstsq(A, b)``, ``qr(A)``, ``eigh(A)`` or
    ``svd(A)`` (frontend.arrays' LINALG_TUPLES), None for one polyfuse cannot give."""
    return _PARTS[name](lw, node)


def slogdet_parts(lw: Lowering, node: ast.Call) -> tuple[View, View]:
    """``np.linalg.slogdet(A)``: its sign and logabsdet, NumPy's scan of the getrf factors."""
    (a,) = _operands(lw, node, "slogdet")
    sign, logdet, (work, result) = _slogdet(lw, node, "np.linalg.slogdet", a)
    real = _REAL_OF[result]  # a complex matrix's logdet is real (float32 for complex64, as NumPy casts it)
    return (View((), VType(result, False), lambda idx: _as(result, ast.Name(sign, ast.Load()), work)),
            View((), VType(real, False), lambda idx: _as(real, ast.Name(logdet, ast.Load()))))


def lstsq_parts(lw: Lowering, node: ast.Call) -> tuple[View | None, ...]:
    """``np.linalg.lstsq(A, b, rcond=None)``: gelsd on Fortran copies, as NumPy calls it.  The
    solution ``x`` (``b``'s shape with ``A``'s columns for rows), the ``rank`` (an int32 scalar) and
    the singular values ``s``; the residuals are None (NumPy gives them only where the rank is
    full and ``m > n``: a shape that depends on the data)."""
    a, b, rcond = _lstsq_operands(lw, node)
    if a.rank != 2 or b.rank not in (1, 2):
        raise lw.error(node, "np.linalg.lstsq() of other than a matrix and a vector or matrix (NumPy's stacks are "
                       "not supported)", _CONSTRUCT)
    work_dtype, result = _dtype(lw, node, "lstsq", (a, b))
    if work_dtype != WORK:
        raise lw.error(node, "np.linalg.lstsq() of complex arrays is not supported (real ones are)", _CONSTRUCT)
    m, n = a.extents
    _equal(lw, node, b.extents[0], m, "lstsq")
    k = const(1) if b.rank == 1 else b.extents[1]
    work, rhs, rows = _fortran_copy_of(lw, a, m, n), _least_squares_rhs(lw, b, m, n, k), m + n
    values = lw.fresh("ls")
    lw.allocate(values, (n,), WORK)  # min(m, n) of them are written
    info, rank, cut = _scalar(lw, "info", "int64"), _scalar(lw, "rank", "int64"), _scalar(lw, "rcond", WORK)
    lw.pre.append(ast.Assign([ast.Name(cut, ast.Store())], rcond))
    _call(lw, "gelsd", "np.linalg.lstsq", work, n, info, m=m, b=rhs, b_rank=2, nrhs=k, b_cols=rows, s=values,
          rank=rank, rcond=cut)
    _raise_unless(lw, info, "SVD did not converge in Linear Least Squares")
    vtype = VType(result, False)
    if b.rank == 1:
        x = View((n,), vtype, lambda idx: _as(result, _at(rhs, (const(0), idx[0]))))
    else:
        x = View((n, k), vtype, lambda idx: _as(result, _at(rhs, (idx[1], idx[0]))))
    int32 = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "int32", ast.Load())
    rank_view = View((), VType("int32", False), lambda idx: ast.Call(int32, [ast.Name(rank, ast.Load())], []))
    singular = View((smin(m, n),), vtype, lambda idx: _as(result, _at(values, idx)))
    return x, None, rank_view, singular


# ---- qr, eigh / eigvalsh, svd (geqrf + orgqr, syevd, gesdd) ------------------------------------
_QR_JOBZ = {"reduced": "S", "complete": "A", "r": "N"}


def qr_parts(lw: Lowering, node: ast.Call) -> tuple[View, View]:
    """``np.linalg.qr(A, mode='reduced' | 'complete')``: dgeqrf on the Fortran copy, then dorgqr
    on a copy of its reflectors, as NumPy's qr; Q (``m x min(m, n)``, or ``m x m``) and R (the
    upper triangle of the factored copy, zeros below; ``min(m, n) x n``, or ``m x n``)."""
    q, r = _qr(lw, node)
    assert q is not None, "mode 'r' is one array (frontend.arrays._linalg_single)"
    return q, r


def qr_r(lw: Lowering, node: ast.Call) -> View:
    """``np.linalg.qr(A, mode='r')``: R alone (dgeqrf only)."""
    return _qr(lw, node)[1]


def _qr(lw: Lowering, node: ast.Call) -> tuple[View | None, View]:
    a, options = _options(lw, node, "qr", {"mode": "reduced"})
    mode = options["mode"]
    if mode not in _QR_JOBZ:
        raise lw.error(node, f"np.linalg.qr() mode={mode!r} (modes 'reduced', 'complete' and 'r' are supported; "
                       "NumPy raises ValueError for unknown ones)", _CONSTRUCT)
    m, n = _matrix(lw, node, "qr", a)
    result = _real_dtype(lw, node, "qr", a)
    work, info, jobz = _fortran_copy_of(lw, a, m, n), _scalar(lw, "info", "int64"), _QR_JOBZ[mode]
    k = smin(m, n)
    columns = m if jobz == "A" else k
    q = lw.fresh("lq") if jobz != "N" else ""
    if q:
        lw.allocate(q, (columns, m), WORK)
    _call(lw, "geqrf", "np.linalg.qr", work, n, info, m=m, jobz=jobz, u=q)
    _raise_unless(lw, info, "Incorrect argument found while performing QR factorization")
    vtype = VType(result, False)

    def r_element(idx: tuple[Sym, ...]) -> ast.expr:
        i, j = idx
        upper = ast.Compare(j.node, [ast.GtE()], [i.node])
        return _as(result, ast.IfExp(upper, _at(work, (j, i)), _number(0)))
    r = View((m if jobz == "A" else k, n), vtype, r_element)
    if jobz == "N":
        return None, r
    return View((m, columns), vtype, lambda idx: _as(result, _at(q, (idx[1], idx[0])))), r


def eigh_parts(lw: Lowering, node: ast.Call) -> tuple[View, View]:
    """``np.linalg.eigh(A, UPLO='L')``: dsyevd('V') on the Fortran copy, as NumPy's eigh_lo /
    eigh_up; the ascending eigenvalues and the eigenvectors (columns)."""
    w, vectors = _eigh(lw, node, "eigh", "V")
    assert vectors is not None
    return w, vectors


def eigvalsh(lw: Lowering, node: ast.Call) -> View:
    """``np.linalg.eigvalsh(A, UPLO='L')``: dsyevd('N'), as NumPy's eigvalsh_lo / eigvalsh_up
    (another algorithm than eigh's: the values may differ from eigh's in the last bits, as in NumPy)."""
    return _eigh(lw, node, "eigvalsh", "N")[0]


def _eigh(lw: Lowering, node: ast.Call, name: str, jobz: str) -> tuple[View, View | None]:
    a, options = _options(lw, node, name, {"UPLO": "L"})
    uplo = options["UPLO"]
    if not isinstance(uplo, str) or uplo.upper() not in ("L", "U"):
        raise lw.error(node, f"np.linalg.{name}() UPLO={uplo!r} (NumPy raises ValueError: UPLO argument must be "
                       "'L' or 'U')", _CONSTRUCT)
    n = _square(lw, node, name, a)
    result = _real_dtype(lw, node, name, a)
    work, info, values = _fortran_copy(lw, a, n, WORK), _scalar(lw, "info", "int64"), lw.fresh("lw")
    lw.allocate(values, (n,), WORK)
    _call(lw, "syevd", f"np.linalg.{name}", work, n, info, s=values, jobz=jobz, uplo=uplo.upper())
    _raise_unless(lw, info, "Eigenvalues did not converge")
    vtype = VType(result, False)
    w = View((n,), vtype, lambda idx: _as(result, _at(values, idx)))
    if jobz == "N":
        return w, None
    return w, View((n, n), vtype, lambda idx: _as(result, _at(work, (idx[1], idx[0]))))


def svd_parts(lw: Lowering, node: ast.Call) -> tuple[View, View, View]:
    """``np.linalg.svd(A, full_matrices=True)``: dgesdd('A' or 'S') on the Fortran copy, as
    NumPy's svd_f / svd_s; U, the descending singular values and V^H."""
    u, s, vt = _svd(lw, node, "svd")
    assert u is not None and vt is not None, "compute_uv=False is one array (frontend.arrays._linalg_single)"
    return u, s, vt


def singular_values(lw: Lowering, node: ast.Call) -> View:
    """``np.linalg.svd(A, compute_uv=False)``, ``np.linalg.svdvals(A)``: dgesdd('N')."""
    name = node.func.attr if isinstance(node.func, ast.Attribute) else "svd"
    return _svd(lw, node, name)[1]


def _svd(lw: Lowering, node: ast.Call, name: str) -> tuple[View | None, View, View | None]:
    defaults: dict[str, object] = {} if name == "svdvals" else {
        "full_matrices": True, "compute_uv": True, "hermitian": False}
    a, options = _options(lw, node, name, defaults)
    flags = dict(options)
    if any(not isinstance(value, bool) for value in flags.values()):
        raise lw.error(node, f"np.linalg.{name}() options other than True or False", _CONSTRUCT)
    if flags.get("hermitian"):
        raise lw.error(node, "np.linalg.svd(hermitian=True) (NumPy's eigh-based form) is not supported; call "
                       "np.linalg.eigh", _CONSTRUCT)
    m, n = _matrix(lw, node, name, a)
    result = _real_dtype(lw, node, name, a)
    jobz = "N" if not flags.get("compute_uv", False) else "A" if flags["full_matrices"] else "S"
    work, info, values, k = _fortran_copy_of(lw, a, m, n), _scalar(lw, "info", "int64"), lw.fresh("ls"), smin(m, n)
    lw.allocate(values, (k,), WORK)
    u, vt = (lw.fresh("lu"), lw.fresh("lv")) if jobz != "N" else ("", "")
    if jobz != "N":
        lw.allocate(u, (m if jobz == "A" else k, m), WORK)
        lw.allocate(vt, (n, n if jobz == "A" else k), WORK)
    _call(lw, "gesdd", f"np.linalg.{name}", work, n, info, m=m, s=values, jobz=jobz, u=u, vt=vt)
    _raise_unless(lw, info, "SVD did not converge")
    vtype = VType(result, False)
    s = View((k,), vtype, lambda idx: _as(result, _at(values, idx)))
    if jobz == "N":
        return None, s, None
    left = View((m, m if jobz == "A" else k), vtype, lambda idx: _as(result, _at(u, (idx[1], idx[0]))))
    right = View((n if jobz == "A" else k, n), vtype, lambda idx: _as(result, _at(vt, (idx[1], idx[0]))))
    return left, s, right


def _options(lw: Lowering, node: ast.Call, name: str, defaults: dict[str, object]) -> tuple[View, dict[str, object]]:
    """The matrix and the options of ``np.linalg.<name>(a, ...)``, each a constant (positional in
    ``defaults``' order or by keyword), ``defaults`` where not given."""
    known = ", ".join(f"{key}=" for key in defaults)
    usage = f"np.linalg.{name}() takes a matrix" + (f" and {known} (constants)" if known else "")
    if not node.args or any(isinstance(arg, ast.Starred) for arg in node.args) or len(node.args) > 1 + len(defaults):
        raise lw.error(node, usage, _CONSTRUCT)
    given = dict(zip(defaults, node.args[1:]))
    for kw in node.keywords:
        if kw.arg not in defaults or kw.arg in given:
            raise lw.error(node, usage, _CONSTRUCT)
        given[kw.arg] = kw.value
    options = dict(defaults)
    for key, value in given.items():
        if not isinstance(value, ast.Constant):
            raise lw.error(value, f"np.linalg.{name}() {key}= other than a constant ({usage})", _CONSTRUCT)
        options[key] = value.value
    lw.changed = True
    return lw.value(node.args[0]), options


def _matrix(lw: Lowering, node: ast.Call, name: str, a: View) -> tuple[Sym, Sym]:
    """The rows and columns of the matrix ``a`` (NumPy's stacks of matrices are refused)."""
    if a.rank != 2:
        what = "a stack of matrices (NumPy's batched form)" if a.rank > 2 else f"a {a.rank}-dimensional array"
        raise lw.error(node, f"np.linalg.{name}() of {what}; polyfuse runs it on single matrices (2-D arrays)",
                       _CONSTRUCT)
    return a.extents[0], a.extents[1]


def _real_dtype(lw: Lowering, node: ast.Call, name: str, a: View) -> str:
    """The result dtype of a routine polyfuse runs for real matrices only (float64 work)."""
    work, result = _dtype(lw, node, name, (a,))
    if work != WORK:
        raise lw.error(node, f"np.linalg.{name}() of complex arrays is not supported (real ones are)", _CONSTRUCT)
    return result


def _fortran_copy_of(lw: Lowering, a: View, m: Sym, n: Sym, dtype: str = WORK) -> str:
    """The ``m x n`` matrix ``a`` in a fresh ``n x m`` local: column-major for LAPACK."""
    work = lw.fresh("la")
    lw.allocate(work, (n, m), dtype)
    lw.pre.extend(lw.nest((m, n), lambda k: [ast.Assign([_store(_at(work, (k[1], k[0])))], a.element(k))]))
    return work


def _least_squares_rhs(lw: Lowering, b: View, m: Sym, n: Sym, k: Sym) -> str:
    """gelsd's right-hand sides: ``k`` columns of ``m + n`` rows (at least max(m, n): it reads
    ``b``'s ``m`` rows and writes the solution's ``n`` there), zeros below ``b``."""
    rhs = lw.fresh("lb")
    lw.allocate(rhs, (k, m + n), WORK)
    lw.pre.extend(lw.nest((k, m + n), lambda ix: [ast.Assign([_store(_at(rhs, ix))], _number(0))]))
    if b.rank == 1:
        lw.pre.extend(lw.nest((m,), lambda ix: [ast.Assign([_store(_at(rhs, (const(0), ix[0])))], b.element(ix))]))
    else:
        lw.pre.extend(lw.nest((m, k), lambda ix: [ast.Assign([_store(_at(rhs, (ix[1], ix[0])))], b.element(ix))]))
    return rhs


def _lstsq_operands(lw: Lowering, node: ast.Call) -> tuple[View, View, ast.expr]:
    """``a``, ``b`` and the float64 cut-off: ``rcond`` as given, or NumPy's default
    ``eps * max(m, n)`` (None)."""
    if any(isinstance(a, ast.Starred) for a in node.args) or not 2 <= len(node.args) <= 3 \
            or any(kw.arg != "rcond" for kw in node.keywords) or len(node.args) + len(node.keywords) > 3:
        raise lw.error(node, "np.linalg.lstsq() takes a, b and rcond=", _CONSTRUCT)
    lw.changed = True
    a, b = lw.value(node.args[0]), lw.value(node.args[1])
    given = node.args[2] if len(node.args) == 3 else node.keywords[0].value if node.keywords else None
    f64 = ast.Attribute(ast.Name(NP_NAME, ast.Load()), WORK, ast.Load())
    if given is None or (isinstance(given, ast.Constant) and given.value is None):
        if a.rank != 2:
            return a, b, ast.Constant(0.0)  # refused by the caller
        largest = ast.Call(ast.Name("max", ast.Load()), [a.extents[0].node, a.extents[1].node], [])
        eps = ast.Call(f64, [ast.Constant(float(np.finfo(np.float64).eps))], [])
        return a, b, ast.BinOp(eps, ast.Mult(), largest)
    cut = lw.value(given)
    if cut.rank or not (cut.vtype.is_float or cut.vtype.dtype.startswith("int")):
        raise lw.error(given, "np.linalg.lstsq() rcond= must be a real number or None", _CONSTRUCT)
    return a, b, ast.Call(f64, [cut.element(())], [])


def _operands(lw: Lowering, node: ast.Call, name: str) -> list[View]:
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        raise lw.error(node, f"np.linalg.{name}() with keyword or starred arguments", _CONSTRUCT)
    arity = 2 if name == "solve" else 1
    if len(node.args) != arity:
        raise lw.error(node, f"np.linalg.{name}() takes {arity} array{'s' if arity > 1 else ''}", _CONSTRUCT)
    lw.changed = True
    return [lw.value(a) for a in node.args]


# ---- the routines --------------------------------------------------------------------------
def cholesky(lw: Lowering, node: ast.Call, a: View) -> View:
    """potrf('L') on the Fortran copy; the lower factor, zeros above the diagonal."""
    n, (dtype, result) = _square(lw, node, "cholesky", a), _dtype(lw, node, "cholesky", (a,))
    work = _fortran_copy(lw, a, n, dtype)
    info = _scalar(lw, "info", "int64")
    _call(lw, "potrf", "np.linalg.cholesky", work, n, info, dtype=dtype)
    _raise_unless(lw, info, "Matrix is not positive definite")

    def element(idx: tuple[Sym, ...]) -> ast.expr:
        i, j = idx
        below = ast.Compare(j.node, [ast.LtE()], [i.node])
        return _as(result, ast.IfExp(below, _at(work, (j, i)), _number(0, dtype)), dtype)
    return View((n, n), VType(result, False), element)


def inv(lw: Lowering, node: ast.Call, a: View) -> View:
    """gesv with the identity as right-hand sides, as NumPy's inv."""
    n, (dtype, result) = _square(lw, node, "inv", a), _dtype(lw, node, "inv", (a,))
    work = _fortran_copy(lw, a, n, dtype)
    rhs = lw.fresh("lb")
    lw.allocate(rhs, (n, n), dtype)
    lw.pre.extend(lw.nest((n, n), lambda k: [ast.Assign([_store(_at(rhs, k))], ast.IfExp(
        ast.Compare(k[0].node, [ast.Eq()], [k[1].node]), _number(1, dtype), _number(0, dtype)))]))
    return _gesv(lw, "np.linalg.inv", (dtype, result), work, n, rhs, 2, n)


def solve(lw: Lowering, node: ast.Call, a: View, b: View) -> View:
    """gesv of ``a`` and ``b``: a vector (NumPy 2's rule for 1-D ``b``) or columns of right-hand sides."""
    n, (dtype, result) = _square(lw, node, "solve", a), _dtype(lw, node, "solve", (a, b))
    if b.rank not in (1, 2):
        raise lw.error(node, f"np.linalg.solve() with b of rank {b.rank} (a vector or a matrix is supported; "
                       "NumPy's stacks of matrices are not)", _CONSTRUCT)
    _equal(lw, node, b.extents[0], n, "solve")
    work = _fortran_copy(lw, a, n, dtype)
    rhs = lw.fresh("lb")
    if b.rank == 1:
        lw.allocate(rhs, (n,), dtype)
        lw.pre.extend(lw.nest((n,), lambda k: [ast.Assign([_store(_at(rhs, k))], b.element(k))]))
        return _gesv(lw, "np.linalg.solve", (dtype, result), work, n, rhs, 1, const(1))
    k = b.extents[1]
    lw.allocate(rhs, (k, n), dtype)
    lw.pre.extend(lw.nest((n, k), lambda ix: [ast.Assign([_store(_at(rhs, (ix[1], ix[0])))], b.element(ix))]))
    return _gesv(lw, "np.linalg.solve", (dtype, result), work, n, rhs, 2, k)


def det(lw: Lowering, node: ast.Call, a: View) -> View:
    """NumPy's det: getrf, then ``sign * exp(logdet)`` of the factored diagonal (its slogdet);
    a singular matrix gives 0 (no error).  A complex sign times the real exp is the complex
    product with ``exp + 0j``, as NumPy's det_from_slogdet multiplies."""
    sign, logdet, (work, result) = _slogdet(lw, node, "np.linalg.det", a)
    exp = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "exp", ast.Load())

    def element(idx: tuple[Sym, ...]) -> ast.expr:
        return _as(result, ast.BinOp(ast.Name(sign, ast.Load()), ast.Mult(),
                                     ast.Call(exp, [ast.Name(logdet, ast.Load())], [])), work)
    return View((), VType(result, False), element)


def _slogdet(lw: Lowering, node: ast.Call, call: str, a: View) -> tuple[str, str, tuple[str, str]]:
    """getrf on the Fortran copy of ``a``: the locals holding NumPy's sign (of the computation
    dtype: complex for a complex matrix) and logdet (float64), and the (computation, result) dtypes."""
    name = call.rsplit(".", 1)[1]
    n, (dtype, result) = _square(lw, node, name, a), _dtype(lw, node, name, (a,))
    work = _fortran_copy(lw, a, n, dtype)
    pivots = _pivots(lw, n)
    info, sign, logdet = _scalar(lw, "info", "int64"), _scalar(lw, "sign", dtype), _scalar(lw, "logdet", WORK)
    _call(lw, "getrf", call, work, n, info, dtype=dtype, pivots=pivots, sign=sign, logdet=logdet)
    return sign, logdet, (dtype, result)


_RULES: dict[str, Callable[..., View]] = {"cholesky": cholesky, "inv": inv, "solve": solve, "det": det}
_SINGLE_RULES: dict[str, Callable[[Lowering, ast.Call], View]] = {
    "qr": qr_r, "eigvalsh": eigvalsh, "svd": singular_values, "svdvals": singular_values}
_PARTS: dict[str, Callable[[Lowering, ast.Call], tuple[View | None, ...]]] = {
    "slogdet": slogdet_parts, "lstsq": lstsq_parts, "qr": qr_parts, "eigh": eigh_parts, "svd": svd_parts}


# ---- helpers -------------------------------------------------------------------------------
def _square(lw: Lowering, node: ast.Call, name: str, a: View) -> Sym:
    """The order of the square matrix ``a`` (a call where it is not square raises ValueError)."""
    rows, cols = _matrix(lw, node, name, a)
    _equal(lw, node, rows, cols, name)
    return rows


def _equal(lw: Lowering, node: ast.Call, a: Sym, b: Sym, name: str) -> None:
    """Extents NumPy requires equal: a compile-time error where both are constants, else assumed
    (and checked per call: ValueError, as NumPy's LinAlgError is one)."""
    if a.text == b.text:
        return
    if a.is_const() and b.is_const():
        raise lw.error(node, f"np.linalg.{name}(): the shapes do not fit (an axis of size {a.const} meets one of "
                       f"size {b.const}; NumPy raises LinAlgError or ValueError)", _CONSTRUCT)
    lw.mismatch(a, b, node)


def _dtype(lw: Lowering, node: ast.Call, name: str, views: tuple[View, ...]) -> tuple[str, str]:
    """NumPy's computation and result dtypes (np.linalg's _commonType): complex128 where an
    operand is complex, else float64 (integers and bools convert); the result is the single
    precision one (complex64, float32) where every operand is float32 or complex64."""
    dtypes = [v.vtype.dtype for v in views]
    for v, dtype in zip(views, dtypes):
        if v.vtype is UNKNOWN or dtype == "unknown":
            if lw.final:
                raise lw.error(node, f"np.linalg.{name}(): cannot tell the dtype of an operand here", _CONSTRUCT)
            return WORK, WORK
        if dtype == "float16":
            raise lw.error(node, f"np.linalg.{name}() of float16 (NumPy raises TypeError: unsupported in linalg)",
                           _CONSTRUCT)
        if v.vtype.weak and v.rank:
            raise lw.error(node, f"np.linalg.{name}() of an array of Python numbers", _CONSTRUCT)
    work = COMPLEX_WORK if any(d.startswith("complex") for d in dtypes) else WORK
    return work, _SINGLE[work] if all(d in ("float32", "complex64") for d in dtypes) else work


def _fortran_copy(lw: Lowering, a: View, n: Sym, dtype: str) -> str:
    """``a``'s values in a fresh local of the computation ``dtype``, transposed: column-major for
    LAPACK (NumPy's linearize).  LAPACK overwrites it, never the operand."""
    return _fortran_copy_of(lw, a, n, n, dtype)


def _gesv(lw: Lowering, call: str, dtypes: tuple[str, str], work: str, n: Sym, rhs: str, rank: int,
          nrhs: Sym) -> View:
    """gesv on ``work`` and ``rhs`` (of the computation dtype); the solution, read back in
    row-major order as the result dtype."""
    dtype, result = dtypes
    info = _scalar(lw, "info", "int64")
    _call(lw, "gesv", call, work, n, info, dtype=dtype, b=rhs, b_rank=rank, nrhs=nrhs, pivots=_pivots(lw, n))
    _raise_unless(lw, info, "Singular matrix")
    if rank == 1:
        return View((n,), VType(result, False), lambda idx: _as(result, _at(rhs, idx), dtype))
    return View((n, nrhs), VType(result, False), lambda idx: _as(result, _at(rhs, (idx[1], idx[0])), dtype))


def _pivots(lw: Lowering, n: Sym) -> str:
    pivots = lw.fresh("lp")
    lw.allocate(pivots, (n,), "int64")  # LAPACK's INTEGER is 32- or 64-bit: the backend widens 32-bit ones
    return pivots


def _scalar(lw: Lowering, stem: str, dtype: str) -> str:
    """A scalar local the routine writes, set at the top of the kernel (so it has its type on
    every path)."""
    name = lw.fresh(stem)
    zero = ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load()), [ast.Constant(0)], [])
    lw.allocate_at_top(ast.Assign([ast.Name(name, ast.Store())], zero))
    lw.note_scalar(name, VType(dtype, False))
    return name


def _call(lw: Lowering, routine: str, call: str, a: str, n: Sym, info: str, *, dtype: str = WORK,
          m: Sym | None = None, b: str = "", b_rank: int = 0, nrhs: Sym | None = None, b_cols: Sym | None = None,
          jobz: str = "", uplo: str = "", **names: str) -> None:
    """The ``LAPACK_CALL`` statement (read by frontend.opaque.lapack_parts): constants, buffer and
    scalar names (pivots, sign, logdet, s, rank, rcond), and sizes as keywords.  ``a`` is
    ``n x m`` row-major (``m``: ``n`` by default), ``b`` ``nrhs x b_cols`` (``b_cols``: ``n``)."""
    sizes = {"n": n, "m": m or n, "nrhs": nrhs or const(1), "b_cols": b_cols or n}
    values: dict[str, ast.expr] = {"routine": ast.Constant(routine), "call": ast.Constant(call),
                                   "dtype": ast.Constant(dtype), "b_rank": ast.Constant(b_rank)}
    values.update({key: ast.Constant(flag) for key, flag in {"jobz": jobz, "uplo": uplo}.items() if flag})
    values.update({key: size.node for key, size in sizes.items()})
    values.update({key: ast.Name(value, ast.Load()) for key, value in {"a": a, "b": b, "info": info, **names}.items()
                   if value})
    keywords = [ast.keyword(key, value) for key, value in values.items()]
    lw.pre.append(ast.Expr(ast.Call(ast.Name(LAPACK_CALL, ast.Load()), [], keywords)))


def _raise_unless(lw: Lowering, info: str, message: str) -> None:
    """NumPy's LinAlgError(message) where LAPACK's info is not 0, raised by the kernel call."""
    test = ast.Compare(ast.Name(info, ast.Load()), [ast.Eq()], [ast.Constant(0)])
    lw.pre.append(ast.Assert(test, ast.Tuple([ast.Constant("LinAlgError"), ast.Constant(message)], ast.Load())))


def _at(array: str, idx: tuple[Sym, ...]) -> ast.Subscript:
    items = [i.node for i in idx]
    index = items[0] if len(items) == 1 else ast.Tuple(items, ast.Load())
    return ast.Subscript(ast.Name(array, ast.Load()), index, ast.Load())


def _number(value: int, dtype: str = WORK) -> ast.expr:
    return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load()), [ast.Constant(value)], [])


def _as(result: str, element: ast.expr, work: str = WORK) -> ast.expr:
    """A value of the buffers (of the computation dtype ``work``) as the result dtype (NumPy's
    final astype)."""
    if result == work:
        return element
    return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), result, ast.Load()), [element], [])


__all__ = ["linalg_parts", "lower_linalg"]
