"""Helpers every game's kernels share: compile options, array copies and lazily compiled kernels.

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
from typing import Callable

import numba
from numba import njit

INTERNAL = {"cache": True, "no_cfunc_wrapper": True}


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
