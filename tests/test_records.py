"""Match records (monster_zoo.envs.core.records), their replay and the replay viewer's files."""

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from monster_zoo import __version__, envs
from monster_zoo.agents.registry import make_agent
from monster_zoo.envs.core.records import (
    FORMAT_VERSION,
    RecordError,
    RecordWriter,
    read_record,
    record_game,
    save_record,
    validate_record,
)
from monster_zoo.envs.replay import build_record, load, pictures, replay, views, write_gif, write_html

pytestmark = pytest.mark.conformance  # the test-only games of tests/fixture_games/ run these too

ROOT = Path(__file__).resolve().parents[1]


def random_policy(seed):
    rng = np.random.default_rng(seed)
    return lambda observation, mask: int(rng.choice(np.flatnonzero(mask)))


def played(game_id, seed=0, **options):
    """A random game's record and the env it was played in (left at its end)."""
    env = envs.make(game_id, **options)
    n = len(env.unwrapped.possible_agents)
    record = record_game(env, [random_policy(seed * 10 + s) for s in range(n)], seed, ["random"] * n)
    return record, env


def test_a_record_replays_exactly_through_the_aec_env(game_id, tmp_path):
    record, env = played(game_id, seed=1)
    path = save_record(record, tmp_path / "game.json")
    again = read_record(path)
    assert again == record
    assert again["format_version"] == FORMAT_VERSION and again["library_version"] == __version__
    assert again["game"] == game_id and len(again["agents"]) == len(env.unwrapped.possible_agents)
    for raw in replay(again):
        last = raw
    assert np.array_equal(last.engine_state, env.unwrapped.engine_state)
    assert [last.rewards[a] for a in last.possible_agents] == pytest.approx(record["result"]["returns"])
    assert record["result"]["length"] == len(record["actions"]) > 0


def test_a_game_kept_as_actions_becomes_the_same_record(game_id):
    record, _ = played(game_id, seed=2)
    rebuilt = build_record(
        game_id, record["options"], record["seed"], [s["action"] for s in record["actions"]], record["agents"]
    )
    assert rebuilt == record


def test_a_record_of_a_truncated_game_replays(tmp_path):
    record, _ = played("marry_the_monster-v0", seed=0, max_steps=15)
    assert record["result"]["truncated"] and not record["result"]["terminated"]
    assert len(list(replay(read_record(save_record(record, tmp_path / "t.json"))))) == 16


@pytest.fixture(scope="module")
def good():
    return played("mighty_monsters-v0", seed=3)[0]


def broken(good, change):
    bad = copy.deepcopy(good)
    change(bad)
    return bad


BAD_RECORDS = [
    (lambda r: r.update(format_version=3), "format version 3; this library reads versions 1, 2"),
    (lambda r: r.update(format="something"), "not a monster-zoo match record"),
    (lambda r: r.update(library_version="0.0.1"), "recorded by monster-zoo '0.0.1'"),
    (lambda r: r.pop("result"), "missing field"),
    (lambda r: r.update(seed="7"), "'seed' must be an integer"),
    (lambda r: r.update(agents="random"), "'agents' must be a list"),
    (lambda r: r["actions"][3].update(action="12"), "action 3 must be"),
    (lambda r: r["actions"][3].update(action=True), "action 3 must be"),
    (lambda r: r["result"].update(length=5), "truncated record"),
    (lambda r: r.update(options=[1]), "'options' must be an object"),
]


@pytest.mark.parametrize("change,message", BAD_RECORDS)
def test_a_malformed_record_is_refused_with_the_reason(good, change, message):
    with pytest.raises(RecordError, match=message):
        validate_record(broken(good, change))


REPLAY_REFUSALS = [
    (lambda r: r.update(game="chess-v0"), "unknown game 'chess-v0'"),
    (lambda r: r.update(options={"num_players": 99}), "bad options"),
    (lambda r: r["actions"][5].update(seat=(r["actions"][5]["seat"] + 1) % 4), "action 5 .* is recorded for"),
    (lambda r: r["actions"][6].update(name="play 9 at G9z"), "action 6: .* record names it"),
    (lambda r: r["result"].update(returns=[0.0] * 4), "the replay ended with"),
]


@pytest.mark.parametrize("change,message", REPLAY_REFUSALS)
def test_a_record_that_does_not_fit_its_game_is_refused_while_replaying(good, change, message):
    with pytest.raises(RecordError, match=message):
        list(replay(validate_record(broken(good, change))))


def test_an_illegal_action_is_refused_naming_it(good):
    env = envs.make(good["game"], **good["options"])
    env.reset(seed=good["seed"])
    illegal = int(np.flatnonzero(env.unwrapped._mask == 0)[0])
    bad = broken(good, lambda r: r["actions"][0].update(action=illegal))
    with pytest.raises(RecordError, match=f"action 0: {illegal} .* is illegal for player_"):
        list(replay(bad))


