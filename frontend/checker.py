"""One pass that rejects everything outside the supported subset, before any lifting.

Later stages may assume the tree only holds the constructs allowed here.  Semantic limits that
need types (affine subscripts, scalars read before assignment) are checked while lifting.
"""

from __future__ import annotations

import ast
import cmath
import math
from typing import NoReturn, TypeGuard

import numpy as np

from polyfuse.errors import UnsupportedError
from polyfuse.model.region import LAPACK_CALL, MATMUL_CALL

from . import scalars
from .allocation import ALLOCATORS
from .numba_values import BOXED, TUPLE_INDEX
from .source import KernelSource, walk

SUPPORTED_HINT = {
    "stmt": "kernel bodies may contain for-range and while loops (with break/continue), if/elif/else, assignments to array "
    "elements or scalar locals, np.empty/zeros/ones/full(_like) locals and a final return",
    "expr": "expressions may use + - * / // % **, & | ^ << >> ~ of integers, comparisons inside 'a if c else b', abs/min/max, "
    "math.* and np.* elementwise functions, numbers, arguments and array elements",
}

_STMT_NAMES = {
    ast.With: "with statement",
    ast.Try: "try statement",
    ast.Raise: "raise statement",
    ast.FunctionDef: "nested function",
    ast.ClassDef: "class definition",
    ast.Import: "import (only of numpy, math and cmath, and their functions, at the top of the body "
                "before the names are used)",
    ast.ImportFrom: "import (only of numpy, math and cmath, and their functions, at the top of the body "
                    "before the names are used)",
    ast.Global: "global statement",
    ast.Nonlocal: "nonlocal statement",
    ast.Delete: "del statement",
    ast.Assert: "assert statement",
    ast.AnnAssign: "annotated assignment",
}

_EXPR_NAMES = {
    ast.List: "list",
    ast.Tuple: "tuple",
    ast.Dict: "dict",
    ast.Set: "set",
    ast.ListComp: "list comprehension",
    ast.GeneratorExp: "generator expression",
    ast.DictComp: "dict comprehension",
    ast.SetComp: "set comprehension",
    ast.Lambda: "lambda",
    ast.Slice: "slice",
    ast.Starred: "starred expression",
    ast.JoinedStr: "f-string",
    ast.NamedExpr: "assignment expression",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
}

_BITWISE = (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)
_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow) + _BITWISE
_AUGOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div) + _BITWISE  # //= %= **= are written out (frontend.desugar for elements,
# frontend.arrays for scalar names; an array name's writes in place)
_BUILTINS = ("abs", "min", "max", "float", "int", "bool", "complex", "round", BOXED, TUPLE_INDEX)
_PARTS = ("real", "imag")  # z.real, z.imag; z.conjugate() is the one method call

#: ``REASSOC_CALL(acc + term)``: the update of a reduction's accumulator that
#: frontend.arrays lowered from NumPy code, whose float ``+`` may be regrouped with the
#: accumulator's other updates (frontend.expressions sets ``ir.BinOp.reassoc``).  Only generated
#: code holds it: frontend.lift refuses the name in the user's source.
REASSOC_CALL = "_polyfuse_reassoc"
#: ``NUMPY_ABS_CALL(z)``: the magnitude of a complex array's element as NumPy's vector loop
#: computes it (frontend.expressions: ``ir.Unary("numpy_abs")``), where a scalar's ``abs`` is
#: ``hypot``.  Generated code only, like REASSOC_CALL.
NUMPY_ABS_CALL = "_polyfuse_numpy_abs"
#: ``PREFIX_INDEX_CALL(index, count)``: a subscript of a buffer whose first ``count`` elements are
#: the user's array (``np.unique(x)``: frontend.selection_loops), wrapped and checked as NumPy's
#: against ``count`` (frontend.control ``runtime_subscript``: IndexError *index 3 is out of bounds
#: for axis 0 with size 3*).  Generated code only, like REASSOC_CALL.
PREFIX_INDEX_CALL = "_polyfuse_prefix_index"


def module_of(node: ast.AST, globals_: dict) -> str | None:
    """'math', 'cmath' or 'np' when ``node`` names that module in the kernel's globals."""
    if isinstance(node, ast.Name):
        obj = globals_.get(node.id)
        if obj is math:
            return "math"
        if obj is cmath:
            return "cmath"
        if obj is np:
            return "np"
    return None


