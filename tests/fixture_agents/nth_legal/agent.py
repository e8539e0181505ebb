"""The nth-legal agent: the legal action ``skip`` places after the first, round the list."""

import numpy as np

from monster_zoo.agents.base import Agent


class NthLegalAgent(Agent):
    """Plays the ``skip``-th legal action (modulo their number): deterministic, any game."""

    name = "nth-legal"

    def __init__(self, seed: int = 0, skip: int = 0):
        super().__init__(seed)
        self.skip = skip

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None) -> int:
        """The chosen legal action; ValueError if the mask allows none."""
        self.check_view(observation, action_mask, state)
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("the action mask allows no action: this agent is not on move")
        return int(legal[self.skip % legal.size])
