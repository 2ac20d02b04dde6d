"""Vector math against libm, NumPy's ufuncs and the memory-bandwidth bound: per function and in chains.

    python benchmarks/vector_math.py [elements] [repeats] [--functions | --chains | --programs] [--only=tan,sinh]

**Per function** (``elements`` float64 values, default 8M): ``out[i] = f(x[i])`` (``x[i] ** y[i]``,
``atan2(x[i], y[i])``) compiled by polyfuse with its inline vector math and with
``vector_math=False`` (one libm call per element), and NumPy's ufunc into a preallocated output
(``scipy.special.erf`` for erf, where SciPy is installed).  Printed: ms, GB/s (bytes moved: 16 per
element, 24 for two arguments), time / bandwidth bound, NumPy time / polyfuse time, and the largest
distance from libm in ulp over the first 200,000 elements (Python's ``math``: glibc).

**Chains** (the issue-15 target: within 1.5x of the bound): GELU in tanh form (``x ** 3`` and
``tanh``), GELU in erf form, the sigmoid ``1 / (1 + exp(-x))``, ``sin(x) * cos(y) + 0.5`` and
``x ** y * 0.5``.  polyfuse (vector_math on and off) and numba ``@njit`` compile the same loop
function; NumPy and ``jax.jit`` (float64, where installed) run the array form.

**Programs**: one NumPy program per group of functions (tan; sinh/cosh; arcsin; arctanh/arcsinh;
cbrt; erfc), the same function compiled by polyfuse (vector_math on and off) and run by NumPy.

The bound is bytes moved / STREAM triad bandwidth, the triad compiled by polyfuse on the same
threads (polyfuse/bench/limits.py's kernel); x bound = time / bound.  Min of ``repeats`` (default
7) runs each, the contenders of a function row interleaved; every result compared with NumPy's
(chains: max |diff|) or libm's (functions: max ulp, inf if a special value differs).  The 1-minute load average is printed with every row: on a shared machine
every number is inflated.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench.limits import stream_triad

ULP_SAMPLE = 200_000


def gelu_loop(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = 0.5 * v * (1.0 + math.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3)))


def gelu_array(np, x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def gelu_erf_loop(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = 0.5 * v * (1.0 + math.erf(v * 0.7071067811865476))


def gelu_erf_array(np, x):
    erf = _erf_ufunc() if np.__name__ == "numpy" else _jax_erf()
    return 0.5 * x * (1.0 + erf(x * 0.7071067811865476))


def sigmoid_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = 1.0 / (1.0 + math.exp(-x[i]))


def sigmoid_array(np, x):
    return 1.0 / (1.0 + np.exp(-x))


def trig_loop(x, y, out):
    for i in range(x.shape[0]):
        out[i] = math.sin(x[i]) * math.cos(y[i]) + 0.5


def trig_array(np, x, y):
    return np.sin(x) * np.cos(y) + 0.5


def pow_loop(x, y, out):
    for i in range(x.shape[0]):
        out[i] = x[i] ** y[i] * 0.5


def pow_array(np, x, y):
    return x ** y * 0.5


def _erf_ufunc():
    try:
        from scipy.special import erf
    except ImportError:
        return np.vectorize(math.erf, otypes=[np.float64])
    return erf


def _jax_erf():
    import jax.scipy.special

    return jax.scipy.special.erf


def exp_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i])


def log_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.log(x[i])


def tanh_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.tanh(x[i])


def expm1_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.expm1(x[i])


def log1p_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.log1p(x[i])


def exp2_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.exp2(x[i])


def log2_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.log2(x[i])


def log10_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.log10(x[i])


def sin_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.sin(x[i])


def cos_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.cos(x[i])


def erf_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.erf(x[i])


def pow2_loop(x, y, out):
    for i in range(x.shape[0]):
        out[i] = x[i] ** y[i]


def atan2_loop(x, y, out):
    for i in range(x.shape[0]):
        out[i] = math.atan2(x[i], y[i])


def tan_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.tan(x[i])


def sinh_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.sinh(x[i])


def cosh_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.cosh(x[i])


def atan_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.atan(x[i])


def asin_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.asin(x[i])


def acos_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.acos(x[i])


def atanh_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.atanh(x[i])


def asinh_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.asinh(x[i])


def acosh_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.acosh(x[i])


def cbrt_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.cbrt(x[i])


def erfc_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.erfc(x[i])


def hypot_loop(x, y, out):
    for i in range(x.shape[0]):
        out[i] = math.hypot(x[i], y[i])


def _erfc_ufunc():
    try:
        from scipy.special import erfc
    except ImportError:
        return None
    return erfc


#: name -> (loop, NumPy ufunc (None: SciPy's or none), libm, argument ranges (log-uniform if "log"))
FUNCTIONS = {
    "exp": (exp_loop, np.exp, math.exp, [(-700, 700)]),
    "log": (log_loop, np.log, math.log, ["log"]),
    "tanh": (tanh_loop, np.tanh, math.tanh, [(-5, 5)]),
    "expm1": (expm1_loop, np.expm1, math.expm1, [(-5, 5)]),
    "log1p": (log1p_loop, np.log1p, math.log1p, [(-0.9, 10)]),
    "exp2": (exp2_loop, np.exp2, lambda v: 2.0 ** v, [(-1000, 1000)]),
    "log2": (log2_loop, np.log2, math.log2, ["log"]),
    "log10": (log10_loop, np.log10, math.log10, ["log"]),
    "sin": (sin_loop, np.sin, math.sin, [(-100, 100)]),
    "cos": (cos_loop, np.cos, math.cos, [(-100, 100)]),
    "erf": (erf_loop, None, math.erf, [(-4, 4)]),
    "pow": (pow2_loop, np.power, math.pow, [(0.01, 100), (-20, 20)]),
    "atan2": (atan2_loop, np.arctan2, math.atan2, [(-10, 10), (-10, 10)]),
    "tan": (tan_loop, np.tan, math.tan, [(-100, 100)]),
    "sinh": (sinh_loop, np.sinh, math.sinh, [(-20, 20)]),
    "cosh": (cosh_loop, np.cosh, math.cosh, [(-20, 20)]),
    "atan": (atan_loop, np.arctan, math.atan, [(-10, 10)]),
    "asin": (asin_loop, np.arcsin, math.asin, [(-1, 1)]),
    "acos": (acos_loop, np.arccos, math.acos, [(-1, 1)]),
    "atanh": (atanh_loop, np.arctanh, math.atanh, [(-0.999, 0.999)]),
    "asinh": (asinh_loop, np.arcsinh, math.asinh, [(-10, 10)]),
    "acosh": (acosh_loop, np.arccosh, math.acosh, [(1, 20)]),
    "cbrt": (cbrt_loop, np.cbrt, math.cbrt, [(-100, 100)]),
    "erfc": (erfc_loop, None, math.erfc, [(-3, 3)]),  # half the lanes (x > 15/32) call libm
    "hypot": (hypot_loop, np.hypot, math.hypot, [(-100, 100), (-100, 100)]),
}


def load() -> str:
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def best_ms(fn, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def interleaved(calls: dict, repeats: int) -> dict[str, float]:
    """Min ms of each call, the calls taking turns (a load change hits them all alike)."""
    for call in calls.values():
        call()
    best = dict.fromkeys(calls, math.inf)
    for _ in range(repeats):
        for label, call in calls.items():
            start = time.perf_counter()
            call()
            best[label] = min(best[label], time.perf_counter() - start)
    return {label: t * 1e3 for label, t in best.items()}


def triad_gb_s(n: int, repeats: int) -> float:
    a, b, c = np.zeros(n), np.ones(n), np.full(n, 2.0)
    kernel = polyfuse.kernel(stream_triad)
    ms = best_ms(lambda: kernel(3.0, a, b, c), repeats)
    return 24 * n / (ms * 1e-3) / 1e9


def max_ulp(actual: np.ndarray, libm, *args: np.ndarray) -> float:
    """Largest distance from libm over the first ULP_SAMPLE elements (finite nonzero results)."""
    k = min(ULP_SAMPLE, actual.size)
    expected = np.array([libm(*vals) for vals in zip(*(a[:k].tolist() for a in args))])
    finite = np.isfinite(expected) & (expected != 0)
    if not np.array_equal(actual[:k][~finite], expected[~finite], equal_nan=True):
        return math.inf
    return float((np.abs(actual[:k][finite] - expected[finite]) / np.spacing(np.abs(expected[finite]))).max())


def functions_table(n: int, repeats: int, bandwidth: float) -> None:
    rng = np.random.default_rng(0)
    print(f"\nper function ({n} float64 elements; bytes moved 16 per element, 24 with two arguments)")
    print(f"  {'function':8s} {'polyfuse ms':>11s} {'GB/s':>6s} {'x bound':>8s} {'libm ms':>9s} {'numpy ms':>9s}"
          f" {'np/pf':>6s} {'max ulp':>8s}  load")
    for name in ONLY or FUNCTIONS:
        function_row(name, rng, n, repeats, bandwidth)


def function_row(name: str, rng, n: int, repeats: int, bandwidth: float) -> None:
    loop, ufunc, libm, ranges = FUNCTIONS[name]
    inputs = tuple(np.exp(rng.uniform(-690, 690, n)) if r == "log" else rng.uniform(*r, n) for r in ranges)
    out, scratch = np.empty(n), np.empty(n)
    fast, slow = polyfuse.kernel(loop), polyfuse.kernel(loop, vector_math=False)
    calls = {"pf": lambda: fast(*inputs, out), "libm": lambda: slow(*inputs, out)}
    ufunc = ufunc or {"erf": _erf_ufunc, "erfc": _erfc_ufunc}.get(name, lambda: None)()
    if ufunc is not None:
        calls["numpy"] = lambda: ufunc(*inputs, out=scratch)
    with np.errstate(all="ignore"):
        times = interleaved(calls, repeats)
        fast(*inputs, out)
    nbytes = 8 * n * (len(inputs) + 1)
    bound_ms = nbytes / (bandwidth * 1e9) * 1e3
    pf, numpy_ms = times["pf"], times.get("numpy", math.nan)
    print(f"  {name:8s} {pf:11.2f} {nbytes / (pf * 1e-3) / 1e9:6.1f} {pf / bound_ms:8.2f} {times['libm']:9.2f}"
          f" {numpy_ms:9.2f} {numpy_ms / pf:6.2f} {max_ulp(out, libm, *inputs):8.1f}  {load()}")


def tan_slope(x, out):
    """tan: heights from angles, d tan(x) + h."""
    out[:] = 120.0 * np.tan(x) + 1.5


def catenary(x, out):
    """sinh, cosh: a cable's height and slope, a cosh(x/a) - a + sinh(x/a)."""
    out[:] = 40.0 * np.cosh(x / 40.0) - 40.0 + np.sinh(x / 40.0)


