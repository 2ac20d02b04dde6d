"""The machine code of native entries (polyfuse/runtime/native.py says what they check and do):
one function per structure of plan, reading the plan's values from a table."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir as ll

from polyfuse.model.isl_budget import ISL_LOCK
from polyfuse.runtime.native import (
    DATA,
    DESCR,
    DIMS,
    FLAGS,
    NDIM,
    STRIDES,
    TUPLE_ITEMS,
    TYPE,
    WRITEABLE,
    ArrayGuard,
    EntrySpec,
    Finish,
    FloatGuard,
    Guard,
    IntGuard,
)

METH_FASTCALL = 0x80
_I8P, _I32, _I64, _F64 = ll.IntType(8).as_pointer(), ll.IntType(32), ll.IntType(64), ll.DoubleType()
_C_API = ("PyEval_SaveThread", "PyEval_RestoreThread", "Py_IncRef", "Py_DecRef",
          "PyLong_AsLongLongAndOverflow", "PyFloat_AsDouble", "PyObject_Vectorcall")

# The code reads every value of the plan (extents, strides, sizes, addresses, objects) from a table
# of int64 words, the first item of the function's ``__self__`` tuple, so plans of one structure
# (the same kernel at other sizes, or another kernel of the same form) share one compiled function:
# a new plan costs a table, not an LLVM compile (~10 ms).

MAX_COMPILED = 512  # structures kept compiled


def compile_entry(spec: EntrySpec) -> Callable[..., Any] | None:
    """``spec``'s entry as a CPython builtin function, whose ``__self__`` holds its table, its
    machine code and every object the table points at; None where a value is not an int64."""
    words = _layout(spec)
    if not all(INT64_MIN <= value <= INT64_MAX for value in words.values()):
        return None
    key = _structure(spec, words)
    with ISL_LOCK:  # LLVM's context is shared with the kernels' compiles, which hold this lock
        compiled = _COMPILED.get(key)
        if compiled is None:
            if len(_COMPILED) >= MAX_COMPILED:
                _COMPILED.pop(next(iter(_COMPILED)))  # the oldest (its entries keep their code)
            compiled = _COMPILED[key] = _compile(spec, {name: k for k, name in enumerate(words)})
    table = np.array(list(words.values()), dtype=np.int64)
    engine, method = compiled
    return _NEW_FUNCTION(ctypes.byref(method), (table, engine, method, spec), None)


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_COMPILED: dict[tuple, tuple[Any, Any]] = {}  # structure -> (engine, method definition)


def _compile(spec: EntrySpec, index: dict[Any, int]) -> tuple[Any, Any]:
    _register_c_api()
    module = llvm.parse_assembly(str(_module(spec, index)))
    # straight-line code of loads, compares and calls: the fast instruction selector is enough
    machine = llvm.Target.from_default_triple().create_target_machine(opt=0, jit=True)
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    method = _MethodDef(b"polyfuse_entry", engine.get_function_address("entry"), METH_FASTCALL, None)
    return engine, method


def _layout(spec: EntrySpec) -> dict[Any, int]:
    """The table's words by name, in table order: what differs between plans of one structure."""
    words: dict[Any, int] = {}
    for k, guard in enumerate(spec.guards):
        if isinstance(guard, IntGuard):
            words["int", k], words["type", k] = guard.value, guard.pytype
        elif isinstance(guard, FloatGuard):
            words["type", k] = guard.pytype
        else:
            words["descr", k] = guard.descr
            words.update({("dim", k, d): extent for d, extent in enumerate(guard.shape)})
            words.update({("stride", k, d): stride for d, stride in enumerate(guard.strides)})
            words["low", k], words["high", k] = guard.span
    for i, (address, value) in enumerate(spec.epochs):
        words["epoch at", i], words["epoch", i] = address, value
    if spec.busy:
        words["busy"] = spec.busy
    if spec.countdown:
        words["countdown"] = spec.countdown
    for i, (address, size) in enumerate(spec.zero):
        words["zero", i], words["bytes", i] = address, size
    for j, result in enumerate(spec.results):
        words["make", j], words["shape", j], words["dtype", j] = id(result.make), id(result.shape), id(result.dtype)
    words.update({("tail", i): item for i, item in enumerate(spec.tail) if not isinstance(item, tuple)})
    for p, phase in enumerate(spec.phases):
        words["phase", p] = phase.address
        if phase.count is not None:
            words["count", p] = phase.count
    if spec.index_flag:
        words["flag"] = spec.index_flag
        words["python owner"], words["native owner"] = spec.index_owners
    if spec.finish is None:
        words["none"] = id(None)
    else:
        words.update({("operand", i): id(value) for i, (kind, value) in enumerate(spec.finish.operands)
                      if kind == "object"})
        if spec.finish.function is not None:
            words["finish"] = id(spec.finish.function)
    words["raiser"], words["miss"] = id(spec.raiser), id(spec.miss)
    return words


