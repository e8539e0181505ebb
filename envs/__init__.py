"""monster-zoo environments: PettingZoo AEC games over numba kernels.

>>> import monster_zoo
>>> env = monster_zoo.make("marry_the_monster-v0", num_players=3)

The front door (also at ``monster_zoo.<name>``): ``make`` (the AEC env), ``make_batch`` (the
batched engine), ``make_vec_env`` (the SB3 self-play vector env), ``make_learner_env`` (a
gymnasium env, also ``gymnasium.make("monster_zoo/<game>-learner-v0")``), ``make_vector_env`` (a
gymnasium ``VectorEnv`` of many learner games on the CPU or the GPU, also ``gymnasium.make_vec``),
``make_torchrl_env`` (a TorchRL env of many games, learner or self-play form; the ``torchrl`` extra),
``available``,
``spec``, ``config`` and ``register``; each game's module (``monster_zoo.envs.<game>_v0``) is its
documentation page.

Opponents of the learner envs: ``make_learner_env`` and ``make_vec_env`` give the learner one
seat, drawn at random in every game, and play every other seat with the ``opponents`` passed
(objects with ``act_batch``, e.g. ``monster_zoo.agents.make_agent("greedy", game_id)``, drawn
per game by ``weights``). When none are given, as through ``gymnasium.make``, every other seat
plays uniformly random legal actions (``envs.core.opponents.RandomOpponent``, stepped inside
numba with a generator per game slot derived from the env's seed, so a seeded reset replays the
same game).
"""

from .registry import (
    available,
    config,
    make,
    make_batch,
    make_learner_env,
    make_torchrl_env,
    make_vec_env,
    make_vector_env,
    register,
    spec,
)

__all__ = [
    "available",
    "config",
    "make",
    "make_batch",
    "make_learner_env",
    "make_torchrl_env",
    "make_vec_env",
    "make_vector_env",
    "register",
    "spec",
]
