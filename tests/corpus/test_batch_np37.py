"""np37's batches (batch_np37, batch_np37b, batch_np37c: npbench programs, preprocessing,
finance, signal and image code, written before looking at what is supported) and np39's
(batch_np39: scikit-learn-style estimators, images, signals, finance, physics; batch_np39b: the
dtype and scalar-type corners of such code) and np41's (batch_np41: group-bys, ML, image, signal,
finance, geometry, numerics, dtype corners; batch_np41b, NumPy's semantic traps, is left to
``batch_report.py``: the suite's time; of np43's batch_np43, only the kernels still refused; of
np45's batch_np45, three of the kernels it fixed) against the
undecorated functions: each kernel compiled once and called on two inputs; the refused ones
must raise UnsupportedError naming the user's file:line and construct.  The subject is the
front end, so the kernels run on the python backend in program order (fuse='none': the loop
program the lowering makes, no scheduler, no LLVM; the first two batches, 87 kernels, in ~23
CPU-s against ~83 on the cpu target); ``batch_report.py batch_np37`` (``batch_np37b``,
``batch_np37c``) runs them on the cpu target with the default fusion."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import polyfuse

sys.path.insert(0, str(Path(__file__).parent))
import batch_np37  # noqa: E402
import batch_np37b  # noqa: E402
import batch_np37c  # noqa: E402
import batch_np39  # noqa: E402
import batch_np39b  # noqa: E402
import batch_np41  # noqa: E402
import batch_np43  # noqa: E402
import batch_np45  # noqa: E402
from test_corpus import _copy, assert_same  # noqa: E402

#: kernels polyfuse refuses, with the words of the refusal (the construct, at the user's line)
REFUSED = {
    "fft_vectorized": "array 'X' is rebound in a different loop or branch",  # X grows in a while loop
    "rfft_power": "np.fft.rfft() of an array is not supported",
    "append_loop": "np.append() of an array is not supported",
    "knn_argpartition": "argpartition() is not supported",
    # np41's: NumPy's introselect order (arrays of np.unique's length fancy-indexed compile: divided
    # elementwise in the return, groupby_mean_unique, since np45; value_counts_sorted's np.argsort of
    # them since np47; hist_equalize's max() of an np.int64 and a Python int since np42: both picks
    # give one dtype; threshold_otsu_like's fg.size of a selection by img > t, t = img.mean(), two
    # statements later since np43: the mask's rank told)
    "argpartition_topk": "argpartition() is not supported",
    # np43's (the batch's other kernels: batch_report.py; its fixes: tests/frontend/test_np43_forms.py):
    # np.bincount of a row of a local matrix
    "knn_vote": "bincount() is not supported",
}
CASES = [(m.__name__, c) for m in (batch_np37, batch_np37b, batch_np37c, batch_np39, batch_np39b, batch_np41) for c in m.CASES]
CASES += [("batch_np43", c) for c in batch_np43.CASES if c.name in REFUSED]  # the rest: the suite's time
#: np45's fixes (the rest of the batch: batch_report.py; np.logaddexp2: tests/frontend/test_scalar_functions.py
#: and test_np43_forms.py): a group-by's variance from np.bincount sums of an arithmetic of the
#: weights, each array of np.unique's length combined with ones allocated after it; np.digitize of
#: a local np.array([...]) of bins; gy, gx = np.gradient(F, hy, hx)
NP45 = ("groupby_std", "digitize_right_decreasing", "gradient_2d_axes")
CASES += [("batch_np45", c) for c in batch_np45.CASES if c.name in NP45]


@pytest.mark.parametrize("module, case", CASES, ids=[f"{m}.{c.name}" for m, c in CASES])
def test_batch_np37_kernel_matches_the_undecorated_function(module, case):
    kernel = polyfuse.kernel(case.func, target="python", fuse="none")
    for seed in (0, 1):
        args = case.make_args(np.random.default_rng(seed))
        expected_args, actual_args = _copy(args), _copy(args)
        with np.errstate(all="ignore"):
            expected = case.func(*expected_args)
        if case.name in REFUSED:
            with pytest.raises(polyfuse.UnsupportedError, match=re.escape(REFUSED[case.name])) as err:
                kernel(*actual_args)
            assert f"{module}.py:" in str(err.value).splitlines()[0]
            return
        with np.errstate(all="ignore"):
            actual = kernel(*actual_args)
        assert_same(expected, actual, case, "return value")
        for k, (e, a) in enumerate(zip(expected_args, actual_args)):
            if isinstance(e, np.ndarray):
                assert_same(e, a, case, f"argument {k}")
