"""What every game's kernels share: the one decorator convention, array copies and lazy kernels.

**The decorators** (written up in ``envs/README.md``, "Writing kernels"). Every numba function of
a game is decorated with one of five names, each one fixed set of numba options:

* ``@kernel(SIG)``: a contract kernel (``init_state``, ``legal_mask``, ``apply_action``,
  ``returns``, ``observe_into``): compiled at import for its one signature, with every wrapper,
  since the drivers take it as a first-class function and Python calls it too.
* ``@helper`` / ``@helper(sig)``: a function that kernels call and Python may call as well:
  compiled at its first use (or, with a signature, once for that signature whatever integer
  types its callers pass), without the C wrapper only first-class functions need.
  ``@helper(sig, python=False)`` also drops the wrapper for calls from Python, for helpers only
  kernels call.
* ``@inlined`` / ``@inlined(sig)``: a small function inlined into each caller.
* ``@standalone``: a ``@helper`` that stays a function of its own on a GPU too, where numba-cuda's
  NVVM would otherwise inline every device function into every caller: a game phase's step or
  options, so that a kernel holds each phase's code once and a warp whose games are in one phase
  runs only that phase's code.
* ``@on_demand``: compiled at its first call with every wrapper; for kernels an adapter needs now
  and then (``determinize``) and helpers Python calls directly.

Per-item legality checks that a ``legal_mask`` loop repeats are written as scalar
``*_reason_of(...)`` helpers beside the state-reading ``*_reason``: a pattern, not a decorator.

Compile options (:data:`INTERNAL`). A helper that kernels call needs no C wrapper (the entry
point for first-class function use, which only the contract's kernels are put to): skipping it
saves part of a helper's cold compile. The CPython wrapper stays: tests, agents and renders call
many helpers from Python, and a helper without it crashes the interpreter when called from
Python instead of raising.

>>> from numba import njit
>>> @njit(**INTERNAL)
... def twice(x):
...     return 2 * x

Array copies (:func:`copy_vector`). ``dst[:] = src`` between two arrays makes numba compile the
shape check's error message (string formatting of shapes), which costs about two seconds of a
cold start, once per process; a loop over one length compiles to the same copy without it.

Lazy kernels (:class:`LazyKernel`). numba compiles a function decorated with an explicit
signature on the spot, so every shared driver used to be compiled (or loaded from the cache)
whenever its module was imported, used or not: training compiled the batched engine's drivers
it never calls. A :class:`LazyKernel` keeps the explicit signature, so numba still builds exactly
one specialisation and caches it under the same key, but builds it at the first call, once per
process. Only kernels called from Python can be lazy: a kernel that another kernel calls must be
a plain numba dispatcher when that caller compiles (such helpers use ``njit`` without a signature
and are compiled, and cached, as part of their first caller).

**Two targets** (:func:`use_cuda_target`). The same Python functions also compile as CUDA device
functions (numba-cuda) for the GPU engine (:mod:`monster_zoo.envs.gpu`); no game module knows which
target compiles it. Fixed-size work arrays inside kernels are made with :func:`scratch` (zeroed) or
:func:`scratch_empty`, never ``np.zeros``/``np.empty``: on the CPU they are those same calls, on a
GPU per-thread local memory, whose shape and dtype must be constants (module-level names such as
``MAX_PLAYERS``). A function that returns such an array to its caller must be ``@inlined``: a GPU
thread's local array lives in the frame that made it.
"""

import inspect
import types as pytypes
from collections.abc import Callable, Iterable

import numba
import numpy as np
from numba import njit, types
from numba.core.registry import CPUDispatcher
from numba.extending import overload

INTERNAL = {"cache": True, "no_cfunc_wrapper": True}


def kernel(signature) -> Callable:
    """Decorator of a contract kernel: ``njit(signature, cache=True)``."""
    return njit(signature, cache=True)


