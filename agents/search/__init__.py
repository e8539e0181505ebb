"""The rollout search kind of agent (``mcts``, ``mcts-fast``, the untuned ``<game>-mcts-v1``): its
kernels inline the engines' kernels and read their tables, so their numba cache is cleared
whenever those sources change (numba only watches the file a kernel is defined in) or a cache
file is damaged: guarded here, before any of them loads.
"""

from pathlib import Path

from monster_zoo.envs.core.cache import guard_package
from monster_zoo.seeds import SEEDS_DIR

guard_package(Path(__file__).resolve().parent, SEEDS_DIR)
