"""The NumPy programs of ``polyfuse bench --section numpy``: array code as NumPy users write it.

Each program is a plain NumPy function (slices, ufuncs, reductions, in-place updates, time loops
over stencils, NN layers).  The bench runs the very same function object three ways: as it is
(NumPy), wrapped by ``polyfuse.kernel`` (only the decorator differs), and with ``jax.jit`` where
JAX is installed, the function rebuilt with ``np`` bound to ``jax.numpy``
(:func:`with_numpy_namespace`).  Programs that write array elements in place cannot run on JAX,
whose arrays are immutable; :func:`jax_blocker` says so, and the section shows "n/a".

:data:`PROGRAMS` compile today.  :data:`PENDING` need constructs the frontend is gaining: the
section compiles them too and, where the frontend refuses one, shows "not yet compiled: <the
error>", so each turns into a timed row the day its construct lands.

Sizes come per preset as in polyfuse.bench.suite ("test" tiny for the tests, "quick", "bench")
plus "large": PolyBench's LARGE grid sizes for the stencils (with fewer time steps than
PolyBench's 500, so that one NumPy run stays near a second) and arrays of tens of MiB for the
layers.
"""

from __future__ import annotations

import ast
import inspect
import math
import textwrap
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

NUMPY_PRESETS = ("test", "quick", "bench", "large")


@dataclass(frozen=True)
class NumpyProgram:
    """One NumPy function and how to make its inputs at each preset."""

    name: str
    func: Callable[..., Any]
    make_args: Callable[..., tuple]  # (rng, **sizes) -> the positional arguments of func
    sizes: Mapping[str, Mapping[str, int]] = field(compare=False)  # preset -> keyword sizes
    description: str = ""
    needs: str = ""  # PENDING only: the construct the frontend must accept first

    def args(self, preset: str, seed: int = 0) -> tuple:
        """Inputs at ``preset``, from a generator seeded with ``seed``."""
        return self.make_args(np.random.default_rng(seed), **self.sizes[preset])


# ---------------------------------------------------------------------------
# Programs that compile today
# ---------------------------------------------------------------------------

def softmax(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def layernorm(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * gamma + beta


def rmsnorm_silu(x, w):
    h = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-6) * w
    return h / (1.0 + np.exp(-h))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def add_relu_sigmoid(a, b):
    return 1.0 / (1.0 + np.exp(-np.maximum(a + b, 0.0)))


def standardize_columns(X):
    mu = X.mean(axis=0)
    xc = X - mu
    return xc / (np.sqrt((xc * xc).mean(axis=0)) + 1e-8)


def l2_normalize_rows(X):
    return X / np.sqrt((X * X).sum(axis=1, keepdims=True) + 1e-12)


def blur9(img):
    return (img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:]
            + img[1:-1, :-2] + img[1:-1, 1:-1] + img[1:-1, 2:]
            + img[2:, :-2] + img[2:, 1:-1] + img[2:, 2:]) / 9.0


def hdiff(inp, coeff):
    lap = 4.0 * inp[1:-1, 1:-1] - (inp[2:, 1:-1] + inp[:-2, 1:-1] + inp[1:-1, 2:] + inp[1:-1, :-2])
    flx = lap[1:, 1:-1] - lap[:-1, 1:-1]
    fly = lap[1:-1, 1:] - lap[1:-1, :-1]
    return inp[2:-2, 2:-2] - coeff[2:-2, 2:-2] * (flx[1:, :] - flx[:-1, :] + fly[:, 1:] - fly[:, :-1])


def mean_std(x):
    mu = x.mean()
    return mu, np.sqrt(((x - mu) ** 2).mean())


def jacobi_1d(A, B, tsteps):
    for _ in range(tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


def jacobi_2d(A, B, tsteps):
    for _ in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def heat_3d(A, B, tsteps):
    for _ in range(tsteps):
        B[1:-1, 1:-1, 1:-1] = (
            0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1])
            + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1])
            + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, :-2])
            + A[1:-1, 1:-1, 1:-1]
        )
        A[1:-1, 1:-1, 1:-1] = (
            0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1])
            + 0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1])
            + 0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, :-2])
            + B[1:-1, 1:-1, 1:-1]
        )


