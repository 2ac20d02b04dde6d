"""The static control part (Scop): polyfuse's polyhedral model of one kernel.

Statements carry isl iteration domains and access relations; the Scop carries the original
schedule as an isl schedule tree.  isl objects are excluded from equality and hashing (islpy's
``==`` compares meaning while ``hash`` follows internal form), so caches key on text we build.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import islpy as isl
import numpy as np

from polyfuse.errors import SourceSpan
from polyfuse.model import ir
from polyfuse.model.names import user_name
from polyfuse.model.region import Region, Summed

ISL_RESERVED = {
    "and", "or", "not", "mod", "floor", "ceil", "min", "max", "exists", "infty", "true", "false",
    "NaN", "div", "implies", "xor",
}


def isl_name(name: str) -> str:
    """A Python identifier made safe as an isl identifier."""
    return name + "_" if name in ISL_RESERVED else name


def isl_affine_text(expr: ir.Expr) -> str | None:
    """``expr`` in isl's syntax where it is an affine integer expression (integer names and
    constants, ``+``, ``-``, negation, ``*`` by a constant, ``//`` by a positive constant, ``min``,
    ``max``), else None: the one reading for the passes that ask isl about loop-AST expressions
    (None means the question is not asked, never a wrong answer)."""
    if isinstance(expr, ir.Const):
        return str(expr.value) if type(expr.value) is int else None
    if isinstance(expr, ir.Var):
        return isl_name(expr.name) if np.dtype(expr.dtype).kind in "iu" else None
    if isinstance(expr, ir.Unary) and expr.op == "neg":
        inner = isl_affine_text(expr.operand)
        return None if inner is None else f"(-{inner})"
    if not isinstance(expr, ir.BinOp) or expr.op not in ("+", "-", "*", "//", "min", "max"):
        return None
    lhs, rhs = isl_affine_text(expr.lhs), isl_affine_text(expr.rhs)
    if lhs is None or rhs is None:
        return None
    if expr.op in ("min", "max"):
        return f"{expr.op}({lhs}, {rhs})"
    if expr.op == "*" and not (isinstance(expr.lhs, ir.Const) or isinstance(expr.rhs, ir.Const)):
        return None
    if expr.op == "//":
        divisor = expr.rhs.value if isinstance(expr.rhs, ir.Const) else None
        return f"floor(({lhs}) / {rhs})" if type(divisor) is int and divisor > 0 else None
    return f"({lhs} {expr.op} {rhs})"


def shape_param(array: str, axis: int) -> str:
    """The isl parameter standing for ``array.shape[axis]``."""
    return f"{array}__shape{axis}"


# A scipy.sparse CSR (or CSC) matrix argument reaches the kernel as four plain arguments in its
# place (runtime/sparse.py unpacks the call, frontend/sparse.py the parameter): its data,
# indices and indptr arrays, and the extent of the axis ``indices`` count along ("minor": the
# columns of a CSR matrix, the rows of a CSC one).  The format is in the names, so it is part of
# the call signature; the dtypes of data and indices are, as for any array.
SPARSE_FORMATS = ("csr", "csc")
SPARSE_PARTS = ("data", "indices", "indptr", "minor")


def sparse_part(matrix: str, fmt: str, part: str) -> str:
    """The argument name of one part of sparse matrix ``matrix`` in format ``fmt``."""
    return f"{matrix}__{fmt}_{part}"


@dataclass(frozen=True)
class Argument:
    """One kernel parameter as seen in a call signature."""

    name: str
    kind: str  # "array" | "int" | "float" | "complex" | "bool" (a value, never an isl parameter)
    dtype: str  # element dtype for arrays, int64/float64/complex128 for scalars (int64 for a bool: 0/1)
    rank: int = 0
    layout: str = "C"  # "C" contiguous or "A" any strides
    numpy_scalar: str = ""  # the dtype of a numpy scalar argument (strong under NEP 50); "" for int/float
    # an array's axes of extent 1 in this call: NumPy broadcasts them, so they are part of the
    # signature (a variant knows them as constants, another variant serves other extents)
    unit_axes: tuple[int, ...] = ()


@dataclass(frozen=True)
class ArrayInfo:
    """An array argument or a kernel-local array; local scalars are rank-0 local arrays."""

    name: str
    dtype: str
    shape: tuple[ir.Expr, ...]
    kind: str  # "arg" | "local" | "result" (allocated by the kernel and returned: it escapes)
    zero_init: bool = False
    extent_texts: tuple[str, ...] = ()  # each extent in isl syntax (for bounds proofs)
    register_tile: bool = False  # made by polyfuse.registers: its values live in registers

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def is_scalar(self) -> bool:
        return self.kind == "local" and not self.shape


@dataclass(frozen=True)
class Returned:
    """One value the kernel returns: the caller's argument ``name`` itself (``"arg"``), a view
    of it (``"view"``, as NumPy returns one), the fresh array ``name`` of kind "result"
    (``"array"``), or the element of the 0-d result ``name`` as ``pytype`` (``"scalar"``:
    ``float``/``int`` for a weak value, else a numpy dtype name), so the value has exactly the
    Python type the undecorated function returns."""

    how: str  # "arg" | "array" | "scalar" | "view" | "prefix"
    name: str
    pytype: str = ""
    # "prefix": ``name[:k]`` of the array ``name`` (a result or argument), ``k`` the element of
    # the 0-d result ``count``; an empty prefix takes ``empty_dtype`` where it is set
    # (``np.array([])`` is float64 whatever the list's items would have been)
    count: str = ""
    empty_dtype: str = ""
    copied: bool = False  # a copy of the prefix, where Python's value is a new array (buf[:k].copy())
    # "scalar" of a local that is a Python number on some paths and a NumPy scalar on others
    # (``m = 0.0`` ... ``m = x[i]``): the 0-d int8 result saying what this run's value is: 0 the
    # NumPy scalar ``pytype``, 1 to 4 a Python int, float, bool, complex, 5 + k the NumPy scalar
    # ``strong_types[k]`` (``(np.float32(v) if c else np.float64(w)) * 2``: its branch's type)
    strong_flag: str = ""
    strong_types: tuple[str, ...] = ()
    # "view": a view of the argument ``name`` (``return A.T``, ``return x[1:]``), made per call:
    # its extents, the argument index of its first element (Python texts of sizes and integer
    # arguments), and per view axis the steps it takes along each argument axis
    shape: tuple[str, ...] = ()
    start: tuple[str, ...] = ()
    steps: tuple[tuple[int, ...], ...] = ()


ReturnValue = Returned | tuple  # a tuple holds ReturnValues


@dataclass(frozen=True)
class Statement:
    """One assignment ``array[index] = value`` executed once per point of ``domain``."""

    name: str
    iterators: tuple[str, ...]
    array: str
    index: tuple[ir.Expr, ...]
    value: ir.Expr
    span: SourceSpan
    nest: int  # which top-level construct of the kernel body it came from
    domain: isl.Set = field(compare=False, repr=False)
    reads: isl.UnionMap = field(compare=False, repr=False)
    writes: isl.UnionMap = field(compare=False, repr=False)
    # an opaque region (model/region.py): ``body`` runs as written; array/index/value are unused
    region: Region | None = None
    # a folded accumulator (schedule/accumulators.py): ``value`` is ``out + alpha * term``, the
    # user's code sums the terms first and scales the sum (a product kept whole keeps it)
    summed: Summed | None = None

    @property
    def source_line(self) -> str:
        return self.span.text.strip()

    @property
    def reassociable(self) -> bool:
        """A NumPy reduction's ``acc = acc + term`` (or ``*``) that the backend may regroup with
        the accumulator's other updates (``ir.BinOp.reassoc``, set by frontend.expressions)."""
        return isinstance(self.value, ir.BinOp) and self.value.reassoc

    @property
    def targets(self) -> tuple[str, ...]:
        """The arrays and scalars this statement (may) write."""
        return self.region.writes if self.region is not None else (self.array,)

    def sources(self) -> set[str]:
        """The arrays and scalars whose values this statement (may) read."""
        if self.region is not None:
            return set(self.region.uses())
        return {e.array for e in ir.distinct_nodes(self.value, *self.index) if isinstance(e, ir.Load)}


