"""Checks of command-line arguments that run before any work starts.

A bad value must be refused with exit code 2 and a message, before a run directory is made
or a tournament is played, so nothing is left behind and nothing is lost.
"""
import os
import re
from pathlib import Path
from typing import Iterable, List, Optional, Tuple

# A run or experiment name becomes one folder name: no separators, no '..', nothing hidden.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def plain_name(label: str, value: str) -> Optional[str]:
    """None if ``value`` can name one folder inside another, else the reason."""
    if not _PLAIN_NAME.fullmatch(value) or ".." in value:
        return (f"{label} {value!r} must be a plain name (letters, digits, '.', '_', '-'; starting with a letter "
                f"or digit; no '..'), so the run stays inside its folder")
    return None


def writable_dir(label: str, path: Path) -> Optional[str]:
    """None if ``path`` is a folder or can be made one (its first existing ancestor is a writable
    folder), else the reason."""
    path = Path(path)
    if path.exists():
        if not path.is_dir():
            return f"{label} {path} exists and is not a folder"
        return None if os.access(path, os.W_OK) else f"{label} {path} is not writable"
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        return f"{label} {path} cannot be made: {parent} is not a folder"
    return None if os.access(parent, os.W_OK) else f"{label} {path} cannot be made: {parent} is not writable"


def int_list(label: str, text: str) -> Tuple[Optional[List[int]], Optional[str]]:
    """``"256,256"`` -> ([256, 256], None); a list of positive integers or the reason it is not one."""
    items = text.split(",")
    if not text or not all(item.strip().isdigit() and int(item) > 0 for item in items):
        return None, f"{label} {text!r} must be comma-separated positive integers, e.g. 256,256"
    return [int(item) for item in items], None


def seed_argument(text: str) -> int:
    """argparse ``type`` of ``--seed``: a non-negative integer, as every env's reset takes
    (:mod:`monster_zoo.envs.core.inputs`), so a bad seed exits 2 before any game is played."""
    import argparse

    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer")
    return int(text)


def out_of_bounds(checks: Iterable[Tuple[str, object, bool, str]]) -> Optional[str]:
    """The first of ``(label, value, ok, expected)`` whose ``ok`` is False, as a message."""
    for label, value, ok, expected in checks:
        if not ok:
            return f"{label} must be {expected}, got {value!r}"
    return None


def first_problem(*problems: Optional[str]) -> Optional[str]:
    """The first message that is not None."""
    return next((p for p in problems if p is not None), None)
