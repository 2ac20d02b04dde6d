"""Is NumPy's ``openblas_set_num_threads_local`` local to the calling thread?

    python benchmarks/openblas_local.py

Prints the process-wide count (``scipy_openblas_get_num_threads64_``) seen by the main thread
while a worker has set 1, and after two workers that each set 1 and restore what they read.
With NumPy's OpenBLAS 0.3.31 (pthreads build) both read 1: the setting is process-wide, which is
why ``POLYFUSE_BLAS_ROW_CHUNKS`` is off by default (docs/performance.md).
"""

from __future__ import annotations

import ctypes
import threading
import time

from polyfuse.runtime.linalg_library import library


def main() -> None:
    found = library()
    handle = None if found is None else found.handle
    get = getattr(handle, "scipy_openblas_get_num_threads64_", None)
    put = getattr(handle, "scipy_openblas_set_num_threads64_", None)
    local = getattr(handle, "openblas_set_num_threads_local", None)
    if get is None or put is None or local is None:
        print("not NumPy's scipy-openblas64 with openblas_set_num_threads_local: nothing to test")
        return
    local.restype, local.argtypes = ctypes.c_int, [ctypes.c_int]
    start = get()
    print("main thread's count at start:", start)
    held = threading.Event()

    def worker(seconds: float) -> None:
        before = local(1)
        held.set()
        time.sleep(seconds)
        local(before)

    one = threading.Thread(target=worker, args=(0.2,))
    one.start()
    held.wait()
    print("main thread's count while a worker set 1:", get())
    one.join()
    pair = [threading.Thread(target=worker, args=(s,)) for s in (0.1, 0.2)]
    for t in pair:
        t.start()
    for t in pair:
        t.join()
    print("main thread's count after two workers set 1 and restored:", get())
    put(start)


if __name__ == "__main__":
    main()
