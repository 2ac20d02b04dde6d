"""The einsum and spec rows of ``polyfuse bench --section einsum``: each polyfuse callable with
numpy's two formulations and its inputs.

:func:`einsum_benchmarks` builds the rows at a size preset; the harness (polyfuse.bench.harness)
checks and times them.  Here, not in polyfuse.tensor, because only the bench uses them: the tensor
package stays free of bench code and of the spec import that made einsum and spec import each
other.  :data:`MLP_SPEC` and :data:`ATTENTION_SPEC` are the two specs the rows time (the tests
use them too).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from polyfuse.tensor.einsum import einsum, einsum_path
from polyfuse.tensor.spec import spec


def _stepwise(subscripts: str, path: list[str | tuple[int, ...]] | Literal[False]) -> Callable[..., Any]:
    def run(*ops: np.ndarray) -> Any:
        return np.einsum(subscripts, *ops, optimize=path)
    return run


def einsum_benchmarks(preset: str = "quick", seed: int = 0) -> list[tuple]:
    """``(name, polyfuse_callable, numpy_optimize_callable, numpy_stepwise_callable, args)`` rows.

    ``numpy_optimize`` is ``numpy.einsum(..., optimize=True)``; ``numpy_stepwise`` is
    ``numpy.einsum`` following polyfuse's contraction order one pairwise step at a time
    (``optimize=<that path>``; numpy may hand a step to BLAS); for the specs it is the statements
    as a NumPy user writes them: separate statements with ``@`` for the matrix products (BLAS).
    ``preset``: "test" (tiny), "quick" or "bench".
    """
    rng = np.random.default_rng(seed)
    scale = {"test": 0, "quick": 1, "bench": 2}[preset]
    n = (8, 96, 256)[scale]
    b = (2, 16, 32)[scale]
    r = (3, 12, 24)[scale]
    rows: list[tuple] = []

    def add(name: str, subscripts: str, *ops: np.ndarray) -> None:
        path = einsum_path(subscripts, *ops).path
        rows.append((name, functools.partial(einsum, subscripts),
                     functools.partial(np.einsum, subscripts, optimize=True),
                     _stepwise(subscripts, path if len(path) > 1 else False), ops))

    def rand(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape)

    add("einsum batched matmul bij,bjk->bik", "bij,bjk->bik", rand(b, n, n), rand(b, n, n))
    add("einsum bilinear bi,bij,bj->b", "bi,bij,bj->b", rand(4 * b, n), rand(4 * b, n, n), rand(4 * b, n))
    add("einsum ki,k,kj,k->ij", "ki,k,kj,k->ij", rand(4 * n, n), rand(4 * n), rand(4 * n, n), rand(4 * n))
    add("einsum tensor train", "ia,iajb,jbkc,kc->", rand(n // 2, r), rand(n // 2, r, n // 2, r),
        rand(n // 2, r, n // 2, r), rand(n // 2, r))

    mlp = spec(MLP_SPEC)
    X, W1, b1, W2 = rand(4 * n, n), rand(n, 2 * n), rand(2 * n), rand(2 * n, n // 2)

    def mlp_np_opt(X: np.ndarray, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray) -> np.ndarray:
        return np.einsum("ij,jl->il", np.maximum(np.einsum("ik,kj->ij", X, W1, optimize=True) + b1, 0), W2,
                         optimize=True)

    def mlp_np_step(X: np.ndarray, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray) -> np.ndarray:
        return np.maximum(X @ W1 + b1, 0) @ W2  # what a NumPy user writes: matrix products on BLAS

    rows.append(("spec two-layer MLP", lambda X, W1, b1, W2: mlp(X=X, W1=W1, b1=b1, W2=W2),
                 mlp_np_opt, mlp_np_step, (X, W1, b1, W2)))

    att = spec(ATTENTION_SPEC)
    Q, K, V = rand(2 * n, 64), rand(2 * n, 64), rand(2 * n, 64)

    def att_np_opt(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> np.ndarray:
        S = np.einsum("id,jd->ij", Q, K, optimize=True) * (1.0 / 8.0)
        P = np.exp(S - S.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        return np.einsum("ij,jv->iv", P, V, optimize=True)

    def att_np_step(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> np.ndarray:
        S = (Q @ K.T) * (1.0 / 8.0)  # what a NumPy user writes: matrix products on BLAS
        P = np.exp(S - S.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        return P @ V

    rows.append(("spec row-wise attention", lambda Q, K, V: att(Q=Q, K=K, V=V, scale=1.0 / 8.0),
                 att_np_opt, att_np_step, (Q, K, V)))
    att_fast = spec(ATTENTION_SPEC, fastmath=True)  # reassociated (vectorized) max, sum and exp
    rows.append(("spec attention, fastmath=True", lambda Q, K, V: att_fast(Q=Q, K=K, V=V, scale=1.0 / 8.0),
                 att_np_opt, att_np_step, (Q, K, V)))
    return rows


MLP_SPEC = """
H[i, j] = relu(sum[k](X[i, k] * W1[k, j]) + b1[j])
Y[i, l] = sum[j](H[i, j] * W2[j, l])
"""

ATTENTION_SPEC = """
S[i, j] = sum[d](Q[i, d] * K[j, d]) * scale
M[i] = max[j](S[i, j])
E[i, j] = exp(S[i, j] - M[i])
Z[i] = sum[j](E[i, j])
O[i, v] = sum[j](E[i, j] * V[j, v]) / Z[i]
"""
