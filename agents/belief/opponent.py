"""The opponent model a belief weighs the other players' moves by: the game's greedy kernel, mixed
with a policy network where the settings ask for one and a network plays the table's player count."""

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from monster_zoo.agents.belief.settings import BeliefSettings
from monster_zoo.agents.greedy.agent import greedy_kernel
from monster_zoo.agents.network import AZNetwork, check_fits, read_network
from monster_zoo.agents.shipped_files import CHAMPION_DIR, verify_shipped

NO_PARAMS = np.zeros(0, np.float32)
NO_SHAPES = np.zeros((0, 2), np.int64)


@dataclass(frozen=True)
class OpponentModel:
    """The greedy ``policy`` (the game's kernel, ``POLICY_SIG``) and the policy ``network`` (None:
    the greedy model everywhere) at ``temperature``."""

    policy: object
    network: AZNetwork | None
    temperature: float

    def arrays(self, num_players: int) -> tuple[np.ndarray, np.ndarray]:
        """``(params, shapes)`` of the network for a table of ``num_players``; empty (the greedy
        model) where there is no network or it does not play that count."""
        net = self.network
        if net is None or num_players not in net.player_counts:
            return NO_PARAMS, NO_SHAPES
        return net.params, net.shapes


def shipped_model_network(name: str, game_id: str) -> AZNetwork:
    """The network file ``name`` of the champions' folder, checked against the champions' manifest
    and the game; ValueError for a name that is not a file there."""
    path = CHAMPION_DIR / name
    if path.name != name or path.suffix != ".npz" or not path.is_file():
        shipped = sorted(p.name for p in CHAMPION_DIR.glob("*-az-v*.npz"))
        raise ValueError(
            f"the belief's network {name!r} is not a shipped network file; those are: {', '.join(shipped)}"
        )
    found = path.stat()
    return _verified_network(path, found.st_mtime_ns, found.st_size, game_id)


@lru_cache(maxsize=16)
def _verified_network(path: Path, mtime_ns: int, size: int, game_id: str) -> AZNetwork:
    """The shipped network file ``path``, verified and read once per version of the file (its
    modification time and size are in the key, so a changed file is verified again): every search
    agent with a belief reads its opponent model here at construction, once per game of a series."""
    verify_shipped(path)
    network = read_network(path)
    check_fits(network, path.name, game_id, {"num_players": network.player_counts[0]})
    return network


def opponent_model(game_id: str, settings: BeliefSettings, network: AZNetwork | None = None) -> OpponentModel:
    """The opponent model ``settings`` ask for in ``game_id``: with ``model="network"``, the shipped
    network file the settings name, else ``network`` (the searching agent's own), else the greedy
    model."""
    chosen = None
    if settings.model == "network":
        chosen = shipped_model_network(settings.network, game_id) if settings.network else network
    return OpponentModel(greedy_kernel(game_id), chosen, float(settings.temperature))
