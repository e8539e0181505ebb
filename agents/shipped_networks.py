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
from dataclasses import dataclass
from pathlib import Path
from typing import Dict

from monster_zoo import envs

from .shipped_files import CHAMPION_DIR

VERSION = 1  # of the shipped network that the short names az and az-net play
DEFAULT_PLAY_SIMULATIONS = 200


@dataclass(frozen=True)
class PlaySettings:
    """How a game's shipped az searches: simulations per move and the rollout share of leaf values
    (:class:`monster_zoo.agents.az_search.SearchSettings`)."""

    simulations: int = DEFAULT_PLAY_SIMULATIONS
    rollout_weight: float = 0.0


# Each game's shipped az (see the module doc and training/AZ.md for the measurements); a game not
# listed plays PlaySettings().
PLAY_SETTINGS: Dict[str, PlaySettings] = {
    "marry_the_monster": PlaySettings(simulations=5763),
    "mighty_monsters": PlaySettings(simulations=3580),
    "monstargh": PlaySettings(simulations=1155, rollout_weight=0.5),
    "monster_arena": PlaySettings(simulations=576, rollout_weight=0.5),
}


def shipped_network_path(game_id: str, version: int = VERSION) -> Path:
    """Where the network shipped for ``game_id`` (version ``version``) lies, whether or not it does."""
    return CHAMPION_DIR / f"{envs.spec(game_id).name}-az-v{version}.npz"


def network_ships(game_id: str) -> bool:
    """Whether a network ships for ``game_id`` (its file is in the package)."""
    return shipped_network_path(game_id).is_file()


def play_settings(game_id: str) -> PlaySettings:
    """How the ``az`` shipped for ``game_id`` searches."""
    return PLAY_SETTINGS.get(envs.spec(game_id).name, PlaySettings())
