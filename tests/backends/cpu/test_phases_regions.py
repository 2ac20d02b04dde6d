"""``polyfuse.phases``: which phases may run as parallel regions, on hand-built loop ASTs (so the
decisions are tested whatever the scheduler makes of real kernels)."""

from __future__ import annotations

from dataclasses import replace

from polyfuse.backends.cpu.phases import plan_phases

from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, LoopProgram, StmtCall
from polyfuse.model.scop import ArrayInfo, Statement

N = ir.Var("n", ir.INT)


def loop(iterator: str, *body, parallel: bool = False, private: tuple[str, ...] = (), bounded: bool = True) -> For:
    var = ir.Var(iterator, ir.INT)
    cond = ir.Compare("<", var, N) if bounded else ir.Compare("!=", var, N)
    return For(iterator, ir.int_const(0), cond, 1, body[0] if len(body) == 1 else Block(body), parallel, private)


def program(root, statements: dict[str, tuple[str, tuple[str, ...]]], scalars=(), local_arrays=()) -> LoopProgram:
    """``statements``: name -> (array written, arrays read); A, B are arguments."""
    arrays = [ArrayInfo(a, "float64", (N,), "arg") for a in ("A", "B")]
    arrays += [ArrayInfo(s, "float64", (), "local") for s in scalars]
    arrays += [ArrayInfo(t, "float64", (N,), "local") for t in local_arrays]
    stmts = []
    for name, (written, read) in statements.items():
        value: ir.Expr = ir.Const(1.0, "float64")
        for array in read:
            value = ir.BinOp("+", value, ir.Load(array, (), "float64"), "float64")
        stmts.append(Statement(name, (), written, (), value, None, 0, None, None, None))  # type: ignore[arg-type]
    return LoopProgram("k", root, (), ("n",), tuple(arrays), tuple(stmts))


def call(name: str) -> StmtCall:
    return StmtCall(name, ())


def region_of(prog: LoopProgram):
    (phase,) = plan_phases(prog)
    return phase.region


def test_time_loop_with_two_parallel_loops_is_a_region_with_two_barriers():
    prog = program(loop("t", loop("i", call("S0"), parallel=True), loop("i", call("S1"), parallel=True)),
                   {"S0": ("B", ("A",)), "S1": ("A", ("B",))})
    region = region_of(prog)
    assert region.region and region.barriers == 2 and region.serial_sections == 0
    assert region.parallel_loops == ("i (depth 1)", "i (depth 1)")


def test_statements_outside_parallel_loops_are_one_serial_section():
    prog = program(loop("t", call("S0"), call("S1"), loop("i", call("S2"), parallel=True)),
                   {"S0": ("B", ()), "S1": ("B", ()), "S2": ("A", ("B",))})
    region = region_of(prog)
    assert region.region and region.serial_sections == 1 and region.barriers == 2


def test_a_sequential_loop_at_the_parallel_level_runs_whole_on_thread_0():
    inner = loop("k", loop("j", call("S1"), parallel=True))  # would need a barrier per k
    prog = program(loop("t", loop("i", call("S0"), parallel=True), inner),
                   {"S0": ("B", ("A",)), "S1": ("A", ("B",))})
    region = region_of(prog)
    assert region.parallel_loops == ("i (depth 1)",) and region.serial_sections == 1


def test_no_parallel_loop_no_region_and_parallel_outer_loop_is_a_parallel_phase():
    assert region_of(program(loop("t", loop("i", call("S0"))), {"S0": ("A", ())})) is None
    (phase,) = plan_phases(program(loop("i", loop("t", call("S0")), parallel=True), {"S0": ("A", ())}))
    assert phase.parallel and phase.region is None


def test_private_scalar_written_before_read_is_allowed():
    body = (call("S0"), call("S1"))  # s = A; B = s
    prog = program(loop("t", loop("i", *body, parallel=True, private=("s",))),
                   {"S0": ("s", ("A",)), "S1": ("B", ("s",))}, scalars=("s",))
    assert region_of(prog).region


