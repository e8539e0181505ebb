"""MONSTArgh!'s observation (MA-18): what a seat sees, as ``OBS_SIZE`` floats, and the redeal of
what it cannot see.

``observe_into`` writes the public state (the table with every stack, hand sizes, the focus
cards each seat still holds, the deck size, the stars, the species revealed in earlier scenes)
plus the observer's own species token and hand; the slices from ``OBS_PREY`` on are derived from
that view (observation v3). Never seen: the other seats' species tokens and hands, and which
cards lie in the deck. ``determinize`` resamples those for a search. Rule ids (MA-n) refer to
``seeds/monstargh/rules.md``.
"""

import numpy as np

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, H_TERMINAL, OBSERVE_SIG
from ..core.kernels import kernel, on_demand, scratch, scratch_empty
from ..core.rng import shuffle_range
from .components import (
    CARD_SPECIES,
    CARD_VALUE,
    FOCUS_AMOUNTS,
    MAX_PLAYERS,
    MAX_REACH,
    MONSTERS_DEALT,
    NUM_CARDS,
    NUM_DIRS,
    NUM_FOCUS,
    NUM_NEAR,
    NUM_SPECIES,
    NUM_VALUES,
)
from .queries import NO_CARD
from .rules import deck_size, draw_card, hand_monsters, hand_size, move_card, table_empty, visible_counts
from .state_layout import (
    CARD_CELL,
    CARD_LEVEL,
    CELL_TOP,
    CELL_X,
    CELL_Y,
    CHOSEN,
    FOCUS,
    FOCUS_AMOUNT,
    IN_PLAY,
    LAST_STARS,
    LAST_TOKEN,
    NEAR,
    PH_PLACE,
    PH_TARGET,
    PHASE,
    PROT_VALUE,
    PROTAGONIST,
    SCENE,
    STARS,
    STARTER,
    TOKEN,
    TOKEN_HISTORY,
    W_DECK,
    W_OUT,
    W_TABLE,
    WHERE,
    WINNER,
)

# --- observation --------------------------------------------------------------------------------
# Per card (36 of them, by id): where it is as far as the observer knows, and where on the table.
F_IN_GAME = 0  # its species is in play
F_VISIBLE = 1  # top card of a cell
F_COVERED = 2  # on the table under another card
F_OWN_HAND = 3  # in the observer's hand
F_X = 4  # cell x relative to the origin, (x + MAX_REACH) / (2 * MAX_REACH)
F_Y = 5  # cell y likewise
F_LEVEL = 6  # height in its stack / (NUM_CARDS - 1)
F_OPEN = 7  # 4 flags for a visible card: the cell on side d is empty
F_ACTING = F_OPEN + NUM_DIRS  # the chosen monster or the protagonist
F_MINE = F_ACTING + 1  # of the observer's own species this scene (derived, eases learning)
CARD_FEATURES = F_MINE + 1
OBS_CARDS = 0
OBS_SPECIES = OBS_CARDS + NUM_CARDS * CARD_FEATURES  # per species: in play, own token, visible / 36
OBS_SEATS = OBS_SPECIES + 3 * NUM_SPECIES
# per relative seat: seated, on move, starter, monsters in hand / MAX_HAND, focus +-1, focus +-2,
# stars / STAR_SCALE, stars gained last scene / NUM_CARDS, species revealed last scene (6),
# species held in earlier scenes counted / scenes played (6), winner, stars behind the leader
# / STAR_SCALE (capped), stars above the fewest / STAR_SCALE (capped). With tiebreak="extra_scene"
# totals pass any fixed scale; the two gaps keep what decides the game exact however high the
# totals climb: who leads or ties for the lead (the winner, MA-17) and who has the fewest (the
# next starter, MA-19) read 0.
SEAT_FEATURES = 11 + 2 * NUM_SPECIES
OBS_GLOBAL = OBS_SEATS + MAX_PLAYERS * SEAT_FEATURES
# deck / 36, phase one-hot (5), focus being played one-hot (+1, -1, +2, -2),
# protagonist's acting value (v + 2) / 10, scene / SCENE_SCALE, table empty
# Derived from the observer's view (observation v3), what the greedy baseline weighs when it plays:
# per card (36, by id), for a visible card, its visible orthogonal neighbours whose printed value is
# exactly one below its own (whom it meets as a protagonist, MA-9) and exactly one above (who would
# meet it), each / 4;
OBS_PREY = OBS_GLOBAL + 1 + 5 + 2 * NUM_FOCUS + 3
OBS_PREDATORS = OBS_PREY + NUM_CARDS
# then visible monsters of the observer's species (0 once the game is over), of the most visible
# other species in play and the mean over the other species in play, each / NUM_VALUES (MA-15);
# and the cards still to be played this scene (every hand plus the deck) / MAX_PLAYS.
OBS_OWN_VISIBLE = OBS_PREDATORS + NUM_CARDS
OBS_BEST_OTHER = OBS_OWN_VISIBLE + 1
OBS_MEAN_OTHER = OBS_BEST_OTHER + 1
OBS_PLAYS_LEFT = OBS_MEAN_OTHER + 1
OBS_SIZE = OBS_PLAYS_LEFT + 1
# The entry of each relative seat that reads 1 while that seat is at the table and 0 beyond the
# player count, in every view: the player count a view was written for (Game.seated_slots).
SEATED_SLOTS = tuple(OBS_SEATS + k * SEAT_FEATURES for k in range(MAX_PLAYERS))
MAX_PLAYS = NUM_CARDS + MAX_PLAYERS * NUM_FOCUS
MAX_HAND = MONSTERS_DEALT + NUM_FOCUS  # monsters in hand: 3 dealt, +1 per focus played
STAR_SCALE = 20.0
SCENE_SCALE = 20.0


