"""``polyfuse bench`` runs with two sets of environment variables, alternated (A B A B ...).

    python benchmarks/bench_env_ab.py covariance,3mm,2mm,gemm 3 \
        "POLYFUSE_TEAM_AFFINITY=1 POLYFUSE_BLAS_WARM_TRIALS=1" \
        "POLYFUSE_TEAM_AFFINITY=0 POLYFUSE_BLAS_WARM_TRIALS=0" [--preset large]
    python benchmarks/bench_env_ab.py gemm,mlp,attention 3 "POLYFUSE_BLAS_PLAIN_LIBRARY=1" \
        "POLYFUSE_BLAS_PLAIN_LIBRARY=0" --section numpy

Each run is a process of its own in an autogroup of its own at nice -20 where the system allows it
(``setsid``, then ``-20`` into ``/proc/self/autogroup``: on a machine shared with other jobs its
two threads then get the cores as on a quiet one, gp47's method; without the rights it runs at the
ordinary priority and says so).  Prints per run the load, and per kernel NumPy's time over
polyfuse's (np/pf, from the bench's rounds in turn), both times in ms and the BLAS call modes of
polyfuse's timed calls; for a kernel without a NumPy formulation polyfuse's time and numba's
over it; with ``--section numpy`` each NumPy program's np/pf and both times, with ``--section einsum``
each row's ``numpy.einsum(optimize=True)`` time over polyfuse's (session 39).  The JSON of
each run is left in ``$TMPDIR``.  Session 37 (bl50).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile


def boost() -> None:
    os.setsid()
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write("-20")
    except OSError:
        print("(no boost: /proc/self/autogroup refused)", file=sys.stderr)


def run(kernels: str, env: str, extra: list[str], tag: str) -> str:
    out = os.path.join(tempfile.gettempdir(), f"bench_env_ab_{os.getpid()}_{tag}.json")
    environment = dict(os.environ, **dict(item.split("=", 1) for item in shlex.split(env)))
    subprocess.run(["polyfuse", "bench", "--kernels", kernels, "--json", out, *extra], env=environment,
                   preexec_fn=boost, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    report = json.load(open(out))
    rows = report.get("rows") or []
    cells = [f"{row['name']} {row['ratios']['numpy']:.3f} (pf {row['polyfuse_ms']:.3f} np {row['numpy_ms']:.3f})"
             for row in (report.get("numpy") or {}).get("rows", []) if row.get("ratios", {}).get("numpy")]
    cells += [f"{row['name']} {row['ratios']['numpy_opt']:.3f} (pf {row['polyfuse_ms']:.3f})"
              for row in (report.get("einsum") or {}).get("rows", []) if row.get("ratios", {}).get("numpy_opt")]
    for row in rows:
        modes = {m: n for site, tally in row.get("blas_modes", {}).items() if "call" in site for m, n in tally.items()}
        if row.get("numpy_ratio"):
            cells.append(f"{row['kernel']} {row['numpy_ratio']:.3f} (pf {row['polyfuse_numpy_ms']:.3f} "
                         f"np {row['numpy_ms']:.3f}) {modes or ''}")
        else:  # (no NumPy formulation: polyfuse's own time, and numba's over it)
            cells.append(f"{row['kernel']} pf {row.get('polyfuse_ms') or 0:.3f} ms ({row.get('speedup') or 0:.2f}x numba)")
    return f"{tag} load {os.getloadavg()[0]:.1f}  " + "  ".join(cells)


def main() -> None:
    kernels, pairs, a, b, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
    for k in range(1, pairs + 1):
        for side, env in (("A", a), ("B", b)):
            print(run(kernels, env, extra, f"{side}{k}"), flush=True)


if __name__ == "__main__":
    main()
