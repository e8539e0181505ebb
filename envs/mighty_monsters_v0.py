"""
# Mighty Monsters

<!-- generated: header -->

Monsters raid King Edgar's castle. Each round every player plays two monster
cards beside the face-down guards; pairs that reach a guard's strength split its
loot, and the first lost fight ends the raid, leaving the monsters there and
behind it to pay for healing. After the last king tile, the richest monster wins.
The rules in our words, with the ids the tests cite, are in
`seeds/mighty_monsters/rules.md`; card values and the king tiles are data in
`seeds/mighty_monsters/components.json`.

Decisions: at setup each player once chooses the two cards to lay face down
(with `setup_hand="choose"`); in phase 1 each player on move plays one card on
a space. A player with two monsters placed is skipped, so replacements give
others extra turns. Fights, loot, healing, the card rotation, new guards and
king tiles happen inside `step` and never ask an agent (ruling C5).

## Observation space

`{"observation": Box(0, 1, (396,), float32), "action_mask": Box(0, 1, (70,), int8)}`.
Seats are relative: the observer is seat 0, the next player clockwise seat 1,
and so on (seats beyond `num_players` stay zero). Guard positions count from the
main gate; space `2*g + side`.

| slice     | content                                                                          |
|-----------|----------------------------------------------------------------------------------|
| 0-119     | per relative seat (6) and card (strengths 1-5): one-hot of in hand, face down, in the castle, unknown (in hand or face down) |
| 120-203   | per monster space (12): owner's relative seat one-hot (6), strength / 5          |
| 204-251   | per guard position (6): present, level 1/2/3 one-hot, revealed, printed strength / 10 and loot / 14 once revealed, won |
| 252-287   | per guard card (36, level by level as in `components.json`): seen face up this game |
| 288-290   | face-down discarded guards per level / 12                                         |
| 291       | guard deck size / 36                                                             |
| 292-297   | gold / 100 per seat (capped at 1)                                                |
| 298-303   | cards in hand / 5 per seat                                                       |
| 304-309   | start player, one-hot                                                            |
| 310-315   | seat on move, one-hot                                                            |
| 316-321   | 1 for each seat in the game                                                      |
| 322-327   | seats that have made their setup choice                                          |
| 328-329   | rounds played / 6, rounds left / 6                                               |
| 330-332   | phase one-hot: setup, play monsters, game over                                   |
| 333-344   | king tile in effect, one-hot (tile order of `components.json`)                    |
| 345-356   | king tiles flipped so far                                                        |
| 357-359   | options: setup_hand random, guard_lineup, kings_rules                            |
| 360-365   | derived, per guard position: chance the monsters now beside it beat its guard (a face-down guard taken uniformly from the unseen guards of its level, a revealed one exactly; empty spaces count 0; king tiles applied) |
| 366-371   | derived, per guard position: chance every guard before it falls, so that its fight happens |
| 372-377   | derived, per guard position: its guard's expected loot this round / 30 (king tiles applied) |
| 378-383   | derived, per guard position: its pair reached the guard's printed maximum, so nobody may replace there (MM-8) |
| 384-389   | derived, per seat: gold behind the richest seat / 100 (capped)                   |
| 390-395   | derived, per seat: expected gold change this round if the castle fought as it stands, 0.5 + change / 60 (clipped): loot shares of full pairs times the chance their fight happens and is won, minus healing times the chance it is due (MM-11, MM-12) |

What a player may deduce is in the view (ruling MM11): a card that moved in
public (played, returned by a replacement, rotated at the end of a round, sorted
by a king tile) is shown where it lies, and when the counts leave one place for a
seat's remaining cards they are shown there too. After the first round every
hand is known. Nothing else is visible: others' setup choices, face-down guards
(only their level), the guard deck's order and the king tiles' order.

## Action mask

<!-- generated: action-mask -->

## Action space

| action  | meaning                                                                        |
|---------|--------------------------------------------------------------------------------|
| 0-9     | setup: lay down the pair 1+2, 1+3, 1+4, 1+5, 2+3, 2+4, 2+5, 3+4, 3+5, 4+5       |
| 10-69   | `10 + 12*(strength-1) + space`: play that card on space `G1a`=0 ... `G6b`=11; on an empty space it is placed, on an occupied one it replaces the monster there |

The (card, space) encoding is lossless: every placement and replacement is one
action. `env.unwrapped.action_to_str(a)` names an action in the current state
(`"lay down 1+2"`, `"play 4 at G2a"`, `"play 4 at G1b (replace player_2's 2)"`)
and `SPEC.str_to_action` reads those names back.

## Rewards

At the end the richest players share the win: each of k winners gets +1/k and
the others -1/(n-k) (ruling C3); a truncated game gives 0 to everyone. With
`reward="score"` each player gets their final gold minus the mean final gold.
Random play never reached the default limit of 1000 actions: over 20,000 random
games (every player count, each variant) the longest took 119 actions (6 players;
means 45-100 by player count), and the rules cap a game at 61 actions per player
(366 for 6 players, MM-16).

## Options

<!-- generated: options -->

## Version history

* v0: initial release (rules MM-1 to MM-21 with the rulebook's examples and the 12 king tiles,
  rulings C1-C6 and MM1-MM11).

<!-- generated: version-history -->
"""

from .core.game_page import game_page
from .mighty_monsters.game import GAME

SPEC, raw_env, env = GAME.spec, GAME.raw_env, GAME.env
__doc__ = game_page(GAME, __doc__)

__all__ = ["GAME", "SPEC", "env", "raw_env"]
