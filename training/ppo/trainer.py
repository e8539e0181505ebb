"""Self-play MaskablePPO for any monster-zoo game, in one readable script.

    python -m monster_zoo.training.ppo --help
    python -m monster_zoo.training.ppo --game marry_the_monster-v0 --total-timesteps 300000

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
plain data (:mod:`monster_zoo.agents.model_file`), which plays and evaluates without
torch and without unpickling anything (``ppo:{out_dir}/{run_name}/final_model.npz``).
"""

import json
import shutil
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.training.run_start import (
    MetricsLog,
    Run,
    baseline_rates,
    check_arguments,
    flag,
    game_options,
    new_run,
    parse_mix,
    ppo_flag_bounds,
    progress_bar,
    say_starting,
)
from monster_zoo.training.run_start import build_parser as parser_for


@dataclass
class Args:
    """Every knob of a run; each field is a command-line flag (``--total-timesteps``)."""

    game: str = flag("marry_the_monster-v0", "registry id of the game")
    option: list[str] = field(
        default_factory=list, metadata={"help": "game option KEY=VALUE, repeatable (e.g. num_players=3)"}
    )
    exp_name: str = flag("selfplay_ppo", "experiment name, part of the run name")
    seed: int = flag(1, "seed of the games, the opponents and torch")
    total_timesteps: int = flag(1_000_000, "learner decisions to train on")
    time_limit: float = flag(
        0.0, "stop training after this many minutes of wall time, whatever the timesteps (0: no limit)"
    )
    num_envs: int = flag(128, "games played side by side")
    num_steps: int = flag(32, "learner decisions per game per rollout (rollout = num_envs * num_steps)")
    learning_rate: float = flag(3e-4, "Adam learning rate")
    gamma: float = flag(0.995, "discount per learner decision")
    gae_lambda: float = flag(0.95, "GAE lambda")
    batch_size: int = flag(1024, "minibatch size of the PPO update")
    update_epochs: int = flag(4, "passes over each rollout")
    clip_coef: float = flag(0.2, "PPO clipping coefficient")
    ent_coef: float = flag(0.01, "entropy bonus")
    net_arch: str = flag("256,256", "hidden layer sizes of the policy and value networks")
    policy: str = flag(
        "mlp",
        "actor: 'mlp', or 'placement' (games with placement actions, Monster Factory: "
        "one network shared by every open cell scores each placement, see "
        "monster_zoo.agents.ppo.placement)",
    )
    opponents: str = flag(
        "random:0.1,greedy:0.5,snapshots:0.4",
        "opponent mix NAME:WEIGHT,...; names from monster_zoo.agents.make_agent, "
        "plus 'snapshots' (the self-play pool)",
    )
    warm_start: str = flag(
        "",
        "before PPO, clone this baseline's decisions (e.g. greedy; empty: start "
        "from random weights); see monster_zoo.training.ppo.imitation",
    )
    init_from: str = flag(
        "",
        "start from the weights (and optimizer state) of an earlier run of the same game, "
        "options and --policy: its final_model.zip or a checkpoints/step_N.zip; only the "
        "tensors are read (torch.load with weights_only), no pickled object is",
    )
    warm_start_samples: int = flag(200_000, "teacher decisions cloned by --warm-start")
    warm_start_epochs: int = flag(3, "passes over the teacher's decisions")
    snapshot_every: int = flag(10, "PPO updates between snapshots of the learner into the pool")
    pool_size: int = flag(8, "snapshots kept in the pool (oldest dropped first)")
    eval_every: int = flag(
        100_000, "timesteps between evaluations against random and greedy (0: only at the end)"
    )
    eval_games: int = flag(200, "games per evaluation and opponent (seats rotated)")
    checkpoint_every: int = flag(250_000, "timesteps between checkpoints (0: final model only)")
    out_dir: str = flag("runs", "folder of the runs")
    # 1: torch's threads stall whenever another process holds a core, so a second thread made
    # training 2-10x slower on a shared 2-core machine, and gained only 40% on an idle one
    # (benchmarks/torch_threads.py and its README).
    torch_threads: int = flag(1, "torch CPU threads (0: torch's default, one per core)")
    progress: bool = flag(True, "show a progress bar")
    plot: bool = flag(True, "draw the learning curves into curves.png at the end")


