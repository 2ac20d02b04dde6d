"""A helper's returns from inside loops, as one return at its end (part of ``frontend.rewrite``).

Escape-time helpers return from inside their loop (``for i in range(n): ...; if done: return i``
then ``return n``).  Helpers are inlined, and a value helper with loops must return only at its
end, so its body is rewritten first: each ``return v`` becomes ``result = v; returned = True``
and, inside a loop, a ``break``; after a loop that may have returned, an enclosing loop breaks
too (``if returned: break``) and the rest of a block runs under ``if not returned:``; the body
ends with ``return result``.  ``result`` starts as ``False``, a weak Python bool, so its type is
the promotion of the returned values alone (NEP 50: a Python bool with an int64 is int64), and
every path the helper may take assigns it (Python would return None otherwise, a helper that
polyfuse refuses anyway).  After an ``if`` one branch of which surely returns (``if n == 0:
return 0.0``), the rest of the block goes into the other branch instead (``else: ...``), so an
affine test keeps bounding the rest's domain: the size checks of statements Python never reaches
there (``x[2]`` of an empty ``x``) do not run.  A helper called as a statement drops its value: its returns only leave.  Helpers whose returns are all outside loops are left as they are.

The kernel's own body goes through the same rewrite when any return stands before its end (in a
loop or an ``if``: ``for i in ...: if x[i] > t: return i`` then ``return -1``); ``frontend.rewrite``
first refuses a body that returns a value somewhere but can end without a return (Python's
``None``).  Where every return gives a tuple display of one length (``return i, j`` ...
``return -1, -1``), each element has its own result local.
"""

from __future__ import annotations

import ast
import copy

from .source import walk

RESULT, RETURNED, STOP = "_pf_result", "_pf_returned", "_pf_stop"


def single_exit(body: list[ast.stmt], value_used: bool = True, *, kernel: bool = False) -> list[ast.stmt]:
    """``body`` with one return at its end when a return stands inside a loop; else itself.
    ``value_used=False`` (a helper called as a statement, its value dropped): the returns only
    leave, and the body ends with a bare ``return``.  ``kernel=True`` (the kernel's own body, whose
    returns are no expression to inline): a return inside an ``if`` counts too, and the value is
    used when any return has one."""
    if kernel:
        if not any(_has_return(s) for s in body[:-1]) and not _has_return_inside(body[-1]):
            return body
        value_used = value_returns(body)
    elif not any(_returns_in_loop(s, False) for s in body):
        return body
    docstring = body[:1] if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str) else []
    body = body[len(docstring):]
    first = body[0]
    prefix = _prefix_returned(body) if kernel else None
    if prefix is not None:  # return out[:i] in the loop, return out at the end: one name, its stop
        body = _stops_kept(body, prefix)
    same = _same_name_returned(body)
    if same is not None:  # return out everywhere, out never bound again after a return: its last value
        value_used = False
    names = _result_names(body) if value_used else []
    results = [name for name in names if name.startswith(RESULT)]
    init = [_at(ast.Assign([ast.Name(name, ast.Store())], ast.Constant(False)), first) for name in results]
    init.append(_at(ast.Assign([ast.Name(RETURNED, ast.Store())], ast.Constant(False)), first))
    last = body[-1]
    loads: list[ast.expr] = [ast.Name(name, ast.Load()) for name in names]
    value = None if not value_used else loads[0] if names == [RESULT] else ast.Tuple(loads, ast.Load())
    if same is not None:
        value = ast.Name(same, ast.Load())
    if prefix is not None:
        value = ast.Subscript(ast.Name(prefix, ast.Load()), ast.Slice(None, ast.Name(STOP, ast.Load()), None),
                              ast.Load())
        init.append(_at(ast.Assign([ast.Name(STOP, ast.Store())], ast.Constant(0)), first))
    block = _block(body, False, names)
    if all(_assigns_first(block, name) for name in results) and not _reads(block, RETURNED):
        # every path ends in a return outside loops (an if/else tree): no initial value is seen,
        # and a result may be an array (if hi == lo: return np.zeros_like(x) / return (x - lo) / ...)
        init = []
        block = _without_flag(block)
        for name in results:
            _result_bound_in_place(block, name, block)
    return docstring + init + block + [_at(ast.Return(value), last)]


