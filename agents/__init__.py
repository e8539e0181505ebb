"""Agents for monster-zoo games and the match runner that pits them against each other.

>>> from monster_zoo.agents import make_agent
>>> agent = make_agent("greedy", "marry_the_monster-v0", seed=0)

An agent knows the game it was made for and refuses another with a :class:`WrongGameError`
naming both (``agents/README.md``).

Each kind of agent is a package of its own (``random/``, ``greedy/``, ``search/``, ``ppo/``,
``az/``, ``human/``) whose ``kind.py`` describes it; the registry finds them by their folders.
The kinds whose numba kernels inline the engines' (``search``, ``az``) guard their cache in
their package's ``__init__``; so does this folder, whose ``network.py`` holds the policy
network's kernels that the learned search and the beliefs read.
"""

from pathlib import Path

from monster_zoo.envs.core.cache import guard_package

guard_package(Path(__file__).resolve().parent)

from monster_zoo.agents.base import Agent  # noqa: E402  (after the guard, before any kernel loads)
from monster_zoo.agents.game_rules import WrongGameError  # noqa: E402
from monster_zoo.agents.registry import available_agents, make_agent  # noqa: E402

__all__ = ["Agent", "WrongGameError", "available_agents", "make_agent"]
