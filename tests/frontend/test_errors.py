"""Unsupported constructs raise UnsupportedError pointing at the user's source; bad calls raise
ArgumentError.  Expected locations are computed from this file's own source with ``inspect``."""

from __future__ import annotations

import inspect
import math
import re
import traceback

import numpy as np
import pytest

import polyfuse
from polyfuse import ArgumentError, PolyfuseError, UnsupportedError
from polyfuse.model.names import in_user_names, user_name

# Every kernel below marks its offending line with "# ERR"; SNIPPETS says where on that line the
# error must point (the caret column is the first character of the snippet).


def k_try(n, A):
    i = 0
    try:  # ERR
        A[i] = 1.0
    except IndexError:
        A[0] = 2.0


def k_float_bound(n, A):
    for i in range(n):
        for j in range(A[i]):  # ERR
            A[j] = 1.0


def k_list(n, A):
    xs = [1.0, 2.0]  # a list local is written out at its use (frontend/tuples.py)
    for i in range(n):
        A[i] = xs  # ERR


def k_tuple_unpack(n, A):
    for i in range(n):
        a, b = math.frexp(A[i])  # ERR: not a tuple display (divmod is one)
        A[i] = a + b


def k_slice(n, A, B):
    for i in range(n):
        B[i - 1:] = A[i - 1:]  # ERR


def k_attribute(n, A):
    for i in range(n):
        A[i] = A.itemsize  # ERR


def k_unknown_call(n, A):
    for i in range(n):
        A[i] = helper(A[i])  # ERR


helper = hash  # not a Python function, so it is not inlined (plain helpers are: test_rewrites)


def k_nonaffine(n, A):
    for i in range(n):
        for j in range(n):
            A[i / 2] = 1.0  # ERR


def k_data_if(n, A):
    for i in range(n):
        if A[i] > 0:
            t = A[i]
        A[i] = t if A[i] > -1.0 else 0.0  # ERR: a read Python may skip (no run-time check)


def k_return_in_loop(n, A):
    for i in range(n):
        A[i] = 1.0
        return A  # ERR
    return A * 2.0  # another array (one name returned everywhere is supported)


def k_lambda(n, A):
    for i in range(n):
        f = lambda x: x + i  # ERR  # noqa: E731, B023  (in a loop: not inlined)
        A[i] = f(1.0)


def k_fstring(n, A):
    for i in range(n):
        A[i] = f"{i}"  # ERR


def k_string(n, A):
    for i in range(n):
        A[i] = "one"  # ERR


def k_read_before_assign(n, A):
    for i in range(n):
        A[i] = t  # ERR
        t = 1.0


def k_maybe_unassigned(n, A):
    for i in range(n):
        if i > 2:
            t = 1.0
        A[i] = 0.0 if A[i] > 5.0 else t  # ERR


def k_nested_function(n, A):
    t = 0.0

    def inner(x):  # ERR (nonlocal: not inlined)
        nonlocal t
        t += x
    for i in range(n):
        A[i] = 1.0


def k_import_other(n, A):
    import os  # ERR: only numpy, math and cmath
    A[0] = float(len(os.sep))


def k_import_after_use(n, A):
    A[0] = math.sqrt(2.0)  # noqa: F823
    import math  # noqa: F401  # ERR: Python raises UnboundLocalError at the first line


def k_bare_call(n, A):
    for i in range(n):
        print(i)  # ERR


def k_default_none(n, A, out=None):
    for i in range(n):
        out[i] = A[i]  # ERR: out is None here


def k_default_list(n, A, mask=[1, 0, 1]):  # noqa: B006  # ERR: numpy-benchmarks' check_mask
    for i in range(n):
        A[i] = 1.0


def k_augassign_matmul(n, A):
    for i in range(n):
        A[i] @= 2.0  # ERR


def k_whole_array(n, A, B):
    for i in range(n):
        B[i] = A  # ERR


def k_partial_index(n, A, B):
    for i in range(n):
        B[i] = A[i]  # ERR


def k_none_local(n, A):
    last = None  # ERR
    for i in range(n):
        if A[i] > 0:
            last = i
    return last + 1  # None + 1 where no A[i] > 0: a TypeError in Python


def k_scalar_or_array(n, A):
    if n > 2:
        r = A.sum()
    else:
        r = A * 2.0  # ERR
    return r


def k_counted_allocation(n, A):
    k = 0
    i = 0
    while A[i] > 0:  # no trip count from the sizes (a counted one compiles: test_count_then_allocate)
        k += 1
        i += 1
    out = np.empty(k)  # ERR
    return out


def k_branch_allocation(n, A):
    s = 0.0
    if A[1] > 0:  # a test of the data: the allocation is hoisted to the top of the body
        m = int(A[0])
        out = np.zeros(m)  # ERR
        s = out.sum()
    return s


def k_generator(n, A):
    for i in range(n):
        yield A[i]  # ERR


def k_class(n, A):
    class Point:  # ERR
        pass
    A[0] = 1.0


