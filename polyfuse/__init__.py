"""polyfuse: a polyhedral loop-nest optimizer that fuses and tiles for cache."""

from .errors import ArgumentError, InternalError, PolyfuseError, UnsupportedError

__version__ = "0.1.0"
__all__ = ["ArgumentError", "InternalError", "PolyfuseError", "UnsupportedError", "__version__"]

from .kernel import Kernel, kernel  # noqa: E402
from .threads import get_num_threads, set_num_threads  # noqa: E402

__all__ += ["Kernel", "kernel", "get_num_threads", "set_num_threads"]
from .einsum import einsum, einsum_path  # noqa: E402
from .spec import Spec, SpecError, spec  # noqa: E402

__all__ += ["einsum", "einsum_path", "spec", "Spec", "SpecError"]
