"""Hostile files in: policy files, match records and a leaderboard's
earlier results are refused within bounds fixed before reading, with the reader's own error
naming the file, never a MemoryError, a RecursionError or a read that does not end.

Memory stays bounded here: the crafted files are small on disk (compressed or sparse), and
where a reader could still read too much, ``tracemalloc`` or a stream that counts what is
read shows that the refusal comes before the cap.
"""

import io
import json
import os
import struct
import threading
import tracemalloc
import zipfile
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.model_file import (
    MAX_LAYER_UNITS,
    MAX_METADATA_BYTES,
    MAX_NAME_CHARS,
    MAX_PARAMETERS,
    METADATA,
    ModelFileError,
    is_policy_file,
)
from monster_zoo.agents.ppo.policy_file import make_metadata, read_policy, write_policy
from monster_zoo.envs.core.bounded_reading import (
    BoundedReader,
    json_depth,
    parse_json,
    read_at_most,
    read_json_file,
)
from monster_zoo.envs.core.records import (
    MAX_AGENT_NAME_CHARS,
    MAX_RECORD_ACTIONS,
    MAX_RECORD_BYTES,
    RecordError,
    RecordWriter,
    read_record,
    record_game,
    save_record,
    validate_record,
)
from monster_zoo.envs.replay import replay

GAME = "marry_the_monster-v0"
TWO = {"num_players": 2}
MB = 1 << 20


# --- helpers ------------------------------------------------------------------------------
def small_model(path: Path, hidden=(16, 8)) -> Path:
    """A valid 2-player policy file of random weights."""
    spec = envs.spec(GAME)
    sizes = [spec.obs_size, *hidden, spec.num_actions]
    rng = np.random.default_rng(0)
    layers = [
        (rng.normal(0, 0.3, (a, b)), rng.normal(0, 0.1, b), "tanh" if k < len(hidden) else None)
        for k, (a, b) in enumerate(zip(sizes, sizes[1:]))
    ]
    return write_policy(path, layers, make_metadata(GAME, TWO, list(hidden), "tanh", "small"))


def with_entries(src: Path, dst: Path, entries: dict) -> Path:
    """A copy of the zip ``src`` with ``entries`` (name -> bytes or str) replaced or added, deflated."""
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as new:
        for name in old.namelist():
            if name not in entries:
                new.writestr(name, old.read(name))
        for name, data in entries.items():
            new.writestr(name, data)
    return dst


def metadata_of(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read(METADATA))


def peak_bytes(action) -> int:
    """The peak of Python's allocations while ``action()`` runs (it may raise)."""
    tracemalloc.start()
    try:
        action()
    except Exception:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def finishes_within(seconds: float, action) -> object:
    """``action()``'s outcome (its value or exception), or a failure if it blocks past ``seconds``."""
    outcome = {}

    def run():
        try:
            outcome["value"] = action()
        except Exception as err:
            outcome["value"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still blocked after {seconds} s"
    return outcome["value"]


class CountingStream(io.RawIOBase):
    """An endless stream of zero bytes (like /dev/zero) that counts what is read from it."""

    def __init__(self):
        self.given = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        buffer[:] = bytes(len(buffer))
        self.given += len(buffer)
        return len(buffer)


# --- the bounded reading helpers ------------------------------------------------------------
def test_bounded_reads_stop_one_byte_past_the_cap_of_an_endless_stream():
    stream = CountingStream()
    with pytest.raises(ValueError, match="endless is larger than 1,000 bytes"):
        read_at_most(stream, 1000, "endless")
    assert stream.given == 1001
    stream = CountingStream()
    reader = BoundedReader(stream, 100, "entry")
    assert len(reader.read(60)) == 60 and stream.given == 60
    with pytest.raises(ValueError, match="entry is larger than 100 bytes"):
        reader.read()
    assert stream.given <= 101
    assert read_at_most(io.BytesIO(b"x" * 10), 10, "exact") == b"x" * 10


def test_json_depth_is_counted_without_recursion_and_ignores_brackets_in_strings():
    assert json_depth("[" * 200_000 + "]" * 200_000) == 200_000
    assert json_depth('{"a": [1, {"b": "[[[[\\"[["}]}') == 3
    assert json_depth("7") == 0


class _Refused(ValueError):
    """A caller's own error class, as RecordError or ModelFileError are."""


@pytest.mark.parametrize(
    "raw, message",
    [
        (b'{"a": "\xff"}', "upload is not JSON: it is not UTF-8 text"),
        (b"[" * 9 + b"]" * 9, "upload nests JSON 9 levels deep; the most accepted is 8"),
        (b'{"a": 1', "upload is not JSON"),
        (b"", "upload is not JSON"),
    ],
)
def test_untrusted_json_is_refused_with_the_callers_error_naming_it(raw, message):
    """The one decoder of JSON from outside: bad bytes, deep nesting and broken JSON each raise the
    caller's error (a class or a factory such as the web app's ``bad_request``) naming the input."""
    with pytest.raises(_Refused, match=message):
        parse_json(raw, 8, "upload", _Refused)
    made = []
    with pytest.raises(_Refused, match=message):
        parse_json(raw, 8, "upload", lambda text: made.append(text) or _Refused(text))
    assert len(made) == 1
    assert parse_json('{"a": [1, "é"]}'.encode(), 8, "upload") == {"a": [1, "é"]}


def test_a_json_file_is_read_within_its_size_cap(tmp_path):
    """read_json_file refuses a file over its cap before decoding it, and reads one within it."""
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"pad": "x" * 200}))
    with pytest.raises(_Refused, match="big.json is 2.. bytes; the most accepted is 100"):
        read_json_file(path, 100, 4, str(path), _Refused)
    assert read_json_file(path, 1000, 4, str(path), _Refused) == {"pad": "x" * 200}


