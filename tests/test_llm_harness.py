"""The ``llm:<model>`` harness (agents/llm/, agents/llm/chat.py, agents/llm/prompts.py, agents/llm/moves.py,
llm/scoring.py) against a local OpenAI-compatible server that answers from a script."""

import socket

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents.llm import LlmSettings, make
from monster_zoo.agents.llm.chat import ChatEndpoint, ChatError
from monster_zoo.agents.llm.moves import match_move, read_answer
from monster_zoo.envs.core.illegal import refusal
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.llm.scoring import score_model
from monster_zoo.llm.scripted_server import ScriptedServer, first_legal, shown_moves, stubborn

MOVES = [
    {"id": 3, "name": "play red 4", "words": None},
    {"id": 7, "name": "place c1 r0", "words": "a thin tile"},
]


def agent_at(server, game_id="monster_factory-v0", **settings):
    return make(game_id, "scripted", seed=0, settings=LlmSettings(base_url=server.base_url, **settings))


def on_move(game_id, seed, steps=0, **options):
    """An env after ``steps`` random moves, and the seat on move's mask and state."""
    env = envs.make(game_id, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    return env, env.observe(env.agent_selection)["action_mask"], env.unwrapped.engine_state


def test_answers_are_read_by_id_name_or_words_whatever_the_quotes_and_case():
    assert read_answer("I think...\nmove: `Play Red 4`.", MOVES) == 3
    assert read_answer("Final answer: 7", MOVES) == 7
    assert read_answer("a thin tile", MOVES) == 7
    assert read_answer("**place c1 r0**", MOVES) == 7
    assert read_answer("move: 5", MOVES) is None and read_answer("move: jump", MOVES) is None
    assert match_move(True, MOVES) is None and match_move(3, MOVES) == 3


def test_a_scripted_model_plays_whole_games_and_the_table_counts_its_moves():
    with ScriptedServer(first_legal) as server:
        agent = agent_at(server)
        score = score_model(
            "monster_factory-v0", agent, ["random", "greedy"], games=2, seed=0, options={"num_players": 2}
        )
    table = score.markdown()
    assert "| random | " in table and "| greedy | " in table and "legal moves listed" in table
    for baseline in ("random", "greedy"):
        usage = score.usage(baseline)
        assert usage["moves"] > 0 and usage["retry_rate"] == 0 and usage["illegal_rate"] == 0
        assert usage["prompt_tokens_per_move"] > 100 and usage["completion_tokens_per_move"] > 0
        assert score.pairing(baseline).games == 2
    first = server.requests[0]
    assert first["model"] == "scripted" and first["messages"][0]["role"] == "system"
    assert "Monster Factory in short" in first["messages"][0]["content"]


def test_a_refused_answer_is_asked_again_with_the_rules_reason():
    env, mask, state = on_move("monstargh-v0", 2, steps=3, num_players=2)
    illegal = next(a for a in range(len(mask)) if not mask[a])
    with ScriptedServer(stubborn(f"move: {illegal}", 1)) as server:
        agent = agent_at(server, "monstargh-v0")
        move = agent.act(None, mask, state)
    assert mask[move] and agent.usage.retries == 1 and agent.usage.fallbacks == 0
    retry = server.requests[1]["messages"][-1]["content"]
    reason = refusal(env.unwrapped.spec, state, mask, env.agent_selection, illegal)
    assert retry.startswith("Your answer was refused: ") and reason in retry
    assert server.requests[1]["messages"][-2] == {"role": "assistant", "content": f"move: {illegal}"}


def test_under_fallback_a_move_still_illegal_after_the_retries_is_counted_and_replaced_by_a_random_one():
    _, mask, state = on_move("monster_factory-v0", 4, steps=2)
    with ScriptedServer(stubborn("I would rather not", 99)) as server:
        agent = agent_at(server, retries=2, illegal_policy="fallback")
        moves = {agent.act(None, mask, state) for _ in range(5)}
    assert all(mask[m] for m in moves) and len(server.requests) == 15
    assert agent.usage.fallbacks == 5 and agent.usage.retries == 10 and agent.usage.illegal_answers == 15
    assert "does not end with a line 'move: <id or name>'" in server.requests[1]["messages"][-1]["content"]
    assert agent.usage.summary()["illegal_rate"] == 1.0 and agent.usage.summary()["legal_move_rate"] == 0
    assert [cost["tries"] for cost in agent.usage.per_move] == [3] * 5
    assert all(
        cost["fallback"] and cost["prompt_tokens"] > 0 and cost["latency_s"] > 0
        for cost in agent.usage.per_move
    )


def test_without_the_legal_move_list_the_prompt_omits_it_and_names_still_count():
    _, mask, state = on_move("monster_factory-v0", 5, steps=2)
    legal_name = envs.spec("monster_factory-v0").action_to_str(int(np.flatnonzero(mask)[0]), state)
    with ScriptedServer(lambda messages: f"move: {legal_name}") as server:
        agent = agent_at(server, legal_moves=False)
        move = agent.act(None, mask, state)
    assert move == int(np.flatnonzero(mask)[0])
    assert shown_moves(server.requests[0]["messages"]) == []
    assert "legal_moves" not in server.requests[0]["messages"][1]["content"]


@pytest.mark.parametrize("game_id", ["monstargh-v0", "mighty_monsters-v0", "marry_the_monster-v0"])
def test_what_the_model_is_sent_is_the_same_for_any_redeal_of_what_its_seat_cannot_see(game_id):
    env, mask, state = on_move(game_id, 6, steps=9)
    real = state.copy()
    twin = real.copy()
    env.unwrapped.spec.determinize(twin, int(real[1]), make_rng(9))
    assert not np.array_equal(twin, real)
    with ScriptedServer(first_legal) as server:
        agent = agent_at(server, game_id)
        agent.act(None, mask, real)
        agent.act(None, mask, twin)
    assert server.requests[0] == server.requests[1]


def test_an_endpoint_that_cannot_be_reached_stops_the_run_naming_it():
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _, mask, state = on_move("monster_factory-v0", 1)
    agent = make(
        "monster_factory-v0",
        "m",
        settings=LlmSettings(
            base_url=f"http://127.0.0.1:{port}/v1", retries=1, timeout_s=5, endpoint_tries=2
        ),
    )
    agent.backoff.sleep = lambda seconds: None
    with pytest.raises(ChatError, match=f"no answer after 2 tries.*cannot reach http://127.0.0.1:{port}/v1"):
        agent.act(None, mask, state)
    assert agent.usage.endpoint_failures == 2 and agent.usage.retries == 0


def test_bad_settings_are_refused_with_what_is_valid():
    with pytest.raises(ValueError, match="retries must be an integer from 0 to 10"):
        LlmSettings(retries=-1)
    with pytest.raises(ValueError, match="must be one of forfeit, fallback"):
        LlmSettings(illegal_policy="random")
    with pytest.raises(ValueError, match="timeout must be a number of seconds above 0"):
        LlmSettings(timeout_s=0)
    with pytest.raises(ValueError, match="endpoint tries must be an integer from 1 to 50"):
        LlmSettings(endpoint_tries=0)
    with pytest.raises(ValueError, match="must start with http:// or https://"):
        ChatEndpoint("ftp://example", "m")
    with pytest.raises(ValueError, match="name the model"):
        ChatEndpoint("http://127.0.0.1:1/v1", "")
    _, mask, state = on_move("monster_factory-v0", 1)
    with pytest.raises(ValueError, match="pass env.unwrapped.engine_state"):
        make("monster_factory-v0", "m").act(None, mask, None)


def test_an_evaluate_field_scores_each_model_against_the_other_entries():
    from monster_zoo.llm.scoring import score_named_models

    with ScriptedServer(first_legal) as server:
        scores = score_named_models(
            "monster_factory-v0",
            ["llm:a", "random", "llm:b"],
            games=2,
            options={"num_players": 2},
            settings=LlmSettings(base_url=server.base_url),
        )
    assert list(scores) == ["llm:a", "llm:b"] and all(s.baselines == ["random"] for s in scores.values())
    with pytest.raises(ValueError, match="at least one agent that is not a model"):
        score_named_models("monster_factory-v0", ["llm:a"], games=2)


def test_evaluate_scores_a_model_against_the_field_with_its_rates(capsys):
    """``monster-zoo evaluate --agents llm:<model> random --base-url URL``: the model's seat-rotated
    table against each other entry, with intervals and its retry and illegal-move rates."""
    from monster_zoo.cli.main import main

    with ScriptedServer(stubborn("move: nothing of the sort", 1)) as server:
        status = main(
            [
                "evaluate",
                "--game",
                "monstargh-v0",
                "--option",
                "num_players=2",
                "--games",
                "2",
                "--agents",
                "llm:scripted",
                "random",
                "--base-url",
                server.base_url,
                "--retries",
                "1",
            ]
        )
    out = capsys.readouterr().out
    assert status == 0
    assert "random" in out and "retry" in out.lower() and "illegal" in out.lower()
    assert server.requests and all(body["model"] == "scripted" for body in server.requests)


def test_evaluate_refuses_model_only_fields_and_bad_model_options(capsys):
    """A field of models only has no baseline to score against; bad options are named."""
    from monster_zoo.cli.main import main

    for argv, said in (
        (["--agents", "llm:a", "llm:b"], "at least one agent that is not a model"),
        (["--agents", "llm:a", "random", "--curves", "x", "--out", "y"], "no metrics.csv"),
        (["--agents", "llm:a", "random", "--retries", "99"], "retries must be"),
        (["--agents", "llm:a", "random", "--illegal-policy", "pass"], "choose from 'forfeit', 'fallback'"),
        (["--agents", "llm:a", "random", "--timeout", "-1"], "timeout must be a number of seconds"),
        (["--agents", "llm:a", "random", "--resume"], "--resume needs --results FILE"),
        (["--agents", "greedy", "random", "--results", "r.jsonl"], "this field has none"),
    ):
        with pytest.raises(SystemExit) as stopped:
            main(["evaluate", "--game", "monstargh-v0", "--option", "num_players=2", *argv])
        assert stopped.value.code == 2
        assert said in capsys.readouterr().err
