"""``monster-zoo gpu check``: compile every game's GPU drivers to PTX, without a GPU or driver.

For each registered game and compute capability (8.0: A100, 9.0: H100/H200) every driver of
:mod:`~monster_zoo.envs.gpu.drivers` is compiled with numba-cuda's ``compile_ptx`` (NVVM from the
CUDA toolkit's pip wheels). One line per game says which capabilities compiled, the PTX size and
the time, or the first line of the error. Exit status 1 when a game failed.
"""
import argparse
import contextlib
import sys
import time
from typing import Iterator, List, Optional, Sequence, Tuple

from . import require_numba_cuda

CAPABILITIES = ((8, 0), (9, 0))


@contextlib.contextmanager
def _compiling_for(cc: Tuple[int, int]) -> Iterator[None]:
    """numba-cuda asks the current device for its capability when it compiles a device function that
    a kernel calls; without a driver there is none, so it is told ``cc`` for the duration (the
    kernel's PTX is generated for the ``cc`` given to ``compile_ptx`` in any case)."""
    from numba.cuda import dispatcher

    class Device:
        compute_capability = cc

    saved = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: Device
    try:
        yield
    finally:
        dispatcher.get_current_device = saved


def compile_game(game_id: str, capabilities: Sequence[Tuple[int, int]] = CAPABILITIES,
                 sources=None) -> Tuple[int, int, float]:
    """Compile every driver of ``game_id`` to PTX for each capability; ``(drivers, PTX bytes, seconds)``.
    ``sources``: the drivers' ``driver_sources`` function (default: the batched engine's,
    :func:`.drivers.driver_sources`; the learner-seat games' is :func:`.learner_drivers.driver_sources`).
    Raises whatever numba-cuda raises for a kernel that does not compile."""
    from numba.cuda import compile_ptx

    from .. import spec
    from .drivers import driver_sources

    start, size = time.perf_counter(), 0
    drivers = (sources or driver_sources)(spec(game_id))
    for function, argtypes in drivers.values():
        for cc in capabilities:
            with _compiling_for(cc):
                ptx, _ = compile_ptx(function, argtypes, cc=cc)
            size += len(ptx)
    return len(drivers), size, time.perf_counter() - start


def check(game_ids: Sequence[str], capabilities: Sequence[Tuple[int, int]] = CAPABILITIES) -> List[str]:
    """One line per game: ``<id>  ok  cc 8.0, 9.0 ...`` or ``<id>  FAILED  <first error line>``."""
    lines = []
    ccs = ", ".join(f"{major}.{minor}" for major, minor in capabilities)
    for game_id in game_ids:
        try:
            drivers, size, seconds = compile_game(game_id, capabilities)
        except Exception as error:  # noqa: BLE001 - any compile error is this game's result
            first = next((line for line in str(error).splitlines() if line.strip()), type(error).__name__)
            lines.append(f"{game_id:<24} FAILED  {type(error).__name__}: {first.strip()[:200]}")
        else:
            lines.append(f"{game_id:<24} ok      cc {ccs}: {drivers} drivers, "
                         f"{size / 1e6:.1f} MB PTX, {seconds:.0f} s")
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``monster-zoo gpu check``."""
    from .. import available

    parser = argparse.ArgumentParser(prog="monster-zoo gpu check", description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="GAME", help="game ids (default: every registered game)")
    args = parser.parse_args(argv)
    unknown = [g for g in args.games if g not in available()]
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; available: {', '.join(available())}")
    require_numba_cuda()
    lines = check(args.games or available())
    for line in lines:
        print(line)
    failed = sum(" FAILED " in line for line in lines)
    print(f"{len(lines) - failed} of {len(lines)} games compile to PTX for cc "
          + ", ".join(f"{a}.{b}" for a, b in CAPABILITIES))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
