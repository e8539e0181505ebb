"""Safe files out: every output is checked before the work, written
atomically and never through a link, a person's game is never lost, and text from users is
escaped for the medium it lands in (markdown, matplotlib, the terminal, HTML).
"""

import errno
import json
import os
import re
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.cli import main as cli
from monster_zoo.envs.core import safe_writing
from monster_zoo.envs.core.escaping import html_text, markdown_cell, markdown_code, plot_text, visible
from monster_zoo.envs.core.records import read_record, record_game, save_record
from monster_zoo.envs.core.safe_writing import open_atomic, output_problem, write_atomic
from monster_zoo.evaluation import match, tournament

GAME = "marry_the_monster-v0"
HOSTILE = [
    "x$^$y",
    "a|b<!--",
    "line\nbreak",
    "\x1b[2J\x1b[31mred",
    "<script>alert(1)</script>",
    "back\\slash|",
    "`code` [link](javascript:x) *bold*",
    "&amp;",
]


def exit_code(argv, capsys):
    """(exit status, stdout, stderr) of ``monster-zoo ARGV`` run in this process."""
    try:
        code = cli.main(argv)
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    env = envs.make(GAME, num_players=2, max_steps=12)
    rng = np.random.default_rng(0)
    record = record_game(env, [lambda o, m: int(rng.choice(np.flatnonzero(m)))] * 2, 0, ["random"] * 2)
    return save_record(record, tmp_path_factory.mktemp("records") / "game.json")


@pytest.fixture
def no_tournament(monkeypatch):
    """Fail the test if a tournament starts: every refusal must come first."""
    monkeypatch.setattr(tournament, "run_tournament", lambda *a, **k: pytest.fail("the tournament ran"))


@pytest.fixture
def read_only(monkeypatch):
    """``read_only(folder)``: the folder reads as unwritable (root may write anywhere, so the
    permission bits alone cannot show it here)."""
    folders = []
    real_access = os.access

    def access(path, mode, *args, **kwargs):
        if mode & os.W_OK and any(os.path.realpath(path) == os.path.realpath(f) for f in folders):
            return False
        return real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(safe_writing.os, "access", access)
    return folders.append


