"""The nth-legal agent, the test-only kind of agent: the template for a new kind (``kind.py`` says
what it is, ``agent.py`` plays, ``settings.py`` reads its per-game settings)."""
