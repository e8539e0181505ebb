"""Language models at the table: the MCP server (``monster-zoo mcp``), the games it holds for its
clients, and the parts of the ``llm:<model>`` harness that are not the agent itself (prompts, the
move reader, the chat endpoint's client).

A model sees a game only through a seat's JSON view (:mod:`monster_zoo.envs.json_view`), so it
knows exactly what the seat knows; its moves reach the game through the rules' own check.
"""
