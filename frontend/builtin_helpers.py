"""Python builtins (and ``math`` functions with keywords) written as helper functions, inlined
where a kernel calls them.

``sum(x)`` of an array adds its elements one after another from ``start`` (``0``), as Python's
builtin does (not NumPy's pairwise ``np.sum``: the bits differ); of an array of two or more axes
(``sum(A)``, its rows added one after another) ``builtin_sum_rows``, which starts from
``start + A[0]`` so that the total is an array from its first binding (Python's ``0 + A[0]``:
the same values and dtype; an empty ``A``, where Python returns ``0``, reads out of bounds
and is refused at the call).  ``math.isclose(a, b, rel_tol=,
abs_tol=)`` is CPython's test, step by step.  ``frontend/desugar.py: BuiltinHelpers`` points a
call of the builtin (not shadowed by a local or global) or of the ``math`` function at the helper
here, which the inliner then treats as any module-level helper.

``np.interp`` and ``np.searchsorted`` are written here too, as NumPy's C code computes them
(``arr_interp`` and ``binsearch`` in NumPy's sources), one helper for a scalar ``x`` (``v``) and
one for a 1-d array: a binary search per element (a ``while`` loop kept as written) over a
sorted 1-d ``xp`` (``a``); NumPy does not check the order either.  ``np.interp`` computes in
float64, with NumPy's ends (``left``/``right``, by default ``fp[0]``/``fp[-1]``), NaN passed
through, the value at an exact knot, NumPy's slope formula and its two NaN fallbacks, and its
rule for a single knot; ``np.searchsorted`` orders NaN last, as NumPy's sort does.
``np.sort(a)`` of a 1-d array is a heap sort of a copy in NumPy's order (NaN last; the values are
NumPy's, but for the order of -0.0 and 0.0, which compare equal), and ``np.median(a)`` NumPy's
mean of the middle one or two of them (NaN where any is NaN).
``np.polyval(p, x)`` of 1-d arrays is NumPy's Horner loop, ``y = zeros_like(x)`` then
``y = y * x + pv`` for each coefficient (a non-empty ``p``).
"""

import math
from collections.abc import Callable

import numpy as np


def builtin_sum(values, start=0):
    total = start
    for value in values:
        total = total + value
    return total


def builtin_sum_rows(values, start=0):
    total = start + values[0]
    for k in range(1, values.shape[0]):
        total = total + values[k]
    return total


def numpy_interp_value(x, xp, fp, left, right):
    n = xp.shape[0]
    v = float(x)
    r = v  # NaN stays NaN
    if n == 1:
        r = float(fp[0])
        if v < xp[0]:
            r = float(left)
        elif v > xp[0]:
            r = float(right)
    elif v > xp[n - 1]:
        r = float(right)
    elif v < xp[0]:
        r = float(left)
    elif v == v:
        lo = 0
        hi = n
        while lo < hi:
            mid = (lo + hi) // 2
            if v >= xp[mid]:
                lo = mid + 1
            else:
                hi = mid
        j = lo - 1
        if j == n - 1:
            r = float(fp[j])
        elif xp[j] == v:
            r = float(fp[j])
        else:
            slope = (float(fp[j + 1]) - float(fp[j])) / (float(xp[j + 1]) - float(xp[j]))
            r = slope * (v - float(xp[j])) + float(fp[j])
            if np.isnan(r):
                r = slope * (v - float(xp[j + 1])) + float(fp[j + 1])
                if np.isnan(r) and fp[j] == fp[j + 1]:
                    r = float(fp[j])
    return np.float64(r)  # NumPy's scalar


def numpy_interp(x, xp, fp, left, right):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = numpy_interp_value(x[i], xp, fp, left, right)
    return out


def _before(a, b):
    return a < b or (b != b and a == a)  # NumPy's sort order: NaN last


def numpy_searchsorted_value(a, v, right):
    lo = 0
    hi = a.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if right:
            step = not _before(v, a[mid])
        else:
            step = _before(a[mid], v)
        if step:
            lo = mid + 1
        else:
            hi = mid
    return np.int64(lo)


