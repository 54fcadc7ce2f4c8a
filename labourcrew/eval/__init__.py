"""Evaluation: benchmarks and metrics over the dev set (data/eval/)."""
