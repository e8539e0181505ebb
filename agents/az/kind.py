"""Learned search: a network file guides the search (``az:<network.npz>``) or plays alone
(``az-net:<network.npz>``); ``az`` / ``<game>-az-vK`` and ``az-net`` / ``<game>-az-net-vK`` play
version K of the network shipped for the game (the short names the newest), listed only where one
ships; ``az-timed`` / ``<game>-az-timed-vK`` its search at a CPU time per move sized on the host,
for the versions whose settings give one. The belief versions of ``az`` and ``az-timed``
(:data:`~monster_zoo.agents.az.shipped.BELIEF_VERSIONS`: a shipped network searched with the seat's
belief) answer by their versioned names; the short names play the newest network without beliefs
until the belief version measures stronger. Per-game settings: the shipped search's budget,
``agents={"az": {"simulations": ..., "rollout_weight": ..., "budget_ms": ..., "versions": {K: {...}}}}``
(:mod:`monster_zoo.agents.az.shipped`)."""

from monster_zoo.agents.az.shipped import (
    FIRST_VERSION,
    SETTINGS_KEY,
    belief_versions,
    network_ships,
    play_settings,
    read_play_settings,
    shipped_versions,
)
from monster_zoo.agents.kind import AgentKind, AgentSettings, ModelPrefix, Request

AZ_PREFIX = "az:"
AZ_NET_PREFIX = "az-net:"


def names(game_id: str) -> dict:
    """``az`` and ``az-net`` at every shipped version of the game's network, ``az`` also at the
    game's belief versions, and ``az-timed`` at those of ``az``'s whose settings give a CPU-time
    budget."""
    # where none ships, version 1 still resolves, so that asking for it says how to train one
    versions = shipped_versions(game_id) or (FIRST_VERSION,)
    searched = tuple(sorted({*versions, *belief_versions(game_id)}))
    timed = tuple(v for v in searched if play_settings(game_id, v).budget_ms is not None)
    return {"az": searched, "az-net": versions, **({"az-timed": timed} if timed else {})}


def plays(game_id: str, short: str) -> int | None:
    """The version ``short`` plays: the newest of its versions that is no belief version (None:
    it has none)."""
    beliefs = belief_versions(game_id)
    plain = [v for v in names(game_id).get(short, ()) if v not in beliefs]
    return plain[-1] if plain else None


def make(request: Request):
    """The search over the game's shipped network at ``request.version`` (None: the version its name
    plays; ``az-timed`` at its CPU-time budget; a belief version with the seat's belief), or that
    network alone (``az-net``)."""
    from monster_zoo.agents.az.agent import ShippedAZ, ShippedAZNet

    version = request.version
    if version is None:
        version = plays(request.game_id, request.name) or names(request.game_id)[request.name][-1]
    if request.name == "az-net":
        return ShippedAZNet(request.seed, game_id=request.game_id, options=request.options, version=version)
    return ShippedAZ(
        request.seed,
        game_id=request.game_id,
        options=request.options,
        timed=request.name == "az-timed",
        version=version,
    )


def _load(request: Request, alone: bool):
    """The search over the network file ``request.path``, or with ``alone`` the network alone."""
    from monster_zoo.agents.az.agent import load_az

    prefix = AZ_NET_PREFIX if alone else AZ_PREFIX
    if not request.path:
        raise ValueError(
            f"agent {prefix} needs the path of a network file: {prefix}<network.npz> (a training "
            f"run of monster-zoo az writes runs/<run>/network.npz)"
        )
    return load_az(request.path, request.game_id, request.seed, request.options, alone=alone)


def read_search(request: Request):
    """``az:<network.npz>``: the learned search over the network of that file."""
    return _load(request, alone=False)


def read_network_alone(request: Request):
    """``az-net:<network.npz>``: the network of that file, alone."""
    return _load(request, alone=True)


KIND = AgentKind(
    summary="search guided by a network (priors and per-seat values), or the network alone",
    names=names,
    make=make,
    listed=network_ships,
    models=(
        ModelPrefix(AZ_PREFIX, f"{AZ_PREFIX}<network.npz> (learned search)", read_search),
        ModelPrefix(AZ_NET_PREFIX, f"{AZ_NET_PREFIX}<network.npz> (its network alone)", read_network_alone),
    ),
    settings=AgentSettings(SETTINGS_KEY, read_play_settings),
    plays=plays,
)
