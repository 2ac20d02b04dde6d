"""Python builtins (and ``math`` functions with keywords) written as helper functions, inlined
where a kernel calls them.

``max(x)`` / ``min(x)`` of one 1-d array is Python's loop: the first element, then each later one
that compares ``>`` (``<``), so a NaN is kept only where it comes first; an empty ``x`` raises
Python's ValueError (CPython 3.11's words; 3.12 says *iterable argument is empty*), where the
call gets that far: the bounds check refuses the read of ``x[0]`` first (ArgumentError).  ``sum(x)`` of an array adds its elements one after another from ``start`` (``0``), as Python's
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
``y = y * x + pv`` for each coefficient (a non-empty ``p``); of a scalar ``x`` the same with
``x`` made a NumPy scalar first (NumPy's ``asanyarray``: a Python float is float64), so the
result is NumPy's scalar of NumPy's dtype (frontend/desugar.py: ``_strong_scalar``).
``np.sort`` / ``np.argsort`` / ``np.median`` of each row of a matrix (``axis=0``: of its
transpose) sort each row as ``numpy_sort`` does; ``np.argsort`` sorts positions by value, ties
by position (NumPy's ``kind='stable'``), and without ``stable`` asserts that no two values tie
(NumPy's default sort orders ties in no set order, so the kernel raises rather than guess).
``np.quantile`` / ``np.percentile`` are NumPy's ``'linear'`` method step by step (its virtual
index, its ``-1`` past the end, the weight weak for a Python number ``q`` as NumPy makes it,
``_lerp``'s two formulas, NaN last),
``np.isin`` a loop over the test values per element, and ``np.add.at`` & co. NumPy's unbuffered
loop over the indices in order.
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


def builtin_max(values):
    assert values.shape[0] > 0, ("ValueError", "max() arg is an empty sequence")
    best = values[0]
    for k in range(1, values.shape[0]):
        if values[k] > best:
            best = values[k]
    return best


def builtin_min(values):
    assert values.shape[0] > 0, ("ValueError", "min() arg is an empty sequence")
    best = values[0]
    for k in range(1, values.shape[0]):
        if values[k] < best:
            best = values[k]
    return best


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


def numpy_digitize_direction(bins):
    n = bins.shape[0]  # NumPy's _monotonicity of the bins as float64: 1, -1, or ValueError
    direction = 1
    if n > 1:
        i = 1
        while i < n and np.float64(bins[i]) == np.float64(bins[0]):
            i += 1
        if i < n:
            if not np.float64(bins[i - 1]) < np.float64(bins[i]):
                direction = -1
            for k in range(i + 1, n):
                if direction == 1 and np.float64(bins[k - 1]) > np.float64(bins[k]):
                    direction = 0
                if direction == -1 and np.float64(bins[k - 1]) < np.float64(bins[k]):
                    direction = 0
    assert direction != 0, ("ValueError", "bins must be monotonically increasing or decreasing")
    return direction


def numpy_digitize_at(x, bins, right, direction):
    lo = 0  # np.searchsorted(bins, x, side='left' if right else 'right'); of the reversed bins if decreasing
    hi = bins.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        b = bins[mid] if direction == 1 else bins[bins.shape[0] - 1 - mid]
        if right:
            step = _before(b, x)
        else:
            step = not _before(x, b)
        if step:
            lo = mid + 1
        else:
            hi = mid
    return np.int64(lo) if direction == 1 else np.int64(bins.shape[0] - lo)


def numpy_digitize_value(x, bins, right):
    direction = numpy_digitize_direction(bins)
    return numpy_digitize_at(x, bins, right, direction)


def numpy_digitize(x, bins, right):
    direction = numpy_digitize_direction(bins)
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = numpy_digitize_at(x[i], bins, right, direction)
    return out


def numpy_polyval(p, x):
    y = np.zeros_like(x) * x + p[0]
    for k in range(1, p.shape[0]):
        y = y * x + p[k]
    return y


def numpy_polyval_value(p, x):
    y = x * 0 + p[0]
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


def numpy_partition_kth(a, k):
    # np.partition(a, k)[k] of a 1-d a: the kth smallest, np.sort(a)[k] (NaN last), whatever order
    # NumPy's introselect leaves the others in; a kth outside a is NumPy's ValueError
    n = a.shape[0]
    if k < -n or k >= n:
        raise ValueError("kth out of bounds")
    y = numpy_sort(a)
    return y[k + n if k < 0 else k]


def numpy_median(a):
    y = numpy_sort(a)
    n = y.shape[0]
    # np.mean of the middle one or two, without a slice (whose bounds a loop's slice of x cannot
    # prove non-negative): ``* 1.0`` is mean's accumulator dtype (float64 for integers and bools,
    # float32 stays float32), then the sum of the two and the division by the count, as mean
    m = y[(n - 1) // 2] * 1.0
    if n % 2 == 0:
        m = (m + y[n // 2]) / 2
    if np.isnan(y[n - 1]):  # NaN sorts last: NumPy's median is then NaN
        m = m * np.nan
    return m


def _ordered(a, i, j):
    return _before(a[i], a[j]) or (not _before(a[j], a[i]) and i < j)  # ties by position: stable


def _sift_down_order(a, order, root, end):
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and _ordered(a, order[child], order[child + 1]):
            child = child + 1
        if _ordered(a, order[root], order[child]):
            t = order[root]
            order[root] = order[child]
            order[child] = t
            root = child
        else:
            root = end


def _heap_order(a, order, count):
    # the first count positions of order (0 .. count - 1) heap-sorted by a's values, ties by position
    for k in range(count):
        if count // 2 - 1 - k >= 0:
            _sift_down_order(a, order, count // 2 - 1 - k, count)
    for k in range(count - 1):
        t = order[0]
        order[0] = order[count - 1 - k]
        order[count - 1 - k] = t
        _sift_down_order(a, order, 0, count - 1 - k)


def _no_ties(a, order, count):
    for k in range(1, count):
        assert _before(a[order[k - 1]], a[order[k]]), \
            "np.argsort() of equal values (or several NaN): NumPy's default sort orders them in no set " \
            "order; pass kind='stable'"


def numpy_argsort(values, stable):
    a = values.copy()  # an expression computed once
    n = a.shape[0]
    order = np.empty(n, dtype=np.int64)
    for k in range(n):
        order[k] = k
    _heap_order(a, order, n)
    if not stable:
        _no_ties(a, order, n)
    return order


def numpy_argsort_prefix(values, count, stable, reverse):
    # np.argsort of an array of np.unique's length (frontend/selection_loops: a buffer whose first
    # count elements are the array): the order of those first count positions, reversed for
    # np.argsort(a)[::-1]; past the count 0, a position of the prefix (np.unique's count is 0 only
    # where the buffer is empty), so the gathers by the order stay in the prefix
    a = values.copy()  # an expression computed once
    n = a.shape[0]
    order = np.zeros(n, dtype=np.int64)
    for k in range(count):
        order[k] = k
    if n > 0:  # (count is 0 where n is: order[0] is read only where it is there)
        _heap_order(a, order, count)
    if not stable:
        _no_ties(a, order, count)
    if reverse:
        for k in range(count // 2):
            t = order[k]
            order[k] = order[count - 1 - k]
            order[count - 1 - k] = t
    return order


def _sift_down_row(y, i, root, end):
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and _before(y[i, child], y[i, child + 1]):
            child = child + 1
        if _before(y[i, root], y[i, child]):
            t = y[i, root]
            y[i, root] = y[i, child]
            y[i, child] = t
            root = child
        else:
            root = end


def numpy_sort_rows(a):
    y = a.copy()
    n = y.shape[1]
    for i in range(y.shape[0]):
        for k in range(n):
            if n // 2 - 1 - k >= 0:
                _sift_down_row(y, i, n // 2 - 1 - k, n)
        for k in range(n - 1):
            t = y[i, 0]
            y[i, 0] = y[i, n - 1 - k]
            y[i, n - 1 - k] = t
            _sift_down_row(y, i, 0, n - 1 - k)
    return y


def _ordered_row(a, i, p, q):
    return _before(a[i, p], a[i, q]) or (not _before(a[i, q], a[i, p]) and p < q)


def _sift_down_order_row(a, order, i, root, end):
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and _ordered_row(a, i, order[i, child], order[i, child + 1]):
            child = child + 1
        if _ordered_row(a, i, order[i, root], order[i, child]):
            t = order[i, root]
            order[i, root] = order[i, child]
            order[i, child] = t
            root = child
        else:
            root = end


def numpy_argsort_rows(values, stable):
    a = values.copy()  # an expression computed once
    m = a.shape[0]
    n = a.shape[1]
    order = np.empty((m, n), dtype=np.int64)
    for i in range(m):
        for k in range(n):
            order[i, k] = k
    for i in range(m):
        for k in range(n):
            if n // 2 - 1 - k >= 0:
                _sift_down_order_row(a, order, i, n // 2 - 1 - k, n)
        for k in range(n - 1):
            t = order[i, 0]
            order[i, 0] = order[i, n - 1 - k]
            order[i, n - 1 - k] = t
            _sift_down_order_row(a, order, i, 0, n - 1 - k)
    if not stable:
        for i in range(m):
            for k in range(1, n):
                assert _before(a[i, order[i, k - 1]], a[i, order[i, k]]), \
                    "np.argsort() of equal values (or several NaN): NumPy's default sort orders them in no set " \
                    "order; pass kind='stable'"
    return order


def numpy_median_rows(a):
    y = numpy_sort_rows(a)
    n = y.shape[1]
    m = np.mean(y[:, (n - 1) // 2:n // 2 + 1], axis=1)
    return np.where(np.isnan(y[:, n - 1]), y[:, n - 1], m)  # NaN sorts last: that row's median is NaN


def numpy_nanmedian(a):
    y = numpy_sort(a)
    n = y.shape[0]
    k = n - np.sum(np.isnan(y))  # NaN sorts last: the median of the first k
    m = y[n - 1] * 1.0  # every element NaN: NumPy returns that NaN
    if k > 0:
        m = y[(k - 1) // 2] * 1.0
        if k % 2 == 0:
            m = (m + y[k // 2]) / 2
    return m


def numpy_nanmedian_rows(a):
    y = numpy_sort_rows(a)
    n = y.shape[1]
    m = y[:, n - 1] * 1.0  # a row of NaN only: NaN, as NumPy fills it
    for i in range(y.shape[0]):
        k = n - np.sum(np.isnan(y[i]))  # NaN sorts last: the median of the row's first k
        if k > 0:
            v = y[i, (k - 1) // 2] * 1.0
            if k % 2 == 0:
                v = (v + y[i, k // 2]) / 2
            m[i] = v
    return m


def numpy_percentile(a, q):
    assert 0.0 <= q <= 1.0, "Percentiles must be in the range [0, 100]"  # q / 100 here
    return numpy_quantile(a, q)


def numpy_quantile(a, q):
    assert 0.0 <= q <= 1.0, "Quantiles must be in the range [0, 1]"
    y = numpy_sort(a)
    n = y.shape[0]
    at = (n - 1) * q  # NumPy's 'linear' method: the virtual index, its floor and the weight
    lo = int(np.floor(at))
    hi = lo + 1
    if at >= n - 1:
        lo = -1
        hi = -1
    g = at - lo  # NumPy's weight: weak for a Python number q (float32 data stays float32), else float64
    va = y[n - 1]
    if lo >= 0:
        va = y[lo]
    vb = y[n - 1]
    if hi >= 0:
        vb = y[hi]
    d = vb - va
    r = va + d * g
    if g >= 0.5:
        r = vb - d * (1 - g)
    if np.isnan(y[n - 1]):  # NaN sorts last: NumPy's quantile is then NaN
        r = y[n - 1] + d * g
    return r


def numpy_quantile_rows(a, q):
    assert 0.0 <= q <= 1.0, "Quantiles must be in the range [0, 1]"
    y = numpy_sort_rows(a)
    n = y.shape[1]
    at = (n - 1) * q
    lo = int(np.floor(at))
    hi = lo + 1
    if at >= n - 1:
        lo = -1
        hi = -1
    g = at - lo  # NumPy's weight: weak for a Python number q, else float64
    out = y[:, 0] + g  # the dtype of NumPy's lerp (the values are overwritten below)
    for i in range(y.shape[0]):
        va = y[i, n - 1]
        if lo >= 0:
            va = y[i, lo]
        vb = y[i, n - 1]
        if hi >= 0:
            vb = y[i, hi]
        d = vb - va
        r = va + d * g
        if g >= 0.5:
            r = vb - d * (1 - g)
        if np.isnan(y[i, n - 1]):
            r = y[i, n - 1] + d * g
        out[i] = r
    return out


def numpy_percentile_rows(a, q):
    assert 0.0 <= q <= 1.0, "Percentiles must be in the range [0, 100]"  # q / 100 here
    return numpy_quantile_rows(a, q)


def numpy_corrcoef(m):
    c = np.cov(m)
    stddev = np.sqrt(np.diag(c))
    c = c / stddev[:, None]  # NumPy divides in place, rows then columns
    c = c / stddev[None, :]
    return np.clip(c, -1, 1)


def numpy_isin(x, t, invert):
    out = np.empty(x.shape[0], dtype=np.bool_)
    for i in range(x.shape[0]):
        found = False
        for j in range(t.shape[0]):
            if x[i] == t[j]:
                found = True
        out[i] = found != invert
    return out


def numpy_ufunc_at(a, indices, b, op):
    assert b.shape[0] == indices.shape[0], "operands could not be broadcast together (ufunc.at)"
    for k in range(indices.shape[0]):  # unbuffered, in index order: a repeated index applies each time
        i = indices[k]
        if op == 0:
            a[i] += b[k]
        elif op == 1:
            a[i] -= b[k]
        elif op == 2:
            a[i] *= b[k]
        elif op == 3:
            a[i] = np.maximum(a[i], b[k])
        else:
            a[i] = np.minimum(a[i], b[k])


def numpy_ufunc_reduceat(a, indices, op, dtype):
    out = np.empty(indices.shape[0], dtype=dtype)
    for i in range(indices.shape[0]):  # segment i: a[indices[i]:indices[i + 1]], to the end for the last
        lo = indices[i]
        if lo < 0 or lo >= a.shape[0]:  # (NumPy counts no index from the end here)
            raise IndexError("index out-of-bounds in reduceat")
        hi = indices[i + 1] if i + 1 < indices.shape[0] else a.shape[0]
        acc = dtype(a[lo])  # (an empty segment, hi <= lo, is a[lo] itself, as NumPy's)
        for j in range(lo + 1, hi):
            if op == 0:
                acc = acc + dtype(a[j])
            elif op == 1:
                acc = acc * dtype(a[j])
            elif op == 2:
                acc = np.maximum(acc, a[j])
            else:
                acc = np.minimum(acc, a[j])
        out[i] = acc
    return out


def numpy_ufunc_at_each(a, indices, b, op):
    for k in range(indices.shape[0]):  # b (a scalar, or a row broadcast) applied at each index
        i = indices[k]
        if op == 0:
            a[i] += b
        elif op == 1:
            a[i] -= b
        elif op == 2:
            a[i] *= b
        elif op == 3:
            a[i] = np.maximum(a[i], b)
        else:
            a[i] = np.minimum(a[i], b)


def numpy_ufunc_at_pairs(a, rows, cols, b, op):
    assert rows.shape[0] == cols.shape[0], "shape mismatch: indexing arrays could not be broadcast together"
    assert b.shape[0] == rows.shape[0], "operands could not be broadcast together (ufunc.at)"
    for k in range(rows.shape[0]):  # a[rows[k], cols[k]] op= b[k], unbuffered, in index order
        i = rows[k]
        j = cols[k]
        if op == 0:
            a[i, j] += b[k]
        elif op == 1:
            a[i, j] -= b[k]
        elif op == 2:
            a[i, j] *= b[k]
        elif op == 3:
            a[i, j] = np.maximum(a[i, j], b[k])
        else:
            a[i, j] = np.minimum(a[i, j], b[k])


def numpy_ufunc_at_pairs_each(a, rows, cols, b, op):
    assert rows.shape[0] == cols.shape[0], "shape mismatch: indexing arrays could not be broadcast together"
    for k in range(rows.shape[0]):  # a[rows[k], cols[k]] op= b (a scalar) at each pair
        i = rows[k]
        j = cols[k]
        if op == 0:
            a[i, j] += b
        elif op == 1:
            a[i, j] -= b
        elif op == 2:
            a[i, j] *= b
        elif op == 3:
            a[i, j] = np.maximum(a[i, j], b)
        else:
            a[i, j] = np.minimum(a[i, j], b)


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
#: builtin name -> its helper for one 1-d array argument (max(x): Python's loop, ``>``, NaN kept only first)
ONE_ARRAY_HELPERS: dict[str, Callable] = {"max": builtin_max, "min": builtin_min}
#: numpy function name -> (its helper for a scalar, for a 1-d array)
NUMPY_HELPERS: dict[str, tuple[Callable | None, Callable]] = {
    "interp": (numpy_interp_value, numpy_interp), "searchsorted": (numpy_searchsorted_value, numpy_searchsorted),
    "polyval": (numpy_polyval_value, numpy_polyval), "sort": (None, numpy_sort), "median": (None, numpy_median),
    "nanmedian": (None, numpy_nanmedian),
    "digitize": (numpy_digitize_value, numpy_digitize),
    "argsort": (None, numpy_argsort), "quantile": (None, numpy_quantile), "percentile": (None, numpy_percentile),
    "isin": (None, numpy_isin), "corrcoef": (None, numpy_corrcoef), "ufunc.at": (numpy_ufunc_at_each, numpy_ufunc_at),
    "ufunc.at_pairs": (numpy_ufunc_at_pairs_each, numpy_ufunc_at_pairs), "ufunc.reduceat": (None, numpy_ufunc_reduceat)}
#: numpy function name -> its helper along the last axis of a 2-d array (axis=0: of the transpose)
NUMPY_ROW_HELPERS: dict[str, Callable] = {"sort": numpy_sort_rows, "argsort": numpy_argsort_rows,
                                          "median": numpy_median_rows, "nanmedian": numpy_nanmedian_rows,
                                          "quantile": numpy_quantile_rows,
                                          "percentile": numpy_percentile_rows}
#: math function name -> its helper
MATH_HELPERS: dict[str, Callable] = {"isclose": math_isclose}

UFUNC_AT = ("np.add.at(a, indices, b) (subtract, multiply, maximum, minimum too) of a 1-d or 2-d array a, a 1-d "
            "integer array indices (an argument, or a local whose rank polyfuse tells: lab = np.argmin(D, axis=1)) "
            "and b a scalar or an array of a's rank; of a 2-d a, indices may be a "
            "tuple (rows, cols) of two 1-d integer arrays and b a scalar or a 1-d array, one value per pair")
UFUNC_REDUCEAT = ("np.add.reduceat(a, indices) (multiply, maximum, minimum too) of a 1-d real or bool array argument "
                  "a and a 1-d integer array argument indices: segment i is a[indices[i]:indices[i + 1]] reduced in "
                  "NumPy's dtype, a[indices[i]] where that is empty")
_TABLES = "xp and fp 1-d arrays of real numbers named by an argument, a local or a one-slice slice of one"
#: helper -> (the call as the user spells it, what polyfuse supports of it): an error inside an
#: inlined helper names the user's call and this (frontend/rewrite.py: Helper, polyfuse/errors.py)
SUPPORTED: dict[str, tuple[str, str]] = {
    "builtin_sum": ("sum()", "sum(x, start) of a 1-d array or a generator of numbers, or of an array argument of "
                    "two or more axes (its rows added)"),
    "builtin_sum_rows": ("sum()", "sum(A, start) of an array of two or more axes adds its rows"),
    "builtin_max": ("max()", "max(x) of one 1-d array named by an argument or local (Python's loop), max(a, b, ...) of numbers"),
    "builtin_min": ("min()", "min(x) of one 1-d array named by an argument or local (Python's loop), min(a, b, ...) of numbers"),
    "math_isclose": ("math.isclose()", "math.isclose(a, b, rel_tol=, abs_tol=) of real scalars"),
    "numpy_interp_value": ("np.interp()", f"np.interp(x, xp, fp, left=, right=) of a scalar or 1-d x, {_TABLES}"),
    "numpy_interp": ("np.interp()", f"np.interp(x, xp, fp, left=, right=) of a scalar or 1-d x, {_TABLES}"),
    "numpy_searchsorted_value": ("np.searchsorted()", "np.searchsorted(a, v, side=) of a scalar or 1-d v and a 1-d "
                                 "array a of real numbers"),
    "numpy_searchsorted": ("np.searchsorted()", "np.searchsorted(a, v, side=) of a scalar or 1-d v and a 1-d array "
                           "a of real numbers"),
    **dict.fromkeys(("numpy_digitize", "numpy_digitize_value", "numpy_digitize_at", "numpy_digitize_direction"), (
        "np.digitize()", "np.digitize(x, bins, right=) of a scalar or 1-d x and a 1-d array bins of real numbers")),
    "numpy_polyval": ("np.polyval()", "np.polyval(p, x) of 1-d arrays p (not empty) and x of real numbers"),
    "numpy_polyval_value": ("np.polyval()", "np.polyval(p, x) of a 1-d array p (not empty) and a scalar x"),
    "numpy_sort": ("np.sort()", "np.sort(a) of a 1-d array of real numbers"),
    "numpy_median": ("np.median()", "np.median(a) of a 1-d array of real numbers (not empty)"),
    "numpy_sort_rows": ("np.sort()", "np.sort(a, axis=) of a 1-d or 2-d array of real numbers"),
    "numpy_argsort": ("np.argsort()", "np.argsort(a, axis=, kind=) of a 1-d or 2-d array of real numbers"),
    "numpy_argsort_prefix": ("np.argsort()", "np.argsort(a, kind=) (and its [::-1]) of an array of np.unique's length, "
                             "bound to a name"),
    "numpy_argsort_rows": ("np.argsort()", "np.argsort(a, axis=, kind=) of a 1-d or 2-d array of real numbers"),
    "numpy_median_rows": ("np.median()", "np.median(a, axis=) of a 1-d or 2-d array of real numbers (not empty)"),
    "numpy_quantile": ("np.quantile()", "np.quantile(a, q) / np.percentile(a, q) of an array of real numbers "
                       "(not empty) and a float q"),
    "numpy_percentile": ("np.percentile()", "np.quantile(a, q) / np.percentile(a, q) of an array of real "
                         "numbers (not empty) and a float q"),
    "numpy_ufunc_reduceat": ("np.add.reduceat()", UFUNC_REDUCEAT),
    "numpy_ufunc_at": ("np.add.at()", UFUNC_AT),
    "numpy_ufunc_at_each": ("np.add.at()", UFUNC_AT),
    "numpy_ufunc_at_pairs": ("np.add.at()", UFUNC_AT),
    "numpy_ufunc_at_pairs_each": ("np.add.at()", UFUNC_AT),
    "numpy_quantile_rows": ("np.quantile()", "np.quantile(a, q, axis=) / np.percentile(a, q, axis=) of an array "
                            "of real numbers (not empty), axis=None or of a 2-d array, and a float q"),
    "numpy_percentile_rows": ("np.percentile()", "np.quantile(a, q, axis=) / np.percentile(a, q, axis=) of an "
                              "array of real numbers (not empty), axis=None or of a 2-d array, and a float q"),
    "numpy_corrcoef": ("np.corrcoef()", "np.corrcoef(m) of a 2-d real array, np.corrcoef(x, y) of two 1-d ones "
                       "(rowvar=True)"),
    "numpy_isin": ("np.isin()", "np.isin(x, test, invert=) of arrays of real numbers"),
}
