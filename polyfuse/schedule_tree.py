"""The kernel's loop structure as a small tree, and its translation into an isl schedule.

The frontend produces the tree in program order; the smart fusion policy edits it (merging
adjacent loops, with a shift where needed) and isl turns it into a schedule tree.  A loop that
came from fusion has one *member* per original loop: each member's statements are scheduled
by ``sign * var + shift`` on the shared dimension.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl


@dataclass(frozen=True)
class LoopMember:
    var: str  # the isl name of the original loop variable
    statements: tuple[str, ...]
    shift: int = 0


@dataclass(frozen=True)
class LoopNode:
    members: tuple[LoopMember, ...]
    sign: int  # +1 for ascending loops, -1 for descending (negative step) ones
    body: tuple[TreeNode, ...]
    tile: tuple[int, ...] = ()  # tile sizes of the perfect nest this loop heads (empty: not tiled)

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
    if node.tile:
        return _tiled_schedule(node, domains, iterators, prefix, empty)
    inner = build_schedule(node.body, domains, iterators, prefix, empty)
    return inner.insert_partial_schedule(isl.MultiUnionPwAff(f"{prefix} -> [{{ {loop_pieces(node, iterators)} }}]"))


def _tiled_schedule(node: LoopNode, domains, iterators, prefix, empty) -> isl.Schedule:
    """One permutable band for the perfect nest ``node`` heads, tiled by isl (``band_tile``)."""
    chain = [node]
    while len(chain) < len(node.tile):
        inner_loop = chain[-1].body[0]
        assert isinstance(inner_loop, LoopNode), "tile sizes cover only the perfect nest"
        chain.append(inner_loop)
    inner = build_schedule(chain[-1].body, domains, iterators, prefix, empty)
    members = ", ".join(f"{{ {loop_pieces(loop, iterators)} }}" for loop in chain)
    band = inner.insert_partial_schedule(isl.MultiUnionPwAff(f"{prefix} -> [{members}]")).get_root().child(0)
    band = band.band_set_permutable(1)
    sizes = isl.MultiVal.zero(band.band_get_space())
    for position, size in enumerate(node.tile):
        sizes = sizes.set_val(position, isl.Val(size))
    ctx = band.get_ctx()
    ctx.set_tile_shift_point_loops(0)  # point loops keep the original coordinates
    return band.band_tile(sizes).get_schedule()


def loop_pieces(node: LoopNode, iterators: dict[str, tuple[str, ...]]) -> str:
    """``S1[i, j] -> [(i)]; ...``: the value of this loop's dimension for each statement."""
    sign = "" if node.sign > 0 else "-"
    pieces = []
    for member in node.members:
        for name in member.statements:
            iters = ", ".join(iterators[name])
            pieces.append(f"{name}[{iters}] -> [({sign}{member.var} + {member.shift})]")
    return "; ".join(pieces)
