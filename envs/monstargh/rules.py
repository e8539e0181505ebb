"""MONSTArgh! rules as numba kernels: the single source of truth.

Everything the game does happens here: scene setup (species in play, secret tokens,
dealing), card plays, the protagonist's interaction loop (eclipses and steals),
drawing, skipping empty hands, scene scoring, game end and the next scene's starting
player. What a seat sees and the redeal of what it cannot see (``observe_into``,
``determinize``) are in ``observation.py``. The AEC env, the batched engine and the
agents only call these kernels. Rule ids (MA-n) refer to ``seeds/monstargh/rules.md``.

The deck is a set, not a sequence: a draw picks one of the cards still in the deck
uniformly, which is the same as drawing the top card of a shuffled deck. The state
therefore holds no deck order at all, and a planner that clones it cannot see future
draws.

Compile time: every numba function is compiled on its own and again inside each caller, so
small helpers are inlined (``@inlined``), the few shared bigger ones are compiled once
for one signature (``@helper(sig, python=False)``: no second specialisation for an int32 or a literal argument),
and the kernels an adapter only needs now and then (``illegal_reason``, and ``determinize`` in
``observation.py``) compile on their first call instead of at import.
"""

import numpy as np
from numba import types

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
    RNG,
    STATE,
)
from ..core.header import start_game
from ..core.kernels import helper, inlined, kernel
from ..core.rewards import c3_returns
from ..core.rng import rng_below, shuffle_range
from .actions import CARD0, FOCUS0, NUM_ACTIONS, PLACE0, STEAL0, TARGET0
from .components import (
    CARD_SPECIES,
    CARD_VALUE,
    DRAW_AFTER_PLAY,
    DX,
    DY,
    FOCUS_AMOUNTS,
    MAX_PLAYERS,
    MONSTERS_DEALT,
    NEAR_BACK,
    NEAR_INDEX,
    NEAR_SPAN,
    NUM_CARDS,
    NUM_DIRS,
    NUM_FOCUS,
    NUM_NEAR,
    NUM_SPECIES,
    SPECIES_IN_PLAY,
    STARS_TO_END,
)
from .queries import NO_CARD, neighbour_top
from .state_layout import (
    ACTIVE,
    CARD_CELL,
    CARD_LEVEL,
    CELL_HEIGHT,
    CELL_TOP,
    CELL_X,
    CELL_Y,
    CELLS_USED,
    CHOSEN,
    DECK_LEFT,
    FOCUS,
    FOCUS_AMOUNT,
    HELD,
    IN_PLAY,
    LAST_STARS,
    LAST_TOKEN,
    NEAR,
    PH_CHOOSE,
    PH_OVER,
    PH_PLACE,
    PH_STEAL,
    PH_TARGET,
    PHASE,
    PROT_VALUE,
    PROTAGONIST,
    SCENE,
    STARS,
    STARTER,
    TIEBREAK,
    TOKEN,
    TOKEN_HISTORY,
    TOKEN_ROOM,
    W_DECK,
    W_OUT,
    W_PLAYING,
    W_TABLE,
    WHERE,
    WINNER,
)

# --- config vector after the common entries -------------------------------------------
C_TIEBREAK = CONFIG_COMMON  # 0: ties share the win, 1: extra scenes until the tie breaks
C_SPECIES = CONFIG_COMMON + 1  # bit s set for each named species; 0 draws them at random
TIEBREAK_SHARE = 0  # any other value plays extra scenes until the tie breaks

# --- reasons an action is illegal (codes for illegal_reason) -----------------------------
OK = 0
R_GAME_OVER = 1
R_OUT_OF_RANGE = 2
R_WRONG_PHASE = 3
R_NOT_IN_HAND = 4
R_FOCUS_SPENT = 5
R_FIRST_PLAY = 6
R_NOT_VISIBLE = 7
R_CELL_TAKEN = 8
R_OTHER_NAME = 9
R_NO_STEAL = 10

