"""``@polyfuse.kernel``: lazy, per-signature compilation of a Python loop-nest function."""

from __future__ import annotations

import ast
import functools
import inspect
import os
import threading
import types
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyfuse.compiler import compile_kernel
from polyfuse.errors import ArgumentError, InternalError, PolyfuseError
from polyfuse.explain import Explanation
from polyfuse.frontend.checker import array_default, default_error, is_number
from polyfuse.frontend.function_args import BOUND, bound_texts, is_function, specialise
from polyfuse.frontend.global_arrays import FROZEN, frozen_copy, global_arrays, with_frozen_parameters
from polyfuse.frontend.rewrite import helper_function, helper_texts
from polyfuse.frontend.source import KernelSource, file_lines, read_source, register_source
from polyfuse.frontend.tuple_args import part_name, unpack_tuples
from polyfuse.model.isl_budget import ISL_LOCK
from polyfuse.model.isl_budget import budget as isl_budget
from polyfuse.model.scop import Argument
from polyfuse.options import Options, compile_operations, debug_errors, default_verify
from polyfuse.runtime import cache
from polyfuse.runtime.native import MISS, outdated, warm
from polyfuse.runtime.signature import argument_of, is_dask_array, is_device_array, signature_key, unit_axes
from polyfuse.runtime.sparse import unpack_sparse
from polyfuse.runtime.variant import (
    PLAN_FLOAT_SCALARS,
    PLAN_INT_SCALARS,
    CallPlan,
    CompiledVariant,
    RunsInPython,
    call_key,
    local_bytes,
)

_COMPILE_LOCK = ISL_LOCK
KERNEL_OPTIONS = ("target", "fuse", "verify", "opt_level", "contract", "tile", "registers", "fastmath",
                  "vector_math", "interleave", "parallel", "cache", "blas", "boundscheck", "nopython", "nogil")
MAX_PLANS = 64  # call plans (sets of sizes) kept per kernel; the oldest goes first


#: the parameters a kernel takes: positional ones that may also be passed by keyword
_PLAIN_PARAMETERS = (inspect.Parameter.POSITIONAL_OR_KEYWORD,)


