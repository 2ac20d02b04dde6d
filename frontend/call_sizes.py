"""Sizes the call computes from its arguments: integer expressions isl cannot state.

``np.linspace(xmin, xmax, int(xn))`` of a float argument, ``count = (L - w) // f + 1`` with an
integer argument ``f``, ``nt = int(T / dt)``: the value does not change while the kernel runs,
but it is not affine in the integer arguments and sizes.  Such an expression becomes a new isl
parameter (``pf_size...``, like ``X.shape[d]``) whose value the call computes before anything
runs by evaluating the expression as Python would (``runtime.variant.size_value``), with the
arguments' values (the kernel must never assign those arguments).  The forms are few on purpose, so that value is the one the undecorated
function computes: names of integer and float64 arguments, sizes ``X.shape[d]`` of array
arguments, number constants, ``+ - * / // % **`` and unary minus, ``<< >> & | ^ ~`` of integers,
``a if test else b`` of a comparison (``and``/``or``/``not`` of them), and the calls ``int``,
``round`` (one argument), ``abs``, ``min``, ``max``, ``math.floor/ceil/trunc/sqrt`` and
``np.floor/ceil/sqrt``; the whole must be an ``int``.
"""

from __future__ import annotations

import ast
from collections import Counter

from polyfuse.model.scop import Argument

from .checker import module_of
from .source import store_counts, walk

_INT_CALLS = {"int": "int", "round": "int", "abs": None, "min": None, "max": None}
_NP, _MATH = "pf_np", "pf_math"  # the modules' names in the source (scop.SIZE_NAMESPACE)
_MODULE_CALLS = {(_MATH, "floor"): "int", (_MATH, "ceil"): "int", (_MATH, "trunc"): "int",
                 (_MATH, "sqrt"): "float", (_NP, "floor"): "float", (_NP, "ceil"): "float",
                 (_NP, "sqrt"): "float"}


def call_time_source(node: ast.expr, arguments: tuple[Argument, ...], globals_: dict,
                     assigned: set[str]) -> str | None:
    """Python source computing ``node`` from the arguments (modules written ``pf_np`` and
    ``pf_math``, as in ``scop.SIZE_NAMESPACE``), when it is an integer expression of the forms above of
    arguments the kernel never assigns (``assigned``: then the value at the call is the value
    there); None otherwise."""
    kinds, arrays = _argument_kinds(arguments, assigned)
    canonical = _Canonical(globals_)
    written = canonical.visit(ast.parse(ast.unparse(node), mode="eval").body)
    if _kind(written, kinds, arrays) != "int":
        return None
    return ast.unparse(written)


def guarded_source(source: str, guard: list[tuple[ast.expr, bool]], arguments: tuple[Argument, ...],
                   globals_: dict, assigned: set[str]) -> str | None:
    """``source`` (``call_time_source``'s) computed only where Python computes it, inside the
    ifs around it (``guard``: each test with whether it holds there): ``value if tests else 0``.
    ``if n < w: return np.zeros(0)``, then ``nf = 1 + (n - w) // hop``: a call with ``n < w``
    must neither divide by a ``hop`` of 0 nor find the negative size NumPy would refuse, since
    Python never computes it there.  None where a test is not a comparison of the forms above."""
    kinds, arrays = _argument_kinds(arguments, assigned)
    tests = [_Canonical(globals_).visit(ast.parse(ast.unparse(t), mode="eval").body) for t, _ in guard]
    if not tests or not all(_is_test(t, kinds, arrays) for t in tests):
        return None
    held = [t if holds else ast.UnaryOp(ast.Not(), t) for t, (_, holds) in zip(tests, guard)]
    value = ast.parse(source, mode="eval").body
    return ast.unparse(ast.IfExp(held[0] if len(held) == 1 else ast.BoolOp(ast.And(), held), value, ast.Constant(0)))


