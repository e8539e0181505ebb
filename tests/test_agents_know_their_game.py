"""Every agent knows the game it was made for and refuses, where it acts, to play another.

Random, greedy and the searches read the rules from the state: they refuse another game and
play any player count and rule options of their own. Trained policies (champions, ``ppo:``
models) refuse any other game, player count or rule option as well: the observation of another
table means something else even at the same size (the 4-player MONSTArgh! champion once
played 2-player games without a word, winning 0.200 against greedy instead of 0.885).
"""

import gymnasium
import numpy as np
import pytest

import monster_zoo
from monster_zoo import envs
from monster_zoo.agents import available_agents, make_agent
from monster_zoo.agents.base import Agent
from monster_zoo.agents.game_rules import GameRules, WrongGameError
from monster_zoo.agents.ppo.champions import champion_games, champion_player_counts, champion_versions
from monster_zoo.agents.ppo.policy_file import layer_shapes, make_metadata, write_policy
from monster_zoo.agents.random.agent import RandomAgent
from monster_zoo.agents.search.agent import MCTSAgent
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT, H_STEPS, H_TERMINAL
from monster_zoo.envs.core.options import COMMON_OPTIONS
from monster_zoo.evaluation.match import iter_games, run_match

GAMES = envs.available()
CHAMPIONS = [(f"{game}-v0", n) for game, counts in champion_games().items() for n in counts]
# Options that are not rules: the player count, the step limit and the env's own options.
NOT_RULES = {"num_players", "max_steps"} | {option.name for option in COMMON_OPTIONS}


def other_rules(game_id: str):
    """``{name: value}``: the first rule option the game declares, set to a valid value other than
    its default (another choice, or the next integer); None for a game without rule options."""
    for option in envs.spec(game_id).options:
        if option.name in NOT_RULES:
            continue
        if option.choices:
            candidates = [c for c in option.choices if c != option.default]
        elif isinstance(option.default, int) and not isinstance(option.default, bool):
            candidates = [option.default + 1]
        else:
            candidates = []
        for value in candidates:
            try:
                option.validate(value, game_id)
            except ValueError:
                continue
            return {option.name: value}
    return None


OTHER_RULES = {game: other_rules(game) for game in GAMES}


def view(game_id: str, num_players: int, options=None):
    """``(observation, mask, state)`` of the seat on move in a game of ``num_players`` after some
    random moves."""
    spec = envs.spec(game_id)
    config = envs.config(game_id, {**(options or {}), "num_players": num_players})
    for steps in range(5, 60):
        state, _, _ = random_playout(spec, config, steps, seed=steps)
        if state[H_TERMINAL] == 0:
            break
    obs = np.zeros(spec.obs_size, np.float32)
    mask = np.zeros(spec.num_actions, np.int8)
    spec.observe_into(state, state[H_CURRENT], obs)
    spec.legal_mask(state, mask)
    return obs, mask, state


def other_game(game_id: str) -> str:
    return GAMES[(GAMES.index(game_id) + 1) % len(GAMES)]


def players_for(game_id: str, name: str) -> int:
    """A player count the agent ``name`` exists for: a champion's shipped count, else the smallest."""
    game = envs.spec(game_id).name
    if name == "champion":
        return champion_player_counts(game)[0]
    if name.startswith(f"{game}-champion-v"):
        version = int(name.rsplit("-v", 1)[1])
        return next(n for n in champion_player_counts(game) if version in champion_versions(game, n))
    return envs.spec(game_id).min_players


def other_count(game_id: str, n: int) -> int:
    spec = envs.spec(game_id)
    return next(k for k in range(spec.min_players, spec.max_players + 1) if k != n)


