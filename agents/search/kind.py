"""The rollout search (``mcts`` / ``<game>-mcts-v2``, ``mcts-fast`` / ``<game>-mcts-fast-v1``, and the
untuned ``<game>-mcts-v1``), tuned per game by the ``"mcts"`` settings of its declaration:
``agents={"mcts": {"simulations": ..., "exploration": ..., "rollout": "random" or "greedy"}}``."""

from monster_zoo.agents.kind import AgentKind, AgentSettings, Request
from monster_zoo.agents.search.settings import SETTINGS_KEY, UNTUNED_VERSION, VERSIONS, read_search_config


def names(game_id: str) -> dict:
    """``mcts`` (its untuned version 1 and tuned version 2) and ``mcts-fast``, in every game."""
    return VERSIONS


def make(request: Request):
    """The tuned search at its full budget or at a tenth (``mcts-fast``), or the untuned version 1."""
    from monster_zoo.agents.search.agent import MCTSAgent
    from monster_zoo.agents.search.tuned import FastTunedMCTS, TunedMCTS

    if request.name == "mcts" and request.version == UNTUNED_VERSION:
        return MCTSAgent(request.seed, game_id=request.game_id)
    tuned = FastTunedMCTS if request.name == "mcts-fast" else TunedMCTS
    return tuned(request.seed, game_id=request.game_id)


KIND = AgentKind(
    summary="information-set MCTS with rollouts, tuned per game",
    names=names,
    make=make,
    settings=AgentSettings(SETTINGS_KEY, read_search_config),
)