def fdtd_2d(ex, ey, hz, fict):
    for t in range(fict.shape[0]):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def adam_step(w, g, m, v, lr, beta1, beta2, eps):
    m[:] = beta1 * m + (1.0 - beta1) * g
    v[:] = beta2 * v + (1.0 - beta2) * g * g
    w -= lr * m / (np.sqrt(v) + eps)


# ---------------------------------------------------------------------------
# Programs waiting for the frontend (matrix products, .T, clip, astype, axis tuples)
# ---------------------------------------------------------------------------

def gemm(alpha, beta, A, B, C):
    return alpha * A @ B + beta * C


def mlp(x, W1, b1, W2):
    return np.maximum(x @ W1 + b1, 0.0) @ W2


def attention(Q, K, V):
    S = Q @ K.T * (1.0 / math.sqrt(Q.shape[1]))
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    return (P / P.sum(axis=-1, keepdims=True)) @ V


def atax(A, x):
    return A.T @ (A @ x)


def gesummv(alpha, beta, A, B, x):
    return alpha * np.dot(A, x) + beta * np.dot(B, x)


def clip_grad(g, w, lr):
    return w - lr * np.clip(g, -1.0, 1.0)


def quantize_int8(x, scale):
    return np.clip(np.rint(x / scale), -127.0, 127.0).astype(np.int8)


def instance_norm(x):
    mu = x.mean(axis=(1, 2), keepdims=True)
    var = ((x - mu) ** 2).mean(axis=(1, 2), keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5)


# ---------------------------------------------------------------------------
# Inputs and registry
# ---------------------------------------------------------------------------

def _rows(rng, rows, cols):
    return (rng.standard_normal((rows, cols)),)


def _layernorm_args(rng, rows, cols):
    return (rng.standard_normal((rows, cols)), rng.random(cols) + 0.5, rng.standard_normal(cols))


def _rmsnorm_args(rng, rows, cols):
    return (rng.standard_normal((rows, cols)), rng.random(cols) + 0.5)


def _vector(rng, n):
    return (rng.standard_normal(n),)


def _two_vectors(rng, n):
    return (rng.standard_normal(n), rng.standard_normal(n))


def _image(rng, n, m):
    return (rng.random((n, m)),)


def _hdiff_args(rng, n, m):
    return (rng.random((n, m)), rng.random((n, m)) * 0.1)


def _jacobi_1d_args(rng, n, tsteps):
    return (rng.random(n), rng.random(n), tsteps)


def _jacobi_2d_args(rng, n, tsteps):
    return (rng.random((n, n)), rng.random((n, n)), tsteps)


def _heat_3d_args(rng, n, tsteps):
    return (rng.random((n, n, n)), rng.random((n, n, n)), tsteps)


def _fdtd_2d_args(rng, nx, ny, tmax):
    return (rng.random((nx, ny)), rng.random((nx, ny)), rng.random((nx, ny)), rng.random(tmax))


def _adam_args(rng, n):
    return (rng.standard_normal(n), rng.standard_normal(n), rng.standard_normal(n) * 0.1, rng.random(n) * 0.1,
            1e-3, 0.9, 0.999, 1e-8)


def _gemm_args(rng, ni, nj, nk):
    return (1.5, 1.2, rng.random((ni, nk)), rng.random((nk, nj)), rng.random((ni, nj)))


def _mlp_args(rng, n, d, h, o):
    return (rng.standard_normal((n, d)), rng.standard_normal((d, h)) / math.sqrt(d), rng.standard_normal(h),
            rng.standard_normal((h, o)) / math.sqrt(h))


def _attention_args(rng, nq, nk, d):
    return (rng.standard_normal((nq, d)), rng.standard_normal((nk, d)), rng.standard_normal((nk, d)))