def test_truncated_or_missing_files_are_refused(good, tmp_path):
    path = save_record(good, tmp_path / "g.json")
    cut = tmp_path / "cut.json"
    cut.write_text(path.read_text()[:-200])
    with pytest.raises(RecordError, match="cut.json is not JSON"):
        read_record(cut)
    with pytest.raises(RecordError, match="cannot read record"):
        read_record(tmp_path / "nope.json")
    with pytest.raises(RecordError, match="a record is a JSON object"):
        validate_record([good])


def test_another_library_version_replays_only_when_allowed(good, tmp_path):
    other = broken(good, lambda r: r.update(library_version="0.0.1"))
    path = tmp_path / "old.json"
    path.write_text(json.dumps(other))
    with pytest.raises(RecordError, match="--any-version"):
        load(path)
    assert len(list(replay(load(path, allow_other_version=True)))) == len(good["actions"]) + 1


def test_record_writer_checks_its_arguments():
    env = envs.make("marry_the_monster-v0", num_players=3)
    with pytest.raises(ValueError, match="agents names 2 seats but the game seats 3"):
        RecordWriter(env, 0, ["a", "b"])
    with pytest.raises(ValueError, match="integer seed"):
        RecordWriter(env, None)


def test_record_game_plays_monster_zoo_agents(tmp_path):
    env = envs.make("monstargh-v0", num_players=2)
    agents = [make_agent("greedy", "monstargh-v0", 0), make_agent("random", "monstargh-v0", 1)]
    record = record_game(env, agents, seed=4)
    assert record["agents"] == ["greedy", "random"]
    assert len(list(replay(record))) == len(record["actions"]) + 1


def test_record_game_asks_every_agent_about_the_game_once_before_playing():
    """An agent made for another game or player count is refused before any move (the champion of
    2 players at a 3-player table), and one that may play is asked exactly once."""
    from monster_zoo.agents import WrongGameError
    from monster_zoo.agents.random.agent import RandomAgent

    class Counting(RandomAgent):
        asked = acted = 0

        def check_game(self, game_id, config, options=None):
            self.asked += 1
            super().check_game(game_id, config, options)

        def act(self, observation, action_mask, state=None):
            assert self.asked == 1, "acted before its game was checked"
            self.acted += 1
            return super().act(observation, action_mask, state)

    env = envs.make("marry_the_monster-v0", num_players=3, max_steps=30)
    counting = Counting(0)
    two = make_agent("champion", "marry_the_monster-v0", options={"num_players": 2})
    with pytest.raises(
        WrongGameError, match="num_players=2.*this game is marry_the_monster-v0 with num_players=3"
    ):
        record_game(env, [counting, two, random_policy(1)], seed=0)
    assert (counting.asked, counting.acted) == (1, 0)
    counting = Counting(0)
    record = record_game(
        env, [counting, make_agent("greedy", "marry_the_monster-v0"), random_policy(1)], seed=0
    )
    assert counting.asked == 1 and record["actions"]


