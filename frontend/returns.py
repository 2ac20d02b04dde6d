"""The kernel's final ``return``: what ``Kernel.__call__`` hands back.

- an argument's name returns the caller's object itself (``return y`` after writing into it);
- a local array's name makes that array a *result*: allocated fresh on every call, never
  contracted or pooled, because it escapes the kernel;
- any other value (``s``, ``s / n``, ``x[0]``) is stored by one more top-level statement into a
  0-d result ``__return<k>``, read after the run and given the Python type the undecorated
  function's value has (a weak value is a Python ``float``/``int``, a strong one a numpy scalar);
- a tuple returns a tuple of these.
Only a final top-level ``return`` reaches here (the subset checker refuses the others).
"""

from __future__ import annotations

import ast
import copy
import dataclasses

import numpy as np

from polyfuse.errors import UnsupportedError
from polyfuse.model import ir
from polyfuse.model.scop import ArrayInfo, Returned, ReturnValue

from .source import walk
from .types import VType

RESULT_PREFIX = "__return"
STRONG = "__strong_"  # a local's flag: was the value last assigned to it a NumPy scalar? (frontend.lift)
SAVED = "__saved_"  # a monotone local's value before its loop (frontend.lift: monotone_saves)


def weak_kind(dtype: str) -> str:
    """The Python number a weak value of ``dtype`` is: ``"i"``, ``"f"``, ``"b"`` or ``"c"``."""
    return "b" if dtype == "bool" else "c" if dtype.startswith("complex") else "f" if dtype.startswith("float") else "i"


KIND_LETTERS = "ifbc"  # a flag's kinds 1 to 4: a Python int, float, bool, complex (0: a NumPy scalar)
PYTHON_ZEROS = (0, 0.0, False, 0j)  # a Python number of each of those kinds


def python_kind(dtype: str) -> int:
    """The flag's kind (1 to 4) of the Python number a weak value of ``dtype`` is."""
    return 1 + KIND_LETTERS.index(weak_kind(dtype))


def value_kind(value: ir.Expr) -> int:
    """The flag's kind of ``value``: 0 for a NumPy scalar, else its Python number's (``python_kind``)."""
    return python_kind(value.dtype) if value.weak else 0


def choice_of(node: ast.stmt) -> ast.expr | None:
    """The value of ``name = value`` where it is a choice Python makes between its operands:
    ``a if c else b``, ``min``/``max`` of two or more positional operands, or ``a or b`` /
    ``a and b`` as the choice it is (``bool_op_choice``); None otherwise."""
    value = node.value if isinstance(node, ast.Assign) else None
    if isinstance(value, ast.IfExp):
        return value
    if isinstance(value, ast.BoolOp):
        return bool_op_choice(value)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("min", "max") \
            and len(value.args) >= 2 and not value.keywords and not any(isinstance(a, ast.Starred) for a in value.args):
        return value
    return None


def bool_op_choice(node: ast.BoolOp) -> ast.IfExp:
    """``a or b`` as ``a if a else b`` and ``a and b`` as ``b if a else a``, nested for more
    operands: Python's value is the operand that decided, so ``t = t or k[i]`` of a Python
    ``t = 1`` keeps the Python int (cp47: it returned ``np.int64(1)``)."""
    rest = node.values[-1]
    for first in reversed(node.values[:-1]):
        then, otherwise = (first, rest) if isinstance(node.op, ast.Or) else (rest, first)
        rest = ast.copy_location(ast.IfExp(first, then, otherwise), node)
    assert isinstance(rest, ast.IfExp)
    return rest


def flag_first(node: ast.stmt) -> bool:
    """Whether a flagged local's strength flag is written before the value ``node`` assigns: its
    tests read the value before the write where ``node`` is a choice or reads one (``s += x[i] if
    x[i] > s else s`` (a ``KindChoice``) tested the new ``s``: cp50, a Python int returned for
    Python's np.int32)."""
    read = node.value if isinstance(node, (ast.Assign, ast.AugAssign)) else None
    return choice_of(node) is not None or read is not None and pushed_choice(read) is not None


