"""``monster-zoo gpu check`` links what it compiles, without a GPU: nvJitLink (the gpu extra's wheel)
turns a kernel's PTX into a cubin and its log gives the figures printed per kernel (registers, stack,
spills, constant and global table bytes); a kernel whose tables overflow the 64 KiB constant bank
fails, as it would fail to load on a GPU. Module-level tables are placed by size (small ones in the
constant bank, large ones in global memory) and each table is embedded once per kernel however many
device functions read it. Every game's kernels link: ``tests/test_gpu_engine.py`` (engine drivers,
every game; every part in its slow test) and ``tests/test_gpu_learner_games.py``."""

import numpy as np
import pytest
from test_gpu_engine import needs_numba_cuda

pytestmark = needs_numba_cuda

SMALL = np.arange(100, dtype=np.int32)  # 400 bytes: stays in the constant bank
LARGE = np.arange(9000, dtype=np.float64)  # 72,000 bytes: over the bank on its own, so global memory


def figures_of(function, argtypes, cc=(9, 0)):
    from monster_zoo.envs.gpu import ptx_check

    return ptx_check.check_kernel(function, argtypes, cc)


def test_a_kernel_links_and_the_linkers_figures_are_parsed():
    from numba import cuda, types

    @cuda.jit(device=True)
    def first(i):
        return LARGE[i] + SMALL[i % 100]

    @cuda.jit(device=True)
    def second(i):
        return LARGE[i + 1] * SMALL[i % 50]

    def kernel(out, i):
        out[0] = first(i) + second(i) + LARGE[2]

    for cc in ((8, 0), (9, 0)):
        figures = figures_of(kernel, (types.float64[::1], types.int64), cc)
        assert figures.ok, figures.error
        assert 4 <= figures.registers <= 255 and figures.spill_bytes == 0 and figures.stack_bytes >= 0
        # three reads of each table, one copy of each: the small in the constant bank, the large in
        # global memory (numba-cuda alone put 144,800 bytes of constants here, which does not load)
        assert SMALL.nbytes <= figures.constant_bytes < 2 * SMALL.nbytes, figures
        assert LARGE.nbytes <= figures.global_bytes < 2 * LARGE.nbytes, figures
        assert figures.cubin_bytes > 1000


def test_a_kernel_over_the_constant_bank_is_reported_as_failing():
    """40 distinct tables of 2 KiB each stay in the constant bank (each is small) and together exceed it."""
    from numba import types

    from monster_zoo.envs.gpu.ptx_check import CONSTANT_LIMIT, describe
    from monster_zoo.envs.gpu.tables import CONSTANT_TABLE_BYTES

    count = CONSTANT_LIMIT // CONSTANT_TABLE_BYTES + 8
    namespace = {f"T{j}": np.full(CONSTANT_TABLE_BYTES // 4, j, np.int32) for j in range(count)}
    source = "def kernel(out, i):\n    out[0] = " + " + ".join(f"T{j}[i]" for j in range(count)) + "\n"
    exec(source, namespace)
    figures = figures_of(namespace["kernel"], (types.int32[::1], types.int64))
    assert not figures.ok and "too much global constant data" in figures.error, figures
    assert figures.constant_bytes >= count * CONSTANT_TABLE_BYTES > CONSTANT_LIMIT
    assert describe(figures).startswith("FAILED  ") and str(figures.constant_bytes) in describe(figures)


def test_a_kernel_that_does_not_compile_is_reported_not_raised():
    from numba import types

    def kernel(out, i):
        out[0] = undefined_name[i]  # noqa: F821

    figures = figures_of(kernel, (types.int32[::1], types.int64))
    assert not figures.ok and figures.error.startswith("does not compile:"), figures


def test_the_link_log_parser_reads_the_final_usage_and_sums_spills():
    from monster_zoo.envs.gpu.ptx_check import parse_constant_overflow, parse_link_log

    log = "\n".join(
        [
            "ptxas info    : 0 bytes gmem",
            "ptxas info    : Function properties for entry",
            "ptxas         .     528 bytes stack frame, 16 bytes spill stores, 8 bytes spill loads",
            "ptxas info    : Used 98 registers, used 0 barriers",
            "ptxas info    : Function properties for helper",
            "ptxas         .     520 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads",
            "info    : 159872 bytes gmem, 7660 bytes cmem[3]",
            "info    : used 98 registers, used 0 barriers, 1048 stack, 0 bytes smem, 928 bytes cmem[0]",
        ]
    )
    assert parse_link_log(log) == {
        "registers": 98,
        "stack_bytes": 1048,
        "spill_bytes": 32,
        "constant_bytes": 7660,
        "global_bytes": 159872,
    }
    with pytest.raises(ValueError, match="no register count"):
        parse_link_log("ptxas info    : 0 bytes gmem")
    assert parse_constant_overflow(
        "File uses too much global constant data (0x31a20 bytes, 0x10000 max)"
    ) == (0x31A20)
    assert parse_constant_overflow("nothing") is None