def k_dict(n, A):
    d = {}  # ERR
    for i in range(n):
        d[i] = A[i]


def k_set(n, A):
    s = set()  # ERR
    for i in range(n):
        s.add(i)


def k_recursion(n, A):
    if n > 0:
        k_recursion(n - 1, A)  # ERR
    A[n] = 1.0


def k_string_method(n, A):
    t = "abc".upper()  # ERR
    A[0] = len(t)


COUNT = 0


def k_global(n, A):
    global COUNT  # ERR
    COUNT += 1


def k_with(n, A):
    with open("data") as f:  # ERR
        A[0] = float(f.read())


def k_raise(n, A):
    for i in range(n):
        if A[i] < 0:
            raise KeyError("negative")  # ERR


def k_keyword_call(n, A):
    for i in range(n):
        A[i] = round(A[i], ndigits=2)  # ERR


def k_string_argument(n, A):
    for i in range(n):  # ERR: n is the string '4' in this call
        A[i] = 1.0


# renamed locals (frontend/branch_locals.py: a scratch local of an if gets a fresh name in each
# branch; frontend/local_versions.py: a local of two types becomes one version per type): the
# message names the user's local, never ``v_2`` or ``__version0_q``
def k_branch_local_subscript(x, out):
    for i in range(x.shape[0]):
        if x[i] > 0:
            v = x[i]
            out[v] = 1.0  # ERR
        v = 1.0
        out[i] += v


def k_branch_local_attribute(x, out):
    for i in range(x.shape[0]):
        if x[i] > 0:
            v = x[i]
            out[i] = v.itemsize  # ERR
        v = 1.0
        out[i] += v


def k_split_local_unassigned(x, out):
    r = 0
    if x[0] > 0:
        r = x[0]
    else:
        r = 1.5
    for i in range(x.shape[0]):
        if i > 2:
            q = r
    return q if x[0] > -5.0 else 0.0  # ERR


def k_rebound_argument(x, out):
    x = x * 2.0
    for i in range(x.shape[0]):
        out[i] = x.itemsize  # ERR


# helpers (frontend/rewrite.py inlines them, their locals renamed helper_v): the message names the
# helper and its local as the user wrote them, at the helper's line
def float_index(a):
    v = a[0]
    return a[v]  # ERR


def k_helper_local(x):
    return float_index(x)


def sized_buffer(a, m):
    buf = np.zeros(m)  # ERR: m, the parameter, holds int(x[0]) (a local of the inlined helper)
    return buf.sum() + a[0]


def k_helper_parameter(x):
    return sized_buffer(x, int(x[0]))


def negative_buffer(a):
    buf = np.zeros(-2)  # ERR
    return buf.sum() + a[0]


def k_helper_negative_constant(x):
    return negative_buffer(x)


# mistakes a numba/NumPy user makes (msg52): each refused at its line, in the user's words
def k_walrus(n, A):
    for i in range(n):
        if (t := A[i]) > 0:  # ERR
            A[i] = t


def k_match(n, A):
    match n:  # ERR
        case 1:
            A[0] = 1.0


def k_del(n, A):
    t = 1.0
    del t  # ERR
    A[0] = 2.0


def k_dict_comprehension(n, A):
    d = {i: A[i] for i in range(n)}  # ERR
    A[0] = d[0]


def k_set_comprehension(n, A):
    s = {i for i in range(n)}  # ERR
    A[0] = len(s)


def k_random(n, A):
    for i in range(n):
        A[i] = np.random.rand()  # ERR


def k_fft(n, A):
    return np.fft.fft(A)  # ERR


def k_eig(n, A):
    return np.linalg.eig(A)  # ERR


def k_isinstance(n, A):
    if isinstance(n, int):  # ERR
        A[0] = 1.0


def k_append(n, A):
    A.append(1.0)  # ERR: an AttributeError in Python


def k_tolist(n, A):
    return A.tolist()  # ERR


def k_zero_step(n, A):
    for i in range(0, n, 0):  # ERR: a ValueError in Python
        A[i] = 1.0


TABLE = np.arange(8.0)


def k_global_array_write(n, A):
    for i in range(n):
        TABLE[i] = A[i]  # ERR


def k_kwargs(n, A, **options):  # ERR
    A[0] = 1.0


async def k_async(n, A):  # ERR
    A[0] = 1.0


def k_yield_from(n, A):
    yield from range(n)  # ERR


def k_try_finally(n, A):
    try:  # ERR
        A[0] = 1.0
    finally:
        A[1] = 2.0


def k_sorted(n, A):
    xs = sorted([3, 1, 2])  # ERR
    A[0] = xs[0]


def k_input(n, A):
    A[0] = float(input())  # ERR


def k_assert_fstring(n, A):
    assert n > 0, f"bad {n}"  # ERR
    A[0] = 1.0


def k_complex_into_float(n, A, Z):
    for i in range(n):
        A[i] = Z[i]  # ERR


class Scaler:
    def __init__(self) -> None:
        self.s = 2.0

    def fill(self, n, A):  # ERR
        for i in range(n):
            A[i] = self.s


