"""Lift a checked kernel into a Scop: domains, accesses, typed statement bodies, original schedule.

One ``visit_<Node>`` per statement kind; expressions in :mod:`frontend.expressions`, affine parts
in :mod:`frontend.affine`.  The walk context (loop stack, the current domain) lives in ``Scope``.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import types
from dataclasses import dataclass, field

import islpy as isl
import numpy as np

from polyfuse.errors import SourceSpan, UnsupportedError
from polyfuse.model import ir
from polyfuse.model.names import GENERATED_PREFIX
from polyfuse.model.region import LAPACK_CALL, MATMUL_CALL, Region
from polyfuse.model.schedule_tree import StmtNode, loop_of
from polyfuse.model.scop import (
    Argument,
    ArrayInfo,
    ElementCount,
    PrangeLoop,
    Returned,
    ReturnValue,
    Scop,
    SizeProduct,
    Statement,
    isl_name,
    shape_param,
)

from .advanced_index import INDEX_RULES
from .affine import Affine, AffineConverter
from .allocation import allocator_of, fill_nest, read_allocation
from .array_forms import FORM_RULES
from .array_joins import JOIN_RULES
from .array_linalg import PRODUCT_RULES, PRODUCT_RULES_BLAS
from .arrays import lower_arrays
from .checker import (
    NUMPY_ABS_CALL,
    PREFIX_INDEX_CALL,
    REASSOC_CALL,
    check_subset,
    is_lapack_call,
    is_matmul_call,
    module_of,
)
from .control import (
    Guard,
    access_text,
    guard_expr,
    guarded_value,
    has_runtime_index,
    lift_assert,
    lift_data_if,
    read_names,
    zero_of,
)
from .expressions import ExpressionLifter
from .function_args import drop_parameters
from .global_arrays import add_frozen_parameters, check_not_written
from .local_versions import (
    LocalWrite,
    check_loop_locals,
    local_write,
    loop_splits,
    seen_types,
    split_locals,
    version_targets,
    version_values,
    weakness_seen,
)
from .opaque import (
    bound_reason,
    kept_inside,
    lift_lapack,
    lift_matmul,
    lift_region,
    matmul_variables,
    own_jump,
)
from .returns import (
    KIND_LETTERS,
    PYTHON_ZEROS,
    SAVED,
    STRONG,
    Inherited,
    KindChoice,
    KindSplit,
    changed_flag,
    choice_kinds,
    choice_of,
    flag_first,
    flag_operands,
    inherited_flag,
    inherited_names,
    kind_choice,
    kind_varies,
    leaf_types,
    lift_return,
    monotone_op,
    pushed_choice,
    python_kind,
    refuse_dtype_by_kind,
    value_kind,
)
from .rewrite import rewrite
from .scalars import check_int_literals, element_store_checked, range_checked
from .source import KernelSource, ReturnedPrefixes, read_source, walk
from .sparse import check_uses, unpack_parameters
from .tuple_args import expand_parameters
from .types import VType, merged, promote


@dataclass(frozen=True)
class Scope:
    """Where the walk is: enclosing loop variables and the set of their values that reach here."""

    loop_vars: tuple[str, ...]
    domain: isl.Set = field(compare=False)


_DTYPES = {"float64", "float32", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8",
           "bool", "complex64", "complex128"}


class Lifter:
    """Walks the kernel body once; collects statements, arrays and the schedule skeleton."""

    def __init__(self, source: KernelSource, globals_: dict, arguments: tuple[Argument, ...],
                 scalar_types: dict[str, VType], sizes: tuple[str, ...] = ()) -> None:
        self.source = source
        self.globals = globals_
        self.arguments = {a.name: a for a in arguments}
        self.sizes = sizes  # the sizes the call computes (scop.SizeProduct): int64 parameters
        self.params = self._params(arguments) + sizes
        self.prefix = "[" + ", ".join(self.params) + "]"
        self.arrays: dict[str, ArrayInfo] = {}
        for arg in arguments:
            if arg.kind == "array":
                names = tuple(shape_param(arg.name, d) for d in range(arg.rank))
                shape = tuple(ir.Var(n, ir.INT) for n in names)
                self.arrays[arg.name] = ArrayInfo(arg.name, arg.dtype, shape, "arg", extent_texts=names)
        self.scalar_types = dict(scalar_types)
        self.assigned: dict[str, VType] = {}
        self.statements: list[Statement] = []
        self.loop_names: set[str] = set()  # every loop variable seen so far
        self.pranges: list[PrangeLoop] = []
        self.nest = 0
        self.guards: list[Guard] = []  # enclosing data-dependent if conditions (frontend.control)
        self.fresh_defs: set[int] = set()  # ids of branch-local first assignments (control.branch_definitions)
        self.bool_sums: set[str] = set()  # bool locals added (or multiplied) with a Python bool or a local
        self.cond_count = 0
        self.assert_count = 0
        self.returns: ReturnValue | None = None  # what the final return gives back (frontend.returns)
        self.returns_span: SourceSpan | None = None
        self.return_node: ast.Return | None = None
        self.list_conflicts: list[tuple[ast.stmt, list[str]]] = []  # lists of items of several dtypes
        self.region_vars: set[str] = set()  # loop variables inside the region being lifted (frontend.opaque)
        # locals returned by name whose value is a Python number on some paths and a NumPy scalar
        # on others (``m = 0.0`` then ``m = x[i]``): each assignment also sets ``STRONG + name``
        self.flagged: frozenset[str] = frozenset()
        # the flagged locals whose flag is set at each assignment, in loops too (``best = 0`` then
        # ``if h > best: best = h`` in a loop, or assignments in a loop kept as written): whether the
        # loop's assignment ran is known only where it runs (``in_place_flags``)
        self.flagged_in_place: frozenset[str] = frozenset()
        # the flagged locals a loop assigns only by max (or only by min) of themselves first and
        # NumPy scalars (``m = max(m, x[i])``): their flag is set after the loop, by whether the
        # value changed from the one saved before it (``monotone_saves``, ``changed_flag``), so
        # the loop stays a reduction; the operators of each local's in-loop assignments ("other"
        # for the rest)
        self.monotone: frozenset[str] = frozenset()
        self.element_stores: frozenset[int] = frozenset()  # ids of LoweredArrays.element_stores
        self.loop_choice_ops: dict[str, set[str]] = {}
        self.loop_chosen: set[str] = set()  # locals a loop assigns a choice whose flag varies
        # local -> the kinds of the values assigned: 0 a NumPy scalar, 1 to 4 a Python int, float,
        # bool, complex (strength_flag's kinds: s = 0 then s += float(x[i]) is an int where no
        # iteration ran)
        self.strengths: dict[str, set[int]] = {}
        self.opaque_scalars: set[str] = set()  # locals assigned in loops kept as written (no flag there)
        # locals assigned inside a loop: no flag written there (a flag written each iteration is a
        # carried dependence that would keep a reduction such as ``s += x[i]`` off the thread team);
        # where every such assignment is of one kind and runs wherever its affine domain says (no
        # data-dependent guard inside the loop), one flag after the outermost loop, where the
        # domain is not empty, says the same (``in_loop_flags``)
        self.loop_scalars: set[str] = set()
        self.loop_kinds: dict[str, set[int]] = {}  # local -> the kinds its in-loop assignments give
        self.loop_untracked: set[str] = set()  # locals assigned in a loop under a data-dependent guard
        self.loop_domains: dict[str, list[isl.Set]] = {}  # flagged local -> its in-loop assignments' domains
        self.loop_guards = 0  # the data-dependent guards around the outermost loop being lifted
        # affine accesses lifted outside data-dependent guards: (domain, subscript, extent), whose
        # failing sizes a guarded read need not serve (frontend.expressions._refused_sizes)
        self.unguarded: list[tuple[isl.Set, str, str]] = []
        # locals given values of different types outside loops only: name -> those types, from
        # the previous pass of lift's fixpoint; each type gets a version (frontend.local_versions)
        self.split: dict[str, tuple[VType, ...]] = {}
        self.writes: list[LocalWrite] = []  # every assignment to a local scalar, this pass
        # local -> the locals read by its assignments of a NumPy value (``s += t * 0.1``): where
        # such a ``t`` holds a Python number on some paths, the value's kind follows ``t``'s
        # (``mixed_strength`` flags ``t`` too)
        self.feeds: dict[str, set[str]] = {}
        # flagged locals whose flag another flag's value reads (``inherited_kind``): set in
        # place, so that a read inside a loop sees the iteration's kind (``in_place_flags``)
        self.flag_reads: set[str] = set()
        # flagged local -> the values its flag is given (0 NumPy's, 1 to 4 a Python int, float,
        # bool, complex; ``flag_values``): ``s = 0`` then ``s += x[i] if x[i] > c else 0.25`` is a
        # Python int or float as the choices went (``kind_through_flags`` follows both)
        self.flag_kinds: dict[str, set[int]] = {}
        # locals read by an operand of a division (``/``, ``//``, ``%``) or power that Python
        # may refuse by ZeroDivisionError (``s / w`` of ``s = 0`` then ``s += x[k]`` in a loop):
        # flagged where their kind varies, so that the check knows Python's numbers (frontend.scalars
        # kind_checked)
        self.divided: set[str] = set()
        self.outer_loop = 0  # id of the outermost loop being lifted
        # local -> the outermost loops that assign it, and those where a division reads it: where
        # they share one, the flag is set in place (``in_place_flags``), so that the division sees
        # the iteration's kind, not the one after the loop
        self.assigning_loops: dict[str, set[int]] = {}
        self.dividing_loops: dict[str, set[int]] = {}

    @staticmethod
    def _params(arguments: tuple[Argument, ...]) -> tuple[str, ...]:
        params = [isl_name(a.name) for a in arguments if a.kind == "int"]  # (an int named mod: mod_)
        for a in arguments:
            if a.kind == "array":
                params.extend(shape_param(a.name, d) for d in range(a.rank))
        return tuple(params)

    # ---- helpers -------------------------------------------------------------------------
    def error(self, node: ast.AST, message: str, construct: str = ""):
        return self.source.error(node, message, construct)

    def isl_set(self, node: ast.AST, iters: tuple[str, ...], constraint: str) -> isl.Set:
        text = f"{self.prefix} -> {{ [{', '.join(map(isl_name, iters))}] : {constraint} }}"
        try:
            return isl.Set(text)
        except isl.Error:
            raise self.error(node, f"cannot express {ast.unparse(node)!r} as an affine constraint") from None

    def affine(self, node: ast.expr, scope: Scope) -> Affine:
        names = {v: isl_name(v) for v in scope.loop_vars}
        names.update({a.name: isl_name(a.name) for a in self.arguments.values() if a.kind == "int"})
        names.update({n: n for n in self.sizes})
        ranks = {a.name: a.rank for a in self.arguments.values() if a.kind == "array"}
        return AffineConverter(names, ranks, self.error).convert(node)

    def expressions(self, scope: Scope) -> ExpressionLifter:
        return ExpressionLifter(self, scope)

    # ---- statements ----------------------------------------------------------------------
    def lift_block(self, stmts: list[ast.stmt], scope: Scope) -> list:
        nodes: list = []
        for stmt in stmts:
            if not scope.loop_vars and not isinstance(stmt, (ast.Expr, ast.Return, ast.Pass)):
                self.nest += 1
            visitor = getattr(self, f"visit_{type(stmt).__name__}")
            nodes.extend(visitor(stmt, scope))
        return nodes

    def visit_Expr(self, node: ast.Expr, scope: Scope) -> list:
        if is_matmul_call(node):  # a matrix product frontend.array_linalg kept whole
            call = node.value
            assert isinstance(call, ast.Call)
            variables, stack = matmul_variables(call)
            names = variables + tuple(name for name, _ in stack)
            return lift_matmul(self, node, scope, Scope(scope.loop_vars + names, scope.domain))
        if is_lapack_call(node):  # an np.linalg routine frontend.array_lapack runs on LAPACK
            return lift_lapack(self, node, scope)
        return []  # a docstring (the checker allows nothing else)

    visit_Pass = visit_Expr

    def visit_Return(self, node: ast.Return, scope: Scope) -> list:
        self.returns, nodes = lift_return(self, node, scope)
        self.returns_span = self.source.span(node) if self.returns is not None else None
        self.return_node = node
        return nodes

    def visit_Assert(self, node: ast.Assert, scope: Scope) -> list:
        return lift_assert(self, node, scope)

    def extend_scope(self, node: ast.AST, scope: Scope, var: str, constraint: str) -> Scope:
        """``scope`` inside one more loop over ``var`` where ``constraint`` holds."""
        inner = scope.loop_vars + (var,)
        n = len(scope.loop_vars)
        domain = scope.domain.insert_dims(isl.dim_type.set, n, 1).set_dim_name(isl.dim_type.set, n, isl_name(var))
        return Scope(inner, domain.intersect(self.isl_set(node, inner, constraint)))

    def visit_For(self, node: ast.For, scope: Scope) -> list:
        assert isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call), "checked by the subset checker"
        var = node.target.id
        self.loop_names.add(var)
        if var in scope.loop_vars:
            raise self.error(node.target, f"loop variable {var!r} reuses the name of an enclosing loop")
        if var in self.arguments or var in self.arrays or var in self.scalar_types:
            raise self.error(node.target, f"loop variable {var!r} shadows an argument or local")
        jump = own_jump(node)
        if jump is not None:  # kept as written (frontend.opaque)
            return lift_region(self, node, scope, "break" if isinstance(jump, ast.Break) else "continue")
        try:
            args = [self.affine(a, scope) for a in node.iter.args]
        except UnsupportedError:
            return lift_region(self, node, scope, bound_reason(node.iter.args))
        start, stop, step = _range_parts(args)
        if step.const is None or step.const == 0:
            raise self.error(node.iter, "range() step must be a non-zero integer constant")
        inner = scope.loop_vars + (var,)
        v = isl_name(var)
        if step.const > 0:
            cons = f"{start.text} <= {v} < {stop.text}"
            stride = f"({v} - {start.text}) mod {step.const} = 0"
        else:
            cons = f"{stop.text} < {v} <= {start.text}"
            stride = f"({start.text} - {v}) mod {-step.const} = 0"
        if abs(step.const) != 1:
            cons = f"{cons} and {stride}"
        n = len(scope.loop_vars)
        domain = scope.domain.insert_dims(isl.dim_type.set, n, 1).set_dim_name(isl.dim_type.set, n, v)
        domain = domain.intersect(self.isl_set(node.iter, inner, cons))
        saved = self.monotone_saves(node, scope) if not scope.loop_vars else []
        first, slot = len(self.statements), len(self.pranges)
        if not scope.loop_vars:
            self.loop_guards, self.loop_domains, self.outer_loop = len(self.guards), {}, id(node)
        body = self.lift_block(node.body, Scope(inner, domain))
        if id(node) in self.source.pranges:  # written with prange: explain() checks the claim
            inside = tuple(s.name for s in self.statements[first:])
            self.pranges.insert(slot, PrangeLoop(self.source.span(node).line, var, n, inside))
        loop = [loop_of(v, 1 if step.const > 0 else -1, tuple(body))] if body else []
        return saved + loop + (self.in_loop_flags(node, scope) if not scope.loop_vars else [])

    def monotone_saves(self, node: ast.For, scope: Scope) -> list:
        """Before an outermost loop, ``SAVED + name = name`` for each monotone local it assigns."""
        assigned = {t.id for n in walk(node) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        saves = []
        for name in sorted(self.monotone & assigned):
            exprs = self.expressions(scope)
            value = exprs.convert(ast.copy_location(ast.Name(name, ast.Load()), node))
            target = ast.copy_location(ast.Name(SAVED + name, ast.Store()), node)
            saves.append(self.add_statement(node, target, value, scope, exprs))
        return saves

    def monotone_locals(self, flagged: frozenset[str]) -> frozenset[str]:
        """The ``flagged`` locals whose loops assign them only by ``max`` (or only ``min``) of
        themselves and NumPy scalars (``monotone_op``), none inside a loop kept as written."""
        return frozenset(n for n, ops in self.loop_choice_ops.items()
                         if n in flagged and len(ops) == 1 and ops <= {"max", "min"}
                         and n not in self.opaque_scalars)

    def in_loop_flags(self, node: ast.For, scope: Scope) -> list:
        """After an outermost loop, ``STRONG + name = kind`` for each flagged local the loop assigns
        (all its in-loop assignments of that one kind, none under a data-dependent guard: see
        ``mixed_strength``), where some assignment ran: the parameters for which the union of
        their domains is not empty.  Written once, outside the loop, so the loop carries nothing."""
        flags = []
        for name, domains in sorted(self.loop_domains.items()):
            ran = domains[0].params()
            for domain in domains[1:]:
                ran = ran.union(domain.params())
            kind = next(iter(self.loop_kinds[name]))
            flag = ast.copy_location(ast.Name(STRONG + name, ast.Store()), node)
            where = Scope((), isl.Set.from_params(ran.coalesce()).intersect(scope.domain))
            exprs = self.expressions(where)
            value = changed_flag(exprs, name, node) if name in self.monotone else ir.Const(kind, "int8", False)
            flags.append(self.add_statement(node, flag, value, where, exprs))
        self.loop_domains = {}
        return flags

    def visit_While(self, node: ast.While, scope: Scope) -> list:
        return lift_region(self, node, scope, "while loop")

    def visit_If(self, node: ast.If, scope: Scope) -> list:
        try:
            cond = self.condition(node.test, scope)
        except UnsupportedError:
            split = _affine_first(self, node, scope)
            if split is not None:  # if s and d: (s affine, no else) is if s: if d:, exactly
                first, rest = split
                inner = ast.copy_location(ast.If(rest, node.body, []), node)
                return self.lift_block([inner], Scope(scope.loop_vars, scope.domain.intersect(first)))
            reason = kept_inside(self, node)
            if reason:  # it holds a loop kept as written: so is the whole if (frontend.opaque)
                return lift_region(self, node, scope, reason)
            return lift_data_if(self, node, scope)
        then = self.lift_block(node.body, Scope(scope.loop_vars, scope.domain.intersect(cond)))
        orelse = self.lift_block(node.orelse, Scope(scope.loop_vars, scope.domain.subtract(cond)))
        return then + orelse

    def condition(self, node: ast.expr, scope: Scope) -> isl.Set:
        """An affine condition as the set of loop-variable values where it holds."""
        if isinstance(node, ast.BoolOp):
            parts = [self.condition(v, scope) for v in node.values]
            result = parts[0]
            for part in parts[1:]:
                result = result.intersect(part) if isinstance(node.op, ast.And) else result.union(part)
            return result
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            universe = self.isl_set(node, scope.loop_vars, "true")
            return universe.subtract(self.condition(node.operand, scope))
        if isinstance(node, ast.Compare):
            try:
                terms = [self.affine(node.left, scope)] + [self.affine(c, scope) for c in node.comparators]
            except UnsupportedError:
                raise self._data_dependent_if(node) from None
            texts = []
            for op, lhs, rhs in zip(node.ops, terms, terms[1:]):
                texts.append(f"{lhs.text} {_ISL_CMP[type(op)]} {rhs.text}")
            return self.isl_set(node, scope.loop_vars, " and ".join(texts))
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return self.isl_set(node, scope.loop_vars, "true" if node.value else "false")
        if isinstance(node, (ast.Name, ast.Subscript, ast.BinOp)):  # if n: / if len(x): an integer's truth
            try:
                term = self.affine(node, scope)
            except UnsupportedError:
                raise self._data_dependent_if(node) from None
            return self.isl_set(node, scope.loop_vars, f"({term.text} < 0 or {term.text} > 0)")
        raise self._data_dependent_if(node)

    def _data_dependent_if(self, node: ast.expr):
        return self.error(
            node,
            f"if-condition {ast.unparse(node)!r} is not an affine comparison of loop variables and "
            "integer arguments; use 'a if cond else b' for data-dependent choices",
            "data-dependent if",
        )

    def visit_Assign(self, node: ast.Assign, scope: Scope) -> list:
        target = node.targets[0]
        if isinstance(target, ast.Name) and allocator_of(node.value):
            assert isinstance(node.value, ast.Call)
            return self.declare_local_array(node, target.id, node.value, scope)
        lifter = self.expressions(scope)
        value = lifter.convert(node.value)
        if isinstance(target, ast.Name) and not value.weak:
            refuse_dtype_by_kind(self, node.value, scope)
        return self.assign(node, target, value, scope, lifter)

    def visit_AugAssign(self, node: ast.AugAssign, scope: Scope) -> list:
        lifter = self.expressions(scope)
        value = lifter.augmented(node)
        if isinstance(node.target, ast.Name) and not value.weak:  # t += s: t + s
            target = ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target)
            refuse_dtype_by_kind(self, ast.copy_location(ast.BinOp(target, node.op, node.value), node), scope)
        return self.assign(node, node.target, value, scope, lifter)

    def assign(self, node: ast.stmt, target: ast.expr, value: ir.Expr, scope: Scope,
               lifter: ExpressionLifter) -> list:
        """``target = value``: a local of several types writes each of its versions
        (frontend.local_versions)."""
        self._note_loop_scalar(target, scope)
        if isinstance(target, ast.Name) and target.id not in self.arguments:
            self.writes.append(local_write(lifter, node, target.id, value, bool(scope.loop_vars),
                                           self._type_varies(node, scope)))
            if not value.weak and isinstance(node, (ast.Assign, ast.AugAssign)):
                self.feeds.setdefault(target.id, set()).update(read_names(node.value) - {target.id})
            versions = self.split.get(target.id)
            if versions is not None:
                assert isinstance(node, (ast.Assign, ast.AugAssign))
                reads = isinstance(node, ast.AugAssign) or target.id in read_names(node.value)
                parts = version_values(lifter, target.id, value, versions, keep=reads)
                names = version_targets(target.id, versions, target)
                if reads and lifter.split_of(value) is not None:
                    return self._versions_through_temporaries(node, names, parts, scope, lifter)
                return [self.add_statement(node, name, part, scope, lifter) for name, part in zip(names, parts)]
        choice = choice_of(node)
        if isinstance(target, ast.Name) and choice is not None:  # each operand's kind (choice_kinds)
            kinds = choice_kinds(self.expressions(scope), target, choice, self.flagged)
            self.strengths.setdefault(target.id, set()).update(kinds)
        flag = self.strength_flag(node, target, value, scope, lifter)
        if flag and flag_first(node):  # the flag's test reads the value before the write
            return flag + [self.add_statement(node, target, value, scope, lifter)]
        return [self.add_statement(node, target, value, scope, lifter)] + flag

    def _type_varies(self, node: ast.stmt, scope: Scope) -> bool:
        """Whether the loop's data may choose the type of the value this assignment leaves
        (``LocalWrite.varies``): under a data-dependent ``if`` inside the outermost loop, a choice
        (``m = max(m, x[i])``), reading one (``s += x_f32[i] if x_f32[i] > 5 else 0.1``: Python's
        ``s`` stays a float, summed in float64, while the branches taken are 0.1) or reading a
        local split into versions."""
        value = node.value if isinstance(node, (ast.Assign, ast.AugAssign)) else None
        return bool(scope.loop_vars) and (len(self.guards) > self.loop_guards or choice_of(node) is not None
                                          or value is not None and (pushed_choice(value) is not None
                                                                    or bool(read_names(value) & self.split.keys())))

    def _versions_through_temporaries(self, node: ast.stmt, names: list[ast.Name], parts: list[ir.Expr],
                                      scope: Scope, lifter: ExpressionLifter) -> list:
        """``t = x[1] if t else k[1]`` of a split local ``t``: the choice's tests read ``t``'s
        versions and kind, which the statements write one after another, so a later part would
        test the value an earlier one wrote (cp47: ``k[1]`` where Python chose ``x[1]``).  Each
        part goes into its own temporary first (all read the old ``t``), then into its version."""
        temps = [ast.copy_location(ast.Name(f"__next{name.id}", ast.Store()), name) for name in names]
        out = [self.add_statement(node, temp, part, scope, lifter, fresh=True) for temp, part in zip(temps, parts)]
        for temp, name, part in zip(temps, names, parts):
            copier = self.expressions(scope)
            copier.record_read(f"{temp.id}[]")
            out.append(self.add_statement(node, name, ir.Load(temp.id, (), part.dtype, part.weak), scope, copier))
        return out

    def _note_loop_scalar(self, target: ast.expr, scope: Scope) -> None:
        if isinstance(target, ast.Name) and scope.loop_vars:
            self.loop_scalars.add(target.id)
            self.assigning_loops.setdefault(target.id, set()).add(self.outer_loop)

    def strength_flag(self, node: ast.stmt, target: ast.expr, value: ir.Expr, scope: Scope,
                      lifter: ExpressionLifter) -> list:
        """``STRONG + name = kind`` after an assignment to a flagged local: 0 for a NumPy scalar, 1
        to 4 for a Python int, float, bool, complex, so that the return gives the Python number
        where the last value assigned was one (runtime.variant: ``returned``).  A choice between
        types (``m = max(m, x[i])`` of a Python ``m = 0``: Python keeps the operand it chose) sets
        the kind of the branch taken, written before the value (its test reads the old value)."""
        chosen = isinstance(target, ast.Name) and kind_varies(lifter, target, node, value, self.flagged)
        inherited = None if chosen else self.inherited_kind(node, target, value, scope)
        chosen = chosen or inherited is not None
        if inherited is not None:  # (the target's own flag: as before, see in_place_flags)
            self.flag_reads.update(n for n in inherited_names(inherited) if n != getattr(target, "id", None))
        elif chosen:  # kind_choice reads the flags of the other flagged locals chosen between
            assert isinstance(target, ast.Name)
            choice = choice_of(node)
            self.flag_reads.update(flag_operands(choice, target, self.flagged) if choice is not None else ())
        kind = value_kind(value)
        op = monotone_op(lifter, target, node) if isinstance(target, ast.Name) and scope.loop_vars else None
        if isinstance(target, ast.Name) and scope.loop_vars:
            self.loop_choice_ops.setdefault(target.id, set()).add(op or "other")
            if chosen:  # its flag is set in place unless the local is monotone (in_place_flags)
                self.loop_chosen.add(target.id)
        if isinstance(target, ast.Name) and scope.loop_vars and target.id not in self.flagged_in_place:
            self.loop_kinds.setdefault(target.id, set()).add(kind)
            if len(self.guards) > self.loop_guards and op is None:
                self.loop_untracked.add(target.id)
            if target.id in self.flagged:  # one flag after the outermost loop (in_loop_flags)
                self.loop_domains.setdefault(target.id, []).append(scope.domain)
            return []
        if not (isinstance(target, ast.Name) and target.id in self.flagged):
            return []
        flag = ast.copy_location(ast.Name(STRONG + target.id, ast.Store()), target)
        if inherited is not None:  # s = s + 0.3: NumPy's where s (or a t read) was NumPy's, else Python's
            flags = self.expressions(scope)
            return [self.add_statement(node, flag, inherited_flag(flags, inherited, target), scope, flags)]
        if chosen:  # the choice again, converted by the flag's own lifter (which records its reads)
            assert isinstance(target, ast.Name)
            flags = self.expressions(scope)
            return [self.add_statement(node, flag, kind_choice(flags, target, choice_of(node)), scope, flags)]
        return [self.add_statement(node, flag, ir.Const(kind, "int8", False), scope, self.expressions(scope))]

    def inherited_kind(self, node: ast.stmt, target: ast.expr, value: ir.Expr,
                       scope: Scope) -> Inherited | None:
        """Where ``name = value`` of a flagged local gives a NumPy scalar only through flagged
        locals it reads (``s = s + 0.3``, ``s *= 2``, ``s += t * 0.1`` of a flagged ``t``: a
        Python number where each of them holds one, NumPy's where one of them holds NumPy's), the
        kind (1 to 4) of the Python number it gives where they hold Python numbers, and those
        locals; None for other assignments (their kind does not depend on the locals').  A Python
        number's (``value.weak``) counts where its kind varies with the path (a ``KindChoice``):
        ``s += 0.25 if c else 1`` and ``s = s * 2 if c else s + 0.5`` of ``s = 0`` are a Python
        int or float as ``s``'s flag and the choice say (Python's int 2 came back as 2.0)."""
        if not (isinstance(target, ast.Name) and target.id in self.flagged) \
                or not isinstance(node, (ast.Assign, ast.AugAssign)) or choice_of(node) is not None and not value.weak:
            return None
        expr: ast.expr = node.value if isinstance(node, ast.Assign) else \
            ast.copy_location(ast.BinOp(ast.Name(target.id, ast.Load()), node.op, node.value), node)
        kind = self.kind_through_flags(expr, scope, target.id)
        if value.weak and not isinstance(kind, (KindChoice, KindSplit)):
            return None  # a Python number of the value's kind on every path
        return kind

    def kind_through_flags(self, expr: ast.expr, scope: Scope, own: str | None = None) -> Inherited | None:
        """``inherited_kind`` of the value ``expr`` (``own``: the local it is assigned to), or of
        a returned expression (``return m * 0.1`` of a flagged ``m``: ``returns._lift_value``).
        A value that reads a choice (``s += x[i] if x[i] > 0 else 0.0``: Python's float where
        every ``x[i]`` was negative) has each branch's kind (``pushed_choice``, up to 4 choices)."""
        kind = self._kind_through(expr, scope, own, 4)
        return None if kind is None or kind == (0, ()) else kind

    def _kind_through(self, expr: ast.expr, scope: Scope, own: str | None, choices: int,
                      fixed: dict[str, int] | None = None) -> Inherited | None:
        fixed = fixed or {}
        pushed = pushed_choice(expr) if choices else None
        if pushed is not None:
            test, then, otherwise = pushed
            kinds = [self._kind_through(branch, scope, own, choices - 1, fixed) for branch in (then, otherwise)]
            if kinds[0] is None or kinds[1] is None:
                return None
            return kinds[0] if kinds[0] == kinds[1] else KindChoice(test, kinds[0], kinds[1])
        names = sorted({n.id for n in walk(expr) if isinstance(n, ast.Name) and n.id in self.flagged})
        for name in names:
            python = self._flag_python_kinds(name, name == own) if name not in fixed else []
            if len(python) > 1:  # the Python kind its flag says: each kind's value, chosen by the flag
                return self._kind_by_flag(expr, scope, own, choices, fixed, name, python)
        weak: dict[str, int | float | bool | complex] = {}
        for name in names:
            t = self.scalar_type(name)
            if t is None or np.dtype(t.dtype).kind not in KIND_LETTERS:
                return None
            kind = fixed.get(name) or (self._stand_in_kind(name) if name != own else None)  # (t = 3 of a float t: 0)
            weak[name] = PYTHON_ZEROS[(kind or python_kind(t.dtype)) - 1]

        class _Weak(ast.NodeTransformer):
            def visit_Name(self, n: ast.Name):
                return ast.copy_location(ast.Constant(weak[n.id]), n) if n.id in weak else n

        alternative = _Weak().visit(copy.deepcopy(expr))
        exprs = self.expressions(scope)
        try:
            converted = exprs.convert(alternative)
        except UnsupportedError:
            return None
        if exprs.split_of(converted) is not None:  # s += t * 0.1 of a t of several types: its version's
            weak_leaf = any(t.weak for t in leaf_types(exprs, converted))  # some branch a Python number
            return KindSplit(alternative, tuple(names)) if weak_leaf else (0, ())
        if not converted.weak or not choices and pushed_choice(expr) is not None:
            return (0, ())  # (NumPy's on every path, or not followed further)
        return python_kind(converted.dtype), tuple(names)

    def _kind_by_flag(self, expr: ast.expr, scope: Scope, own: str | None, choices: int, fixed: dict[str, int],
                      name: str, python: list[int]) -> Inherited | None:
        """``_kind_through`` of ``expr`` that reads a flagged ``name`` given Python numbers of
        several ``python`` kinds (``s = 0`` then ``s += x[i] if x[i] > c else 0.25``: the Python
        float where the last choice gave it, else the int): the kind with ``name`` of each kind, as
        ``name``'s flag says (it took the int's before: ``return s + 1`` gave 1 for Python's 1.25)."""
        result = None
        for kind in python:
            branch = self._kind_through(expr, scope, own, choices, {**fixed, name: kind})
            if branch is None:
                return None
            if result is None or result == branch:
                result = branch
                continue
            flag = ast.copy_location(ast.Name(STRONG + name, ast.Load()), expr)
            test = ast.copy_location(ast.Compare(flag, [ast.Eq()], [ast.copy_location(ast.Constant(kind), expr)]), expr)
            result = KindChoice(test, branch, result)
        return result

    def _stand_in_kind(self, name: str) -> int | None:
        """The one Python kind (1 to 4) a flagged ``name`` holds where its flag says a Python number:
        its own Python numbers' (``_python_kind``), else the one its flag inherits (``u = s * 2`` of
        ``s = 0`` then ``s += x[k]``: ``u`` is given NumPy values only, yet a Python int where ``s``
        is one; ``return u + 1`` gave 1.0, its dtype's kind, for Python's 1)."""
        one = self._python_kind(name)
        if one is not None:
            return one
        python = self._flag_python_kinds(name, False)
        return python[0] if len(python) == 1 else None

    def flag_python_kinds(self, name: str) -> list[int]:
        """The Python kinds (1 to 4) the flagged local ``name``'s flag may hold where it is read."""
        return self._flag_python_kinds(name, False)

    def _flag_python_kinds(self, name: str, own: bool) -> list[int]:
        """The Python kinds (1 to 4) ``name``'s flag may hold, its ``_python_kind`` among them;
        for the local assigned (``own``), with those given so far this pass and its type's
        kind, which the assignment may give (``s += 0.25 if c else 1`` of ``s = 0``)."""
        one = self._python_kind(name)
        kinds = self.flag_kinds.get(name, set()) | ({one} if one else set())
        t = self.scalar_type(name)
        if own and t is not None and np.dtype(t.dtype).kind in KIND_LETTERS:
            kinds = kinds | self.strengths.get(name, set()) | {python_kind(t.dtype)}
        return sorted(kinds - {0})

    def flag_values(self, value: ir.Expr) -> set[int]:
        """The values a flag's expression may give: its constants, another flag's values."""
        if isinstance(value, ir.Const):
            return {int(value.value)}
        if isinstance(value, ir.Select):
            return self.flag_values(value.then) | self.flag_values(value.otherwise)
        if isinstance(value, ir.Load) and value.array.startswith(STRONG) and value.array[len(STRONG):] in self.flag_kinds:
            return set(self.flag_kinds[value.array[len(STRONG):]])
        return {0, 1, 2, 3, 4}

    def mixed_strength(self, source: KernelSource) -> frozenset[str]:
        """The locals the final return gives back by name that were assigned both Python numbers
        and NumPy scalars (``m = 0`` then ``if n: m = x.mean()``; ``s = 0.0`` then ``s += x[i]``
        in a loop, whose assignments, where all give one kind and none stands under a
        data-dependent guard inside the loop, get one flag after the loop (``in_loop_flags``), so
        that its reduction stays parallel; the others' flags are set in place: ``in_place_flags``),
        and the locals of both kinds whose values such a local's NumPy values read (``feeds``:
        ``t`` of ``s += t * 0.1`` where ``t`` is 3.0 or ``x[i] + 1``, through ``u = t * 2.0`` too),
        so that ``s`` keeps Python's kind while every ``t`` was a Python float (``inherited_kind``),
        and a local returned or read by the return that such values feed, assigned NumPy's only
        (``u = t * 3`` of ``t = 2`` then ``t += x[i] if x[i] > 5 else 0.25``, ``return u + 1``: the
        Python int 7 where the loop ran no iteration; np.float64(7.0) before)."""
        reads = self.returned_reads(source) | self.divided  # (a division's: ExpressionLifter.python_checked)
        returned = self.returned_names(source) | reads
        mixed = {n for n in self.returned_names(source) if self._mixed(n)}
        mixed |= {n for n in reads if self._mixed(n) and self.strengths[n] - {0}}
        weak = {n for n in self.strengths if self._mixed(n) and self.strengths[n] - {0}}  # (of several Python
        grown = True  # kinds too: _kind_by_flag)
        while grown:  # u = t * 2.0 of such a t: a Python float where t is one
            more = {n for n, reads in self.feeds.items() if n not in weak and reads & weak and self._local_number(n)}
            weak |= more
            grown = bool(more)
        mixed |= {n for n in returned if n in weak}  # return u + 1 of u = t * 3: a Python int where t is one
        # s += t * 0.1 of a flagged s: t's kind decides the value's (inherited_kind); through a
        # local split into versions too (u = s if c else 3: the version s's flag says)
        fed = list(mixed) + [n for n in returned if n in self.split]
        seen = set(fed)
        while fed:
            for n in self.feeds.get(fed.pop(), ()):
                if n not in seen and (n in weak or n in self.split):
                    seen.add(n)
                    fed.append(n)
                    if n in weak:
                        mixed.add(n)
        return frozenset(mixed)

    def _local_number(self, name: str) -> bool:
        t = self.scalar_type(name)
        return name in self.arrays and self.arrays[name].is_scalar and t is not None \
            and np.dtype(t.dtype).kind in KIND_LETTERS and name in self.strengths

    def _mixed(self, name: str) -> bool:
        return len(self.strengths.get(name, ())) > 1 and name in self.arrays and self.arrays[name].is_scalar

    def _python_kind(self, name: str) -> int | None:
        """The one kind (1 to 4) of the Python numbers ``name`` is given (an int for ``t = 3`` of
        a float64 local), so that ``inherited_kind``'s weak stand-in is the one Python computes
        with; None where they are of several kinds or the local is not a number."""
        t = self.scalar_type(name)
        kinds = self.strengths.get(name, set()) - {0}
        return next(iter(kinds)) if t is not None and np.dtype(t.dtype).kind in KIND_LETTERS and len(kinds) == 1 else None

    def in_place_flags(self, flagged: frozenset[str]) -> frozenset[str]:
        """The flagged locals whose flag one statement after the outermost loop cannot give: those
        a loop kept as written assigns, or a loop under a data-dependent guard, or with values of
        two kinds.  Their flag is set beside each assignment (a carried write that keeps such a
        loop serial; its value was the promoted NumPy scalar's type before, on every path)."""
        monotone = self.monotone_locals(flagged)
        return frozenset(n for n in flagged if n in self.opaque_scalars or n in self.flagged_in_place
                         or n in self.flag_reads and n in self.loop_scalars
                         or bool(self.assigning_loops.get(n, set()) & self.dividing_loops.get(n, set()))
                         or n in self.loop_chosen and n not in monotone
                         or n in self.loop_scalars and (n in self.loop_untracked
                                                        or len(self.loop_kinds.get(n, ())) != 1))

    def declare_local_array(self, node: ast.stmt, name: str, call: ast.Call, scope: Scope) -> list:
        """A kernel-local array (frontend.allocation); np.ones/np.full add their fill loop nest."""
        if name in self.arrays or name in self.arguments or name in self.scalar_types:
            raise self.error(call, f"{name!r} is already defined; local arrays need a fresh name")
        allocation = read_allocation(self, name, call, scope)
        items = self.source.list_items.get(name)  # a list built by append: np.array's dtype of its items
        if items is not None:
            allocation = dataclasses.replace(allocation, info=dataclasses.replace(
                allocation.info, dtype=self._list_dtype(node, items)))
        self.arrays[name] = allocation.info
        return [] if allocation.fill is None else fill_nest(self, node, allocation, scope)

    def _list_dtype(self, node: ast.stmt, items: tuple[str, ...]) -> str:
        """``np.array``'s dtype of a list of these locals' values: Python numbers as int64,
        float64, bool, complex128, NumPy scalars as they are, promoted together (float64 while
        the locals are not typed yet: the fixpoint of lift() types them)."""
        if any(item in self.split for item in items):
            self.list_conflicts.append((node, sorted({t.dtype for item in items for t in self.split.get(item, ())})))
        typed = [self.scalar_type(item) for item in items]
        if any(t is None for t in typed):
            return "float64"
        dtypes = {VType(t.dtype, False) for t in typed if t is not None}
        if len(dtypes) > 1:  # refused once the types are final (lift())
            self.list_conflicts.append((node, sorted(t.dtype for t in dtypes)))
        return functools.reduce(promote, sorted(dtypes, key=lambda t: t.dtype)).dtype

    def _dtype_name(self, node: ast.expr) -> str:
        if isinstance(node, ast.Attribute) and module_of(node.value, self.globals) == "np" \
                and node.attr in _DTYPES:
            return node.attr
        if isinstance(node, ast.Name) and node.id == "float":
            return "float64"
        if isinstance(node, ast.Name) and node.id == "int":
            return "int64"
        if isinstance(node, ast.Name) and node.id == "complex":
            return "complex128"
        if isinstance(node, ast.Name) and node.id == "bool":
            return "bool"
        raise self.error(node, f"dtype {ast.unparse(node)!r}; use np.float64, np.float32, np.int8 ... np.int64, "
                         "np.uint8 ... np.uint64, np.bool, float, int, complex or bool")

    def add_statement(self, node: ast.stmt, target: ast.expr, value: ir.Expr, scope: Scope,
                      lifter: ExpressionLifter, fresh: bool = False) -> StmtNode:
        """Record ``target = value``; ``lifter`` converted ``value`` and holds its reads.
        ``fresh``: the target's old value is dead under a data-dependent ``if`` (a temporary read
        only where the ``if``'s condition holds), so nothing is written back where it fails."""
        name = f"S{len(self.statements)}"
        if isinstance(target, ast.Name):
            array, index, dtype = self.assign_scalar(target, value)
            write_text = f"{isl_name(array)}[]"
        else:
            assert isinstance(target, ast.Subscript), "checked by the subset checker"
            array, index_aff = lifter.subscript(target, write=True)
            index = tuple(a.expr for a in index_aff)
            dtype = self.arrays[array].dtype
            check_int_literals(self, node, (value,), VType(dtype, False))  # x_int8[i] = 1000: OverflowError
            value, = range_checked(self, (value,), VType(dtype, False), node)  # x_int8[i] = s: the same
            write_text = access_text(isl_name(array), self.arrays[array], index_aff)
            if has_runtime_index(index):  # may write any element: modelled as reading them all
                lifter.read_texts.append((write_text, None))  # and writing back the others
        if value.dtype.startswith("complex") and not dtype.startswith("complex") and index:
            raise self.error(node, f"storing a complex value into {array!r} of dtype {dtype} (numpy drops the "
                             "imaginary part with a ComplexWarning); store z.real or abs(z) explicitly",
                             "complex to real store")
        stored = lifter.coerce(value, VType(dtype, False))
        if index and id(node) in self.element_stores:  # y[i] = v as written: NumPy's checks
            stored = element_store_checked(self, value, stored, dtype, node)
        value = stored
        if self.guards and (fresh or id(node) in self.fresh_defs):  # a branch's own local: old value dead
            value = guarded_value(value, guard_expr(self.guards, lifter), zero_of(dtype), dtype)
        elif self.guards:  # inside a data-dependent if: write the old value back where it fails
            guard = guard_expr(self.guards, lifter)
            if has_runtime_index(index):  # hist[b] += 1 under `if 0 <= b < n`: b only where it holds
                index = tuple(_guarded_index(i, guard) for i in index)
            old = ir.Load(array, index, dtype, False)
            lifter.read_texts.append((write_text, None))
            value = guarded_value(value, guard, old, dtype)
        iters = ", ".join(isl_name(v) for v in scope.loop_vars)
        domain = scope.domain.set_tuple_name(name)
        writes = self.access_map(node, name, iters, [(write_text, None)], domain)
        reads = self.access_map(node, name, iters, lifter.read_texts, domain)
        self.statements.append(Statement(
            name=name, iterators=scope.loop_vars, array=array, index=index,
            value=value, span=self.source.span(node),
            nest=self.nest, domain=domain, reads=reads, writes=writes,
        ))
        return StmtNode(name)

    def add_region(self, node: ast.stmt, region: Region, scope: Scope, reads: list, writes: list) -> StmtNode:
        """Record a loop kept as written (frontend.opaque) with its over-approximated accesses."""
        name = f"S{len(self.statements)}"
        iters = ", ".join(isl_name(v) for v in scope.loop_vars)
        domain = scope.domain.set_tuple_name(name)
        self.statements.append(Statement(
            name=name, iterators=scope.loop_vars, array="", index=(), value=ir.int_const(0),
            span=self.source.span(node), nest=self.nest, domain=domain,
            reads=self.access_map(node, name, iters, reads, domain),
            writes=self.access_map(node, name, iters, writes, domain), region=region,
        ))
        return StmtNode(name)

    def assign_scalar(self, target: ast.Name, value: ir.Expr) -> tuple[str, tuple, str]:
        name = target.id
        if name in self.arguments:
            raise self.error(target, f"assignment to argument {name!r}; arguments are read-only "
                             "(write into array elements instead)")
        if name in self.arrays and not self.arrays[name].is_scalar:
            raise self.error(target, f"reassignment of local array {name!r}")
        if name in self.loop_names:
            raise self.error(target, f"local {name!r} reuses the name of a loop variable; give it its own name")
        vtype = VType(value.dtype, value.weak)
        if name.startswith(STRONG):
            self.flag_kinds.setdefault(name[len(STRONG):], set()).update(self.flag_values(value))
        self.strengths.setdefault(name, set()).add(value_kind(value))
        previous = self.assigned.get(name)
        self.assigned[name] = vtype if previous is None else merged(previous, vtype)
        if name not in self.arrays:
            current = self.scalar_types.get(name, vtype)
            self.arrays[name] = ArrayInfo(name, current.dtype, (), "local")
        return name, (), self.arrays[name].dtype

    def access_map(self, node, stmt: str, iters: str, targets: list, domain: isl.Set) -> isl.UnionMap:
        """Accesses ``(text, guard)`` of one statement; a guard limits where the access happens."""
        result = isl.UnionMap.empty(domain.get_space().params())
        for text, guard in targets:
            try:
                access = isl.Map(f"{self.prefix} -> {{ {stmt}[{iters}] -> {text} }}")
            except isl.Error:
                raise self.error(node, "cannot express this access as an affine relation") from None
            where = domain if guard is None else domain.intersect(guard.set_tuple_name(stmt))
            result = result.union(isl.UnionMap.from_map(access.intersect_domain(where)))
        return result

    def scalar_type(self, name: str) -> VType | None:
        return self.scalar_types.get(name) or self.assigned.get(name)

    def returned_names(self, source: KernelSource) -> frozenset[str]:
        """The names the final return gives back (``return m`` or an item ``return m, k``)."""
        final = source.tree.body[-1] if source.tree.body else None
        value = final.value if isinstance(final, ast.Return) else None
        return frozenset(e.id for e in (value.elts if isinstance(value, ast.Tuple) else [value])
                         if isinstance(e, ast.Name))

    def returned_reads(self, source: KernelSource) -> frozenset[str]:
        """The names the final return's items other than a bare name read (``m`` of ``return m *
        0.1``): the item's kind follows their flags (``kind_through_flags``)."""
        final = source.tree.body[-1] if source.tree.body else None
        value = final.value if isinstance(final, ast.Return) else None
        return frozenset(n for e in (value.elts if isinstance(value, ast.Tuple) else [value])
                         if e is not None and not isinstance(e, ast.Name) for n in read_names(e))


