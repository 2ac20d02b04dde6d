"""Dependence analysis (polyfuse.dependences) on small programs lifted by the frontend."""

from __future__ import annotations

import islpy as isl
import numpy as np
import pytest
from conftest import check_against_python, define
from polyfuse.frontend import lift

import polyfuse
from polyfuse.analysis.dependences import compute_dependences
from polyfuse.runtime.signature import argument_of


def scop_of(fn, *values):
    import inspect

    names = list(inspect.signature(fn).parameters)
    return lift(fn, tuple(argument_of(n, v) for n, v in zip(names, values)))


def kinds(deps):
    return {(d.kind, d.array) for d in deps.items}


def producer_consumer(n, A, B, C):
    for i in range(n):
        B[i] = A[i] + 1.0
    for i in range(n):
        C[i] = B[i] * 2.0


def test_raw_between_producer_and_consumer():
    scop = scop_of(producer_consumer, 4, np.zeros(4), np.zeros(4), np.zeros(4))
    deps = compute_dependences(scop)
    assert kinds(deps) == {("RAW", "B")}
    (dep,) = deps.items
    assert dep.statement_pairs() == [("S0", "S1")]
    assert not dep.local
    # value-based: S0[i] -> S1[i] exactly (compare by meaning, not by text)
    expected = isl.UnionMap("[n, A__shape0, B__shape0, C__shape0] -> { S0[i] -> S1[i] : 0 <= i < n }")
    got = dep.relation.intersect_params(scop.context)
    assert got.is_equal(expected.intersect_params(scop.context))


def anti_and_output(n, A, B):
    for i in range(n):
        B[i] = A[i + 1]
    for i in range(n):
        A[i] = 2.0
    for i in range(n):
        A[i] = 3.0


def test_war_and_waw():
    scop = scop_of(anti_and_output, 4, np.zeros(5), np.zeros(4))
    deps = compute_dependences(scop)
    found = kinds(deps)
    assert ("WAR", "A") in found
    assert ("WAW", "A") in found
    assert ("RAW", "A") not in found
    war = next(d for d in deps.items if d.kind == "WAR")
    assert ("S0", "S1") in war.statement_pairs()
    # S0 reads A[i+1]; S1 overwrites A[i+1] at iteration i+1
    rel = war.relation
    probe = isl.UnionMap("[n, A__shape0, B__shape0] -> { S0[i] -> S1[i + 1] : 0 <= i < n - 1 }")
    assert probe.intersect_params(scop.context).is_subset(rel)
    waw = next(d for d in deps.items if d.kind == "WAW")
    assert ("S1", "S2") in waw.statement_pairs()


def test_loop_carried_raw_in_stencil():
    def prefix(n, A):
        for i in range(1, n):
            A[i] = A[i - 1] + A[i]

    scop = scop_of(prefix, 5, np.zeros(5))
    deps = compute_dependences(scop)
    raw = next(d for d in deps.items if d.kind == "RAW")
    expected = isl.UnionMap("[n, A__shape0] -> { S0[i] -> S0[i + 1] : 1 <= i < n - 1 }")
    assert raw.relation.intersect_params(scop.context).is_equal(expected.intersect_params(scop.context))


def test_local_arrays_and_scalars_are_marked_local():
    def f(n, A, B):
        T = np.empty((n,))
        for i in range(n):
            T[i] = A[i]
        for i in range(n):
            s = T[i] * 2.0
            B[i] = s

    scop = scop_of(f, 4, np.zeros(4), np.zeros(4))
    deps = compute_dependences(scop)
    local = {(d.kind, d.array) for d in deps.items if d.local}
    assert ("RAW", "T") in local
    assert ("RAW", "s") in local
    assert ("WAR", "s") in local or ("WAW", "s") in local
    assert all(d.local == (d.array in ("T", "s")) for d in deps.items)
    # local false dependences are not hard validity constraints
    assert deps.local_false().is_subset(deps.union(("WAR", "WAW")))
    assert not deps.validity().intersect(deps.local_false()).is_equal(deps.local_false()) \
        or deps.local_false().is_empty()


def test_explain_lists_dependences():
    k = polyfuse.kernel(producer_consumer, target="python", verify=True)
    e = k.explain(4, np.zeros(4), np.zeros(4), np.zeros(4))
    deps = e["dependences"]
    assert [(d["kind"], d["array"], d["pairs"]) for d in deps] == [("RAW", "B", ["S0 -> S1"])]
    assert "RAW on B" in str(e)


