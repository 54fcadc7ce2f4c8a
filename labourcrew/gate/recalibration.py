"""Recompute the Trust Gate threshold from the label store, and see what it would change.

* :func:`regate` -- re-decide a saved run under another calibration record with the same
  :func:`labourcrew.gate.trust_gate.decide` the board uses (same claims, findings, pack, role
  status, primary issue and premise errors); only τ differs.
* :func:`status_changes` -- the before/after release status of every saved run for two records.
* :func:`propose` -- CRC at α on the labelled claims (:mod:`labourcrew.gate.annotation_queue`)
  with the label store's hash; nothing is written.
* :func:`save_new_record` -- writes the new record as a timestamped file *and* as the current
  record (``trust_gate.json``), after archiving the previous current record under its own
  timestamp: records are never overwritten without a copy, so every τ ever used stays on disk.
* :func:`history` -- every record on disk, newest first; :func:`load_validation` reads
  ``validation.json`` when present.
* :func:`load_calibration_set` -- ``data/calibration/calibration_set.jsonl``: every
  labelled calibration claim with its question, text, citations, trust score and label, so τ can be
  recomputed without the (uncommitted) ``runs/`` folder; :func:`propose` uses it for the labelled
  claims that are not among the saved runs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import re
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from labourcrew.errors import DataError
from labourcrew.gate.annotation_queue import (
    CalibrationData,
    calibration_questions,
    resolved_labels,
    run_claim_key,
)
from labourcrew.gate.crc import load_validation
from labourcrew.gate.labels import Label, content_key
from labourcrew.gate.ltt import calibrate_method
from labourcrew.gate.trust_gate import GateInputs, decide, gate_inputs, premise_blocks, settle
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import CalibrationRecord, GateMode, GateResult, SystemFingerprint
from labourcrew.ledger.records import Claim, EvidenceRef, RoleStatus, Verdict

if TYPE_CHECKING:
    from labourcrew.ledger.run import AskResult
    from labourcrew.retrieval.thesaurus import Thesaurus

__all__ = [
    "StatusChange",
    "Proposal",
    "regate",
    "status_changes",
    "propose",
    "save_new_record",
    "history",
    "record_digest",
    "load_validation",
    "SetCitation",
    "CalibrationSetRow",
    "load_calibration_set",
    "legacy_key_map",
    "load_label_file",
    "claims_system",
    "fit_from_files",
    "restore_record",
    "import_labels",
]

logger = logging.getLogger(__name__)


class StatusChange(BaseModel):
    """A saved run's release status under the current and the proposed calibration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str = Field(description="Run id.")
    created: str = Field(description="When the run started.")
    question: str = Field(description="The question.")
    saved_status: str = Field(description="Status stored with the run (the τ it ran with).")
    before: str = Field(description="Status under the current record.")
    after: str = Field(description="Status under the proposed record.")
    released_before: int = Field(ge=0, description="Claims released under the current record.")
    released_after: int = Field(ge=0, description="Claims released under the proposed record.")

    @property
    def changed(self) -> bool:
        """True when the status or the set size of released claims differs."""
        return self.before != self.after or self.released_before != self.released_after


