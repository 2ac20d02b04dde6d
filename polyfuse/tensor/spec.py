"""``polyfuse.spec``: several tensor statements in a small index notation, compiled as one kernel.

```
H[i, j] = relu(sum[k](X[i, k] * W1[k, j]) + b1[j])
Y[i, l] = sum[j](H[i, j] * W2[j, l])
```

Each statement becomes one loop nest over its target's indices; ``sum[k](e)`` becomes a scalar
accumulator loop (``max``/``min``: a running maximum/minimum, ``prod``: a running product).  The
whole spec is generated as one loop-nest function in the supported subset, wrapped with
``polyfuse.kernel`` (so polyfuse fuses the statements' loops), and called with arrays allocated
from the inferred index ranges.  The language is documented in docs/einsum.md.

The stages, one module each, in the order a spec meets them: spec_parse (text -> statements,
over the tree of spec_syntax), spec_analysis (names, ranks, index ranges, call-time checks),
spec_gen (the loop-nest source), spec_staging (GEMM-shaped sums on BLAS, the rest as fused loop
steps, in row blocks); this module is the callable that binds a call's inputs, decides what runs
and runs it.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from polyfuse.errors import PolyfuseError
from polyfuse.runtime.signature import is_dask_array
from polyfuse.tensor import spec_staging
from polyfuse.tensor.codegen import SUPPORTED_DTYPES, Caret, build_kernel, check_target
from polyfuse.tensor.spec_analysis import _Analysis
from polyfuse.tensor.spec_gen import _Generator
from polyfuse.tensor.spec_parse import _Parser
from polyfuse.tensor.spec_staging import (
    BlasStep,
    SpecDecision,
    StagedPlan,
    _block_rows,
    _mib,
    _try_staged_plan,
)
from polyfuse.tensor.spec_syntax import SpecError
from polyfuse.tensor.workspace import Workspace

if TYPE_CHECKING:
    from polyfuse.explain import Explanation
    from polyfuse.kernel import Kernel

__all__ = ["Spec", "SpecError", "spec"]


class Spec:
    """A compiled spec: call it with the inputs (keywords, or positionally in :attr:`inputs`
    order, arrays then scalars) to get the outputs.

    Returns the output array when the spec has one output, else a tuple in :attr:`outputs` order.
    Passing an array under an output's name writes the result into it.
    """

    def __init__(self, text: str, outputs: list[str] | str | None = None, *, dtype: Any = None,
                 target: str = "cpu", fuse: str = "smart", blas: bool = True,
                 fastmath: bool = False) -> None:
        check_target(target)
        if not isinstance(text, str):
            raise SpecError(f"spec text must be a string, got {type(text).__name__}")
        self.text = text
        self.dtype = None if dtype is None else np.dtype(dtype)
        if self.dtype is not None and self.dtype not in SUPPORTED_DTYPES - {np.dtype("int32"), np.dtype("int64")}:
            raise SpecError(f"dtype={self.dtype}; specs compute in float32 or float64")
        self.target, self.fuse, self.fastmath, self.blas = target, fuse, fastmath, blas
        self.statements = _Parser(text).program()
        self._analysis = _Analysis(text, self.statements, outputs)
        a = self._analysis
        self.inputs: tuple[str, ...] = tuple(a.inputs) + tuple(a.scalars)
        self.arrays: tuple[str, ...] = tuple(a.inputs)
        self.scalars: tuple[str, ...] = tuple(a.scalars)
        self.outputs: tuple[str, ...] = tuple(a.outputs)
        self._checks = [(compile(c.lhs, "<spec>", "eval"), compile(c.rhs, "<spec>", "eval"),
                         [compile(e, "<spec>", "eval") for e in c.involved], c) for c in a.checks]
        self._nonempty = [(compile(e, "<spec>", "eval"), what, pos, w) for e, what, pos, w in a.nonempty]
        self._shapes = {name: [compile(e, "<spec>", "eval") for e in a.shapes[name]] for name in self.outputs}
        self._kernels: dict[np.dtype, tuple[Kernel, str]] = {}
        self._validated: dict[tuple, dict[str, tuple[int, ...]]] = {}
        compile_loops = functools.partial(_loop_kernel, target=target, fuse=fuse, fastmath=fastmath)
        self._staged = _try_staged_plan(a, text, compile_loops) if blas else None
        self._target_shapes = {name: [compile(e, "<spec>", "eval") for e in exprs]
                               for name, exprs in a.shapes.items()}
        self._decisions: dict[tuple, SpecDecision] = {}
        self._workspace = Workspace()  # the staged steps' intermediates, kept between calls
        self.interleave = False  # polyfuse.interleave for the kernel (on for staged loop steps)

    def __repr__(self) -> str:
        return f"<polyfuse.Spec inputs={list(self.inputs)} outputs={list(self.outputs)}>"

    # ---- calling ---------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if any(map(is_dask_array, (*args, *kwargs.values()))):
            from polyfuse.dask.spec import call as dask_call

            return dask_call(self, args, kwargs)  # a graph of per-block spec calls (docs/dask.md)
        try:
            dtype, arrays, scalars, results = self._prepare(args, kwargs)
            decision = self._decide(arrays, dtype)
            if decision.runs == "staged":
                self._run_staged(decision, arrays, scalars, results, dtype)
            else:
                self.kernel(dtype)(*arrays.values(), *scalars.values(), *results.values())
        except PolyfuseError as exc:
            raise exc.with_traceback(None) from None
        out = [results[n] if self._rank(n) else results[n][0] for n in self.outputs]
        return out[0] if len(out) == 1 else tuple(out)

    def workspace_bytes(self) -> int:
        """Bytes of intermediate buffers this spec keeps between calls (see docs/einsum.md)."""
        return self._workspace.nbytes()

    def clear_workspace(self) -> None:
        """Drop the kept intermediate buffers; the next call allocates them again."""
        self._workspace.clear()

    def _rank(self, name: str) -> int:
        return len(self._analysis.shapes[name])

    def _bind(self, args: tuple, kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        if len(args) > len(self.inputs):
            raise SpecError(f"spec takes {len(self.inputs)} inputs ({', '.join(self.inputs)}), got {len(args)}")
        values = dict(zip(self.inputs, args))
        given_out: dict[str, Any] = {}
        for name, value in kwargs.items():
            if name in self.outputs:
                given_out[name] = value
            elif name not in self.inputs:
                raise SpecError(f"unexpected input {name!r}; the spec's inputs are {', '.join(self.inputs)} "
                                f"(outputs: {', '.join(self.outputs)})")
            elif name in values:
                raise SpecError(f"input {name!r} given twice")
            else:
                values[name] = value
        missing = [n for n in self.inputs if n not in values]
        if missing:
            raise SpecError(f"missing input{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
        return values, given_out

    def _dtype_of(self, arrays: dict[str, np.ndarray]) -> np.dtype:
        if self.dtype is not None:
            return self.dtype
        dt = np.result_type(np.float32, *[a.dtype for a in arrays.values()])
        return dt if dt in SUPPORTED_DTYPES else np.dtype(np.float64)

    def _prepare(self, args: tuple, kwargs: dict[str, Any]) -> tuple[
            np.dtype, dict[str, np.ndarray], dict[str, float], dict[str, np.ndarray]]:
        values, given_out = self._bind(args, kwargs)
        arrays: dict[str, np.ndarray] = {}
        for name in self.arrays:
            value = values[name]
            arr = value if type(value) is np.ndarray else np.asarray(value)
            use = self._analysis.first_use[name]
            if arr.ndim != self._analysis.ranks[name]:
                raise SpecError(f"input {name!r} has {arr.ndim} dimensions (shape {arr.shape}) but the spec "
                                f"indexes it with {self._analysis.ranks[name]}", self.text, use.pos,
                                use.end - use.pos)
            if arr.dtype.kind not in "iuf":  # numbers, not complex (np.issubdtype costs ~0.5 µs)
                raise SpecError(f"input {name!r} has dtype {arr.dtype}; specs take real numbers")
            arrays[name] = arr
        dtype = self._dtype_of(arrays)
        for name, arr in arrays.items():
            if arr.dtype != dtype:
                arrays[name] = arr.astype(dtype)
        scalars: dict[str, float] = {}
        for name in self.scalars:
            value = values[name]
            if isinstance(value, np.ndarray) and value.ndim == 0:
                value = value[()]
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise SpecError(f"scalar input {name!r} must be a real number, got {type(value).__name__}")
            scalars[name] = float(value)
        shapes = self._validate(arrays)
        results: dict[str, np.ndarray] = {}
        for name in self.outputs:
            shape = shapes[name] or (1,)
            out = given_out.get(name)
            if out is None:
                out = np.empty(shape, dtype=dtype)
            elif not isinstance(out, np.ndarray) or out.shape != shapes[name] or out.dtype != dtype:
                raise SpecError(f"output {name!r}: expected an array of shape {shapes[name]} and dtype {dtype}")
            elif not shapes[name]:
                out = out.reshape(1)
            results[name] = out
        return dtype, arrays, scalars, results

    # ---- staged execution (BLAS steps and fused loop steps, in row blocks) ----------------------
    def decide(self, *args: Any, **kwargs: Any) -> SpecDecision:
        """What a call with these inputs runs: the fused kernel, or BLAS and loop steps (and the
        row blocks), and why."""
        try:
            dtype, arrays, _, _ = self._prepare(args, kwargs)
            return self._decide(arrays, dtype)
        except PolyfuseError as exc:
            raise exc.with_traceback(None) from None

    def _decide(self, arrays: dict[str, np.ndarray], dtype: np.dtype) -> SpecDecision:
        key = (dtype.num, *(a.shape for a in arrays.values()))
        decision = self._decisions.get(key)
        if decision is None:
            if len(self._decisions) > 256:
                self._decisions.clear()
            decision = self._decisions[key] = self._choose(arrays, dtype)
        return decision

    def _choose(self, arrays: dict[str, np.ndarray], dtype: np.dtype) -> SpecDecision:
        plan = self._staged
        if plan is None:
            return SpecDecision("fused kernel", "no GEMM-shaped sum (or blas=False)")
        shapes = self._all_shapes(plan, arrays)
        for step in (s for s in plan.steps if isinstance(s, BlasStep)):
            extent = {v: shapes[t][axis] for v, (t, axis) in step.indices.items()}
            k = math.prod(extent[v] for v in step.summed)
            work = math.prod(extent.values())
            if k < spec_staging.BLAS_MIN_K or work < spec_staging.BLAS_MIN_WORK:
                return SpecDecision("fused kernel", f"{step.target} = einsum {step.subscripts!r}: contracted "
                                    f"extent {k} < BLAS_MIN_K={spec_staging.BLAS_MIN_K} or work {work} < "
                                    f"BLAS_MIN_WORK={spec_staging.BLAS_MIN_WORK}; the fused loops are as fast")
        rows, block, why = self._blocking(plan, shapes, dtype.itemsize)
        reason = "; ".join(step.describe() for step in plan.steps)
        buffers = tuple((name, (block, *shapes[name][1:]) if block else shapes[name])
                        for name in plan.produced if name not in self.outputs)
        return SpecDecision("staged", reason, rows, block, buffers, why)

    def _all_shapes(self, plan: StagedPlan, arrays: dict[str, np.ndarray]) -> dict[str, tuple[int, ...]]:
        """The shape of every tensor of the call: inputs, targets and BLAS temporaries."""
        shapes = {name: a.shape for name, a in arrays.items()}
        for name, exprs in self._target_shapes.items():
            shapes[name] = tuple(int(eval(e, {"min": min}, arrays)) for e in exprs)  # noqa: S307
        for step in plan.steps:
            if isinstance(step, BlasStep) and step.target in plan.temps:
                shapes[step.target] = tuple(shapes[step.indices[v][0]][step.indices[v][1]] for v in step.free) or (1,)
        return shapes

    def _blocking(self, plan: StagedPlan, shapes: dict[str, tuple[int, ...]],
                  itemsize: int) -> tuple[int, int, str]:
        """(rows, rows per block, why) for row blocking; rows per block 0: one block (rows 0: the
        spec cannot be row-blocked).

        Blocks are for memory: unblocked, the intermediates (BLAS temporaries and targets the
        caller does not get) take ``T`` bytes; when ``T`` is more than ``BLOCK_BUDGET`` times the
        bytes of the call's own inputs and outputs (attention's N x N scores against its N x d
        operands, the MLP's hidden layer), the rows are cut into as few blocks as keep a block's
        intermediates within that budget, each a multiple of ``BLOCK_ALIGN`` rows and at least
        ``MIN_BLOCK_ROWS``; otherwise, and when ``T`` is at most ``BLOCK_MIN_BYTES``, one block
        runs.  The numbers behind it are at :data:`polyfuse.tensor.spec_staging.BLOCK_BUDGET`."""
        sliced = plan.row_inputs
        if sliced is None:
            return 0, 0, "not row-blockable"
        rows = shapes[self.statements[0].target][0]
        if any(shapes[n][0] != rows for n in [*plan.produced, *sliced]):
            return 0, 0, "not row-blockable"
        temps = itemsize * sum(math.prod(shapes[n]) for n in plan.produced if n not in self.outputs)
        own = itemsize * sum(math.prod(shapes[n]) for n in [*self.arrays, *self.outputs])
        budget = spec_staging.BLOCK_BUDGET * own
        sizes = f"intermediates {_mib(temps)}, inputs and outputs {_mib(own)}"
        if temps <= spec_staging.BLOCK_MIN_BYTES:
            return rows, 0, f"{sizes}: intermediates within BLOCK_MIN_BYTES={_mib(spec_staging.BLOCK_MIN_BYTES)}"
        if temps <= budget:
            return rows, 0, f"{sizes}: within BLOCK_BUDGET={spec_staging.BLOCK_BUDGET} x"
        block = _block_rows(rows, int(budget * rows // temps))
        if block >= rows:
            return rows, 0, f"{sizes}: one block of at least MIN_BLOCK_ROWS={spec_staging.MIN_BLOCK_ROWS} rows"
        return rows, block, f"{sizes}: over BLOCK_BUDGET={spec_staging.BLOCK_BUDGET} x, {-(-rows // block)} blocks"

    def _run_staged(self, decision: SpecDecision, arrays: dict[str, np.ndarray], scalars: dict[str, float],
                    results: dict[str, np.ndarray], dtype: np.dtype) -> None:
        """Run the BLAS and loop steps, the intermediates in buffers from the spec's workspace."""
        plan = self._staged
        assert plan is not None, "a staged decision comes from the staged plan"
        layout = tuple((shape, dtype) for _, shape in decision.buffers)
        with self._workspace.take(layout) as taken:
            buffers = dict(zip((name for name, _ in decision.buffers), taken))
            env: dict[str, np.ndarray] = {**arrays, **buffers}
            for name, out in results.items():
                env[name] = out if self._rank(name) else out.reshape(())
            if decision.block_rows:
                self._run_blocks(plan, decision, arrays, scalars, results, buffers, env)
            else:
                for step in plan.steps:
                    step.run(env, scalars)

    @staticmethod
    def _run_blocks(plan: StagedPlan, decision: SpecDecision, arrays: dict[str, np.ndarray],
                    scalars: dict[str, float], results: dict[str, np.ndarray], buffers: dict[str, np.ndarray],
                    env: dict[str, np.ndarray]) -> None:
        """The steps once per block of rows: row inputs and results sliced, buffers cut to the block."""
        row_inputs = plan.row_inputs
        assert row_inputs is not None, "row blocks only where _row_inputs allowed them"
        block = decision.block_rows
        for start in range(0, decision.rows, block):
            stop = min(start + block, decision.rows)
            rows = slice(start, stop)
            for name in row_inputs:
                env[name] = arrays[name][rows]
            for name in results:
                env[name] = results[name][rows]
            for name, buf in buffers.items():
                env[name] = buf[:stop - start]
            for step in plan.steps:
                step.run(env, scalars)

    def run_named(self, env: dict[str, np.ndarray], scalars: dict[str, float]) -> None:
        """Run the fused kernel on arrays taken by name from ``env``: the inputs, and the outputs
        it writes (shapes checked; a rank-0 output may be given as shape ``()``).  ``scalars`` holds
        the scalar inputs by name.  This is how a staged spec runs one of its loop steps on row
        blocks and workspace buffers; a plain call goes through ``__call__``."""
        arrays = {n: env[n] for n in self.arrays}
        self._validate(arrays)
        outs = [env[n] if env[n].ndim else env[n].reshape(1) for n in self.outputs]
        self.kernel(outs[0].dtype)(*arrays.values(), *(scalars[n] for n in self.scalars), *outs)

    def _validate(self, arrays: dict[str, np.ndarray]) -> dict[str, tuple[int, ...]]:
        key = tuple([a.shape for a in arrays.values()])
        known = self._validated.get(key)
        if known is not None:
            return known
        ns = dict(arrays)
        env: dict[str, Any] = {"min": min}
        for lhs, rhs, involved, check in self._checks:
            if any(int(eval(e, env, ns)) <= 0 for e in involved):  # noqa: S307
                continue  # an empty range: the access never happens
            left, right = int(eval(lhs, env, ns)), int(eval(rhs, env, ns))  # noqa: S307
            ok = left == right if check.op == "==" else left < right
            if not ok:
                raise SpecError(check.message.format(lhs=left, rhs=right), self.text, check.pos, check.width)
        for stmt in self.statements:
            for name, extent in stmt.extents.items():
                value = int(eval(extent, {"min": min}, ns))  # noqa: S307
                if value < 0:
                    pos = next((p for n, p in stmt.indices if n == name), stmt.pos)
                    raise SpecError(f"index {name!r} has a negative range {value} ({extent}) for these shapes",
                                    self.text, pos, len(name))
        for expr, what, pos, width in self._nonempty:
            if int(eval(expr, {"min": min}, ns)) < 1:  # noqa: S307
                raise SpecError(f"{what} over an empty range", self.text, pos, width)
        shapes = {n: tuple(int(eval(e, {"min": min}, ns)) for e in exprs)  # noqa: S307
                  for n, exprs in self._shapes.items()}
        if len(self._validated) > 256:
            self._validated.clear()
        self._validated[key] = shapes
        return shapes

    # ---- compilation and introspection -----------------------------------------------------
    def source(self, dtype: Any = np.float64) -> str:
        """The generated kernel source (for float64 unless ``dtype`` says otherwise)."""
        return _Generator(self._analysis, np.dtype(self.dtype or dtype)).generate()

    def kernel(self, dtype: Any = np.float64) -> Kernel:
        dtype = np.dtype(self.dtype or dtype)
        built = self._kernels.get(dtype)
        if built is None:
            src = self.source(dtype)
            built = (build_kernel(src, "spec_kernel", "spec", target=self.target, fuse=self.fuse,
                                  fastmath=self.fastmath, interleave=self.interleave), src)
            self._kernels[dtype] = built
        return built[0]

    def explain(self, *args: Any, **kwargs: Any) -> Explanation:
        """``explain()`` of the generated kernel for these inputs, with the spec's index ranges and
        the generated source in front."""
        from polyfuse.explain import Explanation

        try:
            dtype, arrays, scalars, results = self._prepare(args, kwargs)
            decision = self._decide(arrays, dtype)
            explanation = self.kernel(dtype).explain(*arrays.values(), *scalars.values(), *results.values())
        except PolyfuseError as exc:
            raise exc.with_traceback(None) from None
        ranges = {f"{s.target} (line {Caret(self.text, s.pos).line_col()[0]})":
                  ", ".join(f"{v} < {e}" for v, e in s.extents.items()) for s in self.statements}
        head = {"inputs": ", ".join(self.inputs), "outputs": ", ".join(self.outputs), **ranges,
                "runs": decision.runs, "why": decision.reason}
        if decision.runs == "staged":
            assert self._staged is not None, "a staged decision comes from the staged plan"
            for n, step in enumerate(self._staged.steps):
                head[f"step {n}"] = step.describe()
            blocks = (f"{decision.block_rows} of {decision.rows} rows per block" if decision.block_rows
                      else "none (one block)")
            head["row blocks"] = f"{blocks}; {decision.blocking}"
            kept = sum(math.prod(shape) for _, shape in decision.buffers) * dtype.itemsize
            head["workspace"] = f"{_mib(kept)} of intermediates, kept between calls"
        return Explanation((("spec", head), ("generated source", self.source(dtype))) + explanation.sections)