def _zeroed(arrays: tuple[ArrayInfo, ...], flagged: frozenset[str]) -> tuple[ArrayInfo, ...]:
    """``arrays`` with the local scalars made of a flagged local (it and the fresh names the
    rewrite made of it: ``KernelSource.unbound``; their versions and kinds) starting at zero: a
    read past its failed UnboundLocalError check, or the old value a data-dependent ``if`` keeps,
    reads a defined value (frontend/unbound_locals.py)."""
    if not flagged:
        return arrays
    return tuple(dataclasses.replace(a, zero_init=True) if a.is_scalar and _made_of(a.name, flagged) else a
                 for a in arrays)


def _made_of(name: str, names: frozenset[str]) -> bool:
    """Is ``name`` one of ``names``, or a local the lift made of one (``__version0_q``, ``__kind_q``)?"""
    for _ in range(8):
        if name in names:
            return True
        if not GENERATED_PREFIX.match(name):
            return False
        name = GENERATED_PREFIX.sub("", name, count=1)
    return False


def _range_parts(args: list[Affine]) -> tuple[Affine, Affine, Affine]:
    one = Affine("1", ir.int_const(1), 1)
    zero = Affine("0", ir.int_const(0), 0)
    if len(args) == 1:
        return zero, args[0], one
    if len(args) == 2:
        return args[0], args[1], one
    return args[0], args[1], args[2]


