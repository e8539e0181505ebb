"""Build Marry the Monster states from text diagrams, so a rules test reads like a rulebook picture.

A diagram is the board as ``envs/marry_the_monster/text_view.py`` prints it: 7 rows (A north to G
south) of 4, 5, 6, 7, 6, 5, 4 cells, each cell two characters:

* ``.1`` / ``.2`` / ``.3`` / ``.5`` or ``..``: an empty cell (a digit, if given, must be the
  cell's value, which keeps hand-written diagrams honest);
* ``@@``: the fachan;
* owner seat + building: ``0h`` house, ``1m`` manor, ``2T`` tower.

Row labels (``A`` .. ``G``) and indentation are optional. Only the board comes from the diagram;
everything else (scores, hands, deck, phase, turn flags) is a keyword of :func:`state_from_diagram`.

The state starts from ``rules.init_state`` (so every field has a valid value) and is then
overwritten field by field through the offsets of ``state_layout.py``.
"""

from collections.abc import Iterable, Sequence

import numpy as np

from monster_zoo.envs.core.contract import H_CURRENT, H_STEPS, H_TERMINAL, REWARD_SCORE, REWARD_WIN
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.marry_the_monster import rules
from monster_zoo.envs.marry_the_monster.actions import NUM_ACTIONS, action_to_str, str_to_action
from monster_zoo.envs.marry_the_monster.components import (
    CELL_NAMES,
    COORDS,
    DECK_COUNTS,
    MAX_PLAYERS,
    NUM_CARD_TYPES,
    NUM_CELLS,
    PIECES,
    RADIUS,
    VALUE,
)
from monster_zoo.envs.marry_the_monster.state_layout import (
    BUILD_LEFT,
    BUILD_PLACED,
    CARDS_PLAYED,
    DECK,
    DESTROYED,
    DISCARD,
    FACHAN,
    FIRST_PLAYER,
    FREE_HOUSES,
    FREE_TOWERS,
    HAND,
    HEIGHT,
    MOVED,
    OPP_TARGET_USED,
    OWNER,
    PENDING,
    PHASE,
    PHASE_NAMES,
    POOL,
    SCORE,
    STATE_SIZE,
    STOMP_N,
    STOMPS,
    TURN,
    WINNER,
)
from monster_zoo.envs.marry_the_monster.text_view import cell_label

HEIGHT_OF = {"h": 1, "m": 2, "t": 3}
PHASES = {"free": 0, "main": 1, "build": 2, "fortify": 3, "stomp": 4}
assert all(PHASE_NAMES[v].startswith(k) for k, v in PHASES.items())

# Cell indices of each board row, north to south (row r holds the cells with axial r).
ROWS = [[c for c in range(NUM_CELLS) if int(COORDS[c][1]) == r] for r in range(-RADIUS, RADIUS + 1)]


def _tokens(board: str):
    """The board's cell tokens row by row, row labels dropped; checks the hexagon's shape."""
    rows = []
    for line in board.strip("\n").splitlines():
        toks = line.split()
        if toks and len(toks[0]) == 1 and toks[0].isalpha():
            toks = toks[1:]  # a row label as text_view.py prints it
        if toks:
            rows.append(toks)
    shape = [len(r) for r in ROWS]
    got = [len(r) for r in rows]
    if got != shape:
        raise ValueError(f"a board diagram needs rows of {shape} cells, got {got}")
    return [t for row in rows for t in row]


