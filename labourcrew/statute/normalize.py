"""Bangla-safe text normalisation for search and matching (never for display).

The official Unicode text of the Act (bdlaws) carries artefacts of its legacy-font conversion
(data/statute/PROVENANCE.md, "Known artefacts"). Citations keep the source string verbatim; only
``text_norm`` and span matching use :func:`normalize`.

Handled, in order (each step is idempotent and the whole function is idempotent):

1. NFC (so U+09DF য় and য+়, U+09DC ড় and ড+় compare equal: NFC decomposes these three).
2. Drop ZWNJ/ZWJ (U+200C/U+200D), soft hyphen, and the private-use U+F02D (a dash in the source).
3. Legacy glyph artefacts: ``ৰ`` (U+09F0) -> ``ক্ষ``; ``ত্স`` -> ``ৎস``; ``Cত্দ`` -> ``C্ত``
   (``দরখাসত্দ`` -> ``দরখাস্ত``); reph reordered after its consonant cluster
   (``কতর্ৃক`` -> ``কর্তৃক``, ``পাশ্বর্িক`` -> ``পার্শ্বিক``).
4. Dari: ``৷`` (U+09F7) -> ``।`` (U+0964).
5. Bangla digits -> ASCII digits.
6. Quotes (‘ ’ “ ” and the stray ``æ``) -> ``"``; amendment brackets ``[`` ``]`` removed.
7. Case-fold (for the English text) and collapse whitespace; repeat until stable.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["normalize", "display_form", "to_ascii_digits", "to_bangla_digits", "BN_DIGITS", "collapse_ws"]

BN_DIGITS = "০১২৩৪৫৬৭৮৯"
_TO_ASCII = str.maketrans(BN_DIGITS, "0123456789")
_TO_BANGLA = str.maketrans("0123456789", BN_DIGITS)

# Bangla consonants (ক..হ, plus ড় ঢ় য় precomposed and ৎ) as a character class.
_C = "\u0995-\u09b9\u09dc\u09dd\u09df"
# Dependent vowel signs (া ি ী ু ূ ৃ ৄ ে ৈ ো ৌ) and the au length mark.
_V = "\u09be-\u09c4\u09c7\u09c8\u09cb\u09cc\u09d7"
_HASANTA = "\u09cd"

# "র্" directly before a vowel sign never occurs in correct Bangla: the reph was typed after the
# consonant cluster it belongs to (legacy font order). Move it back before the cluster.
_REPH_REORDERED = re.compile(f"((?:[{_C}]{_HASANTA})*[{_C}])\u09b0{_HASANTA}([{_V}])")
# Legacy "ত্দ" after a consonant stands for hasanta + ত ("সত্দ" = "স্ত", "নত্দ" = "ন্ত").
_T_D_CONJUNCT = re.compile(f"(?<=[{_C}])\u09a4{_HASANTA}\u09a6")

_DROP = dict.fromkeys(map(ord, "\u200c\u200d\u00ad\u200b\ufeff"), None)
_CHAR_MAP = str.maketrans(
    {
        "\uf02d": "-",  # private-use dash in "যথা\uf02d"
        "\u09f7": "\u0964",  # ৷ (currency numerator four, used as dari) -> । (danda)
        "\u2018": '"',
        "\u2019": '"',
        "\u201c": '"',
        "\u201d": '"',
        "\u00e6": '"',  # "æ" is a legacy-font opening quote in the official text
        "[": None,
        "]": None,
    }
)
_WS = re.compile(r"\s+")


def collapse_ws(text: str) -> str:
    """Collapse every run of whitespace (incl. NBSP) to one space and strip the ends."""
    return _WS.sub(" ", text).strip()


def to_ascii_digits(text: str) -> str:
    """Replace Bangla digits ০-৯ with ASCII 0-9; other characters unchanged."""
    return text.translate(_TO_ASCII)


def to_bangla_digits(text: str) -> str:
    """Replace ASCII digits 0-9 with Bangla ০-৯; other characters unchanged."""
    return text.translate(_TO_BANGLA)


def normalize(text: str) -> str:
    """Return the matching form of ``text`` (see module docstring for every step).

    Args:
        text: any Bangla or English string.

    Returns:
        The normalised string; ``normalize(normalize(x)) == normalize(x)`` for every ``x``.
    """
    t = text
    # One pass almost always suffices; repeat until stable so that idempotence holds even for
    # odd inputs where one fix exposes another (e.g. casefolding produces a mapped character).
    for _ in range(4):
        prev = t
        t = unicodedata.normalize("NFC", t).casefold().translate(_DROP)
        t = t.replace("\u09f0", "\u0995\u09cd\u09b7")  # ৰ -> ক্ষ
        t = t.replace("\u09a4\u09cd\u09b8", "\u09ce\u09b8")  # ত্স -> ৎস
        t = _T_D_CONJUNCT.sub(f"{_HASANTA}\u09a4", t)
        t = _REPH_REORDERED.sub(f"\u09b0{_HASANTA}\\1\\2", t)
        t = t.translate(_CHAR_MAP).translate(_TO_ASCII)
        t = collapse_ws(unicodedata.normalize("NFC", t))
        if t == prev:
            break
    return t


# Legacy-font conversion artefacts of the official text that only *display* repairs (data/statute/PROVENANCE.md;
# counted on both Bangla versions, every occurrence one of these words): a worker reading «শ্রমিকের তেগত্রে» or
# «উলিস্নখিত» sees a garbled Act. Matching keeps them (normalize), so label keys and spans do not move.
_DISPLAY_REPAIRS: tuple[tuple[str, str], ...] = (
    ("তেগত্রে", "ক্ষেত্রে"),   # 16 x (26(1)(a), 46(2), 47(1) ...)
    ("লিস্ন", "ল্লি"),        # 64 x উলিস্নখিত, চলিস্নশ, পঁয়তালিস্নশ
    ("লেস্ন", "ল্লে"),        # 18 x উলেস্নখ
    ("শিস্ন", "শ্লি"),        # 57 x সংশিস্নষ্ট
    ("রম্ন", "রু"),          # 58 x বিরম্নদ্ধে, শুরম্ন, জরম্নরী, গুরম্নতর, ত্রম্নটি
    ("িি", "ি"),             # 6 x রেজিিস্ট্রি
)


def display_form(text: str) -> str:
    """A copy of statute text for *display*: the legacy glyph artefacts of step 3 repaired (and the
    dari unified) so that a browser shows ``পূর্ববর্তী``, not ``পূর্ববত◌্রী``, and ``ক্ষেত্রে``, not
    ``তেগত্রে`` (:data:`_DISPLAY_REPAIRS`); digits, brackets, quotes and case are kept. Matching and citation
    keep the verbatim text (:func:`normalize`).
    """
    t = unicodedata.normalize("NFC", text).translate(_DROP)
    for bad, good in _DISPLAY_REPAIRS:
        t = t.replace(bad, good)
    t = t.replace("\u09f0", "\u0995\u09cd\u09b7").replace("\u09a4\u09cd\u09b8", "\u09ce\u09b8")
    t = _T_D_CONJUNCT.sub(f"{_HASANTA}\u09a4", t)
    t = _REPH_REORDERED.sub(f"\u09b0{_HASANTA}\\1\\2", t)
    t = t.replace("\u09a8\u09cd\u09a4\u09cd\u09ae", "\u09a8\u09cd\u09a4")  # legacy "ন্ত্ম" (সন্ত্মান) -> "ন্ত"
    return unicodedata.normalize("NFC", t.replace("\u09f7", "\u0964").replace("\uf02d", "-"))


def shorten(text: str, limit: int) -> str:
    """``text`` in :func:`display_form`, cut to at most ``limit`` characters at a word boundary, with " …"
    when cut: a word cut in half («ব …», "employe …") reads as a different word.
    """
    text = display_form(text)
    if len(text) <= limit:
        return text
    head = text[:limit]
    return (head.rsplit(" ", 1)[0] if " " in head else head) + " …"
