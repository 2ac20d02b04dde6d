"""Code generation for promoted launches (see ``cuda_promote`` for the decisions).

A tiled launch loops over tiles of the mapped loops, uniformly for the whole block:

    for _o0 in range(blockIdx.x * BX, _n0, gridDim.x * BX):   # tile origin (all threads)
        _k0 = _o0 + _th0; _on = _k0 < _n0                     # this thread's iteration, in range?
        for _c_k in range(lo, hi, T):                         # a strip-mined (staged) loop
            <cooperative, bounds-guarded loads of each staged group into its shared array>
            syncthreads()
            for k in range(_c_k, min(_c_k + T, hi)):
                if _on: <statements, reading the shared copies>
            syncthreads()

Only loops enclosing a staged loop run unguarded; everything else runs under ``if _on:``, so
every thread reaches every barrier.  Register promotions wrap their loop with one load before
and one store after, each under the loop's "runs at least once" test (and ``_on``).
"""

from __future__ import annotations

import math

from polyfuse.backends.cuda.exprs import NUMBA_TYPES, ExprRenderer
from polyfuse.backends.cuda.promote import Promotion, Register, SharedBuffer

from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, Node, exclusive_bound


class TiledEmitter:
    """Mixin of ``CudaCodegen``: the tiled kernel body and the promoted accesses."""

    promo: Promotion
    exprs: ExprRenderer

    def emit(self, node: Node, depth: int, out: list[str]) -> None:  # pragma: no cover - CudaCodegen's
        raise NotImplementedError

    def _first(self, loop: For) -> str:  # pragma: no cover - CudaCodegen's
        raise NotImplementedError

    def shared_declarations(self, out: list[str]) -> None:
        # one cuda.shared.array per line: the simulator identifies shared arrays by source line
        for loop_buffers in self.promo.staged.values():
            for buf in loop_buffers:
                padded = f", rows padded by {buf.pad}" if buf.pad else ""
                out.append(f"    {buf.name} = _cuda.shared.array({buf.allocated!r}, "
                           f"{NUMBA_TYPES[buf.dtype]})  # {buf.array}: {buf.nbytes} bytes{padded}")

    def tiled_loops(self, launch, out: list[str]) -> None:
        """Tile loops over the mapped loops, then the body (uniform where it must be)."""
        block, x = self.promo.block, launch.x
        axes = {x: "x"} if len(block) == 1 else {x: "x", 1 - x: "y"}
        for k, axis in sorted(axes.items(), key=lambda a: a[1] == "x"):  # y outside x
            out.append(f"    _th{k} = _cuda.threadIdx.{axis}")
        out.append("    _lin = _cuda.threadIdx.y * _cuda.blockDim.x + _cuda.threadIdx.x")
        depth = 1
        for k, axis in sorted(axes.items(), key=lambda a: a[1] == "x"):
            pad = "    " * depth
            out.append(f"{pad}for _o{k} in range(_cuda.blockIdx.{axis} * {block[k]}, _n{k}, "
                       f"_cuda.gridDim.{axis} * {block[k]}):")
            depth += 1
        pad = "    " * depth
        for k in range(len(block)):
            out.append(f"{pad}_k{k} = _o{k} + _th{k}")
        out.append(f"{pad}_on = " + " and ".join(f"_k{k} < _n{k}" for k in range(len(block))))
        for k, loop in enumerate(launch.mapped):
            out.append(f"{pad}{loop.iterator} = {self._first(loop)} + _k{k} * {loop.step}")
        per_tile = self.promo.staged.get("tile", [])
        for buf in per_tile:
            self.stage(buf, depth, out)
        if per_tile:
            out.append(f"{pad}_cuda.syncthreads()")
        self.emit_uniform(launch.mapped[-1].body, depth, out)
        if per_tile:
            out.append(f"{pad}_cuda.syncthreads()")

    def emit_uniform(self, node: Node, depth: int, out: list[str]) -> None:
        """Nodes every thread of the block runs (they enclose barriers); the rest under ``_on``."""
        pad = "    " * depth
        if id(node) not in self.promo.path:
            out.append(f"{pad}if _on:")
            self.emit(node, depth + 1, out)
        elif isinstance(node, Block):
            for child in node.children:
                self.emit_uniform(child, depth, out)
        else:
            assert isinstance(node, For)
            self.with_registers(node, depth, out, "_on and ", lambda: self.uniform_for(node, depth, out))

    def uniform_for(self, loop: For, depth: int, out: list[str]) -> None:
        pad = "    " * depth
        init, bound = self.exprs.render(loop.init), self.exprs.render(_bound(loop))
        buffers = self.promo.staged.get(id(loop), [])
        if not buffers:
            out.append(f"{pad}for {loop.iterator} in range({init}, {bound}, {loop.step}):")
            self.emit_uniform(loop.body, depth + 1, out)
            return
        chunk, step = f"_c_{loop.iterator}", self.promo.chunk * loop.step
        out.append(f"{pad}for {chunk} in range({init}, {bound}, {step}):  # chunks of {self.promo.chunk}")
        for buf in buffers:
            self.stage(buf, depth + 1, out)
        out.append(f"{pad}    _cuda.syncthreads()")
        out.append(f"{pad}    for {loop.iterator} in range({chunk}, min({chunk} + {step}, {bound}), "
                   f"{loop.step}):")
        self.emit_uniform(loop.body, depth + 2, out)
        out.append(f"{pad}    _cuda.syncthreads()")

    def stage(self, buf: SharedBuffer, depth: int, out: list[str]) -> None:
        """Cooperative load of ``buf``'s box, last dimension fastest (coalesced), in bounds only."""
        pad = "    " * depth
        rank, threads = len(buf.shape), math.prod(self.promo.block)
        for d, low in enumerate(buf.low):
            out.append(f"{pad}{buf.name}_lo{d} = {low.render()}")
        out.append(f"{pad}for _e in range(_lin, {math.prod(buf.shape)}, {threads}):  "
                   f"# {buf.array} -> {buf.name}")
        inner = 1
        for d in reversed(range(rank)):
            div = f"_e // {inner}" if inner > 1 else "_e"
            out.append(f"{pad}    _i{d} = ({div}) % {buf.shape[d]}" if d else f"{pad}    _i{d} = {div}")
            inner *= buf.shape[d]
        for d in range(rank):
            out.append(f"{pad}    _g{d} = {buf.name}_lo{d} + _i{d}")
        inside = " and ".join(f"0 <= _g{d} < {buf.array}.shape[{d}]" for d in range(rank))
        idx = ", ".join(f"_i{d}" for d in range(rank))
        glob = ", ".join(f"_g{d}" for d in range(rank))
        out.append(f"{pad}    if {inside}:")
        out.append(f"{pad}        {buf.name}[{idx}] = {buf.array}[{glob}]")

    def with_registers(self, loop: For, depth: int, out: list[str], guard: str, emit_loop) -> None:
        """``emit_loop()`` between the loads and stores of the registers kept across ``loop``."""
        regs: list[Register] = self.promo.registers.get(id(loop), [])
        if not regs:
            emit_loop()
            return
        pad = "    " * depth
        bound = _bound(loop)
        runs = f"{guard}{self.exprs.render(loop.init)} < {self.exprs.render(bound)}"
        loads = [r for r in regs if r.read]
        if loads:
            out.append(f"{pad}if {runs}:")
            out += [f"{pad}    {r.name} = {r.array}[{_subscript(r)}]" for r in loads]
        emit_loop()
        out.append(f"{pad}if {runs}:")
        out += [f"{pad}    {r.array}[{_subscript(r)}] = {r.name}" for r in regs]

    def in_register(self, call_id: int, array: str, index: tuple) -> bool:
        target = self.promo.redirect.get(call_id, {}).get((array, index))
        return target is not None and target[0] == "register"

    def redirects(self, call_id: int) -> dict:
        """How the statement ``call_id`` reaches its promoted accesses."""
        out = {}
        for key, (_, target) in self.promo.redirect.get(call_id, {}).items():
            if isinstance(target, Register):
                out[key] = (lambda name: lambda subs: name)(target.name)
            else:
                out[key] = _shared_access(target)
        return out


def _bound(loop: For) -> ir.Expr:
    """The exclusive bound of a candidate or register loop (both require one)."""
    bound = exclusive_bound(loop)
    assert bound is not None, loop.iterator
    return bound


def _subscript(reg: Register) -> str:
    return ", ".join(f.render() for f in reg.index)


def _shared_access(buf: SharedBuffer):
    def render(subscripts: list[str]) -> str:
        return f"{buf.name}[{', '.join(f'({s}) - {buf.name}_lo{d}' for d, s in enumerate(subscripts))}]"

    return render
