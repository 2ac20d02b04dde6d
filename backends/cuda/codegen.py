"""CUDA backend: the loop AST -> numba.cuda kernel source -> ``cuda.jit``; a host driver runs them.

See ``cuda_plan`` for which loops become grids, host loops and single-thread launches, and
docs/cuda.md for the whole design.  Per launch we generate one kernel as Python text (registered
in ``linecache`` so tracebacks and the simulator show it), exec it and ``cuda.jit`` it; numba
compiles it on its first launch.  Locals:

* local scalars: kernel variables (per thread), or one-element device arrays ("cells") when
  their value must outlive a launch;
* private local arrays of a parallel launch: ``cuda.local.array`` when their shape is a small
  compile-time constant, else a slice of a global scratch buffer with one row per thread
  (``P = P__scratch[_tid]``), allocated per call;
* other local arrays: global device buffers, allocated per call.

Per call: numpy arrays are copied to the device and the ones the kernel writes are copied back;
device arrays (numba's, or anything with ``__cuda_array_interface__``) are used in place.  The call
returns once the GPU is done (``cuda.synchronize()``).
"""

from __future__ import annotations

import linecache
import logging
import math
from dataclasses import dataclass, field
from itertools import count
from typing import Any

import numpy as np
from polyfuse.backends.cuda.exprs import ERROR_CELL, NUMBA_TYPES, ExprRenderer, helper_source, on_device
from polyfuse.backends.cuda.plan import HostFor, Launch, Plan, Unit, make_plan
from polyfuse.backends.cuda.promote import Decision, Promotion, promote, promotion_enabled, shared_budget
from polyfuse.backends.cuda.simulator import ieee_math, make_shared_arrays_thread_safe
from polyfuse.backends.cuda.tiled import TiledEmitter

from polyfuse.errors import UnsupportedError
from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, If, LoopProgram, Node, StmtCall, exclusive_bound
from polyfuse.model.scop import isl_name
from polyfuse.options import cuda_device_launches, cuda_show_source

log = logging.getLogger("polyfuse.cuda")
_serial = count()

BLOCK_1D = 256  # threads per block of a 1-D grid
BLOCK_2D_X = 32  # a warp along x; y fills the block up to BLOCK_1D threads
MAX_GRID_X = 2**20  # beyond this, threads take several iterations (grid-stride loops)
MAX_GRID_Y = 65535  # the hardware limit of gridDim.y
MAX_SCRATCH_THREADS = 2**16  # launches with per-thread scratch rows use at most this many threads
SIM_MAX_THREADS = 64  # under the simulator every thread is a Python thread: keep grids small
LOCAL_ARRAY_BYTES = 2048  # constant-shape private arrays up to this size are cuda.local.array


def cuda_api(purpose: str = "target='cuda'"):
    """``numba.cuda`` when a GPU or the simulator can run kernels; a clear error otherwise."""
    try:
        from numba import config, cuda
    except ImportError as exc:  # pragma: no cover - numba ships numba.cuda or numba-cuda provides it
        raise UnsupportedError(f"{purpose} needs numba's CUDA support: pip install 'polyfuse[cuda]' ({exc})") from None
    if simulator_enabled(config):
        make_shared_arrays_thread_safe()
        return cuda
    try:
        available = cuda.is_available()
    except Exception:  # noqa: BLE001 - a broken driver install is "not available" too
        available = False
    if not available:
        raise UnsupportedError(
            f"{purpose}: no usable CUDA GPU or driver was found (numba.cuda.is_available() is False). "
            "Install an NVIDIA driver and 'polyfuse[cuda]', or set NUMBA_ENABLE_CUDASIM=1 before "
            "numba is first imported to run on numba's (slow) CUDA simulator"
        )
    return cuda


def simulator_enabled(config=None) -> bool:
    if config is None:
        from numba import config
    return bool(config.ENABLE_CUDASIM)


# ---- code generation ------------------------------------------------------------------------