def _loop_kernel(text: str, outputs: list[str], *, target: str, fuse: str, fastmath: bool) -> Spec:
    """A loop step of a staged spec: its statements as a spec of their own, one fused kernel
    (spec_staging's :data:`~polyfuse.tensor.spec_staging.CompileLoops`)."""
    fused = Spec(text, outputs, target=target, fuse=fuse, blas=False, fastmath=fastmath)
    # its rows come straight from a BLAS step (in cache): interleaving rows overlaps the add chains
    # of row-wise sums (the attention softmax step 1.38x on 128 rows; docs/performance.md)
    fused.interleave = True
    return fused


def spec(text: str, outputs: list[str] | str | None = None, *, dtype: Any = None, target: str = "cpu",
         fuse: str = "smart", blas: bool = True, fastmath: bool = False) -> Spec:
    """Compile a multi-statement tensor spec (see docs/einsum.md).

    ``outputs``: the targets to return (default: every target no later statement reads).
    ``dtype``: float32 or float64 (default: numpy's promotion of the array inputs with float32).
    ``blas``: run GEMM-shaped sums on BLAS, their epilogues in fused loops (``False``: always one
    fused kernel).  ``fastmath``: let LLVM reassociate (vectorized sums, max, exp; results differ
    in the last bits, as numpy's pairwise sums do).
    """
    try:
        return Spec(text, outputs, dtype=dtype, target=target, fuse=fuse, blas=blas, fastmath=fastmath)
    except PolyfuseError as exc:
        raise exc.with_traceback(None) from None
