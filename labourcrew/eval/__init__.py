"""Evaluation: datasets, metrics, baselines, benchmarks."""
