"""The belief over hidden cards (``monster_zoo.agents.belief``): built from the seat's view alone,
never contradicting it, and moved by each opponent move as the opponent model says.

Every game that hides information runs each test: the belief of a seat is the same whether the
game's loop shows it the true states or copies with everything the seat cannot see redealt; no
particle it keeps shows the seat anything but what the game shows it; and after an opponent's move
in two deals, the two deals' weights are the ones the opponent model's likelihoods give, worked
out below for the greedy model and for the network model.
"""

import dataclasses
import shutil

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents.belief import opponent
from monster_zoo.agents.belief.kernels import effective_size, pick_weighted, resample_particles
from monster_zoo.agents.belief.opponent import opponent_model
from monster_zoo.agents.belief.settings import BeliefSettings, belief_settings
from monster_zoo.agents.belief.tracker import Belief
from monster_zoo.agents.greedy.agent import greedy_kernel
from monster_zoo.agents.model_file import ModelFileError
from monster_zoo.agents.network import evaluate, random_network
from monster_zoo.agents.search.tuned import search_config
from monster_zoo.agents.shipped_files import CHAMPION_DIR, MANIFEST, verify_shipped
from monster_zoo.envs.core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS
from monster_zoo.envs.core.rng import make_rng, rng_pick_set
from monster_zoo.envs.registry import declaration

HIDDEN_GAMES = [g for g in envs.available() if declaration(g).hides_information]


def belief(game_id: str, seed: int, **settings) -> Belief:
    """A belief of ``game_id`` with the settings it declares, few particles (tests stay fast) and
    ``settings`` laid over them."""
    chosen = dataclasses.replace(search_config(game_id).belief, **{"particles": 16, **settings})
    return Belief(envs.spec(game_id), chosen, opponent_model(game_id, chosen), make_rng(seed))


def seat_view(spec, state: np.ndarray, seat: int) -> np.ndarray:
    """``seat``'s observation of ``state``."""
    out = np.zeros(spec.obs_size, np.float32)
    spec.observe_into(np.ascontiguousarray(state, dtype=np.int32), seat, out)
    return out


def play(game_id: str, num_players: int, seed: int, on_turn, shown=lambda state, seat: state):
    """Play one game, half greedy half random moves, with a belief per seat that hears every move;
    ``shown(state, seat)`` is what a seat's belief is told of the state, and ``on_turn(beliefs,
    state)`` runs after the belief of the seat on move caught up with the game."""
    spec = envs.spec(game_id)
    state = np.zeros(spec.state_size, np.int32)
    game_rng = make_rng(seed)
    spec.init_state(state, envs.config(game_id, {"num_players": num_players}), game_rng)
    greedy, moves_rng = greedy_kernel(game_id), make_rng(seed + 1)
    beliefs = [belief(game_id, 100 * seed + s) for s in range(num_players)]
    for s, b in enumerate(beliefs):
        b.start(s, shown(state, s))
    mask = np.zeros(spec.num_actions, np.int8)
    while state[H_CURRENT] >= 0:
        mover = int(state[H_CURRENT])
        beliefs[mover].catch_up(shown(state, mover))
        on_turn(beliefs, state)
        spec.legal_mask(state, mask)
        action = greedy(state, mask, moves_rng) if moves_rng[0] % 2 else rng_pick_set(mask, moves_rng)
        spec.apply_action(state, int(action), game_rng)
        for s, b in enumerate(beliefs):
            b.heard(mover, int(action), shown(state, s))
    return beliefs


