"""Typed value expressions of statement bodies: Python AST -> polyfuse IR.

Operands are cast to the result dtype here, so backends see uniformly typed operations.
Each array element read is also recorded as an isl access (``read_texts``).
"""

from __future__ import annotations

import ast
import contextlib
import copy
import types
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import cast

import islpy as isl
import numpy as np

from polyfuse.errors import UnsupportedError
from polyfuse.model import ir
from polyfuse.model.scop import isl_name

from . import source
from .affine import Affine
from .checker import is_numpy_abs_call, is_prefix_index_call, is_reassoc_call, module_of
from .complex_power import complex_power, int_power
from .control import access_text, read_names, runtime_subscript
from .local_versions import version_read
from .numba_values import BOXED, TUPLE_INDEX
from .returns import STRONG, inherited_flag, python_kind
from .scalars import (
    ScalarCalls,
    check_int_literals,
    comparison_type,
    complex_checked,
    component,
    division_checked,
    exact_extreme,
    kind_checked,
    located,
    module_constant,
    negative_power,
    range_checked,
    surely_nonzero,
)
from .scalars import arity as scalar_arity
from .types import (
    BOOL,
    INTS,
    WEAK_COMPLEX,
    WEAK_FLOAT,
    WEAK_INT,
    VType,
    argument_type,
    coerced,
    complex_result,
    merged,
    promote,
    true_divide,
    vtype,
)
from .types import bitwise as bitwise_type

BITWISE = {ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}
OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
        ast.Pow: "**", **BITWISE}
_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


_LARGE = 1 << 40  # sizes this large: a read that fails there fails for ordinary calls


