#!/usr/bin/env python3
"""polyfuse on a CUDA GPU: the CUDA tests at real sizes, then one benchmark table.

    python benchmarks/gpu.py                 # real GPU: tests (pytest -m gpu + the rest), benchmark
    python benchmarks/gpu.py --no-tests      # only the benchmark
    python benchmarks/gpu.py --quick         # numba's CUDA simulator, tiny sizes (checks the script)
    python benchmarks/gpu.py --promotion     # only the promotion tests and the promotion on/off rows

Rows of the table (arrays stay on the device: the times are the kernels plus polyfuse's per-call
host work and launches, not PCIe copies; each time is the minimum over ``--repeats`` calls):

* ``chain3`` (add -> relu -> sigmoid): the fused streaming kernel and the unfused one, in GB/s of
  useful traffic (read A, B, write out) against the device's peak memory bandwidth;
* ``gemm``, ``matmul_bias_relu``, ``2mm``: GFLOP/s, against CuPy's matmul when CuPy is installed;
* ``attention_rows``: fused (S and P never leave the thread) against materialized (fuse="none");
* promotion: each of ``gemm``, ``2mm``, ``matmul_bias_relu``, ``syrk``, ``mvt``, ``attention_rows``
  compiled with shared-memory/register promotion (the default) and without
  (``POLYFUSE_CUDA_SHARED=0``), in one row pair per kernel, with the shared bytes per block used.

Every result is checked against the kernel's own Python function: compiled by numba's ``@njit``
at the real sizes (an independent compiler: a bug shared by polyfuse's targets cannot hide), run
as plain Python under --quick.
"""

from __future__ import annotations

import argparse
import inspect
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="numba's CUDA simulator and tiny sizes")
    p.add_argument("--no-tests", action="store_true", help="skip the pytest run")
    p.add_argument("--promotion", action="store_true",
                   help="only the promotion tests and the promotion on/off rows (a short GPU session)")
    p.add_argument("--repeats", type=int, default=None, help="timed calls per row (default 10, 1 with --quick)")
    return p.parse_args(argv)


def run_tests(quick: bool, promotion_only: bool = False) -> int:
    env = dict(os.environ)
    tests = ROOT / "tests" / "backends" / "cuda"
    files = ([] if promotion_only else
             [str(tests / name) for name in ("test_cuda.py", "test_cuda_bitwise.py", "test_cuda_order.py")])
    args = [sys.executable, "-m", "pytest", *files, str(tests / "test_cuda_promotion.py"), "-q"]
    if quick:
        env.setdefault("NUMBA_ENABLE_CUDASIM", "1")
        args += ["-k", "chain3 or device or error or budget"]
    else:
        env["NUMBA_ENABLE_CUDASIM"] = "0"
        env["POLYFUSE_TEST_GPU"] = "1"
    print("$", " ".join(args[2:]), flush=True)
    return subprocess.call(args, env=env, cwd=ROOT)


# ---- benchmark ------------------------------------------------------------------------------

SIZES = {  # (real GPU, --quick)
    "chain3": (dict(n=1 << 26), dict(n=256)),
    "gemm": (dict(ni=2048, nj=2048, nk=2048), dict(ni=8, nj=9, nk=7)),
    "matmul_bias_relu": (dict(ni=2048, nk=2048, nj=2048), dict(ni=8, nk=7, nj=9)),
    "2mm": (dict(ni=1024, nj=1024, nk=1024, nl=1024), dict(ni=6, nj=7, nk=8, nl=9)),
    "attention_rows": (dict(nq=4096, nk=4096, d=64, dv=64), dict(nq=8, nk=9, d=4, dv=5)),
    "syrk": (dict(n=2048, m=2048), dict(n=9, m=7)),
    "mvt": (dict(n=8192), dict(n=17)),
}
PROMOTION_CASES = (  # (kernel, fuse): the fusion mode whose loop nest the promotion works on
    ("gemm", "smart"), ("2mm", "none"), ("matmul_bias_relu", "none"), ("syrk", "none"),
    ("mvt", "smart"), ("attention_rows", "none"),
)
FLOPS = {
    "gemm": lambda s: 2.0 * s["ni"] * s["nj"] * s["nk"],
    "matmul_bias_relu": lambda s: 2.0 * s["ni"] * s["nj"] * s["nk"],
    "2mm": lambda s: 2.0 * s["ni"] * s["nj"] * s["nk"] + 2.0 * s["ni"] * s["nl"] * s["nj"],
}


def peak_bandwidth(cuda) -> float | None:
    """Bytes/s from the memory clock and bus width (double data rate); None if unknown."""
    try:
        dev = cuda.get_current_device()
        return 2.0 * dev.MEMORY_CLOCK_RATE * 1e3 * dev.GLOBAL_MEMORY_BUS_WIDTH / 8
    except Exception:  # noqa: BLE001 - the simulator and some drivers do not say
        return None


