"""The fixed cost of compiling small programs: a fixed sample of corpus cases, cold, in one process.

    python benchmarks/small_compiles.py [--profile FILE] [--every K] [--count N]

Takes every K-th case of tests/corpus/test_corpus.py's list (cpu target, the fusion mode the list
gives), up to N, after an untimed warm-up compile (imports, LLVM's initialisation); compiles each
with ``verify=True`` as the test does and calls it twice on the case's inputs (seed 0 and 1), with
the disk cache in a fresh temporary folder (misses and writes, as a test's first compile).  Prints
the thread CPU of the sample (compiles with their first calls) and per case; ``--profile`` writes
a cProfile of the sample (``python -m pstats FILE``).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ["POLYFUSE_CACHE_DIR"] = tempfile.mkdtemp(prefix="pf_small_")
os.environ.setdefault("POLYFUSE_COMPILE_SECONDS", "120")  # as tests/conftest.py
os.environ.setdefault("POLYFUSE_LIFT_MEMO", "1")  # as the corpus test's fixture

import numpy as np  # noqa: E402

import polyfuse  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "corpus"))
sys.path.insert(0, str(ROOT / "tests"))


def sample(every: int, count: int) -> list:
    from corpus import test_corpus  # type: ignore[import-not-found]

    cases = [p.values for p in test_corpus.CASES if p.values[1] == "cpu"]
    return cases[::every][:count]


def run_case(case, target: str, fuse: str) -> None:
    kernel = polyfuse.kernel(case.func, target=target, fuse=fuse, verify=True)
    for seed in (0, 1):
        args = case.make_args(np.random.default_rng(seed))
        with np.errstate(all="ignore"):
            try:
                kernel(*args)
            except polyfuse.UnsupportedError:
                return
            except Exception:  # noqa: BLE001 - a per-call error the test expects too
                pass


STAGES: dict[str, float] = {}
_STACK: list[list] = []


def _timed(name: str, call):
    """``call()``, its thread CPU less its nested timed parts added to ``STAGES[name]``."""
    _STACK.append([name, 0.0])
    start = time.thread_time()
    try:
        return call()
    finally:
        spent = time.thread_time() - start
        _, nested = _STACK.pop()
        STAGES[name] = STAGES.get(name, 0.0) + spent - nested
        if _STACK:
            _STACK[-1][1] += spent


def _patch_stages() -> None:
    from polyfuse.backends.cpu import llvm as cpu_llvm

    from polyfuse.model import stages as stages_mod
    from polyfuse.runtime import cache

    run, loop_pass = stages_mod.Stages.run, stages_mod.Stages.run_loop_pass
    stages_mod.Stages.run = lambda self, name, fn, *a, **k: _timed(name, lambda: run(self, name, fn, *a, **k))
    stages_mod.Stages.run_loop_pass = lambda self, name, fn, p, **k: _timed(name, lambda: loop_pass(self, name, fn, p, **k))
    optimize, generated = cpu_llvm.optimize, cpu_llvm.LLVMKernel._generated
    cpu_llvm.optimize = lambda *a: _timed("llvm opt", lambda: optimize(*a))  # (module, artifact, name)
    cpu_llvm.LLVMKernel._generated = lambda self, n: _timed("llvm codegen", lambda: generated(self, n))
    store = cache.store
    cache.store = lambda *a, **k: _timed("cache store", lambda: store(*a, **k))
    import importlib

    kernel_mod = importlib.import_module("polyfuse.kernel")

    build = kernel_mod.Kernel._build
    kernel_mod.Kernel._build = lambda self, *a, **k: _timed("build (rest)", lambda: build(self, *a, **k))


class _Sampler:
    """Every ~1 ms of the sample, the main thread's stack: samples per function (inclusive, each
    function once per sample) and per innermost function, by ``file:line(function)``."""

    def __init__(self) -> None:
        import collections
        import threading

        self.on = False
        self.inclusive: collections.Counter = collections.Counter()
        self.leaf: collections.Counter = collections.Counter()
        self.count = 0
        self.main = threading.get_ident()
        sys.setswitchinterval(0.0005)
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(0.001)
            if not self.on:
                continue
            frame = sys._current_frames().get(self.main)
            seen = set()
            leaf = True
            while frame is not None:
                code = frame.f_code
                key = f"{code.co_filename.split('/work/wt/')[-1]}:{code.co_firstlineno}({code.co_name})"
                if leaf:
                    self.leaf[key] += 1
                    leaf = False
                seen.add(key)
                frame = frame.f_back
            self.inclusive.update(seen)
            self.count += 1

    def write(self, path: str) -> None:
        with open(path, "w") as out:
            out.write(f"{self.count} samples\n== inclusive\n")
            for key, n in self.inclusive.most_common(150):
                out.write(f"{n / self.count * 100:6.1f}% {key}\n")
            out.write("== innermost\n")
            for key, n in self.leaf.most_common(60):
                out.write(f"{n / self.count * 100:6.1f}% {key}\n")


def _patch_function(spec: str) -> None:
    import importlib

    module_name, _, path = spec.partition(":")
    owner: object = importlib.import_module(module_name)
    *outer, attr = path.split(".")
    for part in outer:
        owner = getattr(owner, part)
    original = getattr(owner, attr)
    label = f"[{path}]"

    def timed(*a, **k):
        start = time.thread_time()
        try:
            return original(*a, **k)
        finally:
            STAGES[label] = STAGES.get(label, 0.0) + time.thread_time() - start
    if isinstance(owner, type) and isinstance(owner.__dict__.get(attr), (classmethod, staticmethod)):
        kind = type(owner.__dict__[attr])
        setattr(owner, attr, kind(lambda *a, **k: timed(*a[1:], **k) if kind is classmethod else timed(*a, **k)))
    else:
        setattr(owner, attr, timed)
        for module in list(sys.modules.values()):  # (bound by ``from ... import`` elsewhere too)
            if getattr(module, "__name__", "").startswith("polyfuse") and getattr(module, attr, None) is original:
                setattr(module, attr, timed)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile")
    parser.add_argument("--every", type=int, default=17)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--stages", action="store_true", help="thread CPU by pipeline stage, summed")
    parser.add_argument("--time", default="", help="comma-separated module:function (or module:Class.method) "
                        "whose thread CPU to sum (inclusive)")
    parser.add_argument("--sample", help="write a sampling profile (inclusive samples by function) here")
    ns = parser.parse_args()
    chosen = sample(ns.every, ns.count)
    from corpus import numba_fe19  # type: ignore[import-not-found]

    run_case(numba_fe19.CASES[0], "cpu", "smart")  # warm-up: imports, LLVM's initialisation
    if ns.stages:
        _patch_stages()
    for spec in filter(None, ns.time.split(",")):
        _patch_function(spec)
    prof = cProfile.Profile(time.thread_time) if ns.profile else None
    sampler = _Sampler() if ns.sample else None
    total = 0.0
    for case, target, fuse in chosen:
        t0 = time.thread_time()
        if prof:
            prof.enable()
        if sampler:
            sampler.on = True
        _timed("call (rest)", lambda c=case, t=target, f=fuse: run_case(c, t, f))
        if sampler:
            sampler.on = False
        if prof:
            prof.disable()
        dt = time.thread_time() - t0
        total += dt
        if not ns.quiet:
            print(f"{case.name:32s} {fuse:6s} {dt * 1000:8.1f} ms")
    print(f"sample: {len(chosen)} cases, {total:.3f} CPU-s (thread)")
    if STAGES:
        for name, spent in sorted(STAGES.items(), key=lambda kv: -kv[1]):
            if spent >= 0.005:
                print(f"  {name:40s} {spent:7.3f} s")
    if sampler:
        sampler.write(ns.sample)
    if prof:
        prof.dump_stats(ns.profile)


if __name__ == "__main__":
    main()
