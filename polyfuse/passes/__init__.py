"""Loop AST -> loop AST plus records: isl's AST generator into polyfuse's loop AST, then register
promotion, min/max lanes and interleaving, in the order polyfuse.compiler runs them; each module
opens with what it takes, what it guarantees and what must run before it.  Imports model and
analysis.
"""
