"""Annotation label store for Trust Gate calibration (paper §3.6, appendix B.5), in SQLite.

One row per (claim, annotator)::

    labels(claim_id, run_id, annotator, label, note, rationale, created)
    UNIQUE(claim_id, annotator)     -- a second label by the same annotator replaces the first
    label IN ('faithful', 'unfaithful', 'unsure')

The database runs in WAL mode with a busy timeout, and every write is its own ``BEGIN IMMEDIATE``
transaction, so several processes (e.g. two annotators' Streamlit sessions) can write at once
without losing or tearing rows. Each thread (and process) uses its own connection, so a
:class:`LabelStore` can be shared between threads and pickled to other processes.

:meth:`LabelStore.labels_sha256` hashes the canonical export (rows sorted by claim id, then
annotator; keys sorted), which is what a calibration record stores to say which labels it used.
"""

from __future__ import annotations

import builtins
import csv
import hashlib
import io
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import DataError, InputError
from labourcrew.fileio import write_text_atomic
from labourcrew.statute.normalize import normalize

__all__ = ["LABELS", "LabelValue", "Label", "LabelStore", "cohens_kappa", "KEY_SCHEME", "content_key",
           "ADJUDICATOR", "is_adjudicator", "Resolution", "resolve_labels", "rekey"]

logger = logging.getLogger(__name__)

LabelValue = Literal["faithful", "unfaithful", "unsure"]
LABELS: tuple[str, ...] = get_args(LabelValue)
_FIELDS = ("claim_id", "run_id", "annotator", "label", "note", "rationale", "created")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS labels (
    claim_id  TEXT NOT NULL,
    run_id    TEXT NOT NULL DEFAULT '',
    annotator TEXT NOT NULL,
    label     TEXT NOT NULL CHECK (label IN ('faithful', 'unfaithful', 'unsure')),
    note      TEXT NOT NULL DEFAULT '',
    rationale TEXT NOT NULL DEFAULT '',
    created   TEXT NOT NULL,
    UNIQUE (claim_id, annotator)
)
"""
_UPSERT = """
INSERT INTO labels (claim_id, run_id, annotator, label, note, rationale, created)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (claim_id, annotator) DO UPDATE SET
    run_id = excluded.run_id, label = excluded.label, note = excluded.note,
    rationale = excluded.rationale, created = excluded.created
"""


KEY_SCHEME = "ck1"
"""Version of the content-key recipe (prefix of every key, so a later recipe never collides)."""


def content_key(statute_version: str, question: str, citations: Sequence[tuple[str, str]]) -> str:
    """The label key of a claim: a hash of *what was judged*, not of the run that produced it.

    ``"ck1:" + sha256(JSON [statute_version, normalize(question), sorted (node_id, normalize(span))])``.

    What is in it, and why: a label says whether the quoted statute text, cut where it is cut, bears
    on this question in this version of the Act (``data/calibration/README.md``, protocol). So the
    key holds the version, the question (normalised: Unicode NFC, Bangla spelling variants, case
    and whitespace, :func:`labourcrew.statute.normalize.normalize`) and every cited unit with its
    normalised span, as a sorted list (citation order does not change the judgement). The run id,
    claim id, trust score and side are *not* in it: a re-run, a new relevance model or a new
    scoring rule that produces the same quote for the same question finds the same label. The
    side and the framing text ("আইনের শর্ত বা ব্যতিক্রম: «…»") are left out because the protocol
    does not depend on them, and the data agree: in the 335 labelled claims 78 pairs of claims from
    different sides cite the same spans for the same question, and every pair has the same label.
    (A generated-prose backend whose wording could go beyond its quotes would need its normalised
    text in the key: a new :data:`KEY_SCHEME`.)

    Args:
        statute_version: e.g. ``"2025"``.
        question: the question as asked.
        citations: ``(node_id, span)`` pairs.

    Raises:
        InputError: no citation, or an empty question.
    """
    if not question or not question.strip():
        raise InputError("cannot key a claim without its question")
    cits = sorted({(str(n), normalize(str(sp))) for n, sp in citations})
    if not cits:
        raise InputError("cannot key a claim without citations")
    blob = json.dumps([statute_version, normalize(question), [list(c) for c in cits]],
                      ensure_ascii=False, separators=(",", ":"))
    return f"{KEY_SCHEME}:{hashlib.sha256(blob.encode('utf-8')).hexdigest()[:32]}"


ADJUDICATOR = "adjudicator-ai"
"""Annotator name of the adjudication pass (any name starting with ``adjudicator`` adjudicates)."""


def is_adjudicator(annotator: str) -> bool:
    """Whether ``annotator``'s labels are adjudications (names starting with ``adjudicator``)."""
    return annotator.startswith("adjudicator")