def _atax_args(rng, m, n):
    return (rng.random((m, n)) / m, 1.0 + rng.random(n))


def _gesummv_args(rng, n):
    return (1.5, 1.2, rng.random((n, n)), rng.random((n, n)), rng.random(n))


def _clip_args(rng, n):
    return (rng.standard_normal(n) * 2.0, rng.standard_normal(n), 1e-2)


def _quantize_args(rng, n):
    return (rng.standard_normal(n), 0.02)


def _instance_norm_args(rng, c, h, w):
    return (rng.standard_normal((c, h, w)),)


def _p(test: dict[str, int], quick: dict[str, int], bench: dict[str, int],
       large: dict[str, int]) -> dict[str, dict[str, int]]:
    return {"test": test, "quick": quick, "bench": bench, "large": large}


_ROWS = _p(dict(rows=5, cols=7), dict(rows=300, cols=500), dict(rows=1500, cols=2500),
           dict(rows=4000, cols=4000))
_VEC = _p(dict(n=13), dict(n=100_000), dict(n=2_000_000), dict(n=16_000_000))
_IMG = _p(dict(n=9, m=11), dict(n=400, m=500), dict(n=2000, m=2400), dict(n=4000, m=4000))


def _registry(*programs: NumpyProgram) -> dict[str, NumpyProgram]:
    return {p.name: p for p in programs}


PROGRAMS: dict[str, NumpyProgram] = _registry(
    NumpyProgram("softmax", softmax, _rows, _ROWS, "row softmax: max, exp, sum, divide"),
    NumpyProgram("log_softmax", log_softmax, _rows, _ROWS, "row log-softmax (log-sum-exp)"),
    NumpyProgram("layernorm", layernorm, _layernorm_args, _ROWS, "layer norm over the last axis, affine"),
    NumpyProgram("rmsnorm_silu", rmsnorm_silu, _rmsnorm_args, _ROWS, "RMSNorm, then SiLU"),
    NumpyProgram("gelu_tanh", gelu_tanh, _vector, _VEC, "GELU, tanh form: one elementwise chain"),
    NumpyProgram("add_relu_sigmoid", add_relu_sigmoid, _two_vectors, _VEC, "add, relu, sigmoid"),
    NumpyProgram("standardize_cols", standardize_columns, _rows, _ROWS,
                 "column mean and standard deviation, then normalize"),
    NumpyProgram("l2_normalize_rows", l2_normalize_rows, _rows, _ROWS, "rows scaled to unit length"),
    NumpyProgram("mean_std", mean_std, _vector, _VEC, "two full reductions returned as a tuple"),
    NumpyProgram("blur9", blur9, _image, _IMG, "3x3 box blur as nine shifted slices"),
    NumpyProgram("hdiff", hdiff, _hdiff_args, _IMG, "horizontal diffusion (COSMO): Laplacian, fluxes"),
    NumpyProgram("jacobi_1d", jacobi_1d, _jacobi_1d_args,
                 _p(dict(n=12, tsteps=3), dict(n=100_000, tsteps=20), dict(n=1_000_000, tsteps=50),
                    dict(n=4_000_000, tsteps=100)),
                 "1-D Jacobi, time loop over slices"),
    NumpyProgram("jacobi_2d", jacobi_2d, _jacobi_2d_args,
                 _p(dict(n=10, tsteps=3), dict(n=400, tsteps=20), dict(n=1300, tsteps=20),
                    dict(n=1300, tsteps=100)),
                 "2-D Jacobi, time loop over slices"),
    NumpyProgram("heat_3d", heat_3d, _heat_3d_args,
                 _p(dict(n=7, tsteps=2), dict(n=50, tsteps=20), dict(n=120, tsteps=20),
                    dict(n=120, tsteps=100)),
                 "3-D heat equation, time loop over slices"),
    NumpyProgram("fdtd_2d", fdtd_2d, _fdtd_2d_args,
                 _p(dict(nx=8, ny=10, tmax=3), dict(nx=200, ny=240, tmax=20), dict(nx=1000, ny=1200, tmax=20),
                    dict(nx=1000, ny=1200, tmax=100)),
                 "2-D FDTD: in-place slice updates in a time loop"),
    NumpyProgram("adam_step", adam_step, _adam_args, _VEC, "Adam optimizer step: in-place updates"),
    NumpyProgram("gemm", gemm, _gemm_args,
                 _p(dict(ni=7, nj=9, nk=8), dict(ni=200, nj=220, nk=240), dict(ni=800, nj=900, nk=1000),
                    dict(ni=1000, nj=1100, nk=1200)),
                 "alpha * A @ B + beta * C"),
    NumpyProgram("mlp", mlp, _mlp_args,
                 _p(dict(n=6, d=5, h=7, o=3), dict(n=256, d=128, h=256, o=64),
                    dict(n=1024, d=512, h=1024, o=256), dict(n=4096, d=1024, h=2048, o=512)),
                 "two-layer MLP: relu(x @ W1 + b1) @ W2"),
    NumpyProgram("atax", atax, _atax_args,
                 _p(dict(m=7, n=9), dict(m=380, n=420), dict(m=2800, n=3200), dict(m=1900, n=2100)),
                 "A.T @ (A @ x)"),
    NumpyProgram("gesummv", gesummv, _gesummv_args,
                 _p(dict(n=11), dict(n=300), dict(n=1900), dict(n=2800)),
                 "alpha * A.x + beta * B.x with np.dot"),
    NumpyProgram("clip_grad", clip_grad, _clip_args, _VEC, "SGD step with a clipped gradient"),
    NumpyProgram("quantize_int8", quantize_int8, _quantize_args, _VEC, "scale, round, clip, cast to int8"),
    NumpyProgram("instance_norm", instance_norm, _instance_norm_args,
                 _p(dict(c=3, h=5, w=6), dict(c=16, h=64, w=64), dict(c=64, h=128, w=128),
                    dict(c=128, h=256, w=256)),
                 "instance norm: mean and variance over axis=(1, 2)"),
    NumpyProgram("attention", attention, _attention_args,
                 _p(dict(nq=6, nk=7, d=4), dict(nq=256, nk=320, d=32), dict(nq=1024, nk=1100, d=64),
                    dict(nq=2048, nk=2048, d=128)),
                 "softmax(Q @ K.T / sqrt(d)) @ V"),
)

