"""The self-play league on Ray RLlib, its parts together: ``league`` (the N-player league and its
command line: ``python -m monster_zoo.training.rllib``, ``monster-zoo league``), ``ppo`` (a stock
``PPOConfig`` with the self-play mapping for any game, and a trained module as an agent) and
``masking`` (the RLlib module that masks illegal actions)."""