class ExpressionLifter:
    def __init__(self, lifter, scope) -> None:
        self.lifter = lifter
        self.scope = scope
        self.read_texts: list[tuple[str, object]] = []  # (isl access text, guard set or None)
        self.guards: list = []  # affine conditions of the enclosing guarded selects
        # > 0 inside an operand Python evaluates only where data decides (a branch of
        # ``a if d else b``, the operands after the first of ``d and b``)
        self.data_guarded = 0
        # ``a if c else b`` whose branches differ in type: Python's value has the type of the
        # branch taken, so no one promoted type is exact.  Each such Select by id -> (it, its
        # branches as converted), and each node whose value is one by id -> its SplitForm:
        # ``convert`` pushes a consumer into the branches, ``coerce`` and ``truth`` too.  (Each
        # entry holds its key's object, so that id is not reused while the entry lives.)
        self.splits: dict[int, tuple[ir.Expr, tuple[ir.Select, ir.Expr, ir.Expr]]] = {}
        self.split_forms: dict[int, SplitForm] = {}
        # each node's value as converted; > 0 while a pushed form is converted, whose operands
        # (the consumer's other operands, the choice's test and branches) are the nodes
        # converted already, read where Python reads them: their values are reused, so nested
        # pushes cost each node once, not once per enclosing push (3**k for k choices)
        self.converted: dict[int, tuple[ast.expr, ir.Expr]] = {}
        self.reusing = 0

    def record_read(self, text: str) -> None:
        guard = None
        for condition in self.guards:
            guard = condition if guard is None else guard.intersect(condition)
        self.read_texts.append((text, guard))

    def coerce(self, expr: ir.Expr, target: VType) -> ir.Expr:
        """``expr`` converted to ``target``'s dtype (a no-op when it already has it); a select of
        branches of different types converts each branch (``x64[i] = f32[i] if c else 0.1``
        stores 0.1, not float32(0.1))."""
        split = self.split_of(expr)
        if split is not None and vtype(expr) != target:
            # a branch's Python int meets ``target`` here (out_int16[i] = t - 1 of t = s): checked
            then, otherwise = (self.coerce(branch, target) for branch in range_checked(self.lifter, split[1:], target))
            return ir.Select(split[0].cond, then, otherwise, target.dtype, target.weak, split[0].guarded)
        return coerced(expr, target)

    def split_of(self, expr: ir.Expr) -> tuple[ir.Select, ir.Expr, ir.Expr] | None:
        """The select and its branches where ``expr`` is ``a if c else b`` of branches of different types
        (or stands for one: ``min(x_f32[0], 0.1)``, whose select tests ``0.1 < x_f32[0]``)."""
        entry = self.splits.get(id(expr))
        return entry[1] if entry is not None and entry[0] is expr else None

    def convert(self, node: ast.expr) -> ir.Expr:
        entry = self.converted.get(id(node)) if self.reusing else None
        if entry is not None and entry[0] is node:
            return entry[1]
        value = self._converted(node)
        self.converted[id(node)] = (node, value)
        return value

    def _converted(self, node: ast.expr) -> ir.Expr:
        handler = getattr(self, f"_{type(node).__name__}", None)
        if handler is None:
            raise self.lifter.error(node, f"unsupported expression {ast.unparse(node)!r}")
        result: ir.Expr | None = None
        try:
            result = handler(node)
        except UnsupportedError:  # may be of the promoted type only: 1000 + (k_int8[0] if c else 1)
            if not self._splits(node):
                raise
        splits = self._splits(node)  # (known once the operands are converted)
        if not splits:
            assert result is not None
            return result
        return self._settled(node, result, self._pushed(node, splits[0]), splits)

    def _splits(self, node: ast.expr) -> list[SplitForm]:
        return [form for form in (self.split_form(child) for child in _operands(node)) if form is not None]

    def split_form(self, node: ast.expr) -> SplitForm | None:
        """How ``node``'s value chooses between branches of different types, if it does."""
        entry = self.split_forms.get(id(node))
        return entry if entry is not None and entry.node is node else None

    def _pushed(self, node: ast.expr, split: SplitForm) -> ast.IfExp:
        """``f(a if c else b)`` as ``f(a) if c else f(b)`` where an operand that Python always
        evaluates is a choice of branches of different types: Python applies ``f`` to the branch's
        own type (``(np.float32(v) if c else 0.1) + 1`` is a float32 or the float 1.1), and the
        two branches of the result may agree again (a comparison, ``float(...)``).  The other
        operands run in each branch, where Python runs them (pure values: the order does not
        matter)."""
        field, index = next((f, k) for f, k in _operand_fields(node)
                            if (getattr(node, f) if k is None else getattr(node, f)[k]) is split.node)
        then, otherwise = (_with_operand(node, field, index, branch) for branch in (split.form.body, split.form.orelse))
        return ast.copy_location(source.IfExp(split.form.test, then, otherwise), node)

    def _settled(self, node: ast.expr, result: ir.Expr | None, pushed: ast.IfExp, splits: list[SplitForm]) -> ir.Expr:
        """The value of ``node`` whose operand ``splits[0]`` chooses between types: ``pushed``
        converted, its consumer in each branch; or ``result``, the consumer of the promoted
        choice, where that is the same (one split operand whose promoted type is the consumer's
        result type, as each branch's is: ``s + (x_f32[i] if x_f32[i] > 0 else 0.0)`` of a
        float32 ``s`` stays ``s + select``, a reduction the backends know)."""
        self.reusing += 1
        try:
            value = self.convert(pushed)
        finally:
            self.reusing -= 1
        form = self.split_form(pushed)
        if form is not None:  # still of different types: the consumer of ``node`` goes in too
            self.split_forms[id(node)] = SplitForm(node, form.form, form.merged)
            return value
        if result is not None and self.split_of(result) is None and len(splits) == 1 \
                and vtype(value) == vtype(result) == splits[0].merged:
            return result
        return value

    def _Constant(self, node: ast.Constant) -> ir.Expr:
        value = node.value
        if isinstance(value, bool):
            return ir.Const(value, "bool", True)  # a Python bool: weak (NEP 50)
        if isinstance(value, int):
            if not -(2**63) <= value < 2**63:
                raise self.lifter.error(node, "integer literal does not fit in int64")
            return ir.Const(value, "int64", True)
        if isinstance(value, complex):
            return ir.complex_const(value)
        assert isinstance(value, float), "the subset checker admits bool, int, float and complex literals only"
        return ir.Const(value, "float64", True)

    def _Name(self, node: ast.Name) -> ir.Expr:
        name = node.id
        if name in self.lifter.region_vars:  # a loop variable inside a loop kept as written
            return ir.Var(f"_pf_{name}", "int64", True)  # frontend.opaque.region_var
        if name in self.scope.loop_vars:
            return ir.Var(isl_name(name), "int64", True)
        if name in self.lifter.sizes:  # a size the call computes (frontend.arrays reshape_copy)
            return ir.Var(name, "int64", True)
        arg = self.lifter.arguments.get(name)
        if arg is not None and arg.kind != "array":  # travels as an int64, float64 or complex128
            return self.coerce(ir.Var(name, arg.dtype, True), argument_type(arg))
        versions = self.lifter.split.get(name)
        if versions is not None:  # given values of different types: one version per type
            form = version_read(node, versions)
            value = self.convert(form)
            if self.split_of(value) is not None:
                self.split_forms[id(node)] = SplitForm(node, cast(ast.IfExp, form), vtype(value))
            return value
        info = self.lifter.arrays.get(name)
        if info is not None and info.is_scalar:
            t = self.lifter.scalar_type(name)
            self.record_read(f"{isl_name(name)}[]")
            # the type found so far, while the fixpoint runs (the local is stored in its first one
            # until then): s = 0; s += x_uint64[i]; s = s * 3 reads a uint64, not a strong int64
            return ir.Load(name, (), t.dtype if t else info.dtype, t.weak if t else False)
        if arg is not None or info is not None:
            raise self.lifter.error(node, f"whole-array use of {name!r}; index it element by element",
                                    "whole-array expression")
        if name in self.lifter.scalar_types:
            raise self.lifter.error(node, f"local {name!r} is read before it is assigned")
        if name in self.lifter.globals and not isinstance(self.lifter.globals[name], types.ModuleType):
            kind = type(self.lifter.globals[name]).__name__
            raise self.lifter.error(node, f"global {name!r} (a {kind}) is not a value a kernel can read; globals "
                                    "may be numbers, NumPy arrays and tuples (or tuples of equal-length tuples) of numbers of one type (constants "
                                    "frozen when the kernel compiles, as numba freezes them): pass it as an "
                                    "argument", "global value")
        raise self.lifter.error(
            node, f"name {name!r} is not an argument, loop variable or local assigned earlier",
            "unknown name",
        )

    def subscript(self, node: ast.Subscript, write: bool = False) -> tuple[str, list[Affine]]:
        """The array and affine index of ``A[i, j]`` or ``A[i][j]``."""
        items: list[ast.expr] = []
        base: ast.expr = node
        while isinstance(base, ast.Subscript):
            sl = base.slice
            items[:0] = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            base = base.value
        if isinstance(base, ast.Name) and base.id not in self.lifter.arrays \
                and isinstance(self.lifter.globals.get(base.id), np.ndarray):
            raise self.lifter.error(node, f"{base.id!r} is a global NumPy array (numba freezes those into the "
                                    "compiled code as constants); polyfuse reads arrays as arguments: pass "
                                    f"{base.id} to the kernel", "global array")
        if isinstance(base, ast.Name) and base.id not in self.lifter.arrays and base.id in self.lifter.globals:
            self._Name(base)  # a global tuple of tuples, a list: says which globals a kernel reads
        if not isinstance(base, ast.Name) or base.id not in self.lifter.arrays or \
                self.lifter.arrays[base.id].is_scalar:
            raise self.lifter.error(node, f"{ast.unparse(node)!r} does not index an array argument "
                                    "or local array")
        info = self.lifter.arrays[base.id]
        if len(items) != info.rank:
            raise self.lifter.error(node, f"{base.id!r} has rank {info.rank} but is indexed with "
                                    f"{len(items)} subscript(s); partial indexing and slices are "
                                    "not supported")
        index = [self.index_item(item, info, axis, write) for axis, item in enumerate(items)]
        if not write:
            self.record_read(access_text(isl_name(base.id), info, index))
        return base.id, index

    def index_item(self, item: ast.expr, info, axis: int, write: bool = False) -> Affine:
        """An affine subscript, else one computed at run time (frontend.control).  An affine
        read that only runs where data decides (inside ``if x[i] > 0:``, a branch of ``a if d
        else b``) and may fall outside its axis for sizes the call cannot rule out is computed
        at run time too: checked where Python reads it (IndexError as Python), not refused per
        call for every call (``if d > 0: s = x[5]`` of a shorter ``x``)."""
        if is_prefix_index_call(item):  # checked against the count of a buffer's elements
            return runtime_subscript(self, item.args[0], info, axis, extent=item.args[1])
        try:
            affine = self.lifter.affine(item, self.scope)
        except UnsupportedError:
            return runtime_subscript(self, item, info, axis)
        guarded = bool(self.lifter.guards or self.data_guarded)
        if not write and guarded and self._checked_where_read(affine, info, axis):
            return runtime_subscript(self, item, info, axis)
        if (write or not guarded) and info.extent_texts:  # checked per call: those sizes are refused anyway
            self.lifter.unguarded.append((self._domain(), affine.text, info.extent_texts[axis]))
        return affine

    def _domain(self):
        domain = self.scope.domain
        for condition in self.guards:
            domain = domain.intersect(condition)
        return domain

    def _outside(self, domain, text: str, extent: str):
        """The sizes where ``text`` falls outside ``[0, extent)`` somewhere in ``domain``."""
        iters = ", ".join(domain.get_var_names(isl.dim_type.set))
        outside = isl.Set(f"{self.lifter.prefix} -> {{ [{iters}] : {text} < 0 or {text} >= {extent} }}")
        return domain.intersect(outside).params()

    def _refused_sizes(self):
        """The sizes where an access lifted so far outside data-dependent guards falls outside its
        array: calls with them are refused per call (ArgumentError) whatever a guarded read does."""
        lifter = self.lifter
        done, refused = getattr(lifter, "refused_upto", (0, None))
        for domain, text, extent in lifter.unguarded[done:]:
            try:
                part = self._outside(domain, text, extent)
            except isl.Error:
                continue
            refused = part if refused is None else refused.union(part)
        lifter.refused_upto = (len(lifter.unguarded), refused)
        return refused

    def _checked_where_read(self, affine: Affine, info, axis: int) -> bool:
        """Whether a data-guarded read ``affine`` of ``info``'s ``axis`` may fall outside it
        (within the enclosing loops and affine guards) for sizes a call-time check would not
        assume: the sizes where it does are a box, each size bounded alone (``x[5]``: ``x_0 <=
        5``; ``A[i, j + 1]`` for ``j`` in ``range(A.shape[1])``: ``A_1 >= 1``), or every size.  A
        read whose failing sizes relate two of them (``y[i]`` for ``i`` in ``range(len(x))``:
        arrays of one length by design) keeps its call-time check, as an unguarded read does,
        and stays affine for the scheduler; so does a read inside a loop that fails only for
        small sizes (``A[i, 1]`` under ``if A[i, 0] > 0:``, for ``A.shape[1] <= 1``): a run-time
        subscript there would cost every iteration a branch (and the cuda target refuses it)
        for the sake of an edge size.  Sizes where an access lifted before it, outside
        data-dependent guards, falls outside its array do not count (those calls are refused
        anyway: lennard_jones' ``f[i, 0] += ...`` under ``if r2 < rcut * rcut:`` after reads of
        ``pos[i, 0]``)."""
        extent = info.extent_texts[axis] if info.extent_texts else None
        if extent is None:
            return False
        try:
            bad = self._outside(self._domain(), affine.text, extent)
        except isl.Error:
            return False
        refused = self._refused_sizes()
        if refused is not None:
            bad = bad.subtract(refused)
        if bad.is_empty():
            return False
        if self.scope.loop_vars and not bad.is_bounded():
            # in a loop, failing for some large sizes: only where it fails for large sizes of every
            # kind (x[i + 1]), not only for small sizes of one axis with the others large (A[i, 1])
            space = bad.get_space()
            large = " and ".join(f"{p} >= {_LARGE}" for p in space.get_var_names(isl.dim_type.param))
            if large and bad.intersect(isl.Set(f"{self.lifter.prefix} -> {{ : {large} }}")).is_empty():
                return False
        # no relation between two sizes: the set is the box of its projections on each one
        box = isl.Set.universe(bad.get_space())
        count = bad.dim(isl.dim_type.param)
        for k in range(count):
            if not bad.involves_dims(isl.dim_type.param, k, 1):
                continue  # (its projection is every value)
            # (coalesced: the projections of a set with floors and mods, n // 2 and (i + 4) % 3, are
            # unions of many pieces, and the box of several was their product: 57 s for one kernel)
            box = box.intersect(bad.eliminate(isl.dim_type.param, k + 1, count - k - 1)
                                .eliminate(isl.dim_type.param, 0, k).coalesce()).coalesce()
        return box.is_subset(bad)

    def _Subscript(self, node: ast.Subscript) -> ir.Expr:
        if isinstance(node.value, ast.Attribute):  # X.shape[d]
            return self.lifter.affine(node, self.scope).expr
        array, index = self.subscript(node)
        return ir.Load(array, tuple(a.expr for a in index), self.lifter.arrays[array].dtype)

    def _Attribute(self, node: ast.Attribute) -> ir.Expr:
        module = module_of(node.value, self.lifter.globals)
        if module is None and node.attr in ("real", "imag"):  # z.real, z.imag
            return ScalarCalls(self, node).part(self.convert(node.value), node.attr)
        value = None if module is None else module_constant(module, node.attr)
        if value is None:
            raise self.lifter.error(node, f"unsupported expression {ast.unparse(node)!r}")
        return ir.complex_const(value) if isinstance(value, complex) else ir.Const(value, "float64", True)

    def _BinOp(self, node: ast.BinOp) -> ir.Expr:
        return self.binary(node, node.op, self.convert(node.left), self.convert(node.right))

    def binary(self, node: ast.AST, op: ast.operator, lhs: ir.Expr, rhs: ir.Expr) -> ir.Expr:
        symbol = OPERATORS[type(op)]
        if type(op) in BITWISE:
            return self.bitwise(node, symbol, lhs, rhs)
        if lhs.dtype == rhs.dtype == "bool" and not (lhs.weak and rhs.weak):
            return self.bool_arithmetic(node, symbol, lhs, rhs)
        if lhs.dtype == "bool" or rhs.dtype == "bool":
            lhs, rhs = self.coerce(lhs, _unbool(vtype(lhs))), self.coerce(rhs, _unbool(vtype(rhs)))
        a, b = vtype(lhs), vtype(rhs)
        if a.is_complex or b.is_complex:
            return self.complex_binary(node, symbol, lhs, rhs)
        if symbol == "/":
            result = true_divide(a, b)
        elif symbol == "**" and a.is_int and b.is_int and not _nonnegative_const(rhs):
            return self.int_power(node, lhs, rhs)
        else:
            result = promote(a, b)
        check_int_literals(self.lifter, node, (lhs, rhs), result)
        lhs, rhs = range_checked(self.lifter, (lhs, rhs), result, node)
        divisor = division_checked(self.lifter, symbol, lhs, rhs, self.coerce(rhs, result), node,  # 1.0 / 0.0, 7 // 0
                                   lambda: self.never_zero(node))
        if symbol == "**" or not (lhs.weak and rhs.weak):  # 0.0 ** -1; s / w of a local that may be Python's
            divisor = self.python_checked(node, symbol, (lhs, rhs), self.coerce(lhs, result), divisor)
        return ir.BinOp(symbol, self.coerce(lhs, result), divisor, result.dtype, result.weak)

    def python_checked(self, node: ast.AST, symbol: str, operands: tuple[ir.Expr, ir.Expr], base: ir.Expr,
                       divisor: ir.Expr) -> ir.Expr:
        """``divisor`` (``base`` the left operand, both converted) with Python's ZeroDivisionError
        where both operands are Python numbers where it runs (scalars.kind_checked): a local whose
        kind varies (``s = 0`` then ``s += x[k]`` in a loop: Python's int where no iteration ran)
        counts by its flag (frontend.returns), so the lifter flags the locals such operands read
        (``divided``), with the flag set in place where the division stands in a loop that
        assigns the local (``dividing_loops``)."""
        nodes = _operand_nodes(node)
        if nodes is None or not self.may_raise(node, symbol, divisor):
            return divisor
        if not all(operand.weak or self.local_numbers(part) for part, operand in zip(nodes, operands)):
            return divisor  # (an element of an array: NumPy's on every path)
        self.flag_divided(nodes)
        kinds = tuple(self.operand_kind(part, operand) for part, operand in zip(nodes, operands))
        if any(kind is None for kind in kinds):
            return divisor
        return kind_checked(self.lifter, symbol, base, divisor, cast("tuple[ir.Expr, ir.Expr]", kinds), node)

    def flag_divided(self, operands: tuple[ast.expr, ast.expr]) -> None:
        """Flag the locals the ``operands`` of a checked division or power read (``Lifter.divided``),
        with the flag set in place where the division stands in a loop that assigns the local
        (``dividing_loops``, Lifter.in_place_flags): the check must see the iteration's kind."""
        names = {n for part in operands for n in self.local_numbers(part)}
        self.lifter.divided.update(names)
        if self.scope.loop_vars:
            for name in names:
                self.lifter.dividing_loops.setdefault(name, set()).add(self.lifter.outer_loop)

    def may_raise(self, node: ast.AST, symbol: str, divisor: ir.Expr) -> bool:
        """Whether Python may raise ZeroDivisionError at ``node`` of two Python numbers: a division
        whose divisor may be 0 (not a nonzero literal, nor an int isl proves nonzero), a power
        whose exponent may be negative (not a literal ``2``, ``0.5``)."""
        if symbol == "**":
            return negative_power(divisor)
        if symbol not in ("/", "//", "%"):
            return False
        return not surely_nonzero(divisor) and not (divisor.dtype in INTS and self.never_zero(node))

    def local_numbers(self, node: ast.expr) -> set[str]:
        """The local scalars ``node`` reads (whose kind may be a Python number's on some paths)."""
        arrays = self.lifter.arrays
        return {n for n in read_names(node) if n in arrays and arrays[n].is_scalar and n not in self.lifter.arguments}

    def operand_kind(self, node: ast.expr, value: ir.Expr) -> ir.Expr | None:
        """The kind (0 NumPy's, 1 to 4 a Python int, float, bool, complex) of the operand ``node``
        (``value`` converted): constant but for one that reads a flagged local; None where it is
        NumPy's on every path."""
        if value.weak:
            return ir.Const(python_kind(value.dtype), "int8", False)
        if not any(isinstance(n, ast.Name) and n.id in self.lifter.flagged for n in source.walk(node)):
            return None
        if isinstance(node, ast.Name):  # the local's own flag: the kind its last value had
            return self.convert(ast.copy_location(ast.Name(STRONG + node.id, ast.Load()), node))
        inherited = self.lifter.kind_through_flags(node, self.scope)
        return None if inherited is None else inherited_flag(self, inherited, node)

    def never_zero(self, node: ast.AST) -> bool:
        """Is the divisor of ``node`` (``a // b``, ``s %= b``) affine and nonzero wherever the
        statement runs (isl: its domain, within the enclosing loops and affine guards): ``i + 1``
        and ``n - i`` for ``i`` in ``range(n)``; an int argument or a local is not."""
        divisor = node.right if isinstance(node, ast.BinOp) else getattr(node, "value", None)
        if not isinstance(divisor, ast.expr):
            return False
        try:
            affine = self.lifter.affine(divisor, self.scope)
            domain = self._domain()
            iters = ", ".join(domain.get_var_names(isl.dim_type.set))
            zero = isl.Set(f"{self.lifter.prefix} -> {{ [{iters}] : {affine.text} = 0 }}")
            return domain.intersect(zero).is_empty()
        except (UnsupportedError, isl.Error):
            return False

    def int_power(self, node: ast.AST, lhs: ir.Expr, rhs: ir.Expr) -> ir.Expr:
        """``a ** b`` of integers whose exponent is not a non-negative constant.  With a numpy
        integer on either side numpy's integer power (a negative exponent: numpy's ValueError,
        also for a constant).  Of two Python ints Python gives an int for ``b >= 0`` and a float
        otherwise: a negative constant exponent is a float, any other exponent an int, checked
        where it runs (a negative one raises UnsupportedError rather than give the int)."""
        a, b = vtype(lhs), vtype(rhs)
        python = a.weak and b.weak
        constant = isinstance(rhs, ir.Const) or isinstance(rhs, ir.Unary) and isinstance(rhs.operand, ir.Const)
        if constant and python:  # (0 ** -1: Python's ZeroDivisionError)
            result = promote(promote(a, b), WEAK_FLOAT)
            base = self.coerce(lhs, result)
            exponent = self.python_checked(node, "**", (lhs, rhs), base, self.coerce(rhs, result))
            return ir.BinOp("**", base, exponent, result.dtype, result.weak)
        if constant:
            raise self.lifter.error(node, "integers to negative integer powers (numpy raises ValueError); "
                                    "write a float base", "integer power")
        result = promote(a, b)
        check_int_literals(self.lifter, node, (lhs, rhs), result)
        lhs, rhs = range_checked(self.lifter, (lhs, rhs), result, node)
        exponent = self.coerce(rhs, result)
        negative = ir.Select(ir.Compare("<", exponent, self.coerce(ir.Const(0, "int64", True), result)),
                             ir.int_const(1), ir.int_const(0), ir.INT, False)
        message = "Integers to negative integer powers are not allowed." if not python else str(self.lifter.error(
            node, "a Python int to a negative int power is a float in Python, but this kernel types it as an "
            "int (the exponent is not a constant); write float(...) ** ... for a float", "integer power"))
        flag = ir.Check(negative, ir.int_const(1), "", 0, message=message,
                        error="UnsupportedError" if python else "ValueError")
        checked = ir.BinOp("+", exponent, self.coerce(flag, result), result.dtype, result.weak)  # 0 unless it raises
        return ir.BinOp("**", self.coerce(lhs, result), checked, result.dtype, result.weak)

    def complex_binary(self, node: ast.AST, symbol: str, lhs: ir.Expr, rhs: ir.Expr) -> ir.Expr:
        """+ - * / of complex values; ``**`` to a constant integer power (numpy multiplies those
        out, as the backends do), else frontend.complex_power; ``//`` and ``%`` are TypeErrors in
        Python and numpy."""
        result = complex_result(vtype(lhs), vtype(rhs))
        if symbol in ("//", "%"):
            raise self.lifter.error(node, f"operator {symbol!r} of complex values is a TypeError in "
                                    "Python and numpy", "complex arithmetic")
        if symbol == "**":
            if lhs.dtype == "bool" or rhs.dtype == "bool":
                raise self.lifter.error(node, "'**' of a complex value and a bool; convert the bool with "
                                        "int(...) first", "complex power")
            base, exponent = self.coerce(lhs, result), self.coerce(rhs, result)
            base = self.complex_checked(node, symbol, (lhs, rhs), base, exponent)
            return complex_power(base, exponent, rhs, result, python=result.weak)
        base = self.coerce(lhs, result)
        if symbol == "/":
            base = self.complex_checked(node, symbol, (lhs, rhs), base, self.coerce(rhs, result))
        return ir.BinOp(symbol, base, self.coerce(rhs, result), result.dtype, result.weak)

    def complex_checked(self, node: ast.AST, symbol: str, operands: tuple[ir.Expr, ir.Expr], base: ir.Expr,
                        right: ir.Expr) -> ir.Expr:
        """``base`` of a complex ``/`` or ``**`` with Python's ZeroDivisionError where Python's
        complex computes it (scalars.complex_checked): the operands' kinds as ``python_checked``
        takes them, the locals they read flagged, where it may fail: a divisor not surely nonzero,
        a power of a base not surely nonzero to an exponent not surely real and non-negative."""
        nodes = _operand_nodes(node)
        lhs, rhs = operands
        safe = surely_nonzero(right) if symbol == "/" else surely_nonzero(base) or not negative_power(rhs)
        if nodes is None or safe:
            return base
        float64_right = rhs.dtype == "float64" and not rhs.weak
        if not (lhs.weak or self.local_numbers(nodes[0])) \
                or not (rhs.weak or self.local_numbers(nodes[1]) or float64_right):
            return base  # (NumPy's on every path)
        self.flag_divided(nodes)
        kinds = (self.operand_kind(nodes[0], lhs), self.operand_kind(nodes[1], rhs))
        return complex_checked(self.lifter, symbol, base, right, kinds, float64_right, node)

    def bitwise(self, node: ast.AST, symbol: str, lhs: ir.Expr, rhs: ir.Expr) -> ir.Expr:
        """``& | ^ << >>`` of integers and bools, typed as numpy types them (two Python values: as
        Python does); of floats and complex values they are a TypeError in Python and numpy."""
        try:
            result = bitwise_type(symbol, vtype(lhs), vtype(rhs))
        except TypeError:
            raise self.lifter.error(node, _bitwise_refusal(symbol, lhs.dtype, rhs.dtype), "bitwise operator") from None
        check_int_literals(self.lifter, node, (lhs, rhs), result)
        lhs, rhs = range_checked(self.lifter, (lhs, rhs), result, node)
        return ir.BinOp(symbol, self.coerce(lhs, result), self.coerce(rhs, result), result.dtype, result.weak)

    def bool_arithmetic(self, node: ast.AST, symbol: str, lhs: ir.Expr, rhs: ir.Expr) -> ir.Expr:
        """numpy bools (array elements, comparisons of numpy values): ``+`` is ``or`` and ``*``
        is ``and``, not integer arithmetic as for Python's ``True + True``."""
        if symbol in ("+", "*"):
            # where an operand is a local that may hold a Python bool, and so is the other one or
            # it is a Python bool, Python adds ints (True + True is 2): local_versions follows them
            for a, b in ((lhs, rhs), (rhs, lhs)):
                if b.weak or _value_locals(b):
                    self.lifter.bool_sums.update(_value_locals(a))
            return ir.BoolOp("or" if symbol == "+" else "and", (lhs, rhs))
        raise self.lifter.error(node, f"operator {symbol!r} on two numpy bools is an error or gives "
                                "int8 in numpy; convert one side with int(...) first", "bool arithmetic")

    def _UnaryOp(self, node: ast.UnaryOp) -> ir.Expr:
        operand = self.convert(node.operand)
        if isinstance(node.op, ast.Not):
            return ir.Unary("not", self.truth(operand), "bool", True)  # a Python bool
        if isinstance(node.op, ast.Invert):
            return self.invert(node, operand)
        sign = "+" if isinstance(node.op, ast.UAdd) else "-"
        if operand.dtype == "bool" and not operand.weak:
            raise self.lifter.error(node, f"unary '{sign}' of a numpy bool is an error in numpy; use "
                                    f"{sign}int(x) or 'not x'", "bool arithmetic")
        if operand.dtype == "bool":  # Python's +True and -True are the ints 1 and -1
            operand = self.coerce(operand, WEAK_INT)
        if isinstance(node.op, ast.UAdd):
            return operand
        return ir.Unary("neg", operand, operand.dtype, operand.weak)

    def invert(self, node: ast.UnaryOp, operand: ir.Expr) -> ir.Expr:
        """``~x``: all bits flipped (``-x - 1``) of an integer; of a numpy bool its ``not``, as numpy
        inverts bools.  Python's ``~True`` is the int -2 (deprecated), so a Python bool is refused."""
        if operand.dtype == "bool" and (operand.weak or isinstance(node.operand, ast.Constant)):
            raise self.lifter.error(node, "'~' of a Python bool is the int -2 or -1 in Python (deprecated); "
                                    "write 'not x' for the logical negation", "bitwise operator")
        if operand.dtype == "bool":
            return ir.Unary("not", operand, "bool", False)
        if not vtype(operand).is_int:
            raise self.lifter.error(node, f"'~' of a {operand.dtype} value is a TypeError in Python and numpy; "
                                    "bitwise operators take integers and bools", "bitwise operator")
        return ir.Unary("invert", operand, operand.dtype, operand.weak)

    def truth(self, expr: ir.Expr) -> ir.Expr:
        split = self.split_of(expr)
        if split is not None:  # each branch's own truth: 1e-50 is true, np.float32(1e-50) is not
            select, then, otherwise = split
            then, otherwise = self.truth(then), self.truth(otherwise)
            return ir.Select(select.cond, then, otherwise, "bool", then.weak and otherwise.weak, select.guarded)
        if expr.dtype == "bool":
            return expr
        zero = self.coerce(ir.Const(0, "int64", True), vtype(expr))
        return ir.Compare("!=", expr, zero, weak=expr.weak)

    def _BoolOp(self, node: ast.BoolOp) -> ir.Expr:
        """Python's value of ``a and b`` / ``a or b``: the operand that decided, not a bool
        (``k[0] or k[1]`` is ``k[1]`` where ``k[0] == 0``; ``x[0] > 0 and x[1] or -1.0``).  Of
        bool operands of one kind that is the logical operator; otherwise (a Python bool beside
        NumPy's too: ``u and a[i] > 0.0`` is the Python ``u`` where it is False) a select of the
        operands (their common type, as ``a if c else b``; its truth is the operator's in a
        condition too).
        Before fz27 every operand was made a bool, a wrong value wherever one was not."""
        op = "and" if isinstance(node.op, ast.And) else "or"
        first = node.values[0]
        holds = self.affine_condition(first) if len(node.values) > 1 else None
        if holds is not None:  # i > 0 and a[i - 1] < t: the rest is read only where Python reads it
            rest = node.values[1:]
            kind = source.BoolOp if source.written(node) else ast.BoolOp
            rest_node = rest[0] if len(rest) == 1 else ast.copy_location(kind(node.op, rest), node)
            where = holds if op == "and" else self.universe(node).subtract(holds)
            later = self.guarded(rest_node, where)
            value = self.convert(first)
            cond = self.truth(value)
            if later.dtype != "bool" or value.dtype != "bool" or later.weak != value.weak:  # the deciding operand's
                return self._with_form(node, (value, later), self._decided_by(node, value, cond, later, guarded=True))
            decided = ir.Const(op == "or", "bool", cond.weak)
            then, otherwise = (later, decided) if op == "and" else (decided, later)
            return ir.Select(cond, then, otherwise, "bool", cond.weak and later.weak, guarded=True)
        values: tuple[ir.Expr, ...] = (self.convert(node.values[0]),)
        self.data_guarded += 1
        try:
            values += tuple(self.convert(v) for v in node.values[1:])
        finally:
            self.data_guarded -= 1
        if any(v.dtype != "bool" for v in values) or len({v.weak for v in values}) > 1:
            # (a Python bool and NumPy's: ``u and a[i] > 0.0`` is the Python False where u is)
            result = values[-1]
            for value in reversed(values[:-1]):
                result = self._decided_by(node, value, self.truth(value), result, guarded=False)
            return self._with_form(node, values, result)
        return ir.BoolOp(op, values, weak=all(v.weak for v in values))

    def _decided_by(self, node: ast.BoolOp, value: ir.Expr, cond: ir.Expr, later: ir.Expr, guarded: bool) -> ir.Expr:
        """``later if value else value`` (``and``) or ``value if value else later`` (``or``)."""
        then, otherwise = (later, value) if isinstance(node.op, ast.And) else (value, later)
        return self.select(cond, then, otherwise, guarded, node=node)

    def _with_form(self, node: ast.BoolOp, values: tuple[ir.Expr, ...], result: ir.Expr) -> ir.Expr:
        """``result``, with ``node`` recorded as its IfExp form where its operands differ in type
        (``x[0] or 0.5``: an np.float64 or the float 0.5), so consumers go into the branches."""
        if source.written(node) and (len({vtype(v) for v in values}) > 1 or self.split_of(result) is not None):
            first = node.values[0]
            rest = node.values[1] if len(node.values) == 2 else \
                ast.copy_location(source.BoolOp(node.op, node.values[1:]), node)
            then, otherwise = (rest, first) if isinstance(node.op, ast.And) else (first, rest)
            form = ast.copy_location(source.IfExp(first, then, otherwise), node)
            self.split_forms[id(node)] = SplitForm(node, form, vtype(result))
        return result

    def augmented(self, node: ast.AugAssign) -> ir.Expr:
        """The new value of ``target op= value``: ``target op value``, in each branch where
        ``value`` is a choice of branches of different types (``s += x_f32[i] if c else 0.1`` of
        an np.float64 ``s`` adds 0.1, not float32's 0.1), as in ``convert``."""
        current = self.convert(node.target)
        value = self.convert(node.value)
        split = self.split_form(node.target) or self.split_form(node.value)
        if split is None:
            return self.binary(node, node.op, current, value)
        result: ir.Expr | None = None
        try:
            result = self.binary(node, node.op, current, value)
        except UnsupportedError:
            pass
        whole = ast.copy_location(ast.BinOp(node.target, node.op, node.value), node)
        return self._settled(whole, result, self._pushed(whole, split), [split])

    def _Compare(self, node: ast.Compare) -> ir.Expr:
        terms = [self.convert(node.left)] + [self.convert(c) for c in node.comparators]
        parts = []
        for op, lhs, rhs in zip(node.ops, terms, terms[1:]):
            if (vtype(lhs).is_complex or vtype(rhs).is_complex) and not isinstance(op, (ast.Eq, ast.NotEq)):
                raise self.lifter.error(node, "ordering comparison of complex values (a TypeError in Python "
                                        "and numba); compare abs(z) or z.real instead", "complex comparison")
            common = comparison_type(lhs, rhs, complex_result(_unbool(vtype(lhs)), _unbool(vtype(rhs))))
            # numpy values compare to numpy bools (strong), Python numbers to Python bools (weak), as
            # a Python complex does an np.float64 (``0j == x[i]``: complex_result)
            part: ir.Expr = ir.Compare(_CMP[type(op)], self.coerce(lhs, common), self.coerce(rhs, common),
                                       weak=common.weak)
            parts.append(_negative_python_int_first(_CMP[type(op)], lhs, rhs, part, common))
        return parts[0] if len(parts) == 1 else ir.BoolOp("and", tuple(parts), weak=all(p.weak for p in parts))

    def _IfExp(self, node: ast.IfExp) -> ir.Expr:
        cond = self.truth(self.convert(node.test))
        holds = self.affine_condition(node.test)
        if holds is None:  # a test of data whose first operand is affine still guards one branch
            return self._half_guarded(node, cond)
        then = self.guarded(node.body, holds)
        otherwise = self.guarded(node.orelse, self.universe(node).subtract(holds))
        return self.select(cond, then, otherwise, guarded=holds is not None, node=node)

    def select(self, cond: ir.Expr, then: ir.Expr, otherwise: ir.Expr, guarded: bool, node: ast.expr) -> ir.Select:
        """``then if cond else otherwise`` in the branches' common type (two bools stay a bool:
        ``x[0] > 0 if n else False``).  The branch Python takes is the value: where the branches
        differ in type (``x_f32[0] if c else 0.1``), or either branch is such a choice, and
        ``node`` is a choice the user wrote (``source.written``), the select is recorded as split,
        and an IfExp ``node`` as its own form, so consumers, stores and tests go into each branch.
        The frontend's own choices (``np.maximum(x_f64[i], 0.5)``'s) keep NumPy's one type."""
        result = merged(vtype(then), vtype(otherwise))
        # a branch's Python int meets the narrower integer dtype here: OverflowError where it does
        # not fit (out_int8[i] = min(x[i], s) * 2 of s = -200, a split local's version read)
        checked = range_checked(self.lifter, (then, otherwise), result, node)
        value = ir.Select(cond, self.coerce(checked[0], result), self.coerce(checked[1], result),
                          result.dtype, result.weak, guarded=guarded)
        if source.written(node) and (vtype(then) != vtype(otherwise) or self.split_of(then) or self.split_of(otherwise)):
            self.splits[id(value)] = (value, (value, then, otherwise))
            if isinstance(node, ast.IfExp):
                self.split_forms[id(node)] = SplitForm(node, node, result)
        return value

    def _half_guarded(self, node: ast.IfExp, cond: ir.Expr) -> ir.Expr:
        """``a if s and d else b`` (``s`` affine, ``d`` data): ``a`` runs only where ``s`` holds,
        as Python evaluates it (``x[1] if x.shape[0] > 1 and x[0] > 0 else 0.0`` never reads
        ``x[1]`` of a shorter ``x``); ``a if s or d else b``: ``b`` only where ``s`` fails.  The
        other branch is not guarded; a test of data alone guards neither (fz27: such a read was
        refused per call, an ArgumentError where Python ran)."""
        test = node.test
        first = self.affine_condition(test.values[0]) if isinstance(test, ast.BoolOp) else None
        conjunction = isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
        then_where = first if first is not None and conjunction else None
        else_where = self.universe(node).subtract(first) if first is not None and not conjunction else None
        self.data_guarded += 1
        try:
            then = self.guarded(node.body, then_where)
            otherwise = self.guarded(node.orelse, else_where)
        finally:
            self.data_guarded -= 1
        return self.select(cond, then, otherwise, guarded=first is not None, node=node)

    def affine_condition(self, test: ast.expr):
        """The loop-variable values where ``test`` holds, or None when it is data dependent."""
        try:
            return self.lifter.condition(test, self.scope)
        except UnsupportedError:
            return None

    def universe(self, node: ast.expr):
        return self.lifter.isl_set(node, self.scope.loop_vars, "true")

    def guarded(self, node: ast.expr, condition) -> ir.Expr:
        """Convert a branch whose reads only happen where ``condition`` holds."""
        if condition is None:
            return self.convert(node)
        self.guards.append(condition)
        try:
            return self.convert(node)
        finally:
            self.guards.pop()

    @contextlib.contextmanager
    def branch(self, choice: ast.IfExp, then: bool) -> Iterator[None]:
        """Within: the reads converted are those of one branch of ``choice``, made only where
        Python takes it, as ``_IfExp`` and ``_half_guarded`` guard them: for the kinds of a
        choice's operands (``returns.kind_choice``, ``choice_kinds``), which converted them
        unguarded: ``ok = x.shape[0] > 2 and x[2] > 0.0`` then ``return 1.0 if ok else 2.0``
        refused a call of a 2-element ``x`` (ArgumentError where Python returns 2.0)."""
        holds = self.affine_condition(choice.test)
        data = holds is None
        if data:  # a test of data whose first operand is affine still guards one branch
            test = choice.test
            first = self.affine_condition(test.values[0]) if isinstance(test, ast.BoolOp) else None
            conjunction = isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
            holds = first if then == conjunction else None
        where = holds if holds is None or then else self.universe(choice).subtract(holds)
        self.data_guarded += data
        if where is not None:
            self.guards.append(where)
        try:
            yield
        finally:
            if where is not None:
                self.guards.pop()
            self.data_guarded -= data

    def _Call(self, node: ast.Call) -> ir.Expr:
        func = node.func
        if is_reassoc_call(node):
            return reassociated(self.convert(node.args[0]))
        if is_numpy_abs_call(node):
            z = self.convert(node.args[0])
            assert vtype(z).is_complex, "frontend.arrays marks complex magnitudes only"
            return ir.Unary("numpy_abs", z, component(z.dtype), False)
        wide = self._unsigned_literal(node)
        if wide is not None:
            return wide
        args = [self.convert(a) for a in node.args]
        if isinstance(func, ast.Name):
            return self.builtin(node, func.id, args)
        assert isinstance(func, ast.Attribute), "the subset checker admits f(...) and module.f(...) only"
        module = module_of(func.value, self.lifter.globals)
        if module is None:  # z.conjugate(), the one method the subset checker admits
            return ScalarCalls(self, node).np_conj([self.convert(func.value)])
        assert module is not None, "the subset checker admits calls of known modules only"
        return self.math_call(node, module, func.attr, args)

    def _unsigned_literal(self, node: ast.Call) -> ir.Expr | None:
        """``np.uint64(0xFF51AFD7ED558CCD)``: a literal above int64's range given to NumPy's
        unsigned type that holds it (hashing constants: murmur's fmix64, splitmix64), its value
        as that type; None for any other call (a literal that fits is converted as a Python int
        first, as everywhere)."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in ("uint64", "ulonglong", "uint")
                and module_of(func.value, self.lifter.globals) == "np" and len(node.args) == 1
                and not node.keywords and isinstance(node.args[0], ast.Constant)):
            return None
        value = node.args[0].value
        if isinstance(value, bool) or not isinstance(value, int) or not 2**63 <= value < 2**64:
            return None
        return ir.Const(value, "uint64", False)

    def builtin(self, node: ast.Call, name: str, args: list[ir.Expr]) -> ir.Expr:
        if name == "abs":
            self._arity(node, args, 1)
            arg = self.coerce(args[0], _unbool(vtype(args[0])))
            if vtype(arg).is_complex:  # the magnitude, hypot(re, im)
                return ir.Unary("abs", arg, component(arg.dtype), arg.weak)
            return ir.Unary("abs", arg, arg.dtype, arg.weak)
        if name == "complex":
            return self.complex_of(node, args)
        if name == "round":
            return self.round_of(node, args)
        if name == BOXED:  # a numba helper's value: the Python number of its kind (numba_values)
            return self.numba_value(node, args[0])
        if name == TUPLE_INDEX:  # a tuple display's index (frontend.tuples): an integer, as Python requires
            self._arity(node, args, 1)
            if args[0].dtype != "bool" and not args[0].dtype.startswith(("int", "uint")):
                raise self.lifter.error(node, f"a tuple indexed by a {args[0].dtype} value (Python raises TypeError: "
                                        "tuple indices must be integers)", "tuple index")
            if args[0].dtype == "bool" and not args[0].weak:  # np.bool_ has no __index__ (a bool has)
                raise self.lifter.error(node, "a tuple indexed by a NumPy bool (Python raises TypeError: tuple "
                                        "indices must be integers; int(...) of it is one)", "tuple index")
            return args[0]
        if name in ("float", "int", "bool"):
            self._arity(node, args, 1)
            target = {"float": WEAK_FLOAT, "int": WEAK_INT, "bool": VType("bool", True)}[name]
            return ScalarCalls(self, node).cast(args[0], target)
        if any(vtype(a).is_complex for a in args):
            raise self.lifter.error(node, f"{name}() of complex values (a TypeError in Python)", f"{name}()")
        result = args[0]
        for arg in args[1:]:
            common = promote(_unbool(vtype(result)), _unbool(vtype(arg)))
            wide = exact_extreme(name, self.coerce(result, _unbool(vtype(result))),
                                 self.coerce(arg, _unbool(vtype(arg))), common, located(self.lifter, node))
            result = self.coerce(wide, common) if wide is not None else \
                ir.BinOp(name, self.coerce(result, common), self.coerce(arg, common), common.dtype, common.weak)
        if len({vtype(a) for a in args}) == 1 and vtype(args[0]).dtype == "bool":
            result = self.coerce(result, vtype(args[0]))  # max(False, True) is the bool True, not 1 (cf50)
        if len({vtype(a) for a in args}) > 1 and name in ("min", "max") and source.written(node) and not node.keywords:
            self.chosen(node, name, result)
        return result

    def numba_value(self, node: ast.Call, value: ir.Expr) -> ir.Expr:
        """``value`` as numba returns it to Python: its type unified over the paths that give it
        (a local of several types: the promotion of theirs, ``int64`` and ``float64`` a float),
        boxed as the Python number of that kind (weak)."""
        leaves = self.leaf_types(value)
        kind = vtype(value) if len(leaves) == 1 else VType(np.result_type(*(np.dtype(t.dtype) for t in leaves)).name,
                                                            False)
        target = WEAK_COMPLEX if kind.is_complex else WEAK_FLOAT if kind.is_float else \
            VType("bool", True) if kind.dtype == "bool" else WEAK_INT
        return self.cast_leaves(node, value, target)

    def leaf_types(self, expr: ir.Expr) -> list[VType]:
        """The types of a split value's branches (one: its own, where it is not split)."""
        split = self.split_of(expr)
        if split is None:
            return [vtype(expr)]
        return self.leaf_types(split[1]) + self.leaf_types(split[2])

    def cast_leaves(self, node: ast.Call, expr: ir.Expr, target: VType) -> ir.Expr:
        split = self.split_of(expr)
        if split is None:
            return ScalarCalls(self, node).cast(expr, target)
        select, then, otherwise = split
        return ir.Select(select.cond, self.cast_leaves(node, then, target), self.cast_leaves(node, otherwise, target),
                         target.dtype, target.weak, select.guarded)

    def chosen(self, node: ast.Call, name: str, result: ir.Expr) -> None:
        """``min(a, b, ...)`` / ``max(...)`` of operands of different types: Python returns the
        operand it chose, in its own type (``min(x_f32[0], 0.1)`` is the float 0.1 where it is
        the smaller), so ``result`` (the min/max in the promoted type, kept where the types agree
        again: ``m = max(m, x_int[i])`` of a float ``m`` stays a max reduction) is recorded as the
        split choice ``b if b < a else a`` (``>`` for max: a later operand replaces the one kept
        only where strictly beyond it, as Python's loop does, NaN too)."""
        op = ast.Lt() if name == "min" else ast.Gt()
        form: ast.expr = node.args[0]
        for arg in node.args[1:]:
            test = ast.copy_location(ast.Compare(arg, [op], [form]), node)
            form = ast.copy_location(source.IfExp(test, arg, form), node)
        branches = self.split_of(self.convert(form))
        if branches is not None:
            self.splits[id(result)] = (result, branches)
            self.split_forms[id(node)] = SplitForm(node, cast(ast.IfExp, form), vtype(result))

    def round_of(self, node: ast.Call, args: list[ir.Expr]) -> ir.Expr:
        """``round(x)``: a Python int, half to even (``rint``); ``round(x, n)`` of a numpy float:
        numpy's ``np.round``, ``rint(x * 10**n) / 10**n`` (``rint(x / 10**-n) * 10**-n`` for a
        negative ``n``) in ``x``'s dtype; of an integer, the integer for ``n >= 0``."""
        if not 1 <= len(args) <= 2:
            raise self.lifter.error(node, "round() takes one or two arguments")
        x = self.coerce(args[0], _unbool(vtype(args[0])))
        if vtype(x).is_complex:
            raise self.lifter.error(node, "round() of a complex value (a TypeError in Python)", "round()")
        if len(args) == 1:
            value = ir.Call("rint", (x,), x.dtype, x.weak, "np") if vtype(x).is_float else x
            return ScalarCalls(self, node).cast(value, WEAK_INT)
        digits = int_power(args[1]) if isinstance(args[1], (ir.Const, ir.Unary)) and args[1].dtype == "int64" else None
        if digits is None:
            raise self.lifter.error(node.args[1], "round(x, ndigits) with ndigits other than an integer constant "
                                    "in [-99, 99]", "round()")
        if vtype(x).is_int:
            if digits < 0:
                raise self.lifter.error(node, "round() of an integer to negative digits", "round()")
            return x
        if x.weak:
            raise self.lifter.error(node, "round(x, ndigits) of a Python float (CPython rounds its exact decimal "
                                    "value); round a numpy float (np.float64(x)) for numpy's rint(x * 10**n) / 10**n",
                                    "round()")
        scale = ir.Const(10.0 ** abs(digits), x.dtype, False)
        if digits >= 0:
            scaled = ir.BinOp("*", x, scale, x.dtype, False)
            return ir.BinOp("/", ir.Call("rint", (scaled,), x.dtype, False, "np"), scale, x.dtype, False)
        scaled = ir.BinOp("/", x, scale, x.dtype, False)
        return ir.BinOp("*", ir.Call("rint", (scaled,), x.dtype, False, "np"), scale, x.dtype, False)

    def complex_of(self, node: ast.Call, args: list[ir.Expr]) -> ir.Expr:
        """``complex(x)`` and ``complex(re, im)`` of real numbers: a Python complex (weak)."""
        if not 1 <= len(args) <= 2:
            raise self.lifter.error(node, "complex() takes one or two arguments")
        if len(args) == 1:
            return ScalarCalls(self, node).cast(args[0], WEAK_COMPLEX)
        if any(vtype(a).is_complex for a in args):
            raise self.lifter.error(node, "complex(re, im) of complex values; write re + im * 1j", "complex()")
        parts = tuple(self.coerce(self.coerce(a, _unbool(vtype(a))), WEAK_FLOAT) for a in args)
        return ir.Call("complex", parts, "complex128", True, "py")

    def math_call(self, node: ast.Call, module: str, name: str, args: list[ir.Expr]) -> ir.Expr:
        self._arity(node, args, scalar_arity(module, name))
        calls = ScalarCalls(self, node)
        if module == "cmath":
            return calls.cmath_call(name, args)
        return calls.math_call(name, args) if module == "math" else calls.np_call(name, args)

    def _arity(self, node: ast.Call, args: list, n: int) -> None:
        if len(args) != n:
            raise self.lifter.error(node, f"{ast.unparse(node.func)}() takes {n} argument(s)")


