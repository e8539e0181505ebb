"""``monster-zoo gpu check``: compile and link every kernel a game runs on a GPU, without a GPU or driver.

For each registered game and compute capability (8.0: A100, 9.0: H100/H200) every kernel is compiled
with numba-cuda's ``compile_ptx`` (NVVM from the CUDA toolkit's pip wheels) and then linked to a
cubin with nvJitLink (its pip wheel, as numba-cuda links a kernel when it is first launched),
together with numba-cuda's helper library (compiled by NVRTC). The kernels: the batched engine's
(:mod:`~monster_zoo.envs.gpu.drivers`, part ``engine``: reset, step and the in-launch ``random_steps``)
and the learner-seat games' that ``device-train --device cuda`` plays
(:mod:`~monster_zoo.envs.gpu.learner_drivers`, part ``learner``, the game's greedy kernel included).

PTX that compiles can still fail to link: a kernel whose module-level tables exceed the 64 KiB
constant bank does not load on any GPU. So one line per game, part, kernel and capability gives
the linker's figures (registers per thread, stack frame, spill bytes, constant bytes against the
limit, cubin size) or why it failed. Exit status 1 when any kernel failed.
"""

import argparse
import contextlib
import functools
import re
import struct
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import INSTALL_HINT, require_numba_cuda
from .tables import place_tables

CAPABILITIES = ((8, 0), (9, 0))
PARTS = ("engine", "learner")  # the batched engine's drivers, the learner-seat games' drivers
CONSTANT_LIMIT = 0x10000  # bytes of module-level constant data a CUDA module may hold (bank 3)


@dataclass(frozen=True)
class LinkFigures:
    """What linking one kernel for one capability gave: ``error`` None when it linked."""

    registers: int | None = None
    stack_bytes: int | None = None  # the entry's stack frame with its callees'
    spill_bytes: int | None = None  # spill stores and loads over every function of the cubin
    constant_bytes: int | None = None  # module-level constant data (the 64 KiB bank)
    global_bytes: int | None = None  # module-level data in global memory (the large tables among it)
    cubin_bytes: int | None = None
    # machine code bytes of each function of the cubin, the kernel's entry and every device function
    # that stayed a function of its own (``@standalone``), by its (mangled) name
    function_bytes: dict[str, int] | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Linked, and within the constant limit."""
        return self.error is None


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


def compile_kernel(function, argtypes, cc: tuple[int, int]) -> str:
    """The PTX of kernel ``function`` for ``argtypes`` and capability ``cc`` (numba-cuda's NVVM)."""
    from numba.cuda import compile_ptx

    place_tables()  # as the engine compiles its kernels: the tables' placement decides whether they link
    with _compiling_for(cc):
        ptx, _ = compile_ptx(function, argtypes, cc=cc)
    return ptx


@functools.cache
def helper_library_ptx(cc: tuple[int, int]) -> bytes:
    """numba-cuda's ``reshape_funcs.cu`` compiled by NVRTC to relocatable PTX for ``cc``: numba-cuda
    links it into every kernel that reshapes an array, and a kernel's PTX leaves its functions extern."""
    import numba_cuda
    from cuda.bindings import nvrtc

    source = Path(numba_cuda.__file__).parent / "numba" / "cuda" / "reshape_funcs.cu"
    status, program = nvrtc.nvrtcCreateProgram(source.read_bytes(), source.name.encode(), 0, [], [])
    if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"NVRTC could not take numba-cuda's {source.name}: {status}")
    options = [f"--gpu-architecture=compute_{cc[0]}{cc[1]}".encode(), b"-rdc=true"]
    try:
        (status,) = nvrtc.nvrtcCompileProgram(program, len(options), options)
        if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"NVRTC could not compile numba-cuda's {source.name}: {status}")
        _, size = nvrtc.nvrtcGetPTXSize(program)
        ptx = bytearray(size)
        nvrtc.nvrtcGetPTX(program, ptx)
    finally:
        nvrtc.nvrtcDestroyProgram(program)
    return bytes(ptx)


