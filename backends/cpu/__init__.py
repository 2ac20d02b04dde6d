"""The LLVM backend: loop AST -> LLVM IR (llvmlite) -> JIT, with the phase and parallel-region
planning it runs by and the thread-pool driver.
"""
