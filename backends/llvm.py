"""LLVM backend: loop AST + statement bodies -> LLVM IR (llvmlite) -> O3 for the host -> JIT.

The generated function takes, in order: each argument (arrays as element pointers, ints as i64,
floats as double), the strides of arrays passed with any layout, the array extents, and the
kernel-local arrays.  Local scalars are stack slots, so LLVM keeps them in registers.
Python semantics are kept exactly: floor ``//`` and ``%``, integer division by zero gives 0
(numpy), no fast-math reassociation.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from dataclasses import dataclass, field
from typing import Any

import llvmlite.binding as llvm
from llvmlite import ir as ll

from polyfuse.errors import ArgumentError
from polyfuse.loop_ast import Block, For, If, LoopProgram, StmtCall
from polyfuse.phases import Phase, plan_phases, shared_scalars
from polyfuse.scop import ArrayInfo, isl_name

from .llvm_exprs import ExprEmitter, llvm_type
from .parallel import run_parallel

_INIT_LOCK = threading.Lock()
_TARGET: dict[str, Any] = {}


def _initialize() -> str:
    """Initialise LLVM once per process; returns the host triple."""
    with _INIT_LOCK:
        if not _TARGET:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            libm = ctypes.util.find_library("m")
            if libm:
                llvm.load_library_permanently(libm)
            _TARGET["triple"] = llvm.get_process_triple()
        return _TARGET["triple"]


def _target_machine(triple: str):
    """A fresh host target machine: the JIT engine takes ownership of the one it is given."""
    return llvm.Target.from_triple(triple).create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=3, jit=True,
    )


@dataclass(frozen=True)
class Param:
    """One parameter of the generated function and where its value comes from."""

    name: str
    kind: str  # "array" | "stride" | "i64" | "f64"
    array: str = ""
    axis: int = 0


@dataclass
class CompiledPhase:
    """One phase's JIT function; parallel phases take (first, last) iteration indices too."""

    phase: Phase
    function: Any


@dataclass
class LLVMKernel:
    """JIT-compiled phases; call it with the runtime's value dict."""

    artifact: LLVMArtifact
    phases: tuple[CompiledPhase, ...]
    locals: dict[str, ArrayInfo]
    engine: Any = field(repr=False)
    serial_seconds: dict[int, float] = field(default_factory=dict, repr=False)

    @property
    def params(self) -> tuple[Param, ...]:
        return self.artifact.params

    @property
    def llvm_ir(self) -> str:
        return self.artifact.llvm_ir

    @property
    def optimized_ir(self) -> str:
        return self.artifact.optimized_ir

    def __call__(self, values: dict[str, Any]) -> None:
        args = [self._value(p, values) for p in self.params]
        for compiled in self.phases:
            if compiled.phase.parallel:
                run_parallel(self, compiled, args, values)
            else:
                compiled.function(*args)

    @staticmethod
    def _value(param: Param, values: dict[str, Any]):
        if param.kind == "array":
            return values[param.name].ctypes.data
        if param.kind == "stride":
            arr = values[param.array]
            stride, rem = divmod(arr.strides[param.axis], arr.itemsize)
            if rem:
                raise ArgumentError(f"array {param.array!r} has a stride that is not a whole number of elements")
            return stride
        return values[param.name]


def signature(program: LoopProgram, shared: set[str]) -> tuple[Param, ...]:
    params: list[Param] = []
    for arg in program.arguments:
        kind = {"array": "array", "int": "i64", "float": "f64"}[arg.kind]
        params.append(Param(arg.name, kind))
    for arg in program.arguments:
        if arg.kind == "array" and arg.layout != "C":
            params.extend(Param(f"{arg.name}__stride{d}", "stride", arg.name, d) for d in range(arg.rank))
    taken = {p.name for p in params}
    params.extend(Param(p, "i64") for p in program.params if p not in taken)
    params.extend(Param(a.name, "array") for a in program.local_arrays()
                  if not a.is_scalar or a.name in shared)
    return tuple(params)