def test_no_dependences_between_independent_nests():
    def f(n, A, B, C, D):
        for i in range(n):
            B[i] = A[i]
        for i in range(n):
            D[i] = C[i]

    scop = scop_of(f, 3, *(np.zeros(3) for _ in range(4)))
    assert compute_dependences(scop).items == ()


def test_scalar_read_before_write_in_program_order_is_rejected():
    src = (
        "def f(n, A):\n"
        "    for i in range(n):\n"
        "        if i > 0:\n"
        "            A[i] = s\n"
        "        s = A[i]\n"
    )
    fn = define(src, "f")
    with pytest.raises(polyfuse.UnsupportedError, match="'s'"):
        polyfuse.kernel(fn, target="python")(3, np.zeros(3))


SCALAR_UNDER_FLOOR_GUARD = '''def kern(n, A, M):
    acc = 2.0
    for i in range(n + 1, 1, -2):
        for j in range(i - 2, n):
            acc = i
            if i - 4 >= i // 2:
                acc = j
    M[0] += acc
'''


def test_scalar_isl_cannot_check_is_checked_without_its_dataflow():
    """isl's must-source analysis fails on ``acc``'s writes here ("affine expression involves some
    of the domain dimensions"; cpu_campaign seed 24042, round 17, example 3), which made the check
    that every scalar is assigned before it is read an InternalError on every variant."""
    fn = define(SCALAR_UNDER_FLOOR_GUARD, "kern")
    kernel = polyfuse.kernel(fn, target="cpu", verify=True)
    for n in (0, 1, 4, 9):
        check_against_python(fn, (n, np.zeros(3), np.arange(12.0)), kernel=kernel)


def test_unassigned_scalar_is_found_without_isls_dataflow(monkeypatch):
    """When isl's dataflow fails, the scalar check's memory-based fallback still finds a read no
    write precedes (and none in the program above)."""
    import polyfuse.analysis.dependences as dependences

    def failing(*args, **kwargs):
        raise isl.Error("isl fails")

    monkeypatch.setattr(dependences, "flow", failing)
    src = "def f(n, A):\n    for i in range(n):\n        if i > 0:\n            A[i] = s\n        s = A[i]\n"
    with pytest.raises(polyfuse.UnsupportedError, match="'s'"):
        dependences.check_scalars_defined(scop_of(define(src, "f"), 3, np.zeros(3)))
    dependences.check_scalars_defined(scop_of(define(SCALAR_UNDER_FLOOR_GUARD, "kern"), 4, np.zeros(3), np.zeros(12)))


STRIDED_KILLS = '''def kern(n, alpha, A, M, B):
    for rep in range(2):
        for i in range(0, n, 3):
            s = M[0][(i + 4) // 2]
            for j in range(n):
                s = min(s, B[n + -1 - j])
            B[i] /= (1.5 + abs(s))
        for i in range(n + 2 - 1, 1, -3):
            M[n + 1 - i][i + 2] *= 0.5 + 0.25 * np.tanh(np.ceil((2.0 if 2.0 <= 0.5 and A[i] != 1.0 else 0.5)))
            for j in range(max(0, i - 2 - 2), n):
                A[3] -= M[j + 1, i + 1]
                M[2][2] -= np.cos(math.floor(0.25))
        for i in range(n):
            B[n + -1 - i] = (float(i) - min(M[i + 3, i], B[n + -1 - i], 0.5))
            for j in range(n - 1, -1, -2):
                B[(j + 2) % 3] += max(math.sin(n), M[(j + 4) % 3, i + 4])
'''


STRIDED_OVERWRITES = '''def kern(n, alpha, A, M):
    for i in range(0, n - 1):
        M[i, i + 4] *= 0.5 + 0.25 * np.tanh((M[i][i] % -2.0))
    for i in range(0, n, 2):
        for j in range(0, min(n, i + 2)):
            t = i
            for k in range(i, n):
                t *= 0.5 + 0.25 * np.tanh(float(k))
                t = (np.ceil(t) * min(M[k][i], 2.0, 0.5))
            A[n + -1 - j] = t
            for k in range(2, i + 2):
                A[(j + 4) % 4] = np.log(1.0 + abs(np.fabs(i)))
                M[j, k + 2] = ((float(n) / (1.0 + abs(A[i + 1]))) if (float(n) / (1.0 + abs(A[i + 1]))) > (M[(i + 2) // 3][i] // 1.5) else (M[(i + 2) // 3][i] // 1.5))
'''