def haversine(lat1, lon1, lat2, lon2, out):
    """arcsin (with sin, cos): great-circle distances."""
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    out[:] = 2 * 6371.0 * np.arcsin(np.sqrt(a))


def fisher_z(r, out):
    """arctanh, arcsinh: Fisher's z of correlations plus an asinh transform."""
    out[:] = np.arctanh(r) + np.arcsinh(r * 10.0)


def lab_f(t, out):
    """cbrt: CIELAB's f(t)."""
    out[:] = np.where(t > 0.008856, np.cbrt(t), 7.787 * t + 16.0 / 116.0)


def normal_cdf(x, out):
    """erfc: the normal CDF 0.5 erfc(-x / sqrt 2); a loop (NumPy has no erfc), NumPy's row runs it
    elementwise with SciPy's erfc where installed."""
    for i in range(x.shape[0]):
        out[i] = 0.5 * math.erfc(-x[i] * 0.7071067811865476)


def _normal_cdf_numpy(x, out):
    erfc = _erfc_ufunc()
    if erfc is None:
        return normal_cdf(x, out)
    np.multiply(erfc(-x * 0.7071067811865476), 0.5, out=out)


#: name -> (program, argument ranges, NumPy's version (None: the program itself))
PROGRAMS = {
    "tan_slope": (tan_slope, [(-1.5, 1.5)], None),
    "catenary": (catenary, [(-100, 100)], None),
    "haversine": (haversine, [(-1.5, 1.5)] * 4, None),
    "fisher_z": (fisher_z, [(-0.99, 0.99)], None),
    "lab_f": (lab_f, [(0, 1)], None),
    "normal_cdf": (normal_cdf, [(-4, 4)], _normal_cdf_numpy),
}


