"""Model files: policy files that cannot run code, SB3 zips only when trusted, models that know
their game, and the short labels of agents in tables and plots.

Most policy files here are written from random layers with :func:`write_policy`, which
needs no torch; the tests that unpickle a zip on purpose need the ``train`` extra.
"""

import base64
import io
import json
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.model_file import FORMAT_VERSION, METADATA, ModelFileError, is_policy_file
from monster_zoo.agents.ppo.policy_file import make_metadata, read_policy, write_policy
from monster_zoo.agents.registry import agent_labels, split_label
from monster_zoo.cli import main as cli
from monster_zoo.evaluation.match import run_match

GAME = "marry_the_monster-v0"
ROOT = Path(__file__).resolve().parents[1]
TWO = {"num_players": 2}


def random_layers(game_id: str, hidden=(16, 8), seed: int = 0, activation: str = "tanh"):
    """Random MLP layers of the sizes ``game_id`` needs, float64."""
    spec = envs.spec(game_id)
    sizes = [spec.obs_size, *hidden, spec.num_actions]
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(0, 0.3, (a, b)), rng.normal(0, 0.1, b), activation if k < len(hidden) else None)
        for k, (a, b) in enumerate(zip(sizes, sizes[1:]))
    ]


def policy_file(path, game_id=GAME, options=TWO, name="tiny", hidden=(16, 8), seed=0, activation="tanh"):
    """A policy file of random weights for ``game_id`` with ``options``."""
    metadata = make_metadata(game_id, options, list(hidden), activation, name, {"algorithm": "test"})
    return write_policy(path, random_layers(game_id, hidden, seed, activation), metadata)


@pytest.fixture
def two_player_model(tmp_path):
    """A 2-player Marry the Monster policy file, as ``make demo`` trains."""
    return policy_file(tmp_path / "demo.npz", name="demo-s1")


def rewrite(src: Path, dst: Path, metadata=None, arrays=None, drop=()):
    """A copy of policy file ``src`` with ``metadata`` replaced (a dict, or raw text), members
    in ``drop`` left out and ``arrays`` (member -> raw bytes) replaced or added."""
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(dst, "w") as new:
        for item in old.namelist():
            if item in drop or item in (arrays or {}) or (item == METADATA and metadata is not None):
                continue
            new.writestr(item, old.read(item))
        if metadata is not None:
            new.writestr(METADATA, metadata if isinstance(metadata, str) else json.dumps(metadata))
        for item, data in (arrays or {}).items():
            new.writestr(item, data)
    return dst


def huge_header() -> bytes:
    """The header of a terabyte-sized float32 array, without its data: refused before any allocation."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": "<f4", "fortran_order": False, "shape": (1_000_000, 1_000_000)}
    )
    return buffer.getvalue()


def npy_bytes(array, allow_pickle=False) -> bytes:
    """``array`` as the bytes of a .npy file."""
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


# --- the format ---------------------------------------------------------------------------
def test_policy_file_round_trip_and_numpy_play(two_player_model):
    loaded = read_policy(two_player_model)
    meta = loaded.metadata
    assert meta["format_version"] == FORMAT_VERSION and meta["game"] == GAME
    assert meta["options"]["num_players"] == 2 and "max_steps" not in meta["options"]
    assert (meta["observation_size"], meta["num_actions"]) == (
        envs.spec(GAME).obs_size,
        envs.spec(GAME).num_actions,
    )
    assert meta["architecture"] == {"type": "mlp", "hidden_sizes": [16, 8], "activation": "tanh"}
    expected = random_layers(GAME)
    for (w, b, act), (w0, b0, act0) in zip(loaded.layers, expected):
        assert act == act0 and np.allclose(w, w0, atol=1e-6) and np.allclose(b, b0, atol=1e-6)
    # The JSON is plain text anyone can read.
    with zipfile.ZipFile(two_player_model) as archive:
        assert json.loads(archive.read(METADATA))["name"] == "demo-s1"
    agent = make_agent(f"ppo:{two_player_model}", GAME, seed=0, options=TWO)
    assert agent.name == "demo-s1"
    result = run_match(GAME, [f"ppo:{two_player_model}", "random"], games=4, seed=1, progress=False)
    assert sum(s.games for s in result.stats) == 8
    assert result.stats[0].agent == "demo-s1"


def test_playing_a_policy_file_needs_no_torch(two_player_model):
    """A policy file plays with numpy alone: torch and SB3 cannot even be imported here."""
    script = f"""
