"""A block's kernel against the whole-array kernel: the same iterations, the same elements.

Takes the Problem (polyfuse.dask.problem), a split cut, its statements' moving iterators and one
block (its start and length along the cut, in the reference array's coordinates); returns
nothing, or raises UnsupportedError at the line of the statement that a block would compute
differently.  polyfuse.dask.halo.halo_for_axis runs these checks on every block.

A block runs the kernel on smaller arrays, in its own coordinates: every extent of an array
along the split cut takes the block's value (``problem.local_sizes``).  Shift covariance
(``halo.covariant_iterator``) says that moving the split loop by one moves each access along
the axis by one; it does not say that an access, or the bounds of another loop, are the same
with the block's extents as with the whole array's.  ``A[i, j + n]`` with ``n`` the split rows,
``x[i + n]`` from an array of ``2 n``, ``w[n - 1]`` from an array every block gets whole,
``for k in range(n)`` inside the split loop, a returned ``np.zeros(2 * n)``: each passes the
shift check, and a block would compute with its own ``n``.  isl checks, block by block at the
call's sizes:

1. ``check_bounds``: where the block and the whole array both run a value of the split loop,
   the statement's other loops run the same iterations there;
2. ``check_accesses``: every instance the block runs accesses, moved to global coordinates
   (each array of the cut by the block's start along its axis, every other array unmoved), the
   element the same instance accesses on the whole arrays; a kernel-local array's accesses lie
   inside its allocation on the block, and a returned new array has its block's extent;
3. ``check_values``: no statement whose value is read or kept computes with an extent along the
   cut, or a size the call computes from one (``c = n * 1.0``; an opaque ``while k * k < n``
   loop), as a block would with its own.

The extents are what differs between a block and the whole: so a refusal names the access or
the loops, and says that the subscript or bound uses an array's extent along the split axis.
"""

from __future__ import annotations

import re

import islpy as isl

from polyfuse.dask.cuts import Cut
from polyfuse.dask.problem import Problem, cut_params, fixed, free_names, local_sizes, moving_arrays, refusal
from polyfuse.errors import UnsupportedError
from polyfuse.frontend.returns import STRONG
from polyfuse.model import ir
from polyfuse.model.region import expressions
from polyfuse.model.scop import Statement, isl_name


def check_bounds(problem: Problem, cut: Cut, alignment: dict[str, int | None], start: int, length: int) -> None:
    """1. of the module docstring, for the block ``[start, start + length)``; a statement that
    does not move with the cut must run exactly as on the whole arrays.  Checked once per block
    and problem (the plan asks again after merging thin chunks)."""
    key = ("bounds", cut.members, start, length)
    if key in problem._cache:
        return
    local, env = local_sizes(problem, cut, length), problem.env
    for stmt in problem.scop.statements:
        pos = alignment[stmt.name]
        if stmt.region is not None or (pos is not None and len(stmt.iterators) < 2) or _type_flag(stmt):
            continue  # the instance check of halo.check_chunk covers the rest
        rank = len(stmt.iterators)
        here = _plain(fixed(stmt.domain, local))
        whole = _plain(fixed(stmt.domain, env))
        if pos is not None:
            here = here.apply(_shift(stmt.domain.get_ctx(), stmt.name, rank, pos, start))
            both = _lifted(_column(here, pos).intersect(_column(whole, pos)), pos, rank, stmt.name)
            here, whole = here.intersect(both), whole.intersect(both)
        if not here.is_equal(whole):
            raise refusal(stmt, cut, _bounds_differ(stmt, pos, cut.position(stmt.name)))
    problem._cache[key] = True


def _type_flag(stmt: Statement) -> bool:
    """A returned local's Python-or-NumPy flag (frontend.lift ``in_loop_flags``: written after a
    loop where it ran, a condition on extents).  Only the whole-array kernel's return reads it;
    a block's partial result is combined by Dask as a value, so a block may set it differently."""
    return all(t.startswith(STRONG) for t in stmt.targets)


