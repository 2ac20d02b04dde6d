"""Corpus kernels that are one program up to names, and which suite tests compile them.

    python benchmarks/corpus_duplicates.py            # every group
    python benchmarks/corpus_duplicates.py --suite    # groups with two or more members the suite runs

Each case's function (tests/corpus/num*_*.py, batch_*.py) is parsed, its docstring and
decorators dropped and every name but builtins, ``np``, ``math`` and ``prange`` renamed in order of
first use; equal dumps form a group.  A helper the function calls is not compared (two kernels
calling different @njit helpers under one name look alike: read them).  Each member is printed
with its argument types (``make_args`` of seed 0) and the suite's runs of it: test_corpus's
target-fuse variants (+v: verify=True), test_batches' and test_batch_np37's.  Members with equal
argument types in one run compile the same program twice; different data (edge sizes, an early
exit taken or not) is coverage of its own.
"""

from __future__ import annotations

import ast
import collections
import hashlib
import importlib
import inspect
import sys
import textwrap
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"
KEPT = {"np", "math", "range", "len", "abs", "min", "max", "int", "float", "bool", "prange", "numba", "sum",
        "round", "enumerate", "zip"}


class _Names(ast.NodeTransformer):
    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def _name(self, name: str) -> str:
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_FunctionDef(self, node):
        node.name, node.decorator_list = "f", []
        if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
            node.body = node.body[1:] or [ast.Pass()]
        self.generic_visit(node)
        return node

    def visit_arg(self, node):
        node.arg, node.annotation = self._name(node.arg), None
        return node

    def visit_Name(self, node):
        if node.id not in KEPT:
            node.id = self._name(node.id)
        return node


def shape_key(func) -> str | None:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError):
        return None
    return hashlib.sha1(ast.dump(_Names().visit(tree)).encode()).hexdigest()[:12]


def argument_types(case) -> str:
    args = case.make_args(np.random.default_rng(0))
    return ",".join(f"{a.dtype}[{a.ndim}]" if isinstance(a, np.ndarray) else type(a).__name__ for a in args)


def suite_runs(module: str, case) -> list[str]:
    import test_batch_np37
    import test_batches

    runs = []
    if module.startswith("num"):
        module_fuses = getattr(importlib.import_module(module), "FUSES", ("none", "smart", "max"))
        for target in case.targets:
            wanted = ("none",) if target == "python" else ("smart", "max")
            fuses = tuple(f for f in case.fuses if f in wanted and f in module_fuses) or case.fuses[:1]
            runs += [f"{target}-{fuse}+v" for fuse in fuses]
    if module in test_batches.BATCHES:
        target, names = test_batches.PARTS.get(module, ("cpu", None))
        if names is None or case.name in names:
            runs.append(f"{target}-smart")
    if any(m == module and c is case for m, c in test_batch_np37.CASES):
        runs.append("python-none+v")
    return runs


def main() -> None:
    sys.path.insert(0, str(CORPUS))
    groups = collections.defaultdict(list)
    for path in sorted(CORPUS.glob("*.py")):
        if not path.stem.startswith(("num", "batch_")) or path.stem == "batch_report":
            continue
        for case in getattr(importlib.import_module(path.stem), "CASES", []):
            key = shape_key(case.func)
            if key is not None:
                groups[key].append((path.stem, case))
    for members in groups.values():
        if len(members) < 2:
            continue
        rows = [(f"{m}.{c.name}", argument_types(c), suite_runs(m, c)) for m, c in members]
        if "--suite" in sys.argv and sum(1 for row in rows if row[2]) < 2:
            continue
        print(" | ".join(f"{name} ({types}) {' '.join(runs) or '-'}" for name, types, runs in rows))


if __name__ == "__main__":
    main()