@pytest.mark.parametrize("game_id", HIDDEN_GAMES)
def test_a_belief_is_the_same_when_what_the_seat_cannot_see_is_redealt(game_id):
    """The belief reads the states it is told through the seat's view only: told copies with
    everything the seat cannot see redealt (a fresh redeal at every move), it holds exactly the
    particles and weights it holds when told the true states."""
    spec = envs.spec(game_id)
    redeal_rng = make_rng(77)

    def redealt(state, seat):
        twin = state.copy()
        spec.determinize(twin, seat, redeal_rng)
        return twin

    for seed in (1, 2):
        n = spec.min_players + seed - 1
        true_turns, twin_turns = [], []

        def keep(turns):
            def record(beliefs, state):
                b = beliefs[int(state[H_CURRENT])]
                turns.append((b.particles.copy(), b.weights.copy()))

            return record

        play(game_id, n, seed, keep(true_turns))
        play(game_id, n, seed, keep(twin_turns), shown=redealt)
        assert len(true_turns) == len(twin_turns) > 10
        for (particles, weights), (twin_particles, twin_weights) in zip(true_turns, twin_turns):
            assert np.array_equal(particles, twin_particles)
            assert np.array_equal(weights, twin_weights)


@pytest.mark.parametrize("game_id", HIDDEN_GAMES)
def test_no_particle_contradicts_the_seat_view(game_id):
    """Over random games at every player count, each particle with weight shows the seat on move
    the observation and the legal moves the game shows it, and the weights are a distribution."""
    spec = envs.spec(game_id)
    mask, particle_mask = np.zeros(spec.num_actions, np.int8), np.zeros(spec.num_actions, np.int8)
    checked = []

    def check(beliefs, state):
        seat = int(state[H_CURRENT])
        b = beliefs[seat]
        assert b.weights.min() >= 0 and abs(b.weights.sum() - 1) < 1e-9
        view = seat_view(spec, state, seat)
        spec.legal_mask(state, mask)
        for i in np.flatnonzero(b.weights > 0):
            assert np.array_equal(seat_view(spec, b.particles[i], seat), view), f"particle {i}"
            spec.legal_mask(b.particles[i], particle_mask)
            assert np.array_equal(particle_mask, mask)
            assert b.particles[i][H_STEPS] == state[H_STEPS]
        checked.append(int((b.weights > 0).sum()))

    for n in range(spec.min_players, spec.max_players + 1):
        for seed in range(2):
            play(game_id, n, 10 * n + seed, check)
    assert sum(checked) > 1000


GRAFTING_GAMES = [g for g in HIDDEN_GAMES if envs.spec(g).graft_hidden is not None]


def random_positions(game_id: str, count: int):
    """``count`` positions of ``game_id`` after random moves, at every player count in turn, each
    with a seat (not the one on move where the game is not over)."""
    spec = envs.spec(game_id)
    mask = np.zeros(spec.num_actions, np.int8)
    counts = range(spec.min_players, spec.max_players + 1)
    for i in range(count):
        n = counts[i % len(counts)]
        state = np.zeros(spec.state_size, np.int32)
        rng = make_rng(i)
        spec.init_state(state, envs.config(game_id, {"num_players": n}), rng)
        for _ in range(i % 23):
            if state[H_CURRENT] < 0:
                break
            spec.legal_mask(state, mask)
            spec.apply_action(state, int(rng_pick_set(mask, rng)), rng)
        yield state, (max(int(state[H_CURRENT]), 0) + 1 + i % 2) % n


@pytest.mark.parametrize("game_id", GRAFTING_GAMES)
def test_a_graft_gives_a_redeal_the_guessed_cards_and_every_seat_its_view(game_id):
    """``graft_hidden(target, source, seat)`` with ``target`` a redeal of ``source`` for the seat
    fits (1), and leaves ``target`` showing every seat what ``source`` shows it: the other seats'
    own cards are ``source``'s, and what no seat has seen may still differ."""
    spec = envs.spec(game_id)
    differed = 0
    for i, (state, seat) in enumerate(random_positions(game_id, 60)):
        target = state.copy()
        spec.determinize(target, seat, make_rng(500 + i))
        assert spec.graft_hidden(target, state, seat) == 1
        for viewer in range(int(state[H_NUM_PLAYERS])):
            assert np.array_equal(seat_view(spec, target, viewer), seat_view(spec, state, viewer)), viewer
        differed += not np.array_equal(target, state)
    assert differed > 30  # the grafted redeals still differ in what nobody saw


