"""A move in words, for people: the game's own explanation beside a move's name, where the name
uses codes (a tile's edges, a card's label, a space's number).

A move's name (``action_to_str``) stays the stable key that typed moves, golden playthroughs and
records go by; the words, given by the game's text view (``explain_action(state, action)``, where
it has one), are shown by the web page, the terminal ``play`` and the replay viewer, and kept
beside the name in match records (:func:`recorded_words`, checked against the game on replay). A viewer is told the words of a move only when it knows that move: its own, or one
whose name is the same for every viewer (``describe_action``), so the words reveal nothing a
seat may not see.
"""

import inspect
from collections.abc import Callable, Sequence

from .contract import H_CURRENT


def text_view_helper(spec, name: str) -> Callable | None:
    """The function ``name`` of ``spec``'s text view (the module of its ``to_text``), or None where
    it has none. Found from the spec, not the registry, so that the engines' JSON view
    (:mod:`~monster_zoo.envs.core.json_view`) can use this module without importing the registry back."""
    return getattr(inspect.getmodule(spec.to_text), name, None)


def text_view_explainer(spec) -> Callable | None:
    """The ``explain_action`` of ``spec``'s text view, or None where its move names say enough."""
    return text_view_helper(spec, "explain_action")


def move_words(spec, state, action: int, viewer: int | None) -> str | None:
    """``action`` (legal in ``state``, about to be taken by the seat on move) in words for
    ``viewer`` (a seat, or None for the public); None where the game has no words for it beyond
    its name, or the viewer does not know which move it is."""
    explain = text_view_explainer(spec)
    if explain is None:
        return None
    mover = int(state[H_CURRENT])
    if viewer != mover and spec.describe_action(state, action, viewer) != spec.action_to_str(action, state):
        return None
    said = explain(state, action)
    return None if said == spec.action_to_str(action, state) else said


def recorded_words(spec, state, action: int) -> str:
    """``action`` (legal in ``state``, about to be taken by the seat on move) in words as a match
    record keeps them: the game's own ``explain_action`` where it has one, else the move's name,
    which says it in words already. These are the mover's words: a record tells every hidden card
    anyway (its seed), and is handed out once the game is over."""
    explain = text_view_explainer(spec)
    return explain(state, action) if explain is not None else spec.action_to_str(action, state)


def named_with_words(spec, state, action: int, viewer: int | None) -> str:
    """The move's name as ``viewer`` knew it, followed by its words where it has some."""
    name = spec.describe_action(state, action, viewer)
    words = move_words(spec, state, action, viewer)
    return name if words is None else f"{name} ({words})"


def legal_moves_in_words(spec, state, legal: Sequence[int]) -> list[dict]:
    """The seat on move's ``legal`` actions as ``{"action", "name", "words"}``: what a person or a
    language model choosing among them is shown (the web page adds where each is drawn)."""
    mover = int(state[H_CURRENT])
    return [
        {"action": int(a), "name": spec.action_to_str(a, state), "words": move_words(spec, state, a, mover)}
        for a in legal
    ]
