"""Training and evaluation on top of the environments and agents, and the ``monster-zoo`` command line.

``cli`` (``monster-zoo`` / ``python -m monster_zoo.training``: play, train, league, evaluate,
leaderboard, bench, replay, export-model), ``selfplay_ppo`` (self-play MaskablePPO with an
opponent mix and a snapshot pool), ``rllib_league`` (the same on Ray RLlib), ``tournament`` and
``ray_tournament`` (round robins with ratings), ``leaderboard``, ``report`` and ``plots``.
Training needs the ``train`` extra (``distributed`` for Ray), ratings and plots the ``eval``
extra; ``play`` runs on the core dependencies alone. ``training/README.md`` has the commands and
the results.
"""
