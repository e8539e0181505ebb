"""The self-play trainer end to end: a subprocess smoke run with a tiny budget, and the slow
check that a short training run beats random play."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from monster_zoo.training.ppo.trainer import build_parser
from monster_zoo.training.run_start import parse_mix, parse_options, progress_bar

ROOT = Path(__file__).resolve().parents[1]


def train(tmp_path, *extra, timeout=600):
    """Run ``python -m monster_zoo.training train`` in a subprocess; return the run folder."""
    cmd = [
        sys.executable,
        "-m",
        "monster_zoo.training",
        "train",
        "--out-dir",
        str(tmp_path),
        "--no-progress",
        "--option",
        "num_players=2",
        *extra,
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    (run_dir,) = tmp_path.iterdir()
    return run_dir, done.stdout


def test_train_smoke_run_writes_logs_checkpoints_model_and_plot(tmp_path):
    run_dir, out = train(
        tmp_path,
        "--total-timesteps",
        "512",
        "--num-envs",
        "8",
        "--num-steps",
        "16",
        "--batch-size",
        "64",
        "--update-epochs",
        "1",
        "--snapshot-every",
        "1",
        "--eval-every",
        "256",
        "--eval-games",
        "4",
        "--checkpoint-every",
        "256",
        "--seed",
        "3",
        "--opponents",
        "random:0.2,greedy:0.2,champion:0.2,snapshots:0.4",
        "--warm-start",
        "greedy",
        "--warm-start-samples",
        "500",
        "--warm-start-epochs",
        "1",
    )
    game, exp, seed, stamp = run_dir.name.split("__")
    assert (game, exp, seed) == ("marry_the_monster-v0", "selfplay_ppo", "3") and stamp.isdigit()
    with open(run_dir / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    metrics = {r["metric"] for r in rows}
    assert {
        "charts/SPS",
        "eval/winrate_vs_random",
        "eval/winrate_vs_greedy",
        "train/pool_size",
        "warmstart/held_out_agreement",
    } <= metrics
    assert "warm start: cloned 500 greedy decisions" in out
    assert all(0.0 <= float(r["value"]) <= 1.0 for r in rows if r["metric"].startswith("eval/"))
    assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == [
        "step_256.npz",
        "step_256.zip",
        "step_512.npz",
        "step_512.zip",
    ]
    assert (run_dir / "final_model.zip").is_file() and (run_dir / "curves.png").stat().st_size > 1000
    # Beside each zip, a policy file that knows its game and plays without unpickling anything.
    from monster_zoo.agents import make_agent
    from monster_zoo.agents.ppo.policy_file import read_policy

    final = read_policy(run_dir / "final_model.npz").metadata
    assert final["game"] == "marry_the_monster-v0" and final["options"]["num_players"] == 2
    assert final["name"] == "selfplay_ppo-s3" and final["training"]["timesteps"] == 512
    assert final["architecture"] == {"type": "mlp", "hidden_sizes": [256, 256], "activation": "tanh"}
    assert read_policy(run_dir / "checkpoints" / "step_256.npz").name == "selfplay_ppo-s3@256"
    assert (
        make_agent(
            f"ppo:{run_dir / 'final_model.npz'}", "marry_the_monster-v0", options={"num_players": 2}
        ).name
        == "selfplay_ppo-s3"
    )
    assert f"ppo:{run_dir / 'final_model.npz'}" in out
    assert list(run_dir.glob("events.out.tfevents.*")), "no TensorBoard log"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["timesteps"] == 512 and summary["winrate_vs_random"]["games"] == 4
    assert "win rate" in out and "vs greedy" in out
    assert json.loads((run_dir / "args.json").read_text())["torch_threads"] == 1  # the default


def test_train_help_and_bad_arguments():
    helped = subprocess.run(
        [sys.executable, "-m", "monster_zoo.training", "train", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert helped.returncode == 0 and "--total-timesteps" in helped.stdout and "--opponents" in helped.stdout
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "monster_zoo.training",
            "train",
            "--opponents",
            "nobody:1",
            "--total-timesteps",
            "64",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "unknown agent 'nobody'" in bad.stderr and "valid names" in bad.stderr
    for extra, message in (
        (["--warm-start", "random"], "must be a baseline that reads the engine state"),
        (["--warm-start-samples", "5"], "--warm-start-samples"),
    ):
        bad = subprocess.run(
            [
                sys.executable,
                "-m",
                "monster_zoo.training",
                "train",
                "--total-timesteps",
                "64",
                "--out-dir",
                str(ROOT / "no-such-run-dir"),
                *extra,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr[-500:]
    assert not (ROOT / "no-such-run-dir").exists()


def test_init_from_continues_an_earlier_run_and_refuses_what_does_not_fit(tmp_path):
    """``--init-from`` starts from an earlier run's weights (with a vanishing learning rate the new
    run's policy is the old one); another player count, another network or a warm start as well
    are refused with exit code 2, leaving no run folder behind."""
    import numpy as np

    from monster_zoo.agents.ppo.policy_file import read_policy

    tiny = [
        "--num-envs",
        "8",
        "--num-steps",
        "16",
        "--batch-size",
        "64",
        "--update-epochs",
        "1",
        "--eval-every",
        "0",
        "--eval-games",
        "2",
        "--checkpoint-every",
        "0",
        "--no-plot",
        "--net-arch",
        "32",
    ]
    first, _ = train(tmp_path / "a", "--total-timesteps", "256", "--seed", "1", *tiny)
    source = first / "final_model.zip"
    second, out = train(
        tmp_path / "b",
        "--total-timesteps",
        "128",
        "--seed",
        "2",
        "--learning-rate",
        "1e-12",
        "--init-from",
        str(source),
        *tiny,
    )
    assert f"initialised from {source}" in out
    for (w, b, _), (w0, b0, _) in zip(
        read_policy(second / "final_model.npz").layers, read_policy(first / "final_model.npz").layers
    ):
        assert np.allclose(w, w0, atol=1e-6) and np.allclose(b, b0, atol=1e-6)
    broken = first / "broken.zip"
    broken.write_bytes(b"not a zip")
    for extra, message in (
        (["--option", "num_players=3"], "differs in num_players"),
        (["--net-arch", "16"], "does not fit this run's networks"),
        (["--warm-start", "greedy"], "--init-from and --warm-start"),
        (["--policy", "placement"], "has none"),
        (["--init-from", str(broken)], "is not a readable SB3 zip"),
    ):
        out_dir = tmp_path / "refused"
        bad = subprocess.run(
            [
                sys.executable,
                "-m",
                "monster_zoo.training",
                "train",
                "--out-dir",
                str(out_dir),
                "--total-timesteps",
                "64",
                "--option",
                "num_players=2",
                "--init-from",
                str(source),
                *tiny,
                *extra,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr[-500:]
        assert not out_dir.exists() or not list(out_dir.iterdir())


def test_argument_block_and_opponent_mix_parsing():
    args = build_parser().parse_args(["--num-envs", "4", "--no-progress", "--option", "num_players=3"])
    assert args.num_envs == 4 and args.progress is False and args.option == ["num_players=3"]
    assert parse_mix("random:0.25,snapshots:0.75") == {"random": 0.25, "snapshots": 0.75}
    for bad in ("random", "random:-1", "random:0"):
        with pytest.raises(ValueError):
            parse_mix(bad)
    assert parse_options(["num_players=3", "kings_rules=True", "species=red,blue"]) == {
        "num_players": 3,
        "kings_rules": True,
        "species": "red,blue",
    }
    with pytest.raises(ValueError, match="not of the form"):
        parse_options(["num_players"])


def test_torch_runs_on_one_thread_by_default():
    """One torch thread unless asked: the default network gains nothing from more, and on a shared
    machine more threads stall (benchmarks/torch_threads.py); 0 still means torch's own default."""
    assert build_parser().parse_args([]).torch_threads == 1
    assert build_parser().parse_args(["--torch-threads", "0"]).torch_threads == 0