def build_parser():
    """The trainer's command line: one flag per :class:`Args` field, its help the field's."""
    return parser_for(Args, "python -m monster_zoo.training.ppo", __doc__.split("\n\n")[0])


def argument_problem(args: Args) -> str | None:
    """Why ``args`` cannot make a run, or None; checked before anything is written."""
    from monster_zoo.evaluation.arg_checks import (
        first_problem,
        int_list,
        out_of_bounds,
        plain_name,
        policy_size_problem,
        writable_dir,
    )

    return first_problem(
        out_of_bounds(
            [
                *ppo_flag_bounds(args),
                (
                    "--warm-start-samples",
                    args.warm_start_samples,
                    args.warm_start_samples >= 100,
                    "at least 100",
                ),
                ("--warm-start-epochs", args.warm_start_epochs, args.warm_start_epochs >= 1, "at least 1"),
            ]
        ),
        int_list("--net-arch", args.net_arch)[1],
        # a network the policy file cannot hold would train for hours, then fail to save
        policy_size_problem("--net-arch", args.game, int_list("--net-arch", args.net_arch)[0] or []),
        policy_problem(args.policy, args.game),
        "--init-from and --warm-start both choose the first weights: give one"
        if args.init_from and args.warm_start
        else None,
        plain_name("--exp-name", args.exp_name),
        writable_dir("--out-dir", Path(args.out_dir)),
    )


POLICIES = ("mlp", "placement")


def policy_problem(policy: str, game_id: str) -> str | None:
    """Why ``--policy`` cannot train ``game_id``, or None."""
    if policy not in POLICIES:
        return f"--policy {policy!r} is not one of {', '.join(POLICIES)}"
    if policy == "placement":
        from monster_zoo import envs
        from monster_zoo.agents.ppo.placement import placement_layout

        if envs.registry.registered(game_id) and placement_layout(game_id) is None:
            return (
                f"--policy placement needs a game with placement actions; {game_id} has none "
                "(use --policy mlp)"
            )
    return None


def check_init_from(path: str, game_id: str, options: dict, policy: str) -> None:
    """ValueError with the reason unless ``path`` is the SB3 zip of an earlier run of ``game_id`` with
    ``options`` and ``policy`` (as its ``args.json`` says)."""
    from monster_zoo.agents.ppo.agent import RUN_ARGS, training_game
    from monster_zoo.agents.ppo.policy_file import check_fits

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
        raise ValueError(
            f"--init-from {path!r} trained a {their_policy} policy; this run's --policy is {policy}"
        )


def start_from(model, path: str) -> None:
    """Load the weights and optimizer state of the SB3 zip ``path`` into ``model``: only its tensors
    are read (SB3's ``set_parameters`` loads them with ``torch.load(..., weights_only=True)``), no
    pickled object. ValueError if they do not fit the model's networks."""
    try:
        model.set_parameters(str(path), exact_match=True, device="cpu")
    except (RuntimeError, ValueError, KeyError) as error:
        raise ValueError(
            f"--init-from {path!r} does not fit this run's networks (--net-arch?): "
            f"{' '.join(str(error).strip().splitlines()[:2])}"
        ) from None


@dataclass
class Setup:
    """What a run's checked arguments name: the game's options, the opponent mix with its baselines
    (by name) and the warm start's teacher (None without ``--warm-start``)."""

    args: Args
    options: dict
    mix: dict
    baselines: dict
    teacher: object = None


def main(argv: Sequence[str] | None = None) -> int:
    """Train, evaluate and save; return 0 (bad arguments exit with code 2 and a message, before
    anything is written)."""
    parser = build_parser()
    args = Args(**vars(parser.parse_args(argv)))
    check_arguments(parser, args, argument_problem)
    say_starting(parser.prog)
    torch = _train_extra()
    setup = _setup(args, parser)
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    run = new_run(args.out_dir, args.game, args.exp_name, args.seed, args)
    model, vec_env = _model(setup, run.dir, parser)
    metrics = MetricsLog(
        run.dir / "metrics.csv", lambda step, metric, value: model.logger.record(metric, value)
    )
    _warm_start(setup, model, metrics)
    training = Training(setup, run, model, metrics)
    pool = _opponent_pool(setup, vec_env, model.policy)
    train_seconds = _train(training, pool)
    _report(training, train_seconds, _finish(training, train_seconds))
    return 0


