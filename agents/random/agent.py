"""The uniform random baseline: any game, any seat."""

import numpy as np

from monster_zoo.agents.base import Agent
from monster_zoo.envs.core.opponents import random_policy
from monster_zoo.envs.core.rng import rng_pick_set


class RandomAgent(Agent):
    """Picks uniformly among the legal actions with its own seeded generator."""

    name = "random"
    policy_kernel = staticmethod(random_policy)  # lets the training vec env run it inside numba

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None) -> int:
        """A uniformly random legal action; ValueError if the mask allows none."""
        self.check_view(observation, action_mask, state)
        # rng_pick_set is compiled for int8 masks, the dtype every env hands out.
        action = rng_pick_set(np.ascontiguousarray(action_mask, dtype=np.int8), self.rng)
        if action < 0:
            raise ValueError("the action mask allows no action: this agent is not on move")
        return int(action)
