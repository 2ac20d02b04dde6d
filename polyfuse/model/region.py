"""Opaque regions: code kept as written, one statement of the polyhedral model.

A ``while`` loop, a ``for`` loop whose bounds are not affine (``range(indptr[i], indptr[i + 1])``)
or a loop holding ``break``/``continue`` cannot be described by isl sets.  The frontend keeps the
smallest such loop as one statement whose body is a ``Region``: structured operations executed
in order, with expressions of :mod:`polyfuse.model.ir` (run-time subscripts are ``ir.Index``,
checked as everywhere).  The model sees only its accesses: what it may read and write, each
element it may write modelled as read and written back (so a may-write never hides an earlier
write from the dataflow).  Backends run the body as written; nothing inside it is transformed.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyfuse.model import ir


@dataclass(frozen=True)
class Assign:
    """``array[index] = value``; local scalars have an empty index."""

    array: str
    index: tuple[ir.Expr, ...]
    value: ir.Expr


@dataclass(frozen=True)
class While:
    cond: ir.Expr
    body: tuple[Op, ...]


@dataclass(frozen=True)
class ForRange:
    """``for var in range(start, stop, step)`` with bounds computed at run time (int64) and a
    constant non-zero step.  ``var`` exists only inside the loop."""

    var: str
    start: ir.Expr
    stop: ir.Expr
    step: int
    body: tuple[Op, ...]


@dataclass(frozen=True)
class IfElse:
    cond: ir.Expr
    then: tuple[Op, ...]
    otherwise: tuple[Op, ...] = ()


@dataclass(frozen=True)
class Break:
    pass


@dataclass(frozen=True)
class Continue:
    pass


#: The call the NumPy frontend writes for a product kept whole (frontend.array_linalg; a name no
#: kernel can use, frontend.lift turns it into a ``Matmul``): ``MATMUL_CALL(out[r, c], a[r, s],
#: b[s, c], rows, cols, depth, "r", "c", "s", *batch)``, each batch item a tuple ``("v", extent)``:
#: a variable of a stack of products (``X3 @ W``) and its extent, outermost first.
MATMUL_CALL = "_polyfuse_matmul"

#: Below this many multiply-adds (rows x cols x depth) a product is not worth a BLAS call: about
#: 1 us of dispatch and packing, what 32 x 32 x 32 multiply-adds take as loops.  Products known to
#: be smaller stay loops the scheduler can fuse; backends test it again per call.
BLAS_MIN_WORK = 32 * 32 * 32


@dataclass(frozen=True)
class Operand:
    """``array[index]`` with each subscript affine in a Matmul's variables (integer coefficients)."""

    array: str
    index: tuple[ir.Expr, ...]


@dataclass(frozen=True)
class Matmul:
    """``out[r, c] = sum(a[r, s] * b[s, c] for s < depth)`` for every ``r < rows``, ``c < cols``: a matrix
    product NumPy code wrote (``x @ W``, ``np.dot(A, v)``), kept whole so that it can run on BLAS.

    ``variables`` name r, c and s inside the operands' subscripts; a vector operand simply does not
    use r or c (its extent is 1).  The element each (r, c, s) touches is exact, so the model's
    accesses are exact rectangles.  :meth:`loops` is the meaning (and the backends' fallback where
    BLAS cannot run: other layouts, small sizes, no BLAS): the sum in index order.
    """

    out: Operand
    a: Operand
    b: Operand
    rows: ir.Expr
    cols: ir.Expr
    depth: ir.Expr
    variables: tuple[str, str, str]
    dtype: str
    # a stack of products (``X3 @ W``): (variable, extent) of each batch axis, outermost first;
    # one operand and ``out`` use them, and where their strides chain the stack is one product
    batch: tuple[tuple[str, ir.Expr], ...] = ()

    def loops(self) -> tuple[Op, ...]:
        nest = self.single_loops()
        for var, extent in reversed(self.batch):
            nest = (ForRange(var, ir.int_const(0), extent, 1, nest),)
        return nest

    def single_loops(self) -> tuple[Op, ...]:
        """One product of the stack (the batch variables keep their values)."""
        r, c, s = self.variables
        out = ir.Load(self.out.array, self.out.index, self.dtype)
        term = ir.BinOp("*", ir.Load(self.a.array, self.a.index, self.dtype),
                        ir.Load(self.b.array, self.b.index, self.dtype), self.dtype)
        total = ForRange(s, ir.int_const(0), self.depth, 1,
                         (Assign(out.array, out.index, ir.BinOp("+", out, term, self.dtype)),))
        zero = Assign(out.array, out.index, ir.Const(0.0, self.dtype, False))
        inner = ForRange(c, ir.int_const(0), self.cols, 1, (zero, total))
        return (ForRange(r, ir.int_const(0), self.rows, 1, (inner,)),)

    def describe(self) -> str:
        stack = "".join(f"{ir.to_python(extent)} x " for _, extent in self.batch)
        return (f"{self.out.array} = {self.a.array} @ {self.b.array} "
                f"({stack}{ir.to_python(self.rows)} x {ir.to_python(self.depth)} @ {ir.to_python(self.depth)} x "
                f"{ir.to_python(self.cols)})")


