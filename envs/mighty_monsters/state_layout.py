"""Mighty Monsters' state vector: offsets of every field after the shared header."""

from ..core.state_layout import Layout
from .components import MAX_PLAYERS, NUM_CARDS, NUM_GUARDS, NUM_KING_TILES, NUM_SPACES

_lay = Layout()
PHASE = _lay.block("phase")
ROUND = _lay.block("round")  # rounds finished so far
NUM_ROUNDS = _lay.block("num_rounds")  # king tiles in play (MM-6)
START_PLAYER = _lay.block("start_player")  # holder of the start player marker
SETUP_RANDOM = _lay.block("setup_random")  # option setup_hand="random"
LINEUP = _lay.block("lineup")  # option guard_lineup
KINGS = _lay.block("kings")  # option kings_rules
KING = _lay.block("king")  # king tile in effect this round, -1 for none
KINGS_FLIPPED = _lay.block("kings_flipped")  # king tiles turned face up so far
KING_ORDER = _lay.block("king_order", NUM_KING_TILES)  # the shuffled king tiles, top first (hidden)
GOLD = _lay.block("gold", MAX_PLAYERS)
BANK = _lay.block("bank")  # net gold paid into the treasury (conservation check)
# Per seat and card: where the card lies, and whether everyone knows it (MM-21).
CARD_LOC = _lay.block("card_loc", MAX_PLAYERS * NUM_CARDS)
KNOWN = _lay.block("known", MAX_PLAYERS * NUM_CARDS)
SETUP_DONE = _lay.block("setup_done", MAX_PLAYERS)
SPACE = _lay.block("space", NUM_SPACES)  # owner * NUM_CARDS + card on the space, -1 empty
CASTLE = _lay.block("castle", MAX_PLAYERS)  # guard card at each position from the main gate, -1 none
REVEALED = _lay.block("revealed", MAX_PLAYERS)
RESULT = _lay.block("result", MAX_PLAYERS)  # fight result per position this round (RES_*)
# The previous round's castle as everyone saw it: guard card + 1 if revealed, -level if it
# stayed face down, 0 for no guard; and the fight results.
LAST_GUARD = _lay.block("last_guard", MAX_PLAYERS)
LAST_RESULT = _lay.block("last_result", MAX_PLAYERS)
GUARD_STATUS = _lay.block("guard_status", NUM_GUARDS)  # G_* per guard card
DECK = _lay.block("deck", NUM_GUARDS)  # guard deck order, the top card at DECK + DECK_COUNT - 1
DECK_COUNT = _lay.block("deck_count")
WINNER = _lay.block("winner", MAX_PLAYERS)
STATE_SIZE = _lay.size

# Phases: which decision the player on move faces.
PH_SETUP = 0  # choosing the two cards to lay face down
PH_PLACE = 1  # phase 1: playing a monster card
PH_OVER = 2
PHASE_NAMES = ("setup", "play monsters", "game over")

# Card locations.
LOC_HAND = 0
LOC_DOWN = 1
LOC_CASTLE = 2

# Guard card status.
G_DECK = 0
G_CASTLE = 1
G_DISCARD_SEEN = 2  # discarded after being revealed
G_DISCARD_HIDDEN = 3  # discarded face down: only its level is known

# Fight results per castle position.
RES_NONE = 0
RES_WON = 1
RES_LOST = 2