def _bounds_differ(stmt: Statement, pos: int | None, proposed: int | None) -> str:
    others = ", ".join(it for k, it in enumerate(stmt.iterators) if k != pos)
    why = "an array's extent along the axis, which a block sees as its own"
    if pos is None and proposed is not None and proposed < len(stmt.iterators):  # halo._uses refused it
        it = stmt.iterators[proposed]
        if {it, isl_name(it)} & set(free_names(stmt.value)):
            return (f"its value uses the index of its loop {it}, which moves with the axis: a block counts {it} "
                    "from its own start")
        return f"its value uses {why}"
    if pos is None:
        what = f"other iterations of its loop {others}" if others else "it under other conditions"
        return f"a block would run {what} than the whole arrays do (a bound or condition uses {why})"
    moving = stmt.iterators[pos]
    return (f"a block would run other iterations of its loop {others} than the whole arrays do at the same "
            f"{moving} (a bound uses {moving}, or {why})")


def check_values(problem: Problem, cut: Cut) -> None:
    """3. of the module docstring: no statement's value, and no expression of an opaque one,
    uses the extent of an array along the cut (``c = n * 1.0``, a ``while k * k < n`` loop):
    a block would compute it with its own."""
    extents = cut_params(problem, cut)
    read = {src for dep in problem.deps.items if dep.kind == "RAW" for src, _ in dep.statement_pairs()}
    kept = set(problem.written) | problem.scop.returned_names() | {a.name for a in problem.scop.arguments}
    for stmt in problem.scop.statements:
        if stmt.name not in read and not set(stmt.targets) & kept:
            continue  # a value nothing reads (``n = int(A.shape[0] * 1.0)`` whose uses are the size itself)
        if stmt.region is not None:
            names = {e.name for x in expressions(stmt.region.body) for e in ir.walk(x) if isinstance(e, ir.Var)}
        else:
            names = set(free_names(stmt.value))
        used = sorted(extents[n] for n in names & set(extents))
        if used:
            raise refusal(stmt, cut, f"it computes with {', '.join(used)}, an array's extent along the axis (or a "
                          "size computed from it), which a block sees as its own")


def check_accesses(problem: Problem, cut: Cut, alignment: dict[str, int | None], start: int, length: int) -> None:
    """2. of the module docstring, for the block ``[start, start + length)``."""
    local, env = local_sizes(problem, cut, length), problem.env
    moving = moving_arrays(problem, cut)
    ctx = problem.ctx()
    _check_result_extents(problem, cut, moving, local, length)
    for stmt in problem.scop.statements:
        if stmt.region is not None:
            continue  # an opaque statement that touches a moving array is refused (halo.covariant_iterator)
        runs = fixed(stmt.domain, local)
        to_global = _shift(ctx, stmt.name, len(stmt.iterators), alignment[stmt.name], start)
        for kind, relation in (("write", stmt.writes), ("read", stmt.reads)):
            for access in _maps(relation):
                array, rank = access.get_tuple_name(isl.dim_type.out), access.dim(isl.dim_type.out)
                there = _plain(fixed(access, local).intersect_domain(runs.align_params(access.get_space())))
                if not _inside(problem, array, there, local):
                    raise refusal(stmt, cut, f"its {kind} {_text(stmt, kind, array)} falls outside {array} as a "
                                  f"block allocates it (its extent uses an array's extent along the axis)")
                there = there.apply_domain(to_global).apply_range(_shift(ctx, array, rank, moving.get(array), start))
                whole = _plain(fixed(access, env)).intersect_domain(there.domain())
                if not there.is_equal(whole):
                    raise refusal(stmt, cut, f"its {kind} {_text(stmt, kind, array)} would reach other elements "
                                  "in a block than on the whole arrays (the subscript uses an array's extent "
                                  "along the axis, which a block sees as its own)")


def _check_result_extents(problem: Problem, cut: Cut, moving: dict[str, int], local: dict[str, int],
                          length: int) -> None:
    """A returned new array made on a block has the block's extent along the axis (its chunk
    is cut out of it) and its whole extent along every other axis."""
    for info in problem.scop.arrays:
        if info.kind != "result" or info.name not in problem.written or len(info.extent_texts) != info.rank:
            continue
        for axis, text in enumerate(info.extent_texts):
            want = (length + problem.offset(info.name, axis) if moving.get(info.name) == axis
                    else extent_value(problem, text, problem.env))
            got = extent_value(problem, text, local)
            if got != want:
                writer = next((s for s in problem.scop.statements if s.array == info.name), None)
                raise UnsupportedError(
                    f"cannot split {cut.label} into chunks: the returned array {info.name} would have extent "
                    f"{got} along its axis {axis} in a block of {length}, not {want} ({_pretty(text)} uses an "
                    f"array's extent along the split axis); keep axis {cut.axis} of {cut.array} in one chunk",
                    *((writer.span, writer.source_line) if writer else (problem.scop.returns_span, "return")))


