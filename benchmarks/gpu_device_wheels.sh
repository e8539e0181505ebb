#!/usr/bin/env bash
# Run HERE, on the development machine (it reaches PyPI), in the repository root, before a GPU run:
# downloads into .whl/ the wheels that the GPU machine's image lacks (it reaches no registry), for its
# Python 3.12: monster-zoo's own dependencies the image does not hold, Pgx for the anchors, and
# numba-cuda at the version the gpu extra pins (the GPU target relies on its typing, see
# envs/core/kernels.py), and numpy 2.4.6 (the gpu extra holds numpy below 2.5, which numba-cuda
# 0.30.4 needs; GPU images may ship newer), and the device-train extra's TorchRL and tensordict with
# what they import (the trainer part; they take the image's CUDA torch: tensordict's C extension
# links no torch, TorchRL's is optional). About 25 MB. It also writes .whl/GIT_SHA, the commit of
# this tree (with -dirty when tracked files differ), which gpu_device_check.sh puts in every JSON line:
# the copy on the GPU machine has no .git.
#
# With --cuda it also downloads into .whl-cuda/ the CUDA wheels that `pip install 'monster-zoo[gpu]'`
# gives (numba-cuda[cu12]: NVVM and ptxas, nvJitLink, NVRTC, the runtime, cuda-bindings), at the
# versions the extra resolves today, so the check runs on the toolkit a user installs rather than the
# image's. About 190 MB: more than one carry holds (64 MiB), so they travel in runs of their own
# (each carrying part of .whl-cuda/, installed into the same $SITE while the machine stays warm).
# .whl/ and .whl-cuda/ stay out of git (the script adds them to .git/info/exclude).
set -euo pipefail
if [[ -n "${1:-}" && "$1" != "--cuda" ]]; then
    echo "unknown option $1; the only option is --cuda (also fetch the gpu extra's CUDA wheels)" >&2
    exit 2
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PLATFORMS=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64
    --platform manylinux_2_17_x86_64 --platform manylinux_2_12_x86_64 --platform manylinux2014_x86_64
    --platform manylinux2010_x86_64 --platform manylinux1_x86_64)
download() {  # download DIR REQUIREMENT...
    local dir=$1
    shift
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        "${PLATFORMS[@]}" -d "$dir" "$@"
}
exclude="$(git rev-parse --git-path info/exclude)"
for ignored in /.whl/ /.whl-cuda/; do
    grep -qx "$ignored" "$exclude" 2>/dev/null || echo "$ignored" >> "$exclude"
done
rm -rf .whl
download .whl \
    gymnasium==1.2.2 pettingzoo==1.27.0 farama-notifications==0.0.6 pgx==2.6.0 svgwrite==1.4.3 numba-cuda==0.30.4 \
    numpy==2.4.6 torchrl==0.14.1 tensordict==0.14.3 pyvers==0.2.3 hoptorch==0.1.4 orjson==3.13.0 \
    cloudpickle==3.1.3 importlib_metadata==10.2.0 zipp==4.1.2 lazy-importer==0.1.0 packaging==26.4
sha="$(git rev-parse HEAD)"
if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
    sha="$sha-dirty"
fi
echo "$sha" > .whl/GIT_SHA
ls .whl
if [[ "${1:-}" == "--cuda" ]]; then
    rm -rf .whl-cuda
    download .whl-cuda \
        cuda-bindings==12.9.10 cuda-core==1.2.2 cuda-pathfinder==1.9.1 cuda-toolkit==12.9.2.0 \
        nvidia-cuda-nvcc-cu12==12.9.86 nvidia-nvjitlink-cu12==12.9.86 nvidia-cuda-nvrtc-cu12==12.9.86 \
        nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-cccl-cu12==12.9.27
    du -ch .whl-cuda/*.whl
fi
