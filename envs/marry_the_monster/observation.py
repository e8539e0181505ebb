"""Marry the Monster's observation (MTM-19): what a seat sees, as ``OBS_SIZE`` floats, and the
redeal of what it cannot see.

``observe_into`` writes the public state (the board, the fachan, scores, pieces, hand sizes, the
deck size and the discard pile, the turn's flags) and the observer's own hand; every other hand
is hidden. ``determinize`` redeals those hands from the cards the observer cannot see, sizes
kept, for a search. Rule ids (MTM-n) refer to ``seeds/marry_the_monster/rules.md``.
"""

import numpy as np

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, OBSERVE_SIG
from ..core.kernels import kernel, on_demand, scratch
from ..core.rng import rng_below
from .components import DECK_SIZE, MAX_PLAYERS, NUM_CARD_TYPES, NUM_CELLS, PIECES
from .rules import hand_size
from .state_layout import (
    BUILD_LEFT,
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
    PH_BUILD,
    PH_FREE,
    PH_STOMP,
    PHASE,
    POOL,
    SCORE,
    STOMP_N,
    STOMPS,
    TURN,
)

# --- observation -------------------------------------------------------------------
OBS_HEIGHTS = 0  # [5 seats x 37 cells] height / 3
OBS_FACHAN = OBS_HEIGHTS + MAX_PLAYERS * NUM_CELLS  # one-hot cell
OBS_SCORES = OBS_FACHAN + NUM_CELLS  # score / 150 per seat
OBS_POOL = OBS_SCORES + MAX_PLAYERS  # pieces in pool / 25 per seat
OBS_PENDING = OBS_POOL + MAX_PLAYERS  # stomped pieces this turn / 25 per seat
OBS_HAND_SIZES = OBS_PENDING + MAX_PLAYERS  # hand size / 60 per seat
OBS_OWN_HAND = OBS_HAND_SIZES + MAX_PLAYERS  # own stomp, build, fortify / 60
OBS_DECK = OBS_OWN_HAND + NUM_CARD_TYPES  # deck size / 60
OBS_DISCARD = OBS_DECK + 1  # discard pile per type / 60
OBS_PHASE = OBS_DISCARD + NUM_CARD_TYPES  # one-hot of 6 phases
OBS_ON_MOVE = OBS_PHASE + 6  # one-hot seat on move
OBS_FIRST = OBS_ON_MOVE + MAX_PLAYERS  # one-hot first player
OBS_SEATED = OBS_FIRST + MAX_PLAYERS  # 1 for seats in the game
OBS_TURN = OBS_SEATED + MAX_PLAYERS  # turn flags, see observe_into
OBS_SIZE = OBS_TURN + 10
# The entry of each relative seat that reads 1 while that seat is at the table and 0 beyond the
# player count, in every view: the player count a view was written for (Game.seated_slots).
SEATED_SLOTS = tuple(OBS_SEATED + k for k in range(MAX_PLAYERS))
SCORE_SCALE = 150.0


@kernel(OBSERVE_SIG)
def observe_into(state, player, out):
    """Write seat ``player``'s view into ``out`` (seats relative: the observer is seat 0).

    Holds the public state (MTM-19) plus the observer's own hand, nothing else.
    """
    out[:] = 0.0
    n = state[H_NUM_PLAYERS]
    for c in range(NUM_CELLS):
        o = state[OWNER + c]
        if o >= 0:
            rel = (o - player) % n
            out[OBS_HEIGHTS + rel * NUM_CELLS + c] = state[HEIGHT + c] / 3.0
    out[OBS_FACHAN + state[FACHAN]] = 1.0
    for q in range(n):
        rel = (q - player) % n
        out[OBS_SCORES + rel] = min(state[SCORE + q] / SCORE_SCALE, 1.0)
        out[OBS_POOL + rel] = state[POOL + q] / PIECES
        out[OBS_PENDING + rel] = state[PENDING + q] / PIECES
        out[OBS_HAND_SIZES + rel] = hand_size(state, q) / DECK_SIZE
        out[OBS_SEATED + rel] = 1.0
    for t in range(NUM_CARD_TYPES):
        out[OBS_OWN_HAND + t] = state[HAND + player * NUM_CARD_TYPES + t] / DECK_SIZE
        out[OBS_DISCARD + t] = state[DISCARD + t] / DECK_SIZE
    out[OBS_DECK] = (state[DECK] + state[DECK + 1] + state[DECK + 2]) / DECK_SIZE
    out[OBS_PHASE + state[PHASE]] = 1.0
    if state[H_CURRENT] >= 0:
        out[OBS_ON_MOVE + (state[H_CURRENT] - player) % n] = 1.0
    out[OBS_FIRST + (state[FIRST_PLAYER] - player) % n] = 1.0
    out[OBS_TURN + 0] = state[MOVED]
    out[OBS_TURN + 1] = 1.0 if state[CARDS_PLAYED] > 0 else 0.0
    # The state keeps step-3 allowances, a cut-short Build's houses and the last stomp's strength
    # after their step is over, and counts a stomp once resolved: each slot is read through
    # the phase it belongs to, so it always means what the docstring says.
    phase = state[PHASE]
    out[OBS_TURN + 2] = (state[STOMPS] + (phase == PH_STOMP)) / 2.0
    out[OBS_TURN + 3] = state[OPP_TARGET_USED]
    if phase == PH_FREE:
        out[OBS_TURN + 4] = state[FREE_HOUSES] / 3.0
        out[OBS_TURN + 5] = min(state[FREE_TOWERS] / 3.0, 1.0)
    if phase == PH_BUILD:
        out[OBS_TURN + 6] = state[BUILD_LEFT] / 2.0
    if phase == PH_STOMP:
        out[OBS_TURN + 7] = state[STOMP_N] / 3.0
    out[OBS_TURN + 8] = min(state[DESTROYED] / 12.0, 1.0)
    out[OBS_TURN + 9] = 1.0 if state[TURN] <= n else 0.0


# --- hidden information ------------------------------------------------------------
@on_demand  # compiled when first needed (a search that resamples hidden information)
def determinize(state, player, rng):
    """Redeal every hand but ``player``'s from the cards ``player`` cannot see (MTM-19).

    Hand sizes stay as they are; the deck keeps the cards nobody was dealt.
    """
    n = state[H_NUM_PLAYERS]
    unseen = scratch(NUM_CARD_TYPES, np.int64)
    for t in range(NUM_CARD_TYPES):
        unseen[t] = state[DECK + t]
        for q in range(n):
            if q != player:
                unseen[t] += state[HAND + q * NUM_CARD_TYPES + t]
    sizes = scratch(MAX_PLAYERS, np.int64)
    for q in range(n):
        if q != player:
            sizes[q] = hand_size(state, q)
            for t in range(NUM_CARD_TYPES):
                state[HAND + q * NUM_CARD_TYPES + t] = 0
    for q in range(n):
        for _ in range(sizes[q]):
            r = rng_below(rng, unseen[0] + unseen[1] + unseen[2])
            for t in range(NUM_CARD_TYPES):
                if r < unseen[t]:
                    unseen[t] -= 1
                    state[HAND + q * NUM_CARD_TYPES + t] += 1
                    break
                r -= unseen[t]
    for t in range(NUM_CARD_TYPES):
        state[DECK + t] = unseen[t]