# name -> (kernel, snippet at the caret, words the message must contain, args); a kernel whose
# error is in a helper is a pair (kernel, the helper whose line is marked)
V = np.zeros(8)
M = np.zeros((8, 8))
CASES = {
    "try": (k_try, "try:", ["try statement"], (4, V)),
    "float range bound": (k_float_bound, "A[i]", ["range() bound", "float64"], (4, V)),
    "list": (k_list, "xs", ["list"], (4, V)),
    "tuple unpack": (k_tuple_unpack, "a, b", ["tuple"], (4, V)),
    "slice": (k_slice, "i - 1:]", ["slice bound", "may be negative"], (4, V, V.copy())),
    "attribute": (k_attribute, "A.itemsize", ["attribute", "A.itemsize"], (4, V)),
    "unknown function": (k_unknown_call, "helper(A[i])", ["helper"], (4, V)),
    "float subscript": (k_nonaffine, "i / 2", ["i / 2", "only integers"], (2, V)),
    "local set only in a data-dependent if": (k_data_if, "A[i] = t if", ["'t'", "at line", "before that if"], (4, V)),
    "return in loop": (k_return_in_loop, "return A", ["return of an array from inside a loop"], (4, V)),
    "lambda": (k_lambda, "lambda x: x + i", ["lambda"], (4, V)),
    "f-string": (k_fstring, 'f"{i}"', ["f-string"], (4, V)),
    "string literal": (k_string, '"one"', ["str"], (4, V)),
    "read before assignment": (k_read_before_assign, "t", ["'t'"], (4, V)),
    "maybe unassigned": (k_maybe_unassigned, "A[i] = 0.0 if", ["'t'", "assigned"], (4, V)),
    "nested function": (k_nested_function, "def inner", ["nested function"], (4, V)),
    "bare call": (k_bare_call, "print(i)", ["print()", "writes no output"], (4, V)),
    "import other module": (k_import_other, "import os", ["numpy, math and cmath"], (4, V)),
    "import after use": (k_import_after_use, "import math", ["before the names are used"], (4, V)),
    "default None": (k_default_none, "out", ["parameter 'out' is None here", "if out is None"], (4, V)),
    "default list": (k_default_list, "[1, 0, 1]", ["pass 'mask'", "pass a NumPy array"], (4, V)),
    "augassign @=": (k_augassign_matmul, "A[i] @= 2.0", ["MatMult="], (4, V)),
    "whole array": (k_whole_array, "A", ["'A'"], (4, V, V.copy())),
    "partial index": (k_partial_index, "A[i]", ["rank"], (4, M, V)),
    "None local": (k_none_local, "last = None", ["'last' set to None", "may still be None", "separate flag"], (4, V)),
    "scalar or array": (k_scalar_or_array, "r = A * 2.0", ["'r' is a scalar local (line", "its own name"], (4, V)),
    "counted allocation": (k_counted_allocation, "np.empty(k)", ["np.empty of 'k'", "no trip count from the sizes"], (4, V)),
    "allocation in a data branch": (k_branch_allocation, "out = np.zeros(m)", ["extent 'm'", "not affine"], (4, V)),
    "generator": (k_generator, "yield A[i]", ["yield", "generator function", "fill an array"], (4, V)),
    "class": (k_class, "class Point", ["class definition"], (4, V)),
    "dict": (k_dict, "{}", ["dict"], (4, V)),
    "set": (k_set, "set()", ["set"], (4, V)),
    "recursion": (k_recursion, "k_recursion(n - 1, A)", ["recursive call"], (4, V)),
    "string method": (k_string_method, '"abc".upper()', ["upper"], (4, V)),
    "global statement": (k_global, "global COUNT", ["global statement"], (4, V)),
    "with": (k_with, "with open", ["with statement"], (4, V)),
    "raise": (k_raise, "raise KeyError", ["raise statement"], (4, V)),
    "keyword arguments": (k_keyword_call, "round(A[i], ndigits=2)", ["keyword arguments"], (4, V)),
    "string argument": (k_string_argument, "n):", ["parameter 'n' is the str '4'"], ("4", V)),
    "renamed branch local (subscript)": (k_branch_local_subscript, "v]", ["subscript 'v' is a float64"], (V, V)),
    "renamed branch local (attribute)": (k_branch_local_attribute, "v.itemsize", ["attribute v.itemsize"], (V, V)),
    "split local": (k_split_local_unassigned, "return q if", ["local 'q' may be read before"], (V, V)),
    "rebound argument": (k_rebound_argument, "x.itemsize", ["attribute x.itemsize"], (V, V)),
    "helper local": ((k_helper_local, float_index), "v]", ["subscript 'v' is a float64", ", in float_index\n"], (V,)),
    "helper parameter": ((k_helper_parameter, sized_buffer), "m)", ["np.zeros of extent 'm'", ", in sized_buffer\n"],
                         (V,)),
    "negative extent in a helper": ((k_helper_negative_constant, negative_buffer), "buf = np.zeros(-2)",
                                    ["local array 'buf' has the negative extent -2", ", in negative_buffer\n",
                                     "negative dimensions are not allowed"], (V,)),
    "walrus": (k_walrus, "t := A[i]", ["assignment expression"], (4, V)),
    "match": (k_match, "match n:", ["Match"], (1, V)),
    "del": (k_del, "del t", ["del statement"], (4, V)),
    "dict comprehension": (k_dict_comprehension, "{i: A[i]", ["dict comprehension"], (2, V)),
    "set comprehension": (k_set_comprehension, "{i for", ["set comprehension"], (2, V)),
    "random numbers": (k_random, "np.random.rand()", ["random numbers drawn inside the kernel"], (2, V)),
    "np.fft": (k_fft, "np.fft.fft(A)", ["np.fft.fft() of an array is not supported"], (2, V)),
    "np.linalg.eig": (k_eig, "np.linalg.eig(A)", ["np.linalg.eig() is not supported"], (2, M)),
    "isinstance": (k_isinstance, "isinstance(n, int)", ["call to isinstance"], (2, V)),
    "ndarray.append": (k_append, "A.append(1.0)", ["expression statement"], (2, V)),
    "tolist": (k_tolist, "A.tolist()", ["A.tolist"], (2, V)),
    "range step 0": (k_zero_step, "range(0, n, 0)", ["range() step must be a non-zero integer"], (2, V)),
    "global array write": (k_global_array_write, "TABLE[i]", ["'TABLE' is a global NumPy array", "pass the array"],
                           (2, V)),
    "**kwargs": (k_kwargs, "def k_kwargs", ["**kwargs", "plain positional"], (2, V)),
    "async def": (k_async, "async def", ["async def", "coroutine"], (2, V)),
    "yield from": (k_yield_from, "yield from", ["generator function"], (2, V)),
    "try/finally": (k_try_finally, "try:", ["try statement"], (2, V)),
    "sorted": (k_sorted, "sorted([3, 1, 2])", ["call to sorted"], (2, V)),
    "input": (k_input, "input()", ["call to input"], (2, V)),
    "assert f-string": (k_assert_fstring, 'f"bad {n}"', ["assert with a message other than a string literal"], (1, V)),
    "complex into float": (k_complex_into_float, "A[i] = Z[i]", ["storing a complex value into 'A'"],
                           (2, V, np.ones(4, complex))),
    "method": (Scaler().fill, "def fill", ["a method bound to an object of class Scaler", "would read self"], (2, V)),
}

