"""Why an action is refused, worded once for every entry point (AEC env, batched engine,
learner env, vec env).

Each message names who acted (the agent, and the slot in batched adapters), the action (its
index and, when it is an index, its name in the current state), the rule it breaks (the
game's ``illegal_reason`` kernel) and the moves that are legal instead.

The input contract, the same in every adapter:

- one action is a Python or numpy integer, or an integer numpy array holding one value, in
  ``0..num_actions-1`` and legal in the current state; bools, floats (even ``3.0``),
  strings, complex numbers, lists and ``None`` are refused (``IllegalActionError``, a
  ``ValueError``), never converted;
- a batch of actions is a 1-d numpy array or a list/tuple of exactly ``num_envs`` such
  actions; any other shape (``(n, 1)`` included) is refused before any slot is looked at.

Legality is always checked against the adapter's private copy of the mask, never against an
array it handed to the caller.
"""

import numbers

import numpy as np

ILLEGAL_ACTION_CHOICES = ("raise", "penalize")


class IllegalActionError(ValueError):
    """An action the rules do not allow; the game is left exactly as it was."""


def action_index(action):
    """``int(action)`` for an integer action (Python, numpy scalar or 0-d array), else None."""
    if type(action) is int:  # the common case, before the slower checks (a bool is not of type int)
        return action
    if isinstance(action, (bool, np.bool_)):
        return None
    if isinstance(action, numbers.Integral):
        return int(action)
    if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
        return int(action.reshape(()))
    return None


def checked_action(
    spec, state: np.ndarray, mask: np.ndarray, who: str, action
) -> tuple[int | None, str | None]:
    """``(index, None)`` if ``action`` is legal for ``who`` (the seat on move in ``state``, legal
    actions ``mask``), else ``(None, the error message)``."""
    a = action_index(action)
    if a is None:
        shown = action.item() if isinstance(action, np.generic) else action
        return None, f"{who}: action {shown!r} is not an integer action index"
    if not 0 <= a < spec.num_actions:
        return None, f"{who}: action {a} is out of range 0..{spec.num_actions - 1}"
    if mask[a]:
        return a, None
    code = int(spec.illegal_reason(state, a))
    why = spec.reasons.get(code, "it is not among the legal moves")
    return None, (
        f"{who}: action {a} ({spec.action_to_str(a, state)}) is illegal: {why}; "
        f"legal now: {legal_summary(spec, state, mask)}"
    )


def refusal(spec, state: np.ndarray, mask: np.ndarray, who: str, action) -> str | None:
    """None if ``action`` is legal for ``who`` (the seat on move in ``state``, legal
    actions ``mask``), else the error message."""
    return checked_action(spec, state, mask, who, action)[1]


def batch_actions(actions, num_envs: int):
    """``actions`` as a 1-d array of ``num_envs`` entries (object dtype when they are not
    all numpy integers), or IllegalActionError naming the shape that was given instead."""
    if isinstance(actions, np.ndarray):
        if actions.shape == (num_envs,):
            return actions
        got = f"an array of shape {actions.shape}"
    elif isinstance(actions, (list, tuple)):
        if len(actions) == num_envs:
            column = np.empty(num_envs, object)
            for i, a in enumerate(actions):  # one by one: [[7], ...] stays a list, not a 2-d array
                column[i] = a
            return column
        got = f"a {type(actions).__name__} of {len(actions)}"
    else:
        got = repr(actions)
    raise IllegalActionError(
        f"actions: expected {num_envs} integer action indices (a 1-d array of shape "
        f"({num_envs},) or a list), got {got}"
    )


def batch_refusals(spec, states: np.ndarray, masks: np.ndarray, actions, who):
    """Check one action per slot: ``(actions as a fresh int64 array, refusals)``.

    ``refusals`` maps each slot whose action is refused to its message (``who(i)`` names the
    slot's actor); refused slots hold 0 in the returned array. ``masks`` must be the caller's
    private masks. A batch of the wrong shape raises IllegalActionError at once.
    """
    acts = batch_actions(actions, len(states))
    suspects = range(len(states))
    if np.issubdtype(acts.dtype, np.integer):  # the usual case, checked without a Python loop
        in_range = (acts >= 0) & (acts < spec.num_actions)
        legal = np.zeros(len(states), np.bool_)
        legal[in_range] = masks[np.flatnonzero(in_range), acts[in_range].astype(np.int64)] != 0
        suspects = np.flatnonzero(~legal)
    refused = {}
    for i in suspects:
        reason = refusal(spec, states[i], masks[i], who(int(i)), acts[i])
        if reason is not None:
            refused[int(i)] = reason
    clean = np.zeros(len(states), np.int64)
    if refused or not np.issubdtype(acts.dtype, np.integer):
        for i in range(len(states)):
            clean[i] = 0 if i in refused else action_index(acts[i])
    else:
        clean[:] = acts
    return clean, refused


def legal_summary(spec, state: np.ndarray, mask: np.ndarray, shown: int = 8) -> str:
    """The first legal actions of ``mask`` by name, for error messages."""
    legal = np.flatnonzero(mask).tolist()
    names = [spec.action_to_str(a, state) for a in legal[:shown]]
    more = f" and {len(legal) - shown} more" if len(legal) > shown else ""
    return ", ".join(names) + more


def check_illegal_action_option(value, where: str) -> str:
    """``value`` if it is a valid ``illegal_action`` choice, else ValueError listing them."""
    if value not in ILLEGAL_ACTION_CHOICES:
        listed = ", ".join(repr(c) for c in ILLEGAL_ACTION_CHOICES)
        raise ValueError(f"{where}: option illegal_action={value!r} is not valid; valid values: {listed}")
    return value
