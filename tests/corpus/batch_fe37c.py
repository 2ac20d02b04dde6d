"""fe37's third batch: where the returned number's Python type depends on the path (helpers
with early returns, choices of reductions and constants, loops that may not run, breaks before
the first assignment, int/float mixes) and the refusal messages of such code."""

import math

import numpy as np
from corpus_case import Case
from numba import njit


def _n(rng, big=6, edge=0):
    return big if rng.integers(0, 2) else edge


@njit
def _peak(x):
    return x.max() if x.size else 1.5


@njit
def _first_neg(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            return x[i]
    return 0.0


@njit
def _sq(v):
    return v * v


def sum_of_helper(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += _sq(x[i])
    return s, _sq(x[0]) if x.shape[0] else -1


def helper_choice(x):
    return _peak(x)


def helper_choice_scaled(x):
    r = _peak(x)
    return r * 2


def helper_early_return(x):
    return _first_neg(x)


def helper_early_return_sum(x, y):
    return _first_neg(x) + _first_neg(y)


def last_above(x, t):
    last = None
    for i in range(x.shape[0]):
        if x[i] > t:
            last = i
    return -1 if last is None else last


def running_max_int_init(x):
    m = 0
    for i in range(x.shape[0]):
        m = max(m, x[i])
    return m


def min_with_inf(x):
    m = math.inf
    for v in x:
        if v < m:
            m = v
    return m


def mean_or_nan(x):
    if x.shape[0] == 0:
        return np.nan
    return x.mean()


def count_then_ratio(x):
    c = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            c += 1
    return c / x.shape[0] if x.shape[0] else 0.0


def break_before_assign(x, t):
    v = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            break
        v = x[i]
    return v


def int_or_float_accum(x):
    s = 0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            s += 1
        else:
            s += x[i]
    return s


def tuple_of_mixed(x):
    lo = 0.0
    hi = 0.0
    n = 0
    for v in x:
        if v < lo:
            lo = v
        if v > hi:
            hi = v
        n += 1
    return lo, hi, n


def abs_sum_complex(z):
    s = 0.0
    for i in range(z.shape[0]):
        s += abs(z[i])
    return s


def sqrt_of_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return math.sqrt(s)


def np_sqrt_of_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return np.sqrt(s)


def float_of_elem(x):
    best = float(x[0]) if x.shape[0] else 0.0
    for i in range(1, x.shape[0]):
        best = max(best, float(x[i]))
    return best


def int32_sum_loop(x):
    s = np.int32(0)
    for i in range(x.shape[0]):
        s += x[i]
    return s


def bool_result(x, t):
    ok = x.shape[0] > 0
    for i in range(x.shape[0]):
        ok = ok and x[i] < t
    return ok


def while_newton_scalar(a):
    x = a if a > 1 else 1.0
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def argmin_while(x):
    i = 0
    best = 0
    while i < x.shape[0]:
        if x[i] < x[best]:
            best = i
        i += 1
    return best


CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


_ints = lambda r: (r.integers(-5, 9, _n(r)),)  # noqa: E731
_floats = lambda r: (r.standard_normal(_n(r)),)  # noqa: E731
_add("helper_choice", helper_choice, _ints)
_add("sum_of_helper", sum_of_helper, lambda r: (r.integers(-5, 9, _n(r)).astype(np.int32),))
_add("helper_choice_scaled", helper_choice_scaled, _ints)
_add("helper_early_return", helper_early_return, _floats)
_add("helper_early_return_sum", helper_early_return_sum, lambda r: (r.standard_normal(_n(r)), r.random(_n(r))))
_add("last_above", last_above, lambda r: (r.random(_n(r)), 0.5))
_add("running_max_int_init", running_max_int_init, _floats)
_add("min_with_inf", min_with_inf, _floats)
_add("mean_or_nan", mean_or_nan, _floats)
_add("count_then_ratio", count_then_ratio, _floats)
_add("break_before_assign", break_before_assign, lambda r: (r.random(_n(r)), 0.3))
_add("int_or_float_accum", int_or_float_accum, lambda r: (r.random(_n(r)),))
_add("tuple_of_mixed", tuple_of_mixed, _floats)
_add("abs_sum_complex", abs_sum_complex, lambda r: (r.standard_normal(_n(r)) + 1j,))
_add("sqrt_of_sum", sqrt_of_sum, _floats)
_add("np_sqrt_of_sum", np_sqrt_of_sum, _floats)
_add("float_of_elem", float_of_elem, lambda r: (r.integers(-5, 9, _n(r)).astype(np.int32),))
_add("int32_sum_loop", int32_sum_loop, lambda r: (r.integers(-5, 9, _n(r)).astype(np.int32),))
_add("bool_result", bool_result, lambda r: (r.random(_n(r)), 0.9))
_add("while_newton_scalar", while_newton_scalar, lambda r: (float(r.random() * 10 + 0.1),))
_add("argmin_while", argmin_while, lambda r: (r.random(_n(r, 6, 1)),))
