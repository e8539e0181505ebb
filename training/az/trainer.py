"""Expert iteration for any monster-zoo game: learned search teaches its own network.

    python -m monster_zoo.training.az --help
    python -m monster_zoo.training.az --game marry_the_monster-v0 --players 2 --rounds 200
    python -m monster_zoo.training.az --resume runs/<run>          # after an interruption

Each round, the search of :mod:`monster_zoo.agents.az.search` (Gumbel root, PUCT below,
per-seat values, determinized per simulation) plays every seat of ``games_per_round`` games
with the current network (:mod:`monster_zoo.training.az.selfplay`, numba, all games side by
side); its improved policies and the games' final returns join a replay buffer; the learner
(:mod:`monster_zoo.training.az.learner`, torch on the CPU, or CUDA when ``--device`` finds one)
takes Adam steps on minibatches of the buffer. One network plays every player count of
``--players``: the count is one of its inputs and its value head has an entry per seat.

Every run writes to ``{out_dir}/{run_name}/`` with ``run_name = "{game}__{exp_name}__{seed}__{unix
time}"``: ``args.json``; ``metrics.csv`` (long format: step, wall_time, metric, value; the step is
self-play decisions so far) and TensorBoard events under the same names: ``charts/SPS``
(decisions per second of self-play), ``rollout/ep_len_mean``, ``train/policy_loss``,
``train/value_loss``, ``train/buffer_size``, ``eval/winrate_vs_<opponent>`` with
``_low95``/``_high95`` (see :mod:`monster_zoo.training.az.evaluation`); ``network.npz``, the
newest network (a network file: plain arrays and JSON, plays without torch as
``AZAgent(network=...)``); ``networks/round_<r>.npz`` at each evaluation; ``checkpoint/`` (network,
optimizer, replay buffer, generators and counters, rewritten every ``checkpoint_every`` rounds:
``--resume`` continues from it exactly as if the run had not stopped); ``summary.json`` and
``curves.png`` at the end. One line per round reports progress. Every file the run writes whole
(``args.json``, ``summary.json``, network files, the checkpoint's ``progress.json``) is written
atomically (:mod:`monster_zoo.envs.core.safe_writing`), and ``checkpoint/`` is swapped in whole, so
an interruption never leaves half a file; ``metrics.csv`` is rewritten whole at the start, then
appended to row by row.
"""

import argparse
import dataclasses
import json
import math
import re
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.training.run_start import (
    MetricsLog,
    args_json,
    check_arguments,
    flag,
    new_run,
    parse_options,
    say_starting,
)
from monster_zoo.training.run_start import build_parser as parser_for

DEVICES = ("auto", "cpu", "cuda")
BATCHED_LEAVES = ("auto", "on", "off")
# Flags that --resume may change: they steer the run without changing what it learns.
RESUMABLE = frozenset(
    {
        "rounds",
        "time_limit",
        "eval_every",
        "eval_games",
        "eval_opponents",
        "checkpoint_every",
        "device",
        "threads",
        "torch_threads",
        "batched_leaves",
        "progress",
        "plot",
    }
)
CHECKPOINT = "checkpoint"
# What a run started before a flag existed did, where that differs from the flag's default now.
LEGACY_ARGS = {"min_spread": 1e-8, "teacher": "greedy", "teacher_share": 0.0}
# Keeps the warm start's deals apart from every self-play round's (seeded seed * 1_000_003 + round).
WARM_START_SALT = 0x3A57_0000_0000
# And the teacher games of each round (--teacher-share) apart from both.
TEACHER_SALT = 0x7EAC_0000_0000
EXPERT = "mcts"  # the --teacher that is the tuned search (monster_zoo.training.az.expert)
TEACHER_KINDS = ("greedy", "champion", EXPERT)  # warmstart's TEACHERS and the expert
SWITCH_OPPONENT = "mcts-fast"  # the expert at the budget the switch compares with
SWITCH_FACTOR = 8  # self-play simulations after the switch, per --simulations, unless --switch-simulations


