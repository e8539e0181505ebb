"""Language models at the table: the MCP server (``monster-zoo mcp``), the games it holds for its
clients, the harness's scoring of ``llm:<model>`` agents and its scripted test endpoint. The agent
itself, with its prompts, move reader and chat endpoint's client, is the kind :mod:`monster_zoo.agents.llm`.

A model sees a game only through a seat's JSON view (:mod:`monster_zoo.envs.core.json_view`), so it
knows exactly what the seat knows; its moves reach the game through the rules' own check.
"""
