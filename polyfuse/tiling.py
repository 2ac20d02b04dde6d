"""Cache-sized tile sizes from a footprint model.

For a perfect loop nest and candidate tile sizes, the footprint of a tile is the data its
accesses touch, counted from their affine subscripts (an axis indexed by ``a*i + b*j`` spans
``|a|(Ti - 1) + |b|(Tj - 1) + 1`` elements) and the element sizes of the actual dtypes.  We pick
the sizes with the most iterations per byte of footprint that fit the cache budget, keeping the
innermost tile long enough for vector code.  Nests without reuse are not worth tiling.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from polyfuse import ir
from polyfuse.ir import linear_coefficient as coefficient

CANDIDATES = (8, 16, 32, 64, 128, 256)
MIN_INNER = 32
ITEMSIZE = {"float64": 8, "int64": 8, "float32": 4, "int32": 4}


@dataclass(frozen=True)
class TileChoice:
    loops: tuple[str, ...]
    sizes: tuple[int, ...]
    footprint_bytes: int
    budget_bytes: int
    reason: str


def accesses(scop, statements) -> list[tuple[str, tuple[ir.Expr, ...]]]:
    """Distinct (array, index) pairs of the statements, writes and reads."""
    found: dict[tuple, tuple[str, tuple[ir.Expr, ...]]] = {}
    for name in statements:
        stmt = scop.statement(name)
        items = [(stmt.array, stmt.index)]
        items += [(e.array, e.index) for e in ir.walk(stmt.value) if isinstance(e, ir.Load)]
        for array, index in items:
            if index:
                found.setdefault((array, index), (array, index))
    return list(found.values())


def has_reuse(scop, loops: tuple[str, ...], statements) -> bool:
    """Some access ignores one of the outer loops: a tile would reuse it across that loop."""
    for _, index in accesses(scop, statements):
        for var in loops[:-1]:
            if all(coefficient(e, var) == 0 for e in index):
                return True
    return False


def footprint(scop, loops: tuple[str, ...], statements, sizes: tuple[int, ...]) -> int:
    total = 0
    tile = dict(zip(loops, sizes))
    for array, index in accesses(scop, statements):
        elements = 1
        for expr in index:
            span = 1
            for var, size in tile.items():
                c = coefficient(expr, var)
                span += (size - 1) * (abs(c) if c is not None else 1)
            elements *= span
        total += elements * ITEMSIZE[scop.array(array).dtype]
    return total


def choose_tile_sizes(scop, loops: tuple[str, ...], statements, budget_bytes: int) -> TileChoice | None:
    best = None
    for sizes in itertools.product(CANDIDATES, repeat=len(loops)):
        if sizes[-1] < MIN_INNER:
            continue
        used = footprint(scop, loops, statements, sizes)
        if used > budget_bytes:
            continue
        volume = 1
        for size in sizes:
            volume *= size
        key = (volume / used, sizes[-1], volume)
        if best is None or key > best[0]:
            best = (key, sizes, used)
    if best is None:
        return None
    return TileChoice(loops, best[1], best[2], budget_bytes,
                      f"{best[0][0]:.1f} iterations per byte of footprint within half of L2")


class TilingPass:
    """Marks every loop heading a tile-worthy perfect nest with cache-sized tile sizes."""

    def __init__(self, scop, deps, budget_bytes: int) -> None:
        self.scop = scop
        self.deps = deps
        self.budget = budget_bytes
        self.decisions: list[TileChoice] = []

    def run(self, body: tuple) -> tuple:
        return self.visit(body, lambda b: b)

    def visit(self, body: tuple, wrap) -> tuple:
        from dataclasses import replace

        from polyfuse.isl_budget import BudgetExceeded, bounded
        from polyfuse.locality import perfect_chain, tile_worthy
        from polyfuse.schedule_tree import LoopNode
        from polyfuse.verify import schedule_violations

        result = list(body)
        for k, node in enumerate(result):
            if not isinstance(node, LoopNode):
                continue
            if tile_worthy(self.scop, node):
                chain = perfect_chain(node)
                loops = tuple(c.members[0].var for c in chain)
                choice = choose_tile_sizes(self.scop, loops, node.statements, self.budget)
                if choice is not None:
                    tiled = replace(node, tile=choice.sizes)
                    candidate = wrap(tuple(result[:k]) + (tiled,) + tuple(result[k + 1:]))
                    try:
                        with bounded(self.scop.context.get_ctx()):
                            problems = schedule_violations(self.scop, self.deps, self.scop.schedule_of(candidate))
                    except BudgetExceeded:
                        problems = ["legality check over isl's operation budget"]
                    if not problems:
                        result[k] = tiled
                        self.decisions.append(choice)
                        continue
                    self.decisions.append(replace(choice, sizes=(), reason="not tiled: " + "; ".join(problems)))
            inner = self.visit(node.body, lambda b, n=node, k=k: wrap(
                tuple(result[:k]) + (replace(n, body=b),) + tuple(result[k + 1:])))
            result[k] = replace(node, body=inner)
        return tuple(result)
