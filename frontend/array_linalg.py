"""Matrix products in NumPy array statements: ``@``, np.matmul, np.dot, np.inner, np.outer, np.einsum.

Called by :class:`frontend.arrays.Lowering` for those operators and calls (frontend.lift hands
:func:`lower_product` to it, so that this module can build on arrays.py without a circle).  Each product is
first written as a :class:`Contraction`: every operand axis gets a label, the result keeps some
labels and sums over the others (``A @ B`` is ``ik,kj->ij``).  A contraction with labels to sum
becomes a reduction in ``pre``, the pattern of the axis reductions::

    y[:] = A @ x + b     ->   for pf_i1 in range(A.shape[0]):
                                  pf_mm3[pf_i1] = 0
                              for pf_i1 in range(A.shape[0]):
                                  for pf_i2 in range(A.shape[1]):
                                      pf_mm3[pf_i1] = pf_mm3[pf_i1] + A[pf_i1, pf_i2] * x[pf_i2]
                              for pf_i4 in range(y.shape[0]):
                                  y[pf_i4] = pf_mm3[pf_i4] + b[pf_i4]

so the scheduler sees the product as ordinary statements to fuse with its producers and
consumers, reorder and tile.  A product with nothing to sum (np.outer, ``ij->ji``) is an
element-wise value, computed where it is used.  A product to a scalar (``x @ y`` of two vectors)
accumulates into a scalar local.  The sum runs in index order, not in BLAS's blocked order, so
float results differ from NumPy's in the last bits.  Shapes follow NumPy's rules; extents that
must be equal are checked at compile time where they are constants and otherwise assumed in
the Scop's context and checked per call (``Lowering.mismatch``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from .arrays import NP_NAME, UNKNOWN, Lowering, Sym, View, _store, const, leaf, scalar
from .checker import module_of
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
    broadcast: frozenset[str] = frozenset()


# ---- entry point ------------------------------------------------------------------------------
def lower_product(lw: Lowering, node: ast.expr) -> View | None:
    """The value of ``a @ b`` or of a product call (np.dot(...) and friends, ``a.dot(b)``,
    ``dot(...)`` imported from numpy); None for any other node."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        lw.changed = True
        return matmul(lw, node, lw.value(node.left), lw.value(node.right))
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name not in PRODUCTS:
        return None
    numpy_module = isinstance(func, ast.Attribute) and _is_numpy(func.value, lw)
    if isinstance(func, ast.Name):
        if lw.globals.get(func.id) is not getattr(np, name):
            return None
    elif not numpy_module and name != "dot":
        return None
    lw.changed = True
    method = isinstance(func, ast.Attribute) and not numpy_module
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
    a, b = lw.value(exprs[0]), lw.value(exprs[1])
    return {"dot": dot, "matmul": matmul, "vdot": vdot, "inner": inner, "outer": outer}[name](lw, node, a, b)


def _is_numpy(node: ast.expr, lw: Lowering) -> bool:
    return module_of(node, lw.globals) == "np"


# ---- NumPy's shape rules, as contractions -----------------------------------------------------
def matmul(lw: Lowering, node: ast.AST, a: View, b: View) -> View:
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
    return contract(lw, node, Contraction((a, b), (la, lb), out, frozenset(names)), "np.matmul")


def dot(lw: Lowering, node: ast.AST, a: View, b: View) -> View:
    """np.dot: a product with a scalar is ``*``; otherwise a sum over the last axis of ``a`` and
    the second-to-last of ``b`` (its only one when ``b`` is a vector); no broadcasting."""
    if a.rank == 0 or b.rank == 0:
        return lw.binop(node, ast.Mult(), a, b)
    la = tuple(f"a{d}" for d in range(a.rank - 1)) + ("k",)
    lb = tuple(f"c{d}" for d in range(b.rank))
    lb = lb[:-2] + ("k",) + lb[-1:] if b.rank >= 2 else ("k",)
    out = la[:-1] + tuple(lab for lab in lb if lab != "k")
    return contract(lw, node, Contraction((a, b), (la, lb), out), "np.dot")


def inner(lw: Lowering, node: ast.AST, a: View, b: View) -> View:
    """np.inner: a sum over the last axes of both; a product with a scalar is ``*``."""
    if a.rank == 0 or b.rank == 0:
        return lw.binop(node, ast.Mult(), a, b)
    la = tuple(f"a{d}" for d in range(a.rank - 1)) + ("k",)
    lb = tuple(f"c{d}" for d in range(b.rank - 1)) + ("k",)
    return contract(lw, node, Contraction((a, b), (la, lb), la[:-1] + lb[:-1]), "np.inner")


def vdot(lw: Lowering, node: ast.AST, a: View, b: View) -> View:
    """np.vdot of two vectors (real: their inner product); NumPy flattens other ranks first."""
    if a.rank != 1 or b.rank != 1:
        raise lw.error(node, "np.vdot() of other than two vectors (NumPy flattens them; polyfuse does not "
                       "reshape); use np.dot or np.einsum", _CONSTRUCT)
    return inner(lw, node, a, b)


