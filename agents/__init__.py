"""Agents for monster-zoo games and the match runner that pits them against each other.

>>> from monster_zoo.agents import make_agent
>>> agent = make_agent("greedy", "marry_the_monster-v0", seed=0)

An agent knows the game it was made for and refuses another with a :class:`WrongGameError`
naming both (``agents/README.md``).

Each kind of agent is a package of its own (``random/``, ``greedy/``, ``search/``, ``ppo/``,
``az/``, ``human/``) whose ``kind.py`` describes it; the registry finds them by their folders.
The kinds whose numba kernels inline the engines' (``search``, ``az``) guard their cache in
their package's ``__init__``.
"""

from monster_zoo.agents.base import Agent
from monster_zoo.agents.game_rules import WrongGameError
from monster_zoo.agents.registry import available_agents, make_agent

__all__ = ["Agent", "WrongGameError", "available_agents", "make_agent"]
