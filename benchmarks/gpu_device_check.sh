#!/usr/bin/env bash
# The GPU engine's device check in one command, within eight minutes (the parts' time limits on its
# longest path add up to 460 s, tests/test_gpu_device_check.py holds them there) on a machine with an NVIDIA
# GPU and no network. Installs the wheels of .whl/ (benchmarks/gpu_device_wheels.sh fetched them: the
# project's dependencies the image lacks and, with --cuda there, the gpu extra's own CUDA wheels) and
# monster-zoo itself into $SITE, then runs benchmarks/gpu_device_check.py's parts as separate
# processes, each under its own time limit, so that one part failing or running over loses no other
# part's lines:
#   - link (CPU only, one process per game beside the rest): every kernel compiled and linked;
#   - parity at 256 games a case, beside the trainers of the games other than Marry the Monster (one
#     minute each, side by side: their lines say so, concurrent_trainers);
#   - then, each alone on the GPU: the engine bench with the Pgx anchors, 2-player Marry the
#     Monster's trainer for one minute at device-train's default size for the GPU (its rate is the
#     figure to compare), and its variants for ten seconds each (VARIANTS: 16,384 games with torch's
#     host synchronisations counted, float32, torch.compile with CUDA graphs), from which the
#     trainer's GPU defaults are chosen.
# Every JSON line carries the git commit that .whl/GIT_SHA records (the copy here has no .git), the
# package versions and the host. Lines go to stdout and to $OUT/gpu_device_check.jsonl
# (benchmarks/results/ without $OUT); a summary ends the run. Exit status 1 when any part failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python3}
SITE=${SITE:-/tmp/site}
start=$SECONDS
for wheels in .whl .whl-cuda; do  # the project's dependencies; the gpu extra's CUDA wheels where carried
    if compgen -G "$wheels/*.whl" >/dev/null; then
        $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" \
            "$wheels"/*.whl || echo "installing $wheels/ failed; going on with what the image has" >&2
    fi
done
$PY -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --upgrade --target "$SITE" . || exit 1
if [[ -z "${MONSTER_ZOO_GIT_SHA:-}" && -s .whl/GIT_SHA ]]; then
    export MONSTER_ZOO_GIT_SHA="$(cat .whl/GIT_SHA)"
fi
results=${OUT:-$PWD/benchmarks/results}
mkdir -p "$results"
jsonl="$results/gpu_device_check.jsonl"
logs="$results/gpu_device_check_logs"
mkdir -p "$logs"
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
cd /tmp  # import the installed package, not the repository's folders
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
# GAMES (space-separated ids) narrows the games; arguments go to every part (e.g. --quick for a dry
# run under numba-cuda's simulator: NUMBA_ENABLE_CUDASIM=1 GAMES=mighty_monsters-v0 bash ... --quick)
GAMES=${GAMES:-$($PY -c 'import monster_zoo; print(" ".join(monster_zoo.available()))')} || exit 1

part() {  # part NAME SECONDS ARGS...: one process of the check, its own log, its own time limit
    local name=$1 limit=$2
    shift 2
    timeout --signal=TERM --kill-after=20 "$limit" $PY -m monster_zoo.benchmarks.gpu_device_check \
        --json "$jsonl" "$@" "${EXTRA[@]}" >/dev/null 2>"$logs/$name.log"
    local code=$?
    if [[ $code -eq 124 || $code -eq 137 ]]; then  # killed: it could not say so in its own lines
        printf '{"part": "error", "failed_part": "%s", "error": "stopped after its limit of %s s", "git": "%s"}\n' \
            "$name" "$limit" "${MONSTER_ZOO_GIT_SHA:-unknown}" >>"$jsonl"
    fi
    if [[ $code -ne 0 ]]; then
        tail -n 5 "$logs/$name.log" >&2
    fi
    echo "[$((SECONDS - start)) s] $name done (exit $code)" >&2
}

EXTRA=("$@")
for game in $GAMES; do  # the link check compiles for a real GPU, never on the simulator
    NUMBA_ENABLE_CUDASIM=0 part "link-$game" 420 --parts link --games "$game" &
done
# first, beside the link processes: parity (its figures are not timed) and the trainers of every game
# but Marry the Monster, side by side (their lines say how many shared the GPU); then the timed parts,
# each alone on the GPU: the engine bench with Pgx, and Marry the Monster's trainer
others=()
for game in $GAMES; do
    if [[ $game != marry_the_monster-v0 ]]; then
        others+=("$game")
    fi
done
sharing=()
for game in "${others[@]}"; do
    part "trainer-$game" 140 --parts trainer --trainer-games "$game" --parity-envs 64 \
        --concurrent-trainers ${#others[@]} &
    sharing+=($!)
done
part parity 140 --parts parity --parity-envs 256 --games "${GAMES// /,}"
for pid in "${sharing[@]}"; do
    wait "$pid"
done
part bench 130 --parts bench,pgx --repeats 3 --seconds 0.2 --games "${GAMES// /,}"
if [[ " $GAMES " == *" marry_the_monster-v0 "* ]]; then
    part trainer-marry_the_monster-v0 110 --parts trainer --trainer-games marry_the_monster-v0 --parity-envs 128 \
        --trainer-envs 0
    part variants-marry_the_monster-v0 80 --parts variants --trainer-games marry_the_monster-v0 \
        --variant-seconds 10 --variants "${VARIANTS:-envs=16384,audit=1;envs=0,dtype=float32;envs=0,compile=reduce-overhead}"
fi
wait  # the link processes
echo "--- summary after $((SECONDS - start)) s (logs: $logs) ---"
$PY -m monster_zoo.benchmarks.gpu_device_check --summary "$jsonl"
if grep -q '"part": "error"' "$jsonl"; then
    exit 1
fi
