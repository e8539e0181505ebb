"""Tianshou: DQN with action masks on the gymnasium learner env, against random or greedy seats.

``monster_zoo.make_learner_env`` gives the learner one seat of each game and plays the others
inside the env (uniformly random legal moves in numba by default, the greedy baseline with
``--opponent greedy``), so every transition Tianshou stores runs from one of the learner's
decisions to its next, with the game's result on its last one. Tianshou's DQN masks actions it
finds under ``obs.mask``: the small wrapper below hands it the env's ``action_masks()`` that way,
so neither the greedy choice nor the exploring one is ever illegal. (Tianshou's ``PettingZooEnv``
also wraps the AEC env as it is, but then a seat's transitions end on another seat's turn.) After
training, the greedy policy plays ``--eval-games`` games and its win rate is printed. Needs the
``examples`` extra (Tianshou 2).

    python examples/tianshou_dqn.py --game monstargh-v0 --epochs 10 --epoch-steps 10000
"""

import argparse

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import monster_zoo
from monster_zoo.agents import make_agent


class MaskInObservation(gym.ObservationWrapper):
    """The learner env's observation as ``{"obs": vector, "mask": legal actions}``, where Tianshou's
    discrete policies look for the mask."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.observation_space = spaces.Dict(
            {"obs": env.observation_space, "mask": spaces.MultiBinary(int(env.action_space.n))}
        )

    def observation(self, observation: np.ndarray) -> dict:
        """The observation with the mask of the state it was taken in."""
        return {"obs": observation, "mask": self.env.unwrapped.action_masks().astype(bool)}


def parse_args(argv=None) -> argparse.Namespace:
    """The command line: game, players, opponent, budget, evaluation, seed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="marry_the_monster-v0", choices=monster_zoo.available())
    parser.add_argument("--num-players", type=int, default=2, help="players (default %(default)s)")
    parser.add_argument(
        "--opponent",
        choices=["random", "greedy"],
        default="random",
        help="who plays the other seats (default %(default)s)",
    )
    parser.add_argument("--epochs", type=int, default=1, help="training epochs (default %(default)s)")
    parser.add_argument(
        "--epoch-steps", type=int, default=200, help="learner steps per epoch (default %(default)s)"
    )
    parser.add_argument(
        "--num-envs", type=int, default=4, help="games collected side by side (default %(default)s)"
    )
    parser.add_argument("--eval-games", type=int, default=8, help="games played after training")
    parser.add_argument("--hidden", type=int, nargs="*", default=[256, 256], help="hidden layer sizes")
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the network, the games and the evaluation"
    )
    return parser.parse_args(argv)


def make_env(args) -> gym.Env:
    """One learner env with its mask in the observation."""
    options = {"num_players": args.num_players}
    opponents = None if args.opponent == "random" else [make_agent("greedy", args.game, args.seed, options)]
    return MaskInObservation(monster_zoo.make_learner_env(args.game, opponents=opponents, **options))


def build_dqn(args, env: gym.Env) -> DQN:
    """DQN over the observation vector; the mask only chooses among its Q-values."""
    observation_space = env.observation_space["obs"]
    net = Net(state_shape=observation_space.shape, action_shape=env.action_space.n, hidden_sizes=args.hidden)
    policy = DiscreteQLearningPolicy(
        model=net,
        action_space=env.action_space,
        observation_space=observation_space,
        eps_training=0.1,
        eps_inference=0.0,
    )
    return DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=1e-4),
        gamma=0.99,
        n_step_return_horizon=3,
        target_update_freq=500,
    )


def main(argv=None) -> int:
    """Train, then evaluate the greedy policy."""
    args = parse_args(argv)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # a small network: one thread keeps its speed beside other processes
    train_envs = DummyVectorEnv([lambda: make_env(args) for _ in range(args.num_envs)])
    test_envs = DummyVectorEnv([lambda: make_env(args) for _ in range(args.num_envs)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 10_000)
    dqn = build_dqn(args, make_env(args))
    train_collector = Collector[CollectStats](
        dqn, train_envs, VectorReplayBuffer(50_000, args.num_envs), exploration_noise=True
    )
    test_collector = Collector[CollectStats](dqn, test_envs)
    train_collector.reset()
    train_collector.collect(n_step=64 * args.num_envs)  # a first replay buffer before any update
    dqn.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=2 * args.num_envs,
            test_step_num_episodes=args.num_envs,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.5,
            show_progress=False,
            verbose=False,
        )
    )
    stats = test_collector.collect(n_episode=args.eval_games, reset_before_collect=True)
    wins = int(np.count_nonzero(stats.returns > 0))
    print(
        f"{args.game}, {args.num_players} players: DQN after {args.epochs} epoch(s) of {args.epoch_steps} "
        f"steps wins {wins} of {len(stats.returns)} games against {args.opponent} "
        f"(an even share is {1 / args.num_players:.2f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
