"""A compiled variant of a kernel for one signature, and the per-call work around it.

Per call: bind parameter values, prove every access in bounds (cached per sizes), refuse
overlapping arrays that are written, allocate kernel-local arrays, run the backend.

A call whose arguments are plain numpy arrays, ints and floats takes a shorter path once a call
at the same sizes passed every check (``CallPlan``): what depends only on the arguments' dtypes,
shapes, strides and integer values (the bounds proof, the parameter values, the local arrays'
shapes, the backend's size arguments) is looked up, and only what depends on the arrays'
addresses (the overlap check, the pointers passed to the machine code) is done again.
"""

from __future__ import annotations

import ast
import ctypes
import platform
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyfuse.analysis.bounds import BoundsChecker
from polyfuse.errors import ArgumentError
from polyfuse.model import ir
from polyfuse.model.names import user_name
from polyfuse.model.scop import (
    DATA_SIZES,
    SIZE_NAMESPACE,
    Argument,
    ArrayInfo,
    ElementCount,
    Returned,
    ReturnValue,
    SizeProduct,
    isl_name,
    shape_param,
)
from polyfuse.model.stages import Stages
from polyfuse.options import native_entries
from polyfuse.runtime.signature import device_span

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class RunsInPython(Exception):
    """A call whose sizes fall outside what the variant was compiled assuming, where NumPy runs
    the kernel's statements all the same (two slices NumPy requires equal, both empty by different
    amounts): the kernel the user called runs its undecorated function instead (``Kernel``)."""


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
    returns: ReturnValue | None = None  # what a call returns (frontend.returns); None: nothing
    sizes: tuple[SizeProduct, ...] = ()  # parameters computed from the arguments' (reshapes)
    counts: tuple[ElementCount, ...] = ()  # reshapes' element counts, checked before the bounds
    _pairs: tuple[tuple[str, str], ...] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def program(self):
        """The loop AST (None after a disk-cache hit: use explanation instead)."""
        return self.stages["loop ast"] if self.stages is not None else None

    @property
    def scop(self):
        """The final Scop (None after a disk-cache hit)."""
        return self.stages["final scop"] if self.stages is not None else None

    def run(self, values: dict[str, Any]) -> Any:
        env = self.bind(values)
        check_counts(self.counts, env)
        if not self.bounds.check({p: env[p] for p in self.params}):
            raise RunsInPython()
        self.check_overlap(values)
        for info in self.local_arrays:
            env[info.name] = allocate(info, env, self.bounds.user_names)
        self.backend(env)
        if self.returns is None:
            return None
        return returned(self.returns, {**env, **values})  # an argument returned is the caller's own object

    def bind(self, values: dict[str, Any]) -> dict[str, Any]:
        env: dict[str, Any] = {}
        for arg in self.arguments:
            value = values[arg.name]
            if arg.kind in ("int", "bool"):
                value = int(value)
                if not INT64_MIN <= value <= INT64_MAX:
                    raise ArgumentError(f"argument {arg.name!r}={value} does not fit in int64")
            elif arg.kind == "float":
                value = float(value)
            elif arg.kind == "complex":
                value = complex(value)
            else:
                if arg.name in self.written and isinstance(value, np.ndarray):
                    _check_writable(arg.name, value)
                for axis, extent in enumerate(value.shape):
                    env[shape_param(arg.name, axis)] = int(extent)
            env[arg.name] = value
            if arg.kind == "int":
                env[isl_name(arg.name)] = value  # the isl parameter of an int named as an isl word (mod_)
        for size in self.sizes:  # each from parameters bound above (or earlier sizes)
            env[size.name] = size_value(size, env)
        return env

    def check_overlap(self, values: dict[str, Any]) -> None:
        for first, second in self.overlap_pairs:
            if _overlap(values[first], values[second], first, second):
                raise overlap_error(first, second, self.written)

    @property
    def overlap_pairs(self) -> tuple[tuple[str, str], ...]:
        """The pairs of array arguments that must not overlap: those where one of them is written."""
        if self._pairs is None:
            arrays = [a.name for a in self.arguments if a.kind == "array"]
            self._pairs = tuple((first, second) for i, first in enumerate(arrays) for second in arrays[i + 1:]
                                if first in self.written or second in self.written)
        return self._pairs

    def sizes_read_floats(self) -> bool:
        """Whether a size the call computes reads a float argument (``int(xn)``): a plan's key
        holds a float's type only (``call_key``), so such a variant takes the full path on every
        call, which computes the size again."""
        floats = {a.name for a in self.arguments if a.kind in ("float", "complex")} | set(DATA_SIZES)
        return any(size.source is not None and floats & _names_in(size.source) for size in self.sizes)

    def plan(self, values: dict[str, Any]) -> CallPlan | None:
        """What later calls at these arguments' sizes can reuse (after ``run(values)`` succeeded);
        None for a backend without a ``prepare`` step."""
        prepare = getattr(self.backend, "prepare", None)
        if prepare is None or self.sizes_read_floats():
            return None
        env = self.bind(values)
        launch = prepare(env, tuple(a.name for a in self.arguments))
        return None if launch is None else CallPlan(self, values, env, launch)


