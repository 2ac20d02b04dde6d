"""Unstructured-grid programs as NumPy users write them: index grids from np.ogrid, neighbour
tables read as index arrays (NumPy's advanced indexing with several arrays), stores through the
grids in a time loop (frontend/advanced_index.py)."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def relax_with_neighbour_table(u, v, offsets, steps):
    """A 2-D relaxation whose neighbours come from a table of (row, column) offsets per cell."""
    n, m = u.shape
    i, j = np.ogrid[1:n - 1, 1:m - 1]
    for _ in range(steps):
        v[i, j] = 0.2 * (u[i, j]
                         + u[i + offsets[i, j, 0], j + offsets[i, j, 1]]
                         + u[i + offsets[i, j, 2], j + offsets[i, j, 3]]
                         + u[i, j - 1] + u[i, j + 1])
        u[i, j] = 0.5 * (v[i, j] + u[i, j])


def mesh_gather(values, cell_rows, cell_cols, weights):
    """Per triangle, a weighted sum of its three vertices' values on a (rows, cols) grid; vertex
    indices may be negative (NumPy counts them from the end)."""
    corners = values[cell_rows, cell_cols]          # (cells, 3): two index arrays of one shape
    centre = values[cell_rows[:, :1], cell_cols[:, 1]]  # (cells, 1) and (cells,): broadcast to (cells, cells)
    return np.sum(corners * weights, axis=1) + 0.01 * np.sum(centre, axis=0)


def _offsets(rng, n, m):
    return rng.integers(-1, 2, size=(n, m, 4))


CASES = [
    Case("relax_with_neighbour_table", relax_with_neighbour_table,
         lambda rng: (rng.random((7, 8)), rng.random((7, 8)), _offsets(rng, 7, 8), 3)),
    Case("mesh_gather", mesh_gather,
         lambda rng: (rng.random((5, 6)), rng.integers(-5, 5, size=(9, 3)), rng.integers(-6, 6, size=(9, 3)),
                      rng.random((9, 3))), rtol=1e-12),
]