@pytest.mark.parametrize("game_id", GRAFTING_GAMES)
def test_a_graft_that_does_not_fit_changes_nothing_and_one_that_fits_keeps_the_seat_view(game_id):
    """Between positions of different games at the same table: where the source's guess does not
    fit the target's view the graft answers 0 and leaves the target as it was; where it fits (1)
    the target still shows the seat what it showed it. Both happen."""
    spec = envs.spec(game_id)
    positions = list(random_positions(game_id, 80))
    answers = []
    for i, (target, seat) in enumerate(positions):
        for source, _ in positions[i + 1 : i + 6]:
            if source[H_NUM_PLAYERS] != target[H_NUM_PLAYERS]:
                continue
            grafted = target.copy()
            answer = spec.graft_hidden(grafted, source, seat)
            if answer == 0:
                assert np.array_equal(grafted, target)
            else:
                assert answer == 1
                assert np.array_equal(seat_view(spec, grafted, seat), seat_view(spec, target, seat))
            answers.append(answer)
    assert 0 in answers and 1 in answers


@pytest.mark.parametrize("game_id", GRAFTING_GAMES)
def test_a_particle_holding_the_other_seats_cards_outlives_what_the_moves_turn_up(game_id):
    """A belief started after every seat's first move (in Mighty Monsters, the pairs laid face
    down: the moves the game hides), whose first particle holds the other seats' true cards but its
    own guess at what no seat has seen (a redeal of the truth for the seat, the other seats' cards
    grafted back), keeps that particle at a positive weight through the rest of the game, whatever
    the fights turn up: without the graft, the first guard turned up that it guessed wrong would
    rule it out."""
    spec = envs.spec(game_id)
    greedy, mask = greedy_kernel(game_id), np.zeros(spec.num_actions, np.int8)
    for n in range(spec.min_players, spec.max_players + 1):
        state = np.zeros(spec.state_size, np.int32)
        game_rng, moves = make_rng(40 + n), make_rng(41 + n)
        spec.init_state(state, envs.config(game_id, {"num_players": n}), game_rng)
        for _ in range(n):
            spec.legal_mask(state, mask)
            spec.apply_action(state, int(greedy(state, mask, moves)), game_rng)
        seat = 0
        b = belief(game_id, 7, particles=8, resample_below=0.0, refresh=0.0)
        b.start(seat, state)
        b.absorb()
        guess = state.copy()
        spec.determinize(guess, seat, make_rng(99))
        assert spec.graft_hidden(guess, state, seat) == 1 and not np.array_equal(guess, state)
        b.particles[0] = guess
        updates = 0
        while state[H_CURRENT] >= 0:
            mover = int(state[H_CURRENT])
            spec.legal_mask(state, mask)
            action = greedy(state, mask, moves) if moves[0] % 2 else rng_pick_set(mask, moves)
            spec.apply_action(state, int(action), game_rng)
            b.heard(mover, int(action), state)
            b.absorb()
            where = f"{n} players, update {updates}: {spec.to_text(state)}"
            assert b.evidence[-1] > 0 and b.weights[0] > 0 and holds(spec, b.particles[0], state, seat), where
            updates += 1
        assert updates > 20


def holds(spec, particle: np.ndarray, state: np.ndarray, seat: int) -> bool:
    """Whether ``particle`` is ``state`` as the belief of ``seat`` keeps it: the same state, or, in a
    game that grafts (``graft_hidden``), the same guess at the other seats' own cards and the same
    view for every seat (what no seat has seen is the particle's own redeal)."""
    if spec.graft_hidden is None:
        return bool(np.array_equal(particle, state))
    guessed = state.copy()
    return spec.graft_hidden(guessed, particle, seat) == 1 and all(
        np.array_equal(guessed, state)
        and np.array_equal(seat_view(spec, particle, v), seat_view(spec, state, v))
        for v in range(int(state[H_NUM_PLAYERS]))
    )


