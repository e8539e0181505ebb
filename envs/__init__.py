"""monster-zoo environments: PettingZoo AEC games over numba kernels.

>>> import monster_zoo
>>> env = monster_zoo.make("marry_the_monster-v0", num_players=3)
"""
from .registry import (available, config, make, make_batch, make_learner_env, make_vec_env, register,
                       spec)

__all__ = ["available", "config", "make", "make_batch", "make_learner_env", "make_vec_env", "register",
           "spec"]
