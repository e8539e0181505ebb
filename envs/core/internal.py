"""Compile options for a game's internal kernel helpers.

A helper that only other kernels call needs neither numba's CPython wrapper (the entry
point for calls from Python) nor its C wrapper (the entry point for first-class function
use): building both roughly doubles a small helper's share of a cold compile. Helpers that
tests, agents or renders call from Python keep plain ``njit(cache=True)``.

>>> from numba import njit
>>> @njit(**INTERNAL)
... def twice(x):
...     return 2 * x
"""
INTERNAL = {"cache": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}
# A helper that Python code (a test, an agent, a render) also calls keeps the CPython wrapper.
PYTHON_CALLABLE = {"cache": True, "no_cfunc_wrapper": True}
