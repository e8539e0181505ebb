"""Evaluation above the agents: matches, tournaments, ratings, the leaderboard, plots and reports.

``match`` (seat-rotated, seed-paired games and win rates with Wilson intervals; ``monster-zoo-match``),
``tournament`` and ``ray_tournament`` (round robins with openskill ratings), ``leaderboard`` (every
game's baselines against each other: ``docs/leaderboard.md``), ``search_report`` (the tuned
search's strength and time per move), ``plots`` (win-rate matrices and learning curves) and
``arg_checks`` (the checks of command-line arguments that the evaluators and the trainers share).
It imports the environments and the agents, never the trainers (``monster_zoo.training`` imports
it) nor the command line.
"""
