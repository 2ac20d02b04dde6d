"""Fresh batches of unseen kernels (``batch_*.py``, tests/corpus/README.md) kept as a test: each
kernel compiled once (cpu target, smart fusion) and run on four seeds' inputs, edge sizes among
them, against the undecorated function (values, dtypes and the Python-or-NumPy type of returned
numbers); the kernels refused on purpose must stay refused with an UnsupportedError or, per
call, an ArgumentError (batch_report.run_case's verdicts)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from batch_report import run_case  # noqa: E402

import polyfuse  # noqa: E402

BATCHES = ("batch_fe37", "batch_fe37b", "batch_fe37c", "batch_fe37d", "batch_fe39", "batch_fe40")
# kernels whose refusal is the supported answer: round(x, 2) of a Python float (CPython rounds the
# exact decimal value; NumPy's rint does not), an allocation whose extent is an element of the
# data (np.empty(L[n, m]) of an LCS table), and a recursive @njit helper (quicksort; helpers are
# inlined)
REFUSED = {"int_mean_round", "lcs_backtrack", "quicksort_recursive"}


def _cases():
    for batch in BATCHES:
        for case in importlib.import_module(batch).CASES:
            yield pytest.param(case, id=f"{batch}.{case.name}")


@pytest.mark.parametrize("case", list(_cases()))
def test_batch_kernel_matches_the_undecorated_function(case):
    try:
        verdict, detail = run_case(case)
    except polyfuse.UnsupportedError as exc:
        verdict, detail = "refused", str(exc).splitlines()[0]
    assert verdict == ("refused" if case.name in REFUSED else "match"), detail
