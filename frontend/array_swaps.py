"""Local arrays swapped, ``a, b = b, a``, or rotated, ``a, b, c = b, c, a`` (part of ``frontend.rewrite``, before ``Desugar``).

Ping-pong buffers of stencil codes swap their names each step::

    a = u.copy()                      a = u.copy()
    b = np.empty_like(u)              b = np.empty_like(u)
    for _ in range(steps):            for _ in range(steps):
        ...  # b from a                   ...
        a, b = b, a          ->           a_old = a.copy()
                                          a = b.copy()
                                          b = a_old

The swap becomes copies of the values, so each name keeps its own array, which the lowering
requires (an array bound again inside a loop is written in place: ``Lowering.rebind_in_place``,
which refuses where their shapes or dtypes may differ: there the swap is refused as before).
Only where no name is bound to a possible view of either array anywhere in the kernel
(``v = a[1:]``, ``t = a``, ``for row in a``; ``_viewed``): Python's swap leaves what such a name
sees alone, copies would change it.  A rotation of three or more names (``a, b, c = b, c, a``;
any permutation, the names it leaves in place dropped) copies every value first, then binds each
name to its value's copy.  A run of name moves that rotates distinct buffers (``tmp = a; a = b;
b = tmp``; ``u_prev = u; u = u_next`` of a ``u_next`` allocated afresh each step) is that rotation,
or a chain of copies where a dead name needs no value (``_rotation``).  Taken for two distinct names of arrays the kernel
allocates (bound to ``np.zeros``, ``np.empty_like``, ``x.copy()`` and the like, or to arithmetic of an array:
``b = a0 * 0.5``); scalars and arguments are left to ``Desugar``.
"""

from __future__ import annotations

import ast
from typing import Protocol

from .source import map_blocks, walk


class Rewriter(Protocol):
    def fresh(self, name: str) -> str: ...
    def placed(self, new, like: ast.AST): ...


def swap_arrays(rw: Rewriter, body: list[ast.stmt], arrays: set[str] | None = None,
                whole: list[ast.stmt] | None = None) -> list[ast.stmt]:
    """``body`` with each ``a, b = b, a`` of two local arrays (``arrays``: the names bound to
    an allocation or a copy, ``_allocated``) that no name views (``_viewed`` in ``whole``, the
    kernel's body) written as copies (the module)."""
    if arrays is None:
        arrays = _allocated(body, {name for name, rank in getattr(rw, "ranks", {}).items() if rank})
        _collapse_moves(body, arrays, body, None)
    whole = body if whole is None else whole
    out: list[ast.stmt] = []
    for stmt in body:
        map_blocks(stmt, lambda inner: swap_arrays(rw, inner, arrays, whole))
        pairs = _permuted(stmt)
        if pairs is None or not all(name in arrays for name, _ in pairs) \
                or _viewed(whole, {n for n, _ in pairs}, moved=stmt, given=getattr(rw, "ranks", {}),
                           ints=getattr(rw, "ints", frozenset())):
            out.append(stmt)
            continue
        if len(pairs) == 2:
            (a, b), _ = pairs
            old = rw.fresh(f"{a}_old")
            text = f"{old} = {a}.copy()\n{a} = {b}.copy()\n{b} = {old}\n"
        else:  # a, b, c = b, c, a: every value copied first, then each name bound to its copy
            olds = {name: rw.fresh(f"{name}_old") for name, _ in pairs}
            text = "".join(f"{olds[name]} = {name}.copy()\n" for name, _ in pairs)
            text += "".join(f"{target} = {olds[value]}\n" for target, value in pairs)
        for new in ast.parse(text).body:
            for node in walk(new):
                if "lineno" in node._attributes:
                    ast.copy_location(node, stmt)
            out.append(new)
    return out


