"""Rules in our own words and component data, one folder per game (package data)."""

from pathlib import Path

SEEDS_DIR = Path(__file__).resolve().parent


def game_dir(game: str) -> Path:
    """The folder holding ``game``'s ``rules.md`` and component data."""
    return SEEDS_DIR / game
