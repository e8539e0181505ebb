# Everyday entry points. Every target installs into the project's own .venv, so a
# fresh clone needs nothing but python3; the installs are idempotent and quiet.

PY := .venv/bin/python
PIP := $(PY) -m pip install -q

.PHONY: venv demo test bench clean-cache

venv: $(PY)

$(PY):
	python3 -m venv .venv
	$(PY) -m pip install -q --upgrade pip

demo: venv
	$(PIP) -e '.[dev]'
	$(PY) -m agents.match --game marry_the_monster-v0 --agents greedy random random --games 300 --seed 0

test: venv
	$(PIP) -e '.[dev,bench]'
	$(PY) -m pytest -q

bench: venv
	$(PIP) -e '.[bench,dev]'
	$(PY) -m benchmarks.bench

# numba's on-disk cache (cache=True) lives next to the sources; stale entries can
# survive a signature change, so this forces a clean recompile.
clean-cache:
	find envs agents -path '*/__pycache__/*' \( -name '*.nbi' -o -name '*.nbc' \) -delete 2>/dev/null || true
