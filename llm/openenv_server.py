"""The games as an OpenEnv environment (``openenv-core``, the openenv extra): what TRL's GRPO trainer
and ``verifiers`` train language models against.

:class:`GameEnvironment` is an OpenEnv ``MCPEnvironment``: ``reset`` deals a game with the client
in one seat and agents in the others, ``step`` plays the client's move (a :class:`MoveAction`) or
calls one of its MCP tools (OpenEnv's ``ListToolsAction`` and ``CallToolAction``), and ``state``
tells the episode, the game and the moves made. Each environment holds one game at a time, so
the tools need no game id.

The tools answer to monster-zoo's names (those of ``monster-zoo mcp``: ``list_games``,
``new_game``, ``observe``, ``act``, ``get_record``) and to OpenSpiel's MCP example's names beside
them (``list_games``, ``game_info``, ``start_game``, ``legal_actions``, ``play_action``,
``get_observation``, ``get_return``), so a client written for either plays. The client sees the game
only through its seat's JSON view (:mod:`monster_zoo.envs.core.json_view`); moves, agents, limits
and refusals are those of the MCP server's :class:`~monster_zoo.llm.table.ClientTable`, and a
refusal comes back as its sentence and changes nothing.

The reward of a step is the client's return once the game is over (``reward="win"``: +1 for a
win, -1 for a loss, 0 for a draw), 0 before. A move the table refuses changes nothing and comes back
as the observation's ``error`` (its sentence) beside the unchanged view, as OpenEnv's tool calls
carry theirs.

:func:`create_server` builds OpenEnv's HTTP app (``/reset``, ``/step``, ``/state``, ``/ws``,
``/mcp``) around it, and ``python -m monster_zoo.llm.openenv_server`` serves it with uvicorn. A step
takes its action as OpenEnv's Action models do: ``{"action": {"move": 3}}`` (or the move's name) is
a :class:`MoveAction`, and ``{"action": {"type": "call_tool", "tool_name": ..., "arguments": ...}}``
(or ``{"type": "list_tools"}``) an MCP call; ``/schema`` describes all three. OpenEnv's HTTP
``/reset`` and ``/step`` each meet a fresh environment, so a game is played through one session:
the ``/ws`` WebSocket that OpenEnv's clients (``EnvClient``, ``GenericEnvClient``,
``MCPToolClient``) hold.

FastMCP logs every refused tool call on its own loggers; here each refusal is logged once, on
``monster_zoo.openenv`` at debug level (quiet unless asked for), since a refused call is the
client's answer, not the server's news.
"""

import argparse
import logging
import re
from typing import Annotated, Any
from uuid import uuid4

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from openenv.core.env_server.mcp_environment import MCPEnvironment
from openenv.core.env_server.mcp_types import CallToolAction, CallToolObservation, ListToolsAction
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field, StrictInt, StrictStr, TypeAdapter, model_validator

from monster_zoo import envs
from monster_zoo.envs.core.json_view import rules_summary
from monster_zoo.llm.table import ClientTable
from monster_zoo.web.app import Settings
from monster_zoo.web.refusals import RequestError

DEFAULT_GAME = "monster_factory-v0"
OPENSPIEL_NAMES = (
    "list_games",
    "game_info",
    "start_game",
    "legal_actions",
    "play_action",
    "get_observation",
    "get_return",
)
OUR_NAMES = ("list_games", "new_game", "observe", "act", "get_record")
NO_GAME = (
    "no game yet: reset the environment or call new_game (start_game) first; over HTTP, /reset and "
    "/step each meet a fresh environment, so play a game through one session (the /ws WebSocket, "
    "as OpenEnv's clients do)"
)
LOG = logging.getLogger("monster_zoo.openenv")
# Where FastMCP logs a refused tool call (on stderr, through its own handler), and how it says so.
FASTMCP_LOGGER = "fastmcp.server.server"
FASTMCP_REFUSAL = re.compile(r"(Error calling|Invalid arguments for) tool '([^']+)'")
# A move as the tools take it: checked by the table (an integer or a text, never a boolean), not by
# pydantic, whose lax mode reads true as 1 and whose refusals are its own text.
Move = Annotated[
    Any,
    Field(
        json_schema_extra={"anyOf": [{"type": "integer"}, {"type": "string"}]},
        description="a legal move's id, or its name",
    ),
]


class MoveAction(Action):
    """The client's move: a legal move's id, or its name or words."""

    # strict: a boolean or a float is not a move (lax pydantic reads true as 1)
    move: StrictInt | StrictStr = Field(description="a legal move's id, or its name")


class GameObservation(Observation):
    """The client's seat after ``reset`` or a move: its JSON view, the game and the seat (as fields, so
    that OpenEnv's HTTP answers carry them; it leaves ``metadata`` out), and a refused move's reason."""

    game: str | None = None
    seat: int | None = None
    view: dict = Field(default_factory=dict)
    error: str | None = Field(default=None, description="why the move was refused (nothing changed)")


# What the server's step reads, by OpenEnv's "type" field: MCP calls; anything else is a move.
MCP_ACTIONS = {"call_tool": CallToolAction, "list_tools": ListToolsAction}


