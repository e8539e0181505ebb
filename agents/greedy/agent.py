"""Every game's greedy baseline (``greedy`` / ``<game>-greedy-v<version>``): one agent class that plays the
game's greedy kernel.

The kernel lives with its game (``envs/<game>/greedy.py``, named by the ``baselines`` of the game's
declaration) as a numba ``greedy_action(state, mask, rng)`` (``contract.POLICY_SIG``), so the
training vec env can play it inside numba; this class runs it on the live state under the state
contract of :mod:`monster_zoo.agents.base`.
"""

import importlib

from monster_zoo.agents.base import StateKernelAgent
from monster_zoo.envs.registry import declaration


def greedy_kernel(game_id: str):
    """The numba greedy kernel of ``game_id`` (ValueError when its declaration names none)."""
    game = declaration(game_id)
    baseline = game.baselines.get("greedy") if game is not None else None
    if baseline is None:
        raise ValueError(f"{game_id} declares no greedy baseline (the baselines= of its Game declaration)")
    return importlib.import_module(baseline.module).greedy_action


class GreedyAgent(StateKernelAgent):
    """A game's greedy baseline: its kernel's choice on the engine state (what the seat on move may
    know only: the public state and its own hand)."""

    name = "greedy"

    def __init__(self, seed: int = 0, game_id: str | None = None):
        if game_id is None:
            raise ValueError("a greedy baseline plays one game's kernel: pass game_id")
        self.policy_kernel = greedy_kernel(game_id)  # the training vec env runs it inside numba
        super().__init__(seed)
