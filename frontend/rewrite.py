"""Rewrites that turn numba-style kernels into the plain subset before the checker sees them.

Run once by :func:`frontend.lift.lift`, in this order, each a no-op on code already in the subset:

0. ``hoist_imports`` (frontend/desugar.py): ``import numpy as np`` / ``from math import sqrt`` at
   the top of the body become globals; then ``ModuleFunctions`` spells a name bound to a module
   function as the attribute (``sqrt`` -> ``math.sqrt``), before and after inlining (helpers' names).
   ``rename_rebound``: an argument or a local array that the body binds again at its top level
   (``image = image.astype(np.float32)``, ``dx = dx / 2``) gets a fresh name from there on
   (``image_2``), as Python's new binding is a new object: the argument stays what the caller passed.
1. ``Inliner``: calls to module-level Python functions (or ``numba.njit`` dispatchers) are
   inlined, ``y[i] = relu(x[i])`` -> ``y[i] = max(x[i], 0.0)``, and ``fill(A, n)`` as a statement
   -> the helper's body with its parameters replaced by the caller's arguments.  Subset
   expressions have no side effects, so substituting an argument at each use is exact.
   Then ``lengths`` (frontend/data_sized.py: ``len(np.nonzero(c)[0])`` is
   ``int(np.count_nonzero(c))``), and ``substitute_tuples`` (frontend/tuples.py) writes tuple locals out at their uses
   (``idx = i, j``; ``x[idx]`` -> ``x[i, j]``), makes list shapes tuples and ``np.ndarray``
   allocations ``np.empty``.
2. ``Normalizer``: ``len(a)`` -> ``a.shape[0]``, ``a.shape[-1]`` -> ``a.shape[rank - 1]``,
   ``a.size`` -> the product of its extents, ``a.ndim`` -> the rank (``a`` an array argument).
3. ``substitute_sizes``: an integer local assigned once at the top level from sizes
   (``n, m = A.shape``, ``h = (n + 1) // 2``) is replaced by its defining expression at every
   use, so it is affine; so is one assigned once inside a block from an expression that reads
   an extent, read only after it there (a helper inlined in a branch).  A local assigned twice
   or in a loop stays an ordinary scalar.  Then ``swap_rows`` (frontend/index_swaps.py):
   ``A[[k, p]] = A[[p, k]]`` as three stores.
4. ``Desugar`` (frontend/desugar.py): tuple assignments, ``//=``, ``%=`` and ``**=`` (``&=``
   and the other bitwise ones stay augmented, like ``+=``), ``for v in x`` / ``enumerate`` /
   ``zip`` over arrays; before all of these, ``Constants`` puts global number constants in place
   (kernel and helpers alike).
5. ``prange_to_range``: ``numba.prange`` and ``polyfuse.prange`` loops become ``range`` loops
   (dependences still decide which loops run in parallel; ``KernelSource.pranges`` remembers
   them so that explain() can say whether each one's iterations are independent).

Rewritten nodes keep the location of the node they replace; nodes inlined from a helper are
listed in ``KernelSource.foreign`` so that errors point at the helper's own line.
"""

from __future__ import annotations

import ast
import cmath
import contextlib
import copy
import dataclasses
import math
import types
from collections import Counter
from collections.abc import Callable, Iterator

import numpy as np

from polyfuse.errors import UnsupportedError
from polyfuse.model.scop import Argument

from . import builtin_helpers
from .allocation import ALLOCATORS
from .array_statements import sort_in_place
from .array_swaps import swap_arrays
from .branch_locals import separate_branch_locals
from .call_sizes import written_arguments
from .checker import is_allocation
from .comprehension_hoist import hoist_comprehension_arrays
from .counted_allocations import counted_allocations, empty_early_returns
from .data_sized import lengths
from .desugar import (
    BuiltinHelpers,
    Constants,
    Desugar,
    Divmod,
    GeneratorLoops,
    ModuleFunctions,
    StatementTransformer,
    constant_texts,
    function_locals,
    hoist_imports,
    int_constant,
    local_extents,
    module_attribute,
    shape_node,
)
from .dtype_spellings import DtypeSpellings
from .early_return import single_exit, value_returns
from .global_arrays import frozen_name
from .growing_lists import growing_lists
from .index_swaps import swap_rows
from .local_helpers import local_helpers
from .loop_else import loop_else, own_breaks
from .loop_names import rename_clashing_loops
from .loop_values import loop_values
from .masked_scatter import masked_scatters
from .negative_wrap import wrap_negative_reads
from .none_locals import none_locals
from .numba_idioms import numba_idioms
from .numba_values import boxed, unmarked
from .position_masks import position_masks
from .selection_loops import selection_loops, unique_loops
from .source import KernelSource, copy_tree, location_key, read_source, walk
from .tri_indices import tri_indices
from .tuple_comprehension import unroll_tuple_comprehensions
from .tuples import display_loops_and_elements, substitute_tuples
from .unbound_locals import unbound_locals
from .zero_d import zero_d_elements

MAX_INLINE_DEPTH = 16


