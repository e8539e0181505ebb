"""A real two-node Ray cluster on this machine: a league and a tournament run across both nodes.

The recipe of ``training/README.md`` ("A Ray cluster on one machine"): ``ray start --head`` on
127.0.0.2 and a worker node with its own ports and temp dir on 127.0.0.3 joining it, both in
``--block`` mode so that stopping them (SIGTERM to the two ``ray start`` processes this test
started) takes their Ray processes down with them. Each node offers one CPU, so two env runners
or a tournament's tasks must use both. Slow (a couple of minutes): ``pytest -m slow
tests/test_ray_cluster.py``.
"""

import importlib.util
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

# Ray itself is not imported here (the nodes and the clients are subprocesses), so that a local
# Ray started by other tests keeps their settings.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs the distributed extra"),
]

HEAD_IP, WORKER_IP, PORT = "127.0.0.2", "127.0.0.3", 6411
WORKER_PORTS = [
    "--node-manager-port",
    "6421",
    "--object-manager-port",
    "6422",
    "--min-worker-port",
    "6500",
    "--max-worker-port",
    "6599",
    "--dashboard-agent-listen-port",
    "6423",
    "--dashboard-agent-grpc-port",
    "6424",
    "--metrics-export-port",
    "6425",
    "--runtime-env-agent-port",
    "6426",
]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The address of a running two-node cluster and the environment its clients need."""
    ray_cli = shutil.which("ray", path=str(Path(sys.executable).parent))
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16)}
    env.pop("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)  # it forbids worker nodes
    logs = tmp_path_factory.mktemp("ray_nodes")
    temp = Path(tempfile.mkdtemp(prefix="mz-ray-"))  # short: Ray's socket paths must fit in 107 bytes
    common = ["--block", "--num-cpus", "1", "--disable-usage-stats"]
    head = subprocess.Popen(
        [
            ray_cli,
            "start",
            "--head",
            "--node-ip-address",
            HEAD_IP,
            "--port",
            str(PORT),
            "--include-dashboard",
            "false",
            "--temp-dir",
            str(temp / "head"),
            *common,
        ],
        env=env,
        stdout=open(logs / "head.log", "w"),
        stderr=subprocess.STDOUT,
    )
    nodes = [head]
    try:
        address = f"{HEAD_IP}:{PORT}"
        wait_for_nodes(address, env, 1)
        nodes.append(
            subprocess.Popen(
                [
                    ray_cli,
                    "start",
                    "--address",
                    address,
                    "--node-ip-address",
                    WORKER_IP,
                    "--temp-dir",
                    str(temp / "worker"),
                    *WORKER_PORTS,
                    *common,
                ],
                env=env,
                stdout=open(logs / "worker.log", "w"),
                stderr=subprocess.STDOUT,
            )
        )
        wait_for_nodes(address, env, 2)
        yield address, env
    finally:
        for node in reversed(nodes):
            node.terminate()
        for node in nodes:
            node.wait(timeout=60)
        shutil.rmtree(temp, ignore_errors=True)


def wait_for_nodes(address: str, env: dict, count: int, timeout: float = 120.0) -> None:
    """Wait until the cluster at ``address`` has ``count`` live nodes."""
    code = (
        f"import ray; ray.init(address={address!r}, log_to_driver=False); "
        "print(sum(n['Alive'] for n in ray.nodes()))"
    )
    deadline = time.time() + timeout
    while time.time() < deadline:
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip().splitlines()[-1] == str(count):
            return
        time.sleep(3)
    raise TimeoutError(f"the Ray cluster at {address} did not reach {count} nodes")


def test_league_trains_on_both_nodes(cluster, tmp_path):
    address, env = cluster
    subprocess.run(
        [
            sys.executable,
            "-m",
            "monster_zoo.training",
            "league",
            "--address",
            address,
            "--num-env-runners",
            "2",
            "--option",
            "num_players=3",
            "--total-timesteps",
            "300",
            "--train-batch-size",
            "200",
            "--minibatch-size",
            "100",
            "--num-epochs",
            "1",
            "--net-arch",
            "16",
            "--eval-every",
            "0",
            "--eval-games",
            "3",
            "--checkpoint-every",
            "0",
            "--league",
            "greedy:0.5,snapshots:0.5",
            "--out-dir",
            str(tmp_path),
            "--no-progress",
        ],
        env=env,
        check=True,
        timeout=600,
    )
    summary = json.loads(next(tmp_path.glob("*/summary.json")).read_text())
    assert summary["timesteps"] >= 300
    assert len(summary["env_runner_nodes"]) == 2


def test_tournament_plays_on_both_nodes_with_the_local_results(cluster, tmp_path):
    address, env = cluster
    common = [
        sys.executable,
        "-m",
        "monster_zoo.training",
        "evaluate",
        "--agents",
        "greedy",
        "random",
        "--games",
        "40",
        "--seed",
        "2",
        "--no-progress",
    ]
    on_cluster = subprocess.run(
        common + ["--ray", "--address", address, "--out", str(tmp_path / "ray")],
        env=env,
        check=True,
        timeout=600,
        capture_output=True,
        text=True,
    )
    assert "played on 2 Ray node(s)" in on_cluster.stdout
    subprocess.run(common + ["--out", str(tmp_path / "local")], check=True, timeout=600, capture_output=True)
    local, remote = (json.loads((tmp_path / d / "tournament.json").read_text()) for d in ("local", "ray"))
    local.pop("elapsed_s")
    remote.pop("elapsed_s")
    assert remote == local
