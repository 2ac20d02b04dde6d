"""How long NumPy's OpenBLAS workers spin after a call on its threads.

    python benchmarks/openblas_spin.py [n=600] [times=5]

After an idle half second, one ``n x n @ n x n`` on OpenBLAS's threads, then the process's CPU
time in 5 ms windows for 0.3 s: prints the last window in which the process used more than 30% of
a core (its workers spinning; nothing else of this process runs), ``times`` times, with the load.
``options.OPENBLAS_SPIN_SECONDS`` (``BlasTimes.spin``) is this number.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 600
    a, b = np.random.rand(n, n), np.random.rand(n, n)
    for _ in range(int(argv[1]) if len(argv) > 1 else 5):
        time.sleep(0.5)
        a @ b
        start = time.perf_counter()
        last, busy_until = (start, time.process_time()), None
        while time.perf_counter() - start < 0.3:
            time.sleep(0.005)
            now = (time.perf_counter(), time.process_time())
            if (now[1] - last[1]) / (now[0] - last[0]) > 0.3:
                busy_until = now[0] - start
            last = now
        shown = "never" if busy_until is None else f"{busy_until * 1e3:.0f} ms"
        print(f"busy until {shown} after the call, load {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
