"""``np.triu_indices(n, k=0, m=None)`` and ``np.tril_indices(n, k=0, m=None)`` as two index arrays.

NumPy returns the row and column positions, in row-major order, of the elements of an ``(n, m)``
array on or above (``triu``) / on or below (``tril``) the ``k``-th diagonal: ``c - r >= k`` /
``c - r <= k``.  Their number is a closed form of ``n``, ``m`` and ``k`` (sums of the rows'
counts, ``min``/``max`` of the sizes: a size the call computes), so the arrays are ordinary
``int64`` locals filled by a loop over the ``(n, m)`` grid with a counter, in NumPy's order.

The forms (``rewrite`` runs this before the tuple assignments are desugared):
``r, c = np.triu_indices(...)`` (two names), ``iu = np.triu_indices(...)`` whose every later use
is ``a[iu]`` (read or written), ``iu[0]`` or ``iu[1]``, and ``a[np.triu_indices(...)]`` inside a
statement (the arrays bound just before it).  ``n``, ``k`` and ``m`` are integer expressions of
arguments, sizes and constants (bound to fresh locals first: NumPy reads them once); another
use keeps the call, which the later passes refuse.
"""

from __future__ import annotations

import ast

from .checker import module_of
from .source import map_blocks, walk

_NAMES = ("triu_indices", "tril_indices")


