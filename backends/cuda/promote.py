"""PPCG-style promotion for the CUDA backend: shared-memory staging and register accumulators.

Decided per launch, from the loop AST alone (no isl), with exact affine interval arithmetic
(``cuda_affine``):

* **Tiles.** A promoted launch gets a fixed block shape (``BLOCK_SHAPES``); each grid-stride
  step of a block covers one rectangular tile of the mapped loops.  Every thread of the block runs
  the same tile loop, so threads outside the iteration domain (boundary tiles) still reach every
  barrier; they skip the statements (``_on`` is false).
* **Where to stage.** Once per tile (before the whole body), or per chunk of a *candidate*: an
  outermost loop of the body (reached through blocks only) whose bounds are the same for every
  thread of the block (parameters and host loops only).  A candidate is strip-mined into chunks of
  ``chunk`` iterations (order unchanged: strip-mining alone never reorders), and before each chunk
  the block loads the footprint of a reference group into a ``cuda.shared.array``.  As in PPCG,
  one depth only: staging at inner loops would put a barrier pair around each of their chunks.
* **Reference groups.** The accesses to one array below the staging point whose subscripts
  differ only by constants (the same uniform part); the footprint is the box of their intervals
  over the tile's threads, the chunk and the inner loops (inner loops need constant trip counts).
* **Which groups.** Only arrays no statement of the launch writes (so nothing changes while
  staged), only boxes of compile-time size, and only groups with *reuse across threads* (some
  thread axis does not appear in the subscripts: those threads read the same elements) or whose
  access is *not coalesced* (threadIdx.x moves a subscript other than the last, or by more than
  one) and whose staged rows fill a memory sector; never a single element.  The outermost site
  where a group qualifies wins: the data is loaded once for the most work.  Rows that
  threadIdx.x walks across get one padding element (shared-memory banks).
* **Budget.** The static shared arrays of one kernel together must fit ``budget`` bytes (the
  device's shared memory per block; 48 KiB documented default under the simulator): the chunk is
  halved until they fit; at chunk 1 the largest group is dropped, and the reason recorded.
* **Registers.** An array element that one loop's body only reaches through one subscript, free of
  the loop's iterator, in statements that run once per iteration (no inner loop, guard or guarded
  select on the way), lives in a kernel variable across the loop: loaded before (if read), stored
  once after.  Mapped loops are parallel (no dependence between their iterations), so no other
  thread touches that element while this thread uses it.  At most ``REGISTER_LIMIT`` per kernel.

Decisions are records (``Decision``); ``explain()`` renders them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from polyfuse.backends.cuda.affine import Interval, Linear, interval, linear, variable
from polyfuse.backends.cuda.plan import Launch, free_vars

from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, If, LoopProgram, Node, StmtCall, exclusive_bound, nodes
from polyfuse.model.scop import isl_name
from polyfuse.options import cuda_promotion, cuda_shared_bytes

SIM_SHARED_BYTES = 48 * 1024  # shared memory per block assumed under the simulator (no device)
BLOCK_SHAPES = {  # threads per block of promoted launches, along (x, y)
    "gpu": {1: (256,), 2: (32, 8)},
    "simulator": {1: (32,), 2: (8, 8)},  # small: every simulated thread is a Python thread
}
CHUNKS = {"gpu": 32, "simulator": 8}  # iterations of a strip-mined loop per chunk (at most)
REGISTER_LIMIT = 16  # register-promoted elements per kernel
SECTOR_BYTES = 32  # a global-memory transaction: staging for coalescing needs rows this long


def promotion_enabled() -> bool:
    """``POLYFUSE_CUDA_SHARED=0`` turns shared-memory and register promotion off."""
    return cuda_promotion()


def shared_budget(cuda, simulator: bool) -> int:
    """Shared-memory bytes per block: ``POLYFUSE_CUDA_SHARED_BYTES``, else the device's, else
    ``SIM_SHARED_BYTES`` (the simulator has no device attributes)."""
    override = cuda_shared_bytes()
    if override is not None:
        return override
    if not simulator:
        try:
            return int(cuda.get_current_device().MAX_SHARED_MEMORY_PER_BLOCK)
        except Exception:  # noqa: BLE001 - an unusual driver: use the documented default
            pass
    return SIM_SHARED_BYTES


# ---- records --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Decision:
    """What happened to one reference group (rendered by explain())."""

    launch: int
    array: str
    refs: str  # the references, as in the source: "A[i, k]"
    storage: str  # "shared", "register" or "global"
    loop: str  # the loop the data is staged for / kept across
    shape: tuple[int, ...]
    bytes: int
    reason: str


@dataclass(frozen=True)
class SharedBuffer:
    """``name`` (a cuda.shared.array) holds ``array[low + e]`` for ``e`` in the box ``shape``."""

    name: str
    array: str
    dtype: str
    shape: tuple[int, ...]  # the staged box
    low: tuple[Linear, ...]  # first staged index per dimension (uniform at the chunk)
    pad: int = 0  # extra elements per row against bank conflicts (see Group.pad)

    @property
    def allocated(self) -> tuple[int, ...]:
        return self.shape[:-1] + (self.shape[-1] + self.pad,)

    @property
    def nbytes(self) -> int:
        return math.prod(self.allocated) * np.dtype(self.dtype).itemsize


@dataclass(frozen=True)
class Register:
    """``name`` holds ``array[index]`` across one loop; ``index`` over loop iterators."""

    name: str
    array: str
    dtype: str
    index: tuple[Linear, ...]
    read: bool


@dataclass
class Promotion:
    """The promotion of one launch: what codegen needs, keyed by loop-AST node identity."""

    launch: int
    enabled: bool = True  # False: POLYFUSE_CUDA_SHARED=0
    block: tuple[int, ...] = ()  # threads per block in ``launch.mapped`` order; () = not tiled
    chunk: int = 1
    budget: int = 0
    staged: dict[int | str, list[SharedBuffer]] = field(default_factory=dict)  # id(For)/"tile" -> buffers
    registers: dict[int, list[Register]] = field(default_factory=dict)  # id(For) -> registers
    redirect: dict[int, dict[tuple[str, tuple], tuple[str, SharedBuffer | Register]]] = field(default_factory=dict)
    path: set[int] = field(default_factory=set)  # ids of nodes enclosing a staged loop
    decisions: list[Decision] = field(default_factory=list)

    @property
    def tiled(self) -> bool:
        return bool(self.staged)

    def buffers(self) -> list[SharedBuffer]:
        return [b for bs in self.staged.values() for b in bs]


# ---- accesses -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Access:
    node: int  # id of the StmtCall
    array: str
    index: tuple[ir.Expr, ...]
    forms: tuple[Linear, ...] | None  # subscripts over uniform names and offsets (None: unknown)
    write: bool
    text: str


def accesses(program: LoopProgram, call: StmtCall, env: dict[str, Linear | None]) -> list[Access]:
    """Every array access of one statement instance, subscripts expressed through ``env``."""
    stmt = program.statement(call.statement)
    binding = {isl_name(v): _through(linear(a), env) for v, a in zip(stmt.iterators, call.args)}
    refs = [(stmt.array, stmt.index, True)]
    refs += [(e.array, e.index, False) for e in ir.walk(stmt.value) if isinstance(e, ir.Load)]
    out = []
    for array, index, write in refs:
        if not index:
            continue
        forms = tuple(_through(linear(i), binding) for i in index)
        known = None if any(f is None for f in forms) else forms
        text = f"{array}[{', '.join(ir.to_python(i) for i in index)}]"
        out.append(Access(id(call), array, index, known, write, text))  # type: ignore[arg-type]
    return out


def _through(form: Linear | None, env: dict[str, Linear | None]) -> Linear | None:
    """``form`` with ``env``'s names replaced; None if one of them is unknown."""
    if form is None or any(name in env and env[name] is None for name in form.names()):
        return None
    return form.substitute({n: v for n, v in env.items() if v is not None})


