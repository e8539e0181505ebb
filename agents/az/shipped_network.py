"""The networks of learned search (``az``) that ship with the package, read and checked: what the
search plays and what a belief's opponent model reads (:mod:`monster_zoo.agents.belief`)."""

from monster_zoo import envs
from monster_zoo.agents.az.shipped import belief_versions, shipped_network_path, shipped_versions
from monster_zoo.agents.network import AZNetwork, read_network
from monster_zoo.agents.shipped_files import verify_shipped


def shipped_network(game_id: str, version: int | None = None) -> AZNetwork:
    """Version ``version`` (None: the newest) of the network shipped for ``game_id``, checked against
    the champions' manifest first; ValueError when none ships yet (saying how to train one) or that
    version does not (naming those that do), ModelFileError when its file is not the one that shipped."""
    shipped = shipped_versions(game_id)
    if not shipped:
        raise ValueError(
            f"no az network ships for {game_id} yet, so az and az-net have nothing to play; train "
            f"one with 'monster-zoo az --game {game_id}' (python -m monster_zoo.training.az) and "
            f"play its file as az:<run folder>/network.npz or az-net:<run folder>/network.npz"
        )
    path = shipped_network_path(game_id, version)
    if version is not None and version not in shipped:
        game = envs.spec(game_id).name
        beliefs = "".join(
            f"; {game}-az-v{v} searches version {n} with beliefs" for v, n in belief_versions(game_id).items()
        )
        raise ValueError(
            f"version {version} of the az network does not ship for {game_id}; the versions that "
            f"ship are {', '.join(map(str, shipped))} ({', '.join(f'{game}-az-v{v}' for v in shipped)};"
            f" az plays the newest, {shipped[-1]}{beliefs})"
        )
    verify_shipped(path)
    return read_network(path)
