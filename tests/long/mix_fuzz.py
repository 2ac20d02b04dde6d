"""Random NumPy programs of mixed dtypes and random loop nests, at sizes 0 and 1 too (cp50).

    python tests/long/mix_fuzz.py SEED COUNT [numpy|loops|both] [--knobs]

What the other campaigns do not draw.  ``numpy``: arrays of several dtypes in one program (float64,
float32, int32, int64, bool), lengths 0, 1, 2, 3 and 7 (``numpy_program_gen`` keeps every extent
at 2 or more and one dtype), reductions with ``keepdims``, ``np.diff``, ``np.roll``,
``np.concatenate``, ``np.cumsum`` with ``axis``, boolean masks (``x[m].sum()``, ``m & n``,
``np.count_nonzero``), gathers through an index argument, ``@``, overlapping in-place updates
(``a[1:] += a[:-1]``, ``M[:, 1:] -= M[:, :-1]``, ``a[::-1] += a``), and returned views
(``a[::-1]``, ``M.T``, an argument itself).  ``loops``: nests with triangular and reversed bounds
(``range(i, n)``, ``range(n - 1, i, -2)``), ``%`` and ``//`` subscripts, in-place updates read at
shifted indices in a later nest, scalar sums carried from one nest into the next, and the same array
passed as two arguments.  Both are compared with the plain function on target "python" and "cpu"
(one and two threads, serial-first rule off): every argument, the returned value's dtype, shape and
elements; NumPy scalars' types too.  ``--knobs`` sets a random subset of the boolean ``POLYFUSE_*``
knobs for each cpu kernel.  UnsupportedErrors and ArgumentErrors are counted, not failures.
``SHOW=1`` prints every program; ``REFUSED=1`` each refusal; ``ONLY=k,..`` runs those program numbers only.
"""

from __future__ import annotations

import os
import random
import sys
import time
import traceback
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

import numpy as np  # noqa: E402
from conftest import define, threads_forced  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.errors import ArgumentError  # noqa: E402
from polyfuse.runtime import threads  # noqa: E402

SIZES = (0, 1, 2, 3, 7)
DTYPES = ("float64", "float32", "int32", "int64")
KNOBS = ("POLYFUSE_BLOCKED_SUMS", "POLYFUSE_CARRIED_LOADS", "POLYFUSE_INTERLEAVE", "POLYFUSE_INTEGER_CHECKS",
         "POLYFUSE_JOIN_PHASES", "POLYFUSE_MINMAX_LANES", "POLYFUSE_NATIVE_ENTRY", "POLYFUSE_NOOP_VERSIONS",
         "POLYFUSE_ONE_ROW_COPY", "POLYFUSE_OUTER_PARALLELISM", "POLYFUSE_OVERLAP_ROWS", "POLYFUSE_OVERWRITTEN_STORES",
         "POLYFUSE_OVERWRITTEN_FORWARD", "POLYFUSE_PHASE_CHAINS", "POLYFUSE_PRIVATE_SUMS", "POLYFUSE_RARE_LOOPS",
         "POLYFUSE_ROW_ALIAS_CHECKS", "POLYFUSE_SERIAL_FUSION", "POLYFUSE_TILE_BUFFERS", "POLYFUSE_VECTOR_CHECKS",
         "POLYFUSE_GUARDED_CHECKS", "POLYFUSE_CARRIED_GUARD", "POLYFUSE_LAZY_STREAMS", "POLYFUSE_ROW_TAILS",
         "POLYFUSE_EPILOGUE_CHAINS", "POLYFUSE_STREAM_MATH", "POLYFUSE_RECIPROCAL_QUOTIENTS")


# ---- NumPy programs: kern(a, b, c, M, Q, I, k) ----------------------------------------------------
# a, b: (n,) of dtypes da, db; c: (n,) bool; M: (n, p) of dtype dm; Q: (p, p) of dtype dm;
# I: (n,) int64 in [-n, n); k: a Python int.  Kinds: "v" (n,), "m" (n, p), "r" (p,), "s" scalar.

