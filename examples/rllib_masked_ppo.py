"""Masked PPO on Ray RLlib: one self-play module plays every seat, illegal actions never sampled.

``monster_zoo.training.rllib.ppo.ppo_config`` is RLlib's own ``PPOConfig`` (new API stack) with
what a stock one lacks for these envs: the multi-agent env of every game
(``monster_zoo.envs.rllib_env.RLlibGameEnv``), the mapping of every seat to one module and that
module's masking of illegal actions. Set anything else on it as usual; here the driver plays the
games itself (``--num-env-runners 0``; raise it on a cluster, with ``--address`` to join one).
After ``--iterations`` training iterations the module plays against the greedy baseline and its win
rate is printed. Needs the ``distributed`` extra.

    python examples/rllib_masked_ppo.py --iterations 20 --train-batch 4000 --num-env-runners 2
"""

import argparse
import time

import ray

import monster_zoo
from monster_zoo.agents import make_agent
from monster_zoo.training.learner_eval import evaluate_against
from monster_zoo.training.rllib.ppo import module_agent, ppo_config


def parse_args(argv=None) -> argparse.Namespace:
    """The command line: game, players, budget, env runners, evaluation, cluster, seed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="marry_the_monster-v0", choices=monster_zoo.available())
    parser.add_argument("--num-players", type=int, default=2, help="players (default %(default)s)")
    parser.add_argument("--iterations", type=int, default=1, help="training iterations (default %(default)s)")
    parser.add_argument(
        "--train-batch", type=int, default=400, help="decisions per iteration (default %(default)s)"
    )
    parser.add_argument(
        "--num-env-runners",
        type=int,
        default=0,
        help="Ray actors playing games; 0: the driver plays them (default %(default)s)",
    )
    parser.add_argument("--eval-games", type=int, default=10, help="games against greedy after training")
    parser.add_argument(
        "--address", default=None, help="a running Ray cluster's HOST:PORT (default: a local Ray)"
    )
    parser.add_argument("--seed", type=int, default=0, help="RLlib's seed and the evaluation's deals")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    """Train, evaluate, stop."""
    args = parse_args(argv)
    options = {"num_players": args.num_players}
    ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    config = (
        ppo_config(
            args.game,
            options,
            train_batch_size_per_learner=args.train_batch,
            minibatch_size=max(1, args.train_batch // 4),
            num_epochs=2,
        )
        .env_runners(num_env_runners=args.num_env_runners)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    start = time.perf_counter()
    for iteration in range(args.iterations):
        algo.train()
        print(f"iteration {iteration + 1}/{args.iterations} done, {time.perf_counter() - start:.1f} s")
    result = evaluate_against(
        module_agent(algo),
        make_agent("greedy", args.game, options=options),
        args.game,
        args.eval_games,
        args.seed,
        **options,
    )
    print(
        f"{args.game}, {args.num_players} players, {args.iterations} iteration(s) of {args.train_batch} "
        f"decisions: {result}"
    )
    algo.stop()
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