# --- policy files (point 2) -----------------------------------------------------------------
def test_a_model_with_a_huge_layer_is_refused_before_anything_is_allocated(tmp_path):
    """The probe's file: 297 KB declaring a 200,000-unit layer took 868 MB to load."""
    good = small_model(tmp_path / "good.npz")
    for sizes in ([200_000], [MAX_LAYER_UNITS + 1, 8]):
        meta = {
            **metadata_of(good),
            "architecture": {"type": "mlp", "hidden_sizes": sizes, "activation": "tanh"},
        }
        bad = with_entries(good, tmp_path / "wide.npz", {METADATA: json.dumps(meta)})
        with pytest.raises(
            ModelFileError, match=f"holds a layer of {sizes[0]:,} units; the most accepted is"
        ):
            read_policy(bad)
    deep = {
        **metadata_of(good),
        "architecture": {"type": "mlp", "hidden_sizes": [8] * 9, "activation": "tanh"},
    }
    with pytest.raises(ModelFileError, match="has 9 layers; the most accepted is 8"):
        read_policy(with_entries(good, tmp_path / "deep.npz", {METADATA: json.dumps(deep)}))
    many = {
        **metadata_of(good),
        "architecture": {"type": "mlp", "hidden_sizes": [4096] * 2, "activation": "tanh"},
        "observation_size": 10**12,
    }  # a shape larger than any memory
    with pytest.raises(ModelFileError, match=f"parameters; the most accepted is {MAX_PARAMETERS:,}"):
        read_policy(with_entries(good, tmp_path / "many.npz", {METADATA: json.dumps(many)}))


def test_a_trainer_can_refuse_a_network_too_big_to_save_before_training():
    from monster_zoo.evaluation.arg_checks import policy_size_problem

    assert policy_size_problem("--net-arch", GAME, [256, 256]) is None
    assert "holds a layer of 8,192 units" in policy_size_problem("--net-arch", GAME, [8192])
    assert "parameters; the most accepted is" in policy_size_problem(
        "--net-arch", "monster_factory-v0", [4096, 4096]
    )
    assert policy_size_problem("--net-arch", "monster_factory-v0", [256, 256], item_sizes=[64]) is None


