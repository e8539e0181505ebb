"""The self-play PPO trainer, its parts together: ``trainer`` (MaskablePPO against an opponent mix
and a snapshot pool, its command line: ``python -m monster_zoo.training.ppo``, ``monster-zoo
train``), ``imitation`` (the warm start that clones a baseline's decisions) and ``placement_net``
(the placement policy in torch). The agent it trains is ``monster_zoo.agents.ppo``."""
