"""Inline transcendentals that LLVM's loop vectorizer turns into SIMD (``vector_math``).

The JIT has no vector math library: ``llvm.tanh`` or ``llvm.sin`` in a loop stays one libm call
per element and the loop does not vectorize.  These rules emit the same functions as
straight-line arithmetic (range reduction, a polynomial, the exponent from the bits, ``select``
for the special values), computed in float64 also for float32 arguments.  Each has a measured
bound against libm (tests/backends/cpu/test_vector_*.py, docs/performance.md).

``sin``/``cos``/``tan`` reduce exactly only for |x| <= ``TRIG_DOMAIN``; outside it (and for
inf/NaN) the element calls libm, and so do ``x ** y`` outside 0 < x < inf with a finite y and
``erfc`` above ``ERFC_LIBM`` (its far tail).  That call sits in a small helper (``fallback_module``)
that LLVM sees as a pure function with vector variants (the ``vector-function-abi-variant``
attribute), so the loop still vectorizes: a vector of arguments checks its lanes once and only a
lane outside the domain pays the libm call.  ``x ** n`` for a constant n of 2..4 is here too
(``inline_power``), and ``x ** y`` of two floats (``_vm_pow``: exp of y times a double-double log).
The hyperbolic and inverse functions reuse these kernels (exp's reduction for sinh/cosh, fdlibm's
atan for atan/asin/acos, log and log1p's correction for asinh/acosh/atanh); cbrt is fdlibm's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from llvmlite import ir as ll

F64, I64 = ll.DoubleType(), ll.IntType(64)
LN2_HI, LN2_LO = 0.6931471803691238, 1.9082149292705877e-10  # ln 2 = HI + LO, HI with 32 bits
TRIG_DOMAIN = 1.0e6  # |x| * 2/pi < 2**20: k * PIO2[0] stays exact (fdlibm's medium reduction)
#: pi/2 in 33-bit pieces and their tails (fdlibm's __ieee754_rem_pio2)
PIO2 = ((1.57079632673412561417e+00, 6.07710050650619224932e-11),
        (6.07710050630396597660e-11, 2.02226624879595063154e-21),
        (2.02226624871116645580e-21, 8.47842766036889956997e-32))
SIN = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
       2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
COS = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
       -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)
#: fdlibm's s_atan: atan(1/2), atan(1), atan(3/2), atan(inf) in two parts, and the polynomial
ATAN_CENTRES = ((4.63647609000806093515e-01, 2.26987774529616870924e-17),
                (7.85398163397448278999e-01, 3.06161699786838301793e-17),
                (9.82793723247329054082e-01, 1.39033110312309984516e-17),
                (1.57079632679489655800e+00, 6.12323399573676603587e-17))
ATAN = (3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
        -1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02,
        6.66107313738753120669e-02, -5.83357013379057348645e-02, 4.97687799461593236017e-02,
        -3.65315727442169155270e-02, 1.62858201153657823623e-02)
#: Cephes' tanh on |x| < 0.625: tanh(x) = x + x s P(s) / Q(s), s = x**2 (Q monic)
TANH_P = (-9.64399179425052238628e-01, -9.92877231001918586564e+01, -1.61468768441708447952e+03)
TANH_Q = (1.12811678491632931402e+02, 2.23548839060100448583e+03, 4.84406305325125486048e+03)
#: Cephes' exp: exp(r) = (Q + r P) / (Q - r P) with P, Q in r**2 (lowest degree first), on
#: |r| <= ln2/2 within 1e-19 relative with these doubles (mpmath at 200 bits); P(0) = 1, Q(0) = 2
EXP_PADE_P = (1.0, 3.0299440770744195e-02, 1.2617719307481058e-04)
EXP_PADE_Q = (2.0, 2.2726554820815503e-01, 2.5244834034968410e-03, 3.0019850513866446e-06)
#: ``_exp_pade_halves``: P' and Q' as polynomials in w = r**2 / 4, P' times 4 (r**3 P' / 2 is
#: (r / 2) w (4 P')) and Q' times 2 (w (2 Q') is r**2 Q' / 2): coefficient i of P' times 4**(i + 1),
#: of Q' times 2 * 4**i, exact powers of two
_HALVED_PADE_P = tuple(c * 4.0 ** (i + 1) for i, c in enumerate(EXP_PADE_P[1:]))
_HALVED_PADE_Q = tuple(c * 2.0 * 4.0 ** i for i, c in enumerate(EXP_PADE_Q[1:]))
#: exp(r) on |r| <= ln2/2, degree 11 (highest first): mpmath.chebyfit at 200 bits, 1.7e-17
#: relative with the coefficients rounded to doubles (a Taylor form needs degree 13); exp, exp2, pow, erf
EXP_MINIMAX = (2.5110037605963777e-08, 2.763263963904103e-07, 2.755724091857897e-06,
               2.4801485482328494e-05, 0.00019841269890047113, 0.0013888888952314775,
               0.008333333333319601, 0.0416666666664881, 0.1666666666666668, 0.5000000000000019,
               1.0, 1.0)
#: erf(a) = a + a P(a**2) on a < 1, lowest degree first, P(0) = 2/sqrt(pi) - 1 rounded once; and
#: erfc(a) exp(a**2) = R(a - 2) on 1 <= a <= 6 for erf = 1 - exp(-a**2) R.  Weighted least squares at
#: 150 / 300 Chebyshev nodes in mpmath (200 bits), R weighted by exp(-a**2) (what erf sees of it):
#: P within 1e-17 of erf(a)/a - 1, R's contribution to erf within 1.2e-17 (a tenth of its ulp)
ERF_SMALL = (0.12837916709551256, -0.37612638903183543, 0.1128379167094513, -0.026866170643256995,
             0.005223977607269946, -0.0008548325982543225, 0.00012055295112667001,
             -1.4924740785377576e-05, 1.6447471190594618e-06, -1.6208829856810202e-07,
             1.3721520406351094e-08, -7.798543850549947e-10)
ERF_TAIL = (0.2553956763105053, -0.10679646185349756, 0.04180275260355816, -0.015460637763849542,
            0.005440738537413565, -0.0018316642815174062, 0.0005924699915725223,
            -0.00018477833660277126, 5.572834128114715e-05, -1.629380320964117e-05,
            4.628106780489758e-06, -1.2793825573535284e-06, 3.449415753968881e-07,
            -9.08893434277508e-08, 2.3291538834325126e-08, -5.7730271228455665e-09,
            1.4483361203982642e-09, -3.88179002201544e-10, 9.488511735964107e-11,
            -1.5447311114079833e-11, 1.129161226964584e-12)
PI = (3.1415926535897931160e+00, 1.2246467991473531772e-16)  # pi in two parts
#: atan(t) / t on t in [0, 1] as a polynomial in t*t, for float32 results: a Chebyshev fit of
#: degree 10 (numpy.polynomial), 3.9e-10 relative at most on 2 M points (float32's half ulp: 3e-8)
ATAN_NARROW = (0.9999999996147206, -0.3333332366695705, 0.19999595880691465, -0.1427904865761651,
               0.11053785944338651, -0.08796121064441012, 0.0671012038038373, -0.044273740659495596,
               0.022203504144988184, -0.007166183107489885, 0.0010844955208328746)
#: fdlibm's __kernel_tan: tan(x) = x + x**3 T(x**2) on |x| < TAN_SPLIT (and pi/4 - |x| above it)
TAN = (3.33333333333334091986e-01, 1.33333333333201242699e-01, 5.39682539762260521377e-02,
       2.18694882948595424599e-02, 8.86323982359930005737e-03, 3.59207910759131235356e-03,
       1.45620945432529025516e-03, 5.88041240820264096874e-04, 2.46463134818469906812e-04,
       7.81794442939557092300e-05, 7.14072491382608190305e-05, -1.85586374855275456654e-05,
       2.59073051863633712884e-05)
PIO4 = (7.85398163397448278999e-01, 3.06161699786838301793e-17)
TAN_SPLIT = 0.6743316650390625  # fdlibm's high word 0x3FE59428
#: sinh(a) = a + a z P(z), z = a**2, on a < SINH_TAYLOR: Taylor's 1/3!, 1/5!, ..., 1/21! (the next
#: term is under 2e-20 relative at a = 1)
SINH_TAYLOR = 1.0
SINH = tuple(1.0 / math.factorial(n) for n in range(3, 22, 2))
#: fdlibm's s_cbrt (FreeBSD): the exponent's thirds (B1, and B2 for a subnormal scaled by 2**54),
#: and P with |1/cbrt(x) - P(x)| < 2**-23.5 for the first refinement
CBRT_B1, CBRT_B2 = 715094163, 696219795
CBRT = (1.87595182427177009643, -1.88497979543377169875, 1.621429720105354466140,
        -0.758397934778766047437, 0.145996192886612446982)
#: erfc(x) = 1 - erf(x) inline up to here (erfc(15/32) = 0.507: the difference keeps erf's
#: absolute error within an ulp of the result); above it erfc(x) = t exp(-x**2 + P(t)), t = 2/(2 + x)
#: (Numerical Recipes' erfccheb form), up to ERFC_LIBM (where results approach the subnormals),
#: beyond that (and NaN) the lane calls libm.  P: mpmath.chebyfit at 200 bits of degree 25 in
#: u = t ERFC_U[0] + ERFC_U[1] (u in [-1, 1] for x in [15/32, 26]; the fit is of the t that the
#: rounded ERFC_U map to u), lowest degree first, c0 and c1 in two parts (``ERFC_FAR_LO``): within
#: 2.5e-18 of log(erfc(x) / t) + x**2
ERFC_INLINE, ERFC_LIBM = 0.46875, 26.0
ERFC_FAR = (-0.7507252370182613, 0.48719229976810213, 0.03439692533095372, -0.01654854380096225,
            -0.004346262663074974, 0.001520868399445213, 0.0005768975172103579,
            -0.00022333577980477906, -7.71372792014468e-05, 4.125812728372152e-05,
            8.642517361999075e-06, -7.99501132208438e-06, -3.35727899586553e-07,
            1.423699560984294e-06, -1.9878909657800054e-07, -2.022999970456306e-07,
            7.66321730271047e-08, 1.5555452762955148e-08, -1.6289870729020542e-08,
            1.8962039318097575e-09, 2.0817608404059096e-09, -9.064950034418453e-10,
            -9.697812369046903e-11, 1.4872701103863626e-10, -8.086245513189667e-12,
            -1.0231963036790674e-11)
ERFC_FAR_LO = (3.530382792985319e-17, -2.7441714954144768e-17)  # c0, c1's roundings
ERFC_U = (2.707466340269278, -1.193390452876377)
BIG_LOG = 2.0 ** 1000  # asinh/acosh above it: log(x) + ln2 (2x would overflow)
#: ``inline_power``: (float64?, n) -> the x*x from which x**n overflows by far (x**3 >= 2**1024.5,
#: x**4 >= 2**1026; float32: 2**129, 2**130) and below which the error term stays finite
_POWER_LIMITS = {(True, 3): 2.0 ** 683, (True, 4): 2.0 ** 513, (False, 3): 2.0 ** 86, (False, 4): 2.0 ** 65}
FALLBACK = "polyfuse.vm.fallback."  # + libm name: the helper that calls libm outside the domain
VECTOR_WIDTHS = (2, 4, 8, 16)
SHIFTER = 6755399441055744.0  # 1.5 * 2**52: SHIFTER + n for an integer |n| < 2**51 holds n in its low bits
_SHIFTER_BITS = 0x4338000000000000  # SHIFTER's bits


def _c(value: float):
    return ll.Constant(F64, value)


def _factorial(n: int) -> float:
    return float(math.factorial(n))


class VectorMath:
    """The inline rules, mixed into ``ExprEmitter`` (uses its builder ``b``, codegen ``cg``, ``_intrinsic``,
    ``_muladd``, ``py_min``/``py_max``).  Each public rule takes and returns the argument's type."""

    b: ll.IRBuilder
    cg: Any  # the function's KernelCodegen: told when inline math goes into its function
    _intrinsic: Callable[[str, list], Any]

    def inline_math(self, name: str, x, *more):
        """``name``(x, ...) for a name in funcs.VECTOR_MATH (or "pow", which ``float_pow`` asks
        for), through float64 for float32 ``x``."""
        self.cg.inline_math_used = True
        self.cg.inline_math_names.append(name)
        narrow = isinstance(x.type, ll.FloatType)
        wide = [self.b.fpext(v, F64) if narrow else v for v in (x, *more)]
        rule = getattr(self, f"_vm_{name}_narrow", None) if narrow else None  # float32's cheaper form
        result = (rule or getattr(self, f"_vm_{name}"))(*wide)
        return self.b.fptrunc(result, x.type) if narrow else result

    # ---- exp family ----------------------------------------------------------------------
    def _vm_exp(self, wide):
        """exp(x): x = k ln2 + r, |r| <= ln2/2, a degree-11 minimax polynomial (``EXP_MINIMAX``)
        and 2**k from the exponent bits.  Within 1 ulp of libm."""
        b = self.b
        clamped = self.py_max(self.py_min(wide, _c(709.79), True), _c(-745.2), True)  # keeps a NaN
        k = self._intrinsic("llvm.rint", [b.fmul(clamped, _c(1.4426950408889634))])
        r = self._muladd(k, _c(-LN2_HI), clamped)  # exact either way: |k| <= 1075 has 11 bits, LN2_HI 32
        r = self._muladd(k, _c(-LN2_LO), r)
        return self._exp_finish(wide, k, r, 709.782712893384, -745.2)

    def _vm_exp2(self, wide):
        """2**x: k = rint(x) and r = (x - k) ln2 (x - k is exact), then exp's polynomial."""
        b = self.b
        clamped = self.py_max(self.py_min(wide, _c(1024.5), True), _c(-1075.5), True)
        k = self._intrinsic("llvm.rint", [clamped])
        t = b.fsub(clamped, k)
        r = self._muladd(t, _c(LN2_HI), b.fmul(t, _c(LN2_LO)))
        return self._exp_finish(wide, k, r, 1024.0, -1075.0, inclusive=True)

    def _exp_finish(self, wide, k, r, overflow_at: float, underflow_at: float, inclusive=False, poly=None):
        """exp(r) * 2**k (``poly`` for exp(r) where the caller has it), inf above ``overflow_at``
        (at it too if ``inclusive``), 0 below ``underflow_at``.  A NaN ``wide`` must reach ``k``
        and ``r`` (the clamps keep it): the product is NaN then, whatever 2**NaN's bits are."""
        b = self.b
        poly = self._exp_poly(r) if poly is None else poly
        # 2**k = 2**(k - k//2) * 2**(k//2): each half stays a normal double for k down to -1075
        half = self._intrinsic("llvm.floor", [b.fmul(k, _c(0.5))])
        result = b.fmul(b.fmul(poly, self._pow2(half)), self._pow2(b.fsub(k, half)))
        overflow = b.fcmp_ordered(">=" if inclusive else ">", wide, _c(overflow_at))
        result = b.select(overflow, _c(float("inf")), result)
        underflow = b.fcmp_ordered("<", wide, _c(underflow_at))
        return b.select(underflow, _c(0.0), result)

    def _exp_poly(self, r):
        """exp(r) for |r| <= ln2/2: ``EXP_MINIMAX`` by Horner's rule."""
        poly = _c(EXP_MINIMAX[0])
        for c in EXP_MINIMAX[1:]:
            poly = self._muladd(poly, r, _c(c))
        return poly

    def _vm_expm1(self, wide):
        """exp(x) - 1 without cancellation.  |x| < 1: x + x**2 Q(x), Taylor to x**18/18!.
        Otherwise x = k ln2 + r (+ c, the rounding of r), expm1(r) = r + r**2 P(r) to r**14/14!,
        then 2**k (expm1(r) + (1 - 2**-k)), well conditioned for |k| >= 1 once |x| >= 1.  -1 below
        -45, inf above exp's overflow."""
        b = self.b
        clamped = self.py_max(self.py_min(wide, _c(709.79), True), _c(-45.0), True)
        k = self._intrinsic("llvm.rint", [b.fmul(clamped, _c(1.4426950408889634))])
        hi = b.fsub(clamped, b.fmul(k, _c(LN2_HI)))  # exact
        lo = b.fmul(k, _c(LN2_LO))
        r = b.fsub(hi, lo)
        c = b.fsub(b.fsub(hi, r), lo)  # what rounding r lost: x = k ln2 + r + c
        poly = _c(1.0 / _factorial(14))
        for n in range(13, 1, -1):
            poly = self._muladd(poly, r, _c(1.0 / _factorial(n)))
        small = self._muladd(b.fmul(r, r), poly, r)  # expm1(r)
        small = b.fadd(small, self._muladd(c, small, c))  # expm1(r + c) to first order in c
        # |x| < 1: the Taylor series of x itself; 2**k (...) would cancel for k = 1 and x < 0.5
        direct = _c(1.0 / _factorial(18))
        for n in range(17, 1, -1):
            direct = self._muladd(direct, wide, _c(1.0 / _factorial(n)))
        direct = self._muladd(b.fmul(wide, wide), direct, wide)
        minus_k = self.py_max(b.fneg(k), _c(-1000.0), True)  # 2**-k below 2**-1000: 1 - 2**-k is 1
        shifted = b.fadd(small, b.fsub(_c(1.0), self._pow2(minus_k)))
        half = self._intrinsic("llvm.floor", [b.fmul(k, _c(0.5))])
        result = b.fmul(b.fmul(shifted, self._pow2(half)), self._pow2(b.fsub(k, half)))
        result = b.select(b.fcmp_ordered("<", self._intrinsic("llvm.fabs", [wide]), _c(1.0)), direct, result)
        result = b.select(b.fcmp_ordered(">", wide, _c(709.782712893384)), _c(float("inf")), result)
        result = b.select(b.fcmp_ordered("<", wide, _c(-45.0)), _c(-1.0), result)
        result = b.select(b.fcmp_ordered("==", wide, _c(0.0)), wide, result)  # keeps -0.0
        return b.select(b.fcmp_unordered("uno", wide, wide), wide, result)

    def _vm_tanh(self, wide):
        """tanh(|x|) with the sign of x put back (so -0.0 stays), one division: below |x| = 0.625
        Cephes' rational form |x| + |x| s P(s) / Q(s), s = x**2 (the quotient scales a term at
        most 0.13 of the result, so its rounding barely shows); from 0.625 on 1 - 2 / (E + 1),
        E = exp(2 min(|x|, 22)) = 2**k A / B in Cephes' Pade form (``_exp_pade_halves``), so that
        2 / (E + 1) = 2 B / (2**k A + B): no polynomial of degree 11 and no product for E itself.
        That rounds to exactly 1 from |x| = 19.1 on (inf included).  The branches share the
        division: numerator and denominator are selected per lane.  A NaN propagates through the
        arithmetic."""
        b = self.b
        a = self._intrinsic("llvm.fabs", [wide])
        small = b.fcmp_ordered("<", a, _c(0.625))
        s = b.fmul(a, a)
        p = self._muladd(self._muladd(_c(TANH_P[0]), s, _c(TANH_P[1])), s, _c(TANH_P[2]))
        q = self._muladd(self._muladd(b.fadd(s, _c(TANH_Q[0])), s, _c(TANH_Q[1])), s, _c(TANH_Q[2]))
        clamped = self.py_min(a, _c(22.0), True)  # keeps a NaN
        upper, lower, scale = self._exp_pade_halves(clamped)  # A / 2, B / 2, 2**k
        den_large = self._muladd(upper, scale, lower)  # 2**k A + B, rounded once
        num, den = b.select(small, p, b.fadd(lower, lower)), b.select(small, q, den_large)
        quotient = b.fdiv(num, den)
        result = b.select(small, self._muladd(a, b.fmul(s, quotient), a), b.fsub(_c(1.0), quotient))
        return self._intrinsic("llvm.copysign", [result, wide])

    def _exp_pade_halves(self, c):
        """exp(y) = 2**k A / B for y = 2c, |y| <= 44 or NaN (no overflow, no special values):
        y = k ln2 + r (|r| <= ln2/2), A, B = Q(r**2) +- r P(r**2), Cephes' Pade form of degree 2/3
        in r**2 (``EXP_PADE_P``, ``EXP_PADE_Q``; 1e-19 relative with the coefficients rounded to
        doubles).  r P is r + r**3 P' (P(0) = 1) and Q is 2 + r**2 Q', so A is rounded about once:
        2 + (r**2 Q' + r P); B is A - 2 r P, so that A's rounding is mostly in B too and cancels
        from B / (2**k A + B) (fewer results 2 ulp from libm's than with B rounded on its own).
        k is y / ln2 rounded by adding SHIFTER + 1023 (in the multiply-add: no separate rounding
        instruction), whose low bits are then also 2**k's exponent field.  Every step works on
        the halves r / 2, r**2 / 4, A / 2, B / 2 of y's values, the powers of two folded into the
        constants (``_HALVED_PADE_P``, ``_HALVED_PADE_Q``): each rounding is that of y's value
        scaled by a power of two, so the bits are those of the form in y, without the add
        y = c + c.  Returns (A / 2, B / 2, 2**k)."""
        b = self.b
        biased = self._muladd(c, _c(2.0 * 1.4426950408889634), _c(SHIFTER + 1023.0))
        k = b.fsub(biased, _c(SHIFTER + 1023.0))
        h = self._muladd(k, _c(-0.5 * LN2_HI), c)  # r / 2, exact either way: |k| <= 64 has 7 bits, LN2_HI 32
        h = self._muladd(k, _c(-0.5 * LN2_LO), h)
        w = b.fmul(h, h)  # r**2 / 4
        odd = self._muladd(b.fmul(w, h), self._polynomial(_HALVED_PADE_P, w), h)  # r P(r**2) / 2
        even = b.fmul(w, self._polynomial(_HALVED_PADE_Q, w))  # (Q(r**2) - 2) / 2
        scale = b.bitcast(b.shl(b.bitcast(biased, I64), ll.Constant(I64, 52)), F64)
        upper = b.fadd(_c(1.0), b.fadd(even, odd))
        return upper, b.fsub(upper, b.fadd(odd, odd)), scale

    def _exp_small(self, y):
        """exp(y) for |y| <= 44 or NaN (no overflow, no special values): y = k ln2 + r,
        a degree-11 minimax polynomial on |r| <= ln2/2 (``EXP_MINIMAX``), 2**k in one step."""
        b = self.b
        k = self._intrinsic("llvm.rint", [b.fmul(y, _c(1.4426950408889634))])
        r = self._muladd(k, _c(-LN2_HI), y)  # exact either way: |k| <= 64 has 7 bits, LN2_HI 32
        r = self._muladd(k, _c(-LN2_LO), r)
        return b.fmul(self._exp_poly(r), self._pow2(k))

    def _vm_erf(self, wide):
        """erf(|x|) with the sign of x put back, no division: below |x| = 1, |x| + |x| P(x**2)
        (``ERF_SMALL``); from 1 on 1 - exp(-a**2) R(a - 2) with a = min(|x|, 6) (``ERF_TAIL``;
        a - 2 is exact), exp(-a**2) from a**2 = h + l (``llvm.fma``) as exp(-h) (1 - l).  From
        6 on (inf too) that rounds to exactly 1; a NaN propagates."""
        b = self.b
        a = self._intrinsic("llvm.fabs", [wide])
        small = self._muladd(a, self._polynomial(ERF_SMALL, b.fmul(a, a)), a)
        clamped = self.py_min(a, _c(6.0), True)  # keeps a NaN
        tail = self._polynomial(ERF_TAIL, b.fsub(clamped, _c(2.0)))
        h = b.fmul(clamped, clamped)
        low = self._intrinsic("llvm.fma", [clamped, clamped, b.fneg(h)])
        e = self._exp_small(b.fneg(h))
        e = self._muladd(b.fneg(low), e, e)
        result = b.select(b.fcmp_ordered("<", a, _c(1.0)), small, self._muladd(b.fneg(e), tail, _c(1.0)))
        return self._intrinsic("llvm.copysign", [result, wide])

    def _vm_erfc(self, wide):
        """1 - erf(x) (1 + erf(|x|) for x < 0, 2 from x = -6 on) for x <= ERFC_INLINE, where it
        does not cancel; above it ``_erfc_far``.  Beyond ERFC_LIBM (and NaN) the lane calls libm
        (``FALLBACK_TESTS``: the loop still vectorizes)."""
        b = self.b
        near = b.fsub(_c(1.0), self._vm_erf(wide))
        a = self.py_max(self.py_min(wide, _c(ERFC_LIBM), True), _c(ERFC_INLINE), True)
        value = b.select(b.fcmp_ordered("<=", wide, _c(ERFC_INLINE)), near, self._erfc_far(a))
        return self._fallback("erfc", wide, value)

    def _erfc_far(self, a):
        """t exp(-a**2 + P(u)), t = 2 / (2 + a), u = t ERFC_U[0] + ERFC_U[1] (``ERFC_FAR``), for
        ERFC_INLINE <= a <= ERFC_LIBM.  An absolute error in the exponent is a relative one in
        the result, so t and u are carried in two parts, P's last two Horner steps too (with c0,
        c1 in two parts), u's low part through P'(u) ~ c1 + 2 c2 u, and the exponent's parts
        (a**2 = h + l by fma, the sums by two-sum) go to ``_exp_of_sum``; t's low part is a
        factor 1 + t_lo / t folded into the same low part."""
        b = self.b
        d, d_lo = self._two_sum(a, _c(2.0))
        t = b.fdiv(_c(2.0), d)
        t_lo = b.fdiv(b.fsub(self._intrinsic("llvm.fma", [b.fneg(t), d, _c(2.0)]), b.fmul(t, d_lo)), d)
        p = b.fmul(t, _c(ERFC_U[0]))
        u, u_lo = self._two_sum(p, _c(ERFC_U[1]))
        u_lo = b.fadd(u_lo, self._muladd(t_lo, _c(ERFC_U[0]), self._intrinsic("llvm.fma", [t, _c(ERFC_U[0]), b.fneg(p)])))
        rest = b.fmul(u, self._polynomial(ERFC_FAR[2:], u))  # u (c2 + c3 u + ...)
        q, q_lo = self._two_sum(_c(ERFC_FAR[1]), rest)
        q_lo = b.fadd(q_lo, _c(ERFC_FAR_LO[1]))
        product = b.fmul(u, q)  # u (c1 + u (...)) in two parts
        product_lo = self._muladd(u, q_lo, self._intrinsic("llvm.fma", [u, q, b.fneg(product)]))
        h = b.fmul(a, a)
        e, e_lo = self._two_sum(b.fneg(h), _c(ERFC_FAR[0]))
        e, e_lo2 = self._two_sum(e, product)
        slope = self._muladd(u, _c(2.0 * ERFC_FAR[2]), _c(ERFC_FAR[1]))  # P'(u) to first order
        low = b.fadd(b.fadd(e_lo, e_lo2), b.fadd(product_lo, _c(ERFC_FAR_LO[0])))
        low = b.fadd(low, self._muladd(slope, u_lo, b.fmul(t_lo, b.fmul(d, _c(0.5)))))  # t_lo / t = t_lo d / 2
        low = b.fsub(low, self._intrinsic("llvm.fma", [a, a, b.fneg(h)]))
        return b.fmul(t, self._exp_of_sum(e, low))

    def _polynomial(self, coefficients, x):
        """Horner's rule, lowest degree first."""
        value = _c(coefficients[-1])
        for c in reversed(coefficients[:-1]):
            value = self._muladd(value, x, _c(c))
        return value

    # ---- pow ---------------------------------------------------------------------------
    def _vm_pow(self, x, y):
        """x**y as libm's pow for 0 < x < inf and a finite y (y = 0 and x = 1 give exactly 1):
        exp(y log x) with log x in two parts (``_log2parts``, ~2**-68 relative) times y by
        ``llvm.fma``, exp of that sum (its low part as a factor 1 + c), overflow and underflow as
        exp's.  Every other lane (x <= 0, inf or NaN, y infinite or NaN: C99's table) calls libm
        through the vectorizable fallback (``FALLBACK_TESTS``)."""
        b = self.b
        ax = self._intrinsic("llvm.fabs", [x])
        hi, lo = self._log2parts(ax)
        p_hi = b.fmul(y, hi)
        p_lo = self._muladd(y, lo, self._intrinsic("llvm.fma", [y, hi, b.fneg(p_hi)]))
        return self._fallback("pow", x, self._exp_of_sum(p_hi, p_lo), y)

    def _exp_of_sum(self, p_hi, p_lo):
        """exp(p_hi + p_lo) for |p_lo| far below an ulp of p_hi: exp's reduction of p_hi with
        p_lo carried into r, exp(r + c) as exp(r) (1 + c); overflow and underflow as exp's."""
        b = self.b
        clamped = self.py_max(self.py_min(p_hi, _c(709.79), True), _c(-745.2), True)
        k = self._intrinsic("llvm.rint", [b.fmul(clamped, _c(1.4426950408889634))])
        r_hi = self._muladd(k, _c(-LN2_HI), clamped)  # exact: |k| <= 1075 has 11 bits, LN2_HI 32
        r_lo = b.fsub(p_lo, b.fmul(k, _c(LN2_LO)))
        r = b.fadd(r_hi, r_lo)
        c = b.fadd(b.fsub(r_hi, r), r_lo)  # what rounding r lost (|r_hi| >= |r_lo|)
        poly = self._exp_poly(r)
        poly = self._muladd(poly, c, poly)  # exp(r + c) = exp(r) (1 + c)
        return self._exp_finish(p_hi, k, r, 709.782712893384, -745.2, poly=poly)

    def _log2parts(self, ax):
        """log(ax) = hi + lo for a positive finite ax (subnormal too), to about 2**-68: ax =
        2**e m, s = (m - 1) / (m + 1) in two parts (the division's and the sum's rounding put
        back by fma), log(m) = 2 s + 2 s**3 / 3 + 2 s**5 (1/5 + ...), the cube in two parts,
        everything summed in double-double with e ln2 (ln2 in two parts, e LN2_HI exact)."""
        b = self.b
        tiny = b.fcmp_ordered("<", ax, _c(2.2250738585072014e-308))
        scaled = b.select(tiny, b.fmul(ax, _c(2.0 ** 54)), ax)
        bits = b.bitcast(scaled, I64)
        exponent = b.sub(b.lshr(bits, ll.Constant(I64, 52)), ll.Constant(I64, 1023))
        exponent = b.select(tiny, b.sub(exponent, ll.Constant(I64, 54)), exponent)
        m = b.bitcast(b.or_(b.and_(bits, ll.Constant(I64, (1 << 52) - 1)), ll.Constant(I64, 1023 << 52)), F64)
        big = b.fcmp_ordered(">", m, _c(1.4142135623730951))
        m = b.select(big, b.fmul(m, _c(0.5)), m)
        e = self._float_of(b.select(big, b.add(exponent, ll.Constant(I64, 1)), exponent))
        f = b.fsub(m, _c(1.0))  # exact
        d = b.fadd(f, _c(2.0))
        d_lo = b.fsub(f, b.fsub(d, _c(2.0)))  # exact: |f| < 2
        inverse = b.fdiv(_c(1.0), d)
        s = b.fmul(f, inverse)
        # f / (d + d_lo) - s = (f - s d - s d_lo) / d, f - s d exact by fma
        s_lo = b.fmul(b.fsub(self._intrinsic("llvm.fma", [b.fneg(s), d, f]), b.fmul(s, d_lo)), inverse)
        z = b.fmul(s, s)
        z_lo = self._intrinsic("llvm.fma", [s, s, b.fneg(z)])
        cube = b.fmul(z, s)  # s**3 = cube + cube_lo to ~2**-104, plus 3 s**2 s_lo
        cube_lo = self._intrinsic("llvm.fma", [z, s, b.fneg(cube)])
        cube_lo = self._muladd(z_lo, s, cube_lo)
        cube_lo = self._muladd(b.fmul(_c(3.0), z), s_lo, cube_lo)
        third_hi = b.fmul(cube, _c(2.0 / 3.0))  # 2 s**3 / 3, 2/3 in two parts
        third_lo = self._intrinsic("llvm.fma", [cube, _c(2.0 / 3.0), b.fneg(third_hi)])
        third_lo = self._muladd(cube, _c(3.700743415417188e-17), third_lo)
        third_lo = self._muladd(cube_lo, _c(2.0 / 3.0), third_lo)
        rest = _c(2.0 / 23.0)  # 2 s**5 (1/5 + z/7 + ... + z**9/23)
        for n in range(21, 3, -2):
            rest = self._muladd(rest, z, _c(2.0 / n))
        rest = b.fmul(b.fmul(cube, z), rest)
        # hi + lo = e LN2_HI + 2 s + (2 s**3 / 3) + the small terms, in that order of size
        head, tail = self._two_sum(b.fmul(e, _c(LN2_HI)), b.fmul(_c(2.0), s))
        head, more = self._two_sum(head, third_hi)
        small = b.fadd(b.fadd(b.fmul(_c(2.0), s_lo), rest), b.fadd(third_lo, b.fmul(e, _c(LN2_LO))))
        tail = b.fadd(b.fadd(tail, more), small)
        hi = b.fadd(head, tail)
        return hi, b.fsub(tail, b.fsub(hi, head))

    def _two_sum(self, a, c):
        """(a + c rounded, its exact error): Knuth's two-sum, any order of size."""
        b = self.b
        total = b.fadd(a, c)
        c_part = b.fsub(total, a)
        return total, b.fadd(b.fsub(a, b.fsub(total, c_part)), b.fsub(c, c_part))

    # ---- log family ----------------------------------------------------------------------
    def _vm_log(self, wide):
        """log(x): x = 2**e * m with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s) as an odd
        series, plus e ln2 in two parts.  Within 1 ulp of libm."""
        b = self.b
        exponent, f, correction = self._log_parts(wide)
        log_m = b.fsub(f, correction)
        e = self._float_of(exponent)
        result = b.fadd(b.fmul(e, _c(LN2_HI)), b.fadd(log_m, b.fmul(e, _c(LN2_LO))))
        return self._log_specials(wide, result)

    def _vm_log2(self, wide):
        """e + log(m) / ln2: exact for powers of two."""
        b = self.b
        exponent, f, correction = self._log_parts(wide)
        hi, lo = self._scaled_log_m(f, correction, 1.4426950408889634, 2.0355273740931033e-17)  # 1/ln2
        e = self._float_of(exponent)
        head = b.fadd(e, hi)
        tail = b.fadd(b.fsub(e, head), hi)  # exact: what head lost (|e| >= |hi| or e == 0)
        return self._log_specials(wide, b.fadd(head, b.fadd(tail, lo)))

    def _vm_log10(self, wide):
        """e log10(2) + log(m) / ln10, log10(2) in two parts (HI with 32 bits: e HI is exact)."""
        b = self.b
        exponent, f, correction = self._log_parts(wide)
        hi, lo = self._scaled_log_m(f, correction, 0.4342944819032518, 1.098319650216765e-17)  # 1/ln10
        e = self._float_of(exponent)
        e_hi = b.fmul(e, _c(0.30102999566361177))
        head = b.fadd(e_hi, hi)
        big = b.fcmp_ordered(">=", self._intrinsic("llvm.fabs", [e_hi]), self._intrinsic("llvm.fabs", [hi]))
        tail = b.select(big, b.fadd(b.fsub(e_hi, head), hi), b.fadd(b.fsub(hi, head), e_hi))
        lo = b.fadd(lo, b.fmul(e, _c(3.6942390771589308e-13)))
        return self._log_specials(wide, b.fadd(head, b.fadd(tail, lo)))

    def _scaled_log_m(self, f, correction, inv_hi: float, inv_lo: float):
        """(f - correction) * (inv_hi + inv_lo) as hi + lo (``llvm.fma`` gives the exact error
        of f * inv_hi), far more precise than rounding log(m) first."""
        b = self.b
        hi = b.fmul(f, _c(inv_hi))
        error = self._intrinsic("llvm.fma", [f, _c(inv_hi), b.fneg(hi)])
        rest = b.fsub(b.fmul(f, _c(inv_lo)), b.fmul(correction, _c(inv_hi)))
        return hi, b.fadd(error, rest)

    def _vm_log1p(self, wide):
        """log(u) + ((x - (u - 1)) / u) with u = 1 + x: the quotient puts back what rounding
        1 + x lost; x itself where u == 1 (|x| below half an ulp of 1, -0.0 too)."""
        b = self.b
        u = b.fadd(wide, _c(1.0))
        log_u = self._vm_log(u)
        correction = b.fdiv(b.fsub(wide, b.fsub(u, _c(1.0))), u)
        result = b.fadd(log_u, correction)
        result = b.select(b.fcmp_ordered("==", u, _c(1.0)), wide, result)
        result = b.select(b.fcmp_ordered("==", wide, _c(-1.0)), _c(float("-inf")), result)
        result = b.select(b.fcmp_ordered("<", wide, _c(-1.0)), _c(float("nan")), result)
        result = b.select(b.fcmp_ordered("==", wide, _c(float("inf"))), wide, result)
        return b.select(b.fcmp_unordered("uno", wide, wide), wide, result)

    def _log_parts(self, wide):
        """(e, f, c) with wide = 2**e * m and log(m) = f - c, m in [sqrt(1/2), sqrt(2)) (subnormals scaled by
        2**54 first); log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, as an odd series
        to s**23 (truncation below 1e-18)."""
        b = self.b
        tiny = b.fcmp_ordered("<", wide, _c(2.2250738585072014e-308))
        scaled = b.select(tiny, b.fmul(wide, _c(2.0 ** 54)), wide)
        bits = b.bitcast(scaled, I64)
        exponent = b.sub(b.lshr(bits, ll.Constant(I64, 52)), ll.Constant(I64, 1023))
        exponent = b.select(tiny, b.sub(exponent, ll.Constant(I64, 54)), exponent)
        mantissa_bits = b.or_(b.and_(bits, ll.Constant(I64, (1 << 52) - 1)), ll.Constant(I64, 1023 << 52))
        m = b.bitcast(mantissa_bits, F64)  # in [1, 2)
        big = b.fcmp_ordered(">", m, _c(1.4142135623730951))
        m = b.select(big, b.fmul(m, _c(0.5)), m)
        exponent = b.select(big, b.add(exponent, ll.Constant(I64, 1)), exponent)
        f = b.fsub(m, _c(1.0))
        s = b.fdiv(f, b.fadd(f, _c(2.0)))
        z = b.fmul(s, s)
        tail = _c(1.0 / 23.0)  # (atanh(s) / s - 1) / z = 1/3 + z/5 + ... + z**10/23
        for n in range(21, 1, -2):
            tail = self._muladd(tail, z, _c(1.0 / n))
        # log(m) = 2s (1 + z tail) = f - s (f - 2 z tail), since 2s = f - s f: f is exact and the
        # correction is at most a fifth of it, so its rounding barely shows
        return exponent, f, b.fmul(s, b.fsub(f, b.fmul(_c(2.0), b.fmul(z, tail))))

    def _log_specials(self, wide, result):
        """libm's log at 0 (-inf), below 0 (NaN), inf and NaN."""
        b = self.b
        result = b.select(b.fcmp_ordered("==", wide, _c(0.0)), _c(float("-inf")), result)
        result = b.select(b.fcmp_ordered("<", wide, _c(0.0)), _c(float("nan")), result)
        result = b.select(b.fcmp_ordered("==", wide, _c(float("inf"))), wide, result)
        return b.select(b.fcmp_unordered("uno", wide, wide), wide, result)  # NaN stays NaN

    # ---- sin and cos ---------------------------------------------------------------------
    def _vm_sin(self, wide):
        return self._trig(wide, "sin")

    def _vm_cos(self, wide):
        return self._trig(wide, "cos")

    def _vm_sin_narrow(self, wide):
        return self._trig(wide, "sin", narrow=True)

    def _vm_cos_narrow(self, wide):
        return self._trig(wide, "cos", narrow=True)

    def _trig(self, wide, name: str, *, narrow: bool = False):
        """fdlibm's medium reduction x = n pi/2 + (y0 + y1) with pi/2 in three 33-bit pieces
        (all three always: no branch), its sin and cos kernels on [-pi/4, pi/4], the quadrant
        n mod 4 choosing between them.  Outside |x| <= TRIG_DOMAIN the element calls libm.
        ``narrow`` (a float32 argument, the result rounded to float32): the first piece of the
        reduction only and shorter polynomials (``_narrow_kernels``), about half the work."""
        b = self.b
        sin_r, cos_r, n = self._reduced(wide, narrow)
        quadrant = b.and_(self._int_of(n), ll.Constant(I64, 3))
        if name == "cos":
            quadrant = b.add(quadrant, ll.Constant(I64, 1))  # cos(x) = sin(x + pi/2)
        odd = b.trunc(quadrant, ll.IntType(1))
        negative = b.trunc(b.lshr(quadrant, ll.Constant(I64, 1)), ll.IntType(1))
        value = b.select(odd, cos_r, sin_r)
        value = b.select(negative, b.fneg(value), value)
        if name == "sin":
            value = b.select(b.fcmp_ordered("==", wide, _c(0.0)), wide, value)  # keeps -0.0
        return self._fallback(name, wide, value)

    def _reduced(self, wide, narrow: bool):
        """(sin(r), cos(r), n) for wide = n pi/2 + r, |r| <= pi/4; 0's where |wide| > TRIG_DOMAIN
        or NaN (those lanes call libm)."""
        b = self.b
        outside = b.fcmp_unordered(">", self._intrinsic("llvm.fabs", [wide]), _c(TRIG_DOMAIN))
        x = b.select(outside, _c(0.0), wide)  # keeps the reduction finite; the value is replaced
        if narrow:
            y0, n = self._reduce_pio2_once(x)
            sin_r, cos_r = self._narrow_kernels(y0)
        else:
            y0, y1, n = self._reduce_pio2(x)
            sin_r, cos_r = self._sin_kernel(y0, y1), self._cos_kernel(y0, y1)
        return sin_r, cos_r, n

    def _vm_tan(self, wide):
        return self._tan(wide)

    def _vm_tan_narrow(self, wide):
        return self._tan(wide, narrow=True)

    def _tan(self, wide, *, narrow: bool = False):
        """sin(r) / cos(r) from ``_trig``'s one reduction, -cos(r) / sin(r) in an odd quadrant
        (numerator and denominator selected per lane: one division); -0.0 kept, libm outside
        |x| <= TRIG_DOMAIN as sin's.  float64 takes fdlibm's tangent kernel instead (``_tan_kernel``)."""
        b = self.b
        if narrow:
            sin_r, cos_r, n = self._reduced(wide, narrow)
            odd = b.trunc(self._int_of(n), ll.IntType(1))
            value = b.fdiv(b.select(odd, b.fneg(cos_r), sin_r), b.select(odd, sin_r, cos_r))
        else:
            outside = b.fcmp_unordered(">", self._intrinsic("llvm.fabs", [wide]), _c(TRIG_DOMAIN))
            y0, y1, n = self._reduce_pio2(b.select(outside, _c(0.0), wide))
            value = self._tan_kernel(y0, y1, b.trunc(self._int_of(n), ll.IntType(1)))
        value = b.select(b.fcmp_ordered("==", wide, _c(0.0)), wide, value)  # keeps -0.0
        return self._fallback("tan", wide, value)

    def _tan_kernel(self, x, y, odd):
        """fdlibm's __kernel_tan(x, y, odd ? -1 : 1): tan(x + y), or -1 / tan(x + y) for an odd
        quadrant, |x + y| <= pi/4, < 1 ulp.  From |x| = TAN_SPLIT on it works on pi/4 - |x| and
        tan(pi/4 - t) = (1 - tan t) / (1 + tan t) (its form 1 - 2 (x - (w**2 / (w + 1) - r)));
        the odd quadrant's -1 / w below it in two parts; the two cases share one division."""
        b = self.b
        big = b.fcmp_ordered(">=", self._intrinsic("llvm.fabs", [x]), _c(TAN_SPLIT))
        negative = b.fcmp_ordered("<", x, _c(0.0))
        sign = b.select(negative, _c(-1.0), _c(1.0))
        x = b.select(big, b.fadd(b.fsub(_c(PIO4[0]), b.fmul(sign, x)), b.fsub(_c(PIO4[1]), b.fmul(sign, y))), x)
        y = b.select(big, _c(0.0), y)
        z = b.fmul(x, x)
        w = b.fmul(z, z)
        r = self._polynomial(TAN[1::2], w)
        v = b.fmul(z, self._polynomial(TAN[2::2], w))
        s = b.fmul(z, x)
        r = b.fadd(y, b.fmul(z, b.fadd(b.fmul(s, b.fadd(r, v)), y)))
        r = b.fadd(r, b.fmul(_c(TAN[0]), s))
        w = b.fadd(x, r)
        iy = b.select(odd, _c(-1.0), _c(1.0))
        # big: w**2 / (w + iy); small and odd: -1 / w
        quotient = b.fdiv(b.select(big, b.fmul(w, w), _c(-1.0)), b.select(big, b.fadd(w, iy), w))
        large = b.fmul(sign, b.fsub(iy, b.fmul(_c(2.0), b.fsub(x, b.fsub(quotient, r)))))
        # -1 / w accurately: t = the quotient with its low 32 bits cleared, w = hi + v exactly
        mask = ll.Constant(I64, 0xFFFFFFFF00000000)
        hi = b.bitcast(b.and_(b.bitcast(w, I64), mask), F64)
        v = b.fsub(r, b.fsub(hi, x))
        t = b.bitcast(b.and_(b.bitcast(quotient, I64), mask), F64)
        e = self._muladd(t, hi, _c(1.0))
        inverse = b.fadd(t, b.fmul(quotient, b.fadd(e, b.fmul(t, v))))
        return b.select(big, large, b.select(odd, inverse, w))

    def _reduce_pio2(self, x):
        b = self.b
        n = self._intrinsic("llvm.rint", [b.fmul(x, _c(6.36619772367581382433e-01))])
        r = b.fsub(x, b.fmul(n, _c(PIO2[0][0])))  # exact: n < 2**20, PIO2[0][0] has 33 bits
        w = b.fmul(n, _c(PIO2[0][1]))
        for piece, tail in PIO2[1:]:
            t = r
            w = b.fmul(n, _c(piece))
            r = b.fsub(t, w)
            w = b.fsub(b.fmul(n, _c(tail)), b.fsub(b.fsub(t, r), w))
        y0 = b.fsub(r, w)
        y1 = b.fsub(b.fsub(r, y0), w)
        return y0, y1, n

    def _reduce_pio2_once(self, x):
        """x - n pi/2 for a float32 x (|x| <= TRIG_DOMAIN): n * PIO2[0][0] is exact (n < 2**20,
        33 bits), and so is x minus it (a float32 holds 24 bits, the difference is below 1, so
        it needs at most 53); n * PIO2[0][1] adds under 1e-20 of error, where the float32 closest
        to a multiple of pi/2 is ~1e-9 from it (so ~1e-11 relative at worst)."""
        b = self.b
        n = self._intrinsic("llvm.rint", [b.fmul(x, _c(6.36619772367581382433e-01))])
        r = b.fsub(x, b.fmul(n, _c(PIO2[0][0])))
        return b.fsub(r, b.fmul(n, _c(PIO2[0][1]))), n

    def _narrow_kernels(self, x):
        """sin and cos on [-pi/4, pi/4] to ~1e-11 and ~2e-10 relative (the last fdlibm
        coefficient of sin dropped, the last two of cos), far under float32's half ulp (3e-8):
        rounded to float32 they are within 1 ulp of libm's rounded double."""
        b = self.b
        z = b.fmul(x, x)
        s = _c(SIN[4])
        for c in reversed(SIN[:4]):
            s = self._muladd(z, s, _c(c))
        sin_r = self._muladd(b.fmul(z, x), s, x)
        c_ = _c(COS[3])
        for c in reversed(COS[:3]):
            c_ = self._muladd(z, c_, _c(c))
        cos_r = self._muladd(b.fmul(z, z), c_, self._muladd(z, _c(-0.5), _c(1.0)))
        return sin_r, cos_r

    def _sin_kernel(self, x, y):
        """fdlibm __kernel_sin(x, y, 1): sin(x + y) for |x + y| <= pi/4."""
        b = self.b
        z = b.fmul(x, x)
        w = b.fmul(z, z)
        r = b.fadd(self._muladd(z, self._muladd(z, _c(SIN[3]), _c(SIN[2])), _c(SIN[1])),
                   b.fmul(b.fmul(z, w), self._muladd(z, _c(SIN[5]), _c(SIN[4]))))
        v = b.fmul(z, x)
        inner = b.fsub(b.fmul(z, b.fsub(b.fmul(_c(0.5), y), b.fmul(v, r))), y)
        return b.fsub(x, b.fsub(inner, b.fmul(v, _c(SIN[0]))))

    def _cos_kernel(self, x, y):
        """fdlibm __kernel_cos(x, y): cos(x + y) for |x + y| <= pi/4."""
        b = self.b
        z = b.fmul(x, x)
        w = b.fmul(z, z)
        r = b.fadd(b.fmul(z, self._muladd(z, self._muladd(z, _c(COS[2]), _c(COS[1])), _c(COS[0]))),
                   b.fmul(b.fmul(w, w), self._muladd(z, self._muladd(z, _c(COS[5]), _c(COS[4])), _c(COS[3]))))
        hz = b.fmul(_c(0.5), z)
        w = b.fsub(_c(1.0), hz)
        return b.fadd(w, b.fadd(b.fsub(b.fsub(_c(1.0), w), hz), b.fsub(b.fmul(z, r), b.fmul(x, y))))

    def _fallback(self, name: str, wide, value, *more):
        """``value``, or libm's ``name``(wide, *more) where ``FALLBACK_TESTS[name]`` says the
        inline code does not apply (sin/cos: |x| > TRIG_DOMAIN or NaN; see the module docstring:
        a call LLVM can vectorize)."""
        fn = self.b.module.globals.get(FALLBACK + name)
        if fn is None:
            fn = ll.Function(self.b.module, ll.FunctionType(F64, [F64] * (2 + len(more))), name=FALLBACK + name)
        return self.b.call(fn, [wide, *more, value])

    # ---- atan2 ---------------------------------------------------------------------------
    def _vm_atan2(self, y, x):
        """fdlibm's scheme: ``atan(|y / x|)``, ``pi`` minus it where x's sign bit is set, the
        sign of y.  What the quotient cannot say is selected from C99's table: y = +-0 (0 or pi
        by x's sign bit), |y/x| over 2**60 (pi/2), both infinite (pi/4, 3 pi/4), a NaN
        (propagated)."""
        b = self.b
        ay, ax = self._intrinsic("llvm.fabs", [y]), self._intrinsic("llvm.fabs", [x])
        t = b.fdiv(ay, ax)
        z = self._atan_positive(t)  # 0/0 and inf/inf give NaN: replaced below
        negative_x = b.icmp_signed("<", b.bitcast(x, I64), ll.Constant(I64, 0))
        z = b.select(negative_x, b.fsub(_c(PI[0]), b.fsub(z, _c(PI[1]))), z)
        # |y/x| > 2**60 (x = +-0 too): pi/2 rounded, on either side (pi - z would round it up)
        z = b.select(b.fcmp_ordered(">", t, _c(2.0 ** 60)), _c(math.pi / 2), z)
        return self._atan2_specials(z, y, x, ay, ax, negative_x)

    def _vm_atan2_narrow(self, y, x):
        """atan2 of float32 arguments (exact in float64), for a float32 result: one quotient
        t = min(|y|, |x|) / max(|y|, |x|) in [0, 1] and ``ATAN_NARROW`` (no reduction by
        centres: one division instead of two, no chain of selects), pi/2 minus it where
        |y| > |x|, pi minus that for x's sign bit, copysign y; the same C99 selects as
        ``_vm_atan2`` for y = +-0, both infinite and NaN (an infinite or zero divisor gives
        t = 0 or NaN, which those selects and the swap make right)."""
        b = self.b
        ay, ax = self._intrinsic("llvm.fabs", [y]), self._intrinsic("llvm.fabs", [x])
        a = self._atan_ratio_narrow(ay, ax)
        negative_x = b.icmp_signed("<", b.bitcast(x, I64), ll.Constant(I64, 0))
        a = b.select(negative_x, b.fsub(_c(math.pi), a), a)
        return self._atan2_specials(a, y, x, ay, ax, negative_x)

    def _atan_ratio_narrow(self, ay, ax):
        """atan(ay / ax) in [0, pi/2] for ay, ax >= 0, to ~4e-10 relative (float32 results):
        t = min / max in [0, 1] (one division), ``ATAN_NARROW``, pi/2 minus it where ay > ax."""
        b = self.b
        steep = b.fcmp_ordered(">", ay, ax)
        t = b.fdiv(b.select(steep, ax, ay), b.select(steep, ay, ax))
        z = b.fmul(t, t)
        q = _c(ATAN_NARROW[-1])
        for c in reversed(ATAN_NARROW[:-1]):
            q = self._muladd(z, q, _c(c))
        a = b.fmul(t, q)
        return b.select(steep, b.fsub(_c(math.pi / 2), a), a)

    def _atan2_specials(self, z, y, x, ay, ax, negative_x):
        """C99's atan2 table where the quotient says nothing, over ``z`` (atan2 of |y| and x):
        both infinite (pi/4, 3 pi/4), y = +-0 (0 or pi by x's sign bit), then y's sign, and a
        NaN propagated."""
        b = self.b
        inf = _c(math.inf)
        both_inf = b.and_(b.fcmp_ordered("==", ay, inf), b.fcmp_ordered("==", ax, inf))
        z = b.select(both_inf, b.select(negative_x, _c(3 * math.pi / 4), _c(math.pi / 4)), z)
        z = b.select(b.fcmp_ordered("==", y, _c(0.0)), b.select(negative_x, _c(PI[0]), _c(0.0)), z)
        z = self._intrinsic("llvm.copysign", [z, y])
        return b.select(b.fcmp_unordered("uno", y, x), b.fadd(y, x), z)

    def _atan_positive(self, t):
        """fdlibm's atan for t >= 0 (inf included): t reduced into [-7/16, 7/16] around 0, 1/2, 1,
        3/2 or infinity (selects, no branch), atan there by its odd polynomial, plus the table's
        atan of the centre in two parts."""
        b = self.b

        def below(bound: float):
            return b.fcmp_ordered("<", t, _c(bound))
        one = _c(1.0)
        cases = [(below(7 / 16), (t, one), (0.0, 0.0)),
                 (below(11 / 16), (b.fsub(b.fmul(_c(2.0), t), one), b.fadd(_c(2.0), t)), ATAN_CENTRES[0]),
                 (below(19 / 16), (b.fsub(t, one), b.fadd(t, one)), ATAN_CENTRES[1]),
                 (below(39 / 16), (b.fsub(t, _c(1.5)), b.fadd(one, b.fmul(_c(1.5), t))), ATAN_CENTRES[2])]
        num, den, hi, lo = _c(-1.0), t, _c(ATAN_CENTRES[3][0]), _c(ATAN_CENTRES[3][1])
        for test, (n, d), (h, low) in reversed(cases):
            num, den = b.select(test, n, num), b.select(test, d, den)
            hi, lo = b.select(test, _c(h), hi), b.select(test, _c(low), lo)
        r = b.fdiv(num, den)
        z = b.fmul(r, r)
        w = b.fmul(z, z)
        odd = ATAN[0::2]
        even = ATAN[1::2]
        s1 = _c(odd[-1])
        for c in reversed(odd[:-1]):
            s1 = self._muladd(w, s1, _c(c))
        s2 = _c(even[-1])
        for c in reversed(even[:-1]):
            s2 = self._muladd(w, s2, _c(c))
        total = b.fadd(b.fmul(z, s1), b.fmul(w, s2))
        return b.fsub(hi, b.fsub(b.fsub(b.fmul(r, total), lo), r))

    # ---- sinh and cosh -------------------------------------------------------------------
    def _vm_sinh(self, wide):
        """sinh(|x|) with the sign of x put back (-0.0 stays): below SINH_TAYLOR a + a z P(z),
        z = a**2 (``SINH``), no cancellation; from it E - 1/(4E), E = exp(a) / 2 (``_half_exp``,
        which overflows where sinh does; a NaN propagates)."""
        b = self.b
        a = self._intrinsic("llvm.fabs", [wide])
        z = b.fmul(a, a)
        small = self._muladd(b.fmul(a, z), self._polynomial(SINH, z), a)
        e = self._half_exp(a)
        large = b.fsub(e, b.fdiv(_c(0.25), e))
        result = b.select(b.fcmp_ordered("<", a, _c(SINH_TAYLOR)), small, large)
        return self._intrinsic("llvm.copysign", [result, wide])

    def _vm_cosh(self, wide):
        """E + 1/(4E), E = exp(|x|) / 2 (``_half_exp``): two positive terms, no cancellation."""
        e = self._half_exp(self._intrinsic("llvm.fabs", [wide]))
        return self.b.fadd(e, self.b.fdiv(_c(0.25), e))

    def _half_exp(self, a):
        """exp(a) / 2 for a >= 0 or NaN: exp's reduction of min(a, 720) and polynomial, times
        2**(k - 1) in two halves (each a normal double), so the product overflows to inf exactly
        where exp(a) / 2 does (a = 710.4759, not exp's 709.78)."""
        b = self.b
        clamped = self.py_min(a, _c(720.0), True)  # keeps a NaN
        k = self._intrinsic("llvm.rint", [b.fmul(clamped, _c(1.4426950408889634))])
        r = self._muladd(k, _c(-LN2_HI), clamped)  # exact: k <= 1039 has 11 bits, LN2_HI 32
        r = self._muladd(k, _c(-LN2_LO), r)
        k = b.fsub(k, _c(1.0))
        half = self._intrinsic("llvm.floor", [b.fmul(k, _c(0.5))])
        return b.fmul(b.fmul(self._exp_poly(r), self._pow2(half)), self._pow2(b.fsub(k, half)))

    # ---- atan, asin, acos ----------------------------------------------------------------
    def _vm_atan(self, wide):
        """fdlibm's atan of |x| (``_atan_positive``: inf gives pi/2, a NaN propagates), the sign
        of x put back."""
        return self._intrinsic("llvm.copysign", [self._atan_positive(self._intrinsic("llvm.fabs", [wide])), wide])

    def _vm_atan_narrow(self, wide):
        """float32: ``_atan_ratio_narrow`` of |x| and 1, the sign put back."""
        angle = self._atan_ratio_narrow(self._intrinsic("llvm.fabs", [wide]), _c(1.0))
        return self._intrinsic("llvm.copysign", [angle, wide])

    def _vm_asin(self, wide):
        """atan2(|x|, sqrt(1 - x**2)), the sign put back: 1 - x**2 rounded once (``llvm.fma``),
        so near |x| = 1 it is exact as 1 - |x| would be; |x| = 1 gives a quotient of inf (pi/2),
        |x| > 1 and NaN a NaN root."""
        a = self._intrinsic("llvm.fabs", [wide])
        angle = self._atan_positive(self.b.fdiv(a, self._cathetus(a)))
        return self._intrinsic("llvm.copysign", [angle, wide])

    def _vm_asin_narrow(self, wide):
        a = self._intrinsic("llvm.fabs", [wide])
        angle = self._atan_ratio_narrow(a, self._cathetus(a))
        return self._intrinsic("llvm.copysign", [angle, wide])

    def _vm_acos(self, wide):
        """atan2(sqrt(1 - x**2), x): atan of the quotient by |x|, pi minus it (pi in two parts)
        for x < 0; x = +-0 divides by zero (pi/2), |x| > 1 and NaN give a NaN root."""
        b = self.b
        a = self._intrinsic("llvm.fabs", [wide])
        angle = self._atan_positive(b.fdiv(self._cathetus(a), a))
        negative = b.fcmp_ordered("<", wide, _c(0.0))
        return b.select(negative, b.fsub(_c(PI[0]), b.fsub(angle, _c(PI[1]))), angle)

    def _vm_acos_narrow(self, wide):
        b = self.b
        a = self._intrinsic("llvm.fabs", [wide])
        angle = self._atan_ratio_narrow(self._cathetus(a), a)
        return b.select(b.fcmp_ordered("<", wide, _c(0.0)), b.fsub(_c(math.pi), angle), angle)

    def _cathetus(self, a):
        """sqrt(1 - a**2), 1 - a**2 by one ``llvm.fma`` (NaN for a > 1)."""
        return self._intrinsic("llvm.sqrt", [self._intrinsic("llvm.fma", [self.b.fneg(a), a, _c(1.0)])])

    # ---- asinh, acosh, atanh -------------------------------------------------------------
    def _vm_asinh(self, wide):
        """fdlibm's forms on a = |x|, the sign put back: a <= 2: log1p(a + a**2 / (1 + s)),
        s = sqrt(1 + a**2); above: log(2a + 1 / (s + a)) (s overflowing to inf for a > 1e154
        leaves 2a), and log(a) + ln2 from 2**1000 on.  One log for all (``_log1p_or_log``)."""
        b = self.b
        a = self._intrinsic("llvm.fabs", [wide])
        s = self._intrinsic("llvm.sqrt", [self._intrinsic("llvm.fma", [a, a, _c(1.0)])])
        # w = a + a**2 / (1 + s) in two parts: a**2 = h + l by fma, the quotient's error by fma,
        # the sum's by two-sum
        h, d = b.fmul(a, a), b.fadd(s, _c(1.0))
        q = b.fdiv(h, d)
        q_lo = b.fdiv(b.fadd(self._intrinsic("llvm.fma", [b.fneg(q), d, h]),
                             self._intrinsic("llvm.fma", [a, a, b.fneg(h)])), d)
        w, w_err = self._two_sum(a, q)
        big = b.fcmp_ordered(">", a, _c(BIG_LOG))
        u = b.select(big, a, self._muladd(_c(2.0), a, b.fdiv(_c(1.0), b.fadd(s, a))))
        result = self._log1p_or_log(b.fcmp_ordered("<=", a, _c(2.0)), w, u, big, b.fadd(w_err, q_lo))
        return self._intrinsic("llvm.copysign", [result, wide])

    def _vm_acosh(self, wide):
        """fdlibm's forms: x <= 2: log1p(t + sqrt(2t + t**2)), t = x - 1 (exact); above:
        log(2x - 1 / (x + sqrt(x**2 - 1))), and log(x) + ln2 from 2**1000 on; NaN below 1."""
        b = self.b
        t = b.fsub(wide, _c(1.0))
        # t**2 + 2t = v + v_lo (t**2 = h + l by fma, the sum's error by two-sum), sqrt(v + v_lo) =
        # s + (v - s**2 + v_lo) / 2s, and w = t + s in two parts: near x = 1 w's rounding showed
        h = b.fmul(t, t)
        v, v_err = self._two_sum(b.fadd(t, t), h)
        v_lo = b.fadd(v_err, self._intrinsic("llvm.fma", [t, t, b.fneg(h)]))
        s = self._intrinsic("llvm.sqrt", [v])
        s_lo = b.fdiv(b.fadd(self._intrinsic("llvm.fma", [b.fneg(s), s, v]), v_lo), b.fadd(s, s))
        w, w_err = self._two_sum(t, s)
        w_lo = b.fadd(w_err, s_lo)
        root = self._intrinsic("llvm.sqrt", [self._intrinsic("llvm.fma", [wide, wide, _c(-1.0)])])
        big = b.fcmp_ordered(">", wide, _c(BIG_LOG))
        u = b.select(big, wide, self._muladd(_c(2.0), wide, b.fdiv(_c(-1.0), b.fadd(wide, root))))
        result = self._log1p_or_log(b.fcmp_ordered("<=", wide, _c(2.0)), w, u, big, w_lo)
        return b.select(b.fcmp_ordered("<", wide, _c(1.0)), _c(math.nan), result)

    def _log1p_or_log(self, near, w, u, big, w_lo=None):
        """log1p(w + w_lo) on the ``near`` lanes (``_vm_log1p``'s form: log(1 + w) plus what
        rounding 1 + w lost, and w_lo, over 1 + w; w itself where 1 + w == 1), else log(u), plus
        ln2 on the ``big`` lanes: one log for both."""
        b = self.b
        v = b.select(near, b.fadd(w, _c(1.0)), u)
        log_v = self._vm_log(v)
        lost = b.fsub(w, b.fsub(v, _c(1.0)))
        lost = b.fdiv(lost if w_lo is None else b.fadd(lost, w_lo), v)
        result = b.fadd(log_v, b.select(near, lost, b.select(big, _c(math.log(2.0)), _c(0.0))))
        return b.select(b.and_(near, b.fcmp_ordered("==", v, _c(1.0))), w, result)

    def _vm_atanh(self, wide):
        """log1p(q) / 2 on a = |x|, q = 2a / (1 - a) in two parts (1 - a = d + d_lo exactly, the
        division's error by ``llvm.fma``), log1p as ``_vm_log1p`` (log(1 + q) plus what rounding
        1 + q lost) with q's low part added there; the sign put back.  a = 1 gives inf, a > 1 a
        logarithm of a negative number (NaN), as does a NaN."""
        b = self.b
        a = self._intrinsic("llvm.fabs", [wide])
        two_a = b.fadd(a, a)
        d = b.fsub(_c(1.0), a)
        d_lo = b.fsub(b.fsub(_c(1.0), d), a)  # exact: |a| <= 1 where it matters
        q = b.fdiv(two_a, d)
        q_lo = b.fdiv(b.fsub(self._intrinsic("llvm.fma", [b.fneg(q), d, two_a]), b.fmul(q, d_lo)), d)
        u = b.fadd(q, _c(1.0))
        lost = b.fdiv(b.fadd(b.fsub(q, b.fsub(u, _c(1.0))), q_lo), u)
        result = b.fadd(self._vm_log(u), lost)
        result = b.select(b.fcmp_ordered("==", u, _c(1.0)), q, result)
        result = b.select(b.fcmp_ordered("==", a, _c(1.0)), _c(math.inf), result)
        return self._intrinsic("llvm.copysign", [b.fmul(_c(0.5), result), wide])

    # ---- cbrt ----------------------------------------------------------------------------
    def _vm_cbrt(self, wide):
        """fdlibm's cbrt (FreeBSD s_cbrt.c) on |x|, the sign put back: the high word's exponent
        divided by 3 (an i32 division by a constant) for 5 bits, ``CBRT``'s polynomial to 23 bits,
        rounded away from zero to 23 bits, one Newton step (< 0.667 ulp); 0, inf and NaN are x."""
        b = self.b
        i32 = ll.IntType(32)
        a = self._intrinsic("llvm.fabs", [wide])
        tiny = b.fcmp_ordered("<", a, _c(2.2250738585072014e-308))
        high = b.trunc(b.lshr(b.bitcast(b.select(tiny, b.fmul(a, _c(2.0 ** 54)), a), I64), ll.Constant(I64, 32)), i32)
        third = b.add(b.udiv(high, ll.Constant(i32, 3)),
                      b.select(tiny, ll.Constant(i32, CBRT_B2), ll.Constant(i32, CBRT_B1)))
        t = b.bitcast(b.shl(b.zext(third, I64), ll.Constant(I64, 32)), F64)
        r = b.fmul(b.fmul(t, t), b.fdiv(t, a))
        p = b.fadd(b.fadd(_c(CBRT[0]), b.fmul(r, b.fadd(_c(CBRT[1]), b.fmul(r, _c(CBRT[2]))))),
                   b.fmul(b.fmul(b.fmul(r, r), r), b.fadd(_c(CBRT[3]), b.fmul(r, _c(CBRT[4])))))
        t = b.fmul(t, p)
        bits = b.and_(b.add(b.bitcast(t, I64), ll.Constant(I64, 0x80000000)), ll.Constant(I64, 0xffffffffc0000000))
        t = b.bitcast(bits, F64)
        r = b.fdiv(a, b.fmul(t, t))  # t*t is exact
        r = b.fdiv(b.fsub(r, t), b.fadd(b.fadd(t, t), r))
        result = self._intrinsic("llvm.copysign", [self._muladd(t, r, t), wide])
        finite = b.and_(b.fcmp_ordered(">", a, _c(0.0)), b.fcmp_ordered("<", a, _c(math.inf)))
        return b.select(finite, result, wide)

    # ---- hypot ---------------------------------------------------------------------------
    def _vm_hypot(self, x, y):
        """sqrt(x**2 + y**2) without overflow or underflow: both scaled by 2**-k, k the larger
        one's exponent (clamped so that 2**k and 2**-k are normal), the root of fma(a, a, b*b)
        corrected once by its exact residual (Borges' fma form, 2019), scaled back.  C99's
        specials: an infinite argument gives inf (a NaN other too), else a NaN gives NaN."""
        b = self.b
        ax, ay = self._intrinsic("llvm.fabs", [x]), self._intrinsic("llvm.fabs", [y])
        swap = b.fcmp_ordered(">", ay, ax)
        big, small = b.select(swap, ay, ax), b.select(swap, ax, ay)
        exponent = b.sub(b.lshr(b.bitcast(big, I64), ll.Constant(I64, 52)), ll.Constant(I64, 1023))
        k = self._float_of(exponent)
        k = self.py_max(self.py_min(k, _c(1021.0), True), _c(-1021.0), True)
        a, c = b.fmul(big, self._pow2(b.fneg(k))), b.fmul(small, self._pow2(b.fneg(k)))
        h = self._intrinsic("llvm.sqrt", [self._intrinsic("llvm.fma", [a, a, b.fmul(c, c)])])
        h_sq, a_sq = b.fmul(h, h), b.fmul(a, a)
        residual = b.fsub(b.fadd(self._intrinsic("llvm.fma", [b.fneg(c), c, b.fsub(h_sq, a_sq)]),
                                 self._intrinsic("llvm.fma", [h, h, b.fneg(h_sq)])),
                          self._intrinsic("llvm.fma", [a, a, b.fneg(a_sq)]))
        h = b.fsub(h, b.fdiv(residual, b.fmul(_c(2.0), h)))
        result = b.select(b.fcmp_ordered("==", big, _c(0.0)), _c(0.0), b.fmul(h, self._pow2(k)))
        return self._hypot_specials(result, x, y, ax, ay)

    def _vm_hypot_narrow(self, x, y):
        """float32 arguments (exact in float64): their squares are exact and cannot overflow or
        underflow there, so the root of one fma rounded to float32 is within an ulp."""
        ax, ay = self._intrinsic("llvm.fabs", [x]), self._intrinsic("llvm.fabs", [y])
        result = self._intrinsic("llvm.sqrt", [self._intrinsic("llvm.fma", [x, x, self.b.fmul(y, y)])])
        return self._hypot_specials(result, x, y, ax, ay)

    def _hypot_specials(self, result, x, y, ax, ay):
        b = self.b
        inf = _c(math.inf)
        result = b.select(b.fcmp_unordered("uno", x, y), _c(math.nan), result)
        infinite = b.or_(b.fcmp_ordered("==", ax, inf), b.fcmp_ordered("==", ay, inf))
        return b.select(infinite, inf, result)

    # ---- pow with a small integer exponent -----------------------------------------------
    def inline_power(self, x, n: int):
        """x**n for n in 2..4 from x*x split into a rounded product and its exact error
        (``llvm.fma``), so the result is rounded once or twice instead of n - 1 times."""
        b = self.b
        h = b.fmul(x, x)
        if n == 2:
            return h
        low = self._intrinsic("llvm.fma", [x, x, b.fneg(h)])
        if n == 3:
            exact, error = (h, x), b.fmul(low, x)
        else:
            exact, error = (h, h), b.fmul(b.fmul(h, low), ll.Constant(x.type, 2.0))
        # The error term is dropped (0) where x*x is at least ``_POWER_LIMITS`` or NaN: there the
        # power overflows by far, so the plain product is inf as the fma with the error term was (or
        # NaN); below, the error term is finite.  So the bits are those of dropping it where it is
        # inf or NaN, with a compare of x*x (never negative: no fabs, no wait for the error term).
        limit = _POWER_LIMITS[isinstance(x.type, ll.DoubleType), n]
        finite = b.fcmp_ordered("<", h, ll.Constant(x.type, limit))
        return self._intrinsic("llvm.fma", [*exact, b.select(finite, error, ll.Constant(x.type, 0.0))])

    # ---- helpers -------------------------------------------------------------------------
    # Conversions between doubles and i64 go through the bits of SHIFTER + n (whose low mantissa bits
    # hold n): AVX2 has no packed double <-> int64 instruction, and LLVM's fptosi / sitofp on a
    # vector of four became four scalar conversions that cost more than exp's polynomial.
    def _pow2(self, exponent):
        """2.0**exponent for an integral double exponent in the normal range, from the bits:
        SHIFTER + 1023 + e has e + 1023 in its low bits, and the shift by 52 drops SHIFTER's."""
        bits = self.b.bitcast(self.b.fadd(exponent, _c(SHIFTER + 1023.0)), I64)
        return self.b.bitcast(self.b.shl(bits, ll.Constant(I64, 52)), F64)

    def _int_of(self, value):
        """The i64 of an integral double with |value| < 2**51."""
        bits = self.b.bitcast(self.b.fadd(value, _c(SHIFTER)), I64)
        return self.b.sub(bits, ll.Constant(I64, _SHIFTER_BITS))

    def _float_of(self, value):
        """The double of an i64 with |value| < 2**51."""
        shifted = self.b.bitcast(self.b.add(value, ll.Constant(I64, _SHIFTER_BITS)), F64)
        return self.b.fsub(shifted, _c(SHIFTER))


