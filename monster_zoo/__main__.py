"""``python -m monster_zoo``: the monster-zoo command line (see ``monster_zoo.training.cli``)."""
from .training.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