# --- the writing helpers ----------------------------------------------------------------------
def test_atomic_writes_replace_a_link_and_never_follow_it(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "out.json"
    link.symlink_to(victim)
    write_atomic(link, "new")
    assert victim.read_text() == "keep me"
    assert not link.is_symlink() and link.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "victim.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "results.md"
    target.write_text("old results")
    target.chmod(0o640)
    with pytest.raises(RuntimeError), open_atomic(target) as stream:
        stream.write(b"half")
        raise RuntimeError("the plot failed half way")
    assert target.read_text() == "old results" and os.listdir(tmp_path) == ["results.md"]
    write_atomic(target, "new results")
    assert target.read_text() == "new results" and stat.S_IMODE(target.stat().st_mode) == 0o640


def test_outputs_are_refused_for_what_they_are(tmp_path, read_only):
    source = tmp_path / "game.json"
    source.write_text("{}")
    (tmp_path / "alias.json").symlink_to(source)
    os.link(source, tmp_path / "hard.json")
    dangling = tmp_path / "dangling.html"
    dangling.symlink_to(tmp_path / "nowhere")
    cases = {
        source: "is the input",
        tmp_path / "alias.json": "is the input",
        tmp_path / "hard.json": "is the input",
        dangling: "is a symbolic link (to ",
        tmp_path: "is a folder",
    }
    for path, message in cases.items():
        assert message in output_problem("--out", path, [source]), path
    existing = tmp_path / "page.html"
    existing.write_text("x")
    assert "already exists; choose a new file or pass --overwrite" in output_problem("--html", existing)
    assert output_problem("--html", existing, overwrite=True) is None
    assert output_problem("--html", dangling, overwrite=True) is None  # the link is replaced, not followed
    assert output_problem("--html", tmp_path / "new" / "deeper" / "page.html") is None
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")
        assert "is a special file" in output_problem("--html", tmp_path / "fifo", overwrite=True)
    locked = tmp_path / "locked"
    locked.mkdir()
    read_only(locked)
    refused = output_problem("--record", locked / "g.json")
    assert refused == f"--record {locked / 'g.json'}: folder {locked} is not writable"


def test_every_writer_of_user_visible_files_replaces_a_planted_link(tmp_path, record_file):
    """Policy files, replay pages and GIFs, tournament results and plots all write through the
    atomic writer: a link planted where they write is replaced and its target left alone."""
    pytest.importorskip("openskill")
    from monster_zoo.agents.ppo.policy_file import make_metadata, write_policy
    from monster_zoo.envs.replay import load, write_gif, write_html
    from monster_zoo.evaluation import plots

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")

    def planted(name):
        link = tmp_path / name
        link.symlink_to(victim)
        return link

    spec = envs.spec(GAME)
    layers = [
        (np.zeros((spec.obs_size, 4)), np.zeros(4), "tanh"),
        (np.zeros((4, spec.num_actions)), np.zeros(spec.num_actions), None),
    ]
    write_policy(planted("m.npz"), layers, make_metadata(GAME, {"num_players": 2}, [4], "tanh", "m"))
    record = load(record_file)
    write_html(record, planted("r.html"))
    write_gif(record, planted("r.gif"))
    result = tournament.run_tournament(
        GAME, ["random", "greedy"], 2, options={"num_players": 2}, progress=False
    )
    planted("tournament.md"), planted("tournament.json")
    result.write(tmp_path)
    plots.plot_win_matrix(result.to_json(), planted("w.png"))
    assert victim.read_text() == "precious"
    written = ["m.npz", "r.html", "r.gif", "tournament.md", "tournament.json", "w.png"]
    assert all((tmp_path / name).is_file() and not (tmp_path / name).is_symlink() for name in written)


# --- escaping ----------------------------------------------------------------------------------
def cells(row: str):
    """The cells of a markdown table row, split at unescaped pipes."""
    return re.split(r"(?<!\\)\|", row.strip().strip("|"))


def test_each_medium_gets_text_it_shows_and_never_runs():
    for text in HOSTILE:
        shown = visible(text)
        assert not re.search("[\x00-\x1f\x7f-\x9f]", shown)
        cell = markdown_cell(text)
        assert len(cells(f"| {cell} | x |")) == 2 and "<" not in cell and "\n" not in cell, text
        assert "`" not in cell.replace("\\`", "")
        code = markdown_code(text)
        fence = re.match("`+", code).group()
        assert code.endswith(fence) and fence not in code[len(fence) : -len(fence)].strip(), text
        from matplotlib.cbook import is_math_text

        assert not is_math_text(plot_text(text)), text
        assert "<" not in html_text(text) and '"' not in html_text(text)
    assert visible("a\x1b[2Jb\n") == "a\\x1b[2Jb\\n"
    assert markdown_cell("a|b<!--") == "a\\|b&lt;!--"
    assert markdown_code("a`b") == "``a`b``" and markdown_code("plain") == "`plain`"


def test_labels_with_dollars_draw_literally_and_plots_never_parse_math(tmp_path):
    pytest.importorskip("matplotlib")
    from monster_zoo.evaluation import plots

    names = ["x$^$y", "$\\frac{$", "a\nb"]
    results = {
        "field": names,
        "num_players": 2,
        "game": GAME,
        "games_per_pairing": 2,
        "pairings": [
            {"agent": a, "opponent": b, "win_rate": 0.5, "win_rate_low": 0.2, "win_rate_high": 0.8}
            for a in names
            for b in names
            if a != b
        ],
    }
    assert plots.plot_win_matrix(results, tmp_path / "w.png").stat().st_size > 0
    run = tmp_path / "exp$^$1"
    run.mkdir()
    (run / "metrics.csv").write_text(
        "step,wall_time,metric,value\n0,0,eval/winrate_vs_$x$,0.3\n10,1,eval/winrate_vs_$x$,0.5\n"
    )
    assert plots.plot_learning_curves([run], tmp_path / "c.png").stat().st_size > 0
    assert "\n" not in plots.wrap_label("a\nb") and plots.wrap_label("x$y") == "x\\$y"


# --- evaluate -------------------------------------------------------------------------------
def test_evaluate_with_hostile_labels_finishes_and_escapes_every_output(tmp_path, capsys):
    pytest.importorskip("openskill")
    out, records = tmp_path / "out", tmp_path / "records"
    labels = ["x$^$y=random", "a|b<!--\n\x1b[31m=greedy"]
    code, stdout, err = exit_code(
        [
            "evaluate",
            "--agents",
            *labels,
            "--games",
            "2",
            "--option",
            "num_players=2",
            "--out",
            str(out),
            "--save-records",
            str(records),
            "--no-progress",
        ],
        capsys,
    )
    assert code == 0, err
    assert (out / "win_rates.png").stat().st_size > 0 and len(list(records.glob("game_*.json"))) == 2
    assert "\x1b" not in stdout
    table, agents = (out / "tournament.md").read_text().split("Agents: ")
    assert "<" not in table.replace("&lt;", "") and "\x1b" not in table + agents
    assert "`a|b<!--\\n\\x1b[31m` = `greedy`" in agents  # a code span shows HTML as text
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert {len(cells(row)) for row in rows[:3]} == {3} and {len(cells(row)) for row in rows[3:]} == {6}


def test_a_failing_plot_is_a_warning_after_the_results_and_records_are_written(tmp_path, capsys, monkeypatch):
    pytest.importorskip("openskill")
    from monster_zoo.evaluation import plots

    def broken(*args):
        raise ValueError("mathtext could not parse")

    monkeypatch.setattr(plots, "plot_win_matrix", broken)
    out, records = tmp_path / "out", tmp_path / "records"
    code, stdout, err = exit_code(
        [
            "evaluate",
            "--agents",
            "random",
            "greedy",
            "--games",
            "2",
            "--option",
            "num_players=2",
            "--out",
            str(out),
            "--save-records",
            str(records),
            "--no-progress",
        ],
        capsys,
    )
    assert code == 0 and "warning: the win-rate plot was not written (ValueError: mathtext" in err
    assert json.loads((out / "tournament.json").read_text())["field"] == ["random", "greedy"]
    assert (out / "tournament.md").exists() and len(list(records.glob("game_*.json"))) == 2


def test_evaluate_refuses_outputs_that_exist_before_playing(tmp_path, capsys, no_tournament):
    (tmp_path / "tournament.md").write_text("last week's results")
    code, _, err = exit_code(["evaluate", "--agents", "random", "greedy", "--out", str(tmp_path)], capsys)
    assert code == 2 and "tournament.md already exists; choose a new file or pass --overwrite" in err
    records = tmp_path / "records"
    records.mkdir()
    (records / "game_000.json").symlink_to(tmp_path / "victim.txt")
    code, _, err = exit_code(
        ["evaluate", "--agents", "random", "greedy", "--save-records", str(records)], capsys
    )
    assert code == 2 and "already holds match records (game_000.json, ...)" in err


def test_save_records_replaces_a_planted_link_and_never_writes_through_it(tmp_path, capsys):
    pytest.importorskip("openskill")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    records = tmp_path / "records"
    records.mkdir()
    (records / "game_000.json").symlink_to("../victim.txt")
    code, _, err = exit_code(
        [
            "evaluate",
            "--agents",
            "random",
            "greedy",
            "--games",
            "2",
            "--option",
            "num_players=2",
            "--save-records",
            str(records),
            "--records-per-pairing",
            "1",
            "--no-progress",
            "--overwrite",
        ],
        capsys,
    )
    assert code == 0, err
    assert victim.read_text() == "precious"
    assert not (records / "game_000.json").is_symlink() and read_record(records / "game_000.json")


# --- replay -----------------------------------------------------------------------------------
def test_replay_never_writes_over_its_record_or_an_existing_page(tmp_path, record_file, capsys):
    kept = record_file.read_bytes()
    for argv in (
        ["--html", str(record_file)],
        ["--gif", str(record_file)],
        ["--html", str(tmp_path / "a"), "--gif", str(tmp_path / "a")],
    ):
        code, _, err = exit_code(["replay", str(record_file), *argv], capsys)
        assert code == 2 and ("is the input" in err or "name the same file" in err), argv
    assert record_file.read_bytes() == kept
    page = tmp_path / "page.html"
    page.write_text("mine")
    code, _, err = exit_code(["replay", str(record_file), "--html", str(page)], capsys)
    assert code == 2 and "already exists" in err and page.read_text() == "mine"
    code, out, _ = exit_code(["replay", str(record_file), "--html", str(page), "--overwrite"], capsys)
    assert code == 0 and page.read_text().startswith("<!DOCTYPE html>")


def test_unwritable_folders_are_refused_before_the_work(
    tmp_path, record_file, capsys, read_only, monkeypatch
):
    locked = tmp_path / "locked"
    locked.mkdir()
    read_only(locked)
    from monster_zoo.envs import replay

    monkeypatch.setattr(replay, "load", lambda *a, **k: pytest.fail("the record was replayed"))
    code, _, err = exit_code(["replay", str(record_file), "--html", str(locked / "r.html")], capsys)
    assert code == 2 and f"folder {locked} is not writable" in err
    model = tmp_path / "final_model.zip"
    model.write_bytes(b"PK")
    code, _, err = exit_code(["export-model", "--trust-model", str(model), str(locked / "m.npz")], capsys)
    assert code == 2 and f"folder {locked} is not writable" in err
    monkeypatch.setattr(match, "play_game", lambda *a, **k: pytest.fail("the game started"))
    code, _, err = exit_code(["play", "--agents", "random", "--record", str(locked / "g.json")], capsys)
    assert code == 2 and f"folder {locked} is not writable" in err


def test_export_model_refuses_a_dangling_link_and_its_own_input(tmp_path, capsys):
    model = tmp_path / "model.npz"
    model.write_bytes(b"PK")
    dangling = tmp_path / "out.npz"
    dangling.symlink_to(tmp_path / "nowhere.npz")
    code, _, err = exit_code(["export-model", "--trust-model", str(model), str(dangling)], capsys)
    assert code == 2 and "is a symbolic link" in err and not (tmp_path / "nowhere.npz").exists()
    code, _, err = exit_code(["export-model", "--trust-model", str(model), str(model)], capsys)
    assert code == 2 and "is the input" in err


# --- play: a person's game is never lost ---------------------------------------------------------
@pytest.fixture
def first_moves(monkeypatch):
    """stdin of a player who always takes the first listed move."""
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 2000))


