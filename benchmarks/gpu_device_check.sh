#!/usr/bin/env bash
# The GPU engine's device check in one command, on a machine with an NVIDIA GPU and no network:
# installs the wheels of .whl/ (benchmarks/gpu_device_wheels.sh fetched them) and monster-zoo itself
# into /tmp/site, then runs benchmarks/gpu_device_check.py (PTX check, GPU = CPU parity for every
# game, the GPU benchmark, the Pgx anchors). Arguments go to that script (e.g. --parts bench,pgx).
# JSON lines go to stdout and to $OUT/gpu_device_check.jsonl (benchmarks/results/ without $OUT).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python3}
SITE=${SITE:-/tmp/site}
if compgen -G ".whl/*.whl" >/dev/null; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl
fi
$PY -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --upgrade --target "$SITE" .
results=${OUT:-$PWD/benchmarks/results}
mkdir -p "$results"
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
cd /tmp  # import the installed package, not the repository's folders
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
exec $PY -m monster_zoo.benchmarks.gpu_device_check --json "$results/gpu_device_check.jsonl" "$@"
