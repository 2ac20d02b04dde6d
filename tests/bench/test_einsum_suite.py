"""The einsum section's rows (polyfuse.bench.einsum_suite): every contender computes the same."""

from __future__ import annotations

import numpy as np
from conftest import einsum_compiled

from polyfuse.bench.einsum_suite import einsum_benchmarks


def test_benchmark_rows_agree():
    """At the test preset every einsum row is below ``FALLBACK_WORK``: polyfuse would run
    numpy.einsum and the check would compare numpy with itself, so the rows run polyfuse's own
    code here (``einsum_compiled``), and the test asserts that they did."""
    rows = einsum_benchmarks("test")
    with einsum_compiled() as ran:
        for name, pf, np_opt, np_step, args in rows:
            expected = np_opt(*args)
            np.testing.assert_allclose(pf(*args), expected, rtol=1e-8, atol=1e-8, err_msg=name)
            np.testing.assert_allclose(np_step(*args), expected, rtol=1e-8, atol=1e-8, err_msg=name)
    einsum_rows = [name for name, *_ in rows if name.startswith("einsum")]
    assert len(ran) >= len(einsum_rows) == 4 and "numpy" not in ran, ran