def quick(agent):
    """Searches act with a few simulations: the checks under test do not depend on the budget."""
    if isinstance(agent, MCTSAgent):
        agent.simulations = 30
    return agent


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    """A small random policy file per game, trained (so to speak) for its smallest player count."""
    folder = tmp_path_factory.mktemp("models")
    rng = np.random.default_rng(0)
    paths = {}
    for game_id in GAMES:
        metadata = make_metadata(
            game_id,
            {"num_players": envs.spec(game_id).min_players},
            [8],
            "tanh",
            f"tiny-{envs.spec(game_id).name}",
        )
        layers = [
            (rng.normal(size=w), rng.normal(size=b), "tanh" if k == 0 else None)
            for k, (w, b) in enumerate(layer_shapes(metadata))
        ]
        paths[game_id] = write_policy(folder / f"{envs.spec(game_id).name}.npz", layers, metadata)
    return paths


# --- every agent of every game refuses another game ---------------------------------------------
@pytest.mark.parametrize("game_id,name", [(g, n) for g in GAMES for n in available_agents(g)])
def test_every_agent_refuses_another_game_where_it_acts_and_plays_its_own(game_id, name):
    n = players_for(game_id, name)
    agent = quick(make_agent(name, game_id, seed=1, options={"num_players": n}))
    assert agent.made_for.game_id == game_id
    other = other_game(game_id)
    obs, mask, state = view(other, envs.spec(other).min_players)
    with pytest.raises(WrongGameError, match=rf"made for {game_id}\b.*{other}'s size"):
        agent.act(obs, mask, state)
    with pytest.raises(WrongGameError, match=rf"made for {game_id}\b.*; this game is {other}"):
        agent.check_game(other, envs.config(other, {}))
    obs, mask, state = view(game_id, n)
    assert mask[agent.act(obs, mask, state)] == 1


@pytest.mark.parametrize("game_id", GAMES)
def test_a_ppo_model_refuses_another_game(game_id, tiny_models):
    agent = make_agent(
        f"ppo:{tiny_models[game_id]}", game_id, options={"num_players": envs.spec(game_id).min_players}
    )
    other = other_game(game_id)
    obs, mask, _ = view(other, envs.spec(other).min_players)
    with pytest.raises(WrongGameError, match=f"{other}'s size"):
        agent.act(obs, mask)
    with pytest.raises(WrongGameError, match=f"{other}'s size"):
        agent.act_batch(obs[None], mask[None])


# --- trained policies refuse another player count or rule option --------------------------------
def trained_agents(game_id, tiny_models):
    """``(agent, its player count)``: every champion of the game, and a ``ppo:`` model."""
    game = envs.spec(game_id).name
    found = [
        (make_agent(f"{game}-champion-v{v}", game_id, options={"num_players": n}), n)
        for n in champion_player_counts(game)
        for v in champion_versions(game, n)
    ]
    n = envs.spec(game_id).min_players
    return found + [(make_agent(f"ppo:{tiny_models[game_id]}", game_id, options={"num_players": n}), n)]


@pytest.mark.parametrize("game_id", GAMES)
def test_trained_agents_refuse_another_player_count_where_they_act(game_id, tiny_models):
    for agent, n in trained_agents(game_id, tiny_models):
        wrong = other_count(game_id, n)
        obs, mask, state = view(game_id, wrong)  # same sizes: only the state's header tells
        with pytest.raises(
            WrongGameError,
            match=rf"with .*num_players={n}.*this state is of {game_id} "
            rf"with num_players={wrong}",
        ):
            agent.act(obs, mask, state)
        with pytest.raises(WrongGameError, match=rf"num_players={wrong}"):
            agent.act_batch(np.stack([obs, obs]), np.stack([mask, mask]), np.stack([state, state]))
        with pytest.raises(
            WrongGameError,
            match=rf"num_players={n}\b.*this game is {game_id} with "
            rf".*num_players={wrong}\b",
        ):
            agent.check_game(game_id, envs.config(game_id, {"num_players": wrong}))
        # from the observation alone: its seat entries tell the table's size (seated_view)
        with pytest.raises(
            WrongGameError,
            match=rf"num_players={n}\b.*this observation is of a {game_id} table "
            rf"of {wrong} players.*options=\{{'num_players': {wrong}\}}",
        ):
            agent.act(obs, mask)
        with pytest.raises(WrongGameError, match=rf"table of {wrong} players"):
            agent.act_batch(np.stack([view(game_id, n)[0], obs]), np.stack([mask, mask]))
        obs, mask, state = view(game_id, n)
        assert mask[agent.act(obs, mask, state)] == 1
        assert mask[agent.act(obs, mask)] == 1
        # options that change neither the rules nor the observation may differ
        agent.check_game(
            game_id, envs.config(game_id, {"num_players": n, "max_steps": 50, "reward": "score"})
        )


