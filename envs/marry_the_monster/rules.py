"""Marry the Monster rules as numba kernels: the single source of truth.

Everything the game does happens here: turn steps 1-5, free houses, fachan
moves, card plays and triples, stomp lines, drawing and reshuffling, scoring
and the win check. The AEC env, the batched engine and the agents only call
these kernels. Rule ids (MTM-n) refer to ``seeds/marry_the_monster/rules.md``.

The deck is kept as counts per card type and each draw picks a card type with
probability proportional to what is left. That is the same distribution as
drawing from the top of a shuffled deck, and it means the state holds no deck
order at all: nobody, not even a planner cloning the state, can see future draws.
"""
import numpy as np
from numba import njit

from ..core.contract import (APPLY_ACTION_SIG, DETERMINIZE_SIG, H_CURRENT, H_MAX_STEPS,
                             H_NUM_PLAYERS, H_REWARD_MODE, H_STEPS, H_TERMINAL, ILLEGAL_REASON_SIG,
                             INIT_STATE_SIG, LEGAL_MASK_SIG, OBSERVE_SIG, RETURNS_SIG, REWARD_WIN,
                             C_MAX_STEPS, C_NUM_PLAYERS, C_REWARD_MODE)
from ..core.rng import rng_below
from .actions import CELL0, END, MOVE0, NUM_ACTIONS, PLAY0
from .components import (BUILD, CENTRE, DECK_COUNTS, DECK_SIZE, DOUBLE_STOMP_POINTS,
                         EXTRA_DRAWS, FORTIFY, FREE_HOUSE_STEPS, FREE_TOWER_BASE, FREE_TOWER_EVERY,
                         FREE_TOWER_FROM, HAND_SIZE, HOUSES_PER_BUILD, INSTANT_WIN_POINTS,
                         LINE_DIR, LINE_DIST, MAX_PLAYERS, MAX_RAY, NO_PLAY_DRAW, NUM_CARD_TYPES,
                         NUM_CELLS, NUM_DIRS, NUM_PLAYS, OPPONENT_TARGET_POINTS, PIECES, PLAY_COST,
                         PLAY_KIND, PLAY_STRENGTH, RAY, RAY_LEN, STOMP, TOWER, TURN_DRAW, VALUE,
                         WIN_POINTS, WIN_TOWERS)
from .layout import (BUILD_LEFT, BUILD_PLACED, CARDS_PLAYED, DECK, DESTROYED, DISCARD, FACHAN,
                     FIRST_PLAYER, FREE_HOUSES, FREE_TOWERS, HAND, HEIGHT, MOVED, OPP_TARGET_USED,
                     OWNER, PENDING, PH_BUILD, PH_FORTIFY, PH_FREE, PH_MAIN, PH_OVER, PH_STOMP,
                     PHASE, POOL, SCORE, STOMP_N, STOMPS, TURN, WINNER)

# --- reasons an action is illegal (codes for illegal_reason) ----------------------
OK = 0
R_GAME_OVER = 1
R_WRONG_PHASE = 2
R_CELL_TAKEN = 3
R_FACHAN_CELL = 4
R_NO_PIECES = 5
R_NOT_OWN_HOUSE_OR_MANOR = 6
R_NO_FREE_TOWER = 7
R_NO_BUILDING = 8
R_NOT_IN_LINE = 9
R_OPPONENT_TARGET = 10
R_ALREADY_MOVED = 11
R_PATH_BLOCKED = 12
R_OFF_BOARD = 13
R_MISSING_CARDS = 14
R_STOMP_LIMIT = 15
R_NO_STOMP_TARGET = 16
R_NO_EMPTY_CELL = 17
R_NOTHING_TO_FORTIFY = 18
R_FIRST_HOUSE = 19
R_OUT_OF_RANGE = 20