def test_the_shipped_champions_fit_well_inside_the_caps():
    from monster_zoo.agents.model_file import read_metadata
    from monster_zoo.agents.network import read_network
    from monster_zoo.agents.shipped_files import AZ_ARCHITECTURE, CHAMPION_DIR

    for path in sorted(CHAMPION_DIR.glob("*.npz")):
        # a shipped search network (an az version, or a champion version that is one): its own file type, the same caps
        if read_metadata(path)["architecture"]["type"] == AZ_ARCHITECTURE:
            network = read_network(path)
            parameters, widths = network.params.size, network.hidden_sizes
        else:
            policy = read_policy(path)
            parameters = sum(w.size + b.size for w, b, _ in policy.layers)
            widths = [w.shape[1] for w, _, _ in policy.layers[:-1]]
        assert parameters * 10 < MAX_PARAMETERS and all(width * 10 < MAX_LAYER_UNITS for width in widths), (
            path
        )


def lying_metadata_zip(path: Path, inflated: int) -> Path:
    """A policy file whose metadata.json's zip headers say 100 bytes but inflates to ``inflated``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(METADATA, b" " * inflated)
    data = bytearray(buffer.getvalue())
    struct.pack_into("<I", data, 22, 100)  # the local header's uncompressed size
    struct.pack_into("<I", data, data.rfind(b"PK\x01\x02") + 24, 100)  # the central directory's
    path.write_bytes(bytes(data))
    return path


def test_metadata_whose_zip_header_lies_about_its_size_is_read_in_bounded_chunks(tmp_path):
    """The probe's zip said 100 bytes and inflated to 500 MB: 1.17 GB before the CRC failed."""
    bad = lying_metadata_zip(tmp_path / "lying.npz", 24 * MB)
    assert bad.stat().st_size < 100_000
    with pytest.raises(ModelFileError, match="lying.npz"):
        read_policy(bad)
    assert peak_bytes(lambda: read_policy(bad)) < 4 * MB
    honest = tmp_path / "honest.npz"
    with zipfile.ZipFile(honest, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(METADATA, b" " * (3 * MB))
    with pytest.raises(ModelFileError, match=f"metadata.json is larger than {MAX_METADATA_BYTES:,} bytes"):
        read_policy(honest)
    assert peak_bytes(lambda: read_policy(honest)) < 4 * MB


def test_an_array_header_declaring_gigabytes_is_refused_within_its_bound(tmp_path):
    """numpy reads a version-2 header of any declared length before checking it: the entry is read
    through a bounded reader instead."""
    good = small_model(tmp_path / "good.npz")
    header = b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + b" " * (16 * MB)
    bad = with_entries(good, tmp_path / "header.npz", {"actor.0.weight.npy": header})
    with pytest.raises(ModelFileError, match="header.npz.*actor.0.weight.npy is larger than"):
        read_policy(bad)
    assert peak_bytes(lambda: read_policy(bad)) < 4 * MB


def test_deeply_nested_or_hostile_metadata_gets_the_loaders_own_error(tmp_path):
    good = small_model(tmp_path / "good.npz")
    nested = with_entries(good, tmp_path / "nested.npz", {METADATA: "[" * 100_000 + "]" * 100_000})
    with pytest.raises(ModelFileError, match="nested.npz.*nests JSON 100,000 levels deep"):
        read_policy(nested)
    for name, message in (("x" * (MAX_NAME_CHARS + 1), "at most 128 characters"), ("evil\x1b[2J", "control")):
        meta = {**metadata_of(good), "name": name}
        with pytest.raises(ModelFileError, match=message):
            read_policy(with_entries(good, tmp_path / "named.npz", {METADATA: json.dumps(meta)}))
    big_number = with_entries(good, tmp_path / "number.npz", {METADATA: "1" * 5000})
    with pytest.raises(ModelFileError, match="is not JSON"):
        read_policy(big_number)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_model_that_is_a_fifo_or_a_device_is_refused_at_once(tmp_path):
    fifo = tmp_path / "model.npz"
    os.mkfifo(fifo)
    refused = finishes_within(10, lambda: read_policy(fifo))
    assert isinstance(refused, ModelFileError) and "is a FIFO, not a regular file" in str(refused)
    assert finishes_within(10, lambda: is_policy_file(fifo)) is False
    refused = finishes_within(10, lambda: make_agent(f"ppo:{fifo}", GAME, options=TWO))
    assert isinstance(refused, ValueError)
    if Path("/dev/zero").exists():
        with pytest.raises(ModelFileError, match="'/dev/zero' is a character device"):
            read_policy("/dev/zero")


# --- match records (point 3) ------------------------------------------------------------------
@pytest.fixture(scope="module")
def record():
    env = envs.make(GAME, num_players=2, max_steps=20)
    rng = np.random.default_rng(0)
    return record_game(env, [lambda o, m: int(rng.choice(np.flatnonzero(m)))] * 2, 0, ["random"] * 2)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_records_that_are_not_regular_files_are_refused_at_once(tmp_path):
    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    refused = finishes_within(10, lambda: read_record(fifo))
    assert isinstance(refused, RecordError) and f"record {fifo} is a FIFO, not a regular file" in str(refused)
    with pytest.raises(RecordError, match="is a folder"):
        read_record(tmp_path)
    if Path("/dev/zero").exists():
        with pytest.raises(RecordError, match="record /dev/zero is a character device"):
            read_record("/dev/zero")


def test_a_record_over_the_size_cap_is_refused_without_being_read(tmp_path, monkeypatch):
    """The probe's 117 MB record took 897 MB and 8 s before its refusal."""
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(117 * MB)  # sparse: no disk space taken
    import monster_zoo.envs.core.bounded_reading as bounded

    monkeypatch.setattr(bounded, "read_at_most", lambda *a, **k: pytest.fail("the record was read"))
    with pytest.raises(
        RecordError, match=f"big.json is {117 * MB:,} bytes; the most accepted is {MAX_RECORD_BYTES:,}"
    ):
        read_record(big)


def test_the_record_caps_fit_the_longest_real_game():
    """Each game's default truncation limit bounds its real games; the longest must fit twice."""
    longest = max(
        next(o.default for o in envs.spec(g).options if o.name == "max_steps") for g in envs.available()
    )
    assert 2 * longest <= MAX_RECORD_ACTIONS
    assert MAX_RECORD_ACTIONS * 200 <= MAX_RECORD_BYTES  # 200 bytes of JSON per action at most


def test_deeply_nested_records_and_long_names_are_refused_naming_the_file(tmp_path, record):
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RecordError, match="nested.json nests JSON 100,000 levels deep"):
        read_record(nested)
    long_name = tmp_path / "long.json"
    long_name.write_text(json.dumps({**record, "agents": ["x" * 1_000_000, "random"]}))
    with pytest.raises(
        RecordError,
        match=f"long.json: the agent name of seat 0 is 1,000,000 characters; a record "
        f"keeps names of at most {MAX_AGENT_NAME_CHARS}",
    ):
        read_record(long_name)
    with pytest.raises(RecordError, match="at most 10,000"):
        validate_record(
            {**record, "actions": record["actions"] * 1000, "result": {**record["result"], "length": 20_000}}
        )
    not_utf8 = tmp_path / "latin.json"
    not_utf8.write_bytes(b'{"format": "\xff"}')
    with pytest.raises(RecordError, match="latin.json is not JSON: it is not UTF-8 text"):
        read_record(not_utf8)


