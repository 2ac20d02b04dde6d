"""A kernel returning a tuple on one path and a number (or a tuple of another length) on another
is refused with a message about its returns, not about frontend.early_return's internal result
local (``tuple local '_pf_result' is assigned more than once``, cp36's control campaign)."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def number_or_pair(x, n):
    acc = 0.0
    for i in range(n):
        if x[i] > acc:
            return acc
        acc = acc + x[i]
    return (acc, n)


def test_mixed_returns_are_refused_at_the_return_with_a_message_about_returns():
    with pytest.raises(polyfuse.UnsupportedError) as info:
        polyfuse.kernel(number_or_pair)(np.ones(4), 3)
    message = str(info.value)
    assert "a tuple on one path and another value" in message and "_pf_" not in message
    assert "return (acc, n)" in message
