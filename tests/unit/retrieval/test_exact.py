"""Exact section channel: references in questions -> labels -> node ids of the real Act."""

from __future__ import annotations

import pytest

from labourcrew.retrieval.exact import (
    find_section_refs,
    resolve_label,
    resolve_refs,
    section_labels,
)
from labourcrew.statute.model import Level
from labourcrew.statute.normalize import to_bangla_digits
from labourcrew.statute.parse_bn import BN_CONSONANTS


@pytest.mark.parametrize(
    ("question", "labels"),
    [
        ("ধারা ২৭ অনুযায়ী শ্রমিক কী পাবে?", ["27"]),
        ("২৭ ধারা কী বলে?", ["27"]),
        ("২৭ নং ধারায় কী আছে", ["27"]),
        ("ধারা-১০০ তে কর্মঘণ্টা", ["100"]),
        ("২৭(৩ক) উপ-ধারা কী বলে", ["27(3A)"]),
        ("27(3ক) এর শর্ত", ["27(3A)"]),
        ("what does section 345C say", ["345C"]),
        ("ধারা ৩৪৫গ এর বিধান", ["345C"]),
        ("ধারা ২৭ক", ["27A"]),
        ("see sec 27(1) please", ["27(1)"]),
        ("What does s. 27 say?", ["27"]),
        ("section 2(10)(b)", ["2(10)(b)"]),
        ("ধারা ১৯, ২০ অথবা ২৩ অনুযায়ী", ["19", "20", "23"]),
        ("১৯, ২০ ও ২৩ ধারা", ["19", "20", "23"]),
        ("sections 19 and 20", ["19", "20"]),
        ("ধারা ২৭ এর উপ-ধারা (৩) এর দফা (খ)", ["27(3)(b)"]),
        ("sub-section (3) of section 27", ["27(3)"]),
        ("dhara 27 e ki ache", ["27"]),
    ],
)
def test_references_resolve_to_labels(question, labels):
    assert section_labels(question) == labels


@pytest.mark.parametrize(
    "question",
    [
        "৩ মাসের বেতন পাইনি",
        "120 days of maternity leave",
        "১০ বছর চাকরির পর কত টাকা পাব?",
        "উপ-ধারা ৩ অনুযায়ী",  # a sub-section number alone is not a section
        "২০০৬ সালের শ্রম আইন",
        "৫ (পাঁচ) দিনের মজুরি",
        "section 1234",  # no section has four digits
    ],
)
def test_bare_numbers_are_not_sections(question):
    assert find_section_refs(question) == []


def test_amount_after_a_section_list_ends_the_list():
    assert section_labels("ধারা ২৭ এবং ৩ মাসের বেতন") == ["27"]
    assert section_labels("Section 2 and 120 days") == ["2"]
    assert section_labels("ধারা ২৭ এবং ১২০ দিনের") == ["27"]


def test_surface_and_offset_point_into_the_question():
    q = "আমার প্রশ্ন ধারা ১২৩ নিয়ে"
    (ref,) = find_section_refs(q)
    assert ref.label == "123" and q[ref.start : ref.start + len(ref.surface)] == ref.surface


def _bangla_surface(label: str) -> str:
    digits = "".join(c for c in label if c.isdigit())
    suffix = "".join(BN_CONSONANTS[ord(c) - ord("A")] for c in label if c.isalpha())
    return to_bangla_digits(digits) + suffix


def test_every_section_of_the_act_round_trips(graph):
    # Every section label of the 2025 text, written the Bangla way, resolves to its own unit.
    sections = [u for u in graph.version_units("2025") if u.level == Level.SECTION and not u.omitted]
    assert len(sections) > 360
    for u in sections:
        for q in (f"ধারা {_bangla_surface(u.label)} এ কী আছে", f"section {u.label} says", f"{_bangla_surface(u.label)} ধারা"):
            assert section_labels(q) == [u.label], q
            assert resolve_refs(graph, "2025", section_labels(q)) == [u.node_id]


def test_resolution_falls_back_to_the_enclosing_unit(graph):
    assert resolve_label(graph, "2025", "27(3A)") == "2025:27(3A)"
    assert resolve_label(graph, "2025", "27(3)(z)") == "2025:27(3)"  # no clause (z): enclosing sub-section
    assert resolve_label(graph, "2025", "999") is None
    # Section 345C was inserted in 2025: absent from the 2018 text.
    assert resolve_label(graph, "2018", "345C") is None
    assert resolve_label(graph, "2025", "345C") == "2025:345C"


def test_omitted_units_never_resolve(graph):
    omitted = [u for u in graph.version_units("2025") if u.omitted]
    assert omitted
    for u in omitted:
        assert resolve_label(graph, "2025", u.label) is None


@pytest.mark.parametrize(("question", "labels"), [
    ("২৭", ["27"]), ("27", ["27"]), ("২৭ক", ["27A"]), (" ৪৬(১)? ", ["46(1)"]), ("২৭।", ["27"]),
    # inside a sentence a bare number is an amount, not a section
    ("২৭ দিন", []), ("আমি ২৭ বছর চাকরি করেছি", []), ("1000", []),
])
def test_a_question_that_is_only_a_label_is_a_section_lookup(question, labels):
    assert section_labels(question) == labels
