"""The games an MCP client plays (``monster-zoo mcp``): one seat each for the client, agents in the
others, kept with the web app's limits and expiry.

A game is the web app's :class:`~monster_zoo.web.game_session.GameSession` with the client in the
seat a person would take: its moves go through the same rules' check, the others' moves are named
as the client's seat knew them, and the record is given only once the game is over (it tells every
secret). The client sees the game only through its seat's JSON view
(:mod:`monster_zoo.envs.core.json_view`). Agents move when the client acts (and when a game starts),
up to the client's next turn or the end; each has the app's time limit.

Every refusal is a :class:`~monster_zoo.web.refusals.RequestError` with its message, and changes
nothing.
"""

import json
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from monster_zoo import envs
from monster_zoo.agents.llm.moves import match_move
from monster_zoo.envs.core.json_view import seat_view
from monster_zoo.envs.core.move_words import legal_moves_in_words
from monster_zoo.envs.registry import declaration
from monster_zoo.web.app import Settings, build_session
from monster_zoo.web.catalogue import HUMAN, client_catalogue
from monster_zoo.web.game_session import GameSession
from monster_zoo.web.new_game import check_options, check_setup
from monster_zoo.web.refusals import bad_request, conflict, not_found, shown, unprocessable
from monster_zoo.web.store import ExpiringStore

CLIENT = "client"
DEFAULT_OPPONENT = "greedy"
MAX_MOVE_CHARS = 200


@dataclass
class ClientGame:
    """A game held for a client, who plays ``seat``."""

    session: GameSession
    seat: int