# ---- register promotion ---------------------------------------------------------------------

def register_candidates(program: LoopProgram, launch: Launch, limit: int) -> Promotion:
    """Kernel variables for thread-private elements reused across a loop (see module doc)."""
    promo = Promotion(launch.index)
    mapped = {id(m) for m in launch.mapped}  # grid loops: one iteration per thread, nothing to keep
    for loop in (n for n in nodes(launch.node) if isinstance(n, For)):
        if exclusive_bound(loop) is None or id(loop) in mapped:
            continue
        for array, reg_index, calls, read in _private_elements(program, loop):
            info = next(a for a in program.arrays if a.name == array)
            refs = _ref_text(program, calls, array)
            if sum(len(r) for r in promo.registers.values()) >= limit:
                promo.decisions.append(Decision(launch.index, array, refs, "global", loop.iterator, (), 0,
                                                f"register limit of {limit} per kernel reached"))
                continue
            reg = Register(f"_r{sum(len(r) for r in promo.registers.values())}", array, info.dtype,
                           reg_index, read)
            promo.registers.setdefault(id(loop), []).append(reg)
            for call in calls:
                stmt = program.statement(call.statement)
                for index in _indices_of(stmt, array):
                    promo.redirect.setdefault(id(call), {})[(array, index)] = ("register", reg)
            why = "read-modify-write" if read else "written"
            promo.decisions.append(Decision(
                launch.index, array, refs, "register", loop.iterator, (), 0,
                f"{why} by one thread at one element across the loop: kept in {reg.name}, stored once"))
    return promo


