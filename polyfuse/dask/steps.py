"""Time-stepped kernels: how many time steps each chunk runs between two halo exchanges.

A kernel whose whole body is one loop ``for t in range(T)`` (``T`` an int argument, ``t``
unused but as a counter, no kernel-local array carrying values from one step to the next)
computes the same when called with ``T = a`` and then ``T = b`` as with ``T = a + b``.  So the
graph may exchange halos after every step (shallow ghost zones, many tasks) or after ``k``
steps (ghost zones ``k`` times as deep, computed redundantly at the edges, ``k`` times fewer
exchanges).  ``choose_steps`` picks ``k`` with a simple cost model; ``steps_per_exchange=``
overrides it.  Any other kernel runs its whole ``T`` in one exchange.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import islpy as isl

from polyfuse.analysis.dependences import Dependences
from polyfuse.dask.cuts import shift_map
from polyfuse.dask.halo import pairs_where
from polyfuse.dask.problem import free_names
from polyfuse.model.schedule_tree import LoopNode
from polyfuse.model.scop import Scop, Statement, isl_name

# the cost model's constants (seconds), measured roughly on this project's 2-core machine
TASK_SECONDS = 2e-3  # one block of one exchange: scheduling, the overlap's slicing and concatenation
CELL_SECONDS = 1e-9  # one element of one block for one time step, compiled
BYTE_SECONDS = 1e-9  # one byte of ghost zone copied into a block


@dataclass(frozen=True)
class TimeLoop:
    """The kernel's time loop: the int argument that counts its steps, and its iterator."""

    param: str  # its isl parameter
    iterator: str
    argument: str  # the kernel's int argument


@dataclass(frozen=True)
class StepOption:
    """One candidate: ``steps`` per exchange, its ghost depths and the model's estimate."""

    steps: int
    exchanges: int
    depths: tuple[tuple[int, int, int], ...]  # (axis, left, right)
    seconds: float


@dataclass(frozen=True)
class StepChoice:
    """The decision: steps per exchange, why, and the candidates the model compared."""

    loop: TimeLoop
    total: int
    steps: int
    reason: str  # "cost model" | "steps_per_exchange=..."
    options: tuple[StepOption, ...]

    @property
    def exchanges(self) -> tuple[int, ...]:
        """The T of each exchange: ``steps`` each, the remainder last."""
        full, rest = divmod(self.total, self.steps)
        return (self.steps,) * full + ((rest,) if rest else ())


def time_loop(scop: Scop, deps: Dependences, int_args: tuple[str, ...]) -> TimeLoop | None:
    """The kernel's time loop, when splitting it between calls keeps the results exact."""
    if len(scop.body) != 1 or not isinstance(scop.body[0], LoopNode) or len(scop.body[0].members) != 1:
        return None
    if any(not s.iterators for s in scop.statements):
        return None
    iterator = scop.statements[0].iterators[0]
    for argument in int_args:
        param = isl_name(argument)
        if all(_steps_over(scop, stmt, param) for stmt in scop.statements) and not _local_carried(scop, deps):
            return TimeLoop(param, iterator, argument)
    return None


def _steps_over(scop: Scop, stmt: Statement, param: str) -> bool:
    """``stmt`` runs for ``0 <= t < param`` the same body each step, and nothing else uses
    ``t`` or ``param``."""
    t = stmt.iterators[0]
    if {t, param} & set(free_names(stmt.value)):
        return False
    ctx = scop.context.get_ctx()
    accesses = stmt.reads.union(stmt.writes)
    moved = accesses.apply_domain(shift_map(ctx, stmt.name, len(stmt.iterators), 0, 1))
    if not accesses.intersect_domain(moved.domain()).is_equal(moved.intersect_domain(accesses.domain())):
        return False
    domain = stmt.domain
    index = domain.find_dim_by_name(isl.dim_type.param, param)
    if index < 0:
        return False
    # the other loops' bounds: the projection knows T > 0 (some step runs), nothing else of T
    rest = domain.project_out(isl.dim_type.set, 0, 1).gist_params(
        isl.Set.read_from_str(ctx, f"[{param}] -> {{ : {param} > 0 }}"))
    if rest.involves_dims(isl.dim_type.param, rest.find_dim_by_name(isl.dim_type.param, param), 1):
        return False
    names = ", ".join(f"x{i}" for i in range(len(stmt.iterators)))
    box = isl.Set.read_from_str(ctx, f"[{param}] -> {{ {stmt.name}[{names}] : 0 <= x0 < {param} }}")
    lifted = rest.insert_dims(isl.dim_type.set, 0, 1).set_tuple_name(stmt.name)
    plain = accesses.gist_domain(isl.UnionSet.from_set(domain))
    uses_param: list[bool] = []
    plain.foreach_map(lambda m: uses_param.append(
        (i := m.find_dim_by_name(isl.dim_type.param, param)) >= 0 and m.involves_dims(isl.dim_type.param, i, 1)))
    return domain.is_equal(lifted.intersect(box)) and not any(uses_param)


def _local_carried(scop: Scop, deps: Dependences) -> bool:
    """Does a kernel-local array hand a value from one time step to a later one (isl's
    value-based flow)?  A new call would start it afresh."""
    ctx = scop.context.get_ctx()
    for dep in deps.items:
        if dep.kind != "RAW" or not dep.local:
            continue
        for m in _maps(dep.relation):
            later = pairs_where(ctx, m.dim(isl.dim_type.in_), m.dim(isl.dim_type.out), "y0 > x0")
            plain = m.reset_tuple_id(isl.dim_type.in_).reset_tuple_id(isl.dim_type.out)
            if not plain.intersect(later.align_params(plain.get_space())).is_empty():
                return True
    return False


def _maps(union: isl.UnionMap) -> list[isl.Map]:
    found: list[isl.Map] = []
    union.foreach_map(found.append)
    return found


def candidate_steps(total: int) -> list[int]:
    """1, 2, 4, ... up to ``total``, and ``total`` itself."""
    found, k = [], 1
    while k < total:
        found.append(k)
        k *= 2
    found.append(max(total, 1))
    return found


def estimate(steps: int, total: int, chunks: tuple[tuple[int, ...], ...],
             depths: dict[int, tuple[int, int]], itemsize: int, arrays: int) -> StepOption:
    """The model: per exchange, a fixed cost per block and the ghost bytes copied; per time
    step, every element of every block (ghost zones included: the redundant work)."""
    exchanges = math.ceil(total / steps) if total else 1
    blocks = math.prod(len(c) for c in chunks)
    cells = halo_cells = 0
    for block in _blocks(chunks):
        inner = math.prod(block)
        outer = math.prod(size + sum(depths.get(axis, (0, 0))) for axis, size in enumerate(block))
        cells += outer
        halo_cells += outer - inner
    seconds = (exchanges * (blocks * TASK_SECONDS + halo_cells * itemsize * arrays * BYTE_SECONDS)
               + total * cells * CELL_SECONDS)
    return StepOption(steps, exchanges, tuple((a, lr[0], lr[1]) for a, lr in sorted(depths.items())), seconds)


def _blocks(chunks: tuple[tuple[int, ...], ...]):
    """Every block's shape (a product over the axes' chunk sizes)."""
    shapes: list[tuple[int, ...]] = [()]
    for sizes in chunks:
        shapes = [s + (c,) for s in shapes for c in sizes]
    return shapes