def _names_in(source: str) -> set[str]:
    return {node.id for node in ast.walk(ast.parse(source, mode="eval")) if isinstance(node, ast.Name)}


def _check_writable(name: str, array: np.ndarray) -> None:
    """A written array must be writeable and give every element its own memory (a zero stride
    over a longer axis, as ``as_strided`` makes, would let the kernel's writes overwrite each other)."""
    if not array.flags.writeable:
        raise ArgumentError(f"argument {name!r} is read-only and the kernel writes it; pass a writeable array "
                            "(e.g. a .copy())")
    for axis, (extent, stride) in enumerate(zip(array.shape, array.strides)):
        if stride == 0 and extent > 1 and array.size:  # numpy gives empty arrays zero strides too
            raise ArgumentError(f"argument {name!r} has stride 0 on axis {axis}, so its elements share memory, "
                                "and the kernel writes it; pass an array with its own memory (e.g. a .copy())")
    if array.size and not nested_layout(array):
        raise ArgumentError(f"argument {name!r} has strides {array.strides} for shape {array.shape}, under which "
                            "its elements may share memory (an as_strided view), and the kernel writes it; pass an "
                            "array with its own memory (e.g. a .copy())")


def nested_layout(array: np.ndarray) -> bool:
    """Does each element of ``array`` have its own memory, by the test of nested spans: its axes
    of more than one element, in order of their strides' sizes, each step at least as long as
    all the smaller axes span together plus one element?  Every view that slicing, transposing or
    reshaping makes of an array with its own memory passes; an ``as_strided`` view whose
    elements meet (``strides=(8, 8)`` over float64: ``X[i, j]`` and ``X[i + 1, j - 1]`` are one
    element) does not, and a kernel's writes to it would overwrite each other in the order its
    schedule runs them (NumPy's ``X += Y`` buffers its operands there)."""
    span = array.itemsize
    for stride, extent in sorted((abs(s), e) for e, s in zip(array.shape, array.strides) if e > 1):
        if stride < span:
            return False
        span += stride * (extent - 1)
    return True


def overlap_error(first: str, second: str, written: frozenset[str]) -> ArgumentError:
    return ArgumentError(
        f"arguments {first!r} and {second!r} overlap in memory and "
        f"{(first if first in written else second)!r} is written by the kernel; "
        "pass separate arrays (e.g. a .copy())"
    )


#: the candidate solutions NumPy's exact overlap test may try before giving up (``max_work``):
#: the test is NP-complete, and two as_strided views of one buffer (NumPy's own example, 3-d int8
#: views of 192 MB) kept a kernel's call in it for more than a minute; 10**5 takes ~2 ms of CPU,
#: and the views slicing makes are decided in a few candidates
OVERLAP_WORK = 100_000