REASONS = {
    R_GAME_OVER: "the game is over",
    R_WRONG_PHASE: "that kind of action is not expected in this phase",
    R_CELL_TAKEN: "the cell already holds a building",
    R_FACHAN_CELL: "the fachan stands on that cell",
    R_NO_PIECES: "the player has no building pieces left in their pool",
    R_NOT_OWN_HOUSE_OR_MANOR: "the cell does not hold one of the player's houses or manors",
    R_NO_FREE_TOWER: "no free tower is due (needs 60+ points, one per 15 above 45) or pieces are short",
    R_NO_BUILDING: "there is no building on that cell",
    R_NOT_IN_LINE: "the target is not on a straight line from the fachan",
    R_OPPONENT_TARGET: "another player's building may be targeted only with 30+ points, once per turn",
    R_ALREADY_MOVED: "the fachan has already moved this turn",
    R_PATH_BLOCKED: "a building blocks the fachan's path",
    R_OFF_BOARD: "the move leaves the board",
    R_MISSING_CARDS: "the hand does not hold those cards",
    R_STOMP_LIMIT: "no stomp left this turn (one, or two from 15 points)",
    R_NO_STOMP_TARGET: "no building the player may target lies on a line from the fachan",
    R_NO_EMPTY_CELL: "a Build needs an empty cell and a free piece",
    R_NOTHING_TO_FORTIFY: "a Fortify needs one of the player's houses or manors and a free piece",
    R_FIRST_HOUSE: "a Build must place at least one house before stopping",
    R_OUT_OF_RANGE: "the action index is out of range",
}


# --- small queries ------------------------------------------------------------------
@njit(cache=True)
def num_players(state):
    """Number of seats in this game."""
    return state[H_NUM_PLAYERS]


@njit(cache=True)
def hand_count(state, p, card):
    """How many cards of type ``card`` seat ``p`` holds."""
    return state[HAND + p * NUM_CARD_TYPES + card]


@njit(cache=True)
def hand_size(state, p):
    """Total cards in seat ``p``'s hand."""
    total = 0
    for t in range(NUM_CARD_TYPES):
        total += state[HAND + p * NUM_CARD_TYPES + t]
    return total


@njit(cache=True)
def towers(state, p):
    """Number of towers seat ``p`` has on the board."""
    count = 0
    for c in range(NUM_CELLS):
        if state[OWNER + c] == p and state[HEIGHT + c] == TOWER:
            count += 1
    return count


@njit(cache=True)
def building_points(state, p):
    """Points seat ``p``'s buildings are worth (MTM-5: cell value, whatever the height)."""
    total = 0
    for c in range(NUM_CELLS):
        if state[OWNER + c] == p:
            total += VALUE[c]
    return total


@njit(cache=True)
def free_house_allowance(score):
    """Free houses in step 3 for a player with ``score`` points (MTM-7)."""
    houses = 0
    for i in range(FREE_HOUSE_STEPS.shape[0]):
        if score >= FREE_HOUSE_STEPS[i, 0]:
            houses = FREE_HOUSE_STEPS[i, 1]
    return houses


@njit(cache=True)
def free_tower_allowance(score):
    """Free tower upgrades in step 3: one per full 15 points above 45, from 60 (MTM-17)."""
    if score < FREE_TOWER_FROM:
        return 0
    return (score - FREE_TOWER_BASE) // FREE_TOWER_EVERY


@njit(cache=True)
def stomp_allowance(score):
    """Stomps a player may make per turn (MTM-13)."""
    return 2 if score >= DOUBLE_STOMP_POINTS else 1


# --- predicates shared by the mask and by illegal_reason -----------------------------
@njit(cache=True)
def house_reason(state, p, c):
    """Why seat ``p`` may not put a house on cell ``c`` (OK if it may)."""
    if state[HEIGHT + c] != 0:
        return R_CELL_TAKEN
    if state[FACHAN] == c:
        return R_FACHAN_CELL
    if state[POOL + p] < 1:
        return R_NO_PIECES
    return OK


@njit(cache=True)
def free_tower_reason(state, p, c):
    """Why seat ``p`` may not upgrade cell ``c`` to a tower for free (MTM-17)."""
    h = state[HEIGHT + c]
    if state[OWNER + c] != p or h < 1 or h >= TOWER:
        return R_NOT_OWN_HOUSE_OR_MANOR
    if state[FREE_TOWERS] < 1 or state[POOL + p] < TOWER - h:
        return R_NO_FREE_TOWER
    return OK


@njit(cache=True)
def fortify_reason(state, p, c):
    """Why seat ``p`` may not fortify cell ``c`` by one level (MTM-11)."""
    h = state[HEIGHT + c]
    if state[OWNER + c] != p or h < 1 or h >= TOWER:
        return R_NOT_OWN_HOUSE_OR_MANOR
    if state[POOL + p] < 1:
        return R_NO_PIECES
    return OK


