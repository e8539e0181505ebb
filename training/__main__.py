"""``python -m monster_zoo.training``: the monster-zoo command line (see ``monster_zoo.training.cli``)."""
from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
