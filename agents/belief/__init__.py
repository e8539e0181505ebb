"""Beliefs over hidden cards: a weighted set of possible deals per seat, built from what the seat
saw (its observations and every player's moves) and sampled by the searches in place of uniform
redeals. The kernels are in :mod:`monster_zoo.agents.belief.kernels`, the per-seat tracker in
:mod:`monster_zoo.agents.belief.tracker`."""

# Its kernels inline the games' kernels and read their tables, and numba watches only the file a
# kernel is defined in: the cache is cleared whenever those sources change, before any kernel loads.
from pathlib import Path

from monster_zoo.envs.core.cache import guard_package
from monster_zoo.seeds import SEEDS_DIR

guard_package(Path(__file__).resolve().parent, SEEDS_DIR)
