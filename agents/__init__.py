"""Agents for monster-zoo games and the match runner that pits them against each other.

>>> from monster_zoo.agents import make_agent
>>> agent = make_agent("greedy", "marry_the_monster-v0", seed=0)

The agents' numba kernels inline the engines' kernels and read their tables, so
their on-disk cache is cleared whenever those sources change (numba itself
only watches the file a kernel is defined in).
"""
from pathlib import Path

from monster_zoo import envs
from monster_zoo.envs.core.cache import clear_stale_cache, core_kernel_sources, kernel_sources
from monster_zoo.seeds import SEEDS_DIR

_HERE = Path(__file__).resolve().parent
_ENVS = Path(envs.__file__).resolve().parent
_GAMES = [p for p in _ENVS.iterdir() if p.is_dir() and p.name not in ("core", "__pycache__")]
clear_stale_cache(_HERE, [*kernel_sources(_HERE), *core_kernel_sources(), *_GAMES, SEEDS_DIR])

from .base import Agent  # noqa: E402  (the cache must be checked before kernels load)
from .registry import available_agents, make_agent  # noqa: E402

__all__ = ["Agent", "available_agents", "make_agent"]