def rewrite(source: KernelSource, globals_: dict, arguments: tuple[Argument, ...], fn=None) -> KernelSource:
    """``source`` with helpers inlined, sizes substituted and prange loops made ``range`` loops;
    ``globals_`` (the caller's copy) gains the modules inlined helpers refer to."""
    tree = copy_tree(source.tree)
    rw = Rewriter(dataclasses.replace(source, tree=tree, foreign=dict(source.foreign), inlined=dict(source.inlined),
                                     raises=set(source.raises), divmods=set(source.divmods), pranges={}, written_x={},
                                     user_names=dict(source.user_names)), globals_, arguments)
    tree.body = hoist_imports(rw, tree.body, function_locals(tree))  # import numpy as np: a global from here on
    tree.body = zero_d_elements(rw, tree.body)  # c[...] = v, c += v of a 0-d array argument: c[()]
    tree.body = none_locals(tree.body, rw.fresh)  # last = None ... last is None: a flag beside the local
    tree.body = loop_else(tree.body, rw.fresh)  # for ... else: a flag the loop's breaks set
    tree.body = local_helpers(rw, tree.body)  # def sq(v): ... in the body: inlined as module-level ones
    tree.body = sort_in_place(rw, tree.body)  # x.sort(): x[...] = np.sort(x) (frontend/array_statements.py)
    for node in walk(tree):  # before any pass reads its calls as calls of unknown functions
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and node is not tree:
            kind = "lambda" if isinstance(node, ast.Lambda) else "nested function"
            what = "a lambda" if isinstance(node, ast.Lambda) else f"function {node.name!r}"
            raise rw.error(node, f"{kind}: {what} defined inside the kernel, not as a statement of its body's top "
                           "level; polyfuse inlines helpers defined there or at module level (plain functions or "
                           "numba.njit ones)", kind)
    tree.body = numba_idioms(rw, tree.body, function_locals(tree))  # reversed(range()), np.finfo(T).eps
    tree.body = loop_values(tree.body, {a.arg for a in tree.args.args}, rw.fresh,  # for i ...: break; return i
                            lambda check: rw.source.raises.add(location_key(check)))
    if rw.source.unbound:  # q = c[i] under an if in a loop, then return q: Python's UnboundLocalError
        tree.body, flagged = unbound_locals(tree.body, rw.source.unbound, {a.arg for a in tree.args.args}, rw.fresh,
                                            lambda check: rw.source.raises.add(location_key(check)))
        rw.unbound.update(flagged)
    tree.body = rename_clashing_loops(tree.body, rw.fresh)  # for j in ...; later j = idx[k]: two names
    tree.body = empty_early_returns(rw, tree.body)  # if n == 0: return np.zeros(0) before k = 0 ... np.empty(k)
    tree.body = _single_exit(rw, tree.body)  # early returns: one return at the end
    tree.body = rename_rebound(rw, tree.body)
    tree.body = Constants(rw, globals_, function_locals(tree)).block(tree.body)
    # The locals once per pass, not once per statement: ModuleFunctions writes no stored name (it
    # replaces loads and calls), so the set is the same for every statement, and for the helpers' pass.
    local = function_locals(tree)
    tree.body = [ModuleFunctions(rw, local).visit(stmt) for stmt in tree.body]  # before inlining
    # np.bincount(np.digitize(x, b)): its x as written, before the helpers below write it as loops
    rw.source.written_x.update(written_arguments(tree.body, globals_, set(builtin_helpers.NUMPY_HELPERS)))
    tree.body = masked_scatters(rw, tree.body)  # np.add.at(a, idx[ok], v[ok]): a loop skipping the rest
    helpers = BuiltinHelpers(rw, local, tree)
    tree.body = helpers.block(tree.body)  # sum(x), np.interp(x, ...): helpers; np.add.at(a, lab, b): a loop
    stack = (_key(fn) if fn is not None else source.tree.name,)
    tree.body = unmarked(Inliner(rw, globals_, stack).block(tree.body))  # numba helpers' values: numba_values
    tree.body = loop_values(tree.body, {a.arg for a in tree.args.args}, rw.fresh,  # the inlined helpers' loops
                            lambda check: rw.source.raises.add(location_key(check)))
    tree.body = position_masks(rw, tree.body)  # idx = np.where(c)[0]; x[idx]: x[c != 0]
    tree.body = lengths(rw, tree.body)  # len(np.nonzero(c)[0]): int(np.count_nonzero(c))
    tree.body = unique_loops(rw, tree.body)  # for v in np.unique(x): a compaction, then its count
    tree.body = tri_indices(rw, tree.body)  # r, c = np.triu_indices(n, 1): two index arrays, a loop
    tree.body = counted_allocations(rw, tree.body)  # k = 0; ... k += 1; np.empty(k): the count's bound
    tree.body = growing_lists(rw, tree.body)  # res.append(v), return buf[:k], np.nonzero: buffer and count
    tree.body = _builtins_of_helpers(rw, tree, stack)  # np.sort(a) in a user's helper: once inlined
    tree.body = unroll_tuple_comprehensions(rw, tree.body)  # index tuples of known length: displays
    tree.body = [GeneratorLoops(rw).visit(stmt) for stmt in tree.body]  # sum(E for i in ...): a loop
    tree.body = numba_idioms(rw, tree.body, function_locals(tree))  # the inlined helpers' too
    local = function_locals(tree)  # the inlined helpers' locals too
    tree.body = [ModuleFunctions(rw, local).visit(stmt) for stmt in tree.body]  # helpers' too
    tree.body = [DtypeSpellings(globals_, rw.numpy_alias()).visit(stmt) for stmt in tree.body]  # np.bool_, 'f8'
    # the same locals: neither pass stores a name (they rewrite loads, calls and attributes)
    tree.body = [Divmod(rw, local).visit(stmt) for stmt in tree.body]  # (a // b, a % b)
    tree.body = hoist_comprehension_arrays(rw, tree.body)  # y[:] = np.array([f(i) for i in ...]): a local first
    tree.body = swap_arrays(rw, tree.body)  # a, b = b, a of local arrays: copies of the values
    tree.body = wrap_negative_reads(tree.body, rw.ranks, rw.ints)  # u[i - 1] at i = 0: u[-1], as Python
    # v = ... under an if, v reused elsewhere, dead after the if: a fresh name there
    tree.body = separate_branch_locals(tree.body, {a.arg for a in tree.args.args}, rw.fresh)
    tree.body = substitute_tuples(rw, tree.body)  # before extents are read: shapes written out
    tree.body = display_loops_and_elements(rw, tree.body)  # for q in (i, j); dy[d] of dy = (-1, 0, 1, 0)
    rw.local_extents = local_extents(rw, tree.body)
    tree.body = [Normalizer(rw).visit(stmt) for stmt in tree.body]
    tree.body = substitute_sizes(rw, tree.body)
    tree.body = swap_rows(rw, tree.body)  # A[[k, p]] = A[[p, k]]: three stores
    tree.body = selection_loops(rw, tree.body)  # for v in x[x > 0]: over x, skipping the rest
    tree.body = Desugar(rw, Normalizer(rw).visit).block(tree.body)  # tuple assignments, //= and friends, loops over arrays
    for stmt in tree.body:
        prange_to_range(rw, stmt)
    return dataclasses.replace(rw.source, unbound=frozenset(rw.unbound))


def _builtins_of_helpers(rw: Rewriter, tree: ast.FunctionDef, stack: tuple[str, ...]) -> list[ast.stmt]:
    """The body with the builtin helpers (``sum(x)``, ``np.sort(a)``, ``math.isclose``) that user
    helpers call written as polyfuse's helpers and inlined in turn: the user helpers' bodies are
    the kernel's now, their parameters the caller's arguments, so the ranks the first pass tells
    from the kernel's names tell these too.  A no-op where no helper called one."""
    local = function_locals(tree)
    tree.body = [ModuleFunctions(rw, local).visit(stmt) for stmt in tree.body]  # from math import isclose
    tree.body = masked_scatters(rw, tree.body)  # np.add.at(a, idx[ok], v[ok]): a loop skipping the rest
    helpers = BuiltinHelpers(rw, local, tree)
    body = helpers.block(tree.body)
    if not helpers.aliases and not any(  # (selection_loops' np.argsort of np.unique's length: a helper)
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and rw.globals.get(n.func.id) is builtin_helpers.numpy_argsort_prefix for s in body for n in walk(s)):
        return body
    return Inliner(rw, rw.globals, stack).block(body)


