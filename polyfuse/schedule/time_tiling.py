"""Time tiling of time-stepped stencils, on top of the smart schedule.

A time-stepped stencil is an outer sequential loop whose body sweeps arrays that the next time
step reads again (jacobi, heat, fdtd, seidel).  The smart schedule streams the whole grid from
L3 or memory once per time step.  Time tiling runs several time steps over one block of the grid
while it stays in L2:

1. isl's scheduler, on just that nest's statements, skews the space loops by the time loop so
   that time and space form one permutable band (jacobi-2d: ``(t, 2t + i, 2t + j)``);
   An in-place sweep (seidel-2d, not parallel within a time step) qualifies when its dependence
   distances are constant: the skew (``(t, t + i, 2t + i + j)``) then makes its tiles' wavefronts
   parallel, as in Pluto;
2. the band is tiled (``band_tile``) with sizes from a footprint model: what one time step of a
   tile leaves in cache for the next (its box plus the skew's slide) fits in half of L2;
3. the tile loops are *wavefronted*: the outer tile loop becomes the sum of the first two tile
   coordinates (Pluto/PPCG), so tiles of one wavefront are independent and the second tile loop
   runs in parallel (a parallel region inside the sequential wavefront loop); a team of one
   thread runs the same tiles in lexicographic order or by columns instead, where dependences
   allow (``one_thread_order``; chosen at run time in the same region function);
4. the point loops below the time point loop drop the skew (``2t + i`` becomes ``i``: the time
   point loop fixes ``t``), so subscripts are the untiled code's ``A[i - 1]``; an in-place
   sweep's chain (seidel-2d's ``j`` loop) runs in steps ``2i + j`` whose rows are independent,
   so several rows' chains overlap (``rows_side_by_side``);
5. partial tiles are ``atomic`` (one loop nest with min/max bounds per statement); isolating full
   tiles (``ISOLATE_FULL_TILES``) is implemented but off: it did not pay for its compile time.

The caller verifies the whole program's schedule; a failed check means no time tiling.
``POLYFUSE_TIME_TILING=0`` turns the pass off.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import islpy as isl

from polyfuse.analysis.dependences import Dependences, carries
from polyfuse.model.isl_parts import maps_of
from polyfuse.model.schedule_tree import LoopNode, TreeNode, marked_time_tiles
from polyfuse.model.scop import Scop, isl_name
from polyfuse.schedule.isl_scheduler import compute_whole_components

#: time steps per tile.  Quiet machine (load 0.8), bench sizes, interleaved, min of 6, ms, T=4 / T=8
#: (untiled): 1 thread jacobi-2d 18.1 / 17.6 (35.4), heat-3d 34.4 / 32.0 (51.1), fdtd-2d 20.7 / 19.3
#: (34.4), jacobi-1d 10.6 / 10.2 (14.9); 2 threads 10.6 / 10.4 (16.3), 18.3 / 19.5 (22.6), 13.8 /
#: 13.6 (16.0), 6.6 / 6.0 (9.2).  8 won on one thread and tied on two (a wavefront then holds at
#: most 3 tiles at tsteps=20, enough for two threads).
TIME_TILE = 8
SPACE_TILES = (8, 16, 32, 64, 128, 256)  # candidate sizes of the outer space tiles
INNER_TILES = (64, 128, 256, 512, 1024, 2048)  # the innermost (stride-1) member gets a long tile
#: ``tile_sizes`` prefers the longer innermost member up to this length; beyond it, rows are long
#: enough (a remainder of at most 7 of 512 points) and the thinner outer tiles it would take cost
#: more: jacobi-2d 8 x 2048 ran 1.7x slower than 8 x 32 x 512 on two threads (more, smaller
#: wavefronts), fdtd-2d 8 x 1024 1.5x slower than 8 x 16 x 512.
LONG_INNER = 512
#: ``TimeTileDecision.rows`` of a nest whose tiles run a time step's sweeps in one loop nest
FUSED_TILES_TEXT = "sweeps fused in the tiles, shifts: "
MAX_ROW_SLOPE = 4  # steepest steps that run an in-place sweep's rows side by side (seidel-2d: 2)
_LOCK = threading.Lock()
#: Emit full tiles apart (isl ``isolate``: constant-trip, guard-free point loops).  Off: each
#: statement already has its own point loops with min/max bounds, which vectorize as well.  Bench
#: sizes, 1 thread, ms, isolated vs not (min of 6-9, same process): jacobi-2d 17.4 / 18.1,
#: 17.7 / 18.8; heat-3d 34.9 / 35.9, 32.7 / 32.0; fdtd-2d 20.6 / 19.6; jacobi-1d 12.9 / 10.5.
#: First-call compile time, s: jacobi-2d 4.7 / 0.9, heat-3d 10.4 / 3.0, fdtd-2d 11.2 / 2.2.
ISOLATE_FULL_TILES = False
ATOMIC_OPTION = "{ atomic[0] }"  # the time point loop: one loop, not one copy per case


@dataclass(frozen=True)
class TimeTileDecision:
    """What time tiling did with one top-level loop nest, and why."""

    loop: str  # the time loop's variable
    statements: tuple[str, ...]
    applied: bool
    band: str = ""  # the skewed band isl found, e.g. "(t, 2t + i, 2t + j)" for one statement
    sizes: tuple[int, ...] = ()  # tile size per band member, time first
    wavefront: str = ""  # which tile loop is the wavefront and which one runs in parallel
    footprint_bytes: int = 0  # one time step's box plus the skew's slide, every array the nest touches
    budget_bytes: int = 0
    reason: str = ""
    rows: str = ""  # an in-place sweep's rows run side by side (rows_side_by_side), or ""
    #: the tile order a team of one thread runs (``one_thread_order``): "lexicographic",
    #: "columns" or "" (the wavefronts), and why
    one_thread_order: str = ""
    one_thread: str = ""
    #: where ``one_thread_order`` is set: the nest's tiles ``(wavefront, tile1)`` as isl text, from
    #: which passes/tile_walks.py builds the order's tight tile loops
    tiles: str = ""
    #: where the nest runs untiled instead when its rows fit in L1 (``whole_row_version``), or ""
    whole_row: str = ""


# ---------------------------------------------------------------------------------------------
# detection


def time_loop_shape(scop: Scop, node: TreeNode) -> bool:
    """Does ``node`` look like a time loop: an ascending, untransformed loop whose body is a
    sequence of loop nests (sweeps), every statement inside it and at least one space loop?"""
    if not isinstance(node, LoopNode) or not node.body:
        return False
    if len(node.members) != 1 or node.sign < 0 or node.tile or node.register_tile:
        return False
    if not all(isinstance(child, LoopNode) for child in node.body):
        return False
    var = node.members[0].var
    return all(scop.statement(s).iterators[:1] == (var,) and len(scop.statement(s).iterators) >= 2
               for s in node.statements)


def stencil_problem(scop: Scop, deps: Dependences, node: LoopNode) -> str | None:
    """Why the time-loop-shaped ``node`` is not a time-stepped stencil nest (None: it is one)."""
    stmts = node.statements
    within = _restricted(deps.validity(), scop, stmts)
    time = isl.UnionMap(f"{scop.prefix} -> {{ {_first_dims(scop, stmts)} }}")
    if not carries(within, time, scop.context):
        return "the outer loop carries no dependence (no reuse across time steps)"
    in_place = [sweep for sweep in node.body if isinstance(sweep, LoopNode) and carries(
        _restricted(within, scop, sweep.statements), _sweep_prefix(scop, sweep), scop.context)]
    if in_place and not uniform_distances(within, scop.schedule_of((node,))):
        return (f"the sweep over {in_place[0].members[0].var} is not parallel within a time step and the "
                "nest's dependence distances are not constant (an in-place update that is no stencil)")
    return None


def uniform_distances(deps: isl.UnionMap, schedule: isl.Schedule) -> bool:
    """Is every distance of ``deps``, in the loop coordinates of ``schedule``, one of finitely many
    constant vectors (whatever the parameters)?  That is what makes an in-place sweep (seidel-2d:
    ``A[i, j]`` from its updated neighbours ``A[i - 1, j]``, ``A[i, j - 1]``) a stencil whose skew is
    bounded; lu's or floyd-warshall's distances grow with ``n``, and skewed tiles do not fit them."""
    order = schedule.get_map()
    distances: list[isl.Set] = []
    deps.apply_domain(order).apply_range(order).deltas().foreach_set(distances.append)
    return all(d.project_out(isl.dim_type.param, 0, d.dim(isl.dim_type.param)).is_bounded()
               for d in distances)


def _sweep_prefix(scop: Scop, sweep: LoopNode) -> isl.UnionMap:
    """statement -> [time, the sweep's outer loop] for the statements of ``sweep``."""
    iterators = {s.name: tuple(isl_name(v) for v in s.iterators) for s in scop.statements}
    pieces = []
    for member in sweep.members:
        for name in member.statements:
            iters = iterators[name]
            sign = "" if sweep.sign > 0 else "-"
            pieces.append(f"{name}[{', '.join(iters)}] -> [{iters[0]}, {sign}{member.var} + {member.shift}]")
    return isl.UnionMap(f"{scop.prefix} -> {{ {'; '.join(pieces)} }}")


def _restricted(umap: isl.UnionMap, scop: Scop, stmts: tuple[str, ...]) -> isl.UnionMap:
    domain = _domain(scop, stmts)
    return umap.intersect_domain(domain).intersect_range(domain)


def _domain(scop: Scop, stmts: tuple[str, ...]) -> isl.UnionSet:
    result = isl.UnionSet.empty(scop.context.get_space())
    for name in stmts:
        result = result.union(isl.UnionSet.from_set(scop.statement(name).domain))
    return result


def _first_dims(scop: Scop, stmts: tuple[str, ...]) -> str:
    parts = []
    for name in stmts:
        iters = [isl_name(v) for v in scop.statement(name).iterators]
        parts.append(f"{name}[{', '.join(iters)}] -> [{iters[0]}]")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------------------
# the skewed band


def skewed_band(scop: Scop, deps: Dependences, stmts: tuple[str, ...]) -> isl.Schedule | None:
    """isl's schedule of the nest alone: one outer permutable band, statements in program order."""
    validity = _restricted(deps.validity().union(deps.local_false()), scop, stmts)
    constraints = (
        isl.ScheduleConstraints.on_domain(_domain(scop, stmts))
        .set_context(scop.context)
        .set_validity(validity)
        .set_coincidence(validity)
        .set_proximity(_restricted(deps.union(), scop, stmts))
    )
    schedule = compute_whole_components(constraints)
    if schedule is None:
        return None
    return _in_program_order(schedule, scop, stmts)


def _in_program_order(schedule: isl.Schedule, scop: Scop, stmts: tuple[str, ...]) -> isl.Schedule:
    """Below the outer band, a leaf gets a sequence of the statements in program order (isl may
    map two statements to the same point of the band and leave their order open)."""
    band = schedule.get_root().child(0)
    if band.get_type() != isl.schedule_node_type.band or len(stmts) < 2:
        return schedule
    if band.child(0).get_type() != isl.schedule_node_type.leaf:
        return schedule
    order = [s.name for s in scop.statements if s.name in stmts]
    filters = isl.UnionSetList.alloc(schedule.get_ctx(), len(order))
    for name in order:
        filters = filters.add(isl.UnionSet.from_set(scop.statement(name).domain))
    return band.child(0).insert_sequence(filters).get_schedule()


def band_problem(schedule: isl.Schedule | None, scop: Scop, stmts: tuple[str, ...]) -> str | None:
    """Why isl's schedule of the nest cannot be time tiled (None: its outer band can)."""
    if schedule is None:
        return "isl's scheduler found no schedule for the nest"
    band = schedule.get_root().child(0)
    if band.get_type() != isl.schedule_node_type.band or not band.band_get_permutable():
        return "isl found no permutable outer band"
    if band.band_n_member() < 2:
        return "isl's outer band has a single member (no skew makes time and space permutable)"
    first = band.band_get_partial_schedule_union_map()
    time = isl.UnionMap(f"{scop.prefix} -> {{ {_first_dims(scop, stmts)} }}")
    domain = _domain(scop, stmts)
    if not _first_member(first).intersect_domain(domain).is_equal(time.intersect_domain(domain)):
        return "the outer band does not start with the time loop"
    return None


def _first_member(partial: isl.UnionMap) -> isl.UnionMap:
    result = isl.UnionMap.empty(partial.get_space())
    for piece in maps_of(partial):
        n = piece.dim(isl.dim_type.out)
        result = result.union(isl.UnionMap.from_map(piece.project_out(isl.dim_type.out, 1, n - 1)))
    return result


def band_text(schedule: isl.Schedule, scop: Scop, stmts: tuple[str, ...]) -> str:
    """The band for the first statement, ``(t, 2t + i, 2t + j)``."""
    band = schedule.get_root().child(0)
    partial = band.band_get_partial_schedule_union_map()
    name = stmts[0]
    piece = partial.intersect_domain(isl.UnionSet.from_set(scop.statement(name).domain))
    maps = maps_of(piece)
    text = maps[0].remove_divs().to_str() if maps else ""
    start, end = text.find("-> ["), text.rfind("]")
    return f"{name}: ({text[start + 4:end]})" if start >= 0 else text


def skews(schedule: isl.Schedule) -> tuple[int, ...]:
    """The largest time coefficient of each space member of the outer band (its skew)."""
    band = schedule.get_root().child(0)
    partial = band.band_get_partial_schedule()
    return tuple(_time_coefficient(partial.get_at(k)) for k in range(1, band.band_n_member()))


def _time_coefficient(upa: isl.UnionPwAff) -> int:
    pieces: list[isl.PwAff] = []
    upa.foreach_pw_aff(pieces.append)
    affs: list[isl.Aff] = []
    for pwa in pieces:
        pwa.foreach_piece(lambda _set, aff: affs.append(aff))
    return max((abs(int(a.get_coefficient_val(isl.dim_type.in_, 0).to_python())) for a in affs), default=0)


# ---------------------------------------------------------------------------------------------
# tile sizes


def tile_sizes(skew: tuple[int, ...], arrays_bytes: int, budget: int) -> tuple[tuple[int, ...], int]:
    """(sizes, footprint): the time tile ``TIME_TILE`` and the largest space tile that fits.

    Footprint model: a tile's time steps reuse what the previous step left in L2, so what must
    stay there is one step's box plus the slide to the next step, ``prod(S_k + skew_k)`` elements
    of every array the nest touches (``arrays_bytes``: their element sizes summed).  Among the
    space tiles that fit ``budget`` the one with most points wins; among those, the longest
    innermost member up to ``LONG_INNER`` (the vectorized loop: each of its pieces pays a loop
    entry and a scalar remainder, and a tile boundary splits a row into more pieces), then the
    least halo.  The other members are equal."""
    best: tuple[int, int, float, tuple[int, ...], int] = (0, 0, 0.0, (), 0)
    spaces = len(skew)
    for inner in INNER_TILES:
        for outer in SPACE_TILES if spaces > 1 else (0,):
            sizes = tuple([outer] * (spaces - 1) + [inner])
            footprint = arrays_bytes
            volume = 1
            for size, s in zip(sizes, skew):
                footprint *= size + s
                volume *= size
            if footprint > budget:
                continue
            candidate = (volume, min(inner, LONG_INNER), volume / footprint, (TIME_TILE, *sizes), footprint)
            if candidate[:3] > best[:3]:
                best = candidate
    return best[3], best[4]


# ---------------------------------------------------------------------------------------------
# tiling, wavefront, isolation


def tiled_wavefront(schedule: isl.Schedule, sizes: tuple[int, ...], *, isolate: bool | None = None,
                    fused: isl.MultiUnionPwAff | None = None, atomic_tiles: bool = False) -> isl.Schedule:
    """The outer band tiled by ``sizes`` and wavefronted.

    Tile loops count tiles (``floor(x / S)``); the first becomes the sum of the first
    ``wavefront_members`` of them, so the others of those run in parallel within a wavefront.
    Point loops: the time point loop outermost, then each statement's own space loops
    (``band_sink``), so each sweep's innermost loop stays a separate, vectorizable loop as in the
    untiled code, and in the statement's own coordinates (``_unskewed``: ``i``, not ``2t + i``).
    ``isolate`` (default ``ISOLATE_FULL_TILES``): full tiles apart.

    ``atomic_tiles``: the tile loops ``atomic`` too, one loop nest over every statement's tiles.
    By default isl's AST generator cuts a tile loop's range where the set of statements with
    points there changes, and gives each piece its own copy of the point loops: fdtd-2d's
    ``ey[0, j] = fict[t]`` (no ``i``) lives in one tile column only, so the wavefront loop came
    out as two loops (two parallel regions) and the column apart, three copies of the three
    sweeps for LLVM to optimise (0.54 of its first call's 0.85 s of compile CPU at the bench
    sizes, docs/performance.md *Compile time, session 32*).  Atomic, the lone statement gets a
    guard per time step of its tile instead."""
    tiles = _wavefronted(_tiled(schedule.get_root().child(0), sizes), sizes)
    if atomic_tiles:
        tiles = _atomic(tiles)
    point = tiles.child(0)
    isolate = ISOLATE_FULL_TILES if isolate is None else isolate
    full = _full_tiles(point, sizes) if isolate else None
    time = point.band_split(1)
    if fused is not None and time.child(0).child(0).get_type() == isl.schedule_node_type.sequence:
        space = time.child(0).delete().insert_partial_schedule(fused.intersect_domain(time.get_domain()))
        time = _fused_options(space).parent()
    elif time.child(0).child(0).get_type() == isl.schedule_node_type.sequence:
        time = _atomic_children(time.child(0).band_sink()).parent()
    else:
        time = _atomic(_unskewed(time.child(0))).parent()
    options = isl.UnionSet(ATOMIC_OPTION)
    if full is not None:
        option = isl.Map.from_domain_and_range(full, _universe(full, 1)).wrap().set_tuple_name("isolate")
        options = options.union(isl.UnionSet.from_set(option))
    return time.band_set_ast_build_options(options).get_schedule()


def _fused_options(band: isl.ScheduleNode) -> isl.ScheduleNode:
    """The fused point band's AST options: ``atomic`` outer members (one loop over the union of
    the statements' ranges, as the separate bands have), the innermost ``separate`` (a prologue,
    the guard-free fused row, an epilogue), so the row loop has no condition inside."""
    n = band.band_n_member()
    members = [f"atomic[{k}]" for k in range(n - 1)] + [f"separate[{n - 1}]"]
    return band.band_set_ast_build_options(isl.UnionSet(f"{{ {'; '.join(members)} }}"))


def tile_sweep_shifts(scop: Scop, deps: Dependences, stmts: tuple[str, ...]) -> dict[str, tuple[int, ...]] | None:
    """Per statement of a time-tiled nest of several sweeps, the shift of its own space
    coordinates that lets one point loop nest inside a time tile run every sweep of a time step
    (the first statement unshifted), or None.

    A dependence between two statements within one time step, from ``a`` at ``x`` to ``b`` at
    ``y`` (``a`` before ``b`` in the program), is kept by the fused loops (``a``'s point at
    ``x + s_a``, ``b``'s at ``y + s_b``, ``a`` first within one point) exactly where
    ``(y - x) + (s_b - s_a)`` is lexicographically >= 0; lexicographic order is invariant under
    translation, so the least such ``s_b`` is ``s_a - lexmin(y - x)`` (over every parameter value),
    the lexicographic maximum over the earlier statements.  None where the statements' space
    dimensions differ, a dependence within a time step runs from a later statement to an earlier
    one, or a set of distances has no lexicographic minimum (not bounded)."""
    dims = {len(scop.statement(s).iterators) for s in stmts}
    if len(stmts) < 2 or len(dims) != 1 or dims.pop() < 2:
        return None
    if not _loads_carried(scop, stmts):
        return None  # as fused_sweeps: a load the backend could not carry would wait on the stores
    validity = _restricted(deps.validity(), scop, stmts)
    order = [s.name for s in scop.statements if s.name in stmts]  # the sequence's order
    shifts: dict[str, tuple[int, ...]] = {}
    for index, b in enumerate(order):
        n = len(scop.statement(b).iterators)
        best: tuple[int, ...] = (0,) * (n - 1)
        for a in order[:index]:
            for src, dst in ((a, b), (b, a)):
                dist = _step_distances(scop, validity, src, dst, n)
                if dist is None:
                    return None
                if dist.is_empty():
                    continue
                if src == b:
                    return None  # a later sweep feeds an earlier one within a time step
                if not dist.is_bounded():
                    return None
                low = dist.lexmin()
                if not low.is_singleton():
                    return None
                point = low.sample_point()
                least = tuple(int(point.get_coordinate_val(isl.dim_type.set, k).to_python()) for k in range(n - 1))
                need = tuple(sa - d for sa, d in zip(shifts[a], least))
                best = max(best, need)
        shifts[b] = best
    return shifts


def _step_distances(scop: Scop, validity: isl.UnionMap, src: str, dst: str, n: int) -> isl.Set | None:
    """``y - x`` (space coordinates) over the dependences from ``src[t, x]`` to ``dst[t, y]``
    within one time step, every parameter value taken (None: not expressible)."""
    xs = [f"x{k}" for k in range(n)]
    ys = [f"y{k}" for k in range(n)]
    diff = ", ".join(f"{y} - {x}" for x, y in zip(xs[1:], ys[1:]))
    text = f"{scop.prefix} -> {{ [{src}[{', '.join(xs)}] -> {dst}[{', '.join(ys)}]] -> [{diff}] : {ys[0]} = {xs[0]} }}"
    try:
        to_diff = isl.UnionMap(text)
    except isl.Error:
        return None
    pairs = validity.intersect_domain(isl.UnionSet(f"{scop.prefix} -> {{ {src}[{', '.join(xs)}] }}")) \
        .intersect_range(isl.UnionSet(f"{scop.prefix} -> {{ {dst}[{', '.join(ys)}] }}"))
    image = pairs.wrap().apply(to_diff)
    if image.is_empty():
        return isl.Set.empty(isl.Space.set_alloc(validity.get_ctx(), 0, n - 1))
    result = isl.Set.from_union_set(image)
    return result.project_out(isl.dim_type.param, 0, result.dim(isl.dim_type.param))


def fused_tile_band(scop: Scop, stmts: tuple[str, ...], shifts: dict[str, tuple[int, ...]]) -> isl.MultiUnionPwAff:
    """The point band below a time tile's time point loop that runs every sweep in one loop nest:
    each statement's own space coordinates plus its shift (``tile_sweep_shifts``)."""
    pieces = []
    for name in stmts:
        iters = [isl_name(v) for v in scop.statement(name).iterators]
        members = [f"{v} + {s}" if s else v for v, s in zip(iters[1:], shifts[name])]
        pieces.append(f"{name}[{', '.join(iters)}] -> [{', '.join(members)}]")
    umap = isl.UnionMap(f"{scop.prefix} -> {{ {'; '.join(pieces)} }}").intersect_domain(_domain(scop, stmts))
    return isl.MultiUnionPwAff.from_union_map(umap)


def _unskewed(band: isl.ScheduleNode) -> isl.ScheduleNode:
    """The space point loops below the time point loop in each statement's own coordinates.

    The time point loop fixes ``t``, so a space member ``c * t + f(i, j)`` (``2t + i``) orders the
    points of one time step exactly as ``f(i, j)`` does: dropping ``c * t`` shifts each point loop
    by a value the loops around it fix.  Where the band schedules several statements, ``c`` (and a
    dropped constant) must be the same for all of them, or the shift would reorder them.  Where it
    schedules one, each member also drops the iterators the members before it fix (seidel-2d's
    ``(t + i, 2t + i + j)`` becomes ``(i, j)``).  The loop code then indexes ``A[i - 1]`` instead
    of ``A[_t3 - 2 * _t2 - 1]``, and LLVM keeps a neighbour's load for the next iteration (one
    load per element instead of three in jacobi-1d's inner loop).  A member with integer
    divisions, or statements that disagree, leave the band as it is; the caller verifies the
    schedule either way."""
    partial, domain = band.band_get_partial_schedule(), band.get_domain()
    single = len({s.get_tuple_name() for s in _sets_of(domain)}) == 1
    fixed = {0}
    for k in range(band.band_n_member()):
        member = _shifted(partial.get_at(k).intersect_domain_union_set(domain), fixed, single)
        if member is None:
            return band
        partial = partial.set_at(k, member)
    return band.delete().insert_partial_schedule(partial).band_set_permutable(1)


def _sets_of(domain: isl.UnionSet) -> list[isl.Set]:
    sets: list[isl.Set] = []
    domain.foreach_set(sets.append)
    return sets


def _shifted(upa: isl.UnionPwAff, fixed: set[int], single: bool) -> isl.UnionPwAff | None:
    """``upa`` without its terms in the iterators ``fixed`` (and without its constant where every
    piece has the same one), or None where it cannot be (see ``_unskewed``).  With ``single``,
    the iterator this member then fixes (its only other one) joins ``fixed``."""
    pieces: list[tuple[isl.Set, isl.Aff]] = []
    pwas: list[isl.PwAff] = []
    upa.foreach_pw_aff(pwas.append)
    for pwa in pwas:
        pwa.foreach_piece(lambda domain, aff: pieces.append((domain, aff)))
    if not pieces or any(aff.dim(isl.dim_type.div) for _domain, aff in pieces):
        return None
    dropped = {tuple(_coefficient(aff, d) for d in sorted(fixed)) for _domain, aff in pieces}
    if len(dropped) > 1:
        return None
    same_constant = len({aff.get_constant_val().to_python() for _domain, aff in pieces}) == 1
    result = isl.UnionPwAff.empty(upa.get_space())
    free: set[int] = set()
    for domain, aff in pieces:
        for d in fixed:
            aff = aff.set_coefficient_val(isl.dim_type.in_, d, isl.Val(0))
        if same_constant:
            aff = aff.set_constant_val(isl.Val(0))
        free |= {d for d in range(aff.dim(isl.dim_type.in_)) if _coefficient(aff, d)}
        result = result.union_add(isl.UnionPwAff.from_pw_aff(isl.PwAff.alloc(domain, aff)))
    if single and len(free) == 1:
        fixed |= free
    return result


def _coefficient(aff: isl.Aff, dim: int) -> int:
    return int(aff.get_coefficient_val(isl.dim_type.in_, dim).to_python())


def row_slope(scop: Scop, deps: Dependences, stmts: tuple[str, ...]) -> int | None:
    """The slope of the steps that run the rows of a one-statement in-place sweep side by side,
    or None (not one statement, or its innermost loop carries nothing within a time step).

    seidel-2d's ``A[i, j]`` needs ``A[i, j - 1]`` of the same time step: its ``j`` loop is one
    chain of dependent additions and a division, latency-bound on one thread.  Within a time step
    (and one value of any loops outside the last two) its dependence distances ``(di, dj)`` are
    ``(0, 1)``, ``(1, -1)``, ``(1, 0)``, ``(1, 1)``; for the smallest ``slope`` with
    ``slope * di + dj >= 1`` for every distance (seidel-2d: 2), the points of one step
    ``slope * i + j`` are independent of each other (``rows_side_by_side``)."""
    if len(stmts) != 1 or len(scop.statement(stmts[0]).iterators) < 3:
        return None
    domain = _domain(scop, stmts)
    own = deps.validity().intersect_domain(domain).intersect_range(domain)
    if own.is_empty():
        return None
    deltas = isl.Set.from_union_set(own.deltas())
    deltas = deltas.project_out(isl.dim_type.param, 0, deltas.dim(isl.dim_type.param))
    xs = [f"d{k}" for k in range(deltas.dim(isl.dim_type.set))]
    point = f"{deltas.get_tuple_name() or ''}[{', '.join(xs)}]"
    p, q = xs[-2], xs[-1]
    within = deltas.intersect(isl.Set(f"{{ {point} : {' and '.join(f'{x} = 0' for x in xs[:-2])} }}"))
    if within.intersect(isl.Set(f"{{ {point} : {p} = 0 and {q} >= 1 }}")).is_empty():
        return None  # the innermost loop carries nothing within a time step: no chain
    for slope in range(1, MAX_ROW_SLOPE + 1):
        if within.intersect(isl.Set(f"{{ {point} : {slope}{p} + {q} <= 0 }}")).is_empty():
            return slope
    return None


def rows_side_by_side(schedule: isl.Schedule, slope: int) -> isl.Schedule | None:
    """The tiled ``schedule`` of one statement with its last two point loops ``(p, q)`` replaced
    by ``(slope * p + q, p)``: each step of the new loop holds points of several rows, which no
    dependence joins, so the row loop inside it is parallel and the rows' chains overlap (the
    core runs several independent divisions at once).  None where the point band is not the
    statement's own iterators.  The caller verifies the schedule."""
    time = schedule.get_root().child(0).child(0)
    band = time.child(0) if time.get_type() == isl.schedule_node_type.band else None
    if band is None or band.get_type() != isl.schedule_node_type.band:
        return None
    domain = band.get_domain()
    sets = _sets_of(domain)
    n, members = (sets[0].dim(isl.dim_type.set), band.band_n_member()) if len(sets) == 1 else (0, 0)
    if members < 2 or members != n - 1:
        return None
    xs = [f"x{k}" for k in range(n)]
    head = f"{sets[0].get_tuple_name()}[{', '.join(xs)}]"
    partial = band.band_get_partial_schedule()
    for k in range(members):
        plain = isl.UnionMap(f"{{ {head} -> [{xs[k + 1]}] }}").intersect_domain(domain)
        if not isl.UnionMap.from_union_pw_aff(partial.get_at(k)).intersect_domain(domain).is_equal(plain):
            return None
    p, q = xs[-2], xs[-1]
    steps = isl.UnionMap(f"{{ {head} -> [{', '.join([*xs[1:-2], f'{slope}{p} + {q}', p])}] }}")
    partial = isl.MultiUnionPwAff.from_union_map(steps.intersect_domain(domain))
    return _atomic(band.delete().insert_partial_schedule(partial)).get_schedule()


def _tiled(band: isl.ScheduleNode, sizes: tuple[int, ...]) -> isl.ScheduleNode:
    """``band_tile`` with tile loops counting tiles and point loops in the band's coordinates."""
    ctx = band.get_ctx()
    mv = isl.MultiVal.zero(band.band_get_space())
    for k, size in enumerate(sizes):
        mv = mv.set_val(k, isl.Val(size))
    with _LOCK:
        scale, shift = ctx.get_tile_scale_tile_loops(), ctx.get_tile_shift_point_loops()
        ctx.set_tile_scale_tile_loops(0)
        ctx.set_tile_shift_point_loops(0)
        try:
            return band.band_tile(mv)
        finally:
            ctx.set_tile_scale_tile_loops(scale)
            ctx.set_tile_shift_point_loops(shift)


def _wavefronted(tiles: isl.ScheduleNode, sizes: tuple[int, ...]) -> isl.ScheduleNode:
    """The tile band with its first member replaced by the wavefront (a sum of tile loops)."""
    partial = tiles.band_get_partial_schedule()
    wave = partial.get_at(0)
    for k in range(1, wavefront_members(len(sizes))):
        wave = wave.add(partial.get_at(k))
    partial = partial.set_at(0, wave)
    return tiles.delete().insert_partial_schedule(partial).band_set_permutable(1)


def _atomic(band: isl.ScheduleNode) -> isl.ScheduleNode:
    """``band`` with isl's ``atomic`` option on every member: partial tiles get one loop nest with
    min/max bounds instead of one copy per case (code size and compile time)."""
    if band.get_type() != isl.schedule_node_type.band:
        return band
    members = "; ".join(f"atomic[{k}]" for k in range(band.band_n_member()))
    return band.band_set_ast_build_options(isl.UnionSet(f"{{ {members} }}"))


def _atomic_children(sequence: isl.ScheduleNode) -> isl.ScheduleNode:
    """Each filter's band below ``sequence`` made atomic."""
    for k in range(sequence.n_children()):
        sequence = _atomic(_unskewed(sequence.child(k).child(0))).parent().parent()
    return sequence


def _universe(like: isl.Set, dims: int) -> isl.Set:
    space = isl.Space.set_alloc(like.get_ctx(), 0, dims).align_params(like.get_space())
    return isl.Set.universe(space)


def _full_tiles(band: isl.ScheduleNode, sizes: tuple[int, ...]) -> isl.Set | None:
    """Tiles (values of the tile loops above ``band``) in which every statement either fills the
    whole tile or does not occur: there the point loops need no guards."""
    domain = band.get_domain()
    prefix = band.get_prefix_schedule_union_map().intersect_domain(domain)
    point = band.band_get_partial_schedule_union_map().intersect_domain(domain)
    tile = _tile_of_point(sizes, band.get_ctx())
    touched, partial = None, None
    for piece in maps_of(point):
        image = piece.range()
        aligned = tile.align_params(image.get_space())
        image = image.align_params(aligned.get_space())
        here = aligned.intersect_domain(image).range()
        bad = here.intersect(aligned.intersect_domain(image.complement()).range())
        touched = here if touched is None else touched.union(here)
        partial = bad if partial is None else partial.union(bad)
    if touched is None or partial is None or prefix.is_empty():
        return None
    full = touched.subtract(partial).coalesce()
    if full.is_empty() or isl.Set.from_union_set(prefix.range()).dim(isl.dim_type.set) != len(sizes):
        return None
    return isl.Set.from_basic_set(full.simple_hull()) if full.n_basic_set() > 1 else full


def wavefront_members(members: int) -> int:
    """How many tile coordinates the wavefront sums: the first two (Pluto/PPCG), so the second
    tile loop runs in parallel within a wavefront.  Summing three (jacobi-2d: tt + ti + tj, up to
    ~30 tiles per wavefront instead of the number of time tiles) would feed more threads, but
    verifying that schedule took isl over 10 s and ran out of its budget on jacobi-2d and fdtd-2d."""
    return min(2, members)


def one_thread_order(scop: Scop, deps: Dependences, band: isl.Schedule, tiled: isl.Schedule,
                     stmts: tuple[str, ...], sizes: tuple[int, ...], skew: tuple[int, ...]) -> tuple[str, str, str]:
    """(order, why, tiles): the order in which a team of one thread runs the tiles of ``tiled``
    instead of wavefronts ``(tile0 + tile1, tile1, ...)``, or ("", "", "") where it keeps them;
    ``tiles``: the set of the nest's ``(wavefront, tile1)`` pairs, as isl text.

    On one thread a long wavefront spans the grid: a tile's predecessors, along time and along
    ``tile1``, ran a whole wave earlier, and their data left the cache.  Which predecessor to
    run just before a tile depends on where its input comes from (docs/performance.md, *One
    thread: the order of the tiles*):

    - ``"lexicographic"`` ``(tile0, tile1, ...)`` where the skew slides a tile past its own
      width within one time tile (``skew1 * T >= S1``: heat-3d's 8 x 8 x 8 x 256 with skew 2):
      most of what a tile reads its neighbours along ``tile1`` wrote in the same time tile;
    - ``"columns"`` ``(tile1, tile0, ...)`` otherwise (jacobi-2d's 8 x 32 x 512, fdtd-2d,
      seidel-2d): a tile reads mostly what its own predecessor in time wrote, so each column of
      tiles along ``tile1`` runs through all time tiles; the backend keeps short waves (few time
      tiles over a small part of the grid), whose data stays in cache anyway (backends/cpu/llvm.py,
      ``COLUMN_WAVE_SHARE``).

    Both orders are legal when every dependence of the nest has distance >= 0 in the first two
    members of the skewed ``band`` (checked here): tile coordinates are floors of them, so a
    dependence between two tiles has ``d(tile0) >= 0`` and ``d(tile1) >= 0``, which all three
    orders respect (where both are 0 the tiles share a wavefront and ``tile1``, and the tile loops
    inside order them as before).  The backend finds the two tile loops by shape and by their names, the
    nest's first two schedule dimensions (``KernelCodegen.tile_pair``), so both must be loops: neither may take a single value (isl would generate
    no loop for it)."""
    validity = _restricted(deps.validity().union(deps.local_false()), scop, stmts)
    partial = band.get_root().child(0).band_get_partial_schedule()
    for k in range(2):
        member = isl.UnionMap.from_union_pw_aff(partial.get_at(k))
        distances = validity.apply_domain(member).apply_range(member).deltas()
        if not distances.intersect(isl.UnionSet("{ [d] : d < 0 }")).is_empty():
            return "", "", ""
    tiles = tiled.get_root().child(0)
    points = tiles.band_get_partial_schedule_union_map().intersect_domain(tiles.get_domain()).range()
    if points.is_empty() or _single_valued(isl.Set.from_union_set(points)):
        return "", "", ""
    pairs = isl.Set.from_union_set(points)
    pairs = pairs.project_out(isl.dim_type.set, 2, pairs.dim(isl.dim_type.set) - 2).coalesce()
    legal = "every dependence distance of the band's first two members is >= 0"
    if skew[0] * sizes[0] >= sizes[1]:
        return "lexicographic", (f"tiles in lexicographic order (tile0, tile1, ...): the skew slides a tile "
                                 f"{skew[0] * sizes[0]} >= {sizes[1]} points along tile1 per time tile; {legal}"), \
            pairs.to_str()
    return "columns", (f"on long waves, tiles by columns (tile1, tile0, ...): the skew slides a tile "
                       f"{skew[0] * sizes[0]} < {sizes[1]} points along tile1 per time tile; {legal}"), pairs.to_str()


def _single_valued(tiles: isl.Set) -> bool:
    """Does the wavefront (dimension 0 of ``tiles``) take one value, or ``tile1`` (dimension 1)
    one value per wavefront?"""
    n = tiles.dim(isl.dim_type.set)
    pair = tiles.project_out(isl.dim_type.set, 2, n - 2)
    wave = isl.Map.from_range(pair.project_out(isl.dim_type.set, 1, 1))
    inner = isl.Map.from_range(pair).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, 1)
    return wave.is_single_valued() or inner.is_single_valued()