def assert_message(msg: ast.expr | None) -> tuple[str, str | None] | None:
    """The exception and message of an assert's ``msg``: a string literal (AssertionError), or
    ``("ValueError", "...")``, ``("IndexError", "...")``, ``("LinAlgError", "...")`` or
    ``("UnsupportedError", "...")``,
    which only the NumPy lowering writes (frontend.arrays checks the user's messages first);
    None for anything else."""
    if msg is None:
        return "AssertionError", None
    if isinstance(msg, ast.Constant) and isinstance(msg.value, str):
        return "AssertionError", msg.value
    if isinstance(msg, ast.Tuple) and len(msg.elts) == 2 and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in msg.elts):
        error, text = (str(e.value) for e in msg.elts if isinstance(e, ast.Constant))
        return (error, text) if error in ("ValueError", "IndexError", "LinAlgError", "UnsupportedError",
                                         "UnboundLocalError") else None
    return None


class SubsetChecker(ast.NodeVisitor):
    """Raises UnsupportedError at the first construct outside the subset."""

    def __init__(self, source: KernelSource, globals_: dict) -> None:
        self.source = source
        self.globals = globals_

    def fail(self, node: ast.AST, construct: str, kind: str = "stmt") -> NoReturn:
        raise self.source.error(
            node, f"unsupported construct: {construct}; {SUPPORTED_HINT[kind]}", construct
        )

    def check(self) -> None:
        fn = self.source.tree
        args = fn.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            self.fail(fn, "*args, **kwargs, keyword-only or positional-only arguments")
        body = fn.body
        for i, stmt in enumerate(body):
            if isinstance(stmt, ast.Return) and i != len(body) - 1:
                self.fail(stmt, "return before the end of the kernel")
            self.visit_stmt(stmt, top=True)

    def visit_stmt(self, node: ast.stmt, top: bool = False) -> None:
        handler = getattr(self, f"stmt_{type(node).__name__}", None)
        if handler is None:
            self.fail(node, _STMT_NAMES.get(type(node), type(node).__name__))
        handler(node, top)

    def stmt_For(self, node: ast.For, top: bool) -> None:
        if not isinstance(node.target, ast.Name):
            self.fail(node.target, "for loop binding a tuple other than enumerate(...) and zip(...) of arrays "
                      "(or np.ndindex) with one name per item")
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
            self.fail(it, "for loop over something other than range(...)")
        if it.keywords or not 1 <= len(it.args) <= 3:
            self.fail(it, "range() with keywords or a wrong number of arguments")
        if node.orelse:
            self.fail(node, "for ... else")
        for arg in it.args:
            self.visit_expr(arg)
        for stmt in node.body:
            self.visit_stmt(stmt)

    def stmt_While(self, node: ast.While, top: bool) -> None:
        if node.orelse:
            self.fail(node, "while ... else")
        self.visit_expr(node.test)
        for stmt in node.body:
            self.visit_stmt(stmt)

    def stmt_Break(self, node: ast.Break, top: bool) -> None:
        return None  # Python's own compiler rejects break and continue outside loops

    stmt_Continue = stmt_Break

    def stmt_If(self, node: ast.If, top: bool) -> None:
        self.visit_expr(node.test)
        for stmt in node.body + node.orelse:
            self.visit_stmt(stmt)

    def stmt_Assign(self, node: ast.Assign, top: bool) -> None:
        if len(node.targets) != 1:
            self.fail(node, "chained assignment")
        target = node.targets[0]
        if isinstance(target, ast.Name) and self._is_allocation(node.value):
            if not top:
                self.fail(node, f"{ast.unparse(node.value.func)} inside a loop or if (allocate at the top of the kernel)")
            self._check_allocation(node.value)
            return
        if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant) and node.value.value is None:
            raise self.source.error(
                node, f"local {target.id!r} set to None, then read where it may still be None (or bound other "
                f"than by '{target.id} = value'); a None local is taken where each read follows "
                f"'{target.id} is not None and' / '{target.id} is None or', an 'if {target.id} is not None:', "
                f"'if {target.id} is None: return ...' or a binding in the same block; else keep a number and "
                f"a separate flag ({target.id} = 0; found = False ... found = True)", "None local")
        self._check_target(target)
        self.visit_expr(node.value)

    def stmt_AugAssign(self, node: ast.AugAssign, top: bool) -> None:
        if not isinstance(node.op, _AUGOPS):
            self.fail(node, f"augmented assignment {type(node.op).__name__}= (+= -= *= /= //= %= **= and the bitwise ones are supported)")
        self._check_target(node.target)
        self.visit_expr(node.value)

    def stmt_Expr(self, node: ast.Expr, top: bool) -> None:
        if is_matmul_call(node) or is_lapack_call(node):  # written by the frontend (lift refuses the names)
            return
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "print" \
                and "print" not in self.globals:
            self.fail(node, "print() (compiled code writes no output: return the values, or store them in an "
                      "array argument, and print them after the call)")
        if not (top and isinstance(value, ast.Constant) and isinstance(value.value, str)):
            self.fail(node, "expression statement (a call or value whose result is unused)")

    def stmt_Assert(self, node: ast.Assert, top: bool) -> None:
        """An assert checked where it runs (frontend.control.lift_assert); the message a string."""
        if node.msg is not None and assert_message(node.msg) is None:
            self.fail(node.msg, "assert with a message other than a string literal")
        self.visit_expr(node.test)

    def stmt_Return(self, node: ast.Return, top: bool) -> None:
        if not top:
            self.fail(node, "return inside a loop or if (only a final return at the end of the kernel)")
        if node.value is not None:
            self._check_returned(node.value)

    def _check_returned(self, value: ast.expr) -> None:
        """A returned value: a tuple of values, or a scalar expression or array name."""
        if isinstance(value, ast.Tuple):
            for item in value.elts:
                self._check_returned(item)
        elif not (isinstance(value, ast.Constant) and value.value is None):
            self.visit_expr(value)

    def stmt_Pass(self, node: ast.Pass, top: bool) -> None:
        return None

    def _check_target(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name):
            return
        if isinstance(target, ast.Subscript):
            self.visit_expr(target)
            return
        self.fail(target, f"assignment to {_EXPR_NAMES.get(type(target), type(target).__name__)}")

    def _is_allocation(self, value: ast.expr) -> TypeGuard[ast.Call]:
        return is_allocation(value, self.globals)

    def _check_allocation(self, call: ast.Call) -> None:
        assert isinstance(call.func, ast.Attribute)
        name = call.func.attr
        count, like = ALLOCATORS[name]
        dtypes = sum(1 for k in call.keywords if k.arg == "dtype") + max(0, len(call.args) - count)
        if len(call.args) < count or dtypes > 1 or any(k.arg != "dtype" for k in call.keywords):
            first = "a" if like else "shape"
            self.fail(call, f"np.{name} with other than ({first}{', value' if count == 2 else ''}"
                      ", dtype) arguments", "expr")
        if count == 2:
            self.visit_expr(call.args[1])
        if like:
            if not isinstance(call.args[0], ast.Name):
                self.fail(call.args[0], f"np.{name} of something other than an array's name", "expr")
            return
        shape = call.args[0]
        dims = shape.elts if isinstance(shape, ast.Tuple) else [shape]
        for dim in dims:
            self.visit_expr(dim)

    def visit_expr(self, node: ast.expr) -> None:
        handler = getattr(self, f"expr_{type(node).__name__}", None)
        if handler is None:
            self.fail(node, _EXPR_NAMES.get(type(node), type(node).__name__), "expr")
        handler(node)

    def expr_Constant(self, node: ast.Constant) -> None:
        if type(node.value) not in (int, float, bool, complex):
            span = self.source.span(node)
            written = span.text[span.col:span.end_col]
            if written.isidentifier():  # a string argument's value (frontend.function_args): the call's
                raise self.source.error(node, f"parameter {written!r} is the {type(node.value).__name__} "
                                        f"{node.value!r} here (its value in this call), which this expression "
                                        "cannot take; pass a number or an array", "string argument")
            self.fail(node, f"{type(node.value).__name__} literal", "expr")

    def expr_Name(self, node: ast.Name) -> None:
        return None

    def expr_BinOp(self, node: ast.BinOp) -> None:
        if not isinstance(node.op, _BINOPS):
            self.fail(node, f"operator {type(node.op).__name__}", "expr")
        self.visit_expr(node.left)
        self.visit_expr(node.right)

    def expr_UnaryOp(self, node: ast.UnaryOp) -> None:
        self.visit_expr(node.operand)

    def expr_BoolOp(self, node: ast.BoolOp) -> None:
        for value in node.values:
            self.visit_expr(value)

    def expr_Compare(self, node: ast.Compare) -> None:
        for op in node.ops:
            if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                self.fail(node, f"comparison with {type(op).__name__}", "expr")
        self.visit_expr(node.left)
        for comp in node.comparators:
            self.visit_expr(comp)

    def expr_IfExp(self, node: ast.IfExp) -> None:
        self.visit_expr(node.test)
        self.visit_expr(node.body)
        self.visit_expr(node.orelse)

    def expr_Call(self, node: ast.Call) -> None:
        if node.keywords:
            self.fail(node, "call with keyword arguments", "expr")
        func = node.func
        if is_reassoc_call(node) or is_numpy_abs_call(node):
            return self.visit_expr(node.args[0])
        if is_prefix_index_call(node):
            for arg in node.args:
                self.visit_expr(arg)
            return None
        if _random_module(func, self.globals):
            raise self.source.error(node, f"random numbers drawn inside the kernel ({ast.unparse(func)}) are not "
                                    "supported: a compiled generator would not give NumPy's or Python's stream, so "
                                    "results could not equal the undecorated function's; draw them before the call "
                                    "(rng.random(n)) and pass the array", "random numbers")
        if isinstance(func, ast.Name) and func.id in _BUILTINS:
            if func.id in ("min", "max") and len(node.args) < 2:
                self.fail(node, f"{func.id}() of fewer than two values", "expr")
        elif isinstance(func, ast.Attribute) and module_of(func.value, self.globals):
            if not scalars.is_supported(module_of(func.value, self.globals) or "", func.attr):
                self.fail(node, f"call to {module_of(func.value, self.globals)}.{func.attr}", "expr")
        elif isinstance(func, ast.Attribute) and func.attr in ("conj", "conjugate") and not node.args:
            self.visit_expr(func.value)
        else:
            self.fail(node, f"call to {ast.unparse(func)}", "expr")
        for arg in node.args:
            self.visit_expr(arg)

    def expr_Subscript(self, node: ast.Subscript) -> None:
        base = node.value
        if isinstance(base, ast.Attribute):
            if base.attr != "shape" or not isinstance(base.value, ast.Name):
                self.fail(node, f"subscript of {ast.unparse(base)}", "expr")
            if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
                self.fail(node, "X.shape[...] with a non-constant axis", "expr")
            return
        if not isinstance(base, (ast.Name, ast.Subscript)):
            self.fail(node, f"subscript of {ast.unparse(base)}", "expr")
        if isinstance(base, ast.Subscript):
            self.expr_Subscript(base)
        index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for item in index:
            self.visit_expr(item)

    def expr_Attribute(self, node: ast.Attribute) -> None:
        module = module_of(node.value, self.globals)
        if module is not None and scalars.module_constant(module, node.attr) is not None:
            return
        if module is None and node.attr in _PARTS:
            self.visit_expr(node.value)
            return
        self.fail(node, f"attribute {ast.unparse(node)} (only X.shape[d], z.real, z.imag and math./np. calls)",
                  "expr")


