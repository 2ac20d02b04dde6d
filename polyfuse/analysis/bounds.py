"""Call-time safety: every access proven inside its array for the given sizes.

At compile time we derive, per array axis, the set of parameter values (integer arguments and
array extents) for which some access falls outside the array.  A call only tests whether its
parameter values lie in those sets, so no per-access checks run inside the kernel.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import islpy as isl

from polyfuse.errors import ArgumentError
from polyfuse.model.ir import raise_check
from polyfuse.model.isl_budget import ISL_LOCK
from polyfuse.model.isl_parts import sets_of
from polyfuse.model.names import user_name
from polyfuse.model.scop import Scop, isl_name


@dataclass(frozen=True)
class AxisCheck:
    array: str
    axis: int
    extent: str  # isl text of the extent
    # elements touched, parametric; after a disk-cache load its isl text, parsed only to word an
    # error (conv_bn_relu's 16 took 9 ms to parse, a quarter of its warm load)
    touched: isl.Set | str = field(compare=False)
    unsafe: ParameterSet = field(compare=False)  # parameter values with an out-of-bounds access

    @property
    def accessed(self) -> isl.Set:
        return isl.Set(self.touched) if isinstance(self.touched, str) else self.touched


class BoundsChecker:
    """Tests parameter values against the unsafe sets; remembers values already proven safe,
    keyed on the parameters the unsafe sets involve (an int argument that only enters the
    kernel's arithmetic does not make every new value a new proof).

    ``scop`` is what runs (its arrays are what the runtime allocates); ``as_written``, when given,
    is the same program before contraction shrank its intermediates.  Its accesses are checked
    too: a write past a kernel-local array's extent (``T = np.empty((n, n))`` written at
    ``T[i, j]`` for ``j < m``) raises in Python, and contraction alone would make it vanish."""

    def __init__(self, scop: Scop, as_written: Scop | None = None) -> None:
        self.params = scop.params
        self.user_names = dict(scop.user_names)  # the arrays' names as the user wrote them (messages)
        self.prefix = "[" + ", ".join(self.params) + "]"
        self.checks = _axis_checks(scop, self.prefix)
        if as_written is not None and as_written is not scop:
            checked = {(c.array, c.axis, c.extent) for c in self.checks}
            self.checks = [c for c in _axis_checks(as_written, self.prefix)
                           if (c.array, c.axis, c.extent) not in checked] + self.checks
        # sizes outside the lifted assumptions (extents NumPy broadcasting requires to be equal)
        self.unassumed = ParameterSet(isl.Set.universe(scop.context.get_space()).subtract(scop.context))
        self.assertions = [(ParameterSet(isl.Set(text)), message, error) for text, message, error in scop.assertions]
        # within unassumed, the sizes where NumPy runs the statements too: the undecorated function runs them
        self.numpy_runs = None if scop.numpy_runs is None else ParameterSet(isl.Set(scop.numpy_runs))
        self.deciding = _involved(self.checks, self.params, [self.unassumed.set] + (  # (an assertion that
            [] if self.numpy_runs is None else [self.numpy_runs.set]) + [a.set for a, _, _ in self.assertions])  # left the context as it was)
        self._safe: OrderedDict[tuple, bool] = OrderedDict()

    def check(self, values: dict[str, int]) -> bool:
        """Whether the compiled code runs a call with these parameter values: True where every
        access is proven in bounds, False where the sizes fall outside the compiled assumptions
        but NumPy runs the statements (``numpy_runs``: the undecorated function runs the call);
        raises where Python would (the kernel's asserts) or polyfuse cannot run the call."""
        key = tuple([values[p] for p in self.deciding])
        if key in self._safe:
            self._safe.move_to_end(key)
            return self._safe[key]
        with ISL_LOCK:  # isl is not thread-safe; this runs once per new set of sizes
            compiled = self._decide(values)
        self._safe[key] = compiled
        if len(self._safe) > 256:
            self._safe.popitem(last=False)
        return compiled

    def _decide(self, values: dict[str, int]) -> bool:
        point = _Point(self, values)
        for failing, message, error in self.assertions:  # the kernel's own asserts, in order, first
            if failing.holds_for(values, point):
                raise_check(error, message)  # AssertionError, or NumPy's ValueError (np.max of no elements)
        if self.unassumed.holds_for(values, point):
            if self.numpy_runs is not None and self.numpy_runs.holds_for(values, point):
                return False
            raise ArgumentError(
                f"these arguments ({_describe(values)}) break what the kernel's NumPy statements assume: "
                "array extents they need to be equal differ (NumPy would not broadcast them either; an "
                "extent the kernel computes that is 1 only at run time is not broadcast: use None or "
                "keepdims=True), a slice bound that is not a constant is negative or runs past the "
                "slice it must match, a name bound to arrays in two branches (or rebound in a loop) "
                "gets values of different extents, which the compiled kernel keeps in one array, or a "
                "width the kernel assumes at most an axis' extent is larger (np.pad's 'reflect', "
                "'symmetric' and 'wrap' mirror once; a sliding_window_view window)")
        for check in self.checks:
            if check.unsafe.holds_for(values, point):
                raise ArgumentError(self._message(check, point.set, values, self.user_names))
        return True

    def __getstate__(self) -> dict:
        """isl objects do not pickle: keep their text (for the disk cache)."""
        checks = [(c.array, c.axis, c.extent, c.touched if isinstance(c.touched, str) else c.touched.to_str(),
                   c.unsafe) for c in self.checks]
        return {"params": self.params, "prefix": self.prefix, "checks": checks, "deciding": self.deciding,
                "unassumed": self.unassumed, "assertions": self.assertions, "numpy_runs": self.numpy_runs,
                "user_names": self.user_names}

    def __setstate__(self, state: dict) -> None:
        self.params, self.prefix, self.deciding = state["params"], state["prefix"], state["deciding"]
        self.checks = [AxisCheck(*check) for check in state["checks"]]
        self.unassumed = state["unassumed"]
        self.assertions = [a if len(a) == 3 else (*a, "AssertionError") for a in state["assertions"]]  # (before np38)
        self.numpy_runs = state.get("numpy_runs")
        self.user_names = state.get("user_names", {})
        self._safe = OrderedDict()

    def _point(self, values: dict[str, int]) -> isl.Set:
        cons = " and ".join(f"{p} = {values[p]}" for p in self.params) or "true"
        return isl.Set(f"{self.prefix} -> {{ : {cons} }}")

    @staticmethod
    def _message(check: AxisCheck, point: isl.Set, values: dict[str, int], user_names: dict[str, str]) -> str:
        array = user_name(check.array, user_names)
        touched = check.accessed.intersect_params(point)
        low, high = touched.dim_min_val(check.axis), touched.dim_max_val(check.axis)
        rank = touched.dim(isl.dim_type.set)
        index = ", ".join(f"{low}..{high}" if d == check.axis else ":" for d in range(rank))
        return (
            f"out-of-bounds access: the kernel touches {array}[{index}] but axis {check.axis} "
            f"of {array} has extent {_evaluate(check.extent, point)} "
            f"for these arguments ({_describe(values)}); pass larger arrays or smaller sizes"
            + ("; negative indices are not wrapped around as in Python, guard them with "
               "'... if i > 0 else ...'" if low.is_neg() else "")
        )


#: A conjunction of affine constraints over parameter names: (constant, ((name, coefficient), ...),
#: is_equality) each, meaning ``constant + sum(coefficient * value) == 0`` (or ``>= 0``).
Constraints = tuple[tuple[int, tuple[tuple[str, int], ...], bool], ...]


class ParameterSet:
    """A set of parameter values, kept in the disk cache as isl text, whose membership test runs
    in Python after a load where it can.

    isl parses slowly: a warm load of conv_bn_relu spent most of its time parsing 16 such sets of
    21 parameters.  A set of parameter values whose pieces have no existential variables is a
    union of conjunctions of affine constraints, and an integer point lies in it exactly when it
    satisfies every constraint of one piece: the cache entry keeps those constraints (``pieces``)
    and Python tests them, without isl.  Any other set (existential variables, set dimensions:
    an assert's failing iterations) is parsed on first use after a load and tested by isl.  In
    the process that compiled it, isl tests the set it has, as before."""

    def __init__(self, value: isl.Set) -> None:
        self._set: isl.Set | None = value
        self._text: str | None = None
        self._pieces: tuple[Constraints, ...] | None = None
        self._pieces_known = False

    @property
    def set(self) -> isl.Set:
        if self._set is None:
            self._set = isl.Set(self.text)
        return self._set

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self.set.to_str()
        return self._text

    @property
    def pieces(self) -> tuple[Constraints, ...] | None:
        """The set's constraints (None when it is not that simple)."""
        if not self._pieces_known:
            self._pieces, self._pieces_known = _pieces(self.set), True
        return self._pieces

    def holds_for(self, values: dict[str, int], point: _Point) -> bool:
        """Whether the parameter values ``values`` (``point`` as an isl set) lie in the set;
        the caller holds ISL_LOCK."""
        if self._set is None and self.pieces is not None:
            return any(all(_satisfied(constraint, values) for constraint in piece) for piece in self.pieces)
        return not self.set.intersect_params(point.set).is_empty()

    def __getstate__(self) -> dict:
        return {"text": self.text, "pieces": self.pieces}

    def __setstate__(self, state: dict) -> None:
        self._set, self._text, self._pieces, self._pieces_known = None, state["text"], state["pieces"], True


def _pieces(value: isl.Set) -> tuple[Constraints, ...] | None:
    """``value``'s basic sets as constraints, or None when it is not that simple."""
    if value.dim(isl.dim_type.set):
        return None
    names = {value.get_dim_name(isl.dim_type.param, k) for k in range(value.dim(isl.dim_type.param))}
    pieces = []
    for basic in value.get_basic_sets():
        if basic.dim(isl.dim_type.div):
            return None
        constraints = []
        for constraint in basic.get_constraints():
            coefficients = constraint.get_coefficients_by_name()
            constant = int(coefficients.pop(1).to_python()) if 1 in coefficients else 0
            terms = tuple(sorted((str(name), int(v.to_python())) for name, v in coefficients.items()))
            if not {name for name, _ in terms} <= names:
                return None
            constraints.append((constant, terms, constraint.is_equality()))
        pieces.append(tuple(constraints))
    return tuple(pieces)


def _satisfied(constraint: tuple[int, tuple[tuple[str, int], ...], bool], values: dict[str, int]) -> bool:
    constant, terms, equality = constraint
    total = constant + sum(coefficient * int(values[name]) for name, coefficient in terms)
    return total == 0 if equality else total >= 0


class _Point:
    """A call's parameter values as an isl set, built only if an isl test needs it."""

    def __init__(self, checker: BoundsChecker, values: dict[str, int]) -> None:
        self.checker, self.values = checker, values
        self._set: isl.Set | None = None

    @property
    def set(self) -> isl.Set:
        if self._set is None:
            self._set = self.checker._point(self.values)
        return self._set


def _evaluate(text: str, point: isl.Set) -> str:
    prefix = point.get_space().to_str().split("->")[0].strip()
    value = isl.Set(f"{prefix} -> {{ [v] : v = {text} }}").intersect_params(point)
    return str(value.dim_min_val(0))


def _describe(values: dict[str, int]) -> str:
    """The call's sizes as the user names them (``A.shape[0]=4``); the sizes the call computes
    (``pf_size1``: np.bincount's length, frontend.call_sizes) are the user's nowhere, left out."""
    return ", ".join(f"{k.replace('__shape', '.shape[')}{']' if '__shape' in k else ''}={v}"
                     for k, v in values.items() if not k.startswith(("pf_", "_pf")))


def _axis_checks(scop: Scop, prefix: str) -> list[AxisCheck]:
    accesses = scop.reads().union(scop.writes())
    checks = []
    for info in scop.arrays:
        if info.is_scalar:
            continue
        name = isl_name(info.name)
        dims = ", ".join(f"x{d}" for d in range(info.rank))
        elements = accesses.intersect_range(isl.UnionSet(f"{prefix} -> {{ {name}[{dims}] }}")).range()
        if elements.is_empty():
            continue
        touched = _only_set(elements)
        for axis, extent in enumerate(info.extent_texts):
            outside = isl.Set(f"{prefix} -> {{ {name}[{dims}] : x{axis} < 0 or x{axis} >= {extent} }}")
            unsafe = touched.intersect(outside).params()
            if not unsafe.is_empty():
                checks.append(AxisCheck(info.name, axis, extent, touched, ParameterSet(unsafe)))
    return checks


def _involved(checks: list[AxisCheck], params: tuple[str, ...], others: list[isl.Set]) -> tuple[str, ...]:
    """The parameters some unsafe set (or one of ``others``: the sizes outside the assumptions,
    those of them the undecorated function runs) constrains: whether a call is safe depends on
    these only (all of them if a set names a parameter we do not know)."""
    involved = set()
    for unsafe in [check.unsafe.set for check in checks] + others:
        for position in range(unsafe.dim(isl.dim_type.param)):
            if unsafe.involves_dims(isl.dim_type.param, position, 1):
                involved.add(unsafe.get_dim_name(isl.dim_type.param, position))
    if not involved <= set(params):
        return params
    return tuple(p for p in params if p in involved)


def _only_set(union: isl.UnionSet) -> isl.Set:
    return sets_of(union)[0]
