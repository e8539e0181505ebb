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

from monster_zoo.envs.core.rng import make_rng


class Agent:
    """Base class of agents: ``act`` picks a legal action, ``reset`` reseeds.

    Subclasses implement :meth:`act` and set ``name``; ``needs_state = True``
    asks the match runner for the engine state (see the module's contract).
    """

    name = "agent"
    needs_state = False
    # A numba policy with ``monster_zoo.envs.core.contract.POLICY_SIG`` (state, mask, rng) ->
    # action, when the agent has one: the training vec env then plays this agent
    # inside numba, with ``self.rng`` as its generator, instead of calling ``act``.
    policy_kernel = None

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

    def act_batch(self, observations: np.ndarray, masks: np.ndarray,
                  states: Optional[np.ndarray] = None) -> np.ndarray:
        """One action per row; agents that batch (neural policies) override this."""
        rows = range(len(masks))
        return np.array([self.act(observations[i], masks[i], None if states is None else states[i])
                         for i in rows], dtype=np.int64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class StateKernelAgent(Agent):
    """An agent whose whole policy is a numba ``policy_kernel`` over the engine state.

    Subclasses set ``name`` and ``policy_kernel`` (a ``POLICY_SIG`` kernel, wrapped in
    ``staticmethod``); ``act`` runs it on the live state under the state contract above, and
    the training vec env runs the same kernel inside numba.
    """

    needs_state = True

    def act(self, observation: np.ndarray, action_mask: np.ndarray,
            state: Optional[np.ndarray] = None) -> int:
        """The kernel's choice among the legal actions of the seat on move."""
        if state is None:
            raise ValueError(f"the {self.name} agent needs the engine state (needs_state = True)")
        mask = np.ascontiguousarray(action_mask, dtype=np.int8)
        if not mask.any():
            raise ValueError("the action mask allows no action: this agent is not on move")
        return int(self.policy_kernel(np.ascontiguousarray(state, dtype=np.int32), mask, self.rng))
