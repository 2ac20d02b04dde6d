"""The data handed between stages: the Scop (isl domains and accesses, program order), the
expression IR, the schedule-tree helpers, the loop AST, and small isl helpers (pieces of union
objects, AST expressions, the operation budget).  Imports nothing else of polyfuse but errors.
"""