class Kernel:
    """A compiled-on-first-call kernel; ``kernel.py_func`` is the undecorated function."""

    def __init__(self, fn, *, target: str = "cpu", fuse: str = "smart", verify: bool | None = None,
                 opt_level: int = 3, contract: bool = True, tile: bool = False,
                 registers: bool = True, fastmath: bool = False, vector_math: bool = True,
                 interleave: bool | None = None, parallel: bool = True, cache: bool = True, blas: bool = True,
                 boundscheck: bool | None = None, nopython: bool = True, nogil: bool = True,
                 **unknown: Any) -> None:
        # numba's boundscheck, nopython and nogil are accepted: polyfuse always proves bounds,
        # compiles the whole kernel or refuses it, and runs compiled code without the GIL
        if unknown:
            raise ArgumentError(f"unknown option {next(iter(unknown))!r} for polyfuse.kernel; valid "
                                f"options: {', '.join(KERNEL_OPTIONS)}")
        self.py_func = fn
        # the decorator's options as given: a pickled kernel is rebuilt from them (KernelRecipe, below)
        self.init_options = dict(target=target, fuse=fuse, verify=verify, opt_level=opt_level, contract=contract,
                                 tile=tile, registers=registers, fastmath=fastmath, vector_math=vector_math,
                                 interleave=interleave, parallel=parallel, cache=cache, blas=blas,
                                 boundscheck=boundscheck)
        self._dask_analyses: dict[tuple, Any] = {}  # signature -> Scop and dependences (polyfuse.dask)
        self._dask_plans: dict[tuple, Any] = {}  # sizes and chunks -> polyfuse.dask's plan
        self.options = Options(target=target, fuse=fuse,
                               verify=default_verify() if verify is None else verify,
                               opt_level=opt_level, contract=contract, tile=tile, registers=registers,
                               fastmath=fastmath, vector_math=vector_math, interleave=interleave,
                               parallel=bool(parallel), cache=bool(cache), blas=bool(blas))
        self._signature = inspect.signature(fn)
        self._names = tuple(self._signature.parameters)
        self._defaults = {name: p.default for name, p in self._signature.parameters.items()
                          if p.default is not inspect.Parameter.empty}
        self._array_defaults: dict[str, np.ndarray | tuple] = {}  # list defaults NumPy converts (array_default)
        # parameters whose default is a function (parakeet's mode=wrap): each call binds functions
        self._function_defaults = any(map(is_function, self._defaults.values()))
        self._specialised: dict[tuple, Kernel] = {}  # (parameter, function) pairs -> their kernel
        self._positional: dict[tuple, tuple[Kernel, tuple[tuple[int, bool], ...]]] = {}  # positional calls
        self._variants: dict[str, CompiledVariant] = {}
        self._dispatch: dict[tuple, CompiledVariant] = {}  # cheap per-call key -> variant
        self._plans: dict[tuple, CallPlan] = {}  # call_key of each argument -> checked plan
        self._seen: set[tuple] = set()  # keys called once: a plan is made on the second call
        self._fast: Any = None  # the native entry of the plan used last (runtime/native.py)
        # global arrays the body reads: (kernel taking them first, their frozen copies), made on the
        # first call (frontend/global_arrays.py); () where it reads none
        self._frozen: tuple[Kernel, tuple[np.ndarray, ...]] | tuple[()] | None = None
        self._source: KernelSource | None = None  # py_func's parsed source, read once (read_source)
        self._lock = threading.Lock()
        self.python_calls = 0  # calls the undecorated function ran (sizes outside the compiled assumptions)
        functools.update_wrapper(self, fn)

    def __repr__(self) -> str:
        return f"<polyfuse.Kernel {self.py_func.__qualname__} {self.options.key()}>"

    def __reduce__(self):
        """Pickled as function, source and options; the receiving process compiles (or loads
        from the disk cache) on first use: no compiled object crosses the network."""
        return (rebuild, (recipe_of(self),))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        called = args
        try:
            fast = self._fast  # the latest plan's native entry: it checks that the call is that plan's
            if fast is not None and not kwargs:
                result = fast(*args)
                if result is not MISS:
                    return result
            if self._function_defaults:  # (never a plan of its own: its specialised kernels have them)
                return self._call_functions(args, kwargs)
            if len(args) < len(self._names) and not kwargs:
                args = self._with_defaults(args)
            # a call with these dtypes, shapes, strides and ints passed every check before: the plan
            key = None if kwargs else tuple(map(call_key, args))
            plan = None if key is None else self._plans.get(key)
            if plan is not None and key is not None:
                if plan.fast is None or outdated(plan):
                    warm(plan, key)
                fast = self._fast = plan.fast
                if fast is not None:  # (calls that omit defaults, or at other sizes than the last)
                    result = fast(*args)
                    if result is not MISS:
                        return result
                return plan.run(args)
            return self._call(args, kwargs)
        except PolyfuseError as exc:
            if debug_errors():
                raise
            raise exc.with_traceback(None) from None  # the user's frame, not ours
        except RunsInPython:
            if hasattr(self.py_func, FROZEN) or hasattr(self.py_func, BOUND):
                raise  # a kernel called by another with other arguments: the one the user called runs it
            self.python_calls += 1  # explain() says which sizes do this
            return self.py_func(*called, **kwargs)

    def _call(self, args: tuple, kwargs: dict) -> Any:
        if self._function_defaults or any(is_function(a) or type(a) is tuple for a in args) \
                or any(is_function(v) or type(v) is tuple for v in kwargs.values()):
            return self._call_functions(args, kwargs)
        frozen = self._frozen_globals()
        if frozen:
            inner, arrays = frozen
            return inner(*arrays, *args, **kwargs)
        return self._call_plain(args, kwargs)

    def _frozen_globals(self) -> tuple[Kernel, tuple[np.ndarray, ...]] | tuple[()]:
        """The kernel compiled with the global arrays the body reads as its first parameters and
        their copies, taken now, on the first call (numba freezes a global array when it compiles:
        later changes to the global are not seen); () where the body reads none."""
        if self._frozen is None:
            with self._lock:
                if self._frozen is None:
                    found = {} if hasattr(self.py_func, FROZEN) else global_arrays(self.py_func, helper_function,
                                                                                  self._source_of)
                    if not found:
                        self._frozen = ()
                    else:
                        fn = with_frozen_parameters(self.py_func, tuple(found))
                        options: dict[str, Any] = dict(self.init_options, blas=self.options.blas)
                        inner = Kernel(fn, **options)
                        self._frozen = (inner, tuple(frozen_copy(a) for a in found.values()))
        return self._frozen

    def _source_of(self, fn) -> KernelSource:
        """``read_source(fn)``, read once for the kernel's own function: the global-array scan
        and the disk cache's key both need it (neither changes the tree)."""
        if fn is not self.py_func:
            return read_source(fn)
        if self._source is None:
            self._source = read_source(fn)
        return self._source

    def _call_plain(self, args: tuple, kwargs: dict) -> Any:
        key = None
        if kwargs or len(args) != len(self._names):
            values = self._bind(args, kwargs)
        else:
            key = tuple(map(call_key, args))  # a sparse matrix's is None: no plan, every call unpacks it
            values = unpack_tuples(unpack_sparse(dict(zip(self._names, args))))
        dispatch = tuple(map(_dispatch_key, values.values()))
        if tuple(values) != self._names:  # sparse matrices, tuples unpacked: their parts' names say the format
            dispatch += tuple(values)
        if None in dispatch and any(map(is_dask_array, values.values())):
            from polyfuse.dask import call_values

            return call_values(self, values)  # a Dask graph instead of a computation
        variant = self._dispatch.get(dispatch)
        if variant is None:
            variant = self._variant(values, for_call=True)
            if None not in dispatch:
                self._dispatch[dispatch] = variant
        result = variant.run(values)
        if key is not None and None not in key:
            self._remember(key, variant, values)
        return result

    def _call_functions(self, args: tuple, kwargs: dict) -> Any:
        """A call binding functions to parameters (passed or defaults), or passing tuples: the
        kernel compiled for those function objects, whose parameters are the tuples' elements
        (frontend/function_args.py, tuple_args.py), runs with the other arguments, the tuples
        flattened, so that its call plans serve later calls."""
        if not kwargs:  # positional: which arguments are functions or tuples decides the binding
            key = (len(args), tuple(a if is_function(a) else ("tuple", len(a)) if type(a) is tuple else None
                                    for a in args))
            known = self._positional.get(key)
            if known is not None:
                special, kept = known
                return special(*[v for k, whole in kept for v in (args[k] if whole else (args[k],))])
        special, new_args, new_kwargs = self._specialised_for(args, kwargs)
        if special is self:
            return self._call_plain(args, kwargs)
        if not kwargs and not new_kwargs and len(self._positional) < MAX_PLANS:
            self._positional[key] = (special, tuple((k, type(a) is tuple) for k, a in enumerate(args)
                                                    if not is_function(a)))
        return special(*new_args, **new_kwargs)

    def _specialised_for(self, args: tuple, kwargs: dict) -> tuple[Kernel, tuple, dict]:
        """The kernel for the functions this call binds and the lengths of its tuples, and its
        arguments (``self`` and the call unchanged where it binds none)."""
        try:
            bound = _bound(self._signature, args, kwargs)
        except TypeError as exc:
            raise ArgumentError(f"{self.py_func.__name__}(): {exc}") from None
        values = dict(bound.arguments)
        for name, default in self._defaults.items():
            if name not in values and is_function(default):
                values[name] = default
        functions = tuple((name, value) for name, value in values.items() if is_function(value))
        tuples = tuple((name, len(v)) for name, v in values.items()
                       if type(v) is tuple and v and all(map(is_number, v)))
        if not functions and not tuples:
            frozen = self._frozen_globals()
            if frozen:  # global arrays read: the kernel that takes them first
                return frozen[0], (*frozen[1], *args), kwargs
            return self, args, kwargs
        special = self._specialised.get((functions, tuples))
        if special is None:
            try:
                fn = specialise(self.py_func, dict(functions), dict(tuples))
            except ValueError:  # (parts without defaults after a parameter with one)
                return self, args, kwargs
            options: dict[str, Any] = dict(self.init_options, blas=self.options.blas)
            special = self._specialised[(functions, tuples)] = Kernel(fn, **options)
        rest: dict[str, Any] = {}
        for name, value in values.items():
            if dict(tuples).get(name):
                rest.update((part_name(name, k), item) for k, item in enumerate(value))
            elif not is_function(value):
                rest[name] = value
        if list(rest) == list(special._names):
            return special, tuple(rest.values()), {}  # positional: its plans and native entry serve later calls
        return special, (), rest

    def _remember(self, key: tuple, variant: CompiledVariant, values: dict[str, Any]) -> None:
        """A plan for ``key`` the second time it is seen: a kernel called with a new int each time
        (an offset, a time step) does not pay for plans it never reuses."""
        if key not in self._seen:
            if len(self._seen) >= 4 * MAX_PLANS:
                self._seen.clear()
            self._seen.add(key)
            return
        plan = variant.plan(values)
        if plan is None:
            return
        if len(self._plans) >= MAX_PLANS:
            self._plans.pop(next(iter(self._plans)), None)  # the oldest
        self._plans[key] = plan

    # ---- introspection -------------------------------------------------------------------
    def compile(self, *args: Any, **kwargs: Any) -> CompiledVariant:
        """Compile (or fetch) the variant for these arguments without running it."""
        special, args, kwargs = self._specialised_for(args, kwargs)
        return special._variant(special._bind(args, kwargs))

    def explain(self, *args: Any, **kwargs: Any) -> Explanation:
        """What polyfuse did for this signature: statements, dependences, fusion, loops, times;
        the fusion records' traffic estimates evaluated at these arguments' sizes."""
        special, args, kwargs = self._specialised_for(args, kwargs)
        values = special._bind(args, kwargs)
        variant = special._variant(values)
        with _COMPILE_LOCK:  # the explanation prints and evaluates isl objects of the compile
            explanation = Explanation.of(variant, self.options).at_sizes(variant.bind(values))
        return explanation.for_call(variant, values).with_backend(variant.backend)

    def inspect_llvm(self, *args: Any, optimized: bool = True, **kwargs: Any) -> str:
        """The LLVM IR for these arguments' signature, after (default) or before optimisation."""
        if self.options.target != "cpu":
            raise ArgumentError(f"inspect_llvm() needs target='cpu' (this kernel is {self.options.target!r})")
        variant = self.compile(*args, **kwargs)
        return variant.backend.optimized_ir if optimized else variant.backend.llvm_ir

    def local_memory(self, *args: Any, **kwargs: Any) -> dict[str, dict[str, int]]:
        """Bytes of kernel-local arrays for these arguments: ``"allocated"`` per array after
        contraction (registers count 0), and ``"declared"`` as written in the kernel.  Register
        tiles (polyfuse.registers) are not the kernel's arrays: ``"register tiles"`` lists them."""
        special, args, kwargs = self._specialised_for(args, kwargs)
        values = special._bind(args, kwargs)
        variant = special._variant(values)
        env = variant.bind(values)
        declared = variant.declared_locals if variant.declared_locals is not None else variant.local_arrays
        kernel_arrays = [a for a in variant.local_arrays if not a.register_tile]
        return {
            "allocated": local_bytes(kernel_arrays, env),
            "declared": local_bytes(declared, env),
            "register tiles": local_bytes([a for a in variant.local_arrays if a.register_tile], env),
        }

    @property
    def signatures(self) -> list[str]:
        return list(self._variants)

    # ---- internals -----------------------------------------------------------------------
    def _with_defaults(self, args: tuple) -> tuple:
        """A positional call that omits trailing parameters with number defaults, completed with
        them as Python binds them (so it takes the fast path); otherwise ``args`` unchanged."""
        missing = self._names[len(args):]
        if all(name in self._defaults and is_number(self._defaults[name]) for name in missing):
            return args + tuple(self._defaults[name] for name in missing)
        return args

    def _bind(self, args: tuple, kwargs: dict) -> dict[str, Any]:
        """Parameter -> value as Python binds the call; an omitted parameter takes its default,
        which must be a number, or a list of numbers that NumPy would convert (``array_default``:
        its array), a located UnsupportedError otherwise; a sparse matrix is
        replaced by its parts (runtime/sparse.py)."""
        if any(p.kind not in _PLAIN_PARAMETERS for p in self._signature.parameters.values()):
            source = self._source_of(self.py_func)  # (refused where the call binds them: **kw is a dict)
            construct = "*args, **kwargs, keyword-only or positional-only arguments"
            raise source.error(source.tree, f"unsupported construct: {construct}; a kernel's parameters are "
                               "plain positional ones (arrays and numbers)", construct)
        try:
            bound = _bound(self._signature, args, kwargs)
        except TypeError as exc:
            raise ArgumentError(f"{self.py_func.__name__}(): {exc}") from None
        converted = {}
        for name in self._names:
            if name not in bound.arguments and name in self._defaults and not is_number(self._defaults[name]):
                converted[name] = self._array_default(name)
        bound.apply_defaults()
        return unpack_tuples(unpack_sparse({**bound.arguments, **converted}))

    def _array_default(self, name: str) -> np.ndarray | tuple:
        """The array of a list default (``array_default``), found once: a call that omits it must
        not parse the function's source again."""
        if name not in self._array_defaults:
            source = read_source(self.py_func)
            array = array_default(source, name, self._defaults[name], self.py_func.__globals__)
            default = self._defaults[name]
            if array is None and type(default) is tuple and default and all(map(is_number, default)):
                array = default  # any other use of a tuple of numbers: its elements are arguments (tuple_args)
            if array is None:
                raise default_error(source, name, self._defaults[name])
            self._array_defaults[name] = array
        return self._array_defaults[name]

    def _variant(self, values: dict[str, Any], *, for_call: bool = False) -> CompiledVariant:
        arguments = tuple(argument_of(name, value) for name, value in values.items())
        if self.options.target == "cuda":
            for a in arguments:
                if a.kind == "array" and a.rank == 0:  # the cpu and python targets take them (fe38)
                    raise ArgumentError(f"argument {a.name!r} is a 0-d array; the cuda target takes none: pass a "
                                        "Python number instead")
        if self.options.target != "cuda":
            for name, value in values.items():
                if not isinstance(value, np.ndarray) and is_device_array(value):
                    raise ArgumentError(
                        f"argument {name!r} is a GPU device array but this kernel's target is "
                        f"{self.options.target!r}; use target='cuda' or copy it to the host first"
                    )
        key = signature_key(arguments)
        variant = self._variants.get(key)
        if variant is None:
            with self._lock:
                variant = self._variants.get(key)
                if variant is None:
                    variant = self._build_reporting(arguments, for_call=for_call)
                    self._variants[key] = variant
        return variant

    def _build_reporting(self, arguments: tuple[Argument, ...], *, for_call: bool = False) -> CompiledVariant:
        """Compile; user errors lose polyfuse's frames and our own bugs become InternalError
        (``POLYFUSE_DEBUG=1`` re-raises everything untouched)."""
        if debug_errors():
            return self._build(arguments, for_call=for_call)
        try:
            return self._build(arguments, for_call=for_call)
        except PolyfuseError:
            raise
        except Exception as exc:  # noqa: BLE001 - anything else is a polyfuse bug
            raise InternalError(
                f"polyfuse failed to compile {self.py_func.__qualname__} ({type(exc).__name__}: {exc}); "
                "this is a bug in polyfuse: please report it with the kernel, or set POLYFUSE_DEBUG=1 "
                "for the full traceback"
            ) from exc

    def _build(self, arguments: tuple[Argument, ...], *, for_call: bool = False) -> CompiledVariant:
        """The variant for ``arguments``, from the disk cache or compiled and stored there.  One
        compiled for a call (``for_call``) on the LLVM backend is stored at the end of that call,
        with the machine code the call generated (``store_after_call``), not also before it: one
        pickle and write of the entry fewer per kernel (docs/performance.md, session 33 (ts42));
        a call that fails before the kernel runs leaves it unstored (a later process compiles)."""
        key = self._cache_key(arguments) if self.options.target == "cpu" else None
        if key is not None:
            with _COMPILE_LOCK:  # unpickling the bounds checks parses isl sets
                entry = cache.load(key)
                if entry is not None:
                    return _stored_again(_from_cache(entry), key, entry)
        with _COMPILE_LOCK:  # one isl context is shared by every kernel, and isl is not thread-safe
            stages = compile_kernel(self.py_func, arguments, self.options)
            program, scop = stages["loop ast"], stages["final scop"]
        variant = CompiledVariant(
            arguments=arguments, params=program.params, local_arrays=program.local_arrays(),
            backend=stages["backend"], bounds=stages["bounds"], written=frozenset(a for s in scop.statements for a in s.targets),
            stages=stages, declared_locals=tuple(a for a in stages["lift"].arrays if a.kind == "local"),
            returns=scop.returns, sizes=scop.sizes, counts=scop.counts,
        )
        deadline = stages.get("deadline")
        if key is not None and not (deadline is not None and deadline.timed_out):
            # (a compile that met the wall-clock safety net depends on this machine's load: not kept)
            with _COMPILE_LOCK:  # the explanation it holds runs isl checks (astgen's parallel-loop reasons)
                entry = _cache_entry(variant, self.options)
            _stored_again(variant, key, entry)
            later = getattr(variant.backend, "store_after_call", None)
            if not (for_call and later is not None and later()):
                cache.store(key, entry)
        return variant

    def _cache_key(self, arguments: tuple[Argument, ...]) -> str | None:
        if not cache.enabled() or not self.options.cache:
            return None
        source = self._source_of(self.py_func)
        modules = sorted(
            f"{node.id}={self.py_func.__globals__[node.id].__name__}"
            for node in ast.walk(source.tree)
            if isinstance(node, ast.Name) and isinstance(self.py_func.__globals__.get(node.id), types.ModuleType)
        )
        # the hardware model and the isl budgets change decisions, so they are part of the key
        decisions = (f"{self.options.key()} tile_budget={self.options.tile_budget()} isl_budget={isl_budget()}"
                     f" compile_operations={compile_operations()}")
        text = source.text + helper_texts(self.py_func, source)  # inlined helpers are part of the kernel
        text += bound_texts(self.py_func)  # the functions a specialised kernel binds (ufuncs have no text)
        # where the source is: errors, bounds messages and explain() name its file and lines, so
        # the same text in another file (or moved) must not load this entry's locations
        where = f"{source.filename}:{source.first_line}"
        return cache.make_key(where + "\n" + text, " ".join(modules), signature_key(arguments), decisions)