def _private_elements(program: LoopProgram, loop: For):
    """(array, index over loop iterators, calls, read?) reachable only at one element in ``loop``."""
    direct = _direct_calls(loop.body)
    deep = [n for n in nodes(loop.body) if isinstance(n, StmtCall)]
    found: dict[str, list] = {}
    blocked: set[str] = set()
    for call in deep:
        stmt = program.statement(call.statement)
        guarded = _guarded_loads(stmt.value)
        for acc in accesses(program, call, {}):
            ok = (id(call) in direct and acc.forms is not None and acc.array not in blocked
                  and (acc.array, acc.index) not in guarded and loop.iterator not in _names(acc.forms))
            entry = found.setdefault(acc.array, [acc.forms, [], False, False])
            if not ok or entry[0] != acc.forms:
                blocked.add(acc.array)
                continue
            if call not in entry[1]:
                entry[1].append(call)
            entry[2] |= not acc.write
            entry[3] |= acc.write
    for array, (forms, calls, read, written) in found.items():
        if array not in blocked and written and _is_array(program, array):
            yield array, forms, calls, read


def _direct_calls(body: Node) -> set[int]:
    """ids of the statements a loop body runs once per iteration, unconditionally."""
    if isinstance(body, StmtCall):
        return {id(body)}
    if isinstance(body, Block):
        out: set[int] = set()
        for child in body.children:
            if isinstance(child, StmtCall):
                out.add(id(child))
        return out
    return set()


def _guarded_loads(value: ir.Expr) -> set[tuple[str, tuple]]:
    out: set[tuple[str, tuple]] = set()
    for e in ir.walk(value):
        if isinstance(e, ir.Select) and e.guarded:
            for branch in (e.then, e.otherwise, e.cond):
                out.update((x.array, x.index) for x in ir.walk(branch) if isinstance(x, ir.Load))
    return out


def _names(forms) -> set[str]:
    return set().union(*(f.names() for f in forms)) if forms else set()


def _is_array(program: LoopProgram, array: str) -> bool:
    return any(a.name == array and a.rank > 0 for a in program.arrays)


def _indices_of(stmt, array: str) -> set[tuple]:
    out = {stmt.index} if stmt.array == array else set()
    out.update(e.index for e in ir.walk(stmt.value) if isinstance(e, ir.Load) and e.array == array)
    return out


def _ref_text(program: LoopProgram, calls, array: str) -> str:
    texts: list[str] = []
    for call in calls:
        stmt = program.statement(call.statement)
        for index in sorted(_indices_of(stmt, array), key=str):
            text = f"{array}[{', '.join(ir.to_python(i) for i in index)}]"
            if text not in texts:
                texts.append(text)
    return ", ".join(texts)


# ---- shared-memory promotion ----------------------------------------------------------------

