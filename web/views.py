"""What one viewer of a game is sent: the page's whole picture of the game, filtered on the server.

A viewer is a seat or the public. A seat's view holds its picture (the game's drawing for that
seat: its own cards shown, nothing hidden from it), the moves so far named as that seat knew
them, and, when it is on move, its legal moves by name with the place on the picture where
each is made. Nothing else of the state leaves the server, so a seat's view is the same for
every state that differs only in what the seat cannot see (``tests/test_web_api.py`` checks it
against the game's ``determinize``).

Places: each game's drawing module names the elements where moves are made (a ``data-place``
attribute) and says which element a move belongs to (its ``action_place(state, action)``). A
move whose element the picture does not draw (a card shown only as text) is listed by name.
A drawing module may also draw a move where it would go (its ``move_preview(state, action)``,
e.g. a tile turned on its cell), shown beside the move's name when a place holds several moves.
A game whose move names use codes (a tile's edges, a card's label) explains each move in words
(:mod:`monster_zoo.envs.core.move_words`): the page shows those words with the name.
"""

import inspect
from collections.abc import Callable
from functools import cache

from monster_zoo.envs.core.move_words import legal_moves_in_words

from .game_session import GameSession
from .refusals import RequestError, query_number

PUBLIC = "public"
MAX_EVENTS = 500  # moves sent in one view; the page asks again from where it stopped


@cache
def drawing_helper(draw: Callable, name: str) -> Callable | None:
    """The function ``name`` (``action_place``, ``move_preview``) of the drawing module that holds
    ``draw`` (the game's ``spec.draw``), or None where a game's drawing has none."""
    return getattr(inspect.getmodule(draw), name, None)


def places(spec, state, legal: list[int], svg: str) -> dict[int, str]:
    """The place on ``svg`` of each of the ``legal`` actions that has one drawn."""
    finder = drawing_helper(spec.draw, "action_place")
    if finder is None:
        return {}
    found = {}
    for action in legal:
        place = finder(state, action)
        if place is not None and f'data-place="{place}"' in svg:
            found[action] = place
    return found


def parse_viewer(text: str | None, seats: int) -> int | None:
    """The viewer a query names: ``public`` (None, also when absent) or a seat number; 400 otherwise."""
    if text is None or text == PUBLIC:
        return None
    what = f"{PUBLIC} or a seat from 0 to {seats - 1}"
    seat = query_number(text, "viewer", what)
    if seat < seats:
        return seat
    raise RequestError(400, f"viewer must be {what}, got {text!r}")


def check_viewer(session: GameSession, viewer: int | None) -> None:
    """403 unless ``viewer`` may look: the public always; a person's seat; any seat of a game that is
    only watched, or finished (its record tells everything anyway)."""
    if viewer is None or viewer in session.humans or session.mode != "play" or session.finished:
        return
    raise RequestError(
        403,
        f"player_{viewer} is played by {session.labels[viewer]}: its view is not shown "
        "while the game goes on",
    )


def seat_view(session: GameSession, viewer: int | None, since: int = 0) -> dict:
    """Everything the page shows ``viewer`` (a seat, or None for the public), with the moves from
    number ``since`` on (at most :data:`MAX_EVENTS`)."""
    with session.lock:
        thinking = session.thinking_seconds()  # first: a move past its time limit stops the game
        raw, spec = session.raw, session.spec
        state = raw.engine_state
        svg = raw.draw(viewer)
        on_move = session.on_move
        moves = []
        if on_move is not None and on_move == viewer and on_move in session.humans:
            legal = session.legal_actions()
            where = places(spec, state, legal, svg)
            preview = drawing_helper(spec.draw, "move_preview")
            moves = [
                {
                    **move,
                    "place": where.get(move["action"]),
                    "preview": None
                    if preview is None or move["action"] not in where
                    else preview(state, move["action"]),
                }
                for move in legal_moves_in_words(spec, state, legal)
            ]
        start = max(0, min(since, len(session.moves)))
        events = [
            {"index": i, "seat": m.seat, "name": m.names[viewer], "words": m.words[viewer]}
            for i, m in enumerate(session.moves[start : start + MAX_EVENTS], start)
        ]
        return {
            "game": spec.env_id,
            "title": spec.title,
            "mode": session.mode,
            "viewer": PUBLIC if viewer is None else viewer,
            "seats": [
                {"seat": s, "name": label, "human": s in session.humans}
                for s, label in enumerate(session.labels)
            ],
            "step": session.step,
            "on_move": on_move,
            "over": session.over,
            "stopped": session.stopped,
            "thinking": None if thinking is None else {"seat": on_move, "seconds": round(thinking, 1)},
            "time_limit_s": session.time_limit_s,
            "svg": svg,
            "moves": moves,
            "events": events,
            "events_total": len(session.moves),
            "scores": spec.public_scores(state),
            "score_label": spec.score_label,
            "result": session.result(),
            "record_note": session.record_note,
        }
