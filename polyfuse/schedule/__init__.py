"""(Scop, dependences, options) -> a verified isl schedule plus decision records: loop order,
smart fusion, cache and register tiling, time tiling, scalar expansion, contraction, and the
wrapper around isl's own scheduler.  Every candidate is verified (legality.violations) before use.
Imports model and analysis.
"""
