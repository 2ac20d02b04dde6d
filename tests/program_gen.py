"""A hypothesis strategy that writes random kernels of polyfuse's supported subset as source text.

Every generated program is a plain Python function ``kern(n, alpha, A, M, ...)`` over arrays whose
every extent is ``n + PAD``.  Loop variables stay inside ``[base, n + base)`` with ``base`` in
{0, 2} and subscripts only add offsets in ``[-base, PAD - base]`` (or use ``//``, ``%`` and
reversal forms that stay in range), so no access is ever out of bounds for any ``n >= 0``.

Scalars are read only after an assignment that is sure to have run (an earlier statement of the
same block or of an enclosing block), and ``np.empty`` locals are fully initialised by the first
nest, so the plain function never reads garbage or raises ``UnboundLocalError``.

``programs(numba_style=True)`` also writes what numba users write beyond the subset (issue
"Real kernels in"): sizes taken from shapes (``rows, cols = M.shape``, ``len(A)``, integer locals
such as ``sz = A.shape[0] - 4`` and ``h = n // 2``), calls of module-level helper functions,
``if`` statements whose condition reads arrays, and subscripts computed at run time
(``A[B[i] % (n + 4)]``, always in bounds by Python's ``%``).  Those programs run on the python
and cpu targets only (CUDA refuses run-time subscripts).  Without it, the strategy draws exactly
what it drew before, so the derandomized tests keep their programs.

``programs(extra=True)`` (implies ``numba_style``) adds what real loop code has beyond that:
``int8``/``int16``/``int32`` modes whose values span the whole dtype (wraparound of ``+ - * //``
as numpy's), searches that leave a loop by ``break`` and ``while`` loops (loops kept as written),
running maxima updated under a data-dependent ``if`` (``if A[i] > m: m = A[i]``), and subscripts
from the index such a search found.  ``Program.make_args(..., views=True)`` passes every array as
a non-contiguous view (a transpose, a reversal, a strided slice of a larger array).

``programs(wild=True)`` (implies ``extra``; cp37, the campaign's ``--style wild``) adds forms none
of the above draws: an ``int-float`` mode whose arrays are int64, int32, float64 and float32 in one
program (float values stored into int arrays through ``int(...)`` or NumPy's truncating store,
int reads in float arithmetic), ``//`` and ``%`` of negatives by divisors read at run time,
bitwise ``& | ^ >>`` of ints, a bool mask argument ``K`` (``if K[i]:``, ``a if K[i] else b``,
``K[i] = x > y``), ``continue`` under a condition, ``while`` loops that step a counter by 1-3, and
(cp39) a local given elements of two arrays, ``ch = X[..] if c else Y[..]`` or an if statement,
then read in arithmetic (two NumPy dtypes in one local in the small-int and int-float modes).
The derandomized tests never pass ``wild``, so their programs stay as they were.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from conftest import copy_args
from hypothesis import HealthCheck
from hypothesis import strategies as st

PAD = 4
EXT = f"n + {PAD}"
LOOP_VARS = ("i", "j", "k", "l")
SIZE_FORMS = {"n": (), "len": (), "unpack": ("    rows, cols = M.shape",), "local": ("    sz = A.shape[0] - 4",),
              "half": ("    h = n // 2", "    r = n % 2")}
SIZE_LINES = frozenset(line for lines in SIZE_FORMS.values() for line in lines)  # stay out of the time loop
INDEX_LOCALS = frozenset(("p", "q", "at"))  # extra mode's found indices: ints, never bound to a float


@dataclass
class Array:
    name: str
    rank: int
    dtype: str
    kind: str  # "arg" | "empty" | "zeros"


@dataclass
class Program:
    source: str
    mode: str
    arrays: list[Array]
    features: set[str] = field(default_factory=set)
    wide: bool = False  # integer values over the dtype's whole range (extra mode)
    mask: bool = False  # wild mode: a last argument K, a bool array of n + PAD elements

    @property
    def arg_arrays(self) -> list[Array]:
        return [a for a in self.arrays if a.kind == "arg"]

    def make_args(self, rng: np.random.Generator, n: int, alpha: float = 0.75, views: bool = False) -> tuple:
        args: list = [n, alpha]
        for a in self.arg_arrays:
            shape = (n + PAD,) * a.rank
            args.append(as_view(rng, self.values(rng, a.dtype, shape)) if views else
                        self.values(rng, a.dtype, shape))
        if self.mask:
            mask = rng.random(n + PAD) < 0.5
            args.append(as_view(rng, mask) if views else mask)
        return tuple(args)

    def values(self, rng: np.random.Generator, dtype: str, shape: tuple) -> np.ndarray:
        if dtype.startswith("int") and self.wide:
            info = np.iinfo(dtype)
            wide = rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)
            small = rng.integers(-9, 10, size=shape).astype(dtype)
            return np.where(rng.random(shape) < 0.5, wide, small).astype(dtype)
        if dtype.startswith("int"):
            return rng.integers(-9, 10, size=shape).astype(dtype)
        return (rng.standard_normal(shape) * 2.0).astype(dtype)

    @property
    def tolerance(self) -> tuple[float, float]:
        if any(a.dtype == "float32" for a in self.arrays):
            return 1e-4, 1e-5
        return 1e-9, 1e-12


def as_view(rng: np.random.Generator, values: np.ndarray) -> np.ndarray:
    """``values`` as a non-contiguous view with the same shape and elements: a transpose of a
    square array, a reversal, or every second or third element of a larger array."""
    form = rng.integers(0, 3)
    if form == 0 and values.ndim == 2 and values.shape[0] == values.shape[1]:
        return np.ascontiguousarray(values.T).T
    if form <= 1:
        flipped = np.ascontiguousarray(values[(slice(None, None, -1),) * values.ndim])
        return flipped[(slice(None, None, -1),) * values.ndim]
    step = int(rng.integers(2, 4))
    base = np.zeros(tuple(e * step + 1 for e in values.shape), dtype=values.dtype)
    view = base[(slice(1, None, step),) * values.ndim]
    view[...] = values
    return view


def copy_keeping_layout(args: tuple) -> tuple:
    """Copies of ``args`` whose arrays keep their strides (``copy_args`` makes contiguous copies,
    which would hand the kernel contiguous arrays in place of ``as_view``'s views)."""
    return tuple(_same_layout(a) if isinstance(a, np.ndarray) else a for a in args)


def _same_layout(a: np.ndarray) -> np.ndarray:
    if a.flags.c_contiguous or a.size == 0:
        return a.copy()
    lo, hi = np.lib.array_utils.byte_bounds(a)
    buffer = np.zeros((hi - lo) // a.itemsize, a.dtype)
    first = (a.__array_interface__["data"][0] - lo) // a.itemsize
    view = np.lib.stride_tricks.as_strided(buffer[first:], a.shape, a.strides)
    view[...] = a
    return view


@dataclass(frozen=True)
class Var:
    name: str
    base: int  # the variable ranges inside [base, n + base)


HELPERS = {
    "float": """
def soft_step(a, b):
    if a > b:
        return 0.5 * (a - b)
    return b - 0.25 * a


def blend(x, w):
    t = min(max(w, 0.0), 1.0)
    return t * x + (1.0 - t) * abs(x)
""",
    "int": """
def soft_step(a, b):
    if a > b:
        return (a - b) // 2
    return b - a % 3


def blend(x, w):
    return max(x, w) - min(x, 1)
""",
}


class Gen:
    def __init__(self, draw, numba_style: bool = False, extra: bool = False, wild: bool = False) -> None:
        self.draw = draw
        self.wild = wild
        self.extra = extra or wild
        self.numba_style = numba_style or self.extra
        self.n_text = "n"  # how loop bounds spell n (numba style: from shapes and size locals)
        self.indirect = False  # inside a run-time subscript (no nesting)
        modes = ["f64"] * 6 + ["f32", "mixed", "i64", "i32"]
        self.mode = draw(st.sampled_from(modes + ["small-int"] * 3 if extra else modes))
        if wild and draw(st.booleans()):
            self.mode = "int-float"
        self.features: set[str] = set()
        self.budget = draw(st.integers(3, 7))  # statements left to generate (isl time grows fast)
        self.arrays: list[Array] = []
        self.arrays.append(Array("A", 1, self.dtype(), "arg"))
        self.arrays.append(Array("M", 2, self.dtype(), "arg"))
        if draw(st.booleans()):
            self.arrays.append(Array("B", 1, self.dtype(), "arg"))
        if draw(st.booleans()):
            self.arrays.append(Array("N", 2, self.dtype(), "arg"))
        if draw(st.booleans()):
            self.arrays.append(Array("T", 1, self.dtype(), draw(st.sampled_from(["empty", "zeros"]))))
        if draw(st.integers(0, 3)) == 0:
            self.arrays.append(Array("U", 2, self.dtype(), draw(st.sampled_from(["empty", "zeros"]))))
        self.mask = wild and draw(st.booleans())  # a bool argument K: conditions and stores only

    # ---- types -------------------------------------------------------------------------------
    @property
    def is_int(self) -> bool:
        return self.mode in ("i64", "i32", "small-int")

    def dtype(self) -> str:
        if self.mode == "small-int":
            return self.draw(st.sampled_from(["int8", "int16", "int32"]))
        if self.mode == "mixed":
            return self.draw(st.sampled_from(["float64", "float32"]))
        if self.mode == "int-float":
            return self.draw(st.sampled_from(["float64", "int64", "int32", "float32", "float64"]))
        return {"f64": "float64", "f32": "float32", "i64": "int64", "i32": "int64"}[self.mode] \
            if self.mode != "i32" else self.draw(st.sampled_from(["int32", "int64"]))

    def zero(self) -> str:
        return "0" if self.is_int else "0.0"

    # ---- program -------------------------------------------------------------------------------
    def program(self) -> Program:
        args = ["n", "alpha"] + [a.name for a in self.arrays if a.kind == "arg"] + (["K"] if self.mask else [])
        lines = [f"def kern({', '.join(args)}):"]
        if self.numba_style:
            lines = HELPERS["int" if self.is_int else "float"].strip("\n").splitlines() + ["", ""] + lines
            lines += self.size_lines()
        for a in self.arrays:
            if a.kind == "arg":
                continue
            shape = f"({EXT},)" if a.rank == 1 else f"({EXT}, {EXT})"
            dtype = "" if a.dtype == "float64" and self.draw(st.booleans()) else f", dtype=np.{a.dtype}"
            lines.append(f"    {a.name} = np.{a.kind}({shape}{dtype})")
            self.features.add(f"local-{a.kind}")
        body: list[str] = []
        # np.empty locals: initialise every element first so nothing reads garbage
        for a in self.arrays:
            if a.kind == "empty":
                body += self.init_nest(a)
        defined: set[str] = set()
        for _ in range(self.draw(st.integers(2, 4))):
            if self.budget <= 0:
                break
            kind = self.draw(st.sampled_from(["loop", "loop", "loop", "loop", "scalar", "top"]))
            if kind == "loop":
                body += self.loop(1, [], self.draw(st.sampled_from([1, 1, 2, 2, 3])), set(defined))
            elif kind == "scalar":
                body += self.top_scalar(defined)
            else:
                body += self.assign(1, [], defined)
        lines += body
        if self.draw(st.integers(0, 4)) == 0:
            lines.append("    return")
        return Program("\n".join(lines) + "\n", self.mode, self.arrays, self.features,
                       wide=self.extra and self.is_int, mask=self.mask)

    def size_lines(self) -> list[str]:
        """How this program gets n back from the shapes, as numba users write sizes."""
        form = self.draw(st.sampled_from(["n", "unpack", "len", "local", "half"]))
        self.features.add(f"size-{form}")
        if form == "unpack":
            self.n_text = "rows - 4"
        elif form == "len":
            self.n_text = "len(A) - 4"
        elif form == "local":
            self.n_text = "sz"
        elif form == "half":  # h + h + r == n
            self.n_text = "(h + h + r)"
        return list(SIZE_FORMS[form])

    def init_nest(self, a: Array) -> list[str]:
        value = "float(i)" if not self.is_int else "i"
        if a.rank == 1:
            return [f"    for i in range({EXT}):", f"        {a.name}[i] = {value} * 0.5"
                    if not self.is_int else f"        {a.name}[i] = {value} - 3"]
        rhs = "i - j" if self.is_int else "float(i) - 0.25 * j"
        return [f"    for i in range({EXT}):", f"        for j in range({EXT}):",
                f"            {a.name}[i, j] = {rhs}"]

    def top_scalar(self, defined: set[str]) -> list[str]:
        """``acc = c`` at top level, a loop accumulating into it, then uses of it."""
        self.features.add("top-scalar")
        name = self.draw(st.sampled_from(["acc", "s"]))
        lines = [f"    {name} = {self.const()}"]
        defined.add(name)
        lines += self.loop(1, [], self.draw(st.integers(1, 2)), set(defined), accumulate=name)
        if self.draw(st.booleans()):
            lines += self.assign(1, [], defined)
        return lines

    # ---- loops ---------------------------------------------------------------------------------
    def loop(self, depth: int, scope: list[Var], max_depth: int, defined: set[str],
             accumulate: str | None = None) -> list[str]:
        pad = "    " * depth
        name = LOOP_VARS[len(scope)]
        base = self.draw(st.sampled_from([0, 0, 2]))
        header = self.range_text(name, base, scope)
        var = Var(name, base)
        inner = scope + [var]
        lines = [f"{pad}for {name} in {header}:"]
        lines += self.body(depth + 1, inner, max_depth, set(defined), accumulate)
        return lines

    def range_text(self, name: str, base: int, scope: list[Var]) -> str:
        n = self.n_text
        lo, hi = (str(base), f"{n} + {base}") if base else ("0", n)
        choices = ["plain", "plain", "step", "negstep", "short"]
        if scope:
            choices = ["plain", "step", "negstep", "short"] + ["tri_lo", "tri_hi", "min", "max"] * 2
        form = self.draw(st.sampled_from(choices))
        self.features.add(f"range-{form}")
        u = self.draw(st.sampled_from(scope)) if scope else None
        # u shifted into [base, n + base): u - u.base + base
        shift = base - u.base if u else 0
        ushift = (f"{u.name} + {shift}" if shift > 0 else f"{u.name} - {-shift}" if shift < 0
                  else u.name) if u else ""
        if form == "plain":
            return f"range({hi})" if not base else f"range({lo}, {hi})"
        if form == "step":
            step = self.draw(st.integers(2, 3))
            return f"range({lo}, {hi}, {step})"
        if form == "negstep":
            step = self.draw(st.integers(1, 3))
            return f"range({hi} - 1, {base - 1}, {-step})"
        if form == "short":
            cut = self.draw(st.integers(1, 3))
            return f"range({lo}, {hi} - {cut})"
        if form == "tri_lo":  # for j in range(i)
            return f"range({lo}, {ushift})" if base or shift else f"range({ushift})"
        if form == "tri_hi":  # for j in range(i, n)
            return f"range({ushift}, {hi})"
        if form == "min":
            c = self.draw(st.integers(0, 3))
            return f"range({lo}, min({hi}, {ushift} + {c}))"
        c = self.draw(st.integers(0, 2))
        return f"range(max({lo}, {ushift} - {c}), {hi})"

    def body(self, depth: int, scope: list[Var], max_depth: int, defined: set[str],
             accumulate: str | None = None) -> list[str]:
        lines: list[str] = []
        if accumulate is not None:
            lines += self.accumulate(depth, scope, accumulate, defined)
        count = self.draw(st.integers(1 if not lines else 0, 2))
        for _ in range(count):
            if self.budget <= 0 and lines:
                break
            kinds = ["assign", "assign", "if"]
            if depth - 1 < max_depth:
                kinds += ["loop", "reduce"]
            if self.numba_style:
                kinds.append("data-if")
            if self.extra:
                kinds += ["search", "running-max"]
            if self.wild:
                kinds += ["continue", "while-step", "choice-local", "nested-data-if"] + (["mask"] if self.mask else [])
            kind = self.draw(st.sampled_from(kinds))
            if kind == "assign":
                lines += self.assign(depth, scope, defined)
            elif kind == "if":
                lines += self.if_block(depth, scope, defined)
            elif kind == "data-if":
                lines += self.data_if(depth, scope, defined)
            elif kind == "loop":
                lines += self.loop(depth, scope, max_depth, set(defined))
            elif kind == "search":
                lines += self.search(depth, scope, defined)
            elif kind == "running-max":
                lines += self.running_max(depth, scope, defined)
            elif kind == "continue":
                lines += self.continue_block(depth, scope, defined)
            elif kind == "while-step":
                lines += self.while_step(depth, scope, defined)
            elif kind == "mask":
                lines += self.mask_block(depth, scope, defined)
            elif kind == "choice-local":
                lines += self.choice_local(depth, scope, defined)
            elif kind == "nested-data-if":
                lines += self.nested_data_if(depth, scope, defined)
            else:
                lines += self.reduction(depth, scope, max_depth, defined)
        return lines or [f"{'    ' * depth}pass"]

    def accumulate(self, depth: int, scope: list[Var], name: str, defined: set[str]) -> list[str]:
        pad = "    " * depth
        op = self.draw(st.sampled_from(["+=", "-=", "max", "min"] + ([] if self.is_int else ["*="])))
        value = self.expr(scope, defined, 2)
        if op in ("max", "min"):
            return [f"{pad}{name} = {op}({name}, {value})"]
        if op == "*=":
            return [f"{pad}{name} *= 0.5 + 0.25 * np.tanh({value})"]
        return [f"{pad}{name} {op} {value}"]

    def reduction(self, depth: int, scope: list[Var], max_depth: int, defined: set[str]) -> list[str]:
        """``s = init; for ...: s += ...; W[...] = f(s)`` inside a loop."""
        self.features.add("scalar-reduction")
        pad = "    " * depth
        name = self.draw(st.sampled_from(["s", "t"]))
        lines = [f"{pad}{name} = {self.expr(scope, defined, 1)}"]
        defined.add(name)
        lines += self.loop(depth, scope, max_depth, set(defined), accumulate=name)
        lines += self.assign(depth, scope, defined, must_read=name)
        return lines

    def if_block(self, depth: int, scope: list[Var], defined: set[str]) -> list[str]:
        self.features.add("if")
        pad = "    " * depth
        lines = [f"{pad}if {self.cond(scope)}:"]
        lines += self.assign(depth + 1, scope, set(defined))
        tail = self.draw(st.sampled_from(["", "else", "elif", "elif-else"]))
        if tail.startswith("elif"):
            lines.append(f"{pad}elif {self.cond(scope)}:")
            lines += self.assign(depth + 1, scope, set(defined))
        if tail.endswith("else"):
            lines.append(f"{pad}else:")
            lines += self.assign(depth + 1, scope, set(defined))
        return lines

    def data_if(self, depth: int, scope: list[Var], defined: set[str]) -> list[str]:
        """An ``if`` whose condition reads an array (numba style): if-converted by polyfuse."""
        self.features.add("data-if")
        pad = "    " * depth
        a = self.draw(st.sampled_from(self.arrays))
        op = self.draw(st.sampled_from([">", "<=", "!=", "=="]))
        lines = [f"{pad}if {a.name}[{self.index(a.rank, scope)}] {op} {self.const()}:"]
        lines += self.assign(depth + 1, scope, set(defined))
        if self.draw(st.booleans()):
            lines.append(f"{pad}else:")
            lines += self.assign(depth + 1, scope, set(defined))
        return lines

    def search(self, depth: int, scope: list[Var], defined: set[str]) -> list[str]:
        """The first index where a row passes a test (a loop left by ``break``, or a ``while``
        loop), then a statement that reads the index, also as a subscript."""
        self.features.add("search")
        pad, inner = "    " * depth, "    " * (depth + 1)
        a = self.draw(st.sampled_from([a for a in self.arrays if a.rank == 1] or self.arrays))
        name = self.draw(st.sampled_from(["p", "q"]))
        var = LOOP_VARS[len(scope)]
        fixed = ", ".join(self.subscript(scope) for _ in range(a.rank - 1))
        ref = f"{a.name}[{fixed + ', ' if fixed else ''}{{}}]"
        op = self.draw(st.sampled_from([">", "<", "=="]))
        c = self.const()
        if self.draw(st.booleans()):
            self.features.add("while")
            lines = [f"{pad}{name} = 0",
                     f"{pad}while {name} < {EXT} and not ({ref.format(name)} {op} {c}):",
                     f"{inner}{name} += 1"]
        else:
            self.features.add("break")
            lines = [f"{pad}{name} = -1",
                     f"{pad}for {var} in range({EXT}):",
                     f"{inner}if {ref.format(var)} {op} {c}:",
                     f"{inner}    {name} = {var}",
                     f"{inner}    break"]
        defined.add(name)
        target = self.draw(st.sampled_from(self.arrays))
        sub = f"{name} % ({EXT})"
        index = ", ".join([sub] + [self.subscript(scope) for _ in range(target.rank - 1)])
        value = name if self.is_int else f"float({name})"
        self.budget -= 1
        return lines + [f"{pad}{target.name}[{index}] = {value} + {self.expr(scope, defined, 1)}"]

    def running_max(self, depth: int, scope: list[Var], defined: set[str]) -> list[str]:
        """``m = A[0]; for v in ...: if A[v] > m: m = A[v]`` (with a position), then uses of m."""
        self.features.add("running-max")
        pad, inner = "    " * depth, "    " * (depth + 1)
        a = self.draw(st.sampled_from(self.arrays))
        var = LOOP_VARS[len(scope)]
        subs = [self.subscript(scope) for _ in range(a.rank - 1)]
        ref = f"{a.name}[{', '.join(subs + ['{}'])}]"
        op = self.draw(st.sampled_from([">", ">=", "<"]))
        lines = [f"{pad}m = {ref.format(0)}", f"{pad}at = 0",
                 f"{pad}for {var} in range(1, {EXT}):",
                 f"{inner}if {ref.format(var)} {op} m:",
                 f"{inner}    m = {ref.format(var)}",
                 f"{inner}    at = {var}"]
        defined.update(("m", "at"))
        lines += self.assign(depth, scope, defined, must_read="m")
        target = self.draw(st.sampled_from(self.arrays))
        index = ", ".join(["at"] + [self.subscript(scope) for _ in range(target.rank - 1)])
        return lines + [f"{pad}{target.name}[{index}] = m"]

    def continue_block(self, depth: int, scope: list[Var], defined: set[str]) -> list[str]:
        """``for v in range(...): if <cond>: continue`` then a statement (wild mode)."""
        self.features.add("continue")
        pad, inner = "    " * depth, "    " * (depth + 1)
        var = LOOP_VARS[len(scope)]
        inner_scope = scope + [Var(var, 0)]
        test = self.cond(inner_scope) if self.draw(st.booleans()) else \
            f"{self.leaf(inner_scope, set())} {self.draw(st.sampled_from(['>', '<=']))} {self.const()}"
        lines = [f"{pad}for {var} in range({self.n_text}):", f"{inner}if {test}:", f"{inner}    continue"]
        return lines + self.assign(depth + 1, inner_scope, set(defined))

    def while_step(self, depth: int, scope: list[Var], defined: set[str]) -> list[str]:
        """``w = lo; while w < hi: ...; w += step`` (a loop kept as written; wild mode)."""
        self.features.add("while-step")
        pad, inner = "    " * depth, "    " * (depth + 1)
        lo, step = self.draw(st.integers(0, 2)), self.draw(st.integers(1, 3))
        var = LOOP_VARS[len(scope)]
        lines = [f"{pad}{var} = {lo}", f"{pad}while {var} < {self.n_text}:"]
        lines += self.assign(depth + 1, scope + [Var(var, 0)], set(defined))
        return lines + [f"{inner}{var} += {step}"]

    def choice_local(self, depth: int, scope: list[Var], defined: set[str]) -> list[str]:
        """``ch = X[..] if <cond> else Y[..]`` (or an if statement) of two arrays, then a statement
        reading ``ch`` (wild mode): in the int8/int16/int32 and int-float modes the local holds
        values of two NumPy dtypes, and Python's arithmetic on it is that of the last one (cp39: an
        int8 in the promoted int16 local did not wrap)."""
        self.features.add("choice-local")
        pad, inner = "    " * depth, "    " * (depth + 1)
        x, y = self.draw(st.sampled_from(self.arrays)), self.draw(st.sampled_from(self.arrays))
        xr, yr = f"{x.name}[{self.index(x.rank, scope)}]", f"{y.name}[{self.index(y.rank, scope)}]"
        test = self.cond(scope) if scope and self.draw(st.booleans()) else f"{xr} > {self.const()}"
        if self.draw(st.booleans()):
            lines = [f"{pad}ch = {xr} if {test} else {yr}"]
        else:
            lines = [f"{pad}if {test}:", f"{inner}ch = {xr}", f"{pad}else:", f"{inner}ch = {yr}"]
        defined.add("ch")
        target = self.draw(st.sampled_from(self.arrays))
        ref = f"{target.name}[{self.index(target.rank, scope)}]"
        other = self.leaf(scope, defined)
        op = self.draw(st.sampled_from(["+", "-", "*"] if self.is_int else ["+", "-", "*", "/"]))
        value = f"ch {op} {other}" if op != "/" else f"ch / (1.5 + abs({other}))"
        return lines + [f"{pad}{ref} = {self.stored(target, value)}"]

    def nested_data_if(self, depth: int, scope: list[Var], defined: set[str]) -> list[str]:
        """A scratch local ``sc`` assigned in both branches of an inner data-dependent if inside an
        outer one, read after the inner if, and (sometimes) reassigned after the outer if (wild
        mode): the lowering may drop ``sc``'s old value in the inner then branch only (the inner
        else branch gave 0 where the then branch had run), and frontend/branch_locals renames ``sc``
        inside the outer if."""
        self.features.add("nested-data-if")
        pad, inner, inner2 = "    " * depth, "    " * (depth + 1), "    " * (depth + 2)
        tests = []
        for _ in range(2):
            a = self.draw(st.sampled_from(self.arrays))
            tests.append(f"{a.name}[{self.index(a.rank, scope)}] {self.draw(st.sampled_from(['>', '<=']))} {self.const()}")
        local = set(defined) - {"sc"}
        lines = [f"{pad}if {tests[0]}:", f"{inner}if {tests[1]}:", f"{inner2}sc = {self.expr(scope, local, 1)}",
                 f"{inner}else:", f"{inner2}sc = {self.expr(scope, local, 1)}"]
        target = self.draw(st.sampled_from(self.arrays))
        ref = f"{target.name}[{self.index(target.rank, scope)}]"
        lines.append(f"{inner}{ref} = {self.stored(target, 'sc')}")
        if self.draw(st.booleans()):  # sc reused as scratch after the if
            lines += [f"{pad}sc = {self.expr(scope, local, 1)}", f"{pad}{ref} = {self.stored(target, f'{ref} + sc')}"]
        return lines

    def mask_block(self, depth: int, scope: list[Var], defined: set[str]) -> list[str]:
        """The bool argument K: a condition, a select, or a store of a comparison (wild mode)."""
        self.features.add("mask")
        pad = "    " * depth
        sub = self.subscript(scope)
        form = self.draw(st.sampled_from(["if", "select", "store"]))
        if form == "if":
            return [f"{pad}if {'not ' if self.draw(st.booleans()) else ''}K[{sub}]:"] + \
                self.assign(depth + 1, scope, set(defined))
        if form == "store":
            a, b = self.expr(scope, defined, 1), self.expr(scope, defined, 1)
            return [f"{pad}K[{sub}] = {a} {self.draw(st.sampled_from(['>', '<=', '!=']))} {b}"]
        target = self.draw(st.sampled_from(self.arrays))
        a, b = self.expr(scope, defined, 1), self.expr(scope, defined, 1)
        value = self.stored(target, f"({a} if K[{sub}] else {b})")
        return [f"{pad}{target.name}[{self.index(target.rank, scope)}] = {value}"]

    def stored(self, target: Array, value: str) -> str:
        """``value`` as stored into ``target``: in int-float mode an int array gets ``int(...)``
        of it or a bounded float that NumPy's store truncates."""
        if self.mode != "int-float" or not target.dtype.startswith("int"):
            return value
        # round(np.float64(..), 6) first: a float that libm and NumPy's SIMD loops give 1 ulp apart (both
        # within docs/subset.md's 2 ulp) would otherwise truncate to two ints (seed 31019: np.tanh
        # at 19.06 is 1.0 in NumPy, 0.9999999999999999 in libm; * 50.0 stored 49 against 50)
        value = f"round(np.float64({value}), 6)"
        form = self.draw(st.sampled_from(["int", "trunc", "floordiv"]))
        if form == "int":
            return f"int({value})"
        if form == "trunc":
            return f"round(np.float64(np.tanh({value}) * 50.0), 6)"
        return f"int({value}) // {self.draw(st.sampled_from(['3', '-2', '(1 + abs(int(' + value + ')) % 5)']))}"

    def cond(self, scope: list[Var]) -> str:
        v = self.draw(st.sampled_from(scope))
        u = self.draw(st.sampled_from(scope))
        c = self.draw(st.integers(0, 4))
        forms = [
            f"{v.name} % 2 == 0",
            f"{v.name} % 3 != 1",
            f"{v.name} > {u.name}" if u != v else f"{v.name} > {v.base + c}",
            f"{v.name} <= n // 2",
            f"{v.name} + {u.name} < n",
            f"not ({v.name} == {v.base + 1})",
            f"{v.name} >= {v.base + 1} and {u.name} < n + {u.base - 1}",
            f"{v.name} == {v.base} or {v.name} == n + {v.base - 1}",
            f"{v.name} - {c} >= {u.name} // 2",
            f"{v.base} < {v.name} < n",
            "True",
        ]
        return self.draw(st.sampled_from(forms))

    # ---- statements ------------------------------------------------------------------------------
    def assign(self, depth: int, scope: list[Var], defined: set[str], must_read: str | None = None) -> list[str]:
        pad = "    " * depth
        self.budget -= 1
        scalars = sorted(defined - INDEX_LOCALS)
        # sometimes assign a scalar that is already defined (keeps the "defined" invariant)
        if scalars and must_read is None and self.draw(st.integers(0, 5)) == 0:
            name = self.draw(st.sampled_from(scalars))
            return [f"{pad}{name} = {self.expr(scope, defined, 2)}"]
        target = self.draw(st.sampled_from(self.arrays))
        ref = f"{target.name}[{self.index(target.rank, scope)}]"
        value = self.expr(scope, defined, 2)
        if must_read is not None:
            value = f"{must_read} + {value}" if self.draw(st.booleans()) else must_read
        ops = ["=", "=", "=", "+=", "-="]
        int_target = self.mode == "int-float" and target.dtype.startswith("int")
        if not self.is_int and not int_target:
            ops += ["*=", "/="]
        op = self.draw(st.sampled_from(ops))
        if op == "*=":
            value = f"0.5 + 0.25 * np.tanh({value})"
        elif op == "/=":
            value = f"(1.5 + abs({value}))"
        elif int_target:
            value = self.stored(target, value)
        if op != "=":
            self.features.add(f"aug{op}")
        return [f"{pad}{ref} {op} {value}"]

    def index(self, rank: int, scope: list[Var]) -> str:
        if self.draw(st.booleans()) and rank == 2:
            self.features.add("chained-subscript")
            return "][".join(self.subscript(scope) for _ in range(rank))
        return ", ".join(self.subscript(scope) for _ in range(rank))

    def subscript(self, scope: list[Var]) -> str:
        if self.numba_style and not self.indirect and scope and self.draw(st.integers(0, 9)) == 0:
            return self.runtime_subscript(scope)
        if not scope or self.draw(st.integers(0, 7)) == 0:
            return str(self.draw(st.integers(0, PAD - 1)))
        v = self.draw(st.sampled_from(scope))
        o = self.draw(st.integers(-v.base, PAD - v.base))
        plus = "" if o == 0 else f" + {o}" if o > 0 else f" - {-o}"
        form = self.draw(st.sampled_from(["off"] * 6 + ["rev", "div", "mod"]))
        self.features.add(f"sub-{form}")
        if form == "off":
            return f"{v.name}{plus}"
        if form == "rev":  # n + base - 1 - v  in [0, n)
            return f"n + {v.base - 1} - {v.name}"
        if form == "div":
            return f"({v.name}{plus}) // {self.draw(st.integers(2, 3))}"
        return f"({v.name}{plus}) % {self.draw(st.integers(2, PAD))}"

    def runtime_subscript(self, scope: list[Var]) -> str:
        """A subscript read from an array: Python's ``%`` by the extent keeps it in bounds."""
        self.features.add("sub-runtime")
        self.indirect = True
        try:
            a = self.draw(st.sampled_from(self.arrays))
            read = f"{a.name}[{self.index(a.rank, scope)}]"
        finally:
            self.indirect = False
        value = read if a.dtype.startswith("int") else f"int({read} * 3.0)"
        return f"({value}) % ({EXT})"

    # ---- expressions -----------------------------------------------------------------------------
    def const(self) -> str:
        if self.is_int:
            return str(self.draw(st.integers(-5, 5)))
        return self.draw(st.sampled_from(["0.0", "1.0", "-0.5", "0.25", "2.0", "-3.0"]))

    def leaf(self, scope: list[Var], defined: set[str]) -> str:
        kinds = ["read", "read", "read", "const"]
        if scope:
            kinds.append("var")
        if defined:
            kinds.append("scalar")
        kinds.append("param")
        kind = self.draw(st.sampled_from(kinds))
        if kind == "read":
            a = self.draw(st.sampled_from(self.arrays))
            return f"{a.name}[{self.index(a.rank, scope)}]"
        if kind == "const":
            return self.const()
        if kind == "var":
            v = self.draw(st.sampled_from(scope)).name
            return v if self.is_int or self.draw(st.booleans()) else f"float({v})"
        if kind == "scalar":
            return self.draw(st.sampled_from(sorted(defined)))
        if self.is_int:
            return "n"
        return self.draw(st.sampled_from(["alpha", "n", "float(n)"]))

    def expr(self, scope: list[Var], defined: set[str], depth: int) -> str:
        if depth == 0 or self.draw(st.integers(0, 2)) == 0:
            return self.leaf(scope, defined)
        a = self.expr(scope, defined, depth - 1)
        b = self.expr(scope, defined, depth - 1)
        if self.is_int:
            forms = [f"({a} + {b})", f"({a} - {b})", f"(2 * {a})", f"(-{a})", f"({a} // 3)",
                     f"({a} % 4)", f"({a} // -2)", f"({a} % -3)", f"max({a}, {b})", f"min({a}, {b}, 1)",
                     f"abs({a})", f"({a} if {a} > {b} else {b} - 1)"]
        else:
            forms = [f"({a} + {b})", f"({a} - {b})", f"({a} * {b})", f"(-{a})",
                     f"({a} / (1.0 + abs({b})))", f"max({a}, {b})", f"min({a}, {b}, 0.5)", f"abs({a})",
                     f"({a} if {a} > {b} else {b})", f"({a} if {a} <= 0.5 and {b} != 1.0 else 0.5)",
                     f"math.sqrt(abs({a}))", f"np.tanh({a})", f"math.exp(-abs({a}))",
                     f"np.log(1.0 + abs({a}))", f"math.sin({a})", f"np.cos({a})", f"({a}) ** 2",
                     f"np.fabs({a})", f"math.floor({a})", f"np.ceil({a})", f"({a} // 1.5)",
                     f"({a} % 2.5)", f"({a} % -2.0)", f"math.pow(abs({a}), 0.5)", f"float(n) * {a}",
                     f"alpha * {a}"]
        if self.numba_style:
            forms += [f"soft_step({a}, {b})", f"blend({a}, {b})"]
        if self.wild:
            forms += self.wild_forms(a, b)
        chosen = self.draw(st.sampled_from(forms))
        if chosen.startswith(("soft_step", "blend")):
            self.features.add("helper-call")
        return chosen


    def wild_forms(self, a: str, b: str) -> list[str]:
        """Integer division and modulo of negatives by run-time divisors, bitwise operators, and
        (int-float mode) ints and floats in one expression."""
        ia, ib = (a, b) if self.is_int else (f"int(round(np.float64({a}), 6))", f"int(round(np.float64({b}), 6))")  # see stored()
        forms = [f"({ia} // (1 + abs({ib}) % 4))", f"({ia} % -(1 + abs({ib}) % 3))",
                 f"(-{ia} // 3)", f"((-{ia}) % 4)", f"({ia} & 7)", f"({ia} | {ib})", f"({ia} ^ -3)",
                 f"(abs({ia}) >> 1)", f"({ia} // -1)"]
        if not self.is_int:
            forms += [f"(float({ia}) + {b})", f"({a} * (({ib}) % 3))", f"({ia} / (1 + abs({ib})))"]
        return forms


@st.composite
def programs(draw, numba_style: bool = False, extra: bool = False, wild: bool = False) -> Program:
    return Gen(draw, numba_style, extra, wild).program()


COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                                    HealthCheck.data_too_large])


def run_plain(fn, args):
    """The undecorated function on copies of ``args`` (numpy's warnings silenced): the expected outputs."""
    out = copy_args(args)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn(*out)
    return out


def in_a_time_loop(source: str) -> str:
    """The generated kernel with its body (allocations aside) run twice by a sequential loop, so
    that its parallel loops sit inside a sequential one: most such programs become regions."""
    everything = source.splitlines()
    start = next(pos for pos, line in enumerate(everything) if line.startswith("def kern("))
    helpers, lines = everything[:start], everything[start:]  # numba style: helpers come first
    allocations = [line for line in lines[1:] if line.startswith("    ") and not line.startswith("     ")
                   and ("np.empty" in line or "np.zeros" in line or line in SIZE_LINES)]
    # the final bare return stays out of the loop (a return inside a loop is refused)
    rest = [line for line in lines[1:] if line not in allocations and line != "    return"]
    return "\n".join([*helpers, lines[0], *allocations, "    for rep in range(2):", *("    " + line for line in rest)])
