"""``monster-zoo mcp`` holds to what it promises a model: a move is a whole number or text (never a
boolean, never digits other than 0-9), every refusal is the server's own sentence and costs no
stderr line, ``list_games`` lists what ``new_game`` accepts, every code in a view comes with its
words, Monster Factory's table is told in words, and an agent's late move stops its game."""

import re
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("mcp", reason="the MCP server needs the llm extra: pip install -e '.[llm]'")

import anyio

from monster_zoo import envs
from monster_zoo.envs.core.json_view import schema_of
from monster_zoo.envs.registry import declaration
from monster_zoo.llm.stdio_client import call, connected
from monster_zoo.llm.table import ClientTable
from monster_zoo.web.app import Settings
from monster_zoo.web.catalogue import APP_OPTIONS
from monster_zoo.web.game_session import GameSession
from monster_zoo.web.new_game import check_options
from monster_zoo.web.refusals import RequestError

# What a refusal must never show: the validator's own text, its classes, its web address.
FOREIGN = re.compile(
    r"pydantic|validation error|errors\.pydantic|https?://|Error executing|input_value|type="
)


def test_every_refused_call_is_our_sentence_changes_nothing_and_writes_no_stderr_line():
    """Booleans and Arabic-Indic digits are refused as moves (pydantic would read true as 1, Python's
    int reads "١" as 1); wrong types, missing arguments and unknown tools are refused in the server's
    words; none of it writes to the server's stderr."""
    bad_calls = [
        ("act", {"move": True}),
        ("act", {"move": False}),
        ("act", {"move": "١"}),
        ("act", {"move": "٣٦"}),
        ("act", {"move": 1.0}),
        ("act", {"move": [1]}),
        ("act", {"move": {"id": 1}}),
        ("act", {"move": None}),
        ("act", {}),
        ("act", {"game_id": 7, "move": 1}),
        ("observe", {"game_id": ["x"]}),
        ("new_game", {"game": "monstargh-v0", "seed": True}),
        ("new_game", {"game": "monstargh-v0", "seats": "client"}),
        ("new_game", {"game": "monstargh-v0", "options": [1]}),
        ("new_game", {"game": 3}),
        ("new_game", {}),
        ("no_such_tool", {}),
    ]

    async def session(errlog):
        answers = []
        async with connected(errlog=errlog) as client:
            started = await call(
                client,
                "new_game",
                game="monstargh-v0",
                seats=["client", "random"],
                options={"num_players": 2},
                seed=4,
            )
            game_id, view = started["game_id"], started["view"]
            assert view["your_turn"]
            for tool, arguments in bad_calls:
                arguments = {"game_id": game_id, **arguments} if tool in ("act", "observe") else arguments
                result = await client.call_tool(tool, arguments)
                answers.append((tool, arguments, result.is_error, result.content[0].text))
            assert await call(client, "observe", game_id=game_id) == view
        return answers

    with tempfile.TemporaryFile("w+") as errlog:
        answers = anyio.run(session, errlog)
        errlog.seek(0)
        stderr = errlog.read()
    assert stderr == "", f"refused calls wrote to stderr:\n{stderr[:2000]}"
    for tool, arguments, is_error, text in answers:
        assert is_error, (tool, arguments, text)
        assert text and not FOREIGN.search(text), (tool, arguments, text)
    said = {(tool, repr(arguments.get("move"))): text for tool, arguments, _, text in answers}
    assert "'move' must be one of your legal moves" in said[("act", "True")]
    assert "got true" in said[("act", "True")]
    assert "names no move" in said[("act", "'١'")]
    assert "act needs 'move'" in said[("act", "None")] or "'move' must be" in said[("act", "None")]
    assert "there is no tool" in answers[-1][3] and "list_games" in answers[-1][3]


def test_numbers_in_other_digits_name_no_action_in_any_game():
    for game_id in envs.available():
        spec = envs.spec(game_id)
        assert spec.str_to_action("1") == 1
        for text in ("١", "٣", "²", "1١"):
            with pytest.raises(ValueError, match="digits 0-9"):
                spec.str_to_action(text)


def test_a_boolean_or_other_digits_never_play_a_move_through_the_table():
    table = ClientTable()
    try:
        started = table.new_game("monstargh-v0", {"num_players": 2}, ["client", "random"], seed=4)
        game_id, view = started["game_id"], started["view"]
        for move in (True, "١", " ١ "):
            with pytest.raises(RequestError):
                table.act(game_id, move)
        assert table.observe(game_id) == view
    finally:
        table.close()


def test_list_games_lists_exactly_the_options_and_agents_new_game_accepts(tmp_path):
    (tmp_path / "mine.npz").write_bytes(b"")
    table = ClientTable(Settings(models_dir=tmp_path))
    try:
        listed = {game["game"]: game for game in table.list_games()}
        assert list(listed) == envs.available()
        for game_id, game in listed.items():
            spec = envs.spec(game_id)
            names = [o["name"] for o in game["options"]]
            assert names == [o.name for o in spec.options if o.name not in APP_OPTIONS]
            for option in game["options"]:
                assert "default" in option and ("choices" in option or option["kind"] in ("integer", "text"))
            assert any(o["name"] == "num_players" and "choices" in o for o in game["options"])
            assert "ppo:mine.npz" in game["agents"] and "az:mine.npz" in game["agents"]
            assert set(game["agent_players"]) <= set(game["agents"])
            assert game["agent_players"]["random"] == list(
                range(declaration(game_id).min_players, declaration(game_id).max_players + 1)
            )
            # Every listed option at its listed default is taken, and only those options are.
            defaults = {o["name"]: o["default"] for o in game["options"]}
            check_options(game_id, defaults)
            for own, value in APP_OPTIONS.items():
                with pytest.raises(RequestError, match="set by the app"):
                    check_options(game_id, {own: value})
    finally:
        table.close()


