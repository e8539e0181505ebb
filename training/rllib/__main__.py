"""``python -m monster_zoo.training.rllib``: the RLlib self-play league (``monster_zoo.training.rllib.league``)."""

from monster_zoo.training.rllib.league import main

if __name__ == "__main__":
    raise SystemExit(main())