def _structure(spec: EntrySpec, words: dict[Any, int]) -> tuple:
    """What the code depends on besides the table's values (the words' names say the rest)."""
    writeable = tuple(g.writeable for g in spec.guards if isinstance(g, ArrayGuard))
    scalars = tuple((g.size, g.signed) if isinstance(g, IntGuard) else g.size
                    for g in spec.guards if not isinstance(g, ArrayGuard))
    tail = tuple(item if isinstance(item, tuple) else None for item in spec.tail)
    finish = None if spec.finish is None else (spec.finish.function is None,
                                               tuple(kind if kind == "object" else (kind, value)
                                                     for kind, value in spec.finish.operands))
    return tuple(words), writeable, scalars, tail, spec.pairs, finish


class _MethodDef(ctypes.Structure):
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p), ("ml_flags", ctypes.c_int),
                ("ml_doc", ctypes.c_char_p)]


_NEW_FUNCTION = ctypes.pythonapi.PyCFunction_NewEx
_NEW_FUNCTION.restype = ctypes.py_object
_NEW_FUNCTION.argtypes = [ctypes.POINTER(_MethodDef), ctypes.py_object, ctypes.py_object]
_REGISTERED: list[bool] = []


def _register_c_api() -> None:
    if not _REGISTERED:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        for name in _C_API:
            llvm.add_symbol(name, ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p).value)
        _REGISTERED.append(True)


