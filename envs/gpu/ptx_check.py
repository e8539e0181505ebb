"""``monster-zoo gpu check``: compile every game's GPU drivers to PTX, without a GPU or driver.

For each registered game and compute capability (8.0: A100, 9.0: H100/H200) every driver is compiled
with numba-cuda's ``compile_ptx`` (NVVM from the CUDA toolkit's pip wheels): the batched engine's
(:mod:`~monster_zoo.envs.gpu.drivers`, part ``engine``) and the learner-seat games' that
``device-train --device cuda`` plays (:mod:`~monster_zoo.envs.gpu.learner_drivers`, part ``learner``,
the game's greedy kernel included). One line per game and part says which capabilities compiled, the
PTX size and the time, or the first line of the error. Exit status 1 when any failed.
"""

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator, Sequence

from . import require_numba_cuda

CAPABILITIES = ((8, 0), (9, 0))
PARTS = ("engine", "learner")  # the batched engine's drivers, the learner-seat games' drivers


@contextlib.contextmanager
def _compiling_for(cc: tuple[int, int]) -> Iterator[None]:
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


def compile_game(
    game_id: str, capabilities: Sequence[tuple[int, int]] = CAPABILITIES, sources=None
) -> tuple[int, int, float]:
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


def part_sources(part: str):
    """The ``driver_sources`` function of ``part`` (one of :data:`PARTS`)."""
    if part == "engine":
        from .drivers import driver_sources
    else:
        from .learner_drivers import driver_sources
    return driver_sources


def check(
    game_ids: Sequence[str],
    capabilities: Sequence[tuple[int, int]] = CAPABILITIES,
    parts: Sequence[str] = PARTS,
) -> list[str]:
    """One line per game and part: ``<id> <part> ok  cc 8.0, 9.0 ...`` or ``<id> <part> FAILED  <first
    error line>``."""
    lines = []
    ccs = ", ".join(f"{major}.{minor}" for major, minor in capabilities)
    for game_id in game_ids:
        for part in parts:
            try:
                drivers, size, seconds = compile_game(game_id, capabilities, part_sources(part))
            except Exception as error:
                first = next((line for line in str(error).splitlines() if line.strip()), type(error).__name__)
                lines.append(f"{game_id:<24} {part:<8} FAILED  {type(error).__name__}: {first.strip()[:200]}")
            else:
                lines.append(
                    f"{game_id:<24} {part:<8} ok      cc {ccs}: {drivers} drivers, "
                    f"{size / 1e6:.1f} MB PTX, {seconds:.0f} s"
                )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``monster-zoo gpu check``."""
    from .. import available

    parser = argparse.ArgumentParser(prog="monster-zoo gpu check", description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="GAME", help="game ids (default: every registered game)")
    parser.add_argument(
        "--parts",
        default=",".join(PARTS),
        metavar="PART,...",
        help=f"which drivers: {', '.join(PARTS)} (engine: the batched engine's; learner: the "
        "learner-seat games' of device-train --device cuda) (default: both)",
    )
    args = parser.parse_args(argv)
    unknown = [g for g in args.games if g not in available()]
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; available: {', '.join(available())}")
    parts = [p.strip() for p in args.parts.split(",")]
    if not all(parts) or any(p not in PARTS for p in parts):
        parser.error(f"--parts {args.parts!r}: each part must be one of {', '.join(PARTS)}")
    require_numba_cuda()
    games = args.games or available()
    lines = check(games, parts=list(dict.fromkeys(parts)))
    for line in lines:
        print(line)
    failed = {line.split()[0] for line in lines if " FAILED " in line}
    print(
        f"{len(games) - len(failed)} of {len(games)} games compile to PTX for cc "
        + ", ".join(f"{a}.{b}" for a, b in CAPABILITIES)
        + f" ({', '.join(dict.fromkeys(parts))} drivers)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