PENDING: dict[str, NumpyProgram] = _registry(
)


def all_programs() -> dict[str, NumpyProgram]:
    """:data:`PROGRAMS` then :data:`PENDING`, by name."""
    return {**PROGRAMS, **PENDING}


# ---------------------------------------------------------------------------
# The JAX variant
# ---------------------------------------------------------------------------

def jax_blocker(func: Callable[..., Any]) -> str:
    """Why ``func`` cannot run under ``jax.jit`` unchanged ("" when it can): JAX arrays are
    immutable, so a program that assigns to array elements or updates an argument with ``op=``
    (which NumPy does in place and JAX would only rebind) has no JAX form without rewriting."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    params = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
            if isinstance(node.target, ast.Name) and node.target.id in params:
                return f"updates argument {node.target.id} in place (line {node.lineno}: {ast.unparse(node)})"
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Subscript):
                return f"writes array elements in place (line {node.lineno}: {ast.unparse(target)} = ...)"
    return ""


def with_numpy_namespace(func: Callable[..., Any], numpy_module: types.ModuleType) -> Callable[..., Any]:
    """``func`` with the global name ``np`` bound to ``numpy_module`` (e.g. ``jax.numpy``): the same
    code object, so the JAX row runs exactly the source that NumPy and polyfuse run."""
    namespace = dict(func.__globals__)
    namespace["np"] = numpy_module
    rebuilt = types.FunctionType(func.__code__, namespace, func.__name__, func.__defaults__, func.__closure__)
    rebuilt.__kwdefaults__ = func.__kwdefaults__
    return rebuilt
