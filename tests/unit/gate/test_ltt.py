"""Learn-then-Test selective risk control (issue 11): against MAPIE, fail closed, an easy case."""

from __future__ import annotations

import math

import numpy as np
import pytest

from labourcrew.errors import InputError
from labourcrew.gate.ltt import (
    calibrate_ltt,
    calibrate_method,
    default_grid,
    evidence_need_text,
    evidence_needed,
    hb_p_value,
    min_release,
    selective_counts,
)


def _synthetic(n: int, seed: int, *, good: float = 0.95, separate: bool = True) -> list[list[tuple[float, bool]]]:
    """Questions whose top claim is faithful with probability ``good``; scores separate unless told not to."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        top = bool(rng.random() < good)
        score = float(rng.uniform(0.8, 1.0) if top else rng.uniform(0.5, 0.85)) if separate else float(rng.random())
        out.append([(score, top),
                    (float(rng.uniform(0.0, 0.6)), False)])
    return out


def test_p_values_and_fixed_sequence_match_mapie_on_synthetic_scores():
    mapie_methods = pytest.importorskip("mapie.risk_control.methods")
    from mapie.risk_control.fwer_control import control_fwer

    qs = _synthetic(300, seed=1, good=0.9)
    grid = default_grid(0.01)
    n_rel, n_bad = selective_counts(qs, grid)
    r_hat = np.where(n_rel > 0, n_bad / np.maximum(n_rel, 1), 0.0)
    # MAPIE takes ceil(n * r_hat) in floating point, which overshoots k when n * (k / n) = k + 1e-15;
    # giving it k - 1e-9 errors makes its ceil exact (we count k as an integer).
    r_ref = np.where(n_rel > 0, np.maximum(n_bad - 1e-9, 0) / np.maximum(n_rel, 1), 0.0)
    ref = mapie_methods.compute_hoeffding_bentkus_p_value(r_ref, n_rel.astype(float), 0.1, binary=True)[:, 0]
    ours = np.array([hb_p_value(r, int(n), 0.1) for r, n in zip(r_hat, n_rel, strict=True)])
    assert np.allclose(ours, np.minimum(ref, 1.0), atol=1e-6)
    # Fixed-sequence testing from the first τ where a rejection is possible, strict to loose.
    start = int(np.argmax(n_rel >= min_release(0.1, 0.1)))
    rejected = control_fwer(ref[start:], 0.1, fwer_method="fixed_sequence")
    rec = calibrate_ltt(qs, 0.1, 0.1, grid=grid)
    assert rejected.size and rec.tau == pytest.approx(grid[start + int(rejected.max())])
    assert rec.p_value == pytest.approx(ref[start + int(rejected.max())])


def test_easy_case_releases_with_selective_risk_below_alpha():
    qs = _synthetic(200, seed=2, good=0.99)
    rec = calibrate_ltt(qs, 0.10, 0.10)
    assert math.isfinite(rec.tau) and rec.method == "ltt" and rec.delta == 0.10
    assert rec.selective_risk is not None and rec.selective_risk <= 0.10 and rec.p_value <= 0.10
    assert rec.n == 200 and rec.n_releasing == round(rec.release_rate * 200) and rec.release_rate > 0.5
    # on fresh questions of the same kind the selective risk stays below α
    test = _synthetic(4000, seed=3, good=0.99)
    rel = [[s >= rec.tau for s, _ in q] for q in test]
    released = [(q, r) for q, r in zip(test, rel, strict=True) if any(r)]
    wrong = sum(any(x and not y for (_, y), x in zip(q, r, strict=True)) for q, r in released)
    assert wrong / len(released) <= 0.10


def test_no_good_threshold_fails_closed_with_the_reason():
    bad = _synthetic(100, seed=4, good=0.6, separate=False)  # 40 % of top claims unfaithful at every τ
    rec = calibrate_ltt(bad, 0.10, 0.10)
    assert math.isinf(rec.tau) and rec.fail_closed and "no threshold passes" in rec.note
    assert rec.n_releasing == 0 and rec.release_rate == 0.0 and rec.selective_risk is None and rec.p_value > 0.10
    few = calibrate_ltt(_synthetic(15, seed=5, good=1.0), 0.10, 0.10)  # < n_min = 22 questions
    assert math.isinf(few.tau) and "fewer than the 22" in few.note
    # an abstention is not a safe answer: CRC meets α on the same data by abstaining, LTT does not
    crc = calibrate_method("crc", bad, 0.10)
    assert math.isfinite(crc.tau) and crc.selective_risk is not None and crc.selective_risk > 0.10


def test_bad_levels_are_input_errors():
    with pytest.raises(InputError):
        calibrate_ltt([], 0.0, 0.1)
    with pytest.raises(InputError):
        calibrate_ltt([], 0.1, 1.0)
    with pytest.raises(InputError):
        calibrate_method("nope", [], 0.1)
    assert min_release(0.1, 0.1) == 22


def test_selective_curve_is_what_the_record_reports():
    """The Calibration page's LTT curve: at the record's τ̂ it shows the record's selective risk, and
    its bound sits above the empirical rate wherever something releases."""
    from labourcrew.gate.ltt import selective_curve, upper_bound

    qs = _synthetic(200, seed=2, good=0.99)
    rec = calibrate_ltt(qs, 0.10, 0.10)
    curve = selective_curve(qs, 0.10, taus=[rec.tau, 0.5, 0.0])
    assert [t for t, _, _ in curve] == [rec.tau, 0.5, 0.0]
    assert math.isclose(curve[0][1], rec.selective_risk, abs_tol=1e-9)
    assert all(0.0 <= r <= b <= 1.0 for _, r, b in curve)
    n_rel, n_bad = selective_counts(qs, [0.0])
    assert curve[-1][1] == n_bad[0] / n_rel[0] and curve[-1][2] == upper_bound(int(n_bad[0]), int(n_rel[0]), 0.10)
    assert selective_curve(qs, 0.10, taus=[1.01]) == []  # nothing releases: no point


def test_evidence_needed_agrees_with_the_test_it_extrapolates():
    # Passing already: factor 1 and the very τ̂ the test chose (one fixed-sequence walk for both).
    easy = _synthetic(200, seed=2, good=0.99)
    need = evidence_needed(easy, 0.10, 0.10, taus=default_grid())
    assert need is not None and need.factor == 1.0 and need.tau == calibrate_ltt(easy, 0.10, 0.10).tau
    # Too few questions for a risk below α: fails closed today; with the questions the estimate asks for
    # (here: each question repeated, so the curve is kept exactly) the test passes.
    few = [[(1.0 - i / 100, i != 2)] for i in range(30)]  # one wrong answer, near the top: risk 1 in 30
    assert math.isinf(calibrate_ltt(few, 0.10, 0.10).tau)
    need = evidence_needed(few, 0.10, 0.10, taus=default_grid())
    assert need is not None and need.factor > 1.0 and need.n_questions == 30
    assert need.n_questions_needed == math.ceil(need.factor * 30)
    reps = math.ceil(need.factor)
    assert math.isfinite(calibrate_ltt(few * reps, 0.10, 0.10).tau)
    assert math.isinf(calibrate_ltt(few * max(1, math.floor(need.factor - 0.5)), 0.10, 0.10).tau)
    # Its words name the basis: today's releasing and wrong counts at that τ, and the scale factor.
    bn, en = evidence_need_text(need, 0.10)
    assert f"today {need.n_release} of the 30 release there, {need.n_wrong} wrongly" in en
    assert f"{need.factor:g}-fold" in en and f"about {need.n_questions_needed} labelled" in en
    assert "অনুমান, নিশ্চয়তা নয়" in bn and "গুণ" in bn


def test_evidence_needed_is_none_when_the_risk_is_above_alpha_everywhere():
    bad = _synthetic(100, seed=4, good=0.6, separate=False)
    assert evidence_needed(bad, 0.10, 0.10) is None
    assert "the score must improve" in evidence_need_text(None, 0.10)[1]
    with pytest.raises(InputError):
        evidence_needed(bad, 1.5, 0.10)
