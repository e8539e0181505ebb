"""Self-play MaskablePPO for any monster-zoo game, in one readable script.

    python -m monster_zoo.training.selfplay_ppo --help
    python -m monster_zoo.training.selfplay_ppo --game marry_the_monster-v0 --total-timesteps 300000

The learner plays one random seat in each of ``num_envs`` games on the batched
kernels (:class:`monster_zoo.envs.core.sb3_vec_env.SelfPlayVecEnv`); the other seats are
played by an opponent drawn per game from a mix of fixed baselines (``random``,
``greedy``, any name ``monster_zoo.agents.make_agent`` knows) and a pool of frozen snapshots
of the learner itself, refreshed every ``snapshot_every`` PPO updates.

Every run writes to ``{out_dir}/{run_name}/`` with ``run_name =
"{game}__{exp_name}__{seed}__{unix time}"``: ``metrics.csv`` (long format:
step, wall_time, metric, value; metric names fixed: ``charts/SPS``,
``eval/winrate_vs_random``, ``eval/winrate_vs_greedy``, ``rollout/ep_rew_mean``,
``train/pool_size``), TensorBoard events, ``checkpoints/``, ``final_model.zip``,
``summary.json`` and ``curves.png``. Beside each SB3 zip (kept for resuming training)
lies a policy file of the same name, ``.npz``: the actor's weights and the game as
plain data (:mod:`monster_zoo.agents.policy_file`), which plays and evaluates without
torch and without unpickling anything (``ppo:{out_dir}/{run_name}/final_model.npz``).
"""
import argparse
import csv
import dataclasses
import json
import shutil
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np

from monster_zoo.envs.core.options import parse_option
from monster_zoo.envs.core.safe_writing import write_atomic


def flag(default, help: str):
    """A field of :class:`Args` with its command-line help."""
    return field(default=default, metadata={"help": help})


@dataclass
class Args:
    """Every knob of a run; each field is a command-line flag (``--total-timesteps``)."""

    game: str = flag("marry_the_monster-v0", 'registry id of the game')
    option: List[str] = field(default_factory=list,
                              metadata={"help": "game option KEY=VALUE, repeatable (e.g. num_players=3)"})
    exp_name: str = flag("selfplay_ppo", 'experiment name, part of the run name')
    seed: int = flag(1, 'seed of the games, the opponents and torch')
    total_timesteps: int = flag(1_000_000, 'learner decisions to train on')
    time_limit: float = flag(
        0.0, 'stop training after this many minutes of wall time, whatever the timesteps (0: no limit)')
    num_envs: int = flag(128, "games played side by side")
    num_steps: int = flag(32, 'learner decisions per game per rollout (rollout = num_envs * num_steps)')
    learning_rate: float = flag(3e-4, 'Adam learning rate')
    gamma: float = flag(0.995, 'discount per learner decision')
    gae_lambda: float = flag(0.95, 'GAE lambda')
    batch_size: int = flag(1024, 'minibatch size of the PPO update')
    update_epochs: int = flag(4, 'passes over each rollout')
    clip_coef: float = flag(0.2, 'PPO clipping coefficient')
    ent_coef: float = flag(0.01, 'entropy bonus')
    net_arch: str = flag("256,256", 'hidden layer sizes of the policy and value networks')
    policy: str = flag("mlp", "actor: 'mlp', or 'placement' (games with placement actions, Monster Factory: "
                       "one network shared by every open cell scores each placement, see "
                       "monster_zoo.agents.placement_policy)")
    opponents: str = flag("random:0.1,greedy:0.5,snapshots:0.4",
                          "opponent mix NAME:WEIGHT,...; names from monster_zoo.agents.make_agent, "
                          "plus 'snapshots' (the self-play pool)")
    warm_start: str = flag("", "before PPO, clone this baseline's decisions (e.g. greedy; empty: start "
                           "from random weights); see monster_zoo.training.imitation")
    init_from: str = flag("", "start from the weights (and optimizer state) of an earlier run of the same game, "
                          "options and --policy: its final_model.zip or a checkpoints/step_N.zip; only the "
                          "tensors are read (torch.load with weights_only), no pickled object is")
    warm_start_samples: int = flag(200_000, "teacher decisions cloned by --warm-start")
    warm_start_epochs: int = flag(3, "passes over the teacher's decisions")
    snapshot_every: int = flag(10, 'PPO updates between snapshots of the learner into the pool')
    pool_size: int = flag(8, 'snapshots kept in the pool (oldest dropped first)')
    eval_every: int = flag(
        100_000, 'timesteps between evaluations against random and greedy (0: only at the end)')
    eval_games: int = flag(200, 'games per evaluation and opponent (seats rotated)')
    checkpoint_every: int = flag(250_000, 'timesteps between checkpoints (0: final model only)')
    out_dir: str = flag("runs", 'folder of the runs')
    # 1: torch's threads stall whenever another process holds a core, so a second thread made
    # training 2-10x slower on a shared 2-core machine, and gained only 40% on an idle one
    # (benchmarks/torch_threads.py and its README).
    torch_threads: int = flag(1, "torch CPU threads (0: torch's default, one per core)")
    progress: bool = flag(True, 'show a progress bar')
    plot: bool = flag(True, 'draw the learning curves into curves.png at the end')


