"""The help a page shows beside a game: the game told for a player (``seeds/<game>/player_guide.md``:
how a turn goes, what each move does, how to win, in a few lines) and a short "how to play here"
saying what to click (the ``HOW_TO_PLAY`` text of the game's drawing module, which knows where its
moves are made). The full rules with the ids the tests cite stay in ``seeds/<game>/rules.md`` and
the documentation.
"""

import inspect
from functools import cache

from monster_zoo import envs
from monster_zoo.seeds import game_dir

from .refusals import not_found, shown

GUIDE_FILE = "player_guide.md"


@cache
def game_help(game_id: str) -> dict[str, str]:
    """``{"title", "rules", "how_to_play"}`` of ``game_id`` (``rules``: its player's guide, markdown);
    404 for a game that is not listed."""
    if game_id not in envs.available():
        raise not_found(f"unknown game {shown(game_id)}; available: {', '.join(envs.available())}")
    spec = envs.spec(game_id)
    guide = (game_dir(spec.name) / GUIDE_FILE).read_text(encoding="utf-8")
    how = getattr(inspect.getmodule(spec.draw), "HOW_TO_PLAY", "")
    return {"title": spec.title, "rules": guide, "how_to_play": how}
