"""Targeted random programs for paths the generators of program_gen.py do not reach (fz24).

Not part of CI (pytest collects only ``test_*.py``).  Each *family* draws small programs of one
feature from a seed and compares every compiled call with the undecorated function (every array
argument and the return value; a Python/NumPy number of another type but an equal value is
counted as ``typediff``, documented in docs/subset.md *Local scalars*; an ArgumentError where Python
ran is listed as ``argument_errors``, for review, not as a failure):

    bincount     np.bincount(x, weights=, minlength=) of int/bool data, empty and viewed inputs
    fancy_store  x[idx] = v through one run-time index array (repeats, negative indices, reads of x)
    digitize     np.digitize of increasing/decreasing/constant/non-monotone bins, NaN, inf
    loopvar      loop variables reused as locals, zero-trip loops returning Python numbers
    early        'if <sizes>: return v' before statements that would raise where Python never goes
    stream       non-temporal stores (POLYFUSE_STREAM_STORES=64) into offset, strided, reversed views
    tiles        time-tiled stencils (jacobi, in-place Gauss-Seidel-like) with random tile sizes,
                 POLYFUSE_ONE_THREAD_TILES on
    tile_bounds  random time-tiled sweeps with descending, step-2 and emptied space loops (fz26)
    narrow       the narrow GEMM (blas.NARROW_* forced to 1/1/8): transposed, strided, sliced operands
    beta_zero    zeroing statements covering more/fewer elements than the product adds to
    matprod2d    3mm-style guarded gemm loops, row chunks (guarded and gemv) forced on
    gemv_chunks  A @ x forms on row chunks
    einsum       polyfuse.einsum of random subscripts, layouts, options, out= (against np.einsum)
    spec         polyfuse.spec of random statements (sum/max reductions, biases, relu/exp/abs)
    dask         random stencils on dask arrays of random chunks (threaded scheduler)
    dask_uneven  dask arrays of uneven chunks (1-11 per block) and float64/float32/int64/int32
                 values: stencils, reversed loops, elementwise NumPy statements, returned
                 sum/max/min reductions, time loops; the same dask array passed twice is refused
                 (cp37)
    pivot        lu/cholesky-like pivot nests, random bounds (k vs k + 1), non-square, float32,
                 POLYFUSE_PIVOT_BLOCK 2..32 (pivot blocks) (fz27)
    stream_overlap  non-temporal stores into arrays the kernel also reads shifted/reversed (fz27)
    selections   selections used later or iterated, np.unique loops, a-if-c-else-b, and/or (fz27)
    tiles_wide   time-tiled stencils of float32/int64 around 8/16-lane sizes, POLYFUSE_TILED_WIDE
    scalar_logic  and/or/not, a-if-c-else-b and arithmetic of float/int/bool elements (fz27)
    pivot_rows   Floyd-Warshall-shaped nests in blocks of pivots (POLYFUSE_PIVOT_ROWS 2, 3, 32): other
                 columns of the pivot row and row i, offset ranges, k descending, float32/int64 (fz28)
    packing      the register tiles' shared packing: B changed in place between calls, B a view,
                 Fortran order, 1 and 2 threads, a forked child calling again (fz27)
    overwritten  a later statement overwriting an earlier one's output (schedule/overwritten.py):
                 softmax-shaped rows, shifted/partial/guarded readers, third readers, time loops,
                 int32/float32 arrays, break/continue/return between, the knob on/off (cp41)
    tile_boundary  time-tiled stencils with boundary statements (fdtd-2d's ey[0, j] = fict[t]),
                 POLYFUSE_TIME_TILE_ATOMIC on/off, random tiles, one/two threads (cp41)
    mixed_locals  locals of two NumPy dtypes or a NumPy scalar and a Python number (frontend/
                 local_versions.py), max()/min() of mixed types, small-int accumulators (cp41)
    none_counted  None locals (frontend/none_locals.py) and count-then-allocate
                 (frontend/counted_allocations.py) over empty and short data (cp41)
    linalg       np.linalg qr/eigh/eigvalsh/svd of tall, wide, 1x1 and float32 matrices (cp41)

Targets: target="python", "cpu" on 1 and 2 threads (the serial-first rule off), and with
``--targets cuda`` numba's CUDA simulator (the families whose kernels return nothing).

    python tests/long/feature_campaign.py --families all --seed 7 --count 20
    python tests/long/feature_campaign.py --families fancy_store,early --seed 8 --count 50
    python tests/long/feature_campaign.py --families tiles,stream --targets cuda --count 10

Prints each failure with its program and arguments, then the totals; exits non-zero on a failure.
"""

from __future__ import annotations

import argparse
import inspect
import os
import random
import sys
import time
import traceback
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]  # tests/ helpers; this checkout's polyfuse

import numpy as np  # noqa: E402
from conftest import define, einsum_compiled, threads_forced  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.runtime import threads  # noqa: E402

STATS = {"programs": 0, "kernels": 0, "calls": 0, "fail": 0, "refused": 0}


def copy(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def view_copy(args):
    """copies that keep strides of views: rebuild from the base where the arg is a view"""
    out = []
    for a in args:
        if isinstance(a, np.ndarray) and a.base is not None and isinstance(a.base, np.ndarray):
            base = a.base.copy()
            off = (a.__array_interface__["data"][0] - a.base.__array_interface__["data"][0])
            v = np.lib.stride_tricks.as_strided(base.reshape(-1)[off // a.itemsize:] if base.flags.c_contiguous
                                                else base.ravel(order="K")[off // a.itemsize:],
                                                shape=a.shape, strides=a.strides)
            out.append(v)
        elif isinstance(a, np.ndarray):
            out.append(a.copy())
        else:
            out.append(a)
    return tuple(out)


def same(e, a, rtol, atol, label):
    if isinstance(e, tuple):
        assert isinstance(a, tuple) and len(a) == len(e), f"{label}: {a!r} vs {e!r}"
        for i, (x, y) in enumerate(zip(e, a)):
            same(x, y, rtol, atol, f"{label}[{i}]")
        return
    if isinstance(e, np.ndarray):
        assert isinstance(a, np.ndarray), f"{label}: {type(a)}"
        assert a.dtype == e.dtype and a.shape == e.shape, f"{label}: {a.dtype}{a.shape} vs {e.dtype}{e.shape}"
        if e.dtype.kind in "iub":
            np.testing.assert_array_equal(a, e, err_msg=label)
        else:
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=label)
        return
    if e is None:
        assert a is None, label
        return
    if type(e) is not type(a):
        # documented (subset.md, Local scalars): the promotion's type where Python's is the last value's
        STATS["typediff"] = STATS.get("typediff", 0) + 1
        print(f"TYPEDIFF {STATS.get('current', '')} {label}: python {type(e).__name__} {e!r}, "
              f"kernel {type(a).__name__} {a!r}", flush=True)
    np.testing.assert_allclose(np.asarray(a, dtype=complex), np.asarray(e, dtype=complex), rtol=rtol, atol=atol,
                               equal_nan=True, err_msg=label)


def run_case(src, arg_sets, rtol=1e-9, atol=1e-12, targets=("python", "cpu1", "cpu2"), env=None, label=""):
    began = time.perf_counter()
    try:
        _run_case(src, arg_sets, rtol, atol, targets, env, label)
    finally:
        seconds = time.perf_counter() - began
        if seconds > STATS.get("slowest_s", 0.0):  # the slowest program (compiles and calls)
            STATS["slowest_s"], STATS["slowest"] = round(seconds, 1), label
        if seconds > 60:
            print(f"SLOW {label}: {seconds:.0f} s (env {env})\n{src}", flush=True)


def _raised(expected) -> bool:
    """the plain function raised (its result is the marker ("RAISES", type))"""
    return isinstance(expected, tuple) and len(expected) == 2 and isinstance(expected[0], str) \
        and expected[0] == "RAISES"


def _run_case(src, arg_sets, rtol, atol, targets, env, label):
    fn = define(src)
    STATS["programs"] += 1
    STATS["current"] = label
    expected = []
    for args in arg_sets:
        a = view_copy(args)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = fn(*a)
            except Exception as exc:  # noqa: BLE001
                r = ("RAISES", type(exc))
        expected.append((a, r))
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        for target in targets:
            t = "cpu" if target.startswith("cpu") else target
            try:
                k = polyfuse.kernel(fn, target=t, verify=True, cache=False)
            except polyfuse.UnsupportedError:
                STATS["refused"] += 1
                return
            STATS["kernels"] += 1
            if t == "cpu":
                threads.set_num_threads(int(target[3:]))
            for (exp_args, exp_r), args in zip(expected, arg_sets):
                for call in (1, 2) if t == "cpu" else (1,):
                    a = view_copy(args)
                    try:
                        with np.errstate(all="ignore"), warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            r = k(*a)
                    except polyfuse.UnsupportedError as exc:
                        STATS["refused"] += 1
                        print("REFUSED", label, str(exc).splitlines()[0][:200])
                        return
                    except Exception as exc:  # noqa: BLE001
                        if _raised(exp_r):
                            continue
                        if isinstance(exc, polyfuse.ArgumentError):  # a refusal per call: listed, for review
                            STATS["argument_errors"] = STATS.get("argument_errors", 0) + 1
                            print(f"ARGUMENT ERROR {label} target={target}: {str(exc)[:160]}\n{src}", flush=True)
                            return
                        fail(src, args, target, call, f"crash {type(exc).__name__}: {exc}\n"
                             + traceback.format_exc(limit=-3), label)
                        return
                    STATS["calls"] += 1
                    if _raised(exp_r):
                        fail(src, args, target, call, f"python raised {exp_r[1]}, kernel returned {r!r}", label)
                        return
                    try:
                        for i, (x, y) in enumerate(zip(exp_args, a)):
                            if isinstance(x, np.ndarray):
                                same(x, y, rtol, atol, f"arg{i}")
                        same(exp_r, r, rtol, atol, "return")
                    except AssertionError as exc:
                        fail(src, args, target, call, str(exc)[:1500], label)
                        return
    finally:
        for k_, v in saved.items():
            if v is None:
                os.environ.pop(k_, None)
            else:
                os.environ[k_] = v


def fail(src, args, target, call, why, label):
    STATS["fail"] += 1
    print(f"=== FAIL {label} target={target} call={call}\n{src}\nargs={[describe(a) for a in args]}\n{why}\n",
          flush=True)


def describe(a):
    if isinstance(a, np.ndarray):
        return f"{a.dtype}{a.shape} strides={a.strides} {np.array2string(a.ravel()[:12], precision=3)}"
    return repr(a)


# ------------------------------------------------------------------ families
def vals(rng, n, dtype="float64", special=True):
    x = rng.standard_normal(n).astype(dtype)
    if special and n and rng.random() < 0.3:
        for _ in range(rng.integers(1, 3)):
            x[rng.integers(0, n)] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0])
    return x


def viewed(rng, x):
    """x as a view sometimes: reversed, every 2nd of a larger one"""
    c = rng.integers(0, 4)
    if c == 0 or x.ndim != 1:
        return x
    if c == 1:
        return x[::-1].copy()[::-1]  # reversed view of same values
    if c == 2:
        big = np.empty(2 * len(x) + 1, x.dtype)
        big[1::2] = x
        return big[1::2]
    big = np.empty(len(x) + 3, x.dtype)
    big[3:] = x
    return big[3:]


def fam_bincount(r, rng):
    n = int(rng.choice([0, 1, 2, 5, 17]))
    k = int(rng.integers(1, 6))
    form = r.choice([
        "return np.bincount(x)",
        "return np.bincount(x, minlength=m)",
        "return np.bincount(x, weights=w)",
        "return np.bincount(x, w, m)",
        "c = np.bincount(x, weights=w, minlength=m)\n    return c * 2.0 + 1.0",
        "c = np.bincount(x)\n    return c.argmax(), c.sum()",
        "c = np.bincount(x, minlength=m)\n    s = 0\n    for i in range(c.shape[0]):\n        s += c[i] * i\n    return s",
        "c = np.bincount(x, weights=w)\n    return c / (c.sum() + 1.0)",
        "y[:] = 0.0\n    c = np.bincount(x, weights=w, minlength=m)\n    for i in range(min(y.shape[0], c.shape[0])):\n        y[i] = c[i]\n    return c",
    ])
    src = f"def kern(x, w, m, y):\n    {form}\n"
    dt = r.choice(["int64", "int32", "uint8", "int16", "bool"])
    args = []
    for _ in range(2):
        x = rng.integers(0, k, n).astype(dt)
        wdt = r.choice(["float64", "float32", "int64", "int32"])
        w = (vals(rng, n).astype(wdt) if wdt.startswith("float") else rng.integers(-5, 5, n).astype(wdt))
        if n == 0 and "w" in form.replace("weights", "").split("(", 1)[-1]:
            x, w = np.zeros(1, dt), w[:1] if len(w) else np.ones(1, w.dtype)  # documented: empty x with weights
        if "c.argmax()" in form and n == 0:
            x = np.zeros(1, dt)
            w = w[:0]
        args.append((viewed(rng, x), viewed(rng, w), int(rng.integers(0, 7)), np.zeros(4)))
    return src, args, {}


