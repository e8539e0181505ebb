"""Statistics of Monster Factory's first monsters under random and greedy play: how often they are
completed, how large they grow and how long games last (``python -m
monster_zoo.benchmarks.first_monsters --stats``). A research aid for the greedy baseline's weights.
"""

import argparse
import sys

import numpy as np

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_STEPS, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng, rng_pick_set
from monster_zoo.envs.monster_factory.components import MAX_PLAYERS
from monster_zoo.envs.monster_factory.greedy import greedy_action
from monster_zoo.envs.monster_factory.state_layout import MON_DONE, MON_SIZE


def first_monster_stats(policy: str, num_players: int, games: int, seed: int = 0) -> dict:
    """Play ``games`` games with every seat ``policy`` ("random" or "greedy"), default options.

    Returns the share of first monsters completed, the mean size of the completed
    ones, the mean size of all first monsters at the end, and the mean game length.
    """
    spec = envs.spec("monster_factory-v0")
    config = envs.config("monster_factory-v0", {"num_players": num_players})
    state = np.zeros(spec.state_size, np.int32)
    mask = np.zeros(spec.num_actions, np.int8)
    done_sizes, all_sizes, lengths = [], [], []
    for g in range(games):
        rng, policy_rng = make_rng(seed + g), make_rng(10**9 + seed + g)
        spec.init_state(state, config, rng)
        while not state[H_TERMINAL]:
            spec.legal_mask(state, mask)
            action = (
                greedy_action(state, mask, policy_rng)
                if policy == "greedy"
                else rng_pick_set(mask, policy_rng)
            )
            spec.apply_action(state, action, rng)
        lengths.append(int(state[H_STEPS]))
        for q in range(num_players):
            all_sizes.append(int(state[MON_SIZE + q]))
            if state[MON_DONE + q]:
                done_sizes.append(int(state[MON_SIZE + q]))
    return {
        "policy": policy,
        "players": num_players,
        "games": games,
        "completed": len(done_sizes) / (games * num_players),
        "mean_completed_size": float(np.mean(done_sizes)) if done_sizes else 0.0,
        "mean_size": float(np.mean(all_sizes)),
        "mean_length": float(np.mean(lengths)),
    }


def main(argv=None) -> int:
    """Command line: ``--stats`` prints the first-monster statistics table."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.first_monsters", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--stats", action="store_true", help="print first-monster statistics")
    parser.add_argument("--games", type=int, default=1000, help="games per policy and player count")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not args.stats:
        parser.print_help()
        return 0
    print(
        "| policy | players | games | first monsters completed | mean size when completed "
        "| mean size of all first monsters | mean actions |"
    )
    print("|---|---|---|---|---|---|---|")
    for policy in ("random", "greedy"):
        for n in range(2, MAX_PLAYERS + 1):
            s = first_monster_stats(policy, n, args.games, args.seed)
            print(
                f"| {policy} | {n} | {s['games']} | {s['completed']:.3f} | "
                f"{s['mean_completed_size']:.2f} | {s['mean_size']:.2f} | {s['mean_length']:.1f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