def _result_bound_in_place(block: list[ast.stmt], result: str, whole: list[ast.stmt]) -> None:
    """In each path of ``block`` (an if/else tree whose every leaf assigns ``result`` first)
    that ends ``result = out``, ``out`` a local bound at that path's top level and named nowhere
    else in ``whole``, ``out`` becomes ``result`` itself, in place::

        if n < 2:                          if n < 2:
            _pf_result = np.zeros(k)           _pf_result = np.zeros(k)
        else:                              else:
            out = np.empty(k)        ->        _pf_result = np.empty(k)
            for i in range(k): out[i] = ...    for i in range(k): _pf_result[i] = ...
            _pf_result = out

    The lowering merges the branches' arrays only where each binds the result to a new array;
    ``_pf_result = out`` of an array filled in place was a view of a local, and the early return
    of ``np.zeros(k)`` beside it was refused.  Python sees the same: ``out`` is that path's own."""
    for stmt in block:
        if isinstance(stmt, ast.If):
            _result_bound_in_place(stmt.body, result, whole)
            _result_bound_in_place(stmt.orelse, result, whole)
    if not block:
        return
    last = block[-1]
    if not (isinstance(last, ast.Assign) and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name)
            and last.targets[0].id == result and isinstance(last.value, ast.Name)):
        return
    out = last.value.id
    first = next((s for s in block if any(isinstance(n, ast.Name) and n.id == out for n in walk(s))), None)
    if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)
            and first.targets[0].id == out and not _reads([ast.Expr(first.value)], out)):
        return  # (out read before this path binds it: an argument's or an earlier value)
    inside = {id(n) for s in block for n in walk(s)}
    if out == result or any(isinstance(n, ast.Name) and n.id == out and id(n) not in inside
                            for s in whole for n in walk(s)):
        return
    del block[-1]
    for s in block:
        for n in walk(s):
            if isinstance(n, ast.Name) and n.id == out:
                n.id = result


def _assigns_first(block: list[ast.stmt], name: str) -> bool:
    """Whether every path through ``block`` assigns ``name`` before it is read: its first mention
    is ``name = v`` at the top level, or an ``if`` whose branches both assign it first."""
    for stmt in block:
        if not any(isinstance(n, ast.Name) and n.id == name for n in walk(stmt)):
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            return stmt.targets[0].id == name and not _reads([stmt], name)
        if isinstance(stmt, ast.If):
            return not _reads([ast.Expr(stmt.test)], name) and _assigns_first(stmt.body, name) \
                and _assigns_first(stmt.orelse, name)
        return False
    return False


def _reads(block: list[ast.stmt], name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               for stmt in block for n in walk(stmt))


def _without_flag(block: list[ast.stmt]) -> list[ast.stmt]:
    """``block`` without its assignments of the returned flag (read nowhere)."""
    out: list[ast.stmt] = []
    for stmt in block:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == RETURNED:
            continue
        if isinstance(stmt, ast.If):
            stmt.body = _without_flag(stmt.body) or [_at(ast.Pass(), stmt)]
            stmt.orelse = _without_flag(stmt.orelse)
        out.append(stmt)
    return out


def _prefix_returned(body: list[ast.stmt]) -> str | None:
    """The local array every return of the kernel's ``body`` gives back, whole or a prefix
    (``return out[:i]`` inside a loop, ``return out`` at the end: hex decoding that stops at the
    first bad digit), a slice of it at least once, when ``body`` binds it to method or module
    calls alone (``np.zeros(n)``, ``x.copy()``: not a parameter, whose return is the caller's
    object itself, nor a list) and never again from the first return on."""
    values = [n.value for s in body for n in _walk_returns(s)]
    cuts = [_prefix_of(v) for v in values]
    bases = [cut[0] if cut is not None else v for cut, v in zip(cuts, values)]
    if all(cut is None for cut in cuts):
        return None
    name = _one_name(body, bases)
    values = [n.value for s in body for n in walk(s) if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    if not values or any(not (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)) for v in values):
        return None  # a parameter, a list or tuple (list(), divmod(), a helper's), or bound otherwise
    return name


def _prefix_of(value: ast.expr | None) -> tuple[ast.Name, ast.expr] | None:
    """(``out``, ``e``) of ``out[:e]``; None for another value."""
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and isinstance(value.slice, ast.Slice):
        part = value.slice
        if part.lower is None and part.step is None and part.upper is not None:
            return value.value, part.upper
    return None