class ServedAction(MoveAction):
    """The action model the server reads a step's action with: a move as :class:`MoveAction`, or an
    MCP call (``"type"``: ``"call_tool"`` or ``"list_tools"``) as OpenEnv's own models. OpenEnv reads
    MCP calls itself only for servers whose action model is an MCP one; this one takes both."""

    @model_validator(mode="wrap")
    @classmethod
    def _an_mcp_call_or_a_move(cls, data: Any, handler):
        if isinstance(data, dict) and data.get("type") in MCP_ACTIONS:
            return MCP_ACTIONS[data["type"]].model_validate(data)
        return handler(data)

    @classmethod
    def model_json_schema(cls, *args, **kwargs) -> dict:
        """The schema of what a step takes: a move or one of OpenEnv's MCP actions."""
        return TypeAdapter(MoveAction | CallToolAction | ListToolsAction).json_schema(*args, **kwargs)


class ServedObservation(GameObservation):
    """What the server's steps answer, for its ``/schema``: a move's :class:`GameObservation` or an MCP
    call's observation."""

    @classmethod
    def model_json_schema(cls, *args, **kwargs) -> dict:
        """The schema of what a step answers."""
        return TypeAdapter(GameObservation | CallToolObservation).json_schema(*args, **kwargs)


class GameState(State):
    """The episode: its id, the moves the client made, the game and the client's seat."""

    game: str | None = None
    seat: int | None = None
    over: bool = False


class RefusalsOffStderr(logging.Filter):
    """Keeps FastMCP's records of this environment's refused tool calls off its stderr handler: a
    refusal is logged once, at debug level, on ``monster_zoo.openenv`` (by :func:`refuse`, or here
    for arguments FastMCP refused itself). A tool's unexpected error (FastMCP logs its traceback)
    and other servers' tools pass through."""

    def filter(self, record: logging.LogRecord) -> bool:
        """False for a refusal of one of this environment's tools (see the class)."""
        found = FASTMCP_REFUSAL.match(record.getMessage())
        if record.exc_info or found is None or found[2] not in OUR_NAMES + OPENSPIEL_NAMES:
            return True
        if found[1] == "Invalid arguments for":
            LOG.debug("refused %s", record.getMessage().removeprefix("Invalid arguments for tool "))
        return False


REFUSALS_OFF_STDERR = RefusalsOffStderr()


def refuse(message: str) -> ToolError:
    """The tool error a client reads for a refusal, logged once at debug level."""
    LOG.debug("refused: %s", message)
    return ToolError(message)


