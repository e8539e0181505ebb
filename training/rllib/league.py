"""N-player self-play league on Ray RLlib (PPO, new API stack), for any monster-zoo game.

    python -m monster_zoo.training.rllib --help
    python -m monster_zoo.training.rllib --game marry_the_monster-v0 --option num_players=2 --time-limit 20
    monster-zoo league --address 10.0.0.5:6379 --num-env-runners 32   # on a running Ray cluster

One learning module (``learner``, a :class:`~monster_zoo.training.rllib.masking.MaskedPPOTorchRLModule`)
plays one seat of every game; which seat is drawn per episode. Every other seat is drawn per
episode from the ``--league`` mix: a fixed baseline played inside the env (``random``,
``greedy``, ``mcts`` - any name ``monster_zoo.agents.make_agent`` knows) or ``snapshots``, a frozen
copy of the learner drawn uniformly from the newest ``--pool-size`` snapshots (RLlib modules
that are never trained). The league starts with ``snapshot_0``, the untrained learner.

**When a snapshot joins.** After each training iteration the learner's win rate over that
iteration's episodes (a win: its return strictly the best at the table) is compared with the
share ``1 / num_players`` that an equal player would win. When it exceeds that share by
``--snapshot-margin`` (default 0.2: 0.70 with two players, 0.53 with three) over at least
``--snapshot-min-episodes`` episodes, a copy of the learner joins the league as ``snapshot_<k>``.

Every run writes to ``{out_dir}/{run_name}/`` with ``run_name = "{game}__{exp_name}__{seed}__{unix
time}"``: ``metrics.csv`` and TensorBoard events with the metric names of
:mod:`monster_zoo.training.ppo.trainer` (``charts/SPS``, ``eval/winrate_vs_random``,
``eval/winrate_vs_greedy``, ``rollout/ep_rew_mean``, ``train/pool_size``; steps are the learner's
decisions), RLlib checkpoints in ``checkpoints/`` (restorable with
``ray.rllib.algorithms.Algorithm.from_checkpoint``) and ``summary.json``. Evaluation plays the
learner's likeliest legal action against random and greedy with
:func:`monster_zoo.training.learner_eval.evaluate_against`.

Without ``--address`` a local Ray starts and stops with the run; with it the run joins that
cluster, whose nodes need the same monster-zoo installed (``pip install 'monster-zoo[distributed]'``).
Needs the ``distributed`` extra.
"""

import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from monster_zoo.agents import make_agent
from monster_zoo.agents.search.agent import MCTSAgent
from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.envs.rllib_env import RLlibGameEnv
from monster_zoo.evaluation.arg_checks import first_problem, int_list, out_of_bounds, plain_name, writable_dir
from monster_zoo.evaluation.match import WIN, seat_outcome
from monster_zoo.training.rllib.league_args import Args, league_parser
from monster_zoo.training.run_start import (
    MetricsLog,
    baseline_rates,
    check_arguments,
    game_options,
    new_run,
    parse_mix,
    progress_bar,
    say_starting,
)

LEARNER = "learner"
SNAPSHOTS = "snapshots"