def shares_memory(a: np.ndarray, b: np.ndarray, first: str, second: str) -> bool:
    """``np.shares_memory`` within ``OVERLAP_WORK``; where it cannot tell, an ArgumentError (the
    kernel refuses the pair, as it refuses arrays that overlap)."""
    try:
        return bool(np.shares_memory(a, b, max_work=OVERLAP_WORK))  # type: ignore[arg-type]  # (numpy 2.4 types max_work as -1 or 0 only)
    except np.exceptions.TooHardError:
        raise ArgumentError(f"arguments {first!r} and {second!r} are views of one buffer whose overlap NumPy's "
                            f"search could not decide in {OVERLAP_WORK} steps, and the kernel writes one of them; "
                            "pass separate arrays (e.g. a .copy())") from None


def _overlap(a, b, first: str, second: str) -> bool:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return np.may_share_memory(a, b) and shares_memory(a, b, first, second)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return False  # host and device memory never overlap
    (low_a, high_a), (low_b, high_b) = device_span(a), device_span(b)
    return low_a < high_b and low_b < high_a  # conservative: byte ranges, not exact elements


def returned(spec: ReturnValue, values: dict[str, Any], views: dict[int, ViewGeometry] | None = None) -> Any:
    """The value described by ``spec`` (frontend.returns) after a run that left ``values``;
    ``views``: each returned view's geometry by ``id`` of its spec (which its holder keeps
    alive), filled on first use and reused (a CallPlan's calls share sizes, so they share the
    geometry: no size text is evaluated again)."""
    if isinstance(spec, tuple):
        return tuple(returned(item, values, views) for item in spec)
    assert isinstance(spec, Returned)
    value = values[spec.name]
    if spec.how == "view":
        if not isinstance(value, np.ndarray):
            raise ArgumentError(f"the kernel returns a view of {spec.name!r}, which is a device array here; "
                                "views are made of numpy arrays only (return a copy, or pass a numpy array)")
        if views is None:
            return view_of(value, view_geometry(value, spec, values))
        geometry = views.get(id(spec))
        if geometry is None:
            geometry = views[id(spec)] = view_geometry(value, spec, values)
        return view_of(value, geometry)
    if spec.how == "prefix":
        return _prefix(value, spec, values)
    if spec.how != "scalar":
        return value
    element = value[()]  # a numpy scalar of the result's dtype: a strong value's exact type
    kind = int(values[spec.strong_flag][()]) if spec.strong_flag else 0
    if kind >= 5:  # a NumPy scalar of another dtype than the result's, which holds its value exactly
        kept = np.dtype(spec.strong_types[kind - 5])
        # (a real one of a complex result: its real part, without NumPy's ComplexWarning for the 0j dropped)
        return kept.type(element.real if kept.kind != "c" else element)
    if kind:  # a Python number on this run's path: 1 int, 2 float, 3 bool, 4 complex (frontend.lift)
        return _PYTHON_SCALARS[("int", "float", "pybool", "complex")[kind - 1]](element)
    return _PYTHON_SCALARS[spec.pytype](element) if spec.pytype in _PYTHON_SCALARS else element


def _prefix(value: Any, spec: Returned, values: dict[str, Any]) -> Any:
    """``value[:k]``, Python's slice; a copy of it where Python's value is a new array (``copied``:
    ``buf[:k].copy()``, a selection, a list's), of ``empty_dtype`` where that is set and it is empty."""
    k = int(values[spec.count][()])
    part = value[:k]
    if spec.empty_dtype and not len(part):
        return np.empty(part.shape, dtype=spec.empty_dtype)
    return part.copy() if spec.copied else part


