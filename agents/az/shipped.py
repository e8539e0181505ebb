"""Where the networks of learned search (``az``) that ship with the package lie.

A game's shipped network is the file ``<game>-az-v<version>.npz`` in the champions' folder,
listed with its SHA-256 digest in ``champions/manifest.json`` like every shipped file. This
module only names the files and the shipped search's budget, so the registry can tell whether a
game has one without loading the search (:mod:`monster_zoo.agents.az.agent` loads and verifies
them).

The shipped ``az`` searches as :func:`play_settings` says (its game's ``agents={"az": {...}}``): per game, the simulations that make a
move cost about the CPU time of the game's tuned ``mcts`` move (sized by
``python -m monster_zoo.training.az.strength``, which sizes the search to the opponent's time;
at most 0.1 CPU s on the 2-core development machine), so the two meet at equal budgets, and the
share of a leaf's value that comes from a rollout (``rollout_weight``, where it measured stronger).
"""
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Mapping, Optional

from monster_zoo import envs
from monster_zoo.agents.shipped_files import CHAMPION_DIR
from monster_zoo.envs.registry import declaration

VERSION = 1  # of the shipped network that the short names az and az-net play
SETTINGS_KEY = "az"  # the key of the shipped search's settings in a game declaration's agents mapping
DEFAULT_PLAY_SIMULATIONS = 200
MAX_PLAY_BUDGET_MS = 100.0  # issue 44: the learned search spends at most 0.1 CPU s a move


@dataclass(frozen=True)
class PlaySettings:
    """How the learned search shipped for the game searches: ``simulations`` per move (``az``, the
    same moves on every machine), the share of a leaf's value that comes from a rollout, and
    ``budget_ms``, the CPU milliseconds per move those simulations stand for (``az-timed`` sizes
    its simulations to it on the host at its first move: the game's ``mcts`` move's time on the
    development machine, so ``az-timed`` meets ``mcts`` at equal time on any machine; None: no
    ``az-timed``). Sized per game in training/AZ.md."""

    simulations: int = DEFAULT_PLAY_SIMULATIONS
    rollout_weight: float = 0.0
    budget_ms: Optional[float] = None

    def __post_init__(self):
        if not isinstance(self.simulations, int) or self.simulations < 1:
            raise ValueError(f"simulations must be an integer >= 1, not {self.simulations!r}")
        if not 0.0 <= self.rollout_weight <= 1.0:
            raise ValueError(f"rollout_weight must lie in [0, 1], not {self.rollout_weight!r}")
        budget = self.budget_ms
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float))
                                   or not 0 < budget <= MAX_PLAY_BUDGET_MS):
            raise ValueError(f"budget_ms must be CPU milliseconds per move above 0 and at most "
                             f"{MAX_PLAY_BUDGET_MS:.0f}, or None; not {self.budget_ms!r}")


def read_play_settings(settings: Mapping) -> PlaySettings:
    """A game's declared ``"az"`` settings as :class:`PlaySettings`; ValueError naming an unknown field."""
    valid = [f.name for f in fields(PlaySettings)]
    unknown = sorted(set(settings) - set(valid))
    if unknown:
        raise ValueError(f"the {SETTINGS_KEY!r} settings take {', '.join(valid)}; unknown: {', '.join(unknown)}")
    return PlaySettings(**settings)


def shipped_network_path(game_id: str, version: int = VERSION) -> Path:
    """Where the network shipped for ``game_id`` (version ``version``) lies, whether or not it does."""
    return CHAMPION_DIR / f"{envs.spec(game_id).name}-az-v{version}.npz"


def network_ships(game_id: str) -> bool:
    """Whether a network ships for ``game_id`` (its file is in the package)."""
    return shipped_network_path(game_id).is_file()


def play_settings(game_id: str) -> PlaySettings:
    """How the ``az`` shipped for ``game_id`` searches."""
    game = declaration(game_id)
    return read_play_settings(game.agents.get(SETTINGS_KEY, {}) if game is not None else {})
