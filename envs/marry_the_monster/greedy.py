"""A greedy one-ply heuristic for Marry the Monster (``marry_the_monster-greedy-v1``).

For every legal action but ``end`` the agent copies the state, applies the
action with the engine's own ``apply_action`` and scores the position for the
seat on move. Card plays open a follow-up decision (where to build, what to
fortify, which target to stomp) that belongs to the same player and involves no
chance, so a play is worth its best completion: the follow-ups are chosen
greedily the same way. ``end`` is worth the current position: simulating it
would draw hidden cards. Ties are broken with the agent's seeded generator.

The position value reads public fields only (the board, the fachan, scores and
the win flags), as the state contract of :mod:`monster_zoo.agents.base` demands. Per seat:

* its score, plus ``HORIZON`` turns of income from its buildings, where a
  building a stomp of its own height could reach from the fachan (no taller
  building shields it on the line) counts only ``EXPOSED_KEEP[height]`` of its
  value;
* progress towards the three towers of the win (a tower counts 2, a manor 1),
  weighted more as the seat's next score nears 45;
* ``WIN_VALUE`` for a win, half of it for a seat that wins at its next scoring
  unless someone stomps first.

The acting seat's value minus the strongest opponent's (plus a share of the
others' mean) is the score of a position; a card play also pays
``CARD_VALUE`` per card it spends. Scores are read from the state before the
action: they change only when a turn starts, and an action that happens to end
the turn must not look worse because the next seat has banked its income.

Rules are never re-implemented here: moves, plays, stomp lines, scoring and the
win check are the engine's kernels (``apply_action``, ``stomp_stop``,
``building_points``, ``towers``, ``check_win``).
"""

import numpy as np

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, H_TERMINAL, POLICY_SIG
from ..core.kernels import copy_vector, kernel, on_demand, scratch, scratch_empty
from ..core.rng import rng_pick_set
from ..core.seat_values import against_the_field
from .actions import CELL0, END, MOVE0, NUM_ACTIONS, PLAY0
from .components import (
    LINE_DIR,
    MAX_PLAYERS,
    NUM_CARD_TYPES,
    NUM_CELLS,
    PLAY_COST,
    VALUE,
    WIN_POINTS,
    WIN_TOWERS,
)
from .rules import apply_action, building_points, check_win, legal_mask, stomp_stop, towers
from .state_layout import (
    FACHAN,
    HEIGHT,
    OWNER,
    PH_BUILD,
    PH_FORTIFY,
    PH_STOMP,
    PHASE,
    SCORE,
    STATE_SIZE,
    WINNER,
)

WIN_VALUE = 1000.0
HORIZON = 3.0  # turns of income a building is worth
EXPOSED_KEEP = np.array([0.0, 0.5, 0.7, 0.85])  # share of an exposed building's value, by height
TOWER_BASE = 4.0  # worth of one step of tower progress far from 45 points ...
TOWER_NEAR = 12.0  # ... plus this much more as the next score reaches 45
CARD_VALUE = 1.0  # a card in hand, so cheap plays beat triples for the same effect
OTHERS_SHARE = 0.25  # weight of the non-leading opponents' mean against the leader
TIE = 1e-9


@on_demand
def seat_value(state, before, q, banked):
    """Worth of seat ``q``'s position in ``state``, with scores taken from ``before``.

    ``banked`` holds a copy of ``state`` (made once per position, not per seat) for the win check:
    seat ``q``'s score is banked there and put back after. ``check_win`` changes a state only when
    it ends its game, so only then is the copy made again for the next seat.
    """
    if state[WINNER + q] != 0:
        return WIN_VALUE
    score = before[SCORE + q]
    points = building_points(state, q)
    # The engine's win check on a copy banked with the next income tells whether
    # q wins at its next scoring (MTM-5, MTM-18) without restating the rule.
    banked[SCORE + q] = score + points
    wins = check_win(banked, q)
    banked[SCORE + q] = state[SCORE + q]
    if wins:
        copy_vector(banked, state)
        return WIN_VALUE / 2.0
    fachan = state[FACHAN]
    income = 0.0
    manors = 0
    for c in range(NUM_CELLS):
        if state[OWNER + c] != q:
            continue
        h = state[HEIGHT + c]
        keep = 1.0
        # Exposed: a stomp of the building's own height at it would end on it (the engine's stomp line).
        if LINE_DIR[fachan, c] >= 0 and stomp_stop(state, c, h) == c:
            keep = EXPOSED_KEEP[h]
        income += VALUE[c] * keep
        if h == 2:
            manors += 1
    built = min(towers(state, q), WIN_TOWERS)
    progress = 2 * built + min(manors, WIN_TOWERS - built)
    nearness = min(score + points, WIN_POINTS) / WIN_POINTS
    return score + HORIZON * income + (TOWER_BASE + TOWER_NEAR * nearness) * progress


