"""
# MONSTArgh!

<!-- generated: header -->

Talent agents play monster cards onto a shared, ever-spreading table. A monster
that comes into play, or is focused by a ±1/±2 focus card, eclipses the
neighbour of its own species worth one less and steals the spotlight from
neighbours of other species worth one less, moving its whole stack on top of
theirs and going on from there. When every hand is empty, each agent scores a
star per visible monster of the species on their secret token; the game ends
after the scene in which someone reaches 5 stars. The rules in our words, with
the ids the tests cite, are in `seeds/monstargh/rules.md` (the rulebook spells
the title "MONSTArch!").

A play is two decisions of the same agent: choose a card, then where the
monster goes or which visible monster the focus card targets; when a
protagonist could steal from several neighbours, the same agent chooses which
(MA-11). Drawing, interactions with a single candidate, scene scoring and the
next deal happen inside `step`.

## The unbounded table

The table is an unbounded square grid (ruling MA2). Placements are named
relative to what is on it: "on side d of visible card t", 4 sides x 36 cards,
so no layout however spread out can put a legal placement out of reach. An empty
cell that borders several visible cards is named only through the one with the
lowest id (species order green, blue, yellow, red, pink, orange, then value),
so every legal cell is exactly one legal action; the other names are illegal
with a reason that says which name to use. In the state a card on the table
records its cell's slot and its height in the stack, and a cell slot records its
coordinates relative to the scene's first card; a scene never places more than
36 cards, each next to an occupied cell, so no coordinate exceeds ±35.

## Observation space

`{"observation": Box(0, 1, (713,), float32), "action_mask": Box(0, 1, (224,), int8)}`.
Seats are relative: the observer is seat 0, the next player clockwise seat 1,
and so on (seats beyond `num_players` stay zero). Card `c` is `6*species + value-1`.

| slice   | content                                                                          |
|---------|----------------------------------------------------------------------------------|
| 0-467   | 13 features per card (36 cards, by id): species in play; visible (top of a cell); covered; in the observer's hand; cell x and y, `(coord + 35) / 70`; height in its stack / 35; 4 flags "the cell north/east/south/west of this visible card is empty"; the card is the protagonist or the chosen monster waiting for its cell; the card is of the observer's own species this scene (derived from 474-479; with it a 2-player PPO run beat random 0.645 instead of 0.42 after 1M timesteps) |
| 468-473 | species in play, one flag per species                                            |
| 474-479 | the observer's own species this scene, one-hot (zero once the game is over)      |
| 480-485 | visible monsters per species / 36                                                |
| 486-623 | 23 features per relative seat (6): seated; on move; starting player; monsters in hand / 5; holds its ±1 focus card; holds its ±2 focus card; stars / 20 (capped); stars gained last scene / 36; species revealed last scene one-hot (6); species held in earlier scenes, counts / scenes played (6); winner; stars behind the leader / 20 (capped: 0 for every seat leading or tied for the lead); stars above the fewest / 20 (capped: 0 for every seat with the fewest) |
| 624     | deck size / 36                                                                   |
| 625-629 | phase one-hot: choose a card, place the monster, target the focus, choose a steal, game over |
| 630-633 | focus card being played, one-hot: +1, -1, +2, -2                                 |
| 634     | protagonist's acting value during a steal choice, (v + 2) / 10                   |
| 635     | scene number / 20 (capped)                                                       |
| 636     | the table is empty                                                               |
| 637-672 | derived, per card (by id): for a visible card, its visible orthogonal neighbours whose printed value is exactly one below its own / 4 (whom it meets as a protagonist, MA-9) |
| 673-708 | derived, per card: its visible neighbours exactly one above / 4 (who would meet it)                |
| 709     | derived: visible monsters of the observer's species / 6 (0 once the game is over) |
| 710     | derived: visible monsters of the most visible other species in play / 6          |
| 711     | derived: mean visible monsters over the other species in play / 6                |
| 712     | derived: cards still to be played this scene (every hand, focus cards included, plus the deck) / 48 |

Nothing else is visible (MA-18): the other seats' species, the unassigned
tokens, the other hands and the deck are not in the observation. Everything
public is: every stack's contents (each card was played face up), hand sizes,
which focus cards each seat still holds, stars and the species revealed after
earlier scenes. The deck has no order in the state at all: a draw picks one of
the cards left uniformly.

## Action mask

<!-- generated: action-mask -->

## Action space

| action  | meaning                                                                 |
|---------|-------------------------------------------------------------------------|
| 0-35    | play monster card `c` from the hand (the scene's first card goes straight to the origin) |
| 36-39   | play a focus card: 36 + 2*f + s, f 0 for ±1 and 1 for ±2, s 0 to raise and 1 to lower |
| 40-183  | place the chosen monster on the empty cell on side d (north, east, south, west) of visible card t: 40 + 4*t + d |
| 184-219 | target visible card t with the focus card: 184 + t                      |
| 220-223 | steal from the protagonist's neighbour on side d: 220 + d               |

`env.unwrapped.action_to_str(a)` names an action (`"play red 5"`, `"focus -2"`,
`"place north of blue 4"`, `"target red 5"`, `"steal east (pink 2)"`) and
`SPEC.str_to_action` reads those names back.

## Rewards

At the end the k players with the most stars get +1/k and the others
-1/(n-k) (ruling C3); if everyone shares the win all get 0; a truncated game
gives 0 to everyone. With `reward="score"` each player gets their stars minus
the mean. Random play never reached the default limit of 3000 actions: over
100,000 random games per tiebreak (20,000 per player count) the longest took
196 actions with `tiebreak="share"` (mean 66-99, about 1.1 scenes) and 1241
with `tiebreak="extra_scene"` (mean 84-181).

## Options

<!-- generated: options -->

The default of 4 players is the middle of the 2-6 range.

## Version history

* v0: initial release (rules MA-1 to MA-22, rulings MA1-MA10).

<!-- generated: version-history -->
"""

from .core.game_page import game_page
from .monstargh.game import GAME

SPEC, raw_env, env = GAME.spec, GAME.raw_env, GAME.env
__doc__ = game_page(GAME, __doc__)

__all__ = ["GAME", "SPEC", "env", "raw_env"]
