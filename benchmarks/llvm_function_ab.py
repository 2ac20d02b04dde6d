"""LLVM's work on one generated function under knob settings, interleaved in one process.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/llvm_function_ab.py attention_rows phase1 6 \
        rare= plain=POLYFUSE_RARE_LOOPS:0 [--passes] [--preset bench] [--save DIR]

The kernel (a suite kernel, or ``np:NAME`` for a NumPy program) is compiled at the preset's sizes
under each contender's knobs (``LABEL=KNOB:VALUE/KNOB:VALUE``, ``LABEL=`` alone: the defaults),
and the function whose name ends with the given suffix is taken as the backend left it
(``LLVMKernel.pending``: the IR the first call would optimise).  Then each round runs, for every
contender in turn, what the first call runs on it (backends/cpu/llvm.py ``_generated``): parse,
``optimize``, print and parse again, and code generation (``emit_object`` of a fresh host target
machine); printed: the minimum thread CPU of the optimiser and of the rest over the rounds, and
the instruction counts before and after the optimiser.  The timing leaves out every other
stage, so it moves far less with the machine's load than a whole compile does.  ``--passes``:
LLVM's pass timing report of one more run per contender (``llvm.set_time_passes``), its largest
lines.  ``--save DIR``: each contender's IR as ``DIR/LABEL.ll``, for experiments by hand.
"""

from __future__ import annotations

import argparse
import os
import time

import llvmlite.binding as llvm
import numpy as np
from knobs import knobs_set  # (benchmarks/knobs.py: this script's folder is on sys.path)
from polyfuse.backends.cpu import llvm as cpu_llvm

import polyfuse
from polyfuse.bench import numpy_suite, suite


def _function_ir(name: str, suffix: str, preset: str) -> tuple[str, str]:
    """(function name, its IR before the optimiser) of the kernel compiled at ``preset``."""
    if name.startswith("np:"):
        program = numpy_suite.PROGRAMS[name[3:]]
        func, args = program.func, program.args(preset)
    else:
        spec = suite.get(name)
        func, args = spec.func, spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
    backend = polyfuse.kernel(func).compile(*args).backend
    found = [f for f in backend.pending if f.endswith(suffix)]
    if len(found) != 1:
        raise SystemExit(f"{name}: functions {sorted(backend.pending)}; none or several end with {suffix!r}")
    return found[0], backend.pending[found[0]]


def _count(module) -> int:
    return sum(1 for fn in module.functions for block in fn.blocks for _ in block.instructions)


def _run(text: str, artifact, name: str) -> tuple[float, float, int, int]:
    """(optimiser s, code generation s, instructions before, after) of one first-call generation."""
    start = time.thread_time()
    module = llvm.parse_assembly(text)
    cpu_llvm.optimize(module, artifact, name)
    optimised = time.thread_time()
    after = _count(module)
    machine = cpu_llvm._target_machine(cpu_llvm._initialize(), gathers=artifact.gathers)
    machine.emit_object(llvm.parse_assembly(str(module)))
    return optimised - start, time.thread_time() - optimised, _count(llvm.parse_assembly(text)), after


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kernel")
    parser.add_argument("function", help="the end of the function's name (phase1, phase0.region)")
    parser.add_argument("rounds", type=int)
    parser.add_argument("contenders", nargs="+")
    parser.add_argument("--preset", default="test")
    parser.add_argument("--passes", action="store_true")
    parser.add_argument("--save")
    opts = parser.parse_args()
    taken = {}
    for contender in opts.contenders:
        label, _, spec = contender.partition("=")
        knobs = dict(item.split(":", 1) for item in spec.split("/") if item)
        with knobs_set(knobs):
            taken[label] = _function_ir(opts.kernel, opts.function, opts.preset)
        if opts.save:
            os.makedirs(opts.save, exist_ok=True)
            with open(os.path.join(opts.save, f"{label}.ll"), "w") as out:
                out.write(taken[label][1])
    artifact = _Artifact()
    best: dict[str, list[float]] = {label: [float("inf"), float("inf"), 0.0, 0.0] for label in taken}
    for _ in range(opts.rounds):
        for label, (function, text) in taken.items():
            opt, gen, before, after = _run(text, artifact, function)
            row = best[label]
            row[0], row[1], row[2], row[3] = min(row[0], opt), min(row[1], gen), before, after
    print(f"{opts.kernel} {opts.function}, {opts.preset} sizes, min of {opts.rounds}, load "
          f"{os.getloadavg()[0]:.1f}; thread CPU ms:")
    for label, (opt, gen, before, after) in best.items():
        print(f"  {label:12s} opt {opt * 1e3:6.0f}  codegen {gen * 1e3:6.0f}  sum {(opt + gen) * 1e3:6.0f}"
              f"   {before:5.0f} -> {after:5.0f} instructions")
    if opts.passes:
        for label, (function, text) in taken.items():
            llvm.set_time_passes(True)
            _run(text, artifact, function)
            report = llvm.report_and_reset_timings()
            llvm.set_time_passes(False)
            print(f"== {label}: LLVM's pass timings")
            lines = [line for line in report.splitlines() if "%)" in line]
            print("\n".join(lines[:12]))


class _Artifact:
    """What ``optimize`` reads of an LLVMArtifact: the defaults' settings (O3, gathers allowed,
    per-row alias checks, GVN's load PRE on)."""

    opt_level = 3
    gathers = True
    row_alias_checks = True
    without_load_pre: tuple[str, ...] = ()


if __name__ == "__main__":
    main()