def _negative_python_int_first(symbol: str, lhs: ir.Expr, rhs: ir.Expr, part: ir.Expr, common: VType) -> ir.Expr:
    """``x_uint64 < s`` of a Python int ``s``: numpy 2 compares by value, and no integer dtype holds
    both ranges; a negative ``s`` is below every uint64, so the answer is known there (``x > -1``
    is True), and the uint64 comparison ``part`` is exact for the other values."""
    if common.dtype != "uint64" or common.weak:
        return part
    sides = [e.weak and e.dtype == "int64" for e in (lhs, rhs)]
    if sides[0] == sides[1]:
        return part
    python = lhs if sides[0] else rhs
    below = symbol in ("<", "<=", "!=") if sides[0] else symbol in (">", ">=", "!=")  # python < x
    negative = ir.Compare("<", python, ir.int_const(0), weak=True)
    return ir.Select(negative, ir.Const(below, "bool", False), part, "bool", False)


def reassociated(update: ir.Expr) -> ir.Expr:
    """A NumPy reduction's float ``acc + term`` with ``reassoc`` set (integer
    and complex updates stay as they are: integers are exact in any order, and complex
    arithmetic is emitted as scalar code with numpy's roundings)."""
    if isinstance(update, ir.BinOp) and update.op == "+" and update.dtype.startswith("float"):
        return replace(update, reassoc=True)
    return update