class SetCitation(BaseModel):
    """One cited unit of a calibration-set claim."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    node_id: str = Field(description="Cited unit, e.g. '2025:118(1)'.")
    label: str = Field(default="", description="The unit's label, e.g. '118(1)'.")
    span: str = Field(description="Verbatim span quoted from the unit.")
    verified: bool = Field(description="Citation Checker verdict for the span.")


class CalibrationSetRow(BaseModel):
    """One calibration claim: a line of ``calibration_set.jsonl`` or of ``eval --export-claims``.

    Extra fields of an export (``accepted``, ``unit_text``, ...) are ignored; ``content_key`` and
    ``statute_version`` are filled in when a line lacks them.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    key: str = Field(default="", description="Legacy label key '<run_id>:<claim_id>' (before issue 11).")
    content_key: str = Field(default="", description="Label-store key: labels.content_key of the claim.")
    statute_version: str = Field(default="", description="Statute version (default: the cited node ids').")
    run_id: str = Field(description="Run (one calibration question) the claim comes from.")
    claim_id: str = Field(description="Claim id within the run.")
    item_id: str = Field(default="", description="Dev-set item id (calibration split).")
    category: str = Field(default="", description="Dev-set category of the item.")
    question: str = Field(description="The question as asked.")
    side: str = Field(default="", description="Board role that made the claim.")
    text: str = Field(default="", description="Claim text.")
    citations: list[SetCitation] = Field(description="Cited units and spans.")
    trust_score: float = Field(ge=0.0, le=1.0, description="Trust score in [0, 1].")
    verdict: str | None = Field(default=None, description="Trust Auditor verdict (SUPPORT, ...).")
    label: str = Field(default="", description="First annotator's label as exported (informative; the store decides).")
    annotator: str = Field(default="", description="Who labelled it.")
    rationale: str = Field(default="", description="One-line reason for the label.")
    system: SystemFingerprint | None = Field(default=None, description="System that produced the claim, if exported.")

    @model_validator(mode="before")
    @classmethod
    def _fill_keys(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("citations"):
            data = dict(data)
            first = str(data["citations"][0].get("node_id", ""))
            version = data.get("statute_version") or first.partition(":")[0]
            data["statute_version"] = version
            if not data.get("content_key"):
                data["content_key"] = content_key(
                    version, str(data.get("question", "")),
                    [(c.get("node_id", ""), c.get("span", "")) for c in data["citations"]])
        return data

    @property
    def categorical_release(self) -> bool:
        """Released by the categorical gate: Auditor SUPPORT and every citation verified."""
        return self.verdict == "SUPPORT" and bool(self.citations) and all(c.verified for c in self.citations)


def load_calibration_set(path: Path) -> list[CalibrationSetRow]:
    """Read ``calibration_set.jsonl``; an empty list when the file does not exist.

    Raises:
        DataError: a line is not a valid :class:`CalibrationSetRow`.
    """
    path = Path(path)
    if not path.is_file():
        return []
    rows = []
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(CalibrationSetRow.model_validate_json(line))
        except ValueError as exc:
            raise DataError(f"{path}:{no}: not a calibration-set row: {exc}",
                            help_message="Regenerate calibration_set.jsonl.") from exc
    return rows


def _with_set(data: CalibrationData, labels: Sequence[Label], rows: Sequence[CalibrationSetRow],
              results: Sequence[AskResult]) -> CalibrationData:
    """Add the calibration-set claims whose runs are not saved, labelled from the store by content key."""
    saved = {run_claim_key(r, c) for r in results for c in r.claims if c.evidence}
    saved_runs = {r.run_id for r in results}
    decided, _ = resolved_labels(labels)
    by_run: dict[str, list[tuple[float, bool]]] = {}
    used: set[str] = set()
    for row in rows:
        if row.run_id in saved_runs:
            continue
        faithful = decided.get(row.content_key)
        if faithful is None:
            continue  # unlabelled (or only 'unsure'): its loss is unknown
        by_run.setdefault(row.run_id, []).append((row.trust_score, faithful))
        used.add(row.content_key)
    if not by_run:
        return data
    orphans = len(set(decided) - saved - used)
    return CalibrationData(questions=data.questions + list(by_run.values()), run_ids=data.run_ids + list(by_run),
                           n_claims=data.n_claims + len(used), n_unsure=data.n_unsure, n_orphan=orphans)


class Proposal(BaseModel):
    """A candidate calibration record and the data behind it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    record: CalibrationRecord = Field(description="CRC result at α (not yet written).")
    data: CalibrationData = Field(description="Questions built from the labels.")
    n_from_set: int = Field(
        default=0, ge=0,
        description="Questions (runs) of ``data`` that come from the committed calibration set; the others are "
                    "the user's own labelled saved runs.",
    )

    @property
    def n_own_runs(self) -> int:
        """Questions from the user's own labelled saved runs (not in the committed calibration set)."""
        return len(self.data.questions) - self.n_from_set




def _spotting(result: AskResult) -> Any:
    from labourcrew.ledger.retrieval import IssueSpotting

    if result.spotting is None:
        return None
    try:
        return IssueSpotting.model_validate(result.spotting)
    except ValueError:
        logger.warning("run %s: unreadable spotting record; coverage falls back to question words", result.run_id)
        return None


def _ledger_claims(result: AskResult, keep: Iterable[str] | None = None) -> list[Claim]:
    """The run's claims as ledger claims (all of them, or those whose id is in ``keep``)."""
    wanted = None if keep is None else set(keep)
    return [
        Claim(claim_id=c.claim_id, side=c.side, text=c.text, round=c.round, retrieval_round=c.retrieval_round,
              challenge_to=c.challenge_to,
              confidence=c.trust_components.confidence,
              evidence=[EvidenceRef(node_id=e.node_id, span=e.span) for e in c.evidence])
        for c in result.claims if wanted is None or c.claim_id in wanted
    ]


def _inputs(result: AskResult, graph: StatuteGraph, thesaurus: Thesaurus) -> GateInputs:
    """The gate's reading of a saved run's question: the board's own rule (:func:`gate_inputs`)."""
    return gate_inputs(graph, _spotting(result), result.question, result.statute_version, result.facts,
                       thesaurus=thesaurus)


def _role_status(result: AskResult) -> dict[str, RoleStatus]:
    """The saved run's role statuses as the gate reads them."""
    return {
        role: RoleStatus(role=role, status=v.get("status", "ok"), attempts=int(v.get("attempts", 0)),
                         error=v.get("error"), latency_ms=float(v.get("latency_ms", 0.0)),
                         backend=str(v.get("backend", "")))
        for role, v in result.role_status.items()
    }


def regate(result: AskResult, calibration: CalibrationRecord, graph: StatuteGraph,
           mode: GateMode | None = None, *, thesaurus: Thesaurus) -> GateResult:
    """The gate's decision for a saved run under ``calibration`` (module docstring).

    Args:
        result: the saved run.
        calibration: the record to decide with.
        graph: the StatuteGraph (section texts for the coverage check).
        mode: gate mode; default the run's own.
        thesaurus: the settings' thesaurus (``relevance.thesaurus_path``), as the board reads it.

    Returns:
        The :class:`GateResult`.
    """
    inputs = _inputs(result, graph, thesaurus)
    return decide(
        _ledger_claims(result), result.findings, result.evidence_pack,
        calibration=calibration, mode=mode or result.gate_mode,  # type: ignore[arg-type]
        role_status=_role_status(result), primary=inputs.primary,
        context_of=graph.section_context, premise_errors=inputs.premise_errors, parts=inputs.parts,
        qualifiers_of=inputs.qualifiers_of, nothing_matched=inputs.nothing_matched,
    )


def regate_with_checks(
    result: AskResult,
    graph: StatuteGraph,
    *,
    checker: bool = True,
    auditor: bool = True,
    keep_acceptance: bool = False,
    context_of: Callable[[str], str] | None = None,
    thesaurus: Thesaurus,
) -> tuple[dict[str, bool], str, float]:
    """The categorical gate's decision for a saved run with its checks switched off (ablations).

    A claim is released when the question is not blocked by a false premise (no part of it is free
    of one) and (with ``checker``) every citation verified and (with ``auditor``) the auditor's
    verdict is SUPPORT; the status, coverage, answered parts and withheld qualifiers come from the
    gate's own :func:`~labourcrew.gate.trust_gate.settle` over the question read by
    :func:`~labourcrew.gate.trust_gate.gate_inputs` -- one rule with the board and :func:`regate`.

    Args:
        result: the saved run.
        graph: the StatuteGraph (coverage context).
        checker: require verified citations.
        auditor: require a SUPPORT verdict.
        keep_acceptance: keep the run's own released claims and only recompute coverage and status
            (chunking ablations, whose chunk ids the gate cannot look up in the graph).
        context_of: node id -> section text for the coverage check (default: the graph's).
        thesaurus: the settings' thesaurus (``relevance.thesaurus_path``), as the board reads it.

    Returns:
        ``(claim id -> released, status value, coverage share)``.
    """
    inputs = _inputs(result, graph, thesaurus)
    blocked = premise_blocks(inputs.parts, inputs.premise_errors)
    accepted: dict[str, bool] = {}
    for c in result.claims:
        ok = c.accepted if keep_acceptance else not blocked
        if not keep_acceptance and checker:
            ok = ok and all(e.verified for e in c.evidence)
        if not keep_acceptance and auditor:
            ok = ok and c.verdict == Verdict.SUPPORT
        accepted[c.claim_id] = ok
    released = [c for c in result.claims if accepted[c.claim_id]]
    # A switched-off checker releases unverified quotes: they count as verified for the status.
    shown = [c.model_copy(update={"evidence": [e.model_copy(update={"verified": True}) for e in c.evidence]})
             for c in released]
    status, _, cov, _, _, _ = settle(
        shown, _ledger_claims(result, keep=[c.claim_id for c in released]),
        role_status=_role_status(result),
        primary=inputs.primary, context_of=context_of or graph.section_context, parts=inputs.parts,
        premise_errors=inputs.premise_errors, qualifiers_of=inputs.qualifiers_of,
    )
    return accepted, status.value, cov.share


def status_changes(results: Iterable[AskResult], before: CalibrationRecord, after: CalibrationRecord,
                   graph: StatuteGraph, *, thesaurus: Thesaurus) -> list[StatusChange]:
    """Before/after status of every saved run (runs answered in categorical mode never change);
    ``thesaurus`` is the settings' (:func:`regate`).
    """
    out = []
    for r in results:
        b = regate(r, before, graph, thesaurus=thesaurus)
        a = regate(r, after, graph, thesaurus=thesaurus)
        out.append(StatusChange(run_id=r.run_id, created=r.created, question=r.question, saved_status=r.status.value,
                                before=b.status.value, after=a.status.value, released_before=len(b.accepted_ids),
                                released_after=len(a.accepted_ids)))
    return out


def propose(results: Sequence[AskResult], labels: Sequence[Label], *, alpha: float, labels_sha256: str,
            calibration_set: Sequence[CalibrationSetRow] = (), method: str = "ltt", delta: float = 0.10,
            system: SystemFingerprint | None = None) -> Proposal:
    """τ at ``alpha`` (and ``delta`` for LTT) on the labelled claims of ``results`` and ``calibration_set``.

    ``calibration_set`` (:func:`load_calibration_set`, or an ``eval --export-claims`` file) adds
    claims whose runs are not saved; their labels come from ``labels`` by content key, resolved by
    :func:`~labourcrew.gate.labels.resolve_labels`. Fails closed to τ = ∞ when no τ qualifies.

    Raises:
        InputError: alpha/delta outside (0, 1), unknown method.
    """
    data = calibration_questions(results, labels)
    if calibration_set:
        data = _with_set(data, labels, calibration_set, results)
    record = calibrate_method(method, data.questions, alpha, delta, labels_sha256=labels_sha256, system=system)
    in_set = {row.run_id for row in calibration_set}
    return Proposal(record=record, data=data, n_from_set=sum(1 for rid in data.run_ids if rid in in_set))


def _stamp(created: str) -> str:
    digits = re.sub(r"[^0-9T]", "", created.split("+")[0].split(".")[0])
    return (digits or "unknown") + "Z"


def _free(path: Path) -> Path:
    if not path.exists():
        return path
    for i in itertools.count(1):
        cand = path.with_name(f"{path.stem}-{i}{path.suffix}")
        if not cand.exists():
            return cand
    raise AssertionError("unreachable")


def record_digest(path: Path) -> str:
    """sha256 (first 16 hex) of a record file's bytes, or ``"none"`` when it does not exist."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return "none"


def _same_bytes(a: Path, b: Path) -> bool:
    try:
        return a.read_bytes() == b.read_bytes()
    except OSError:
        return False


def save_new_record(record: CalibrationRecord, current: Path) -> tuple[Path, Path | None]:
    """Write ``record`` as the current calibration, keeping every earlier record.

    Steps: (1) if ``current`` exists and no timestamped copy of it exists yet, copy it to
    ``<stem>.<its created stamp>.json``; (2) write ``record`` to ``<stem>.<stamp>.json``;
    (3) write it atomically to ``current`` (what the Trust Gate loads).

    Returns:
        ``(timestamped path of the new record, archived path of the previous one or None)``.
    """
    current = Path(current)
    current.parent.mkdir(parents=True, exist_ok=True)
    archived: Path | None = None
    if current.is_file():
        try:
            old_created = CalibrationRecord.load(current).created
        except DataError:
            old_created = "unreadable"
        siblings = [p for p in current.parent.glob(f"{current.stem}.*{current.suffix}")]
        if not any(_same_bytes(p, current) for p in siblings):
            archived = _free(current.with_name(f"{current.stem}.{_stamp(old_created)}{current.suffix}"))
            shutil.copy2(current, archived)
            logger.info("archived calibration record %s -> %s", current, archived)
    stamped = _free(current.with_name(f"{current.stem}.{_stamp(record.created)}{current.suffix}"))
    record.save(stamped)
    record.save(current)
    return stamped, archived


def history(current: Path) -> list[tuple[Path, CalibrationRecord]]:
    """Every readable record next to ``current`` (the current one and timestamped ones), newest first."""
    current = Path(current)
    out = []
    paths = [current] + sorted(current.parent.glob(f"{current.stem}.*{current.suffix}"), reverse=True)
    for p in paths:
        if p.is_file():
            try:
                out.append((p, CalibrationRecord.load(p)))
            except DataError as exc:
                logger.warning("skipping unreadable calibration record %s: %s", p, exc)
    return out


def legacy_key_map(rows: Sequence[CalibrationSetRow]) -> dict[str, str]:
    """``"<run_id>:<claim_id>"`` -> content key, from calibration-set (or exported-claims) rows."""
    return {(row.key or f"{row.run_id}:{row.claim_id}"): row.content_key for row in rows}


def import_labels(store: Any, path: Path, rows: Sequence[CalibrationSetRow], *, annotator: str | None = None,
                  created: str | None = None) -> tuple[int, list[str]]:
    """Import a JSONL of labels keyed by legacy or content keys into ``store``, under content keys.

    Each line needs ``label`` and a key (``claim_id`` or ``key``); ``annotator`` (the argument
    wins over the line's), ``rationale``, ``note``, ``run_id``, ``created`` are read when present.

    Returns:
        ``(labels written, keys that matched no claim of rows)``.

    Raises:
        DataError: an unreadable line, or conflicting labels for one content key.
    """
    from datetime import UTC, datetime

    from labourcrew.gate.labels import rekey

    stamp = created or datetime.fromtimestamp(Path(path).stat().st_mtime, UTC).isoformat(timespec="seconds")
    raw: list[Label] = []
    for no, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            key = d.get("claim_id") or d["key"]
            raw.append(Label(claim_id=key, run_id=d.get("run_id") or key.partition(":")[0],
                             annotator=annotator or d["annotator"], label=d["label"], note=d.get("note", ""),
                             rationale=d.get("rationale", ""), created=d.get("created") or stamp))
        except (ValueError, KeyError, TypeError) as exc:
            raise DataError(f"{path}:{no}: not a label line: {exc}") from exc
    labels, missing = rekey(raw, legacy_key_map(rows))
    for lab in labels:
        store.add(lab.claim_id, lab.annotator, lab.label, run_id=lab.run_id, note=lab.note,
                  rationale=lab.rationale, created=lab.created)
    return len(labels), missing


def load_label_file(path: Path) -> tuple[list[Label], str]:
    """Labels from a label-store export (``.jsonl``) or a store (``.sqlite``), and their sha256.

    The hash is :meth:`~labourcrew.gate.labels.LabelStore.labels_sha256` of the labels (the
    canonical export), whichever form they came in.

    Raises:
        DataError: the file is missing or a line is not a label.
    """
    import tempfile

    from labourcrew.gate.labels import LabelStore

    path = Path(path)
    if not path.is_file():
        raise DataError(f"no label file at {path}")
    if path.suffix == ".sqlite":
        store = LabelStore(path)
        return store.list(), store.labels_sha256()
    with tempfile.TemporaryDirectory() as tmp:
        store = LabelStore(Path(tmp) / "labels.sqlite")
        store.import_jsonl(path)
        out = store.list(), store.labels_sha256()
        store.close()
    return out


def claims_system(rows: Sequence[CalibrationSetRow]) -> SystemFingerprint | None:
    """The one system the claims of ``rows`` were exported from; None when they do not say.

    Raises:
        DataError: the rows name different systems (calibrate each system on its own claims).
    """
    systems = {r.system.model_dump_json() for r in rows if r.system is not None}
    if len(systems) > 1:
        raise DataError(f"the claims come from {len(systems)} different systems; calibrate each on its own claims",
                        help_message="Export claims of one backend/model/settings per file (eval --export-claims).")
    return SystemFingerprint.model_validate_json(systems.pop()) if systems else None


def fit_from_files(claims: Path, labels: Path, *, method: str, alpha: float, delta: float,
                   system: SystemFingerprint) -> Proposal:
    """The calibration record recomputed from an exported-claims file and a label file (no runs needed).

    ``system`` is used when the claims do not carry their own (files exported before issue 11).

    Raises:
        DataError: unreadable files, claims of several systems. InputError: bad alpha/delta/method.
    """
    rows = load_calibration_set(Path(claims))
    if not rows:
        raise DataError(f"no claims in {claims}", help_message="Export them: eval --config full --export-claims FILE.")
    labs, sha = load_label_file(Path(labels))
    return propose([], labs, alpha=alpha, labels_sha256=sha, calibration_set=rows, method=method, delta=delta,
                   system=claims_system(rows) or system)


def restore_record(earlier: Path, current: Path) -> Path | None:
    """Make an earlier (timestamped) record the current one again -- the rollback.

    The current record is archived first (as :func:`save_new_record` does), then ``earlier``'s
    bytes are written atomically to ``current``; nothing is deleted.

    Returns:
        The archived path of the record that was current, or None when it already had a copy.

    Raises:
        DataError: ``earlier`` is not a readable calibration record.
    """
    from labourcrew.fileio import write_text_atomic

    earlier, current = Path(earlier), Path(current)
    CalibrationRecord.load(earlier)  # refuse to restore something the gate could not read
    archived: Path | None = None
    if current.is_file():
        siblings = [p for p in current.parent.glob(f"{current.stem}.*{current.suffix}")]
        if not any(_same_bytes(p, current) for p in siblings):
            try:
                stamp = _stamp(CalibrationRecord.load(current).created)
            except DataError:
                stamp = "unreadable"
            archived = _free(current.with_name(f"{current.stem}.{stamp}{current.suffix}"))
            shutil.copy2(current, archived)
    write_text_atomic(current, earlier.read_text(encoding="utf-8"))
    logger.info("restored calibration record %s -> %s", earlier, current)
    return archived