def programs_table(n: int, repeats: int, bandwidth: float) -> None:
    """One NumPy program per group of the functions added in session 17: polyfuse (vector_math
    on and off) against NumPy running the same program (max relative difference from NumPy's)."""
    rng = np.random.default_rng(1)
    print(f"\nprograms ({n} float64 elements): ms, np/pf = NumPy time / polyfuse time")
    print(f"  {'program':11s} {'polyfuse':>9s} {'libm':>9s} {'numpy':>9s} {'np/pf':>6s} {'x bound':>8s}"
          f" {'max rel diff':>12s}  load")
    for name in PROGRAMS:
        program_row(name, rng, n, repeats, bandwidth)


def program_row(name: str, rng, n: int, repeats: int, bandwidth: float) -> None:
    program, ranges, numpy_version = PROGRAMS[name]
    inputs = tuple(rng.uniform(*r, n) for r in ranges)
    out, reference = np.empty(n), np.empty(n)
    fast, slow = polyfuse.kernel(program), polyfuse.kernel(program, vector_math=False)
    plain = numpy_version or program
    with np.errstate(all="ignore"):
        times = interleaved({"pf": lambda: fast(*inputs, out), "libm": lambda: slow(*inputs, out),
                             "numpy": lambda: plain(*inputs, reference)}, repeats)
        fast(*inputs, out)
        plain(*inputs, reference)
    diff = np.max(np.abs(out - reference) / np.maximum(np.abs(reference), 1e-300))
    bound_ms = 8 * n * (len(inputs) + 1) / (bandwidth * 1e9) * 1e3
    print(f"  {name:11s} {times['pf']:9.2f} {times['libm']:9.2f} {times['numpy']:9.2f}"
          f" {times['numpy'] / times['pf']:6.2f} {times['pf'] / bound_ms:8.2f} {diff:12.2e}  {load()}")


