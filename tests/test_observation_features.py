"""The derived observation features of the observation audit (``training/observation_audit.md``; CHANGELOG.md, pre-release history).

Mighty Monsters, Monster Factory, MONSTArgh! and Monster Arena append to their observations
what the greedy baselines compute to decide and a small network reads badly from the raw
slices (sums over cells or cards, comparisons of several numbers, chances over the unseen
guard pool, neighbour lookups by coordinates). For every game, over many random reachable
states and every seat, each feature must equal its definition recomputed here from public
fields, counting and summing independently of the kernels (rules such as a guard's fight
strength or a card's Defense come from the engine, never restated); and redealing what a
seat cannot see (the game's ``determinize``) must never change a derived value.
"""

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_NUM_PLAYERS, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng

STATES_PER_OPTION_SET = 12


@pytest.fixture(scope="module")
def sampled_states(make_reachable_state, game_option_sets):
    """``states(game_id)``: random reachable states under each option set, early and late."""

    def states(game_id):
        return [
            make_reachable_state(game_id, options, 1000 * i + j, (j * 29 + i * 7) % 260)
            for i, options in enumerate(game_option_sets[game_id])
            for j in range(STATES_PER_OPTION_SET)
        ]

    return states


def view(spec, state, player):
    """Seat ``player``'s observation of ``state``."""
    out = np.zeros(spec.obs_size, np.float32)
    spec.observe_into(state, player, out)
    return out


def rel_seats(state, player):
    """``(seat, relative seat)`` pairs as the observation orders seats: the observer first."""
    n = int(state[H_NUM_PLAYERS])
    return [(q, (q - player) % n) for q in range(n)]


def check_features(states, game_id, expected_features, first_derived):
    """Every seat's derived slice equals ``expected_features(state, player)`` over ``states`` and
    stays in the observation's Box(0, 1); ``determinize`` for that seat leaves it unchanged; each
    feature block is non-zero somewhere (so the comparisons are not vacuous)."""
    spec = envs.spec(game_id)
    seen = {}
    for k, state in enumerate(states):
        for player in range(int(state[H_NUM_PLAYERS])):
            obs = view(spec, state, player)
            assert obs.min() >= 0.0 and obs.max() <= 1.0, f"{game_id} state {k}: a value leaves the Box(0, 1)"
            expected = expected_features(state, player)
            for name, (offset, values) in expected.items():
                values = np.asarray(values, np.float64)
                got = obs[offset : offset + values.size]
                assert np.allclose(got, values, atol=1e-5), (
                    f"{game_id} state {k} seat {player}: {name} is {got}, expected {values}"
                )
                seen[name] = seen.get(name, False) or bool(np.any(values != 0))
            resampled = state.copy()
            spec.determinize(resampled, player, make_rng(k * 31 + player))
            again = view(spec, resampled, player)
            changed = np.flatnonzero(again[first_derived:] != obs[first_derived:]) + first_derived
            assert changed.size == 0, (
                f"{game_id} state {k} seat {player}: redealing hidden information "
                f"changed derived slots {changed.tolist()}"
            )
    assert all(seen.values()), (
        f"{game_id}: feature blocks never non-zero: {[name for name, hit in seen.items() if not hit]}"
    )


