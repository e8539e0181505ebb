"""``python -m monster_zoo.cli``: the monster-zoo command line (see ``monster_zoo.cli.main``)."""

from monster_zoo.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
