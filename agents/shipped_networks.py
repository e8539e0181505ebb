"""Where the networks of learned search (``az``) that ship with the package lie.

A game's shipped network is the file ``<game>-az-v<version>.npz`` in the champions' folder,
listed with its SHA-256 digest in ``champions/manifest.json`` like every shipped file. This
module only names the files and the shipped search's budget, so the registry can tell whether a
game has one without loading the search (:mod:`monster_zoo.agents.az_agent` loads and verifies
them).

The shipped ``az`` searches :func:`play_simulations` simulations per move: per game, the count
that makes a move cost about the CPU time of the game's tuned ``mcts`` move (measured with
``python -m monster_zoo.training.az_strength``, which sizes the search to the opponent's time;
at most 0.1 CPU s on the 2-core development machine), so the two meet at equal budgets.
"""
from pathlib import Path
from typing import Dict

from monster_zoo import envs

CHAMPION_DIR = Path(__file__).with_name("champions")
VERSION = 1  # of the shipped network that the short names az and az-net play
# Simulations per move of each game's shipped az (see the module doc); a game not listed plays
# DEFAULT_PLAY_SIMULATIONS.
PLAY_SIMULATIONS: Dict[str, int] = {}
DEFAULT_PLAY_SIMULATIONS = 200


def shipped_network_path(game_id: str, version: int = VERSION) -> Path:
    """Where the network shipped for ``game_id`` (version ``version``) lies, whether or not it does."""
    return CHAMPION_DIR / f"{envs.spec(game_id).name}-az-v{version}.npz"


def network_ships(game_id: str) -> bool:
    """Whether a network ships for ``game_id`` (its file is in the package)."""
    return shipped_network_path(game_id).is_file()


def play_simulations(game_id: str) -> int:
    """Simulations per move of the ``az`` shipped for ``game_id``."""
    return PLAY_SIMULATIONS.get(envs.spec(game_id).name, DEFAULT_PLAY_SIMULATIONS)
