"""Marry the Monster's state vector: offsets of every field after the shared header."""

from ..core.state_layout import Layout
from .components import MAX_PLAYERS, NUM_CARD_TYPES, NUM_CELLS

_lay = Layout()
FIRST_PLAYER = _lay.block("first_player")
TURN = _lay.block("turn")  # turns started so far (0 before the first)
PHASE = _lay.block("phase")
FACHAN = _lay.block("fachan")
MOVED = _lay.block("moved")  # fachan moved this turn
CARDS_PLAYED = _lay.block("cards_played")  # card plays this turn
STOMPS = _lay.block("stomps")  # stomps resolved this turn (one awaiting its target not yet)
OPP_TARGET_USED = _lay.block("opp_target_used")
DESTROYED = _lay.block("destroyed")  # buildings stomped this turn (step 5 draws)
FREE_HOUSES = _lay.block("free_houses")  # step 3 houses still to place
FREE_TOWERS = _lay.block("free_towers")  # step 3 tower upgrades still to make
BUILD_LEFT = _lay.block("build_left")  # houses left in the current Build
BUILD_PLACED = _lay.block("build_placed")  # houses placed by the current Build
STOMP_N = _lay.block("stomp_n")  # strength of the stomp awaiting its target
OWNER = _lay.block("owner", NUM_CELLS)  # seat owning the building, -1 if none
HEIGHT = _lay.block("height", NUM_CELLS)  # 0 empty, 1 house, 2 manor, 3 tower
# Cell sets as bitboards, kept in step with OWNER/HEIGHT by rules.set_building: one set
# per seat and height (house, manor, tower) plus the occupied cells. A set of the 37
# cells is split over two int32 slots of BITS_SPLIT and 37 - BITS_SPLIT bits.
BITS_SPLIT = 20
OWN_BITS = _lay.block("own_bits", MAX_PLAYERS * 3 * 2)
OCCUPIED_BITS = _lay.block("occupied_bits", 2)
SCORE = _lay.block("score", MAX_PLAYERS)
POOL = _lay.block("pool", MAX_PLAYERS)  # pieces in front of the player
PENDING = _lay.block("pending", MAX_PLAYERS)  # stomped pieces waiting in the forest (MTM-11)
HAND = _lay.block("hand", MAX_PLAYERS * NUM_CARD_TYPES)  # counts per seat and card type
DECK = _lay.block("deck", NUM_CARD_TYPES)  # counts per card type; order is drawn at random
DISCARD = _lay.block("discard", NUM_CARD_TYPES)
WINNER = _lay.block("winner", MAX_PLAYERS)
STATE_SIZE = _lay.size

# Phases: which decision the player on move faces.
PH_FREE = 0  # step 3: free houses / free towers
PH_MAIN = 1  # step 4: move, play a card, or end the turn
PH_BUILD = 2  # placing the houses of a Build
PH_FORTIFY = 3  # choosing the building to fortify
PH_STOMP = 4  # choosing the stomp's target
PH_OVER = 5
PHASE_NAMES = ("free houses", "main", "build", "fortify", "stomp target", "game over")
