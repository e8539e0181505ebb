"""Replaying match records (``monster_zoo.envs.core.records``) through the AEC env, and their
pictures: the replay viewer page and GIF animations.

    record = read_record("game.json")
    write_html(record, "game.html")      # what ``monster-zoo replay game.json --html game.html`` does

Every replay checks the record step by step (seat, legality, name of every action, the
result) and refuses one that does not fit with :class:`~monster_zoo.envs.core.records.RecordError`.
Pages and GIFs are written atomically (:mod:`monster_zoo.envs.core.safe_writing`).
"""

from collections.abc import Iterator, Sequence
from pathlib import Path

from .core.move_words import named_with_words
from .core.picture import RENDER_EXTRA
from .core.records import (
    RecordError,
    RecordWriter,
    check_result,
    check_step,
    game_result,
    read_record,
    validate_record,
)
from .core.safe_writing import open_atomic, write_atomic
from .registry import available, make, registered

PUBLIC = "public"
RECORD_NOTE = (
    "A match record is a full-information artefact: its seed and actions determine every hidden "
    "card. The pictures here are filtered: each seat's view shows only what that seat could see, "
    "the public view what no seat hid, and each action is named as the chosen view knew it."
)


def load(record: str | Path | dict, allow_other_version: bool = False) -> dict:
    """A checked record from a path or an already loaded dict."""
    if isinstance(record, dict):
        return validate_record(record, allow_other_version=allow_other_version)
    return read_record(record, allow_other_version)


def game_env(record: dict, where: str = "record"):
    """A fresh AEC env of the record's game and options; RecordError if either is unknown."""
    if not registered(record["game"]):
        raise RecordError(f"{where}: unknown game {record['game']!r}; available: {', '.join(available())}")
    try:
        env = make(record["game"], **record["options"])
    except (TypeError, ValueError) as err:
        raise RecordError(f"{where}: bad options for {record['game']}: {err}") from None
    seats = len(env.unwrapped.possible_agents)
    if "agents" in record and len(record["agents"]) != seats:
        raise RecordError(
            f"{where}: 'agents' names {len(record['agents'])} seats but {record['game']} with these "
            f"options seats {seats}"
        )
    return env


def replay(record: dict, where: str = "record") -> Iterator:
    """Replay ``record`` through its AEC env, yielding the raw env at the start and after every
    action (the same object, advanced: copy what you keep). Each action is checked first."""
    env = game_env(record, where)
    raw = env.unwrapped
    env.reset(seed=record["seed"])
    yield raw
    for i, step in enumerate(record["actions"]):
        if any(raw.terminations.values()) or any(raw.truncations.values()):
            raise RecordError(f"{where}: action {i} ({step['name']!r}) comes after the end of the game")
        check_step(where, i, step, raw)
        env.step(step["action"])
        yield raw
    check_result(where, record, game_result(raw))


def build_record(
    game_id: str, options: dict, seed: int, actions: Sequence[int], agents: Sequence[str] | None = None
) -> dict:
    """The record of a game given by its actions (e.g. kept by a tournament): replayed once
    through the AEC env to name every action and read the result."""
    env = game_env({"game": game_id, "options": options})
    writer = RecordWriter(env, seed, agents)
    env.reset(seed=seed)
    for i, action in enumerate(actions):
        if int(action) not in env.unwrapped.legal_actions():
            raise RecordError(f"{game_id} seed {seed}: action {i} ({action}) is illegal there")
        writer.note(action)
        env.step(int(action))
    return writer.finish()


def views(record: dict) -> list[str]:
    """The views of a replay: the public one, then each seat's."""
    return [PUBLIC] + [f"player_{s}" for s in range(len(record["agents"]))]


def _seat(view: str) -> int | None:
    return None if view == PUBLIC else int(view.split("_")[1])


def pictures(record: dict, where: str = "record", only: Sequence[str] | None = None):
    """Every step's SVG per view, every action's name per view (with the game's words for it where
    the view knows the move, :mod:`~monster_zoo.envs.core.move_words`) and the public scores per step:
    ``(svgs[view][step], names[view][action], scores[step][seat])``."""
    chosen = list(only) if only is not None else views(record)
    svgs = {v: [] for v in chosen}
    names = {v: [] for v in chosen}
    scores = []
    actions = record["actions"]
    for k, raw in enumerate(replay(record, where)):
        for v in chosen:
            svgs[v].append(raw.draw(_seat(v)))
            if k < len(actions):  # the env holds the state action k is taken in
                names[v].append(named_with_words(raw.spec, raw.engine_state, actions[k]["action"], _seat(v)))
        scores.append(raw.spec.public_scores(raw.engine_state))
    return svgs, names, scores


def write_html(record: dict, path: str | Path, where: str = "record") -> Path:
    """Write the replay viewer page of ``record`` to ``path`` (one self-contained file)."""
    from .core.aec import RENDER_FPS
    from .core.viewer import page

    svgs, names, scores = pictures(record, where)
    spec = game_env(record, where).unwrapped.spec
    agents = ", ".join(f"player_{s}: {a}" for s, a in enumerate(record["agents"]))
    returns = ", ".join(f"{r:+g}" for r in record["result"]["returns"])
    meta = (
        f"{record['game']} · seed {record['seed']} · {len(record['actions'])} actions · {agents} · "
        f"returns {returns} · monster-zoo {record['library_version']}"
    )
    html = page(
        f"{spec.title} replay",
        meta,
        RECORD_NOTE,
        views(record),
        svgs,
        names,
        scores,
        spec.score_label,
        RENDER_FPS,
    )
    return write_atomic(path, html)


def require_gif_support() -> None:
    """ImportError naming the render extra unless Pillow and resvg-py (what a GIF needs) are installed."""
    try:
        import PIL.Image  # noqa: F401
        import resvg_py  # noqa: F401
    except ImportError as err:
        raise ImportError(f"rendering pictures needs the render extra: {RENDER_EXTRA}") from err


def write_gif(
    record: dict,
    path: str | Path,
    view: str = PUBLIC,
    where: str = "record",
    fps: float | None = None,
    zoom: float = 0.75,
) -> Path:
    """Write an animated GIF of ``record`` from ``view`` (``public`` or ``player_N``) with Pillow."""
    require_gif_support()
    from PIL import Image

    from .core.aec import RENDER_FPS
    from .core.picture import rasterize

    if view not in views(record):
        raise ValueError(f"unknown view {view!r}; views of this record: {', '.join(views(record))}")
    svgs, _, _ = pictures(record, where, only=[view])
    frames = [Image.fromarray(rasterize(svg, zoom)) for svg in svgs[view]]
    with open_atomic(path) as stream:
        frames[0].save(
            stream,
            format="GIF",
            save_all=True,
            append_images=frames[1:],
            duration=int(1000 / (fps or RENDER_FPS)),
            loop=0,
            optimize=True,
        )
    return Path(path)
