"""The frontend's model of a kernel: statements, domains, accesses, program order and types."""

from __future__ import annotations

import inspect

import islpy as isl
import numpy as np
from polyfuse.frontend import lift

import polyfuse
from polyfuse.runtime.signature import argument_of


def scop_of(fn, *values):
    names = list(inspect.signature(fn).parameters)
    return lift(fn, tuple(argument_of(n, v) for n, v in zip(names, values)))


def tri(n, A, B):
    for i in range(n):
        for j in range(i):
            A[i, j] = B[j, i]
        A[i, i] = 1.0


def test_statements_domains_accesses():
    scop = scop_of(tri, 4, np.zeros((4, 4)), np.zeros((4, 4)))
    assert [s.name for s in scop.statements] == ["S0", "S1"]
    s0, s1 = scop.statements
    assert s0.iterators == ("i", "j") and s1.iterators == ("i",)
    p = "[n, A__shape0, A__shape1, B__shape0, B__shape1]"
    assert s0.domain.is_equal(isl.Set(f"{p} -> {{ S0[i, j] : 0 <= j < i < n }}").intersect_params(scop.context))
    assert s0.reads.is_equal(isl.UnionMap(f"{p} -> {{ S0[i, j] -> B[j, i] }}").intersect_domain(
        isl.UnionSet.from_set(s0.domain)))
    assert s1.writes.is_equal(isl.UnionMap(f"{p} -> {{ S1[i] -> A[i, i] }}").intersect_domain(
        isl.UnionSet.from_set(s1.domain)))
    assert s0.nest == s1.nest  # one top-level construct
    assert s0.span.line == inspect.getsourcelines(tri)[1] + 3
    assert "A[i, j] = B[j, i]" in s0.source_line


def test_program_order_schedule():
    scop = scop_of(tri, 4, np.zeros((4, 4)), np.zeros((4, 4)))
    order = scop.schedule.get_map()
    # S0(i, j) for all j < i runs before S1(i), which runs before S0(i + 1, *)
    lt = order.lex_lt_union_map(order)
    assert isl.UnionMap("[n, A__shape0, A__shape1, B__shape0, B__shape1] -> "
                        "{ S0[2, 1] -> S1[2]; S1[2] -> S0[3, 0]; S1[1] -> S1[2] }").intersect_params(
        isl.Set("[n, A__shape0, A__shape1, B__shape0, B__shape1] -> { : n = 4 }")).is_subset(lt)


def test_negative_step_domain_and_order():
    def rev(n, A):
        for i in range(n - 1, -1, -2):
            A[i] = 1.0

    scop = scop_of(rev, 5, np.zeros(5))
    (s,) = scop.statements
    dom = s.domain.intersect_params(isl.Set("[n, A__shape0] -> { : n = 5 and A__shape0 = 5 }"))
    pts = []
    dom.foreach_point(lambda pt: pts.append(pt.get_coordinate_val(isl.dim_type.set, 0).to_python()))
    assert sorted(pts) == [0, 2, 4]
    order = scop.schedule.get_map()
    assert isl.UnionMap("[n, A__shape0] -> { S0[4] -> S0[2] }").is_subset(order.lex_lt_union_map(order))


def test_if_else_partitions_domain():
    def branches(n, A):
        for i in range(n):
            if i % 2 == 0 and i > 1:
                A[i] = 1.0
            elif not (i == 3):
                A[i] = 2.0
            else:
                A[i] = 3.0

    scop = scop_of(branches, 6, np.zeros(6))
    doms = [s.domain.set_tuple_name("X") for s in scop.statements]
    # disjoint and covering 0 <= i < n
    assert doms[0].intersect(doms[1]).is_empty() and doms[1].intersect(doms[2]).is_empty()
    union = doms[0].union(doms[1]).union(doms[2])
    assert union.is_equal(isl.Set("[n, A__shape0] -> { X[i] : 0 <= i < n and A__shape0 >= 0 }"))


def test_augmented_assignment_reads_its_target():
    def acc(n, A, B):
        for i in range(n):
            B[0] += A[i]

    scop = scop_of(acc, 3, np.zeros(3), np.zeros(1))
    (s,) = scop.statements
    reads = s.reads.range()
    assert isl.UnionSet("[n, A__shape0, B__shape0] -> { B[0] }").intersect_params(
        isl.Set("[n, A__shape0, B__shape0] -> { : n > 0 }").intersect(scop.context)).is_subset(reads)


def test_local_arrays_and_scalars():
    def f(n, A):
        T = np.empty((n, 2), dtype=np.float32)
        Z = np.zeros((n,), dtype=np.int64)
        for i in range(n):
            s = A[i]
            T[i, 0] = s
            Z[i] = i

    scop = scop_of(f, 3, np.zeros(3))
    T, Z, s = scop.array("T"), scop.array("Z"), scop.array("s")
    assert (T.kind, T.dtype, T.rank, T.zero_init) == ("local", "float32", 2, False)
    assert (Z.dtype, Z.zero_init) == ("int64", True)
    assert s.is_scalar and s.dtype == "float64"
    assert scop.local_arrays() == ("T", "Z", "s") or set(scop.local_arrays()) == {"T", "Z", "s"}


def test_scalar_type_widens_to_float():
    def f(n, A):
        for i in range(n):
            s = 0
            s += 0.5
            A[i] = s

    scop = scop_of(f, 3, np.zeros(3))
    assert scop.array("s").dtype == "float64"
    A = np.zeros(3)
    polyfuse.kernel(f, target="python")(3, A)
    assert list(A) == [0.5] * 3


def test_scalar_type_fixpoint_reads_the_type_found_so_far():
    # the first pass stores s as the weak int it starts as; a read after s += x[i] is already a
    # uint64 there (it was read as a strong int64, and uint64 with int64 widened s to float64)
    def f(x):
        s = 0
        for i in range(x.shape[0]):
            s += x[i]
            s = s * 3
        return s

    x = np.arange(5, dtype=np.uint64)
    assert scop_of(f, x).array("s").dtype == "uint64"
    for target in ("python", "cpu"):
        result = polyfuse.kernel(f, target=target)(x)
        assert type(result) is np.uint64 and result == f(x)


def test_shape_parameters():
    def f(A, B):
        for i in range(A.shape[0]):
            for j in range(A.shape[1]):
                B[j, i] = A[i, j]

    scop = scop_of(f, np.zeros((2, 3)), np.zeros((3, 2)))
    assert set(scop.params) == {"A__shape0", "A__shape1", "B__shape0", "B__shape1"}
    A = np.arange(6.0).reshape(2, 3)
    B = np.zeros((3, 2))
    polyfuse.kernel(f, target="python")(A, B)
    assert np.array_equal(B, A.T)


def test_isl_reserved_names_are_usable():
    def f(n, min_, A):
        for mod in range(n):
            A[mod] = float(mod + min_)

    A = np.zeros(4)
    polyfuse.kernel(f, target="python")(4, 2, A)
    assert list(A) == [2, 3, 4, 5]