REASONS = {
    R_GAME_OVER: "the game is over",
    R_OUT_OF_RANGE: "the action index is out of range",
    R_WRONG_PHASE: (
        "it does not fit the decision at hand: first a card is chosen, then the chosen "
        "monster's cell, the focus card's target or the protagonist's steal"
    ),
    R_NOT_IN_HAND: "that monster card is not in the player's hand",
    R_FOCUS_SPENT: "the player has already played that focus card this scene",
    R_FIRST_PLAY: "a scene's first play must be a monster card (MA-7)",
    R_NOT_VISIBLE: "that card is not a visible card on the table",
    R_CELL_TAKEN: "the cell on that side already holds a card",
    R_OTHER_NAME: (
        "that cell borders a visible card listed earlier (lowest species, then value); "
        "the action naming that card places there (MA-19)"
    ),
    R_NO_STEAL: "the neighbour on that side is not of another species with a value one below the protagonist",
}


# --- small queries ------------------------------------------------------------------------
@inlined
def hand_monsters(state, p):
    """Number of monster cards seat ``p`` holds."""
    return state[HELD + p]


@inlined
def focus_held(state, p):
    """Number of focus cards seat ``p`` still holds this scene."""
    count = 0
    for f in range(NUM_FOCUS):
        count += state[FOCUS + p * NUM_FOCUS + f]
    return count


@inlined
def hand_size(state, p):
    """Cards in seat ``p``'s hand: monsters and focus cards."""
    return hand_monsters(state, p) + focus_held(state, p)


@inlined
def deck_size(state):
    """Monster cards left in the deck."""
    return state[DECK_LEFT]


@inlined
def table_empty(state):
    """True before a scene's first card is placed."""
    return state[CELLS_USED] == 0


@helper
def cell_at(state, x, y):
    """The slot of the occupied cell at ``(x, y)``, or -1 when that cell is empty."""
    for k in range(NUM_CARDS):
        if state[CELL_TOP + k] >= 0 and state[CELL_X + k] == x and state[CELL_Y + k] == y:
            return k
    return -1


@inlined
def is_visible(state, card):
    """True when ``card`` is the top card of a cell on the table."""
    return state[WHERE + card] == W_TABLE and state[CELL_TOP + state[CARD_CELL + card]] == card


@inlined
def visible_counts(state, out):
    """Visible monsters per species into ``out`` (length ``NUM_SPECIES``)."""
    out[:] = 0
    for k in range(NUM_CARDS):
        top = state[CELL_TOP + k]
        if top >= 0:
            out[CARD_SPECIES[top]] += 1


# --- legality ------------------------------------------------------------------------------
@inlined
def side_open(state, k, d):
    """Whether the chosen monster may go on side ``d`` of occupied cell slot ``k``, named through
    that cell's top card: the cell there is empty (MA-6) and the top card is the lowest visible
    card next to it (MA-19); its other neighbours are near cells of ``k``. Branch-free: the
    legal mask asks this of every side of every cell."""
    near = NEAR + k * NUM_NEAR
    t = state[CELL_TOP + k]
    return (
        (state[near + d] == NO_CARD)
        & (state[near + NUM_DIRS + d] > t)
        & (state[near + 2 * NUM_DIRS + d] > t)
        & (state[near + 2 * NUM_DIRS + ((d + NUM_DIRS - 1) & (NUM_DIRS - 1))] > t)
    )


@inlined
def side_reason(state, k, d):
    """Why the chosen monster may not go on side ``d`` of occupied cell slot ``k`` (OK if it may):
    the cell there holds a card, or a lower visible card borders it (``side_open``)."""
    if state[NEAR + k * NUM_NEAR + d] != NO_CARD:
        return R_CELL_TAKEN
    return OK if side_open(state, k, d) else R_OTHER_NAME


