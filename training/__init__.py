"""The trainers, each with its parts in its own package, above the environments, the agents and
the evaluation they use.

``ppo`` (self-play MaskablePPO with an opponent mix and a snapshot pool: ``monster-zoo train``),
``rllib`` (the same as a league on Ray RLlib: ``monster-zoo league``) and ``az`` (the learned
search by expert iteration: ``monster-zoo az``); beside them what every trainer shares:
``run_start`` (flags, run folder, metrics log), ``learner_eval`` (fast win rates against fixed
opponents) and ``report`` (the results table over seeds). Training needs the ``train`` extra
(``distributed`` for Ray). ``python -m monster_zoo.training`` runs the command line
(``monster_zoo.cli``). ``training/README.md`` has the commands and the results.
"""
