"""Games used only by the tests: each sub-package declares ``GAME`` in its ``game.py`` exactly as a
shipped game does, and ``tests/conftest.py`` registers it unlisted, so the conformance suite proves
that a game declared once needs no line anywhere else."""