def test_a_record_naming_more_seats_than_its_game_is_refused_before_any_picture(record):
    """Each seat is a view of the replay page: 1,000 named seats would be 1,000 sets of pictures."""
    with pytest.raises(RecordError, match="'agents' names 3 seats but marry_the_monster-v0 .* seats 2"):
        next(replay({**record, "agents": ["a", "b", "c"]}))
    with pytest.raises(RecordError, match="a record has 1 to 16"):
        validate_record({**record, "agents": ["a"] * 1000})


def test_names_a_record_cannot_keep_are_refused_before_the_game(tmp_path, record):
    env = envs.make(GAME, num_players=2)
    with pytest.raises(ValueError, match="seat 1 .* a match record keeps names of at most 256"):
        RecordWriter(env, 0, ["random", "y" * 300])
    path = save_record(record, tmp_path / "ok.json")
    assert read_record(path) == record


def test_a_tournament_keeping_records_refuses_a_label_too_long_before_playing(monkeypatch):
    pytest.importorskip("openskill")
    from monster_zoo.evaluation import tournament

    monkeypatch.setattr(tournament, "iter_games", lambda *a, **k: pytest.fail("games were played"))
    with pytest.raises(ValueError, match="a match record keeps names of at most 256"):
        tournament.run_tournament(
            GAME,
            ["x" * 300 + "=random", "greedy"],
            2,
            options=TWO,
            progress=False,
            records_per_pairing=1,
            play_series=tournament.iter_games,
        )


