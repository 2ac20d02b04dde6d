"""isl AST generation and its translation into polyfuse's loop AST.

isl builds the loops (``AstBuild.node_from_schedule``); at each loop we ask the dependences
whether that loop carries any, which decides the ``parallel`` flag and the private locals.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial

import islpy as isl

from polyfuse.analysis.dependences import Dependences, carries
from polyfuse.errors import InternalError
from polyfuse.model import ir
from polyfuse.model.isl_budget import BudgetExceeded, bounded
from polyfuse.model.isl_expr import condition_from_isl, expr_from_isl
from polyfuse.model.isl_parts import maps_of, sets_of
from polyfuse.model.loop_ast import (
    ITERATOR_PREFIX,
    Block,
    Carried,
    For,
    If,
    LazyText,
    LoopProgram,
    Node,
    StmtCall,
    exclusive_bound,
)
from polyfuse.model.region import Matmul, ops
from polyfuse.model.schedule_tree import TIME_TILES_MARK, isolate_register_tiles
from polyfuse.model.scop import Scop, added_term

PARALLEL_CHECK_OPERATIONS = 200_000  # per loop; heavily tiled stencils otherwise take seconds


def build_loop_program(scop: Scop, schedule: isl.Schedule, deps: Dependences, *,
                       carried: bool = False) -> LoopProgram:
    """Generate the loop AST of ``schedule`` with isl and mark parallel loops.  ``carried``: a
    sequential loop around a ``+=`` update also records which arrays its dependences pass
    through (``For.carried``, for passes.private_sums)."""
    updates = frozenset(s.name for s in scop.statements if added_term(s) is not None) if carried else frozenset()
    checker = _ParallelChecker(deps, scop.context, _blas_statements(scop), updates)
    build = isl.AstBuild.from_context(scop.context)
    iterators = isl.IdList.alloc(scop.context.get_ctx(), 16)
    for i in range(16):
        iterators = iterators.add(isl.Id(f"{ITERATOR_PREFIX}{i}"))
    build = build.set_iterators(iterators)
    build, _handle = build.set_before_each_for(checker.annotate)
    root = build.node_from_schedule(isolate_register_tiles(schedule))
    if checker.errors:
        raise InternalError(f"parallelism check failed: {checker.errors[0]!r}") from checker.errors[0]
    return LoopProgram(
        name=scop.name, root=Block(top_level_loops(_node(root, checker))), arguments=scop.arguments,
        params=scop.params,
        arrays=scop.arrays, statements=scop.statements, user_names=scop.user_names,
    )


def loop_ast_from_isl(node: isl.AstNode) -> Node:
    """An isl AST whose loops are all annotated ``serial`` (``set_before_each_for``) as a loop AST."""
    return _node(node, _Unannotated())


@dataclass
class _Unannotated:
    """The annotations of an AST whose loops are all ``serial``: no reasons, nothing carried."""

    reasons: list[LazyText] = field(default_factory=list)
    carried: list[Carried] = field(default_factory=list)


def top_level_loops(root: Node) -> tuple[Node, ...]:
    """The top-level nodes with nested blocks flattened and guards pushed into loop bounds.

    isl wraps code in ``if (n >= 16)`` when a part (full register tiles, say) exists only for
    some sizes.  At the top level such a guard depends on parameters alone, so the loop inside
    can carry it in its bound (``range(a, b if guard else a)``) and stay a phase that runs in
    parallel chunks (polyfuse.phases cuts only top-level loops)."""
    if isinstance(root, Block):
        return tuple(n for child in root.children for n in top_level_loops(child))
    if isinstance(root, If) and root.otherwise is None:
        return tuple(_guarded(n, root.cond) for n in top_level_loops(root.then))
    return (root,)


def _guarded(node: Node, guard: ir.Expr) -> Node:
    bound = exclusive_bound(node) if isinstance(node, For) and node.step > 0 else None
    if not isinstance(node, For) or bound is None:
        return If(guard, node)
    stop = ir.Select(guard, bound, node.init, ir.INT, True)
    return replace(node, cond=ir.Compare("<", ir.Var(node.iterator, ir.INT), stop))


def _blas_statements(scop: Scop) -> frozenset[str]:
    """The statements holding a product kept for BLAS (model/region.py ``Matmul``)."""
    return frozenset(st.name for st in scop.statements
                     if st.region is not None and any(isinstance(op, Matmul) for op in ops(st.region.body)))


class _ParallelChecker:
    """Decides, per generated loop, whether any dependence is carried by it.  A loop around a
    product kept for BLAS stays serial: the library threads each call itself, and calls from
    several threads at once contend for its threads (a stack of 110 gemms of 125 x 256 x 256
    took 2.4 s in a parallel loop on two cores, 0.1 s with one BLAS thread per call)."""

    def __init__(self, deps: Dependences, context: isl.Set, blas: frozenset[str] = frozenset(),
                 updates: frozenset[str] = frozenset()) -> None:
        self.blas = blas
        self.updates = updates  # ``+=`` statements: a serial loop around one records what it carries
        # (coalesced once: every loop's check goes through each piece; fdtd-2d's 18 become 10)
        self.blocking = deps.validity().coalesce()
        self.checked = [d for d in deps.items if d.kind == "RAW" or not d.local]  # what validity() holds
        self.local_false = [(d.array, d.relation.coalesce()) for d in deps.items if d.local and d.kind != "RAW"]
        self.context = context
        self.errors: list[Exception] = []
        self.reasons: list[LazyText] = []  # why each parallel loop is parallel, indexed from its annotation
        self.carried: list[Carried] = []  # what each recorded serial loop carries, likewise
        self._why: _Reasons | None = None  # the inputs of ``reasons``, as text

    def annotate(self, build: isl.AstBuild) -> isl.Id:
        """isl ignores exceptions raised in callbacks, so keep them for the caller to raise."""
        try:
            return self._annotation(_flatten_range(build.get_schedule()))
        except Exception as exc:  # noqa: BLE001 - re-raised by build_loop_program
            self.errors.append(exc)
            return isl.Id("serial")

    def _annotation(self, prefix: isl.UnionMap) -> isl.Id:
        if self.blas and any(part.get_tuple_name() in self.blas for part in sets_of(prefix.domain())):
            return isl.Id("serial")
        if self._carried(self.blocking, prefix):
            return self._serial(prefix)
        private = sorted({a for a, rel in self.local_false if self._carried(rel, prefix)})
        if self._why is None:  # once per program, shared by its loops' reasons
            self._why = _Reasons(tuple((d.kind, d.array, _pieces(d.relation)) for d in self.checked))
        domain = {part.get_tuple_name(): part.to_str() for part in sets_of(prefix.domain())}
        self.reasons.append(self._why.add(domain, tuple(private)))
        return isl.Id(f"parallel#{len(self.reasons) - 1}:" + ",".join(private))

    def _serial(self, prefix: isl.UnionMap) -> isl.Id:
        """A serial loop's annotation; around a ``+=`` update, with the arrays whose dependences
        it carries (each checked alone; one over the isl budget counts as carried)."""
        if not any(part.get_tuple_name() in self.updates for part in sets_of(prefix.domain())):
            return isl.Id("serial")
        arrays = sorted({d.array for d in self.checked if self._carried(d.relation, prefix)})
        private = sorted({a for a, rel in self.local_false if self._carried(rel, prefix)})
        self.carried.append(Carried(tuple(arrays), tuple(private)))
        return isl.Id(f"serial#{len(self.carried) - 1}")

    def _carried(self, deps: isl.UnionMap, prefix: isl.UnionMap) -> bool:
        """Unknown counts as carried: a check over its isl budget leaves the loop serial."""
        try:
            with bounded(self.context.get_ctx(), PARALLEL_CHECK_OPERATIONS):
                return carries(deps, prefix, self.context)
        except BudgetExceeded:
            return True


#: a dependence relation as isl text, one map per pair of statements: (source, sink, map)
Pieces = tuple[tuple[str, str, str], ...]


class _Reasons:
    """Why each parallel loop of one program is parallel, in words (explain() shows it), kept as
    isl text, not isl objects, as ``analysis.traffic``'s footprints are: a loop AST that a kernel
    keeps holds no dependences.  Computed for every loop at once when explain() first reads one
    (``LazyText``), parsing only the pieces a loop's statements meet, each once per program."""

    def __init__(self, checked: tuple[tuple[str, str, Pieces], ...]) -> None:
        self.checked = checked  # (kind, array, relation) of the dependences the checks go through
        #: each loop's statement instances (a set per statement) and private arrays
        self.loops: list[tuple[dict[str, str], tuple[str, ...]]] = []
        self.texts: list[str] | None = None

    def add(self, domain: dict[str, str], private: tuple[str, ...]) -> LazyText:
        self.loops.append((domain, private))
        return LazyText(partial(self.text, len(self.loops) - 1))

    def text(self, index: int) -> str:
        if self.texts is None:
            maps: dict[str, isl.Map] = {}
            sets: dict[str, isl.Set] = {}
            self.texts = [_reason(self.checked, domain, private, maps, sets) for domain, private in self.loops]
            self.checked, self.loops = (), []
        return self.texts[index]