def _argument_kinds(arguments: tuple[Argument, ...], assigned: set[str]) -> tuple[dict[str, str], dict[str, int]]:
    """The numbers (name -> 'int' or 'float') and arrays (name -> rank) among the arguments the
    kernel never assigns: what a size the call computes may read."""
    kinds = {a.name: "int" if a.kind == "int" else "float" for a in arguments if a.name not in assigned
             and (a.kind == "int" or (a.kind == "float" and a.numpy_scalar in ("", "float64")))}
    arrays = {a.name: a.rank for a in arguments if a.kind == "array" and a.name not in assigned}
    return kinds, arrays


class _Canonical(ast.NodeTransformer):
    """Module references written ``pf_np.`` and ``pf_math.`` (``numpy.floor`` -> ``pf_np.floor``)."""

    def __init__(self, globals_: dict) -> None:
        self.globals = globals_

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        module = {"np": _NP, "math": _MATH}.get(module_of(node.value, self.globals) or "")
        if module is not None:
            return ast.Attribute(ast.Name(module, ast.Load()), node.attr, ast.Load())
        return self.generic_visit(node)


def _kind(node: ast.expr, kinds: dict[str, str], arrays: dict[str, int]) -> str | None:
    """'int' or 'float' for the value of ``node`` as Python computes it; None outside the forms."""
    if isinstance(node, ast.Constant):
        return {int: "int", float: "float"}.get(type(node.value))
    if isinstance(node, ast.Name):
        return kinds.get(node.id)
    if isinstance(node, ast.Subscript):  # X.shape[d] of an array argument
        base, axis = node.value, node.slice
        ok = isinstance(base, ast.Attribute) and base.attr == "shape" and isinstance(base.value, ast.Name) \
            and base.value.id in arrays and isinstance(axis, ast.Constant) and type(axis.value) is int \
            and -arrays[base.value.id] <= axis.value < arrays[base.value.id]
        return "int" if ok else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _kind(node.operand, kinds, arrays)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):  # ~k of an integer
        return "int" if _kind(node.operand, kinds, arrays) == "int" else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv,
                                                            ast.Mod)):
        sides = [_kind(node.left, kinds, arrays), _kind(node.right, kinds, arrays)]
        if None in sides:
            return None
        return "float" if isinstance(node.op, ast.Div) or "float" in sides else "int"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):  # 4 ** k (a float at k < 0: refused per call)
        sides = [_kind(node.left, kinds, arrays), _kind(node.right, kinds, arrays)]
        return None if None in sides else "float" if "float" in sides else "int"
    if isinstance(node, ast.BinOp) and isinstance(node.op, _INT_OPS):  # 1 << (2 * k), n & ~1
        sides = [_kind(node.left, kinds, arrays), _kind(node.right, kinds, arrays)]
        return "int" if sides == ["int", "int"] else None
    if isinstance(node, ast.IfExp):  # n - w + 1 if n >= w else 0
        branches = {_kind(node.body, kinds, arrays), _kind(node.orelse, kinds, arrays)}
        return branches.pop() if len(branches) == 1 and _is_test(node.test, kinds, arrays) else None
    if isinstance(node, ast.Call) and not node.keywords:
        args = [_kind(a, kinds, arrays) for a in node.args]
        if not node.args or None in args:
            return None
        func = node.func
        if isinstance(func, ast.Name) and func.id in _INT_CALLS:
            if func.id in ("int", "round") and len(args) != 1 or func.id == "abs" and len(args) != 1:
                return None
            return _INT_CALLS[func.id] or ("float" if "float" in args else "int")
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and len(args) == 1:
            return _MODULE_CALLS.get((func.value.id, func.attr))
    return None


