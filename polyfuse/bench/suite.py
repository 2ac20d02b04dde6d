"""Embedded kernel suite for polyfuse tests and ``polyfuse bench``.

Every kernel is a plain Python loop function written in the restricted
polyhedral subset accepted by the compiler (affine ``for``/``range`` loops,
affine ``if``, array-element and scalar assignments, kernel-local arrays made
with ``np.empty``/``np.zeros``, math calls).  Kernels mutate their array
arguments in place and return ``None``.

PolyBench/C 4.2 kernels keep the reference loop structure and float64
semantics; their array/int parameters follow PolyBench naming where possible.
The "fusion" kernels are small ML-style operator chains written as separate
loop nests so that a fusing optimizer has something to do.

``make_args(rng, **sizes)`` builds the positional argument tuple for ``func``
from a size preset (``sizes["test"]``, ``sizes["quick"]``, ``sizes["bench"]``).
"""

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class SuiteKernel:
    """One benchmark/test kernel: a plain Python loop function plus how to make its inputs."""

    name: str
    func: Callable
    make_args: Callable[..., tuple]
    sizes: Mapping[str, Mapping[str, int]]
    outputs: tuple[str, ...]
    category: str
    description: str
    #: Optional natural numpy formulation of the same computation (None: no natural one).  It takes
    #: the same positional arguments as ``func`` and writes every array named in ``outputs`` in
    #: place, like ``func``; it may instead return them (a dict by name, a tuple in the order of
    #: ``outputs``, or the one array when there is one output).  ``polyfuse bench`` times it and
    #: checks its outputs against numba's; see ``numpy_outputs``.
    numpy_func: Callable | None = None


KERNELS: dict[str, SuiteKernel] = {}


def _register(name: str, func: Callable, make_args: Callable[..., tuple],
              sizes: Mapping[str, Mapping[str, int]], outputs: Sequence[str], category: str,
              description: str) -> None:
    KERNELS[name] = SuiteKernel(
        name=name,
        func=func,
        make_args=make_args,
        sizes={k: dict(_LARGE[name] if k == "large" and name in _LARGE else v) for k, v in sizes.items()},
        outputs=tuple(outputs),
        category=category,
        description=description,
    )


def get(name: str) -> SuiteKernel:
    """Return the kernel called ``name`` (KeyError listing known names otherwise)."""
    try:
        return KERNELS[name]
    except KeyError:
        raise KeyError(f"unknown suite kernel {name!r}; known: {', '.join(KERNELS)}") from None


def names(category: str | None = None) -> list[str]:
    """Kernel names in stable order, optionally restricted to one category."""
    return [n for n, k in KERNELS.items() if category is None or k.category == category]


def _f64(a):
    return np.ascontiguousarray(a, dtype=np.float64)


# ---------------------------------------------------------------------------
# PolyBench: linear algebra kernels / BLAS
# ---------------------------------------------------------------------------

def gemm(ni, nj, nk, alpha, beta, C, A, B):
    """C = alpha*A*B + beta*C."""
    for i in range(ni):
        for j in range(nj):
            C[i, j] *= beta
        for k in range(nk):
            for j in range(nj):
                C[i, j] += alpha * A[i, k] * B[k, j]


def _gemm_args(rng, ni, nj, nk):
    return (ni, nj, nk, 1.5, 1.2,
            _f64(rng.random((ni, nj))), _f64(rng.random((ni, nk))), _f64(rng.random((nk, nj))))


def k2mm(ni, nj, nk, nl, alpha, beta, tmp, A, B, C, D):
    """D = alpha*A*B*C + beta*D (two chained matrix products)."""
    for i in range(ni):
        for j in range(nj):
            tmp[i, j] = 0.0
            for k in range(nk):
                tmp[i, j] += alpha * A[i, k] * B[k, j]
    for i in range(ni):
        for j in range(nl):
            D[i, j] *= beta
            for k in range(nj):
                D[i, j] += tmp[i, k] * C[k, j]


def _2mm_args(rng, ni, nj, nk, nl):
    return (ni, nj, nk, nl, 1.5, 1.2,
            _f64(rng.random((ni, nj))), _f64(rng.random((ni, nk))), _f64(rng.random((nk, nj))),
            _f64(rng.random((nj, nl))), _f64(rng.random((ni, nl))))


def k3mm(ni, nj, nk, nl, nm, E, A, B, F, C, D, G):
    """G = (A*B)*(C*D) (three matrix products)."""
    for i in range(ni):
        for j in range(nj):
            E[i, j] = 0.0
            for k in range(nk):
                E[i, j] += A[i, k] * B[k, j]
    for i in range(nj):
        for j in range(nl):
            F[i, j] = 0.0
            for k in range(nm):
                F[i, j] += C[i, k] * D[k, j]
    for i in range(ni):
        for j in range(nl):
            G[i, j] = 0.0
            for k in range(nj):
                G[i, j] += E[i, k] * F[k, j]


