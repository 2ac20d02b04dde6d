"""The kernel's loop structure as a small tree, and its translation into an isl schedule.

The frontend produces the tree in program order; the smart fusion policy edits it (merging
adjacent loops, with a shift where needed) and isl turns it into a schedule tree.  A loop that
came from fusion has one *member* per original loop: each member's statements are scheduled
by ``sign * var + shift`` on the shared dimension.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import islpy as isl

from polyfuse.model.isl_budget import per_compile
from polyfuse.model.isl_parts import maps_of


@dataclass(frozen=True)
class LoopMember:
    var: str  # the isl name of the original loop variable
    statements: tuple[str, ...]
    shift: int = 0


@dataclass(frozen=True)
class RegisterTile:
    """A register tile of the perfect nest a loop heads.

    ``sizes`` has one entry per loop of the nest (1: that loop is not tiled).  The tile loops of
    the other loops run outside the ``reductions`` loops (positions in the nest, kept in their
    order) and the point loops inside them, so the tile's outputs stay in registers across the
    whole reduction.
    """

    sizes: tuple[int, ...]
    reductions: tuple[int, ...]
    #: tile sizes of the innermost (vector) loop, widest first, for the points outside every full
    #: tile of the wider sizes before it (the last one takes all that is left, partial tiles too):
    #: a product of 24 float64 columns has no full 4 x 32 tile but a full 4 x 16 one
    narrower: tuple[int, ...] = ()


@dataclass(frozen=True)
class LoopNode:
    members: tuple[LoopMember, ...]
    sign: int  # +1 for ascending loops, -1 for descending (negative step) ones
    body: tuple[TreeNode, ...]
    tile: tuple[int, ...] = ()  # tile sizes of the perfect nest this loop heads (empty: not tiled)
    register_tile: RegisterTile | None = None
    # generate this loop with isl's ``separate`` option: one loop per stretch where the same
    # members run, instead of a guard per member in every iteration (fused loops whose members
    # have different extents, see polyfuse.schedule.fusion)
    separate: bool = False

    @property
    def statements(self) -> tuple[str, ...]:
        return tuple(s for m in self.members for s in m.statements)


@dataclass(frozen=True)
class StmtNode:
    name: str

    @property
    def statements(self) -> tuple[str, ...]:
        return (self.name,)


TreeNode = LoopNode | StmtNode


def loop_of(var: str, sign: int, body: tuple[TreeNode, ...]) -> LoopNode:
    """A loop of the original program over ``body``."""
    stmts = tuple(s for node in body for s in node.statements)
    return LoopNode((LoopMember(var, stmts),), sign, body)


def band_of(prefix: str, members: str) -> isl.MultiUnionPwAff:
    """The band ``[members]`` over the parameters ``prefix``.  isl reads ``[] -> [{ ... }]`` (a
    kernel without parameters: only constant loop bounds, scalar float arguments) as a band of no
    members, so the loop vanished from the program order and its statements ran as separate
    loops (``for it in range(3): mid = lo + 1.0; lo = mid`` returned 1.0): no prefix then.

    Parsed once per text for the rest of the compile (``per_compile``): the scheduler's passes
    build the schedules of many candidate trees that share most loops (conv_bn_relu: 151 bands,
    26 texts, 55 ms of parsing)."""
    text = f"[{members}]" if prefix.replace(" ", "") == "[]" else f"{prefix} -> [{members}]"
    return per_compile(("band", text), lambda: isl.MultiUnionPwAff(text))


def build_schedule(body: tuple[TreeNode, ...], domains: dict[str, isl.Set],
                   iterators: dict[str, tuple[str, ...]], prefix: str, empty: isl.UnionSet) -> isl.Schedule:
    """isl schedule of ``body``: sequences of bands, one band per loop node."""
    if not body:
        return isl.Schedule.from_domain(empty)
    parts = [_node_schedule(n, domains, iterators, prefix, empty) for n in body]
    result = parts[0]
    for part in parts[1:]:
        result = result.sequence(part)
    return result


def _node_schedule(node: TreeNode, domains, iterators, prefix, empty) -> isl.Schedule:
    if isinstance(node, StmtNode):
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domains[node.name]))
    if node.tile or node.register_tile:
        return _tiled_schedule(node, domains, iterators, prefix, empty)
    inner = build_schedule(node.body, domains, iterators, prefix, empty)
    schedule = inner.insert_partial_schedule(band_of(prefix, f"{{ {loop_pieces(node, iterators)} }}"))
    if not node.separate:
        return schedule
    band = schedule.get_root().child(0)
    return band.band_member_set_ast_loop_type(0, isl.ast_loop_type.separate).get_schedule()


def _tiled_schedule(node: LoopNode, domains, iterators, prefix, empty) -> isl.Schedule:
    """The perfect nest ``node`` heads as permutable bands: cache tiles, then register tiles.

    Tiles are written as ``v - v mod T`` so point loops keep the original coordinates.  Whether
    the reordering is legal is for the caller to verify; the bands only describe it.
    """
    reg = node.register_tile
    chain = perfect_chain_of(node, len(node.tile) or (len(reg.sizes) if reg is not None else 1))
    if reg is not None and reg.narrower:
        return _narrowing_schedules(node, chain, reg, domains, iterators, prefix, empty)
    pieces = [loop_pieces(loop, iterators) for loop in chain]
    bands: list[list[str]] = []  # outermost first
    if node.tile:
        bands.append([_tile_pieces(p, size) for p, size in zip(pieces, node.tile)])
    if reg is None:
        bands.append(pieces)
    else:
        outer = [_tile_pieces(p, size) for k, (p, size) in enumerate(zip(pieces, reg.sizes))
                 if k not in reg.reductions]
        bands.append(outer + [pieces[k] for k in reg.reductions])
        bands.append([p for p, size in zip(pieces, reg.sizes) if size > 1])
    schedule = build_schedule(chain[-1].body, domains, iterators, prefix, empty)
    for depth, band in enumerate(reversed(bands)):
        members = ", ".join(f"{{ {p} }}" for p in band)
        schedule = schedule.insert_partial_schedule(band_of(prefix, members))
        inserted = schedule.get_root().child(0).band_set_permutable(1)
        if reg is not None and depth == 1:  # the band of register tile loops
            inserted = inserted.insert_mark(isl.Id(_register_mark(reg)))
        schedule = inserted.get_schedule()
    return schedule


def _narrowing_schedules(node: LoopNode, chain: list[LoopNode], reg: RegisterTile, domains,
                         iterators, prefix, empty) -> isl.Schedule:
    """The nest in a sequence of parts, one per width of its vector loop's register tiles: first
    the points in full tiles of ``reg.sizes``, then those of the rest in full tiles of the next
    width in ``reg.narrower``, and so on; the last part takes what is left.  Isolated full tiles
    run with constant trips in registers; without the parts a product narrower than one tile
    (16-31 float64 columns against 4 x 32 tiles) ran only the partial tiles' loops.  The parts
    reorder the nest like its tiles do (the caller verifies the schedule)."""
    widths = (reg.sizes[-1],) + reg.narrower
    left = {name: domains[name] for name in node.statements}
    parts = []
    for n, width in enumerate(widths):
        if n == len(widths) - 1:
            part = left
        else:
            part = {name: _in_full_tiles(dom, chain[-1], name, iterators, width) for name, dom in left.items()}
            left = {name: left[name].subtract(part[name]).coalesce() for name in left}
        narrowed = dict(domains)
        narrowed.update(part)
        one = RegisterTile(reg.sizes[:-1] + (width,), reg.reductions)
        parts.append(_tiled_schedule(replace(node, register_tile=one), narrowed, iterators, prefix, empty))
    result = parts[0]
    for later in parts[1:]:
        result = result.sequence(later)
    return result


def _in_full_tiles(domain: isl.Set, loop: LoopNode, name: str, iterators, width: int) -> isl.Set:
    """The points of ``domain`` (statement ``name``'s) whose tile of ``width`` along ``loop``'s
    dimension (``sign * var + shift``, tiles aligned as ``_tile_pieces`` aligns them) lies
    whole in ``domain``."""
    member = next(m for m in loop.members if name in m.statements)
    iters = iterators[name]
    primed = [f"{v}_p" if v == member.var else v for v in iters]
    sign = "" if loop.sign > 0 else "-"

    def origin(v: str) -> str:
        e = f"({sign}{v} + {member.shift})"
        return f"({e} - {e} mod {width})"

    same_tile = isl.Map(f"{{ {name}[{', '.join(iters)}] -> {name}[{', '.join(primed)}] : "
                        f"{origin(member.var)} = {origin(member.var + '_p')} }}")
    same_tile = same_tile.align_params(domain.get_space()).intersect_domain(domain)
    outside = same_tile.subtract_range(domain).domain()
    return domain.subtract(outside).coalesce()


REGISTER_MARK = "register_tile"

#: above the tile band of a time-tiled nest (schedule/time_tiling.py): astgen flags the loops isl
#: generates from it (``For.time_tiles``), the only ones the backend walks as tiles
TIME_TILES_MARK = "time_tiles"


def marked_time_tiles(schedule: isl.Schedule) -> isl.Schedule:
    """``schedule`` (a time-tiled nest: its tile band at the root's child) with its tile band
    under a ``TIME_TILES_MARK``."""
    return schedule.get_root().child(0).insert_mark(isl.Id(TIME_TILES_MARK)).get_schedule()


def _register_mark(reg: RegisterTile) -> str:
    return f"{REGISTER_MARK} {','.join(map(str, reg.sizes))} {','.join(map(str, reg.reductions))}"


def isolate_register_tiles(schedule: isl.Schedule) -> isl.Schedule:
    """Ask isl's AST generator to emit full register tiles apart from partial ones.

    Done on the finished tree (isl cannot insert bands above a band with such options).  In a
    full tile every point loop has a constant trip count, which lets LLVM unroll it completely
    and keep the tile in registers.  The option only splits the generated code; isl still
    generates exactly the domain, so an over-approximated set stays correct.
    """
    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() != isl.schedule_node_type.mark:
            return node
        name = node.mark_get_id().get_name()
        if not name.startswith(REGISTER_MARK + " "):
            return node
        _, sizes, reductions = name.split(" ")
        reg = RegisterTile(tuple(int(v) for v in sizes.split(",")),
                           tuple(int(v) for v in reductions.split(",")))
        band = _with_full_tiles_isolated(node.child(0), reg)
        return band.parent()

    return schedule.map_schedule_node_bottom_up(visit)


def perfect_chain(node: TreeNode) -> list[LoopNode]:
    """``node`` and the loops directly nested in it while each body is a single loop."""
    chain: list[LoopNode] = []
    while isinstance(node, LoopNode) and len(node.members) == 1:
        chain.append(node)
        if len(node.body) != 1 or not isinstance(node.body[0], LoopNode):
            break
        node = node.body[0]
    return chain


def perfect_chain_of(node: LoopNode, depth: int) -> list[LoopNode]:
    """``node`` and the ``depth - 1`` loops perfectly nested in it."""
    chain = [node]
    while len(chain) < depth:
        inner_loop = chain[-1].body[0]
        assert isinstance(inner_loop, LoopNode), "tile sizes cover only the perfect nest"
        chain.append(inner_loop)
    return chain


def _tile_pieces(pieces: str, size: int) -> str:
    """``S[i] -> [(e)]`` -> ``S[i] -> [(e - (e) mod size)]``: the origin of the tile holding e."""
    if size <= 1:
        return pieces
    return re.sub(r"-> \[\((.*?)\)\]", lambda m: f"-> [(({m[1]}) - ({m[1]}) mod {size})]", pieces)


def _with_full_tiles_isolated(band: isl.ScheduleNode, reg: RegisterTile) -> isl.ScheduleNode:
    """``band`` (register tile loops) with the isolate option for its full tiles."""
    point = band.child(0)
    domain = band.get_domain()
    outer = band.get_prefix_schedule_union_map().flat_range_product(band.band_get_partial_schedule_union_map())
    images = outer.intersect_domain(domain).reverse().apply_range(
        point.band_get_partial_schedule_union_map().intersect_domain(domain))
    if images.is_empty() or len(maps_of(images)) != 1:
        return band
    image = isl.Map.from_union_map(images)
    n_outer = image.dim(isl.dim_type.in_)
    n_prefix = n_outer - band.band_n_member()
    tiled = [k for k, size in enumerate(reg.sizes) if size > 1]
    band_position = [k for k in range(len(reg.sizes)) if k not in reg.reductions]
    box = isl.Map.universe(image.get_space())
    for q, k in enumerate(tiled):
        t = n_prefix + band_position.index(k)
        for constraint in _within_tile(image.get_space(), t, q, reg.sizes[k]):
            box = box.add_constraint(constraint)
    box = box.intersect_domain(image.domain())
    full: isl.Set = image.domain().subtract(box.subtract(image).domain()).coalesce()
    if full.is_empty():
        return band
    if full.n_basic_set() > 1:
        full = isl.Set.from_basic_set(full.simple_hull())
    isolate = isl.Map.from_range(full).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, n_prefix)
    option = isolate.wrap().set_tuple_name("isolate")
    return band.band_set_ast_build_options(isl.UnionSet.from_set(option))


def _within_tile(space: isl.Space, origin: int, point: int, size: int) -> list[isl.Constraint]:
    """``origin <= point <= origin + size - 1`` for input dim ``origin``, output dim ``point``."""
    def inequality(sign: int, constant: int) -> isl.Constraint:
        c = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(space))
        c = c.set_coefficient_val(isl.dim_type.out, point, sign)
        c = c.set_coefficient_val(isl.dim_type.in_, origin, -sign)
        return c.set_constant_val(constant)

    return [inequality(1, 0), inequality(-1, size - 1)]


def loop_pieces(node: LoopNode, iterators: dict[str, tuple[str, ...]]) -> str:
    """``S1[i, j] -> [(i)]; ...``: the value of this loop's dimension for each statement."""
    sign = "" if node.sign > 0 else "-"
    pieces = []
    for member in node.members:
        for name in member.statements:
            iters = ", ".join(iterators[name])
            pieces.append(f"{name}[{iters}] -> [({sign}{member.var} + {member.shift})]")
    return "; ".join(pieces)
