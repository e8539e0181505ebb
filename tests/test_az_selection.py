"""The learned search's selection rules (``SearchSettings.selection``): UCT with the priors as a
tie-break, the Gumbel paper's rule below the root, and the screen that compares them at equal time.

Each rule is checked first on constructed nodes, where its choice follows from its formula by hand,
then through whole searches: the clearly best moves of tests/test_search_positions.py, and the same
decisions from the same seed.
"""

import json

import numpy as np
import pytest
from test_az import MTM, clear_positions, decide, legal, reachable

from monster_zoo import envs
from monster_zoo.agents.az.agent import AZAgent
from monster_zoo.agents.az.search import (
    SELECTIONS,
    UCT,
    SearchSettings,
    _gumbel_action,
    _most_visited,
    _uct_action,
)
from monster_zoo.agents.network import MAX_SEATS, random_network, read_network, write_network
from monster_zoo.agents.search.tree import UNTRIED
from monster_zoo.evaluation.match import DRAW, LOSS, WIN
from monster_zoo.training.az import selection_screen
from monster_zoo.training.az.selection_screen import (
    CurveError,
    paired_difference,
    parse_rule,
    parse_rules,
    screen,
)
from monster_zoo.training.az.strength import build_parser


def node(priors, visits, values, parent_visits=None):
    """Node 0 with one action per entry of ``priors``: an action of 0 ``visits`` has no child, one
    with visits has child row ``1 + a`` worth ``values[a]`` to seat 0 on average. Returns the
    tree's arrays and the legal actions (every action)."""
    count = len(priors)
    children = np.full((count + 1, count), UNTRIED, np.int32)
    counts = np.zeros(count + 1, np.int32)
    sums = np.zeros((count + 1, MAX_SEATS))
    for a, (n, q) in enumerate(zip(visits, values)):
        if n > 0:
            children[0, a] = 1 + a
            counts[1 + a] = n
            sums[1 + a, 0] = n * q
    counts[0] = sum(visits) + 1 if parent_visits is None else parent_visits
    sums[0, 0] = sum(n * q for n, q in zip(visits, values))
    table = np.zeros((count + 1, count), np.float32)
    table[0] = priors
    return children, counts, sums, table, np.arange(count, dtype=np.int32)


def uct(priors, visits, values, exploration=1.0):
    children, counts, sums, table, actions = node(priors, visits, values)
    return _uct_action(0, actions, len(actions), 0, exploration, children, counts, sums, table)


def gumbel(priors, visits, values):
    settings = SearchSettings()
    children, counts, sums, table, actions = node(priors, visits, values)
    return _gumbel_action(
        0,
        actions,
        len(actions),
        0,
        settings.c_visit,
        settings.c_scale,
        settings.min_spread,
        children,
        counts,
        sums,
        table,
    )


# --- UCT, the priors breaking ties ------------------------------------------------------------
def test_uct_tries_untried_actions_first_the_most_probable_first():
    assert uct([0.2, 0.5, 0.3], [0, 0, 0], [0, 0, 0]) == 1
    # a tried action worth the most still waits for the untried ones, however improbable
    assert uct([0.8, 0.05, 0.15], [5, 0, 0], [1.0, 0, 0]) == 2


def test_uct_breaks_equal_scores_by_the_priors_and_otherwise_ignores_them():
    """Equal visits and values: the more probable action (not the first); a better mean value
    wins whatever the priors say."""
    assert uct([0.1, 0.6, 0.3], [4, 4, 4], [0.2, 0.2, 0.2]) == 1
    assert uct([0.1, 0.6, 0.3], [4, 4, 4], [0.5, 0.2, 0.2]) == 0


@pytest.mark.parametrize("exploration,chosen", [(0.1, 0), (2.0, 1)])
def test_uct_exploration_weighs_the_less_visited_action(exploration, chosen):
    """Action 0: 10 visits worth 0.3; action 1: 2 visits worth 0.1; N = 13. The scores are
    ``0.3 + c sqrt(ln 13 / 10)`` and ``0.1 + c sqrt(ln 13 / 2)``: the second passes the first
    from ``c = 0.2 / (sqrt(ln 13 / 2) - sqrt(ln 13 / 10)) = 0.32``."""
    threshold = 0.2 / (np.sqrt(np.log(13) / 2) - np.sqrt(np.log(13) / 10))
    assert 0.1 < threshold < 2.0
    assert uct([0.5, 0.5], [10, 2], [0.3, 0.1], exploration) == chosen


def test_uct_at_the_root_plays_the_most_visited_the_priors_breaking_ties():
    children, counts, sums, _, actions = node([0.2, 0.3, 0.5], [6, 6, 3], [0.0, 0.0, 0.0])
    probs = np.array([0.2, 0.3, 0.5], np.float32)
    policy = np.full(3, 7.0, np.float32)
    assert _most_visited(actions, 3, probs, policy, children, counts) == 1
    assert np.allclose(policy, [0.4, 0.4, 0.2])


