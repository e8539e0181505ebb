"""Monster Factory's state vector: offsets of every field after the shared header.

Placed tiles live in one list of 88 slots in the order they were laid (start
tiles included); each slot names its monster, its cell relative to that
monster's first tile, its kind and its orientation. Monster slots 0..n-1 are
the players' first monsters (slot = seat); minions take the next free slots.

The open cells of all monsters in progress (MF-19: empty cells that a thin or
thick edge faces) are kept in step in one list (a new cell goes last, a filled
one is replaced by the last): the placement actions name their numbers. Each entry holds the cell
(packed with its monster into one key, see ``queries.cell_key``), what lies across
each of its sides (``components.NO_TILE`` or the edge shown, one base-4 digit per
side) and the slots of those tiles, so that legality, completion and the
observation never search the tiles.
"""

from ..core.state_layout import Layout
from .components import MAX_MONSTERS, MAX_OPEN_CELLS, MAX_PLAYERS, NUM_KINDS, NUM_SIDES, TOTAL_TILES

_lay = Layout()
FIRST_PLAYER = _lay.block("first_player")
PHASE = _lay.block("phase")
HAND = _lay.block("hand")  # kind of the drawn tile, -1 when none
NUM_PLACED = _lay.block("num_placed")  # tiles on the table
NUM_MONSTERS = _lay.block("num_monsters")  # monster slots in use
LAST_PLACED = _lay.block("last_placed")  # tile slot placed by the last action, -1 if none
SUPPLY_LEFT = _lay.block("supply_left")  # face-down tiles in all (the sum of SUPPLY)
NUM_CELLS = _lay.block("num_cells")  # open cells listed
SUPPLY = _lay.block("supply", NUM_KINDS)  # face-down tiles per kind; the order is never stored
DISCARDED = _lay.block("discarded", NUM_KINDS)  # tiles that left the game unplaced (MF-8)
TILE_MONSTER = _lay.block("tile_monster", TOTAL_TILES)
TILE_X = _lay.block("tile_x", TOTAL_TILES)
TILE_Y = _lay.block("tile_y", TOTAL_TILES)
TILE_KIND = _lay.block("tile_kind", TOTAL_TILES)
TILE_ROT = _lay.block("tile_rot", TOTAL_TILES)
MON_OWNER = _lay.block("mon_owner", MAX_MONSTERS)
MON_ORDINAL = _lay.block("mon_ordinal", MAX_MONSTERS)  # 0 first monster, 1.. its owner's minions
MON_SIZE = _lay.block("mon_size", MAX_MONSTERS)
MON_EYES = _lay.block("mon_eyes", MAX_MONSTERS)  # tiles showing an eye
MON_DONE = _lay.block("mon_done", MAX_MONSTERS)  # 1 once complete (MF-11)
MON_OPEN = _lay.block("mon_open", MAX_MONSTERS)  # thin or thick edges facing an empty cell
CURRENT_MONSTER = _lay.block("current_monster", MAX_PLAYERS)  # monster in progress per seat, -1 none
SCORE = _lay.block("score", MAX_PLAYERS)  # points of complete monsters (MF-15)
WINNER = _lay.block("winner", MAX_PLAYERS)
CELL_KEY = _lay.block("cell_key", MAX_OPEN_CELLS)  # monster and cell of each open cell
CELL_NEEDS = _lay.block("cell_needs", MAX_OPEN_CELLS)  # per side: edge across it or NO_TILE
CELL_TILE = _lay.block("cell_tile", MAX_OPEN_CELLS * NUM_SIDES)  # tile slot across each side, -1
# Per seat, the tiles of its latest monster in the order laid, each as cell key * SLOT_SPAN + slot:
# a short contiguous list to search when a cell opens.
SEAT_TILES = _lay.block("seat_tiles", MAX_PLAYERS * TOTAL_TILES)
SLOT_BITS = 7
SLOT_SPAN = 1 << SLOT_BITS
STATE_SIZE = _lay.size

# Phases: which decision the player on move faces.
PH_START = 0  # choose a start tile kind (MF-5)
PH_PLACE = 1  # place the tile in hand (MF-7)
PH_OVER = 2
PHASE_NAMES = ("choose start tile", "place tile", "game over")