@njit(cache=True)
def target_reason(state, p, c):
    """Why seat ``p`` may not make cell ``c`` the stomp target (MTM-12, MTM-14)."""
    if state[HEIGHT + c] == 0:
        return R_NO_BUILDING
    if LINE_DIR[state[FACHAN], c] < 0:
        return R_NOT_IN_LINE
    if state[OWNER + c] != p:
        if state[SCORE + p] < OPPONENT_TARGET_POINTS or state[OPP_TARGET_USED] != 0:
            return R_OPPONENT_TARGET
    return OK


@njit(cache=True)
def move_reason(state, direction, distance):
    """Why the fachan may not move ``distance`` cells in ``direction`` (MTM-9)."""
    if state[MOVED] != 0:
        return R_ALREADY_MOVED
    f = state[FACHAN]
    if distance > RAY_LEN[f, direction]:
        return R_OFF_BOARD
    for k in range(distance):
        if state[HEIGHT + RAY[f, direction, k]] != 0:
            return R_PATH_BLOCKED
    return OK


@njit(cache=True)
def can_pay(state, p, play):
    """Whether seat ``p``'s hand covers the cards of card play ``play``."""
    for t in range(NUM_CARD_TYPES):
        if state[HAND + p * NUM_CARD_TYPES + t] < PLAY_COST[play, t]:
            return False
    return True


@njit(cache=True)
def can_place_any_house(state, p):
    """Whether seat ``p`` has a piece and the board an empty cell off the fachan."""
    if state[POOL + p] < 1:
        return False
    for c in range(NUM_CELLS):
        if house_reason(state, p, c) == OK:
            return True
    return False


@njit(cache=True)
def can_fortify_any(state, p):
    """Whether seat ``p`` has a piece and a house or manor to raise."""
    if state[POOL + p] < 1:
        return False
    for c in range(NUM_CELLS):
        if fortify_reason(state, p, c) == OK:
            return True
    return False


@njit(cache=True)
def can_target_any(state, p):
    """Whether a building seat ``p`` may target lies on a line from the fachan."""
    f = state[FACHAN]
    for d in range(NUM_DIRS):
        for k in range(RAY_LEN[f, d]):
            if target_reason(state, p, RAY[f, d, k]) == OK:
                return True
    return False


@njit(cache=True)
def plays_possible(state, p):
    """Which kinds of card play could take effect now: (build, fortify, stomp) (MTM-10)."""
    can_stomp = state[STOMPS] < stomp_allowance(state[SCORE + p]) and can_target_any(state, p)
    return can_place_any_house(state, p), can_fortify_any(state, p), can_stomp


@njit(cache=True)
def play_reason(state, p, play):
    """Why seat ``p`` may not make card play ``play`` now (MTM-10 to MTM-14)."""
    kind = PLAY_KIND[play]
    if kind == STOMP:
        if state[STOMPS] >= stomp_allowance(state[SCORE + p]):
            return R_STOMP_LIMIT
        if not can_target_any(state, p):
            return R_NO_STOMP_TARGET
    elif kind == BUILD:
        if not can_place_any_house(state, p):
            return R_NO_EMPTY_CELL
    elif not can_fortify_any(state, p):
        return R_NOTHING_TO_FORTIFY
    if not can_pay(state, p, play):
        return R_MISSING_CARDS
    return OK


@njit(ILLEGAL_REASON_SIG, cache=True)
def illegal_reason(state, action):
    """0 if ``action`` is legal for the player on move, else a code of ``REASONS``."""
    if action < 0 or action >= NUM_ACTIONS:
        return R_OUT_OF_RANGE
    if state[H_TERMINAL] != 0:
        return R_GAME_OVER
    p = state[H_CURRENT]
    phase = state[PHASE]
    if action < MOVE0:
        c = action - CELL0
        if phase == PH_FREE:
            if state[HEIGHT + c] == 0:
                if state[FREE_HOUSES] < 1:
                    return R_CELL_TAKEN if state[FREE_TOWERS] < 1 else R_NOT_OWN_HOUSE_OR_MANOR
                return house_reason(state, p, c)
            return free_tower_reason(state, p, c)
        if phase == PH_BUILD:
            return house_reason(state, p, c)
        if phase == PH_FORTIFY:
            return fortify_reason(state, p, c)
        if phase == PH_STOMP:
            return target_reason(state, p, c)
        return R_WRONG_PHASE
    if action == END:
        if phase == PH_FREE or phase == PH_MAIN:
            return OK
        if phase == PH_BUILD:
            return OK if state[BUILD_PLACED] > 0 else R_FIRST_HOUSE
        return R_WRONG_PHASE
    if phase != PH_MAIN:
        return R_WRONG_PHASE
    if action < PLAY0:
        d = (action - MOVE0) // MAX_RAY
        return move_reason(state, d, (action - MOVE0) % MAX_RAY + 1)
    return play_reason(state, p, action - PLAY0)


