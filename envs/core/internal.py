"""Compile options for a game's kernel helpers.

A helper that kernels call needs no C wrapper (the entry point for first-class function use,
which only the contract's kernels are put to): skipping it saves part of a helper's cold
compile. The CPython wrapper stays: tests, agents and renders call many helpers from Python,
and a helper without it crashes the interpreter when called from Python instead of raising.

>>> from numba import njit
>>> @njit(**INTERNAL)
... def twice(x):
...     return 2 * x
"""
INTERNAL = {"cache": True, "no_cfunc_wrapper": True}
