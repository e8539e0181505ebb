"""A person at the terminal (``monster-zoo play`` seats one): made by the command that reads the
person's moves, never by name, so it answers to none."""

from monster_zoo.agents.kind import AgentKind


def names(game_id: str) -> dict:
    """No name: the registry never makes a person."""
    return {}


KIND = AgentKind(
    summary="a person typing moves at the terminal (monster_zoo.agents.human.agent)", names=names
)
