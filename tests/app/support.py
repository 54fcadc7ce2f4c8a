"""Shared by the app and browser tests: a private environment for the dashboard.

The ``app_env`` fixture points the app at a private copy of the Milvus Lite index (Lite holds a file
lock per process), a temporary runs folder, calibration record and label store, and sets a fake
API key so every page test doubles as a "no secret on the page" check.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from labourcrew.settings import REPO_ROOT

FAKE_KEY = "sk-test-SECRET123"
INDEX = REPO_ROOT / "data" / "index" / "labourcrew.db"
QUESTION = "একজন স্থায়ী শ্রমিক চাকরি ছাড়তে চাইলে কত দিনের নোটিশ দিতে হবে?"


@dataclass(frozen=True)
class AppEnv:
    """Paths of one test environment of the app."""

    root: Path
    runs: Path
    calibration: Path
    index: Path

    @property
    def labels(self) -> Path:
        return self.calibration.parent / "labels.sqlite"

    def env(self) -> dict[str, str]:
        return {
            "LABOURCREW_PRESET": "offline",
            "LABOURCREW_RUNS_DIR": str(self.runs),
            "LABOURCREW_INDEX__URI": str(self.index),
            "LABOURCREW_GATE__CALIBRATION_PATH": str(self.calibration),
            "LABOURCREW_LLM__API_KEY": FAKE_KEY,
            "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
        }


def copy_index(dest: Path) -> Path:
    """A private copy of the built index (without its lock file); skips when none is built."""
    if not INDEX.is_dir():
        pytest.skip("no vector index at data/index/labourcrew.db: run `make index` (or `make test`)")
    target = dest / "labourcrew.db"
    shutil.copytree(INDEX, target, ignore=shutil.ignore_patterns("LOCK"))
    return target


def write_fixture_calibration(path: Path, tau: float = 0.5) -> None:
    """A calibration record with a finite τ so the offline board releases claims in page tests.

    Test fixture only (labels_sha256 of nothing); the shipped record comes from real labels.
    """
    from labourcrew.gate.system import system_of
    from labourcrew.ledger.gate import CalibrationRecord
    from labourcrew.settings import load_settings

    # Fitted "for" the system the tests run, so the gate does not fail closed on a system mismatch.
    CalibrationRecord(tau=tau, alpha=0.10, n=30, empirical_risk=0.03, bound=0.06, labels_sha256="0" * 64,
                      created="2026-01-01T00:00:00+00:00", grid_size=30, note=None, method="ltt", delta=0.10,
                      n_releasing=20, release_rate=0.67, selective_risk=0.05, p_value=0.05,
                      system=system_of(load_settings())).save(path)


def make_env(root: Path) -> AppEnv:
    index_dir = root / "index"
    index_dir.mkdir(parents=True, exist_ok=True)
    env = AppEnv(root=root, runs=root / "runs", calibration=root / "calibration" / "trust_gate.json",
                 index=copy_index(index_dir))
    write_fixture_calibration(env.calibration)
    return env
