"""Every shipped agent - the tuned search baselines, the trained champions and the shipped learned
search (``<game>-az-vK``, every version shipped) - by its name.

For each one: it loads by its versioned name, plays only legal actions through the AEC
env (which refuses anything else), decides the same for the same seed, decides the same
when only what its seat cannot see changes, and beats random players. Beating greedy is
measured by the slow tests at the end (``pytest -m slow``).
"""

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.az.shipped import network_ships, shipped_versions
from monster_zoo.agents.ppo.champions import champion_games, champion_name, champion_versions
from monster_zoo.agents.search.tuned import FastTunedMCTS, TunedMCTS, search_names
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.registry import declaration
from monster_zoo.evaluation.match import play_game, run_match

GAMES = envs.available()
HIDES_NOTHING = {g for g in envs.available() if not declaration(g).hides_information}  # e.g. MF-18
CHAMPIONS = [(f"{game}-v0", n) for game, counts in champion_games().items() for n in counts]


def smallest(game_id: str) -> int:
    return envs.spec(game_id).min_players


def shipped(game_id: str, num_players: int):
    """(versioned name, options) of every shipped agent of the game at this player count."""
    options = {"num_players": num_players}
    names = list(search_names(game_id))
    names += champion_names(game_id, num_players)
    names += az_names(game_id)
    return [(name, options) for name in names]


def az_names(game_id: str):
    """The versioned names of the shipped learned search and its network alone, at every version
    shipped (none where no network ships)."""
    game = envs.spec(game_id).name
    return [
        f"{game}-{short}-v{version}" for version in shipped_versions(game_id) for short in ("az", "az-net")
    ]


def champion_names(game_id: str, num_players: int):
    """The versioned names of every champion shipped for the game at this player count."""
    return [champion_name(game_id, v) for v in champion_versions(envs.spec(game_id).name, num_players)]


def newest_champion(game_id: str, num_players: int) -> str:
    """What the short name ``champion`` plays at this player count."""
    return champion_names(game_id, num_players)[-1]


AGENTS = [
    (game_id, name, options) for game_id in GAMES for name, options in shipped(game_id, smallest(game_id))
]
AGENTS += [
    (game_id, name, {"num_players": n})
    for game_id, n in CHAMPIONS
    if n != smallest(game_id)
    for name in champion_names(game_id, n)
]


def agent_id(params):
    """Test ids name the game, the agent and the player count (``...-champion-v1-4p``)."""
    return f"{params['num_players']}p" if isinstance(params, dict) else params


def mid_game_states(game_id: str, options: dict, count: int):
    """``count`` states reached by random play, each with the seat on move to decide."""
    spec = envs.spec(game_id)
    config = envs.config(game_id, options)
    states = []
    for seed in range(count * 3):
        state, _, _ = random_playout(spec, config, 7 + 5 * seed, seed=seed)
        if state[H_TERMINAL] == 0:
            states.append(state)
        if len(states) == count:
            break
    return states


def view(game_id: str, state: np.ndarray):
    """The observation and mask of the seat on move in ``state``."""
    spec = envs.spec(game_id)
    obs = np.zeros(spec.obs_size, np.float32)
    mask = np.zeros(spec.num_actions, np.int8)
    spec.observe_into(state, state[H_CURRENT], obs)
    spec.legal_mask(state, mask)
    return obs, mask


@pytest.mark.parametrize("game_id,name,options", AGENTS, ids=lambda p: agent_id(p))
def test_loads_by_name_and_plays_legal_whole_games(game_id, name, options):
    """The versioned name loads; two seeded games against random finish without an illegal action
    (the AEC env raises on one)."""
    agent = make_agent(name, game_id, seed=1, options=options)
    assert agent.name == name or isinstance(agent, TunedMCTS)
    n = options["num_players"]
    env = envs.make(game_id, **options)
    for seed in range(2):
        seats = [agent] + [make_agent("random", game_id, seed=s) for s in range(1, n)]
        outcome = play_game(env, seats, seed=seed)
        assert outcome["length"] > 0


@pytest.mark.parametrize("game_id,name,options", AGENTS, ids=lambda p: agent_id(p))
def test_same_seed_same_decisions(game_id, name, options):
    """Two agents built with one seed choose the same action in every state."""
    first, second = (make_agent(name, game_id, seed=5, options=options) for _ in range(2))
    for state in mid_game_states(game_id, options, 3):
        obs, mask = view(game_id, state)
        a = first.act(obs, mask, state.copy() if first.needs_state else None)
        b = second.act(obs, mask, state.copy() if second.needs_state else None)
        assert a == b and mask[a] == 1


