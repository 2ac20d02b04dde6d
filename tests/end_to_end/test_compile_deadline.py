"""The compile deadline (POLYFUSE_COMPILE_SECONDS): past it, optional isl work is skipped, the
result stays right, explain() says so, and the variant is not written to the disk cache."""

from __future__ import annotations

import islpy as isl
import numpy as np
import pytest

import polyfuse
from polyfuse.model.isl_budget import BudgetExceeded, Deadline, bounded


def producer_consumer(x, t, y):
    for i in range(x.shape[0]):
        t[i] = x[i] * 2.0
    for i in range(x.shape[0]):
        y[i] = t[i] + x[i]


def _args():
    x = np.random.default_rng(0).random(33)
    return x, np.zeros_like(x), np.zeros_like(x)


def _check(kernel):
    args, expected = _args(), _args()
    producer_consumer(*expected)
    kernel(*args)
    for got, want in zip(args, expected):
        np.testing.assert_array_equal(got, want)
    return kernel.explain(*args)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYFUSE_CACHE_DIR", str(tmp_path / "kernels"))
    monkeypatch.delenv("POLYFUSE_DISABLE_CACHE", raising=False)
    return tmp_path / "kernels"


def test_past_the_deadline_nothing_optional_runs_and_the_result_is_still_right(cache_dir, monkeypatch):
    monkeypatch.setenv("POLYFUSE_COMPILE_SECONDS", "1e-9")
    explanation = _check(polyfuse.kernel(producer_consumer, verify=True))
    assert "deadline" in explanation["compile deadline"]
    assert explanation.fused_loop_nests() == 2  # the two loops as written
    assert explanation["dependences"] and all(d["basis"] != "exact" for d in explanation["dependences"])
    assert not list(cache_dir.glob("*.pkl")), "a compile that ran past its deadline was cached"


def test_within_the_deadline_the_same_kernel_fuses_and_is_cached(cache_dir, monkeypatch):
    monkeypatch.delenv("POLYFUSE_COMPILE_SECONDS", raising=False)  # the default
    explanation = _check(polyfuse.kernel(producer_consumer, verify=True))
    assert "compile deadline" not in explanation.to_dict()
    assert explanation["dependences"] and all(d["basis"] == "exact" for d in explanation["dependences"])
    assert explanation.fused_loop_nests() == 1
    assert len(list(cache_dir.glob("*.pkl"))) == 1


def test_bounded_blocks_refuse_to_start_past_an_active_deadline():
    ctx = isl.DEFAULT_CONTEXT
    deadline = Deadline(0.0)
    with deadline.active():
        with pytest.raises(BudgetExceeded, match="deadline"):
            with bounded(ctx):
                pass
    assert deadline.skipped == 1
    with bounded(ctx):  # no deadline outside active()
        pass
    with Deadline(None).active(), bounded(ctx):
        pass


def test_the_setting_is_read_as_numba_users_expect(monkeypatch):
    from polyfuse.options import DEFAULT_COMPILE_SECONDS, compile_seconds

    monkeypatch.delenv("POLYFUSE_COMPILE_SECONDS", raising=False)
    assert compile_seconds() == DEFAULT_COMPILE_SECONDS
    monkeypatch.setenv("POLYFUSE_COMPILE_SECONDS", "0")
    assert compile_seconds() is None
    monkeypatch.setenv("POLYFUSE_COMPILE_SECONDS", "2.5")
    assert compile_seconds() == 2.5