#: names the frontend makes (polyfuse.model.names), which no message may show
INTERNAL_NAME = re.compile(r"__(version|kind|strong|next|return)|\b_?pf_\w|_polyfuse_|\b[A-Za-z]\w*_\d+\b")


def expected_location(fn, snippet: str) -> tuple[str, int, int, str]:
    fn = fn[1] if isinstance(fn, tuple) else fn  # (the helper whose line is marked)
    lines, first = inspect.getsourcelines(fn)
    marked = [i for i, line in enumerate(lines) if "# ERR" in line]
    assert len(marked) == 1, fn.__name__
    line = lines[marked[0]].rstrip("\n")
    col = line.split("# ERR")[0].index(snippet) + 1
    return inspect.getsourcefile(fn), first + marked[0], col, line.rstrip()


@pytest.mark.parametrize("case", list(CASES))
def test_unsupported_construct_location(case):
    fn, snippet, words, args = CASES[case]
    filename, line, col, code = expected_location(fn, snippet)
    k = polyfuse.kernel(fn[0] if isinstance(fn, tuple) else fn, target="python", verify=True)
    with pytest.raises(UnsupportedError) as info:
        k(*args)
    exc = info.value
    assert isinstance(exc, PolyfuseError) and isinstance(exc, NotImplementedError)
    message = str(exc)
    assert message.startswith(f"{filename}:{line}:{col}: "), (message, line, col)
    assert exc.span is not None
    assert (exc.span.filename, exc.span.line, exc.span.col + 1) == (filename, line, col)
    assert exc.span.text.rstrip() == code.rstrip()
    # the message shows the offending source line and carets under the construct
    assert code.strip() in message
    caret_lines = [ln for ln in message.splitlines() if ln.strip() and set(ln.strip()) == {"^"}]
    assert len(caret_lines) == 1, message
    caret_col = len(caret_lines[0]) - len(caret_lines[0].lstrip())
    lines = message.splitlines()
    shown = lines[lines.index(caret_lines[0]) - 1]
    assert shown.strip() == code.strip()
    # caret sits under the first character of the snippet within the shown line
    assert shown[caret_col:].startswith(snippet), (shown, caret_col, snippet)
    for word in words:
        assert word in message, (word, message)
    # no polyfuse-internal paths or frames leak into the message
    scrubbed = message.replace(filename, "<user file>")
    for internal in ("polyfuse/", "frontend/", "backends/", "Traceback", "site-packages"):
        assert internal not in scrubbed, message
    # ... nor names the frontend made (v_2 for v, __version0_q, __strong_s), in the message or construct
    assert not INTERNAL_NAME.search(exc.reason + exc.construct), (exc.reason, exc.construct)
    # the traceback is the call's and Kernel.__call__'s: no frontend, islpy or llvmlite frame
    frames = [f.filename for f in traceback.extract_tb(exc.__traceback__)]
    assert all(f == __file__ or f.endswith("polyfuse/kernel.py") for f in frames), frames