def deterministic_greedy(greedy, state, mask, tries=6):
    """The greedy kernel's choice in ``state`` when it makes the same one with any generator, else -1."""
    picks = {int(greedy(state.copy(), mask, make_rng(k))) for k in range(tries)}
    return picks.pop() if len(picks) == 1 else -1


def draws_no_chance(spec, state, action) -> bool:
    """Whether ``action`` in ``state`` leaves its generator untouched (no card drawn)."""
    rng = make_rng(5)
    before = rng.copy()
    spec.apply_action(state.copy(), action, rng)
    return bool(np.array_equal(rng, before))


def telling_position(game_id: str):
    """A position of ``game_id`` (after random moves) with a seat and an opponent on move, and two
    redeals of it for the seat, ``expected`` and ``unexpected``: the greedy opponent model plays
    ``action`` in the first for sure and another move in the second, and ``action``, legal in both,
    draws on no chance. Returns ``(state, seat, expected, unexpected, action)``."""
    spec, greedy = envs.spec(game_id), greedy_kernel(game_id)
    config = envs.config(game_id, {"num_players": spec.min_players})
    mask = np.zeros(spec.num_actions, np.int8)
    for seed in range(200):
        state = np.zeros(spec.state_size, np.int32)
        rng, moves = make_rng(seed), make_rng(seed + 1000)
        spec.init_state(state, config, rng)
        for _ in range(3 + seed % 17):
            spec.legal_mask(state, mask)
            spec.apply_action(state, int(rng_pick_set(mask, moves)), rng)
        if state[H_CURRENT] < 0:
            continue
        mover = int(state[H_CURRENT])
        seat = (mover + 1) % int(state[H_NUM_PLAYERS])
        deals = []
        for k in range(8):
            deal = state.copy()
            spec.determinize(deal, seat, make_rng(seed * 31 + k))
            spec.legal_mask(deal, mask)
            deals.append((deal, deterministic_greedy(greedy, deal, mask.copy())))
        for deal, action in deals:
            if action < 0 or not draws_no_chance(spec, deal, action):
                continue
            for other, other_action in deals:
                spec.legal_mask(other, mask)
                if other_action >= 0 and other_action != action and mask[action]:
                    if draws_no_chance(spec, other, action):
                        return state, seat, deal, other, action
    raise AssertionError(f"no telling position found in {game_id}")


@pytest.mark.parametrize("game_id", HIDDEN_GAMES)
def test_an_opponent_move_moves_the_weights_as_the_model_says(game_id):
    """Two deals the seat cannot tell apart, at equal weight; the opponent on move plays what the
    greedy model plays in the first deal and not in the second. With the model's epsilon e and n_1,
    n_2 legal moves in the two deals, the likelihoods are (1 - e) + e / n_1 and e / n_2, so the
    first deal's weight becomes their share: worked out here, compared with the update's."""
    spec = envs.spec(game_id)
    state, seat, expected, unexpected, action = telling_position(game_id)
    mover = int(state[H_CURRENT])
    epsilon = 0.2
    b = belief(game_id, 3, particles=2, model="greedy", epsilon=epsilon, resample_below=0.0)
    b.seat = seat
    b.particles[0], b.particles[1] = expected, unexpected
    b.weights[:] = 0.5
    mask = np.zeros(spec.num_actions, np.int8)
    n_expected = spec.legal_mask(expected.copy(), mask)
    n_unexpected = spec.legal_mask(unexpected.copy(), mask)
    after = expected.copy()  # the game is one of the deals: the seat cannot tell which
    spec.apply_action(after, action, make_rng(9))
    b.update(mover, action, after)
    likely, unlikely = (1 - epsilon) + epsilon / n_expected, epsilon / n_unexpected
    assert b.weights[0] == pytest.approx(likely / (likely + unlikely), rel=1e-12)
    assert b.weights[1] == pytest.approx(unlikely / (likely + unlikely), rel=1e-12)
    assert b.weights[0] > 0.5 > b.weights[1]
    for particle, deal in zip(b.particles, (expected, unexpected)):  # each advanced by the move
        moved = deal.copy()
        spec.apply_action(moved, action, make_rng(0))
        assert holds(spec, particle, moved, seat)