def _3mm_args(rng, ni, nj, nk, nl, nm):
    return (ni, nj, nk, nl, nm,
            _f64(rng.random((ni, nj))), _f64(rng.random((ni, nk))) / 5, _f64(rng.random((nk, nj))) / 5,
            _f64(rng.random((nj, nl))), _f64(rng.random((nj, nm))) / 5, _f64(rng.random((nm, nl))) / 5,
            _f64(rng.random((ni, nl))))


def atax(m, n, A, x, y, tmp):
    """y = A^T (A x)."""
    for i in range(n):
        y[i] = 0.0
    for i in range(m):
        tmp[i] = 0.0
        for j in range(n):
            tmp[i] += A[i, j] * x[j]
        for j in range(n):
            y[j] += A[i, j] * tmp[i]


def _atax_args(rng, m, n):
    return (m, n, _f64(rng.random((m, n))) / m, _f64(1.0 + rng.random(n)),
            _f64(rng.random(n)), _f64(rng.random(m)))


def bicg(m, n, A, s, q, p, r):
    """BiCG sub-kernel: s = A^T r, q = A p."""
    for i in range(m):
        s[i] = 0.0
    for i in range(n):
        q[i] = 0.0
        for j in range(m):
            s[j] += r[i] * A[i, j]
            q[i] += A[i, j] * p[j]


def _bicg_args(rng, m, n):
    return (m, n, _f64(rng.random((n, m))), _f64(rng.random(m)), _f64(rng.random(n)),
            _f64(rng.random(m)), _f64(rng.random(n)))


