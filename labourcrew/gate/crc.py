r"""Trust Gate calibration by conformal risk control (paper §3.6, appendix B.5).

Setting. Each calibration *question* ``i`` has candidate claims with trust scores ``s_ij`` and
human labels ``y_ij`` (faithful or not). At threshold ``τ`` the gate releases the claims with
``s_ij ≥ τ``; the per-question loss is the fraction of released claims that are unfaithful::

    L_i(τ) = #{j : s_ij ≥ τ, not y_ij} / #{j : s_ij ≥ τ}        (0 when nothing is released)

so ``0 ≤ L_i ≤ B = 1``.

Monotonisation. CRC needs losses that are non-increasing in ``τ``; the fraction loss is not (dropping
a faithful high-score claim can raise the fraction). We use the standard fix of Angelopoulos et al.
(2022, "Conformal Risk Control", §2 remark on non-monotone losses) *per question*::

    L̃_i(τ) = max_{τ' ≥ τ} L_i(τ')

which is non-increasing and ``≥ L_i``, so controlling ``E[L̃]`` also controls ``E[L]``. (This is at
least as conservative as monotonising the mean risk, ``max_{τ' ≥ τ} R̂(τ')``: the mean of maxima is
≥ the maximum of means; a max over the mean alone carries no finite-sample guarantee.)

Threshold. With ``n`` questions, ``R̂(τ) = (1/n) Σ_i L̃_i(τ)`` and::

    bound(τ) = n/(n+1) · R̂(τ) + B/(n+1)
    τ̂ = min { τ ∈ grid : bound(τ') ≤ α for every τ' ∈ grid with τ' ≥ τ }

where ``grid`` is the sorted distinct calibration scores. The scan runs from the top, so ``τ̂`` is
the smallest threshold above which the bound holds everywhere. Then, for an exchangeable new
question, ``E[L_{n+1}(τ̂)] ≤ E[L̃_{n+1}(τ̂)] ≤ α``. Taking ``τ̂`` from the calibration scores (not
the continuum) only raises it, which keeps the guarantee. If no grid point qualifies -- also when
``B/(n+1) > α``, i.e. fewer than ``1/α - 1`` questions -- ``τ̂ = ∞``: the gate **fails closed** and
releases nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from labourcrew.errors import DataError, InputError
from labourcrew.ledger.gate import LOSS_BOUND, CalibrationRecord, SystemFingerprint

__all__ = [
    "Question",
    "calibrate",
    "risk_curve",
    "question_losses",
    "load_calibration",
    "load_validation",
    "excess_z",
    "validation_failure",
    "validation_share",
    "fail_closed_record",
    "POPULATION_SHARE",
    "HELD_OUT_SHARE",
    "VALIDATION_FILE",
    "REFUTE_Z",
    "is_stand_in",
    "calibration_sha256",
]

logger = logging.getLogger(__name__)

Question = Sequence[tuple[float, bool]]
"""One calibration question: its candidate claims as (trust_score, faithful) pairs."""

_EPS = 1e-12  # float slack in the bound comparison


VALIDATION_FILE = "validation.json"
"""The split validation of the record's labels, next to the record (``calibrate validate``;
:mod:`labourcrew.gate.validation`)."""
REFUTE_Z = 2.0
"""How many binomial standard errors LTT's share of validation splits above α may exceed δ by before the
excess counts as a real failure rather than sampling error of the split estimate."""


def load_validation(path: str | Path) -> dict[str, Any] | None:
    """``validation.json`` (splits, per-method selective risks and shares above α, ...) or None when absent.

    Raises:
        DataError: the file exists but is not a JSON object.
    """
    path = Path(path)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"{path} is unreadable: {exc}", help_message="Re-run the calibration validation.") from exc
    if not isinstance(data, dict):
        raise DataError(f"{path} must hold a JSON object")
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in data.items()}


def excess_z(share: float, delta: float, splits: int) -> float:
    """``(share - δ) / √(share(1 - share) / splits)``: by how many binomial standard errors of a share over
    ``splits`` splits the share of splits above α exceeds δ (``inf`` when the error is 0 and share > δ).
    """
    se = math.sqrt(share * (1 - share) / splits) if splits > 0 else 0.0
    if se > 0:
        return (share - delta) / se
    return math.inf if share > delta else 0.0


POPULATION_SHARE = "share_splits_population_risk_above_alpha"
"""``validation.json``'s LTT key that checks LTT's promise (:func:`labourcrew.gate.validation.validate_selective`)."""
HELD_OUT_SHARE = "share_splits_selective_risk_above_alpha"
"""The held-out share: descriptive only, biased upwards (the halves are complementary); read by
:func:`validation_failure` only from a validation written before the population share existed."""


def validation_share(ltt: dict[str, Any]) -> tuple[float, bool]:
    """``(share, is_population)``: the share of splits that checks LTT's promise in one ``validation.json``
    LTT entry -- the population share, or the (conservative) held-out share of a file that predates it.

    Raises:
        KeyError, TypeError, ValueError: the entry has neither share as a number.
    """
    if isinstance(ltt.get(POPULATION_SHARE), (int, float)):
        return float(ltt[POPULATION_SHARE]), True
    return float(ltt[HELD_OUT_SHARE]), False


def validation_failure(path: str | Path, record: CalibrationRecord) -> str | None:
    """Why a finite LTT record must not be used because its own split validation refutes it, else None.

    LTT promises that the selective risk exceeds α with probability at most δ. ``calibrate validate``
    fits LTT on random halves of the *same* labelled questions and applies each half's τ to all of them (the
    plug-in population, :func:`labourcrew.gate.validation.validate_selective`); when the share of splits whose
    τ has a selective risk above α exceeds δ by more than :data:`REFUTE_Z` standard errors (:func:`excess_z`,
    the Calibration page's "real failure"), the procedure did not keep its promise on these data and a τ fitted
    on them is not trusted. The held-out half's share is not the test: the halves are complementary, so a lucky
    calibration half hands the pool's errors to its test half (2026-12-04 that share, 13.8 % of 1000 splits,
    refused τ = 0.939; on the same labels the population share is 0.3 %). A validation written before the
    population share existed is read by its held-out share (conservative). A validation of other labels
    (another ``labels_sha256``), a missing or unreadable one, or a record that already fails closed gives None.
    """
    if record.method != "ltt" or math.isinf(record.tau):
        return None
    try:
        data = load_validation(Path(path).parent / VALIDATION_FILE)
        if data is None or data.get("labels_sha256") != record.labels_sha256:
            return None
        share, population = validation_share(data["methods"]["ltt"])
        delta, splits = float(data["delta"]), int(data["splits"])
    except (DataError, KeyError, TypeError, ValueError) as exc:
        logger.warning("unreadable split validation beside %s (%s): not used", path, exc)
        return None
    z = excess_z(share, delta, splits)
    if z <= REFUTE_Z:
        return None
    where_bn = "সব লেবেলযুক্ত প্রশ্নে" if population else "বাকি অর্ধেকে"
    where_en = "on all labelled questions" if population else "on the held-out half"
    return (f"বিভাজন-যাচাইয়ে ({splits}টি ভাগ) অর্ধেক প্রশ্নে নির্ধারিত τ {where_bn} {share:.1%} ভাগে ঝুঁকি α-এর বেশি দিয়েছে "
            f"(δ = {delta:g}-এর চেয়ে {z:.1f} মানক ত্রুটি বেশি): τ = {record.tau:g} বিশ্বাসযোগ্য নয়, ট্রাস্ট গেট বন্ধ — the "
            f"split validation of these labels ({splits} splits) finds the selective risk of the τ fitted on half "
            f"the questions above α {where_en} in {share:.1%} of splits, {z:.1f} standard errors more than "
            f"δ = {delta:g}: τ = {record.tau:g} is not trusted and the Trust Gate fails closed; label more questions "
            "or improve the score, then recompute τ and the validation")


def fail_closed_record(alpha: float, note: str, labels_sha256: str = "", n: int = 0, grid_size: int = 0) -> CalibrationRecord:
    """A record that releases nothing (τ = ∞) with ``note`` saying why; without a labels hash it is a stand-in
    (:func:`is_stand_in`).
    """
    return CalibrationRecord(
        tau=math.inf,
        alpha=alpha,
        n=n,
        empirical_risk=0.0,
        bound=min(1.0, LOSS_BOUND / (n + 1)),
        labels_sha256=labels_sha256,
        created=_now(),
        grid_size=grid_size,
        note=note,
    )


def is_stand_in(record: CalibrationRecord) -> bool:
    """Whether ``record`` is the fail-closed stand-in :func:`load_calibration` returns in place of a
    stored record it cannot use (none, unreadable, fitted at another α or δ, or for another system).

    Returns:
        True for a stand-in; False for a record a calibration fitted, including one whose
        calibration found no τ (τ = ∞). Stand-ins are the only records without a labels hash.
    """
    return not record.labels_sha256


def load_calibration(
    path: str | Path,
    alpha: float = 0.10,
    *,
    strict: bool = False,
    system: SystemFingerprint | None = None,
    on_mismatch: str = "fail_closed",
    delta: float | None = None,
) -> CalibrationRecord:
    """Load the Trust Gate calibration, failing closed when there is none.

    Args:
        path: record path (``settings.gate.calibration_path``).
        alpha: the α the caller wants; a record fitted at another α is not used (fail closed).
        strict: raise instead of failing closed when the file exists but is unreadable.
        system: the running system (:func:`labourcrew.gate.system.system_of`); when given and
            different from the record's, the record is not used: the gate fails closed with the
            reason in Bangla then English, or (``on_mismatch="categorical"``) the returned record
            has ``fallback="categorical"`` and the categorical gate runs, marked uncalibrated.
        on_mismatch: ``"fail_closed"`` (default) or ``"categorical"``.
        delta: the δ the caller wants; an LTT record fitted at another δ is not used (fail closed:
            its guarantee holds with probability 1 − its own δ, not the requested one).

    A finite LTT record whose own split validation (``validation.json`` beside it, same labels) refutes it
    is not used either (:func:`validation_failure`).

    Returns:
        The stored record; when the file is missing, a record with ``tau = inf``, ``n = 0`` and
        note ``"no calibration record"`` (nothing will be released). A record returned in place of
        the stored one is a stand-in (:func:`is_stand_in`); its note says which check failed.

    Raises:
        DataError: only with ``strict=True``, for an unreadable file.
    """
    path = Path(path)
    if not path.is_file():
        logger.warning("no calibration record at %s: the Trust Gate fails closed", path)
        return fail_closed_record(alpha, "no calibration record")
    try:
        record = CalibrationRecord.load(path)
    except DataError as exc:
        if strict:
            raise
        logger.error("%s: the Trust Gate fails closed", exc)
        return fail_closed_record(alpha, f"unreadable calibration record: {exc}")
    if not math.isclose(record.alpha, alpha, abs_tol=1e-9):
        # τ guarantees risk ≤ the α it was fitted at, and no other: a different α needs a new CRC run.
        logger.warning("calibration record is for α=%s, settings ask α=%s: the Trust Gate fails closed",
                       record.alpha, alpha)
        return fail_closed_record(alpha, f"the calibration record is for α = {record.alpha:g}, not the requested "
                                   f"α = {alpha:g}; recompute τ on the Calibration page")
    if delta is not None and record.method == "ltt" and record.delta is not None and not math.isclose(
            record.delta, delta, abs_tol=1e-9):
        logger.warning("calibration record is for δ=%s, settings ask δ=%s: the Trust Gate fails closed",
                       record.delta, delta)
        return fail_closed_record(alpha, f"ক্যালিব্রেশন রেকর্ডটি δ = {record.delta:g}-এর জন্য, চাওয়া হয়েছে δ = {delta:g} — "
                                   f"the calibration record is for δ = {record.delta:g}, not the requested δ = {delta:g}; "
                                   "recompute τ on the Calibration page")
    refuted = validation_failure(path, record)
    if refuted is not None:
        logger.warning("%s", refuted)
        closed = fail_closed_record(alpha, refuted, n=record.n)
        return closed.model_copy(update={"method": record.method, "system": record.system, "delta": record.delta})
    if system is not None:
        from labourcrew.gate.system import mismatch

        diff = mismatch(record.system, system)
        if diff is not None:
            bn, en = diff
            logger.warning("%s: the Trust Gate %s", en, "runs uncalibrated (categorical)"
                           if on_mismatch == "categorical" else "fails closed")
            closed = fail_closed_record(alpha, f"{bn} — {en}; recompute τ for this system on the Calibration page")
            return closed.model_copy(update={"fallback": "categorical" if on_mismatch == "categorical" else "none",
                                             "method": record.method, "system": record.system})
    return record


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# ---------------------------------------------------------------- losses


def _validate(questions: Sequence[Question]) -> list[tuple[np.ndarray, np.ndarray]]:
    if isinstance(questions, (str, bytes)) or not isinstance(questions, Sequence):
        raise InputError("questions must be a list of questions, each a list of (score, faithful)")
    out: list[tuple[np.ndarray, np.ndarray]] = []
    for qi, question in enumerate(questions):
        scores: list[float] = []
        labels: list[bool] = []
        for pair in question:
            try:
                score, faithful = pair
            except (TypeError, ValueError) as exc:
                raise InputError(f"question {qi}: expected (score, faithful) pairs, got {pair!r}") from exc
            if not isinstance(faithful, (bool, np.bool_)):
                raise InputError(f"question {qi}: faithful must be a bool, got {faithful!r}")
            if isinstance(score, bool) or not isinstance(score, (int, float, np.number)) or not math.isfinite(score):
                raise InputError(f"question {qi}: score must be a finite number, got {score!r}")
            scores.append(float(score))
            labels.append(bool(faithful))
        out.append((np.asarray(scores, dtype=float), np.asarray(labels, dtype=bool)))
    return out


def _loss_table(scores: np.ndarray, faithful: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per distinct score (ascending): raw and monotonised loss when releasing scores >= it."""
    if scores.size == 0:
        empty = np.zeros(0)
        return empty, empty, empty
    thresholds, inverse = np.unique(scores, return_inverse=True)
    m = thresholds.size
    count = np.bincount(inverse, minlength=m)[::-1].cumsum()  # descending: released at d_1..d_j
    bad = np.bincount(inverse, weights=~faithful, minlength=m)[::-1].cumsum()
    raw_desc = bad / count
    mono_desc = np.maximum.accumulate(raw_desc)
    return thresholds, raw_desc, mono_desc


