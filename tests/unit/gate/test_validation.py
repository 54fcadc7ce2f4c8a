"""Split validation of the Trust Gate (issue 6) and the committed calibration set / record."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from labourcrew.errors import InputError
from labourcrew.gate.labels import Label
from labourcrew.gate.recalibration import (
    CalibrationSetRow,
    load_calibration_set,
    propose,
)
from labourcrew.gate.validation import questions_from_set, validate, write_validation
from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.settings import REPO_ROOT

CAL_DIR = REPO_ROOT / "data" / "calibration"


def _synthetic(n: int = 60) -> list[list[tuple[float, bool, bool]]]:
    # High scores faithful, low scores unfaithful; the categorical gate releases everything.
    out = []
    for i in range(n):
        out.append([(0.95 + 0.0001 * i, True, True), (0.5 + 0.001 * i, False, True), (0.4, False, True)])
    return out


def test_same_seed_same_report_and_calibrated_beats_categorical():
    qs = _synthetic()
    a = validate(qs, splits=50, seed=3)
    b = validate(qs, splits=50, seed=3)
    assert a.model_dump() == b.model_dump()
    assert a.splits == 50 and a.n_questions == 60 and a.n_claims == 180 and a.n_unfaithful == 120
    # Categorical gate releases everything: 2 of 3 claims unfaithful in every question.
    assert a.mean_far_categorical == pytest.approx(2 / 3)
    assert a.decisive_rate_categorical == 1.0
    # Separable scores: the calibrated gate releases only the faithful claim.
    assert a.mean_far_calibrated <= a.alpha
    assert a.decisive_rate_calibrated > 0.5
    assert a.fail_closed_splits == 0 and math.isfinite(a.tau_median)


def test_no_separation_fails_closed_with_zero_risk_and_nan_pooled_rate(tmp_path):
    qs = [[(0.9, False, True), (0.8, False, False)] for _ in range(30)]
    r = validate(qs, splits=20, seed=1)
    assert r.fail_closed_splits == 20
    assert r.mean_far_calibrated == 0.0 and r.decisive_rate_calibrated == 0.0
    assert math.isnan(r.mean_far_overall_calibrated)  # nothing released: undefined, not 0
    assert r.mean_far_categorical == 1.0
    data = json.loads(write_validation(r, tmp_path / "v.json").read_text())
    assert data["mean_far_overall_calibrated"] is None and data["tau_median"] == "inf"


def test_bad_input_is_an_input_error():
    for bad in ([[(0.5, True, True)]], "x", [[(0.5, "yes", True)], [(0.5, True, True)]]):
        with pytest.raises(InputError):
            validate(bad, splits=2)
    with pytest.raises(InputError):
        validate(_synthetic(4), splits=0)
    with pytest.raises(InputError):
        validate(_synthetic(4), calibration_fraction=1.0)


def _shipped_rows() -> list[CalibrationSetRow]:
    rows = load_calibration_set(CAL_DIR / "calibration_set.jsonl")
    if not rows:
        pytest.skip("no committed calibration set")
    return rows


def test_committed_record_is_reproducible_from_the_calibration_set_without_runs():
    rows = _shipped_rows()
    record = CalibrationRecord.load(CAL_DIR / "trust_gate.json")
    labels_sha = record.labels_sha256
    proposal = propose([], [], alpha=record.alpha, labels_sha256=labels_sha, calibration_set=rows)
    assert proposal.record.n == record.n
    assert proposal.record.tau == pytest.approx(record.tau)
    assert proposal.record.bound == pytest.approx(record.bound) and record.bound <= record.alpha
    # The record names the exported label file.
    import hashlib

    assert hashlib.sha256((CAL_DIR / "labels.jsonl").read_bytes()).hexdigest() == labels_sha


def test_store_labels_override_the_set_labels():
    rows = _shipped_rows()
    faithful = [r for r in rows if r.label == "faithful"]
    base = propose([], [], alpha=0.1, labels_sha256="x", calibration_set=rows)
    flip = [Label(claim_id=r.key, run_id=r.run_id, annotator="human", label="unfaithful",
                  created="2026-01-01T00:00:00+00:00") for r in faithful]
    flipped = propose([], flip, alpha=0.1, labels_sha256="x", calibration_set=rows)
    assert flipped.data.n_claims == base.data.n_claims
    assert sum(not y for q in flipped.data.questions for _, y in q) == len(rows) - sum(r.label == "unsure" for r in rows)
    # Everything unfaithful: every released question has loss 1, so τ rises until at most
    # ~α of the questions release anything (abstaining counts as loss 0 in CRC).
    assert flipped.record.tau > base.record.tau
    released = sum(any(s >= flipped.record.tau for s, _ in q) for q in flipped.data.questions)
    assert released / len(flipped.data.questions) == pytest.approx(flipped.record.empirical_risk)


def test_questions_from_set_groups_by_run_and_reads_categorical_release():
    rows = _shipped_rows()
    qs = questions_from_set(rows)
    assert sum(len(q) for q in qs) == sum(r.label != "unsure" for r in rows)
    assert len(qs) == len({r.run_id for r in rows if r.label != "unsure"})
    cat = sum(c for q in qs for _, _, c in q)
    assert cat == sum(r.verdict == "SUPPORT" and all(c.verified for c in r.citations) for r in rows
                      if r.label != "unsure")


def test_shipped_validation_file_has_the_issue_keys():
    path = CAL_DIR / "validation.json"
    if not Path(path).is_file():
        pytest.skip("no committed validation.json")
    data = json.loads(path.read_text())
    for k in ("splits", "mean_far_calibrated", "sd_far_calibrated", "mean_far_categorical", "sd_far_categorical",
              "decisive_rate_calibrated", "decisive_rate_categorical"):
        assert k in data
    assert data["splits"] >= 500
