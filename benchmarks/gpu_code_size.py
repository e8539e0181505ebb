"""How big a game's GPU kernels compile: machine code per function, registers, stack and spills.

    python -m monster_zoo.benchmarks.gpu_code_size                      # Monster Arena, cc 9.0
    python -m monster_zoo.benchmarks.gpu_code_size --games monster_arena-v0,mighty_monsters-v0 \\
        --kernels step,random_steps,apply_action --cc 8.0 --label after

No GPU is needed: each kernel is compiled to PTX by numba-cuda's NVVM and linked to a cubin by
nvJitLink, both from the ``gpu`` extra's wheels, as ``monster-zoo gpu check`` does
(:mod:`monster_zoo.envs.gpu.ptx_check`). The kernels: the batched engine's drivers by name (``step``,
``random_steps``, ``reset``, ...) and, for ``apply_action`` and ``legal_mask``, a kernel that calls
only that contract kernel once per thread (what one game step's rules cost in code, without the
driver around them).

One JSON line per game, kernel and capability: registers, stack frame, spill bytes, cubin bytes, the
machine code bytes of all its functions (``code_bytes``) and of each one (``functions``, largest
first: the entry and every device function that stayed a function of its own, ``@standalone``), the
seconds the compile and link took, and the git commit, package versions and host. Lines are printed
and appended to ``--json`` (default ``docs/measurements/kernel_code_size_<date>.jsonl``); ``--label``
names the measured code (e.g. ``before``/``after`` a change). (The files are not named ``gpu_*``:
those are the device check's runs, which the results pages render.)
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTRACT_KERNELS = ("apply_action", "legal_mask")
DISTRIBUTIONS = (
    "numba",
    "numba-cuda",
    "llvmlite",
    "cuda-bindings",
    "nvidia-nvjitlink-cu12",
    "nvidia-cuda-nvcc-cu12",
)
_NAME = re.compile(r"(\d+)")


def readable(mangled: str) -> str:
    """The last name of an Itanium-mangled function name as numba writes it (``_ZN...9main_step...E...``
    gives ``main_step``); other names unchanged."""
    if not mangled.startswith("_ZN"):
        return mangled
    at, parts = 3, []
    while at < len(mangled) and mangled[at].isdigit():
        length = _NAME.match(mangled, at).group(1)
        at += len(length)
        parts.append(mangled[at : at + int(length)])
        at += int(length)
    return parts[-1] if parts else mangled


def contract_kernel_sources(spec) -> dict:
    """``{name: (python function, argument types)}``: a kernel per contract kernel of
    :data:`CONTRACT_KERNELS` that calls it once per thread."""
    from numba import cuda

    from monster_zoo.envs.core.batch import INTS, MASKS, RNGS, STATES
    from monster_zoo.envs.core.kernels import device_functions

    device = device_functions((spec.apply_action, spec.legal_mask))
    apply_action, legal_mask = device[id(spec.apply_action)], device[id(spec.legal_mask)]

    def apply_one(states, actions, rngs):
        """One action per thread's game."""
        i = cuda.grid(1)
        if i < states.shape[0]:
            apply_action(states[i], actions[i], rngs[i])

    def mask_one(states, masks, counts):
        """One mask per thread's game."""
        i = cuda.grid(1)
        if i < states.shape[0]:
            counts[i] = legal_mask(states[i], masks[i])

    return {
        "apply_action": (apply_one, (STATES, INTS, RNGS)),
        "legal_mask": (mask_one, (STATES, MASKS, INTS)),
    }


def measure(game_id: str, kernel: str, cc: tuple[int, int]) -> dict:
    """The figures of one kernel of ``game_id`` for ``cc`` (``error`` where it did not link)."""
    import monster_zoo
    from monster_zoo.envs.gpu.drivers import driver_sources
    from monster_zoo.envs.gpu.ptx_check import check_kernel

    spec = monster_zoo.spec(game_id)
    sources = contract_kernel_sources(spec) if kernel in CONTRACT_KERNELS else driver_sources(spec)
    if kernel not in sources:
        valid = sorted({*driver_sources(spec), *CONTRACT_KERNELS})
        raise SystemExit(f"--kernels: {kernel!r} is not a kernel of {game_id}; valid: {', '.join(valid)}")
    function, argtypes = sources[kernel]
    start = time.perf_counter()
    figures = check_kernel(function, argtypes, cc)
    seconds = round(time.perf_counter() - start, 1)
    row = {"game": game_id, "kernel": kernel, "cc": f"{cc[0]}.{cc[1]}", "compile_seconds": seconds}
    if not figures.ok:
        return {**row, "error": figures.error}
    functions = sorted(
        ((readable(n), b) for n, b in (figures.function_bytes or {}).items()), key=lambda x: -x[1]
    )
    return {
        **row,
        "registers": figures.registers,
        "stack_bytes": figures.stack_bytes,
        "spill_bytes": figures.spill_bytes,
        "cubin_bytes": figures.cubin_bytes,
        "code_bytes": sum(b for _, b in functions),
        "functions": dict(functions),
    }


def parse_capability(text: str) -> tuple[int, int]:
    """``"9.0"`` as ``(9, 0)``; argparse reports a ValueError as a bad value."""
    major, minor = text.split(".")
    return int(major), int(minor)


def parse_args(argv=None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="monster_arena-v0", help="comma-separated game ids")
    parser.add_argument(
        "--kernels",
        default="step,random_steps,apply_action,legal_mask",
        help="comma-separated: engine drivers (step, random_steps, reset, ...) and "
        + ", ".join(CONTRACT_KERNELS),
    )
    parser.add_argument(
        "--cc", default="9.0", type=parse_capability, help="compute capability, e.g. 8.0 or 9.0"
    )
    parser.add_argument("--label", default="", help="what the measured code is (e.g. before, after)")
    parser.add_argument(
        "--json",
        type=Path,
        default=ROOT
        / "docs"
        / "measurements"
        / f"kernel_code_size_{datetime.date.today().isoformat()}.jsonl",
        help="JSON-lines file the lines are appended to",
    )
    return parser.parse_args(argv)


def main(argv=None) -> int:
    """Measure every kernel of every game asked; exit status 1 when one did not link."""
    args = parse_args(argv)
    import monster_zoo
    from monster_zoo.envs.gpu import require_numba_cuda
    from monster_zoo.envs.gpu.ptx_check import require_linker
    from monster_zoo.evaluation.host import provenance

    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in monster_zoo.available()]
    if unknown or not games:
        raise SystemExit(
            f"--games: unknown {', '.join(unknown) or '(none)'}; available: {', '.join(monster_zoo.available())}"
        )
    require_numba_cuda()
    require_linker()
    facts = {
        "benchmark": "gpu_code_size",
        "label": args.label,
        "date": datetime.date.today().isoformat(),
        **provenance(DISTRIBUTIONS),
    }
    failed = False
    args.json.parent.mkdir(parents=True, exist_ok=True)
    for game_id in games:
        for kernel in (k.strip() for k in args.kernels.split(",") if k.strip()):
            row = measure(game_id, kernel, args.cc)
            failed |= "error" in row
            line = json.dumps({**row, **facts})
            print(line, flush=True)
            with open(
                args.json, "a", encoding="utf-8"
            ) as out:  # one whole line per write: a record, not a rewrite
                out.write(line + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
