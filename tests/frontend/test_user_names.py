"""Refusals name the user's own names, never the frontend's: an argument bound again (``u =
u_next`` in a loop: the rewrite's ``u_2``), and a temporary of an expression."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def wave_1d(u, u_prev, c, steps):
    for _ in range(steps):
        u_next = u * 0.0  # not an allocation the rotation of fresh buffers knows (np.empty_like is: fe38)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_next[0] = 0.0
        u_next[-1] = 0.0
        u_prev = u
        u = u_next
    return u


def test_a_refusal_names_the_rebound_argument_as_written():
    with pytest.raises(polyfuse.UnsupportedError) as info:
        polyfuse.kernel(wave_1d, target="python")(np.zeros(5), np.zeros(5), 0.1, 2)
    message = str(info.value)
    assert "test_user_names.py:" in message and "'u'" in message and "u[...]" in message
    assert "u_2" not in message and "u_prev_2" not in message
