r"""Trust Gate calibration by Learn-then-Test: selective risk control (Angelopoulos, Bates, Candès,
Jordan, Lei, "Learn then Test", arXiv 2110.01052; issue 11).

**The risk.** A calibration *question* ``i`` has candidate claims with trust scores ``s_ij`` and
labels ``y_ij``. At threshold ``τ`` it *releases* the claims with ``s_ij >= τ``; its answer is
*wrong* when at least one released claim is unfaithful::

    R_i(τ) = 1{ released_i(τ) ≠ ∅ }                    (the question releases an answer)
    W_i(τ) = 1{ ∃ j : s_ij >= τ and not y_ij }         (the released answer holds an unfaithful claim)

The controlled risk is the **selective risk**, the rate of wrong answers *among released ones*::

    R_sel(τ) = P( W(τ) = 1 | R(τ) = 1 )

A question that releases nothing is not counted as a safe answer: it is not in the denominator
(CRC's mean loss counts it as 0, so CRC can meet α by abstaining; :mod:`labourcrew.gate.crc`).

**The test.** For each τ of a fixed grid (``1.000, 0.999, ..., 0.000``, strict to loose) the null
hypothesis ``H_τ: R_sel(τ) > α`` gets the Hoeffding–Bentkus p-value (LTT §3.1 / Proposition 3)
computed on the ``n_τ`` releasing questions with empirical selective risk ``r̂_τ = k_τ / n_τ``::

    p_τ = min( exp(-n_τ · h(min(r̂_τ, α), α)),  P(Bin(n_τ, α) <= ⌈n_τ r̂_τ⌉) )
    h(a, b) = a log(a/b) + (1-a) log((1-a)/(1-b))

(the loss is binary, so Bentkus' bound is the exact binomial tail without the factor ``e``; LTT
§3.2). Given the releasing set, its questions are independent draws from the conditional
distribution given release, so ``p_τ`` is valid for the conditional risk. **Fixed-sequence
testing** (LTT §4.1) then walks the grid from strict to loose, rejecting ``H_τ`` while ``p_τ <= δ``
and stopping at the first ``p_τ > δ``; ``τ̂`` is the loosest rejected threshold, and
``P(R_sel(τ̂) > α) <= δ`` (family-wise error control of the fixed sequence).

**Where the sequence starts.** At the strict end almost no question releases, and with ``n_τ``
releasing questions ``p_τ >= (1-α)^{n_τ}`` whatever the labels: a sequence started there always
stops at once. The sequence therefore starts at the strictest grid point where at least
``n_min = ⌈log δ / log(1-α)⌉`` questions release (22 at α = δ = 0.10), the fewest at which a
rejection is possible at all. The start depends on the unlabelled scores only (the release
counts), never on the labels; the guarantee is then read conditionally on the calibration scores
(the Hoeffding and Bentkus bounds hold for independent, non-identical bounded losses). This is the
one departure from the textbook procedure, and it is stated here and in the README.

**Fail closed.** When no grid point is rejected (including when fewer than ``n_min`` questions
release at every τ), ``τ̂ = ∞`` and the record's note says why (the p-value at the first tested τ).
A finite record is also refused when the record is loaded, if the split validation of the same labels
(:mod:`labourcrew.gate.validation`) finds the τ fitted on half the questions above α on all of them (the plug-in
population) in a share of the splits more than two binomial standard errors over δ
(:func:`labourcrew.gate.crc.validation_failure`; the held-out half's share is biased upwards and only reported).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta as beta_dist
from scipy.stats import binom

from labourcrew.errors import InputError
from labourcrew.gate.crc import Question, _now, _validate, calibrate, calibration_sha256
from labourcrew.ledger.gate import CalibrationRecord, SystemFingerprint

__all__ = [
    "GRID_STEP",
    "default_grid",
    "hb_p_value",
    "min_release",
    "selective_counts",
    "selective_numbers",
    "selective_curve",
    "upper_bound",
    "EvidenceNeed",
    "evidence_needed",
    "evidence_need_text",
    "fixed_sequence",
    "calibrate_ltt",
    "calibrate_method",
]

logger = logging.getLogger(__name__)

GRID_STEP = 0.001
"""Spacing of the fixed threshold grid (τ is therefore given to 3 decimals)."""


def default_grid(step: float = GRID_STEP) -> np.ndarray:
    """The fixed grid ``1, 1 - step, ..., 0`` (strict to loose), independent of any data."""
    m = int(round(1.0 / step))
    return np.round(np.linspace(1.0, 0.0, m + 1), 6)


def _h1(r: float, a: float) -> float:
    first = 0.0 if r == 0 else r * math.log(r / a)
    return first + (1 - r) * math.log((1 - r) / (1 - a))


def hb_p_value(r_hat: float, n: int, alpha: float, *, binary: bool = True) -> float:
    """Hoeffding–Bentkus p-value of ``H: risk > alpha`` from ``n`` losses with mean ``r_hat``.

    Args:
        r_hat: empirical risk in [0, 1].
        n: number of losses (0 gives p = 1).
        alpha: the level tested.
        binary: the losses are 0/1 (Bentkus' bound without the factor e).

    Returns:
        The p-value in [0, 1].
    """
    if n <= 0:
        return 1.0
    hoeffding = math.exp(-n * _h1(min(r_hat, alpha), alpha))
    bentkus = (1.0 if binary else math.e) * float(binom.cdf(math.ceil(n * r_hat - 1e-9), n, alpha))
    return float(min(1.0, hoeffding, bentkus))


def min_release(alpha: float, delta: float) -> int:
    """The fewest releasing questions at which ``H_τ`` can be rejected: ``⌈log δ / log(1-α)⌉``."""
    return int(math.ceil(math.log(delta) / math.log(1.0 - alpha) - 1e-12))


def selective_counts(questions: Sequence[Question], taus: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Per threshold: (questions releasing anything, of those the ones releasing an unfaithful claim).

    Raises:
        InputError: malformed questions.
    """
    prepared = _validate(questions)
    taus_arr = np.asarray(list(taus), dtype=float)
    n_rel = np.zeros(taus_arr.shape, dtype=int)
    n_bad = np.zeros(taus_arr.shape, dtype=int)
    for scores, faithful in prepared:
        if scores.size == 0:
            continue
        top = scores.max()
        worst_bad = scores[~faithful].max() if (~faithful).any() else -math.inf
        n_rel += top >= taus_arr
        n_bad += worst_bad >= taus_arr
    return n_rel, n_bad


def selective_numbers(questions: Sequence[Question], tau: float) -> tuple[int, int]:
    """``(n releasing, n wrong)`` at one threshold (``tau = inf`` releases nothing)."""
    if math.isinf(tau):
        return 0, 0
    r, b = selective_counts(questions, [tau])
    return int(r[0]), int(b[0])


def selective_curve(questions: Sequence[Question], delta: float, taus: Sequence[float] | None = None
                    ) -> list[tuple[float, float, float]]:
    """The selective risk LTT tests, along τ: ``[(τ, k_τ / n_τ, upper bound at 1 − δ), ...]``.

    Only thresholds where at least one question releases appear (the risk is undefined elsewhere).
    The bound is :func:`upper_bound` (one-sided Clopper–Pearson). Default grid: :func:`default_grid`
    at step 0.01.

    Raises:
        InputError: malformed questions.
    """
    grid = np.asarray(list(taus) if taus is not None else default_grid(0.01), dtype=float)
    n_rel, n_bad = selective_counts(questions, grid)
    return [(float(t), int(b) / int(r), upper_bound(int(b), int(r), delta))
            for t, r, b in zip(grid, n_rel, n_bad) if r > 0]


def upper_bound(k: int, n: int, delta: float) -> float:
    """One-sided Clopper–Pearson upper bound at level 1 - δ of a binomial rate (1.0 when n = 0)."""
    if n <= 0 or k >= n:
        return 1.0
    return float(beta_dist.ppf(1.0 - delta, k + 1, n - k))


def fixed_sequence(n_rel: np.ndarray, n_bad: np.ndarray, alpha: float, delta: float
                   ) -> tuple[int | None, tuple[int, float] | None]:
    """The fixed-sequence test along a strict-to-loose grid (module docstring; LTT §4.1).

    Args:
        n_rel: releasing questions per grid point (:func:`selective_counts`).
        n_bad: of those, the ones releasing an unfaithful claim.
        alpha: the risk level α.
        delta: the error level δ.

    Returns:
        ``(chosen, first_fail)``: the index of the loosest rejected grid point (None: none), and the
        index and p-value of the first point not rejected (None: the walk reached the grid's end or
        never started because fewer than :func:`min_release` questions release anywhere).
    """
    need = min_release(alpha, delta)
    ok = n_rel >= need
    if not ok.any():
        return None, None
    chosen: int | None = None
    for i in range(int(np.argmax(ok)), n_rel.size):
        p = hb_p_value(n_bad[i] / n_rel[i], int(n_rel[i]), alpha)
        if p > delta:
            return chosen, (i, p)
        chosen = i
    return chosen, None


@dataclass(frozen=True)
class EvidenceNeed:
    """How many labelled calibration questions the test would need if the score kept its curve.

    With ``factor`` times the ``n_questions`` calibration questions, each threshold's releasing and wrong
    counts scaled alike (the observed selective risk and release rate held), the fixed-sequence test
    would first reject a threshold, down to ``tau``: there ``n_release`` of today's questions release and
    ``n_wrong`` of them wrongly. An extrapolation, not a guarantee: it tells a gate that fails closed for
    lack of evidence (label about ``n_questions_needed`` questions) from one that fails closed because
    the observed risk at the strict end is above α (:func:`evidence_needed` returns None: more labels of
    the same kind would not help, the score must improve).
    """

    factor: float
    tau: float
    n_release: int
    n_wrong: int
    n_questions: int

    @property
    def n_questions_needed(self) -> int:
        return int(math.ceil(self.factor * self.n_questions))


def evidence_needed(questions: Sequence[Question], alpha: float, delta: float, *,
                    taus: Sequence[float] | None = None, max_factor: float = 20.0,
                    step: float = 0.1) -> EvidenceNeed | None:
    """The fewest calibration questions with which the observed risk curve would pass the test.

    Scales every threshold's counts by ``factor`` = 1, 1 + ``step``, … ``max_factor`` and runs the
    same fixed-sequence test (:func:`fixed_sequence`, started where :func:`min_release` questions
    release) until a threshold is rejected. The 336 calibration questions of 2026-12-02 (τ = 0.94: 1
    wrong of 18 releasing; τ = 0.85: 6 of 91) give a factor of 3.1 at δ = α = 0.10: about 1,042
    questions, and then τ̂ = 0.95, where 7 of the 336 (2 %) release -- the score, not the number of
    labels, holds the release back.

    Args:
        questions: calibration questions (scores and labels of their claims).
        alpha: the risk level α in (0, 1).
        delta: the error level δ in (0, 1).
        taus: the thresholds (default :func:`default_grid` at step 0.01; any order).
        max_factor: largest multiple of today's questions considered.
        step: spacing of the factors tried.

    Returns:
        The :class:`EvidenceNeed`, or None when no factor up to ``max_factor`` passes.

    Raises:
        InputError: alpha or delta outside (0, 1), malformed questions.
    """
    _check_level("alpha", alpha)
    _check_level("delta", delta)
    n = len(_validate(questions))
    grid = np.sort(np.asarray(list(taus) if taus is not None else default_grid(0.01), dtype=float))[::-1]
    grid = grid[np.isfinite(grid)]
    if n == 0 or grid.size == 0:
        return None
    n_rel, n_bad = selective_counts(questions, grid)
    for factor in np.arange(1.0, max_factor + step / 2, step):
        chosen, _ = fixed_sequence(np.round(n_rel * factor), np.round(n_bad * factor), alpha, delta)
        if chosen is not None:
            return EvidenceNeed(factor=round(float(factor), 3), tau=float(grid[chosen]),
                                n_release=int(n_rel[chosen]), n_wrong=int(n_bad[chosen]), n_questions=n)
    return None


def evidence_need_text(need: EvidenceNeed | None, alpha: float) -> tuple[str, str]:
    """What :func:`evidence_needed` found, in words: ``(bangla, english)``, for a gate that fails closed."""
    from labourcrew.statute.normalize import to_bangla_digits

    if need is None:
        return ("আরও একই ধরনের লেবেল দিলেও গেট খুলবে না: কঠোর প্রান্তেই ভুল উত্তরের হার α-এর বেশি — "
                "স্কোরের উন্নতি দরকার।",
                f"more labels of the same kind would not open the gate: the observed risk at the strict end is "
                f"above α = {alpha:g}; the score must improve.")
    share = need.n_release / need.n_questions
    bn = (f"এই স্কোরে গেট খুলতে প্রায় {to_bangla_digits(str(need.n_questions_needed))}টি লেবেলকৃত প্রশ্ন লাগবে "
          f"(এখন {to_bangla_digits(str(need.n_questions))}টি), আর তখনও τ ≈ {need.tau:.2f}-এ মাত্র "
          f"{to_bangla_digits(f'{100 * share:.0f}')}% উত্তর প্রকাশ পাবে (আজ সেখানে "
          f"{to_bangla_digits(str(need.n_questions))}টির {to_bangla_digits(str(need.n_release))}টি প্রশ্ন উত্তর দেয়, "
          f"ভুল {to_bangla_digits(str(need.n_wrong))}টি; প্রতিটি τ-তে আজকের ঝুঁকি একই থাকবে ধরে "
          f"{to_bangla_digits(f'{need.factor:g}')} গুণ) — অনুমান, নিশ্চয়তা নয়।")
    en = (f"with this score the test would pass with about {need.n_questions_needed} labelled calibration "
          f"questions (now {need.n_questions}), and then only at τ ≈ {need.tau:.2f}, releasing about "
          f"{100 * share:.0f} % of answers (today {need.n_release} of the {need.n_questions} release there, "
          f"{need.n_wrong} wrongly; every threshold's counts scaled {need.factor:g}-fold with today's risk "
          f"kept: an extrapolation, not a guarantee).")
    return bn, en


def _check_level(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < 1.0:
        raise InputError(f"{name} must be in (0, 1), got {value!r}")


def calibrate_ltt(
    questions: Sequence[Question],
    alpha: float = 0.10,
    delta: float = 0.10,
    *,
    labels_sha256: str | None = None,
    grid: Sequence[float] | None = None,
    system: SystemFingerprint | None = None,
) -> CalibrationRecord:
    """τ̂ by Learn-then-Test fixed-sequence testing of the selective risk (module docstring).

    Args:
        questions: calibration questions, each a list of (trust_score, faithful).
        alpha: target selective risk, in (0, 1).
        delta: allowed probability that the selective risk at τ̂ exceeds α, in (0, 1).
        labels_sha256: hash of the labels used (default: of ``questions``).
        grid: thresholds, tested from the largest down (default :func:`default_grid`).
        system: the system the claims came from (stored on the record).

    Returns:
        A ``method="ltt"`` :class:`CalibrationRecord`; ``tau = inf`` with a note when no τ passes.

    Raises:
        InputError: alpha or delta outside (0, 1), malformed questions.
    """
    _check_level("alpha", alpha)
    _check_level("delta", delta)
    prepared = _validate(questions)
    sha = labels_sha256 if labels_sha256 is not None else calibration_sha256(questions)
    taus = np.sort(np.unique(np.asarray(list(grid) if grid is not None else default_grid(), dtype=float)))[::-1]
    taus = taus[np.isfinite(taus)]
    n = len(prepared)
    n_rel, n_bad = selective_counts(questions, taus) if n else (np.zeros(taus.shape, int), np.zeros(taus.shape, int))
    need = min_release(alpha, delta)
    chosen, fail = fixed_sequence(n_rel, n_bad, alpha, delta)
    base = {"alpha": alpha, "delta": delta, "n": n, "labels_sha256": sha, "created": _now(),
            "grid_size": int(taus.size), "method": "ltt", "system": system}
    if chosen is None:
        if fail is None:
            note = (f"no threshold passes: at most {int(n_rel.max()) if n_rel.size else 0} of {n} calibration "
                    f"questions release anything, fewer than the {need} needed to reject "
                    f"'selective risk > α = {alpha:g}' at δ = {delta:g}")
            p_first = 1.0
        else:
            i, p_first = fail
            t, nr, nb = float(taus[i]), int(n_rel[i]), int(n_bad[i])
            note = (f"no threshold passes: at the first tested τ = {t:.3f}, {nb} of the {nr} releasing questions "
                    f"{'releases' if nb == 1 else 'release'} an unfaithful claim (selective risk {nb / nr:.3f}), "
                    f"p = {p_first:.3f} > δ = {delta:g}")
        logger.info("LTT: %s; the Trust Gate fails closed", note)
        return CalibrationRecord(tau=math.inf, empirical_risk=0.0, bound=1.0, note=note, n_releasing=0,
                                 release_rate=0.0, selective_risk=None, p_value=p_first, **base)
    k, m = int(n_bad[chosen]), int(n_rel[chosen])
    return CalibrationRecord(
        tau=float(taus[chosen]), empirical_risk=k / m, bound=upper_bound(k, m, delta), note=None,
        n_releasing=m, release_rate=m / n, selective_risk=k / m,
        p_value=hb_p_value(k / m, m, alpha), **base,
    )


def calibrate_method(
    method: str,
    questions: Sequence[Question],
    alpha: float = 0.10,
    delta: float = 0.10,
    *,
    labels_sha256: str | None = None,
    system: SystemFingerprint | None = None,
) -> CalibrationRecord:
    """Calibrate with ``method`` (``"ltt"`` or ``"crc"``); both records carry the selective numbers.

    Raises:
        InputError: unknown method, bad alpha/delta, malformed questions.
    """
    if method == "ltt":
        return calibrate_ltt(questions, alpha, delta, labels_sha256=labels_sha256, system=system)
    if method != "crc":
        raise InputError(f"unknown calibration method {method!r}; use 'ltt' or 'crc'")
    rec = calibrate(questions, alpha, labels_sha256=labels_sha256)
    m, k = selective_numbers(questions, rec.tau)
    n = rec.n
    return rec.model_copy(update={
        "system": system, "n_releasing": m, "release_rate": (m / n) if n else 0.0,
        "selective_risk": (k / m) if m else None,
    })
