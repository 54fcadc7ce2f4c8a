"""The annotation queue: logged claims from saved runs, for people to label (paper B.5).

Every claim of every saved run (:class:`~labourcrew.board.run.AskResult`) becomes a
:class:`QueueItem` carrying the question, the claim, its citations with the full verbatim unit
text (so the Annotate page can highlight the spans) and its trust score. Labels live in the
:class:`~labourcrew.gate.labels.LabelStore` under the claim's *content key*
(:func:`~labourcrew.gate.labels.content_key`: statute version, normalised question, cited node ids and
normalised spans), with ``run_id`` kept as provenance, so a re-run -- or a changed system -- that
produces the same claim finds its label. (:func:`claim_key`, ``"<run_id>:<claim_id>"``, was the key
before issue 11; it survives only to read old exports.)

From labels back to calibration (:func:`calibration_questions`): one *question* per run that has
at least one labelled claim; its candidates are that run's labelled claims as ``(trust_score,
faithful)``, with the label from :func:`~labourcrew.gate.labels.resolve_labels` (the one policy:
adjudicated, else agreed, else single; disputed counts unfaithful; unsure-only is left out).
Unlabelled claims are left out (their loss is unknown).

Agreement (:func:`agreement`): Cohen's κ for every pair of annotators over the claims both
labelled faithful/unfaithful; NaN (undefined, not 0) when they share none.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import InputError
from labourcrew.gate.crc import Question
from labourcrew.gate.labels import Label, cohens_kappa, content_key, is_adjudicator, resolve_labels

if TYPE_CHECKING:  # the board imports LangGraph; this module stays importable without it
    from labourcrew.ledger.run import AskResult

__all__ = [
    "claim_key",
    "split_key",
    "run_claim_key",
    "QueueEvidence",
    "QueueItem",
    "Progress",
    "PairAgreement",
    "CalibrationData",
    "queue_items",
    "build_queue",
    "progress",
    "agreement",
    "resolved_labels",
    "calibration_questions",
]

logger = logging.getLogger(__name__)


def claim_key(run_id: str, claim_id: str) -> str:
    """The label store key of a claim: ``"<run_id>:<claim_id>"``.

    Raises:
        InputError: an empty id, or a run id containing ``:``.
    """
    if not run_id or not claim_id or ":" in run_id:
        raise InputError(f"cannot make a label key from run {run_id!r} and claim {claim_id!r}")
    return f"{run_id}:{claim_id}"


def split_key(key: str) -> tuple[str, str]:
    """Inverse of :func:`claim_key`: ``(run_id, claim_id)``."""
    run_id, sep, claim_id = key.partition(":")
    if not sep or not run_id or not claim_id:
        raise InputError(f"not a claim key: {key!r}")
    return run_id, claim_id


def run_claim_key(result: AskResult, claim: object) -> str:
    """The content key of one claim of a saved run (:func:`~labourcrew.gate.labels.content_key`)."""
    return content_key(result.statute_version, result.question,
                       [(e.node_id, e.span) for e in claim.evidence])  # type: ignore[attr-defined]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class QueueEvidence(_Record):
    """One citation of a queued claim, with the full unit text to highlight the span in."""

    node_id: str = Field(description="Cited node id.")
    section: str | None = Field(description="ASCII section label (None when the node was off the pack).")
    span: str = Field(description="The span as cited.")
    verified: bool = Field(description="Citation Checker result.")
    unit_text: str = Field(description="Verbatim text of the cited unit from the run's Evidence Pack ('' if off the pack).")


class QueueItem(_Record):
    """A logged claim waiting for (or having) labels."""

    key: str = Field(description="Label store key: the claim's content key.")
    run_id: str = Field(description="Run the claim comes from.")
    claim_id: str = Field(description="Claim id within the run.")
    created: str = Field(description="When the run started (ISO 8601).")
    question: str = Field(description="The question asked.")
    statute_version: str = Field(description="Statute version the run answered from.")
    side: str = Field(description="worker, employer or interpreter.")
    text: str = Field(description="The claim text.")
    category: str = Field(description="Claim category (numeric, temporal, obligation, factual).")
    verdict: str | None = Field(description="Trust Auditor verdict, if audited.")
    trust_score: float = Field(ge=0.0, le=1.0, description="Composite trust score S.")
    accepted: bool = Field(description="Whether the run's gate released it.")
    evidence: list[QueueEvidence] = Field(description="Its citations in order.")
    settings_hash: str = Field(default="", description="Settings hash of the run (which system made it).")


class Progress(_Record):
    """How far labelling has come."""

    total: int = Field(ge=0, description="Claims in the queue (all saved runs).")
    mine: int = Field(ge=0, description="Claims this annotator has labelled.")
    labelled: int = Field(ge=0, description="Claims labelled by anyone.")
    double: int = Field(ge=0, description="Claims labelled by two or more annotators.")
    remaining: int = Field(ge=0, description="Claims this annotator has not labelled yet.")


class PairAgreement(_Record):
    """Cohen's κ of two annotators."""

    first: str = Field(description="Annotator A.")
    second: str = Field(description="Annotator B.")
    shared: int = Field(ge=0, description="Claims both labelled faithful/unfaithful.")
    kappa: float = Field(description="Cohen's κ over the shared claims; NaN when shared == 0.")


