"""frontend.source.copy_tree, the frontend's fast ``copy.deepcopy`` of ASTs, gives deepcopy's copy:
the same node types, attributes in the same order, equal values of the same types, a node shared
within the tree shared in the copy, and nothing but immutable values shared with the original.
frontend.source.walk, its fast ``ast.walk``, yields the same nodes in the same order."""

from __future__ import annotations

import ast
import copy
from pathlib import Path

import numpy as np
import pytest
from polyfuse.frontend.source import copy_tree, walk

ROOT = Path(__file__).parents[2]


def layout(value, seen: dict[int, int], original_ids: set[int] | None = None):
    """``value`` written out: types, attribute order, values, and where a node or list recurs."""
    if isinstance(value, (ast.AST, list)):
        if original_ids is not None:
            assert id(value) not in original_ids, "the copy shares a node or list with the original"
        if id(value) in seen:
            return ("again", seen[id(value)])
        seen[id(value)] = len(seen)
        if isinstance(value, list):
            return ("list", [layout(v, seen, original_ids) for v in value])
        return (type(value).__name__, [(k, layout(v, seen, original_ids)) for k, v in value.__dict__.items()])
    return (type(value).__name__, repr(value))


def node_ids(tree) -> set[int]:
    ids = {id(n) for n in ast.walk(tree)}
    ids.update(id(v) for n in ast.walk(tree) for v in n.__dict__.values() if isinstance(v, list))
    return ids


def assert_same_copy(tree) -> None:
    expected, actual = copy.deepcopy(tree), copy_tree(tree)
    assert layout(actual, {}, node_ids(tree)) == layout(expected, {})


@pytest.mark.parametrize("path", sorted((ROOT / "frontend").glob("*.py"))[:4], ids=lambda p: p.name)
def test_copy_tree_copies_a_module_as_deepcopy_does(path):
    assert_same_copy(ast.parse(path.read_text()))


def test_copy_tree_keeps_sharing_extra_attributes_and_numpy_constants():
    shared = ast.Name("x", ast.Load())
    tree = ast.BinOp(shared, ast.Add(), ast.Call(ast.Name("f", ast.Load()), [shared, ast.Constant(np.float32(1.5))], []))
    tree.note = ("kept", [1, 2])  # an attribute a pass set: deepcopied as well
    ast.fix_missing_locations(tree)
    assert_same_copy(tree)
    copied = copy_tree(tree)
    assert copied.left is copied.right.args[0] and copied.left is not shared
    assert type(copied.right.args[1].value) is np.float32 and copied.note == tree.note
    assert [copy_tree(s) for s in [tree, tree]][0] is not tree


@pytest.mark.parametrize("path", sorted((ROOT / "frontend").glob("*.py"))[:4], ids=lambda p: p.name)
def test_walk_yields_what_ast_walk_yields(path):
    tree = ast.parse(path.read_text())
    expected, actual = list(ast.walk(tree)), list(walk(tree))
    assert len(actual) == len(expected) and all(a is e for a, e in zip(actual, expected, strict=True))


def test_walk_takes_the_children_before_it_yields_the_node():
    def names(walker) -> list[str]:
        out = []
        for node in walker(ast.parse("a = b + c[d]")):  # a pass that replaces a child it is handed
            if isinstance(node, ast.BinOp):
                node.right = ast.Name("e", ast.Load())
            if isinstance(node, ast.Name):
                out.append(node.id)
        return out
    assert names(walk) == names(ast.walk) == ["a", "b", "c", "d"]