@pytest.mark.parametrize("case", ["try", "lambda", "nested function", "float range bound"])
def test_unsupported_construct_is_named(case):
    fn, _, _, args = CASES[case]
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(fn, target="python")(*args)
    assert info.value.construct
    assert info.value.construct in str(info.value)


def test_errors_are_raised_at_call_not_decoration():
    k = polyfuse.kernel(k_try, target="python")  # decorating never compiles
    with pytest.raises(UnsupportedError):
        k(4, V)
    with pytest.raises(UnsupportedError):  # and it is not silently cached as a success
        k(4, V)


def test_lambda_kernel_is_rejected():
    with pytest.raises(UnsupportedError):
        polyfuse.kernel(lambda n, A: None, target="python")(3, np.zeros(3))


def test_kernel_without_source_is_rejected():
    ns = {}
    exec("def f(n, A):\n    pass\n", ns)  # noqa: S102 - no linecache entry: no source
    with pytest.raises(UnsupportedError):
        polyfuse.kernel(ns["f"], target="python")(3, np.zeros(3))


# ---------------------------------------------------------------------------------------------
# bad calls


def scale(n, A, B):
    for i in range(n):
        B[i] = 2.0 * A[i]


@pytest.fixture
def k_scale():
    return polyfuse.kernel(scale, target="python", verify=True)


@pytest.mark.parametrize("dtype", [np.float16, np.longdouble, object])
def test_wrong_dtype(k_scale, dtype):
    A = np.zeros(4, dtype=dtype)
    with pytest.raises(ArgumentError, match="dtype"):
        k_scale(4, A, np.zeros(4))


def test_zero_d_array(k_scale):
    # 0-d array arguments are taken (fe38: c[()] is their element), as a range() bound too (fe39:
    # Python takes range(np.array(4)) through __index__); an indexed vector they are not
    A, B, expected = np.arange(4.0), np.zeros(4), np.zeros(4)
    k_scale(np.array(3), A, B)
    scale(np.array(3), A, expected)
    np.testing.assert_array_equal(B, expected)
    with pytest.raises(UnsupportedError, match="rank 0"):
        k_scale(4, np.array(1.0), np.zeros(4))


@pytest.mark.parametrize("value", [True, False])
def test_bool_scalar_is_a_number_as_in_python(k_scale, value):
    A, B, expected = np.arange(1.0, 5.0), np.zeros(4), np.zeros(4)
    k_scale(value, A, B)
    scale(value, A, expected)  # range(True) is range(1)
    np.testing.assert_array_equal(B, expected)


def test_numpy_bool_loop_bound_is_refused_as_python_refuses_it(k_scale):
    with pytest.raises(TypeError):
        scale(np.True_, np.zeros(4), np.zeros(4))
    with pytest.raises(UnsupportedError, match="range\\(\\) bound 'n' is a numpy bool"):
        k_scale(np.True_, np.zeros(4), np.zeros(4))


@pytest.mark.parametrize("value", [[1.0, 2.0], (1, "2"), (), object()])
def test_non_numeric_argument(k_scale, value):
    with pytest.raises(ArgumentError):
        k_scale(value, np.zeros(4), np.zeros(4))


@pytest.mark.parametrize("value", [(1, 2), "4", None])
def test_tuple_string_or_none_as_loop_bound_is_refused_where_read(k_scale, value):
    """A tuple of numbers is an argument (frontend/tuple_args.py), a string or None a constant of
    the compiled kernel (frontend/function_args.py); range() of one is refused at its use, as
    Python raises a TypeError there."""
    with pytest.raises(UnsupportedError, match=r"test_errors.py:\d+"):
        k_scale(value, np.zeros(4), np.zeros(4))


def test_array_too_small(k_scale):
    with pytest.raises(ArgumentError, match="out-of-bounds"):
        k_scale(5, np.zeros(4), np.zeros(8))
    with pytest.raises(ArgumentError, match="out-of-bounds"):
        k_scale(5, np.zeros(8), np.zeros(4))
    B = np.zeros(4)
    k_scale(4, np.ones(4), B)  # exactly fitting is fine
    assert (B == 2.0).all()
    k_scale(0, np.zeros(0), np.zeros(0))  # empty iteration space is fine


def test_out_of_bounds_below_zero():
    def shift(n, A, B):
        for i in range(n):
            if i < 5:  # (unguarded, A[-1] at i = 0 reads Python's last element: frontend/negative_wrap)
                B[i] = A[i - 1]

    with pytest.raises(ArgumentError, match="out-of-bounds"):
        polyfuse.kernel(shift, target="python")(3, np.zeros(8), np.zeros(8))