def _train_extra():
    """``torch``, once the train extra is known to be installed: a missing package stops the run
    here (ModuleNotFoundError, which the CLI turns into how to install it), before anything is
    written."""
    import sb3_contrib  # noqa: F401
    import stable_baselines3  # noqa: F401
    import torch

    return torch


def _setup(args: Args, parser) -> Setup:
    """The game's options, the opponent mix and its baselines, the warm start's teacher, and the
    ``--init-from`` zip checked; a bad one exits through ``parser.error`` before anything is
    written."""
    from monster_zoo.agents import make_agent

    options = game_options(parser, args.game, args.option)
    try:
        mix = parse_mix(args.opponents)
        baselines = {
            name: make_agent(name, args.game, seed=args.seed + 7919 * k, options=options)
            for k, name in enumerate(mix)
            if name != "snapshots"
        }
        teacher = (
            make_agent(args.warm_start, args.game, seed=args.seed, options=options)
            if args.warm_start
            else None
        )
        if args.init_from:
            check_init_from(args.init_from, args.game, options, args.policy)
        if teacher is not None and not teacher.needs_state:
            raise ValueError(
                f"--warm-start {args.warm_start}: the teacher must be a baseline that reads the "
                "engine state, such as greedy or mcts-fast"
            )
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    return Setup(args, options, mix, baselines, teacher)