#: per fallback: (libm's arity, IR that sets %bad from %x (and %y) for a type T, where the inline
#: value does not apply).  {T} is the type, {inf}/{domain} constants (splatted for vectors)
FALLBACK_TESTS = {
    "sin": (1, "  %a = call {T} @llvm.fabs.{S}({T} %x)\n  %bad = fcmp ugt {T} %a, {domain}\n"),
    "cos": (1, "  %a = call {T} @llvm.fabs.{S}({T} %x)\n  %bad = fcmp ugt {T} %a, {domain}\n"),
    "tan": (1, "  %a = call {T} @llvm.fabs.{S}({T} %x)\n  %bad = fcmp ugt {T} %a, {domain}\n"),
    # erfc: x > ERFC_LIBM (results near the subnormals) or NaN
    "erfc": (1, "  %bad = fcmp ugt {T} %x, {erfc}\n"),
    # pow: not (0 < x < inf and |y| < inf); NaNs compare false
    "pow": (2, "  %p = fcmp ogt {T} %x, {zero}\n  %q = fcmp olt {T} %x, {inf}\n"
               "  %a = call {T} @llvm.fabs.{S}({T} %y)\n  %w = fcmp olt {T} %a, {inf}\n"
               "  %pq = and {B} %p, %q\n  %good = and {B} %pq, %w\n  %bad = xor {B} %good, {true}\n"),
}


