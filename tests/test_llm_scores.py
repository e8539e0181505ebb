"""Scores that mean the model (llm/scoring.py, cli/evaluate.py's llm: fields): the illegal-move
policy is named in every result, a game the model cannot finish with its own moves is its loss under
``forfeit``, each row gives the legal-move rate and the endpoint failures, the tables are written
as markdown and JSON, and the model is rated among the baselines on the tournaments' scale."""

import json

import pytest

from monster_zoo.agents.llm import LlmSettings
from monster_zoo.agents.llm.agent import LlmAgent
from monster_zoo.cli.main import main
from monster_zoo.envs.core.records import read_record
from monster_zoo.evaluation.tournament import run_tournament
from monster_zoo.llm.scoring import score_model
from monster_zoo.llm.scripted_server import ScriptedServer, first_legal, stubborn

NEVER = stubborn("I pass.", 99)  # a model that never names a legal move


def scored(script, game="monster_arena-v0", baselines=("random",), games=4, **settings):
    with ScriptedServer(script) as server:
        agent = LlmAgent(game, "m", LlmSettings(base_url=server.base_url, **settings), seed=0)
        return score_model(game, agent, list(baselines), games, 0, {"num_players": 2})


def test_a_model_that_never_names_a_legal_move_loses_every_game_under_forfeit():
    """Scored on a fallback's random moves, such a model can win every game against random in
    Monster Arena; under forfeit each game is its loss."""
    score = scored(NEVER)
    row = score.to_json()["rows"][0]
    assert (row["wins"], row["losses"], row["games_forfeited"]) == (0, 4, 4)
    assert row["win_rate"] == 0 and row["win_rate_high"] < 0.5 and row["legal_move_rate"] == 0
    assert score.to_json()["illegal_policy"] == "forfeit"
    assert "illegal-move policy: forfeit after 3 refused answers" in score.markdown()
    assert "| random | 0.000 [0.000, " in score.markdown()


def test_under_fallback_the_result_says_the_fallback_played():
    score = scored(NEVER, illegal_policy="fallback", retries=0)
    row = score.to_json()["rows"][0]
    assert score.to_json()["illegal_policy"] == "fallback" and row["games_forfeited"] == 0
    assert row["fallbacks"] == row["moves"] > 0 and row["legal_move_rate"] == 0
    assert "fallback after 1 refused answers (a random legal move was played" in score.markdown()


def test_a_model_with_legal_moves_keeps_its_own_results_and_rates_among_the_baselines():
    score = scored(first_legal, game="monster_factory-v0", baselines=("random", "greedy"), games=2)
    rows = score.to_json()["rows"]
    assert all(r["legal_move_rate"] == 1 and r["games_forfeited"] == 0 for r in rows)
    assert all(r["endpoint_failures"] == 0 for r in rows)
    ratings = score.ratings
    assert set(ratings) == {"llm:m", "random", "greedy"}
    # each baseline: its games against the model and its round robin game series against the other
    assert ratings["llm:m"]["games"] == 4 and ratings["random"]["games"] == ratings["greedy"]["games"] == 4
    # the scale of every tournament: a round robin of the baselines alone starts from the same prior
    alone = run_tournament(
        "monster_factory-v0", ["random", "greedy"], 2, 0, {"num_players": 2}, progress=False
    )
    prior = 25.0
    assert all(abs(r["mu"] - prior) < 10 for r in alone.ratings.values())
    assert all(abs(r["ordinal"] - (r["mu"] - 3 * r["sigma"])) < 1e-9 for r in ratings.values())


def test_a_model_that_never_names_a_legal_move_is_rated_below_every_baseline():
    score = scored(NEVER, game="monster_factory-v0", baselines=("random", "greedy"), games=2)
    order = sorted(score.ratings, key=lambda name: -score.ratings[name]["ordinal"])
    assert order[-1] == "llm:m"


def evaluate(server, *more):
    return main(
        [
            "evaluate",
            "--game",
            "monster_factory-v0",
            "--option",
            "num_players=2",
            "--games",
            "2",
            "--agents",
            "llm:scripted",
            "random",
            "--base-url",
            server.base_url,
            "--no-progress",
            *more,
        ]
    )


def test_evaluate_writes_the_model_tables_as_markdown_and_json_and_its_records(tmp_path, capsys):
    """``evaluate --out`` writes llm_scores.md and .json, ``--save-records`` the model's games, and
    an existing output is refused."""
    out, records = tmp_path / "out", tmp_path / "records"
    with ScriptedServer(first_legal) as server:
        assert evaluate(server, "--out", str(out), "--save-records", str(records), "--timeout", "5") == 0
    data = json.loads((out / "llm_scores.json").read_text())
    assert [s["model"] for s in data] == ["llm:scripted"] and data[0]["illegal_policy"] == "forfeit"
    assert {"legal_move_rate", "endpoint_failures", "win_rate_low", "games_forfeited"} <= set(
        data[0]["rows"][0]
    )
    assert "illegal-move policy: forfeit" in (out / "llm_scores.md").read_text()
    saved = sorted(records.glob("game_*.json"))
    assert len(saved) == 2 and "llm:scripted" in read_record(saved[0])["agents"]
    capsys.readouterr()
    with ScriptedServer(first_legal) as server:
        with pytest.raises(SystemExit):
            evaluate(server, "--out", str(out))
    assert "already exists" in capsys.readouterr().err


def test_evaluate_keeps_the_games_of_a_stopped_run_and_resumes_it(tmp_path, capsys, monkeypatch):
    from monster_zoo.agents.llm import backoff

    monkeypatch.setattr(backoff, "pause", lambda seconds: None)
    results = tmp_path / "run.jsonl"
    with ScriptedServer(faults=lambda number: "500" if number > 24 else None) as down:
        assert evaluate(down, "--results", str(results), "--endpoint-tries", "2") == 1
    err = capsys.readouterr().err
    assert "the run stopped: no answer after 2 tries" in err and "--resume" in err
    kept = len(results.read_text().splitlines()) - 1
    assert 0 < kept < 2
    with ScriptedServer(faults=lambda number: "stall" if number == 1 else None) as slow:
        assert evaluate(slow, "--results", str(results), "--resume", "--timeout", "2") == 0
    out = capsys.readouterr().out
    assert f"Games read back from the results file: {kept} of 2." in out
    assert "| random | " in out and len(results.read_text().splitlines()) == 3
    assert slow.failed == ["stall"]
