"""Lower NumPy array statements to element loops, before the subset checker.

``B[1:-1] = 0.5 * (A[2:] + A[:-2])`` means one assignment per element of the slice's index set,
so it becomes a loop nest over the (broadcast) shape writing element by element, in the subset
the checker already accepts.  Fusion, contraction and tiling then apply unchanged::

    B[1:-1] = 0.5 * (A[2:] + A[:-2])      ->   for pf_i0 in range(B.shape[0] - 2):
                                                   B[pf_i0 + 1] = 0.5 * (A[pf_i0 + 2] + A[pf_i0])

Array temporaries (``T = A * 2.0``) and axis reductions become kernel-local arrays allocated at
the top of the kernel; full reductions become scalar locals.  NumPy evaluates a right-hand side
completely before writing, so a statement that reads its target at another index goes through
a temporary.  Extents that NumPy requires to match but that are different symbols
(``A.shape[0]`` and ``B.shape[0]``) are assumed equal in the Scop's context (isl then knows it),
and the call-time checks refuse sizes where they differ.  Statements without array values are
returned untouched.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeGuard

import numpy as np

from polyfuse.errors import UnsupportedError
from polyfuse.model.names import in_user_names, user_name
from polyfuse.model.scop import Argument, Returned

from .allocation import ALLOCATORS
from .array_loops import range_loop
from .call_sizes import (
    call_time_array,
    call_time_data_source,
    call_time_source,
    guarded_source,
    indexes_integers,
)
from .checker import (
    SUPPORTED_HINT,
    assert_message,
    is_allocation,
    is_prefix_index_call,
    module_of,
    numpy_abs,
    prefix_index,
    reassociable,
)
from .desugar import int_constant
from .early_return import RESULT as EARLY_RESULT
from .expressions import BITWISE, OPERATORS
from .extent_facts import LoopRange, decided, is_affine
from .numba_values import is_boxed
from .scalars import arity, is_supported, module_constant, np_scalar_type
from .source import KernelSource, copy_tree, location_key, walk
from .types import (
    BITWISE_UFUNCS,
    BOOL,
    COMPLEX,
    FLOATS,
    INTS,
    WEAK_COMPLEX,
    WEAK_FLOAT,
    WEAK_INT,
    VType,
    argument_type,
    casts,
    merged,
    promote,
    true_divide,
)
from .types import bitwise as bitwise_type

NP_NAME = "pf_np"  # the name the lowered code uses for numpy (added to the kernel's globals)
UNKNOWN = VType("unknown", True)
_DTYPES = FLOATS + INTS + ("bool",) + COMPLEX  # dtypes of kernel arrays
#: np.linalg calls that return several values, and NumPy's names for them (slogdet's are fields too)
LINALG_TUPLES = {"slogdet": ("sign", "logabsdet"), "lstsq": ("x", "residuals", "rank", "s"), "qr": ("Q", "R"),
                 "eigh": ("eigenvalues", "eigenvectors"), "svd": ("U", "S", "Vh")}
#: ... those whose values are fields too (NumPy's named tuples; lstsq's is a plain tuple)
LINALG_FIELDS = ("slogdet", "qr", "eigh", "svd")
#: np.linalg calls of LINALG_TUPLES that return one array for a constant option: (position, keyword, value)
LINALG_SINGLE = {"qr": (1, "mode", "r"), "svd": (2, "compute_uv", False)}
_REDUCTIONS = {"sum": "sum", "prod": "prod", "max": "max", "min": "min", "amax": "max", "amin": "min",
               "mean": "mean", "all": "all", "any": "any"}
#: np.bitwise_and/or/xor.reduce: the operator that accumulates each
_BITWISE_REDUCTIONS: dict[str, type[ast.operator]] = {"bitwise_and": ast.BitAnd, "bitwise_or": ast.BitOr,
                                                      "bitwise_xor": ast.BitXor}
_SHAPES = "the result's shape or layout is not a slice of its input; allocate with np.empty and write slices"
_REFUSED = {
    **dict.fromkeys(("argsort", "sort", "median"), "its result is a sorted order, supported as np.sort(a, axis=, "
                    "kind=), np.argsort(a, axis=, kind=) and np.median(a, axis=) of a 1-d or 2-d array whose rank "
                    "polyfuse tells before lowering it (an argument, a local bound once, slices and arithmetic of "
                    "those), axis None, -1, 0 or 1 (and a.sort() in place of those), or of a 3-d array named by an "
                    "argument or a local bound once (s = np.stack([a, b, c]); np.sort(s, axis=0)), any axis; other "
                    "ranks are not; write the loop"),
    **dict.fromkeys(("quantile", "percentile"), "supported as np.quantile(a, q, axis=) / np.percentile(a, q, "
                    "axis=) of a real array, axis=None or of a 2-d array, and a float q (a number, a float argument "
                    "or arithmetic of those; a list of them without axis=); method=, keepdims= and array q are not"),
    "isin": "supported as np.isin(x, test, invert=) of real arrays whose ranks polyfuse tells before lowering them",
    "bincount": "supported as np.bincount(x, weights=None, minlength=0) of a 1-d integer array argument the kernel "
                "never writes, or of arithmetic, comparisons, .astype(), sums, argmin/argmax, np.linalg.norm, rows (M[0]) "
                "and elementwise np.* calls of such arguments "
                "(directly or through locals bound once at the top level; its result's length, the largest value "
                "plus one, is then computed by the call); "
                "otherwise count into an array of known length, counts = np.zeros(k, dtype=np.int64) then for i "
                "in range(x.shape[0]): counts[x[i]] += 1",
    **dict.fromkeys(("nonzero", "argwhere", "flatnonzero", "extract", "compress"),
                    "its result has a data-dependent shape; supported: np.argwhere(c) returned, idx = np.nonzero(c)[0] "
                    "(np.where(c)[0], np.flatnonzero(c)) of a 1-d c returned, used as x[idx], x[idx, j], idx[0], len(idx) or in "
                    "for i in idx, in elementwise arithmetic bound to a name (k = idx + 1), or returned as "
                    "np.diff(idx) (not slices or joins of it); for a 2-d c, append the positions in loops (rows = [] ... if c[i, j]: "
                    "rows.append(i)) and return np.array(rows)"),
    "unique": "its result has a data-dependent shape; supported: np.unique(x) of a 1-d array without keywords, "
              "returned, iterated (for v in np.unique(x)) or bound as u for u[k], len(u) and reductions, and "
              "vals, counts = np.unique(a, return_counts=True); otherwise loop over range(len(u))",
    "resize": _SHAPES,
    "take_along_axis": "supported as np.take_along_axis(arr, indices, axis) of an arr named by an argument or a "
                       "local and indices of its rank (1 or 2), both ranks told before lowering (arguments, locals "
                       "bound once, slices, arithmetic, elementwise calls and reductions of those), axis a constant",
    **dict.fromkeys(("partition", "argpartition"), "the order NumPy's introselect leaves the elements other than "
                    "the kth in is its own (np.partition(a, k)[k] of a 1-d a, the kth smallest, is supported); "
                    "write np.sort(a) (np.argsort(a, kind='stable')), whose kth element is the same: np.sort(a)[:k] "
                    "for the k smallest, in order"),
}
JOINS = frozenset(("concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "tile"))  # array_joins.py
_COMPARE_UFUNCS: dict[str, type[ast.cmpop]] = {
    "less": ast.Lt, "less_equal": ast.LtE, "greater": ast.Gt, "greater_equal": ast.GtE, "equal": ast.Eq,
    "not_equal": ast.NotEq,
}
_LOGICAL_UFUNCS: dict[str, type[ast.operator]] = {"logical_and": ast.BitAnd, "logical_or": ast.BitOr,
                                                  "logical_xor": ast.BitXor}
_BINARY_UFUNCS: dict[str, type[ast.operator]] = {
    "add": ast.Add, "subtract": ast.Sub, "multiply": ast.Mult, "divide": ast.Div, "true_divide": ast.Div,
    "floor_divide": ast.FloorDiv, "power": ast.Pow, "mod": ast.Mod, "remainder": ast.Mod,
}
_METHODS = {"transpose": "transpose", "copy": "copy", "astype": "astype", "clip": "clip", "conj": "conj",
            "conjugate": "conj", "reshape": "reshape", "squeeze": "squeeze", "ravel": "ravel", "flatten": "ravel"}


#: the NumPy functions np.apply_along_axis(f, axis, a) calls as f(a, axis=axis) (Lowering.apply_along_axis)
_ALONG_AXIS = frozenset(("sum", "prod", "mean", "max", "min", "amax", "amin", "std", "var", "ptp", "any", "all",
                         "argmax", "argmin", "cumsum", "cumprod", "nansum", "nanmean", "nanmax", "nanmin",
                         "count_nonzero"))
#: the ufuncs whose np.<ufunc>(..., out=np.zeros_like(a), where=m) is lowered (Lowering.ufunc_out_where):
#: none that traps where the mask leaves it out (integer floor_divide, remainder, power)
_OUT_WHERE_UFUNCS = frozenset(("divide", "true_divide", "multiply", "add", "subtract", "log", "log10", "log2", "sqrt",
                               "reciprocal", "exp", "arcsin", "arccos", "arctanh", "log1p"))
_UNARY_OUT_WHERE = frozenset(("log", "log10", "log2", "sqrt", "reciprocal", "exp", "arcsin", "arccos", "arctanh",
                              "log1p"))


# ---- symbolic integers ---------------------------------------------------------------------
@dataclass(frozen=True)
class Sym:
    """An integer expression: a linear form over atoms (texts of names, ``X.shape[d]``, and of
    min/max/division parts).  Equal texts mean equal values."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0
    opaque: str | None = None

    @property
    def text(self) -> str:
        if self.opaque is not None:
            return self.opaque
        # positive terms first and no negative literals: isl does not parse "(-3) * i"
        items = [(c, a if abs(c) == 1 else f"{abs(c)} * {a}") for a, c in self.terms]
        if self.const:
            items.append((self.const, str(abs(self.const))))
        items.sort(key=lambda item: item[0] < 0)
        if not items or items[0][0] < 0:
            items.insert(0, (0, "0"))
        text = items[0][1]
        for coeff, body in items[1:]:
            text += f" {'-' if coeff < 0 else '+'} {body}"
        return text

    @property
    def node(self) -> ast.expr:
        return ast.parse(self.text, mode="eval").body

    def is_const(self, value: int | None = None) -> bool:
        return self.opaque is None and not self.terms and (value is None or self.const == value)

    def __add__(self, other: Sym) -> Sym:
        if self.opaque is None and other.opaque is None:
            terms = dict(self.terms)
            for atom, coeff in other.terms:
                terms[atom] = terms.get(atom, 0) + coeff
            return Sym(tuple(sorted((a, c) for a, c in terms.items() if c)), self.const + other.const)
        return Sym(opaque=f"({self.text}) + ({other.text})")

    def __sub__(self, other: Sym) -> Sym:
        return self + other.scale(-1)

    def scale(self, factor: int) -> Sym:
        if self.opaque is None:
            return Sym(tuple((a, c * factor) for a, c in self.terms if c * factor), self.const * factor)
        return Sym(opaque=f"{factor} * ({self.text})")

    def floordiv(self, divisor: int) -> Sym:
        if divisor == 1:
            return self
        if self.is_const():
            return const(self.const // divisor)
        return atom(f"(({self.text}) // {divisor})")


def const(value: int) -> Sym:
    return Sym((), value)


def atom(text: str) -> Sym:
    return Sym(((text, 1),), 0)


def _linalg_single(name: str, node: ast.Call) -> bool:
    """``np.linalg.qr(a, mode='r')``, ``np.linalg.svd(a, compute_uv=False)``: one array, not a tuple."""
    if name not in LINALG_SINGLE:
        return False
    position, key, value = LINALG_SINGLE[name]
    given = node.args[position] if len(node.args) > position else next(
        (kw.value for kw in node.keywords if kw.arg == key), None)
    return isinstance(given, ast.Constant) and type(given.value) is type(value) and given.value == value


def smin(a: Sym, b: Sym) -> Sym:
    if a.is_const() and b.is_const():
        return const(min(a.const, b.const))
    return atom(f"min({a.text}, {b.text})")


def smax(a: Sym, b: Sym) -> Sym:
    if a.is_const() and b.is_const():
        return const(max(a.const, b.const))
    return atom(f"max({a.text}, {b.text})")


def sym_of(node: ast.expr) -> Sym:
    """An integer AST as a Sym (linear where it can be)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return const(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return sym_of(node.operand).scale(-1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        lhs, rhs = sym_of(node.left), sym_of(node.right)
        return lhs + rhs if isinstance(node.op, ast.Add) else lhs - rhs
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        lhs, rhs = sym_of(node.left), sym_of(node.right)
        if lhs.is_const():
            return rhs.scale(lhs.const)
        if rhs.is_const():
            return lhs.scale(rhs.const)
    if isinstance(node, (ast.Name, ast.Subscript)):
        return atom(ast.unparse(node))
    return atom(f"({ast.unparse(node)})")


# ---- array values --------------------------------------------------------------------------
@dataclass(frozen=True)
class View:
    """An array-valued (or, with no extents, scalar) expression: its extents, its NEP 50 type,
    and the AST of its element at an index (one Sym per extent)."""

    extents: tuple[Sym, ...]
    vtype: VType
    element: Callable[[tuple[Sym, ...]], ast.expr]
    base: str | None = None  # the array a view of an array reads
    # a scalar of type UNKNOWN that Python picks by value among these types (max(1.0, np.max(x)):
    # a Python float or np.float64): an array expression that gives one dtype for each is typed
    picks: tuple[VType, ...] = ()

    @property
    def rank(self) -> int:
        return len(self.extents)


def scalar(node: ast.expr, vtype: VType) -> View:
    return View((), vtype, lambda idx: node)


def leaf(name: str, extents: tuple[Sym, ...], dtype: str) -> View:
    def element(idx: tuple[Sym, ...]) -> ast.expr:
        return subscript(name, idx)
    return View(extents, VType(dtype, False), element, name)


def subscript(name: str, idx: tuple[Sym, ...], ctx: ast.expr_context | None = None) -> ast.Subscript:
    items = [i.node for i in idx]
    index = items[0] if len(items) == 1 else ast.Tuple(items, ast.Load())
    return ast.Subscript(ast.Name(name, ast.Load()), index, ctx or ast.Load())


@dataclass
class ArrayName:
    """A name bound to an array in the kernel: an argument, a declared local or a temporary."""

    array: str  # the kernel array the name means now (temporaries are renamed on rebinding)
    extents: tuple[Sym, ...]
    dtype: str
    kind: str  # "arg" | "local" | "temp" | "view"
    block: tuple[int, ...] = ()  # where a temporary or view was bound
    live: bool = True
    view: View | None = None  # for "view": the slice/transpose of an array the name aliases
    stale: str = ""  # why reading it now would differ from NumPy (a reshape copy whose source was written)

    @property
    def rank(self) -> int:
        return len(self.extents)

    def read(self) -> View:
        return self.view if self.view is not None else leaf(self.array, self.extents, self.dtype)


@dataclass(frozen=True)
class Assertion:
    """A top-level ``assert test, message``: ``test`` affine in the sizes and integer arguments,
    which do not change in the kernel, so the call-time checks decide it before the kernel runs."""

    test: ast.expr
    message: str | None
    error: str = "AssertionError"  # a name in model.ir.CHECK_ERRORS (np.max of no elements: ArgumentError)
    # whether the kernel is compiled for the sizes where it holds (False: checked per call only,
    # the compiled code as without it: an allocation's extent >= 0, nonnegative_extents)
    restricts: bool = True


@dataclass(frozen=True)
class SizeMatch:
    """A reshape's sizes, which NumPy requires to hold equally many elements: the extents of
    the array reshaped and of the new shape (ASTs affine in sizes and integer arguments).  Their
    products are not affine, so the call-time checks multiply them (ValueError, as NumPy)."""

    source: tuple[ast.expr, ...]
    shape: tuple[ast.expr, ...]
    missing: int = -1  # the axis given as -1 (NumPy's message names it "newaxis"), -1 for none


@dataclass(frozen=True)
class LoweredArrays:
    """What :func:`lower_arrays` hands the lifter: the lowered source, the extent equalities
    it assumes, the top-level asserts, and the returned views of arguments (by position in the
    final return's tuple, 0 for a single value)."""

    source: KernelSource
    assumed: tuple[ast.expr, ...] = ()
    assertions: tuple[Assertion, ...] = ()
    returned_views: tuple[tuple[tuple[int, ...], Returned], ...] = ()
    reshapes: tuple[SizeMatch, ...] = ()
    sizes: tuple[tuple[str, tuple[ast.expr, ...], tuple[ast.expr, ...]], ...] = ()  # computed: name, factors, divisors
    computed: tuple[tuple[str, str], ...] = ()  # sizes the call computes from Python source: name, source
    # per assumption, the weaker condition NumPy accepts (both slices empty), None where the same
    numpy_accepts: tuple[ast.expr | None, ...] = ()
    # the element assignments the user wrote (``y[i] = v`` of one scalar), which NumPy checks
    # as it converts the scalar; the element stores this lowering writes for an array
    # statement (``y[:] = x``) are casts, which wrap (frontend.scalars.element_store_checked)
    element_stores: tuple[ast.stmt, ...] = ()


@dataclass(frozen=True)
class ProductRules:
    """How matrix products lower: frontend/array_linalg.py, which builds on this module (so
    frontend.lift hands it in rather than this module importing it)."""

    value: Callable[[Lowering, ast.expr], View | None]  # a @ b, np.dot(...), ...; None for other nodes
    store: Callable[[Lowering, ast.Assign, View], list[ast.stmt] | None]  # target = product, in place
    blas: bool = False  # matrix products kept whole (model/region.py Matmul) rather than lowered to loops
    linalg: Callable[[Lowering, ast.Call, str], View] | None = None  # np.linalg.<name>(...): frontend/array_lapack.py
    # np.linalg calls of several values (LINALG_TUPLES): each value, None for one polyfuse cannot give
    linalg_parts: Callable[[Lowering, ast.Call, str], tuple[View | None, ...]] | None = None


@dataclass(frozen=True)
class IndexRules:
    """How index grids and several index arrays lower: frontend/advanced_index.py, which builds
    on this module (handed in by frontend.lift, as JoinRules is)."""

    grid: Callable[[Lowering, ast.expr], View | None]  # np.ogrid[...], np.indices(s)[0] as a value; None: not one
    unpack: Callable[[Lowering, ast.expr], list[View] | None]  # the grids ``i, j = value`` unpacks; None: not a grid
    bindable: Callable[[Lowering, View], bool]  # a name may mean the view as a formula (an index grid)
    needs_rules: Callable[[dict[int, View], bool], bool]  # whether a subscript's items take NumPy's full rules
    advanced: Callable[[Lowering, ast.Subscript, View, list[ast.expr], dict[int, View], bool], View]


@dataclass(frozen=True)
class FormRules:
    """NumPy forms lowered by modules that build on this one (handed in by frontend.lift, as
    JoinRules is; frontend/array_forms.py gathers them)."""

    call: Callable[[Lowering, ast.Call, str | None, str], View | None]  # np.diff, np.roll, ... (array_idioms)
    unpack: Callable[[Lowering, ast.Assign, ast.Tuple | ast.List], list[ast.stmt] | None]  # a, b = value
    comprehension: Callable[[Lowering, ast.Assign], tuple[list[ast.stmt], str] | None]  # np.array([...])
    norm: Callable[[Lowering, ast.Call], View | None]  # np.linalg.norm with ord= (array_norms)
    bool_extreme: Callable[[Lowering, ast.Call, str, View, dict[str, ast.expr]], View]  # np.max of bools


@dataclass(frozen=True)
class JoinRules:
    """How joins lower: frontend/array_joins.py, which builds on this module (handed in by
    frontend.lift, as ProductRules is)."""

    value: Callable[[Lowering, ast.Call, str], View]  # np.<name>(...) for a name in JOINS
    store: Callable[[Lowering, ast.Assign, View], list[ast.stmt] | None]  # target = join; None for other values
    repeat: Callable[[Lowering, ast.Call, View, list[ast.expr]], View]  # np.repeat(a, ...), a.repeat(...)


_DTYPE_NAMES = frozenset({"float64", "float32", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16",
                          "uint8", "bool", "complex64", "complex128"})


class Lowering:
    """One walk over the kernel body; ``pre`` collects statements a statement needs before it
    (reductions, mismatch guards), ``allocations`` the arrays allocated at the top."""

    def __init__(self, source: KernelSource, globals_: dict, arguments: tuple[Argument, ...],
                 scalar_types: dict[str, VType], products: ProductRules, joins: JoinRules,
                 indexing: IndexRules, final: bool = True, forms: FormRules | None = None) -> None:
        self.source = source
        self.indexing = indexing
        self.forms = forms
        globals_[NP_NAME] = np  # the lowered code's numpy (module_of reads it while lowering too: np.cov)
        self.products = products
        self.joins = joins
        self.final = final
        self.globals = globals_
        self.arguments = arguments
        self.names: dict[str, ArrayName] = {}
        self.scalars: dict[str, VType] = dict(scalar_types)  # seen this pass: name -> type
        self.assigned: dict[str, VType] = {}
        # scalar locals of type UNKNOWN bound once to a value Python picks by value (View.picks):
        # name -> its candidate types (empty once bound again)
        self.picked: dict[str, tuple[VType, ...]] = {}
        self.bound_once = _bound_once(source.tree)
        for arg in arguments:
            if arg.kind == "array":
                extents = tuple(const(1) if d in arg.unit_axes else atom(f"{arg.name}.shape[{d}]")
                                for d in range(arg.rank))  # an axis of extent 1 in this signature broadcasts
                self.names[arg.name] = ArrayName(arg.name, extents, arg.dtype, "arg")
            else:
                self.scalars[arg.name] = argument_type(arg)
        self.args = {a.name for a in arguments}
        names = [n for n in walk(source.tree) if isinstance(n, ast.Name)]
        self.used = {n.id for n in names} | self.args
        self.counter = 0
        self.loop_vars: set[str] = set()
        self.loops: list[LoopRange] = []  # the enclosing range loops (for symbolic slice bounds)
        self.facts: list[str] = []  # affine comparisons the enclosing ifs' tests make true here (``k > 1``)
        # the enclosing ifs' tests as written, each with whether its body (True) or else branch holds
        self.branch_tests: list[tuple[ast.expr, bool]] = []
        self.int_args = frozenset(a.name for a in arguments if a.kind == "int")
        self.params = self.int_args | {a.name for a in arguments if a.kind == "array"}  # for extent claims
        self.block: tuple[int, ...] = ()
        self.blocks = 0
        self.pre: list[ast.stmt] = []
        self.here: ast.AST = source.tree  # the statement being lowered (where errors point)
        self.allocations: list[ast.stmt] = []
        self.temporaries: dict[str, tuple[Sym, ...]] = {}  # arrays allocated here -> their extents
        self.changed = False
        self.any_changed = False
        self.element_stores: list[ast.stmt] = []  # LoweredArrays.element_stores
        self.checked: set[tuple[str, ...]] = set()
        self.mutated = _written_in_place(source.tree)  # names whose arrays some statement writes in place
        self.size_names = _size_context_names(source.tree)  # names read where a size may be needed
        viewed, viewed_beyond_aliases = _viewed_names(source.tree)
        self.element_ranks = _element_reads(source.tree)  # c = cur[i]: how many indices, per name
        # plain aliases (p = r) of arrays nothing writes in place: a copy is indistinguishable
        self.copied = _copyable_aliases(source.tree, self.mutated | viewed_beyond_aliases)
        self.viewed = viewed - self.copied  # names some binding makes a view of (p = x, v = x[1:])
        self.assignments = 0  # assignments lowered so far
        self.selections: dict[str, tuple[ast.Subscript, int, tuple[int, ...]]] = {}  # v = x[mask]: read, when, where
        # each selection's step and loop depth, the names each step binds or writes ("*": any), the
        # loops open: a selection read later where nothing it reads changed (_selection_unchanged)
        self.selection_steps: dict[str, tuple[int, int]] = {}
        self.step_writes: list[set[str]] = []
        self.loop_depth = 0
        self.assumed: list[ast.expr] = []  # extents NumPy requires equal (`a == b`)
        self.early_why: dict[str, str] = {}  # an early-returned array's name -> why it is not one array
        # id of an assumption -> the weaker condition NumPy itself accepts (`a == b or a <= 0 and b <= 0`)
        self.numpy_accepts: dict[int, ast.expr] = {}
        # nodes Python may not evaluate in their statement (an IfExp's branches, an and/or's later
        # operands): a check that raises where it runs (p[0] of an empty selection) is refused there
        self.conditional = _conditional_ids(source.tree)
        self.copy_of: dict[str, tuple[str, str]] = {}  # a copy ``buffered`` makes (pf_g1) -> ('x', 'x[idx]')
        self.stores = Counter(n.id for n in names if isinstance(n.ctx, ast.Store))
        self.loads = Counter(n.id for n in names if isinstance(n.ctx, ast.Load))
        self.sizes: dict[str, ast.expr] = {}  # integer locals assigned once from sizes: their value
        self.assertions: list[Assertion] = []
        self.returned_views: dict[tuple[int, ...], Returned] = {}  # path in the final return -> the view
        self.assignments_at_return = 0
        self.reshapes: list[SizeMatch] = []  # element counts the call-time checks compare
        self.written: tuple[ast.stmt, str] | None = None  # the array the assignment being lowered stores into
        self.reshaped: set[str] = set()  # the arrays reshape copies made
        self.reshape_sources: dict[str, str] = {}  # array a reshape copied into -> the array it copied (NumPy: a view)
        # (factors, divisors) -> a size the call computes: its name, the factors and divisors
        self.size_products: dict[tuple, tuple[str, tuple[ast.expr, ...], tuple[ast.expr, ...]]] = {}
        self.computed_sizes: dict[str, str] = {}  # Python source -> a size the call computes (frontend.call_sizes)

    def error(self, node: ast.AST, message: str, construct: str = "") -> UnsupportedError:
        return self.source.error(node, message, construct)

    def shown(self, base: str | None) -> str:
        """An array's name as errors show it: the user's ``x[idx]`` for the copy ``buffered`` made."""
        if base is None or base not in self.copy_of:
            return repr(base)
        array, written = self.copy_of[base]
        return f"{array!r} (updated as {written})"

    def as_written(self, node: ast.AST) -> str:
        """``node``'s source with the copies ``buffered`` made named as the user wrote them."""
        text = ast.unparse(node)
        for name, (_, written) in self.copy_of.items():
            text = re.sub(rf"\b{name}\b", written, text)
        return text

    def converted_once(self, view: View, result: VType) -> View:
        """A Python int scalar (not a literal) meeting an array in an operation of a narrower
        integer ``result``: converted once, before the statement's loops, as NumPy converts it
        before it runs the ufunc or writes any element (``x_uint8 + s``, ``y[a:b] = s``,
        ``np.maximum(x, s)``: OverflowError where it does not fit, of an empty array too)."""
        if view.rank or view.picks or view.vtype != WEAK_INT or result.weak or result.dtype not in INTS \
                or result.dtype == "int64" or _number_not_nan(view.element(())):
            return view
        name = self.fresh("fit")
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), result.dtype, ast.Load())
        self.pre.append(ast.Assign([ast.Name(name, ast.Store())], ast.Call(cast, [view.element(())], [])))
        return View((), VType(result.dtype, False), lambda idx: ast.Name(name, ast.Load()))

    def literals_fit(self, node: ast.AST, args: list[View], result: VType) -> None:
        """A Python int literal meeting an array of a narrower integer ``result`` (np.maximum(x_uint8,
        -3)): NumPy raises OverflowError where it does not fit, so it is refused (converted_once
        checks the other Python ints where they run)."""
        if result.weak or result.dtype not in INTS:
            return
        info = np.iinfo(result.dtype)
        for a in args:
            value = None if a.rank or a.vtype != WEAK_INT else _number(a.element(()))
            if isinstance(value, int) and not info.min <= value <= info.max:
                raise self.error(node, f"Python integer {value} is out of bounds for {result.dtype} (numpy raises "
                                 "OverflowError); convert explicitly, e.g. np.int16(x)", "integer literal out of range")

    def fresh(self, stem: str) -> str:
        while True:
            self.counter += 1
            name = f"pf_{stem}{self.counter}"
            if name not in self.used:
                self.used.add(name)
                return name

    # ---- statements ------------------------------------------------------------------------
    def lower_block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        outer = self.block
        self.blocks += 1
        self.block = outer + (self.blocks,)
        out: list[ast.stmt] = []
        for stmt in stmts:
            out.extend(self.lower_stmt(stmt))
        for entry in self.names.values():
            if entry.kind in ("temp", "view", "iota") and entry.block == self.block:
                entry.live = False
        self.block = outer
        return out

    @property
    def at_top(self) -> bool:
        """Whether the statement being lowered is at the top level of the body."""
        return len(self.block) == 1

    def lower_stmt(self, stmt: ast.stmt) -> list[ast.stmt]:
        self.step_writes.append(_step_writes(stmt))
        if not isinstance(stmt, (ast.For, ast.While)):
            return self._lower_stmt(stmt)
        self.loop_depth += 1
        try:
            return self._lower_stmt(stmt)
        finally:
            self.loop_depth -= 1

    def _lower_stmt(self, stmt: ast.stmt) -> list[ast.stmt]:
        if isinstance(stmt, ast.For):
            ranged = range_loop(self, stmt)  # for i, v in enumerate(T): a range loop (array_loops.py)
            if ranged is not None:
                self.any_changed = True
                return [s for r in ranged for s in self.lower_stmt(r)]
            if not isinstance(stmt.target, ast.Name):
                return [_replace(stmt, body=self.lower_block(stmt.body))]
            self.loop_vars.add(stmt.target.id)
            bounds = self.known_extents(stmt.iter)
            self.loops.append(_loop_range(stmt.target.id, bounds))
            try:
                return [_replace(stmt, iter=bounds, body=self.lower_block(stmt.body))]
            finally:
                self.loops.pop()
        if isinstance(stmt, ast.If) and not isinstance(stmt.test, ast.Name):
            hoisted = self.hoist_test(stmt)
            if hoisted is not None:
                return hoisted
        if isinstance(stmt, ast.If):
            test = self.element_reads(self.known_extents(stmt.test))
            body_block = self.block + (self.blocks + 1,)
            self.branch_tests.append((stmt.test, True))
            try:
                body = self.within_facts(self.if_facts(test, True), stmt.body)
            finally:
                self.branch_tests.pop()
            bound = {n: t for n, e in self.names.items() if e.block == body_block
                     for t in [self.as_temporary(e)] if t is not None}
            else_block = self.block + (self.blocks + 1,)
            self.branch_tests.append((stmt.test, False))
            try:
                orelse = self.within_facts(self.if_facts(test, False), stmt.orelse)
            finally:
                self.branch_tests.pop()
            # the names bound in both branches that a statement outside the if may read (a name the
            # lowering made, not in the kernel's tree: ``ret = a if c else b`` of a return, read)
            # (one walk of the whole tree, and none when no temporary is bound in the body: this ran
            # for every if, twice, and was ~60% of the frontend's tree walks on numpy_np21.spearman)
            read_elsewhere: set[str] = set()
            if bound:
                inside = {id(n) for n in walk(stmt)}
                named: set[str] = set()
                for n in walk(self.source.tree):
                    if isinstance(n, ast.Name) and n.id in bound:
                        named.add(n.id)
                        if isinstance(n.ctx, ast.Load) and id(n) not in inside:
                            read_elsewhere.add(n.id)
                read_elsewhere |= set(bound) - named
            body, orelse = self.merge_branches(test, bound, body, else_block, orelse, read_elsewhere)
            return [_replace(stmt, test=test, body=body, orelse=orelse)]
        if isinstance(stmt, ast.While) and not stmt.orelse and self.array_valued(stmt.test):
            return self.lower_stmt(self.while_true(stmt))
        if isinstance(stmt, ast.While):
            return [_replace(stmt, test=self.element_reads(self.known_extents(stmt.test)),
                             body=self.lower_block(stmt.body),
                             orelse=self.lower_block(stmt.orelse))]
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            return self.lower_return(stmt)
        if isinstance(stmt, ast.Assert):
            return self.lower_assert(stmt)
        if isinstance(stmt, ast.Expr) and _ufunc_with_out(stmt.value, self.globals):
            return self.lower_stmt(self.out_copy(stmt, stmt.value))
        if isinstance(stmt, ast.Expr) and _accumulate_with_out(stmt.value, self.globals):
            return self.lower_stmt(self.out_store(stmt, stmt.value))
        if isinstance(stmt, ast.Expr) and _is_numpy_call(stmt.value, "copyto", self.globals):
            return self.lower_stmt(self.copyto(stmt, stmt.value))
        if isinstance(stmt, ast.Expr) and _is_numpy_call(stmt.value, "fill_diagonal", self.globals):
            return self.lower_stmt(self.fill_diagonal(stmt, stmt.value))
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and stmt.value.args \
                and isinstance(stmt.value.args[0], ast.ListComp) and self.forms is not None:
            made = self.forms.comprehension(self, stmt)  # x = np.array([f(v) for v in X]): a loop nest
            if made is not None:
                self.any_changed = True
                lowered = [s for new in made[0] for s in self.lower_stmt(new)]
                if made[1] in self.names:
                    raise self.error(stmt.value, "np.array() of a list comprehension whose elements are arrays "
                                     "(only scalar elements)", "list comprehension")
                return lowered
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "fill" \
                and module_of(call.func.value, self.globals) is None and len(call.args) == 1 and not call.keywords:
            # x.fill(v): every element of x set to v, as x[...] = v stores it (cast to x's dtype)
            target = ast.Subscript(call.func.value, ast.Constant(Ellipsis), ast.Store())
            fill = ast.Assign([target], call.args[0])
            _locate(fill, stmt)
            self.any_changed = True
            return self.lower_stmt(fill)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], (ast.Tuple, ast.List)) \
                and isinstance(stmt.value, ast.Attribute) and stmt.value.attr == "shape" \
                and self.array_valued(stmt.value.value):
            return [s for part in self.unpack_shape(stmt, stmt.targets[0], stmt.value) for s in self.lower_stmt(part)]
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Subscript) \
                and self.gathered(stmt.target):
            return [s for part in self.buffered(stmt, stmt.target) for s in self.lower_stmt(part)]
        if isinstance(stmt, (ast.Assign, ast.Return)) and isinstance(stmt.value, ast.BoolOp) \
                and any(self.array_valued(v) for v in stmt.value.values[1:]):
            # t = a and b, b reducing arrays: Python may not evaluate b (x.max() of an empty x)
            self.conditional -= {id(n) for v in stmt.value.values[1:] for n in walk(v)}
            return self.lower_stmt(_replace(stmt, value=_bool_op_choice(stmt.value)))
        if isinstance(stmt, (ast.Assign, ast.AugAssign)) and isinstance(stmt.value, ast.IfExp) \
                and (self.array_valued(stmt.value.body) or self.array_valued(stmt.value.orelse)):
            self.conditional -= _branch_ids(stmt.value)  # each branch is a statement now
            return self.lower_stmt(_branches(stmt, stmt.value))
        if isinstance(stmt, (ast.Assign, ast.AugAssign)):
            self.pre, self.changed, self.here = [], False, stmt
            self.assignments += 1
            self.written = None
            out = self.lower_assign(stmt)
            if self.written is not None:
                self.writing(*self.written)
            if not self.changed:
                return [stmt]
            self.any_changed = True
            return self.located(self.pre + out, stmt)
        return [stmt]

    def located(self, made: list[ast.stmt], stmt: ast.stmt) -> list[ast.stmt]:
        """Copies of ``made``, the statements lowering ``stmt``: a node of ``stmt``, or a copy of
        one (``copy.deepcopy`` keeps the location: the same kind of node at the same span, where
        only one origin has it), keeps its location and where it came from
        (``KernelSource.foreign``: an inlined helper's line, frontend/rewrite.py); every other node
        takes the statement's, so that a refusal of a helper's extent names the helper's line and
        column, not the caller's."""
        foreign = self.source.foreign

        def origin(node: ast.AST) -> KernelSource | None:
            found = foreign.get(id(node))
            return found[1] if found is not None and found[0] is node else None

        own: dict[int, KernelSource | None] = {}
        spans: dict[tuple, list[KernelSource | None]] = {}
        for n in walk(stmt):  # (one walk: each node's origin, and the origins of each span)
            found = own[id(n)] = origin(n)
            if isinstance(n, (ast.expr, ast.stmt)):
                at = spans.setdefault((type(n), location_key(n)), [])
                if all(o is not found for o in at):
                    at.append(found)
        here = own[id(stmt)]
        out = []
        for node in made:
            copied = copy_tree(node)
            for old, new in zip(walk(node), walk(copied)):
                if not isinstance(new, (ast.expr, ast.stmt)):
                    continue
                placed = hasattr(old, "lineno")
                seen = spans.get((type(old), location_key(old)), []) if placed else []
                if (placed and id(old) in own) or len(seen) == 1:
                    kept = own[id(old)] if id(old) in own else seen[0]
                else:
                    kept = here
                    new.lineno, new.col_offset = stmt.lineno, stmt.col_offset
                    new.end_lineno, new.end_col_offset = stmt.end_lineno, stmt.end_col_offset
                if kept is not None:
                    foreign[id(new)] = (new, kept)
            out.append(copied)
        return out

    def gathered(self, target: ast.Subscript) -> bool:
        """Whether ``target`` indexes an array by an integer index array of the kernel (a name,
        or a view of one: ``x[idx]``, ``A[rows, cols]``, ``x[idx[::-1]]``), not a grid or a mask:
        NumPy's advanced indexing, whose read is a copy."""
        if not (isinstance(target.value, ast.Name) and target.value.id in self.names):
            return False
        items = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
        for item in items:
            root = item
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            entry = self.names.get(root.id) if isinstance(root, ast.Name) else None
            if entry is not None and entry.kind != "iota" and entry.dtype in INTS and self.array_valued(item) \
                    and not any(isinstance(n, (ast.Call, ast.BinOp)) for n in walk(item)):
                return True
        return False

    def buffered(self, stmt: ast.AugAssign, target: ast.Subscript) -> list[ast.stmt]:
        """``x[idx] += v`` through index arrays as Python runs it: ``g = x[idx]`` (a copy),
        ``g += v``, ``x[idx] = g`` (written in C order of the index, the last of a repeated
        position kept): NumPy's buffered update applies a repeated index once, with the last
        occurrence's value (``np.add.at`` applies each)."""
        name = self.fresh("g")
        self.copy_of[name] = (ast.unparse(target.value), ast.unparse(target))  # errors name x, not the copy
        parts: list[ast.stmt] = [
            ast.Assign([ast.Name(name, ast.Store())], _load(copy.deepcopy(target))),
            ast.AugAssign(ast.Name(name, ast.Store()), stmt.op, stmt.value),
            ast.Assign([copy.deepcopy(target)], ast.Name(name, ast.Load()))]
        for part in parts:
            ast.copy_location(part, stmt)
            ast.fix_missing_locations(part)
        return parts

    def unpack_shape(self, stmt: ast.Assign, target: ast.Tuple | ast.List, shape: ast.Attribute) -> list[ast.stmt]:
        """``rows, cols = M.shape`` (in a loop, or of a local array: the rewrite substitutes the top
        level's shapes of arguments) -> ``rows = M.shape[0]``, ``cols = M.shape[1]``; unpacking
        into another number of names is refused (a ValueError in Python)."""
        rank = self.value(shape.value).rank
        if len(target.elts) != rank or not all(isinstance(t, ast.Name) for t in target.elts):
            raise self.error(stmt, f"{len(target.elts)} names unpack {ast.unparse(shape)}, which has {rank} "
                             "extents (a ValueError in Python), or a target that is not a name", "shape unpacking")
        self.any_changed = True
        parts: list[ast.stmt] = [ast.Assign([name], ast.Subscript(copy.deepcopy(shape), ast.Constant(d), ast.Load()))
                                 for d, name in enumerate(target.elts)]
        for part in parts:
            _locate(part, stmt)
        return parts

    def copied_view(self, node: ast.expr) -> ast.expr:
        """``node.copy()`` where ``node`` is an array written as a name, subscript or attribute (a
        view of something); ``node`` itself otherwise."""
        if not (isinstance(node, (ast.Name, ast.Subscript, ast.Attribute)) and self.array_valued(node)) \
                or _selected_end_form(node, self.globals) is not None:  # np.nonzero(c)[0][0]: a scalar
            return node
        if isinstance(node, ast.Subscript) and _int_const(node.slice) in (0, -1) and (  # p[0] of p = x[m]: a scalar
                isinstance(node.value, ast.Name) and node.value.id in self.selections
                or _mask_array_read(node.value, self.names)):
            return node
        call = ast.Call(ast.Attribute(node, "copy", ast.Load()), [], [])
        return ast.copy_location(ast.fix_missing_locations(ast.copy_location(call, node)), node)

    def array_valued(self, node: ast.expr) -> bool:
        """Whether ``node`` has array values in it (an array, a slice, a NumPy call of one), not
        only elements and sizes of arrays (``x[i]``, ``x.shape[0]``): then ``t = a if c else b``
        is an ``if`` statement (``_branches``), so that only the branch that runs is lowered and
        assumes its extents."""
        if isinstance(node, ast.Name):
            return node.id in self.names or node.id in self.selections  # (p = x[mask]: p.max() reduces)
        if isinstance(node, ast.Attribute) and node.attr in ("shape", "size", "ndim", "dtype"):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.keywords \
                and module_of(node.func.value, self.globals) == "np" \
                and isinstance(getattr(np, node.func.attr, None), np.ufunc):
            return True  # np.add(a, b, dtype=np.float32) of scalars too: the NumPy lowering's (ufunc_in_dtype)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.names:
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return len(items) < self.names[node.value.id].rank \
                or any(isinstance(i, ast.Slice) or _is_ellipsis(i) or self.array_valued(i) for i in items)
        return any(self.array_valued(child) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr))

    def within_facts(self, facts: list[str], block: list[ast.stmt]) -> list[ast.stmt]:
        """``block`` lowered with ``facts`` known to hold (``require`` proves against them)."""
        self.facts.extend(facts)
        try:
            return self.lower_block(block)
        finally:
            del self.facts[len(self.facts) - len(facts):]

    def if_facts(self, test: ast.expr, holds: bool) -> list[str]:
        """The comparisons an if's ``test`` makes true in its body (``holds``) or its else
        branch: affine ones of loop variables, integer arguments the kernel never assigns and
        sizes, from a comparison (chained: ``0 < k < n``) or an ``and`` of them in the body, and
        the negation of a single comparison (``!=`` too) or of each part of an ``or`` of them in
        the else branch; the rest is left out (sound: fewer facts prove less)."""
        fixed = frozenset(p for p in self.params if not self.stores[p]) | {loop.var for loop in self.loops}
        if holds and isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return [f for value in test.values for f in self.if_facts(value, True)]
        if not holds and isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):  # not (a or b)
            return [f for value in test.values for f in self.if_facts(value, False)]
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.if_facts(test.operand, not holds)
        if _is_shape(test):  # if len(x): (an extent is never negative)
            return [f"{ast.unparse(test)} {'>=' if holds else '<'} 1"]
        if not isinstance(test, ast.Compare) or not all(is_affine(side, fixed)
                                                        for side in [test.left, *test.comparators]):
            return []
        if len(test.ops) == 1 and isinstance(test.ops[0], ast.NotEq if holds else ast.Eq):  # x.shape[0] != 0
            sides = [test.left, test.comparators[0]]  # (or the else branch of 'if x.shape[0] == 0:')
            if any(_int_const(side) == 0 for side in sides) and any(_is_shape(side) for side in sides):
                return [f"{ast.unparse(next(side for side in sides if _is_shape(side)))} >= 1"]
        pairs = list(zip([test.left, *test.comparators], test.ops, test.comparators))
        if holds:
            return [f"{ast.unparse(a)} {_OP_TEXT[type(op)]} {ast.unparse(b)}" for a, op, b in pairs
                    if type(op) in _OP_TEXT]
        if len(pairs) != 1 or type(pairs[0][1]) not in _NEGATED_TEXT:
            return []
        a, op, b = pairs[0]
        return [f"{ast.unparse(a)} {_NEGATED_TEXT[type(op)]} {ast.unparse(b)}"]

    def hoist_test(self, stmt: ast.If) -> list[ast.stmt] | None:
        """``if np.linalg.norm(r) < tol:`` (a test that reduces arrays): the test assigned to a
        fresh scalar local just before the ``if``, which Python evaluates once there too, then
        ``if pf_c:``; None when the test has no array values.  Tests with ``and``/``or``/``if``
        are left alone (Python may skip the part that reads arrays)."""
        if isinstance(stmt.test, ast.BoolOp) and all(_bool_valued(v) for v in stmt.test.values) \
                and not any(isinstance(n, ast.IfExp) for n in walk(stmt.test)):
            return self.split_test(stmt, stmt.test)
        if any(isinstance(n, (ast.BoolOp, ast.IfExp)) for n in walk(stmt.test)) \
                or self.masked_read(stmt.test) is not None:
            return None
        name = self.fresh("c")
        assign = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], stmt.test), stmt.test)
        saved = (self.assignments, dict(self.scalars), dict(self.assigned), dict(self.sizes), self.counter)
        lowered = self.lower_stmt(assign)
        if lowered == [assign]:  # no array values: the test stays as written
            self.assignments, self.scalars, self.assigned, self.sizes, self.counter = saved
            self.used.discard(name)
            return None
        if len(lowered) == 1 and isinstance(lowered[0], ast.Assign) and _is_shape(lowered[0].value):
            # (if x.size: of a temporary is its extent, a size: the test itself, whose facts
            # hold in the branches and which no data decides)
            self.assignments, self.scalars, self.assigned, self.sizes, self.counter = saved
            self.used.discard(name)
            return self.lower_stmt(_replace(stmt, test=ast.copy_location(lowered[0].value, stmt.test)))
        if name in self.names:
            raise self.error(stmt.test, "an array as an if test (NumPy raises ValueError: the truth value of an "
                             "array is ambiguous); reduce it to one value first", "if test")
        test = ast.copy_location(ast.Name(name, ast.Load()), stmt.test)
        return lowered + self.lower_stmt(_replace(stmt, test=test))

    def split_test(self, stmt: ast.If, test: ast.BoolOp) -> list[ast.stmt] | None:
        """``if a or b:`` (``and``; each operand a comparison, ``not`` or and/or of those) whose
        operands reduce arrays (``if fg.size == 0 or bg.size == 0:``): each operand evaluated
        where Python evaluates it, ``c = a``, ``if not c: c = b`` (``if c:`` for ``and``), then
        ``if c:``; None where no operand has array values (the test stays as written)."""
        name = self.fresh("c")
        steps: list[ast.stmt] = [ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], test.values[0]),
                                                   test.values[0])]
        for k, value in enumerate(test.values[1:], 1):
            before = test.values[:k]
            done: ast.expr = ast.Name(name, ast.Load())
            if all(_plain_test(v) for v in before):  # sizes and scalars: the test itself, so its facts hold
                done = copy.deepcopy(before[0]) if k == 1 else ast.BoolOp(test.op, copy.deepcopy(before))
            cond = done if isinstance(test.op, ast.And) else ast.UnaryOp(ast.Not(), done)
            assign = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), value)
            steps.append(ast.copy_location(ast.If(ast.copy_location(cond, value), [assign], []), value))
        for step in steps:
            ast.fix_missing_locations(step)
        saved = (self.assignments, dict(self.scalars), dict(self.assigned), dict(self.sizes), self.counter)
        conditional = set(self.conditional)
        later = test.values[1:]  # each evaluated by its own statement now, where Python evaluates it
        self.conditional -= {id(n) for v in later for n in walk(v)} - set().union(*map(_conditional_ids, later))
        firsts = [copy.deepcopy(step) for step in steps]
        lowered = [out for step in steps for out in self.lower_stmt(step)]
        if len(lowered) == len(firsts) and all(ast.dump(a) == ast.dump(b) for a, b in zip(lowered, firsts)):
            self.assignments, self.scalars, self.assigned, self.sizes, self.counter = saved
            self.conditional = conditional
            self.used.discard(name)
            return None
        test_name = ast.copy_location(ast.Name(name, ast.Load()), stmt.test)
        return lowered + self.lower_stmt(_replace(stmt, test=test_name))

    def merge_branches(self, test: ast.expr, bound: dict[str, ArrayName], body: list[ast.stmt],
                       else_block: tuple[int, ...], orelse: list[ast.stmt],
                       read_elsewhere: set[str] | frozenset[str] = frozenset()) -> tuple[list[ast.stmt], list[ast.stmt]]:
        """``if c: w = a * 2`` / ``else: w = b + 1``, then ``w`` read after the if: a temporary
        bound in both branches with one shape and dtype is one array, live after the if; the
        branches (``body``, ``orelse``) come back with their arrays renamed to it.  Extents are
        one shape when ``equal_extents`` says so (the else branch's array is renamed to the if
        branch's), or, for a test of sizes and integer arguments alone, when each call checks
        that they agree where the if branch runs (``not c or e1 == e2``, assumed like NumPy's
        broadcasting rules; the if branch's array is renamed to the else branch's, whose
        extents hold either way: npbench's contour_integral binds ``inv(Tz)`` under
        ``NR == NM`` and ``solve(Tz, Y)`` otherwise)."""
        to_mine: dict[str, str] = {}
        to_theirs: dict[str, str] = {}
        for name, mine in bound.items():
            theirs = self.names.get(name)
            theirs = None if theirs is None else self.as_temporary(theirs)
            if theirs is None or theirs.block != else_block or theirs.dtype != mine.dtype \
                    or theirs.rank != mine.rank:
                if _early_result(name) and theirs is not None and theirs.block == else_block:
                    self.early_why[name] = (f"one is {mine.dtype} of rank {mine.rank}, the other {theirs.dtype} "
                                            f"of rank {theirs.rank}")
                continue
            pairs = [(a, b) for a, b in zip(mine.extents, theirs.extents) if not self.equal_extents(a, b)]
            if not pairs:
                if theirs.array != mine.array:
                    to_mine[theirs.array] = mine.array
                self.names[name] = dataclasses.replace(mine, block=self.block, live=True)
            elif _early_result(name) and self.sizes_only(test) and not any(self.in_loop(e) for p in pairs for e in p) \
                    and (merged := self.merged_extents(test, mine, theirs)) is not None:
                # if nw <= 0: return np.zeros(0) ... out = np.empty(nw) ... return out: one array
                # of extents the call computes (0 if nw <= 0 else nw), each branch's as it runs
                to_theirs[mine.array] = theirs.array
                self.temporaries[theirs.array] = merged
                self.allocations = [_resized(a, theirs.array, merged) for a in self.allocations]
                self.names[name] = dataclasses.replace(theirs, extents=merged, block=self.block, live=True)
            elif self.sizes_only(test) and not any(self.in_loop(e) for pair in pairs for e in pair) \
                    and not any(self.never_equal(test, a, b) for a, b in pairs) \
                    and not _early_result(name):  # (early returns of other extents: refused where returned)
                for a, b in pairs:
                    self.assumed.append(ast.BoolOp(ast.Or(), [ast.UnaryOp(ast.Not(), copy.deepcopy(test)),
                                                              ast.Compare(a.node, [ast.Eq()], [b.node])]))
                to_theirs[mine.array] = theirs.array
                self.names[name] = dataclasses.replace(theirs, block=self.block, live=True)
            elif _early_result(name):
                self.early_why[name] = self.early_extents_why(test, pairs)
            elif not self.sizes_only(test) and name != EARLY_RESULT and name in read_elsewhere and not any(
                    self.in_loop(e) or _reads_data(e) for pair in pairs for e in pair) \
                    and not any(self.never_equal(test, a, b) for a, b in pairs):
                # a test of the data (alpha > 0.5), the name read outside the if: extents of the
                # sizes alone required equal and checked per call (``mismatch``: a call where they
                # differ is refused); a name read only inside its branches keeps two arrays
                for a, b in pairs:
                    self.mismatch(a, b)
                to_theirs[mine.array] = theirs.array
                self.names[name] = dataclasses.replace(theirs, block=self.block, live=True)
        dropped = set(to_mine) | set(to_theirs)
        for array in dropped:
            self.temporaries.pop(array, None)
        if dropped:
            self.allocations = [a for a in self.allocations
                                if not (isinstance(a, ast.Assign) and isinstance(a.targets[0], ast.Name)
                                        and a.targets[0].id in dropped)]
        if to_theirs:
            body = [_Renamed(to_theirs).visit(stmt) for stmt in body]
        if to_mine:
            orelse = [_Renamed(to_mine).visit(stmt) for stmt in orelse]
        return body, orelse

    def early_extents_why(self, test: ast.expr, pairs: list[tuple[Sym, Sym]]) -> str:
        """Why arrays of extents ``pairs`` returned on the two sides of ``test`` are not one array."""
        extents = ", ".join(f"{_user_text(a.text)!r} and {_user_text(b.text)!r}" for a, b in pairs)
        if not self.sizes_only(test):
            return (f"their extents {extents} differ under a test of array data or of a local the kernel "
                    f"changes, {ast.unparse(test)!r}, which the call cannot compute first")
        return (f"their extents {extents} differ, one known only as the kernel runs (a count); return one "
                "array on every path: drop the early return where the rest gives the same (a count of 0 "
                "allocates np.empty(0)), or allocate the largest size and return buf[:k]")

    def merged_extents(self, test: ast.expr, mine: ArrayName, theirs: ArrayName) -> tuple[Sym, ...] | None:
        """The extents of one array for ``mine`` (bound where ``test`` holds) and ``theirs`` (where
        it fails), temporaries of other extents: each differing pair ``a``, ``b`` a size the call
        computes, ``a if test else b`` (frontend.call_sizes), that isl knows is ``a`` where the
        test holds and ``b`` where it fails (assumed, and so checked per call: true by its
        making).  None where an extent or the test is not of the call's forms, or ``theirs`` is
        not a whole temporary this lowering allocated."""
        if theirs.array not in self.temporaries \
                or sum(_allocates(a, theirs.array) is not None for a in self.allocations) != 1:
            return None
        merged: list[Sym] = []
        facts: list[ast.expr] = []
        for a, b in zip(mine.extents, theirs.extents):
            if self.equal_extents(a, b):
                merged.append(b)
                continue
            size = self.call_time_size(ast.IfExp(copy.deepcopy(test), a.node, b.node))
            if size is None:
                return None
            merged.append(size)
            facts.append(ast.BoolOp(ast.Or(), [ast.UnaryOp(ast.Not(), copy.deepcopy(test)),
                                               ast.Compare(size.node, [ast.Eq()], [a.node])]))
            facts.append(ast.BoolOp(ast.Or(), [copy.deepcopy(test), ast.Compare(size.node, [ast.Eq()], [b.node])]))
        self.assumed.extend(facts)
        return tuple(merged)

    def never_equal(self, test: ast.expr, a: Sym, b: Sym) -> bool:
        """Whether ``a`` and ``b`` differ wherever ``test`` holds (``x[1:]`` and ``x`` under
        ``k > 0``): then no call could take the if branch, and the names stay apart."""
        facts = self.if_facts(test, True)
        self.facts.extend(facts)
        try:
            return self.proven(f"{a.text} < {b.text}") or self.proven(f"{a.text} > {b.text}")
        finally:
            del self.facts[len(self.facts) - len(facts):]

    def sizes_only(self, test: ast.expr) -> bool:
        """Whether an if's ``test`` is affine comparisons of sizes and integer arguments the
        kernel never assigns (the same in every iteration: a call can check it first)."""
        fixed = frozenset(p for p in self.params if not self.stores[p])
        if isinstance(test, ast.BoolOp):
            return all(self.sizes_only(value) for value in test.values)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.sizes_only(test.operand)
        return isinstance(test, ast.Compare) and all(type(op) in _OP_TEXT for op in test.ops) \
            and all(is_affine(side, fixed) for side in [test.left, *test.comparators])

    def as_temporary(self, entry: ArrayName) -> ArrayName | None:
        """``entry`` as a temporary of its block: itself, or a name for all of a temporary the
        block allocated (``X = A @ B``: the product's array); None for anything else."""
        if entry.kind == "temp":
            return entry
        if entry.kind == "view" and self.whole_temporary(entry.view):
            return dataclasses.replace(entry, kind="temp", view=None)
        return None

    def own_helper(self, node: ast.AST) -> bool:
        """Whether ``node`` comes from one of polyfuse's own helpers (frontend/builtin_helpers.py),
        whose asserts may raise NumPy's errors (``("ValueError", "...")``); a user's may not."""
        origin = self.source.foreign.get(id(node))
        if origin is not None and origin[0] is node and origin[1].at is not None:
            return True
        return bool(self.source.inlined) and location_key(node) in self.source.inlined

    def lower_assert(self, stmt: ast.Assert) -> list[ast.stmt]:
        """``assert A.shape[0] == B.shape[1], "..."`` at the top level: taken out of the body and
        checked per call (AssertionError, before the kernel runs; isl also knows it holds after).
        ``np.shares_memory(x, y)`` in the test is decided here when either array is one the
        kernel allocated.  Any other assert (of array values, inside a loop or branch) stays, to
        be checked where it runs (frontend.control.lift_assert)."""
        message = None
        if stmt.msg is not None and self.own_helper(stmt) and assert_message(stmt.msg) is not None:
            return [stmt]  # ("ValueError", "...") of polyfuse's own helpers: NumPy's error where it runs
        # the user's raise ValueError("...") (frontend/numba_idioms.py): checked where it runs, its exception kept
        raised = location_key(stmt) in self.source.raises and assert_message(stmt.msg) is not None
        if stmt.msg is not None and not raised:
            if not (isinstance(stmt.msg, ast.Constant) and isinstance(stmt.msg.value, str)):
                raise self.error(stmt.msg, "assert with a message other than a string literal", "assert statement")
            message = stmt.msg.value
        if self.at_top and not raised:
            test = _SharedMemory(self).visit(_ViewShapes(self).visit(copy.deepcopy(stmt.test)))
            if self.affine_test(test):
                self.assertions.append(Assertion(test, message))
                self.changed = self.any_changed = True
                return []
        test = self.known_extents(stmt.test)
        ok = self.fresh("assert_ok")  # an array value in the test (np.all(x > 0)): lowered as a local's value
        assign = ast.copy_location(ast.Assign([ast.Name(ok, ast.Store())], test), stmt)
        lowered = self.lower_stmt(assign)
        if lowered == [assign]:
            return [_replace(stmt, test=test)]
        return lowered + [_replace(stmt, test=ast.copy_location(ast.Name(ok, ast.Load()), stmt.test))]

    def affine_test(self, node: ast.expr) -> bool:
        """Whether ``node`` is and/or/not of affine comparisons of sizes and integer arguments."""
        if isinstance(node, ast.BoolOp):
            return all(self.affine_test(v) for v in node.values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self.affine_test(node.operand)
        if isinstance(node, ast.Compare):
            return all(is_affine(side, self.params) for side in [node.left, *node.comparators]) and \
                not any(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in node.ops)
        return isinstance(node, ast.Constant) and isinstance(node.value, bool)

    def shared_memory(self, node: ast.Call) -> bool:
        """``np.shares_memory(x, y)`` / ``np.may_share_memory``: False when either is an array the
        kernel allocated (or a view of one) and the other is not a view of the same array."""
        bases = []
        for arg in node.args:
            entry = self.lookup(arg) if isinstance(arg, ast.Name) else None
            if entry is None:
                raise self.error(arg, f"{ast.unparse(node.func)}() of other than array names", "assert statement")
            bases.append((entry.read().base or entry.array, entry.kind == "arg"
                          or (entry.kind == "view" and entry.view is not None and entry.view.base in self.args)))
        (a, a_arg), (b, b_arg) = bases
        if a == b:
            return True
        if a_arg and b_arg:
            raise self.error(node, f"{ast.unparse(node)}: whether two arguments share memory is known only at "
                             "the call (polyfuse checks the aliasing it cannot handle itself)", "assert statement")
        return False

    def while_true(self, stmt: ast.While) -> ast.While:
        """``while (y > t).any() and k < 20:`` (a test with array values) as ``while True:``,
        ``go = <test>``, ``if not go: break``, then the body: the test computed before each
        iteration, as Python evaluates it (a ``continue`` comes back to it, a ``break`` leaves)."""
        name = self.fresh("go")
        test = ast.copy_location(ast.Assign([ast.copy_location(ast.Name(name, ast.Store()), stmt.test)], stmt.test),
                                 stmt.test)
        leave = ast.copy_location(ast.If(ast.UnaryOp(ast.Not(), ast.Name(name, ast.Load())),
                                         [ast.copy_location(ast.Break(), stmt.test)], []), stmt.test)
        made = ast.copy_location(ast.While(ast.Constant(True), [test, leave, *stmt.body], []), stmt)
        ast.fix_missing_locations(made)
        for node in walk(leave):
            if hasattr(node, "lineno"):
                ast.copy_location(node, stmt.test)
        self.any_changed = True
        return made

    def lower_return(self, stmt: ast.Return) -> list[ast.stmt]:
        """``return e / e.sum(axis=-1, keepdims=True)``: each returned array expression (or
        reduction) is bound to a fresh name first, which frontend.returns then returns.  A
        temporary is returned as the array its name means now; a view of an argument (``return
        x.T``) as that view, made per call (``argument_view``); any other view as a copy."""
        assert stmt.value is not None
        name = self.linalg_tuple(stmt.value)
        if name is not None:
            fields = ", ".join(LINALG_TUPLES[name])
            raise self.error(stmt.value, f"return np.linalg.{name}(...) itself (NumPy returns a tuple of {fields}); "
                             f"unpack it into names first and return those", "np.linalg")
        if _is_numpy_call(stmt.value, "histogram", self.globals):  # return np.histogram(...): both arrays
            names = [self.fresh("ret"), self.fresh("ret")]
            unpack = ast.copy_location(ast.Assign([ast.copy_location(ast.Tuple(
                [ast.copy_location(ast.Name(n, ast.Store()), stmt) for n in names], ast.Store()), stmt)],
                stmt.value), stmt)
            both = ast.Return(ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load()))
            _locate(both, stmt)
            return self.lower_stmt(unpack) + self.lower_stmt(both)
        if isinstance(stmt.value, ast.IfExp) and self.array_valued(stmt.value):
            # return a if c else b: bound by an if statement, then returned by name; a branch that is a
            # view (an argument, a slice) is returned copied, as the views of an if's branches are not
            # one array after it (equal values, another array: NumPy returns the view itself).  Scalars
            # too where anything in it reduces or reads whole arrays (nested conditionals as nested ifs):
            # the name's each assignment keeps its Python type (1.0 where the test fails, np.float64
            # where it holds: frontend.returns).  A choice of scalars of elements and sizes alone is
            # returned as written: frontend.returns gives it the type of the branch that runs, and
            # its value exactly (x_f32[0] if c else 0.1 is the float 0.1 where c fails, not float32's)
            name = self.fresh("ret")
            chosen = self.returned_branches(stmt, name, stmt.value)
            self.any_changed = True
            named = ast.copy_location(ast.Return(ast.copy_location(ast.Name(name, ast.Load()), stmt.value)), stmt)
            return self.lower_stmt(chosen) + self.lower_stmt(named)
        before: list[ast.stmt] = []
        self.assignments_at_return = self.assignments
        value, changed = self.returned_item(stmt.value, (), before)
        if not changed:
            return [stmt]
        return before + [ast.copy_location(ast.Return(value), stmt)]

    def returned_item(self, elt: ast.expr, path: tuple[int, ...], before: list[ast.stmt]) -> tuple[ast.expr, bool]:
        """One item of the final return at ``path`` (its positions in the nested tuples; ``()``
        the whole value) as the expression the return gives back, the statements binding it
        appended to ``before``; whether anything changed.  A tuple display inside the returned
        tuple (``return a, np.divmod(x, y)``, ``return (m, s), x``) is a tuple of items again, as
        NumPy returns it nested."""
        if isinstance(elt, ast.Tuple):
            starts, items = [], []
            for k, e in enumerate(elt.elts):
                starts.append(len(before))
                items.append(self.returned_item(e, (*path, k), before))
            if not any(changed for _, changed in items):
                return elt, False
            self.bound_in_order(items, starts, before)
            return ast.copy_location(ast.Tuple([e for e, _ in items], ast.Load()), elt), True
        extents = self.returned_shape(elt, before)
        if extents is not None:  # return Y.shape of a temporary: the tuple of its extents (Python ints)
            return self.returned_item(extents, path, before)[0], True
        name = elt.id if isinstance(elt, ast.Name) else self.fresh("ret")
        changed = False
        if not isinstance(elt, ast.Name):
            assign = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], elt), elt)
            self.assignments = self.assignments_at_return  # the items bind fresh names: each reads what the return does
            lowered = self.lower_stmt(assign)
            if len(lowered) == 1 and lowered[0] is assign and not is_allocation(elt, self.globals):
                return elt, False  # no NumPy in it: return it as written
            before.extend(lowered)
            changed = self.any_changed = True  # (return np.zeros(n): a local array, returned)
            if name in self.selections:  # return x[x > 0]
                raise self.error(elt, "a boolean-mask selection returned (its length depends on the data: "
                                 "a data-dependent shape); return np.where(mask, x, 0) or reduce it (np.sum, "
                                 "np.prod, np.mean of the selection are supported)", "boolean mask")
        entry = self.lookup(elt) if isinstance(elt, ast.Name) else self.names.get(name)  # refuses a dead one
        if entry is not None and not isinstance(elt, ast.Name) and (not entry.live or entry.stale):
            # (an item 'a if c else b' bound by an if statement: not one array after it)
            raise self.error(elt, "a returned item computed in branches that give arrays of different extents "
                             "or kinds (not one array after them); return from each branch instead",
                             "array temporary")
        view = self.argument_view(entry.view) if entry is not None and entry.kind == "view" else None
        if view is not None:  # a view of an argument: returned as the view itself, as NumPy does
            self.returned_views[path] = view
            return ast.copy_location(ast.Name(view.name, ast.Load()), elt), True
        if entry is not None and entry.kind == "view" and self.whole_temporary(entry.view):
            name, entry, changed = entry.array, None, True  # a product's result, say: no copy needed
        if entry is not None and entry.kind in ("view", "iota"):
            copied = self.fresh("ret")
            call = ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "copy", ast.Load()), [], [])
            before.extend(self.lower_stmt(ast.copy_location(ast.Assign([ast.Name(copied, ast.Store())], call),
                                                            elt)))
            name, entry, changed = copied, self.names.get(copied), True
        if entry is not None and entry.array != name:
            name, changed = entry.array, True  # a rebound temporary: its latest array
        return ast.copy_location(ast.Name(name, ast.Load()), elt), changed

    def bound_in_order(self, items: list[tuple[ast.expr, bool]], starts: list[int], before: list[ast.stmt]) -> None:
        """Python evaluates a returned tuple's items in order: an item returned as written that
        reads an element (and may raise IndexError) is bound to a fresh name where it stands,
        before the statements of the later items (``return u[0], u.max()`` of an empty
        ``np.unique``: IndexError, not max's ValueError)."""
        for k in reversed(range(len(items))):
            value, changed = items[k]
            later = any(c for _, c in items[k + 1:])
            if changed or not later or not any(isinstance(n, ast.Subscript) for n in walk(value)):
                continue
            name = self.fresh("ret")
            assign = ast.copy_location(ast.Assign([ast.copy_location(ast.Name(name, ast.Store()), value)], value),
                                       value)
            before[starts[k]:starts[k]] = [assign]
            items[k] = (ast.copy_location(ast.Name(name, ast.Load()), value), True)

    def returned_shape(self, elt: ast.expr, before: list[ast.stmt]) -> ast.Tuple | None:
        """A returned ``E.shape`` of an array expression the lowering knows (a temporary, a view,
        ``(X * 2).shape``, ``np.vstack(...).shape``) as the tuple ``(t.shape[0], ...)``, ``t``
        ``E``'s name or a fresh name bound to ``E`` first (NumPy evaluates ``E`` too); None for
        anything else (an argument's shape is frontend.rewrite's)."""
        if not (isinstance(elt, ast.Attribute) and elt.attr == "shape" and self.array_valued(elt.value)):
            return None
        base = elt.value
        if not isinstance(base, ast.Name):
            base = ast.copy_location(ast.Name(self.fresh("shp"), ast.Load()), elt.value)
            assign = ast.copy_location(ast.Assign([ast.Name(base.id, ast.Store())], elt.value), elt.value)
            self.assignments = self.assignments_at_return
            before.extend(self.lower_stmt(assign))
        entry = self.lookup(base)
        if entry is None:
            return None
        dims: list[ast.expr] = [ast.Subscript(ast.Attribute(ast.Name(base.id, ast.Load()), "shape", ast.Load()), ast.Constant(d),
                              ast.Load()) for d in range(entry.rank)]
        made = ast.copy_location(ast.Tuple(dims, ast.Load()), elt)
        _locate(made, elt)
        return made

    def returned_branches(self, stmt: ast.Return, name: str, value: ast.expr) -> ast.stmt:
        """``name = value`` with each ``a if c else b`` of ``value``'s top (nested in its branches
        too) an if statement, each branch's view copied."""
        if not isinstance(value, ast.IfExp):
            return ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], self.copied_view(value)), stmt)
        self.conditional -= _branch_ids(value)  # each branch is a statement now
        return ast.copy_location(ast.If(value.test, [self.returned_branches(stmt, name, value.body)],
                                        [self.returned_branches(stmt, name, value.orelse)]), stmt)

    def argument_view(self, view: View | None) -> Returned | None:
        """``view`` as a view of an argument made at call time (frontend.returns' "view"): each
        argument subscript of its element linear in the view's index with integer steps; None
        for anything else (a view of a temporary, a cast, a gather), which is returned copied."""
        if view is None or view.base not in self.args:
            return None
        probes = tuple(atom(f"pf_probe{d}") for d in range(view.rank))
        element = view.element(probes)
        if not (isinstance(element, ast.Subscript) and isinstance(element.value, ast.Name)
                and element.value.id == view.base):
            return None
        items = element.slice.elts if isinstance(element.slice, ast.Tuple) else [element.slice]
        starts, steps = [], [[0] * len(items) for _ in probes]
        for d, item in enumerate(items):
            index = sym_of(item)
            if index.opaque is not None:
                return None
            rest = Sym(tuple((a, c) for a, c in index.terms if not a.startswith("pf_probe")), index.const)
            if "pf_probe" in rest.text:
                return None
            for a, c in index.terms:
                if a.startswith("pf_probe"):
                    steps[int(a[len("pf_probe"):])][d] = c
            starts.append(rest.text)
        return Returned("view", view.base, shape=tuple(e.text for e in view.extents), start=tuple(starts),
                        steps=tuple(tuple(s) for s in steps))

    def copyto(self, stmt: ast.Expr, call: ast.Call) -> ast.Assign:
        """``np.copyto(dst, src)`` is ``dst[...] = src`` (``src`` broadcast) where NumPy's
        ``casting`` rule, 'same_kind' unless 'unsafe' is given, admits the store."""
        positional = dict(zip(("dst", "src", "casting", "where"), call.args))
        named = self.keywords(call, ("dst", "src", "casting", "where"))
        given = positional | named
        casting = given.get("casting", ast.Constant("same_kind"))
        rule = casting.value if isinstance(casting, ast.Constant) else None
        if len(call.args) > 4 or positional.keys() & named.keys() or not {"dst", "src"} <= given.keys() \
                or rule not in ("same_kind", "unsafe"):
            raise self.error(call, "np.copyto other than (dst, src, where=) with casting='same_kind' (the default) "
                             "or 'unsafe'", "np.copyto")
        dst, src = self.value(given["dst"]), self.value(given["src"])
        if dst.rank == 0:
            raise self.error(given["dst"], f"np.copyto into {ast.unparse(given['dst'])!r}, which is not an array "
                             "(a TypeError in NumPy)", "np.copyto")
        weak = src.vtype if src.rank == 0 else VType(src.vtype.dtype, False)  # an array is a numpy value
        if weak.dtype == "unknown" and self.final:
            raise self.error(given["src"], "cannot tell the dtype of np.copyto's source here", "np.copyto")
        if weak.dtype != "unknown" and not casts(weak, dst.vtype.dtype, "unsafe" if rule == "unsafe" else "same_kind"):
            raise self.error(call, f"np.copyto from {weak.dtype} into {dst.vtype.dtype}: NumPy refuses this cast "
                             f"under casting={rule!r}", "np.copyto cast")
        value = given["src"]
        if "where" in given and not (isinstance(given["where"], ast.Constant) and given["where"].value is True):
            if self.value(given["where"]).vtype.dtype != "bool":
                raise self.error(given["where"], "np.copyto where= other than a boolean array", "np.copyto")
            value = _masked_source(given, dst.vtype.dtype, src.rank)  # np.where(mask, src as dst's dtype, dst)
        assign = ast.Assign([ast.Subscript(given["dst"], ast.Constant(Ellipsis), ast.Store())], value)
        _locate(assign, stmt)
        return assign

    def out_copy(self, stmt: ast.Expr, call: ast.Call) -> ast.Expr:
        """``np.<ufunc>(..., out=y)`` (``np.clip`` too) as a statement is ``np.copyto(y, np.<ufunc>(...))``:
        the value computed in full, then stored with the ufunc's output rule, casting='same_kind'
        (``np.exp(x, out=x)``, ``np.multiply(a, 2, out=a)``, ``np.clip(x, -1, 1, out=x)``)."""
        out = [kw.value for kw in call.keywords if kw.arg == "out"][0]
        if isinstance(out, ast.Tuple) and len(out.elts) == 1:
            out = out.elts[0]
        value = ast.Call(call.func, call.args, [kw for kw in call.keywords if kw.arg != "out"])
        copyto = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "copyto", ast.Load())
        stored = ast.Call(copyto, [out, value], [])
        made = ast.Expr(stored)
        _locate(copyto, call)
        ast.copy_location(made, stmt)
        ast.copy_location(stored, call)
        self.any_changed = True
        return made

    def out_store(self, stmt: ast.Expr, call: ast.Call) -> ast.Assign:
        """``np.maximum.accumulate(x, out=y)`` (``np.cumsum``, ``np.cumprod``) as a statement is
        ``y[...] = np.maximum.accumulate(x)``: NumPy accumulates in the input's dtype and casts
        into ``out`` unsafely, as an assignment does (``out=x``, the forward fill's in-place
        running maximum, reads each element before it writes it: the value computed in full)."""
        out = [kw.value for kw in call.keywords if kw.arg == "out"][0]
        value = ast.Call(call.func, call.args, [kw for kw in call.keywords if kw.arg != "out"])
        assign = ast.Assign([ast.Subscript(out, ast.Constant(Ellipsis), ast.Store())], value)
        ast.copy_location(value, call)
        _locate(assign, stmt)
        self.any_changed = True
        return assign

    def fill_diagonal(self, stmt: ast.Expr, call: ast.Call) -> ast.For:
        """``np.fill_diagonal(a, val)`` of a 2-d array and a scalar is ``for k in range(min(a.shape[0],
        a.shape[1])): a[k, k] = val`` with ``val`` converted to ``a``'s dtype as NumPy's flat
        assignment converts it (unsafe: ``2.7`` into an integer array is ``2``)."""
        if len(call.args) != 2 or call.keywords:
            raise self.error(call, "np.fill_diagonal(a, val) other than of two arguments (wrap= is not "
                             "supported)", "np.fill_diagonal")
        a, val = self.value(call.args[0]), self.value(call.args[1])
        if a.rank != 2 or val.rank != 0:
            raise self.error(call, f"np.fill_diagonal() of a {a.rank}-d array and a {val.rank}-d value (only a 2-d "
                             "array and a scalar)", "np.fill_diagonal")
        if val.vtype.is_complex and not a.vtype.is_complex:
            raise self.error(call.args[1], "np.fill_diagonal() of a complex value into a real array", "np.fill_diagonal")
        k = self.fresh("diag")
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_" if a.vtype.dtype == "bool" else a.vtype.dtype,
                             ast.Load())
        extent = smin(a.extents[0], a.extents[1]).node
        target = ast.Subscript(copy.deepcopy(call.args[0]),
                               ast.Tuple([ast.Name(k, ast.Load()), ast.Name(k, ast.Load())], ast.Load()), ast.Store())
        body = ast.Assign([target], ast.Call(cast, [copy.deepcopy(call.args[1])], []))
        loop = ast.For(ast.Name(k, ast.Store()), ast.Call(ast.Name("range", ast.Load()), [extent], []), [body], [])
        _locate(loop, stmt)
        self.any_changed = True
        return loop

    def lower_assign(self, stmt: ast.Assign | ast.AugAssign) -> list[ast.stmt]:
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
        shaped = [t for t in getattr(stmt, "targets", [target]) if isinstance(t, ast.Attribute) and t.attr == "shape"]
        if shaped:
            return self.shape_assign(stmt, shaped[0])
        if len(getattr(stmt, "targets", [target])) != 1:
            return [stmt]
        if isinstance(stmt, ast.Assign) and isinstance(target, (ast.Tuple, ast.List)) \
                and _is_numpy_call(stmt.value, "histogram", self.globals):
            return self.unpack_histogram(stmt, target)
        if isinstance(stmt, ast.Assign) and isinstance(target, (ast.Tuple, ast.List)) \
                and self.linalg_tuple(stmt.value) is not None:
            return self.unpack_linalg(stmt, target)
        grids = self.indexing.unpack(self, stmt.value) if isinstance(target, (ast.Tuple, ast.List)) else None
        if grids is not None and isinstance(target, (ast.Tuple, ast.List)):
            return self.unpack_grid(stmt, target, grids)
        if isinstance(stmt, ast.Assign) and isinstance(target, (ast.Tuple, ast.List)):
            unpacked = self.forms.unpack(self, stmt, target) if self.forms is not None else None
            if unpacked is not None:
                return unpacked
        if isinstance(stmt, ast.Assign) and isinstance(target, ast.Name):
            if is_allocation(stmt.value, self.globals):
                call = self.known_shapes(stmt.value)
                self.nonnegative_extents(stmt, target.id, call)
                if not self.at_top:
                    return self.bind_allocation(stmt, target.id, call)
                self.declare_local(target.id, call)
                return [ast.Assign([target], call)]
            return self.bind_name(stmt, target.id)
        if isinstance(target, ast.Name):
            entry = self.lookup(target)
            if entry is None:  # a scalar local
                assert isinstance(stmt, ast.AugAssign), "name = value went to bind_name"
                value = self.value(stmt.value)
                self.note_scalar(target.id, promote_any(self.scalars.get(target.id, value.vtype), value.vtype))
                if value.rank:
                    raise self.error(stmt, f"in-place operation on scalar {target.id!r} with an array",
                                     "broadcast")
                if isinstance(stmt.op, (ast.FloorDiv, ast.Mod, ast.Pow)):  # s //= 2 is s = s // 2 (desugar)
                    self.changed = True
                    out = ast.BinOp(ast.Name(target.id, ast.Load()), stmt.op, value.element(()))
                    return [ast.Assign([ast.Name(target.id, ast.Store())], out)]
                return [ast.AugAssign(ast.Name(target.id, ast.Store()), stmt.op, value.element(()))]
            target = ast.Subscript(target, ast.Constant(Ellipsis), ast.Store())
            self.changed = True
        if not isinstance(target, ast.Subscript):
            return [stmt]
        root: ast.expr = target
        while isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        written = self.names.get(root.id) if isinstance(root, ast.Name) else None
        if written is not None and written.kind == "iota":
            raise self.error(target, f"a write into index grid {ast.unparse(root)!r} (polyfuse keeps grids as formulas); "
                             "copy it first (np.ogrid[...][0].copy()) or write into an array", "index grid")
        if written is not None:  # after the value is read (lower_stmt): NumPy reads it all first
            self.written = (stmt, written.array)
        masked = self.masked_store(stmt, target)
        if masked is not None:
            return masked
        view = self.value(target, store=True)
        self.not_into_a_copy(target, view)
        # a product summed into the target, or a join stored piece by piece, writes each position
        # once only where the target's subscripts are not read from index arrays (X[J, I] = A @ b
        # with a repeated position summed both rows into it; NumPy keeps the last)
        direct = isinstance(stmt, ast.Assign) and not (
            view.rank and _reads_index_arrays(_slice_of(view.element(tuple(atom(f"pf_probe{d}")
                                                                           for d in range(view.rank))))))
        into = self.products.store(self, stmt, view) if direct and isinstance(stmt, ast.Assign) else None
        if into is None and direct and isinstance(stmt, ast.Assign):
            into = self.joins.store(self, stmt, view)
        if into is not None:  # C[:] = A @ B sums into C, out[:] = np.concatenate(...) is stored piece by piece
            return into
        if isinstance(stmt.value, (ast.Tuple, ast.List)) and view.rank:  # x[i] = 0, 0: NumPy's array of the values
            if view.vtype.dtype in INTS:  # NumPy converts the display with the target's dtype: out of range raises
                info = np.iinfo(view.vtype.dtype)
                for item in stmt.value.elts:
                    number = _int_const(item)
                    if number is not None and not info.min <= number <= info.max:
                        raise self.error(item, f"{number} stored into {view.vtype.dtype} array {view.base!r} (an "
                                         "OverflowError in NumPy)", "integer overflow")
            value = self.listed(stmt.value, None, "assigning")
        else:
            value = self.value(stmt.value)
        if isinstance(stmt, ast.AugAssign):
            assert isinstance(stmt, ast.AugAssign)
            value = self.binop(stmt, stmt.op, view, value)
            if view.vtype.is_int and value.vtype.is_float and view.rank:
                raise self.error(stmt, f"in-place {OPERATORS[type(stmt.op)]}= of a float value into integer "
                                 f"array {self.shown(view.base)}; NumPy refuses this cast", "in-place cast")
            if view.vtype.is_int and value.vtype.is_float:
                # one element (M[i] += 0.5): Python reads it, adds, and stores the float back, which
                # NumPy's element store truncates, as for M[i] = M[i] + 0.5; only arrays refuse the cast
                self.changed = True
            if type(stmt.op) in BITWISE and view.rank and UNKNOWN not in (view.vtype, value.vtype) \
                    and not np.can_cast(value.vtype.dtype, view.vtype.dtype, "same_kind"):
                raise self.error(stmt, f"in-place {BITWISE[type(stmt.op)]}= gives {value.vtype.dtype}, which NumPy "
                                 f"refuses to cast into {view.vtype.dtype} array {self.shown(view.base)} (same_kind)",
                                 "in-place cast")
        if view.rank == 0 and value.rank == 0:
            single = stmt if not self.changed else ast.Assign([_store(view.element(()))], value.element(()))
            self.element_stores.append(single)  # one scalar into one element: NumPy checks it
            return [single]
        return self.store(stmt, view, value)

    def unpack_grid(self, stmt: ast.Assign | ast.AugAssign, target: ast.Tuple | ast.List,
                    views: list[View]) -> list[ast.stmt]:
        """``i, j, k = np.ogrid[...]`` (or mgrid, np.indices): each name an index grid."""
        assert isinstance(stmt, ast.Assign)
        if len(views) != len(target.elts) or not all(isinstance(t, ast.Name) for t in target.elts):
            raise self.error(stmt, f"unpacking {ast.unparse(stmt.value)}, which holds {len(views)} grids, into "
                             f"{ast.unparse(target)} (NumPy: ValueError unless one plain name per grid)",
                             "index grid")
        self.changed = True
        bound: list[ast.stmt] = []
        for name, view in zip(target.elts, views):
            assert isinstance(name, ast.Name)
            # a grid the kernel writes into is an array of its values: bind_name's statements fill it
            bound += self.bind_name(assign_like(name.id, stmt.value, stmt), name.id, view)
        return bound

    def shape_assign(self, stmt: ast.Assign | ast.AugAssign, target: ast.Attribute) -> list[ast.stmt]:
        """``X.shape = (n, m)``: NumPy reshapes ``X`` in place (no copy, or an error).  polyfuse's
        reshape may copy, so a later write into ``X`` would reach one of the two only: refused."""
        raise self.error(target, f"assignment to {ast.unparse(target)} (an in-place reshape); bind a new "
                         f"name instead: {ast.unparse(target.value)}2 = {ast.unparse(target.value)}.reshape(...)",
                         "shape assignment")

    def element_reads(self, test: ast.expr) -> ast.expr:
        """An if's or while's test kept as written (``and``/``or``/``if`` in it: Python may skip
        parts) with each element read of an array this lowering renamed or made a view of
        (``s = np.sort(x)`` then ``i == 0 or s[i] != s[i - 1]``) written as that element."""
        lowering = self

        class _Reads(ast.NodeTransformer):
            def visit_Subscript(self, node: ast.Subscript):
                if not (isinstance(node.value, ast.Name) and node.value.id in lowering.names
                        and isinstance(node.ctx, ast.Load)):
                    return self.generic_visit(node)
                read = lowering.value(node)
                if read.rank:
                    return node
                lowering.any_changed = True
                element = read.element(())
                _locate(element, node)
                return element

        if not any(isinstance(n, (ast.BoolOp, ast.IfExp)) for n in walk(test)):
            return test
        return _Reads().visit(copy.deepcopy(test))

    def known_extents(self, node: ast.expr) -> ast.expr:
        """``node`` (a loop's range, an if's test) with ``v.shape[d]`` of the temporaries, views
        and local arrays replaced by their extents; ``node`` itself when it has none."""
        self.changed = False
        replaced = _ViewShapes(self).visit(copy_tree(node))
        if not self.changed:
            return node
        self.any_changed = True
        _locate(replaced, node)
        return replaced

    def known_shapes(self, call: ast.Call) -> ast.Call:
        """An allocation with ``v.shape[d]`` and ``v.shape`` of the temporaries, views and local
        arrays this lowering knows replaced by their extents (the lifter knows only arguments'),
        and a dtype named by a global (``np_float = np.float64``) as ``np.float64``."""
        call = _ViewShapes(self).visit(copy.deepcopy(call))
        call = self.like_of_temporary(call)
        count = ALLOCATORS[call.func.attr][0] if isinstance(call.func, ast.Attribute) else 1
        if len(call.args) > count:
            call.args[count] = self.dtype_named(call.args[count])
        for kw in call.keywords:
            if kw.arg == "dtype":
                kw.value = self.dtype_named(kw.value)
        if call.args and not ALLOCATORS[call.func.attr][1]:  # type: ignore[attr-defined]  # np.<allocator>
            call.args[0] = self.product_shape(call.args[0])
        shape, part = _shape_part(call.args[0]) if call.args else (None, slice(None))
        if isinstance(shape, ast.Attribute) and shape.attr == "shape" and isinstance(shape.value, ast.Name):
            entry = self.lookup(shape.value)
            if entry is not None and (entry.kind != "arg" or part != slice(None)):
                self.changed = True
                call.args[0] = ast.Tuple([self.length(e).node for e in entry.extents[part]], ast.Load())
        return call

    def like_of_temporary(self, call: ast.Call) -> ast.Call:
        """``np.zeros_like(order)`` (``empty``, ``ones``, ``full``) of a name this lowering binds to
        a temporary or view (a helper's result: ``order = np.argsort(x)``), which the lifter does
        not know by that name: ``np.zeros(shape, dtype)`` of its extents and dtype (or the
        ``dtype=`` given)."""
        if not (isinstance(call.func, ast.Attribute) and call.func.attr in ALLOCATORS
                and ALLOCATORS[call.func.attr][1] and call.args and isinstance(call.args[0], ast.Name)):
            return call
        entry = self.lookup(call.args[0])
        if entry is None or entry.kind in ("arg", "local") or entry.dtype not in _DTYPE_NAMES \
                or any(k.arg not in ("dtype", "fill_value") for k in call.keywords):
            return call
        count = ALLOCATORS[call.func.attr][0]
        shape = ast.Tuple([self.length(e).node for e in entry.extents], ast.Load())
        given = call.args[count] if len(call.args) > count else next(
            (k.value for k in call.keywords if k.arg == "dtype"), None)
        dtype = given if given is not None else ast.Attribute(
            ast.Name(NP_NAME, ast.Load()), "bool_" if entry.dtype == "bool" else entry.dtype, ast.Load())
        self.changed = True
        return ast.copy_location(ast.Call(
            ast.Attribute(call.func.value, call.func.attr[:-len("_like")], ast.Load()),
            [shape, *call.args[1:count]], [k for k in call.keywords if k.arg not in ("dtype",)]
            + [ast.keyword("dtype", dtype)]), call)

    def product_shape(self, shape: ast.expr) -> ast.expr:
        """An allocation's shape with each extent that is a product of affine sizes and integer
        arguments (``n * (1 + m)``, which isl cannot state) replaced by a size the call computes
        (``size_product``).  Each factor must be non-negative, assumed and checked per call
        (NumPy raises ValueError for a negative dimension; a product of two negative factors,
        which NumPy accepts, is refused there too): the computed size is then NumPy's."""
        dims = shape.elts if isinstance(shape, (ast.Tuple, ast.List)) else [shape]
        if all(is_affine(d, self.params) for d in dims):
            return shape
        for d in dims:
            if call_time_source(d, self.arguments, self.globals, set(self.stores)) is not None:
                continue
            names = self.call_time_names()
            if call_time_data_source(d, self.arguments, self.globals, *names) is None:
                continue  # not a size read from the data: product_size's (and the lifter's) refusal
            guard = self.data_size_guard()
            if guard is None or call_time_data_source(d, self.arguments, self.globals, *names, guard=guard or None) \
                    is None:
                raise self.error(d, f"an allocation of extent {ast.unparse(d)!r}, which reads the data, inside a loop "
                                 "or a branch whose test reads more than sizes and integer arguments: the call "
                                 "computes such a size before the kernel runs, Python's value only where it knows "
                                 "whether the allocation runs; compute the size at the top level of the body "
                                 "(n = int(idx.max()) + 1)", "data-dependent size in a loop or branch")
        new = [self.product_size(d) for d in dims]
        return ast.Tuple(new, ast.Load()) if isinstance(shape, (ast.Tuple, ast.List)) else new[0]

    def product_size(self, extent: ast.expr) -> ast.expr:
        """``extent`` as a size the call computes where it is a product of affine sizes and integer
        arguments, each factor assumed non-negative and checked per call (``product_shape``), or
        another integer expression of the arguments (``call_time_size``); ``extent`` itself
        otherwise."""
        if is_affine(extent, self.params):
            return extent
        if not _products_of_sizes(extent, self.params):
            computed = self.call_time_size(extent)
            if computed is None:
                return extent
            self.changed = True  # (np.zeros((n - w) // w + 1) as written: the statement changes)
            return computed.node
        factors = [sym_of(f) for f in _factors(extent)]
        if not all(f.is_const() or self.require(f"{f.text} >= 0") for f in factors):
            return extent
        self.changed = True
        return self.size_product(factors).node

    def call_time_size(self, node: ast.expr) -> Sym | None:
        """``node``, an integer expression of arguments that isl cannot state (``int(xn)`` of a
        float argument, ``(n - w) // s + 1``), as a new size parameter whose value the call
        computes by evaluating it (frontend.call_sizes, scop.SizeProduct.source); None when it is
        not of those forms (or reads an argument the kernel assigns)."""
        source = call_time_source(self.sources_of_sizes(node), self.arguments, self.globals, set(self.stores))
        where = self.data_size_guard()
        if source is not None and where and source not in self.computed_sizes:
            source = guarded_source(source, where, self.arguments, self.globals, set(self.stores)) or source
        guard = where if source is None else None
        if guard is not None:  # n = int(idx.max()) + 1: Python computes it here too (where guard holds)
            source = call_time_data_source(node, self.arguments, self.globals, *self.call_time_names(),
                                           guard=guard if guard != [] else None)
        if source is None:
            return None
        if source not in self.computed_sizes:
            self.computed_sizes[source] = self.fresh("size")
            self.params = self.params | {self.computed_sizes[source]}
        self.any_changed = True
        return atom(self.computed_sizes[source])

    def sources_of_sizes(self, node: ast.expr) -> ast.expr:
        """``node`` with each size the call computes that it names (``pf_size3``) written as the
        expression of the arguments that computes it, so that an expression of such sizes is one
        too (``0 if n < w else pf_size3`` of an early return's extent: ``merged_extents``)."""
        sources = {name: source for source, name in self.computed_sizes.items()}
        if not any(isinstance(n, ast.Name) and n.id in sources for n in walk(node)):
            return node

        class Written(ast.NodeTransformer):
            def visit_Name(self, name: ast.Name) -> ast.AST:
                source = sources.get(name.id)
                return name if source is None else ast.parse(source, mode="eval").body

        return Written().visit(copy.deepcopy(node))

    def dtype_named(self, node: ast.expr) -> ast.expr:
        """``np.<dtype>`` for a global name bound to a dtype (``np_float = np.float64``) or for
        ``x.dtype`` of a temporary, which the lifter reads only in that form; ``node`` otherwise."""
        dtype = _dtype_of(node, self.globals) if isinstance(node, ast.Name) and node.id in self.globals else None
        if isinstance(node, ast.Attribute) and node.attr == "dtype" and isinstance(node.value, ast.Name):
            entry = self.lookup(node.value)  # x.dtype of a temporary or view (the lifter knows arguments')
            dtype = entry.dtype if entry is not None and entry.kind != "arg" else None
        elif isinstance(node, ast.Attribute) and node.attr == "dtype":
            dtype = self.value_dtype(node.value)  # (a * x).dtype, x[0].dtype, x.sum().dtype
        if dtype is None:
            return node
        self.changed = True
        return ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load())

    def declare_local(self, name: str, call: ast.Call) -> None:
        """Record the shape and dtype of ``name = np.<allocator>(...)`` (frontend.allocation reads
        the same call again while lifting and reports anything wrong with it)."""
        assert isinstance(call.func, ast.Attribute)
        count, like = ALLOCATORS[call.func.attr]
        dtype = "float64"
        if like:
            source = self.lookup(call.args[0]) if call.args and isinstance(call.args[0], ast.Name) else None
            if source is None:
                return  # not an array: the lifter refuses it at its location
            extents, dtype = source.extents, source.dtype
        else:
            shape = call.args[0] if call.args else ast.Constant(0)
            dims = shape.elts if isinstance(shape, ast.Tuple) else [shape]
            extents = tuple(sym_of(d) for d in dims)
            if call.func.attr == "full" and len(call.args) > 1:
                dtype = self.temp_dtype(call, self.value(call.args[1]))
        given = call.args[count] if len(call.args) > count else None
        for kw in call.keywords:
            if kw.arg == "dtype":
                given = kw.value
        if given is not None:
            if (isinstance(given, ast.Attribute) and given.attr == "dtype" and isinstance(given.value, ast.Name)
                    and self.lookup(given.value) is not None):
                dtype = self.lookup(given.value).dtype  # type: ignore[union-attr]
            else:
                dtype = _dtype_of(given, self.globals) or dtype
        self.names[name] = ArrayName(name, extents, dtype, "local")

    def nonnegative_extents(self, stmt: ast.Assign, name: str, call: ast.Call) -> None:
        """NumPy's ValueError *negative dimensions are not allowed* of ``name = np.zeros(shape)``:
        refused where an extent is a negative constant; at the top level, an extent affine in the
        sizes is checked per call (an ArgumentError, a ValueError) where the sizes do not prove
        it, also where the array itself is never made (``np.zeros(n - 10).sum()`` is a sum of no
        elements), and leaves the compiled code as it is (``Assertion.restricts``); any other is
        checked where the statement runs (NumPy's ValueError).  The messages name the user's
        local, its helper and line."""
        assert isinstance(call.func, ast.Attribute)
        if ALLOCATORS[call.func.attr][1]:  # np.zeros_like(x): x's extents
            return
        shape = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "shape"), None)
        if shape is None or isinstance(shape, ast.Starred):
            return
        span = self.source.span(stmt)
        local = repr(user_name(name, self.source.user_names))
        for extent in (sym_of(d) for d in (shape.elts if isinstance(shape, ast.Tuple) else [shape])):
            if extent.is_const() and extent.const < 0:
                raise self.error(stmt, f"local array {local} has the negative extent {extent.const}: NumPy raises "
                                 "ValueError: negative dimensions are not allowed", "negative dimension")
            if extent.is_const() or self.proven(f"{extent.text} >= 0"):
                continue
            test = ast.Compare(copy.deepcopy(extent.node), [ast.GtE()], [ast.Constant(0)])
            if not (self.at_top and not self.facts and self.affine_test(test)):
                self.pre.append(value_error(f"{extent.text} >= 0", "negative dimensions are not allowed"))
                self.changed = True  # (the statement is emitted after its check)
                continue
            written = in_user_names(self.as_written(extent.node), self.source.user_names)
            message = (f"local array {local} ({f'in {span.function}(), ' if span.function else ''}{span.filename}:"
                       f"{span.line}) would have a negative extent {written} for these arguments: NumPy raises "
                       "ValueError: negative dimensions are not allowed")
            if all(ast.dump(a.test) != ast.dump(test) or a.message != message for a in self.assertions):
                self.assertions.append(Assertion(test, message, "ArgumentError", restricts=False))

    def bind_allocation(self, stmt: ast.Assign, name: str, call: ast.Call) -> list[ast.stmt]:
        """``b = np.zeros_like(u)`` inside a loop or branch: Python makes a new array each time;
        here one array, allocated at the top, is filled where the call was (``np.empty``: left
        as it is).  No earlier iteration's array can be seen again: a view bound in the loop
        ends with its block, and rebinding a name bound before the loop reuses its array only
        when nothing views it (``rebind_in_place``)."""
        assert isinstance(call.func, ast.Attribute)
        kind = call.func.attr
        if not kind.startswith("empty"):
            return self.bind_name(_replace(stmt, value=call), name)
        as_zeros = _replace(call, func=_replace(call.func, attr=kind.replace("empty", "zeros")))
        return self.bind_name(stmt, name, self.filled(as_zeros, as_zeros.func.attr), fill=False)

    def bind_name(self, stmt: ast.Assign, name: str, value: View | None = None,
                  fill: bool = True) -> list[ast.stmt]:
        """``name = expr``: a scalar local, or a new array temporary when ``expr`` is an array
        (``value``, when given, is what ``expr`` means; ``fill=False`` binds the array without
        writing it, for ``np.empty``)."""
        if value is None and self.masked_read(stmt.value) is not None and name not in self.names \
                and name not in self.scalars:
            self.selections[name] = (stmt.value, self.assignments, self.block)  # type: ignore[assignment]
            self.selection_steps[name] = (len(self.step_writes) - 1, self.loop_depth)
            self.changed = True
            return []
        self.selections.pop(name, None)
        value = self.value(stmt.value) if value is None else value
        entry = self.names.get(name)
        if entry is not None and not entry.live:  # the loop or branch of the earlier binding has ended:
            del self.names[name]  # this binds a new name, as in Python
            entry = None
        if value.rank == 0:
            if entry is not None:
                raise self.error(stmt, f"{name!r} is an array; assigning a scalar to it rebinds the name "
                                 "(use a new name)", "array name rebound")
            self.note_scalar(name, promote_any(self.scalars.get(name, value.vtype), value.vtype), value.picks)
            self.note_size(stmt, name)
            return [ast.Assign([ast.Name(name, ast.Store())], value.element(()))] if self.changed else [stmt]
        self.changed = True
        source = stmt.value.id if isinstance(stmt.value, ast.Name) else ""
        if name in self.mutated and source in self.names and self.names[source].kind == "iota":
            raise self.error(stmt, f"{name!r} = {source!r}, an index grid, and a write into {name!r} (NumPy "
                             "would change both; polyfuse keeps grids as formulas); bind a copy "
                             f"({name} = {source}.copy())", "index grid")
        if self.indexing.bindable(self, value) and entry is None and self.stores[name] == 1 and name not in self.scalars \
                and name not in self.mutated and not _explicit_copy(stmt.value, self.globals):
            # an index grid, or arithmetic of one, bound once and never written: a view of nothing
            self.names[name] = ArrayName("", value.extents, value.vtype.dtype, "iota", self.block, view=value)
            return []
        if entry is not None and entry.kind in ("temp", "local") and entry.block != self.block \
                and (value.base is None or (self.whole_temporary(value) and value.base != entry.array)):
            return self.rebind_in_place(stmt, name, entry, value, fill)
        source = stmt.value.id if isinstance(stmt.value, ast.Name) else ""
        handed = self.names.get(source)
        if entry is None and handed is not None and handed.kind in ("temp", "view") and handed.live \
                and self.loads[source] == 1 and self.whole_temporary(value) and value.base is not None:
            # acc = a, the only read of a (a helper's result) and all of a temporary: acc takes it over
            self.names[name] = ArrayName(value.base, value.extents, value.vtype.dtype, "temp", self.block)
            self.named_by_user(value, name)
            return []
        if entry is not None and entry.kind not in ("temp", "view"):
            what = "argument" if entry.kind == "arg" else "local array"
            why = self.resized_why(name, entry, value) or (f"; write into it with {name}[...] = ... or use a "
                                                            "new name")
            raise self.error(stmt, f"rebinding {what} {name!r} to a new array inside a loop or branch (only "
                             f"the top level of the body may bind it again){why}", "array name rebound")
        if entry is not None and entry.block != self.block:
            raise self.error(stmt, f"array {name!r} is rebound in a different loop or branch than where "
                             "it was first bound; use a new name", "array name rebound")
        if name in self.scalars and _early_result(name):  # early_return's result (items)
            raise self.error(stmt, "return of an array from inside a loop or if (an array may be returned "
                             "only by the final return at the end of the body); keep the result in the name the "
                             "final return returns and break out of the loop (y = ynew; break ... return y), or "
                             "keep where the loop stopped and slice there (k = i + 1; break ... return out[:k])",
                             "early return of an array")
        if name in self.scalars:
            nothing = next((n for n in walk(self.source.tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
                            and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name
                            and isinstance(n.value, ast.Constant) and n.value.value is None
                            and id(n) not in self.source.foreign), None)
            if nothing is not None:  # result = None ... result = x.copy(): NumPy code's "no array yet"
                line = self.source.first_line + nothing.lineno - 1
                raise self.error(stmt, f"{name!r} is bound to None (line {line}) and to an array here: a "
                                 "local that is None on some paths and an array on others is not supported (a "
                                 "local starting as None may take numbers only); bind the array from the start "
                                 f"({name} = x.copy() or np.zeros(...)) and keep 'not yet' in a flag "
                                 "(found = False ... found = True)", "None then an array")
            scalar_at = next((n for n in walk(self.source.tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
                              and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name
                              and id(n) not in self.source.foreign and n is not stmt), None)
            where = "" if scalar_at is None else f" (line {self.source.first_line + scalar_at.lineno - 1})"
            raise self.error(stmt, f"{name!r} is a scalar local{where} and bound to an array here: a local is a "
                             "number on every path or an array on every path (a number in one branch of an if "
                             "and an array in the other, or a number then an array, is not supported): an array "
                             "needs its own name", "array name rebound")
        if value.base in self.reshaped and self.whole_temporary(value):  # a reshape's copy: the name's own array
            self.names[name] = ArrayName(value.base, value.extents, value.vtype.dtype, "temp", self.block)
            return []
        if value.base is not None and not self.copies(stmt, name):  # a slice or transpose: NumPy binds a view
            self.names[name] = ArrayName(value.base, value.extents, value.vtype.dtype, "view", self.block,
                                         view=value)
            self.named_by_user(value, name)
            return []
        array = name if entry is None and name not in self.args and name not in self.temporaries \
            else self.fresh(f"{name}_")
        dtype = self.temp_dtype(stmt, value)
        self.allocate(array, value.extents, dtype)
        self.names[name] = ArrayName(array, value.extents, dtype, "temp", self.block)
        view = leaf(array, value.extents, dtype)
        if not fill:
            return []
        return self.nest(view.extents, lambda k: [ast.Assign([_store(view.element(k))], value.element(k))])

    def equal_extents(self, a: Sym, b: Sym) -> bool:
        """Whether two extents are equal in every call the kernel runs: the same text, proven, or
        an equality an earlier statement required (``mismatch``: checked per call)."""
        return a.text == b.text or tuple(sorted((a.text, b.text))) in self.checked \
            or self.proven(f"{a.text} == {b.text}")

    def assumed_equal(self, a: Sym, b: Sym) -> bool:
        """Whether extents ``a`` and ``b`` (of the sizes alone, not of loop variables or data) may
        be assumed equal, each call checking it (``mismatch``: a call where they differ is
        refused): a name bound again in a loop keeps its array (jacobi's ``x = (b - R @ x) / D``
        after ``x = x0``: ``b.shape[0] == x0.shape[0]``)."""
        if self.in_loop(a) or self.in_loop(b) or _reads_data(a) or _reads_data(b):
            return False
        self.mismatch(a, b)
        return True

    def copies(self, stmt: ast.Assign, name: str) -> bool:
        """Whether ``name = other`` binds a copy of the kernel-local array ``other`` rather than a
        view: both are in an alias group nothing in the kernel writes in place
        (``_copyable_aliases``), so no statement can tell a copy from the same array, and each
        may then be bound again in a loop with its new values written into its own array
        (npbench sp_cg: ``p = r`` before a loop that rebinds ``r`` and ``p``).  Of an argument
        only where ``name`` is bound again (an ODE integrator's ``y = y0``): a name bound once
        stays a view, so returning it returns the argument itself, as in Python."""
        source = stmt.value.id if isinstance(stmt.value, ast.Name) else None
        entry = self.names.get(source) if source is not None else None
        if name in self.copied and entry is not None and entry.kind == "arg" and self.stores[name] > 1:
            return True  # y = y0, then y = y + dt * f(y) in a loop: a copy the loop rebinds in place
        return name in self.copied and entry is not None and entry.kind in ("temp", "local")

    def note_size(self, stmt: ast.Assign, name: str) -> None:
        """``H_out = x.shape[1] - K + 1`` at the top level, ``x`` a temporary (frontend.rewrite
        substitutes such sizes of arguments only): assigned once, so its value is the affine
        expression of argument sizes wherever loop ranges, slice bounds and shapes use it; an
        integer expression of arguments that is not affine (``nt = int(T / dt)``) is a size the
        call computes there (``call_time_size``)."""
        if not self.at_top:
            self.note_branch_size(stmt, name)
            return
        if self.stores[name] != 1 or name in self.args:
            return
        written = _ViewShapes(self).visit(copy.deepcopy(stmt.value))
        if is_affine(written, self.params):
            self.sizes[name] = written
            return
        if name not in self.size_names:  # dy = -abs(y1 - y0) read as a number only: a local, any sign
            return
        computed = self.call_time_size(written)
        if computed is not None:  # count = (n - w) // s + 1: a size the call computes
            self.sizes[name] = computed.node

    def resized_why(self, name: str, entry: ArrayName, value: View) -> str:
        """Why ``name = value`` in a loop cannot keep ``name``'s one array where the new array's
        extents change with the loop (a trinomial tree's ``nv = np.empty(2 * i + 1)`` ... ``v =
        nv``), and what to write instead; '' elsewhere."""
        extents = tuple(sym_of(_ViewShapes(self).visit(copy.deepcopy(e.node))) for e in value.extents)
        varying = [e for e in extents if self.in_loop(e)]
        if not varying or len(extents) != len(entry.extents):
            return ""
        new = ", ".join(_user_text(e.text) for e in extents)
        old = ", ".join(_user_text(e.text) for e in entry.extents)
        return (f": here to an array of extent ({new}), which changes with each iteration, where {name!r} has "
                f"extent ({old}); polyfuse allocates each local array once per call, at one size, so no name "
                "can stand for arrays of several sizes; allocate two arrays of the largest extent before the "
                f"loop, write each iteration's values into the first ({_user_text(varying[0].text)}) elements of "
                f"one and swap the names at the end of the iteration ({name}, other = other, {name})")

    def note_branch_size(self, stmt: ast.Assign, name: str) -> None:
        """``nf = 1 + (n - w) // hop`` inside ifs of sizes and integer arguments alone (no loop:
        ``if n < w: return np.zeros(0)`` leaves the rest in the else branch), bound once and read
        only after it in its own block: a size the call computes where those tests let Python
        compute it, 0 elsewhere (``call_time_size``), as ``note_size`` makes one at the top level.
        An affine value stays a local here (frontend.rewrite substitutes sizes of arguments)."""
        if self.stores[name] != 1 or name in self.args or name not in self.size_names or not self.data_size_guard():
            return
        block = _block_holding(self.source.tree, stmt)
        if block is None or not _read_only_after(self.source.tree, block, stmt, name):
            return
        written = _ViewShapes(self).visit(copy.deepcopy(stmt.value))
        if is_affine(written, self.params):
            return
        computed = self.call_time_size(written)
        if computed is not None:
            self.sizes[name] = computed.node

    def rebind_in_place(self, stmt: ast.Assign, name: str, entry: ArrayName, value: View,
                        fill: bool = True) -> list[ast.stmt]:
        """``x = x + alpha * p`` in a loop, ``x`` bound before it: each iteration's new array
        replaces the old one, which nothing else can see when no name was ever bound to a view of
        ``x`` (``p = x``, ``v = x[1:]``); so the new values go into ``x``'s own array, the
        right-hand side evaluated in full first, when they have its shape and dtype."""
        why = None
        if name in self.viewed and self.element_ranks.get(name) != {entry.rank}:
            why = "another name is bound to a view of it somewhere (it would see the new values)"
        elif value.rank != entry.rank or any(not self.equal_extents(a, b) and not self.assumed_equal(a, b)
                                             for a, b in zip(value.extents, entry.extents)):
            why = "the new array's shape may differ"
        elif self.temp_dtype(stmt, value) != entry.dtype:
            why = f"the new array is {self.temp_dtype(stmt, value)}, not {entry.dtype}"
        if why is not None:
            raise self.error(stmt, f"array {name!r} is bound again inside a loop or branch, and {why}; use a "
                             f"new name or write into it with {name}[...] = ...", "array name rebound")
        self.writing(stmt, entry.array, rebinding=True)
        return self.store(stmt, entry.read(), value) if fill else []

    def masked_store(self, stmt: ast.Assign | ast.AugAssign, target: ast.Subscript) -> list[ast.stmt] | None:
        """``x[mask] = v`` / ``x[mask] += v`` with a boolean array ``mask`` of ``x``'s shape and a
        scalar ``v``: ``x[...] = np.where(mask, v, x)`` (``x + v`` for ``+=``), every element
        decided before any is written, as NumPy does.  None when the index is not such a mask."""
        if isinstance(target.slice, (ast.Tuple, ast.Slice)):
            return None
        mask = self.value(target.slice)
        if mask.rank == 0 or mask.vtype.dtype != "bool":
            return None
        base = self.value(target.value)
        if base.rank > mask.rank:  # X[rows] = v: a mask of X's leading axes, each selected row set to v
            return self.masked_rows_store(stmt, target, base, mask)
        unmasked = self.unmasked(stmt.value, target.slice, mask)
        value = self.value(unmasked)
        if base.rank != mask.rank or (value.rank and unmasked is stmt.value):
            raise self.error(stmt, "a boolean mask store of other than a scalar into an array of the mask's shape "
                             "(NumPy's count of selected elements decides the shape); use np.where", "boolean mask")
        self.same_shape_as_mask(target.slice, base, mask)
        new = value if isinstance(stmt, ast.Assign) else self.binop(stmt, stmt.op, base, value)
        whole = self.value(ast.Subscript(target.value, ast.Constant(Ellipsis), ast.Store()), store=True)
        self.not_into_a_copy(target, whole)
        result = promote_any(_unbool(new.vtype), _unbool(base.vtype))
        new = self.converted_once(new, result)  # x_uint8[m] = s of s = 300: OverflowError, none selected too
        chosen = self.combine(stmt, [mask, new, base], lambda c, a, b: ast.IfExp(c, a, b), result)
        return self.store(stmt, whole, chosen)

    def masked_rows_store(self, stmt: ast.Assign | ast.AugAssign, target: ast.Subscript, base: View,
                          mask: View) -> list[ast.stmt]:
        """``X[m] = v`` / ``X[m] += v`` with a bool ``m`` of ``X``'s leading axes and a scalar ``v``
        (fe34): ``X[...] = np.where(m[..., None], v, X)``, every selected row (of the remaining axes)
        set, as NumPy sets them.  A ``v`` of other than a scalar is refused (its shape would have to
        match the count of selected rows)."""
        value = self.value(stmt.value)
        if value.rank:
            raise self.error(stmt, "a boolean mask store of rows (a mask of the leading axes) of other than a "
                             "scalar (NumPy's count of selected rows decides the shape); use np.where",
                             "boolean mask")
        self.same_shape_as_mask(target.slice, View(base.extents[:mask.rank], base.vtype, base.element), mask)
        rows = View(base.extents, mask.vtype, lambda idx: mask.element(idx[:mask.rank]))
        new = value if isinstance(stmt, ast.Assign) else self.binop(stmt, stmt.op, base, value)
        whole = self.value(ast.Subscript(target.value, ast.Constant(Ellipsis), ast.Store()), store=True)
        self.not_into_a_copy(target, whole)
        result = promote_any(_unbool(new.vtype), _unbool(base.vtype))
        new = self.converted_once(new, result)  # x_uint8[m] = s of s = 300: OverflowError, none selected too
        chosen = self.combine(stmt, [rows, new, base], lambda c, a, b: ast.IfExp(c, a, b), result)
        return self.store(stmt, whole, chosen)

    def same_shape_as_mask(self, node: ast.expr, array: View, mask: View) -> None:
        self.same_shape(node, array, mask, "a boolean mask whose shape differs from the array's (NumPy raises "
                        "IndexError)", "boolean mask")

    def same_shape(self, node: ast.AST, a: View, b: View, message: str, construct: str) -> None:
        """``a`` and ``b`` of one shape, as NumPy requires (no broadcasting): extents that differ
        are assumed equal and checked per call, a constant 1 against another is refused."""
        for mine, theirs in zip(a.extents, b.extents):
            if mine.text != theirs.text:
                if mine.is_const(1) or theirs.is_const(1):
                    raise self.error(node, message, construct)
                self.mismatch(mine, theirs)

    def element_by_element(self, node: ast.AST) -> bool:
        """Whether ``node`` computes each element of its result from the same element of its
        array operands (operators, NumPy's ufuncs, ``np.where``, ``np.clip``, ``astype``), so that
        a masked read inside it may be read unmasked."""
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp, ast.keyword,
                             ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)):
            return True
        if isinstance(node, ast.Attribute):  # a method, decided at its call, or .real / .imag
            return node.attr in ("astype", "clip", "conj", "conjugate", "real", "imag")
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        if isinstance(func, ast.Name):
            return func.id == "abs"
        if not isinstance(func, ast.Attribute):
            return False
        if module_of(func.value, self.globals) == "np" or (isinstance(func.value, ast.Name)
                                                            and func.value.id == NP_NAME):
            return isinstance(getattr(np, func.attr, None), np.ufunc) or func.attr in ("where", "clip")
        return func.attr in ("astype", "clip", "conj", "conjugate")

    def unmasked(self, value: ast.expr, mask_node: ast.expr, mask: View) -> ast.expr:
        """The value of ``x[mask] = value`` with each read ``a[mask]`` of the same mask replaced by
        ``a``: NumPy pairs the selected elements in order, so element by element that is the value
        where the mask holds (``Z[I] = Z[I] ** 2 + C[I]``).  Any other array in ``value`` has the
        count's shape in NumPy, and is refused."""
        key = ast.dump(mask_node)
        reads: list[ast.Subscript] = []

        class Unmask(ast.NodeTransformer):
            def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
                if ast.dump(node.slice) == key:
                    reads.append(node)
                    return node.value
                return self.generic_visit(node)

        replaced = Unmask().visit(copy.deepcopy(value))
        if not reads:
            return value
        originals = [n for n in walk(value) if isinstance(n, ast.Subscript) and ast.dump(n.slice) == key]
        parents = {id(child): node for node in walk(value) for child in ast.iter_child_nodes(node)}
        for read in originals:
            self.same_shape_as_mask(read, self.value(read.value), mask)
            at: ast.AST = read
            while id(at) in parents:  # a[mask] -> a is right only element by element (not np.cumsum(x[m]))
                at = parents[id(at)]
                if not self.element_by_element(at):
                    raise self.error(at, "a boolean mask store whose value uses the selection other than element "
                                     f"by element ({ast.unparse(at)}: NumPy's count of selected elements decides "
                                     "it); write the selection into a temporary first, or the loop", "boolean mask")
        # expressions only: ast.Load() is one object shared by every node
        self.only_masked_arrays(value, {id(n) for read in originals for n in walk(read) if isinstance(n, ast.expr)})
        return replaced

    def only_masked_arrays(self, node: ast.expr, masked: set[int]) -> None:
        """Refuse any array in ``node`` outside the masked reads (ids in ``masked``): in NumPy it
        meets the selected elements, a 1-d array of data-dependent length."""
        if id(node) in masked:
            return
        inner = [n for n in ast.iter_child_nodes(node) if isinstance(n, ast.expr)]
        if any(id(n) in masked for n in walk(node)) and isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call,
                                                                               ast.Compare, ast.IfExp)):
            for child in inner:
                self.only_masked_arrays(child, masked)
        elif not isinstance(node, ast.Constant) and self.value(copy.deepcopy(node)).rank:
            raise self.error(node, f"array {ast.unparse(node)!r} in the value of a boolean mask store, not "
                             "indexed by the mask (NumPy's count of selected elements decides the shape)",
                             "boolean mask")

    def writing(self, node: ast.AST, array: str, rebinding: bool = False) -> None:
        """Before a store into kernel array ``array``.  A reshape that regroups elements is a copy
        here (``reshape_copy``) where NumPy often binds a view, so the two may not drift apart: a
        write into the copy while its source is still reachable is refused, and a write into the
        source makes a name bound to the copy in the same block unreadable from here on (one bound
        in an enclosing block could be read again by a later iteration: the write is refused).
        ``rebinding``: the name's new array reuses ``array`` (``rebind_in_place``), where NumPy
        makes a new one and writes nothing it held, so nothing drifts apart; from here on
        ``array`` is neither a reshape's copy nor the source of one."""
        if rebinding:
            self.reshape_sources = {made: source for made, source in self.reshape_sources.items()
                                    if array not in (made, source)}
            return
        source = self.reshape_sources.get(array)
        if source is not None and (source in self.args or any(e.live and e.array == source
                                                              for e in self.names.values())):
            what = self.user_name(source)
            raise self.error(node, f"a write into the result of reshape() of {what!r}, which in NumPy may be a view "
                             f"of {what!r}: polyfuse copies the elements, so the write would not reach {what!r}; "
                             f"write into {what!r} itself, or reshape a .copy() of it", "reshape")
        for name, entry in self.names.items():
            if not (entry.live and self.reshape_sources.get(entry.array) == array and not entry.stale):
                continue
            if entry.block != self.block:
                raise self.error(node, f"a write into {self.user_name(array)!r} inside a loop or branch while "
                                 f"{name!r}, its reshape (a view in NumPy, a copy here), is bound outside it; "
                                 f"reshape after the last write", "reshape")
            entry.stale = (f"a write into {self.user_name(array)!r}, which it is a reshape of (a view in NumPy, "
                           "a copy here, which does not see the write); reshape again after the write")

    def not_into_a_copy(self, target: ast.Subscript, view: View) -> None:
        """Refuse ``x.reshape(-1)[0] = v`` where the reshape is a copy: NumPy's view would change
        ``x`` (a name bound to the copy is checked by ``writing``)."""
        root: ast.expr = target
        while isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        if view.base in self.reshaped and not isinstance(root, ast.Name):
            raise self.error(target, "a store into the result of reshape() or ravel() that regroups the elements: "
                             "in NumPy it may be a view (the store changes the array), here it is a copy; write "
                             "into the array itself", "reshape")

    def user_name(self, array: str) -> str:
        """The kernel's own name for kernel array ``array`` (temporaries are renamed)."""
        names = sorted(self.names.items(), key=lambda item: item[1].kind == "view")  # arrays' own names first
        return next((n for n, e in names if e.array == array and e.live), array)

    def named_by_user(self, value: View, name: str) -> None:
        """``name = value`` binds the user's name to all of a temporary this lowering made
        (``h = np.bincount(x)``: ``pf_bincount2``): messages name that array ``h`` (the first such
        name; polyfuse.model.names)."""
        if value.base is not None and value.base.startswith("pf_") and self.whole_temporary(value):
            self.source.user_names.setdefault(value.base, name)

    def whole_temporary(self, view: View | None) -> bool:
        """Whether ``view`` is all of an array temporary this lowering allocated, in order."""
        if view is None or view.base not in self.temporaries:
            return False
        probes = tuple(atom(f"pf_probe{d}") for d in range(view.rank))
        element = view.element(probes)
        if not (isinstance(element, ast.Subscript) and isinstance(element.value, ast.Name)):
            return False
        items = element.slice.elts if isinstance(element.slice, ast.Tuple) else [element.slice]
        return ([ast.unparse(i) for i in items] == [p.text for p in probes]
                and [e.text for e in view.extents] == [e.text for e in self.temporaries[view.base]])

    def temp_dtype(self, node: ast.AST, value: View) -> str:
        dtype = value.vtype.dtype
        if dtype == "unknown" and not self.final:
            return "float64"  # an early pass; the final one knows the local's type or refuses
        if dtype == "unknown":
            unknown = sorted({n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                              and self.scalars.get(n.id) == UNKNOWN})
            which = f"{', '.join(map(repr, unknown))}, " if unknown else "a value "
            raise self.error(node, f"cannot tell the dtype of this array expression (it reads {which}whose type "
                             "is not known here: one whose type Python picks by value, such as max(a, b) of an "
                             "np.int64 and a Python int, can be cast, int(max(a, b)) or float(...))",
                             "array temporary")
        if dtype not in _DTYPES:
            raise self.error(node, f"array temporaries of dtype {dtype} are not supported", "array temporary")
        return dtype

    def allocate(self, array: str, extents: tuple[Sym, ...], dtype: str) -> None:
        """A local array for a temporary of ``extents``; an extent that changes with enclosing
        loops (``data[:, i:M] @ ...`` in a loop over ``i``) is allocated at its largest value
        over those loops, and each iteration uses its first elements."""
        largest = []
        for e in extents:
            if _reads_data(e):
                raise self.error(self.here, "an array temporary whose extent depends on array values (a slice with "
                                 "bounds read from an array); use the slice directly in a reduction or a product, "
                                 "or write the loop", "array temporary")
            bound = self.largest_over_loops(e) if self.in_loop(e) else e
            if bound is None:
                raise self.error(self.here, f"an array temporary of extent {e.text!r}, which changes with a loop "
                                 "variable in a way polyfuse cannot bound; write into an array of fixed shape "
                                 "instead", "array temporary")
            largest.append(bound)
        extents = tuple(largest)
        self.temporaries[array] = extents
        dims = [e.node if _nonnegative_sym(e) else smax(const(0), e).node for e in extents]
        shape = ast.Tuple(dims, ast.Load())
        call = ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "empty", ast.Load()), [shape],
                        [ast.keyword("dtype", ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load()))])
        self.allocate_at_top(ast.Assign([ast.Name(array, ast.Store())], call))

    def allocate_at_top(self, stmt: ast.stmt) -> None:
        """``stmt`` among the allocations at the top of the body, located at the statement being
        lowered, so that a refusal of it names that statement (fe48: the def line before)."""
        here = self.here
        _locate(stmt, here if isinstance(here, (ast.stmt, ast.expr)) else self.source.tree)
        found = self.source.foreign.get(id(here))
        origin = found[1] if found is not None and found[0] is here else None
        for node in walk(stmt):  # where the statement is: a helper's line in the helper's file
            if origin is None:
                self.source.foreign.pop(id(node), None)
            else:
                self.source.foreign[id(node)] = (node, origin)
        self.allocations.append(stmt)

    def scalar_assign(self, name: str, value: ast.expr | str, vtype: VType) -> ast.Assign:
        """``name = value`` (Python text or an AST) for a scalar local of ``vtype`` the lowering adds."""
        self.note_scalar(name, vtype)
        expr = ast.parse(value, mode="eval").body if isinstance(value, str) else value
        return ast.Assign([ast.Name(name, ast.Store())], expr)

    def note_scalar(self, name: str, vtype: VType, picks: tuple[VType, ...] = ()) -> None:
        first = name not in self.assigned and name in self.bound_once
        self.picked[name] = picks if first and vtype is UNKNOWN else ()
        self.assigned[name] = _merged_any(self.assigned.get(name, vtype), vtype)
        self.scalars[name] = _merged_any(self.scalars.get(name, vtype), vtype)

    def store(self, stmt: ast.stmt, view: View, value: View) -> list[ast.stmt]:
        """``view[...] = value`` element by element, through a temporary when it must be."""
        self.changed = True
        value = self.converted_once(value, view.vtype)  # y[a:b] = s of s = 300: OverflowError, if empty too
        index = self.broadcast_to(getattr(stmt, "value", stmt), view.extents, value)
        k0 = tuple(atom(f"pf_probe{d}") for d in range(view.rank))
        position = _slice_of(view.element(k0))
        written = ast.dump(position)
        reads = [n for n in walk(value.element(index(k0))) if isinstance(n, ast.Subscript)
                 and isinstance(n.value, ast.Name) and n.value.id == view.base]
        # each element read where it is written is read before it is written only where no
        # position is written twice: not through a run-time index array that changes along the
        # store (``x[idx] = x[idx] * 3`` with a repeated index reads the old value twice in
        # NumPy, the first store in a loop); ``A[k[0]] = A[k[0]] * 2`` writes one row
        probes = {f"pf_probe{d}" for d in range(view.rank)}
        once = not any(isinstance(n, ast.Subscript) and any(isinstance(m, ast.Name) and m.id in probes
                                                            for m in walk(n.slice))
                       for n in walk(position))
        if all(ast.dump(n.slice) == written for n in reads) and (once or not reads):
            return self.nest(view.extents, lambda k: [
                ast.Assign([_store(view.element(k))], value.element(index(k)))])
        staged = self.staging(self.fresh("t"), view)
        first = self.nest(view.extents, lambda k: [
            ast.Assign([_store(staged.element(k))], value.element(index(k)))])
        return first + self.nest(view.extents, lambda k: [
            ast.Assign([_store(view.element(k))], staged.element(k))])

    def staging(self, tmp: str, view: View) -> View:
        """Where ``view``'s new values wait until the right-hand side is complete: an array of
        the view's shape, or, where that shape changes with a loop variable (``A[i, :i]``), one
        of the shape of the array the view is of, written at the same elements."""
        dtype = view.vtype.dtype
        if not any(self.in_loop(e) for e in view.extents):
            self.allocate(tmp, view.extents, dtype)
            return leaf(tmp, view.extents, dtype)
        base = next((e for e in self.names.values() if e.array == view.base and e.kind != "view"), None)
        if base is None:
            raise self.error(self.here, "a statement that reads what it writes, with a shape that changes with "
                             "a loop variable, into an array polyfuse made", "evaluation order")
        self.allocate(tmp, base.extents, dtype)

        def element(idx: tuple[Sym, ...]) -> ast.expr:
            target = view.element(idx)
            assert isinstance(target, ast.Subscript), "a stored view is an array element"
            return ast.Subscript(ast.Name(tmp, ast.Load()), target.slice, ast.Load())
        return View(view.extents, view.vtype, element, tmp)

    def nest(self, extents: tuple[Sym, ...], body: Callable[[tuple[Sym, ...]], list[ast.stmt]]) -> list[ast.stmt]:
        names = [self.fresh("i") for _ in extents]
        stmts = body(tuple(atom(n) for n in names))
        for name, extent in reversed(list(zip(names, extents))):
            loop = ast.For(ast.Name(name, ast.Store()), ast.Call(ast.Name("range", ast.Load()), [extent.node], []),
                           stmts, [])
            stmts = [loop]
        return stmts

    # ---- broadcasting ----------------------------------------------------------------------
    def mismatch(self, a: Sym, b: Sym, node: ast.AST | None = None) -> None:
        """Assume ``a == b`` (the lifted context; calls where they differ are refused), where the
        enclosing ifs' tests hold (``facts``: a branch that does not run assumes nothing).
        Extents that change with a loop variable are decided over the enclosing loops first."""
        key = (*sorted((a.text, b.text)), *self.facts)
        if key in self.checked or a.text == b.text:  # the same size twice (np.linspace(a, b, int(x)) + its own column)
            return
        self.checked.add(key)
        if _reads_data(a) or _reads_data(b):  # extents of slices with bounds read from arrays (runtime_slice)
            pairs = _same_but_sizes(a.text, b.text)
            if pairs is None:
                raise self.error(node or self.here, f"cannot tell that the extents {a.text!r} and {b.text!r} agree "
                                 "(they depend on array values; NumPy requires them equal to broadcast)", "broadcast")
            self.assumed.extend(ast.parse(f"{x} == {y}", mode="eval").body for x, y in pairs)
            return
        if not (self.in_loop(a) or self.in_loop(b)):
            self.assume_same_length(a, b)
            return
        if not self.require(f"{a.text} == {b.text}"):
            raise self.error(node or self.here, f"cannot tell that the extents {a.text!r} and {b.text!r} "
                             "agree at every iteration (NumPy requires them equal to broadcast)", "broadcast")

    def assume_same_length(self, a: Sym, b: Sym) -> None:
        """``a == b`` assumed where the enclosing ifs' tests hold: ``decided`` gives the sizes where
        it holds or the facts fail (``if a.shape[0] == b.shape[0]: c = a + b`` assumes nothing);
        without facts, or where isl's answer is no condition, it is assumed outright.  Raw extents
        are compared: two slices that are both empty by different amounts (``b[1:] = a[2:]`` of
        empty arrays, -1 and -2 here, 0 in NumPy) break it, as a union of "equal" and "both empty"
        in the context split the schedule (fdtd-2d lost its time tiling); such calls run the
        undecorated function (``numpy_accepts``: "equal or both empty", checked per call)."""
        equal = ast.Compare(a.node, [ast.Eq()], [b.node])
        verdict = decided(f"{a.text} == {b.text}", (), self.params, tuple(self.facts)) if self.facts else None
        if verdict is not None and verdict.proven:
            return
        if verdict is None or verdict.assume is None:
            self.assumed.append(equal)
            if not (_nonnegative_sym(a) and _nonnegative_sym(b)):
                empty: list[ast.expr] = [ast.Compare(e.node, [ast.LtE()], [ast.Constant(0)]) for e in (a, b)]
                self.numpy_accepts[id(equal)] = ast.BoolOp(ast.Or(), [copy.deepcopy(equal),
                                                                       ast.BoolOp(ast.And(), empty)])
            return
        self.assumed.append(verdict.assume)

    def largest_over_loops(self, e: Sym) -> Sym | None:
        """An upper bound of ``e`` over the enclosing loops' iterations, free of their variables:
        ``e`` is linear in each variable, so its largest value is at an end of that loop's range
        (innermost loop first, whose bounds may name outer variables).  None when a variable
        occurs other than linearly or a loop's range is unknown.  A ``min(a, b)`` term of positive
        coefficient is bounded by one of its arguments (a slice's stop clipped at an axis's end,
        ``y[i - w + 1:i + 1]`` where only ``x``'s extent bounds ``i``)."""
        for text, coeff in e.terms:
            if coeff > 0 and text.startswith("min(") and self.in_loop(atom(text)):
                call = ast.parse(text, mode="eval").body
                assert isinstance(call, ast.Call), "smin's text"
                rest = e - atom(text).scale(coeff)
                bounds = [self.largest_over_loops(rest + sym_of(arg).scale(coeff)) for arg in call.args]
                return next((b for b in bounds if b is not None), None)
        for loop in reversed(self.loops):
            if loop.var in (e.opaque or "") or any(loop.var in _names_in(text) for text, _ in e.terms
                                                    if text != loop.var):
                return None
            coeff = dict(e.terms).get(loop.var, 0)
            if not coeff:
                continue
            if not loop.step:
                return None
            increasing = (coeff > 0) == (loop.step > 0)  # e grows along the loop's own order
            if loop.step > 0:
                end = f"({loop.stop}) - 1" if increasing else loop.start
            else:  # (the loop runs down: e is largest at its last iteration, or else at its start)
                end = f"({loop.stop}) + 1" if increasing else loop.start
            e = e - atom(loop.var).scale(coeff) + sym_of(ast.parse(end, mode="eval").body).scale(coeff)
        return None if self.in_loop(e) else e

    def in_loop(self, e: Sym) -> bool:
        """Whether ``e`` changes with an enclosing loop variable."""
        names = {n.id for n in walk(e.node) if isinstance(n, ast.Name)}
        return any(loop.var in names for loop in self.loops)

    def require(self, claim: str) -> bool:
        """Whether ``claim`` holds at every iteration, proven or assumed of the sizes (then
        added to the assumptions the call-time checks enforce)."""
        verdict = decided(claim, tuple(self.loops), self.params, tuple(self.facts))
        if verdict.proven:
            return True
        if verdict.assume is None:
            return False
        if ast.dump(verdict.assume) not in {ast.dump(a) for a in self.assumed}:
            self.assumed.append(verdict.assume)
        return True

    def assumable(self, claim: str) -> bool:
        """Whether ``require(claim)`` holds, without adding to the assumptions."""
        verdict = decided(claim, tuple(self.loops), self.params, tuple(self.facts))
        return verdict.proven or verdict.assume is not None

    def proven(self, claim: str) -> bool:
        return decided(claim, tuple(self.loops), self.params, tuple(self.facts)).proven

    def unify(self, a: Sym, b: Sym) -> Sym:
        if a.is_const(1):
            return b
        if b.is_const(1) or a.text == b.text:
            return a
        self.mismatch(a, b)
        return a

    def broadcast(self, views: list[View]) -> tuple[tuple[Sym, ...], list[Callable]]:
        rank = max(v.rank for v in views)
        extents: list[Sym] = []
        for d in range(rank):
            axis = [v.extents[d - rank + v.rank] for v in views if d - rank + v.rank >= 0]
            result = axis[0]
            for e in axis[1:]:
                result = self.unify(result, e)
            extents.append(result)
        return tuple(extents), [_indexer(v, rank) for v in views]

    def broadcast_to(self, node: ast.AST, extents: tuple[Sym, ...], value: View) -> Callable:
        if value.rank > len(extents):
            lead = value.extents[: value.rank - len(extents)]
            # NumPy drops leading axes of extent 1 for an array target, but an element (``out[i] =
            # A[i]`` of an (n, 1) ``A``) takes no array at all: "setting an array element with a
            # sequence"
            if not extents or not all(e.is_const(1) for e in lead):
                raise self.error(node, f"cannot assign {ast.unparse(node)!r}, a whole-array value of rank "
                                 f"{value.rank}, to a target of rank {len(extents)}", "broadcast")
        for d, e in enumerate(extents):
            v = d - len(extents) + value.rank
            if v >= 0 and not value.extents[v].is_const(1) and value.extents[v].text != e.text:
                self.mismatch(e, value.extents[v])
        return _indexer(value, len(extents))

    # ---- value expressions -----------------------------------------------------------------
    def lookup(self, node: ast.Name) -> ArrayName | None:
        entry = self.names.get(node.id)
        if entry is not None and not entry.live and _early_result(node.id):  # frontend.early_return's result
            why = self.early_why.get(node.id)
            raise self.error(node, "arrays returned from the branches of an if that are not one array after it"
                             + (f": {why}; " if why else " (another dtype or shape, or a view such as an argument "
                                "or its slice); ")
                             + "an array may be returned from inside an if when every branch returns a new array "
                             "of one dtype and shape, or of other extents under a test of sizes and integer "
                             "arguments alone", "early return of an array")
        if entry is not None and not entry.live:
            what = "an array this line computes (a temporary)" if node.id.startswith("pf_") else f"array {node.id!r}"
            raise self.error(node, f"{what} is read outside the loop or branch that binds it; bind it before the "
                             "loop or if (e.g. np.empty of its shape) and write into it there", "array temporary")
        if entry is not None and entry.stale:
            raise self.error(node, f"array {node.id!r} is read after {entry.stale}", "reshape")
        if entry is not None and entry.array != node.id:
            self.changed = True  # a rebound name: the statement must read the renamed array
        return entry

    def value(self, node: ast.expr, store: bool = False) -> View:
        handler = getattr(self, f"_{type(node).__name__}", None)
        if handler is None:
            return scalar(node, UNKNOWN)
        if store and not isinstance(node, ast.Subscript):
            return scalar(node, UNKNOWN)
        return handler(node)

    def _Constant(self, node: ast.Constant) -> View:
        v = node.value
        return scalar(node, BOOL if isinstance(v, bool) else WEAK_INT if isinstance(v, int)
                      else WEAK_FLOAT if isinstance(v, float) else WEAK_COMPLEX if isinstance(v, complex)
                      else UNKNOWN)

    def _Name(self, node: ast.Name) -> View:
        if node.id in self.selections:
            raise self.error(node, f"{node.id!r} holds a boolean-mask selection (its length depends on the data), "
                             "usable only in np.sum/np.prod/np.mean/np.max/np.min and len() in the statement right "
                             "after it", "boolean mask")
        entry = self.lookup(node)
        if entry is not None:
            self.changed = True
            return entry.read()
        if node.id in self.loop_vars:
            return scalar(node, WEAK_INT)
        vtype = self.scalars.get(node.id, UNKNOWN)
        picks = self.picked.get(node.id, ()) if vtype is UNKNOWN else ()
        return View((), vtype, lambda idx: node, picks=picks)

    def _Attribute(self, node: ast.Attribute) -> View:
        if self.linalg_tuple(node.value) is not None:
            return self.linalg_part(node.value, node.attr)
        if node.attr == "T":
            inner = self.value(node.value)
            if inner.rank > 0:
                self.changed = True
                return View(inner.extents[::-1], inner.vtype, lambda idx: inner.element(idx[::-1]), inner.base)
        if node.attr in ("real", "imag") and module_of(node.value, self.globals) is None:
            return self.part(node, self.value(node.value))
        if node.attr == "size" and isinstance(node.value, ast.Name) and node.value.id in self.selections:
            return self.selection_size(node, node.value)
        if node.attr in ("size", "ndim") and isinstance(node.value, ast.Name) and node.value.id not in self.selections:
            entry = self.lookup(node.value)  # m.size of a temporary, view or local array: its extents'
            if entry is not None and entry.kind != "arg":
                self.changed = True
                if node.attr == "ndim":
                    return scalar(ast.Constant(entry.rank), WEAK_INT)
                size = ast.Constant(1) if not entry.extents else self.length(entry.extents[0]).node
                for e in entry.extents[1:]:
                    size = ast.BinOp(size, ast.Mult(), self.length(e).node)
                return scalar(size, WEAK_INT)
        module = module_of(node.value, self.globals)
        number = module_constant(module, node.attr) if module is not None else None
        if number is not None:  # np.inf, math.pi, cmath.infj: Python numbers (weak), as the lifter types them
            return scalar(node, VType("complex128" if type(number) is complex else "float64", True))
        return scalar(node, UNKNOWN)

    def part(self, node: ast.Attribute, inner: View) -> View:
        """``z.real``, ``z.imag`` of a complex array or number: each element's part (a new array,
        not a view to write through: kernels write whole complex elements)."""
        vtype = inner.vtype
        if vtype.is_complex:
            vtype = VType("float32" if vtype.dtype == "complex64" else "float64", vtype.weak)
        if inner.rank == 0:
            return scalar_op(lambda z: ast.Attribute(z, node.attr, ast.Load()), [inner], vtype)
        self.changed = True
        return View(inner.extents, vtype, lambda idx: ast.Attribute(inner.element(idx), node.attr, ast.Load()))

    def selection_size(self, node: ast.Attribute, name: ast.Name) -> View:
        """``v.size`` of ``v = x[mask]``: its length (the true elements of ``mask``) times the
        extents of the axes the mask does not cover (whole rows), a Python int as NumPy's."""
        masked = self.masked_read(name)
        assert masked is not None, "a selection is a masked read"
        x, mask = masked
        size = self.selection_length(node, name).element(())
        for extent in x.extents[mask.rank:]:
            size = ast.BinOp(size, ast.Mult(), self.length(extent).node)
        return scalar(size, WEAK_INT)

    def selection_length(self, node: ast.Subscript | ast.Attribute, name: ast.Name) -> View:
        """``len(v)`` / ``v.shape[0]`` of ``v = x[mask]`` (in the statement right after it, as its
        reductions): the number of true elements of ``mask``, a Python int as NumPy's length."""
        masked = self.masked_read(name)
        assert masked is not None, "a selection is a masked read"
        x, mask = masked
        if isinstance(node, ast.Subscript) and _int_const(node.slice) == -1 and x.rank != mask.rank:
            raise self.error(node, f"{ast.unparse(node)}: the last axis of rows selected by a mask; take "
                             f"{name.id}.shape[0] or reduce the selection", "boolean mask")
        read = self.selections[name.id][0]
        if not isinstance(read, ast.Subscript):  # v = x[mask] / n: the mask its factored read takes
            factored = _factored_mask(read, self.names, self.globals)
            assert factored is not None, "a selection is a masked read"
            read = factored.read
        count = ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "count_nonzero", ast.Load()),
                         [copy.deepcopy(read.slice)], [])
        length = ast.Call(ast.Name("int", ast.Load()), [count], [])
        ast.copy_location(length, node)
        ast.fix_missing_locations(length)
        self.changed = True
        return self.value(length)

    def view_extent(self, node: ast.expr) -> Sym | None:
        """The extent ``v.shape[d]`` means when ``v`` names a view, a temporary or a local array
        (the extents the lowering knows; a view has no kernel array at all)."""
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "shape" and isinstance(node.value.value, ast.Name):
            entry = self.lookup(node.value.value)  # refuses a temporary whose loop or branch has ended
            d = _int_const(node.slice)
            if entry is not None and entry.kind != "arg" and d is not None and -entry.rank <= d < entry.rank:
                self.changed = True
                return self.length(entry.extents[d])
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "shape" and not isinstance(node.value.value, ast.Name) \
                and self.array_valued(node.value.value):
            # x[1:].shape[0]: a slice's extent (a helper's argument); np.vstack((M, M)).shape[0],
            # (X @ Y).shape[1]: the value's, computed as NumPy computes it
            view = self.value(node.value.value)
            d = _int_const(node.slice)
            if view.rank and d is not None and -view.rank <= d < view.rank:
                self.changed = True
                return self.length(view.extents[d])
        return None

    def length(self, e: Sym) -> Sym:
        """Extent ``e`` as a value (``c.shape[0]``, a mean's count): NumPy's length, 0 where ``e``
        comes out negative (``x[1:]`` of an empty ``x``: ``slice``); ``e`` itself where it cannot."""
        if _nonnegative_sym(e) or self.proven(f"{e.text} >= 0"):
            return e
        return smax(const(0), e)

    def _Subscript(self, node: ast.Subscript) -> View:
        if self.linalg_tuple(node.value) is not None:
            return self.linalg_part(node.value, _int_const(node.slice))
        if _is_numpy_call(node.value, "histogram", self.globals):
            part = _int_const(node.slice)
            if part not in (0, 1, -1, -2):
                raise self.error(node, "np.histogram(...) indexed other than [0] (hist) or [1] (bin_edges)",
                                 "np.histogram")
            assert part is not None
            return self.histogram(node.value, part % 2)[part % 2] or scalar(node, UNKNOWN)
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
                and isinstance(node.value.value, ast.Name) and node.value.value.id in self.selections \
                and _int_const(node.slice) in (0, -1):
            return self.selection_length(node, node.value.value)
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            extent = self.view_extent(node)
            return scalar(node if extent is None else extent.node, WEAK_INT)
        end = self.selected_end(node)
        if end is not None:
            return end
        grid = self.indexing.grid(self, node)  # np.ogrid[a:b], np.indices(shape)[0]: index grids
        if grid is not None:
            self.changed = True
            return grid
        entry = self.lookup(node.value) if isinstance(node.value, ast.Name) else None
        base = entry.read() if entry else self.value(node.value)
        if base.rank == 0:
            whole = (isinstance(node.slice, ast.Tuple) and not node.slice.elts) or _is_ellipsis(node.slice)
            if entry is not None and entry.kind == "arg" and whole:
                return scalar(node, base.vtype)  # c[()] of a 0-d array argument: its element, of its dtype
            return scalar(node, UNKNOWN)
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        return self.index(node, base, items)

    def index_list(self, item: ast.List | ast.Tuple) -> ast.expr:
        """An index written as a list (``X[:, [0, 2]]``, ``x[[1, 0]]``; a tuple inside the
        subscript's tuple too): NumPy's index array, ``np.array([0, 2])``, of integer constants;
        any other list is refused here."""
        if not item.elts or any(int_constant(e) is None for e in item.elts):
            raise self.error(item, f"an index list {ast.unparse(item)} of other than integer constants (NumPy's "
                             "fancy indexing); index with slices, integers, None, '...' or one integer array",
                             "fancy indexing")
        made = ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "array", ast.Load()),
                        [ast.List([copy.deepcopy(e) for e in item.elts], ast.Load())], [])
        for sub in walk(made):
            if "lineno" in sub._attributes:
                ast.copy_location(sub, item)
        self.changed = True
        return made

    def index(self, node: ast.Subscript, base: View, items: list[ast.expr]) -> View:
        """``base[items]``: slices, integer indices, None and ``...``."""
        consumed = sum(1 for i in items if not _is_newaxis(i, self.globals) and not _is_ellipsis(i))
        if sum(1 for i in items if _is_ellipsis(i)) > 1:
            raise self.error(node, "more than one '...' in an index", "indexing")
        if consumed > base.rank:
            raise self.error(node, f"too many indices ({consumed}) for rank {base.rank}", "indexing")
        fill: list[ast.expr] = [ast.Slice() for _ in range(base.rank - consumed)]
        if any(_is_ellipsis(i) for i in items):
            at = next(k for k, i in enumerate(items) if _is_ellipsis(i))
            items = items[:at] + fill + items[at + 1:]
        else:
            items = items + fill
        items = [self.index_list(item) if isinstance(item, (ast.List, ast.Tuple)) else item for item in items]
        values = {p: self.value(item) for p, item in enumerate(items)
                  if not isinstance(item, ast.Slice) and not _is_newaxis(item, self.globals)}
        if self.indexing.needs_rules(values, isinstance(node.ctx, ast.Store)):
            return self.indexing.advanced(self, node, base, items, values, isinstance(node.ctx, ast.Store))
        pieces: list[tuple[str, Sym, int]] = []  # ("new"|"slice"|"int"|"gather", start or index, step)
        extents: list[Sym] = []
        gathers: list[View] = []  # the integer index array of a gather (x[idx]: element k is x[idx[k]])
        axis = 0
        for p, item in enumerate(items):
            if _is_newaxis(item, self.globals):
                pieces.append(("new", const(0), 0))
                extents.append(const(1))
                self.changed = True
                continue
            n = base.extents[axis]
            axis += 1
            if isinstance(item, ast.Slice):
                start, length, step = self.slice(item, n)
                pieces.append(("slice", start, step))
                extents.append(length)
                self.changed = True
                continue
            where = values[p]
            if where.rank > 0 and where.vtype.is_int and where.vtype.dtype != "bool" \
                    and isinstance(node.ctx, ast.Load) and not gathers:
                gathers.append(where)  # x[idx]: one integer array among slices and integers
                pieces.append(("gather", n, len(gathers) - 1))
                extents.extend(where.extents)
                self.changed = True
                continue
            if where.rank > 0:
                what = "boolean mask" if where.vtype.dtype == "bool" else "fancy indexing with an array index"
                detail = " other than one integer array read" if what != "boolean mask" else ""
                raise self.error(item, f"{what}{detail} is not supported; index with slices, integers, None and "
                                 "'...' (or use np.where for masks)", what)
            index = sym_of(where.element(()))  # an element of a view read as its array's (order[i])
            if index.is_const() and index.const < 0:
                index = n + index
                self.changed = True
            elif self.wraps(index) or self.from_end(item):  # x[-1 - i], x[-k]: counted from the end
                index = n + index
                self.changed = True
            pieces.append(("int", index, 0))

        def element(idx: tuple[Sym, ...]) -> ast.expr:
            it = iter(idx)
            base_idx: list[Sym] = []
            for kind, start, step in pieces:
                if kind == "new":
                    next(it)
                elif kind == "slice":
                    base_idx.append(start + next(it).scale(step))
                elif kind == "gather":  # a subscript computed at run time: NumPy's wrap and IndexError
                    where = gathers[step]
                    at = where.element(tuple(next(it) for _ in range(where.rank)))
                    base_idx.append(atom(f"({wrapped_in_view(base, ast.unparse(at), start)})"))
                else:
                    base_idx.append(start)
            return base.element(tuple(base_idx))
        # a gather copies (NumPy's advanced indexing), a slice is a view of the base
        return View(tuple(extents), base.vtype, element, None if gathers else base.base)

    def wraps(self, index: Sym) -> bool:
        """Whether integer index ``index`` (not a constant) is affine in loop variables, integer
        arguments and sizes and proven negative at every iteration (``A[-1 - i]`` for ``i`` in
        ``range(n)``): NumPy counts it from the end, as a negative constant.  An index that is
        negative only at some iterations is left as written: its accesses are then out of
        bounds, refused per call (``ArgumentError``), since NumPy's wrap is not affine there."""
        names = self.params | {loop.var for loop in self.loops}
        return is_affine(index.node, names) and self.proven(f"{index.text} < 0")

    def slice(self, item: ast.Slice, n: Sym) -> tuple[Sym, Sym, int]:
        """(first index, length, step) of ``item`` on an axis of extent ``n``, clamped as NumPy
        clamps; the length may come out negative where NumPy's is 0 (an empty range either way).
        A bound that is not a constant (``i``, ``j + 1``, ``n - 1``) must be non-negative at
        every iteration (NumPy would count a negative one from the end): proven over the
        enclosing loops, or assumed of the sizes and checked per call."""
        if item.step is not None and _int_const(item.step) is None:
            raise self.error(item.step, f"slice step {ast.unparse(item.step)!r}; steps must be integer "
                             "constants", "slice step")
        step = 1 if item.step is None else _int_const(item.step)
        assert step is not None
        if step == 0:
            raise self.error(item, "slice step cannot be zero", "slice step")
        if step > 0 and any(part is not None and self.read_bound(part) for part in (item.lower, item.upper)):
            return self.runtime_slice(item, n, step)
        ends = [step > 0 and part is not None and self.from_end(part) for part in (item.lower, item.upper)]
        if any(ends):
            return self.slice_from_end(item, n, step, ends)
        lo, hi = (None if part is None else self.bound(part, step > 0) for part in (item.lower, item.upper))
        last = n if step > 0 else n - const(1)  # where a non-negative bound is clamped
        first = const(0) if lo is None else lo
        if step > 0 and hi is not None and first.is_const() and hi.is_const() \
                and 0 <= first.const == hi.const - 1 and self.require(f"{n.text} >= {hi.const}"):
            return first, const(1), step  # x[:, k:k + 1] has size 1 (it broadcasts) where the axis reaches k
        if step > 0:
            start = const(0) if lo is None else smax(const(0), n + lo) if lo.is_const() and lo.const < 0 else lo
            stop = n if hi is None else n + hi if hi.is_const() and hi.const < 0 else \
                self.within(item.upper, hi, last) if self.unbounded(hi) else self.clamp(hi, last)
            return start, (stop - start + const(step - 1)).floordiv(step), step
        start = last if lo is None else n + lo if lo.is_const() and lo.const < 0 else self.clamp(lo, last)
        stop = const(-1) if hi is None else smax(const(-1), n + hi) if hi.is_const() and hi.const < 0 else hi
        return start, (start - stop + const(-step - 1)).floordiv(-step), step

    def from_end(self, part: ast.expr) -> bool:
        """Whether slice bound or index ``part`` is written as counted from the end, ``-w``,
        ``-(k + 1)``, ``-k - 1`` (the negation of an expression that is not a constant, plus or
        minus constants), and is at most -1 at every iteration: proven over the enclosing loops,
        or, of sizes and integer arguments alone, assumed (``x[:-w]`` assumes ``w >= 1``,
        checked per call: ``x[:-0]`` is empty in NumPy, ``x[-0:]`` the whole of ``x``)."""
        first = part
        while isinstance(first, ast.BinOp) and isinstance(first.op, (ast.Add, ast.Sub)) \
                and _int_const(first.right) is not None:
            first = first.left
        if not (isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.USub)
                and _int_const(first.operand) is None):
            return False
        written = _ViewShapes(self).visit(copy.deepcopy(part))
        assert isinstance(written, ast.expr), "a slice bound stays an expression"
        b = sym_of(written)
        names = self.params | {loop.var for loop in self.loops}
        if b.is_const() or not is_affine(b.node, names):
            return False
        return self.proven(f"{b.text} <= -1") if self.in_loop(b) else self.require(f"{b.text} <= -1")

    def slice_from_end(self, item: ast.Slice, n: Sym, step: int, ends: list[bool]) -> tuple[Sym, Sym, int]:
        """(first index, length, step) of a slice with a positive step and a bound counted from
        the end (``x[:-w]``, ``x[-w:]``; ``from_end``): that bound is ``max(n + b, 0)``, as NumPy
        adjusts a negative bound; the other is as ``slice`` takes it."""
        def at(part: ast.expr | None, end: bool, default: Sym) -> Sym:
            if part is None:
                return default
            if end:
                written = _ViewShapes(self).visit(copy.deepcopy(part))
                assert isinstance(written, ast.expr), "a slice bound stays an expression"
                return smax(const(0), n + sym_of(written))
            b = self.bound(part, True)
            return smax(const(0), n + b) if b.is_const() and b.const < 0 else self.clamp(b, n)
        start, stop = at(item.lower, ends[0], const(0)), at(item.upper, ends[1], n)
        return start, (stop - start + const(step - 1)).floordiv(step), step

    def read_bound(self, part: ast.expr) -> bool:
        """Whether a slice bound reads an element of an integer array (``A_row[i]``): known only
        at run time, where NumPy's rules for it are applied (``runtime_slice``)."""
        return any(isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.names
                   and self.names[node.value.id].dtype in INTS and self.names[node.value.id].dtype != "uint64"
                   for node in walk(part))

    def runtime_slice(self, item: ast.Slice, n: Sym, step: int) -> tuple[Sym, Sym, int]:
        """(first index, length, step) of a slice with a positive step and a bound read from an
        array, as NumPy computes them when the statement runs (CPython's PySlice_AdjustIndices):
        a negative bound counts from the end and is then clipped at 0, a bound past the end is
        the end, the length is never negative (npbench spmv: ``A_col[A_row[i]:A_row[i + 1]]``)."""
        def adjusted(part: ast.expr | None, default: Sym) -> Sym:
            if part is None:
                return default
            written = _ViewShapes(self).visit(copy.deepcopy(part))
            assert isinstance(written, ast.expr), "a slice bound stays an expression"
            b = f"int({ast.unparse(written)})"
            return atom(f"(max({b} + {n.text}, 0) if {b} < 0 else min({b}, {n.text}))")
        start, stop = adjusted(item.lower, const(0)), adjusted(item.upper, n)
        return start, smax(const(0), (stop - start + const(step - 1)).floordiv(step)), step

    def bound(self, part: ast.expr, checked: bool = False) -> Sym:
        """A slice bound as a Sym: a constant, or a non-negative affine expression (an integer
        expression of the arguments that isl cannot state is a size the call computes).  With
        ``checked`` (a positive step), a bound that is not affine (``i * os``, a loop variable
        times an argument) is checked where the statement runs instead: a negative value, which
        NumPy would count from the end, raises UnsupportedError there (``run_time_bound``)."""
        written = _ViewShapes(self).visit(copy.deepcopy(part))
        assert isinstance(written, ast.expr), "a slice bound stays an expression"
        b = sym_of(written)
        if b.is_const():
            return b
        if not self.in_loop(b) and not is_affine(b.node, self.params):  # x[n * m:], x[int(t):]: a size
            computed = self.call_time_size(written)  # the call computes, then clamped as NumPy clamps
            b = b if computed is None else computed
        if checked and self.unbounded(b):
            self.pre.append(self.run_time_bound(part, f"{b.text} >= 0", "is negative, where NumPy counts it "
                                                "from the end"))
            return b
        if not self.require(f"{b.text} >= 0"):
            raise self.error(part, f"slice bound {ast.unparse(part)!r} may be negative here, where NumPy counts "
                             "it from the end; bounds that are not constants must be affine in loop variables, "
                             "integer arguments and sizes, and never negative (or, with a positive step, "
                             "products checked where they run)", "slice bound")
        return b

    def unbounded(self, b: Sym) -> bool:
        """Whether bound ``b`` is outside what isl can reason about (a product of a loop variable
        and an argument, ``i * os``), but still a polynomial in loop variables, integer arguments
        and sizes: such a bound is checked where the statement runs, not proven."""
        names = self.params | {loop.var for loop in self.loops}
        return _polynomial(b.node, names) and not is_affine(b.node, names)

    def within(self, part: ast.expr | None, hi: Sym, last: Sym) -> Sym:
        """The stop ``hi`` of a slice (positive step) that isl cannot bound: kept as written, so the
        slice's extent stays ``hi - lo``, and checked where the statement runs not to pass the
        axis's end ``last`` (where NumPy would clip it; polyfuse raises UnsupportedError)."""
        assert part is not None, "a stop bound was given"
        self.pre.append(self.run_time_bound(part, f"{hi.text} <= {last.text}",
                                            f"is past the axis's end {last.text}, where NumPy clips it"))
        return hi

    def run_time_bound(self, part: ast.expr, test: str, what: str) -> ast.Assert:
        """A check, where the statement runs, that slice bound ``part`` satisfies ``test``: an
        UnsupportedError naming the bound's location where it does not (NumPy's clipping and
        counting from the end are not modelled for bounds isl cannot bound)."""
        span = self.source.span(part)
        where = f"{span.filename}:{span.line}:{span.col + 1}"
        return run_time_error(test, "UnsupportedError", f"{where}: slice bound {ast.unparse(part)!r} {what}; "
                              "polyfuse checks slice bounds that are products of loop variables and arguments "
                              "where they run, and supports them only inside the axis")

    def clamp(self, b: Sym, last: Sym) -> Sym:
        """``min(b, last)`` for a non-negative bound, or ``b`` where it never exceeds ``last``."""
        if b.is_const() and last.is_const():
            return const(min(b.const, last.const))
        return b if self.proven(f"{b.text} <= {last.text}") else smin(b, last)

    def _BinOp(self, node: ast.BinOp) -> View:
        # a product, or a sum with a product of sparse matrices (frontend/array_sparse.py)
        product = self.products.value(self, node) if isinstance(node.op, (ast.MatMult, ast.Add, ast.Sub)) else None
        if product is not None:  # frontend/array_linalg.py
            return product
        lhs, rhs = self.value(node.left), self.value(node.right)
        if isinstance(node.op, ast.Pow) and lhs.rank and lhs.vtype == BOOL and rhs.rank == 0 \
                and rhs.vtype == WEAK_INT:
            lhs = self.squared_bools(node, lhs, rhs)
        return self.binop(node, node.op, lhs, rhs)

    def squared_bools(self, node: ast.BinOp, x: View, exponent: View) -> View:
        """``x ** 2`` of a boolean array: NumPy's ``**`` takes np.square for a Python int 2, whose
        boolean result is int8 (np.power's, and any other exponent's, is int64), so ``x`` is
        int8 there; an exponent known only at run time is refused (its dtype depends on it)."""
        if _number(exponent.element(())) is None:
            raise self.error(node, "a boolean array raised to a Python int known at run time (NumPy "
                             "gives int8 where it is 2, int64 elsewhere); convert one side", "integer power")
        if _number(exponent.element(())) != 2:
            return x
        to_int8 = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "int8", ast.Load())
        return self.elementwise(lambda a: ast.Call(copy.deepcopy(to_int8), [a], []), [x], VType("int8", False))

    def binop(self, node: ast.AST, op: ast.operator, lhs: View, rhs: View) -> View:
        if lhs.picks or rhs.picks:
            return self.picked_binop(node, op, lhs, rhs)
        if lhs.rank == 0 and rhs.rank == 0:
            return scalar_op(lambda a, b: ast.BinOp(a, op, b), [lhs, rhs], binop_type(op, lhs, rhs))
        if UNKNOWN not in (lhs.vtype, rhs.vtype) and not isinstance(op, ast.Div):
            result = binop_type(op, lhs, rhs)  # x_uint8 * s: s converted once (OverflowError)
            lhs, rhs = self.converted_once(lhs, result), self.converted_once(rhs, result)
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and lhs.vtype.dtype == rhs.vtype.dtype == "bool":
            return self.logical(node, op, lhs, rhs)
        if type(op) in BITWISE:
            return self.bitwise(node, op, lhs, rhs)
        if lhs.vtype.dtype == "bool" and rhs.vtype.dtype == "bool":
            if isinstance(op, (ast.Add, ast.Mult)):  # NumPy's add and multiply of booleans: or, and
                return self.logical(node, ast.BitOr() if isinstance(op, ast.Add) else ast.BitAnd(), lhs, rhs)
            raise self.error(node, f"{type(op).__name__.lower()} of two boolean arrays (NumPy raises or gives "
                             "int8 there; + and * are or and and; cast one with .astype(np.int64) for numbers)",
                             "bool array")
        if isinstance(op, ast.Pow) and lhs.vtype.is_int and rhs.vtype.is_int and not _nonnegative(rhs) \
                and (_number(rhs.element(())) is not None if not rhs.rank else lhs.vtype.dtype == "bool"
                     or rhs.vtype.dtype == "bool" or lhs.vtype is UNKNOWN or rhs.vtype is UNKNOWN):
            # an integer exponent that is an array or known at run time: each element's power is the
            # scalar one, which raises NumPy's ValueError where an exponent is negative (expressions.py)
            raise self.error(node, "an integer array raised to a power other than a non-negative integer "
                             "constant", "integer power")
        vtype = binop_type(op, lhs, rhs)
        if isinstance(op, ast.Pow) and lhs.rank and not rhs.rank and lhs.vtype.is_float and rhs.vtype.is_float \
                and vtype.is_float:
            # NumPy's power loop over an array and one float exponent takes sqrt where it is 0.5 (sqrt(-0.0)
            # is -0.0, sqrt(-inf) NaN, where C's pow gives 0.0 and inf): np.power's elements do the same
            power = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "power", ast.Load())
            return self.elementwise(lambda a, b: ast.Call(power, [a, b], []), [lhs, rhs], vtype, node)
        return self.elementwise(lambda a, b: ast.BinOp(a, op, b), [lhs, rhs], vtype, node)

    def picked_binop(self, node: ast.AST, op: ast.operator, lhs: View, rhs: View) -> View:
        """``lhs op rhs`` where an operand's type is one Python picks by value (View.picks): each
        candidate's operation is lowered (the elements are the same expression; the lifter types
        each branch of the pick as Python does); of scalars, the result's candidates; with an
        array, its dtype where every candidate gives the same (x / max(1.0, np.max(x)) of a
        float64, float32 or int64 x), else not known (refused where an array temporary needs it)."""
        return self.per_pick([lhs, rhs], lambda a, b: self.binop(node, op, a, b))

    def per_pick(self, args: list[View], build: Callable[..., View]) -> View:
        """``build`` of ``args``, some of whose types Python picks by value (View.picks), built
        for each combination of their candidate types: of scalars, a scalar whose candidates are
        the results'; an array of the one dtype every combination gives, else of a type not
        known here (refused where a temporary needs it), as where the elements differ."""
        results = [build(*views) for views in itertools.product(*map(_candidates, args))]
        types = [r.vtype for r in results]
        if any(t.dtype == "unknown" for t in types):
            types = []
        if results[0].rank == 0:
            return View((), UNKNOWN, results[0].element, picks=tuple(dict.fromkeys(types)))
        probes = tuple(atom(f"pf_probe{d}") for d in range(results[0].rank))
        same = {ast.dump(r.element(probes)) for r in results}  # (x ** m: np.power for a float m only)
        if types and all(t == types[0] for t in types) and len(same) == 1:
            return results[0]
        return View(results[0].extents, UNKNOWN, results[0].element)

    def logical(self, node: ast.AST, op: ast.operator, lhs: View, rhs: View) -> View:
        """``&``, ``|``, ``^`` of boolean arrays: ``and``, ``or``, ``!=`` of their elements."""
        if isinstance(op, ast.BitXor):
            return self.elementwise(lambda a, b: ast.Compare(a, [ast.NotEq()], [b]), [lhs, rhs], BOOL)
        bool_op = ast.And() if isinstance(op, ast.BitAnd) else ast.Or()
        return self.elementwise(lambda a, b: ast.BoolOp(bool_op, [a, b]), [lhs, rhs], BOOL)

    def bitwise(self, node: ast.AST, op: ast.operator, lhs: View, rhs: View) -> View:
        """``& | ^ << >>`` of integer arrays (and of a boolean one with integers): the operator on
        each element, in the dtype numpy's ufunc gives (a TypeError of floats, refused here)."""
        operands = [lhs, rhs]
        if any(v.vtype is UNKNOWN for v in operands):
            vtype = UNKNOWN
        else:
            vtype = self.numpy_type(node, BITWISE_UFUNCS[BITWISE[type(op)]], operands)
        return self.elementwise(lambda a, b: ast.BinOp(a, op, b), operands, vtype, node)

    def invert(self, node: ast.AST, inner: View) -> View:
        """``~x`` of an array: ``not`` of each element of a boolean array, else all bits flipped."""
        if inner.vtype.dtype == "bool":
            return self.elementwise(lambda a: ast.UnaryOp(ast.Not(), a), [inner], BOOL)
        if inner.vtype is not UNKNOWN and not inner.vtype.is_int:
            raise self.error(node, f"~ of a {inner.vtype.dtype} array is a TypeError in NumPy; bitwise operators "
                             "take integer and boolean arrays", "bitwise operator")
        return self.elementwise(lambda a: ast.UnaryOp(ast.Invert(), a), [inner], inner.vtype)

    def elementwise(self, make: Callable, views: list[View], vtype: VType, node: ast.AST | None = None) -> View:
        """An elementwise result; an array is a strong numpy value even when every element is a
        Python number (np.where(c, 1.0, 0.0)), so where that changes the computation, refuse."""
        self.changed = True
        extents, indexers = self.broadcast(views)
        if node is not None and len(views) > 1:
            as_elements = _fold([_unbool(v.vtype) for v in views])
            as_arrays = _fold([_unbool(VType(v.vtype.dtype, False) if v.rank else v.vtype) for v in views])
            if as_elements.dtype != as_arrays.dtype:
                raise self.error(node, f"an array of Python numbers here meets a {as_elements.dtype} value: "
                                 f"NumPy computes in {as_arrays.dtype}, element by element it would be "
                                 f"{as_elements.dtype}; convert one side", "weak array")

        def element(idx: tuple[Sym, ...]) -> ast.expr:
            return make(*[v.element(f(idx)) for v, f in zip(views, indexers)])
        return View(extents, vtype, element)  # the elements' type: what the lifter will compute

    def _UnaryOp(self, node: ast.UnaryOp) -> View:
        inner = self.value(node.operand)
        if inner.rank == 0:
            vt = BOOL if isinstance(node.op, ast.Not) else inner.vtype
            return scalar_op(lambda a: ast.UnaryOp(node.op, a), [inner], vt)
        if isinstance(node.op, ast.Not):
            raise self.error(node, "'not' of an array (its truth value is ambiguous); use ~ or a comparison",
                             "array truth value")
        if isinstance(node.op, ast.Invert):
            return self.invert(node, inner)
        if inner.vtype.dtype == "bool" and isinstance(node.op, (ast.USub, ast.UAdd)):
            sign = "-" if isinstance(node.op, ast.USub) else "+"
            raise self.error(node, f"'{sign}' of a boolean array (NumPy refuses it)", "bool array")
        vt = inner.vtype
        return self.elementwise(lambda a: ast.UnaryOp(node.op, a), [inner], vt)

    def _Compare(self, node: ast.Compare) -> View:
        same = self.dtype_test(node)
        if same is not None:  # x.dtype == np.float32: a Python bool the types decide
            self.changed = True
            return scalar(ast.Constant(same), BOOL)
        terms = [self.value(node.left)] + [self.value(c) for c in node.comparators]
        if all(t.rank == 0 for t in terms):
            return scalar_op(lambda *xs: ast.Compare(xs[0], node.ops, list(xs[1:])), terms, BOOL)
        if len(node.ops) != 1:
            raise self.error(node, "a chained comparison of arrays (its truth value is ambiguous)",
                             "array truth value")
        return self.elementwise(lambda a, b: ast.Compare(a, node.ops, [b]), terms, BOOL, node)

    def _BoolOp(self, node: ast.BoolOp) -> View:
        values = [self.value(v) for v in node.values]
        if any(v.rank for v in values):
            raise self.error(node, "'and'/'or' of arrays (their truth value is ambiguous)", "array truth value")
        # type(node): a user's ``a and b`` stays one (source.BoolOp), its value the deciding operand's
        # in that operand's type, as Python's (``(T[0] or 3) * M[i][0]`` of an int16 T and int8 M:
        # int8 where 3 decides); the frontend's own stays a logical operator of bools
        vt = BOOL
        if any(v.vtype.dtype != "bool" for v in values):
            vt = _unbool(values[0].vtype)
            for v in values[1:]:
                vt = promote_any(vt, _unbool(v.vtype))
        return scalar_op(lambda *xs: type(node)(node.op, list(xs)), values, vt)

    def _IfExp(self, node: ast.IfExp) -> View:
        if (self.array_valued(node.body) or self.array_valued(node.orelse)) and not self.array_valued(node.test):
            return self.choice(node)
        parts = [self.value(node.test), self.value(node.body), self.value(node.orelse)]
        if any(p.rank for p in parts):
            raise self.error(node, "'a if c else b' with arrays; use np.where(c, a, b)", "array truth value")
        # type(node): a user's choice (source.IfExp) stays one, typed per branch as Python does
        # (``(i if i > T[0] else T[0]) - M[i][0]`` of an int16 T and int8 M: int8 where i is taken)
        return scalar_op(lambda c, a, b: type(node)(c, a, b), parts,
                         promote_any(_unbool(parts[1].vtype), _unbool(parts[2].vtype)))

    def choice(self, node: ast.IfExp) -> View:
        """``(X if c else Y) * 2`` of arrays, ``c`` no array: a new array of the two branches' one
        dtype and shape, filled by an ``if c:`` / ``else:`` statement before the statement that
        reads it, each branch computed (with the statements its value needs) only where Python
        evaluates it.  Extents not proven equal are required equal, checked per call (a call
        where they differ, which Python may run, is refused); other dtypes or ranks are refused."""
        test = self.value(node.test)
        if test.rank or test.vtype == UNKNOWN:
            raise self.error(node, "'a if c else b' with arrays; use np.where(c, a, b)", "array truth value")
        removed = _branch_ids(node) & self.conditional
        self.conditional -= removed  # each branch is computed in a branch of an if statement
        start = len(self.pre)
        a = self.value(node.body)
        middle = len(self.pre)
        b = self.value(node.orelse)
        pre_a, pre_b = self.pre[start:middle], self.pre[middle:]
        del self.pre[start:]
        if a.rank == 0 and b.rank == 0:  # (x.max() if x.size else 0.0): scalars, which read arrays
            if not pre_a and not pre_b:  # as before fe32: the choice of the two values
                self.conditional |= removed
                return scalar_op(lambda c, x, y: type(node)(c, x, y), [test, a, b],  # the user's choice stays one (_IfExp)
                                 promote_any(_unbool(a.vtype), _unbool(b.vtype)))
            name = self.fresh("chosen")  # each branch's statements (a reduction's loop) only where it runs
            made = ast.If(test.element(()), pre_a + [ast.Assign([ast.Name(name, ast.Store())], a.element(()))],
                          pre_b + [ast.Assign([ast.Name(name, ast.Store())], b.element(()))])
            _locate(made, node)
            self.pre.append(made)
            self.changed = True
            return scalar(ast.Name(name, ast.Load()), _merged_any(a.vtype, b.vtype))
        if not (a.rank and b.rank) or a.rank != b.rank or UNKNOWN in (a.vtype, b.vtype) \
                or a.vtype.dtype != b.vtype.dtype:
            kinds = " and ".join(f"{v.vtype.dtype} of rank {v.rank}" if v.rank else "a scalar" for v in (a, b))
            raise self.error(node, f"'a if c else b' of {kinds}: arrays of one dtype and rank are supported "
                             "(or use np.where(c, a, b))", "array choice")
        for x, y in zip(a.extents, b.extents):
            if not self.equal_extents(x, y) and not self.assumed_equal(x, y):
                raise self.error(node, f"'a if c else b' of arrays whose extents {x.text!r} and {y.text!r} may "
                                 "differ at every iteration", "array choice")
        dtype = a.vtype.dtype
        array = self.fresh("choice")
        self.allocate(array, a.extents, dtype)
        stored = leaf(array, a.extents, dtype)

        def fill(v: View) -> list[ast.stmt]:
            return self.nest(a.extents, lambda k: [ast.Assign([_store(stored.element(k))], v.element(k))])
        made = ast.If(test.element(()), pre_a + fill(a), pre_b + fill(b))
        _locate(made, node)
        self.pre.append(made)
        self.names[array] = ArrayName(array, a.extents, dtype, "temp", self.block)
        self.changed = True
        return stored

    def _Call(self, node: ast.Call) -> View:
        func = node.func
        if is_boxed(node):  # a numba helper's value: an array as it is, a scalar as a Python number
            inner = self.value(node.args[0])
            if inner.rank:
                self.changed = True
                return inner
            kind = inner.vtype
            boxed = UNKNOWN if kind is UNKNOWN else WEAK_COMPLEX if kind.is_complex else WEAK_FLOAT \
                if kind.is_float else VType("bool", True) if kind.dtype == "bool" else WEAK_INT
            return scalar_op(lambda a: ast.Call(func, [a], []), [inner], boxed)
        if is_prefix_index_call(node):  # an index array checked against a count (selection_loops)
            index, count = self.value(node.args[0]), self.value(node.args[1])
            return self.elementwise(prefix_index, [index, count], index.vtype)
        module = module_of(func.value, self.globals) if isinstance(func, ast.Attribute) else None
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        product = self.products.value(self, node)  # @, np.dot, np.einsum, ...: frontend/array_linalg.py
        if product is not None:
            return product
        grid = self.indexing.grid(self, node) if module == "np" else None  # np.indices(shape)
        if grid is not None:
            return grid
        special = self.array_call(node, module, name)
        if special is not None:
            return special
        operand = node.args[0] if module == "np" and node.args else func.value if isinstance(func, ast.Attribute) \
            and module is None else None
        if name in _REDUCTIONS and operand is not None \
                and (module == "np" or name in ("sum", "prod", "mean", "max", "min")):
            masked = self.masked_read(operand)
            if masked is not None:
                return self.masked_reduction(node, _REDUCTIONS[name], *masked,
                                             node.args[1:] if module == "np" else node.args)
        if module == "np" and name in _REDUCTIONS and node.args:
            return self.reduction(node, _REDUCTIONS[name], self.value(node.args[0]), node.args[1:])
        if module is None and isinstance(func, ast.Attribute) and name in _REDUCTIONS:
            inner = self.value(func.value)
            if inner.rank > 0:
                return self.reduction(node, _REDUCTIONS[name], inner, node.args)
        if module == "np" and name == "apply_along_axis":
            return self.apply_along_axis(node)
        if module == "np" and name in _OUT_WHERE_UFUNCS and node.keywords \
                and {kw.arg for kw in node.keywords} == {"out", "where"}:
            return self.ufunc_out_where(node, name)
        if node.keywords:
            if module == "np" and name in _REFUSED:
                raise self.error(node, f"{name}() is not supported: {_REFUSED[name]}", "array call")
            if module == "np" and node.args and self.value_rank(node.args[0]):  # np.nanstd(X, axis=0), ...
                raise self.error(node, f"np.{name}() of an array is not supported (with keyword arguments "
                                 f"{', '.join(str(kw.arg) for kw in node.keywords)}=)", "array call")
            return scalar(node, UNKNOWN)
        args = [self.value(a) for a in node.args]
        if module == "np" and name in ("maximum", "minimum") and len(args) == 2:
            if any(a.picks for a in args) and any(a.rank for a in args):  # np.maximum(x, max(s, x[0]))
                return self.per_pick(args, lambda a, b: self.combine(
                    node, [a, b], lambda p, q: _extreme(name == "maximum", p, q, ties_to_b=True),
                    _extreme_type(a.vtype, b.vtype)))
            result = _extreme_type(args[0].vtype, args[1].vtype)
            if any(a.rank for a in args):  # np.maximum(x_int8, s) of s = 300 raises
                self.literals_fit(node, args, result)
                args = [self.converted_once(a, result) for a in args]
            elif result is not UNKNOWN and not any(a.picks for a in args):
                result = VType(result.dtype, False)
                args = [_as_numpy_scalar(a, result) for a in args]
            return self.combine(node, args, lambda a, b: _extreme(name == "maximum", a, b, ties_to_b=True), result)
        if module == "np" and name == "where" and len(args) == 3:
            if args[1].vtype.dtype == args[2].vtype.dtype == "bool":  # NumPy's bool, of Python bools too
                return self.combine(node, args, lambda c, a, b: ast.IfExp(c, _np_bool(a), _np_bool(b)), BOOL_ARRAY)
            result = promote_any(_unbool(args[1].vtype), _unbool(args[2].vtype))
            fit = [_python_int_wrapped(a, result) for a in args[1:]]  # np.where(c, x_uint8, 256): 0
            return self.combine(node, args, lambda c, a, b: ast.IfExp(c, fit[0](a), fit[1](b)), result)
        if module == "np" and name == "where" and len(args) == 1 and args[0].rank:
            raise self.error(node, "np.where(condition) with one argument is np.nonzero: its result has a "
                             "data-dependent shape (np.where(c, a, b) is supported; so is idx = np.where(c)[0] of a "
                             "1-d c returned, used as x[idx], x[idx, j], idx[0], len(idx) or in for i in idx)",
                             "array call")
        if any(a.rank for a in args):
            scalar_type = getattr(np, name, None) if module == "np" else None
            if len(args) == 1 and isinstance(scalar_type, type) and issubclass(scalar_type, np.generic):
                return self.call_astype(node, args[0], [func])  # np.float64(x) of an array: x.astype
            if len(args) == 1 and ((module is None and isinstance(func, ast.Name) and func.id == "abs")
                                   or (module == "np" and name in ("abs", "absolute"))):
                if args[0].vtype.is_complex:  # np.absolute's magnitude (self.ufunc), not a scalar's hypot
                    return self.ufunc(node, "absolute", args)
                vtype = args[0].vtype
                return self.elementwise(lambda a: ast.Call(ast.Name("abs", ast.Load()), [a], []), args, vtype)
            inserted = self.insert_end(node, args) if module == "np" and name == "insert" else None
            if inserted is not None:
                return inserted
            appended = self.append_once(node, args) if module == "np" and name == "append" else None
            if appended is not None:
                return appended
            if module == "np" and name in ("append", "insert", "delete"):  # a shape that grows (shrinks) each call
                insert = "np.insert(x, 0, v) and np.insert(x, len(x), v) of a 1-d x and a number v that converts " \
                    "to x's dtype are; " if name == "insert" else ""
                raise self.error(node, f"np.{name}() of an array is not supported here ({insert}it makes a new array "
                                 "of another length each time); for a growing array, collect the values in a list (out = [] "
                                 "... out.append(v)) and return np.array(out, dtype=...), or allocate the result "
                                 "(out = np.empty(n)) and write out[i] = v; to join arrays once, np.concatenate",
                                 "array call")
            if module == "np" and name in _HELPER_FORMS:
                raise self.error(node, f"np.{name}() here: {_HELPER_FORMS[name]}", "array call")
            raise self.error(node, f"{ast.unparse(func)}() of an array is not supported; use + - * / // % **, "
                             "comparisons, abs, the np.* functions of scalars (np.exp, np.arctan2, ...), "
                             "np.where, np.clip, .astype, .copy, np.transpose and the reductions", "array call")
        return self.scalar_call(node, module, name, args)

    def apply_along_axis(self, node: ast.Call) -> View:
        """``np.apply_along_axis(f, axis, a)`` of a NumPy function ``f`` that takes ``axis=``
        (``_ALONG_AXIS``: reductions, ``np.linalg.norm``, ``np.cumsum``; not the sorts, written as
        helpers before the lowering) and a
        constant ``axis``: ``f(a, axis=axis)``, the values and shape NumPy's loop over the other
        axes builds; a call whose other axes hold no element raises NumPy's ValueError there."""
        func = node.args[0] if node.args else None
        owner = func.value if isinstance(func, ast.Attribute) else None
        linalg = isinstance(owner, ast.Attribute) and owner.attr == "linalg" \
            and module_of(owner.value, self.globals) == "np"
        known = isinstance(func, ast.Attribute) and (
            linalg and func.attr == "norm" or module_of(func.value, self.globals) == "np" and func.attr in _ALONG_AXIS)
        axis = node.args[1] if len(node.args) == 3 else None
        if isinstance(axis, ast.UnaryOp) and isinstance(axis.op, ast.USub) and isinstance(axis.operand, ast.Constant) \
                and type(axis.operand.value) is int:
            axis = ast.copy_location(ast.Constant(-axis.operand.value), axis)
        if not known or node.keywords or not (isinstance(axis, ast.Constant) and type(axis.value) is int) \
                or isinstance(node.args[2], ast.Starred):
            raise self.error(node, "np.apply_along_axis(f, axis, a) is supported of a NumPy function f that takes "
                             f"axis= ({', '.join(sorted(_ALONG_AXIS))}, np.linalg.norm), a constant axis and no "
                             "extra arguments; write f(a, axis=...) or the loop", "array call")
        a = self.peek(node.args[2])
        if not a.rank or not -a.rank <= axis.value < a.rank:
            raise self.error(node, "np.apply_along_axis() of a scalar or along an axis the array does not have "
                             "(NumPy raises AxisError)", "array call")
        for d, e in enumerate(a.extents):
            if d != axis.value % a.rank and not self.proven(f"{e.text} >= 1"):
                self.pre.append(value_error(f"{e.text} != 0", "Cannot apply_along_axis when any iteration "
                                            "dimensions are 0"))
        assert func is not None
        call = ast.copy_location(ast.Call(copy.deepcopy(func), [node.args[2]],
                                          [ast.keyword("axis", ast.Constant(axis.value))]), node)
        _locate(call.keywords[0].value, node)
        return self.value(call)

    def ufunc_out_where(self, node: ast.Call, name: str) -> View:
        """``np.divide(a, b, out=np.zeros_like(a), where=b != 0)`` (the arithmetic ufuncs of
        ``_OUT_WHERE_UFUNCS``) with ``out`` a fresh array (``np.zeros_like``, ``np.ones_like``,
        ``np.full_like``, ``np.zeros``, ``np.ones``, ``np.full``): ``out``'s element where
        ``where`` is false, the ufunc's value converted to ``out``'s dtype where it is true, as
        ``np.where(where, np.divide(a, b), out)`` of ``out``'s dtype; the ufunc's value is
        computed everywhere (no trap: integer ``floor_divide`` and ``remainder`` are not
        here).  ``out`` must have the arguments' broadcast shape (``where`` broadcast to it),
        and the ufunc's dtype cast to ``out``'s as NumPy's ``same_kind`` (or refused)."""
        options = {kw.arg: kw.value for kw in node.keywords}
        out_node, where_node = options["out"], options["where"]
        fresh = isinstance(out_node, ast.Call) and isinstance(out_node.func, ast.Attribute) \
            and out_node.func.attr in ("zeros_like", "ones_like", "full_like", "zeros", "ones", "full") \
            and module_of(out_node.func.value, self.globals) == "np"
        if not fresh or len(node.args) != (1 if name in _UNARY_OUT_WHERE else 2) \
                or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.error(node, f"np.{name}(..., out=, where=) with out other than a fresh array "
                             "(out=np.zeros_like(a), np.ones_like, np.full_like, np.zeros, np.ones, np.full); for an "
                             f"existing array write out[...] = np.where(where, np.{name}(...), out)", "array call")
        plain = ast.copy_location(ast.Call(node.func, list(node.args), []), node)
        value, out, where = self.value(plain), self.value(out_node), self.value(where_node)
        if UNKNOWN in (value.vtype, out.vtype) or where.vtype.dtype != "bool" \
                or not np.can_cast(value.vtype.dtype, out.vtype.dtype, "same_kind"):
            raise self.error(node, f"np.{name}(..., out=, where=) of a {value.vtype.dtype} value into a "
                             f"{out.vtype.dtype} out (NumPy casts as 'same_kind' and raises otherwise) or a where "
                             "that is not a bool array", "array call")
        for part in (value, where):
            if part.rank > out.rank or any(
                    not (e.is_const(1) or self.equal_extents(e, o) or self.assumed_equal(e, o))
                    for e, o in zip(part.extents[::-1], out.extents[::-1])):
                raise self.error(node, f"np.{name}(..., out=, where=) whose arguments or where may not broadcast "
                                 "to out's shape (NumPy raises there)", "array call")
        dtype = out.vtype.dtype
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_" if dtype == "bool" else dtype, ast.Load())
        strong = VType(dtype, False)

        def chosen(c: ast.expr, v: ast.expr, o: ast.expr) -> ast.expr:
            return ast.IfExp(c, v if value.vtype.dtype == dtype else ast.Call(copy.deepcopy(cast), [v], []), o)
        return self.combine(node, [where, value, out], chosen, strong)

    def append_once(self, node: ast.Call, args: list[View]) -> View | None:
        """``np.append(a, v)`` (no ``axis``) of scalars and 1-d arrays: NumPy's
        ``np.concatenate((np.ravel(a), np.ravel(v)))``, a scalar as the list ``[s]`` (the dtype
        ``np.asarray`` gives it: a Python float float64, strong); None for other forms (refused
        as before: in a loop or branch it is a growing array, out = np.append(out, v))."""
        if len(node.args) != 2 or node.keywords or len(args) != 2 or any(a.rank > 1 for a in args) \
                or not self.at_top:
            return None
        pieces: list[ast.expr] = [ast.List([copy.deepcopy(given)], ast.Load()) if view.rank == 0
                                  else copy.deepcopy(given) for given, view in zip(node.args, args)]
        func = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "concatenate", ast.Load())
        call = ast.Call(func, [ast.Tuple(pieces, ast.Load())], [])
        for sub in ast.walk(call):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                ast.copy_location(sub, node)
        return self.joins.value(self, call, "concatenate")

    def insert_end(self, node: ast.Call, args: list[View]) -> View | None:
        """``np.insert(x, 0, v)`` (``np.insert(x, len(x), v)``; ``x.shape[0]``, ``x.size``) of a 1-d
        array ``x`` and a scalar ``v`` (frontend/numba_idioms.py takes an array argument ``x``
        before this; here ``x`` is any 1-d array expression, ``np.cumsum(np.insert(r * r, 0, 0.0))``):
        a local array one longer, ``v`` converted to ``x``'s dtype as np.insert converts it, in
        front (at the end).  None where the conversion could raise or lose what NumPy keeps (a
        float into an integer array, a Python int variable that may not fit, a complex into a real one)."""
        if len(args) != 3 or node.keywords or args[0].rank != 1 or args[2].rank != 0:
            return None
        x, v, at, written = args[0], args[2], node.args[1], node.args[0]
        first = isinstance(at, ast.Constant) and type(at.value) is int and at.value == 0
        of_x = at.args[0] if isinstance(at, ast.Call) and isinstance(at.func, ast.Name) and at.func.id == "len" \
            and len(at.args) == 1 else at.value if isinstance(at, ast.Attribute) \
            and at.attr == "size" else at.value.value if isinstance(at, ast.Subscript) \
            and isinstance(at.value, ast.Attribute) and at.value.attr == "shape" and _int_const(at.slice) == 0 \
            else None
        last = of_x is not None and ast.dump(of_x) == ast.dump(written)
        dtype, given = x.vtype.dtype, v.vtype
        if not (first or last) or dtype not in _DTYPES or given.dtype == "unknown":
            return None
        if dtype == "bool" and given.dtype != "bool" or given.is_complex and dtype not in COMPLEX:
            return None
        if dtype in INTS:
            number = int_constant(node.args[2])
            fits = number is not None and np.iinfo(dtype).min <= number <= np.iinfo(dtype).max
            if given.dtype not in INTS or given.weak and not fits and dtype != "int64":  # (a Python int argument fits)
                return None
        n = x.extents[0]
        extent = n + const(1)
        array = self.fresh("insert")
        self.allocate(array, (extent,), dtype)
        out = leaf(array, (extent,), dtype)
        shift = const(1) if first else const(0)
        self.pre.extend(self.nest((n,), lambda k: [ast.Assign([_store(out.element((k[0] + shift,)))], x.element(k))]))
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_" if dtype == "bool" else dtype, ast.Load())
        self.pre.append(ast.Assign([_store(out.element((const(0) if first else n,)))],
                                   ast.Call(cast, [v.element(())], [])))
        self.changed = True
        return out

    def scalar_call(self, node: ast.Call, module: str | None, name: str, args: list[View]) -> View:
        """A call of scalars; its arguments may still hold reductions that were lowered
        (np.sqrt(x.sum())), so each argument is lowered once, by the caller."""
        func = node.func
        if module == "np" and not is_supported("np", name):  # np.kaiser(n, beta): the checker's refusal, here
            raise self.error(node, f"unsupported construct: call to np.{name}; {SUPPORTED_HINT['expr']}",
                             f"call to np.{name}")  # (not a question of its dtype at a later line)
        made = type(node)  # a builtin min/max the user wrote stays one (source.Call): its operand's own type
        vtype = self.scalar_call_type(node, module, name, args)
        picks: tuple[VType, ...] = ()
        if vtype is UNKNOWN and module is None and name in ("max", "min") and len(args) >= 2:
            # one of its arguments, picked by value: a type among theirs (numbers, not bools or complex)
            kinds = [c.vtype for a in args for c in _candidates(a)]
            if all(t.dtype != "unknown" and t.dtype != "bool" and not t.is_complex for t in kinds):
                picks = tuple(dict.fromkeys(kinds))
        return View((), vtype, lambda idx: made(func, [a.element(()) for a in args], []), picks=picks)

    def scalar_call_type(self, node: ast.Call, module: str | None, name: str, args: list[View]) -> VType:
        """``np.sign(0.5)``, ``np.float32(s)``: numpy scalars (strong), typed as numpy types them,
        so array temporaries that meet them get NumPy's dtype.  ``math.*`` functions and the
        ``float()``/``int()`` casts give Python numbers (weak, NEP 50); other calls are not known here."""
        if module is None and name in ("float", "int") and len(args) == 1:  # whatever the argument's type
            return WEAK_FLOAT if name == "float" else WEAK_INT
        if any(a.vtype is UNKNOWN for a in args):
            return UNKNOWN
        if module == "math" and is_supported("math", name):
            if name in ("floor", "ceil", "trunc"):
                return WEAK_INT
            return BOOL if name in ("isnan", "isinf", "isfinite") else WEAK_FLOAT
        if module is None and name == "complex" and len(args) in (1, 2):
            return WEAK_COMPLEX
        if module is None and name in ("max", "min", "abs") and len(args) >= (1 if name == "abs" else 2) \
                and all(a.vtype == args[0].vtype for a in args) and args[0].vtype.dtype not in ("bool", "unknown") \
                and not args[0].vtype.is_complex and (name != "abs" or len(args) == 1):
            return args[0].vtype  # max(1, n): one of its arguments, all of one type (a Python int here)
        if module is None and name in ("conj", "conjugate") and not args:
            return self.value(node.func.value).vtype  # type: ignore[attr-defined]
        if module == "cmath" and is_supported("cmath", name):
            return WEAK_FLOAT if name == "phase" else WEAK_COMPLEX
        if module != "np":
            return UNKNOWN
        cast = np_scalar_type(name)
        if cast is not None:
            return VType(cast, False)
        if name in ("maximum", "minimum", "where") or not is_supported("np", name) or len(args) != arity("np", name):
            return UNKNOWN
        return self.numpy_type(node, getattr(np, name), args)

    def combine(self, node: ast.AST, args: list[View], make: Callable, vtype: VType) -> View:
        self.changed = True
        if all(a.rank == 0 for a in args):
            return scalar_op(make, args, vtype)
        return self.elementwise(make, args, vtype, node)

    # ---- array calls: methods, np.transpose/clip/copy, ufuncs, ufunc.reduce -------------------
    def array_call(self, node: ast.Call, module: str | None, name: str) -> View | None:
        """The calls whose meaning on arrays differs from the scalar one (None: not one)."""
        idiom = self.forms.call(self, node, module, name) if self.forms is not None else None
        if idiom is not None:  # np.diff, np.roll, np.round, np.isclose, ... (frontend/array_idioms.py)
            return idiom
        func = node.func
        if module == "np" and node.args and [kw.arg for kw in node.keywords] == ["dtype"] \
                and isinstance(getattr(np, name, None), np.ufunc):
            return self.ufunc_in_dtype(node, name)
        if isinstance(func, ast.Attribute) and name == "reduce" and isinstance(func.value, ast.Attribute) \
                and module_of(func.value.value, self.globals) == "np":
            return self.ufunc_reduce(node, func.value.attr)
        if isinstance(func, ast.Attribute) and name == "accumulate" and isinstance(func.value, ast.Attribute) \
                and module_of(func.value.value, self.globals) == "np":
            return self.ufunc_accumulate(node, func.value.attr)
        if isinstance(func, ast.Attribute) and name == "outer" and isinstance(func.value, ast.Attribute) \
                and module_of(func.value.value, self.globals) == "np":
            return self.ufunc_outer(node, func.value.attr)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) \
                and func.value.attr == "linalg" and module_of(func.value.value, self.globals) == "np":
            if name == "norm":
                return self.norm(node)
            if self.products.linalg is not None:  # cholesky, inv, solve, det, ... on LAPACK
                return self.products.linalg(self, node, name)
            raise self.error(node, f"np.linalg.{name}() is not supported; write the loops, or call it outside "
                             "the kernel", "np.linalg")
        if module == "np" and name in _BINARY_UFUNCS and len(node.args) == 2 and not node.keywords:
            a, b = self.value(node.args[0]), self.value(node.args[1])
            if a.rank or b.rank:  # np.add(x, y) is x + y on arrays
                self.changed = True
                return self.binop(node, _BINARY_UFUNCS[name](), a, b)
        if module == "np" and name in _COMPARE_UFUNCS and len(node.args) == 2 and not node.keywords:
            a, b = self.value(node.args[0]), self.value(node.args[1])
            if a.rank or b.rank:  # np.less(x, y) is x < y on arrays
                op = _COMPARE_UFUNCS[name]()
                return self.elementwise(lambda u, v: ast.Compare(u, [op], [v]), [a, b], BOOL, node)
        if module == "np" and (name in _LOGICAL_UFUNCS or name == "logical_not") and not node.keywords:
            args = [self.value(a) for a in node.args]
            if len(args) == (1 if name == "logical_not" else 2) and any(a.rank for a in args):
                return self.logical_ufunc(node, name, args)
        if module == "np" and name == "expand_dims" and len(node.args) + len(node.keywords) == 2:
            x = self.value(node.args[0])
            if x.rank:
                return self.expand_dims(node, x)
        if name in ("argmin", "argmax") and (module == "np" or (module is None and isinstance(func, ast.Attribute))):
            x = self.value(node.args[0] if module == "np" and node.args else func.value)  # type: ignore[attr-defined]
            if x.rank:
                return self.arg_extreme(node, name == "argmax", x, node.args[1:] if module == "np" else node.args)
        if module == "np" and name == "average" and node.args:
            return self.average(node)
        if module == "np" and name == "linspace":
            return self.linspace(node)
        if module == "np" and name in ("array", "asarray") and node.args:
            return self.array_literal(node, name)
        if module == "np" and name in JOINS:
            return self.joins.value(self, node, name)
        if module == "np" and name in ("flip", "flipud", "fliplr"):
            return self.flip(node, name)
        if module == "np" and name in ("triu", "tril"):
            return self.triangle(node, name)
        if module == "np" and name == "cov":
            return self.cov(node)
        if module == "np" and name in ("eye", "identity"):
            return self.eye(node, name)
        if name in ("var", "std") and (module == "np" or (module is None and isinstance(func, ast.Attribute))):
            operand = node.args[0] if module == "np" and node.args else func.value  # type: ignore[attr-defined]
            masked = self.masked_read(operand)
            if masked is not None:  # x[m].std(): of the selected elements
                return self.masked_spread(node, name, *masked, node.args[1:] if module == "np" else node.args)
            x = self.value(operand)
            if x.rank:
                return self.spread(node, name, x, node.args[1:] if module == "np" else node.args)
        if name == "repeat" and (module == "np" or (module is None and isinstance(func, ast.Attribute))):
            x = self.value(node.args[0] if module == "np" and node.args else func.value)  # type: ignore[attr-defined]
            if x.rank or module == "np":
                return self.joins.repeat(self, node, x, node.args[1:] if module == "np" else node.args)
        if module == "np" and name == "bincount":
            return self.bincount(node)
        if name in _REFUSED and (module == "np" or (module is None and isinstance(func, ast.Attribute))):
            raise self.error(node, f"{name}() is not supported: {_REFUSED[name]}", "array call")
        if module == "np" and name in ALLOCATORS:
            return self.filled(node, name)
        if module == "np" and name == "arange":
            return self.arange(node)
        if module == "np" and name in ("convolve", "correlate"):
            return self.convolve(node, name)
        if module == "np" and name == "histogram":
            raise self.error(node, "np.histogram() returns two arrays (hist, bin_edges): index it "
                             "(np.histogram(...)[0]) or unpack it (hist, edges = np.histogram(...))", "np.histogram")
        if name in ("cumsum", "cumprod") and (module == "np" or (module is None and isinstance(func, ast.Attribute))):
            operand = node.args[0] if module == "np" and node.args else func.value  # type: ignore[attr-defined]
            x = self.value(operand)
            rest = node.args[1:] if module == "np" else node.args
            axes = [a for a in rest[:1]] + [kw.value for kw in node.keywords if kw.arg == "axis"]
            if x.rank > 1 and all(_is_none(a) for a in axes):  # NumPy runs over the C-order flattening
                flat = ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "ravel", ast.Load()),
                                [copy.deepcopy(operand)], [])
                _locate(flat, node)
                x = self.value(flat)
            return self.running(node, name[3:], x, rest) if x.rank or module == "np" else None
        if module is None and isinstance(func, ast.Attribute) and name == "item" and not node.args \
                and not node.keywords:
            return self.item(node, self.value(func.value))
        if module is None and isinstance(func, ast.Attribute) and name in _METHODS:
            inner = self.value(func.value)
            if inner.rank == 0:
                return None
            return getattr(self, f"call_{_METHODS[name]}")(node, inner, node.args)
        if module == "np" and name in _METHODS and node.args and name not in ("astype",):
            inner = self.value(node.args[0])
            if inner.rank == 0 and name != "clip":  # np.clip of scalars is a (strong) numpy scalar
                return None
            return getattr(self, f"call_{_METHODS[name]}")(node, inner, node.args[1:])
        if module == "np" and name not in ("maximum", "minimum", "where") and is_supported("np", name) \
                and np_scalar_type(name) is None and not node.keywords:
            args = [self.value(a) for a in node.args]
            if any(a.rank for a in args):
                return self.ufunc(node, name, args)
            # lowering an argument may have emitted statements (np.sqrt(x.mean())): not again
            return self.scalar_call(node, module, name, args)
        return None

    def shape_of(self, shape: ast.expr) -> tuple[Sym, ...]:
        """The extents a shape argument names: ``(n, 3)``, ``n``, ``x.shape``, ``x.shape[1:]``."""
        whole, part = _shape_part(shape)
        if isinstance(whole, ast.Attribute) and whole.attr == "shape":
            source = self.value(whole.value)
            if source.rank:
                return source.extents[part]
        return tuple(sym_of(d) for d in (shape.elts if isinstance(shape, ast.Tuple) else [shape]))

    def ufunc_outer(self, node: ast.Call, ufunc: str) -> View:
        """``np.add.outer(a, b)`` and the other binary ufuncs: ``a[..., None, ...] op b``, the
        result's axes those of ``a`` then those of ``b``."""
        op = _BINARY_UFUNCS.get(ufunc)
        extreme = ufunc in ("maximum", "minimum")
        if (op is None and not extreme) or len(node.args) != 2 or node.keywords:
            raise self.error(node, f"np.{ufunc}.outer() is not supported; use add, subtract, multiply, divide, "
                             "power, maximum or minimum with two arguments", "array call")
        a, b = self.value(node.args[0]), self.value(node.args[1])
        ra, rb = a.rank, b.rank
        left = View(a.extents + tuple(const(1) for _ in range(rb)), a.vtype, lambda idx: a.element(idx[:ra]), a.base)
        right = View(tuple(const(1) for _ in range(ra)) + b.extents, b.vtype, lambda idx: b.element(idx[ra:]), b.base)
        self.changed = True
        if extreme:
            return self.combine(node, [left, right], lambda x, y: _extreme(ufunc == "maximum", x, y, ties_to_b=True),
                                _extreme_type(a.vtype, b.vtype))
        assert op is not None
        return self.binop(node, op(), left, right)

    def flip(self, node: ast.Call, name: str) -> View:
        """``np.flip(x, axis)``, ``np.flipud``, ``np.fliplr``: a view with those axes reversed."""
        options = self.keywords(node, ("axis",) if name == "flip" else ())
        if not node.args or len(node.args) > (2 if name == "flip" else 1):
            raise self.error(node, f"np.{name}() takes an array{' and an axis' if name == 'flip' else ''}",
                             "array call")
        x = self.value(node.args[0])
        if x.rank == 0 or (name == "fliplr" and x.rank < 2):
            raise self.error(node, f"np.{name}() of a scalar or of too few axes", "array call")
        axis = node.args[1] if len(node.args) > 1 else options.get("axis")
        axes = (0,) if name == "flipud" else (1,) if name == "fliplr" else self.reduced_axes(axis, x.rank)
        self.changed = True

        def element(idx: tuple[Sym, ...]) -> ast.expr:
            return x.element(tuple(x.extents[d] - const(1) - i if d in axes else i for d, i in enumerate(idx)))

        return View(x.extents, x.vtype, element, x.base)

    def cov(self, node: ast.Call) -> View:
        """``np.cov(m, rowvar=True, bias=False, ddof=None)`` of a real 1-d or 2-d array, as NumPy
        computes it: the observations in float64, each variable's mean subtracted, ``D @ D.T``
        times ``1 / (observations - ddof)``.  A 2-d result of one variable (NumPy squeezes it to
        a scalar) is refused per call unless the number of variables is a constant."""
        pair = self.cov_pair(node)
        if pair is not None:
            return pair
        options = self.keywords(node, ("rowvar", "bias", "ddof"))
        if len(node.args) != 1:
            raise self.error(node, "np.cov() of other than one array (y=, fweights=, aweights= are not supported)",
                             "array call")
        flags = {key: _bool_const(options[key]) if key in options else default
                 for key, default in (("rowvar", True), ("bias", False))}
        if any(flags[key] is None for key in flags):
            raise self.error(node, "np.cov() with rowvar= or bias= other than True or False", "array call")
        ddof_node = options.get("ddof")
        ddof = None if ddof_node is None or _is_none(ddof_node) else _int_const(ddof_node)
        if ddof_node is not None and not _is_none(ddof_node) and ddof is None:
            raise self.error(ddof_node, "np.cov() with ddof= other than an integer constant", "array call")
        ddof = ddof if ddof is not None else 0 if flags["bias"] else 1
        m = self.value(node.args[0])
        if m.rank not in (1, 2) or m.vtype.is_complex or m.vtype.dtype == "bool":
            raise self.error(node, "np.cov() of other than a 1-d or 2-d real array", "array call")
        np_name = ast.Name(NP_NAME, ast.Load())
        data: ast.expr = ast.Call(ast.Attribute(copy.deepcopy(node.args[0]), "astype", ast.Load()),
                                  [ast.Attribute(np_name, "float64", ast.Load())], [])
        if m.rank == 1:
            data = ast.Subscript(data, ast.Tuple([ast.Constant(None), ast.Slice()], ast.Load()), ast.Load())
        elif not flags["rowvar"]:
            data = ast.Attribute(data, "T", ast.Load())
        rows, observations = ((const(1), m.extents[0]) if m.rank == 1 else
                              (m.extents[0], m.extents[1]) if flags["rowvar"] else
                              (m.extents[1], m.extents[0]))
        if m.rank == 2 and not (rows.is_const() and rows.const != 1) and not self.require(f"{rows.text} >= 2"):
            raise self.error(node, "np.cov() of a number of variables that may be 1 (NumPy returns a scalar then)",
                             "array call")
        mean = ast.Call(ast.Attribute(np_name, "mean", ast.Load()), [copy.deepcopy(data)],
                        [ast.keyword("axis", ast.Constant(1)), ast.keyword("keepdims", ast.Constant(True))])
        centred = self.centred(node, ast.BinOp(copy.deepcopy(data), ast.Sub(), mean))
        product = ast.BinOp(centred, ast.MatMult(), _transposed(centred))
        factor = ast.BinOp(ast.Constant(1.0), ast.Div(), (observations - const(ddof)).node)
        value: ast.expr = ast.BinOp(product, ast.Mult(), factor)
        if m.rank == 1 or rows.is_const(1):
            value = ast.Subscript(value, ast.Tuple([ast.Constant(0), ast.Constant(0)], ast.Load()), ast.Load())
        _locate(value, node)
        return self.value(value)

    def cov_pair(self, node: ast.Call) -> View | None:
        """``np.cov(x, y)`` (``y`` positional or ``y=``) of two 1-d arrays is ``np.cov`` of
        ``np.stack((x, y))``: NumPy makes each a row of one float64 matrix (``rowvar`` changes
        nothing for rows); None for anything else."""
        y = node.args[1] if len(node.args) == 2 else next((k.value for k in node.keywords if k.arg == "y"), None)
        if len(node.args) < 1 or y is None or len(node.args) > 2:
            return None
        rest = [k for k in node.keywords if k.arg != "y"]
        if any(k.arg not in ("rowvar", "bias", "ddof") for k in rest) or any(
                k.arg == "rowvar" and _bool_const(k.value) is None for k in rest):
            return None  # (refused below, as of old)
        if self.value(node.args[0]).rank != 1 or self.value(y).rank != 1:
            return None
        np_name = ast.Name(NP_NAME, ast.Load())
        stacked = ast.Call(ast.Attribute(np_name, "stack", ast.Load()),
                           [ast.Tuple([copy.deepcopy(node.args[0]), copy.deepcopy(y)], ast.Load())], [])
        made = ast.Call(ast.Attribute(copy.deepcopy(np_name), "cov", ast.Load()), [stacked],
                        [copy.deepcopy(k) for k in rest if k.arg != "rowvar"])
        _locate(made, node)
        self.changed = True
        return self.value(made)

    def centred(self, node: ast.Call, value: ast.expr) -> ast.expr:
        """np.cov's observations less their means, stored once in a local array (as NumPy's ``X``):
        the product ``X @ X.T`` then reads two plain views of it, which BLAS takes as they are
        (?syrk: frontend.array_linalg keeps it whole), and the means are computed once, not once
        per operand.  Data read transposed (``np.cov(data.T)``) is stored observations-major and
        used through ``.T``, so that the store walks the data in its own order."""
        _locate(value, node)
        view = self.value(value)
        if view.rank == 2 and _reads_transposed(view):
            by_observation = View(view.extents[::-1], view.vtype, lambda idx: view.element(idx[::-1]))
            return ast.Attribute(self.stored_local(by_observation), "T", ast.Load())
        return self.stored_local(view)

    def stored_local(self, view: View) -> ast.Name:
        """``view``'s values in a fresh float64 local array named in the kernel (filled in ``pre``)."""
        array = self.fresh("cv")
        self.allocate(array, view.extents, "float64")
        stored = leaf(array, view.extents, "float64")
        self.pre.extend(self.nest(view.extents, lambda k: [ast.Assign([_store(stored.element(k))], view.element(k))]))
        self.names[array] = ArrayName(array, view.extents, "float64", "temp", self.block)
        return ast.Name(array, ast.Load())

    def triangle(self, node: ast.Call, name: str) -> View:
        """``np.triu(x, k)`` / ``np.tril(x, k)``: ``x``'s elements on and above (below) the
        ``k``-th diagonal of its last two axes, zero elsewhere (an affine guard per element)."""
        options = self.keywords(node, ("k",))
        if not node.args or len(node.args) > 2 or (len(node.args) == 2 and "k" in options):
            raise self.error(node, f"np.{name}() takes an array and k", "array call")
        x = self.value(node.args[0])
        if x.rank < 2:
            raise self.error(node, f"np.{name}() of fewer than two axes (NumPy broadcasts a vector to a matrix "
                             "first: write np.outer or index it)", "array call")
        k_node = node.args[1] if len(node.args) == 2 else options.get("k", ast.Constant(0))
        k = _int_const(k_node)
        if k is None:
            raise self.error(k_node, f"np.{name}() with k other than an integer constant", "array call")
        self.changed = True
        zero = ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), x.vtype.dtype, ast.Load()), [ast.Constant(0)], [])

        def element(idx: tuple[Sym, ...]) -> ast.expr:
            row, col = idx[-2], idx[-1]
            kept = (col - row if name == "triu" else row - col).node
            test = ast.Compare(kept, [ast.GtE()], [ast.Constant(k if name == "triu" else -k)])
            return ast.IfExp(test, x.element(idx), copy.deepcopy(zero))

        return View(x.extents, VType(x.vtype.dtype, False), element)

    def eye(self, node: ast.Call, name: str) -> View:
        """``np.eye(n, m=None, k=0, dtype=float)`` / ``np.identity(n, dtype)``: ones where the
        column minus the row is ``k``."""
        fields = ("N", "M", "k", "dtype") if name == "eye" else ("n", "dtype")
        options = self.keywords(node, fields[1:])
        given = dict(zip(fields, node.args))
        if len(node.args) > len(fields) or not node.args or set(given) & set(options):
            raise self.error(node, f"np.{name}() arguments", "array call")
        given.update(options)
        rows = sym_of(self.known_extents(node.args[0]))  # P.shape[0] of a local: its extent
        cols = rows if _is_none(given.get("M")) else sym_of(self.known_extents(given["M"]))
        k = _int_const(given["k"]) if "k" in given else 0
        if k is None:
            raise self.error(given["k"], f"np.{name}() k= must be an integer constant", "array call")
        dtype = self.dtype_given(given["dtype"]) if "dtype" in given else "float64"
        if dtype is None or dtype not in _DTYPES:
            raise self.error(node, f"np.{name}() dtype", "array call")
        self.changed = True
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load())

        def element(idx: tuple[Sym, ...]) -> ast.expr:
            test = ast.Compare((idx[1] - idx[0]).node, [ast.Eq()], [ast.Constant(k)])
            return ast.Call(copy.deepcopy(cast), [ast.IfExp(test, ast.Constant(1), ast.Constant(0))], [])

        return View((rows, cols), VType(dtype, False), element)

    def norm(self, node: ast.Call) -> View:
        """``np.linalg.norm(x)`` (and ``axis=``, ``keepdims=``): the 2-norm of a vector, the
        Frobenius norm of a matrix, ``sqrt(sum(x * x))`` in the float dtype NumPy gives."""
        if self.forms is None and _without_order(node) is not node:
            raise self.error(node, "np.linalg.norm() with ord= here", "np.linalg.norm")
        ordered = self.forms.norm(self, node) if self.forms is not None else None  # (array_norms)
        if ordered is not None:
            return ordered
        node = _without_order(node)
        options = self.keywords(node, ("axis", "keepdims"))
        if len(node.args) != 1:
            raise self.error(node, "np.linalg.norm() with ord= (only the default 2-norm / Frobenius norm)",
                             "np.linalg")
        x = self.value(node.args[0])
        if x.rank == 0 or x.vtype.weak:
            raise self.error(node, "np.linalg.norm() of a scalar", "np.linalg")
        if x.vtype.is_complex:  # (NumPy sums abs(x) ** 2: a real result)
            raise self.error(node, "np.linalg.norm() of a complex array; write np.sqrt(np.sum(np.abs(x) ** 2))",
                             "np.linalg")
        if x.rank == 1 and not options and x.vtype.dtype in ("float32", "float64"):
            # NumPy: sqrt(x.dot(x)), on BLAS ?dot for a plain vector (array_linalg._dot_shape)
            dot = ast.copy_location(ast.BinOp(node.args[0], ast.MatMult(), copy.deepcopy(node.args[0])), node)
            return self.sqrt(node, self.value(dot))
        if not x.vtype.is_float:  # NumPy converts to float64 first
            inner = x
            x = View(x.extents, VType("float64", False), lambda idx: ast.Call(
                ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64", ast.Load()), [inner.element(idx)], []))
        if "axis" in options and _int_const(options["axis"]) is None:
            raise self.error(options["axis"], "np.linalg.norm() axis= must be one integer", "np.linalg")
        squares = self.binop(node, ast.Mult(), x, x)
        total = self.reduction(node, "sum", squares, [], options)
        return self.sqrt(node, total)

    def sqrt(self, node: ast.Call, v: View) -> View:
        root = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "sqrt", ast.Load())
        if v.rank == 0:
            return scalar_op(lambda a: ast.Call(copy.deepcopy(root), [a], []), [v], v.vtype)
        return self.ufunc(node, "sqrt", [v])

    def spread(self, node: ast.Call, name: str, x: View, rest: list[ast.expr]) -> View:
        """``np.var(x, axis, ddof=, keepdims=)`` / ``np.std``: NumPy's two passes, the mean (kept
        dims) then the mean square deviation ``sum((x - mean)**2) / max(N - ddof, 0)``."""
        options = dict(_keywords(self, node))
        if rest:
            options.setdefault("axis", rest[0])
        if set(options) - {"axis", "keepdims", "ddof"} or len(rest) > 1:
            raise self.error(node, f"np.{name}() with arguments other than axis=, ddof= and keepdims=", "reduction")
        ddof = _int_const(options.pop("ddof")) if "ddof" in options else 0
        if ddof is None:
            raise self.error(node, f"np.{name}() ddof= must be an integer constant", "reduction")
        axes = self.reduced_axes(options.get("axis"), x.rank)
        mean = self.reduction(node, "mean", x, [], {**options, "keepdims": ast.Constant(True)})
        deviation = self.binop(node, ast.Sub(), x, mean)
        total = self.reduction(node, "sum", self.binop(node, ast.Mult(), deviation, deviation), [], options)
        count = ast.parse(f"max({' * '.join(f'({x.extents[d].text})' for d in axes)} - {ddof}, 0)", mode="eval").body
        variance = self.binop(node, ast.Div(), total, scalar(count, WEAK_INT))
        return self.sqrt(node, variance) if name == "std" else variance

    def masked_spread(self, node: ast.Call, name: str, x: View, mask: View, rest: list[ast.expr]) -> View:
        """``x[m].var(ddof=)`` / ``np.std(x[m])`` of a mask of ``x``'s shape: ``spread``'s two
        passes over the selected elements (``masked_reduction``'s mean, then the sum of the
        selected squared deviations, over ``max(count - ddof, 0)``: NaN where none is selected,
        as NumPy's 0/0)."""
        options = dict(_keywords(self, node))
        axis = options.pop("axis", rest[0] if rest else None)
        ddof = _int_const(options.pop("ddof")) if "ddof" in options else 0
        if options or len(rest) > 1 or ddof is None or x.rank != mask.rank or x.vtype.is_complex \
                or x.vtype.dtype == "bool" or not (axis is None or _is_none(axis) or _int_const(axis) in (0, -1)):
            raise self.error(node, f"np.{name}() of a boolean-mask selection with other than axis=None/0 and an "
                             "integer constant ddof= (of a mask of the array's shape, a real non-bool array)",
                             "boolean mask")
        bare = ast.copy_location(ast.Call(node.func, [], []), node)
        mean = self.masked_reduction(bare, "mean", x, mask, [])
        deviation = self.binop(node, ast.Sub(), x, mean)
        total = self.masked_reduction(bare, "sum", self.binop(node, ast.Mult(), deviation, deviation), mask, [])
        count = self.reduction(bare, "sum", mask, [], {})
        divisor = ast.parse(f"max(int({ast.unparse(count.element(()))}) - {ddof}, 0)", mode="eval").body
        variance = self.binop(node, ast.Div(), total, scalar(divisor, WEAK_INT))
        return self.sqrt(node, variance) if name == "std" else variance

    def arange(self, node: ast.Call) -> View:
        """``np.arange(stop)``, ``(start, stop)``, ``(start, stop, step)`` of integers (a constant
        step): int64 elements ``start + i * step``.  Float arguments (whose length NumPy computes
        with rounding) are refused."""
        if [k.arg for k in node.keywords] == ["dtype"] and 1 <= len(node.args) <= 3:
            return self.arange_of_dtype(node, node.keywords[0].value)
        if node.keywords or not 1 <= len(node.args) <= 3:
            raise self.error(node, "np.arange() takes 1 to 3 positional integers (no keywords but dtype=)", "np.arange")
        values = [self.value(a) for a in node.args]
        if not any(v.rank for v in values) and any(v.vtype.is_float for v in values) \
                and all(v.vtype.weak or v.vtype.dtype in ("float64", "int64") for v in values):
            return self.float_arange(node, values)
        if any(v.rank or not v.vtype.is_int or v.vtype.dtype == "bool" for v in values):
            raise self.error(node, "np.arange() of other than integer scalars and Python or float64 floats; use "
                             "integers, or np.empty and a loop", "np.arange")
        nodes = [v.element(()) for v in values]
        start, stop = (ast.Constant(0), nodes[0]) if len(nodes) == 1 else (nodes[0], nodes[1])
        step = _int_const(node.args[2]) if len(node.args) == 3 else 1
        if not step:
            raise self.error(node, "np.arange() step must be a non-zero integer constant", "np.arange")
        if len(nodes) == 1:  # np.arange(n * m): a size the call computes (factors checked non-negative)
            stop = self.product_size(self.known_extents(stop))
        span = sym_of(stop) - sym_of(start) if step > 0 else sym_of(start) - sym_of(stop)
        size = abs(step)  # the length is ceil(span / |step|), by a positive divisor
        length = span if size == 1 else sym_of(ast.BinOp((span + const(size - 1)).node, ast.FloorDiv(),
                                                         ast.Constant(size)))
        self.changed = True
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "int64", ast.Load())

        def element(idx: tuple[Sym, ...]) -> ast.expr:
            offset = idx[0] if step == 1 else idx[0].scale(step)
            return ast.Call(copy.deepcopy(cast), [ast.BinOp(copy.deepcopy(start), ast.Add(), offset.node)], [])

        return View((smax(const(0), length),), VType("int64", False), element)

    def arange_of_dtype(self, node: ast.Call, given: ast.expr) -> View:
        """``np.arange(..., dtype=D)`` with ``D`` the dtype the arguments give (int64 of integers,
        float64 of floats), or float64 of integers (exact: each ``start + i * step`` is an integer
        far below 2**53): that arange, converted; other dtypes are refused (NumPy fills them
        with its own steps in that dtype)."""
        wanted = self.dtype_given(given)
        plain = self.arange(ast.copy_location(ast.Call(node.func, node.args, []), node))
        if wanted == plain.vtype.dtype:
            return plain
        if wanted == "float64" and plain.vtype.dtype == "int64":
            return self.call_astype(node, plain, [ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64", ast.Load())])
        raise self.error(given, f"np.arange() with dtype={ast.unparse(given)} ({wanted}) of {plain.vtype.dtype} "
                         "values: NumPy fills it with its own steps in that dtype; write "
                         f"np.arange(...).astype(...) if that is what is meant", "np.arange")

    def float_arange(self, node: ast.Call, values: list[View]) -> View:
        """``np.arange(start, stop, step)`` with a float among them (float64), as NumPy fills it:
        ``ceil((stop - start) / step)`` elements (at least 0; a size the call computes unless all
        are constants), ``start``, ``start + step``, then ``start + i * delta`` with ``delta =
        (start + step) - start`` (NumPy's ``DOUBLE_fill``).  Bounds must be numbers, float or
        integer arguments or sizes (what the call can compute before the kernel runs)."""
        nodes = [copy.deepcopy(v.element(())) for v in values]
        start, stop, step = (ast.Constant(0), nodes[0], ast.Constant(1)) if len(nodes) == 1 else \
            (nodes[0], nodes[1], ast.Constant(1)) if len(nodes) == 2 else tuple(nodes)
        numbers = [_number(n) for n in (start, stop, step)]
        if all(n is not None for n in numbers):
            with np.errstate(all="ignore"):
                length = const(len(np.arange(*numbers)))  # type: ignore[arg-type]
        else:
            floats = [copy.deepcopy(n) for n in (start, stop, step)]
            ceil = ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "ceil", ast.Load()), [ast.BinOp(
                ast.BinOp(floats[1], ast.Sub(), floats[0]), ast.Div(), floats[2])], [])
            count = ast.Call(ast.Name("max", ast.Load()), [ast.Call(ast.Name("int", ast.Load()), [ceil], []),
                                                           ast.Constant(0)], [])
            computed = self.call_time_size(count)
            if computed is None:
                raise self.error(node, "np.arange() with float bounds other than numbers, float or integer "
                                 "arguments and sizes (its length is computed when the call starts)", "np.arange")
            length = computed
        self.changed = True
        f64 = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64", ast.Load())

        def num(n: ast.expr) -> ast.expr:
            return ast.Call(copy.deepcopy(f64), [copy.deepcopy(n)], [])

        def element(idx: tuple[Sym, ...]) -> ast.expr:
            second = ast.BinOp(num(start), ast.Add(), num(step))
            delta = ast.BinOp(copy.deepcopy(second), ast.Sub(), num(start))
            later = ast.BinOp(num(start), ast.Add(), ast.BinOp(num(idx[0].node), ast.Mult(), delta))
            return ast.IfExp(ast.Compare(idx[0].node, [ast.Eq()], [ast.Constant(0)]), num(start), ast.IfExp(
                ast.Compare(copy.deepcopy(idx[0].node), [ast.Eq()], [ast.Constant(1)]), second, later))

        return View((length,), VType("float64", False), element)

    def logical_ufunc(self, node: ast.Call, name: str, args: list[View]) -> View:
        """``np.logical_and/or/xor/not`` of arrays: the operands' truth values (``x != 0``; NaN is
        true, as in NumPy) combined as ``& | ^ ~`` combine boolean arrays."""
        truths = [a if a.vtype.dtype == "bool" else scalar_op(lambda v: ast.Compare(v, [ast.NotEq()], [
            ast.Constant(0)]), [a], BOOL) if a.rank == 0 else self.elementwise(
            lambda v: ast.Compare(v, [ast.NotEq()], [ast.Constant(0)]), [a], BOOL) for a in args]
        if name == "logical_not":
            return self.elementwise(lambda v: ast.UnaryOp(ast.Not(), v), truths, BOOL)
        return self.logical(node, _LOGICAL_UFUNCS[name](), truths[0], truths[1])

    def nonempty(self, node: ast.Call, what: str, extents: tuple[Sym, ...], message: str = "") -> None:
        """``what`` (argmax, max without ``initial=``) of no elements is a ValueError in NumPy: each
        reduced extent must be at least 1.  Proven, or assumed of the sizes and checked per call
        (an ``ArgumentError``, a ``ValueError``); an extent that may be 0 at some iteration
        (``np.max(x[:k])`` for ``k`` from 0) is checked where the statement runs (``value_error``,
        NumPy's message), since the first element's read would be in bounds there.  At the top level
        an extent of the sizes alone is a check of the sizes before the kernel runs: an ArgumentError
        (a ValueError, as NumPy raises) with NumPy's message (np38: it named extents that differ)."""
        kind = what[3:-2]  # "np.argmax()" -> "argmax"
        message = message or f"attempt to get {kind} of an empty sequence" if kind.startswith("arg") else \
            message or f"zero-size array to reduction operation {'maximum' if 'max' in kind else 'minimum'} which has no identity"
        for extent in extents:
            if extent.is_const() and extent.const < 1:
                raise self.error(node, f"{what} of an empty axis (a ValueError in NumPy)", what)
            test = ast.Compare(copy.deepcopy(extent.node), [ast.GtE()], [ast.Constant(1)])
            if not extent.is_const() and self.at_top and not self.facts and self.affine_test(test) \
                    and not self.proven(f"{extent.text} >= 1"):
                self.assertions.append(Assertion(test, f"{message} ({what} of {extent.text} = 0 elements)",
                                                 "ArgumentError"))
                continue
            if not extent.is_const() and not self.require(f"{extent.text} >= 1"):
                self.pre.append(value_error(f"{extent.text} >= 1", message))

    def arg_extreme(self, node: ast.Call, maximum: bool, x: View, rest: list[ast.expr]) -> View:
        """``np.argmin(x)`` / ``np.argmax(x)`` over the whole array: the flat (C order) index of
        the first smallest / largest element, or of the first NaN, as NumPy returns (an int64);
        with ``axis=`` the positions along that axis (``arg_extreme_along``).  The array must not
        be empty (``nonempty``)."""
        what = "argmax" if maximum else "argmin"
        given = dict(zip(("axis",), rest))
        for kw in node.keywords:
            if kw.arg not in ("axis", "keepdims") or kw.arg in given:
                raise self.error(node, f"np.{what}() with arguments other than axis= and keepdims=", what)
            given[kw.arg] = kw.value
        if len(rest) > 1:
            raise self.error(node, f"np.{what}() with arguments other than axis= and keepdims=", what)
        if x.vtype.is_complex:
            raise self.error(node, f"np.{what}() of a complex array", what)
        keepdims = _bool_const(given.get("keepdims"))
        if keepdims is None:
            raise self.error(node, "keepdims= must be True or False", what)
        if not _is_none(given.get("axis")):
            (axis,) = self.reduced_axes(given["axis"], x.rank)
            at = self.arg_extreme_along(node, maximum, x, axis)
            if not keepdims:
                return at
            return View(at.extents[:axis] + (const(1),) + at.extents[axis:], at.vtype,
                        lambda k: at.element(k[:axis] + k[axis + 1:]))
        position = self.arg_extreme_flat(node, maximum, x)
        if not keepdims:
            return position
        return View(tuple(const(1) for _ in x.extents), position.vtype, position.element)

    def arg_extreme_flat(self, node: ast.Call, maximum: bool, x: View) -> View:
        """``np.argmax(x)`` without ``axis=``: the flat index (an int64 scalar local)."""
        what = "argmax" if maximum else "argmin"
        self.nonempty(node, f"np.{what}()", x.extents)
        best, position = self.fresh("best"), self.fresh("at")
        zeros = tuple(const(0) for _ in x.extents)
        self.pre.append(ast.Assign([ast.Name(best, ast.Store())], x.element(zeros)))
        self.pre.append(ast.Assign([ast.Name(position, ast.Store())], ast.parse("np.int64(0)".replace(
            "np", NP_NAME), mode="eval").body))

        def body(k: tuple[Sym, ...]) -> list[ast.stmt]:
            flat = " + ".join(f"({s.text})" + "".join(f" * ({e.text})" for e in x.extents[d + 1:])
                              for d, s in enumerate(k))
            v = ast.unparse(x.element(k))
            better = f"({v}) {'>' if maximum else '<'} {best} or (({v}) != ({v}) and {best} == {best})"
            return [ast.parse(f"if {better}:\n    {best} = {v}\n    {position} = {NP_NAME}.int64({flat})").body[0]]

        self.pre.extend(self.nest(x.extents, body))
        self.note_scalar(best, VType(x.vtype.dtype, False))
        self.note_scalar(position, VType("int64", False))
        return scalar(ast.Name(position, ast.Load()), VType("int64", False))

    def arg_extreme_along(self, node: ast.Call, maximum: bool, x: View, axis: int) -> View:
        """``np.argmax(x, axis=k)``: per index of the other axes, the position along ``k`` of the
        first largest (smallest) element or of the first NaN, as NumPy returns (int64).  The axis
        must not be empty (``nonempty``)."""
        what = "argmax" if maximum else "argmin"
        extent = x.extents[axis]
        self.nonempty(node, f"np.{what}()", (extent,))
        kept = tuple(e for d, e in enumerate(x.extents) if d != axis)
        best_name, at_name = self.fresh("best"), self.fresh("at")
        self.allocate(best_name, kept, x.vtype.dtype)
        self.allocate(at_name, kept, "int64")
        best, at = leaf(best_name, kept, x.vtype.dtype), leaf(at_name, kept, "int64")
        int64 = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "int64", ast.Load())

        def row(k: tuple[Sym, ...]) -> list[ast.stmt]:
            first = k[:axis] + (const(0),) + k[axis:]
            stmts: list[ast.stmt] = [ast.Assign([_store(best.element(k))], x.element(first)),
                                     ast.Assign([_store(at.element(k))], ast.Call(copy.deepcopy(int64),
                                                                                  [ast.Constant(0)], []))]

            def step(r: tuple[Sym, ...]) -> list[ast.stmt]:
                v, b = ast.unparse(x.element(k[:axis] + r + k[axis:])), ast.unparse(best.element(k))
                better = ast.parse(f"({v}) {'>' if maximum else '<'} ({b}) or (({v}) != ({v}) and ({b}) == ({b}))",
                                   mode="eval").body
                return [ast.If(better, [ast.Assign([_store(best.element(k))], x.element(k[:axis] + r + k[axis:])),
                                        ast.Assign([_store(at.element(k))],
                                                   ast.Call(copy.deepcopy(int64), [r[0].node], []))], [])]

            return stmts + self.nest((extent,), step)

        self.pre.extend(self.nest(kept, row))
        self.changed = True
        return at

    def selection_read(self, node: ast.Name) -> ast.expr:
        """What selection ``node`` (``v = x[mask]``, ``v = x[mask] / n``) reads, in the statement
        right after it, where the arrays it reads still hold what they held."""
        read, when, block = self.selections[node.id]
        if (when != self.assignments - 1 or block != self.block) and not self._selection_unchanged(node.id):
            raise self.error(node, f"{node.id!r} holds a boolean-mask selection, usable only in a reduction "
                             "in the statement right after it, or in later ones of its block or an if inside it "
                             "(not a loop) where nothing it reads was bound or written since", "boolean mask")
        return read

    def _selection_unchanged(self, name: str) -> bool:
        """Whether selection ``name`` read here still means what it meant where it was bound: in
        its block or an ``if``'s branch inside it (no loop entered since, whose next iteration
        would read after the rest of its body), no statement lowered since (the one reading it
        aside) binding or writing a name it reads, nor a call statement (``x.sort()``).  (fe52:
        ``v = x[m]``, ``if v.size == 0: return nan, nan``, ``return v.mean(), v.std()``.)"""
        read, _, block = self.selections[name]
        step, depth = self.selection_steps[name]
        if self.block[:len(block)] != block or self.loop_depth != depth:
            return False
        reads = {n.id for n in walk(read) if isinstance(n, ast.Name)}
        return all("*" not in w and not (w & reads) for w in self.step_writes[step + 1:-1])

    def masked_read(self, node: ast.expr) -> tuple[View, View] | None:
        """``(x, mask)`` when ``node`` is ``x[mask]`` with a boolean array ``mask`` of ``x``'s shape
        (whose value, NumPy's selected elements, has a data-dependent length), or a name bound to
        one by the assignment just before (``v = data[m]`` then ``res[i] = v.mean()``: nothing
        was assigned in between, so the read still means what it meant)."""
        if isinstance(node, ast.Name) and node.id in self.selections:
            node = self.selection_read(node)
        elif isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call)) and any(
                isinstance(n, ast.Name) and n.id in self.selections for n in walk(node)):
            node = _SelectionReads(self).visit(copy.deepcopy(node))  # (p * np.log2(p)).sum() of p = x[m]
        factored = _factored_mask(node, self.names, self.globals)
        if factored is not None:  # (x[m] * y[m]).sum(): (x * y)[m], each x[m] checked as NumPy indexes it
            if any(self.masked_read(ast.Subscript(leaf, copy.deepcopy(factored.slice), ast.Load())) is None
                   for leaf in factored.leaves):
                return None
            node = factored.read
        if not isinstance(node, ast.Subscript) or isinstance(node.slice, (ast.Tuple, ast.Slice)):
            return None
        mask = self.value(node.slice)
        if mask.rank == 0 or mask.vtype.dtype != "bool":
            return None
        base = self.value(node.value)
        if base.rank < mask.rank:
            return None
        lead = View(base.extents[:mask.rank], base.vtype, base.element)  # X[m] of a row mask m: whole rows
        self.same_shape_as_mask(node.slice, lead, mask)
        return base, mask

    def where_reduction(self, node: ast.Call, kind: str, x: View, options: dict[str, ast.expr]) -> View:
        """``np.sum(x, where=m)`` / ``np.prod``: the reduction of ``np.where(m, x, identity)``
        (``m`` broadcast to ``x``); ``np.mean(x, where=m)``: NumPy's ``_mean``, that sum in the
        accumulator dtype (float64 for integers) over ``np.count_nonzero`` of ``m`` broadcast to
        ``x`` along the same axes, divided in float64 and cast back to float32 for float32 (NaN
        where nothing is selected, NumPy's 0/0)."""
        options = dict(options)
        m = self.value(options.pop("where"))
        if m.vtype.dtype != "bool" or m.rank > x.rank or "dtype" in options or "initial" in options \
                or x.vtype.is_complex or x.vtype.weak:
            raise self.error(node, f"np.{kind}(where=) is supported with a boolean array where= (of at most the "
                             "array's axes), real arrays, and no dtype= or initial=", "reduction")
        if kind == "mean" and (x.vtype.is_int or x.vtype.dtype == "bool"):
            x = self.elementwise(lambda v: ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64",
                                                                  ast.Load()), [v], []), [x], VType("float64", False))
        identity = scalar(ast.Constant(1 if kind == "prod" else 0), WEAK_INT)
        chosen = self.combine(node, [m, x, identity], lambda c, a, b: ast.IfExp(c, a, b), _unbool(x.vtype))
        for got, want in zip(chosen.extents, x.extents):
            if not self.equal_extents(got, want):
                raise self.error(node, f"np.{kind}(where=) whose where= may have more elements than the array",
                                 "reduction")
        total = self.reduction(node, "prod" if kind == "prod" else "sum", chosen, [], options)
        if kind != "mean":
            return total
        ones = scalar(ast.Constant(1), WEAK_INT)
        zeros = scalar(ast.Constant(0), WEAK_INT)
        selected = self.combine(node, [m, x, ones, zeros], lambda c, a, b, z: ast.IfExp(c, b, z), VType("int64", False))
        count = self.reduction(node, "sum", selected, [], options)
        quotient = self.binop(node, ast.Div(), total, count)
        if x.vtype.dtype == "float32":
            return self.elementwise(lambda v: ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float32",
                                                                     ast.Load()), [v], []), [quotient],
                                    VType("float32", False))
        return quotient

    def masked_reduction(self, node: ast.Call, kind: str, x: View, mask: View, rest: list[ast.expr]) -> View:
        """``np.sum(x[mask])``, ``x[mask].mean()``, ``np.prod``: the reduction of the selected
        elements, as the reduction of ``np.where(mask, x, identity)`` (the mean divides by the
        count of ``mask``; none selected gives NaN, as NumPy's 0/0).  The selected elements form a
        1-d array, so ``axis=`` may only be None, 0 or -1."""
        options = dict(_keywords(self, node))
        axis = options.pop("axis", rest[0] if rest else None)
        kept = x.rank - mask.rank  # the selection's axes after its first (X[m] of a row mask keeps rows)
        if kind in ("max", "min") and not kept and len(rest) <= 1 and not set(options) - {"initial"} \
                and (axis is None or _is_none(axis) or _int_const(axis) in (0, -1)):
            return self.masked_extreme(node, kind, x, mask, options)
        if kind not in ("sum", "prod", "mean") or len(rest) > 1 or set(options) - {"initial"} \
                or not (axis is None or _is_none(axis) or _int_const(axis) in ((0, -1) if not kept else (0, -1 - kept))):
            raise self.error(node, f"np.{kind}() of a boolean-mask selection with other than axis=None/0 (and "
                             "initial= for sum/prod; another axis of rows selected by a mask has a data-dependent "
                             "length); max/min of a selection that may be empty raise in NumPy", "boolean mask")
        if kept:
            return self.masked_rows_reduction(node, kind, x, mask, axis is not None and not _is_none(axis), options)
        if x.vtype.is_complex and kind == "mean":
            raise self.error(node, "np.mean() of a complex boolean-mask selection", "boolean mask")
        if kind == "mean" and (x.vtype.is_int or x.vtype.dtype == "bool"):
            x = self.elementwise(lambda v: ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64",
                                                                  ast.Load()), [v], []), [x], VType("float64", False))
        identity = scalar(ast.Constant(1 if kind == "prod" else 0), WEAK_INT)
        chosen = self.combine(node, [mask, x, identity], lambda c, a, b: ast.IfExp(c, a, b), _unbool(x.vtype))
        total = self.reduction(node, "prod" if kind == "prod" else "sum", chosen, [], options)
        if kind != "mean":
            return total
        count = self.reduction(node, "sum", mask, [], {})
        weak_count = scalar(ast.Call(ast.Name("int", ast.Load()), [count.element(())], []), WEAK_INT)
        return self.binop(node, ast.Div(), total, weak_count)

    def selected_end(self, node: ast.Subscript) -> View | None:
        """``p[0]`` / ``p[-1]`` of ``p = x[m]`` bound just before (1-d ``x`` and ``m``), and
        ``np.nonzero(c)[0][0]``, ``np.where(c)[0][-1]``, ``c.nonzero()[0][0]``, ``np.flatnonzero(c)[0]``
        of a 1-d ``c``: the first or last selected element (``selected_element``); None for anything else."""
        k = _int_const(node.slice)
        condition = _selected_end_form(node, self.globals)
        if k not in (0, -1) or not (condition is not None or isinstance(node.value, ast.Name)
                                    and node.value.id in self.selections
                                    or _mask_array_read(node.value, self.names)):
            return None
        if id(node) in self.conditional:
            raise self.error(node, f"{ast.unparse(node)} where Python may not evaluate it (a branch of 'a if c else "
                             "b', an operand of and/or after the first): nothing selected raises IndexError where it "
                             "runs; write an if statement", "boolean mask")
        if condition is None:
            x, mask = self.masked_read(node.value) or (None, None)
            if x is None or mask is None or x.rank != 1 or mask.rank != 1:
                return None
            return self.selected_element(node, x, mask, k)
        c = self.value(condition)
        if c.rank != 1 or c.vtype.is_complex or c.vtype is UNKNOWN:
            return None
        mask = c if c.vtype.dtype == "bool" else self.elementwise(
            lambda v: ast.Compare(v, [ast.NotEq()], [ast.Constant(0)]), [c], BOOL)
        index = View(c.extents, VType("int64", False), lambda idx: ast.Call(
            ast.Attribute(ast.Name(NP_NAME, ast.Load()), "int64", ast.Load()), [idx[0].node], []))
        return self.selected_element(node, index, mask, k)

    def selected_element(self, node: ast.Subscript, values: View, mask: View, k: int) -> View:
        """Element ``k`` (0: the first, -1: the last) of ``values`` where the 1-d ``mask`` is true:
        a loop in index order finds its position (``n`` or -1 where none is), then NumPy's
        IndexError (*index 0 is out of bounds for axis 0 with size 0*) where nothing is selected,
        raised where the statement runs (the run-time check of asserts), then the element."""
        n = mask.extents[0]
        at = self.fresh("at")
        self.pre.append(ast.Assign([ast.Name(at, ast.Store())], copy.deepcopy(n.node) if k == 0 else ast.Constant(-1)))
        self.note_scalar(at, WEAK_INT)

        def find(i: tuple[Sym, ...]) -> list[ast.stmt]:
            test = mask.element(i)
            if k == 0:  # the first: the least position selected
                test = ast.BoolOp(ast.And(), [test, ast.Compare(i[0].node, [ast.Lt()], [ast.Name(at, ast.Load())])])
            return [ast.If(test, [ast.Assign([ast.Name(at, ast.Store())], i[0].node)], [])]

        self.pre.extend(self.nest(mask.extents, find))
        found = f"{at} < {n.text}" if k == 0 else f"{at} >= 0"
        self.pre.append(run_time_error(found, "IndexError", f"index {k} is out of bounds for axis 0 with size 0"))
        self.changed = True
        return scalar(values.element((atom(at),)), values.vtype)

    def masked_extreme(self, node: ast.Call, kind: str, x: View, mask: View, options: dict[str, ast.expr]) -> View:
        """``x[mask].max()``, ``np.min(x[mask])`` (``initial=`` too) of a mask of ``x``'s shape: the
        reduction of ``np.where(mask, x, lowest)`` (``-inf`` or the dtype's least integer for max;
        ``initial`` where given, itself an element of NumPy's reduction), NaN propagating from the
        selected elements only.  Without ``initial=`` nothing selected is NumPy's ValueError, checked
        where the statement runs (the run-time check of asserts)."""
        if x.vtype.dtype == "bool" or x.vtype.is_complex or UNKNOWN in (x.vtype, mask.vtype):
            raise self.error(node, f"np.{kind}() of a boolean-mask selection of a {x.vtype.dtype} array (bool and "
                             "complex max/min are refused)", "boolean mask")
        if "initial" in options:
            fill = self.value(options["initial"])
        else:
            if id(node) in self.conditional:
                raise self.error(node, f"np.{kind}() of a boolean-mask selection where Python may not evaluate it (a "
                                 "branch of 'a if c else b', an operand of and/or after the first): nothing selected "
                                 "raises ValueError where it runs; write an if statement or give initial=",
                                 "boolean mask")
            count = self.reduction(node, "sum", mask, [], {})
            self.pre.append(value_error(f"{ast.unparse(count.element(()))} >= 1", "zero-size array to reduction "
                                        f"operation {'maximum' if kind == 'max' else 'minimum'} which has no identity"))
            lowest = kind == "max"
            if x.vtype.is_float:
                inf: ast.expr = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "inf", ast.Load())
                fill = scalar(ast.UnaryOp(ast.USub(), inf) if lowest else inf, WEAK_FLOAT)
            else:
                info = np.iinfo(x.vtype.dtype)
                fill = scalar(ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), x.vtype.dtype, ast.Load()),
                                       [ast.Constant(int(info.min if lowest else info.max))], []), x.vtype)
            options = {**options, "initial": fill.element(())}  # (checked above: x itself may be empty)
        chosen = self.combine(node, [mask, x, fill], lambda c, a, b: ast.IfExp(c, a, b), x.vtype)
        return self.reduction(node, kind, chosen, [], options)

    def masked_rows_reduction(self, node: ast.Call, kind: str, x: View, mask: View, along: bool,
                              options: dict[str, ast.expr]) -> View:
        """``X[m].mean(axis=0)`` (k-means' centroids, class means), ``np.sum(X[m])``: ``m`` a boolean
        array of ``X``'s leading extents selects whole rows (NumPy's shape ``(count,) + rest``).
        The reduction of ``np.where(m[..., None], X, identity)`` over the mask's axes (``along``:
        ``axis=0``) or over all; the mean divides by the count of ``m`` (times the other extents
        for all axes), NaN where nothing is selected, as NumPy's 0/0."""
        if x.vtype.is_complex and kind == "mean":
            raise self.error(node, "np.mean() of a complex boolean-mask selection", "boolean mask")
        if kind == "mean" and (x.vtype.is_int or x.vtype.dtype == "bool"):
            x = self.elementwise(lambda v: ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64",
                                                                  ast.Load()), [v], []), [x], VType("float64", False))
        rows = mask.rank
        spread = View(x.extents, mask.vtype, lambda k: mask.element(k[:rows]))
        identity = scalar(ast.Constant(1 if kind == "prod" else 0), WEAK_INT)
        chosen = self.combine(node, [spread, x, identity], lambda c, a, b: ast.IfExp(c, a, b), _unbool(x.vtype))
        if along:
            options = {**options, "axis": ast.Tuple([ast.Constant(d) for d in range(rows)], ast.Load())}
        total = self.reduction(node, "prod" if kind == "prod" else "sum", chosen, [], options)
        if kind != "mean":
            return total
        count = self.reduction(node, "sum", mask, [], {})
        selected: ast.expr = ast.Call(ast.Name("int", ast.Load()), [count.element(())], [])
        for extent in ([] if along else x.extents[rows:]):
            selected = ast.BinOp(selected, ast.Mult(), extent.node)
        return self.binop(node, ast.Div(), total, scalar(selected, WEAK_INT))

    def average(self, node: ast.Call) -> View:
        """``np.average(a, axis=None, weights=None, keepdims=False)``: ``np.mean`` without
        weights (as NumPy computes it); with float weights of ``a``'s shape and dtype, NumPy's
        ``np.sum(a * w, axis) / np.sum(w, axis)`` (all-zero weights give NaN or inf, where NumPy
        raises ZeroDivisionError)."""
        given = dict(zip(("a", "axis", "weights"), node.args))
        for kw in node.keywords:
            if kw.arg not in ("axis", "weights", "keepdims") or kw.arg in given:
                raise self.error(node, f"np.average() with {kw.arg}= is not supported", "np.average")
            given[kw.arg] = kw.value
        options: dict[str, ast.expr] = {k: given[k] for k in ("axis", "keepdims") if k in given}
        x = self.value(given["a"])
        weights = given.get("weights")
        if weights is None or _is_none(weights):
            return self.reduction(node, "mean", x, [], options)
        w = self.value(weights)
        if not (x.vtype.is_float and w.vtype.dtype == x.vtype.dtype and w.rank == x.rank):
            raise self.error(node, "np.average() with weights other than a float array of the values' shape "
                             "and dtype", "np.average")
        self.same_shape(node, x, w, "np.average() weights of another shape (NumPy raises)", "np.average")
        total = self.reduction(node, "sum", self.binop(node, ast.Mult(), x, w), [], options)
        return self.binop(node, ast.Div(), total, self.reduction(node, "sum", w, [], options))

    def array_literal(self, node: ast.Call, name: str) -> View:
        """``np.array([a, b, c])`` (a list or tuple of scalars; ``dtype=`` allowed): element ``i``
        is the ``i``-th value, converted to the dtype NumPy's array construction gives the values
        (Python numbers count as int64, float64, complex128: not weak).  ``np.asarray(x)`` / ``np.array(x)`` of an array is ``x`` (a copy for
        ``np.array``, as in NumPy)."""
        given = self.keywords(node, ("dtype",))
        items = node.args[0]
        if len(node.args) > 1:
            raise self.error(node, f"np.{name}() with more than one positional argument", "np.array")
        if not isinstance(items, (ast.List, ast.Tuple)):
            x = self.value(items)
            if not x.rank or "dtype" in given:
                raise self.error(node, f"np.{name}() of other than a list of scalars or an array (no dtype=)",
                                 "np.array")
            return self.call_copy(node, x, []) if name == "array" else x
        dtype = self.dtype_given(given["dtype"]) if "dtype" in given else None
        if dtype is None and "dtype" in given:
            raise self.error(given["dtype"], "dtype= must name a numpy dtype", "np.array")
        return self.listed(items, dtype, f"np.{name}() of")

    def listed(self, items: ast.List | ast.Tuple, dtype: str | None, what: str) -> View:
        """A list or tuple of scalars, or nested lists of them of a rectangular shape (``np.array([[1, 0],
        [0, 1]])``), as the array NumPy makes of it (``np.array([a, b])``, a piece ``[True]`` of
        np.concatenate): element ``(i, j, ...)`` is the matching value in ``dtype``, by default the
        one array construction gives (Python numbers count as int64, float64, complex128: not
        weak).  ``what`` opens the refusal of anything else."""
        shape = _nested_shape(items)
        leaves = _nested_leaves(items)
        values = [self.value(e) for e in leaves]
        if shape is None or not values or any(v.rank for v in values):
            raise self.error(items, f"{what} other than a non-empty list of scalars, or nested lists of scalars of "
                             "one rectangular shape (lists of arrays)", "np.array")
        if dtype is None and any(v.vtype is UNKNOWN for v in values):
            if self.final:
                raise self.error(items, f"cannot tell the dtype of {ast.unparse(items)} here (it reads a local "
                                 "whose type is not known)", "np.array")
            dtype = "float64"  # an early pass; the final one knows the locals' types or refuses
        if dtype is None:  # array construction takes a Python int as int64, a float as float64 (not weak)
            dtype = str(np.result_type(*[np.dtype(v.vtype.dtype) for v in values]))
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load())
        self.changed = True

        def element(idx: tuple[Sym, ...], level: int = 0, offset: int = 0) -> ast.expr:
            if level == len(shape):
                return ast.Call(copy.deepcopy(cast), [values[offset].element(())], [])
            last = shape[level] - 1
            chosen = element(idx, level + 1, offset * shape[level] + last)
            for k in range(last - 1, -1, -1):
                test = ast.Compare(idx[level].node, [ast.Eq()], [ast.Constant(k)])
                chosen = ast.IfExp(test, element(idx, level + 1, offset * shape[level] + k), chosen)
            return chosen

        return View(tuple(const(n) for n in shape), VType(dtype, False), element)

    def linspace(self, node: ast.Call, ftype: str = "float64") -> View:
        """``np.linspace(start, stop, num, endpoint=True)`` of real scalars into float64, with
        NumPy's own arithmetic: element ``i`` is ``i * step + start`` (``i / div * delta + start``
        where the step underflows to 0, ``i * delta + start`` when ``div = 0``), the last one
        ``stop`` exactly when ``endpoint``.  ``ftype="float32"`` (np.histogram of float32 data:
        float32 ends, which user code cannot pass yet) computes all of it in float32 as NumPy
        does, ``i`` an exact float32 as ``np.arange(num, dtype=float32)`` makes it.  ``dtype=np.float32``
        in user code is NumPy's float64 values converted (``y.astype(dtype)``)."""
        given = dict(zip(("start", "stop", "num", "endpoint"), node.args))
        for kw in node.keywords:
            if kw.arg not in ("start", "stop", "num", "endpoint", "dtype") or kw.arg in given:
                raise self.error(node, f"np.linspace() with {kw.arg}= is not supported", "np.linspace")
            given[kw.arg] = kw.value
        if len(node.args) > 4 or "start" not in given or "stop" not in given:
            raise self.error(node, "np.linspace(start, stop, num=50, endpoint=True) takes at most 4 positional "
                             "arguments", "np.linspace")
        wanted = "float64" if _is_none(given.get("dtype")) else self.dtype_given(given["dtype"])
        if wanted not in ("float64", "float32") or (wanted != "float64" and ftype != "float64"):
            raise self.error(node, "np.linspace() with a dtype other than float64 or float32", "np.linspace")
        ends = [self.value(given["start"]), self.value(given["stop"])]
        if any(v.rank or v.vtype.is_complex or v.vtype.dtype == "bool" or not (v.vtype.weak or v.vtype.dtype
               in ("float64", "int64", ftype)) for v in ends):
            raise self.error(node, "np.linspace() of other than real scalars that give float64 (array or "
                             "complex ends, float32 values)", "np.linspace")
        endpoint = _bool_const(given.get("endpoint", ast.Constant(True)))
        if endpoint is None:
            raise self.error(node, "np.linspace() endpoint= must be True or False", "np.linspace")
        num_node = given.get("num", ast.Constant(50))
        if not is_affine(num_node, self.params):
            computed = self.call_time_size(self.known_extents(num_node))
            num_node = num_node if computed is None else computed.node
        if not is_affine(num_node, self.params) and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                                        and n.func.id in ("int", "round") for n in walk(num_node)):
            raise self.error(num_node, f"np.linspace() of {ast.unparse(num_node)} points: a number of points "
                             "computed from a float is a size polyfuse cannot know before the call; pass an "
                             "integer argument", "np.linspace")
        num = sym_of(num_node)
        div = num - const(1) if endpoint else num
        f64 = ast.Attribute(ast.Name(NP_NAME, ast.Load()), ftype, ast.Load())
        start, stop, delta, step = (self.fresh(stem) for stem in ("lin_start", "lin_stop", "lin_delta", "lin_step"))
        for name, value in ((start, ast.Call(f64, [ends[0].element(())], [])),
                            (stop, ast.Call(copy.deepcopy(f64), [ends[1].element(())], [])),
                            (delta, ast.parse(f"{stop} - {start}", mode="eval").body),
                            (step, ast.parse(f"{delta} / max({div.text}, 1)", mode="eval").body)):
            self.pre.append(ast.Assign([ast.Name(name, ast.Store())], value))
            self.note_scalar(name, VType(ftype, False))
        self.changed = True

        def element(idx: tuple[Sym, ...]) -> ast.expr:
            i, d = idx[0].text, div.text
            r = i if ftype == "float64" else f"{NP_NAME}.{ftype}({i})"  # np.arange(num, dtype=ftype)'s element
            ramp = f"(({r}) * {step} if {step} != 0 else ({r}) / ({d}) * {delta}) if {d} > 0 else ({r}) * {delta}"
            value = f"({ramp}) + {start}"
            if endpoint:
                value = f"({stop} if ({i}) == ({num.text}) - 1 and ({num.text}) > 1 else {value})"
            return ast.parse(value, mode="eval").body

        if wanted == "float32":  # NumPy computes the float64 values, then y.astype(float32)
            f32 = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float32", ast.Load())
            return View((smax(const(0), num),), VType("float32", False),
                        lambda idx: ast.Call(copy.deepcopy(f32), [element(idx)], []))
        return View((smax(const(0), num),), VType(ftype, False), element)

    def running(self, node: ast.Call, kind: str, x: View, rest: list[ast.expr]) -> View:
        """``np.cumsum(x, axis)`` / ``np.cumprod``: a local array whose first element along the
        axis is ``x``'s (in the result dtype, numpy's sum/prod one) and each next one the previous
        plus (times) ``x``'s: a recurrence along that axis, in order."""
        options = dict(_keywords(self, node))
        if rest:
            options.setdefault("axis", rest[0])
        if len(rest) > 1:
            options.setdefault("dtype", rest[1])
        if set(options) - {"axis", "dtype"} or len(rest) > 2:
            raise self.error(node, f"np.cum{kind}() with arguments other than axis= and dtype=", "running sum")
        if x.rank == 0 or x.vtype.weak:
            raise self.error(node, f"np.cum{kind}() of a scalar or of Python numbers", "running sum")
        if not _is_none(options.get("dtype")):  # each element converted, then summed in it, as NumPy does
            x = self.converted_to(node, f"np.cum{kind}()", x, options["dtype"])
        if _is_none(options.get("axis")) and x.rank > 1:
            raise self.error(node, f"np.cum{kind}() of a {x.rank}-d array without axis= (NumPy flattens it; "
                             "polyfuse does not reshape)", "running sum")
        (axis,) = (0,) if _is_none(options.get("axis")) else self.reduced_axes(options["axis"], x.rank)
        summed = x.vtype.dtype if not _is_none(options.get("dtype")) else self.reduced_dtype(node, kind, x, None)
        dtype = self.temp_dtype(node, View(x.extents, VType(summed, False), x.element))
        array = self.fresh("cum")
        self.allocate(array, x.extents, dtype)
        out = leaf(array, x.extents, dtype)
        self.changed = True
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load())
        first = tuple(smin(const(1), e) if d == axis else e for d, e in enumerate(x.extents))
        self.pre.extend(self.nest(first, lambda k: [ast.Assign(
            [_store(out.element(k))], ast.Call(copy.deepcopy(cast), [x.element(k)], []))]))
        later = tuple(e - const(1) if d == axis else e for d, e in enumerate(x.extents))

        def step(k: tuple[Sym, ...]) -> list[ast.stmt]:
            here = tuple(s + const(1) if d == axis else s for d, s in enumerate(k))
            return [ast.Assign([_store(out.element(here))], self.accumulate(kind, out.element(k), x.element(here)))]

        self.pre.extend(self.nest(later, step))
        return out

    def convolve(self, node: ast.Call, name: str) -> View:
        """``np.convolve(a, v, mode)`` / ``np.correlate(a, v, mode)`` of 1-d real arrays: a local
        array, each element a sum over the window of ``v`` (a reduction, reassociable as NumPy's
        sums are; ``window_sums``).  'full' takes either order.  np.convolve's 'same' and
        'valid' convolve the longer with the shorter, as NumPy swaps them: where the sizes do not
        prove which is longer, one branch each (``if len(a) >= len(v)``), into an output of
        ``max(n, m)`` ('same') or ``max(n, m) - min(n, m) + 1`` ('valid') elements.
        np.correlate's take ``a`` as the longer (NumPy reverses its output where it swaps): a
        call where it is shorter is refused (``longer_first``)."""
        options = self.keywords(node, ("mode",))
        if len(node.args) == 3 and "mode" not in options:
            options["mode"] = node.args[2]
        if len(node.args) not in (2, 3):
            raise self.error(node, f"np.{name}() takes two arrays and a mode", "array call")
        mode_node = options.get("mode")
        mode = "full" if name == "convolve" else "valid"
        if mode_node is not None:
            if not (isinstance(mode_node, ast.Constant) and mode_node.value in ("full", "same", "valid")):
                raise self.error(mode_node, f"np.{name}() mode must be 'full', 'same' or 'valid' (a constant)",
                                 "array call")
            mode = mode_node.value
        a, v = self.value(node.args[0]), self.value(node.args[1])
        if a.rank != 1 or v.rank != 1:
            raise self.error(node, f"np.{name}() of other than two 1-d arrays", "array call")
        if a.vtype.is_complex or v.vtype.is_complex or a.vtype.dtype == "bool" or v.vtype.dtype == "bool":
            raise self.error(node, f"np.{name}() of complex or bool arrays", "array call")
        n, m = a.extents[0], v.extents[0]
        if name == "convolve" and mode != "full" and not self.proven(f"{n.text} >= {m.text}") \
                and self.proven(f"{m.text} >= {n.text}"):
            a, v, n, m = v, a, m, n  # NumPy convolves the longer one with the shorter
        either = name == "convolve" and mode != "full" and not self.proven(f"{n.text} >= {m.text}")
        if not self.require(f"{m.text} >= 1") or not self.require(f"{n.text} >= 1") \
                or mode != "full" and not either and not self.longer_first(node, name, mode, n, m):
            raise self.error(node, f"np.{name}() whose second array may be empty or longer than the first",
                             "array call")
        dtype = self.numpy_type(node, getattr(np, name), [a, v]).dtype
        if either:  # either may be the longer: the output's length is the longer one's (valid: less the shorter's)
            extent = smax(n, m) if mode == "same" else smax(n, m) - smin(n, m) + const(1)
        else:
            extent = {"full": n + m - const(1), "same": n, "valid": n - m + const(1)}[mode]
        array = self.fresh(name[:4])
        self.allocate(array, (extent,), dtype)
        out = leaf(array, (extent,), dtype)
        self.changed = True
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load())
        self.pre.extend(self.nest((extent,), lambda k: [ast.Assign(
            [_store(out.element(k))], ast.Call(copy.deepcopy(cast), [ast.Constant(0)], []))]))
        if not either:
            self.pre.extend(self.window_sums(name, mode, out, cast, a, v))
            return out
        # NumPy swaps them where the second is longer: one branch each, by the sizes
        test = ast.Compare(copy.deepcopy(n.node), [ast.GtE()], [copy.deepcopy(m.node)])
        made = ast.If(test, self.window_sums(name, mode, out, cast, a, v), self.window_sums(name, mode, out, cast, v, a))
        _locate(made, node)
        self.pre.append(made)
        return out

    def window_sums(self, name: str, mode: str, out: View, cast: ast.expr, a: View, v: View) -> list[ast.stmt]:
        """The loops adding ``np.convolve(a, v, mode)`` (``np.correlate``) into ``out`` (zeros),
        ``a`` at least as long as ``v``: output ``k`` reads ``a[k + shift - j] * v[j]``
        (convolve) or ``a[k + shift + j] * v[j]`` (correlate), 'full' and 'same' under a guard
        (zero outside ``a``)."""
        n, m = a.extents[0], v.extents[0]
        extent = {"full": n + m - const(1), "same": n, "valid": n - m + const(1)}[mode]
        if name == "convolve":
            shift = {"full": const(0), "same": (m - const(1)).floordiv(2), "valid": m - const(1)}[mode]
        else:
            shift = {"full": const(1) - m, "same": const(0) - m.floordiv(2), "valid": const(0)}[mode]
        guarded = mode != "valid"

        def term(k: tuple[Sym, ...]) -> list[ast.stmt]:
            at = k[0] + shift - k[1] if name == "convolve" else k[0] + shift + k[1]
            product: ast.expr = ast.BinOp(a.element((at,)), ast.Mult(), v.element((k[1],)))
            if guarded:
                inside = ast.Compare(ast.Constant(0), [ast.LtE(), ast.Lt()], [at.node, n.node])
                product = ast.IfExp(inside, product, ast.Call(copy.deepcopy(cast), [ast.Constant(0)], []))
            return [ast.Assign([_store(out.element(k[:1]))], self.accumulate("sum", out.element(k[:1]), product, True))]

        return self.nest((extent, m), term)

    def longer_first(self, node: ast.Call, name: str, mode: str, n: Sym, m: Sym) -> bool:
        """Whether ``np.correlate``'s 'same' or 'valid' output may take ``a``
        (extent ``n``) as the longer array: proven, or checked per call at the top level (an
        ArgumentError naming the call where ``v`` is longer: NumPy's output then has ``v``'s
        length, an extent the compiled kernel does not have).  'full' needs neither: each output
        element sums the products of the pairs it takes, under a guard, whichever is longer."""
        if n.is_const() and m.is_const():
            return n.const >= m.const
        a, v = (self.as_written(arg) for arg in node.args[:2])
        return self.at_least(node, n, m, (
            f"np.{name}({a}, {v}, mode={mode!r}) at {{where}} is compiled for len({a}) >= len({v}) (its output's "
            f"length follows the first array's); this call's {v} is longer: use mode='full'"))

    def at_least(self, node: ast.AST, a: Sym, b: Sym, message: str) -> bool:
        """Whether extent ``a >= b`` may be taken: proven, or checked per call, at the top level,
        as an ArgumentError with ``message`` (its ``{where}`` the file:line of ``node``) where a
        call's sizes break it and NumPy would return what the kernel has no extent for; elsewhere
        assumed (the generic per-call check).  False where it cannot hold."""
        claim = f"{a.text} >= {b.text}"
        if self.proven(claim):
            return True
        test = ast.Compare(copy.deepcopy(a.node), [ast.GtE()], [copy.deepcopy(b.node)])
        if not (self.at_top and not self.facts and self.affine_test(test)):
            return self.require(claim)
        span = self.source.span(node)
        self.assertions.append(Assertion(test, message.replace("{where}", f"{span.filename}:{span.line}"), "ArgumentError"))
        return True

    def call_time_value(self, node: ast.expr) -> str | None:
        """Python source the call evaluates for the array ``node``: an array argument the kernel
        never changes, or an expression of such arguments (through locals bound once at the top
        level, never changed either; ``call_sizes.call_time_array``); None otherwise."""
        unchanged, bindings = self.call_time_names()
        if isinstance(node, ast.Name) and node.id in self.args:
            arg = next(a for a in self.arguments if a.name == node.id)
            return node.id if arg.kind == "array" and node.id in unchanged else None
        return call_time_array(node, self.arguments, self.globals, unchanged, bindings)

    def data_size_guard(self) -> list[tuple[ast.expr, bool]] | None:
        """Where the statement being lowered runs, as the enclosing ifs' tests (``[]`` at the top
        level), when it is nested in ifs only (no loop: each if adds one block, anything else a
        block without a test), so that a size read from the data can be computed by the call
        exactly where Python computes it (``call_sizes.call_time_data_source``); None otherwise."""
        return list(self.branch_tests) if len(self.block) == 1 + len(self.branch_tests) else None

    def call_time_names(self) -> tuple[set[str], dict[str, ast.expr]]:
        """The names the kernel never binds nor changes in place, and the locals bound once at the
        top level (never changed in place either) with their values: what a value the call
        computes may read (``call_time_value``, ``call_time_size``)."""
        tree = self.source.tree
        body = tree.body if isinstance(tree, (ast.FunctionDef, ast.Module)) else []
        bindings = {}
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                bindings[stmt.targets[0].id] = stmt.value
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple) \
                    and all(isinstance(t, ast.Name) for t in stmt.targets[0].elts):  # h, w = img.shape
                for k, t in enumerate(stmt.targets[0].elts):
                    assert isinstance(t, ast.Name)
                    bindings[t.id] = stmt.value.elts[k] if isinstance(stmt.value, ast.Tuple) \
                        and len(stmt.value.elts) == len(stmt.targets[0].elts) \
                        else ast.Subscript(stmt.value, ast.Constant(k), ast.Load())
        names = {n.id for n in walk(tree) if isinstance(n, ast.Name)}
        # a name viewed (v = x[1:], e = x[i]: ufunc.at's loop reads its indices so) is unchanged
        # while no view of it is written in place (written_value's test)
        unchanged = {n for n in names if not self.stores[n] and n not in self.mutated
                     and (n not in self.viewed or not _views_of(tree, {n}) & self.mutated)}
        bindings = {n: v for n, v in bindings.items()
                    if self.stores[n] == 1 and n not in self.mutated and n not in self.viewed}
        return unchanged, bindings

    def written_value(self, call: ast.Call) -> str | None:
        """Python source the call evaluates for ``call``'s ``x`` as the user wrote it, where that
        read a NumPy call the rewrite wrote as loops (``KernelSource.written_x``: the call of
        ``np.bincount(np.digitize(x, b))``), the locals it went through bound once (or only by
        top-level bindings, written out as they stand at the call) and never changed in place in
        the kernel as it is now; None otherwise."""
        entry = self.source.written_x.get(id(call))
        if entry is None or entry[0] is not call:
            return None
        _, written, once, rebound = entry
        if any(self.stores[n] != 1 for n in once) or any(n in self.mutated or n in self.viewed for n in once | rebound):
            return None
        # the arguments it reads: never bound, nor written in place, nor through a view (the
        # helpers' loops read them as elements, e = x[i], which _views_of counts too)
        read = {n.id for n in walk(written) if isinstance(n, ast.Name)} & {a.name for a in self.arguments}
        unchanged = {n for n in read if not self.stores[n]
                     and not _views_of(self.source.tree, {n}) & self.mutated}
        return call_time_array(written, self.arguments, self.globals, unchanged, {})

    def bincount(self, node: ast.Call) -> View:
        """``np.bincount(x, weights=None, minlength=0)``: ``x`` a 1-d integer (or bool) array argument
        the kernel never writes, so the result's length, ``max(minlength, x.max() + 1)``, is a size
        the call computes from ``x`` before anything runs (``scop.bincount_length``, which raises
        NumPy's ValueError for negative values or ``minlength``); then the counts (int64) or the
        weights' sums (float64, in element order as NumPy adds them) by a run-time subscripted
        ``+=``."""
        fields = ("x", "weights", "minlength")
        given = dict(zip(fields, node.args))
        for kw in node.keywords:
            if kw.arg not in fields or kw.arg in given:
                raise self.error(node, f"np.bincount() with {kw.arg}=; it takes x, weights, minlength", "np.bincount")
            given[kw.arg] = kw.value
        refusal = f"bincount() is not supported: {_REFUSED['bincount']}"
        xnode = given.get("x")
        if len(node.args) > len(fields) or xnode is None:
            raise self.error(node, refusal, "np.bincount")
        computed = self.call_time_value(xnode) or self.written_value(node)
        if computed is None:
            raise self.error(xnode, refusal, "np.bincount")
        x = self.value(xnode)
        if x.rank != 1 or x.vtype.dtype not in INTS[:-1] + ("int64", "bool") or x.vtype.dtype == "uint64":
            raise self.error(xnode, refusal, "np.bincount")
        minlength = given.get("minlength", ast.Constant(0))
        minimum = "0" if _is_none(minlength) else call_time_source(minlength, self.arguments, self.globals,
                                                                   set(self.stores))
        if minimum is None:
            raise self.error(minlength, "np.bincount() minlength other than an integer constant or an integer "
                             "argument the kernel never assigns", "np.bincount")
        if minimum != "0":  # NumPy's ValueError where the call runs (scop.bincount_length never raises)
            self.pre.append(value_error(f"{ast.unparse(minlength)} >= 0", "'minlength' must not be negative"))
        # a function where x may raise IndexError (M[0] of an empty M): the read's own where it runs
        if indexes_integers(computed):  # (its names as defaults: eval's locals are no closure's)
            names = sorted({n.id for n in walk(ast.parse(computed, mode="eval")) if isinstance(n, ast.Name)}
                           & {a.name for a in self.arguments})
            computed = f"lambda {', '.join(f'{n}={n}' for n in names)}: {computed}"
        source = f"pf_bincount_length({computed}, {minimum})"
        if source not in self.computed_sizes:
            self.computed_sizes[source] = self.fresh("size")
            self.params = self.params | {self.computed_sizes[source]}
        n = atom(self.computed_sizes[source])
        weights = None if _is_none(given.get("weights")) else self.value(given["weights"])
        if weights is not None:
            wtype = weights.vtype.dtype
            if wtype == "unknown" and not self.final:
                wtype = "float64"
            if weights.rank != 1 or wtype not in FLOATS + INTS + ("bool",):
                raise self.error(given["weights"], "np.bincount() weights other than a 1-d array of real numbers "
                                 "(NumPy casts them to float64)", "np.bincount")
            self.mismatch(x.extents[0], weights.extents[0], given["weights"])
        self.changed = True
        dtype = "int64" if weights is None else "float64"
        acc = self.fresh("bincount")
        self.allocate(acc, (n,), dtype)
        counts = leaf(acc, (n,), dtype)
        self.pre += self.nest((n,), lambda k: [ast.Assign(
            [_store(counts.element(k))], ast.parse(f"{NP_NAME}.{dtype}(0)", mode="eval").body)])
        b = self.fresh("bincount_bin")

        def count(k: tuple[Sym, ...]) -> list[ast.stmt]:
            added = ast.Constant(1) if weights is None else ast.Call(
                ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64", ast.Load()), [weights.element(k)], [])
            # a negative element raises NumPy's ValueError where the call runs (scop.bincount_length
            # never raises); its count goes to bin 0, in bounds (the length is then at least 1)
            return [self.scalar_assign(b, ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "int64", ast.Load()),
                                                   [x.element(k)], []), VType("int64", False)),
                    value_error(f"{b} >= 0", "'list' argument must have no negative elements"),
                    self.scalar_assign(b, ast.parse(f"{b} if {b} >= 0 else {NP_NAME}.int64(0)", mode="eval").body,
                                       VType("int64", False)),
                    ast.AugAssign(subscript(acc, (atom(b),), ast.Store()), ast.Add(), added)]

        self.pre += self.nest(x.extents, count)
        return counts

    def histogram(self, node: ast.Call, part: int | None) -> tuple[View | None, View]:
        """``np.histogram(a, bins, range=, density=, weights=)`` with ``bins`` a number: the counts
        (``part`` 0 or None) and the edges (always).  NumPy's uniform-bins algorithm exactly: the
        outer edges are ``range`` or ``a``'s min and max (0 and 1 when ``a`` is empty; widened by
        0.5 each way when equal), the edges ``np.linspace`` of them, and each element of ``a``
        (flattened, C order) inside them lands in bin ``int((v - lo) / (hi - lo) * bins)``,
        corrected by one against the edges as NumPy corrects it; a run-time subscripted ``+=``."""
        fields = ("a", "bins", "range", "density", "weights")
        given = dict(zip(fields, node.args))
        for kw in node.keywords:
            if kw.arg not in fields or kw.arg in given:
                raise self.error(node, f"np.histogram() with {kw.arg}=; it takes a, bins, range, density, weights",
                                 "np.histogram")
            given[kw.arg] = kw.value
        if len(node.args) > len(fields) or "a" not in given:
            raise self.error(node, "np.histogram(a, bins=10, range=None, density=None, weights=None) arguments",
                             "np.histogram")
        x = self.value(given["a"])
        dtype = x.vtype.dtype
        if dtype == "unknown" and not self.final:
            dtype = "float64"  # an early pass; the final one knows the local's type or refuses
        bins_node = given.get("bins", ast.Constant(10))
        bins = self.value(bins_node)
        density = _bool_const(given.get("density", ast.Constant(False)))
        if _is_none(given.get("density")):
            density = False
        if density is None:
            raise self.error(given["density"], "np.histogram() density= must be True or False", "np.histogram")
        if x.rank and bins.rank == 1 and dtype in FLOATS + INTS:
            return self.histogram_edges(node, x, bins, given, density, part)
        ranged = not _is_none(given.get("range"))
        if x.rank == 0 or dtype not in ("float64",) + INTS and not (dtype == "float32" and not ranged):
            raise self.error(given["a"], f"np.histogram() of {'a scalar' if x.rank == 0 else dtype + ' data'}"
                             f"{' with range=' if dtype == 'float32' else ''}: polyfuse takes arrays of float64 or "
                             "integers, and float32 without range= (NumPy computes float32 data's edges with a "
                             "range's Python floats in float64 and float32 mixed)", "np.histogram")
        if bins.rank or not (isinstance(bins_node, ast.Constant) and type(bins_node.value) is int
                             or (bins.vtype.dtype in INTS or bins.vtype.dtype == "unknown" and not self.final)
                             and not isinstance(bins_node, ast.Constant)):
            raise self.error(bins_node, "np.histogram() bins other than a number of bins (an integer constant or "
                             "argument) or a 1-d array of edges; the estimator names ('auto', ...) and edges of "
                             "other ranks are not supported", "np.histogram")
        n = sym_of(bins_node)
        if not self.require(f"{n.text} >= 1"):
            raise self.error(bins_node, "np.histogram() bins must be a positive integer (NumPy raises ValueError)",
                             "np.histogram")
        limits = None if _is_none(given.get("range")) else self.histogram_range(given["range"])
        weights = None if _is_none(given.get("weights")) else self.value(given["weights"])
        wtype = "" if weights is None else weights.vtype.dtype
        if weights is not None:
            if wtype == "unknown" and not self.final:
                wtype = "float64"
            if weights.rank != x.rank or wtype not in FLOATS + INTS:
                raise self.error(given["weights"], "np.histogram() weights other than an array of a's shape of "
                                 "floats or integers (bool and complex weights are not supported)", "np.histogram")
            for ex, ew in zip(x.extents, weights.extents):
                if ex.text != ew.text:
                    self.mismatch(ex, ew, given["weights"])
        self.changed = True
        f64 = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64", ast.Load())
        ftype = "float32" if dtype == "float32" else "float64"  # NumPy's bin_type: the edges' arithmetic
        fcast, edge_type = f"{NP_NAME}.{ftype}", VType(ftype, False)

        def assign(name: str, value: ast.expr | str, vtype: VType = edge_type) -> ast.Assign:
            return self.scalar_assign(name, value, vtype)

        lo, hi = self.fresh("hist_lo"), self.fresh("hist_hi")
        nonempty: ast.expr | None = None  # float32 data that may be empty: the test that it is not
        if limits is not None:
            first, last = limits
            if first == last:
                first, last = first - 0.5, last + 0.5
            self.pre += [assign(lo, ast.Call(f64, [ast.Constant(float(first))], [])),
                         assign(hi, ast.Call(copy.deepcopy(f64), [ast.Constant(float(last))], []))]
        else:
            found_lo, found_hi = self.fresh("hist_lo"), self.fresh("hist_hi")
            self.pre += [assign(found_lo, f"{fcast}(0.0)"),  # empty: NumPy's range (0, 1)
                         assign(found_hi, f"{fcast}(1.0)")]
            if not any(e.is_const(0) for e in x.extents):
                mn, mx = self.fresh("hist_min"), self.fresh("hist_max")
                zeros = tuple(const(0) for _ in x.extents)
                scan: list[ast.stmt] = [assign(mn, x.element(zeros), VType(dtype, False)),
                                        assign(mx, x.element(zeros), VType(dtype, False))]
                scan += self.nest(x.extents, lambda k: [
                    ast.Assign([ast.Name(mn, ast.Store())], _extreme(False, ast.Name(mn, ast.Load()), x.element(k))),
                    ast.Assign([ast.Name(mx, ast.Store())], _extreme(True, ast.Name(mx, ast.Load()), x.element(k)))])
                scan += [assign(found_lo, f"{fcast}({mn})"), assign(found_hi, f"{fcast}({mx})")]
                if dtype in FLOATS:  # NaN or infinite data: NumPy's ValueError, where the scan ends
                    scan.append(value_error(f"{NP_NAME}.isfinite({mn}) and {NP_NAME}.isfinite({mx})",
                                            "autodetected range of the data is not finite"))
                tests: list[ast.expr] = [ast.Compare(e.node, [ast.Gt()], [ast.Constant(0)]) for e in x.extents
                                         if not e.is_const()]
                if ftype == "float32" and tests:
                    nonempty = ast.BoolOp(ast.And(), copy.deepcopy(tests)) if len(tests) > 1 else copy.deepcopy(tests[0])
                if tests:
                    test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)
                    self.pre.append(ast.If(test, scan, []))
                else:
                    self.pre += scan
            self.pre += [assign(lo, f"{found_lo} - 0.5 if {found_lo} == {found_hi} else {found_lo}"),
                         assign(hi, f"{found_hi} + 0.5 if {found_lo} == {found_hi} else {found_hi}")]
        edges = self.linspace(ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "linspace", ast.Load()),
                                       [ast.Name(lo, ast.Load()), ast.Name(hi, ast.Load()), (n + const(1)).node], []),
                              ftype)
        if nonempty is not None:  # empty float32 data: NumPy's linspace of the ints 0, 1 is float64, then cast
            empty = self.linspace(ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "linspace", ast.Load()),
                                           [ast.Constant(0.0), ast.Constant(1.0), (n + const(1)).node], []))
            edges = _either(nonempty, edges, View(empty.extents, edges.vtype, lambda k: ast.Call(
                ast.parse(fcast, mode="eval").body, [empty.element(k)], [])))
        count_text = str(n.const) if n.is_const() else "the"
        self.pre += self.nest((n,), lambda k: [value_error(
            f"not ({ast.unparse(edges.element(k))}) >= ({ast.unparse(edges.element((k[0] + const(1),)))})",
            f"Too many bins for data range. Cannot create {count_text} finite-sized bins.")])
        if part == 1:
            return None, edges
        # the counts (int64) or the weights' sums (in float64, as np.bincount sums them)
        acc = self.fresh("hist")
        acc_dtype = "int64" if weights is None else "float64"
        self.allocate(acc, (n,), acc_dtype)
        counts = leaf(acc, (n,), acc_dtype)
        self.pre += self.nest((n,), lambda k: [ast.Assign(
            [_store(counts.element(k))], ast.parse(f"{NP_NAME}.{acc_dtype}(0)", mode="eval").body)])
        width, step = self.fresh("hist_width"), self.fresh("hist_step")
        nb = n.text
        # edges[i] for the corrections: np.linspace's i * step + start (its other forms, for a step
        # that underflows to 0, give edges that do not increase, where NumPy raises ValueError); an
        # edge tested is never the last one (stop), which needs b == n after the first correction
        self.pre += [assign(width, f"{hi} - {lo}"), assign(step, f"{width} / ({nb})")]
        v, keep, b = self.fresh("hist_v"), self.fresh("hist_keep"), self.fresh("hist_bin")

        largest = float(np.finfo(ftype).max)

        def count(k: tuple[Sym, ...]) -> list[ast.stmt]:
            below = f"{fcast}({b}) * {step} + {lo}"  # the edges' own dtype (an int64 would make float32 float64)
            above = f"{fcast}({b} + 1) * {step} + {lo}"
            added = ast.Constant(1) if weights is None else ast.Call(copy.deepcopy(f64), [weights.element(k)], [])
            return [assign(v, ast.Call(ast.parse(fcast, mode="eval").body, [x.element(k)], [])),
                    assign(keep, f"{v} >= {lo} and {v} <= {hi} and {width} <= {largest!r}", BOOL),
                    assign(b, f"{NP_NAME}.int64(({v} - {lo}) / {width} * ({nb}) if {keep} else 0.0)",
                           VType("int64", False)),
                    assign(b, f"{b} - 1 if {b} == ({nb}) else {b}", VType("int64", False)),
                    assign(b, f"{b} - 1 if {v} < ({below}) else {b}", VType("int64", False)),
                    assign(b, f"{b} + 1 if {b} != ({nb}) - 1 and {v} >= ({above}) else {b}", VType("int64", False)),
                    ast.If(ast.Name(keep, ast.Load()),
                           [ast.AugAssign(subscript(acc, (atom(b),), ast.Store()), ast.Add(), added)], [])]

        self.pre += self.nest(x.extents, count)
        result = counts
        if weights is not None and wtype != "float64":  # NumPy: np.bincount's float64 sums .astype(weights.dtype)
            cast = self.fresh("hist")
            self.allocate(cast, (n,), wtype)
            result = leaf(cast, (n,), wtype)
            self.pre += self.nest((n,), lambda k: [ast.Assign(
                [_store(result.element(k))], ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), wtype, ast.Load()),
                                                      [counts.element(k)], []))])
        if density:  # n / np.diff(edges) / n.sum()
            total = self.full_reduction("sum", result, result.vtype.dtype).element(())
            dens = self.fresh("hist_density")
            self.allocate(dens, (n,), "float64")
            out = leaf(dens, (n,), "float64")
            self.pre += self.nest((n,), lambda k: [ast.Assign([_store(out.element(k))], ast.BinOp(
                ast.BinOp(ast.Call(copy.deepcopy(f64), [result.element(k)], []), ast.Div(),
                          ast.BinOp(edges.element((k[0] + const(1),)), ast.Sub(), edges.element(k))),
                ast.Div(), copy.deepcopy(total)))])
            result = out
        return result, edges

    def histogram_edges(self, node: ast.Call, x: View, edges: View, given: dict[str, ast.expr], density: bool,
                        part: int | None) -> tuple[View | None, View]:
        """``np.histogram(a, bins=edges)``, ``edges`` a 1-d real array of at least two edges (NumPy
        requires them nondecreasing): each value ``v`` of ``a`` goes to bin ``j - 1``, ``j`` the
        number of edges ``<= v`` (a binary search), counted when ``edges[0] <= v < edges[-1]``
        or ``v == edges[-1]`` (the last bin is closed): the counts NumPy's searchsorted gives."""
        if edges.vtype.is_complex or edges.vtype.dtype == "bool":
            raise self.error(given["bins"], "np.histogram() bins as an array of complex or bool edges",
                             "np.histogram")
        if not _is_none(given.get("range")) or not _is_none(given.get("weights")):
            raise self.error(node, "np.histogram() with bin edges as an array and range= or weights= (NumPy sums "
                             "the weights of edges given as an array in sorted order); pass a number of bins",
                             "np.histogram")
        m = edges.extents[0]
        if not self.require(f"{m.text} >= 2"):
            raise self.error(given["bins"], "np.histogram() bins of fewer than two edges", "np.histogram")
        self.changed = True
        self.pre += self.nest((m - const(1),), lambda k: [value_error(  # NumPy checks the edges first
            f"not ({ast.unparse(edges.element(k))}) > ({ast.unparse(edges.element((k[0] + const(1),)))})",
            "`bins` must increase monotonically, when an array")])
        if part == 1:
            return None, edges
        n = m - const(1)
        acc = self.fresh("hist")
        self.allocate(acc, (n,), "int64")
        counts = leaf(acc, (n,), "int64")
        self.pre += self.nest((n,), lambda k: [ast.Assign(
            [_store(counts.element(k))], ast.parse(f"{NP_NAME}.int64(0)", mode="eval").body)])
        # ceil(log2(m + 1)) halvings find the count of edges <= v among m; 64 where m is not a constant
        steps = m.const.bit_length() if m.is_const() else 64
        v, lo, hi, act, mid, le, keep = (self.fresh(f"hist_{s}") for s in ("v", "lo", "hi", "act", "mid", "le", "keep"))
        int64 = VType("int64", False)

        assign = self.scalar_assign

        def search(k: tuple[Sym, ...]) -> list[ast.stmt]:
            at_mid = ast.unparse(edges.element((atom(mid),)))
            last = ast.unparse(edges.element((m - const(1),)))
            halving: list[ast.stmt] = [assign(act, f"{lo} < {hi}", BOOL), assign(mid, f"({lo} + {hi}) // 2", int64),
                       assign(le, f"{act} and ({at_mid}) <= {v}", BOOL),
                       assign(hi, f"{mid} if {act} and not {le} else {hi}", int64),
                       assign(lo, f"{mid} + 1 if {le} else {lo}", int64)]
            self.note_scalar(v, x.vtype)
            stmts: list[ast.stmt] = [ast.Assign([ast.Name(v, ast.Store())], x.element(k)),
                                     assign(lo, "0", int64), assign(hi, m.text, int64)]
            stmts += self.nest((const(steps),), lambda _: halving)
            stmts += [assign(keep, f"{lo} >= 1 and ({lo} < ({m.text}) or {v} == ({last}))", BOOL),
                      ast.If(ast.Name(keep, ast.Load()), [ast.AugAssign(
                          subscript(acc, (smin(atom(lo), m - const(1)) - const(1),), ast.Store()), ast.Add(),
                          ast.Constant(1))], [])]
            return stmts

        self.pre += self.nest(x.extents, search)
        result = counts
        if density:  # n / np.diff(edges) / n.sum()
            total = self.full_reduction("sum", counts, "int64").element(())
            dens = self.fresh("hist_density")
            self.allocate(dens, (n,), "float64")
            result = leaf(dens, (n,), "float64")
            f64 = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64", ast.Load())
            self.pre += self.nest((n,), lambda k: [ast.Assign([_store(result.element(k))], ast.BinOp(
                ast.BinOp(ast.Call(f64, [counts.element(k)], []), ast.Div(), ast.Call(copy.deepcopy(f64), [
                    ast.BinOp(edges.element((k[0] + const(1),)), ast.Sub(), edges.element(k))], [])),
                ast.Div(), copy.deepcopy(total)))])
        return result, edges

    def histogram_range(self, node: ast.expr) -> tuple[float, float]:
        """``range=(lo, hi)``: two real constants, ``lo <= hi``, both finite (NumPy's ValueError
        otherwise is refused here, where it is written)."""
        try:
            value = ast.literal_eval(node)
        except ValueError:
            value = None
        if not (isinstance(value, (tuple, list)) and len(value) == 2
                and all(isinstance(e, (int, float)) and not isinstance(e, bool) for e in value)):
            raise self.error(node, "np.histogram() range= other than a constant pair (lo, hi) of real numbers",
                             "np.histogram")
        first, last = value
        if not (math.isfinite(first) and math.isfinite(last)) or first > last:
            raise self.error(node, f"np.histogram() range={value!r}: NumPy raises ValueError (the range must be "
                             "finite with lo <= hi)", "np.histogram")
        return first, last

    def unpack_histogram(self, stmt: ast.Assign, target: ast.Tuple | ast.List) -> list[ast.stmt]:
        """``hist, edges = np.histogram(...)``: both computed once, each bound like ``name = value``."""
        if len(target.elts) != 2 or not all(isinstance(t, ast.Name) for t in target.elts):
            raise self.error(stmt, "np.histogram() returns two arrays (hist, bin_edges): unpack it into two names",
                             "np.histogram")
        assert isinstance(stmt.value, ast.Call)
        hist, edges = self.histogram(stmt.value, None)
        assert hist is not None
        out: list[ast.stmt] = []
        for name, view in zip(target.elts, (hist, edges)):
            assert isinstance(name, ast.Name)
            part = ast.copy_location(ast.Assign([ast.Name(name.id, ast.Store())], stmt.value), stmt)
            out += self.bind_name(part, name.id, view)
        return out

    def linalg_tuple(self, node: ast.expr) -> str | None:
        """The name of an ``np.linalg`` call that returns several values (LINALG_TUPLES), or None."""
        func = node.func if isinstance(node, ast.Call) else None
        if (isinstance(func, ast.Attribute) and func.attr in LINALG_TUPLES and isinstance(func.value, ast.Attribute)
                and func.value.attr == "linalg" and module_of(func.value.value, self.globals) == "np"
                and self.products.linalg_parts is not None
                and not (isinstance(node, ast.Call) and _linalg_single(func.attr, node))):
            return func.attr
        return None

    def linalg_part(self, node: ast.expr, part: int | str | None) -> View:
        """``np.linalg.slogdet(A)[1]``, ``.logabsdet``, ``np.linalg.lstsq(A, b)[0]`` (frontend/array_lapack.py)."""
        assert isinstance(node, ast.Call) and self.products.linalg_parts is not None
        name = self.linalg_tuple(node)
        assert name is not None
        fields = LINALG_TUPLES[name]
        count = len(fields)
        if isinstance(part, str):
            position = fields.index(part) if name in LINALG_FIELDS and part in fields else None
        else:
            position = part % count if part is not None and -count <= part < count else None
        if position is None:
            raise self.error(node, f"np.linalg.{name}(...) indexed other than by a constant position in its "
                             f"{count} values ({', '.join(fields)})", "np.linalg")
        view = self.products.linalg_parts(self, node, name)[position]
        if view is None:
            raise self.error(node, f"the {fields[position]} of np.linalg.{name}() (its shape depends on the data)",
                             "np.linalg")
        return view

    def unpack_linalg(self, stmt: ast.Assign, target: ast.Tuple | ast.List) -> list[ast.stmt]:
        """``sign, logdet = np.linalg.slogdet(A)``, ``x, res, rank, sv = np.linalg.lstsq(A, b)``: one
        call, each value bound like ``name = value``; a value polyfuse cannot give (lstsq's residuals)
        only to a name nothing reads."""
        assert isinstance(stmt.value, ast.Call) and self.products.linalg_parts is not None
        name = self.linalg_tuple(stmt.value)
        assert name is not None
        fields = LINALG_TUPLES[name]
        if len(target.elts) != len(fields) or not all(isinstance(t, ast.Name) for t in target.elts):
            raise self.error(stmt, f"np.linalg.{name}() returns {len(fields)} values ({', '.join(fields)}): unpack "
                             f"it into {len(fields)} names", "np.linalg")
        out: list[ast.stmt] = []
        for elt, view, field in zip(target.elts, self.products.linalg_parts(self, stmt.value, name), fields):
            assert isinstance(elt, ast.Name)
            if view is None:
                if self.loads[elt.id]:
                    raise self.error(elt, f"reading the {field} of np.linalg.{name}() (its shape depends on the "
                                     "data); unpack it into a name nothing reads", "np.linalg")
                continue
            part = ast.copy_location(ast.Assign([ast.Name(elt.id, ast.Store())], stmt.value), stmt)
            out += self.bind_name(part, elt.id, view)
        return out

    def filled(self, node: ast.Call, name: str) -> View:
        """``np.zeros(shape)``, ``np.ones_like(x)``, ``np.full(shape, v, dtype)`` used as a value
        (``x + np.ones(3)``): every element the same number, of the array's dtype, as NumPy
        makes it.  ``np.empty`` as a value has no defined elements: refused."""
        count, like = ALLOCATORS[name]
        if name.startswith("empty"):
            raise self.error(node, f"np.{name}() inside an expression (its elements are undefined); assign it to a "
                             "name first and fill it", "array call")
        known = {"dtype", "shape"} if like else {"dtype"}
        for kw in node.keywords:
            if kw.arg not in known:
                raise self.error(kw.value, f"np.{name}() with keyword {kw.arg}=", "array call")
        if len(node.args) < count or len(node.args) > count + 1:
            raise self.error(node, f"np.{name}() takes {count} positional argument(s) and a dtype", "array call")
        if like:
            source = self.value(node.args[0])
            if source.rank == 0:
                raise self.error(node.args[0], f"np.{name}() of a scalar; pass an array", "array call")
            extents, dtype = source.extents, source.vtype.dtype
        else:
            extents = self.shape_of(node.args[0])
            dtype = "float64"
        fill: View = scalar(ast.Constant(0 if name.startswith("zeros") else 1), WEAK_INT)
        if name.startswith("full"):
            fill = self.value(node.args[1])
            if fill.rank:
                raise self.error(node.args[1], f"np.{name}() with an array fill value", "array call")
            if not like:  # NumPy: the fill value's own dtype (a Python float: float64, an int: int64)
                dtype = fill.vtype.dtype if not fill.vtype.weak else "float64" if fill.vtype.is_float else \
                    "bool" if fill.vtype.dtype == "bool" else "int64"
        given = node.args[count] if len(node.args) > count else next(
            (kw.value for kw in node.keywords if kw.arg == "dtype"), None)
        if given is not None:
            dtype = self.dtype_given(given) or ""
            if not dtype:
                raise self.error(given, f"np.{name}() with dtype {ast.unparse(given)!r}", "array call")
        if dtype not in _DTYPES:
            raise self.error(node, f"np.{name}() of dtype {dtype}", "array call")
        self.changed = True
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load())
        element = ast.Call(cast, [fill.element(())], [])
        return View(extents, VType(dtype, False), lambda idx: copy.deepcopy(element))

    def keywords(self, node: ast.Call, allowed: tuple[str, ...]) -> dict[str, ast.expr]:
        options = _keywords(self, node)
        unknown = set(options) - set(allowed)
        if unknown:
            raise self.error(node, f"{ast.unparse(node.func)}() with keyword {sorted(unknown)[0]!r}; "
                             f"it takes {', '.join(allowed) or 'no keywords'}", "array call")
        return options

    def ufunc(self, node: ast.Call, name: str, args: list[View]) -> View:
        """``np.tanh(x)``, ``np.arctan2(y, x)``, ...: the scalar function on each element, with the
        dtype numpy gives the arrays (as ``np.tanh`` of a ``float32`` array is ``float32``)."""
        if len(args) != arity("np", name):
            raise self.error(node, f"np.{name}() takes {arity('np', name)} arguments here", "array call")
        if any(a.picks for a in args) and any(a.rank for a in args):  # np.arctan2(x, max(1.0, np.max(x)))
            return self.per_pick(args, lambda *views: self.ufunc(node, name, list(views)))
        if any(a.vtype is UNKNOWN for a in args):
            vtype = UNKNOWN
        else:
            vtype = self.numpy_type(node, getattr(np, name), args)
        if name in ("abs", "absolute") and args[0].vtype.is_complex:  # NumPy's vector loop's magnitude
            return self.elementwise(numpy_abs, args, vtype, node)
        func = ast.Attribute(ast.Name(NP_NAME, ast.Load()), name, ast.Load())
        return self.elementwise(lambda *xs: ast.Call(func, list(xs), []), args, vtype, node)

    def numpy_type(self, node: ast.AST, np_func: Callable, args: list[View]) -> VType:
        """The dtype numpy gives ``np_func`` on arrays of these types (Python numbers stay weak)."""
        examples = [(1j if a.vtype.is_complex else 0.5 if a.vtype.is_float else 1) if a.vtype.weak and not a.rank
                    else np.ones(1, dtype=a.vtype.dtype) for a in args]
        try:
            with np.errstate(all="ignore"):
                dtype = np.asarray(np_func(*examples)).dtype.name
        except (TypeError, ValueError) as exc:
            raise self.error(node, f"{self.as_written(node)} is refused by NumPy for these dtypes: {exc}",
                             "array call") from None
        if dtype not in _DTYPES:
            raise self.error(node, f"{self.as_written(node)} gives {dtype} arrays, which polyfuse does not support; "
                             "convert first (for example with .astype(np.float32))", "array call")
        return VType(dtype, False)

    def call_transpose(self, node: ast.Call, x: View, args: list[ast.expr]) -> View:
        """``x.transpose()``, ``x.transpose(1, 0, 2)``, ``np.transpose(x, axes)``: a view whose
        axis k is ``x``'s axis ``axes[k]``."""
        axes_node = self.keywords(node, ("axes",)).get("axes")
        items = list(args)
        if axes_node is not None:
            items.append(axes_node)
        if len(items) == 1 and isinstance(items[0], (ast.Tuple, ast.List)):
            items = list(items[0].elts)
        if len(items) == 1 and isinstance(items[0], ast.Constant) and items[0].value is None:
            items = []
        if not items:
            axes = tuple(range(x.rank))[::-1]
        else:
            found = [_int_const(i) for i in items]
            if None in found or sorted(a % x.rank for a in found if a is not None and -x.rank <= a < x.rank) \
                    != list(range(x.rank)) or len(found) != x.rank:
                raise self.error(node, f"transpose axes must be a permutation of 0..{x.rank - 1} written as "
                                 "integer constants", "transpose")
            axes = tuple(a % x.rank for a in found if a is not None)
        self.changed = True
        inverse = [axes.index(d) for d in range(x.rank)]

        def element(idx: tuple[Sym, ...]) -> ast.expr:
            return x.element(tuple(idx[inverse[d]] for d in range(x.rank)))
        return View(tuple(x.extents[a] for a in axes), x.vtype, element, x.base)

    def call_reshape(self, node: ast.Call, x: View, args: list[ast.expr]) -> View:
        """``x.reshape(shape)``, ``np.reshape(x, shape)``: a view, where the new shape is the old
        one with axes of extent 1 added or removed (one extent may be -1), which NumPy reshapes
        without a copy whatever the strides.  Where every new extent is given and those paired
        this way that are not proven equal are integer arguments, they are assumed equal and
        checked per call (doitgen's ``np.reshape(A, (NR, NQ, 1, NP))``: another regrouping of the
        same number of elements is then refused with ArgumentError, ``x.ravel().reshape(n, m)``
        copies); any other reshape may regroup the elements and is a copy (``reshape_copy``)."""
        given = self.keywords(node, ("newshape", "shape", "order"))
        order = given.pop("order", None)
        if order is not None and not (isinstance(order, ast.Constant) and order.value in ("C", "A")):
            raise self.error(node, "reshape() with an order other than 'C'", "reshape")
        items = list(args) + list(given.values())
        if len(items) == 1 and isinstance(items[0], (ast.Tuple, ast.List)):
            items = list(items[0].elts)
        if len(items) == 1 and isinstance(items[0], ast.Attribute) and items[0].attr == "shape":
            wanted: list[Sym | None] = list(self.shape_of(items[0]))
        else:
            wanted = [None if _int_const(i) == -1 else self.unit_sized(sym_of(self.value(i).element(())))
                      for i in items]
        if sum(e is None for e in wanted) > 1:
            raise self.error(node, "reshape() with more than one -1 extent (a ValueError in NumPy)", "reshape")
        kept = [d for d, e in enumerate(x.extents) if not e.is_const(1)]
        placed = [k for k, e in enumerate(wanted) if e is None or not e.is_const(1)]
        texts = [x.extents[d].text for d in kept], [e.text for e in wanted if e is not None and not e.is_const(1)]
        claims = [f"{wanted[k].text} == {x.extents[d].text}" for d, k in zip(kept, placed)  # type: ignore[union-attr]
                  if wanted[k] is not None and wanted[k].text != x.extents[d].text]  # type: ignore[union-attr]
        paired = len(kept) == len(placed) and not (texts[0] != texts[1] and sorted(texts[0]) == sorted(texts[1]))
        if not paired or not all(self.proven(claim) or (None not in wanted and self.assumable(claim)
                                                        and claim.split(" == ")[0] in self.int_args)
                                 for claim in claims):
            if order is not None and order.value != "C":  # type: ignore[attr-defined]
                raise self.error(node, "reshape() with order='A' that regroups the elements (NumPy's order then "
                                 "depends on the array's layout); use order='C'", "reshape")
            return self.reshape_copy(node, x, wanted, (kept, placed, claims) if paired else None)
        for claim in claims:  # paired with an integer argument, not proven equal: assumed, checked per call
            self.require(claim)
        return self.regrouped(x, kept, placed, tuple(x.extents[kept[placed.index(k)]] if k in placed else const(1)
                                                     for k in range(len(wanted))))

    def unit_sized(self, e: Sym) -> Sym:
        """``e``, or 1 where it is ``A.shape[d]`` of an argument axis of extent 1 in this signature."""
        entry = self.names.get(e.text.split(".shape[")[0]) if e.text.endswith("]") else None
        if entry is not None and entry.kind == "arg":
            body = ast.parse(e.text, mode="eval").body  # A.shape[d], or arithmetic ending in one
            d = _int_const(body.slice) if isinstance(body, ast.Subscript) else None
            if d is not None and 0 <= d < entry.rank and entry.extents[d].is_const(1):
                return const(1)
        return e

    def call_ravel(self, node: ast.Call, x: View, args: list[ast.expr]) -> View:
        """``x.ravel()``, ``x.flatten()``, ``np.ravel(x)``: the reshape to one axis."""
        order = self.keywords(node, ("order",)).get("order", args[0] if args else None)
        if len(args) > 1 or (order is not None and not (isinstance(order, ast.Constant) and order.value == "C")):
            raise self.error(node, f"{ast.unparse(node.func)}() with an order other than 'C'", "reshape")
        return self.reshape_copy(node, x, [None])

    def reshape_copy(self, node: ast.Call, x: View, wanted: list[Sym | None],
                     pairing: tuple[list[int], list[int], list[str]] | None = None) -> View:
        """A reshape that regroups the elements (``x.reshape(n, -1)``, ``np.ravel(x)``): a new
        temporary of the new shape, element ``k`` of it (C order) element ``k`` of ``x`` (C order,
        whatever ``x``'s strides).  The copy's reads of ``x`` are subscripts computed at run time
        (``flat // stride % extent``), which the model reads as the whole of each axis, so every
        write of ``x`` before it is seen; its writes are the whole new array, exactly.  The new
        extents must be affine in sizes and integer arguments (-1 where what is left of the element
        count is); the element counts agree or the call raises NumPy's ValueError
        (``SizeMatch``).  NumPy may return a view where this copies: ``writing`` keeps them
        from drifting apart.  ``pairing`` (axes of ``x`` and of the result paired one to one, and
        the equalities of their extents, affine each) adds a copy without run-time subscripts
        for the calls where they hold (doitgen's ``np.reshape(A, (NR, NQ, 1, NP))``)."""
        for e in x.extents:
            if not (e.is_const() or is_affine(e.node, self.params)):
                raise self.error(node, f"reshape() of an array of extent {e.text!r}, which changes in a loop or is "
                                 "not affine in the sizes and integer arguments", "reshape")
        sizes = [None if e is None else self.size_extent(node, e) for e in wanted]
        if None in sizes:
            sizes[sizes.index(None)] = self.missing_extent(node, x.extents, [e for e in sizes if e is not None])
        extents = tuple(e for e in sizes if e is not None)
        if sorted(e.text for e in x.extents if not e.is_const(1)) != sorted(e.text for e in extents
                                                                            if not e.is_const(1)) \
                or math.prod(e.const for e in x.extents if e.is_const()) != \
                math.prod(e.const for e in extents if e.is_const()):
            self.reshapes.append(SizeMatch(tuple(e.node for e in x.extents), tuple(e.node for e in extents),
                                           wanted.index(None) if None in wanted else -1))
        if not extents:  # x.reshape(()) of an array of one element: that element
            return scalar(x.element(tuple(const(0) for _ in x.extents)), VType(x.vtype.dtype, False))
        dtype = self.temp_dtype(node, x)
        array = self.fresh("reshape")
        self.allocate(array, extents, dtype)
        out = leaf(array, extents, dtype)
        self.reshaped.add(array)
        if x.base is not None:
            self.reshape_sources[array] = x.base
        self.changed = True

        def body(k: tuple[Sym, ...]) -> list[ast.stmt]:
            flat = _flat_index(k, extents)
            source = tuple(atom(f"({ast.unparse(i)})") for i in _unflattened(flat, x.extents))
            return [ast.Assign([_store(out.element(k))], x.element(source))]
        copy_loops = self.nest(extents, body)
        if pairing is not None and all(is_affine(side, self.params) for claim in pairing[2]
                                       for side in _sides(claim)):
            kept, placed, claims = pairing
            direct = self.regrouped(x, kept, placed, extents)
            test = ast.parse(" and ".join(claims), mode="eval").body
            copy_loops = [ast.If(test, self.nest(extents, lambda k: [
                ast.Assign([_store(out.element(k))], direct.element(k))]), copy_loops)]
        self.pre.extend(copy_loops)
        return out

    def missing_extent(self, node: ast.Call, source: tuple[Sym, ...], given: list[Sym]) -> Sym:
        """The -1 extent of a reshape: ``source``'s element count over ``given``'s (the factors
        they share cancelled; a size the call computes where what is left is not affine).  Where
        it does not divide, the element counts differ: NumPy's ValueError at the call."""
        left = Counter(e.text for e in source if not e.is_const())
        divisors = []
        for e in given:
            if left[e.text]:
                left[e.text] -= 1
            elif not e.is_const():
                divisors.append(e)  # not a factor of the count as written: divided at the call
        rest = [t for t, n in left.items() for _ in range(n)]
        numerator = math.prod(e.const for e in source if e.is_const())
        denominator = math.prod(e.const for e in given if e.is_const())
        if not denominator:
            return const(0)  # NumPy's ValueError at the call (SizeMatch), as a 0-sized array cannot be split
        by_text = {e.text: e for e in source}
        if rest and numerator % denominator:  # (n * 3).reshape(2, -1): divided at the call too
            divisors.append(const(denominator))
            denominator = 1
        return self.size_product([const(numerator // denominator), *(by_text[t] for t in rest)], divisors)

    def size_extent(self, node: ast.Call, extent: Sym) -> Sym:
        """A reshape's new extent as isl can use it: itself where affine in the sizes and integer
        arguments, a product of such factors (``c * h * w``) as a size the call computes."""
        extent = sym_of(_ViewShapes(self).visit(extent.node))
        if extent.is_const() or is_affine(extent.node, self.params):
            return extent
        factors = [sym_of(f) for f in _factors(extent.node)]
        if len(factors) < 2 or not all(f.is_const() or is_affine(f.node, self.params) for f in factors):
            # h // t of a size and an integer argument (not affine): at the top level of the body, a
            # size the call computes before anything runs (frontend.call_sizes), as Python computes
            # it there (t == 0: Python's ZeroDivisionError); the element counts are checked per call
            computed = self.call_time_size(extent.node) if self.at_top else None
            if computed is not None:
                return computed
            raise self.error(node, f"reshape() with extent {extent.text!r}: new extents must be products of "
                             "sizes and integer arguments (affine each) that do not change in a loop, or, at the "
                             "top level of the body, integer expressions of arguments the kernel never assigns "
                             "(h // t)", "reshape")
        return self.size_product(factors)

    def size_product(self, factors: list[Sym], divisors: list[Sym] | None = None) -> Sym:
        """The product of ``factors`` (affine each) over that of ``divisors`` (floor division):
        a Sym where that is affine, else a new size parameter (``pf_size``) that the call computes
        (scop.SizeProduct)."""
        number = math.prod(f.const for f in factors if f.is_const())
        rest = sorted((f for f in factors if not f.is_const()), key=lambda f: f.text)
        if len(rest) <= 1 and not divisors:
            return rest[0].scale(number) if rest else const(number)
        if number != 1:
            rest.append(const(number))
        key = (tuple(f.text for f in rest), tuple(d.text for d in divisors or ()))
        if key not in self.size_products:
            name = self.fresh("size")
            self.size_products[key] = (name, tuple(f.node for f in rest), tuple(d.node for d in divisors or ()))
            self.params = self.params | {name}
        return atom(self.size_products[key][0])

    def regrouped(self, x: View, kept: list[int], placed: list[int], extents: tuple[Sym, ...]) -> View:
        """A view of ``x`` with extents ``extents``: its axis ``placed[j]`` is ``x``'s axis
        ``kept[j]``, its other axes have extent 1, and ``x``'s other axes are 0."""
        self.changed = True

        def element(idx: tuple[Sym, ...]) -> ast.expr:
            full = [const(0)] * x.rank
            for d, k in zip(kept, placed):
                full[d] = idx[k]
            return x.element(tuple(full))
        return View(extents, x.vtype, element, x.base)

    def call_squeeze(self, node: ast.Call, x: View, args: list[ast.expr]) -> View:
        """``x.squeeze()``, ``np.squeeze(x, axis)``: the axes of extent 1 removed (those named by
        ``axis``, which must have extent 1, or all whose extent is the constant 1)."""
        axis = self.keywords(node, ("axis",)).get("axis", args[0] if args else None)
        if axis is None or _is_none(axis):
            dropped = {d for d, e in enumerate(x.extents) if e.is_const(1)}
        else:
            dropped = {a % x.rank for a in self.reduced_axes(axis, x.rank)}
            if not all(x.extents[d].is_const(1) for d in dropped):
                raise self.error(node, "squeeze() of an axis whose extent is not the constant 1", "squeeze")
        kept = [d for d in range(x.rank) if d not in dropped]
        return self.regrouped(x, kept, list(range(len(kept))), tuple(x.extents[d] for d in kept))

    def expand_dims(self, node: ast.Call, x: View) -> View:
        """``np.expand_dims(x, axis)``: axes of extent 1 inserted where ``axis`` says."""
        axis = node.args[1] if len(node.args) > 1 else self.keywords(node, ("axis",))["axis"]
        rank = x.rank + (len(axis.elts) if isinstance(axis, ast.Tuple) else 1)
        new = {a % rank for a in self.reduced_axes(axis, rank)}
        placed = [k for k in range(rank) if k not in new]
        return self.regrouped(x, list(range(x.rank)), placed,
                              tuple(x.extents[placed.index(k)] if k in placed else const(1) for k in range(rank)))

    def item(self, node: ast.Call, x: View) -> View:
        """``v.item()`` of a value with one element (``x.sum().item()``, ``x[i].item()``): that
        element as a Python number (``float``, ``int``, ``bool``, ``complex``: weak, as NumPy's
        ``item`` gives); NumPy's ValueError for more elements is refused."""
        if not all(e.is_const(1) for e in x.extents):
            raise self.error(node, "item() of an array that may have more than one element (NumPy raises "
                             "ValueError unless it has exactly one)", "item")
        kind = "bool" if x.vtype.dtype == "bool" else "complex" if x.vtype.dtype.startswith("complex") \
            else "float" if x.vtype.dtype.startswith("float") else "int"
        dtype = {"bool": "bool", "complex": "complex128", "float": "float64", "int": "int64"}[kind]
        self.changed = True
        zeros = tuple(const(0) for _ in x.extents)
        return View((), VType(dtype, True), lambda idx: ast.Call(ast.Name(kind, ast.Load()), [x.element(zeros)], []))

    def call_conj(self, node: ast.Call, x: View, args: list[ast.expr]) -> View:
        """``z.conj()`` / ``np.conj(z)`` of an array: each element's conjugate."""
        self.keywords(node, ())
        if args:
            raise self.error(node, "conj() takes no arguments", "array call")
        func = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "conj", ast.Load())
        return self.elementwise(lambda a: ast.Call(func, [a], []), [x], x.vtype, node)

    def call_copy(self, node: ast.Call, x: View, args: list[ast.expr]) -> View:
        """``x.copy()`` / ``np.copy(x)``: the same elements as a new array (not a view of ``x``)."""
        self.keywords(node, ())
        if args:
            raise self.error(node, "copy() with an order argument", "array call")
        self.changed = True
        return View(x.extents, x.vtype, x.element)

    def call_astype(self, node: ast.Call, x: View, args: list[ast.expr]) -> View:
        """``x.astype(np.float32)``: each element converted as numpy converts (a numpy scalar cast)."""
        options = self.keywords(node, ("dtype", "copy"))
        given = args[0] if args else options.get("dtype")
        if given is None or len(args) > 1:
            raise self.error(node, "astype() needs exactly one dtype", "astype")
        dtype = self.dtype_given(given)
        if dtype is None:
            raise self.error(given, f"dtype {ast.unparse(given)!r}; use np.float64, np.float32, np.int8 ... "
                             "np.int64, np.uint8 ... np.uint64, np.bool, float, int, bool or X.dtype", "astype")
        self.changed = True
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_" if dtype == "bool" else dtype, ast.Load())
        return View(x.extents, VType(dtype, False), lambda idx: ast.Call(cast, [x.element(idx)], []))

    def dtype_given(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Attribute) and node.attr == "dtype":
            return self.value_dtype(node.value)
        return _dtype_of(node, self.globals)

    def dtype_test(self, node: ast.Compare) -> bool | None:
        """``E.dtype == T`` / ``!=`` (``T`` a dtype spelling or another ``.dtype``), decided by the
        dtypes this lowering gives (NumPy compares dtypes by what they name: ``x.dtype ==
        np.float32``, ``== 'float32'``, ``== float``); None for any other comparison."""
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Eq, ast.NotEq)) or not any(
                isinstance(side, ast.Attribute) and side.attr == "dtype" for side in (node.left, node.comparators[0])):
            return None
        names = [self.dtype_given(side) for side in (node.left, node.comparators[0])]
        if names[0] is None or names[1] is None:
            return None
        return (names[0] == names[1]) == isinstance(node.ops[0], ast.Eq)

    def value_rank(self, node: ast.expr) -> int:
        """The rank of ``node``'s value, the statements and arrays computing it dropped again."""
        return self.peek(node).rank

    def peek(self, node: ast.expr) -> View:
        """``node``'s value for its rank and type only: the statements and arrays computing it are
        dropped again (its elements are not to be read)."""
        pre, allocations, temporaries, changed = len(self.pre), len(self.allocations), dict(self.temporaries), \
            self.changed
        try:
            return self.value(node)
        finally:
            del self.pre[pre:]
            del self.allocations[allocations:]
            self.temporaries, self.changed = temporaries, changed

    def ufunc_in_dtype(self, node: ast.Call, name: str) -> View:
        """``np.add(x, y, dtype=np.float32)`` (any ufunc of one result whose loop in that dtype gives
        that dtype): NumPy's loop of that dtype, each operand converted to it first (its default
        ``same_kind`` casting; a Python int into a narrower integer dtype only as a constant in
        range), then the ufunc."""
        ufunc = getattr(np, name)
        wanted = self.dtype_given(node.keywords[0].value)
        try:
            loop = ufunc(*[np.ones(1, wanted)] * ufunc.nin).dtype if wanted in _DTYPES and ufunc.nout == 1 else None
        except TypeError:  # no loop of that dtype (np.add(x, y, dtype=bool) works, np.sqrt's does not)
            loop = None
        if wanted is None or loop != wanted or len(node.args) != ufunc.nin:
            raise self.error(node, f"np.{name}() with dtype={ast.unparse(node.keywords[0].value)} (NumPy has no loop "
                             "of that dtype giving it, or other arguments)", "ufunc dtype=")
        args: list[ast.expr] = []
        for a in node.args:
            v = self.peek(a)
            const_int = _int_const(a)
            fits = v.vtype is not UNKNOWN and np.can_cast(np.dtype(v.vtype.dtype), wanted, "same_kind") and not (
                v.vtype.weak and v.vtype.is_int and wanted != "int64" and np.dtype(wanted).kind in "iu"
                and (const_int is None or not np.iinfo(wanted).min <= const_int <= np.iinfo(wanted).max))
            if not fits:
                raise self.error(a, f"np.{name}() with dtype={wanted} of an operand of {v.vtype.dtype} (NumPy's "
                                 "same_kind casting refuses it, or its value may not fit)", "ufunc dtype=")
            same = v.rank and not v.vtype.weak and v.vtype.dtype == wanted
            cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_" if wanted == "bool" else wanted, ast.Load())
            args.append(a if same else ast.copy_location(ast.Call(cast, [a], []), a))
        self.changed = True  # (the keyword is gone, of scalars too)
        if name in _BINARY_UFUNCS and not any(self.peek(a).rank for a in node.args):
            # of scalars: the operator of the converted operands (np.add(a, b, dtype=np.float32):
            # np.float32(a) + np.float32(b), NumPy's float32 scalar)
            return self.value(ast.copy_location(ast.BinOp(args[0], _BINARY_UFUNCS[name](), args[1]), node))
        return self.value(ast.copy_location(ast.Call(node.func, args, []), node))

    def value_dtype(self, node: ast.expr) -> str | None:
        """The dtype ``node.dtype`` names: of an array value (``x``, ``(a * x)``, ``x[1:]``) or a
        NumPy scalar (``x[0]``, ``x.sum()``; a Python number has no ``.dtype``), as this lowering
        types it; None where it cannot tell.  Only the type is read: the statements and arrays
        that computing ``node`` would need are dropped again (NumPy computes it, unused)."""
        pre, allocations, temporaries, changed = len(self.pre), len(self.allocations), dict(self.temporaries), \
            self.changed
        try:
            value = self.value(node)
        finally:
            del self.pre[pre:]
            del self.allocations[allocations:]
            self.temporaries, self.changed = temporaries, changed
        if value.rank == 0 and value.vtype.weak:
            return None
        return value.vtype.dtype if value.vtype.dtype in _DTYPES else None

    def call_clip(self, node: ast.Call, x: View, args: list[ast.expr]) -> View:
        """``np.clip(x, lo, hi)`` / ``x.clip(lo, hi)``: numpy's ``minimum(maximum(x, lo), hi)``
        (NaN anywhere gives NaN); either bound may be None, scalars or arrays."""
        options = self.keywords(node, ("min", "max", "a_min", "a_max"))
        bounds = list(args) + [None] * (2 - len(args))
        lo = options.get("min", options.get("a_min", bounds[0]))
        hi = options.get("max", options.get("a_max", bounds[1]))
        if len(args) > 2:
            raise self.error(node, "clip() with more than two bounds", "clip")
        given = [(maximum, b) for maximum, b in ((True, lo), (False, hi)) if b is not None and not _is_none(b)]
        if not given:
            raise self.error(node, "clip() needs a lower or an upper bound", "clip")
        parts = [x] + [self.value(b) for _, b in given]
        kinds = [maximum for maximum, _ in given]

        def clip(a, *bs):  # numpy's own clip, for the dtype
            return np.clip(a, *(bs if len(bs) == 2 else (bs[0], None) if kinds[0] else (None, bs[0])))
        vtype = UNKNOWN if any(p.vtype is UNKNOWN for p in parts) else self.numpy_type(node, clip, parts)

        def make(a: ast.expr, *bs: ast.expr) -> ast.expr:
            for maximum, b in zip(kinds, bs):
                a = _extreme(maximum, a, b)
            return a
        if all(p.rank == 0 for p in parts) and vtype is not UNKNOWN:
            self.changed = True
            cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), vtype.dtype, ast.Load())
            return scalar_op(lambda *xs: ast.Call(cast, [make(*xs)], []), parts, vtype)
        return self.elementwise(make, parts, vtype, node)

    def ufunc_reduce(self, node: ast.Call, ufunc: str) -> View:
        """``np.add.reduce(x, axis=0)`` and the maximum/minimum/multiply forms: the reductions,
        with the ufunc's default axis 0."""
        if ufunc == "logical_xor" and node.args:  # NumPy's: the parity of the true elements, a bool
            truth = ast.copy_location(ast.Compare(node.args[0], [ast.NotEq()], [ast.Constant(0)]), node)
            node = ast.copy_location(ast.Call(ast.Attribute(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bitwise_xor",
                                                                          ast.Load()), "reduce", ast.Load()),
                                              [truth, *node.args[1:]], node.keywords), node)
            ufunc = "bitwise_xor"
        kind = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min", "logical_or": "any",
                "logical_and": "all"}.get(ufunc, ufunc if ufunc in _BITWISE_REDUCTIONS else None)
        if kind is None and ufunc in _FOLDED_UFUNCS and node.args:
            return self.ufunc_fold(node, ufunc)
        if kind is None or not node.args:
            raise self.error(node, f"np.{ufunc}.reduce() is not supported; use np.add, np.multiply, np.maximum, "
                             "np.minimum, np.logical_or/and/xor, np.bitwise_and/or/xor or "
                             f"{', '.join('np.' + u for u in sorted(_FOLDED_UFUNCS))}", "reduction")
        x = self.value(node.args[0])
        if kind in _BITWISE_REDUCTIONS and (x.vtype is UNKNOWN or not (x.vtype.is_int or x.vtype.dtype == "bool")):
            raise self.error(node, f"np.{ufunc}.reduce() of other than an integer or boolean array (a TypeError "
                             "in NumPy)", "reduction")
        options = _keywords(self, node)
        if len(node.args) < 2 and "axis" not in options:
            options["axis"] = ast.Constant(0)
        return self.reduction(node, kind, x, list(node.args[1:]), options)

    def ufunc_fold(self, node: ast.Call, ufunc: str) -> View:
        """``np.logaddexp.reduce(x, axis=0)`` and the other ufuncs that NumPy reduces by one left
        fold in index order (``_FOLDED_UFUNCS``): the ufunc's identity (logaddexp's -inf, hypot's
        0: ``np.hypot.reduce([-3.0])`` is 3.0) or else the first element along the axis, in NumPy's
        result dtype, then ``acc = np.<ufunc>(acc, x[i])`` for each next one, in order (no
        regrouping: the fold is not associative).  An empty axis without an identity is NumPy's
        ValueError."""
        options = dict(zip(("axis",), node.args[1:]))
        for kw in node.keywords:
            if kw.arg not in ("axis", "keepdims") or kw.arg in options:
                raise self.error(node, f"np.{ufunc}.reduce() with arguments other than axis= and keepdims=",
                                 "reduction")
            options[kw.arg] = kw.value
        if len(node.args) > 2 or _bool_const(options.get("keepdims")) is not False:
            raise self.error(node, f"np.{ufunc}.reduce() with arguments other than axis=", "reduction")
        x = self.value(node.args[0])
        dtype = _folded_dtype(ufunc, x.vtype) if x.rank and x.vtype is not UNKNOWN and not x.vtype.weak else None
        if dtype is None:
            raise self.error(node, f"np.{ufunc}.reduce() of other than a real (non-bool) NumPy array",
                             "reduction")
        if _is_none(options.get("axis", ast.Constant(0))) and x.rank > 1:
            raise self.error(node, f"np.{ufunc}.reduce() of a {x.rank}-d array with axis=None", "reduction")
        (axis,) = (0,) if _is_none(options.get("axis", ast.Constant(0))) else \
            self.reduced_axes(options.get("axis", ast.Constant(0)), x.rank)
        identity = getattr(np, ufunc).identity  # logaddexp's -inf, hypot's 0: the fold starts there
        if identity is None:
            self.nonempty(node, f"np.{ufunc}.reduce()", (x.extents[axis],),
                          f"zero-size array to reduction operation {ufunc} which has no identity")
        self.changed = True
        np_name = ast.Name(NP_NAME, ast.Load())
        kept = tuple(e for d, e in enumerate(x.extents) if d != axis)

        def along(k: tuple[Sym, ...], at: Sym) -> tuple[Sym, ...]:  # the result's index -> x's, at ``at``
            return k[:axis] + (at,) + k[axis:]

        if kept:
            array = self.fresh("r")
            self.allocate(array, kept, dtype)
            acc_view = leaf(array, kept, dtype)

            def acc(k: tuple[Sym, ...]) -> ast.expr:
                return acc_view.element(k)
        else:
            name = self.fresh("r")

            def acc(k: tuple[Sym, ...]) -> ast.expr:
                return ast.Name(name, ast.Load())
        def store(k: tuple[Sym, ...]) -> ast.expr:
            return _store(acc(k)) if kept else ast.Name(name, ast.Store())

        cast = ast.Attribute(copy.deepcopy(np_name), dtype, ast.Load())
        first: ast.expr | None = None if identity is None else ast.Constant(float(identity)) \
            if math.isfinite(identity) else ast.UnaryOp(ast.USub(), ast.Attribute(copy.deepcopy(np_name), "inf",
                                                                                   ast.Load()))
        self.pre.extend(self.nest(kept, lambda k: [ast.Assign([store(k)], ast.Call(copy.deepcopy(cast), [
            copy.deepcopy(first) if first is not None else x.element(along(k, const(0)))], []))]))
        skip = const(0) if identity is not None else const(1)  # the elements folded in after the start
        later = tuple(e - skip if d == axis else e for d, e in enumerate(x.extents))
        operator = {"subtract": ast.Sub, "divide": ast.Div, "true_divide": ast.Div}.get(ufunc)

        def step(k: tuple[Sym, ...]) -> list[ast.stmt]:
            rest, at = k[:axis] + k[axis + 1:], k[axis] + skip
            a, b = acc(rest), x.element(along(rest, at))
            call = ast.BinOp(a, operator(), b) if operator is not None else \
                ast.Call(ast.Attribute(copy.deepcopy(np_name), ufunc, ast.Load()), [a, b], [])
            return [ast.Assign([store(rest)], call)]

        self.pre.extend(self.nest(later, step))
        if kept:
            return acc_view
        self.note_scalar(name, VType(dtype, False))
        return scalar(ast.Name(name, ast.Load()), VType(dtype, False))

    def ufunc_accumulate(self, node: ast.Call, ufunc: str) -> View:
        """``np.maximum.accumulate(x, axis=0)`` (and minimum, add, multiply): the running max
        (min, sum, product) along the axis, in order, as np.cumsum runs (default axis 0, as the
        ufunc method has; no ``dtype=``/``out=``)."""
        kind = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min"}.get(ufunc)
        if kind is None or not node.args or len(node.args) > 2:
            raise self.error(node, f"np.{ufunc}.accumulate() is not supported; use np.add, np.multiply, "
                             "np.maximum or np.minimum of an array and an axis", "running reduction")
        x = self.value(node.args[0])
        if x.vtype.dtype == "bool" and kind in ("max", "min"):
            raise self.error(node, f"np.{ufunc}.accumulate() of a boolean array", "running reduction")
        if not node.args[1:] and not any(kw.arg == "axis" for kw in node.keywords):
            node = ast.Call(node.func, node.args, node.keywords + [ast.keyword("axis", ast.Constant(0))])
        return self.running(node, kind, x, list(node.args[1:]))

    # ---- reductions ------------------------------------------------------------------------
    def reduction(self, node: ast.Call, kind: str, x: View, extra: list[ast.expr],
                  options: dict[str, ast.expr] | None = None) -> View:
        """np.sum/prod/max/min/mean over all axes (a scalar local, or with keepdims=True a view
        of it with every extent 1) or over some axes (a local array)."""
        self.changed = True
        options = dict(options if options is not None else _keywords(self, node))
        if extra:
            options.setdefault("axis", extra[0])
        allowed = {"axis", "keepdims"} | ({"initial"} if kind not in ("mean", "all", "any") else set()) \
            | ({"dtype"} if kind in ("sum", "prod", "mean") else set()) \
            | ({"where"} if kind in ("sum", "prod", "mean") else set())
        unknown = set(options) - allowed
        if unknown or len(extra) > 1:
            raise self.error(node, f"np.{kind}() with arguments other than {', '.join(sorted(allowed))}",
                             "reduction")
        if x.rank == 0:
            raise self.error(node, f"np.{kind}() of a scalar", "reduction")
        if "where" in options:
            return self.where_reduction(node, kind, x, options)
        if x.vtype.weak and x.vtype.dtype in _DTYPES:  # np.where(c, 1, 0): NumPy's array of int64 (float64, ...)
            cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_" if x.vtype.dtype == "bool" else x.vtype.dtype,
                                 ast.Load())
            weak_element = x.element

            def strong(idx: tuple[Sym, ...]) -> ast.expr:
                return ast.Call(copy.deepcopy(cast), [weak_element(idx)], [])

            x = View(x.extents, VType(x.vtype.dtype, False), strong)
        if x.vtype.weak:
            raise self.error(node, f"np.{kind}() of an array of Python numbers (NumPy reduces a strong "
                             "float64/int64 array there); multiply by an array or write the loop", "reduction")
        if x.vtype.dtype == "bool" and kind in ("max", "min"):
            if self.forms is None:
                raise self.error(node, f"np.{kind}() of a boolean array here", "reduction")
            return self.forms.bool_extreme(self, node, kind, x, options)  # as uint8, then != 0
        keepdims = _bool_const(options.get("keepdims"))
        if keepdims is None:
            raise self.error(node, "keepdims= must be True or False", "reduction")
        axes = self.reduced_axes(options.get("axis"), x.rank)
        wanted = self.dtype_given(options["dtype"]) if not _is_none(options.get("dtype")) else None
        if "dtype" in options and not _is_none(options["dtype"]) and (wanted not in _DTYPES or wanted == "bool"):
            raise self.error(options["dtype"], f"np.{kind}() with dtype {ast.unparse(options['dtype'])!r}",
                             "reduction")
        if wanted is not None:  # dtype=: each element converted to it, and the result of it, as NumPy does
            x = self.converted_to(node, f"np.{kind}()", x, options["dtype"])
        dtype = self.reduced_dtype(node, kind, x, options.get("initial"))
        if wanted is not None:
            dtype = wanted
        if kind in ("all", "any") and x.vtype.dtype != "bool":  # np.all/np.any reduce each element's truth
            x = self.elementwise(lambda v: ast.Compare(v, [ast.NotEq()], [ast.Constant(0)]), [x], VType("bool", False))
        initial = options.get("initial")
        if kind in ("max", "min") and initial is None:
            self.nonempty(node, f"np.{kind}()", tuple(x.extents[d] for d in axes))
        if set(axes) != set(range(x.rank)):
            return self.axis_reduction(node, kind, x, axes, keepdims, dtype, initial)
        total = self.full_reduction(kind, x, dtype, initial)
        if not keepdims:
            return total
        return View(tuple(const(1) for _ in x.extents), total.vtype, total.element)

    def converted_to(self, node: ast.Call, what: str, x: View, dtype_node: ast.expr) -> View:
        """``x`` with each element converted to the dtype ``dtype=`` names (a reduction's or a
        running sum's), refused for other than a numeric dtype."""
        wanted = self.dtype_given(dtype_node)
        if wanted not in _DTYPES or wanted == "bool":
            raise self.error(dtype_node, f"{what} with dtype {ast.unparse(dtype_node)!r}", "reduction")
        cast_to = ast.Attribute(ast.Name(NP_NAME, ast.Load()), wanted, ast.Load())
        given_element = x.element

        def converted(idx: tuple[Sym, ...]) -> ast.expr:
            return ast.Call(copy.deepcopy(cast_to), [given_element(idx)], [])

        return View(x.extents, VType(wanted, False), converted)

    def reduced_axes(self, axis_node: ast.expr | None, rank: int) -> tuple[int, ...]:
        """``axis=``: None (all), an integer or a tuple of integers, negative ones from the end."""
        if _is_none(axis_node):
            return tuple(range(rank))
        assert axis_node is not None
        items = axis_node.elts if isinstance(axis_node, ast.Tuple) else [axis_node]
        found = [_int_const(i) for i in items]
        if None in found or not all(-rank <= a < rank for a in found if a is not None):
            raise self.error(axis_node, f"axis= must be an integer constant or a tuple of them in [-{rank}, {rank})",
                             "reduction")
        axes = tuple(sorted(a % rank for a in found if a is not None))
        if len(set(axes)) != len(axes):
            raise self.error(axis_node, "an axis repeated in axis= (NumPy refuses it)", "reduction")
        return axes

    def reduced_dtype(self, node: ast.Call, kind: str, x: View, initial: ast.expr | None) -> str:
        """numpy's result dtype: small integers and booleans sum into int64 (uint64), means of
        integers are float64, bitwise reductions keep the dtype; ``initial=`` is converted to it."""
        reduce = getattr(np, kind).reduce if kind in _BITWISE_REDUCTIONS else getattr(np, kind)
        dtype = np.asarray(reduce(np.ones(1, dtype=x.vtype.dtype))).dtype.name
        if initial is not None:
            value = self.value(initial)
            if value.rank or value.vtype is UNKNOWN or (value.vtype.is_float and not VType(dtype, False).is_float):
                raise self.error(initial, "initial= must be a number of the array's kind (NumPy would convert "
                                 "a float initial= into an integer result)", "reduction")
        if dtype not in _DTYPES:
            raise self.error(node, f"np.{kind}() of {x.vtype.dtype} gives {dtype}", "reduction")
        return dtype

    def accumulate(self, kind: str, acc: ast.expr, value: ast.expr, reassoc: bool = False) -> ast.expr:
        """``acc`` updated with ``value``; ``reassoc``: a reduction's sum, whose order NumPy does
        not promise (it sums pairwise), so the backend may regroup it (checker.reassociable).
        Products keep index order, as NumPy's multiply.reduce does: regrouped into vector lanes,
        a product can overflow or underflow where NumPy's does not (2.0, 0.5, 2.0, ... gave inf)."""
        if kind in ("max", "min"):
            return _extreme(kind == "max", acc, value)
        if kind in ("all", "any"):  # value is already a bool (truth); and/or need no order
            return ast.BinOp(acc, ast.BitAnd() if kind == "all" else ast.BitOr(), value)
        if kind in _BITWISE_REDUCTIONS:  # exact in any order
            return ast.BinOp(acc, _BITWISE_REDUCTIONS[kind](), value)
        update = ast.BinOp(acc, ast.Mult() if kind == "prod" else ast.Add(), value)
        return reassociable(update) if reassoc and kind != "prod" else update

    def start_value(self, kind: str, dtype: str, first: ast.expr, initial: ast.expr | None) -> ast.expr:
        """What the accumulator holds before the first element (``first`` for max/min)."""
        if initial is not None:
            value = initial
        elif kind in ("max", "min"):
            return first
        elif kind in ("all", "any"):
            value = ast.Constant(kind == "all")
        elif kind == "bitwise_and" and dtype != "bool":  # NumPy's identity -1: every bit set, ~0 of the dtype
            cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load())
            return ast.UnaryOp(ast.Invert(), ast.Call(cast, [ast.Constant(0)], []))
        elif kind in _BITWISE_REDUCTIONS:
            value = ast.Constant(kind == "bitwise_and" if dtype == "bool" else 0)
        else:
            value = ast.Constant(1 if kind == "prod" else 0.0 if kind == "mean" else 0)
        cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_" if dtype == "bool" else dtype, ast.Load())
        return ast.Call(cast, [value], [])  # numpy converts initial= to the result dtype first

    def full_reduction(self, kind: str, x: View, dtype: str, initial: ast.expr | None = None) -> View:
        acc = self.fresh("r")
        zeros = tuple(const(0) for _ in x.extents)
        self.pre.append(ast.Assign([ast.Name(acc, ast.Store())],
                                   self.start_value(kind, dtype, x.element(zeros), initial)))
        self.pre.extend(self.nest(x.extents, lambda k: [ast.Assign(
            [ast.Name(acc, ast.Store())], self.accumulate(kind, ast.Name(acc, ast.Load()), x.element(k), True))]))
        vtype = VType(dtype, False)
        if kind == "mean":
            count = ast.parse(" * ".join(f"({self.length(e).text})" for e in x.extents), mode="eval").body
            self.pre.append(ast.Assign([ast.Name(acc, ast.Store())],
                                       ast.BinOp(ast.Name(acc, ast.Load()), ast.Div(), count)))
        self.note_scalar(acc, vtype)
        return scalar(ast.Name(acc, ast.Load()), vtype)

    def axis_reduction(self, node: ast.AST, kind: str, x: View, axes: tuple[int, ...], keepdims: bool,
                       dtype: str, initial: ast.expr | None) -> View:
        extents = tuple(const(1) if d in axes else e for d, e in enumerate(x.extents) if d not in axes or keepdims)
        dtype = self.temp_dtype(node, View(extents, VType(dtype, False), x.element))
        array = self.fresh("r")
        self.allocate(array, extents, dtype)
        out = leaf(array, extents, dtype)

        def out_index(k: tuple[Sym, ...]) -> tuple[Sym, ...]:  # x's index -> the result's
            return tuple(const(0) if d in axes else s for d, s in enumerate(k) if d not in axes or keepdims)

        def x_index(k: tuple[Sym, ...]) -> tuple[Sym, ...]:  # the result's index -> x's first
            kept = iter(k)
            full = [next(kept) if keepdims or d not in axes else const(0) for d in range(x.rank)]
            return tuple(const(0) if d in axes else s for d, s in enumerate(full))

        count = ast.parse(" * ".join(f"({self.length(x.extents[d]).text})" for d in axes), mode="eval").body
        kept = x.rank - len(axes)
        if axes == tuple(range(kept, x.rank)):
            # trailing axes (x.sum(axis=-1)): one nest, each result element started, accumulated and
            # finished inside the loops over the kept axes, in x's own order; the reduction is then
            # one loop nest that fuses with its producer and consumer like a hand-written row loop
            def row(k: tuple[Sym, ...]) -> list[ast.stmt]:
                target = out_index(k + tuple(const(0) for _ in axes))
                stmts: list[ast.stmt] = [ast.Assign([_store(out.element(target))], self.start_value(
                    kind, dtype, x.element(k + tuple(const(0) for _ in axes)), initial))]
                stmts += self.nest(x.extents[kept:], lambda r: [ast.Assign(
                    [_store(out.element(target))], self.accumulate(kind, out.element(target), x.element(k + r),
                                                                   True))])
                if kind == "mean":
                    stmts.append(ast.Assign([_store(out.element(target))],
                                            ast.BinOp(out.element(target), ast.Div(), copy.deepcopy(count))))
                return stmts

            self.pre.extend(self.nest(x.extents[:kept], row))
            return out
        self.pre.extend(self.nest(extents, lambda k: [ast.Assign(
            [_store(out.element(k))], self.start_value(kind, dtype, x.element(x_index(k)), initial))]))
        self.pre.extend(self.nest(x.extents, lambda k: [ast.Assign(
            [_store(out.element(out_index(k)))],
            self.accumulate(kind, out.element(out_index(k)), x.element(k), True))]))
        if kind == "mean":
            self.pre.extend(self.nest(extents, lambda k: [ast.Assign(
                [_store(out.element(k))], ast.BinOp(out.element(k), ast.Div(), count))]))
        return out


# ---- helpers -------------------------------------------------------------------------------
class _ViewShapes(ast.NodeTransformer):
    """Replaces ``v.shape[d]`` of views and local arrays ``v`` by their extents (in slice bounds)."""

    def __init__(self, lowering: Lowering) -> None:
        self.lowering = lowering

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        extent = self.lowering.view_extent(node)
        return extent.node if extent is not None else self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        size = self.lowering.sizes.get(node.id)
        if size is None or not isinstance(node.ctx, ast.Load):
            return node
        self.lowering.changed = True
        return copy.deepcopy(size)


class _Renamed(ast.NodeTransformer):
    """Names replaced by others (``renames``: old -> new)."""

    def __init__(self, renames: dict[str, str]) -> None:
        self.renames = renames

    def visit_Name(self, node: ast.Name) -> ast.AST:
        new = self.renames.get(node.id)
        return node if new is None else ast.copy_location(ast.Name(new, node.ctx), node)


class _SharedMemory(ast.NodeTransformer):
    """``np.shares_memory(x, y)`` in an assert, as the constant ``Lowering.shared_memory`` decides."""

    def __init__(self, lowering: Lowering) -> None:
        self.lowering = lowering

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("shares_memory", "may_share_memory") \
                and module_of(node.func.value, self.lowering.globals) == "np" and len(node.args) == 2 \
                and not node.keywords:
            return ast.Constant(self.lowering.shared_memory(node))
        return self.generic_visit(node)


def _loop_range(var: str, it: ast.expr) -> LoopRange:
    """``for var in range(...)`` as a LoopRange (step 0 where the range is not plain)."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
            and 1 <= len(it.args) <= 3 and not it.keywords:
        args = list(it.args)
        step = _int_const(args[2]) if len(args) == 3 else 1
        start, stop = (ast.Constant(0), args[0]) if len(args) == 1 else (args[0], args[1])
        if step:
            return LoopRange(var, sym_of(start).text, sym_of(stop).text, step)
    return LoopRange(var, "0", "0", 0)


def _indexer(view: View, rank: int) -> Callable[[tuple[Sym, ...]], tuple[Sym, ...]]:
    """Maps a result index of ``rank`` axes to ``view``'s index (trailing axes aligned)."""
    ones = [e.is_const(1) for e in view.extents]
    lead = max(view.rank - rank, 0)  # the view's leading axes the result lacks: extent 1, index 0

    def index(idx: tuple[Sym, ...]) -> tuple[Sym, ...]:
        mine = (const(0),) * lead + tuple(idx[max(rank - view.rank, 0):])
        return tuple(const(0) if one else s for one, s in zip(ones, mine))
    return index


def scalar_op(make: Callable, views: list[View], vtype: VType) -> View:
    return View((), vtype, lambda idx: make(*[v.element(()) for v in views]))


def _extreme(maximum: bool, a: ast.expr, b: ast.expr, *, ties_to_b: bool = False) -> ast.expr:
    """The larger (smaller) of two elements, NaN propagating: ``a`` when it wins or is NaN, else
    ``b``.  Equal elements (only -0.0 and 0.0 differ then) give ``a``, as ``np.clip`` and the
    reductions do, or ``b`` with ``ties_to_b``, as the ufuncs ``np.maximum``/``np.minimum`` do.

    With ``b`` a number that is not NaN (``np.clip``'s bounds, ``np.maximum(x, 0.0)``) the NaN
    test is not needed: ``b if a < b else a`` (maximum; ``a <= b`` with ``ties_to_b``) gives the
    same value for every ``a``, NaN included (it compares false), and x86 lowers the ``a < b``
    select to one ``vmaxpd`` where the general form took two compares, a mask ``or`` and a blend
    (docs/performance.md, quantize)."""
    if _number_not_nan(b):
        beats: ast.cmpop = (ast.LtE() if ties_to_b else ast.Lt()) if maximum else (ast.GtE() if ties_to_b else ast.Gt())
        beaten = ast.Compare(copy.deepcopy(a), [beats], [copy.deepcopy(b)])
        return ast.IfExp(beaten, copy.deepcopy(b), copy.deepcopy(a))
    op = (ast.Gt() if ties_to_b else ast.GtE()) if maximum else (ast.Lt() if ties_to_b else ast.LtE())
    test = ast.BoolOp(ast.Or(), [ast.Compare(a, [op], [b]),
                                 ast.Compare(copy.deepcopy(a), [ast.NotEq()], [copy.deepcopy(a)])])
    return ast.IfExp(test, copy.deepcopy(a), copy.deepcopy(b))


def _number_not_nan(node: ast.expr) -> bool:
    """Whether ``node`` is a literal int or float (signed), not NaN."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if not isinstance(node, ast.Constant) or type(node.value) not in (int, float):
        return False
    return not math.isnan(float(node.value))  # type: ignore[arg-type]


def _candidates(view: View) -> list[View]:
    """``view``, or where Python picks its type by value (View.picks), one view of each type."""
    if not view.picks:
        return [view]
    return [View(view.extents, t, view.element, view.base) for t in view.picks]


def _bound_once(tree: ast.FunctionDef) -> frozenset[str]:
    """The names the kernel binds in exactly one place, by a plain ``name = value``."""
    counts: dict[str, int] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1 + (n.id in {a.arg for a in tree.args.args})
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            counts.update(dict.fromkeys(n.names, 2))
    plain = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return frozenset(name for name, k in counts.items() if k == 1 and name in plain)


def _fold(types: list[VType]) -> VType:
    result = types[0]
    for t in types[1:]:
        result = promote_any(result, t)
    return result


def _polynomial(node: ast.expr, names: frozenset[str]) -> bool:
    """Whether ``node`` is built of ``names``, sizes (``X.shape[d]``) and integer constants with
    ``+``, ``-`` and ``*`` only."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape" and \
            isinstance(node.value.value, ast.Name) and _int_const(node.slice) is not None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _polynomial(node.operand, names)
    return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) and \
        _polynomial(node.left, names) and _polynomial(node.right, names)


def _reads_data(e: Sym) -> bool:
    """Whether an extent reads array elements (a slice bound read from an array)."""
    return any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) for n in walk(e.node))


_SIZE = re.compile(r"\b[A-Za-z_]\w*\.shape\[\d+\]")


def _same_but_sizes(a: str, b: str) -> list[tuple[str, str]] | None:
    """The pairs of array sizes whose equality makes the texts ``a`` and ``b`` the same
    expression (``A_val.shape[0]`` and ``A_col.shape[0]`` in two slices of the same bounds:
    assumed equal, checked per call, a condition stricter than NumPy's), or None."""
    if _SIZE.split(a) != _SIZE.split(b):
        return None
    return sorted({(x, y) for x, y in zip(_SIZE.findall(a), _SIZE.findall(b)) if x != y})


def promote_any(a: VType, b: VType) -> VType:
    if a.dtype == "unknown" or b.dtype == "unknown":
        return UNKNOWN
    return promote(a, b)


def _as_numpy_scalar(view: View, result: VType) -> View:
    """A scalar operand of np.maximum/np.minimum of scalars converted as NumPy converts it before
    comparing: ``np.uint8(s)`` (OverflowError where a Python int does not fit), so the result is
    the NumPy scalar of ``result`` whichever operand wins (np.maximum(x_int32[0], 2) is np.int32)."""
    cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_" if result.dtype == "bool" else result.dtype,
                         ast.Load())
    return View((), result, lambda idx: ast.Call(copy.deepcopy(cast), [view.element(idx)], []))


def _extreme_type(a: VType, b: VType) -> VType:
    """np.maximum's and np.minimum's dtype: bool of two booleans (NumPy has a bool loop), else a
    boolean operand is an int as in arithmetic (np.maximum(x_int8, m) is int8)."""
    if a.dtype == b.dtype == "bool":
        return BOOL
    return promote_any(_unbool(a), _unbool(b))


def _merged_any(a: VType, b: VType) -> VType:
    """The type of a local assigned values of types ``a`` and ``b`` (types.merged: bools stay bools)."""
    if a.dtype == "unknown" or b.dtype == "unknown":
        return UNKNOWN
    return merged(a, b)


BOOL_ARRAY = VType("bool", False)


def _python_int_wrapped(view: View, result: VType) -> Callable[[ast.expr], ast.expr]:
    """How an element of ``view`` meets ``result`` in np.where: a Python int scalar meeting an
    integer dtype narrower than int64 is NumPy's int64 array of it, cast (np.where(c, x_uint8,
    256) is 0 there: no OverflowError); a Python number meeting a NumPy float or complex is that
    NumPy scalar (np.where(c, np.nan, m) is np.float64(nan): np.nanmax of all-NaN input, whose
    lowering chooses so, gave a Python float where a choice keeps its operand's kind); anything
    else is left as it is."""
    def np_call(dtype: str, value: ast.expr) -> ast.expr:
        return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load()), [value], [])

    if view.rank or not view.vtype.weak or result.weak:
        return lambda element: element
    if result.dtype.startswith(("float", "complex")) and view.vtype.dtype != "unknown":
        return lambda element: np_call(result.dtype, element)
    if view.vtype != WEAK_INT or result.dtype not in INTS or result.dtype == "int64":
        return lambda element: element
    return lambda element: np_call(result.dtype, np_call("int64", element))


def _np_bool(value: ast.expr) -> ast.expr:
    """``np.bool_(value)``: a numpy bool (strong), as NumPy's array holds it."""
    return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_", ast.Load()), [value], [])


def _unbool(t: VType) -> VType:
    return WEAK_INT if t.dtype == "bool" else t


def binop_type(op: ast.operator, lhs: View, rhs: View) -> VType:
    if type(op) in BITWISE and UNKNOWN not in (lhs.vtype, rhs.vtype):
        try:
            return bitwise_type(BITWISE[type(op)], lhs.vtype, rhs.vtype)
        except TypeError:
            return UNKNOWN  # refused where the lifter types the element (frontend.expressions)
    a, b = _unbool(lhs.vtype), _unbool(rhs.vtype)
    if a.dtype == "unknown" or b.dtype == "unknown":
        return UNKNOWN
    if isinstance(op, ast.Div):
        return true_divide(a, b)
    if isinstance(op, ast.Pow) and a.is_int and b.is_int and not _nonnegative(rhs) and a.weak and b.weak:
        return promote(promote(a, b), WEAK_FLOAT)  # two Python ints (a NumPy integer: NumPy's integer)
    return promote(a, b)


_SIZE_ATOM = re.compile(r"[A-Za-z_]\w*(\.shape\[\d+\])?|max\(0, .*\)")


def _nonnegative_sym(e: Sym) -> bool:
    """Whether ``e`` is a sum of sizes (names, ``X.shape[d]``, ``max(0, ...)``) with positive
    coefficients.  Other atoms may be negative: ``min(5, n - 1) // 2``, the length of
    ``x[5:1:-2]``, is -1 where ``n`` is 0 (NumPy's length is 0)."""
    return e.opaque is None and e.const >= 0 and all(c > 0 and _SIZE_ATOM.fullmatch(a) for a, c in e.terms)


def _nonnegative(view: View) -> bool:
    if view.rank:
        return False
    node = view.element(())
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0


def _number(node: ast.expr) -> int | float | None:
    """A real number written as a constant (``-0.5`` too); None for anything else."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value) if isinstance(node.value, float) else int(node.value)  # type: ignore[arg-type]
    return None


def _int_const(node: ast.expr) -> int | None:
    s = sym_of(node)
    return s.const if s.is_const() else None


def _masked_source(given: dict[str, ast.expr], dtype: str, rank: int) -> ast.expr:
    """``np.copyto(dst, src, where=mask)``'s value: ``np.where(mask, src, dst)`` with ``src``
    first cast to ``dst``'s dtype, as copyto casts it (no promotion through a wider type)."""
    src = given["src"]
    cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load())
    typed = ast.Call(ast.Attribute(copy.deepcopy(src), "astype", ast.Load()), [cast], []) if rank \
        else ast.Call(cast, [copy.deepcopy(src)], [])
    where = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "where", ast.Load())
    return ast.Call(where, [copy.deepcopy(given["where"]), typed, copy.deepcopy(given["dst"])], [])


def _without_order(node: ast.Call) -> ast.Call:
    """``np.linalg.norm(x, ord, ...)`` whose ``ord`` is the default norm's (array_norms) without
    it, axis and keepdims as keywords."""
    names = ("x", "ord", "axis", "keepdims")
    if len(node.args) <= 1 and all(kw.arg != "ord" for kw in node.keywords) or len(node.args) > len(names):
        return node
    keywords = [ast.keyword(name, arg) for name, arg in zip(names[2:], node.args[2:])]
    keywords += [kw for kw in node.keywords if kw.arg != "ord"]
    return ast.copy_location(ast.Call(node.func, node.args[:1], keywords), node)


def _bool_const(node: ast.expr | None) -> bool | None:
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return None


def _is_newaxis(node: ast.expr, globals_: dict) -> bool:
    if isinstance(node, ast.Constant) and node.value is None:
        return True
    return isinstance(node, ast.Attribute) and node.attr == "newaxis" and module_of(node.value, globals_) == "np"


def _keywords(lowering: Lowering, node: ast.Call) -> dict[str, ast.expr]:
    """The keyword arguments of a call (``**kwargs`` refused)."""
    if any(kw.arg is None for kw in node.keywords):
        raise lowering.error(node, "a call with **kwargs", "array call")
    return {str(kw.arg): kw.value for kw in node.keywords}


def _is_none(node: ast.expr | None) -> bool:
    return node is None or (isinstance(node, ast.Constant) and node.value is None)


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _names_in(text: str) -> set[str]:
    try:
        return {n.id for n in walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}
    except SyntaxError:
        return set()


def _explicit_copy(value: ast.expr, globals_: dict) -> bool:
    """``x.copy()``, ``np.copy(x)``, ``np.array(x)``: a new array, even of an index grid."""
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "copy"
            and module_of(value.func.value, globals_) is None) or _is_numpy_call(value, "copy", globals_) \
        or _is_numpy_call(value, "array", globals_)


#: NumPy functions written as inlined helpers (frontend/builtin_helpers.py), which take only
#: operands whose shape the front end tells before the lowering: what to write instead
_HELPER_FORMS = {
    name: f"np.{name}() is supported where {what} (an argument, a number, an element or a one-slice slice "
          "of an array argument, a range loop's variable, arithmetic of those scalars, or a local bound once to "
          "np.linspace, np.sort or arithmetic of those), not of an array expression here; bind it to a local "
          "name first, or write the loop"
    for name, what in (("interp", "x is a scalar or a 1-d array and xp, fp 1-d arrays"),
                       ("searchsorted", "v is a scalar or a 1-d array and a a 1-d array"),
                       ("polyval", "p and x are 1-d arrays"))}


def _ufunc_with_out(value: ast.expr, globals_: dict) -> TypeGuard[ast.Call]:
    """Whether ``value`` is ``np.<ufunc>(..., out=...)`` or ``np.clip(..., out=...)``."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
        and module_of(value.func.value, globals_) == "np" \
        and (isinstance(getattr(np, value.func.attr, None), np.ufunc) or value.func.attr == "clip") \
        and any(kw.arg == "out" for kw in value.keywords)


def _accumulate_with_out(value: ast.expr, globals_: dict) -> TypeGuard[ast.Call]:
    """Whether ``value`` is ``np.<ufunc>.accumulate(..., out=...)``, ``np.cumsum(..., out=...)`` or
    ``np.cumprod(..., out=...)`` (``out`` a keyword)."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and any(kw.arg == "out" for kw in value.keywords)):
        return False
    func = value.func
    if func.attr in ("cumsum", "cumprod"):
        return module_of(func.value, globals_) == "np"
    return func.attr == "accumulate" and isinstance(func.value, ast.Attribute) \
        and module_of(func.value.value, globals_) == "np" and isinstance(getattr(np, func.value.attr, None), np.ufunc)


def _conditional_ids(tree: ast.AST) -> set[int]:
    """The ids of the nodes in ``tree`` that Python may not evaluate when it evaluates the
    expression around them: an IfExp's branches, the operands of and/or after the first."""
    found: set[int] = set()
    for outer in walk(tree):
        parts = [outer.body, outer.orelse] if isinstance(outer, ast.IfExp) \
            else outer.values[1:] if isinstance(outer, ast.BoolOp) else []
        found.update(id(n) for part in parts for n in walk(part))
    return found


def _branch_ids(value: ast.IfExp) -> set[int]:
    """The ids ``value``'s own branches make conditional (not those of conditionals inside them),
    once ``t = value`` is an if statement."""
    branches = {id(n) for part in (value.body, value.orelse) for n in walk(part)}
    return branches - _conditional_ids(value.body) - _conditional_ids(value.orelse)


def _selected_end_form(node: ast.expr, globals_: dict) -> ast.expr | None:
    """The condition ``c`` of ``np.nonzero(c)[0][k]``, ``np.where(c)[0][k]``, ``c.nonzero()[0][k]``
    or ``np.flatnonzero(c)[k]`` (``k`` 0 or -1); None for anything else."""
    if not isinstance(node, ast.Subscript) or _int_const(node.slice) not in (0, -1):
        return None
    inner = node.value
    if isinstance(inner, ast.Subscript) and _int_const(inner.slice) == 0 and isinstance(inner.value, ast.Call):
        call = inner.value
        name = _numpy_call_name(call, globals_)
        method = isinstance(call.func, ast.Attribute) and call.func.attr == "nonzero" and name is None \
            and module_of(call.func.value, globals_) is None
        if call.keywords or not (name in ("nonzero", "where") and len(call.args) == 1 or method and not call.args):
            return None
        if call.args:
            return call.args[0]
        assert isinstance(call.func, ast.Attribute)
        return call.func.value
    if isinstance(inner, ast.Call) and _numpy_call_name(inner, globals_) == "flatnonzero" and len(inner.args) == 1 \
            and not inner.keywords:
        return inner.args[0]
    return None


def _numpy_call_name(call: ast.Call, globals_: dict) -> str | None:
    """``name`` of a call ``np.name(...)``; None for any other call."""
    if isinstance(call.func, ast.Attribute) and module_of(call.func.value, globals_) == "np":
        return call.func.attr
    return None


def _is_numpy_call(value: ast.expr, name: str, globals_: dict) -> TypeGuard[ast.Call]:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == name \
        and module_of(value.func.value, globals_) == "np"


def _dtype_of(node: ast.expr, globals_: dict) -> str | None:
    """A dtype written as ``np.float32`` (any numpy scalar type polyfuse has), ``float``,
    ``int``, ``bool`` or a string such as ``"float32"``."""
    if isinstance(node, ast.Attribute) and module_of(node.value, globals_) == "np":
        return np_scalar_type(node.attr) or ("bool" if node.attr == "bool" else None)
    if isinstance(node, ast.Name) and node.id in ("float", "int", "bool") and node.id not in globals_:
        return {"float": "float64", "int": "int64", "bool": "bool"}[node.id]
    value = globals_.get(node.id) if isinstance(node, ast.Name) else None
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        name = np.dtype(value).name  # a global naming a dtype (np_float = np.float64)
        return name if name in _DTYPES else None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            name = np.dtype(node.value).name
        except TypeError:
            return None
        return name if name in _DTYPES else None
    return None


_VIEW_CALLS = frozenset(("transpose", "reshape", "squeeze", "expand_dims", "flip", "flipud", "fliplr", "asarray",
                         "broadcast_to", "ascontiguousarray", "asfortranarray"))


_MUTATING_METHODS = frozenset(("fill", "sort", "put", "itemset", "resize", "setfield", "partition", "byteswap"))


def _copyable_aliases(tree: ast.AST, touched: set[str]) -> set[str]:
    """The names in groups joined by plain aliases (``p = r``) that nothing writes in place:
    no element or slice store, augmented assignment, ``np.copyto``, mutating method or other
    view of any of them (``touched``: ``_written_in_place(tree)`` and the second set of
    ``_viewed_names(tree)``).  Within such a group a copy cannot be told from the same array."""
    parent: dict[str, str] = {}

    def find(n: str) -> str:
        while parent.setdefault(n, n) != n:
            n = parent[n]
        return n
    for node in walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    parent[find(target.id)] = find(node.value.id)
    if not parent:
        return set()
    bad = {find(n) for n in touched if n in parent}
    return {n for n in parent if find(n) not in bad}


def _block_holding(tree: ast.AST, stmt: ast.stmt) -> list[ast.stmt] | None:
    """The statement list of ``tree`` that holds ``stmt`` itself (an if's body or else)."""
    for node in walk(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(s is stmt for s in block):
                return block
    return None


def _read_only_after(tree: ast.AST, block: list[ast.stmt], stmt: ast.stmt, name: str) -> bool:
    """Whether every read of ``name`` in ``tree`` is in a statement after ``stmt`` in ``block``."""
    after = block[next(k for k, s in enumerate(block) if s is stmt) + 1:]
    inside = {id(n) for s in after for n in walk(s)}
    return all(id(n) in inside for n in walk(tree) if isinstance(n, ast.Name) and n.id == name
               and isinstance(n.ctx, ast.Load))


def _size_context_names(tree: ast.AST) -> set[str]:
    """The names read in a ``range()`` bound, a slice bound, a subscript or the arguments of a
    call that takes a shape or a count (``np.zeros(n)``, ``x.reshape(a, b)``, ``np.linspace(a,
    b, n)``): where a local computed from the arguments may have to be a size the call computes
    (``note_size``); a local read nowhere there stays a number, of any sign."""
    places: list[ast.AST] = []
    for node in walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == "range" or name in ALLOCATORS or name in _SIZED_CALLS:
                places += node.args + [kw.value for kw in node.keywords]
        elif isinstance(node, ast.Slice):
            places += [part for part in (node.lower, node.upper, node.step) if part is not None]
        elif isinstance(node, ast.Subscript):
            places.append(node.slice)
    return {n.id for place in places for n in walk(place) if isinstance(n, ast.Name)}


_SIZED_CALLS = frozenset(("reshape", "linspace", "arange", "logspace", "geomspace", "eye", "identity", "tri",
                          "tile", "repeat", "resize", "histogram", "bincount", "full", "empty", "zeros", "ones"))


def _written_in_place(tree: ast.AST) -> set[str]:
    """Names whose arrays a statement may change in place."""
    names: set[str] = set()
    for node in walk(tree):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            names.add(_root_name(node))
        elif isinstance(node, ast.AugAssign):
            names.add(_root_name(node.target))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _MUTATING_METHODS:
                names.add(_root_name(node.func.value))
            if node.func.attr in ("copyto", "fill_diagonal") and node.args:
                names.add(_root_name(node.args[0]))
        if isinstance(node, ast.Call):
            names.update(_root_name(kw.value) for kw in node.keywords if kw.arg == "out")
    return names - {""}


def _root_name(node: ast.expr) -> str:
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _viewed_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The array names whose values some ``name = value`` binds as a view: ``value`` is the name
    itself, an index or slice of it, ``.T``, ``.real``/``.imag`` or a view-making call of it; and
    those of them some binding views other than as the name itself (one walk for both)."""
    viewed: set[str] = set()
    beyond_aliases: set[str] = set()
    for node in walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) for t in node.targets):
            root = _view_root(node.value)
            if root is not None:
                viewed.add(root.id)
                if root is not node.value:
                    beyond_aliases.add(root.id)
    return viewed, beyond_aliases


def _view_root(value: ast.expr) -> ast.Name | None:
    """The name whose array ``value`` may be a view of (``_viewed_names``), else None."""
    root: ast.expr | None = value
    while root is not None and not isinstance(root, ast.Name):
        if isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        elif isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute) and root.func.attr in _VIEW_CALLS:
            root = root.args[0] if root.args and isinstance(root.func.value, ast.Name) \
                and root.func.value.id in ("np", "numpy") else root.func.value
        else:
            root = None
    return root


def _views_of(tree: ast.AST, names: set[str]) -> set[str]:
    """``names`` and every name bound, directly or through others, to what may be a view of one
    of them (``v = x``, ``w = v[1:]``, ``e = x[i]``)."""
    found = set(names)
    bindings = [(t.id, node.value) for node in walk(tree) if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)]
    grew = True
    while grew:
        grew = False
        for target, value in bindings:
            root = _view_root(value)
            if target not in found and root is not None and root.id in found:
                found.add(target)
                grew = True
    return found


def _element_reads(tree: ast.AST) -> dict[str, set[int]]:
    """For each name ``_viewed_names`` finds viewed: the numbers of indices of the bindings
    ``c = name[i, j]`` that view it, with no slice, ``None`` or ``...`` among the indices (an
    element where that number is the array's rank, or a copy by advanced indexing: never a view),
    and ``-1`` for any other binding that views it (``v = x[1:]``, ``p = x``, ``x.T``)."""
    found: dict[str, set[int]] = {}
    for node in walk(tree):
        if not (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) for t in node.targets)):
            continue
        root = _view_root(node.value)
        if root is None:
            continue
        value = node.value
        count = -1
        if isinstance(value, ast.Subscript) and value.value is root:
            parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
            if not any(isinstance(p, (ast.Slice, ast.Starred)) or isinstance(p, ast.Constant)
                       and (p.value is None or p.value is Ellipsis) for p in parts):
                count = len(parts)
        found.setdefault(root.id, set()).add(count)
    return found


def _shape_part(node: ast.expr) -> tuple[ast.expr, slice]:
    """``x.shape[a:b]`` (constant bounds) as ``(x.shape, slice(a, b))``; anything else whole."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.step is None:
        bounds = [None if b is None else _int_const(b) for b in (node.slice.lower, node.slice.upper)]
        if all(b is not None or given is None for b, given in zip(bounds, (node.slice.lower, node.slice.upper))):
            return node.value, slice(bounds[0], bounds[1])
    return node, slice(None)


def _slice_of(node: ast.expr) -> ast.expr:
    assert isinstance(node, ast.Subscript), "element stores are array elements"
    return node.slice


def _sides(claim: str) -> list[ast.expr]:
    """Both sides of a claim ``a == b`` (Python text) as ASTs."""
    tree = ast.parse(claim, mode="eval").body
    assert isinstance(tree, ast.Compare), claim
    return [tree.left, *tree.comparators]


def _products_of_sizes(node: ast.expr, params: frozenset[str]) -> bool:
    """Whether ``node`` is a product of at least two factors, each affine in ``params``."""
    factors = _factors(node)
    return len(factors) > 1 and all(is_affine(f, params) for f in factors)


def _allocates(stmt: ast.stmt, array: str) -> ast.Call | None:
    """The allocation call of ``array = np.empty(...)`` (a statement of ``Lowering.allocations``)."""
    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == array \
            and isinstance(stmt.value, ast.Call):
        return stmt.value
    return None


def _resized(stmt: ast.stmt, array: str, extents: tuple[Sym, ...]) -> ast.stmt:
    """``stmt`` with the shape of ``array``'s allocation ``extents`` (other statements as they are)."""
    call = _allocates(stmt, array)
    if call is None:
        return stmt
    return _replace(stmt, value=_replace(call, args=[ast.Tuple([e.node for e in extents], ast.Load()),
                                                     *call.args[1:]]))


def _factors(node: ast.expr) -> list[ast.expr]:
    """The factors of a product ``a * b * c`` (``[node]`` for anything else)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [node]


def _product(factors: tuple[Sym, ...]) -> ast.expr:
    """The product of ``factors`` as an integer AST (the constants folded into one)."""
    number = math.prod(f.const for f in factors if f.is_const())
    result: ast.expr = ast.Constant(number)
    for f in factors:
        if not f.is_const():
            result = f.node if number == 1 and isinstance(result, ast.Constant) else ast.BinOp(result, ast.Mult(), f.node)
    return result


def _flat_index(index: tuple[Sym, ...], extents: tuple[Sym, ...]) -> ast.expr:
    """The C-order position of element ``index`` of an array of ``extents``."""
    flat: ast.expr = ast.Constant(0)
    for d, i in enumerate(index):
        stride = _product(extents[d + 1:])
        term = i.node if isinstance(stride, ast.Constant) and stride.value == 1 else ast.BinOp(i.node, ast.Mult(), stride)
        flat = term if isinstance(flat, ast.Constant) and flat.value == 0 else ast.BinOp(flat, ast.Add(), term)
    return flat


def _unflattened(flat: ast.expr, extents: tuple[Sym, ...]) -> list[ast.expr]:
    """The index of the element at C-order position ``flat`` of an array of ``extents``:
    ``flat // stride % extent`` per axis (no ``%`` on the first axis, no ``//`` on the last)."""
    index = []
    for d, extent in enumerate(extents):
        stride = _product(extents[d + 1:])
        part = flat if isinstance(stride, ast.Constant) and stride.value == 1 else ast.BinOp(flat, ast.FloorDiv(), stride)
        index.append(part if d == 0 else ast.BinOp(part, ast.Mod(), extent.node))
    return index


def assign_like(name: str, value: ast.expr, like: ast.stmt) -> ast.Assign:
    """``name = value`` located at ``like`` (every part without a location gets its)."""
    node = ast.Assign([ast.Name(name, ast.Store())], value)
    for part in walk(node):
        if isinstance(part, (ast.expr, ast.stmt)) and not hasattr(part, "lineno"):
            ast.copy_location(part, like)
    return ast.copy_location(node, like)


def _store(node: ast.expr) -> ast.expr:
    assert isinstance(node, ast.Subscript), "element stores are array elements"
    return ast.Subscript(node.value, node.slice, ast.Store())


def _load(node: ast.Subscript) -> ast.Subscript:
    """``node`` read (a store target's subscript as a value)."""
    node.ctx = ast.Load()
    return node


def _branches(stmt: ast.Assign | ast.AugAssign, value: ast.IfExp) -> ast.If:
    """``t = a if c else b`` as ``if c: t = a`` / ``else: t = b`` (``+=`` alike): Python evaluates
    only the branch the test picks, and the target has no side effects."""
    def assigned(part: ast.expr) -> ast.stmt:
        return _replace(stmt, target=copy.deepcopy(stmt.target), value=part) if isinstance(stmt, ast.AugAssign) \
            else _replace(stmt, targets=[copy.deepcopy(t) for t in stmt.targets], value=part)
    return ast.copy_location(ast.If(value.test, [assigned(value.body)], [assigned(value.orelse)]), stmt)


@dataclass(frozen=True)
class _Factored:
    """``expr[m]`` for an elementwise ``expr`` of selections ``x[m]`` of one mask name ``m``."""

    read: ast.Subscript
    leaves: tuple[ast.Name, ...]  # the arrays selected

    @property
    def slice(self) -> ast.expr:
        return self.read.slice


#: binary ufuncs whose ``reduce`` NumPy computes as one left fold in index order (no identity, no
#: pairwise summation): ``np.logaddexp.reduce(x)`` (arrays.ufunc_fold)
_FOLDED_UFUNCS = frozenset(("logaddexp", "logaddexp2", "hypot", "fmax", "fmin", "subtract", "divide", "true_divide"))


def _folded_dtype(ufunc: str, vtype: VType) -> str | None:
    """NumPy's dtype of ``np.<ufunc>.reduce`` of a ``vtype`` array; None where NumPy refuses it or
    it is a bool or complex fold."""
    if vtype.dtype == "bool" or vtype.is_complex or vtype.dtype not in _DTYPES:
        return None
    try:
        dtype = getattr(np, ufunc).reduce(np.ones(2, dtype=vtype.dtype)).dtype.name
    except TypeError:
        return None
    return dtype if dtype in _DTYPES and dtype != "bool" else None


_FACTORED_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_FACTORED_UFUNCS = frozenset((  # (no integer division, remainder, power or shift: they may raise or be undefined)
    "abs", "absolute", "fabs", "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sin", "cos",
    "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "negative", "positive", "square", "maximum",
    "minimum", "fmax", "fmin", "add", "subtract", "multiply", "divide", "true_divide", "hypot", "arctan2", "sign",
    "floor", "ceil", "rint", "trunc"))


def _factored_mask(node: ast.expr, names: dict, globals_: dict) -> _Factored | None:
    """``(x[m] * y[m] + 1)`` as ``(x * y + 1)[m]``: arithmetic (``+ - * /``, unary ``-``, NumPy
    ufuncs that cannot raise) of selections by one mask name ``m`` of arrays of one rank, and scalars; None for
    anything else (a reduction inside, another mask, a bare ``x[m]``).  The arithmetic runs at
    the unselected positions too (ops that cannot raise), and only the selected ones are read."""
    if not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call)):
        return None
    masks: dict[str, ast.expr] = {}  # (the mask as written: a name, or a test such as x > 0)
    leaves: list[ast.Name] = []

    def strip(n: ast.expr) -> ast.expr | None:
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in names \
                and (isinstance(n.slice, ast.Name) and n.slice.id in names
                     or isinstance(n.slice, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp, ast.Call))):
            masks[ast.dump(n.slice)] = n.slice
            leaves.append(n.value)
            return copy.deepcopy(n.value)
        if isinstance(n, ast.BinOp) and isinstance(n.op, _FACTORED_OPS):
            left, right = strip(n.left), strip(n.right)
            return None if left is None or right is None else ast.BinOp(left, n.op, right)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            operand = strip(n.operand)
            return None if operand is None else ast.UnaryOp(n.op, operand)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and module_of(n.func.value, globals_) == "np" \
                and n.func.attr in _FACTORED_UFUNCS and n.args and not n.keywords:
            args = [strip(a) for a in n.args]
            kept = [a for a in args if a is not None]
            return None if len(kept) != len(args) else ast.Call(copy.deepcopy(n.func), kept, [])
        if isinstance(n, ast.Constant) or isinstance(n, ast.Name) and n.id not in names or _is_shape(n):
            return copy.deepcopy(n)  # a number, a scalar or an extent
        return None

    stripped = strip(node)
    if stripped is None or len(masks) != 1 or not leaves or len({names[leaf.id].rank for leaf in leaves}) != 1:
        return None
    read = ast.Subscript(stripped, copy.deepcopy(next(iter(masks.values()))), ast.Load())
    return _Factored(ast.copy_location(ast.fix_missing_locations(ast.copy_location(read, node)), node),
                     tuple(leaves))


class _SelectionReads(ast.NodeTransformer):
    """The selections a reduction's argument reads (``p`` of ``p = x[m]``), written as their reads."""

    def __init__(self, lowering: Lowering) -> None:
        self.lowering = lowering

    def visit_Name(self, node: ast.Name):
        if node.id in self.lowering.selections and isinstance(node.ctx, ast.Load):
            return copy.deepcopy(self.lowering.selection_read(node))
        return node


def _mask_array_read(node: ast.expr, names: dict) -> bool:
    """Whether ``node`` is ``x[m]`` of two array names (``frontend.selection_loops``' reads of a
    selection used later: ``x[_pf_mask][0]``), which ``masked_read`` tells a mask from a gather."""
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in names \
        and isinstance(node.slice, ast.Name) and node.slice.id in names


def _is_shape(node: ast.expr) -> bool:
    """Whether ``node`` is ``X.shape[d]`` (an extent: never negative)."""
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
        and isinstance(node.value.value, ast.Name) and _int_const(node.slice) is not None


def _plain_test(node: ast.expr) -> bool:
    """Whether ``node`` is a test of names, numbers and extents alone (``n > 0``,
    ``x.shape[0] > 0``): evaluating it again costs nothing and cannot raise."""
    for n in walk(node):
        if isinstance(n, ast.Attribute) and n.attr != "shape":
            return False
        if isinstance(n, ast.Subscript) and not (isinstance(n.value, ast.Attribute) and n.value.attr == "shape"):
            return False
        if isinstance(n, (ast.Call, ast.IfExp, ast.Lambda, ast.NamedExpr)):
            return False
    return True


def _bool_valued(node: ast.expr) -> bool:
    """Whether ``node`` is written as a Python bool: a comparison, ``not``, and/or of those."""
    if isinstance(node, ast.Compare) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return True
    return isinstance(node, ast.BoolOp) and all(_bool_valued(v) for v in node.values)


def _bool_op_choice(value: ast.BoolOp) -> ast.expr:
    """``a and b`` as ``b if a else a``, ``a or b`` as ``a if a else b`` (nested for more operands):
    Python's value of the operator, whose later operands are evaluated only where it needs them
    (``a`` twice: subset expressions have no side effects)."""
    first, rest = value.values[0], value.values[1:]
    later = rest[0] if len(rest) == 1 else ast.copy_location(ast.BoolOp(value.op, rest), rest[0])
    if isinstance(value.op, ast.And):
        choice = ast.IfExp(first, later, copy.deepcopy(first))
    else:
        choice = ast.IfExp(first, copy.deepcopy(first), later)
    return ast.copy_location(choice, value)


def _either(test: ast.expr, then: View, otherwise: View) -> View:
    """The elements of ``then`` where ``test`` holds, else of ``otherwise`` (same extents)."""
    def element(idx: tuple[Sym, ...]) -> ast.expr:
        return ast.IfExp(copy.deepcopy(test), then.element(idx), otherwise.element(idx))
    return View(then.extents, then.vtype, element)


_OP_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "=="}  # facts decide reads
_NEGATED_TEXT = {ast.Lt: ">=", ast.LtE: ">", ast.Gt: "<=", ast.GtE: "<", ast.NotEq: "=="}


def run_time_error(test: str, error: str, message: str) -> ast.Assert:
    """``assert test`` raising ``error`` (a name in ir.CHECK_ERRORS) with ``message`` where it fails."""
    return ast.Assert(ast.parse(test, mode="eval").body,
                      ast.Tuple([ast.Constant(error), ast.Constant(message)], ast.Load()))


def value_error(test: str, message: str) -> ast.Assert:
    """``assert test`` raising ValueError(message) where it fails (the internal message form
    ``("ValueError", message)``, which frontend.control.lift_assert reads; user asserts take
    string messages only)."""
    return ast.Assert(ast.parse(test, mode="eval").body,
                      ast.Tuple([ast.Constant("ValueError"), ast.Constant(message)], ast.Load()))


def _replace(stmt, **fields):
    new = type(stmt)(**{**{f: getattr(stmt, f) for f in stmt._fields}, **fields})
    return ast.copy_location(new, stmt)


def _reads_transposed(view: View) -> bool:
    """Whether a matrix view reads an array with its row index on a later axis than its column
    index (``data.T``, ``np.transpose(data)``): it is stored fastest in the array's own order."""
    rows, cols = atom("pf_probe_row"), atom("pf_probe_col")
    for node in walk(view.element((rows, cols))):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple):
            axes = {name.id: d for d, item in enumerate(node.slice.elts)
                    for name in walk(item) if isinstance(name, ast.Name)}
            if rows.text in axes and cols.text in axes:
                return axes[rows.text] > axes[cols.text]
    return False


def _transposed(node: ast.expr) -> ast.expr:
    """``node.T`` as a fresh tree (``x.T.T`` written as ``x``)."""
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return copy.deepcopy(node.value)
    return ast.Attribute(copy.deepcopy(node), "T", ast.Load())


def _nested_shape(items: ast.expr) -> tuple[int, ...] | None:
    """The shape of nested lists/tuples of scalars (``()`` for a scalar), None where NumPy's would
    be ragged or a level is empty."""
    if not isinstance(items, (ast.List, ast.Tuple)):
        return ()
    shapes = {_nested_shape(e) for e in items.elts}
    if len(shapes) != 1 or None in shapes:
        return None
    inner = shapes.pop()
    assert inner is not None
    return (len(items.elts), *inner)


def _nested_leaves(items: ast.expr) -> list[ast.expr]:
    """The scalars of nested lists/tuples, in C order."""
    if not isinstance(items, (ast.List, ast.Tuple)):
        return [items]
    return [leaf for e in items.elts for leaf in _nested_leaves(e)]


#: a subscript past every array: what an index outside a view becomes, so that the array's check raises
OUTSIDE_VIEW = 1 << 40


def wrapped_in_view(base: View, text: str, extent: Sym) -> str:
    """Run-time subscript ``text`` of an axis of ``extent`` of ``base``: itself where ``base`` is
    all of its array, in order (the subscript is wrapped and checked against the array's axis
    where it runs, ``ir.Index``); of a view (``y = x[1:]``, ``x[::-1]``, a gather), wrapped
    against the view's extent as NumPy does (``y[-1]`` is ``x[-1]``, not ``x[0]``), and one
    outside ``-extent <= s < extent`` made ``OUTSIDE_VIEW`` (past every array, before or after
    the view's offset and step), so that the array's check raises IndexError as NumPy."""
    if base.base is not None and base.rank:
        k = tuple(atom(f"pf_probe{d}") for d in range(base.rank))
        if ast.unparse(base.element(k)) == f"{base.base}[{', '.join(p.text for p in k)}]":
            return text
    n = f"({extent.text})"
    return (f"(({text}) + {n} if ({text}) < 0 else ({text})) if ({text}) >= -{n} and ({text}) < {n} "
            f"else {OUTSIDE_VIEW}")


def _reads_index_arrays(node: ast.AST) -> bool:
    """Whether the subscript ``node`` reads array elements (an index array's ``idx[k]``), not
    only loop variables, sizes (``x.shape[0]``) and constants."""
    return any(isinstance(n, ast.Subscript) and not isinstance(n.value, ast.Attribute) for n in walk(node))


def _locate(tree: ast.AST, origin: ast.stmt | ast.expr) -> None:
    """Every generated node points at the statement it came from (for error messages)."""
    for node in walk(tree):
        if isinstance(node, (ast.expr, ast.stmt)):
            node.lineno, node.col_offset = origin.lineno, origin.col_offset
            node.end_lineno, node.end_col_offset = origin.end_lineno, origin.end_col_offset


def lower_arrays(source: KernelSource, globals_: dict, arguments: tuple[Argument, ...],
                 products: ProductRules, joins: JoinRules, indexing: IndexRules, forms: FormRules | None = None
                 ) -> LoweredArrays:
    """``source`` with its array statements lowered to element loops (itself when it has none),
    with the extent equalities (``a == b`` over ``X.shape[d]``) they assume: the lifter adds
    them to the Scop's context and the call-time checks refuse sizes outside it; the top-level
    ``assert`` statements, taken out of the body for the call-time checks; and the views of
    arguments the final return hands back.  Adds numpy to
    ``globals_`` under NP_NAME for the code it writes.  ``products`` lowers matrix
    products (frontend.array_linalg), ``joins`` np.concatenate and friends (frontend.array_joins),
    ``indexing`` index grids and several index arrays (frontend.advanced_index); all build on
    this module."""
    scalar_types: dict[str, VType] = {}
    for _ in range(3):  # scalar local types widen to a fixpoint, as in the lifter
        lowering = Lowering(source, globals_, arguments, scalar_types, products, joins, indexing, final=False,
                            forms=forms)
        lowering.lower_block(source.tree.body)
        if lowering.assigned == scalar_types:
            break
        scalar_types = dict(lowering.assigned)
    lowering = Lowering(source, globals_, arguments, scalar_types, products, joins, indexing, forms=forms)
    body = lowering.lower_block(source.tree.body)
    if not lowering.any_changed:  # (an allocation's extents checked per call: nonnegative_extents)
        return LoweredArrays(source, assertions=tuple(lowering.assertions), element_stores=tuple(lowering.element_stores))
    for node in lowering.allocations:  # (each at its statement: Lowering.allocate_at_top; a resized shape's too)
        _locate(node, node if hasattr(node, "lineno") else source.tree)
    tree = _replace(source.tree, body=lowering.allocations + body)
    # the same size on both sides holds (a float argument's int(xn) twice is no affine condition to check)
    lowering.assumed = [e for e in lowering.assumed if not (isinstance(e, ast.Compare) and len(e.ops) == 1
                                                             and isinstance(e.ops[0], ast.Eq)
                                                             and ast.dump(e.left) == ast.dump(e.comparators[0]))]
    accepts = tuple(lowering.numpy_accepts.get(id(equal)) for equal in lowering.assumed)
    for equal in lowering.assumed + [e for e in accepts if e is not None]:
        _locate(equal, source.tree)
    return LoweredArrays(dataclasses.replace(source, tree=tree), tuple(lowering.assumed), tuple(lowering.assertions),
                         tuple(sorted(lowering.returned_views.items())), tuple(lowering.reshapes),
                         tuple(lowering.size_products.values()),
                         tuple((name, text) for text, name in lowering.computed_sizes.items()), accepts,
                         tuple(lowering.element_stores))


def _step_writes(stmt: ast.stmt) -> set[str]:
    """The names statement ``stmt`` itself may bind (``a, b = ...``; a ``for`` loop's target; a
    ``:=`` anywhere in it); ``{"*"}`` where it may write array elements (``x[i] = v``, ``y += 1``
    of an array that may alias another, a call statement such as ``x.sort()``, any other kind);
    the compound statements' own statements are steps of their own."""
    bound = {n.target.id for n in walk(stmt) if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)}
    if isinstance(stmt, ast.Assign) and all(isinstance(n, (ast.Name, ast.Tuple, ast.List)) and not isinstance(n, ast.Starred)
                                            for t in stmt.targets for n in walk(t) if not isinstance(n, ast.expr_context)):
        return bound | {n.id for t in stmt.targets for n in walk(t) if isinstance(n, ast.Name)}
    if isinstance(stmt, ast.For):
        return bound | {n.id for n in walk(stmt.target) if isinstance(n, ast.Name)}
    if isinstance(stmt, (ast.If, ast.While, ast.Return, ast.Pass, ast.Break, ast.Continue, ast.Assert)):
        return bound
    return {"*"}


def _user_text(text: str) -> str:
    """``text`` with early_return's result locals named as the user wrote them: ``return out, k``
    binds ``k`` to ``_pf_result_1``, which may stand in for it in an extent."""
    return re.sub(rf"\b{EARLY_RESULT}_(\d+)\b", lambda m: f"returned item {m.group(1)}", text)


def _early_result(name: str) -> bool:
    """Whether ``name`` is frontend.early_return's result local (or one item's of a tuple)."""
    return name == EARLY_RESULT or name.startswith(EARLY_RESULT + "_") and name[len(EARLY_RESULT) + 1:].isdigit()