@njit(LEGAL_MASK_SIG, cache=True)
def legal_mask(state, out):
    """Fill ``out`` with 1 for each legal action of the player on move; return the count."""
    out[:] = 0
    if state[H_TERMINAL] != 0:
        return 0
    p = state[H_CURRENT]
    phase = state[PHASE]
    count = 0
    if phase == PH_FREE:
        for c in range(NUM_CELLS):
            if state[HEIGHT + c] == 0:
                ok = state[FREE_HOUSES] > 0 and house_reason(state, p, c) == OK
            else:
                ok = free_tower_reason(state, p, c) == OK
            if ok:
                out[CELL0 + c] = 1
                count += 1
        out[END] = 1
        return count + 1
    if phase == PH_STOMP:
        f = state[FACHAN]
        for d in range(NUM_DIRS):
            for k in range(RAY_LEN[f, d]):
                c = RAY[f, d, k]
                if target_reason(state, p, c) == OK:
                    out[CELL0 + c] = 1
                    count += 1
        return count
    if phase == PH_BUILD or phase == PH_FORTIFY:
        for c in range(NUM_CELLS):
            if phase == PH_BUILD:
                r = house_reason(state, p, c)
            else:
                r = fortify_reason(state, p, c)
            if r == OK:
                out[CELL0 + c] = 1
                count += 1
        if phase == PH_BUILD and state[BUILD_PLACED] > 0:
            out[END] = 1
            count += 1
        return count
    # PH_MAIN: fachan moves along each ray until the first building.
    if state[MOVED] == 0:
        f = state[FACHAN]
        for d in range(NUM_DIRS):
            for k in range(RAY_LEN[f, d]):
                if state[HEIGHT + RAY[f, d, k]] != 0:
                    break
                out[MOVE0 + d * MAX_RAY + k] = 1
                count += 1
    can_build, can_fortify, can_stomp = plays_possible(state, p)
    for play in range(NUM_PLAYS):
        kind = PLAY_KIND[play]
        able = can_stomp if kind == STOMP else (can_build if kind == BUILD else can_fortify)
        if able and can_pay(state, p, play):
            out[PLAY0 + play] = 1
            count += 1
    out[END] = 1
    return count + 1


# --- stomp lines -------------------------------------------------------------------
@njit(cache=True)
def stomp_stop(state, target, strength):
    """Cell where a stomp of ``strength`` units at ``target`` leaves the fachan (MTM-12).

    Walking from the fachan to ``target``, every building of height <= strength
    falls; the first higher one stops him on the cell before it. So exactly the
    buildings between the fachan and the returned cell, that cell included, fall.
    """
    f = state[FACHAN]
    d = LINE_DIR[f, target]
    stop = f
    for k in range(LINE_DIST[f, target]):
        c = RAY[f, d, k]
        if state[HEIGHT + c] > strength:
            break
        stop = c
    return stop


@njit(cache=True)
def stomp_path(state, target, strength, destroyed):
    """Preview a stomp without changing ``state``: write the cells that would fall into
    ``destroyed`` and return ``(final_cell, count)``."""
    f = state[FACHAN]
    stop = stomp_stop(state, target, strength)
    count = 0
    if stop != f:
        d = LINE_DIR[f, stop]
        for k in range(LINE_DIST[f, stop]):
            c = RAY[f, d, k]
            if state[HEIGHT + c] > 0:
                destroyed[count] = c
                count += 1
    return stop, count


