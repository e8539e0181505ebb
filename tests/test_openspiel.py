"""Every game as an OpenSpiel game (monster_zoo.envs.openspiel): the same games as the AEC env for the
same seed and actions, observations blind to hidden information, and OpenSpiel's own tools running
on it (random simulations, its playthrough generator, IS-MCTS and MCTS bots, rl_environment)."""

import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="the openspiel extra (open_spiel) is not installed: pip install '.[openspiel]'"
)

from monster_zoo import envs  # noqa: E402
from monster_zoo.envs import openspiel as mz_openspiel  # noqa: E402  (registers the games)
from monster_zoo.envs.registry import declaration  # noqa: E402


def load(game_id: str, **params):
    """The OpenSpiel game of ``game_id`` with ``params``, loaded by name through OpenSpiel's registry."""
    return pyspiel.load_game(mz_openspiel.openspiel_name(game_id), params)


def dealt(game):
    """A new state of ``game`` past its deal."""
    state = game.new_initial_state()
    state.apply_action(mz_openspiel.DEAL)
    return state


def play_random(state, steps: int, rng: np.random.Generator) -> list:
    """Apply up to ``steps`` uniformly random legal actions to ``state``; the actions applied."""
    actions = []
    while len(actions) < steps and not state.is_terminal():
        actions.append(int(rng.choice(state.legal_actions())))
        state.apply_action(actions[-1])
    return actions


def player_counts(game_id: str):
    """The smallest and the largest table of a game."""
    spec = envs.spec(game_id)
    return sorted({spec.min_players, spec.max_players})