def _bound(signature: inspect.Signature, args: tuple, kwargs: dict) -> inspect.BoundArguments:
    """``signature.bind(*args, **kwargs)``, a keyword the function has no parameter for named
    first, as Python's call names it (``bind`` reports a parameter left without a value first)."""
    if kwargs and not any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
        for key in kwargs:
            parameter = signature.parameters.get(key)
            if parameter is None or parameter.kind is parameter.POSITIONAL_ONLY:
                raise TypeError(f"got an unexpected keyword argument {key!r}")
    return signature.bind(*args, **kwargs)


def _cache_entry(variant: CompiledVariant, options: Options) -> dict[str, Any]:
    return {
        "artifact": variant.backend.artifact, "arguments": variant.arguments, "params": variant.params,
        "local_arrays": variant.local_arrays, "bounds": variant.bounds, "written": variant.written,
        "declared_locals": variant.declared_locals, "returns": variant.returns, "sizes": variant.sizes,
        "counts": variant.counts,
        "explanation": Explanation.of(variant, options),
    }


def _stored_again(variant: CompiledVariant, key: str, entry: dict[str, Any]) -> CompiledVariant:
    """The LLVM backend generates each function's machine code when it first runs (``load_artifact``):
    the entry is stored again with it, so that a later process links it instead."""
    if hasattr(variant.backend, "on_objects"):
        variant.backend.on_objects = lambda artifact: cache.store(key, {**entry, "artifact": artifact})
    return variant


