"""The kernel at one call's sizes, and what a block of it sees: shared by the halo analysis
(polyfuse.dask.halo) and the checks of each block against the whole arrays (polyfuse.dask.blocks).

``Problem`` holds the lifted Scop, its dependences and the call's parameter values; a block of
a split cut sees the same parameters except the extents of the cut's arrays (``local_sizes``),
and allocates the kernel-local arrays whose extent is one of those with its own size
(``moving_arrays``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from types import SimpleNamespace

import islpy as isl

from polyfuse.analysis.dependences import Dependences
from polyfuse.dask.cuts import Cut
from polyfuse.errors import UnsupportedError
from polyfuse.model import ir
from polyfuse.model.scop import Scop, SizeProduct, Statement, shape_param
from polyfuse.runtime.variant import size_value


@dataclass(frozen=True)
class Split:
    """One loop dimension cut into chunks: the array axes it moves (polyfuse.dask.cuts) and
    their common chunks (dask's ``common_blockdim`` of the arrays' chunks along them, in the
    coordinates of the cut's reference array: its first output, else its first array).

    An array longer or shorter than the reference along the cut (``A`` of ``n + 1`` beside
    ``B`` of ``n``) keeps that difference in every block, so the kernel's bounds, written in
    either array's extent, mean the same in a block as on the whole arrays; its last chunk
    takes the difference (``offsets``)."""

    cut: Cut
    chunks: tuple[int, ...]
    offsets: tuple[tuple[str, int], ...] = ()  # array -> its extent minus the reference's (nonzero only)
    summed: tuple[str, ...] = ()  # written arrays the cut does not move, summed over its chunks

    def offset(self, name: str) -> int:
        return dict(self.offsets).get(name, 0)

    def chunks_for(self, name: str) -> tuple[int, ...]:
        """The chunks of array ``name`` along its axis of the cut."""
        d = self.offset(name)
        return self.chunks[:-1] + (self.chunks[-1] + d,) if d else self.chunks

    def lo(self, k: int) -> int:
        """Where chunk ``k`` starts (in the reference array)."""
        return sum(self.chunks[:k])

    def block(self, k: int, left: int, right: int) -> tuple[int, int]:
        """Chunk ``k`` with ``left``/``right`` deep ghost zones: its block's start and end."""
        return block_span(self.chunks, k, left, right)

    def inside(self, k: int, left: int) -> int:
        """Where chunk ``k`` starts in its block (after its left ghost zone, none before the first)."""
        return self.lo(k) - self.block(k, left, 0)[0]


def block_span(chunks: tuple[int, ...], k: int, left: int, right: int) -> tuple[int, int]:
    """The block of chunk ``k`` of ``chunks`` with its ghost zones, none past the array's ends
    (as dask's ``overlap(boundary="none")``): its start and end."""
    lo = sum(chunks[:k])
    return max(0, lo - left), min(sum(chunks), lo + chunks[k] + right)


@dataclass(frozen=True)
class Problem:
    """The kernel at one call's sizes: what every check of one split axis reads."""

    scop: Scop
    deps: Dependences
    values: tuple[tuple[str, int], ...]  # isl parameter -> value (sizes and int arguments)
    chunked: tuple[str, ...]  # array arguments split into chunks (dask arrays)
    written: tuple[str, ...]  # the arrays each block hands back: written arguments, new arrays returned
    reductions: tuple[str, ...] = ()  # the statements the returned reductions update (polyfuse.dask.reduce)
    splits: tuple[Split, ...] = ()  # the split cuts: each array's extent difference along one, the arrays
    # summed over its chunks (halo_for_axis takes the chunks it checks as an argument)
    scalars: tuple[tuple[str, object], ...] = ()  # the call's int and float arguments, by name: what the
    # sizes the call computes read besides the extents (scop.sizes, ``int(A.shape[0] / 2)``)
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def env(self) -> dict[str, int]:
        return dict(self.values)

    def size_namespace(self, params: dict[str, int]) -> dict[str, object]:
        """What a computed size's source reads (runtime.variant.size_value): the scalar arguments,
        and each array argument as an object with the ``shape`` these parameter values give it."""
        names = dict(self.scalars)
        for arg in self.scop.arguments:
            if arg.kind == "array":
                shape = tuple(params.get(shape_param(arg.name, x), 0) for x in range(arg.rank))
                names[arg.name] = SimpleNamespace(shape=shape)
        return names

    def summed_along(self, cut: Cut) -> tuple[str, ...]:
        """The arrays the kernel adds to that ``cut`` does not move: each chunk sums its own updates."""
        return next((s.summed for s in self.splits if s.cut.members == cut.members), ())

    def offset(self, array: str, axis: int) -> int:
        """How much longer ``array`` is along ``axis`` than its cut's reference array: it keeps
        the difference in every block (``Split``)."""
        return next((s.offset(array) for s in self.splits if s.cut.axis_of(array) == axis), 0)

    def ctx(self) -> isl.Context:
        return self.scop.context.get_ctx()


def fixed(obj, values: dict[str, int]):
    """``obj`` with its parameters fixed to ``values`` (the call's sizes)."""
    if not values:
        return obj
    names = ", ".join(values)
    cond = " and ".join(f"{n} = {v}" for n, v in values.items())
    return obj.intersect_params(isl.Set.read_from_str(obj.get_ctx(), f"[{names}] -> {{ : {cond} }}"))


def local_sizes(problem: Problem, cut: Cut, length: int) -> dict[str, int]:
    """The parameters the kernel sees on a block ``length`` long (of the reference array):
    each chunked array of the cut is as much longer as it is on the whole, and each size the
    call computes from the extents (``int(A.shape[0] / 2)``) is computed, as the block's kernel
    will, from the block's; the rest as called."""
    local = problem.env
    for name, axis in cut.members:
        if name in problem.chunked:
            local[shape_param(name, axis)] = max(0, length + problem.offset(name, axis))
    for size in computed_sizes(problem, cut):
        local[size.name] = size_value(size, problem.size_namespace(local))
    return local


def computed_sizes(problem: Problem, cut: Cut) -> list[SizeProduct]:
    """The sizes the call computes (frontend.call_sizes) from an extent of the cut's chunked
    arrays: a block computes them from its own extents."""
    texts = [f"{a}.shape[{x}]" for a, x in cut.members if a in problem.chunked]
    return [s for s in problem.scop.sizes if s.source is not None and any(t in s.source for t in texts)]


def cut_params(problem: Problem, cut: Cut) -> dict[str, str]:
    """The parameters a block sees with other values than the whole arrays: the extents of the
    cut's chunked arrays along it, and the sizes computed from them; each with its Python text."""
    found = {shape_param(a, x): f"{a}.shape[{x}]" for a, x in cut.members if a in problem.chunked}
    for size in computed_sizes(problem, cut):
        found[size.name] = (size.source or size.name).replace("pf_np.", "np.").replace("pf_math.", "math.")
    return found


def moving_arrays(problem: Problem, cut: Cut) -> dict[str, int]:
    """The arrays cut with the block and the axis of each: the cut's chunked arguments, and
    kernel-local arrays whose extent along an axis is one of theirs (``np.empty_like(A)``,
    ``np.empty(n)`` with ``n = A.shape[0]``): those are allocated with the block's size."""
    found = {a: x for a, x in cut.members if a in problem.chunked}
    params = {shape_param(a, x) for a, x in found.items()}
    for info in problem.scop.arrays:
        if info.kind == "arg":
            continue
        for k, extent in enumerate(info.shape):
            if any(isinstance(e, ir.Var) and e.name in params for e in ir.walk(extent)):
                found[info.name] = k
                break
    return found


def free_names(expr: ir.Expr) -> Iterable[str]:
    """Names of the variables ``expr`` uses outside array subscripts."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Var):
            yield node.name
        elif not isinstance(node, ir.Load):
            stack.extend(ir.children(node))


def refusal(stmt: Statement, cut: Cut, why: str) -> UnsupportedError:
    return UnsupportedError(f"cannot split {cut.label} into chunks: {why}; keep axis {cut.axis} of "
                            f"{cut.array} in one chunk ({cut.array}.rechunk({{{cut.axis}: -1}}))",
                            stmt.span, stmt.source_line)