@dataclass(frozen=True)
class Group:
    """One reference group staged at one candidate loop."""

    loop: For | None = field(compare=False)  # the strip-mined loop; None: staged once per tile
    array: str
    dtype: str
    accesses: tuple[Access, ...] = field(compare=False)
    box: tuple[Interval, ...]
    uniform: tuple = ()  # the uniform part of each subscript (what the group's accesses share)
    why: str = ""
    # threadIdx.x moves a subscript other than the last: neighbouring threads read one row apart
    # in shared memory; one padding element per row spreads them over the banks
    pad: int = 0

    @property
    def nbytes(self) -> int:
        extents = [i.extent for i in self.box]
        extents[-1] += self.pad
        return math.prod(extents) * np.dtype(self.dtype).itemsize

    @property
    def key(self) -> tuple:
        return (self.site, self.array, self.uniform)

    @property
    def site(self) -> int | str:
        """Where the group is staged: ``id`` of the strip-mined loop, or "tile"."""
        return id(self.loop) if self.loop is not None else "tile"

    @property
    def site_name(self) -> str:
        return self.loop.iterator if self.loop is not None else "tile"

    def refs(self) -> str:
        return ", ".join(dict.fromkeys(a.text for a in self.accesses))


class SharedAnalysis:
    """Reference groups of one launch for a given block shape and chunk (see module doc)."""

    def __init__(self, program: LoopProgram, launch: Launch, block: tuple[int, ...], taken: set) -> None:
        self.program = program
        self.launch = launch
        self.block = block
        self.taken = taken  # (id(call), array, index) already served by registers
        written = {program.statement(n.statement).array for n in nodes(launch.node) if isinstance(n, StmtCall)}
        self.read_only = {a.name for a in program.arrays if a.rank > 0 and a.name not in written
                          and a.name not in launch.private}
        self.dtypes = {a.name: a.dtype for a in program.arrays}
        self.rejected: dict[str, tuple[str, str]] = {}  # array -> (site, why not), innermost site

    def thread_env(self) -> tuple[dict[str, Linear | None], dict[str, int]]:
        """Mapped iterators as ``first + step * (_o{k} + _th{k})``; ``_th{k}`` ranges over the block."""
        env: dict[str, Linear | None] = {}
        extents = {}
        for k, loop in enumerate(self.launch.mapped):
            first = linear(loop.init)
            env[loop.iterator] = None if first is None else (
                first + (variable(f"_o{k}") + variable(f"_th{k}")).scale(loop.step))
            extents[f"_th{k}"] = self.block[k]
        return env, extents

    def sites(self, chunk: int):
        """Where data can be staged, outermost first: once per tile (before the whole body),
        then per chunk of each outermost candidate loop; with the offsets' extents there."""
        env, extents = self.thread_env()
        body = self.launch.mapped[-1].body
        yield None, body, env, extents
        uniform = set(self.program.params) | set(self.launch.host_vars)
        for loop in candidates(body, uniform):
            chunk_env = dict(env)
            chunk_env[loop.iterator] = (variable(f"_c_{loop.iterator}")
                                        + variable(f"_u_{loop.iterator}", loop.step))
            yield loop, loop.body, chunk_env, {**extents, f"_u_{loop.iterator}": chunk}

    def groups(self, chunk: int, excluded: set) -> list[Group]:
        served: set = set(self.taken)
        found: list[Group] = []
        for loop, body, env, extents in self.sites(chunk):
            refs = [(a, e) for call, call_env, e in _scoped_calls(body, env, extents)
                    for a in accesses(self.program, call, call_env)
                    if (a.node, a.array, a.index) not in served]
            for group in self._groups_at(loop, refs):
                if group.key in excluded:
                    continue
                found.append(group)
                served.update((a.node, a.array, a.index) for a in group.accesses)
        return found

    def _groups_at(self, loop: For | None, refs: list[tuple[Access, dict[str, int]]]) -> list[Group]:
        site = loop.iterator if loop is not None else "tile"
        by_key: dict[tuple, list[tuple[Access, dict[str, int]]]] = {}
        for acc, ext in refs:
            if acc.array not in self.read_only:
                continue
            why = _unanalysable(acc)
            if why:
                self.rejected[acc.array] = (site, why)
                continue
            uniform = tuple(f.drop(set(ext)).terms for f in acc.forms)  # type: ignore[union-attr]
            by_key.setdefault((acc.array, uniform), []).append((acc, ext))
        out = []
        for (array, uniform), members in by_key.items():
            group = [a for a, _ in members]
            box = _box([[interval(f, ext) for f in a.forms] for a, ext in members])  # type: ignore[union-attr]
            why = self._worth(group, box)
            if why.startswith("not promoted"):
                self.rejected[array] = (site, why)
                continue
            pad = int(any(f.coef(f"_th{self.launch.x}") for a in group for f in a.forms[:-1]))  # type: ignore[index]
            out.append(Group(loop, array, self.dtypes[array], tuple(group), box, uniform, why, pad))
        return out

    def _worth(self, group: list[Access], box: tuple[Interval, ...]) -> str:
        """Why staging pays (reuse across threads, uncoalesced), or why not."""
        forms = [a.forms for a in group if a.forms is not None]
        if all(i.extent == 1 for i in box):
            return "not promoted: a single element (every thread reads it from the cache as cheaply)"
        shared_axes = [k for k, b in enumerate(self.block) if b > 1 and all(
            f.coef(f"_th{k}") == 0 for fs in forms for f in fs)]
        x = f"_th{self.launch.x}"
        strided = any(f.coef(x) != 0 for fs in forms for f in fs[:-1]) or any(
            abs(fs[-1].coef(x)) > 1 for fs in forms)
        row = box[-1].extent * np.dtype(self.dtypes[group[0].array]).itemsize
        if strided and row < SECTOR_BYTES:
            return (f"not promoted: access not coalesced, but staged rows of {row} bytes would not "
                    f"fill a {SECTOR_BYTES}-byte memory sector either")
        if shared_axes:
            axes = ", ".join("xy"[0 if k == self.launch.x else 1] for k in shared_axes)
            return f"reuse across threads (threads along {axes} read the same elements)"
        if strided:
            return "access not coalesced (threadIdx.x does not move the last subscript by 1)"
        return "not promoted: no reuse across threads and coalesced already"