@on_demand
def position_value(state, before, p, banked, values):
    """Seat ``p``'s value minus the strongest opponent's and a share of the others' mean
    (``banked`` and ``values``, of ``STATE_SIZE`` and ``MAX_PLAYERS`` entries, are work space)."""
    n = before[H_NUM_PLAYERS]
    copy_vector(banked, state)
    for q in range(n):
        values[q] = seat_value(state, before, q, banked)
    return against_the_field(values, p, n, 1.0, OTHERS_SHARE)


@on_demand
def settle_value(sim, before, p, rng, sim_rng, mask, child, scratch, values):
    """Complete a pending Build, Fortify or Stomp greedily in ``sim``; return the final value.

    These follow-ups are the same player's choices and draw no cards, so the
    play that opened them is worth its best completion.

    The chosen completion is applied to ``sim`` as it was to the child that scored it (the same
    state, action and generator), so ``sim``'s value is then known without scoring it again.
    """
    known = False  # whether value holds sim's position value
    value = 0.0
    while (
        sim[H_TERMINAL] == 0
        and sim[H_CURRENT] == p
        and (sim[PHASE] == PH_BUILD or sim[PHASE] == PH_FORTIFY or sim[PHASE] == PH_STOMP)
    ):
        legal_mask(sim, mask)
        best = -np.inf
        if mask[END] != 0:
            if not known:
                value = position_value(sim, before, p, scratch, values)
                known = True
            best = value
        best_action = -1
        for a in range(CELL0, MOVE0):
            if mask[a] == 0:
                continue
            copy_vector(child, sim)
            sim_rng[0] = rng[0]
            apply_action(child, a, sim_rng)
            v = position_value(child, before, p, scratch, values)
            if v > best + TIE:
                best = v
                best_action = a
        if best_action < 0:
            break
        sim_rng[0] = rng[0]
        apply_action(sim, best_action, sim_rng)
        value = best
        known = True
    if not known:
        value = position_value(sim, before, p, scratch, values)
    return value


@kernel(POLICY_SIG)
def greedy_action(state, action_mask, rng):
    """The legal action with the best one-ply value for the seat on move; ``state`` is not modified.

    Simulations draw (if a turn ends automatically) from a throwaway copy of
    ``rng``, which only advances to break ties.
    """
    p = state[H_CURRENT]
    sim = scratch_empty(STATE_SIZE, np.int32)
    child = scratch_empty(STATE_SIZE, np.int32)
    work = scratch_empty(STATE_SIZE, np.int32)
    sim_rng = scratch_empty(1, np.uint64)
    seat_values = scratch(MAX_PLAYERS, np.float64)
    mask = scratch(NUM_ACTIONS, np.int8)
    values = scratch_empty(NUM_ACTIONS, np.float64)
    for a in range(NUM_ACTIONS):
        values[a] = -np.inf
    best = -np.inf
    for a in range(NUM_ACTIONS):
        if action_mask[a] == 0:
            continue
        if a == END:
            v = position_value(state, state, p, work, seat_values)
        else:
            copy_vector(sim, state)
            sim_rng[0] = rng[0]
            apply_action(sim, a, sim_rng)
            v = settle_value(sim, state, p, rng, sim_rng, mask, child, work, seat_values)
            if a >= PLAY0:
                for t in range(NUM_CARD_TYPES):
                    v -= CARD_VALUE * PLAY_COST[a - PLAY0, t]
        values[a] = v
        best = max(best, v)
    for a in range(NUM_ACTIONS):
        mask[a] = 1 if values[a] >= best - TIE else 0
    return rng_pick_set(mask, rng)