def helper(signature=None, *, python: bool = True):
    """Decorator of a helper kernels call: ``@helper`` is ``njit(**INTERNAL)``, ``@helper(sig)`` is
    ``njit(sig, **INTERNAL)``; ``python=False`` also builds no wrapper for calls from Python."""
    if inspect.isfunction(signature):  # used bare: @helper
        return njit(**INTERNAL)(signature)
    options = INTERNAL if python else {**INTERNAL, "no_cpython_wrapper": True}
    return njit(**options) if signature is None else njit(signature, **options)


def standalone(func: Callable):
    """Decorator of a helper that stays a function of its own on a GPU: ``njit(**INTERNAL)`` on the
    CPU (as ``@helper``), a device function NVVM never inlines on a GPU (:func:`device_functions`)."""
    dispatcher = njit(**INTERNAL)(func)
    dispatcher.standalone = True  # read by device_functions
    return dispatcher


def inlined(signature=None):
    """Decorator of a function inlined into its callers: ``@inlined`` is
    ``njit(cache=True, inline="always")``, ``@inlined(sig)`` is ``njit(sig, inline="always", **INTERNAL)``."""
    if inspect.isfunction(signature):  # used bare: @inlined
        return njit(cache=True, inline="always")(signature)
    if signature is None:
        return njit(cache=True, inline="always")
    return njit(signature, inline="always", **INTERNAL)


def on_demand(func: Callable):
    """Decorator of a function compiled at its first call with every wrapper: ``njit(cache=True)``."""
    return njit(cache=True)(func)


