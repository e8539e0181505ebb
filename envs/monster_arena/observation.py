"""Monster Arena's observation (AR-5, AR-19): what a seat sees, as ``OBS_SIZE`` floats, and the
redeal of what it cannot see.

``observe_into`` writes the public table, the observer's own inventory and the cards it saw go
into others' inventories; the slices from ``OBS_DEFENSE`` on are derived from that view
(``observe_derived``, observation v3). ``determinize`` resamples the hidden cards for a search.
Rule ids (AR-n) refer to ``seeds/monster_arena/rules.md``.
"""

import numpy as np

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, OBSERVE_SIG
from ..core.kernels import helper, inlined, kernel, on_demand, scratch, scratch_empty
from ..core.rng import shuffle_range
from .components import (
    COST,
    DEFENSE,
    DICE,
    DRAFT_TOKENS,
    KIND,
    KIND_PART,
    MAX_PLAYERS,
    MAX_SLOTS,
    NUM_CARDS,
    NUM_TORSOS,
    REFILL,
)
from .fighting import unlink
from .queries import attack_mod, attack_profile, defense, give, is_covered
from .state_layout import (
    AIM,
    ALIVE,
    BID,
    DEALER,
    DONE,
    DRY_ROUNDS,
    ENERGY,
    FIRST_PLAYER,
    FROZEN,
    GRAVE_ORDER,
    HIGH,
    IN_ATTACK,
    KNOWN,
    L_BOX,
    L_DECK,
    L_DISCARD,
    L_GRAVE,
    L_INV,
    L_ROW,
    L_TABLE,
    L_TORSO,
    LAST,
    LOC,
    OWNER,
    PARENT,
    PASSES,
    PH_BUILD,
    PH_OVER,
    PH_PLACE,
    PHASE,
    PSLOT,
    QUIET,
    QUIET_ENDING,
    ROUND,
    SELECTED,
    TARGET,
    TOKENS,
    TURN_SEAT,
    USED,
    WEB,
    WING,
    WINNER,
)

