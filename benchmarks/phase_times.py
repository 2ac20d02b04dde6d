"""Where one NumPy program's time goes: each phase of the generated program timed alone, against
jax.jit's whole call and XLA's fusions.

    taskset -c 0 python benchmarks/phase_times.py attention 60 [preset=bench]

Every phase of the compiled program (``backends/cpu/phases.py``: a product kept whole and run on
BLAS, a fused loop nest, a parallel region) is timed by the process CPU time of its own foreign
call, minimum over rounds; the whole call and ``jax.jit``'s whole call are timed the same way in
the same rounds.  polyfuse runs on one thread with NumPy's BLAS on one thread (threadpoolctl),
XLA with its intra-op threads at 1: pinned to one core (``taskset -c 0``) this is the measure
that moved least with the load in session 19 (docs/performance.md).  Timed without native entries
(``POLYFUSE_NATIVE_ENTRY=0``) so that every phase goes through the Python runtime, which is
where the timer sits; a second kernel with native entries (as users run it) is timed whole.  The result is checked against the undecorated function.  Prints
XLA's entry computation (its fusions and library calls) with ``hlo``.
"""

from __future__ import annotations

import os
import sys
import time

os.environ["POLYFUSE_NATIVE_ENTRY"] = "0"
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402
import threadpoolctl  # noqa: E402
from polyfuse.backends.cpu import parallel  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.bench.machine import set_polyfuse_threads  # noqa: E402
from polyfuse.bench.numpy_suite import PROGRAMS, with_numpy_namespace  # noqa: E402
from polyfuse.model import region as rg  # noqa: E402
from polyfuse.model.loop_ast import statements_in  # noqa: E402


class TimedPhase:
    """A phase's foreign function with the CPU time of its latest call kept."""

    def __init__(self, function) -> None:
        self.function, self.seconds = function, 0.0

    def __call__(self, *args) -> None:
        began = time.process_time()
        self.function(*args)
        self.seconds += time.process_time() - began


def describe(program, phase) -> str:
    """The phase in a line: its product (operands, transposed or not) or its statements' source."""
    kind = "rows on BLAS" if phase.blas_rows else "parallel loop" if phase.parallel else (
        "region" if phase.is_region else "serial")
    texts, lines = [], set()
    for name in statements_in(phase.node):
        stmt = program.statement(name)
        body = stmt.region.body if stmt.region is not None else ()
        if len(body) == 1 and isinstance(body[0], rg.Matmul):
            op = body[0]
            texts.append(f"{op.out.array} = {operand(op.a, op.variables, 2)} @ {operand(op.b, op.variables, 0)}")
        else:
            lines.add(stmt.span.line)
    if lines:
        texts.append(f"{len(statements_in(phase.node))} statements of lines {min(lines)}-{max(lines)}")
    return f"{kind}: {', '.join(texts)}"


def operand(x: rg.Operand, variables: tuple[str, str, str], depth_axis_if_plain: int) -> str:
    """``A`` or ``A.T``: an operand whose sum index (the product's third variable) is on the axis a
    plain matrix has it on (rows of b, columns of a) or on the other one."""
    depth = variables[2]
    axes = [k for k, e in enumerate(x.index) if depth in {getattr(v, "name", None) for v in _vars(e)}]
    plain = {2: 1, 0: 0}[depth_axis_if_plain]
    return x.array if axes == [plain] or len(x.index) < 2 else f"{x.array}.T"


def _vars(expr):
    from polyfuse.model import ir
    return [e for e in ir.walk(expr) if isinstance(e, ir.Var)]


def jax_call(func, args):
    try:
        import jax
    except ImportError:
        return None, None
    jax.config.update("jax_enable_x64", True)
    jitted = jax.jit(with_numpy_namespace(func, jax.numpy))
    device = [jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    text = jitted.lower(*device).compile().as_text()
    return (lambda: jax.block_until_ready(jitted(*device))), text[text.index("ENTRY"):]


def main(argv: list[str]) -> None:
    name, rounds = argv[0], int(argv[1])
    options = dict(a.split("=", 1) for a in argv[2:] if "=" in a)
    program = PROGRAMS[name]
    args = program.args(options.get("preset", "bench"))
    expected = program.func(*args)
    threadpoolctl.threadpool_limits(1)
    set_polyfuse_threads(1)
    kernel = polyfuse.kernel(program.func, cache=False)
    for _ in range(2):  # (the second call makes the plan, without a native entry)
        np.testing.assert_allclose(kernel(*args), expected, rtol=1e-10, atol=1e-12)
    os.environ["POLYFUSE_NATIVE_ENTRY"] = "1"
    native = polyfuse.kernel(program.func, cache=False)  # (shares the compiled phases)
    for _ in range(2):  # its plan holds the phases' own addresses: made before they are wrapped
        np.testing.assert_allclose(native(*args), expected, rtol=1e-10, atol=1e-12)
    (variant,) = kernel._variants.values()
    backend, loops = variant.backend, variant.program
    timed = []
    parallel.NATIVE_TEAM = False  # (a team's phases through the wrappers, on more than one thread)
    for compiled in backend.phases:
        compiled._function = TimedPhase(compiled.function)
        timed.append(compiled)
    run_jax, hlo = jax_call(program.func, args)
    whole = {"polyfuse": lambda: kernel(*args), "polyfuse, native entry": lambda: native(*args),
             **({"jax.jit": run_jax} if run_jax else {})}
    best = dict.fromkeys([*whole, *range(len(timed))], float("inf"))
    for _ in range(rounds):
        for label, run in whole.items():
            for c in timed:
                c._function.seconds = 0.0
            began = time.process_time()
            run()
            best[label] = min(best[label], time.process_time() - began)
            if label == "polyfuse":
                for k, c in enumerate(timed):
                    best[k] = min(best[k], c._function.seconds)
    np.testing.assert_allclose(kernel(*args), expected, rtol=1e-10, atol=1e-12)
    load = open("/proc/loadavg").read().split()[0]
    print(f"{name} ({options.get('preset', 'bench')}): process CPU ms, min of {rounds} interleaved rounds, "
          f"one polyfuse thread, BLAS on one thread; load {load} on {os.cpu_count()} cores")
    for k, c in enumerate(timed):
        print(f"  phase {k}: {best[k] * 1e3:8.3f}  {describe(loops, c.phase)}")
    print(f"  phases together: {sum(best[k] for k in range(len(timed))) * 1e3:8.3f}")
    for label in whole:
        print(f"  {label} whole call: {best[label] * 1e3:8.3f}")
    if hlo and "hlo" in argv:
        print(hlo)


if __name__ == "__main__":
    main(sys.argv[1:])