class LeagueEnv(RLlibGameEnv):
    """A game whose seats are the learner, frozen snapshots and embedded baselines (see the module doc).

    Agent ids are roles, not seats: ``learner`` and ``opponent_1`` .. ``opponent_{n-1}``; each
    episode deals them to random seats. Opponents drawn as baselines are played inside the env
    and never show up as agents; those drawn as ``snapshots`` are agents that the mapping
    function (:class:`LeagueMapping`) gives to a snapshot module. The learner's final infos say
    whether it won (``won`` = 1.0) and carry every seat's ``returns``.

    ``config``: the game's keys (see :class:`RLlibGameEnv`) plus ``league`` (NAME -> weight),
    ``league_seed`` and ``mcts_simulations`` (per move of ``mcts`` seats).
    """

    def __init__(self, config: dict | None = None):
        # RLlib's EnvContext tells env runner and sub-env apart, so that their deals of seats differ.
        where = [getattr(config, "worker_index", 0), getattr(config, "vector_index", 0)]
        config = dict(config or {})
        mix = config.pop("league", {SNAPSHOTS: 1.0})
        self._league_seed = int(config.pop("league_seed", 0))
        simulations = int(config.pop("mcts_simulations", 200))
        super().__init__(config)
        self._rng = np.random.default_rng([self._league_seed, *where])
        self._names = list(mix)
        self._weights = np.array([mix[name] for name in self._names], float) / sum(mix.values())
        self._baselines = {
            name: league_baseline(name, self._raw, self._league_seed, simulations)
            for name in mix
            if name != SNAPSHOTS
        }
        self._seat_baselines: list = []
        self._returns = np.zeros(self.num_players)

    def reset(self, *, seed=None, options=None):
        """As :meth:`RLlibGameEnv.reset`; a ``seed`` also reseeds the dealing of seats and opponents."""
        if seed is not None:
            self._rng = np.random.default_rng([self._league_seed, seed])
        return super().reset(seed=seed, options=options)

    def _agent_ids_for_env(self) -> list[str]:
        return [LEARNER] + [f"opponent_{k}" for k in range(1, self.num_players)]

    def _seat_agents_for_episode(self) -> list[str | None]:
        seats = self._rng.permutation(self.num_players)  # seats[0] is the learner's
        agents: list[str | None] = [None] * self.num_players
        self._seat_baselines = [None] * self.num_players
        agents[seats[0]] = LEARNER
        for k, seat in enumerate(seats[1:], 1):
            name = self._names[self._rng.choice(len(self._names), p=self._weights)]
            if name == SNAPSHOTS:
                agents[seat] = f"opponent_{k}"
            else:
                self._seat_baselines[seat] = self._baselines[name]
        for agent in self._baselines.values():
            agent.reset(int(self._rng.integers(2**62)))
        self._returns[:] = 0.0
        return agents

    def _embedded_action(self, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        agent = self._seat_baselines[seat]
        return agent.act(observation, mask, self.raw_env.engine_state if agent.needs_state else None)

    def _apply(self, action, rewards: dict[str, float]) -> None:
        super()._apply(action, rewards)
        self._returns += [self.raw_env.rewards[name] for name in self._seat_names]

    def _outcome(self, rewards: dict[str, float]):
        obs, rewards, terminateds, truncateds, infos = super()._outcome(rewards)
        if terminateds["__all__"] or truncateds["__all__"]:
            seat = self._seat_agents.index(LEARNER)
            infos[LEARNER] = {
                "won": float(seat_outcome(self._returns.tolist(), seat) == WIN),
                "returns": self._returns.tolist(),
            }
        return obs, rewards, terminateds, truncateds, infos


def league_baseline(name: str, game, seed: int, mcts_simulations: int, options: dict | None = None):
    """The baseline ``name`` of the league: ``make_agent``'s for ``game`` (the league's env, or a game id
    with ``options``), so a trained agent of another player count is refused, with ``mcts``
    searching ``mcts_simulations``."""
    agent = make_agent(name, game, seed, options)
    if isinstance(agent, MCTSAgent):
        return MCTSAgent(seed, simulations=mcts_simulations, game_id=agent.made_for.game_id)
    return agent


class LeagueMapping:
    """RLlib's agent-to-module mapping: ``learner`` to the learner, every opponent to a random snapshot."""

    def __init__(self, snapshots: Sequence[str]):
        self.snapshots = list(snapshots)

    def __call__(self, agent_id, episode=None, **kwargs) -> str:
        return LEARNER if agent_id == LEARNER else random.choice(self.snapshots)


def league_callback(margin: float, min_episodes: int, pool_size: int, num_players: int):
    """The RLlib callback class that records the learner's wins and admits snapshots (module doc)."""
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS

    class LeagueCallback(RLlibCallback):
        """Counts the learner's episodes, wins and returns; adds a snapshot when the learner is ahead."""

        def __init__(self):
            super().__init__()
            self.snapshots = ["snapshot_0"]

        def on_episode_end(self, *, episode, metrics_logger, **kwargs) -> None:
            learner = episode.agent_episodes.get(LEARNER)
            if learner is None:
                return
            # Sums, not means: RLlib averages the means of its env runners, which weighs a runner
            # with few episodes like one with many.
            metrics_logger.log_value("learner_wins", learner.get_infos(-1).get("won", 0.0), reduce="sum")
            metrics_logger.log_value("learner_return_sum", learner.get_return(), reduce="sum")
            metrics_logger.log_value("learner_episodes", 1, reduce="sum")

        def on_train_result(self, *, algorithm, result, **kwargs) -> None:
            runners = result.get(ENV_RUNNER_RESULTS, {})
            episodes = runners.get("learner_episodes", 0)
            result["learner_win_rate"] = runners.get("learner_wins", 0.0) / max(episodes, 1)
            if episodes >= min_episodes and result["learner_win_rate"] > 1.0 / num_players + margin:
                module_id = f"snapshot_{len(self.snapshots)}"
                self.snapshots.append(module_id)
                learner = algorithm.get_module(LEARNER)
                algorithm.add_module(
                    module_id,
                    RLModuleSpec.from_module(learner),
                    new_agent_to_module_mapping_fn=LeagueMapping(self.snapshots[-pool_size:]),
                    new_should_module_be_updated=[LEARNER],
                )
                copy_module_weights(algorithm, LEARNER, module_id)
            result["league_size"] = len(self.snapshots)

    return LeagueCallback


def copy_module_weights(algorithm, source: str, target: str) -> None:
    """Give module ``target`` the learner group's current weights of ``source`` (and sync the runners)."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE

    path = f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/{source}"
    state = algorithm.learner_group.get_state(components=path)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]
    algorithm.set_state(
        {COMPONENT_LEARNER_GROUP: {COMPONENT_LEARNER: {COMPONENT_RL_MODULE: {target: state[source]}}}}
    )


def learner_agent(algorithm, name: str = "rllib-learner"):
    """The learner's current weights as a CPU :class:`~monster_zoo.training.rllib.masking.ModuleAgent`."""
    from monster_zoo.training.rllib.ppo import module_agent

    return module_agent(algorithm, LEARNER, name)


def build_config(args: Args, options: dict, mix: dict):
    """The ``PPOConfig`` of a league run."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from monster_zoo.training.rllib.masking import masked_module_spec

    num_players = RLlibGameEnv({"game": args.game, **options}).num_players
    module = masked_module_spec({"fcnet_hiddens": int_list("--net-arch", args.net_arch)[0]})
    return (
        PPOConfig()
        .environment(
            LeagueEnv,
            env_config={
                "game": args.game,
                **options,
                "league": mix,
                "league_seed": args.seed,
                "mcts_simulations": args.mcts_simulations,
            },
        )
        .env_runners(
            num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.num_envs_per_env_runner
        )
        .learners(num_learners=args.num_learners, num_gpus_per_learner=args.num_gpus_per_learner)
        .training(
            lr=args.learning_rate,
            gamma=args.gamma,
            lambda_=args.gae_lambda,
            clip_param=args.clip_coef,
            entropy_coeff=args.ent_coef,
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
        )
        .multi_agent(
            policies={LEARNER, "snapshot_0"},
            policy_mapping_fn=LeagueMapping(["snapshot_0"]),
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: module, "snapshot_0": module}))
        .callbacks(
            league_callback(args.snapshot_margin, args.snapshot_min_episodes, args.pool_size, num_players)
        )
        .debugging(seed=args.seed, log_level="ERROR")
    )


def argument_problem(args: Args) -> str | None:
    """Why ``args`` cannot make a league run, or None; checked before Ray starts or anything is
    written."""
    at_least = [
        ("--total-timesteps", args.total_timesteps, 1),
        ("--snapshot-min-episodes", args.snapshot_min_episodes, 1),
        ("--pool-size", args.pool_size, 1),
        ("--train-batch-size", args.train_batch_size, 2),
        ("--minibatch-size", args.minibatch_size, 2),
        ("--num-epochs", args.num_epochs, 1),
        ("--num-env-runners", args.num_env_runners, 0),
        ("--num-envs-per-env-runner", args.num_envs_per_env_runner, 1),
        ("--num-learners", args.num_learners, 0),
        ("--eval-every", args.eval_every, 0),
        ("--eval-games", args.eval_games, 1),
        ("--checkpoint-every", args.checkpoint_every, 0),
        ("--seed", args.seed, 0),
    ]
    return first_problem(
        out_of_bounds(
            [(label, value, value >= low, f"at least {low}") for label, value, low in at_least]
            + [
                ("--time-limit", args.time_limit, args.time_limit >= 0, "minutes >= 0 (0: no limit)"),
                ("--snapshot-margin", args.snapshot_margin, -1 <= args.snapshot_margin <= 1, "in [-1, 1]"),
                ("--learning-rate", args.learning_rate, args.learning_rate > 0, "a number > 0"),
                ("--gamma", args.gamma, 0 < args.gamma <= 1, "in (0, 1]"),
                ("--gae-lambda", args.gae_lambda, 0 <= args.gae_lambda <= 1, "in [0, 1]"),
                ("--clip-coef", args.clip_coef, args.clip_coef > 0, "a number > 0"),
                ("--ent-coef", args.ent_coef, args.ent_coef >= 0, "a number >= 0"),
                (
                    "--num-gpus-per-learner",
                    args.num_gpus_per_learner,
                    args.num_gpus_per_learner >= 0,
                    "a number >= 0",
                ),
            ]
        ),
        int_list("--net-arch", args.net_arch)[1],
        plain_name("--exp-name", args.exp_name),
        writable_dir("--out-dir", Path(args.out_dir)),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Train the league, evaluate and checkpoint; return 0 (bad arguments exit with code 2 and a
    message, before Ray starts or anything is written)."""
    parser = league_parser()
    args = Args(**vars(parser.parse_args(argv)))
    check_arguments(parser, args, argument_problem)
    say_starting(parser.prog)
    import ray
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_MODULE_STEPS_SAMPLED_LIFETIME

    options = game_options(parser, args.game, args.option)
    try:
        mix = parse_mix(args.league)
        if args.mcts_simulations < 1:
            raise ValueError(f"--mcts-simulations must be >= 1, got {args.mcts_simulations}")
        for name in mix:
            if name != SNAPSHOTS:
                league_baseline(name, args.game, args.seed, args.mcts_simulations, options)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    run_name, run_dir = new_run(Path(args.out_dir).resolve(), args.game, args.exp_name, args.seed, args)
    from torch.utils.tensorboard import SummaryWriter

    tensorboard = SummaryWriter(str(run_dir))
    metrics = MetricsLog(
        run_dir / "metrics.csv", lambda step, metric, value: tensorboard.add_scalar(metric, value, step)
    )
    log = metrics.log

    def evaluate(step: int) -> dict:
        """Win rates of the learner's likeliest legal action against random and greedy."""
        return baseline_rates(
            learner_agent(algo),
            args.game,
            options,
            args.seed,
            args.eval_games,
            log=lambda metric, value: log(step, metric, value),
        )

    ray.init(
        address=args.address or None, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True
    )
    algo = build_config(args, options, mix).build_algo()
    copy_module_weights(algo, LEARNER, "snapshot_0")  # the league starts with the untrained learner
    bar = progress_bar(args.total_timesteps, run_name, args.progress)
    started = time.time()
    step, rates = 0, {}
    next_eval, next_checkpoint = args.eval_every or None, args.checkpoint_every or None
    try:
        while step < args.total_timesteps and not (
            args.time_limit and time.time() - started >= 60 * args.time_limit
        ):
            result = algo.train()
            runners = result.get(ENV_RUNNER_RESULTS, {})
            new_step = int(runners.get(NUM_MODULE_STEPS_SAMPLED_LIFETIME, {}).get(LEARNER, step))
            bar.update(new_step - step)
            step = new_step
            log(step, "charts/SPS", step / (time.time() - started))
            if runners.get("learner_episodes"):
                log(step, "rollout/ep_rew_mean", runners["learner_return_sum"] / runners["learner_episodes"])
            log(step, "train/pool_size", result["league_size"])
            if next_eval and step >= next_eval:
                rates = evaluate(step)
                next_eval += args.eval_every
            bar.set_postfix(
                {
                    "league": result["league_size"],
                    "won": f"{result['learner_win_rate']:.2f}",
                    **{f"vs_{k}": f"{r.rate:.2f}" for k, r in rates.items()},
                }
            )
            if next_checkpoint and step >= next_checkpoint:
                algo.save_to_path(run_dir / "checkpoints" / f"step_{step}")
                next_checkpoint += args.checkpoint_every
        train_seconds = time.time() - started
        bar.close()
        algo.save_to_path(run_dir / "checkpoints" / "final")
        rates = evaluate(step)
        league_size = result["league_size"] if step else 1
        nodes = sorted(
            {
                node
                for node in algo.env_runner_group.foreach_env_runner(
                    lambda runner: ray.get_runtime_context().get_node_id()
                )
            }
        )
    finally:
        algo.stop()
        metrics.close()
        tensorboard.close()
        if not args.address:
            ray.shutdown()
    summary = {
        "run_name": run_name,
        "timesteps": step,
        "train_seconds": round(train_seconds, 1),
        "timesteps_per_second": round(step / train_seconds, 1),
        "league_size": league_size,
        "checkpoint": str(run_dir / "checkpoints" / "final"),
        "env_runner_nodes": nodes,
        **{
            f"winrate_vs_{k}": {"rate": r.rate, "interval": list(r.interval), "games": r.games}
            for k, r in rates.items()
        },
    }
    write_atomic(run_dir / "summary.json", json.dumps(summary, indent=2))
    print(
        f"run {run_name}: {step} learner timesteps in {train_seconds:.0f} s "
        f"({summary['timesteps_per_second']:.0f}/s), league of {league_size} snapshots"
    )
    for rate in rates.values():
        print(f"  win rate {rate}")
    print(f"  checkpoint: {summary['checkpoint']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
