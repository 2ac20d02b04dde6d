"""Which suite kernels (and NumPy programs) have a loop that may stream, and which of them stream
at a size preset: POLYFUSE_LAZY_STREAMS's twins (backends/cpu/streams.py) that the first call
generated, with the seconds it took (``build_seconds`` of the first call, which the bench adds to
its compile column) and the time of the first call (plain) against the next ones (the twin).

    python benchmarks/lazy_streams_check.py --preset bench [NAME ...]   (np:NAME: a NumPy program)
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from polyfuse.backends.cpu.streams import STREAM_MARK

import polyfuse
from polyfuse.bench import numpy_suite, suite


def _arguments(name: str, preset: str):
    if name.startswith("np:"):
        program = numpy_suite.PROGRAMS[name[3:]]
        return program.func, program.args(preset)
    spec = suite.get(name)
    return spec.func, spec.make_args(np.random.default_rng(0), **spec.sizes[preset])


def check(name: str, preset: str) -> str:
    func, args = _arguments(name, preset)
    kernel = polyfuse.kernel(func)
    backend = getattr(kernel.compile(*args), "backend", None)
    streamed = getattr(getattr(backend, "artifact", None), "streamed", ())
    if backend is None:
        return f"{name}: not the LLVM backend"
    seconds = []
    builds = []
    for _ in range(4):
        fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        before, start = backend.build_seconds, time.perf_counter()
        kernel(*fresh)
        seconds.append(time.perf_counter() - start)
        builds.append(backend.build_seconds - before)
    twins = [twin for _, twin in streamed if twin in backend.generated]
    eager = STREAM_MARK in backend.artifact.linked_ir and not streamed  # (POLYFUSE_LAZY_STREAMS=0)
    return (f"{name}: {len(streamed)} probing function(s), twins made: {twins or 'none'}"
            f"{' (streaming copies inline)' if eager else ''}; calls ms "
            f"{', '.join(f'{s * 1e3:.1f}' for s in seconds)} (of which LLVM {', '.join(f'{b * 1e3:.1f}' for b in builds)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", default=["chain3", "softmax", "atax", "bicg", "mvt", "gemver", "gesummv"])
    parser.add_argument("--preset", default="bench")
    options = parser.parse_args()
    for name in options.names:
        print(check(name, options.preset), flush=True)


if __name__ == "__main__":
    main()