class ClientTable:
    """The games of the clients of one server, at most ``settings.max_sessions`` in progress, each
    dropped after ``settings.session_ttl_s`` seconds unused."""

    def __init__(self, settings: Settings | None = None):
        self.settings = settings if settings is not None else Settings()
        self.executor = ThreadPoolExecutor(
            max_workers=self.settings.agent_threads, thread_name_prefix="monster-zoo-mcp"
        )
        self.games: ExpiringStore[ClientGame] = ExpiringStore(
            self.settings.max_sessions,
            self.settings.session_ttl_s,
            "game",
            on_drop=lambda game: game.session.close(),
            is_live=lambda game: not game.session.finished,
            full="finish or close one of them (close_game)",
        )

    def close(self) -> None:
        """Stop the agents' threads (a move under way is dropped)."""
        self.executor.shutdown(wait=False, cancel_futures=True)

    def list_games(self) -> list[dict[str, Any]]:
        """Every game as :func:`~monster_zoo.web.catalogue.client_catalogue` lists what a new game
        accepts (``--models-dir`` models included), with whether it hides information and its rules."""
        return [
            {
                **listed,
                "hides_information": declaration(listed["game"]).hides_information,
                "rules": f"monster-zoo://rules/{listed['game']}",
            }
            for listed in client_catalogue(self.settings.models_dir)
        ]

    def new_game(self, game: Any, options: Any = None, seats: Any = None, seed: Any = None) -> dict[str, Any]:
        """Start ``game`` with ``options``; ``seats`` names each seat, ``"client"`` once (default: the
        client in seat 0 and greedy elsewhere); the agents before the client move at once.
        ``{"game_id", "seat", "view"}``."""
        if not isinstance(game, str) or game not in envs.available():
            raise not_found(f"unknown game {shown(game)}; available: {', '.join(envs.available())}")
        if seats is None:
            count = int(envs.spec(game).make_config(check_options(game, options))[0])
            seats = [CLIENT] + [DEFAULT_OPPONENT] * (count - 1)
        if isinstance(seats, list) and HUMAN in seats:
            raise unprocessable(f"a seat here is {CLIENT!r} (you) or an agent's name, not {HUMAN!r}")
        if not isinstance(seats, list) or seats.count(CLIENT) != 1:
            raise bad_request(
                f"'seats' must be a list naming one seat {CLIENT!r} (you) and an agent in each "
                f"other seat, got {shown(seats)}"
            )
        setup = check_setup(
            {
                "game": game,
                "options": options,
                "seed": seed,
                "seats": [HUMAN if s == CLIENT else s for s in seats],
            },
            self.settings.models_dir,
        )
        self.games.check_room()
        held = ClientGame(build_session(setup, self.settings), seats.index(CLIENT))
        game_id = self.games.add(held)
        self._advance(held)
        return {"game_id": game_id, "seat": held.seat, "view": self._view(held)}

    def observe(self, game_id: str) -> dict[str, Any]:
        """The client's JSON view of its game (with ``result`` once it is over)."""
        return self._view(self._game(game_id))

    def act(self, game_id: str, move: int | str) -> dict[str, Any]:
        """Play ``move`` (an id, or a name or the words of a legal move) for the client, then let the
        agents move up to the client's next turn or the end; the client's view after them. A move
        the rules refuse is answered with their reason and changes nothing."""
        held = self._game(game_id)
        session = held.session
        if isinstance(move, str) and len(move) > MAX_MOVE_CHARS:
            raise bad_request(f"'move' is an id or a move's name of at most {MAX_MOVE_CHARS} characters")
        if not isinstance(move, (int, str)) or isinstance(move, bool):
            raise bad_request(f"'move' must be an id or a move's name, got {shown(move)}")
        with session.lock:
            view = self._view(held)
            if not view["your_turn"]:
                why = view["result"]["stopped"] if view["result"] and view["result"]["stopped"] else None
                raise conflict(
                    f"the game stopped: {why}"
                    if why
                    else "the game is over"
                    if view["over"]
                    else f"it is player_{view['on_move']}'s turn"
                )
            action = match_move(move, view["legal_moves"])
            if action is None:
                action = self._illegal_action(session, move)
            session.human_move(held.seat, action, session.step)
        self._advance(held)
        return self._view(held)

    def get_record(self, game_id: str) -> dict[str, Any]:
        """The match record of a finished game (refused before the end: it tells every secret)."""
        held = self._game(game_id)
        if not held.session.finished:
            raise conflict("the record is given once the game is over: it tells every seat's secrets")
        return json.loads(json.dumps(held.session.record()))

    def close_game(self, game_id: str) -> dict[str, Any]:
        """Forget the game."""
        self.games.remove(self._checked_id(game_id))
        return {"closed": game_id}

    # --- helpers ---------------------------------------------------------------------------------
    def _game(self, game_id: Any) -> ClientGame:
        return self.games.get(self._checked_id(game_id))

    @staticmethod
    def _checked_id(game_id: Any) -> str:
        if not isinstance(game_id, str):
            raise bad_request(f"'game_id' must be the text new_game answered, got {shown(game_id)}")
        return game_id

    @staticmethod
    def _illegal_action(session: GameSession, move: int | str) -> int:
        """The action a move that is not legal names, for the rules to give their reason; a text that
        names no move at all is refused here, listing the legal ones."""
        if isinstance(move, int):
            return move
        try:
            return int(session.spec.str_to_action(move))
        except (ValueError, KeyError, IndexError):
            legal = legal_moves_in_words(session.spec, session.raw.engine_state, session.legal_actions())
            names = [f"{m['action']}: {m['name']}" for m in legal]
            raise unprocessable(
                f"{shown(move)} names no move; your legal moves: {'; '.join(names)}"
            ) from None

    def _view(self, held: ClientGame) -> dict[str, Any]:
        session = held.session
        with session.lock:
            session.thinking_seconds()  # an agent past its time limit stops the game
            named = [(m.seat, m.names[held.seat]) for m in session.moves]
            return seat_view(
                session.spec,
                session.raw.engine_state,
                held.seat,
                session.legal_actions(),
                named,
                session.result(),
            )

    def _advance(self, held: ClientGame) -> None:
        """Let the agents move until the client is on move or the game is finished."""
        session = held.session
        while True:
            future = session.start_agent_move(self.executor)
            if future is None:
                return
            try:
                future.result(timeout=session.time_limit_s + 0.5)
            except FutureTimeout:
                session.thinking_seconds()  # stops the game for its time limit