@dataclass(frozen=True)
class PrangeLoop:
    """A loop the user wrote with ``prange``: its line, its depth in the nest (0: outermost) and
    the statements inside it, so the claim can be checked against the dependences."""

    line: int
    iterator: str
    depth: int
    statements: tuple[str, ...]


# what a SizeProduct's ``source`` may name besides the arguments (frontend.call_sizes writes
# the modules ``pf_np`` and ``pf_math``, so a kernel's own ``np`` never matters)
def bincount_length(x: np.ndarray | Callable[[], np.ndarray], minlength: int) -> int:
    """The length of ``np.bincount(x, minlength=minlength)``.  Computed before the kernel runs,
    also where the call is in a branch that does not run, so it never raises: NumPy's ValueErrors
    for a negative ``minlength`` or element are raised where the call runs (frontend.arrays:
    ``bincount``), and the length is then at least 1, so the count loop stays in bounds.  ``x``
    may be a function computing it (``M[0]``): its IndexError, an axis too short, is the
    kernel's own where the read runs (its bounds check), and the length is then 1."""
    if callable(x):
        try:
            x = x()
        except IndexError:
            return max(int(minlength), 1)
    bad = minlength < 0 or bool(x.size and x.min() < 0)
    return max(int(minlength), int(x.max()) + 1 if x.size else 0, int(bad))