def numpy_searchsorted(a, v, right):
    out = np.empty(v.shape[0], dtype=np.int64)
    for i in range(v.shape[0]):
        out[i] = numpy_searchsorted_value(a, v[i], right)
    return out


def numpy_polyval(p, x):
    y = np.zeros_like(x) * x + p[0]
    for k in range(1, p.shape[0]):
        y = y * x + p[k]
    return y


def _sift_down(y, root, end):
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and _before(y[child], y[child + 1]):
            child = child + 1
        if _before(y[root], y[child]):
            t = y[root]
            y[root] = y[child]
            y[child] = t
            root = child
        else:
            root = end


def numpy_sort(a):
    y = a.copy()
    n = y.shape[0]
    for k in range(n):
        if n // 2 - 1 - k >= 0:
            _sift_down(y, n // 2 - 1 - k, n)
    for k in range(n - 1):
        t = y[0]
        y[0] = y[n - 1 - k]
        y[n - 1 - k] = t
        _sift_down(y, 0, n - 1 - k)
    return y


def numpy_median(a):
    y = numpy_sort(a)
    n = y.shape[0]
    m = np.mean(y[(n - 1) // 2:n // 2 + 1])
    if np.isnan(y[n - 1]):  # NaN sorts last: NumPy's median is then NaN
        m = m * np.nan
    return m


def math_isclose(a, b, rel_tol=1e-09, abs_tol=0.0):
    if a == b:
        return True
    if math.isinf(a) or math.isinf(b):
        return False
    diff = abs(b - a)
    return diff <= abs(rel_tol * b) or diff <= abs(rel_tol * a) or diff <= abs_tol


#: builtin name -> its helper
HELPERS: dict[str, Callable] = {"sum": builtin_sum}
#: builtin name -> its helper for an array of two or more axes
ROW_HELPERS: dict[str, Callable] = {"sum": builtin_sum_rows}
#: numpy function name -> (its helper for a scalar, for a 1-d array)
NUMPY_HELPERS: dict[str, tuple[Callable | None, Callable]] = {
    "interp": (numpy_interp_value, numpy_interp), "searchsorted": (numpy_searchsorted_value, numpy_searchsorted),
    "polyval": (None, numpy_polyval), "sort": (None, numpy_sort), "median": (None, numpy_median)}
#: math function name -> its helper
MATH_HELPERS: dict[str, Callable] = {"isclose": math_isclose}

_TABLES = "xp and fp 1-d arrays of real numbers named by an argument, a local or a one-slice slice of one"
#: helper -> (the call as the user spells it, what polyfuse supports of it): an error inside an
#: inlined helper names the user's call and this (frontend/rewrite.py: Helper, polyfuse/errors.py)
SUPPORTED: dict[str, tuple[str, str]] = {
    "builtin_sum": ("sum()", "sum(x, start) of a 1-d array or a generator of numbers, or of an array argument of "
                    "two or more axes (its rows added)"),
    "builtin_sum_rows": ("sum()", "sum(A, start) of an array of two or more axes adds its rows"),
    "math_isclose": ("math.isclose()", "math.isclose(a, b, rel_tol=, abs_tol=) of real scalars"),
    "numpy_interp_value": ("np.interp()", f"np.interp(x, xp, fp, left=, right=) of a scalar or 1-d x, {_TABLES}"),
    "numpy_interp": ("np.interp()", f"np.interp(x, xp, fp, left=, right=) of a scalar or 1-d x, {_TABLES}"),
    "numpy_searchsorted_value": ("np.searchsorted()", "np.searchsorted(a, v, side=) of a scalar or 1-d v and a 1-d "
                                 "array a of real numbers"),
    "numpy_searchsorted": ("np.searchsorted()", "np.searchsorted(a, v, side=) of a scalar or 1-d v and a 1-d array "
                           "a of real numbers"),
    "numpy_polyval": ("np.polyval()", "np.polyval(p, x) of 1-d arrays p (not empty) and x of real numbers"),
    "numpy_sort": ("np.sort()", "np.sort(a) of a 1-d array of real numbers"),
    "numpy_median": ("np.median()", "np.median(a) of a 1-d array of real numbers (not empty)"),
}
