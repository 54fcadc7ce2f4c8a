r"""Empirical check of the Trust Gate guarantee over random calibration/test splits (paper B.5).

For each of ``splits`` seeded random partitions of the labelled *questions* (CRC's unit) into a
calibration part (``calibration_fraction``) and a test part:

* the **calibrated gate** gets ``τ̂`` from :func:`labourcrew.gate.crc.calibrate` at ``α`` on the
  calibration part and releases the test claims with ``trust_score >= τ̂`` (nothing when ``τ̂ = ∞``);
* the **categorical gate** releases the test claims whose Trust Auditor verdict is SUPPORT and whose
  citations all verified (no threshold, nothing to calibrate).

Per split and gate, on the test part:

* ``far`` -- the CRC risk: the mean over test questions of the fraction of released claims that are
  unfaithful, counting a question that releases nothing as 0 (this is what CRC bounds by ``α``);
* ``far_decisive`` -- the same mean over the test questions that released at least one claim only
  (NaN when none did);
* ``far_overall`` -- pooled: unfaithful released claims / released claims (NaN when none released);
* ``decisive`` -- the share of test questions with at least one released claim.

The report gives mean and standard deviation over splits (NaN-valued splits are skipped for the
means of ``far_decisive`` / ``far_overall``; a mean over no values is NaN, written as JSON null).
Everything is a pure function of the data and the seed.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import InputError
from labourcrew.gate.crc import HELD_OUT_SHARE, POPULATION_SHARE, calibrate
from labourcrew.settings import REPO_ROOT

__all__ = ["GateClaim", "SplitResult", "ValidationReport", "validate", "questions_from_set", "write_validation",
           "validate_selective", "categories_from_set", "MONDRIAN_MIN_FACTOR"]

MONDRIAN_MIN_FACTOR = 2
"""A category gets its own (Mondrian) τ only with >= this many times LTT's n_min questions."""

logger = logging.getLogger(__name__)

GateClaim = tuple[float, bool, bool]
"""One labelled claim: (trust_score, faithful, released_by_categorical_gate)."""


