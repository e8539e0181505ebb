"""``monster-zoo mcp``: the games as an MCP server (the official ``mcp`` SDK), over stdio by default
or streamable HTTP on 127.0.0.1 with ``--http``.

Tools: ``list_games``; ``new_game`` (``game``, ``options``, ``seats``: ``"client"`` where the client
plays, agent names elsewhere; answers ``game_id``, the client's seat and its view); ``observe``
(``game_id``: the client's JSON view, legal moves as ``{id, name, words}``, ``result`` once over);
``act`` (``game_id``, ``move``: an id or a name; the agents then move up to the client's next turn
or the end); ``get_record`` (once over); ``close_game``. Resources: each game's rules summary for
prompts (``monster-zoo://rules/<game>``) and its view's JSON Schema (``monster-zoo://schema/<game>``).
Refusals come back as tool errors with the reason in the server's own words (an argument of the
wrong type included: a move is a whole number or text, never a boolean) and change nothing; each is
logged once, at debug level. The games live in a :class:`~monster_zoo.llm.table.ClientTable`: the
web app's limits, expiry and time limit per move.

The HTTP transport listens on 127.0.0.1 only and checks each request's Host and Origin (DNS
rebinding protection), as ``monster-zoo serve`` does by default.
"""

import argparse
import functools
import json
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import StrictInt, StrictStr, ValidationError

from monster_zoo import envs
from monster_zoo.envs.core.json_view import rules_summary, shipped_schema
from monster_zoo.web.app import Settings
from monster_zoo.web.refusals import RequestError

from .mcp_options import LOOPBACK, PROG, build_parser
from .table import ClientTable

INSTRUCTIONS = (
    "Play monster-zoo's board and card games. list_games names them; read a game's rules at "
    "monster-zoo://rules/<game>; new_game seats you ('client') among agents; observe shows your "
    "seat's view and legal moves; act plays one of them (by id or name) and returns once it is "
    "your turn again or the game is over; get_record after the end; close_game when done."
)
# What each tool argument must be, in the words a refusal of a wrong one uses.
ARGUMENTS = {
    "game": "a game id that list_games names",
    "seats": 'a list of names, one per seat: "client" (you) once and an agent that list_games names '
    "in every other seat",
    "options": "an object of option names to values, as list_games lists them for the game",
    "seed": "a whole number (or left out for a fresh deal)",
    "game_id": "the text new_game answered as game_id",
    "move": "one of your legal moves: its id (a whole number written with the digits 0-9) or its name "
    "(text), as observe lists them",
}
MAX_SHOWN_CHARS = 60
LOG = logging.getLogger("monster_zoo.mcp")


def answered(call: Callable[[], Any]) -> Any:
    """``call()``'s answer; a refusal becomes the tool error the client reads (nothing changed)."""
    try:
        return call()
    except RequestError as err:
        raise ToolError(err.message) from None


