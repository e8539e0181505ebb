"""The game-independent core: kernel contract, generator, AEC adapter, batched and training engines."""
from .cache import CORE_DIR, clear_stale_cache, core_kernel_sources, kernel_sources

# The core's own kernels (batched drivers, self-play stepping) inline the generator.
clear_stale_cache(CORE_DIR, kernel_sources(CORE_DIR) + core_kernel_sources())
