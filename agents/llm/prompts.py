"""The prompts of the ``llm:<model>`` harness: the game's rules summary as the system message, the
seat's JSON view as each turn's question, and a retry message that says why an answer was refused.

With ``legal_moves=False`` (as Kaggle's Game Arena plays) the view is sent without its list of
legal moves: the model must name a move the rules allow from the rules and the table alone.
"""

import json

from monster_zoo.envs.core.json_view import rules_summary, view_legend

ANSWER_FORMAT = "Think briefly if you need to, then end with one line: move: <id or name of your move>"


def system_prompt(spec, legal_moves: bool = True) -> str:
    """The rules summary of ``spec``'s game, the table's symbols and what is asked of the model
    (told the view lists its moves only where ``legal_moves``)."""
    # the legend of the view the model reads (in words where the view lists what the terminal draws)
    symbols = view_legend(spec)
    legend = f"How to read the table's symbols:\n{symbols}\n\n" if symbols else ""
    return (
        f"You play {spec.title} as one seat at the table. The rules, in short:\n\n{rules_summary(spec.name)}\n"
        f"{legend}"
        "Each turn you are shown your seat's view as JSON: the table and your own cards in the game's words, "
        "the scores and the others' moves since yours"
        + (
            ", and the moves you may make (each an id and a name). "
            if legal_moves
            else ". Your legal moves are not listed: name one in the game's move notation. "
        )
        + ANSWER_FORMAT
    )


def turn_prompt(view: dict, legal_moves: bool = True) -> str:
    """The question of one turn: the seat's JSON view (without its legal moves when ``legal_moves``
    is False) and the answer format."""
    shown = view if legal_moves else {k: v for k, v in view.items() if k != "legal_moves"}
    ask = (
        "Choose one of legal_moves."
        if legal_moves
        else "Name a legal move by its name in the game's move notation (the list of legal moves is not shown)."
    )
    return (
        f"Your view:\n{json.dumps(shown, indent=1)}\n\nIt is your turn ({view['you']}). {ask} {ANSWER_FORMAT}"
    )


def retry_prompt(why: str) -> str:
    """What the model is told after an answer that names no legal move."""
    return f"Your answer was refused: {why}. Answer again. {ANSWER_FORMAT}"


def conversation(spec, view: dict, legal_moves: bool) -> list[dict[str, str]]:
    """The first messages of a turn."""
    return [
        {"role": "system", "content": system_prompt(spec, legal_moves)},
        {"role": "user", "content": turn_prompt(view, legal_moves)},
    ]
