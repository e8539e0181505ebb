"""Declared constructor options with validation that names the valid values."""

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .contract import REWARD_SCORE, REWARD_WIN


@dataclass(frozen=True)
class Option:
    """One constructor option of a game.

    ``choices`` lists the accepted values; when it is None, ``check`` validates
    and ``valid`` describes the accepted values in words for error messages.
    """

    name: str
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], bool] | None = None
    valid: str = ""

    def validate(self, value: Any, game: str) -> Any:
        """Return ``value`` if acceptable, else raise ValueError listing valid values."""
        if self.choices is not None:
            if any(_same_kind(value, c) and value == c for c in self.choices):
                return value
            listed = ", ".join(repr(c) for c in self.choices)
            raise ValueError(f"{game}: option {self.name}={value!r} is not valid; valid values: {listed}")
        if self.check is not None and not self.check(value):
            raise ValueError(f"{game}: option {self.name}={value!r} is not valid; expected {self.valid}")
        return value


def _same_kind(value: Any, choice: Any) -> bool:
    """Whether ``value`` may equal ``choice``: 3.0 is no player count and True no 1."""
    import numbers

    if isinstance(choice, bool) or isinstance(value, bool):
        return isinstance(choice, bool) and isinstance(value, bool)
    if isinstance(choice, numbers.Integral):
        return isinstance(value, numbers.Integral)
    return type(value) is type(choice)


def int_between(low: int, high: int) -> Callable[[Any], bool]:
    """A check accepting a Python or numpy integer from ``low`` to ``high`` (bools excluded)."""
    import numbers

    def check(value: Any) -> bool:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool) and low <= value <= high

    return check


# The state is one int32 vector: a step limit must fit its header slot, and the step counter
# that is compared with it must never wrap.
MAX_STEPS_LIMIT = 2**31 - 1


def max_steps_option(default: int) -> Option:
    """The ``max_steps`` option (ruling C4): a positive integer the int32 header can hold."""
    return Option(
        "max_steps",
        default,
        "Actions before the game is truncated with reward 0 (ruling C4).",
        check=int_between(1, MAX_STEPS_LIMIT),
        valid=f"an integer from 1 to {MAX_STEPS_LIMIT} (the state holds it as int32)",
    )


COMMON_OPTIONS = (
    Option(
        "reward",
        "win",
        "'win': +1/k to the k winners, -1/(n-k) to the others (ruling C3); "
        "'score': final score minus the mean final score.",
        choices=("win", "score"),
    ),
    Option(
        "illegal_action",
        "raise",
        "'raise': an illegal action raises ValueError and changes nothing; "
        "'penalize': it ends the game with -1 for the offender and 0 for the others.",
        choices=("raise", "penalize"),
    ),
    Option(
        "observation",
        "dict",
        "'dict': observe() gives {'observation': Box, 'action_mask': Box(int8)}; "
        "'flat': observe() gives the Box alone and infos[agent]['action_mask'] holds the mask (for "
        "wrappers and libraries that expect a Box observation).",
        choices=("dict", "flat"),
    ),
    Option(
        "render_mode",
        None,
        "None, 'ansi' (render() returns text), 'human' (render() prints) or "
        "'rgb_array' (render() returns the public picture as an H x W x 3 uint8 array; render extra).",
        choices=(None, "ansi", "human", "rgb_array"),
    ),
)


def common_config(options: dict[str, Any], *extra: int) -> np.ndarray:
    """The kernel config vector from validated options: the entries every game reads
    (``num_players``, ``max_steps``, the reward mode; see ``contract.C_*``), then the game's own
    ``extra`` entries in the order its kernels read them."""
    reward = REWARD_WIN if options["reward"] == "win" else REWARD_SCORE
    return np.array([options["num_players"], options["max_steps"], reward, *extra], dtype=np.int64)


def resolve_options(game: str, declared: Sequence[Option], given: dict[str, Any]) -> dict[str, Any]:
    """Merge ``given`` over the defaults of ``declared``, refusing unknown names and bad values."""
    by_name = {o.name: o for o in declared}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise TypeError(
            f"{game}: unknown option(s) {', '.join(unknown)}; valid options: {', '.join(by_name)}"
        )
    resolved = {}
    for name, opt in by_name.items():
        resolved[name] = opt.validate(given[name], game) if name in given else opt.default
    return resolved


def parse_option(text: str):
    """``key=value`` into a pair; integers become ints, ``true``/``false`` bools and ``none``
    None (case-insensitive), anything else stays a string."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"option {text!r} is not of the form key=value")
    literals = {"true": True, "false": False, "none": None}
    if value.strip().lower() in literals:
        return key, literals[value.strip().lower()]
    try:
        return key, int(value)
    except ValueError:
        return key, value