@dataclass
class Args:
    """Every knob of a run; each field is a command-line flag (``--games-per-round``)."""

    game: str = flag("marry_the_monster-v0", "registry id of the game")
    option: list[str] = field(
        default_factory=list,
        metadata={"help": "rule option KEY=VALUE, repeatable (not num_players: see --players)"},
    )
    players: str = flag("2", "player counts one network learns, comma-separated (e.g. 2,3,4)")
    exp_name: str = flag("az", "experiment name, part of the run name")
    seed: int = flag(1, "seed of the games, the searches, the network and the minibatches")
    rounds: int = flag(100, "rounds of self-play and learning")
    time_limit: float = flag(
        0.0,
        "stop after the round that passes this many minutes of wall time since this "
        "start (a resumed run counts afresh; 0: no limit)",
    )
    games_per_round: int = flag(64, "self-play games per round")
    parallel_games: str = flag(
        "auto",
        "self-play games played side by side: a count, or auto (64 where self-play "
        "runs in lock step on a network of at most 512 inputs, where it was measured to pay, "
        "else 32; see training/AZ.md)",
    )
    simulations: int = flag(32, "simulations per self-play move")
    considered: int = flag(16, "root actions sequential halving starts from")
    gumbel_scale: float = flag(1.0, "scale of the Gumbel noise at the root in self-play (exploration)")
    c_puct: float = flag(1.25, "PUCT exploration constant below the root")
    min_spread: float = flag(
        2.0,
        "root Q values are scaled to [0, 1] by their spread or this, whichever is "
        "larger (2: the span of win-mode returns; see SearchSettings)",
    )
    rollout_weight: float = flag(
        0.0,
        "share of a new leaf's value that comes from a rollout of the game's mcts "
        "rollout policy in self-play and evaluations (0: the value head alone; see "
        "SearchSettings)",
    )
    search_value_share: float = flag(
        0.0,
        "share of each self-play value target taken from the search: every "
        "seat's mean value over the simulations through the move it chose (the "
        "rest the game's result; 0: results alone; see training/AZ.md)",
    )
    hidden_sizes: str = flag(
        "128,128",
        "widths of the network's trunk (a network file holds at most 8 layers of "
        "4,096 units and 16 million parameters)",
    )
    learning_rate: float = flag(1e-3, "Adam learning rate")
    weight_decay: float = flag(1e-4, "Adam weight decay")
    batch_size: int = flag(256, "minibatch size")
    sample_reuse: float = flag(4.0, "minibatch rows drawn per new decision (sets the Adam steps of a round)")
    buffer_size: int = flag(100_000, "decisions kept in the replay buffer")
    teacher: str = flag(
        "greedy",
        "who plays the teacher games: greedy (the game's greedy kernel), champion (the "
        "newest shipped champion of each player count where one ships, greedy elsewhere; "
        "see monster_zoo.training.az.warmstart) or mcts (the tuned search as the expert: its "
        "root visit distributions are the policy targets; see monster_zoo.training.az.expert)",
    )
    teacher_version: int = flag(
        0,
        "with --teacher champion: each player count's newest champion version up to "
        "this one (0: the newest), so a recorded command meets the teacher it had",
    )
    warm_start_games: int = flag(
        0, "teacher games in every seat that the network learns from before its first round (0: none)"
    )
    warm_start_epsilon: float = flag(
        0.1, "probability that a teacher's move is a random legal one (its target stays the teacher's)"
    )
    warm_start_reuse: float = flag(2.0, "minibatch rows drawn per warm-start decision")
    teacher_share: float = flag(
        0.0,
        "teacher games added to every round, as a share of --games-per-round "
        "(0: none), so self-play refines the teacher's play instead of unlearning it",
    )
    expert_simulations: int = flag(0, "simulations per move of the mcts teacher (0: mcts-fast's budget)")
    expert_switch: float = flag(
        0.0,
        "with --teacher mcts: once an evaluation's win rate of the search against "
        "mcts-fast reaches this, its 95%% interval above 0.5, the mcts teacher games stop "
        "and self-play at --switch-simulations makes the targets (0: never; size "
        "--eval-simulations to mcts-fast's time on the host for an equal-time switch)",
    )
    switch_simulations: int = flag(
        0, "simulations per self-play move after the switch (0: 8 x --simulations)"
    )
    eval_every: int = flag(10, "rounds between evaluations (0: only at the end)")
    eval_games: int = flag(100, "games per evaluation and opponent (seats rotated)")
    eval_players: str = flag(
        "", "player counts evaluated, comma-separated (empty: the smallest of --players)"
    )
    eval_opponents: str = flag(
        "greedy,mcts-fast,previous",
        "opponents of the search, comma-separated: agent names, or 'previous' (the network "
        "of the previous evaluation)",
    )
    eval_simulations: int = flag(200, "simulations per move of the search in evaluations")
    checkpoint_every: int = flag(1, "rounds between checkpoints")
    branch_from: str = flag(
        "",
        "start this run from the last checkpoint of the run in this folder (its network, "
        "optimizer, replay buffer and counters; same game, options, --players and "
        "--hidden-sizes), then go on with this run's flags: e.g. a new recipe from a "
        "finished run",
    )
    init_network: str = flag(
        "",
        "start the network from the weights of this network file (e.g. a shipped "
        "agents/champions/<game>-az-v1.npz; same game, options, --players and --hidden-sizes) "
        "with a fresh optimizer and buffer, so the expert's targets refine it rather than "
        "start from nothing (a warm start, if asked, then trains it further)",
    )
    resume: str = flag(
        "",
        "continue the run in this folder from its checkpoint (flags other than "
        + ", ".join(sorted(RESUMABLE))
        + " come from its args.json)",
    )
    out_dir: str = flag("runs", "folder of the runs")
    device: str = flag("auto", "learner device: " + ", ".join(DEVICES) + " (auto: cuda when torch sees one)")
    threads: int = flag(1, "numba threads for self-play (1 on a shared machine)")
    torch_threads: int = flag(
        1, "torch CPU threads (1 on a shared machine: more stall when another process holds a core)"
    )
    batched_leaves: str = flag(
        "auto",
        "self-play's searches in lock step, every simulation's leaves through the "
        "network as one batch (BLAS), on one thread: on, off, or auto (on where it was measured to "
        "pay: networks of at most 512 inputs at --threads 1; see training/AZ.md). Moves as "
        "with off, but for a near tie tipped by float rounding",
    )
    progress: bool = flag(True, "print one line per round")
    plot: bool = flag(True, "draw the learning curves into curves.png at the end")


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m monster_zoo.training.az`` (one flag per :class:`Args` field)."""
    return parser_for(Args, prog="python -m monster_zoo.training.az", description=__doc__.split("\n\n")[0])


def counts_of(text: str) -> list[int]:
    """``"2,3"`` -> ``[2, 3]``; ValueError unless a list of integers."""
    try:
        return [int(item) for item in text.split(",")]
    except ValueError:
        raise ValueError(f"{text!r} is not a comma-separated list of player counts") from None


def argument_problem(args: Args) -> str | None:
    """Why ``args`` cannot make a run, or None; checked before anything is written."""
    import numba

    from monster_zoo.evaluation.arg_checks import (
        first_problem,
        int_list,
        out_of_bounds,
        plain_name,
        writable_dir,
    )

    from .expert import MAX_EXPERT_SIMULATIONS

    return first_problem(
        out_of_bounds(
            [
                ("--seed", args.seed, args.seed >= 0, "a non-negative integer"),
                ("--rounds", args.rounds, args.rounds >= 1, "at least 1"),
                ("--time-limit", args.time_limit, args.time_limit >= 0, "minutes >= 0 (0: no limit)"),
                ("--games-per-round", args.games_per_round, args.games_per_round >= 1, "at least 1"),
                (
                    "--parallel-games",
                    args.parallel_games,
                    parallel_count(args.parallel_games) is not None,
                    "auto or a count of at least 1",
                ),
                ("--simulations", args.simulations, args.simulations >= 1, "at least 1"),
                ("--considered", args.considered, args.considered >= 1, "at least 1"),
                ("--gumbel-scale", args.gumbel_scale, args.gumbel_scale >= 0, "a number >= 0"),
                ("--c-puct", args.c_puct, args.c_puct > 0, "a number > 0"),
                ("--min-spread", args.min_spread, args.min_spread > 0, "a number > 0"),
                (
                    "--rollout-weight",
                    args.rollout_weight,
                    0 <= args.rollout_weight <= 1,
                    "a share from 0 to 1",
                ),
                (
                    "--search-value-share",
                    args.search_value_share,
                    0 <= args.search_value_share <= 1,
                    "a share from 0 to 1",
                ),
                ("--learning-rate", args.learning_rate, args.learning_rate > 0, "a number > 0"),
                ("--weight-decay", args.weight_decay, args.weight_decay >= 0, "a number >= 0"),
                ("--batch-size", args.batch_size, args.batch_size >= 1, "at least 1"),
                ("--sample-reuse", args.sample_reuse, args.sample_reuse > 0, "a number > 0"),
                (
                    "--buffer-size",
                    args.buffer_size,
                    args.buffer_size >= args.batch_size,
                    "at least --batch-size",
                ),
                (
                    "--warm-start-games",
                    args.warm_start_games,
                    args.warm_start_games >= 0,
                    "at least 0 (0: none)",
                ),
                (
                    "--warm-start-epsilon",
                    args.warm_start_epsilon,
                    0 <= args.warm_start_epsilon <= 1,
                    "a probability from 0 to 1",
                ),
                ("--warm-start-reuse", args.warm_start_reuse, args.warm_start_reuse > 0, "a number > 0"),
                (
                    "--teacher",
                    args.teacher,
                    args.teacher in TEACHER_KINDS,
                    "one of " + ", ".join(TEACHER_KINDS),
                ),
                (
                    "--expert-simulations",
                    args.expert_simulations,
                    0 <= args.expert_simulations <= MAX_EXPERT_SIMULATIONS,
                    f"from 0 to {MAX_EXPERT_SIMULATIONS:,} (0: mcts-fast's budget)",
                ),
                (
                    "--expert-switch",
                    args.expert_switch,
                    args.expert_switch == 0 or (0.5 < args.expert_switch <= 1 and args.teacher == EXPERT),
                    "0 (never), or a win rate above 0.5 and at most 1 with --teacher mcts",
                ),
                (
                    "--switch-simulations",
                    args.switch_simulations,
                    args.switch_simulations >= 0,
                    "at least 0 (0: 8 x --simulations)",
                ),
                (
                    "--teacher-version",
                    args.teacher_version,
                    args.teacher_version == 0 or (args.teacher_version >= 1 and args.teacher == "champion"),
                    "0 (the newest), or a version of at least 1 with --teacher champion",
                ),
                (
                    "--teacher-share",
                    args.teacher_share,
                    0 <= args.teacher_share <= 10,
                    "a number from 0 to 10",
                ),
                ("--eval-every", args.eval_every, args.eval_every >= 0, "at least 0 (0: only at the end)"),
                ("--eval-games", args.eval_games, args.eval_games >= 1, "at least 1"),
                ("--eval-simulations", args.eval_simulations, args.eval_simulations >= 1, "at least 1"),
                ("--checkpoint-every", args.checkpoint_every, args.checkpoint_every >= 1, "at least 1"),
                (
                    "--threads",
                    args.threads,
                    1 <= args.threads <= numba.config.NUMBA_NUM_THREADS,
                    f"from 1 to {numba.config.NUMBA_NUM_THREADS} (NUMBA_NUM_THREADS)",
                ),
                ("--torch-threads", args.torch_threads, args.torch_threads >= 1, "at least 1"),
                ("--device", args.device, args.device in DEVICES, "one of " + ", ".join(DEVICES)),
                (
                    "--batched-leaves",
                    args.batched_leaves,
                    args.batched_leaves in BATCHED_LEAVES,
                    "one of " + ", ".join(BATCHED_LEAVES),
                ),
            ]
        ),
        int_list("--hidden-sizes", args.hidden_sizes)[1],
        plain_name("--exp-name", args.exp_name),
        writable_dir("--out-dir", Path(args.out_dir)),
    )


def game_problem(args: Args) -> str | None:
    """Why the game, options, player counts, network size or evaluation opponents do not fit, or
    None. A network too large for a network file is refused here, before training, so a run never
    ends with a network it cannot save."""
    from monster_zoo import envs
    from monster_zoo.agents.network import architecture_problem, check_player_counts, network_options
    from monster_zoo.agents.registry import make_agent
    from monster_zoo.evaluation.arg_checks import int_list

    from .evaluation import PREVIOUS

    try:
        options = parse_options(args.option)
        if "num_players" in options:
            return "give the player counts with --players, not --option num_players"
        network_options(args.game, options)
        too_large = architecture_problem(
            args.game, int_list("--hidden-sizes", args.hidden_sizes)[0], "the trunk"
        )
        if too_large:
            return f"--hidden-sizes {args.hidden_sizes}: {too_large}"
        counts = check_player_counts(args.game, counts_of(args.players))
        evaluated = (
            check_player_counts(args.game, counts_of(args.eval_players)) if args.eval_players else counts[:1]
        )
        if not set(evaluated) <= set(counts):
            return f"--eval-players {args.eval_players} must be among --players {args.players}"
        if args.expert_switch and SWITCH_OPPONENT not in args.eval_opponents.split(","):
            return f"--expert-switch needs {SWITCH_OPPONENT} among --eval-opponents (it is what the switch compares with)"
        for name in filter(None, args.eval_opponents.split(",")):
            if name != PREVIOUS:
                make_agent(name, args.game, options={**options, "num_players": evaluated[0]})
        envs.config(args.game, {**options, "num_players": counts[0]})
        if args.teacher == EXPERT:
            from .expert import expert_simulations, trees_problem

            at_once = max(args.games_per_round, round(args.teacher_share * args.games_per_round))
            too_large = trees_problem(
                at_once,
                expert_simulations(args.game, args.expert_simulations or None),
                envs.spec(args.game).num_actions,
            )
            if too_large:
                return f"--teacher mcts: {too_large} (--games-per-round, --teacher-share)"
        if args.teacher == "champion":
            from .warmstart import champion_teachers

            champion_teachers(
                args.game, counts, options, args.teacher_version or None
            )  # a champion file that is not the shipped one stops here
    except (TypeError, ValueError) as error:
        return str(error)
    return None


def resumed_args(argv: Sequence[str], parser: argparse.ArgumentParser) -> Args:
    """The arguments of the run named by ``--resume``, with the :data:`RESUMABLE` flags of ``argv``
    applied; exits with a message for any other flag or a folder that is not a resumable run."""
    # argparse fills in a default only where the namespace lacks the attribute, so what still
    # holds the marker afterwards was not given (``--option`` appends, so its marker is None).
    unset = object()
    given = argparse.Namespace(
        **{f.name: None if f.name == "option" else unset for f in dataclasses.fields(Args)}
    )
    build_parser().parse_args(argv, namespace=given)
    changed = {key: value for key, value in vars(given).items() if value is not unset and value is not None}
    run_dir = Path(changed.pop("resume"))
    refused = sorted(set(changed) - RESUMABLE)
    if refused:
        parser.error(
            f"--resume continues a run as it was started; it may change only "
            f"{', '.join('--' + k.replace('_', '-') for k in sorted(RESUMABLE))}, not "
            f"{', '.join('--' + k.replace('_', '-') for k in refused)}"
        )
    if not (run_dir / "args.json").is_file() or not _checkpoint_dir(run_dir):
        parser.error(
            f"--resume {run_dir}: not a run folder with args.json and a {CHECKPOINT}/ of this trainer"
        )
    saved = {**LEGACY_ARGS, **json.loads((run_dir / "args.json").read_text(encoding="utf-8"))}
    names = {f.name for f in dataclasses.fields(Args)}
    args = Args(**{**{k: v for k, v in saved.items() if k in names}, **changed})
    args.resume = str(run_dir)
    return args


def branch_problem(args: Args) -> str | None:
    """Why ``--branch-from`` cannot start this run, or None: the folder must be a run of this trainer
    with a checkpoint, for the same game, options, player counts and network shape. None too when
    nothing is branched: no ``--branch-from``, or a resumed run (which goes on from its own checkpoint)."""
    if not args.branch_from or args.resume:
        return None
    source = Path(args.branch_from)
    if not (source / "args.json").is_file() or not _checkpoint_dir(source):
        return f"--branch-from {source}: not a run folder with args.json and a {CHECKPOINT}/ of this trainer"
    try:
        saved = json.loads((source / "args.json").read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        return f"--branch-from {source}: its args.json is not valid JSON ({err})"
    keys = ("game", "option", "players", "hidden_sizes")
    differ = [key for key in keys if not isinstance(saved, dict) or saved.get(key) != getattr(args, key)]
    if differ:
        return (
            f"--branch-from {source}: "
            + ", ".join(
                f"--{k.replace('_', '-')} {getattr(args, k)!r} differs from its {saved.get(k)!r}"
                for k in differ
            )
            + " (a branch keeps the run's network, so these must match)"
        )
    return None


def init_network_problem(args: Args) -> str | None:
    """Why ``--init-network`` cannot start this run, or None: it needs a network file (read through
    the one opener's checks) of this run's game, options, player counts and hidden sizes, and it
    starts a new run only (not with ``--branch-from`` or ``--resume``)."""
    if not args.init_network or args.resume:
        return None
    if args.branch_from:
        return "--init-network and --branch-from both choose the starting network: give one"
    from monster_zoo.agents.model_file import ModelFileError
    from monster_zoo.agents.network import network_options, read_network
    from monster_zoo.evaluation.arg_checks import int_list

    try:
        network = read_network(args.init_network)
    except (ModelFileError, OSError, ValueError) as err:
        return f"--init-network {args.init_network}: {err}"
    wanted = {
        "game": args.game,
        "options": network_options(args.game, parse_options(args.option)),
        "player counts": sorted(counts_of(args.players)),
        "hidden sizes": list(int_list("--hidden-sizes", args.hidden_sizes)[0]),
    }
    found = {
        "game": network.game_id,
        "options": dict(network.options),
        "player counts": sorted(int(n) for n in network.player_counts),
        "hidden sizes": network.hidden_sizes,
    }
    differ = [
        f"{key} {found[key]!r} (this run: {wanted[key]!r})" for key in wanted if found[key] != wanted[key]
    ]
    if differ:
        return f"--init-network {args.init_network}: the network has " + "; ".join(differ)
    return None


def branch(learner: "Learner", source: Path, run_dir: Path) -> None:
    """Load the checkpoint of the run ``source`` into ``learner`` and copy the network its last
    evaluation played (the next evaluation's ``previous``) into ``run_dir``'s ``networks/``. A
    ``previous`` that is not a ``networks/round_<r>.npz`` of the source is dropped (the first
    evaluation then has no previous network): the name comes from a file, and it must not
    name a place outside the new run."""
    learner.load(_checkpoint_dir(source))
    previous = learner.progress["previous"]
    if (
        previous
        and re.fullmatch(r"networks/round_\d{5,9}\.npz", str(previous))
        and (source / previous).is_file()
    ):
        shutil.copyfile(source / previous, run_dir / previous)
    else:
        learner.progress["previous"] = None


def _checkpoint_dir(run_dir: Path) -> Path | None:
    """The run's complete checkpoint folder (the previous one if the newest was cut off mid-write)."""
    for name in (CHECKPOINT, CHECKPOINT + ".old"):
        if (run_dir / name / "progress.json").is_file():
            return run_dir / name
    return None


class Learner:
    """The network, its optimizer, the replay buffer and the counters: everything a checkpoint holds."""

    def __init__(self, args: Args, device):
        import torch

        from monster_zoo import envs
        from monster_zoo.evaluation.arg_checks import int_list

        from .learner import PolicyValueNet, ReplayBuffer

        spec = envs.spec(args.game)
        torch.manual_seed(args.seed)
        self.device = device
        self.net = PolicyValueNet(
            args.game, int_list("--hidden-sizes", args.hidden_sizes)[0], spec.num_actions
        ).to(device)
        self.net.eval()
        self.optimizer = torch.optim.Adam(
            self.net.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay
        )
        self.buffer = ReplayBuffer(args.buffer_size, spec.obs_size, spec.num_actions)
        self.generator = np.random.default_rng(args.seed)
        self.progress = {
            "round": 0,
            "decisions": 0,
            "games": 0,
            "elapsed": 0.0,
            "previous": None,
            "evaluated_round": None,
            "switched_round": None,
        }

    def save(self, run_dir: Path, network) -> None:
        """Write the checkpoint beside the last one, then swap it in (a cut-off write leaves the last)."""
        import torch

        from monster_zoo.agents.network import write_network

        new, current, old = (run_dir / f"{CHECKPOINT}{suffix}" for suffix in (".new", "", ".old"))
        shutil.rmtree(new, ignore_errors=True)
        new.mkdir()
        torch.save(
            {"net": self.net.state_dict(), "optimizer": self.optimizer.state_dict()}, new / "learner.pt"
        )
        self.buffer.save(new / "buffer.npz")
        write_network(new / "network.npz", network)
        state = {**self.progress, "generator": self.generator.bit_generator.state}
        write_atomic(new / "progress.json", json.dumps(state, indent=1))
        shutil.rmtree(old, ignore_errors=True)
        if current.exists():
            current.rename(old)
        new.rename(current)
        shutil.rmtree(old, ignore_errors=True)

    def load(self, folder: Path) -> None:
        """Read a checkpoint back: tensors with ``weights_only=True``, arrays without pickles."""
        import torch

        saved = torch.load(folder / "learner.pt", map_location=self.device, weights_only=True)
        self.net.load_state_dict(saved["net"])
        self.optimizer.load_state_dict(saved["optimizer"])
        self.buffer.load(folder / "buffer.npz")
        state = json.loads((folder / "progress.json").read_text(encoding="utf-8"))
        self.generator.bit_generator.state = state.pop("generator")
        self.progress = state


def progress_line(progress: dict, rounds: int, speed: float, length: float, losses: dict, rates: dict) -> str:
    """One round in one line: counts, self-play speed, losses, time, and the evaluation if there was one."""
    shown = "".join(
        f" | {metric.split('/')[-1].replace('winrate_', '')} {rate.rate:.2f}"
        for metric, rate in rates.items()
    )
    return (
        f"round {progress['round']}/{rounds} | {progress['decisions']} decisions ({speed:.0f}/s) | game length "
        f"{length:.0f} | loss policy {losses['policy_loss']:.3f} value {losses['value_loss']:.3f} | "
        f"{progress['elapsed'] / 60:.1f} min{shown}"
    )


def claim(run_dir: Path):
    """Lock ``run_dir`` for this process (the open lock file, to keep while training); RuntimeError when
    another process holds it. Two trainers on one folder would interleave their checkpoints and logs.
    The lock is the operating system's (``flock``): it goes with the process, however that ends."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): run unguarded
        return None
    handle = (run_dir / "run.lock").open("a")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise RuntimeError(f"another process is training in {run_dir}; stop it before resuming") from None
    return handle


def choose_device(name: str):
    """The torch device for ``--device`` (``auto``: CUDA when torch sees a GPU)."""
    import torch

    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: torch sees no CUDA device (use --device cpu or auto)")
    return torch.device(name)


def main(argv: Sequence[str] | None = None) -> int:
    """Train, evaluate and save; return 0 (bad arguments exit with code 2 and a message before
    anything is written; Ctrl-C exits 130, the last checkpoint intact)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = Args(**vars(parser.parse_args(argv)))
    if args.resume:
        args = resumed_args(argv, parser)
    check_arguments(parser, args, argument_problem, game_problem, branch_problem, init_network_problem)
    say_starting(parser.prog)
    try:
        device = choose_device(args.device)
        lock = claim(Path(args.resume)) if args.resume else None
    except (ValueError, RuntimeError) as error:
        parser.error(str(error))
    try:
        return _train(args, device, lock)
    except KeyboardInterrupt:
        print("\ninterrupted; the last checkpoint stands: continue with --resume", file=sys.stderr)
        return 130


def _train(args: Args, device, lock) -> int:
    """The run with its thread counts, which are restored afterwards (a caller in the same process
    keeps its own), and its folder's lock, released at the end."""
    import torch

    from monster_zoo.envs.core import threads

    torch_threads = torch.get_num_threads()
    torch.set_num_threads(args.torch_threads)
    try:
        with threads.using(
            args.threads, min_batch=2
        ):  # a search per game outweighs starting a parallel region
            return _run(args, device, lock)
    finally:
        torch.set_num_threads(torch_threads)


def warm_start(
    args: Args, learner: Learner, counts: Sequence[int], options: dict, metrics: MetricsLog, device
) -> None:
    """Before the first round: ``--warm-start-games`` games of the ``--teacher``, in pieces of
    ``--games-per-round`` games, each added to the buffer and trained on
    (``--warm-start-reuse`` rows per decision); their losses are logged at step 0."""
    from .learner import train

    start, played, decisions = time.time(), 0, 0
    losses: dict = {}
    while played < args.warm_start_games:
        games = min(args.games_per_round, args.warm_start_games - played)
        batch, stats = teacher_games(
            args, games, counts, args.seed * 1_000_003 + WARM_START_SALT + played, options
        )
        learner.buffer.add(batch)
        steps = math.ceil(len(batch) * args.warm_start_reuse / args.batch_size)
        losses = train(
            learner.net, learner.optimizer, learner.buffer, steps, args.batch_size, learner.generator, device
        )
        played += stats.games
        decisions += stats.decisions
    for name, value in losses.items():
        metrics.log(0, f"train/warm_start_{name}", value)
    if args.progress:
        print(
            f"warm start: {played} {args.teacher} games, {decisions} decisions in "
            f"{(time.time() - start) / 60:.1f} min | loss policy {losses['policy_loss']:.3f} "
            f"value {losses['value_loss']:.3f}",
            flush=True,
        )


def parallel_count(value) -> int | None:
    """``--parallel-games`` as a count (0 for ``auto``), or None if it is neither ``auto`` nor a
    count of at least 1 (runs started before ``auto`` saved an integer)."""
    if value == "auto":
        return 0
    try:
        count = int(value)
    except (TypeError, ValueError):
        return None
    return count if count >= 1 and str(value).strip() == str(count) else None


def parallel_games(args: Args, batched: bool) -> int:
    """The games side by side in self-play and teacher games: ``--parallel-games``, or for ``auto``
    what :func:`~monster_zoo.training.az.selfplay.parallel_games_pay` chose for the game."""
    from .selfplay import parallel_games_pay

    return parallel_count(args.parallel_games) or parallel_games_pay(args.game, batched)


def batched_leaves(args: Args) -> bool:
    """Whether self-play runs in lock step: ``--batched-leaves on``, or ``auto`` where
    :func:`~monster_zoo.training.az.selfplay.batched_leaves_pay` says it pays."""
    from .selfplay import batched_leaves_pay

    return args.batched_leaves == "on" or (
        args.batched_leaves == "auto" and batched_leaves_pay(args.game, args.threads)
    )


def teacher_games(args: Args, games: int, counts: Sequence[int], seed: int, options: dict):
    """``games`` games of the run's ``--teacher`` (decisions and stats, as self-play returns them)."""
    from .warmstart import play_teacher_games

    parallel = max(parallel_games(args, batched_leaves(args)), games)
    if args.teacher == EXPERT:
        from .expert import play_expert_games

        return play_expert_games(
            args.game,
            games,
            counts,
            seed=seed,
            simulations=args.expert_simulations or None,
            epsilon=args.warm_start_epsilon,
            parallel=parallel,
            options=options,
        )
    return play_teacher_games(
        args.game,
        games,
        counts,
        seed=seed,
        epsilon=args.warm_start_epsilon,
        parallel=parallel,
        options=options,
        teacher=args.teacher,
        teacher_version=args.teacher_version or None,
    )


def switch_reached(args: Args, rates: dict) -> bool:
    """Whether this evaluation's ``rates`` pass ``--expert-switch``: the search's win rate against
    :data:`SWITCH_OPPONENT` at the first evaluated count at least the threshold, its 95% interval above 0.5."""
    rate = rates.get(f"eval/winrate_vs_{SWITCH_OPPONENT}")
    return (
        bool(args.expert_switch)
        and rate is not None
        and rate.rate >= args.expert_switch
        and rate.interval[0] > 0.5
    )


def switched_settings(args: Args, settings):
    """The self-play search settings after the switch: ``settings`` at ``--switch-simulations``."""
    return dataclasses.replace(
        settings, simulations=args.switch_simulations or SWITCH_FACTOR * args.simulations
    )


def _run(args: Args, device, lock) -> int:
    """The run itself (arguments already checked; ``lock`` held on a resumed run's folder)."""
    from monster_zoo.agents.az.search import SearchSettings
    from monster_zoo.agents.network import read_network, write_network

    from .evaluation import evaluate
    from .learner import export, train
    from .selfplay import play_games

    options = parse_options(args.option)
    counts = counts_of(args.players)
    counts.sort()
    eval_counts = counts_of(args.eval_players) if args.eval_players else counts[:1]
    opponents = [name for name in args.eval_opponents.split(",") if name]
    settings = SearchSettings(
        args.simulations,
        args.considered,
        args.gumbel_scale,
        args.c_puct,
        min_spread=args.min_spread,
        rollout_weight=args.rollout_weight,
    )
    learner = Learner(args, device)
    branched = bool(args.branch_from) and not args.resume
    if args.resume:
        run_dir = Path(args.resume)
        learner.load(_checkpoint_dir(run_dir))
        write_atomic(run_dir / "args.json", args_json(args))
        print(f"resumed {run_dir} at round {learner.progress['round']}")
    else:
        run_dir = new_run(args.out_dir, args.game, args.exp_name, args.seed, subdirs=("networks",)).dir
        lock = claim(run_dir)  # the folder is this process's before anything is written into it
        write_atomic(run_dir / "args.json", args_json(args))
        if branched:
            branch(learner, Path(args.branch_from), run_dir)
        elif args.init_network:
            from .learner import load_weights

            load_weights(learner.net, read_network(args.init_network))
            print(f"network initialised from {args.init_network}")
    progress = learner.progress
    from torch.utils.tensorboard import SummaryWriter

    # metrics.csv and TensorBoard under the same names; a resume purges TensorBoard's later steps too.
    resume_step = progress["decisions"] if args.resume else None
    board = SummaryWriter(str(run_dir), purge_step=None if resume_step is None else resume_step + 1)
    metrics = MetricsLog(
        run_dir / "metrics.csv",
        lambda step, metric, value: board.add_scalar(metric, value, step),
        resume_step=resume_step,
        elapsed=progress["elapsed"],
    )
    if branched:
        print(f"branched from {args.branch_from} at round {progress['round']}")
    print(
        f"run folder {run_dir}; continue it after an interruption with:\n"
        f"    python -m monster_zoo.training.az --resume {run_dir}",
        flush=True,
    )

    provenance = {
        "algorithm": "expert iteration (Gumbel search)",
        "seed": args.seed,
        "simulations": args.simulations,
    }
    if args.init_network:
        provenance["init_network"] = args.init_network
    if (args.warm_start_games or args.teacher_share) and args.teacher != EXPERT:
        # which champion versions taught: the short name follows the newest, so only this pins a rerun
        from .warmstart import teacher_names

        provenance["teachers"] = teacher_names(args.game, counts, args.teacher, args.teacher_version or None)

    def network_now():
        return export(
            learner.net,
            args.game,
            options,
            counts,
            f"{args.exp_name}-s{args.seed}@r{progress['round']}",
            {**provenance, "round": progress["round"], "decisions": progress["decisions"]},
        )

    def run_evaluation(network) -> dict:
        path = run_dir / "networks" / f"round_{progress['round']:05d}.npz"
        write_network(path, network)
        previous = read_network(run_dir / progress["previous"]) if progress["previous"] else None
        rates = evaluate(
            network,
            previous,
            opponents,
            eval_counts,
            args.eval_games,
            args.eval_simulations,
            args.seed,
            options,
            rollout_weight=args.rollout_weight,
        )
        for metric, rate in rates.items():
            low, high = rate.interval
            for suffix, value in (("", rate.rate), ("_low95", low), ("_high95", high)):
                metrics.log(progress["decisions"], metric + suffix, value)
        progress.update(previous=str(path.relative_to(run_dir)), evaluated_round=progress["round"])
        return rates

    started = time.time()
    elapsed_before = progress["elapsed"]
    if not args.resume and not branched and args.warm_start_games:
        warm_start(args, learner, counts, options, metrics, device)
        progress["elapsed"] = elapsed_before + time.time() - started
        board.flush()
        learner.save(run_dir, network_now())
    rates: dict = {}
    batched = batched_leaves(args)
    parallel = parallel_games(args, batched)
    while progress["round"] < args.rounds:
        if args.time_limit and time.time() - started > 60 * args.time_limit:
            break
        round_start = time.time()
        switched = progress.get("switched_round") is not None
        batch, stats = play_games(
            network_now(),
            args.games_per_round,
            counts,
            switched_settings(args, settings) if switched else settings,
            seed=args.seed * 1_000_003 + progress["round"],
            parallel=parallel,
            options=options,
            batched_leaves=batched,
            search_value_share=args.search_value_share,
        )
        selfplay_seconds = time.time() - round_start
        learner.buffer.add(batch)
        taught = 0
        if args.teacher_share and not switched:
            lesson, _ = teacher_games(
                args,
                max(1, round(args.teacher_share * args.games_per_round)),
                counts,
                args.seed * 1_000_003 + TEACHER_SALT + progress["round"],
                options,
            )
            learner.buffer.add(lesson)
            taught = len(lesson)
        steps = math.ceil((len(batch) + taught) * args.sample_reuse / args.batch_size)
        losses = train(
            learner.net, learner.optimizer, learner.buffer, steps, args.batch_size, learner.generator, device
        )
        progress["round"] += 1
        progress["decisions"] += stats.decisions
        progress["games"] += stats.games
        step = progress["decisions"]
        metrics.log(step, "charts/SPS", stats.decisions / max(selfplay_seconds, 1e-9))
        metrics.log(step, "rollout/ep_len_mean", stats.mean_length)
        metrics.log(step, "rollout/truncated", stats.truncated / stats.games)
        metrics.log(step, "train/policy_loss", losses["policy_loss"])
        metrics.log(step, "train/value_loss", losses["value_loss"])
        metrics.log(step, "train/buffer_size", len(learner.buffer))
        network = network_now()
        write_network(run_dir / "network.npz", network)
        rates = {}
        if args.eval_every and progress["round"] % args.eval_every == 0:
            rates = run_evaluation(network)
            if not switched and switch_reached(args, rates):
                progress["switched_round"] = progress["round"]
                metrics.log(step, "train/switched_to_az", 1.0)
                print(
                    f"round {progress['round']}: az passed {SWITCH_OPPONENT} "
                    f"({rates[f'eval/winrate_vs_{SWITCH_OPPONENT}']}); from now on self-play at "
                    f"{switched_settings(args, settings).simulations} simulations makes the targets",
                    flush=True,
                )
        progress["elapsed"] = elapsed_before + time.time() - started
        board.flush()
        if progress["round"] % args.checkpoint_every == 0 or progress["round"] == args.rounds:
            learner.save(run_dir, network)
        if args.progress:
            print(
                progress_line(
                    progress,
                    args.rounds,
                    stats.decisions / selfplay_seconds,
                    stats.mean_length,
                    losses,
                    rates,
                ),
                flush=True,
            )
    network = network_now()
    if progress["evaluated_round"] != progress["round"]:
        rates = run_evaluation(network)
    progress["elapsed"] = elapsed_before + time.time() - started
    learner.save(run_dir, network)  # the end is a checkpoint too, whatever --checkpoint-every
    metrics.close()
    board.close()
    summary = {
        "run_name": run_dir.name,
        "rounds": progress["round"],
        "decisions": progress["decisions"],
        "games": progress["games"],
        "elapsed_minutes": round(progress["elapsed"] / 60, 2),
        "network": str(run_dir / "network.npz"),
        "switched_round": progress.get("switched_round"),
        **{
            m.split("/")[-1]: {"rate": r.rate, "interval": list(r.interval), "games": r.games}
            for m, r in rates.items()
        },
    }
    write_atomic(run_dir / "summary.json", json.dumps(summary, indent=2))
    print(
        f"run {run_dir.name}: {progress['round']} rounds, {progress['decisions']} decisions in "
        f"{progress['elapsed'] / 60:.1f} min"
    )
    for metric, rate in rates.items():
        print(f"  {metric.split('/')[-1]}: {rate}")
    if args.plot:
        from monster_zoo.evaluation.plots import plot_learning_curves

        plot_learning_curves([run_dir], run_dir / "curves.png")
        print(f"  learning curves: {run_dir / 'curves.png'}")
    print(f"  network: {run_dir / 'network.npz'}")
    if lock is not None:
        lock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
