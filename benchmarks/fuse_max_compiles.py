"""Compile every suite kernel and corpus case with fuse="max" (target="python"), each in a child
process under a CPU cap, and report the slowest compiles, a hash of each loop code and the
schedule notes of explain(): finds pathological isl scheduler runs, and shows a change to the
scheduler's guards left the other kernels' fuse="max" schedules as they were.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/fuse_max_compiles.py --cap 20 --json before.json
    python benchmarks/fuse_max_compiles.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import multiprocessing as mp
import resource
import sys
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"


def cases(corpus: bool, only: list[str]) -> list[tuple[str, str, str]]:
    """(label, module, name): the suite kernels and, with ``corpus``, every batch's cases."""
    from polyfuse.bench import suite
    out = [(f"suite:{n}", "suite", n) for n in suite.KERNELS]
    if corpus:
        sys.path.insert(0, str(CORPUS))
        for path in sorted(CORPUS.glob("batch_*.py")):
            if path.stem == "batch_report":
                continue
            module = importlib.import_module(path.stem)
            out += [(f"{path.stem}:{c.name}", path.stem, c.name) for c in getattr(module, "CASES", ())
                    if "max" in getattr(c, "fuses", ("max",))]
    return [c for c in out if not only or any(o in c[0] for o in only)]


def compile_one(module: str, name: str, cap: int, queue, unguarded: bool = False) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 1))
    import polyfuse
    if unguarded:  # what the compile did before MAX_DEPENDENCE_CONSTANT (session 33)
        from polyfuse.schedule import isl_scheduler
        isl_scheduler.MAX_DEPENDENCE_CONSTANT = 1 << 62
    if module == "suite":
        from polyfuse.bench import suite
        sk = suite.KERNELS[name]
        func, args = sk.func, sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    else:
        sys.path.insert(0, str(CORPUS))
        case = next(c for c in importlib.import_module(module).CASES if c.name == name)
        func, args = case.func, case.make_args(np.random.default_rng(0))
    start = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    try:
        info = polyfuse.kernel(func, target="python", fuse="max").explain(*args).to_dict()
        code = hashlib.sha256(str(info.get("loop code", "")).encode()).hexdigest()[:16]
        sched = {k: str(v) for k, v in info.get("schedule", {}).items()}
        queue.put({"cpu": resource.getrusage(resource.RUSAGE_SELF).ru_utime - start, "code": code, "schedule": sched})
    except Exception as exc:  # refused kernels: record the error
        queue.put({"cpu": resource.getrusage(resource.RUSAGE_SELF).ru_utime - start, "code": "error", "schedule": {"error": type(exc).__name__}})


def run(cap: int, corpus: bool, only: list[str], unguarded: bool = False) -> dict:
    ctx = mp.get_context("fork")
    out = {}
    for label, module, name in cases(corpus, only):
        queue = ctx.Queue()
        child = ctx.Process(target=compile_one, args=(module, name, cap, queue, unguarded))
        child.start()
        child.join()
        row = queue.get() if not queue.empty() else {"cpu": float(cap), "code": "over cap", "schedule": {}}
        out[label] = row
        print(f"{row['cpu']:7.2f} s  {label}  {row['code']}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cap", type=int, default=20, help="CPU seconds per compile")
    parser.add_argument("--no-corpus", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--compare", nargs=2)
    parser.add_argument("--unguarded", action="store_true",
                        help="lift MAX_DEPENDENCE_CONSTANT (isl's scheduler tried on every program)")
    parser.add_argument("--skipped", help="a --json file: list the kernels isl's scheduler was not tried on")
    parser.add_argument("only", nargs="*")
    args = parser.parse_args()
    if args.compare:
        a, b = (json.loads(Path(p).read_text()) for p in args.compare)
        changed = [k for k in a if k in b and (a[k]["code"], a[k]["schedule"]) != (b[k]["code"], b[k]["schedule"])]
        print(f"{len(changed)} of {len(set(a) & set(b))} changed:", *changed, sep="\n  ")
        return
    if args.skipped:
        for label, row in json.loads(Path(args.skipped).read_text()).items():
            if "not tried" in row["schedule"].get("notes", ""):
                print(label, row["schedule"]["notes"][:160])
        return
    result = run(args.cap, not args.no_corpus, args.only, args.unguarded)
    print("slowest:")
    for label, row in sorted(result.items(), key=lambda kv: -kv[1]["cpu"])[:15]:
        print(f"{row['cpu']:7.2f} s  {label}  {row['code']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