def _model(setup: Setup, run_dir: Path, parser):
    """``(model, vec_env)``: the MaskablePPO learner over the batched self-play games, logging to
    ``run_dir`` (TensorBoard and SB3's CSV), with ``--init-from``'s weights when given; weights
    that do not fit its networks exit through ``parser.error`` and take the new run folder with
    them."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import VecMonitor

    from monster_zoo import envs
    from monster_zoo.evaluation.arg_checks import int_list

    args = setup.args
    vec_env = envs.make_vec_env(
        args.game,
        args.num_envs,
        opponents=list(setup.baselines.values()) or None,
        seed=args.seed,
        **setup.options,
    )
    policy_class, policy_kwargs = "MlpPolicy", {"net_arch": int_list("--net-arch", args.net_arch)[0]}
    if args.policy == "placement":
        from monster_zoo.agents.ppo.placement import placement_layout
        from monster_zoo.training.ppo.placement_net import PlacementPolicy

        policy_class, policy_kwargs["layout"] = PlacementPolicy, placement_layout(args.game)
    model = MaskablePPO(
        policy_class,
        VecMonitor(vec_env),
        learning_rate=args.learning_rate,
        n_steps=args.num_steps,
        batch_size=args.batch_size,
        n_epochs=args.update_epochs,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        clip_range=args.clip_coef,
        ent_coef=args.ent_coef,
        policy_kwargs=policy_kwargs,
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    if args.init_from:
        try:
            start_from(model, args.init_from)
        except ValueError as error:
            shutil.rmtree(run_dir)
            parser.error(str(error))
        print(f"initialised from {args.init_from}")
    model.set_logger(configure(str(run_dir), ["tensorboard", "csv"]))
    return model, vec_env


def _warm_start(setup: Setup, model, metrics: MetricsLog) -> None:
    """With ``--warm-start``: clone the teacher's decisions into the policy before PPO starts, and log
    how well the clone agrees with held-out ones (at step 0)."""
    if setup.teacher is None:
        return
    from monster_zoo.training.ppo import imitation as imitation

    args = setup.args
    demos = imitation.collect(
        args.game, setup.options, setup.teacher, args.warm_start_samples, seed=args.seed + 1
    )
    cloned = imitation.clone(model.policy, demos, args.warm_start_epochs, seed=args.seed)
    metrics.log(0, "warmstart/held_out_agreement", cloned["held_out_agreement"])
    print(
        f"warm start: cloned {cloned['samples']} {args.warm_start} decisions, held-out agreement "
        f"{cloned['held_out_agreement']:.3f}"
    )


class Training:
    """A run under way: its learner, folder and metrics, and its latest evaluation; what the
    callback and the end of the run share."""

    def __init__(self, setup: Setup, run: Run, model, metrics: MetricsLog):
        self.setup, self.args, self.run, self.model, self.metrics = setup, setup.args, run, model, metrics
        self.evaluated_step: int | None = None  # the latest evaluation, so the last is not repeated
        self.rates: dict = {}

    def save(self, path: Path, step: int | None = None) -> None:
        """The SB3 zip at ``path`` (to resume training) and the policy file beside it (to play)."""
        from monster_zoo.agents.ppo.agent import run_model_name, save_policy

        args = self.args
        self.model.save(path)
        save_policy(
            self.model.policy,
            path.with_suffix(".npz"),
            args.game,
            self.setup.options,
            run_model_name(args.exp_name, args.seed, step),
            {
                "algorithm": "MaskablePPO",
                "run_name": self.run.name,
                "seed": args.seed,
                "timesteps": int(self.model.num_timesteps),
            },
        )

    def evaluate(self, step: int) -> dict:
        """Win rates of the deterministic policy against random and greedy, logged at ``step`` with
        their 95% intervals."""
        from monster_zoo.agents.ppo.agent import PPOAgent

        learner = PPOAgent(self.args.seed, self.model.policy, deterministic=True)
        self.rates = baseline_rates(
            learner,
            self.args.game,
            self.setup.options,
            self.args.seed,
            self.args.eval_games,
            log=lambda metric, value: self.metrics.log(step, metric, value),
            intervals=True,
        )
        self.evaluated_step = step
        return self.rates


class OpponentPool:
    """The opponents of the learner's games: each baseline of the mix with its weight, and the newest
    ``size`` snapshots of the learner sharing the weight of ``snapshots``."""

    def __init__(self, mix: dict, baselines: dict, vec_env, size: int):
        self.mix, self.baselines, self.vec_env, self.size = mix, baselines, vec_env, size
        self.snapshots: list = []

    @property
    def plays_snapshots(self) -> bool:
        """Whether the mix has snapshots of the learner (self-play) at all."""
        return "snapshots" in self.mix

    def add(self, policy, seed: int, name: str) -> None:
        """A frozen copy of ``policy`` joins the snapshots, the oldest leaving beyond ``size``; takes
        effect at :meth:`refresh`."""
        from monster_zoo.agents.ppo.agent import PPOAgent

        self.snapshots.append(PPOAgent.snapshot(policy, seed, name))
        del self.snapshots[: -self.size]

    def refresh(self) -> None:
        """Give each baseline its weight and share the snapshots' weight over the pool."""
        opponents, weights = [], []
        for name in self.mix:
            group = self.snapshots if name == "snapshots" else [self.baselines[name]]
            opponents += group
            weights += [self.mix[name] / len(group)] * len(group)
        self.vec_env.set_opponents(opponents, weights)


def _opponent_pool(setup: Setup, vec_env, policy) -> OpponentPool:
    """The first opponents: the baselines and, with snapshots in the mix, the untrained policy itself."""
    pool = OpponentPool(setup.mix, setup.baselines, vec_env, setup.args.pool_size)
    if pool.plays_snapshots:  # self-play starts against the untrained policy itself
        pool.add(policy, setup.args.seed, "snapshot@0")
    pool.refresh()
    return pool