CODE_LIKE = {
    "monster_arena-v0": re.compile(r"\b(?:[A-Z]{2}[0-9]|[UL][0-9])\b"),
    "monstargh-v0": re.compile(r"\b[A-Z][0-9]\b"),
    "monster_factory-v0": re.compile(r"\b[0-2]{4}e?\b"),
}


@pytest.mark.parametrize("game_id", sorted(CODE_LIKE))
def test_every_code_a_view_uses_comes_with_its_words(game_id):
    """Many states of a random game: each code in the table, the seat's own text and the move names
    has an entry in ``codes``, and no view or legend tells of a command the client lacks."""
    table = ClientTable()
    rng = np.random.default_rng(0)
    try:
        players = declaration(game_id).min_players
        started = table.new_game(
            game_id, {"num_players": players}, ["client"] + ["random"] * (players - 1), 2
        )
        game_id_, view = started["game_id"], started["view"]
        seen = 0
        while not view["over"] and seen < 40:
            texts = [view["table"], view["yours"] or ""]
            texts += [m["name"] for m in view["legal_moves"]] + [m["name"] for m in view["last_moves"]]
            used = set(CODE_LIKE[game_id].findall("\n".join(texts)))
            assert used <= set(view["codes"]), used - set(view["codes"])
            assert all(words and words != code for code, words in view["codes"].items())
            assert "help" not in " ".join(texts).lower()
            seen += 1
            view = table.act(game_id_, view["legal_moves"][int(rng.integers(len(view["legal_moves"])))]["id"])
        assert seen > 3
    finally:
        table.close()


def test_no_legend_or_schema_a_model_reads_names_a_terminal_command():
    """The view's schema carries the legend of the table a model is shown: it names no command the
    client lacks, and it describes the table as shown (Monster Factory's in words, not drawn)."""
    for game_id in envs.available():
        spec = envs.spec(game_id)
        table = schema_of(spec, declaration(game_id).max_players)["properties"]["table"]["description"]
        assert "'help" not in table and "help CARD" not in table, game_id
    factory = envs.spec("monster_factory-v0")
    table = schema_of(factory, 6)["properties"]["table"]["description"]
    assert "5x3 block" not in table and "open cell" in table


def test_monster_factorys_table_is_told_in_words_with_places_and_edges():
    table = ClientTable()
    try:
        started = table.new_game("monster_factory-v0", {"num_players": 2}, ["client", "random"], seed=5)
        game_id, view = started["game_id"], started["view"]
        rng = np.random.default_rng(1)
        for _ in range(12):
            if view["over"]:
                break
            view = table.act(game_id, view["legal_moves"][int(rng.integers(len(view["legal_moves"])))]["id"])
        text = view["table"]
        assert "tile 0 at 0,0: " in text
        # No drawn grid: no line is only edge glyphs and tile indexes.
        assert not any(re.fullmatch(r"[ .12e*0-9]*[.12][ .12e*0-9]*", line) for line in text.splitlines())
        for move in view["legal_moves"]:
            cell = re.match(r"place (c[0-9]+) ", move["name"])
            if cell:
                listed = re.search(rf"open cell {cell.group(1)} at -?[0-9]+,-?[0-9]+: (.+)", text)
                assert listed and re.search(
                    r"(thin|thick|blank) (top|right|bottom|left) edge", listed.group(1)
                )
    finally:
        table.close()


class SlowAgent:
    """Answers its first legal move after ``seconds``."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def act(self, observation, mask):
        time.sleep(self.seconds)
        return int(np.flatnonzero(mask)[0])


def test_an_agents_move_arriving_after_the_time_limit_stops_its_game_unplayed():
    """Nobody looks while the agent thinks: its late move is refused when it arrives."""
    options = check_options("monster_factory-v0", {"num_players": 2})
    session = GameSession(
        "monster_factory-v0", options, 3, [SlowAgent(0.3), SlowAgent(0.3)], ["slow", "slow"], 0.05
    )
    with ThreadPoolExecutor(1) as executor:
        future = session.start_agent_move(executor)
        future.result(timeout=30)
    assert session.step == 0 and session.moves == []
    assert session.stopped and "did not move within the time limit of 0.05 s" in session.stopped


def test_an_agents_move_within_the_time_limit_is_played():
    options = check_options("monster_factory-v0", {"num_players": 2})
    session = GameSession(
        "monster_factory-v0", options, 3, [SlowAgent(0.0), SlowAgent(0.0)], ["a", "b"], 30.0
    )
    with ThreadPoolExecutor(1) as executor:
        session.start_agent_move(executor).result(timeout=30)
    assert session.step == 1 and session.stopped is None