# --- the Gumbel paper's rule below the root -------------------------------------------------------
def test_gumbel_rule_without_visits_follows_the_priors():
    assert gumbel([0.2, 0.7, 0.1], [0, 0, 0], [0, 0, 0]) == 1


def test_gumbel_rule_visits_the_action_furthest_behind_its_improved_share():
    """Equal priors and values: the improved policy is even, so the less visited action (3 and 1
    of 4 visits: 0.5 - 3/5 against 0.5 - 1/5)."""
    assert gumbel([0.5, 0.5], [3, 1], [0.0, 0.0]) == 1


def test_gumbel_rule_moves_the_improved_policy_by_the_values():
    """Priors 0.3 and 0.7, two visits each worth +1 and -1: sigma adds
    ``(c_visit + 2) * c_scale * 2 / 2 = 5.2`` to the first's logit, so pi' is about
    (0.987, 0.013) and the first scores 0.987 - 2/5 against 0.013 - 2/5; with the values swapped,
    the second."""
    settings = SearchSettings()
    boost = np.exp((settings.c_visit + 2) * settings.c_scale * 2 / settings.min_spread)
    improved = 0.3 * boost / (0.3 * boost + 0.7)
    assert improved > 0.98
    assert gumbel([0.3, 0.7], [2, 2], [1.0, -1.0]) == 0
    assert gumbel([0.3, 0.7], [2, 2], [-1.0, 1.0]) == 1


# --- whole searches ---------------------------------------------------------------------------
RULES = [("uct", 0.0), ("gumbel", 1.0)]


@pytest.mark.parametrize("selection,gumbel_scale", RULES)
@pytest.mark.parametrize(
    "game_id,num_players,state,best",
    clear_positions(),
    ids=lambda v: v if isinstance(v, (str, int)) else "state",
)
def test_each_rule_finds_the_clearly_best_move(game_id, num_players, state, best, selection, gumbel_scale):
    """The positions of tests/test_search_positions.py (a move that wins at once or within the turn
    whatever the hidden cards) solved by each rule over an untrained network, the state untouched."""
    network = random_network(game_id, (64, 64), seed=5)
    before = state.copy()
    agent = AZAgent(
        1,
        network,
        game_id,
        {"num_players": num_players},
        simulations=400,
        selection=selection,
        gumbel_scale=gumbel_scale,
    )
    action, visits, policy = decide(agent, game_id, state)
    spec = envs.spec(game_id)
    assert spec.action_to_str(action, state) == best, {
        spec.action_to_str(int(a), state): int(visits[a]) for a in np.flatnonzero(legal(game_id, state))
    }
    assert np.array_equal(state, before)
    assert abs(policy.sum() - 1) < 1e-5 and np.all(policy[legal(game_id, state) == 0] == 0)


@pytest.mark.parametrize("selection,gumbel_scale", RULES)
def test_each_rule_decides_the_same_for_a_seed(selection, gumbel_scale):
    """One seed, one decision (visits and policy too), rollouts included; every simulation of
    the budget is spent (UCT's search has no halving schedule that stops early)."""
    network = random_network(MTM, (32, 32), seed=1)
    state = reachable(MTM, 3, 4, 30)
    options = {"num_players": 3}
    settings = {
        "simulations": 96,
        "selection": selection,
        "gumbel_scale": gumbel_scale,
        "rollout_weight": 0.5,
    }
    (a0, v0, p0), (a1, v1, p1) = (
        decide(AZAgent(7, network, MTM, options, **settings), MTM, state) for _ in "ab"
    )
    assert a0 == a1 and np.array_equal(v0, v1) and np.array_equal(p0, p1)
    assert legal(MTM, state)[a0] and v0.sum() == 96
    if selection == "uct":  # the policy is the visit shares, the move the most visited
        assert np.allclose(p0, v0 / v0.sum()) and v0[a0] == v0.max()


def test_the_default_rule_and_its_settings_vector_stay_as_they_were():
    settings = SearchSettings()
    assert settings.selection == "puct" and SELECTIONS[0] == "puct"
    vector = settings.as_array()
    assert vector.shape == (10,) and vector[8] == 0.0 and vector[9] == settings.exploration
    assert SearchSettings(selection="uct").as_array()[8] == UCT


@pytest.mark.parametrize(
    "fields,message",
    [
        ({"selection": "ucb"}, "selection must be one of puct, uct, gumbel; got 'ucb'"),
        ({"selection": 1}, "selection must be one of puct, uct, gumbel"),
        ({"exploration": -0.5}, "exploration must be >= 0"),
    ],
)
def test_bad_rules_are_refused_naming_the_valid_ones(fields, message):
    with pytest.raises(ValueError, match=message):
        SearchSettings(**fields)
    with pytest.raises(ValueError, match=message):
        AZAgent(0, random_network(MTM, (8,), seed=0), MTM, {"num_players": 2}, **fields)


