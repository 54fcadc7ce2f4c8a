"""Which system a calibration record belongs to, and whether the running system is that system.

A τ is fitted on the trust scores of one system's claims; scores of another backend, model,
scoring settings or relevance model are a different distribution, and the τ says nothing about
them. :func:`system_of` fingerprints the running system:

* ``backend`` (``settings.board.backend``), ``model`` and ``role_models`` (``settings.llm``; the
  offline extractive engine has no model, so ``None``);
* ``scoring_sha256`` -- sha256 of the canonical JSON of ``settings.trust``, ``settings.offline``,
  ``settings.relevance`` and ``settings.retrieval`` (paths relative to the repository root, as in
  :meth:`~labourcrew.settings.Settings.hash`);
* ``relevance_model_sha256`` -- sha256 of the bytes of ``settings.relevance.model_path`` when the
  file exists, else ``None``.

:func:`mismatch` compares two fingerprints and says, in Bangla then English, what differs.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from labourcrew.ledger.gate import CalibrationRecord, SystemFingerprint
from labourcrew.settings import Settings

__all__ = ["SCORING_GROUPS", "system_of", "file_sha256", "differences", "mismatch", "calibration_for"]

logger = logging.getLogger(__name__)

SCORING_GROUPS: tuple[str, ...] = ("trust", "offline", "relevance", "retrieval")
"""Settings groups that shape trust scores (their hash is part of the fingerprint)."""


def file_sha256(path: Path | str | None) -> str | None:
    """sha256 (hex) of a file's bytes, or None when there is no such file."""
    if path is None:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def system_of(settings: Settings) -> SystemFingerprint:
    """The fingerprint of the system ``settings`` describe (module docstring)."""
    public = settings.public_dict()
    scoring = {g: public.get(g) for g in SCORING_GROUPS}
    blob = json.dumps(scoring, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    online = settings.board.backend == "openai"
    relevance = getattr(settings, "relevance", None)
    return SystemFingerprint(
        backend=settings.board.backend,
        model=settings.llm.model if online else None,
        role_models=dict(sorted((settings.llm.role_models or {}).items())) if online else {},
        scoring_sha256=hashlib.sha256(blob.encode("utf-8")).hexdigest(),
        relevance_model_sha256=file_sha256(getattr(relevance, "model_path", None)),
    )


def differences(recorded: SystemFingerprint, running: SystemFingerprint) -> tuple[list[str], list[str]]:
    """What differs between two systems, as ``(bn parts, en parts)``; both empty when they are equal."""
    parts_bn: list[str] = []
    parts_en: list[str] = []
    if recorded.backend != running.backend:
        parts_bn.append(f"ব্যাকএন্ড {recorded.backend} ≠ {running.backend}")
        parts_en.append(f"backend {recorded.backend} != {running.backend}")
    if (recorded.model, recorded.role_models) != (running.model, running.role_models):
        parts_bn.append(f"মডেল {recorded.model} ≠ {running.model}")
        parts_en.append(f"model {recorded.model} != {running.model}")
    if recorded.scoring_sha256 != running.scoring_sha256:
        parts_bn.append("ট্রাস্ট-স্কোরের সেটিংস বদলেছে")
        parts_en.append(f"scoring settings {recorded.scoring_sha256[:8]} != {running.scoring_sha256[:8]}")
    if recorded.relevance_model_sha256 != running.relevance_model_sha256:
        parts_bn.append("প্রাসঙ্গিকতা মডেল বদলেছে")
        parts_en.append(f"relevance model {str(recorded.relevance_model_sha256)[:8]} != "
                        f"{str(running.relevance_model_sha256)[:8]}")
    return parts_bn, parts_en


def mismatch(recorded: SystemFingerprint | None, running: SystemFingerprint) -> tuple[str, str] | None:
    """What differs between the record's system and the running one, as ``(bn, en)``; None if equal."""
    if recorded is None:
        return ("ক্যালিব্রেশন রেকর্ডে লেখা নেই এটি কোন সিস্টেমের জন্য; τ এই সিস্টেমের জন্য যাচাই করা নয়",
                "the calibration record does not say which system it was fitted for")
    parts_bn, parts_en = differences(recorded, running)
    if not parts_en:
        return None
    return ("ক্যালিব্রেশন রেকর্ডটি অন্য সিস্টেমের জন্য (" + "; ".join(parts_bn) + ")",
            "the calibration record is for another system (" + "; ".join(parts_en) + ")")


def calibration_for(settings: Settings) -> CalibrationRecord:
    """The calibration record the Trust Gate uses under ``settings`` (the one loader every caller uses).

    The record at ``settings.gate.calibration_path``, checked against ``settings.gate.alpha``, ``settings.gate.delta`` and
    against the running system (:func:`system_of`); fails closed as
    :func:`labourcrew.gate.crc.load_calibration` describes.
    """
    from labourcrew.gate.crc import load_calibration

    return load_calibration(settings.gate.calibration_path, settings.gate.alpha, system=system_of(settings),
                            on_mismatch=settings.gate.on_system_mismatch, delta=settings.gate.delta)