def test_importing_the_package_leaves_openspiel_alone():
    """monster_zoo and monster_zoo.envs never import pyspiel, and the adapter without it says what to install."""
    code = (
        "import sys, monster_zoo, monster_zoo.envs\n"
        "assert 'pyspiel' not in sys.modules, 'pyspiel was imported'\n"
        "sys.modules['pyspiel'] = None\n"
        "try:\n    import monster_zoo.envs.openspiel\n"
        "except ImportError as error:\n    print(error)\n"
        "else:\n    raise SystemExit('imported without pyspiel')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "pip install 'monster-zoo[openspiel]'" in done.stdout


def test_every_registered_game_is_an_openspiel_game(game_id):
    """Each game loads by name with its options as parameters and declares what it is."""
    spec = envs.spec(game_id)
    name = mz_openspiel.openspiel_name(game_id)
    assert name == "python_monster_zoo_" + spec.name and name in mz_openspiel.GAME_NAMES
    assert name in pyspiel.registered_names()
    game = pyspiel.load_game(name)
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM and game.utility_sum() == 0.0
    assert kind.information == (
        pyspiel.GameType.Information.IMPERFECT_INFORMATION
        if spec.determinize
        else pyspiel.GameType.Information.PERFECT_INFORMATION
    )
    assert (kind.provides_observation_tensor, kind.provides_observation_string) == (True, True)
    assert (kind.provides_information_state_tensor, kind.provides_information_state_string) == (False, False)
    aec_only = {"illegal_action", "observation", "render_mode"}
    assert set(kind.parameter_specification) == {o.name for o in spec.options} - aec_only | {"seed"}
    assert (kind.min_num_players, kind.max_num_players) == (spec.min_players, spec.max_players)
    defaults = {o.name: o.default for o in spec.options}
    assert game.num_players() == defaults["num_players"]
    assert game.num_distinct_actions() == spec.num_actions
    assert game.max_game_length() == defaults["max_steps"]
    assert game.observation_tensor_shape() == [spec.obs_size]
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    assert game.max_chance_outcomes() == 1


def test_bad_parameters_are_refused_with_the_valid_values():
    """Every parameter is checked by the game's own validation, which names what is valid."""
    game_id = "monstargh-v0"
    with pytest.raises(ValueError, match="'win', 'score'"):
        load(game_id, reward="all")
    with pytest.raises(ValueError, match="2, 3, 4, 5, 6"):
        load(game_id, num_players=7)
    with pytest.raises(ValueError, match="distinct names"):
        load(game_id, species="green,green")
    with pytest.raises(ValueError, match="from 0 to 2147483647"):
        load(game_id, seed=-1)
    with pytest.raises(ValueError, match="from 0 to 2147483647"):  # pyspiel cannot even pass it on
        mz_openspiel.GAME_CLASSES[game_id]({"seed": 2**31})
    with pytest.raises(pyspiel.SpielError, match="illegal_action"):
        load(game_id, illegal_action="penalize")  # an AEC option, not a parameter


def test_openspiel_random_simulations_pass(game_id):
    """OpenSpiel's own random-simulation checks (legal actions sorted and unique by name, clones equal,
    observations finite and sized, rewards summing to the returns, zero-sum, within the utility
    bounds), at the smallest table with reward="win" and the largest with reward="score"."""
    for num_players, reward in zip(player_counts(game_id), ("win", "score")):
        game = load(game_id, num_players=num_players, reward=reward, seed=num_players)
        # serialize=False: OpenSpiel's C++ serialization of a sampled-stochastic Python game asks the game
        # for GetRNGState, which it does not forward to Python (state.serialize() is tested below).
        pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def observation_text(spec, engine: np.ndarray, seat: int) -> str:
    """The observation string of ``seat`` without its digest line: the game's public and private text."""
    private = [spec.private_text(engine, seat)] if spec.private_text is not None else []
    return "\n".join([spec.to_text(engine), *private])


@pytest.mark.parametrize("extra", [{}, {"max_steps": 9}], ids=["full game", "truncated"])
def test_a_trajectory_is_the_aec_envs(game_id, extra):
    """For the same seed and actions, OpenSpiel and the AEC env show every seat the same observation,
    the same legal actions and names, rewards and ending, at every step, at the smallest and largest
    table (and a game cut off by max_steps ends at once in both, with 0 for everyone)."""
    spec = envs.spec(game_id)
    rng = np.random.default_rng(3)
    for num_players in player_counts(game_id):
        seed = 40 + num_players
        state = dealt(load(game_id, num_players=num_players, seed=seed, **extra))
        env = envs.make(game_id, num_players=num_players, **extra)
        env.reset(seed=seed)
        raw = env.unwrapped
        seen = {}  # (seat, observation string) -> legal actions: the string must determine them
        while True:
            done = any(env.terminations.values()) or any(env.truncations.values())
            assert state.is_terminal() == done
            assert state.rewards() == pytest.approx([env.rewards[a] for a in env.possible_agents], abs=1e-6)
            for seat, agent in enumerate(env.possible_agents):
                assert state.observation_tensor(seat) == env.observe(agent)["observation"].tolist()
            if done:
                break
            seat = raw.possible_agents.index(env.agent_selection)
            assert state.current_player() == seat
            text = state.observation_string(seat)
            assert text.rsplit("\n", 1)[0] == observation_text(spec, raw.engine_state, seat)
            legal = state.legal_actions()
            assert legal == raw.legal_actions()
            assert seen.setdefault((seat, text), legal) == legal
            action = int(rng.choice(legal))
            assert state.action_to_string(action) == raw.action_to_str(action)
            state.apply_action(action)
            env.step(action)
        assert state.current_player() == pyspiel.PlayerId.TERMINAL
        expected = [env.rewards[a] for a in env.possible_agents]
        assert state.returns() == pytest.approx(expected, abs=1e-6)
        if extra:
            assert all(env.truncations.values()) and state.returns() == [0.0] * num_players
        assert sum(state.returns()) == pytest.approx(0.0, abs=1e-12)


def test_each_deal_of_a_game_is_the_next_seed(game_id):
    """A game loaded with seed=S deals its k-th game from seed S + k, as env.reset(seed=S + k) does;
    a clone of a state before the deal deals the next seed too, and a clone after it the same game."""
    game = load(game_id, seed=20)
    env = envs.make(game_id)
    first = game.new_initial_state()
    assert first.is_chance_node() and first.chance_outcomes() == [(mz_openspiel.DEAL, 1.0)]
    states = [first, first.clone(), game.new_initial_state()]
    for k, state in enumerate(states):
        state.apply_action(mz_openspiel.DEAL)
        env.reset(seed=20 + k)
        np.testing.assert_array_equal(state.engine_state(), env.unwrapped.state())
    twin = states[0].clone()
    actions = play_random(states[0], 30, np.random.default_rng(0))
    for action in actions:
        twin.apply_action(action)
    assert str(twin) == str(states[0]) and twin.history() == states[0].history()


def test_observations_never_change_with_hidden_information(game_id):
    """resample_from_infostate redeals what a seat cannot see (the game's determinize) and draws a new
    future; the seat's observation tensor and string, its legal actions when on move and the seat on
    move stay the same, and the state resampled from is untouched."""
    envs.spec(game_id)
    sampler = np.random.default_rng(5).random
    state = dealt(load(game_id, seed=9))
    rng = np.random.default_rng(6)
    redealt = 0
    while not state.is_terminal():
        before = (str(state), state.engine_state())
        for seat in range(state.num_players()):
            for _ in range(2):
                sample = state.resample_from_infostate(seat, sampler)
                assert sample.observation_tensor(seat) == state.observation_tensor(seat)
                assert sample.observation_string(seat) == state.observation_string(seat)
                assert sample.current_player() == state.current_player()
                if seat == state.current_player():
                    assert sample.legal_actions() == state.legal_actions()
                assert not np.array_equal(sample._rng, state._rng)
                redealt += not np.array_equal(sample.engine_state(), state.engine_state())
        assert str(state) == before[0]
        np.testing.assert_array_equal(state.engine_state(), before[1])
        play_random(state, 12, rng)
    # A game that hides nothing (Monster Factory: every tile is public and the supply has no
    # order, MF-18) resamples nothing; every other game hides hands or face-down cards.
    if declaration(game_id).hides_information:
        assert redealt > 0


def test_serialize_replays_the_game(game_id):
    """state.serialize() is the game, the seed and the actions; deserialize_state replays them into
    the same state (also in another game object with the same parameters) that plays on alike."""
    game = load(game_id, num_players=envs.spec(game_id).min_players, seed=77)
    rng = np.random.default_rng(8)
    state = dealt(game)
    play_random(state, 25, rng)
    text = state.serialize()
    assert text.startswith(mz_openspiel.SERIAL_FORMAT) and "\nseed 77\n" in text
    for reader in (game, pyspiel.load_game(str(game))):
        copy = reader.deserialize_state(text)
        assert str(copy) == str(state) and copy.history() == state.history()
        for seat in range(state.num_players()):
            assert copy.observation_tensor(seat) == state.observation_tensor(seat)
        for action in play_random(state.clone(), 40, np.random.default_rng(1)):
            copy.apply_action(action)
    undealt = game.deserialize_state(game.new_initial_state().serialize())
    assert undealt.is_chance_node()


def test_deserialize_refuses_what_is_not_a_state_of_this_game():
    """Text from elsewhere is refused with the reason, before anything is replayed: another format
    (OpenSpiel's pickles included: they would run code), another game, an illegal action, more
    actions than max_steps, too much text; a resampled state has no serialization."""
    game = load("marry_the_monster-v0", num_players=2, seed=3, max_steps=60)
    state = dealt(game)
    play_random(state, 5, np.random.default_rng(2))
    text = state.serialize()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    other = load("marry_the_monster-v0", num_players=3, seed=3).new_initial_state().serialize()
    bad = {
        "": "not a serialized",
        "history=0\nmove_number=1\n__dict__=gASVAAAA": "pickles are not read",
        text.replace("num_players=2", "num_players=3"): "belongs to the game",
        other: "belongs to the game",
        text.rstrip("\n") + f" {illegal}\n": "illegal",
        text.rstrip("\n") + " 1" * 61 + "\n": "max_steps=60",
        text + " " * mz_openspiel.MAX_SERIALIZED_CHARS: "the most accepted",
        text.replace("seed 3", "seed "): "no seed",
    }
    for wrong, reason in bad.items():
        with pytest.raises(ValueError, match=reason):
            game.deserialize_state(wrong)
    with pytest.raises(ValueError, match="is text"):
        game.deserialize_state(text.encode())
    with pytest.raises(ValueError, match="resample_from_infostate"):
        state.resample_from_infostate(0, np.random.default_rng(0).random).serialize()


def test_illegal_actions_change_nothing():
    """An action the rules refuse (or a deal outcome other than 0, or an index out of range) raises
    ValueError with the game's reason, and the state and its history stay as they were."""
    game = load("mighty_monsters-v0", seed=4)
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="deal"):
        state.apply_action(1)
    state.apply_action(mz_openspiel.DEAL)
    before, history = str(state), state.history()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    for action in (illegal, game.num_distinct_actions()):
        with pytest.raises(ValueError, match="illegal|out of range"):
            state.apply_action(action)
        assert str(state) == before and state.history() == history


