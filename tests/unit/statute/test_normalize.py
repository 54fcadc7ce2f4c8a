"""The Bangla-safe normaliser: one test per artefact kind of the official text (PROVENANCE.md)."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from labourcrew.statute.normalize import normalize, to_ascii_digits, to_bangla_digits


def test_legacy_ksha_glyph():
    assert normalize("পৰের") == normalize("পক্ষের") == "পক্ষের"


def test_dari_forms_are_equal():
    assert normalize("হইবে৷") == normalize("হইবে।")


def test_t_s_conjunct():
    assert normalize("বত্সর") == "বৎসর"


def test_reordered_reph_including_conjunct_cluster():
    assert normalize("কতর্ৃক") == "কর্তৃক"
    assert normalize("পাশ্বর্িক") == "পার্শ্বিক"
    assert normalize("নিয়ন্ত্রণবহিভর্ূত") == normalize("নিয়ন্ত্রণবহির্ভূত")


def test_legacy_t_d_conjunct():
    assert normalize("দরখাসত্দ") == "দরখাস্ত"
    assert normalize("অনত্দর্বতর্ী") == "অন্তর্বর্তী"


def test_zero_width_joiners_dropped():
    assert normalize("এতদ্\u200cউদ্দেশ্যে") == normalize("এতদ্উদ্দেশ্যে")
    assert normalize("ঘ\u200dূর্ণায়মান") == normalize("ঘূর্ণায়মান")


def test_nukta_precomposed_and_decomposed_equal():
    pre = "\u09df"  # য় precomposed
    dec = "\u09af\u09bc"  # য + nukta
    assert normalize("নিয়োগ".replace("য়", pre)) == normalize("নিয়োগ".replace("য়", dec))
    assert normalize("\u09dc") == normalize("\u09a1\u09bc")  # ড়


def test_digits_both_ways():
    assert to_ascii_digits("ধারা ২৭(৩ক)") == "ধারা 27(3ক)"
    assert to_bangla_digits("27") == "২৭"
    assert normalize("১২০ দিন") == normalize("120 দিন")


def test_private_use_dash_and_brackets_and_space():
    assert normalize("যথা\uf02d") == "যথা-"
    assert normalize("[মুনাফা  বা\u00a0লাভের]") == "মুনাফা বা লাভের"


def test_english_casefold():
    assert normalize("Provided  that") == "provided that"


_bn = st.text(
    alphabet=st.sampled_from(
        list("কখগঘতদনরসহািীুূৃেোৌ্ৎৰ৷।০১২৩৪৫৬৭৮৯ ()[]") + ["\u200c", "\u200d", "\u09bc", "\u09df", "\uf02d", "A", "b"]
    ),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(_bn)
def test_normalize_is_idempotent(s):
    once = normalize(s)
    assert normalize(once) == once


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_normalize_is_idempotent_on_any_unicode(s):
    once = normalize(s)
    assert normalize(once) == once
    assert unicodedata.is_normalized("NFC", once)


def test_shorten_cuts_real_statute_text_at_a_word_boundary(graph):
    """One rule for every shortened passage: the opinion's clauses, the Ask page's English parallel and the
    StatuteGraph tooltips (a new user saw the English of s.27 end «… under the employe …»)."""
    from labourcrew.statute.normalize import display_form, shorten
    from labourcrew.viz.network import _TIP_CHARS, _tooltip

    for text in (graph.english["2025:27"].text, graph.units["2025:27(3A)"].text):
        full = display_form(text)
        cut = shorten(text, 120)
        assert cut.endswith(" …") and len(cut) <= 122
        head = cut.removesuffix(" …")
        assert full.startswith(head) and full[len(head)] == " "  # the next character is a space: no word cut
    assert shorten("২৭ ধারা", 100) == "২৭ ধারা"
    unit = graph.units["2025:27(3A)"]
    assert _tooltip(graph, unit.node_id)[0].split("\n", 1)[1] == shorten(unit.text, _TIP_CHARS)


def test_display_repairs_the_legacy_conversion_artefacts_a_reader_saw_but_matching_keeps_them(graph):
    """26(1)(a) reads «শ্রমিকের তেগত্রে» in the official text: display shows «ক্ষেত্রে» (and «উল্লিখিত», «সংশ্লিষ্ট»,
    «বিরুদ্ধে»), while the verbatim text and its matching form are untouched (label keys and spans depend on them)."""
    from labourcrew.statute.normalize import display_form

    unit = graph.units["2025:26(1)(a)"]
    assert "তেগত্রে" in unit.text and "তেগত্রে" in normalize(unit.text)
    assert "তেগত্রে" not in display_form(unit.text) and "ক্ষেত্রে" in display_form(unit.text)
    for bad, good in (("উলিস্নখিত", "উল্লিখিত"), ("সংশিস্নষ্ট", "সংশ্লিষ্ট"), ("বিরম্নদ্ধে", "বিরুদ্ধে"),
                      ("উলেস্নখ", "উল্লেখ"), ("রেজিিস্ট্রি", "রেজিস্ট্রি")):
        assert display_form(bad) == good, bad
    shown = [display_form(u.text) for v in ("2025", "2018") for u in graph.version_units(v) if u.text]
    assert not any(a in t for t in shown for a in ("তেগত্রে", "লিস্ন", "শিস্ন", "রম্ন"))