class NumpyGen:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.locals: dict[str, str] = {}
        self.alias = rng.random() < 0.15  # b is a (same dtype)

    def choice(self, items):
        return self.rng.choice(items)

    def expr(self, kind: str, depth: int) -> str:
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            return self.leaf(kind)
        if kind == "s":
            v, m = self.expr("v", depth - 1), self.expr("m", depth - 1)
            return self.choice([
                f"{v}.sum()", f"np.sum({m})", f"np.dot({v}, {self.expr('v', depth - 1)})",
                f"np.count_nonzero({v} > 0)", f"({v} > 0).sum()", f"np.any({v} < 0)", f"np.all({v} < 5)",
                f"({self.expr('s', depth - 1)} + {self.expr('s', depth - 1)})", f"{v}[c].sum()",
                f"np.sum({v}, keepdims=True)[0]", f"len({v})", f"{m}.sum(axis=0).sum()", f"np.prod({v} > -3)",
                f"float({v}.sum())", f"int({self.expr('s', depth - 1)})", f"np.max({v}, initial=-5)",
                f"{m}.min(initial=9)", f"(2 * {self.expr('s', depth - 1)} - 1)",
                "c.mean() if len(c) else 0.0", f"({v} @ {self.expr('v', depth - 1)})", "np.sum(c)",
                f"({v}).cumsum()[-1:].sum()", f"np.int32(3) * {self.expr('s', depth - 1)}",
                f"({v}).astype(np.int32).sum()", f"np.mean({v}) if len({v}) else -1.0",
            ])
        if kind == "v":
            a, b = self.expr("v", depth - 1), self.expr("v", depth - 1)
            m = self.expr("m", depth - 1)
            return self.choice([
                f"({a} + {b})", f"({a} - {b})", f"({a} * {b})", f"np.abs({a})", f"np.maximum({a}, {b})",
                f"np.minimum({a}, {b})", f"np.where({a} > {b}, {a}, {b})", f"np.where(c, {a}, {self.leaf('s')})",
                f"({a} / (1.0 + np.abs({b})))", f"({a} // 3)", f"({a} % 4)", f"np.cumsum({a})",
                f"np.roll({a}, {r.randint(-3, 3)})", f"({a})[::-1]", f"np.concatenate((({a})[1:], ({a})[:1]))",
                f"np.diff(np.concatenate(({a}, ({a})[-1:])))", f"({m}).sum(axis=1)",
                f"np.sum({m}, axis=1, keepdims=True)[:, 0]", f"({m} @ {self.expr('r', depth - 1)})",
                f"np.mean({m}, axis=1)", f"({a}).astype(np.float32)", f"({a}).astype(np.int32)",
                f"({a} > {b})", f"(({a} > 0) & c)", f"(~c * {a})", f"({a} * {self.expr('s', depth - 1)})",
                f"({a})[I]", f"np.clip({a}, -2, 2)", f"np.cumsum({m}, axis=1)[:, -1:].sum(axis=1)",
                f"({m}).max(axis=1, initial=0)", f"({a} ** 2)", f"np.sign({a})",
                "(c + c)", f"(c * {a})", f"(c ^ ({a} > 0))", "c.cumsum()", f"({a} // {b})", f"({a} % {b})",
                f"np.where(c, {a}, {b})", f"(np.int32(2) * {a})", f"({a}).astype(bool)", f"({a})[c][:0]",
                f"np.concatenate((({a})[:1], ({b})[1:]))", f"np.cumprod(np.sign({a}))",
                f"(({m}).T @ {m} @ {self.expr('r', depth - 1)})[:0]", f"np.abs({a}) ** 0.5",
            ])
        if kind == "m":
            a, b = self.expr("m", depth - 1), self.expr("m", depth - 1)
            v, rr = self.expr("v", depth - 1), self.expr("r", depth - 1)
            return self.choice([
                f"({a} + {b})", f"({a} * {b})", f"({a} - {v}[:, None])", f"({a} * {rr}[None, :])",
                f"np.outer({v}, {rr})", f"np.cumsum({a}, axis={r.randint(0, 1)})", f"({a} @ Q)",
                f"({a})[::-1]", f"({a})[:, ::-1]", f"np.roll({a}, {r.randint(-2, 2)}, axis={r.randint(0, 1)})",
                f"({a} - np.mean({a}, axis=1, keepdims=True))", f"({a} - {a}.sum(axis=0, keepdims=True))",
                f"np.where({a} > 0, {a}, 0)", f"np.abs({a})", f"({a}).astype(np.float32)",
                f"np.diff(np.concatenate((({a})[:1], {a})), axis=0)", f"({a} > {b})", f"({a} // 2)",
                f"({a} @ ({b}).T @ {b})", f"np.vstack((({a})[1:], ({b})[:1]))", f"np.where(c[:, None], {a}, {b})",
                f"({a}).T.T", f"np.maximum({a}, {rr})", f"({a} % 3)", f"np.cumsum({a} > 0, axis=0)",
            ])
        m = self.expr("m", depth - 1)
        rr = self.expr("r", depth - 1)
        return self.choice([
            f"({m}).sum(axis=0)", f"({self.expr('v', depth - 1)} @ {m})", f"(Q @ {rr})", f"({rr} + {rr})",
            f"np.cumsum({rr})", f"({rr})[::-1]", f"np.sum({m}, axis=0, keepdims=True)[0]",
            f"({m}).max(axis=0, initial=-1)", f"({rr} * {self.expr('s', depth - 1)})",
        ])

    def leaf(self, kind: str) -> str:
        names = [name for name, k in self.locals.items() if k == kind]
        options = list(names)
        if kind == "v":
            options += ["a", "b", "a", "b", "c", "a[::-1]", "b[::-1]"]
        elif kind == "m":
            options += ["M", "M", "M[::-1]", "M[:, ::-1]"]
        elif kind == "r":
            options += ["(Q[0] if len(Q) else Q.sum(axis=0))", "Q.sum(axis=1)", "Q[:, ::-1].sum(axis=0)", "np.diag(Q)"]
        else:
            options += ["k", "2", "0.5", "-1", "True", "np.float32(1.5)", "np.int32(3)"]
        return self.choice(options)

    def statement(self) -> str:
        r = self.rng
        kind = self.choice(["local"] * 3 + ["store", "overlap", "mask", "inplace"])
        if kind == "local":
            name = f"t{len(self.locals)}"
            k = self.choice(["v", "v", "m", "r", "s"])
            line = f"    {name} = {self.expr(k, 2)}"
            self.locals[name] = k
            return line
        if kind == "store":
            target, k = self.choice([("a[:]", "v"), ("b[:]", "v"), ("M[:]", "m"), ("M[:, 0:1]", "m1"),
                                     ("a[::2]", "v2"), ("M[::-1, ::2]", "m2"), ("c[:]", "v")])
            value = self.expr({"m1": "m", "v2": "v", "m2": "m"}.get(k, k), 2)
            value = {"m1": f"({value})[:, 0:1]", "v2": f"({value})[::2]", "m2": f"({value})[::-1, ::2]"}.get(k, value)
            return f"    {target} = {value}"
        if kind == "overlap":
            return self.choice([
                "    a[1:] += a[:-1]", "    a[:-1] = a[1:] * 2", "    a[1:] = a[:-1]", "    b[2:] -= b[:-2]",
                "    a[::-1] += a", "    M[1:, :] += M[:-1, :]", "    M[:, 1:] -= M[:, :-1]", "    a[:] = a[::-1]",
                "    M[:] = M[::-1, ::-1]", "    b[1:] = a[:-1] + b[1:]", "    a[1:] = np.cumsum(a)[:-1]",
                "    Q[:] = Q.T", "    Q += Q.T", "    a[I] = a * 2", "    a[I] += 1", "    M[:, ::-1] += M",
                "    a[I] = b", "    b[::-1] = a", "    a[1:] *= a[:-1]", "    a[:-2] += a[2:]", "    Q[:] = Q @ Q",
                "    M[:] = np.cumsum(M, axis=0)", "    a[:] = np.cumsum(a[::-1])", "    a[1::2] = a[::2][:len(a) // 2]",
                "    M[1:] = M[:-1] - M[1:]", "    c[1:] = c[:-1]", "    c[:] = ~c",
            ])
        if kind == "mask":
            return self.choice([
                "    a[a > 0] = 0", "    a[c] = b[c]", "    M[M < 0] *= 2", "    b[~c] += 1",
                f"    a[a < {self.leaf('s')}] = {self.leaf('s')}", "    c[:] = a > b", "    c &= b > 0",
            ])
        target, k = self.choice([("a", "v"), ("b", "v"), ("M", "m"), ("Q", "Q")])
        op = self.choice(["+=", "-=", "*="])
        value = self.expr(k, 1) if k != "Q" else self.choice(["Q", "Q.T", "1", "Q @ Q"])
        if r.random() < 0.5:
            value = f"({value}).astype({target}.dtype)"
        return f"    {target} {op} {value}"

    def program(self) -> str:
        lines = ["def kern(a, b, c, M, Q, I, k):"]
        lines += [self.statement() for _ in range(self.rng.randint(1, 4))]
        rets = []
        for _ in range(self.rng.randint(1, 3)):
            if self.rng.random() < 0.3:
                rets.append(self.choice(["a", "a[::-1]", "M.T", "M[1:]", "b[::2]", "c", "Q.T", "a[c]", "M[:, ::-1]",
                                         "np.concatenate((a, b))", "M.ravel()", "a[I]"]))
            else:
                rets.append(self.expr(self.choice(["v", "m", "r", "s"]), 2))
        lines.append(f"    return {', '.join(rets)}")
        return "\n".join(lines) + "\n"

    def args(self, rng: np.random.Generator, n: int, p: int, dtypes) -> list:
        da, db, dm = dtypes

        def values(shape, dtype):
            if dtype.startswith("int"):
                return rng.integers(-5, 6, size=shape).astype(dtype)
            return (rng.standard_normal(shape) * 2).astype(dtype)
        a = values((n,), da)
        b = a if self.alias else values((n,), db)
        c = rng.random(n) < 0.5
        M = values((n, p), dm)
        Q = values((p, p), dm)
        idx = rng.integers(-n, n, size=n) if n else np.zeros(0, np.int64)
        return [a, b, c, M, Q, idx.astype(np.int64), int(rng.integers(-3, 4))]


