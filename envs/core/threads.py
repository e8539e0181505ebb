"""How the batched kernels use threads: defaults that stay fast when the machine is shared.

numba's parallel regions, left to numba's defaults, run on GNU OpenMP with one thread per
core. Those threads spin while they wait, so two processes on one machine (two runs, a
run and its evaluator, the workers of a vector env) steal each other's cores and both
slow down many times over; and GNU OpenMP does not survive ``fork()``, which
``multiprocessing`` and gymnasium's ``AsyncVectorEnv`` use by default on Linux. So:

* **Thread count**: 1 unless asked for (``MONSTER_ZOO_NUM_THREADS=N`` in the environment or
  :func:`set_num_threads`); with one thread every kernel runs serially and numba's thread
  pool is never started. Scale out with processes (vector envs, several runs), or raise
  the count on a machine of your own.
* **Small batches stay serial**: with more threads, a batch of fewer than
  ``MONSTER_ZOO_PARALLEL_MIN_BATCH`` slots (default 64; :func:`set_parallel_min_batch`) still
  runs serially, since starting a parallel region costs more than a few games' step.
  A single env never starts a thread pool.
* **Threading layer**: numba's own ``workqueue``, whose idle threads sleep instead of
  spinning and which is safe to fork. It is chosen when ``monster_zoo`` is imported, unless
  ``NUMBA_THREADING_LAYER`` is set or numba's pool is already running. It serves one calling
  thread at a time: call the batched engines of one process from one Python thread.

Results never depend on any of these (each slot owns its generators).
"""

import contextlib
import os
from collections.abc import Callable, Iterator

import numba
from numba.np.ufunc import parallel as numba_parallel

from .kernels import LazyKernel

THREADING_LAYER = "workqueue"
THREADS_VARIABLE = "MONSTER_ZOO_NUM_THREADS"
MIN_BATCH_VARIABLE = "MONSTER_ZOO_PARALLEL_MIN_BATCH"
DEFAULT_MIN_BATCH = 64


def _choose_threading_layer() -> None:
    """Select :data:`THREADING_LAYER` unless the user chose one or numba's pool already runs."""
    if (
        "NUMBA_THREADING_LAYER" not in os.environ
        and numba.config.THREADING_LAYER == "default"
        and not getattr(numba_parallel, "_is_initialized", False)
    ):
        numba.config.THREADING_LAYER = THREADING_LAYER


def _positive_int_from_environment(name: str, default: int) -> int:
    """The positive integer in environment variable ``name``, else ``default``."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"environment variable {name}={text!r} must be a positive integer")
    return int(text)


def _check_count(threads: int) -> int:
    limit = numba.config.NUMBA_NUM_THREADS
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= limit:
        raise ValueError(f"threads must be an integer from 1 to {limit} (NUMBA_NUM_THREADS), got {threads!r}")
    return threads


def _check_min_batch(min_batch: int) -> int:
    if isinstance(min_batch, bool) or not isinstance(min_batch, int) or min_batch < 1:
        raise ValueError(f"min_batch must be a positive integer, got {min_batch!r}")
    return min_batch


_choose_threading_layer()
_threads = min(_positive_int_from_environment(THREADS_VARIABLE, 1), numba.config.NUMBA_NUM_THREADS)
_min_batch = _positive_int_from_environment(MIN_BATCH_VARIABLE, DEFAULT_MIN_BATCH)


def get_num_threads() -> int:
    """Threads the batched kernels use for large batches (1: always serial)."""
    return _threads


def set_num_threads(threads: int) -> None:
    """Use ``threads`` numba threads for batches of at least the minimum parallel batch."""
    global _threads
    _threads = _check_count(threads)


def get_parallel_min_batch() -> int:
    """The smallest batch that runs in parallel when more than one thread is allowed."""
    return _min_batch


def set_parallel_min_batch(min_batch: int) -> None:
    """Run batches of fewer than ``min_batch`` slots serially."""
    global _min_batch
    _min_batch = _check_min_batch(min_batch)


@contextlib.contextmanager
def using(threads: int, min_batch: int | None = None) -> Iterator[None]:
    """Within the block use ``threads`` threads (and ``min_batch``, if given); restore after."""
    global _threads, _min_batch
    saved = _threads, _min_batch
    _threads = _check_count(threads)
    _min_batch = _min_batch if min_batch is None else _check_min_batch(min_batch)
    try:
        yield
    finally:
        _threads, _min_batch = saved


def use_parallel(batch: int) -> bool:
    """Whether a batch of ``batch`` slots runs in parallel now (and if so, numba is set to the
    chosen thread count; the first such call starts numba's thread pool)."""
    if _threads > 1 and batch >= _min_batch:
        numba.set_num_threads(_threads)
        return True
    return False


class BatchKernel:
    """One kernel that loops over slots with ``prange``, built serial and parallel, each
    compiled (or loaded from numba's cache) at its first use (:mod:`~monster_zoo.envs.core.kernels`):
    a process that never calls the kernel pays nothing for it, and small batches and
    one-thread runs never pay for, or start, a thread pool. ``batch_arg`` is the argument
    whose length is the batch size.

    Both builds come from the same Python function: ``prange`` is ``range`` when numba
    compiles without ``parallel``. The parallel build gets its own name so that numba's
    on-disk cache keeps the two apart (it keys entries by name and signature only).
    """

    def __init__(
        self, func: Callable, signature, batch_arg: int = 0, first_class_args: bool = False, **options
    ):
        twin = type(func)(
            func.__code__, func.__globals__, func.__name__ + "_parallel", func.__defaults__, func.__closure__
        )
        twin.__qualname__, twin.__module__ = func.__qualname__ + "_parallel", func.__module__
        self.serial = LazyKernel(func, signature, first_class_args, **options)
        self.parallel = LazyKernel(twin, signature, first_class_args, parallel=True, **options)
        self._batch_arg = batch_arg
        self.__doc__, self.__name__ = func.__doc__, func.__name__

    def __call__(self, *args):
        parallel = use_parallel(args[self._batch_arg].shape[0])
        return (self.parallel if parallel else self.serial)(*args)


def batch_kernel(
    signature, batch_arg: int = 0, first_class_args: bool = False, **options
) -> Callable[[Callable], BatchKernel]:
    """Decorator form of :class:`BatchKernel` (``first_class_args`` and ``options``, e.g. ``nogil=True``:
    as :class:`~monster_zoo.envs.core.kernels.LazyKernel`'s, for both builds)."""
    return lambda func: BatchKernel(func, signature, batch_arg, first_class_args, **options)