def test_private_scalar_read_before_written_is_refused():
    body = (call("S1"), call("S0"))  # B = s; s = A: s could come from an earlier time step
    prog = program(loop("t", loop("i", *body, parallel=True, private=("s",))),
                   {"S0": ("s", ("A",)), "S1": ("B", ("s",))}, scalars=("s",))
    region = region_of(prog)
    assert not region.region and "'s'" in region.reason and "earlier iteration" in region.reason


def test_register_scalar_shared_by_a_serial_section_and_a_loop_is_refused():
    prog = program(loop("t", call("S0"), loop("i", call("S1"), parallel=True)),
                   {"S0": ("s", ("B",)), "S1": ("A", ("s",))}, scalars=("s",))
    region = region_of(prog)
    assert not region.region and "more than one part" in region.reason


def test_private_local_array_is_refused():
    prog = program(loop("t", loop("i", call("S0"), call("S1"), parallel=True, private=("T",))),
                   {"S0": ("T", ("A",)), "S1": ("B", ("T",))}, local_arrays=("T",))
    region = region_of(prog)
    assert not region.region and "privatises 'T'" in region.reason


def test_parallel_loop_without_simple_bound_is_refused():
    prog = program(loop("t", loop("i", call("S0"), parallel=True, bounded=False)), {"S0": ("A", ())})
    region = region_of(prog)
    assert not region.region and "upper bound" in region.reason


def test_consecutive_serial_nodes_join_into_one_phase():
    prog = program(Block((call("S0"), call("S1"), loop("i", call("S2"), parallel=True), call("S3"),
                          loop("i", call("S4")))),
                   {"S0": ("A", ()), "S1": ("B", ()), "S2": ("A", ("B",)), "S3": ("B", ()), "S4": ("A", ())})
    phases = plan_phases(prog)
    assert [p.index for p in phases] == [0, 1, 2]
    assert [p.parallel for p in phases] == [False, True, False]
    assert phases[0].node == Block((call("S0"), call("S1")))
    assert phases[2].node == Block((call("S3"), loop("i", call("S4"))))


def test_a_region_keeps_its_own_phase_and_its_renumbered_decision():
    prog = program(Block((call("S0"), call("S1"), loop("t", loop("i", call("S2"), parallel=True)))),
                   {"S0": ("A", ()), "S1": ("B", ()), "S2": ("A", ("B",))})
    first, second = plan_phases(prog)
    assert first.region is None and second.index == 1 and second.region.phase == 1 and second.region.region


def test_serial_nodes_stay_apart_where_a_subscript_is_checked_at_run_time():
    """The runtime raises a bad subscript's IndexError after the phase that met it: no later
    statement may have run by then."""
    prog = program(Block((call("S0"), call("S1"))), {"S0": ("A", ()), "S1": ("B", ())})
    gather = ir.Index(ir.Load("B", (), "int64"), N, "A", 0)
    checked = replace(prog.statements[0], value=ir.Load("A", (gather,), "float64"))
    prog = replace(prog, statements=(checked, prog.statements[1]))
    assert len(plan_phases(prog)) == 2


def test_a_value_check_keeps_phases_apart_only_where_an_argument_is_written():
    """A value check (ir.Check: an assert, OverflowError, ZeroDivisionError) raises after the
    phase that met it; later phases may run first where they write only the kernel's own arrays
    (the caller never sees them when the error is raised), not where they write an argument."""
    check = ir.Check(ir.Load("B", (), "int64"), ir.int_const(1), "", 0, error="ZeroDivisionError")
    for written, apart in (("T", False), ("A", True)):
        prog = program(Block((call("S0"), call("S1"))), {"S0": ("T", ()), "S1": (written, ())}, local_arrays=("T",))
        checked = replace(prog.statements[0], value=ir.BinOp("+", ir.Const(1.0, "float64"), ir.Cast(check, "float64"),
                                                            "float64"))
        prog = replace(prog, statements=(checked, prog.statements[1]))
        assert (len(plan_phases(prog)) == 2) is apart, written