def states_with_hidden_information(game_id: str, options: dict, count: int):
    """``count`` (state, redealt twin) pairs from random play in which the game's ``determinize``
    changed something the seat on move cannot see (early states of some games hide nothing)."""
    spec = envs.spec(game_id)
    pairs = []
    for k, state in enumerate(mid_game_states(game_id, options, 8 * count)):
        other = state.copy()
        spec.determinize(other, other[H_CURRENT], make_rng(100 + k))
        if not np.array_equal(other, state):
            pairs.append((state, other))
        if len(pairs) == count:
            break
    return pairs


@pytest.mark.parametrize("game_id,name,options", AGENTS, ids=lambda p: agent_id(p))
def test_hidden_information_does_not_change_a_decision(game_id, name, options):
    """Redealing what the seat on move cannot see (the game's ``determinize``) leaves the
    observation and the agent's choice unchanged."""
    if game_id in HIDES_NOTHING:
        pytest.skip(f"{game_id} hides nothing (its determinize resamples nothing)")
    pairs = states_with_hidden_information(game_id, options, 3)
    assert len(pairs) == 3, "too few states had anything hidden to redeal: the test would prove little"
    for state, other in pairs:
        obs, mask = view(game_id, state)
        other_obs, other_mask = view(game_id, other)
        assert np.array_equal(obs, other_obs) and np.array_equal(mask, other_mask)
        decisions = []
        for s in (state, other):
            agent = make_agent(name, game_id, seed=3, options=options)
            decisions.append(agent.act(obs, mask, s if agent.needs_state else None))
        assert decisions[0] == decisions[1]


RANDOM_BAR = (
    90  # games of 100 an agent must win against random players (the bar every shipped agent must clear)
)


def not_lost(stats) -> int:
    """Games won or shared (a tie, or a win the rules share: MA-17)."""
    return stats.wins + stats.draws


def difference_margin(a: int, b: int, games: int) -> float:
    """Half-width, in games, of the 95% interval of the difference of two rates over ``games`` each."""
    p, q = a / games, b / games
    return 1.96 * np.sqrt((p * (1 - p) + q * (1 - q)) / games) * games


@pytest.mark.parametrize(
    "game_id,name,options",
    [a for a in AGENTS if "mcts-v" not in a[1] and "-az-v" not in a[1]],
    ids=lambda p: agent_id(p),
)
def test_beats_random_players(game_id, name, options):
    """At least 90 of 100 seat-rotated games against random players in every other seat
    (the full-budget searches, ``mcts`` and ``az``, are measured by the slow tests; the tenth-budget
    ``mcts-fast`` and the network alone run here).

    Where the game's luck keeps greedy itself under 90 on the same deals (Monster Factory,
    MONSTArgh! at 4 players: random players win or share too many games against any play), the
    agent must lose no more of them than greedy does, within the 95% interval of the difference.
    """
    n = options["num_players"]
    field = ["random"] * (n - 1)
    result = run_match(game_id, [name] + field, 100, seed=11, options=options, progress=False)
    if result.stats[0].wins >= RANDOM_BAR:
        return
    greedy = run_match(game_id, ["greedy"] + field, 100, seed=11, options=options, progress=False)
    assert greedy.stats[0].wins < RANDOM_BAR, (result.table(), greedy.table())
    ours, theirs = not_lost(result.stats[0]), not_lost(greedy.stats[0])
    assert ours >= theirs - difference_margin(ours, theirs, 100), (result.table(), greedy.table())


def test_the_two_search_budgets_differ_tenfold_and_keep_the_rest():
    for game_id in GAMES:
        full, fast = make_agent("mcts", game_id), make_agent("mcts-fast", game_id)
        assert isinstance(fast, FastTunedMCTS) and type(full) is TunedMCTS
        assert full.simulations == 10 * fast.simulations
        assert (full.exploration, full.rollout) == (fast.exploration, fast.rollout)


def test_a_player_count_without_a_champion_is_refused_with_the_shipped_counts():
    for game_id in GAMES:
        counts = champion_games().get(envs.spec(game_id).name, [])
        missing = next(n for n in range(envs.spec(game_id).min_players, 7) if n not in counts)
        with pytest.raises(ValueError, match="has no champion for .* players"):
            make_agent("champion", game_id, options={"num_players": missing})


