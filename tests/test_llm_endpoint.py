"""A harness that survives its endpoint (agents/llm/chat.py, agents/llm/backoff.py, llm/results.py):
endpoint failures are sent again after a backoff and counted apart from the model's retries, a run
keeps every finished game in its results file and ``--resume`` continues it. The endpoint is the
scripted stand-in with failures injected on a schedule; no test sleeps: the backoff's clock is
replaced by a list of the waits it asked for."""

import json
import socket
from datetime import datetime, timezone
from email.utils import format_datetime

import pytest

from monster_zoo.agents.llm import LlmSettings
from monster_zoo.agents.llm import backoff as backoff_module
from monster_zoo.agents.llm.agent import LlmAgent
from monster_zoo.agents.llm.backoff import Backoff
from monster_zoo.agents.llm.chat import ChatError, retry_after_s
from monster_zoo.llm.results import ResultsError, ResultsFile, read_results
from monster_zoo.llm.scoring import run_settings, score_model
from monster_zoo.llm.scripted_server import FAULTS, ScriptedServer, every, on_requests

GAME = "monster_factory-v0"
OPTIONS = {"num_players": 2}


@pytest.fixture
def waits(monkeypatch):
    """The seconds every backoff waits, recorded instead of slept."""
    seen = []
    monkeypatch.setattr(backoff_module, "pause", seen.append)
    return seen


# Long enough that a steady answer never times out on a loaded machine; a stalled request is held
# for STALL_S, past it.
TIMEOUT_S = 2.0


def agent_at(server, **settings):
    settings = {"timeout_s": TIMEOUT_S, **settings}
    return LlmAgent(GAME, "flaky", LlmSettings(base_url=server.base_url, **settings), seed=0)


def table(score):
    """What a score says of the model, endpoint failures and latencies left out."""
    rows = score.to_json()["rows"]
    drop = {"endpoint_failures", "latency_s_median"}
    return [{k: v for k, v in row.items() if k not in drop} for row in rows], score.ratings


@pytest.mark.parametrize("fault", FAULTS)
def test_each_endpoint_failure_is_sent_again_and_counted_apart_from_the_model(fault, waits):
    """A 500, 503, 429, a body that is not JSON, an oversized body, a dropped connection and a
    stall past the timeout are each sent again, counted as endpoint failures (never as the
    model's retries), and the game is the one a steady endpoint gives."""
    with ScriptedServer() as steady:
        clean = score_model(GAME, agent_at(steady), ["random"], 2, 0, OPTIONS, rate=False)
    with ScriptedServer(faults=on_requests({2: fault, 5: fault, 6: fault})) as flaky:
        agent = agent_at(flaky)
        score = score_model(GAME, agent, ["random"], 2, 0, OPTIONS, rate=False)
    assert flaky.failed == [fault] * 3
    assert agent.usage.endpoint_failures == 3 and agent.usage.retries == 0
    assert score.usage("random")["endpoint_failures"] == 3 and score.usage("random")["retry_rate"] == 0
    assert table(score) == table(clean)
    assert len(waits) == 3
    if fault == "503":
        assert waits == [1.0] * 3  # the server's Retry-After
    elif fault == "429":
        assert waits == [2.0] * 3
    else:  # full jitter: the first wait in [0, 1 s], the second in a row in [0, 2 s]
        assert 0 <= waits[0] <= 1 and 0 <= waits[1] <= 1 and 0 <= waits[2] <= 2


def test_backoff_doubles_to_its_cap_with_jitter_and_honours_retry_after_up_to_the_cap():
    backoff = Backoff(failures=10, base_s=1.0, cap_s=8.0, seed=3)
    for failure in range(1, 10):
        bound = min(8.0, 2.0 ** (failure - 1))
        draws = [backoff.delay(failure) for _ in range(200)]
        assert all(0 <= d <= bound for d in draws) and max(draws) > 0.8 * bound
    assert backoff.delay(1, retry_after=5.0) == 5.0 and backoff.delay(1, retry_after=500.0) == 8.0
    same = Backoff(failures=10, base_s=1.0, cap_s=8.0, seed=3)
    again = Backoff(failures=10, base_s=1.0, cap_s=8.0, seed=3)
    assert [same.delay(k) for k in range(1, 6)] == [again.delay(k) for k in range(1, 6)]
    with pytest.raises(ValueError, match="0 <= base"):
        Backoff(base_s=5.0, cap_s=1.0)


