"""``python -m monster_zoo.training``: the monster-zoo command line (``monster_zoo.cli.main``), by the
name the Makefile and the README give it; an entry point only, imported by nothing."""

from monster_zoo.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