def check_subset(source: KernelSource, globals_: dict) -> None:
    """Reject the first construct of ``source`` outside the supported subset."""
    SubsetChecker(source, globals_).check()


def is_number(value: object) -> bool:
    """Whether a default argument value is a number a kernel can take (numpy's too)."""
    return type(value) in (int, float, bool, complex) or isinstance(value, (np.number, np.bool_))


# NumPy functions that convert a list argument into a fresh array and return a new value: a list
# default read only through them (and comparisons with their results) means what an array means.
_CONVERTING = frozenset({"sum", "prod", "all", "any", "max", "min", "amax", "amin", "mean", "dot"})


def array_default(source: KernelSource, name: str, value: object, globals_: dict) -> np.ndarray | None:
    """``np.asarray(value)`` for a default that is a flat list or tuple of numbers which the body
    reads only where NumPy converts it into a fresh array (``def f(db, mask=[1, 0, 1])``, then
    ``np.bitwise_and(mask, v)``, ``mask == np.bitwise_and(...)``): an input of a ufunc, of
    ``np.sum``-like reductions, or a comparison with such a call's result.  Then passing the
    array is what Python computes.  ``None`` for any other use (a subscript gives a Python
    number, ``*`` repeats a list, a view or ``out=`` could alias the array), where the default
    stays refused."""
    if not isinstance(value, (list, tuple)) or not value or not all(is_number(v) for v in value):
        return None
    uses = [n for n in walk(ast.Module(source.tree.body, [])) if isinstance(n, ast.Name) and n.id == name]
    parents = {id(child): node for node in walk(ast.Module(source.tree.body, []))
               for child in ast.iter_child_nodes(node)}
    if not uses or not all(_converted(use, parents.get(id(use)), globals_) for use in uses):
        return None
    return np.asarray(value)


