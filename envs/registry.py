"""Registry of games: ``make``, ``make_batch`` and ``available`` by id (``<game>-v<version>``)."""
import importlib
from typing import Dict, List

import numpy as np

# id -> module holding ``SPEC``, ``env`` and ``raw_env``
_GAMES: Dict[str, str] = {}


def register(game_id: str, module: str) -> None:
    """Register ``game_id`` (e.g. ``"marry_the_monster-v0"``) served by ``module``."""
    _GAMES[game_id] = module


def available() -> List[str]:
    """Ids of every registered game."""
    return sorted(_GAMES)


def _module(game_id: str):
    if game_id not in _GAMES:
        raise ValueError(f"unknown game {game_id!r}; available: {', '.join(available())}")
    return importlib.import_module(_GAMES[game_id])


def spec(game_id: str):
    """The :class:`~envs.core.contract.GameSpec` of ``game_id``."""
    return _module(game_id).SPEC


def make(game_id: str, wrapped: bool = True, **options):
    """A PettingZoo AEC env; ``wrapped=False`` gives the raw env without wrappers."""
    module = _module(game_id)
    return module.env(**options) if wrapped else module.raw_env(**options)


def config(game_id: str, options: dict) -> np.ndarray:
    """Validate ``options`` for ``game_id`` and return its kernel config vector."""
    from .core.options import resolve_options

    s = spec(game_id)
    return s.make_config(resolve_options(game_id, s.options, options))


def make_batch(game_id: str, num_envs: int, seed: int = 0, **options):
    """A :class:`~envs.core.batch.BatchEngine` of ``num_envs`` games (slot i seeded ``seed + i``)."""
    from .core.batch import BatchEngine

    for ignored in ("render_mode", "illegal_action"):
        if ignored in options:
            raise TypeError(f"{game_id}: option {ignored!r} applies to the AEC env, not the batched engine")
    return BatchEngine(spec(game_id), config(game_id, options), num_envs, seed)


def single_state_random_steps(game_id: str, num_steps: int, seed: int = 0, **options) -> int:
    """Play one ``game_id`` state through ``num_steps`` random legal actions; return games finished."""
    from .core.batch import random_playout

    return random_playout(spec(game_id), config(game_id, options), num_steps, seed)[2]


register("marry_the_monster-v0", "envs.marry_the_monster_v0")