def test_observers_serve_the_types_without_perfect_recall():
    """The default observation holds the tensor and text; the public and private observers the public
    text and the seat's private text; perfect recall is not served, and information states are refused."""
    from open_spiel.python.observation import make_observation

    game_id = "marry_the_monster-v0"
    spec = envs.spec(game_id)
    game = load(game_id, seed=1)
    state = dealt(game)
    play_random(state, 10, np.random.default_rng(3))
    engine = state.engine_state()
    kinds = pyspiel.PrivateInfoType
    public = make_observation(
        game, pyspiel.IIGObservationType(public_info=True, perfect_recall=False, private_info=kinds.NONE)
    )
    private = make_observation(
        game,
        pyspiel.IIGObservationType(public_info=False, perfect_recall=False, private_info=kinds.SINGLE_PLAYER),
    )
    default = make_observation(game)
    assert public.tensor is None and private.tensor is None
    for seat in range(game.num_players()):
        assert public.string_from(state, seat) == spec.to_text(engine)
        assert private.string_from(state, seat) == spec.private_text(engine, seat)
        default.set_from(state, seat)
        assert default.tensor.tolist() == state.observation_tensor(seat)
        assert default.string_from(state, seat) == state.observation_string(seat)
    assert state.observation_string(0) != state.observation_string(1)
    assert make_observation(game, pyspiel.IIGObservationType(perfect_recall=True)) is None
    assert (
        make_observation(
            game,
            pyspiel.IIGObservationType(
                public_info=True, perfect_recall=False, private_info=kinds.ALL_PLAYERS
            ),
        )
        is None
    )
    for ask in (state.information_state_string, state.information_state_tensor):
        with pytest.raises(ValueError, match="no information state"):
            ask(0)
    with pytest.raises(ValueError, match="not a seat"):
        default.string_from(state, game.num_players())


