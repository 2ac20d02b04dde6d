"""The CUDA backend: loop AST -> numba.cuda kernel source and a host driver.  plan: which loops
become launches and grids; promote: shared-memory staging and register accumulators; tiled and
exprs: the code; codegen: compile_cuda, the entry point.
"""
