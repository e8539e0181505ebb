"""``monster-zoo gpu ...``: the GPU engine's commands (today one, ``check``)."""

import argparse
import sys
from collections.abc import Sequence

COMMANDS = ("check",)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``monster-zoo gpu <command> ...``; return its exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        parser = argparse.ArgumentParser(prog="monster-zoo gpu")
        parser.add_argument(
            "command",
            choices=COMMANDS,
            help="check: compile every game's GPU kernels to PTX for cc 8.0 and 9.0 and link them (no GPU needed)",
        )
        parser.parse_args(argv[:1])  # exits with the usage and the valid commands
    from . import ptx_check

    try:
        return ptx_check.main(argv[1:])
    except RuntimeError as error:  # numba-cuda missing: what to install, no traceback
        print(f"monster-zoo gpu {argv[0]}: {error}", file=sys.stderr)
        return 1
