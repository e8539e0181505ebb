"""The nth-legal kind's per-game settings, under the key ``"nth-legal"`` of a game declaration's
``agents`` mapping: ``{"skip": n}`` plays the legal action n places after the first."""

from collections.abc import Mapping
from dataclasses import dataclass

from monster_zoo.envs.registry import declaration

SETTINGS_KEY = "nth-legal"


@dataclass(frozen=True)
class NthLegalSettings:
    """How many legal actions to pass over (counted round the list of legal actions)."""

    skip: int = 0

    def __post_init__(self):
        if not isinstance(self.skip, int) or self.skip < 0:
            raise ValueError(f"skip must be an integer >= 0, not {self.skip!r}")


def read_settings(settings: Mapping) -> NthLegalSettings:
    """A game's declared ``"nth-legal"`` settings; ValueError naming an unknown field or a bad value."""
    unknown = sorted(set(settings) - {"skip"})
    if unknown:
        raise ValueError(f"the {SETTINGS_KEY!r} settings take skip; unknown: {', '.join(unknown)}")
    return NthLegalSettings(**settings)


def declared_settings(game_id: str) -> NthLegalSettings | None:
    """The settings ``game_id`` declares for this kind (None: it declares none, and is not played)."""
    game = declaration(game_id)
    settings = game.agents.get(SETTINGS_KEY) if game is not None else None
    return None if settings is None else read_settings(settings)
