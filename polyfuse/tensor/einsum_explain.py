"""Introspection: what :func:`polyfuse.tensor.einsum.einsum` does for a call, without running it.

:func:`einsum_path` gives an :class:`EinsumPath` (order, FLOPs, steps, fusion, fallback, BLAS
dispatch); :func:`explain` gives the generated kernel's ``explain()`` with an ``einsum`` section
in front.  Both build the plan (einsum_plan) and always compile the fused kernel, also when calls
would run numpy or BLAS.  Separate because it only reads plans and explanations; the call path
never needs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from polyfuse.errors import PolyfuseError
from polyfuse.tensor.einsum_gen import top_level_loops
from polyfuse.tensor.einsum_plan import _as_arrays, _Plan, _plan

if TYPE_CHECKING:
    from polyfuse.explain import Explanation


@dataclass
class EinsumPath:
    """What :func:`einsum` does for one call: order, FLOPs, fusion, fallback."""

    subscripts: str
    path: list[str | tuple[int, ...]]  # numpy style: ["einsum_path", (0, 1), ...]
    steps: list[str]  # each pairwise step, e.g. "ki,k->ki" ("." marks an ellipsis dimension)
    forms: list[str]  # elementwise | accumulate | update, per step
    flops: int
    naive_flops: int
    fused: list[dict[str, Any]]  # explain()["fusion"] of the generated kernel
    generated_nests: int  # top-level loop nests in the generated source (before fusion)
    loop_nests: int  # top-level loop nests after fusion
    fallback: str | None  # why calls with these arguments run numpy.einsum, or None
    source: str  # the generated kernel source
    loop_code: str
    dispatch: str | None = None  # "dispatched to BLAS matmul: ..." when calls run np.matmul, or None
    choices: list[str] = field(default_factory=list)  # per pairwise step: BLAS or fused loops, and why

    def __str__(self) -> str:
        lines = [f"einsum {self.subscripts}",
                 f"  order:        {self.path[1:]}",
                 f"  flops:        {self.flops} (naive {self.naive_flops})"]
        for n, (step, form) in enumerate(zip(self.steps, self.forms)):
            lines.append(f"  step {n}:       {step}  [{form}]")
        lines.append(f"  loop nests:   {self.generated_nests} generated -> {self.loop_nests} after fusion")
        for d in self.fused:
            verdict = "fused" if d.get("fused") else "not fused"
            lines.append(f"  fusion:       {', '.join(d['first'])} | {', '.join(d['second'])}: "
                         f"{verdict} -- {d['reason']}")
        for n, choice in enumerate(self.choices):
            lines.append(f"  dispatch {n}:   {choice}")
        if self.fallback:
            runs = f"numpy.einsum ({self.fallback})"
        elif self.choices:
            runs = f"BLAS steps + fused loops ({self.dispatch})"
        elif self.dispatch:
            runs = f"BLAS matmul ({self.dispatch})"
        else:
            runs = "polyfuse kernel"
        lines.append(f"  runs:         {runs}")
        return "\n".join(lines)


def _explained(subscripts: str, operands: tuple, out: Any, dtype: Any, optimize: Any, target: str,
               fuse: str, blas: bool) -> tuple[_Plan, _Plan, Explanation | None]:
    ops = _as_arrays(operands)
    actual = _plan(subscripts, ops, out, dtype, optimize, target, fuse, blas=bool(blas))
    compiled = actual if actual.kind == "kernel" else _plan(subscripts, ops, out, dtype, optimize, target,
                                                           fuse, force=True)
    if compiled.kind != "kernel":
        return actual, compiled, None
    assert compiled.kernel is not None, "a kernel plan has its kernel"
    args = []
    for op in ops:
        op = op.astype(compiled.cast) if compiled.cast is not None else op
        args.append(op.reshape(1) if op.ndim == 0 else op)
    dest = np.empty(compiled.out_shape or (1,), dtype=out.dtype if out is not None else compiled.out_dtype)
    return actual, compiled, compiled.kernel.explain(*args, dest)


def einsum_path(subscripts: str, *operands: Any, out: Any = None, dtype: Any = None, optimize: Any = True,
                target: str = "cpu", fuse: str = "smart", blas: bool = True) -> EinsumPath:
    """The contraction order, its FLOP count and the fusion polyfuse applies, for these operands.

    ``dispatch`` says when calls with these arguments run BLAS matmul instead of the loops (which
    are still compiled and described, as ``blas=False`` would run them)."""
    try:
        actual, compiled, explanation = _explained(subscripts, operands, out, dtype, optimize, target, fuse,
                                                   blas)
    except PolyfuseError as exc:
        raise exc.with_traceback(None) from None
    fallback = actual.reason if actual.kind == "numpy" else None
    dispatch = actual.reason if actual.kind in ("blas", "staged") else None
    choices = [c.describe() for c in actual.choices]
    if explanation is None:
        return EinsumPath(subscripts, ["einsum_path"], [], [], 0, 0, [], 0, 0, fallback, "", "", dispatch,
                          choices)
    path = compiled.path
    assert path is not None, "a kernel plan has its contraction path"
    return EinsumPath(
        subscripts, ["einsum_path", *path.steps], [s.description for s in compiled.steps],
        [s.form for s in compiled.steps], path.flops, path.naive_flops, list(explanation["fusion"]),
        top_level_loops(compiled.source),
        explanation.fused_loop_nests(), fallback, compiled.source, explanation["loop code"], dispatch,
        choices,
    )


def explain(subscripts: str, *operands: Any, out: Any = None, dtype: Any = None, optimize: Any = True,
            target: str = "cpu", fuse: str = "smart", blas: bool = True) -> Explanation:
    """``explain()`` of the generated kernel, with an ``einsum`` section and the generated source
    in front.  The ``einsum`` section says whether calls with these arguments run numpy or BLAS
    matmul instead."""
    from polyfuse.explain import Explanation

    try:
        actual, compiled, explanation = _explained(subscripts, operands, out, dtype, optimize, target, fuse,
                                                   blas)
    except PolyfuseError as exc:
        raise exc.with_traceback(None) from None
    runs = {"kernel": "polyfuse kernel", "numpy": f"numpy.einsum ({actual.reason})",
            "blas": f"BLAS matmul ({actual.reason})",
            "staged": f"BLAS steps + fused loops ({actual.reason})"}[actual.kind]
    head: dict[str, Any] = {"subscripts": subscripts, "runs": runs}
    for n, choice in enumerate(actual.choices):
        head[f"dispatch {n}"] = choice.describe()
    if compiled.kind == "kernel":
        assert compiled.path is not None, "a kernel plan has its contraction path"
        head["order"] = str(list(compiled.path.steps))
        head["flops"] = f"{compiled.path.flops} (naive {compiled.path.naive_flops})"
        for n, step in enumerate(compiled.steps):
            head[f"step {n}"] = f"{step.description} [{step.form}] -> {step.out.name}"
    sections: tuple = (("einsum", head),)
    if explanation is None:
        return Explanation(sections)
    return Explanation(sections + (("generated source", compiled.source),) + explanation.sections)