def rate_before_and_after_a_slow_rollout(bar):
    """Twenty rollouts of 4096 steps a second, then one of ten seconds, on a fake clock: the bar's
    rate before and after the slow one."""
    now = [bar.start_t]
    bar._time = lambda: now[0]  # the test times nothing
    for _ in range(20):
        now[0] += 1.0
        bar.update(4096)
    steady = bar.format_dict["rate"]
    now[0] += 10.0
    bar.update(4096)
    after = bar.format_dict["rate"]
    bar.close()
    return steady, after


def test_progress_rate_holds_through_one_slow_rollout():
    """The bar's rate (and so its ETA) is smoothed over rollouts: one rollout ten times slower than
    the rest (an evaluation, a busy spell) leaves it above half, where tqdm's default smoothing
    cuts it to about a quarter."""
    from tqdm import tqdm

    steady, after = rate_before_and_after_a_slow_rollout(progress_bar(10**6, "test", enabled=True))
    assert steady == pytest.approx(4096) and after > steady / 2
    steady, after = rate_before_and_after_a_slow_rollout(tqdm(total=10**6))
    assert steady == pytest.approx(4096) and after < steady / 3


@pytest.mark.slow
def test_short_training_beats_random(tmp_path):
    run_dir, _ = train(
        tmp_path,
        "--total-timesteps",
        "150000",
        "--opponents",
        "random:0.5,snapshots:0.5",
        "--eval-every",
        "0",
        "--eval-games",
        "200",
        "--no-plot",
        timeout=1800,
    )
    summary = json.loads((run_dir / "summary.json").read_text())
    low, _ = summary["winrate_vs_random"]["interval"]
    assert low > 0.6, summary