def _unanalysable(acc: Access) -> str:
    if acc.forms is None:
        return "subscripts not affine in the loops"
    if any(n.startswith("_w_") for n in _names(acc.forms)):
        return "an inner loop's trip count is not constant: footprint of unknown size"
    return ""


def _box(intervals: list[list[Interval]]) -> tuple[Interval, ...]:
    """Per dimension, the union of the intervals (all share the uniform part of ``low``)."""
    out = []
    for d in range(len(intervals[0])):
        dims = [per_access[d] for per_access in intervals]
        lo = min(i.low.const for i in dims)
        hi = max(i.low.const + i.extent for i in dims)
        out.append(Interval(Linear(dims[0].low.terms, lo), hi - lo))
    return tuple(out)


def candidates(body: Node, uniform: set[str]):
    """The outermost loops of the body (reached through blocks only) whose bounds every thread
    of a block agrees on.  As in PPCG, data is staged at one depth: deeper staging would put a
    barrier pair around every chunk of an inner loop."""
    if isinstance(body, Block):
        for child in body.children:
            yield from candidates(child, uniform)
    elif isinstance(body, For) and _uniform_loop(body, uniform):
        yield body


def _uniform_loop(loop: For, uniform: set[str]) -> bool:
    bound = exclusive_bound(loop)
    return bound is not None and loop.step > 0 and free_vars(loop.init, bound) <= uniform


def _scoped_calls(node: Node, env: dict[str, Linear | None], ext: dict[str, int]):
    """(statement, env, extents) under ``node``: inner loops become ``init + step * _u_<it>``
    when their trip count is constant, else an unknown ``_w_<it>`` (no constant footprint)."""
    if isinstance(node, StmtCall):
        yield node, env, ext
    elif isinstance(node, Block):
        for child in node.children:
            yield from _scoped_calls(child, env, ext)
    elif isinstance(node, If):
        yield from _scoped_calls(node.then, env, ext)
        if node.otherwise is not None:
            yield from _scoped_calls(node.otherwise, env, ext)
    else:
        trip, start = _trip(node), _through(linear(node.init), env)
        if trip is None or start is None:
            inner = {**env, node.iterator: variable(f"_w_{node.iterator}")}
            yield from _scoped_calls(node.body, inner, ext)
            return
        inner = {**env, node.iterator: start + variable(f"_u_{node.iterator}", node.step)}
        yield from _scoped_calls(node.body, inner, {**ext, f"_u_{node.iterator}": max(1, trip)})