def _collapse_moves(body: list[ast.stmt], arrays: set[str], whole: list[ast.stmt], loop: ast.stmt | None) -> None:
    """Each run of consecutive name moves of local arrays in ``body`` (``u_prev = u; u = u_next``,
    ``u_prev, u = u, u_next``, ``tmp = a; a = b; b = tmp``) that is a rotation of distinct buffers
    written, in place, as one ``a, b, c = b, c, a`` (``_rotation``); ``loop`` the loop whose body
    ``body`` is (None elsewhere), ``whole`` the kernel's body.  Nested bodies too."""
    for stmt in body:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                in_loop = isinstance(stmt, (ast.For, ast.While)) and field == "body"
                _collapse_moves(inner, arrays, whole, stmt if in_loop else None)
    start = 0
    while start < len(body):
        end = start
        while end < len(body) and _moves(body[end]) is not None:
            end += 1
        if end == start:
            start += 1
            continue
        rotation = _rotation(body, start, end, arrays, whole, loop)
        if rotation is not None:
            body[start:end] = rotation
            end = start + len(rotation)
        start = end


def _moves(stmt: ast.stmt) -> list[tuple[str, str]] | None:
    """The (target, value) names of ``a = b`` or ``a, b = c, d`` (names only), else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Name) and isinstance(value, ast.Name):
        return [(target.id, value.id)]
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts) \
            and all(isinstance(e, ast.Name) for e in (*target.elts, *value.elts)):
        return [(t.id, v.id) for t, v in zip(target.elts, value.elts)]  # type: ignore[attr-defined]
    return None


def _rotation(body: list[ast.stmt], start: int, end: int, arrays: set[str], whole: list[ast.stmt],
              loop: ast.stmt | None) -> list[ast.stmt] | None:
    """``body[start:end]``, name moves, as one ``a, b, c = b, c, a`` of the local arrays it binds, or
    None where it is no rotation of distinct buffers.  Its temporaries (``tmp`` of ``tmp = a; a = b;
    b = tmp``: no allocated array, named nowhere else in the kernel, bound before read) are dropped.
    A buffer dead after the run, ``u_next`` of ``u_next = np.empty_like(u)`` (the first statement of
    ``loop``'s body to name it, named nowhere outside that body nor after the run) then ``u_prev = u;
    u = u_next``, takes the buffer the run leaves unnamed (the old ``u_prev``): where Python binds it
    to a fresh array before reading it again, which buffer it holds meanwhile is not seen, so the
    rebinding of the three names is the rotation ``u_prev, u, u_next = u, u_next, u_prev``.  Where
    the live names' moves then form chains, no cycle (``u_prev <- u <- u_next``), and no name views
    the buffers, the dead names need no value: the moves are copies in an order that reads each
    buffer before it is written, ``u_prev = u.copy(); u = u_next.copy()`` (two copies a step, where
    the rotation copies every buffer twice)."""
    run = body[start:end]
    moves = [_moves(stmt) for stmt in run]
    if sum(len(pairs or ()) for pairs in moves) < 2:
        return None  # one move (cur = nxt of a double buffer): the rebinding rules (rename_rebound) as before
    names = {n for pairs in moves for pair in pairs or () for n in pair}
    inside = {id(n) for stmt in run for n in walk(stmt)}
    outside = {n.id for stmt in whole for n in walk(stmt) if isinstance(n, ast.Name) and id(n) not in inside}
    temps = {n for n in names if n not in arrays and n not in outside}
    buffers = names - temps
    if not buffers <= arrays or len(buffers) < 2:
        return None
    env: dict[str, str | None] = {n: n for n in buffers} | {n: None for n in temps}
    for pairs in moves:
        values = [env[v] for _, v in pairs or ()]
        if None in values:
            return None  # a temporary read before the run binds it
        env.update((t, v) for (t, _), v in zip(pairs or (), values))
    dead = [b for b in sorted(buffers) if _dead_after(b, body, end, loop, whole)]
    live = [b for b in sorted(buffers) if b not in dead]
    held = [env[b] for b in live]
    if len(set(held)) != len(held):
        return None  # two live names of one array after the run: an alias, no rotation
    freed = [b for b in sorted(buffers) if b not in held]
    perm = dict(zip(live, held)) | dict(zip(dead, freed))
    moved = [(t, v) for t, v in perm.items() if t != v]
    if len(moved) < 2:
        return None
    chain = _chain_order([(t, v) for t, v in zip(live, held) if t != v]) if dead else None
    run_nodes = {id(stmt) for stmt in run}
    if chain is not None and not _viewed([stmt for stmt in whole if id(stmt) not in run_nodes], buffers, run_nodes):
        text = "".join(f"{t} = {v}.copy()\n" for t, v in chain)
    else:
        text = f"{', '.join(t for t, _ in moved)} = {', '.join(v for _, v in moved)}"  # type: ignore[misc]
    made = ast.parse(text).body
    for node in (n for new in made for n in walk(new)):
        if "lineno" in node._attributes:
            ast.copy_location(node, run[-1])
    return made


def _chain_order(moves: list[tuple[str, str | None]]) -> list[tuple[str, str]] | None:
    """The (target, value) moves in an order where each target is written once no later move
    reads its old value; None where they form a cycle (or there are none)."""
    todo = list(moves)
    order: list[tuple[str, str]] = []
    while todo:
        ready = next(((t, v) for t, v in todo if not any(value == t for _, value in todo)), None)
        if ready is None or ready[1] is None:
            return None
        order.append((ready[0], ready[1]))
        todo.remove(ready)
    return order or None


def _dead_after(name: str, body: list[ast.stmt], end: int, loop: ast.stmt | None, whole: list[ast.stmt]) -> bool:
    """Whether ``name`` is bound to a new array before it is read again once ``body[:end]`` ran:
    ``loop``'s body (``body``) binds it first, at its top level, to an allocation that reads no
    ``name``; no statement after ``end`` in ``body`` names it, nor any outside ``loop``."""
    if loop is None:
        return False
    first = next((stmt for stmt in body if any(isinstance(n, ast.Name) and n.id == name for n in walk(stmt))), None)
    if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)
            and first.targets[0].id == name and _allocated([first]) == {name}
            and not any(isinstance(n, ast.Name) and n.id == name for n in walk(first.value))):
        return False
    if any(isinstance(n, ast.Name) and n.id == name for stmt in body[end:] for n in walk(stmt)):
        return False
    inside = {id(n) for stmt in body for n in walk(stmt)}
    return not any(isinstance(n, ast.Name) and n.id == name and id(n) not in inside
                   for stmt in whole for n in walk(stmt))


def _permuted(stmt: ast.stmt) -> list[tuple[str, str]] | None:
    """The (target, value) pairs of ``a, b = b, a`` or a rotation ``a, b, c = b, c, a``:
    distinct names bound to a permutation of themselves, without the names it leaves in place
    (``a, b, c = b, a, c``: a and b); None where it moves none (``a, b = a, b``) or for anything else."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
            and isinstance(stmt.value, ast.Tuple) and 2 <= len(stmt.targets[0].elts) == len(stmt.value.elts)):
        return None
    targets = [e.id if isinstance(e, ast.Name) else None for e in stmt.targets[0].elts]
    values = [e.id if isinstance(e, ast.Name) else None for e in stmt.value.elts]
    if None in targets or None in values or len(set(targets)) != len(targets) \
            or sorted(targets) != sorted(values):  # type: ignore[type-var]
        return None
    moved = [(t, v) for t, v in zip(targets, values) if t != v]  # (c = c: nothing to do)
    return moved if len(moved) >= 2 else None  # type: ignore[return-value]