def _choice_leaves(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BoolOp):  # (u and a[i] > 0.0) if c else v: u where u is falsy
        return _choice_leaves(bool_op_choice(node))
    if isinstance(node, ast.IfExp):
        return _choice_leaves(node.body) + _choice_leaves(node.orelse)
    if isinstance(node, ast.Call) and choice_of(ast.Assign([], node)) is not None:
        return [leaf for arg in node.args for leaf in _choice_leaves(arg)]
    return [node]


def flag_operands(choice: ast.expr, target: ast.Name, flagged: frozenset[str]) -> set[str]:
    """The flagged locals other than ``target`` whose flags ``kind_choice`` reads for ``target =
    choice``: its operands that are such a local by name (``t`` of ``m = max(m, t)``) or read one
    (``t + 0.5``: ``_reads_flagged``)."""
    return {n.id for leaf in _choice_leaves(choice) for n in walk(leaf)
            if isinstance(n, ast.Name) and n.id in flagged and n.id != target.id}


def _reads_flagged(leaf: ast.expr, flagged: frozenset[str]) -> bool:
    """Whether the operand ``leaf`` of a choice computes with a flagged local (``w + 0.5`` of a
    flagged ``w``): its kind is the local's, Python's where the local holds a Python number."""
    return not isinstance(leaf, ast.Name) and any(isinstance(n, ast.Name) and n.id in flagged for n in walk(leaf))


def choice_kinds(expressions, target: ast.Name, choice: ast.expr, flagged: frozenset[str]) -> set[int]:
    """The kinds (0 a NumPy scalar, 1 to 4 a Python int, float, bool, complex) of the operands of
    ``target = choice`` other than ``target`` and flagged locals (whose kinds their own flags
    give): ``t = x[i] + 1 if x[i] > 5 else 3.0`` and ``t = max(3.0, x[i])`` give a NumPy scalar
    or the Python float as the branch decides, though the converted value is NumPy's (fe47)."""
    if isinstance(choice, ast.BoolOp):  # an and/or inside a choice: the operand that decided (ty52)
        return choice_kinds(expressions, target, bool_op_choice(choice), flagged)
    if isinstance(choice, ast.IfExp):  # each branch's reads where Python makes them (ExpressionLifter.branch)
        kinds = set()
        for then, branch in ((True, choice.body), (False, choice.orelse)):
            with expressions.branch(choice, then):
                kinds |= choice_kinds(expressions, target, branch, flagged)
        return kinds
    if isinstance(choice, ast.Call) and choice_of(ast.Assign([], choice)) is not None:
        return {kind for arg in choice.args for kind in choice_kinds(expressions, target, arg, flagged)}
    if isinstance(choice, ast.Name) and (choice.id == target.id or choice.id in flagged):
        return set()
    return {value_kind(expressions.convert(choice))}


def kind_varies(expressions, target: ast.Name, node: ast.stmt, value: ir.Expr, flagged: frozenset[str]) -> bool:
    """Whether the strength flag of ``target = value`` depends on the branch Python takes: a
    choice (``choice_of``) whose converted value chooses between types (``m = 0 if c else
    x[i]``), that keeps a flagged ``target`` on one branch (``m = max(m, x[i])`` of a Python
    ``m = 0``: Python returns ``m`` itself where no ``x[i]`` is beyond it), or of a flagged
    ``target`` between operands of different kinds (``t = max(3.0, x[i])``: ``choice_kinds``) or
    between other flagged locals (``w = s if c else s`` of a Python ``s``: a NumPy float before,
    cf50: ``flag_operands``), or with an operand computed from a flagged local (``w = w + 0.5 if c
    else x[i]`` of a Python ``w = 0.0``: Python's float where ``c`` held; wf52's control_fuzz gave
    np.float64)."""
    choice = choice_of(node)
    if choice is None:
        return False
    if expressions.split_of(value) is not None:
        return True
    # an operand that is or reads a flagged local (``target`` among them): ``m``, ``t``, ``w + 0.5``
    reads_a_flag = any(isinstance(n, ast.Name) and n.id in flagged for leaf in _choice_leaves(choice) for n in walk(leaf))
    return target.id in flagged and (reads_a_flag or len(choice_kinds(expressions, target, choice, flagged)) > 1)