def _bad_test(name: str, lanes: int) -> str:
    """``FALLBACK_TESTS[name]``'s IR for scalars (``lanes`` 0) or vectors of ``lanes``."""
    inf, domain, erfc = "0x7FF0000000000000", f"{TRIG_DOMAIN:e}", f"{ERFC_LIBM:e}"
    if not lanes:
        return FALLBACK_TESTS[name][1].format(T="double", S="f64", B="i1", inf=inf, domain=domain,
                                              erfc=erfc, zero="0.0", true="true")
    return FALLBACK_TESTS[name][1].format(
        T=f"<{lanes} x double>", S=f"v{lanes}f64", B=f"<{lanes} x i1>", inf=f"splat (double {inf})",
        domain=f"splat (double {domain})", erfc=f"splat (double {erfc})", zero="zeroinitializer",
        true="splat (i1 true)")


def fallback_module(names, triple: str) -> str:
    """The libm fallbacks that ``_fallback`` calls, as IR text to link into the kernel's module:
    per name a scalar helper (``libm(x, ...) if FALLBACK_TESTS says so else r``, never inlined)
    and vector variants for 2..16 lanes that test all lanes at once and call libm lane by lane
    only when one of them needs it."""
    parts = [f'target triple = "{triple}"', "declare double @llvm.fabs.f64(double)",
             '!0 = !{!"branch_weights", i32 1, i32 1000}']
    used = []
    for group, name in enumerate(sorted(names), start=1):
        arity = FALLBACK_TESTS[name][0]
        args = ["%x", "%y"][:arity]
        helper = f'@"{FALLBACK}{name}"'
        variants = ",".join(f"_ZGV_LLVM_N{n}{'v' * (arity + 1)}_{FALLBACK}{name}({FALLBACK}{name}.v{n})"
                            for n in VECTOR_WIDTHS)
        params = ", ".join(f"double {a}" for a in args)
        parts.append(f"declare double @{name}({', '.join(['double'] * arity)})")
        parts.append(f"define double {helper}({params}, double %r) #{group} {{\n"
                     f"{_bad_test(name, 0)}"
                     "  br i1 %bad, label %slow, label %fast, !prof !0\n"
                     "fast:\n  ret double %r\n"
                     f"slow:\n  %s = call double @{name}({params})\n  ret double %s\n}}")
        parts.append(f"attributes #{group} = {{ noinline nounwind willreturn memory(none) "
                     f'"vector-function-abi-variant"="{variants}" }}')
        # the helper is "used" too, so that no interprocedural pass rewrites its signature (a
        # constant argument, pow's y in x ** -1.5, would otherwise be propagated into it and the
        # parameter dropped, and the vector variants would no longer match it)
        used.append(f"ptr {helper}")
        for n in VECTOR_WIDTHS:
            parts.append(_vector_variant(name, n, args))
            used.append(f'ptr @"{FALLBACK}{name}.v{n}"')
    for n in VECTOR_WIDTHS:
        parts.append(f"declare <{n} x double> @llvm.fabs.v{n}f64(<{n} x double>)")
    parts.append(f"@llvm.compiler.used = appending global [{len(used)} x ptr] [{', '.join(used)}], "
                 'section "llvm.metadata"')
    return "\n".join(parts) + "\n"


