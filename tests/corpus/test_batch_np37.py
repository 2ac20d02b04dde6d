"""np37's batch (batch_np37: npbench programs, preprocessing, finance, signal and image code)
against the undecorated functions: each kernel compiled once (cpu target, the default fusion)
and called on two inputs; refused ones must name the user's line."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import polyfuse

sys.path.insert(0, str(Path(__file__).parent))
from batch_np37 import CASES  # noqa: E402
from test_corpus import _copy, assert_same  # noqa: E402

#: kernels polyfuse refuses, with the words of the refusal (the construct, at the user's line)
REFUSED = {
    "fft_vectorized": "array 'X' is rebound in a different loop or branch",  # X grows in a while loop
}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_batch_np37_kernel_matches_the_undecorated_function(case):
    kernel = polyfuse.kernel(case.func, target="cpu")
    for seed in (0, 1):
        args = case.make_args(np.random.default_rng(seed))
        expected_args, actual_args = _copy(args), _copy(args)
        with np.errstate(all="ignore"):
            expected = case.func(*expected_args)
        if case.name in REFUSED:
            with pytest.raises(polyfuse.UnsupportedError, match=REFUSED[case.name]) as err:
                kernel(*actual_args)
            assert "batch_np37.py" in str(err.value).splitlines()[0]
            return
        with np.errstate(all="ignore"):
            actual = kernel(*actual_args)
        assert_same(expected, actual, case, "return value")
        for k, (e, a) in enumerate(zip(expected_args, actual_args)):
            if isinstance(e, np.ndarray):
                assert_same(e, a, case, f"argument {k}")
