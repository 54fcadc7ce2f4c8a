"""The Bangla labour-law thesaurus: data checked against the real Act, matcher on real questions."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from labourcrew.errors import DataError
from labourcrew.retrieval.thesaurus import (
    DEFAULT_PATH,
    Concept,
    ConceptMatch,
    Thesaurus,
    load_thesaurus,
    verify_thesaurus,
)
from labourcrew.statute.model import Level
from labourcrew.statute.normalize import normalize


@pytest.fixture(scope="module")
def th() -> Thesaurus:
    return load_thesaurus()


@pytest.fixture(scope="module")
def sections_2025(graph) -> dict[str, tuple[bool, str]]:
    """Section label -> (omitted, normalised body text incl. descendants) for the 2025 version."""
    out = {}
    for u in graph.version_units("2025"):
        if u.level == Level.SECTION:
            out[u.label] = (u.omitted, normalize(graph.section_text(u.node_id)))
    return out


def _minimal(**over) -> dict:
    concept = {"id": "wage", "act_terms": ["মজুরী"], "user_terms_bn": ["বেতন"], "user_terms_roman": ["beton"],
               "user_terms_en": ["salary"], "sections": ["120"], "note": ""}
    concept.update(over.pop("concept", {}))
    data = {"version": 1, "reviewed_by": "test", "notes": "", "concepts": [concept]}
    data.update(over)
    return data


# -- the data against the Act ------------------------------------------------------------------
def test_size_and_unique_ids(th):
    ids = [c.id for c in th.concepts]
    assert len(ids) >= 120
    assert [i for i, n in Counter(ids).items() if n > 1] == []


def test_every_section_exists_and_is_not_omitted(th, sections_2025):
    bad = [(c.id, s) for c in th.concepts for s in c.sections if s not in sections_2025 or sections_2025[s][0]]
    assert bad == []


def test_every_act_term_occurs_in_the_act_and_in_one_of_its_sections(th, graph, sections_2025):
    act = " ".join(u.text_norm for u in graph.version_units("2025"))
    not_in_act, not_in_sections = [], []
    for c in th.concepts:
        for t in c.act_terms:
            n = normalize(t)
            if n not in act:
                not_in_act.append((c.id, t))
            elif not any(n in sections_2025.get(s, (True, ""))[1] for s in c.sections):
                not_in_sections.append((c.id, t, c.sections))
    assert not_in_act == []
    assert not_in_sections == []


def test_verify_thesaurus_is_clean_and_catches_planted_errors(th, graph):
    assert verify_thesaurus(th, graph) == []
    bad = Thesaurus.model_validate(_minimal(concept={"act_terms": ["মজুরী", "ইস্তফা", "কোয়ান্টামশ্রম"],
                                                      "sections": ["120", "9999", "184"]}))
    problems = verify_thesaurus(bad, graph)
    assert any("9999" in p and "does not exist" in p for p in problems)
    assert any("184" in p and "omitted" in p for p in problems)
    assert any("কোয়ান্টামশ্রম" in p and "does not occur" in p for p in problems)
    assert any("ইস্তফা" in p and "none of its sections" in p for p in problems)  # ইস্তফা is in s.27, not s.120


def test_act_spelling_is_the_acts_old_spelling(th, graph):
    wage = th.by_id["wage"]
    assert "মজুরী" in wage.act_terms
    act = " ".join(u.text_norm for u in graph.version_units("2025"))
    assert "বেতন" not in wage.act_terms and "স্যালারি" not in act  # what people say is a user term


def test_latin_terms_are_lower_case_and_ascii(th):
    bad = [(c.id, t) for c in th.concepts for t in c.user_terms_roman + c.user_terms_en
           if t != t.casefold() or not t.isascii()]
    assert bad == []


def test_every_term_matches_its_own_concept(th):
    missing = [(c.id, t) for c in th.concepts for t, _ in c.terms() if c.id not in th.concept_ids(t)]
    assert missing == []


@pytest.mark.parametrize(
    ("user_words", "concept_id", "act_term"),
    [
        ("রিজাইন", "resignation", "ইস্তফা"),
        ("চাকরি ছাড়া", "resignation", "ইস্তফা"),
        ("বেতন", "wage", "মজুরী"),
        ("স্যালারি", "wage", "মজুরী"),
        ("ওভারটাইম", "overtime", "অধিকাল"),
        ("ম্যাটার্নিটি", "maternity_benefit", "প্রসূতি কল্যাণ"),
        ("মাতৃত্বকালীন ছুটি", "maternity_benefit", "প্রসূতি কল্যাণ"),
        ("শোকজ", "show_cause", "কারণ দর্শানো"),
        ("গ্র্যাচুইটি", "gratuity", "গ্রাচুইটি"),
        ("লে অফ", "layoff", "লে-অফ"),
        ("ছাঁটাই", "retrenchment", "ছাঁটাই"),
        ("টার্মিনেশন", "termination_by_employer", "অবসান"),
        ("ক্যাজুয়াল লিভ", "casual_leave", "নৈমিত্তিক ছুটি"),
        ("সিক লিভ", "sick_leave", "পীড়া-ছুটি"),
        ("নাইট শিফট", "night_shift", "পালার কাজ"),
        ("সিবিএ", "cba", "যৌথ দরকষাকষি প্রতিনিধি"),
        ("হরতাল", "strike", "ধর্মঘট"),
        ("লেবার কোর্ট", "labour_court", "শ্রম আদালত"),
        ("পিএফ", "provident_fund", "ভবিষ্য তহবিল"),
        ("ডে কেয়ার", "childcare_room", "শিশু সন্তান"),
        ("আউটসোর্সিং কোম্পানি", "contractor_outsourcing", "ঠিকাদার"),
        ("গৃহকর্মী", "domestic_worker", "গৃহ পরিচারক"),
        ("যৌন হয়রানি", "sexual_harassment", "যৌন হয়রানি"),
    ],
)
def test_required_mappings(th, user_words, concept_id, act_term):
    assert concept_id in th.concept_ids(user_words)
    assert act_term in th.by_id[concept_id].act_terms


# -- matcher behaviour -----------------------------------------------------------------------
def test_expand_resignation_question(th):
    q = "রিজাইন দিলে কি পাওনা পাবো"
    out = th.expand(q)
    assert out.startswith(q)
    assert "ইস্তফা" in out[len(q):]
    assert th.sections_for(q)[0] == "27"


def test_expand_does_not_repeat_terms_already_present(th):
    q = "ইস্তফা দিতে চাই"
    assert th.expand(q) == q
    # both of the Act's spellings are act terms: the one missing from the question is added
    assert th.expand("মজুরী কত") == "মজুরী কত মজুরি"
    assert th.expand("পীড়া ছুটি কত দিন").count("পীড়া") == 1  # hyphen/space variant counts as present


@pytest.mark.parametrize("q", ["amar salary 3 mash dey nai", "beton pai nai 2 mash", "betan koto",
                               "Salary not paid for three months"])
def test_romanised_and_english_wage_questions(th, q):
    assert "wage" in th.concept_ids(q)


def test_romanised_overtime(th):
    for q in ("ovartaim er taka koto", "OT koto ghonta", "overtime rate ki"):
        assert "overtime" in th.concept_ids(q), q


def test_maternity_leave(th):
    ms = th.match("ম্যাটার্নিটি লিভ")
    assert ms[0].concept_id == "maternity_benefit"
    assert ms[0].kind == "bn" and ms[0].term == "ম্যাটার্নিটি লিভ"
    assert any("প্রসূতি" in t for t in th.by_id["maternity_benefit"].act_terms)
    assert "প্রসূতি কল্যাণ" in th.expand("ম্যাটার্নিটি লিভ")
    assert th.sections_for("ম্যাটার্নিটি লিভ")[0] == "46"


@pytest.mark.parametrize("q", ["আজকে আবহাওয়া কেমন? কাল বৃষ্টি হবে কি?", "বাংলাদেশের রাজধানী কোথায়",
                               "তুমি কেমন আছো? আমি ভালো আছি", "What is the capital of France?",
                               "hot weather today, quite nice", "I am fine, thank you", ""])
def test_no_labour_term_matches_nothing(th, q):
    assert th.match(q) == []
    assert th.expand(q) == q
    assert th.sections_for(q) == []


def test_bangla_suffixes_are_tolerated(th):
    ms = [m for m in th.match("আমার স্যালারির টাকা কেটে রাখছে") if m.concept_id == "wage"]
    assert ms and ms[0].term == "স্যালারি" and ms[0].kind == "bn"
    assert "overtime" in th.concept_ids("ওভারটাইমের টাকা দেয় না")


def test_bangla_term_is_not_found_inside_another_word(th):
    assert "wage" not in th.concept_ids("সবেতন")  # বেতন only where a word starts


def test_the_words_that_name_a_provision_match_no_concept(th):
    """A Bangla term matches where a word starts, so a term that begins one of the words people use to name
    a provision matched every question naming a section: «ধার» (loan) matched «ধারা» (a new-user trial)."""
    assert th.match("ধারা ২৬ কী বলে? উপ-ধারা (২) দফা (ক) অধ্যায় ৪, ধারায় ধারার ধারাবাহিক তফসিল বিধি") == []
    assert "loan_advance_deduction" not in th.concept_ids("আইনের কোন ধারায় মাতৃত্বকালীন ছুটির কথা আছে?")
    for q in ("মালিকের কাছে ধার নিছিলাম, বেতন থেকে কাটতেছে", "ধারের টাকা বেতন থেকে কাটা যায়?", "লোন কাটবে কত"):
        assert "loan_advance_deduction" in th.concept_ids(q), q


def test_latin_terms_need_word_boundaries(th):
    assert "overtime" not in th.concept_ids("hot")  # "ot"
    assert "resignation" not in th.concept_ids("quite good")  # "quit"
    assert "resignation" in th.concept_ids("I want to quit")
    assert "wage" in th.concept_ids("SALARY")  # casefolded


def test_match_reports_kind_and_offsets(th):
    q = "ইস্তফা দিতে চাই"
    m = next(m for m in th.match(q) if m.concept_id == "resignation")
    assert (m.term, m.kind, m.start) == ("ইস্তফা", "act", 0)
    assert normalize(q)[m.start:m.end] == "ইস্তফা"
    with pytest.raises(ValidationError):
        ConceptMatch(concept_id="x", term="y", kind="act", start=0, end=1, extra=1)


def test_matches_are_in_text_order_and_sections_unique(th):
    q = "ওভারটাইম না দিলে শ্রম আদালতে মামলা করা যাবে?"
    ids = [m.concept_id for m in th.match(q)]
    assert ids.index("overtime") < ids.index("labour_court")
    secs = th.sections_for(q)
    assert len(secs) == len(set(secs))
    assert secs[:3] == th.by_id["overtime"].sections[:3]


# -- loading ----------------------------------------------------------------------------------
def test_load_is_cached_and_hashes_the_file(th):
    assert load_thesaurus() is th
    assert load_thesaurus(str(DEFAULT_PATH)) is th
    assert th.sha256 == hashlib.sha256(Path(DEFAULT_PATH).read_bytes()).hexdigest()
    assert th.version == 1 and th.reviewed_by


def test_loads_a_valid_small_file(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps(_minimal(), ensure_ascii=False), encoding="utf-8")
    t = load_thesaurus(p)
    assert [c.id for c in t.concepts] == ["wage"]
    assert t.concept_ids("beton koto") == {"wage"}


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (None, "not found"),
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (json.dumps(_minimal(extra_field=1)), "schema"),
        (json.dumps(_minimal(concept={"act_terms": []})), "act_terms"),
        (json.dumps(_minimal(concept={"sections": ["ধারা ২৭"]})), "section"),
        (json.dumps(_minimal(concept={"colour": "red"})), "colour"),
        (json.dumps({**_minimal(), "concepts": _minimal()["concepts"] * 2}), "duplicate"),
    ],
)
def test_bad_files_raise_data_error(tmp_path, content, needle):
    p = tmp_path / "bad.json"
    if content is not None:
        p.write_text(content, encoding="utf-8")
    with pytest.raises(DataError) as ei:
        load_thesaurus(p)
    assert needle in str(ei.value)


def test_concept_model_forbids_unknown_fields():
    with pytest.raises(ValidationError):
        Concept(id="x", act_terms=["মজুরী"], sections=["120"], synonyms=["বেতন"])
