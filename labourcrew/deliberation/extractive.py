"""The ``offline`` backend: deterministic, extractive language roles (the embedded default).

No Bangla-capable instruction model can be installed here, so every language role of the board
(:class:`~labourcrew.ledger.roles.RoleBackend`) has a deterministic extractive implementation that
**never writes law of its own**: every claim is a verbatim clause-level span of a unit on the
Evidence Pack with a short, fixed Bangla frame (``আইন অনুযায়ী: «…» (ধারা ২৭(১))``).

Roles (paper §3.3-§3.5):

* **Issue Spotter** -- the rule-based spotter (:func:`labourcrew.retrieval.issue_spotter.spot_issues`).
* **Worker Counsel** -- spans relevant to the question that state duties owed and entitlements
  (cues :data:`WORKER_CUES`: ``করিতে হইবে``, ``পাইবেন``, ``অধিকারী হইবেন`` ...).
* **Employer Counsel** -- spans that defeat or qualify them: provisos and exception cues
  (:data:`EMPLOYER_CUES`: ``ব্যতীত``, ``প্রযোজ্য হইবে না``, ``তবে``, ``যদি না``, ``সাপেক্ষে`` ...).
  In the rebuttal round (``round >= 1``) each side may challenge one claim of the other, from the
  same section.
* **Legal Interpreter** -- the top-ranked governing-rule span (preferring units cited in earlier
  rounds; it runs beside the counsels).
* **Trust Auditor** -- span verification plus the typed skeptic checks of
  :mod:`labourcrew.audit.skeptic` -> SUPPORT / NEI / REFUTE. It asks for no evidence of its own:
  the Supervisor's evidence-gap check (:func:`labourcrew.board.supervisor.evidence_gap`) already
  fetches a cited unit's provisos and cross-references before the audits.

Every quote of a rule carries what qualifies it (issue 10, item 4b): the
provisos and explanations of the quoted unit and of its ancestors up to its section, and the
sub-sections that carve it out (:meth:`StatuteGraph.qualifiers`), that are on the Evidence Pack and
that the learned model rates at least the quoting floor (the best-rated
:attr:`OfflineTuning.max_qualifiers`, in the Act's order: ``ধারা ১০২(২) … তবে শর্ত থাকে যে, … ষাট
ঘণ্টার অধিক হইবে না``); a clause keeps its parent's lead-in; a sentence that points back (``তবে এইরূপ
ক্ষেত্রে …``) is never quoted without the sentence it points to (:func:`clause_spans`). A lead-in is *not*
completed with a sub-unit of the model's choosing: its sub-units are alternatives (117(1)'s rates per
kind of establishment), and the model tells them apart too poorly -- it completed the factory-rate
question with the newspaper rate -- so a lead-in stays incomplete (and the conditions check audits a
conditional one NEI) rather than specific and wrong.

Relevance (the **relevance floor**). The question's content words (after :func:`normalize`, its
function words and section references removed) are weighted by IDF over the units of the statute
version; words the Act never uses weigh as much as its rarest word. The Issue Spotter's concepts
split into *specific* ones (maternity, gratuity ...) and *generic* ones (wages, leave ...): the
Act's wording of a generic concept is added to the question's words. A pack unit (its context:
section title, ancestors' lead text, unit text; inflections matched by shared prefix) is relevant
when it belongs to a section the question names, or it contains at least
:attr:`OfflineTuning.concept_floor` of a specific concept's Act wording, or it matches
:attr:`OfflineTuning.full_floor` of the IDF mass of all content words, or -- for a question with
a specific concept -- :attr:`OfflineTuning.known_floor` of the mass of the words the Act knows.
Unknown topic words (``ক্রিকেট``, ``রিটার্ন``) therefore keep a question about something the Act does
not regulate below the floor. When no unit clears it the counsels propose nothing and the run is
released UNDECIDED; a question naming a section the version does not have gets no claims either.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel

from labourcrew.audit.skeptic import (
    exception_cues_in,
    skeptic_report,
    strip_section_refs,
)
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.records import Claim, EvidenceItem, Side, Verdict
from labourcrew.ledger.roles import (
    AuditBatchInput,
    AuditBatchOutput,
    AuditInput,
    AuditOutput,
    AuditVerdict,
    CallUsage,
    CounselInput,
    CounselOutput,
    InterpreterInput,
    InterpreterOutput,
    ProposedCitation,
    ProposedClaim,
)
from labourcrew.retrieval.lexical import QUESTION_STOPWORDS, words_of
from labourcrew.settings import OfflineTuning
from labourcrew.statute.ids import citation_label_bn, within_any
from labourcrew.statute.model import Level
from labourcrew.statute.normalize import normalize
from labourcrew.statute.parse_bn import BN_CONSONANTS

__all__ = [
    "OFFLINE_BACKEND_NAME",
    "WORKER_CUES",
    "EMPLOYER_CUES",

    "OfflineBackend",
    "Span",
    "clause_spans",
    "frame_claim",
]

logger = logging.getLogger(__name__)

OFFLINE_BACKEND_NAME = "offline-extractive"

WORKER_CUES: tuple[str, ...] = tuple(
    normalize(c)
    for c in (
        "করিতে হইবে", "পাইবেন", "পাইবে", "অধিকারী হইবেন", "অধিকারী হইবে", "প্রদান করিবেন", "প্রদান করিবে",
        "পারিবেন", "বাধ্য থাকিবেন", "বাধ্য থাকিবে", "পরিশোধ করিতে হইবে", "প্রদেয় হইবে", "অধিকারী",
    )
)
EMPLOYER_CUES: tuple[str, ...] = tuple(
    normalize(c)
    for c in (
        "ব্যতীত", "প্রযোজ্য হইবে না", "তবে", "যদি না", "সাপেক্ষে", "শর্ত থাকে যে", "ব্যতিরেকে", "পারিবেন না",
        "পাইবেন না", "হইবেন না", "বাধ্য থাকিবেন না",
    )
)


_MARKER = re.compile(
    rf"^\s*\[?\s*(?:\(\s*(?:[০-৯0-9]+\s*-?\s*[{BN_CONSONANTS}A-Za-z]?|[{BN_CONSONANTS}]{{1,3}}|[a-z]{{1,3}})\s*\)\s*)+"
)
_SENT = re.compile(r"[৷।]")
# A sentence or clause that opens by pointing back ("তবে এইরূপ ক্ষেত্রে …", "এবং উক্তরূপ …", "সে
# ক্ষেত্রে …") cannot stand alone: quoted without what it points to it misstates the rule (labelling
# protocol: a detached second sentence is unfaithful), so it stays joined to the piece before it.
_BACK_REFERENCE = re.compile(
    r"^(?:(?:তবে|এবং|অথবা|কিন্তু)\s*,?\s*)?"
    r"(?:এইরূপ|এরূপ|উক্তরূপ|উক্ত|ঐরূপ|ঐ|সেইরূপ|সেই|সে|এক্ষেত্রে|উহা|উহাতে|ইহা|তাহাতেও|তাহা|অনুরূপ)"
    r"(?![\u0980-\u09ff])"
)
_CLAUSE = re.compile(r";")
_TRIM = " \t\n,;:ঃ-–—[]"
_UNIT_LEVELS = {Level.SUBSECTION, Level.CLAUSE, Level.ITEM, Level.PROVISO, Level.EXPLANATION,
                Level.PARAGRAPH, Level.SECTION}


@dataclass(frozen=True, slots=True)
class Span:
    """A candidate clause span of a pack unit, with its scores."""

    node_id: str
    text: str  # verbatim substring of the unit text
    unit_rel: float
    span_rel: float
    word_rel: float  # IDF share of all the question's content words the unit matches
    prior: float
    worker_cue: bool
    employer_cue: bool
    is_proviso: bool
    rank: int  # position of the unit on the pack

    def score(self, tuning: OfflineTuning, side: Side | None) -> float:
        cue = 0.0
        if side == Side.WORKER and self.worker_cue and not self.employer_cue:
            cue = 1.0
        elif side == Side.EMPLOYER and (self.employer_cue or self.is_proviso):
            cue = 1.0
        return (
            tuning.w_relevance_unit * self.unit_rel
            + tuning.w_relevance_span * self.span_rel
            + tuning.w_prior * self.prior
            + tuning.w_cue * cue
        )


# ---------------------------------------------------------------- pure helpers


def clause_spans(text: str, min_chars: int = 16) -> list[str]:
    """Verbatim clause-level spans of a unit text.

    The leading label (``(১)``, ``(ক)``, ``[``) is dropped; the text is cut at the dari into
    sentences and a sentence at ``;`` into clauses -- unless the sentence carries an exception cue,
    which then stays whole so no carve-out is separated from its rule. A piece that opens with a
    back-reference (``তবে এইরূপ ক্ষেত্রে``, ``এবং উক্তরূপ``, ``সে ক্ষেত্রে``) is joined to the piece
    before it, so no quote begins by pointing at text it leaves out.

    Returns:
        Substrings of ``text`` (in order, whitespace-trimmed) with at least ``min_chars``
        normalised characters.
    """
    m = _MARKER.match(text)
    body_start = m.end() if m else 0
    out: list[str] = []
    pos = body_start
    pieces: list[tuple[int, int]] = []
    for sm in _SENT.finditer(text, body_start):
        pieces.append((pos, sm.start()))
        pos = sm.end()
    pieces.append((pos, len(text)))
    pieces_out: list[tuple[int, int]] = []
    for a, z in pieces:
        sentence = text[a:z]
        parts = [(a, z)]
        if not exception_cues_in(sentence) and ";" in sentence:
            parts = []
            p = a
            for cm in _CLAUSE.finditer(text, a, z):
                parts.append((p, cm.start()))
                p = cm.end()
            parts.append((p, z))
        pieces_out.extend(parts)
    joined: list[tuple[int, int]] = []
    for pa, pz in pieces_out:
        if joined and _BACK_REFERENCE.match(normalize(text[pa:pz].strip(_TRIM))):
            joined[-1] = (joined[-1][0], pz)
        else:
            joined.append((pa, pz))
    for pa, pz in joined:
        piece = text[pa:pz].strip(_TRIM)
        if len(normalize(piece)) >= min_chars and piece in text:
            out.append(piece)
    return out


MAX_LIST_QUALIFIER = 4  # a qualifier quoted with its whole list only when the list is short


def _ends_with_lead_in(text: str) -> bool:
    """Whether a unit's text hands over to its sub-units (ends with ``-``, ``ঃ``, ``:`` or a dash)."""
    return text.rstrip(" ]").endswith(("-", "ঃ", ":", "—", "–"))


def _whole_quote(text: str) -> str:
    """The whole unit text as one verbatim quote: label marker and closing punctuation dropped."""
    m = _MARKER.match(text)
    return text[m.end() if m else 0:].strip(_TRIM + "৷। ")


_FRAMES = {
    Side.WORKER: "আইন অনুযায়ী",
    Side.EMPLOYER: "আইনের শর্ত বা ব্যতিক্রম",
    Side.INTERPRETER: "প্রযোজ্য বিধান",
}


def frame_claim(side: Side, quotes: Sequence[str], labels: Sequence[str]) -> str:
    """The claim text: a fixed side frame, the verbatim quote(s) and the Bangla citation(s).

    ``আইন অনুযায়ী: «কোন স্থায়ী শ্রমিক … পারিবেন» (ধারা ২৭(১))``. The frame adds no legal content.
    """
    quote = " … ".join(q.strip() for q in quotes)
    cites = "; ".join(dict.fromkeys(citation_label_bn(lb) for lb in labels))
    return f"{_FRAMES[side]}: «{quote}» ({cites})"


# ---------------------------------------------------------------- relevance model


def _has_cue(text_norm: str, cues: Sequence[str]) -> bool:
    """Whether a cue occurs in normalised text as whole words (``তবে`` is not a cue inside a word)."""
    return any(
        re.search(rf"(?<![\u0980-\u09ffa-z]){re.escape(c)}(?![\u0980-\u09ffa-z])", text_norm) for c in cues
    )


def _fuzzy_in(word: str, unit_words: frozenset[str]) -> bool:
    """``word`` or an inflection of it occurs among ``unit_words``.

    Bangla inflects by suffix (``তারিখ``/``তারিখে``, ``দেওয়া``/``দেওয়ার``): two words match when
    they share a prefix of all but the last one (words of up to 5 code points) or two code points
    of the question word, and neither is shorter than that prefix.
    """
    if word in unit_words:
        return True
    if len(word) < 4:
        return False
    need = len(word) - (1 if len(word) <= 5 else 2)
    stem = word[:need]
    return any(len(u) >= need and u.startswith(stem) for u in unit_words)


class _Vocab:
    """Word document frequencies over the units (title + text) of one statute version."""

    def __init__(self, texts: Sequence[str]):
        df: Counter[str] = Counter()
        for text in texts:
            df.update(set(words_of(text)))
        self.n = max(len(texts), 1)
        self.df = df
        self.cap = self.idf_of(1)  # unknown words weigh as much as the rarest known word

    def idf_of(self, df: int) -> float:
        return math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))

    def weight(self, word: str) -> float:
        df = self.df.get(word, 0)
        return self.cap if df == 0 else self.idf_of(df)


