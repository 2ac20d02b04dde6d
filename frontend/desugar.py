"""Python spellings numba users write, turned into the subset's (part of ``frontend.rewrite``).

Each is a no-op on code already in the subset, and each keeps Python's meaning exactly:

- **Global constants.** A name the function reads but never assigns, bound in its module to a
  Python ``int``/``float``/``bool`` or a NumPy number, is that constant (numba freezes globals at
  compile time the same way).  NumPy numbers keep their dtype (``np.float32(0.5)``).  Their values
  are part of the disk-cache key (:func:`constant_texts`).  A test that is then a constant
  (``x if DEBUG else y``, ``if not DEBUG:``, ``if False:``) takes its branch, as Python would: the
  other is dropped unread, so its arrays need not match the taken one's shape (an ``if`` whose
  taken branch returns, breaks or continues is left).
- **Imports in the body.** ``import numpy as np``, ``import math``, ``from math import sqrt``
  at the top level of the body, before any use of the names they bind, bind what a global of
  the same name would: they are taken out and the names added to the kernel's globals (a
  module other than numpy, math and cmath, or a name bound otherwise too, stays refused).
- **Module functions by name.** A call of a name bound (globally or by such an import) to a
  function or type of numpy, math or cmath (``sqrt(x)`` after ``from math import sqrt``,
  ``float32(x)``) calls that module's attribute (``math.sqrt(x)``), the spelling the rest of
  the frontend knows.
- **Tuple assignment.** ``s, t = 0.0, 1.0`` and ``a[i], b[i] = b[i], a[i]``: every value is
  computed before any target is written, as Python does (through fresh locals when a target may
  be read by a value), then each target is assigned in order.
- **Augmented operators** ``//= %= **=``: ``x[i] //= 2`` is ``x[i] = x[i] // 2``
  (subscripts have no side effects in the subset, so evaluating them twice is exact).
- **Loops over arrays.** ``for v in x``, ``for i, v in enumerate(x)`` and ``for a, b in zip(x, y)``
  over array arguments become ``range`` loops.  A rank-1 element is read into ``v`` at the start
  of each iteration (a copy, as iteration yields it); a row of a higher-rank array is a view, so
  ``v`` is replaced by ``x[i]`` at each use, which sees later writes as the view would (the loop
  must not assign ``v``).
"""

from __future__ import annotations

import ast
import builtins
import cmath
import copy
import math
import types
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from polyfuse.errors import UnsupportedError

from .allocation import ALLOCATORS
from .builtin_helpers import (
    HELPERS,
    MATH_HELPERS,
    NUMPY_HELPERS,
    NUMPY_ROW_HELPERS,
    ONE_ARRAY_HELPERS,
    ROW_HELPERS,
    UFUNC_AT,
    UFUNC_REDUCEAT,
    numpy_partition_kth,
)
from .checker import module_of
from .global_arrays import TUPLE_PREFIX, constant_tuple, frozen_name, number_table, number_tuple
from .range_steps import strided_store, variable_step
from .source import KernelSource, location_key, walk


class Rewriter(Protocol):
    """What these rewrites use of ``frontend.rewrite.Rewriter`` (which imports this module)."""

    ranks: dict[str, int]
    local_extents: dict[str, list[ast.expr]]
    args: set[str]
    ints: set[str]
    scalar_kinds: dict[str, tuple[str, str]]
    dtypes: dict[str, str]
    globals: dict
    source: KernelSource

    def fresh(self, name: str) -> str: ...
    def copy(self, node: ast.expr) -> ast.expr: ...
    def placed(self, new: ast.expr, like: ast.AST) -> ast.expr: ...
    def numpy_alias(self) -> str: ...
    def module_alias(self, key: str) -> str: ...
    def error(self, node: ast.AST, message: str, construct: str = "") -> UnsupportedError: ...

# ``&= |= ^= <<= >>=`` stay augmented, as ``+=`` does: on a whole array they write in place
# (frontend.arrays), which ``x = x & v`` would not
_AUG_EXTRA = (ast.FloorDiv, ast.Mod, ast.Pow)


# ---- imports and module functions -------------------------------------------------------------

KNOWN_MODULES: dict[str, types.ModuleType] = {"numpy": np, "math": math, "cmath": cmath}


def hoist_imports(rw: Rewriter, body: list[ast.stmt], local: set[str]) -> list[ast.stmt]:
    """``body`` without its top-level imports of known modules and their functions, each name
    they bind added to ``rw.globals`` (see the module docstring); other imports are kept, for
    the checker to refuse."""
    out: list[ast.stmt] = []
    for i, stmt in enumerate(body):
        bound = _imported(stmt) if isinstance(stmt, (ast.Import, ast.ImportFrom)) else None
        read_before = {n.id for s in body[:i] for n in walk(s) if isinstance(n, ast.Name)}
        if bound is None or any(name in local or name in read_before
                                or rw.globals.get(name, obj) is not obj for name, obj in bound.items()):
            out.append(stmt)
            continue
        rw.globals.update(bound)
    return out


def _imported(stmt: ast.Import | ast.ImportFrom) -> dict[str, object] | None:
    """The names an import of known modules binds, with their objects; None for any other."""
    bound: dict[str, object] = {}
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.name not in KNOWN_MODULES:
                return None
            bound[alias.asname or alias.name] = KNOWN_MODULES[alias.name]
        return bound
    module = KNOWN_MODULES.get(stmt.module or "") if not stmt.level else None
    for alias in stmt.names:
        obj = getattr(module, alias.name, None) if alias.name != "*" else None
        if obj is None or module_attribute(obj) is None:
            return None
        bound[alias.asname or alias.name] = obj
    return bound


def module_attribute(obj) -> tuple[str, str] | None:
    """``("np", "sqrt")`` when ``obj`` is ``np.sqrt`` (a function, ufunc or type of numpy, math or
    cmath, under its own name there); None otherwise (numbers are Constants' business)."""
    name = getattr(obj, "__name__", None)
    if not isinstance(name, str) or constant_value(obj) or isinstance(obj, types.ModuleType):
        return None
    for key, module in (("np", np), ("math", math), ("cmath", cmath)):
        if getattr(module, name, None) is obj:
            return key, name
    if getattr(np.linalg, name, None) is obj:
        return "np", f"linalg.{name}"  # np.linalg.norm (as a default: norm=np.linalg.norm)
    return None


class ModuleFunctions(ast.NodeTransformer):
    """Calls of a global name bound to a module function or type -> ``module.function(...)``
    (the module under a name bound to it in the kernel's globals).  Only in call position: a
    dtype named by a global (``dtype=F32``) is read as such where it is used."""

    def __init__(self, rw: Rewriter, local: set[str]) -> None:
        self.rw, self.local = rw, local

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        func = node.func
        if not isinstance(func, ast.Name) or func.id in self.local or func.id not in self.rw.globals:
            return node
        value = self.rw.globals[func.id]
        builtin = str(getattr(value, "__name__", ""))
        if isinstance(value, types.BuiltinFunctionType) and getattr(builtins, builtin, None) is value \
                and builtin not in self.rw.globals and builtin not in self.local:
            node.func = self.rw.placed(ast.Name(builtin, ast.Load()), func)  # a parameter bound to abs, min, ...
            return node
        found = module_attribute(value)
        if found is None:
            return node
        key, name = found
        attribute: ast.expr = self.rw.placed(ast.Name(self.rw.module_alias(key), ast.Load()), func)
        for part in name.split("."):
            attribute = self.rw.placed(ast.Attribute(attribute, part, ast.Load()), func)
        node.func = attribute
        return node