def play_by_hand(env, agent, seed: int = 3) -> int:
    """A hand-written AEC loop, as a user writes one: the agent in every seat, shown the observation
    and the mask only; returns the moves made."""
    env.reset(seed=seed)
    moves = 0
    for _name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        action = (
            None
            if termination or truncation
            else agent.act(observation["observation"], observation["action_mask"])
        )
        moves += action is not None
        env.step(action)
    return moves


@pytest.mark.parametrize("name", ["champion", "az-net"])
def test_four_player_weights_at_a_two_player_table_are_refused_at_the_first_act(name):
    """Outside the web app: no state is handed over, and the observation is the same
    size at every count, yet 4-player weights (the champion's, the learned search's network) refuse
    the 2-player table before their first move, and the same agent made for the table plays it."""
    env = envs.make("monstargh-v0", num_players=2)
    four = make_agent(name, "monstargh-v0", options={"num_players": 4})
    with pytest.raises(
        WrongGameError,
        match=r"num_players=4\b.*table of 2 players, not 4.*make_agent\(name, env\)"
        r".*options=\{'num_players': 2\}",
    ):
        play_by_hand(env, four)
    assert env.unwrapped.engine_state[H_STEPS] == 0  # refused before any move
    assert play_by_hand(env, make_agent(name, env)) > 0
    assert env.unwrapped.engine_state[H_TERMINAL] == 1


@pytest.mark.parametrize("game_id", [g for g in GAMES if OTHER_RULES[g]])
def test_trained_agents_refuse_other_rule_options(game_id, tiny_models):
    ((key, value),) = OTHER_RULES[game_id].items()
    for agent, n in trained_agents(game_id, tiny_models):
        changed = {"num_players": n, key: value}
        with pytest.raises(WrongGameError, match=rf"this game is {game_id} with .*{key}={value!r}"):
            agent.check_game(game_id, envs.config(game_id, changed), changed)
        with pytest.raises(WrongGameError, match=f"{key}"):  # read back from the config alone
            agent.check_game(game_id, envs.config(game_id, changed))
        with pytest.raises(WrongGameError):
            envs.make_vec_env(game_id, 2, opponents=[agent], **changed)


@pytest.mark.parametrize("game_id", GAMES)
def test_agents_that_read_the_rules_from_the_state_play_any_player_count(game_id):
    """Random, greedy and the searches take the player count and the rule options from the state,
    so one made at the default count plays every other (the trainer relies on it)."""
    spec = envs.spec(game_id)
    for name in ("random", "greedy", "mcts-fast"):
        agent = quick(make_agent(name, game_id, seed=2))
        for n in range(spec.min_players, spec.max_players + 1):
            obs, mask, state = view(game_id, n, OTHER_RULES[game_id])
            assert mask[agent.act(obs, mask, state)] == 1
            agent.check_game(
                game_id, envs.config(game_id, {"num_players": n, **(OTHER_RULES[game_id] or {})})
            )


def test_a_person_at_the_terminal_is_refused_another_game_before_the_prompt():
    import io

    from monster_zoo.agents.human.agent import HumanAgent

    out = io.StringIO()
    person = HumanAgent("marry_the_monster-v0", input_stream=io.StringIO("1\n"), output_stream=out)
    obs, mask, state = view("monstargh-v0", 2)
    with pytest.raises(WrongGameError, match="made for marry_the_monster-v0"):
        person.act(obs, mask, state)
    assert out.getvalue() == ""


def test_an_agent_made_for_no_game_plays_any():
    agent = RandomAgent(0)
    for game_id in GAMES:
        obs, mask, state = view(game_id, envs.spec(game_id).min_players)
        assert agent.made_for is None and mask[agent.act(obs, mask, state)] == 1
        agent.check_game(game_id, envs.config(game_id, {}))


