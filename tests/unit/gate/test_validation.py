"""Split validation of the Trust Gate (issue 6) and the committed calibration set / record."""

from __future__ import annotations

import hashlib
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


def test_committed_record_is_reproducible_from_the_claims_and_label_store():
    from labourcrew.gate.recalibration import fit_from_files

    record = CalibrationRecord.load(CAL_DIR / "trust_gate.json")
    again = fit_from_files(CAL_DIR / "calibration_set.jsonl", CAL_DIR / "labels.jsonl", method=record.method,
                           alpha=record.alpha, delta=record.delta or 0.1, system=record.system).record
    keep = {"created"}
    assert again.model_dump(exclude=keep) == record.model_dump(exclude=keep)
    assert record.labels_sha256 == hashlib.sha256((CAL_DIR / "labels.jsonl").read_bytes()).hexdigest()


def test_store_labels_decide_the_set_claims():
    rows = _shipped_rows()
    base = propose([], [], alpha=0.1, labels_sha256="x", calibration_set=rows)
    assert base.data.n_claims == 0  # the store decides; a row's own label is not used behind its back
    flip = [Label(claim_id=r.content_key, run_id=r.run_id, annotator="z", label="unfaithful", created="t")
            for r in rows]
    flipped = propose([], flip, alpha=0.1, labels_sha256="x", calibration_set=rows, method="crc")
    assert flipped.data.n_claims == len({r.content_key for r in rows})
    assert sum(y for q in flipped.data.questions for _, y in q) == 0


def test_questions_from_set_groups_by_run_and_reads_categorical_release():
    from labourcrew.gate.labels import resolve_labels
    from labourcrew.gate.recalibration import load_label_file

    rows = _shipped_rows()
    labels, _ = load_label_file(CAL_DIR / "labels.jsonl")
    decided = resolve_labels(labels)
    kept = [r for r in rows if (d := decided.get(r.content_key)) is not None and d.faithful is not None]
    assert kept, "the shipped calibration claims have labels in the store"
    qs = questions_from_set(rows, labels)
    assert sum(len(q) for q in qs) == len(kept)
    assert len(qs) == len({r.run_id for r in kept})
    cat = sum(c for q in qs for _, _, c in q)
    assert cat == sum(r.categorical_release for r in kept)


def test_shipped_validation_file_has_the_issue_keys():
    path = CAL_DIR / "validation.json"
    if not Path(path).is_file():
        pytest.skip("no committed validation.json")
    data = json.loads(path.read_text())
    assert data["splits"] == 1000 and data["delta"] == 0.1
    for g in ("ltt", "crc", "categorical"):
        m = data["methods"][g]
        for k in ("mean_selective_risk", "share_splits_selective_risk_above_alpha", "mean_release_rate"):
            assert k in m
    # LTT's promise: the τ fitted on a split's half has a selective risk above α, on all labelled questions, in at
    # most δ of the splits (up to sampling error); a record whose labels break it is not used: the gate fails closed.
    from labourcrew.gate.crc import POPULATION_SHARE, REFUTE_Z, excess_z, load_calibration, validation_failure

    ltt = data["methods"]["ltt"]
    share = ltt[POPULATION_SHARE]
    record = CalibrationRecord.load(CAL_DIR / "trust_gate.json")
    loaded = load_calibration(CAL_DIR / "trust_gate.json", record.alpha, delta=record.delta)
    if record.labels_sha256 == data["labels_sha256"] and not math.isinf(record.tau):
        refuted = excess_z(share, data["delta"], data["splits"]) > REFUTE_Z
        assert (validation_failure(CAL_DIR / "trust_gate.json", record) is not None) == refuted
        assert math.isinf(loaded.tau) == refuted
    # The held-out half runs higher than the population share: the halves are complementary.
    assert ltt["share_splits_selective_risk_above_alpha"] >= share
    assert ltt["bootstrap"]["resamples"] >= 100 and 0.0 <= ltt["bootstrap"]["share_population_risk_above_alpha"] <= 1.0
    assert data["by_category"] and data["mondrian"]