def test_out_of_bounds_leaves_arrays_untouched(k_scale):
    B = np.full(4, 7.0)
    with pytest.raises(ArgumentError):
        k_scale(6, np.zeros(8), B)
    assert (B == 7.0).all()


def test_overlapping_arrays(k_scale):
    A = np.arange(8.0)
    with pytest.raises(ArgumentError, match="overlap"):
        k_scale(4, A, A)
    with pytest.raises(ArgumentError, match="overlap"):
        k_scale(4, A[:6], A[2:])
    with pytest.raises(ArgumentError, match="overlap"):
        k_scale(4, A, A[::2])
    # views that do not share memory are fine, even of the same base
    k_scale(4, A[:4], A[4:])
    assert np.array_equal(A, [0, 1, 2, 3, 0, 2, 4, 6])
    k_scale(4, A[0::2], A[1::2])


def test_overlap_of_read_only_arrays_is_allowed():
    def add(n, A, B, C):
        for i in range(n):
            C[i] = A[i] + B[i]

    A = np.arange(4.0)
    C = np.zeros(4)
    polyfuse.kernel(add, target="python")(4, A, A, C)
    assert np.array_equal(C, 2 * A)


def test_wrong_argument_count(k_scale):
    with pytest.raises(ArgumentError):
        k_scale(4, np.zeros(4))
    with pytest.raises(ArgumentError):
        k_scale(4, np.zeros(4), np.zeros(4), np.zeros(4))
    with pytest.raises(ArgumentError):
        k_scale(4, np.zeros(4), np.zeros(4), C=1)


def test_bad_options():
    with pytest.raises(ArgumentError):
        polyfuse.kernel(scale, target="gpu")
    with pytest.raises(ArgumentError):
        polyfuse.kernel(scale, fuse="always")


def test_inspect_llvm_needs_cpu_target(k_scale):
    with pytest.raises(ArgumentError, match="cpu"):
        k_scale.inspect_llvm(4, np.zeros(4), np.zeros(4))