def _log(getter_size, getter, handle) -> str:
    """One of nvJitLink's logs of ``handle`` as text."""
    size = getter_size(handle)
    buffer = bytearray(size)
    if size:
        getter(handle, buffer)
    return buffer.rstrip(b"\0").decode(errors="replace")


def link(ptx: str, cc: tuple[int, int]) -> LinkFigures:
    """Link ``ptx`` for ``cc`` with nvJitLink (and numba-cuda's helper library) to a cubin; the figures
    its verbose log gives, or the linker's first error line."""
    from cuda.bindings import nvjitlink

    handle = nvjitlink.create(2, [f"-arch=sm_{cc[0]}{cc[1]}", "-verbose"])
    try:
        try:
            for name, data in (("kernel", ptx.encode()), ("reshape_funcs", helper_library_ptx(cc))):
                nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), name)
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as error:
            log = _log(nvjitlink.get_error_log_size, nvjitlink.get_error_log, handle)
            return LinkFigures(
                constant_bytes=parse_constant_overflow(log), error=first_error(log) or str(error)
            )
        figures = parse_link_log(_log(nvjitlink.get_info_log_size, nvjitlink.get_info_log, handle))
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
        return LinkFigures(**figures, cubin_bytes=len(cubin), function_bytes=code_sections(bytes(cubin)))
    finally:
        nvjitlink.destroy(handle)