# ---- loop nests: kern(n, A, B, C, x, y) ---------------------------------------------------------
# A, B: (n, n); C: (n,) ; x, y: (n,) -- all of the program's dtype.  Subscripts stay in range for
# every n >= 0: bounds are drawn from forms that keep loop variables in [0, n).

class LoopGen:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.scalars: list[str] = []
        self.alias = rng.random() < 0.2  # B is A / y is x
        self.is_int = rng.random() < 0.3

    def choice(self, items):
        return self.rng.choice(items)

    def bound(self, var: str, outer: list[str]) -> str:
        forms = ["range(n)", "range(n - 1, -1, -1)", "range(1, n)", "range(0, n, 2)", "range(n - 1, -1, -2)",
                 "range(n - 2, 0, -3)", "range(n // 2)", "range(1, n, 3)"]
        if outer:
            o = outer[-1]
            forms += [f"range({o})", f"range({o}, n)", f"range({o} + 1, n)", f"range(n - 1, {o}, -1)",
                      f"range(n - 1, {o} - 1, -2)", f"range({o} % 3, n, 2)", f"range(max(0, {o} - 2), min(n, {o} + 2))"]
        return self.choice(forms)

    def sub(self, scope: list[str]) -> str:
        v = self.choice(scope)
        return self.choice([v, v, v, f"n - 1 - {v}", f"({v} + 1) % n", f"({v} * 2) % n", f"{v} // 2",
                            f"({v} + n - 1) % n", f"{v} - {v} // 2", f"max({v} - 1, 0)", f"min({v} + 1, n - 1)"])

    def read(self, scope: list[str]) -> str:
        arr = self.choice(["A", "B", "x", "y", "C"])
        if arr in ("A", "B"):
            return f"{arr}[{self.sub(scope)}, {self.sub(scope)}]"
        return f"{arr}[{self.sub(scope)}]"

    def value(self, scope: list[str], depth: int = 2) -> str:
        if depth == 0 or self.rng.random() < 0.3:
            leaves = [self.read(scope), self.read(scope), "2", scope[-1]] + self.scalars
            if not self.is_int:
                leaves.append("0.5")
            return self.choice(leaves)
        a, b = self.value(scope, depth - 1), self.value(scope, depth - 1)
        forms = [f"({a} + {b})", f"({a} - {b})", f"({a} * {b})", f"max({a}, {b})", f"min({a}, {b})",
                 f"({a} if {a} > {b} else {b})"]
        forms += [f"({a} // 3)", f"({a} % 5)"] if self.is_int else [f"({a} * 0.5)", f"({a} / (1.0 + abs({b})))"]
        return self.choice(forms)

    def store(self, scope: list[str]) -> str:
        arr = self.choice(["A", "B", "x", "y", "C"])
        op = self.choice(["=", "=", "+=", "-="])
        if arr in ("A", "B"):
            target = f"{arr}[{self.sub(scope)}, {self.sub(scope)}]"
        else:
            target = f"{arr}[{self.sub(scope)}]"
        value = self.value(scope)
        if self.is_int:
            value = f"({value}) % 1000"
        return f"{target} {op} {value}"

    def nest(self) -> list[str]:
        depth = self.choice([1, 1, 2, 2, 3])
        lines, scope, pad = [], [], "    "
        for level in range(depth):
            var = "ijk"[level]
            lines.append(f"{pad}for {var} in {self.bound(var, scope)}:")
            scope.append(var)
            pad += "    "
            if level < depth - 1 and self.rng.random() < 0.25:
                lines.append(f"{pad}{self.store(scope)}")
        for _ in range(self.rng.randint(1, 2)):
            if self.rng.random() < 0.3:
                s = self.choice(self.scalars) if self.scalars and self.rng.random() < 0.5 else None
                if s is None:
                    s = f"s{len(self.scalars)}"
                    lines.insert(0, f"    {s} = 0")
                    self.scalars.append(s)
                    body = f"{pad}{s} += {self.value(scope)}"
                else:
                    body = f"{pad}{s} = {s} + {self.value(scope)}" if not self.is_int else f"{pad}{s} = ({s} + {self.value(scope)}) % 1000"
                lines.append(body)
            else:
                lines.append(f"{pad}{self.store(scope)}")
        return lines

    def program(self) -> str:
        lines = ["def kern(n, A, B, C, x, y):"]
        for _ in range(self.rng.randint(1, 4)):
            lines += self.nest()
        lines.append(f"    return {' + '.join(self.scalars) if self.scalars else 'None'}")
        return "\n".join(lines) + "\n"

    def args(self, rng: np.random.Generator, n: int, dtype: str) -> list:
        dtype = "int64" if self.is_int else dtype

        def values(shape):
            if dtype.startswith("int"):
                return rng.integers(-9, 10, size=shape).astype(dtype)
            return (rng.standard_normal(shape) * 2).astype(dtype)
        A = values((n, n))
        x = values((n,))
        return [n, A, A if self.alias else values((n, n)), values((n,)), x, x if self.alias else values((n,))]