_ISL_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "=", ast.NotEq: "!="}


def lift(fn, arguments: tuple[Argument, ...], *, blas: bool = False, unbound: frozenset[str] = frozenset()) -> Scop:
    """Parse, check and lift ``fn`` for one call signature (``arguments``, in parameter order).
    ``blas``: NumPy matrix products that BLAS can run are kept whole (model/region.py Matmul).
    ``unbound``: the user's locals a read may find unassigned (an earlier lift's dataflow check
    found them): Python's UnboundLocalError where it does (frontend/unbound_locals.py)."""
    source = dataclasses.replace(read_source(fn), unbound=unbound)
    if isinstance(fn, types.MethodType):  # (its def has one more parameter than the call binds)
        kind = "its class" if isinstance(fn.__self__, type) else f"an object of class {type(fn.__self__).__name__}"
        raise source.error(source.tree, f"unsupported construct: a method bound to {kind}: the kernel would "
                           f"read {source.tree.args.args[0].arg if source.tree.args.args else 'it'}, which is no "
                           "array or number; write a module-level function (or a staticmethod) and pass what it "
                           "reads as arguments", "bound method")
    for node in walk(source.tree):
        if isinstance(node, ast.Name) and node.id in (MATMUL_CALL, LAPACK_CALL, REASSOC_CALL, NUMPY_ABS_CALL,
                                                      PREFIX_INDEX_CALL):
            raise source.error(node, f"the name {node.id} is reserved for polyfuse's generated code")
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):  # (before any pass reads it as a value)
            word, kind = ("await", "coroutine") if isinstance(node, ast.Await) else ("yield", "generator function")
            raise source.error(node, f"unsupported construct: {word} makes the kernel a {kind}, which gives its "
                               "values one at a time; a kernel returns its results once: fill an array and "
                               "return it", kind)
    globals_ = dict(fn.__globals__)
    source = add_frozen_parameters(source, fn)  # global arrays read: hidden arguments (kernel.py)
    source = drop_parameters(source, fn)  # function parameters: globals of this variant (kernel.py)
    source = unpack_parameters(source, arguments)  # a scipy.sparse matrix parameter -> its parts
    source = expand_parameters(source, arguments)  # a tuple parameter -> its elements
    source = rewrite(source, globals_, arguments, fn)  # numba-style sizes, prange, helpers -> the subset
    checked = source.unbound  # (of the unbound: those the rewrite flagged and checks)
    check_uses(source, arguments)  # a sparse matrix only in products (helpers inlined by now)
    rules = PRODUCT_RULES_BLAS if blas else PRODUCT_RULES
    lowered = lower_arrays(source, globals_, arguments, rules, JOIN_RULES, INDEX_RULES,  # NumPy statements -> loops
                           FORM_RULES)
    source, assumed, assertions = lowered.source, lowered.assumed, lowered.assertions
    check_not_written(source, fn)  # a global array is a constant (numba's too)
    check_subset(source, globals_)
    _check_parameters(source, arguments)
    scalar_types: dict[str, VType] = {}
    flagged: frozenset[str] = frozenset()
    in_place: frozenset[str] = frozenset()
    monotone: frozenset[str] = frozenset()
    split: dict[str, tuple[VType, ...]] = {}
    earlier: dict[str, tuple[VType, ...]] = {}  # each local's types in the passes so far
    for attempt in range(12):  # local scalar types widen to a fixpoint (s = 0 then s += 0.5 is a float)
        lifter = Lifter(source, globals_, arguments, scalar_types,
                        tuple(name for name, _ in lowered.computed) + tuple(size[0] for size in lowered.sizes))
        lifter.flagged, lifter.flagged_in_place, lifter.split = flagged, in_place, split
        lifter.monotone = monotone
        lifter.element_stores = frozenset(id(s) for s in lowered.element_stores)  # (lowered keeps them)
        context = _context(lifter)
        failing = []
        for assertion in assertions:  # the user's asserts of sizes: checked first at call time, known after
            holds = lifter.condition(assertion.test, Scope((), context)).params()
            bad = context.subtract(holds)
            if not bad.is_empty():
                failing.append((bad.coalesce().to_str(), assertion.message, assertion.error))
            if assertion.restricts:
                context = context.intersect(holds)
        accepted = context  # where NumPy runs the statements too (slices empty by different amounts)
        for k, equal in enumerate(assumed):  # extents NumPy broadcasting requires equal; checked at call time
            holds = lifter.condition(equal, Scope((), context)).params()  # (the scope gives loop names only)
            context = context.intersect(holds)
            loose = lowered.numpy_accepts[k] if k < len(lowered.numpy_accepts) else None
            accepted = accepted.intersect(holds if loose is None else
                                          lifter.condition(loose, Scope((), accepted)).params())
        try:
            nodes = lifter.lift_block(source.tree.body, Scope((), isl.Set.from_params(context)))
        except UnsupportedError:
            # a flagged local's flag read before this pass knew it must be set in place: gbm's
            # gain = gl * gl / h (gain assigned only in the loop) then best = gain under an if,
            # whose flag reads gain's: another pass with it in place, else the user's error
            placed = in_place | lifter.in_place_flags(flagged)
            if placed == in_place or attempt == 11:
                raise
            in_place = placed
            continue
        found = split_locals(lifter.writes, weakness_seen(lifter)) \
            | loop_splits(lifter, lifter.writes, split, settled=lifter.assigned == scalar_types,
                          returned=lifter.returned_names(source) | lifter.returned_reads(source), earlier=earlier)
        earlier = seen_types(lifter.writes, earlier)
        mixed = lifter.mixed_strength(source) - set(found)  # (a split local returns its version's type)
        placed = lifter.in_place_flags(mixed)
        settled = lifter.monotone_locals(mixed)
        if lifter.assigned == scalar_types and mixed == flagged and placed == in_place and found == split \
                and settled == monotone:
            break
        scalar_types, flagged, in_place, split, monotone = dict(lifter.assigned), mixed, placed, found, settled
    check_loop_locals(lifter, lifter.writes, lifter.split, lifter.returned_names(source))
    for node, dtypes in lifter.list_conflicts:
        raise lifter.error(node, f"a list built by append of items of dtypes {' and '.join(dtypes)}: NumPy's "
                           "dtype of np.array(list) then depends on which items were appended; give "
                           "np.array(list, dtype=...)", "growing list")
    top = Scope((), isl.Set.from_params(context))
    scop = Scop(
        name=fn.__name__,
        arguments=arguments,
        params=lifter.params,
        arrays=_zeroed(tuple(lifter.arrays.values()), checked),
        statements=tuple(lifter.statements),
        filename=source.filename,
        body=tuple(nodes),
        schedule=isl.Schedule.from_domain(isl.UnionSet.empty(context.get_space())),
        context=context,
        prange_loops=tuple(lifter.pranges),
        returns=_with_prefixes(lifter, _with_views(lifter.returns, lowered.returned_views), source.prefixes),
        returns_span=lifter.returns_span,
        assertions=tuple(failing),
        sizes=tuple(SizeProduct(name, (), (), source=text) for name, text in lowered.computed)  # these first:
        + tuple(SizeProduct(name, _extents(lifter, factors, top), _extents(lifter, divisors, top))  # products
                for name, factors, divisors in lowered.sizes),  # may have them as factors
        counts=tuple(ElementCount(_extents(lifter, m.source, top), _extents(lifter, m.shape, top), m.missing)
                     for m in lowered.reshapes),
        numpy_runs=_outside_assumptions(accepted, context),
        user_names=tuple(sorted(source.user_names.items())),
    )
    return dataclasses.replace(scop, schedule=scop.schedule_of(scop.body))