@dataclass(frozen=True)
class Storage:
    """Where each kernel-local array lives for this program."""

    cells: frozenset[str]  # scalars in one-element device arrays
    registers: frozenset[str]  # scalars in kernel variables
    local: dict[str, tuple[int, ...]]  # private arrays in cuda.local.array (constant shape)
    scratch: frozenset[str]  # private arrays in per-thread rows of a global buffer
    buffers: tuple[str, ...]  # other local arrays: global device buffers


def _storage(program: LoopProgram, plan: Plan) -> Storage:
    infos = {a.name: a for a in program.local_arrays()}
    private = {p for launch in plan.launches for p in launch.private if not infos[p].is_scalar}
    local, scratch = {}, set()
    for name in private:
        info = infos[name]
        shape = tuple(int(e.value) for e in info.shape if isinstance(e, ir.Const))
        if len(shape) == info.rank and math.prod(shape) * np.dtype(info.dtype).itemsize <= LOCAL_ARRAY_BYTES:
            local[name] = shape
        else:
            scratch.add(name)
    buffers = tuple(a.name for a in program.local_arrays() if not a.is_scalar and a.name not in private)
    return Storage(plan.cells, plan.registers, local, frozenset(scratch), buffers)


class CudaCodegen(TiledEmitter):
    """Emits the kernel module of one program: helpers, then one kernel per launch."""

    def __init__(self, program: LoopProgram, plan: Plan, storage: Storage,
                 promotions: dict[int, Promotion] | None = None) -> None:
        self.program = program
        self.plan = plan
        self.storage = storage
        self.promotions = promotions or {}
        self.promo = Promotion(-1)
        self.checks = overflow_checks(program)
        self.exprs = ExprRenderer(set(storage.cells), set(storage.registers), self.checks)
        self.arrays = {a.name: a for a in program.arrays}
        names = [a.name for a in program.arguments]
        names += [p for p in program.params if p not in names]
        names += list(storage.buffers) + sorted(storage.cells)
        names += [ERROR_CELL] if self.checks else []
        self.base_params = tuple(names)

    def kernel_name(self, launch: Launch) -> str:
        return f"{self.program.name}__k{launch.index}"

    def parameters(self, launch: Launch) -> tuple[str, ...]:
        counts = tuple(f"_n{k}" for k in range(len(launch.mapped)))
        scratch = tuple(f"{p}__scratch" for p in launch.private if p in self.storage.scratch)
        return self.base_params + launch.host_vars + counts + scratch

    def module(self) -> str:
        kernels = [self.kernel(launch) for launch in self.plan.launches]
        header = f"# polyfuse CUDA kernels of {self.program.name}\n"
        return header + helper_source(self.exprs.helpers) + "".join(kernels)

    def kernel(self, launch: Launch) -> str:
        out: list[str] = ["", ""]
        self.promo = self.promotions.get(launch.index, Promotion(launch.index))
        out.append(self._header(launch))
        out.append("@_cuda.jit")
        out.append(f"def {self.kernel_name(launch)}({', '.join(self.parameters(launch))}):")
        used = self._locals_used(launch.node)
        for name in sorted(used & self.storage.registers):
            out.append(f"    {name} = {self.exprs.cast('0', self.arrays[name].dtype)}")
        for regs in self.promo.registers.values():
            out += [f"    {r.name} = {self.exprs.cast('0', r.dtype)}  # {r.array} (register)" for r in regs]
        if not launch.parallel:
            self.emit(launch.node, 1, out)
            return "\n".join(out) + "\n"
        if len(launch.mapped) == 1:
            out += ["    _tid = _cuda.grid(1)", "    _nthreads = _cuda.gridsize(1)"]
        else:
            out += ["    _gx, _gy = _cuda.grid(2)", "    _sx, _sy = _cuda.gridsize(2)",
                    "    _tid = _gy * _sx + _gx"]
        self._private_arrays(launch, out)
        if self.promo.tiled:
            self.shared_declarations(out)
            self.tiled_loops(launch, out)
        else:
            self._grid_stride_loops(launch, out)
        return "\n".join(out) + "\n"

    def _header(self, launch: Launch) -> str:
        if not launch.parallel:
            return f"# launch {launch.index}: SINGLE THREAD <<<1, 1>>> (slow): {launch.reason}"
        dims = " x ".join(m.iterator for m in launch.mapped)
        tiles = f", tiles of {' x '.join(map(str, self.promo.block))}" if self.promo.tiled else ""
        return f"# launch {launch.index}: grid over {dims}, x <- {launch.mapped[launch.x].iterator}{tiles}"

    def _grid_stride_loops(self, launch: Launch, out: list[str]) -> None:
        """One iteration of the mapped loops per thread and step (no block-wide agreement)."""
        if len(launch.mapped) == 1:
            loop = launch.mapped[0]
            out.append("    for _k0 in range(_tid, _n0, _nthreads):")
            out.append(f"        {loop.iterator} = {self._first(loop)} + _k0 * {loop.step}")
            self.emit(loop.body, 2, out)
            return
        x = launch.x
        y = 1 - x
        out.append(f"    for _k{y} in range(_gy, _n{y}, _sy):")
        out.append(f"        for _k{x} in range(_gx, _n{x}, _sx):")
        for k, loop in enumerate(launch.mapped):
            out.append(f"            {loop.iterator} = {self._first(loop)} + _k{k} * {loop.step}")
        self.emit(launch.mapped[1].body, 3, out)

    def _first(self, loop: For) -> str:
        return self.exprs.render(loop.init)

    def _private_arrays(self, launch: Launch, out: list[str]) -> None:
        for name in launch.private:
            info = self.arrays[name]
            if name in self.storage.scratch:
                out.append(f"    {name} = {name}__scratch[_tid]")
            elif name in self.storage.local:
                shape = self.storage.local[name]
                out.append(f"    {name} = _cuda.local.array({shape!r}, {NUMBA_TYPES[info.dtype]})")
                if info.zero_init:
                    idx = ", ".join(f"_z{d}" for d in range(len(shape)))
                    for d, extent in enumerate(shape):
                        out.append(f"    {'    ' * d}for _z{d} in range({extent}):")
                    out.append(f"    {'    ' * len(shape)}{name}[{idx}] = 0")

    def _locals_used(self, node: Node) -> set[str]:
        names: set[str] = set()
        for sub in _nodes(node):
            if isinstance(sub, StmtCall):
                stmt = self.program.statement(sub.statement)
                names.add(stmt.array)
                names.update(e.array for e in ir.walk(stmt.value) if isinstance(e, ir.Load))
        return names

    # ---- loop AST rules (as the Python backend) ------------------------------------------
    def emit(self, node: Node, depth: int, out: list[str]) -> None:
        pad = "    " * depth
        if isinstance(node, Block):
            for child in node.children:
                self.emit(child, depth, out)
        elif isinstance(node, For):
            self.with_registers(node, depth, out, "", lambda: self.emit_for(node, depth, out))
        elif isinstance(node, If):
            out.append(f"{pad}if {self.exprs.render(node.cond)}:")
            self.emit(node.then, depth + 1, out)
            if node.otherwise is not None:
                out.append(f"{pad}else:")
                self.emit(node.otherwise, depth + 1, out)
        else:
            stmt = self.program.statement(node.statement)
            for var, value in zip(stmt.iterators, node.args):
                out.append(f"{pad}{isl_name(var)} = {self.exprs.render(value)}")
            self.exprs.redirect = self.redirects(id(node))
            target = self.exprs.access(stmt.array, stmt.index)
            text = self.exprs.render(stmt.value)
            if self.in_register(id(node), stmt.array, stmt.index):  # keep the array's dtype
                text = self.exprs.cast(text, self.arrays[stmt.array].dtype)
            out.append(f"{pad}{target} = {text}  # {stmt.name}: {stmt.source_line}")
            self.exprs.redirect = {}

    def emit_for(self, node: For, depth: int, out: list[str]) -> None:
        pad = "    " * depth
        bound = exclusive_bound(node)
        if bound is not None:
            step = f", {node.step}" if node.step != 1 else ""
            out.append(f"{pad}for {node.iterator} in range({self.exprs.render(node.init)}, "
                       f"{self.exprs.render(bound)}{step}):")
            self.emit(node.body, depth + 1, out)
        else:
            out.append(f"{pad}{node.iterator} = {self.exprs.render(node.init)}")
            out.append(f"{pad}while {self.exprs.render(node.cond)}:")
            self.emit(node.body, depth + 1, out)
            out.append(f"{pad}    {node.iterator} += {node.step}")


