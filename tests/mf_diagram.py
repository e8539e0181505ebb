"""Build Monster Factory states from text diagrams, so a rules test reads like a rulebook picture.

A monster diagram is a grid of tile tokens separated by spaces, north up. A token gives a tile's
edges as they lie on the table, in the order N E S W (``0`` blank, ``1`` thin, ``2`` thick),
with a trailing ``e`` when the tile shows an eye; ``....`` is an empty cell. For example::

    .... 0020 ....
    0200 2202 0002

is a thick-edged T: three tiles in a row joined thick to thick, and one above the middle tile
joined to it thick to thick. Tiles are laid in reading order (left to right, top to bottom), so
the first token is the monster's tile 0 at (0, 0) and the indices ``t`` of the actions count in
reading order. The tile kind and orientation of each token are looked up in the component tables.

The state starts from ``rules.init_state`` (so every field has a valid value) and is then
overwritten field by field through the offsets of ``layout.py``.
"""
from typing import Dict, Iterable, Optional, Sequence, Tuple

import numpy as np

from envs.core.contract import H_CURRENT, H_STEPS, REWARD_SCORE, REWARD_WIN
from envs.core.rng import make_rng
from envs.monster_factory import rules
from envs.monster_factory.actions import NUM_ACTIONS, action_to_str, place_action
from envs.monster_factory.components import (EDGES, INVENTORY, KIND_EYE, KIND_NAMES, NUM_KINDS,
                                             NUM_ROTATIONS, SIDE_NAMES, kind)
from envs.monster_factory.layout import (CURRENT_MONSTER, DISCARDED, FIRST_PLAYER, HAND, MON_DONE,
                                         MON_EYES, MON_ORDINAL, MON_OWNER, MON_SIZE, NUM_MONSTERS,
                                         NUM_PLACED, PH_PLACE, PH_START, PHASE, SCORE, STATE_SIZE,
                                         SUPPLY, TILE_KIND, TILE_MONSTER, TILE_ROT, TILE_X, TILE_Y)

SIDE = {name: i for i, name in enumerate(SIDE_NAMES)}


def orientation(token: str) -> Tuple[int, int]:
    """``(kind, rotation)`` of a tile token such as ``"0220"`` or ``"2000e"`` (edges as laid)."""
    edges = [int(ch) for ch in token[:4]]
    eye = token.endswith("e")
    for k in range(NUM_KINDS):
        if bool(KIND_EYE[k]) != eye:
            continue
        for r in range(NUM_ROTATIONS):
            if list(EDGES[k, r]) == edges:
                return k, r
    raise ValueError(f"no tile kind shows edges {token!r}")


def parse_monster(diagram: str):
    """``[(x, y, kind, rotation), ...]`` in reading order, relative to the first tile."""
    tiles = []
    for y, line in enumerate(l for l in diagram.strip("\n").splitlines() if l.strip()):
        for x, tok in enumerate(line.split()):
            if tok.strip(".") == "":
                continue
            k, r = orientation(tok)
            tiles.append((x, y, k, r))
    if not tiles:
        raise ValueError("a monster needs at least one tile")
    x0, y0 = tiles[0][:2]
    return [(x - x0, y - y0, k, r) for x, y, k, r in tiles]


