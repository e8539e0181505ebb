"""Test-only kinds of agent (``tests/conftest.py`` registers every ``<kind>/kind.py`` here), the
template for a new kind: the same file names as every kind of ``agents/``."""
