"""Where the networks of learned search (``az``) that ship with the package lie.

A game's shipped network is the file ``<game>-az-v<version>.npz`` in the champions' folder,
listed with its SHA-256 digest in ``champions/manifest.json`` like every shipped file. This
module only names the files and the shipped search's budget, so the registry can tell whether a
game has one without loading the search (:mod:`monster_zoo.agents.az_agent` loads and verifies
them).

The shipped ``az`` searches as :func:`play_settings` says: per game, the simulations that make a
move cost about the CPU time of the game's tuned ``mcts`` move (sized by
``python -m monster_zoo.training.az_strength``, which sizes the search to the opponent's time;
at most 0.1 CPU s on the 2-core development machine), so the two meet at equal budgets, and the
share of a leaf's value that comes from a rollout (``rollout_weight``, where it measured stronger).
"""
from pathlib import Path

from monster_zoo import envs
from monster_zoo.envs.core.game import DEFAULT_PLAY_SIMULATIONS, PlaySettings  # noqa: F401 (the default, named here too)
from monster_zoo.envs.registry import declaration

from .shipped_files import CHAMPION_DIR

VERSION = 1  # of the shipped network that the short names az and az-net play


def shipped_network_path(game_id: str, version: int = VERSION) -> Path:
    """Where the network shipped for ``game_id`` (version ``version``) lies, whether or not it does."""
    return CHAMPION_DIR / f"{envs.spec(game_id).name}-az-v{version}.npz"


def network_ships(game_id: str) -> bool:
    """Whether a network ships for ``game_id`` (its file is in the package)."""
    return shipped_network_path(game_id).is_file()


def play_settings(game_id: str) -> PlaySettings:
    """How the ``az`` shipped for ``game_id`` searches."""
    game = declaration(game_id)
    return game.az_play if game is not None else PlaySettings()