def state_from_monsters(monsters: Sequence[Tuple[int, str, bool]], num_players: int = 2,
                        hand: Optional[str] = None, current: int = 0, first_player: int = 0,
                        scores: Optional[Dict[int, int]] = None, supply: Optional[Dict[str, int]] = None,
                        reward: str = "win", max_steps: int = 100) -> np.ndarray:
    """A state in the place phase holding ``monsters``: ``(owner, diagram, complete)`` each.

    A seat's first entry is its first monster (slot = seat), later ones its minions in order.
    ``hand`` is the kind in hand (e.g. ``"2000e"``); the supply holds the rest of the inventory
    unless ``supply`` gives it as ``{kind name: count}``. Scores are 0 unless given: the
    diagram's complete monsters are not scored by this builder.
    """
    state = np.zeros(STATE_SIZE, np.int32)
    reward_mode = REWARD_WIN if reward == "win" else REWARD_SCORE
    config = np.array([num_players, max_steps, reward_mode, rules.START_CHOOSE], np.int64)
    rules.init_state(state, config, make_rng(0))
    state[FIRST_PLAYER] = first_player
    used = np.zeros(NUM_KINDS, np.int64)
    seen = set()
    slot = 0
    for index, (owner, diagram, complete) in enumerate(monsters):
        if owner in seen:
            m = int(state[NUM_MONSTERS])
            state[NUM_MONSTERS] = m + 1
        else:
            m = owner
            seen.add(owner)
        state[MON_OWNER + m] = owner
        state[MON_ORDINAL + m] = sum(1 for o, _, _ in monsters[:index] if o == owner)
        state[MON_DONE + m] = int(complete)
        if not complete:
            if state[CURRENT_MONSTER + owner] >= 0:
                raise ValueError(f"seat {owner} has two monsters in progress")
            state[CURRENT_MONSTER + owner] = m
        for x, y, k, r in parse_monster(diagram):
            state[TILE_MONSTER + slot] = m
            state[TILE_X + slot], state[TILE_Y + slot] = x, y
            state[TILE_KIND + slot], state[TILE_ROT + slot] = k, r
            state[MON_SIZE + m] += 1
            state[MON_EYES + m] += KIND_EYE[k]
            used[k] += 1
            slot += 1
    if len(seen) != num_players:
        raise ValueError(f"every one of the {num_players} seats needs a first monster")
    state[NUM_PLACED] = slot
    state[HAND] = -1 if hand is None else kind(hand)
    if hand is not None:
        used[kind(hand)] += 1
    if supply is None:
        left = INVENTORY - used
        if (left < 0).any():
            raise ValueError(f"the diagram uses more tiles than exist: "
                             f"{[KIND_NAMES[k] for k in np.flatnonzero(left < 0)]}")
    else:
        left = np.zeros(NUM_KINDS, np.int64)
        for name, count in supply.items():
            left[kind(name)] = count
    state[SUPPLY:SUPPLY + NUM_KINDS] = left
    state[DISCARDED:DISCARDED + NUM_KINDS] = 0
    for p, s in (scores or {}).items():
        state[SCORE + p] = s
    state[PHASE] = PH_PLACE if hand is not None else PH_START
    state[H_CURRENT] = current
    state[H_STEPS] = 0
    return state


def rotation_for(state: np.ndarray, edges: str) -> int:
    """The lowest rotation in which the tile in hand shows ``edges`` (N E S W)."""
    k = int(state[HAND])
    want = [int(ch) for ch in edges]
    for r in range(NUM_ROTATIONS):
        if list(EDGES[k, r]) == want:
            return r
    raise ValueError(f"the tile in hand ({KIND_NAMES[k]}) cannot show edges {edges}")


def place(seat: int, tile: int, side: str, state: np.ndarray, edges: str) -> int:
    """The action laying the tile in hand, showing ``edges``, beside ``seat``'s tile ``tile`` on ``side``."""
    return place_action(seat, tile, SIDE[side], rotation_for(state, edges))


def reason(state: np.ndarray, action: int) -> int:
    """``rules.illegal_reason`` of ``action``."""
    return int(rules.illegal_reason(state, action))


def legal_actions(state: np.ndarray) -> Iterable[int]:
    """Indices of the legal actions of the seat on move."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask(state, mask)
    return np.flatnonzero(mask).tolist()


def legal_names(state: np.ndarray):
    """Names of the legal actions (without the state-dependent suffix)."""
    return [action_to_str(a) for a in legal_actions(state)]


def apply(state: np.ndarray, action: int, seed: int = 0) -> np.ndarray:
    """A copy of ``state`` after the legal ``action`` (asserted legal)."""
    assert reason(state, action) == 0, f"{action_to_str(action, state)} is illegal: " \
        f"{rules.REASONS.get(reason(state, action))}"
    out = state.copy()
    rules.apply_action(out, action, make_rng(seed))
    return out

