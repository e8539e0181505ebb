"""A plain gymnasium single-agent env: one game seen from the learner's seat.

For users of libraries other than SB3 (or of SB3 without vectorisation): the
other seats are played by embedded opponents, exactly as in
:class:`~monster_zoo.envs.core.sb3_vec_env.SelfPlayVecEnv` (both run on
:class:`~monster_zoo.envs.core.selfplay.LearnerGames`). The legal actions are in
``info["action_mask"]`` and from :meth:`LearnerEnv.action_masks` (the method
``sb3_contrib``'s ``ActionMasker`` and ``MaskablePPO`` look for).

``illegal_action="raise"`` (the default) refuses an action the learner may not
take with a ValueError naming the learner's seat, the action and the reason;
``"penalize"`` makes the learner lose that game instead (reward -1,
``terminated``, ``info["illegal_move"]``), which is what checkers that step
unmasked random actions (gymnasium's and SB3's ``check_env``) need.
Registered with gymnasium as ``monster_zoo/<game>-learner-v0`` (see
:mod:`monster_zoo.envs.registry`).

Inputs: an action is one integer action index (see :mod:`monster_zoo.envs.core.illegal`);
``reset(seed=...)`` takes None or a non-negative integer (reduced modulo 2**63) and no
``options`` (see :mod:`monster_zoo.envs.core.inputs`); anything else is refused with a
ValueError and changes nothing.

``info`` holds only what the learner's seat may know: ``action_mask``, ``learner_seat``
and, when a game ends, ``returns`` (and ``illegal_move``). The game's seed, from which
the hidden deal could be rebuilt, is never in ``info``: the user's own code reads it from
:meth:`LearnerEnv.game_seed` to replay a game in the AEC env.
"""

from collections.abc import Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .inputs import check_reset_options, check_seed
from .rng import entropy_seed
from .selfplay import LearnerGames


class LearnerEnv(gym.Env):
    """One game from a random learner seat against opponents drawn from a pool."""

    # render_fps: gymnasium's checker asks for it; "human" prints one board per step
    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        spec,
        config: np.ndarray,
        opponents: Sequence,
        weights: Sequence[float] | None = None,
        render_mode: str | None = None,
        illegal_action: str = "raise",
    ):
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of None, 'ansi', 'human'; got {render_mode!r}")
        self.game_spec = spec
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (spec.obs_size,), np.float32)
        self.action_space = spaces.Discrete(spec.num_actions)
        self.games = LearnerGames(
            spec, config, 1, opponents, weights, seed=entropy_seed(), illegal_action=illegal_action
        )
        self._started = False
        self._fresh = False  # the current game has not seen a learner action yet
        self._seed_of_last_view: int | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a game; with ``seed`` the game and the learner's seat are reproducible.

        Without a seed the next game of the current seed sequence is played (a game in
        progress is abandoned).
        """
        where = f"{self.game_spec.env_id} learner env reset()"
        seed = check_seed(seed, where)
        check_reset_options(options, where)
        super().reset(seed=seed)
        if seed is not None:
            self.games.seed(seed)
            self._started = False
        if not self._started:
            self.games.reset()
            self._started = True
        elif not self._fresh:
            self.games.restart([0])
        self._fresh = True
        self._seed_of_last_view = int(self.games.game_seeds[0])
        return self.games.observations[0].copy(), self._info()

    def step(self, action):
        """Apply the learner's action; the opponents answer before this returns."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        g = self.games
        g.step([action])  # one action, checked like the AEC env checks it
        terminated, truncated = bool(g.terminated[0]), bool(g.truncated[0])
        # a finished game's slot already holds the next game, which reset() then hands out
        self._fresh = terminated or truncated
        info = self._info()
        if terminated or truncated:
            obs = g.final_observations[0].copy()
            info.update(
                returns=g.final_returns[0].copy(),
                action_mask=np.zeros_like(g.masks[0]),
                learner_seat=int(g.final_seats[0]),
            )
            if g.illegal[0]:
                info["illegal_move"] = True
            self._seed_of_last_view = int(g.final_game_seeds[0])
        else:
            obs = g.observations[0].copy()
            self._seed_of_last_view = int(g.game_seeds[0])
        if self.render_mode == "human":
            self.render()
        return obs, float(g.rewards[0]), terminated, truncated, info

    def game_seed(self) -> int:
        """The seed of the game the last returned observation belongs to (after a step that
        ended a game, that game's): ``aec_env.reset(seed=env.game_seed())`` replays it with
        the learner in ``info["learner_seat"]``. Kept out of ``info`` because the seed
        reveals the whole hidden deal; only the user's own code should read it."""
        if self._seed_of_last_view is None:
            raise RuntimeError("call reset() before game_seed()")
        return self._seed_of_last_view

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (``bool[num_actions]``)."""
        return self.games.masks[0].astype(bool)

    def set_opponents(self, opponents: Sequence, weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (from the next game on); an opponent made for another game,
        player count or rule options is refused, changing nothing."""
        self.games.set_opponents(opponents, weights)

    def render(self):
        """The public table as text ('ansi' returns it, 'human' prints it)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'.")
            return None
        text = self.game_spec.to_text(self.games.states[0])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _info(self) -> dict:
        g = self.games
        return {"action_mask": g.masks[0].copy(), "learner_seat": int(g.learner_seats[0])}
