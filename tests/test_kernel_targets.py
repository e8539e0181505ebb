"""The decorator convention's two targets (``envs/core/kernels.py``): scratch arrays that are numpy's on the
CPU and per-thread local memory on a GPU, device versions of every kernel from the same Python
functions, and the Python reading of the one intrinsic the simulator cannot run."""

import subprocess
import sys

import numpy as np
from numba import njit
from test_gpu_engine import needs_numba_cuda

from monster_zoo.envs.core.kernels import scratch, scratch_empty
from monster_zoo.envs.core.rng import WORD, _load_word, _load_word_in_python

ROWS, COLS = 3, 5


@njit
def _scratch_arrays():
    zeros = scratch(COLS, np.int64)
    grid = scratch((ROWS, COLS), np.float32)
    empty = scratch_empty(COLS, np.int8)
    return zeros, grid, empty


def test_scratch_is_numpy_on_the_cpu_and_from_python():
    zeros, grid, empty = _scratch_arrays()
    assert zeros.dtype == np.int64 and zeros.shape == (COLS,) and not zeros.any()
    assert grid.dtype == np.float32 and grid.shape == (ROWS, COLS) and not grid.any()
    assert empty.dtype == np.int8 and empty.shape == (COLS,)
    assert np.array_equal(scratch((ROWS, COLS), np.int32), np.zeros((ROWS, COLS), np.int32))


@njit
def _word(mask, start):
    return _load_word(mask, start)


def test_the_python_reading_of_load_word_equals_the_compiled_one():
    rng = np.random.default_rng(0)
    mask = rng.integers(-128, 128, size=40).astype(np.int8)
    for start in range(len(mask) - WORD + 1):
        assert _load_word_in_python(mask, start) == _word(mask, start)


NOT_CONSTANT = """
import numpy as np
from numba import cuda, types
from monster_zoo.envs.core.kernels import device_functions, scratch
from monster_zoo.envs.gpu.ptx_check import _compiling_for
from monster_zoo.envs.marry_the_monster.rules import apply_action, legal_mask

device = device_functions([legal_mask, apply_action])
assert device[id(legal_mask)] is device_functions([legal_mask])[id(legal_mask)]  # made once
assert all(type(d).__name__ == "CUDADispatcher" for d in device.values()) and len(device) > 10

def sized_by_argument(out, n):
    work = scratch(n, np.int64)
    out[0] = work[0]

with _compiling_for((9, 0)):
    try:
        cuda.compile_ptx(sized_by_argument, (types.int64[::1], types.int64), cc=(9, 0))
    except Exception as error:
        print("refused:", "need a constant shape" in str(error))
"""


@needs_numba_cuda
def test_device_versions_are_made_once_and_a_scratch_shape_must_be_constant_on_a_gpu():
    done = subprocess.run([sys.executable, "-c", NOT_CONSTANT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "refused: True", done.stdout