def _converting_call(node: ast.AST | None, globals_: dict) -> bool:
    """``np.<ufunc>(...)`` or ``np.sum(...)``-like: NumPy converts its inputs and returns a new value."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and module_of(node.func.value, globals_) == "np"):
        return False
    return isinstance(getattr(np, node.func.attr, None), np.ufunc) or node.func.attr in _CONVERTING


def _converted(use: ast.Name, parent: ast.AST | None, globals_: dict) -> bool:
    """Whether this read of a list default is an input that NumPy converts to a fresh array."""
    if not isinstance(use.ctx, ast.Load):
        return False
    if _converting_call(parent, globals_):
        assert isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute)
        inputs = getattr(np, parent.func.attr, None)
        count = inputs.nin if isinstance(inputs, np.ufunc) else 1  # never a positional out=
        return any(arg is use for arg in parent.args[:count])
    if isinstance(parent, ast.Compare) and len(parent.ops) == 1:
        other = parent.comparators[0] if parent.left is use else parent.left
        return other is not use and _converting_call(other, globals_)
    return False


def default_error(source: KernelSource, name: str, value: object) -> UnsupportedError:
    """The error for a call that leaves parameter ``name`` to its default ``value``, which is
    not a number: located at the default in the ``def`` line."""
    args = source.tree.args
    params = [a.arg for a in args.args]
    node = args.defaults[params.index(name) - (len(params) - len(args.defaults))]
    hint = " (a list or tuple is not an argument either: pass a NumPy array; a list of numbers read only as an " \
        "input of NumPy ufuncs and reductions is taken as np.asarray of it)" if isinstance(value, (list, tuple)) \
        else ""
    return source.error(node, f"the default value {value!r} of parameter {name!r} is not a number; kernels "
                        "take number defaults (int, float, bool, complex, numpy scalars): pass "
                        f"{name!r} in the call{hint}", "default argument")


def is_matmul_call(node: ast.stmt) -> bool:
    """``MATMUL_CALL(...)``: a product frontend.array_linalg kept whole for BLAS."""
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name) and node.value.func.id == MATMUL_CALL)


def is_lapack_call(node: ast.stmt) -> bool:
    """``LAPACK_CALL(...)``: an np.linalg routine frontend.array_lapack runs on LAPACK."""
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name) and node.value.func.id == LAPACK_CALL)


def reassociable(update: ast.BinOp) -> ast.Call:
    """``update`` (``acc + term``) marked as a NumPy reduction's accumulation.  Sums only: NumPy
    multiplies in index order, and products regrouped into lanes can overflow where it does not."""
    assert isinstance(update.op, ast.Add), "only sums are reassociated"
    return ast.Call(ast.Name(REASSOC_CALL, ast.Load()), [update], [])


def is_reassoc_call(node: ast.AST) -> TypeGuard[ast.Call]:
    """``REASSOC_CALL(acc + term)``, written by frontend.arrays and frontend.array_linalg."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == REASSOC_CALL
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.BinOp)
            and isinstance(node.args[0].op, ast.Add))