def kind_choice(flags, target: ast.Name, choice: ast.expr | None) -> ir.Expr:
    """The strength flag of ``target = choice``, converted by ``flags`` (which records the reads):
    the kind of the operand Python returns, by the choice's own tests (``max(a, b)`` is ``b if
    b > a else a``, as Python's loop keeps the first of equals, NaN too), the local's flag where
    that operand is ``target`` itself or another flagged local (``m = max(m, t)``)."""
    assert choice is not None
    if isinstance(choice, ast.BoolOp):  # an and/or inside a choice: the operand that decided
        return kind_choice(flags, target, bool_op_choice(choice))
    if isinstance(choice, ast.IfExp):
        test = flags.truth(flags.convert(choice.test))  # Python's truth: k[i] is k[i] != 0
        kinds = []
        for then, branch in ((True, choice.body), (False, choice.orelse)):
            with flags.branch(choice, then):  # its reads where Python makes them
                kinds.append(kind_choice(flags, target, branch))
        return _select(test, *kinds)
    if isinstance(choice, ast.Call) and choice_of(ast.Assign([], choice)) is not None:
        op = ast.Lt() if choice.func.id == "min" else ast.Gt()  # type: ignore[attr-defined]
        form, kind = choice.args[0], kind_choice(flags, target, choice.args[0])
        for arg in choice.args[1:]:
            test = ast.copy_location(ast.Compare(arg, [op], [form]), choice)
            kind = _select(flags.convert(test), kind_choice(flags, target, arg), kind)
            form = ast.copy_location(ast.IfExp(test, arg, form), choice)
        return kind
    if isinstance(choice, ast.Name) and (choice.id == target.id or choice.id in flags.lifter.flagged):
        return flags.convert(ast.copy_location(ast.Name(STRONG + choice.id, ast.Load()), choice))
    if _reads_flagged(choice, flags.lifter.flagged):  # w + 0.5: w's kind where w holds a Python number
        inherited = flags.lifter.kind_through_flags(choice, flags.scope, target.id)
        if inherited is not None:
            return inherited_flag(flags, inherited, choice)
    value = flags.convert(choice)
    split = flags.split_of(value)
    if split is not None:  # a local of several types (frontend.local_versions): its version's kind
        select, then, otherwise = split
        return _select(select.cond, _leaf_kind(then), _leaf_kind(otherwise))
    return _leaf_kind(value)


def monotone_op(expressions, target: ast.Name, node: ast.stmt) -> str | None:
    """``"max"`` / ``"min"`` where ``target = max(target, a, ...)`` (``min``) keeps ``target``
    unless an operand, each a NumPy scalar not reading ``target`` nor another flagged local
    (whose kind varies: ``t`` of ``m = max(m, t)``), is strictly beyond it: its
    value then changes exactly where Python's operand chosen is a NumPy scalar (ties keep the
    first, and NaN is never beyond), so whether the local still holds the Python number it had
    before the loop is whether its value is the same; None for any other assignment."""
    choice = choice_of(node)
    if not isinstance(choice, ast.Call) or not isinstance(choice.args[0], ast.Name) \
            or choice.args[0].id != target.id:
        return None
    for arg in choice.args[1:]:
        if any(isinstance(n, ast.Name) and (n.id == target.id or n.id in expressions.lifter.flagged)
               for n in walk(arg)):
            return None
        value = expressions.convert(arg)
        if value.weak or expressions.split_of(value) is not None:
            return None
    return choice.func.id  # type: ignore[attr-defined]