def _unbool(t: VType) -> VType:
    """Python bools are weak ints; numpy bools stay bools for numpy's promotion."""
    return WEAK_INT if t.dtype == "bool" and t.weak else t


def _bitwise_refusal(symbol: str, a: str, b: str) -> str:
    """Why ``a <symbol> b`` is refused (where numpy and Python raise TypeError)."""
    if any(t.startswith(("float", "complex")) for t in (a, b)):
        return (f"operator {symbol!r} of {a} and {b} values is a TypeError in Python and numpy; bitwise "
                "operators take integers and bools (convert with int(x) or x.astype(...) first)")
    return (f"operator {symbol!r} of {a} and {b} values: numpy has no integer type holding both (their "
            "common type is float64) and raises TypeError; convert one side first")


def _nonnegative_const(expr: ir.Expr) -> bool:
    return isinstance(expr, ir.Const) and isinstance(expr.value, int) and expr.value >= 0


@dataclass(frozen=True)
class SplitForm:
    """``node``'s value is ``form`` (an IfExp: ``node`` itself, or ``a if a else b`` for ``a or
    b``) whose branches differ in type; ``merged`` is their promoted type, the select's."""

    node: ast.expr
    form: ast.IfExp
    merged: VType


def _operands(node: ast.expr) -> list[ast.expr]:
    return [getattr(node, f) if k is None else getattr(node, f)[k] for f, k in _operand_fields(node)]


