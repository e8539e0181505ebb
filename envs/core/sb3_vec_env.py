"""Stable-Baselines3 ``VecEnv`` over :class:`~monster_zoo.envs.core.selfplay.LearnerGames`.

``sb3_contrib.MaskablePPO`` trains on it directly: it answers ``action_masks()``
(through ``env_method`` as SB3 asks a VecEnv), follows SB3's auto-reset
convention (``infos[i]["terminal_observation"]``, ``"TimeLimit.truncated"``) and
returns flat ``float32`` observations from the learner's seat. Needs the
``train`` extra (stable-baselines3); nothing else in ``envs`` imports it.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from .inputs import check_num_envs, check_reset_options, check_seed
from .selfplay import LearnerGames


class SelfPlayVecEnv(VecEnv):
    """``num_envs`` games, each seen from a random learner seat, opponents embedded.

    ``infos[i]`` always carries ``learner_seat``; in the step a game ends it also
    carries ``terminal_observation``, ``TimeLimit.truncated``, ``returns`` (every
    seat's final reward) and ``opponent`` (the opponent's name), and ``illegal_move``
    when ``illegal_action="penalize"`` ended it (``learner_seat`` describes the next
    game, whose first observation is returned). ``infos`` never hold a game's seed, from
    which its hidden deal could be rebuilt: replays read :meth:`game_seeds` and
    :meth:`finished_game_seeds` in the user's own code.

    Inputs: ``num_envs`` and seeds as in :mod:`monster_zoo.envs.core.inputs` (a
    non-negative integer seed, reduced modulo 2**63; no reset options); actions as
    ``num_envs`` integer action indices (:mod:`monster_zoo.envs.core.illegal`). Anything
    else is refused with a ValueError naming the slot, the learner's seat, the action and
    the reason, and changes nothing.
    """

    def __init__(
        self,
        spec,
        config: np.ndarray,
        num_envs: int,
        opponents: Sequence,
        weights: Sequence[float] | None = None,
        seed: int = 0,
        illegal_action: str = "raise",
    ):
        num_envs = check_num_envs(num_envs, spec.env_id)
        self.games = LearnerGames(
            spec, config, num_envs, opponents, weights, seed, illegal_action=illegal_action
        )
        self.game_spec = spec
        self.render_mode = None
        observation_space = spaces.Box(0.0, 1.0, (spec.obs_size,), np.float32)
        super().__init__(num_envs, observation_space, spaces.Discrete(spec.num_actions))
        self._actions = None

    # --- the VecEnv protocol ----------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Start every game (reseeding first if :meth:`seed` was called)."""
        for options in self._options:
            check_reset_options(options or None, f"{self.game_spec.env_id} vec env reset()")
        seeds = [s for s in self._seeds if s is not None]
        if seeds:
            self.games.seed(seeds[0])
        self._reset_seeds()
        obs, _ = self.games.reset()
        self.reset_infos = [self._info(i) for i in range(self.num_envs)]
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Remember the learner's actions for :meth:`step_wait`."""
        self._actions = actions

    def step_wait(self):
        """Apply the learner's actions; opponents answer; finished games restart."""
        obs, _, rewards, terminated, truncated = self.games.step(self._actions)
        done = terminated | truncated
        infos = [self._info(i) for i in range(self.num_envs)]
        g = self.games
        for i in np.flatnonzero(done):
            infos[i].update(
                terminal_observation=g.final_observations[i].copy(),
                returns=g.final_returns[i].copy(),
                opponent=getattr(g.slot_opponents[i], "name", repr(g.slot_opponents[i])),
            )
            infos[i]["TimeLimit.truncated"] = bool(truncated[i])
            if g.illegal[i]:
                infos[i]["illegal_move"] = True
        return obs.copy(), rewards.copy(), done.copy(), infos

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner in every slot, ``bool[num_envs, num_actions]``."""
        return self.games.masks.astype(bool)

    def set_opponents(self, opponents: Sequence, weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (games in progress finish with their opponent); an opponent
        made for another game, player count or rule options is refused, changing nothing."""
        self.games.set_opponents(opponents, weights)

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seed the next :meth:`reset`: game ``k`` of slot ``i`` gets ``seed + i + k * num_envs``
        (modulo 2**63); ``seed`` is None (fresh entropy) or a non-negative integer."""
        return super().seed(check_seed(seed, f"{self.game_spec.env_id} vec env seed()"))

    def set_options(self, options=None) -> None:
        """Refuse reset options: none exist (see :mod:`monster_zoo.envs.core.inputs`)."""
        for each in options if isinstance(options, (list, tuple)) else [options]:
            check_reset_options(each or None, f"{self.game_spec.env_id} vec env set_options()")
        super().set_options(options)

    def game_seeds(self) -> np.ndarray:
        """Each slot's current game seed (the game of the observation last returned for it):
        ``aec_env.reset(seed=...)`` replays it. Not in ``infos``: the seed reveals the hidden deal."""
        return self.games.game_seeds.copy()

    def finished_game_seeds(self) -> np.ndarray:
        """The seeds of the games that ended in the last step (meaningful where ``dones[i]``),
        whose final view is ``infos[i]["terminal_observation"]``."""
        return self.games.final_game_seeds.copy()

    def close(self) -> None:
        """Nothing to release."""

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        """The attribute of this (shared) env, once per requested slot."""
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        """Set an attribute of the shared env."""
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        """``action_masks`` answers per slot; other methods are called once and repeated."""
        slots = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in slots]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in slots]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        """No gymnasium wrappers sit under this env."""
        return [False for _ in self._get_indices(indices)]

    def _info(self, i: int) -> dict:
        g = self.games
        return {"learner_seat": int(g.learner_seats[i])}