def parse_board(board: str, num_players: int = MAX_PLAYERS):
    """``(owner, height, fachan)`` arrays from a diagram: owner -1 and height 0 on empty cells."""
    owner = np.full(NUM_CELLS, -1, np.int32)
    height = np.zeros(NUM_CELLS, np.int32)
    fachan = None
    cells = [c for row in ROWS for c in row]
    for c, tok in zip(cells, _tokens(board)):
        name = CELL_NAMES[c]
        if len(tok) != 2:
            raise ValueError(f"{name}: cell {tok!r} is not two characters")
        if tok == "@@":
            if fachan is not None:
                raise ValueError(f"two fachans: {CELL_NAMES[fachan]} and {name}")
            fachan = c
        elif tok[0] == ".":
            if tok[1] != "." and tok[1] != str(VALUE[c]):
                raise ValueError(f"{name} is worth {VALUE[c]}, the diagram says {tok!r}")
        elif tok[0].isdigit() and tok[1].lower() in HEIGHT_OF:
            if int(tok[0]) >= num_players:
                raise ValueError(f"{name}: seat {tok[0]} is not in a {num_players}-player game")
            owner[c] = int(tok[0])
            height[c] = HEIGHT_OF[tok[1].lower()]
        else:
            raise ValueError(f"{name}: cannot read cell {tok!r}")
    if fachan is None:
        raise ValueError("the diagram has no fachan (@@)")
    return owner, height, fachan


def board_of(state) -> str:
    """The board part of ``render.to_text`` for ``state``: one line per row, cells separated by a space."""
    return "\n".join(" ".join(cell_label(state, c) for c in row) for row in ROWS)


def normalize(board: str) -> str:
    """A diagram in :func:`board_of`'s form (``..`` written as ``.v``), to compare boards."""
    owner, height, fachan = parse_board(board)
    s = np.zeros(STATE_SIZE, np.int32)
    s[OWNER : OWNER + NUM_CELLS] = owner
    s[HEIGHT : HEIGHT + NUM_CELLS] = height
    s[FACHAN] = fachan
    return board_of(s)


def _per_seat(values, n: int, default) -> list:
    """A per-seat list from None (all ``default``), a sequence, or a ``{seat: value}`` dict."""
    if values is None:
        return [default] * n
    if isinstance(values, dict):
        return [values.get(p, default) for p in range(n)]
    values = list(values)
    if len(values) != n:
        raise ValueError(f"expected {n} per-seat values, got {len(values)}")
    return values


