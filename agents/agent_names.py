"""The names of the agents the registry makes: kinds, versions and the modules that hold them.

Kept apart from :mod:`monster_zoo.agents.registry`, which imports every kind of agent to make
one, so that an agent (the tuned search names its two budgets and rolls out with the game's
greedy kernel) can read its own names without importing the registry back.
"""
from typing import Dict, Tuple

from monster_zoo import envs
from monster_zoo.envs.registry import declaration

# kind -> (version, module, class) for agents that play any game
GENERIC_KINDS: Dict[str, Tuple[int, str, str]] = {
    "random": (1, "monster_zoo.agents.random_agent", "RandomAgent"),
    # each game's tuned search (monster_zoo.agents.search), and the same at a tenth of its budget
    "mcts": (2, "monster_zoo.agents.search", "TunedMCTS"),
    "mcts-fast": (1, "monster_zoo.agents.search", "FastTunedMCTS"),
    # the trained champion shipped for the game and player count (monster_zoo.agents.champions);
    # its versions are per game and player count: see champion_version
    "champion": (1, "monster_zoo.agents.champions", "load_champion"),
    # learned search over the network shipped for the game, and that network alone
    # (monster_zoo.agents.az_agent); named only where a network ships
    "az": (1, "monster_zoo.agents.az_agent", "ShippedAZ"),
    "az-net": (1, "monster_zoo.agents.az_agent", "ShippedAZNet"),
}
SHIPPED_NETWORK_KINDS = ("az", "az-net")
# kind of a baseline a game declares -> (module, class) of the agent that plays its kernel
BASELINE_AGENTS: Dict[str, Tuple[str, str]] = {
    "greedy": ("monster_zoo.agents.greedy", "GreedyAgent"),
}
# (kind, version) -> (module, class) of versions that a newer one replaced
PREVIOUS_VERSIONS: Dict[Tuple[str, int], Tuple[str, str]] = {
    ("mcts", 1): ("monster_zoo.agents.mcts", "MCTSAgent"),  # untuned: 10,000 simulations, random rollouts
}



def game_name(game_id: str) -> str:
    """The game's name (``marry_the_monster``) for a registry id; ValueError if unknown."""
    return envs.spec(game_id).name


def kinds_of(game_id: str) -> Dict[str, Tuple[int, str, str]]:
    """Every kind of agent available for ``game_id``: the generic kinds, then the baselines its
    declaration names (:class:`monster_zoo.envs.core.game.Baseline`)."""
    game = declaration(game_id)
    written = {kind: (b.version, *BASELINE_AGENTS[kind]) for kind, b in game.baselines.items()} if game else {}
    return {**GENERIC_KINDS, **written}


def versioned_name(game_id: str, kind: str) -> str:
    """The current versioned name of baseline ``kind`` for ``game_id`` (``marry_the_monster-mcts-v2``)."""
    return f"{game_name(game_id)}-{kind}-v{kinds_of(game_id)[kind][0]}"
