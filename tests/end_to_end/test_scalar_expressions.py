"""Random scalar expressions at special values (tests/scalar_gen.py), against the plain function.

One fixed draw of a few kernels, so CI sees the same expressions every run; the campaign with
fresh seeds is tests/long/scalar_campaign.py."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from conftest import define
from scalar_gen import expression_kernel, kernel_source, make_inputs, same_column, tolerance, zero_signs

import polyfuse


@pytest.mark.parametrize("seed", [30002])
def test_random_expressions_match_the_plain_function(seed):
    r = random.Random(seed)
    inputs = make_inputs(r, 24)
    exprs = expression_kernel(r, 10, inputs)
    fn = define(kernel_source(exprs), "kern")
    expected, actual = np.zeros((24, len(exprs))), np.zeros((24, len(exprs)))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn(*inputs, expected, 5)
        polyfuse.kernel(fn)(*[a.copy() for a in inputs], actual, 5)
    for c, e in enumerate(exprs):
        assert same_column(expected[:, c], actual[:, c], tolerance(e), zero_signs(e)).all(), e


def test_the_comparison_tells_zeros_signs_and_nans_apart():
    a = np.array([0.0, np.nan, 1.0, 2.0])
    assert same_column(a, a.copy(), 0.0).all()
    assert not same_column(a, np.array([-0.0, np.nan, 1.0, 2.0]), 1e-6)[0]
    assert not same_column(a, np.array([0.0, 1.0, 1.0, 2.0]), 1e-6)[1]
    assert not same_column(a, np.array([0.0, np.nan, 1.0, 2.1]), 1e-6)[3]