def _ltt_record(tmp_path, share: float, labels: str = "abc", *, held_out: float | None = None,
                population: bool = True) -> Path:


    rec = CalibrationRecord(tau=0.9, alpha=0.1, n=100, empirical_risk=0.0, bound=0.05, labels_sha256="abc",
                            created="2026-12-04T00:00:00+00:00", method="ltt", delta=0.1, grid_size=1001)
    path = tmp_path / "trust_gate.json"
    rec.save(path)
    (tmp_path / "validation.json").write_text(json.dumps(
        {"splits": 1000, "delta": 0.1, "labels_sha256": labels,
         "methods": {"ltt": {"share_splits_selective_risk_above_alpha": held_out if held_out is not None else share,
                             **({} if population is False else {"share_splits_population_risk_above_alpha": share})}}}),
        encoding="utf-8")
    return path


def test_a_record_its_own_split_validation_refutes_fails_closed(tmp_path):
    """LTT's τ is used only while the split validation of the same labels keeps LTT's promise (its share of
    splits above α at most 2 binomial standard errors over δ: 0.12 of 1000 splits is 1.9, 0.138 is 3.5)."""
    from labourcrew.gate.crc import is_stand_in, load_calibration

    refuted = load_calibration(_ltt_record(tmp_path, 0.138), 0.1, delta=0.1)
    assert math.isinf(refuted.tau) and is_stand_in(refuted) and "split validation" in refuted.note
    assert refuted.note.index("বিভাজন") < refuted.note.index("split")  # Bangla first
    assert load_calibration(_ltt_record(tmp_path, 0.12), 0.1, delta=0.1).tau == 0.9  # within the allowance
    assert load_calibration(_ltt_record(tmp_path, 0.3, labels="other"), 0.1, delta=0.1).tau == 0.9  # other labels
    (tmp_path / "validation.json").write_text("{not json", encoding="utf-8")
    assert load_calibration(tmp_path / "trust_gate.json", 0.1, delta=0.1).tau == 0.9  # unreadable: not used


def test_the_population_share_decides_and_an_older_file_is_read_by_its_held_out_share(tmp_path):
    """A validation's LTT share that checks the promise is the population one: a held-out share of 0.138 with a
    population share of 0.004 keeps τ; a file written before the population share existed is read by its
    held-out share (conservative) and refutes the same τ, saying which share it read."""
    from labourcrew.gate.crc import load_calibration

    assert load_calibration(_ltt_record(tmp_path, 0.004, held_out=0.138), 0.1, delta=0.1).tau == 0.9
    old = load_calibration(_ltt_record(tmp_path, 0.138, population=False), 0.1, delta=0.1)
    assert math.isinf(old.tau) and "held-out half" in old.note and "বাকি অর্ধেকে" in old.note
    new = load_calibration(_ltt_record(tmp_path, 0.2, held_out=0.3), 0.1, delta=0.1)
    assert math.isinf(new.tau) and "on all labelled questions" in new.note


def test_the_held_out_half_flags_a_tau_whose_risk_is_below_alpha():
    """The complementary-halves bias, on the worked example of ``validate_selective``'s docstring: 44 questions
    release at τ = 0.9, 4 of them unsafe (9 % <= α), and 200 release nothing. Halves that happen to hold few of
    the 4 pass LTT at 0.9 and leave the rest to the held-out half, which then shows more than α; applied to all
    questions, the same τ is within α in every split."""
    from labourcrew.gate.validation import validate_selective

    qs = [[(0.95, i >= 4, True)] for i in range(44)] + [[(0.5, False, True)] for _ in range(200)]
    data = validate_selective(qs, ["c"] * len(qs), alpha=0.1, delta=0.1, splits=300, seed=1, bootstrap=60)
    ltt = data["methods"]["ltt"]
    # at the full size, resampled with replacement: the τ either fails closed or is within α on all questions
    assert ltt["bootstrap"]["resamples"] == 60 and ltt["bootstrap"]["share_population_risk_above_alpha"] == 0.0
    assert ltt["splits_releasing"] > 0
    assert ltt["share_splits_population_risk_above_alpha"] == 0.0  # 4/44 on all questions, whatever τ a half picks
    assert ltt["share_splits_selective_risk_above_alpha"] > 0.0
    assert ltt["mean_selective_risk"] > ltt["mean_population_selective_risk"]
