"""Matrix products written as loops, run as one BLAS call (issue 15: "BLAS where it wins").

PolyBench's ``C[i, j] += alpha * A[i, k] * B[k, j]`` over a box of ``(i, k, j)`` is a GEMM: a
library's packed, cache-blocked kernel runs it about twice as fast as our register tiles at large
sizes.  The statement becomes one kept-whole statement (model/region.py ``Matmul`` with
``accumulate`` and ``alpha``: ``C += alpha * A @ B``), placed after the statements of its loop
nest that feed it (PolyBench's ``C[i, j] *= beta`` in the same ``i`` loop) and before the rest (an
epilogue ``D[i, j] = max(C[i, j] + b[j], 0)``), each part keeping the nest's loops, which still
fuse.  Legal when that order respects isl's dependences of the program as written: none from
the product or the rest back to the feeders, none from the rest to the product.  The backend tests the layout per call and runs the
statement's own loops where BLAS cannot (model/region.py ``Matmul.loops``).

What changes is the order of each element's sum (BLAS blocks the depth and multiplies by alpha
once), so results differ from the loops' in the last bits, as NumPy's ``@`` does; ``blas=False``
keeps the loops.  A square's triangle (syrk's ``for j in range(i + 1)``) is a product too
(``Matmul.triangle``): the backend runs ``?syrk`` on it where the operands are one matrix and its
transpose, else its loops; syr2k's pair ``x[r, s] * y[c, s] + y[r, s] * x[c, s]`` on a triangle
is one product too (``Matmul.pair``: ``?syr2k``); so is correlation's triangle without its
diagonal (``range(i + 1, m)``: ``Matmul.offset``, ``?syrk`` with the diagonal kept) and trmm's
product in place, ``B[i, j] += A[k, i] * B[k, j]`` over ``k > i`` (``Matmul.in_place``:
``?trmm``, where no write of the statement reaches its reads of the other rows).  A product over more loops, which ``out`` and one operand share (``C[b, i, j] += A[b, i, k] * B[k, j]``), is a
stack of products (``Matmul.batch``), over a box; a kernel-local temporary that one such product fills
row by row is grown first (schedule/product_temporaries.py: doitgen).  A matrix times a vector
over two loops (``y[i] += A[i, j] * x[j]``, ``s[j] += r[i] * A[i, j]``: ``Matmul`` with an extent-1
``cols`` or ``rows``, ``?gemv``) qualifies only where no other statement of the program reads its
matrix (gesummv's ``A x`` and ``B x``): where one does (atax, bicg, mvt) the loops fuse into one
pass over the matrix, which library calls would split into two.  Our loops keep each row's sum in
order, so they load one element per row and step (no vector loads along the row): gesummv on BLAS
took 1.85-2.0 ms against 2.46-2.56 ms for its fused loops (n = 1900, 2 threads, load 3.2-3.6).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import islpy as isl

from polyfuse import options
from polyfuse.analysis.dependences import (
    Dependences,
    compute_dependences,
    dependences_after_rewrite,
    flow,
    on_array,
)
from polyfuse.model import ir
from polyfuse.model import region as rg
from polyfuse.model.isl_expr import expr_from_isl
from polyfuse.model.isl_parts import maps_of
from polyfuse.model.schedule_tree import LoopMember, LoopNode, StmtNode, TreeNode
from polyfuse.model.scop import ArrayInfo, Scop, Statement, isl_name
from polyfuse.schedule import product_temporaries as temporaries
from polyfuse.schedule.expansion import isl_text

_REALS = ("float64", "float32")


@dataclass(frozen=True)
class ProductDecision:
    """One loop statement recognised as a matrix product, and where its call runs."""

    statement: str
    line: int
    product: str  # "C += alpha * A @ B (C__shape0 x A__shape1 @ A__shape1 x C__shape1)"
    placed: str  # "before" or "after" the rest of its loop nest, or "between" the parts that feed it and the
    # rest; "with S2": run as a part of S2's product (``fold_mirrors``)
    temporary: str = ""  # "acc grown to ... (a row per iteration of r, q)": product_temporaries' growth
    zeroed: str = ""  # "S0 (line 217)": the statement zeroing ``out`` that the product took over (beta = 0)
    scaled: str = ""  # "S6 (line 324)": the statement scaling ``out`` after it that the product took over (alpha)
    mirror: str = ""  # "S1 (line 278)": the product reading the same triangle transposed, run with this one


@dataclass(frozen=True)
class _Match:
    """``out[...] += scale * a[...] * b[...]`` with the roles of the three loop variables."""

    out: rg.Operand
    a: rg.Operand
    b: rg.Operand
    term: ir.Expr
    scale: tuple[ir.Expr, ...]  # the loop-invariant factors (alpha)
    variables: tuple[str, str, str]  # r (rows of out), c (columns of out), s (the sum)
    pair: bool = False  # term is scale * (a[r, s] * b[c, s] + b[r, s] * a[c, s]): syr2k's
    in_place: str = ""  # "left": b is out's own rows (out[s, c]), "right": a is out's own columns (out[r, s])
    batch: tuple[str, ...] = ()  # the loops of a stack of products (out and one operand use them), outermost first
    vector: str = ""  # a matrix times a vector over two loops: the name given to the missing r or c (extent 1)


def lift_loop_products(scop: Scop, deps: Dependences) -> tuple[Scop, Dependences, tuple[ProductDecision, ...]]:
    """``scop`` with every qualifying product statement kept whole, its dependences, and what
    was done; first with the temporaries that make a row product a stack of them grown
    (schedule/product_temporaries.py), each growth kept only where its product then lifts; then
    each statement that only zeroes what a product then adds to taken over by the product
    (:func:`fold_zeroing`); last, two products that read one triangle as stored and transposed
    made one product of its symmetric matrix (:func:`fold_mirrors`); and a statement that then
    only scales what a product wrote taken over as its alpha (:func:`fold_scales`)."""
    lifted, lifted_deps, decisions = _lift_grown(scop, deps)
    return fold_scales(*fold_mirrors(*fold_zeroing(lifted, lifted_deps, decisions)))


def _lift_grown(scop: Scop, deps: Dependences) -> tuple[Scop, Dependences, tuple[ProductDecision, ...]]:
    growths = temporaries.candidates(scop, _match)
    while growths:
        grown: Scop | None = scop
        for growth in growths:
            grown = None if grown is None else temporaries.grow(grown, growth)
        if grown is None:
            break  # each alone was legal, together they are not: none (rare; no search)
        lifted, lifted_deps, decisions = _lift_all(grown, compute_dependences(grown))
        done = {d.statement for d in decisions}
        kept = [g for g in growths if g.statement in done]
        if len(kept) == len(growths):
            notes = {g.statement: g.describe(grown) for g in growths}
            return lifted, lifted_deps, tuple(dataclasses.replace(d, temporary=notes.get(d.statement, ""))
                                              for d in decisions)
        growths = kept
    return _lift_all(scop, deps)


def fold_zeroing(scop: Scop, deps: Dependences, decisions: tuple[ProductDecision, ...]
                 ) -> tuple[Scop, Dependences, tuple[ProductDecision, ...]]:
    """Each product kept whole that adds to an array a statement before it set to zero (gesummv's
    ``tmp[i] = 0.0`` before ``tmp += A @ x``, doitgen's grown ``acc``, 3mm's ``E[i, j] = 0.0``)
    writes it instead (BLAS's beta = 0; its loops zero each row first), and the zeroing goes: one
    pass over ``out`` fewer.  Legal where the zeroing writes exactly the elements the product
    writes (isl: the same set for every value of the parameters, so also none where the product
    runs no iteration), runs before it (an earlier node of the program's top level), and no
    dependence leads from it to any statement but the product (nothing reads its zeros or writes
    ``out`` in between).  Where the zeroing writes the product's ``rows x cols`` box (a triangle
    product's triangle of it: covariance's ``cov[i, j] = 0.0`` for ``j >= i`` before its ?syrk)
    also when the product's depth is empty (3mm's zeroing runs for ``nk = 0``, its product not),
    the product is widened to run there too and write that box (:func:`_widened_folds`).  The sums
    are the same; only the first addition ``0.0 + term`` is gone."""
    if not options.blas_beta_zero():
        return scop, deps, decisions
    scop, deps, folds = _widened_folds(scop, deps, _zero_folds(scop, deps))
    if not folds:
        return scop, deps, decisions
    notes: dict[str, str] = {}
    for product, zero in folds:  # each on its own array: the others' dependences stay as they were
        scop = _without_zeroing(scop, scop.statement(product), zero)
        notes[product] = f"{zero.name} (line {zero.span.line})"
    # (the zeroing accessed only its out, and the product's other accesses stay)
    deps = dependences_after_rewrite(scop, deps, frozenset(zero.array for _, zero in folds))
    return scop, deps, tuple(d if d.statement not in notes else dataclasses.replace(
        d, zeroed=notes[d.statement], product=_product_of(scop.statement(d.statement)).describe()) for d in decisions)


def fold_mirrors(scop: Scop, deps: Dependences, decisions: tuple[ProductDecision, ...]
                 ) -> tuple[Scop, Dependences, tuple[ProductDecision, ...]]:
    """Two kept-whole products next to each other at the program's top level that read one
    operand's strict triangle, one as stored and one transposed (``Matmul.triangular`` of opposite
    ``factor``: symm's ``A[i, k]`` for ``k < i`` as ``T`` and as ``T.T``), into the same ``out``
    with the same other operand, scale and extents, over the same parameter domain: one product
    ``out += alpha * G @ (T + T.T)`` (``Matmul.mirror``), which the backend runs as one ``?symm``
    on a copy of the triangle with a zero diagonal, instead of two ``?trmm`` on copies of both
    operands added into ``out`` one after the other.  Legal because nothing runs between them
    and both only add to ``out``, which neither reads otherwise: the sums are the same, in another
    order (BLAS's, as for each product alone)."""
    if not options.blas_symm():
        return scop, deps, decisions
    merged: dict[str, str] = {}  # the second statement -> the first
    for first, second in zip(scop.body, scop.body[1:]):
        if not (isinstance(first, StmtNode) and isinstance(second, StmtNode)) or first.name in merged:
            continue
        one, two = scop.statement(first.name), scop.statement(second.name)
        ops = [_single_product(s) for s in (one, two)]
        if ops[0] is None or ops[1] is None or not one.domain.is_equal(two.domain.set_tuple_name(one.name)):
            continue
        if _mirrors(ops[0], ops[1]):
            scop = _with_mirror(scop, one, two, dataclasses.replace(ops[0], mirror=ops[1]))
            merged[two.name] = one.name
    if not merged:
        return scop, deps, decisions
    described = {d.statement: d for d in decisions}
    notes = {first: f"{second} (line {described[second].line})" for second, first in merged.items()
             if second in described}
    return scop, compute_dependences(scop), tuple(
        dataclasses.replace(d, mirror=notes.get(d.statement, ""),
                            product=_product_of(scop.statement(d.statement)).describe())
        if d.statement not in merged else dataclasses.replace(d, placed=f"with {merged[d.statement]}")
        for d in decisions)


_SCALED = "_pf_scaled_"  # + the product's name: the scalar its loops sum into where alpha is not plain


def fold_scales(scop: Scop, deps: Dependences, decisions: tuple[ProductDecision, ...]
                ) -> tuple[Scop, Dependences, tuple[ProductDecision, ...]]:
    """Each product kept whole that writes its elements (beta = 0: its zeroing folded, no alpha)
    and is then scaled by a statement that only multiplies or divides each of those elements by
    a loop-invariant factor (covariance's ``cov[i, j] /= float_n - 1.0`` after its ``?syrk``)
    takes the factor as its alpha (``1 / f`` for a division: BLAS's ``C = alpha A B``), and the
    scaling goes: one pass over ``out`` fewer.  Legal where the scaling writes exactly the
    elements the product writes, each once (its subscripts are its own iterators), runs after it
    (a later node of the top level), reads only the element it writes, parameters and scalar
    arguments, and no dependence leads from the product to any other statement (nothing reads or
    writes ``out`` in between).  Where alpha is 0 or not finite (``f`` an inf, a zero or
    subnormal), the product's loops sum each element and scale the sum as the user wrote it
    (``Matmul.summed``); elsewhere the result differs from the user's in the last bits, as the
    product's own sums do."""
    if not options.blas_scale_fold():
        return scop, deps, decisions
    folds = _scale_folds(scop, deps)
    if not folds:
        return scop, deps, decisions
    notes: dict[str, str] = {}
    for product, scaling, (operator, factor, first) in folds:
        scop = _with_scale(scop, scop.statement(product), scaling, operator, factor, first)
        notes[product] = f"{scaling.name} (line {scaling.span.line})"
    # (a scaling accesses only its out; the product's own accesses stay as they were)
    deps = dependences_after_rewrite(scop, deps, frozenset(scaling.array for _, scaling, _ in folds))
    return scop, deps, tuple(d if d.statement not in notes else dataclasses.replace(
        d, scaled=notes[d.statement], product=_product_of(scop.statement(d.statement)).describe()) for d in decisions)


def _scale_folds(scop: Scop, deps: Dependences) -> list[tuple[str, Statement, tuple[str, ir.Expr, bool]]]:
    """(product, scaling statement, its operator, factor and whether the factor comes first) of
    each fold :func:`fold_scales` may make, each on an array of its own."""
    folds: list[tuple[str, Statement, tuple[str, ir.Expr, bool]]] = []
    arrays: set[str] = set()
    names = {s.name for s in scop.statements}
    for at, node in enumerate(scop.body):
        if not isinstance(node, StmtNode):
            continue
        stmt = scop.statement(node.name)
        op = _single_product(stmt)
        if (op is None or op.accumulate or op.alpha is not None or op.summed is not None or op.pair
                or op.batch or op.in_place or op.triangular or op.mirror is not None or op.check is not None
                or op.dtype not in _REALS or op.out.array in arrays):
            continue
        array = isl_name(op.out.array)
        written = on_array(stmt.writes, array).range()
        later = {name for after in scop.body[at + 1:] for name in _names(after)}
        for scaling in scop.statements:
            form = _scaling(scaling, op) if scaling.name in later else None
            if (form is not None and not deps.between({stmt.name}, names - {stmt.name, scaling.name})
                    and on_array(scaling.writes, array).range().is_equal(written)):
                folds.append((stmt.name, scaling, form))
                arrays.add(op.out.array)
                break
    return folds


def _scaling(stmt: Statement, op: rg.Matmul) -> tuple[str, ir.Expr, bool] | None:
    """(operator, factor, factor first) where ``stmt`` is ``out[v...] = out[v...] * f`` (or
    ``f * out[...]``, ``out[...] / f``) with ``v...`` its own iterators, each once, and ``f`` of
    ``op``'s dtype reading no array and no iterator; else None."""
    value = stmt.value
    if (stmt.region is not None or stmt.summed is not None or stmt.array != op.out.array
            or not isinstance(value, ir.BinOp) or value.op not in ("*", "/") or value.dtype != op.dtype):
        return None
    own = ir.Load(stmt.array, stmt.index, op.dtype)
    subscripts = [i.name for i in stmt.index if isinstance(i, ir.Var)]
    if len(subscripts) != len(stmt.index) or sorted(subscripts) != sorted(stmt.iterators):
        return None
    first = value.op == "*" and _same_load(value.rhs, own)
    factor = value.lhs if first else value.rhs
    if not (first or _same_load(value.lhs, own)) or factor.dtype != op.dtype:
        return None
    if any(isinstance(e, ir.Load) or (isinstance(e, ir.Var) and e.name in stmt.iterators) for e in ir.walk(factor)):
        return None
    return value.op, factor, first


def _same_load(expr: ir.Expr, load: ir.Load) -> bool:
    return isinstance(expr, ir.Load) and expr.array == load.array and expr.index == load.index


def _with_scale(scop: Scop, product: Statement, scaling: Statement, operator: str, factor: ir.Expr,
                first: bool) -> Scop:
    """``scop`` without ``scaling``, ``product`` writing ``out`` times ``factor`` (divided by it):
    alpha ``f`` (``1 / f``) on BLAS and in its plain loops, the user's sum then scaled where
    alpha is 0 or not finite."""
    assert product.region is not None
    op = _product_of(product)
    dtype = op.dtype
    alpha = factor if operator == "*" else ir.BinOp("/", ir.Const(1.0, dtype, False), factor, dtype)
    unscaled = op.term if op.term is not None else ir.BinOp(
        "*", ir.Load(op.a.array, op.a.index, dtype), ir.Load(op.b.array, op.b.index, dtype), dtype)
    total = _SCALED + product.name
    sum_ = ir.Load(total, (), dtype)
    value = ir.BinOp(operator, factor, sum_, dtype) if first else ir.BinOp(operator, sum_, factor, dtype)
    scaled = dataclasses.replace(op, alpha=alpha, term=ir.BinOp("*", alpha, unscaled, dtype),
                                 summed=rg.Summed(total, unscaled, value, ir.Const(0.0, dtype, False)))
    kept = dataclasses.replace(product, region=dataclasses.replace(product.region, body=(scaled,)))
    statements = tuple(kept if s.name == product.name else s for s in scop.statements if s.name != scaling.name)
    others = {s.name for s in statements}
    body = tuple(part for node in scop.body if (part := restricted_to(node, others)) is not None)
    arrays = scop.arrays + (ArrayInfo(total, dtype, (), "local"),)
    replaced = dataclasses.replace(scop, statements=statements, body=body, arrays=arrays)
    return dataclasses.replace(replaced, schedule=replaced.schedule_of(replaced.body))


def _single_product(stmt: Statement) -> rg.Matmul | None:
    """The product of a kept-whole statement that is one product and nothing else."""
    if stmt.region is None or len(stmt.region.body) != 1 or not isinstance(stmt.region.body[0], rg.Matmul):
        return None
    return stmt.region.body[0]


def _mirrors(first: rg.Matmul, second: rg.Matmul) -> bool:
    """Is ``second`` ``first`` with its triangular operand's two subscripts of the square
    swapped (so it reads the same stored triangle, transposed), in its own loop variables?"""
    if not (first.triangular and first.triangular == second.triangular and first.factor != second.factor
            and first.mirror is None and second.mirror is None and first.accumulate and second.accumulate
            and first.dtype == second.dtype and not first.batch and not second.batch
            and not first.in_place and not second.in_place):
        return False
    ints: dict[str, ir.Expr] = {v: ir.Var(v, ir.INT) for v in first.variables}
    renamed: dict[str, ir.Expr] = {old: ir.Var(new, ir.INT) for old, new in zip(second.variables, first.variables)}
    r, c, s = first.variables
    x, y = (r, s) if first.triangular == "a" else (s, c)
    swapped: dict[str, ir.Expr] = {**ints, x: ir.Var(y, ir.INT), y: ir.Var(x, ir.INT)}

    def index(x_: rg.Operand, values: dict[str, ir.Expr]) -> tuple:
        return x_.array, tuple(ir.substitute(i, values) for i in x_.index)

    tri, gen = ("a", "b") if first.triangular == "a" else ("b", "a")
    arrays = {getattr(first, tri).array, getattr(first, gen).array}
    scales = {e.array for e in ir.walk(first.alpha) if isinstance(e, ir.Load)} if first.alpha is not None else set()
    return (first.out.array not in arrays | scales
            and index(first.out, ints) == index(second.out, renamed)
            and index(getattr(first, gen), ints) == index(getattr(second, gen), renamed)
            and index(getattr(first, tri), swapped) == index(getattr(second, tri), renamed)
            and first.alpha == second.alpha
            and (first.rows, first.cols, first.depth) == (second.rows, second.cols, second.depth))


def _with_mirror(scop: Scop, one: Statement, two: Statement, op: rg.Matmul) -> Scop:
    """``scop`` with ``two`` gone and ``one`` running ``op`` (both products), its accesses too."""
    assert one.region is not None and two.region is not None

    def renamed(accesses: isl.UnionMap) -> isl.UnionMap:
        result = isl.UnionMap.empty(accesses.get_space())
        for access in maps_of(accesses):
            result = result.union(isl.UnionMap.from_map(access.set_tuple_name(isl.dim_type.in_, one.name)))
        return result

    region = dataclasses.replace(one.region, body=(op,),
                                 reads=tuple(sorted(set(one.region.reads) | set(two.region.reads))),
                                 writes=tuple(sorted(set(one.region.writes) | set(two.region.writes))))
    kept = dataclasses.replace(one, reads=one.reads.union(renamed(two.reads)),
                               writes=one.writes.union(renamed(two.writes)), region=region)
    statements = tuple(kept if s.name == one.name else s for s in scop.statements if s.name != two.name)
    others = {s.name for s in statements}
    body = tuple(part for node in scop.body if (part := restricted_to(node, others)) is not None)
    replaced = dataclasses.replace(scop, statements=statements, body=body)
    return dataclasses.replace(replaced, schedule=replaced.schedule_of(replaced.body))


def _product_of(stmt: Statement) -> rg.Matmul:
    assert stmt.region is not None and isinstance(stmt.region.body[0], rg.Matmul)
    return stmt.region.body[0]


def _widened_folds(scop: Scop, deps: Dependences, found: list[tuple[str, Statement, isl.Set | None]]
                   ) -> tuple[Scop, Dependences, list[tuple[str, Statement]]]:
    """The folds of ``found``, with each product whose zeroing writes more than it does widened
    first (``box`` not None; :func:`_widened`): a product guarded by its depth (3mm's ``if ni >= 1
    and nj >= 1 and nk >= 1`` around ``E += A @ B``) then runs wherever its zeroing ran, writing
    its ``rows x cols`` box (its loops zero each row and add no term where the depth is 0; BLAS
    is called only with every extent at least 1).  The widened program's dependences decide
    (any widening with a dependence from its zeroing to a statement other than its product is
    undone, and they are computed again)."""
    plain = [(product, zero) for product, zero, box in found if box is None]
    wide = [(product, zero, box) for product, zero, box in found if box is not None]
    while wide:
        widened = scop
        for product, zero, box in wide:
            widened = _widened(widened, widened.statement(product), zero, box)
        # (a product's accesses of its operands stay: only its out's box is new)
        widened_deps = dependences_after_rewrite(widened, deps, frozenset(zero.array for _, zero, _ in wide))
        names = {st.name for st in widened.statements}
        kept = [(product, zero, box) for product, zero, box in wide
                if not widened_deps.between({zero.name}, names - {zero.name, product})]
        if len(kept) == len(wide):
            return widened, widened_deps, plain + [(product, zero) for product, zero, _ in wide]
        wide = kept
    return scop, deps, plain


def _widened(scop: Scop, product: Statement, zero: Statement, box: isl.Set) -> Scop:
    """``scop`` with ``product`` run also where ``zero`` runs (its domain the union of the two
    parameter sets), writing and reading ``box`` of its ``out`` there."""
    assert product.region is not None
    op = product.region.body[0]
    assert isinstance(op, rg.Matmul)
    array = isl_name(op.out.array)
    domain = product.domain.union(isl.Set.from_params(zero.domain.params()).set_tuple_name(product.name)).coalesce()
    whole = isl.UnionMap.from_map(isl.Map.from_domain_and_range(domain, box))

    def replaced(accesses: isl.UnionMap) -> isl.UnionMap:
        others = isl.UnionMap.empty(accesses.get_space())
        for access in maps_of(accesses):
            if access.get_tuple_name(isl.dim_type.out) != array:
                others = others.union(isl.UnionMap.from_map(access))
        return others.union(whole)

    kept = dataclasses.replace(product, domain=domain, reads=replaced(product.reads), writes=replaced(product.writes))
    statements = tuple(kept if st.name == product.name else st for st in scop.statements)
    widened = dataclasses.replace(scop, statements=statements)
    return dataclasses.replace(widened, schedule=widened.schedule_of(widened.body))


def _out_box(op: rg.Matmul, scop: Scop) -> isl.Set | None:
    """The elements of ``out`` that ``op`` writes when it does not accumulate, at any values of
    the parameters: its ``rows x cols`` box, or the triangle of it that a triangle product
    (``op.triangle``) writes (None where isl cannot say it, or for a stack)."""
    if op.batch:
        return None
    r, c, _ = op.variables
    first, stop = op.columns()
    try:
        index = ", ".join(isl_text(i) for i in op.out.index)
        text = (f"{scop.prefix} -> {{ [{r}, {c}] -> {isl_name(op.out.array)}[{index}] : "
                f"0 <= {r} < {isl_text(op.rows)} and {isl_text(first)} <= {c} < {isl_text(stop)} }}")
        return isl.Map(text).range().intersect_params(scop.context)
    except (ValueError, isl.Error):
        return None


def _zero_folds(scop: Scop, deps: Dependences) -> list[tuple[str, Statement, isl.Set | None]]:
    """(product, zeroing statement, None) of each fold :func:`fold_zeroing` may make, each on an
    array of its own (so that one fold leaves the dependences the others were judged on); or
    (product, zeroing, the product's box of ``out``) where the zeroing writes that box and the
    product writes it only where its depth is at least 1 (:func:`_widened_folds`)."""
    folds: list[tuple[str, Statement, isl.Set | None]] = []
    arrays: set[str] = set()
    names = {s.name for s in scop.statements}
    for at, node in enumerate(scop.body):
        if not isinstance(node, StmtNode):
            continue
        stmt = scop.statement(node.name)
        op = stmt.region.body[0] if stmt.region is not None and len(stmt.region.body) == 1 else None
        if (not isinstance(op, rg.Matmul) or not op.accumulate or op.in_place or op.triangular
                or op.out.array in arrays):
            continue
        array = isl_name(op.out.array)
        written = on_array(stmt.writes, array).range()
        earlier = {name for before in scop.body[:at] for name in _names(before)}
        for zero in scop.statements:
            if not (zero.name in earlier and _zeroes(zero, op.out.array)):
                continue
            zeroed = on_array(zero.writes, array).range()
            if not deps.between({zero.name}, names - {zero.name, stmt.name}) and zeroed.is_equal(written):
                folds.append((stmt.name, zero, None))
                arrays.add(op.out.array)
                break
            box = _out_box(op, scop)
            if (box is not None and zeroed.is_equal(isl.UnionSet.from_set(box))
                    and written.is_equal(isl.UnionSet.from_set(box.intersect_params(stmt.domain.params())))):
                folds.append((stmt.name, zero, box))
                arrays.add(op.out.array)
                break
    return folds


def _names(node: TreeNode) -> list[str]:
    return [node.name] if isinstance(node, StmtNode) else [n for child in node.body for n in _names(child)]


def _zeroes(stmt: Statement, array: str) -> bool:
    """``stmt`` is ``array[...] = 0.0`` and nothing else."""
    value = stmt.value
    return (stmt.region is None and stmt.array == array and isinstance(value, ir.Const)
            and value.dtype in _REALS and value.value == 0
            and not any(isinstance(e, ir.Load) for i in stmt.index for e in ir.walk(i)))


def _without_zeroing(scop: Scop, product: Statement, zero: Statement) -> Scop:
    """``scop`` without ``zero``, ``product`` writing ``out`` instead of adding to it."""
    assert product.region is not None
    op = product.region.body[0]
    assert isinstance(op, rg.Matmul)
    array = isl_name(op.out.array)
    reads = isl.UnionMap.empty(product.reads.get_space())
    for access in maps_of(product.reads):
        if access.get_tuple_name(isl.dim_type.out) != array:
            reads = reads.union(isl.UnionMap.from_map(access))
    operands = {op.a.array, op.b.array} | {e.array for e in ir.walk(op.alpha) if isinstance(e, ir.Load)} \
        if op.alpha is not None else {op.a.array, op.b.array}
    region = dataclasses.replace(product.region, body=(dataclasses.replace(op, accumulate=False),),
                                 reads=tuple(sorted(operands)))
    kept = dataclasses.replace(product, reads=reads, region=region)
    statements = tuple(kept if s.name == product.name else s for s in scop.statements if s.name != zero.name)
    others = {s.name for s in statements}
    body = tuple(part for node in scop.body if (part := restricted_to(node, others)) is not None)
    replaced = dataclasses.replace(scop, statements=statements, body=body)
    return dataclasses.replace(replaced, schedule=replaced.schedule_of(replaced.body))


def _lift_all(scop: Scop, deps: Dependences) -> tuple[Scop, Dependences, tuple[ProductDecision, ...]]:
    """Every qualifying product lifted.  A move is decided by the dependences inside its own loop
    nest only, so each round moves one product per nest on the same dependences (3mm's three in
    one round), then recomputes them."""
    decisions: list[ProductDecision] = []
    while True:
        moved = []
        for nest in [node for node in scop.body if isinstance(node, LoopNode)]:
            found = _lift_from(nest, scop, deps)
            if found is not None:
                scop = found[0]
                moved.append(found[1])
        if not moved:
            return scop, deps, tuple(decisions)
        decisions.extend(moved)
        deps = compute_dependences(scop)


def _lift_from(nest: LoopNode, scop: Scop, deps: Dependences) -> tuple[Scop, ProductDecision] | None:
    """The first product statement of ``nest`` that may leave it, moved out (None: none may)."""
    for name in nest.statements:
        stmt = scop.statement(name)
        match = _match(stmt, scop)
        if match is None or not _invariant(match.scale, scop, nest):
            continue
        if match.vector and _shares_matrix(stmt, match, scop):
            continue  # the loops read the matrix once for both statements (fused): a call would read it twice
        split = _split(nest, stmt.name, deps)
        if split is None:
            continue  # the nest feeds the product and needs it, in one order: only the loops are legal
        feeders, placed = split
        kept = _kept_whole(stmt, match, scop)
        if kept is None:
            continue
        assert kept.region is not None and isinstance(kept.region.body[0], rg.Matmul)
        return (_replaced(scop, stmt.name, kept, nest, feeders),
                ProductDecision(stmt.name, stmt.span.line, kept.region.body[0].describe(), placed))
    return None


def product_shaped(stmt: Statement, scop: Scop) -> bool:
    """What ``_match`` asks of the statement's value alone: ``out = out + term``, the term two
    loads that vary with the statement's loops times factors that do not (or a sum of such
    terms: ``_match_pair``).  A necessary condition for ``_match``, on the statement and on any
    growth of it (product_temporaries only adds subscripts to ``out``): a statement without it
    never leaves its loops."""
    accumulated = _accumulated_term(stmt, scop)
    return accumulated is not None and _product_term(accumulated[2], accumulated[0], set(stmt.iterators))


def _accumulated_term(stmt: Statement, scop: Scop) -> tuple[str, ir.Load, ir.Expr] | None:
    """``(dtype, out, term)`` of a statement ``out = out + term`` (or ``term + out``) over two
    loops or more, of a real dtype, not kept as written nor reassociable; None otherwise."""
    if stmt.region is not None or len(stmt.iterators) < 2 or stmt.reassociable:
        return None
    dtype = scop.array(stmt.array).dtype
    value = stmt.value
    if dtype not in _REALS or not isinstance(value, ir.BinOp) or value.op != "+" or value.dtype != dtype:
        return None
    own = ir.Load(stmt.array, stmt.index, dtype)
    term = value.rhs if value.lhs == own else value.lhs if value.rhs == own else None
    return None if term is None else (dtype, own, term)


def _product_term(term: ir.Expr, dtype: str, loops: set[str]) -> bool:
    if isinstance(term, ir.BinOp) and term.op == "+" and term.dtype == dtype and not term.reassoc:
        return _product_term(term.lhs, dtype, loops) and _product_term(term.rhs, dtype, loops)
    factors = _factors(term, dtype)
    varying = [f for f in factors or () if _uses(f) & loops]
    return len(varying) == 2 and all(isinstance(f, ir.Load) for f in varying)


def _match(stmt: Statement, scop: Scop) -> _Match | None:
    """The product's parts if ``stmt`` is ``out = out + scale * a * b`` over three loops, or
    over more where ``out`` and one operand share the others (a stack of products), or a matrix
    times a vector over two (``y[i] += A[i, j] * x[j]``, ``s[j] += r[i] * A[i, j]``)."""
    accumulated = _accumulated_term(stmt, scop)
    if accumulated is None:
        return None
    dtype, own, term = accumulated
    if isinstance(term, ir.BinOp) and term.op == "+" and term.dtype == dtype and not term.reassoc:
        return _match_pair(stmt, scop, own, term)
    factors = _factors(term, dtype)
    if factors is None:
        return None
    loops = set(stmt.iterators)
    varying = [f for f in factors if _uses(f) & loops]
    scale = tuple(f for f in factors if not _uses(f) & loops)
    if len(varying) != 2 or not all(isinstance(f, ir.Load) for f in varying):
        return None
    first, second = varying
    assert isinstance(first, ir.Load) and isinstance(second, ir.Load)
    if (first.array == second.array == stmt.array) or not all(_affine(i, loops) for i in (*stmt.index, *first.index,
                                                                                            *second.index)):
        return None
    out_vars = _loop_vars(stmt.index, loops)
    sums = loops - out_vars
    if len(sums) != 1:
        return None
    (s,) = sums
    uses_a, uses_b = _loop_vars(first.index, loops), _loop_vars(second.index, loops)
    if s not in uses_a or s not in uses_b:
        return None
    rows, cols = uses_a - {s}, uses_b - {s}
    if len(loops) == 2:
        return _match_vector(stmt, first, second, term, scale, (rows, cols, s))
    if not rows or not cols or rows & cols or rows | cols != out_vars or (len(rows) > 1 and len(cols) > 1):
        return None
    # a stack: of the loops out and one operand share, the last in out's subscripts is the
    # product's own (C order), the others the batch
    stacked = [v for i in stmt.index for v in sorted(_uses(i) & (rows if len(rows) > 1 else cols))]
    order = list(dict.fromkeys(stacked))
    batch = tuple(order[:-1])
    r, c = (order[-1], *cols) if len(rows) > 1 else (*rows, order[-1])
    in_place = ""
    if stmt.array in (first.array, second.array) and batch:
        return None
    if stmt.array in (first.array, second.array):  # trmm's B[i, j] += A[k, i] * B[k, j]: out's own other rows
        own_row: dict[str, ir.Expr] = {r: ir.Var(s, ir.INT)}
        own_col: dict[str, ir.Expr] = {c: ir.Var(s, ir.INT)}
        if second.array == stmt.array and second.index == tuple(ir.substitute(i, own_row) for i in stmt.index):
            in_place = "left"
        elif first.array == stmt.array and first.index == tuple(ir.substitute(i, own_col) for i in stmt.index):
            in_place = "right"
        else:
            return None
    return _Match(rg.Operand(stmt.array, stmt.index), rg.Operand(first.array, first.index),
                  rg.Operand(second.array, second.index), term, scale, (r, c, s), in_place=in_place, batch=batch)


def _match_vector(stmt: Statement, first: ir.Load, second: ir.Load, term: ir.Expr, scale: tuple[ir.Expr, ...],
                  roles: tuple[set[str], set[str], str]) -> _Match | None:
    """``out[r] += scale * a[r, s] * b[s]`` (or ``out[c] += a[s] * b[s, c]``) over two loops: a
    matrix times a vector (?gemv), the missing variable of extent 1; ``out`` no operand."""
    rows, cols, s = roles
    if stmt.array in (first.array, second.array) or bool(rows) == bool(cols) or len(rows | cols) != 1:
        return None
    missing = "_".join(("", *stmt.iterators, "unit"))
    if any(missing in _uses(i) for i in (*stmt.index, *first.index, *second.index)):
        return None  # the name must be one no subscript uses
    (r,) = rows or (missing,)
    (c,) = cols or (missing,)
    return _Match(rg.Operand(stmt.array, stmt.index), rg.Operand(first.array, first.index),
                  rg.Operand(second.array, second.index), term, scale, (r, c, s), vector=missing)


def _shares_matrix(stmt: Statement, match: _Match, scop: Scop) -> bool:
    """Another statement of the program reads the matrix of the product ``match`` (atax's and
    bicg's two products of one row, mvt's products of ``A`` and ``A.T``)."""
    r, c, s = match.variables
    matrix = match.a if r != match.vector else match.b
    name = isl_name(matrix.array)
    return any(not on_array(other.reads, name).is_empty() for other in scop.statements if other.name != stmt.name)


def _match_pair(stmt: Statement, scop: Scop, own: ir.Load, term: ir.BinOp) -> _Match | None:
    """syr2k's ``out += x[r, s] * y[c, s] * alpha + y[r, s] * x[c, s] * alpha``: two products of
    the same factors with the roles of r and c swapped (either order of the factors)."""
    assert isinstance(term, ir.BinOp)
    first, second = (_match(dataclasses.replace(stmt, value=ir.BinOp("+", own, side, own.dtype)), scop)
                     for side in (term.lhs, term.rhs))
    if (first is None or second is None or first.pair or second.pair or first.in_place or second.in_place
            or first.batch or second.batch or first.vector or second.vector):
        return None
    r, c, s = first.variables
    if second.variables == (c, r, s):  # its factors in the other order: the roles by first's
        second = dataclasses.replace(second, a=second.b, b=second.a, variables=first.variables)
    if second.variables != first.variables:
        return None

    def moved(x: rg.Operand, old: str, new: str) -> rg.Operand:
        return rg.Operand(x.array, tuple(ir.substitute(i, {old: ir.Var(new, ir.INT)}) for i in x.index))

    if second.a != moved(first.b, c, r) or second.b != moved(first.a, r, c):
        return None
    if sorted(map(ir.to_python, first.scale)) != sorted(map(ir.to_python, second.scale)):
        return None
    return dataclasses.replace(first, term=term, pair=True)


def _factors(expr: ir.Expr, dtype: str) -> list[ir.Expr] | None:
    """The factors of a product tree of ``dtype`` values (None if it is anything else)."""
    if isinstance(expr, ir.BinOp) and expr.op == "*" and expr.dtype == dtype:
        left, right = _factors(expr.lhs, dtype), _factors(expr.rhs, dtype)
        return None if left is None or right is None else left + right
    if isinstance(expr, ir.Load | ir.Var | ir.Const | ir.Cast) and expr.dtype == dtype:
        return [expr]  # a cast only as a scale (alpha * A with float32 A): loads must be plain
    return None


def _uses(expr: ir.Expr) -> set[str]:
    return {e.name for e in ir.walk(expr) if isinstance(e, ir.Var)}


def _loop_vars(index: tuple[ir.Expr, ...], loops: set[str]) -> set[str]:
    """The loop variables a subscript uses."""
    return set().union(*map(_uses, index)) & loops


def _affine(expr: ir.Expr, loops: set[str]) -> bool:
    return not any(isinstance(e, ir.Load) for e in ir.walk(expr)) and all(
        ir.linear_coefficient(expr, v) is not None for v in loops)


def _split(nest: LoopNode, name: str, deps: Dependences) -> tuple[set[str], str] | None:
    """The nest's statements that must run before the product (those with a dependence path to
    it), and where the product goes, if running them all first, then the product, then the rest
    respects every dependence; else None."""
    feeders: set[str] = set()
    sinks = {name}
    others = set(nest.statements) - {name}
    while found := {o for o in others - feeders if deps.between({o}, sinks)}:
        feeders |= found
        sinks = found
    rest = others - feeders
    if deps.between({name}, feeders) or deps.between(rest, {name}) or deps.between(rest, feeders):
        return None
    return feeders, "after" if not rest else "before" if not feeders else "between"


def _invariant(scale: tuple[ir.Expr, ...], scop: Scop, nest: LoopNode) -> bool:
    """Every factor of alpha keeps its value through the nest (a scalar the nest never writes)."""
    written = {scop.statement(name).array for name in nest.statements} | {
        t for name in nest.statements for t in scop.statement(name).targets}
    loads = [e for factor in scale for e in ir.walk(factor) if isinstance(e, ir.Load)]
    return all(not load.index and load.array not in written for load in loads)


def _kept_whole(stmt: Statement, match: _Match, scop: Scop) -> Statement | None:
    """The statement as one product over its box of iterations (None: not a box)."""
    if match.in_place:
        return _kept_in_place(stmt, match, scop)
    triangle, offset, bounds = "", 0, _box(stmt.domain, scop)
    if match.vector:  # a matrix times a vector over a box
        return None if bounds is None else _product_statement(
            stmt, match, scop, bounds | {match.vector: (ir.int_const(0), ir.int_const(1))})
    if match.batch:  # a stack of products over a box
        return None if bounds is None else _product_statement(stmt, match, scop, bounds)
    if bounds is None:
        found = _triangle(stmt, match.variables, scop)
        if found is None:
            return None if match.pair else _kept_triangular(stmt, match, scop)
        triangle, offset, bounds = found
    if match.pair and not triangle:
        return None  # a box of a @ b.T + b @ a.T is two products: left as loops
    if abs(offset) > 1 or (offset and match.pair):
        return None  # no routine for it (the backend's strict triangle is ?syrk's): left as loops
    if offset and offset != (1 if triangle == "upper" else -1):
        # ``range(1, i + 2)`` (lower, columns one later) or ``range(i - 1, m - 1)`` (upper, rows
        # one later) reach one line beyond the diagonal: no triangle of the larger square that
        # the backend's strict form computes (it gave wrong sums): left as loops
        return None
    return _product_statement(stmt, match, scop, bounds, triangle=triangle, pair=match.pair, offset=offset)


def _kept_in_place(stmt: Statement, match: _Match, scop: Scop) -> Statement | None:
    """trmm's ``B[i, j] += A[k, i] * B[k, j]`` for ``k`` in ``range(i + 1, m)``: ``B`` times a
    unit triangular matrix (``B += T @ B`` with ``T[i, k] = A[k, i]`` strictly above the
    diagonal), as one product when each read of ``B``'s other rows (columns) sees the value from
    before the statement (isl's dependences: no write of the statement reaches them), the
    iterations are a box cut strictly by the triangle of T, and nothing scales the sum (a
    ``?trmm`` multiplies by ``I + T``)."""
    r, c, s = match.variables
    if match.scale:
        return None
    square = (r, s) if match.in_place == "left" else (s, c)  # T's row and column variables
    found = _strict_square(stmt, square, scop)
    if found is None or not _reads_before(stmt, scop):
        return None
    factor, bounds = found
    return _product_statement(stmt, match, scop, bounds, in_place=match.in_place, factor=factor)


def _kept_triangular(stmt: Statement, match: _Match, scop: Scop) -> Statement | None:
    """symm's ``temp2 += B[k, j] * A[i, k]`` (folded) and ``C[k, j] += alpha * B[i, j] * A[i, k]``
    over ``k < i``: a product whose one operand is read strictly on one side of its diagonal (its
    row and column variables over one range, the iterations a box cut by that triangle)."""
    r, c, s = match.variables
    for operand, square in (("a", (r, s)), ("b", (s, c))):
        found = _strict_square(stmt, square, scop)
        if found is not None:
            factor, bounds = found
            return _product_statement(stmt, match, scop, bounds, triangular=operand, factor=factor)
    return None


def _product_statement(stmt: Statement, match: _Match, scop: Scop, bounds: dict[str, tuple[ir.Expr, ir.Expr]],
                       **fields) -> Statement:
    """The kept-whole statement of the product ``match`` over ``bounds``, each variable counted
    from its first value; ``fields``: the Matmul's own (triangle, pair, ...)."""
    r, c, s = match.variables
    every = (*match.variables, *match.batch)
    lower = {v: bounds[v][0] for v in every}
    shift: dict[str, ir.Expr] = {v: ir.BinOp("+", ir.Var(v, ir.INT), lower[v], ir.INT) for v in every
                                 if lower[v] != ir.int_const(0)}

    def operand(x: rg.Operand) -> rg.Operand:
        return rg.Operand(x.array, tuple(ir.substitute(i, shift) for i in x.index))

    extent = {v: _minus(bounds[v][1], lower[v]) for v in every}
    dtype = scop.array(stmt.array).dtype
    alpha = None
    for factor in match.scale:
        alpha = factor if alpha is None else ir.BinOp("*", alpha, factor, dtype)
    summed = None if stmt.summed is None else dataclasses.replace(
        stmt.summed, term=ir.substitute(stmt.summed.term, shift), value=ir.substitute(stmt.summed.value, shift))
    product = rg.Matmul(operand(match.out), operand(match.a), operand(match.b), extent[r], extent[c], extent[s],
                        match.variables, dtype, accumulate=True, alpha=alpha,
                        term=ir.substitute(match.term, shift), batch=tuple((v, extent[v]) for v in match.batch),
                        summed=summed, **fields)
    uses = {e.array for f in match.scale for e in ir.walk(f) if isinstance(e, ir.Load)}
    region = rg.Region(body=(product,), reason="matrix product written as loops (BLAS where the layout allows)",
                       line=stmt.span.line, reads=tuple(sorted({match.a.array, match.b.array, stmt.array} | uses)),
                       writes=(stmt.array,))
    domain = stmt.domain.project_out(isl.dim_type.set, 0, len(stmt.iterators)).set_tuple_name(stmt.name)
    return dataclasses.replace(stmt, iterators=(), array="", index=(), value=ir.int_const(0), domain=domain,
                               summed=None,
                               reads=_whole(stmt.reads, stmt.name), writes=_whole(stmt.writes, stmt.name),
                               region=region)


def _strict_square(stmt: Statement, square: tuple[str, str], scop: Scop
                   ) -> tuple[str, dict[str, tuple[ir.Expr, ir.Expr]]] | None:
    """("upper" where the domain is ``y > x``, "lower" where ``y < x``; the box's bounds) when
    ``stmt``'s domain is a box whose ``square = (x, y)`` run over one range, cut strictly by
    that triangle (trmm's ``for i in range(m): ... for k in range(i + 1, m)``: x = i, y = k)."""
    domain = stmt.domain
    names = [str(domain.get_dim_name(isl.dim_type.set, d)) for d in range(domain.dim(isl.dim_type.set))]
    at = [list(stmt.iterators).index(v) for v in square]
    plain = _hull(domain)
    if any(_constant(bound(at[0]).sub(bound(at[1]))) is None for bound in (plain.dim_min, plain.dim_max)):
        return None  # ranges not a constant apart (isl's hull of such a union can take seconds)
    box = _hull(domain, merged=tuple(at))
    x, y = (names[d] for d in at)
    for kind, relation in (("upper", f"{y} > {x}"), ("lower", f"{y} < {x}")):
        cut = isl.Set(f"{scop.prefix} -> {{ {domain.get_tuple_name()}[{', '.join(names)}] : {relation} }}")
        if box.intersect(cut).is_equal(domain):
            bounds = _bounds(box, scop)
            return None if bounds is None else (kind, bounds)
    return None


def _reads_before(stmt: Statement, scop: Scop) -> bool:
    """No read of ``stmt``'s array by ``stmt``, other than of the element it writes in the same
    iteration, follows a write of that element by ``stmt`` (memory-based: unknown means dependent)."""
    name = isl_name(stmt.array)
    writes = on_array(stmt.writes, name)
    others = on_array(stmt.reads, name).subtract(writes)
    try:
        found = flow(others, writes, scop.schedule, may=True)
    except isl.Error:
        return False
    return found.get_may_dependence().is_empty()


def _box(domain: isl.Set, scop: Scop) -> dict[str, tuple[ir.Expr, ir.Expr]] | None:
    """``{iterator: (first, stop)}`` when ``domain`` is a box whose bounds are affine in the
    parameters alone (one piece each), else None."""
    if not _hull(domain).is_equal(domain):
        return None
    return _bounds(domain, scop)


def _hull(domain: isl.Set, merged: tuple[int, ...] = ()) -> isl.Set:
    """The smallest box holding ``domain`` (the product of its projections on each axis); the
    axes ``merged`` share one range, the hull of their projections together."""
    n = domain.dim(isl.dim_type.set)
    sides = []
    for d in range(n):
        alone = domain
        for e in sorted((e for e in range(n) if e != d), reverse=True):
            alone = alone.project_out(isl.dim_type.set, e, 1)
        sides.append(alone)
    if merged:
        joint = sides[merged[0]]
        for d in merged[1:]:
            joint = joint.union(sides[d])
        joint = isl.Set.from_basic_set(joint.convex_hull())
        sides = [joint if d in merged else side for d, side in enumerate(sides)]
    product = sides[0]
    for side in sides[1:]:
        product = product.flat_product(side)
    for d in merged:  # the joint range took the first one's name
        product = product.set_dim_name(isl.dim_type.set, d, str(domain.get_dim_name(isl.dim_type.set, d)))
    return product.set_tuple_name(domain.get_tuple_name())


def _triangle(stmt: Statement, variables: tuple[str, str, str], scop: Scop
              ) -> tuple[str, int, dict[str, tuple[ir.Expr, ir.Expr]]] | None:
    """("lower" or "upper", c0 - r0, bounds of the box) when ``stmt``'s domain is its box cut by
    ``c - c0 <= r - r0`` (or ``>=``), where r and c run over ranges of one extent starting at
    ``r0`` and ``c0`` a constant apart: once each variable is counted from its first value (as
    _kept_whole does), a square's triangle with its diagonal.  PolyBench's syrk ``for j in
    range(i + 1)`` and covariance's ``range(i, m)`` (c0 = r0), and a strict one, correlation's
    ``for i in range(m - 1): for j in range(i + 1, m)``: the triangle with its diagonal of the
    rows 0 .. m - 2 and the columns 1 .. m - 1 (the box's r and c are the rows and columns
    the domain reaches)."""
    domain, hull = stmt.domain, _hull(stmt.domain)
    names = [str(domain.get_dim_name(isl.dim_type.set, d)) for d in range(domain.dim(isl.dim_type.set))]
    at_r, at_c = (list(stmt.iterators).index(v) for v in variables[:2])
    r, c = names[at_r], names[at_c]
    if not hull.dim_max(at_r).sub(hull.dim_min(at_r)).is_equal(hull.dim_max(at_c).sub(hull.dim_min(at_c))):
        return None
    offset = _constant(hull.dim_min(at_c).sub(hull.dim_min(at_r)))
    if offset is None:
        return None
    for kind, relation in (("lower", f"{c} - {r} <= {offset}"), ("upper", f"{c} - {r} >= {offset}")):
        cut = isl.Set(f"{scop.prefix} -> {{ {domain.get_tuple_name()}[{', '.join(names)}] : {relation} }}")
        if hull.intersect(cut).is_equal(domain):
            bounds = _bounds(hull, scop)
            return None if bounds is None else (kind, offset, bounds)
    return None


def _constant(value: isl.PwAff) -> int | None:
    """The integer ``value`` is wherever it is defined (None: it varies, or has several pieces)."""
    pieces = value.get_pieces()
    if len(pieces) != 1 or not value.is_cst():
        return None
    return int(pieces[0][1].get_constant_val().to_python())


def _bounds(domain: isl.Set, scop: Scop) -> dict[str, tuple[ir.Expr, ir.Expr]] | None:
    """``{iterator: (first, stop)}`` of a box (None: a bound has several pieces)."""
    names = [str(domain.get_dim_name(isl.dim_type.set, d)) for d in range(domain.dim(isl.dim_type.set))]
    build = isl.AstBuild.from_context(scop.context)
    bounds: dict[str, tuple[ir.Expr, ir.Expr]] = {}
    for d, name in enumerate(names):
        low, high = domain.dim_min(d), domain.dim_max(d)
        if low.n_piece() != 1 or high.n_piece() != 1:
            return None
        stop = high.add_constant_val(isl.Val.one(high.get_ctx()))
        bounds[name] = (expr_from_isl(build.expr_from_pw_aff(low)), expr_from_isl(build.expr_from_pw_aff(stop)))
    return bounds


def _minus(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return a if b == ir.int_const(0) else ir.BinOp("-", a, b, ir.INT)


def _whole(accesses: isl.UnionMap, name: str) -> isl.UnionMap:
    """The accesses of every iteration, as accesses of the one kept-whole statement."""
    result = isl.UnionMap.empty(accesses.get_space())
    for access in maps_of(accesses):
        n = access.dim(isl.dim_type.in_)
        result = result.union(isl.UnionMap.from_map(
            access.project_out(isl.dim_type.in_, 0, n).set_tuple_name(isl.dim_type.in_, name)))
    return result


def _replaced(scop: Scop, name: str, kept: Statement, nest: LoopNode, feeders: set[str]) -> Scop:
    """``scop`` with ``name`` out of its loops and its kept-whole form after the part of the
    nest that feeds it and before the rest (each part keeps the nest's loops)."""
    statements = tuple(kept if s.name == name else s for s in scop.statements)
    rest = set(nest.statements) - feeders - {name}
    body: list[TreeNode] = []
    for node in scop.body:
        if node is not nest:
            body.append(node)
            continue
        first, last = restricted_to(node, feeders), restricted_to(node, rest)
        body.extend(part for part in (first, StmtNode(name), last) if part is not None)
    replaced = dataclasses.replace(scop, statements=statements, body=tuple(body))
    return dataclasses.replace(replaced, schedule=replaced.schedule_of(replaced.body))


def restricted_to(node: TreeNode, keep: set[str]) -> TreeNode | None:
    """``node`` with only the statements in ``keep`` (loops left empty go)."""
    if isinstance(node, StmtNode):
        return node if node.name in keep else None
    body = tuple(kept for child in node.body if (kept := restricted_to(child, keep)) is not None)
    if not body:
        return None
    members = tuple(LoopMember(m.var, tuple(s for s in m.statements if s in keep), m.shift) for m in node.members)
    return dataclasses.replace(node, members=tuple(m for m in members if m.statements), body=body)
