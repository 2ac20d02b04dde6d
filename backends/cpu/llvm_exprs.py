"""Expression rules of the LLVM backend: one emitter per IR node, one table per operator.

The frontend already cast operands to the result dtype, so each rule only dispatches on whether
that dtype is an integer, a float or a bool.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from typing import Any, NamedTuple

from llvmlite import ir as ll
from polyfuse.backends.cpu import llvm_complex as cx
from polyfuse.backends.cpu.quotients import SLACK, quotient_site
from polyfuse.backends.cpu.vector_math import VectorMath

from polyfuse.errors import InternalError
from polyfuse.model import ir
from polyfuse.model.funcs import VECTOR_MATH
from polyfuse.options import guarded_checks

_TYPES = {
    "float64": ll.DoubleType(), "float32": ll.FloatType(), "int64": ll.IntType(64),
    "int32": ll.IntType(32), "int16": ll.IntType(16), "int8": ll.IntType(8), "uint64": ll.IntType(64),
    "uint32": ll.IntType(32), "uint16": ll.IntType(16), "uint8": ll.IntType(8), "bool": ll.IntType(1),
    **cx.TYPES,
}


def llvm_type(dtype: str):
    return _TYPES[dtype]


def is_float(dtype: str) -> bool:
    return dtype.startswith("float")


def is_unsigned(dtype: str) -> bool:
    """LLVM integers have no sign: unsigned dtypes pick udiv/urem/icmp u*/uitofp/zext."""
    return dtype.startswith("uint") or dtype == "bool"


_INT_CMP = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!="}
_FLOAT_INTRINSICS = {"sqrt": "llvm.sqrt", "exp": "llvm.exp", "log": "llvm.log", "sin": "llvm.sin",
                     "cos": "llvm.cos", "floor": "llvm.floor", "ceil": "llvm.ceil", "fabs": "llvm.fabs",
                     "pow": "llvm.pow", "tanh": "llvm.tanh", "trunc": "llvm.trunc", "rint": "llvm.rint",
                     "copysign": "llvm.copysign", "exp2": "llvm.exp2", "log2": "llvm.log2",
                     "log10": "llvm.log10"}


INDEX_ERROR = "polyfuse_index_error"  # 1 + 64 * array position + axis of a bad run-time subscript
INDEX_VALUE = "polyfuse_index_value"  # the subscript's value
INDEX_EXTENT = "polyfuse_index_extent"  # the length it was checked against (NumPy's "with size N")
CHECK_PHASE = "polyfuse_check_phase"  # the phase of the failed ir.Check recorded in INDEX_ERROR
CHECK_AT = "polyfuse_check_at"  # its iteration of the phase's chunked loop (0 where none)
CHECK_LOCK = "polyfuse_check_lock"  # held by the thread recording a failure (KernelCodegen.record_check)
RECORD_CHECK = "polyfuse_record_check"  # the function that records it


_I8 = ll.IntType(8)


def _is_bool(address) -> bool:
    return address.type.pointee == ll.IntType(1)


def has_index(index) -> bool:
    """Does a subscript hold a value computed at run time (checked in the generated code)?"""
    return any(isinstance(node, ir.Index) for node in ir.distinct_nodes(*index))


class Emitted(NamedTuple):
    """A node's value as ``ExprEmitter.emit`` made it: where it may be reused, and the run-time
    subscript checks (``ok`` values) it made on the way."""

    node: ir.Expr
    builder: ll.IRBuilder
    arm: tuple[int, ...]
    value: Any
    oks: tuple


class ExprEmitter(VectorMath):
    def __init__(self, codegen) -> None:
        self.cg = codegen
        self.b: ll.IRBuilder = codegen.builder
        self.checks: list | None = None  # the run-time subscript checks of the address being built
        self.carried: dict | None = None  # the statement's loads that read a carried value's slot instead
        self.complex = cx.ComplexRules(self)
        self.depth = 0  # nesting of ``emit`` calls: 0 outside any expression
        self.emitted: dict[int, Emitted] = {}  # this expression's values, by node (``emit``)
        self.arm: tuple[int, ...] = ()  # the branch arms open in this expression (``branch_arm``)
        self.arm_ids = itertools.count()
        self.oks: list = []  # the subscript checks' ``ok`` values, as ``checks`` but always kept

    def emit_with(self, expr: ir.Expr, builder: ll.IRBuilder):
        saved, self.b = self.b, builder
        try:
            return self.emit(expr)
        finally:
            self.b = saved

    def emit(self, expr: ir.Expr):
        """``expr``'s value, each node emitted once where its first value dominates.

        The frontend shares operands among nodes (``int(x)`` tests one ``x`` about ten times:
        ir.distinct_nodes), so a tree walk emits a nest of such calls exponentially often (one
        campaign statement: 338 nodes, a tree of 207,659, minutes in LLVM's O3).  A node's value
        is reused within the same top-level expression (no store came between), with the same
        builder, where no branch arm it was emitted in has closed since (``branch_arm``: the code
        of one arm is a chain of blocks each reached only through the one before).  A reused
        node that checked run-time subscripts hands their ``ok`` values to the address being
        checked (``checked_address``); its failures were recorded where it was first emitted,
        on every path to here."""
        if self.depth == 0:
            self.emitted, self.arm, self.oks = {}, (), []
        if isinstance(expr, (ir.Const, ir.Var)):
            return getattr(self, f"_{type(expr).__name__}")(expr)
        known = self.emitted.get(id(expr))
        if known is not None and known.node is expr and known.builder is self.b \
                and known.arm == self.arm[:len(known.arm)]:
            if self.checks is not None:
                self.checks.extend(known.oks)
            self.oks.extend(known.oks)
            return known.value
        first_ok = len(self.oks)
        self.depth += 1
        try:
            value = getattr(self, f"_{type(expr).__name__}")(expr)
        finally:
            self.depth -= 1
        self.emitted[id(expr)] = Emitted(expr, self.b, self.arm, value, tuple(self.oks[first_ok:]))
        return value

    @contextlib.contextmanager
    def branch_arm(self):
        """Code that runs on some paths only (an arm of an if): the values emitted in it do not
        dominate the code after it, so ``emit`` forgets them when it ends."""
        saved = self.arm
        self.arm = (*saved, next(self.arm_ids))
        try:
            yield
        finally:
            self.arm = saved

    # ---- leaves ----------------------------------------------------------------------------
    def _Const(self, e: ir.Const):
        value = e.value
        if e.dtype == "bool":
            value = int(bool(value))
        return ll.Constant(llvm_type(e.dtype), value)

    def _Var(self, e: ir.Var):
        value = self.cg.values.get(e.name)
        if value is None:
            raise InternalError(f"unbound name {e.name!r} in generated code")
        return value

    def _Load(self, e: ir.Load):
        if self.carried is not None and e in self.carried:  # a carried load (polyfuse/analysis/carried_loads.py)
            return self.b.load(self.carried[e])
        if not has_index(e.index):
            return self.load_element(self._address(e.array, e.index), bool(e.index))
        address, ok = self.checked_address(e.array, e.index)
        with self.b.if_else(ok) as (then, otherwise):  # never touch memory outside the array
            with then:
                value, then_block = self.load_element(address, True), self.b.block
            with otherwise:
                else_block = self.b.block
        phi = self.b.phi(value.type)
        phi.add_incoming(value, then_block)
        phi.add_incoming(cx.zero(value.type), else_block)
        return phi

    def load_element(self, address, element: bool):
        """The value at ``address``; an element of a bool array is read as its byte (a NumPy bool
        is one byte, any nonzero value true): ``load i1`` from byte-strided memory cannot be
        widened by the loop vectorizer (a vector of i1 is packed bits), ``load i8`` can."""
        if element and _is_bool(address):
            byte = self.b.load(self.b.bitcast(address, _I8.as_pointer()))
            return self.b.icmp_unsigned("!=", byte, ll.Constant(_I8, 0))
        return self.b.load(address)

    def store_element(self, value, address, element: bool):
        """Store ``value`` at ``address``; a bool array's element as the byte 0 or 1.  Returns
        the store instruction."""
        if element and _is_bool(address):
            return self.b.store(self.b.zext(value, _I8), self.b.bitcast(address, _I8.as_pointer()))
        return self.b.store(value, address)

    def checked_address(self, array: str, index):
        """The address of ``array[index]`` with run-time subscripts (ir.Index), and whether they
        all are inside their axes (the address is then safe to use)."""
        saved, self.checks = self.checks, []
        saved_oks, self.oks = self.oks, []  # (an inner address keeps its checks, as ``checks``)
        try:
            address = self._address(array, index)
            ok = self.checks[0]
            for check in self.checks[1:]:
                ok = self.b.and_(ok, check)
            return address, ok
        finally:
            self.checks, self.oks = saved, saved_oks

    def _Index(self, e: ir.Index):
        """Wrap a negative subscript once, as numpy does; outside the axis record the error
        (backends/cpu/llvm.py raises IndexError after the call) and use 0."""
        value, extent = self.emit(e.operand), self.emit(e.extent)
        negative = self.b.icmp_signed("<", value, ll.Constant(value.type, 0))
        wrapped = self.b.select(negative, self.b.add(value, extent), value)
        ok = self.b.icmp_unsigned("<", wrapped, extent)
        failed = self.b.not_(ok)
        if e.when is not None:  # a guarded store's subscript: no access and no check where it fails
            when = self.emit(e.when)
            ok, failed = self.b.and_(ok, when), self.b.and_(failed, when)
        with self.b.if_then(failed, likely=False):
            code = 1 + self.cg.program_arrays.index(e.array) * 64 + e.axis
            self.b.store(ll.Constant(ll.IntType(64), code), self.cg.error_global(INDEX_ERROR))
            self.b.store(value, self.cg.error_global(INDEX_VALUE))
            self.b.store(self._int64(extent), self.cg.error_global(INDEX_EXTENT))
        if self.checks is not None:
            self.checks.append(ok)
        self.oks.append(ok)
        return self.b.select(ok, wrapped, ll.Constant(value.type, 0))

    def _Check(self, e: ir.Check):
        """An ``assert`` where it runs: the first failure of a call records its message's code
        (1 + 64 * number of arrays + position in ``cg.check_messages``; the first in the loop
        order, whichever team thread fails first: KernelCodegen.record_check); backends/cpu/llvm.py
        raises AssertionError after the phase, the operand's value standing for Check.VALUE."""
        if self.cg.check_bad is not None and e.guard is not None:  # a nest run twice (KernelCodegen._emit_checked_twice)
            self.b.store(self.b.or_(self.b.load(self.cg.check_bad), self.emit(e.guard)), self.cg.check_bad)
            return ll.Constant(llvm_type(e.operand.dtype), 0)
        if self.cg.check_bad is not None:
            value = self.emit(e.operand)
            self.b.store(self.b.or_(self.b.load(self.cg.check_bad), self._nonzero(value)), self.cg.check_bad)
            return ll.Constant(value.type, 0)
        if e.guard is not None and guarded_checks():
            # the guard first, one cheap branch, the operand only where it holds: branched on its
            # own, LLVM merged the float store checks' compares into mask compares and their
            # branches (the branching float64 -> int32 store 2.4 -> 3.2 ms with ov47's recorder)
            with self.b.if_then(self.emit(e.guard), likely=False), self.branch_arm():
                return self._record_failed(e)  # (a constant: no block to dominate)
        return self._record_failed(e)

    def _record_failed(self, e: ir.Check):
        """``e``'s operand, and where it is nonzero the failure recorded (``_Check``)."""
        value = self.emit(e.operand)
        with self.b.if_then(self._nonzero(value), likely=False):
            code = 1 + 64 * len(self.cg.program_arrays) + self.cg.check_messages.index((e.error, e.message))
            self.cg.record_check(code, self._int64(value))  # Check.VALUE
        return ll.Constant(value.type, 0)

    def _nonzero(self, value):
        return self.b.icmp_signed("!=", value, ll.Constant(value.type, 0))

    def _int64(self, value):
        """An integer value widened (sign-extended) to the i64 of the error globals."""
        width = value.type.width
        return value if width == 64 else self.b.sext(value, ll.IntType(64)) if width < 64 else \
            self.b.trunc(value, ll.IntType(64))

    def _address(self, array: str, index):
        base, strides = self.cg.arrays[array]
        if not index:
            return base
        offset = None
        for expr, stride in zip(index, strides):
            term = self.emit(expr)
            if not (isinstance(stride, ll.Constant) and stride.constant == 1):
                term = self.b.mul(term, stride)
            offset = term if offset is None else self.b.add(offset, term)
        return self.b.gep(base, [offset], inbounds=True)

    # ---- operators -----------------------------------------------------------------------
    def _BinOp(self, e: ir.BinOp):
        lhs, rhs = self.emit(e.lhs), self.emit(e.rhs)
        if cx.is_complex(e.dtype):  # scalar code, no fast-math flags: numpy's exact roundings
            return self.complex.binop(e.op, lhs, rhs, ir.complex_value(e.rhs))
        if e.op == "**" and is_float(e.dtype) and self._inline_power(e.rhs):
            return self.inline_power(lhs, self._inline_power(e.rhs))
        if is_float(e.dtype):
            result = _FLOAT_BINOPS[e.op](self, lhs, rhs)
            if self.cg.fastmath and e.op in ("+", "-", "*", "/"):
                result.flags.append("fast")  # opt-in: lets LLVM reassociate and vectorize reductions
            elif e.reassoc:
                # a NumPy reduction's accumulation (ir.BinOp.reassoc): the loop vectorizer may keep
                # partial sums in vector lanes; no nnan/ninf/nsz, so NaN, inf and -0.0 stay exact
                result.flags.append("reassoc")
            return result
        if is_unsigned(e.dtype) and e.op in _UINT_BINOPS:
            return _UINT_BINOPS[e.op](self, lhs, rhs)
        if e.op not in _INT_BINOPS:
            raise InternalError(f"operator {e.op!r} of {e.dtype} values has no LLVM rule")
        return _INT_BINOPS[e.op](self, lhs, rhs)

    def _Unary(self, e: ir.Unary):
        value = self.emit(e.operand)
        if e.op in ("not", "invert"):  # xor with all ones: a bool's not, an integer's ~
            return self.b.not_(value)
        if cx.is_complex(e.operand.dtype):
            if e.op == "numpy_abs":
                return self.complex.numpy_magnitude(value)
            return self.complex.negate(value) if e.op == "neg" else self.complex.magnitude(value)
        if e.op == "neg":
            return self.b.fneg(value) if is_float(e.dtype) else self.b.neg(value)
        if is_float(e.dtype):
            return self._intrinsic("llvm.fabs", [value])
        if is_unsigned(e.dtype):
            return value
        negative = self.b.icmp_signed("<", value, ll.Constant(value.type, 0))
        return self.b.select(negative, self.b.neg(value), value)

    def _Compare(self, e: ir.Compare):
        lhs, rhs = self.emit(e.lhs), self.emit(e.rhs)
        if cx.is_complex(e.lhs.dtype):
            return self.complex.equal(e.op, lhs, rhs)
        if is_float(e.lhs.dtype):
            # Python: comparisons with NaN are False, except != which is True
            return self.b.fcmp_unordered("!=", lhs, rhs) if e.op == "!=" else self.b.fcmp_ordered(e.op, lhs, rhs)
        if is_unsigned(e.lhs.dtype):
            return self.b.icmp_unsigned(_INT_CMP[e.op], lhs, rhs)
        return self.b.icmp_signed(_INT_CMP[e.op], lhs, rhs)

    def _BoolOp(self, e: ir.BoolOp):
        if has_index(e.values[1:]):
            return self._short_circuit(e)
        values = [self.emit(v) for v in e.values]
        result = values[0]
        for value in values[1:]:
            result = self.b.and_(result, value) if e.op == "and" else self.b.or_(result, value)
        return result

    def _short_circuit(self, e: ir.BoolOp):
        """``a and b`` as Python evaluates it: ``b`` (which checks a run-time subscript) only when
        it decides the result, so a subscript that Python never computes raises nothing."""
        result = self.emit(e.values[0])
        for value in e.values[1:]:
            before = self.b.block
            decides = result if e.op == "and" else self.b.not_(result)
            with self.b.if_then(decides), self.branch_arm():
                emitted, inner = self.emit(value), self.b.block
            phi = self.b.phi(result.type)
            phi.add_incoming(ll.Constant(result.type, 0 if e.op == "and" else 1), before)
            phi.add_incoming(emitted, inner)
            result = phi
        return result

    def _Select(self, e: ir.Select):
        if not e.guarded and not has_index((e.then, e.otherwise)):
            # no side effects and every load proven in bounds: eager evaluation is safe
            return self.b.select(self.emit(e.cond), self.emit(e.then), self.emit(e.otherwise))
        # the bounds proof only covers the branch the condition picks: branch for real
        cond = self.emit(e.cond)
        with self.b.if_else(cond) as (then, otherwise):
            with then, self.branch_arm():
                then_value, then_block = self.emit(e.then), self.b.block
            with otherwise, self.branch_arm():
                else_value, else_block = self.emit(e.otherwise), self.b.block
        phi = self.b.phi(then_value.type)
        phi.add_incoming(then_value, then_block)
        phi.add_incoming(else_value, else_block)
        return phi

    def _Call(self, e: ir.Call):
        site = quotient_site(e) if self.cg.quotients else None
        if site is not None and site.rhs in self.cg.quotients["recips"]:
            return self.rounded_quotient(site)
        args = [self.emit(a) for a in e.args]
        if any(cx.is_complex(a.dtype) for a in e.args) or cx.is_complex(e.dtype):
            return self.complex.call(e.func, args)
        if e.func in VECTOR_MATH and self._vectorizable_math():
            return self.inline_math(e.func, *args)
        if e.func == "pow" and is_float(e.dtype) and self._inline_power(e.args[1]):
            return self.inline_power(args[0], self._inline_power(e.args[1]))
        kind = e.args[0].dtype
        if e.func == "pow" and e.lib == "np":
            return self.np_power(args)
        if e.func == "pow" and is_float(e.dtype):
            return self.float_pow(*args)
        if e.func in _SCALAR_RULES:
            return _SCALAR_RULES[e.func](self, args, kind)
        if e.func in _FLOAT_INTRINSICS:
            return self._intrinsic(_FLOAT_INTRINSICS[e.func], args)
        return self.libm(e.func, args)

    def rounded_quotient(self, site: ir.BinOp):
        """``rint(a / b)`` as ``rint(a * r)`` with ``r = 1 / b``, and the block's flag set where
        that may differ (backends/cpu/quotients.py)."""
        b, double = self.b, ll.DoubleType()
        quotient = b.fmul(self.emit(site.lhs), self.cg.quotients["recips"][site.rhs])
        nearest = self._intrinsic("llvm.rint", [quotient])
        off = self._intrinsic("llvm.fabs", [b.fsub(quotient, nearest)])
        size = self._intrinsic("llvm.fabs", [quotient])
        margin = self._intrinsic("llvm.fma", [size, ll.Constant(double, SLACK), off])
        exact = b.fcmp_ordered("<", margin, ll.Constant(double, 0.5))
        flag = self.cg.quotients["bad"]
        b.store(b.or_(b.load(flag), b.not_(exact)), flag)
        return nearest

    def libm(self, name: str, args: list):
        """A call of the C library's ``name`` (``namef`` for float32): what numpy's npy_math calls
        where it has no SIMD loop of its own."""
        kind = args[0].type
        full = name + ("f" if isinstance(kind, ll.FloatType) else "")
        fn = self.b.module.globals.get(full)
        if fn is None:
            fn = ll.Function(self.b.module, ll.FunctionType(kind, [kind] * len(args)), name=full)
        return self.b.call(fn, args)

    def np_power(self, args):
        """numpy ``power``: libm's pow, except that an exponent of 0.5 takes numpy's fast path
        through sqrt (so ``np.power(-inf, 0.5)`` is NaN where C's pow gives inf)."""
        x, y = args
        half = self.b.fcmp_ordered("==", y, ll.Constant(y.type, 0.5))
        return self.b.select(half, self._intrinsic("llvm.sqrt", [x]), self.float_pow(x, y))

    def float_pow(self, x, y):
        """libm's pow of two floats: inline (``VectorMath._vm_pow``) where inline math pays, and
        there ``x ** 0.5`` as ``half_power``."""
        if self._vectorizable_math():
            if isinstance(y, ll.Constant) and y.constant == 0.5:
                return self.half_power(x)
            return self.inline_math("pow", x, y)
        return self._intrinsic("llvm.pow", [x, y])

    def half_power(self, x):
        """C's ``pow(x, 0.5)`` through the correctly rounded sqrt, which vectorizes: pow's special
        values kept (``pow(-0.0, 0.5)`` is +0.0, adding 0.0 turns sqrt's -0.0 into it; ``pow(-inf,
        0.5)`` is +inf where sqrt gives NaN); elsewhere within 1 ulp of libm's pow, which is not
        always correctly rounded (glibc: ~0.1% of doubles 1 ulp off sqrt; the inline pow ~6%)."""
        root = self.b.fadd(self._intrinsic("llvm.sqrt", [x]), ll.Constant(x.type, 0.0))
        minus_inf = self.b.fcmp_ordered("==", x, ll.Constant(x.type, float("-inf")))
        return self.b.select(minus_inf, ll.Constant(x.type, float("inf")), root)

    def np_logaddexp(self, args, kind):
        """numpy's npy_logaddexp: x == y gives x + ln 2 (also for infinities), otherwise the larger
        plus log1p(exp(-|x - y|)); NaN propagates.  Inline exp and log1p where inline math pays
        (``_vectorizable_math``), libm's otherwise."""
        x, y = args
        b, zero = self.b, ll.Constant(x.type, 0.0)
        tmp = b.fsub(x, y)
        if self._vectorizable_math():  # one inline exp and log1p: the same terms, selected first
            larger = b.select(b.fcmp_ordered(">", tmp, zero), x, y)
            gap = b.fneg(self._intrinsic("llvm.fabs", [tmp]))  # a NaN stays NaN through both
            value = b.fadd(larger, self.inline_math("log1p", self.inline_math("exp", gap)))
        else:
            right = b.fadd(x, self.libm("log1p", [self._intrinsic("llvm.exp", [b.fneg(tmp)])]))
            left = b.fadd(y, self.libm("log1p", [self._intrinsic("llvm.exp", [tmp])]))
            value = b.select(b.fcmp_ordered(">", tmp, zero), right,
                             b.select(b.fcmp_ordered("<=", tmp, zero), left, tmp))
        ln2 = ll.Constant(x.type, math.log(2.0))
        return b.select(b.fcmp_ordered("==", x, y), b.fadd(x, ln2), value)

    def np_logaddexp2(self, args, kind):
        """numpy's npy_logaddexp2: x == y gives x + 1 (also for infinities), otherwise the larger
        plus log2(e) * log1p(exp2(-|x - y|)), libm's exp2 and log1p as npy_math calls them; NaN
        propagates."""
        x, y = args
        b, zero = self.b, ll.Constant(x.type, 0.0)
        tmp = b.fsub(x, y)
        log2e = ll.Constant(x.type, 1.4426950408889634)  # NPY_LOG2E (its float32 rounding: the same)
        right = b.fadd(x, b.fmul(log2e, self.libm("log1p", [self.libm("exp2", [b.fneg(tmp)])])))
        left = b.fadd(y, b.fmul(log2e, self.libm("log1p", [self.libm("exp2", [tmp])])))
        value = b.select(b.fcmp_ordered(">", tmp, zero), right, b.select(b.fcmp_ordered("<=", tmp, zero), left, tmp))
        return b.select(b.fcmp_ordered("==", x, y), b.fadd(x, ll.Constant(x.type, 1.0)), value)

    def np_maximum(self, args, kind):
        """numpy ``maximum``: NaN propagates; otherwise ``a if a > b else b`` (numpy's AVX-512
        loop, as measured: ties, e.g. 0.0 and -0.0, give the second value)."""
        a, b = args
        if not is_float(kind):
            return self.b.select(self._icmp(kind, ">", a, b), a, b)
        return self.b.select(self.b.fcmp_unordered("uno", a, a), a,
                             self.b.select(self.b.fcmp_ordered(">", a, b), a, b))

    def np_minimum(self, args, kind):
        a, b = args
        if not is_float(kind):
            return self.b.select(self._icmp(kind, "<", a, b), a, b)
        return self.b.select(self.b.fcmp_unordered("uno", a, a), a,
                             self.b.select(self.b.fcmp_ordered("<", a, b), a, b))

    def np_fmax(self, args, kind):
        """numpy ``fmax``: NaN ignored unless both are NaN; ties give the first value."""
        a, b = args
        if not is_float(kind):
            return self.b.select(self._icmp(kind, ">=", a, b), a, b)
        keep = self.b.or_(self.b.fcmp_ordered(">=", a, b), self.b.fcmp_unordered("uno", b, b))
        return self.b.select(keep, a, b)

    def np_fmin(self, args, kind):
        a, b = args
        if not is_float(kind):
            return self.b.select(self._icmp(kind, "<=", a, b), a, b)
        keep = self.b.or_(self.b.fcmp_ordered("<=", a, b), self.b.fcmp_unordered("uno", b, b))
        return self.b.select(keep, a, b)

    def np_sign(self, args, kind):
        """numpy ``sign``: -1, 0 (also for -0.0) or 1; NaN stays NaN."""
        (x,) = args
        one, zero = (ll.Constant(x.type, 1.0), ll.Constant(x.type, 0.0)) if is_float(kind) else \
            (ll.Constant(x.type, 1), ll.Constant(x.type, 0))
        if not is_float(kind):
            positive = self.b.select(self._icmp(kind, ">", x, zero), one, zero)
            if is_unsigned(kind):
                return positive
            return self.b.select(self._icmp(kind, "<", x, zero), ll.Constant(x.type, -1), positive)
        value = self.b.select(self.b.fcmp_ordered("==", x, zero), zero, x)  # NaN stays
        value = self.b.select(self.b.fcmp_ordered("<", x, zero), ll.Constant(x.type, -1.0), value)
        return self.b.select(self.b.fcmp_ordered(">", x, zero), one, value)

    def np_isnan(self, args, kind):
        if not is_float(kind):
            return ll.Constant(ll.IntType(1), 0)
        return self.b.fcmp_unordered("uno", args[0], args[0])

    def np_isinf(self, args, kind):
        if not is_float(kind):
            return ll.Constant(ll.IntType(1), 0)
        magnitude = self._intrinsic("llvm.fabs", [args[0]])
        return self.b.fcmp_ordered("==", magnitude, ll.Constant(args[0].type, float("inf")))

    def np_isfinite(self, args, kind):
        if not is_float(kind):
            return ll.Constant(ll.IntType(1), 1)
        magnitude = self._intrinsic("llvm.fabs", [args[0]])
        return self.b.fcmp_ordered("<", magnitude, ll.Constant(args[0].type, float("inf")))

    def np_fmod(self, args, kind):
        """C ``fmod`` (sign of the dividend); integers truncate, by zero gives 0 (numpy)."""
        a, b = args
        if is_float(kind):
            return self.b.frem(a, b)
        zero = ll.Constant(a.type, 0)
        is_zero = self.b.icmp_signed("==", b, zero)
        safe_b = self.b.select(is_zero, ll.Constant(a.type, 1), b)
        if is_unsigned(kind):
            return self.b.select(is_zero, zero, self.b.urem(a, safe_b))
        # INT_MIN % -1 overflows in LLVM: use divisor 1 there too (the remainder is 0 either way)
        minus_one = self.b.icmp_signed("==", safe_b, ll.Constant(a.type, -1))
        safe_b = self.b.select(minus_one, ll.Constant(a.type, 1), safe_b)
        return self.b.select(is_zero, zero, self.b.srem(a, safe_b))

    def _icmp(self, kind: str, op: str, a, b):
        return self.b.icmp_unsigned(op, a, b) if is_unsigned(kind) else self.b.icmp_signed(op, a, b)

    def _inline_power(self, exponent: ir.Expr) -> int:
        """The exponent 2, 3 or 4 of ``x ** n`` when it is a constant and inline math pays
        (``VectorMath.inline_power``); 0 otherwise (libm's pow)."""
        while isinstance(exponent, ir.Cast):
            exponent = exponent.operand
        if not (isinstance(exponent, ir.Const) and exponent.value in (2, 3, 4)
                and not isinstance(exponent.value, bool)):
            return 0
        return int(exponent.value) if self._vectorizable_math() else 0

    def _vectorizable_math(self) -> bool:
        """Inline math (vector_math.py) pays only where LLVM vectorizes them: in a loop without carried
        dependences (a parallel one), or anywhere under fastmath (reductions vectorize too).
        Scalar, the polynomial's dependent steps are slower than a libm call."""
        return self.cg.fastmath or (self.cg.vector_math and self.cg.in_parallel_loop)

    def _Cast(self, e: ir.Cast):
        value = self.emit(e.operand)
        src, dst = e.operand.dtype, e.dtype
        target = llvm_type(dst)
        if src == dst:
            return value
        if cx.is_complex(src):
            assert dst == "bool" or cx.is_complex(dst), "the frontend refuses complex to real casts"
            return self.complex.truth(value) if dst == "bool" else self.complex.convert(value, dst)
        if cx.is_complex(dst):
            return self.complex.from_real(value, is_float(src), is_unsigned(src), dst)
        if dst == "bool":
            zero = ll.Constant(value.type, 0.0 if is_float(src) else 0)
            return self.b.fcmp_unordered("!=", value, zero) if is_float(src) else self.b.icmp_signed("!=", value, zero)
        if is_float(src) and is_float(dst):
            return self.b.fpext(value, target) if dst == "float64" else self.b.fptrunc(value, target)
        if is_float(dst):
            return self.b.uitofp(value, target) if is_unsigned(src) else self.b.sitofp(value, target)
        if is_float(src):
            return self.float_to_int(value, dst)
        width_src, width_dst = value.type.width, target.width
        if width_dst == width_src:
            return value
        if width_dst < width_src:
            return self.b.trunc(value, target)
        return self.b.zext(value, target) if is_unsigned(src) else self.b.sext(value, target)

    def float_to_int(self, value, dst: str):
        """Truncation toward zero as NumPy's casts do: narrow types through i32 and uint32 through
        i64 (then wrapped), as C compilers on x86-64 do, uint64 through i64 less 2**63 from 2**63
        up; where the value does not fit the i32 / i64 (NaN, the infinities, beyond) the machine's
        conversion instruction decides (``convert``), as in NumPy's C casts."""
        target = llvm_type(dst)
        if dst == "uint64":
            i64, top = ll.IntType(64), ll.Constant(value.type, float(2**63))
            high = self.b.fcmp_ordered(">=", value, top)
            high_part = self.b.xor(self.convert(self.b.fsub(value, top), 64), ll.Constant(i64, 1 << 63))
            return self.b.select(high, high_part, self.convert(value, 64))
        if target.width < 32:
            return self.b.trunc(self.convert(value, 32), target)
        if dst == "uint32":
            return self.b.trunc(self.convert(value, 64), target)
        return self.convert(value, target.width)

    def convert(self, value, bits: int):
        """``value`` truncated to a signed integer of ``bits`` (32 or 64): LLVM's fptosi, whose
        result is poison where it does not fit (the optimiser may then store anything, and the
        vectorizer's AVX-512 ``vcvttsd2usi`` made a uint64's NaN 2**64 - 1), frozen: the value
        the instruction gives, x86-64's cvttsd2si / cvttpd2dq minimum of the integer, which is
        what NumPy's casts give on this machine (a select of that minimum cost quantize_int8 35%).
        A constant operand (which LLVM would fold to an arbitrary value) gets that value here."""
        target = ll.IntType(bits)
        if isinstance(value, ll.Constant) and isinstance(value.constant, float):
            number = value.constant
            fits = number == number and abs(number) < 2.0 ** (bits - 1)
            return ll.Constant(target, int(number) if fits else -(2 ** (bits - 1)))
        converted = self.b.fptosi(value, target)
        frozen = ll.instructions.Instruction(self.b.block, target, "freeze", [converted])
        self.b._insert(frozen)  # (llvmlite's IRBuilder has no freeze)
        return frozen

    # ---- helpers -------------------------------------------------------------------------
    def _muladd(self, a, b, c):
        """a * b + c inside our own polynomials: ``llvm.fmuladd`` lets LLVM use one FMA where the
        CPU has it (half the instructions; the polynomial is as accurate either way).  User
        arithmetic never goes through here: it keeps separate, Python-exact roundings."""
        return self._intrinsic("llvm.fmuladd", [a, b, c])

    def _intrinsic(self, name: str, args: list):
        module = self.b.module
        kind = args[0].type
        suffix = "f64" if isinstance(kind, ll.DoubleType) else "f32"
        full = f"{name}.{suffix}"
        fn = module.globals.get(full)
        if fn is None:
            fn = ll.Function(module, ll.FunctionType(kind, [kind] * len(args)), name=full)
        return self.b.call(fn, args)

    def _int_division(self, a, b):
        """(quotient, remainder, divisor-is-zero flag) with Python's floor rounding."""
        zero, one = ll.Constant(a.type, 0), ll.Constant(a.type, 1)
        is_zero = self.b.icmp_signed("==", b, zero)
        # MIN // -1 overflows (a trap on x86): divide by 1 and negate instead, wrapping like numpy
        minus_one = self.b.icmp_signed("==", b, ll.Constant(a.type, -1))
        safe_b = self.b.select(self.b.or_(is_zero, minus_one), one, b)
        q, r = self.b.sdiv(a, safe_b), self.b.srem(a, safe_b)
        q = self.b.select(minus_one, self.b.neg(a), q)
        safe_b = self.b.select(minus_one, b, safe_b)
        # C rounds toward zero; Python rounds down: fix when the signs of r and b differ
        adjust = self.b.and_(self.b.icmp_signed("!=", r, zero),
                             self.b.icmp_signed("!=", self.b.icmp_signed("<", r, zero),
                                                self.b.icmp_signed("<", safe_b, zero)))
        q = self.b.select(adjust, self.b.sub(q, one), q)
        r = self.b.select(adjust, self.b.add(r, safe_b), r)
        return q, r, is_zero

    def int_floordiv(self, a, b):
        """Python ``a // b``; division by zero gives 0 as in numpy."""
        q, _, is_zero = self._int_division(a, b)
        return self.b.select(is_zero, ll.Constant(a.type, 0), q)

    def int_mod(self, a, b):
        """Python ``a % b`` (sign of the divisor); modulo by zero gives 0 as in numpy."""
        _, r, is_zero = self._int_division(a, b)
        return self.b.select(is_zero, ll.Constant(a.type, 0), r)

    def uint_division(self, a, b, op: str):
        """Unsigned ``a // b`` or ``a % b``: no rounding fix needed; by zero gives 0 (numpy)."""
        zero = ll.Constant(a.type, 0)
        is_zero = self.b.icmp_unsigned("==", b, zero)
        safe_b = self.b.select(is_zero, ll.Constant(a.type, 1), b)
        result = self.b.udiv(a, safe_b) if op == "udiv" else self.b.urem(a, safe_b)
        return self.b.select(is_zero, zero, result)

    def int_pow(self, a, b):
        """``a ** b`` for integers by repeated squaring (b < 0 gives 0, as numpy would not allow)."""
        fn = _ipow_function(self.b.module, a.type)
        return self.b.call(fn, [a, b])

    def float_floordiv(self, a, b):
        """Python float ``a // b``: floor of the exact quotient, via fmod like CPython."""
        mod = self.b.frem(a, b)
        div = self.b.fdiv(self.b.fsub(a, mod), b)
        zero = ll.Constant(a.type, 0.0)
        fix = self.b.and_(self.b.fcmp_ordered("!=", mod, zero),
                          self.b.icmp_unsigned("!=", self.b.fcmp_ordered("<", b, zero),
                                               self.b.fcmp_ordered("<", mod, zero)))
        div = self.b.select(fix, self.b.fsub(div, ll.Constant(a.type, 1.0)), div)
        floored = self._intrinsic("llvm.floor", [div])
        bump = self.b.fcmp_ordered(">", self.b.fsub(div, floored), ll.Constant(a.type, 0.5))
        floored = self.b.select(bump, self.b.fadd(floored, ll.Constant(a.type, 1.0)), floored)
        plain = self.b.fdiv(a, b)  # b == 0 or non-finite operands: follow IEEE like numpy
        # a NaN quotient (an infinite a) stays NaN, as numpy's npy_divmod gives
        exact = self.b.and_(self.b.fcmp_ordered("!=", b, zero), self.b.fcmp_unordered("!=", div, zero))
        return self.b.select(exact, floored, self._intrinsic("llvm.floor", [plain]))

    def float_mod(self, a, b):
        """Python float ``a % b``: result has the sign of ``b``."""
        mod = self.b.frem(a, b)
        zero = ll.Constant(a.type, 0.0)
        fix = self.b.and_(self.b.fcmp_ordered("!=", mod, zero),
                          self.b.icmp_unsigned("!=", self.b.fcmp_ordered("<", b, zero),
                                               self.b.fcmp_ordered("<", mod, zero)))
        adjusted = self.b.select(fix, self.b.fadd(mod, b), mod)
        # a zero result takes the sign of the divisor, as in CPython and numpy
        signed_zero = self._intrinsic("llvm.copysign", [zero, b])
        return self.b.select(self.b.fcmp_ordered("==", mod, zero), signed_zero, adjusted)

    def shift_left(self, a, count):
        """numpy's ``a << count``: the count read as unsigned, and 0 from the width on (LLVM's shl
        is poison there)."""
        inside = self.b.icmp_unsigned("<", count, ll.Constant(a.type, a.type.width))
        return self.b.select(inside, self.b.shl(a, count), ll.Constant(a.type, 0))

    def shift_right(self, a, count, signed: bool):
        """numpy's ``a >> count``: arithmetic for signed dtypes, logical for unsigned; from the width
        on (negative counts too, read as unsigned) the sign fill, -1 or 0."""
        inside = self.b.icmp_unsigned("<", count, ll.Constant(a.type, a.type.width))
        last = ll.Constant(a.type, a.type.width - 1)
        if signed:
            return self.b.ashr(a, self.b.select(inside, count, last))
        return self.b.select(inside, self.b.lshr(a, count), ll.Constant(a.type, 0))

    def py_min(self, a, b, is_float_: bool):
        """Python ``min(a, b)``: ``b if b < a else a`` (keeps Python's NaN behaviour)."""
        less = self.b.fcmp_ordered("<", b, a) if is_float_ else self.b.icmp_signed("<", b, a)
        return self.b.select(less, b, a)

    def py_max(self, a, b, is_float_: bool):
        greater = self.b.fcmp_ordered(">", b, a) if is_float_ else self.b.icmp_signed(">", b, a)
        return self.b.select(greater, b, a)


def _ipow_function(module: ll.Module, kind):
    name = f"polyfuse.ipow.i{kind.width}"
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    fn = ll.Function(module, ll.FunctionType(kind, [kind, kind]), name=name)
    fn.linkage = "internal"
    base, exp = fn.args
    entry, loop, done = fn.append_basic_block(), fn.append_basic_block(), fn.append_basic_block()
    b = ll.IRBuilder(entry)
    zero, one = ll.Constant(kind, 0), ll.Constant(kind, 1)
    b.cbranch(b.icmp_signed("<", exp, zero), done, loop)
    b.position_at_end(loop)
    acc = b.phi(kind)
    cur = b.phi(kind)
    e = b.phi(kind)
    acc.add_incoming(one, entry)
    cur.add_incoming(base, entry)
    e.add_incoming(exp, entry)
    odd = b.trunc(e, ll.IntType(1))
    new_acc = b.select(odd, b.mul(acc, cur), acc)
    new_e = b.ashr(e, one)
    new_cur = b.mul(cur, cur)
    acc.add_incoming(new_acc, loop)
    cur.add_incoming(new_cur, loop)
    e.add_incoming(new_e, loop)
    b.cbranch(b.icmp_signed("==", new_e, zero), done, loop)
    b.position_at_end(done)
    result = b.phi(kind)
    result.add_incoming(zero, entry)
    result.add_incoming(new_acc, loop)
    b.ret(result)
    return fn


_INT_BINOPS = {
    "+": lambda s, a, b: s.b.add(a, b),
    "-": lambda s, a, b: s.b.sub(a, b),
    "*": lambda s, a, b: s.b.mul(a, b),
    "//": lambda s, a, b: s.int_floordiv(a, b),
    "%": lambda s, a, b: s.int_mod(a, b),
    "**": lambda s, a, b: s.int_pow(a, b),
    "min": lambda s, a, b: s.py_min(a, b, False),
    "max": lambda s, a, b: s.py_max(a, b, False),
    "&": lambda s, a, b: s.b.and_(a, b),  # bools too: i1 and/or/xor are the logical operations
    "|": lambda s, a, b: s.b.or_(a, b),
    "^": lambda s, a, b: s.b.xor(a, b),
    "<<": lambda s, a, b: s.shift_left(a, b),
    ">>": lambda s, a, b: s.shift_right(a, b, signed=True),
}
_FLOAT_BINOPS = {
    "+": lambda s, a, b: s.b.fadd(a, b),
    "-": lambda s, a, b: s.b.fsub(a, b),
    "*": lambda s, a, b: s.b.fmul(a, b),
    "/": lambda s, a, b: s.b.fdiv(a, b),
    "//": lambda s, a, b: s.float_floordiv(a, b),
    "%": lambda s, a, b: s.float_mod(a, b),
    "**": lambda s, a, b: s.float_pow(a, b),
    "min": lambda s, a, b: s.py_min(a, b, True),
    "max": lambda s, a, b: s.py_max(a, b, True),
}


_UINT_BINOPS = {
    "//": lambda s, a, b: s.uint_division(a, b, "udiv"),
    "%": lambda s, a, b: s.uint_division(a, b, "urem"),
    "min": lambda s, a, b: s.b.select(s.b.icmp_unsigned("<", b, a), b, a),
    "max": lambda s, a, b: s.b.select(s.b.icmp_unsigned(">", b, a), b, a),
    ">>": lambda s, a, b: s.shift_right(a, b, signed=False),
}
_SCALAR_RULES = {
    "maximum": ExprEmitter.np_maximum, "minimum": ExprEmitter.np_minimum, "fmax": ExprEmitter.np_fmax,
    "fmin": ExprEmitter.np_fmin, "sign": ExprEmitter.np_sign, "isnan": ExprEmitter.np_isnan,
    "isinf": ExprEmitter.np_isinf, "isfinite": ExprEmitter.np_isfinite, "fmod": ExprEmitter.np_fmod,
    "logaddexp": ExprEmitter.np_logaddexp, "logaddexp2": ExprEmitter.np_logaddexp2,
}
