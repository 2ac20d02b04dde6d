"""Compile CPU of corpus kernels with ``verify=True`` under two polyfuse checkouts, interleaved.

    python benchmarks/verify_order_ab.py /tmp/base /work/wt/ts52 --rounds 2 \\
        numpy_np21:python:none numba_fe21:cpu:smart

Each ``MODULE:TARGET:FUSE`` compiles every case of tests/corpus/MODULE.py that runs there (as
test_corpus does: ``polyfuse.kernel(case.func, target=..., fuse=..., verify=True)``) in a fresh
process of one checkout (``PYTHONPATH``, run from /), A and B alternating, and prints the sum
of ``kernel.compile``'s thread CPU, of its "verify" stage's and of the five costliest stages'
(thread CPU; a stage's includes the stages it runs); no disk cache, no lift memo (each case
compiled cold).  Say the load beside the numbers (``cat /proc/loadavg``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r'''
import importlib, json, os, sys, time
import numpy as np
import polyfuse
from polyfuse.model.stages import Stages
stage_cpu = {}
_run = Stages.run
def run(self, name, fn, *args, **kwargs):  # the thread CPU of each stage, summed over the cases
    start = time.thread_time()
    try:
        return _run(self, name, fn, *args, **kwargs)
    finally:
        stage_cpu[name] = stage_cpu.get(name, 0.0) + time.thread_time() - start
Stages.run = run
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "corpus"))
module, target, fuse = sys.argv[2].split(":")
cpu = 0.0
cases = 0
for case in importlib.import_module(module).CASES:
    if target not in case.targets or fuse not in case.fuses:
        continue
    kernel = polyfuse.kernel(case.func, target=target, fuse=fuse, verify=True)
    args = case.make_args(np.random.default_rng(0))
    start = time.thread_time()
    try:
        variant = kernel.compile(*args)
    except polyfuse.PolyfuseError:
        continue
    cpu += time.thread_time() - start
    cases += 1
print(json.dumps({"cpu": cpu, "stages": stage_cpu, "cases": cases}))
'''


def run(checkout: str, group: str) -> dict:
    env = dict(os.environ, PYTHONPATH=checkout, POLYFUSE_DISABLE_CACHE="1", POLYFUSE_LIFT_MEMO="0")
    out = subprocess.run([sys.executable, "-c", CHILD, checkout, group], env=env, cwd="/", check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("groups", nargs="+")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    for round_ in range(args.rounds):
        for group in args.groups:
            for side, checkout in (("A", args.a), ("B", args.b)):
                r = run(checkout, group)
                with open("/proc/loadavg") as f:
                    load = f.read().split()[0]
                stages = r["stages"]
                top = ", ".join(f"{name} {stages[name]:.2f}" for name in sorted(stages, key=stages.get, reverse=True)[:5])
                print(f"round {round_} {group} {side}: {r['cases']} cases, compile {r['cpu']:.2f} CPU-s, "
                      f"verify {stages.get('verify', 0.0):.2f} (load {load}); {top}", flush=True)


if __name__ == "__main__":
    main()