Op = Assign | While | ForRange | IfElse | Break | Continue | Matmul


@dataclass(frozen=True)
class Region:
    """The body of an opaque statement, and what ``explain()`` says about it.

    ``reads``/``writes`` name the arrays and scalars it may read or write; ``private`` are the
    scalars it writes before reading them and nobody reads outside it (modelled as written only).
    """

    body: tuple[Op, ...]
    reason: str  # "while loop", "break", "loop bound reads array indptr", ...
    line: int
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    private: tuple[str, ...] = ()

    def uses(self) -> tuple[str, ...]:
        """Every array or scalar whose value the region may depend on (may-writes included)."""
        return tuple(sorted((set(self.reads) | set(self.writes)) - set(self.private)))


def ops(body: tuple[Op, ...]):
    """Yield every operation of ``body``, nested ones included, parents first."""
    for op in body:
        yield op
        if isinstance(op, (While, ForRange)):
            yield from ops(op.body)
        elif isinstance(op, IfElse):
            yield from ops(op.then)
            yield from ops(op.otherwise)
        elif isinstance(op, Matmul):
            yield from ops(op.loops())


def expressions(body: tuple[Op, ...]):
    """Yield every top-level expression of ``body`` (conditions, bounds, indices, values)."""
    for op in ops(body):
        if isinstance(op, Assign):
            yield from op.index
            yield op.value
        elif isinstance(op, (While, IfElse)):
            yield op.cond
        elif isinstance(op, ForRange):
            yield op.start
            yield op.stop


def render(body: tuple[Op, ...], depth: int = 0) -> list[str]:
    """The body as Python lines (``explain()`` and the Python backend)."""
    pad = "    " * depth
    out: list[str] = []
    for op in body:
        if isinstance(op, Assign):
            index = ", ".join(ir.to_python(i) for i in op.index) if op.index else "()"
            out.append(f"{pad}{op.array}[{index}] = {ir.to_python(op.value)}")
        elif isinstance(op, While):
            out.append(f"{pad}while {ir.to_python(op.cond)}:")
            out += render(op.body, depth + 1) or [f"{pad}    pass"]
        elif isinstance(op, ForRange):
            out.append(f"{pad}for {op.var} in range({ir.to_python(op.start)}, {ir.to_python(op.stop)}, "
                       f"{op.step}):")
            out += render(op.body, depth + 1) or [f"{pad}    pass"]
        elif isinstance(op, Matmul):
            out.append(f"{pad}# matrix product {op.describe()}, on BLAS where the layout allows")
            out += render(op.loops(), depth)
        elif isinstance(op, IfElse):
            out.append(f"{pad}if {ir.to_python(op.cond)}:")
            out += render(op.then, depth + 1) or [f"{pad}    pass"]
            if op.otherwise:
                out.append(f"{pad}else:")
                out += render(op.otherwise, depth + 1)
        else:
            out.append(pad + ("break" if isinstance(op, Break) else "continue"))
    return out