# --- Mighty Monsters ---------------------------------------------------------------------------
def mm_expected(state, player):
    from monster_zoo.envs.mighty_monsters import observation as ob
    from monster_zoo.envs.mighty_monsters import rules as r
    from monster_zoo.envs.mighty_monsters.components import (
        GUARD_LEVEL,
        GUARD_LOOT,
        GUARD_STRENGTH,
        LEVEL_STRENGTH,
        MAX_PLAYERS,
        NUM_CARDS,
        NUM_GUARDS,
        SIDES,
        STRENGTH,
    )
    from monster_zoo.envs.mighty_monsters.state_layout import (
        CASTLE,
        G_CASTLE,
        G_DISCARD_SEEN,
        GOLD,
        GUARD_STATUS,
        REVEALED,
        SPACE,
    )

    n = int(state[H_NUM_PLAYERS])
    revealed_cards = {
        int(state[CASTLE + g]) for g in range(n) if state[CASTLE + g] >= 0 and state[REVEALED + g]
    }
    seen = [
        state[GUARD_STATUS + c] == G_DISCARD_SEEN
        or (state[GUARD_STATUS + c] == G_CASTLE and c in revealed_cards)
        for c in range(NUM_GUARDS)
    ]
    win, reach, loot, locked = (np.zeros(MAX_PLAYERS) for _ in range(4))
    outlook = np.zeros(MAX_PLAYERS)
    on_way = 1.0
    for g in range(n):
        card = int(state[CASTLE + g])
        if card < 0:
            continue
        level = GUARD_LEVEL[card]  # the public back
        pool = (
            [card]
            if state[REVEALED + g]
            else [c for c in range(NUM_GUARDS) if GUARD_LEVEL[c] == level and not seen[c]]
        )
        occupants = [int(state[SPACE + SIDES * g + s]) for s in range(SIDES)]
        pair = sum(STRENGTH[o % NUM_CARDS] for o in occupants if o >= 0)
        wins = [c for c in pool if pair >= r.fight_strength(state, g, GUARD_STRENGTH[c])]
        win[g] = len(wins) / len(pool)
        reach[g] = on_way
        loot[g] = min(np.mean([r.fight_loot(state, g, GUARD_LOOT[c]) for c in pool]) / 30.0, 1.0)
        locked[g] = pair >= LEVEL_STRENGTH[level, 1]
        if min(occupants) >= 0:
            for c in wins:
                shares = np.zeros(MAX_PLAYERS, np.int64)
                r.loot_shares(state, g, r.fight_loot(state, g, GUARD_LOOT[c]), shares)
                outlook += on_way * shares / len(pool)
        for o in occupants:
            if o >= 0:
                outlook[o // NUM_CARDS] -= (1.0 - on_way * win[g]) * r.heal_cost(state, o % NUM_CARDS)
        on_way *= win[g]
    richest = max(int(state[GOLD + q]) for q in range(n))
    behind, seat_outlook = np.zeros(MAX_PLAYERS), np.zeros(MAX_PLAYERS)
    for q, rel in rel_seats(state, player):
        behind[rel] = min((richest - state[GOLD + q]) / 100.0, 1.0)
        seat_outlook[rel] = np.clip(0.5 + outlook[q] / 60.0, 0.0, 1.0)
    return {
        "win chance": (ob.OBS_WIN, win),
        "reach chance": (ob.OBS_REACH, reach),
        "expected loot": (ob.OBS_LOOT, loot),
        "locked pair": (ob.OBS_LOCKED, locked),
        "gold behind": (ob.OBS_BEHIND, behind),
        "gold outlook": (ob.OBS_OUTLOOK, seat_outlook),
    }


def test_mighty_monsters_derived_features_match_their_definitions_and_hide_the_guards(sampled_states):
    """MM-11, MM-12, MM-8, MM-21: win and reach chances over the unseen guards of each level,
    expected loot, pairs locked at the printed maximum, gold gaps and this round's outlook."""
    from monster_zoo.envs.mighty_monsters import observation

    check_features(
        sampled_states("mighty_monsters-v0"), "mighty_monsters-v0", mm_expected, observation.OBS_WIN
    )


# --- Monster Factory ---------------------------------------------------------------------------
def mf_fits(needs, kind):
    """Whether some rotation of ``kind`` matches a cell with ``needs`` (MF-10), restated."""
    from monster_zoo.envs.monster_factory.components import BLANK, EDGES, NO_TILE, NUM_ROTATIONS, NUM_SIDES

    across = [(needs >> (2 * d)) & 3 for d in range(NUM_SIDES)]
    for rot in range(NUM_ROTATIONS):
        touching = [(a, EDGES[kind, rot, d]) for d, a in enumerate(across) if a != NO_TILE]
        if all(a == e for a, e in touching) and any(a != BLANK for a, _ in touching):
            return True
    return False


def mf_expected(state, player):
    from monster_zoo.envs.monster_factory import observation as ob
    from monster_zoo.envs.monster_factory import rules as r
    from monster_zoo.envs.monster_factory.components import KIND_EYE, MAX_OPEN_CELLS, MAX_PLAYERS, NUM_KINDS
    from monster_zoo.envs.monster_factory.state_layout import (
        CELL_KEY,
        CELL_NEEDS,
        CURRENT_MONSTER,
        HAND,
        MON_ORDINAL,
        NUM_CELLS,
        NUM_PLACED,
        SCORE,
        SUPPLY,
        TILE_KIND,
        TILE_MONSTER,
    )

    supply = [int(state[SUPPLY + k]) for k in range(NUM_KINDS)]
    fit, hand_fits = np.zeros(MAX_OPEN_CELLS), np.zeros(MAX_OPEN_CELLS)
    cells_of = {}
    for j in range(int(state[NUM_CELLS])):
        needs = int(state[CELL_NEEDS + j])
        fitting = sum(supply[k] for k in range(NUM_KINDS) if mf_fits(needs, k))
        fit[j] = fitting / sum(supply) if sum(supply) else 0.0
        hand_fits[j] = state[HAND] >= 0 and mf_fits(needs, int(state[HAND]))
        cells_of.setdefault(int(state[CELL_KEY + j]) // r.KEY_MONSTER, []).append(fit[j])
    worth, open_cells, hardest, behind = (np.zeros(MAX_PLAYERS) for _ in range(4))
    best = max(int(state[SCORE + q]) for q in range(int(state[H_NUM_PLAYERS])))
    for q, rel in rel_seats(state, player):
        m = int(state[CURRENT_MONSTER + q])
        if m >= 0:
            kinds = [
                int(state[TILE_KIND + i])
                for i in range(int(state[NUM_PLACED]))
                if state[TILE_MONSTER + i] == m
            ]
            value = len(kinds) if state[MON_ORDINAL + m] == 0 else sum(int(KIND_EYE[k]) for k in kinds)
            worth[rel] = min(value / 30.0, 1.0)
            open_cells[rel] = len(cells_of.get(m, [])) / MAX_OPEN_CELLS
            hardest[rel] = min(cells_of.get(m, [0.0]))
        behind[rel] = min((best - state[SCORE + q]) / 30.0, 1.0)
    return {
        "supply share per cell": (ob.OBS_CELL_FIT, fit),
        "hand fits per cell": (ob.OBS_HAND_FITS, hand_fits),
        "worth": (ob.OBS_WORTH, worth),
        "open cells": (ob.OBS_CELLS_OPEN, open_cells),
        "hardest cell": (ob.OBS_HARDEST, hardest),
        "score behind": (ob.OBS_BEHIND, behind),
    }


def test_monster_factory_derived_features_match_their_definitions(sampled_states):
    """MF-10, MF-11, MF-15, MF-18: supply shares fitting each open cell, whether the tile in hand
    fits it, what completing each monster in progress scores, its open cells and hardest cell,
    and score gaps."""
    from monster_zoo.envs.monster_factory import observation

    check_features(
        sampled_states("monster_factory-v0"), "monster_factory-v0", mf_expected, observation.OBS_CELL_FIT
    )


# --- MONSTArgh! ----------------------------------------------------------------------------------
def ma_expected(state, player):
    from monster_zoo.envs.monstargh import observation as r
    from monster_zoo.envs.monstargh.components import (
        CARD_SPECIES,
        CARD_VALUE,
        MAX_PLAYERS,
        NUM_CARDS,
        NUM_FOCUS,
        NUM_SPECIES,
        NUM_VALUES,
    )
    from monster_zoo.envs.monstargh.state_layout import (
        CELL_TOP,
        CELL_X,
        CELL_Y,
        FOCUS,
        IN_PLAY,
        TOKEN,
        W_DECK,
        WHERE,
    )

    top = {
        (int(state[CELL_X + k]), int(state[CELL_Y + k])): int(state[CELL_TOP + k])
        for k in range(NUM_CARDS)
        if state[CELL_TOP + k] >= 0
    }
    prey, predators = np.zeros(NUM_CARDS), np.zeros(NUM_CARDS)
    for (x, y), c in top.items():
        for near in (top.get((x + 1, y)), top.get((x - 1, y)), top.get((x, y + 1)), top.get((x, y - 1))):
            if near is not None:
                prey[c] += (CARD_VALUE[near] == CARD_VALUE[c] - 1) / 4
                predators[c] += (CARD_VALUE[near] == CARD_VALUE[c] + 1) / 4
    visible = np.bincount([CARD_SPECIES[c] for c in top.values()], minlength=NUM_SPECIES)
    mine = int(state[TOKEN + player]) if state[H_TERMINAL] == 0 else -1
    others = [visible[s] for s in range(NUM_SPECIES) if state[IN_PLAY + s] and s != mine]
    n = int(state[H_NUM_PLAYERS])
    held = sum(int(0 <= state[WHERE + c] < n) for c in range(NUM_CARDS))
    focus = sum(int(state[FOCUS + q * NUM_FOCUS + f]) for q in range(n) for f in range(NUM_FOCUS))
    deck = sum(int(state[WHERE + c] == W_DECK) for c in range(NUM_CARDS))
    return {
        "prey": (r.OBS_PREY, prey),
        "predators": (r.OBS_PREDATORS, predators),
        "own visible": (r.OBS_OWN_VISIBLE, [visible[mine] / NUM_VALUES if mine >= 0 else 0.0]),
        "best other": (r.OBS_BEST_OTHER, [max(others) / NUM_VALUES]),
        "mean other": (r.OBS_MEAN_OTHER, [np.mean(others) / NUM_VALUES]),
        "plays left": (r.OBS_PLAYS_LEFT, [(held + focus + deck) / (NUM_CARDS + MAX_PLAYERS * NUM_FOCUS)]),
    }


def test_monstargh_derived_features_match_their_definitions_and_hide_species_and_hands(sampled_states):
    """MA-9, MA-15, MA-18: neighbours one below and one above each visible card, visible monsters
    of the observer's species and of the others, and the cards left to play this scene."""
    from monster_zoo.envs.monstargh import observation

    check_features(sampled_states("monstargh-v0"), "monstargh-v0", ma_expected, observation.OBS_PREY)


# --- Monster Arena -------------------------------------------------------------------------------
def ar_expected(state, player):
    from monster_zoo.envs.monster_arena import observation as r
    from monster_zoo.envs.monster_arena import queries
    from monster_zoo.envs.monster_arena.components import (
        COST,
        DEFENSE,
        DICE,
        KIND,
        KIND_PART,
        MAX_PLAYERS,
        MAX_SLOTS,
        NUM_CARDS,
        NUM_TORSOS,
        SLOTS,
    )
    from monster_zoo.envs.monster_arena.state_layout import (
        CHILD,
        FROZEN,
        L_TABLE,
        LOC,
        OWNER,
        TARGET,
        USED,
        WEB,
        WING,
    )

    n = int(state[H_NUM_PLAYERS])
    building = r.is_building(state)
    defense = np.zeros(NUM_CARDS)
    power, parts, exposed, weakest = (np.zeros(MAX_PLAYERS) for _ in range(4))
    for c in range(NUM_CARDS):
        if state[LOC + c] != L_TABLE:
            continue
        q = int(state[OWNER + c])
        rel = (q - player) % n
        if building and q != player:  # AR-19: its attachments are not seen yet
            defense[c] = DEFENSE[c] / 16.0 if KIND[c] != KIND_PART else 0.0
            continue
        d = queries.defense(state, c)
        defense[c] = d / 16.0
        parts[rel] += (KIND[c] == KIND_PART) / (NUM_CARDS - NUM_TORSOS)
        if COST[c] >= 0 and not state[USED + c] and not state[FROZEN + c]:
            power[rel] += (3.5 * DICE[c] + queries.attack_mod(state, c)) / 40.0
        filled = sum(int(state[CHILD + c * MAX_SLOTS + s] >= 0) for s in range(SLOTS[c]))
        if SLOTS[c] == 0 or filled < SLOTS[c]:
            exposed[rel] += (KIND[c] != KIND_PART) / 2.0
            weakest[rel] = d / 16.0 if weakest[rel] == 0 else min(weakest[rel], d / 16.0)
    margin = 0.0
    if state[TARGET] >= 0:
        dice, bonus, _ = queries.attack_profile(state)
        expected = 3.5 * dice + bonus - state[WING] - queries.defense(state, int(state[TARGET])) - state[WEB]
        margin = np.clip(0.5 + expected / 40.0, 0.0, 1.0)
    return {
        "defense": (r.OBS_DEFENSE, defense),
        "power": (r.OBS_POWER, np.minimum(power, 1.0)),
        "parts": (r.OBS_PARTS, parts),
        "exposed torso": (r.OBS_EXPOSED, exposed),
        "weakest outer card": (r.OBS_WEAKEST, weakest),
        "attack margin": (r.OBS_MARGIN, [margin]),
    }


def test_monster_arena_derived_features_match_their_definitions_and_hide_building(sampled_states):
    """AR-11, AR-19, AR-26, AR-30, AR-36: Defense with passives, attack strength left this round,
    parts attached, exposed torso halves, the weakest outer card and the pending attack's margin;
    while building, another seat shows only its torso halves' printed Defense."""
    from monster_zoo.envs.monster_arena import observation

    check_features(
        sampled_states("monster_arena-v0"), "monster_arena-v0", ar_expected, observation.OBS_DEFENSE
    )
