"""The ``llm:<model>`` kind: a chat model at an OpenAI-compatible endpoint (``--base-url``, or
``MONSTER_ZOO_LLM_BASE_URL``), any game, any seat. Nothing is listed by short name: the model is named
after the prefix, as a model file is after ``ppo:``."""

from monster_zoo.agents.kind import AgentKind, ModelPrefix, Request


def names(game_id: str) -> dict:
    """No short names: the kind answers to ``llm:<model>`` only."""
    return {}


def read(request: Request):
    """An :class:`~monster_zoo.agents.llm.agent.LlmAgent` for ``request.path``, the model's name, with
    the ``fallback`` policy: a game played outside the harness (a terminal, the web app, an MCP
    opponent) has no way to forfeit one seat, so a random legal move stands in, counted."""
    from dataclasses import replace

    from monster_zoo.agents.llm.agent import FALLBACK, LlmSettings, make

    settings = replace(LlmSettings.from_environment(), illegal_policy=FALLBACK)
    return make(request.game_id, request.path or "", request.seed, request.options, settings)


KIND = AgentKind(
    summary="a language model at an OpenAI-compatible chat endpoint, any game",
    names=names,
    models=(ModelPrefix("llm:", "llm:<model> (a chat model at --base-url)", read, reads_file=False),),
)