def _trip(loop: For) -> int | None:
    """The loop's trip count when it is a constant."""
    bound = exclusive_bound(loop)
    init, stop = linear(loop.init), (linear(bound) if bound is not None else None)
    if init is None or stop is None or loop.step <= 0:
        return None
    diff = stop + init.scale(-1)
    return None if diff.terms else -(-diff.const // loop.step)


def _path(body: Node, staged: set[int]) -> set[int]:
    """ids of the nodes that are or enclose a staged loop."""
    out: set[int] = set()

    def visit(node: Node) -> bool:
        inside = False
        if isinstance(node, Block):
            inside = any([visit(c) for c in node.children])
        elif isinstance(node, For):
            inside = visit(node.body) or id(node) in staged
        elif isinstance(node, If):
            inside = False
        if inside:
            out.add(id(node))
        return inside

    visit(body)
    return out


# ---- the decision -----------------------------------------------------------------------------

def promote(program: LoopProgram, launch: Launch, *, kind: str, budget: int, enabled: bool) -> Promotion:
    """Registers, then shared buffers, for one launch (see the module doc)."""
    if not enabled:
        return Promotion(launch.index, budget=budget, enabled=False)
    promo = register_candidates(program, launch, REGISTER_LIMIT)
    promo.budget = budget
    if not launch.parallel:
        return promo
    block = _block_shape(launch, kind)
    taken = {(call, array, index) for call, refs in promo.redirect.items() for (array, index) in refs}
    analysis = SharedAnalysis(program, launch, block, taken)
    groups, chunk = _fit(analysis, CHUNKS[kind], budget, promo)
    _record(promo, analysis, groups, chunk, block)
    return promo


def _block_shape(launch: Launch, kind: str) -> tuple[int, ...]:
    """Threads per block, in ``launch.mapped`` order."""
    shape = BLOCK_SHAPES[kind][len(launch.mapped)]
    if len(shape) == 1:
        return shape
    return shape if launch.x == 0 else (shape[1], shape[0])


def _fit(analysis: SharedAnalysis, chunk0: int, budget: int, promo: Promotion):
    """The groups and chunk that fit the budget: halve the chunk, then drop the largest group."""
    excluded: set = set()
    while True:
        chunk = chunk0
        while True:
            groups = analysis.groups(chunk, excluded)
            total = sum(g.nbytes for g in groups)
            if total <= budget or chunk == 1:
                break
            chunk //= 2
        if total <= budget:
            if chunk < chunk0 and groups:
                promo.decisions.append(Decision(
                    promo.launch, "*", "all staged groups", "shared", "", (), total,
                    f"chunk shrunk from {chunk0} to {chunk} iterations to fit the budget of {budget} bytes"))
            return groups, chunk
        largest = max(groups, key=lambda g: g.nbytes)
        excluded.add(largest.key)
        promo.decisions.append(Decision(
            promo.launch, largest.array, largest.refs(), "global", largest.site_name,
            tuple(i.extent for i in largest.box), largest.nbytes,
            f"not promoted: the staged groups need {total} bytes at chunk 1, over the "
            f"shared-memory budget of {budget} bytes"))


def _record(promo: Promotion, analysis: SharedAnalysis, groups: list[Group], chunk: int,
            block: tuple[int, ...]) -> None:
    for n, group in enumerate(groups):
        buf = SharedBuffer(f"_sh{n}", group.array, group.dtype, tuple(i.extent for i in group.box),
                           tuple(i.low for i in group.box), group.pad)
        promo.staged.setdefault(group.site, []).append(buf)
        for acc in group.accesses:
            promo.redirect.setdefault(acc.node, {})[(acc.array, acc.index)] = ("shared", buf)
        promo.decisions.append(Decision(
            promo.launch, group.array, group.refs(), "shared", group.site_name, buf.shape,
            buf.nbytes, group.why + ("; rows padded by one element against bank conflicts" if buf.pad else "")))
    staged = {g.array for g in groups}
    for array, (site, why) in analysis.rejected.items():
        if array not in staged:
            promo.decisions.append(Decision(promo.launch, array, "", "global", site, (), 0, why))
    if groups:
        promo.block = block
        promo.chunk = chunk
        promo.path = _path(analysis.launch.mapped[-1].body, {k for k in promo.staged if isinstance(k, int)})

