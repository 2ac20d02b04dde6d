"""The house rule as code: each stage imports only from the stages below it, and nothing circles.

Every ``import`` of every module counts, including those inside functions (a lazy import is
still a dependence).  A module may import its own folder's modules; across folders, only a
lower layer.  ``TYPE_CHECKING`` imports count too: a type from a higher stage is a sign the type
sits in the wrong folder.
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"polyfuse": ROOT / "polyfuse", "polyfuse.frontend": ROOT / "frontend",
           "polyfuse.backends": ROOT / "backends"}

# lower number = lower stage; a module may import a group with a smaller number, or its own group
LAYERS = {
    "polyfuse.errors": 0,
    "polyfuse.version": 0,
    "polyfuse.hardware": 1,
    "polyfuse.options": 2,
    "polyfuse.model": 3,
    "polyfuse.analysis": 4,
    "polyfuse.frontend": 4,  # Python source -> Scop: needs only the model
    "polyfuse.schedule": 5,
    "polyfuse.passes": 6,
    "polyfuse.runtime": 7,
    "polyfuse.backends": 8,
    "polyfuse.explain": 9,
    "polyfuse.lift_memo": 9.5,  # a compile's front half kept for its next variant (tests), below the compiler
    "polyfuse.compiler": 10,
    "polyfuse.dask": 10.5,  # kernels on Dask arrays: the Scop and dependences, below the Kernel that calls it
    "polyfuse.kernel": 11,
    "polyfuse.tensor": 12,
    "polyfuse.bench": 13,
    "polyfuse.cli": 14,
    "polyfuse.__main__": 15,
}
EXEMPT = {"polyfuse"}  # the package's __init__ re-exports the public API
ROOT_CLIENTS = {"polyfuse.bench", "polyfuse.cli", "polyfuse.__main__"}  # above the root's re-exports


def modules() -> dict[str, Path]:
    found = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def group(module: str) -> str:
    """The layer a module belongs to: the longest LAYERS key that is the module or a package of it."""
    matches = [key for key in LAYERS if module == key or module.startswith(key + ".")]
    assert matches, f"{module} belongs to no layer: add it to LAYERS"
    return max(matches, key=len)


@functools.cache
def imports(module: str, path: Path, names: frozenset[str]) -> frozenset[str]:
    """The polyfuse modules ``module`` imports (from-imports of a package name the module itself),
    ``names`` being every module's (``modules()``, found once by the caller, not once per module;
    each file parsed once per session, not once per test)."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join(package + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in names else base)
    return frozenset(name for name in found if name == "polyfuse" or name.startswith("polyfuse."))


def upward_imports() -> list[str]:
    problems = []
    found = modules()
    names = frozenset(found)
    for module, path in sorted(found.items()):
        if module in EXEMPT:
            continue
        mine = group(module)
        for target in sorted(imports(module, path, names)):
            if target == "polyfuse" and mine not in ROOT_CLIENTS:
                problems.append(f"{module} imports the package root (import from the module itself)")
                continue
            if target == "polyfuse":
                continue
            theirs = group(target)
            if theirs != mine and LAYERS[theirs] >= LAYERS[mine]:
                problems.append(f"{module} ({mine}) imports {target} ({theirs}): not a lower stage")
    return problems


def test_every_module_has_a_layer():
    for module in modules():
        if module not in EXEMPT:
            group(module)


def test_no_upward_imports():
    assert upward_imports() == []


def test_no_import_circles():
    found = modules()
    names = frozenset(found)
    graph = {m: imports(m, p, names) - {m} for m, p in found.items()}
    seen: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if seen.get(nxt) == 1:
                cycles.append(" -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in seen and nxt in graph:
                visit(nxt, path + [nxt])
        seen[node] = 2

    for module in sorted(graph):
        if module not in seen:
            visit(module, [module])
    assert cycles == []


def test_rule_catches_an_upward_import(tmp_path, monkeypatch):
    """The checker itself: a model module importing the scheduler is reported."""
    fake = tmp_path / "polyfuse"
    (fake / "model").mkdir(parents=True)
    (fake / "schedule").mkdir()
    (fake / "model" / "bad.py").write_text("from polyfuse.schedule import scheduler\n")
    (fake / "schedule" / "scheduler.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "FOLDERS", {"polyfuse": fake})
    assert upward_imports() == ["polyfuse.model.bad (polyfuse.model) imports polyfuse.schedule.scheduler "
                                "(polyfuse.schedule): not a lower stage"]


@pytest.mark.parametrize("folder", sorted({p.parent for p in modules().values()}))
def test_every_folder_states_its_contract(folder):
    init = folder / "__init__.py"
    assert init.exists(), f"{folder} is not a package"
    assert ast.get_docstring(ast.parse(init.read_text())), f"{init} has no contract docstring"
