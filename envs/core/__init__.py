"""The game-independent core: kernel contract, generator, AEC adapter, batched and training engines."""

from .cache import CORE_DIR, guard_package

# First of all: a cache location for every kernel (even on a read-only install), and the core's
# own kernels (batched drivers, self-play stepping) checked against what they inline.
guard_package(CORE_DIR)
