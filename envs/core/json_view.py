"""A seat's view of a game as JSON, for a language model or an MCP client: what the seat may know,
in the game's own words, and nothing else.

    {"schema": "monster_zoo.seat_view", "schema_version": 1, "game": "monstargh-v0",
     "title": "MONSTArgh!", "seat": 0, "you": "player_0", "num_players": 3, "step": 12,
     "on_move": 0, "your_turn": true, "over": false, "phase": "choose a card",
     "table": "...the public table, as the game's text view writes it...",
     "yours": "...what only this seat sees (its hand, its secret)...",
     "codes": {"SA3": "SA Stitched Arm: part, ..."},
     "scores": [3, 1, 0], "score_label": "stars",
     "legal_moves": [{"id": 4, "name": "play 2", "words": null}, ...],
     "last_moves": [{"seat": 2, "player": "player_2", "name": "lay two cards face down"}],
     "result": null}

Fields (the same for every game; each game's ``seeds/<game>/seat_view.schema.json`` pins its id,
its seats and its move ids): ``phase`` is the phase in the game's words (its text view's
``phase_text``), ``table`` is the game's public text view in words (its ``plain_text`` where the
terminal's ``to_text`` draws a picture), ``yours`` its private text for this seat
(``private_text``; null where a game hides nothing), ``codes`` each card or tile code the view's
texts and move names use, in words (the text view's ``code_words``), ``scores`` what
the table shows of each seat's score, ``legal_moves`` the seat's moves when it is on move (empty
otherwise), each with the id ``env.step`` takes, its name (what a typed move or a record holds) and
its words where the name uses codes (:mod:`~monster_zoo.envs.core.move_words`), ``last_moves`` the
moves since this seat last moved, named as this seat knew them (``describe_action``: the others'
secret choices stay secret), ``result`` the returns once the game is over.

Every field is read from the kernels' state through the game's own text view, naming and scoring
helpers, so no rule is written twice; a seat's view is the same for every state that differs only
in what it cannot see (``tests/test_json_view.py`` checks it with ``determinize``).
"""

import json
from collections.abc import Sequence

from monster_zoo.seeds import game_dir

from .contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from .move_words import legal_moves_in_words, text_view_helper

SCHEMA = "monster_zoo.seat_view"
SCHEMA_VERSION = 2  # bumped (and noted in CHANGELOG.md) whenever a field changes meaning or goes
MAX_LAST_MOVES = 50  # moves named in one view; a seat that slept longer sees the latest ones
SCHEMA_FILE = "seat_view.schema.json"
SUMMARY_FILE = "summary.md"


def seat_view(
    spec,
    state,
    seat: int,
    legal: Sequence[int],
    last_moves: Sequence[tuple[int, str]] = (),
    result: dict | None = None,
) -> dict:
    """The JSON view of ``seat`` in ``state``: ``legal`` are the legal actions of the seat on move,
    ``last_moves`` the ``(seat, name as this seat knew it)`` of the moves so far (the latest since this
    seat's own last move are kept), ``result`` the game's result once it is over (None before)."""
    num_players = int(state[H_NUM_PLAYERS])
    if not 0 <= seat < num_players:
        raise ValueError(f"seat {seat!r} is not at this table; seats are 0..{num_players - 1}")
    over = bool(state[H_TERMINAL]) or result is not None
    on_move = None if over or int(state[H_CURRENT]) < 0 else int(state[H_CURRENT])
    your_turn = on_move == seat
    private = spec.private_text(state, seat) if spec.private_text is not None else None
    phase = text_view_helper(spec, "phase_text")
    moves = (
        [
            {"id": m["action"], "name": m["name"], "words": m["words"]}
            for m in legal_moves_in_words(spec, state, legal)
        ]
        if your_turn
        else []
    )
    plain = text_view_helper(spec, "plain_text")
    table = plain(state) if plain is not None else spec.to_text(state)
    last = since_own_move(last_moves, seat)
    explain = text_view_helper(spec, "code_words")
    named = [table, private or "", *(m["name"] for m in moves), *(m["name"] for m in last)]
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "game": spec.env_id,
        "title": spec.title,
        "seat": seat,
        "you": f"player_{seat}",
        "num_players": num_players,
        "step": int(state[H_STEPS]),
        "on_move": on_move,
        "your_turn": your_turn,
        "over": over,
        "phase": None if phase is None else phase(state),
        "table": table,
        "yours": private,
        "codes": explain("\n".join(named)) if explain is not None else {},
        "scores": [int(s) for s in spec.public_scores(state)],
        "score_label": spec.score_label,
        "legal_moves": moves,
        "last_moves": last,
        "result": result,
    }