# --- make_agent takes an env --------------------------------------------------------------------
def test_make_agent_takes_the_game_from_any_env():
    game_id = "monstargh-v0"
    envs_of_two = {
        "AEC env": envs.make(game_id, num_players=2),
        "raw env": envs.make(game_id, wrapped=False, num_players=2),
        "batched engine": envs.make_batch(game_id, 3, num_players=2),
        "learner env": monster_zoo.make_learner_env(game_id, num_players=2),
        "gymnasium env": gymnasium.make("monster_zoo/monstargh-learner-v0", num_players=2),
        "vec env": envs.make_vec_env(game_id, 2, num_players=2),
    }
    for kind, env in envs_of_two.items():
        champion = make_agent("champion", env, seed=3)
        assert champion.made_for == GameRules.from_options(game_id, {"num_players": 2}), kind
        assert champion.name == f"monstargh-champion-v{champion_versions('monstargh', 2)[-1]}", (
            kind
        )  # the newest
        assert make_agent("greedy", env).made_for == GameRules.any_rules(game_id), kind
    env = envs_of_two["AEC env"]
    env.reset(seed=4)
    obs, *_ = env.last()
    champion = make_agent("champion", env)
    assert (
        obs["action_mask"][champion.act(obs["observation"], obs["action_mask"], env.unwrapped.engine_state)]
        == 1
    )


def test_make_agent_reads_rule_options_from_an_env():
    env = envs.make("mighty_monsters-v0", num_players=3, kings_rules=True)
    with pytest.raises(ValueError, match=r"differs in kings_rules; play it with kings_rules=false"):
        make_agent("champion", env)
    engine = envs.make_batch("mighty_monsters-v0", 2, num_players=3, kings_rules=True)
    assert make_agent("greedy", engine).made_for.game_id == "mighty_monsters-v0"
    with pytest.raises(ValueError, match="differs in kings_rules"):  # read back from the engine's config
        make_agent("champion", engine)


def test_options_given_with_an_env_must_agree_with_it():
    env = envs.make("marry_the_monster-v0", num_players=2)
    assert make_agent("champion", env, options={"num_players": 2, "max_steps": 30}).name.endswith(
        "champion-v2"
    )
    with pytest.raises(
        ValueError,
        match=r"options=\{\"num_players\": 4\} describe .*num_players=4, but the env "
        r"plays .*num_players=2",
    ):
        make_agent("champion", env, options={"num_players": 4})
    # a config that cannot be read back into options asks for them
    species = {"num_players": 2, "species": ["red", "blue", "pink", "green"]}
    engine = envs.make_batch("monstargh-v0", 2, **species)
    with pytest.raises(
        ValueError, match="cannot be read back from its config .* pass the options it was built with"
    ):
        make_agent("greedy", engine)
    assert make_agent("greedy", engine, options=species).made_for.game_id == "monstargh-v0"
    with pytest.raises(TypeError, match="expected a game id or a monster-zoo env .*got int"):
        make_agent("greedy", 3)


# --- the champion's first contact ---------------------------------------------------------------
def test_a_missing_champion_says_exactly_what_to_type():
    with pytest.raises(ValueError) as refused:
        make_agent("champion", "marry_the_monster-v0")
    message = str(refused.value)
    assert "has no champion for 3 players" in message
    assert "champions ship for 2 and 4 players" in message
    typed = 'make_agent("champion", "marry_the_monster-v0", options={"num_players": 2})'
    assert typed in message
    assert (
        'make_agent("champion", env) with env = monster_zoo.make("marry_the_monster-v0", num_players=2)'
        in message
    )
    # and what it says to type works
    assert eval(typed, {"make_agent": make_agent}).made_for.num_players == 2


