"""The expert-iteration trainer (``python -m monster_zoo.training.az``): a few-second run end to
end, an exact resume, refused arguments, and its parts (self-play, value targets, replay buffer)."""

import csv
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numba
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from monster_zoo import envs
from monster_zoo.agents.az.agent import AZAgent
from monster_zoo.agents.az.search import SearchSettings
from monster_zoo.agents.network import MAX_SEATS, random_network, read_network
from monster_zoo.envs.core import threads
from monster_zoo.training.az.learner import Batch, ReplayBuffer, value_targets
from monster_zoo.training.az.selfplay import play_games
from monster_zoo.training.az.trainer import main

ROOT = Path(__file__).resolve().parents[1]
MTM = "marry_the_monster-v0"
TINY = [
    "--rounds",
    "2",
    "--games-per-round",
    "4",
    "--parallel-games",
    "3",
    "--simulations",
    "8",
    "--hidden-sizes",
    "16",
    "--batch-size",
    "32",
    "--buffer-size",
    "2000",
    "--eval-every",
    "1",
    "--eval-games",
    "2",
    "--eval-simulations",
    "8",
    "--eval-opponents",
    "greedy,previous",
    "--no-progress",
    "--no-plot",
    "--seed",
    "3",
]


def train(out_dir: Path, *extra) -> Path:
    """A tiny run in this process; its run folder."""
    assert main(["--out-dir", str(out_dir), *TINY, *extra]) == 0
    (run_dir,) = out_dir.iterdir()
    return run_dir


