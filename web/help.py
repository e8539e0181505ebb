"""The help a page shows beside a game: its rules in our words (``seeds/<game>/rules.md``, the
rules the kernels implement, with their ids) and a short "how to play here" saying what to click
(the ``HOW_TO_PLAY`` text of the game's drawing module, which knows where its moves are made).
"""

import inspect
from functools import cache

from monster_zoo import envs
from monster_zoo.seeds import game_dir

from .refusals import not_found, shown


@cache
def game_help(game_id: str) -> dict[str, str]:
    """``{"title", "rules", "how_to_play"}`` of ``game_id``; 404 for a game that is not listed."""
    if game_id not in envs.available():
        raise not_found(f"unknown game {shown(game_id)}; available: {', '.join(envs.available())}")
    spec = envs.spec(game_id)
    rules = (game_dir(spec.name) / "rules.md").read_text(encoding="utf-8")
    how = getattr(inspect.getmodule(spec.draw), "HOW_TO_PLAY", "")
    return {"title": spec.title, "rules": rules, "how_to_play": how}
