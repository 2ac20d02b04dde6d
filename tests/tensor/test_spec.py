"""polyfuse.spec: multi-statement tensor specs against numpy; errors point at line:col."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.bench.einsum_suite import ATTENTION_SPEC, MLP_SPEC
from polyfuse.tensor.spec import SpecError, spec

TARGETS = ["python", "cpu"]

CONV_BN_RELU = """
# NCHW convolution, 3x3 kernel, no padding; then batch norm (inference) and ReLU
C[n, o, h, w] = sum[c, r, s](X[n, c, h + r, w + s] * Wt[o, c, r, s])
Y[n, o, h, w] = relu(gamma[o] * (C[n, o, h, w] - mean[o]) / sqrt(var[o] + eps) + beta[o])
"""


def _attention_np(Q, K, V, scale):
    S = Q @ K.T * scale
    P = np.exp(S - S.max(axis=1, keepdims=True))
    return (P / P.sum(axis=1, keepdims=True)) @ V


def _conv_bn_relu_np(X, Wt, gamma, mean, var, beta, eps):
    win = np.lib.stride_tricks.sliding_window_view(X, Wt.shape[2:], axis=(2, 3))  # n c h w r s
    C = np.einsum("nchwrs,ocrs->nohw", win, Wt)
    col = (slice(None), None, None)
    return np.maximum(gamma[col] * (C - mean[col]) / np.sqrt(var[col] + eps) + beta[col], 0.0)


@pytest.mark.parametrize("target", TARGETS)
def test_mlp(target):
    rng = np.random.default_rng(0)
    mlp = spec(MLP_SPEC, target=target)
    assert mlp.outputs == ("Y",) and set(mlp.inputs) == {"X", "W1", "b1", "W2"}
    for n in (5, 9):  # one compilation, several sizes
        X, W1, b1, W2 = (rng.standard_normal(s) for s in [(n, 4), (4, 6), (6,), (6, 3)])
        Y = mlp(X=X, W1=W1, b1=b1, W2=W2)
        np.testing.assert_allclose(Y, np.maximum(X @ W1 + b1, 0) @ W2, rtol=1e-10, atol=1e-12)
    both = spec(MLP_SPEC, outputs=["H", "Y"], target=target)
    H, Y = both(X, W1, b1, W2)  # positional, in .inputs order
    np.testing.assert_allclose(H, np.maximum(X @ W1 + b1, 0), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("target", TARGETS)
def test_attention(target):
    rng = np.random.default_rng(1)
    att = spec(ATTENTION_SPEC, target=target)
    assert att.outputs == ("O",)
    Q, K, V = rng.standard_normal((5, 8)), rng.standard_normal((7, 8)), rng.standard_normal((7, 3))
    O = att(Q=Q, K=K, V=V, scale=1 / math.sqrt(8))
    np.testing.assert_allclose(O, _attention_np(Q, K, V, 1 / math.sqrt(8)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("target", TARGETS)
def test_conv_bn_relu(target):
    rng = np.random.default_rng(2)
    cbr = spec(CONV_BN_RELU, target=target)
    X, Wt = rng.standard_normal((2, 3, 7, 6)), rng.standard_normal((4, 3, 3, 3))
    gamma, mean, beta = rng.standard_normal(4), rng.standard_normal(4), rng.standard_normal(4)
    var = rng.random(4) + 0.5
    Y = cbr(X=X, Wt=Wt, gamma=gamma, mean=mean, var=var, beta=beta, eps=1e-5)
    assert Y.shape == (2, 4, 5, 4)
    np.testing.assert_allclose(Y, _conv_bn_relu_np(X, Wt, gamma, mean, var, beta, 1e-5), rtol=1e-10, atol=1e-12)


def test_fusion_applies_and_explain_shows_the_spec():
    rng = np.random.default_rng(3)
    att = spec(ATTENTION_SPEC)
    Q, K, V = rng.standard_normal((6, 4)), rng.standard_normal((8, 4)), rng.standard_normal((8, 2))
    e = att.explain(Q=Q, K=K, V=V, scale=0.5)
    assert "spec" in e.to_dict() and "generated source" in e.to_dict()
    assert any(d["fused"] for d in e["fusion"])
    assert e.fused_loop_nests() < len(att.statements)


@pytest.mark.parametrize("target", TARGETS)
def test_reductions_stencils_and_functions(target):
    rng = np.random.default_rng(4)
    A = rng.standard_normal((6, 5))
    x = rng.random(12) + 0.5
    s = spec("""