def extent_value(problem: Problem, text: str, values: dict[str, int]) -> int | None:
    """An extent (isl syntax over the parameters) at these parameter values; None when they do
    not fix it."""
    params = ", ".join(p for p in problem.scop.params)
    point = fixed(isl.Set.read_from_str(problem.ctx(), f"[{params}] -> {{ [x] : x = {text} }}"), values)
    if not point.is_singleton() or point.is_empty():
        return None
    return point.sample_point().get_coordinate_val(isl.dim_type.set, 0).to_python()


def _inside(problem: Problem, array: str, accesses: isl.Map, local: dict[str, int]) -> bool:
    """Do the block's ``accesses`` to a kernel-local array lie in its allocation on the block?"""
    info = next((a for a in problem.scop.arrays if a.name == array), None)
    if info is None or info.kind == "arg" or not info.rank or len(info.extent_texts) != info.rank:
        return True
    extents = [extent_value(problem, text, local) for text in info.extent_texts]
    if any(e is None for e in extents):
        return True
    xs = [f"a{k}" for k in range(info.rank)]
    box = " and ".join(f"0 <= a{k} < {e}" for k, e in enumerate(extents))
    inside = isl.Set.read_from_str(problem.ctx(), f"{{ {array}[{', '.join(xs)}] : {box} }}")
    return accesses.range().is_subset(inside)


# ---- small isl helpers -----------------------------------------------------------------------

def _plain(obj):
    """Parameters dropped (fixed before): sets from different parameter values compare."""
    return obj.project_out(isl.dim_type.param, 0, obj.dim(isl.dim_type.param))


def _shift(ctx: isl.Context, name: str, rank: int, pos: int | None, by: int) -> isl.Map:
    """``{ name[x] -> name[x + by e_pos] }`` (identity when ``pos`` is None)."""
    xs = [f"x{k}" for k in range(rank)]
    ys = [f"x{k} + {by}" if k == pos else f"x{k}" for k in range(rank)]
    return isl.Map.read_from_str(ctx, f"{{ {name}[{', '.join(xs)}] -> {name}[{', '.join(ys)}] }}")


def _column(points: isl.Set, pos: int) -> isl.Set:
    """The values of coordinate ``pos`` over ``points`` (a 1-d set)."""
    n = points.dim(isl.dim_type.set)
    return points.project_out(isl.dim_type.set, pos + 1, n - pos - 1).project_out(isl.dim_type.set, 0, pos)


def _lifted(column: isl.Set, pos: int, rank: int, name: str) -> isl.Set:
    """The points of ``name[...]`` whose coordinate ``pos`` lies in ``column``."""
    lifted = column.insert_dims(isl.dim_type.set, 0, pos).add_dims(isl.dim_type.set, rank - pos - 1)
    return lifted.set_tuple_name(name)


def _maps(union: isl.UnionMap) -> list[isl.Map]:
    found: list[isl.Map] = []
    union.foreach_map(found.append)
    return found


# ---- naming the access -----------------------------------------------------------------------

def _text(stmt: Statement, kind: str, array: str) -> str:
    """The access as written: the statement's target, or its loads of ``array`` (those whose
    subscript uses an extent first)."""
    if kind == "write":
        return _pretty(_subscript(array, stmt.index))
    loads = [e for e in ir.walk(stmt.value) if isinstance(e, ir.Load) and e.array == array]
    texts = list(dict.fromkeys(_pretty(_subscript(array, e.index)) for e in loads))
    sized = [t for t in texts if ".shape[" in t]
    return ", ".join(sized or texts) or array


def _subscript(array: str, index: tuple[ir.Expr, ...]) -> str:
    return f"{array}[{', '.join(_bare(ir.to_python(e)) for e in index)}]"


def _bare(text: str) -> str:
    """``text`` without the parentheses around all of it, if it has them."""
    depth = 0
    for k, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth == 0 and k < len(text) - 1:
            return text
    return text[1:-1] if text.startswith("(") else text


def _pretty(text: str) -> str:
    """``A__shape0`` (the isl parameter of an extent) as ``A.shape[0]``."""
    return re.sub(r"\b(\w+?)__shape(\d+)\b", r"\1.shape[\2]", text)
