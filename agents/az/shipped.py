"""Where the networks of learned search (``az``) that ship with the package lie, and how each plays.

A game's shipped networks are the files ``<game>-az-v<K>.npz`` in the champions' folder (``K`` a
positive integer, written without leading zeros), each listed with its SHA-256 digest in
``champions/manifest.json`` like every shipped file. The versions of a game are the files present
(:func:`shipped_versions`): ``az`` and ``az-net`` play the newest (:func:`newest_version`),
``az-timed`` the newest whose settings give a ``budget_ms``, and ``<game>-az-vK``,
``<game>-az-net-vK`` and ``<game>-az-timed-vK`` version ``K``. A versioned name always means the
same weights and the same settings: retrained weights ship as the next version beside the old
file, never over it. This module only names the files and reads the settings, so the registry can
tell whether a game has a network without loading the search (:mod:`monster_zoo.agents.az.agent`
loads and verifies them).

The shipped ``az`` searches as :func:`play_settings` says, read from its game's declaration:
per game, the simulations that make a move cost about the CPU time of the game's tuned ``mcts``
move (sized by ``python -m monster_zoo.training.az.strength``, which sizes the search to the
opponent's time; at most 0.1 CPU s on the 2-core development machine), so the two meet at equal
budgets, and the share of a leaf's value that comes from a rollout (``rollout_weight``, where it
measured stronger). The flat fields are version 1's settings, and every other version's unless it
gives its own: under ``versions``, a version ``K >= 2`` (an integer key) lists the fields it
changes, laid over the flat ones::

    agents={"az": {"simulations": 5763, "budget_ms": 100.0,     # version 1 (and the default)
                   "versions": {2: {"simulations": 9775}}}}     # version 2: budget_ms 100.0 too

A flat field is thus every version's that does not set it itself: to change how one version plays,
give it its own value under ``versions``. An unknown field, a bad version key or a bad value is
refused with a ValueError naming the valid ones (:func:`read_play_settings`).

Some versions of ``az`` ship no file of their own: a *belief version* (:data:`BELIEF_VERSIONS`)
searches a shipped network with its simulations dealt from the seat's belief over what it cannot
see (:mod:`monster_zoo.agents.belief`, its default settings) instead of uniform redeals. It plays
its network's weights and, unless the declaration lists the version under ``versions``, its
network's settings; ``az-net`` has no belief version (the network alone does not search). Its
number is taken: the game's next network ships as the next free version above it.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path

from monster_zoo import envs
from monster_zoo.agents.shipped_files import CHAMPION_DIR
from monster_zoo.envs.registry import declaration

FIRST_VERSION = 1  # the version the flat settings describe, and the one a game's first network ships as
SETTINGS_KEY = "az"  # the key of the shipped search's settings in a game declaration's agents mapping
VERSIONS_FIELD = "versions"  # the field of those settings that holds each later version's own fields
#: Per game, each belief version of az -> the network version it searches with beliefs: the newest
#: network each game shipped when beliefs came, one version above it. A version listed here keeps
#: its meaning for good; a game's next network file takes the next number above every listed one.
BELIEF_VERSIONS = {
    "marry_the_monster": {3: 2},
    "mighty_monsters": {2: 1},
    "monstargh": {3: 2},
    "monster_arena": {3: 2},
    "monster_factory": {3: 2},
}
DEFAULT_PLAY_SIMULATIONS = 200
MAX_PLAY_BUDGET_MS = 100.0  # the learned search's play budget: at most 0.1 CPU s a move


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
    budget_ms: float | None = None

    def __post_init__(self):
        if not isinstance(self.simulations, int) or self.simulations < 1:
            raise ValueError(f"simulations must be an integer >= 1, not {self.simulations!r}")
        weight = self.rollout_weight
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0.0 <= weight <= 1.0:
            raise ValueError(f"rollout_weight must lie in [0, 1], not {self.rollout_weight!r}")
        budget = self.budget_ms
        if budget is not None and (
            isinstance(budget, bool)
            or not isinstance(budget, (int, float))
            or not 0 < budget <= MAX_PLAY_BUDGET_MS
        ):
            raise ValueError(
                f"budget_ms must be CPU milliseconds per move above 0 and at most "
                f"{MAX_PLAY_BUDGET_MS:.0f}, or None; not {self.budget_ms!r}"
            )


def _read_fields(settings: Mapping, where: str, also: tuple[str, ...] = ()) -> dict:
    """``settings`` as a dict of :class:`PlaySettings` fields; ValueError naming the valid fields
    (and ``also``, the other fields the mapping may hold) when it is no mapping or holds another."""
    valid = [f.name for f in fields(PlaySettings)] + list(also)
    if not isinstance(settings, Mapping):
        raise ValueError(f"{where} must be a mapping of {', '.join(valid)}; not {settings!r}")
    unknown = sorted(str(key) for key in set(settings) - set(valid))
    if unknown:
        raise ValueError(f"{where} take {', '.join(valid)}; unknown: {', '.join(unknown)}")
    return dict(settings)


def read_play_settings(settings: Mapping, version: int = FIRST_VERSION) -> PlaySettings:
    """A game's declared ``"az"`` settings as the :class:`PlaySettings` of network version
    ``version``: the flat fields, with the fields that version gives under ``versions`` laid over
    them (version 1, and a version without an entry, play the flat fields). Every version's entry is
    checked whichever is read; ValueError naming the valid fields, keys or values of a bad one."""
    if isinstance(version, bool) or not isinstance(version, int) or version < FIRST_VERSION:
        raise ValueError(f"a network version is an integer >= {FIRST_VERSION}, not {version!r}")
    flat = _read_fields(settings, f"the {SETTINGS_KEY!r} settings", also=(VERSIONS_FIELD,))
    declared = flat.pop(VERSIONS_FIELD, {})
    if not isinstance(declared, Mapping):
        raise ValueError(
            f"the {SETTINGS_KEY!r} settings' {VERSIONS_FIELD!r} map a network version (an integer "
            f">= {FIRST_VERSION + 1}) to the fields it changes, e.g. {{2: {{'simulations': 9775}}}}; "
            f"not {declared!r}"
        )
    read = {FIRST_VERSION: PlaySettings(**flat)}
    for key, own in declared.items():
        # version 1 is the flat fields: a second place to give them would let the two disagree
        if isinstance(key, bool) or not isinstance(key, int) or key <= FIRST_VERSION:
            raise ValueError(
                f"the {SETTINGS_KEY!r} settings' {VERSIONS_FIELD!r} are keyed by network versions "
                f"{FIRST_VERSION + 1}, {FIRST_VERSION + 2}, ... (integers; version {FIRST_VERSION} "
                f"plays the flat fields), not {key!r}"
            )
        where = f"version {key}'s {SETTINGS_KEY!r} settings"
        changed = _read_fields(own, where)
        try:
            read[key] = PlaySettings(**{**flat, **changed})
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    return read.get(version, read[FIRST_VERSION])


def shipped_versions(game_id: str) -> tuple[int, ...]:
    """The versions of the networks shipped for ``game_id``, oldest first: the ``K`` of every file
    ``<game>-az-v<K>.npz`` in the champions' folder (empty where none ships)."""
    name = envs.spec(game_id).name
    pattern = re.compile(rf"{re.escape(name)}-az-v([1-9][0-9]*)\.npz")
    found = (
        pattern.fullmatch(path.name) for path in CHAMPION_DIR.glob(f"{name}-az-v*.npz") if path.is_file()
    )
    return tuple(sorted(int(match.group(1)) for match in found if match))