def changed_flag(expressions, name: str, like: ast.AST) -> ir.Expr:
    """After a loop that assigns the monotone local ``name``: its flag as before the loop where
    its value is the one saved before it (or that was NaN, which nothing replaces), else 0."""
    def named(text: str) -> ast.Name:
        return ast.copy_location(ast.Name(text, ast.Load()), like)

    same = ast.copy_location(ast.BoolOp(ast.Or(), [
        ast.copy_location(ast.Compare(named(name), [ast.Eq()], [named(SAVED + name)]), like),
        ast.copy_location(ast.Compare(named(SAVED + name), [ast.NotEq()], [named(SAVED + name)]), like)]), like)
    return ir.Select(expressions.convert(same), expressions.convert(named(STRONG + name)),
                     ir.Const(0, "int8", False), "int8", False)


@dataclasses.dataclass(frozen=True)
class KindChoice:
    """The kind of a value that reads a choice (``s + (x[i] if x[i] > 0 else 0.0)``): ``then``'s
    where Python's truth of ``test`` holds, else ``otherwise``'s (``pushed_choice``)."""
    test: ast.expr
    then: Inherited
    otherwise: Inherited


@dataclasses.dataclass(frozen=True)
class KindSplit:
    """The kind of a value that reads a local of several types (frontend.local_versions: ``s +=
    t * 0.1`` of ``t = x[i] + 1 if x[i] > 5 else 3``, a float64 version and a Python int's): the
    kind of the branch of ``weak`` (the value with the flagged locals ``names`` as Python
    numbers) that the versions' select takes, NumPy's where one of ``names`` holds NumPy's."""
    weak: ast.expr
    names: tuple[str, ...]


# a value's kind: the Python kind where the flagged locals read hold Python numbers, and those
# locals (``(0, ())``: NumPy's on every path), a choice between two such kinds, or the kind of a
# split local's version read
Inherited = tuple[int, tuple[str, ...]] | KindChoice | KindSplit


def inherited_names(inherited: Inherited) -> set[str]:
    if isinstance(inherited, KindChoice):
        return inherited_names(inherited.then) | inherited_names(inherited.otherwise)
    if isinstance(inherited, KindSplit):
        return set(inherited.names)
    return set(inherited[1])


def pushed_choice(expr: ast.expr) -> tuple[ast.expr, ast.expr, ast.expr] | None:
    """``(test, then, otherwise)`` where ``expr`` reads a choice (``a if c else b``, ``max(a, b)``
    as ``b if b > a else a``, ``a or b``): ``expr`` with the choice replaced by the operand Python
    picks where ``test`` holds, and by the other; None where it reads none."""
    for node in walk(expr):
        choice = bool_op_choice(node) if isinstance(node, ast.BoolOp) else node
        if isinstance(choice, ast.IfExp):
            test, then, otherwise = choice.test, choice.body, choice.orelse
        elif isinstance(choice, ast.Call) and choice_of(ast.Assign([], choice)) is not None:
            assert isinstance(choice.func, ast.Name)
            first: ast.expr = choice.args[0] if len(choice.args) == 2 else \
                ast.copy_location(ast.Call(choice.func, choice.args[:-1], []), choice)
            then = choice.args[-1]  # max(a, b) is b where b > a (Python keeps the first of equals)
            op = ast.Lt() if choice.func.id == "min" else ast.Gt()
            test, otherwise = ast.copy_location(ast.Compare(then, [op], [first]), choice), first
        else:
            continue
        return test, copy.deepcopy(expr, {id(node): then}), copy.deepcopy(expr, {id(node): otherwise})
    return None


def inherited_flag(flags, inherited: Inherited, like: ast.AST) -> ir.Expr:
    """The kind of a value that is NumPy's where one of the flagged locals ``inherited[1]`` it
    reads holds a NumPy scalar, else the Python kind ``inherited[0]`` (``Lifter.
    kind_through_flags``), converted by ``flags`` (which records the reads of their flags)."""
    if isinstance(inherited, KindChoice):  # Python's truth of the test: k[i] is k[i] != 0
        return _select(flags.truth(flags.convert(inherited.test)), inherited_flag(flags, inherited.then, like),
                       inherited_flag(flags, inherited.otherwise, like))
    if isinstance(inherited, KindSplit):
        kind_of, names = split_kind(flags, flags.convert(inherited.weak)), inherited.names
    else:
        kind_of, names = ir.Const(inherited[0], "int8", False), inherited[1]
    for name in names:
        own = flags.convert(ast.copy_location(ast.Name(STRONG + name, ast.Load()), like))
        strong = ir.Compare("==", own, ir.Const(0, "int8", False))
        kind_of = ir.Select(strong, ir.Const(0, "int8", False), kind_of, "int8", False)
    return kind_of