def _single_exit(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """The kernel's body with its early returns made one at the end (frontend.early_return); a body
    that returns a value somewhere must end with a return (Python returns None where it falls off)."""
    if value_returns(body) and not _ends(body):
        raise rw.error(body[-1], "the body can end without a return (Python returns None there) where "
                       "another path returns a value; end the body with a return", "missing final return")
    return single_exit(body, kernel=True)


def helper_texts(fn, source: KernelSource | None = None) -> str:
    """The source of every helper ``fn`` calls, transitively, and the values of the global
    constants they and ``fn`` read (for the disk cache's key); ``source``: ``fn``'s, when the
    caller has read it already."""
    seen: dict[str, str] = {}
    functions: list[tuple[Callable, ast.FunctionDef]] = []  # each read once: (function, parsed source)
    todo: list[tuple[Callable, KernelSource | None]] = [(fn, source)]
    while todo:
        func, source = todo.pop()
        if source is None:
            try:
                source = read_source(func)
            except UnsupportedError:
                continue
        functions.append((func, source.tree))
        for node in walk(source.tree):
            if isinstance(node, ast.Call):
                helper = helper_function(node.func, func.__globals__)
                key = f"{getattr(helper, '__module__', '')}.{getattr(helper, '__qualname__', '')}"
                if helper is not None and key not in seen:
                    helper_source = read_source(helper)
                    seen[key] = helper_source.text
                    todo.append((helper, helper_source))
    return "".join(seen[k] for k in sorted(seen)) + constant_texts(functions)


class Rewriter:
    """The shared state of one rewrite: the new source (and its foreign nodes), names in use."""

    def __init__(self, source: KernelSource, globals_: dict, arguments: tuple[Argument, ...]) -> None:
        self.source = source
        self.globals = globals_
        self.ranks = {a.name: a.rank for a in arguments if a.kind == "array"}
        self.ints = {a.name for a in arguments if a.kind == "int"}
        # scalar argument -> (its NumPy scalar dtype, "" for a Python number; its kind)
        self.scalar_kinds = {a.name: (a.numpy_scalar, a.kind) for a in arguments if a.kind != "array"}
        self.dtypes = {a.name: a.dtype for a in arguments if a.kind == "array"}
        self.args = {a.name for a in arguments}
        self.taken = {n.id for n in walk(source.tree) if isinstance(n, ast.Name)}
        self.taken.update(a.name for a in arguments)
        self.user_written = frozenset(self.taken)  # the names of the user's source (and ours so far)
        self.local_extents: dict[str, list[ast.expr]] = {}  # kernel-local array -> allocated extents
        self.local_helpers: dict[types.FunctionType, KernelSource] = {}  # helpers defined in the body
        # the locals frontend.unbound_locals flagged, and the fresh names later passes made of them
        # (a binding's own name): their storage starts at zero (KernelSource.unbound)
        self.unbound: set[str] = set()

    def fresh(self, name: str) -> str:
        candidate, k = name, 2
        while candidate in self.taken or candidate in self.globals:
            candidate, k = f"{name}_{k}", k + 1
        self.taken.add(candidate)
        if candidate != name and (name in self.user_written or name in self.unbound):  # a new binding of the user's name
            self.source.user_names[candidate] = self.source.user_names.get(name, name)  # (error messages)
        if name in self.unbound:
            self.unbound.add(candidate)
        return candidate

    def numpy_alias(self) -> str:
        """A name bound to numpy in the kernel's globals (for constants of NumPy types)."""
        return self.module_alias("np")

    def module_alias(self, key: str) -> str:
        """A name bound to numpy (``"np"``), math or cmath in the kernel's globals."""
        module = {"np": np, "math": math, "cmath": cmath}[key]
        alias = "_pf_numpy" if key == "np" else f"_pf_{key}"
        if self.globals.get(alias) is not module:
            self.globals[alias] = module
            self.taken.add(alias)
        return alias

    def origin(self, node: ast.AST) -> KernelSource | None:
        found = self.source.foreign.get(id(node))
        return found[1] if found is not None and found[0] is node else None

    def mark(self, node: ast.AST, origin: KernelSource | None) -> None:
        for sub in walk(node):
            if origin is None:
                self.source.foreign.pop(id(sub), None)
            else:
                self.source.foreign[id(sub)] = (sub, origin)

    def copy(self, node: ast.expr) -> ast.expr:
        """A deep copy whose nodes come from where the originals came from."""
        new = copy_tree(node)
        for old, sub in zip(walk(node), walk(new)):
            self.mark_one(sub, self.origin(old))
        return new

    def mark_one(self, node: ast.AST, origin: KernelSource | None) -> None:
        if origin is not None:
            self.source.foreign[id(node)] = (node, origin)

    def placed(self, new: ast.expr, like: ast.AST) -> ast.expr:
        """``new`` (every node of it) at the location and origin of ``like``."""
        for sub in walk(new):
            if "lineno" in sub._attributes:
                ast.copy_location(sub, like)
        self.mark(new, self.origin(like))
        return new

    def error(self, node: ast.AST, message: str, construct: str = "") -> UnsupportedError:
        return self.source.error(node, message, construct)


# ---- 0. names bound again -------------------------------------------------------------------------

def rename_rebound(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """Each top-level ``name = value`` (``name op= value`` for a scalar argument) that binds an
    argument, or a local array allocated at the top level, again becomes ``fresh = value``, and
    every later use of ``name`` reads ``fresh``.  The statement runs unconditionally, so from there
    on the name means the new value on every path, exactly as in Python.  Bindings inside loops and
    branches are left alone (the lowering refuses those of arrays)."""
    renames: dict[str, str] = {}
    allocated: set[str] = set()
    scalar_args = rw.args - set(rw.ranks)
    written = _written_in_place(body) - scalar_args
    out: list[ast.stmt] = []
    for stmt in body:
        target = _rebinding_target(stmt, scalar_args)
        if target is not None and (target.id in rw.args or target.id in allocated or target.id in renames):
            assert isinstance(stmt, (ast.Assign, ast.AugAssign))
            value: ast.expr = stmt.value if isinstance(stmt, ast.Assign) else \
                ast.copy_location(ast.BinOp(ast.Name(target.id, ast.Load()), stmt.op, stmt.value), stmt)
            value = _Renamed(renames).visit(value)
            renames[target.id] = rw.fresh(target.id)
            out.append(ast.copy_location(ast.Assign([ast.copy_location(
                ast.Name(renames[target.id], ast.Store()), target)], value), stmt))
            continue
        if isinstance(stmt, ast.Assign) and target is not None and is_allocation(stmt.value, rw.globals):
            allocated.add(target.id)
        entering = dict(renames)
        for name in _bound_inside(stmt, rw, scalar_args, written) - set(renames):
            # an argument bound again inside this loop or branch (x = x + alpha * p): a copy of it
            # from here on, which each binding replaces (the caller's array stays as it was)
            renames[name] = rw.fresh(name)
            value = ast.Name(name, ast.Load()) if name in scalar_args else \
                ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "copy", ast.Load()), [], [])
            out.append(ast.fix_missing_locations(ast.copy_location(
                ast.Assign([ast.Name(renames[name], ast.Store())], value), stmt)))
        if isinstance(stmt, ast.For) and renames != entering:  # range() is evaluated once, before
            stmt.iter = _Renamed(entering).visit(stmt.iter)
            stmt.body, stmt.orelse = ([_Renamed(renames).visit(s) for s in b] for b in (stmt.body, stmt.orelse))
            stmt.target = _Renamed(renames).visit(stmt.target)
            out.append(stmt)
            continue
        out.append(_Renamed(renames).visit(stmt) if renames else stmt)
    return out


def _bound_inside(stmt: ast.stmt, rw: Rewriter, scalar_args: set[str], written: set[str]) -> set[str]:
    """Arguments a compound statement binds as a whole somewhere inside, or a tuple assignment
    binds (``a, b = b, a % b``), and never writes in place."""
    if not isinstance(stmt, (ast.For, ast.While, ast.If)) and not (
            isinstance(stmt, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in stmt.targets)):
        return set()
    found = set()
    for node in walk(stmt):
        targets = _names_bound(node.targets) if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AugAssign) and getattr(node.target, "id", None) in scalar_args else []
        found |= {t.id for t in targets if isinstance(t, ast.Name) and t.id in rw.args}
    return found - written


def _names_bound(targets: list[ast.expr]) -> list[ast.expr]:
    """The targets of an assignment with tuple targets spread out (``x0, f0 = x1, f1``)."""
    spread: list[ast.expr] = []
    for target in targets:
        spread += _names_bound(target.elts) if isinstance(target, (ast.Tuple, ast.List)) else [target]
    return spread


def _written_in_place(body: list[ast.stmt]) -> set[str]:
    """Names some element store or ``op=`` writes through (``x[i] = v``, ``a[i], b[i] = ...``,
    ``x += v``); binding a whole name is not a write."""
    written = set()
    for node in (n for s in body for n in walk(s)):
        targets: list[ast.expr]
        if isinstance(node, ast.AugAssign):
            targets = [node.target]
        elif isinstance(node, ast.Assign):
            targets = [e for t in node.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])
                       if isinstance(e, ast.Subscript)]
        else:
            continue
        for root in targets:
            while isinstance(root, ast.Subscript):
                root = root.value
            if isinstance(root, ast.Name):
                written.add(root.id)
    return written


def _rebinding_target(stmt: ast.stmt, scalar_args: set[str]) -> ast.Name | None:
    """The name a top-level statement binds as a whole: ``name = v``, or ``name op= v`` of a scalar
    argument (for an array, ``op=`` writes in place)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0]
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id in scalar_args:
        return stmt.target
    return None


class _Renamed(ast.NodeTransformer):
    """Every name in ``renames`` (loads and stores) -> its new name, in place."""

    def __init__(self, renames: dict[str, str]) -> None:
        self.renames = renames

    def visit_Name(self, node: ast.Name):
        node.id = self.renames.get(node.id, node.id)
        return node


# ---- 1. helper functions ------------------------------------------------------------------------

def helper_function(func: ast.expr, globals_: dict) -> types.FunctionType | None:
    """The plain Python function a call's ``func`` names (a numba dispatcher: its ``py_func``)."""
    obj = None
    if isinstance(func, ast.Name):
        obj = globals_.get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        module = globals_.get(func.value.id)
        if isinstance(module, types.ModuleType) and module.__name__.split(".")[0] not in ("numpy", "math"):
            obj = getattr(module, func.attr, None)
    obj = getattr(obj, "py_func", obj)
    return obj if isinstance(obj, types.FunctionType) else None


def _numba_dispatcher(func: ast.expr, globals_: dict) -> bool:
    """Whether a call's ``func`` names a numba dispatcher (``@njit``), not a plain function."""
    obj = globals_.get(func.id) if isinstance(func, ast.Name) else None
    return obj is not None and not isinstance(obj, types.FunctionType) and hasattr(obj, "py_func")


