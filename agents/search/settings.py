"""The search's names and per-game settings: the versions of ``mcts`` and ``mcts-fast``, and how a
game's tuned search plays it, declared with the game under the key ``"mcts"`` of its declaration's
``agents`` mapping and read (and checked) here."""

from collections.abc import Mapping
from dataclasses import dataclass, fields

from monster_zoo.agents.belief.settings import BeliefSettings, belief_settings
from monster_zoo.envs.registry import declaration

SETTINGS_KEY = "mcts"
UNTUNED_VERSION = 1  # <game>-mcts-v1: 10,000 simulations, random rollouts, in every game
TUNED_VERSION = 2  # <game>-mcts-v2: the declared settings, uniform redeals
BELIEF_VERSION = 3  # <game>-mcts-v3: the declared settings, simulations dealt from the seat's belief
# short name -> the versions its versioned names play, ascending
VERSIONS = {"mcts": (UNTUNED_VERSION, TUNED_VERSION, BELIEF_VERSION), "mcts-fast": (1,)}
# short name -> the version it plays: the one measured strongest (version 3 plays by its versioned
# name until it measures stronger than version 2)
PLAYED = {"mcts": TUNED_VERSION, "mcts-fast": 1}
ROLLOUTS = ("random", "greedy")
OPTIONAL = ("belief",)  # fields a declaration may leave out


@dataclass(frozen=True)
class SearchConfig:
    """How the game's tuned search baseline (``mcts``) searches: simulations per move, the UCB
    exploration constant, the rollout policy (``"random"``, or ``"greedy"``: the game's greedy
    kernel) and the settings of the belief its believing version and the learned search's belief
    versions keep (declared as a mapping of
    :class:`~monster_zoo.agents.belief.settings.BeliefSettings` fields laid over the defaults)."""

    simulations: int
    exploration: float
    rollout: str
    belief: BeliefSettings = BeliefSettings()

    def __post_init__(self):
        if self.rollout not in ROLLOUTS:
            raise ValueError(f"rollout {self.rollout!r} is not one of {', '.join(ROLLOUTS)}")
        if not isinstance(self.simulations, int) or self.simulations < 1:
            raise ValueError(f"simulations must be an integer >= 1, not {self.simulations!r}")


def read_search_config(settings: Mapping) -> SearchConfig:
    """A game's declared ``"mcts"`` settings as a :class:`SearchConfig`; ValueError naming an
    unknown or missing field, or a bad value."""
    valid = [f.name for f in fields(SearchConfig)]
    unknown = sorted(set(settings) - set(valid))
    missing = [name for name in valid if name not in settings and name not in OPTIONAL]
    if unknown or missing:
        raise ValueError(
            f"the {SETTINGS_KEY!r} settings take {', '.join(valid)}"
            + (f"; unknown: {', '.join(unknown)}" if unknown else "")
            + (f"; missing: {', '.join(missing)}" if missing else "")
        )
    chosen = dict(settings)
    if "belief" in chosen:
        if not isinstance(chosen["belief"], Mapping):
            raise ValueError(f"the {SETTINGS_KEY!r} settings' belief must be a mapping of belief settings")
        chosen["belief"] = belief_settings(dict(chosen["belief"]))
    return SearchConfig(**chosen)


def declared_search(game_id: str) -> SearchConfig | None:
    """The tuned search's configuration ``game_id`` declares (None: it declares none)."""
    game = declaration(game_id)
    settings = game.agents.get(SETTINGS_KEY) if game is not None else None
    return None if settings is None else read_search_config(settings)
