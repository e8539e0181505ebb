"""A greedy heuristic for Monster Arena (``monster_arena-greedy-v2``).

Arena: attack the weakest reachable card that the available energy can most
likely destroy, preferring an opponent's torso half whenever one is outer (a
fallen half ends that monster). For each target the mask allows, the agent
picks attacking cards strongest first until the chance of a hit reaches
``ENOUGH`` or nothing is left, and scores the target by that chance (a torso
half gets ``TORSO_BONUS``, a lower Defense breaks ties). A target whose best
chance is below ``MIN_CHANCE`` is not worth the cards. Before attacking it
re-covers an outer torso half of its own from inventory, and it uses Eye
Stalks before an attack; after its attacks it roars, digs the graveyard,
pinches the strongest opponent part and attaches leftover parts. It always
uses a reactive ability when attacked.

Drafting: torso halves with high Defense and few slots (easy to cover); the
dealer always takes the best card for its token; auction bids go one above the
current bid up to ``BID_LIMIT``. Building fills torso slots first (the half
with fewest empty slots first) so that the torso is covered.

Rules are never re-implemented here: legality comes from the mask and the
engine's reason kernels, and attack totals and Defense from the engine's own
``attack_profile`` and ``defense``. The chance of a hit is plain dice
arithmetic. Only public fields and the agent's own inventory are read.
"""

import numpy as np

from ..core.contract import H_CURRENT, POLICY_SIG
from ..core.kernels import copy_vector, kernel, on_demand, scratch_empty
from ..core.rng import rng_pick_set
from .actions import ABILITY0, ATTACKER0, BID0, PASS, ROLL, SLOT0, TAKE0, TARGET0
from .components import (
    AB_AIM,
    AB_GRAVE,
    AB_PINCH,
    AB_REFILL6,
    AB_ROAR,
    AB_WEB,
    AB_WING,
    ABILITY,
    COST,
    DEFENSE,
    DICE,
    KIND,
    KIND_PART,
    MAX_DICE,
    MAX_SLOTS,
    MOD,
    NUM_CARDS,
    SLOTS,
)
from .fighting import attacker_reason
from .queries import OK, attack_profile, child, defense, is_covered, on_monster
from .state_layout import (
    BID,
    ENERGY,
    IN_ATTACK,
    PH_ATTACK,
    PH_AUCTION,
    PH_BUILD,
    PH_DEAL,
    PH_MAIN,
    PH_PINCH,
    PH_PLACE,
    PH_PRIZE,
    PH_REACT,
    PH_TORSO,
    PHASE,
    STATE_SIZE,
    TARGET,
)

ENOUGH = 0.85  # stop adding attackers at this chance of a hit
MIN_CHANCE = 0.05  # below this an attack is not worth the cards
TORSO_BONUS = 0.6  # added to a torso half's chance when choosing the target
BID_LIMIT = 4  # the most tokens the agent bids for a card


def _dice_tail(max_dice):
    """tail[k, x] = P(sum of k six-sided dice >= x), x clipped to 0..6k+1.

    The outcomes are counted in exact integers (6**k of them for k dice, far beyond int64 at the
    deck's dice) and each count divided by 6**k once, so every entry is the correctly rounded
    probability: tail[k, 0] is exactly 1 and each row is nonincreasing."""
    size = 6 * max_dice + 2
    tail = np.zeros((max_dice + 1, size))
    counts = np.zeros(size, dtype=object)  # ways for k dice to sum to each total (Python ints)
    counts[0] = 1
    for k in range(max_dice + 1):
        at_least = np.cumsum(counts[::-1])[::-1]
        tail[k] = [ways / 6**k for ways in at_least]
        nxt = np.zeros(size, dtype=object)
        for face in range(1, 7):
            nxt[face:] += counts[: size - face]
        counts = nxt
    return tail


DICE_TAIL = _dice_tail(MAX_DICE)


@on_demand
def chance(dice, needed):
    """P(sum of ``dice`` d6 >= ``needed``)."""
    if needed <= 0:
        return 1.0
    if needed >= DICE_TAIL.shape[1]:
        return 0.0
    return DICE_TAIL[dice, needed]


@on_demand
def card_value(c):
    """Rough worth of a card: its expected attack, a share of its Defense and its slots (cover)."""
    v = DEFENSE[c] / 3.0 + SLOTS[c]
    if COST[c] >= 0:
        v += DICE[c] * 3.5 + MOD[c] - COST[c]
    ab = ABILITY[c]
    if ab == AB_WING or ab == AB_WEB or ab == AB_REFILL6:
        v += 3.0
    return v


@on_demand
def plan_attack(state, p, target, scratch):
    """Add ``p``'s available attackers strongest first (in ``scratch``) until the chance of a hit on
    ``target`` reaches ENOUGH; return (chance, next card to add or -1 to roll)."""
    copy_vector(scratch, state)
    covered = is_covered(state, target)
    need = defense(state, target)
    first = -1
    while True:
        dice, bonus, cards = attack_profile(scratch)
        now = chance(dice, need - bonus) if cards > 0 else 0.0
        if now >= ENOUGH:
            return now, first
        best = -1
        best_v = -1.0
        for c in range(NUM_CARDS):
            if scratch[IN_ATTACK + c] != 0 or attacker_reason(scratch, p, c, covered) != OK:
                continue
            v = (DICE[c] * 3.5 + MOD[c]) / max(COST[c], 1)
            if v > best_v:
                best_v = v
                best = c
        if best < 0:
            return now, first
        if first < 0:
            first = best
        scratch[IN_ATTACK + best] = 1
        scratch[ENERGY + p] -= COST[best]


