"""Trained champions shipped with the package: ``make_agent("<game>-champion-v1", game_id)``.

A champion is a policy file (:mod:`monster_zoo.agents.model_file`: JSON metadata and
arrays, nothing that runs code) in the package's ``agents/champions`` folder, one per
game, player count and version: ``<game>-<n>p.npz`` is version 1, ``<game>-<n>p-v2.npz``
version 2, and so on. A PPO policy file plays through the numpy forward pass of
:class:`~monster_zoo.agents.ppo.agent.PPOAgent`, so neither torch nor training is
needed. A version may instead be a learned-search network (``<game>-az-vK.npz``, byte-copied
under the champion's name) that, played alone, beat the PPO champion head to head at that
player count (at least 0.55, its 95% interval above 0.50); it plays as
:class:`~monster_zoo.agents.az.agent.AZNetAgent`, the argmax of its policy head over the
legal actions, with numba alone. ``agents/champions/README.md`` says how each file was
trained and the command that reproduces it.

A versioned name always means the same weights: ``<game>-champion-v1`` plays version 1
of the player count at hand, and retrained weights ship as the next version beside it, so
results quoted against a name stay comparable. The short name ``champion`` plays the
newest version shipped for the player count. The player count comes from the game's
options (the game's default when they name none, or the env's: ``make_agent("champion",
env)``); a count or version without a shipped champion is refused with the ones that have one
and what to type to get one.

**The manifest.** ``champions/manifest.json`` lists every file of the folder with its SHA-256
digest (a champion's also with its game, player count and version). A champion loads only when
its file is listed and its digest is the listed one, so a changed or damaged copy is refused instead of playing weights
nobody shipped. Adding a champion (a new file, never a changed one: retrained weights ship as
the next version) means regenerating the manifest::

    python -m monster_zoo.agents.champions --write-manifest   # after adding the file
    python -m monster_zoo.agents.champions                    # check every file against it

(the manifest's command and functions: :mod:`monster_zoo.agents.shipped_files`)
"""

import re
from pathlib import Path

from monster_zoo import envs
from monster_zoo.agents.base import Agent
from monster_zoo.agents.model_file import read_metadata
from monster_zoo.agents.ppo.agent import PPOAgent
from monster_zoo.agents.shipped_files import AZ_ARCHITECTURE, CHAMPION_DIR, CHAMPION_FILE, verify_shipped


def champion_name(game_id: str, version: int = 1) -> str:
    """The versioned agent name of ``game_id``'s champion: ``"<game>-champion-v1"``."""
    return f"{envs.spec(game_id).name}-champion-v{version}"


def champion_version(game_id: str, name: str) -> int | None:
    """The version a ``<game>-champion-vK`` name asks for (None for any other name)."""
    match = re.fullmatch(rf"{re.escape(envs.spec(game_id).name)}-champion-v(\d+)", name)
    return int(match.group(1)) if match else None


def champion_path(game_name: str, num_players: int, version: int = 1) -> Path:
    """Where version ``version`` of the champion of ``game_name`` for ``num_players`` lies."""
    suffix = "" if version == 1 else f"-v{version}"
    return CHAMPION_DIR / f"{game_name}-{num_players}p{suffix}.npz"


def _shipped(game_name: str) -> dict[int, list[int]]:
    """Player count -> versions shipped for ``game_name``, ascending."""
    found: dict[int, list[int]] = {}
    for path in CHAMPION_DIR.glob(f"{game_name}-*p*.npz"):
        match = CHAMPION_FILE.fullmatch(path.stem)
        if match and match["game"] == game_name:
            found.setdefault(int(match["players"]), []).append(int(match["version"] or 1))
    return {n: sorted(v) for n, v in sorted(found.items())}


def champion_player_counts(game_name: str) -> list[int]:
    """The player counts of ``game_name`` that have a shipped champion, ascending."""
    return list(_shipped(game_name))


def champion_versions(game_name: str, num_players: int) -> list[int]:
    """The versions of ``game_name``'s champion shipped for ``num_players``, ascending."""
    return _shipped(game_name).get(num_players, [])


def champion_games() -> dict[str, list[int]]:
    """Every game name with a shipped champion, and its player counts."""
    found = {}
    for game_id in envs.available():
        name = envs.spec(game_id).name
        counts = champion_player_counts(name)
        if counts:
            found[name] = counts
    return found


def all_champion_versions(game_name: str) -> list[int]:
    """Every version shipped for some player count of ``game_name``, ascending."""
    return sorted({v for versions in _shipped(game_name).values() for v in versions})


def load_champion(
    seed: int = 0, game_id: str | None = None, options: dict | None = None, version: int | None = None
) -> Agent:
    """Version ``version`` (None: the newest) of ``game_id``'s champion for the player count of
    ``options``, seeded ``seed``; its file is checked against the manifest first. A policy file plays
    as a :class:`~monster_zoo.agents.ppo.agent.PPOAgent`, a learned-search network file as an
    :class:`~monster_zoo.agents.az.agent.AZNetAgent` (the network alone); either is named
    ``<game>-champion-vK``.

    ValueError naming the counts (or versions) that have a champion, and the call that gets
    one, when this one has none; ModelFileError when the file is not the one that shipped.
    """
    if game_id is None:
        raise ValueError("a champion plays one game: pass game_id")
    name = envs.spec(game_id).name
    num_players = int(envs.config(game_id, dict(options or {}))[0])
    versions = champion_versions(name, num_players)
    if not versions:
        raise ValueError(_no_champion(game_id, version or 1, num_players))
    if version is None:
        version = versions[-1]
    elif version not in versions:
        raise ValueError(
            f"{champion_name(game_id, version)} has no champion for {num_players} players "
            f"(shipped for {num_players} players: "
            f"{', '.join(champion_name(game_id, v) for v in versions)})"
        )
    path = champion_path(name, num_players, version)
    verify_shipped(path)
    if read_metadata(path)["architecture"].get("type") == AZ_ARCHITECTURE:
        # imported here: listing the champions must not compile the learned search's kernels
        from monster_zoo.agents.az.agent import AZNetAgent
        from monster_zoo.agents.network import read_network

        agent = AZNetAgent(
            seed, read_network(path), game_id, options
        )  # refuses a count the network does not play
    else:
        agent = PPOAgent.load(str(path), game_id, seed, options=options)
    agent.name = champion_name(game_id, version)
    return agent


def _no_champion(game_id: str, version: int, num_players: int) -> str:
    """Why there is no champion for ``num_players``, and exactly what to type for one that exists."""
    counts = champion_player_counts(envs.spec(game_id).name)
    problem = f"{champion_name(game_id, version)} has no champion for {num_players} players"
    if not counts:
        return f"{problem} (none shipped yet for {game_id})"
    listed = " and ".join(str(n) for n in counts)
    n = counts[0]
    return (
        f"{problem} ({game_id}'s champions ship for {listed} players). Ask for one by its player count: "
        f'make_agent("champion", "{game_id}", options={{"num_players": {n}}}), or make_agent("champion", '
        f'env) with env = monster_zoo.make("{game_id}", num_players={n}); on the command line: '
        f"--option num_players={n}"
    )
