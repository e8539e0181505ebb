"""``python -m monster_zoo.training.ppo``: the self-play PPO trainer (``monster_zoo.training.ppo.trainer``)."""

from monster_zoo.training.ppo.trainer import main

if __name__ == "__main__":
    raise SystemExit(main())