class GameEnvironment(MCPEnvironment):
    """One game at a time for one client, as an OpenEnv environment (see the module doc)."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # each session's environment holds its own table and game

    def __init__(self, settings: Settings | None = None):
        self.table = ClientTable(settings if settings is not None else Settings())
        self.game_handle: str | None = None
        self._state = GameState(episode_id=None, step_count=0)
        fastmcp_log = logging.getLogger(FASTMCP_LOGGER)
        if REFUSALS_OFF_STDERR not in fastmcp_log.filters:
            fastmcp_log.addFilter(REFUSALS_OFF_STDERR)
        server = FastMCP("monster-zoo")
        for tool in self._tools():
            server.tool(tool)
        super().__init__(server)

    # --- OpenEnv's reset / step / state -----------------------------------------------------------
    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        game: str = DEFAULT_GAME,
        options: dict | None = None,
        seats: list | None = None,
        **kwargs: Any,
    ) -> GameObservation:
        """Deal ``game`` (with ``options``; ``seats`` as ``new_game`` takes them, default the client
        in seat 0 and greedy elsewhere) on ``seed``; the client's first view."""
        if kwargs:
            raise ValueError(
                f"reset takes seed, episode_id, game, options and seats; not {', '.join(sorted(kwargs))}"
            )
        started = self._start(game, options, seats, seed)
        self._state = GameState(
            episode_id=episode_id or str(uuid4()), step_count=0, game=game, seat=started["seat"]
        )
        return self._observation(started["view"])

    def _step_impl(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> GameObservation:
        """Play a :class:`MoveAction`; a refused move answers the unchanged view and the refusal's
        sentence (``error``). Any other action is refused naming the ones taken."""
        if not isinstance(action, MoveAction):
            raise ValueError(
                f"{type(action).__name__} is not an action here: send MoveAction(move=...) or an MCP "
                "ListToolsAction / CallToolAction"
            )
        try:
            return self._observation(self._play(action.move))
        except ToolError as refusal:  # logged where it was raised
            view = self._view() if self.game_handle is not None else {}
            return self._observation(view, error=str(refusal))

    @property
    def state(self) -> GameState:
        """The episode so far."""
        return self._state

    def close(self) -> None:
        """Forget the game and stop the agents' threads."""
        self.table.close()
        super().close()

    # --- the tools ---------------------------------------------------------------------------------
    def _tools(self):
        """The MCP tools, ours and OpenSpiel's names (see the module doc)."""
        table = self.table

        def list_games() -> list[dict]:
            """Every game: its id, title, player counts, options with their defaults, agents."""
            return table.list_games()

        def game_info(game: str) -> dict:
            """One game's entry of list_games, with its rules in short."""
            entry = next((g for g in table.list_games() if g["game"] == game), None)
            if entry is None:
                raise refuse(f"unknown game {game!r}; available: {', '.join(envs.available())}")
            return {**entry, "rules_summary": rules_summary(envs.spec(game).name)}

        def new_game(
            game: str = DEFAULT_GAME,
            options: dict | None = None,
            seats: list | None = None,
            seed: int | None = None,
        ) -> dict:
            """Deal a game (replacing this environment's game): ``seats`` names each seat, "client"
            once (you); the client's seat and view."""
            return self._start(game, options, seats, seed)

        def start_game(
            game: str = DEFAULT_GAME,
            options: dict | None = None,
            seats: list | None = None,
            seed: int | None = None,
        ) -> dict:
            """OpenSpiel's name for new_game."""
            return self._start(game, options, seats, seed)

        def observe() -> dict:
            """Your seat's view of the game (with its result once it is over)."""
            return self._view()

        def get_observation() -> dict:
            """OpenSpiel's name for observe."""
            return self._view()

        def legal_actions() -> list[dict]:
            """Your legal moves now (id, name, words); none when it is not your turn."""
            return self._view()["legal_moves"]

        def act(move: Move) -> dict:
            """Play ``move`` (an id or a move's name); your view after the agents' moves."""
            return self._play(move)

        def play_action(action: Move) -> dict:
            """OpenSpiel's name for act."""
            return self._play(action)

        def get_return() -> dict:
            """Your return so far (the game's reward to your seat), and whether the game is over."""
            view = self._view()
            return {"return": self._return(view), "over": bool(view["over"])}

        def get_record() -> dict:
            """The match record of the finished game (refused before the end: it tells every secret)."""
            return self._call(table.get_record, self._handle())

        return [
            list_games,
            game_info,
            new_game,
            start_game,
            observe,
            get_observation,
            legal_actions,
            act,
            play_action,
            get_return,
            get_record,
        ]

    # --- helpers -----------------------------------------------------------------------------------
    def _start(self, game, options, seats, seed) -> dict:
        if self.game_handle is not None:
            self._call(self.table.close_game, self.game_handle)
            self.game_handle = None
        started = self._call(self.table.new_game, game, options, seats, seed)
        self.game_handle = started["game_id"]
        self._state = GameState(
            episode_id=self._state.episode_id, step_count=0, game=game, seat=started["seat"]
        )
        return {"seat": started["seat"], "view": started["view"]}

    def _play(self, move) -> dict:
        view = self._call(self.table.act, self._handle(), move)
        self._state.step_count += 1
        self._state.over = bool(view["over"])
        return view

    def _view(self) -> dict:
        return self._call(self.table.observe, self._handle())

    def _handle(self) -> str:
        if self.game_handle is None:
            raise refuse(NO_GAME)
        return self.game_handle

    def _return(self, view: dict) -> float:
        result = view.get("result")
        return float(result["returns"][self._state.seat]) if result else 0.0

    def _observation(self, view: dict, error: str | None = None) -> GameObservation:
        return GameObservation(
            done=bool(view.get("over", False)),
            reward=self._return(view),
            game=self._state.game,
            seat=self._state.seat,
            view=view,
            error=error,
        )

    @staticmethod
    def _call(method, *args):
        """``method(*args)``, a refusal turned into the tool error a client reads (its sentence)."""
        try:
            return method(*args)
        except RequestError as err:
            raise refuse(err.message) from None


class ClosedSessionsEndQuietly:
    """ASGI middleware: a ``/ws`` session whose client has gone ends without an error.

    OpenEnv's WebSocket handler still answers after its client closed the session (a client's
    normal way to finish), and the send raises ``WebSocketDisconnect``, which uvicorn would report
    as an error with a traceback; here it is logged at debug level. Errors of HTTP requests pass."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        """Run the app; for a WebSocket scope, a disconnect raised by a send ends the session."""
        from starlette.websockets import WebSocketDisconnect

        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        except WebSocketDisconnect as gone:
            LOG.debug("a /ws session ended by its client (code %s)", gone.code)


def create_server(settings: Settings | None = None):
    """OpenEnv's FastAPI app serving a :class:`GameEnvironment` per session; its steps take a move or an
    MCP call (:class:`ServedAction`)."""
    from openenv.core.env_server.http_server import create_fastapi_app

    app = create_fastapi_app(lambda: GameEnvironment(settings), ServedAction, ServedObservation)
    app.add_middleware(ClosedSessionsEndQuietly)
    return app


def main(argv=None) -> int:
    """Serve the environment with uvicorn on ``--host``/``--port``."""
    import uvicorn

    parser = argparse.ArgumentParser(description="Serve monster-zoo's games as an OpenEnv environment.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s)")
    parser.add_argument("--port", type=int, default=8000, help="port (default %(default)s)")
    args = parser.parse_args(argv)
    uvicorn.run(create_server(), host=args.host, port=args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
