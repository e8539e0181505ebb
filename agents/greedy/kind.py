"""Every game's greedy baseline (``greedy`` / ``<game>-greedy-v<version>``): the greedy kernel the game
declares with its own code (``baselines={"greedy": Baseline(module, version)}``), played on the state."""

from monster_zoo.agents.kind import AgentKind, Request
from monster_zoo.envs.registry import declaration


def names(game_id: str) -> dict:
    """``greedy`` at the version its game declares; nothing for a game that declares no greedy kernel."""
    game = declaration(game_id)
    baseline = game.baselines.get("greedy") if game is not None else None
    return {"greedy": (baseline.version,)} if baseline is not None else {}


def make(request: Request):
    """A :class:`~monster_zoo.agents.greedy.agent.GreedyAgent` over the game's kernel."""
    from monster_zoo.agents.greedy.agent import GreedyAgent

    return GreedyAgent(request.seed, game_id=request.game_id)


KIND = AgentKind(
    summary="the game's greedy kernel on the state (what the seat may know only)", names=names, make=make
)