# ---- running and comparing ----------------------------------------------------------------------

def copy_aliased(args: list) -> list:
    seen: dict[int, np.ndarray] = {}
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            if id(a) not in seen:
                seen[id(a)] = a.copy()
            out.append(seen[id(a)])
        else:
            out.append(a)
    return out


def quiet(fn, args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def beyond_int64(value) -> bool:
    """A returned Python int outside int64: docs/subset.md (*Integer dtypes*) says compiled
    code holds Python int locals as int64, so such a call has no int64 answer to compare."""
    if isinstance(value, tuple):
        return any(beyond_int64(v) for v in value)
    return type(value) is int and not -2**63 <= value < 2**63


def same(expected, actual, tol: float, label: str) -> str:
    if isinstance(expected, tuple):
        if not isinstance(actual, tuple) or len(actual) != len(expected):
            return f"{label}: {type(actual).__name__} {actual!r}"
        for pos, (e, a) in enumerate(zip(expected, actual)):
            problem = same(e, a, tol, f"{label}[{pos}]")
            if problem:
                return problem
        return ""
    if isinstance(expected, np.ndarray):
        if not isinstance(actual, np.ndarray):
            return f"{label}: {type(actual).__name__}, not an array"
        if (actual.dtype, actual.shape) != (expected.dtype, expected.shape):
            return f"{label}: {actual.dtype}{actual.shape} != {expected.dtype}{expected.shape}"
        if not np.allclose(actual.astype(complex) if actual.dtype != bool else actual,
                           expected.astype(complex) if expected.dtype != bool else expected,
                           rtol=tol, atol=tol, equal_nan=True):
            return f"{label}: {actual!r} != {expected!r}"
        return ""
    if expected is None or actual is None:
        return "" if expected is actual else f"{label}: {actual!r} != {expected!r}"
    if isinstance(expected, np.generic) and type(actual) is not type(expected):
        return f"{label}: type {type(actual).__name__} != {type(expected).__name__} ({actual!r} vs {expected!r})"
    if not np.allclose(complex(actual), complex(expected), rtol=tol, atol=tol, equal_nan=True):
        return f"{label}: {actual!r} != {expected!r}"
    return ""


def run_one(fn, cases, target, knobs, tol, tally) -> str:
    saved = {name: os.environ.get(name) for name in knobs}
    os.environ.update(knobs)
    try:
        kernel = polyfuse.kernel(fn, target=target, verify=True)
        for label, args, expected in cases:
            for count in ((1, 2) if target == "cpu" else (1,)):
                threads.set_num_threads(count)
                actual = copy_aliased(args)
                try:
                    result = quiet(kernel, actual)
                except (polyfuse.UnsupportedError, ArgumentError) as exc:
                    what = f"{type(exc).__name__}: " + str(exc).splitlines()[0].split(": ", 1)[-1][:90]
                    tally["refused"][what] = tally["refused"].get(what, 0) + 1
                    if os.environ.get("REFUSED"):
                        print(f"refused {label} threads={count}: {exc}")
                    return ""
                except Exception as exc:  # noqa: BLE001 - a crash is a finding
                    return f"crash {label} threads={count}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}"
                tally["calls"] += 1
                for pos, (e, a) in enumerate(zip(expected[:-1], actual)):
                    problem = same(e, a, tol, f"argument {pos}")
                    if problem:
                        return f"wrong {label} threads={count}: {problem}"
                problem = same(expected[-1], result, tol, "return")
                if problem:
                    return f"wrong {label} threads={count}: {problem}"
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return ""


def main(argv: list[str]) -> int:
    seed, count = int(argv[0]), int(argv[1])
    family = argv[2] if len(argv) > 2 and not argv[2].startswith("--") else "both"
    use_knobs = "--knobs" in argv
    only = {int(x) for x in os.environ.get("ONLY", "").split(",") if x}
    tally = {"programs": 0, "skipped": 0, "kernels": 0, "calls": 0, "failures": 0, "refused": {}, "refused_kernels": 0}
    began = time.time()
    with threads_forced():
        for index in range(count):
            rng = random.Random(seed * 100003 + index)
            fam = family if family != "both" else rng.choice(["numpy", "loops"])
            if only and index not in only:
                continue
            gen = NumpyGen(rng) if fam == "numpy" else LoopGen(rng)
            source = gen.program()
            if os.environ.get("SHOW"):
                print(f"=== {index}\n{source}")
            try:
                fn = define(source, "kern")
            except SyntaxError:
                continue
            vals = np.random.default_rng(seed * 7 + index)
            dtypes = tuple(rng.choice(DTYPES) for _ in range(3))
            if fam == "numpy" and gen.alias:
                dtypes = (dtypes[0], dtypes[0], dtypes[2])
            tol = 2e-3 if "float32" in dtypes else 1e-8
            cases = []
            for n in rng.sample(SIZES, 3):
                args = gen.args(vals, n, rng.choice(SIZES), dtypes) if fam == "numpy" else gen.args(vals, n, dtypes[0])
                plain = copy_aliased(args)
                try:
                    expected = quiet(fn, plain)
                except Exception:  # noqa: BLE001 - the plain function raised: nothing to compare
                    continue
                if beyond_int64(expected):  # a documented divergence: compiled Python ints are int64
                    continue
                cases.append((f"n={n} dtypes={dtypes}", args, (*plain, expected)))
            if not cases:
                tally["skipped"] += 1
                continue
            tally["programs"] += 1
            for target in ("python", "cpu"):
                knobs = {}
                if use_knobs and target == "cpu":
                    knobs = {name: rng.choice(["0", "1"]) for name in rng.sample(KNOBS, rng.randint(1, 6))}
                before = sum(tally["refused"].values())
                tally["kernels"] += 1
                problem = run_one(fn, cases, target, knobs, tol, tally)
                tally["refused_kernels"] += sum(tally["refused"].values()) > before
                if problem:
                    tally["failures"] += 1
                    print(f"--- program {index} ({fam}, seed {seed}) target={target} knobs={knobs}: {problem}\n{source}",
                          flush=True)
    print(f"seed {seed}: {tally['programs']} programs ({tally['skipped']} skipped), {tally['kernels']} kernels, "
          f"{tally['calls']} calls, {tally['failures']} failures, {tally['refused_kernels']} kernels refused, "
          f"{time.time() - began:.0f} s")
    for what, n in sorted(tally["refused"].items(), key=lambda item: -item[1])[:12]:
        print(f"  {n:4d}  {what}")
    return 1 if tally["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
