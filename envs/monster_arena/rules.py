"""Monster Arena rules as numba kernels: the single source of truth.

This file holds the kernel contract (``init_state``, ``apply_action``, ``returns``), the
legality every decision goes through (``illegal_reason``, and ``legal_mask``, which dispatches by
phase) and the automatic steps between decisions (``advance``). Rule ids read AR-n and refer to
``seeds/monster_arena/rules.md``. The phases of the game (AR-3) live in modules of their own,
imported in this order (each imports only the ones before it):

* ``queries.py``: the reason codes (``R_*``, ``REASONS``) and the reads every phase asks;
* ``fighting.py``: the arena (reasons of a turn's decisions, rounds, turns, attacks, abilities);
* ``building.py``: attaching parts, the building phase and the reveal;
* ``drafting.py``: the torso draft, the dealer's pick, the auction and the end of drafting;
* ``observation.py`` (beside them, read by the declaration): what a seat sees, and the redeal
  of what it cannot see.

The AEC env and the batched engine call only the contract's kernels (from here and
``observation.py``); the greedy agent also asks the queries and reasons of the modules above.

Each phase has a function of its own for its options (``*_options``, which ``legal_mask`` calls) and
one for its step (``*_step``, which ``apply_action`` calls), all ``@standalone``: on a GPU a warp whose
games are in one phase runs that phase's code alone, and a kernel holds each phase's code once.

Masks ask the same reason functions as ``illegal_reason``, with the facts shared by a
whole phase (an attacker available, an empty slot) computed once. The reason functions
that mask loops call per card are inlined and read the state without branching, then
decide in a ``*_of`` helper that takes scalars only: numba cannot drop the reference
counting of the state array around branches, and in a loop over 60 cards that costs
far more than the checks themselves.
"""

import numpy as np

from ..core.contract import (
    APPLY_ACTION_SIG,
    CONFIG_COMMON,
    H_CURRENT,
    H_NUM_PLAYERS,
    H_STEPS,
    H_TERMINAL,
    INIT_STATE_SIG,
    LEGAL_MASK_SIG,
    RETURNS_SIG,
)
from ..core.header import start_game
from ..core.kernels import helper, inlined, kernel, scratch, standalone
from ..core.rewards import c3_returns_scored
from ..core.rng import rng_below
from .actions import ABILITY0, ATTACKER0, BID0, NUM_ACTIONS, PASS, ROLL, SLOT0, TAKE0, TARGET0
from .building import attach, attach_reason_of, finish_building, has_build_option, slot_reason, slot_reason_of
from .components import (
    AB_WEB,
    ABILITY,
    ABILITY_COST,
    ATTACH_COST,
    COST,
    DEALER_PRICE,
    KIND,
    KIND_PART,
    MAX_PLAYERS,
    MAX_SLOTS,
    NUM_CARDS,
)
from .drafting import (
    auction_pass,
    bid_reason,
    pass_reason,
    pick_reason,
    start_auction,
    start_drafting,
    take_prize,
    take_reason,
    torso_picker,
)
from .fighting import (
    active_reason,
    active_reason_of,
    any_reaction,
    attacker_reason,
    end_turn,
    join_reason,
    pinch_reason,
    reactive_reason,
    resolve_attack,
    roll_reason,
    roll_reason_of,
    target_reason,
    target_reason_of,
    turn_facts,
    use_active,
)
from .queries import (
    OK,
    R_GAME_OVER,
    R_OUT_OF_RANGE,
    R_WRONG_PHASE,
    child,
    count_loc,
    give,
    has_open_slot,
    is_covered,
    next_seat,
    on_monster,
)
from .queries import REASONS as REASONS  # read from this module by the game's declaration
from .state_layout import (
    BID,
    CHILD,
    ENERGY,
    FIRST_PLAYER,
    FROZEN,
    HIGH,
    IN_ATTACK,
    KNOWN,
    L_DECK,
    L_ROW,
    L_TABLE,
    L_TORSO,
    LAST,
    LOC,
    OWNER,
    PARENT,
    PASSES,
    PH_ATTACK,
    PH_AUCTION,
    PH_BUILD,
    PH_DEAL,
    PH_MAIN,
    PH_OVER,
    PH_PINCH,
    PH_PLACE,
    PH_PRIZE,
    PH_REACT,
    PH_TORSO,
    PHASE,
    PICKS,
    PSLOT,
    QUIET_ENDING,
    ROUND,
    SELECTED,
    SPENT,
    TARGET,
    TOKENS,
    TURN_SEAT,
    USED,
    WEB,
    WING,
    WINNER,
)