def device_name(cuda, simulator: bool) -> str:
    if simulator:
        return "numba CUDA simulator"
    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    return f"{name} (compute capability {'.'.join(map(str, dev.compute_capability))})"


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return min(times)


class Bench:
    def __init__(self, quick: bool, repeats: int) -> None:
        import numpy as np
        from numba import cuda

        import polyfuse
        from polyfuse.bench import suite

        self.np, self.cuda, self.polyfuse, self.suite = np, cuda, polyfuse, suite
        self.quick, self.repeats = quick, repeats
        self.rows: list[tuple[str, ...]] = []
        self.failures: list[str] = []
        self.references: dict[str, tuple] = {}

    def sizes(self, name: str) -> dict:
        return SIZES[name][1 if self.quick else 0]

    def inputs(self, name: str):
        sk = self.suite.KERNELS[name]
        return sk, sk.make_args(self.np.random.default_rng(0), **self.sizes(name))

    def reference(self, sk, args):
        """The outputs of the kernel's own function on ``args``, computed once per kernel."""
        if sk.name not in self.references:
            self.references[sk.name] = self._reference(sk, args)
        return self.references[sk.name]

    def _reference(self, sk, args):
        expected = tuple(a.copy() if isinstance(a, self.np.ndarray) else a for a in args)
        if self.quick:
            sk.func(*expected)
        else:
            import numba

            numba.njit(sk.func)(*expected)
        return expected

    def timed(self, sk, args, fuse: str, shared: bool = True):
        """(seconds per call, outputs on the host) with the arrays resident on the device;
        ``shared=False`` compiles without promotion (POLYFUSE_CUDA_SHARED=0)."""
        previous = os.environ.get("POLYFUSE_CUDA_SHARED")
        os.environ["POLYFUSE_CUDA_SHARED"] = "1" if shared else "0"
        try:
            return self._timed(sk, args, fuse)
        finally:
            if previous is None:
                del os.environ["POLYFUSE_CUDA_SHARED"]
            else:
                os.environ["POLYFUSE_CUDA_SHARED"] = previous

    def _timed(self, sk, args, fuse: str):
        """Each timed call starts from the inputs (kernels update arrays in place: a stencil run
        on its own output would time, and check, another computation); the outputs checked are
        the last timed call's."""
        k = self.polyfuse.kernel(sk.func, target="cuda", fuse=fuse)
        self.last_kernel = k
        device = tuple(self.cuda.to_device(a) if isinstance(a, self.np.ndarray) else a for a in args)
        k(*device)  # compile (numba JITs each kernel on its first launch)
        times = []
        for _ in range(self.repeats):
            for d, a in zip(device, args):
                if isinstance(a, self.np.ndarray):
                    d.copy_to_device(a)  # reset, outside the timed region
            self.cuda.synchronize()
            began = time.perf_counter()
            k(*device)
            self.cuda.synchronize()
            times.append(time.perf_counter() - began)
        out = tuple(d.copy_to_host() if hasattr(d, "copy_to_host") else d for d in device)
        return min(times), out

    def check(self, label: str, sk, expected, actual) -> str:
        params = list(inspect.signature(sk.func).parameters)
        for name in sk.outputs:
            pos = params.index(name)
            if not self.np.allclose(actual[pos], expected[pos], rtol=1e-9, atol=1e-9, equal_nan=True):
                self.failures.append(f"{label}: {name} differs from the reference")
                return "MISMATCH"
        return "ok"

    def add(self, case, variant, size, seconds, metric, versus, status):
        self.rows.append((case, variant, size, f"{seconds * 1e3:.3f}", metric, versus, status))
        print("row:", " | ".join(self.rows[-1]), flush=True)  # kept if a later row never finishes

    # ---- rows ----------------------------------------------------------------------------
    def streaming(self, peak: float | None) -> None:
        sk, args = self.inputs("chain3")
        n = self.sizes("chain3")["n"]
        expected = self.reference(sk, args)
        useful = 3 * 8 * n  # read A, read B, write out
        for fuse in ("smart", "none"):
            seconds, out = self.timed(sk, args, fuse)
            rate = useful / seconds
            vs = f"{100 * rate / peak:.0f}% of peak {peak / 1e9:.0f} GB/s" if peak else "peak unknown"
            self.add("chain3 streaming", f"fuse={fuse}", f"n={n}", seconds, f"{rate / 1e9:.1f} GB/s", vs,
                     self.check(f"chain3 fuse={fuse}", sk, expected, out))

    def gemm_like(self) -> None:
        cupy = None
        if not self.quick:
            try:
                import cupy
            except ImportError:
                cupy = None
        for name in ("gemm", "matmul_bias_relu", "2mm"):
            sk, args = self.inputs(name)
            sizes = self.sizes(name)
            expected = self.reference(sk, args)
            seconds, out = self.timed(sk, args, "smart")
            flops = FLOPS[name](sizes)
            versus = "cupy not installed" if cupy is None else self.cupy_matmul(cupy, sizes, flops)
            self.add(name, "fuse=smart", " ".join(f"{k}={v}" for k, v in sizes.items()), seconds,
                     f"{flops / seconds / 1e9:.1f} GFLOP/s", versus, self.check(name, sk, expected, out))

    def cupy_matmul(self, cupy, sizes: dict, flops: float) -> str:
        ni, nk = sizes["ni"], sizes["nk"]
        nj = sizes.get("nj", ni)
        a = cupy.random.random((ni, nk))
        b = cupy.random.random((nk, nj))
        cupy.matmul(a, b)
        cupy.cuda.Device().synchronize()

        def call():
            cupy.matmul(a, b)
            cupy.cuda.Device().synchronize()

        seconds = best(call, self.repeats)
        return f"cupy matmul {2.0 * ni * nj * nk / seconds / 1e9:.1f} GFLOP/s"

    def attention(self) -> None:
        sk, args = self.inputs("attention_rows")
        sizes = self.sizes("attention_rows")
        expected = self.reference(sk, args)
        results = {}
        for fuse in ("smart", "none"):
            seconds, out = self.timed(sk, args, fuse)
            results[fuse] = seconds
            versus = "" if fuse == "smart" else f"fused is {seconds / results['smart']:.2f}x faster"
            variant = "fused" if fuse == "smart" else "materialized S, P"
            self.add("attention_rows", variant, " ".join(f"{k}={v}" for k, v in sizes.items()), seconds,
                     "", versus, self.check(f"attention fuse={fuse}", sk, expected, out))

    def promotion(self) -> None:
        """Promotion on against off, kernel by kernel (same fusion mode, same sizes)."""
        for name, fuse in PROMOTION_CASES:
            sk, args = self.inputs(name)
            sizes = self.sizes(name)
            expected = self.reference(sk, args)
            size = " ".join(f"{k}={v}" for k, v in sizes.items())
            on, out_on = self.timed(sk, args, fuse, shared=True)
            used = self.shared_bytes(self.last_kernel, args)
            off, out_off = self.timed(sk, args, fuse, shared=False)
            flops = FLOPS[name](sizes) if name in FLOPS else None
            self.add(f"{name} (fuse={fuse})", f"promoted, {used} B shared", size, on, _rate(flops, on),
                     f"{off / on:.2f}x vs global only", self.check(f"{name} promoted", sk, expected, out_on))
            self.add(f"{name} (fuse={fuse})", "global only", size, off, _rate(flops, off), "",
                     self.check(f"{name} not promoted", sk, expected, out_off))

    def shared_bytes(self, kernel, args) -> int:
        """The largest static shared memory of one launch of ``kernel`` (bytes per block)."""
        backend = kernel.compile(*args).backend
        return max((sum(b.nbytes for b in p.buffers()) for p in backend.promotions.values()), default=0)

    def table(self) -> str:
        head = ("case", "variant", "size", "ms/call", "rate", "versus", "check")
        widths = [max(len(r[i]) for r in [head, *self.rows]) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths)),
                 "  ".join("-" * w for w in widths)]
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in self.rows]
        return "\n".join(lines)


