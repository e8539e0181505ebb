"""Checks of command-line arguments that run before any work starts.

A bad value must be refused with exit code 2 and a message, before a run directory is made
or a tournament is played, so nothing is left behind and nothing is lost.
"""

import re
from collections.abc import Iterable
from pathlib import Path

from monster_zoo.envs.core.safe_writing import folder_problem

# A run or experiment name becomes one folder name: no separators, no '..', nothing hidden.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def plain_name(label: str, value: str) -> str | None:
    """None if ``value`` can name one folder inside another, else the reason."""
    if not _PLAIN_NAME.fullmatch(value) or ".." in value:
        return (
            f"{label} {value!r} must be a plain name (letters, digits, '.', '_', '-'; starting with a letter "
            f"or digit; no '..'), so the run stays inside its folder"
        )
    return None


def writable_dir(label: str, path: Path) -> str | None:
    """None if ``path`` is a folder or can be made one (its first existing ancestor is a writable
    folder), else the reason (:func:`monster_zoo.envs.core.safe_writing.folder_problem`)."""
    return folder_problem(label, path)


def int_list(label: str, text: str) -> tuple[list[int] | None, str | None]:
    """``"256,256"`` -> ([256, 256], None); a list of positive integers or the reason it is not one."""
    items = text.split(",")
    if not text or not all(item.strip().isdigit() and int(item) > 0 for item in items):
        return None, f"{label} {text!r} must be comma-separated positive integers, e.g. 256,256"
    return [int(item) for item in items], None


def policy_size_problem(
    label: str, game_id: str, hidden_sizes: list[int], item_sizes: list[int] | None = None
) -> str | None:
    """None if a policy of ``hidden_sizes`` (and ``item_sizes``, for a placement policy) for ``game_id``
    fits what a policy file may hold (the caps of :mod:`monster_zoo.agents.model_file`), else the
    reason: checked before training, so a run never ends with a model it cannot save."""
    from monster_zoo import envs
    from monster_zoo.agents.model_file import ModelFileError
    from monster_zoo.agents.ppo.policy_file import make_metadata

    if not envs.registry.registered(game_id):
        return None  # the game's own check names it
    try:
        make_metadata(game_id, None, hidden_sizes, "tanh", "size check", item_sizes=item_sizes)
    except ModelFileError as err:
        return f"{label} {','.join(map(str, hidden_sizes))}: {str(err).split(': ', 1)[-1]}"
    return None


def seed_argument(text: str) -> int:
    """argparse ``type`` of ``--seed``: a non-negative integer, as every env's reset takes
    (:mod:`monster_zoo.envs.core.inputs`), so a bad seed exits 2 before any game is played."""
    import argparse

    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer")
    return int(text)


def out_of_bounds(checks: Iterable[tuple[str, object, bool, str]]) -> str | None:
    """The first of ``(label, value, ok, expected)`` whose ``ok`` is False, as a message."""
    for label, value, ok, expected in checks:
        if not ok:
            return f"{label} must be {expected}, got {value!r}"
    return None


def first_problem(*problems: str | None) -> str | None:
    """The first message that is not None."""
    return next((p for p in problems if p is not None), None)