def data_size(value: object) -> object:
    """A size computed from an argument's elements (``int(idx.max()) + 1``, frontend.call_sizes:
    ``call_time_data_source``): a NumPy integer as the Python int it is (NumPy takes either as an
    extent), anything else as it is (``size_value`` refuses what is not an int)."""
    return int(value) if isinstance(value, np.integer) else value


SIZE_NAMESPACE = {"__builtins__": {}, "int": int, "round": round, "abs": abs, "min": min, "max": max,
                  "pf_math": math, "pf_np": np, "pf_bincount_length": bincount_length, "pf_data_size": data_size}
#: the sizes that read an argument's elements (a call plan keyed on shapes cannot keep them)
DATA_SIZES = ("pf_bincount_length", "pf_data_size")


@dataclass(frozen=True)
class SizeProduct:
    """A size the call computes, an isl parameter like the extents: ``name`` is the product of
    ``factors`` over that of ``divisors`` (floor division; integer IR over the other parameters),
    which isl cannot state (a reshape's ``x.reshape(n, -1)`` of an ``(m, h, w)`` array has extent
    ``m * h * w // n``)."""

    name: str
    factors: tuple[ir.Expr, ...]
    divisors: tuple[ir.Expr, ...] = ()
    # or a Python integer expression of the arguments (frontend.call_sizes: ``int(xn)``), the
    # size being its value at the call (factors and divisors then empty)
    source: str | None = None


@dataclass(frozen=True)
class ElementCount:
    """A reshape's sizes, which must hold equally many elements (integer IR extents over the
    parameters): the call raises NumPy's ValueError before anything runs where they do not."""

    source: tuple[ir.Expr, ...]
    shape: tuple[ir.Expr, ...]
    missing: int = -1  # the axis written -1 (NumPy's message says "newaxis"); -1 for none