def code_sections(cubin: bytes) -> dict[str, int]:
    """``{function: bytes of machine code}`` of a cubin (an ELF64 file holding each function's code in a
    section ``.text.<function>``), read from its section headers."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        raise ValueError("not a 64-bit ELF cubin")
    (offset,) = struct.unpack_from("<Q", cubin, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", cubin, 0x3A)

    def header(k):  # (name offset, file offset, size) of section k
        name, _, _, _, start, size = struct.unpack_from("<IIQQQQ", cubin, offset + k * entry_size)
        return name, start, size

    _, names_start, _ = header(names_index)
    sizes = {}
    for k in range(count):
        name_at, _, size = header(k)
        name = cubin[names_start + name_at : cubin.index(b"\0", names_start + name_at)].decode()
        if name.startswith(".text."):
            sizes[name[len(".text.") :]] = size
    return sizes


_FINAL_USAGE = re.compile(r"used (\d+) registers.*?(\d+) stack")
_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
_CONSTANT_DATA = re.compile(r"(\d+) bytes cmem\[3\]")
_GLOBAL_DATA = re.compile(r"info\s*:\s*(\d+) bytes gmem")
_CONSTANT_OVERFLOW = re.compile(r"too much global constant data \((0x[0-9a-fA-F]+) bytes")


def parse_link_log(log: str) -> dict:
    """Registers, stack, spill and constant bytes from nvJitLink's ``-verbose`` log of one kernel: the
    final ``info : used N registers, ..., N stack, ...`` line of the linked entry (its stack
    includes its callees'), spills summed over ptxas' ``Function properties`` of every function,
    module-level constant data from ``N bytes cmem[3]`` and global data from the last ``N bytes gmem``
    (absent: none)."""
    usage = _FINAL_USAGE.findall(log)
    if not usage:
        raise ValueError(f"no register count in nvJitLink's log: {log[-500:]!r}")
    registers, stack = usage[-1]
    spills = sum(int(stores) + int(loads) for stores, loads in _SPILLS.findall(log))
    constants = _CONSTANT_DATA.findall(log)
    data = _GLOBAL_DATA.findall(log)
    return {
        "registers": int(registers),
        "stack_bytes": int(stack),
        "spill_bytes": spills,
        "constant_bytes": int(constants[-1]) if constants else 0,
        "global_bytes": int(data[-1]) if data else 0,
    }


def parse_constant_overflow(log: str) -> int | None:
    """The constant bytes a module asked for when ptxas refused it for exceeding the bank, else None."""
    found = _CONSTANT_OVERFLOW.search(log)
    return int(found.group(1), 16) if found else None


def first_error(log: str) -> str | None:
    """The first ``error`` line of a linker log, without its tool prefix."""
    for line in log.splitlines():
        if "error" in line.lower():
            return line.split(":", 1)[-1].strip()
    return None


def check_kernel(function, argtypes, cc: tuple[int, int]) -> LinkFigures:
    """Compile ``function`` to PTX and link it for ``cc``; a compile error is reported as its figures'
    ``error``."""
    try:
        ptx = compile_kernel(function, argtypes, cc)
    except Exception as error:
        first = next((line for line in str(error).splitlines() if line.strip()), "")
        return LinkFigures(error=f"does not compile: {type(error).__name__}: {first.strip()[:200]}")
    return link(ptx, cc)


def part_sources(part: str):
    """The ``driver_sources`` function of ``part`` (one of :data:`PARTS`)."""
    if part == "engine":
        from .drivers import driver_sources
    else:
        from .learner_drivers import driver_sources
    return driver_sources


def check_game(
    game_id: str, part: str, capabilities: Sequence[tuple[int, int]] = CAPABILITIES
) -> dict[tuple[str, tuple[int, int]], LinkFigures]:
    """``{(kernel, cc): figures}`` for every kernel of ``game_id``'s ``part``."""
    from .. import spec

    return {
        (name, cc): check_kernel(function, argtypes, cc)
        for name, (function, argtypes) in part_sources(part)(spec(game_id)).items()
        for cc in capabilities
    }


def describe(figures: LinkFigures) -> str:
    """``ok  registers 98, stack 1048 B, ...`` or ``FAILED  <why>``."""
    if not figures.ok:
        asked = "" if figures.constant_bytes is None else f" ({figures.constant_bytes} constant bytes)"
        return f"FAILED  {figures.error}{asked}"
    return (
        f"ok      registers {figures.registers}, stack {figures.stack_bytes} B, spills "
        f"{figures.spill_bytes} B, constants {figures.constant_bytes} of {CONSTANT_LIMIT} B, global data "
        f"{figures.global_bytes} B, cubin "
        f"{figures.cubin_bytes / 1024:.0f} KiB"
    )


def check(
    game_ids: Sequence[str],
    capabilities: Sequence[tuple[int, int]] = CAPABILITIES,
    parts: Sequence[str] = PARTS,
) -> Iterator[str]:
    """One line per game, part, kernel and capability, as each part is done: ``<id> <part> <kernel> cc
    <X.Y> ok ...`` or ``... FAILED  <why>``; a part whose kernels cannot even be built gives one
    FAILED line."""
    for game_id in game_ids:
        for part in parts:
            try:
                results = check_game(game_id, part, capabilities)
            except Exception as error:
                first = next((line for line in str(error).splitlines() if line.strip()), "")
                yield f"{game_id:<24} {part:<8} FAILED  {type(error).__name__}: {first.strip()[:200]}"
                continue
            for (kernel, (major, minor)), figures in results.items():
                yield f"{game_id:<24} {part:<8} {kernel:<15} cc {major}.{minor}  {describe(figures)}"


def require_linker() -> None:
    """Raise RuntimeError saying what to install when nvJitLink or NVRTC (the gpu extra's CUDA wheels)
    cannot be loaded."""
    try:
        from cuda.bindings import nvjitlink, nvrtc

        nvjitlink.version()
        nvrtc.nvrtcVersion()
    except Exception as error:
        raise RuntimeError(
            f"linking needs the CUDA toolkit's nvJitLink and NVRTC ({type(error).__name__}: {error}): "
            f"{INSTALL_HINT}"
        ) from None


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
    require_linker()
    games = args.games or available()
    parts = list(dict.fromkeys(parts))
    failed = set()
    for line in check(games, parts=parts):
        print(line, flush=True)
        if " FAILED " in line:
            failed.add(line.split()[0])
    print(
        f"{len(games) - len(failed)} of {len(games)} games link every kernel for cc "
        + ", ".join(f"{a}.{b}" for a, b in CAPABILITIES)
        + f" ({', '.join(parts)} drivers)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