@inlined
def placement_reason(state, t, d):
    """Why the chosen monster may not go on side ``d`` of card ``t`` (OK if it may)."""
    if not is_visible(state, t):
        return R_NOT_VISIBLE
    return side_reason(state, state[CARD_CELL + t], d)


@inlined
def steal_candidate(state, d):
    """Whether the protagonist may steal from its neighbour on side ``d`` (MA-11)."""
    prot = state[PROTAGONIST]
    victim = neighbour_top(state, prot, d)
    return (
        victim >= 0
        and CARD_VALUE[victim] == state[PROT_VALUE] - 1
        and CARD_SPECIES[victim] != CARD_SPECIES[prot]
    )


@helper  # compiled when first needed: only an illegal action asks why
def illegal_reason(state, action):
    """0 if ``action`` is legal for the player on move, else a code of ``REASONS``."""
    if action < 0 or action >= NUM_ACTIONS:
        return R_OUT_OF_RANGE
    if state[H_TERMINAL] != 0:
        return R_GAME_OVER
    p = state[H_CURRENT]
    phase = state[PHASE]
    if action < FOCUS0:
        if phase != PH_CHOOSE:
            return R_WRONG_PHASE
        return OK if state[WHERE + action - CARD0] == p else R_NOT_IN_HAND
    if action < PLACE0:
        if phase != PH_CHOOSE:
            return R_WRONG_PHASE
        if state[FOCUS + p * NUM_FOCUS + (action - FOCUS0) // 2] == 0:
            return R_FOCUS_SPENT
        return R_FIRST_PLAY if table_empty(state) else OK
    if action < TARGET0:
        if phase != PH_PLACE:
            return R_WRONG_PHASE
        return placement_reason(state, (action - PLACE0) // NUM_DIRS, (action - PLACE0) % NUM_DIRS)
    if action < STEAL0:
        if phase != PH_TARGET:
            return R_WRONG_PHASE
        return OK if is_visible(state, action - TARGET0) else R_NOT_VISIBLE
    if phase != PH_STEAL:
        return R_WRONG_PHASE
    return OK if steal_candidate(state, action - STEAL0) else R_NO_STEAL


@kernel(LEGAL_MASK_SIG)
def legal_mask(state, out):
    """Write the legal actions of the player on move into ``out``; return how many there are."""
    out[:] = 0
    if state[H_TERMINAL] != 0:
        return 0
    p = state[H_CURRENT]
    phase = state[PHASE]
    count = 0
    if phase == PH_CHOOSE:
        for c in range(NUM_CARDS):
            out[CARD0 + c] = state[WHERE + c] == p
        count = state[HELD + p]
        if not table_empty(state):
            for f in range(NUM_FOCUS):
                held = state[FOCUS + p * NUM_FOCUS + f]  # 1 while in hand: raise or lower
                out[FOCUS0 + 2 * f] = held
                out[FOCUS0 + 2 * f + 1] = held
                count += 2 * held
    elif phase == PH_PLACE:
        cells = state[CELLS_USED]
        k = 0
        while cells > 0:
            t = state[CELL_TOP + k]
            if t >= 0:
                cells -= 1
                for d in range(NUM_DIRS):
                    ok = side_open(state, k, d)
                    out[PLACE0 + NUM_DIRS * t + d] = ok
                    count += ok
            k += 1
    elif phase == PH_TARGET:
        for k in range(NUM_CARDS):
            t = state[CELL_TOP + k]
            if t >= 0:
                out[TARGET0 + t] = 1
                count += 1
    elif phase == PH_STEAL:
        for d in range(NUM_DIRS):
            if steal_candidate(state, d):
                out[STEAL0 + d] = 1
                count += 1
    return count


# --- changing the state ---------------------------------------------------------------
# Moving cards, and the protagonist's interaction loop.
@inlined
def move_card(state, c, dest):
    """Move monster card ``c`` to ``dest`` (a seat, W_DECK, W_TABLE, W_PLAYING), keeping the
    hand and deck counts in step."""
    src = state[WHERE + c]
    if src >= 0:
        state[HELD + src] -= 1
    elif src == W_DECK:
        state[DECK_LEFT] -= 1
    if dest >= 0:
        state[HELD + dest] += 1
    elif dest == W_DECK:
        state[DECK_LEFT] += 1
    state[WHERE + c] = dest


@helper(types.void(STATE, types.int64, RNG), python=False)
def draw_card(state, p, rng):
    """Seat ``p`` draws a uniformly chosen card of the deck; nothing when it is empty (MA-14)."""
    left = deck_size(state)
    if left == 0:
        return
    k = rng_below(rng, np.int64(left))  # every draw comes from the seeded generator (MA-22)
    for c in range(NUM_CARDS):
        k -= state[WHERE + c] == W_DECK
        if k < 0:
            move_card(state, c, p)
            return


@inlined
def link_cell(state, k):
    """Record occupied cell slot ``k``'s top card in the near cells of every occupied cell near
    it and theirs in its own; the other occupied cells are counted by ``CELLS_USED``."""
    x = state[CELL_X + k]
    y = state[CELL_Y + k]
    top = state[CELL_TOP + k]
    others = state[CELLS_USED] - 1
    n = 0
    while others > 0:
        t = state[CELL_TOP + n]
        if t >= 0 and n != k:
            others -= 1
            dx = min(max(state[CELL_X + n] - x, -NEAR_SPAN), NEAR_SPAN)
            dy = min(max(state[CELL_Y + n] - y, -NEAR_SPAN), NEAR_SPAN)
            j = NEAR_INDEX[(dy + NEAR_SPAN) * (2 * NEAR_SPAN + 1) + dx + NEAR_SPAN]
            if j >= 0:
                state[NEAR + k * NUM_NEAR + j] = t
                state[NEAR + n * NUM_NEAR + NEAR_BACK[j]] = top
        n += 1


@helper
def recount(state):
    """Recompute the hand, deck and cell counts and the near cells from the card and cell
    fields (after a state was edited directly, as tests do)."""
    for p in range(MAX_PLAYERS):
        state[HELD + p] = 0
    state[DECK_LEFT] = 0
    state[CELLS_USED] = 0
    for i in range(NUM_CARDS * NUM_NEAR):
        state[NEAR + i] = NO_CARD
    for c in range(NUM_CARDS):
        w = state[WHERE + c]
        if w >= 0:
            state[HELD + w] += 1
        elif w == W_DECK:
            state[DECK_LEFT] += 1
        if state[CELL_TOP + c] >= 0:
            state[CELLS_USED] += 1
    for k in range(NUM_CARDS):
        if state[CELL_TOP + k] >= 0:
            link_cell(state, k)


@inlined
def place_card(state, card, x, y):
    """Put ``card`` alone on the empty cell ``(x, y)`` in the first free cell slot."""
    k = 0
    while state[CELL_TOP + k] >= 0:
        k += 1
    state[CELL_X + k] = x
    state[CELL_Y + k] = y
    state[CELL_TOP + k] = card
    state[CELL_HEIGHT + k] = 1
    state[CELLS_USED] += 1
    link_cell(state, k)
    move_card(state, card, W_TABLE)
    state[CARD_CELL + card] = k
    state[CARD_LEVEL + card] = 0


@inlined
def empty_cell(state, k):
    """Mark cell slot ``k`` empty; its near cells forget it (the cards near it still lie in their
    cells: ``CARD_CELL`` of their top cards finds them)."""
    state[CELLS_USED] -= state[CELL_TOP + k] >= 0
    for j in range(NUM_NEAR):
        t = state[NEAR + k * NUM_NEAR + j]
        if t != NO_CARD:
            state[NEAR + state[CARD_CELL + t] * NUM_NEAR + NEAR_BACK[j]] = NO_CARD
            state[NEAR + k * NUM_NEAR + j] = NO_CARD
    state[CELL_TOP + k] = -1
    state[CELL_HEIGHT + k] = 0
    state[CELL_X + k] = 0
    state[CELL_Y + k] = 0


@helper(types.void(STATE, types.int64, types.int64), python=False)
def slide_under(state, below, above):
    """Stack cell ``above``'s cards on top of cell ``below``'s; the result lies in ``below``.

    Cards off the table have no cell (``CARD_CELL`` -1), so the cell alone picks the stack."""
    lift = state[CELL_HEIGHT + below]
    for c in range(NUM_CARDS):
        moved = state[CARD_CELL + c] == above
        state[CARD_LEVEL + c] += lift * moved
        state[CARD_CELL + c] = below if moved else state[CARD_CELL + c]
    state[CELL_HEIGHT + below] += state[CELL_HEIGHT + above]
    top = state[CELL_TOP + above]
    state[CELL_TOP + below] = top
    empty_cell(state, above)
    for j in range(NUM_NEAR):  # the new top shows in the near cells of ``below``
        t = state[NEAR + below * NUM_NEAR + j]
        if t != NO_CARD:
            state[NEAR + state[CARD_CELL + t] * NUM_NEAR + NEAR_BACK[j]] = top


@inlined
def eclipse(state, prot_cell, other):
    """Cell ``other``'s whole stack goes under the protagonist's stack; ``other`` empties (MA-10).

    Cards off the table have no cell (``CARD_CELL`` -1), so the cell alone picks the stacks."""
    lift = state[CELL_HEIGHT + other]
    for c in range(NUM_CARDS):
        cell = state[CARD_CELL + c]
        state[CARD_LEVEL + c] += lift * (cell == prot_cell)
        state[CARD_CELL + c] = prot_cell if cell == other else cell
    state[CELL_HEIGHT + prot_cell] += lift
    empty_cell(state, other)


@inlined
def steal(state, d):
    """The protagonist's stack moves on top of its neighbour on side ``d`` (MA-11)."""
    prot = state[PROTAGONIST]
    k = state[CARD_CELL + prot]
    victim = neighbour_top(state, prot, d)
    slide_under(state, state[CARD_CELL + victim], k)


@inlined
def interact(state):
    """Run the protagonist's interaction loop; True once it has ended, False when the active
    player must choose a steal first.

    Eclipses first (MA-10), then steals; a single candidate is stolen from without asking
    (MA-11); after a steal the loop starts again from the new cell (MA-12).
    """
    prot = state[PROTAGONIST]
    target = state[PROT_VALUE] - 1
    species = CARD_SPECIES[prot]
    while True:
        k = state[CARD_CELL + prot]
        count = 0
        only = -1
        for d in range(NUM_DIRS):
            t = state[NEAR + k * NUM_NEAR + d]
            if t != NO_CARD and CARD_VALUE[t] == target:
                if CARD_SPECIES[t] == species:
                    eclipse(state, k, state[CARD_CELL + t])
                else:
                    count += 1
                    only = t
        if count == 0:
            return True
        if count > 1:
            state[PHASE] = PH_STEAL
            return False
        slide_under(state, state[CARD_CELL + only], k)


# --- turn flow ------------------------------------------------------------------------
# Scenes, and the end of a play.
@inlined
def clear_table(state):
    """Every card in play back to the deck and every cell slot empty, counts set to match.

    Only occupied slots have near cells to forget; a zeroed state (a new game) has every
    slot's top at 0, so all of them are reset there too."""
    for k in range(NUM_CARDS):
        if state[CELL_TOP + k] >= 0:
            for j in range(NUM_NEAR):
                state[NEAR + k * NUM_NEAR + j] = NO_CARD
        state[CELL_TOP + k] = -1
        state[CELL_HEIGHT + k] = 0
        state[CELL_X + k] = 0
        state[CELL_Y + k] = 0
    deck = 0
    for c in range(NUM_CARDS):
        state[CARD_CELL + c] = -1
        state[CARD_LEVEL + c] = 0
        if state[WHERE + c] != W_OUT:
            state[WHERE + c] = W_DECK
            deck += 1
    for p in range(MAX_PLAYERS):
        state[HELD + p] = 0
    state[DECK_LEFT] = deck
    state[CELLS_USED] = 0


@inlined
def fewest_stars(state, rng):
    """A seat with the fewest stars, chosen at random among ties (MA-4)."""
    n = state[H_NUM_PLAYERS]
    low = state[STARS]
    for p in range(1, n):
        low = min(low, state[STARS + p])
    tied = 0
    for p in range(n):
        tied += state[STARS + p] == low
    k = rng_below(rng, tied)
    for p in range(n):
        if state[STARS + p] == low:
            if k == 0:
                return p
            k -= 1
    return 0


@helper(types.void(STATE, RNG), python=False)
def start_scene(state, rng):
    """Clear the table, deal tokens, monster cards and focus cards, pick the starter (MA-3, MA-4)."""
    n = state[H_NUM_PLAYERS]
    clear_table(state)
    count = 0  # the tokens of the species in play, shuffled (Fisher-Yates) in place
    for s in range(NUM_SPECIES):
        if state[IN_PLAY + s]:
            state[TOKEN + count] = s
            count += 1
    shuffle_range(state, TOKEN, count, rng)
    for p in range(n, count):
        state[TOKEN + p] = -1  # tokens nobody is dealt stay in the box
    for p in range(n):
        for _ in range(MONSTERS_DEALT):
            draw_card(state, p, rng)
        for f in range(NUM_FOCUS):
            state[FOCUS + p * NUM_FOCUS + f] = 1
    state[SCENE] += 1
    starter = rng_below(rng, np.int64(n)) if state[SCENE] == 1 else fewest_stars(state, rng)
    state[STARTER] = starter
    state[ACTIVE] = starter
    state[H_CURRENT] = starter
    state[PHASE] = PH_CHOOSE
    state[PROTAGONIST] = -1
    state[CHOSEN] = -1


@inlined
def end_scene(state, rng):
    """Score the scene (MA-15), reveal the tokens (MA-16), end the game or start a scene (MA-17)."""
    n = state[H_NUM_PLAYERS]
    best = 0
    for p in range(n):
        s = state[TOKEN + p]
        gained = 0  # visible monsters of the seat's species
        for k in range(NUM_CARDS):
            top = state[CELL_TOP + k]
            gained += top >= 0 and CARD_SPECIES[top] == s
        state[LAST_STARS + p] = gained
        state[STARS + p] += gained
        state[LAST_TOKEN + p] = s
        state[TOKEN_HISTORY + p * NUM_SPECIES + s] += 1
        best = max(best, state[STARS + p])
    if best >= STARS_TO_END:
        leaders = 0
        for p in range(n):
            leaders += state[STARS + p] == best
        if leaders == 1 or state[TIEBREAK] == TIEBREAK_SHARE:
            for p in range(n):
                state[WINNER + p] = state[STARS + p] == best
            state[H_TERMINAL] = 1
            state[H_CURRENT] = -1
            state[PHASE] = PH_OVER
            return
    start_scene(state, rng)


@inlined
def finish_play(state, rng):
    """End the play: drop the focus (MA-13), draw (MA-14), pass to the next non-empty hand (MA-5)."""
    state[PROTAGONIST] = -1
    state[PROT_VALUE] = 0
    state[FOCUS_AMOUNT] = 0
    state[CHOSEN] = -1
    state[PHASE] = PH_CHOOSE
    p = state[ACTIVE]
    for _ in range(DRAW_AFTER_PLAY):
        draw_card(state, p, rng)
    n = state[H_NUM_PLAYERS]
    for step in range(1, n + 1):
        q = (p + step) % n
        if hand_size(state, q) > 0:
            state[ACTIVE] = q
            state[H_CURRENT] = q
            return
    end_scene(state, rng)


# --- the kernel contract ----------------------------------------------------------------------
@kernel(INIT_STATE_SIG)
def init_state(state, config, rng):
    """Set up a new game from ``config`` = (num_players, max_steps, reward_mode, tiebreak,
    species bits) (MA-2, MA-3)."""
    n = start_game(state, config)
    state[TIEBREAK] = config[C_TIEBREAK]
    named = config[C_SPECIES]
    if named != 0:
        for s in range(NUM_SPECIES):
            state[IN_PLAY + s] = (named >> s) & 1
    else:  # the first species of a random order (Fisher-Yates), shuffled in TOKEN's room
        for s in range(NUM_SPECIES):
            state[TOKEN + s] = s
        shuffle_range(state, TOKEN, NUM_SPECIES, rng)
        for i in range(SPECIES_IN_PLAY[n]):
            state[IN_PLAY + state[TOKEN + i]] = 1
    for c in range(NUM_CARDS):
        state[WHERE + c] = W_DECK if state[IN_PLAY + CARD_SPECIES[c]] else W_OUT
    for p in range(MAX_PLAYERS):
        state[LAST_TOKEN + p] = -1
    for i in range(TOKEN_ROOM):
        state[TOKEN + i] = -1
    start_scene(state, rng)


@helper(types.boolean(STATE, types.int64), python=False)
def play_step(state, action):
    """Carry out one decision of a play, up to the end of the interaction loop but not beyond:
    True when the play is complete (its card placed or its focus resolved, every steal made).

    ``apply_action`` then finishes the turn; agents may call this alone to see what a play does
    to the table without drawing cards or ending the scene.
    """
    p = state[H_CURRENT]
    if action < FOCUS0 and not table_empty(state):
        state[CHOSEN] = action - CARD0
        move_card(state, action - CARD0, W_PLAYING)
        state[PHASE] = PH_PLACE
        return False
    if FOCUS0 <= action < PLACE0:
        f = (action - FOCUS0) // 2
        sign = 1 - 2 * ((action - FOCUS0) % 2)
        state[FOCUS + p * NUM_FOCUS + f] = 0
        state[FOCUS_AMOUNT] = sign * FOCUS_AMOUNTS[f]
        state[PHASE] = PH_TARGET
        return False
    if action < TARGET0:  # a monster card goes onto the table
        if action < FOCUS0:
            card = action - CARD0
            x = 0  # the scene's first card has one place to go (MA-6, MA-19)
            y = 0
        else:
            t = (action - PLACE0) // NUM_DIRS
            d = (action - PLACE0) % NUM_DIRS
            k = state[CARD_CELL + t]
            card = state[CHOSEN]
            x = state[CELL_X + k] + DX[d]
            y = state[CELL_Y + k] + DY[d]
            state[CHOSEN] = -1
        place_card(state, card, x, y)
        state[PROTAGONIST] = card  # the card just placed is the protagonist (MA-8)
        state[PROT_VALUE] = CARD_VALUE[card]
    elif action < STEAL0:
        t = action - TARGET0
        state[PROTAGONIST] = t
        state[PROT_VALUE] = CARD_VALUE[t] + state[FOCUS_AMOUNT]
    else:
        steal(state, action - STEAL0)
    return interact(state)


@kernel(APPLY_ACTION_SIG)
def apply_action(state, action, rng):
    """Apply a legal ``action`` of the player on move (legality is the caller's check)."""
    state[H_STEPS] += 1
    if play_step(state, action):
        finish_play(state, rng)


@kernel(RETURNS_SIG)
def returns(state, out):
    """Final rewards per seat (MA-20, ruling C3); zeros while the game runs."""
    c3_returns(state, WINNER, STARS, out)