mx[i] = max[j](A[i, j])
mn[i] = min[j](A[i, j])
pr[i] = prod[j](A[i, j])
sm = sum[i, j](abs(A[i, j]))
st[i] = x[i] + 2 * x[i + 1] - x[i + 2]
dn[i] = x[2 * i] + x[2 * i + 1]
fn[i] = sigmoid(x[i]) + tanh(x[i]) + log(x[i]) + exp(-x[i]) + min(x[i], 1.0, 2) ** 2 + pow(x[i], 0.5)
ix[i, j] = A[i, j] * i - j
""", target=target)
    mx, mn, pr, sm, st_, dn, fn, ix = s(A=A, x=x)
    np.testing.assert_allclose(mx, A.max(1))
    np.testing.assert_allclose(mn, A.min(1))
    np.testing.assert_allclose(pr, A.prod(1))
    np.testing.assert_allclose(sm, np.abs(A).sum())
    np.testing.assert_allclose(st_, x[:-2] + 2 * x[1:-1] - x[2:])
    np.testing.assert_allclose(dn, x[0::2] + x[1::2])
    ref = 1 / (1 + np.exp(-x)) + np.tanh(x) + np.log(x) + np.exp(-x) + np.minimum(x, 1.0) ** 2 + np.sqrt(x)
    np.testing.assert_allclose(fn, ref)
    np.testing.assert_allclose(ix, A * np.arange(6)[:, None] - np.arange(5))


def test_float32_out_buffers_and_outputs_option():
    rng = np.random.default_rng(5)
    mlp = spec(MLP_SPEC)
    X, W1, b1, W2 = (rng.standard_normal(s).astype(np.float32) for s in [(4, 3), (3, 5), (5,), (5, 2)])
    Y = mlp(X=X, W1=W1, b1=b1, W2=W2)
    assert Y.dtype == np.float32
    np.testing.assert_allclose(Y, np.maximum(X @ W1 + b1, 0) @ W2, rtol=1e-5, atol=1e-5)
    buf = np.empty((4, 2), dtype=np.float32)
    assert mlp(X=X, W1=W1, b1=b1, W2=W2, Y=buf) is buf
    np.testing.assert_allclose(buf, Y)
    assert spec(MLP_SPEC, outputs="H").outputs == ("H",)
    ints = spec("y[i] = sum[j](A[i, j])")(A=np.arange(6).reshape(2, 3))
    assert ints.dtype == np.float64 and list(ints) == [3.0, 12.0]


# ---- errors --------------------------------------------------------------------------------

BAD_SPECS = [
    ("Y[i] = X[i", 1, "expected"),
    ("Y[i] = foo(X[i])", 1, "unknown function"),
    ("Y[i] = X[i] +", 1, "expected a value"),
    ("Y[i] = X[i, j]", 1, "neither an index"),
    ("Y[i, j] = X[i]", 1, "does not appear"),
    ("Y[i] = sum[k](X[i])", 1, "not used"),
    ("Y[i] = X[i]\nY[i] = X[i]", 2, "assigned twice"),
    ("Y[i] = X[i]\nZ[i] = X[i, i]", 2, "indices elsewhere"),
    ("A[i] = B[i]\nB[i] = C[i]", 1, "read before"),
    ("Y[i] = X[i - 1]", 1, "negative"),
    ("Y[i] = Y[i]", 1, "reads itself"),
    ("Y[i] = sum[i](X[i])", 1, "already an index"),
    ("Y[i] = X[i] $ 2", 1, "unexpected character"),
    ("Y[i + 1] = X[i]", 1, "plain names"),
    ("Y[i] = X[i * j]", 1, "integer constant"),
    ("Y[i] = np[i]", 1, "reserved"),
    ("Y[i] = X[i]\n\n  Z[i] = sum[j](X[i] Y[j])", 3, "expected ')'"),
    ("Y[i] = X", 1, "does not appear"),
    ("Y[i] = X[i] * X", 1, "is a tensor"),
    ("Y[i] = X[i] * s", 0, "scalar input 's'"),
    ("", 0, "no statements"),
]


@pytest.mark.parametrize("text,line,fragment", BAD_SPECS)
def test_bad_specs_point_at_line_and_column(text, line, fragment):
    try:
        s = spec(text)
    except SpecError as exc:
        assert fragment in str(exc), str(exc)
        assert isinstance(exc, ValueError) and isinstance(exc, polyfuse.PolyfuseError)
        if line:
            assert exc.line == line and f"line {line}, col {exc.col}" in str(exc) and "^" in str(exc)
        return
    # a few mistakes only show up with arrays ("Y[i] = X" reads X as a scalar input)
    with pytest.raises(SpecError, match=fragment):
        s(X=np.ones(3), s=np.ones(3))


def test_shape_mismatch_points_at_the_access():
    mlp = spec(MLP_SPEC)
    with pytest.raises(SpecError) as info:
        mlp(X=np.ones((3, 4)), W1=np.ones((5, 6)), b1=np.ones(6), W2=np.ones((6, 2)))
    msg = str(info.value)
    assert "line 2" in msg and "index 'k'" in msg and "W1" in msg and "^" in msg
    with pytest.raises(SpecError, match="dimensions"):
        mlp(X=np.ones(3), W1=np.ones((5, 6)), b1=np.ones(6), W2=np.ones((6, 2)))
    with pytest.raises(SpecError, match="missing input"):
        mlp(X=np.ones((3, 4)))
    with pytest.raises(SpecError, match="unexpected input"):
        mlp(X=np.ones((3, 4)), W1=np.ones((4, 6)), b1=np.ones(6), W2=np.ones((6, 2)), Q=1)
    st_ = spec("y[i] = x[i] + x[i + 2]\nz[i] = y[i] * w[i]")
    with pytest.raises(SpecError, match="index 'i'"):
        st_(x=np.ones(6), w=np.ones(5))
    with pytest.raises(SpecError, match="empty"):
        spec("m[i] = max[j](A[i, j])")(A=np.ones((2, 0)))


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet="XYij k[](),+-*=12.\nsumaxp$", max_size=30))
def test_random_text_gives_spec_errors_only(text):
    try:
        s = spec(text)
    except SpecError:
        return
    try:
        s(**{name: np.ones((3,) * s._analysis.ranks.get(name, 0)) if name in s.arrays else 1.0
             for name in s.inputs})
    except SpecError:
        pass


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_mutated_valid_specs_never_crash(data):
    text = data.draw(st.sampled_from([MLP_SPEC, ATTENTION_SPEC, CONV_BN_RELU]))
    pos = data.draw(st.integers(0, len(text) - 1))
    junk = data.draw(st.sampled_from(["", "[", ")", "+", "k", ",", "\n", "-1", "sum"]))
    mutated = text[:pos] + junk + text[pos + 1:]
    try:
        spec(mutated, target="python")
    except SpecError as exc:
        assert exc.line is None or exc.line >= 1


def test_error_at_the_end_of_a_spec_points_at_its_last_line():
    """An error found at the end of input (after the final newline) points at the end of the
    last line; it used to crash the error message itself (IndexError, found by mutation)."""
    text = "\nY[i] = X[i\n"
    with pytest.raises(SpecError) as info:
        spec(text)
    assert info.value.line == 2 and info.value.col == len("Y[i] = X[i") + 1
    assert str(info.value).rstrip().endswith("^")