def _tile_of_point(sizes: tuple[int, ...], ctx: isl.Context) -> isl.Map:
    """``[x0, x1, ...] -> [x0/S0 + x1/S1, x1/S1, x2/S2, ...]`` (floors): a point's wavefront tile."""
    xs = [f"x{k}" for k in range(len(sizes))]
    tiles = [f"floor(x{k}/{size})" for k, size in enumerate(sizes)]
    out = [" + ".join(tiles[:wavefront_members(len(sizes))]), *tiles[1:]]
    return isl.Map.read_from_str(ctx, f"{{ [{', '.join(xs)}] -> [{', '.join(out)}] }}")


# ---------------------------------------------------------------------------------------------
# the pass


def time_tile(scop: Scop, deps: Dependences, body: tuple[TreeNode, ...], *, budget: int,
              fixed_sizes: tuple[int, ...] = (), whole_row: int = 0, fused_rows: int = 0,
              fused_tiles: int = 0, atomic_tiles: bool = False,
              ) -> tuple[tuple[isl.Schedule | None, ...], tuple[TimeTileDecision, ...]]:
    """The time-tiled schedule of each node of ``body`` (None where it is not a time-stepped
    stencil nest), and one decision per top-level loop that looked like a stencil nest.
    ``whole_row`` (bytes, 0: off) and ``fused_rows``: see ``whole_row_version``; ``fused_tiles``:
    a tile's sweeps of one time step run in one point loop nest where they have at most that
    many space dimensions (``tile_sweep_shifts``; 0: never); ``atomic_tiles``: one loop nest of
    tile loops for every statement (``tiled_wavefront``)."""
    parts: list[isl.Schedule | None] = []
    decisions: list[TimeTileDecision] = []
    for node in body:
        schedule, decision = _nest(scop, deps, node, budget, fixed_sizes, whole_row, fused_rows, fused_tiles,
                                   atomic_tiles)
        parts.append(schedule)
        if decision is not None:
            decisions.append(decision)
    return tuple(parts), tuple(decisions)