def returned_specs(spec: ReturnValue):
    """Every ``Returned`` in ``spec``, depth first."""
    if isinstance(spec, tuple):
        for item in spec:
            yield from returned_specs(item)
    else:
        yield spec


def returned_arguments(spec: ReturnValue) -> tuple[str, ...]:
    """The arguments ``spec`` returns, themselves or as views, each once."""
    return tuple(dict.fromkeys(s.name for s in returned_specs(spec) if s.how in ("arg", "view")))


_PYTHON_SCALARS: dict[str, Callable[[Any], Any]] = {"float": float, "int": int, "complex": complex, "pybool": bool}
_SIZE_TEXTS: dict[str, Any] = {}  # compiled size texts of returned views


def size_of_text(text: str, values: dict[str, Any]) -> int:
    """A size text (``A.shape[0] - 1``, ``max(0, n - k)``) for these arguments."""
    code = _SIZE_TEXTS.get(text)
    if code is None:
        code = _SIZE_TEXTS[text] = compile(text, "<polyfuse view size>", "eval")
    return int(eval(code, {"__builtins__": {}, "min": min, "max": max}, values))


@dataclass(frozen=True)
class ViewGeometry:
    """A returned view of an argument: its shape, strides, the index of its first element in
    the argument and that element's byte offset from the argument's data pointer (what the
    sizes alone decide)."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    start: tuple[int, ...]
    offset: int
    axes: tuple[int, ...] | None = None  # the view is ``base.transpose(axes)`` (a permutation of all of it)


def view_geometry(base: np.ndarray, spec: Returned, values: dict[str, Any]) -> ViewGeometry:
    """Where the view ``spec`` describes lies in ``base``: NumPy's strides, its origin."""
    shape = tuple(max(0, size_of_text(t, values)) for t in spec.shape)
    strides = tuple(sum(step * stride for step, stride in zip(steps, base.strides)) for steps in spec.steps)
    start = () if 0 in shape else tuple(size_of_text(t, values) for t in spec.start)
    offset = sum(k * stride for k, stride in zip(start, base.strides))
    return ViewGeometry(shape, strides, start, offset, _permutation(base, spec.steps, shape, offset))


def _permutation(base: np.ndarray, steps: tuple[tuple[int, ...], ...], shape: tuple[int, ...],
                 offset: int) -> tuple[int, ...] | None:
    """``axes`` where the view is all of ``base`` with its axes permuted (``.T``, ``np.transpose``):
    ``base.transpose(axes)`` makes it in a tenth of the time of a view from the buffer."""
    if offset or len(steps) != base.ndim or any(sorted(row) != [0] * (base.ndim - 1) + [1] for row in steps):
        return None
    axes = tuple(row.index(1) for row in steps)
    if sorted(axes) != list(range(base.ndim)) or tuple(base.shape[a] for a in axes) != shape:
        return None
    return axes


def view_of(base: np.ndarray, where: ViewGeometry) -> np.ndarray:
    """The view at ``where`` of ``base``.  A C-contiguous base is its own buffer, and
    ``np.ndarray(buffer=...)`` (which checks that the view stays inside it) takes a fiftieth of
    ``as_strided``'s time, and its ``.base`` is the argument, as NumPy's own views; other bases
    go through a slice to the origin and ``as_strided``."""
    if where.axes is not None:
        return base.transpose(where.axes)
    if 0 in where.shape:
        return np.lib.stride_tricks.as_strided(base, where.shape, where.strides)
    if base.flags.c_contiguous and base.flags.writeable:  # a read-only one would be wrapped in a memoryview
        return np.ndarray(where.shape, base.dtype, base, where.offset, where.strides)
    origin = base[tuple(slice(k, None) for k in where.start)]
    return np.lib.stride_tricks.as_strided(origin, where.shape, where.strides)


