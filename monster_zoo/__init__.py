"""monster-zoo: monster-themed tabletop games as PettingZoo AEC environments over numba kernels.

Everything installs under this one package; the repository's folders are its sub-packages
(``monster_zoo.envs``, ``monster_zoo.agents``, ``monster_zoo.training``,
``monster_zoo.benchmarks``, ``monster_zoo.seeds``). The front door:

>>> import monster_zoo
>>> env = monster_zoo.make("marry_the_monster-v0", num_players=3)
>>> monster_zoo.available()[:1]
['marry_the_monster-v0']
"""

# The one source of the version: pyproject.toml reads it from here (setuptools' `attr:`).
__version__ = "0.1.0"

from .envs import (
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
    "__version__",
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
