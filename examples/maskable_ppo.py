"""MaskablePPO (sb3-contrib) on the gymnasium learner env: one learner seat, the others embedded.

``monster_zoo.make_learner_env`` is a plain gymnasium env: the learner takes a random seat in each
game and the other seats are played inside the env, by uniformly random legal moves stepped in
numba (the default) or by the greedy baseline (``--opponent greedy``). ``action_masks()`` is what
MaskablePPO asks for, so the policy never picks an illegal action. After training, the
deterministic policy plays ``--eval-games`` games and the learner's win rate is printed. For
serious runs use the vector env (``monster_zoo.make_vec_env``) or the trainer
(``monster-zoo train``), which steps 64 games at once; needs the ``train`` extra.

    python examples/maskable_ppo.py --game monstargh-v0 --total-timesteps 200000 --opponent greedy
"""

import argparse
import time

import torch
from sb3_contrib import MaskablePPO

import monster_zoo
from monster_zoo.agents import make_agent


def parse_args(argv=None) -> argparse.Namespace:
    """The command line: game, opponent, budget, evaluation, seed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="marry_the_monster-v0", choices=monster_zoo.available())
    parser.add_argument("--num-players", type=int, default=2, help="players (default %(default)s)")
    parser.add_argument(
        "--opponent",
        choices=["random", "greedy"],
        default="random",
        help="who plays the other seats (default %(default)s)",
    )
    parser.add_argument("--total-timesteps", type=int, default=1024, help="learner decisions to train on")
    parser.add_argument(
        "--n-steps", type=int, default=256, help="decisions per PPO update (default %(default)s)"
    )
    parser.add_argument("--eval-games", type=int, default=20, help="games played after training")
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the network, the games and the evaluation"
    )
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="torch threads; one keeps its speed beside other processes (default %(default)s)",
    )
    return parser.parse_args(argv)


def win_rate(model, env, games: int, seed: int) -> float:
    """The share of ``games`` the deterministic policy wins (its final reward is positive)."""
    wins = 0
    for game in range(games):
        obs, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, terminated, truncated, _ = env.step(int(action))
            done = terminated or truncated
        wins += reward > 0
    return wins / games


def main(argv=None) -> int:
    """Train, then evaluate."""
    args = parse_args(argv)
    torch.set_num_threads(args.torch_threads)
    options = {"num_players": args.num_players}
    opponents = None if args.opponent == "random" else [make_agent("greedy", args.game, args.seed, options)]
    env = monster_zoo.make_learner_env(args.game, opponents=opponents, **options)
    env.reset(seed=args.seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=64, seed=args.seed, verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=args.total_timesteps)
    trained = time.perf_counter() - start
    print(
        f"{args.game}, {args.num_players} players: trained {args.total_timesteps} timesteps against "
        f"{args.opponent} in {trained:.1f} s ({args.total_timesteps / trained:,.0f} timesteps/s)"
    )
    rate = win_rate(model, env, args.eval_games, args.seed + 10_000)
    print(
        f"win rate of the trained policy against {args.opponent}: {rate:.2f} over {args.eval_games} games "
        f"(an even share is {1 / args.num_players:.2f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