def _nest(scop: Scop, deps: Dependences, node: TreeNode, budget: int,
          fixed_sizes: tuple[int, ...], whole_row: int = 0,
          fused_rows: int = 0, fused_tiles: int = 0,
          atomic_tiles: bool = False) -> tuple[isl.Schedule | None, TimeTileDecision | None]:
    """The time-tiled schedule of one top-level node, or None and why not (no record for nodes
    that do not even look like a time loop)."""
    if not time_loop_shape(scop, node):
        return None, None
    assert isinstance(node, LoopNode)
    stmts, var = node.statements, _var(scop, node)
    problem = stencil_problem(scop, deps, node)
    if problem is not None:
        return None, TimeTileDecision(var, stmts, False, reason=problem)
    band = skewed_band(scop, deps, stmts)
    problem = band_problem(band, scop, stmts)
    if problem is not None or band is None:
        return None, TimeTileDecision(var, stmts, False, reason=problem or "")
    skew = skews(band)
    sizes, footprint = tile_sizes(skew, _element_bytes(scop, stmts), budget)
    sizes = _fixed_sizes(fixed_sizes, len(skew) + 1) or sizes
    text = band_text(band, scop, stmts)
    if not sizes:
        return None, TimeTileDecision(var, stmts, False, text, budget_bytes=budget,
                                      reason="no tile fits the cache budget")
    slope = row_slope(scop, deps, stmts)
    shifts = (tile_sweep_shifts(scop, deps, stmts)
              if fused_tiles and slope is None and len(skew) <= fused_tiles else None)
    tiled = tiled_wavefront(band, sizes, fused=fused_tile_band(scop, stmts, shifts) if shifts else None,
                            atomic_tiles=atomic_tiles)
    sided = rows_side_by_side(tiled, slope) if slope is not None else None
    order, why, pairs = one_thread_order(scop, deps, band, tiled, stmts, sizes, skew)
    rows = "" if sided is None else (f"rows side by side: a tile's point (.., p, q) at step {slope}p + q, "
                                     "the row loop p innermost (no dependence within a step)")
    if shifts and sided is None:
        rows = FUSED_TILES_TEXT + ", ".join(f"{name} {shift}" for name, shift in shifts.items())
    result = marked_time_tiles(tiled if sided is None else sided)
    versioned = (whole_row_version(scop, node, result, whole_row // _element_bytes(scop, stmts), deps,
                                   fused_rows)
                 if whole_row and len(sizes) == 2 and sided is None else None)
    whole = ""
    if versioned is not None:
        result, whole = versioned
    return result, TimeTileDecision(
        var, stmts, True, text, sizes, _wavefront_text(len(sizes)),
        footprint, budget, f"time loop {var} carries the dependences of {len(stmts)} statement(s); "
        f"skew {skew} makes time and space permutable; tiles fit the budget", rows, order, why, pairs, whole)


