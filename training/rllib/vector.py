"""RLlib's PPO sampling many games per env runner through the batched engine.

    from monster_zoo.training.rllib.vector import vector_ppo_config
    algo = vector_ppo_config("marry_the_monster-v0", {"num_players": 2}, num_envs=256).build_algo()
    algo.train()

RLlib 2.60's single-agent env runner vectorises with gymnasium (``gym.make_vec``) and, with
``gym_env_vectorize_mode="vector_entry_point"``, takes a ``gymnasium.vector.VectorEnv`` that its env
creator builds whole: here :func:`monster_zoo.make_vector_env`, ``num_envs_per_env_runner`` learner
games stepped by one call of the engine. One seat of every game learns (the module); the other seats
are played inside the env by ``opponent`` (``"random"`` or ``"greedy"``, built on each runner). The
env runs in gymnasium's ``"NextStep"`` autoreset, the one RLlib's runner follows (the step after an
episode's end is its reset), and its observations carry RLlib's keys ``{"observations",
"action_mask"}`` for :class:`~monster_zoo.training.rllib.masking.MaskedPPOTorchRLModule` (a finished
game's all-zero mask stays finite there).

Against :func:`~monster_zoo.training.rllib.ppo.ppo_config` (every seat played by the module through
the multi-agent :class:`~monster_zoo.envs.rllib_env.RLlibGameEnv`, one game per env through Python)
this is single-agent: the learner plays opponents, not itself. Needs the ``distributed`` extra.
"""

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import monster_zoo
from monster_zoo.training.rllib.masking import ACTION_MASK, OBSERVATIONS, masked_module_spec
from monster_zoo.training.rllib.ppo import training_arguments

ENV_NAME = "monster_zoo_vector_learner"
OPPONENTS = ("random", "greedy")


class RLlibKeys(gym.vector.VectorObservationWrapper):
    """The vector env's ``{"observation", "action_mask"}`` as RLlib's masking module reads it:
    ``{"observations", "action_mask"}``, the mask as floats."""

    def __init__(self, env):
        super().__init__(env)
        inner = env.single_observation_space
        mask = spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32)
        self.single_observation_space = spaces.Dict({OBSERVATIONS: inner["observation"], ACTION_MASK: mask})
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, env.num_envs)

    def observations(self, observations):
        """Rename the keys; the mask becomes float32."""
        return {
            OBSERVATIONS: observations["observation"],
            ACTION_MASK: observations["action_mask"].astype(np.float32),
        }


def make_rllib_vector_env(config: dict) -> RLlibKeys:
    """RLlib's env creator: ``config`` holds ``game``, ``num_envs`` (RLlib adds it), ``opponent`` and
    the game's options."""
    from monster_zoo.agents import make_agent

    config = dict(config)
    game_id, num_envs = config.pop("game"), config.pop("num_envs", 1)
    opponent = config.pop("opponent", "random")
    opponents = None if opponent == "random" else [make_agent(opponent, game_id, 0, config)]
    env = monster_zoo.make_vector_env(
        game_id, num_envs, opponents=opponents, observation="dict", autoreset_mode="NextStep", **config
    )
    return RLlibKeys(env)


def vector_ppo_config(
    game_id: str,
    options: dict[str, Any] | None = None,
    num_envs: int = 64,
    opponent: str = "random",
    model_config: dict[str, Any] | None = None,
    **training,
):
    """A ``PPOConfig`` whose env runners each sample ``num_envs`` learner games of ``game_id`` through
    the batched engine (see the module docstring); ``model_config`` and ``training`` as in
    :func:`~monster_zoo.training.rllib.ppo.ppo_config`. Bad games, options, counts or opponents are
    refused with the valid values before Ray starts."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env

    if opponent not in OPPONENTS:
        raise ValueError(f"vector_ppo_config: opponent={opponent!r} is not valid; valid values: {OPPONENTS}")
    unknown = sorted(set(training) - training_arguments())
    if unknown:
        raise ValueError(
            f"vector_ppo_config: PPOConfig.training takes no argument {', '.join(unknown)}; it takes "
            f"{', '.join(sorted(training_arguments()))}"
        )
    env_config = {"game": game_id, "opponent": opponent, **(options or {})}
    make_rllib_vector_env({**env_config, "num_envs": num_envs}).close()  # refuses bad input at once
    register_env(ENV_NAME, make_rllib_vector_env)
    config = (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config)
        .env_runners(num_envs_per_env_runner=num_envs, gym_env_vectorize_mode="vector_entry_point")
        .rl_module(rl_module_spec=masked_module_spec(model_config))
    )
    return config.training(**training) if training else config