# --- config -------------------------------------------------------------------------
C_QUIET_ENDING = CONFIG_COMMON  # option quiet_ending_rounds: 0 (default) or the rounds that end it

# --- reasons ------------------------------------------------------------------------
# The codes ``illegal_reason`` returns (``R_*``, ``OK``) and their texts (``REASONS``, which the
# declaration reads from this module) are defined in queries.py, where every phase's reasons
# find them.


# --- legality -----------------------------------------------------------------------
@standalone
def main_options(state, p, out):
    """Write the legal take (attach), target and ability actions of an arena turn (AR-24..AR-29)
    into the mask ``out``; return their count.

    The per-turn facts (``turn_facts``) are computed once and handed to the same reason
    functions ``illegal_reason`` uses.
    """
    plain, saw, open_slot, pinchable, grave = turn_facts(state, p)
    energy = state[ENERGY + p]
    count = 0
    for c in range(NUM_CARDS):
        loc = state[LOC + c]
        owner = state[OWNER + c]
        table = loc == L_TABLE
        ok_take = attach_reason_of(loc, owner, KIND[c], p, energy, True, open_slot) == OK
        ok_target = target_reason_of(table & (owner != p), is_covered(state, c), plain, saw) == OK
        ok_ability = (
            active_reason_of(
                table & (owner == p), c, state[USED + c], state[FROZEN + c], energy, pinchable, grave
            )
            == OK
        )
        count += ok_take + ok_target + ok_ability
        out[TAKE0 + c] = ok_take
        out[TARGET0 + c] = ok_target
        out[ABILITY0 + c] = ok_ability
    return count


@inlined
def has_main_option(state, p):
    """Whether an arena turn offers ``p`` anything besides ending it (what ``main_options`` would
    find, stopping at the first)."""
    # Most turns have an attacker, and every monster is a tree whose leaves are outer, so an
    # attack is possible: found by the first able card, without the full facts pass.
    energy = state[ENERGY + p]
    for c in range(NUM_CARDS):
        if attacker_reason(state, p, c, False) == OK:
            return True
    # Without an attacker no card can be targeted (a Saw Arm that may attack is one), so only an
    # attachment or an active ability is left. Each is first asked as if the facts it needs held,
    # and only a card that passes that pays for the pass over the cards that settles them.
    for c in range(NUM_CARDS):
        loc = state[LOC + c]
        owner = state[OWNER + c]
        if attach_reason_of(loc, owner, KIND[c], p, energy, True, True) == OK and has_open_slot(state, p):
            return True
        mine = (loc == L_TABLE) & (owner == p)
        if active_reason_of(mine, c, state[USED + c], state[FROZEN + c], energy, True, True) == OK:
            _, _, _, pinchable, grave = turn_facts(state, p)
            if active_reason_of(mine, c, state[USED + c], state[FROZEN + c], energy, pinchable, grave) == OK:
                return True
    return False