@dataclass(frozen=True)
class LLVMArtifact:
    """Everything needed to JIT a kernel again without polyfuse's earlier stages (disk cache)."""

    name: str
    params: tuple[Param, ...]
    phases: tuple[Phase, ...]
    locals: tuple[ArrayInfo, ...]
    llvm_ir: str
    optimized_ir: str


def compile_llvm(program: LoopProgram, options) -> LLVMKernel:
    """Generate, optimise and JIT-compile ``program`` for the host CPU, one function per phase."""
    return load_artifact(generate(program, options))


def generate(program: LoopProgram, options) -> LLVMArtifact:
    """LLVM IR for ``program``, before and after the O3 pipeline for the host CPU."""
    phases = plan_phases(program)
    shared = shared_scalars(program)
    params = signature(program, shared)
    module = ll.Module(name=program.name)
    for phase in phases:
        KernelCodegen(module, program, params, phase, shared, fastmath=options.fastmath)
    text = str(module)
    triple = _initialize()
    tm = _target_machine(triple)
    parsed = llvm.parse_assembly(text)
    parsed.triple = triple
    parsed.data_layout = str(tm.target_data)
    parsed.verify()
    if options.opt_level > 0:
        pto = llvm.create_pipeline_tuning_options(speed_level=options.opt_level)
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        builder = llvm.create_pass_builder(tm, pto)
        builder.getModulePassManager().run(parsed, builder)
    return LLVMArtifact(program.name, params, phases, program.local_arrays(), text, str(parsed))


def load_artifact(artifact: LLVMArtifact) -> LLVMKernel:
    """JIT-compile already optimised IR."""
    triple = _initialize()
    parsed = llvm.parse_assembly(artifact.optimized_ir)
    engine = llvm.create_mcjit_compiler(parsed, _target_machine(triple))
    engine.finalize_object()
    compiled = []
    for phase in artifact.phases:
        argtypes = [_CTYPES[p.kind] for p in artifact.params] + ([ctypes.c_int64] * 2 if phase.parallel else [])
        address = engine.get_function_address(phase_name(artifact.name, phase))
        compiled.append(CompiledPhase(phase, ctypes.CFUNCTYPE(None, *argtypes)(address)))
    return LLVMKernel(artifact, tuple(compiled), {a.name: a for a in artifact.locals}, engine)


def phase_name(kernel: str, phase: Phase) -> str:
    return f"{kernel}.phase{phase.index}"


_CTYPES = {"array": ctypes.c_void_p, "stride": ctypes.c_int64, "i64": ctypes.c_int64, "f64": ctypes.c_double}
_I64 = ll.IntType(64)


