"""A compiled variant of a kernel for one signature, and the per-call work around it.

Per call: bind parameter values, prove every access in bounds (cached per sizes), refuse
overlapping arrays that are written, allocate kernel-local arrays, run the backend.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyfuse import ir
from polyfuse.bounds import BoundsChecker
from polyfuse.compiler import Stages
from polyfuse.errors import ArgumentError
from polyfuse.scop import Argument, ArrayInfo, shape_param
from polyfuse.signature import device_span

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


@dataclass
class CompiledVariant:
    """Everything compiled for one signature: the backend kernel and the per-call checks.

    ``stages`` holds the pipeline's records for explain(); after a disk-cache hit it is None and
    ``explanation`` holds the rendered sections that were stored with the object code.
    """

    arguments: tuple[Argument, ...]
    params: tuple[str, ...]
    local_arrays: tuple[ArrayInfo, ...]
    backend: Any  # PythonKernel | LLVMKernel
    bounds: BoundsChecker
    written: frozenset[str]
    stages: Stages | None = None
    explanation: Any = None  # Explanation, filled in lazily or from the disk cache
    from_cache: bool = False
    declared_locals: tuple[ArrayInfo, ...] | None = None  # local arrays as written, before contraction

    @property
    def program(self):
        """The loop AST (None after a disk-cache hit: use explanation instead)."""
        return self.stages["loop ast"] if self.stages is not None else None

    @property
    def scop(self):
        """The final Scop (None after a disk-cache hit)."""
        return self.stages["final scop"] if self.stages is not None else None

    def run(self, values: dict[str, Any]) -> None:
        env = self.bind(values)
        self.bounds.check({p: env[p] for p in self.params})
        self.check_overlap(values)
        for info in self.local_arrays:
            env[info.name] = allocate(info, env)
        self.backend(env)

    def bind(self, values: dict[str, Any]) -> dict[str, Any]:
        env: dict[str, Any] = {}
        for arg in self.arguments:
            value = values[arg.name]
            if arg.kind == "int":
                value = int(value)
                if not INT64_MIN <= value <= INT64_MAX:
                    raise ArgumentError(f"argument {arg.name!r}={value} does not fit in int64")
            elif arg.kind == "float":
                value = float(value)
            else:
                for axis, extent in enumerate(value.shape):
                    env[shape_param(arg.name, axis)] = int(extent)
            env[arg.name] = value
        return env

    def check_overlap(self, values: dict[str, Any]) -> None:
        arrays = [a.name for a in self.arguments if a.kind == "array"]
        for i, first in enumerate(arrays):
            for second in arrays[i + 1:]:
                if first not in self.written and second not in self.written:
                    continue
                if _overlap(values[first], values[second]):
                    raise ArgumentError(
                        f"arguments {first!r} and {second!r} overlap in memory and "
                        f"{(first if first in self.written else second)!r} is written by the kernel; "
                        "pass separate arrays (e.g. a .copy())"
                    )


def _overlap(a, b) -> bool:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return np.may_share_memory(a, b) and np.shares_memory(a, b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return False  # host and device memory never overlap
    (low_a, high_a), (low_b, high_b) = device_span(a), device_span(b)
    return low_a < high_b and low_b < high_a  # conservative: byte ranges, not exact elements


def local_shape(info: ArrayInfo, env: dict[str, Any]) -> tuple[int, ...]:
    """The shape a kernel-local array has for this call."""
    shape = tuple(evaluate_int(e, env) for e in info.shape)
    if any(extent < 0 for extent in shape):
        raise ArgumentError(f"local array {info.name!r} would have negative shape {shape} for these arguments")
    return shape


def allocate(info: ArrayInfo, env: dict[str, Any]) -> np.ndarray:
    """A kernel-local array (np.zeros or np.empty semantics) sized for this call."""
    shape = local_shape(info, env)
    make = np.zeros if info.zero_init or not shape else np.empty
    return make(shape, dtype=info.dtype)


def local_bytes(arrays, env: dict[str, Any]) -> dict[str, int]:
    """Bytes each kernel-local array takes for this call (scalars kept in registers count 0)."""
    sizes = {}
    for info in arrays:
        if info.kind != "local" or info.is_scalar:
            continue
        sizes[info.name] = int(np.prod(local_shape(info, env), dtype=np.int64)) * np.dtype(info.dtype).itemsize
    return sizes


def evaluate_int(expr: ir.Expr, env: dict[str, Any]) -> int:
    """Value of an integer IR expression (array extents, parameters) with Python semantics."""
    if isinstance(expr, ir.Const):
        return int(expr.value)
    if isinstance(expr, ir.Var):
        return int(env[expr.name])
    if isinstance(expr, ir.Unary) and expr.op == "neg":
        return -evaluate_int(expr.operand, env)
    if isinstance(expr, ir.BinOp):
        a, b = evaluate_int(expr.lhs, env), evaluate_int(expr.rhs, env)
        return _INT_OPS[expr.op](a, b)
    if isinstance(expr, ir.Select):  # loop bounds that carry a guard (polyfuse.astgen)
        chosen = expr.then if evaluate_int(expr.cond, env) else expr.otherwise
        return evaluate_int(chosen, env)
    if isinstance(expr, ir.Compare):
        return int(_COMPARISONS[expr.op](evaluate_int(expr.lhs, env), evaluate_int(expr.rhs, env)))
    if isinstance(expr, ir.BoolOp):
        values = (evaluate_int(v, env) for v in expr.values)
        return int(all(values) if expr.op == "and" else any(values))
    raise ArgumentError(f"cannot evaluate {ir.to_python(expr)} at call time")


_COMPARISONS: dict[str, Callable[[int, int], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


_INT_OPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "min": min, "max": max,
}
