"""A module of helpers with global tables of their own (tests/frontend/test_global_arrays.py)."""

import numpy as np

TABLE = np.array([10.0, 20.0, 30.0])  # the same name as a table of the test module, other values


def from_table(k):
    return TABLE[k % 3]
