"""Trained PPO policies: a policy file as ``ppo:<model.npz>``, a trusted Stable-Baselines3 zip as
``ppo-trusted:<sb3.zip>``, and the champions shipped per game and player count (``champion`` /
``<game>-champion-v<version>``). Per-game settings: the placement layout of a game whose moves
place things on cells (``agents={"ppo": {"placement": {...}}}``), read by
:func:`monster_zoo.agents.ppo.placement.read_ppo_settings`."""

import zipfile
from pathlib import Path

from monster_zoo.agents.kind import AgentKind, AgentSettings, ModelPrefix, Request
from monster_zoo.agents.ppo.placement import SETTINGS_KEY, read_ppo_settings
from monster_zoo.envs import spec

PPO_PREFIX = "ppo:"
TRUSTED_PREFIX = "ppo-trusted:"


def names(game_id: str) -> dict:
    """``champion``, at every version shipped for some player count of the game."""
    from monster_zoo.agents.ppo.champions import all_champion_versions

    return {"champion": tuple(all_champion_versions(spec(game_id).name)) or (1,)}


def listed(game_id: str) -> bool:
    """Champions are offered only for a game where one ships."""
    from monster_zoo.agents.ppo.champions import champion_player_counts

    return bool(champion_player_counts(spec(game_id).name))


def make(request: Request):
    """The champion of the request's game and player count, at ``request.version`` (None: the newest)."""
    from monster_zoo.agents.ppo.champions import load_champion

    return load_champion(
        request.seed, game_id=request.game_id, options=request.options, version=request.version
    )


def _is_sb3_zip(path: str) -> bool:
    """Whether ``path`` is a zip with SB3's ``data`` entry (reads the zip's directory only)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return "data" in archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def _load(request: Request, trusted: bool):
    """A trained policy from ``request.path``: a policy file, or an SB3 zip when ``trusted``."""
    from monster_zoo.agents.model_file import ModelFileError, is_policy_file
    from monster_zoo.agents.ppo.agent import PPOAgent  # no torch: a policy file plays with numpy alone

    path, game_id, seed, options = request.path, request.game_id, request.seed, request.options
    if not path:
        raise ValueError(f"agent {PPO_PREFIX} needs the path of a model file: {PPO_PREFIX}<model.npz>")
    if is_policy_file(path):
        return PPOAgent.load(path, game_id, seed, options=options)
    if trusted:
        return PPOAgent.load_trusted_zip(path, game_id, seed, options=options)
    if Path(path).suffix != ".npz" and _is_sb3_zip(path):
        npz = Path(path).with_suffix(".npz")
        beside = f" The trainer writes one beside its zips: {PPO_PREFIX}{npz}." if npz.is_file() else ""
        raise ModelFileError(
            f"model {path!r} is a Stable-Baselines3 zip, and loading one unpickles its contents, which can "
            f"run any code. Play a policy file instead (.npz, plain data).{beside} For a zip you trust: "
            f"convert it once with 'monster-zoo export-model --trust-model {path} OUT.npz', or load it "
            f"as {TRUSTED_PREFIX}{path}"
        )
    return PPOAgent.load(path, game_id, seed, options=options)  # refuses it with the reason


def read_policy_file(request: Request):
    """``ppo:<model.npz>``: the policy file's agent (a zip is refused, saying how to convert it)."""
    return _load(request, trusted=False)


def read_trusted_zip(request: Request):
    """``ppo-trusted:<sb3.zip>``: a Stable-Baselines3 zip the user trusts (unpickled: needs the train extra)."""
    return _load(request, trusted=True)


KIND = AgentKind(
    summary="PPO policies: policy files, trusted SB3 zips and the shipped champions",
    names=names,
    make=make,
    listed=listed,
    any_version=True,
    models=(
        ModelPrefix(PPO_PREFIX, f"{PPO_PREFIX}<model.npz>", read_policy_file),
        ModelPrefix(TRUSTED_PREFIX, f"{TRUSTED_PREFIX}<sb3.zip>", read_trusted_zip),
    ),
    settings=AgentSettings(SETTINGS_KEY, read_ppo_settings),
)