def metric_rows(run_dir: Path):
    """``metrics.csv`` as dicts."""
    with open(run_dir / "metrics.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_smoke_run_writes_metrics_networks_checkpoint_and_plot(tmp_path):
    """Two rounds over 2 and 3 players: the SB3 trainer's metric names and Wilson bounds, a
    network file for both counts after every round, one per evaluation, a checkpoint, TensorBoard
    events, the summary and the curves."""
    run_dir = train(tmp_path, "--players", "2,3", "--plot")
    game, exp, seed, stamp = run_dir.name.split("__")
    assert (game, exp, seed) == (MTM, "az", "3") and stamp.isdigit()
    rows = metric_rows(run_dir)
    names = {r["metric"] for r in rows}
    assert {
        "charts/SPS",
        "rollout/ep_len_mean",
        "train/policy_loss",
        "train/value_loss",
        "train/buffer_size",
        "eval/winrate_vs_greedy",
        "eval/winrate_vs_greedy_low95",
        "eval/winrate_vs_greedy_high95",
        "eval/winrate_vs_previous",
        "eval/winrate_net_vs_greedy",
    } <= names
    assert all(0.0 <= float(r["value"]) <= 1.0 for r in rows if r["metric"].startswith("eval/"))
    assert (
        Counter(r["metric"] for r in rows)["eval/winrate_vs_previous"] == 1
    )  # none before the first evaluation
    network = read_network(run_dir / "network.npz")
    assert (network.game_id, network.player_counts, network.name) == (MTM, [2, 3], "az-s3@r2")
    assert sorted(p.name for p in (run_dir / "networks").iterdir()) == ["round_00001.npz", "round_00002.npz"]
    progress = json.loads((run_dir / "checkpoint" / "progress.json").read_text())
    assert progress["round"] == 2 and progress["games"] == 8
    assert list(run_dir.glob("events.out.tfevents.*")), "no TensorBoard log"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["rounds"] == 2 and summary["winrate_vs_greedy"]["games"] == 2
    assert (run_dir / "curves.png").stat().st_size > 1000
    for n in (2, 3):  # one network, both counts
        assert AZAgent(0, run_dir / "network.npz", MTM, {"num_players": n}, simulations=4).num_players == n


def test_resume_continues_exactly_as_an_uninterrupted_run(tmp_path):
    """Two rounds in one go, and one round then ``--resume`` for the second, give the same network
    bit for bit; what the interrupted run logged after its checkpoint is dropped, so no metric
    appears twice at a step."""
    straight = train(tmp_path / "a", "--eval-every", "0")
    split = train(tmp_path / "b", "--eval-every", "0", "--rounds", "1")
    checkpoint_step = json.loads((split / "checkpoint" / "progress.json").read_text())["decisions"]
    with open(split / "metrics.csv", "a", newline="") as f:  # logged after the checkpoint, then cut off
        csv.writer(f).writerow([checkpoint_step + 50, "9.9", "charts/SPS", "1"])
    assert main(["--resume", str(split), "--rounds", "2"]) == 0
    a, b = read_network(straight / "network.npz"), read_network(split / "network.npz")
    assert np.array_equal(a.params, b.params) and a.name == b.name == "az-s3@r2"
    rows = metric_rows(split)
    assert max(Counter((r["step"], r["metric"]) for r in rows).values()) == 1
    assert str(checkpoint_step + 50) not in {r["step"] for r in rows}
    train_steps = sorted({r["step"] for r in rows if r["metric"] == "train/policy_loss"})
    assert train_steps == sorted(
        {r["step"] for r in metric_rows(straight) if r["metric"] == "train/policy_loss"}
    )
    assert json.loads((split / "args.json").read_text())["rounds"] == 2


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--players", "7"], "valid: 2, 3, 4, 5"),
        (["--option", "num_players=2"], "--players"),
        (["--option", "colour=red"], "colour"),
        (["--eval-opponents", "greedy,nobody"], "unknown agent 'nobody'"),
        (["--eval-players", "3"], "must be among --players"),
        (["--hidden-sizes", "0,8"], "--hidden-sizes"),
        (
            ["--hidden-sizes", "8192"],
            "--hidden-sizes 8192: the trunk holds a layer of 8,192 units; the most accepted is 4,096",
        ),
        (["--hidden-sizes", ",".join(["8"] * 9)], "the trunk has 9 layers; the most accepted is 8"),
        (
            ["--game", "monster_factory-v0", "--hidden-sizes", "4096,4096"],
            "parameters; the most accepted is 16,000,000",
        ),
        (["--device", "tpu"], "one of auto, cpu, cuda"),
        (["--batched-leaves", "yes"], "--batched-leaves must be one of auto, on, off"),
        (["--parallel-games", "0"], "--parallel-games must be auto or a count of at least 1, got '0'"),
        (["--parallel-games", "many"], "--parallel-games must be auto or a count of at least 1, got 'many'"),
        (["--simulations", "0"], "--simulations must be at least 1"),
        (["--min-spread", "0"], "--min-spread must be a number > 0"),
        (["--rollout-weight", "1.5"], "--rollout-weight must be a share from 0 to 1"),
        (["--search-value-share", "-0.1"], "--search-value-share must be a share from 0 to 1"),
        (
            ["--teacher-version", "1"],
            "--teacher-version must be 0 (the newest), or a version of at least 1 with --teacher champion",
        ),
        (["--teacher", "champion", "--teacher-version", "-1"], "--teacher-version must be 0"),
        (["--branch-from", "no-such-run"], "--branch-from no-such-run: not a run folder"),
    ],
)
def test_bad_arguments_exit_2_with_the_reason_and_write_nothing(tmp_path, capsys, extra, message):
    """Each bad value is named, with the valid ones where there is a list, before any folder exists."""
    out = tmp_path / "runs"
    with pytest.raises(SystemExit) as exit_info:
        main(["--out-dir", str(out), *extra])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_a_branch_goes_on_from_another_runs_checkpoint_with_its_own_flags(tmp_path, capsys):
    """``--branch-from`` starts a new run folder from another run's last checkpoint: with the same
    flags it ends with the network of the run played straight through; with rollouts mixed into
    self-play (``--rollout-weight``) it learns something else. The source run is left as it was,
    and a source of another network shape is refused before anything is written."""
    straight = train(tmp_path / "a")
    source = train(tmp_path / "b", "--rounds", "1")
    before = {p.name: p.read_bytes() for p in source.rglob("*") if p.is_file()}
    same = train(tmp_path / "c", "--branch-from", str(source))
    assert np.array_equal(
        read_network(straight / "network.npz").params, read_network(same / "network.npz").params
    )
    assert (same / "networks" / "round_00001.npz").read_bytes() == (
        source / "networks" / "round_00001.npz"
    ).read_bytes()
    assert json.loads((same / "checkpoint" / "progress.json").read_text())["round"] == 2
    assert {p.name: p.read_bytes() for p in source.rglob("*") if p.is_file()} == before
    mixed = train(tmp_path / "d", "--branch-from", str(source), "--rollout-weight", "0.5")
    assert not np.array_equal(
        read_network(mixed / "network.npz").params, read_network(same / "network.npz").params
    )
    assert json.loads((mixed / "args.json").read_text())["rollout_weight"] == 0.5
    with pytest.raises(SystemExit) as exit_info:
        main(["--out-dir", str(tmp_path / "e"), *TINY, "--branch-from", str(source), "--hidden-sizes", "32"])
    assert exit_info.value.code == 2
    assert "--hidden-sizes '32' differs from its '16'" in capsys.readouterr().err
    assert not (tmp_path / "e").exists()


