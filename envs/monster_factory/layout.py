"""Monster Factory's state vector: offsets of every field after the shared header.

Placed tiles live in one list of 88 slots in the order they were laid (start
tiles included); each slot names its monster, its cell relative to that
monster's first tile, its kind and its orientation. A monster's tile ``t`` (the
index the actions use, MF-19) is the t-th slot of that monster in this list.
Monster slots 0..n-1 are the players' first monsters (slot = seat); minions
take the next free slots.
"""
from ..core.layout import Layout
from .components import MAX_MONSTERS, MAX_PLAYERS, NUM_KINDS, TOTAL_TILES

_lay = Layout()
FIRST_PLAYER = _lay.block("first_player")
PHASE = _lay.block("phase")
HAND = _lay.block("hand")                    # kind of the drawn tile, -1 when none
NUM_PLACED = _lay.block("num_placed")        # tiles on the table
NUM_MONSTERS = _lay.block("num_monsters")    # monster slots in use
LAST_PLACED = _lay.block("last_placed")      # tile slot placed by the last action, -1 if none
SUPPLY = _lay.block("supply", NUM_KINDS)     # face-down tiles per kind; the order is never stored
DISCARDED = _lay.block("discarded", NUM_KINDS)  # tiles that left the game unplaced (MF-8)
TILE_MONSTER = _lay.block("tile_monster", TOTAL_TILES)
TILE_X = _lay.block("tile_x", TOTAL_TILES)
TILE_Y = _lay.block("tile_y", TOTAL_TILES)
TILE_KIND = _lay.block("tile_kind", TOTAL_TILES)
TILE_ROT = _lay.block("tile_rot", TOTAL_TILES)
MON_OWNER = _lay.block("mon_owner", MAX_MONSTERS)
MON_ORDINAL = _lay.block("mon_ordinal", MAX_MONSTERS)  # 0 first monster, 1.. its owner's minions
MON_SIZE = _lay.block("mon_size", MAX_MONSTERS)
MON_EYES = _lay.block("mon_eyes", MAX_MONSTERS)        # tiles showing an eye
MON_DONE = _lay.block("mon_done", MAX_MONSTERS)        # 1 once complete (MF-11)
CURRENT_MONSTER = _lay.block("current_monster", MAX_PLAYERS)  # monster in progress per seat, -1 none
SCORE = _lay.block("score", MAX_PLAYERS)               # points of complete monsters (MF-15)
WINNER = _lay.block("winner", MAX_PLAYERS)
STATE_SIZE = _lay.size
BLOCKS = _lay.blocks

# Phases: which decision the player on move faces.
PH_START = 0   # choose a start tile kind (MF-5)
PH_PLACE = 1   # place the tile in hand (MF-7)
PH_OVER = 2
PHASE_NAMES = ("choose start tile", "place tile", "game over")