def mvt(x1, x2, y1, y2, A):
    """x1 += A y1, x2 += A^T y2 (sizes taken from A.shape)."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            x1[i] += A[i, j] * y1[j]
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            x2[i] += A[j, i] * y2[j]


def _mvt_args(rng, n):
    return (_f64(rng.random(n)), _f64(rng.random(n)), _f64(rng.random(n)), _f64(rng.random(n)),
            _f64(rng.random((n, n))) / n)


def gemver(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    """Rank-2 update of A followed by two matrix-vector products."""
    for i in range(n):
        for j in range(n):
            A[i, j] = A[i, j] + u1[i] * v1[j] + u2[i] * v2[j]
    for i in range(n):
        for j in range(n):
            x[i] = x[i] + beta * A[j, i] * y[j]
    for i in range(n):
        x[i] = x[i] + z[i]
    for i in range(n):
        for j in range(n):
            w[i] = w[i] + alpha * A[i, j] * x[j]


def _gemver_args(rng, n):
    v = lambda: _f64(rng.random(n))  # noqa: E731
    return (n, 1.5, 1.2, _f64(rng.random((n, n))) / n,
            v(), v() / n, v(), v() / n, v(), v(), v() / n, v())


def gesummv(n, alpha, beta, A, B, tmp, x, y):
    """y = alpha*A x + beta*B x."""
    for i in range(n):
        tmp[i] = 0.0
        y[i] = 0.0
        for j in range(n):
            tmp[i] = A[i, j] * x[j] + tmp[i]
            y[i] = B[i, j] * x[j] + y[i]
        y[i] = alpha * tmp[i] + beta * y[i]


def _gesummv_args(rng, n):
    return (n, 1.5, 1.2, _f64(rng.random((n, n))), _f64(rng.random((n, n))),
            _f64(rng.random(n)), _f64(rng.random(n)), _f64(rng.random(n)))


def syrk(n, m, alpha, beta, C, A):
    """Symmetric rank-k update of the lower triangle: C = alpha*A*A^T + beta*C."""
    for i in range(n):
        for j in range(i + 1):
            C[i, j] *= beta
        for k in range(m):
            for j in range(i + 1):
                C[i, j] += alpha * A[i, k] * A[j, k]


def _syrk_args(rng, n, m):
    return (n, m, 1.5, 1.2, _f64(rng.random((n, n))), _f64(rng.random((n, m))))


def syr2k(n, m, alpha, beta, C, A, B):
    """Symmetric rank-2k update of the lower triangle."""
    for i in range(n):
        for j in range(i + 1):
            C[i, j] *= beta
        for k in range(m):
            for j in range(i + 1):
                C[i, j] += A[j, k] * alpha * B[i, k] + B[j, k] * alpha * A[i, k]


def _syr2k_args(rng, n, m):
    return (n, m, 1.5, 1.2, _f64(rng.random((n, n))),
            _f64(rng.random((n, m))), _f64(rng.random((n, m))))


def trmm(m, n, alpha, A, B):
    """B = alpha * A^T B with A unit lower triangular (PolyBench 4.2 loop order)."""
    for i in range(m):
        for j in range(n):
            for k in range(i + 1, m):
                B[i, j] += A[k, i] * B[k, j]
            B[i, j] = alpha * B[i, j]


def _trmm_args(rng, m, n):
    return (m, n, 1.5, _f64(rng.random((m, m))) / m, _f64(rng.random((m, n))))


def symm(m, n, alpha, beta, C, A, B):
    """C = alpha*A*B + beta*C with A symmetric (lower triangle stored)."""
    for i in range(m):
        for j in range(n):
            temp2 = 0.0
            for k in range(i):
                C[k, j] += alpha * B[i, j] * A[i, k]
                temp2 += B[k, j] * A[i, k]
            C[i, j] = beta * C[i, j] + alpha * B[i, j] * A[i, i] + alpha * temp2


def _symm_args(rng, m, n):
    return (m, n, 1.5, 1.2, _f64(rng.random((m, n))), _f64(rng.random((m, m))) / m,
            _f64(rng.random((m, n))))


def doitgen(A, C4):
    """Multi-resolution analysis kernel: A[r,q,:] = A[r,q,:] @ C4 (sizes from shapes)."""
    acc = np.zeros((A.shape[2],))
    for r in range(A.shape[0]):
        for q in range(A.shape[1]):
            for p in range(A.shape[2]):
                acc[p] = 0.0
                for s in range(A.shape[2]):
                    acc[p] += A[r, q, s] * C4[s, p]
            for p in range(A.shape[2]):
                A[r, q, p] = acc[p]


def _doitgen_args(rng, nr, nq, np_):
    return (_f64(rng.random((nr, nq, np_))), _f64(rng.random((np_, np_))) / np_)


# ---------------------------------------------------------------------------
# PolyBench: data mining
# ---------------------------------------------------------------------------

def covariance(m, n, float_n, data, cov, mean):
    """Covariance matrix of the m columns of data (n x m); data is centred in place."""
    for j in range(m):
        mean[j] = 0.0
        for i in range(n):
            mean[j] += data[i, j]
        mean[j] /= float_n
    for i in range(n):
        for j in range(m):
            data[i, j] -= mean[j]
    for i in range(m):
        for j in range(i, m):
            cov[i, j] = 0.0
            for k in range(n):
                cov[i, j] += data[k, i] * data[k, j]
            cov[i, j] /= float_n - 1.0
            cov[j, i] = cov[i, j]


def _covariance_args(rng, m, n):
    return (m, n, float(n), _f64(rng.random((n, m))), _f64(rng.random((m, m))), _f64(rng.random(m)))


def correlation(m, n, float_n, data, corr, mean, stddev):
    """Pearson correlation matrix of the m columns of data (n x m)."""
    for j in range(m):
        mean[j] = 0.0
        for i in range(n):
            mean[j] += data[i, j]
        mean[j] /= float_n
    for j in range(m):
        stddev[j] = 0.0
        for i in range(n):
            stddev[j] += (data[i, j] - mean[j]) * (data[i, j] - mean[j])
        stddev[j] /= float_n
        stddev[j] = math.sqrt(stddev[j])
        stddev[j] = 1.0 if stddev[j] <= 0.1 else stddev[j]
    for i in range(n):
        for j in range(m):
            data[i, j] -= mean[j]
            data[i, j] /= math.sqrt(float_n) * stddev[j]
    for i in range(m - 1):
        corr[i, i] = 1.0
        for j in range(i + 1, m):
            corr[i, j] = 0.0
            for k in range(n):
                corr[i, j] += data[k, i] * data[k, j]
            corr[j, i] = corr[i, j]
    corr[m - 1, m - 1] = 1.0


def _correlation_args(rng, m, n):
    # Column scales vary so some columns fall under the eps=0.1 stddev guard.
    scale = np.linspace(0.05, 2.0, m)
    data = rng.random((n, m)) * scale + np.arange(m) * 0.01
    return (m, n, float(n), _f64(data), _f64(rng.random((m, m))), _f64(rng.random(m)),
            _f64(rng.random(m)))


# ---------------------------------------------------------------------------
# PolyBench: stencils
# ---------------------------------------------------------------------------

def jacobi_1d(tsteps, n, A, B):
    """1-D Jacobi 3-point stencil, ping-pong between A and B."""
    for t in range(tsteps):
        for i in range(1, n - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, n - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])


def _jacobi_1d_args(rng, tsteps, n):
    return (tsteps, n, _f64(rng.random(n)), _f64(rng.random(n)))


def jacobi_2d(tsteps, n, A, B):
    """2-D Jacobi 5-point stencil, ping-pong between A and B."""
    for t in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = 0.2 * (B[i, j] + B[i, j - 1] + B[i, j + 1] + B[i + 1, j] + B[i - 1, j])


def _jacobi_2d_args(rng, tsteps, n):
    return (tsteps, n, _f64(rng.random((n, n))), _f64(rng.random((n, n))))


def heat_3d(tsteps, n, A, B):
    """3-D heat equation, 7-point stencil, ping-pong between A and B."""
    for t in range(1, tsteps + 1):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    B[i, j, k] = (0.125 * (A[i + 1, j, k] - 2.0 * A[i, j, k] + A[i - 1, j, k])
                                  + 0.125 * (A[i, j + 1, k] - 2.0 * A[i, j, k] + A[i, j - 1, k])
                                  + 0.125 * (A[i, j, k + 1] - 2.0 * A[i, j, k] + A[i, j, k - 1])
                                  + A[i, j, k])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    A[i, j, k] = (0.125 * (B[i + 1, j, k] - 2.0 * B[i, j, k] + B[i - 1, j, k])
                                  + 0.125 * (B[i, j + 1, k] - 2.0 * B[i, j, k] + B[i, j - 1, k])
                                  + 0.125 * (B[i, j, k + 1] - 2.0 * B[i, j, k] + B[i, j, k - 1])
                                  + B[i, j, k])


def _heat_3d_args(rng, tsteps, n):
    return (tsteps, n, _f64(rng.random((n, n, n))), _f64(rng.random((n, n, n))))


def fdtd_2d(tmax, nx, ny, ex, ey, hz, fict):
    """2-D finite-difference time-domain kernel (E and H field updates)."""
    for t in range(tmax):
        for j in range(ny):
            ey[0, j] = fict[t]
        for i in range(1, nx):
            for j in range(ny):
                ey[i, j] = ey[i, j] - 0.5 * (hz[i, j] - hz[i - 1, j])
        for i in range(nx):
            for j in range(1, ny):
                ex[i, j] = ex[i, j] - 0.5 * (hz[i, j] - hz[i, j - 1])
        for i in range(nx - 1):
            for j in range(ny - 1):
                hz[i, j] = hz[i, j] - 0.7 * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])


def _fdtd_2d_args(rng, tmax, nx, ny):
    i = np.arange(nx, dtype=np.float64)[:, None]
    j = np.arange(ny, dtype=np.float64)[None, :]
    return (tmax, nx, ny, _f64(i * (j + 1) / nx), _f64(i * (j + 2) / ny), _f64(i * (j + 3) / nx),
            _f64(np.arange(tmax, dtype=np.float64)))


def seidel_2d(tsteps, n, A):
    """2-D Gauss-Seidel 9-point stencil, updated in place."""
    for t in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1]
                           + A[i, j - 1] + A[i, j] + A[i, j + 1]
                           + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1]) / 9.0


def _seidel_2d_args(rng, tsteps, n):
    return (tsteps, n, _f64(rng.random((n, n))))


# ---------------------------------------------------------------------------
# PolyBench: linear algebra solvers / medley
# ---------------------------------------------------------------------------

def lu(n, A):
    """In-place LU decomposition without pivoting (Doolittle)."""
    for i in range(n):
        for j in range(i):
            for k in range(j):
                A[i, j] -= A[i, k] * A[k, j]
            A[i, j] /= A[j, j]
        for j in range(i, n):
            for k in range(i):
                A[i, j] -= A[i, k] * A[k, j]


def _lu_args(rng, n):
    return (n, _f64(rng.random((n, n)) + n * np.eye(n)))


def cholesky(n, A):
    """In-place Cholesky factorisation of the lower triangle of an SPD matrix."""
    for i in range(n):
        for j in range(i):
            for k in range(j):
                A[i, j] -= A[i, k] * A[j, k]
            A[i, j] /= A[j, j]
        for k in range(i):
            A[i, i] -= A[i, k] * A[i, k]
        A[i, i] = math.sqrt(A[i, i])


def _cholesky_args(rng, n):
    M = rng.random((n, n))
    return (n, _f64(M @ M.T / n + np.eye(n)))


def floyd_warshall(n, paths):
    """All-pairs shortest path lengths, updated in place."""
    for k in range(n):
        for i in range(n):
            for j in range(n):
                paths[i, j] = (paths[i, j] if paths[i, j] < paths[i, k] + paths[k, j]
                               else paths[i, k] + paths[k, j])


def _floyd_warshall_args(rng, n):
    paths = 1.0 + 99.0 * rng.random((n, n))
    np.fill_diagonal(paths, 0.0)
    return (n, _f64(paths))


# ---------------------------------------------------------------------------
# Fusion: small operator chains written as separate loop nests
# ---------------------------------------------------------------------------

def chain3(A, B, out):
    """out = sigmoid(relu(A + B)) as three elementwise loops through local temporaries."""
    T1 = np.empty((A.shape[0],))
    T2 = np.empty((A.shape[0],))
    for i in range(A.shape[0]):
        T1[i] = A[i] + B[i]
    for i in range(A.shape[0]):
        T2[i] = max(T1[i], 0.0)
    for i in range(A.shape[0]):
        out[i] = 1.0 / (1.0 + math.exp(-T2[i]))


def _chain3_args(rng, n):
    return (_f64(rng.random(n) * 4.0 - 2.0), _f64(rng.random(n) * 2.0 - 1.0), _f64(rng.random(n)))


def matmul_bias_relu(A, B, bias, out):
    """out = relu(A @ B + bias): scalar-accumulator matmul into a local C, then bias+relu."""
    C = np.empty((A.shape[0], B.shape[1]))
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            acc = 0.0
            for k in range(A.shape[1]):
                acc += A[i, k] * B[k, j]
            C[i, j] = acc
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            out[i, j] = max(C[i, j] + bias[j], 0.0)


def _matmul_bias_relu_args(rng, ni, nk, nj):
    return (_f64(rng.random((ni, nk)) - 0.5), _f64(rng.random((nk, nj)) - 0.5),
            _f64(rng.random(nj) - 0.5), _f64(rng.random((ni, nj))))


def softmax(X, out):
    """Row-wise softmax: row max, exp-and-sum, normalise (three loops per row)."""
    for i in range(X.shape[0]):
        m = X[i, 0]
        for j in range(1, X.shape[1]):
            m = max(m, X[i, j])
        s = 0.0
        for j in range(X.shape[1]):
            e = math.exp(X[i, j] - m)
            out[i, j] = e
            s += e
        for j in range(X.shape[1]):
            out[i, j] = out[i, j] / s


def _softmax_args(rng, rows, cols):
    return (_f64(rng.standard_normal((rows, cols)) * 3.0), _f64(rng.random((rows, cols))))


def conv_bn_relu(nb, ci, co, h, w, eps, x, wt, mean, var, gamma, beta, out):
    """3x3 valid NCHW convolution, per-channel batch-norm affine, then relu (separate nests)."""
    Y = np.empty((nb, co, h - 2, w - 2))
    Z = np.empty((nb, co, h - 2, w - 2))
    for b in range(nb):
        for k in range(co):
            for i in range(h - 2):
                for j in range(w - 2):
                    Y[b, k, i, j] = 0.0
                    for c in range(ci):
                        for di in range(3):
                            for dj in range(3):
                                Y[b, k, i, j] += x[b, c, i + di, j + dj] * wt[k, c, di, dj]
    for b in range(nb):
        for k in range(co):
            for i in range(h - 2):
                for j in range(w - 2):
                    Z[b, k, i, j] = (Y[b, k, i, j] - mean[k]) / math.sqrt(var[k] + eps) * gamma[k] + beta[k]
    for b in range(nb):
        for k in range(co):
            for i in range(h - 2):
                for j in range(w - 2):
                    out[b, k, i, j] = max(Z[b, k, i, j], 0.0)


def _conv_bn_relu_args(rng, nb, ci, co, h, w):
    return (nb, ci, co, h, w, 1e-5,
            _f64(rng.random((nb, ci, h, w)) - 0.5), _f64((rng.random((co, ci, 3, 3)) - 0.5) / ci),
            _f64((rng.random(co) - 0.5) * 0.1), _f64(0.5 + rng.random(co)),
            _f64(0.5 + rng.random(co)), _f64(rng.random(co) - 0.5),
            _f64(rng.random((nb, co, h - 2, w - 2))))


def attention_rows(scale, Q, K, V, O):
    """O = softmax(Q K^T * scale) V with S and P as kernel-local arrays."""
    S = np.empty((Q.shape[0], K.shape[0]))
    P = np.empty((Q.shape[0], K.shape[0]))
    for i in range(Q.shape[0]):
        for j in range(K.shape[0]):
            acc = 0.0
            for d in range(Q.shape[1]):
                acc += Q[i, d] * K[j, d]
            S[i, j] = acc * scale
    for i in range(Q.shape[0]):
        m = S[i, 0]
        for j in range(1, K.shape[0]):
            m = max(m, S[i, j])
        s = 0.0
        for j in range(K.shape[0]):
            P[i, j] = math.exp(S[i, j] - m)
            s += P[i, j]
        for j in range(K.shape[0]):
            P[i, j] = P[i, j] / s
    for i in range(Q.shape[0]):
        for v in range(V.shape[1]):
            O[i, v] = 0.0
            for j in range(K.shape[0]):
                O[i, v] += P[i, j] * V[j, v]


def _attention_rows_args(rng, nq, nk, d, dv):
    return (1.0 / math.sqrt(d), _f64(rng.standard_normal((nq, d))), _f64(rng.standard_normal((nk, d))),
            _f64(rng.standard_normal((nk, dv))), _f64(rng.random((nq, dv))))


# ---------------------------------------------------------------------------
# Registry (stable order: PolyBench in PolyBench's own grouping, then fusion)
# ---------------------------------------------------------------------------

def _s(test: dict[str, int], quick: dict[str, int], bench: dict[str, int],
       large: dict[str, int] | None = None) -> dict[str, dict[str, int]]:
    """Sizes per preset; "large" is PolyBench 4.2's LARGE dataset where the kernel is PolyBench's
    (the fusion kernels keep their bench sizes there)."""
    return {"test": test, "quick": quick, "bench": bench, "large": bench if large is None else large}


#: PolyBench 4.2 LARGE datasets, in this suite's parameter names
_LARGE = {
    "gemm": dict(ni=1000, nj=1100, nk=1200), "2mm": dict(ni=800, nj=900, nk=1100, nl=1200),
    "3mm": dict(ni=800, nj=900, nk=1000, nl=1100, nm=1200), "atax": dict(m=1900, n=2100),
    "bicg": dict(m=1900, n=2100), "mvt": dict(n=2000), "gemver": dict(n=2000), "gesummv": dict(n=1300),
    "syrk": dict(n=1200, m=1000), "syr2k": dict(n=1200, m=1000), "trmm": dict(m=1000, n=1200),
    "symm": dict(m=1000, n=1200), "doitgen": dict(nr=150, nq=140, np_=160),
    "covariance": dict(m=1200, n=1400), "correlation": dict(m=1200, n=1400),
    "jacobi-1d": dict(tsteps=500, n=2000), "jacobi-2d": dict(tsteps=500, n=1300),
    "heat-3d": dict(tsteps=500, n=120), "fdtd-2d": dict(tmax=500, nx=1000, ny=1200),
    "seidel-2d": dict(tsteps=500, n=2000), "lu": dict(n=2000), "cholesky": dict(n=2000),
    "floyd-warshall": dict(n=2800),
}


_PB = "polybench"
_FU = "fusion"

_register("gemm", gemm, _gemm_args,
          _s(dict(ni=7, nj=9, nk=8), dict(ni=200, nj=220, nk=240), dict(ni=800, nj=900, nk=1000)),
          ("C",), _PB, "matrix multiply C = alpha*A*B + beta*C")
_register("2mm", k2mm, _2mm_args,
          _s(dict(ni=6, nj=7, nk=8, nl=9), dict(ni=160, nj=180, nk=200, nl=220),
             dict(ni=400, nj=450, nk=500, nl=550)),
          ("tmp", "D"), _PB, "two matrix multiplications D = alpha*A*B*C + beta*D")
_register("3mm", k3mm, _3mm_args,
          _s(dict(ni=5, nj=6, nk=7, nl=8, nm=9), dict(ni=140, nj=150, nk=160, nl=170, nm=180),
             dict(ni=300, nj=350, nk=400, nl=450, nm=500)),
          ("E", "F", "G"), _PB, "three matrix multiplications G = (A*B)*(C*D)")
_register("atax", atax, _atax_args,
          _s(dict(m=7, n=9), dict(m=380, n=420), dict(m=2800, n=3200)),
          ("y", "tmp"), _PB, "matrix transpose and vector multiplication y = A^T A x")
_register("bicg", bicg, _bicg_args,
          _s(dict(m=8, n=10), dict(m=380, n=420), dict(m=2600, n=3000)),
          ("s", "q"), _PB, "BiCG sub-kernel s = A^T r, q = A p")
_register("mvt", mvt, _mvt_args,
          _s(dict(n=9), dict(n=400), dict(n=2700)),
          ("x1", "x2"), _PB, "matrix-vector product and transpose (shape-based bounds)")
_register("gemver", gemver, _gemver_args,
          _s(dict(n=10), dict(n=400), dict(n=2700)),
          ("A", "x", "w"), _PB, "rank-2 update plus matrix-vector products")
_register("gesummv", gesummv, _gesummv_args,
          _s(dict(n=11), dict(n=300), dict(n=1900)),
          ("tmp", "y"), _PB, "scalar, vector and matrix multiplication y = alpha*A*x + beta*B*x")
_register("syrk", syrk, _syrk_args,
          _s(dict(n=8, m=6), dict(n=240, m=200), dict(n=600, m=700)),
          ("C",), _PB, "symmetric rank-k update")
_register("syr2k", syr2k, _syr2k_args,
          _s(dict(n=8, m=6), dict(n=200, m=180), dict(n=500, m=600)),
          ("C",), _PB, "symmetric rank-2k update")
_register("trmm", trmm, _trmm_args,
          _s(dict(m=7, n=9), dict(m=200, n=240), dict(m=700, n=800)),
          ("B",), _PB, "triangular matrix multiply B = alpha*A^T*B")
_register("symm", symm, _symm_args,
          _s(dict(m=7, n=9), dict(m=200, n=240), dict(m=600, n=700)),
          ("C",), _PB, "symmetric matrix multiply")
_register("doitgen", doitgen, _doitgen_args,
          _s(dict(nr=5, nq=6, np_=7), dict(nr=40, nq=50, np_=60), dict(nr=100, nq=110, np_=120)),
          ("A",), _PB, "multi-resolution analysis kernel (shape-based bounds, local accumulator)")
_register("covariance", covariance, _covariance_args,
          _s(dict(m=7, n=9), dict(m=240, n=260), dict(m=600, n=700)),
          ("data", "cov", "mean"), _PB, "covariance matrix")
_register("correlation", correlation, _correlation_args,
          _s(dict(m=7, n=9), dict(m=240, n=260), dict(m=600, n=700)),
          ("data", "corr", "mean", "stddev"), _PB, "correlation matrix")
_register("jacobi-1d", jacobi_1d, _jacobi_1d_args,
          _s(dict(tsteps=4, n=12), dict(tsteps=20, n=100_000), dict(tsteps=50, n=1_000_000)),
          ("A", "B"), _PB, "1-D Jacobi stencil")
_register("jacobi-2d", jacobi_2d, _jacobi_2d_args,
          _s(dict(tsteps=3, n=10), dict(tsteps=20, n=400), dict(tsteps=20, n=1300)),
          ("A", "B"), _PB, "2-D Jacobi stencil")
_register("heat-3d", heat_3d, _heat_3d_args,
          _s(dict(tsteps=2, n=7), dict(tsteps=20, n=50), dict(tsteps=20, n=120)),
          ("A", "B"), _PB, "3-D heat equation stencil")
_register("fdtd-2d", fdtd_2d, _fdtd_2d_args,
          _s(dict(tmax=3, nx=8, ny=10), dict(tmax=20, nx=200, ny=240), dict(tmax=20, nx=1000, ny=1200)),
          ("ex", "ey", "hz"), _PB, "2-D finite-difference time-domain kernel")
_register("seidel-2d", seidel_2d, _seidel_2d_args,
          _s(dict(tsteps=3, n=11), dict(tsteps=20, n=400), dict(tsteps=20, n=1000)),
          ("A",), _PB, "2-D Gauss-Seidel stencil")
_register("lu", lu, _lu_args,
          _s(dict(n=10), dict(n=300), dict(n=900)),
          ("A",), _PB, "LU decomposition")
_register("cholesky", cholesky, _cholesky_args,
          _s(dict(n=10), dict(n=400), dict(n=1000)),
          ("A",), _PB, "Cholesky decomposition")
_register("floyd-warshall", floyd_warshall, _floyd_warshall_args,
          _s(dict(n=10), dict(n=300), dict(n=900)),
          ("paths",), _PB, "all-pairs shortest paths")

_register("chain3", chain3, _chain3_args,
          _s(dict(n=11), dict(n=100_000), dict(n=1_500_000)),
          ("out",), _FU, "elementwise add -> relu -> sigmoid through local temporaries")
_register("matmul_bias_relu", matmul_bias_relu, _matmul_bias_relu_args,
          _s(dict(ni=7, nk=8, nj=9), dict(ni=200, nk=220, nj=240), dict(ni=400, nk=500, nj=600)),
          ("out",), _FU, "matmul into a local, then bias add and relu")
_register("softmax", softmax, _softmax_args,
          _s(dict(rows=7, cols=9), dict(rows=300, cols=500), dict(rows=1500, cols=2500)),
          ("out",), _FU, "row-wise softmax (max, exp-sum, normalise)")
_register("conv_bn_relu", conv_bn_relu, _conv_bn_relu_args,
          _s(dict(nb=2, ci=3, co=4, h=7, w=8), dict(nb=4, ci=8, co=16, h=34, w=36),
             dict(nb=8, ci=16, co=32, h=64, w=66)),
          ("out",), _FU, "3x3 NCHW conv, batch-norm affine and relu through local intermediates")
_register("attention_rows", attention_rows, _attention_rows_args,
          _s(dict(nq=7, nk=9, d=5, dv=6), dict(nq=256, nk=320, d=32, dv=48),
             dict(nq=1024, nk=1100, d=64, dv=72)),
          ("O",), _FU, "scaled dot-product attention: S = QK^T*scale, row softmax, O = PV")


# ---------------------------------------------------------------------------
# numpy formulations (SuiteKernel.numpy_func): the same computation written the way numpy users
# would, with the outputs written in place.  Attached after registration so that the kernels'
# definitions and registrations above stay as they are.
# ---------------------------------------------------------------------------

def _gemm_np(ni, nj, nk, alpha, beta, C, A, B):
    np.add(alpha * A @ B, beta * C, out=C)


def _2mm_np(ni, nj, nk, nl, alpha, beta, tmp, A, B, C, D):
    np.matmul(alpha * A, B, out=tmp)
    np.add(tmp @ C, beta * D, out=D)


def _3mm_np(ni, nj, nk, nl, nm, E, A, B, F, C, D, G):
    np.matmul(A, B, out=E)
    np.matmul(C, D, out=F)
    np.matmul(E, F, out=G)


def _atax_np(m, n, A, x, y, tmp):
    np.matmul(A, x, out=tmp)
    np.matmul(tmp, A, out=y)  # y = A^T tmp


def _bicg_np(m, n, A, s, q, p, r):
    np.matmul(r, A, out=s)  # s = A^T r
    np.matmul(A, p, out=q)


def _mvt_np(x1, x2, y1, y2, A):
    x1 += A @ y1
    x2 += y2 @ A  # A^T y2


def _gemver_np(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * (y @ A) + z  # beta * A^T y + z
    w += alpha * (A @ x)


def _gesummv_np(n, alpha, beta, A, B, tmp, x, y):
    np.matmul(A, x, out=tmp)
    np.add(alpha * tmp, beta * (B @ x), out=y)


def _chain3_np(A, B, out):
    np.divide(1.0, 1.0 + np.exp(-np.maximum(A + B, 0.0)), out=out)


def _matmul_bias_relu_np(A, B, bias, out):
    np.maximum(A @ B + bias, 0.0, out=out)


def _softmax_np(X, out):
    np.exp(X - X.max(axis=1, keepdims=True), out=out)
    out /= out.sum(axis=1, keepdims=True)


def _attention_rows_np(scale, Q, K, V, O):
    S = (Q @ K.T) * scale
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    np.matmul(P, V, out=O)


def _syrk_np(n, m, alpha, beta, C, A):
    np.copyto(C, beta * C + alpha * (A @ A.T), where=np.tri(n, dtype=bool))  # the lower triangle


def _syr2k_np(n, m, alpha, beta, C, A, B):
    np.copyto(C, beta * C + alpha * (A @ B.T + B @ A.T), where=np.tri(n, dtype=bool))


def _trmm_np(m, n, alpha, A, B):
    B[:] = alpha * ((np.triu(A.T, 1) + np.eye(m)) @ B)  # unit triangular: A below the diagonal, read as A^T


def _symm_np(m, n, alpha, beta, C, A, B):
    lower = np.tril(A, -1)
    C[:] = beta * C + alpha * ((lower + lower.T + np.diag(np.diag(A))) @ B)  # A from its lower triangle


def _doitgen_np(A, C4):
    A[:] = A @ C4


def _covariance_np(m, n, float_n, data, cov, mean):
    mean[:] = data.sum(axis=0) / float_n
    data -= mean
    np.divide(data.T @ data, float_n - 1.0, out=cov)


def _correlation_np(m, n, float_n, data, corr, mean, stddev):
    mean[:] = data.sum(axis=0) / float_n
    stddev[:] = np.sqrt(((data - mean) ** 2).sum(axis=0) / float_n)
    stddev[stddev <= 0.1] = 1.0
    data -= mean
    data /= np.sqrt(float_n) * stddev
    np.matmul(data.T, data, out=corr)
    np.fill_diagonal(corr, 1.0)


_NUMPY_FUNCS: dict[str, Callable[..., Any]] = {
    "gemm": _gemm_np, "2mm": _2mm_np, "3mm": _3mm_np, "atax": _atax_np, "bicg": _bicg_np,
    "mvt": _mvt_np, "gemver": _gemver_np, "gesummv": _gesummv_np, "chain3": _chain3_np,
    "matmul_bias_relu": _matmul_bias_relu_np, "softmax": _softmax_np, "attention_rows": _attention_rows_np,
    "syrk": _syrk_np, "syr2k": _syr2k_np, "trmm": _trmm_np, "symm": _symm_np, "doitgen": _doitgen_np,
    "covariance": _covariance_np, "correlation": _correlation_np,
}
for _name, _fn in _NUMPY_FUNCS.items():
    KERNELS[_name] = dataclasses.replace(KERNELS[_name], numpy_func=_fn)
del _name, _fn


def numpy_outputs(kernel: SuiteKernel, args: tuple) -> dict[str, Any]:
    """Run ``kernel.numpy_func(*args)`` and return its outputs by name (the arrays of ``args`` it
    wrote in place, or what it returned); ValueError when the kernel has no numpy formulation."""
    if kernel.numpy_func is None:
        raise ValueError(f"suite kernel {kernel.name!r} has no numpy formulation")
    import inspect

    result = kernel.numpy_func(*args)
    if result is None:
        params = list(inspect.signature(kernel.func).parameters)
        return {name: args[params.index(name)] for name in kernel.outputs}
    if isinstance(result, Mapping):
        return {name: result[name] for name in kernel.outputs}
    if isinstance(result, np.ndarray) and len(kernel.outputs) == 1:
        return {kernel.outputs[0]: result}
    return dict(zip(kernel.outputs, result, strict=True))
