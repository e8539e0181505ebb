"""Registry of baseline agents by name, in RLCard's manner.

Each game's baselines answer to a short name (``"random"``, ``"greedy"``) and to
a versioned one, ``<game>-<kind>-v<version>`` (``"marry_the_monster-greedy-v1"``).
A versioned name always means the same behaviour: change a baseline's play and
its version goes up, so results quoted against a name stay comparable.

A trained MaskablePPO policy answers to ``ppo:<path of its .zip>`` (needs the
``train`` extra).
"""
import importlib
import inspect
from typing import Dict, List, Tuple

from monster_zoo import envs

from .base import Agent

# kind -> (version, module, class) for agents that play any game
_GENERIC: Dict[str, Tuple[int, str, str]] = {
    "random": (1, "monster_zoo.agents.random_agent", "RandomAgent"),
    "mcts": (1, "monster_zoo.agents.mcts", "MCTSAgent"),
}
# game name -> kind -> (version, module, class) for agents written for one game
_PER_GAME: Dict[str, Dict[str, Tuple[int, str, str]]] = {
    "marry_the_monster": {
        "greedy": (1, "monster_zoo.agents.marry_the_monster_greedy", "MarryTheMonsterGreedy"),
    },
    "mighty_monsters": {
        "greedy": (1, "monster_zoo.agents.mighty_monsters_greedy", "MightyMonstersGreedy"),
    },
    "monster_arena": {
        "greedy": (1, "monster_zoo.agents.monster_arena_greedy", "MonsterArenaGreedy"),
    },
    "monster_factory": {
        "greedy": (1, "monster_zoo.agents.monster_factory_greedy", "MonsterFactoryGreedy"),
    },
    "monstargh": {
        "greedy": (1, "monster_zoo.agents.monstargh_greedy", "MonstarghGreedy"),
    },
}
PPO_PREFIX = "ppo:"


def _game_name(game_id: str) -> str:
    """The game's name (``marry_the_monster``) for a registry id; ValueError if unknown."""
    return envs.spec(game_id).name


def _baselines(game_id: str) -> Dict[str, Tuple[int, str, str]]:
    """Every kind of agent available for ``game_id``."""
    return {**_GENERIC, **_PER_GAME.get(_game_name(game_id), {})}


def available_agents(game_id: str) -> List[str]:
    """Names ``make_agent`` accepts for ``game_id``: short kinds, then versioned names."""
    game = _game_name(game_id)
    kinds = _baselines(game_id)
    return sorted(kinds) + sorted(f"{game}-{kind}-v{v}" for kind, (v, _, _) in kinds.items())


def make_agent(name: str, game_id: str, seed: int = 0) -> Agent:
    """A new agent ``name`` for ``game_id``, seeded with ``seed``.

    Raises ValueError listing the valid names for an unknown agent, and the
    registered games for an unknown game.
    """
    game = _game_name(game_id)
    if name.startswith(PPO_PREFIX):
        from .ppo_agent import PPOAgent  # torch is an extra: import only when asked for
        return PPOAgent.load(name[len(PPO_PREFIX):], game_id, seed)
    kinds = _baselines(game_id)
    kind = name
    if name not in kinds:
        kind = next((k for k, (v, _, _) in kinds.items() if name == f"{game}-{k}-v{v}"), None)
        if kind is None:
            raise ValueError(f"unknown agent {name!r} for {game_id}; valid names: "
                             f"{', '.join(available_agents(game_id))} or {PPO_PREFIX}<model.zip>")
    _, module, class_name = kinds[kind]
    cls = getattr(importlib.import_module(module), class_name)
    # Generic agents that work through the game's kernels (MCTS) are told the game.
    if "game_id" in inspect.signature(cls).parameters:
        return cls(seed, game_id=game_id)
    return cls(seed)
