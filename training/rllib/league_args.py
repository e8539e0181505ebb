"""The league's command line (:class:`Args`), apart from the league so that ``--help`` and bad
arguments are answered without Ray installed."""

import argparse
from dataclasses import dataclass, field

from monster_zoo.training.run_start import build_parser, flag

COMMAND = "python -m monster_zoo.training.rllib"
DESCRIPTION = "N-player self-play league on Ray RLlib (PPO, new API stack), for any monster-zoo game."


@dataclass
class Args:
    """Every knob of a league run; each field is a command-line flag (``--num-env-runners``)."""

    game: str = flag("marry_the_monster-v0", "registry id of the game")
    option: list[str] = field(
        default_factory=list, metadata={"help": "game option KEY=VALUE, repeatable (e.g. num_players=3)"}
    )
    exp_name: str = flag("rllib_league", "experiment name, part of the run name")
    seed: int = flag(1, "seed of the games, the seats, the baselines and torch")
    total_timesteps: int = flag(1_000_000, "learner decisions to train on")
    time_limit: float = flag(
        0.0, "stop after this many minutes of wall time, whatever the timesteps (0: no limit)"
    )
    league: str = flag(
        "random:0.1,greedy:0.4,mcts:0.05,snapshots:0.45",
        "mix of the other seats NAME:WEIGHT,...; names from monster_zoo.agents.make_agent, "
        "plus 'snapshots' (frozen copies of the learner)",
    )
    mcts_simulations: int = flag(
        200,
        "simulations per move of the league's mcts seats (the baseline's "
        "default is far too slow to train against)",
    )
    snapshot_margin: float = flag(
        0.2, "a snapshot joins when the learner's win rate in an iteration exceeds 1/num_players by this much"
    )
    snapshot_min_episodes: int = flag(
        50, "episodes an iteration needs before its win rate may add a snapshot"
    )
    pool_size: int = flag(8, "newest snapshots that play (older ones stay in the league, unused)")
    train_batch_size: int = flag(4000, "env steps per training iteration and learner")
    minibatch_size: int = flag(512, "minibatch of the PPO update")
    num_epochs: int = flag(4, "passes over each batch")
    learning_rate: float = flag(3e-4, "Adam learning rate")
    gamma: float = flag(0.995, "discount per decision")
    gae_lambda: float = flag(0.95, "GAE lambda")
    clip_coef: float = flag(0.2, "PPO clipping coefficient")
    ent_coef: float = flag(0.01, "entropy bonus")
    net_arch: str = flag("256,256", "hidden layer sizes of the policy and value networks")
    num_env_runners: int = flag(0, "Ray actors that play games (0: the driver plays them itself)")
    num_envs_per_env_runner: int = flag(1, "games each env runner steps side by side")
    num_learners: int = flag(0, "Ray actors that run the PPO update (0: the driver does)")
    num_gpus_per_learner: float = flag(0.0, "GPUs of each learner (0: CPU)")
    address: str = flag(
        "", "address of a running Ray cluster to join (e.g. 10.0.0.5:6379); empty: start a local Ray"
    )
    eval_every: int = flag(
        100_000, "learner decisions between evaluations against random and greedy (0: only at the end)"
    )
    eval_games: int = flag(200, "games per evaluation and opponent (seats rotated)")
    checkpoint_every: int = flag(250_000, "learner decisions between checkpoints (0: final one only)")
    out_dir: str = flag("runs", "folder of the runs")
    progress: bool = flag(True, "show a progress bar")


def league_parser() -> argparse.ArgumentParser:
    """The league's parser: one flag per field of :class:`Args`."""
    return build_parser(Args, COMMAND, DESCRIPTION)