NETWORK_MODEL = {"epsilon": 0.3, "greedy_share": 0.25, "temperature": 1.7}


def network_likelihood(spec, b, deal, mover, action):
    """The likelihood of ``mover``'s ``action`` in ``deal`` under ``b``'s network model (settings
    :data:`NETWORK_MODEL`): epsilon of a uniform legal move, the greedy share if greedy plays it
    there, and the rest times the network's softmax at the temperature over the mover's legal
    moves, read from the mover's own observation of the deal, the network evaluated in numpy's
    order; None where the greedy kernel's choice there depends on its generator (a tie)."""
    epsilon, greedy_share, temperature = (
        NETWORK_MODEL[k] for k in ("epsilon", "greedy_share", "temperature")
    )
    mask = np.zeros(spec.num_actions, np.int8)
    legal = spec.legal_mask(deal.copy(), mask)
    logits, _ = evaluate(b.model.network, seat_view(spec, deal, mover), int(deal[H_NUM_PLAYERS]))
    scaled = logits[0].astype(np.float64)[mask != 0] / temperature
    policy = np.exp(scaled - scaled.max()) / np.exp(scaled - scaled.max()).sum()
    share = policy[int(np.flatnonzero(np.flatnonzero(mask) == action)[0])]
    greedy = deterministic_greedy(b.model.policy, deal, mask.copy())
    if greedy < 0:
        return None
    return epsilon / legal + greedy_share * (greedy == action) + (1 - epsilon - greedy_share) * share


def network_belief(game_id, state, seat, particles):
    """A belief of ``seat`` under the network model of :data:`NETWORK_MODEL`, dealt for ``state``'s
    table, holding ``particles`` at equal weights; no resampling, no refresh."""
    b = belief(game_id, 3, particles=len(particles), resample_below=0.0, refresh=0.0, **NETWORK_MODEL)
    assert b.model.network is not None and int(state[H_NUM_PLAYERS]) in b.model.network.player_counts
    b.seat = seat
    b.deal(state)  # the model for this table
    for i, particle in enumerate(particles):
        b.particles[i] = particle
    b.weights[:] = 1.0 / len(particles)
    return b


@pytest.mark.parametrize("game_id", HIDDEN_GAMES)
def test_the_network_model_weighs_a_move_by_the_mover_policy_in_each_deal(game_id):
    """The two deals of the telling position under the network model: each deal's weight after the
    move is its share of the two likelihoods worked out by :func:`network_likelihood`."""
    spec = envs.spec(game_id)
    state, seat, expected, unexpected, action = telling_position(game_id)
    mover = int(state[H_CURRENT])
    b = network_belief(game_id, state, seat, [expected, unexpected])
    first, second = (network_likelihood(spec, b, deal, mover, action) for deal in (expected, unexpected))
    after = expected.copy()
    spec.apply_action(after, action, make_rng(9))
    b.update(mover, action, after)
    assert b.weights[0] == pytest.approx(first / (first + second), rel=1e-5)
    assert b.weights[1] == pytest.approx(second / (first + second), rel=1e-5)
    assert first != pytest.approx(second)  # the two deals told apart


