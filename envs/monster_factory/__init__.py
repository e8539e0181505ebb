"""Monster Factory: kernels, components and the AEC env declaration."""
from pathlib import Path

from monster_zoo.seeds import game_dir

from ..core.cache import clear_stale_cache, core_kernel_sources

_HERE = Path(__file__).resolve().parent
clear_stale_cache(_HERE, [_HERE, *core_kernel_sources(), game_dir("monster_factory")])