class _Emitter:
    """Builds ``PyObject *entry(PyObject *self, PyObject *const *args, Py_ssize_t nargs)``, whose
    ``self`` is a tuple with the table of words first."""

    def __init__(self, index: dict[Any, int]) -> None:
        self.index = index
        self.module = ll.Module("polyfuse_entry")
        fnty = ll.FunctionType(_I8P, [_I8P, _I8P.as_pointer(), _I64])
        self.function = ll.Function(self.module, fnty, "entry")
        self.builder = ll.IRBuilder(self.function.append_basic_block("start"))
        self.api = {
            "PyEval_SaveThread": ll.FunctionType(_I8P, []),
            "PyEval_RestoreThread": ll.FunctionType(ll.VoidType(), [_I8P]),
            "Py_IncRef": ll.FunctionType(ll.VoidType(), [_I8P]),
            "Py_DecRef": ll.FunctionType(ll.VoidType(), [_I8P]),
            "PyObject_Vectorcall": ll.FunctionType(_I8P, [_I8P, _I8P.as_pointer(), _I64, _I8P]),
            "PyLong_AsLongLongAndOverflow": ll.FunctionType(_I64, [_I8P, _I32.as_pointer()]),
            "PyFloat_AsDouble": ll.FunctionType(_F64, [_I8P]),
        }
        self.declared = {name: ll.Function(self.module, fnty, name) for name, fnty in self.api.items()}
        self.miss = self.function.append_basic_block("miss")
        self.results_made: list = []  # result arrays made so far (released where a later one fails)
        self.busy: Any = None  # the pointer to ``busy`` once the local arrays are taken
        self.owner: Any = None  # the pointer to ``native owner`` once the index flags are taken
        table = self.field(self.function.args[0], TUPLE_ITEMS, _I8P)
        self.table = self.builder.bitcast(self.field(table, DATA, _I8P), _I64.as_pointer())

    def take_locals(self, zeroed: int) -> None:
        """Take the entry's local arrays (0 -> 1 at ``busy``), or miss; zero those that need it."""
        b = self.builder
        self.busy = b.inttoptr(self.word("busy"), _I64.as_pointer())
        old = b.extract_value(b.cmpxchg(self.busy, ll.Constant(_I64, 0), ll.Constant(_I64, 1), "acquire", "monotonic"), 0)
        self.require(self.equal(old, 0))
        memset = self.module.declare_intrinsic("llvm.memset", [_I8P, _I64])
        for i in range(zeroed):
            b.call(memset, [self.object(("zero", i)), ll.Constant(ll.IntType(8), 0), self.word(("bytes", i)),
                            ll.Constant(ll.IntType(1), 0)])

    def give_back_locals(self) -> None:
        if self.busy is not None:
            self.builder.store_atomic(ll.Constant(_I64, 0), self.busy, "release", 8)

    def take_flags(self) -> None:
        """Own the kernel's index-error flags for this call (runtime/native.py, LLVMKernel's
        ``owning_index_flags``): where no Python-path call holds them, ``native owner`` 0 -> 1;
        else give the local arrays back and miss.  (The GIL is held here: no Python-path call
        marks itself between the two tests.)"""
        b = self.builder
        python = b.load(b.inttoptr(self.word("python owner"), _I64.as_pointer()))
        self.owner = b.inttoptr(self.word("native owner"), _I64.as_pointer())
        attempt, refused, go_on = (self.function.append_basic_block(name) for name in ("flags", "flags_busy", "owned"))
        b.cbranch(self.equal(python, 0), attempt, refused)
        b.position_at_end(attempt)
        old = b.extract_value(b.cmpxchg(self.owner, ll.Constant(_I64, 0), ll.Constant(_I64, 1), "acquire", "monotonic"), 0)
        b.cbranch(self.equal(old, 0), go_on, refused)
        b.position_at_end(refused)
        self.give_back_locals()
        b.branch(self.miss)
        b.position_at_end(go_on)

    def give_flags(self) -> None:
        if self.owner is not None:
            self.builder.store_atomic(ll.Constant(_I64, 0), self.owner, "release", 8)

    def word(self, name: Any):
        """The table's word ``name`` (see ``_layout``)."""
        return self.builder.load(self.builder.gep(self.table, [ll.Constant(_I64, self.index[name])]))

    def object(self, name: Any):
        """The object whose address is the word ``name`` (the function's ``__self__`` holds it)."""
        return self.builder.inttoptr(self.word(name), _I8P)

    def new_reference(self, obj):
        self.call_api("Py_IncRef", obj)
        return obj

    def vectorcall(self, function, values: list):
        """``function(*values)`` through PyObject_Vectorcall: a new reference, or NULL."""
        b = self.builder
        vector = b.alloca(_I8P, size=max(1, len(values)))
        for k, value in enumerate(values):
            b.store(value, b.gep(vector, [ll.Constant(_I64, k)]))
        return self.call_api("PyObject_Vectorcall", function, vector, ll.Constant(_I64, len(values)),
                             ll.Constant(_I8P, None))

    def call_api(self, name: str, *args):
        return self.builder.call(self.declared[name], args)

    def field(self, obj, offset: int, kind):
        address = self.builder.gep(obj, [ll.Constant(_I64, offset)])
        return self.builder.load(self.builder.bitcast(address, kind.as_pointer()))

    def require(self, condition) -> None:
        """Go on where ``condition`` holds, else to the miss block."""
        go_on = self.function.append_basic_block()
        self.builder.cbranch(condition, go_on, self.miss)
        self.builder.position_at_end(go_on)

    def equal(self, value, other, kind=_I64):
        """``value == other`` (a value, or an int constant)."""
        return self.builder.icmp_signed("==", value, ll.Constant(kind, other) if isinstance(other, int) else other)

    def type_is(self, obj, address):
        return self.equal(self.builder.ptrtoint(self.field(obj, TYPE, _I8P), _I64), address)


