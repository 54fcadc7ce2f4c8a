"""Issue Spotter and Retrieval Planner: question types, concepts, ceilings that only narrow."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from pydantic import ValidationError

from labourcrew.ledger.retrieval import PlannerRequest, QuestionType, RetrievalPlan
from labourcrew.retrieval.issue_spotter import (
    detect_language,
    match_concepts,
    spot_issues,
)
from labourcrew.retrieval.planner import clamp, make_plan, plan_from_request
from labourcrew.settings import REPO_ROOT, load_settings
from labourcrew.statute.model import EdgeType

SETTINGS = load_settings()


@pytest.mark.parametrize(
    ("question", "qtype"),
    [
        ("শ্রম আইনে 'মজুরি' বলতে কী বোঝায়?", QuestionType.DEFINITIONAL),
        ("What is the definition of a worker?", QuestionType.DEFINITIONAL),
        ("ছুটির জন্য কিভাবে আবেদন করতে হয়?", QuestionType.PROCEDURAL),
        ("How to apply for maternity benefit?", QuestionType.PROCEDURAL),
        ("যদি মালিক বেতন না দেয় তবে শ্রমিক কি পাবে?", QuestionType.CONDITIONAL),
        ("ছাঁটাই ও ডিসচার্জের মধ্যে পার্থক্য কী?", QuestionType.COMPARATIVE),
        ("Difference between discharge and dismissal?", QuestionType.COMPARATIVE),
        ("ধরুন একজন শ্রমিক ১২ বছর চাকরির পর ইস্তফা দিলেন, তিনি কী পাবেন?", QuestionType.HYPOTHETICAL),
        ("ধারা ২৭ এবং ধারা ২৮ অনুযায়ী শ্রমিকের প্রাপ্য কী?", QuestionType.MULTI_HOP),
        ("শ্রমিক মারা গেলে এবং চাকরি ৩ বছর হলে পরিবার কী পাবে?", QuestionType.MULTI_HOP),
        ("নৈমিত্তিক ছুটি কত দিন?", QuestionType.DIRECT_FACTUAL),
    ],
)
def test_question_types_from_cues(question, qtype):
    assert spot_issues(question).question_type == qtype


def test_concepts_are_found_in_bangla_english_and_romanised_text():
    for q in ("মাতৃত্বকালীন ছুটি কত দিন?", "How long is maternity leave?", "prosuti chuti koto din?"):
        keys = {c.key for c in match_concepts(q)}
        assert {"maternity", "leave"} <= keys, q
    assert {c.key for c in match_concepts("ছাঁটাই হলে ক্ষতিপূরণ")} >= {"termination", "compensation"}
    assert "age" not in {c.key for c in match_concepts("the contractor agency")}  # short triggers are whole words
    assert "age" in {c.key for c in match_concepts("what is the minimum age")}


def test_language_register_sections_and_sub_questions():
    s = spot_issues("amar boss 3 mash beton dey na, ki korbo?")
    assert s.language == "bn-latn" and s.text_register == "noisy"
    assert detect_language("What is the notice period?") == "en"
    assert detect_language("নোটিশের মেয়াদ কত?") == "bn"
    s = spot_issues("ছাঁটাই এবং ডিসচার্জের মধ্যে পার্থক্য কী?")
    assert s.sub_questions == ["ছাঁটাই", "ডিসচার্জের মধ্যে পার্থক্য কী"]
    s = spot_issues("ধারা ২৭(৩ক) অনুযায়ী নোটিশ লাগবে কি?")
    assert s.section_labels == ["27(3A)"]
    assert spot_issues("৩ মাসের বেতন পাইনি").section_labels == []


def test_a_part_pasted_twice_is_one_part():
    """A new user pasted one question 83 times (4,000 characters) and the answer listed 83 identical parts."""
    assert spot_issues("বেতন কবে দিবে? " * 83).parts == []
    assert spot_issues("ছুটি কত দিন? ছুটি কত দিন? বেতন কবে দিবে?").parts == ["ছুটি কত দিন?", "বেতন কবে দিবে?"]


def test_spotter_type_accuracy_on_the_dev_set_beats_the_majority_class():
    rows = [json.loads(x) for x in (REPO_ROOT / "data/eval/dev_v1.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    rows = [r for r in rows if r["category"] in {t.value for t in QuestionType}]
    assert len(rows) >= 100
    hits = sum(spot_issues(r["question_bn"]).question_type.value == r["category"] for r in rows)
    majority = max(sum(r["category"] == t.value for r in rows) for t in QuestionType)
    # The rule-based spotter is crude (measured 77/140); it must at least clearly beat guessing
    # the most frequent category.
    assert hits >= 2 * majority, (hits, majority)


def test_make_plan_uses_the_ceilings_and_resolves_seeds(graph):
    s = spot_issues("ধারা ২৭ এবং ধারা ২৮ অনুযায়ী শ্রমিকের প্রাপ্য কী?")
    plan = make_plan(s, SETTINGS, graph=graph, version="2025")
    ceiling = SETTINGS.retrieval.ceilings[QuestionType.MULTI_HOP]
    assert plan.question_type == QuestionType.MULTI_HOP
    assert plan.k == ceiling.max_k and plan.hops == ceiling.max_hops
    assert 1 <= len(plan.queries) <= ceiling.max_queries and plan.queries[0] == s.question
    assert plan.seeds == ["2025:27", "2025:28"]
    assert EdgeType.PROVISO in plan.edge_types
    # A section missing from the version is dropped from the seeds, not an error.
    s = spot_issues("ধারা ৩৪৫গ কী বলে?")
    assert make_plan(s, SETTINGS, graph=graph, version="2018").seeds == []


def test_plan_needs_a_query_or_a_seed():
    with pytest.raises(ValidationError):
        RetrievalPlan(question_type=QuestionType.DIRECT_FACTUAL, queries=[], k=5, hops=1, edge_types=set(), seeds=[])


def test_request_is_clamped_like_a_plan():
    req = PlannerRequest(seeds=["2025:283"], edge_types={EdgeType.CROSS_REF}, hop_budget=8, k=50)
    plan = plan_from_request(req, SETTINGS)
    ceiling = SETTINGS.retrieval.ceilings[QuestionType.MULTI_HOP]
    assert plan.hops == ceiling.max_hops and plan.k == ceiling.max_k
    assert plan.seeds == ["2025:283"] and plan.edge_types == {EdgeType.CROSS_REF}
    small = plan_from_request(PlannerRequest(seeds=["2025:283"], hop_budget=0, k=2), SETTINGS)
    assert small.hops == 0 and small.k == 2  # a smaller request is kept as asked


_types = st.sampled_from(list(QuestionType))
_ceiling = st.fixed_dictionaries(
    {"max_queries": st.integers(1, 16), "max_hops": st.integers(1, 8), "max_k": st.integers(1, 100)}
)


@st.composite
def _plans(draw):
    queries = draw(st.lists(st.text(min_size=1, max_size=8), max_size=10))
    seeds = draw(st.lists(st.sampled_from(["2025:27", "2025:115", "2025:2(10)"]), max_size=3, unique=True))
    if not queries and not seeds:
        queries = ["q"]
    return RetrievalPlan(
        question_type=draw(_types),
        queries=queries,
        k=draw(st.integers(1, 500)),
        hops=draw(st.integers(0, 50)),
        edge_types=set(draw(st.lists(st.sampled_from(list(EdgeType)), max_size=4))),
        seeds=seeds,
    )


_SETTINGS_CACHE: dict[tuple, object] = {}


def _settings_with(qtype: QuestionType, ceiling: dict[str, int]):
    key = (qtype, tuple(sorted(ceiling.items())))
    if key not in _SETTINGS_CACHE:
        _SETTINGS_CACHE[key] = load_settings(retrieval={"ceilings": {qtype.value: ceiling}})
    return _SETTINGS_CACHE[key]


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=_plans(), qtype=_types, ceiling=_ceiling)
def test_clamp_only_narrows(plan, qtype, ceiling):
    s = _settings_with(qtype, ceiling)
    out = clamp(plan, qtype, s)
    # Never wider than the plan ...
    assert out.k <= plan.k and out.hops <= plan.hops and len(out.queries) <= len(plan.queries)
    assert out.queries == plan.queries[: len(out.queries)]
    # ... never wider than the ceiling ...
    assert out.k <= ceiling["max_k"] and out.hops <= ceiling["max_hops"]
    assert len(out.queries) <= ceiling["max_queries"]
    # ... and only as narrow as needed.
    assert out.k == min(plan.k, ceiling["max_k"]) and out.hops == min(plan.hops, ceiling["max_hops"])
    assert out.seeds == plan.seeds and out.edge_types == plan.edge_types
    assert clamp(out, qtype, s) == out  # idempotent