def _from_cache(entry: dict[str, Any]) -> CompiledVariant:
    from polyfuse.backends.cpu.llvm import load_artifact

    return CompiledVariant(
        arguments=entry["arguments"], params=entry["params"], local_arrays=entry["local_arrays"],
        backend=load_artifact(entry["artifact"]), bounds=entry["bounds"], written=entry["written"],
        declared_locals=entry.get("declared_locals"), returns=entry.get("returns"), sizes=entry.get("sizes", ()),
        counts=entry.get("counts", ()),
        explanation=entry["explanation"].replace_section("cache", "loaded from the disk cache"),
        from_cache=True,
    )


def _dispatch_key(value: Any) -> Any:
    """What selects a variant, computed cheaply; anything unusual falls back to full checks."""
    kind = type(value)
    if kind is np.ndarray:
        # the dtype (byte order too), and the axes of extent 1, which NumPy broadcasts
        return (value.dtype, value.ndim, value.flags.c_contiguous, unit_axes(value.shape))
    if kind is int or kind is float or kind in PLAN_FLOAT_SCALARS or kind in PLAN_INT_SCALARS:
        return kind  # a numpy scalar's type is its dtype, which the signature records
    return None  # numpy bools, bools, wrong types: the full path decides


def kernel(fn=None, /, **options: Any):
    """Decorator: ``@kernel`` or ``@kernel(target="cpu", fuse="smart", verify=False)``."""
    if fn is None:
        return lambda f: Kernel(f, **options)
    return Kernel(fn, **options)