class SplitResult(BaseModel):
    """Test-part numbers of one random split."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tau: float = Field(description="τ̂ calibrated on this split's calibration part (inf: fail closed).")
    far_calibrated: float = Field(description="CRC risk of the calibrated gate on the test part.")
    far_categorical: float = Field(description="CRC risk of the categorical gate on the test part.")
    far_decisive_calibrated: float = Field(description="Mean loss over decisive test questions (NaN if none).")
    far_decisive_categorical: float = Field(description="Mean loss over decisive test questions (NaN if none).")
    far_overall_calibrated: float = Field(description="Pooled unfaithful/released on the test part (NaN if none).")
    far_overall_categorical: float = Field(description="Pooled unfaithful/released on the test part (NaN if none).")
    decisive_calibrated: float = Field(ge=0.0, le=1.0, description="Share of test questions with a release.")
    decisive_categorical: float = Field(ge=0.0, le=1.0, description="Share of test questions with a release.")


class ValidationReport(BaseModel):
    """Summary over splits (what ``validation.json`` holds, plus the per-split rows in memory)."""

    model_config = ConfigDict(extra="forbid")

    splits: int = Field(ge=1, description="Number of random calibration/test splits.")
    seed: int = Field(description="Seed of the split generator.")
    alpha: float = Field(description="Target risk α.")
    calibration_fraction: float = Field(description="Share of questions in each calibration part.")
    n_questions: int = Field(ge=0, description="Labelled questions (runs).")
    n_claims: int = Field(ge=0, description="Labelled claims (faithful/unfaithful).")
    n_unfaithful: int = Field(ge=0, description="Claims labelled unfaithful.")
    mean_far_calibrated: float = Field(description="Mean over splits of the calibrated gate's test CRC risk.")
    sd_far_calibrated: float = Field(description="Standard deviation of the same.")
    mean_far_categorical: float = Field(description="Mean over splits of the categorical gate's test CRC risk.")
    sd_far_categorical: float = Field(description="Standard deviation of the same.")
    decisive_rate_calibrated: float = Field(description="Mean share of test questions the calibrated gate answers.")
    decisive_rate_categorical: float = Field(description="Mean share of test questions the categorical gate answers.")
    mean_far_decisive_calibrated: float = Field(description="Mean (over splits) loss over decisive questions only.")
    mean_far_decisive_categorical: float = Field(description="Mean (over splits) loss over decisive questions only.")
    mean_far_overall_calibrated: float = Field(description="Mean (over splits) pooled unfaithful/released.")
    mean_far_overall_categorical: float = Field(description="Mean (over splits) pooled unfaithful/released.")
    share_splits_far_above_alpha_calibrated: float = Field(description="Share of splits whose test risk > α.")
    share_splits_far_above_alpha_categorical: float = Field(description="Share of splits whose test risk > α.")
    fail_closed_splits: int = Field(ge=0, description="Splits where calibration gave τ̂ = ∞.")
    tau_median: float = Field(description="Median τ̂ over splits (inf when most fail closed).")
    tau_p05: float = Field(description="5th percentile of τ̂ over splits.")
    tau_p95: float = Field(description="95th percentile of τ̂ over splits.")
    per_split: list[SplitResult] = Field(default_factory=list, exclude=True,
                                         description="Per-split rows (not written to JSON).")


def _nanmean(values: Sequence[float]) -> float:
    finite = [v for v in values if not math.isnan(v)]
    return float(np.mean(finite)) if finite else math.nan


def _gate_numbers(questions: Sequence[Sequence[GateClaim]], released: Sequence[Sequence[bool]]
                  ) -> tuple[float, float, float, float]:
    """(CRC risk, mean loss over decisive questions, pooled FAR, decisive share) on a test part."""
    losses, decisive_losses = [], []
    n_rel = n_bad = 0
    for q, rel in zip(questions, released, strict=True):
        bad = sum(1 for (_, faithful, _), r in zip(q, rel, strict=True) if r and not faithful)
        k = sum(rel)
        loss = bad / k if k else 0.0
        losses.append(loss)
        if k:
            decisive_losses.append(loss)
        n_rel += k
        n_bad += bad
    n = len(questions)
    return (
        float(np.mean(losses)) if n else math.nan,
        float(np.mean(decisive_losses)) if decisive_losses else math.nan,
        n_bad / n_rel if n_rel else math.nan,
        len(decisive_losses) / n if n else math.nan,
    )


def _check(questions: Sequence[Sequence[GateClaim]]) -> None:
    if isinstance(questions, (str, bytes)) or not isinstance(questions, Sequence):
        raise InputError("questions must be a list of questions, each a list of (score, faithful, categorical)")
    for qi, q in enumerate(questions):
        for c in q:
            if not (isinstance(c, (tuple, list)) and len(c) == 3):
                raise InputError(f"question {qi}: expected (score, faithful, categorical) triples, got {c!r}")
            s, y, cat = c
            if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s):
                raise InputError(f"question {qi}: score must be a finite number, got {s!r}")
            if not isinstance(y, bool) or not isinstance(cat, bool):
                raise InputError(f"question {qi}: faithful and categorical must be bools, got {y!r}, {cat!r}")


def validate(
    questions: Sequence[Sequence[GateClaim]],
    *,
    alpha: float = 0.10,
    splits: int = 1000,
    calibration_fraction: float = 0.5,
    seed: int = 0,
) -> ValidationReport:
    """Calibrated vs categorical gate over random calibration/test splits of the questions (module docstring).

    Args:
        questions: one list per labelled question of (trust_score, faithful, categorical_release).
        alpha: target risk for :func:`~labourcrew.gate.crc.calibrate`.
        splits: number of random splits (>= 1).
        calibration_fraction: share of questions calibrated on, in (0, 1); both parts keep >= 1 question.
        seed: seed of :class:`numpy.random.Generator` (same seed, same report).

    Returns:
        The :class:`ValidationReport` (``per_split`` holds every split's numbers).

    Raises:
        InputError: malformed questions, fewer than 2 questions, or bad splits/fraction/alpha.
    """
    _check(questions)
    n = len(questions)
    if n < 2:
        raise InputError(f"need at least 2 labelled questions to split, got {n}")
    if isinstance(splits, bool) or not isinstance(splits, int) or splits < 1:
        raise InputError(f"splits must be a positive integer, got {splits!r}")
    if not 0.0 < calibration_fraction < 1.0:
        raise InputError(f"calibration_fraction must be in (0, 1), got {calibration_fraction!r}")
    n_cal = min(n - 1, max(1, round(calibration_fraction * n)))
    rng = np.random.default_rng(seed)
    rows: list[SplitResult] = []
    for _ in range(splits):
        perm = rng.permutation(n)
        cal = [questions[i] for i in perm[:n_cal]]
        test = [questions[i] for i in perm[n_cal:]]
        rec = calibrate([[(s, y) for s, y, _ in q] for q in cal], alpha, labels_sha256="validation")
        cal_rel = [[rec.releases(s) for s, _, _ in q] for q in test]
        cat_rel = [[cat for _, _, cat in q] for q in test]
        a = _gate_numbers(test, cal_rel)
        b = _gate_numbers(test, cat_rel)
        rows.append(SplitResult(tau=rec.tau, far_calibrated=a[0], far_decisive_calibrated=a[1],
                                far_overall_calibrated=a[2], decisive_calibrated=a[3], far_categorical=b[0],
                                far_decisive_categorical=b[1], far_overall_categorical=b[2],
                                decisive_categorical=b[3]))
    fc = np.array([r.far_calibrated for r in rows])
    fk = np.array([r.far_categorical for r in rows])
    taus = np.array([r.tau for r in rows])
    claims = [c for q in questions for c in q]
    return ValidationReport(
        splits=splits, seed=seed, alpha=alpha, calibration_fraction=calibration_fraction, n_questions=n,
        n_claims=len(claims), n_unfaithful=sum(1 for _, y, _ in claims if not y),
        mean_far_calibrated=float(fc.mean()), sd_far_calibrated=float(fc.std(ddof=1)) if splits > 1 else 0.0,
        mean_far_categorical=float(fk.mean()), sd_far_categorical=float(fk.std(ddof=1)) if splits > 1 else 0.0,
        decisive_rate_calibrated=float(np.mean([r.decisive_calibrated for r in rows])),
        decisive_rate_categorical=float(np.mean([r.decisive_categorical for r in rows])),
        mean_far_decisive_calibrated=_nanmean([r.far_decisive_calibrated for r in rows]),
        mean_far_decisive_categorical=_nanmean([r.far_decisive_categorical for r in rows]),
        mean_far_overall_calibrated=_nanmean([r.far_overall_calibrated for r in rows]),
        mean_far_overall_categorical=_nanmean([r.far_overall_categorical for r in rows]),
        share_splits_far_above_alpha_calibrated=float(np.mean(fc > alpha)),
        share_splits_far_above_alpha_categorical=float(np.mean(fk > alpha)),
        fail_closed_splits=int(np.isinf(taus).sum()),
        tau_median=float(np.quantile(taus, 0.5, method="lower")),
        tau_p05=float(np.quantile(taus, 0.05, method="lower")),
        tau_p95=float(np.quantile(taus, 0.95, method="higher")),
        per_split=rows,
    )


def questions_from_set(rows: Sequence[Any], labels: Sequence[Any] | None = None) -> list[list[GateClaim]]:
    """Group calibration-set rows (:class:`~labourcrew.gate.recalibration.CalibrationSetRow`) by run.

    Labels come from ``labels`` (label-store :class:`~labourcrew.gate.labels.Label` objects) by
    content key under :func:`~labourcrew.gate.labels.resolve_labels`; without ``labels``, from each
    row's own label and annotator through the same policy. Unlabelled and 'unsure' claims are left
    out; question order is the first appearance of each run.
    """
    return [q for q, _ in _grouped(rows, labels)]


def _grouped(rows: Sequence[Any], labels: Sequence[Any] | None) -> list[tuple[list[GateClaim], str]]:
    from labourcrew.gate.labels import Label, resolve_labels

    if labels is None:
        labels = [Label(claim_id=r.content_key, annotator=r.annotator or "set", label=r.label, created="")
                  for r in rows if r.label]
    decided = resolve_labels(labels)
    by_run: dict[str, tuple[list[GateClaim], str]] = {}
    for r in rows:
        res = decided.get(r.content_key)
        if res is None or res.faithful is None:
            continue
        by_run.setdefault(r.run_id, ([], r.category or "uncategorised"))[0].append(
            (float(r.trust_score), res.faithful, r.categorical_release))
    return [v for v in by_run.values() if v[0]]


def _selective(test: Sequence[Sequence[GateClaim]], released: Sequence[Sequence[bool]]) -> tuple[int, int, float]:
    """(releasing questions, of them wrong ones, CRC mean loss) on a test part."""
    n_rel = n_bad = 0
    losses = []
    for q, rel in zip(test, released, strict=True):
        k = sum(rel)
        bad = sum(1 for (_, y, _), r in zip(q, rel, strict=True) if r and not y)
        losses.append(bad / k if k else 0.0)
        n_rel += k > 0
        n_bad += bad > 0
    return n_rel, n_bad, float(np.mean(losses)) if losses else math.nan


def _released_and_unsafe(questions: Sequence[Sequence[GateClaim]], release) -> tuple[np.ndarray, np.ndarray]:
    """Per question (boolean arrays of length ``len(questions)``): does it release a claim under ``release(score,
    categorical)``, and does a released claim of it lack a faithful label (an unsafe answer).
    """
    rel = np.zeros(len(questions), dtype=bool)
    bad = np.zeros(len(questions), dtype=bool)
    for i, q in enumerate(questions):
        for s, y, c in q:
            if release(s, c):
                rel[i] = True
                bad[i] |= not y
    return rel, bad


def _summary(rows: list[tuple[float, int, int, int, float, int, int]], alpha: float) -> dict[str, Any]:
    """Over splits of (τ, n_test, n_rel, n_bad, crc_loss, pop_rel, pop_bad): the selective-risk summary of one gate.

    ``pop_rel`` / ``pop_bad`` are the split's τ applied to *every* labelled question (the plug-in population,
    :func:`validate_selective`); their share above α is what LTT's promise is checked against.
    """
    sel = [b / r for _, _, r, b, *_ in rows if r]
    exceed = [(b / r) > alpha if r else False for _, _, r, b, *_ in rows]
    pop = [(pb / pr) > alpha if pr else False for *_, pr, pb in rows]
    pop_sel = [pb / pr for *_, pr, pb in rows if pr]
    taus = np.array([t for t, *_ in rows])
    return {
        "mean_selective_risk": float(np.mean(sel)) if sel else math.nan,
        "sd_selective_risk": float(np.std(sel, ddof=1)) if len(sel) > 1 else math.nan,
        HELD_OUT_SHARE: float(np.mean(exceed)) if exceed else math.nan,
        POPULATION_SHARE: float(np.mean(pop)) if pop else math.nan,
        "mean_population_selective_risk": float(np.mean(pop_sel)) if pop_sel else math.nan,
        "splits_releasing": len(sel),
        "mean_release_rate": float(np.mean([r / n for _, n, r, *_ in rows if n])) if rows else math.nan,
        "mean_crc_loss": float(np.mean([c for *_, c, _, _ in rows])) if rows else math.nan,
        "fail_closed_splits": int(np.isinf(taus).sum()),
        "tau_median": float(np.quantile(taus, 0.5, method="lower")) if taus.size else math.nan,
    }


def _bootstrap_ltt(questions: Sequence[Sequence[GateClaim]], alpha: float, delta: float, resamples: int,
                   seed: int) -> dict[str, Any]:
    """LTT at the full size on resamples with replacement, judged on all questions (:func:`validate_selective`)."""
    from labourcrew.gate.ltt import calibrate_ltt

    if resamples <= 0:
        return {"resamples": 0}
    rng = np.random.default_rng([seed, 1])
    n = len(questions)
    above, taus = 0, []
    for _ in range(resamples):
        draw = rng.integers(0, n, n)
        tau = calibrate_ltt([[(s, y) for s, y, _ in questions[i]] for i in draw], alpha, delta,
                            labels_sha256="bootstrap").tau
        taus.append(tau)
        if not math.isinf(tau):
            rel, bad = _released_and_unsafe(questions, lambda s, c, t=tau: s >= t)
            above += int(rel.sum() > 0 and bad.sum() / rel.sum() > alpha)
    finite = [t for t in taus if not math.isinf(t)]
    return {"resamples": resamples, "share_population_risk_above_alpha": above / resamples,
            "fail_closed": resamples - len(finite),
            "tau_median_when_finite": float(np.median(finite)) if finite else math.nan}


def validate_selective(
    questions: Sequence[Sequence[GateClaim]],
    categories: Sequence[str],
    *,
    alpha: float = 0.10,
    delta: float = 0.10,
    splits: int = 1000,
    calibration_fraction: float = 0.5,
    seed: int = 0,
    bootstrap: int = 400,
) -> dict[str, Any]:
    """LTT vs CRC vs the categorical gate over seeded random splits, overall and per category (issue 11).

    Per split: τ from :func:`~labourcrew.gate.ltt.calibrate_ltt` (at α, δ) and from
    :func:`~labourcrew.gate.crc.calibrate` (at α) on the calibration part; on the test part, the
    **selective risk** (releasing questions whose released claims include an unfaithful one /
    releasing questions; undefined when none releases), the release rate and the CRC mean loss.
    ``share_splits_selective_risk_above_alpha`` counts a split that releases nothing as *not*
    exceeding α (it released no wrong answer).

    **Which share checks LTT's promise.** LTT bounds the selective risk of ``τ̂`` on the *population* the
    calibration questions were drawn from. Treating the labelled questions as that population (the plug-in
    distribution), each split's calibration part is a sample of it and the truth for its ``τ̂`` is the
    selective risk on *all* labelled questions: ``share_splits_population_risk_above_alpha`` is the share of
    splits where that exceeds α, which LTT promises to keep <= δ (up to sampling error) and which
    :func:`labourcrew.gate.crc.validation_failure` reads. The held-out share is *not* an estimate of it: the
    two parts are complementary, so a calibration half lucky enough to pass leaves the pool's errors to its
    test half. Example: at some τ, 44 questions release and 4 are unsafe (9 % <= α); a half holding 22 of them
    with none unsafe passes (p = 0.9^22 = 0.098 <= δ), and its test half then shows 4 of 22 (18 % > α) --
    "above α" for a τ whose risk is below α. On the shipped labels (2026-12-07, 463 questions) the held-out
    share was 0.138 while the population share was 0.004.

    ``bootstrap`` resamples (seeded): LTT refitted on ``n`` questions drawn *with replacement* from the ``n``
    labelled ones -- the procedure at the size actually used, no halving -- and its τ's selective risk on all of
    them; ``methods.ltt.bootstrap`` gives the share above α (0 resamples: not run).
    Per category the same numbers on that category's test questions with the pooled τ; a
    **Mondrian** (per-category) LTT τ is fitted only for categories with at least
    ``MONDRIAN_MIN_FACTOR * n_min`` questions, otherwise the report says there are too few.

    Raises:
        InputError: as :func:`validate`, or categories of the wrong length.
    """
    from labourcrew.gate.ltt import calibrate_ltt, min_release

    _check(questions)
    n = len(questions)
    if len(categories) != n:
        raise InputError("categories must give one category per question")
    if n < 2:
        raise InputError(f"need at least 2 labelled questions to split, got {n}")
    if isinstance(splits, bool) or not isinstance(splits, int) or splits < 1:
        raise InputError(f"splits must be a positive integer, got {splits!r}")
    n_cal = min(n - 1, max(1, round(calibration_fraction * n)))
    rng = np.random.default_rng(seed)
    cats = sorted(set(categories))
    gates = ("ltt", "crc", "categorical")
    rows: dict[str, list] = {g: [] for g in gates}
    cat_mask = {c: np.array([x == c for x in categories]) for c in cats}
    population: dict[float | str, tuple[np.ndarray, np.ndarray]] = {}
    per_cat: dict[str, dict[str, list]] = {c: {g: [] for g in gates} for c in cats}
    for _ in range(splits):
        perm = rng.permutation(n)
        cal_idx, test_idx = perm[:n_cal], perm[n_cal:]
        cal = [[(s, y) for s, y, _ in questions[i]] for i in cal_idx]
        taus = {"ltt": calibrate_ltt(cal, alpha, delta, labels_sha256="validation").tau,
                "crc": calibrate(cal, alpha, labels_sha256="validation").tau}
        for g in gates:
            rel_all = [[(c if g == "categorical" else s >= taus[g]) for s, _, c in questions[i]] for i in test_idx]
            test = [questions[i] for i in test_idx]
            # on all questions the result depends on the τ only (most splits share one): computed once per τ
            key: float | str = "categorical" if g == "categorical" else taus[g]
            if key not in population:
                population[key] = _released_and_unsafe(questions, lambda s, c, g=g: c if g == "categorical" else s >= taus[g])
            pop_rel, pop_bad = population[key]
            r, b, loss = _selective(test, rel_all)
            rows[g].append((taus.get(g, math.nan), len(test), r, b, loss, int(pop_rel.sum()), int(pop_bad.sum())))
            for c in cats:
                sel = [j for j, i in enumerate(test_idx) if categories[i] == c]
                if sel:
                    r, b, loss = _selective([test[j] for j in sel], [rel_all[j] for j in sel])
                    mask = cat_mask[c]
                    per_cat[c][g].append((taus.get(g, math.nan), len(sel), r, b, loss,
                                          int(pop_rel[mask].sum()), int(pop_bad[mask].sum())))
    boot = _bootstrap_ltt(questions, alpha, delta, bootstrap, seed)
    need = min_release(alpha, delta)
    mondrian: dict[str, Any] = {}
    for c in cats:
        idx = [i for i in range(n) if categories[i] == c]
        if len(idx) < MONDRIAN_MIN_FACTOR * need:
            mondrian[c] = {"n_questions": len(idx), "fitted": False,
                           "reason": f"too few labelled questions ({len(idx)} < {MONDRIAN_MIN_FACTOR} x n_min = "
                                     f"{MONDRIAN_MIN_FACTOR * need}) for a per-category LTT τ"}
            continue
        rec = calibrate_ltt([[(s, y) for s, y, _ in questions[i]] for i in idx], alpha, delta,
                            labels_sha256="mondrian")
        mondrian[c] = {"n_questions": len(idx), "fitted": True, "tau": rec.tau, "note": rec.note,
                       "release_rate": rec.release_rate, "selective_risk": rec.selective_risk}
    claims = [c for q in questions for c in q]
    return {
        "splits": splits, "seed": seed, "alpha": alpha, "delta": delta, "calibration_fraction": calibration_fraction,
        "risk": "selective: share of releasing questions whose released claims include >= 1 unfaithful claim",
        "n_questions": n, "n_claims": len(claims), "n_unfaithful": sum(1 for _, y, _ in claims if not y),
        "ltt_n_min": need,
        "methods": {g: {**_summary(rows[g], alpha), **({"bootstrap": boot} if g == "ltt" else {})} for g in gates},
        "by_category": {c: {"n_questions": sum(1 for x in categories if x == c),
                            **{g: _summary(per_cat[c][g], alpha) for g in gates}} for c in cats},
        "mondrian": mondrian,
    }


def categories_from_set(rows: Sequence[Any], labels: Sequence[Any] | None = None) -> list[str]:
    """The category of each question of :func:`questions_from_set` (same order)."""
    return [c for _, c in _grouped(rows, labels)]


def _json_value(v: Any) -> Any:
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if math.isinf(v):
            return "inf"
    return v


def write_validation(report: ValidationReport, path: Path, **extra: Any) -> Path:
    """Write ``report`` (without per-split rows) plus ``extra`` keys and ``created`` to ``path`` as JSON.

    NaN is written as null and ∞ as ``"inf"``.
    """
    data = {k: _json_value(v) for k, v in report.model_dump().items()}
    data.update({k: _json_value(v) for k, v in extra.items()})
    data["created"] = datetime.now(UTC).isoformat(timespec="seconds")
    from labourcrew.fileio import write_json_atomic

    return write_json_atomic(path, data)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m labourcrew.gate.validation [--set FILE] [--labels FILE] [--out FILE] [--splits N] [--seed S]``."""
    p = argparse.ArgumentParser(prog="python -m labourcrew.gate.validation", description=__doc__.splitlines()[0])
    p.add_argument("--set", default="data/calibration/calibration_set.jsonl", help="calibration_set.jsonl")
    p.add_argument("--labels", default="data/calibration/labels.jsonl", help="label store export (or .sqlite)")
    p.add_argument("--out", default="data/calibration/validation.json", help="where to write validation.json")
    p.add_argument("--splits", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--alpha", type=float, default=0.10)
    p.add_argument("--delta", type=float, default=0.10)
    p.add_argument("--calibration-fraction", type=float, default=0.5)
    a = p.parse_args(argv)
    print(json.dumps(run_validation(Path(a.set), Path(a.labels), Path(a.out), splits=a.splits, seed=a.seed,
                                    alpha=a.alpha, delta=a.delta, calibration_fraction=a.calibration_fraction),
                     ensure_ascii=False, indent=2))
    return 0


def run_validation(set_path: Path, labels_path: Path, out: Path, *, splits: int = 1000, seed: int = 0,
                   alpha: float = 0.10, delta: float = 0.10, calibration_fraction: float = 0.5) -> dict[str, Any]:
    """Validate on a claims file + label file and write ``out`` (``validation.json``); returns what was written.

    Raises:
        InputError: no claims at ``set_path``.
    """
    import hashlib

    from labourcrew.fileio import write_json_atomic
    from labourcrew.gate.recalibration import load_calibration_set, load_label_file

    rows = load_calibration_set(set_path)
    if not rows:
        raise InputError(f"no calibration claims at {set_path}")
    labels, labels_sha = load_label_file(labels_path)
    grouped = _grouped(rows, labels)
    qs = [q for q, _ in grouped]
    data = validate_selective(qs, [c for _, c in grouped], alpha=alpha, delta=delta, splits=splits,
                              calibration_fraction=calibration_fraction, seed=seed)
    shown = Path(set_path).resolve()
    # a path inside the repository is written relative to it: the committed file must not name this machine
    shown_path = shown.relative_to(REPO_ROOT) if shown.is_relative_to(REPO_ROOT) else shown
    data.update({"calibration_set": str(shown_path), "labels_sha256": labels_sha,
                 "calibration_set_sha256": hashlib.sha256(Path(set_path).read_bytes()).hexdigest(),
                 "created": datetime.now(UTC).isoformat(timespec="seconds")})
    clean = _clean(data)
    write_json_atomic(out, clean)
    return clean


def _clean(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    return _json_value(v)


if __name__ == "__main__":
    raise SystemExit(main())
