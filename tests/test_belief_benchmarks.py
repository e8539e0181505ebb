"""The belief's two measurements run end to end and refuse bad arguments: what it knows against the
uniform redeal (``benchmarks/belief_knowledge.py``) and what it costs (``benchmarks/belief_cost.py``).
The figures of a run this small mean little; their presence and consistency are checked."""

import json

import pytest

from monster_zoo.benchmarks import belief_cost, belief_knowledge, belief_model


def test_the_knowledge_run_writes_a_header_a_line_per_game_and_opponent_and_a_picture(tmp_path):
    out, plots = tmp_path / "belief.jsonl", tmp_path / "plots"
    argv = ["--game-ids", "marry_the_monster-v0", "--opponents", "greedy,random", "--games", "1"]
    assert belief_knowledge.main([*argv, "--particles", "8", "--out", str(out), "--plots", str(plots)]) == 0
    header, *lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert (
        header["kind"] == "header" and "cpu" in header["host"] and {"git", "git_dirty", "time"} <= set(header)
    )
    assert [line["opponent"] for line in lines] == ["greedy", "random"]
    for line in lines:
        assert line["decisions"] > 0 and line["entries"] > 0 and line["settings"]["particles"] == 8
        assert line["belief_log_p"] <= 0 and line["uniform_log_p"] <= 0
        assert line["gain"] == pytest.approx(line["belief_log_p"] - line["uniform_log_p"], abs=2e-4)
        assert len(line["gain_by_tenth"]) == belief_knowledge.TENTHS
    assert (plots / "marry_the_monster.png").stat().st_size > 0


def test_the_model_fit_scores_each_model_on_the_same_recorded_games(tmp_path):
    """Each model gets a line over the same moves; the likelihood differs between models, and greedy
    players are likelier under the greedy model at a small epsilon than at a large one."""
    out = tmp_path / "model.jsonl"
    argv = ["--game-ids", "marry_the_monster-v0", "--opponent", "greedy", "--games", "1"]
    models = "greedy:0.1,greedy:0.9,network:2:0.1:0.2"
    assert belief_model.main([*argv, "--models", models, "--out", str(out)]) == 0
    header, *lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert header["kind"] == "header"
    assert [
        (line["model"], line["temperature"], line["greedy_share"], line["epsilon"]) for line in lines
    ] == [
        ("greedy", None, None, 0.1),
        ("greedy", None, None, 0.9),
        ("network", 2.0, 0.1, 0.2),
    ]
    assert lines[2]["network"] == "marry_the_monster-az-v2.npz"  # the game's declared network
    assert lines[0]["moves"] == lines[1]["moves"] == lines[2]["moves"] > 10
    assert all(line["mean_log_evidence"] < 0 for line in lines)
    assert lines[0]["mean_log_evidence"] > lines[1]["mean_log_evidence"] != lines[2]["mean_log_evidence"]


def test_the_cost_run_times_the_learned_search_belief_version(tmp_path):
    """``--search az`` times the game's az belief version: every move timed, the belief's part of
    it a share of it, the agent named in the line."""
    out = tmp_path / "cost.jsonl"
    argv = ["--search", "az", "--game-ids", "monster_arena-v0", "--games", "1", "--out", str(out)]
    assert belief_cost.main(argv) == 0
    header, line = [json.loads(text) for text in out.read_text().splitlines()]
    assert header["kind"] == "header" and line["agent"] == "monster_arena-az-v3"
    assert line["moves"] > 0 and line["simulations"] > 1 and line["particles"] > 1
    assert 0 < line["belief_ms"] < line["move_ms"] and 0 < line["share"] < 1


def test_the_cost_run_times_only_its_own_games_after_the_warm_up():
    """The warm-up games are played but not timed: the timed games' moves are the same with or
    without them."""
    cold = belief_cost.measure("marry_the_monster-v0", "greedy", 2, 1, 3, warm_up=0)
    warm = belief_cost.measure("marry_the_monster-v0", "greedy", 2, 1, 3, warm_up=1)
    assert (cold["warm_up_games"], warm["warm_up_games"]) == (0, 1)
    assert warm["moves"] == cold["moves"] > 0


@pytest.mark.parametrize(
    "module,argv,message",
    [
        (belief_model, ["--models", "greedy:0.1,greedy:2"], "epsilon must be a number in (0, 1]"),
        (
            belief_model,
            ["--models", "network:0.5"],
            "'network:0.5' is not greedy:EPSILON or network:TEMPERATURE:GREEDY_SHARE:EPSILON",
        ),
        (belief_model, ["--opponent", "cleverest", "--game-ids", "marry_the_monster-v0"], "unknown agent"),
        (belief_knowledge, ["--game-ids", "monster_factory-v0"], "not among the games that hide information"),
        (belief_knowledge, ["--opponents", "cleverest"], "--opponents: unknown agent 'cleverest'"),
        (belief_knowledge, ["--games", "0"], "--games must be at least 1"),
        (belief_knowledge, ["--particles", "0"], "particles must be an integer >= 1"),
        (belief_cost, ["--game-ids", "monster_factory-v0"], "not among the games that hide information"),
        (belief_cost, ["--games", "0"], "--games must be at least 1"),
        (belief_cost, ["--warm-up", "-1"], "--warm-up must be 0 or more"),
    ],
)
def test_bad_arguments_are_refused_naming_the_valid_ones(module, argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        module.main([*argv, "--out", str(tmp_path / "x.jsonl")])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize("module", [belief_knowledge, belief_cost, belief_model])
def test_an_existing_output_is_kept_unless_overwrite_is_given(module, tmp_path, capsys):
    out = tmp_path / "kept.jsonl"
    out.write_text("keep")
    with pytest.raises(SystemExit):
        module.main(["--out", str(out)])
    assert out.read_text() == "keep"