def _operand_fields(node: ast.expr) -> list[tuple[str, int | None]]:
    """The operands of ``node`` that Python evaluates whenever it evaluates ``node``, whose value
    (not only truth) the result depends on: where a branch choice of different types is pushed."""
    if isinstance(node, ast.BinOp):
        return [("left", None), ("right", None)]
    if isinstance(node, ast.UnaryOp):
        return [("operand", None)]
    if isinstance(node, ast.Compare):
        return [("left", None)] + [("comparators", k) for k in range(len(node.comparators))]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == BOXED:
        return []  # numba's one type for all the paths (ExpressionLifter.numba_value), never per branch
    if isinstance(node, ast.Call):
        return [("args", k) for k in range(len(node.args))]
    if isinstance(node, ast.Attribute):  # (a if c else b).real
        return [("value", None)]
    if isinstance(node, ast.BoolOp):  # the first operand is always evaluated (and may be the value)
        return [("values", 0)]
    return []


def _with_operand(node: ast.expr, field: str, index: int | None, operand: ast.expr) -> ast.expr:
    """A shallow copy of ``node`` with one operand replaced (the others shared, not copied)."""
    copied = copy.copy(node)
    if index is None:
        setattr(copied, field, operand)
    else:
        items = list(getattr(node, field))
        items[index] = operand
        setattr(copied, field, items)
    return copied


__all__ = ["ExpressionLifter", "BOOL"]



def _value_locals(e: ir.Expr) -> set[str]:
    """The scalar locals whose value ``e`` may be itself (a read, a choice of reads)."""
    if isinstance(e, ir.Load):
        return set() if e.index else {e.array}
    if isinstance(e, ir.Select):
        return _value_locals(e.then) | _value_locals(e.otherwise)
    if isinstance(e, (ir.Unary, ir.Cast)):
        return _value_locals(e.operand)
    return set()


def _operand_nodes(node: ast.AST) -> tuple[ast.expr, ast.expr] | None:
    """The operands of a binary operation as written: ``a / b``, and ``t /= b`` (``t`` read)."""
    if isinstance(node, ast.BinOp):
        return node.left, node.right
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target), node.value
    return None