@pytest.mark.parametrize("game_id", HIDDEN_GAMES)
def test_particles_the_mover_cannot_tell_apart_share_the_model_answer_and_keep_their_own_weights(game_id):
    """The update asks the opponent model once per view of the mover and hands the answer to every
    particle that shows the mover that view. Over the telling position's two deals, a copy of each
    (the same view) and further redeals for the seat in which the move is legal and draws on no
    chance, every particle's weight still follows its own deal's likelihood: the ratio of any two
    particles' weights is the ratio of their likelihoods (:func:`network_likelihood`), and a copy
    weighs what its original weighs."""
    spec = envs.spec(game_id)
    state, seat, expected, unexpected, action = telling_position(game_id)
    mover = int(state[H_CURRENT])
    mask = np.zeros(spec.num_actions, np.int8)
    deals = [expected, unexpected, expected.copy(), unexpected.copy()]
    for k in range(40):
        deal = state.copy()
        spec.determinize(deal, seat, make_rng(7000 + k))
        if spec.legal_mask(deal.copy(), mask) and mask[action] and draws_no_chance(spec, deal, action):
            deals.append(deal)
        if len(deals) == 10:
            break
    b = network_belief(game_id, state, seat, deals)
    likelihoods = [network_likelihood(spec, b, deal, mover, action) for deal in deals]
    after = expected.copy()
    spec.apply_action(after, action, make_rng(9))
    b.update(mover, action, after)
    assert b.weights[2] == pytest.approx(b.weights[0], rel=1e-12)
    assert b.weights[3] == pytest.approx(b.weights[1], rel=1e-12)
    known = [i for i, likelihood in enumerate(likelihoods) if likelihood is not None]
    assert {0, 1, 2, 3} <= set(known)
    for i in known:
        for j in known:
            ratio = likelihoods[i] / likelihoods[j]
            assert b.weights[i] / b.weights[j] == pytest.approx(ratio, rel=1e-5), (i, j)


def test_the_opponent_model_is_the_settings_network_where_it_plays_the_table():
    """``model="greedy"`` carries no network; the network model takes the shipped network file the
    settings name (the game's declared settings name one), else the searching agent's own network,
    else none, and falls back to greedy (empty arrays) at a player count the network does not play;
    a name that is not a shipped network file is refused, naming those that are."""
    game_id = "monstargh-v0"
    greedy = opponent_model(game_id, BeliefSettings(model="greedy"))
    assert greedy.network is None and greedy.arrays(2)[0].size == 0
    assert opponent_model(game_id, BeliefSettings()).network is None  # no network named, none own
    shipped = opponent_model(game_id, search_config(game_id).belief)
    assert shipped.network is not None and shipped.arrays(2)[0] is shipped.network.params
    assert shipped.arrays(7)[0].size == 0
    own = random_network(game_id, [8], seed=1)
    assert opponent_model(game_id, BeliefSettings(), own).network is own
    for bad in ("../manifest.json", "monstargh-2p.npz.missing", "manifest.json"):
        with pytest.raises(
            ValueError, match="is not a shipped network file; those are: .*monstargh-az-v2.npz"
        ):
            opponent_model(game_id, BeliefSettings(network=bad))


def test_the_opponent_model_network_is_verified_once_per_version_of_its_file(tmp_path, monkeypatch):
    """Agents made one after another share the verified network; a file changed afterwards (new
    bytes, so a new size) is verified again and refused for its digest."""
    name = "monstargh-az-v2.npz"
    for copied in (name, MANIFEST):
        shutil.copyfile(CHAMPION_DIR / copied, tmp_path / copied)
    monkeypatch.setattr(opponent, "CHAMPION_DIR", tmp_path)
    verified = []
    monkeypatch.setattr(
        opponent, "verify_shipped", lambda path: verified.append(path) or verify_shipped(path)
    )
    first = opponent.shipped_model_network(name, "monstargh-v0")
    assert opponent.shipped_model_network(name, "monstargh-v0") is first
    assert verified == [tmp_path / name]
    with open(tmp_path / name, "ab") as f:
        f.write(b"changed")
    with pytest.raises(ModelFileError, match="changed after it shipped"):
        opponent.shipped_model_network(name, "monstargh-v0")


