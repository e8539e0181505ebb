"""
# Marry the Monster

<!-- generated: header -->

Dukes build houses, manors and towers on a 37-cell hex valley and score their
cells' values every turn, while each of them lures the fachan, a lonely
monster, to stomp through the others' buildings. The first to hold 45 points
and three towers, or 90 points, wins. The rules in our words, with the ids the
tests cite, are in `seeds/marry_the_monster/rules.md`.

A turn has several decisions, so one player acts several times in a row:
place free houses, then move the fachan and play cards in any order, then end
the turn. Automatic steps (scoring, drawing, step 5, reshuffles) happen inside
`step` and never ask an agent; a decision with nothing to choose but stopping
is skipped (ruling C6).

## Observation space

`{"observation": Box(0, 1, (280,), float32), "action_mask": Box(0, 1, (99,), int8)}`.
Seats are relative: the observer is seat 0, the next player clockwise seat 1,
and so on (seats beyond `num_players` stay zero).

| slice     | content                                                                         |
|-----------|---------------------------------------------------------------------------------|
| 0-184     | building height / 3 per relative seat (5) and cell (37), cells row by row A1..G4 |
| 185-221   | fachan position, one-hot over the 37 cells                                      |
| 222-226   | score / 150 per seat (capped at 1)                                              |
| 227-231   | pieces in the pool / 25 per seat                                                |
| 232-236   | pieces stomped this turn, waiting in the forest, / 25 per seat                  |
| 237-241   | hand size / 60 per seat                                                         |
| 242-244   | the observer's own hand: Stomp, Build, Fortify counts / 60                      |
| 245       | deck size / 60                                                                  |
| 246-248   | discard pile: Stomp, Build, Fortify counts / 60                                 |
| 249-254   | phase one-hot: free houses, main, build, fortify, stomp target, game over       |
| 255-259   | seat on move, one-hot                                                           |
| 260-264   | first player, one-hot                                                           |
| 265-269   | 1 for each seat in the game                                                     |
| 270-279   | turn: fachan moved, a card played, stomps played this turn (one awaiting its target included) / 2, opponent target used, free houses left / 3 (step 3 only, else 0), free towers left / 3 (step 3 only, else 0), Build houses left / 2 (while a Build is placing, else 0), pending stomp strength / 3 (while a stomp awaits its target, else 0), buildings stomped this turn / 12, first round |

Nothing else is visible: other players' hands and the deck's composition are
not in the observation (ruling MtM15). The deck has no order in the state at
all: draws pick a card type with the probability of the cards left.

## Action mask

<!-- generated: action-mask -->

## Action space

| action  | meaning                                                                 |
|---------|-------------------------------------------------------------------------|
| 0-36    | choose a cell (A1..G4, row by row): a free house on an empty cell or a free tower on an own house/manor in step 3; a house of a Build; the building to fortify; the stomp target |
| 37-72   | move the fachan `37 + 6*direction + (distance-1)`, directions E, NE, NW, W, SW, SE |
| 73-78   | play Build / Fortify with one card or three of another type             |
| 79-97   | stomp with 1-3 units, each a Stomp card or three of another type        |
| 98      | end: stop free houses, stop a Build after its first house, or end the turn |

`env.unwrapped.action_to_str(a)` names an action in the current state
(`"house D4"`, `"move NE 2"`, `"stomp 2 (1 stomp + 3 build)"`, `"end"`) and
`SPEC.str_to_action` reads those names back.

## Rewards

At the end the winner gets +1 and the others -1/(n-1) (ruling C3); a
truncated game gives 0 to everyone. Random play never reached the default limit
of 5000 actions: over 20,000 random games the longest took 323 actions (5 players). With `reward="score"` each player gets
their final score minus the mean final score.

## Options

<!-- generated: options -->

Two players is a variant played by exactly the rules of three to five (MTM-2).

## Version history

* v0: initial release (rules MTM-1 to MTM-24, rulings MtM1-MtM15).

<!-- generated: version-history -->
"""

from .core.game_page import game_page
from .marry_the_monster.game import GAME

SPEC, raw_env, env = GAME.spec, GAME.raw_env, GAME.env
__doc__ = game_page(GAME, __doc__)

__all__ = ["GAME", "SPEC", "env", "raw_env"]
