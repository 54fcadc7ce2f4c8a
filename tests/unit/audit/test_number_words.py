"""The skeptic's numbers check reads Bangla number words and mixed forms, so a changed number is caught
on the real 2025 text (section 115: "দশ দিনের নৈমিত্তিক ছুটি"; 46(1): "[৬০ (ষাট) দিন]")."""

from __future__ import annotations

import pytest

from labourcrew.audit.skeptic import numbers_in, quantities_in, skeptic_report, word_number


@pytest.mark.parametrize("text,value", [
    ("দশ দিনের ছুটি", 10), ("পনের দিনের", 15), ("পনেরো দিন", 15), ("ষাট দিন", 60),
    ("একশত বিশ দিন", 120), ("এক শত বিশ দিন", 120), ("দুই হাজার টাকা", 2000), ("[৬০ (ষাট) দিন]", 60),
    ("১৫ দিন", 15), ("১০,০০০ টাকা", 10000),
])
def test_number_words_and_mixed_forms(text, value):
    assert float(value) in numbers_in(text)
    assert any(v == value for v, _unit in quantities_in(text))


def test_a_number_word_without_a_unit_is_not_a_number():
    # নয় = nine, but also "is not"
    assert numbers_in("এটি প্রযোজ্য নয়") == set()
    assert word_number(["একশত", "বিশ"]) == 120.0


def test_a_changed_number_is_caught_on_the_real_text(graph):
    text_115 = graph.units["2025:115"].text
    span = "প্রত্যেক শ্রমিক প্রতি পঞ্জিকা বৎসরে পূর্ণ মজুরীতে দশ দিনের নৈমিত্তিক ছুটি পাইবার অধিকারী হইবেন"
    assert span in text_115
    good = skeptic_report(f"আইন অনুযায়ী বছরে দশ দিন নৈমিত্তিক ছুটি: «{span}» (ধারা ১১৫)", [span], {"2025:115": text_115})
    bad = skeptic_report("আইন অনুযায়ী বছরে ১৫ দিন নৈমিত্তিক ছুটি (ধারা ১১৫)", [span], {"2025:115": text_115})
    assert good.checks["numbers_match"] is True
    assert bad.checks["numbers_match"] is False


def test_sixty_days_of_46_1_in_words_and_digits(graph):
    text = graph.units["2025:46(1)"].text
    assert 60.0 in numbers_in(text)
    ok = skeptic_report("প্রসূতি ছুটি ষাট দিন", [text[:40]], {"2025:46(1)": text})
    wrong = skeptic_report("প্রসূতি ছুটি আট সপ্তাহ বা ১২০ দিন", [text[:40]], {"2025:46(1)": text})
    assert ok.checks["numbers_match"] is True
    assert wrong.checks["numbers_match"] is False