def test_versions_are_per_player_count_and_the_short_name_plays_the_newest(tmp_path, monkeypatch):
    """A retrained champion ships as ``<game>-<n>p-v2.npz`` beside version 1: each versioned name
    keeps its weights, ``champion`` plays the newest, and a version not shipped for the count is
    refused with the ones that are."""
    import shutil

    from monster_zoo.agents import registry, shipped_files
    from monster_zoo.agents.ppo import champions

    game_id, two, four = "marry_the_monster-v0", {"num_players": 2}, {"num_players": 4}
    for n in (2, 4):
        shutil.copy(champions.champion_path("marry_the_monster", n), tmp_path)
    retrained = tmp_path / "marry_the_monster-2p-v2.npz"
    shutil.copy(champions.champion_path("marry_the_monster", 2), retrained)
    shipped_files.write_manifest(tmp_path)  # a champion loads only when the manifest lists its digest
    shutil.copy(champions.champion_path("marry_the_monster", 4), tmp_path / "not_a_game-4p-v2.npz")
    monkeypatch.setattr(champions, "CHAMPION_DIR", tmp_path)
    assert champions.champion_versions("marry_the_monster", 2) == [1, 2]
    assert champions.champion_versions("marry_the_monster", 4) == [1]
    assert "marry_the_monster-champion-v2" in registry.available_agents(game_id)
    assert make_agent("champion", game_id, options=two).name == "marry_the_monster-champion-v2"
    assert make_agent("champion", game_id, options=four).name == "marry_the_monster-champion-v1"
    assert (
        make_agent("marry_the_monster-champion-v1", game_id, options=two).name
        == "marry_the_monster-champion-v1"
    )
    with pytest.raises(
        ValueError,
        match=r"champion-v2 has no champion for 4 players \(shipped for 4 players: "
        r"marry_the_monster-champion-v1\)",
    ):
        make_agent("marry_the_monster-champion-v2", game_id, options=four)


# --- against greedy (slow: the strength each agent must reach) ------------------------------------
def greedy_rate(game_id: str, name: str, n: int, games: int, seed: int = 0):
    """Win rate and its 95% interval's lower bound of ``name`` in one seat, greedy in the others."""
    result = run_match(
        game_id, [name] + ["greedy"] * (n - 1), games, seed=seed, options={"num_players": n}, progress=False
    )
    summary = result.stats[0].summary()
    return summary["win_rate"], summary["win_rate_low"]


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
def test_search_beats_greedy_at_the_smallest_player_count(game_id):
    """At least 0.15 above the equal share with the lower bound 0.05 above it: 0.65 and 0.55 at two
    players, the same margins over the third of a three-player game (Mighty Monsters)."""
    n = smallest(game_id)
    rate, low = greedy_rate(game_id, "mcts", n, 200)
    assert rate >= 1.0 / n + 0.15 and low > 1.0 / n + 0.05, (rate, low)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
def test_search_beats_three_greedy_players_at_four(game_id):
    rate, low = greedy_rate(game_id, "mcts", 4, 200)
    assert low > 0.25, (rate, low)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", [g for g in GAMES if network_ships(g)])
def test_shipped_learned_search_beats_greedy_at_the_smallest_player_count(game_id):
    """The shipped ``az`` at its game's budget (``az_play`` of its declaration); the target of 0.75
    at 200 games is reached in some games only (``training/AZ.md``): this guards against a regression
    below the level every shipped network reached."""
    n = smallest(game_id)
    rate, low = greedy_rate(game_id, "az", n, 100)
    assert low > 1.0 / n, (rate, low)


@pytest.mark.slow
@pytest.mark.parametrize("game_id,n", CHAMPIONS)
def test_champion_beats_greedy(game_id, n):
    rate, low = greedy_rate(game_id, "champion", n, 400)
    assert (rate >= 0.60 and low > 0.50) if n == smallest(game_id) else low > 0.25, (rate, low)


@pytest.mark.parametrize("game_id,n", CHAMPIONS)
def test_champion_plays_inside_the_training_vec_env(game_id, n):
    """As an opponent of the self-play vec env (``--opponents champion:W``) the champion finishes
    games, and the games' end infos name it."""
    champion = make_agent("champion", game_id, seed=2, options={"num_players": n})
    vec = envs.make_vec_env(game_id, 8, opponents=[champion], seed=4, num_players=n)
    vec.reset()
    seen = set()
    rng = np.random.default_rng(0)
    for _ in range(400):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()])
        _, _, dones, infos = vec.step(actions)
        seen |= {info["opponent"] for done, info in zip(dones, infos) if done}
    assert seen == {newest_champion(game_id, n)}


@pytest.mark.parametrize("game_id,n", CHAMPIONS[:1])
def test_a_person_plays_against_the_champion(game_id, n):
    """``monster-zoo play --agents champion ...`` seats the champion; the champion's moves are
    announced and the game is left with 'quit'."""
    import subprocess
    import sys

    others = ["champion"] + ["random"] * (n - 2)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "monster_zoo",
            "play",
            "--game",
            game_id,
            "--seat",
            "1",
            "--seed",
            "2",
            "--agents",
            *others,
        ],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "player_0 (champion):" in done.stdout and "game abandoned" in done.stdout
