"""The verifier's dependence-chain test (verify._chain_pairs): keeping the order of its pairs keeps
the order of every two accesses of an element (one a write), so it passes only where the
memory-order test it stands before would."""

from __future__ import annotations

import inspect

import islpy as isl
import numpy as np
import pytest
from conftest import define
from polyfuse.frontend import lift

import polyfuse
from polyfuse.analysis import verify
from polyfuse.analysis.dependences import on_array, strict_order
from polyfuse.bench import suite
from polyfuse.model.isl_parts import maps_of
from polyfuse.model.scop import isl_name
from polyfuse.runtime.signature import argument_of

PROGRAMS = {
    # a time loop over two arrays: reads of input values, writes overwritten every step
    "jacobi": '''def kern(n, T, A, B):
    for t in range(T):
        for i in range(1, n - 1):
            B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0
        for i in range(1, n - 1):
            A[i] = B[i]
''',
    # in place, reading elements before and after they are overwritten, and one scalar
    "in_place": '''def kern(n, A, B):
    s = 0.0
    for i in range(n):
        A[i] = A[i] + A[n - 1 - i]
        s = s + A[i]
    for i in range(n):
        B[i] = s * A[(i + 2) % n]
        A[(i + 1) % n] = B[i] - A[i]
''',
    # reads that no write reaches, the same element written twice by different statements
    "overwrites": '''def kern(n, A, C):
    for i in range(n):
        for j in range(n):
            C[i] = C[i] + A[i, j]
        C[i] = C[i] * 0.5
    for i in range(1, n):
        C[i] = C[i - 1] + C[i]
''',
}

ARGS = {
    "jacobi": lambda: (5, 3, np.ones(5), np.ones(5)),
    "in_place": lambda: (4, np.ones(4), np.ones(4)),
    "overwrites": lambda: (3, np.ones((3, 3)), np.ones(3)),
}


def _scop(name: str):
    fn = define("import numpy as np\n" + PROGRAMS[name], "kern")
    values = ARGS[name]()
    names = list(inspect.signature(fn).parameters)
    return lift(fn, tuple(argument_of(n, v) for n, v in zip(names, values)))


def _pairs(relation: isl.UnionMap, params: isl.Set) -> set[tuple]:
    """The pairs of ``relation`` at fixed parameter values, as ((statement, point), (statement, point))."""
    found: set[tuple] = set()
    for part in maps_of(relation):
        part = part.intersect_params(params.align_params(part.get_space()))
        n_in, n_out = part.dim(isl.dim_type.in_), part.dim(isl.dim_type.out)
        src, dst = part.get_tuple_name(isl.dim_type.in_), part.get_tuple_name(isl.dim_type.out)

        def add(point, src=src, dst=dst, n_in=n_in, n_out=n_out):
            values = [point.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n_in + n_out)]
            found.add(((src, tuple(values[:n_in])), (dst, tuple(values[n_in:]))))

        part.wrap().foreach_point(add)
    return found


def _reachable(edges: set[tuple]) -> set[tuple]:
    succ: dict = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
    closure = set()
    for start in succ:
        seen, todo = set(), [start]
        while todo:
            for b in succ.get(todo.pop(), ()):
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        closure.update((start, b) for b in seen)
    return closure


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_chains_imply_every_memory_pair_and_keep_program_order(name):
    scop = _scop(name)
    reads, writes = scop.reads(), scop.writes()
    space = scop.context.get_space()
    fixed = isl.Set.universe(space)
    for k in range(space.dim(isl.dim_type.param)):  # every size 4, the time loop's count 3
        value = 3 if space.get_dim_name(isl.dim_type.param, k) == "T" else 4
        fixed = fixed.fix_val(isl.dim_type.param, k, isl.Val.int_from_si(space.get_ctx(), value))
    order = strict_order(scop.schedule)
    checked = 0
    for info in scop.arrays:
        r, w = on_array(reads, isl_name(info.name)), on_array(writes, isl_name(info.name))
        if r.is_empty() or w.is_empty():
            continue
        chains = verify._chain_pairs(scop, info.name, r, w)
        assert chains is not None
        assert chains.is_subset(order), info.name  # (one element per write: no pair out of order)
        memory = _pairs(verify._memory_pairs(scop, info.name, r, w), fixed)
        assert memory, info.name
        assert memory <= _reachable(_pairs(chains, fixed)), info.name
        checked += 1
    assert checked


@pytest.mark.parametrize("kernel", ["jacobi-1d", "trmm", "covariance"])
def test_chain_test_passes_only_where_the_memory_order_test_does(kernel, monkeypatch):
    """Every check of a suite kernel's compile (fusion merges, time tiling, outer parallelism):
    where the chain test passes, so does the memory-order test (trmm's and covariance's
    whole-matrix writers give chains more pairs: there the memory-order test decides)."""
    chains_kept = verify._chains_kept_within_budget
    seen = []

    def both(scop, array, reads, writes, order, total):
        kept = chains_kept(scop, array, reads, writes, order, total)
        memory = verify._memory_order_kept_within_budget(scop, array, reads, writes, order)
        assert memory or not kept, (scop.name, array)
        seen.append(kept)
        return kept

    monkeypatch.setattr(verify, "_chains_kept_within_budget", both)
    spec = suite.get(kernel)
    args = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    polyfuse.kernel(spec.func, target="python", verify=True).compile(*args)
    assert any(seen)