class CalibrationData(_Record):
    """Calibration questions built from labels, and what was left out."""

    questions: list[list[tuple[float, bool]]] = Field(description="One list of (trust_score, faithful) per run.")
    run_ids: list[str] = Field(description="Run id of each question, same order.")
    n_claims: int = Field(ge=0, description="Labelled claims used.")
    n_unsure: int = Field(ge=0, description="Claims left out: only 'unsure' labels.")
    n_orphan: int = Field(ge=0, description="Labels whose run or claim is not among the saved runs.")


def queue_items(results: Iterable[AskResult]) -> list[QueueItem]:
    """Every claim of every run as a :class:`QueueItem` (runs in the given order, claims in ledger order)."""
    out: list[QueueItem] = []
    for r in results:
        texts = {i.node_id: i.text for i in r.evidence_pack.items}
        for c in r.claims:
            if not c.evidence:
                continue  # a claim without citations cannot be judged (nor keyed)
            out.append(QueueItem(
                key=run_claim_key(r, c), settings_hash=r.settings_hash, run_id=r.run_id, claim_id=c.claim_id, created=r.created,
                question=r.question, statute_version=r.statute_version, side=c.side.value, text=c.text,
                category=c.category.value, verdict=c.verdict.value if c.verdict else None,
                trust_score=c.trust_score, accepted=c.accepted,
                evidence=[QueueEvidence(node_id=e.node_id, section=e.section, span=e.span, verified=e.verified,
                                        unit_text=texts.get(e.node_id, "")) for e in c.evidence],
            ))
    return out


def _by_key(labels: Iterable[Label]) -> dict[str, list[Label]]:
    out: dict[str, list[Label]] = defaultdict(list)
    for lab in labels:
        out[lab.claim_id].append(lab)
    return out


def build_queue(
    items: Sequence[QueueItem], labels: Iterable[Label], annotator: str, *, skipped: Iterable[str] = (),
    current_system: str | None = None, disputed_only: bool = False,
) -> list[QueueItem]:
    """The claims ``annotator`` still has to label, in working order.

    Order: claims of the current system (runs whose settings hash is ``current_system``) that
    nobody labelled come first, then the current system's other claims, then other systems'
    (unlabelled before labelled); ``skipped`` keys go to the end. One item per key.
    ``disputed_only``: only keys whose annotators disagree and that no adjudicator decided (for an
    adjudicator; the annotator's own label does not take a key out of this queue).

    Raises:
        InputError: empty annotator name.
    """
    if not annotator or not annotator.strip():
        raise InputError("annotator name is empty", help_message="আপনার নাম লিখুন (annotator name).")
    by_key = _by_key(labels)
    skipped_set = set(skipped)
    seen: set[str] = set()
    unique = [i for i in items if not (i.key in seen or seen.add(i.key))]
    if disputed_only:
        res = resolve_labels([lab for labs in by_key.values() for lab in labs])
        todo = [i for i in unique if i.key in res and res[i.key].source == "disputed"]
    else:
        todo = [i for i in unique if not any(lab.annotator == annotator for lab in by_key.get(i.key, []))]

    def order(i: QueueItem) -> tuple[bool, bool, bool]:
        current = current_system is None or i.settings_hash == current_system
        return (i.key in skipped_set, not current, bool(by_key.get(i.key)))

    return sorted(todo, key=order)