def test_strength_takes_the_rule_and_refuses_an_unknown_one(capsys):
    args = build_parser().parse_args(
        ["--network", "n.npz", "--players", "2", "--selection", "uct", "--exploration", "0.7"]
    )
    assert (args.selection, args.exploration, args.gumbel_scale) == ("uct", 0.7, None)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--network", "n.npz", "--players", "2", "--selection", "ucb"])
    assert "invalid choice: 'ucb'" in capsys.readouterr().err


# --- the screen ------------------------------------------------------------------------------
def test_rules_are_read_by_name_or_by_their_fields():
    assert parse_rule("uct-1") == ("uct-1", {"selection": "uct", "exploration": 1.0})
    assert parse_rule("u7:selection=uct,exploration=0.7,considered=8") == (
        "u7",
        {"selection": "uct", "exploration": 0.7, "considered": 8},
    )
    assert [label for label, _ in parse_rules("puct,uct-2")] == ["puct", "uct-2"]
    assert [label for label, _ in parse_rules("puct;u7:selection=uct,exploration=0.7")] == ["puct", "u7"]
    for bad, message in (
        ("ucb", "neither one of puct"),
        ("x:exploration=high", "exploration must be a float"),
        ("x:temperature=1", "not key=value with a key of selection"),
        ("x:selection=ucb", "selection must be one of"),
        ("a b:selection=uct", "a label of letters"),
    ):
        with pytest.raises(CurveError, match=message):
            parse_rule(bad)
    with pytest.raises(CurveError, match="distinct rules"):
        parse_rules("puct,puct")


def test_the_paired_difference_counts_deal_by_deal():
    """Three deals: the second rule turns a loss into a win and a win into a draw: +0.5 over three
    deals, mean 1/6; another seed plays other deals, so no pairing."""
    base = {"seed": 0, "games": 3, "outcomes": [LOSS, WIN, WIN]}
    other = {"seed": 0, "games": 3, "outcomes": [WIN, DRAW, WIN]}
    paired = paired_difference(other, base)
    assert paired["mean"] == pytest.approx(1 / 6, abs=1e-4)
    low, high = paired["interval95"]
    assert low < paired["mean"] < high
    assert paired_difference({**other, "seed": 1}, base) is None


def test_a_screen_plays_each_rule_on_the_same_deals_and_resumes(tmp_path, monkeypatch):
    """Every rule is one series of ``measure`` with its constants, one seed for all; a second
    screen reads the reports instead of playing again, and refuses a folder of another comparison."""
    network = tmp_path / "net.npz"
    write_network(network, random_network(MTM, (8,), seed=0, player_counts=[2]))
    played = []

    def fake_measure(path, opponent, players, games, seed, search=None, progress=False, **series):
        played.append(dict(search))
        # the reference wins every other deal, the other rule every deal
        outcomes = [WIN if search or i % 2 else LOSS for i in range(games)]
        return {
            "game": MTM,
            "options": {"num_players": players},
            "network": read_network(path).name,
            "num_players": players,
            "opponent": opponent,
            "seed": seed,
            "games": games,
            "wins": outcomes.count(WIN),
            "draws": 0,
            "outcomes": outcomes,
            "az_rollout_weight": series["rollout_weight"],
            "az_search": search,
            "az_simulations": 10 + len(played),
            "win_rate": outcomes.count(WIN) / games,
            "interval95": [0.1, 0.9],
            "az": {"mean_ms": 1.0, "p95_ms": 1.0, "moves": 5},
            "opponent_moves": {"mean_ms": 1.0, "p95_ms": 1.0, "moves": 5},
        }

    monkeypatch.setattr(selection_screen, "measure", fake_measure)
    rules = parse_rules("puct,uct-1")
    out = tmp_path / "screen"
    out.mkdir()
    summary = screen(str(network), 2, "greedy", rules, 4, 3, out, {"rollout_weight": 1.0})
    assert played == [{}, {"selection": "uct", "exploration": 1.0}]
    assert [row["rule"] for row in summary["rules"]] == ["puct", "uct-1"]
    assert summary["rules"][0]["against_first"]["mean"] == 0.0
    assert summary["rules"][1]["against_first"]["mean"] == 0.5
    assert json.loads((out / "uct-1.json").read_text())["az_search"] == {
        "selection": "uct",
        "exploration": 1.0,
    }
    again = screen(str(network), 2, "greedy", rules, 4, 3, out, {"rollout_weight": 1.0})
    assert len(played) == 2 and again == summary
    with pytest.raises(CurveError, match="measured another comparison"):
        screen(str(network), 2, "greedy", rules, 4, 5, out, {"rollout_weight": 1.0})


def test_the_screen_command_refuses_bad_rules_before_playing(tmp_path, capsys):
    network = tmp_path / "net.npz"
    write_network(network, random_network(MTM, (8,), seed=0, player_counts=[2]))
    with pytest.raises(SystemExit):
        selection_screen.main(
            ["--network", str(network), "--players", "2", "--rules", "ucb", "--out-dir", str(tmp_path / "s")]
        )
    assert "neither one of puct" in capsys.readouterr().err and not (tmp_path / "s").exists()
