"""Every game on an NVIDIA GPU, compiled from the same kernels as the CPU engine.

``monster_zoo.make_batch(game_id, num_envs, seed, device="cuda")`` gives a
:class:`~monster_zoo.envs.gpu.engine.GpuBatchEngine` (one CUDA thread per game, arrays on the
device); ``monster-zoo gpu check`` compiles and links every game's kernels without a GPU
(:mod:`~monster_zoo.envs.gpu.ptx_check`). Both need the ``gpu`` extra (numba-cuda); nothing here
is imported by the CPU engine.
"""

INSTALL_HINT = "pip install 'monster-zoo[gpu]' (numba-cuda with the CUDA toolkit's pip wheels)"


def require_numba_cuda() -> None:
    """Raise RuntimeError saying what to install when numba-cuda is missing."""
    try:
        import numba_cuda  # noqa: F401  (the package of numba's maintained CUDA target)
    except ImportError:
        raise RuntimeError(f"the GPU engine needs numba-cuda: {INSTALL_HINT}") from None


def require_gpu() -> None:
    """Raise RuntimeError saying what to install or check unless numba-cuda sees a usable GPU
    (or runs its simulator, ``NUMBA_ENABLE_CUDASIM=1``)."""
    require_numba_cuda()
    from numba import cuda

    if not cuda.is_available():
        raise RuntimeError(
            "device='cuda': numba-cuda finds no usable CUDA GPU; check that the NVIDIA driver "
            "is installed and sees the card (`nvidia-smi`, `python -c 'from numba import cuda; "
            "cuda.detect()'`), or use device='cpu'"
        )