def split_kind(expressions, value: ir.Expr) -> ir.Expr:
    """The kind of the branch of ``value`` that runs, where it chooses between types (a local of
    several types read: ``expressions.split_of``), as the versions' selects choose."""
    split = expressions.split_of(value)
    if split is None:
        return _leaf_kind(value)
    select, then, otherwise = split
    return _select(select.cond, split_kind(expressions, then), split_kind(expressions, otherwise))


def _leaf_kind(value: ir.Expr) -> ir.Expr:
    return ir.Const(value_kind(value), "int8", False)


def _select(cond: ir.Expr, then: ir.Expr, otherwise: ir.Expr) -> ir.Expr:
    if then == otherwise:
        return then
    return ir.Select(cond, then, otherwise, "int8", False)


def lift_return(lifter, node: ast.Return, scope) -> tuple[ReturnValue | None, list]:
    """The returned value's description and the statements that compute its scalars."""
    value = node.value
    if value is None or (isinstance(value, ast.Constant) and value.value is None):
        return None, []
    nodes: list = []
    returned = _lift_value(lifter, node, value, scope, nodes)
    if nodes:
        lifter.nest += 1
    return returned, nodes


def _lift_value(lifter, node: ast.Return, value: ast.expr, scope, nodes: list) -> ReturnValue:
    if isinstance(value, ast.Tuple):
        return tuple(_lift_value(lifter, node, v, scope, nodes) for v in value.elts)
    if isinstance(value, ast.Name):
        if value.id in lifter.arguments:
            return Returned("arg", value.id)
        info = lifter.arrays.get(value.id)
        if info is not None and not info.is_scalar:
            if info.kind == "local":
                lifter.arrays[value.id] = dataclasses.replace(info, kind="result")
            return Returned("array", value.id)
        if value.id in lifter.flagged:  # a Python number on some paths, a NumPy scalar on others
            returned = _lift_scalar(lifter, node, value, scope, nodes)
            flag = _lift_scalar(lifter, node, ast.copy_location(ast.Name(STRONG + value.id, ast.Load()), value),
                                scope, nodes)
            return dataclasses.replace(returned, strong_flag=flag.name)
    refuse_dtype_by_kind(lifter, value, scope)
    returned = _lift_scalar(lifter, node, value, scope, nodes)
    if isinstance(value, ast.Name) or returned.strong_types:
        return returned
    inherited = lifter.kind_through_flags(value, scope)  # return m * 0.1: Python's float where m is one
    if inherited is None or returned.strong_flag and not inherited_names(inherited) \
            or returned.pytype in _PYTHON_KINDS and not isinstance(inherited, (KindChoice, KindSplit)):
        return returned  # (a split's own flag: _lift_split, whose leaves' kinds know no flagged local;
        # a Python number of one kind: return s + 1 of s = 0 then s += 0.25 if c else 1 is either)
    expressions = lifter.expressions(scope)
    kind = _store_result(lifter, node, value, inherited_flag(expressions, inherited, value), scope, nodes, expressions)
    return dataclasses.replace(returned, strong_flag=kind)


_PYTHON_KINDS = ("int", "float", "pybool", "complex")  # Returned.pytype of a weak value