class Resolution(BaseModel):
    """The label calibration and evaluation use for one claim key, and where it came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: LabelValue = Field(description="The resolved label ('unsure': left out of calibration).")
    source: Literal["adjudicated", "agreed", "single", "disputed", "unsure"] = Field(
        description="adjudicated: an adjudicator's label; agreed: >= 2 annotators, same label; single: one "
                    "annotator; disputed: annotators disagree and nobody adjudicated (counted unfaithful); "
                    "unsure: only 'unsure' labels."
    )
    annotators: tuple[str, ...] = Field(description="Annotators (not adjudicators) with a label on the key.")

    @property
    def faithful(self) -> bool | None:
        """True/False for a binary resolution, None for 'unsure'."""
        return None if self.label == "unsure" else self.label == "faithful"


def resolve_labels(labels: Iterable[Label]) -> dict[str, Resolution]:
    """The one label-resolution policy, used by calibration *and* evaluation (README, "Label policy").

    Per claim key: (1) an adjudicator's faithful/unfaithful label wins; else (2) if every annotator's
    faithful/unfaithful label is the same, that label (``agreed`` with two or more annotators,
    ``single`` with one); else (3) the annotators disagree and nobody adjudicated: **unfaithful**
    (conservative) with source ``disputed`` -- the Annotate page's disagreement queue lists them;
    (4) only 'unsure' labels: 'unsure' (left out of calibration).
    """
    by_key: dict[str, list[Label]] = {}
    for lab in labels:
        by_key.setdefault(lab.claim_id, []).append(lab)
    out: dict[str, Resolution] = {}
    for key, labs in by_key.items():
        people = tuple(sorted({lab.annotator for lab in labs if not is_adjudicator(lab.annotator)}))
        adjudicated = [lab.label for lab in labs if is_adjudicator(lab.annotator) and lab.label != "unsure"]
        binary = {lab.label for lab in labs if not is_adjudicator(lab.annotator) and lab.label != "unsure"}
        if adjudicated:
            out[key] = Resolution(label=adjudicated[-1], source="adjudicated", annotators=people)  # type: ignore[arg-type]
        elif len(binary) == 1:
            n_bin = len({lab.annotator for lab in labs if not is_adjudicator(lab.annotator) and lab.label != "unsure"})
            out[key] = Resolution(label=binary.pop(), source="agreed" if n_bin >= 2 else "single",  # type: ignore[arg-type]
                                  annotators=people)
        elif binary:
            out[key] = Resolution(label="unfaithful", source="disputed", annotators=people)
        else:
            out[key] = Resolution(label="unsure", source="unsure", annotators=people)
    return out


def rekey(labels: Iterable[Label], mapping: dict[str, str]) -> tuple[list[Label], list[str]]:
    """Move labels to new keys (the issue-11 migration from ``"<run_id>:<claim_id>"`` to content keys).

    Several old keys may map to one new key (two sides quoting the same span for one question);
    their labels by one annotator must agree, and the first (by old key) is kept.

    Returns:
        ``(labels under the new keys, old keys that are not in mapping)``; a label already keyed
        by a value of ``mapping`` is kept as it is.

    Raises:
        DataError: one annotator gave different labels to claims that now share a key.
    """
    new_keys = set(mapping.values())
    out: dict[tuple[str, str], Label] = {}
    missing: list[str] = []
    for lab in sorted(labels, key=lambda x: (x.claim_id, x.annotator)):
        key = mapping.get(lab.claim_id) or (lab.claim_id if lab.claim_id in new_keys else None)
        if key is None:
            missing.append(lab.claim_id)
            continue
        prev = out.get((key, lab.annotator))
        if prev is not None:
            if prev.label != lab.label:
                raise DataError(f"{lab.annotator} labelled {prev.note or prev.run_id} {prev.label!r} and "
                                f"{lab.claim_id} {lab.label!r}, which share content key {key}")
            continue
        out[(key, lab.annotator)] = lab.model_copy(update={"claim_id": key})
    return list(out.values()), missing


class Label(BaseModel):
    """One annotation: a person's judgement of one claim's faithfulness to its evidence."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    claim_id: str = Field(min_length=1, description="The labelled claim.")
    run_id: str = Field(default="", description="Run (saved ledger) the claim comes from.")
    annotator: str = Field(min_length=1, description="Who labelled it.")
    label: LabelValue = Field(description="faithful / unfaithful / unsure.")
    note: str = Field(default="", description="Short free-text note.")
    rationale: str = Field(default="", description="Why the annotator chose this label.")
    created: str = Field(description="When the label was (last) written, ISO 8601 UTC.")