class Inliner(StatementTransformer):
    """Inlines the helper calls of one function body; ``stack`` names the functions being inlined."""

    def __init__(self, rw: Rewriter, globals_: dict, stack: tuple[str, ...], compiled: bool = False) -> None:
        self.rw = rw
        self.globals = globals_
        self.stack = stack
        self.compiled = compiled  # the body is a numba helper's: its calls of numba helpers box nothing
        self.pending: list[ast.stmt] = []  # a value helper's statements, run before the current statement
        self.current: ast.stmt | None = None  # the statement being inlined (value helpers that write arrays)
        self.conditional = 0  # > 0 inside an expression Python may not evaluate (a if c else b, and/or)
        self.nested = 0  # > 0 inside a loop or branch of the body

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            saved, self.pending = self.pending, []
            saved_current, self.current = self.current, stmt
            new = self.visit(stmt)
            out.extend(self.pending)
            out.extend(new if isinstance(new, list) else [new])
            self.pending, self.current = saved, saved_current
        return out

    def visit_For(self, node: ast.For):
        node.iter = self.visit(node.iter)
        with self.inside():
            node.body, node.orelse = self.block(node.body), self.block(node.orelse)
        return node

    @contextlib.contextmanager
    def inside(self):
        """Inside: the statements of a loop or a branch."""
        self.nested += 1
        try:
            yield
        finally:
            self.nested -= 1

    @contextlib.contextmanager
    def maybe_unevaluated(self):
        """Inside: an expression Python may not evaluate, or evaluates again (nothing hoisted)."""
        self.conditional += 1
        try:
            yield
        finally:
            self.conditional -= 1

    def visit_While(self, node: ast.While):
        with self.maybe_unevaluated():  # the test runs again each iteration
            node.test = self.visit(node.test)
        with self.inside():
            node.body, node.orelse = self.block(node.body), self.block(node.orelse)
        return node

    def visit_If(self, node: ast.If):
        node.test = self.visit(node.test)
        with self.inside():
            node.body, node.orelse = self.block(node.body), self.block(node.orelse)
        return node

    def visit_IfExp(self, node: ast.IfExp):
        node.test = self.visit(node.test)
        with self.maybe_unevaluated():
            node.body, node.orelse = self.visit(node.body), self.visit(node.orelse)
        return node

    def visit_BoolOp(self, node: ast.BoolOp):
        first, rest = node.values[0], node.values[1:]
        with self.maybe_unevaluated():
            rest = [self.visit(v) for v in rest]
        node.values = [self.visit(first)] + rest
        return node

    def visit_Expr(self, node: ast.Expr):
        call = node.value
        fn = helper_function(call.func, self.globals) if isinstance(call, ast.Call) else None
        if fn is None or not isinstance(call, ast.Call):
            return self.generic_visit(node)
        self.generic_visit(call)
        helper = Helper(self, fn, call, value_used=False, compiled=_numba_dispatcher(call.func, self.globals))
        if helper.has_value and helper.straight_line():
            return []  # locals and a value only: nothing to run (subset expressions have no side effects)
        return helper.statements()  # the body, its value (if any) discarded as Python does

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        fn = helper_function(node.func, self.globals)
        if fn is None:
            return node
        numba = _numba_dispatcher(node.func, self.globals)
        helper = Helper(self, fn, node, compiled=numba)
        if not helper.has_value:
            raise self.rw.error(node, f"helper {fn.__name__}() returns no value; call it as a statement",
                                "helper without a value")
        pure = helper.pure()
        writes = not pure and helper.writes_only_arrays(self.current, node, self.globals)
        box = self.boxed if numba and not self.compiled else (lambda v, _: v)  # numba's Python number
        if self.conditional or not (pure or writes) or (helper.straight_line() and (self.nested
                                                                                    or not helper.repeats_work())):
            return box(helper.expression(), fn)
        # at the top level a helper whose expression would repeat work (softmax(x @ w + b) reads
        # its argument four times) runs as statements, each value computed once
        statements, value = helper.hoisted()  # loops first, before the statement that uses the value
        if writes:  # its value now, before a later helper of the statement writes what it reads
            name = self.rw.fresh(f"{fn.__name__}_value")
            self.rw.source.user_names[name] = f"{fn.__name__}()"  # (messages: the helper's value)
            statements.append(ast.copy_location(ast.Assign([self.rw.placed(ast.Name(name, ast.Store()), node)], value),
                                                node))
            value = self.rw.placed(ast.Name(name, ast.Load()), node)
        self.pending.extend(statements)
        return box(value, fn)

    def boxed(self, value: ast.expr, fn: types.FunctionType) -> ast.expr:
        """A numba helper's ``value`` marked as numba's Python number (frontend.numba_values); a
        choice (``x.max() if x.size else 1.5``) bound to a local first where Python surely
        evaluates it, so that its branches become an if statement as a written choice's do."""
        if self.conditional or isinstance(value, ast.Tuple) or not any(isinstance(n, ast.IfExp) for n in walk(value)):
            return boxed(value)
        name = self.rw.fresh(f"{fn.__name__}_value")
        self.rw.source.user_names[name] = f"{fn.__name__}()"  # (messages: the helper's value)
        target = self.rw.placed(ast.Name(name, ast.Store()), value)
        self.pending.append(ast.copy_location(ast.Assign([target], value), value))
        return boxed(self.rw.placed(ast.Name(name, ast.Load()), value))

    def visit_Subscript(self, node: ast.Subscript):
        """``helper(...)[k]`` of a helper returning a tuple (npbench azimint_hist:
        ``histogram(radius, npt)[0]``): the inlined value is a tuple display, and its element
        ``k`` (an integer constant, negative allowed) is taken where every other element is a
        name, a constant or an attribute of a name, whose evaluation Python would only discard."""
        self.generic_visit(node)
        k = int_constant(node.slice)
        if not isinstance(node.ctx, ast.Load) or not isinstance(node.value, ast.Tuple) or k is None \
                or not -len(node.value.elts) <= k < len(node.value.elts):
            return node
        elts = node.value.elts
        if any(isinstance(e, ast.Starred) for e in elts):
            return node
        chosen = elts[k]
        if all(_discardable(e) for e in elts if e is not chosen):
            return chosen
        raise self.rw.error(node, f"element {k} of the tuple {ast.unparse(node.value)} (a helper's returned tuple "
                            "once inlined): an element is taken only where the other elements are names, constants "
                            "or attributes of names; unpack it instead (h, _ = f(x))", "tuple subscript")

    def visit_FunctionDef(self, node: ast.FunctionDef):
        return node  # nested defs are refused by the checker


def _calls_loop_builtin(tree: ast.AST, globals_: dict) -> bool:
    """Whether ``tree`` calls a builtin that polyfuse writes as a helper with loops (``np.sort``,
    ``np.median``, ``np.interp``, ``np.searchsorted``, ``np.polyval``, ``sum``)."""
    for node in walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and globals_.get(func.value.id) is np and func.attr in builtin_helpers.NUMPY_HELPERS:
            return True
        if isinstance(func, ast.Name) and func.id == "sum" and func.id not in globals_:
            return True
    return False


def _discardable(node: ast.expr) -> bool:
    """Whether evaluating ``node`` and dropping the value does nothing: a name, a constant or an
    attribute of a name (``x.shape``)."""
    return isinstance(node, (ast.Name, ast.Constant)) or \
        isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)


