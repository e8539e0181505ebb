"""Build Monster Factory states from text diagrams, so a rules test reads like a rulebook picture.

A monster diagram is a grid of tile tokens separated by spaces, north up. A token gives a tile's
edges as they lie on the table, in the order N E S W (``0`` blank, ``1`` thin, ``2`` thick),
with a trailing ``e`` when the tile shows an eye; ``....`` is an empty cell. For example::

    .... 0020 ....
    0200 2202 0002

is a thick-edged T: three tiles in a row joined thick to thick, and one above the middle tile
joined to it thick to thick. Tiles are laid in reading order (left to right, top to bottom), so
the first token is the monster's tile 0 at (0, 0) and tests name tiles ``t`` in reading order.
The tile kind and orientation of each token are looked up in the component tables.

The state starts from ``rules.init_state`` (so every field has a valid value); each tile is then
laid with the engine's own ``rules.lay_tile``, which keeps the list of open cells in step, and
the other fields are set through the offsets of ``state_layout.py``. Placements are named by the cell
they fill (``place``: beside a seat's tile t on a side), never by the open cells' numbers, which
depend on the order the cells opened and closed.
"""

from collections.abc import Iterable, Sequence

import numpy as np

from monster_zoo.envs.core.contract import H_CURRENT, H_STEPS, REWARD_SCORE, REWARD_WIN
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.monster_factory import rules
from monster_zoo.envs.monster_factory.actions import (
    NUM_ACTIONS,
    PLACE0,
    action_to_str,
    decode_place,
    place_action,
)
from monster_zoo.envs.monster_factory.components import (
    DX,
    DY,
    EDGES,
    INVENTORY,
    KIND_EYE,
    KIND_NAMES,
    NUM_KINDS,
    NUM_ROTATIONS,
    SIDE_NAMES,
    kind,
)
from monster_zoo.envs.monster_factory.state_layout import (
    CURRENT_MONSTER,
    DISCARDED,
    FIRST_PLAYER,
    HAND,
    LAST_PLACED,
    MON_DONE,
    MON_OPEN,
    MON_ORDINAL,
    MON_OWNER,
    NUM_CELLS,
    NUM_MONSTERS,
    NUM_PLACED,
    PH_PLACE,
    PH_START,
    PHASE,
    SCORE,
    STATE_SIZE,
    SUPPLY,
    SUPPLY_LEFT,
    TILE_MONSTER,
    TILE_X,
    TILE_Y,
)

SIDE = {name: i for i, name in enumerate(SIDE_NAMES)}


def orientation(token: str) -> tuple[int, int]:
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
    for y, line in enumerate(row for row in diagram.strip("\n").splitlines() if row.strip()):
        for x, tok in enumerate(line.split()):
            if tok.strip(".") == "":
                continue
            k, r = orientation(tok)
            tiles.append((x, y, k, r))
    if not tiles:
        raise ValueError("a monster needs at least one tile")
    x0, y0 = tiles[0][:2]
    return [(x - x0, y - y0, k, r) for x, y, k, r in tiles]


def state_from_monsters(
    monsters: Sequence[tuple[int, str, bool]],
    num_players: int = 2,
    hand: str | None = None,
    current: int = 0,
    first_player: int = 0,
    scores: dict[int, int] | None = None,
    supply: dict[str, int] | None = None,
    reward: str = "win",
    max_steps: int = 100,
) -> np.ndarray:
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
        for x, y, k, r in parse_monster(diagram):
            rules.lay_tile(state, m, x, y, k, r, -1)
            used[k] += 1
        if complete and state[MON_OPEN + m]:
            raise ValueError(f"a monster marked complete shows open edges:\n{diagram}")
        if not complete:
            if state[CURRENT_MONSTER + owner] >= 0:
                raise ValueError(f"seat {owner} has two monsters in progress")
            state[CURRENT_MONSTER + owner] = m
    if len(seen) != num_players:
        raise ValueError(f"every one of the {num_players} seats needs a first monster")
    state[LAST_PLACED] = -1
    state[HAND] = -1 if hand is None else kind(hand)
    if hand is not None:
        used[kind(hand)] += 1
    if supply is None:
        left = INVENTORY - used
        if (left < 0).any():
            raise ValueError(
                f"the diagram uses more tiles than exist: {[KIND_NAMES[k] for k in np.flatnonzero(left < 0)]}"
            )
    else:
        left = np.zeros(NUM_KINDS, np.int64)
        for name, count in supply.items():
            left[kind(name)] = count
    state[SUPPLY : SUPPLY + NUM_KINDS] = left
    state[SUPPLY_LEFT] = left.sum()
    state[DISCARDED : DISCARDED + NUM_KINDS] = 0
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


def tile_cell(state: np.ndarray, seat: int, tile: int) -> tuple[int, int]:
    """Cell of tile ``tile`` (in the order laid) of ``seat``'s monster in progress."""
    m = int(state[CURRENT_MONSTER + seat])
    cells = [
        (int(state[TILE_X + i]), int(state[TILE_Y + i]))
        for i in range(int(state[NUM_PLACED]))
        if state[TILE_MONSTER + i] == m
    ]
    return cells[tile]


def open_number(state: np.ndarray, seat: int, x: int, y: int) -> int | None:
    """The number of the open cell (x, y) of ``seat``'s monster in progress, None if not open."""
    for j in range(int(state[NUM_CELLS])):
        if tuple(int(v) for v in rules.open_cell(state, j)) == (seat, x, y):
            return j
    return None


def place(seat: int, tile: int, side: str, state: np.ndarray, edges: str) -> int:
    """The action laying the tile in hand, showing ``edges``, beside ``seat``'s tile ``tile`` on
    ``side``; ValueError when that cell is not open (no thin or thick edge faces it)."""
    x, y = tile_cell(state, seat, tile)
    x, y = x + int(DX[SIDE[side]]), y + int(DY[SIDE[side]])
    j = open_number(state, seat, x, y)
    if j is None:
        raise ValueError(f"cell {x},{y} of seat {seat}'s monster is not open")
    return place_action(j, rotation_for(state, edges))


def describe(state: np.ndarray, action: int) -> tuple[int, tuple[int, int], str]:
    """A placement as ``(seat, (x, y), edges as laid)``, independent of the cells' numbering."""
    cell, rotation = decode_place(action)
    seat, x, y = (int(v) for v in rules.open_cell(state, cell))
    return seat, (x, y), "".join(str(int(e)) for e in EDGES[int(state[HAND]), rotation])


def placements(state: np.ndarray):
    """The legal placements of the seat on move, each as ``describe`` gives it, sorted."""
    return sorted(describe(state, a) for a in legal_actions(state) if a >= PLACE0)


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
    assert reason(state, action) == 0, (
        f"{action_to_str(action, state)} is illegal: {rules.REASONS.get(reason(state, action))}"
    )
    out = state.copy()
    rules.apply_action(out, action, make_rng(seed))
    return out