@njit(cache=True)
def resolve_stomp(state, target):
    """Apply a stomp at ``target``: remove fallen buildings, move the fachan (MTM-12)."""
    f = state[FACHAN]
    stop = stomp_stop(state, target, state[STOMP_N])
    if stop == f:
        return
    d = LINE_DIR[f, stop]
    for k in range(LINE_DIST[f, stop]):
        c = RAY[f, d, k]
        h = state[HEIGHT + c]
        if h > 0:
            state[PENDING + state[OWNER + c]] += h
            state[OWNER + c] = -1
            state[HEIGHT + c] = 0
            state[DESTROYED] += 1
    state[FACHAN] = stop


# --- cards --------------------------------------------------------------------------
@njit(cache=True)
def draw_card(state, p, rng):
    """Seat ``p`` draws one card, reshuffling the discard pile into an empty deck (MTM-4)."""
    total = state[DECK] + state[DECK + 1] + state[DECK + 2]
    if total == 0:
        for t in range(NUM_CARD_TYPES):
            state[DECK + t] = state[DISCARD + t]
            state[DISCARD + t] = 0
        total = state[DECK] + state[DECK + 1] + state[DECK + 2]
        if total == 0:
            return
    r = rng_below(rng, total)
    for t in range(NUM_CARD_TYPES):
        if r < state[DECK + t]:
            state[DECK + t] -= 1
            state[HAND + p * NUM_CARD_TYPES + t] += 1
            return
        r -= state[DECK + t]


@njit(cache=True)
def pay_cards(state, p, play):
    """Move the cards of ``play`` from seat ``p``'s hand to the discard pile (MTM-15)."""
    for t in range(NUM_CARD_TYPES):
        state[HAND + p * NUM_CARD_TYPES + t] -= PLAY_COST[play, t]
        state[DISCARD + t] += PLAY_COST[play, t]
    state[CARDS_PLAYED] += 1


# --- turn flow ---------------------------------------------------------------------
@njit(cache=True)
def check_win(state, p):
    """End the game if seat ``p`` has 45+ points and 3+ towers, or 90+ points (MTM-18)."""
    s = state[SCORE + p]
    if s >= INSTANT_WIN_POINTS or (s >= WIN_POINTS and towers(state, p) >= WIN_TOWERS):
        state[WINNER + p] = 1
        state[H_TERMINAL] = 1
        state[H_CURRENT] = -1
        state[PHASE] = PH_OVER
        return True
    return False


@njit(cache=True)
def start_turn(state, p, rng):
    """Steps 1-3 of seat ``p``'s turn up to the first decision (MTM-5 to MTM-7, MTM-17)."""
    turn_index = state[TURN]
    state[TURN] = turn_index + 1
    state[H_CURRENT] = p
    state[MOVED] = 0
    state[CARDS_PLAYED] = 0
    state[STOMPS] = 0
    state[OPP_TARGET_USED] = 0
    state[DESTROYED] = 0
    state[BUILD_LEFT] = 0
    state[BUILD_PLACED] = 0
    state[STOMP_N] = 0
    state[SCORE + p] += building_points(state, p)
    if check_win(state, p):
        return
    n = state[H_NUM_PLAYERS]
    draws = TURN_DRAW
    if turn_index < n:
        draws += EXTRA_DRAWS[n, turn_index]
    for _ in range(draws):
        draw_card(state, p, rng)
    state[FREE_HOUSES] = free_house_allowance(state[SCORE + p])
    state[FREE_TOWERS] = free_tower_allowance(state[SCORE + p])
    state[PHASE] = PH_FREE


@njit(cache=True)
def end_turn(state, rng):
    """Close step 4 and run step 5, then start the next seat's turn (MTM-15, MTM-16, MTM-20)."""
    p = state[H_CURRENT]
    if state[CARDS_PLAYED] == 0:
        for _ in range(NO_PLAY_DRAW):
            draw_card(state, p, rng)
    for _ in range(state[DESTROYED]):
        draw_card(state, p, rng)
    for q in range(MAX_PLAYERS):
        state[POOL + q] += state[PENDING + q]
        state[PENDING + q] = 0
    start_turn(state, (p + 1) % state[H_NUM_PLAYERS], rng)