class Helper:
    """One call of a helper: its parsed body, renamed, with parameters bound to the arguments."""

    def __init__(self, caller: Inliner, fn: types.FunctionType, call: ast.Call, value_used: bool = True,
                 compiled: bool = False) -> None:
        rw = self.rw = caller.rw
        name = fn.__name__
        if _key(fn) in caller.stack:
            chain = " -> ".join(k.rpartition(".")[2] for k in caller.stack + (_key(fn),))
            raise rw.error(call, f"recursive call of helper {name}() ({chain}); helpers are inlined, "
                           "so they cannot recurse: write it as a loop (a recurrence over an array, or an "
                           "explicit stack: a local array of pending ranges and its count, as an iterative "
                           "quicksort keeps them)", "recursive helper")
        if len(caller.stack) > MAX_INLINE_DEPTH:
            raise rw.error(call, f"helpers nested more than {MAX_INLINE_DEPTH} deep", "deep helper nesting")
        if fn.__closure__:
            raise rw.error(call, f"helper {name}() is a closure; define helpers at module level", "closure")
        self.fn, self.call = fn, call
        local = rw.local_helpers.get(fn)  # defined in the kernel's body (frontend/local_helpers.py)
        self.source = read_source(fn) if local is None else dataclasses.replace(local, tree=copy_tree(local.tree))
        tree = self.source.tree
        # returns from inside loops: one at the end; from inside ifs too where the helper calls a
        # builtin written with loops (np.sort), whose statements need one hoisted value, not a select
        tree.body = loop_else(tree.body, rw.fresh)  # for ... else: a flag the loop's breaks set
        tree.body = single_exit(tree.body, value_used, kernel=value_used and _calls_loop_builtin(tree, fn.__globals__))
        rw.mark(tree, self._origin(fn, call))
        self.values = self._bind(tree.args)
        self.call_values = dict(self.values)  # parameter -> the argument as the call wrote it
        body = [s for s in tree.body if not _is_docstring(s)]
        stored = {n.id for s in body for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self.names = {v: rw.fresh(f"{name}_{v}") for v in sorted(stored)}
        for v, made in self.names.items():  # messages name the helper's local as the user wrote it
            rw.source.user_names[made] = v
        self.prologue: list[ast.stmt] = []
        for param in sorted(stored & set(self.values)):  # a parameter the helper assigns: a local
            target = rw.placed(ast.Name(self.names[param], ast.Store()), call)
            self.prologue.append(ast.copy_location(ast.Assign([target], self.values.pop(param)), call))
        body = Constants(rw, fn.__globals__, function_locals(tree)).block(body)
        body = Inliner(rw, fn.__globals__, caller.stack + (_key(fn),), caller.compiled or compiled).block(body)
        self._globals_used(body, stored)
        self.body = body
        self.has_value = any(isinstance(n, ast.Return) and n.value is not None
                             and not (isinstance(n.value, ast.Constant) and n.value.value is None)
                             for s in body for n in walk(s))

    def _origin(self, fn: types.FunctionType, call: ast.Call) -> KernelSource:
        """Where the helper's nodes are: its own lines, or for a helper polyfuse writes itself
        (frontend/builtin_helpers.py) the user's outermost call that led to it, with what the call
        supports (the user wrote ``np.sort(x * 2)``, not the helper's loops)."""
        if fn.__globals__.get("__name__") != builtin_helpers.__name__:
            return self.source
        at = self.rw.source.span(call)
        if not at.inlined:  # the outermost: the user's call (a nested helper keeps it)
            spelling, supported = builtin_helpers.SUPPORTED.get(fn.__name__, (f"{fn.__name__}()", ""))
            text = at.text[at.col:at.end_col].strip() or spelling
            note = f"{text}: polyfuse supports {supported}" if supported else text
            at = dataclasses.replace(at, inlined=f"{note}; in its own helper for {spelling}")
        for node in walk(self.source.tree):  # the call's line also where a later pass copies a node
            if "lineno" in node._attributes:
                ast.copy_location(node, call)
        if self.rw.origin(call) is None:  # a call of the kernel's own lines (locations of other files differ)
            self.rw.source.inlined[location_key(call)] = at
        return dataclasses.replace(self.source, at=at)

    def _bind(self, args: ast.arguments) -> dict[str, ast.expr]:
        """Parameter -> the caller's argument expression (defaults: constants)."""
        call, name = self.call, self.fn.__name__
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise self.rw.error(call, f"helper {name}() has *args, **kwargs or keyword-only parameters")
        params = [a.arg for a in args.args]
        if len(call.args) > len(params) or any(isinstance(a, ast.Starred) for a in call.args):
            raise self.rw.error(call, f"helper {name}() takes {len(params)} arguments")
        values = dict(zip(params, call.args))
        for kw in call.keywords:
            if kw.arg not in params or kw.arg in values:
                raise self.rw.error(kw.value, f"helper {name}() has no parameter {kw.arg!r} left to bind")
            values[kw.arg] = kw.value
        defaults = dict(zip(params[len(params) - len(self.fn.__defaults__ or ()):], self.fn.__defaults__ or ()))
        for param in params:
            if param in values:
                continue
            value = defaults.get(param, _MISSING)
            if type(value) not in (int, float, bool):
                raise self.rw.error(call, f"helper {name}() needs argument {param!r} (defaults must be numbers)")
            values[param] = self.rw.placed(ast.Constant(value), call)
        return values

    def _globals_used(self, body: list[ast.stmt], stored: set[str]) -> None:
        """Modules (and prange) the helper names: aliased in the kernel's globals when needed."""
        aliases: dict[str, str] = {}
        for stmt in body:
            for node in walk(stmt):
                if not isinstance(node, ast.Name) or node.id in stored or node.id in self.values:
                    continue
                obj = self.fn.__globals__.get(node.id)
                if isinstance(obj, np.ndarray) and isinstance(node.ctx, ast.Load):  # a frozen global array
                    node.id = frozen_name(self.fn.__globals__.get("__name__", ""), self.rw.globals.get("__name__", ""),
                                          node.id)
                    continue
                if obj is None or not (isinstance(obj, types.ModuleType) or _is_prange(obj)
                                       or module_attribute(obj) is not None):
                    continue
                if self.rw.globals.get(node.id) is obj:
                    continue
                alias = aliases.get(node.id) or self.rw.fresh(f"_{node.id}")
                aliases[node.id] = alias
                self.rw.globals[alias] = obj
                node.id = alias

    def substitute(self, node, values: dict[str, ast.expr]):
        return _Substitute(self.rw, values, self.names).visit(self.rw.copy(node))

    def repeats_work(self) -> bool:
        """Whether the one-expression form would compute something twice: the helper has locals,
        or reads a parameter bound to more than a name or a number at two places."""
        if len(self.body) > 1:
            return True
        uses = Counter(n.id for s in self.body for n in walk(s) if isinstance(n, ast.Name))
        return any(uses[p] > 1 and not self.plain_value(v) for p, v in self.values.items())

    def plain_value(self, value: ast.expr) -> bool:
        """A name, a number or a module's attribute (``np.float64`` as ``dtype=``): substituted
        at each use, never computed into a local first (nothing to compute; a dtype cannot be
        a local's value)."""
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
            return isinstance(self.rw.globals.get(value.value.id), types.ModuleType)
        return isinstance(value, (ast.Name, ast.Constant, ast.GeneratorExp))  # a generator: read once (below)

    def statements(self, final: ast.expr | None = None) -> list[ast.stmt]:
        """The body's statements (locals renamed, arguments bound, the helper's sizes such as
        ``n = x.shape[0]`` or an argument ``--5`` substituted where read), without a final return;
        with ``final`` (the returned expression), a ``return`` of it last, read the same way."""
        body = self.body[:-1] if self.body and isinstance(self.body[-1], ast.Return) else self.body
        for stmt in body:
            for sub in walk(stmt):
                if isinstance(sub, ast.Return):
                    raise self.rw.error(sub, f"return inside helper {self.fn.__name__}() before its end",
                                        "early return in a helper")
        indexed = {n.value.id for s in body for n in walk(s)
                   if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)}
        uses = Counter(n.id for s in body for n in walk(s) if isinstance(n, ast.Name))
        for param, value in self.values.items():
            if isinstance(value, ast.GeneratorExp) and uses[param] != 1:  # Python's generator runs out
                raise self.rw.error(value, f"a generator passed to {self.fn.__name__}(), which reads {param!r} "
                                    f"{uses[param]} times; pass a list or an array", "generator argument")
        computed = self.pure()  # a pure helper's argument that is more than a name: computed once
        for param, value in list(self.values.items()):  # the helper may write what the value reads
            if isinstance(value, ast.GeneratorExp):
                continue  # evaluated lazily where the helper iterates it, as Python's generator is
            if (param not in indexed and any(isinstance(n, (ast.Subscript, ast.Call)) for n in walk(value))) \
                    or (computed and not self.plain_value(value)):
                self.names[param] = self.rw.fresh(f"{self.fn.__name__}_{param}")
                self.rw.source.user_names[self.names[param]] = param  # (messages: the helper's parameter)
                target = self.rw.placed(ast.Name(self.names[param], ast.Store()), value)
                self.prologue.append(ast.copy_location(ast.Assign([target], self.values.pop(param)), value))
        block = self.prologue + [Normalizer(self.rw).visit(self.substitute(s, self.values)) for s in body]
        if final is not None:  # the returned value: its reads of the helper's sizes substituted too
            block.append(ast.copy_location(ast.Return(Normalizer(self.rw).visit(self.substitute(final, self.values))),
                                           final))
        stored = _stored(block)
        outside = {n.id for s in block for n in walk(s) if isinstance(n, ast.Name)} - stored
        return substitute_sizes(self.rw, block, self.rw.ints | outside)  # the helper's own sizes

    def straight_line(self) -> bool:
        """Whether the body is local assignments, ifs that return, and a final return (inlined
        as one expression)."""
        def plain(stmts: list[ast.stmt]) -> bool:
            for stmt in stmts:
                if isinstance(stmt, ast.If) and _returns(stmt.body):
                    if not (plain(stmt.body) and plain(stmt.orelse)):
                        return False
                elif not (isinstance(stmt, ast.Return) or (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                                                           and isinstance(stmt.targets[0], ast.Name))):
                    return False
            return True
        return plain(self.body)

    def _parameters(self) -> set[str]:
        code = self.fn.__code__
        return set(code.co_varnames[:code.co_argcount])

    def _stored_arrays(self) -> Iterator[ast.expr]:
        """What each subscripted store of the body writes into (``a[i][j] = v``: ``a``)."""
        for stmt in self.body:
            for node in walk(stmt):
                if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                    root = node.value
                    while isinstance(root, ast.Subscript):
                        root = root.value
                    yield root

    def _returns_once_at_its_end(self) -> bool:
        returns = [n for s in self.body for n in walk(s) if isinstance(n, ast.Return)]
        return bool(self.body) and len(returns) == 1 and returns[0] is self.body[-1]

    def pure(self) -> bool:
        """Whether the helper writes only its own names (then running it before the statement that
        calls it cannot change what the statement reads), and ends with its only return."""
        params = self._parameters()
        if any(not isinstance(root, ast.Name) or root.id in params for root in self._stored_arrays()):
            return False
        if any(isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in params
               for stmt in self.body for node in walk(stmt)):
            return False
        return self._returns_once_at_its_end()

    def writes_only_arrays(self, statement: ast.stmt | None, call: ast.Call, globals_: dict) -> bool:
        """Whether the helper, not pure, writes only arrays the caller passed by name (union-find's
        ``find(parent, x)``, which compresses ``parent``'s paths), returns once at its end, and the
        calling ``statement`` reads none of those arrays outside ``call`` and other helpers' calls
        (``globals_``: the caller's): then its body can run just before the statement, as Python
        runs it during the statement."""
        if statement is None or not self._returns_once_at_its_end():
            return False
        params = self._parameters()
        written: set[str] = set()
        for root in self._stored_arrays():
            if isinstance(root, ast.Name) and root.id in params:
                value = self.call_values.get(root.id)
                if not isinstance(value, ast.Name):
                    return False
                written.add(value.id)
        return not (written & _names_outside(statement, call, globals_))

    def hoisted(self) -> tuple[list[ast.stmt], ast.expr]:
        """The body's statements (locals renamed, arguments bound) and its returned expression."""
        final = self.body[-1]
        assert isinstance(final, ast.Return) and final.value is not None, "pure() checked it"
        statements = self.statements(final.value)  # one block, so a size it drops is substituted in the value too
        last = statements.pop()
        assert isinstance(last, ast.Return) and last.value is not None
        return statements, last.value

    def expression(self) -> ast.expr:
        """``return expr`` after simple ``local = expr`` lines: the expression, locals substituted."""
        values = dict(self.values)
        for stmt in self.prologue:  # parameters the helper reassigns start as the arguments
            assert isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)
            original = next(k for k, v in self.names.items() if v == stmt.targets[0].id)
            values[original] = stmt.value
        return self._value_of(self.body, values)

    def _value_of(self, stmts: list[ast.stmt], values: dict[str, ast.expr]) -> ast.expr:
        """Straight-line local assignments, ifs whose branches return, and a final return."""
        for k, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                return self.substitute(stmt.value, values)
            if isinstance(stmt, ast.If) and _returns(stmt.body):
                then = self._value_of(stmt.body, dict(values))
                other = self._value_of(stmt.orelse + stmts[k + 1:], dict(values))
                return self._choice(stmt, self.substitute(stmt.test, values), then, other)
            if isinstance(stmt, ast.If) and not any(isinstance(n, ast.Return) for n in walk(stmt)):
                self._branch_values(stmt, values)  # if/elif/else assigning locals: each a choice
                continue
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):  # h += 1.0
                target = stmt.target.id
                original = next((k for k, v in self.names.items() if v == target), target)
                if original not in values:
                    raise self.rw.error(stmt, f"local {target!r} of helper {self.fn.__name__}() is updated before "
                                        "it is assigned", "statement in a value helper")
                update = ast.copy_location(ast.BinOp(self.rw.copy(values[original]), stmt.op,
                                                     self.substitute(stmt.value, values)), stmt)
                self.rw.mark_one(update, self.rw.origin(stmt))
                values[original] = update
                continue
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                raise self.rw.error(stmt, f"helper {self.fn.__name__}() returns a value, so its body may only "
                                    "assign locals, and return from ifs, before 'return expr' here (a value "
                                    "helper with loops runs before the statement that calls it where Python "
                                    "surely calls it, not in 'a if c else b', 'and'/'or' or a while test, and "
                                    "where the rest of that statement reads no array the helper writes)",
                                    "statement in a value helper")
            target = stmt.targets[0].id
            original = next((k for k, v in self.names.items() if v == target), target)
            values[original] = self.substitute(stmt.value, values)  # straight-line: in order
        raise self.rw.error(self.call, f"helper {self.fn.__name__}() may end without returning a value",
                            "helper without a value")

    def _choice(self, at: ast.AST, test: ast.expr, then: ast.expr, other: ast.expr) -> ast.expr:
        """``then if test else other``; of two tuple displays of one length (a helper that returns
        ``b, a`` from an if and ``a, b`` at its end), the display of each item's choice, the
        form numba's unified tuple type has and tuple consumers read."""
        if isinstance(then, ast.Tuple) and isinstance(other, ast.Tuple) and len(then.elts) == len(other.elts) \
                and not any(isinstance(e, ast.Starred) for e in then.elts + other.elts):
            items = [self._choice(at, self.rw.copy(test), a, b) for a, b in zip(then.elts, other.elts)]
            display = ast.copy_location(ast.Tuple(items, ast.Load()), at)
            self.rw.mark_one(display, self.rw.origin(at))
            return display
        choice = ast.copy_location(ast.IfExp(test, then, other), at)
        self.rw.mark_one(choice, self.rw.origin(at))
        return choice

    def _branch_values(self, stmt: ast.If, values: dict[str, ast.expr]) -> None:
        """``values`` after an if that returns nowhere and only assigns locals (``if mx == r: h =
        ...`` / ``elif`` / ``else``): each local a branch assigns is the choice of its value in each
        branch (its value before the if where a branch leaves it); one assigned on one path only,
        with no value before, is refused (Python's UnboundLocalError where it is read)."""
        test = self.substitute(stmt.test, values)
        then, other = dict(values), dict(values)
        self._straight(stmt.body, then)
        self._straight(stmt.orelse, other)
        for name in [*then, *(n for n in other if n not in then)]:
            a, b = then.get(name), other.get(name)
            if a is values.get(name) and b is values.get(name):
                continue
            if a is None or b is None:
                raise self.rw.error(stmt, f"local {name!r} of helper {self.fn.__name__}() is assigned on one branch "
                                    "of this if only and has no value before it; assign it before the if",
                                    "statement in a value helper")
            values[name] = self._choice(stmt, self.rw.copy(test), a, b)

    def _straight(self, stmts: list[ast.stmt], values: dict[str, ast.expr]) -> None:
        """``values`` after ``stmts``: local assignments and ifs that return nowhere (a value
        helper's branch that does not return)."""
        for stmt in stmts:
            if isinstance(stmt, ast.If) and not any(isinstance(n, ast.Return) for n in walk(stmt)):
                self._branch_values(stmt, values)
                continue
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                original = next((k for k, v in self.names.items() if v == stmt.target.id), stmt.target.id)
                if original in values:
                    update = ast.copy_location(ast.BinOp(self.rw.copy(values[original]), stmt.op,
                                                         self.substitute(stmt.value, values)), stmt)
                    self.rw.mark_one(update, self.rw.origin(stmt))
                    values[original] = update
                    continue
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                raise self.rw.error(stmt, f"helper {self.fn.__name__}() returns a value, so its body may only "
                                    "assign locals, and return from ifs, before 'return expr' here", "statement in a "
                                    "value helper")
            target = stmt.targets[0].id
            original = next((k for k, v in self.names.items() if v == target), target)
            values[original] = self.substitute(stmt.value, values)


