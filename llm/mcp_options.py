"""``monster-zoo mcp``'s options, apart from the server so that ``--help`` and bad options are
answered without the llm extra (the MCP SDK, starlette) installed."""

import argparse
from pathlib import Path

PROG = "monster-zoo mcp"
LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8766


def build_parser() -> argparse.ArgumentParser:
    """``monster-zoo mcp``'s options."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="The games as an MCP server for language-model "
        "clients: stdio by default (an MCP client starts it), or streamable HTTP on "
        f"{LOOPBACK}.",
    )
    parser.add_argument(
        "--http",
        action="store_true",
        help=f"serve streamable HTTP on {LOOPBACK}:--port (path /mcp) instead of stdio",
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"with --http (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--max-games",
        type=int,
        default=16,
        metavar="N",
        help="games in progress at once (default 16); a new one beyond is refused",
    )
    parser.add_argument(
        "--game-ttl",
        type=float,
        default=3600.0,
        metavar="SECONDS",
        help="a game unused this long is dropped (default 3600)",
    )
    parser.add_argument(
        "--agent-time-limit",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="an agent thinking longer stops its game (default 60)",
    )
    parser.add_argument(
        "--models-dir",
        type=Path,
        metavar="DIR",
        help="trained models (.npz) offered as agents, by file name, from this folder only",
    )
    return parser
