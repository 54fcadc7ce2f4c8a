"""Typed skeptic checks (numbers/units, time limits, modal verbs, carve-outs) on real Act sentences."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labourcrew.audit.skeptic import (
    classify_claim,
    modals_in,
    numbers_in,
    quantities_in,
    skeptic_report,
    strip_section_refs,
)
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.records import ClaimCategory, Verdict
from labourcrew.statute.normalize import to_bangla_digits

MATERNITY = (
    "(১) প্রত্যেক নারী শ্রমিক তাহার মালিকের নিকট হইতে তাহার সন্তান প্রসবের সম্ভাব্য তারিখের অব্যবহিত পূর্ববর্তী "
    "[৬০ (ষাট) দিন] এবং সন্তান প্রসবের অব্যবহিত পরবর্তী [৬০ (ষাট) দিনের] জন্য প্রসূতি কল্যাণ সুবিধা পাইবার অধিকারী হইবেন"
)


def test_numbers_words_and_units() -> None:
    assert numbers_in("ষাট দিনের লিখিত নোটিশ") == {60.0}
    assert numbers_in("এক বছরের") == {1.0}
    assert numbers_in("সে নয়, অন্য কেউ") == set()  # নয় is a number only before a unit
    assert quantities_in(MATERNITY) >= {(60.0, "day")}
    assert quantities_in("সাত কর্মদিবসের মধ্যে") == {(7.0, "working_day")}
    assert numbers_in("১০,০০০ টাকা") == {10000.0}


def test_section_references_are_not_numbers_of_the_rule() -> None:
    assert numbers_in(strip_section_refs("আইন অনুযায়ী: «মালিক প্রদান করিবেন» (ধারা ২৭(১))")) == set()
    assert numbers_in(strip_section_refs("section 27(3A) says 30 days")) == {30.0}


def test_modals_with_polarity() -> None:
    assert modals_in("ইস্তফা দিতে পারিবেন") == {("may", False)}
    assert modals_in("ইস্তফা দিতে পারিবেন না") == {("may", True)}
    assert modals_in("মজুরী পরিশোধ করিতে হইবে") == {("must", False)}
    assert ("entitled", False) in modals_in(MATERNITY)


@pytest.mark.parametrize(
    ("text", "category"),
    [("৬০ দিনের ছুটি পাইবেন", ClaimCategory.TEMPORAL), ("১০,০০০ টাকা জরিমানা", ClaimCategory.NUMERIC),
     ("মালিক প্রদান করিতে বাধ্য থাকিবেন (ধারা ৪৬)", ClaimCategory.OBLIGATION), ("শ্রমিক অর্থ কোন ব্যক্তি", ClaimCategory.FACTUAL)],
)
def test_categories(text: str, category: ClaimCategory) -> None:
    assert classify_claim(text) == category


def test_report_caps_the_verdict() -> None:
    ok = skeptic_report("নারী শ্রমিক ষাট দিন প্রসূতি কল্যাণ সুবিধা পাইবার অধিকারী হইবেন", ["প্রসূতি কল্যাণ সুবিধা"], {"n": MATERNITY})
    assert ok.verdict_cap is None and all(ok.checks.values())
    wrong = skeptic_report("নারী শ্রমিক ৯০ দিন প্রসূতি কল্যাণ সুবিধা পাইবার অধিকারী হইবেন", ["প্রসূতি কল্যাণ সুবিধা"], {"n": MATERNITY})
    assert wrong.verdict_cap == Verdict.REFUTE and not wrong.checks["time_limits_match"]
    carve = "কোন শ্রমিক ছুটি পাইবেন, তবে শিক্ষানবিশ ব্যতীত।"
    dropped = skeptic_report("কোন শ্রমিক ছুটি পাইবেন", ["কোন শ্রমিক ছুটি পাইবেন"], {"n": carve})
    assert dropped.verdict_cap == Verdict.NEI and not dropped.checks["carve_outs_preserved"]


@pytest.fixture(scope="module")
def quantity_units(graph: StatuteGraph) -> list[tuple[str, str, list[str]]]:
    """(node id, text without section references, digit numbers stated) of real units with quantities."""
    out = []
    for u in graph.version_units("2025"):
        body = strip_section_refs(u.text)
        digits = sorted(set(re.findall(r"(?<![০-৯])[০-৯]+(?![০-৯])", body)))
        if quantities_in(body) and digits and len(u.text) < 600:
            out.append((u.node_id, body, digits))
    assert len(out) > 50
    return out


def test_a_changed_number_in_a_real_rule_is_always_refuted(graph: StatuteGraph, quantity_units) -> None:
    @settings(max_examples=80, deadline=None)
    @given(st.integers(0, len(quantity_units) - 1), st.integers(0, 50), st.integers(2, 400))
    def check(i: int, j: int, new: int) -> None:
        node, body, digits = quantity_units[i]
        old = digits[j % len(digits)]
        if float(new) in numbers_in(body):
            return
        claim = re.sub(rf"(?<![০-৯]){old}(?![০-৯])", to_bangla_digits(str(new)), body, count=1)
        report = skeptic_report(claim, [], {node: graph.units[node].text})
        assert report.verdict_cap == Verdict.REFUTE, (node, old, new)
        assert not report.checks["numbers_match"]

    check()


def test_conflicting_claims_on_one_unit_are_found() -> None:
    from labourcrew.audit.skeptic import claim_conflicts
    from labourcrew.ledger.records import Claim, EvidenceRef

    ref = [EvidenceRef(node_id="2025:27(1)", span="ইস্তফা দিতে পারিবেন")]
    may = Claim(claim_id="w1", side="worker", text="শ্রমিক ইস্তফা দিতে পারিবেন", evidence=ref, confidence=1)
    may_not = Claim(claim_id="e1", side="employer", text="শ্রমিক ইস্তফা দিতে পারিবেন না", evidence=ref, confidence=1)
    elsewhere = Claim(claim_id="e2", side="employer", text="শ্রমিক ছুটি পাইবেন না",
                      evidence=[EvidenceRef(node_id="2025:115", span="ছুটি পাইবার অধিকারী")], confidence=1)
    (c,) = claim_conflicts([may, may_not, elsewhere])
    assert (c.a, c.b, c.node_ids) == ("w1", "e1", ["2025:27(1)"]) and "may" in c.reason
    assert claim_conflicts([may, elsewhere]) == []


def test_a_released_quote_must_state_the_amount_of_time_asked(graph: StatuteGraph) -> None:
    """A new user's "অস্থায়ী শ্রমিক চাকরি ছাড়তে কত দিনের নোটিশ দিবে?" was released (TGLO) with 27(2)'s closing
    words alone, which state no days: the auditor's finding is now NEI, whatever the backend read, and the same
    quote with its clauses (ত্রিশ দিনের, চৌদ্দ দিনের) stays SUPPORT."""
    from labourcrew.board.roles import _finding
    from labourcrew.ledger.records import Claim, EvidenceRef
    from labourcrew.ledger.roles import AuditOutput

    q = "অস্থায়ী শ্রমিক চাকরি ছাড়তে কত দিনের নোটিশ দিবে?"
    ids = ["2025:27(2)(b).para1", "2025:27(2)(a)", "2025:27(2)(b)"]
    texts = {n: graph.units[n].text for n in ids}
    support = AuditOutput(verdict=Verdict.SUPPORT, category=ClaimCategory.FACTUAL, checks={}, notes="")

    def claim(nodes: list[str]) -> Claim:
        refs = [EvidenceRef(node_id=n, span=texts[n].split(") ", 1)[-1].rstrip("৷।,")) for n in nodes]
        return Claim(claim_id="w1", side="worker", text="আইন অনুযায়ী: " + " ".join(f"«{r.span}»" for r in refs),
                     evidence=refs, confidence=0.9)

    tail = _finding(claim(ids[:1]), support, {ids[0]: texts[ids[0]]}, graph, q)
    assert tail.verdict == Verdict.NEI and tail.checks["skeptic.asked_amount_stated"] is False
    assert "asks an amount of time" in tail.notes
    whole = _finding(claim(ids), support, texts, graph, q)
    assert whole.verdict == Verdict.SUPPORT and whole.checks["skeptic.asked_amount_stated"] is True
    # a question that asks no amount of time: no such check
    assert "skeptic.asked_amount_stated" not in _finding(claim(ids[:1]), support, {ids[0]: texts[ids[0]]}, graph,
                                                         "অস্থায়ী শ্রমিক কীভাবে ইস্তফা দিতে পারে?").checks
