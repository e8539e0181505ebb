"""Trained champions shipped with the package: ``make_agent("<game>-champion-v1", game_id)``.

A champion is a policy file (:mod:`monster_zoo.agents.policy_file`: JSON metadata and
arrays, nothing that runs code) in the package's ``agents/champions`` folder, one per
game and player count, named ``<game>-<n>p.npz``. It plays through the numpy forward
pass of :class:`~monster_zoo.agents.ppo_agent.PPOAgent`, so neither torch nor training is
needed. ``agents/champions/README.md`` says how each file was trained and the command
that reproduces it.

The player count comes from the game's options (the game's default when they name
none); a count without a shipped champion is refused with the counts that have one.
Version 1 names one fixed set of weights per file: retrained weights ship as ``v2``.
"""
from pathlib import Path
from typing import Dict, List, Optional

from monster_zoo import envs

from .ppo_agent import PPOAgent

CHAMPION_DIR = Path(__file__).with_name("champions")
VERSION = 1


def champion_name(game_id: str) -> str:
    """The versioned agent name of ``game_id``'s champion: ``"<game>-champion-v1"``."""
    return f"{envs.spec(game_id).name}-champion-v{VERSION}"


def champion_path(game_name: str, num_players: int) -> Path:
    """Where the champion of ``game_name`` (``marry_the_monster``) for ``num_players`` lies."""
    return CHAMPION_DIR / f"{game_name}-{num_players}p.npz"


def champion_player_counts(game_name: str) -> List[int]:
    """The player counts of ``game_name`` that have a shipped champion, ascending."""
    counts = []
    for path in CHAMPION_DIR.glob(f"{game_name}-*p.npz"):
        count = path.stem[len(game_name) + 1:-1]
        if count.isdigit():
            counts.append(int(count))
    return sorted(counts)


def champion_games() -> Dict[str, List[int]]:
    """Every game name with a shipped champion, and its player counts."""
    found = {}
    for game_id in envs.available():
        name = envs.spec(game_id).name
        counts = champion_player_counts(name)
        if counts:
            found[name] = counts
    return found


def load_champion(seed: int = 0, game_id: Optional[str] = None, options: Optional[Dict] = None) -> PPOAgent:
    """The shipped champion of ``game_id`` for the player count of ``options``, seeded ``seed``.

    ValueError naming the counts that have a champion when this one has none.
    """
    if game_id is None:
        raise ValueError("a champion plays one game: pass game_id")
    name = envs.spec(game_id).name
    num_players = int(envs.config(game_id, dict(options or {}))[0])
    path = champion_path(name, num_players)
    if not path.is_file():
        counts = champion_player_counts(name)
        shipped = ", ".join(f"{n} players" for n in counts) or "none yet"
        raise ValueError(f"{champion_name(game_id)} has no champion for {num_players} players "
                         f"(shipped: {shipped})")
    agent = PPOAgent.load(str(path), game_id, seed, options=options)
    agent.name = champion_name(game_id)
    return agent
