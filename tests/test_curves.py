"""The demo's learning curves and progress bar: one point per evaluation, lines visible at 0
and 1, 95% intervals shaded, titles in words, and a bar that ends at its total."""

import csv
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from monster_zoo.evaluation import plots

ROOT = Path(__file__).resolve().parents[1]
GAME = "marry_the_monster-v0"


def write_run(root: Path, name: str, rows) -> Path:
    run = root / name
    run.mkdir()
    lines = ["step,wall_time,metric,value"] + [f"{s},0.0,{m},{v}" for s, m, v in rows]
    (run / "metrics.csv").write_text("\n".join(lines) + "\n")
    return run


def evaluations(steps, rates, opponent="random", half=0.1):
    """Rows of win rates with their interval bounds, as the trainer logs them."""
    rows = []
    for s, r in zip(steps, rates):
        metric = f"eval/winrate_vs_{opponent}"
        rows += [
            (s, metric, r),
            (s, metric + "_low95", max(0.0, r - half)),
            (s, metric + "_high95", min(1.0, r + half)),
        ]
    return rows


def test_a_step_logged_twice_is_read_once_with_its_last_value(tmp_path):
    run = write_run(
        tmp_path,
        "r",
        [
            (100, "eval/winrate_vs_random", 0.2),
            (200, "eval/winrate_vs_random", 0.4),
            (200, "eval/winrate_vs_random", 0.5),
        ],
    )
    steps, values = plots.read_metrics(run)["eval/winrate_vs_random"]
    assert steps.tolist() == [100, 200] and values.tolist() == [0.2, 0.5]


def test_single_run_curves_show_their_intervals_with_room_at_0_and_1(tmp_path):
    run = write_run(
        tmp_path,
        f"{GAME}__demo__0__1",
        evaluations([0, 100, 200], [0.0, 0.6, 1.0])
        + evaluations([0, 100, 200], [0.0, 0.1, 0.3], opponent="greedy"),
    )
    figure = plots.learning_curves_figure([run])
    panels = figure.axes
    assert [a.get_title() for a in panels] == ["Win rate against greedy", "Win rate against random"]
    for axes in panels:
        low, high = axes.get_ylim()
        assert low < 0.0 and high > 1.0, "a line at 0 or 1 would sit on the frame"
        assert len(axes.collections) == 1, "the 95% interval is not shaded"
        assert "95% interval" in [t.get_text() for t in axes.get_legend().get_texts()]
    band = panels[1].collections[0].get_paths()[0].vertices
    assert band[:, 1].min() == pytest.approx(0.0) and band[:, 1].max() == pytest.approx(1.0)


def test_seed_runs_shade_the_95_interval_of_their_mean(tmp_path):
    runs = [
        write_run(tmp_path, f"{GAME}__demo__{seed}__1", evaluations([0, 100], [0.2 + 0.1 * seed, 0.5]))
        for seed in range(3)
    ]
    figure = plots.learning_curves_figure(runs)
    (axes,) = figure.axes
    band = axes.collections[0].get_paths()[0].vertices[:, 1]
    rates = np.array([0.2, 0.3, 0.4])
    half = plots.t95(2) * rates.std(ddof=1) / np.sqrt(3)
    assert band.max() == pytest.approx(rates.mean() + half) and band.min() == pytest.approx(
        rates.mean() - half
    )
    assert "mean of 3 seeds" in axes.get_legend().get_texts()[0].get_text()


def test_t95_matches_the_table_values():
    for degrees, quantile in {
        1: 12.706,
        2: 4.303,
        3: 3.182,
        5: 2.571,
        10: 2.228,
        30: 2.042,
        1000: 1.962,
    }.items():
        assert plots.t95(degrees) == pytest.approx(quantile, abs=0.02)


def test_other_metrics_get_titles_in_words():
    assert plots.metric_title("charts/SPS") == "Training speed (learner steps per second)"
    assert plots.metric_title("eval/winrate_vs_mcts") == "Win rate against mcts"
    assert plots.metric_title("eval/winrate_net_vs_greedy") == "Network alone: win rate against greedy"


def test_training_bar_ends_at_its_total_and_the_last_evaluation_is_logged_once(tmp_path):
    pytest.importorskip("sb3_contrib")
    # 8 games x 16 steps per rollout: SB3 stops at 384 for a budget of 300, which the last
    # scheduled evaluation (every 128 steps) already covered
    cmd = [
        sys.executable,
        "-m",
        "monster_zoo.training",
        "train",
        "--out-dir",
        str(tmp_path),
        "--option",
        "num_players=2",
        "--total-timesteps",
        "300",
        "--num-envs",
        "8",
        "--num-steps",
        "16",
        "--batch-size",
        "64",
        "--update-epochs",
        "1",
        "--eval-every",
        "128",
        "--eval-games",
        "4",
        "--checkpoint-every",
        "0",
        "--no-plot",
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "300/300" in done.stderr and "384/300" not in done.stderr
    (run_dir,) = tmp_path.iterdir()
    with open(run_dir / "metrics.csv") as f:
        rows = [(r["metric"], r["step"]) for r in csv.DictReader(f) if r["metric"].startswith("eval/")]
    assert max(Counter(rows).values()) == 1, "an evaluation was logged twice at one step"
    steps = sorted({int(s) for m, s in rows if m == "eval/winrate_vs_random"})
    assert steps == [128, 256, 384]
    assert {m for m, _ in rows} >= {"eval/winrate_vs_random_low95", "eval/winrate_vs_random_high95"}