_MISSING = object()


def _array_expression(node: ast.expr, globals_: dict) -> bool:
    """Whether ``node`` is an expression whose value can only be an array in the subset: arithmetic,
    a slice, ``.T`` or a call of a NumPy function (``np.unique(x)``); not a name, a literal, a
    tuple or a builtin's call (``len(range(n))`` stays the lifter's)."""
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return True
    if isinstance(node, ast.Subscript):
        return any(isinstance(part, ast.Slice) for part in walk(node.slice))
    if isinstance(node, ast.Attribute):
        return node.attr == "T"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        return globals_.get(node.func.value.id) is np
    return False


class _Substitute(ast.NodeTransformer):
    """Parameters and locals read -> their values (copies); names written -> fresh names."""

    def __init__(self, rw: Rewriter, values: dict[str, ast.expr], names: dict[str, str]) -> None:
        self.rw, self.values, self.names = rw, values, names

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return self.rw.copy(self.values[node.id])
        if node.id in self.names:
            node.id = self.names[node.id]
        return node


def _ends(stmts: list[ast.stmt]) -> bool:
    """Whether a block never runs past its end: it ends in a return, an if whose branches both
    end so, or a ``while True:`` loop without a ``break`` of its own (a search that returns from
    inside its loop)."""
    last = stmts[-1] if stmts else None
    if isinstance(last, ast.If):
        return _ends(last.body) and _ends(last.orelse)
    if isinstance(last, ast.While) and isinstance(last.test, ast.Constant) and last.test.value is True:
        return not own_breaks(last.body)
    return isinstance(last, ast.Return)