@njit(cache=True, inline="always")  # inlined: no compiled version per element type
def copy_vector(dst, src):
    """Copy vector ``src`` into ``dst`` of at least its length (``dst[:len(src)] = src``)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


class FirstClassKernel:
    """A compiled kernel as the value of a numba first-class function parameter, its type and
    address worked out once.

    Handing a numba dispatcher to a parameter of ``FunctionType`` makes numba look up the
    dispatcher's compiled version twice on every call (about 20 us on the development host, more
    than a whole small driver call). This object carries its numba type (``_numba_type_``, which
    numba's dispatcher reads in C and caches) and the address of the kernel's C wrapper (numba's
    wrapper address protocol), so a call pays neither. The driver then calls the kernel through that
    C wrapper, which cannot propagate a Python exception; contract and policy kernels never raise,
    since the same functions compile for a GPU.
    """

    def __init__(self, dispatcher, function_type: types.FunctionType):
        compiled = dispatcher.get_compile_result(function_type.signature)
        self.dispatcher, self._numba_type_ = dispatcher, function_type
        self._address = compiled.library.get_pointer_to_function(compiled.fndesc.llvm_cfunc_wrapper_name)

    def __wrapper_address__(self) -> int:
        """The address of the kernel's C wrapper (numba's wrapper address protocol)."""
        return self._address


_first_class: dict[tuple, FirstClassKernel] = {}


def first_class(kernel, function_type: types.FunctionType):
    """``kernel`` (a numba dispatcher) as a :class:`FirstClassKernel` of ``function_type``, made
    once per process; anything else is returned unchanged, for numba to accept or refuse."""
    if not isinstance(kernel, CPUDispatcher):
        return kernel
    key = (kernel, function_type)
    value = _first_class.get(key)
    if value is None:
        value = _first_class[key] = FirstClassKernel(kernel, function_type)
    return value


class LazyKernel:
    """``numba.njit(signature, cache=True, **options)(func)``, compiled at the first call.

    ``first_class_args``: kernels passed to its ``FunctionType`` parameters go in as
    :func:`first_class` values, cheap to pass and a little dearer to call (through their C
    wrapper: 5-10% of a random step of the batched engine, measured on the development host). It
    suits drivers called often on a few slots each (the learner games' rounds); drivers whose one
    call runs a long loop (random steps, searches) keep the dispatchers.
    """

    def __init__(self, func: Callable, signature, first_class_args: bool = False, **options):
        self.py_func, self.signature, self._options = func, signature, options
        self._dispatcher = None
        self._function_args = [
            (k, t)
            for k, t in enumerate(signature.args)
            if first_class_args and isinstance(t, types.FunctionType)
        ]
        self.__doc__, self.__name__, self.__qualname__ = func.__doc__, func.__name__, func.__qualname__
        self.__module__ = func.__module__

    @property
    def compiled(self) -> bool:
        """Whether this process has compiled (or loaded) the kernel yet."""
        return self._dispatcher is not None

    @property
    def dispatcher(self):
        """The numba dispatcher, compiled or loaded from the cache on first use."""
        if self._dispatcher is None:
            self._dispatcher = numba.njit(self.signature, cache=True, **self._options)(self.py_func)
        return self._dispatcher

    def __call__(self, *args):
        if self._function_args:
            args = list(args)
            for k, function_type in self._function_args:
                args[k] = first_class(args[k], function_type)
        return self.dispatcher(*args)


def lazy_njit(signature, **options) -> Callable[[Callable], LazyKernel]:
    """Decorator form of :class:`LazyKernel`."""
    return lambda func: LazyKernel(func, signature, **options)


def scratch(shape, dtype):
    """A zeroed work array of constant ``shape`` and ``dtype`` inside a kernel: ``np.zeros`` on the
    CPU (and from Python), per-thread local memory on a GPU."""
    return np.zeros(shape, dtype)


def scratch_empty(shape, dtype):
    """Like :func:`scratch` without zeroing (``np.empty``), for arrays written before they are read."""
    return np.empty(shape, dtype)


@overload(scratch, target="cpu", inline="always")
def _scratch_on_cpu(shape, dtype):
    return lambda shape, dtype: np.zeros(shape, dtype)


@overload(scratch_empty, target="cpu", inline="always")
def _scratch_empty_on_cpu(shape, dtype):
    return lambda shape, dtype: np.empty(shape, dtype)


def _constant_shape(shape) -> tuple:
    """The dimensions of a scratch array's shape type (integer literals or a tuple of them)."""
    if isinstance(shape, types.IntegerLiteral):
        return (shape.literal_value,)
    if isinstance(shape, types.BaseTuple) and all(isinstance(t, types.IntegerLiteral) for t in shape.types):
        return tuple(t.literal_value for t in shape.types)
    raise numba.core.errors.TypingError(
        f"scratch arrays need a constant shape on a GPU (a module-level integer or a tuple of them), got {shape}"
    )


def _local_array_maker(zeroed: bool):
    """The GPU implementation of :func:`scratch` (``zeroed``) or :func:`scratch_empty`."""
    from numba import cuda

    def typer(shape, dtype):
        dims, dtype_ = _constant_shape(shape), dtype.dtype
        size = int(np.prod(dims))

        def make(shape, dtype):
            flat = cuda.local.array(size, dtype_)
            if zeroed:
                for i in range(size):
                    flat[i] = 0
            return flat.reshape(dims)

        return make

    return typer


_CUDA_READY = False
_STANDALONE: set[tuple[str, str]] = set()  # (module, qualified name) of the @standalone functions


def _keep_standalone_apart() -> None:
    """Make numba-cuda's lowering mark every function of :data:`_STANDALONE` ``noinline``: numba-cuda's
    ``inline="never"`` only keeps numba from inlining at its IR level, and NVVM inlines the rest."""
    from numba.cuda.lowering import CUDALower

    lower = CUDALower.pre_lower

    def pre_lower(self):
        lower(self)
        if (self.fndesc.modname, self.fndesc.qualname) in _STANDALONE:
            self.builder.function.attributes.add("noinline")

    CUDALower.pre_lower = pre_lower


def use_cuda_target() -> None:
    """Make the kernels compilable as CUDA device functions (numba-cuda): registers the GPU side of
    :func:`scratch` and keeps ``@standalone`` functions apart. Called by the GPU engine; imports
    ``numba.cuda`` only then."""
    global _CUDA_READY
    if _CUDA_READY:
        return
    from numba.cuda.extending import overload as cuda_overload

    _keep_standalone_apart()
    cuda_overload(scratch, target="cuda", prefer_literal=True, inline="always")(_local_array_maker(True))
    cuda_overload(scratch_empty, target="cuda", prefer_literal=True, inline="always")(
        _local_array_maker(False)
    )
    _CUDA_READY = True


_PYTHON_TWINS: dict[int, Callable] = {}  # id(numba intrinsic) -> Python function doing the same


def python_twin(intrinsic) -> Callable[[Callable], Callable]:
    """Decorator of the Python function that does what ``intrinsic`` (a ``numba.extending.intrinsic``,
    which has no Python body) does, for numba-cuda's simulator, which runs kernels as Python."""

    def register(func: Callable) -> Callable:
        _PYTHON_TWINS[id(intrinsic)] = func
        return func

    return register


def _simulating() -> bool:
    from numba import config

    return bool(getattr(config, "ENABLE_CUDASIM", False))


def _reachable(roots: Iterable[Callable]) -> list[CPUDispatcher]:
    """Every numba dispatcher reachable from ``roots`` through the globals and closures of their
    Python functions (roots included)."""
    seen: dict[int, CPUDispatcher] = {}
    pending = [r for r in roots if isinstance(r, CPUDispatcher)]
    while pending:
        dispatcher = pending.pop()
        if id(dispatcher) in seen:
            continue
        seen[id(dispatcher)] = dispatcher
        func = dispatcher.py_func
        cells = [c.cell_contents for c in (func.__closure__ or ())]
        pending += [v for v in [*func.__globals__.values(), *cells] if isinstance(v, CPUDispatcher)]
    return list(seen.values())


def _python_versions(dispatchers: list[CPUDispatcher]) -> dict[int, Callable]:
    """For the simulator: each dispatcher's Python function, re-bound so that the numba functions and
    intrinsics it calls are Python too (numba-cuda's simulator cannot pass its arrays to compiled
    code)."""
    made: dict[int, Callable] = {}
    for dispatcher in dispatchers:
        func = dispatcher.py_func
        cells = tuple(pytypes.CellType(c.cell_contents) for c in (func.__closure__ or ()))
        made[id(dispatcher)] = pytypes.FunctionType(
            func.__code__, dict(func.__globals__), func.__name__, func.__defaults__, cells or None
        )

    def python_version(value):
        return made.get(id(value), _PYTHON_TWINS.get(id(value), value))

    for version in made.values():
        names = version.__globals__
        for name, value in names.items():
            names[name] = python_version(value)
        for cell in version.__closure__ or ():
            cell.cell_contents = python_version(cell.cell_contents)
    return made


def device_functions(roots: Iterable[Callable]) -> dict[int, Callable]:
    """The CUDA device version of every numba function reachable from ``roots`` (through the
    globals and closures of their Python source), compiled from the same Python function and inlined
    where the CPU build inlines (``@standalone`` functions never); returned by ``id`` of the CPU
    dispatcher. Under numba-cuda's
    simulator (``NUMBA_ENABLE_CUDASIM=1``) the versions are the Python functions themselves.

    numba-cuda compiles a CPU dispatcher that device code calls from its Python function and keeps the
    result on the dispatcher; it refuses dispatchers compiled for one signature (every ``@kernel`` and
    ``@helper(sig)``), so the device versions are made here first, for every dispatcher alike, and
    left where numba-cuda looks for them (``_CUDATypingContext__dispatcher``, the name its
    ``CUDATypingContext.resolve_value_type`` reads; numba-cuda is pinned in the ``gpu`` extra).
    """
    dispatchers = _reachable(roots)
    if _simulating():
        return _python_versions(dispatchers)
    from numba import cuda

    use_cuda_target()
    made: dict[int, Callable] = {}
    for dispatcher in dispatchers:
        device = getattr(dispatcher, "_CUDATypingContext__dispatcher", None)
        if device is None:
            inline = "always" if dispatcher.targetoptions.get("inline") == "always" else "never"
            if getattr(dispatcher, "standalone", False):
                func = dispatcher.py_func
                _STANDALONE.add((func.__module__, func.__qualname__))
            device = cuda.jit(device=True, inline=inline)(dispatcher.py_func)
            dispatcher._CUDATypingContext__dispatcher = device
        made[id(dispatcher)] = device
    return made
