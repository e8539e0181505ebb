"""A person at a terminal as an agent: the board, the legal moves by name, a typed choice.

The agent sees what its seat may see and nothing more: the game's public text
(``spec.to_text``, which never shows hands) plus what only its seat sees
(``spec.private_text``: its own hand). A move is typed as its
number in the list or its name (``spec.str_to_action``); anything else gets a
message and a new prompt, so no illegal move ever reaches the game. ``help``
explains the commands, ``legend`` what the board's symbols mean, ``help CARD`` a
card's text (in games whose cards have names and texts, e.g. ``help SA3`` in Monster
Arena), ``board`` shows the board again. ``quit`` or the end of input raises
:class:`QuitGame`, which the caller turns into a clean exit.
"""

import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.base import Agent, state_needed
from monster_zoo.agents.game_rules import GameRules
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.envs.core.move_words import move_words
from monster_zoo.seeds import game_dir

QUIT_WORDS = ("quit", "exit", "q")
SHOW_WORDS = ("board", "moves")
HELP_WORDS = ("help", "?", "h")
LEGEND_WORDS = ("legend", "symbols", "key")
LINE_WIDTH = 80


class QuitGame(Exception):
    """The person asked to stop (``quit``) or their input ended."""


class HumanAgent(Agent):
    """Asks a person for every decision of its seat; see the module doc.

    ``input_stream`` and ``output_stream`` default to the terminal; tests pass
    ``io.StringIO`` objects.
    """

    name = "human"
    needs_state = True

    def __init__(
        self,
        game_id: str,
        seed: int = 0,
        input_stream: TextIO | None = None,
        output_stream: TextIO | None = None,
    ):
        self.spec = envs.spec(game_id)
        self.made_for = GameRules.any_rules(game_id)  # its board and move names are this game's
        self.input = input_stream if input_stream is not None else sys.stdin
        self.output = output_stream if output_stream is not None else sys.stdout
        super().__init__(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None) -> int:
        """Show the seat's view and legal moves, then read moves until one is legal."""
        if state is None:
            raise state_needed("HumanAgent", "needs the engine state to show the board")
        self.check_view(observation, action_mask, state)
        legal = np.flatnonzero(action_mask).tolist()
        if not legal:
            raise ValueError("the action mask allows no action: this agent is not on move")
        names = [self.spec.action_to_str(a, state) for a in legal]
        words = [move_words(self.spec, state, a, int(state[H_CURRENT])) for a in legal]
        self.show(state, names, words)
        while True:
            self._say(f"your move (1-{len(legal)} or a name; 'help' explains, 'quit' stops): ", end="")
            line = self.input.readline()
            if not line:
                raise QuitGame("end of input")
            text = line.strip()
            if text.lower() in QUIT_WORDS:
                raise QuitGame("quit")
            if text.lower() in SHOW_WORDS:
                self.show(state, names, words)
                continue
            command, _, topic = text.partition(" ")
            if command.lower() in HELP_WORDS + LEGEND_WORDS:
                self._say(self.explain(command.lower(), topic.strip(), names))
                continue
            action, problem = self.parse(text, legal, state)
            if problem is None:
                return action
            self._say(problem)

    def parse(self, text: str, legal: list, state: np.ndarray):
        """``(action, None)`` for a legal move typed as ``text``, else ``(None, message)``."""
        if not text:
            example = self.spec.action_to_str(legal[0], state)
            return None, f"type a move: its number (1-{len(legal)}) or its name, e.g. '{example}'"
        if text.isdigit():
            k = int(text)
            if 1 <= k <= len(legal):
                return legal[k - 1], None
            return None, f"there is no move {k}: choose a number from 1 to {len(legal)}"
        try:
            action = self.spec.str_to_action(text)
        except ValueError as err:
            return None, f"{err}; or type a move's number from 1 to {len(legal)}"
        if action in legal:
            return action, None
        code = int(self.spec.illegal_reason(state, action))
        why = self.spec.reasons.get(code, "it is not among the legal moves")
        return None, f"'{self.spec.action_to_str(action, state)}' is not legal now: {why}"

    def explain(self, command: str, topic: str, names: list) -> str:
        """The answer to ``help``, ``help TOPIC`` or ``legend``."""
        if command in LEGEND_WORDS:
            return self.spec.legend or "this game's board has no symbols beyond its own words"
        if topic:
            if self.spec.card_text is None:
                return f"{self.spec.title} has no cards with texts; 'help' alone explains the commands"
            try:
                return self.spec.card_text(topic)
            except ValueError as err:
                return str(err)
        card_help = (
            "\n  help CARD   a card's name, numbers and ability (e.g. 'help SA3')"
            if self.spec.card_text is not None
            else ""
        )
        return (
            f"How to move: type a move's number from the list (1-{len(names)}) or its name, "
            f"e.g. '{names[0]}'.\n"
            f"Commands:\n"
            f"  board       show the board and your legal moves again\n"
            f"  legend      what the board's symbols mean{card_help}\n"
            f"  quit        leave the game (Ctrl-D and Ctrl-C do too)\n"
            f"The rules, in full: {game_dir(self.spec.name) / 'rules.md'}"
        )

    def show(self, state: np.ndarray, names: list, words: Sequence[str | None] = ()) -> None:
        """Print the public board, the seat's own view and the numbered legal moves (with the game's
        ``words`` for each, where its names use codes)."""
        seat = int(state[H_CURRENT])
        self._say(f"\n=== your turn: player_{seat} ===")
        self._say(self.spec.to_text(state))
        if self.spec.private_text is not None:
            self._say(self.spec.private_text(state, seat))
        self._say("legal moves:")
        if any(words):  # names in codes: one move a line, with the game's words for it
            self._say(
                "\n".join(f"{k:>3}. {name} ({said})" for k, (name, said) in enumerate(zip(names, words), 1))
            )
        else:
            self._say(numbered_columns(names))

    def _say(self, text: str, end: str = "\n") -> None:
        """Write to the output stream now (a prompt must show before input is read)."""
        self.output.write(text + end)
        self.output.flush()


def numbered_columns(names: list, width: int = LINE_WIDTH) -> str:
    """``names`` numbered from 1 and laid out in as many columns as fit in ``width``."""
    items = [f"{k:>3}. {name}" for k, name in enumerate(names, 1)]
    cell = max(len(item) for item in items) + 2
    per_line = max(1, width // cell)
    return "\n".join(
        "".join(f"{item:<{cell}}" for item in items[i : i + per_line]).rstrip()
        for i in range(0, len(items), per_line)
    )
