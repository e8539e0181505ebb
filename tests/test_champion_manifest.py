"""The shipped champions' manifest: every file listed with its SHA-256 digest, and a champion
whose file is not the one that shipped is refused instead of played."""

import json
import shutil
import subprocess
import sys

import pytest

from monster_zoo import envs
from monster_zoo.agents import make_agent, shipped_files
from monster_zoo.agents.model_file import ModelFileError, read_metadata
from monster_zoo.agents.ppo import champions
from monster_zoo.agents.ppo.policy_file import read_policy, write_policy

GAME = "marry_the_monster-v0"
TWO = {"num_players": 2}
V1 = "marry_the_monster-champion-v1"  # at 2 players the PPO policy marry_the_monster-2p.npz (champion: v2)


@pytest.fixture
def copied(tmp_path, monkeypatch):
    """A copy of the champions' folder, manifest included, that the loader reads instead."""
    folder = tmp_path / "champions"
    shutil.copytree(shipped_files.CHAMPION_DIR, folder)
    monkeypatch.setattr(champions, "CHAMPION_DIR", folder)
    monkeypatch.setattr(shipped_files, "CHAMPION_DIR", folder)
    return folder


def test_the_manifest_lists_every_shipped_file_with_its_digest():
    manifest = json.loads((shipped_files.CHAMPION_DIR / shipped_files.MANIFEST).read_text(encoding="utf-8"))
    shipped = sorted(p.name for p in shipped_files.CHAMPION_DIR.glob("*.npz"))
    assert shipped and sorted(manifest["files"]) == shipped
    for name, entry in manifest["files"].items():
        path = shipped_files.CHAMPION_DIR / name
        assert entry["sha256"] == shipped_files.file_digest(path), name
        if shipped_files.champion_of_file(path) is None:
            continue  # other weights shipped beside the champions: a digest alone
        metadata = read_metadata(path)
        # a PPO policy names its one count; a learned-search network shipped as a champion, the counts it plays
        counts = metadata.get("player_counts") or [metadata["options"]["num_players"]]
        assert entry["game"] == metadata["game"] and entry["num_players"] in counts
        version = champions.champion_versions(envs.spec(entry["game"]).name, entry["num_players"])
        assert entry["version"] in version
    # and regenerating it changes nothing: the shipped manifest is what write_manifest writes
    assert manifest == shipped_files.build_manifest()
    assert shipped_files.manifest_problems() == []


def test_every_shipped_champion_loads_through_the_manifest():
    for game, counts in champions.champion_games().items():
        for n in counts:
            for version in champions.champion_versions(game, n):
                agent = make_agent(f"{game}-champion-v{version}", f"{game}-v0", options={"num_players": n})
                assert agent.name == f"{game}-champion-v{version}"