def _returns(stmts: list[ast.stmt]) -> bool:
    """Whether a block always ends in a return."""
    last = stmts[-1] if stmts else None
    if isinstance(last, ast.If):
        return _returns(last.body) and _returns(last.orelse)
    return isinstance(last, ast.Return)


def _names_outside(tree: ast.AST, skip: ast.AST, globals_: dict) -> set[str]:
    """The names in ``tree`` outside the subtree ``skip`` and outside calls of helpers (which run
    before the statement too, in the order Python calls them)."""
    if tree is skip or isinstance(tree, ast.Call) and helper_function(tree.func, globals_) is not None:
        return set()
    found = {tree.id} if isinstance(tree, ast.Name) else set()
    for child in ast.iter_child_nodes(tree):
        found |= _names_outside(child, skip, globals_)
    return found


def _stored(stmts: list[ast.stmt]) -> set[str]:
    return {n.id for s in stmts for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _key(fn) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


# ---- 2. len, negative axes, size, ndim ----------------------------------------------------------

class Normalizer(ast.NodeTransformer):
    """``len(a)``, ``a.shape[-k]``, ``a.size`` and ``a.ndim`` in ``X.shape[d]`` form, where ``a`` is
    an array argument ``X`` or a partial index of it (``X[i]``: its rows' extents)."""

    def __init__(self, rw: Rewriter) -> None:
        self.rw = rw

    def shape(self, array: str, axis: int, like: ast.AST) -> ast.expr:
        return _shape_at(self.rw, array, axis, like)

    def local(self, node: ast.expr) -> list[ast.expr] | None:
        """The allocated extents of a kernel-local array named by ``node``."""
        return self.rw.local_extents.get(node.id) if isinstance(node, ast.Name) else None

    def extent(self, extents: list[ast.expr], axis: int, like: ast.AST) -> ast.expr:
        return self.rw.placed(self.rw.copy(extents[axis]), like)

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr in ALLOCATORS and node.args:
            dims = self.shape_tuple(node.args[0])
            if dims is not None:  # np.zeros(X.shape): the tuple of X's extents
                node.args[0] = self.rw.placed(ast.Tuple(dims, ast.Load()), node.args[0])
        if isinstance(node.func, ast.Name) and node.func.id == "len" and "len" not in self.rw.globals \
                and len(node.args) == 1 and not node.keywords:
            dims = self.shape_tuple(node.args[0])
            if dims is not None:  # len(X.shape): X's rank
                return self.rw.placed(ast.Constant(len(dims)), node)
            view = _view(node.args[0], self.rw.ranks)
            if view is not None and view[1] < self.rw.ranks[view[0]]:
                return self.shape(view[0], view[1], node)
            extents = self.local(node.args[0])
            if extents:
                return self.extent(extents, 0, node)
            if (isinstance(node.args[0], ast.Name) and node.args[0].id not in self.rw.args) \
                    or _array_expression(node.args[0], self.rw.globals):
                # another local (an array temporary, a view) or an array expression (len(a + b),
                # len(a[1:]), len(np.unique(x))): len(e) is e.shape[0], which the NumPy lowering
                # knows; of anything else the lifter reports the .shape
                shape = ast.Attribute(self.rw.copy(node.args[0]), "shape", ast.Load())
                return self.rw.placed(ast.Subscript(shape, ast.Constant(0), ast.Load()), node)
        return node

    def visit_Return(self, node: ast.Return):
        self.generic_visit(node)
        if node.value is not None:
            node.value = self.returned_shapes(node.value)
        return node

    def returned_shapes(self, value: ast.expr) -> ast.expr:
        """A returned ``X.shape`` (alone or in a returned tuple) as the tuple of its extents,
        ``(X.shape[0], X.shape[1])``, where ``X``'s rank is known here: the Python ints NumPy gives."""
        if isinstance(value, ast.Tuple):
            value.elts = [self.returned_shapes(e) for e in value.elts]
            return value
        dims = self.shape_tuple(value)
        return value if dims is None else self.rw.placed(ast.Tuple(dims, ast.Load()), value)

    def shape_tuple(self, node: ast.expr) -> list[ast.expr] | None:
        """The extents ``a.shape`` names, one expression each, for an array argument (or a
        partial index of one) or a kernel-local array of known extents; None otherwise."""
        if not (isinstance(node, ast.Attribute) and node.attr == "shape"):
            return None
        view = _view(node.value, self.rw.ranks)
        if view is not None:
            array, depth = view
            return [self.shape(array, axis, node) for axis in range(depth, self.rw.ranks[array])]
        extents = self.local(node.value)
        return None if extents is None else [self.extent(extents, axis, node) for axis in range(len(extents))]

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        extents = self.local(node.value.value) if isinstance(node.value, ast.Attribute) \
            and node.value.attr == "shape" else None
        axis = int_constant(node.slice)
        if extents is not None and axis is not None and -len(extents) <= axis < len(extents):
            return self.extent(extents, axis % len(extents), node)
        view = _shape_of(node.value, self.rw.ranks)
        if view is None or axis is None or (view[1] == 0 and axis >= 0):
            return node  # X.shape[d] is already the subset's form
        array, depth = view
        left = self.rw.ranks[array] - depth
        if -left <= axis < left:
            return self.shape(array, depth + axis % left, node)
        return node

    def visit_Attribute(self, node: ast.Attribute):
        self.generic_visit(node)
        view = _view(node.value, self.rw.ranks) if node.attr in ("ndim", "size") else None
        if view is None:
            return node
        array, depth = view
        if node.attr == "ndim":
            return self.rw.placed(ast.Constant(self.rw.ranks[array] - depth), node)
        product = self.shape(array, depth, node)
        for axis in range(depth + 1, self.rw.ranks[array]):
            product = self.rw.placed(ast.BinOp(product, ast.Mult(), self.shape(array, axis, node)), node)
        return product


def _view(node: ast.expr, ranks: dict[str, int]) -> tuple[str, int] | None:
    """``(X, k)`` when ``node`` is array argument ``X`` indexed by ``k`` integers (no slices)."""
    depth = 0
    while isinstance(node, ast.Subscript):
        index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if any(isinstance(i, (ast.Slice, ast.Starred)) or not _integer_like(i, ranks) for i in index):
            return None
        depth += len(index)
        node = node.value
    if isinstance(node, ast.Name) and node.id in ranks and depth <= ranks[node.id]:
        return node.id, depth
    return None


def _integer_like(index: ast.expr, ranks: dict[str, int]) -> bool:
    """Whether a subscript may be one integer, not an array: no comparison, mask operator,
    slice, list or NumPy call in it, and no array argument read whole (``X[X[:, 0] > t]`` selects
    rows: its ``shape[0]`` is their count, not ``X.shape[1]``)."""
    for n in walk(index):
        if isinstance(n, (ast.Compare, ast.BoolOp, ast.Slice, ast.List, ast.Tuple, ast.ListComp, ast.Invert,
                          ast.BitAnd, ast.BitOr, ast.BitXor)):
            return False
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            return False  # np.argsort(x), x.nonzero(): may be arrays
    whole = {n.id for n in walk(index) if isinstance(n, ast.Name) and n.id in ranks}
    inside = {s.value.id for s in walk(index) if isinstance(s, ast.Subscript) and isinstance(s.value, ast.Name)}
    return not (whole - inside)


def _shape_of(node: ast.expr, ranks: dict[str, int]) -> tuple[str, int] | None:
    """The view whose ``.shape`` ``node`` is."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return _view(node.value, ranks)
    return None


# ---- 3. integer locals that are sizes -----------------------------------------------------------

def substitute_sizes(rw: Rewriter, body: list[ast.stmt], ints: set[str] | None = None) -> list[ast.stmt]:
    """Drop top-level ``n = <affine in sizes>`` definitions and put the expression at each use;
    ``ints``: the names that do not change in ``body`` (default: the integer arguments)."""
    ints = rw.ints if ints is None else ints
    stores: Counter[str] = Counter()
    loads: Counter[str] = Counter()
    for n in (n for s in body for n in walk(s)):  # one walk for both counts
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Load)):
            (stores if isinstance(n.ctx, ast.Store) else loads)[n.id] += 1
    return _sizes_of_block(rw, body, ints, {}, stores, loads, top=True)


def _sizes_of_block(rw: Rewriter, body: list[ast.stmt], ints: set[str], outer: dict[str, ast.expr],
                    stores: Counter, loads: Counter, *, top: bool) -> list[ast.stmt]:
    """``substitute_sizes`` of one block and the blocks nested in it; ``outer``: the sizes of
    the enclosing blocks.  In a nested block a definition counts only where it reads an extent
    and every load of its name in the whole body (``loads``) follows it in this block (a helper
    inlined in an ``if`` branch: its ``n = y.shape[0]``), so no read elsewhere sees it undefined."""
    sizes: dict[str, ast.expr] = dict(outer)
    loaded: set[str] = set()
    out: list[ast.stmt] = []
    for k, stmt in enumerate(body):
        pairs = _definitions(stmt, rw)
        if pairs and all(stores[n.id] == 1 and n.id not in loaded and n.id not in rw.args and n.id not in ints
                         and _is_size(v, rw, ints, sizes) and (top or (_loads(body[k + 1:], n.id) == loads[n.id]
                                                                         and _reads_extent(v)))
                         for n, v in pairs):
            for name, value in pairs:
                sizes[name.id] = _SizeUses(rw, sizes).visit(rw.copy(value))
            continue
        if sizes:
            stmt = _SizeUses(rw, sizes).visit(stmt)
        loaded.update(n.id for n in walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
        if isinstance(stmt, (ast.If, ast.For, ast.While)):
            stmt.body = _sizes_of_block(rw, stmt.body, ints, sizes, stores, loads, top=False)
            stmt.orelse = _sizes_of_block(rw, stmt.orelse, ints, sizes, stores, loads, top=False)
        out.append(stmt)
    return out


def _reads_extent(value: ast.expr) -> bool:
    """Whether ``value`` reads an array's extent (``y.shape[0] - 1``): in a nested block only
    such definitions are sizes (a constant there, such as a list's ``out__item = 1``, stays a
    local whose type later passes read)."""
    return any(isinstance(n, ast.Attribute) and n.attr == "shape" for n in walk(value))


def _loads(stmts: list[ast.stmt], name: str) -> int:
    return sum(1 for s in stmts for n in walk(s) if isinstance(n, ast.Name) and n.id == name
               and isinstance(n.ctx, ast.Load))


def _definitions(stmt: ast.stmt, rw: Rewriter) -> list[tuple[ast.Name, ast.expr]]:
    """``(name, value)`` pairs a top-level assignment defines; [] when it is not of that form."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return []
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Name):
        return [(target, value)]
    if not (isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts)):
        return []
    names = [t for t in target.elts if isinstance(t, ast.Name)]
    view = _shape_of(value, rw.ranks)
    if view is not None:
        array, depth = view
        if len(names) != rw.ranks[array] - depth:
            raise rw.error(stmt, f"{len(names)} names unpack {ast.unparse(value)}, but it has "
                           f"{rw.ranks[array] - depth} axes", "shape unpacking")
        return [(n, _shape_at(rw, array, depth + d, value)) for d, n in enumerate(names)]
    if isinstance(value, ast.Tuple) and len(value.elts) == len(names):
        return list(zip(names, value.elts))
    return []