_BUFFER = np.arange(8.0)
#: invalid calls of ``scale``: name -> (args, kwargs, error, words its message must contain)
BAD_CALLS = {
    "dtype": ((4, np.zeros(4, np.float16), np.zeros(4)), {}, ArgumentError, ["argument 'A' has dtype float16"]),
    "big-endian": ((4, np.zeros(4, ">f8"), np.zeros(4)), {}, ArgumentError, ["'A'", "astype"]),
    "list": ((4, [1.0, 2.0], np.zeros(4)), {}, ArgumentError, ["argument 'A' has type list"]),
    "too small": ((8, np.zeros(4), np.zeros(8)), {}, ArgumentError, ["A[0..7]", "axis 0 of A has extent 4"]),
    "overlap": ((4, _BUFFER[:4], _BUFFER[2:6]), {}, ArgumentError, ["'A' and 'B' overlap"]),
    "read-only": ((4, np.zeros(4), np.broadcast_to(np.zeros(1), (4,))), {}, ArgumentError, ["'B' is read-only"]),
    "None": ((4, None, np.zeros(4)), {}, UnsupportedError, ["parameter 'A' is None here"]),
    "unknown keyword": ((4, np.zeros(4)), {"C": np.zeros(4)}, ArgumentError,
                        ["scale(): got an unexpected keyword argument 'C'"]),
    "missing": ((4, np.zeros(4)), {}, ArgumentError, ["scale(): missing a required argument: 'B'"]),
    "too many": ((4, np.zeros(4), np.zeros(4), 1), {}, ArgumentError, ["scale(): too many positional"]),
    "object dtype": ((4, np.zeros(4, object), np.zeros(4)), {}, ArgumentError, ["argument 'A' has dtype object"]),
    "str dtype": ((4, np.zeros(4, "U3"), np.zeros(4)), {}, ArgumentError, ["argument 'A' has dtype <U3"]),
    "masked array": ((4, np.ma.masked_less(np.arange(4.0), 1.0), np.zeros(4)), {}, ArgumentError,
                     ["'A' is a masked array (np.ma) with masked elements", "A.filled"]),
    "np.matrix": ((4, np.matrix(np.zeros(4)), np.zeros(4)), {}, ArgumentError, ["'A' is an np.matrix"]),
    "2-d for 1-d": ((4, np.zeros((4, 4)), np.zeros(4)), {}, UnsupportedError, ["a whole-array value of rank 1"]),
    "same array twice": ((4, _BUFFER, _BUFFER), {}, ArgumentError, ["'A' and 'B' overlap"]),
    "float bound": ((4.5, np.zeros(4), np.zeros(4)), {}, UnsupportedError, ["range() bound 'n' is a float64"]),
    "int too large": ((2 ** 70, np.zeros(4), np.zeros(4)), {}, ArgumentError, ["'n'=1180591620717411303424 does not "
                                                                               "fit in int64"]),
    "string for an array": ((4, "abcd", np.zeros(4)), {}, UnsupportedError, ["subscript of 'abcd'"]),
    "keyword twice": ((4, np.zeros(4), np.zeros(4)), {"A": np.zeros(4)}, ArgumentError,
                      ["scale(): multiple values for argument 'A'"]),
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
def test_bad_call_names_the_argument(k_scale, case):
    """Each refusal of a call says which argument and why, without polyfuse's frames or names."""
    args, kwargs, error, words = BAD_CALLS[case]
    with pytest.raises(error) as info:
        k_scale(*args, **kwargs)
    message = str(info.value)
    for word in words:
        assert word in message, (word, message)
    assert not INTERNAL_NAME.search(message), message
    frames = [f.filename for f in traceback.extract_tb(info.value.__traceback__)]
    assert all(f == __file__ or f.endswith("polyfuse/kernel.py") for f in frames), frames  # the call and Kernel.__call__: no islpy, llvmlite or frontend frame


def counts_at(idx, k):
    h = np.bincount(idx)
    return h[k], h[idx[0] + 10]


def test_errors_name_the_users_array_not_the_lowerings():
    """A subscript outside a NumPy call's result (np.bincount's, a buffer the lowering made) names
    the user's array ``h``: refused per call where it is affine, NumPy's IndexError where run."""
    kernel = polyfuse.kernel(counts_at, target="python")
    with pytest.raises(ArgumentError) as refused:
        kernel(np.array([0, 1]), 10)
    assert "the kernel touches h[0..10] but axis 0 of h has extent 2" in str(refused.value)
    assert not INTERNAL_NAME.search(str(refused.value)), str(refused.value)
    with pytest.raises(IndexError) as numpy_error:
        counts_at(np.array([0, 1]), 1)
    with pytest.raises(IndexError) as error:
        kernel(np.array([0, 1]), 1)
    assert str(error.value) == str(numpy_error.value).replace(" with size", " of 'h' with size")


def gathers(x, i, j):
    u = np.unique(x)
    nz = np.flatnonzero(x)
    return u[i], nz[j]


def test_gathers_of_counted_arrays_check_the_count_as_numpy():
    """``u[idx]`` of an index array into np.unique's result (np.flatnonzero's): an index below
    the buffer's length but at least the count raises NumPy's IndexError with the count, never
    reads the buffer past it (the check per element: selection_loops._checked_gather)."""
    kernel, x = polyfuse.kernel(gathers, target="python"), np.array([3.0, 1.0, 3.0, -2.0, 3.0, 0.0])
    for i, j, raises in (([0, -1, 3], [4, -5], ""), ([4], [0], "u"), ([-5], [0], "u"), ([0], [5], "nz")):
        i, j = np.array(i), np.array(j)
        if not raises:
            for got, want in zip(kernel(x, i, j), gathers(x, i, j)):
                np.testing.assert_array_equal(got, want)
            continue
        with pytest.raises(IndexError) as python:
            gathers(x, i, j)
        with pytest.raises(IndexError) as info:
            kernel(x, i, j)
        assert str(info.value) == str(python.value).replace(" with size", f" of {raises!r} with size")


def test_a_negative_extent_is_numpys_value_error_where_the_array_is_never_made():
    """``np.zeros(n - 10).sum()`` of n = 3 is NumPy's ValueError, not the 0.0 of an empty sum:
    the extent checked per call, named as the user wrote it (frontend.arrays nonnegative_extents)."""
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        k_extent_sum(V, 3)
    kernel = polyfuse.kernel(k_extent_sum, target="python")
    assert kernel(V, 12) == k_extent_sum(V, 12)
    with pytest.raises(ArgumentError) as info:
        kernel(V, 3)
    line = inspect.getsourcelines(k_extent_sum)[1] + 1
    assert isinstance(info.value, ValueError)
    in_loop = polyfuse.kernel(k_extent_in_loop, target="python")
    assert in_loop(V, 12) == k_extent_in_loop(V, 12)
    with pytest.raises(ValueError, match="^negative dimensions are not allowed"):
        in_loop(V, 3)
    assert str(info.value) == (f"local array 'w' ({__file__}:{line}) would have a negative extent n - 10 for these "
                               "arguments: NumPy raises ValueError: negative dimensions are not allowed")


def k_extent_sum(x, n):
    w = np.zeros(n - 10)
    return w.sum() + x[0]


def k_extent_in_loop(x, n):
    s = 0.0
    for i in range(2):
        w = np.zeros(n - 10 + i)  # an extent of the loop's variable: checked where it runs
        s += w.sum() + x[i]
    return s


def float_divmod(a, b):
    return divmod(a, b)


@pytest.mark.parametrize("a, b, target", [(7.0, 0.0, "python"), (7, 0.0, "python"), (7, 0, "python"),
                                          (7.0, 0.0, "cpu")])
def test_divmod_by_zero_says_what_python_says(a, b, target):
    """divmod is ``(a // b, a % b)`` here (frontend.desugar): a float's ZeroDivisionError says
    divmod's words ("float divmod()"), an int's is its ``//``'s, as Python's."""
    with pytest.raises(ZeroDivisionError) as python:
        float_divmod(a, b)
    with pytest.raises(ZeroDivisionError) as info:
        polyfuse.kernel(float_divmod, target=target)(a, b)
    assert str(info.value).splitlines()[0] == str(python.value)


def test_user_name_undoes_every_renaming():
    """polyfuse.model.names: the prefixes of frontend/local_versions.py, returns.py and lift.py,
    and the fresh names frontend.rewrite records, back to the user's name."""
    renames = {"v_2": "v", "v_2_2": "v"}
    for made in ("v", "v_2", "v_2_2", "__version0_v", "__version12_v_2", "__kind_v", "__strong_v",
                 "__strong_v_2", "__next__version0_v", "__next__version1_v_2_2"):
        assert user_name(made, renames) == "v", made
    assert user_name("v_3", renames) == "v_3"  # a name the user wrote
    assert in_user_names("local '__strong_v_2' and v_2.itemsize, A.v_2", renames) == "local 'v' and v.itemsize, A.v_2"


def test_wrong_rank(k_scale):
    with pytest.raises(PolyfuseError):
        k_scale(4, np.zeros((4, 4)), np.zeros(4))


def test_math_is_available():  # keeps the math import meaningful for readers of this module
    assert math.pi > 3


def test_scalar_reusing_a_loop_variable_name_matches_python():
    def kern(A, B, n):
        for i in range(n):
            A[i] = 1.0
        i = 0.5
        B[0] = i
        for k in range(n):
            B[k] += i  # the second iteration sees the inner loop's last i (frontend/loop_values.py)
            for i in range(2):
                A[i] += 1.0

    A, B = np.zeros(3), np.zeros(3)
    polyfuse.kernel(kern, target="python")(A, B, 3)
    A0, B0 = np.zeros(3), np.zeros(3)
    kern(A0, B0, 3)
    np.testing.assert_array_equal(A, A0)
    np.testing.assert_array_equal(B, B0)


def test_loop_variable_maybe_unbound_under_a_data_condition_points_at_the_read():
    def kern(x, n):
        for i in range(n):
            x[i] += 1.0
        return i if x[0] > 1.5 else -1  # n == 0 and x[0] > 1.5: UnboundLocalError in Python

    with pytest.raises(polyfuse.UnsupportedError) as info:
        polyfuse.kernel(kern, target="python")(np.zeros(3), 3)
    line = inspect.getsourcelines(kern)[1] + 3
    assert f":{line}:" in str(info.value) and "may be read before it is assigned" in str(info.value)


def k_power_bound(R, K, x):
    for i in range(R ** K):
        x[i] = i


def k_power_grid(R, K):
    a, b = np.mgrid[0:R, 0:R ** K]
    return a + b


def test_integer_power_as_a_loop_bound_is_an_int_checked_where_it_runs():
    """In a loop, ``R ** K`` of two Python ints is an int (a loop kept as written); a negative
    exponent, a float in Python, raises where it runs (frontend/expressions.py: int_power)."""
    got, want = np.zeros(8), np.zeros(8)
    polyfuse.kernel(k_power_bound, target="python")(2, 3, got)
    k_power_bound(2, 3, want)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(UnsupportedError, match=r"test_errors.py:\d+.*negative int power is a float in Python"):
        polyfuse.kernel(k_power_bound, target="python")(2, -1, np.zeros(8))


@pytest.mark.parametrize("fn, args", [(k_power_grid, (2, 3))])
def test_integer_power_as_a_size_says_why_it_is_a_float(fn, args):
    """npbench's stockham_fft sizes grids by R ** K: Python's int ** int is a float for a negative
    exponent, so the refusal says so (frontend/types.py: power_hint)."""
    with pytest.raises(UnsupportedError, match=r"test_errors.py:\d+.*'R \*\* K' is a float even of integers"):
        polyfuse.kernel(fn, target="python")(*args)


def k_stockham(N, R, K, x, y):
    """npbench's stockham_fft, its grid sized by N: each step views y with a new shape."""
    i_coord, j_coord = np.mgrid[0:R, 0:R]
    dft = np.exp(-2.0j * np.pi * i_coord * j_coord / R)
    y[:] = x
    for i in range(K):
        yv = np.reshape(y, (R ** i, R, R ** (K - i - 1)))
        perm = np.transpose(yv, axes=(1, 0, 2))
        y[:] = np.reshape(dft @ np.reshape(perm, (R, R ** (K - 1))), (N,))


def test_a_shape_that_changes_in_a_loop_is_refused_at_the_reshape():
    x = np.arange(8.0) + 0j
    with pytest.raises(UnsupportedError, match=r"test_errors.py:\d+:\d+: reshape\(\) with extent '\(R \*\* i\)'.*"
                                               "do not change in a loop"):
        polyfuse.kernel(k_stockham, target="python")(8, 2, 3, x, np.zeros(8, complex))
