"""polyfuse: a polyhedral loop-nest optimizer that fuses and tiles for cache."""

from polyfuse.errors import ArgumentError, InternalError, PolyfuseError, UnsupportedError
from polyfuse.version import __version__  # noqa: E402

__all__ = ["ArgumentError", "InternalError", "PolyfuseError", "UnsupportedError", "__version__"]

from polyfuse.kernel import Kernel, kernel  # noqa: E402
from polyfuse.runtime.threads import get_num_threads, set_num_threads  # noqa: E402

__all__ += ["Kernel", "kernel", "get_num_threads", "set_num_threads", "prange"]
prange = range  # numba's prange: compiles as range; dependences decide which loops run in parallel
from polyfuse.tensor.einsum import einsum, einsum_path  # noqa: E402
from polyfuse.tensor.spec import Spec, SpecError, spec  # noqa: E402

__all__ += ["einsum", "einsum_path", "spec", "Spec", "SpecError"]