class SelfPlayHooks:
    """What the run does at Stable-Baselines3's callback hooks (made a callback by :func:`_callback`):
    at each rollout's end the metrics, a snapshot every ``--snapshot-every`` updates, evaluations,
    checkpoints and the progress bar; ``--time-limit`` stops training at the next step."""

    def __init__(self, training: Training, pool: OpponentPool):
        super().__init__()  # BaseCallback's
        self.training, self.pool, self.args = training, pool, training.args

    def _on_training_start(self) -> None:
        self.updates, self.start = 0, time.time()
        self.next_eval, self.next_checkpoint = (
            self.args.eval_every or None,
            self.args.checkpoint_every or None,
        )
        self.bar = progress_bar(self.args.total_timesteps, self.training.run.name, self.args.progress)

    def _on_step(self) -> bool:
        return not self.args.time_limit or time.time() - self.start < 60 * self.args.time_limit

    def _advance_bar(self) -> None:
        # SB3 collects whole rollouts, so it may overshoot the budget: the bar stops at its total
        self.bar.update(min(self.num_timesteps, self.bar.total) - self.bar.n)

    def _on_rollout_end(self) -> None:
        args, training, metrics, step = self.args, self.training, self.training.metrics, self.num_timesteps
        self._advance_bar()
        self.updates += 1
        metrics.log(step, "charts/SPS", step / (time.time() - self.start))
        if self.model.ep_info_buffer:
            metrics.log(
                step, "rollout/ep_rew_mean", float(np.mean([e["r"] for e in self.model.ep_info_buffer]))
            )
        if self.updates % args.snapshot_every == 0 and self.pool.plays_snapshots:
            self.pool.add(self.model.policy, args.seed + self.updates, f"snapshot@{step}")
            self.pool.refresh()
            metrics.log(step, "train/pool_size", len(self.pool.snapshots))
        if self.next_eval and step >= self.next_eval:
            rates = training.evaluate(step)
            self.bar.set_postfix({f"vs_{k}": f"{r.rate:.2f}" for k, r in rates.items()})
            self.next_eval += args.eval_every
        if self.next_checkpoint and step >= self.next_checkpoint:
            training.save(training.run.dir / "checkpoints" / f"step_{step}.zip", step)
            self.next_checkpoint += args.checkpoint_every

    def _on_training_end(self) -> None:
        self._advance_bar()
        self.bar.close()


def _callback(training: Training, pool: OpponentPool):
    """:class:`SelfPlayHooks` as an SB3 callback (SB3 is imported here, not with the module, so that
    ``--help`` and bad arguments are answered without it)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlay(SelfPlayHooks, BaseCallback):
        """Snapshots, evaluation, checkpoints, metrics and the progress bar, at rollout ends."""

    return SelfPlay(training, pool)


def _train(training: Training, pool: OpponentPool) -> float:
    """PPO until ``--total-timesteps`` (or ``--time-limit``); the seconds it took."""
    started = time.time()
    training.model.learn(total_timesteps=training.args.total_timesteps, callback=_callback(training, pool))
    return time.time() - started


def _finish(training: Training, train_seconds: float) -> dict:
    """The final model, its evaluation (the last one's, if that was at the final step) and
    ``summary.json``, which it returns; the logs flushed and closed."""
    model, run = training.model, training.run
    training.save(run.dir / "final_model.zip")
    rates = (
        training.rates
        if training.evaluated_step == model.num_timesteps
        else training.evaluate(model.num_timesteps)
    )
    model.logger.dump(model.num_timesteps)
    training.metrics.close()
    summary = {
        "run_name": run.name,
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_seconds, 1),
        "timesteps_per_second": round(model.num_timesteps / train_seconds, 1),
        "model": str(run.dir / "final_model.npz"),
        "sb3_zip": str(run.dir / "final_model.zip"),
        **{
            f"winrate_vs_{k}": {"rate": r.rate, "interval": list(r.interval), "games": r.games}
            for k, r in rates.items()
        },
    }
    write_atomic(run.dir / "summary.json", json.dumps(summary, indent=2))
    return summary


def _report(training: Training, train_seconds: float, summary: dict) -> None:
    """Print what the run did and where its model is; draw the learning curves (``--plot``)."""
    run = training.run
    print(
        f"run {run.name}: {summary['timesteps']} timesteps in {train_seconds:.0f} s "
        f"({summary['timesteps_per_second']:.0f}/s)"
    )
    for rate in training.rates.values():  # the final evaluation's
        print(f"  win rate {rate}")
    if training.args.plot:
        from monster_zoo.evaluation.plots import plot_learning_curves

        plot_learning_curves([run.dir], run.dir / "curves.png")
        print(f"  learning curves: {run.dir / 'curves.png'}")
    print(
        f"  model: {run.dir / 'final_model.npz'} (play it as agent 'ppo:{run.dir / 'final_model.npz'}' "
        f"with the same --option values)"
    )


if __name__ == "__main__":
    sys.exit(main())
