"""Citation Checker on the real Act text: one-character changes are caught, Unicode-equivalent
spellings of a real quote are never rejected."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from labourcrew.audit.citation_checker import (
    MIN_SPAN_CHARS,
    check_claim,
    check_claims,
    check_ref,
)
from labourcrew.ledger.audit import ClaimCheck
from labourcrew.ledger.records import Claim, EvidenceItem, EvidencePack, EvidenceRef
from labourcrew.statute.normalize import (
    BN_DIGITS,
    normalize,
    to_ascii_digits,
    to_bangla_digits,
)

NODE = "2025:x"


def _pack(text: str, node_id: str = NODE) -> EvidencePack:
    return EvidencePack(
        items=[EvidenceItem(node_id=node_id, section="1", level="section", text=text, channels=["lexical"],
                            score=1.0, provenance=1.0)]
    )


def _check(text: str, span: str, **kw):
    return check_ref(EvidenceRef(node_id=NODE, span=span), _pack(text), **kw)


# ------------------------------------------------------------------ basic outcomes


def test_real_sentence_passes_with_source_highlight(sections, sentences):
    i, sentence = sentences[100]
    result = _check(sections[i], sentence)
    assert result.ok and result.code == "ok"
    assert result.matched_text == sections[i][result.start:result.end]
    assert normalize(result.matched_text) == normalize(sentence)


def test_unknown_node_fails():
    result = check_ref(EvidenceRef(node_id="2025:999", span="ষাট দিনের নোটিশ"), _pack("ষাট দিনের নোটিশ"))
    assert not result.ok and result.code == "unknown_node" and "2025:999" in result.reason


def test_short_spans_are_too_short_to_verify():
    text = "কোন শ্রমিক ষাট দিনের লিখিত নোটিশ দিয়া চাকুরি হইতে ইস্তফা দিতে পারিবেন৷"
    short = "ষাট দিন"  # 7 normalised characters, occurs in the text
    assert len(normalize(short)) < MIN_SPAN_CHARS and normalize(short) in normalize(text)
    result = _check(text, short)
    assert not result.ok and result.code == "span_too_short"
    assert _check(text, "ষাট দিনের").ok  # 9 characters
    assert _check(text, short, min_span_chars=4).ok


def test_a_whole_short_unit_may_be_quoted():
    assert _check("[বিলুপ্ত]", "বিলুপ্ত").ok
    assert not _check("[বিলুপ্ত] এবং আরও", "বিলুপ্ত").ok


def test_span_not_in_text_fails():
    result = _check("কোন শ্রমিক ষাট দিনের লিখিত নোটিশ দিয়া", "নব্বই দিনের লিখিত নোটিশ")
    assert not result.ok and result.code == "span_not_found" and result.matched_text is None


def test_claim_check_reports_every_citation_in_order():
    text = "কোন শ্রমিক ষাট দিনের লিখিত নোটিশ দিয়া চাকুরি হইতে ইস্তফা দিতে পারিবেন৷"
    pack = _pack(text)
    claim = Claim(
        claim_id="w1", side="worker", text="t", confidence=0.5,
        evidence=[
            EvidenceRef(node_id=NODE, span="ষাট দিনের লিখিত নোটিশ"),
            EvidenceRef(node_id=NODE, span="৯০ দিনের লিখিত নোটিশ"),
            EvidenceRef(node_id="2025:9", span="ষাট দিনের লিখিত নোটিশ"),
            EvidenceRef(node_id=NODE, span="ইস্তফা দিতে পারিবেন।"),
        ],
    )
    check = check_claim(claim, pack)
    assert [r.code for r in check.results] == ["ok", "span_not_found", "unknown_node", "ok"]
    assert check.n_ok == 2 and check.validity == 0.5 and not check.all_ok
    assert ClaimCheck.from_json(check.stable_json()) == check
    assert check_claims([claim, claim], pack) == [check, check]


# ------------------------------------------------------------------ mutations are caught

_REPLACEMENTS = list("কখগঘচজটডতদনপবমযরলশসহািীুূেোৈৌং্ঁ") + list(BN_DIGITS) + list("0123456789aZ,;-() ")


@settings(max_examples=250, deadline=None, derandomize=True)
@given(data=st.data())
def test_one_character_substitution_is_always_caught(sections, sentences, data):
    i, sentence = sentences[data.draw(st.integers(0, len(sentences) - 1), label="sentence")]
    assert _check(sections[i], sentence).ok
    pos = data.draw(st.integers(1, len(sentence) - 2), label="position")  # interior: see below
    new = data.draw(st.sampled_from(_REPLACEMENTS), label="replacement")
    mutated = sentence[:pos] + new + sentence[pos + 1:]
    # A change that normalises away (৷ -> ।, ২ -> 2, ...) is not a real change.
    assume(normalize(mutated) != normalize(sentence))
    result = _check(sections[i], mutated)
    assert not result.ok, (sentence, mutated)
    assert result.code == "span_not_found"
    # (End positions are excluded: turning the first/last character into a space shortens the
    # quote to a true substring of the source, which is correctly accepted.)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(data=st.data())
def test_changing_one_digit_is_always_caught(sections, sentences, data):
    with_digits = [(i, s) for i, s in sentences if re.search(f"[{BN_DIGITS}]", s)]
    i, sentence = with_digits[data.draw(st.integers(0, len(with_digits) - 1), label="sentence")]
    positions = [m.start() for m in re.finditer(f"[{BN_DIGITS}]", sentence)]
    pos = data.draw(st.sampled_from(positions), label="digit position")
    new = data.draw(st.sampled_from(list(BN_DIGITS) + list("0123456789")), label="new digit")
    assume(to_ascii_digits(new) != to_ascii_digits(sentence[pos]))
    mutated = sentence[:pos] + new + sentence[pos + 1:]
    assert not _check(sections[i], mutated).ok, (sentence, mutated)


# ------------------------------------------------------------------ equivalent spellings pass

_NUKTA_PAIRS = [("\u09df", "\u09af\u09bc"), ("\u09dc", "\u09a1\u09bc"), ("\u09dd", "\u09a2\u09bc")]


def _equivalent_variant(sentence: str, data) -> str:
    s = sentence
    if data.draw(st.booleans(), label="swap dari"):
        s = s.replace("৷", "\0").replace("।", "৷").replace("\0", "।")
    digits = data.draw(st.sampled_from(["keep", "ascii", "bangla"]), label="digits")
    s = {"keep": s, "ascii": to_ascii_digits(s), "bangla": to_bangla_digits(s)}[digits]
    if data.draw(st.booleans(), label="swap nukta forms"):
        for pre, dec in _NUKTA_PAIRS:
            s = s.replace(pre, "\0").replace(dec, pre).replace("\0", dec)
    if data.draw(st.booleans(), label="swap ৰ/ক্ষ"):
        s = s.replace("ৰ", "\0").replace("ক্ষ", "ৰ").replace("\0", "ক্ষ")
    for _ in range(data.draw(st.integers(0, 4), label="joiners")):
        pos = data.draw(st.integers(0, len(s)))
        s = s[:pos] + data.draw(st.sampled_from(["\u200c", "\u200d"])) + s[pos:]
    if data.draw(st.booleans(), label="respace"):
        s = s.replace(" ", data.draw(st.sampled_from(["  ", "\n", "\u00a0", " \t "])))
    return s


@settings(max_examples=250, deadline=None, derandomize=True)
@given(data=st.data())
def test_unicode_equivalent_quotes_are_never_rejected(sections, sentences, data):
    i, sentence = sentences[data.draw(st.integers(0, len(sentences) - 1), label="sentence")]
    variant = _equivalent_variant(sentence, data)
    result = _check(sections[i], variant)
    assert result.ok, (sentence, variant, result.reason)
    assert normalize(result.matched_text) == normalize(sentence)


def test_each_equivalence_class_is_exercised_by_the_act(sentences):
    """The variants above are not vacuous: the Act's sentences contain every glyph they swap."""
    joined = "".join(s for _, s in sentences)
    for needle in ["৷", "।", "ৰ", "ক্ষ", "\u09df", BN_DIGITS[1]]:
        assert needle in joined, needle