def test_the_viewer_page_is_one_self_contained_file(tmp_path):
    record, _ = played("marry_the_monster-v0", seed=0, num_players=2, max_steps=30)
    page = write_html(record, tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "monster_zoo" not in page.split("<script>")[0].lower()
    for loader in ("src=", "href=", "@import", "url(", "fetch("):
        assert loader not in page, f"the page would load something: {loader}"
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")
    data = json.loads(page.split("const DATA = ")[1].split(";\n")[0].replace("<\\/", "</"))
    assert data["steps"] == 30 and data["views"] == views(record) == ["public", "player_0", "player_1"]
    assert all(len(data["frames"][v]) == 31 and len(data["actions"][v]) == 30 for v in data["views"])


def test_each_view_names_actions_as_that_seat_knew_them():
    record, _ = played("mighty_monsters-v0", seed=0, max_steps=8)
    svgs, names, scores = pictures(record)
    first = record["actions"][0]
    mine = names[f"player_{first['seat']}"][0]
    assert mine.startswith(first["name"] + " (lay your strength-") and first["name"].startswith("lay down")
    assert names["public"][0] == "lay two cards face down"
    other = f"player_{(first['seat'] + 1) % 4}"
    assert names[other][0] == "lay two cards face down" and first["name"] not in svgs[other][1]
    assert len(scores) == 9 and all(len(row) == 4 for row in scores)


def test_gif_animates_every_step(tmp_path):
    from PIL import Image

    record, _ = played("monster_factory-v0", seed=0, num_players=2, max_steps=6)
    path = write_gif(record, tmp_path / "r.gif", view="player_1")
    with Image.open(path) as gif:
        assert gif.n_frames == 7 and gif.size == (720, 450)
    with pytest.raises(ValueError, match="unknown view 'player_7'"):
        write_gif(record, tmp_path / "x.gif", view="player_7")


def run_cli(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "monster_zoo.training", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_play_records_and_replay_writes_the_viewer(tmp_path):
    record_path = tmp_path / "mine.json"
    proc = run_cli(
        "play",
        "--game",
        "monstargh-v0",
        "--agents",
        "random",
        "--seed",
        "2",
        "--record",
        str(record_path),
        stdin="1\n" * 500,
    )
    assert proc.returncode == 0, proc.stderr
    record = read_record(record_path)
    assert record["agents"] == ["you", "random"] and record["seed"] == 2
    proc = run_cli("replay", str(record_path), "--html", str(tmp_path / "r.html"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "r.html").stat().st_size > 10_000
    bad = tmp_path / "bad.json"
    bad.write_text(record_path.read_text().replace('"format_version": 2', '"format_version": 9'))
    proc = run_cli("replay", str(bad), "--html", str(tmp_path / "b.html"))
    assert proc.returncode == 2 and "format version 9" in proc.stderr and not (tmp_path / "b.html").exists()
    proc = run_cli("replay", str(record_path))
    assert proc.returncode == 2 and "give --html FILE, --gif FILE or both" in proc.stderr


def test_cli_evaluate_saves_a_sample_of_replayable_records(tmp_path):
    pytest.importorskip("openskill")
    proc = run_cli(
        "evaluate",
        "--game",
        "monstargh-v0",
        "--agents",
        "greedy",
        "random",
        "--games",
        "3",
        "--option",
        "num_players=2",
        "--save-records",
        str(tmp_path),
        "--records-per-pairing",
        "1",
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    saved = sorted(tmp_path.glob("game_*.json"))
    assert len(saved) == 1 and "wrote 1 match records" in proc.stdout
    record = read_record(saved[0])
    assert sorted(record["agents"]) == ["greedy", "random"]
    assert len(list(replay(record))) == len(record["actions"]) + 1


# --- moves in words (format version 2) ------------------------------------------------------------
def test_a_record_keeps_every_moves_words_as_the_game_says_them(game_id):
    """Every move of random games carries the game's own words for it (``explain_action`` where the
    game has one, else its name), taken in the state the move was made in."""
    from monster_zoo.envs.core.move_words import text_view_explainer

    for seed in (4, 5):
        record, _ = played(game_id, seed=seed)
        assert record["format_version"] == FORMAT_VERSION == 2
        explain = text_view_explainer(envs.spec(game_id))
        for raw, step in zip(replay(record), record["actions"]):
            state = raw.engine_state
            expected = (
                explain(state, step["action"]) if explain else raw.spec.action_to_str(step["action"], state)
            )
            assert step["words"] == expected and 0 < len(step["words"]) <= 200


def version_1(record: dict) -> dict:
    """``record`` as the previous format wrote it: version 1, actions without their words."""
    old = copy.deepcopy(record)
    old["format_version"] = 1
    for step in old["actions"]:
        del step["words"]
    return old


def test_a_record_of_the_previous_format_still_loads_replays_and_is_shown_in_words(game_id, tmp_path):
    record, env = played(game_id, seed=6)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(version_1(record)))
    old = read_record(path)
    assert old["format_version"] == 1 and all("words" not in step for step in old["actions"])
    for raw in replay(old):
        last = raw
    assert np.array_equal(last.engine_state, env.unwrapped.engine_state)
    # shown with the game's words, as the same game recorded now is
    assert pictures(old, only=["public"])[1] == pictures(record, only=["public"])[1]


def test_words_that_are_not_the_games_are_refused_and_nothing_is_written(good, tmp_path):
    k = next(i for i, step in enumerate(good["actions"]) if step["words"] != step["name"])
    lying = broken(good, lambda r: r["actions"][k].update(words="take every monster and win"))
    validate_record(lying)  # well formed: the words are checked against the game while replaying
    with pytest.raises(
        RecordError,
        match=rf"action {k} .*'take every monster and win' but the game says "
        rf"{re.escape(repr(good['actions'][k]['words'])[:40])}.*cannot put words",
    ):
        list(replay(lying))
    page = tmp_path / "lying.html"
    with pytest.raises(RecordError, match="cannot put words"):
        write_html(lying, page)
    assert not page.exists() and list(tmp_path.iterdir()) == []
    with pytest.raises(RecordError, match="cannot put words"):  # the name alone is no way round it
        list(replay(broken(good, lambda r: r["actions"][k].update(words=r["actions"][k]["name"]))))


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda r: r["actions"][2].pop("words"), "action 2 must have its 'words'"),
        (lambda r: r["actions"][2].update(words=7), "action 2 must have its 'words'"),
        (lambda r: r["actions"][2].update(words="x" * 401), "at most 400 characters"),
        (lambda r: r.update(format_version=True), "format version True"),
    ],
)
def test_a_record_of_format_version_2_needs_every_moves_words(good, change, message):
    with pytest.raises(RecordError, match=message):
        validate_record(broken(good, change))