def test_retry_after_is_read_as_seconds_or_an_http_date():
    assert retry_after_s("7") == 7.0 and retry_after_s(" 0 ") == 0.0 and retry_after_s("-3") == 0.0
    later = datetime(2030, 1, 1, 0, 0, 30, tzinfo=timezone.utc)
    now = datetime(2030, 1, 1, tzinfo=timezone.utc).timestamp()
    assert retry_after_s(format_datetime(later, usegmt=True), now=now) == 30.0
    assert retry_after_s(None) is None and retry_after_s("soon") is None


def test_a_streak_of_failures_stops_the_run_naming_the_tries_and_the_last_failure(waits):
    with ScriptedServer(faults=lambda number: "500" if number > 3 else None) as down:
        agent = agent_at(down, endpoint_tries=4)
        with pytest.raises(ChatError, match="no answer after 4 tries.*HTTP 500"):
            score_model(GAME, agent, ["random"], 2, 0, OPTIONS, rate=False)
    assert agent.usage.endpoint_failures == 4 and agent.usage.retries == 0 and len(waits) == 3


def test_a_request_the_endpoint_refuses_for_good_is_not_sent_again(waits):
    """A wrong URL (HTTP 404) will not pass by waiting: one try, no wait."""
    with ScriptedServer() as server:
        settings = LlmSettings(base_url=server.base_url.replace("/v1", "/nothing"), timeout_s=1)
        agent = LlmAgent(GAME, "m", settings)
        with pytest.raises(ChatError, match="HTTP 404"):
            score_model(GAME, agent, ["random"], 2, 0, OPTIONS, rate=False)
    assert server.attempts == 0 and waits == [] and agent.usage.endpoint_failures == 1


def test_a_refused_connection_is_an_endpoint_failure(waits):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = LlmSettings(base_url=f"http://127.0.0.1:{port}/v1", endpoint_tries=3)
    agent = LlmAgent(GAME, "m", settings)
    with pytest.raises(ChatError, match="no answer after 3 tries.*cannot reach"):
        score_model(GAME, agent, ["random"], 2, 0, OPTIONS, rate=False)
    assert agent.usage.endpoint_failures == 3 and len(waits) == 2


def run_file(path, settings, resume=False, overwrite=False):
    described = run_settings(GAME, ["llm:flaky"], ["random", "greedy"], 2, 0, OPTIONS, settings)
    if resume:
        return ResultsFile.resume(path, described)
    return ResultsFile.start(path, described, overwrite)


def test_a_run_stopped_by_its_endpoint_keeps_its_games_and_resumes_to_the_full_table(tmp_path, waits):
    """The endpoint goes down for good mid-run: the finished games are in the file, whole; the run
    resumed against a flaky endpoint plays only the games it lacks and scores as a run that never
    stopped."""
    with ScriptedServer() as steady:
        settings = LlmSettings(base_url=steady.base_url, timeout_s=TIMEOUT_S)
        clean = score_model(GAME, LlmAgent(GAME, "flaky", settings), ["random", "greedy"], 2, 0, OPTIONS)
    path = tmp_path / "run.jsonl"
    with ScriptedServer(faults=lambda number: "503" if number > 40 else None) as down:
        settings = LlmSettings(base_url=down.base_url, timeout_s=TIMEOUT_S, endpoint_tries=3)
        results = run_file(path, settings)
        with pytest.raises(ChatError):
            score_model(GAME, LlmAgent(GAME, "flaky", settings), ["random", "greedy"], 2, 0, OPTIONS, results)
    _, kept, _ = read_results(path)
    order = [("random", 0), ("random", 1), ("greedy", 0), ("greedy", 1)]
    assert 0 < len(kept) < 4 and [(g["baseline"], g["game"]) for g in kept] == order[: len(kept)]
    assert all(line.endswith(b"\n") for line in path.read_bytes().splitlines(keepends=True))
    with ScriptedServer(faults=every(4, ["500", "not-json", "drop"])) as flaky:
        settings = LlmSettings(base_url=flaky.base_url, timeout_s=TIMEOUT_S, endpoint_tries=3)
        results = run_file(path, settings, resume=True)
        resumed = score_model(
            GAME, LlmAgent(GAME, "flaky", settings), ["random", "greedy"], 2, 0, OPTIONS, results
        )
    assert (
        resumed.resumed_games == len(kept)
        and f"Games read back from the results file: {len(kept)} of 4." in resumed.markdown()
    )
    assert table(resumed) == table(clean)
    assert sum(resumed.usage(b)["endpoint_failures"] for b in ("random", "greedy")) == len(flaky.failed) > 0
    assert len(read_results(path)[1]) == 4