@on_demand
def best_in(mask, lo):
    """Among legal actions lo..lo+59 (one per card), the one whose card has the highest value."""
    best = -1
    best_v = -1e9
    for c in range(NUM_CARDS):
        if mask[lo + c] == 0:
            continue
        v = card_value(c)
        if v > best_v:
            best_v = v
            best = lo + c
    return best


@on_demand
def torso_value(c):
    """Torso halves: Defense counts most, each slot to cover costs, an attack helps a little."""
    v = 2.0 * DEFENSE[c] - 2.0 * SLOTS[c]
    if COST[c] >= 0:
        v += (DICE[c] * 3.5 + MOD[c]) / 2.0
    return v


@on_demand
def place_action(state, p, mask):
    """Slot for the chosen part: a torso half's slot first (the half with fewest empty slots)."""
    best = -1
    best_key = 1e9
    for a in range(SLOT0, BID0):
        if mask[a] == 0:
            continue
        c = (a - SLOT0) // MAX_SLOTS
        empty = 0
        for s in range(SLOTS[c]):
            empty += child(state, c, s) < 0
        key = empty + (0.0 if KIND[c] != KIND_PART else 10.0)
        if key < best_key:
            best_key = key
            best = a
    return best


@on_demand
def attach_choice(state, p, mask):
    """The inventory part to attach: while a torso half has an empty slot the sturdiest part (it will
    cover the half), otherwise the most valuable one."""
    torso_open = False
    for c in range(NUM_CARDS):
        if KIND[c] != KIND_PART and on_monster(state, c, p):
            for s in range(SLOTS[c]):
                torso_open |= child(state, c, s) < 0
    best = -1
    best_v = -1e9
    for c in range(NUM_CARDS):
        if mask[TAKE0 + c] == 0:
            continue
        v = DEFENSE[c] + 0.01 * card_value(c) if torso_open else card_value(c)
        if v > best_v:
            best_v = v
            best = TAKE0 + c
    return best


@on_demand
def torso_exposed(state, p):
    """Whether one of ``p``'s torso halves is outer."""
    for c in range(NUM_CARDS):
        if KIND[c] != KIND_PART and on_monster(state, c, p) and not is_covered(state, c):
            return True
    return False


@on_demand
def main_action(state, p, mask, scratch):
    """An arena turn's next action (see the module docstring)."""
    if torso_exposed(state, p):
        a = attach_choice(state, p, mask)
        if a >= 0:
            return a
    best = -1
    best_score = -1.0
    for t in range(NUM_CARDS):
        if mask[TARGET0 + t] == 0:
            continue
        ch, _ = plan_attack(state, p, t, scratch)
        if ch < MIN_CHANCE:
            continue
        score = ch + (TORSO_BONUS if KIND[t] != KIND_PART else 0.0) - defense(state, t) / 1000.0
        if score > best_score:
            best_score = score
            best = t
    if best >= 0:
        for c in range(NUM_CARDS):
            if mask[ABILITY0 + c] != 0 and ABILITY[c] == AB_AIM:
                return ABILITY0 + c
        return TARGET0 + best
    for c in range(NUM_CARDS):
        if mask[ABILITY0 + c] != 0 and (
            ABILITY[c] == AB_ROAR or ABILITY[c] == AB_GRAVE or ABILITY[c] == AB_PINCH
        ):
            return ABILITY0 + c
    a = attach_choice(state, p, mask)
    if a >= 0:
        return a
    return PASS


@kernel(POLICY_SIG)
def greedy_action(state, action_mask, rng):
    """The heuristic's action for the seat on move; ``state`` is not modified."""
    p = state[H_CURRENT]
    phase = state[PHASE]
    work = scratch_empty(STATE_SIZE, np.int32)
    a = -1
    if phase == PH_TORSO:
        best_v = -1e9
        for c in range(NUM_CARDS):
            if action_mask[TAKE0 + c] != 0 and torso_value(c) > best_v:
                best_v = torso_value(c)
                a = TAKE0 + c
    elif phase == PH_DEAL or phase == PH_PRIZE:
        a = best_in(action_mask, TAKE0)
    elif phase == PH_BUILD:
        a = attach_choice(state, p, action_mask)
    elif phase == PH_AUCTION:
        k = state[BID] + 1
        if k <= BID_LIMIT and action_mask[BID0 + k - 1] != 0:
            a = BID0 + k - 1
    elif phase == PH_PLACE:
        a = place_action(state, p, action_mask)
    elif phase == PH_MAIN:
        a = main_action(state, p, action_mask, work)
    elif phase == PH_ATTACK:
        _, nxt = plan_attack(state, p, state[TARGET], work)
        a = ROLL if nxt < 0 else ATTACKER0 + nxt
    elif phase == PH_REACT:
        for c in range(NUM_CARDS):
            if action_mask[ABILITY0 + c] != 0:
                a = ABILITY0 + c
                break
    elif phase == PH_PINCH:
        best_v = -1e9
        for c in range(NUM_CARDS):
            if action_mask[TARGET0 + c] != 0 and card_value(c) > best_v:
                best_v = card_value(c)
                a = TARGET0 + c
    if a < 0 or action_mask[a] == 0:
        a = PASS if action_mask[PASS] != 0 else rng_pick_set(action_mask, rng)
    return a
