"""The uniform random baseline (``random`` / ``<game>-random-v1``): any game, any seat."""

from monster_zoo.agents.kind import AgentKind, Request


def names(game_id: str) -> dict:
    """One name, one version, in every game."""
    return {"random": (1,)}


def make(request: Request):
    """A :class:`~monster_zoo.agents.random.agent.RandomAgent` seeded ``request.seed``."""
    from monster_zoo.agents.random.agent import RandomAgent

    return RandomAgent(request.seed)


KIND = AgentKind(summary="uniformly random legal moves, any game", names=names, make=make)
