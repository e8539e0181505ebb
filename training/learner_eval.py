"""Fast win-rate evaluation of one agent against a fixed opponent, all games at once.

The agent takes seat ``g % num_players`` in game ``g`` (so seats are balanced) and
the opponent plays every other seat; game ``g`` is seeded ``seed + g``, so two
agents evaluated with the same seed meet the same deals. All games run side by
side on the batched kernels and the agent scores every slot in one call, which
is what makes evaluating a neural policy during training cheap. For the full,
paired and rated comparison of a field of agents use :mod:`monster_zoo.evaluation.tournament`.
"""

from dataclasses import dataclass

import numpy as np

from monster_zoo import envs
from monster_zoo.envs.core.selfplay import LearnerGames
from monster_zoo.evaluation.match import DRAW, LOSS, WIN, seat_outcome, wilson_interval


@dataclass
class WinRate:
    """Outcome of an evaluation: counts, the win rate and its 95% Wilson interval."""

    opponent: str
    games: int
    wins: int
    draws: int

    @property
    def rate(self) -> float:
        """Share of games won outright."""
        return self.wins / self.games

    @property
    def interval(self):
        """95% Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.games)

    def __str__(self) -> str:
        lo, hi = self.interval
        return f"{self.rate:.3f} [{lo:.3f}, {hi:.3f}] vs {self.opponent} ({self.games} games)"


def evaluate_against(agent, opponent, game_id: str, games: int, seed: int = 0, **options) -> WinRate:
    """Play ``games`` games of ``agent`` (one seat) against ``opponent`` (the others).

    Outcomes as :func:`monster_zoo.evaluation.match.seat_outcome` counts them: a win is the strictly
    highest return, a draw a shared highest one (a truncated game gives everyone 0).
    """
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    spec = envs.spec(game_id)
    config = envs.config(game_id, options)
    n = int(config[0])
    play = LearnerGames(spec, config, games, [opponent], seed=seed, seats=np.arange(games) % n)
    obs, masks = play.reset()
    result = np.full(games, -2, np.int64)  # -2 running, 1 win, 0 draw, -1 loss
    while (result == -2).any():
        # Slots whose game is decided play on (the engine auto-resets) with their first
        # legal action, so the agent is asked only about the games being counted.
        running = np.flatnonzero(result == -2)
        actions = np.argmax(masks != 0, axis=1).astype(np.int64)
        actions[running] = agent.act_batch(obs[running], masks[running], play.states[running])
        obs, masks, _, terminated, truncated = play.step(actions)
        for i in np.flatnonzero((terminated | truncated) & (result == -2)):
            outcome = seat_outcome(play.final_returns[i].tolist(), int(play.learner_seats[i]))
            result[i] = {WIN: 1, DRAW: 0, LOSS: -1}[outcome]
    return WinRate(
        getattr(opponent, "name", repr(opponent)), games, int((result == 1).sum()), int((result == 0).sum())
    )