def call_time_data_source(node: ast.expr, arguments: tuple[Argument, ...], globals_: dict,
                          unchanged: set[str], bindings: dict[str, ast.expr],
                          guard: list[tuple[ast.expr, bool]] | None = None) -> str | None:
    """Python source computing the integer ``node`` at the call, as ``call_time_source`` but
    through locals bound once at the top level (``bindings``) and with whole reductions
    (``X.max()``, ``X.min()``, ``X.sum()``, ``np.max(X)``, ...) of the arrays ``call_time_array``
    computes among its terms: ``n = int(idx.max()) + 1; out = np.zeros(n)`` (fe48).  Such a
    reduction of an integer array argument is an integer, any other a number that ``int(...)``
    (or ``round``, ``math.floor``, ...) must make one.  The source is wrapped in
    ``pf_data_size(...)``: it reads elements, so the call computes it every time
    (``scop.DATA_SIZES``).  The caller must know that Python computes the value wherever the
    kernel runs (an allocation at the top level of the body), since the call computes it first
    (a reduction of nothing raises NumPy's ValueError there); or ``guard``, the tests of the ifs
    around it (each with whether it holds there), which must be conditions of the forms above
    (``if idx.shape[0] == 0: return ...`` before it): the size is then ``value if tests else 0``,
    computed only where Python computes it."""
    ints = {a.name for a in arguments if a.kind == "array" and a.dtype.startswith(("int", "uint"))}
    reductions: dict[str, str] = {}

    def expand(n: ast.expr, depth: int) -> ast.expr | None:
        if isinstance(n, ast.Name) and n.id in bindings and n.id not in unchanged and depth < 8:
            return expand(ast.parse(ast.unparse(bindings[n.id]), mode="eval").body, depth + 1)
        if _is_reduction(n, globals_):
            assert isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            owner = n.args[0] if n.args else n.func.value
            array = call_time_array(owner, arguments, globals_, unchanged, bindings)
            if array is None:
                return None
            name = f"pf_reduced{len(reductions)}"
            reductions[name] = f"{_NP}.{n.func.attr}({array})"
            kind = "int" if isinstance(owner, ast.Name) and owner.id in ints and owner.id in unchanged else "float"
            return ast.Name(name + ("_int" if kind == "int" else ""), ast.Load())
        for field, child in ast.iter_fields(n):
            if isinstance(child, ast.expr):
                new = expand(child, depth)
                if new is None:
                    return None
                setattr(n, field, new)
            elif isinstance(child, list) and child and isinstance(child[0], ast.expr):
                items = [expand(c, depth) for c in child]
                if any(i is None for i in items):
                    return None
                setattr(n, field, items)
        return n

    written = expand(ast.parse(ast.unparse(node), mode="eval").body, 0)
    if written is None or not reductions:
        return None
    written = _Canonical(globals_).visit(written)
    kinds = {a.name: "int" if a.kind == "int" else "float" for a in arguments if a.name in unchanged
             and (a.kind == "int" or (a.kind == "float" and a.numpy_scalar in ("", "float64")))}
    kinds.update({n + "_int": "int" for n in reductions} | {n: "float" for n in reductions})
    arrays = {a.name: a.rank for a in arguments if a.kind == "array" and a.name in unchanged}
    if _kind(written, kinds, arrays) != "int":
        return None
    values = {n + suffix: ast.parse(v, mode="eval").body for n, v in reductions.items() for suffix in ("", "_int")}
    value = _Reductions(values).visit(written)
    if guard:
        tests = [_Canonical(globals_).visit(ast.parse(ast.unparse(t), mode="eval").body) for t, _ in guard]
        if not all(_is_test(t, kinds, arrays) for t in tests):
            return None
        held = [t if holds else ast.UnaryOp(ast.Not(), t) for t, (_, holds) in zip(tests, guard)]
        value = ast.IfExp(held[0] if len(held) == 1 else ast.BoolOp(ast.And(), held), value, ast.Constant(0))
    return f"pf_data_size({ast.unparse(value)})"


class _Reductions(ast.NodeTransformer):
    """The reductions ``call_time_data_source`` named ``pf_reduced<k>`` written back."""

    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self.values.get(node.id, node)


_REDUCTIONS = frozenset(("max", "min", "sum", "amax", "amin"))