def _outside_assumptions(accepted: isl.Set, context: isl.Set) -> str | None:
    """The isl text of the sizes outside the compiled assumptions where NumPy still runs the
    kernel's statements (two slices it requires equal both empty, by different amounts): calls
    there run the undecorated function; None where there are none."""
    outside = accepted.subtract(context)
    return None if outside.is_empty() else outside.coalesce().to_str()


def _extents(lifter: Lifter, nodes: tuple[ast.expr, ...], scope: Scope) -> tuple[ir.Expr, ...]:
    """Sizes (ASTs affine in the parameters) as integer IR the call evaluates."""
    return tuple(lifter.affine(node, scope).expr for node in nodes)


def _with_views(returns: ReturnValue | None,
                views: tuple[tuple[tuple[int, ...], Returned], ...]) -> ReturnValue | None:
    """The lifted return with the returned views of arguments (the lowering returned each as
    its argument's name) in their places (each at its path in the nested tuples)."""
    if not views or returns is None:
        return returns
    chosen = dict(views)

    def placed(item: ReturnValue, path: tuple[int, ...]) -> ReturnValue:
        if path in chosen:
            return chosen[path]
        if isinstance(item, tuple):
            return tuple(placed(sub, (*path, k)) for k, sub in enumerate(item))
        return item
    return placed(returns, ())


