"""Loop variables read after their loop, and bound again inside it (numba-style code).

After ``for i in range(a, b, s)`` Python's ``i`` is the last value the loop gave it (the value of
the iteration that broke, or whatever that iteration assigned to ``i`` last), and keeps its earlier
binding where the loop ran zero times (unbound: ``UnboundLocalError`` at the read).  Binding ``i``
inside the body changes neither the iteration nor the next value.  polyfuse keeps loop variables
and locals apart, so this pass (run before ``frontend.loop_names``) makes ``i`` a local wherever a
read can see a loop's value, and gives each such loop a fresh variable (``i_2``):

- A loop without its own ``break`` whose body never binds ``i``, of a constant step and bounds
  that the body does not change: ``if a < b: i = a + (b - a - 1) // s * s`` after it (``b - 1`` for
  ``s == 1``; ``a > b`` and ``a - (a - b - 1) // -s * -s`` for a negative step).  The loop keeps its
  affine form, and the value is affine too where the bounds are.
- Any other loop (``break``, ``i`` bound in the body, a step or bounds known only at run time):
  ``iv = 0`` before the loop, ``iv = i_2`` as the body's first statement, then ``if ran: i = iv``
  after it (``ran`` the test above; where the body may change what the bounds read, or the step
  is not a constant, a flag computed from the bounds before the loop, as Python computes them).
- ``i`` bound inside a loop's body (``i = i * 2``; read after the loop or not): from the body's
  first top-level statement that binds it on, the body reads and writes a local ``iv`` (``i = i *
  2`` becomes ``iv = i * 2``; a statement that binds it deeper inside gets ``iv = i`` before it).

Where ``i`` may be unbound before such a loop (no earlier binding on some path), the zero-trip
case must raise where ``i`` is read.  If every read of ``i`` outside its loops is one its statement
surely evaluates (not inside ``a if c else b``, a later operand of ``and``/``or``, or a
comprehension), ``i = 0`` and a flag ``i_bound = False`` are set at the top of the body, every
binding of ``i`` sets the flag, and each statement that reads ``i`` is preceded by ``assert
i_bound`` raising Python's ``UnboundLocalError`` where it fails.  Otherwise (a read under a
condition: ``return i if n > 0 else -1``) the local stays unassigned where the loop did not run,
and the lifter's dataflow check proves every read assigned (affine conditions) or refuses the
kernel (*local 'i' may be read before it is assigned*).

Names left as they are (refused as before): an argument's name, a name bound by a ``for`` loop
nested inside a loop of the same name, a loop with ``else``, and ``prange`` loops that need the
second form.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from .source import bound_names, counted_loop, map_blocks, walk

UNBOUND = "cannot access local variable {!r} where it is not associated with a value"


def loop_values(body: list[ast.stmt], arguments: set[str], fresh: Callable[[str], str],
                raised: Callable[[ast.Assert], None]) -> list[ast.stmt]:
    """``body`` with the loop variables read after their loops, or bound inside them, made
    locals (module docstring); ``raised(check)`` records an ``assert`` that raises its own
    exception where it runs."""
    names = sorted({loop.target.id for loop in _loops(body)})  # type: ignore[attr-defined]
    kept = _own_reads_only(body)
    for name in names:
        if name not in arguments and name not in kept:
            body = _Name(name, fresh, raised).rewrite(body)
    return body


def _own_reads_only(body: list[ast.stmt]) -> set[str]:
    """The names that ``body`` binds only as the plain target of ``for`` loops and reads only
    inside the bodies of such loops of their own: no read can see a loop's value after it, and
    no statement binds them inside a loop, so ``_Name.rewrite`` would return ``body`` as it is
    (a kernel's loop variables, usually: one walk of the body instead of several per name)."""
    bound: set[str] = set()  # bound otherwise than as a loop's plain target
    outside: set[str] = set()  # read somewhere no loop of their own encloses
    loop_targets: set[str] = set()

    def visit(node: ast.AST, enclosing: frozenset[str]) -> None:
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            loop_targets.add(node.target.id)
            visit(node.iter, enclosing)
            inner = enclosing | {node.target.id}
            for stmt in node.body:
                visit(stmt, inner)
            for stmt in node.orelse:
                visit(stmt, enclosing)
            return
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                if node.id not in enclosing:
                    outside.add(node.id)
            else:
                bound.add(node.id)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, enclosing)

    for stmt in body:
        visit(stmt, frozenset())
    return loop_targets - bound - outside


