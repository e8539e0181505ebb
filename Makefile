# Everyday entry points. Every target installs into the project's own .venv, so a
# fresh clone needs nothing but python3; the installs are idempotent and quiet.

PY := .venv/bin/python
PIP := $(PY) -m pip install -q

.PHONY: venv demo test lint docs bench play match pictures clean-cache

venv: $(PY)

$(PY):
	python3 -m venv .venv
	$(PY) -m pip install -q --upgrade pip

# The main job: a short self-play PPO run on Marry the Monster (2 players) with the array-side
# trainer (device-train: the policy reads the batched engine's arrays; faster than SB3's train
# and its agent stronger after equal wall time, docs/guides/gpu.md), then the trained agent's win
# rates against random and greedy and its learning curves (runs/<run name>/curves.png). torch
# runs on one thread (the trainer's default), which keeps its speed when other processes share
# the machine (benchmarks/torch_threads.py).
demo: venv
	$(PIP) -e '.[device-train]'
	$(PY) -m monster_zoo.training device-train --option num_players=2 --exp-name demo $(DEMO_ARGS)

DEMO_ARGS := --total-timesteps 3000000 --eval-every 1000000 --eval-games 200 --checkpoint-every 0

# The suite spreads over every core (pytest-xdist); how long it takes on our hosts is measured by
# benchmarks/command_times.py and shown in docs/results/.
test: venv
	$(PIP) -e '.[dev,bench,train,distributed,web,docs,openspiel,examples,gpu,llm,openenv,device-train]'
	$(PY) -m pytest -n auto

# What CI checks before the tests: ruff's lint and format (pyproject.toml's [tool.ruff]) and mypy
# over the public API (pyproject.toml's [tool.mypy], run by .ci/typecheck on the package as it
# installs). `ruff check --fix .` and `ruff format .` repair most of what the first two find.
lint: venv
	$(PIP) -e '.[dev]'
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) .ci/typecheck

# The documentation site (docs/, Sphinx + MyST + Furo) into docs/_build/html; a warning is an error.
# First the results pages (docs/results/) and the README's headline table, rendered from the
# measurement files (docs/measurements/, docs/leaderboard/, training/results/).
docs: venv
	$(PIP) -e '.[docs]'
	$(PY) docs/render_results.py
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html

# The README's game pictures (docs/pictures/<game>.png) and the sample replay page.
pictures: venv
	$(PIP) -e '.[render]'
	$(PY) docs/make_pictures.py

bench: venv
	$(PIP) -e '.[bench,train,dev]'
	$(PY) -m monster_zoo.benchmarks.bench
	$(PY) -m monster_zoo.benchmarks.training_throughput

# The game of `make play` and `make match`; any id of `monster_zoo.available()`, e.g.
# `make play GAME=monstargh-v0`.
GAME ?= marry_the_monster-v0

# The package installed into .venv, again only when pyproject.toml changed since (a stamp file),
# so that `make play` starts the game at once.
INSTALLED := .venv/.monster-zoo-installed

$(INSTALLED): pyproject.toml | $(PY)
	$(PIP) -e '.'
	touch $@

# Play $(GAME) in the terminal against two greedy agents.
play: $(INSTALLED)
	$(PY) -m monster_zoo.training play --game $(GAME) --agents greedy greedy

# A seat-rotated series greedy vs two random agents with win rates and 95% intervals.
match: $(INSTALLED)
	$(PY) -m monster_zoo.evaluation.match --game $(GAME) --agents greedy random random --games 300 --seed 0

# numba's on-disk cache (cache=True) lives next to the sources; stale entries can
# survive a signature change, so this forces a clean recompile.
clean-cache:
	find envs agents -path '*/__pycache__/*' \( -name '*.nbi' -o -name '*.nbc' \) -delete 2>/dev/null || true
