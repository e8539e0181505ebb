"""What a search needs to keep its seat's belief: the option, the belief made afresh each game, the
match runner's ``watch`` hook and the particles to deal simulations from."""

import numpy as np

from monster_zoo.agents.belief.opponent import opponent_model
from monster_zoo.agents.belief.settings import BeliefSettings, belief_settings
from monster_zoo.agents.belief.tracker import Belief
from monster_zoo.agents.network import AZNetwork


class Believing:
    """Mixin of a search agent (before :class:`~monster_zoo.agents.base.Agent` among its bases) that
    may deal its simulations from its seat's belief. The agent calls :meth:`keep_belief` in its
    constructor before ``Agent.__init__``; ``belief`` then holds the current game's belief (None
    without one)."""

    belief_settings: BeliefSettings | None = None
    belief: Belief | None = None

    def keep_belief(self, option, game_id: str, determinize: bool, network: AZNetwork | None = None) -> None:
        """Take the ``belief`` option (see :func:`~monster_zoo.agents.belief.settings.belief_settings`):
        kept where the search redeals (``determinize``) a game that hides information; ``network``
        is the searching agent's own, the opponent model's where the settings ask for a network."""
        chosen = belief_settings(option)
        hides = determinize and getattr(self.spec, "hides_information", True)
        self.belief_settings = chosen if hides else None
        self.opponent_model = (
            None if chosen is None or not hides else opponent_model(game_id, chosen, network)
        )

    def reset(self, seed: int) -> None:
        """Reseed the agent and forget the last game's belief."""
        super().reset(seed)
        if self.belief_settings is not None:
            self.belief = Belief(self.spec, self.belief_settings, self.opponent_model, self.rng)

    def watch(self, seat: int, state: np.ndarray, mover: int = -1, action: int = -1) -> None:
        """What this agent's ``seat`` saw: the deal (``mover`` -1) or ``mover``'s ``action``, after
        which the game is ``state`` (read only through the seat's view: a redeal for ``seat``)."""
        if self.belief is None:
            return
        if mover < 0:
            self.belief.start(seat, state)
        else:
            self.belief.heard(mover, action, state)

    def belief_particles(self, root: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(particles, cumulative weights)`` of the belief brought up to ``root``, the game as the
        seat on move sees it; none (uniform redeals) without a belief."""
        if self.belief is None:
            return np.empty((0, root.shape[0]), np.int32), np.empty(0, np.float64)
        self.belief.catch_up(root)
        return self.belief.particles, self.belief.cumulative()
