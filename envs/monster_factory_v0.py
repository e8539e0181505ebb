"""
# Monster Factory

<!-- generated: header -->

Players draw square monster tiles and add them to anyone's monster, their own or an
opponent's. Every edge of a tile is blank, thin or thick, and touching edges must match. A
monster with no thin or thick edge left facing an empty cell is complete: a first monster scores
one point per tile, later monsters (minions) one point per tile showing an eye. The game ends
when every first monster is complete or the 88 tiles run out. The rules in our words, with the
ids the tests cite, are in `seeds/monster_factory/rules.md`; the tile inventory (ruling MF1) is
`seeds/monster_factory/components.json`.

Before play, in seat order from `player_0`, each player chooses a start tile kind from the
supply (`start_tiles="choose"`; `"random"` deals them); then a random first player begins, and
each decision places the tile in hand: drawing, throwing away tiles that fit nowhere, starting minions, scoring and the end
happen inside `step` and never ask an agent (rulings C5, C6).

## Unbounded tables, lossless actions

Each monster lies on its own unbounded grid. The state stores every placed tile (at most 88) as
its monster, its cell relative to that monster's first tile (0, 0), its kind and orientation. A
placement is named relative to the table, never in a window: "on open cell c, turned r quarter
turns clockwise". The open cells are the empty cells that a thin or thick edge of a monster in
progress faces, over all monsters in progress; the engine keeps them in a list (a cell that
opens takes the next number; when one is filled, the last-numbered cell takes over its number),
each with what lies across its four sides. Only an open cell can take a tile (a tile must join
thin-thin or thick-thick, MF-10), each cell is listed once however many tiles it touches, and
orientations that show the same four edges (a 1010 turned twice) are offered only with the
lowest r, so every legal placement is exactly one action (MF-19). The observation lists the open
cells under the same numbers, and the text render marks each as `cN` on its monster.

No more than 43 cells are ever open at once, however far monsters spread, so `28 + 43 x 4`
actions suffice: a tile with e thin or thick edges joins at least one of them to an open edge,
covering that one too, so it adds at most e - 2 open edges; with ruling MF1's tiles (7 with four
such edges, 17 with three) and a first tile per monster in progress adding at most 2 more, the
open edges of all monsters in progress, hence their open cells, never exceed
7 x 2 + 17 x 1 + 6 x 2 = 43 (`components.MAX_OPEN_CELLS`, computed from the inventory).

## Observation space

`{"observation": Box(0, 1, (3483,), float32), "action_mask": Box(0, 1, (200,), int8)}`.
Seats are relative: the observer is seat 0, the next player clockwise seat 1, and so on (seats
beyond `num_players` stay zero). Coordinates are `(c + 88) / 176` (a monster spans less than 88
cells from its first tile in any direction).

| slice       | content                                                                       |
|-------------|-------------------------------------------------------------------------------|
| 0-2287      | 88 tile slots in the order tiles were laid (start tiles included), 26 values each: present; owner's relative seat one-hot (6); the monster is a first monster; minion number / 47; the monster is complete; x and y relative to the monster's first tile (y grows southwards); thin and thick flags per side N, E, S, W (8); eye; per side, a thin or thick edge facing an empty cell (4); laid by the last action |
| 2288-3233   | 43 open-cell slots numbered as the placement actions number them, 22 values each: present; owner's relative seat one-hot (6); the monster is a first monster; x and y relative to the monster's first tile; per side N, E, S, W, the tile across it shows blank, thin, thick (3 flags each, all 0 for no tile) |
| 3234-3270   | the tile in hand: kind one-hot (28, `KIND_NAMES` order), thin and thick flags per side in orientation 0 (8), eye |
| 3271-3298   | tiles left in the supply per kind / that kind's inventory                     |
| 3299-3326   | tiles that left the game unplaced per kind / that kind's inventory           |
| 3327        | supply size / 88                                                              |
| 3328-3333   | score / 88 per seat                                                           |
| 3334-3339   | first monster complete, per seat                                              |
| 3340-3345   | tiles of the seat's monster in progress / 88                                  |
| 3346-3351   | open thin or thick edges of that monster / 43                                 |
| 3352-3357   | seat on move, one-hot                                                         |
| 3358-3363   | first player, one-hot                                                         |
| 3364-3369   | 1 for each seat in the game                                                   |
| 3370-3372   | phase one-hot: choose start tile, place tile, game over                       |
| 3373-3415   | derived, per open cell (numbered as above): share of the supply whose kind fits it in some rotation (MF-10) |
| 3416-3458   | derived, per open cell: the tile in hand fits it in some rotation             |
| 3459-3464   | derived, per seat: what completing its monster in progress would score (tiles of a first monster, eye tiles of a minion, MF-15) / 30 (capped) |
| 3465-3470   | derived, per seat: open cells of that monster / 43                            |
| 3471-3476   | derived, per seat: the lowest supply share fitting one of those cells (0: no tile left can complete it) |
| 3477-3482   | derived, per seat: score behind the best score / 30 (capped)                  |

Everything is public (ruling MF8) except the order of the supply, which the state does not even
hold: it keeps counts per kind and each draw picks a kind with the probability of what is left.
`determinize` therefore has nothing to resample.

## Action mask

A drawn tile that fits somewhere must be placed (there is no pass); one that fits nowhere is
thrown away automatically and the player draws again.

<!-- generated: action-mask -->

## Action space

| action     | meaning                                                                  |
|------------|--------------------------------------------------------------------------|
| 0-27       | choose a start tile of kind k: `2000e, 2000, 1000e, 1000, 2020e, 2020, 2200e, 2200, 1010, 1100, 2010e, 2010, 2100e, 2100, 2220e, 2220, 2101e, 2101, 2110, 2210e, 2210, 1110, 2222e, 2222, 2121e, 2121, 2111, 1111` (edges N E S W in orientation 0, `e` for an eye) |
| 28-199     | `28 + 4*c + r`: place the tile in hand on open cell c (observation slots 2288-3233; the render marks it `cN`), turned r quarter turns clockwise |

`env.unwrapped.action_to_str(a)` names an action (`"start 2101e"`, `"place c3 r2"`; in a state
also the tile, the seat whose monster it goes on and the cell relative to that monster's first
tile, `"place c3 r2 [2100 on p1 at 2,-1]"`) and `SPEC.str_to_action` reads those names back.

## Rewards

At the end the highest score wins and tied players share: +1/k to each of the k winners,
-1/(n-k) to the others, 0 to all when everyone ties (ruling C3); a truncated game gives 0 to
everyone. Every action takes one of the 88 tiles out of the supply, so no game is longer than 88
actions and the default limit of 100 is never reached: over 20,000 random games (2,000 per
player count and start mode) the longest took 88 actions (6 players, chosen start tiles), the
mean 57 (2 players) to 81 (6 players). With `reward="score"` each player gets their final score
minus the mean final score.

## Options

<!-- generated: options -->

## Version history

* v0: initial release (rules MF-1 to MF-20, rulings MF1-MF8).

<!-- generated: version-history -->
"""

from .core.game_page import game_page
from .monster_factory.game import GAME

SPEC, raw_env, env = GAME.spec, GAME.raw_env, GAME.env
__doc__ = game_page(GAME, __doc__)

__all__ = ["GAME", "SPEC", "env", "raw_env"]