@dataclass(frozen=True)
class Scop:
    name: str
    arguments: tuple[Argument, ...]
    params: tuple[str, ...]  # isl parameters: integer arguments and array extents
    arrays: tuple[ArrayInfo, ...]
    statements: tuple[Statement, ...]
    filename: str
    body: tuple  # the loop structure in program order (polyfuse.schedule_tree nodes)
    schedule: isl.Schedule = field(compare=False, repr=False)  # original program order
    context: isl.Set = field(compare=False, repr=False)  # what we know of the parameters
    prange_loops: tuple[PrangeLoop, ...] = ()  # loops written with numba's prange
    returns: ReturnValue | None = None  # what the kernel returns (None: nothing)
    returns_span: SourceSpan | None = None  # the final ``return`` (for target errors)
    # the user's asserts: (isl text of the parameter values where one fails, its message or None)
    assertions: tuple[tuple[str, str | None, str], ...] = ()  # (failing sizes, message, error name)
    sizes: tuple[SizeProduct, ...] = ()  # parameters the call computes (after the arguments' own)
    counts: tuple[ElementCount, ...] = ()  # reshapes' element counts, checked per call
    # isl text of the sizes outside ``context`` where NumPy runs the statements too (two slices it
    # requires equal, both empty by different amounts): such calls run the undecorated function
    numpy_runs: str | None = None
    # names the frontend gave a binding of the user's name (``v_2`` for ``v``): fresh -> the
    # user's, which messages show (polyfuse.model.names; frontend.rewrite.Rewriter.fresh)
    user_names: tuple[tuple[str, str], ...] = ()

    def shown(self, name: str) -> str:
        """``name`` as the user wrote it (``v`` for ``v_2``, ``__version0_v``, ``__strong_v``)."""
        return user_name(name, dict(self.user_names))

    def array(self, name: str) -> ArrayInfo:
        for info in self.arrays:
            if info.name == name:
                return info
        raise KeyError(name)

    def statement(self, name: str) -> Statement:
        for stmt in self.statements:
            if stmt.name == name:
                return stmt
        raise KeyError(name)

    def domain(self) -> isl.UnionSet:
        return _union_set([isl.UnionSet.from_set(s.domain) for s in self.statements], self.context)

    def reads(self) -> isl.UnionMap:
        return _union_map([s.reads for s in self.statements], self.context)

    def writes(self) -> isl.UnionMap:
        return _union_map([s.writes for s in self.statements], self.context)

    @property
    def prefix(self) -> str:
        """The isl parameter list, ``[n, A__shape0, ...]``."""
        return "[" + ", ".join(self.params) + "]"

    def schedule_of(self, body: tuple) -> isl.Schedule:
        """The isl schedule of a loop-structure tree over this Scop's statements."""
        from polyfuse.model.schedule_tree import build_schedule

        return build_schedule(
            body, {s.name: s.domain for s in self.statements},
            {s.name: tuple(isl_name(v) for v in s.iterators) for s in self.statements},
            self.prefix, isl.UnionSet.empty(self.context.get_space()),
        )

    def local_arrays(self) -> tuple[str, ...]:
        """Names of the kernel-local arrays and scalars."""
        return tuple(a.name for a in self.arrays if a.kind == "local")

    def returned_names(self) -> set[str]:
        """The names the kernel returns (nested tuples flattened)."""
        names: set[str] = set()
        pending = [self.returns]
        while pending:
            item = pending.pop()
            if isinstance(item, tuple):
                pending.extend(item)
            elif item is not None:
                names.add(item.name)
        return names


def _union_set(parts: list[isl.UnionSet], context: isl.Set) -> isl.UnionSet:
    result = isl.UnionSet.empty(context.get_space())
    for part in parts:
        result = result.union(part)
    return result


def _union_map(parts: list[isl.UnionMap], context: isl.Set) -> isl.UnionMap:
    result = isl.UnionMap.empty(context.get_space())
    for part in parts:
        result = result.union(part)
    return result


def added_term(stmt: Statement) -> ir.Expr | None:
    """``e`` when ``stmt`` is a float ``acc[s] = acc[s] + e`` (or ``e + acc[s]``) whose ``e``
    does not read ``acc``; else None."""
    value = stmt.value
    if (stmt.region is not None or not isinstance(value, ir.BinOp) or value.op != "+"
            or value.dtype not in ("float32", "float64")):
        return None
    acc = ir.Load(stmt.array, stmt.index, value.dtype)
    for own, term in ((value.lhs, value.rhs), (value.rhs, value.lhs)):
        if isinstance(own, ir.Load) and (own.array, own.index, own.dtype) == (acc.array, acc.index, acc.dtype):
            if not any(isinstance(e, ir.Load) and e.array == stmt.array for e in ir.walk(term)):
                return term
    return None