@pytest.mark.parametrize("game_id", HIDDEN_GAMES)
def test_the_seat_own_move_and_an_impossible_move_are_weighed_by_the_view_alone(game_id):
    """The seat's own move leaves the weights as they were where it draws on no chance, and a move
    illegal in a particle kills it; where every particle dies, the belief is dealt again from the
    view after the move (equal weights)."""
    spec = envs.spec(game_id)
    state, seat, expected, unexpected, action = telling_position(game_id)
    b = belief(game_id, 4, particles=2, resample_below=0.0)
    b.seat = int(state[H_CURRENT])  # the mover's own belief: its own move carries no likelihood
    b.particles[0] = b.particles[1] = expected
    b.weights[:] = [0.25, 0.75]
    after = expected.copy()
    spec.apply_action(after, action, make_rng(9))
    b.update(b.seat, action, after)
    assert np.array_equal(b.weights, [0.25, 0.75])
    b.weights[:] = [0.25, 0.75]
    mask = np.zeros(spec.num_actions, np.int8)
    spec.legal_mask(after, mask)
    illegal = int(np.flatnonzero(mask == 0)[0])
    b.update(int(after[H_CURRENT]), illegal, after)  # no particle could have made this move
    assert np.array_equal(b.weights, [0.5, 0.5])
    for particle in b.particles:
        assert np.array_equal(seat_view(spec, particle, b.seat), seat_view(spec, after, b.seat))


def test_resampling_copies_particles_in_proportion_to_their_weights():
    """Systematic resampling keeps each particle floor or ceiling of count x weight times, equal
    weights after; the weighted pick follows the weights and never picks a weight of 0."""
    particles = np.arange(8, dtype=np.int32).repeat(3).reshape(8, 3)
    weights = np.array([0.5, 0.25, 0.125, 0.125, 0, 0, 0, 0], np.float64)
    assert effective_size(weights) == pytest.approx(1 / (0.25 + 0.0625 + 2 * 0.015625))
    rngs = np.zeros((8, 1), np.uint64)
    resample_particles(particles, weights, rngs, make_rng(1))
    assert sorted(particles[:, 0].tolist()) == [0, 0, 0, 0, 1, 1, 2, 3]
    assert np.allclose(weights, 1 / 8) and len(set(rngs[:, 0].tolist())) == 8
    cumulative = np.cumsum([0.0, 0.7, 0.0, 0.3])
    rng = make_rng(2)
    picks = np.bincount([pick_weighted(cumulative, rng) for _ in range(4000)], minlength=4)
    assert picks[0] == picks[2] == 0 and abs(picks[1] / 4000 - 0.7) < 0.03


def test_bad_belief_settings_are_refused_naming_the_valid_ones():
    """Out-of-range settings and unknown fields are refused with what is valid."""
    with pytest.raises(ValueError, match="particles must be an integer >= 1"):
        BeliefSettings(particles=0)
    with pytest.raises(ValueError, match=r"epsilon must be a number in \(0, 1\]"):
        BeliefSettings(epsilon=0.0)
    with pytest.raises(ValueError, match="model must be one of network, greedy, not 'oracle'"):
        BeliefSettings(model="oracle")
    with pytest.raises(ValueError, match="temperature must be a number above 0"):
        BeliefSettings(temperature=0)
    with pytest.raises(ValueError, match=r"greedy_share must be a number from 0 to 1 - epsilon \(0.7\)"):
        BeliefSettings(epsilon=0.3, greedy_share=0.8)
    with pytest.raises(ValueError, match="unknown: particle"):
        belief_settings({"particle": 3})
    with pytest.raises(ValueError, match="belief must be True, False, None"):
        belief_settings("yes")
    assert belief_settings(True) == BeliefSettings() and belief_settings(None) is None