def test_a_flipped_byte_is_refused_naming_the_file_and_both_digests(copied):
    path = copied / "marry_the_monster-2p.npz"
    expected = shipped_files.file_digest(path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    found = shipped_files.file_digest(path)
    with pytest.raises(ModelFileError) as refused:
        make_agent(V1, GAME, options=TWO)
    message = str(refused.value)
    assert str(path) in message and expected in message and found in message
    assert shipped_files.manifest_problems(copied) == [message]


def test_a_tampered_copy_that_is_a_valid_policy_file_is_refused(copied):
    """Weights changed and written back as a well-formed policy file would load and play without
    the manifest; the digest refuses them."""
    path = copied / "marry_the_monster-2p.npz"
    policy = read_policy(path)
    weight, bias, activation = policy.layers[0]
    changed = weight.copy()
    changed[0, 0] += 1.0
    write_policy(path, [(changed, bias, activation), *policy.layers[1:]], policy.metadata)
    assert read_policy(path).metadata == policy.metadata  # a valid file: only the digest tells
    with pytest.raises(ModelFileError, match="has SHA-256 .* but manifest.json lists .*tampered"):
        make_agent(V1, GAME, options=TWO)
    make_agent("champion", GAME, options={"num_players": 4})  # the untouched file still loads


def test_a_file_missing_from_the_manifest_is_refused(copied):
    shutil.copy(copied / "marry_the_monster-2p.npz", copied / "marry_the_monster-2p-v3.npz")
    assert champions.champion_versions("marry_the_monster", 2) == [1, 2, 3]
    with pytest.raises(
        ModelFileError,
        match=r"marry_the_monster-2p-v3.npz is not in .*manifest.json.*"
        r"--write-manifest",
    ):
        make_agent("champion", GAME, options=TWO)
    # regenerating the manifest (what a developer adding a champion does) lists it
    shipped_files.write_manifest(copied)
    assert make_agent("champion", GAME, options=TWO).name == "marry_the_monster-champion-v3"


def test_a_missing_or_malformed_manifest_is_refused(copied):
    manifest = copied / shipped_files.MANIFEST
    manifest.write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelFileError, match="manifest.json is not valid JSON"):
        make_agent("champion", GAME, options=TWO)
    manifest.write_text(json.dumps({"files": ["marry_the_monster-2p.npz"]}), encoding="utf-8")
    with pytest.raises(ModelFileError, match="is not a monster-zoo-champions manifest"):
        make_agent("champion", GAME, options=TWO)
    manifest.unlink()
    with pytest.raises(ModelFileError, match="manifest.json is missing"):
        make_agent("champion", GAME, options=TWO)


def test_a_manifest_entry_that_contradicts_the_file_name_is_refused(copied):
    manifest = copied / shipped_files.MANIFEST
    listed = json.loads(manifest.read_text(encoding="utf-8"))
    listed["files"]["marry_the_monster-2p.npz"]["num_players"] = 3
    manifest.write_text(json.dumps(listed), encoding="utf-8")
    with pytest.raises(ModelFileError, match="lists marry_the_monster-2p.npz as .*'num_players': 3"):
        make_agent(V1, GAME, options=TWO)


def test_the_manifest_refuses_a_champion_file_whose_name_lies(copied):
    shutil.copy(copied / "marry_the_monster-4p.npz", copied / "marry_the_monster-3p.npz")
    with pytest.raises(
        ModelFileError,
        match="marry_the_monster-3p.npz holds a policy for marry_the_monster-v0 "
        "with num_players=4, but its name says .* num_players=3",
    ):
        shipped_files.write_manifest(copied)


def test_other_weights_in_the_folder_are_listed_by_digest_alone(copied):
    """Weights that are not a champion policy (a search network shipped beside them) get a digest
    too, so their loader can check them with ``verify_shipped``."""
    other = copied / "marry_the_monster-az-v9.npz"  # a version that never shipped
    other.write_bytes(b"not a policy file")
    with pytest.raises(ModelFileError, match="marry_the_monster-az-v9.npz is not in"):
        shipped_files.verify_shipped(other)
    shipped_files.write_manifest(copied)
    listed = json.loads((copied / shipped_files.MANIFEST).read_text(encoding="utf-8"))["files"]
    assert listed["marry_the_monster-az-v9.npz"] == {"sha256": shipped_files.file_digest(other)}
    shipped_files.verify_shipped(other)
    assert champions.champion_versions("marry_the_monster", 2) == [1, 2]  # no version 9 of the champion


def test_the_command_line_checks_the_manifest(copied):
    """``python -m monster_zoo.agents.champions`` exits 0 on the shipped folder; the problems of a
    damaged folder are what it would print (checked in-process on the copy)."""
    done = subprocess.run(
        [sys.executable, "-m", "monster_zoo.agents.champions"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and "every champion file matches" in done.stdout, done.stderr
    (copied / "monstargh-2p.npz").unlink()
    assert shipped_files.main([]) == 1
    assert shipped_files.manifest_problems(copied) == ["monstargh-2p.npz is listed but missing"]
    assert shipped_files.main(["--write-manifest"]) == 0
    assert "monstargh-2p.npz" not in json.loads((copied / shipped_files.MANIFEST).read_text())["files"]