def refuse_dtype_by_kind(lifter, value: ast.expr, scope) -> None:
    """Refuse a returned value, or a value assigned to a local (``t = b[0] + s``, then ``return
    t``), whose NumPy dtype depends on which Python number a flagged local holds: ``return B[0] + s`` of ``s = 0`` then ``s += 0.5`` in a loop of no iteration is
    Python's np.int64 (np.float64 where the loop ran), but the kernel types ``s`` as a float
    and returned np.float64(3.0) for np.int64(3) (cz56, mix_fuzz seed 40012). The flags follow
    a value's kind (Python or NumPy), not its dtype."""
    names = sorted({n.id for n in walk(value) if isinstance(n, ast.Name) and n.id in lifter.flagged})
    for name in names:
        kinds = lifter.flag_python_kinds(name)
        if len(kinds) < 2:
            continue
        dtypes = set()
        for kind in kinds:
            alternative = _with_constant(value, name, PYTHON_ZEROS[kind - 1])
            try:
                converted = lifter.expressions(scope).convert(alternative)
            except UnsupportedError:
                return  # (the value itself is refused, or converts only as it is)
            if not converted.weak:
                dtypes.add(converted.dtype)
        if len(dtypes) > 1:
            raise lifter.error(value, f"a value whose NumPy dtype depends on whether local {name!r} "
                               f"holds a Python int or a Python float ({' or '.join(sorted(dtypes))}); "
                               f"give {name!r} one kind (e.g. start it at 0.0)", "returned value")


def _with_constant(expr: ast.expr, name: str, number) -> ast.expr:
    """``expr`` with each read of ``name`` replaced by the constant ``number``."""
    class _Replace(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name):
            return ast.copy_location(ast.Constant(number), n) if n.id == name else n
    return _Replace().visit(copy.deepcopy(expr))


def _lift_scalar(lifter, node: ast.Return, value: ast.expr, scope, nodes: list) -> Returned:
    """``__return<k>[()] = value`` as a top-level statement of the kernel."""
    expressions = lifter.expressions(scope)
    converted = expressions.convert(value)
    if expressions.split_of(converted) is not None:
        return _lift_split(lifter, node, value, converted, scope, nodes, expressions)
    name = _store_result(lifter, node, value, converted, scope, nodes, expressions)
    if converted.weak:
        pytype = "complex" if converted.dtype.startswith("complex") else \
            "float" if converted.dtype.startswith("float") else "pybool" if converted.dtype == "bool" else "int"
    else:
        pytype = converted.dtype
    return Returned("scalar", name, pytype)


def _store_result(lifter, node: ast.Return, value: ast.expr, converted: ir.Expr, scope, nodes: list,
                  expressions) -> str:
    """A fresh 0-d result holding ``converted``, stored by a top-level statement; its name."""
    name = f"{RESULT_PREFIX}{sum(1 for a in lifter.arrays if a.startswith(RESULT_PREFIX))}"
    lifter.arrays[name] = ArrayInfo(name, converted.dtype, (), "result")
    target = ast.Subscript(ast.Name(name, ast.Load()), ast.Tuple([], ast.Load()), ast.Store())
    for sub in walk(target):
        ast.copy_location(sub, value)
    nodes.append(lifter.add_statement(node, target, converted, scope, expressions))
    return name


def _lift_split(lifter, node: ast.Return, value: ast.expr, converted: ir.Expr, scope, nodes: list,
                expressions) -> Returned:
    """A returned value whose type is the branch's that runs (``(np.float32(v) if c else 0.1) +
    1``: a float32 or the Python float 1.1): a result of the dtype that holds every branch's
    value (NumPy's promotion of their dtypes, weak values as int64, float64, bool, complex128)
    and a flag saying which type this run's value has (``Returned.strong_flag``).  An integer
    branch stored as a float is exact up to 2**53 (beyond, where the branch runs, it raises
    UnsupportedError rather than round)."""
    leaves = leaf_types(expressions, converted)
    storage = np.result_type(*(np.dtype(t.dtype) for t in leaves)).name  # a Python int: int64
    strong = tuple(sorted({t.dtype for t in leaves if not t.weak and t.dtype != storage}))

    def kind(t: VType) -> int:
        if not t.weak:
            return 0 if t.dtype == storage else 5 + strong.index(t.dtype)
        return python_kind(t.dtype)

    stored, flag = _stored(expressions, value, converted, storage, kind)
    if strong:  # (of one NumPy dtype, the kind _lift_value follows through the flagged locals)
        flag = _python_first(lifter, value, scope, expressions, flag)
    name = _store_result(lifter, node, value, stored, scope, nodes, expressions)
    flag_name = _store_result(lifter, node, value, flag, scope, nodes, expressions)
    return Returned("scalar", name, storage, strong_flag=flag_name, strong_types=strong)