# --- observation --------------------------------------------------------------------
# Per card, CARD_FEATURES floats (card ids 0-59 in the order of CARD_LABEL):
F_TABLE = 0  # on the monster of relative seat r (6, one-hot)
F_INV = 6  # in the inventory of relative seat r, where the observer may know it (6)
F_ROW = 12  # turned up by the dealer
F_DISCARD = 13
F_GRAVE = 14
F_BOX = 15
F_TORSO = 16  # torso half still to draft
F_COVERED = 17
F_USED = 18
F_FROZEN = 19
F_IN_ATTACK = 20
F_TARGET = 21
F_SELECTED = 22
F_PARENT = 23  # (parent id + 1) / 61
F_PSLOT = 24  # (slot + 1) / 3
F_GRAVE_ORDER = 25  # arrival order in the graveyard / 60
CARD_FEATURES = 26
OBS_CARDS = 0
OBS_TOKENS = OBS_CARDS + NUM_CARDS * CARD_FEATURES  # per relative seat: tokens / 15
OBS_ENERGY = OBS_TOKENS + MAX_PLAYERS  # energy / 6
OBS_INV_SIZE = OBS_ENERGY + MAX_PLAYERS  # inventory size / 48
OBS_ALIVE = OBS_INV_SIZE + MAX_PLAYERS
OBS_DONE = OBS_ALIVE + MAX_PLAYERS  # built / had its turn this round
OBS_WINNER = OBS_DONE + MAX_PLAYERS
OBS_SEATED = OBS_WINNER + MAX_PLAYERS
OBS_PHASE = OBS_SEATED + MAX_PLAYERS  # one-hot of 11 phases
OBS_ON_MOVE = OBS_PHASE + PH_OVER + 1
OBS_TURN_SEAT = OBS_ON_MOVE + MAX_PLAYERS
OBS_DEALER = OBS_TURN_SEAT + MAX_PLAYERS
OBS_HIGH = OBS_DEALER + MAX_PLAYERS
OBS_FIRST = OBS_HIGH + MAX_PLAYERS
OBS_MISC = OBS_FIRST + MAX_PLAYERS  # scalars, see observe_into
# Derived from the observer's view (observation v3), what the greedy baseline weighs when it plays.
# While monsters are built, another seat shows only its torso halves' printed Defense (AR-19).
OBS_DEFENSE = OBS_MISC + 13  # per card on a monster: Defense with passives / 16
OBS_POWER = OBS_DEFENSE + NUM_CARDS  # per relative seat: expected attack of its cards
# that may still act this round / POWER_SCALE
OBS_PARTS = OBS_POWER + MAX_PLAYERS  # parts attached / 48
OBS_EXPOSED = OBS_PARTS + MAX_PLAYERS  # outer torso halves / 2 (a hit there ends it)
OBS_WEAKEST = OBS_EXPOSED + MAX_PLAYERS  # lowest Defense among its outer cards / 16
OBS_MARGIN = OBS_WEAKEST + MAX_PLAYERS  # pending attack: 0.5 + (expected total - needed) / 40
OBS_SIZE = OBS_MARGIN + 1
# The entry of each relative seat that reads 1 while that seat is at the table and 0 beyond the
# player count, in every view: the player count a view was written for (Game.seated_slots).
SEATED_SLOTS = tuple(OBS_SEATED + k for k in range(MAX_PLAYERS))
DEFENSE_SCALE = 16.0  # Defense 13 plus two Spiked Legs stays below it
POWER_SCALE = 40.0
MARGIN_SCALE = 40.0
MEAN_DIE = 3.5
# Quiet rounds are observed against the opt-in limit (AR-45), else against this many rounds.
QUIET_SCALE = 10.0
NUM_PARTS = NUM_CARDS - NUM_TORSOS


@inlined
def is_building(state):
    """Whether monsters are being built (AR-19): the building phase or a builder's slot choice."""
    return state[PHASE] == PH_BUILD or (state[PHASE] == PH_PLACE and state[ROUND] == 0)


@helper
def observe_derived(state, player, out):
    """The derived slices of seat ``player``'s view (``OBS_DEFENSE`` onwards): Defense with its
    passive bonuses (AR-30, AR-36), attack strength, exposure, and the pending attack's margin."""
    n = state[H_NUM_PLAYERS]
    building = is_building(state)
    weakest = scratch(MAX_PLAYERS, np.int64)
    for c in range(NUM_CARDS):
        q = state[OWNER + c]
        if state[LOC + c] != L_TABLE:
            continue
        rel = (q - player) % n
        if building and q != player:
            if KIND[c] != KIND_PART:
                out[OBS_DEFENSE + c] = DEFENSE[c] / DEFENSE_SCALE
            continue
        d = defense(state, c)
        out[OBS_DEFENSE + c] = d / DEFENSE_SCALE
        out[OBS_PARTS + rel] += (KIND[c] == KIND_PART) / float(NUM_PARTS)
        if COST[c] >= 0 and state[USED + c] == 0 and state[FROZEN + c] == 0:
            out[OBS_POWER + rel] += (MEAN_DIE * DICE[c] + attack_mod(state, c)) / POWER_SCALE
        if not is_covered(state, c):
            out[OBS_EXPOSED + rel] += (KIND[c] != KIND_PART) / 2.0
            if weakest[rel] == 0 or d < weakest[rel]:
                weakest[rel] = d
    for rel in range(n):
        out[OBS_POWER + rel] = min(out[OBS_POWER + rel], 1.0)
        out[OBS_WEAKEST + rel] = weakest[rel] / DEFENSE_SCALE
    target = state[TARGET]
    if target >= 0:
        dice, bonus, _ = attack_profile(state)
        margin = MEAN_DIE * dice + bonus - state[WING] - defense(state, target) - state[WEB]
        out[OBS_MARGIN] = min(max(0.5 + margin / MARGIN_SCALE, 0.0), 1.0)


