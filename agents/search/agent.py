"""Monte-Carlo tree search over engine states for any registered game (``"mcts"``).

Information-set UCT with max^n backups and random rollouts (see
``monster_zoo.agents.search.tree`` for the search and ``monster_zoo.agents.search.evaluator`` for the rollouts).
The agent reads the live engine state under the state contract of
:mod:`monster_zoo.agents.base`: it copies the state and, because every simulation redeals what
the seat on move cannot see with the game's ``determinize``, its choices do not
depend on other players' hands or the deck's composition.

The game is named by ``game_id`` or, when the registry builds the agent from a seed
alone, recognised at the first move from the sizes of the state and the action mask.

With ``belief`` the simulations start from the seat's belief (:mod:`monster_zoo.agents.belief`)
instead of uniform redeals: particles drawn by their weights, kept from what the seat saw of the
game. The game's loop tells the agent what it saw through :meth:`MCTSAgent.watch` (the match runner
does); a loop that does not gets uniform redeals.
"""

from collections.abc import Callable

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.base import Agent, state_needed
from monster_zoo.agents.belief.believing import Believing
from monster_zoo.agents.belief.settings import BeliefSettings
from monster_zoo.agents.game_rules import GameRules
from monster_zoo.agents.search.evaluator import uniform_policy
from monster_zoo.agents.search.tree import SearchTree, belief_search, no_determinize
from monster_zoo.envs.core.contract import H_NUM_PLAYERS
from monster_zoo.envs.core.rng import rng_below

DEFAULT_SIMULATIONS = 10000
DEFAULT_EXPLORATION = 1.0


class MCTSAgent(Believing, Agent):
    """Information-set MCTS: ``simulations`` rollouts per move, UCB1 with constant ``exploration``.

    ``determinize=False`` searches the state as given (perfect information; for tests
    or games that hide nothing). ``rollout_policy`` is a numba function with
    ``monster_zoo.envs.core.contract.POLICY_SIG`` playing every seat in rollouts (default: uniform).
    ``belief`` (True, a dict of :class:`~monster_zoo.agents.belief.settings.BeliefSettings`' fields or
    settings; default None) starts the simulations from the seat's belief in a game that hides
    information. After each move ``tree`` holds the last search (``tree.root_visits()``) and
    ``belief`` the seat's belief (None without one).
    """

    name = "mcts"
    needs_state = True

    def __init__(
        self,
        seed: int = 0,
        simulations: int = DEFAULT_SIMULATIONS,
        exploration: float = DEFAULT_EXPLORATION,
        game_id: str | None = None,
        determinize: bool = True,
        rollout_policy: Callable = uniform_policy,
        belief: BeliefSettings | dict | bool | None = None,
    ):
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        self.simulations = int(simulations)
        self.exploration = float(exploration)
        self.determinize = bool(determinize)
        self.rollout_policy = rollout_policy
        if game_id is None:
            raise ValueError("a search plays one game with that game's kernels: pass game_id")
        self.spec = envs.spec(game_id)
        self.made_for = GameRules.any_rules(game_id)  # it refuses any other game's states
        self.tree: SearchTree | None = None
        self.keep_belief(belief, game_id, self.determinize)
        super().__init__(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None) -> int:
        """The most visited root action after the search (ties broken with the agent's generator)."""
        if state is None:
            raise state_needed("the MCTS agent")
        self.check_view(observation, action_mask, state)
        mask = np.asarray(action_mask)
        if not mask.any():
            raise ValueError("the action mask allows no action: this agent is not on move")
        root = np.array(state, dtype=np.int32)  # a copy: the live state is never touched
        visits = self.run_search(root)
        best = np.flatnonzero((visits == visits.max()) & (mask != 0))
        return int(best[rng_below(self.rng, len(best))])

    def run_search(self, root: np.ndarray) -> np.ndarray:
        """Search from ``root`` (left unmodified); return the root visit counts."""
        s = self.spec
        tree = self._tree(s.num_actions, int(root[H_NUM_PLAYERS]))
        hidden = self.determinize and s.determinize is not None
        particles, cumulative = self.belief_particles(root)
        tree.size = belief_search(
            root,
            self.simulations,
            self.exploration,
            hidden,
            self.rng,
            tree.children,
            tree.visits,
            tree.available,
            tree.values,
            s.legal_mask,
            s.apply_action,
            s.returns,
            s.determinize if hidden else no_determinize,
            self.rollout_policy,
            particles,
            cumulative,
        )
        return tree.root_visits()

    def _tree(self, num_actions: int, num_players: int) -> SearchTree:
        """The agent's tree arrays, reallocated only when a search would not fit."""
        capacity = self.simulations + 1
        if self.tree is None or not self.tree.fits(capacity, num_actions, num_players):
            self.tree = SearchTree(capacity, num_actions, num_players)
        return self.tree

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(seed={self.seed}, simulations={self.simulations}, "
            f"exploration={self.exploration}, determinize={self.determinize}, "
            f"belief={self.belief_settings})"
        )
