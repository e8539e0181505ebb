"""The agent protocol shared by every baseline, heuristic and learned agent.

An agent sees what a PettingZoo player sees: its observation vector and the
action mask of the agent on move. Heuristics that need the rules' own
bookkeeping may also read the engine state, under a contract:

**The state contract.** An agent with ``needs_state = True`` receives the live
engine state vector of the game (``env.unwrapped.engine_state``). It must

* never modify it (copy it first for any simulation), and
* read only public information plus the hand of the seat on move: the board,
  the fachan, scores, pools, hand sizes, deck size and discard pile, and its own
  cards. Other players' hands and the deck's composition are off limits, so its
  choices must not change when only they change (``tests/test_agents.py``
  checks this by redealing the hidden cards with the game's ``determinize``).

Randomness: every agent owns a generator seeded explicitly at construction and
by ``reset(seed)``; no agent touches global random state, so a match is
reproducible from its seed alone.
"""
from typing import Optional

import numpy as np

from envs.core.rng import make_rng


class Agent:
    """Base class of agents: ``act`` picks a legal action, ``reset`` reseeds.

    Subclasses implement :meth:`act` and set ``name``; ``needs_state = True``
    asks the match runner for the engine state (see the module's contract).
    """

    name = "agent"
    needs_state = False

    def __init__(self, seed: int = 0):
        self.reset(seed)

    def reset(self, seed: int) -> None:
        """Reseed the agent's own generator (``self.rng``, a ``uint64[1]`` usable in numba)."""
        self.seed = int(seed)
        self.rng = make_rng(self.seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray,
            state: Optional[np.ndarray] = None) -> int:
        """Return one action index whose entry in ``action_mask`` is 1."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"
