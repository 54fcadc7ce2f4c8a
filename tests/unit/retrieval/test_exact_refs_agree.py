"""The two readers of section references agree: the deduplicated references and every occurrence."""

from __future__ import annotations

import pytest

from labourcrew.audit.skeptic import strip_section_refs
from labourcrew.retrieval.exact import find_section_refs, section_ref_spans


@pytest.mark.parametrize(
    "text",
    [
        "ধারা ৪৬(১); ধারা ৪৬(১)-এর শর্তাংশ",
        "ধারা ২৭(১)(ক) এবং ধারা ২৭(১) দেখুন, section 27 and 46",
        "উপ-ধারা (৩) ও ধারা ২৬ অনুযায়ী; আবার ধারা ২৬",
        "কোনো ধারা নেই, শুধু ৬০ দিন",
    ],
)
def test_find_section_refs_is_the_first_occurrence_of_each_span(text: str) -> None:
    spans = section_ref_spans(text)
    refs = find_section_refs(text)
    assert [r.start for r in refs] == sorted(r.start for r in refs)
    assert {r.start for r in refs} <= {s for s, _ in spans}
    assert len(spans) >= len(refs)
    # Stripping removes every occurrence, so no citation digit is left for the numbers check.
    stripped = strip_section_refs(text)
    for ref in refs:
        assert ref.surface not in stripped


def test_strip_keeps_the_numbers_of_the_rule() -> None:
    text = "প্রযোজ্য বিধান: «[৬০ (ষাট) দিন]» (ধারা ৪৬(১); ধারা ৪৬(১)-এর শর্তাংশ)"
    stripped = strip_section_refs(text)
    assert "৬০" in stripped and "৪৬" not in stripped
