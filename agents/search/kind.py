"""The rollout search (``mcts`` / ``<game>-mcts-v2``, ``mcts-fast`` / ``<game>-mcts-fast-v1``, the
untuned ``<game>-mcts-v1`` and ``<game>-mcts-v3``, version 2 dealing its simulations from the seat's
belief), tuned per game by the ``"mcts"`` settings of its declaration:
``agents={"mcts": {"simulations": ..., "exploration": ..., "rollout": "random" or "greedy"}}``."""

from monster_zoo.agents.kind import AgentKind, AgentSettings, Request
from monster_zoo.agents.search.settings import (
    BELIEF_VERSION,
    PLAYED,
    SETTINGS_KEY,
    UNTUNED_VERSION,
    VERSIONS,
    read_search_config,
)


def names(game_id: str) -> dict:
    """``mcts`` (its untuned version 1, tuned version 2 and believing version 3) and ``mcts-fast``, in
    every game."""
    return VERSIONS


def make(request: Request):
    """The tuned search at its full budget or at a tenth (``mcts-fast``), the untuned version 1, or
    version 3 (the tuned search with beliefs)."""
    from monster_zoo.agents.search.agent import MCTSAgent
    from monster_zoo.agents.search.tuned import BeliefTunedMCTS, FastTunedMCTS, TunedMCTS

    if request.name == "mcts" and request.version == UNTUNED_VERSION:
        return MCTSAgent(request.seed, game_id=request.game_id)
    if request.name == "mcts" and request.version == BELIEF_VERSION:
        return BeliefTunedMCTS(request.seed, game_id=request.game_id)
    tuned = FastTunedMCTS if request.name == "mcts-fast" else TunedMCTS
    return tuned(request.seed, game_id=request.game_id)


def plays(game_id: str, short: str) -> int:
    """The version ``short`` plays: ``mcts`` plays version 2 (the tuned search)."""
    return PLAYED[short]


KIND = AgentKind(
    summary="information-set MCTS with rollouts, tuned per game",
    names=names,
    make=make,
    settings=AgentSettings(SETTINGS_KEY, read_search_config),
    plays=plays,
)