def state_from_diagram(
    board: str,
    *,
    num_players: int = 3,
    current: int = 0,
    first_player: int = 0,
    turn: int | None = None,
    scores=None,
    hands=None,
    pools=None,
    pending=None,
    phase: str = "main",
    deck: Sequence[int] | None = None,
    discard: Sequence[int] = (0, 0, 0),
    stomps: int = 0,
    moved: int = 0,
    cards_played: int = 0,
    opp_target_used: int = 0,
    destroyed: int = 0,
    free_houses: int = 0,
    free_towers: int = 0,
    build_left: int = 0,
    build_placed: int = 0,
    stomp_n: int = 0,
    max_steps: int = 5000,
    reward: str = "win",
) -> np.ndarray:
    """A live state with the board of ``board`` and the given fields; seat ``current`` is on move.

    ``hands`` are (stomp, build, fortify) counts per seat (default: empty hands); ``scores`` and
    ``pending`` default to 0; ``pools`` default to 25 minus the seat's pieces on the board and
    waiting beside it; ``deck`` (stomp, build, fortify) defaults to what is left of the 60 cards
    after hands and discard. ``turn`` counts turns started so far and defaults to two full rounds,
    so the first-turn extra draws (MTM-6) do not apply unless a test asks for them.
    Per-seat arguments take a list (one entry per seat) or a ``{seat: value}`` dict.
    """
    n = num_players
    owner, height, fachan = parse_board(board, n)
    state = np.zeros(STATE_SIZE, np.int32)
    config = np.array([n, max_steps, REWARD_WIN if reward == "win" else REWARD_SCORE], np.int64)
    rules.init_state(state, config, make_rng(0))

    state[H_CURRENT] = current
    state[H_TERMINAL] = 0
    state[H_STEPS] = 0
    state[FIRST_PLAYER] = first_player
    state[TURN] = 2 * n if turn is None else turn
    state[PHASE] = PHASES[phase]
    state[FACHAN] = fachan
    state[OWNER : OWNER + NUM_CELLS] = owner
    state[HEIGHT : HEIGHT + NUM_CELLS] = height
    rules.sync_board_bits(state)  # the engine's cell sets follow the hand-written board
    for field, value in (
        (MOVED, moved),
        (CARDS_PLAYED, cards_played),
        (STOMPS, stomps),
        (OPP_TARGET_USED, opp_target_used),
        (DESTROYED, destroyed),
        (FREE_HOUSES, free_houses),
        (FREE_TOWERS, free_towers),
        (BUILD_LEFT, build_left),
        (BUILD_PLACED, build_placed),
        (STOMP_N, stomp_n),
    ):
        state[field] = value

    pending = _per_seat(pending, n, 0)
    on_board = [int(height[owner == p].sum()) for p in range(n)]
    pools = _per_seat(pools, n, None)
    hands = _per_seat(hands, n, (0, 0, 0))
    state[SCORE : SCORE + MAX_PLAYERS] = 0
    state[POOL : POOL + MAX_PLAYERS] = 0
    state[PENDING : PENDING + MAX_PLAYERS] = 0
    state[HAND : HAND + MAX_PLAYERS * NUM_CARD_TYPES] = 0
    state[WINNER : WINNER + MAX_PLAYERS] = 0
    for p, score in enumerate(_per_seat(scores, n, 0)):
        state[SCORE + p] = score
    for p in range(n):
        state[PENDING + p] = pending[p]
        state[POOL + p] = PIECES - on_board[p] - pending[p] if pools[p] is None else pools[p]
        if state[POOL + p] < 0:
            raise ValueError(f"seat {p} has more than {PIECES} pieces on the board")
        for t in range(NUM_CARD_TYPES):
            state[HAND + p * NUM_CARD_TYPES + t] = hands[p][t]
    if deck is None:
        deck = [int(DECK_COUNTS[t]) - sum(h[t] for h in hands) - discard[t] for t in range(NUM_CARD_TYPES)]
        if min(deck) < 0:
            raise ValueError(f"hands and discard hold more cards than the deck has: {deck}")
    state[DECK : DECK + NUM_CARD_TYPES] = deck
    state[DISCARD : DISCARD + NUM_CARD_TYPES] = discard
    return state


def legal_actions(state) -> np.ndarray:
    """Indices of the legal actions of the seat on move."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask(state, mask)
    return np.flatnonzero(mask)


def legal_names(state) -> set[str]:
    """Names (as ``action_to_str`` prints them in this state) of the legal actions."""
    return {action_to_str(a, state) for a in legal_actions(state)}


def apply(state, *action_names: str, seed: int = 0) -> np.ndarray:
    """A copy of ``state`` after the named actions, each checked legal first; ``state`` is untouched.

    Chance (draws, reshuffles) uses one generator seeded with ``seed`` for the whole sequence.
    """
    state = state.copy()
    rng = make_rng(seed)
    for name in action_names:
        a = str_to_action(name)
        legal = legal_actions(state)
        assert a in legal, (
            f"{name!r} is not legal for seat {int(state[H_CURRENT])} in phase "
            f"{PHASE_NAMES[int(state[PHASE])]}; legal: {sorted(legal_names(state))}"
        )
        rules.apply_action(state, a, rng)
    return state


def hand(state, p: int) -> tuple:
    """Seat ``p``'s hand as (stomp, build, fortify)."""
    return tuple(int(state[HAND + p * NUM_CARD_TYPES + t]) for t in range(NUM_CARD_TYPES))


def pile(state, offset: int) -> tuple:
    """The deck (``DECK``) or discard pile (``DISCARD``) as (stomp, build, fortify)."""
    return tuple(int(state[offset + t]) for t in range(NUM_CARD_TYPES))


def names_starting(names: Iterable[str], prefix: str) -> set[str]:
    """The names in ``names`` that start with ``prefix`` (``"move"``, ``"stomp"``, ``"target"`` ...)."""
    return {x for x in names if x.startswith(prefix)}
