"""Which array axes move together: the loop dimensions a call on dask arrays may cut.

Takes the lifted Scop and seed axes (every axis of every dask array argument, written arrays
first); returns one ``Cut`` per group of array axes that one loop dimension indexes.  Arrays of
different shapes meet here: in ``y[i] = sum_j A[i, j] * x[j]`` the loop ``i`` moves axis 0 of
``A`` and of ``y``, the loop ``j`` axis 1 of ``A`` and axis 0 of ``x``; so ``{y: 0, A: 0}`` is
one cut and ``{A: 1, x: 0}`` another.

isl decides what "moves" means: loop position ``p`` of a statement moves axis ``a`` of an
access when adding 1 to the iterator adds 1 to subscript ``a`` and leaves the others (compared
where both are defined).  A cut grows from its seed to a fixpoint: every statement that touches
a member along its axis, or sits inside a loop already in the cut, takes that loop, and every
array that loop moves joins the cut.  A statement that accesses no array (``c += 1``, a count)
takes the outermost of its loops whose body accesses no array and whose bounds use a member's
extent (``range(A.shape[0])``): a block runs that loop over its own extent, so it moves with the
cut.  The result is a proposal;
polyfuse.dask.halo checks each statement of a split cut again (shift covariance, bounds,
dependences, and for a reduction that every block runs exactly its chunk's updates) before a
block runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polyfuse.errors import UnsupportedError
from polyfuse.model.schedule_tree import LoopNode, TreeNode
from polyfuse.model.scop import Scop, Statement, shape_param


def shift_map(ctx: isl.Context, name: str, rank: int, pos: int | None, by: int) -> isl.UnionMap:
    """``{ name[x] -> name[x + by e_pos] }`` (identity when ``pos`` is None)."""
    xs = [f"x{i}" for i in range(rank)]
    ys = [f"x{i} + {by}" if i == pos else f"x{i}" for i in range(rank)]
    return isl.UnionMap.read_from_str(ctx, f"{{ {name}[{', '.join(xs)}] -> {name}[{', '.join(ys)}] }}")


@dataclass(frozen=True)
class Cut:
    """One loop dimension: the array axes it moves and each statement's iterator for it.

    ``members`` lists (array, axis) pairs, array arguments and kernel-local arrays, the seed
    first; ``axis`` is the seed's axis (the name plans and errors use)."""

    members: tuple[tuple[str, int], ...]
    alignment: tuple[tuple[str, int | None], ...]  # statement -> iterator position (None: none)
    loops: tuple[str, ...]  # the iterators, for messages

    @property
    def axis(self) -> int:
        return self.members[0][1]

    @property
    def array(self) -> str:
        return self.members[0][0]

    def axis_of(self, name: str) -> int | None:
        return dict(self.members).get(name)

    def position(self, stmt: str) -> int | None:
        return dict(self.alignment).get(stmt)

    @property
    def label(self) -> str:
        axes = ", ".join(f"{a} axis {x}" for a, x in self.members)
        return f"{axes} (loop {', '.join(self.loops) or '-'})"


def find_cuts(scop: Scop, seeds: list[tuple[str, int]]) -> tuple[Cut, ...]:
    """One cut per seed axis not already in an earlier cut (see the module docstring)."""
    paths = _loop_paths(scop.body)
    cuts: list[Cut] = []
    for seed in seeds:
        if any(seed in c.members for c in cuts):
            continue
        cuts.append(_grow(scop, paths, seed))
    return tuple(cuts)


def _loop_paths(body: tuple[TreeNode, ...], prefix: tuple[int, ...] = ()) -> dict[str, tuple[tuple[int, ...], ...]]:
    """Each statement's enclosing loops, outermost first, as paths in the loop tree."""
    found: dict[str, tuple[tuple[int, ...], ...]] = {}
    for index, node in enumerate(body):
        here = prefix + (index,)
        if isinstance(node, LoopNode):
            for name, loops in _loop_paths(node.body, here).items():
                found[name] = (here,) + loops
            for name in node.statements:
                found.setdefault(name, (here,))
        else:
            found[node.name] = ()
    return found