def fam_fancy_store(r, rng):
    n = int(rng.choice([1, 2, 5, 9]))
    forms = [
        "x[idx] = v",
        "x[idx] = 2.5",
        "x[idx] = v * 2.0 + x[idx]",
        "x[idx] = x[idx[::-1]]",
        "x[idx] = x[: idx.shape[0]] + 1.0",
        "y = x * 2.0\n    y[idx] = v\n    return y",
        "x[idx] = v\n    return x.sum()",
        "for t in range(2):\n        x[idx] = x[idx] + v",
        "x[idx] = np.arange(idx.shape[0]) * 1.0",
        "x[idx] = v[::-1]",
        "A[idx] = A[0]",
        "A[idx, 1] = v",
        "A[1, idx] = v[: idx.shape[0]]",
        "x[idx] = v\n    x[idx] = x[idx] * 3.0",
    ]
    form = r.choice(forms)
    src = f"def kern(x, idx, v, A):\n    {form}\n"
    args = []
    m = int(rng.integers(1, 6))
    for _ in range(2):
        x = vals(rng, n)
        idx = rng.integers(-n, n, m)
        if "A[" in form:
            A = rng.standard_normal((n, n))
            idx = rng.integers(-n, n, m)
        else:
            A = np.zeros((2, 2))
        v = vals(rng, m)
        args.append((viewed(rng, x), viewed(rng, idx), viewed(rng, v), A))
    return src, args, {}


def fam_digitize(r, rng):
    n = int(rng.choice([0, 1, 3, 8]))
    nb = int(rng.choice([0, 1, 2, 4]))
    right = r.choice(["", ", right=True", ", True", ", right=False"])
    forms = [
        f"return np.digitize(x, bins{right})",
        f"return np.digitize(x[0], bins{right})",
        f"return np.digitize(s, bins{right})",
        f"d = np.digitize(x, bins{right})\n    return d.sum(), d",
        f"d = np.digitize(x * 2.0 - 1.0, bins{right})\n    return d",
        f"t = 0\n    for i in range(x.shape[0]):\n        t += np.digitize(x[i], bins{right})\n    return t",
    ]
    form = r.choice(forms)
    if "x[0]" in form and n == 0:
        n = 1
    src = f"def kern(x, bins, s):\n    {form}\n"
    args = []
    for _ in range(2):
        bins = np.sort(rng.integers(-3, 4, nb).astype(float))
        c = rng.integers(0, 4)
        if c == 1:
            bins = bins[::-1].copy()
        elif c == 2 and nb:
            bins[:] = bins[0]
        elif c == 3 and nb > 2:
            bins = rng.standard_normal(nb)  # maybe not monotone
        if rng.random() < 0.2 and nb:
            bins[rng.integers(0, nb)] = rng.choice([np.inf, -np.inf])
        x = rng.integers(-4, 5, n).astype(float)
        if n and rng.random() < 0.4:
            x[rng.integers(0, n)] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.5])
        bdt = r.choice(["float64", "int64", "float32"])
        args.append((viewed(rng, x), viewed(rng, bins.astype(bdt) if bdt != "int64" or np.all(np.isfinite(bins)) else bins),
                     float(rng.choice([np.nan, 0.0, 1.0, -2.5, 3.0]))))
    return src, args, {}


def fam_loopvar(r, rng):
    forms = [
        # loop var reused as local after the loop
        "s = 0.0\n    for i in range(n):\n        s += x[i]\n    i = 3\n    return s + i",
        "for i in range(n):\n        x[i] = x[i] * 2.0\n    i = n - 1\n    if n > 0:\n        x[i] += 1.0\n    return x",
        "for i in range(n):\n        x[i] += 1.0\n    for i in range(n - 1, -1, -1):\n        x[i] = x[i] * i\n    return i if n > 0 else -1",
        "i = 0\n    for i in range(n):\n        x[i] = i\n    return i",
        "j = 5\n    for i in range(n):\n        j = i\n        x[i] = j * 2.0\n    return j",
        "for i in range(n):\n        for j in range(n):\n            x[j] += i\n    return x",
        "s = 0\n    for i in range(n):\n        i = i * 2\n        s += i\n    return s",
        "s = 0.0\n    for k in range(n):\n        s += x[k]\n    for k in range(2):\n        s *= 2.0\n    return s, k",
        "t = 0.0\n    for i in range(n):\n        t = x[i]\n    i = t\n    return i",
        "s = 0\n    for i in range(n):\n        s += i\n    return s",
        "s = 0\n    for i in range(n):\n        s += x[i]\n    return s",
        "s = 1\n    for i in range(n):\n        s = s * 2\n    return s",
        "m = -1\n    for i in range(n):\n        if x[i] > 0.0:\n            m = i\n    return m",
        "s = 0\n    for i in range(0):\n        s += x[i]\n    return s",
        "s = 0.5\n    for i in range(n):\n        s = i\n    return s",
        "best = 0\n    for i in range(n):\n        best = max(best, x[i])\n    return best",
    ]
    form = r.choice(forms)
    src = f"def kern(x, n):\n    {form}\n"
    args = []
    for _ in range(2):
        m = int(rng.choice([0, 1, 4, 7]))
        args.append((vals(rng, m, special=False), m))
    return src, args, {}


def fam_stream(r, rng):
    n = int(rng.choice([1, 3, 7, 8, 9, 15, 16, 17, 33, 63, 64, 65, 130]))
    dt = r.choice(["float64", "float32", "int64", "int32"])
    forms = [
        "for i in range(a.shape[0]):\n        a[i] = b[i] + s * c[i]",
        "a[:] = b * s + c",
        "return b * s + c",
        "for i in range(a.shape[0]):\n        a[i] = b[i]\n    for i in range(a.shape[0]):\n        c[i] = b[i] * s",
        "a[1:] = b[1:] * s",
        "a[::2] = b[::2] + c[::2]",
        "a[:] = b[::-1] * s",
        "return (b * s).astype(np.float32)",
        "for i in range(a.shape[0] - 1):\n        a[i + 1] = b[i] * s",
    ]
    form = r.choice(forms)
    src = f"def kern(s, a, b, c):\n    {form}\n"
    args = []
    for _ in range(2):
        def mk():
            x = (rng.standard_normal(n) * 10).astype(dt)
            off = int(rng.integers(0, 9))
            step = int(rng.choice([1, 1, 1, 2, -1]))
            big = np.zeros(n * abs(step) + off + 2, dt)
            if step > 0:
                v = big[off: off + n * step: step]
            else:
                v = big[off + n - 1:: -1][:n] if off + n - 1 < len(big) else big[::-1][:n]
            v[:] = x
            return v
        s = 3 if dt.startswith("int") else 1.5
        args.append((s, mk(), mk(), mk()))
    return src, args, {"POLYFUSE_STREAM_STORES": "64"}


STENCILS = [
    # jacobi-1d
    ("def kern(T, n, A, B):\n    for t in range(T):\n        for i in range(1, n - 1):\n"
     "            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])\n        for i in range(1, n - 1):\n"
     "            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])\n", 1),
    # seidel 1d in place
    ("def kern(T, n, A, B):\n    for t in range(T):\n        for i in range(1, n - 1):\n"
     "            A[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0\n", 1),
    # seidel 2d in place
    ("def kern(T, n, A, B):\n    for t in range(T):\n        for i in range(1, n - 1):\n"
     "            for j in range(1, n - 1):\n"
     "                A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] + A[i, j - 1] + A[i, j]"
     " + A[i, j + 1] + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1]) / 9.0\n", 2),
    # jacobi 2d
    ("def kern(T, n, A, B):\n    for t in range(T):\n        for i in range(1, n - 1):\n"
     "            for j in range(1, n - 1):\n"
     "                B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j])\n"
     "        for i in range(1, n - 1):\n            for j in range(1, n - 1):\n"
     "                A[i, j] = 0.2 * (B[i, j] + B[i, j - 1] + B[i, j + 1] + B[i + 1, j] + B[i - 1, j])\n", 2),
    # in-place 2d one-sided (GS-like) asymmetric
    ("def kern(T, n, A, B):\n    for t in range(T):\n        for i in range(1, n):\n"
     "            for j in range(1, n - 1):\n"
     "                A[i, j] = 0.5 * A[i - 1, j + 1] + 0.25 * A[i, j - 1] + 0.25 * A[i, j]\n", 2),
    # 2d in place with rows written backwards
    ("def kern(T, n, A, B):\n    for t in range(T):\n        for i in range(1, n - 1):\n"
     "            for j in range(2, n - 1):\n"
     "                A[i, j] = A[i, j] + 0.1 * (A[i + 1, j - 2] - A[i - 1, j + 1])\n", 2),
    # in place 1d with a far neighbour
    ("def kern(T, n, A, B):\n    for t in range(T):\n        for i in range(2, n - 2):\n"
     "            A[i] = 0.2 * (A[i - 2] + A[i - 1] + A[i] + A[i + 1] + A[i + 2])\n", 1),
    # a stencil reading a time-dependent coefficient
    ("def kern(T, n, A, B):\n    for t in range(T):\n        for i in range(1, n - 1):\n"
     "            for j in range(1, n - 1):\n"
     "                B[i, j] = A[i, j] + 0.1 * t * (A[i - 1, j] - A[i, j + 1])\n"
     "        for i in range(1, n - 1):\n            for j in range(1, n - 1):\n"
     "                A[i, j] = B[i, j] - 0.05 * B[i + 1, j - 1]\n", 2),
]


def fam_tiles(r, rng):
    src, rank = r.choice(STENCILS)
    tile = ",".join(str(r.choice([1, 2, 3, 4, 8])) for _ in range(rank + 1))
    args = []
    for _ in range(2):
        T, n = int(rng.integers(0, 9)), int(rng.integers(1, 30 if rank == 1 else 20))
        shape = (n,) if rank == 1 else (n, n)
        args.append((T, n, rng.random(shape), rng.random(shape)))
    return src, args, {"POLYFUSE_TIME_TILE_SIZES": tile, "POLYFUSE_ONE_THREAD_TILES": "1"}



def _sweep_loop(r, var):
    """A space loop of a random shape: ascending, step 2, descending, or bounded by m or k."""
    lo, hi = r.randint(0, 2), r.randint(0, 2)
    return r.choice([f"for {var} in range({lo}, n - {hi}):", f"for {var} in range({lo}, n - {hi}, 2):",
                     f"for {var} in range(n - 1 - {hi}, {lo} - 1, -1):", f"for {var} in range({lo}, m):",
                     f"for {var} in range({lo} + k, n - {hi}):"])


def _sweep(r, rank, target, source):
    """One sweep ``target[i + 2, ..] = ...`` reading ``source`` at offsets 0..4 (arrays n + 4 long)."""
    names = ["i", "j"][:rank]
    lines = [" " * (8 + 4 * d) + _sweep_loop(r, v) for d, v in enumerate(names)]
    at = ", ".join(f"{v} + 2" for v in names)
    terms = [f"{source}[{', '.join(f'{v} + {r.randint(0, 4)}' for v in names)}]" for _ in range(r.randint(1, 3))]
    value = f"{r.choice(['0.25', '0.1 * t', 'c'])} * ({' + '.join(terms)})"
    if r.random() < 0.3:
        value = f"{target}[{at}] + {value}"
    return lines + [" " * (8 + 4 * rank) + f"{target}[{at}] = {value}"]


