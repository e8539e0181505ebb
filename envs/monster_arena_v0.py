"""
# Monster Arena

<!-- generated: header -->

Players draft two torso halves, then draft monster parts (the dealer's
1-token pick and an English auction for the rest), stitch them into a monster
in secret and send it into the arena, where cards attack other monsters'
outer cards with dice. A destroyed card cuts off the parts hanging below it; a
destroyed torso half ends its monster. The last monster standing wins. The
rules in our words, with the ids the tests cite, are in
`seeds/monster_arena/rules.md`; all 60 cards are data in
`seeds/monster_arena/components.json`.

Multi-decision turns are sequences of actions by one player: attaching is
"attach a part" then "into card X slot s"; an attack is "target X", then one
or more "attack with Y", then "roll". When a card is attacked, its owner is
asked about reactive abilities as their own decision: the env selects that
agent (the state's current-player slot names the reacting seat) and "pass"
always declines. Automatic steps (passes of bidders who cannot raise, a prize
with one card left, a turn with nothing but ending it, a defender with no
reaction to offer) never ask an agent (ruling C6).

## Observation space

`{"observation": Box(0, 1, (1741,), float32), "action_mask": Box(0, 1, (437,), int8)}`.
Seats are relative: the observer is seat 0, the next player clockwise seat 1,
and so on (seats beyond `num_players` stay zero). Cards are numbered 0-59:
U1-U6, L1-L6, then the parts copy by copy (`SA1`-`SA7`, `GA1`, `GA2`, `BC1`-`BC5`,
`PI1`, `PI2`, `TE1`-`TE5`, `SL1`-`SL4`, `HL1`, `HL2`, `ST1`, `ST2`, `CT1`, `CT2`,
`BW1`-`BW3`, `HO1`-`HO4`, `SH1`, `SH2`, `ES1`, `ES2`, `AP1`-`AP3`, `SW1`, `HP1`, `GG1`).

| slice       | content                                                                       |
|-------------|-------------------------------------------------------------------------------|
| 0-1559      | 26 features per card (card c at 26*c): 0-5 on the monster of relative seat r; 6-11 in the inventory of relative seat r (own inventory, or cards everybody saw go there); 12 dealer's row; 13 draft discard; 14 graveyard; 15 box; 16 torso half still to draft; 17 covered; 18 acted this round; 19 pinched; 20 in the pending attack; 21 the pending attack's target; 22 chosen part to attach / chosen Pincer; 23 (parent card + 1) / 61; 24 (slot + 1) / 3; 25 graveyard arrival order / 60. A card in the deck or unseen in another inventory is all zeros. |
| 1560-1565   | draft tokens / 15 per seat                                                    |
| 1566-1571   | energy / 6 per seat                                                           |
| 1572-1577   | inventory size / 48 per seat                                                  |
| 1578-1583   | monster still in the arena, per seat                                          |
| 1584-1589   | done building / had this round's turn, per seat                               |
| 1590-1595   | winner, per seat                                                              |
| 1596-1601   | 1 for each seat in the game                                                   |
| 1602-1612   | phase one-hot: torso draft, dealer pick, auction, auction prize, building, place part, arena turn, attack, reaction, pinch target, game over |
| 1613-1618   | seat on move, one-hot                                                         |
| 1619-1624   | seat whose arena turn it is, one-hot                                          |
| 1625-1630   | dealer, one-hot                                                               |
| 1631-1636   | high bidder, one-hot                                                          |
| 1637-1642   | first torso picker, one-hot                                                   |
| 1643-1655   | current bid / 15, passes in succession / 6, drafting rounds without a token spent / 6, web guard bonus / 2, wing penalty / 6, Eye Stalk aim / 4, arena round / 100, deck size / 48, last attack: (target + 1) / 61, total / 60, Defense needed / 20, hit; arena rounds in a row without a destroyed card / `quiet_ending_rounds` (/ 10 when 0, capped at 1) (AR-45) |
| 1656-1715   | derived, per card on a monster: its Defense with passive bonuses (Insect Thorax, Spiked Legs) / 16; while building, another seat's torso half shows its printed Defense and its parts nothing |
| 1716-1721   | derived, per seat: expected attack of its monster's attacking cards that may still act this round (not used, not pinched): 3.5 per die plus Attack Mod, / 40 (capped) |
| 1722-1727   | derived, per seat: parts attached / 48                                        |
| 1728-1733   | derived, per seat: outer (uncovered) torso halves / 2: a hit there destroys the monster |
| 1734-1739   | derived, per seat: lowest Defense (with passives) among its outer cards / 16, 0 when none |
| 1740        | derived: pending attack's expected margin, 0.5 + (3.5 per die + bonus - wing penalty - target's Defense - web bonus) / 40 (clipped); 0 when no attack is pending |

Nothing else is visible (AR-5): the deck's order is stored nowhere (a draw
picks a random deck card), the parts a player drew unseen at the end of
drafting are hidden from the others until they appear on the table, and while
monsters are being built (AR-19) another player's attachments look like
inventory, their slots look empty and whether they are mid-attachment is not
shown: the derived per-seat slots 1716-1739 stay 0 for another seat until the
monsters are revealed.

## Action mask

<!-- generated: action-mask -->

## Action space

| action  | meaning                                                                 |
|---------|-------------------------------------------------------------------------|
| 0-59    | `take <card>`: a torso half, the dealer's 1-token pick, the auction winner's pick; `attach <card>`: choose a part of one's inventory to attach (building, or for 2 energy in the arena) |
| 60-239  | `into <card> slot s`: put the chosen part into slot s of the card, `60 + 3*card + (s-1)` |
| 240-254 | `bid k`, k = 1..15 tokens: `239 + k`                                    |
| 255-314 | `target <card>`: open an attack on it, or the part a Pincer pinches     |
| 315-374 | `attack with <card>`: add the card to the pending attack, paying its cost |
| 375-434 | `use <card>`: its active ability (own turn) or reactive ability (when attacked) |
| 435     | `roll`: commit the pending attack                                       |
| 436     | `pass`: dealer takes nothing, auction pass, done building, end turn, no reaction |

`env.unwrapped.action_to_str(a)` names an action in the current state and
`SPEC.str_to_action` reads the names back.

## Rewards

At the end the k survivors get +1/k and the others -1/(n-k) (ruling C3); a
truncated game gives 0 to everyone. With `reward="score"` each player gets the
number of cards left on their monster minus the mean of that number (AR-46).
There is no other ending (ruling AR9): monsters that cannot hurt each other
play on until the default limit of 2000 actions truncates the game. Over 4,000
random games per player count, 0.5%, 0.7%, 1.3%, 1.7% and 1.1% were truncated
for 2 to 6 players (finished games took at most 1,446 actions).

## Options

<!-- generated: options -->

The default of 4 players gives the auction real competition and the arena
real choices of target while games stay short.

## Version history

* v0: initial release (rules AR-1 to AR-51, rulings C1-C6 and AR1-AR10).

<!-- generated: version-history -->
"""

from .core.game_page import game_page
from .monster_arena.game import GAME

SPEC, raw_env, env = GAME.spec, GAME.raw_env, GAME.env
__doc__ = game_page(GAME, __doc__)

__all__ = ["GAME", "SPEC", "env", "raw_env"]