@pytest.mark.parametrize("source, args", [
    (STRIDED_KILLS, (5, 0.75, np.random.default_rng(0).random(9), np.random.default_rng(1).random((9, 9)),
                     np.random.default_rng(2).random(9))),
    (STRIDED_OVERWRITES, (9, 0.75, np.random.default_rng(0).random(20), np.random.default_rng(1).random((20, 20)))),
], ids=["kills of A (WAR)", "overwrites of A (WAW)"])
@pytest.mark.parametrize("fuse", ["none", "smart", "max"])
def test_dependences_isl_cannot_compute_fall_back_to_memory_based_ones(source, args, fuse):
    """isl's compute_flow fails on these programs (found by the random-program generator): on
    the kills of A in the first, on the must-sources of A's writes in the second.  Those
    dependences are then memory-based (a safe superset) instead of failing the compile."""
    fn = define("import math\nimport numpy as np\n" + source, "kern")
    check_against_python(fn, args, fuse=fuse)


MODULO_LAST_WRITER = '''def kern(n, alpha, A, M, B):
    T = np.empty((n + 4,), dtype=np.float64)
    for i in range(n + 4):
        T[i] = float(i) * 0.5
    for i in range(n):
        s = (T[i + 4] + A[i])
        for j in range(n + 2 - 1, 1, -2):
            s += alpha * 0.0
            s = alpha * A[i]
            B[i + 2] = ((T[j + 1] + 0.25) + (0.0 + A[i]))
        M[0][i] = s
    for i in range(n):
        A[i] = A[i]
    acc = 0.0
    for i in range(n - 1, -1, -3):
        acc += (0.0 + 0.0)
        if i % 3 != 1:
            A[0] = 0.0
        elif i + i < n:
            T[(i) % 4] -= -0.5
    B[1] /= (1.5 + abs(T[3]))
'''


@pytest.mark.parametrize("fuse", ["none", "smart", "max"])
def test_wrong_exact_dataflow_is_caught(fuse):
    """isl's must-source analysis names ``T[i] = ...`` (i = 3) as the last writer of ``T[3]`` for the
    final statement, missing ``T[i % 4] -= ...`` at i = 7 (n = 17): fuse="max" then moved the final
    statement before the loop and both the scheduler and the verifier accepted it (found by a
    randomized hypothesis run).  exact_flow checks isl's answer against the memory-based one."""
    from polyfuse.analysis.dependences import exact_flow, on_array

    fn = define("import numpy as np\n" + MODULO_LAST_WRITER, "kern")
    rng = np.random.default_rng(1663)
    args = (17, 0.5, rng.standard_normal(21), rng.standard_normal((21, 21)), rng.standard_normal(21))
    check_against_python(fn, args, fuse=fuse)
    scop = scop_of(fn, *args)
    with pytest.raises(isl.Error, match="not the last"):
        exact_flow(on_array(scop.reads(), "T"), on_array(scop.writes(), "T"), scop.schedule)


def test_earlier_writes_are_isls_may_dataflow_without_kills():
    """exact_flow's check builds every earlier write of a read element directly
    (``_earlier_writes``): the same relation as isl's may-dataflow without kills."""
    from polyfuse.analysis.dependences import _earlier_writes, on_array
    from polyfuse.model.scop import isl_name

    fn = define("import numpy as np\n" + MODULO_LAST_WRITER, "kern")
    rng = np.random.default_rng(1663)
    scop = scop_of(fn, 17, 0.5, rng.standard_normal(21), rng.standard_normal((21, 21)), rng.standard_normal(21))
    timed = scop.schedule.get_map()
    for info in scop.arrays:
        reads, writes = on_array(scop.reads(), isl_name(info.name)), on_array(scop.writes(), isl_name(info.name))
        if reads.is_empty() or writes.is_empty():
            continue
        read_times, write_times = reads.domain_map().apply_range(timed), timed.intersect_domain(writes.domain())
        info_flow = isl.UnionAccessInfo.from_sink(reads.range_map()).set_may_source(writes)
        expected = info_flow.set_schedule_map(read_times.union(write_times)).compute_flow().get_may_dependence()
        direct = _earlier_writes(writes, reads.range_map(), read_times, write_times, timed)
        assert direct is not None and direct.is_equal(expected), info.name


# carries and runs_before compose the dependences with a schedule one piece at a time; the
# reference below composes the whole union at once (what they computed before): same answers.

