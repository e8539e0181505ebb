"""The tournament (pairings, counts, intervals, ratings, files) and the plots drawn from results."""

import json

import numpy as np
import pytest

pytest.importorskip("openskill", reason="the tournament rates with openskill")

from monster_zoo.evaluation import plots
from monster_zoo.evaluation.match import wilson_interval
from monster_zoo.evaluation.tournament import pairings_to_play, rate_games, run_tournament, seat_ranks

GAME = "marry_the_monster-v0"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def without_timing(data: dict) -> dict:
    """Results JSON minus the wall-clock time, which differs between identical runs."""
    return {k: v for k, v in data.items() if k != "elapsed_s"}


@pytest.fixture(scope="module")
def two_player():
    """greedy vs random, two players, 5 games asked (6 played so both seats are even)."""
    return run_tournament(
        GAME, ["greedy", "random"], games=5, seed=2, options={"num_players": 2}, progress=False
    )


def test_two_player_pairing_counts_and_intervals(two_player):
    result = two_player
    assert result.num_players == 2 and result.games_per_pairing == 6
    forward, backward = result.pairings["greedy", "random"], result.pairings["random", "greedy"]
    assert forward.games == backward.games == 6
    assert (forward.wins, forward.draws, forward.losses) == (backward.losses, backward.draws, backward.wins)
    summary = forward.summary()
    assert summary["win_rate"] == forward.wins / 6
    assert (summary["win_rate_low"], summary["win_rate_high"]) == wilson_interval(forward.wins, 6)
    # one set of games serves both cells; each deal is played once from each seat
    assert len(result.records) == 6
    seats_by_deal = {}
    for record in result.records:
        seats_by_deal.setdefault(record["seed"], []).append(record["seat_agents"].index("greedy"))
    assert seats_by_deal == {2: [0, 1], 3: [0, 1], 4: [0, 1]}


def test_tournament_is_deterministic_given_the_seed(two_player):
    again = run_tournament(
        GAME, ["greedy", "random"], games=5, seed=2, options={"num_players": 2}, progress=False
    )
    assert without_timing(again.to_json()) == without_timing(two_player.to_json())


def test_three_player_pairings_put_one_agent_against_the_rest():
    result = run_tournament(GAME, ["random", "greedy"], games=3, seed=0, progress=False)
    assert result.num_players == 3  # the game's default
    assert pairings_to_play(["random", "greedy"], 3) == [("random", "greedy"), ("greedy", "random")]
    assert len(result.records) == 6
    for record in result.records:
        lone, other = record["pairing"]
        assert sorted(record["seat_agents"]) == sorted([lone, other, other])
    # each pairing plays the same deals: seeds are paired across pairings too
    deals = [
        [r["seed"] for r in result.records if r["pairing"] == list(p)]
        for p in pairings_to_play(result.field, 3)
    ]
    assert deals[0] == deals[1] == [0, 0, 0]
    assert {(p.agent, p.opponent, p.games) for p in result.pairings.values()} == {
        ("random", "greedy", 3),
        ("greedy", "random", 3),
    }
    assert result.ratings["greedy"]["games"] == result.ratings["random"]["games"] == 6
    assert "all 2 other seats" in result.markdown()


def test_tournament_refuses_a_bad_field():
    with pytest.raises(ValueError, match="two distinct"):
        run_tournament(GAME, ["random", "random"], games=2, progress=False)
    with pytest.raises(ValueError, match="valid names"):
        run_tournament(GAME, ["random", "nobody"], games=2, progress=False)
    with pytest.raises(TypeError, match="unknown option"):
        run_tournament(GAME, ["random", "greedy"], games=2, options={"colour": 1}, progress=False)


def test_seat_ranks_share_ties():
    assert seat_ranks([1.0, -0.5, -0.5]) == [1, 2, 2]
    assert seat_ranks([0.0, 0.0]) == [1, 1]
    assert seat_ranks([3.0, 5.0, 3.0, -1.0]) == [2, 1, 2, 4]


def test_ratings_reward_the_winner_and_average_repeated_seats():
    records = [{"seat_agents": ["a", "b", "b"], "rewards": [1.0, -0.5, -0.5]}] * 5
    ratings = rate_games(records, ["a", "b"])
    assert ratings["a"]["mu"] > 25 > ratings["b"]["mu"]
    assert ratings["a"]["ordinal"] == pytest.approx(ratings["a"]["mu"] - 3 * ratings["a"]["sigma"])
    assert ratings["a"]["games"] == ratings["b"]["games"] == 5
    assert rate_games(records, ["a", "b"]) == ratings  # no hidden randomness
    draws = rate_games([{"seat_agents": ["a", "b"], "rewards": [0.0, 0.0]}], ["a", "b"])
    assert draws["a"]["mu"] == pytest.approx(draws["b"]["mu"])


