"""
# Monster Factory

| Import             | `from envs import monster_factory_v0`                          |
|--------------------|----------------------------------------------------------------|
| Actions            | Discrete                                                       |
| Parallel API       | No                                                             |
| Manual control     | Yes: `monster-zoo play --game monster_factory-v0` (or `python -m training play`) |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']`     |
| Agents             | 4 (2-6 with `num_players`)                                     |
| Action shape       | (1,)                                                           |
| Action values      | Discrete(8476)                                                 |
| Observation shape  | (2515,)                                                        |
| Observation values | [0, 1]                                                         |

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
placement is named relative to the monster, never in a window: "on seat s's monster in progress,
beside its tile t (counted in the order the monster's tiles were laid), on side d, turned r
quarter turns clockwise". A monster has at most 88 tiles and only one monster per seat is in
progress, so `6 x 88 x 4 x 4` actions name every placement that can ever arise. An empty cell
next to several tiles of a monster is offered only from the neighbour with the lowest t, and
orientations that show the same four edges (a 1010 turned twice) only with the lowest r, so every
legal placement is exactly one action (MF-19).

## Observation space

`{"observation": Box(0, 1, (2515,), float32), "action_mask": Box(0, 1, (8476,), int8)}`.
Seats are relative: the observer is seat 0, the next player clockwise seat 1, and so on (seats
beyond `num_players` stay zero). Coordinates are `(c + 88) / 176` (a monster spans less than 88
cells from its first tile in any direction).

| slice       | content                                                                       |
|-------------|-------------------------------------------------------------------------------|
| 0-2375      | 88 tile slots in the order tiles were laid (start tiles included), 27 values each: present; owner's relative seat one-hot (6); the monster is a first monster; minion number / 47; the monster is complete; the tile's index t in its monster / 88 (the t of the actions); x and y relative to the monster's first tile (y grows southwards); thin and thick flags per side N, E, S, W (8); eye; per side, a thin or thick edge facing an empty cell (4); laid by the last action |
| 2376-2412   | the tile in hand: kind one-hot (28, `KIND_NAMES` order), thin and thick flags per side in orientation 0 (8), eye |
| 2413-2440   | tiles left in the supply per kind / that kind's inventory                     |
| 2441-2468   | tiles that left the game unplaced per kind / that kind's inventory           |
| 2469        | supply size / 88                                                              |
| 2470-2475   | score / 88 per seat                                                           |
| 2476-2481   | first monster complete, per seat                                              |
| 2482-2487   | tiles of the seat's monster in progress / 88                                  |
| 2488-2493   | open thin or thick edges of that monster / 178                                |
| 2494-2499   | seat on move, one-hot                                                         |
| 2500-2505   | first player, one-hot                                                         |
| 2506-2511   | 1 for each seat in the game                                                   |
| 2512-2514   | phase one-hot: choose start tile, place tile, game over                       |

Everything is public (ruling MF8) except the order of the supply, which the state does not even
hold: it keeps counts per kind and each draw picks a kind with the probability of what is left.
`determinize` therefore has nothing to resample.

## Action mask

`action_mask` is 1 for every legal action of the agent on move and all zeros for every other
agent and once the game is over. A drawn tile that fits somewhere must be placed (there is no
pass); one that fits nowhere is thrown away automatically and the player draws again.

## Action space

| action     | meaning                                                                  |
|------------|--------------------------------------------------------------------------|
| 0-27       | choose a start tile of kind k: `2000e, 2000, 1000e, 1000, 2020e, 2020, 2200e, 2200, 1010, 1100, 2010e, 2010, 2100e, 2100, 2220e, 2220, 2101e, 2101, 2110, 2210e, 2210, 1110, 2222e, 2222, 2121e, 2121, 2111, 1111` (edges N E S W in orientation 0, `e` for an eye) |
| 28-8475    | `28 + ((seat*88 + t)*4 + side)*4 + r`: place the tile in hand on `seat`'s monster in progress, beside its tile t on side N/E/S/W, turned r quarter turns clockwise |

`env.unwrapped.action_to_str(a)` names an action (`"start 2101e"`, `"place p1 t3 E r2"`; in a
state also the tile and the target cell, `"place p1 t3 E r2 [2100 at 2,-1]"`) and
`SPEC.str_to_action` reads those names back.

## Rewards

At the end the highest score wins and tied players share: +1/k to each of the k winners,
-1/(n-k) to the others, 0 to all when everyone ties (ruling C3); a truncated game gives 0 to
everyone. Every action takes one of the 88 tiles out of the supply, so no game is longer than 88
actions and the default limit of 100 is never reached: over 20,000 random games (2,000 per
player count and start mode) the longest took 88 actions (6 players, chosen start tiles), the
mean 57 (2 players) to 81 (6 players). With `reward="score"` each player gets their final score
minus the mean final score.

## Options

| option           | default    | values                                                        |
|------------------|------------|---------------------------------------------------------------|
| `num_players`    | 4          | 2, 3, 4, 5, 6 (4 is the middle of the printed range)          |
| `start_tiles`    | `"choose"` | `"choose"` (in seat order), `"random"`                        |
| `max_steps`      | 100        | positive int: actions before truncation                       |
| `reward`         | `"win"`    | `"win"`, `"score"`                                            |
| `illegal_action` | `"raise"`  | `"raise"` (ValueError, game unchanged), `"penalize"` (-1 and the game ends) |
| `render_mode`    | None       | None, `"ansi"`, `"human"`                                     |

## Version history

* v0: initial release (rules MF-1 to MF-20, rulings MF1-MF8).
"""
from .monster_factory.env import SPEC, env, raw_env

__all__ = ["SPEC", "env", "raw_env"]
