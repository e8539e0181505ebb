"""Seeds, batch sizes and reset options, checked alike by every entry point.

The contract (the AEC env, the batched engine, the learner env and the SB3 vec env):

- a seed is ``None`` (fresh entropy) or a non-negative integer (Python or numpy, of any
  size, as gymnasium accepts). Seeds are reduced modulo ``2**63`` (:data:`SEED_MODULUS`)
  so every adapter can keep them in ``int64``: ``reset(seed=2**63 + 5)`` plays the game of
  ``reset(seed=5)`` in every adapter. Bools, floats, strings and negative numbers are refused.
- ``num_envs`` is an integer ``>= 1`` (bools and floats refused).
- ``reset(options=...)`` takes ``None``, an empty dict (gymnasium's ``check_env`` passes one)
  or a dict of the reset options an adapter declares; none of ours declares any, so every
  adapter refuses any key. The AEC env alone also takes the one key of PettingZoo's probe
  (:data:`PETTINGZOO_PROBE`): its ``api_test`` and ``parallel_test`` call
  ``reset(seed=0, options={"options": 1})`` on every env they check, to see that ``reset``
  has the keyword, and the key means nothing to any env.

Every refusal is a ``ValueError`` whose message names the entry point, the value and what is valid.
"""

import numbers
from collections.abc import Sequence
from typing import Literal, overload

import numpy as np

from .rng import SEED_MASK

SEED_MODULUS = SEED_MASK + 1
VALID_SEEDS = "None or a non-negative integer (reduced modulo 2**63)"
# The reset option PettingZoo's own api_test and parallel_test pass to every env they check.
PETTINGZOO_PROBE = "options"


def _is_integer(value) -> bool:
    """A Python or numpy integer that is not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


@overload
def check_seed(seed, where: str, allow_none: Literal[False]) -> int: ...


@overload
def check_seed(seed, where: str, allow_none: bool = True) -> int | None: ...


def check_seed(seed, where: str, allow_none: bool = True) -> int | None:
    """``seed`` reduced modulo 2**63 (None stays None where allowed), else ValueError."""
    if seed is None and allow_none:
        return None
    if not _is_integer(seed) or seed < 0:
        valid = VALID_SEEDS if allow_none else VALID_SEEDS.replace("None or a", "a")
        raise ValueError(f"{where}: seed {seed!r} is not valid; expected {valid}")
    return int(seed) & SEED_MASK


def check_num_envs(num_envs, where: str) -> int:
    """``num_envs`` as an int if it is an integer >= 1, else ValueError."""
    if not _is_integer(num_envs) or num_envs < 1:
        raise ValueError(f"{where}: num_envs={num_envs!r} is not valid; expected an integer >= 1")
    return int(num_envs)


def check_reset_options(options, where: str, valid: Sequence[str] = (), taken: Sequence[str] = ()) -> dict:
    """``options`` as a dict of its ``valid`` keys if it is None or a dict whose keys are all in
    ``valid`` or ``taken`` (keys accepted and dropped, e.g. :data:`PETTINGZOO_PROBE`), else ValueError."""
    listed = ", ".join(valid) if valid else "none (pass options=None)"
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(
            f"{where}: reset options {options!r} are not valid; expected None or a dict; "
            f"valid reset options: {listed}"
        )
    unknown = sorted(map(repr, set(options) - set(valid) - set(taken)))
    if unknown:
        raise ValueError(
            f"{where}: unknown reset option(s) {', '.join(unknown)}; valid reset options: {listed}"
        )
    return {k: v for k, v in options.items() if k in valid}
