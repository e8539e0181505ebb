"""Where the networks of learned search (``az``) that ship with the package lie.

A game's shipped network is the file ``<game>-az-v<version>.npz`` in the champions' folder,
listed with its SHA-256 digest in ``champions/manifest.json`` like every shipped file. This
module only names the files, so the registry can tell whether a game has one without loading
the search (:mod:`monster_zoo.agents.az_agent` loads and verifies them).
"""
from pathlib import Path

from monster_zoo import envs

CHAMPION_DIR = Path(__file__).with_name("champions")
VERSION = 1  # of the shipped network that the short names az and az-net play


def shipped_network_path(game_id: str, version: int = VERSION) -> Path:
    """Where the network shipped for ``game_id`` (version ``version``) lies, whether or not it does."""
    return CHAMPION_DIR / f"{envs.spec(game_id).name}-az-v{version}.npz"


def network_ships(game_id: str) -> bool:
    """Whether a network ships for ``game_id`` (its file is in the package)."""
    return shipped_network_path(game_id).is_file()
