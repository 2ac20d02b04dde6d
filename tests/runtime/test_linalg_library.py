"""The BLAS that compiled products call: NumPy's own where it is found, SciPy's otherwise, and
either one gives NumPy's results (bit for bit only with NumPy's own library)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from polyfuse.runtime import linalg_library

_PROGRAM = """
import numpy as np, polyfuse
from polyfuse.runtime.linalg_library import describe
def k(A, B, x, y):
    return A @ B, A @ x, x[::3] @ y[::3]
rng = np.random.default_rng(0)
args = rng.random((70, 80)), rng.random((80, 60)), rng.random(80), rng.random(80)
got, want = polyfuse.kernel(k, cache=False)(*args), k(*args)
for g, w in zip(got, want):
    np.testing.assert_allclose(g, w, rtol=1e-12)
def lin(A, b, Z):
    return np.linalg.solve(A, b), np.linalg.det(A), np.linalg.inv(Z)
A, Z = rng.random((9, 9)) + 9 * np.eye(9), rng.random((5, 5)) + 1j * rng.random((5, 5))
try:
    got = polyfuse.kernel(lin, cache=False)(A, args[2][:9], Z)
except polyfuse.UnsupportedError as error:
    assert describe() == "none" and "POLYFUSE_BLAS=none" in str(error), error
else:
    for g, w in zip(got, lin(A, args[2][:9], Z)):
        np.testing.assert_allclose(g, w, rtol=1e-12)
print(describe())
"""


def test_numpy_s_own_library_when_its_wheel_bundles_openblas():
    import numpy as np

    found = linalg_library.library()
    assert found is not None
    blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    if blas.get("name") == "scipy-openblas":
        assert found.name == "numpy-openblas"
        assert found.int_bits == (64 if "USE64BITINT" in blas["openblas configuration"] else 32)
    assert found.address("dgemm") and found.address("sdot") and not found.address("no_such_routine")


@pytest.mark.parametrize("choice", ["scipy", "none"])
def test_every_library_choice_gives_numpy_s_results(choice, tmp_path):
    """In a fresh process, since the choice is made once: SciPy's LP64 interface (32-bit sizes,
    32-bit LAPACK pivots widened in place) and no BLAS at all (products as loops, np.linalg
    refused naming the setting) compute the same products and np.linalg results."""
    env = dict(os.environ, POLYFUSE_BLAS=choice)
    program = tmp_path / "products.py"
    program.write_text(_PROGRAM)
    out = subprocess.run([sys.executable, str(program)], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ("scipy-cython/int32" if choice == "scipy" else "none")