def _grow(scop: Scop, paths, seed: tuple[str, int]) -> Cut:
    members = {seed[0]: seed[1]}
    loops: set[tuple[int, ...]] = set()
    arrays_under = {loop for s in scop.statements if not _scalar(s) for loop in paths.get(s.name, ())}
    scalar_loops = {loop for found in paths.values() for loop in found} - arrays_under
    alignment: dict[str, int] = {}
    changed = True
    while changed:
        changed = False
        for stmt in scop.statements:
            if stmt.region is not None:
                continue
            pos = alignment.get(stmt.name)
            if pos is None:
                pos = _choose(stmt, paths.get(stmt.name, ()), loops, members, scalar_loops)
                if pos is None:
                    continue
                alignment[stmt.name] = pos
                path = paths.get(stmt.name, ())
                if pos < len(path):
                    loops.add(path[pos])
                changed = True
            for array, axis in _moved(stmt, pos).items():
                if array not in members:
                    members[array] = axis
                    changed = True
                elif members[array] != axis:
                    raise UnsupportedError(
                        f"cannot cut {array} consistently: loop {stmt.iterators[pos]} moves its axis {axis}, "
                        f"another loop of the same cut its axis {members[array]}; keep these axes in one "
                        "chunk", stmt.span, stmt.source_line)
    order = [seed[0]] + [a for a in members if a != seed[0]]
    full = tuple((s.name, alignment.get(s.name)) for s in scop.statements)
    names = tuple(dict.fromkeys(s.iterators[p] for s in scop.statements if (p := alignment.get(s.name)) is not None))
    return Cut(tuple((a, members[a]) for a in order), full, names)


def _choose(stmt: Statement, path, loops: set, members: dict[str, int], scalar_loops: set) -> int | None:
    """The statement's iterator for the cut: a loop already in it, else the outermost one that
    moves every access to a member along the member's axis."""
    for pos, loop in enumerate(path):
        if loop in loops and pos < len(stmt.iterators):
            return pos
    accessed = _arrays(stmt)
    touched = {a for a in accessed if a in members}
    if not touched:
        return _bounded(stmt, path, members, scalar_loops) if _scalar(stmt) else None
    for pos in range(len(stmt.iterators)):
        moved = _moved(stmt, pos)
        if all(moved.get(a) == members[a] for a in touched):
            return pos
    return None


def _scalar(stmt: Statement) -> bool:
    """Does the statement access scalars only (no array)?"""
    return stmt.region is None and all(_rank(m) == 0 for m in _arrays(stmt).values())


def _bounded(stmt: Statement, path, members: dict[str, int], scalar_loops: set) -> int | None:
    """The outermost loop of a statement that accesses no array, among ``scalar_loops`` (loops
    whose body accesses no array), whose own bounds use the extent of a member along its axis
    (``for i in range(A.shape[0]): c += 1``), or None."""
    domain = stmt.domain.reset_tuple_id()
    extents = [shape_param(a, x) for a, x in members.items()]
    n = domain.dim(isl.dim_type.set)
    for pos in range(n):
        if pos >= len(path) or path[pos] not in scalar_loops:
            continue
        bounds = domain.project_out(isl.dim_type.set, pos + 1, n - pos - 1)  # the loop and those around it
        around = bounds.project_out(isl.dim_type.set, pos, 1).add_dims(isl.dim_type.set, 1)
        bounds = bounds.gist(around)  # the loop's own bounds: what the loops around it imply is left out
        for name in extents:
            k = bounds.find_dim_by_name(isl.dim_type.param, name)
            if k >= 0 and bounds.involves_dims(isl.dim_type.param, k, 1):
                return pos
    return None


def _arrays(stmt: Statement) -> dict[str, isl.UnionMap]:
    found: dict[str, isl.UnionMap] = {}

    def add(m: isl.Map) -> None:
        name = m.get_tuple_name(isl.dim_type.out)
        single = isl.UnionMap.from_map(m)
        found[name] = found[name].union(single) if name in found else single

    stmt.reads.union(stmt.writes).foreach_map(add)
    return found


def _moved(stmt: Statement, pos: int) -> dict[str, int]:
    """The arrays whose accesses iterator ``pos`` moves along exactly one axis, and that axis."""
    ctx = stmt.domain.get_ctx()
    step = shift_map(ctx, stmt.name, len(stmt.iterators), pos, 1)
    found = {}
    for name, access in _arrays(stmt).items():
        rank = _rank(access)
        moved = access.apply_domain(step)
        for axis in range(rank):
            shifted = moved.apply_range(shift_map(ctx, name, rank, axis, 1))
            both = access.intersect_domain(shifted.domain())
            if not both.is_empty() and both.is_equal(shifted.intersect_domain(access.domain())):
                found[name] = axis
                break
    return found


def _rank(access: isl.UnionMap) -> int:
    ranks: list[int] = []
    access.foreach_map(lambda m: ranks.append(m.dim(isl.dim_type.out)))
    return ranks[0]
