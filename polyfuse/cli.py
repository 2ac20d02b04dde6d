"""The ``polyfuse`` command: ``bench``, ``version``, ``sysinfo`` and ``cache info|clear``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from polyfuse.version import __version__


def _kernel_list(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    from polyfuse.bench.harness import DEFAULT_JSON, PRESETS, SECTIONS

    parser = argparse.ArgumentParser(
        prog="polyfuse", description="polyfuse: a polyhedral loop-nest optimizer (fusion for cache).")
    parser.add_argument("--version", action="version", version=f"polyfuse {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    bench = commands.add_parser(
        "bench", help="compile the kernel suite with polyfuse and numba, check and time both",
        description="Section 'loops': compile every suite kernel with polyfuse and with numba.njit, "
        "check that the outputs agree (np.allclose, rtol 1e-7) and time both (min of repeated runs on "
        "fresh inputs); speedup = numba time / polyfuse time. Section 'einsum': polyfuse.einsum and "
        "polyfuse.spec against numpy.einsum(optimize=True), numpy step by step and opt_einsum.contract; "
        "ratio = other time / polyfuse time. Section 'numpy': NumPy programs (slices, ufuncs, reductions, "
        "stencil time loops, NN layers) as written vs under @polyfuse.kernel vs jax.jit where JAX is "
        "installed; np/pf = numpy time / polyfuse time. Exits non-zero if any row MISMATCHes or fails.")
    size = bench.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="use the 'quick' size preset (everything in "
                      "well under two minutes)")
    size.add_argument("--preset", choices=PRESETS, help="size preset (default: 'bench' for --target cpu, "
                      "'test' for --target python; 'large': PolyBench 4.2 LARGE for --section loops, big programs for --section numpy)")
    bench.add_argument("--section", choices=SECTIONS,
                       help="'loops' (suite kernels vs numba), 'einsum' (einsum and spec rows vs numpy and "
                       "opt_einsum), 'numpy' (NumPy programs vs polyfuse.kernel and jax.jit) or 'all' "
                       "(default: 'all', or 'loops' with --kernels or --target python)")
    bench.add_argument("--kernels", type=_kernel_list, default=(), metavar="A,B,...",
                       help="only these suite kernels, or with --section numpy these NumPy programs "
                       "(comma-separated; see --list)")
    bench.add_argument("--target", choices=("cpu", "python"), default="cpu",
                       help="polyfuse backend for the loops section (default: cpu; the einsum section "
                       "always uses cpu)")
    bench.add_argument("--repeats", type=_positive, default=5,
                       help="time the minimum of at least this many runs (default: 5)")
    bench.add_argument("--min-time", type=float, default=0.05, metavar="SECONDS",
                       help="keep repeating a short kernel until this much time was measured "
                       "(at most 1000 runs; default: 0.05)")
    bench.add_argument("--threads", type=_positive, metavar="N",
                       help="threads polyfuse may run parallel loops on (sets POLYFUSE_NUM_THREADS; "
                       "default: polyfuse's own default). numba.njit always runs on one thread")
    bench.add_argument("--blas-threads", type=_positive, metavar="N",
                       help="limit numpy's BLAS to N threads with threadpoolctl (must be installed; "
                       "default: leave BLAS as configured). The JSON records the pools either way when "
                       "threadpoolctl is installed")
    bench.add_argument("--use-cache", action="store_true",
                       help="let polyfuse use its disk cache of compiled kernels (off by default, so the "
                       "compile column measures real compilations)")
    bench.add_argument("--seed", type=int, default=0, help="seed of the input generator (default: 0)")
    bench.add_argument("--json", default=str(DEFAULT_JSON), metavar="PATH",
                       help=f"where to write the JSON results (default: {DEFAULT_JSON})")
    bench.add_argument("--no-json", action="store_true", help="do not write the JSON results")
    bench.add_argument("--list", action="store_true", help="list the suite kernels and their sizes, then exit")

    commands.add_parser("version", help="print the versions of polyfuse and its dependencies")
    commands.add_parser("sysinfo", help="versions, CPU, caches and threads polyfuse will plan for")
    cache = commands.add_parser("cache", help="inspect or clear the disk cache of compiled kernels")
    cache.add_argument("action", choices=("info", "clear"))
    return parser


def _bench(args: argparse.Namespace) -> int:
    from polyfuse.bench import harness as bench
    from polyfuse.bench import numpy_suite, suite

    if args.list:
        for spec in suite.KERNELS.values():
            sizes = " ".join(f"{k}={v}" for k, v in spec.sizes["bench"].items())
            print(f"{spec.name:<18} {spec.category:<10} {spec.description}  [bench: {sizes}]")
        for program in numpy_suite.all_programs().values():
            sizes = " ".join(f"{k}={v}" for k, v in program.sizes["bench"].items())
            kind = "numpy" if program.name in numpy_suite.PROGRAMS else "numpy*"
            print(f"{program.name:<18} {kind:<10} {program.description}  [bench: {sizes}]")
        print("(numpy: --section numpy; numpy*: waits for the frontend to accept "
              + ", ".join(sorted({n for p in numpy_suite.PENDING.values() for n in p.needs.split(", ")})) + ")")
        return 0
    preset = args.preset or ("quick" if args.quick else ("test" if args.target == "python" else "bench"))
    section = args.section or ("loops" if args.kernels or args.target == "python" else "all")
    try:
        settings = bench.BenchSettings(preset=preset, target=args.target, kernels=args.kernels,
                                       repeats=args.repeats, min_time=args.min_time, seed=args.seed,
                                       threads=args.threads, use_cache=args.use_cache, section=section,
                                       blas_threads=args.blas_threads)
        bench.check_names(settings)
    except ValueError as exc:
        print(f"polyfuse bench: {exc}", file=sys.stderr)
        return 2
    return bench.main(settings, None if args.no_json else args.json)


def _version() -> int:
    from polyfuse.bench.harness import machine_info

    info = machine_info()
    print(f"polyfuse {__version__}")
    for name, version in info["versions"].items():
        if name != "polyfuse":
            print(f"  {name} {version}")
    print(f"  python {info['python']} on {info['cpu']} ({info['cores']} cores)")
    return 0


def _sysinfo() -> int:
    import islpy
    import llvmlite
    import llvmlite.binding as llvm
    import numba
    import numpy

    from polyfuse import options
    from polyfuse.runtime import cache, threads

    cpu = options.machine()
    sources = dict(cpu.sources)
    print(f"polyfuse {__version__}")
    print(f"islpy {islpy.version.VERSION_TEXT}, llvmlite {llvmlite.__version__} "
          f"(LLVM {'.'.join(map(str, llvm.llvm_version_info))}), numba {numba.__version__}, "
          f"numpy {numpy.__version__}")
    print(f"cpu: {cpu.name} ({llvm.get_host_cpu_name()}), {cpu.cpus} usable cpus, "
          f"{threads.get_num_threads()} polyfuse threads")
    for key in ("l1d", "l2", "l3", "line"):
        print(f"  {key:<4} {getattr(cpu, key):>10} bytes  ({sources[key]})")
    features = llvm.get_host_cpu_features()
    wide = [f for f in ("avx2", "avx512f", "fma", "neon", "sve") if features.get(f)]
    print(f"  vector features: {', '.join(wide) or 'none of avx2/avx512f/fma/neon/sve'}")
    info = cache.info()
    print(f"cache: {info['directory']} ({'on' if info['enabled'] else 'off'}, {info['entries']} entries, "
          f"{info['bytes']} bytes)")
    return 0


def _cache(action: str) -> int:
    from polyfuse.runtime import cache

    if action == "clear":
        print(f"removed {cache.clear()} entries from {cache.directory()}")
        return 0
    for key, value in cache.info().items():
        print(f"{key}: {value}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "bench":
        return _bench(args)
    if args.command == "version":
        return _version()
    if args.command == "sysinfo":
        return _sysinfo()
    if args.command == "cache":
        return _cache(args.action)
    parser.print_help()
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
