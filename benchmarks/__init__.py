"""Throughput benchmarks: our engines and AEC envs against PettingZoo and OpenSpiel anchors.

Run ``python -m monster_zoo.benchmarks.bench --help``; see ``benchmarks/README.md``.

The learned search's benchmarks compile timing loops that inline the search's and the games'
kernels, so their numba cache is cleared whenever those sources change (numba only watches the
file a kernel is defined in: a timing loop would otherwise keep timing the old search): guarded
here, before any of them loads.
"""

from pathlib import Path

from monster_zoo.envs.core.cache import guard_package
from monster_zoo.seeds import SEEDS_DIR

guard_package(Path(__file__).resolve().parent, SEEDS_DIR)