def test_openspiel_playthrough_replays(tmp_path, game_id):
    """OpenSpiel's playthrough generator (its golden-file tool) records a game, serialized states
    included, and regenerating it from the file gives the same text."""
    from absl import flags
    from open_spiel.python.algorithms import generate_playthrough

    if not flags.FLAGS.is_parsed():  # replay reads one of its absl flags, which a test run never parses
        flags.FLAGS.mark_as_parsed()
    spec = envs.spec(game_id)
    game_string = (
        f"{mz_openspiel.openspiel_name(game_id)}(num_players={spec.min_players},seed=2,max_steps=12)"
    )
    text = generate_playthrough.playthrough(game_string, None, seed=5)
    assert "SerializeState()" in text and 'StringLegalActions() = ["deal"]' in text
    path = tmp_path / "playthrough.txt"
    path.write_text(text)
    original, regenerated = generate_playthrough.replay(str(path))
    assert original == regenerated


def test_ismcts_and_mcts_bots_play_every_game(game_id):
    """OpenSpiel's Python ISMCTSBot (resampling with resample_from_infostate, keyed on observation
    strings) and MCTSBot play whole games against random bots through pyspiel.evaluate_bots, and
    the returns are the game's: zero-sum, within bounds."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = load(game_id, seed=6)
    random_state = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(1, random_state)
    # ISMCTSBot refuses perfect-information games, which need no resampling.
    imperfect = game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    searchers = [
        ismcts.ISMCTSBot(game, evaluator, 2.0, 3, random_state=random_state, use_observation_string=True)
        if imperfect
        else mcts.MCTSBot(game, 2.0, 3, evaluator, random_state=random_state),
        mcts.MCTSBot(game, 2.0, 3, evaluator, random_state=random_state),
    ]
    if imperfect:  # resample from the seeded generator, not OpenSpiel's clock-seeded sampler
        searchers[0].set_resampler(
            lambda state, player: state.resample_from_infostate(player, random_state.uniform)
        )
    bots = searchers + [pyspiel.make_uniform_random_bot(p, p) for p in range(2, game.num_players())]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)
    assert len(returns) == game.num_players() and sum(returns) == pytest.approx(0.0, abs=1e-12)
    assert all(-1.0 <= r <= 1.0 for r in returns)


def test_openspiels_cpp_mcts_bot_plays_through_evaluate_bots():
    """pyspiel.MCTSBot (C++) searches the Python game when pyspiel.evaluate_bots steps it (its own
    step() releases the GIL, which no Python game survives)."""
    game = load("marry_the_monster-v0", num_players=2, seed=1)
    bots = [
        pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 0), 2.0, 5, 50, False, 0, False),
        pyspiel.make_uniform_random_bot(1, 0),
    ]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)
    assert sorted(returns) == [-1.0, 1.0] or returns == [0.0, 0.0]


def test_rl_environment_trains_tabular_q_learners():
    """rl_environment.Environment steps the game with the observation tensors as info states (there is
    no information state); tabular Q-learners play episodes to the end and learn from them."""
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import tabular_qlearner

    game = load("marry_the_monster-v0", num_players=2, seed=12)
    env = rl_environment.Environment(game)
    env.seed(0)
    assert env.observation_spec()["info_state"] == (envs.spec("marry_the_monster-v0").obs_size,)
    agents = [
        tabular_qlearner.QLearner(player_id=p, num_actions=game.num_distinct_actions()) for p in range(2)
    ]
    for _ in range(3):
        time_step = env.reset()
        state = env.get_state
        assert time_step.observations["info_state"][0] == state.observation_tensor(0)
        while not time_step.last():
            player = time_step.observations["current_player"]
            assert time_step.observations["legal_actions"][player] == state.legal_actions()
            time_step = env.step([agents[player].step(time_step).action])
        for agent in agents:
            agent.step(time_step)
        assert sum(time_step.rewards) == pytest.approx(0.0, abs=1e-12)
        assert time_step.rewards == state.returns()
    assert all(agent._q_values for agent in agents)


def test_readme_openspiel_snippet_runs(tmp_path):
    """The OpenSpiel page's example, exactly as printed, in a fresh interpreter: IS-MCTS against
    a random bot on a registered game prints both seats' returns, which sum to zero."""
    from tests.readme_blocks import doc_block

    done = subprocess.run(
        [sys.executable, "-c", doc_block("docs/api/openspiel.md", "# snippet: openspiel")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    returns = [float(x) for x in done.stdout.strip().strip("[]").split(",")]
    assert len(returns) == 2 and sum(returns) == pytest.approx(0.0) and set(returns) <= {-1.0, 1.0}