def _pieces(relation: isl.UnionMap) -> Pieces:
    return tuple((m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out), m.to_str())
                 for m in maps_of(relation))


def _reason(checked: tuple[tuple[str, str, Pieces], ...], domain: dict[str, str], private: tuple[str, ...],
            maps: dict[str, isl.Map], sets: dict[str, isl.Set]) -> str:
    """The dependence check that allowed a parallel loop: the dependences among the loop's
    statement instances (``domain``), none of which this loop carries.  ``maps``, ``sets``: isl
    objects by their text, parsed once for the loops of one program."""

    def meets(source: str, sink: str, relation: str) -> bool:
        if source not in domain or sink not in domain:
            return False
        for text in (domain[source], domain[sink]):
            if text not in sets:
                sets[text] = isl.Set(text)
        if relation not in maps:
            maps[relation] = isl.Map(relation)
        return not maps[relation].intersect_domain(sets[domain[source]]).intersect_range(sets[domain[sink]]).is_empty()

    inside = sorted({f"{kind} on {array}" for kind, array, pieces in checked
                     if any(meets(*piece) for piece in pieces)})
    text = (f"carries none of its statements' dependences ({', '.join(inside)}): each is carried by an "
            "outer loop or stays within one iteration" if inside
            else "its statements have no dependences")
    if private:
        text += f"; false dependences on {', '.join(private)} removed by a private copy per iteration"
    return text