TILED_PREFIXES = [
    # one statement, time-skewed tiles (floors), then its point loops
    "[n] -> { S0[t, i] -> [floor((t + i)/4)] }",
    "[n] -> { S0[t, i] -> [floor((t + i)/4), t] }",
    "[n] -> { S0[t, i] -> [floor((t + i)/4), t, t + i] }",
    # two statements, one of them shifted
    "[n] -> { S0[t, i] -> [t, i]; S1[t, i] -> [t, i + 1] }",
    "[n] -> { S0[t, i] -> [floor(t/2), i]; S1[t, i] -> [floor(t/2), i + 1] }",
    "[n] -> { S0[t, i] -> [i]; S1[t, i] -> [i] }",
    # only S1 in the prefix's domain: S0's pairs are not considered
    "[n] -> { S1[t, i] -> [t] : i > 2 }",
]

PIECEWISE_DEPENDENCES = [
    "[n] -> { S0[t, i] -> S0[t + 1, i] : 0 <= t < n and 0 <= i < n; "
    "S0[t, i] -> S0[t + 1, i - 1] : 0 <= t < n and 0 < i < n; S0[t, i] -> S0[t, i + 1] : 0 <= t < n and 0 <= i < n }",
    "[n] -> { S0[t, i] -> S1[t, i] : 0 <= t < n and 0 <= i < n; S1[t, i] -> S0[t + 1, i + 1] : 0 <= t < n and 0 <= i < n; "
    "S1[t, i] -> S1[t + 1, i] : 0 <= t < n and 0 <= i < n }",
    "[n] -> { S1[t, i] -> S1[t, i + 1] : 0 <= t < n and 0 <= i < n and i != 3 }",
    "[n] -> { S0[t, i] -> S0[t, i] : 0 <= t < n and 0 <= i < n }",
    "[n] -> { S0[t, i] -> S0[t + 1, i] : false }",
]


def _carries_whole(deps, prefix, context):
    domain = prefix.domain()
    deps = deps.intersect_domain(domain).intersect_range(domain)
    found = []

    def check(delta):
        names = [f"d{i}" for i in range(delta.dim(isl.dim_type.set))]
        outer = " and ".join(f"{x} = 0" for x in names[:-1]) or "true"
        carried = isl.Set(f"{{ [{', '.join(names)}] : {outer} and ({names[-1]} < 0 or {names[-1]} > 0) }}")
        hit = delta.intersect(carried.align_params(delta.get_space()))
        found.append(not hit.intersect_params(context.align_params(delta.get_space())).is_empty())

    deps.apply_domain(prefix).apply_range(prefix).deltas().foreach_set(check)
    return any(found)


def _runs_before_whole(pairs, order):
    times = pairs.apply_domain(order).apply_range(order)
    found = []

    def check(delta):
        names = [f"d{i}" for i in range(delta.dim(isl.dim_type.set))]
        cases = [" and ".join([f"{x} = 0" for x in names[:k]] + [f"{names[k]} < 0"]) for k in range(len(names))]
        cases.append(" and ".join(f"{x} = 0" for x in names) or "true")
        later_or_same = isl.Set(f"{{ [{', '.join(names)}] : {' or '.join(f'({c})' for c in cases)} }}")
        found.append(not delta.intersect(later_or_same.align_params(delta.get_space())).is_empty())

    times.deltas().foreach_set(check)
    return not any(found)


@pytest.mark.parametrize("prefix", TILED_PREFIXES)
@pytest.mark.parametrize("deps", PIECEWISE_DEPENDENCES)
def test_piecewise_carries_and_runs_before_match_the_whole_composition(deps, prefix):
    from polyfuse.analysis.dependences import carries, runs_before, runs_before_subset

    deps, prefix = isl.UnionMap(deps), isl.UnionMap(prefix)
    context = isl.Set("[n] -> { : n >= 8 }")
    assert carries(deps, prefix, context) == _carries_whole(deps, prefix, context)
    assert runs_before(deps, prefix) == _runs_before_whole(deps, prefix)
    assert runs_before_subset(deps, prefix) == _runs_before_whole(deps, prefix)