def numpy_abs(value: ast.expr) -> ast.Call:
    """``abs(value)`` of a complex array's element, as NumPy's array loop computes it."""
    return ast.Call(ast.Name(NUMPY_ABS_CALL, ast.Load()), [value], [])


def is_numpy_abs_call(node: ast.AST) -> TypeGuard[ast.Call]:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == NUMPY_ABS_CALL
            and len(node.args) == 1 and not node.keywords)


def prefix_index(index: ast.expr, count: ast.expr) -> ast.Call:
    """``index`` into the first ``count`` elements of a buffer, as NumPy indexes an array of
    that length (PREFIX_INDEX_CALL)."""
    return ast.Call(ast.Name(PREFIX_INDEX_CALL, ast.Load()), [index, count], [])


def is_prefix_index_call(node: ast.AST) -> TypeGuard[ast.Call]:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == PREFIX_INDEX_CALL
            and len(node.args) == 2 and not node.keywords)


def is_allocation(value: ast.expr, globals_: dict) -> TypeGuard[ast.Call]:
    """Whether ``value`` is ``np.<allocator>(...)`` (np.empty, np.zeros_like, ...)."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and module_of(value.func.value, globals_) == "np"
        and value.func.attr in ALLOCATORS
    )


def _random_module(func: ast.expr, globals_: dict) -> bool:
    """Whether ``func`` is an attribute of ``numpy.random`` or Python's ``random`` module
    (``np.random.random``, ``random.gauss``), named through the kernel's globals."""
    if not isinstance(func, ast.Attribute):
        return False
    parts: list[str] = []
    node: ast.expr = func.value
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return False
    obj = globals_.get(node.id)
    for part in parts:
        obj = getattr(obj, part, None)
    return getattr(obj, "__name__", None) in ("numpy.random", "random")