@dataclass(frozen=True, slots=True)
class _Query:
    words: dict[str, float]  # content word -> IDF weight (unknown words at the cap)
    known: frozenset[str]  # content words the Act uses
    concepts: tuple[tuple[str, ...], ...]  # words of each specific concept's Act wording
    named_sections: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Relevance:
    full: float  # IDF share of all content words matched
    known: float  # IDF share of the Act-known content words matched
    concept: float  # best share of a specific concept's Act wording matched
    exact: bool  # a unit of a section the question names

    def relevant(self, t: OfflineTuning, has_concepts: bool) -> bool:
        return (
            self.exact
            or self.concept >= t.concept_floor
            or self.full >= t.full_floor
            or (has_concepts and self.known >= t.known_floor)
        )

    def score(self) -> float:
        return 0.5 * self.known + 0.3 * self.concept + 0.2 * self.full


def _share(weights: dict[str, float], unit_words: frozenset[str], only: frozenset[str] | None = None) -> float:
    total = sum(w for t, w in weights.items() if only is None or t in only)
    if total <= 0:
        return 0.0
    hit = sum(w for t, w in weights.items() if (only is None or t in only) and _fuzzy_in(t, unit_words))
    return hit / total


# ---------------------------------------------------------------- the backend


class OfflineBackend:
    """Deterministic extractive implementation of :class:`~labourcrew.ledger.roles.RoleBackend`.

    Args:
        graph: the StatuteGraph (unit contexts for relevance, provisos for the auditor).
        tuning: relevance floors and weights.

    Thread-safe: the per-version IDF tables are built once under a lock; calls are pure otherwise.
    """

    name = OFFLINE_BACKEND_NAME

    def __init__(self, graph: StatuteGraph, tuning: OfflineTuning | None = None):
        self.graph = graph
        self.tuning = tuning or OfflineTuning()
        self._vocab: dict[str, _Vocab] = {}
        self._ctx_words: dict[str, frozenset[str]] = {}
        self._span_cache: dict[tuple, list[Span]] = {}
        self._lock = threading.Lock()

    # -- plumbing -----------------------------------------------------------------------------

    @property
    def prompt_hashes(self) -> dict[str, str]:
        """No prompts: the extractive engine quotes the Act instead of prompting a model."""
        return {}

    def _usage(self) -> CallUsage:
        return CallUsage(backend=self.name, llm_calls=0)

    def _vocab_for(self, version: str) -> _Vocab:
        with self._lock:
            table = self._vocab.get(version)
            if table is None:
                units = [u for u in self.graph.version_units(version) if u.text_norm]
                table = _Vocab([f"{u.title or ''} {u.text_norm}" for u in units])
                self._vocab[version] = table
            return table

    def _unit_words(self, node_id: str, fallback: str) -> frozenset[str]:
        """Words of a unit's context: section title, ancestors' lead text, unit text."""
        with self._lock:
            hit = self._ctx_words.get(node_id)
        if hit is not None:
            return hit
        unit = self.graph.units.get(node_id)
        text = self.graph.context_text(node_id) if unit is not None else fallback
        words = frozenset(words_of(text))
        with self._lock:
            self._ctx_words[node_id] = words
        return words

    @staticmethod
    def _version_of(items: Sequence[EvidenceItem]) -> str | None:
        for item in items:
            if ":" in item.node_id:
                return item.node_id.split(":", 1)[0]
        return None

    def _query(self, question: str, issues: Sequence[str], version: str) -> _Query:
        from labourcrew.retrieval.exact import section_labels
        from labourcrew.retrieval.issue_spotter import match_concepts

        vocab = self._vocab_for(version)
        words: dict[str, float] = {}
        for w in words_of(strip_section_refs(question)):
            if w in QUESTION_STOPWORDS or w.isdigit() or len(w) < 2:
                continue
            words[w] = vocab.weight(w)
        concepts = match_concepts(question)
        specific = tuple(
            tuple(w for w in words_of(c.act_terms) if w not in QUESTION_STOPWORDS)
            for c in concepts
            if not c.generic
        )
        # Generic concepts (wages, leave ...) only lend the Act's wording to the question's words.
        for c in concepts:
            if c.generic:
                for w in words_of(c.act_terms):
                    words.setdefault(w, vocab.weight(w))
        known = frozenset(w for w in words if vocab.df.get(w, 0) > 0)
        return _Query(words=words, known=known, concepts=specific, named_sections=tuple(section_labels(question)))

    def _relevance(self, q: _Query, unit_words: frozenset[str], exact: bool) -> _Relevance:
        concept = max(
            (sum(_fuzzy_in(w, unit_words) for w in c) / len(c) for c in q.concepts if c), default=0.0
        )
        return _Relevance(
            full=_share(q.words, unit_words),
            known=_share(q.words, unit_words, q.known) if q.known else 0.0,
            concept=concept,
            exact=exact,
        )

    def _missing_named_sections(self, q: _Query, version: str) -> list[str]:
        from labourcrew.retrieval.exact import resolve_label

        return [lb for lb in q.named_sections if resolve_label(self.graph, version, lb) is None]

    def _spans(self, question: str, issues: Sequence[str], items: Sequence[EvidenceItem]) -> list[Span]:
        """Scored candidate spans of every pack unit that clears the relevance floor (memoised:
        the counsels and the interpreter of one run score the same pack).
        """
        key = (question, tuple(issues), tuple((i.node_id, i.provenance, i.relevance, i.level, i.text) for i in items))
        with self._lock:
            hit = self._span_cache.get(key)
        if hit is not None:
            return hit
        out = self._score_spans(question, issues, items)
        with self._lock:
            if len(self._span_cache) >= 256:
                self._span_cache.pop(next(iter(self._span_cache)))
            self._span_cache[key] = out
        return out

    def _score_spans(self, question: str, issues: Sequence[str], items: Sequence[EvidenceItem]) -> list[Span]:
        version = self._version_of(items)
        if version is None or not items:
            return []
        q = self._query(question, issues, version)
        if self._missing_named_sections(q, version) or (not q.words and not q.named_sections):
            return []
        named = {f"{version}:{lb}" for lb in q.named_sections}
        has_concepts = bool(q.concepts)
        out: list[Span] = []
        for rank, item in enumerate(items):
            if item.level not in _UNIT_LEVELS or not item.text.strip():
                continue
            exact = within_any(item.node_id, named)
            rel = self._relevance(q, self._unit_words(item.node_id, item.text), exact)
            learned = item.relevance
            if learned is None:
                if not rel.relevant(self.tuning, has_concepts):
                    continue
            # With the learned model, it decides which units govern: a unit it rates likely is quoted
            # even without word overlap, one it rates unlikely is not quoted for sharing words.
            elif not exact and (learned < self.tuning.relevance_floor
                                or (learned < self.tuning.relevance_accept and not rel.relevant(self.tuning, has_concepts))):
                continue
            is_proviso = item.level in (Level.PROVISO, Level.EXPLANATION)
            for span in clause_spans(item.text, self.tuning.min_span_chars):
                span_norm = normalize(span)
                srel = self._relevance(q, frozenset(words_of(span)), exact)
                out.append(
                    Span(
                        node_id=item.node_id,
                        text=span,
                        unit_rel=max(rel.score(), 0.5 if exact else 0.0),
                        span_rel=srel.score(),
                        word_rel=rel.full,
                        prior=item.provenance if learned is None else learned,
                        worker_cue=_has_cue(span_norm, WORKER_CUES),
                        employer_cue=_has_cue(span_norm, EMPLOYER_CUES),
                        is_proviso=is_proviso,
                        rank=rank,
                    )
                )
        return out

    def _label(self, node_id: str) -> str:
        unit = self.graph.units.get(node_id)
        return unit.label if unit is not None else node_id.split(":", 1)[-1]

    def _lead_in(self, node_id: str, pack_ids: set[str], items: dict[str, EvidenceItem]) -> tuple[str, str] | None:
        """The parent's lead-in text (``কোন অস্থায়ী শ্রমিক-``) when the parent is on the pack."""
        unit = self.graph.units.get(node_id)
        if unit is None or unit.parent is None or unit.parent not in pack_ids:
            return None
        if unit.level not in (Level.CLAUSE, Level.ITEM):  # provisos stand on their own
            return None
        parent_text = items[unit.parent].text
        spans = clause_spans(parent_text, 8)
        if not spans:
            return None
        lead = spans[-1]
        if not _ends_with_lead_in(parent_text):
            return None
        return unit.parent, lead

    def _qualifiers(self, node_id: str, items: dict[str, EvidenceItem]) -> list[tuple[str, str]]:
        """The provisos, explanations and carve-outs that qualify a quoted rule, as ``(node_id, quote)``.

        Those of :meth:`StatuteGraph.qualifiers` (provisos of the unit and of its ancestors up to its
        section, then sub-sections that carve it out, e.g. 132(6) for 132(5)) that are on the Evidence Pack and,
        when the learned model ran, that it rates at least the quoting floor (paper §3.4, issue 10:
        a rule is quoted with its qualifying provisos; the labelling protocol counts a rule quoted
        without the proviso that decides the asked case as unfaithful). The
        :attr:`OfflineTuning.max_qualifiers` best-rated ones, in the Act's order; none for a quoted
        proviso.
        """
        unit = self.graph.units.get(node_id)
        if unit is None or unit.level in (Level.PROVISO, Level.EXPLANATION) or self.tuning.max_qualifiers == 0:
            return []
        found = [
            (k, p) for k, p in enumerate(self.graph.qualifiers(node_id))
            if p in items and (items[p].relevance is None or items[p].relevance >= self.tuning.relevance_floor)
        ]
        ranked = sorted(found, key=lambda dp: (-(items[dp[1]].relevance or 0.0), dp[0], dp[1]))
        chosen = sorted((p for _, p in ranked[: self.tuning.max_qualifiers]), key=lambda p: self.graph.units[p].order)
        out = []
        for p in chosen:  # in the Act's order, so one rule and its provisos always read (and key) the same
            quote = _whole_quote(items[p].text)
            if len(normalize(quote)) < self.tuning.min_span_chars:
                continue
            kids = [c for c in self.graph.units[p].children if c not in self.graph.units[p].provisos]
            if kids and _ends_with_lead_in(items[p].text):
                # An exception that hands over to a list (132(6): "... if the delay was due to -")
                # asserts nothing without it: quoted with every item of the list, or not at all.
                # (A proviso ending "ঃ" before the next proviso has no list: quoted as it is.)
                if len(kids) > MAX_LIST_QUALIFIER or any(c not in items for c in kids):
                    continue
                out.append((p, quote))
                out.extend((c, _whole_quote(items[c].text)) for c in kids)
                continue
            out.append((p, quote))
        return out

    def _proposed(self, side: Side, span: Span, items: dict[str, EvidenceItem], challenge_to: str | None = None) -> ProposedClaim:
        quotes = [span.text]
        citations = [ProposedCitation(node_id=span.node_id, span=span.text)]
        labels = [self._label(span.node_id)]
        lead = self._lead_in(span.node_id, set(items), items)
        if lead is not None:
            quotes.insert(0, lead[1])
            citations.insert(0, ProposedCitation(node_id=lead[0], span=lead[1]))
        for node, quote in self._qualifiers(span.node_id, items):
            quotes.append(quote)
            citations.append(ProposedCitation(node_id=node, span=quote))
            labels.append(self._label(node))
        # Self-reported confidence = the span's selection score without the side's cue bonus,
        # rescaled to [0, 1]: how relevant (lexically and by retrieval rank) the quote is.
        t = self.tuning
        base = t.w_relevance_unit * span.unit_rel + t.w_relevance_span * span.span_rel + t.w_prior * span.prior
        confidence = round(min(1.0, max(0.0, base / (t.w_relevance_unit + t.w_relevance_span + t.w_prior))), 4)
        return ProposedClaim(
            text=frame_claim(side, quotes, labels),
            citations=citations,
            confidence=confidence,
            challenge_to=challenge_to,
        )

    # -- roles --------------------------------------------------------------------------------

    def spot_issues(self, question: str) -> tuple[BaseModel, CallUsage]:
        """Issue Spotter: the rule-based spotter (paper §3.3)."""
        from labourcrew.retrieval.issue_spotter import spot_issues

        return spot_issues(question), self._usage()

    def counsel(self, inp: CounselInput) -> tuple[CounselOutput, CallUsage]:
        """Worker or Employer Counsel (paper §3.4): verbatim spans oriented by the side's cues."""
        items = {i.node_id: i for i in inp.pack.items}
        spans = self._spans(inp.question, inp.issues, inp.pack.items)
        if not spans:
            return CounselOutput(claims=[]), self._usage()
        taken = {normalize(r.span) for c in inp.other_claims for r in c.evidence}
        if inp.round >= 1:
            return CounselOutput(claims=self._rebuttal(inp.side, spans, inp.other_claims, items, taken)), self._usage()
        if inp.side == Side.WORKER:
            pool = [s for s in spans if s.worker_cue and not s.is_proviso]
            limit = self.tuning.max_worker_claims
        else:
            pool = [s for s in spans if s.employer_cue or s.is_proviso]
            limit = self.tuning.max_employer_claims
        chosen = self._best(pool, inp.side, limit, taken)
        return CounselOutput(claims=[self._proposed(inp.side, s, items) for s in chosen]), self._usage()

    def _best(self, pool: Sequence[Span], side: Side, limit: int, taken: set[str]) -> list[Span]:
        ranked = sorted(pool, key=lambda s: (-s.score(self.tuning, side), s.rank, s.node_id, s.text))
        if ranked:  # keep only spans close to the best one: a weak second claim is noise
            floor = self.tuning.relative_floor * ranked[0].score(self.tuning, side)
            ranked = [s for s in ranked if s.score(self.tuning, side) >= floor]
        chosen: list[Span] = []
        seen = set(taken)
        for s in ranked:
            key = normalize(s.text)
            if key in seen:
                continue
            chosen.append(s)
            seen.add(key)
            if len(chosen) >= limit:
                break
        return chosen

    def _rebuttal(self, side: Side, spans: Sequence[Span], others: Sequence[Claim], items: dict[str, EvidenceItem], taken: set[str]) -> list[ProposedClaim]:
        """One challenge of the other side's best claim, from the same section."""
        for other in others:
            if other.side == side or other.side == Side.INTERPRETER:
                continue
            sections = {self._section_of(n) for n in other.cited_node_ids()}
            if side == Side.EMPLOYER:
                pool = [s for s in spans if (s.employer_cue or s.is_proviso) and self._section_of(s.node_id) in sections]
            else:
                pool = [s for s in spans if s.worker_cue and not s.is_proviso and self._section_of(s.node_id) in sections]
            chosen = self._best(pool, side, 1, taken)
            if chosen:
                return [self._proposed(side, chosen[0], items, challenge_to=other.claim_id)]
        return []

    def _section_of(self, node_id: str) -> str:
        unit = self.graph.units.get(node_id)
        return f"{unit.version}:{unit.section}" if unit is not None and unit.section else node_id

    def interpret(self, inp: InterpreterInput) -> tuple[InterpreterOutput, CallUsage]:
        """Legal Interpreter (paper §3.4): the top-ranked governing-rule span, no winner declared."""
        items = {i.node_id: i for i in inp.pack.items}
        spans = [s for s in self._spans(inp.question, inp.issues, inp.pack.items) if not s.is_proviso]
        if not spans:
            return InterpreterOutput(governing_rule=None, notes="no pack unit clears the relevance floor"), self._usage()
        cited = {n for c in inp.claims for n in c.cited_node_ids()}
        ranked = sorted(
            spans,
            key=lambda s: (-(s.score(self.tuning, None) + (0.2 if s.node_id in cited else 0.0)
                             + (0.1 if s.worker_cue else 0.0)), s.rank, s.node_id, s.text),
        )
        best = ranked[0]
        sides = sorted({c.side.value for c in inp.claims})
        note = f"governing rule chosen from {len(spans)} relevant spans; claims seen from: {', '.join(sides) or 'none'}"
        return InterpreterOutput(governing_rule=self._proposed(Side.INTERPRETER, best, items), notes=note), self._usage()

    def audit(self, inp: AuditInput) -> tuple[AuditOutput, CallUsage]:
        """Trust Auditor (paper §3.5): span verification + typed skeptic checks."""
        claim = inp.claim
        spans = [r.span for r in claim.evidence]
        verified = all(
            r.node_id in inp.cited_texts and normalize(r.span) and normalize(r.span) in normalize(inp.cited_texts[r.node_id])
            for r in claim.evidence
        )
        report = skeptic_report(claim.text, spans, inp.cited_texts)
        checks = {"span_verified": verified, **report.checks}
        if not verified:
            verdict, direction = Verdict.NEI, None
        elif report.verdict_cap is not None:
            verdict, direction = report.verdict_cap, report.direction
        else:
            verdict, direction = Verdict.SUPPORT, None
        notes = "; ".join(report.notes) if report.notes else "all skeptic checks pass"
        return (
            AuditOutput(
                verdict=verdict,
                category=report.category,
                direction=direction,
                checks=checks,
                notes=notes,
            ),
            self._usage(),
        )

    def audit_batch(self, inp: AuditBatchInput) -> tuple[AuditBatchOutput, CallUsage]:
        """Trust Auditor on all claims of a round: :meth:`audit` on each claim, in input order."""
        verdicts = [
            AuditVerdict(claim_id=c.claim_id, **self.audit(inp.single(c))[0].model_dump()) for c in inp.claims
        ]
        return AuditBatchOutput(verdicts=verdicts), self._usage()
