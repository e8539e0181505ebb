"""Terminal play that explains itself: legends, ``help``, card texts, Ctrl-C, the first
compile announced once, and ``make play`` that installs only when it must."""

import io
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents.human.agent import HumanAgent
from monster_zoo.cli import main as cli
from monster_zoo.envs import registry as envs_registry
from monster_zoo.envs.monster_arena.components import CARD_LABEL, CARD_NAME
from monster_zoo.envs.registry import kernels_cached

ROOT = Path(__file__).resolve().parents[1]
ARENA = "monster_arena-v0"


def first_decision(game_id: str, seed: int = 0):
    env = envs.make(game_id)
    env.reset(seed=seed)
    obs = env.observe(env.agent_selection)
    return obs["observation"], obs["action_mask"], env.unwrapped.engine_state


def answers(game_id: str, lines):
    """What a HumanAgent prints when a person types ``lines`` and then move 1."""
    out = io.StringIO()
    agent = HumanAgent(
        game_id, input_stream=io.StringIO("".join(f"{x}\n" for x in [*lines, "1"])), output_stream=out
    )
    obs, mask, state = first_decision(game_id)
    assert agent.act(obs, mask, state) == np.flatnonzero(mask)[0]
    return out.getvalue()


def test_every_game_has_a_legend_of_its_symbols(game_id):
    legend = envs.spec(game_id).legend
    assert len(legend.splitlines()) >= 4
    assert "* marks the player on move" in legend or "* on move" in legend
    text = answers(game_id, ["legend"])
    assert legend in text and text.count("=== your turn") == 1


def test_help_explains_instead_of_reprinting_the_board(game_id):
    text = answers(game_id, ["help"])
    assert text.count("=== your turn") == 1, "help reprinted the board"
    assert "How to move: type a move's number" in text and "legend" in text and "quit" in text
    assert str(Path("seeds") / envs.spec(game_id).name / "rules.md") in text


def test_board_is_still_shown_again_on_request():
    assert answers("marry_the_monster-v0", ["board"]).count("=== your turn") == 2


def test_monster_arena_cards_are_explained_by_name():
    text = answers(ARENA, ["help PI2", "help zz"])
    assert "PI Pincer: part, 2 in the game" in text and "pinch: active, 1 energy" in text
    assert "no card 'zz': give a card such as SA3" in text
    assert "help CARD" in answers(ARENA, ["help"])
    assert "has no cards with texts" in answers("marry_the_monster-v0", ["help SA3"])


def test_every_monster_arena_card_has_a_text():
    card_text = envs.spec(ARENA).card_text
    for label, name in zip(CARD_LABEL, CARD_NAME):
        text = card_text(label)
        assert name in text and "Defense" in text and ("attack:" in text or "cannot attack" in text)
    assert card_text("stitched arm") == card_text("SA1") == card_text("sa")


def test_the_first_compile_is_announced_once(monkeypatch, capsys):
    monkeypatch.setattr(envs_registry, "kernels_cached", lambda game_id: False)
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert cli.main(["play", "--agents", "random"]) == 0
    out = capsys.readouterr().out
    assert out.count("compiling marry_the_monster-v0's kernels (first run only") == 1
    assert "...  done in" not in out and "... done in " in out
    monkeypatch.setattr(envs_registry, "kernels_cached", lambda game_id: True)
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert cli.main(["play", "--agents", "random"]) == 0
    assert "compil" not in capsys.readouterr().out  # warm: nothing to say


def test_kernels_cached_looks_beside_the_game_package(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert kernels_cached("marry_the_monster-v0")  # the session fixture warmed it
    empty = type("Spec", (), {"submodule_search_locations": [str(tmp_path)]})()
    monkeypatch.setattr("importlib.util.find_spec", lambda name: empty)
    assert not kernels_cached("marry_the_monster-v0")
    with pytest.raises(ValueError, match="unknown game"):
        kernels_cached("chess-v0")


@pytest.mark.skipif(os.name != "posix", reason="needs POSIX signals")
def test_ctrl_c_leaves_cleanly_with_status_130():
    # SIGINT back to its default in the child: a test run started in the background inherits it
    # ignored, and Python then installs no Ctrl-C handler at all
    proc = subprocess.Popen(
        [sys.executable, "-m", "monster_zoo.training", "play", "--agents", "random"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    seen = ""
    while "your move" not in seen:
        char = proc.stdout.read(1)
        assert char, f"the game ended before asking for a move: {proc.stderr.read()}"
        seen += char
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_play_installs_only_when_pyproject_changed(tmp_path):
    shutil.copy(ROOT / "Makefile", tmp_path)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)

    def planned() -> str:
        return subprocess.run(
            ["make", "-n", "play"], cwd=tmp_path, capture_output=True, text=True, check=True
        ).stdout

    assert "pip install" in planned()  # a new venv: install once
    (tmp_path / ".venv" / ".monster-zoo-installed").touch()
    assert "pip install" not in planned() and "monster_zoo.training play" in planned()
    stamp = (tmp_path / ".venv" / ".monster-zoo-installed").stat().st_mtime
    os.utime(tmp_path / "pyproject.toml", (stamp + 10, stamp + 10))
    assert "pip install" in planned()