def newest_version(game_id: str) -> int:
    """The newest version shipped for ``game_id``, which ``az`` and ``az-net`` play (version 1 where
    none ships yet: the version its first network ships as)."""
    versions = shipped_versions(game_id)
    return versions[-1] if versions else FIRST_VERSION


def shipped_network_path(game_id: str, version: int | None = None) -> Path:
    """Where version ``version`` (None: the newest) of the network shipped for ``game_id`` lies,
    whether or not it does."""
    if version is None:
        version = newest_version(game_id)
    elif isinstance(version, bool) or not isinstance(version, int) or version < FIRST_VERSION:
        raise ValueError(f"a network version is an integer >= {FIRST_VERSION}, not {version!r}")
    return CHAMPION_DIR / f"{envs.spec(game_id).name}-az-v{version}.npz"


def belief_versions(game_id: str) -> dict[int, int]:
    """The belief versions of ``game_id``'s ``az`` whose network ships, each mapped to that network's
    version (empty where none does); ValueError when a network file ships under a belief version's
    number, naming the number it should ship as."""
    declared = BELIEF_VERSIONS.get(envs.spec(game_id).name, {})
    shipped = shipped_versions(game_id)
    taken = sorted(set(declared) & set(shipped))
    if taken:
        free = max([*declared, *shipped]) + 1
        raise ValueError(
            f"{envs.spec(game_id).name}-az-v{taken[0]}.npz ships as a network, but version {taken[0]} "
            f"of az is network version {declared[taken[0]]} searched with beliefs; ship the file as "
            f"version {free} ({envs.spec(game_id).name}-az-v{free}.npz)"
        )
    return {version: network for version, network in declared.items() if network in shipped}


def network_version(game_id: str, version: int) -> int:
    """The version of the network file that version ``version`` of ``game_id``'s ``az`` searches:
    its own, or a belief version's network."""
    return BELIEF_VERSIONS.get(envs.spec(game_id).name, {}).get(version, version)


def network_ships(game_id: str) -> bool:
    """Whether a network (any version) ships for ``game_id`` (its file is in the package)."""
    return bool(shipped_versions(game_id))


def play_settings(game_id: str, version: int | None = None) -> PlaySettings:
    """How version ``version`` (None: the newest) of the ``az`` shipped for ``game_id`` searches: a
    belief version as its network does unless the declaration lists it under ``versions``."""
    game = declaration(game_id)
    declared = game.agents.get(SETTINGS_KEY, {}) if game is not None else {}
    version = newest_version(game_id) if version is None else version
    listed = declared.get(VERSIONS_FIELD, {}) if isinstance(declared, Mapping) else {}
    if not (isinstance(listed, Mapping) and version in listed):
        version = network_version(game_id, version)
    return read_play_settings(declared, version)
