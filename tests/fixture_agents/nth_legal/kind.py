"""The nth-legal kind (``nth-legal`` / ``<game>-nth-legal-v1``), played only in games that declare
its settings: ``agents={"nth-legal": {"skip": n}}``."""

from monster_zoo.agents.kind import AgentKind, AgentSettings, Request

from .settings import SETTINGS_KEY, declared_settings, read_settings


def names(game_id: str) -> dict:
    """``nth-legal`` where the game declares its settings, else nothing."""
    return {"nth-legal": (1,)} if declared_settings(game_id) is not None else {}


def make(request: Request):
    """An :class:`~.agent.NthLegalAgent` with the game's ``skip``."""
    from .agent import NthLegalAgent

    return NthLegalAgent(request.seed, skip=declared_settings(request.game_id).skip)


KIND = AgentKind(
    summary="the legal action skip places after the first (tests only)",
    names=names,
    make=make,
    settings=AgentSettings(SETTINGS_KEY, read_settings),
)