class BuiltinHelpers(ast.NodeTransformer):
    """Calls of a builtin or math function written as a helper (``sum(x)``, ``math.isclose(a, b,
    rel_tol=...)``, ``np.sort(A, axis=0)``, ``np.add.at(a, i, b)``: frontend/builtin_helpers.py)
    -> calls of that helper (a global of the kernel under a fresh alias), for the inliner.  The
    NumPy ones are chosen by the rank of their array argument, told here from the source alone
    (``_array_rank``); where it cannot be told the call is left to be refused."""

    def __init__(self, rw: Rewriter, local: set[str], tree: ast.AST | None = None) -> None:
        self.rw, self.local = rw, local
        self.aliases: dict[str, str] = {}
        self.local_ranks: dict[str, int] = {}  # locals bound once to a 1-d array or a scalar
        self.allocated: dict[str, list[ast.expr]] = {}  # locals bound once to np.zeros((n, m)) and friends
        self.any_ranks: dict[str, int] = {}  # locals bound once to a value of a rank told here
        self.made: dict[int, int] = {}  # id of a helper call made here -> the rank of its value
        self.counters: set[str] = set()
        self.unique_sized: set[str] = set()  # arrays of np.unique's length (_unique_sized)
        if tree is not None:  # one walk for both questions (the tree is not changed between them)
            stores: Counter[str] = Counter()
            augmented: Counter[str] = Counter()  # cdf /= cdf[-1]: an array keeps its shape
            loops: list[ast.For] = []
            assigns: list[ast.Assign] = []
            for n in walk(tree):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    stores[n.id] += 1
                elif isinstance(n, ast.For):
                    loops.append(n)
                elif isinstance(n, ast.Assign):
                    assigns.append(n)
                elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                    augmented[n.target.id] += 1
            self.counters = _range_counters(loops, stores)
            self._bind_local_ranks(assigns, stores - augmented)
            for name in augmented:  # s = 0.0; s += x makes a scalar an array: told only of arrays
                if self.local_ranks.get(name) == 0:
                    del self.local_ranks[name]
                if self.any_ranks.get(name) == 0:
                    del self.any_ranks[name]
            self.unique_sized = _unique_sized(assigns, stores, rw.globals)

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        """The statements visited, a statement made several where a visit returns a list."""
        out: list[ast.stmt] = []
        for stmt in stmts:
            new = self.visit(stmt)
            out.extend(new if isinstance(new, list) else [new])
        return out

    def visit_Expr(self, node: ast.Expr):
        loop = self._ufunc_at_loop(node.value)
        return loop if loop is not None else self.generic_visit(node)

    def _ufunc_at_loop(self, call: ast.expr) -> list[ast.stmt] | None:
        """``np.add.at(a, idx, b)`` (subtract, multiply, maximum, minimum) of a local 1-d ``idx``
        (``lab = np.argmin(D, axis=1)``; an argument's goes to the helper) -> NumPy's unbuffered
        loop written out, ``for k in range(idx.shape[0]): a[idx[k]] += b[k]`` (``b`` where it is a
        scalar or of a lower rank: a row of a 2-d ``a`` broadcast), each repeated index applied
        again; the lowering then refuses an index that is not an integer (a float or bool ``idx``,
        NumPy's IndexError or mask).  None for any other statement."""
        ops: dict[str, ast.operator | str] = {"add": ast.Add(), "subtract": ast.Sub(), "multiply": ast.Mult(),
                                              "maximum": "maximum", "minimum": "minimum"}
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "at"
                and isinstance(call.func.value, ast.Attribute) and call.func.value.attr in ops
                and isinstance(call.func.value.value, ast.Name) and call.func.value.value.id not in self.local
                and self.rw.globals.get(call.func.value.value.id) is np):
            return None
        given = self._given(call, ("a", "indices", "b")) or {}
        a, indices, b = given.get("a"), given.get("indices"), given.get("b")
        if isinstance(indices, ast.Tuple):
            return self._ufunc_at_pairs_loop(call, ops[call.func.value.attr], a, indices, b)
        if not (isinstance(a, ast.Name) and isinstance(indices, ast.Name) and b is not None) \
                or indices.id in self.rw.args or self._array_rank(indices) != 1:
            return None
        rank, b_rank = self._array_rank(a), self._array_rank(b)
        if rank not in (1, 2) or b_rank is None or b_rank > rank:
            return None
        made: list[ast.stmt] = []
        if b_rank == rank and not isinstance(b, ast.Name):  # np.maximum.at(m, lab, X[:, 0]): b bound first
            if a.id not in self.allocated and a.id not in self.rw.args \
                    or any(isinstance(n, ast.Name) and n.id == a.id for n in walk(b)):
                return None  # b might share a's memory
            bound = self.rw.fresh("at_values")
            made.append(ast.Assign([ast.Name(bound, ast.Store())], self.rw.copy(b)))
            b = ast.Name(bound, ast.Load())
        k = self.rw.fresh("at_k")

        def at(ctx: ast.expr_context) -> ast.Subscript:
            return ast.Subscript(ast.Name(a.id, ast.Load()), ast.Subscript(ast.Name(indices.id, ast.Load()),
                                                                            ast.Name(k, ast.Load()), ast.Load()), ctx)
        op = ops[call.func.value.attr]

        def update_loop(position: ast.expr | None) -> ast.For:  # b[position] (b itself: None)
            value = self.rw.copy(b) if position is None else ast.Subscript(self.rw.copy(b), position, ast.Load())
            body: list[ast.stmt] = [ast.AugAssign(at(ast.Store()), op, value) if isinstance(op, ast.operator) else
                                    ast.Assign([at(ast.Store())], ast.Call(ast.Attribute(
                                        ast.Name(self._numpy(), ast.Load()), str(op), ast.Load()),
                                        [at(ast.Load()), value], []))]
            return ast.For(ast.Name(k, ast.Store()), ast.Call(ast.Name("range", ast.Load()), [ast.Subscript(
                ast.Attribute(ast.Name(indices.id, ast.Load()), "shape", ast.Load()), ast.Constant(0), ast.Load())], []),
                body, [])
        loop: ast.stmt = update_loop(None)
        if b_rank == rank:  # b[k]; a b of one element broadcast, as NumPy's: b[0] (a branch on the sizes)
            one = ast.Compare(ast.Subscript(ast.Attribute(self.rw.copy(b), "shape", ast.Load()), ast.Constant(0),
                                            ast.Load()), [ast.Eq()], [ast.Constant(1)])
            loop = ast.If(one, [update_loop(ast.Constant(0))], [update_loop(ast.Name(k, ast.Load()))])
        if b_rank == rank and isinstance(b, ast.Name):  # NumPy's broadcast error where b has another length
            made.append(ast.parse(f"assert {b.id}.shape[0] == {indices.id}.shape[0] or {b.id}.shape[0] == 1, "
                                  "('ValueError', 'array is not broadcastable to correct shape (ufunc.at)')").body[0])
            checked = made[-1]
        made.append(loop)
        for stmt in made:
            for part in walk(stmt):
                if isinstance(part, (ast.expr, ast.stmt)):
                    ast.copy_location(part, call)
        if b_rank == rank and isinstance(b, ast.Name):
            self.rw.source.raises.add(location_key(checked))  # its ValueError kept, where it runs
        return made

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in NUMPY_HELPERS \
                and func.value.id not in self.local and self.rw.globals.get(func.value.id) is np:
            return self._numpy_helper(node, func.attr)
        if isinstance(func, ast.Attribute) and func.attr == "matrix_power" and isinstance(func.value, ast.Attribute) \
                and func.value.attr == "linalg" and isinstance(func.value.value, ast.Name) \
                and func.value.value.id not in self.local and self.rw.globals.get(func.value.value.id) is np:
            return self._matrix_power(node)
        if isinstance(func, ast.Attribute) and func.attr == "take_along_axis" and isinstance(func.value, ast.Name) \
                and func.value.id not in self.local and self.rw.globals.get(func.value.id) is np:
            return self._take_along_axis(node)
        if isinstance(func, ast.Attribute) and func.attr == "diag_indices" and isinstance(func.value, ast.Name) \
                and func.value.id not in self.local and self.rw.globals.get(func.value.id) is np:
            return self._diag_indices(node)
        if isinstance(func, ast.Attribute) and func.attr == "unravel_index" and isinstance(func.value, ast.Name) \
                and func.value.id not in self.local and self.rw.globals.get(func.value.id) is np:
            return self._unravel_index(node)
        if isinstance(func, ast.Attribute) and func.attr == "signbit" and isinstance(func.value, ast.Name) \
                and func.value.id not in self.local and self.rw.globals.get(func.value.id) is np \
                and len(node.args) == 1 and not node.keywords:
            return self._signbit(node)
        if isinstance(func, ast.Attribute) and func.attr == "reduceat" and isinstance(func.value, ast.Attribute) \
                and isinstance(func.value.value, ast.Name) and func.value.value.id not in self.local \
                and self.rw.globals.get(func.value.value.id) is np:
            return self._ufunc_reduceat(node, func.value.attr)
        if isinstance(func, ast.Attribute) and func.attr == "at" and isinstance(func.value, ast.Attribute) \
                and isinstance(func.value.value, ast.Name) and func.value.value.id not in self.local \
                and self.rw.globals.get(func.value.value.id) is np:
            return self._ufunc_at(node, func.value.attr)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in MATH_HELPERS \
                and func.value.id not in self.local and self.rw.globals.get(func.value.id) is math:
            name, helper = f"math_{func.attr}", MATH_HELPERS[func.attr]
        elif isinstance(func, ast.Name) and func.id in ONE_ARRAY_HELPERS and func.id not in self.local \
                and func.id not in self.rw.globals and len(node.args) == 1 and not node.keywords \
                and isinstance(node.args[0], ast.Name) and self._array_rank(node.args[0]) == 1:
            name, helper = f"{func.id}_of_array", ONE_ARRAY_HELPERS[func.id]  # max(x): Python's loop
        elif isinstance(func, ast.Name) and func.id in HELPERS and func.id not in self.local \
                and func.id not in self.rw.globals:
            name, helper = func.id, HELPERS[func.id]
            if func.id in ROW_HELPERS and node.args and self._rank(node.args[0]) >= 2:  # sum(A): rows added
                name, helper = f"{func.id}_rows", ROW_HELPERS[func.id]
        else:
            return node
        alias = self.aliases.get(name)
        if alias is None:
            alias = self.aliases[name] = self.rw.fresh(f"_pf_builtin_{name}")
            self.rw.globals[alias] = helper
        node.func = self.rw.placed(ast.Name(alias, ast.Load()), func)
        return node

    def _diag_indices(self, node: ast.Call) -> ast.expr:
        """``np.diag_indices(n, ndim=2)`` (a constant ``ndim``) -> ``(np.arange(n),) * ndim`` written
        out, NumPy's tuple of one index array per axis; other forms are left to be refused."""
        given = self._given(node, ("n", "ndim"))
        ndim = _constant(given.get("ndim", ast.Constant(2))) if given is not None else None
        if given is None or "n" not in given or type(ndim) is not int or ndim < 1:
            return node
        func = node.func
        assert isinstance(func, ast.Attribute)
        made = ast.Tuple([], ast.Load())
        self.rw.placed(made, node)
        for _ in range(ndim):
            arange = ast.Call(ast.Attribute(self.rw.copy(func.value), "arange", ast.Load()), [], [])
            self.rw.placed(arange, node)
            arange.args.append(self.rw.copy(given["n"]))  # (placed apart: n keeps its own location)
            made.elts.append(arange)
        return made

    def _ufunc_at_pairs_loop(self, call: ast.Call, op: ast.operator | str, a: ast.expr | None, indices: ast.Tuple,
                             b: ast.expr | None) -> list[ast.stmt] | None:
        """``np.add.at(H, (ix, iy), v)`` of a 2-d ``H`` and two local 1-d index arrays (``ix =
        np.minimum((x * nb).astype(np.int64), nb - 1)``; arguments go to the helper) -> NumPy's
        unbuffered loop ``H[ix[k], iy[k]] op= v`` (``v[k]`` of a 1-d ``v`` named; arrays of one
        element broadcast, as NumPy's, other lengths that differ NumPy's IndexError); the lowering
        refuses an index that is not an integer.  None for anything else."""
        names = [i.id for i in indices.elts if isinstance(i, ast.Name)]
        if b is None:
            return None
        b_rank = self._array_rank(b)
        if not isinstance(a, ast.Name) or self._array_rank(a) != 2 or len(names) != 2 or len(indices.elts) != 2 \
                or any(n in self.rw.args or self._array_rank(ast.Name(n, ast.Load())) != 1 for n in names) \
                or b_rank not in (0, 1) or b_rank == 1 and not isinstance(b, ast.Name) \
                or b_rank == 0 and any(isinstance(n, ast.Name) and n.id == a.id for n in walk(b)):
            return None
        rows, cols = names
        k = self.rw.fresh("at_k")
        arrays = [rows, cols] + ([ast.unparse(b)] if b_rank == 1 else [])
        n = f"max({', '.join(f'{v}.shape[0]' for v in arrays)})"  # NumPy broadcasts arrays of one element
        value = f"{ast.unparse(b)}[{k} % {ast.unparse(b)}.shape[0]]" if b_rank == 1 else f"({ast.unparse(b)})"
        target = f"{a.id}[{rows}[{k} % {rows}.shape[0]], {cols}[{k} % {cols}.shape[0]]]"
        symbols: dict[type, str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
        symbol = symbols.get(type(op), "")
        update = f"{target} {symbol}= {value}" if symbol else f"{target} = {self._numpy()}.{op}({target}, {value})"
        same = " and ".join(f"({v}.shape[0] == {n} or {v}.shape[0] == 1)" for v in arrays)
        text = (f"assert {same}, ('IndexError', 'shape mismatch: indexing arrays could not be broadcast together')\n"
                f"for {k} in range({n}):\n    {update}\n")
        made = ast.parse(text).body
        for stmt in made:
            for part in walk(stmt):
                if isinstance(part, (ast.expr, ast.stmt)):
                    ast.copy_location(part, call)
        self.rw.source.raises.add(location_key(made[0]))  # its IndexError kept, where it runs
        return made

    def _unravel_index(self, node: ast.Call) -> ast.expr:
        """``np.unravel_index(np.argmin(a), a.shape)`` (argmax; ``a.argmin()``) of an ``a`` of a
        rank told here: the tuple of ``np.int64(flat // (n1 * ... ) % n0)`` per axis, the flat
        position in range by construction (an empty ``a``: argmin's ValueError).  Other forms are
        left to be refused (a flat index out of range is NumPy's ValueError)."""
        if len(node.args) != 2 or node.keywords:
            return node
        flat, shape = node.args
        array = shape.value if isinstance(shape, ast.Attribute) and shape.attr == "shape" else None
        of = None
        if isinstance(flat, ast.Call) and isinstance(flat.func, ast.Attribute) and flat.func.attr in ("argmin", "argmax") \
                and not flat.keywords:
            numpy = isinstance(flat.func.value, ast.Name) and self.rw.globals.get(flat.func.value.id) is np
            of = flat.args[0] if numpy and len(flat.args) == 1 else flat.func.value if not numpy and not flat.args \
                else None
        rank = self._array_rank(array) if array is not None else None
        if of is None or array is None or ast.dump(of) != ast.dump(array) or not rank \
                or any(not isinstance(n, (ast.Name, ast.Attribute, ast.expr_context)) for n in walk(array)):
            return node
        np_name = self._numpy()
        parts: list[ast.expr] = []
        for d in range(rank):
            text = f"({ast.unparse(flat)})"
            inner = " * ".join(f"{ast.unparse(array)}.shape[{e}]" for e in range(d + 1, rank))
            text = f"{text} // ({inner})" if inner else text
            text = f"({text}) % {ast.unparse(array)}.shape[{d}]" if d else text
            parts.append(self.rw.placed(ast.parse(f"{np_name}.int64({text})", mode="eval").body, node))
        return self.rw.placed(ast.Tuple(parts, ast.Load()), node)

    def _signbit(self, node: ast.Call) -> ast.expr:
        """``np.signbit(x)`` -> ``np.copysign(1.0, x) < 0``: the sign bit of each real element
        (set for -0.0 and a negative NaN, as NumPy's; an integer's is its sign; a bool's never),
        through the elementwise copysign every target has; a bool of ``x``'s shape."""
        func = node.func
        assert isinstance(func, ast.Attribute)
        copysign = self.rw.placed(ast.Attribute(self.rw.copy(func.value), "copysign", ast.Load()), func)
        one = self.rw.placed(ast.Constant(1.0), node)
        signed = ast.Call(copysign, [one], [])
        self.rw.placed(signed, node)
        signed.args.append(node.args[0])  # (placed apart: the argument keeps its own location)
        test = ast.Compare(ast.Constant(0), [ast.Lt()], [ast.Constant(0)])
        self.rw.placed(test, node)
        test.left = signed
        return test

    def _matrix_power(self, node: ast.Call) -> ast.expr:
        """``np.linalg.matrix_power(A, n)`` of a named ``A`` and a constant ``1 <= n <= 64`` ->
        NumPy's products: ``A.copy()``, ``A @ A``, ``(A @ A) @ A``, then its binary decomposition
        (``z`` squared each bit, ``result @ z`` where the bit is set); other forms are left to be
        refused."""
        given = self._given(node, ("a", "n"))
        a, power = (given or {}).get("a"), (given or {}).get("n")
        n = int_constant(power) if power is not None else None
        if not isinstance(a, ast.Name) or n is None or not 1 <= n <= 64:
            return node

        def product(x: ast.expr, y: ast.expr) -> ast.expr:
            return self.rw.placed(ast.BinOp(x, ast.MatMult(), y), node)

        def name() -> ast.expr:
            return self.rw.placed(ast.Name(a.id, ast.Load()), a)

        if n == 1:
            return self.rw.placed(ast.Call(ast.Attribute(name(), "copy", ast.Load()), [], []), node)
        if n <= 3:
            return product(name(), name()) if n == 2 else product(product(name(), name()), name())
        z: ast.expr | None = None
        result: ast.expr | None = None
        while n > 0:
            z = name() if z is None else product(z, self.rw.copy(z))
            n, bit = divmod(n, 2)
            if bit:
                result = self.rw.copy(z) if result is None else product(result, self.rw.copy(z))
        assert result is not None
        return result

    def visit_Subscript(self, node: ast.Subscript):
        kth = self._partition_kth(node)
        if kth is not None:
            return kth
        self.generic_visit(node)
        index = node.slice
        if isinstance(index, ast.Call) and isinstance(index.func, ast.Attribute) and index.func.attr == "ix_" \
                and isinstance(index.func.value, ast.Name) and index.func.value.id not in self.local \
                and self.rw.globals.get(index.func.value.id) is np:
            node.slice = self._ix(index)
        return node

    def _partition_kth(self, node: ast.Subscript) -> ast.expr | None:
        """``np.partition(a, k)[k]`` of a 1-d ``a`` (``k`` the same names and numbers both times):
        the kth smallest, which is NumPy's whatever order introselect leaves the others in ->
        the helper ``numpy_partition_kth`` (np.sort(a)[k], a ValueError for a kth outside ``a``).
        None for anything else (refused: the other elements' order is introselect's own)."""
        call, k = node.value, node.slice
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "partition"
                and isinstance(call.func.value, ast.Name) and call.func.value.id not in self.local
                and self.rw.globals.get(call.func.value.id) is np and len(call.args) == 2 and not call.keywords
                and isinstance(node.ctx, ast.Load) and ast.dump(call.args[1]) == ast.dump(k)
                and all(isinstance(n, (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop,
                                       ast.expr_context)) for n in walk(k))
                and self._array_rank(call.args[0]) == 1):
            return None
        self.generic_visit(call)
        return self._helper_call(numpy_partition_kth, [call.args[0], k], call)

    def _ix(self, node: ast.Call) -> ast.expr:
        """``A[np.ix_(r, c)]`` -> ``A[r[:, None], c[None, :]]``: NumPy's open mesh, each 1-d
        integer array along its own axis (a bool array, which np.ix_ turns into positions, and
        arrays whose dtype is not told here are refused)."""
        rank = len(node.args)
        parts: list[ast.expr] = []
        for k, arg in enumerate(node.args):
            dtype = self.rw.dtypes.get(arg.id, "") if isinstance(arg, ast.Name) else ""
            if isinstance(arg, (ast.List, ast.Tuple)) and arg.elts and all(
                    isinstance(e, ast.Constant) and type(e.value) is int for e in arg.elts):
                array = ast.Attribute(ast.Name(self._numpy(), ast.Load()), "array", ast.Load())
                arg = self.rw.placed(ast.Call(array, [ast.List(list(arg.elts), ast.Load())], []), arg)
            elif not (dtype.startswith(("int", "uint")) and self.rw.ranks.get(arg.id if isinstance(arg, ast.Name)
                                                                            else "") == 1):
                raise self.rw.error(arg, "np.ix_() of other than 1-d integer arrays named by arguments (or lists "
                                    "of integer constants), used as an index: A[np.ix_(rows, cols)]", "np.ix_")
            items: list[ast.expr] = [ast.Slice(None, None, None) if d == k else ast.Constant(None)
                                     for d in range(rank)]
            parts.append(self.rw.placed(ast.Subscript(arg, ast.Tuple(items, ast.Load()), ast.Load()), node))
        if node.keywords or not parts:
            raise self.rw.error(node, "np.ix_() with keywords or no arrays", "np.ix_")
        return self.rw.placed(ast.Tuple(parts, ast.Load()), node)

    def _numpy_helper(self, node: ast.Call, name: str) -> ast.expr:
        """``np.interp(x, xp, fp, left=None, right=None)`` and ``np.searchsorted(a, v, side='left')``
        -> their helper for a scalar or a 1-d ``x`` (``v``), when the shapes can be told here
        (arguments, their elements and slices, numbers); otherwise left to be refused."""
        if name in _ORDER_CALLS:
            return self._order_helper(node, name)
        if name == "corrcoef":
            return self._corrcoef(node)
        names = {"interp": ("x", "xp", "fp", "left", "right"), "searchsorted": ("a", "v", "side"),
                 "polyval": ("p", "x"), "digitize": ("x", "bins", "right")}[name]
        given = self._given(node, names)
        required = {"interp": 3, "searchsorted": 2, "polyval": 2, "digitize": 2}[name]
        if given is None or not set(names[:required]) <= set(given):
            return node
        key = self._value_rank(given[{"searchsorted": "v"}.get(name, "x")])
        tables = [given[n] for n in {"interp": ("xp", "fp"), "searchsorted": ("a",), "polyval": ("p",),
                                     "digitize": ("bins",)}[name]]
        helper = None if key is None else NUMPY_HELPERS[name][key]
        if helper is None or any(self._kind(t) != 1 for t in tables):
            return node
        if name == "polyval":
            x = given["x"] if key == 1 else self._strong_scalar(given["x"])
            if x is None:
                return node
            args = [given["p"], x]
        elif name == "digitize":
            right = given.get("right", ast.Constant(False))
            if not (isinstance(right, ast.Constant) and isinstance(right.value, bool)):
                return node
            args = [given["x"], given["bins"], right]
        elif name == "interp":
            fp = given["fp"]
            ends = [given.get("left"), given.get("right")]
            if any(isinstance(e, ast.Constant) and e.value is None for e in ends):
                return node
            first = self.rw.placed(ast.Subscript(self.rw.copy(fp), ast.Constant(0), ast.Load()), node)
            last = self.rw.placed(ast.Subscript(self.rw.copy(fp), ast.UnaryOp(ast.USub(), ast.Constant(1)),
                                                ast.Load()), node)
            args = [given["x"], given["xp"], fp, ends[0] or first, ends[1] or last]
        else:
            side = given.get("side", ast.Constant("left"))
            if not (isinstance(side, ast.Constant) and side.value in ("left", "right")):
                return node
            args = [given["a"], given["v"], self.rw.placed(ast.Constant(side.value == "right"), node)]
        return self._helper_call(helper, args, node)

    def _strong_scalar(self, node: ast.expr) -> ast.expr | None:
        """``np.asanyarray(x)`` of a scalar ``x`` as a NumPy scalar: a number or a Python number
        argument cast to its default dtype (``np.float64(x)``), an array element or a NumPy
        scalar argument as it is; None where the kind cannot be told here."""
        kinds = {int: "int64", float: "float64", bool: "bool_", complex: "complex128"}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            kind = kinds.get(type(node.operand.value))
        elif isinstance(node, ast.Constant):
            kind = kinds.get(type(node.value))
        elif isinstance(node, ast.Name) and node.id in self.rw.scalar_kinds:
            numpy_scalar, python = self.rw.scalar_kinds[node.id]
            if numpy_scalar:
                return node
            kind = {"int": "int64", "float": "float64", "bool": "bool_", "complex": "complex128"}.get(python)
        elif isinstance(node, ast.Subscript) and self._kind(node) == 0:
            return node  # an element of an array argument: a NumPy scalar already
        else:
            return None
        if kind is None:
            return None
        cast = ast.Attribute(ast.Name(self.rw.numpy_alias(), ast.Load()), kind, ast.Load())
        return self.rw.placed(ast.Call(cast, [node], []), node)

    def _ufunc_reduceat(self, node: ast.Call, ufunc: str) -> ast.expr:
        """``np.add.reduceat(a, indices)`` (multiply, maximum, minimum) of a 1-d ``a`` and a 1-d integer
        ``indices`` -> NumPy's loop over the segments, each reduced in ``a``'s dtype in order
        (``a[indices[i]]`` itself where the segment is empty; an index outside ``a`` raises
        IndexError where it is read, as NumPy's)."""
        ops = ("add", "multiply", "maximum", "minimum")
        given = self._given(node, ("array", "indices"))
        a, indices = (given or {}).get("array"), (given or {}).get("indices")
        index_name = indices.id if isinstance(indices, ast.Name) else ""
        array_dtype = self.rw.dtypes.get(a.id, "") if isinstance(a, ast.Name) else ""
        bad_array = self.rw.ranks.get(getattr(a, "id", "")) != 1 or array_dtype in ("", "unknown") \
            or array_dtype.startswith("complex")
        bad_indices = not self.rw.dtypes.get(index_name, "").startswith(("int", "uint")) \
            or self.rw.ranks.get(index_name) != 1
        if ufunc not in ops or a is None or indices is None or bad_array or bad_indices:
            why = [f"{ast.unparse(a)} is not a 1-d real or bool array argument" if a is not None and bad_array
                   else "", f"{ast.unparse(indices)} is not a 1-d integer array argument" if indices is not None and bad_indices else ""]
            because = f" ({'; '.join(w for w in why if w)})" if any(why) else ""
            raise self.rw.error(node, f"np.{ufunc}.reduceat() here is not supported{because}; polyfuse supports "
                                f"{UFUNC_REDUCEAT}", "ufunc.reduceat")
        assert a is not None
        dtype = getattr(np, ufunc).reduceat(np.zeros(1, array_dtype), [0]).dtype.name  # (NumPy's: int64 for add of int8)
        cast = self.rw.placed(ast.Attribute(ast.Name(self.rw.numpy_alias(), ast.Load()),
                                            "bool_" if dtype == "bool" else dtype, ast.Load()), node)
        helper = NUMPY_HELPERS["ufunc.reduceat"][1]
        return self._helper_call(helper, [a, indices, self.rw.placed(ast.Constant(ops.index(ufunc)), node), cast],
                                 node)

    def _ufunc_at(self, node: ast.Call, ufunc: str) -> ast.expr:
        """``np.add.at(a, indices, b)`` (subtract, multiply, maximum, minimum) -> NumPy's unbuffered
        loop, ``a[indices[k]] += b[k]`` in index order (a repeated index applies each time, as in
        NumPy), with ``b`` a scalar or an array of ``a``'s rank (then one value per index)."""
        ops = ("add", "subtract", "multiply", "maximum", "minimum")
        given = self._given(node, ("a", "indices", "b"))
        a, indices, b = (given or {}).get("a"), (given or {}).get("indices"), (given or {}).get("b")
        if ufunc not in ops or a is None or indices is None or b is None:
            raise self.rw.error(node, f"np.{ufunc}.at() is not supported; polyfuse supports {UFUNC_AT}", "ufunc.at")
        rank, b_rank = self._array_rank(a), self._array_rank(b)
        if isinstance(indices, ast.Tuple):
            return self._ufunc_at_pairs(node, ufunc, a, indices, b)
        index_name = indices.id if isinstance(indices, ast.Name) else ""
        index_dtype = self.rw.dtypes.get(index_name, "")
        if rank not in (1, 2) or b_rank is None or b_rank > rank or not isinstance(a, ast.Name) \
                or not index_dtype.startswith(("int", "uint")) or self.rw.ranks.get(index_name) != 1 \
                or b_rank == rank and not isinstance(b, ast.Name):
            raise self.rw.error(node, f"np.{ufunc}.at() here is not supported (boolean or other index arrays, "
                                f"other ranks, an array value that is an expression); polyfuse supports {UFUNC_AT}",
                                "ufunc.at")
        helper = NUMPY_HELPERS["ufunc.at"][1] if b_rank == rank else NUMPY_HELPERS["ufunc.at"][0]
        assert helper is not None
        return self._helper_call(helper, [a, indices, b, self.rw.placed(ast.Constant(ops.index(ufunc)), node)], node)

    def _ufunc_at_pairs(self, node: ast.Call, ufunc: str, a: ast.expr, indices: ast.Tuple, b: ast.expr) -> ast.expr:
        """``np.add.at(C, (rows, cols), b)`` of a 2-d ``C`` (a confusion matrix's ``np.add.at(cm,
        (y_true, y_pred), 1)``) -> ``C[rows[k], cols[k]] op= b`` (or ``b[k]``) in index order."""
        ops = ("add", "subtract", "multiply", "maximum", "minimum")
        names = [i.id if isinstance(i, ast.Name) else "" for i in indices.elts]
        b_rank = self._array_rank(b)
        if self._array_rank(a) != 2 or not isinstance(a, ast.Name) or len(names) != 2 or b_rank not in (0, 1) \
                or any(not self.rw.dtypes.get(n, "").startswith(("int", "uint")) or self.rw.ranks.get(n) != 1
                       for n in names) or b_rank == 1 and not isinstance(b, ast.Name):
            raise self.rw.error(node, f"np.{ufunc}.at() here is not supported (index arrays other than two 1-d "
                                f"integer arrays named by arguments or locals, other ranks, an array value that is an "
                                f"expression); polyfuse supports {UFUNC_AT}", "ufunc.at")
        helper = NUMPY_HELPERS["ufunc.at_pairs"][b_rank]
        assert helper is not None
        rows, cols = indices.elts
        return self._helper_call(helper, [a, rows, cols, b, self.rw.placed(ast.Constant(ops.index(ufunc)), node)],
                                 node)

    def _take_along_axis(self, node: ast.Call) -> ast.expr:
        """``np.take_along_axis(a, indices, axis)`` of a named 1-d or 2-d ``a`` -> the fancy index
        NumPy builds for it (``_make_along_axis_idx``): ``a[np.arange(a.shape[0])[:, None],
        indices]`` for ``axis=1``, ``a[indices, np.arange(a.shape[1])[None, :]]`` for ``axis=0``,
        ``a[indices]`` of a vector (NumPy's wrap of negative indices, IndexError past the end)."""
        given = self._given(node, ("arr", "indices", "axis"))
        if given is None or not {"arr", "indices", "axis"} <= set(given):
            return node
        a, indices, axis = given["arr"], given["indices"], _axis(given["axis"])
        rank = self._array_rank(a)
        if not isinstance(a, ast.Name) or rank not in (1, 2) or self._array_rank(indices) != rank \
                or axis is None or axis is ... or type(axis) is not int or not -rank <= axis < rank:
            return node
        if rank == 1:
            return self.rw.placed(ast.Subscript(a, indices, ast.Load()), node)
        along = axis % 2
        np_name = self._numpy()
        other = ast.parse(f"{np_name}.arange({a.id}.shape[{1 - along}])[{':, None' if along else 'None, :'}]",
                          mode="eval").body
        parts = [self.rw.placed(other, node), indices] if along else [indices, self.rw.placed(other, node)]
        return self.rw.placed(ast.Subscript(a, ast.Tuple(parts, ast.Load()), ast.Load()), node)

    def _corrcoef(self, node: ast.Call) -> ast.expr:
        """``np.corrcoef(m)`` of a matrix, ``np.corrcoef(x, y)`` of two vectors (NumPy joins them as
        rows first, as ``np.cov`` does) -> NumPy's steps on ``np.cov``: the covariance divided by
        the standard deviations of the rows, then of the columns, clipped to [-1, 1]."""
        if node.keywords or not 1 <= len(node.args) <= 2:
            return node
        ranks = [self._array_rank(a) for a in node.args]
        if ranks == [2]:
            m = node.args[0]
        elif ranks == [1, 1]:
            vstack = self.rw.placed(ast.Attribute(ast.Name(self._numpy(), ast.Load()), "vstack", ast.Load()), node)
            m = self.rw.placed(ast.Call(vstack, [ast.Tuple(list(node.args), ast.Load())], []), node)
        else:
            return node
        helper = NUMPY_HELPERS["corrcoef"][1]
        call = self._helper_call(helper, [m], node)
        self.made[id(call)] = 2
        return call

    def _given(self, node: ast.Call, names: tuple[str, ...]) -> dict[str, ast.expr] | None:
        """Parameter -> argument of a call of a NumPy function with parameters ``names`` (None:
        more arguments than those, or a keyword that is not one of them)."""
        if len(node.args) > len(names) or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        given = dict(zip(names, node.args))
        for kw in node.keywords:
            if kw.arg is None or kw.arg not in names or kw.arg in given:
                return None
            given[kw.arg] = kw.value
        return given

    def _helper_call(self, helper: Callable, args: list[ast.expr], like: ast.Call) -> ast.Call:
        """A call of ``helper`` (a global of the kernel under a fresh alias) with ``args``."""
        alias = self.aliases.get(helper.__name__)
        if alias is None:
            alias = self.aliases[helper.__name__] = self.rw.fresh(f"_pf_{helper.__name__}")
            self.rw.globals[alias] = helper
        call = self.rw.placed(ast.Call(ast.Name(alias, ast.Load()), [], []), like)
        assert isinstance(call, ast.Call)
        call.args = args
        return call

    def _order_helper(self, node: ast.Call, name: str) -> ast.expr:
        value = self._order_value(node, name)
        if value is not node:
            rank = self._call_rank(node, ast.Name("np"), name) if name != "isin" else self._array_rank(
                node.args[0] if node.args else node.keywords[0].value)
            if rank is not None:
                self.made[id(value)] = rank
        return value

    def _order_value(self, node: ast.Call, name: str) -> ast.expr:
        """``np.sort``, ``np.argsort``, ``np.median``, ``np.quantile``, ``np.percentile`` and
        ``np.isin`` of an array whose rank is told here (1 or 2; ``axis=None`` and the quantiles
        of larger ranks through ``ravel()``) -> their helper; ``axis=0`` of a matrix is the row
        helper of its transpose, transposed back.  Anything else is left to be refused."""
        given = self._given(node, _ORDER_CALLS[name])
        if name == "argsort" and given is not None and "a" in given \
                and _reads_whole(given["a"], self.unique_sized):
            return node  # frontend/selection_loops writes it for the prefix the array is
        if given is None or not {"a", "element"} & set(given) or name in ("quantile", "percentile") \
                and "q" not in given or name == "isin" and "test_elements" not in given:
            return node
        a = given.get("a", given.get("element"))
        assert a is not None
        rank = self._array_rank(a)
        if rank is None or rank < 1:
            return node
        if name == "isin":
            return self._isin(node, given, a, rank)
        if not _constant_in(given.get("kind"), (None, "quicksort", "mergesort", "heapsort", "stable")):
            return node
        stable = [self.rw.placed(ast.Constant(str(_constant(given.get("kind"))) in ("stable", "mergesort")), node)]
        extra = stable if name == "argsort" else []
        axis = _axis(given.get("axis", ast.Constant(None if name in _NONE_AXIS else -1)))
        if name in ("quantile", "percentile"):
            return self._quantiles(node, name, given["q"], a, rank, axis)
        if axis is ...:
            return node
        if axis is None:
            return self._helper_call(NUMPY_HELPERS[name][1], [self._flat(a, rank, node)] + extra, node)
        if rank == 1 and axis in (0, -1):
            return self._helper_call(NUMPY_HELPERS[name][1], [a] + extra, node)
        if rank == 3 and isinstance(a, ast.Name) and axis in (-3, -2, -1, 0, 1, 2) \
                and name in ("sort", "argsort", "median", "nanmedian"):
            return self._order_of_three(node, name, a, axis % 3, extra)  # type: ignore[operator]
        if rank != 2 or axis not in (-2, -1, 0, 1):
            return node
        if axis in (-1, 1):
            return self._helper_call(NUMPY_ROW_HELPERS[name], [a] + extra, node)
        call = self._helper_call(NUMPY_ROW_HELPERS[name], [self._attribute(a, "T", node)] + extra, node)
        return self._attribute(call, "T", node) if name not in ("median", "nanmedian") else call

    def _order_of_three(self, node: ast.Call, name: str, a: ast.Name, axis: int, extra: list[ast.expr]) -> ast.expr:
        """``np.sort(a, axis=)`` (argsort, median, nanmedian) of a 3-d ``a`` named: the row helper of
        ``np.transpose(a, kept + (axis,))`` reshaped to rows (the sorted axis last, the other two in
        their order), its result reshaped back and transposed to ``a``'s axes (of the medians: the
        two kept axes, already in order), as NumPy orders each line along ``axis`` alone."""
        kept = [d for d in range(3) if d != axis]
        np_ = self.rw.numpy_alias()
        moved = f"{np_}.transpose({a.id}, ({kept[0]}, {kept[1]}, {axis}))"
        rows = f"{moved}.reshape({a.id}.shape[{kept[0]}] * {a.id}.shape[{kept[1]}], {a.id}.shape[{axis}])"
        call = self._helper_call(NUMPY_ROW_HELPERS[name], [self._parsed(rows, node)] + extra, node)
        if name in ("median", "nanmedian"):
            shape = f"({a.id}.shape[{kept[0]}], {a.id}.shape[{kept[1]}])"
            return self.rw.placed(ast.Call(self._attribute(call, "reshape", node), [self._parsed(shape, node)], []),
                                  node)
        back = ast.Call(self._attribute(call, "reshape", node), [self._parsed(
            f"({a.id}.shape[{kept[0]}], {a.id}.shape[{kept[1]}], {a.id}.shape[{axis}])", node)], [])
        inverse = tuple((kept + [axis]).index(d) for d in range(3))
        transpose = self._parsed(f"{np_}.transpose(0, {inverse})", node)
        assert isinstance(transpose, ast.Call)
        transpose.args[0] = self.rw.placed(back, node)
        return transpose

    def _parsed(self, text: str, like: ast.AST) -> ast.expr:
        """``text`` parsed as an expression, every node placed at ``like``."""
        made = ast.parse(text, mode="eval").body
        for part in ast.walk(made):
            if isinstance(part, ast.expr):
                self.rw.placed(part, like)
        return made

    def _quantiles(self, node: ast.Call, name: str, q: ast.expr, a: ast.expr, rank: int, axis: object) -> ast.expr:
        """``np.quantile(a, q, axis=)``: of the flattened ``a`` (``axis=None``), or per row (column)
        of a matrix; a list or tuple of ``q`` is ``np.array`` of one quantile each (``np.stack`` of
        one row of them each, with ``axis=``), as NumPy puts the quantiles' axis first."""
        qs = q.elts if isinstance(q, (ast.List, ast.Tuple)) else [q]
        fractions = [self._fraction(f, name, node) for f in qs]
        if not qs or any(f is None for f in fractions) or axis is ...:
            return node
        if axis is None or rank == 1 and axis in (0, -1):
            helper, source = NUMPY_HELPERS[name][1], self._flat(a, rank, node)
        elif rank == 2 and axis in (-2, -1, 0, 1):
            helper = NUMPY_ROW_HELPERS[name]
            source = a if axis in (-1, 1) else self._attribute(a, "T", node)
        else:
            return node
        if not isinstance(q, (ast.List, ast.Tuple)):
            assert fractions[0] is not None
            return self._helper_call(helper, [source, fractions[0]], node)
        float64 = self.rw.placed(ast.Attribute(ast.Name(self._numpy(), ast.Load()), "float64", ast.Load()), node)
        calls: list[ast.expr] = [  # NumPy's weight is a float64 array for a list of q: float64 results
            self._helper_call(helper, [self.rw.copy(source) if k else source,
                                       self.rw.placed(ast.Call(self.rw.copy(float64), [f], []), node)], node)
            for k, f in enumerate(fractions) if f is not None]
        joined = "array" if helper is NUMPY_HELPERS[name][1] else "stack"  # rows' quantiles: one row per q
        array = self.rw.placed(ast.Attribute(ast.Name(self._numpy(), ast.Load()), joined, ast.Load()), node)
        return self.rw.placed(ast.Call(array, [ast.List(calls, ast.Load())], []), node)

    def _numpy(self) -> str:
        return self.rw.numpy_alias()

    def _isin(self, node: ast.Call, given: dict[str, ast.expr], x: ast.expr, rank: int) -> ast.expr:
        """``np.isin(x, t, invert=)`` of a 1-d ``x`` (a larger one through ``ravel()`` and back)."""
        test = given["test_elements"]
        test_rank = self._array_rank(test)
        invert = given.get("invert", ast.Constant(False))
        if test_rank is None or test_rank < 1 or not _constant_in(invert, (False, True)) \
                or not _constant_in(given.get("assume_unique"), (None, False, True)):
            return node
        args = [self._flat(x, rank, node), self._flat(test, test_rank, node),
                self.rw.placed(ast.Constant(_constant(invert) is True), node)]
        call = self._helper_call(NUMPY_HELPERS["isin"][1], args, node)
        if rank == 1:
            return call
        shape = self._attribute(self.rw.copy(x), "shape", node)
        reshape = self._attribute(call, "reshape", node)
        return self.rw.placed(ast.Call(reshape, [shape], []), node)

    def _fraction(self, q: ast.expr, name: str, node: ast.Call) -> ast.expr | None:
        """The quantile as a float in [0, 1]: a number (NumPy's range checked here), or a float
        argument divided by 100 for ``np.percentile`` (its range asserted where the helper runs)."""
        scale = 100 if name == "percentile" else 1
        value = q.value if isinstance(q, ast.Constant) else None
        if isinstance(value, (int, float)) and type(value) in ((int, float) if scale == 100 else (float,)):
            if not 0 <= value <= scale:
                raise self.rw.error(q, f"np.{name}() of {value!r}: NumPy raises ValueError "
                                    f"(the range is [0, {scale}])", f"np.{name}")
            return self.rw.placed(ast.Constant(value / scale if scale == 100 else value), q)
        if not (self._float_scalar(q) or scale == 100 and self._array_rank(q) == 0):
            return None
        if scale == 1:
            return q
        return self.rw.placed(ast.BinOp(q, ast.Div(), ast.Constant(100)), q)

    def _float_scalar(self, node: ast.expr) -> bool:
        """Whether ``node`` is a float scalar made of float arguments, numbers, + - * /."""
        if isinstance(node, ast.Constant):
            return type(node.value) is float
        if isinstance(node, ast.Name):
            return node.id in self.rw.args and node.id not in self.rw.ints and node.id not in self.rw.ranks
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return self._float_scalar(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            parts = (node.left, node.right)
            return all(self._array_rank(p) == 0 for p in parts) \
                and (isinstance(node.op, ast.Div) or any(self._float_scalar(p) for p in parts))
        return False

    def _flat(self, a: ast.expr, rank: int, like: ast.AST) -> ast.expr:
        """``a`` of rank 1, or ``a.ravel()`` (NumPy's flattening of a larger array)."""
        if rank == 1:
            return a
        return self.rw.placed(ast.Call(self._attribute(a, "ravel", like), [], []), like)

    def _attribute(self, value: ast.expr, attr: str, like: ast.AST) -> ast.expr:
        return self.rw.placed(ast.Attribute(value, attr, ast.Load()), like)

    def _array_rank(self, node: ast.expr) -> int | None:
        """The rank of an array value where told here: arguments, locals bound once to one,
        allocations, their slices and elements, arithmetic and ufuncs of those and of numbers,
        ``.T``, ``.copy()``.  None where not told."""
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return 0
        if isinstance(node, ast.Name):
            if node.id in self.rw.ranks:
                return self.rw.ranks[node.id]
            if node.id in self.counters or node.id in self.rw.args:
                return 0
            if node.id in self.allocated or node.id in self.rw.local_extents:
                return self._rank(node)
            return self.any_ranks.get(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self._array_rank(node.operand)
        if id(node) in self.made:
            return self.made[id(node)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            left, right = self._array_rank(node.left), self._array_rank(node.right)
            if left not in (1, 2) or right not in (1, 2) or left is None or right is None:
                return None
            return left + right - 2  # (2, 2): 2, (2, 1) and (1, 2): 1, (1, 1): 0
        if isinstance(node, ast.BinOp):
            return _broadcast_rank([self._array_rank(node.left), self._array_rank(node.right)])
        if isinstance(node, ast.Attribute) and node.attr == "T":
            return self._array_rank(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return self._call_rank(node, node.func.value, node.func.attr)
        if isinstance(node, ast.Subscript):
            rank = self._array_rank(node.value)
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            added = sum(isinstance(p, ast.Constant) and p.value is None for p in parts)
            if rank is None or rank == 0 or len(parts) - added > rank:
                return None
            arrays = 0
            for part in parts:
                if isinstance(part, ast.Slice):
                    continue
                if isinstance(part, ast.Constant) and part.value is None:
                    rank += 1
                    continue
                if self._array_rank(part) == 1 and not isinstance(part, ast.Constant) and not self._boolean(part):
                    arrays += 1  # one 1-d integer index array (b[order]): that axis stays one axis
                    continue
                if self._array_rank(part) != 0 or isinstance(part, ast.Constant) and type(part.value) is not int:
                    return None
                rank -= 1
            return rank if arrays <= 1 else None
        return None

    def _boolean(self, node: ast.expr) -> bool:
        """Whether ``node`` is a boolean mask as written (a bool argument, a comparison, ``~ & | ^``
        of masks, ``np.isnan`` and friends), whose selection's length depends on the data: its
        rank is left untold, as before fe34, so such a selection keeps its own refusals."""
        if isinstance(node, ast.Name):
            return self.rw.dtypes.get(node.id) == "bool"
        if isinstance(node, (ast.Compare, ast.BoolOp)) or isinstance(node, ast.UnaryOp) \
                and isinstance(node.op, (ast.Not, ast.Invert)):
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            return True
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
            "isnan", "isfinite", "isinf", "logical_and", "logical_or", "logical_not", "logical_xor", "signbit")

    def _kind(self, node: ast.expr) -> int | None:
        """0 for a scalar, 1 for a 1-d array, None where it cannot be told before the lowering: an
        argument, a number, an element or a slice of an array argument."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            return 0
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return self._kind(node.operand)
        if isinstance(node, ast.BinOp) or isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and self.rw.globals.get(node.func.value.id) is np \
                and not node.keywords and isinstance(getattr(np, node.func.attr, None), np.ufunc):
            # arithmetic and ufuncs of scalars (an array expression is not passed to a helper)
            parts = [node.left, node.right] if isinstance(node, ast.BinOp) else node.args
            return 0 if parts and all(self._kind(p) == 0 for p in parts) else None
        if isinstance(node, ast.Name) and node.id in self.counters:
            return 0
        if isinstance(node, ast.Name) and node.id in self.local_ranks:
            return self.local_ranks[node.id]
        if isinstance(node, ast.Name) and node.id not in self.rw.args and self.any_ranks.get(node.id) == 1:
            return 1  # a local bound once to a 1-d array (edges = np.quantile(x, [0.25, 0.5, 0.75]))
        if isinstance(node, ast.Name) and node.id in self.rw.args:
            return self.rw.ranks.get(node.id, 0) if self.rw.ranks.get(node.id, 0) <= 1 else None
        ranks = {**self.rw.ranks, **{k: v for k, v in self.local_ranks.items() if v == 1}}
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in ranks:
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if len(parts) != ranks[node.value.id] or any(isinstance(p, ast.Starred) for p in parts) \
                    or any(isinstance(p, ast.Constant) and p.value in (None, Ellipsis) for p in parts):
                return None
            slices = sum(isinstance(p, ast.Slice) for p in parts)
            indexed = [self._array_rank(p) for p in parts if not isinstance(p, ast.Slice)]
            if any(r is not None and r > 0 for r in indexed):
                # an index array among them (w[idx]: advanced indexing, a 1-d idx gives a 1-d value)
                return 1 if not slices and indexed.count(1) == 1 and indexed.count(0) == len(indexed) - 1 \
                    else None
            return slices if slices <= 1 else None
        return None

    def _bind_local_ranks(self, assigns: list[ast.Assign], stores: Counter[str]) -> None:
        """``local_ranks``: the names bound once, by ``name = value``, to a value whose rank is told
        here (``xp = np.linspace(0, 1, n)``, ``d = np.abs(x - m)``, ``s = np.sort(x)``); ``assigns``:
        the tree's assignments in walk order, ``stores``: how often it stores each name."""
        assigns = sorted((n for n in assigns if len(n.targets) == 1
                          and isinstance(n.targets[0], ast.Name) and stores[n.targets[0].id] == 1
                          and n.targets[0].id not in self.rw.args), key=lambda n: (n.lineno, n.col_offset))
        for node in assigns:
            assert isinstance(node.targets[0], ast.Name)
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr in ALLOCATORS and value.args:
                dims = _allocated_extents(self.rw, value, self.allocated)
                if dims is not None:
                    self.allocated[node.targets[0].id] = dims
            rank = self._value_rank(node.value)
            if rank is not None:
                self.local_ranks[node.targets[0].id] = rank
            any_rank = self._array_rank(node.value)
            if any_rank is not None:
                self.any_ranks[node.targets[0].id] = any_rank

    def _call_rank(self, node: ast.Call, owner: ast.expr, attr: str) -> int | None:
        """The rank of a NumPy call's or an array method's value, where told here."""
        keywords = {kw.arg for kw in node.keywords}
        if not (isinstance(owner, ast.Name) and self.rw.globals.get(owner.id) is np):  # a method
            if attr in ("copy", "astype", "clip", "round", "ravel", "flatten") and keywords <= {"decimals"}:
                return 1 if attr in ("ravel", "flatten") else self._array_rank(owner)
            return self._reduced_rank(self._array_rank(owner), attr, node, 0)
        if not node.args:
            return None
        first = self._array_rank(node.args[0])
        if attr in _FULL_REDUCTIONS:
            return self._reduced_rank(first, attr, node, 1)
        if isinstance(getattr(np, attr, None), np.ufunc) and not keywords:
            return _broadcast_rank([self._array_rank(a) for a in node.args])
        if attr in ("where", "clip"):
            return _broadcast_rank([self._array_rank(a) for a in node.args])
        if attr in ("sort", "argsort") and _axis(_keyword(node, "axis", 1, ast.Constant(-1))) is None:
            return 1
        if attr in ("round", "around", "copy", "sort", "argsort", "cumsum", "cumprod", "abs", "absolute", "isin",
                    "diff") and keywords <= {"decimals", "axis", "kind", "invert", "n"}:
            return first
        if attr == "pad" and keywords <= {"mode", "constant_values"}:
            return first  # np.pad(a, width): a's rank
        if attr in ("median", "nanmedian") and len(node.args) + len(keywords) == 2 and keywords <= {"axis"}:
            return None if first is None or _axis(_keyword(node, "axis", 1, None)) is ... else first - 1
        if attr in ("linspace", "arange"):
            return 1
        if attr in ("array", "asarray") and len(node.args) == 1 and keywords <= {"dtype"} \
                and isinstance(node.args[0], (ast.List, ast.Tuple)) and node.args[0].elts \
                and all(self._array_rank(e) == 0 for e in node.args[0].elts):
            return 1  # np.array([3.0, 2.0, 1.0]): a list of numbers
        if attr in ("argmax", "argmin") and first is not None and keywords <= {"axis", "keepdims"} \
                and len(node.args) <= 2:
            axis = _axis(_keyword(node, "axis", 1, ast.Constant(None)))
            keep = _keyword(node, "keepdims", 2, ast.Constant(False))
            if axis is ... or not _constant_in(keep, (False, True)):
                return None
            return first if _constant(keep) is True else 0 if axis is None else first - 1
        if attr in ("quantile", "percentile") and not keywords and len(node.args) == 2:
            q = node.args[1]  # a list of numbers: one quantile each, a 1-d array
            if isinstance(q, (ast.List, ast.Tuple)) and q.elts and all(self._array_rank(e) == 0 for e in q.elts):
                return 1
            return 0 if self._array_rank(q) == 0 else None
        if attr == "stack" and keywords <= {"axis"} and len(node.args) == 1 \
                and isinstance(node.args[0], (ast.List, ast.Tuple)) and node.args[0].elts:
            ranks = {self._array_rank(e) for e in node.args[0].elts}  # np.stack([x[:-2], x[1:-1], x[2:]])
            rank = ranks.pop() if len(ranks) == 1 else None
            return None if rank is None else rank + 1
        return None

    @staticmethod
    def _reduced_rank(rank: int | None, attr: str, node: ast.Call, position: int) -> int | None:
        """The rank of a reduction's value (``axis=`` one integer or none, ``keepdims=`` a constant,
        ``ddof=`` of std and var; no other options): ``keepdims=True`` keeps the rank."""
        allowed = {"axis", "keepdims", "ddof"} if attr in ("std", "var") else {"axis", "keepdims"}
        if attr not in _FULL_REDUCTIONS or rank is None or {kw.arg for kw in node.keywords} - allowed \
                or len(node.args) > position + 1:
            return None
        axis = _axis(_keyword(node, "axis", position, None) or ast.Constant(None))
        keep = _constant(next((kw.value for kw in node.keywords if kw.arg == "keepdims"), None))
        if keep not in (None, False, True) or axis is ... or type(axis) is int and not -rank <= axis < rank:
            return None
        if keep:
            return rank
        return 0 if axis is None else rank - 1 if rank >= 1 else None

    def _value_rank(self, node: ast.expr) -> int | None:
        """The rank (0 or 1) of a value bound to a local, where told without the lowering."""
        if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
            return _broadcast_rank([self._value_rank(node.left), self._value_rank(node.right)])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
            owner, name = node.func.value, node.func.attr
            if isinstance(owner, ast.Name) and self.rw.globals.get(owner.id) is np and node.args:
                if name in ("linspace", "arange"):
                    return 1
                if name in ("zeros", "ones", "empty", "full"):
                    return 1 if self._value_rank(node.args[0]) == 0 else None
                if isinstance(getattr(np, name, None), np.ufunc) or name in ("sort", "cumsum", "cumprod", "copy",
                                                                           "zeros_like", "ones_like", "empty_like"):
                    return _broadcast_rank([self._value_rank(a) for a in node.args[:1 if "_like" in name else None]])
                if name in ("sum", "prod", "mean", "median", "max", "min", "std", "var", "ptp") and len(node.args) == 1:
                    return 0  # a full reduction: a scalar
                if name in ("concatenate", "hstack") and len(node.args) == 1 \
                        and isinstance(node.args[0], (ast.List, ast.Tuple)) and node.args[0].elts:
                    parts = [self._value_rank(e) for e in node.args[0].elts]
                    return 1 if all(p == 1 for p in parts) else None  # joins of vectors: a vector
                if name == "append" and len(node.args) == 2:  # (no axis: both flattened)
                    return 1 if all(self._value_rank(a) in (0, 1) for a in node.args) else None
            if name == "copy" and not node.args:
                return self._value_rank(owner)
        return self._kind(node)

    def _rank(self, node: ast.expr) -> int:
        """The rank of an array argument or kernel-local array named by ``node`` (0: unknown)."""
        if not isinstance(node, ast.Name):
            return 0
        extents = self.rw.local_extents.get(node.id) or self.allocated.get(node.id)
        return len(extents) if extents is not None else self.rw.ranks.get(node.id, 0)


#: the keyword numba_idioms marks np.gradient(f, h, axis=k) with when one ``h`` came for every axis of
#: ``gy, gx = np.gradient(f, h)`` (a scalar in NumPy; the lowering refuses coordinates there)
SHARED_SPACING = "pf_shared_spacing"
_FULL_REDUCTIONS = frozenset(("sum", "prod", "mean", "median", "max", "min", "std", "var", "ptp", "amax", "amin"))
_NONE_AXIS = ("median", "nanmedian", "quantile", "percentile")  # the calls whose axis defaults to None
#: NumPy functions of a sorted order (frontend/builtin_helpers.py) -> their parameters
_SIZE_READS = ("sum", "prod", "max", "min", "mean", "argmax", "argmin", "amax", "amin", "shape", "size", "dtype")


def _reads_whole(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` reads an array named in ``names`` other than through its length
    (``len(u)``, ``u.shape``, ``u.size``) or a reduction (``c.sum()``, ``np.max(c)``)."""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute) and node.attr in _SIZE_READS and isinstance(node.value, ast.Name):
        return False
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) \
            and (node.func.id == "len" if isinstance(node.func, ast.Name) else node.func.attr in _SIZE_READS) \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
        return False
    return any(_reads_whole(child, names) for child in ast.iter_child_nodes(node))


def _unique_sized(assigns: list[ast.Assign], stores: Counter[str], globals_: dict) -> set[str]:
    """The names bound once to ``np.unique(x)``, to an allocation of its length (``counts =
    np.zeros(len(u))``) and to values that read those arrays whole (``-counts``, ``s / counts``),
    in the order bound: the arrays of np.unique's length, whose ``np.argsort`` the first helpers'
    pass leaves to frontend/selection_loops (an argsort of the prefix the array is there)."""
    sized: set[str] = set()
    for node in sorted(assigns, key=lambda n: (n.lineno, n.col_offset)):
        if not (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and stores[node.targets[0].id] == 1):
            continue
        value = node.value
        unique = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr == "unique" and module_of(value.func.value, globals_) == "np"
        allocated = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in ALLOCATORS and module_of(value.func.value, globals_) == "np" and bool(value.args) \
            and any(isinstance(n, ast.Name) and n.id in sized for n in walk(value.args[0]))
        if unique or allocated or _reads_whole(value, sized):
            sized.add(node.targets[0].id)
    return sized


_ORDER_CALLS = {"sort": ("a", "axis", "kind"), "argsort": ("a", "axis", "kind"), "median": ("a", "axis"),
                "nanmedian": ("a", "axis"),
                "quantile": ("a", "q", "axis"), "percentile": ("a", "q", "axis"),
                "isin": ("element", "test_elements", "assume_unique", "invert")}


def _keyword(node: ast.Call, name: str, position: int, default: ast.expr | None) -> ast.expr | None:
    """The argument of parameter ``name`` (at ``position``) of a call, or ``default``."""
    for kw in node.keywords:
        if kw.arg == name:
            return kw.value
    return node.args[position] if len(node.args) > position else default


def _axis(node: ast.expr | None) -> object:
    """An ``axis=`` argument: None, an integer constant (``-1`` too), or ``...`` for anything else."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) is int:
        return -node.operand.value
    if isinstance(node, ast.Constant) and (node.value is None or type(node.value) is int):
        return node.value
    return ...


def _constant(node: ast.expr | None) -> object:
    return None if node is None else node.value if isinstance(node, ast.Constant) else ...


def _constant_in(node: ast.expr | None, allowed: tuple) -> bool:
    """Whether ``node`` is absent (None) or a constant among ``allowed``."""
    value = _constant(node)
    return value is not ... and any(value is a or type(value) is type(a) and value == a for a in allowed)


def _broadcast_rank(ranks: list[int | None]) -> int | None:
    """The rank of an element-wise value of operands of ``ranks`` (None: not told)."""
    known = [r for r in ranks if r is not None]
    return max(known) if known and len(known) == len(ranks) else None


def _range_counters(loops: list[ast.For], bound: Counter[str]) -> set[str]:
    """The names bound only as the targets of ``for ... in range(...)`` loops: integers
    (``loops``: a tree's ``for`` loops, ``bound``: how often it stores each name)."""
    ranged = Counter(n.target.id for n in loops if isinstance(n.target, ast.Name) and isinstance(n.iter, ast.Call)
                     and isinstance(n.iter.func, ast.Name) and n.iter.func.id == "range")
    return {name for name, count in ranged.items() if bound[name] == count}


class GeneratorLoops(ast.NodeTransformer):
    """``for v in (E for t in it if c): body`` (a helper's loop over a generator argument:
    ``sum(x[i] * y[i] for i in range(n))``) -> ``for t2 in it: if c: body`` with ``E`` in the
    place of its one read of ``v`` (or ``v = E`` first, without a filter), the generator's names
    renamed to fresh ones (its scope is its own).  One generator, names as targets; anything
    else is left to be refused."""

    def __init__(self, rw: Rewriter) -> None:
        self.rw = rw

    def visit_For(self, node: ast.For):
        self.generic_visit(node)
        gen = node.iter
        if not (isinstance(gen, ast.GeneratorExp) and len(gen.generators) == 1 and not node.orelse
                and not gen.generators[0].is_async):
            return node
        comp = gen.generators[0]
        names = [t for t in walk(comp.target) if isinstance(t, ast.Name)]
        if not names or not all(isinstance(t, (ast.Name, ast.Tuple)) for t in walk(comp.target)
                                if isinstance(t, ast.expr)):
            return node
        renames = {t.id: self.rw.fresh(f"{t.id}_g") for t in names}
        target = _rename_names(self.rw.copy(comp.target), renames)
        element = _rename_names(self.rw.copy(gen.elt), renames)
        uses = [n for s in node.body for n in walk(s) if isinstance(n, ast.Name)
                and isinstance(node.target, ast.Name) and n.id == node.target.id]
        body: list[ast.stmt]
        # E where v is read, when the body writes no array (which could change what E reads
        # between the generator's step and that read)
        writes = any(isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
                     for s in node.body for n in walk(s))
        if len(uses) == 1 and isinstance(uses[0].ctx, ast.Load) and not writes:
            body = [_Substitute({uses[0].id: element}).visit(s) for s in node.body]
        elif comp.ifs:
            return node  # (a local assigned under the filter: refused as read before assigned)
        else:
            body = [ast.copy_location(ast.Assign([node.target], element), node), *node.body]
        for test in reversed(comp.ifs):
            body = [ast.copy_location(ast.If(_rename_names(self.rw.copy(test), renames), body, []), test)]
        return ast.copy_location(ast.For(target, comp.iter, body, [], None), node)


class _Substitute(ast.NodeTransformer):
    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        value = self.values.get(node.id)
        return node if value is None or not isinstance(node.ctx, ast.Load) else value


def _rename_names(node: ast.expr, renames: dict[str, str]) -> ast.expr:
    for sub in walk(node):
        if isinstance(sub, ast.Name) and sub.id in renames:
            sub.id = renames[sub.id]
    return node


class Divmod(ast.NodeTransformer):
    """``divmod(a, b)`` (the builtin) and ``np.divmod(a, b)`` -> the display ``(a // b, a % b)``,
    which Python's divmod equals for ints and floats and NumPy's for arrays and NumPy scalars (its
    floor_divide and remainder, by the same npy_divmod); ``q, r = divmod(k, w)`` is then a tuple of
    values."""

    def __init__(self, rw: Rewriter, local: set[str]) -> None:
        self.rw, self.local = rw, local
        self.made: set[int] = set()  # the displays made here (by id): subscripts of them are folded

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        func = node.func
        builtin = isinstance(func, ast.Name) and func.id == "divmod" and func.id not in self.local \
            and func.id not in self.rw.globals
        numpy = isinstance(func, ast.Attribute) and func.attr == "divmod" and isinstance(func.value, ast.Name) \
            and func.value.id not in self.local and self.rw.globals.get(func.value.id) is np
        if not (builtin or numpy) or len(node.args) != 2 or node.keywords:  # np.divmod: np.floor_divide, np.remainder
            return node
        a, b = node.args
        parts: list[ast.expr] = [self.rw.placed(ast.BinOp(self.rw.copy(a), op, self.rw.copy(b)), node)
                                 for op in (ast.FloorDiv(), ast.Mod())]
        made = self.rw.placed(ast.Tuple(parts, ast.Load()), node)
        self.made.add(id(made))
        if builtin:  # (its ZeroDivisionError of floats: Python's divmod's, frontend.scalars)
            self.rw.source.divmods.add(location_key(node))
        return made

    def visit_Subscript(self, node: ast.Subscript):
        """``divmod(a, b)[0]`` -> ``a // b`` (``[1]``, ``[-1]``: ``a % b``)."""
        self.generic_visit(node)
        index = node.slice
        if id(node.value) in self.made and isinstance(index, ast.Constant) and type(index.value) is int \
                and -2 <= index.value < 2:
            assert isinstance(node.value, ast.Tuple)
            return node.value.elts[index.value]
        return node


# ---- global constants ------------------------------------------------------------------------

def constant_value(obj) -> bool:
    """Whether a global is a constant the kernel may read (numbers only; not modules, functions)."""
    return type(obj) in (int, float, bool) or isinstance(obj, (np.number, np.bool_))


def function_locals(tree: ast.FunctionDef) -> set[str]:
    """Parameters and every name the function assigns (Python makes those local everywhere)."""
    names = {a.arg for a in tree.args.args}
    names.update(n.id for n in walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return names


def _breaks(body: list[ast.stmt]) -> bool:
    """Whether ``body`` has a ``break`` or ``continue`` of its own loop (not of a loop inside)."""
    for stmt in body:
        if isinstance(stmt, (ast.Break, ast.Continue)):
            return True
        if isinstance(stmt, (ast.For, ast.While)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt) and _breaks(inner):
                return True
    return False


def _root_name(node: ast.expr) -> str | None:
    """The name under ``x``, ``x[...]``, ``x.attr``."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _number_row(node: ast.expr) -> Any:
    """The number a constant (``-1`` too) stands for, or the list of a tuple of them; None else."""
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [_number_row(e) for e in node.elts]
        return items if items and all(type(v) in (int, float) for v in items) else None
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and type(node.value) is not bool:
        return sign * node.value
    return None


def _select(counter: str, values: list) -> ast.expr:
    """``values[0] if counter == 0 else (values[1] if counter == 1 else ...)``."""
    out: ast.expr = ast.Constant(values[-1]) if values[-1] >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-values[-1]))
    for k in range(len(values) - 2, -1, -1):
        v = values[k]
        item = ast.Constant(v) if v >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-v))
        test = ast.Compare(ast.Name(counter, ast.Load()), [ast.Eq()], [ast.Constant(k)])
        out = ast.IfExp(test, item, out)
    return out


def _fixed_value(node: ast.expr, assigned: set[str]) -> bool:
    """Whether ``node`` is arithmetic of constants, sizes (``x.shape[0]``) and names outside
    ``assigned``: a value that does not change while a loop whose body assigns ``assigned`` runs."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float, bool, complex)
    if isinstance(node, ast.Name):
        return isinstance(node.ctx, ast.Load) and node.id not in assigned
    if isinstance(node, ast.UnaryOp):
        return _fixed_value(node.operand, assigned)
    if isinstance(node, ast.BinOp):
        return _fixed_value(node.left, assigned) and _fixed_value(node.right, assigned)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return int_constant(node.slice) is not None and _fixed_value(node.value.value, assigned)
    return False


def _choice(counter: str, values: list[ast.expr]) -> ast.expr:
    """``values[0] if counter == 0 else (values[1] if counter == 1 else ...)`` of expressions."""
    out = copy.deepcopy(values[-1])
    for k in range(len(values) - 2, -1, -1):
        test = ast.Compare(ast.Name(counter, ast.Load()), [ast.Eq()], [ast.Constant(k)])
        out = ast.IfExp(test, copy.deepcopy(values[k]), out)
    return out


def _display(value: tuple) -> ast.Tuple:
    return ast.Tuple([_display(v) if type(v) is tuple else ast.Constant(v) for v in value], ast.Load())


class StatementTransformer(ast.NodeTransformer):
    """A transformer whose statement visitors may return several statements for one."""

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            new = self.visit(stmt)
            out.extend(new if isinstance(new, list) else [new])
        return out


def _constant_truth(test: ast.expr) -> bool | None:
    """Python's truth of a test that is a number constant (or ``not`` of one); None otherwise."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _constant_truth(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Constant) and type(test.value) in (bool, int, float):
        return bool(test.value)
    return None


class Constants(StatementTransformer):
    """Reads of global number constants -> the constants (see the module docstring); a statement
    may become several (an unpacked table row)."""

    def __init__(self, rw: Rewriter, globals_: dict, local: set[str]) -> None:
        self.rw, self.globals, self.local = rw, globals_, local

    def visit_Name(self, node: ast.Name):
        if not isinstance(node.ctx, ast.Load) or node.id in self.local or node.id not in self.globals:
            return node
        value = self.globals[node.id]
        if number_tuple(value) is not None:  # OFFSETS = (-1, 0, 1): the display of its numbers
            return self.rw.placed(ast.Tuple([ast.Constant(v) for v in value], ast.Load()), node)
        if number_table(value) is not None:  # a whole table (len(DIRS)): nested displays
            return self.rw.placed(_display(value), node)
        if not constant_value(value):
            return node
        if type(value) in (int, float, bool):
            return self.rw.placed(ast.Constant(value), node)
        alias = self.rw.numpy_alias()
        call = ast.Call(ast.Attribute(ast.Name(alias, ast.Load()), type(value).__name__, ast.Load()),
                        [ast.Constant(value.item())], [])
        return self.rw.placed(call, node)

    def visit_IfExp(self, node: ast.IfExp):
        self.generic_visit(node)
        truth = _constant_truth(node.test)
        return node if truth is None else node.body if truth else node.orelse

    def visit_If(self, node: ast.If):
        self.generic_visit(node)
        truth = _constant_truth(node.test)
        if truth is None:
            return node
        taken = node.body if truth else node.orelse
        if any(isinstance(n, (ast.Return, ast.Break, ast.Continue)) for n in walk(ast.Module(taken, []))):
            return node  # where the rest of the block runs: left to the lowering's own handling
        return taken or ast.copy_location(ast.Pass(), node)

    def _tuple(self, node: ast.expr) -> tuple | None:
        """The value of a global tuple of numbers that ``node`` names."""
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in self.local \
                and number_tuple(self.globals.get(node.id)) is not None:
            return self.globals[node.id]
        return None

    def _table(self, node: ast.expr) -> tuple[ast.Name, list[ast.expr], tuple[type, tuple[int, ...]]] | None:
        """``TABLE[i][j]`` (any number of subscripts) of a global table of numbers: its name,
        the subscripts, and the table's element type and shape."""
        indices: list[ast.expr] = []
        while isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            indices[:0] = [node.slice]
            node = node.value
        if not (isinstance(node, ast.Name) and node.id not in self.local) or not indices:
            return None
        table = number_table(self.globals.get(node.id))
        return None if table is None else (node, indices, table)

    def _table_element(self, node: ast.Subscript) -> ast.expr | None:
        """``DIRS[d][0]``: the constant where every subscript is one in range, else the element
        of the table's hidden array (a run-time subscript, checked) as the table's Python number;
        None where it is not an element of a table (a row: see visit_Assign and visit_For)."""
        found = self._table(node)
        if found is None:
            return None
        name, indices, (kind, shape) = found
        if len(indices) != len(shape) or any(isinstance(i, (ast.Slice, ast.Tuple)) for i in indices):
            return None
        indices = [self.visit(i) for i in indices]
        constants = [int_constant(i) for i in indices]
        if all(k is not None and -n <= k < n for k, n in zip(constants, shape)):
            value = self.globals[name.id]
            for k in constants:
                value = value[k]
            return self.rw.placed(ast.Constant(value), node)
        index = ast.Tuple(indices, ast.Load())
        return self._element(name, index, node, kind)

    def visit_Assign(self, node: ast.Assign):
        """``di, dj = DIRS[d]``: a row of a global table unpacked, one element per name."""
        target = node.targets[0] if len(node.targets) == 1 else None
        found = self._table(node.value) if isinstance(target, ast.Tuple) else None
        if found is not None and isinstance(target, ast.Tuple):
            name, indices, (_, shape) = found
            targets = target.elts
            reads = {n.id for i in indices for n in walk(i) if isinstance(n, ast.Name)}
            if len(indices) == len(shape) - 1 and len(targets) == shape[-1] and all(
                    isinstance(t, ast.Name) and t.id not in reads for t in targets):
                assert isinstance(node.value, ast.Subscript)
                return [ast.copy_location(ast.Assign([t], self.visit(ast.copy_location(ast.Subscript(
                    copy.deepcopy(node.value), ast.Constant(k), ast.Load()), node.value))), node)
                    for k, t in enumerate(targets)]
        self.generic_visit(node)
        return node

    def _element(self, name: ast.Name, index: ast.expr, like: ast.AST, kind: type | None = None) -> ast.expr:
        """``NAME[index]`` for a computed index: the element of the tuple's hidden array
        (frontend/global_arrays.py; a run-time subscript, checked), as the tuple's Python number."""
        kind = kind or number_tuple(self.globals[name.id])
        assert kind is not None
        hidden = frozen_name(self.globals.get("__name__", ""), self.rw.globals.get("__name__", ""),
                             TUPLE_PREFIX + name.id)
        read = ast.Subscript(ast.Name(hidden, ast.Load()), index, ast.Load())
        return self.rw.placed(ast.Call(ast.Name(kind.__name__, ast.Load()), [read], []), like)

    def visit_Subscript(self, node: ast.Subscript):
        """``OFFSETS[k]`` of a global tuple of numbers: its element (a constant index) or the
        element of its hidden array (a computed one: ``x[i + OFFSETS[k]]``)."""
        element = self._table_element(node)
        if element is not None:
            return element
        value = self._tuple(node.value)
        if value is None:
            self.generic_visit(node)
            return node
        node.slice = self.visit(node.slice)
        k = int_constant(node.slice)
        if k is not None and -len(value) <= k < len(value):
            return self.rw.placed(ast.Constant(value[k]), node)
        if isinstance(node.slice, ast.Slice) or k is not None:
            return self.generic_visit(node)  # a slice, an index out of range: as the display
        assert isinstance(node.value, ast.Name)
        return self._element(node.value, node.slice, node)

    def visit_For(self, node: ast.For):
        """``for o in OFFSETS:`` -> ``for k in range(len): o = OFFSETS[k]`` (its hidden array's element);
        ``for d in (-1, 0, 1):`` of numbers written in the loop (``_literal_loop``)."""
        literal = self._literal_loop(node)
        if literal is not None:
            return literal
        table = number_table(self.globals.get(node.iter.id)) if isinstance(node.iter, ast.Name) \
            and node.iter.id not in self.local else None
        if table is not None and isinstance(node.target, ast.Tuple) and len(table[1]) == 2 \
                and len(node.target.elts) == table[1][1] and not node.orelse:  # for di, dj in DIRS:
            counter = self.rw.fresh("row_k")
            row = ast.Subscript(node.iter, self.rw.placed(ast.Name(counter, ast.Load()), node), ast.Load())
            first = self.visit_Assign(ast.copy_location(ast.Assign([node.target], row), node))
            body = self.block(node.body)
            loop = ast.For(self.rw.placed(ast.Name(counter, ast.Store()), node.target),
                           self.rw.placed(ast.Call(ast.Name("range", ast.Load()), [ast.Constant(table[1][0])], []),
                                          node), [*first, *body], [], None)
            return ast.copy_location(loop, node)
        value = self._tuple(node.iter)
        if value is None or not isinstance(node.target, ast.Name) or node.orelse:
            self.generic_visit(node)
            return node
        assert isinstance(node.iter, ast.Name)
        counter = self.rw.fresh(f"{node.target.id}_k")
        element = self._element(node.iter, self.rw.placed(ast.Name(counter, ast.Load()), node), node)
        first = ast.copy_location(ast.Assign([node.target], element), node)
        body = self.block(node.body)
        loop = ast.For(self.rw.placed(ast.Name(counter, ast.Store()), node.target),
                       self.rw.placed(ast.Call(ast.Name("range", ast.Load()), [ast.Constant(len(value))], []), node),
                       [first, *body], [], None)
        return ast.copy_location(loop, node)

    def _literal_loop(self, node: ast.For) -> ast.For | None:
        """``for d in (-1, 0, 1):`` (a list too) of integer constants in steps of one nonzero
        constant: ``for d in range(-1, 2, 1)``.  Other numbers of one type, and rows of them
        unpacked (``for di, dj in ((0, 1), (1, 0)):``): ``for k in range(len):`` then each name
        the select of its column, ``d = 1 if k == 0 else (2 if k == 1 else 4)``.  None for other
        loops."""
        if not isinstance(node.iter, (ast.Tuple, ast.List)) or node.orelse or not node.iter.elts:
            return None
        rows = [_number_row(e) for e in node.iter.elts]
        widths = {len(r) if isinstance(r, list) else 0 for r in rows}
        if any(r is None for r in rows):
            return self._expression_loop(node)
        if len(widths) != 1:
            return None
        width, target = widths.pop(), node.target
        columns: list[list[Any]]
        given = [target] if width == 0 else target.elts if isinstance(target, ast.Tuple) else []
        names = [n for n in given if isinstance(n, ast.Name)]
        if len(names) != max(width, 1) or len(given) != len(names):
            return None
        taken = {n.id for n in names}
        if any(isinstance(n, ast.Name) and n.id in taken and not isinstance(n.ctx, ast.Load)
               for st in node.body for n in walk(st)):
            return None  # (bound again in the body: Desugar's refusal)
        columns = [rows] if width == 0 else [[r[c] for r in rows] for c in range(width)]
        if any(len({type(v) for v in col}) != 1 for col in columns):
            return None  # (1, 0.5): each element keeps its own type in Python
        body = self.block(node.body)
        col = columns[0]
        if width == 0 and type(col[0]) is int and len(col) > 1 and col[1] != col[0] \
                and all(b - a == col[1] - col[0] for a, b in zip(col, col[1:])):
            step = col[1] - col[0]
            span: list[ast.expr] = [ast.Constant(col[0]), ast.Constant(col[-1] + step), ast.Constant(step)]
        elif width == 0 and type(col[0]) is int and len(col) == 1:
            span = [ast.Constant(col[0]), ast.Constant(col[0] + 1)]
        else:
            counter = self.rw.fresh("item_k")
            first = [ast.copy_location(ast.Assign([self.rw.placed(ast.Name(n.id, ast.Store()), n)],
                                                  self.rw.placed(_select(counter, column), node.iter)), node)
                     for n, column in zip(names, columns)]  # (bound as Python binds it: read after the loop too)
            loop = ast.For(self.rw.placed(ast.Name(counter, ast.Store()), target),
                           self.rw.placed(ast.Call(ast.Name("range", ast.Load()), [ast.Constant(len(rows))], []),
                                          node.iter), [*first, *body], [], None)
            return ast.copy_location(loop, node)
        rng = self.rw.placed(ast.Call(ast.Name("range", ast.Load()), span, []), node.iter)
        return ast.copy_location(ast.For(target, rng, body, [], None), node)

    def _expression_loop(self, node: ast.For) -> ast.For | None:
        """``for q in (i, j):`` and ``for a, b in ((i, 0), (j, 1)):`` of other values: ``for k in
        range(len):`` then each name the choice of its column (``q = i if k == 0 else j``), as
        numba unrolls a loop over a homogeneous tuple.  Python evaluates the display once, before
        the loop; the choice reads its values at each iteration, so the elements may read only
        names the body does not assign (nor the loop's own names), sizes and constants, through
        arithmetic: no array element and no call.  None for other loops."""
        assert isinstance(node.iter, (ast.Tuple, ast.List))
        elts, target = node.iter.elts, node.target
        if isinstance(target, ast.Name):
            names, columns = [target], [list(elts)]
        elif isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts) and all(
                isinstance(e, (ast.Tuple, ast.List)) and len(e.elts) == len(target.elts) for e in elts):
            names = [t for t in target.elts if isinstance(t, ast.Name)]
            columns = [[e.elts[c] for e in elts if isinstance(e, (ast.Tuple, ast.List))] for c in range(len(names))]
        else:
            return None
        assigned = {n.id for st in node.body for n in walk(st) if isinstance(n, ast.Name)
                    and not isinstance(n.ctx, ast.Load)} | {n.id for n in names}
        arrays = {name for name, rank in getattr(self.rw, "ranks", {}).items() if rank}
        if not all(_fixed_value(e, assigned) for column in columns for e in column) \
                or any(isinstance(e, ast.Name) and e.id in arrays for column in columns for e in column):
            return None  # (a tuple of arrays: refused as a loop over something other than range)
        body = self.block(node.body)
        counter = self.rw.fresh("item_k")
        first = [ast.copy_location(ast.Assign([self.rw.placed(ast.Name(n.id, ast.Store()), n)],
                                              self.rw.placed(_choice(counter, column), node.iter)), node)
                 for n, column in zip(names, columns)]
        loop = ast.For(self.rw.placed(ast.Name(counter, ast.Store()), target),
                       self.rw.placed(ast.Call(ast.Name("range", ast.Load()), [ast.Constant(len(elts))], []),
                                      node.iter), [*first, *body], [], None)
        return ast.copy_location(loop, node)

    def visit_Call(self, node: ast.Call):
        """``float("inf")``, ``float("nan")`` (the builtin of a string literal): the float."""
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "len" and func.id not in self.local and func.id not in self.globals \
                and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Tuple) \
                and not any(isinstance(e, ast.Starred) for e in node.args[0].elts):
            return self.rw.placed(ast.Constant(len(node.args[0].elts)), node)  # len(OFFSETS): a tuple's length
        if isinstance(func, ast.Name) and func.id == "float" and func.id not in self.local \
                and func.id not in self.globals and len(node.args) == 1 and not node.keywords \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            try:
                return self.rw.placed(ast.Constant(float(node.args[0].value)), node)
            except ValueError:
                return node  # Python's ValueError: refused as a string where it stands
        return node


def constant_texts(functions: list[tuple[Callable, ast.FunctionDef]]) -> str:
    """``name=type:value`` of every global constant the ``(function, its parsed source)`` pairs
    read (for the disk cache's key)."""
    parts: list[str] = []
    for func, tree in functions:
        local = function_locals(tree)
        for node in walk(tree):
            if isinstance(node, ast.Name) and node.id not in local:
                value = func.__globals__.get(node.id)
                if constant_value(value) or constant_tuple(value) is not None or type(value) is bytes:
                    # (bytes: np.frombuffer's table, frontend/byte_tables.py)
                    parts.append(f"{func.__qualname__}.{node.id}={type(value).__name__}:{value!r}")
                elif isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
                    parts.append(f"{func.__qualname__}.{node.id}=dtype:{np.dtype(value).name}")  # dtype=np_float
    return "\n".join(sorted(set(parts)))


# ---- extents of kernel-local arrays --------------------------------------------------------------

def local_extents(rw: Rewriter, body: list[ast.stmt]) -> dict[str, list[ast.expr]]:
    """``T -> [extent expressions]`` for arrays allocated once at the top level whose extents
    read only arguments and names assigned once at the top level before (sizes), so that
    ``len(T)`` and ``T.shape[d]`` can be those expressions wherever they are read."""
    stores = Counter(n.id for s in body for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    loads = Counter(n.id for s in body for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    extents: dict[str, list[ast.expr]] = {}
    _block_extents(rw, body, stores, loads, set(rw.args), extents, top=True)
    return extents


def _block_extents(rw: Rewriter, body: list[ast.stmt], stores: Counter, loads: Counter, known: set[str],
                   extents: dict[str, list[ast.expr]], *, top: bool) -> None:
    """``local_extents`` of one block and the ``if``/loop blocks in it.  In a nested block (a
    helper inlined in a branch: ``numpy_sort_y = x.copy()``) an array counts only where every
    read of its name in the body follows it in this block; ``known``: the names its extents may
    read (arguments, names assigned once before)."""
    known = set(known)
    for k, stmt in enumerate(body):
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        call = stmt.value if isinstance(stmt, ast.Assign) else None
        local = isinstance(target, ast.Name) and stores.get(target.id) == 1 and (
            top or sum(1 for s in body[k + 1:] for n in walk(s)
                       if isinstance(n, ast.Name) and n.id == target.id and isinstance(n.ctx, ast.Load))
            == loads[target.id])
        if local and isinstance(target, ast.Name) and isinstance(call, ast.Call) \
                and isinstance(call.func, ast.Attribute) and call.func.attr in ALLOCATORS and call.args:
            dims = _allocated_extents(rw, call, extents)
            if dims is not None and all({n.id for d in dims for n in walk(d) if isinstance(n, ast.Name)}
                                        <= known for d in dims):
                extents[target.id] = dims
        elif local and isinstance(target, ast.Name) and isinstance(stmt, ast.Assign):
            same = _same_extents(rw, stmt.value, extents)  # s = t, y = x.copy(): the same shape
            if same is not None:
                extents[target.id] = same
        if isinstance(stmt, ast.Assign):
            known.update(n.id for t in stmt.targets for n in walk(t)
                         if isinstance(n, ast.Name) and stores.get(n.id) == 1)
        if isinstance(stmt, (ast.If, ast.For, ast.While)):
            for block in (stmt.body, stmt.orelse):
                _block_extents(rw, block, stores, loads, known, extents, top=False)


def _same_extents(rw: Rewriter, value: ast.expr, extents: dict[str, list[ast.expr]]) -> list[ast.expr] | None:
    """The extents of ``value`` where it is a name of known extents or a copy of one
    (``x.copy()``, ``np.copy(x)``): an array argument's shape or a local array's extents."""
    func = value.func if isinstance(value, ast.Call) and not value.keywords else None
    if isinstance(value, ast.Call) and isinstance(func, ast.Attribute) and func.attr == "copy":
        if not value.args:
            value = func.value
        elif len(value.args) == 1 and isinstance(func.value, ast.Name) and rw.globals.get(func.value.id) is np:
            value = value.args[0]
    if not isinstance(value, ast.Name):
        return None
    if value.id in rw.ranks and value.id in rw.args:
        return [shape_node(value.id, d) for d in range(rw.ranks[value.id])]
    return extents.get(value.id)


def _allocated_extents(rw: Rewriter, call: ast.Call, extents: dict[str, list[ast.expr]]) -> list[ast.expr] | None:
    first = call.args[0]
    if isinstance(call.func, ast.Attribute) and call.func.attr.endswith("_like"):
        if isinstance(first, ast.Name) and first.id in rw.ranks:
            return [shape_node(first.id, d) for d in range(rw.ranks[first.id])]
        if isinstance(first, ast.Name) and first.id in extents:
            return extents[first.id]
        return None
    if isinstance(first, ast.Attribute) and first.attr == "shape":  # np.zeros(X.shape), np.ones(X[i].shape)
        node, depth = first.value, 0
        while isinstance(node, ast.Subscript):
            index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if any(isinstance(i, (ast.Slice, ast.Starred)) for i in index):
                return None
            depth, node = depth + len(index), node.value
        name = node.id if isinstance(node, ast.Name) else None
        if name in rw.ranks and depth <= rw.ranks[name]:
            return [shape_node(name, d) for d in range(depth, rw.ranks[name])]
        return extents.get(name) if name is not None and depth == 0 else None
    dims = first.elts if isinstance(first, ast.Tuple) else [first]
    if any(isinstance(d, ast.Starred) for d in dims):
        return None
    return list(dims)


def shape_node(array: str, axis: int) -> ast.expr:
    """``array.shape[axis]``."""
    return ast.Subscript(ast.Attribute(ast.Name(array, ast.Load()), "shape", ast.Load()), ast.Constant(axis),
                         ast.Load())


# ---- tuples, augmented operators, loops over arrays ---------------------------------------------

class Desugar(StatementTransformer):
    """Tuple assignments, the other augmented operators and loops over arrays (statement level)."""

    def __init__(self, rw: Rewriter, normalize: Callable[[ast.stmt], ast.stmt]) -> None:
        self.rw = rw
        self.normalize = normalize  # len(row), row.shape[d] of a substituted row -> the array's extents

    def visit_For(self, node: ast.For):
        node.body = self.block(node.body)
        node.orelse = self.block(node.orelse)
        return self.array_loop(node) or variable_step(self.rw, node) or node

    def visit_If(self, node: ast.If):
        node.body = self.block(node.body)
        node.orelse = self.block(node.orelse)
        return node

    def visit_While(self, node: ast.While):
        node.body = self.block(node.body)
        node.orelse = self.block(node.orelse)
        return node

    def visit_AugAssign(self, node: ast.AugAssign):
        # a name stays augmented: an array's x //= 2 writes in place, through every alias (b = a;
        # b //= 2 changes a), which x = x // 2 would not; frontend.arrays writes a scalar's out
        if not isinstance(node.op, _AUG_EXTRA) or not isinstance(node.target, ast.Subscript):
            return node
        load = self.rw.copy(node.target)
        for sub in walk(load):
            if isinstance(sub, (ast.Name, ast.Subscript)) and isinstance(sub.ctx, ast.Store):
                sub.ctx = ast.Load()
        value = self.rw.placed(ast.BinOp(load, node.op, node.value), node)
        return ast.copy_location(ast.Assign([node.target], value), node)

    def visit_Assign(self, node: ast.Assign):
        target = node.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            extents = self.rw.local_extents.get(target.value.id)
            strided = strided_store(self.rw, node, len(extents) if extents is not None
                                    else self.rw.ranks.get(target.value.id))
            if strided is not None:  # is_p[i * i::i] = False: the loop it means
                return strided
        if len(node.targets) > 1 and not any(isinstance(t, (ast.Tuple, ast.List, ast.Starred)) for t in node.targets):
            # a = b = value: the value once, then each target from left to right, as Python does
            if isinstance(node.value, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant) for e in node.value.elts):
                # a display of constants (x[0] = x[-1] = 0, 0): nothing to evaluate once, each target gets it
                return [ast.copy_location(ast.Assign([target], copy.deepcopy(node.value)), node)
                        for target in node.targets]
            temp = self.rw.fresh("_pf_chain")
            chain = [ast.copy_location(ast.Assign([self.rw.placed(ast.Name(temp, ast.Store()), node)], node.value),
                                       node)]
            for target in node.targets:
                value = self.rw.placed(ast.Name(temp, ast.Load()), target)
                chain.append(ast.copy_location(ast.Assign([target], value), node))
            return chain
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Tuple) \
                or not isinstance(node.value, ast.Tuple):
            return node
        targets, values = node.targets[0].elts, node.value.elts
        if len(targets) != len(values) or any(isinstance(t, ast.Starred) for t in targets) \
                or not all(isinstance(t, (ast.Name, ast.Subscript)) for t in targets):
            return node
        written = {t.id for t in targets if isinstance(t, ast.Name)}
        read = {n.id for v in values for n in walk(v) if isinstance(n, ast.Name)}
        direct = not (written & read) and not any(isinstance(t, ast.Subscript) for t in targets) \
            and len(written) == len(targets)
        out: list[ast.stmt] = []
        if direct:
            for target, value in zip(targets, values):
                out.append(ast.copy_location(ast.Assign([target], value), node))
            return out
        temps = []
        for value in values:  # every value first, as Python evaluates the right-hand tuple
            temp = self.rw.fresh("_pf_tuple")
            temps.append(temp)
            out.append(ast.copy_location(ast.Assign([self.rw.placed(ast.Name(temp, ast.Store()), value)], value),
                                         node))
        for target, temp in zip(targets, temps):
            out.append(ast.copy_location(ast.Assign([target], self.rw.placed(ast.Name(temp, ast.Load()), target)),
                                         node))
        return out

    # loops over arrays
    def array_loop(self, node: ast.For) -> ast.For | None:
        it = node.iter
        if node.orelse:
            return None
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "ndindex" \
                and isinstance(it.func.value, ast.Name) and self.rw.globals.get(it.func.value.id) is np:
            return self.ndindex(node, it)
        if isinstance(it, ast.Name) and it.id in self.rw.ranks and isinstance(node.target, ast.Name):
            return self.over(node, self._index(node.target), [(node.target.id, it.id)])
        flat = self.flattened(it)
        if flat is not None and isinstance(node.target, ast.Name):
            return self.flat_loop(node, flat)
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and not it.keywords
                and it.func.id not in self.rw.globals and isinstance(node.target, ast.Tuple)):
            return None
        names = [n for n in node.target.elts if isinstance(n, ast.Name)]
        if len(names) != len(node.target.elts):
            return None
        arrays = [a.id for a in it.args if isinstance(a, ast.Name) and a.id in self.rw.ranks]
        if it.func.id == "enumerate" and len(it.args) == 1 and len(arrays) == 1 and len(names) == 2:
            return self.over(node, names[0], [(names[1].id, arrays[0])])
        if it.func.id == "zip" and len(arrays) == len(it.args) == len(names) >= 1:
            return self.over(node, self._index(node.target), [(n.id, a) for n, a in zip(names, arrays)])
        return None

    def flattened(self, it: ast.expr) -> str | None:
        """``A`` of ``A.ravel()``, ``A.flatten()``, ``A.reshape(-1)``, ``np.ravel(A)``, ``A.flat``
        (``A`` an array argument); None otherwise."""
        if isinstance(it, ast.Attribute) and it.attr == "flat":
            array = it.value
        elif isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.keywords:
            method, owner = it.func.attr, it.func.value
            if method in ("ravel", "flatten") and not it.args:
                array = owner
            elif method == "reshape" and len(it.args) == 1 and int_constant(it.args[0]) == -1:
                array = owner
            elif method == "ravel" and len(it.args) == 1 and module_of(owner, self.rw.globals) == "np":
                array = it.args[0]
            else:
                return None
        else:
            return None
        return array.id if isinstance(array, ast.Name) and array.id in self.rw.ranks else None

    def flat_loop(self, node: ast.For, array: str) -> ast.For | None:
        """``for v in A.ravel():`` of an array argument of rank ``r``: ``r`` nested range loops in
        C order (the flattened order), ``v = A[i0, ..., i(r-1)]`` first in the innermost, where
        the body has no ``break``/``continue`` of this loop (it would leave only the innermost) and
        writes nothing into ``A`` (a copy, as ``flatten`` makes and ``ravel`` may, would not see
        the writes); None otherwise."""
        rank = self.rw.ranks[array]
        if rank == 0 or _breaks(node.body) or any(
                isinstance(n, (ast.Subscript, ast.Name)) and not isinstance(n.ctx, ast.Load)
                and _root_name(n) == array for s in node.body for n in walk(s)):
            return None
        names = [self.rw.fresh(f"_pf_flat{d}") for d in range(rank)]
        index = ast.Tuple([ast.Name(k, ast.Load()) for k in names], ast.Load()) if rank > 1 \
            else ast.Name(names[0], ast.Load())
        element = self.rw.placed(ast.Subscript(ast.Name(array, ast.Load()), index, ast.Load()), node.iter)
        body: list[ast.stmt] = [ast.copy_location(ast.Assign([node.target], element), node), *node.body]
        for d in reversed(range(rank)):
            rng = self.rw.placed(ast.Call(ast.Name("range", ast.Load()), [shape_node(array, d)], []), node.iter)
            body = [ast.copy_location(ast.For(self.rw.placed(ast.Name(names[d], ast.Store()), node.target), rng,
                                              body, [], None), node)]
        return body[0]  # type: ignore[return-value]

    def ndindex(self, node: ast.For, it: ast.Call) -> ast.For | None:
        """``for idx in np.ndindex(A.shape)`` (or ``(n, m)``, ``n, m``; or ``for i, j in ...``):
        one range loop per axis, ``idx`` in subscripts (``B[idx]``) and ``idx[d]`` replaced by the
        loop variables.  None (refused by the checker) for other uses of ``idx``."""
        dims = self.shape_dims(it)
        if not dims or it.keywords:
            return None
        target = node.target
        if isinstance(target, ast.Tuple):
            if len(target.elts) != len(dims) or not all(isinstance(t, ast.Name) for t in target.elts):
                return None
            names = [t.id for t in target.elts if isinstance(t, ast.Name)]
            body = node.body
        elif isinstance(target, ast.Name):
            names = [self.rw.fresh(f"_pf_{target.id}{d}") for d in range(len(dims))]
            swap = _IndexTuple(self.rw, target.id, names)
            body = [swap.visit(s) for s in node.body]
            if swap.other_use:
                return None
        else:
            return None
        for name, extent in reversed(list(zip(names, dims))):
            rng = self.rw.placed(ast.Call(ast.Name("range", ast.Load()), [extent], []), it)
            body = [ast.copy_location(ast.For(self.rw.placed(ast.Name(name, ast.Store()), target), rng, body, [],
                                              None), node)]
        return body[0]  # type: ignore[return-value]

    def shape_dims(self, it: ast.Call) -> list[ast.expr] | None:
        """The extents of ``np.ndindex(...)``: a tuple, ``X.shape`` of an argument or of a local
        array of known extents, or several integers."""
        if len(it.args) != 1:
            return list(it.args) or None
        (shape,) = it.args
        if isinstance(shape, ast.Tuple):
            return list(shape.elts) or None
        if isinstance(shape, ast.Attribute) and shape.attr == "shape" and isinstance(shape.value, ast.Name):
            array = shape.value.id
            if array in self.rw.ranks:
                return [self.rw.placed(shape_node(array, d), shape) for d in range(self.rw.ranks[array])]
            local: dict[str, list[ast.expr]] = getattr(self.rw, "local_extents", {})
            if array in local:
                return [self.rw.placed(self.rw.copy(e), shape) for e in local[array]]
            return None
        return [shape]

    def _index(self, like: ast.AST) -> ast.Name:
        index = ast.Name(self.rw.fresh("_pf_item"), ast.Store())
        self.rw.placed(index, like)
        return index

    def over(self, node: ast.For, index: ast.Name, pairs: list[tuple[str, str]]) -> ast.For | None:
        """``for index in range(min(extents))`` binding each ``(name, array)`` pair per iteration."""
        stored = {n.id for s in node.body for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if any(self.rw.ranks[array] > 1 and name in stored for name, array in pairs):
            return None  # a row bound to a name the loop reassigns: left for the checker to refuse
        extents = [self._extent(array, node) for _, array in pairs]
        stop = extents[0] if len(extents) == 1 else self.rw.placed(
            ast.Call(ast.Name("min", ast.Load()), extents, []), node.iter)
        rng = self.rw.placed(ast.Call(ast.Name("range", ast.Load()), [stop], []), node.iter)
        prologue: list[ast.stmt] = []
        rows: dict[str, ast.expr] = {}
        for name, array in pairs:
            element = self.rw.placed(ast.Subscript(ast.Name(array, ast.Load()), ast.Name(index.id, ast.Load()),
                                                   ast.Load()), node.target)
            if self.rw.ranks[array] == 1:
                target = self.rw.placed(ast.Name(name, ast.Store()), node.target)
                prologue.append(ast.copy_location(ast.Assign([target], element), node))
            else:
                rows[name] = element
        body = [self.normalize(_Rows(self.rw, rows).visit(s)) for s in node.body] if rows else node.body
        return ast.copy_location(ast.For(index, rng, prologue + body, [], None), node)

    def _extent(self, array: str, like: ast.AST) -> ast.expr:
        return self.rw.placed(shape_node(array, 0), like)


def int_constant(node: ast.expr) -> int | None:
    """The value of an integer constant expression (+ - * // % of int literals), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = int_constant(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.BinOp) and isinstance(node.op, tuple(_FOLD)):
        a, b = int_constant(node.left), int_constant(node.right)
        if a is None or b is None or (isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b == 0):
            return None
        return _FOLD[type(node.op)](a, b)
    return None


_FOLD: dict[type, Callable[[int, int], int]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
}



class _IndexTuple(ast.NodeTransformer):
    """``B[idx]`` -> ``B[i0, i1]`` and ``idx[d]`` -> ``id`` for an ndindex loop's tuple ``idx``;
    ``other_use`` records any other read of it."""

    def __init__(self, rw: Rewriter, name: str, names: list[str]) -> None:
        self.rw, self.name, self.names = rw, name, names
        self.other_use = False

    def visit_Subscript(self, node: ast.Subscript):
        if isinstance(node.slice, ast.Name) and node.slice.id == self.name:
            node.value = self.visit(node.value)
            elts: list[ast.expr] = [self.rw.placed(ast.Name(n, ast.Load()), node.slice) for n in self.names]
            node.slice = self.rw.placed(ast.Tuple(elts, ast.Load()), node.slice)
            return node
        axis = int_constant(node.slice)
        if isinstance(node.value, ast.Name) and node.value.id == self.name and axis is not None \
                and -len(self.names) <= axis < len(self.names):
            return self.rw.placed(ast.Name(self.names[axis], ast.Load()), node)
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name):
        if node.id == self.name:
            self.other_use = True
        return node


class _Rows(ast.NodeTransformer):
    """Reads of a loop's row name -> the row (``A[i]``), at the place of the read."""

    def __init__(self, rw: Rewriter, rows: dict[str, ast.expr]) -> None:
        self.rw, self.rows = rw, rows

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.rows:
            return self.rw.placed(self.rw.copy(self.rows[node.id]), node)
        return node