@pytest.mark.parametrize("search", ["mcts", "az"])
def test_the_match_runner_tells_a_believing_search_every_move(search):
    """In a game played by the match runner the search's belief hears the deal and every move: it
    never starts again from a bare view, so it weighed one move per action of the game before its
    last turn."""
    from monster_zoo.agents.az.agent import AZAgent
    from monster_zoo.agents.az.shipped import shipped_network_path
    from monster_zoo.agents.registry import make_agent
    from monster_zoo.agents.search.agent import MCTSAgent
    from monster_zoo.evaluation.match import play_game

    game_id, options, belief = "marry_the_monster-v0", {"num_players": 2}, {"particles": 8}
    if search == "mcts":
        agent = MCTSAgent(0, simulations=30, game_id=game_id, belief=belief)
    else:
        network = shipped_network_path(game_id)
        agent = AZAgent(0, network, game_id, options, simulations=16, belief=belief)
    steps = []
    act = agent.act
    agent.act = lambda obs, mask, state: steps.append(int(state[H_STEPS])) or act(obs, mask, state)
    env = envs.make(game_id, num_players=2)
    play_game(env, [agent, make_agent("greedy", game_id, 1, {"num_players": 2})], seed=3)
    assert len(steps) > 5 and len(agent.belief.evidence) == steps[-1]


def test_mcts_v3_deals_from_beliefs_and_mcts_still_plays_v2():
    """``<game>-mcts-v3`` is version 2's search with the belief settings the game declares where it
    hides information (as version 2 where it hides nothing); the short name still plays version 2."""
    from monster_zoo.agents.registry import available_agents, make_agent, versioned_name

    for game_id in envs.available():
        name = envs.spec(game_id).name
        v2, v3 = make_agent(f"{name}-mcts-v2", game_id), make_agent(f"{name}-mcts-v3", game_id)
        assert f"{name}-mcts-v3" in available_agents(game_id)
        assert versioned_name(game_id, "mcts") == f"{name}-mcts-v2"
        assert make_agent("mcts", game_id).belief_settings is None and v2.belief_settings is None
        assert (v3.simulations, v3.exploration, v3.rollout) == (v2.simulations, v2.exploration, v2.rollout)
        hides = declaration(game_id).hides_information
        assert v3.belief_settings == (search_config(game_id).belief if hides else None)


def hidden_move(game_id: str):
    """A position with an opponent of the seat on move and two of its legal actions the game names
    alike to the seat (a pair laid face down), or None where random play meets none."""
    spec = envs.spec(game_id)
    mask = np.zeros(spec.num_actions, np.int8)
    for seed in range(60):
        state = np.zeros(spec.state_size, np.int32)
        rng, moves = make_rng(seed), make_rng(seed + 500)
        spec.init_state(state, envs.config(game_id, {"num_players": spec.min_players}), rng)
        for _ in range(seed * 7 % 90):
            spec.legal_mask(state, mask)
            spec.apply_action(state, int(rng_pick_set(mask, moves)), rng)
        mover = int(state[H_CURRENT])
        if mover < 0:
            continue
        seat = (mover + 1) % int(state[H_NUM_PLAYERS])
        spec.legal_mask(state, mask)
        legal = np.flatnonzero(mask)
        names = [spec.describe_action(state, int(a), seat) for a in legal]
        for i, a in enumerate(legal):
            if names[i] != spec.action_to_str(int(a), state):
                twins = [int(b) for j, b in enumerate(legal) if j != i and names[j] == names[i]]
                if twins:
                    return state, seat, int(a), twins[0]
    return None


@pytest.mark.parametrize("game_id", HIDDEN_GAMES)
def test_a_move_the_game_hides_tells_the_belief_only_its_name(game_id):
    """Where the game hides which move an opponent made (it names the move alike to the seat), the
    seat's belief after it is the same whichever of the moves named alike it was."""
    found = hidden_move(game_id)
    if found is None:
        pytest.skip(f"{game_id} hides no move from the other seats")
    state, seat, action, twin = found
    spec = envs.spec(game_id)
    beliefs = []
    for move in (action, twin):
        b = belief(game_id, 8)
        b.start(seat, state)
        after = state.copy()
        spec.apply_action(after, move, make_rng(1))
        b.heard(int(state[H_CURRENT]), move, after)
        assert len(b.pending[-1][1]) > 1  # every move named alike is a candidate
        b.absorb()
        beliefs.append(b)
    assert np.array_equal(beliefs[0].particles, beliefs[1].particles)
    assert np.array_equal(beliefs[0].weights, beliefs[1].weights)
