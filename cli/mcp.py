"""``monster-zoo mcp``: the games as an MCP server for language-model clients (needs the llm extra).

Its arguments go unchanged to :func:`monster_zoo.llm.mcp_server.main`, which owns them (stdio by
default, ``--http`` on 127.0.0.1)."""

import sys
from collections.abc import Sequence

from monster_zoo.cli.common import PROG
from monster_zoo.cli.serve import WEB_PACKAGES

LLM_PACKAGES = ("mcp", *WEB_PACKAGES)  # the SDK, and the web extra's packages the sessions use


def add_parser(commands) -> None:
    """Register ``mcp`` for the command list only: :func:`monster_zoo.cli.main.main` hands its
    arguments on before argparse would parse them."""
    commands.add_parser(
        "mcp",
        add_help=False,
        help="the games as an MCP server for language-model clients, stdio or "
        "--http on 127.0.0.1 (monster_zoo.llm.mcp_server; needs the llm extra)",
    )


def run(argv: Sequence[str]) -> int:
    """``mcp``: run ``monster_zoo.llm.mcp_server.main(argv)``, or explain how to install the llm extra.
    The arguments are parsed first, so ``--help`` and a bad option are answered without the extra."""
    from monster_zoo.llm.mcp_options import build_parser

    build_parser().parse_args(list(argv))
    try:
        from monster_zoo.llm import mcp_server
    except ModuleNotFoundError as err:  # the SDK or the web extra's packages: "install the extra", not a bug
        if (err.name or "").split(".")[0] not in LLM_PACKAGES:
            raise
        print(
            f"{PROG} mcp: {err.name} is not installed; the MCP server needs the llm extra:\n"
            f"    pip install 'monster-zoo[llm]'",
            file=sys.stderr,
        )
        return 1
    return mcp_server.main(list(argv))