def _nodes(node: Node):
    from polyfuse.model.loop_ast import nodes

    return nodes(node)


# ---- the compiled kernel and its host driver ----------------------------------------------

@dataclass
class Transfers:
    """What the last call moved between host and device (array names)."""

    to_device: list[str] = field(default_factory=list)
    to_host: list[str] = field(default_factory=list)


@dataclass
class CudaKernel:
    """The kernels of one program and the host program that launches them."""

    program: LoopProgram = field(repr=False)
    plan: Plan = field(repr=False)
    storage: Storage = field(repr=False)
    source: str
    kernels: dict[int, Any] = field(repr=False)
    parameters: dict[int, tuple[str, ...]] = field(repr=False)
    written: frozenset[str] = frozenset()
    simulator: bool = False
    checks: tuple[tuple[str, str | None], ...] = ()  # the OverflowError checks, by code - 1
    promotions: dict[int, Promotion] = field(default_factory=dict, repr=False)
    launch_kind: str = "gpu"  # "gpu": a real device's block shapes; "simulator": small grids
    last_transfers: Transfers = field(default_factory=Transfers)
    _host_code: dict[ir.Expr, Any] = field(default_factory=dict, repr=False)

    def describe(self) -> str:
        """How each launch maps to the GPU, and for each mapped loop the dependence check that
        allowed running its iterations on different threads."""
        lines = []
        for launch in self.plan.launches:
            if launch.parallel:
                axes = ", ".join(f"{'xy'[0 if k == launch.x else 1]} <- {m.iterator}"
                                 for k, m in enumerate(launch.mapped))
                extra = f", private {', '.join(launch.private)}" if launch.private else ""
                line = f"launch {launch.index}: grid ({axes}){extra}"
            else:
                line = f"launch {launch.index}: single thread ({launch.reason})"
            if launch.host_vars:
                line += f" inside host loop(s) over {', '.join(launch.host_vars)}"
            promo = self.promotions.get(launch.index)
            if promo is not None and promo.tiled:
                line += f", tiles {' x '.join(map(str, promo.block))}, chunk {promo.chunk}"
            lines.append(line)
            lines += [f"    {m.iterator} parallel: {m.why_parallel or 'marked parallel in the loop AST'}"
                      for m in (launch.mapped if launch.parallel else ())]
        return "\n".join(lines)

    def promotion_decisions(self) -> list[Decision]:
        """Every promotion decision (shared memory, registers, and why not), launch by launch."""
        return [d for index in sorted(self.promotions) for d in self.promotions[index].decisions]

    def explain_sections(self) -> tuple[tuple[str, Any], ...]:
        """What ``explain()`` shows for this backend: the GPU mapping and the promotions."""
        budget = max((p.budget for p in self.promotions.values()), default=0)
        lines = [f"shared-memory budget: {budget} bytes per block"]
        lines += [_decision_text(d) for d in self.promotion_decisions()]
        if not all(p.enabled for p in self.promotions.values()):
            lines = ["promotion off (POLYFUSE_CUDA_SHARED=0)"]
        return (("gpu mapping", self.describe()), ("gpu promotion", lines))

    def __call__(self, env: dict[str, Any]) -> None:
        cuda = cuda_api()
        transfers = Transfers()
        values = dict(env)
        copies = []
        for arg in self.program.arguments:
            if arg.kind != "array":
                continue
            host = env[arg.name]
            if isinstance(host, np.ndarray):
                values[arg.name] = cuda.to_device(np.ascontiguousarray(host))
                transfers.to_device.append(arg.name)
                if arg.name in self.written:
                    copies.append((host, values[arg.name], arg.name))
        for name in self.storage.buffers:
            host = env[name]
            info = next(a for a in self.program.local_arrays() if a.name == name)
            values[name] = cuda.to_device(host) if info.zero_init else cuda.device_array(host.shape, host.dtype)
        for name in self.storage.cells:
            values[name] = cuda.to_device(np.zeros(1, dtype=env[name].dtype))
        if self.checks:
            values[ERROR_CELL] = cuda.to_device(np.zeros(2, np.int64))
        self._run(self.plan.units, values, cuda, {})
        cuda.synchronize()
        for host, device, name in copies:
            if host.flags.c_contiguous and host.flags.writeable:
                device.copy_to_host(host)
            else:
                host[...] = device.copy_to_host()
            transfers.to_host.append(name)
        self.last_transfers = transfers
        if self.checks:
            code, value = (int(v) for v in values[ERROR_CELL].copy_to_host())
            if code:  # a Python int outside the integer dtype it met, 1.0 / 0.0 (exprs._Check)
                kind, message = self.checks[code - 1]
                ir.raise_check(kind, message, value)

    # ---- host program ----------------------------------------------------------------------
    def _eval(self, expr: ir.Expr, values: dict[str, Any]):
        """Evaluate a host-side integer expression (a loop bound, a guard).

        The compiled code is cached per expression *value* (IR nodes are frozen dataclasses), never
        per ``id()``: bounds such as ``exclusive_bound``'s ``e + 1`` are fresh temporaries, and a
        freed temporary's id is soon reused by a different expression, which would then run the
        first one's code (wrong trip counts and NameErrors that looked like races)."""
        code = self._host_code.get(expr)
        if code is None:
            code = compile(ir.to_python(expr), "<polyfuse-cuda-host>", "eval")
            self._host_code[expr] = code
        return eval(code, _HOST_GLOBALS, values)  # noqa: S307 - our own integer expressions

    def _run(self, units: tuple[Unit, ...], values: dict[str, Any], cuda, scratch: dict) -> None:
        for unit in units:
            if isinstance(unit, Launch):
                self._launch(unit, values, cuda, scratch)
            elif isinstance(unit, HostFor):
                loop = unit.loop
                start = int(self._eval(loop.init, values))
                stop = int(self._eval(_bound(loop), values))
                for value in range(start, stop, loop.step):
                    values[loop.iterator] = value
                    self._run(unit.body, values, cuda, scratch)
                values.pop(loop.iterator, None)
            elif self._eval(unit.cond, values):
                self._run(unit.then, values, cuda, scratch)
            else:
                self._run(unit.otherwise, values, cuda, scratch)

    def _launch(self, launch: Launch, values: dict[str, Any], cuda, scratch: dict) -> None:
        kernel = self.kernels[launch.index]
        if not launch.parallel:
            kernel[1, 1](*(values[p] for p in self.parameters[launch.index]))
            return
        counts = []
        for loop in launch.mapped:
            start = int(self._eval(loop.init, values))
            stop = int(self._eval(_bound(loop), values))
            counts.append(max(0, -(-(stop - start) // loop.step)))
        if 0 in counts:
            return
        needs_scratch = any(p in self.storage.scratch for p in launch.private)
        promo = self.promotions.get(launch.index)
        tile = promo.block if promo is not None and promo.tiled else None
        grid, block = launch_config(counts, launch.x, needs_scratch, self.launch_kind == "simulator", tile)
        for k, n in enumerate(counts):
            values[f"_n{k}"] = n
        threads = math.prod(grid) * math.prod(block)
        for name in launch.private:
            if name in self.storage.scratch:
                values[f"{name}__scratch"] = self._scratch(name, threads, values, cuda, scratch)
        kernel[grid, block](*(values[p] for p in self.parameters[launch.index]))

    def _scratch(self, name: str, threads: int, values: dict[str, Any], cuda, cache: dict):
        """One row per thread of the private array ``name``, reused within the call."""
        from polyfuse.runtime.variant import evaluate_int

        info = next(a for a in self.program.local_arrays() if a.name == name)
        shape = (threads,) + tuple(evaluate_int(e, values) for e in info.shape)
        buffer = cache.get(name)
        if buffer is None or buffer.shape[0] < threads or tuple(buffer.shape[1:]) != shape[1:]:
            host = np.zeros(shape, dtype=info.dtype) if info.zero_init else None
            buffer = cuda.to_device(host) if host is not None else cuda.device_array(shape, info.dtype)
            cache[name] = buffer
        return buffer


_HOST_GLOBALS = {"_np": np, "_math": math}


def _bound(loop: For) -> ir.Expr:
    """The exclusive bound of a loop the plan put on the host or the grid (it has one)."""
    bound = exclusive_bound(loop)
    assert bound is not None, loop.iterator
    return bound


def _decision_text(d: Decision) -> str:
    if d.storage == "register":
        return f"launch {d.launch}: {d.refs} -> register across loop {d.loop}: {d.reason}"
    if d.storage == "global":
        return f"launch {d.launch}: {d.refs or d.array} (at {d.loop}): {d.reason}"
    if d.array == "*":
        return f"launch {d.launch}: {d.reason} (all staged groups together: {d.bytes} bytes)"
    site = "once per tile" if d.loop == "tile" else f"per chunk of loop {d.loop}" if d.loop else ""
    return f"launch {d.launch}: {d.refs} -> shared {d.shape}, {d.bytes} bytes, {site}: {d.reason}"


def launch_config(counts: list[int], x: int, scratch: bool, simulator: bool,
                  tile: tuple[int, ...] | None = None) -> tuple[tuple, tuple]:
    """(grid, block) for 1 or 2 mapped loops with trip ``counts``; ``x`` is the loop on x.
    ``tile``: the fixed block shape of a promoted launch (in mapped order)."""
    cap = SIM_MAX_THREADS if simulator else (MAX_SCRATCH_THREADS if scratch else None)
    if tile is not None:
        return _tiled_config(counts, x, tile, cap)
    if len(counts) == 1:
        n = counts[0]
        block = min(BLOCK_1D, n, cap or n)
        blocks = min(-(-n // block), MAX_GRID_X)
        if cap is not None:
            blocks = max(1, min(blocks, cap // block))
        return (blocks,), (block,)
    nx, ny = counts[x], counts[1 - x]
    bx = min(BLOCK_2D_X, nx)
    by = min(max(1, BLOCK_1D // bx), ny)
    if cap is not None:
        bx = min(bx, cap)
        by = max(1, min(by, cap // bx))
    gx, gy = min(-(-nx // bx), MAX_GRID_X), min(-(-ny // by), MAX_GRID_Y)
    if cap is not None:
        per_block = bx * by
        gx = max(1, min(gx, cap // per_block))
        gy = max(1, min(gy, cap // (per_block * gx)))
    return (gx, gy), (bx, by)


def _tiled_config(counts: list[int], x: int, tile: tuple[int, ...], cap: int | None):
    """Whole tiles: as many blocks as tiles, capped (blocks then take several tiles each)."""
    block = (tile[x],) if len(tile) == 1 else (tile[x], tile[1 - x])
    n = (counts[x],) if len(tile) == 1 else (counts[x], counts[1 - x])
    limits = (MAX_GRID_X, MAX_GRID_Y)
    grid = [min(-(-n_ // b), lim) for n_, b, lim in zip(n, block, limits)]
    if cap is not None:
        budget = max(1, cap // math.prod(block))
        grid = [max(1, min(g, budget // math.prod(grid[:k]) if k else budget)) for k, g in enumerate(grid)]
    return tuple(grid), block


def _refuse_runtime_subscripts(program: LoopProgram) -> None:
    """Subscripts computed at run time (``x[idx[i]]``) need an IndexError path on the device,
    which this backend does not have yet; nor does it run loops kept as written (model/region.py)."""
    for stmt in program.statements:
        if stmt.region is not None:
            raise UnsupportedError(
                f"{stmt.region.reason} (line {stmt.region.line}) is kept as written, which target='cuda' "
                "does not run yet; use target='cpu' or 'python'", stmt.span, stmt.region.reason)
        for root in (stmt.value, *stmt.index):
            for node in ir.walk(root):
                if isinstance(node, ir.Check) and on_device(node.error, node.message):
                    continue  # a Python int outside an integer dtype, 1.0 / 0.0: recorded in the error cell (exprs._Check)
                if isinstance(node, ir.Check) and node.error == "UnboundLocalError":
                    raise UnsupportedError(
                        f"a read of a local that Python may find unassigned ({node.message}: Python's "
                        "UnboundLocalError, checked at run time) is not supported by target='cuda' yet; "
                        "assign the local on every path before it, or use target='cpu' or 'python'",
                        stmt.span, "read of a maybe-unassigned local")
                if isinstance(node, ir.Check):
                    raise UnsupportedError(
                        "an assert checked at run time (inside a loop or branch, or of array values) is not "
                        "supported by target='cuda' yet; use target='cpu' or 'python'", stmt.span, "assert statement")
                if isinstance(node, ir.Index):
                    raise UnsupportedError(
                        f"subscript of {node.array!r} computed at run time (not affine) is not "
                        "supported by target='cuda' yet; use target='cpu' or 'python'",
                        stmt.span, "run-time subscript")


def _refuse_complex(program: LoopProgram) -> None:
    """complex64/complex128 values are computed by the CPU targets only (docs/cuda.md)."""
    dtypes = {a.name: a.dtype for a in program.arrays}
    for stmt in program.statements:
        found = [n.dtype for root in (stmt.value, *stmt.index) for n in ir.walk(root)
                 if n.dtype.startswith("complex")] + [dtypes.get(stmt.array, "")]
        dtype = next((d for d in found if d.startswith("complex")), None)
        if dtype is not None:
            raise UnsupportedError(
                f"{dtype} values are not supported by target='cuda'; use target='cpu' or 'python'",
                stmt.span, f"{dtype} on cuda")


def compile_cuda(program: LoopProgram, options=None) -> CudaKernel:
    """Plan, generate and ``cuda.jit`` the kernels of ``program`` (numba compiles on first launch)."""
    _refuse_runtime_subscripts(program)
    _refuse_complex(program)
    cuda = cuda_api()
    import numba

    plan = make_plan(program)
    storage = _storage(program, plan)
    # PPCG-style promotion: shared-memory staging and register accumulators, per launch
    simulator = simulator_enabled()
    budget = shared_budget(cuda, simulator)
    # the simulator runs every thread as a Python thread, so it launches small grids unless the
    # tests ask for a real device's launch configuration (POLYFUSE_CUDA_LAUNCH=device)
    kind = "simulator" if simulator and not cuda_device_launches() else "gpu"
    promotions = {launch.index: promote(program, launch, kind=kind, budget=budget, enabled=promotion_enabled())
                  for launch in plan.launches}
    codegen = CudaCodegen(program, plan, storage, promotions)
    source = codegen.module()
    for launch in plan.launches:
        if not launch.parallel:
            log.info("%s: launch %d runs on a single GPU thread (%s)", program.name, launch.index, launch.reason)
    filename = f"<polyfuse-cuda-{program.name}-{next(_serial)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    # the simulator runs ``_math`` as Python, which raises where a GPU returns inf or NaN
    namespace: dict[str, Any] = {"_cuda": cuda, "_nb": numba, "_math": ieee_math() if simulator else math,
                                 "_INF": math.inf,
                                 "_NAN": math.nan, "__name__": f"polyfuse_cuda_{program.name}"}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own generated code
    if cuda_show_source():
        print(source)
    written = frozenset(s.array for s in program.statements)
    return CudaKernel(
        program, plan, storage, source,
        {launch.index: namespace[codegen.kernel_name(launch)] for launch in plan.launches},
        {launch.index: codegen.parameters(launch) for launch in plan.launches},
        written, simulator, codegen.checks, promotions, launch_kind=kind,
    )


def overflow_checks(program: LoopProgram) -> tuple[tuple[str, str | None], ...]:
    """The (error, message) of the program's OverflowError checks (the only run-time checks
    this backend runs: _refuse_runtime_subscripts), each once: a kernel that has any takes
    the error cell, ``ERROR_CELL``."""
    roots = [root for stmt in program.statements for root in (stmt.value, *stmt.index)]
    return tuple(m for m in ir.check_messages(roots) if on_device(*m))