def test_a_results_file_is_never_overwritten_nor_resumed_with_other_settings(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text("mine\n")
    settings = LlmSettings(base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ResultsError, match="already exists.*--overwrite.*--resume"):
        run_file(path, settings)
    assert path.read_text() == "mine\n"
    with pytest.raises(ResultsError, match="not a results file of this harness"):
        run_file(path, settings, resume=True)
    run_file(path, settings, overwrite=True)
    other = LlmSettings(base_url="http://127.0.0.1:9/v1", illegal_policy="fallback")
    with pytest.raises(ResultsError, match="illegal_policy: the file has 'forfeit', this run 'fallback'"):
        run_file(path, other, resume=True)
    # the address may change between runs: the same model elsewhere resumes
    assert run_file(path, LlmSettings(base_url="http://127.0.0.1:10/v1"), resume=True).games == []


def test_a_line_cut_short_by_a_stop_is_dropped_and_cut_away_on_resume(tmp_path):
    path = tmp_path / "run.jsonl"
    settings = LlmSettings(base_url="http://127.0.0.1:9/v1")
    results = run_file(path, settings)
    game = {"model": "llm:flaky", "baseline": "random", "game": 0}
    results.append(game)
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"model": "llm:flaky", "basel')
    resumed = run_file(path, settings, resume=True)
    assert resumed.games == [game] and path.read_bytes() == whole
    resumed.append({**game, "game": 1})
    assert [json.loads(line)["game"] for line in path.read_text().splitlines()[1:]] == [0, 1]


def test_the_progress_line_shows_each_moves_time_and_tokens(capsys):
    with ScriptedServer() as server:
        score_model(GAME, agent_at(server), ["random"], 2, 0, OPTIONS, progress=True, rate=False)
    err = capsys.readouterr().err
    assert "llm:flaky on monster_factory-v0" in err and " tokens, 1 tries" in err and "2/2" in err


def test_the_example_stops_with_its_endpoint_then_resumes_and_scores(tmp_path, waits, capsys):
    """``examples/language_model_harness.py`` against its flaky stand-in: the run stops when the
    stand-in goes down, keeping its finished games; the same command with ``--resume`` scores."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "language_model_harness.py"
    spec = importlib.util.spec_from_file_location("language_model_harness", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    results, out = tmp_path / "run.jsonl", tmp_path / "scores"
    common = ["--games", "2", "--baselines", "random", "--results", str(results), "--no-progress"]
    flaky = ["--stand-in-fail-every", "4"]
    assert example.main([*common, *flaky, "--stand-in-down-after", "30", "--endpoint-tries", "2"]) == 1
    assert "finished games kept in" in capsys.readouterr().err
    kept = len(results.read_text().splitlines()) - 1
    assert kept == 1
    assert example.main([*common, *flaky, "--resume", "--out", str(out)]) == 0
    scores = json.loads((out / "llm_scores.json").read_text())
    row = scores[0]["rows"][0]
    assert row["games"] == 2 and row["endpoint_failures"] > 0 and row["retry_rate"] == 0
    assert "Games read back from the results file: 1 of 2." in capsys.readouterr().out
    with pytest.raises(SystemExit):
        example.main(["--stand-in-fail-every", "1"])
    assert "--stand-in-fail-every must be at least 2" in capsys.readouterr().err
