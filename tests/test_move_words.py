"""Moves in words (monster_zoo.envs.core.move_words): the game's words beside a move's name where the
name uses codes, told only to a viewer who knows the move, the same in the terminal ``play``,
the replay viewer and the web page; the names themselves (records) are unchanged.
"""
import io

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.human.agent import HumanAgent
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.envs.core.move_words import legal_moves_in_words, move_words, named_with_words, text_view_explainer
from monster_zoo.envs.replay import build_record, pictures

EXPLAINED = ("mighty_monsters-v0", "monster_arena-v0", "monster_factory-v0")


def walk(game_id, steps, seed=0, **options):
    """The raw env of ``game_id`` after ``steps`` random actions (or at its end)."""
    env = envs.make(game_id, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if not env.unwrapped.legal_actions():
            break
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    return env.unwrapped


def test_games_with_coded_names_explain_every_move_to_its_mover_and_only_known_moves_to_others():
    assert [g for g in envs.available() if text_view_explainer(envs.spec(g)) is not None] == list(EXPLAINED)
    for game_id in EXPLAINED:
        hidden = explained = 0
        for steps in (0, 5, 20, 40):
            raw = walk(game_id, steps)
            state, spec = raw.engine_state, raw.spec
            mover = int(state[H_CURRENT])
            for action in raw.legal_actions():
                said = move_words(spec, state, action, mover)
                assert said != spec.action_to_str(action, state), "words say more than the name, or are None"
                explained += said is not None
                for viewer in (None, *range(len(raw.possible_agents))):
                    knows = viewer == mover or spec.describe_action(state, action, viewer) == \
                        spec.action_to_str(action, state)
                    assert move_words(spec, state, action, viewer) == (said if knows else None)
                    hidden += not knows
        assert explained, f"{game_id}: its moves are explained"
        if game_id != "monster_factory-v0":  # nothing is hidden in Monster Factory (MF-18)
            assert hidden, f"{game_id}: some move is secret from some viewer"


def test_the_terminal_lists_moves_with_their_words():
    raw = walk("monster_factory-v0", 4, num_players=2)
    out = io.StringIO()
    agent = HumanAgent("monster_factory-v0", input_stream=io.StringIO("1\n"), output_stream=out)
    seen = raw.observe(raw.agent_selection)
    action = agent.act(seen["observation"], seen["action_mask"], raw.engine_state.copy())
    first = f"  1. {raw.spec.action_to_str(action, raw.engine_state)} (lay tile "
    assert first in out.getvalue()


def test_the_replay_viewer_names_moves_with_their_words_for_whoever_knew_them():
    raw = walk("monster_arena-v0", 0, num_players=2)
    record = build_record("monster_arena-v0", dict(raw.options), 0, [raw.legal_actions()[0]])
    _, names, _ = pictures(record)
    first = record["actions"][0]
    assert names["public"][0].startswith(first["name"] + " (take ") and "Defense" in names["public"][0]
    assert names["public"][0] == named_with_words(raw.spec, raw.engine_state, first["action"], None)


def test_legal_moves_in_words_are_the_movers_moves_with_names_and_words():
    raw = walk("monster_factory-v0", 3, num_players=2)
    listed = legal_moves_in_words(raw.spec, raw.engine_state, raw.legal_actions())
    assert [m["action"] for m in listed] == raw.legal_actions()
    assert all(m["name"] == raw.spec.action_to_str(m["action"], raw.engine_state) and m["words"] for m in listed)