class LabelStore:
    """SQLite-backed label store.

    Args:
        path: database file (created with its folder if missing).
        timeout_s: how long a writer waits for a lock before failing (busy timeout).

    Raises:
        DataError: the file exists but is not a usable SQLite database.
    """

    def __init__(self, path: str | Path, *, timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self.timeout_s = timeout_s
        self._local = threading.local()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self._connect() as conn:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            self.close()
            raise DataError(f"label store {self.path} is not a usable SQLite database: {exc}") from exc

    def __repr__(self) -> str:
        return f"LabelStore({str(self.path)!r})"

    def __getstate__(self) -> dict:
        return {"path": self.path, "timeout_s": self.timeout_s}

    def __setstate__(self, state: dict) -> None:
        self.path, self.timeout_s = state["path"], state["timeout_s"]
        self._local = threading.local()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        # One connection per (process, thread), kept open: closing the last connection of a WAL
        # database checkpoints and syncs it, which would cost ~10 ms per write.
        conn = getattr(self._local, "conn", None)
        if conn is None or getattr(self._local, "pid", None) != os.getpid():
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, one transaction per write.
            conn = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout={int(self.timeout_s * 1000)}")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn, self._local.pid = conn, os.getpid()
        yield conn

    def close(self) -> None:
        """Close this thread's connection (a later call reopens it)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # ------------------------------------------------------------ writes

    def add(
        self,
        claim_id: str,
        annotator: str,
        label: str,
        *,
        run_id: str = "",
        note: str = "",
        rationale: str = "",
        created: str | None = None,
    ) -> Label:
        """Insert or replace the label of ``claim_id`` by ``annotator`` (one atomic transaction).

        Returns:
            The stored :class:`Label`.

        Raises:
            InputError: label not one of faithful/unfaithful/unsure, or empty claim id/annotator.
        """
        if label not in LABELS:
            raise InputError(
                f"label must be one of {', '.join(LABELS)}, got {label!r}",
                help_message="Choose faithful, unfaithful or unsure.",
            )
        if not isinstance(claim_id, str) or not claim_id.strip():
            raise InputError("claim_id must be a non-empty string")
        if not isinstance(annotator, str) or not annotator.strip():
            raise InputError("annotator must be a non-empty string")
        row = Label(
            claim_id=claim_id,
            run_id=run_id,
            annotator=annotator,
            label=label,  # type: ignore[arg-type]
            note=note,
            rationale=rationale,
            created=created or datetime.now(UTC).isoformat(timespec="microseconds"),
        )
        self._write(_UPSERT, tuple(getattr(row, f) for f in _FIELDS))
        return row

    def restore(self, claim_id: str, annotator: str, previous: Label | None) -> None:
        """Undo one :meth:`add`: put ``previous`` back (the label it replaced), or delete the label of
        ``claim_id`` by ``annotator`` when there was none (one atomic transaction).
        """
        if previous is None:
            self._write("DELETE FROM labels WHERE claim_id = ? AND annotator = ?", (claim_id, annotator))
        else:
            self._write(_UPSERT, tuple(getattr(previous, f) for f in _FIELDS))

    def _write(self, sql: str, args: tuple) -> None:
        """One statement in its own ``BEGIN IMMEDIATE`` transaction (rolled back on any error)."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(sql, args)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def import_jsonl(self, path: str | Path) -> int:
        """Load labels exported by :meth:`export_jsonl` (created times kept, so the hash is reproduced).

        Returns:
            Number of labels written.

        Raises:
            DataError: a line is not a valid label.
        """
        n = 0
        for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                lab = Label.model_validate_json(line)
            except ValueError as exc:
                raise DataError(f"{path}:{lineno}: not a label: {exc}") from exc
            self.add(lab.claim_id, lab.annotator, lab.label, run_id=lab.run_id, note=lab.note,
                     rationale=lab.rationale, created=lab.created)
            n += 1
        return n

    # ------------------------------------------------------------ reads

    def get(self, claim_id: str, annotator: str) -> Label | None:
        """The label of ``claim_id`` by ``annotator``, or None."""
        rows = self._select("WHERE claim_id = ? AND annotator = ?", (claim_id, annotator))
        return rows[0] if rows else None

    def list(
        self,
        *,
        claim_id: str | None = None,
        run_id: str | None = None,
        annotator: str | None = None,
    ) -> builtins.list[Label]:
        """Labels matching the given filters, sorted by (claim_id, annotator)."""
        where: builtins.list[str] = []
        args: builtins.list[str] = []
        for col, value in (("claim_id", claim_id), ("run_id", run_id), ("annotator", annotator)):
            if value is not None:
                where.append(f"{col} = ?")
                args.append(value)
        return self._select(("WHERE " + " AND ".join(where)) if where else "", tuple(args))

    def __len__(self) -> int:
        with self._connect() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM labels").fetchone()[0])

    def _select(self, where: str, args: tuple) -> builtins.list[Label]:
        sql = f"SELECT {', '.join(_FIELDS)} FROM labels {where} ORDER BY claim_id, annotator"
        with self._connect() as conn:
            rows = conn.execute(sql, args).fetchall()
        return [Label(**dict(zip(_FIELDS, r, strict=True))) for r in rows]

    # ------------------------------------------------------------ exports

    def _jsonl(self) -> str:
        return "".join(
            json.dumps(lab.model_dump(), sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
            for lab in self.list()
        )

    def export_jsonl(self, path: str | Path) -> Path:
        """Write every label as one JSON object per line (canonical order and keys)."""
        return write_text_atomic(path, self._jsonl())

    def export_csv(self, path: str | Path) -> Path:
        """Write every label as CSV with a header row (canonical order)."""
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(_FIELDS), lineterminator="\n")
        writer.writeheader()
        for lab in self.list():
            writer.writerow(lab.model_dump())
        return write_text_atomic(path, buf.getvalue())

    def labels_sha256(self) -> str:
        """sha256 (hex) of the canonical JSONL export (what :meth:`export_jsonl` writes)."""
        return hashlib.sha256(self._jsonl().encode("utf-8")).hexdigest()

    # ------------------------------------------------------------ agreement

    def cohens_kappa(self, annotators: tuple[str, str] | None = None) -> float:
        """Cohen's κ between two annotators over claims both labelled faithful/unfaithful.

        Args:
            annotators: the pair to compare; default the only two annotators with binary labels.

        Returns:
            κ in [-1, 1]; 1.0 when both gave the same single label to every shared claim.

        Raises:
            InputError: no pair can be chosen, or the two share no binary-labelled claim.
        """
        binary = [lab for lab in self.list() if lab.label != "unsure"]
        if annotators is None:
            names = sorted({lab.annotator for lab in binary})
            if len(names) != 2:
                raise InputError(
                    f"cohens_kappa needs exactly two annotators, found {len(names)}: {names}; "
                    "pass annotators=(a, b)"
                )
            annotators = (names[0], names[1])
        a, b = annotators
        by_a = {lab.claim_id: lab.label for lab in binary if lab.annotator == a}
        by_b = {lab.claim_id: lab.label for lab in binary if lab.annotator == b}
        shared = sorted(by_a.keys() & by_b.keys())
        if not shared:
            raise InputError(f"annotators {a!r} and {b!r} share no faithful/unfaithful labels")
        return cohens_kappa([by_a[c] for c in shared], [by_b[c] for c in shared])


def cohens_kappa(first: Sequence[str], second: Sequence[str]) -> float:
    """Cohen's κ of two equally long label sequences (any label alphabet).

    ``κ = (p_o - p_e) / (1 - p_e)``; when ``p_e == 1`` (both constant and equal) κ is 1.0.

    Raises:
        InputError: the sequences are empty or of different length.
    """
    if len(first) != len(second) or not first:
        raise InputError("cohens_kappa needs two non-empty label lists of equal length")
    n = len(first)
    p_o = sum(x == y for x, y in zip(first, second, strict=True)) / n
    cats = set(first) | set(second)
    p_e = sum((list(first).count(c) / n) * (list(second).count(c) / n) for c in cats)
    if p_e >= 1.0:
        return 1.0
    return (p_o - p_e) / (1.0 - p_e)