_ALLOCATING = frozenset(("copy", "zeros", "empty", "ones", "full", "zeros_like", "empty_like", "ones_like",
                         "full_like", "array", "arange", "linspace", "eye", "identity"))


def _allocated(body: list[ast.stmt], given: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """The names some statement binds to a new array (``np.zeros(...)``, ``x.copy()``, ...; one
    of a tuple, ``a, b = u.copy(), np.zeros_like(u)``, too), or to arithmetic of a name that is
    an array (``b = a0 * 0.5`` of an array argument in ``given``, or of such a name: a new array
    whatever the other operands are)."""
    found: set[str] = set()
    while True:
        before = len(found)
        for node in (n for stmt in body for n in walk(stmt)):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                pairs = zip(target.elts, node.value.elts) if isinstance(target, ast.Tuple) \
                    and isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts) \
                    else [(target, node.value)]
                found.update(t.id for t, v in pairs if isinstance(t, ast.Name) and (
                    isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in _ALLOCATING
                    or _array_arithmetic(v, found | set(given))))
        if len(found) == before:
            return found


def _array_arithmetic(node: ast.expr, arrays: set[str]) -> bool:
    """Whether ``node`` is ``+ - * / ...`` (not ``@``: two vectors give a number) or a unary
    operator with an operand named in ``arrays`` (NumPy's result is then a new array)."""
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return isinstance(node.operand, ast.Name) and node.operand.id in arrays \
            or _array_arithmetic(node.operand, arrays)
    if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
        return any(isinstance(side, ast.Name) and side.id in arrays or _array_arithmetic(side, arrays)
                   for side in (node.left, node.right))
    return False


