"""MONSTArgh!: kernels, components and the AEC env declaration."""

from pathlib import Path

from monster_zoo.seeds import game_dir

from ..core.cache import guard_package

_HERE = Path(__file__).resolve().parent
guard_package(_HERE, game_dir("monstargh"))
