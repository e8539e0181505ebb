"""Monster Noughts, the test-only game: kernels, components and the declaration (the template for
a new game: the same file names as every shipped game)."""

from pathlib import Path

from monster_zoo.envs.core.cache import guard_package

_HERE = Path(__file__).resolve().parent
guard_package(_HERE)