# --- the match runner takes agent objects and checks them -----------------------------------------
def test_run_match_takes_agent_objects_and_checks_their_game():
    game_id, two = "monstargh-v0", {"num_players": 2}
    champion = make_agent("champion", game_id, seed=1, options=two)
    first = run_match(game_id, [champion, "greedy"], 4, seed=5, progress=False)
    again = run_match(game_id, [champion, "greedy"], 4, seed=5, progress=False)
    assert first.agents == [champion.name, "greedy"] and first.stats[0].agent == champion.name
    assert champion.name.startswith("monstargh-champion-v")
    assert first.records == again.records  # an object is reseeded before every game like a named agent
    four = make_agent("champion", game_id)  # the default: 4 players
    with pytest.raises(WrongGameError, match=r"num_players=4.*this game is monstargh-v0 with num_players=2"):
        run_match(game_id, [four, "greedy"], 2, progress=False)
    with pytest.raises(WrongGameError, match="monstargh-v0's size|this game is monstargh-v0"):
        run_match(game_id, [make_agent("greedy", "marry_the_monster-v0"), "greedy"], 2, progress=False)
    with pytest.raises(TypeError, match="agent entry 1 must be an agent name or an agent"):
        run_match(game_id, ["greedy", 7], 2, progress=False)


class CountingChecks(RandomAgent):
    """A random agent that counts how often its game is checked."""

    checks = 0

    def check_game(self, game_id, config, options=None):
        self.checks += 1
        super().check_game(game_id, config, options)


def test_the_match_runner_checks_each_agent_once_per_game():
    agent = CountingChecks(0)
    agent.made_for = GameRules.any_rules("marry_the_monster-v0")
    records = list(
        iter_games("marry_the_monster-v0", ["random", "random"], 4, agents=[agent, RandomAgent(1)])
    )
    assert len(records) == 4 and agent.checks == 4


# --- the training vec env and learner env refuse opponents of another game ------------------------
@pytest.mark.parametrize("game_id,n", CHAMPIONS)
def test_vec_env_refuses_a_champion_of_another_player_count(game_id, n):
    champion = make_agent("champion", game_id, options={"num_players": n})
    wrong = other_count(game_id, n)
    with pytest.raises(
        WrongGameError, match=rf"num_players={n}\b.*this game is {game_id} with .*num_players={wrong}"
    ):
        envs.make_vec_env(game_id, 2, opponents=[champion], num_players=wrong)
    with pytest.raises(WrongGameError):
        monster_zoo.make_learner_env(game_id, opponents=[champion], num_players=wrong)


def test_set_opponents_refuses_and_keeps_the_pool():
    game_id = "marry_the_monster-v0"
    two = make_agent("champion", game_id, options={"num_players": 2})
    vec = envs.make_vec_env(game_id, 2, opponents=[two], num_players=2)
    with pytest.raises(WrongGameError, match="num_players=4"):
        vec.set_opponents([two, make_agent("champion", game_id, options={"num_players": 4})])
    assert vec.games.opponents == [two]
    with pytest.raises(WrongGameError, match="monstargh-v0"):
        vec.set_opponents([make_agent("greedy", "monstargh-v0")])
    vec.set_opponents([make_agent("greedy", game_id)])  # any player count of its own game


def test_an_agent_of_your_own_is_checked_when_it_says_its_game():
    """The protocol is ``made_for`` (or a ``check_game`` method of one's own): an Agent subclass
    made for a game is refused elsewhere like the shipped ones."""

    class FirstLegal(Agent):
        name = "first-legal"

        def act(self, observation, action_mask, state=None):
            self.check_view(observation, action_mask, state)
            return int(np.flatnonzero(action_mask)[0])

    agent = FirstLegal(0)
    agent.made_for = GameRules.from_options("marry_the_monster-v0", {"num_players": 2})
    obs, mask, state = view("marry_the_monster-v0", 3)
    with pytest.raises(WrongGameError, match="num_players=3"):
        agent.act(obs, mask, state)
    with pytest.raises(WrongGameError):
        run_match("marry_the_monster-v0", [agent, "random", "random"], 3, progress=False)
    assert run_match("marry_the_monster-v0", [agent, "random"], 2, progress=False).stats[0].games == 2
