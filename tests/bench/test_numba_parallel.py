"""The loops table's numba-with-threads column: prange only where polyfuse proves the loop's
iterations independent, and the result equal to serial numba's."""

from __future__ import annotations

import ast

import numba
import numpy as np

from polyfuse.bench import suite
from polyfuse.bench.numba_parallel import _every_loop_prange, numba_parallel


def _args(name):
    sk = suite.get(name)
    return sk, sk.make_args(np.random.default_rng(0), **sk.sizes["test"])


def _loop_vars(func, lines):
    tree = ast.parse(_every_loop_prange(func))
    return {n.target.id for n in ast.walk(tree) if isinstance(n, ast.For) and n.lineno in lines}


def test_a_time_loop_stays_serial_and_the_loops_inside_it_get_prange():
    sk, args = _args("jacobi-2d")
    found = numba_parallel(sk.func, args)
    assert found is not None
    fn, lines = found
    assert _loop_vars(sk.func, lines) == {"i"} and len(lines) == 2  # both sweeps' row loops, not t
    ours = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    theirs = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    fn(*ours)
    numba.njit(sk.func)(*theirs)
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)


def test_an_in_place_sweep_has_no_parallel_version():
    sk, args = _args("seidel-2d")
    assert numba_parallel(sk.func, args) is None
