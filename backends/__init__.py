"""Loop AST -> runnable code: ``python`` (the living definition, used as a reference), ``cpu``
(LLVM IR through llvmlite, run on the thread pool) and ``cuda`` (numba.cuda kernels).  Backends
read the loop AST only: they never touch isl.  They import model and runtime.
"""
