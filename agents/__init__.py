"""Agents for monster-zoo games and the match runner that pits them against each other.

>>> from monster_zoo.agents import make_agent
>>> agent = make_agent("greedy", "marry_the_monster-v0", seed=0)

An agent knows the game it was made for and refuses another with a :class:`WrongGameError`
naming both (``agents/README.md``).

The agents' numba kernels inline the engines' kernels and read their tables, so
their on-disk cache is cleared whenever those sources change (numba itself
only watches the file a kernel is defined in) or a cache file is damaged.
"""
from pathlib import Path

from monster_zoo.envs.core.cache import guard_package
from monster_zoo.seeds import SEEDS_DIR

# The games' kernels come in through the imports the guard follows; their data lives in seeds/.
guard_package(Path(__file__).resolve().parent, SEEDS_DIR)

from .base import Agent  # noqa: E402  (the cache must be checked before kernels load)
from .game_rules import WrongGameError  # noqa: E402
from .registry import available_agents, make_agent  # noqa: E402

__all__ = ["Agent", "WrongGameError", "available_agents", "make_agent"]