def test_a_branch_never_copies_a_network_named_outside_the_runs(tmp_path):
    """The source's checkpoint names its last evaluated network; a name that leaves the run folder
    is dropped, not followed: nothing is written outside the new run."""
    source = train(tmp_path / "src" / "runs", "--rounds", "1")
    progress_file = source / "checkpoint" / "progress.json"
    progress = json.loads(progress_file.read_text())
    progress["previous"] = "../../bait.npz"
    progress_file.write_text(json.dumps(progress))
    (tmp_path / "src" / "bait.npz").write_bytes((source / "networks" / "round_00001.npz").read_bytes())
    out = tmp_path / "deep" / "er" / "runs"
    branched = train(out, "--branch-from", str(source))
    assert not (tmp_path / "deep" / "er" / "bait.npz").exists() and not list(
        tmp_path.glob("deep/**/bait.npz")
    )
    assert sorted(p.name for p in (branched / "networks").iterdir()) == ["round_00002.npz"]
    assert (
        json.loads((branched / "checkpoint" / "progress.json").read_text())["previous"]
        == "networks/round_00002.npz"
    )


def test_resume_refuses_flags_that_would_change_what_the_run_learns(tmp_path, capsys):
    """``--resume`` may extend or steer a run (rounds, evaluation, threads) but not change its
    search or learner, and needs a run folder of this trainer."""
    run_dir = train(tmp_path, "--rounds", "1", "--eval-every", "0")
    with pytest.raises(SystemExit) as exit_info:
        main(["--resume", str(run_dir), "--simulations", "64", "--rounds", "3"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "not --simulations" in err and "--rounds" in err
    with pytest.raises(SystemExit) as exit_info:
        main(["--resume", str(tmp_path / "no-such-run")])
    assert exit_info.value.code == 2 and "not a run folder" in capsys.readouterr().err


def test_a_run_folder_takes_one_trainer_at_a_time(tmp_path, capsys):
    """While a process trains in a run folder (holds its lock), a resume there is refused before it
    writes anything; once the lock is free the resume goes ahead."""
    fcntl = pytest.importorskip("fcntl")
    run_dir = train(tmp_path, "--rounds", "1", "--eval-every", "0")
    before = (run_dir / "metrics.csv").read_text()
    with open(run_dir / "run.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(SystemExit) as exit_info:
            main(["--resume", str(run_dir), "--rounds", "2"])
        assert exit_info.value.code == 2 and "another process is training" in capsys.readouterr().err
        assert (run_dir / "metrics.csv").read_text() == before
    assert main(["--resume", str(run_dir), "--rounds", "2"]) == 0


def test_run_files_are_written_whole(tmp_path, monkeypatch):
    """args.json, the checkpoint's progress.json, metrics.csv (rewritten at the start) and
    summary.json go through the atomic writer; no temporary file is left behind."""
    from monster_zoo.training import run_start
    from monster_zoo.training.az import trainer as az

    written = []
    real = az.write_atomic
    for module in (az, run_start):  # the trainer's own files, and the metrics log of every trainer
        monkeypatch.setattr(
            module, "write_atomic", lambda path, data: written.append(Path(path).name) or real(path, data)
        )
    run_dir = train(tmp_path, "--rounds", "1")
    assert {"args.json", "metrics.csv", "progress.json", "summary.json"} <= set(written)
    assert not [p for p in run_dir.rglob("*") if p.name.endswith(".tmp")]
    assert metric_rows(run_dir)[0]["metric"] == "charts/SPS"


def test_help_runs_as_a_module():
    """``python -m monster_zoo.training.az --help`` lists the flags, --resume among them."""
    done = subprocess.run(
        [sys.executable, "-m", "monster_zoo.training.az", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "--resume" in done.stdout and "--simulations" in done.stdout


def test_value_targets_rotate_the_returns_to_each_mover():
    """Entry k of a decision's target is the return of the seat k places after its mover;
    entries beyond the table are 0."""
    returns = np.zeros((3, MAX_SEATS))
    returns[:, :3] = [1.0, -0.5, -0.5]
    targets = value_targets(returns, np.array([0, 1, 2]), np.array([3, 3, 3]))
    assert targets[:, :3].tolist() == [[1.0, -0.5, -0.5], [-0.5, -0.5, 1.0], [-0.5, 1.0, -0.5]]
    assert not targets[:, 3:].any()


def test_self_play_is_the_same_whatever_the_number_of_parallel_games():
    """Games are seeded by their index alone: one at a time, all at once or on two threads, the
    same decisions;
    every target is a distribution over the legal actions and the values are the games' returns."""
    network = random_network(MTM, (16,), seed=0, player_counts=[2, 3])
    settings = SearchSettings(simulations=8, gumbel_scale=1.0)
    one, stats = play_games(network, 5, [2, 3], settings, seed=11, parallel=1)
    many, _ = play_games(network, 5, [2, 3], settings, seed=11, parallel=5)
    with threads.using(min(2, numba.config.NUMBA_NUM_THREADS), min_batch=2):
        threaded, _ = play_games(network, 5, [2, 3], settings, seed=11, parallel=5)
    for key in ("observations", "counts", "masks", "policies", "values"):
        assert np.array_equal(getattr(one, key), getattr(many, key)), key
        assert np.array_equal(getattr(one, key), getattr(threaded, key)), key
    assert stats.games == 5 and stats.decisions == len(one)
    assert np.allclose(one.policies.astype(np.float32).sum(axis=1), 1.0, atol=1e-2)
    assert not (one.policies[one.masks == 0]).any()
    assert set(one.counts.tolist()) == {2, 3}
    # win mode (ruling C3): a winner's +1 and the others' -1/(n-1) sum to zero over the table
    for n in (2, 3):
        rows = one.values[one.counts == n]
        assert (
            np.allclose(rows.sum(axis=1), 0.0, atol=1e-6)
            and np.isin(rows[:, 0], [1.0, -1.0 / (n - 1), 0.0]).all()
        )


@pytest.mark.parametrize("batched", [False, True])
def test_search_value_share_mixes_the_chosen_moves_values_into_the_results(batched):
    """The share changes the value targets only: the same games and policies; at share 1 a
    searched decision's target is the search's value of its move (not the result), a decision
    with one legal action keeps the result, and a share in between is the linear mix."""
    network = random_network(MTM, (16,), seed=0, player_counts=[2, 3])
    settings = SearchSettings(simulations=12, gumbel_scale=1.0)
    runs = {
        share: play_games(
            network, 6, [2, 3], settings, seed=5, parallel=3, batched_leaves=batched, search_value_share=share
        )[0]
        for share in (0.0, 0.5, 1.0)
    }
    results, mixed, searched = runs[0.0], runs[0.5], runs[1.0]
    for key in ("observations", "counts", "masks", "policies"):
        assert np.array_equal(getattr(results, key), getattr(searched, key)), key
    many = results.masks.sum(axis=1) > 1
    assert many.any() and (~many).any()
    assert np.array_equal(searched.values[~many], results.values[~many])
    assert not np.allclose(searched.values[many], results.values[many])
    assert np.allclose(mixed.values, (results.values + searched.values) / 2, atol=1e-6)
    assert (np.abs(searched.values) <= 1.0 + 1e-6).all()
    for n in (2, 3):  # entries beyond the table stay 0
        assert not searched.values[searched.counts == n][:, n:].any()
    with pytest.raises(ValueError, match="a share from 0 to 1"):
        play_games(network, 1, [2], settings, seed=5, search_value_share=2.0)


def test_chosen_move_values_are_the_search_trees_values_after_the_chosen_action():
    """What the targets take from a search is :meth:`AZTree.root_values` of the move it made, per
    absolute seat; NaN where the mover had one legal action (the tree holds an older search)."""
    from monster_zoo.agents.az.search import AZTree, search_and_play, trees
    from monster_zoo.agents.search.tuned import tuned_rollout
    from monster_zoo.envs.core.rng import make_rng
    from monster_zoo.training.az.selfplay import chosen_move_values

    spec = envs.spec(MTM)
    network = random_network(MTM, (16,), seed=1, player_counts=[3])
    settings = SearchSettings(simulations=24, gumbel_scale=1.0)
    states = np.zeros((2, spec.state_size), np.int32)
    game_rngs, search_rngs = np.zeros((2, 1), np.uint64), np.zeros((2, 1), np.uint64)
    for i in range(2):
        game_rngs[i], search_rngs[i] = make_rng(40 + i), make_rng(50 + i)
        spec.init_state(states[i], envs.config(MTM, {"num_players": 3, "reward": "win"}), game_rngs[i])
    children, visits, values, priors = trees(2, 25, spec.num_actions)
    slots = np.array([1, 0], np.int64)
    policies, observations = (
        np.zeros((2, spec.num_actions), np.float32),
        np.zeros((2, spec.obs_size), np.float32),
    )
    actions, masks = np.zeros(2, np.int64), np.zeros((2, spec.num_actions), np.int8)
    search_and_play(
        states,
        slots,
        game_rngs,
        search_rngs,
        settings.as_array(),
        True,
        network.params,
        network.shapes,
        children,
        visits,
        values,
        priors,
        policies,
        actions,
        observations,
        masks,
        spec.legal_mask,
        spec.apply_action,
        spec.returns,
        spec.observe_into,
        spec.determinize,
        tuned_rollout(MTM),
    )
    got = chosen_move_values(children, visits, values, slots, actions, masks)
    for j, i in enumerate(slots):
        tree = AZTree(25, spec.num_actions)
        tree.children, tree.visits, tree.values = children[i], visits[i], values[i]
        assert masks[j].sum() > 1
        assert np.allclose(got[j], tree.root_values()[actions[j]], atol=1e-6)
        assert got[j][:3].any() and not got[j][3:].any()
    one = masks.copy()
    one[0] = 0
    one[0, actions[0]] = 1
    assert np.isnan(chosen_move_values(children, visits, values, slots, actions, one)[0]).all()


def spy_on_self_play(monkeypatch, keyword):
    """A list that gets the ``keyword`` argument of every self-play call the trainer makes."""
    import monster_zoo.training.az.selfplay as selfplay

    asked = []
    real = selfplay.play_games

    def spy(*args, **kwargs):
        asked.append(kwargs[keyword])
        return real(*args, **kwargs)

    monkeypatch.setattr(selfplay, "play_games", spy)
    return asked


@pytest.mark.parametrize(
    "game_id,flag,batched",
    [
        (MTM, [], True),
        ("monstargh-v0", [], False),
        ("monster_arena-v0", [], False),
        (MTM, ["--threads", "2"], False),
        (MTM, ["--batched-leaves", "off"], False),
        ("monster_arena-v0", ["--batched-leaves", "on"], True),
    ],
)
def test_self_play_batches_its_leaves_where_that_was_measured_to_pay(
    tmp_path, monkeypatch, game_id, flag, batched
):
    """``--batched-leaves auto`` (the default) plays self-play in lock step for a game whose
    network input is at most 512 wide (Marry the Monster) on one thread; not for MONSTArgh!'s 719
    (one search per game measured faster there with the one-row pass's eight-row blocks) or Monster
    Arena's 1,747, nor on two threads (one search per game per thread); on and off say so for any
    game."""
    if "--threads" in flag and numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread on this machine")

    asked = spy_on_self_play(monkeypatch, "batched_leaves")
    train(
        tmp_path, "--game", game_id, "--rounds", "1", "--eval-every", "0", "--eval-opponents", "greedy", *flag
    )
    assert asked == [batched]


@pytest.mark.parametrize(
    "game_id,flag,parallel",
    [
        (MTM, [], 64),
        ("mighty_monsters-v0", ["--players", "3"], 64),
        ("monstargh-v0", [], 32),
        ("monster_arena-v0", [], 32),
        (MTM, ["--batched-leaves", "off"], 32),
        (MTM, ["--parallel-games", "5"], 5),
    ],
)
def test_auto_parallel_games_are_64_where_lock_step_was_measured_to_pay_with_them(
    tmp_path, monkeypatch, game_id, flag, parallel
):
    """``--parallel-games auto`` (the default) plays 64 games side by side in lock step, which runs on
    networks of at most 512 inputs (Marry the Monster's 286, Mighty Monsters' 402), 32 with one
    search per game (MONSTArgh!, Monster Arena); a count is kept as given."""
    asked = spy_on_self_play(monkeypatch, "parallel")
    train(
        tmp_path,
        "--game",
        game_id,
        "--rounds",
        "1",
        "--eval-every",
        "0",
        "--eval-opponents",
        "greedy",
        "--parallel-games",
        "auto",
        *flag,
    )
    assert asked == [parallel]


def test_replay_buffer_keeps_the_newest_decisions_and_round_trips(tmp_path):
    """Past its capacity the oldest decisions go first; saved and loaded, it is the same."""
    spec = envs.spec(MTM)

    def batch(first, count):
        rows = np.arange(first, first + count)
        return Batch(
            np.repeat(rows[:, None], spec.obs_size, axis=1).astype(np.float16),
            np.full(count, 2, np.int8),
            np.ones((count, spec.num_actions), np.int8),
            np.full((count, spec.num_actions), 1 / spec.num_actions, np.float16),
            np.zeros((count, MAX_SEATS), np.float32),
        )

    buffer = ReplayBuffer(10, spec.obs_size, spec.num_actions)
    buffer.add(batch(0, 7))
    buffer.add(batch(7, 6))
    assert len(buffer) == 10
    assert sorted(buffer.arrays["observations"][:, 0].tolist()) == list(range(3, 13))
    buffer.save(tmp_path / "buffer.npz")
    back = ReplayBuffer(10, spec.obs_size, spec.num_actions)
    back.load(tmp_path / "buffer.npz")
    assert (back.size, back.position) == (buffer.size, buffer.position)
    assert all(np.array_equal(back.arrays[k], buffer.arrays[k]) for k in buffer.arrays)
    with pytest.raises(ValueError, match="capacity"):
        ReplayBuffer(5, spec.obs_size, spec.num_actions).load(tmp_path / "buffer.npz")


def test_a_run_from_before_a_flag_resumes_as_it_was_started(tmp_path):
    """A run whose args.json predates ``--min-spread`` searched with min-max rescaling; its resume
    keeps that instead of taking the new default, so what it learns does not change mid-run."""
    from monster_zoo.training.az.trainer import build_parser, resumed_args

    run_dir = train(tmp_path, "--rounds", "1", "--eval-every", "0")
    saved = json.loads((run_dir / "args.json").read_text())
    assert saved["min_spread"] == 2.0
    del saved["min_spread"]
    (run_dir / "args.json").write_text(json.dumps(saved))
    assert resumed_args(["--resume", str(run_dir)], build_parser()).min_spread == 1e-8


def test_init_network_starts_from_a_network_files_weights_and_refuses_one_that_does_not_fit(tmp_path, capsys):
    """``--init-network`` loads a network file's weights into the learner (export of the loaded
    learner gives the file's parameters back exactly), so the run learns on from them: its first
    evaluated network differs from a run started from fresh weights. A file of another shape or
    player count, a missing file, or one given with ``--branch-from`` is refused before anything
    is written."""
    import torch

    from monster_zoo.agents.network import write_network
    from monster_zoo.training.az.learner import PolicyValueNet, export, load_weights

    start = random_network(MTM, (16,), seed=9, player_counts=[2], name="start")
    path = write_network(tmp_path / "start.npz", start)
    net = PolicyValueNet(MTM, [16], envs.spec(MTM).num_actions)
    load_weights(net, read_network(path))
    assert np.array_equal(export(net, MTM, {}, [2], "x").params, start.params)
    with torch.no_grad():
        assert not torch.equal(
            PolicyValueNet(MTM, [16], envs.spec(MTM).num_actions).policy.weight, net.policy.weight
        )

    fresh = train(tmp_path / "a", "--rounds", "1")
    started = train(tmp_path / "b", "--rounds", "1", "--init-network", str(path))
    first = "networks/round_00001.npz"
    assert not np.array_equal(read_network(fresh / first).params, read_network(started / first).params)
    assert "network initialised from" in capsys.readouterr().out

    wide = write_network(tmp_path / "wide.npz", random_network(MTM, (32,), seed=1, player_counts=[2]))
    three = write_network(tmp_path / "three.npz", random_network(MTM, (16,), seed=1, player_counts=[2, 3]))
    for extra, message in [
        (["--init-network", str(wide)], "hidden sizes [32] (this run: [16])"),
        (["--init-network", str(three)], "player counts [2, 3] (this run: [2])"),
        (["--init-network", str(tmp_path / "none.npz")], "--init-network"),
        (["--init-network", str(path), "--branch-from", str(fresh)], "give one"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            main(["--out-dir", str(tmp_path / "c"), *TINY, *extra])
        assert exit_info.value.code == 2 and message in capsys.readouterr().err
        assert not (tmp_path / "c").exists()


def test_evaluations_search_with_the_runs_rollout_weight(tmp_path, monkeypatch):
    """A run trained with ``--rollout-weight`` is evaluated with it: the evaluation's search (and
    the previous network's) gets the run's rollout weight. Before this, evaluations searched with
    none, and a Monster Arena run whose network plays with rollouts scored 0.37 against greedy in
    its evaluation where the same network scores 0.77 as it plays."""
    from monster_zoo.training.az import evaluation
    from monster_zoo.training.learner_eval import WinRate

    made = []

    class Recorded(AZAgent):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self.settings.rollout_weight)

    monkeypatch.setattr(evaluation, "AZAgent", Recorded)
    monkeypatch.setattr(evaluation, "evaluate_against", lambda *args, **kwargs: WinRate("x", 2, 1, 0))
    network = random_network(MTM, (8,), seed=1, player_counts=[2], name="n")
    evaluation.evaluate(network, network, ["greedy", "previous"], [2], 2, 4, 0, rollout_weight=0.5)
    assert made == [0.5, 0.5]
    made.clear()
    train(tmp_path / "run", "--rounds", "1", "--rollout-weight", "0.25")
    assert made and set(made) == {0.25}
