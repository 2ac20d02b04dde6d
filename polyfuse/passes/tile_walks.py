"""Tight bounds for the one-thread tile orders of time-tiled nests.

Takes a nest's tiles as the set of its ``(wavefront, tile1)`` pairs (time_tiling records it
where it chose a one-thread order) and gives the two tile loops of that order with bounds isl
computes: the outer loop over the order's first coordinate from its least to its greatest value,
the inner loop from the least to the greatest second coordinate at each first one (``dim_min`` /
``dim_max``, written as expressions by ``AstBuild.expr_from_pw_aff``).  Every tile lies inside
the walk; a pair inside it that is no tile (a hole between two tiles of one row) is still skipped
by the backend's guard (backends/cpu/llvm.py, ``emit_tile_orders``).  Before this, the backend
walked a box around all tiles, which holds far more pairs than tiles where many time steps run on
a small grid (a long, thin band of tiles).
"""

from __future__ import annotations

import islpy as isl

from polyfuse.model.isl_expr import expr_from_isl
from polyfuse.model.loop_ast import WALK_OUTER, TileWalk

#: (wavefront, tile1) -> (a, k): lexicographic (tile0, tile1), columns (tile1, tile0)
_ORDERS = {
    "lexicographic": "{ [w, k] -> [w - k, k] }",
    "columns": "{ [w, k] -> [k, w - k] }",
}


def tile_walk(statements: frozenset[str], order: str, tiles: str, context: isl.Set) -> TileWalk | None:
    """The walk of ``tiles`` (isl text of the ``(wavefront, tile1)`` pairs) in ``order``, or None
    where there is no such order or no tile."""
    if order not in _ORDERS or not tiles:
        return None
    ctx = context.get_ctx()
    pairs = isl.Set.read_from_str(ctx, tiles)
    pairs = pairs.apply(isl.Map.read_from_str(ctx, _ORDERS[order]).align_params(pairs.get_space()))
    pairs = pairs.intersect_params(context.align_params(pairs.get_space())).coalesce()
    if pairs.is_empty():
        return None
    outer = pairs.project_out(isl.dim_type.set, 1, 1)
    build = isl.AstBuild.from_context(outer.params())
    lo, hi = (build.expr_from_pw_aff(bound(0)) for bound in (outer.dim_min, outer.dim_max))
    # the inner loop's bounds at one value of the outer counter: the counter as a parameter
    nparam = pairs.dim(isl.dim_type.param)
    at = pairs.move_dims(isl.dim_type.param, nparam, isl.dim_type.set, 0, 1)
    at = at.set_dim_name(isl.dim_type.param, nparam, WALK_OUTER)
    inner = isl.AstBuild.from_context(at.params())
    k_lo, k_hi = (inner.expr_from_pw_aff(bound(0)) for bound in (at.dim_min, at.dim_max))
    return TileWalk(statements, order, expr_from_isl(lo), expr_from_isl(hi),
                    expr_from_isl(k_lo), expr_from_isl(k_hi))