import sys
for blocked in ("torch", "stable_baselines3", "sb3_contrib"):
    sys.modules[blocked] = None
from monster_zoo.evaluation.match import run_match
result = run_match({GAME!r}, ["ppo:{two_player_model}", "random"], games=2, seed=0, progress=False)
print("played", sum(s.games for s in result.stats), "torch" in sys.modules and sys.modules["torch"] is not None)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["played", "4", "False"]


def test_sampling_policy_file_agents_play_inside_the_training_engine(two_player_model):
    from monster_zoo.agents.ppo.agent import PPOAgent

    opponent = PPOAgent.load(str(two_player_model), GAME, seed=3, deterministic=False, options=TWO)
    assert opponent.policy_mlp is not None
    vec = envs.make_vec_env(GAME, 4, opponents=[opponent], seed=2, num_players=2)
    vec.reset()
    for _ in range(50):
        vec.step(np.argmax(vec.action_masks(), axis=1))


BAD_METADATA = [
    (lambda m: {**m, "format_version": 2}, "format version 2"),
    (lambda m: {**m, "format_version": "1"}, "format_version must be an integer"),
    (lambda m: {**m, "format": "something-else"}, "is not a monster-zoo-policy file"),
    (lambda m: {k: v for k, v in m.items() if k != "game"}, "metadata lacks game"),
    (lambda m: {k: v for k, v in m.items() if k not in ("name", "architecture")}, "lacks architecture, name"),
    (lambda m: {**m, "observation_size": "280"}, "observation_size must be an integer"),
    (lambda m: {**m, "num_actions": True}, "num_actions must be an integer"),
    (lambda m: {**m, "options": [2]}, "options must be an object"),
    (lambda m: {**m, "game": "chess-v0"}, "which this monster-zoo does not have"),
    (lambda m: {**m, "architecture": {**m["architecture"], "hidden_sizes": [16.5, 8]}}, "list of integers"),
    (lambda m: {**m, "architecture": {**m["architecture"], "hidden_sizes": [16, 0]}}, "must be positive"),
    (
        lambda m: {**m, "architecture": {**m["architecture"], "activation": "sigmoid"}},
        "not one of tanh, relu",
    ),
    (
        lambda m: {**m, "architecture": {**m["architecture"], "type": "transformer"}},
        "is not one of mlp, placement",
    ),
    (
        lambda m: {**m, "architecture": {**m["architecture"], "type": "placement", "item_sizes": [4]}},
        "marry_the_monster-v0 has no placement actions",
    ),
    (
        lambda m: {**m, "architecture": {**m["architecture"], "type": "placement"}},
        "item_sizes must be a list",
    ),
    (
        lambda m: {**m, "architecture": {**m["architecture"], "hidden_sizes": [16, 9]}},
        "the architecture needs (16, 9)",
    ),
    (lambda m: {**m, "name": ""}, "name is empty"),
    (lambda m: [m], "must be a JSON object"),
]


@pytest.mark.parametrize("change, message", BAD_METADATA)
def test_bad_metadata_is_refused_with_the_reason(two_player_model, tmp_path, change, message):
    meta = read_policy(two_player_model).metadata
    bad = rewrite(two_player_model, tmp_path / "bad.npz", metadata=change(meta))
    with pytest.raises(ModelFileError) as refused:
        make_agent(f"ppo:{bad}", GAME, options=TWO)
    assert message in str(refused.value) and "bad.npz" in str(refused.value)