def _module(spec: EntrySpec, index: dict[Any, int]) -> ll.Module:
    e = _Emitter(index)
    b = e.builder
    args = e.function.args[1]
    e.require(e.equal(e.function.args[2], len(spec.guards)))
    objects = [b.load(b.gep(args, [ll.Constant(_I64, k)])) for k in range(len(spec.guards))]
    head = [_checked(e, k, guard, obj) for k, (guard, obj) in enumerate(zip(spec.guards, objects))]
    for first, second in spec.pairs:
        _require_apart(e, head, first, second)
    for i in range(len(spec.epochs)):
        e.require(e.equal(b.load(b.inttoptr(e.word(("epoch at", i)), _I64.as_pointer())), e.word(("epoch", i))))
    if spec.countdown:  # one of the calls the runtime left to this entry (0: the Python path measures)
        at = b.inttoptr(e.word("countdown"), _I64.as_pointer())
        left = b.load(at)
        e.require(b.icmp_signed(">", left, ll.Constant(_I64, 0)))
        b.store(b.sub(left, ll.Constant(_I64, 1)), at)
    if spec.busy:
        e.take_locals(len(spec.zero))
    if spec.index_flag:  # one call of the kernel at a time reads and writes its flags
        e.take_flags()
    # every check passed: from here on the call runs
    fresh = [_fresh_result(e, j) for j in range(len(spec.results))]
    pointers = [b.ptrtoint(e.field(obj, DATA, _I8P), _I64) for obj in fresh]
    tail = [pointers[item[1]] if isinstance(item, tuple) else e.word(("tail", i)) for i, item in enumerate(spec.tail)]
    # a float travels as a C double; an int, an array's data pointer and the tail as 64-bit words
    types = [_F64 if isinstance(g, FloatGuard) else _I64 for g in spec.guards] + [_I64] * len(tail)
    flag = b.inttoptr(e.word("flag"), _I64.as_pointer()) if spec.index_flag else None
    state = e.call_api("PyEval_SaveThread")
    failed = e.function.append_basic_block("index_error")
    for p, phase in enumerate(spec.phases):
        extra = [] if phase.count is None else [ll.Constant(_I64, 0), e.word(("count", p))]
        fnty = ll.FunctionType(ll.VoidType(), types + [_I64] * len(extra))
        b.call(b.inttoptr(e.word(("phase", p)), fnty.as_pointer()), [*head, *tail, *extra])
        if flag is not None:
            go_on = e.function.append_basic_block()
            b.cbranch(e.equal(b.load(flag), 0), go_on, failed)
            b.position_at_end(go_on)
    e.give_back_locals()
    e.give_flags()
    e.call_api("PyEval_RestoreThread", state)
    b.ret(_finish(e, spec.finish, objects, fresh))
    b.position_at_end(failed)
    e.give_back_locals()
    e.call_api("PyEval_RestoreThread", state)
    for obj in fresh:
        e.call_api("Py_DecRef", obj)
    raised = e.vectorcall(e.object("raiser"), [])  # NULL: the raiser's exception (it reads and clears the flag)
    e.give_flags()
    b.ret(raised)
    b.position_at_end(e.miss)
    b.ret(e.new_reference(e.object("miss")))
    return e.module


def _fresh_result(e: _Emitter, j: int) -> Any:
    """``make(shape, dtype)`` of result ``j``; where it raises (MemoryError), the results made so
    far go and the entry returns NULL with that exception."""
    b = e.builder
    obj = e.vectorcall(e.object(("make", j)), [e.object(("shape", j)), e.object(("dtype", j))])
    go_on, failed = e.function.append_basic_block(), e.function.append_basic_block()
    b.cbranch(b.icmp_unsigned("!=", b.ptrtoint(obj, _I64), ll.Constant(_I64, 0)), go_on, failed)
    b.position_at_end(failed)
    e.give_back_locals()
    for earlier in e.results_made:
        e.call_api("Py_DecRef", earlier)
    b.ret(obj)
    b.position_at_end(go_on)
    e.results_made.append(obj)
    return obj


