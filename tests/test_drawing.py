"""The SVG drawing of every game (envs/<game>/picture.py) and ``render_mode="rgb_array"``.

Hidden information: a state and its ``determinize`` sample for a seat differ only in what
that seat cannot see, so the seat's picture and the public picture must be the same for
both; the sample for *another* seat resamples this seat's secrets, so where the game has
any, some seat's picture must change (the seat's view does show its own cards).
"""

import pickle
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.envs.core.picture import HEIGHT, WIDTH, fit_transform, rasterize
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.registry import declaration

pytest.importorskip(
    "resvg_py", reason="the render extra (resvg-py) is not installed: pip install '.[render]'"
)

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT_STEPS = (0, 12, 40, 90)
# Games where some seat holds secrets that determinize resamples (not Monster Factory, MF-18).
HIDDEN = {g for g in envs.available() if declaration(g).hides_information}  # the games that hide something


def snapshots(game_id, seed=0, steps=SNAPSHOT_STEPS, **options):
    """Pickled copies of a random game's raw env after each of ``steps`` actions (or at its end)."""
    env = envs.make(game_id, **options)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    out = []
    for k in range(max(steps) + 1):
        if k in steps:
            out.append(pickle.loads(pickle.dumps(raw)))
        if any(raw.terminations.values()) or any(raw.truncations.values()):
            out.append(pickle.loads(pickle.dumps(raw)))
            break
        env.step(int(rng.choice(raw.legal_actions())))
    return out


def with_state(raw, state):
    """A copy of env ``raw`` holding ``state`` (same last action)."""
    clone = pickle.loads(pickle.dumps(raw))
    clone._state[:] = state
    return clone


def seats(raw):
    return range(len(raw.possible_agents))


def test_every_view_is_well_formed_svg_of_the_frame_size(game_id):
    for raw in snapshots(game_id):
        for viewer in (None, *seats(raw)):
            svg = raw.draw(viewer)
            root = ET.fromstring(svg)
            assert (
                root.tag.endswith("svg")
                and root.get("width") == str(WIDTH)
                and root.get("height") == str(HEIGHT)
            )
            text = "".join(root.itertext())
            assert "player_0" in text
            assert ("public view" if viewer is None else f"player_{viewer}'s view") in text


def text_of(svg: str) -> str:
    """The text a picture shows."""
    return "".join(ET.fromstring(svg).itertext())


def test_the_last_action_is_named_in_the_picture(game_id):
    raw = snapshots(game_id, steps=(5,))[0]
    actor, action, public, full = raw.last_action()
    assert f"player_{actor}: {full}" in text_of(raw.draw(actor))
    assert f"player_{actor}: {public}" in text_of(raw.draw(None))


@pytest.mark.parametrize("seed", [0, 1])
def test_hidden_information_never_reaches_a_picture(game_id, seed):
    spec = envs.spec(game_id)
    for raw in snapshots(game_id, seed):
        for p in seats(raw):
            sample = raw.engine_state.copy()
            spec.determinize(sample, p, make_rng(seed * 100 + p))
            twin = with_state(raw, sample)
            assert twin.draw(p) == raw.draw(p), f"player_{p}'s picture shows something hidden from them"
            assert twin.draw(None) == raw.draw(None), "the public picture shows something hidden from a seat"


def test_a_seat_view_shows_that_seats_own_secrets(game_id):
    """Resampling for seat p redeals the others' secrets: some other seat's own view must change."""
    if game_id not in HIDDEN:
        pytest.skip("nothing is hidden in this game (MF-18)")
    spec = envs.spec(game_id)
    for seed in range(4):
        for raw in snapshots(game_id, seed):
            for p in seats(raw):
                sample = raw.engine_state.copy()
                spec.determinize(sample, p, make_rng(seed * 100 + p))
                twin = with_state(raw, sample)
                if any(twin.draw(q) != raw.draw(q) for q in seats(raw) if q != p):
                    return
    pytest.fail("no seat's picture shows that seat's own secrets")


def test_rgb_array_is_an_rgb_image_that_follows_the_state(game_id):
    env = envs.make(game_id, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    env.reset(seed=2)
    first = env.render()
    assert first.shape == (HEIGHT, WIDTH, 3) and first.dtype == np.uint8
    rng = np.random.default_rng(2)
    for _ in range(6):
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    later = env.render()
    assert later.shape == first.shape and (later != first).any(axis=2).sum() > 200
    assert len(np.unique(later.reshape(-1, 3), axis=0)) > 8, "a picture, not a blank canvas"


def test_public_pixels_are_identical_for_states_differing_only_in_hidden_information(game_id):
    spec = envs.spec(game_id)
    raw = snapshots(game_id, seed=3, steps=(12,))[0]
    sample = raw.engine_state.copy()
    spec.determinize(sample, 0, make_rng(5))
    twin = with_state(raw, sample)
    assert np.array_equal(rasterize(twin.draw(None)), rasterize(raw.draw(None)))
    if game_id in HIDDEN:
        assert not np.array_equal(rasterize(raw.draw(0)), rasterize(raw.draw(None))), (
            "player_0's view should show what only player_0 sees"
        )


def test_human_still_prints_text_and_ansi_returns_it(game_id, capsys):
    env = envs.make(game_id, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None and "player_0" in capsys.readouterr().out


def test_draw_refuses_a_seat_that_is_not_at_the_table_and_a_game_not_started():
    env = envs.make("marry_the_monster-v0", num_players=3)
    with pytest.raises(RuntimeError, match="call reset"):
        env.unwrapped.draw()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="seat 5 is not at this table"):
        env.unwrapped.draw(5)
    assert env.unwrapped.draw("player_2") == env.unwrapped.draw(2)


def test_unbounded_content_is_scaled_to_fit():
    # MF and MONSTArgh! tables grow without bound: whatever the content's size, it lands in the box.
    for size in (100, 1000, 100000):
        transform = fit_transform((0, 0, size, size / 2), (10, 20, 600, 400))
        scale = float(transform.split("scale(")[1].rstrip(")"))
        assert scale * size <= 600 + 1e-6 and scale * size / 2 <= 400 + 1e-6


def test_a_long_monster_factory_game_still_fits_the_frame():
    raw = snapshots("monster_factory-v0", seed=4, steps=(400,), num_players=2)[-1]
    pixels = rasterize(raw.draw(None))
    assert pixels.shape == (HEIGHT, WIDTH, 3)


def test_the_pictures_benchmark_runs(capsys):
    from monster_zoo.benchmarks import pictures

    assert pictures.main(["--game", "mighty_monsters-v0", "--games", "1"]) == 0
    table = capsys.readouterr().out
    assert "| mighty_monsters-v0 | 4 |" in table and "replay page (KB)" in table


def test_the_docs_picture_script_draws_a_game(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_pictures", ROOT / "docs" / "make_pictures.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = script.game_picture("mighty_monsters-v0", tmp_path / "mm.png")
    from PIL import Image

    with Image.open(out) as image:
        assert image.size == (int(WIDTH * script.ZOOM), int(HEIGHT * script.ZOOM))


def test_mighty_monsters_setup_pair_is_named_to_its_own_seat_only():
    raw = snapshots("mighty_monsters-v0", steps=(1,))[0]
    actor, _, public, full = raw.last_action()
    assert full.startswith("lay down") and public == "lay two cards face down"
    assert full not in text_of(raw.draw(None))
    assert full not in text_of(raw.draw((actor + 1) % len(raw.possible_agents)))
    assert full in text_of(raw.draw(actor))
