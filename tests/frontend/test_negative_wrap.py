"""frontend/negative_wrap: which element reads below 0 are written as Python's wrapped element
(AST before/after, no compile; the corpus' batch_fe50 lax_wendroff_periodic runs one)."""

from __future__ import annotations

import ast
import textwrap

import pytest
from polyfuse.frontend.negative_wrap import wrap_negative_reads


def _wrapped(src: str, given: dict[str, int]) -> str:
    body = ast.parse(textwrap.dedent(src)).body
    return "\n".join(ast.unparse(s) for s in wrap_negative_reads(body, given, frozenset({"n"})))


def test_an_unguarded_read_below_zero_reads_the_wrapped_element():
    out = _wrapped("""
        for i in range(n):
            d[i] = u[i] - u[i - 1]
        for i in range(1, n):
            for j in range(m):
                e[i, j] = v[i - 2, j] + v[i, j - 1]
    """, {"u": 1, "d": 1, "v": 2, "e": 2})
    assert "u[i] - (u[i - 1] if i >= 1 else u[i - 1 + u.shape[0]])" in out
    assert "(v[i - 2, j] if i >= 2 else v[i - 2 + v.shape[0], j])" in out
    assert "(v[i, j - 1] if j >= 1 else v[i, j - 1 + v.shape[1]])" in out


@pytest.mark.parametrize("src", [
    "for i in range(n):\n    if i > 0:\n        d[i] = u[i - 1]",  # guarded
    "for i in range(n):\n    d[i] = u[i - 1] if i else 0.0",  # a choice reading i
    "for i in range(1, n):\n    d[i] = u[i - 1]",  # never below 0
    "for i in range(n):\n    for j in range(i):\n        d[i] = u[i - 1]",  # an inner range of i
    "for i in range(n):\n    d[i - 1] = u[i]",  # a store
    "for i in range(n):\n    i = i + 1\n    d[i] = u[i - 1]",  # i assigned
    "for i in range(n):\n    d[i] = w[i - 1]",  # w's rank unknown (a list, a tuple)
    "for i in range(n, 0, -1):\n    d[i] = u[i - 1]",  # counting down
])
def test_reads_that_may_not_go_below_zero_stay_as_written(src):
    assert _wrapped(src, {"u": 1, "d": 1}) == ast.unparse(ast.parse(src))
