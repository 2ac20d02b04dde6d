"""Per call, never imports the compiler: compiled variants and call plans (binding, bounds and
overlap checks), kernel-local memory, the thread pool, the disk cache and call signatures.
Imports model and analysis (the bounds proof it runs).
"""
