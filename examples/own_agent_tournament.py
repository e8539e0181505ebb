"""Your own agent in a tournament: a subclass of ``Agent`` against the baselines, round robin.

The agent here, ``MostlyGreedy``, plays the greedy baseline's move but a random legal move with
probability ``--epsilon``: it shows the agent protocol (``act`` returns a legal action, ``reset``
reseeds the agent's own generator so a match replays from its seed) and the state contract
(``needs_state = True``: it receives the engine state, never modifies it and reads only what its
seat may know, which the greedy baseline it asks already respects). The match runner takes agent
objects beside names, so every pair of the field plays a seat-rotated, deal-paired 2-player
series, and the table gives each row agent's win rate against each column agent with its 95%
Wilson interval.

    python examples/own_agent_tournament.py --game monstargh-v0 --games 40 --epsilon 0.1
"""

import argparse
import itertools
import time

import numpy as np

import monster_zoo
from monster_zoo.agents import Agent, make_agent
from monster_zoo.evaluation.match import run_match


class MostlyGreedy(Agent):
    """The greedy baseline's move, or with probability ``epsilon`` a uniformly random legal move."""

    name = "mostly-greedy"
    needs_state = True  # the greedy baseline decides from the engine state

    def __init__(self, game_id: str, epsilon: float, seed: int = 0, options=None):
        self.greedy = make_agent("greedy", game_id, seed, options)
        self.epsilon = epsilon
        super().__init__(seed)

    def reset(self, seed: int) -> None:
        """Reseed this agent's generator and the greedy agent's together."""
        super().reset(seed)
        self.random = np.random.default_rng(seed)
        self.greedy.reset(seed)

    def act(self, observation, action_mask, state=None) -> int:
        """A random legal action with probability ``epsilon``, else greedy's choice."""
        if self.random.random() < self.epsilon:
            return int(self.random.choice(np.flatnonzero(action_mask)))
        return self.greedy.act(observation, action_mask, state)


def parse_args(argv=None) -> argparse.Namespace:
    """The command line: game, games per pairing, the agent's epsilon, seed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="marry_the_monster-v0", choices=monster_zoo.available())
    parser.add_argument(
        "--games", type=int, default=6, help="games per pairing, seats rotated (default %(default)s)"
    )
    parser.add_argument("--epsilon", type=float, default=0.2, help="MostlyGreedy's share of random moves")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals (default %(default)s)")
    return parser.parse_args(argv)


def win_rate(stats) -> str:
    """An agent's win rate over a match with its 95% Wilson interval."""
    s = stats.summary()
    return f"{s['win_rate']:.2f} [{s['win_rate_low']:.2f}, {s['win_rate_high']:.2f}]"


def main(argv=None) -> int:
    """Play every pairing of the field and print the win-rate matrix."""
    args = parse_args(argv)
    seats = max(2, monster_zoo.spec(args.game).min_players)
    options = {"num_players": seats}
    # One agent per seat: each entry makes a fresh one (a name is built by the match runner).
    field = {
        "mostly-greedy": lambda: MostlyGreedy(args.game, args.epsilon, args.seed, options),
        "greedy": lambda: "greedy",
        "random": lambda: "random",
    }
    # With two seats one series decides both (A, B) and (B, A); with more, A alone among B's differs.
    pairs = itertools.combinations(field, 2) if seats == 2 else itertools.permutations(field, 2)
    start = time.perf_counter()
    cells = {}
    for row, column in pairs:
        entries = [field[row]()] + [field[column]() for _ in range(seats - 1)]
        result = run_match(args.game, entries, args.games, args.seed, options, progress=False)
        cells[row, column] = win_rate(result.stats[0])
        if seats == 2:
            cells[column, row] = win_rate(result.stats[1])
    print(
        f"{args.game}, {seats} players, {args.games} games per pairing, seed {args.seed} "
        f"({time.perf_counter() - start:.1f} s): win rate of the row agent against the column agent"
        + ("" if seats == 2 else f" in all {seats - 1} other seats")
    )
    print(f"{'':>14} " + " ".join(f"{name:>17}" for name in field))
    for row in field:
        print(f"{row:>14} " + " ".join(f"{cells.get((row, column), '-'):>17}" for column in field))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