@helper
def illegal_reason(state, action):
    """0 if ``action`` is legal for the player on move, else a code of ``REASONS``.

    Called from Python only (to explain a refused action), with the state and an int64 action;
    compiled on its first call, so games that refuse nothing never pay for it."""
    if action < 0 or action >= NUM_ACTIONS:
        return R_OUT_OF_RANGE
    if state[H_TERMINAL] != 0:
        return R_GAME_OVER
    p = state[H_CURRENT]
    phase = state[PHASE]
    if action < SLOT0:
        return take_reason(state, p, action - TAKE0)
    if action < BID0:
        return slot_reason(state, p, (action - SLOT0) // MAX_SLOTS, (action - SLOT0) % MAX_SLOTS)
    if action < TARGET0:
        if phase != PH_AUCTION:
            return R_WRONG_PHASE
        return bid_reason(action - BID0 + 1, state[BID], state[TOKENS + p])
    if action < ATTACKER0:
        c = action - TARGET0
        if phase == PH_MAIN:
            return target_reason(state, p, c)
        if phase == PH_PINCH:
            return pinch_reason(state, p, c)
        return R_WRONG_PHASE
    if action < ABILITY0:
        if phase != PH_ATTACK:
            return R_WRONG_PHASE
        return join_reason(state, p, action - ATTACKER0, is_covered(state, state[TARGET]))
    if action < ROLL:
        c = action - ABILITY0
        if phase == PH_MAIN:
            return active_reason(state, p, c)
        if phase == PH_REACT:
            return reactive_reason(state, p, c)
        return R_WRONG_PHASE
    if action == ROLL:
        return roll_reason(state)
    return pass_reason(state)


@standalone
def build_options(state, p, out):
    """Write the parts ``p`` may choose to attach while building (AR-20) into ``out``; their count."""
    open_slot = has_open_slot(state, p)
    count = 0
    for c in range(NUM_CARDS):
        ok = attach_reason_of(state[LOC + c], state[OWNER + c], KIND[c], p, 0, False, open_slot) == OK
        out[TAKE0 + c] = ok
        count += ok
    return count


@standalone
def pick_options(state, p, phase, out):
    """Write the cards ``p`` may take in a drafting ``phase`` (a torso half, the dealer's pick, the
    auction's prize) into ``out``; their count."""
    count = 0
    for c in range(NUM_CARDS):
        ok = pick_reason(phase, state[LOC + c], state[TOKENS + p]) == OK
        out[TAKE0 + c] = ok
        count += ok
    return count


@standalone
def place_options(state, p, out):
    """Write the slots the selected part may go to (AR-21) into ``out``; their count."""
    count = 0
    for c in range(NUM_CARDS):
        mine = on_monster(state, c, p)
        for s in range(MAX_SLOTS):
            ok = slot_reason_of(mine, c, s, child(state, c, s)) == OK
            out[SLOT0 + c * MAX_SLOTS + s] = ok
            count += ok
    return count


@standalone
def auction_options(state, p, out):
    """Write the bids ``p`` may make (AR-15) into ``out``; their count."""
    count = 0
    for k in range(1, TARGET0 - BID0 + 1):
        ok = bid_reason(k, state[BID], state[TOKENS + p]) == OK
        out[BID0 + k - 1] = ok
        count += ok
    return count


@standalone
def pinch_options(state, p, out):
    """Write the parts a Pincer may pinch into ``out``; their count."""
    count = 0
    for c in range(NUM_CARDS):
        ok = pinch_reason(state, p, c) == OK
        out[TARGET0 + c] = ok
        count += ok
    return count


@standalone
def attack_options(state, p, out):
    """Write the cards that may join the attack and the roll (AR-27, AR-28) into ``out``; their count."""
    covered = is_covered(state, state[TARGET])
    attacking = False
    count = 0
    for c in range(NUM_CARDS):
        ok = join_reason(state, p, c, covered) == OK
        out[ATTACKER0 + c] = ok
        count += ok
        attacking |= state[IN_ATTACK + c] != 0
    roll = roll_reason_of(PH_ATTACK, attacking) == OK  # the only phase with a roll
    out[ROLL] = roll
    return count + roll


@standalone
def react_options(state, p, out):
    """Write the reactive abilities the defender may use (AR-31, AR-38) into ``out``; their count."""
    count = 0
    for c in range(NUM_CARDS):
        ok = reactive_reason(state, p, c) == OK
        out[ABILITY0 + c] = ok
        count += ok
    return count


@kernel(LEGAL_MASK_SIG)
def legal_mask(state, out):
    """Fill ``out`` with 1 for each legal action of the player on move; return the count.

    Only the action ranges of the current phase are asked (by that phase's ``*_options``), through
    the same reason functions ``illegal_reason`` calls, so the mask and the reasons can never disagree.
    """
    out[:] = 0
    if state[H_TERMINAL] != 0:
        return 0
    phase = state[PHASE]
    p = state[H_CURRENT]
    count = 0
    if phase == PH_MAIN:
        count = main_options(state, p, out)
    elif phase == PH_BUILD:
        count = build_options(state, p, out)
    elif phase == PH_TORSO or phase == PH_DEAL or phase == PH_PRIZE:
        count = pick_options(state, p, phase, out)
    elif phase == PH_PLACE:
        count = place_options(state, p, out)
    elif phase == PH_AUCTION:
        count = auction_options(state, p, out)
    elif phase == PH_PINCH:
        count = pinch_options(state, p, out)
    elif phase == PH_ATTACK:
        return attack_options(state, p, out)  # no passing during an attack
    elif phase == PH_REACT:
        count = react_options(state, p, out)
    done = pass_reason(state) == OK
    out[PASS] = done
    return count + done


# --- turn flow ----------------------------------------------------------------------
@standalone
def advance(state, rng):
    """Take the automatic steps (AR-6, ruling C6): passes of bidders who cannot raise, a prize with
    one card left, builders with nothing to attach, turns with nothing but ending, defenders with no
    reaction to offer."""
    while state[H_TERMINAL] == 0:
        p = state[H_CURRENT]
        phase = state[PHASE]
        if phase == PH_AUCTION and state[TOKENS + p] <= state[BID]:
            auction_pass(state, rng)
        elif phase == PH_PRIZE and count_loc(state, L_ROW) == 1:
            for c in range(NUM_CARDS):
                if state[LOC + c] == L_ROW:
                    take_prize(state, p, c, rng)
                    break
        elif phase == PH_BUILD and not has_build_option(state, p):
            finish_building(state, p, rng)
        elif phase == PH_MAIN and not has_main_option(state, p):
            end_turn(state, rng)
        elif phase == PH_REACT and not any_reaction(state, p):
            resolve_attack(state, rng)
        else:
            return


@inlined
def final_score(state, p):
    """AR-46: cards still on ``p``'s monster at the end (0 once it is destroyed)."""
    k = 0
    for c in range(NUM_CARDS):
        k += on_monster(state, c, p)
    return k


# --- the kernel contract ------------------------------------------------------------
@kernel(INIT_STATE_SIG)
def init_state(state, config, rng):
    """Set up a new game from ``config`` = (num_players, max_steps, reward_mode,
    quiet_ending_rounds) (AR-1, AR-8, AR-45); a config without the last entry has no quiet ending.

    All 60 cards of AR-2 start in place: the torso halves face up to be drafted, the parts in the
    draft deck; the game's seeded generator picks the first torso picker (AR-4, AR-8)."""
    n = start_game(state, config)
    state[QUIET_ENDING] = config[C_QUIET_ENDING] if config.shape[0] > C_QUIET_ENDING else 0
    for c in range(NUM_CARDS):
        state[LOC + c] = L_TORSO if KIND[c] != KIND_PART else L_DECK
        state[OWNER + c] = -1
        state[PARENT + c] = -1
        state[PSLOT + c] = -1
        state[KNOWN + c] = 1 if KIND[c] != KIND_PART else 0
    state[CHILD : CHILD + NUM_CARDS * MAX_SLOTS] = -1
    state[HIGH] = -1
    state[SELECTED] = -1
    state[TARGET] = -1
    state[TURN_SEAT] = -1
    state[LAST] = -1
    state[FIRST_PLAYER] = rng_below(rng, n)
    state[PHASE] = PH_TORSO
    state[H_CURRENT] = state[FIRST_PLAYER]


@inlined
def select_part(state, c):
    """Choose part ``c`` to attach, building or in an arena turn; its slot is the next decision."""
    state[SELECTED] = c
    state[PHASE] = PH_PLACE
    if state[ROUND] > 0:
        state[KNOWN + c] = 1  # in the arena the part is shown as it is attached


# --- the steps of each phase (legality is the caller's check) ------------------------
@standalone
def torso_step(state, p, action, rng):
    """Take a torso half (AR-8); the last pick starts drafting."""
    c = action - TAKE0
    state[LOC + c] = L_TABLE
    state[OWNER + c] = p
    state[PICKS] += 1
    if state[PICKS] == 2 * state[H_NUM_PLAYERS]:
        start_drafting(state, rng)
    else:
        state[H_CURRENT] = torso_picker(state, state[PICKS])


@standalone
def deal_step(state, p, action, rng):
    """The dealer takes a card of the row for a token, or passes; the auction follows (AR-14)."""
    if action != PASS:
        give(state, action - TAKE0, p, 1)
        state[TOKENS + p] -= DEALER_PRICE
        state[SPENT] = 1
    start_auction(state, rng)


@standalone
def auction_step(state, p, action, rng):
    """Raise the bid, or pass (AR-15)."""
    if action == PASS:
        auction_pass(state, rng)
        return
    state[BID] = action - BID0 + 1
    state[HIGH] = p
    state[PASSES] = 0
    state[H_CURRENT] = next_seat(state, p)


@standalone
def prize_step(state, p, action, rng):
    """The auction's winner takes a card of the row (AR-16)."""
    take_prize(state, p, action - TAKE0, rng)


@standalone
def build_step(state, p, action, rng):
    """Choose a part to attach, or finish building (AR-20)."""
    if action == PASS:
        finish_building(state, p, rng)
    else:
        select_part(state, action - TAKE0)


@standalone
def place_step(state, p, action):
    """Attach the selected part to the slot ``action`` names (AR-21); in the arena it costs energy."""
    host = (action - SLOT0) // MAX_SLOTS
    attach(state, state[SELECTED], host, (action - SLOT0) % MAX_SLOTS)
    state[SELECTED] = -1
    if state[ROUND] > 0:
        state[ENERGY + p] -= ATTACH_COST
        state[PHASE] = PH_MAIN
    else:
        state[PHASE] = PH_BUILD


@standalone
def main_step(state, p, action, rng):
    """An arena turn's decision: attach a part, attack a card, use an active ability or end the turn
    (AR-24..AR-29)."""
    if action < SLOT0:
        select_part(state, action - TAKE0)
    elif action < ATTACKER0:
        state[TARGET] = action - TARGET0
        state[PHASE] = PH_ATTACK
    elif action < ROLL:
        use_active(state, p, action - ABILITY0)
    else:
        end_turn(state, rng)


@standalone
def attack_step(state, p, action):
    """Add a card to the attack, or roll: the defender may react first (AR-27), the dice fall after
    (AR-28)."""
    if action == ROLL:
        state[WEB] = 0
        state[WING] = 0
        state[PHASE] = PH_REACT
        state[H_CURRENT] = state[OWNER + state[TARGET]]
        return
    c = action - ATTACKER0
    state[IN_ATTACK + c] = 1
    state[USED + c] = 1
    state[ENERGY + p] -= COST[c]


@standalone
def react_step(state, p, action, rng):
    """The defender uses a reactive ability, or lets the dice fall."""
    if action == PASS:
        resolve_attack(state, rng)
        return
    c = action - ABILITY0
    state[ENERGY + p] -= ABILITY_COST[c]
    state[USED + c] = 1
    if ABILITY[c] == AB_WEB:
        state[WEB] += 2  # Spider Abdomen: +2 Defense against this attack (AR-31)
    else:
        state[WING] += 2  # Bat Wing: -2 to this attack, several wings add up (AR-38)


@standalone
def pinch_step(state, p, action):
    """The selected Pincer pinches the part ``action`` names."""
    pincer = state[SELECTED]
    state[ENERGY + p] -= ABILITY_COST[pincer]
    state[USED + pincer] = 1
    state[FROZEN + action - TARGET0] = 1
    state[SELECTED] = -1
    state[PHASE] = PH_MAIN


@kernel(APPLY_ACTION_SIG)
def apply_action(state, action, rng):
    """Apply a legal ``action`` of the player on move (legality is the caller's check): the step of
    the current phase, then the automatic steps."""
    state[H_STEPS] += 1  # the count the step limit truncates at (AR-9)
    p = state[H_CURRENT]
    phase = state[PHASE]
    if phase == PH_MAIN:
        main_step(state, p, action, rng)
    elif phase == PH_ATTACK:
        attack_step(state, p, action)
    elif phase == PH_REACT:
        react_step(state, p, action, rng)
    elif phase == PH_PLACE:
        place_step(state, p, action)
    elif phase == PH_BUILD:
        build_step(state, p, action, rng)
    elif phase == PH_AUCTION:
        auction_step(state, p, action, rng)
    elif phase == PH_DEAL:
        deal_step(state, p, action, rng)
    elif phase == PH_PRIZE:
        prize_step(state, p, action, rng)
    elif phase == PH_TORSO:
        torso_step(state, p, action, rng)
    else:
        pinch_step(state, p, action)
    advance(state, rng)


@inlined
def phase_of(state):
    """The decision the game waits for (a ``PH_*`` below :data:`NUM_PHASES`): the GPU engine steps
    the games of a warp that wait for the same decision together."""
    return state[PHASE]


NUM_PHASES = PH_OVER + 1


@kernel(RETURNS_SIG)
def returns(state, out):
    """Final rewards per seat (AR-7, ruling C3; with ``reward="score"`` the cards left on each
    monster, AR-46); zeros while the game runs."""
    scores = scratch(MAX_PLAYERS, np.int64)
    for p in range(state[H_NUM_PLAYERS]):
        scores[p] = final_score(state, p)
    c3_returns_scored(state, WINNER, scores, out)