def _vector_variant(name: str, n: int, args: list[str]) -> str:
    """The ``n``-lane variant: all lanes tested at once; where one needs libm, a branch per lane
    calls it only for the lanes that need it (erfc's tail can be half the lanes: calling libm for
    all of a mixed vector cost more than the plain libm loop)."""
    vec = f"<{n} x double>"
    lanes = []
    previous, block = "%r", "slow"
    for i in range(n):
        # libm itself, not the scalar helper: the optimiser would map that call back onto this
        # variant (its vector-function-abi-variant) and recurse
        lanes.append(f"  %b{i} = extractelement <{n} x i1> %bad, i32 {i}\n"
                     f"  br i1 %b{i}, label %call{i}, label %join{i}\n"
                     f"call{i}:\n"
                     + "".join(f"  {a}{i} = extractelement {vec} {a}, i32 {i}\n" for a in args)
                     + f"  %s{i} = call double @{name}({', '.join(f'double {a}{i}' for a in args)})\n"
                     f"  %c{i} = insertelement {vec} {previous}, double %s{i}, i32 {i}\n"
                     f"  br label %join{i}\n"
                     f"join{i}:\n  %o{i} = phi {vec} [ %c{i}, %call{i} ], [ {previous}, %{block} ]\n")
        previous, block = f"%o{i}", f"join{i}"
    params = ", ".join(f"{vec} {a}" for a in args)
    return (f'define internal {vec} @"{FALLBACK}{name}.v{n}"({params}, {vec} %r) {{\n'
            f"{_bad_test(name, n)}"
            f"  %mask = bitcast <{n} x i1> %bad to i{n}\n"
            f"  %any = icmp ne i{n} %mask, 0\n"
            f"  br i1 %any, label %slow, label %fast, !prof !0\n"
            f"fast:\n  ret {vec} %r\n"
            f"slow:\n{''.join(lanes)}  ret {vec} {previous}\n}}")
