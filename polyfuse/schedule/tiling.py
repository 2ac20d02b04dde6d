"""Cache-sized tile sizes from a footprint model.

For a perfect loop nest and candidate tile sizes, the footprint of a tile is the data its
accesses touch, counted from their affine subscripts (an axis indexed by ``a*i + b*j`` spans
``|a|(Ti - 1) + |b|(Tj - 1) + 1`` elements) and the element sizes of the actual dtypes.  We pick
the sizes with the most iterations per byte of footprint that fit the cache budget, keeping the
innermost tile long enough for vector code.  Nests without reuse are not worth tiling.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np

from polyfuse.model import ir
from polyfuse.model.ir import linear_coefficient as coefficient
from polyfuse.model.schedule_tree import LoopNode, RegisterTile, TreeNode, perfect_chain
from polyfuse.schedule.legality import violations

CANDIDATES = (8, 16, 32, 64, 128, 256)
MIN_INNER = 32


def itemsize(scop, array: str) -> int:
    """Bytes per element of ``array`` (any numpy dtype the frontend accepts)."""
    return np.dtype(scop.array(array).dtype).itemsize


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
        total += elements * itemsize(scop, array)
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


#: square tile sides tried for a transposing copy, largest first, while the tile's lines fit the
#: budget (``POLYFUSE_TRANSPOSE_TILE_SIDE`` fixes one).  16 measured best of 8-128 by 8-128 on the
#: Intel VM of session 28 (float64 mirror and transpose at 600-3000 square; docs/performance.md,
#: "Blocked transposes"): the strided side then walks 16 lines per sweep of the inner loop, which
#: stay in L1 (and in the core's line fill buffers) until the tile is done; 32 and 64 were 10-60%
#: slower at 2000 and 3000, rectangles no better than 16 x 16
TRANSPOSE_SIDES = (16, 8)


def _walks(index: tuple[ir.Expr, ...], var: str) -> str:
    """How an access walks memory along ``var``: "unit" (stride 1: only the last subscript moves,
    by 1), "rows" (a subscript before the last moves, the last does not: a whole row or more per
    step), "still" (no subscript moves) or "other"."""
    coefficients = [coefficient(e, var) for e in index]
    if None in coefficients:
        return "other"
    *outer, last = coefficients
    if not any(coefficients):
        return "still"
    if last in (1, -1) and not any(outer):
        return "unit"
    return "rows" if last == 0 else "other"


def transposed_loops(scop, loops: tuple[str, ...], statements) -> tuple[str, str] | None:
    """``(outer, inner)``: ``inner`` is the nest's innermost loop, along which one access walks
    with stride 1 while another walks by whole rows and walks ``outer`` with stride 1 (a copy
    between an array and its transpose, ``X[j, i] = Y[i, j]``); None when there is no such pair.
    Untiled, the strided side touches one line per iteration and comes back to it only a whole
    row of the other side later, when it has left the cache for large arrays; in square tiles of
    both loops each line is used fully while the tile is in L1."""
    found = accesses(scop, statements)
    inner = loops[-1]
    if not any(_walks(index, inner) == "unit" for _, index in found):
        return None
    for outer in reversed(loops[:-1]):
        if any(_walks(index, inner) == "rows" and _walks(index, outer) == "unit" for _, index in found):
            return outer, inner
    return None


def line_footprint(scop, loops: tuple[str, ...], statements, sizes: tuple[int, ...], line: int) -> int:
    """Bytes of cache lines a tile of ``sizes`` touches: per distinct access, the lines of its
    last subscript's span times the spans of the others."""
    total = 0
    tile = dict(zip(loops, sizes))
    for array, index in accesses(scop, statements):
        spans = []
        for expr in index:
            span = 1
            for var, size in tile.items():
                c = coefficient(expr, var)
                span += (size - 1) * (abs(c) if c is not None else 1)
            spans.append(span)
        rows = int(np.prod(spans[:-1])) if len(spans) > 1 else 1
        total += rows * -(-spans[-1] * itemsize(scop, array) // line) * line
    return total


def choose_transpose_tile(scop, loops: tuple[str, ...], statements, budget_bytes: int, line: int,
                          side: int = 0) -> TileChoice | None:
    """Square tiles of the two loops of ``transposed_loops`` (the others untiled), the largest
    side of ``TRANSPOSE_SIDES`` (or ``side``) whose lines fit ``budget_bytes``; None where the
    nest transposes nothing."""
    pair = transposed_loops(scop, loops, statements)
    if pair is None:
        return None
    for t in (side,) if side else TRANSPOSE_SIDES:
        sizes = tuple(t if v in pair else 1 for v in loops)
        used = line_footprint(scop, loops, statements, sizes, line)
        if used <= budget_bytes or side:
            return TileChoice(loops, sizes, used, budget_bytes,
                              f"blocked transpose: {pair[1]} walks one access by rows and another with "
                              f"stride 1; {t} x {t} tiles of {', '.join(pair)} keep both in L1")
    return None


@dataclass(frozen=True)
class RegisterTileChoice:
    """A register tile for a perfect nest: ``sizes`` per loop around the ``reductions``."""

    loops: tuple[str, ...]
    sizes: tuple[int, ...]
    reductions: tuple[str, ...]
    reason: str
    #: the vector loop's narrower tile sizes for columns outside the full tiles (RegisterTile.narrower)
    narrower: tuple[int, ...] = ()


#: vectors of sums a tile holds where the caller gives none (half of AVX2's 16 registers);
#: options.register_tile_sums gives half of the ISA's registers: 16 with AVX-512
REGISTER_TILE_VECTORS = 8
UNROLL = 4  # rows of a register tile (the loop next to the vector loop)


def choose_register_tile(scop, loops: tuple[str, ...], statements, vector_bytes: int,
                         sums: int = REGISTER_TILE_VECTORS, narrower: bool = True) -> RegisterTileChoice | None:
    """Outputs of the nest tiled in registers around its reduction loops, or None.

    The innermost loop must index the last subscript of every write with stride 1 (the vector
    loop); the reduction loops are those no write depends on.  The tile is ``UNROLL`` rows high
    (the next output loop) and ``sums / UNROLL`` vectors wide (at least two), so each input value
    loaded is used several times: one-row tiles only save an L1 load and store and lose the
    row-wise streaming order.  Wider rows pay where registers allow (``sums`` 16 with AVX-512's
    32): each term of a row is one broadcast for all its vectors' multiplies and adds
    (docs/performance.md, *Session 40 (gm56)*).  The column count is a parameter, so with
    ``narrower`` the columns outside full tiles get tiles of half the width, down to one vector
    (``RegisterTile.narrower``): 24 float64 columns have no full 4 x 32 tile but one 4 x 16 and
    one 4 x 8 (docs/performance.md, *Session 40 (gm56b)*); not where the columns' range depends
    on another loop of the nest (a triangle).
    The tile must be promotable to registers (polyfuse.registers): each written array is read
    only at the written element, and the tile's extent does not depend on the reduction loops.
    """
    stmts = [scop.statement(name) for name in statements]
    writes = [(s.array, s.index) for s in stmts]
    if len(loops) < 3 or not writes or any(not index for _, index in writes):
        return None
    coefficients = {v: [coefficient(e, v) for _, index in writes for e in index] for v in loops}
    if any(None in c for c in coefficients.values()):
        return None
    reductions = tuple(v for v in loops if not any(coefficients[v]))
    vector = loops[-1]
    outputs = [v for v in loops if v not in reductions]
    if not reductions or vector in reductions or len(outputs) < 2:
        return None
    for _, index in writes:
        *others, last = (coefficient(e, vector) for e in index)
        if last not in (1, -1) or any(others):
            return None
    if not _reads_only_written_elements(stmts) or _coupled(stmts, reductions, (outputs[-2], vector)):
        return None
    widest = max(itemsize(scop, array) for array, _ in writes)
    lanes = max(1, vector_bytes // widest)
    vectors = max(2, sums // UNROLL)
    rows = max(1, min(UNROLL, sums // vectors))
    sizes = {vector: vectors * lanes, outputs[-2]: rows}
    chosen = tuple(sizes.get(v, 1) for v in loops)
    # narrower tiles only for columns whose range does not depend on the other loops: where it
    # does (covariance's j >= i), the tiles along the diagonal are not full at any width and the
    # parts' sets kept isl from isolating the full tiles of the widest
    narrower = narrower and not _coupled(stmts, (vector,), tuple(v for v in loops if v != vector))
    halves = tuple(lanes * (vectors >> n) for n in range(1, vectors.bit_length())) if narrower else ()
    rest = f"; the columns outside full tiles in tiles {', '.join(map(str, halves))} wide" if halves else ""
    return RegisterTileChoice(loops, chosen, reductions,
                              f"outputs kept in {rows * vectors} vector registers across "
                              f"{', '.join(reductions)}{rest}", halves)


def _reads_only_written_elements(stmts) -> bool:
    written = {s.array: s.index for s in stmts}
    for stmt in stmts:
        for load in (e for e in ir.walk(stmt.value) if isinstance(e, ir.Load)):
            if load.array in written and load.index != written[load.array]:
                return False
    return True


def _coupled(stmts, reductions, tiled) -> bool:
    """Some domain constraint ties a reduction loop to a tiled one (``k > i`` in trmm)."""
    import islpy as isl

    for stmt in stmts:
        names = [stmt.domain.get_dim_name(isl.dim_type.set, d) for d in range(stmt.domain.dim(isl.dim_type.set))]
        red = [d for d, n in enumerate(names) if n in reductions]
        til = [d for d, n in enumerate(names) if n in tiled]
        for basic in stmt.domain.get_basic_sets():
            for constraint in basic.get_constraints():
                used = {d for d in red + til if not constraint.get_coefficient_val(isl.dim_type.set, d).is_zero()}
                if used & set(red) and used & set(til):
                    return True
    return False


def register_tile_of(choice: RegisterTileChoice):
    return RegisterTile(choice.sizes, tuple(choice.loops.index(v) for v in choice.reductions), choice.narrower)


def register_tileable(scop, node, vector_bytes: int) -> bool:
    """Whether ``node`` heads a perfect nest with a register tile that is worth keeping apart.

    A nest that shares a kernel-local array with the rest of the program is not: fusing it
    shrinks the intermediate (polyfuse.contraction), which saves more than the register tile."""
    if not isinstance(node, LoopNode) or _shares_locals(scop, set(node.statements)):
        return False
    chain = perfect_chain(node)
    loops = tuple(c.members[0].var for c in chain)
    return choose_register_tile(scop, loops, node.statements, vector_bytes) is not None


def _shares_locals(scop, inside: set[str]) -> bool:
    """Some kernel-local array is accessed both by ``inside`` statements and by others."""
    def arrays(stmt) -> set[str]:
        if stmt.region is not None:
            return set(stmt.targets) | stmt.sources()
        return {stmt.array} | {e.array for e in ir.walk(stmt.value) if isinstance(e, ir.Load)}

    local = set(scop.local_arrays())
    used_inside = set().union(*(arrays(s) for s in scop.statements if s.name in inside)) & local
    return any(arrays(s) & used_inside for s in scop.statements if s.name not in inside)


def tile_worthy(scop, node: TreeNode) -> bool:
    """A perfect nest of depth >= 3 in which some access is reused across an outer loop."""
    chain = perfect_chain(node)
    if len(chain) < 3:
        return False
    return has_reuse(scop, tuple(c.members[0].var for c in chain), chain[0].statements)


def transposing(scop, node: TreeNode) -> bool:
    """A perfect nest of depth >= 2 that copies between an array and its transpose
    (``transposed_loops``): worth square tiles of those loops."""
    chain = perfect_chain(node)
    return len(chain) >= 2 and transposed_loops(scop, tuple(c.members[0].var for c in chain),
                                                chain[0].statements) is not None


def worth_tiling(scop, node: TreeNode, *, cache: bool, vector_bytes: int, transpose: bool = False) -> bool:
    """Whether keeping ``node`` a perfect nest pays: for cache tiles, for register tiles or (with
    ``transpose``) for the square tiles of a transposing copy."""
    if cache and tile_worthy(scop, node):
        return True
    if transpose and transposing(scop, node):
        return True
    return bool(vector_bytes) and register_tileable(scop, node, vector_bytes)


class TilingPass:
    """Marks every loop heading a tile-worthy perfect nest with cache-sized tile sizes and,
    with ``vector_bytes``, a register tile."""

    def __init__(self, scop, deps, budget_bytes: int, vector_bytes: int = 0, transpose_budget: int = 0,
                 line: int = 64, transpose_side: int = 0, register_cache_budget: int = 0,
                 register_sums: int = REGISTER_TILE_VECTORS, register_narrower: bool = True) -> None:
        self.scop = scop
        self.deps = deps
        self.budget = budget_bytes
        #: bytes the cache tiles around a register-tiled nest may use (0: none unless ``budget``)
        self.register_cache_budget = register_cache_budget
        self.register_sums = register_sums  # vectors of sums per register tile
        self.register_narrower = register_narrower  # narrower tiles for the columns outside full ones
        self.vector_bytes = vector_bytes
        self.transpose_budget = transpose_budget  # bytes of L1 a transposing copy's tile may use (0: off)
        self.line = line
        self.transpose_side = transpose_side  # a fixed tile side (0: the largest that fits)
        self.decisions: list[TileChoice] = []
        self.register_decisions: list[RegisterTileChoice] = []

    def run(self, body: tuple) -> tuple:
        if self.budget:
            body = self.visit(body, lambda b: b, self.cache_tile)
        if self.transpose_budget:
            body = self.visit(body, lambda b: b, self.transpose_tile)
        if self.vector_bytes:
            body = self.visit(body, lambda b: b, self.register_tile)
        return body

    def cache_tile(self, node):
        """(tiled node, decision) for a tile-worthy nest, else None."""
        if not tile_worthy(self.scop, node):
            return None
        loops = tuple(c.members[0].var for c in perfect_chain(node))
        choice = choose_tile_sizes(self.scop, loops, node.statements, self.budget)
        if choice is None:
            return None
        return replace(node, tile=choice.sizes), choice, self.decisions

    def transpose_tile(self, node):
        """(tiled node, decision) for a perfect nest that copies between an array and its
        transpose (``transposed_loops``), else None."""
        chain = perfect_chain(node)
        if node.tile or len(chain) < 2:
            return None
        loops = tuple(c.members[0].var for c in chain)
        choice = choose_transpose_tile(self.scop, loops, node.statements, self.transpose_budget, self.line,
                                       self.transpose_side)
        if choice is None:
            return None
        return replace(node, tile=choice.sizes), choice, self.decisions

    def register_tile(self, node):
        chain = perfect_chain(node)
        if node.tile and len(chain) != len(node.tile):
            return None
        loops = tuple(c.members[0].var for c in chain)
        choice = choose_register_tile(self.scop, loops, node.statements, self.vector_bytes, self.register_sums,
                                      self.register_narrower)
        if choice is None:
            return None
        cached = self.cache_around_registers(node, loops)
        if cached is not None:
            node = replace(node, tile=cached.sizes)
            choice = replace(choice, reason=f"{choice.reason}; inside cache tiles "
                             f"{' x '.join(map(str, cached.sizes))} ({cached.reason})")
        if node.tile:  # register tiles must nest inside cache tiles
            tile = tuple(-(-c // r) * r for c, r in zip(node.tile, choice.sizes))
            node = replace(node, tile=tile)
        return replace(node, register_tile=register_tile_of(choice)), choice, self.register_decisions

    def cache_around_registers(self, node, loops: tuple[str, ...]) -> TileChoice | None:
        """Cache tiles for a register-tiled nest that has none (``register_cache_budget``).  Its
        tiles sum in registers at the rate of the core's vector units only while their operands
        come from L1/L2: untiled, gemm's tile rows streamed all of ``B`` from L3 once per 4 rows
        (800 x 1000 x 900, ``blas=False``, one thread on an Intel VM: 100 ms against 58 with the
        tiles, docs/performance.md *Session 40 (gm56)*).  Each element's terms keep their order
        (the reduction's tiles run in order), so the results are unchanged bit for bit."""
        if node.tile or not self.register_cache_budget or not tile_worthy(self.scop, node):
            return None
        return choose_tile_sizes(self.scop, loops, node.statements, self.register_cache_budget)

    def visit(self, body: tuple, wrap, choose) -> tuple:
        """Apply ``choose`` to every loop, outermost first, keeping only verified changes."""
        result = list(body)
        for k, node in enumerate(result):
            if not isinstance(node, LoopNode):
                continue
            proposal = choose(node)
            if proposal is not None:
                tiled, choice, records = proposal
                candidate = wrap(tuple(result[:k]) + (tiled,) + tuple(result[k + 1:]))
                problems = violations(self.scop, self.deps, self.scop.schedule_of(candidate),
                                      over_budget="legality check over isl's operation budget")
                if not problems:
                    result[k] = tiled
                    records.append(choice)
                    continue
                records.append(replace(choice, sizes=(), reason="not tiled: " + "; ".join(problems)))
            if node.tile and choose == self.transpose_tile:
                continue  # a cache-tiled nest: its inner loops are its point loops
            inner = self.visit(node.body, lambda b, n=node, k=k: wrap(
                tuple(result[:k]) + (replace(n, body=b),) + tuple(result[k + 1:])), choose)
            result[k] = replace(node, body=inner)
        return tuple(result)
