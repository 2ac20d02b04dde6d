"""Contraction of kernel-local arrays, as reported by explain() and local_memory()."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse.bench import suite


def _args(name: str, preset: str = "test"):
    spec = suite.get(name)
    return spec, spec.make_args(np.random.default_rng(0), **spec.sizes[preset])


def test_fused_elementwise_temporaries_become_registers():
    spec, args = _args("chain3")
    memory = polyfuse.kernel(spec.func).local_memory(*args)
    assert memory["allocated"] == {}
    assert set(memory["declared"]) == {"T1", "T2"}


def test_row_fused_attention_keeps_one_row_of_scores():
    spec, args = _args("attention_rows")
    kernel = polyfuse.kernel(spec.func, blas=False)  # the products as loops, fused by rows
    memory = kernel.local_memory(*args)
    Q, K = args[1], args[2]
    row = K.shape[0] * 8
    assert memory["allocated"] == {"S": row, "P": row}  # O(keys), not O(queries x keys)
    assert memory["declared"] == {"S": Q.shape[0] * row, "P": Q.shape[0] * row}
    contracted = {c["array"]: c for c in kernel.explain(*args)["contraction"]}
    assert contracted["S"]["after"] == "(K.shape[0],)"


@pytest.mark.parametrize("fuse", ["none", "smart"])
def test_without_fusion_nothing_can_shrink(fuse):
    spec, args = _args("chain3")
    memory = polyfuse.kernel(spec.func, fuse=fuse).local_memory(*args)
    if fuse == "none":
        assert memory["allocated"] == memory["declared"]
    else:
        assert memory["allocated"] == {}


def test_contract_false_keeps_full_arrays():
    spec, args = _args("chain3")
    memory = polyfuse.kernel(spec.func, contract=False).local_memory(*args)
    assert memory["allocated"] == memory["declared"]


UNORDERED_CONSUMER = '''
def kern(n, A, M, B):
    U = np.empty((n + 4, n + 4), dtype=np.float64)
    for i in range(n + 4):
        for j in range(n + 4):
            U[i, j] = float(i) - 0.25 * j
    for i in range(n):
        B[0] = 0.0
        if i % 2 == 0:
            M[0, 0] = A[0]
    for i in range(n):
        A[1] = A[0]
    for i in range(n):
        A[2] = (A[0] + U[i, 0])
    for i in range(0, n, 2):
        M[i, 0] = A[i]
'''


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_no_contraction_when_the_schedule_leaves_producer_and_consumer_unordered(target):
    """fuse="max" puts U[i + 1, 0]'s write and the read of U[i, 0] at one schedule time (they touched
    different elements); contracted to a scalar they would touch one slot and isl's dataflow, which
    ignores same-time instances, did not see it: A[2] came out one too large (found by random
    programs)."""
    from conftest import check_against_python, define

    fn = define(UNORDERED_CONSUMER, "kern")
    for n in (0, 1, 5, 17):
        rng = np.random.default_rng(n)
        args = (n, rng.standard_normal(n + 4), rng.standard_normal((n + 4, n + 4)), rng.standard_normal(n + 4))
        check_against_python(fn, args, target=target, fuse="max")