def _finish(e: _Emitter, finish: Finish | None, objects: list, fresh: list):
    """The value the entry returns (a new reference)."""
    if finish is None:
        for obj in fresh:
            e.call_api("Py_DecRef", obj)
        return e.new_reference(e.object("none"))

    def operand(i: int, kind: str, value: Any):
        return objects[value] if kind == "arg" else fresh[value] if kind == "result" else e.object(("operand", i))

    values = [operand(i, kind, value) for i, (kind, value) in enumerate(finish.operands)]
    if finish.function is None:  # one result or argument, itself
        (value,) = values
        for obj in fresh:
            if obj is not value:
                e.call_api("Py_DecRef", obj)
        return value if finish.operands[0][0] == "result" else e.new_reference(value)
    made = e.vectorcall(e.object("finish"), values)
    for obj in fresh:
        e.call_api("Py_DecRef", obj)
    return made


def _checked(e: _Emitter, k: int, guard: Guard, obj):
    """Argument ``k``'s value for the phase functions, after its checks."""
    b = e.builder
    if isinstance(guard, IntGuard):
        e.require(e.type_is(obj, e.word(("type", k))))
        if guard.size:  # a numpy integer scalar: its C value after the header
            stored = e.field(obj, DATA, ll.IntType(8 * guard.size))
            value = (b.sext if guard.signed else b.zext)(stored, _I64) if guard.size < 8 else stored
            e.require(e.equal(value, e.word(("int", k))))
            return value
        overflow = b.alloca(_I32)
        value = e.call_api("PyLong_AsLongLongAndOverflow", obj, overflow)
        e.require(b.and_(e.equal(b.load(overflow), 0, _I32), e.equal(value, e.word(("int", k)))))
        return value
    if isinstance(guard, FloatGuard):
        e.require(e.type_is(obj, e.word(("type", k))))
        if guard.size == 4:  # np.float32: its C float after the header, as a double
            return b.fpext(e.field(obj, DATA, ll.FloatType()), _F64)
        return e.call_api("PyFloat_AsDouble", obj)  # a float's C double (np.float64 subclasses float)
    e.require(e.type_is(obj, id(np.ndarray)))
    descr = b.ptrtoint(e.field(obj, DESCR, _I8P), _I64)
    e.require(b.and_(e.equal(descr, e.word(("descr", k))), e.equal(e.field(obj, NDIM, _I32), len(guard.shape), _I32)))
    flags = b.and_(e.field(obj, FLAGS, _I32), ll.Constant(_I32, WRITEABLE))
    e.require(e.equal(flags, WRITEABLE if guard.writeable else 0, _I32))
    for offset, name in ((DIMS, "dim"), (STRIDES, "stride")):
        if not guard.shape:
            continue
        words = b.bitcast(e.field(obj, offset, _I8P), _I64.as_pointer())
        same = [e.equal(b.load(b.gep(words, [ll.Constant(_I64, d)])), e.word((name, k, d)))
                for d in range(len(guard.shape))]
        condition = same[0]
        for term in same[1:]:
            condition = b.and_(condition, term)
        e.require(condition)
    return b.ptrtoint(e.field(obj, DATA, _I8P), _I64)


def _require_apart(e: _Emitter, head: list, first: int, second: int) -> None:
    """Byte ranges apart, or a miss (the CallPlan path then asks ``np.shares_memory``)."""
    b = e.builder
    low_a, high_a = b.add(head[first], e.word(("low", first))), b.add(head[first], e.word(("high", first)))
    low_b, high_b = b.add(head[second], e.word(("low", second))), b.add(head[second], e.word(("high", second)))
    meet = b.and_(b.icmp_unsigned("<", low_a, high_b), b.icmp_unsigned("<", low_b, high_a))
    e.require(b.not_(meet))
