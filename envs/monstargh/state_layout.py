"""MONSTArgh!'s state vector: offsets of every field after the shared header.

The table is stored per card and per cell rather than as a grid, so it is never too
small however far the layout spreads (ruling MA2): a card on the table records the slot
of its cell and its height in the cell's stack; a cell slot records its coordinates
relative to the scene's origin and its top card. A scene never has more occupied cells
than cards, so ``NUM_CARDS`` cell slots always suffice.
"""

from ..core.state_layout import Layout
from .components import MAX_PLAYERS, NUM_CARDS, NUM_FOCUS, NUM_NEAR, NUM_SPECIES

_lay = Layout()
PHASE = _lay.block("phase")
SCENE = _lay.block("scene")  # scenes started so far (1 during the first)
STARTER = _lay.block("starter")  # starting player of the scene
ACTIVE = _lay.block("active")  # seat whose turn it is (also during a steal choice)
CHOSEN = _lay.block("chosen")  # card chosen, awaiting its cell (PH_PLACE)
FOCUS_AMOUNT = _lay.block("focus_amount")  # signed amount of the focus being played (PH_TARGET)
PROTAGONIST = _lay.block("protagonist")  # protagonist card during a steal choice, else -1
PROT_VALUE = _lay.block("prot_value")  # the protagonist's acting value
TIEBREAK = _lay.block("tiebreak")  # 0 share the win, 1 play extra scenes
IN_PLAY = _lay.block("in_play", NUM_SPECIES)  # 1 for species in this game
# Secret species of each seat this scene; one entry per species, the room rules.start_scene
# shuffles every token in before dealing them.
TOKEN_ROOM = max(MAX_PLAYERS, NUM_SPECIES)
TOKEN = _lay.block("token", TOKEN_ROOM)
LAST_TOKEN = _lay.block("last_token", MAX_PLAYERS)  # species revealed last scene, -1 before
TOKEN_HISTORY = _lay.block("token_history", MAX_PLAYERS * NUM_SPECIES)  # revealed, counted
STARS = _lay.block("stars", MAX_PLAYERS)
LAST_STARS = _lay.block("last_stars", MAX_PLAYERS)  # stars gained in the last scene
FOCUS = _lay.block("focus", MAX_PLAYERS * NUM_FOCUS)  # 1 while the focus card is in hand
WHERE = _lay.block("where", NUM_CARDS)  # W_OUT, W_DECK, W_TABLE, W_PLAYING or the seat holding it
# Counts kept in step with WHERE and CELL_TOP (rules.move_card, place_card, empty_cell) so that
# the kernels never count by scanning every card.
HELD = _lay.block("held", MAX_PLAYERS)  # monster cards in each seat's hand
DECK_LEFT = _lay.block("deck_left")  # monster cards in the deck
CELLS_USED = _lay.block("cells_used")  # occupied cells
CARD_CELL = _lay.block("card_cell", NUM_CARDS)  # cell slot of a card on the table
CARD_LEVEL = _lay.block("card_level", NUM_CARDS)  # 0 at the bottom of its stack
CELL_X = _lay.block("cell_x", NUM_CARDS)
CELL_Y = _lay.block("cell_y", NUM_CARDS)
CELL_TOP = _lay.block("cell_top", NUM_CARDS)  # top card of the cell slot, -1 when empty
CELL_HEIGHT = _lay.block("cell_height", NUM_CARDS)
# For each occupied cell slot, the slot of the occupied cell at each near offset (components.NEAR_X,
# NEAR_Y: sides, two steps, diagonals), -1 where that cell is empty; all -1 for an empty slot.
# Kept in step by rules.place_card and empty_cell, so that a placement's legality and a
# protagonist's neighbours are read directly instead of searched among the cells.
NEAR = _lay.block("near", NUM_CARDS * NUM_NEAR)
WINNER = _lay.block("winner", MAX_PLAYERS)
STATE_SIZE = _lay.size

# Values of WHERE besides a seat number.
W_PLAYING = -4  # chosen from the hand, waiting for its cell (public)
W_OUT = -3  # species not in play this game
W_DECK = -2
W_TABLE = -1

# Phases: the decision the player on move faces.
PH_CHOOSE = 0  # choose a card to play
PH_PLACE = 1  # choose the cell of the chosen monster card
PH_TARGET = 2  # choose the monster the focus card targets
PH_STEAL = 3  # choose which neighbour the protagonist steals from
PH_OVER = 4
PHASE_NAMES = ("choose a card", "place the monster", "target the focus", "choose a steal", "game over")