def _shape_at(rw: Rewriter, array: str, axis: int, like: ast.AST) -> ast.expr:
    return rw.placed(shape_node(array, axis), like)


def _is_size(node: ast.expr, rw: Rewriter, ints: set[str], sizes: dict[str, ast.expr]) -> bool:
    """Whether ``node`` is affine in ``ints``, extents and earlier sizes."""
    if int_constant(node) is not None:
        return True
    if isinstance(node, ast.Name):
        return node.id in ints or node.id in sizes
    if isinstance(node, ast.Subscript):
        view, axis = _shape_of(node.value, rw.ranks), int_constant(node.slice)
        return view is not None and view[1] == 0 and axis is not None and 0 <= axis < rw.ranks[view[0]]
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.USub, ast.UAdd)) and _is_size(node.operand, rw, ints, sizes)
    if isinstance(node, ast.BinOp):
        sides = _is_size(node.left, rw, ints, sizes) and _is_size(node.right, rw, ints, sizes)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            return sides
        if isinstance(node.op, ast.Mult):
            return sides and (int_constant(node.left) is not None or int_constant(node.right) is not None)
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
            divisor = int_constant(node.right)
            return sides and divisor is not None and divisor > 0
        return False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max") \
            and node.func.id not in rw.globals and len(node.args) >= 2 and not node.keywords:
        return all(_is_size(a, rw, ints, sizes) for a in node.args)
    return False


class _SizeUses(ast.NodeTransformer):
    """Each read of a size local -> its defining expression, at the place of the read."""

    def __init__(self, rw: Rewriter, sizes: dict[str, ast.expr]) -> None:
        self.rw, self.sizes = rw, sizes

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.sizes:
            return self.rw.placed(copy.deepcopy(self.sizes[node.id]), node)
        return node


# ---- 4. prange ----------------------------------------------------------------------------------

def _is_prange(obj) -> bool:
    """numba.prange, or polyfuse.prange (which is ``range``)."""
    return obj is range or (getattr(obj, "__name__", "") == "prange"
                            and str(getattr(obj, "__module__", "")).startswith("numba"))


def _is_prange_call(node: ast.expr, globals_: dict) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in globals_ and _is_prange(globals_[func.id])
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr == "prange":
        module = globals_.get(func.value.id)
        return isinstance(module, types.ModuleType) and _is_prange(getattr(module, "prange", None))
    return False


def prange_to_range(rw: Rewriter, stmt: ast.stmt) -> None:
    """``for i in prange(...)`` -> ``for i in range(...)`` (in place)."""
    for node in walk(stmt):
        if isinstance(node, ast.For) and _is_prange_call(node.iter, rw.globals):
            call = node.iter
            assert isinstance(call, ast.Call)
            call.func = rw.placed(ast.Name("range", ast.Load()), call.func)
            rw.source.pranges[id(node)] = node