def test_play_refuses_an_existing_record_before_the_game_and_replaces_a_link_when_told(
    tmp_path, capsys, first_moves
):
    mine = tmp_path / "mine.json"
    mine.write_text("yesterday's game")
    argv = ["play", "--game", "monstargh-v0", "--agents", "random", "--seed", "2", "--record", str(mine)]
    code, out, err = exit_code(argv, capsys)
    assert (
        code == 2
        and "already exists" in err
        and "game over" not in out
        and mine.read_text() == "yesterday's game"
    )
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "link.json"
    link.symlink_to(victim)
    code, out, err = exit_code(argv[:-1] + [str(link), "--overwrite"], capsys)
    assert code == 0, err
    assert victim.read_text() == "precious" and read_record(link)["agents"] == ["you", "random"]


def test_a_record_that_cannot_be_written_at_the_end_is_kept_elsewhere(
    tmp_path, capsys, first_moves, monkeypatch
):
    """The probe's 45-move game was lost to a read-only folder: now it lands in a private file."""

    def read_only_disk(path, data):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(safe_writing, "write_atomic", read_only_disk)
    monkeypatch.setattr(safe_writing.tempfile, "tempdir", str(tmp_path))
    argv = [
        "play",
        "--game",
        "monstargh-v0",
        "--agents",
        "random",
        "--seed",
        "2",
        "--record",
        str(tmp_path / "g.json"),
    ]
    code, out, err = exit_code(argv, capsys)
    assert code == 1 and "could not write" in err and "Read-only file system" in err
    kept = Path(re.search(r"kept in (\S+) instead", err).group(1))
    assert kept.parent == tmp_path and stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert read_record(kept)["agents"] == ["you", "random"]

    def no_temporary_folder(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safe_writing.tempfile, "mkstemp", no_temporary_folder)
    code, out, err = exit_code(argv, capsys)
    assert code == 1 and "the game's match record follows" in err
    printed = json.loads(out[out.index('{\n "format"') :])
    assert printed["agents"] == ["you", "random"] and printed["result"]["length"] == len(printed["actions"])


def test_play_shows_names_from_the_command_line_inert(capsys, first_moves):
    code, out, err = exit_code(["play", "--agents", "\x1b[2J\x1b[31m=random", "--seed", "1"], capsys)
    assert code == 0, err
    assert "\x1b" not in out and "(\\x1b[2J\\x1b[31m)" in out


# --- leaderboard ------------------------------------------------------------------------------
def test_the_leaderboard_markdown_escapes_names_and_links(tmp_path):
    pytest.importorskip("openskill")
    from monster_zoo.evaluation import leaderboard

    summary = {
        "key": "k",
        "markdown": "## table",
        "picture": "k (1).png",
        "elapsed_s": 60.0,
        "games": 2,
        "game_id": GAME,
        "num_players": 2,
        "reused": False,
        "ranking": [{"agent": "<img src=x onerror=alert(1)>|", "ordinal": 1.0}],
    }
    text = leaderboard.render([summary], "my board", 0, 1, 60.0)
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;\\|" in text
    assert "(my%20board/k%20%281%29.png)" in text
    without_picture = leaderboard.render([{**summary, "picture": None}], "lb", 0, 1, 60.0)
    assert "![" not in without_picture