def tri_indices(rw, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` (every block of it) with its ``np.triu_indices`` / ``np.tril_indices`` written out."""
    return _block(rw, body)


def _call(rw, node: ast.AST) -> ast.Call | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _NAMES \
            and module_of(node.func.value, rw.globals) == "np" and 1 <= len(node.args) <= 3 \
            and all(k.arg in ("k", "m") for k in node.keywords):
        given = {"n", "k", "m"}.intersection(list(("n", "k", "m"))[:len(node.args)])
        if any(k.arg in given for k in node.keywords):
            return None
        return node
    return None


def _block(rw, stmts: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for k, stmt in enumerate(stmts):
        map_blocks(stmt, lambda inner: _block(rw, inner))
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _call(rw, stmt.value) is not None:
            target = stmt.targets[0]
            call = _call(rw, stmt.value)
            assert call is not None
            if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 \
                    and all(isinstance(t, ast.Name) for t in target.elts):
                rows, cols = (t.id for t in target.elts if isinstance(t, ast.Name))
                out += _fill(rw, call, rows, cols, stmt)
                continue
            if isinstance(target, ast.Name) and _only_indexing(target.id, stmts[k + 1:]):
                rows, cols = rw.fresh(f"{target.id}_rows"), rw.fresh(f"{target.id}_cols")
                out += _fill(rw, call, rows, cols, stmt)
                for later in stmts[k + 1:]:
                    _Uses(rw, target.id, rows, cols).visit(later)
                continue
        inline = _Inline(rw, stmt)
        if not isinstance(stmt, (ast.For, ast.While, ast.If, ast.With)):
            inline.visit(stmt)
        out += inline.before + [stmt]
    return out


def _only_indexing(name: str, later: list[ast.stmt]) -> bool:
    """Whether every use of ``name`` in ``later`` is ``a[name]``, ``name[0]`` or ``name[1]``, and
    nothing binds it again."""
    allowed: set[int] = set()
    for stmt in later:
        for node in walk(stmt):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == name:
                allowed.add(id(node.slice))
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                    and isinstance(node.slice, ast.Constant) and node.slice.value in (0, 1) \
                    and isinstance(node.ctx, ast.Load):
                allowed.add(id(node.value))
    return all(id(node) in allowed for stmt in later for node in walk(stmt)
               if isinstance(node, ast.Name) and node.id == name)


class _Uses(ast.NodeTransformer):
    """``a[iu]`` -> ``a[rows, cols]``; ``iu[0]`` -> ``rows``, ``iu[1]`` -> ``cols``."""

    def __init__(self, rw, name: str, rows: str, cols: str) -> None:
        self.rw, self.name, self.rows, self.cols = rw, name, rows, cols

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.slice, ast.Name) and node.slice.id == self.name:
            node.slice = self.rw.placed(ast.Tuple([ast.Name(self.rows, ast.Load()), ast.Name(self.cols, ast.Load())],
                                                  ast.Load()), node.slice)
            return node
        if isinstance(node.value, ast.Name) and node.value.id == self.name and isinstance(node.slice, ast.Constant):
            return self.rw.placed(ast.Name(self.rows if node.slice.value == 0 else self.cols, ast.Load()), node)
        return node


class _Inline(ast.NodeTransformer):
    """``a[np.triu_indices(...)]`` in a statement: the arrays bound before it (``before``)."""

    def __init__(self, rw, stmt: ast.stmt) -> None:
        self.rw, self.stmt = rw, stmt
        self.before: list[ast.stmt] = []

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        call = _call(self.rw, node.slice)
        if call is not None:
            rows, cols = self.rw.fresh("_pf_tri_rows"), self.rw.fresh("_pf_tri_cols")
            self.before += _fill(self.rw, call, rows, cols, self.stmt)
            node.slice = self.rw.placed(ast.Tuple([ast.Name(rows, ast.Load()), ast.Name(cols, ast.Load())],
                                                  ast.Load()), node.slice)
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node


def _fill(rw, call: ast.Call, rows: str, cols: str, like: ast.stmt) -> list[ast.stmt]:
    """The statements binding ``rows`` and ``cols`` to ``call``'s two arrays."""
    fields = dict(zip(("n", "k", "m"), call.args))
    fields.update({k.arg: k.value for k in call.keywords if k.arg is not None})
    upper = isinstance(call.func, ast.Attribute) and call.func.attr == "triu_indices"
    np_ = rw.numpy_alias()
    n, k, m = rw.fresh("_pf_tri_n"), rw.fresh("_pf_tri_k"), rw.fresh("_pf_tri_m")
    length, p, r, c = rw.fresh("_pf_tri_len"), rw.fresh("_pf_tri_p"), rw.fresh("_pf_tri_r"), rw.fresh("_pf_tri_c")
    m_value = fields.get("m")
    given = [(n, fields["n"]), (k, fields.get("k", ast.Constant(0)))]
    if m_value is not None and not (isinstance(m_value, ast.Constant) and m_value.value is None):
        given.append((m, m_value))
    out: list[ast.stmt] = [ast.Assign([ast.Name(name, ast.Store())], value) for name, value in given]
    if len(given) == 2:
        out.append(ast.Assign([ast.Name(m, ast.Store())], ast.Name(n, ast.Load())))

    def upper_count(kk: str) -> str:
        lo = f"min(max(1 - ({kk}), 0), {n})"
        hi = f"max(min(max({m} - ({kk}), 0), {n}), {lo})"
        return f"({lo} * {m} + ({hi} - {lo}) * (2 * ({m} - ({kk})) - {lo} - {hi} + 1) // 2)"

    count = upper_count(k) if upper else f"({n} * {m} - {upper_count(f'{k} + 1')})"
    test = f"{c} - {r} >= {k}" if upper else f"{c} - {r} <= {k}"
    text = (f"{length} = {count}\n"
            f"{rows} = {np_}.empty({length}, dtype={np_}.int64)\n"
            f"{cols} = {np_}.empty({length}, dtype={np_}.int64)\n"
            f"{p} = 0\n"
            f"for {r} in range({n}):\n"
            f"    for {c} in range({m}):\n"
            f"        if {test}:\n"
            f"            {rows}[{p}] = {r}\n"
            f"            {cols}[{p}] = {c}\n"
            f"            {p} += 1\n")
    out += ast.parse(text).body
    for stmt in out:
        for sub in walk(stmt):
            if "lineno" in sub._attributes:
                ast.copy_location(sub, like)
        rw.mark(stmt, rw.origin(like))
    return out