@kernel(OBSERVE_SIG)
def observe_into(state, player, out):
    """Write seat ``player``'s view into ``out`` (seats relative: the observer is seat 0).

    Holds the public state (MA-18) plus the observer's own species and hand, nothing else.
    """
    out[:] = 0.0
    n = state[H_NUM_PLAYERS]
    acting = state[CHOSEN] if state[PHASE] == PH_PLACE else state[PROTAGONIST]
    mine = state[TOKEN + player] if state[H_TERMINAL] == 0 else -1
    for c in range(NUM_CARDS):
        o = OBS_CARDS + c * CARD_FEATURES
        where = state[WHERE + c]
        out[o + F_IN_GAME] = where != W_OUT
        out[o + F_MINE] = CARD_SPECIES[c] == mine
        out[o + F_OWN_HAND] = where == player
        out[o + F_ACTING] = c == acting and acting >= 0
        if where == W_TABLE:
            k = state[CARD_CELL + c]
            x = state[CELL_X + k]
            y = state[CELL_Y + k]
            top = state[CELL_TOP + k] == c
            out[o + F_VISIBLE] = top
            out[o + F_COVERED] = not top
            out[o + F_X] = (x + MAX_REACH) / (2.0 * MAX_REACH)
            out[o + F_Y] = (y + MAX_REACH) / (2.0 * MAX_REACH)
            out[o + F_LEVEL] = state[CARD_LEVEL + c] / (NUM_CARDS - 1.0)
            if top:
                for d in range(NUM_DIRS):
                    near = state[NEAR + k * NUM_NEAR + d]
                    out[o + F_OPEN + d] = near == NO_CARD
                    if near != NO_CARD:
                        out[OBS_PREY + c] += (CARD_VALUE[near] == CARD_VALUE[c] - 1) / NUM_DIRS
                        out[OBS_PREDATORS + c] += (CARD_VALUE[near] == CARD_VALUE[c] + 1) / NUM_DIRS
    visible = scratch(NUM_SPECIES, np.int64)
    visible_counts(state, visible)
    for s in range(NUM_SPECIES):
        out[OBS_SPECIES + s] = state[IN_PLAY + s]
        out[OBS_SPECIES + 2 * NUM_SPECIES + s] = visible[s] / NUM_CARDS
    if state[H_TERMINAL] == 0:
        out[OBS_SPECIES + NUM_SPECIES + state[TOKEN + player]] = 1.0
    scenes_done = state[SCENE] - 1 + state[H_TERMINAL]
    most = state[STARS]
    fewest = state[STARS]
    for q in range(1, n):
        most = max(most, state[STARS + q])
        fewest = min(fewest, state[STARS + q])
    for q in range(n):
        o = OBS_SEATS + ((q - player) % n) * SEAT_FEATURES
        out[o] = 1.0
        out[o + 1] = state[H_CURRENT] == q
        out[o + 2] = state[STARTER] == q
        out[o + 3] = min(hand_monsters(state, q) / MAX_HAND, 1.0)
        out[o + 4] = state[FOCUS + q * NUM_FOCUS]
        out[o + 5] = state[FOCUS + q * NUM_FOCUS + 1]
        out[o + 6] = min(state[STARS + q] / STAR_SCALE, 1.0)
        out[o + 7] = state[LAST_STARS + q] / NUM_CARDS
        if state[LAST_TOKEN + q] >= 0:
            out[o + 8 + state[LAST_TOKEN + q]] = 1.0
        if scenes_done > 0:
            for s in range(NUM_SPECIES):
                out[o + 8 + NUM_SPECIES + s] = state[TOKEN_HISTORY + q * NUM_SPECIES + s] / scenes_done
        out[o + 8 + 2 * NUM_SPECIES] = state[WINNER + q]
        out[o + 9 + 2 * NUM_SPECIES] = min((most - state[STARS + q]) / STAR_SCALE, 1.0)
        out[o + 10 + 2 * NUM_SPECIES] = min((state[STARS + q] - fewest) / STAR_SCALE, 1.0)
    g = OBS_GLOBAL
    out[g] = deck_size(state) / NUM_CARDS
    out[g + 1 + state[PHASE]] = 1.0
    amount = state[FOCUS_AMOUNT]
    if state[PHASE] == PH_TARGET:
        for f in range(NUM_FOCUS):
            if FOCUS_AMOUNTS[f] == abs(amount):
                out[g + 6 + 2 * f + (amount < 0)] = 1.0
    if state[PROTAGONIST] >= 0:
        out[g + 6 + 2 * NUM_FOCUS] = (state[PROT_VALUE] + 2) / 10.0
    out[g + 7 + 2 * NUM_FOCUS] = min(state[SCENE] / SCENE_SCALE, 1.0)
    out[g + 8 + 2 * NUM_FOCUS] = table_empty(state)
    best_other = 0
    others = 0
    total_other = 0
    for s in range(NUM_SPECIES):
        if state[IN_PLAY + s] and s != mine:
            best_other = max(best_other, visible[s])
            total_other += visible[s]
            others += 1
    if mine >= 0:
        out[OBS_OWN_VISIBLE] = visible[mine] / NUM_VALUES
    out[OBS_BEST_OTHER] = best_other / NUM_VALUES
    out[OBS_MEAN_OTHER] = total_other / (others * NUM_VALUES)
    plays = deck_size(state)
    for q in range(n):
        plays += hand_size(state, q)
    out[OBS_PLAYS_LEFT] = plays / MAX_PLAYS


# --- hidden information ---------------------------------------------------------------------------
@on_demand  # compiled when first needed (a search that resamples hidden information)
def determinize(state, player, rng):
    """Resample what ``player`` cannot see (MA-18): the other seats' species tokens, dealt at
    random from the species in play other than ``player``'s own, and the other seats' monster
    cards, redealt from those cards plus the deck with every hand size kept."""
    if state[H_TERMINAL] != 0:
        return
    n = state[H_NUM_PLAYERS]
    pool = scratch_empty(NUM_SPECIES, np.int64)
    count = 0
    for s in range(NUM_SPECIES):
        if state[IN_PLAY + s] and s != state[TOKEN + player]:
            pool[count] = s
            count += 1
    shuffle_range(pool, 0, count, rng)
    k = 0
    for q in range(n):
        if q != player:
            state[TOKEN + q] = pool[k]
            k += 1
    sizes = scratch(MAX_PLAYERS, np.int64)
    for c in range(NUM_CARDS):
        q = state[WHERE + c]
        if q >= 0 and q != player:
            sizes[q] += 1
            move_card(state, c, W_DECK)
    for q in range(n):
        for _ in range(sizes[q]):
            draw_card(state, q, rng)
