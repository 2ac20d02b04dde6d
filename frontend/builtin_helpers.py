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
"""

import math
from collections.abc import Callable


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
#: math function name -> its helper
MATH_HELPERS: dict[str, Callable] = {"isclose": math_isclose}