def _stops_kept(body: list[ast.stmt], name: str) -> list[ast.stmt]:
    """``body`` with each ``return name[:e]`` made ``STOP = e; return name`` and each ``return
    name`` ``STOP = len(name); return name``: the final return gives ``name[:STOP]``, the
    prefix Python returned (nothing runs after a return, so ``name`` holds the same values)."""
    class Stops(ast.NodeTransformer):
        def visit_Return(self, node: ast.Return):
            cut = _prefix_of(node.value)
            stop = cut[1] if cut is not None else ast.Call(ast.Name("len", ast.Load()), [ast.Name(name, ast.Load())], [])
            return [_at(ast.Assign([ast.Name(STOP, ast.Store())], stop), node),
                    _at(ast.Return(ast.Name(name, ast.Load())), node)]

        def visit_FunctionDef(self, node):
            return node  # a nested def's returns are its own

        visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    out: list[ast.stmt] = []
    for stmt in body:
        new = Stops().visit(stmt)
        out.extend(new if isinstance(new, list) else [new])
    return out


def _same_name_returned(body: list[ast.stmt]) -> str | None:
    """The name every return of ``body`` gives back (``if old == new: return out`` ... ``return
    out``), when no statement from the first one holding an early return on binds it again: the
    value at each return is then the name's value at the end, and no result local is needed (an
    array could not be one)."""
    values = [n.value for s in body for n in _walk_returns(s)]
    return _one_name(body, values)


def _one_name(body: list[ast.stmt], values: list[ast.expr | None]) -> str | None:
    """The name all ``values`` (returned values, or one element of each returned tuple) are,
    when no statement from the first one of ``body`` holding a return binds it again, or when
    the top level binds it before that statement (``x = x0 / norm(x0)``, then ``for``: ``if nrm
    == 0: return 0.0, x`` ... ``x = y / nrm`` ... ``return lam, x``): nothing runs after a
    return (``_block``), so its value at the end is the one each return saw, which Python had
    bound.  Never a ``for`` loop's target (its value after a ``break``)."""
    if not values or not all(isinstance(v, ast.Name) for v in values):
        return None
    names = {v.id for v in values if isinstance(v, ast.Name)}
    if len(names) != 1:
        return None
    name = names.pop()
    first = next(k for k, s in enumerate(body) if _has_return(s))
    bound = any(isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
                for s in body[:first])
    for stmt in body[first:]:
        for node in walk(stmt):
            if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load) and not bound:
                return None
            if isinstance(node, (ast.For, ast.comprehension)) and name in {
                    n.id for n in walk(node.target) if isinstance(n, ast.Name)}:
                return None
    return name


def _result_names(body: list[ast.stmt]) -> list[str]:
    """One result local, or one per element where every return gives a tuple display of the same
    length (``return i, j`` ... ``return -1, -1``: a tuple local could not be assigned twice)."""
    values = [n.value for s in body for n in _walk_returns(s)]
    sizes = {len(v.elts) if isinstance(v, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in v.elts)
             else -1 for v in values}
    if len(sizes) == 1 and min(sizes) > 1:  # an element that is one name everywhere is that name
        return [_one_name(body, [v.elts[k] for v in values if isinstance(v, ast.Tuple)]) or f"{RESULT}_{k}"
                for k in range(sizes.pop())]  # (return out, 0 ... return out, k: out's last value)
    return [RESULT]


def _walk_returns(node: ast.AST):
    if isinstance(node, ast.Return):
        yield node
    elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        for child in ast.iter_child_nodes(node):
            yield from _walk_returns(child)


def _returns_in_loop(node: ast.AST, in_loop: bool) -> bool:
    if isinstance(node, ast.Return):
        return in_loop
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return False
    inside = in_loop or isinstance(node, (ast.For, ast.While))
    return any(_returns_in_loop(child, inside) for child in ast.iter_child_nodes(node))


def _has_return_inside(stmt: ast.stmt) -> bool:
    """Whether a return stands inside ``stmt`` (not ``stmt`` itself)."""
    return not isinstance(stmt, ast.Return) and _has_return(stmt)


def _has_return(node: ast.AST) -> bool:
    """Whether a return stands in ``node`` (a nested ``def``'s returns are its own)."""
    if isinstance(node, ast.Return):
        return True
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return False
    return any(_has_return(child) for child in ast.iter_child_nodes(node))


def value_returns(body: list[ast.stmt]) -> bool:
    """Whether a return in ``body`` (not in a nested ``def``) returns a value."""
    def valued(node: ast.AST) -> bool:
        if isinstance(node, ast.Return):
            return node.value is not None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        return any(valued(child) for child in ast.iter_child_nodes(node))
    return any(valued(s) for s in body)


