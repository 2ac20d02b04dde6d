"""``np.histogram2d(x, y, bins=k)`` as statements of the subset (part of
``frontend.numba_idioms``, fe34).

``H, xedges, yedges = np.histogram2d(x, y, bins=k, range=[[a, b], [c, d]])`` (or ``H =
np.histogram2d(x, y, k)[0]``; ``range=`` optional) of 1-d array arguments ``x``, ``y`` and an
integer ``k``: NumPy's edges are ``np.histogram``'s of each
coordinate (``np.linspace`` of its smallest and largest value, widened by 0.5 where they are
equal; a ValueError for NaN), and a point counts in the bin ``b`` where ``edges[b] <= v <
edges[b + 1]`` (``np.searchsorted(edges, v, side='right') - 1``), the largest value in the last bin::

    xedges = np.histogram(x, bins=k)[1]
    yedges = np.histogram(y, bins=k)[1]
    H = np.zeros((k, k))
    for i in range(x.shape[0]):
        bx = 0; by = 0
        for j in range(1, k):
            if x[i] >= xedges[j]: bx = j
            if y[i] >= yedges[j]: by = j
        H[bx, by] += 1.0

(the last edge at or below the value: the edges increase).  With ``range=`` the edges are
``np.histogram``'s of that range, and only points inside it on both axes count (NaN never).
``x`` and ``y`` of different lengths raise NumPy's ValueError.  Any other use (``weights=``, ``density=``, array ``bins``,
inside an expression) is refused by name.
"""

from __future__ import annotations

import ast

from .checker import module_of

_FORM = ("np.histogram2d(x, y, bins=k) is supported as 'H, xedges, yedges = np.histogram2d(x, y, bins=k)' or "
         "'H = np.histogram2d(x, y, k)[0]' of 1-d array arguments x, y and an integer k (range=[[a, b], [c, d]] "
         "allowed; no weights=, density=, bins of arrays or pairs); otherwise compute each point's bin and count in a loop, "
         "H[bx, by] += 1.0")


def is_histogram2d(node: ast.AST, globals_: dict) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in ("histogram2d", "histogramdd") and module_of(node.func.value, globals_) == "np"


def refused(rw, node: ast.Call):
    """The error for a form this module does not write out."""
    if node.func.attr == "histogramdd":  # type: ignore[attr-defined]
        return rw.error(node, "np.histogramdd() is not supported; " + _FORM, "np.histogramdd")
    return rw.error(node, _FORM, "np.histogram2d")


def histogram2d_stmts(rw, node: ast.Assign) -> list[ast.stmt] | None:
    """The statements above for ``node``; None where it is not one of the two forms."""
    if len(node.targets) != 1:
        return None
    target, value = node.targets[0], node.value
    names: list[str | None]
    if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 3 \
            and all(isinstance(t, ast.Name) for t in target.elts):
        names = [t.id for t in target.elts]  # type: ignore[attr-defined]
    elif isinstance(target, ast.Name) and isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) \
            and value.slice.value == 0 and type(value.slice.value) is int:
        names, value = [target.id, None, None], value.value
    else:
        return None
    if not is_histogram2d(value, rw.globals) or value.func.attr != "histogram2d":  # type: ignore[attr-defined]
        return None
    assert isinstance(value, ast.Call)
    given = dict(zip(("x", "y", "bins"), value.args))
    if len(value.args) > 3 or any(k.arg not in ("x", "y", "bins", "range") or k.arg in given for k in value.keywords):
        return None
    given.update({str(k.arg): k.value for k in value.keywords})
    x, y, bins = given.get("x"), given.get("y"), given.get("bins", ast.Constant(10))
    if not (isinstance(x, ast.Name) and isinstance(y, ast.Name) and rw.ranks.get(x.id) == 1
            and rw.ranks.get(y.id) == 1 and x.id in rw.args and y.id in rw.args):
        return None
    if not (isinstance(bins, ast.Constant) and type(bins.value) is int
            or isinstance(bins, ast.Name) and bins.id in rw.args and rw.ranks.get(bins.id, 0) == 0):
        return None
    limits = given.get("range")
    if limits is not None and not (isinstance(limits, (ast.List, ast.Tuple)) and len(limits.elts) == 2 and all(
            isinstance(p, (ast.List, ast.Tuple)) and len(p.elts) == 2 for p in limits.elts)):
        return None
    np_name = rw.numpy_alias()
    k, i, j, bx, by = (rw.fresh(s) for s in ("hist_k", "hist_i", "hist_j", "hist_bx", "hist_by"))
    h = names[0]
    ex, ey = names[1] or rw.fresh("hist_xedges"), names[2] or rw.fresh("hist_yedges")
    spans = ["", ""] if limits is None else [
        f", range=({ast.unparse(p.elts[0])}, {ast.unparse(p.elts[1])})" for p in limits.elts]  # type: ignore[attr-defined]
    inside = "" if limits is None else \
        f"    if {ex}[0] <= {x.id}[{i}] <= {ex}[{k}] and {ey}[0] <= {y.id}[{i}] <= {ey}[{k}]:\n    "
    text = (f"if {x.id}.shape[0] != {y.id}.shape[0]:\n"
            f"    raise ValueError('histogram2d: x and y must have the same length')\n"
            f"{k} = {ast.unparse(bins)}\n"
            f"{ex} = {np_name}.histogram({x.id}, bins={k}{spans[0]})[1]\n"
            f"{ey} = {np_name}.histogram({y.id}, bins={k}{spans[1]})[1]\n"
            f"{h} = {np_name}.zeros(({k}, {k}))\n"
            f"for {i} in range({x.id}.shape[0]):\n"
            f"    {bx} = 0\n"
            f"    {by} = 0\n"
            f"    for {j} in range(1, {k}):\n"
            f"        if {x.id}[{i}] >= {ex}[{j}]:\n"
            f"            {bx} = {j}\n"
            f"        if {y.id}[{i}] >= {ey}[{j}]:\n"
            f"            {by} = {j}\n"
            f"{inside}    {h}[{bx}, {by}] += 1.0\n")
    made = ast.parse(text).body
    for stmt in made:
        for sub in ast.walk(stmt):
            if "lineno" in sub._attributes:
                ast.copy_location(sub, node)
        rw.mark(stmt, rw.origin(node))
    return made
