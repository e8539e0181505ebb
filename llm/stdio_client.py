"""Play games through ``monster-zoo mcp`` as an MCP client does, with the SDK's own stdio client:
what the MCP test and the example script (``examples/llm_mcp_game.py``) run, and how the
documentation's transcript was made."""

import json
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TextIO

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SERVER_MODULE = "monster_zoo.llm.mcp_server"


class ToolRefused(Exception):
    """A tool call the server answered with an error (its message is the reason)."""


@asynccontextmanager
async def connected(
    server_args: list[str] | None = None, errlog: TextIO | None = None
) -> AsyncIterator[ClientSession]:
    """An initialized client session of a ``monster-zoo mcp`` server started with this Python; the
    server's stderr goes to ``errlog`` (a file with a descriptor; default this process's stderr)."""
    params = StdioServerParameters(command=sys.executable, args=["-m", SERVER_MODULE, *(server_args or [])])
    async with stdio_client(params, errlog=errlog if errlog is not None else sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    """The JSON answer of ``tool``; :class:`ToolRefused` with the reason when the server refuses."""
    result = await session.call_tool(tool, arguments)
    text = "".join(getattr(part, "text", "") for part in result.content)
    if result.is_error:
        raise ToolRefused(text)
    return json.loads(text)


async def play_game(
    session: ClientSession,
    game: str,
    choose: Callable[[dict], Any],
    seats: list[str] | None = None,
    options: dict | None = None,
    seed: int = 0,
    transcript: list[str] | None = None,
) -> dict:
    """One whole game of ``game`` where the client moves ``choose(view)`` (an id or a name); the
    client's last view (its ``result`` filled). Each call and answer is appended to ``transcript``."""

    def note(line: str) -> None:
        if transcript is not None:
            transcript.append(line)

    arguments = {
        "game": game,
        "seed": seed,
        **({"seats": seats} if seats is not None else {}),
        **({"options": options} if options is not None else {}),
    }
    note(f"> new_game {json.dumps(arguments)}")
    started = await call(session, "new_game", **arguments)
    game_id, view = started["game_id"], started["view"]
    note(f"< game_id {game_id[:6]}..., you are seat {started['seat']}; your view:")
    note(json.dumps(view, indent=1))
    while not view["over"]:
        for seen in view["last_moves"]:
            note(f"  {seen['player']}: {seen['name']}")
        move = choose(view)
        named = next((m["name"] for m in view["legal_moves"] if move in (m["id"], m["name"])), "?")
        note(f"> act {json.dumps(move)}   ({named}; one of {len(view['legal_moves'])} legal moves)")
        view = await call(session, "act", game_id=game_id, move=move)
    for seen in view["last_moves"]:
        note(f"  {seen['player']}: {seen['name']}")
    note(
        f"< over: returns {view['result']['returns']}, you {view['result']['outcomes'][view['seat']]}; "
        f"the table at the end:\n{view['table']}"
    )
    record = await call(session, "get_record", game_id=game_id)
    note(f"> get_record: {len(record['actions'])} actions")
    await call(session, "close_game", game_id=game_id)
    note("> close_game")
    return view
