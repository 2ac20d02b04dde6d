"""The disk cache keeps MCJIT's machine code: a load in another process links it, and the kernels
that call BLAS, LAPACK, the barrier of a parallel region or report an out-of-bounds subscript
still compute their function's results there (their symbols are resolved again, by name).  blas.py's
``ROW_GEMM`` (a product with few columns) is stored with the objects of each kernel that calls it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np

import polyfuse

CHILD = textwrap.dedent('''
    import json, sys
    import numpy as np
    import polyfuse
    from polyfuse.bench import suite

    def solve_twice(A, b):
        return np.linalg.solve(A, np.linalg.solve(A, b))

    def narrow(A, B):
        return A @ B

    def gather(X, idx, Y):
        for i in range(Y.shape[0]):
            Y[i] = X[idx[i]] * 2.0

    report = {}
    for name in ("gemm", "fdtd-2d", "jacobi-2d", "attention_rows"):
        spec = suite.get(name)
        args = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
        expected = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
        kernel = polyfuse.kernel(spec.func)
        variant = kernel.compile(*args)
        kernel(*args)
        spec.func(*expected)
        # (each function's machine code is generated, or linked from the cache, when it first runs)
        report[name] = [variant.from_cache, bool(variant.backend.artifact.objects) and not (
                            variant.from_cache and variant.backend.generated),
                        all(np.allclose(a, e, rtol=1e-10, atol=1e-12)
                            for a, e in zip(args, expected) if isinstance(a, np.ndarray))]
    rng = np.random.default_rng(1)
    A, b = rng.random((6, 6)) + 6 * np.eye(6), rng.random(6)
    kernel = polyfuse.kernel(solve_twice)
    variant = kernel.compile(A, b)
    solved = kernel(A, b)
    report["lapack"] = [variant.from_cache, bool(variant.backend.artifact.objects),
                        bool(np.allclose(solved, solve_twice(A, b)))]
    from polyfuse.backends.cpu.blas import NARROW_MIN_ROWS, ROW_GEMM_MODULE
    A, B = rng.random((NARROW_MIN_ROWS, NARROW_MIN_ROWS)), rng.random((NARROW_MIN_ROWS, 8))  # the narrow way
    kernel = polyfuse.kernel(narrow)
    variant = kernel.compile(A, B)
    product = kernel(A, B)
    report["narrow"] = [variant.from_cache, ROW_GEMM_MODULE in dict(variant.backend.artifact.objects) and not (
                            variant.from_cache and variant.backend.generated), bool(np.allclose(product, narrow(A, B)))]
    kernel = polyfuse.kernel(gather)
    X, idx, Y = np.ones(4), np.array([0, 3, 4]), np.zeros(3)
    try:
        kernel(X, idx, Y)
        message = ""
    except IndexError as exc:  # raised from the machine code's flag (a global of the object)
        message = str(exc)
    report["index error"] = [kernel.compile(X, idx, Y).from_cache, True, "X" in message and "4" in message]
    print(json.dumps(report))
''')


def _child(folder) -> dict:
    env = {**os.environ, "POLYFUSE_CACHE_DIR": str(folder / "kernels"), "POLYFUSE_NUM_THREADS": "2"}
    env.pop("POLYFUSE_DISABLE_CACHE", None)
    script = folder / "child.py"  # (in a file: polyfuse reads the kernels' source)
    script.write_text(CHILD)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_machine_code_from_another_process_computes_the_functions_results(tmp_path):
    """The second process generates no machine code: the first stored what its calls generated."""
    cold, warm = _child(tmp_path), _child(tmp_path)
    for name, (from_cache, has_objects, ok) in cold.items():
        assert not from_cache and has_objects and ok, (name, cold[name])
    for name, (from_cache, has_objects, ok) in warm.items():
        assert from_cache and has_objects and ok, (name, warm[name])


def axpy(a, X, Y):
    for i in range(X.shape[0]):
        Y[i] = a * X[i] + Y[i]


def test_a_kernel_compiled_here_carries_its_machine_code_once_it_ran():
    X, Y = np.arange(5.0), np.ones(5)
    kernel = polyfuse.kernel(axpy, cache=False)
    variant = kernel.compile(2.0, X, Y)
    assert variant.backend.artifact.objects == ()  # generated when first called
    kernel(2.0, X, Y)
    np.testing.assert_array_equal(Y, 2.0 * np.arange(5.0) + 1.0)
    names = [name for name, code in variant.backend.artifact.objects if code]
    assert names == ["axpy.phase0"]  # one module per function (llvm.split_functions)