def _flatten_range(umap: isl.UnionMap) -> isl.UnionMap:
    result = isl.UnionMap.empty(umap.get_space())
    for part in maps_of(umap):
        result = result.union(isl.UnionMap.from_map(part.flatten_range()))
    return result


def _node(node: isl.AstNode, checker: _ParallelChecker | _Unannotated) -> Node:
    kind = node.get_type()
    if kind == isl.ast_node_type.for_:
        return _for(node, checker)
    if kind == isl.ast_node_type.if_:
        otherwise = _node(node.if_get_else_node(), checker) if node.if_has_else_node() else None
        return If(condition_from_isl(node.if_get_cond()), _node(node.if_get_then_node(), checker), otherwise)
    if kind == isl.ast_node_type.block:
        children = node.block_get_children()
        return Block(tuple(_node(children.get_at(i), checker) for i in range(children.n_ast_node())))
    if kind == isl.ast_node_type.user:
        call = node.user_get_expr()
        name = call.get_op_arg(0).get_id().get_name()
        args = tuple(expr_from_isl(call.get_op_arg(i)) for i in range(1, call.get_op_n_arg()))
        return StmtCall(name, args)
    if kind == isl.ast_node_type.mark:
        inner = _node(node.mark_get_node(), checker)
        return _time_tiles(inner) if node.mark_get_id().get_name() == TIME_TILES_MARK else inner
    raise InternalError(f"unexpected isl AST node {kind}")


def _time_tiles(node: Node) -> Node:
    """``node`` (the code of a time-tiled nest's tile band) with its outermost loops flagged
    ``time_tiles``: each loop reached through blocks and guards, not the loops inside them."""
    if isinstance(node, For):
        return replace(node, time_tiles=True)
    if isinstance(node, Block):
        return Block(tuple(_time_tiles(child) for child in node.children))
    if isinstance(node, If):
        return If(node.cond, _time_tiles(node.then), None if node.otherwise is None else _time_tiles(node.otherwise))
    return node


def _for(node: isl.AstNode, checker: _ParallelChecker | _Unannotated) -> For:
    annotation = node.get_annotation().get_name()
    parallel = annotation.startswith("parallel")
    private = tuple(p for p in annotation.partition(":")[2].split(",") if p) if parallel else ()
    index = annotation.partition(":")[0].partition("#")[2]
    why: str | LazyText = checker.reasons[int(index)] if parallel else ""
    carried = checker.carried[int(index)] if index and not parallel else None
    inc = node.for_get_inc()
    if inc.get_type() != isl.ast_expr_type.int:
        raise InternalError("non-constant loop increment from isl")
    return For(
        iterator=node.for_get_iterator().get_id().get_name(),
        init=expr_from_isl(node.for_get_init()),
        cond=condition_from_isl(node.for_get_cond()),
        step=inc.get_val().get_num_si(),
        body=_node(node.for_get_body(), checker),
        parallel=parallel,
        private=private,
        why_parallel=why,
        carried=carried,
    )
