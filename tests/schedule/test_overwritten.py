"""Overwritten stores: a value stored only for a later statement that reads it back and overwrites
the element goes through a kernel-local (polyfuse/schedule/overwritten.py)."""

from __future__ import annotations

import numpy as np
from conftest import check_against_python, define, rewritten_dependences_checked

import polyfuse
from polyfuse.schedule import overwritten

ROW_SOFTMAX = '''def f(X, out):
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
'''


def _args(rows=5, cols=7):
    rng = np.random.default_rng(0)
    return rng.standard_normal((rows, cols)), np.zeros((rows, cols))


def test_softmax_writes_out_once_through_a_row():
    fn = define(ROW_SOFTMAX)
    args = _args()
    kernel = check_against_python(fn, args, target="cpu")
    explained = kernel.explain(*args)
    [done] = explained["overwritten stores"]
    assert (done["array"], done["local"]) == ("out", "out__kept")
    [row] = [d for d in explained["contraction"] if d["array"] == "out__kept"]
    assert row["after"] == "(out.shape[1],)"  # one row, reused for every i


def test_knob_off_keeps_the_stores(monkeypatch):
    monkeypatch.setenv("POLYFUSE_OVERWRITTEN_STORES", "0")
    fn = define(ROW_SOFTMAX)
    args = _args()
    kernel = check_against_python(fn, args, target="cpu")
    assert "overwritten stores" not in kernel.explain(*args).to_dict()


def test_a_chain_of_overwrites_and_a_later_reader(monkeypatch):
    # s[j] stored three times, each read back by the next statement only (two locals in a chain),
    # then read by another nest: only the last value reaches it
    fn = define('''def f(a, s, out):
    for j in range(a.shape[0]):
        s[j] = a[j] / 3.0
        s[j] = math.sqrt(s[j])
        s[j] = 1.0 if s[j] <= 0.5 else s[j]
    for j in range(a.shape[0]):
        out[j] = s[j] * 2.0
''')
    rng = np.random.default_rng(1)
    args = (rng.random(9) * 2.0, np.zeros(9), np.zeros(9))
    checked = rewritten_dependences_checked(monkeypatch, overwritten)
    kernel = check_against_python(fn, args, target="cpu")
    assert [d["local"] for d in kernel.explain(*args)["overwritten stores"]] == ["s__kept", "s__kept1"]
    assert checked == [frozenset({"s", "s__kept", "s__kept1"})]


def test_a_value_read_elsewhere_or_not_overwritten_everywhere_is_kept():
    # b[i] is also read by c's statement (S1), and d's second store covers only part of the first's
    fn = define('''def f(a, b, c, d):
    for i in range(a.shape[0]):
        b[i] = a[i] + 1.0
        c[i] = b[i] * 2.0
        b[i] = b[i] * 3.0
    for i in range(a.shape[0]):
        d[i] = a[i] - 1.0
    for i in range(1, a.shape[0]):
        d[i] = d[i] * 5.0
''')
    rng = np.random.default_rng(2)
    args = (rng.random(8), np.zeros(8), np.zeros(8), np.zeros(8))
    kernel = check_against_python(fn, args, target="cpu")
    assert "overwritten stores" not in kernel.explain(*args).to_dict()


def test_the_knob_is_part_of_the_cache_key(monkeypatch):
    from polyfuse.runtime import cache

    monkeypatch.delenv("POLYFUSE_OVERWRITTEN_STORES", raising=False)
    default = cache.cpu_key()
    monkeypatch.setenv("POLYFUSE_OVERWRITTEN_STORES", "0")
    assert cache.cpu_key() != default


def test_a_local_that_contraction_cannot_shrink_is_not_made():
    # fuse="none" keeps the store and its reader in separate loops over i: the local would keep
    # b's whole shape, so the kernel is compiled again without the rewrite (fused: a scalar)
    fn = define('''def f(a, b):
    for t in range(2):
        for i in range(a.shape[0]):
            b[i] = a[i] * 2.0 + t
        for i in range(a.shape[0]):
            b[i] = b[i] + 1.0
''')
    args = (np.arange(6.0), np.zeros(6))
    apart = check_against_python(fn, args, target="cpu", kernel=polyfuse.kernel(fn, target="cpu", fuse="none"))
    assert "overwritten stores" not in apart.explain(*args).to_dict()
    fused = check_against_python(fn, args, target="cpu")
    assert [d["after"] for d in fused.explain(*args)["contraction"]] == ["()"]