def _python_first(lifter, value: ast.expr, scope, expressions, flag: ir.Expr) -> ir.Expr:
    """``flag`` (the kind of the branch of a returned choice of several types), except where a
    branch that reads flagged locals gives a Python number, as they hold Python numbers: ``return
    s if s > 1.5 else y[0]`` of a float32 ``s = 0.0`` then ``s += x[i] if x[i] > 5 else 1.0``
    (Python's float where every ``x[i]`` was small; np.float32 before: the leaf's dtype)."""
    inherited = lifter.kind_through_flags(value, scope)
    if inherited is None or not inherited_names(inherited):
        return flag
    python = inherited_flag(expressions, inherited, value)
    return ir.Select(ir.Compare("!=", python, ir.Const(0, "int8", False)), python, flag, "int8", False)


def leaf_types(expressions, expr: ir.Expr) -> list[VType]:
    """The types of the branches of ``expr`` (a choice between types: ``split_of``), each leaf's."""
    split = expressions.split_of(expr)
    if split is None:
        return [VType(expr.dtype, expr.weak)]
    return leaf_types(expressions, split[1]) + leaf_types(expressions, split[2])


def _stored(expressions, value: ast.expr, expr: ir.Expr, storage: str, kind) -> tuple[ir.Expr, ir.Expr]:
    """Each branch converted to ``storage``, and the select of the branches' type kinds."""
    split = expressions.split_of(expr)
    if split is not None:
        select, then, otherwise = split
        (a, ka), (b, kb) = (_stored(expressions, value, e, storage, kind) for e in (then, otherwise))
        return (ir.Select(select.cond, a, b, storage, False, select.guarded),
                ir.Select(select.cond, ka, kb, "int8", False, select.guarded))
    t = VType(expr.dtype, expr.weak)
    stored = expressions.coerce(expr, VType(storage, False))
    if t.is_int and t.dtype != "bool" and not _exact_ints(np.dtype(t.dtype), np.dtype(storage)):
        stored = _checked_exact(expressions, value, expr, storage, stored)
    return stored, ir.Const(kind(t), "int8", False)


def _exact_ints(src: np.dtype, dst: np.dtype) -> bool:
    """Whether every integer of ``src`` converts exactly into ``dst``."""
    if dst.kind in "iu":
        return bool(np.can_cast(src, dst, "safe"))
    return src.itemsize * 8 - (src.kind == "i") <= np.finfo(dst).nmant + 1


def _checked_exact(expressions, value: ast.expr, expr: ir.Expr, storage: str, stored: ir.Expr) -> ir.Expr:
    """``stored`` (``expr`` as a float), raising UnsupportedError where ``|expr|`` is beyond the
    integers the float holds exactly, instead of returning a rounded value."""
    limit = 2 ** (np.finfo(np.dtype(storage)).nmant + 1)
    if expr.dtype == "uint64":
        outside: ir.Expr = ir.Compare(">", expr, ir.Const(limit, "uint64", False))
    else:
        wide = expr if expr.dtype == "int64" else ir.Cast(expr, "int64", False)
        outside = ir.BoolOp("or", (ir.Compare(">", wide, ir.Const(limit, "int64", False)),
                                   ir.Compare("<", wide, ir.Const(-limit, "int64", False))))
    message = str(expressions.lifter.error(
        value, "the returned value is an integer on this path beyond 2**53, which this kernel returns through a "
        "float (its other branches are floats); convert the branches to one type", "returned branch types"))
    flag = ir.Check(ir.Select(outside, ir.int_const(1), ir.int_const(0), ir.INT, False), ir.int_const(1), "", 0,
                    message=message, error="UnsupportedError")
    return ir.BinOp("+", stored, ir.Cast(flag, storage, False), storage, False)  # + 0 unless it raises