@njit(cache=True)
def has_free_option(state, p):
    """Whether step 3 offers seat ``p`` any placement or upgrade."""
    for c in range(NUM_CELLS):
        if state[HEIGHT + c] == 0:
            if state[FREE_HOUSES] > 0 and house_reason(state, p, c) == OK:
                return True
        elif free_tower_reason(state, p, c) == OK:
            return True
    return False


@njit(cache=True)
def has_main_option(state, p):
    """Whether step 4 offers seat ``p`` anything besides ending the turn."""
    if state[MOVED] == 0:
        f = state[FACHAN]
        for d in range(NUM_DIRS):
            if RAY_LEN[f, d] > 0 and state[HEIGHT + RAY[f, d, 0]] == 0:
                return True
    can_build, can_fortify, can_stomp = plays_possible(state, p)
    for play in range(NUM_PLAYS):
        kind = PLAY_KIND[play]
        able = can_stomp if kind == STOMP else (can_build if kind == BUILD else can_fortify)
        if able and can_pay(state, p, play):
            return True
    return False


@njit(cache=True)
def advance(state, rng):
    """Skip decisions that offer nothing but stopping (ruling C6), possibly across turns."""
    while state[H_TERMINAL] == 0:
        p = state[H_CURRENT]
        phase = state[PHASE]
        if phase == PH_FREE and not has_free_option(state, p):
            state[PHASE] = PH_MAIN
        elif phase == PH_MAIN and not has_main_option(state, p):
            end_turn(state, rng)
        elif phase == PH_BUILD and (state[BUILD_LEFT] == 0 or not can_place_any_house(state, p)):
            state[PHASE] = PH_MAIN
        else:
            return


@njit(INIT_STATE_SIG, cache=True)
def init_state(state, config, rng):
    """Set up a new game from ``config`` = (num_players, max_steps, reward_mode) (MTM-3)."""
    state[:] = 0
    n = config[C_NUM_PLAYERS]
    state[H_NUM_PLAYERS] = n
    state[H_MAX_STEPS] = config[C_MAX_STEPS]
    state[H_REWARD_MODE] = config[C_REWARD_MODE]
    for c in range(NUM_CELLS):
        state[OWNER + c] = -1
    state[FACHAN] = CENTRE
    for p in range(n):
        state[POOL + p] = PIECES
    for t in range(NUM_CARD_TYPES):
        state[DECK + t] = DECK_COUNTS[t]
    for p in range(n):
        for _ in range(HAND_SIZE):
            draw_card(state, p, rng)
    first = rng_below(rng, n)
    state[FIRST_PLAYER] = first
    start_turn(state, first, rng)
    advance(state, rng)


@njit(APPLY_ACTION_SIG, cache=True)
def apply_action(state, action, rng):
    """Apply a legal ``action`` of the player on move (legality is the caller's check)."""
    state[H_STEPS] += 1
    p = state[H_CURRENT]
    phase = state[PHASE]
    if action < MOVE0:
        c = action - CELL0
        if phase == PH_FREE:
            if state[HEIGHT + c] == 0:
                state[OWNER + c] = p
                state[HEIGHT + c] = 1
                state[POOL + p] -= 1
                state[FREE_HOUSES] -= 1
            else:
                state[POOL + p] -= TOWER - state[HEIGHT + c]
                state[HEIGHT + c] = TOWER
                state[FREE_TOWERS] -= 1
                if check_win(state, p):
                    return
        elif phase == PH_BUILD:
            state[OWNER + c] = p
            state[HEIGHT + c] = 1
            state[POOL + p] -= 1
            state[BUILD_LEFT] -= 1
            state[BUILD_PLACED] += 1
        elif phase == PH_FORTIFY:
            state[HEIGHT + c] += 1
            state[POOL + p] -= 1
            state[PHASE] = PH_MAIN
            if check_win(state, p):
                return
        else:
            if state[OWNER + c] != p:
                state[OPP_TARGET_USED] = 1
            resolve_stomp(state, c)
            state[STOMPS] += 1
            state[PHASE] = PH_MAIN
    elif action == END:
        if phase == PH_FREE or phase == PH_BUILD:
            state[PHASE] = PH_MAIN
        else:
            end_turn(state, rng)
    elif action < PLAY0:
        d = (action - MOVE0) // MAX_RAY
        k = (action - MOVE0) % MAX_RAY
        state[FACHAN] = RAY[state[FACHAN], d, k]
        state[MOVED] = 1
    else:
        play = action - PLAY0
        pay_cards(state, p, play)
        kind = PLAY_KIND[play]
        if kind == BUILD:
            state[PHASE] = PH_BUILD
            state[BUILD_LEFT] = HOUSES_PER_BUILD
            state[BUILD_PLACED] = 0
        elif kind == FORTIFY:
            state[PHASE] = PH_FORTIFY
        else:
            state[PHASE] = PH_STOMP
            state[STOMP_N] = PLAY_STRENGTH[play]
    advance(state, rng)