def _rate(flops: float | None, seconds: float) -> str:
    return f"{flops / seconds / 1e9:.1f} GFLOP/s" if flops else ""


def main(argv=None) -> int:
    opts = parse(sys.argv[1:] if argv is None else argv)
    if opts.quick:
        os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
    status = 0
    if not opts.no_tests:
        status = run_tests(opts.quick, opts.promotion)
        if status:
            print(f"tests failed (exit {status}); benchmarking anyway", flush=True)
    from numba import config

    simulator = bool(config.ENABLE_CUDASIM)
    if simulator and not opts.quick:
        print("the CUDA simulator is on (NUMBA_ENABLE_CUDASIM): use --quick, or unset it on a GPU machine")
        return 2
    bench = Bench(opts.quick, opts.repeats or (1 if opts.quick else 10))
    from polyfuse.backends.cuda.codegen import cuda_api

    cuda_api("benchmarks/gpu.py")  # a clear error without a GPU
    peak = None if simulator else peak_bandwidth(bench.cuda)
    print(f"device: {device_name(bench.cuda, simulator)}"
          + (f", peak memory bandwidth {peak / 1e9:.0f} GB/s" if peak else ""), flush=True)
    began = time.perf_counter()
    if not opts.promotion:
        bench.streaming(peak)
        bench.gemm_like()
        bench.attention()
    bench.promotion()
    print()
    print(bench.table())
    print(f"\n{len(bench.rows)} rows in {time.perf_counter() - began:.1f} s"
          + (" (simulator: the times mean nothing)" if simulator else ""))
    for failure in bench.failures:
        print("FAIL:", failure)
    return 1 if bench.failures or status else 0


if __name__ == "__main__":
    sys.exit(main())