def test_greedy_rates_above_random():
    result = run_tournament(
        GAME, ["random", "greedy"], games=40, seed=5, options={"num_players": 2}, progress=False
    )
    assert result.ranking() == ["greedy", "random"]
    assert result.ratings["greedy"]["ordinal"] > result.ratings["random"]["ordinal"]
    assert result.pairings["greedy", "random"].summary()["win_rate_low"] > 0.8


def test_results_are_written_as_markdown_json_and_png(two_player, tmp_path):
    paths = two_player.write(tmp_path / "out")
    text = paths["markdown"].read_text()
    assert "| row vs column | greedy | random |" in text and "| rank | agent | mu | sigma | ordinal |" in text
    data = json.loads(paths["json"].read_text())
    assert data["field"] == ["greedy", "random"] and len(data["pairings"]) == 2
    assert len(data["records"]) == 6 and data["options"]["num_players"] == 2
    png = plots.plot_win_matrix(data, tmp_path / "out" / "win_rates.png")
    assert png.read_bytes()[:8] == PNG_MAGIC


# --- learning curves ----------------------------------------------------------------
def write_run(root, name, rows):
    """A run folder holding ``metrics.csv`` with ``rows`` of (step, metric, value)."""
    run = root / name
    run.mkdir(parents=True)
    lines = ["step,wall_time,metric,value"] + [f"{s},{s / 100:.2f},{m},{v}" for s, m, v in rows]
    (run / "metrics.csv").write_text("\n".join(lines) + "\n")
    return run


@pytest.fixture
def seed_runs(tmp_path):
    """Three seeds of one experiment and one other run.

    The seeds evaluate at slightly different steps; their win rates are linear in the
    step, so interpolating them between steps is exact.
    """
    runs = []
    for seed, offset in ((1, 0), (2, 10), (3, 20)):
        rows = []
        for k in range(5):
            step = 1000 * k + offset
            rows += [
                (step, "charts/SPS", 900.0),
                (step, "eval/winrate_vs_random", step / 10000 + 0.01 * seed),
                (step, "eval/winrate_vs_greedy", 0.05 * k),
                (step, "rollout/ep_rew_mean", -0.2),
            ]
        runs.append(write_run(tmp_path, f"{GAME}__ppo__{seed}__170000000{seed}", rows))
    runs.append(
        write_run(
            tmp_path, "baseline", [(0, "eval/winrate_vs_random", 0.5), (4000, "eval/winrate_vs_random", 0.6)]
        )
    )
    return runs


def test_metrics_are_read_per_metric_sorted_by_step(tmp_path):
    run = write_run(
        tmp_path,
        "r",
        [
            (200, "eval/winrate_vs_random", 0.4),
            (100, "eval/winrate_vs_random", 0.3),
            (100, "charts/SPS", 50.0),
        ],
    )
    curves = plots.read_metrics(run)
    steps, values = curves["eval/winrate_vs_random"]
    assert steps.tolist() == [100, 200] and values.tolist() == [0.3, 0.4]
    assert set(curves) == {"eval/winrate_vs_random", "charts/SPS"}
    assert plots.read_metrics(run / "metrics.csv").keys() == curves.keys()


def test_runs_group_by_experiment_and_band_over_seeds(seed_runs):
    assert plots.experiment_of(f"{GAME}__ppo__3__1700000003") == f"{GAME}__ppo"
    assert plots.experiment_of("baseline") == "baseline"
    curves = [plots.read_metrics(r)["eval/winrate_vs_random"] for r in seed_runs[:3]]
    grid, mean, std = plots.seed_band(curves)
    assert grid[0] == 20 and grid[-1] == 4000  # only where every seed has data
    at_4000 = [0.4 + 0.01 * seed for seed in (1, 2, 3)]
    assert mean[-1] == pytest.approx(np.mean(at_4000)) and std[-1] == pytest.approx(np.std(at_4000))


def test_learning_curves_png(seed_runs, tmp_path):
    png = plots.plot_learning_curves(seed_runs, tmp_path / "curves" / "learning_curves.png")
    assert png.read_bytes()[:8] == PNG_MAGIC
    with pytest.raises(ValueError, match="no eval/winrate_"):
        plots.plot_learning_curves(
            [write_run(tmp_path, "sps_only", [(0, "charts/SPS", 1.0)])], tmp_path / "none.png"
        )


def test_the_games_bar_shows_a_slow_game_after_many_quick_ones(capsys):
    import time

    pytest.importorskip("tqdm")
    from monster_zoo.evaluation.match import progress_bar

    bar = progress_bar(1000, "table")
    for _ in range(60):  # quick pairings: tqdm's dynamic miniters would grow past 1 here
        bar.update()
        time.sleep(0.01)
    for _ in range(3):  # then slow games, each past tqdm's minimum interval
        time.sleep(0.2)
        bar.update()
    shown = capsys.readouterr().err
    bar.close()
    assert "61/1000" in shown and "63/1000" in shown