# The progress bar's rate and ETA: an exponential average over rollouts that weighs the newest
# 5% (about the last 20 rollouts), so that one slow update, evaluation or busy spell moves them
# little.
PROGRESS_SMOOTHING = 0.05


def progress_bar(total: int, desc: str, enabled: bool = True):
    """The run's tqdm bar in steps; update it once per rollout (or training iteration), so that
    each update's interval holds both the collection and the update, and its rate is smoothed over
    rollouts (:data:`PROGRESS_SMOOTHING`)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="step", disable=not enabled, desc=desc, smoothing=PROGRESS_SMOOTHING)


def build_parser(args_class=None, prog: str = "python -m monster_zoo.training.selfplay_ppo",
                 description: str = __doc__.split("\n\n")[0]):
    """An argparse parser generated from ``args_class`` (default :class:`Args`; flag help = the field's
    ``help``)."""
    import argparse

    parser = argparse.ArgumentParser(prog=prog, description=description,
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    for f in dataclasses.fields(args_class or Args):
        flag = "--" + f.name.replace("_", "-")
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default
        if f.type is bool or f.type == "bool":
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=f.metadata["help"])
        elif f.name == "option":
            parser.add_argument(flag, action="append", default=default, metavar="KEY=VALUE", help=f.metadata["help"])
        else:
            parser.add_argument(flag, type=type(default), default=default, help=f.metadata["help"])
    return parser


def argument_problem(args: Args) -> Optional[str]:
    """Why ``args`` cannot make a run, or None; checked before anything is written."""
    from monster_zoo.training.arg_checks import (first_problem, int_list, out_of_bounds, plain_name,
                                                 policy_size_problem, writable_dir)

    return first_problem(
        out_of_bounds([
            ("--seed", args.seed, args.seed >= 0, "a non-negative integer"),
            ("--total-timesteps", args.total_timesteps, args.total_timesteps >= 1, "at least 1"),
            ("--num-envs", args.num_envs, args.num_envs >= 1, "at least 1"),
            ("--num-steps", args.num_steps, args.num_steps >= 1, "at least 1"),
            ("--batch-size", args.batch_size, args.batch_size >= 2, "at least 2"),
            ("--update-epochs", args.update_epochs, args.update_epochs >= 1, "at least 1"),
            ("--learning-rate", args.learning_rate, args.learning_rate > 0, "a number > 0"),
            ("--gamma", args.gamma, 0 < args.gamma <= 1, "in (0, 1]"),
            ("--gae-lambda", args.gae_lambda, 0 <= args.gae_lambda <= 1, "in [0, 1]"),
            ("--clip-coef", args.clip_coef, args.clip_coef > 0, "a number > 0"),
            ("--ent-coef", args.ent_coef, args.ent_coef >= 0, "a number >= 0"),
            ("--time-limit", args.time_limit, args.time_limit >= 0, "minutes >= 0 (0: no limit)"),
            ("--snapshot-every", args.snapshot_every, args.snapshot_every >= 1, "at least 1"),
            ("--pool-size", args.pool_size, args.pool_size >= 1, "at least 1"),
            ("--eval-every", args.eval_every, args.eval_every >= 0, "at least 0 (0: only at the end)"),
            ("--eval-games", args.eval_games, args.eval_games >= 1, "at least 1"),
            ("--checkpoint-every", args.checkpoint_every, args.checkpoint_every >= 0, "at least 0"),
            ("--torch-threads", args.torch_threads, args.torch_threads >= 0, "at least 0 (0: torch's default)"),
            ("--warm-start-samples", args.warm_start_samples, args.warm_start_samples >= 100, "at least 100"),
            ("--warm-start-epochs", args.warm_start_epochs, args.warm_start_epochs >= 1, "at least 1"),
        ]),
        int_list("--net-arch", args.net_arch)[1],
        # a network the policy file cannot hold would train for hours, then fail to save
        policy_size_problem("--net-arch", args.game, int_list("--net-arch", args.net_arch)[0] or []),
        policy_problem(args.policy, args.game),
        "--init-from and --warm-start both choose the first weights: give one" if args.init_from and args.warm_start
        else None,
        plain_name("--exp-name", args.exp_name),
        writable_dir("--out-dir", Path(args.out_dir)),
    )


POLICIES = ("mlp", "placement")


def policy_problem(policy: str, game_id: str) -> Optional[str]:
    """Why ``--policy`` cannot train ``game_id``, or None."""
    if policy not in POLICIES:
        return f"--policy {policy!r} is not one of {', '.join(POLICIES)}"
    if policy == "placement":
        from monster_zoo import envs
        from monster_zoo.agents.placement_policy import placement_layout

        if envs.registry.registered(game_id) and placement_layout(game_id) is None:
            return (f"--policy placement needs a game with placement actions; {game_id} has none "
                    "(use --policy mlp)")
    return None


def check_init_from(path: str, game_id: str, options: dict, policy: str) -> None:
    """ValueError with the reason unless ``path`` is the SB3 zip of an earlier run of ``game_id`` with
    ``options`` and ``policy`` (as its ``args.json`` says)."""
    from monster_zoo.agents.policy_file import check_fits
    from monster_zoo.agents.ppo_agent import RUN_ARGS, training_game

    zip_path = Path(path)
    if zip_path.suffix != ".zip" or not zip_path.is_file():
        raise ValueError(f"--init-from {path!r}: name a run's final_model.zip or checkpoints/step_N.zip")
    if not zipfile.is_zipfile(zip_path):
        raise ValueError(f"--init-from {path!r} is not a readable SB3 zip")
    trained = training_game(zip_path)
    if trained is None:
        raise ValueError(f"--init-from {path!r}: no {RUN_ARGS} of its run beside it, so its game is unknown")
    check_fits(trained, repr(path), game_id, options)
    folder = zip_path.parent if (zip_path.parent / RUN_ARGS).is_file() else zip_path.parent.parent
    their_policy = json.loads((folder / RUN_ARGS).read_text(encoding="utf-8")).get("policy", "mlp")
    if their_policy != policy:
        raise ValueError(f"--init-from {path!r} trained a {their_policy} policy; this run's --policy is {policy}")


def start_from(model, path: str) -> None:
    """Load the weights and optimizer state of the SB3 zip ``path`` into ``model``: only its tensors
    are read (SB3's ``set_parameters`` loads them with ``torch.load(..., weights_only=True)``), no
    pickled object. ValueError if they do not fit the model's networks."""
    try:
        model.set_parameters(str(path), exact_match=True, device="cpu")
    except (RuntimeError, ValueError, KeyError) as error:
        raise ValueError(f"--init-from {path!r} does not fit this run's networks (--net-arch?): "
                         f"{' '.join(str(error).strip().splitlines()[:2])}") from None


def parse_options(pairs: Sequence[str]) -> dict:
    """``["num_players=3", "kings_rules=true"]`` -> ``{"num_players": 3, "kings_rules": True}``,
    values read as by ``monster_zoo.envs.core.options.parse_option``."""
    options = {}
    for pair in pairs:
        try:
            key, value = parse_option(pair)
        except argparse.ArgumentTypeError as err:
            raise ValueError(str(err)) from None
        options[key] = value
    return options


def parse_mix(text: str) -> dict:
    """``"random:0.2,snapshots:0.8"`` -> ``{"random": 0.2, "snapshots": 0.8}``."""
    mix = {}
    for item in filter(None, text.split(",")):
        name, _, weight = item.rpartition(":")
        try:
            mix[name] = float(weight)
        except ValueError:
            raise ValueError(f"opponent mix item {item!r} is not NAME:WEIGHT") from None
        if not name or mix[name] < 0:
            raise ValueError(f"opponent mix item {item!r} is not NAME:WEIGHT with WEIGHT >= 0")
    if not mix or sum(mix.values()) <= 0:
        raise ValueError(f"opponent mix {text!r} gives no opponent a positive weight")
    return mix


class MetricsLog:
    """``metrics.csv`` in long format plus SB3's logger (TensorBoard) under the same names."""

    def __init__(self, path: Path, sb3_logger):
        self.file = path.open("w", newline="")
        self.writer = csv.writer(self.file)
        self.writer.writerow(["step", "wall_time", "metric", "value"])
        self.sb3_logger = sb3_logger
        self.start = time.time()

    def log(self, step: int, metric: str, value: float) -> None:
        """Record one value at ``step`` (learner timesteps)."""
        self.writer.writerow([step, f"{time.time() - self.start:.2f}", metric, f"{value:.6g}"])
        self.file.flush()
        self.sb3_logger.record(metric, value)

    def close(self) -> None:
        """Flush and close the CSV file."""
        self.file.close()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Train, evaluate and save; return 0 (bad arguments exit with code 2 and a message, before
    anything is written)."""
    parser = build_parser()
    args = Args(**vars(parser.parse_args(argv)))
    problem = argument_problem(args)
    if problem:
        parser.error(problem)
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import VecMonitor

    from monster_zoo import envs
    from monster_zoo.agents import make_agent
    from monster_zoo.agents.ppo_agent import PPOAgent, run_model_name, save_policy
    from monster_zoo.training.arg_checks import int_list
    from monster_zoo.training.learner_eval import evaluate_against

    try:
        options = parse_options(args.option)
        envs.config(args.game, options)
        mix = parse_mix(args.opponents)
        baselines = {name: make_agent(name, args.game, seed=args.seed + 7919 * k, options=options)
                     for k, name in enumerate(mix) if name != "snapshots"}
        teacher = make_agent(args.warm_start, args.game, seed=args.seed, options=options) if args.warm_start else None
        if args.init_from:
            check_init_from(args.init_from, args.game, options, args.policy)
        if teacher is not None and not teacher.needs_state:
            raise ValueError(f"--warm-start {args.warm_start}: the teacher must be a baseline that reads the "
                             "engine state, such as greedy or mcts-fast")
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    run_name = f"{args.game}__{args.exp_name}__{args.seed}__{int(time.time())}"
    run_dir = Path(args.out_dir) / run_name
    (run_dir / "checkpoints").mkdir(parents=True)
    write_atomic(run_dir / "args.json", json.dumps(dataclasses.asdict(args), indent=2))

    vec_env = envs.make_vec_env(args.game, args.num_envs, opponents=list(baselines.values()) or None,
                                seed=args.seed, **options)
    policy_class, policy_kwargs = "MlpPolicy", {"net_arch": int_list("--net-arch", args.net_arch)[0]}
    if args.policy == "placement":
        from monster_zoo.agents.placement_policy import placement_layout
        from monster_zoo.training.placement_net import PlacementPolicy

        policy_class, policy_kwargs["layout"] = PlacementPolicy, placement_layout(args.game)
    model = MaskablePPO(
        policy_class, VecMonitor(vec_env), learning_rate=args.learning_rate, n_steps=args.num_steps,
        batch_size=args.batch_size, n_epochs=args.update_epochs, gamma=args.gamma,
        gae_lambda=args.gae_lambda, clip_range=args.clip_coef, ent_coef=args.ent_coef,
        policy_kwargs=policy_kwargs,
        seed=args.seed, device="cpu", verbose=0)
    if args.init_from:
        try:
            start_from(model, args.init_from)
        except ValueError as error:
            shutil.rmtree(run_dir)
            parser.error(str(error))
        print(f"initialised from {args.init_from}")
    model.set_logger(configure(str(run_dir), ["tensorboard", "csv"]))
    metrics = MetricsLog(run_dir / "metrics.csv", model.logger)
    if teacher is not None:
        from monster_zoo.training import imitation

        demos = imitation.collect(args.game, options, teacher, args.warm_start_samples, seed=args.seed + 1)
        cloned = imitation.clone(model.policy, demos, args.warm_start_epochs, seed=args.seed)
        metrics.log(0, "warmstart/held_out_agreement", cloned["held_out_agreement"])
        print(f"warm start: cloned {cloned['samples']} {args.warm_start} decisions, held-out agreement "
              f"{cloned['held_out_agreement']:.3f}")
    pool: List[PPOAgent] = []

    def save_model(path: Path, step: Optional[int] = None) -> None:
        """The SB3 zip at ``path`` (to resume training) and the policy file beside it (to play)."""
        model.save(path)
        save_policy(model.policy, path.with_suffix(".npz"), args.game, options,
                    run_model_name(args.exp_name, args.seed, step),
                    {"algorithm": "MaskablePPO", "run_name": run_name, "seed": args.seed,
                     "timesteps": int(model.num_timesteps)})

    def refresh_opponents() -> None:
        """Give each baseline its weight and share the snapshots' weight over the pool."""
        opponents, weights = [], []
        for name in mix:
            group = pool if name == "snapshots" else [baselines[name]]
            opponents += group
            weights += [mix[name] / len(group)] * len(group)
        vec_env.set_opponents(opponents, weights)

    evaluated = {"step": None, "rates": {}}  # the latest evaluation, so the last is not repeated

    def evaluate(step: int) -> dict:
        """Win rates of the deterministic policy against random and greedy."""
        learner = PPOAgent(args.seed, model.policy, deterministic=True)
        rates = {}
        for k, name in enumerate(("random", "greedy")):
            try:
                opponent = make_agent(name, args.game, seed=args.seed + k)
            except ValueError:
                continue  # a game without a greedy baseline
            rates[name] = evaluate_against(learner, opponent, args.game, args.eval_games,
                                           seed=10_000_000 + args.seed, **options)
            low, high = rates[name].interval
            metrics.log(step, f"eval/winrate_vs_{name}", rates[name].rate)
            metrics.log(step, f"eval/winrate_vs_{name}_low95", low)
            metrics.log(step, f"eval/winrate_vs_{name}_high95", high)
        evaluated.update(step=step, rates=rates)
        return rates

    class SelfPlay(BaseCallback):
        """Snapshots, evaluation, checkpoints, metrics and the progress bar, at rollout ends."""

        def _on_training_start(self) -> None:
            self.updates, self.start = 0, time.time()
            self.next_eval = args.eval_every or None
            self.next_checkpoint = args.checkpoint_every or None
            self.bar = progress_bar(args.total_timesteps, run_name, args.progress)

        def _on_step(self) -> bool:
            return not args.time_limit or time.time() - self.start < 60 * args.time_limit

        def _advance_bar(self) -> None:
            # SB3 collects whole rollouts, so it may overshoot the budget: the bar stops at its total
            self.bar.update(min(self.num_timesteps, self.bar.total) - self.bar.n)

        def _on_rollout_end(self) -> None:
            step = self.num_timesteps
            self._advance_bar()
            self.updates += 1
            metrics.log(step, "charts/SPS", step / (time.time() - self.start))
            if self.model.ep_info_buffer:
                metrics.log(step, "rollout/ep_rew_mean",
                            float(np.mean([e["r"] for e in self.model.ep_info_buffer])))
            if self.updates % args.snapshot_every == 0 and "snapshots" in mix:
                pool.append(PPOAgent.snapshot(self.model.policy, args.seed + self.updates,
                                              f"snapshot@{step}"))
                del pool[:-args.pool_size]
                refresh_opponents()
                metrics.log(step, "train/pool_size", len(pool))
            if self.next_eval and step >= self.next_eval:
                rates = evaluate(step)
                self.bar.set_postfix({f"vs_{k}": f"{r.rate:.2f}" for k, r in rates.items()})
                self.next_eval += args.eval_every
            if self.next_checkpoint and step >= self.next_checkpoint:
                save_model(run_dir / "checkpoints" / f"step_{step}.zip", step)
                self.next_checkpoint += args.checkpoint_every

        def _on_training_end(self) -> None:
            self._advance_bar()
            self.bar.close()

    if "snapshots" in mix:  # self-play starts against the untrained policy itself
        pool.append(PPOAgent.snapshot(model.policy, args.seed, "snapshot@0"))
    refresh_opponents()
    started = time.time()
    model.learn(total_timesteps=args.total_timesteps, callback=SelfPlay())
    train_seconds = time.time() - started
    save_model(run_dir / "final_model.zip")
    rates = evaluated["rates"] if evaluated["step"] == model.num_timesteps else evaluate(model.num_timesteps)
    model.logger.dump(model.num_timesteps)
    metrics.close()
    summary = {"run_name": run_name, "timesteps": int(model.num_timesteps),
               "train_seconds": round(train_seconds, 1),
               "timesteps_per_second": round(model.num_timesteps / train_seconds, 1),
               "model": str(run_dir / "final_model.npz"), "sb3_zip": str(run_dir / "final_model.zip"),
               **{f"winrate_vs_{k}": {"rate": r.rate, "interval": list(r.interval), "games": r.games}
                  for k, r in rates.items()}}
    write_atomic(run_dir / "summary.json", json.dumps(summary, indent=2))
    print(f"run {run_name}: {summary['timesteps']} timesteps in {train_seconds:.0f} s "
          f"({summary['timesteps_per_second']:.0f}/s)")
    for rate in rates.values():
        print(f"  win rate {rate}")
    if args.plot:
        from monster_zoo.training.plots import plot_learning_curves

        plot_learning_curves([run_dir], run_dir / "curves.png")
        print(f"  learning curves: {run_dir / 'curves.png'}")
    print(f"  model: {run_dir / 'final_model.npz'} (play it as agent 'ppo:{run_dir / 'final_model.npz'}' "
          f"with the same --option values)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