def fam_tile_bounds(r, rng):
    """Time-tiled sweeps of odd bounds and steps (fz26): descending and step-2 space loops, bounds
    m and k that empty them, in place or between two arrays; small fixed tiles, where isl peels
    pieces of the nest (a peeled first wavefront was once walked as tiles on one thread: pinned by
    tests/backends/cpu/test_tile_orders.py; this family met it in 3 of fz26's 240 such programs)."""
    rank = r.choice([1, 1, 2])
    head = r.choice(["for t in range(T):", "for t in range(T):", "for t in range(1, T, 2):"])
    body = _sweep(r, rank, "A", "A") if r.random() < 0.5 else _sweep(r, rank, "B", "A") + _sweep(r, rank, "A", "B")
    src = "def kern(T, n, m, k, c, A, B):\n    " + head + "\n" + "\n".join(body) + "\n"
    tile = ",".join(str(r.choice([1, 2, 2, 3, 4])) for _ in range(rank + 1))
    args = []
    for _ in range(2):
        n, T = int(rng.choice([0, 1, 3, 7, 12, 20])), int(rng.choice([0, 1, 2, 5, 9]))
        shape = (n + 4,) * rank
        args.append((T, n, int(rng.choice([0, n, n // 2])), int(rng.integers(0, 3)), 0.3, rng.random(shape),
                     rng.random(shape)))
    return src, args, {"POLYFUSE_TIME_TILE_SIZES": tile, "POLYFUSE_ONE_THREAD_TILES": "1"}

def fam_narrow(r, rng):
    """(the thresholds stay forced for the families drawn after it in the same process)"""
    from polyfuse.backends.cpu import blas
    blas.NARROW_MIN_ROWS, blas.NARROW_MIN_DEPTH, blas.NARROW_MAX_COLS = 1, 1, 8
    exprs = ["A @ B", "A @ B.T", "A.T @ B", "A.T @ B.T", "2.5 * A @ B", "A[1:] @ B", "A[::2] @ B",
             "A[::-1] @ B", "A @ B[:, ::2]", "(A @ B)[:, ::2]", "A @ B[:, :1]", "A[:1] @ B", "A @ B + 1.0"]
    e = r.choice(exprs)
    dt = r.choice(["float64", "float32"])
    stmt = r.choice(["return {e}", "C[:, :] = {e}", "C[...] = {e}", "C += {e}", "C[:, 1:] = ({e})[:, 1:]",
                     "C[::-1] = {e}"])
    stmt = stmt.format(e=e)
    src = f"def kern(A, B, C):\n    {stmt}\n"
    m, k, n = int(rng.integers(1, 9)), int(rng.integers(1, 9)), int(rng.integers(1, 7))
    if "A[1:]" in e and m == 1:
        m = 2
    a_shape = (k, m) if "A.T" in e else (m, k)
    b_shape = (n, k) if "B.T" in e else (k, n)
    rows_out = m
    if "A[1:]" in e:
        rows_out = m - 1
    elif "A[::2]" in e:
        rows_out = (m + 1) // 2
    elif "A[:1]" in e:
        rows_out = 1
    cols_out = n
    if "B[:, ::2]" in e or "[:, ::2]" in e:
        cols_out = (n + 1) // 2
    elif "B[:, :1]" in e:
        cols_out = 1
    args = []
    for _ in range(2):
        A = rng.standard_normal(a_shape).astype(dt)
        B = rng.standard_normal(b_shape).astype(dt)
        C = rng.standard_normal((rows_out, cols_out)).astype(dt)
        if rng.random() < 0.3:
            A = np.asfortranarray(A)
        if rng.random() < 0.3:
            big = np.zeros((rows_out, cols_out + 3), dt)
            big[:, 2:2 + cols_out] = C
            C = big[:, 2:2 + cols_out]
        args.append((A, B, C))
    tol = 1e-4 if dt == "float32" else 1e-10
    return src, args, {"POLYFUSE_NARROW_GEMM": "1"}, tol


def fam_beta_zero(r, rng):
    zero = r.choice([
        "for i in range(n):\n        tmp[i] = 0.0",
        "for i in range(n - 1):\n        tmp[i] = 0.0",
        "for i in range(1, n):\n        tmp[i] = 0.0",
        "for i in range(tmp.shape[0]):\n        tmp[i] = 0.0",
        "tmp[:] = 0.0",
        "tmp[:n] = 0.0",
        "for i in range(n):\n        tmp[i] = -0.0",
        "for i in range(n):\n        tmp[i] = 0",
        "for i in range(n):\n        tmp[i] = 0.0\n    tmp[0] = 1.0",
        "for i in range(n):\n        tmp[i] = 0.0\n    s = tmp[n - 1]",
        "for i in range(n):\n        tmp[i] = 0.0\n        y[i] = tmp[i] + 1.0",
    ])
    prod = r.choice([
        "for i in range(n):\n        for j in range(m):\n            tmp[i] += A[i, j] * x[j]",
        "for i in range(n):\n        for j in range(m):\n            tmp[i] = tmp[i] + A[i, j] * x[j]",
        "for i in range(n):\n        for j in range(m):\n            tmp[i] += A[j, i] * x[j]",
        "for i in range(n - 1):\n        for j in range(m):\n            tmp[i] += A[i, j] * x[j]",
        "for i in range(n):\n        for j in range(m):\n            tmp[i] += 2.0 * A[i, j] * x[j]",
    ])
    after = r.choice(["", "\n    for i in range(n):\n        y[i] = tmp[i] * 2.0", "\n    return tmp.sum()"])
    src = f"def kern(n, m, A, x, tmp, y):\n    {zero}\n    {prod}{after}\n"
    args = []
    for _ in range(2):
        n = int(rng.integers(1, 8))
        m = int(rng.integers(0, 8))
        big = max(n, m)
        args.append((n, m, rng.standard_normal((big, big)), rng.standard_normal(big),
                     rng.standard_normal(n + int(rng.integers(0, 2))), rng.standard_normal(big + 1)))
    return src, args, {"POLYFUSE_BLAS_BETA_ZERO": "1"}


def fam_products_nonfinite(r, rng):
    """products written as loops that polyfuse keeps whole (gemm, a strict triangle on ?trmm, symm's
    pair on ?symm, trmm in place) above BLAS_MIN_WORK, with infs, NaNs, zeros and -0.0 in the
    operands and alpha 0, -0.0, inf or NaN: BLAS must not change where the loops give inf or NaN
    (fz29: the zeros of a triangle's copy times an inf, alpha = 0 returning at once)"""
    body = r.choice([
        "for i in range(C.shape[0]):\n        for j in range(C.shape[1]):\n            for k in range(A.shape[1]):\n"
        "                C[i, j] += alpha * A[i, k] * B[k, j]",
        "for i in range(C.shape[0]):\n        for j in range(C.shape[1]):\n            for k in range(i):\n"
        "                C[i, j] += alpha * A[i, k] * B[k, j]",
        "for i in range(C.shape[0]):\n        for j in range(C.shape[1]):\n            for k in range(i + 1, C.shape[0]):\n"
        "                C[i, j] += A[k, i] * B[k, j] * alpha",
        "for i in range(C.shape[0]):\n        for j in range(C.shape[1]):\n            temp2 = 0.0\n"
        "            for k in range(i):\n                C[k, j] += alpha * B[i, j] * A[i, k]\n"
        "                temp2 += B[k, j] * A[i, k]\n"
        "            C[i, j] = beta * C[i, j] + alpha * B[i, j] * A[i, i] + alpha * temp2",
        "for i in range(B.shape[0]):\n        for j in range(B.shape[1]):\n            for k in range(i + 1, B.shape[0]):\n"
        "                B[i, j] += A[k, i] * B[k, j]\n            B[i, j] = alpha * B[i, j]",
        # numba-style accumulators that fold (fd30): alpha * sum, s = s + term, alpha inside the sum
        "for i in range(C.shape[0]):\n        for j in range(C.shape[1]):\n            s = 0.0\n"
        "            for k in range(A.shape[1]):\n                s += A[i, k] * B[k, j]\n"
        "            C[i, j] = alpha * s + beta * C[i, j]",
        "for i in range(C.shape[0]):\n        for j in range(C.shape[1]):\n            s = 0.0\n"
        "            for k in range(A.shape[1]):\n                s = s + alpha * A[i, k] * B[k, j]\n"
        "            C[i, j] = C[i, j] * beta + s",
        "for i in range(C.shape[0]):\n        for j in range(C.shape[1]):\n            s = 0.0\n"
        "            for k in range(A.shape[1]):\n                s -= A[i, k] * B[k, j]\n"
        "            C[i, j] = s * alpha * beta",
        "for i in range(C.shape[0]):\n        s = 0.0\n        for k in range(A.shape[1]):\n"
        "            s += A[i, k] * B[k, 0]\n        C[i, 0] = beta * C[i, 0] + s * alpha",
    ])
    src = f"def kern(alpha, beta, C, A, B):\n    {body}\n"
    dtype = r.choice([np.float64, np.float64, np.float32])
    args = []
    for _ in range(2):
        m, n = int(rng.integers(30, 50)), int(rng.integers(30, 50))
        A, B, C = rng.standard_normal((m, m)), rng.standard_normal((m, n)), rng.standard_normal((m, n))
        for X in r.sample([A, B, C], r.randint(0, 3)):
            X.flat[rng.integers(0, X.size, size=int(rng.integers(1, 6)))] = r.choice([np.inf, -np.inf, np.nan, 0.0, -0.0])
        alpha = r.choice([1.5, 1.5, 0.0, -0.0, np.nan, -2.0, np.inf, -np.inf])
        beta = r.choice([1.2, 0.0, 1.0])
        if dtype is np.float32:
            alpha, beta = np.float32(alpha), np.float32(beta)
        args.append((alpha, beta, *(x.astype(dtype) for x in (C, A, B))))
    return src, args, {}, 1e-3 if dtype is np.float32 else 1e-9


def fam_matprod2d(r, rng):
    """gemm-like loops with zeroing of various coverage (3mm style), guarded"""
    zero = r.choice(["C[i, j] = 0.0", "C[i, j] = 0.0\n            C[i, j] *= beta", "C[i, j] *= beta"])
    guard = r.choice(["", "if ni >= 1 and nj >= 1 and nk >= 1:\n        "])
    jrange = r.choice(["range(nj)", "range(nj - 1)", "range(1, nj)"])
    ind = "    " if guard else ""
    src = (f"def kern(ni, nj, nk, alpha, beta, C, A, B):\n    {guard}for i in range(ni):\n"
           f"    {ind}    for j in {jrange}:\n    {ind}        {zero.replace(chr(10), chr(10) + ind)}\n"
           f"    {ind}for i in range(ni):\n    {ind}    for k in range(nk):\n"
           f"    {ind}        for j in range(nj):\n    {ind}            C[i, j] += alpha * A[i, k] * B[k, j]\n")
    args = []
    for _ in range(2):
        ni, nj, nk = (int(v) for v in rng.integers(0, 12, 3))
        args.append((ni, nj, nk, 1.5, 1.2, rng.standard_normal((ni, nj)), rng.standard_normal((ni, nk)),
                     rng.standard_normal((nk, nj))))
    env = {"POLYFUSE_BLAS_BETA_ZERO": "1", "POLYFUSE_BLAS_ROW_CHUNKS": "1",
           "POLYFUSE_BLAS_ROW_CHUNKS_GUARDED": "1", "POLYFUSE_BLAS_ROW_CHUNKS_GEMV": "1"}
    return src, args, env


def fam_gemv_chunks(r, rng):
    forms = ["return alpha * (A @ x) + beta * (B @ x)", "return A @ x", "return A.T @ x", "return A[::2] @ x",
             "y[:] = A @ x", "y += A @ x", "return (A @ x)[::-1]", "return A[1:] @ x[1:]",
             "tmp = np.zeros(A.shape[0])\n    for i in range(A.shape[0]):\n        for j in range(A.shape[1]):\n"
             "            tmp[i] += A[i, j] * x[j]\n    return tmp"]
    form = r.choice(forms)
    src = f"def kern(A, B, x, y, alpha, beta):\n    {form}\n"
    args = []
    dt = r.choice(["float64", "float32"])
    for _ in range(2):
        n = int(rng.integers(2, 40))
        A = rng.standard_normal((n, n)).astype(dt)
        if rng.random() < 0.3:
            A = np.asfortranarray(A)
        args.append((A, rng.standard_normal((n, n)).astype(dt), rng.standard_normal(n).astype(dt),
                     rng.standard_normal(n).astype(dt), 1.5, 0.5))
    env = {"POLYFUSE_BLAS_ROW_CHUNKS": "1", "POLYFUSE_BLAS_ROW_CHUNKS_GUARDED": "1",
           "POLYFUSE_BLAS_ROW_CHUNKS_GEMV": "1"}
    return src, args, env, (1e-4 if dt == "float32" else 1e-10)


def fam_early(r, rng):
    c = r.randint(0, 4)
    d = r.choice(["0", "0.0", "-1.0", "x[0] if x.shape[0] > 0 else 0.0", "y.sum()", "n"])
    test = r.choice([f"x.shape[0] < {c}", f"len(x) <= {c}", f"n < {c}", f"x.shape[0] == {c}",
                     f"x.shape[0] < {c} or n > 5", "y.shape[0] < x.shape[0]"])
    before = r.choice(["", "y[0] = 1.5\n    ", "for i in range(y.shape[0]):\n        y[i] = i * 0.5\n    ",
                       "s = 0.0\n    for i in range(x.shape[0]):\n        s += x[i]\n    y[0] = s\n    "])
    after = r.choice([
        f"for i in range(1, x.shape[0]):\n        y[i] = x[i] - x[i - 1]\n    return y[{c}]",
        f"y[{c}] = x[{c}] * 2.0\n    return x[{c}] - x[0]",
        f"y[:x.shape[0]] = x * 2.0\n    return y[{max(c - 1, 0)}]",
        "m = x[0]\n    for i in range(x.shape[0]):\n        if x[i] > m:\n            m = x[i]\n    return m",
        f"if n == {c + 1}:\n        return x[n]\n    return x[x.shape[0] - 1] + y[n]",
        f"t = x[{c}:] + x[:x.shape[0] - {c}]\n    y[:t.shape[0]] = t\n    return t.sum()",
    ])
    src = f"def kern(x, y, n):\n    {before}if {test}:\n        return {d}\n    {after}\n"
    args = []
    for _ in range(3):
        m = int(rng.integers(0, 7))
        args.append((vals(rng, m, special=False), rng.standard_normal(int(rng.integers(max(m, 1), m + 3))),
                     int(rng.integers(0, 7))))
    return src, args, {}


def _pivot_update(r, square):
    """one right-looking update statement of a pivot nest (lu-, cholesky-, gauss-jordan-like)"""
    a2, a3 = r.choice(["k + 1", "k + 1", "k", "k + 2"]), r.choice(["k + 1", "k + 1", "k", "0", "k + 2"])
    hi_j = "n" if square else "m"
    lhs, rhs = r.choice([
        ("A[i, j]", "A[i, k] * A[k, j]"),
        ("A[i, j]", "A[i, k] * A[k, j] * 0.5"),
        ("A[i, j]", "A[k, j] * A[i, k] + A[k, k] * 0.01"),
        ("A[j, i]", "A[j, k] * A[k, i]") if square else ("A[i, j]", "A[k, j] * 0.25"),
        ("A[i, j]", "A[k, i] * A[k, j]") if square else ("A[i, j]", "A[i, k] * A[k, j]"),
    ])
    op = r.choice(["-=", "= {lhs} -", "+= 0.5 *", "= 0.9 * {lhs} -"]).format(lhs=lhs)
    return [f"for i in range({a2}, n):", f"    for j in range({a3}, {hi_j}):", f"        {lhs} {op} {rhs}"]


PIVOT_NESTS = [
    # gauss-jordan: every other row, an affine guard
    ("for k in range(n):\n        for i in range(n):\n            if i != k:\n"
     "                for j in range(k + 1, m):\n                    A[i, j] -= A[i, k] * A[k, j] / A[k, k]\n"),
    # a triangular solve of several right-hand sides (trsm), B updated by the pivot's row of B
    ("for k in range(n):\n        for j in range(m):\n            B[k, j] /= A[k, k]\n"
     "        for i in range(k + 1, n):\n            for j in range(m):\n                B[i, j] -= A[i, k] * B[k, j]\n"),
    # the pivots backwards (a backward substitution's order)
    ("for k in range(n - 1, -1, -1):\n        for i in range(k):\n            A[i, k] /= A[k, k]\n"
     "            for j in range(k):\n                A[i, j] -= A[i, k] * A[k, j]\n"),
    # every second pivot
    ("for k in range(0, n, 2):\n        for i in range(k + 1, n):\n            for j in range(k + 1, m):\n"
     "                A[i, j] -= A[i, k] * A[k, j]\n"),
    # lu by shapes, the update's rows from k (the pivot row updates itself first)
    ("for k in range(A.shape[0]):\n        for i in range(k, A.shape[0]):\n"
     "            for j in range(k + 1, A.shape[1]):\n                A[i, j] = A[i, j] - 0.1 * A[i, k] * A[k, j]\n"),
    # a rank-1 update of the trailing matrix read from another array's pivot row and column
    ("for k in range(n):\n        for i in range(k + 1, n):\n            for j in range(k + 1, m):\n"
     "                A[i, j] -= B[i, k] * A[k, j]\n            B[i, k] = A[i, k + 1 if k + 1 < m else k]\n"),
    # the pivot column scaled after the update (reads of the updated column)
    ("for k in range(n):\n        for i in range(k + 1, n):\n            for j in range(k, m):\n"
     "                A[i, j] -= A[i, k] * A[k, j] * 0.01\n        for i in range(k + 1, n):\n"
     "            A[i, k] = A[i, k] * 0.5 + A[k, k]\n"),
    # lu written with the row loop outermost (the pass reorders it), a vector alongside
    ("for i in range(n):\n        for j in range(i):\n            for k in range(j):\n"
     "                A[i, j] -= A[i, k] * A[k, j]\n            A[i, j] /= A[j, j]\n"
     "        for j in range(i, m):\n            for k in range(i):\n                A[i, j] -= A[i, k] * A[k, j]\n"
     "        d[i] = A[i, i]\n"),
]


def _pivot_named(r, rng):
    body = r.choice(PIVOT_NESTS)
    dt = r.choice(["float64", "float64", "float32"])
    src = f"def kern(n, m, A, B, d):\n    {body}"
    args = []
    for _ in range(2):
        n = int(rng.choice([1, 2, 3, 5, 7, 9, 13, 17, 20]))
        m = n + int(rng.choice([0, 0, 1, 3]))
        A = (rng.standard_normal((n, m)) * 0.3).astype(dt)
        A[np.arange(n), np.arange(n)] += n + 2.0
        args.append((n, m, A, rng.standard_normal((n, m)).astype(dt), rng.standard_normal(n).astype(dt)))
    env = {"POLYFUSE_PIVOT_BLOCK": str(r.choice([2, 3, 4, 5, 8, 32]))}
    return src, args, env, (2e-3 if dt == "float32" else 1e-9)


def fam_pivot(r, rng):
    """Pivot nests (session 23's pivot blocks, POLYFUSE_PIVOT_BLOCK small): a sequential pivot loop
    around a column scale, the pivot's own statement and a right-looking update, with random
    bounds (k vs k + 1), non-square A, in-place reads of the pivot row and column (fz27)."""
    if r.random() < 0.35:
        return _pivot_named(r, rng)
    square = r.random() < 0.6
    lo, hi = r.choice(["0", "0", "1"]), r.choice(["n", "n", "n - 1"])
    body = []
    if r.random() < 0.4:
        body.append(r.choice(["A[k, k] = np.sqrt(abs(A[k, k]) + 1.0)", "A[k, k] = A[k, k] + 1.0",
                              "d[k] = A[k, k] * 2.0"]))
    if r.random() < 0.7:
        lo1 = r.choice(["k + 1", "k + 1", "k"])
        body += [f"for i in range({lo1}, n):",
                 "    " + r.choice(["A[i, k] = A[i, k] / A[k, k]", "A[i, k] /= A[k, k]", "A[i, k] *= 0.5",
                                    "A[i, k] = A[i, k] * d[k] / (1.0 + abs(A[k, k]))"])]
    if r.random() < 0.3 and square:  # cholesky-like: the rows below read the pivot's column twice
        body += ["for i in range(k + 1, n):", "    for j in range(k + 1, i + 1):",
                 "        A[i, j] -= A[i, k] * A[j, k]"]
    else:
        body += _pivot_update(r, square)
    if r.random() < 0.4:
        body += [r.choice(["for i in range(k + 1, n):", "for i in range(k, n):"]),
                 "    " + r.choice(["d[i] -= A[i, k] * d[k]", "d[i] = d[i] - 0.5 * A[i, k] * d[k]"])]
    if r.random() < 0.2:  # a second update after the first (two statements under the pivot)
        body += ["for i in range(k + 1, n):", f"    for j in range(k + 1, {'n' if square else 'm'}):",
                 "        B[i, j] = B[i, j] + A[i, j] * A[k, j]"]
    dt = r.choice(["float64", "float64", "float32"])
    src = f"def kern(n, m, A, B, d):\n    for k in range({lo}, {hi}):\n" + "".join(
        f"        {line}\n" for line in body)
    args = []
    for _ in range(2):
        n = int(rng.choice([1, 2, 3, 5, 7, 9, 13, 17, 20]))
        m = n if square else n + int(rng.integers(1, 6))
        A = (rng.standard_normal((n, m)) * 0.3).astype(dt)
        A[np.arange(n), np.arange(n)] += n + 2.0
        args.append((n, m, A, rng.standard_normal((n, m)).astype(dt), rng.standard_normal(n).astype(dt)))
    env = {"POLYFUSE_PIVOT_BLOCK": str(r.choice([2, 3, 4, 5, 8, 32]))}
    return src, args, env, (2e-3 if dt == "float32" else 1e-9)

def fam_pivot_rows(r, rng):
    """Floyd-Warshall-shaped ``k, i, j`` nests (passes/pivot_rows.py, POLYFUSE_PIVOT_ROWS 2, 3, 32):
    the pivot row read at other columns (``p[k, j + 1]``, ``p[k, 0]``), row ``i`` read at fixed
    columns (one: the split ``j`` loop with a hoisted load; two), a temporary, a second statement,
    a second array written, ``i``/``j``/``k`` ranges offset or shorter, ``k`` descending, the nest
    inside a serial ``t`` loop, non-square,
    float32/int64, NaN/inf/-0.0 (fz28; the fixed column found the interleave bug)."""
    dt = r.choice(["float64", "float64", "float32", "int64"])
    a = r.choice(["p[i, k]", "p[i, k]", "p[i, 0]", "p[i, 1]", "p[i, i]", "p[i, m - 1]"])
    b = r.choice(["p[k, j]", "p[k, j]", "p[k, 0]", "p[k, j + 1]", "p[k, k]", "p[k, m - 1]"])
    w = r.choice(["", "", " + w[i, j]", " + w[k, j]", " - w[i, k]"])
    lin = (f"(p[i, j] + {a} - {b}{w}) // 2" if dt == "int64" else f"0.5 * p[i, j] + 0.25 * {a} - 0.125 * {b}{w}")
    body = r.choice([
        f"p[i, j] = min(p[i, j], {a} + {b}{w})",
        f"p[i, j] = max(p[i, j], {a} - {b}{w})",
        f"if {a} + {b} < p[i, j]:\n                    p[i, j] = {a} + {b}{w}",
        f"p[i, j] = p[i, j] if p[i, j] < {a} + {b} else {a} + {b}{w}",
        f"p[i, j] = {lin}",
        f"t = {a} + {b}{w}\n                p[i, j] = min(p[i, j], t)",
        f"p[i, j] = min(p[i, j], {a} + {b})\n                p[i, j] = max(p[i, j], {b}{w} - p[i, 0])",
        f"p[i, j] = min(p[i, j], p[i, 0] + p[i, 1] - {b})",
        f"p[i, j] = min(p[i, j], {a} + {b})\n                w[i, j] = p[i, j] + {b}",
    ])
    ko, io, jo = (r.choice(c) for c in ([(0, 0), (0, 0), (1, 0), (0, 1), (2, 3)],
                                          [(0, 0), (0, 0), (1, 0), (0, 2), (3, 1)],
                                          [(0, 0), (0, 0), (1, 0), (0, 1), (2, 2)]))
    if "j + 1" in body and jo[1] == 0:
        jo = (jo[0], 1)
    krange = f"range({ko[0]}, n - {ko[1]})" if r.random() < 0.85 else "range(n - 1, -1, -1)"
    src = (f"def kern(n, m, p, w):\n    for k in {krange}:\n        for i in range({io[0]}, n - {io[1]}):\n"
           f"            for j in range({jo[0]}, m - {jo[1]}):\n                {body}\n")
    if r.random() < 0.2:  # inside a serial loop (passes.noop_versions then sees the blocked loop)
        head, nest = src.split("\n", 1)
        src = head + "\n    for t in range(2):\n" + "".join("    " + line + "\n" for line in nest.splitlines())
    args = []
    for _ in range(2):
        n = int(rng.choice([1, 2, 3, 5, 7, 9, 13]))
        m = n if r.random() < 0.6 else int(rng.choice([n + 2, max(2, n - 1), n + 5]))
        m = max(m, 2, n if ("p[i, i]" in body or "p[k, k]" in body) else 0)
        if dt == "int64":
            p, ww = rng.integers(-20, 50, (n, m)), rng.integers(-3, 3, (n, m))
        else:
            p, ww = (1 + 9 * rng.random((n, m))).astype(dt), (rng.random((n, m)) - 0.5).astype(dt)
            if r.random() < 0.5:
                for v in (np.nan, np.inf, -np.inf, -0.0):
                    p[rng.integers(0, n), rng.integers(0, m)] = v
        args.append((n, m, p, ww))
    return src, args, {"POLYFUSE_PIVOT_ROWS": str(r.choice([2, 3, 32]))}, 0.0


def fam_stream_overlap(r, rng):
    """Non-temporal stores (POLYFUSE_STREAM_STORES small) where the stored array overlaps what the
    kernel reads: shifted and reversed slices of one argument, 2-d rows, a result read again by a
    later statement, sizes around vector and tile boundaries (fz27)."""
    n = int(rng.choice([1, 7, 8, 9, 127, 128, 129, 1025]))
    dt = r.choice(["float64", "float32", "int64", "int32"])
    forms = [
        "a[1:] = a[:-1] * s",
        "a[:-1] = a[1:] + b[:-1]",
        "a[:] = a[::-1] * s",
        "for i in range(1, a.shape[0]):\n        a[i] = a[i - 1] + b[i]",
        "for i in range(a.shape[0] - 1):\n        a[i] = a[i + 1] * s\n    return a.sum()",
        "c[:] = b * s\n    a[:] = c + 1",
        "for i in range(a.shape[0]):\n        c[i] = a[i] + b[i]\n    for i in range(a.shape[0]):\n"
        "        a[i] = c[a.shape[0] - 1 - i] * s",
        "M[1:, :] = M[:-1, :] * s",
        "for i in range(M.shape[0]):\n        for j in range(M.shape[1]):\n            N[i, j] = M[i, j] * s\n"
        "    for i in range(M.shape[0]):\n        for j in range(M.shape[1]):\n            M[i, j] = N[i, j] + 1",
        "M[:, :] = M.T * s",
        "for t in range(3):\n        for i in range(a.shape[0]):\n            c[i] = a[i] * s + t\n"
        "        for i in range(a.shape[0]):\n            a[i] = c[i]",
    ]
    form = r.choice(forms)
    src = f"def kern(s, a, b, c, M, N):\n    {form}\n"
    args = []
    for _ in range(2):
        m = max(1, min(n, 130)) if "M" in form else 1
        def mk(shape):
            return (rng.standard_normal(shape) * 10).astype(dt)
        s = 3 if dt.startswith("int") else 1.5
        args.append((s, mk(n), mk(n), mk(n), mk((m, m)), mk((m, m))))
    tol = 1e-4 if dt == "float32" else 1e-9
    return src, args, {"POLYFUSE_STREAM_STORES": r.choice(["64", "1K", "4K"])}, tol


def fam_selections(r, rng):
    """Selections bound once and used later or iterated (frontend/selection_loops.py), loops over
    np.unique, data-dependent a-if-c-else-b scalars and and/or guards (fz27)."""
    mask = r.choice(["x > 0", "x > x.mean()", "(x > -0.5) & (y < 0.5)", "~np.isnan(x)", "np.abs(x) < 1.0",
                     "x == x.max()"])
    uses = [
        "s = 0.0\n    for v in p:\n        s += v * v\n    return s, len(p)",
        "s = 0.0\n    for v in p:\n        if v > 1.0:\n            break\n        s += v\n    return s",
        "c = 0\n    for v in p:\n        if v < 0.2:\n            continue\n        c += 1\n    return c, p.shape[0]",
        "t = p.sum() if len(p) > 0 else -1.0\n    y[0] = t\n    return p[0] if len(p) > 0 else 0.0",
        "for i in range(y.shape[0]):\n        y[i] = y[i] + len(p)\n    return p.size",
        "m = p.max() if p.shape[0] > 0 else 0.0\n    return m, p[-1] if len(p) > 0 else 0.0",
        "return len(p) > 0 and p.mean() > 0.0",
        "return len(p) == 0 or p.min() < -0.5",
    ]
    unique_uses = [
        "g = 1.0\n    for c in np.unique(k):\n        q = (k == c).mean()\n        g -= q * q\n    return g",
        "u = np.unique(k)\n    s = 0.0\n    for v in u:\n        s += v * len(u)\n    return s, u.shape[0]",
        "u = np.unique(x)\n    c = 0\n    for v in u:\n        if v != v:\n            c += 100\n        c += 1\n"
        "    return c, u.size",
        "best = -1.0\n    for c in np.unique(k):\n        w = (k == c).sum()\n        if w > best:\n"
        "            best = w * 1.0\n    return best",
    ]
    ifelse = [
        "a = x[0] if x[0] > y[0] else y[0]\n    b = x.max() if x.shape[0] > 1 else 0.0\n    return a + b",
        "s = 0.0\n    for i in range(x.shape[0]):\n        t = x[i] if x[i] > 0 else -x[i] * 2.0\n        s += t\n"
        "    return s",
        "for i in range(x.shape[0]):\n        y[i] = x[i] if (x[i] > 0 and y[i] > 0) or x[i] < -1.0 else y[i] * 0.5",
        "ok = x.shape[0] > 2 and x[2] > 0.0\n    return 1.0 if ok else 2.0",
        "v = x[1] if x.shape[0] > 1 and x[0] > 0 else (y[0] if y.shape[0] > 0 else 0.0)\n    return v",
    ]
    kind = r.random()
    if kind < 0.45:
        body = f"p = x[{mask}]\n    " + r.choice(uses)
    elif kind < 0.7:
        body = r.choice(unique_uses)
    else:
        body = r.choice(ifelse)
    src = f"def kern(x, y, k):\n    {body}\n"
    args = []
    for _ in range(3):
        n = int(rng.choice([0, 1, 2, 3, 7, 17]))
        x = vals(rng, n, special=r.random() < 0.3)
        if "np.unique(x)" in body:
            x = np.round(x * 2) / 2
        kk = rng.integers(0, int(rng.integers(1, 5)), size=max(n, 1) if "np.unique(k)" in body else n)
        args.append((x, rng.standard_normal(max(n, 1)), kk.astype(r.choice(["int64", "int32", "float64"]))))
    return src, args, {}


def fam_tiles_wide(r, rng):
    """Time-tiled stencils (STENCILS) of float32 and int64 with sizes around 512-bit vectors (8 and
    16 lanes) and tiles, POLYFUSE_TILED_WIDE on or off (fz27)."""
    src, rank = r.choice(STENCILS)
    dt = r.choice(["float32", "float32", "int64", "float64"])
    tile = ",".join(str(r.choice([1, 2, 4, 8, 16])) for _ in range(rank + 1))
    args = []
    for _ in range(2):
        T = int(rng.integers(0, 6))
        n = int(rng.choice([1, 2, 3, 15, 16, 17, 31, 33, 65, 129] if rank == 1 else [1, 3, 9, 16, 17, 33]))
        shape = (n,) if rank == 1 else (n, n)
        if dt == "int64":
            args.append((T, n, rng.integers(-1000, 1000, shape), rng.integers(-1000, 1000, shape)))
        else:
            args.append((T, n, rng.random(shape).astype(dt), rng.random(shape).astype(dt)))
    env = {"POLYFUSE_TIME_TILE_SIZES": tile, "POLYFUSE_ONE_THREAD_TILES": "1",
           "POLYFUSE_TILED_WIDE": r.choice(["1", "1", "0"])}
    return src, args, env, (1e-3 if dt == "float32" else 1e-9)


def _logic_expr(r, depth):
    """a random scalar expression of and/or/not, a-if-c-else-b, comparisons and arithmetic over
    elements of a float (x), an int (k) and a bool (b) array"""
    leaves = ["x[0]", "x[1]", "x[i]", "k[0]", "k[i]", "b[i]", "b[0]", "0.0", "1", "-2.5", "True", "i"]
    if depth <= 0 or r.random() < 0.25:
        return r.choice(leaves)
    a, c = _logic_expr(r, depth - 1), _logic_expr(r, depth - 1)
    form = r.choice(["({a} and {c})", "({a} or {c})", "(not {a})", "({a} if {c} else {d})", "({a} + {c})",
                     "({a} * {c})", "({a} > {c})", "({a} == {c})", "({a} and {c} or {d})", "abs({a})",
                     "max({a}, {c})"])  # (no "-": bool - bool raises where Python's and/or give bools)
    return form.format(a=a, c=c, d=_logic_expr(r, depth - 1))


def fam_scalar_logic(r, rng):
    """Scalar expressions mixing and/or (whose value is an operand), not, a-if-c-else-b and
    arithmetic of float, int and bool elements, as values and as conditions (fz27)."""
    e, cond = _logic_expr(r, 3), _logic_expr(r, 2)
    body = r.choice([
        f"s = 0.0\n    for i in range(x.shape[0]):\n        s += {e}\n    return s",
        f"for i in range(x.shape[0]):\n        y[i] = {e}",
        f"c = 0\n    for i in range(x.shape[0]):\n        if {cond}:\n            c += 1\n    return c",
        f"t = 0.0\n    for i in range(x.shape[0]):\n        t = {e} if {cond} else t\n    return t",
    ])
    src = f"def kern(x, k, b, y):\n    {body}\n"
    args = []
    for _ in range(2):
        n = int(rng.integers(2, 9))
        x = rng.choice([0.0, -0.0, 1.5, -2.0, np.nan, 3.0], size=n)
        args.append((x, rng.integers(-2, 3, size=n), rng.random(n) < 0.5, np.zeros(n)))
    return src, args, {}


PACK_FORMS = [
    "return A @ B",
    "C[:, :] = A @ B",
    "C[...] = A @ B\n    return C[0, 0]",
    "C[:, :] = 2.0 * (A @ B)",
    "D = A @ B\n    E = A[::-1] @ B\n    return D - E",
    "C += A @ B",
    "return A[1:] @ B",
    "return (A @ B)[:, ::-1]",
    "for t in range(T):\n        C[:, :] = A @ B\n        B[:C.shape[0], :] = B[:C.shape[0], :] * 0.5 + C * 0.001",
    "for t in range(T):\n        C[:, :] = A @ B\n        A[:, :1] = C[:, :1] * 0.01",
    "C[:, :] = A @ B\n    B[0, :] = B[0, :] + 1.0\n    return A @ B",
    "return A @ B, A @ B[:, :(B.shape[1] + 1) // 2]",
    "return A @ B, A[:, :(A.shape[1] + 1) // 2] @ B[:(B.shape[0] + 1) // 2]",
    "return A @ B, A[:, 1:] @ B[1:, :], A[:, 1:] @ B[1:, 1:]",
]


def _pack_sizes(rng):
    rows, cols = int(rng.choice([1, 7, 127, 129, 300, 1025])), int(rng.choice([1, 7, 127, 128, 129, 200, 513]))
    depth = max(int(rng.choice([1, 7, 64, 129, 2049])), -(-(1 << 20) // (rows * cols)))
    while rows * cols * depth > (1 << 24) and depth > 1:
        depth //= 2
    return rows, cols, depth


def _pack_operand(rng, shape, how):
    """a fresh float64 array of ``shape``: contiguous, inside a larger buffer (a row stride wider
    than its columns, an offset), or Fortran order"""
    x = rng.standard_normal(shape)
    if how == "view":
        big = np.zeros((shape[0] + 2, shape[1] + 5))
        v = big[1:1 + shape[0], 3:3 + shape[1]]
        v[...] = x
        return v
    if how == "fortran":
        return np.asfortranarray(x)
    return x


def _close(actual, expected, label=""):
    """every array of a result (a tuple item by item) to 1e-9"""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), label
        for a, e in zip(actual, expected):
            _close(a, e, label)
        return
    np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-9, err_msg=label)


def _packing_threads(fn, kern, A, B, C, T, shared):
    """three Python threads calling ``kern`` at once, each on its own copies (and B, unless
    ``shared`` and nothing writes B), each checked against ``fn``"""
    import threading
    wrong = []
    writes_b = "B[" in inspect.getsource(fn).split("\n", 1)[1]

    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(2):
            own = [x.copy() for x in (A, C)]
            b = B if shared and not writes_b else B.copy()
            if b is not B:
                b[...] = rng.standard_normal(b.shape)
            want = [own[0].copy(), b.copy(), own[1].copy()]
            expected = fn(*want, T)
            got = kern(own[0], b, own[1], T)
            try:
                np.testing.assert_allclose(own[1], want[2], rtol=1e-9, atol=1e-9)
                if expected is not None and not isinstance(expected, float):
                    _close(got, expected)
            except AssertionError as exc:
                wrong.append(str(exc)[:500])
    team = [threading.Thread(target=work, args=(s,)) for s in range(3)]
    for t in team:
        t.start()
    for t in team:
        t.join()
    assert not wrong, f"threads (shared B: {shared}): {wrong[0]}"


def packing_main(seed, count):
    """The register tiles' shared packing (POLYFUSE_SHARED_PACKING): products whose B changes in
    place between calls (same address), B a view, B aliased with the result, on 1 and 2 threads,
    one process and a forked child (fz27)."""
    from polyfuse.runtime import threads
    stats = {"programs": 0, "calls": 0, "fail": 0, "refused": 0}
    r, rng = random.Random(seed), np.random.default_rng(seed)
    with threads_forced():
        for i in range(count):
            form = r.choice(PACK_FORMS)
            src = f"def kern(A, B, C, T):\n    {form}\n"
            fn = define(src)
            m, n, k = _pack_sizes(rng)
            if "B[:C.shape[0]" in form:
                k = max(k, m)
            how = r.choice(["plain", "plain", "view", "fortran"])
            A = _pack_operand(rng, (m, k), r.choice(["plain", "view"]))
            B = _pack_operand(rng, (k, n), how)
            C = _pack_operand(rng, (m, n), r.choice(["plain", "view"]))
            T = int(rng.integers(1, 3))
            stats["programs"] += 1
            label = f"packing seed={seed} i={i} m,n,k={m},{n},{k} B={how}"
            try:
                kern = polyfuse.kernel(fn, cache=False)
                for count_ in (1, 2):
                    threads.set_num_threads(count_)
                    for call in range(3):
                        want = [x.copy() for x in (A, B, C)]
                        expected = fn(*want, T)
                        got = kern(A, B, C, T)
                        stats["calls"] += 1
                        for name, e, a in zip(("A", "B", "C", "return"), (*want, expected), (A, B, C, got)):
                            if e is None or isinstance(e, float):
                                continue
                            _close(a, e, f"{name} call {call}")
                        B[...] = rng.standard_normal(B.shape)  # the same address, new values
                        if call == 1:
                            A[...] = rng.standard_normal(A.shape)
                if r.random() < 0.3:  # Python threads call at once: their own B, or one B they share
                    _packing_threads(fn, kern, A, B, C, T, shared=r.random() < 0.5)
                if r.random() < 0.2:  # a forked child changes B and calls again
                    pid = os.fork()
                    if pid == 0:
                        code = 0
                        try:
                            B[...] = rng.standard_normal(B.shape)
                            want = [x.copy() for x in (A, B, C)]
                            expected = fn(*want, T)
                            got = kern(A, B, C, T)
                            np.testing.assert_allclose(C, want[2], rtol=1e-9, atol=1e-9)
                            if expected is not None and not isinstance(expected, float):
                                _close(got, expected)
                        except BaseException as exc:  # noqa: BLE001
                            print("child:", exc, flush=True)
                            code = 1
                        os._exit(code)
                    _, status = os.waitpid(pid, 0)
                    assert status == 0, "forked child's call differed"
            except polyfuse.UnsupportedError as exc:
                stats["refused"] += 1
                print("REFUSED", label, str(exc).splitlines()[0][:160])
            except AssertionError as exc:
                stats["fail"] += 1
                print(f"=== FAIL {label}\n{src}\n{str(exc)[:1500]}\n", flush=True)
            except Exception:  # noqa: BLE001 - the program, shapes and error, for review
                stats["errors"] = stats.get("errors", 0) + 1
                print(f"=== ERROR {label} A{A.shape} B{B.shape} C{C.shape}\n{src}\n"
                      + traceback.format_exc(limit=-4), flush=True)
            if i % 10 == 9:
                print("...", i + 1, stats, flush=True)
    from polyfuse.backends.cpu import blas
    stats["tiles_compiled"] = blas.tiles_address.cache_info().currsize
    print("PACKING TOTAL", seed, count, stats, flush=True)
    return stats["fail"]


def einsum_main(seed, count):
    """random einsum problems, options, layouts; compared with np.einsum"""
    from polyfuse.tensor.einsum import einsum
    stats = {"problems": 0, "calls": 0, "fail": 0, "np_raises": 0}
    with threads_forced():
        for i in range(count):
            if os.environ.get("ONLY") and str(i) not in os.environ["ONLY"].split(","):
                continue
            r = random.Random(seed * 7919 + i)
            rng = np.random.default_rng(seed * 7919 + i)
            pool = "abcdA"
            sizes = {c: r.choice([1, 2, 3, 5, 9]) for c in pool}
            nops = r.randint(1, 3)
            terms, ops = [], []
            dtype = r.choice(["float64", "float32", "int64", "int32", "float64"])
            for _ in range(nops):
                labels = [r.choice(pool) for _ in range(r.randint(0, 3))]
                shape = [sizes[c] for c in labels]
                if r.random() < 0.15 and shape:
                    shape[r.randrange(len(shape))] = 1 if r.random() < 0.5 else shape[0]
                terms.append("".join(labels))
                if dtype.startswith("int"):
                    a = rng.integers(-3, 4, shape).astype(dtype)
                else:
                    a = rng.standard_normal(shape).astype(dtype)
                    if a.size and r.random() < 0.15:
                        a.flat[r.randrange(a.size)] = r.choice([np.nan, np.inf, -0.0])
                lay = r.randrange(4)
                if lay == 1 and a.ndim >= 2:
                    a = np.asfortranarray(a)
                elif lay == 2 and a.ndim >= 1:
                    big = np.zeros(tuple(2 * d for d in a.shape), a.dtype)
                    big[tuple(slice(None, None, 2) for _ in a.shape)] = a
                    a = big[tuple(slice(None, None, 2) for _ in a.shape)]
                elif lay == 3 and a.ndim >= 1:
                    a = a[::-1].copy()[::-1]
                ops.append(a)
            sub = ",".join(terms)
            seen = sorted(set("".join(terms)))
            if r.random() < 0.6:
                out_l = seen[:]
                r.shuffle(out_l)
                sub += "->" + "".join(out_l[:r.randint(0, len(out_l))])
            kw = {}
            if r.random() < 0.3:
                kw["optimize"] = r.choice([False, True, "greedy", "optimal"])
            if r.random() < 0.2:
                kw["blas"] = False
            target = r.choice(["python", "cpu", "cpu"])
            count_t = r.choice([1, 2])
            threads.set_num_threads(count_t)
            try:
                with np.errstate(all="ignore"):
                    expected = np.einsum(sub, *ops)
            except ValueError:
                stats["np_raises"] += 1
                continue
            use_out = r.random() < 0.2 and isinstance(expected, np.ndarray) and expected.ndim > 0
            stats["problems"] += 1
            for rep in range(2):
                try:
                    with einsum_compiled(), np.errstate(all="ignore"):
                        if use_out:
                            o = np.full(expected.shape, 7, expected.dtype)
                            got = einsum(sub, *ops, out=o, target=target, **kw)
                            got = o
                        else:
                            got = einsum(sub, *ops, target=target, **kw)
                    stats["calls"] += 1
                    e = np.asarray(expected)
                    g = np.asarray(got)
                    tol = 1e-4 if dtype == "float32" else 1e-9
                    assert g.dtype == e.dtype and g.shape == e.shape, f"{g.dtype}{g.shape} vs {e.dtype}{e.shape}"
                    np.testing.assert_allclose(g, e, rtol=tol, atol=tol, equal_nan=True)
                except Exception as exc:  # noqa: BLE001
                    stats["fail"] += 1
                    print(f"=== EINSUM FAIL seed={seed} i={i} {sub!r} target={target} threads={count_t} kw={kw} "
                          f"out={use_out}\n shapes={[(o.shape, o.dtype.name, o.strides) for o in ops]}\n"
                          f" {type(exc).__name__}: {str(exc)[:800 if not os.environ.get('ONLY') else 4000]}", flush=True)
                    if os.environ.get("ONLY"):
                        print("ops", ops, "expected", expected, "got", got)
                    break
            if i % 50 == 49:
                print("...", i + 1, stats, flush=True)
    print("EINSUM TOTAL", seed, count, stats, flush=True)
    return stats["fail"]




LABELS = "ijkl"

def gen(r, rng):
    sizes = {c: r.choice([1, 2, 3, 5, 8, 13]) for c in LABELS}
    inputs = {}  # name -> labels
    tensors = {}  # defined targets -> labels
    lines, env = [], {}
    nst = r.randint(1, 3)
    for s in range(nst):
        tgt = "T" + str(s)
        free = r.sample(LABELS, r.randint(0 if s == nst - 1 else 1, 2))
        red = [c for c in r.sample(LABELS, r.randint(0, 2)) if c not in free]
        allidx = free + red
        factors = []
        ref_ops, ref_terms = [], []
        for f in range(r.randint(1, 2)):
            if tensors and r.random() < 0.5:
                name = r.choice(list(tensors))
                labs = tensors[name]
                if not set(labs) <= set(allidx):
                    # relabel: map its labels onto allidx
                    if len(labs) > len(allidx):
                        continue
                    labs = r.sample(allidx, len(labs))
                    # sizes must agree: remember actual extents of tensor
                    if any(sizes[a] != sizes[b] for a, b in zip(tensors[name], labs)):
                        continue
                elif any(sizes[a] != sizes[b] for a, b in zip(tensors[name], labs)):
                    continue
            else:
                name = f"X{len(inputs)}"
                k = r.randint(1, min(3, len(allidx))) if allidx else 0
                labs = r.sample(allidx, k) if allidx else []
                if not labs:
                    continue
                inputs[name] = labs
                env[name] = rng.standard_normal([sizes[c] for c in labs])
            factors.append(f"{name}[{', '.join(labs)}]" if labs else name)
            ref_ops.append(name)
            ref_terms.append("".join(labs))
        if not factors:
            name = f"X{len(inputs)}"
            labs = allidx[:] or [free[0] if free else "i"]
            allidx = list(dict.fromkeys(allidx + labs))
            free = [c for c in free] or ([] if labs[0] in red else [])
            inputs[name] = labs
            env[name] = rng.standard_normal([sizes[c] for c in labs])
            factors.append(f"{name}[{', '.join(labs)}]" if labs else name)
            ref_ops.append(name)
            ref_terms.append("".join(labs))
        used = set("".join(ref_terms))
        red = [c for c in red if c in used]
        free = [c for c in free if c in used]
        body = " * ".join(factors)
        kind = r.choice(["sum", "sum", "max"]) if red else None
        expr = f"{kind}[{', '.join(red)}]({body})" if red else body
        fn = r.choice([None, None, "relu", "exp", "abs"])
        if r.random() < 0.3 and free:
            bname = f"X{len(inputs)}"
            inputs[bname] = [free[-1]]
            env[bname] = rng.standard_normal(sizes[free[-1]])
            expr = f"{expr} + {bname}[{free[-1]}]"
            bias = (bname, free[-1])
        else:
            bias = None
        if fn:
            expr = f"{fn}({expr})"
        lines.append((f"{tgt}[{', '.join(free)}] = {expr}" if free else f"{tgt} = {expr}", tgt, free, red, kind,
                      ref_ops, ref_terms, bias, fn))
        tensors[tgt] = free
    return lines, env, sizes

def reference(lines, env):
    vals = dict(env)
    for text, tgt, free, red, kind, ops, terms, bias, fn in lines:
        allidx = "".join(dict.fromkeys("".join(terms)))
        prod = np.einsum(",".join(terms) + "->" + allidx, *[vals[o] for o in ops])
        if red:
            axes = tuple(allidx.index(c) for c in red)
            prod = prod.sum(axis=axes) if kind == "sum" else prod.max(axis=axes)
        rest = "".join(c for c in allidx if c not in red)
        v = np.einsum(rest + "->" + "".join(free), prod) if rest else prod
        if bias:
            v = v + vals[bias[0]]
        if fn == "relu":
            v = np.maximum(v, 0.0)
        elif fn == "exp":
            v = np.exp(v)
        elif fn == "abs":
            v = np.abs(v)
        vals[tgt] = v
    return vals

def spec_main(seed, count):
    from polyfuse.tensor.spec import spec
    stats = {"specs": 0, "calls": 0, "fail": 0, "refused": 0}
    with threads_forced():
        for i in range(count):
            r = random.Random(seed * 31337 + i)
            rng = np.random.default_rng(seed * 31337 + i)
            lines, env, sizes = gen(r, rng)
            text = "\n".join(l[0] for l in lines)
            if "[]" in text:
                text = text.replace("[] =", "[] =")
            try:
                ref = reference(lines, env)
            except Exception:  # noqa: BLE001 - a program the reference cannot run
                continue
            kw = dict(target=r.choice(["python", "cpu", "cpu"]), blas=r.random() < 0.7,
                      fuse=r.choice(["smart", "none", "max"]), fastmath=False)
            if r.random() < 0.3:
                kw["dtype"] = "float32"
            outs = None
            if r.random() < 0.3 and len(lines) > 1:
                outs = [l[1] for l in lines]
            threads.set_num_threads(r.choice([1, 2]))
            stats["specs"] += 1
            try:
                s = spec(text, outputs=outs, **kw)
                args = {n: env[n] for n in s.inputs}
                for rep in range(2):
                    got = s(**args)
                    stats["calls"] += 1
                    got = got if isinstance(got, tuple) else (got,)
                    tol = 1e-4 if kw.get("dtype") == "float32" else 1e-9
                    for name, g in zip(s.outputs, got):
                        np.testing.assert_allclose(np.asarray(g, dtype=float), ref[name], rtol=tol, atol=tol, err_msg=name)
            except polyfuse.UnsupportedError as e:
                stats["refused"] += 1
                print("REFUSED", i, str(e).splitlines()[0][:160])
            except Exception as e:
                msg = str(e)
                if "SpecError" in type(e).__name__ or "spec" in type(e).__module__:
                    stats["refused"] += 1
                    print("SPECERR", i, repr(text), msg.splitlines()[0][:160])
                    continue
                stats["fail"] += 1
                print(f"=== SPEC FAIL seed={seed} i={i} kw={kw} outs={outs}\n{text}\n"
                      f"shapes={ {k: v.shape for k, v in env.items()} }\n{type(e).__name__}: {msg[:700]}", flush=True)
            if i % 25 == 24:
                print("...", i + 1, stats, flush=True)
    print("SPEC TOTAL", seed, count, stats, flush=True)
    return stats["fail"]



def dask_program(r):
    rank = r.choice([1, 2])
    nst = r.randint(1, 3)
    arrays = ["A", "B", "C"]
    idx = ["i", "j"][:rank]
    sh = ", ".join(f"n{d}" for d in range(rank))
    head = f"    {sh}{',' if rank == 1 else ''} = A.shape\n"
    time = r.random() < 0.3
    ind = "    " * (2 if time else 1)
    body = ""
    for s in range(nst):
        tgt = r.choice(["B", "C"]) if not (r.random() < 0.2) else "A"
        lo = [r.randint(0, 2) for _ in idx]
        hi = [r.randint(0, 2) for _ in idx]
        terms = []
        for _ in range(r.randint(1, 3)):
            src = r.choice([a for a in arrays if a != tgt] if r.random() < 0.85 else arrays)
            offs = [r.randint(-lo[d], hi[d]) for d in range(rank)]
            sub = ", ".join(f"{v} + {o}" if o >= 0 else f"{v} - {-o}" for v, o in zip(idx, offs))
            terms.append(f"{r.choice(['0.5', '0.25', '1.5', '2.0'])} * {src}[{sub}]")
        loops = ""
        for d, v in enumerate(idx):
            loops += ind + "    " * d + f"for {v} in range({lo[d]}, n{d} - {hi[d]}):\n"
        tsub = ", ".join(idx)
        op = r.choice(["=", "=", "+="])
        body += loops + ind + "    " * rank + f"{tgt}[{tsub}] {op} " + " + ".join(terms) + "\n"
    src = "def kern(A, B, C, steps):\n" + head
    if time:
        src += "    for t in range(steps):\n"
    src += body
    return src, rank

def dask_main(seed, count):
    import dask.array as da

    import polyfuse.dask as pfd
    stats = {"programs": 0, "calls": 0, "fail": 0, "refused": 0}
    for i in range(count):
        r = random.Random(seed * 1009 + i)
        rng = np.random.default_rng(seed * 1009 + i)
        src, rank = dask_program(r)
        fn = define(src)
        shape = tuple(r.randint(3, 25) for _ in range(rank))
        args = [rng.random(shape) for _ in range(3)]
        steps = r.randint(0, 3)
        exp = [a.copy() for a in args]
        fn(*exp, steps)
        k = polyfuse.kernel(fn)
        chunks = tuple(r.choice([1, 2, 3, 5, 7, 50]) for _ in range(rank))
        stats["programs"] += 1
        try:
            kw = {}
            if r.random() < 0.3:
                kw["steps_per_exchange"] = r.randint(1, 3)
            out = pfd.call(k, *[da.from_array(a, chunks=chunks) for a in args], steps, **kw)
            outs = out if isinstance(out, tuple) else (out,)
            got = [o.compute(scheduler="threads") for o in outs]
        except (polyfuse.UnsupportedError, polyfuse.ArgumentError) as e:
            stats["refused"] += 1
            print("REFUSED", i, str(e).splitlines()[0][:150])
            continue
        except Exception as e:
            stats["fail"] += 1
            print(f"=== DASK CRASH seed={seed} i={i} chunks={chunks} shape={shape} steps={steps}\n{src}\n{type(e).__name__}: {str(e)[:500]}", flush=True)
            continue
        # which arrays are written: those whose names are assigned
        written = [n for n in "ABC" if f"    {n}[" in src.replace("for", "") and any(
            line.strip().startswith(f"{n}[") for line in src.splitlines())]
        stats["calls"] += 1
        try:
            assert len(got) == len(written), (len(got), written)
            for name, g in zip(written, got):
                np.testing.assert_allclose(g, exp["ABC".index(name)], rtol=1e-12, atol=1e-12, err_msg=name)
        except AssertionError as e:
            stats["fail"] += 1
            print(f"=== DASK FAIL seed={seed} i={i} chunks={chunks} shape={shape} steps={steps} kw={kw}\n{src}\n{str(e)[:600]}", flush=True)
        if i % 20 == 19:
            print("...", i + 1, stats, flush=True)
    print("DASK TOTAL", seed, count, stats, flush=True)
    return stats["fail"]


def _uneven_chunks(r, extent):
    chunks, left = [], extent
    while left > 0:
        chunks.append(min(left, r.choice([1, 2, 3, 4, 7, 11])))
        left -= chunks[-1]
    return tuple(chunks)


def _dask_uneven_statement(r, s, rank, ind, time):
    """One statement of dask_uneven_program: its lines and the reduction it returns, if any."""
    idx = ["i", "j"][:rank]
    kind = r.choice(["stencil", "stencil", "elem", "reduce", "rev", "np"])
    tgt = r.choice(["B", "C"])
    lo, hi = [r.randint(0, 2) for _ in idx], [r.randint(0, 2) for _ in idx]
    if kind == "np" and not time:
        f = r.choice(["np.sqrt(np.abs(A))", "np.where(A > 0.5, A, 2.0 * A)", "A * A - 1.0", "np.maximum(A, 0.3)"])
        return [ind + f"{tgt}[...] = {f}"], None
    if kind == "reduce" and not time:
        op = r.choice(["sum", "max", "min"])
        lines = [ind + f"r{s} = {dict(sum='0.0', max='-1.0', min='2.0')[op]}"]
        lines += [ind + "    " * d + f"for {x} in range(n{d}):" for d, x in enumerate(idx)]
        e = f"A[{', '.join(idx)}]"
        lines.append(ind + "    " * rank + (f"r{s} += {e} * 0.5" if op == "sum" else f"r{s} = {op}(r{s}, {e})"))
        return lines, f"r{s}"
    terms = []
    for _ in range(r.randint(1, 3)):
        offs = [r.randint(-lo[d], hi[d]) for d in range(rank)]
        sub = ", ".join(f"{x} + {o}" if o >= 0 else f"{x} - {-o}" for x, o in zip(idx, offs))
        terms.append(f"{r.choice(['0.5', '0.25', '1.5'])} * {r.choice([a for a in 'ABC' if a != tgt])}[{sub}]")
    if kind == "rev":
        lines = [ind + "    " * d + f"for {x} in range(n{d} - 1 - {hi[d]}, {lo[d] - 1}, -1):" for d, x in enumerate(idx)]
    else:
        lines = [ind + "    " * d + f"for {x} in range({lo[d]}, n{d} - {hi[d]}):" for d, x in enumerate(idx)]
    if kind == "elem":
        terms = [f"A[{', '.join(idx)}] * A[{', '.join(idx)}]"] + terms[:1]
    lines.append(ind + "    " * rank + f"{tgt}[{', '.join(idx)}] {r.choice(['=', '=', '+='])} " + " + ".join(terms))
    return lines, None


def dask_uneven_program(r):
    """A kernel of 1-3 statements over A, B, C (1-d or 2-d), perhaps in a time loop."""
    rank = r.choice([1, 2])
    idx = ["i", "j"][:rank]
    lines = ["def kern(A, B, C, steps):", f"    {', '.join(f'n{d}' for d in range(rank))}{',' if rank == 1 else ''} = A.shape"]
    time = r.random() < 0.3
    ind = "    " * (2 if time else 1)
    if time:
        lines.append("    for t in range(steps):")
    returned = []
    for s in range(r.randint(1, 3)):
        more, reduction = _dask_uneven_statement(r, s, rank, ind, time)
        lines += more
        returned += [reduction] if reduction else []
    if time:  # the time loop feeds A back
        lines += [ind + "    " * d + f"for {x} in range(1, n{d} - 1):" for d, x in enumerate(idx)]
        lines.append(ind + "    " * rank + f"A[{', '.join(idx)}] = 0.5 * B[{', '.join(idx)}] + 0.5 * A[{', '.join(idx)}]")
    if returned:
        lines.append("    return " + ", ".join(returned))
    return "\n".join(lines) + "\n", rank, returned


def dask_uneven_main(seed, count):
    import dask.array as da
    stats = {"programs": 0, "calls": 0, "fail": 0, "refused": 0, "typediff": 0}
    for i in range(count):
        r = random.Random(seed * 7919 + i)
        rng = np.random.default_rng(seed * 7919 + i)
        src, rank, returned = dask_uneven_program(r)
        fn = define(src)
        shape = tuple(r.randint(3, 23) for _ in range(rank))
        dtype = r.choice([np.float64, np.float64, np.float32, np.int64, np.int32])
        args = [(rng.random(shape) * 10 - 5).astype(dtype) for _ in range(3)]
        steps = r.randint(0, 3)
        exp = [a.copy() for a in args]
        with np.errstate(all="ignore"):
            value = fn(*exp, steps)
        chunks = tuple(_uneven_chunks(r, e) for e in shape)
        stats["programs"] += 1
        try:
            out = polyfuse.kernel(fn)(*[da.from_array(a, chunks=chunks) for a in args], steps)
            got = [np.asarray(o.compute(scheduler="threads")) for o in (out if isinstance(out, tuple) else (out,))]
        except (polyfuse.UnsupportedError, polyfuse.ArgumentError) as e:
            stats["refused"] += 1
            print("REFUSED", i, str(e).splitlines()[0][:150])
            continue
        except Exception as e:  # noqa: BLE001 - a crash is a finding
            stats["fail"] += 1
            print(f"=== DASK_UNEVEN CRASH seed={seed} i={i} chunks={chunks} steps={steps}\n{src}"
                  f"{type(e).__name__}: {str(e)[:500]}", flush=True)
            continue
        # a kernel with return gives what it returns, else the arrays it writes (docs/dask.md)
        expected = (list(value) if isinstance(value, tuple) else [value]) if returned else \
            [exp["ABC".index(n)] for n in "ABC" if any(ln.strip().startswith(f"{n}[") for ln in src.splitlines())]
        tol = 1e-5 if dtype == np.float32 else 1e-11
        stats["calls"] += 1
        try:
            assert len(got) == len(expected), (len(got), len(expected))
            for g, e in zip(got, expected):
                np.testing.assert_allclose(g, e, rtol=tol, atol=tol)
                if g.dtype != np.asarray(e).dtype:  # min(2.0, A[i]) of ints: Python's type follows the data
                    assert g.ndim == 0 and not isinstance(e, np.ndarray), (g.dtype, np.asarray(e).dtype)
                    stats["typediff"] = stats.get("typediff", 0) + 1  # docs/subset.md, Local scalars
        except AssertionError as e:
            stats["fail"] += 1
            print(f"=== DASK_UNEVEN FAIL seed={seed} i={i} chunks={chunks} shape={shape} steps={steps} "
                  f"dtype={np.dtype(dtype).name}\n{src}{str(e)[:600]}", flush=True)
    print("DASK_UNEVEN TOTAL", seed, count, stats, flush=True)
    return stats["fail"]



# ------------------------------------------------------------------ session 32's features (cp41)
def _ow_loops(r, rank, names=("i", "j")):
    """loop headers over out's shape: ascending, reversed or from 1"""
    heads = []
    for d, v in enumerate(names[:rank]):
        heads.append(r.choice([f"for {v} in range(out.shape[{d}]):", f"for {v} in range(out.shape[{d}]):",
                               f"for {v} in range(out.shape[{d}] - 1, -1, -1):",
                               f"for {v} in range(1, out.shape[{d}]):"]))
    return heads


def _nest(heads, body, indent=4):
    lines = [" " * (indent + 4 * d) + h for d, h in enumerate(heads)]
    return lines + [" " * (indent + 4 * len(heads)) + b for b in body]


def fam_overwritten(r, rng):
    """Chains where a later statement overwrites an earlier one's output (schedule/overwritten.py,
    POLYFUSE_OVERWRITTEN_STORES on/off): the reader at the same or a shifted subscript, under a
    guard, over part of the range, a third reader before or after, a time loop, int32/float32
    arrays (rounding through the local), returned arrays, the first store an update (cp41)."""
    rank = r.choice([1, 2, 2])
    at = "i" if rank == 1 else "i, j"
    dt = r.choice(["float64", "float64", "float32", "int32", "int64"])
    is_int = dt.startswith("int")
    first = r.choice([f"out[{at}] = X[{at}] * 3 + 1", f"out[{at}] = X[{at}] - Y[{at}]",
                      f"out[{at}] += X[{at}]", f"out[{at}] = X[{at}] * X[{at}]",
                      f"out[{at}] = Y[{at}] if X[{at}] > 0 else X[{at}]"])
    if not is_int and r.random() < 0.4:
        first = f"out[{at}] = X[{at}] / 3.0 + 0.1"
    shifted = "i // 2" if rank == 1 else r.choice(["i // 2, j", "i, j // 2", "i, 0", "0, j"])
    second = r.choice([f"out[{at}] = out[{at}] * 2 - X[{at}]", f"out[{at}] = out[{at}] + out[{at}]",
                       f"out[{at}] = out[{at}] // 3" if is_int else f"out[{at}] = out[{at}] / 7.0",
                       f"out[{at}] = -out[{at}]", f"out[{at}] -= Y[{at}]",
                       f"out[{at}] = out[{shifted}] + 1", f"out[{at}] = out[{at}] + out[{shifted}]",
                       f"out[{at}] = max(out[{at}], Y[{at}])", f"out[{at}] = min(out[{at}], 0)"])
    guard = r.random() < 0.2
    place = r.choice(["same", "same", "rows", "rows", "rows", "split", "split_rev", "split_part", "time"])
    heads = _ow_loops(r, rank)
    if place == "rows" and rank == 2:  # softmax's shape: the store and the reader in inner loops of one i
        inner2 = r.choice([heads[1], heads[1], _ow_loops(r, 2)[1]])
        acc = r.choice(["s += X[i, j]", "s = max(s, X[i, j])", "s += 1", "s += out[i, j]"])
        cut = r.choice(["", "", "if X[i, 0] > 1.5:\n            break", "if X[i, 0] > 1.5:\n            continue",
                        "if X[i, 0] > 2.5:\n            return s"])
        second = r.choice([second, f"out[{at}] = out[{at}] * s", f"out[{at}] = out[{at}] - s + Y[{at}]"])
        lines = [f"    {heads[0]}", "        s = 0", f"        {heads[1]}", f"            {first}",
                 f"            {acc}"] + ([f"        {cut}"] if cut else []) + [f"        {inner2}"]
        lines += [f"            if X[{at}] > 0:", f"                {second}"] if guard else [f"            {second}"]
    elif place == "same":
        body = [first] + ([f"if X[{at}] > 0:", "    " + second] if guard else [second])
        lines = _nest(heads, body)
    else:
        heads2 = list(heads)
        if place == "split_rev":
            heads2 = heads2[::-1]
        if place == "split_part":
            heads2 = _ow_loops(r, rank)
        second_body = [f"if X[{at}] > 0:", "    " + second] if guard else [second]
        lines = _nest(heads, [first]) + _nest(heads2, second_body)
        if place == "time":
            lines = ["    for t in range(T):"] + ["    " + ln for ln in lines]
    third = r.random()
    if third < 0.25:
        lines += _nest(heads, [f"Z[{at}] = out[{at}] * 2"])
    elif third < 0.4:  # a reader between the two
        mid = _nest(heads, [f"Z[{at}] = out[{at}] + 5"])
        cut = len(lines) // 2 if place not in ("same", "time", "rows") else len(lines)
        lines = lines[:cut] + mid + lines[cut:]
    tail = r.choice(["", "", "    return out", "    return out.sum()", "    return Z"])
    src = "def kern(T, X, Y, Z, out):\n" + "\n".join(lines) + "\n" + (tail + "\n" if tail else "")
    args = []
    for _ in range(2):
        shape = tuple(int(rng.choice([0, 1, 2, 3, 5, 8, 17])) for _ in range(rank))
        made = [rng.integers(-50, 50, shape) if is_int else rng.standard_normal(shape) for _ in range(4)]
        args.append((int(rng.integers(0, 4)), *(a.astype(dt) for a in made)))
    env = {"POLYFUSE_OVERWRITTEN_STORES": r.choice(["1", "1", "0"])}
    return src, args, env, (1e-4 if dt == "float32" else 1e-9)


FDTD_LIKE = [
    # fdtd-2d: a boundary statement per time step
    ("def kern(T, n, m, ex, ey, hz, fict):\n    for t in range(T):\n        for j in range(m):\n"
     "            ey[0, j] = fict[t]\n        for i in range(1, n):\n            for j in range(m):\n"
     "                ey[i, j] = ey[i, j] - 0.5 * (hz[i, j] - hz[i - 1, j])\n"
     "        for i in range(n):\n            for j in range(1, m):\n"
     "                ex[i, j] = ex[i, j] - 0.5 * (hz[i, j] - hz[i, j - 1])\n"
     "        for i in range(n - 1):\n            for j in range(m - 1):\n"
     "                hz[i, j] = hz[i, j] - 0.7 * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])\n"),
    # 1-d heat with a fixed boundary written every step
    ("def kern(T, n, m, ex, ey, hz, fict):\n    for t in range(T):\n        ex[0, 0] = fict[t]\n"
     "        for i in range(1, n - 1):\n            ey[i, 0] = 0.25 * (ex[i - 1, 0] + 2.0 * ex[i, 0] + ex[i + 1, 0])\n"
     "        for i in range(1, n - 1):\n            ex[i, 0] = ey[i, 0]\n"),
    # boundary columns copied from neighbours each step (Neumann), then a jacobi sweep
    ("def kern(T, n, m, ex, ey, hz, fict):\n    for t in range(T):\n        for i in range(n):\n"
     "            ex[i, 0] = ex[i, 1] if m > 1 else fict[t]\n        for i in range(1, n - 1):\n"
     "            for j in range(1, m - 1):\n"
     "                ey[i, j] = 0.2 * (ex[i, j] + ex[i - 1, j] + ex[i + 1, j] + ex[i, j - 1] + ex[i, j + 1])\n"
     "        for i in range(1, n - 1):\n            for j in range(1, m - 1):\n                ex[i, j] = ey[i, j]\n"),
    # a boundary statement in the middle of the step, on the last row, and a t-dependent one
    ("def kern(T, n, m, ex, ey, hz, fict):\n    for t in range(T):\n        for i in range(1, n):\n"
     "            for j in range(m):\n                ex[i, j] = 0.5 * (ex[i, j] + ex[i - 1, j])\n"
     "        for j in range(m):\n            ex[n - 1, j] = ex[n - 1, j] + fict[t] * 0.1 * t\n"
     "        for i in range(n - 1):\n            for j in range(m):\n                hz[i, j] = hz[i, j] + ex[i + 1, j]\n"),
    # in-place seidel with a boundary cell updated from the interior each step
    ("def kern(T, n, m, ex, ey, hz, fict):\n    for t in range(T):\n        for i in range(1, n - 1):\n"
     "            ex[i, 0] = (ex[i - 1, 0] + ex[i, 0] + ex[i + 1, 0]) / 3.0\n"
     "        if n > 2:\n            ex[0, 0] = ex[1, 0] + fict[t]\n"),
]


def fam_tile_boundary(r, rng):
    """Time-tiled stencils with boundary statements that have points in only some tiles (fdtd-2d's
    ``ey[0, j] = fict[t]``), isl's atomic tile band on or off (POLYFUSE_TIME_TILE_ATOMIC), random
    tile sizes, on one and two threads (cp41)."""
    src = r.choice(FDTD_LIKE)
    tile = ",".join(str(r.choice([1, 2, 3, 4, 8])) for _ in range(3))
    args = []
    for _ in range(2):
        T = int(rng.choice([0, 1, 2, 5, 9]))
        n, m = int(rng.choice([1, 2, 3, 6, 13])), int(rng.choice([1, 2, 3, 7, 12]))
        args.append((T, n, m, rng.random((n, m)), rng.random((n, m)), rng.random((n, m)), rng.random(max(T, 1))))
    env = {"POLYFUSE_TIME_TILE_SIZES": tile, "POLYFUSE_ONE_THREAD_TILES": r.choice(["1", "0"]),
           "POLYFUSE_TIME_TILE_ATOMIC": r.choice(["1", "1", "0"])}
    return src, args, env


MIXED_LOCALS = [
    # a local of an element of one dtype or a Python float, by a data test (split into versions)
    "t = f[0] if f[0] > 0 else 0.1\n    return t + 1, t * 3",
    "t = g[0]\n    if g[0] < 0:\n        t = 2.5\n    return t * 2",
    "t = b[0]\n    if f[0] > 0.5:\n        t = f[0]\n    out[0] = t\n    return t + t",
    "t = b[0] if n > 2 else g[0]\n    return t * 100, t + 1",
    "t = f[1] if f.shape[0] > 1 else b[0]\n    u = t * t\n    return u",
    # accumulators of NumPy scalars
    "s = 0\n    for i in range(f.shape[0]):\n        s += f[i]\n    return s",
    "s = 0.0\n    for i in range(b.shape[0]):\n        s += b[i]\n    return s",
    "s = 0\n    for i in range(b.shape[0]):\n        s = s + b[i] * b[i]\n    return s",
    "s = b[0]\n    for i in range(b.shape[0]):\n        s = s * b[i] + 1\n    return s",
    "s = f[0] * 0\n    for i in range(g.shape[0]):\n        s += g[i]\n    return s",
    # max/min of mixed types
    "m = 1e30\n    for i in range(f.shape[0]):\n        m = min(m, f[i])\n    out[0] = m\n    return m",
    "m = 0\n    for i in range(b.shape[0]):\n        m = max(m, b[i])\n    return m",
    "m = -1\n    for i in range(f.shape[0]):\n        m = max(m, f[i])\n    return m",
    "return max(f[0], 1), min(b[0], 2.5), max(b[0], g[0]), min(f[0], g[0])",
    "return max(b[0], b[1], 3), min(f[0], 0)",
    "m = max(1.0, np.max(f))\n    return m",
    # an array meeting such a choice (np42): typed where every candidate gives one dtype, else refused
    "m = max(1.0, np.max(f))\n    return f / m, g / max(0.5, np.abs(g).max()), f * (2 * m + 1)",
    "return b * max(2, b[0]), g - min(0.0, g.min()), f / max(n, np.abs(f).max())",
    "m = b[0]\n    for i in range(1, b.shape[0]):\n        if b[i] > m:\n            m = b[i]\n    return m, m * 2",
    # int overflow wrap of small ints
    "for i in range(b.shape[0]):\n        b[i] = b[i] * 100 + 7\n    return b[0] * b[0]",
    "s = b[0]\n    for i in range(b.shape[0]):\n        s += b[i]\n    return s",
    "for i in range(b.shape[0]):\n        b[i] += b[i]\n        g[i] = b[i] / 2\n    return b[0] + b[-1] if b.shape[0] else 0",
]


def fam_mixed_locals(r, rng):
    """Locals given values of two NumPy dtypes, or a NumPy scalar and a Python number (frontend/
    local_versions.py), max()/min() of mixed types, small-int accumulators that wrap (cp41)."""
    body = r.choice(MIXED_LOCALS)
    src = f"def kern(n, f, b, g, out):\n    {body}\n"
    fdt = r.choice(["float32", "float64", "float32"])
    bdt = r.choice(["int8", "int16", "int32", "int64", "uint8", "bool"])
    gdt = r.choice(["float64", "int64", "float32", "int32"])
    args = []
    for _ in range(2):
        n = int(rng.choice([2, 3, 5, 9]))
        f = (rng.standard_normal(n) * 3).astype(fdt)
        if bdt == "bool":
            b = rng.random(n) < 0.5
        else:
            info = np.iinfo(bdt)
            b = rng.integers(max(info.min, -200), min(info.max, 200), n).astype(bdt)
        g = (rng.standard_normal(n) * 50).astype(gdt)
        args.append((n, f, b, g, np.zeros(2, fdt)))
    return src, args, {}, 1e-5


NONE_COUNTED = [
    # None locals
    "last = None\n    for i in range(x.shape[0]):\n        if x[i] > t:\n            last = i\n"
    "    return -1 if last is None else last",
    "best = None\n    for i in range(x.shape[0]):\n        if best is None or x[i] > best:\n            best = x[i]\n"
    "    if best is None:\n        return 0.0\n    return best",
    "first = None\n    for i in range(x.shape[0]):\n        if first is None and x[i] < t:\n            first = x[i] * 2\n"
    "    return first is not None, 0.0 if first is None else first",
    "hit = None\n    i = 0\n    while i < x.shape[0]:\n        if x[i] == t:\n            hit = i\n            break\n        i += 1\n"
    "    if hit is None:\n        return -1\n    return hit",
    "v = None\n    for i in range(x.shape[0]):\n        if x[i] > t:\n            v = x[i]\n        else:\n            v = None\n"
    "    return 0.0 if v is None else v",
    # count, then allocate
    "k = 0\n    for i in range(x.shape[0]):\n        if x[i] > t:\n            k += 1\n"
    "    out = np.empty(k, dtype=x.dtype)\n    j = 0\n    for i in range(x.shape[0]):\n        if x[i] > t:\n"
    "            out[j] = x[i]\n            j += 1\n    return out",
    "k = 1\n    for i in range(x.shape[0]):\n        if x[i] > t:\n            k += 2\n"
    "    out = np.zeros((k, 2))\n    j = 0\n    for i in range(x.shape[0]):\n        if x[i] > t:\n"
    "            out[j, 0] = x[i]\n            out[j + 1, 1] = i\n            j += 2\n    return out, out.shape[0]",
    "k = 0\n    for i in range(x.shape[0]):\n        if x[i] > t:\n            k += 1\n"
    "    out = np.full(k, -1.0)\n    j = 0\n    for i in range(x.shape[0]):\n        if x[i] > t:\n"
    "            out[j] = i\n            j += 1\n    return out.sum(), len(out), out[:j - 1]",
    "k = 0\n    for i in range(x.shape[0]):\n        if x[i] > t:\n            k += 1\n"
    "    out = np.ones(k)\n    for i in range(len(out)):\n        out[i] = out[i] * i\n    s = 0.0\n"
    "    for v in out:\n        s += v\n    return s, out.max() if k > 0 else 0.0",
    "k = 0\n    for i in range(x.shape[0]):\n        for j in range(i):\n            if x[i] + x[j] > t:\n                k += 1\n"
    "    out = np.empty((k, 2), dtype=np.int64)\n    c = 0\n    for i in range(x.shape[0]):\n"
    "        for j in range(i):\n            if x[i] + x[j] > t:\n                out[c, 0] = i\n                out[c, 1] = j\n"
    "                c += 1\n    return out",
    "k = 0\n    for i in range(x.shape[0]):\n        if x[i] > t:\n            k += 1\n"
    "    out = np.zeros(k, dtype=np.int32)\n    if k > 0:\n        out[-1] = 5\n        out[0] += 1\n    return out",
]


def fam_none_counted(r, rng):
    """None locals (frontend/none_locals.py) and count-then-allocate (frontend/
    counted_allocations.py) of random data (cp41)."""
    body = r.choice(NONE_COUNTED)
    src = f"def kern(x, t):\n    {body}\n"
    dt = r.choice(["float64", "float32", "int64"])
    args = []
    for _ in range(3):
        n = int(rng.choice([0, 1, 2, 5, 9]))
        x = (rng.standard_normal(n) * 3).astype(dt) if dt != "int64" else rng.integers(-3, 4, n)
        args.append((x, float(rng.choice([0.0, 1.0, -1.0, 5.0])) if dt != "int64" else int(rng.integers(-2, 3))))
    return src, args, {}, 1e-5


LINALG = [
    "q, rr = np.linalg.qr(A)\n    return np.abs(q @ rr - A).max() < 1e-8 * (1 + np.abs(A).max()), np.abs(rr.diagonal()).sum()",
    "w, v = np.linalg.eigh(S)\n    return w, np.abs(v).sum(axis=0)",
    "w = np.linalg.eigvalsh(S)\n    return w.max() - w.min()",
    "u, s, vt = np.linalg.svd(A, full_matrices=False)\n    return s, np.abs(u @ np.diag(s) @ vt - A).max() < 1e-8",
    "s = np.linalg.svd(A, compute_uv=False)\n    return s * 2.0",
    "rr = np.linalg.qr(A, mode='r')\n    return np.abs(rr).sum()",
    "w, v = np.linalg.eigh(S, UPLO='U')\n    return w",
    "q, rr = np.linalg.qr(A)\n    out = q.T @ A\n    return np.abs(out - rr).max() < 1e-8",
    "w, v = np.linalg.eigh(S)\n    y = v.T @ S @ v\n    return np.abs(np.diag(y) - w).max() < 1e-8",
    "u, s, vt = np.linalg.svd(A)\n    return s.sum(), u.shape, vt.shape",
]


def fam_linalg(r, rng):
    """np.linalg.qr/eigh/eigvalsh/svd of random shapes (tall, wide, 1x1, float32) and their uses
    afterwards; results compared by sign-free quantities (cp41)."""
    body = r.choice(LINALG)
    src = f"def kern(A, S):\n    {body}\n"
    dt = r.choice(["float64", "float64", "float32"])
    args = []
    for _ in range(2):
        m, n = int(rng.choice([1, 2, 3, 5, 8])), int(rng.choice([1, 2, 4, 7]))
        A = rng.standard_normal((m, n)).astype(dt)
        S = rng.standard_normal((n, n))
        S = (S + S.T).astype(dt)
        args.append((A, S))
    return src, args, {}, (2e-3 if dt == "float32" else 1e-7)


FAMILIES = {name[4:]: f for name, f in list(globals().items()) if name.startswith("fam_")}
MAINS = {"packing": packing_main, "einsum": einsum_main, "spec": spec_main, "dask": dask_main,
         "dask_uneven": dask_uneven_main}


def run_families(fams, seed, count, targets):
    with threads_forced():
        for i in range(count):
            for fam in fams:
                r = random.Random(seed * 100003 + i * 31 + sum(map(ord, fam)))
                rng = np.random.default_rng(seed * 100003 + i)
                out = FAMILIES[fam](r, rng)
                src, args, env = out[:3]
                tol = out[3] if len(out) > 3 else 1e-9
                run_case(src, args, rtol=tol, atol=tol * 1e-2, env=env, label=f"{fam} seed={seed} i={i}",
                         targets=targets)
            if i % 10 == 9:
                print("...", i + 1, STATS, flush=True)
    print("TOTAL", fams, seed, count, STATS, flush=True)
    return STATS["fail"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="all", help="comma-separated names (see above), or all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=20, help="programs per family")
    parser.add_argument("--targets", default="python,cpu1,cpu2", help="python, cpu1, cpu2, cuda")
    args = parser.parse_args(argv)
    names = list(FAMILIES) + list(MAINS) if args.families == "all" else args.families.split(",")
    print("polyfuse from", Path(polyfuse.__file__).parent, flush=True)
    failures = 0
    loops = [n for n in names if n in FAMILIES]
    if loops:
        failures += run_families(loops, args.seed, args.count, tuple(args.targets.split(",")))
    for name in names:
        if name in MAINS:
            failures += MAINS[name](args.seed, args.count)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