# ---- kernels across processes --------------------------------------------------------------------
# A Kernel pickles as its function, its source and its options, never as compiled code.  A Dask
# worker (or any process) that unpickles a kernel gets one Kernel per distinct kernel and process
# (so every task of a graph shares its compiled variants) and compiles it on first use: a
# disk-cache load when another process compiled it already.  The function's source travels with
# it and is registered in ``linecache`` where the file is not readable (another machine,
# ``__main__``), so polyfuse can read it there.

_KERNELS: dict[tuple, Any] = {}  # per process: recipe key -> Kernel
_LOCK = threading.Lock()


@dataclass(frozen=True)
class KernelRecipe:
    """What a kernel is made from: the function (pickled by reference or, with cloudpickle,
    by value), the lines of the file it is in, and the decorator's options."""

    fn: Any
    filename: str
    lines: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]

    def key(self) -> tuple:
        code = self.fn.__code__
        return (self.filename, code.co_firstlineno, self.fn.__qualname__, hash(self.lines), self.options)


def recipe_of(kernel) -> KernelRecipe:
    fn = kernel.py_func
    filename = fn.__code__.co_filename
    if os.path.exists(filename):
        filename = os.path.abspath(filename)  # the receiving process may run elsewhere
    return KernelRecipe(fn, filename, tuple(file_lines(filename)), tuple(sorted(kernel.init_options.items())))


def rebuild(recipe: KernelRecipe):
    """The process's Kernel for ``recipe`` (made on first use)."""
    key = recipe.key()
    with _LOCK:
        found = _KERNELS.get(key)
        if found is None:
            fn = recipe.fn
            if fn.__code__.co_filename != recipe.filename:
                # cloudpickle renames the code of functions it pickles by value (``__main__``)
                fn.__code__ = fn.__code__.replace(co_filename=recipe.filename)
            if recipe.lines and not os.path.exists(recipe.filename):
                register_source(recipe.filename, list(recipe.lines))
            found = _KERNELS[key] = Kernel(fn, **dict(recipe.options))
    return found
