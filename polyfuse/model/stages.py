"""The pipeline's record: each stage's output, in order, with the seconds it took.

polyfuse.compiler fills it; ``explain()``, ``inspect_llvm()`` and the runtime only read it.
A pass that rewrites the loop AST records its decisions under its own name
(``decisions(name)``) and its program becomes the new ``"loop ast"``.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

LOOP_AST = "loop ast"


@dataclass
class Stages:
    """Outputs of the pipeline stages, in order, with the seconds each took."""

    outputs: OrderedDict = field(default_factory=OrderedDict)
    seconds: OrderedDict = field(default_factory=OrderedDict)
    records: dict[str, tuple] = field(default_factory=dict)  # a loop-AST pass's decisions, by pass name

    def run(self, name: str, fn, *args, **kwargs) -> Any:
        start = time.perf_counter()
        result = fn(*args, **kwargs)
        self.seconds[name] = time.perf_counter() - start
        self.outputs[name] = result
        return result

    def run_loop_pass(self, name: str, fn, program, **kwargs) -> Any:
        """Run ``fn(program) -> (program, decisions)``: the program replaces the loop AST, the
        decisions are kept under ``name``."""
        start = time.perf_counter()
        program, decisions = fn(program, **kwargs)
        self.seconds[name] = time.perf_counter() - start
        self.outputs[LOOP_AST] = program
        self.records[name] = tuple(decisions)
        return program

    def decisions(self, name: str) -> tuple:
        """What the stage ``name`` decided (() when it did not run)."""
        return self.records.get(name, ())

    def __getitem__(self, name: str) -> Any:
        return self.outputs[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self.outputs.get(name, default)

    def total_seconds(self) -> float:
        return sum(self.seconds.values())