CHAINS = (("gelu_tanh", gelu_loop, gelu_array, 1), ("gelu_erf", gelu_erf_loop, gelu_erf_array, 1),
          ("sigmoid", sigmoid_loop, sigmoid_array, 1), ("sin_cos", trig_loop, trig_array, 2),
          ("pow", pow_loop, pow_array, 2))


def contenders(loop, array, inputs, out):
    """name -> a call that leaves its result in ``out`` (except jax's "no copy out" timing)."""
    import numba

    fast, libm, jitted_loop = polyfuse.kernel(loop), polyfuse.kernel(loop, vector_math=False), numba.njit(loop)
    found = {
        "polyfuse": lambda: fast(*inputs, out),
        "polyfuse vector_math=False": lambda: libm(*inputs, out),
        "numba njit": lambda: jitted_loop(*inputs, out),
        "numpy": lambda: np.copyto(out, array(np, *inputs)),
    }
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        jitted = jax.jit(lambda *a: array(jax.numpy, *a))
        on_device = [jax.device_put(a) for a in inputs]
        found["jax.jit"] = lambda: np.copyto(out, np.asarray(jax.block_until_ready(jitted(*on_device))))
        found["jax.jit (no copy out)"] = lambda: jax.block_until_ready(jitted(*on_device))
    except ImportError:
        pass
    return found


def chains_table(n: int, repeats: int, bandwidth: float) -> None:
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-4, 4, n), rng.uniform(-10, 10, n)
    for name, loop, array, arity in CHAINS:
        inputs = (x, y)[:arity] if name != "pow" else (np.abs(x) + 0.5, y * 0.3)
        nbytes = 8 * n * (arity + 1)
        bound_ms = nbytes / (bandwidth * 1e9) * 1e3
        with np.errstate(all="ignore"):
            expected = array(np, *inputs)
        print(f"\n{name}: {nbytes / 1e6:.0f} MB moved, bandwidth bound {bound_ms:.2f} ms")
        print(f"  {'contender':28s} {'ms':>9s} {'GB/s':>6s} {'x bound':>8s}  max |diff| vs numpy  load")
        out = np.empty(n)
        for label, call in contenders(loop, array, inputs, out).items():
            out.fill(np.nan)
            with np.errstate(all="ignore"):
                ms = best_ms(call, repeats)
            diff = "-" if "no copy" in label else f"{np.max(np.abs(out - expected)):.2e}"
            print(f"  {label:28s} {ms:9.2f} {nbytes / (ms * 1e-3) / 1e9:6.1f} {ms / bound_ms:8.2f}  {diff:19s} {load()}")


def main(n: int = 1 << 23, repeats: int = 7, which: str = "both") -> None:
    bandwidth = triad_gb_s(n, repeats)
    print(f"{n} float64 elements; STREAM triad (polyfuse, {polyfuse.runtime.threads.get_num_threads()} threads): "
          f"{bandwidth:.1f} GB/s; load average {load()}")
    if which in ("both", "--functions"):
        functions_table(n, repeats, bandwidth)
    if which in ("both", "--chains"):
        chains_table(n, repeats, bandwidth)
    if which in ("both", "--programs"):
        programs_table(n, repeats, bandwidth)


ONLY: list[str] = []  # --only=tan,sinh: these rows of the per-function table


if __name__ == "__main__":
    numbers = [int(a) for a in sys.argv[1:] if not a.startswith("--")]
    ONLY += [name for a in sys.argv[1:] if a.startswith("--only=") for name in a[7:].split(",")]
    flags = [a for a in sys.argv[1:] if a.startswith("--") and not a.startswith("--only=")]
    main(*numbers[:2], *(flags[:1] or ["both"]))
