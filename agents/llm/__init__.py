"""The ``llm:<model>`` agent kind: a language model behind an OpenAI-compatible chat endpoint plays a
seat, seeing only that seat's JSON view (:mod:`monster_zoo.envs.core.json_view`).

:func:`make` builds one (what ``kind.py`` hands the registry, and what the tests call); ``prompts``
builds what the model reads, ``moves`` reads its answer, ``chat`` talks to the endpoint.
"""

from .agent import LlmAgent, LlmSettings, Usage, make

__all__ = ["LlmAgent", "LlmSettings", "Usage", "make"]