def shown_json(value: Any) -> str:
    """``value`` as the client wrote it (JSON), cut to :data:`MAX_SHOWN_CHARS` characters."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + "..."


def argument_refusal(tool: str, err: ValidationError, arguments: dict[str, Any]) -> str:
    """The refusal of ``tool``'s ``arguments`` that failed its parameters' types, in our words:
    each wrong or missing argument and what it must be (never the validator's own text)."""
    said = []
    for field in dict.fromkeys(str(e["loc"][0]) for e in err.errors() if e["loc"]):
        must = ARGUMENTS.get(field, "given as the tool's description says")
        if field in arguments:
            said.append(f"'{field}' must be {must}, got {shown_json(arguments[field])}")
        else:
            said.append(f"{tool} needs '{field}': {must}")
    return "; ".join(said) or f"the arguments of {tool} are not what it takes: see its description"


class GamesServer(MCPServer):
    """The SDK's server whose tool refusals are the reason alone, in our words, logged once at
    debug level: the SDK would prefix them, pass a type error's validator text (naming internal
    classes and a web address) to the client, and log each refusal at info level."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """The SDK's :meth:`~MCPServer.call_tool`, its refusals rewritten (see the class)."""
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as err:
            cause = err.__cause__
            if isinstance(cause, ValidationError):
                message = argument_refusal(name, cause, arguments)
            elif isinstance(cause, ToolError):  # our own refusal, which the SDK prefixed
                message = str(cause)
            else:
                known = [tool.name for tool in await self.list_tools()]
                message = (
                    str(err)
                    if name in known
                    else f"there is no tool {shown_json(name)}; the tools are: {', '.join(known)}"
                )
            LOG.debug("refused %s: %s", name, message)
            raise ToolError(message) from None


def build_server(table: ClientTable) -> MCPServer:
    """The MCP server whose tools play the games of ``table``."""
    # Warnings and errors only on stderr: a refused call is the client's answer, not the server's news.
    server = GamesServer("monster-zoo", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool()
    def list_games() -> dict[str, Any]:
        """``games``: every game's id, title and player counts; each option new_game accepts with its
        default and its choices (or the kind of value it takes); the agents a seat may take, with the
        player counts (``agent_players``) and option values (``agent_options``) each one plays."""
        return {"games": table.list_games()}

    @server.tool()
    def new_game(
        game: str,
        seats: list[str] | None = None,
        options: dict[str, Any] | None = None,
        seed: StrictInt | None = None,
    ) -> dict[str, Any]:
        """Start a game. seats: one entry per seat, "client" for you (exactly once) and an agent's name
        (list_games) elsewhere; default you in seat 0 against greedy. Answers game_id, your seat and
        your view (the agents before you have moved)."""
        return answered(lambda: table.new_game(game, options, seats, seed))

    @server.tool()
    def observe(game_id: str) -> dict[str, Any]:
        """Your seat's view: the table and your own cards in the game's words, your legal moves (id,
        name) when it is your turn, the others' moves since yours, and the result once it is over."""
        return answered(lambda: table.observe(game_id))

    @server.tool()
    def act(game_id: str, move: StrictInt | StrictStr) -> dict[str, Any]:
        """Play a move (its id or its name) on your turn; answers your view once the agents have
        moved up to your next turn or the end. A refused move says why and changes nothing."""
        return answered(lambda: table.act(game_id, move))

    @server.tool()
    def get_record(game_id: str) -> dict[str, Any]:
        """The match record of a finished game (every move, every secret; refused before the end)."""
        return answered(lambda: table.get_record(game_id))

    @server.tool()
    def close_game(game_id: str) -> dict[str, Any]:
        """Forget a game."""
        return answered(lambda: table.close_game(game_id))

    for game_id in envs.available():
        name = envs.spec(game_id).name
        server.resource(
            f"monster-zoo://rules/{game_id}", name=f"{game_id} rules summary", mime_type="text/markdown"
        )(functools.partial(rules_summary, name))
        server.resource(
            f"monster-zoo://schema/{game_id}",
            name=f"{game_id} seat view JSON Schema",
            mime_type="application/json",
        )(functools.partial(schema_json, name))
    return server


def schema_json(game_name: str) -> str:
    """The JSON Schema of ``game_name``'s seat views, as text."""
    return json.dumps(shipped_schema(game_name), indent=2)


def settings_of(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Settings:
    """The table's settings from checked ``args`` (``parser.error`` names a bad one and its valid values)."""
    for flag, value, ok, valid in (
        ("--port", args.port, 0 <= args.port <= 65535, "a port from 0 to 65535"),
        ("--max-games", args.max_games, args.max_games >= 1, "at least 1"),
        ("--game-ttl", args.game_ttl, args.game_ttl > 0, "more than 0 seconds"),
        ("--agent-time-limit", args.agent_time_limit, args.agent_time_limit > 0, "more than 0 seconds"),
    ):
        if not ok:
            parser.error(f"{flag} must be {valid}, got {value}")
    if args.models_dir is not None and not args.models_dir.is_dir():
        parser.error(f"--models-dir {args.models_dir} is not a folder")
    return Settings(
        max_sessions=args.max_games,
        session_ttl_s=args.game_ttl,
        agent_time_limit_s=args.agent_time_limit,
        models_dir=args.models_dir.resolve() if args.models_dir is not None else None,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server until its client hangs up (stdio) or Ctrl-C (HTTP); the exit status."""
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    table = ClientTable(settings_of(args, parser))
    server = build_server(table)
    try:
        if args.http:
            security = TransportSecuritySettings(
                allowed_hosts=[f"{LOOPBACK}:*", "localhost:*"],
                allowed_origins=[f"http://{LOOPBACK}:*", "http://localhost:*"],
            )
            server.run("streamable-http", host=LOOPBACK, port=args.port, transport_security=security)
        else:
            server.run("stdio")
    except OSError as err:
        print(f"{PROG}: cannot listen on {LOOPBACK}:{args.port}: {err.strerror or err}", file=sys.stderr)
        return 1
    finally:
        table.close()
    return 0


if __name__ == "__main__":  # python -m monster_zoo.llm.mcp_server: what the stdio client test starts
    sys.exit(main())