@kernel(OBSERVE_SIG)
def observe_into(state, player, out):
    """Write seat ``player``'s view into ``out`` (seats relative: the observer is seat 0).

    Holds the public table plus the observer's own inventory, the cards of others'
    inventories that everybody saw go there, and nothing else (AR-5).
    """
    out[:] = 0.0
    n = state[H_NUM_PLAYERS]
    building = is_building(state)
    deck = 0
    for c in range(NUM_CARDS):
        base = OBS_CARDS + c * CARD_FEATURES
        loc = state[LOC + c]
        owner = state[OWNER + c]
        rel = (owner - player) % n if owner >= 0 else 0
        deck += loc == L_DECK
        out[OBS_INV_SIZE + rel] += loc == L_INV  # counted here, scaled below
        if loc == L_TABLE and building and owner != player and KIND[c] == KIND_PART:
            # AR-19: while building, another seat's attached part still looks like inventory
            out[OBS_INV_SIZE + rel] += 1.0
            if state[KNOWN + c] != 0:
                out[base + F_INV + rel] = 1.0
            continue
        if loc == L_TABLE:
            out[base + F_TABLE + rel] = 1.0
            covered = is_covered(state, c)
            if building and owner != player:
                covered = False  # its slots look empty to the others while building
            out[base + F_COVERED] = covered
            out[base + F_PARENT] = (state[PARENT + c] + 1) / (NUM_CARDS + 1.0)
            out[base + F_PSLOT] = (state[PSLOT + c] + 1) / float(MAX_SLOTS)
        elif loc == L_INV:
            if owner == player or state[KNOWN + c] != 0:
                out[base + F_INV + rel] = 1.0
        elif loc == L_ROW:
            out[base + F_ROW] = 1.0
        elif loc == L_DISCARD:
            out[base + F_DISCARD] = 1.0
        elif loc == L_GRAVE:
            out[base + F_GRAVE] = 1.0
            out[base + F_GRAVE_ORDER] = min(state[GRAVE_ORDER + c] / float(NUM_CARDS), 1.0)
        elif loc == L_BOX:
            out[base + F_BOX] = 1.0
        elif loc == L_TORSO:
            out[base + F_TORSO] = 1.0
        out[base + F_USED] = state[USED + c]
        out[base + F_FROZEN] = state[FROZEN + c]
        out[base + F_IN_ATTACK] = state[IN_ATTACK + c]
        out[base + F_TARGET] = state[TARGET] == c
        out[base + F_SELECTED] = state[SELECTED] == c and not (building and state[H_CURRENT] != player)
    for q in range(n):
        rel = (q - player) % n
        out[OBS_TOKENS + rel] = state[TOKENS + q] / float(DRAFT_TOKENS)
        out[OBS_ENERGY + rel] = state[ENERGY + q] / float(REFILL + 1)
        out[OBS_INV_SIZE + rel] /= float(NUM_PARTS)
        out[OBS_ALIVE + rel] = state[ALIVE + q]
        out[OBS_DONE + rel] = state[DONE + q]
        out[OBS_WINNER + rel] = state[WINNER + q]
        out[OBS_SEATED + rel] = 1.0
    phase = state[PHASE]
    if building and phase == PH_PLACE and state[H_CURRENT] != player:
        phase = PH_BUILD  # whether another builder is mid-attachment is not seen
    out[OBS_PHASE + phase] = 1.0
    if state[H_CURRENT] >= 0:
        out[OBS_ON_MOVE + (state[H_CURRENT] - player) % n] = 1.0
    if state[TURN_SEAT] >= 0:
        out[OBS_TURN_SEAT + (state[TURN_SEAT] - player) % n] = 1.0
    out[OBS_DEALER + (state[DEALER] - player) % n] = 1.0
    if state[HIGH] >= 0:
        out[OBS_HIGH + (state[HIGH] - player) % n] = 1.0
    out[OBS_FIRST + (state[FIRST_PLAYER] - player) % n] = 1.0
    out[OBS_MISC + 0] = state[BID] / float(DRAFT_TOKENS)
    out[OBS_MISC + 1] = min(state[PASSES] / float(MAX_PLAYERS), 1.0)
    out[OBS_MISC + 2] = min(state[DRY_ROUNDS] / float(MAX_PLAYERS), 1.0)
    out[OBS_MISC + 3] = state[WEB] / 2.0
    out[OBS_MISC + 4] = min(state[WING] / 6.0, 1.0)
    out[OBS_MISC + 5] = min(state[AIM] / 4.0, 1.0)
    out[OBS_MISC + 6] = min(state[ROUND] / 100.0, 1.0)
    out[OBS_MISC + 7] = deck / float(NUM_PARTS)
    out[OBS_MISC + 8] = (state[LAST] + 1) / (NUM_CARDS + 1.0)
    out[OBS_MISC + 9] = min(max(state[LAST + 1], 0) / 60.0, 1.0)
    out[OBS_MISC + 10] = min(state[LAST + 2] / 20.0, 1.0)
    out[OBS_MISC + 11] = state[LAST + 3]
    scale = float(state[QUIET_ENDING]) if state[QUIET_ENDING] > 0 else QUIET_SCALE
    out[OBS_MISC + 12] = min(max(state[QUIET], 0) / scale, 1.0)
    observe_derived(state, player, out)


