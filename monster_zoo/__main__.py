"""``python -m monster_zoo``: the monster-zoo command line (see ``monster_zoo.cli.main``)."""

from .cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
