"""Release-status shares (paper §3.6, B.6): TGLO rate and the DEGRADED / UNDECIDED / failed shares.

For a configuration with a Trust Gate, every question counts once in each column:

* ``tglo_rate`` / ``degraded_rate`` / ``undecided_rate`` -- share of questions released with that
  status;
* ``failed_run_rate`` -- share of runs that produced no answer of their own: the board stopped, the
  run was halted by a role failure (the *no supervision* ablation) or the Trust Gate itself failed.

The four add up to 1. Configurations without a gate (baselines) have no status: the three status
columns are undefined there, ``failed_run_rate`` is still defined.

``role_failure_rate`` -- share of runs in which some role failed irrecoverably (after its retries),
whether or not the run still answered (a DEGRADED answer, or a halt).
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, PerRunMetric

__all__ = ["TGLORate", "DegradedRate", "UndecidedRate", "FailedRunRate", "RoleFailureRate"]


class _StatusShare(PerRunMetric):
    status: str

    def value(self, run: EvalRun) -> float | None:
        if not run.has_gate:
            return None
        return 1.0 if (not run.halted and run.status == self.status) else 0.0


class TGLORate(_StatusShare):
    """Share of questions released TGLO (trust-gated, ledger-only)."""

    name = "tglo_rate"
    description = "share of questions released TGLO"
    status = "TGLO"


class DegradedRate(_StatusShare):
    """Share of questions released DEGRADED."""

    name = "degraded_rate"
    description = "share of questions released DEGRADED"
    status = "DEGRADED"


class UndecidedRate(_StatusShare):
    """Share of questions released UNDECIDED."""

    name = "undecided_rate"
    description = "share of questions released UNDECIDED"
    status = "UNDECIDED"


class FailedRunRate(PerRunMetric):
    """Share of runs without an answer of their own (stopped, halted, gate failed)."""

    name = "failed_run_rate"
    description = "share of runs that produced no answer of their own"

    def value(self, run: EvalRun) -> float | None:
        return 1.0 if run.halted else 0.0


class RoleFailureRate(PerRunMetric):
    """Share of runs in which some role failed irrecoverably."""

    name = "role_failure_rate"
    description = "share of runs with a role that failed after its retries"

    def value(self, run: EvalRun) -> float | None:
        return 1.0 if run.failed_roles else 0.0
