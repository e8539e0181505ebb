#!/usr/bin/env bash
# Run HERE, on the development machine (it reaches PyPI), in the repository root, before a GPU run:
# downloads into .whl/ the wheels that the GPU machine's image lacks (it reaches no registry), for its
# Python 3.12: monster-zoo's own dependencies the image does not hold, Pgx for the anchors, and
# numba-cuda at the version the gpu extra pins (the GPU target relies on its typing, see
# envs/core/kernels.py), and numpy 2.4.6 (the gpu extra holds numpy below 2.5, which numba-cuda
# 0.30.4 needs; GPU images may ship newer), and the device-train extra's TorchRL and tensordict with
# what they import (the trainer part; they take the image's CUDA torch: tensordict's C extension
# links no torch, TorchRL's is optional). About 25 MB. .whl/ stays out of git (the script adds
# it to .git/info/exclude) and travels to the GPU machine by naming it in the run's carry.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exclude="$(git rev-parse --git-path info/exclude)"
grep -qx '/.whl/' "$exclude" 2>/dev/null || echo '/.whl/' >> "$exclude"
rm -rf .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d .whl \
    gymnasium==1.2.2 pettingzoo==1.27.0 farama-notifications==0.0.6 pgx==2.6.0 svgwrite==1.4.3 numba-cuda==0.30.4 \
    numpy==2.4.6 torchrl==0.14.1 tensordict==0.14.3 pyvers==0.2.3 hoptorch==0.1.4 orjson==3.13.0 \
    cloudpickle==3.1.3 importlib_metadata==10.2.0 zipp==4.1.2 lazy-importer==0.1.0 packaging==26.4
ls .whl