# --- hidden information -------------------------------------------------------------
@on_demand  # compiled when first needed (a search that resamples hidden information)
def determinize(state, player, rng):
    """Resample what ``player`` cannot see (AR-5): which unseen parts lie in the deck and which in
    other seats' inventories (sizes kept), and, while building, other seats' attachments (taken
    back into their inventories, a valid way to have built nothing yet)."""
    if is_building(state):
        for c in range(NUM_TORSOS, NUM_CARDS):
            q = state[OWNER + c]
            if state[LOC + c] == L_TABLE and q != player:
                unlink(state, c)
                give(state, c, q, state[KNOWN + c])
    # pool: the unseen cards in card order, and the places they fill (location, owner; a deck
    # card has no owner) with a flag on the selected card's place.
    pool = scratch_empty((4, NUM_CARDS), np.int64)
    selected = state[SELECTED]
    k = 0
    for c in range(NUM_CARDS):
        loc = state[LOC + c]
        if loc == L_DECK or (loc == L_INV and state[OWNER + c] != player and state[KNOWN + c] == 0):
            pool[0, k] = c
            pool[1, k] = loc
            pool[2, k] = state[OWNER + c] if loc == L_INV else -1
            pool[3, k] = c == selected
            k += 1
    # The places in a fixed order (by location, owner, the selected card's place first among
    # equals): in card order they would follow where the unseen cards really lie, and the
    # redeal would depend on it.
    for i in range(1, k):
        loc, owner, flag = pool[1, i], pool[2, i], pool[3, i]
        j = i - 1
        while j >= 0 and (pool[1, j], pool[2, j], -pool[3, j]) > (loc, owner, -flag):
            pool[1, j + 1], pool[2, j + 1], pool[3, j + 1] = pool[1, j], pool[2, j], pool[3, j]
            j -= 1
        pool[1, j + 1], pool[2, j + 1], pool[3, j + 1] = loc, owner, flag
    shuffle_range(pool[0], 0, k, rng)  # the unseen cards
    # Hand the shuffled cards to the places: the places keep their counts.
    for i in range(k):
        c = pool[0, i]
        if pool[3, i]:
            state[SELECTED] = c
        state[LOC + c] = pool[1, i]
        state[OWNER + c] = pool[2, i]
        state[KNOWN + c] = 0
