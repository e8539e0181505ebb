"""Throughput benchmarks: our engines and AEC envs against PettingZoo and OpenSpiel anchors.

Run ``python -m monster_zoo.benchmarks.bench --help``; see ``benchmarks/README.md``.
"""
