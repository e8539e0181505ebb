"""What every game's kernels share: the one decorator convention, array copies and lazy kernels.

**The decorators** (written up in ``envs/README.md``, "Writing kernels"). Every numba function of
a game is decorated with one of four names, each one fixed set of numba options:

* ``@kernel(SIG)``: a contract kernel (``init_state``, ``legal_mask``, ``apply_action``,
  ``returns``, ``observe_into``): compiled at import for its one signature, with every wrapper,
  since the drivers take it as a first-class function and Python calls it too.
* ``@helper`` / ``@helper(sig)``: a function that kernels call and Python may call as well:
  compiled at its first use (or, with a signature, once for that signature whatever integer
  types its callers pass), without the C wrapper only first-class functions need.
  ``@helper(sig, python=False)`` also drops the wrapper for calls from Python, for helpers only
  kernels call.
* ``@inlined`` / ``@inlined(sig)``: a small function inlined into each caller.
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
"""
import inspect
from typing import Callable

import numba
from numba import njit

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


class LazyKernel:
    """``numba.njit(signature, cache=True, **options)(func)``, compiled at the first call."""

    def __init__(self, func: Callable, signature, **options):
        self.py_func, self.signature, self._options = func, signature, options
        self._dispatcher = None
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
        return self.dispatcher(*args)


def lazy_njit(signature, **options) -> Callable[[Callable], LazyKernel]:
    """Decorator form of :class:`LazyKernel`."""
    return lambda func: LazyKernel(func, signature, **options)
