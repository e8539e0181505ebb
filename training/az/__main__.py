"""``python -m monster_zoo.training.az``: the learned search's trainer (``monster_zoo.training.az.trainer``)."""

from monster_zoo.training.az.trainer import main

if __name__ == "__main__":
    raise SystemExit(main())