class KernelCodegen:
    """Emits one phase's LLVM function; one ``emit_<node>`` rule per loop-AST node."""

    def __init__(self, module: ll.Module, program: LoopProgram, params: tuple[Param, ...], phase: Phase,
                 shared: set[str], *, fastmath: bool = False) -> None:
        self.program = program
        self.fastmath = fastmath
        self.module = module
        self.shared = shared
        arg_types = [self._param_type(program, p) for p in params]
        if phase.parallel:
            arg_types += [_I64, _I64]
        fn = ll.Function(module, ll.FunctionType(ll.VoidType(), arg_types), name=phase_name(program.name, phase))
        self.chunk = (fn.args[-2], fn.args[-1]) if phase.parallel else None
        self.entry = fn.append_basic_block("entry")
        body = fn.append_basic_block("body")
        self.builder = ll.IRBuilder(body)
        self.alloca_builder = ll.IRBuilder(self.entry)
        self.values: dict[str, Any] = {}
        self.arrays: dict[str, tuple[Any, list[Any]]] = {}
        for param, arg in zip(params, fn.args):
            arg.name = param.name
            if param.kind == "array":
                arg.add_attribute("noalias")
            self.values[param.name] = arg
        self.exprs = ExprEmitter(self)
        self._bind_arrays(params)
        if self.chunk is not None:
            self.emit_chunk(phase.node)
        else:
            self.emit(phase.node)
        self.builder.ret_void()
        self.alloca_builder.branch(body)

    @staticmethod
    def _param_type(program: LoopProgram, param: Param):
        if param.kind == "array":
            info = next(a for a in program.arrays if a.name == param.name)
            return llvm_type(info.dtype).as_pointer()
        return ll.DoubleType() if param.kind == "f64" else _I64

    def _bind_arrays(self, params: tuple[Param, ...]) -> None:
        strided = {p.array for p in params if p.kind == "stride"}
        for info in self.program.arrays:
            if info.is_scalar and info.name not in self.shared:
                slot = self.alloca_builder.alloca(llvm_type(info.dtype), name=info.name)
                if info.zero_init:  # an np.zeros array contracted to a scalar still starts at zero
                    self.alloca_builder.store(ll.Constant(llvm_type(info.dtype), 0), slot)
                self.arrays[info.name] = (slot, [])
            elif info.name in strided:
                strides = [self.values[f"{info.name}__stride{d}"] for d in range(info.rank)]
                self.arrays[info.name] = (self.values[info.name], strides)
            else:
                self.arrays[info.name] = (self.values[info.name], self._c_strides(info))

    def _c_strides(self, info: ArrayInfo) -> list[Any]:
        """Row-major strides in elements, computed once at function entry."""
        b = self.alloca_builder
        extents = [self.exprs.emit_with(e, b) for e in info.shape]
        strides = [ll.Constant(_I64, 1)]
        for extent in reversed(extents[1:]):
            strides.insert(0, b.mul(strides[0], extent))
        return strides

    # ---- loop AST rules ------------------------------------------------------------------
    def emit(self, node) -> None:
        getattr(self, f"emit_{type(node).__name__}")(node)

    def emit_Block(self, node: Block) -> None:
        for child in node.children:
            self.emit(child)

    def emit_chunk(self, node: For) -> None:
        """The outer loop restricted to iterations ``first <= k < last`` (k counts from 0)."""
        first, last = self.chunk
        step = ll.Constant(_I64, node.step)
        init = self.exprs.emit(node.init)
        start = self.builder.add(init, self.builder.mul(first, step))
        end = self.builder.add(init, self.builder.mul(last, step))
        self.emit_For(node, start=start, end=end)

    def emit_For(self, node: For, start=None, end=None) -> None:
        b = self.builder
        slot = self.alloca_builder.alloca(_I64, name=node.iterator)
        b.store(self.exprs.emit(node.init) if start is None else start, slot)
        header = b.append_basic_block(f"{node.iterator}.header")
        body = b.append_basic_block(f"{node.iterator}.body")
        done = b.append_basic_block(f"{node.iterator}.done")
        b.branch(header)
        b.position_at_end(header)
        saved = self.values.get(node.iterator)
        self.values[node.iterator] = b.load(slot)
        cond = self.exprs.emit(node.cond)
        if end is not None:
            cond = b.and_(cond, b.icmp_signed("<", self.values[node.iterator], end))
        b.cbranch(cond, body, done)
        b.position_at_end(body)
        self.emit(node.body)
        current = b.load(slot)
        b.store(b.add(current, ll.Constant(_I64, node.step), flags=["nsw"]), slot)
        b.branch(header)
        b.position_at_end(done)
        self._restore(node.iterator, saved)

    def emit_If(self, node: If) -> None:
        cond = self.exprs.emit(node.cond)
        if node.otherwise is None:
            with self.builder.if_then(cond):
                self.emit(node.then)
            return
        with self.builder.if_else(cond) as (then, otherwise):
            with then:
                self.emit(node.then)
            with otherwise:
                self.emit(node.otherwise)

    def emit_StmtCall(self, node: StmtCall) -> None:
        stmt = self.program.statement(node.statement)
        names = [isl_name(v) for v in stmt.iterators]
        saved = {n: self.values.get(n) for n in names}
        for name, arg in zip(names, node.args):
            self.values[name] = self.exprs.emit(arg)
        value = self.exprs.emit(stmt.value)
        self.builder.store(value, self.exprs._address(stmt.array, stmt.index))
        for name, old in saved.items():
            self._restore(name, old)

    def _restore(self, name: str, old) -> None:
        if old is None:
            self.values.pop(name, None)
        else:
            self.values[name] = old