def local_shape(info: ArrayInfo, env: dict[str, Any], names: dict[str, str] | None = None) -> tuple[int, ...]:
    """The shape a kernel-local array has for this call (``names``: the user's names of the
    frontend's, polyfuse.model.names, for the message)."""
    shape = tuple(evaluate_int(e, env) for e in info.shape)
    if any(extent < 0 for extent in shape):
        raise ArgumentError(f"local array {user_name(info.name, names or {})!r} would have negative shape {shape} "
                            "for these arguments (NumPy raises ValueError: negative dimensions are not allowed)")
    return shape


def _extent(expr: ir.Expr, env: dict[str, Any]) -> int:
    """An extent as NumPy has it: a slice's length written ``n - 2`` is 0 where ``n < 2``."""
    return max(0, evaluate_int(expr, env))


def _count(extents: tuple[ir.Expr, ...], env: dict[str, Any]) -> int:
    return int(np.prod([_extent(e, env) for e in extents], dtype=np.int64))


def size_value(size: SizeProduct, env: dict[str, Any]) -> int:
    """A computed size for this call (0 where a divisor is 0: NumPy's ValueError then follows
    from ``check_counts``); a size written as a Python expression of the arguments is its value,
    which must be a non-negative int64 (NumPy raises ValueError for a negative dimension or
    number of samples, so does the ArgumentError; a slice bound NumPy would count from the
    end is refused the same way)."""
    if size.source is not None:
        value = eval(size.source, dict(SIZE_NAMESPACE), env)  # noqa: S307 - frontend.call_sizes' forms only
        if not isinstance(value, int) or not 0 <= value <= INT64_MAX:
            raise ArgumentError(f"the size {size.source.replace('pf_np.', 'np.').replace('pf_math.', 'math.')} "
                                f"is {value} at this call: sizes and slice bounds computed from the arguments must be "
                                "non-negative (NumPy raises ValueError for a negative dimension or number of "
                                "samples, and counts a negative slice bound from the end)")
        return value
    divisor = _count(size.divisors, env)
    return _count(size.factors, env) // divisor if divisor else 0


def check_counts(counts: tuple[ElementCount, ...], env: dict[str, Any]) -> None:
    """NumPy's ValueError for a reshape whose new shape holds a different number of elements."""
    for count in counts:
        size = _count(count.source, env)
        if size != _count(count.shape, env):
            texts = ["newaxis" if d == count.missing else str(_extent(e, env)) for d, e in enumerate(count.shape)]
            raise ValueError(f"cannot reshape array of size {size} into shape "
                             f"({','.join(texts)}{',' if len(texts) == 1 else ''})")


def allocate(info: ArrayInfo, env: dict[str, Any], names: dict[str, str] | None = None) -> np.ndarray:
    """A kernel-local array (np.zeros or np.empty semantics) sized for this call."""
    shape = local_shape(info, env, names)
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
    if isinstance(expr, ir.BinOp) and expr.op in _INT_OPS:
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


# ---- the short path: per-call work reused across calls at the same sizes --------------------------

POOL_BYTES = 1 << 18  # kernel-local arrays are reused across calls up to this many bytes per call ...
POOL_SETS = 4  # ... and this many sets kept per sizes (one per call running at the same time)
# larger sets, up to this many bytes, are kept one per sizes: fresh ones would cost a page fault per
# 4 KiB on every call (malloc maps them anew), more than the kernel's own work on them
POOL_LARGE_BYTES = 1 << 26


def call_key(value: Any) -> Any:
    """What a call's plan depends on in one argument: an array's dtype, shape and strides (they
    fix the variant, its bounds proof and its size arguments), an int's value, a float's type, a
    numpy scalar's type (and value, for integers: np.int64(3) == 3 hashes alike, but its
    arithmetic differs under NEP 50, so the type is in the key); None for anything else
    (numpy bools, subclasses, device arrays: the full path)."""
    kind = type(value)
    if kind is np.ndarray:
        # the dtype, not .num: byte order too; writeable: a read-only output must take the full path
        return (value.dtype, value.shape, value.strides, value.flags.writeable)
    if kind is int:
        return value
    if kind is float:
        return float
    if kind in PLAN_FLOAT_SCALARS:  # ctypes takes them for a double as it takes a float
        return kind
    if kind in PLAN_INT_SCALARS:  # and these for an int64; the value is in range: the key holds it
        return (kind, int(value))
    return None