# --- a leaderboard's earlier results (point 4, --resume) ---------------------------------------
def table_json(table, seed: int) -> dict:
    """What an earlier leaderboard run would have written for ``table``."""
    names = list(table.field)
    return {
        "game": table.game_id,
        "field": names,
        "agents": {n: n for n in names},
        "num_players": table.num_players,
        "games_per_pairing": table.games,
        "seed": seed,
        "options": {"num_players": table.num_players},
        "elapsed_s": 1.5,
        "pairings": [
            {
                "agent": a,
                "opponent": b,
                "games": 2,
                "wins": 1,
                "draws": 0,
                "losses": 1,
                "win_rate": 0.5,
                "win_rate_low": 0.1,
                "win_rate_high": 0.9,
            }
            for a, b in permutations(names, 2)
        ],
        "ratings": [{"agent": n, "mu": 25.0, "sigma": 8.0, "ordinal": 1.0, "games": 4} for n in names],
        "rated_games": 8,
        "settings": json.loads(table.settings),
    }


PLANTED = [
    (
        lambda d: d["ratings"].append(
            {"agent": "<img src=x onerror=alert(1)>", "mu": 1.0, "sigma": 1.0, "ordinal": 99.0, "games": 1}
        ),
        "one rating per agent",
    ),
    (lambda d: d.update(elapsed_s="a while"), "'elapsed_s'"),
    (lambda d: d["pairings"][0].update(wins=-3), "non-negative integers"),
    (lambda d: d["pairings"].pop(), "every ordered pair"),
    (lambda d: d["ratings"][0].update(mu=float("nan")), "finite numbers"),
    (lambda d: d.update(agents={"</td><script>": "x"}), "'agents'"),
    (lambda d: d["settings"]["agents"].update(mcts={"simulations": 1}), "search settings or model files"),
    (lambda d: d.pop("settings"), "search settings or model files"),
]


@pytest.mark.parametrize("plant, reason", PLANTED)
def test_resume_reads_an_earlier_table_strictly_and_plays_a_planted_one_again(
    tmp_path, capsys, plant, reason
):
    pytest.importorskip("openskill")
    from monster_zoo.evaluation import leaderboard

    table = leaderboard.plan([GAME], 0.05)[0]
    folder = tmp_path / "lb"
    folder.mkdir()
    (folder / f"{table.key}.png").write_bytes(b"\x89PNG")
    (folder / f"{table.key}.json").write_text(json.dumps(table_json(table, 3)))
    summary = leaderboard.finished_table(table, 3, folder)
    assert summary is not None and summary["reused"]
    data = table_json(table, 3)
    plant(data)
    (folder / f"{table.key}.json").write_text(json.dumps(data))
    assert leaderboard.finished_table(table, 3, folder) is None
    assert reason in capsys.readouterr().err


def test_resume_never_reads_a_planted_fifo_link_or_nested_file(tmp_path):
    pytest.importorskip("openskill")
    from monster_zoo.evaluation import leaderboard

    table = leaderboard.plan([GAME], 0.05)[0]
    folder = tmp_path / "lb"
    folder.mkdir()
    (folder / f"{table.key}.png").write_bytes(b"\x89PNG")
    target = folder / f"{table.key}.json"
    (tmp_path / "elsewhere.json").write_text(json.dumps(table_json(table, 3)))
    target.symlink_to(tmp_path / "elsewhere.json")
    assert leaderboard.finished_table(table, 3, folder) is None
    target.unlink()
    target.write_text("[" * 50_000 + "]" * 50_000)
    assert leaderboard.finished_table(table, 3, folder) is None
    if hasattr(os, "mkfifo"):
        target.unlink()
        os.mkfifo(target)
        assert finishes_within(10, lambda: leaderboard.finished_table(table, 3, folder)) is None