#: calls whose value is a new array or a scalar, never a view of their arguments
_NEW_METHODS = frozenset(("copy", "sum", "prod", "max", "min", "mean", "std", "var", "any", "all", "argmax",
                          "argmin", "dot", "astype", "cumsum", "item"))
_NEW_FUNCTIONS = frozenset(("abs", "absolute", "sqrt", "exp", "log", "sin", "cos", "tanh", "square", "maximum",
                            "minimum", "sum", "prod", "max", "min", "amax", "amin", "mean", "std", "var", "where",
                            "dot", "matmul", "copy", "array", "zeros_like", "empty_like", "ones_like", "full_like",
                            "abs", "all", "any", "allclose", "isclose", "count_nonzero", "argmax", "argmin", "clip",
                            "linalg", "norm", "cumsum", "diff", "sign", "floor", "ceil", "round"))


def _viewed(body: list[ast.stmt], names: set[str], skip: frozenset[int] | set[int] = frozenset(),
            moved: ast.stmt | None = None, given: dict[str, int] | None = None,
            ints: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether any statement binds a name to a possible view of ``names`` (``v = a[1:]``,
    ``t = a``, ``r = np.reshape(a, ...)``, ``for row in a``): copying values between the
    arrays would change what that name sees, where Python's swap changes nothing it sees.  A
    ``for`` over one of them sees the array only while it runs: with the swap ``moved`` known,
    such a loop counts only where the swap is inside it or its target is read outside it
    (radix sort's ``for v in out: ...`` then ``out, tmp = tmp, out``).  An element, ``c = g[i, j]``
    of a ``g`` whose rank is known (``_ranks``: the arguments' ``given``, and local arrays made
    from them), is a number, no view."""
    ranks = _ranks(body, given or {}, ints)
    for node in (n for stmt in body for n in walk(stmt)):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Assign) and _permuted(node) is None and any(map(_binds_name, node.targets)) \
                and not _element(node.value, ranks) and _may_view(node.value, names):
            return True
        if isinstance(node, ast.For) and _may_view(node.iter, names) and _loop_view_escapes(body, node, moved):
            return True
    return False


def _loop_view_escapes(body: list[ast.stmt], loop: ast.For, moved: ast.stmt | None) -> bool:
    """Whether ``for target in a`` may see ``a`` across the swap ``moved``: the swap is in its
    body, or its target is named outside every loop that binds it (None: not known, as if it did)."""
    if moved is None or any(node is moved for node in walk(loop)):
        return True
    targets = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}
    loops = [n for stmt in body for n in walk(stmt) if isinstance(n, ast.For)
             and targets <= {t.id for t in walk(n.target) if isinstance(t, ast.Name)}]
    inside = {id(n) for other in loops for n in walk(other)}
    return any(isinstance(n, ast.Name) and n.id in targets and id(n) not in inside
               for stmt in body for n in walk(stmt))


def _binds_name(target: ast.expr) -> bool:
    """Whether an assignment to ``target`` binds a name (``b[0] = a[0]`` binds none: it stores)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(map(_binds_name, target.elts))
    if isinstance(target, ast.Starred):
        return _binds_name(target.value)
    return isinstance(target, ast.Name)


_NUMBERS = ("shape", "size", "ndim", "dtype", "itemsize", "nbytes")  # attributes that are no view
_LIKE = ("empty_like", "zeros_like", "ones_like", "full_like", "copy", "array", "ascontiguousarray")
_SHAPED = ("empty", "zeros", "ones", "full")


def _ranks(body: list[ast.stmt], given: dict[str, int], ints: frozenset[str] | set[str] = frozenset()) -> dict[str, int]:
    """The rank of each name bound to arrays of one rank only: the arguments' (``given``), and
    locals bound to ``np.zeros((n, m))``, ``np.empty(n)``, ``x.copy()``, ``np.empty_like(x)`` of
    a name of known rank; a name bound to anything else anywhere has none.  A shape given as one
    integer (``np.empty(n)``: a literal, ``x.shape[0]``, an integer argument of ``ints`` or a local
    every binding of which is such a size, or arithmetic of them) is rank 1."""
    pairs: list[tuple[ast.Name, ast.expr]] = []  # name = value, and a, b = b, a item by item
    unpacked: set[str] = set()  # h, w = img.shape: sizes
    for node in (n for stmt in body for n in walk(stmt)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Attribute) and value.attr == "shape":
                unpacked.update(e.id for e in target.elts if isinstance(e, ast.Name))
            if isinstance(target, ast.Name):
                pairs.append((target, value))
            elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(
                    value.elts) and not any(isinstance(e, ast.Starred) for e in value.elts):
                pairs.extend((t, v) for t, v in zip(target.elts, value.elts) if isinstance(t, ast.Name))
    plain = {id(target) for target, _ in pairs}
    other = {n.id for stmt in body for n in walk(stmt) if isinstance(n, ast.Name)
             and not isinstance(n.ctx, ast.Load) and id(n) not in plain}
    once = {name for name in unpacked
            if sum(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                   for stmt in body for n in walk(stmt)) == 1}
    sizes = _size_names(pairs, set(ints) | once, other)
    ranks = dict(given)
    for _ in range(len(pairs) + 1):  # optimistic: a binding that reads a name of no rank yet waits
        bound: dict[str, set[int | None]] = {}
        for target, value in pairs:
            rank = _rank_of(value, ranks, sizes)
            if rank is not _PENDING:
                bound.setdefault(target.id, set()).add(rank)  # type: ignore[arg-type]
        new = {}
        for name in set(given) | set(bound):
            found = bound.get(name, set()) | ({given[name]} if name in given else set())
            if len(found) == 1 and None not in found and name not in other:
                new[name] = next(iter(found))
        if new == ranks:
            break
        ranks = new  # type: ignore[assignment]
    # every binding of a ranked name must give that rank now (none still waiting)
    return {name: rank for name, rank in ranks.items()
            if all(_rank_of(value, ranks, sizes) == rank for target, value in pairs if target.id == name)}


def _size_names(pairs: list[tuple[ast.Name, ast.expr]], known: set[str], other: set[str]) -> set[str]:
    """``known`` and the names every binding of which (``pairs``; none bound otherwise: ``other``)
    is an integer size of them (``_int_size``)."""
    candidates = {t.id for t, _ in pairs} - other - known
    while True:
        found = {name for name in candidates
                 if all(_int_size(v, known | candidates) for t, v in pairs if t.id == name)}
        if found == candidates:
            return known | found
        candidates = found


def _int_size(node: ast.expr, sizes: set[str] | frozenset[str]) -> bool:
    """Whether ``node`` is surely one integer: a literal, ``x.shape[k]``, ``len(x)``, ``int(v)``,
    ``x.size``, a name of ``sizes``, or ``+ - * // %`` and ``min``/``max`` of such."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return node.id in sizes
    if isinstance(node, ast.Attribute):
        return node.attr in ("size", "ndim")
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)) \
            and _int_size(node.left, sizes) and _int_size(node.right, sizes)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id in ("len", "int") and len(node.args) == 1:
            return True
        return node.func.id in ("min", "max") and len(node.args) > 1 and all(_int_size(a, sizes) for a in node.args)
    return False


def array_ranks(body: list[ast.stmt], given: dict[str, int], ints: frozenset[str] | set[str] = frozenset()
                ) -> dict[str, int]:
    """The rank of each name ``body`` binds to arrays of one rank only, and of the arguments'
    (``given``; ``ints``: the integer arguments): ``_ranks``, for the passes after this one."""
    return _ranks(body, given, ints)


_PENDING: object = object()  # a name whose rank is not known yet (``_ranks``)


def _rank_of(value: ast.expr, ranks: dict[str, int], sizes: set[str] | frozenset[str] = frozenset()) -> int | None:
    """The rank of the array ``value`` makes, where it is an allocation or copy that says it."""
    if isinstance(value, ast.Name):
        return ranks.get(value.id, _PENDING)  # type: ignore[arg-type]
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return None
    func = value.func
    if func.attr == "copy" and not value.args and isinstance(func.value, ast.Name):
        return ranks.get(func.value.id, _PENDING)  # type: ignore[arg-type]
    if not (isinstance(func.value, ast.Name) and func.value.id in ("np", "numpy") and value.args):
        return None
    first = value.args[0]
    if func.attr in _LIKE and isinstance(first, ast.Name):
        return ranks.get(first.id, _PENDING)  # type: ignore[arg-type]
    if func.attr in _SHAPED and isinstance(first, ast.Tuple):
        return None if any(isinstance(e, ast.Starred) for e in first.elts) else len(first.elts)
    if func.attr in _SHAPED and (isinstance(first, ast.Constant) and type(first.value) is int or isinstance(
            first, ast.Subscript) and isinstance(first.value, ast.Attribute) and first.value.attr == "shape"
            or _int_size(first, sizes)):
        return 1
    return None


def _element(node: ast.expr, ranks: dict[str, int]) -> bool:
    """Whether ``node`` is ``a[i, j]`` of an array ``a`` of that rank with no slice, ``None`` or
    ``...`` among its subscripts: a number, or (an index array among them) a copy; never a view.
    A choice of two such (``a[i - 1] if i > 0 else a[n - 1]``) is one too."""
    if isinstance(node, ast.IfExp):
        return _element(node.body, ranks) and _element(node.orelse, ranks)
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in ranks):
        return False
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return len(items) == ranks[node.value.id] and not any(
        isinstance(item, (ast.Slice, ast.Starred)) or isinstance(item, ast.Constant) and item.value in (None, Ellipsis)
        for item in items)


def _may_view(node: ast.expr, names: set[str]) -> bool:
    """Whether the value of ``node`` may share memory with an array of ``names``."""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute) and node.attr in _NUMBERS:
        return False  # h, w = a.shape: numbers
    if isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        return _may_view(node.value, names)
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Constant)):
        return False  # a new value
    if isinstance(node, ast.IfExp):
        return _may_view(node.body, names) or _may_view(node.orelse, names)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _NEW_METHODS \
                and not (func.attr == "astype" and any(k.arg == "copy" for k in node.keywords)):
            return False
        if isinstance(func, ast.Attribute) and func.attr in _NEW_FUNCTIONS and isinstance(func.value, ast.Name) \
                and func.value.id in ("np", "numpy"):
            return False
        if isinstance(func, ast.Name) and func.id in ("len", "float", "int", "abs", "min", "max", "sum", "range"):
            return False
    return any(isinstance(n, ast.Name) and n.id in names for n in walk(node))