def whole_row_version(scop: Scop, node: LoopNode, tiled: isl.Schedule,
                      points: int, deps: Dependences | None = None,
                      fuse_rows: int = 0) -> tuple[isl.Schedule, str] | None:
    """(schedule, why): ``tiled`` where a row of the nest spans more than ``points`` points, and
    the untiled nest (``node``'s own loops, one whole row per sweep) where every row fits, chosen
    at run time on the parameters (isl emits the test), or None where no parameter values would
    take one of the two (or the nest is not a one-dimensional band: statements ``[t, i]``).

    Where the whole grid fits in L1 (``points``: the L1 budget over the nest's element sizes)
    time tiles save no memory traffic, and tile boundaries only split the skewed rows into
    pieces with their own loop entry and vector tail (a row ``2t + i`` crosses a boundary of
    ``S``-point tiles once ``2t`` passes ``S - n``).  Both versions run the same statements in
    orders the caller verifies as one schedule (a sequence of the two, their filters disjoint in
    the parameters); the function still counts as time-tiled (its wide-vector preference).

    With ``fuse_rows`` (``POLYFUSE_TIME_TILE_FUSED_ROWS``, default on) the untiled side runs the
    sweeps of one time step in one row loop (``fused_sweeps``): jacobi-1d's ``B[i]`` and then
    ``A[i - 1]`` in each iteration, so the second sweep reads ``B`` right after the first stored
    it (from registers: polyfuse/analysis/carried_loads.py) and each row is walked once per time step, not
    twice.  ``fuse_rows`` is the least bytes of a row (of the widest element) for that, per sweep
    fused into the first (two sweeps: once, three: twice): below it each sweep keeps its own row loop (a third version on the parameters; ``Options.time_tile_fused_rows``:
    the fused loop ends each row in up to two vectors' worth of scalar iterations of every sweep,
    the separate loops in one overlapping vector step each).  The caller retries without it
    where the fused program does not verify."""
    stmts = node.statements
    pieces = []
    for name in stmts:
        iters = [isl_name(v) for v in scop.statement(name).iterators]
        if len(iters) != 2:
            return None
        pieces.append(f"{name}[{', '.join(iters)}] -> [{iters[1]}]")
    domain = _domain(scop, stmts)
    rows = isl.UnionMap(f"{scop.prefix} -> {{ {'; '.join(pieces)} }}").intersect_domain(domain).range()
    if rows.is_empty():
        return None
    row = isl.Set.from_union_set(rows)
    spans = isl.Map.from_domain_and_range(row, row).deltas()
    wide = _rows_spanning(scop, spans, points)
    fits = scop.context.subtract(wide).coalesce()
    if fits.is_empty() or wide.is_empty():
        return None
    fused = fused_sweeps(scop, deps, node) if fuse_rows and deps is not None else None
    # rows shorter than ``fuse_rows`` bytes of the widest element per sweep fused into the first
    # keep a row loop per sweep
    least = -(-fuse_rows // _widest_element(scop, stmts)) * (len(node.body) - 1) if fused is not None else 0
    longer = _rows_spanning(scop, spans, least - 1).intersect(fits).coalesce() if least > 1 else fits
    if longer.is_empty():
        fused = None
    untiled = [(node, fits.subtract(longer).coalesce()), (fused, longer)] if fused is not None else [(node, fits)]
    parts = [scop.schedule_of((how,)).intersect_domain(domain.intersect_params(where))
             for how, where in untiled if how is not None and not where.is_empty()]
    plain = parts[0].sequence(parts[1]) if len(parts) == 2 else parts[0]
    how = ("; there the sweeps of a time step run fused into one row loop"
           f" (shifts {', '.join(str(m.shift) for m in fused.body[0].members)})"
           if isinstance(fused, LoopNode) and isinstance(fused.body[0], LoopNode) else "")
    if how and least > 1 and len(parts) == 2:
        how += f" where a row has at least {least} points ({longer.to_str()}), one row loop per sweep below"
    return plain.sequence(tiled.intersect_domain(domain.intersect_params(wide))), (
        f"untiled where every row fits in {points} points ({fits.to_str()}){how}, else the tiles")


def _rows_spanning(scop: Scop, spans: isl.Set, points: int) -> isl.Set:
    """The parameters (within the context) where two points of a row lie ``points`` or more apart
    (``spans``: the distances between a row's points): some row has more than ``points`` points."""
    far = spans.intersect(isl.Set.read_from_str(spans.get_ctx(), f"{{ [d] : d >= {points} }}")).params()
    return far.intersect(scop.context).coalesce()


def fused_sweeps(scop: Scop, deps: Dependences, node: LoopNode) -> LoopNode | None:
    """``node`` (a time loop over row sweeps) with its sweeps fused into one row loop, each later
    sweep shifted by the fewest iterations that keep every dependence from the earlier ones
    forward (``SmartFusion.required_shift``), or None where the body is not two or more
    ascending row loops of statements (a row loop smart fusion already made of several sweeps
    counts as one), or where the backend could not keep the values a sweep reads from an earlier
    one in registers (polyfuse/analysis/carried_loads.py, ``queue_ready``: a conditional expression, a bool
    array): those loads would wait on the stores before them (jacobi-1d 3x slower).  The loop is generated ``separate``ly (the members'
    extents differ: a prologue of the first sweep, the fused loop, an epilogue of the last).
    Legality is the caller's to verify: a shift that does not make every dependence forward
    (one that is not a constant, say) fails the whole program's check."""
    from dataclasses import replace

    from polyfuse.schedule.fusion import SmartFusion

    if not _loads_carried(scop, node.statements):
        return None
    sweeps = node.body
    if len(sweeps) < 2 or not all(isinstance(s, LoopNode) and s.sign > 0
                                  and all(not isinstance(b, LoopNode) for b in s.body) for s in sweeps):
        return None
    fusion = SmartFusion(scop, deps)
    merged = sweeps[0]
    assert isinstance(merged, LoopNode)
    for sweep in sweeps[1:]:
        assert isinstance(sweep, LoopNode)
        shift = fusion.required_shift(merged, sweep)
        members = tuple(replace(m, shift=m.shift + shift) for m in sweep.members)
        merged = LoopNode(merged.members + members, merged.sign, merged.body + sweep.body, separate=True)
    return replace(node, body=(merged,))


def _loads_carried(scop: Scop, stmts) -> bool:
    """Whether the backend could carry the loads of every statement of ``stmts`` in registers
    (polyfuse/analysis/carried_loads.py, ``queue_ready``): fused sweeps need it, or their loads of
    what the fused loop just stored wait on the stores before them."""
    import numpy as np

    from polyfuse.analysis.carried_loads import queue_ready

    dtypes = {isl_name(a.name): str(np.dtype(a.dtype)) for a in scop.arrays}
    return all(queue_ready(s, dtypes.get(isl_name(s.array), "")) for s in map(scop.statement, stmts))


def not_applied(scop: Scop, body: tuple[TreeNode, ...], reason: str) -> tuple[TimeTileDecision, ...]:
    """A not-applied decision for every time-loop-shaped node of ``body`` (the pass gave up)."""
    return tuple(TimeTileDecision(_var(scop, n), n.statements, False, reason=reason)
                 for n in body if isinstance(n, LoopNode) and time_loop_shape(scop, n))


def _fixed_sizes(sizes: tuple[int, ...], members: int) -> tuple[int, ...]:
    """Fixed sizes for experiments (``POLYFUSE_TIME_TILE_SIZES``, time first), if they fit the band."""
    return sizes if len(sizes) == members and all(v > 0 for v in sizes) else ()


def _wavefront_text(members: int) -> str:
    summed = wavefront_members(members)
    inner = ", ".join(f"tile{k}" for k in range(1, summed))
    return (f"wavefront = {' + '.join(f'tile{k}' for k in range(summed))} (sequential); "
            f"{inner} parallel within it")


def _var(scop: Scop, node: LoopNode) -> str:
    first = scop.statement(node.statements[0]) if node.statements else None
    return first.iterators[0] if first is not None else node.members[0].var


def _widest_element(scop: Scop, stmts: tuple[str, ...]) -> int:
    """The largest element size of the arrays the nest accesses (a vector's lanes: its bytes over this)."""
    import numpy as np

    names = _accessed(scop, stmts)
    return max((np.dtype(a.dtype).itemsize for a in scop.arrays if isl_name(a.name) in names), default=8)


def _accessed(scop: Scop, stmts: tuple[str, ...]) -> set[str]:
    names: set[str] = set()
    for name in stmts:
        stmt = scop.statement(name)
        for umap in (stmt.reads, stmt.writes):
            names.update(m.get_tuple_name(isl.dim_type.out) for m in maps_of(umap))
    return names


def _element_bytes(scop: Scop, stmts: tuple[str, ...]) -> int:
    """Element sizes of the arrays the nest accesses, summed."""
    import numpy as np

    names = _accessed(scop, stmts)
    return sum(np.dtype(a.dtype).itemsize for a in scop.arrays if isl_name(a.name) in names) or 8
