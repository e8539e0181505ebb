"""Array helpers for kernels.

``dst[:] = src`` between two arrays makes numba compile the shape check's error message
(string formatting of shapes), which costs about two seconds of a cold start, once per
process; a loop over one length compiles to the same copy without it.
"""
from numba import njit


@njit(cache=True, inline="always")  # inlined: no compiled version per element type
def copy_vector(dst, src):
    """Copy vector ``src`` into ``dst`` of at least its length (``dst[:len(src)] = src``)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]
