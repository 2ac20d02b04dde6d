"""Hashes of the code polyfuse generates for every suite kernel, to show a refactor changed none.

For each kernel of the embedded suite (test sizes): the LLVM IR before and after O3 (default
options, target="cpu") and the loop code under fuse="none" and fuse="max" (target="python").
``--numpy`` adds the NumPy programs of ``polyfuse bench --section numpy`` (polyfuse.bench.
numpy_suite.PROGRAMS, test sizes: the frontend's array lowering), as ``numpy:NAME``, with their
IR before and after O3 and the loop code (target="python"), or the error a target gives.
Run before and after a change and compare the two JSON files:

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/codegen_hashes.py --numpy before.json
    POLYFUSE_DISABLE_CACHE=1 python benchmarks/codegen_hashes.py after.json
    python benchmarks/codegen_hashes.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

import numpy as np

import polyfuse
from polyfuse.bench import suite


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def hashes(numpy: bool = False) -> dict[str, dict[str, str]]:
    out = {}
    for name, sk in suite.KERNELS.items():
        args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
        k = polyfuse.kernel(sk.func)
        row = {"ir": digest(k.inspect_llvm(*args, optimized=False)), "opt": digest(k.inspect_llvm(*args))}
        for fuse in ("none", "max"):
            row[fuse] = digest(polyfuse.kernel(sk.func, target="python", fuse=fuse).explain(*args)["loop code"])
        out[name] = row
        print(name, row, flush=True)
    if numpy:
        out.update(numpy_hashes())
    return out


def numpy_hashes() -> dict[str, dict[str, str]]:
    from polyfuse.bench.numpy_suite import PROGRAMS

    out = {}
    for name, program in PROGRAMS.items():
        row = numpy_row(program.func, program.args("test"))
        out[f"numpy:{name}"] = row
        print(f"numpy:{name}", row, flush=True)
    return out


def numpy_row(func, args: tuple) -> dict[str, str]:
    """A NumPy program's hashes; a target that refuses it gives its error's hash instead."""
    def guarded(produce) -> str:
        try:
            return digest(produce())
        except polyfuse.PolyfuseError as exc:
            return "error " + digest(f"{type(exc).__name__}: {exc}")

    cpu = polyfuse.kernel(func)
    return {"ir": guarded(lambda: cpu.inspect_llvm(*args, optimized=False)),
            "opt": guarded(lambda: cpu.inspect_llvm(*args)),
            "loops": guarded(lambda: polyfuse.kernel(func, target="python").explain(*args)["loop code"])}


def compare(before: str, after: str) -> int:
    a, b = (json.load(open(path)) for path in (before, after))
    differences = [(k, f) for k in a for f in a[k] if a[k][f] != b.get(k, {}).get(f)]
    print(f"{len(a)} kernels; {len(differences)} differences" + (f": {differences}" if differences else ""))
    return 1 if differences else 0


def main(argv: list[str]) -> int:
    # no CPU-time safety net (only pathological programs meet it, but then the code would depend
    # on the machine's speed; the counted budget, POLYFUSE_COMPILE_OPERATIONS, stays on)
    os.environ.setdefault("POLYFUSE_COMPILE_SECONDS", "0")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", help="JSON file to write the hashes into")
    parser.add_argument("--numpy", action="store_true", help="the NumPy programs too")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two hash files")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.output is None:
        parser.error("give an output file, or --compare BEFORE AFTER")
    with open(args.output, "w") as f:
        json.dump(hashes(args.numpy), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
