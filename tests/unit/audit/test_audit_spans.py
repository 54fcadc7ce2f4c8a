"""locate_span: normalised matching mapped back to offsets in the original Act text."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from labourcrew.audit.spans import locate_span, source_index
from labourcrew.statute.normalize import normalize


def test_index_reproduces_normalize_on_every_section(sections):
    for text in sections:
        index = source_index(text)
        assert index.exact
        assert index.norm == normalize(text)
        # segments tile the source in order, never overlapping
        assert all(a[1] <= b[0] for a, b in pairwise(index.seg_src))


def test_every_real_sentence_is_located_exactly(sentences, sections):
    for i, sentence in sentences:
        loc = locate_span(sections[i], sentence)
        assert loc is not None, sentence
        start, end = loc
        assert normalize(sections[i][start:end]) == normalize(sentence)
        # a whole-sentence quote maps to the very same source text (bar amendment brackets at
        # its ends, which normalise away)
        assert sections[i][start:end] == sentence.strip("[] ")


def test_legacy_spellings_map_back_to_the_source_glyphs():
    src = "মালিক কতর্ৃক [ অপসারণ, চাকুরির ] ২৯৷ শ্রমিকের সুরৰা দিবেন"
    loc = locate_span(src, "কর্তৃক অপসারণ, চাকুরির 29।")
    assert loc is not None
    assert src[loc[0]:loc[1]] == "কতর্ৃক [ অপসারণ, চাকুরির ] ২৯৷"
    loc = locate_span(src, "সুরক্ষা")
    assert src[loc[0]:loc[1]] == "সুরৰা"


def test_absent_or_empty_spans_are_none():
    src = "কোন শ্রমিক ষাট দিনের লিখিত নোটিশ দিয়া"
    assert locate_span(src, "নব্বই দিনের") is None
    assert locate_span(src, "") is None
    assert locate_span(src, "\u200c [ ]") is None
    assert locate_span("", "ষাট") is None


def test_first_occurrence_is_returned():
    src = "ষাট দিন এবং আবার ষাট দিন"
    assert locate_span(src, "ষাট দিন") == (0, 7)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(data=st.data())
def test_random_substrings_are_located_and_covered(sections, data):
    """Any quote whose normalised form occurs in the text is found, and the highlighted source
    region (possibly widened to whole legacy-glyph segments) contains it."""
    text = sections[data.draw(st.integers(0, len(sections) - 1))]
    a = data.draw(st.integers(0, max(0, len(text) - 10)))
    b = data.draw(st.integers(a + 1, min(len(text), a + 200)))
    span = text[a:b]
    span_norm = normalize(span)
    assume(span_norm and span_norm in normalize(text))
    loc = locate_span(text, span)
    assert loc is not None
    start, end = loc
    assert span_norm in normalize(text[start:end])
    assert start <= a + len(span) and end >= start


@settings(max_examples=100, deadline=None, derandomize=True)
@given(data=st.data())
def test_real_sentence_located_within_its_section_region(sections, sentences, data):
    i, sentence = sentences[data.draw(st.integers(0, len(sentences) - 1))]
    text = sections[i]
    start, end = locate_span(text, sentence)
    first = text.find(sentence)
    assert first <= start < end <= first + len(sentence)