def outer(lw: Lowering, node: ast.AST, a: View, b: View) -> View:
    """np.outer of vectors (and scalars, which NumPy flattens to one element): ``a[:, None] * b``."""
    if a.rank > 1 or b.rank > 1:
        raise lw.error(node, "np.outer() of an array of rank > 1 (NumPy flattens it; polyfuse does not "
                       "reshape); index the vectors or use np.einsum", _CONSTRUCT)
    _check_operands(lw, node, (a, b), "np.outer")
    column = View((_first(a),), _strong(a.vtype), lambda idx: a.element(idx[:a.rank]), a.base)
    row = View((_first(b),), _strong(b.vtype), lambda idx: b.element(idx[:b.rank]), b.base)
    return contract(lw, node, Contraction((column, row), (("i",), ("j",)), ("i", "j")), "np.outer")


def _first(v: View) -> Sym:
    return v.extents[0] if v.rank else const(1)


def _strong(t: VType) -> VType:
    return t if t is UNKNOWN else VType(t.dtype, False)


# ---- einsum -----------------------------------------------------------------------------------
def einsum(lw: Lowering, node: ast.Call, exprs: list[ast.expr]) -> View:
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
    return contract(lw, node, Contraction(views, labels, out, every), "np.einsum")


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
def contract(lw: Lowering, node: ast.AST, c: Contraction, what: str) -> View:
    """The value of ``c``: element-wise when nothing is summed, else a reduction into a fresh
    scalar local or array (filled in ``lw.pre``)."""
    vtype = _check_operands(lw, node, c.operands, what)
    extents = _extents(lw, node, c, what)
    summed = tuple(dict.fromkeys(lab for labs in c.labels for lab in labs if lab not in c.output))
    out_extents = tuple(extents[lab] for lab in c.output)

    def term(at: dict[str, Sym]) -> ast.expr:
        parts = [v.element(tuple(_at(v.extents[d], extents[lab], at[lab]) for d, lab in enumerate(labs)))
                 for v, labs in zip(c.operands, c.labels)]
        value = parts[0]
        for part in parts[1:]:
            value = ast.BinOp(value, ast.Mult(), part)
        return value

    if not summed:
        return View(out_extents, vtype, lambda idx: term(dict(zip(c.output, idx))))
    dtype = lw.temp_dtype(node, View(out_extents, vtype, lambda idx: ast.Constant(0)))
    sums = tuple(extents[lab] for lab in summed)
    if not c.output:
        return _scalar_sum(lw, dtype, sums, lambda k: term(dict(zip(summed, k))))
    array = lw.fresh("mm")
    lw.allocate(array, out_extents, dtype)
    result = leaf(array, out_extents, dtype)
    lw.pre.extend(lw.nest(out_extents, lambda k: [ast.Assign([_store(result.element(k))], ast.Constant(0))]))

    def accumulate(k: tuple[Sym, ...]) -> list[ast.stmt]:
        at = dict(zip(c.output + summed, k))
        target = result.element(k[:len(c.output)])
        return [ast.Assign([_store(target)], ast.BinOp(result.element(k[:len(c.output)]), ast.Add(), term(at)))]
    lw.pre.extend(lw.nest(out_extents + sums, accumulate))
    return result


def _scalar_sum(lw: Lowering, dtype: str, sums: tuple[Sym, ...], term) -> View:
    """``acc = <dtype>(0); for ...: acc = acc + term``: a scalar local of the result's dtype."""
    acc = lw.fresh("mm")
    zero = ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load()), [ast.Constant(0)], [])
    lw.pre.append(ast.Assign([ast.Name(acc, ast.Store())], zero))
    lw.pre.extend(lw.nest(sums, lambda k: [ast.Assign(
        [ast.Name(acc, ast.Store())], ast.BinOp(ast.Name(acc, ast.Load()), ast.Add(), term(k)))]))
    vtype = VType(dtype, False)
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


def _extents(lw: Lowering, node: ast.AST, c: Contraction, what: str) -> dict[str, Sym]:
    """Each label's extent; equal extents assumed (or a compile-time error when both are
    constants), size 1 broadcasting only for labels in ``c.broadcast``."""
    found: dict[str, Sym] = {}
    for view, labs in zip(c.operands, c.labels):
        own: dict[str, Sym] = {}
        for extent, lab in zip(view.extents, labs):
            if lab in own:  # a diagonal: equal within the operand, never broadcast
                _join(lw, node, own[lab], extent, False, what)
            own.setdefault(lab, extent)
            found[lab] = _join(lw, node, found[lab], extent, lab in c.broadcast, what) if lab in found else extent
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


__all__ = ["Contraction", "contract", "lower_product"]
