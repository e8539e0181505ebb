"""A greedy one-ply heuristic for Monster Factory (``monster_factory-greedy-v1``).

For every legal action the agent copies the state, applies the action with the
engine's own ``apply_action`` (on a throwaway copy of its generator) and values
the position for the seat on move. Every seat is worth its banked score plus the
prospect of its monster in progress:

* a monster's worth is what completing it would score (its tiles for a first
  monster, its eye tiles for a minion, MF-15);
* its prospect is that worth times, for each open cell (an empty cell beside an
  open edge, as the engine lists them), the chance that one of the next few draws
  fits the cell (the share of the supply whose kind the engine's fit table, built
  from its ``fit_reason``, accepts there; ``OWN_LOOKAHEAD`` draws for one's own
  monster, ``OPPONENT_LOOKAHEAD`` for others'), times the share of the supply
  left for filling all its cells. A cell no tile left can fill makes it worthless.

The acting seat's value minus ``OPPONENT_WEIGHT`` times the strongest opponent's
and ``OTHERS_SHARE`` times the others' mean is the score of an action; an action
that ends the game is worth ``WIN_VALUE`` shared among the winners (or minus it
for a loss). This gives the behaviour a sensible player shows: closing one's own
monster banks its full worth, so it comes first whenever the monster scores;
otherwise tiles that grow one's own monster into easily filled cells come next;
and tiles that leave hard-to-fill or unfillable cells on an opponent's monster
(awkward tiles) are put there. A start tile is the kind with the most thin and
thick edges, as the rulebook advises (ties broken by the generator).

Only public information is read (MF-18: everything but the supply order, which
the state does not hold). Rules are never re-implemented: placement, completion,
scoring and the matching test are the engine's kernels.

``python -m monster_zoo.benchmarks.first_monsters --stats`` prints, per player count,
how often first monsters are completed and their mean size in random and in
greedy games.
"""

import numpy as np

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, H_TERMINAL, POLICY_SIG
from ..core.kernels import copy_vector, kernel, on_demand, scratch, scratch_empty
from ..core.rng import rng_pick_set
from ..core.seat_values import against_the_field
from .actions import NUM_ACTIONS, PLACE0, START0
from .components import EDGES, MAX_PLAYERS, NUM_KINDS, NUM_SIDES
from .queries import key_monster
from .rules import FITTING_KINDS, apply_action
from .state_layout import (
    CELL_KEY,
    CELL_NEEDS,
    CURRENT_MONSTER,
    MON_EYES,
    MON_ORDINAL,
    MON_SIZE,
    NUM_CELLS,
    SCORE,
    STATE_SIZE,
    SUPPLY,
    SUPPLY_LEFT,
    WINNER,
)

OWN_LOOKAHEAD = 2.0  # draws counted on to fill each open cell of one's own monster
OPPONENT_LOOKAHEAD = 4.0  # the same for opponents' monsters
OPPONENT_WEIGHT = 1.0  # weight of the strongest opponent's value
OTHERS_SHARE = 0.5  # weight of the other opponents' mean value
WIN_VALUE = 1000.0  # a finished game: won outright, shared (divided by the sharers) or lost
TIE = 1e-9


@on_demand
def prospect(state, m, lookahead):
    """Expected worth of monster ``m`` in progress.

    Its worth times, per open cell (an empty cell beside an open edge, as the engine lists
    them), the chance that one of the next ``lookahead`` draws fits that cell (the share of the
    supply whose kind the engine's fit table accepts there), times the share of the game left
    for filling them. A cell no tile left can fill makes the monster worthless.
    """
    worth = state[MON_SIZE + m] if state[MON_ORDINAL + m] == 0 else state[MON_EYES + m]
    draws = state[SUPPLY_LEFT]
    if worth == 0 or draws == 0:
        return 0.0
    cells = 0
    chance = 1.0
    for j in range(state[NUM_CELLS]):
        if key_monster(state[CELL_KEY + j]) != m:
            continue
        cells += 1
        kinds = FITTING_KINDS[state[CELL_NEEDS + j]]
        fitting = 0
        for k in range(NUM_KINDS):
            if (kinds >> k) & 1:
                fitting += state[SUPPLY + k]
        if fitting == 0:
            return 0.0
        chance *= 1.0 - (1.0 - fitting / draws) ** lookahead
    # Each open cell needs at least one of the draws left, and a seat makes about 1/n of them.
    time_left = max(0.0, 1.0 - cells * state[H_NUM_PLAYERS] / (draws + 1.0))
    return worth * chance * time_left


@on_demand
def final_value(state, p):
    """Worth of a finished game to seat ``p``: ``WIN_VALUE`` shared among the winners, or
    ``-WIN_VALUE`` for a loss, plus the score lead over the best opponent as a tie-break."""
    n = state[H_NUM_PLAYERS]
    winners = 0
    best_other = 0
    for q in range(n):
        winners += state[WINNER + q]
        if q != p:
            best_other = max(best_other, state[SCORE + q])
    lead = state[SCORE + p] - best_other
    if state[WINNER + p] == 0:
        return -WIN_VALUE + lead
    return WIN_VALUE / winners + lead


@on_demand
def position_value(state, p, values):
    """Seat ``p``'s value minus the strongest opponent's and a share of the others' mean
    (``final_value`` once the game is over); ``values`` is work space of ``MAX_PLAYERS`` entries."""
    n = state[H_NUM_PLAYERS]
    if state[H_TERMINAL] != 0:
        return final_value(state, p)
    for q in range(n):
        values[q] = state[SCORE + q]
        m = state[CURRENT_MONSTER + q]
        if m >= 0:
            values[q] += prospect(state, m, OWN_LOOKAHEAD if q == p else OPPONENT_LOOKAHEAD)
    return against_the_field(values, p, n, OPPONENT_WEIGHT, OTHERS_SHARE)


@on_demand
def start_value(kind):
    """Worth of a start tile kind: its thin and thick edges (the rulebook advises tiles that
    connect on 3 or 4 sides: a start tile with one open side is closed by the first tile
    anyone lays on it, ending the first monster at 2 tiles)."""
    joins = 0.0
    for d in range(NUM_SIDES):
        joins += EDGES[kind, 0, d] != 0
    return joins


@kernel(POLICY_SIG)
def greedy_action(state, action_mask, rng):
    """The legal action with the best one-ply value for the seat on move; ``state`` is not modified.

    Simulations draw (the next tile, a minion's start tile) from a throwaway copy of
    ``rng``, which only advances to break ties.
    """
    p = state[H_CURRENT]
    sim = scratch_empty(STATE_SIZE, np.int32)
    sim_rng = scratch_empty(1, np.uint64)
    values = scratch_empty(NUM_ACTIONS, np.float64)
    seat_values = scratch_empty(MAX_PLAYERS, np.float64)
    for a in range(NUM_ACTIONS):
        values[a] = -np.inf
    best = -np.inf
    for a in range(NUM_ACTIONS):
        if action_mask[a] == 0:
            continue
        if a < PLACE0:
            v = start_value(a - START0)
        else:
            copy_vector(sim, state)
            sim_rng[0] = rng[0]
            apply_action(sim, a, sim_rng)
            v = position_value(sim, p, seat_values)
        values[a] = v
        best = max(best, v)
    mask = scratch(NUM_ACTIONS, np.int8)
    for a in range(NUM_ACTIONS):
        mask[a] = 1 if values[a] >= best - TIE else 0
    return rng_pick_set(mask, rng)