def progress(items: Sequence[QueueItem], labels: Iterable[Label], annotator: str) -> Progress:
    """Counts for the progress bar (only labels of claims in ``items`` count)."""
    keys = {i.key for i in items}
    by_key = {k: v for k, v in _by_key(labels).items() if k in keys}
    mine = sum(any(lab.annotator == annotator for lab in v) for v in by_key.values())
    return Progress(
        total=len(keys), mine=mine, labelled=len(by_key),
        double=sum(len({lab.annotator for lab in v}) >= 2 for v in by_key.values()),
        remaining=len(keys) - mine,
    )


def agreement(labels: Iterable[Label]) -> list[PairAgreement]:
    """Cohen's κ for every pair of annotators (sorted by name) over their shared binary labels.

    Every annotator with any label appears; a pair sharing no faithful/unfaithful claim has κ NaN.
    """
    by_annotator: dict[str, dict[str, str]] = defaultdict(dict)
    for lab in labels:  # every annotator gets a row; only binary labels count towards κ
        if is_adjudicator(lab.annotator):
            continue  # an adjudicator saw both labels: not an independent rater
        names = by_annotator[lab.annotator]
        if lab.label != "unsure":
            names[lab.claim_id] = lab.label
    out = []
    for a, b in itertools.combinations(sorted(by_annotator), 2):
        shared = sorted(by_annotator[a].keys() & by_annotator[b].keys())
        kappa = (cohens_kappa([by_annotator[a][k] for k in shared], [by_annotator[b][k] for k in shared])
                 if shared else math.nan)
        out.append(PairAgreement(first=a, second=b, shared=len(shared), kappa=kappa))
    return out


def resolved_labels(labels: Iterable[Label]) -> tuple[dict[str, bool], int]:
    """Per claim key, faithful or not under :func:`~labourcrew.gate.labels.resolve_labels`.

    Returns:
        ``({key: faithful}, number of keys with only 'unsure' labels)``.
    """
    out: dict[str, bool] = {}
    unsure = 0
    for key, res in resolve_labels(labels).items():
        if res.faithful is None:
            unsure += 1
        else:
            out[key] = res.faithful
    return out, unsure


def calibration_questions(results: Iterable[AskResult], labels: Iterable[Label]) -> CalibrationData:
    """CRC calibration questions from saved runs and labels (module docstring).

    Returns:
        :class:`CalibrationData`; ``questions`` feed :func:`labourcrew.gate.crc.calibrate`.
    """
    decided, unsure = resolved_labels(labels)
    used: set[str] = set()
    questions: list[Question] = []
    run_ids: list[str] = []
    for r in results:
        q = []
        for c in r.claims:
            if not c.evidence:
                continue
            key = run_claim_key(r, c)
            if key in decided:
                q.append((float(c.trust_score), decided[key]))
                used.add(key)
        if q:
            questions.append(q)
            run_ids.append(r.run_id)
    orphans = len(set(decided) - used)
    if orphans and used:
        logger.info("%d labelled claims are not in the saved runs", orphans)
    return CalibrationData(questions=[list(q) for q in questions], run_ids=run_ids, n_claims=len(used),
                           n_unsure=unsure, n_orphan=orphans)
