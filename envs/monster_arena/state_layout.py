"""Monster Arena's state vector: offsets of every field after the shared header."""

from ..core.state_layout import Layout
from .components import MAX_PLAYERS, MAX_SLOTS, NUM_CARDS

_lay = Layout()
PHASE = _lay.block("phase")
FIRST_PLAYER = _lay.block("first_player")  # first torso pick; the building order starts here
PICKS = _lay.block("picks")  # torso halves taken so far
DEALER = _lay.block("dealer")
BID = _lay.block("bid")  # current high bid (0: none)
HIGH = _lay.block("high")  # seat of the high bidder, -1 if none
PASSES = _lay.block("passes")  # passes in succession in the auction
SPENT = _lay.block("spent")  # 1 once a token was spent this drafting round
DRY_ROUNDS = _lay.block("dry_rounds")  # drafting rounds in a row without a token spent
SELECTED = _lay.block("selected")  # part chosen to attach, -1 if none
TARGET = _lay.block("target")  # card under attack, -1 if none
TURN_SEAT = _lay.block("turn_seat")  # seat whose arena turn it is (H_CURRENT may be a reactor)
WEB = _lay.block("web")  # Defense bonus of the pending attack (web guard)
WING = _lay.block("wing")  # penalty on the pending attack (wing buffets)
AIM = _lay.block("aim")  # bonus waiting for the next attack this turn
ROUND = _lay.block("round")  # arena rounds started
QUIET = _lay.block("quiet")  # arena rounds in a row in which no card was destroyed
GRAVE_TOP = _lay.block("grave_top")  # counter giving each graveyard arrival its order
LAST = _lay.block("last", 5)  # last attack: target, total, needed, hit (1/0), dice sum
TOKENS = _lay.block("tokens", MAX_PLAYERS)
ENERGY = _lay.block("energy", MAX_PLAYERS)
ALIVE = _lay.block("alive", MAX_PLAYERS)
DONE = _lay.block("done", MAX_PLAYERS)  # built (building) / had this round's turn (arena)
WINNER = _lay.block("winner", MAX_PLAYERS)
LOC = _lay.block("loc", NUM_CARDS)  # where each card is (L_* below)
OWNER = _lay.block("owner", NUM_CARDS)  # seat holding the card, -1 if none
PARENT = _lay.block("parent", NUM_CARDS)  # card whose slot holds it, -1 (torso half or not attached)
PSLOT = _lay.block("pslot", NUM_CARDS)  # which slot of the parent
CHILD = _lay.block("child", NUM_CARDS * MAX_SLOTS)  # card in slot s of card c, -1 if empty
USED = _lay.block("used", NUM_CARDS)  # acted this round (AR-25)
FROZEN = _lay.block("frozen", NUM_CARDS)  # pinched: cannot act until its owner's turn ends
KNOWN = _lay.block("known", NUM_CARDS)  # 1 once every player has seen the card where it is
IN_ATTACK = _lay.block("in_attack", NUM_CARDS)
GRAVE_ORDER = _lay.block("grave_order", NUM_CARDS)  # arrival order in the graveyard (higher: on top)
QUIET_ENDING = _lay.block("quiet_ending")  # option quiet_ending_rounds (AR-45): 0, the default, never
STATE_SIZE = _lay.size

# Card locations.
L_DECK = 0  # the draft deck (no order is stored: draws pick at random)
L_DISCARD = 1  # draft discard, face up
L_ROW = 2  # turned up by the dealer this drafting round
L_INV = 3  # a player's inventory
L_TABLE = 4  # part of a player's monster
L_GRAVE = 5
L_BOX = 6  # out of the game (torso halves nobody took)
L_TORSO = 7  # torso half still to be drafted

# Phases: which decision the player on move faces.
PH_TORSO = 0  # pick a torso half
PH_DEAL = 1  # dealer: take a card for a token, or pass
PH_AUCTION = 2  # bid or pass
PH_PRIZE = 3  # auction winner picks a card
PH_BUILD = 4  # choose a part to attach, or say done
PH_PLACE = 5  # choose the slot for the chosen part (building or arena)
PH_MAIN = 6  # arena turn: attack, ability, attach or end turn
PH_ATTACK = 7  # add attacking cards, then roll
PH_REACT = 8  # the defender may use reactive abilities
PH_PINCH = 9  # choose the part a Pincer pinches
PH_OVER = 10
PHASE_NAMES = (
    "torso draft",
    "dealer pick",
    "auction",
    "auction prize",
    "building",
    "place part",
    "arena turn",
    "attack",
    "reaction",
    "pinch target",
    "game over",
)