def _block(stmts: list[ast.stmt], in_loop: bool, names: list[str]) -> list[ast.stmt]:
    """The statements of one block, rewritten; the rest of the block after a statement that may
    return runs only when it did not.  ``names``: the result locals (none: the value is dropped)."""
    out: list[ast.stmt] = []
    for k, stmt in enumerate(stmts):
        if not _has_return(stmt):
            out.append(stmt)
            continue
        if isinstance(stmt, ast.Return):
            # (subset expressions have no side effects: a dropped value need not run)
            value = stmt.value if stmt.value is not None else ast.Constant(None)
            parts = value.elts if len(names) > 1 and isinstance(value, ast.Tuple) else [value]
            for name, part in zip(names, parts):
                if isinstance(part, ast.Name) and part.id == name:  # the name itself (_result_names)
                    continue
                out.append(_at(ast.Assign([ast.Name(name, ast.Store())], part), stmt))
            out.append(_at(ast.Assign([ast.Name(RETURNED, ast.Store())], ast.Constant(True)), stmt))
            if in_loop:
                out.append(_at(ast.Break(), stmt))
            return out  # nothing after a return runs
        if isinstance(stmt, (ast.For, ast.While)):
            stmt.body = _block(stmt.body, True, names)
            stmt.orelse = _block(stmt.orelse, in_loop, names)
            out.append(stmt)
            if in_loop:  # a return from the inner loop leaves this one too
                out.append(_at(ast.If(ast.Name(RETURNED, ast.Load()), [_at(ast.Break(), stmt)], []), stmt))
        elif isinstance(stmt, ast.If):
            leaves = [_surely_returns(stmt.body), _surely_returns(stmt.orelse)]
            pushed = leaves.count(True) == 1 or in_loop and not any(leaves) and stmts[k + 1:] != [] \
                and _open_leaves(stmt) <= MAX_REST_COPIES
            if leaves.count(True) == 1:  # the rest runs exactly where the other branch ran: put it there
                branch = "orelse" if leaves[0] else "body"
                setattr(stmt, branch, getattr(stmt, branch) + stmts[k + 1:])
            elif pushed:  # an if/elif chain, one leaf of which returns: the rest goes into the others
                _push_rest(stmt, stmts[k + 1:])
            stmt.body = _block(stmt.body, in_loop, names)
            stmt.orelse = _block(stmt.orelse, in_loop, names)
            out.append(stmt)
            if pushed:
                return out
        else:  # a return nested in some other statement: left for the inliner's own checks
            out.append(stmt)
        rest = _block(stmts[k + 1:], in_loop, names)
        if rest:
            test = _at(ast.UnaryOp(ast.Not(), ast.Name(RETURNED, ast.Load())), stmt)
            out.append(_at(ast.If(test, rest, []), stmt))
        return out
    return out


MAX_REST_COPIES = 3  # the rest of a loop body copied into at most this many leaves of an if/elif chain


def _open_leaves(stmt: ast.If) -> int:
    """The leaves of the if/elif chain ``stmt`` that do not surely return, where one of its
    leaves does (``if a: d = 1 elif b: d = 2 else: return out[:i]``: 2); a large number where
    none does (nothing to gain by copying the rest)."""
    def walk_leaves(branch: list[ast.stmt]):
        if branch and isinstance(branch[-1], ast.If) and not _surely_returns(branch):
            yield from walk_leaves(branch[-1].body)
            yield from walk_leaves(branch[-1].orelse)
        else:
            yield _surely_returns(branch)
    leaves = list(walk_leaves([stmt]))
    return leaves.count(False) if any(leaves) else MAX_REST_COPIES + 1


def _push_rest(stmt: ast.If, rest: list[ast.stmt]) -> None:
    """``rest`` appended to each leaf of the chain ``stmt`` that does not surely return (a copy
    each), so that a local those leaves assign is seen assigned where the rest reads it."""
    for branch in ("body", "orelse"):
        stmts = getattr(stmt, branch)
        if _surely_returns(stmts):
            continue
        if stmts and isinstance(stmts[-1], ast.If) and _open_leaves(stmts[-1]) <= MAX_REST_COPIES:
            _push_rest(stmts[-1], rest)
        else:
            setattr(stmt, branch, stmts + copy.deepcopy(rest))


def _surely_returns(stmts: list[ast.stmt]) -> bool:
    """Whether every path through ``stmts`` ends in a return (its last statement is one, or an
    ``if`` whose branches both surely return)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.If):
        return _surely_returns(last.body) and _surely_returns(last.orelse)
    return isinstance(last, ast.Return)


def _at(node, like: ast.AST):
    """``node`` and its parts placed at ``like`` (error messages point at the user's line)."""
    for part in walk(node):
        if isinstance(part, (ast.expr, ast.stmt)) and not hasattr(part, "lineno"):
            ast.copy_location(part, like)
    return node