def _with_prefixes(lifter: Lifter, returns: ReturnValue | None,
                   prefixes: ReturnedPrefixes | None) -> ReturnValue | None:
    """The lifted return with each buffer and its count (frontend.growing_lists) made one
    returned prefix ``buf[:count]``."""
    if prefixes is None:
        return returns
    assert isinstance(returns, tuple)
    items: list = []
    starts = dict(prefixes.at)
    k = 0
    while k < len(returns):
        if k not in starts:
            items.append(returns[k])
            k += 1
            continue
        buffer, count = returns[k], returns[k + 1]
        assert isinstance(buffer, Returned) and isinstance(count, Returned)
        if buffer.how not in ("array", "arg") or count.how != "scalar" or count.pytype not in _INTEGER_PYTYPES:
            what = "an array" if buffer.how not in ("array", "arg") else "an integer"
            raise lifter.error(lifter.return_node or lifter.source.tree,
                               f"a returned slice buf[:k] whose end is known only at run time needs {what} "
                               "there (buf a local or argument array, k an integer)", "returned slice")
        items.append(Returned("prefix", buffer.name, count=count.name, empty_dtype=starts[k],
                              copied=k in prefixes.copied))
        k += 2
    return items[0] if prefixes.single else tuple(items)


_INTEGER_PYTYPES = ("int", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _context(lifter: Lifter) -> isl.Set:
    shapes = [p for p in lifter.params if "__shape" in p] + list(lifter.sizes)
    units = {shape_param(isl_name(a.name), d) for a in lifter.arguments.values() for d in a.unit_axes}
    cons = " and ".join(f"{p} = 1" if p in units else f"{p} >= 0" for p in shapes) or "true"
    return isl.Set(f"{lifter.prefix} -> {{ : {cons} }}")


def _check_parameters(source: KernelSource, arguments: tuple[Argument, ...]) -> None:
    names = [a.arg for a in source.tree.args.args]
    if names != [a.name for a in arguments]:
        raise AssertionError(f"signature {arguments} does not match parameters {names}")


def _guarded_index(index: ir.Expr, guard: ir.Expr) -> ir.Expr:
    """A store's run-time subscript under a data-dependent ``if``: its value where ``guard``
    holds, else 0, and the access made only where ``guard`` holds (ir.Index.when), so that where
    Python never runs the store its subscript (out of range there, ``hist[b]`` under
    ``if 0 <= b < n``) is neither checked nor used, and no element is touched: element 0 is no
    element of an empty ``hist``."""
    if not isinstance(index, ir.Index):
        return index
    chosen = ir.Select(guard, index.operand, ir.Const(0, index.operand.dtype, True), index.operand.dtype, True, False)
    return dataclasses.replace(index, operand=chosen, when=guard)


def _affine_first(lifter, node: ast.If, scope: Scope):
    """``if s and d:`` with no ``else``, ``s`` an affine condition and ``d`` not: (the set where
    ``s`` holds, ``d``), else None.  Python evaluates ``d`` and the body only where ``s`` holds,
    so the body's reads need bounds only there (fz27: ``if x.shape[0] > 1 and x[0] > 0: v = x[1]``
    was refused per call for a shorter ``x``, an ArgumentError where Python ran)."""
    test = node.test
    if node.orelse or not isinstance(test, ast.BoolOp) or not isinstance(test.op, ast.And):
        return None
    try:
        first = lifter.condition(test.values[0], scope)
    except UnsupportedError:
        return None
    rest = test.values[1:]
    later = rest[0] if len(rest) == 1 else ast.copy_location(ast.BoolOp(ast.And(), rest), rest[0])
    return first, later
