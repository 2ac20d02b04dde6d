"""Contraction of kernel-local arrays, as reported by explain() and local_memory()."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse import suite


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
    kernel = polyfuse.kernel(spec.func)
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