def test_exact_flow_is_remembered_by_the_text_of_its_arguments():
    """Within one compile (``compile_memo``), and only there: a compile that found its dataflow
    computed by an earlier one would count fewer isl operations (tests/end_to_end/test_compile_deadline.py)."""
    from polyfuse.analysis.dependences import exact_flow
    from polyfuse.model.isl_budget import compile_memo

    def arguments(schedule):
        sink = isl.UnionMap("[n] -> { S1[i] -> A[i - 1] : 0 < i < n }")
        source = isl.UnionMap("[n] -> { S0[i] -> A[i] : 0 <= i < n }")
        return sink, source, isl.Schedule(schedule)

    in_order = '{ domain: "[n] -> { S0[i] : 0 <= i < n; S1[i] : 0 < i < n }", child: { sequence: [ ' \
        '{ filter: "[n] -> { S0[i] }" }, { filter: "[n] -> { S1[i] }" } ] } }'
    reversed_order = in_order.replace('"[n] -> { S0[i] }"', '"[n] -> { X[i] }"') \
        .replace('"[n] -> { S1[i] }"', '"[n] -> { S0[i] }"').replace('"[n] -> { X[i] }"', '"[n] -> { S1[i] }"')
    with compile_memo():
        first = exact_flow(*arguments(in_order))
        assert exact_flow(*arguments(in_order)) is first  # equal arguments, new isl objects: remembered
        assert exact_flow(*arguments(in_order), checked=False) is not first  # the check is part of the question
        other = exact_flow(*arguments(reversed_order))  # another schedule: another answer
    with compile_memo():
        assert exact_flow(*arguments(in_order)) is not first  # the next compile computes its own
    assert exact_flow(*arguments(in_order)) is not exact_flow(*arguments(in_order))  # outside one: anew
    assert first.must.is_equal(isl.UnionMap("[n] -> { S0[i] -> S1[i + 1] : 0 <= i < n - 1 }"))
    assert other.must.is_empty() and not other.no_source.is_empty()


def test_dataflow_questions_ignore_statements_that_do_not_touch_the_array():
    """exact_flow and killed_flow ask about the accessing statements' own order (``accessing``):
    the same answer as on the whole schedule, and the same question (remembered) when only a
    statement that does not touch the array changed."""
    from polyfuse.analysis.dependences import _exact_flow, exact_flow, flow, killed_flow
    from polyfuse.model.isl_budget import compile_memo

    sink = isl.UnionMap("[n] -> { S2[i] -> A[i - 1] : 0 < i < n }")
    source = isl.UnionMap("[n] -> { S0[i] -> A[i] : 0 <= i < n; S2[i] -> A[i] : 0 <= i < n }")

    def schedule(other):  # S1 touches B only
        return isl.Schedule(
            '{ domain: "[n] -> { S0[i] : 0 <= i < n; S1[i] : 0 <= i < n; S2[i] : 0 <= i < n }", child: { '
            f'schedule: "[n] -> [{{ S0[i] -> [(i)]; S1[i] -> [({other})]; S2[i] -> [(i)] }}]", child: {{ sequence: [ '
            '{ filter: "[n] -> { S0[i] }" }, { filter: "[n] -> { S1[i] }" }, { filter: "[n] -> { S2[i] }" } ] } } }')

    with compile_memo():
        first = exact_flow(sink, source, schedule("i"))
        whole = _exact_flow(sink, source, schedule("i"))
        assert first.must.is_equal(whole.must) and first.no_source.is_equal(whole.no_source)
        assert first.must.is_equal(isl.UnionMap("[n] -> { S2[i] -> S2[i + 1] : 0 <= i < n - 1 }"))
        assert exact_flow(sink, source, schedule("n - 1 - i")) is first  # only S1 moved
        ahead = isl.UnionMap("[n] -> { S2[i] -> A[i + 1] : 0 <= i < n - 1 }")
        war = killed_flow(source, ahead, schedule("i"), source)
        expected = flow(source, ahead, schedule("i"), may=True, kill=source).get_may_dependence()
        assert war.is_equal(expected)
        assert war.is_equal(isl.UnionMap("[n] -> { S2[i] -> S0[i + 1] : 0 <= i < n - 1 }"))
        assert killed_flow(source, ahead, schedule("n - 1 - i"), source) is war


def test_piece_deltas_are_remembered_within_a_compile():
    """piece_deltas keeps each piece's composition for the rest of the compile (by text): the
    same sets come back for the same pieces and times, and carries/runs_before answer as the
    whole composition does on the remembered ones too."""
    from polyfuse.analysis.dependences import carries, piece_deltas, runs_before
    from polyfuse.model.isl_budget import compile_memo

    context = isl.Set("[n] -> { : n >= 8 }")
    with compile_memo():
        for text in PIECEWISE_DEPENDENCES[:3]:
            deps = isl.UnionMap(text)
            for prefix in map(isl.UnionMap, TILED_PREFIXES[3:6]):
                first = list(piece_deltas(deps, prefix))
                again = list(piece_deltas(isl.UnionMap(text), prefix))
                assert len(first) == len(again) and all(a is b for a, b in zip(first, again))
                assert carries(deps, prefix, context) == _carries_whole(deps, prefix, context)
                assert runs_before(deps, prefix) == _runs_before_whole(deps, prefix)
