"""Conformal risk control for the Trust Gate: risk guarantee on synthetic data, fail-closed
behaviour, persistence."""

from __future__ import annotations

import json
import math
from itertools import pairwise

import numpy as np
import pytest

from labourcrew.errors import DataError, InputError
from labourcrew.gate.crc import (
    calibrate,
    calibration_sha256,
    load_calibration,
    question_losses,
    risk_curve,
)
from labourcrew.ledger.gate import CalibrationRecord

ALPHA = 0.10


def synthetic_questions(rng: np.random.Generator, n: int, p_faithful: float = 0.7) -> list[list[tuple[float, bool]]]:
    """Questions with 1-6 claims; trust scores correlated with faithfulness (Beta(5,2) vs Beta(2,3))."""
    out = []
    for _ in range(n):
        k = int(rng.integers(1, 7))
        faithful = rng.random(k) < p_faithful
        scores = np.where(faithful, rng.beta(5, 2, k), rng.beta(2, 3, k))
        out.append([(float(s), bool(f)) for s, f in zip(np.round(scores, 3), faithful, strict=True)])
    return out


def raw_risk(questions, tau: float) -> float:
    """Mean fraction of released claims that are unfaithful (independent of the module's code)."""
    losses = []
    for q in questions:
        released = [f for s, f in q if s >= tau]
        losses.append(sum(not f for f in released) / len(released) if released else 0.0)
    return float(np.mean(losses)) if losses else 0.0


def test_mean_test_risk_is_controlled_over_500_random_splits():
    rng = np.random.default_rng(20240607)
    pool = synthetic_questions(rng, 600)
    risks, released, taus = [], [], []
    for _ in range(500):
        order = rng.permutation(len(pool))
        cal = [pool[i] for i in order[:300]]
        test = [pool[i] for i in order[300:]]
        record = calibrate(cal, ALPHA)
        taus.append(record.tau)
        risks.append(raw_risk(test, record.tau))
        released.append(np.mean([s >= record.tau for q in test for s, _ in q]))
    mean_risk = float(np.mean(risks))
    print(f"CRC over 500 splits: mean test risk {mean_risk:.4f} (alpha {ALPHA}), "
          f"mean released {np.mean(released):.3f}, tau range [{min(taus):.3f}, {max(taus):.3f}]")
    assert mean_risk <= ALPHA
    # not vacuous: releasing everything would be far too risky, and the gate still releases a lot
    assert raw_risk(pool, -math.inf) > 2 * ALPHA
    assert np.mean(released) > 0.3
    assert all(math.isfinite(t) for t in taus)


def test_threshold_matches_a_brute_force_reading_of_the_definition():
    """tau = smallest grid score with n/(n+1)*mean(max_{t'>=t} L_i(t')) + 1/(n+1) <= alpha for all
    grid t >= tau, computed here with plain loops."""
    rng = np.random.default_rng(7)
    for trial in range(30):
        qs = synthetic_questions(rng, int(rng.integers(10, 60)), p_faithful=float(rng.uniform(0.5, 0.95)))
        alpha = float(rng.uniform(0.05, 0.3))
        n = len(qs)
        grid = sorted({s for q in qs for s, _ in q})

        def mono_loss(q, t):
            vals = [0.0]
            for t2 in sorted({s for s, _ in q if s >= t}):
                rel = [f for s, f in q if s >= t2]
                vals.append(sum(not f for f in rel) / len(rel))
            return max(vals)

        bound = {t: n / (n + 1) * np.mean([mono_loss(q, t) for q in qs]) + 1 / (n + 1) for t in grid}
        expected = math.inf
        for t in reversed(grid):
            if bound[t] <= alpha + 1e-12:
                expected = t
            else:
                break
        assert calibrate(qs, alpha).tau == expected, trial


def test_fails_closed_when_everything_is_unfaithful():
    qs = [[(0.9, False), (0.5, False), (0.2, False)] for _ in range(200)]
    record = calibrate(qs, ALPHA)
    assert record.tau == math.inf and record.fail_closed
    assert not record.releases(1.0)
    assert record.note and "no threshold" in record.note