def _loops(body: list[ast.stmt]) -> Iterator[ast.For]:
    """The ``range`` (and ``prange``) loops of ``body`` at any depth, whose target is a name."""
    for stmt in body:
        for node in walk(stmt):
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and _range_args(node) is not None:
                yield node


def _range_args(loop: ast.For) -> list[ast.expr] | None:
    it = loop.iter
    if not isinstance(it, ast.Call) or it.keywords or not 1 <= len(it.args) <= 3 \
            or any(isinstance(a, ast.Starred) for a in it.args):
        return None
    return list(it.args) if counted_loop(loop) else None


def _is_prange(loop: ast.For) -> bool:
    func = loop.iter.func  # type: ignore[attr-defined]
    return not (isinstance(func, ast.Name) and func.id == "range")


def _binds(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` itself (not a statement inside it) binds ``name``."""
    if isinstance(stmt, ast.Assign):
        return any(name in bound_names(t) for t in stmt.targets)
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        return name in bound_names(stmt.target)
    if isinstance(stmt, ast.For):
        return name in bound_names(stmt.target)
    return False


def _binds_inside(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.stmt) and _binds(n, name) for n in walk(node))


def _own_loop(body: list[ast.stmt], kind: type) -> bool:
    """Whether ``body`` holds a ``kind`` (Break) of its own loop, not of a nested one."""
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, kind):
            return True
        if isinstance(node, (ast.For, ast.While)):
            todo.extend(node.orelse)
            continue
        todo.extend(n for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt))
    return False


# ---- reads ----------------------------------------------------------------------------------------

def _names(node: ast.AST, name: str, sure: bool) -> Iterator[ast.Name]:
    """The loads of ``name`` in ``node`` (an expression or a statement's own expressions); with
    ``sure``, only those Python surely evaluates where it evaluates ``node``."""
    if isinstance(node, ast.Name):
        if node.id == name and isinstance(node.ctx, ast.Load):
            yield node
        return
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        if sure or any(name in bound_names(g.target) for g in node.generators):
            yield from _names(node.generators[0].iter, name, sure)
            return
    if isinstance(node, ast.Lambda):
        return
    if sure and isinstance(node, ast.IfExp):
        yield from _names(node.test, name, sure)
        return
    if sure and isinstance(node, ast.BoolOp):
        yield from _names(node.values[0], name, sure)
        return
    for child in ast.iter_child_nodes(node):
        yield from _names(child, name, sure)


def _own(stmt: ast.stmt) -> list[ast.AST]:
    """The expressions a statement evaluates itself, not through its sub-statements."""
    if isinstance(stmt, ast.For):
        return [stmt.iter]
    if isinstance(stmt, (ast.While, ast.If)):
        return [stmt.test]
    if any(isinstance(child, ast.stmt) for child in ast.iter_child_nodes(stmt)):
        return [child for child in ast.iter_child_nodes(stmt) if not isinstance(child, ast.stmt)]
    return [stmt]


def _reads(nodes: list[ast.AST], name: str, sure: bool = False) -> bool:
    return any(True for node in nodes for _ in _names(node, name, sure))


# ---- one name -------------------------------------------------------------------------------------

class _Name:
    def __init__(self, name: str, fresh: Callable[[str], str], raised: Callable[[ast.Assert], None]):
        self.name = name
        self.fresh = fresh
        self.raised = raised
        self.live: dict[int, bool] = {}  # id(loop) -> whether a read may see its value
        self.entry: dict[int, bool] = {}  # id(loop) -> whether the name is surely bound before it
        self.flag = ""
        self.local = False  # whether some loop's value is read: the name becomes a local

    def rewrite(self, body: list[ast.stmt]) -> list[ast.stmt]:
        name = self.name
        loops = [loop for loop in _loops(body) if loop.target.id == name]  # type: ignore[attr-defined]
        if any(loop.orelse or any(_binds(n, name) for s in loop.body for n in walk(s) if isinstance(n, ast.For))
               for loop in loops):
            return body  # for i: for i: ..., for-else: refused as before
        self._live(body, False, False, False)
        rebound = [loop for loop in loops if _binds_inside(ast.Module(loop.body, []), name)]
        read = [loop for loop in loops if self.live.get(id(loop))]
        if not read and not rebound:
            return body
        if read and any(_is_prange(loop) and self._second_form(loop) for loop in read):
            return body
        if read:
            self._bound(body, False)
            if not all(self.entry.get(id(loop), False) for loop in read) and self._flag_form(body, loops):
                self.flag = self.fresh(f"{name}_bound")
        self.local = bool(read)
        body = self._block(body, read)
        if self.flag:
            body = self._checked(body)
            top = ast.parse(f"{name} = 0\n{self.flag} = False").body
            for stmt in top:
                ast.copy_location(stmt, body[0])
                ast.fix_missing_locations(stmt)
            body = top + body
        return body

    # -- analyses --

    def _live(self, stmts: list[ast.stmt], out: bool, brk: bool, cont: bool) -> bool:
        """Whether the name is live before ``stmts`` (a read may see its value there); records
        in ``self.live`` each of its loops' after-value's liveness."""
        live = out
        for stmt in reversed(stmts):
            live = self._live_stmt(stmt, live, brk, cont)
        return live

    def _live_stmt(self, stmt: ast.stmt, out: bool, brk: bool, cont: bool) -> bool:
        name = self.name
        if isinstance(stmt, ast.Return):
            return stmt.value is not None and _reads([stmt.value], name)
        if isinstance(stmt, ast.Break):
            return brk
        if isinstance(stmt, ast.Continue):
            return cont
        if isinstance(stmt, ast.Raise):
            return _reads([stmt], name)
        if isinstance(stmt, ast.If):  # (both branches walked: they record their loops)
            then, other = self._live(stmt.body, out, brk, cont), self._live(stmt.orelse, out, brk, cont)
            return _reads([stmt.test], name) or then or other
        if isinstance(stmt, ast.For) and name in bound_names(stmt.target):
            self.live[id(stmt)] = out  # (its body reads its own variable)
            return _reads([stmt.iter], name) or out
        if isinstance(stmt, (ast.For, ast.While)):
            head = False
            for _ in range(3):  # a boolean fixpoint: two rounds settle it
                after = out or self._live(stmt.orelse, out, brk, cont)
                test = _reads([stmt.test], name) if isinstance(stmt, ast.While) else False
                inside = self._live(stmt.body, head, out, head)  # (walked always: it records its loops)
                new = test or after or inside
                if new == head:
                    break
                head = new
            return head or (isinstance(stmt, ast.For) and _reads([stmt.iter], name))
        if isinstance(stmt, ast.AugAssign) and name in bound_names(stmt.target):
            return True
        if isinstance(stmt, ast.Assign) and any(name in bound_names(t) for t in stmt.targets):
            return _reads([stmt.value, *stmt.targets], name)
        return _reads([stmt], name) or out

    def _bound(self, stmts: list[ast.stmt], bound: bool) -> bool:
        """Whether the name is surely bound after ``stmts`` (vacuously where they never fall
        through); records in ``self.entry`` whether it is before each of its loops."""
        for stmt in stmts:
            if isinstance(stmt, (ast.Return, ast.Break, ast.Continue, ast.Raise)):
                return True
            if isinstance(stmt, ast.If):
                then, other = self._bound(stmt.body, bound), self._bound(stmt.orelse, bound)  # (both record)
                bound = then and other
            elif isinstance(stmt, ast.For) and name_of(stmt.target) == self.name:
                self.entry[id(stmt)] = bound
            elif isinstance(stmt, (ast.For, ast.While)):
                self._bound(stmt.body, bound)
                self._bound(stmt.orelse, bound)
            elif _binds(stmt, self.name):
                bound = True
        return bound

    def _flag_form(self, body: list[ast.stmt], loops: list[ast.For]) -> bool:
        """Whether every read of the name outside its loops is one its statement surely
        evaluates, and the name is bound only by assignments and its range loops."""
        inside = {id(n) for loop in loops for s in loop.body for n in walk(s)}
        for stmt in body:
            for node in walk(stmt):
                if id(node) in inside or not isinstance(node, ast.stmt):
                    continue
                if isinstance(node, ast.For) and self.name in bound_names(node.target) \
                        and not (name_of(node.target) == self.name and _range_args(node) is not None):
                    return False  # for i in x, for i, v in ...: bound by a loop over values
                own = _own(node)
                sure = {id(n) for h in own for n in _names(h, self.name, True)}
                if any(id(n) not in sure for h in own for n in _names(h, self.name, False)):
                    return False
        return True

    def _second_form(self, loop: ast.For) -> bool:
        return _own_loop(loop.body, ast.Break) or _binds_inside(ast.Module(loop.body, []), self.name) \
            or self._closed(loop) is None

    # -- rewriting --

    def _block(self, stmts: list[ast.stmt], read: list[ast.For]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            if isinstance(stmt, ast.For) and name_of(stmt.target) == self.name and _range_args(stmt) is not None:
                out.extend(self._loop(stmt, any(stmt is loop for loop in read)))
                continue
            map_blocks(stmt, lambda inner: self._block(inner, read), ("body", "orelse"))
            out.append(stmt)
            if self.flag and _binds(stmt, self.name):
                out.append(self._placed(f"{self.flag} = True", stmt))
        return out

    def _loop(self, loop: ast.For, read: bool) -> list[ast.stmt]:
        """The loop (its variable renamed where the name is read after it) and what follows it."""
        name = self.name
        rebinds = _binds_inside(ast.Module(loop.body, []), name)
        if not read:
            if rebinds:
                local = self.fresh(name)
                loop.body = self._from_binding(loop.body, name, local)
            if self.local:  # the name is a local now: the loop takes a name of its own
                var = self.fresh(name)
                _rename(loop.body, name, var)
                loop.target = ast.copy_location(ast.Name(var, ast.Store()), loop.target)
            return [loop]
        var = self.fresh(name)
        before: list[ast.stmt] = []
        after: list[ast.stmt] = []
        closed = self._closed(loop)
        second = closed is None or rebinds or _own_loop(loop.body, ast.Break) or not _stable(loop)
        ran = self._ran(loop)
        if ran is None:  # bounds the body may change, or a step known at run time: a flag first
            flag = self.fresh(f"{name}_ran")
            before.append(self._placed(f"{flag} = 0", loop))
            before[-1].value = self._ran_test(loop)  # type: ignore[attr-defined]
            ran = ast.Name(flag, ast.Load())
        if second:
            local = self.fresh(name)
            body = self._from_binding(loop.body, name, local)
            before.append(self._placed(f"{local} = 0", loop))
            body = [self._placed(f"{local} = {var}", loop), *body]
            _rename(body, name, var)
            loop.body = body
            value: ast.expr = ast.Name(local, ast.Load())
        else:
            assert closed is not None
            _rename(loop.body, name, var)
            value = closed
        loop.target = ast.Name(var, ast.Store())
        assign = ast.Assign([ast.Name(name, ast.Store())], value)
        then: list[ast.stmt] = [assign]
        if self.flag:
            then.append(ast.parse(f"{self.flag} = True").body[0])
        after.append(ast.If(ran, then, []))
        for stmt in [loop.target, *before, *after]:
            for sub in walk(stmt):
                if "lineno" in sub._attributes:
                    ast.copy_location(sub, loop)
        return [*before, loop, *after]

    def _from_binding(self, body: list[ast.stmt], name: str, local: str) -> list[ast.stmt]:
        """``body`` reading and writing ``local`` for ``name`` from its first top-level
        statement that binds ``name`` on."""
        for k, stmt in enumerate(body):
            if not _binds_inside(stmt, name):
                continue
            rest = body[k + 1:]
            _rename(rest, name, local)
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and name_of(stmt.targets[0]) == name:
                stmt.targets = [ast.copy_location(ast.Name(local, ast.Store()), stmt.targets[0])]
                return [*body[:k], stmt, *rest]
            if isinstance(stmt, ast.AugAssign) and name_of(stmt.target) == name:
                new = ast.copy_location(ast.Assign([ast.Name(local, ast.Store())],
                                                   ast.BinOp(ast.Name(name, ast.Load()), stmt.op, stmt.value)), stmt)
                ast.fix_missing_locations(new)
                return [*body[:k], new, *rest]
            _rename([stmt], name, local)
            return [*body[:k], self._placed(f"{local} = {name}", stmt), stmt, *rest]
        return body

    def _closed(self, loop: ast.For) -> ast.expr | None:
        """The last value of the loop's variable as an expression of its bounds; None where the
        step is not a constant."""
        a, b, s = _parts(loop)
        if s is None:
            return None
        if s == 1:
            return _expr("B - 1", B=b)
        if s == -1:
            return _expr("B + 1", B=b)
        if s > 0:
            return _expr(f"A + (B - A - 1) // {s} * {s}", A=a, B=b)
        return _expr(f"A - (A - B - 1) // {-s} * {-s}", A=a, B=b)

    def _ran(self, loop: ast.For) -> ast.expr | None:
        """Whether the loop ran, as a test of its bounds after it; None where the body may change
        what they read, or the step is not a constant."""
        a, b, s = _parts(loop)
        if s is None or not _stable(loop):
            return None
        return _expr("A < B" if s > 0 else "A > B", A=a, B=b)

    def _ran_test(self, loop: ast.For) -> ast.expr:
        a, b, s = _parts(loop)
        if s is not None:
            return _expr("A < B" if s > 0 else "A > B", A=a, B=b)
        step = _range_args(loop)[2]  # type: ignore[index]
        return _expr("A < B if S > 0 else A > B", A=a, B=b, S=step)

    def _checked(self, body: list[ast.stmt]) -> list[ast.stmt]:
        """``assert flag`` (Python's UnboundLocalError) before each statement reading the name
        outside its loops (renamed by now)."""
        out: list[ast.stmt] = []
        for stmt in body:
            if _reads(_own(stmt), self.name):
                check = ast.Assert(ast.Name(self.flag, ast.Load()),
                                   ast.Tuple([ast.Constant("UnboundLocalError"), ast.Constant(UNBOUND.format(self.name))],
                                             ast.Load()))
                for sub in walk(check):
                    if "lineno" in sub._attributes:
                        ast.copy_location(sub, stmt)
                self.raised(check)
                order = _first_read(stmt, self.name)
                setattr(check, _ORDER, order)
                at = len(out)  # before the checks of names Python reads later in the statement
                while at and getattr(out[at - 1], _ORDER, None) is not None and getattr(out[at - 1], _ORDER) > order:
                    at -= 1
                out.insert(at, check)
            map_blocks(stmt, self._checked, ("body", "orelse"))
            out.append(stmt)
        return out

    def _placed(self, text: str, like: ast.AST) -> ast.stmt:
        stmt = ast.parse(text).body[0]
        for sub in walk(stmt):
            if "lineno" in sub._attributes:
                ast.copy_location(sub, like)
        return stmt


def name_of(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


_ORDER = "pf_unbound_order"  # an attribute of the checks: where Python reads their name in the statement


def _first_read(stmt: ast.stmt, name: str) -> tuple[int, int, int]:
    """Where Python first reads ``name`` in ``stmt``'s own expressions (an assignment's value
    before its targets), as a key that sorts in that order."""
    keys = []
    for node in _own(stmt):
        late = int(isinstance(stmt, (ast.Assign, ast.AugAssign)) and node is not stmt.value)
        parts = [stmt.value, *(stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])] \
            if isinstance(stmt, (ast.Assign, ast.AugAssign)) and node is stmt else [node]
        for k, part in enumerate(parts):
            keys += [(late or int(k > 0), n.lineno, n.col_offset) for n in _names(part, name, True)]
    return min(keys, default=(0, 0, 0))


def _parts(loop: ast.For) -> tuple[ast.expr, ast.expr, int | None]:
    args = _range_args(loop)
    assert args is not None
    if len(args) == 1:
        return ast.Constant(0), args[0], 1
    step = args[2] if len(args) == 3 else ast.Constant(1)
    value: int | None = None
    if isinstance(step, ast.Constant) and type(step.value) is int:
        value = step.value
    elif isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and isinstance(step.operand, ast.Constant) \
            and type(step.operand.value) is int:
        value = -step.operand.value
    return args[0], args[1], value or None


def _stable(loop: ast.For) -> bool:
    """Whether the body leaves what the bounds read as it was: no name they read bound there, and
    no array element read (only extents)."""
    args = _range_args(loop)
    assert args is not None
    for arg in args:
        for node in walk(arg):
            if isinstance(node, ast.Subscript) and not (isinstance(node.value, ast.Attribute)
                                                        and node.value.attr == "shape"):
                return False
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name)
                                                   and node.func.id in ("len", "min", "max", "abs", "int")):
                return False
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                    and _binds_inside(ast.Module(loop.body, []), node.id):
                return False
    return True


def _expr(text: str, **parts: ast.expr) -> ast.expr:
    import copy

    tree = ast.parse(text, mode="eval").body

    class Put(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name):
            return copy.deepcopy(parts[node.id]) if node.id in parts else node

    return Put().visit(tree)


def _rename(nodes: list[ast.stmt], old: str, new: str) -> None:
    for stmt in nodes:
        for node in walk(stmt):
            if isinstance(node, ast.Name) and node.id == old:
                node.id = new
