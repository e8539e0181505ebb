"""Trained champions shipped with the package: ``make_agent("<game>-champion-v1", game_id)``.

A champion is a policy file (:mod:`monster_zoo.agents.policy_file`: JSON metadata and
arrays, nothing that runs code) in the package's ``agents/champions`` folder, one per
game, player count and version: ``<game>-<n>p.npz`` is version 1, ``<game>-<n>p-v2.npz``
version 2, and so on. It plays through the numpy forward pass of
:class:`~monster_zoo.agents.ppo_agent.PPOAgent`, so neither torch nor training is
needed. ``agents/champions/README.md`` says how each file was trained and the command
that reproduces it.

A versioned name always means the same weights: ``<game>-champion-v1`` plays version 1
of the player count at hand, and retrained weights ship as the next version beside it, so
results quoted against a name stay comparable. The short name ``champion`` plays the
newest version shipped for the player count. The player count comes from the game's
options (the game's default when they name none); a count or version without a shipped
champion is refused with the ones that have one.
"""
import re
from pathlib import Path
from typing import Dict, List, Optional

from monster_zoo import envs

from .ppo_agent import PPOAgent

CHAMPION_DIR = Path(__file__).with_name("champions")
_FILE = re.compile(r"(?P<game>[a-z_]+)-(?P<players>\d+)p(?:-v(?P<version>\d+))?")


def champion_name(game_id: str, version: int = 1) -> str:
    """The versioned agent name of ``game_id``'s champion: ``"<game>-champion-v1"``."""
    return f"{envs.spec(game_id).name}-champion-v{version}"


def champion_path(game_name: str, num_players: int, version: int = 1) -> Path:
    """Where version ``version`` of the champion of ``game_name`` for ``num_players`` lies."""
    suffix = "" if version == 1 else f"-v{version}"
    return CHAMPION_DIR / f"{game_name}-{num_players}p{suffix}.npz"


def _shipped(game_name: str) -> Dict[int, List[int]]:
    """Player count -> versions shipped for ``game_name``, ascending."""
    found: Dict[int, List[int]] = {}
    for path in CHAMPION_DIR.glob(f"{game_name}-*p*.npz"):
        match = _FILE.fullmatch(path.stem)
        if match and match["game"] == game_name:
            found.setdefault(int(match["players"]), []).append(int(match["version"] or 1))
    return {n: sorted(v) for n, v in sorted(found.items())}


def champion_player_counts(game_name: str) -> List[int]:
    """The player counts of ``game_name`` that have a shipped champion, ascending."""
    return list(_shipped(game_name))


def champion_versions(game_name: str, num_players: int) -> List[int]:
    """The versions of ``game_name``'s champion shipped for ``num_players``, ascending."""
    return _shipped(game_name).get(num_players, [])


def champion_games() -> Dict[str, List[int]]:
    """Every game name with a shipped champion, and its player counts."""
    found = {}
    for game_id in envs.available():
        name = envs.spec(game_id).name
        counts = champion_player_counts(name)
        if counts:
            found[name] = counts
    return found


def all_champion_versions(game_name: str) -> List[int]:
    """Every version shipped for some player count of ``game_name``, ascending."""
    return sorted({v for versions in _shipped(game_name).values() for v in versions})


def load_champion(seed: int = 0, game_id: Optional[str] = None, options: Optional[Dict] = None,
                  version: Optional[int] = None) -> PPOAgent:
    """Version ``version`` (None: the newest) of ``game_id``'s champion for the player count of
    ``options``, seeded ``seed``.

    ValueError naming the counts (or versions) that have a champion when this one has none.
    """
    if game_id is None:
        raise ValueError("a champion plays one game: pass game_id")
    name = envs.spec(game_id).name
    num_players = int(envs.config(game_id, dict(options or {}))[0])
    versions = champion_versions(name, num_players)
    if not versions:
        shipped = ", ".join(f"{n} players" for n in champion_player_counts(name)) or "none yet"
        raise ValueError(f"{champion_name(game_id, version or 1)} has no champion for {num_players} players "
                         f"(shipped: {shipped})")
    if version is None:
        version = versions[-1]
    elif version not in versions:
        raise ValueError(f"{champion_name(game_id, version)} has no champion for {num_players} players "
                         f"(shipped for {num_players} players: "
                         f"{', '.join(champion_name(game_id, v) for v in versions)})")
    agent = PPOAgent.load(str(champion_path(name, num_players, version)), game_id, seed, options=options)
    agent.name = champion_name(game_id, version)
    return agent