def _result_maker(info: ArrayInfo, shape: tuple[int, ...]) -> Callable[..., np.ndarray]:
    """How a plan makes a fresh result array: ``np.zeros`` (zeroed results, 0-d), ``np.empty``,
    or, from ``RECYCLE_BYTES`` on, a ``RecycledResults`` (below)."""
    if info.zero_init or not shape:
        return np.zeros
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(info.dtype).itemsize
    return RecycledResults() if RECYCLE_BYTES <= nbytes <= RECYCLE_MAX_BYTES else np.empty


RECYCLE_BYTES = 1 << 16  # from here malloc may map (and unmap) fresh pages for each result
RECYCLE_MAX_BYTES = 1 << 26  # larger results are not kept after the caller drops them
RECYCLE_KEEP = 2  # buffers kept per result of a plan


class RecycledResults:
    """Result arrays whose memory is used again once the caller has let go of them.

    A kernel that returns a fresh ``(400, 500)`` array per call gets it from malloc, which for
    large blocks maps new pages and returns them when the array is freed: every call then pays a
    page fault per 4 KiB (~3 us each on a VM, 1.2 ms of numpy-suite ``hdiff``'s 1.5 ms).  Each
    result handed out is a new ndarray *viewing* a buffer kept here; the buffer is free again when
    nothing else refers to it (every view of a result, and every view of those, holds its base),
    and then the next call's result views it.  The values are ``np.empty``'s: the kernel writes
    every element of a result it does not zero."""

    def __init__(self) -> None:
        self.buffers: list[np.ndarray] = []
        self.lock = threading.Lock()

    def __call__(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        with self.lock:  # two threads must not both take one idle buffer
            for buffer in self.buffers:
                if sys.getrefcount(buffer) <= _IDLE_REFERENCES:
                    return buffer.view()
            buffer = np.empty(shape, dtype)
            if len(self.buffers) >= RECYCLE_KEEP:
                return buffer
            self.buffers.append(buffer)
            return buffer.view()


def _idle_references() -> int:
    """``sys.getrefcount`` of a buffer that only ``RecycledResults.buffers`` holds, seen from
    its loop (the list, the loop variable, the call's argument)."""
    buffers = [np.empty(1)]
    for buffer in buffers:
        return sys.getrefcount(buffer)
    raise AssertionError("unreachable")


_IDLE_REFERENCES = _idle_references()


# numpy scalars whose value ctypes passes as is (a np.bool_ is refused for an int64: full path)
PLAN_FLOAT_SCALARS = frozenset({np.float32, np.float64})
PLAN_INT_SCALARS = frozenset({np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64})


def _pointer_reader() -> Callable[[np.ndarray], int]:
    """The fastest way to read an ndarray's data pointer: in CPython ``id()`` is the object's
    address and numpy's public ABI puts ``data`` right after the object header (what the C API's
    ``PyArray_DATA`` reads), which takes a fifth of the time of ``a.ctypes.data``.  Checked
    against ``a.ctypes.data`` once; elsewhere ``a.ctypes.data`` is used."""
    offset = object.__basicsize__

    def read(array: np.ndarray) -> int:
        return ctypes.c_size_t.from_address(id(array) + offset).value

    probes = (np.arange(6.0)[1:], np.zeros((3, 4), dtype=np.int32)[:, 1::2], np.empty(0))
    if (platform.python_implementation() == "CPython" and ctypes.sizeof(ctypes.c_size_t) == ctypes.sizeof(ctypes.c_void_p)
            and all(read(p) == p.ctypes.data for p in probes)):
        return read
    return lambda array: array.ctypes.data


address: Callable[[np.ndarray], int] = _pointer_reader()


def _span(array: np.ndarray) -> tuple[int, int]:
    return byte_span(array.shape, array.strides, array.itemsize)


def byte_span(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> tuple[int, int]:
    """[first, last + 1) bytes an array touches, relative to its data pointer; (0, 0) when empty."""
    if 0 in shape:
        return (0, 0)
    low = sum(stride * (extent - 1) for extent, stride in zip(shape, strides) if stride < 0)
    high = sum(stride * (extent - 1) for extent, stride in zip(shape, strides) if stride > 0)
    return (low, high + itemsize)


class CallPlan:
    """One variant's calls at one set of sizes (``call_key`` of every argument): made after a call
    at these sizes passed every check, it keeps what those checks and the backend's size arguments
    found, and no reference to the caller's arrays.  ``run`` still checks overlap on every call,
    exactly: byte ranges first (cached per shape and strides), ``np.shares_memory`` when they meet."""

    def __init__(self, variant: CompiledVariant, values: dict[str, Any], env: dict[str, Any], launch) -> None:
        arguments = variant.arguments
        self.launch = launch  # the backend's part: size arguments and phase steps (LLVMKernel.prepare)
        self.direct = getattr(launch, "direct", None)  # its one function, where calling it is all
        self.arrays = tuple(k for k, a in enumerate(arguments) if a.kind == "array")  # argument positions
        self.spans = tuple(_span(values[arguments[k].name]) for k in self.arrays)
        index = {arguments[k].name: n for n, k in enumerate(self.arrays)}  # name -> position in self.arrays
        self.pairs = tuple((index[first], index[second], str(overlap_error(first, second, variant.written)))
                           for first, second in variant.overlap_pairs)
        infos = [(launch.kernel.locals[name], slot) for slot, name in launch.local_slots]
        pooled = [(info, slot) for info, slot in infos if info.kind != "result"]
        self.locals = LocalArrays(pooled, env, launch.tail) if pooled else None
        self.tail = list(launch.tail)
        self.arguments = arguments
        self.calls = 0  # calls so far (a native entry is made from the NATIVE_AFTER-th: Kernel)
        self.fast: Callable[..., Any] | None = None  # the native entry (runtime/native.py), once made
        self.tried_epoch: int | None = None  # threads.THREADS_EPOCH at the last try of an entry
        # a backend that says how its phases run serially; local arrays small enough to keep
        # (asked of the class: an LLVM launch's ``serial`` generates the serial functions)
        self.native = (hasattr(type(launch), "serial") and (self.locals is None or self.locals.keep > 0)
                       and native_entries())
        self.variant_returns = variant.returns
        if variant.returns is not None:
            # results escape to the caller: fresh arrays on every call, never from the pool
            self.results = tuple((info.name, _result_maker(info, shape), shape, np.dtype(info.dtype), slot)
                                 for info, slot in infos if info.kind == "result"
                                 for shape in (local_shape(info, env),))
            self.returns = variant.returns
            position = {a.name: k for k, a in enumerate(arguments)}
            # the arguments returned (themselves or views of them), and the views' geometry,
            # which the sizes decide (so every call of the plan shares it)
            self.positions = tuple((name, position[name]) for name in returned_arguments(variant.returns))
            self.views = {id(spec): view_geometry(values[spec.name], spec, values)
                          for spec in returned_specs(variant.returns) if spec.how == "view"}
            self.run = self._run_returning  # type: ignore[method-assign]
            if not launch.steps and not self.results and self.locals is None and not self.pairs:
                self.run = self._run_views  # type: ignore[method-assign]

    def run(self, args: tuple) -> None:
        head = list(args)
        for k in self.arrays:
            head[k] = address(args[k])
        if self.pairs:
            self._check_overlap(args, head)
        if self.locals is None:
            if self.direct is not None:
                self.direct(*head, *self.tail)
            else:
                self.launch(head + self.tail)
            return
        taken = self.locals.take()
        try:
            self.launch(head + taken.tail)
        finally:
            self.locals.give_back(taken)

    def _run_returning(self, args: tuple) -> Any:
        """``run`` for a kernel that returns a value: fresh result arrays, then the value."""
        head = list(args)
        for k in self.arrays:
            head[k] = address(args[k])
        if self.pairs:
            self._check_overlap(args, head)
        fresh = {name: make(shape, dtype) for name, make, shape, dtype, _ in self.results}
        taken = self.locals.take() if self.locals is not None else None
        tail = list(taken.tail if taken is not None else self.tail)
        for name, _, _, _, slot in self.results:
            tail[slot] = address(fresh[name])
        try:
            if self.direct is not None:
                self.direct(*head, *tail)
            else:
                self.launch(head + tail)
        finally:
            if taken is not None and self.locals is not None:
                self.locals.give_back(taken)
        for name, k in self.positions:
            fresh[name] = args[k]
        return returned(self.returns, fresh, self.views)

    def _run_views(self, args: tuple) -> Any:
        """``run`` for a kernel that only returns its arguments or views of them: no machine
        code runs (no phase, nothing written, nothing allocated), so the call is the views."""
        return returned(self.returns, {name: args[k] for name, k in self.positions}, self.views)

    def _check_overlap(self, args: tuple, head: list) -> None:
        arrays, spans = self.arrays, self.spans
        for i, j, message in self.pairs:
            first, second = head[arrays[i]], head[arrays[j]]
            if (first + spans[i][0] < second + spans[j][1] and second + spans[j][0] < first + spans[i][1]
                    and shares_memory(args[arrays[i]], args[arrays[j]], self.arguments[arrays[i]].name,
                                      self.arguments[arrays[j]].name)):
                raise ArgumentError(message)


@dataclass
class LocalSet:
    """One call's kernel-local arrays and the backend's trailing arguments pointing at them."""

    arrays: list[np.ndarray]
    zeroed: list[np.ndarray]  # zero_init arrays and scalars (np.zeros in ``allocate``)
    tail: list


class LocalArrays:
    """The kernel-local arrays of one set of sizes, reused from call to call: a call takes a set
    (a fresh one while every kept set is in use by another thread) and gives it back when done.
    Arrays that ``allocate`` would make with np.zeros are zeroed on every call, as before."""

    def __init__(self, infos: list[tuple[ArrayInfo, int]], env: dict[str, Any], tail: tuple) -> None:
        self.infos = [(info, local_shape(info, env), slot) for info, slot in infos]
        self.tail = tail
        size = sum(int(np.prod(shape, dtype=np.int64)) * np.dtype(info.dtype).itemsize
                   for info, shape, _ in self.infos)
        self.keep = POOL_SETS if size <= POOL_BYTES else 1 if size <= POOL_LARGE_BYTES else 0
        self._free: list[LocalSet] = []  # list.pop and list.append are atomic: no lock needed

    def take(self) -> LocalSet:
        try:
            taken = self._free.pop()
        except IndexError:
            return self.new_set()
        for array in taken.zeroed:
            array.fill(0)
        return taken

    def give_back(self, taken: LocalSet) -> None:
        if len(self._free) < self.keep:
            self._free.append(taken)

    def new_set(self) -> LocalSet:
        tail = list(self.tail)
        arrays, zeroed = [], []
        for info, shape, slot in self.infos:
            zero = info.zero_init or not shape
            array = (np.zeros if zero else np.empty)(shape, dtype=info.dtype)
            arrays.append(array)
            if zero:
                zeroed.append(array)
            tail[slot] = address(array)
        return LocalSet(arrays, zeroed, tail)