def test_bad_files_are_refused_with_the_reason(two_player_model, tmp_path):
    data = two_player_model.read_bytes()
    shapes = {"actor.0.weight.npy": (envs.spec(GAME).obs_size, 16)}
    cases = {
        "truncated": (data[: len(data) // 2], "not a readable .npz archive"),
        "text": (b"just some text\n", "not a readable .npz archive"),
        "empty": (b"", "not a readable .npz archive"),
    }
    for name, (content, message) in cases.items():
        (tmp_path / f"{name}.npz").write_bytes(content)
        with pytest.raises(ModelFileError, match=message):
            read_policy(tmp_path / f"{name}.npz")
    bad_arrays = {
        "pickled": (
            {"actor.0.weight.npy": npy_bytes(np.array([{"x": 1}] * 3, dtype=object), True)},
            "object arrays would need unpickling",
        ),
        "integers": (
            {"actor.0.weight.npy": npy_bytes(np.zeros(shapes["actor.0.weight.npy"], np.int64))},
            "not float32 or float64",
        ),
        "shape": ({"actor.0.weight.npy": npy_bytes(np.zeros((3, 16), np.float32))}, r"has shape \(3, 16\)"),
        "huge": ({"actor.0.weight.npy": huge_header()}, r"has shape \(1000000, 1000000\)"),
        "nan": ({"actor.1.bias.npy": npy_bytes(np.full(8, np.nan, np.float32))}, "NaN or infinite"),
        "cut_array": (
            {"actor.0.weight.npy": npy_bytes(np.zeros(shapes["actor.0.weight.npy"], np.float32))[:200]},
            "is damaged",
        ),
        "not_npy": ({"actor.0.bias.npy": b"\x80\x04K\x01."}, "is not a .npy array"),
    }
    for name, (arrays, message) in bad_arrays.items():
        bad = rewrite(two_player_model, tmp_path / f"{name}.npz", arrays=arrays)
        with pytest.raises(ModelFileError, match=message):
            read_policy(bad)
    missing = rewrite(two_player_model, tmp_path / "missing.npz", drop=("actor.2.bias.npy",))
    with pytest.raises(ModelFileError, match="lacks the array actor.2.bias.npy"):
        read_policy(missing)
    no_json = rewrite(two_player_model, tmp_path / "no_json.npz", drop=(METADATA,))
    with pytest.raises(ModelFileError, match="has no metadata.json"):
        make_agent(f"ppo:{no_json}", GAME, options=TWO)
    broken_json = rewrite(two_player_model, tmp_path / "broken.npz", metadata="{not json")
    with pytest.raises(ModelFileError, match="is not JSON"):
        read_policy(broken_json)
    with pytest.raises(ModelFileError, match="is a folder"):
        make_agent(f"ppo:{tmp_path}", GAME)
    with pytest.raises(ValueError, match="needs the path of a model file"):
        make_agent("ppo:", GAME)
    with pytest.raises(ModelFileError, match="no such file"):
        make_agent(f"ppo:{tmp_path / 'nowhere.npz'}", GAME)


# --- SB3 zips never run code unless trusted ---------------------------------------------------
class Payload:
    """Unpickles into a call that writes ``marker``: what a malicious model file would do."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('ran')",)


def crafted_zip(path: Path, marker: Path) -> Path:
    """An SB3-style zip whose ``data`` holds a pickled payload in one of its serialized entries."""
    payload = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    data = {
        "observation_space": {":type:": "<class 'gymnasium.spaces.box.Box'>", ":serialized:": payload},
        "n_envs": 1,
    }
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("_stable_baselines3_version", "2.9.2")
    return path


@pytest.fixture
def crafted(tmp_path):
    """(crafted zip, the marker file its payload would write)."""
    marker = tmp_path / "payload_ran"
    return crafted_zip(tmp_path / "final_model.zip", marker), marker


def test_the_crafted_zip_does_run_code_when_trusted(crafted):
    """The fixture is a real attack: SB3's loader runs the payload (so ``ppo-trusted:`` is an honest warning)."""
    pytest.importorskip("sb3_contrib")
    path, marker = crafted
    with pytest.raises(ModelFileError):
        make_agent(f"ppo-trusted:{path}", GAME)
    assert marker.read_text() == "ran"


def test_no_entry_point_unpickles_an_untrusted_zip(crafted, tmp_path, capsys):
    path, marker = crafted
    with pytest.raises(ModelFileError, match="unpickles its contents, which can run any code") as refused:
        make_agent(f"ppo:{path}", GAME)
    assert f"ppo-trusted:{path}" in str(refused.value) and "export-model --trust-model" in str(refused.value)
    for name in (f"ppo:{path}", f"demo=ppo:{path}"):
        with pytest.raises(ModelFileError):
            run_match(GAME, [name, "random"], games=2, progress=False)
    renamed = tmp_path / "renamed.npz"
    renamed.write_bytes(path.read_bytes())
    with pytest.raises(ModelFileError, match="has no metadata.json"):
        make_agent(f"ppo:{renamed}", GAME)
    # With a metadata.json added the pickled 'data' entry is still never read.
    disguised = rewrite(
        renamed, tmp_path / "disguised.npz", metadata=make_metadata(GAME, TWO, [16, 8], "tanh", "x")
    )
    assert is_policy_file(disguised)
    with pytest.raises(ModelFileError, match="lacks the array"):
        make_agent(f"ppo:{disguised}", GAME, options=TWO)
    commands = [
        ["evaluate", "--agents", "random", f"ppo:{path}", "--games", "2", "--no-progress"],
        ["play", "--agents", f"ppo:{path}"],
        ["export-model", str(path), str(tmp_path / "out.npz")],
    ]
    for argv in commands:
        if argv[0] == "evaluate":
            pytest.importorskip("openskill")
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        assert stop.value.code == 2
        assert "can run any code" in capsys.readouterr().err, argv
    assert not marker.exists()
    assert not (tmp_path / "out.npz").exists()


def test_train_refuses_an_untrusted_zip_opponent_before_any_work(crafted, tmp_path):
    pytest.importorskip("sb3_contrib")
    from monster_zoo.training.ppo import trainer as selfplay_ppo

    path, marker = crafted
    out = tmp_path / "runs"
    with pytest.raises(SystemExit) as stop:  # argparse's exit for bad arguments
        selfplay_ppo.main(
            [
                "--opponents",
                f"ppo:{path}:1",
                "--out-dir",
                str(out),
                "--total-timesteps",
                "64",
                "--no-progress",
                "--option",
                "num_players=2",
            ]
        )
    assert stop.value.code == 2 and not marker.exists() and not out.exists()


# --- models know their game ---------------------------------------------------------------
def test_a_model_refuses_another_player_count_game_or_rule_option(two_player_model, tmp_path):
    with pytest.raises(ModelFileError) as refused:
        make_agent(f"ppo:{two_player_model}", GAME)  # the game's default is 3 players
    text = str(refused.value)
    assert "trained for marry_the_monster-v0 with num_players=2" in text
    assert (
        "this game is marry_the_monster-v0 with num_players=3" in text
        and "play it with num_players=2" in text
    )
    with pytest.raises(
        ModelFileError, match="trained for marry_the_monster-v0 .* this game is monster_arena-v0"
    ):
        make_agent(f"ppo:{two_player_model}", "monster_arena-v0", options=TWO)
    kings = policy_file(tmp_path / "kings.npz", "mighty_monsters-v0", {"num_players": 3, "kings_rules": True})
    with pytest.raises(
        ModelFileError, match=r"kings_rules=False.*\(differs in kings_rules; play it with kings_rules=true\)"
    ):
        make_agent(f"ppo:{kings}", "mighty_monsters-v0", options={"num_players": 3})
    assert make_agent(f"ppo:{kings}", "mighty_monsters-v0", options={"num_players": 3, "kings_rules": True})


def test_options_that_change_neither_rules_nor_observations_are_played_as_asked(two_player_model):
    """max_steps, reward, illegal_action and render_mode adapt: the model plays under any value."""
    for options in (
        {"max_steps": 50},
        {"reward": "score"},
        {"illegal_action": "penalize"},
        {"render_mode": "ansi"},
    ):
        assert make_agent(f"ppo:{two_player_model}", GAME, options={**TWO, **options}).name == "demo-s1"
    result = run_match(
        GAME,
        [f"ppo:{two_player_model}", "random"],
        games=2,
        seed=0,
        progress=False,
        options={"max_steps": 10},
    )
    assert all(record["truncated"] for record in result.records)


def test_a_model_whose_game_observation_changed_is_refused(two_player_model, tmp_path):
    meta = read_policy(two_player_model).metadata
    old = rewrite(
        two_player_model,
        tmp_path / "old.npz",
        metadata={**meta, "observation_size": 100},
        arrays={"actor.0.weight.npy": npy_bytes(np.zeros((100, 16), np.float32))},
    )
    with pytest.raises(ModelFileError, match="takes 100 observations .*its observation changed"):
        make_agent(f"ppo:{old}", GAME, options=TWO)


def test_a_model_of_an_older_observation_of_the_same_size_is_refused(two_player_model, tmp_path):
    """Observation version 2 changed what some of Marry the Monster's slots mean at the same size
    (CHANGELOG.md, pre-release history)."""
    meta = read_policy(two_player_model).metadata
    assert meta["observation_version"] == envs.spec(GAME).observation_version == 2
    old = rewrite(two_player_model, tmp_path / "old.npz", metadata={**meta, "observation_version": 1})
    with pytest.raises(
        ModelFileError,
        match="trained on version 1 of marry_the_monster-v0's observation; this monster-zoo has version 2",
    ):
        make_agent(f"ppo:{old}", GAME, options=TWO)


def test_readme_evaluate_line_refuses_a_two_player_model_in_three_player_games(two_player_model, capsys):
    """The README's evaluate line without --option num_players=2 used to play the 2-player demo
    model in the game's default 3-player games; now it stops and names both."""
    pytest.importorskip("openskill")
    with pytest.raises(SystemExit) as stop:
        cli.main(
            [
                "evaluate",
                "--agents",
                "random",
                "greedy",
                f"ppo:{two_player_model}",
                "--games",
                "2",
                "--no-progress",
            ]
        )
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "num_players=2" in err and "num_players=3" in err
    assert (
        cli.main(
            [
                "evaluate",
                "--agents",
                "random",
                "greedy",
                f"ppo:{two_player_model}",
                "--games",
                "2",
                "--option",
                "num_players=2",
                "--no-progress",
            ]
        )
        == 0
    )
    assert "| row vs column | random | greedy | demo-s1 |" in capsys.readouterr().out


def test_the_quickstart_evaluate_line_runs_with_the_demo_model(tmp_path, capsys):
    """The quick start's own evaluate command, with a 2-player model at ``runs/<run>/``, runs as written."""
    pytest.importorskip("openskill")
    import shlex

    line = next(
        x
        for x in (ROOT / "docs" / "quickstart.md").read_text().splitlines()
        if x.startswith("monster-zoo evaluate")
    )
    run = tmp_path / "runs" / f"{GAME}__demo__1__1700000000"
    run.mkdir(parents=True)
    policy_file(run / "final_model.npz", name="demo-s1")
    argv = [
        arg.replace("runs/<run>", str(run)).replace("results/", str(tmp_path / "results"))
        for arg in shlex.split(line.split("#")[0])[1:]
        if arg != "mcts"
    ]  # MCTS: 45 s of search
    assert cli.main([*argv, "--games", "2", "--no-progress"]) == 0
    assert "| demo-s1 |" in capsys.readouterr().out


def test_play_refuses_a_model_of_another_player_count(two_player_model, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["play", "--agents", f"ppo:{two_player_model}", "random"])
    assert stop.value.code == 2 and "num_players=2" in capsys.readouterr().err


def test_play_against_a_model_names_it_by_its_label(two_player_model):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "monster_zoo.training",
            "play",
            "--agents",
            f"ppo:{two_player_model}",
            "--seed",
            "2",
        ],
        input="1\n" * 500,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "player_1 (demo-s1): return" in done.stdout and str(two_player_model) not in done.stdout


def test_train_refuses_an_opponent_model_of_another_player_count(two_player_model, tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from monster_zoo.training.ppo import trainer as selfplay_ppo

    out = tmp_path / "runs"
    with pytest.raises(SystemExit) as stop:  # argparse's exit for bad arguments
        selfplay_ppo.main(
            [
                "--opponents",
                f"ppo:{two_player_model}:1",
                "--out-dir",
                str(out),
                "--option",
                "num_players=3",
                "--no-progress",
            ]
        )
    assert stop.value.code == 2 and "num_players=2" in capsys.readouterr().err and not out.exists()


# --- labels ------------------------------------------------------------------------------
def test_labels_split_and_number():
    assert split_label("demo=ppo:x.npz") == ("demo", "ppo:x.npz")
    assert split_label("ppo:runs/lr=3e-4/final_model.npz") == (None, "ppo:runs/lr=3e-4/final_model.npz")
    assert split_label("greedy") == (None, "greedy")
    assert split_label("=greedy") == (None, "=greedy")

    class Named:
        def __init__(self, name):
            self.name = name

    specs = ["greedy", "ppo:a.npz", "ppo:b.npz", "mine=random"]
    agents = [Named("greedy"), Named("demo-s1"), Named("demo-s1"), Named("mine")]
    assert agent_labels(specs, agents) == ["greedy", "demo-s1 #1", "demo-s1 #2", "mine"]


def test_tournament_tables_and_plots_use_labels(two_player_model, tmp_path):
    pytest.importorskip("openskill")
    from monster_zoo.evaluation import plots
    from monster_zoo.evaluation.tournament import run_tournament

    other = policy_file(tmp_path / "other.npz", name="demo-s1", seed=5)
    specs = [f"ppo:{two_player_model}", f"ppo:{other}", f"short=ppo:{other}", "random"]
    result = run_tournament(GAME, specs, games=2, seed=0, options=TWO, progress=False)
    assert result.field == ["demo-s1 #1", "demo-s1 #2", "short", "random"]
    data = result.to_json()
    assert data["agents"]["short"] == f"ppo:{other}" and data["agents"]["random"] == "random"
    assert {name for r in data["records"] for name in r["seat_agents"]} == set(result.field)
    text = result.markdown()
    assert "| row vs column | demo-s1 #1 | demo-s1 #2 | short | random |" in text
    assert f"`short` = `ppo:{other}`" in text and str(tmp_path) not in text.split("Agents:")[0]
    assert plots.plot_win_matrix(data, tmp_path / "w.png").stat().st_size > 0


@pytest.mark.parametrize("num_players", [2, 3, 4, 6])
def test_win_rate_colours_turn_at_the_even_share(num_players):
    pytest.importorskip("matplotlib")
    from monster_zoo.evaluation import plots

    norm = plots.win_rate_norm(num_players)
    share = 1.0 / num_players
    assert norm(share) == pytest.approx(0.5)
    assert norm(0.0) == pytest.approx(0.0) and norm(1.0) == pytest.approx(1.0)
    # above the share is the green half, below it the red half, whatever the player count
    assert norm(share + 0.05) > 0.5 > norm(share - 0.05)


def test_win_rate_plot_grows_and_wraps_with_long_names(tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    from monster_zoo.evaluation import plots

    def results(names):
        pairings = [
            {"agent": a, "opponent": b, "win_rate": 0.5, "win_rate_low": 0.2, "win_rate_high": 0.8}
            for a in names
            for b in names
            if a != b
        ]
        return {"field": names, "pairings": pairings, "num_players": 2, "game": GAME, "games_per_pairing": 2}

    short = imread(plots.plot_win_matrix(results(["a", "b", "c"]), tmp_path / "short.png")).shape
    long_names = [f"ppo:runs/{GAME}__experiment_{k}__1__1700000000/final_model.npz" for k in range(3)]
    long = imread(plots.plot_win_matrix(results(long_names), tmp_path / "long.png")).shape
    more = imread(plots.plot_win_matrix(results(list("abcdefgh")), tmp_path / "more.png")).shape
    assert long[0] > short[0] and long[1] > short[1]
    assert more[0] > short[0] and more[1] > short[1]
    wrapped = plots.wrap_label(long_names[0])
    assert all(0 < len(line) <= plots.LABEL_WIDTH for line in wrapped.split("\n"))
    assert wrapped.replace("\n", "") == long_names[0]
    assert plots.wrap_label("greedy") == "greedy"
