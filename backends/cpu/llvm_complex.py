"""Complex arithmetic of the LLVM backend, as numpy computes it.

A complex value is an LLVM ``{double, double}`` (``{float, float}`` for complex64) struct value,
so an array of them has numpy's interleaved (re, im) layout and loads/stores stay one access.
Every rule takes the parts apart, computes with the component type and packs the result:

- ``*`` is ``(ar*br - ai*bi, ar*bi + ai*br)`` with separate roundings (no C99 Annex G fixes,
  like numpy's loops); ``/`` is Smith's algorithm exactly as numpy's ``@TYPE@_divide`` loop;
- ``z ** n`` for a constant integer ``n`` is numpy's ``npy_cpow`` binary powering (and its
  zero-base cases); ``abs`` is libm's ``hypot`` (numpy's ``npy_cabs``, a scalar's), ``np.abs``
  of an array's element NumPy's vector loop's formula (``numpy_magnitude``);
- ``exp``/``log``/``sqrt`` are the textbook formulas over libm (exp/cos/sin, log/hypot/atan2,
  Kahan's sqrt via hypot), with the special values of C99's cexp/clog/csqrt that matter for
  finite input; for finite arguments they agree with numpy within a few ulp (see docs/subset.md).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir as ll

COMPONENT = {"complex64": ll.FloatType(), "complex128": ll.DoubleType()}
TYPES = {name: ll.LiteralStructType([kind, kind]) for name, kind in COMPONENT.items()}


def is_complex(dtype: str) -> bool:
    return dtype in TYPES


def zero(kind) -> ll.Constant:
    """The zero of an LLVM type (a struct's is ``zeroinitializer``)."""
    return ll.Constant(kind, None if isinstance(kind, ll.LiteralStructType) else 0)


class ComplexRules:
    """The complex rules of one ``ExprEmitter`` (``ex``: its builder, intrinsics and libm calls)."""

    def __init__(self, ex) -> None:
        self.ex = ex

    @property
    def b(self) -> ll.IRBuilder:
        return self.ex.b

    def parts(self, z):
        return self.b.extract_value(z, 0), self.b.extract_value(z, 1)

    def pack(self, re, im, builder: ll.IRBuilder | None = None):
        b = builder or self.b
        kind = ll.LiteralStructType([re.type, re.type])
        return b.insert_value(b.insert_value(ll.Constant(kind, None), re, 0), im, 1)

    # ---- arithmetic ------------------------------------------------------------------------
    def binop(self, op: str, lhs, rhs, exponent: complex | None = None):
        if op == "**":
            assert exponent is not None, "the frontend folds complex exponents to constants"
            return self.power(lhs, int(exponent.real))
        (ar, ai), (br, bi) = self.parts(lhs), self.parts(rhs)
        b = self.b
        if op == "+":
            return self.pack(b.fadd(ar, br), b.fadd(ai, bi))
        if op == "-":
            return self.pack(b.fsub(ar, br), b.fsub(ai, bi))
        if op == "*":
            return self.multiply(lhs, rhs)
        assert op == "/", f"complex operator {op!r} is refused by the frontend"
        return self.divide(ar, ai, br, bi)

    def multiply(self, lhs, rhs):
        (ar, ai), (br, bi) = self.parts(lhs), self.parts(rhs)
        b = self.b
        return self.pack(b.fsub(b.fmul(ar, br), b.fmul(ai, bi)), b.fadd(b.fmul(ar, bi), b.fmul(ai, br)))

    def divide(self, ar, ai, br, bi):
        """numpy's loop: Smith's algorithm on the larger part of the divisor; 0 / 0 divides the
        parts by |br| (inf or nan as IEEE says)."""
        b = self.b
        kind = ar.type
        one, zero = ll.Constant(kind, 1.0), ll.Constant(kind, 0.0)
        abs_r, abs_i = self.ex._intrinsic("llvm.fabs", [br]), self.ex._intrinsic("llvm.fabs", [bi])
        # |br| >= |bi|: rat = bi / br, scl = 1 / (br + bi * rat)
        rat1 = b.fdiv(bi, br)
        scl1 = b.fdiv(one, b.fadd(br, b.fmul(bi, rat1)))
        re1 = b.fmul(b.fadd(ar, b.fmul(ai, rat1)), scl1)
        im1 = b.fmul(b.fsub(ai, b.fmul(ar, rat1)), scl1)
        # both parts zero
        re0, im0 = b.fdiv(ar, abs_r), b.fdiv(ai, abs_r)
        # otherwise (also NaN parts): rat = br / bi, scl = 1 / (bi + br * rat)
        rat2 = b.fdiv(br, bi)
        scl2 = b.fdiv(one, b.fadd(bi, b.fmul(br, rat2)))
        re2 = b.fmul(b.fadd(b.fmul(ar, rat2), ai), scl2)
        im2 = b.fmul(b.fsub(b.fmul(ai, rat2), ar), scl2)
        first = b.fcmp_ordered(">=", abs_r, abs_i)
        both_zero = b.and_(b.fcmp_ordered("==", abs_r, zero), b.fcmp_ordered("==", abs_i, zero))
        re = b.select(first, b.select(both_zero, re0, re1), re2)
        im = b.select(first, b.select(both_zero, im0, im1), im2)
        return self.pack(re, im)

    def power(self, z, n: int):
        """numpy's npy_cpow for an integer exponent: n == 0 gives 1; a zero base gives 0 for
        n > 0 and nan for n < 0; 1 to 3 multiply out; otherwise binary powering from 1 (the
        first product with 1 is kept: it changes infinities and zero signs as in numpy), then
        1 / z**|n| for n < 0."""
        kind = z.type.elements[0]
        zero, one = ll.Constant(kind, 0.0), ll.Constant(kind, 1.0)
        if n == 0:
            return self.pack(one, zero)
        if n in (1, 2, 3):
            result = z if n == 1 else self.multiply(z, z) if n == 2 else self.multiply(z, self.multiply(z, z))
        else:
            result, square, left = self.pack(one, zero), z, abs(n)
            while True:  # numpy's loop, so the roundings are numpy's
                if left & 1:
                    result = self.multiply(result, square)
                left >>= 1
                if not left:
                    break
                square = self.multiply(square, square)
            if n < 0:
                result = self.divide(one, zero, *self.parts(result))
        re, im = self.parts(z)
        b = self.b
        is_zero = b.and_(b.fcmp_ordered("==", re, zero), b.fcmp_ordered("==", im, zero))
        special = self.pack(zero, zero) if n > 0 else \
            self.pack(ll.Constant(kind, math.nan), ll.Constant(kind, math.nan))
        return b.select(is_zero, special, result)

    def negate(self, z):
        re, im = self.parts(z)
        return self.pack(self.b.fneg(re), self.b.fneg(im))

    def conj(self, z):
        re, im = self.parts(z)
        return self.pack(re, self.b.fneg(im))

    def magnitude(self, z):
        return self.ex.libm("hypot", list(self.parts(z)))

    def numpy_magnitude(self, z):
        """``np.abs`` of a complex array's element as NumPy's SIMD loop computes it (AVX2,
        AVX-512, NEON): ``larger * sqrt(fma(r, r, 1))``, ``r = smaller / larger`` (0 where
        ``larger`` is 0 or ``smaller`` inf), after an inf part makes both parts inf and then a
        NaN part both NaN.  Straight-line, so it vectorizes; ``hypot`` (a libm call per element)
        was 20 times slower and differed from NumPy's array result in the last bit for about a
        third of the values."""
        b = self.b
        re, im = (self.ex._intrinsic("llvm.fabs", [part]) for part in self.parts(z))
        inf, nan = ll.Constant(re.type, math.inf), ll.Constant(re.type, math.nan)
        re_inf, im_inf = b.fcmp_ordered("==", re, inf), b.fcmp_ordered("==", im, inf)
        im = b.select(re_inf, inf, im)
        re = b.select(im_inf, inf, re)
        re_nan, im_nan = b.fcmp_unordered("uno", re, re), b.fcmp_unordered("uno", im, im)
        im = b.select(re_nan, nan, im)
        re = b.select(im_nan, nan, re)
        bigger = b.fcmp_ordered(">", re, im)
        larger, smaller = b.select(bigger, re, im), b.select(bigger, im, re)
        divide = b.not_(b.or_(b.fcmp_ordered("==", larger, ll.Constant(re.type, 0.0)),
                              b.fcmp_ordered("==", smaller, inf)))
        ratio = b.select(divide, b.fdiv(smaller, larger), ll.Constant(re.type, 0.0))
        one = ll.Constant(re.type, 1.0)
        root = self.ex._intrinsic("llvm.sqrt", [self.ex._intrinsic("llvm.fma", [ratio, ratio, one])])
        return b.fmul(root, larger)

    def equal(self, op: str, lhs, rhs):
        """``==`` when both parts are equal (NaN never is); ``!=`` its negation."""
        (ar, ai), (br, bi) = self.parts(lhs), self.parts(rhs)
        same = self.b.and_(self.b.fcmp_ordered("==", ar, br), self.b.fcmp_ordered("==", ai, bi))
        return same if op == "==" else self.b.not_(same)

    def truth(self, z):
        """``bool(z)``: either part non-zero (NaN counts as true)."""
        re, im = self.parts(z)
        zero = ll.Constant(re.type, 0.0)
        return self.b.or_(self.b.fcmp_unordered("!=", re, zero), self.b.fcmp_unordered("!=", im, zero))

    # ---- conversions -----------------------------------------------------------------------
    def from_real(self, value, src_is_float: bool, unsigned: bool, dst: str):
        """A real number as a complex of ``dst`` (imaginary part +0)."""
        kind = COMPONENT[dst]
        b = self.b
        if src_is_float:
            if value.type != kind:
                value = b.fpext(value, kind) if isinstance(kind, ll.DoubleType) else b.fptrunc(value, kind)
        else:
            value = b.uitofp(value, kind) if unsigned else b.sitofp(value, kind)
        return self.pack(value, ll.Constant(kind, 0.0))

    def convert(self, z, dst: str):
        """complex64 <-> complex128, part by part."""
        kind = COMPONENT[dst]
        re, im = self.parts(z)
        if re.type == kind:
            return z
        change = self.b.fpext if isinstance(kind, ll.DoubleType) else self.b.fptrunc
        return self.pack(change(re, kind), change(im, kind))

    # ---- functions -------------------------------------------------------------------------
    def call(self, func: str, args: list):
        if func == "real":
            return self.b.extract_value(args[0], 0)
        if func == "imag":
            return self.b.extract_value(args[0], 1)
        if func == "complex":
            return self.pack(args[0], args[1])
        if func == "conj":
            return self.conj(args[0])
        return getattr(self, f"c{func}")(args[0])

    def cexp(self, z):
        """glibc's cexp (what numpy calls): exp(x) * (cos y, sin y), with x above t = 709 (88 for
        float32) brought down by t once or twice and exp(t) folded into cos/sin first, so large
        x with small y stays finite; y == 0 keeps y; -inf + i(inf|nan) is 0 and +inf + i(inf|nan)
        is inf + i nan."""
        x, y = self.parts(z)
        b, kind, exp = self.b, x.type, lambda v: self.ex._intrinsic("llvm.exp", [v])  # noqa: E731
        double = isinstance(kind, ll.DoubleType)
        t = ll.Constant(kind, 709.0 if double else 88.0)
        huge = ll.Constant(kind, float(np.finfo(np.float64 if double else np.float32).max))
        zero, inf = ll.Constant(kind, 0.0), ll.Constant(kind, math.inf)
        cos, sin = self.ex._intrinsic("llvm.cos", [y]), self.ex._intrinsic("llvm.sin", [y])
        for _ in range(2):  # cos, sin times exp(t) while x > t
            big = b.fcmp_ordered(">", x, t)
            scale = exp(t)
            cos, sin = b.select(big, b.fmul(cos, scale), cos), b.select(big, b.fmul(sin, scale), sin)
            x = b.select(big, b.fsub(x, t), x)
        factor = b.select(b.fcmp_ordered(">", x, t), huge, exp(x))
        re, im = b.fmul(factor, cos), b.fmul(factor, sin)
        x0 = self.b.extract_value(z, 0)
        real_only = b.fcmp_ordered("==", y, zero)
        value = self.pack(b.select(real_only, exp(x0), re), b.select(real_only, y, im))
        y_finite = b.fcmp_ordered("<", self.ex._intrinsic("llvm.fabs", [y]), inf)
        minus_inf = b.and_(b.fcmp_ordered("==", x0, ll.Constant(kind, -math.inf)), b.not_(y_finite))
        plus_inf = b.and_(b.fcmp_ordered("==", x0, inf), b.not_(y_finite))
        value = b.select(minus_inf, self.pack(zero, self.ex._intrinsic("llvm.copysign", [zero, y])), value)
        return b.select(plus_inf, self.pack(inf, ll.Constant(kind, math.nan)), value)

    def clog(self, z):
        """(log |z|, atan2(y, x)): log(0) is -inf with the angle of the signed zeros."""
        x, y = self.parts(z)
        return self.pack(self.ex._intrinsic("llvm.log", [self.magnitude(z)]), self.ex.libm("atan2", [y, x]))

    def csqrt(self, z):
        """glibc's csqrt (what numpy calls).  With d = |z| from scaled parts (by 1/4 near overflow,
        by 2**(2k) for two subnormal-sized parts): x > 0 gives r = sqrt((d + x) / 2), s = y / 2r;
        x < 0 gives s = sqrt((d - x) / 2), r = |y / 2s|; the result is (r, copysign(s, y)) scaled
        back.  x == 0 gives (r, copysign(r, y)) with r = sqrt(|y| / 2); y == ±inf gives (inf, y)."""
        x, y = self.parts(z)
        b, kind = self.b, x.type
        double = isinstance(kind, ll.DoubleType)
        info = np.finfo(np.float64 if double else np.float32)
        c = lambda v: ll.Constant(kind, v)  # noqa: E731
        fabs = lambda v: self.ex._intrinsic("llvm.fabs", [v])  # noqa: E731
        sqrt = lambda v: self.ex._intrinsic("llvm.sqrt", [v])  # noqa: E731
        k = (info.nmant + 2) // 2  # glibc: (MANT_DIG + 1) / 2
        large = b.or_(b.fcmp_ordered(">", fabs(x), c(float(info.max) / 4)),
                      b.fcmp_ordered(">", fabs(y), c(float(info.max) / 4)))
        tiny = b.and_(b.fcmp_ordered("<", fabs(x), c(2 * float(info.tiny))),
                      b.fcmp_ordered("<", fabs(y), c(2 * float(info.tiny))))
        down = b.select(large, c(0.25), b.select(tiny, c(2.0 ** (2 * k)), c(1.0)))
        up = b.select(large, c(2.0), b.select(tiny, c(2.0 ** -k), c(1.0)))
        xs, ys = b.fmul(x, down), b.fmul(y, down)
        d = self.ex.libm("hypot", [xs, ys])
        half = c(0.5)
        r_pos = sqrt(b.fmul(half, b.fadd(d, xs)))
        s_pos = b.fmul(half, b.fdiv(ys, r_pos))
        s_neg = sqrt(b.fmul(half, b.fsub(d, xs)))
        r_neg = fabs(b.fmul(half, b.fdiv(ys, s_neg)))
        positive = b.fcmp_ordered(">", x, c(0.0))
        r = b.fmul(b.select(positive, r_pos, r_neg), up)
        s = b.fmul(b.select(positive, s_pos, s_neg), up)
        value = self.pack(r, self.ex._intrinsic("llvm.copysign", [s, y]))
        small_y = b.fcmp_ordered("<", fabs(y), c(2 * float(info.tiny)))
        r0 = b.select(small_y, b.fmul(half, sqrt(b.fmul(c(2.0), fabs(y)))), sqrt(b.fmul(half, fabs(y))))
        on_axis = b.and_(b.fcmp_ordered("==", x, c(0.0)), b.fcmp_ordered("!=", y, c(0.0)))
        value = b.select(on_axis, self.pack(r0, self.ex._intrinsic("llvm.copysign", [r0, y])), value)
        is_zero = b.and_(b.fcmp_ordered("==", x, c(0.0)), b.fcmp_ordered("==", y, c(0.0)))
        value = b.select(is_zero, self.pack(c(0.0), y), value)
        return b.select(b.fcmp_ordered("==", fabs(y), c(math.inf)), self.pack(c(math.inf), y), value)