def view_legend(spec) -> str:
    """What the symbols of the view's ``table`` mean: the text view's ``PLAIN_LEGEND`` where the
    view lists in words what the terminal draws, its ``LEGEND`` otherwise."""
    return text_view_helper(spec, "PLAIN_LEGEND") or spec.legend


def since_own_move(named: Sequence[tuple[int, str]], seat: int) -> list[dict]:
    """The moves after ``seat``'s own last one (all of them before it first moved), at most
    :data:`MAX_LAST_MOVES`, as ``{"seat", "player", "name"}``."""
    start = 0
    for index, (mover, _) in enumerate(named):
        if mover == seat:
            start = index + 1
    start = max(start, len(named) - MAX_LAST_MOVES)
    return [{"seat": int(s), "player": f"player_{s}", "name": name} for s, name in named[start:]]


def schema_of(spec, max_players: int) -> dict:
    """The JSON Schema of ``spec``'s seat views (what ``seeds/<game>/seat_view.schema.json`` holds)."""
    seat = {"type": "integer", "minimum": 0, "maximum": max_players - 1}
    text_or_null = {"type": ["string", "null"]}
    move = {
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "name", "words"],
        "properties": {
            "id": {"type": "integer", "minimum": 0, "maximum": spec.num_actions - 1},
            "name": {"type": "string", "description": "the move's name: typed moves and records use it"},
            "words": {**text_or_null, "description": "the move in words where its name uses codes"},
        },
    }
    seen = {
        "type": "object",
        "additionalProperties": False,
        "required": ["seat", "player", "name"],
        "properties": {
            "seat": seat,
            "player": {"type": "string", "pattern": "^player_[0-9]+$"},
            "name": {"type": "string", "description": "the move as this seat knew it"},
        },
    }
    fields = {
        "schema": {"const": SCHEMA},
        "schema_version": {"const": SCHEMA_VERSION},
        "game": {"const": spec.env_id},
        "title": {"const": spec.title},
        "seat": {**seat, "description": "the seat this view is for"},
        "you": {"type": "string", "pattern": "^player_[0-9]+$", "description": "this seat's agent name"},
        "num_players": {"type": "integer", "minimum": 1, "maximum": max_players},
        "step": {"type": "integer", "minimum": 0, "description": "moves made so far"},
        "on_move": {"anyOf": [seat, {"type": "null"}], "description": "the seat on move; null once over"},
        "your_turn": {"type": "boolean"},
        "over": {"type": "boolean"},
        "phase": {"type": ["string", "null"], "description": "the phase the game is in, in its own words"},
        "table": {
            "type": "string",
            "description": "the public table in the game's words"
            + (f"; its symbols:\n{view_legend(spec)}" if view_legend(spec) else ""),
        },
        "yours": {**text_or_null, "description": "what only this seat sees"},
        "codes": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "each card or tile code that the table, yours and the moves use, in words",
        },
        "scores": {"type": "array", "items": {"type": "integer"}, "description": "each seat's public score"},
        "score_label": {"const": spec.score_label},
        "legal_moves": {"type": "array", "items": move, "description": "this seat's moves when on move"},
        "last_moves": {
            "type": "array",
            "items": seen,
            "maxItems": MAX_LAST_MOVES,
            "description": "the moves since this seat's own last move",
        },
        "result": {
            "anyOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "required": ["returns"],
                    "properties": {"returns": {"type": "array", "items": {"type": "number"}}},
                },
            ]
        },
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://monster-zoo.invalid/schemas/{spec.name}/seat_view.schema.json",
        "title": f"{spec.title}: a seat's JSON view (schema version {SCHEMA_VERSION})",
        "type": "object",
        "additionalProperties": False,
        "required": list(fields),
        "properties": fields,
    }


def schema_text(spec, max_players: int) -> str:
    """:func:`schema_of` as the file holds it (sorted keys, two-space indent, a final newline)."""
    return json.dumps(schema_of(spec, max_players), indent=2, sort_keys=True) + "\n"


def shipped_schema(game_name: str) -> dict:
    """The JSON Schema shipped in ``seeds/<game_name>/``."""
    return json.loads((game_dir(game_name) / SCHEMA_FILE).read_text(encoding="utf-8"))


def rules_summary(game_name: str) -> str:
    """The short rules summary of ``game_name`` written for prompts (``seeds/<game_name>/summary.md``)."""
    return (game_dir(game_name) / SUMMARY_FILE).read_text(encoding="utf-8")