def _is_reduction(n: ast.expr, globals_: dict) -> bool:
    """``X.max()`` (``min``, ``sum``) or ``np.max(X)`` (``np.amax``, ...): a whole reduction."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and not n.keywords
            and n.func.attr in _REDUCTIONS):
        return False
    if module_of(n.func.value, globals_) == "np":
        return len(n.args) == 1
    return not n.args and n.func.attr in ("max", "min", "sum")


_INT_OPS = (ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)
_COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _is_test(node: ast.expr, kinds: dict[str, str], arrays: dict[str, int]) -> bool:
    """Whether ``node`` is a condition of the forms above: comparisons of their values, joined
    by ``and``/``or``/``not``."""
    if isinstance(node, ast.Compare):
        return all(isinstance(op, _COMPARISONS) for op in node.ops) \
            and all(_kind(v, kinds, arrays) is not None for v in [node.left, *node.comparators])
    if isinstance(node, ast.BoolOp):
        return all(_is_test(v, kinds, arrays) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _is_test(node.operand, kinds, arrays)
    return False


# elementwise NumPy functions (and a few whose values NumPy alone defines) an array expression the
# call evaluates may name: ``np.bincount((x * k).astype(np.int64))``, ``np.bincount(np.digitize(x, b))``
_ARRAY_CALLS = frozenset({"abs", "absolute", "minimum", "maximum", "clip", "floor", "ceil", "rint", "round",
                          "trunc", "digitize", "searchsorted", "where", "sign", "floor_divide", "remainder",
                          "mod", "int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "bool_",
                          "logical_and", "logical_or", "logical_not", "isnan", "isfinite", "diff", "cumsum",
                          "argmin", "argmax", "sum", "sqrt", "square", "indices"})
_ARRAY_METHODS = frozenset({"astype", "min", "max", "round", "ravel", "sum", "argmin", "argmax"})
_ARRAY_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.BitAnd, ast.BitOr, ast.BitXor,
              ast.LShift, ast.RShift)


def _never_raises(index: ast.expr) -> bool:
    """Whether ``index`` is a slice of integer constants (not a step of 0) or None: an item of a
    subscript that never raises."""
    if isinstance(index, ast.Constant) and index.value is None:
        return True
    if not isinstance(index, ast.Slice):
        return False
    bounds = [index.lower, index.upper, index.step]
    return all(b is None or (isinstance(b, ast.Constant) and type(b.value) is int)
               or (isinstance(b, ast.UnaryOp) and isinstance(b.op, ast.USub)
                   and isinstance(b.operand, ast.Constant) and type(b.operand.value) is int)
               for b in bounds) and not (isinstance(index.step, ast.Constant) and index.step.value == 0)


def _int_constant(index: ast.expr) -> bool:
    """Whether ``index`` is an integer constant (``M[0]``, ``M[-1]``): an item of a subscript
    that raises IndexError where the axis is too short (``scop.bincount_length`` catches it)."""
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index = index.operand
    return isinstance(index, ast.Constant) and type(index.value) is int


def indexes_integers(source: str) -> bool:
    """Whether the array expression ``source`` (``call_time_array``'s) has a subscript with an
    integer constant (``M[0]``), which raises IndexError where that axis is too short."""
    return any(isinstance(n, ast.Subscript) and any(
        _int_constant(i) for i in (n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]))
        for n in ast.walk(ast.parse(source, mode="eval")))


def call_time_array(node: ast.expr, arguments: tuple[Argument, ...], globals_: dict,
                    unchanged: set[str], bindings: dict[str, ast.expr]) -> str | None:
    """Python source computing the array ``node`` at the call (modules written ``pf_np``), when it
    is made of arguments the kernel never changes (``unchanged``), number constants, arithmetic,
    comparisons and the NumPy calls above, through locals bound once at the top level
    (``bindings``: their values, of such forms too); None otherwise.  The call then computes what
    the undecorated function computes there (``np.bincount`` of a computed array: its length)."""
    args = {a.name for a in arguments if a.name in unchanged}
    ranks = {a.name: a.rank for a in arguments if a.kind == "array"}

    def expand(n: ast.expr, depth: int) -> ast.expr | None:
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "shape" \
                and isinstance(n.value.value, ast.Name) and n.value.value.id in ranks \
                and isinstance(n.slice, ast.Constant) and type(n.slice.value) is int \
                and -ranks[n.value.value.id] <= n.slice.value < ranks[n.value.value.id]:
            return n  # an array argument's extent (edges.shape[0] - 2): a Python int at the call
        if isinstance(n, ast.Name):
            if n.id in args:
                return n
            bound = bindings.get(n.id)
            return None if bound is None or depth > 8 else expand(copy_of(bound), depth + 1)
        if isinstance(n, ast.Constant):
            return n if type(n.value) in (int, float, bool) else None
        if isinstance(n, ast.BinOp) and isinstance(n.op, _ARRAY_OPS):
            left, right = expand(n.left, depth), expand(n.right, depth)
            return None if left is None or right is None else ast.BinOp(left, n.op, right)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.Invert, ast.Not)):
            operand = expand(n.operand, depth)
            return None if operand is None else ast.UnaryOp(n.op, operand)
        if isinstance(n, ast.Tuple):  # np.indices((h, w))
            elts = [e for e in (expand(e, depth) for e in n.elts) if e is not None]
            return None if len(elts) != len(n.elts) else ast.Tuple(elts, ast.Load())
        if isinstance(n, ast.Compare):
            terms = [t for t in (expand(t, depth) for t in [n.left, *n.comparators]) if t is not None]
            return None if len(terms) != 1 + len(n.comparators) else ast.Compare(terms[0], n.ops, terms[1:])
        if isinstance(n, ast.Attribute) and module_of(n.value, globals_) == "np":  # a dtype: np.int64
            return ast.Attribute(ast.Name(_NP, ast.Load()), n.attr, ast.Load()) \
                if n.attr in _ARRAY_CALLS or n.attr.startswith(("int", "uint", "float")) else None
        if isinstance(n, ast.Name) and n.id in ("int", "float", "bool"):
            return n
        if isinstance(n, ast.Subscript) and all(_never_raises(i) or _int_constant(i) for i in (  # x[1:], M[0]
                n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice])):
            owner = expand(n.value, depth)
            return None if owner is None else ast.Subscript(owner, n.slice, ast.Load())
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            if isinstance(n.func.value, ast.Attribute) and n.func.value.attr == "linalg" and n.func.attr == "norm" \
                    and module_of(n.func.value.value, globals_) == "np":  # np.linalg.norm(X[:, None] - C, axis=2)
                found_norm = [p for p in (expand(a, depth) for a in [*n.args, *(k.value for k in n.keywords)])
                              if p is not None]
                if len(found_norm) != len(n.args) + len(n.keywords) or any(k.arg is None for k in n.keywords):
                    return None
                return ast.Call(ast.Attribute(ast.Attribute(ast.Name(_NP, ast.Load()), "linalg", ast.Load()), "norm",
                                              ast.Load()), found_norm[:len(n.args)],
                                [ast.keyword(k.arg, p) for k, p in zip(n.keywords, found_norm[len(n.args):])])
            found = [expand(a, depth) for a in n.args] + [  # (a string keyword: side='right')
                k.value if isinstance(k.value, ast.Constant) and type(k.value.value) is str else expand(k.value, depth)
                for k in n.keywords]
            parts = [p for p in found if p is not None]
            if len(parts) != len(found) or any(k.arg is None for k in n.keywords):
                return None
            keywords = [ast.keyword(k.arg, p) for k, p in zip(n.keywords, parts[len(n.args):])]
            if module_of(n.func.value, globals_) == "np":
                if n.func.attr not in _ARRAY_CALLS:
                    return None
                func: ast.expr = ast.Attribute(ast.Name(_NP, ast.Load()), n.func.attr, ast.Load())
            elif n.func.attr in _ARRAY_METHODS:
                owner = expand(n.func.value, depth)
                if owner is None:
                    return None
                func = ast.Attribute(owner, n.func.attr, ast.Load())
            else:
                return None
            return ast.Call(func, parts[:len(n.args)], keywords)
        return None

    def copy_of(n: ast.expr) -> ast.expr:
        return ast.parse(ast.unparse(n), mode="eval").body

    written = expand(copy_of(node), 0)
    if written is None or not any(isinstance(n, ast.Name) and n.id in args for n in walk(written)):
        return None
    return ast.unparse(written)


def written_arguments(body: list[ast.stmt], globals_: dict,
                      helpers: set[str]) -> dict[int, tuple[ast.AST, ast.expr, frozenset[str], frozenset[str]]]:
    """The ``np.bincount`` calls of ``body`` whose ``x`` reads, in the call or through locals
    bound at the top level (``idx = np.digitize(x, edges)``), a NumPy call that the rewrite
    writes as a helper with loops (``helpers``: np.searchsorted, np.digitize): id(call) -> (call,
    ``x`` with those locals written out, the locals bound once, the locals bound more than once).
    A local every binding of which is a top-level ``name = value`` (np40: ``i = np.searchsorted(e,
    x) - 1`` then ``i = np.clip(i, 0, k - 1)``) is written out as the binding before the
    statement of the call, whose own reads of it are the binding before it, as Python runs the
    straight-line top level.  The lowering can no longer see that expression in the loops; it
    evaluates this one at the call (``call_time_array``) where the locals are never changed in
    place there."""
    stores = store_counts(body)
    top = Counter(s.targets[0].id for s in body if isinstance(s, ast.Assign) and len(s.targets) == 1
                  and isinstance(s.targets[0], ast.Name))
    rebindable = {n for n, c in top.items() if c == stores[n]}  # every binding a top-level name = value
    versions: dict[str, tuple[ast.expr, frozenset[str]]] = {}  # name -> its value now, written out; the locals
    found: dict[int, tuple[ast.AST, ast.expr, frozenset[str], frozenset[str]]] = {}
    for stmt in body:
        for call in walk(stmt):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "bincount"
                    and module_of(call.func.value, globals_) == "np"):
                continue
            x = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "x"), None)
            used: set[str] = set()
            written = _written_out(x, versions, used) if x is not None else None
            if written is not None and any(
                    isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in helpers
                    and module_of(n.func.value, globals_) == "np" for n in walk(written)):
                found[id(call)] = (call, written, frozenset(n for n in used if stores[n] == 1),
                                   frozenset(n for n in used if stores[n] > 1))
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id in rebindable:
            used = {stmt.targets[0].id}
            value = _written_out(stmt.value, versions, used)
            if value is None:
                versions.pop(stmt.targets[0].id, None)
            else:
                versions[stmt.targets[0].id] = (value, frozenset(used))
    return found


def _written_out(node: ast.expr, versions: dict[str, tuple[ast.expr, frozenset[str]]],
                 used: set[str]) -> ast.expr | None:
    """A copy of ``node`` with each name of ``versions`` replaced by its value there (written out
    already: no recursion); ``used`` gains the locals they went through.  None where a value is
    very large (a chain of rebindings doubling it)."""
    copy = ast.parse(ast.unparse(node), mode="eval").body
    if isinstance(copy, ast.Name) and copy.id in versions:
        value, through = versions[copy.id]
        used.update(through)
        return ast.parse(ast.unparse(value), mode="eval").body
    for n in list(walk(copy)):
        for name, child in ast.iter_fields(n):
            values = child if isinstance(child, list) else [child]
            if not any(isinstance(v, ast.Name) and v.id in versions for v in values):
                continue
            new = []
            for v in values:
                if isinstance(v, ast.Name) and v.id in versions:
                    value, through = versions[v.id]
                    used.update(through)
                    v = ast.parse(ast.unparse(value), mode="eval").body
                new.append(v)
            setattr(n, name, new if isinstance(child, list) else new[0])
    return copy if len(ast.unparse(copy)) < 4000 else None