def _losses_at(table: tuple[np.ndarray, np.ndarray, np.ndarray], taus: np.ndarray, monotone: bool) -> np.ndarray:
    thresholds, raw_desc, mono_desc = table
    if thresholds.size == 0:
        return np.zeros(taus.shape)
    released = thresholds.size - np.searchsorted(thresholds, taus, side="left")  # distinct scores >= τ
    values = mono_desc if monotone else raw_desc
    return np.where(released > 0, values[np.maximum(released - 1, 0)], 0.0)


def question_losses(question: Question, taus: Sequence[float], *, monotone: bool = False) -> np.ndarray:
    """Loss of one question at each threshold.

    Args:
        question: (score, faithful) pairs.
        taus: thresholds (may include ``inf``).
        monotone: return the monotonised loss ``L̃`` instead of the raw fraction ``L``.

    Returns:
        Array of shape ``(len(taus),)`` with values in [0,1].

    Raises:
        InputError: malformed question.
    """
    ((scores, faithful),) = _validate([question])
    return _losses_at(_loss_table(scores, faithful), np.asarray(taus, dtype=float), monotone)


def _grid(prepared: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    if not prepared:
        return np.zeros(0)
    return np.unique(np.concatenate([s for s, _ in prepared] + [np.zeros(0)]))


def _risks(tables: list, taus: np.ndarray, monotone: bool) -> np.ndarray:
    if not tables:
        return np.zeros(taus.shape)
    return np.mean([_losses_at(t, taus, monotone) for t in tables], axis=0)


def risk_curve(
    questions: Sequence[Question],
    grid: Sequence[float] | None = None,
    *,
    monotone: bool = True,
    loss_bound: float = LOSS_BOUND,
) -> list[tuple[float, float, float]]:
    """Empirical risk and CRC bound along a threshold grid (for plotting).

    Args:
        questions: calibration questions.
        grid: thresholds; default the sorted distinct scores.
        monotone: use the monotonised risk (what :func:`calibrate` thresholds) or the raw one.
        loss_bound: B.

    Returns:
        ``[(τ, R̂(τ), n/(n+1)·R̂(τ) + B/(n+1)), ...]`` in grid order.

    Raises:
        InputError: malformed questions.
    """
    prepared = _validate(questions)
    taus = _grid(prepared) if grid is None else np.asarray(list(grid), dtype=float)
    n = len(prepared)
    risks = _risks([_loss_table(s, y) for s, y in prepared], taus, monotone)
    bounds = n / (n + 1) * risks + loss_bound / (n + 1)
    return [(float(t), float(r), float(b)) for t, r, b in zip(taus, risks, bounds, strict=True)]


def calibration_sha256(questions: Sequence[Question]) -> str:
    """sha256 of the canonical JSON of the calibration data (default ``labels_sha256``)."""
    prepared = _validate(questions)
    canon = [[[float(s), bool(y)] for s, y in zip(sc, fa, strict=True)] for sc, fa in prepared]
    return hashlib.sha256(json.dumps(canon, separators=(",", ":")).encode()).hexdigest()


def calibrate(
    questions: Sequence[Question],
    alpha: float = 0.10,
    *,
    labels_sha256: str | None = None,
    grid: Sequence[float] | None = None,
    loss_bound: float = LOSS_BOUND,
) -> CalibrationRecord:
    """Choose the Trust Gate threshold τ̂ by conformal risk control (module docstring).

    Args:
        questions: calibration questions, each a list of (trust_score, faithful) for its claims.
        alpha: target risk, in (0, 1).
        labels_sha256: hash of the label set used (e.g. ``LabelStore.labels_sha256()``); default
            :func:`calibration_sha256` of ``questions``.
        grid: candidate thresholds; default all distinct calibration scores.
        loss_bound: B, the loss's upper bound (1 for the fraction loss).

    Returns:
        The :class:`CalibrationRecord`; ``tau = inf`` (fail closed) when no threshold qualifies.

    Raises:
        InputError: alpha outside (0, 1) or malformed questions.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must be in (0, 1), got {alpha!r}")
    prepared = _validate(questions)
    sha = labels_sha256 if labels_sha256 is not None else calibration_sha256(questions)
    n = len(prepared)
    taus = _grid(prepared) if grid is None else np.unique(np.asarray(list(grid), dtype=float))
    taus = taus[~np.isnan(taus)]
    if n == 0:
        return fail_closed_record(alpha, "no calibration questions", sha, 0, int(taus.size))
    risks = _risks([_loss_table(s, y) for s, y in prepared], taus, monotone=True)
    bounds = n / (n + 1) * risks + loss_bound / (n + 1)
    ok = bounds <= alpha + _EPS
    # Scan from the top: the smallest τ such that every τ' >= τ satisfies the bound.
    failing = np.flatnonzero(~ok)
    first = int(failing[-1]) + 1 if failing.size else 0
    if first >= taus.size or not math.isfinite(taus[first]) or loss_bound / (n + 1) > alpha + _EPS:
        note = (
            f"no threshold meets alpha={alpha} with n={n} calibration questions"
            + (" (too few questions: B/(n+1) > alpha)" if loss_bound / (n + 1) > alpha + _EPS else "")
        )
        logger.warning("CRC: %s; the Trust Gate fails closed", note)
        return fail_closed_record(alpha, note, sha, n, int(taus.size))
    return CalibrationRecord(
        tau=float(taus[first]),
        alpha=alpha,
        n=n,
        empirical_risk=float(min(1.0, max(0.0, risks[first]))),
        bound=float(min(1.0, bounds[first])),
        labels_sha256=sha,
        created=_now(),
        grid_size=int(taus.size),
        loss_bound=loss_bound,
        note=None,
    )
