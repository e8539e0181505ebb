"""``python -m monster_zoo.training.device_ppo``: the array-side self-play PPO trainer."""

import sys

from monster_zoo.training.device_ppo.trainer import main

sys.exit(main())
