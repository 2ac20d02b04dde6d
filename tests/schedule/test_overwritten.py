"""Overwritten stores: a value stored only for a later statement that reads it back and overwrites
the element goes through a kernel-local (polyfuse/schedule/overwritten.py)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import (
    check_against_python,
    copy_args,
    define,
    rewritten_dependences_checked,
    team_runs,
    threads_forced,
)

import polyfuse
from polyfuse.runtime import threads
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


def test_softmax_writes_out_once_through_a_row(monkeypatch):
    fn = define(ROW_SOFTMAX)
    args = _args(rows=19)
    checked = rewritten_dependences_checked(monkeypatch, overwritten)
    kernel = check_against_python(fn, args, target="cpu")
    assert checked == [frozenset({"out", "out__kept", "e"})]  # S4, the copy, gone from all of them
    explained = kernel.explain(*args)
    [done] = explained["overwritten stores"]
    # e's statement writes the row itself, s += e reads it there: no row of e and copy of it
    assert (done["array"], done["local"], done["scalar"]) == ("out", "out__kept", "e")
    [row] = [d for d in explained["contraction"] if d["array"] == "out__kept"]
    assert row["after"] == "(out.shape[1],)"  # one row, reused for every i
    assert all(d["array"] != "e" for d in explained["contraction"])
    with threads_forced():  # the rows on two threads, each with its own row of out__kept
        threads.set_num_threads(2)
        expected = copy_args(args)
        fn(*expected)
        kernel = polyfuse.kernel(fn, target="cpu")  # (the same code, from the cache)
        for _ in range(3):  # the first call is measured serially, the others run on the team
            got = copy_args(args)
            kernel(*got)
            np.testing.assert_allclose(got[1], expected[1], rtol=1e-12)
        assert team_runs(kernel.compile(*args).backend) > 0


def test_a_scalar_of_another_dtype_or_read_after_its_loop_keeps_its_copy():
    # out32 is float32: its local rounds e, which s += e reads unrounded; last[i] reads e after
    # the j loop (another iteration's value): both stores still go through locals, the scalars stay
    fn = define('''def f(X, out32, out, last):
    for i in range(X.shape[0]):
        s = 0.0
        for j in range(X.shape[1]):
            e = math.exp(X[i, j])
            out32[i, j] = e
            s += e
        for j in range(X.shape[1]):
            out32[i, j] = out32[i, j] / s
    for i in range(X.shape[0]):
        t = 0.0
        for j in range(X.shape[1]):
            t = X[i, j] * 2.0
            out[i, j] = t
        last[i] = t
        for j in range(X.shape[1]):
            out[i, j] = out[i, j] + last[i]
''')
    rng = np.random.default_rng(3)
    args = (rng.standard_normal((4, 6)), np.zeros((4, 6), np.float32), np.zeros((4, 6)), np.zeros(4))
    kernel = polyfuse.kernel(fn, target="cpu", verify=True)
    check_against_python(fn, args, rtol=1e-6, kernel=kernel)
    done = kernel.explain(*args)["overwritten stores"]
    assert [(d["array"], d["scalar"]) for d in done] == [("out32", ""), ("out", "")]


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


def test_a_value_read_elsewhere_or_not_overwritten_everywhere_is_kept(monkeypatch):
    # b[i] is also read by c's statement (S1) at another element too, and d's second store covers
    # only part of the first's; out's stored value is read by c's update in its own iteration
    # (numba-style softmax's s += out[i, j]): with POLYFUSE_OVERWRITTEN_COMPANIONS that one reads
    # it from the local too
    monkeypatch.setenv("POLYFUSE_OVERWRITTEN_COMPANIONS", "1")
    fn = define('''def f(a, b, c, d, out):
    for i in range(a.shape[0]):
        b[i] = a[i] + 1.0
        c[i] = b[i] * 2.0 + b[a.shape[0] - 1 - i]
        b[i] = b[i] * 3.0
    for i in range(a.shape[0]):
        d[i] = a[i] - 1.0
    for i in range(1, a.shape[0]):
        d[i] = d[i] * 5.0
    for i in range(a.shape[0]):
        out[i] = a[i] * 4.0
        c[i] = c[i] + out[i]
        out[i] = out[i] - 1.0
''')
    rng = np.random.default_rng(2)
    args = (rng.random(8), np.zeros(8), np.zeros(8), np.zeros(8), np.zeros(8))
    kernel = check_against_python(fn, args, target="cpu")
    [done] = kernel.explain(*args)["overwritten stores"]
    assert done["array"] == "out" and "read the stored values in their own iteration" in done["reason"]


@pytest.mark.parametrize("knob, other", [("POLYFUSE_OVERWRITTEN_STORES", "0"), ("POLYFUSE_OVERWRITTEN_FORWARD", "0"),
                                         ("POLYFUSE_OVERWRITTEN_COMPANIONS", "1")])
def test_the_knob_is_part_of_the_cache_key(monkeypatch, knob, other):
    from polyfuse.runtime import cache

    monkeypatch.delenv(knob, raising=False)
    default = cache.cpu_key()
    monkeypatch.setenv(knob, other)
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
