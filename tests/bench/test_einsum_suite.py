"""The einsum section's rows (polyfuse.bench.einsum_suite): every contender computes the same."""

from __future__ import annotations

import numpy as np

from polyfuse.bench.einsum_suite import einsum_benchmarks


def test_benchmark_rows_agree():
    for name, pf, np_opt, np_step, args in einsum_benchmarks("test"):
        expected = np_opt(*args)
        np.testing.assert_allclose(pf(*args), expected, rtol=1e-8, atol=1e-8, err_msg=name)
        np.testing.assert_allclose(np_step(*args), expected, rtol=1e-8, atol=1e-8, err_msg=name)