def test_fails_closed_with_too_few_questions():
    qs = [[(0.9, True), (0.8, True)] for _ in range(5)]  # 1/(n+1) = 1/6 > alpha
    record = calibrate(qs, ALPHA)
    assert record.fail_closed and "too few" in record.note
    assert calibrate([], ALPHA).fail_closed


def test_clean_data_releases_everything_given_enough_questions():
    qs = [[(0.9, True), (0.3, True)] for _ in range(30)]
    record = calibrate(qs, ALPHA)
    assert record.tau == 0.3 and record.empirical_risk == 0.0
    assert record.bound == pytest.approx(1 / 31)


def test_fraction_loss_is_not_monotone_but_the_monotonised_one_is():
    q = [(0.9, False), (0.6, True), (0.3, True)]
    taus = [0.0, 0.5, 0.8, 1.0]
    raw = question_losses(q, taus)
    mono = question_losses(q, taus, monotone=True)
    assert list(raw) == pytest.approx([1 / 3, 1 / 2, 1.0, 0.0])  # rises as tau grows
    assert list(mono) == pytest.approx([1.0, 1.0, 1.0, 0.0])
    assert all(a >= b for a, b in pairwise(mono))
    assert all(m >= r for m, r in zip(mono, raw, strict=True))


def test_risk_curve_is_monotone_and_consistent_with_the_record():
    rng = np.random.default_rng(3)
    qs = synthetic_questions(rng, 150)
    curve = risk_curve(qs)
    n = len(qs)
    assert [t for t, _, _ in curve] == sorted({s for q in qs for s, _ in q})
    assert all(r1 >= r2 - 1e-12 for (_, r1, _), (_, r2, _) in pairwise(curve))
    for _, r, b in curve:
        assert b == pytest.approx(n / (n + 1) * r + 1 / (n + 1))
    record = calibrate(qs, ALPHA)
    at_tau = next(row for row in curve if row[0] == record.tau)
    assert at_tau[1] == pytest.approx(record.empirical_risk) and at_tau[2] == pytest.approx(record.bound)
    raw = risk_curve(qs, [0.2, 0.5], monotone=False)
    assert raw[0][1] == pytest.approx(raw_risk(qs, 0.2)) and raw[1][1] == pytest.approx(raw_risk(qs, 0.5))


def test_record_round_trips_including_infinity(tmp_path):
    rng = np.random.default_rng(1)
    finite = calibrate(synthetic_questions(rng, 100), ALPHA, labels_sha256="abc")
    closed = calibrate([[(0.5, False)]] * 50, ALPHA)
    for record in (finite, closed):
        path = record.save(tmp_path / "cal" / "trust_gate.json")
        assert CalibrationRecord.load(path) == record
        assert load_calibration(path) == record
    stored = json.loads((tmp_path / "cal" / "trust_gate.json").read_text())
    assert stored["tau"] == "inf"
    assert not list((tmp_path / "cal").glob("*.tmp"))  # atomic write leaves no temp file
    stored["tau"] = None
    (tmp_path / "null.json").write_text(json.dumps(stored))
    assert CalibrationRecord.load(tmp_path / "null.json").tau == math.inf


def test_missing_or_broken_record_fails_closed(tmp_path):
    record = load_calibration(tmp_path / "absent.json")
    assert record.tau == math.inf and record.n == 0 and record.note == "no calibration record"
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert load_calibration(broken).fail_closed
    with pytest.raises(DataError):
        load_calibration(broken, strict=True)
    with pytest.raises(DataError):
        CalibrationRecord.load(tmp_path / "absent.json")


def test_labels_hash_defaults_to_the_calibration_data():
    a = [[(0.5, True), (0.2, False)]] * 20
    b = [[(0.5, True), (0.2, True)]] * 20
    assert calibrate(a).labels_sha256 == calibration_sha256(a) != calibration_sha256(b)


@pytest.mark.parametrize(
    ("questions", "alpha"),
    [
        ([[(0.5, True)]], 0.0),
        ([[(0.5, True)]], 1.0),
        ([[(float("nan"), True)]], 0.1),
        ([[(0.5, "yes")]], 0.1),
        ([[(0.5,)]], 0.1),
        ("not questions", 0.1),
    ],
)
def test_bad_input_is_an_input_error(questions, alpha):
    with pytest.raises(InputError):
        calibrate(questions, alpha)