@njit(RETURNS_SIG, cache=True)
def returns(state, out):
    """Final rewards per seat (ruling C3); zeros while the game runs."""
    out[:] = 0.0
    if state[H_TERMINAL] == 0:
        return
    n = state[H_NUM_PLAYERS]
    if state[H_REWARD_MODE] == REWARD_WIN:
        k = 0
        for p in range(n):
            k += state[WINNER + p]
        if k == 0 or k == n:
            return
        for p in range(n):
            out[p] = 1.0 / k if state[WINNER + p] else -1.0 / (n - k)
    else:
        mean = 0.0
        for p in range(n):
            mean += state[SCORE + p]
        mean /= n
        for p in range(n):
            out[p] = state[SCORE + p] - mean


# --- observation -------------------------------------------------------------------
OBS_HEIGHTS = 0                                     # [5 seats x 37 cells] height / 3
OBS_FACHAN = OBS_HEIGHTS + MAX_PLAYERS * NUM_CELLS  # one-hot cell
OBS_SCORES = OBS_FACHAN + NUM_CELLS                 # score / 150 per seat
OBS_POOL = OBS_SCORES + MAX_PLAYERS                 # pieces in pool / 25 per seat
OBS_PENDING = OBS_POOL + MAX_PLAYERS                # stomped pieces this turn / 25 per seat
OBS_HAND_SIZES = OBS_PENDING + MAX_PLAYERS          # hand size / 60 per seat
OBS_OWN_HAND = OBS_HAND_SIZES + MAX_PLAYERS         # own stomp, build, fortify / 60
OBS_DECK = OBS_OWN_HAND + NUM_CARD_TYPES            # deck size / 60
OBS_DISCARD = OBS_DECK + 1                          # discard pile per type / 60
OBS_PHASE = OBS_DISCARD + NUM_CARD_TYPES            # one-hot of 6 phases
OBS_ON_MOVE = OBS_PHASE + 6                         # one-hot seat on move
OBS_FIRST = OBS_ON_MOVE + MAX_PLAYERS               # one-hot first player
OBS_SEATED = OBS_FIRST + MAX_PLAYERS                # 1 for seats in the game
OBS_TURN = OBS_SEATED + MAX_PLAYERS                 # turn flags, see observe_into
OBS_SIZE = OBS_TURN + 10
SCORE_SCALE = 150.0


@njit(OBSERVE_SIG, cache=True)
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
    out[OBS_TURN + 2] = state[STOMPS] / 2.0
    out[OBS_TURN + 3] = state[OPP_TARGET_USED]
    out[OBS_TURN + 4] = state[FREE_HOUSES] / 3.0
    out[OBS_TURN + 5] = min(state[FREE_TOWERS] / 3.0, 1.0)
    out[OBS_TURN + 6] = state[BUILD_LEFT] / 2.0
    out[OBS_TURN + 7] = state[STOMP_N] / 3.0
    out[OBS_TURN + 8] = min(state[DESTROYED] / 12.0, 1.0)
    out[OBS_TURN + 9] = 1.0 if state[TURN] <= n else 0.0


@njit(DETERMINIZE_SIG, cache=True)
def determinize(state, player, rng):
    """Redeal every hand but ``player``'s from the cards ``player`` cannot see (MTM-19).

    Hand sizes stay as they are; the deck keeps the cards nobody was dealt.
    """
    n = state[H_NUM_PLAYERS]
    unseen = np.zeros(NUM_CARD_TYPES, np.int64)
    for t in range(NUM_CARD_TYPES):
        unseen[t] = state[DECK + t]
        for q in range(n):
            if q != player:
                unseen[t] += state[HAND + q * NUM_CARD_TYPES + t]
    sizes = np.zeros(MAX_PLAYERS, np.int64)
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

