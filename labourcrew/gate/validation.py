r"""Empirical check of the Trust Gate guarantee over random calibration/test splits (issue 6, paper B.5).

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
from labourcrew.gate.crc import calibrate

__all__ = ["GateClaim", "SplitResult", "ValidationReport", "validate", "questions_from_set", "write_validation"]

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


def questions_from_set(rows: Sequence[Any]) -> list[list[GateClaim]]:
    """Group calibration-set rows (:class:`~labourcrew.gate.recalibration.CalibrationSetRow`) by run.

    'unsure' rows are left out; question order is the first appearance of each run.
    """
    by_run: dict[str, list[GateClaim]] = {}
    for r in rows:
        if r.label == "unsure":
            continue
        by_run.setdefault(r.run_id, []).append((float(r.trust_score), r.label == "faithful", r.categorical_release))
    return [q for q in by_run.values() if q]


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
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m labourcrew.gate.validation [--set FILE] [--out FILE] [--splits N] [--seed S] [--alpha A]``."""
    from labourcrew.gate.recalibration import load_calibration_set

    p = argparse.ArgumentParser(prog="python -m labourcrew.gate.validation", description=__doc__.splitlines()[0])
    p.add_argument("--set", default="data/calibration/calibration_set.jsonl", help="calibration_set.jsonl")
    p.add_argument("--out", default="data/calibration/validation.json", help="where to write validation.json")
    p.add_argument("--splits", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--alpha", type=float, default=0.10)
    p.add_argument("--calibration-fraction", type=float, default=0.5)
    a = p.parse_args(argv)
    path = Path(a.set)
    rows = load_calibration_set(path)
    if not rows:
        raise InputError(f"no calibration set at {path}")
    import hashlib

    report = validate(questions_from_set(rows), alpha=a.alpha, splits=a.splits,
                      calibration_fraction=a.calibration_fraction, seed=a.seed)
    out = write_validation(report, Path(a.out), calibration_set=str(path),
                           calibration_set_sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    print(json.dumps({"written": str(out), **{k: _json_value(v) for k, v in report.model_dump().items()}},
                     ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
