"""The learned search's trainer, its parts together: ``trainer`` (the loop and its command line,
``python -m monster_zoo.training.az``), ``selfplay`` (games of the search on the batched engine),
``learner`` (the network's training step), ``warmstart`` (teacher games before the first round),
``evaluation`` (win rates during training) and ``strength`` (``az`` against other agents at equal
CPU time, and the budget that costs what an opponent's move does). ``training/AZ.md`` tells the
method and the results; the agent it trains is ``monster_zoo.agents.az``.

The expert's and the warm start's kernels inline the searches' and the games' kernels, so their
numba cache is cleared whenever those sources change (numba only watches the file a kernel is
defined in): guarded here, before any of them loads."""

from pathlib import Path

from monster_zoo.envs.core.cache import guard_package
from monster_zoo.seeds import SEEDS_DIR

guard_package(Path(__file__).resolve().parent, SEEDS_DIR)
