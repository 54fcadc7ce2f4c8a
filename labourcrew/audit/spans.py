"""Find a quoted span in a statute text under Bangla-safe normalisation, with source offsets.

Matching happens in the *normalised* space (:func:`labourcrew.statute.normalize.normalize` on both
sides), but the UI must highlight the *original* text. :func:`locate_span` therefore maps the
match back to offsets in the source string.

How the offset map is built (and why it is exact):

1. ``normalize`` never acts across whitespace (NFC, dropped characters, glyph fixes and the reph
   rule all work inside one word; whitespace is only collapsed). So the source is split into
   whitespace-separated tokens, each token is normalised on its own, and the non-empty results
   joined by one space equal ``normalize(source)`` (checked; see ``_SourceIndex``).
2. Each token is cut into the smallest *segments* whose normalised forms concatenate to the
   token's normalised form. Usually a segment is one character; legacy spellings that
   normalisation rewrites as a whole (reordered reph ``কতর্ৃক``, ``ত্স``, decomposed vowel signs)
   stay in one segment.
3. A match in normalised space starts in some segment and ends in some segment; the source span is
   from the start of the first to the end of the last. A match boundary inside a segment widens
   to the whole segment, never narrower, so the highlighted source always contains the quote.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache

from labourcrew.statute.normalize import normalize

__all__ = ["locate_span", "locate_normalized", "SourceIndex", "source_index"]

logger = logging.getLogger(__name__)

_TOKEN = re.compile(r"\S+")


def _segment_token(token: str) -> list[tuple[int, int, str]]:
    """Cut ``token`` into (start, end, normalised) segments whose outputs concatenate exactly."""
    target = normalize(token)
    per_char = [normalize(c) for c in token]
    if "".join(per_char) == target:
        return [(i, i + 1, out) for i, out in enumerate(per_char)]
    # Greedy: from ``a``, take the shortest piece whose output plus the rest's output equals the
    # rest's output as a whole. By induction the pieces concatenate to ``target``.
    segments: list[tuple[int, int, str]] = []
    a = 0
    n = len(token)
    while a < n:
        rest = normalize(token[a:])
        for b in range(a + 1, n + 1):
            head = normalize(token[a:b])
            if head + normalize(token[b:]) == rest:
                segments.append((a, b, head))
                a = b
                break
    return segments


@dataclass(frozen=True, slots=True)
class SourceIndex:
    """A source text, its normalised form and the map between them.

    Attributes:
        source: the original text.
        norm: ``normalize(source)``.
        seg_src: per segment, (start, end) offsets in ``source``.
        norm_starts: per segment, start offset of its output in ``norm`` (non-decreasing).
        norm_ends: per segment, end offset of its output in ``norm`` (equal to the start for
            characters normalisation drops).
        exact: True when the per-token construction reproduced ``normalize(source)`` exactly.
    """

    source: str
    norm: str
    seg_src: tuple[tuple[int, int], ...]
    norm_starts: tuple[int, ...]
    norm_ends: tuple[int, ...]
    exact: bool

    def to_source(self, nstart: int, nend: int) -> tuple[int, int] | None:
        """Map a non-empty normalised range ``[nstart, nend)`` to source offsets.

        Returns the start of the first segment whose output reaches past ``nstart`` and the end of
        the last segment whose output starts before ``nend``; None for an empty/out-of-range input.
        """
        if not 0 <= nstart < nend <= len(self.norm):
            return None
        first = bisect_right(self.norm_ends, nstart)
        last = bisect_left(self.norm_starts, nend) - 1
        if first >= len(self.seg_src) or last < first:
            return None
        return self.seg_src[first][0], self.seg_src[last][1]


@lru_cache(maxsize=512)
def source_index(source: str) -> SourceIndex:
    """Build (and cache) the offset map of ``source``. Pure; cached on the text itself."""
    parts: list[str] = []
    seg_src: list[tuple[int, int]] = []
    seg_norm: list[tuple[int, int]] = []
    pos = 0  # length of the normalised text built so far
    for m in _TOKEN.finditer(source):
        segments = _segment_token(m.group())
        if not any(out for _, _, out in segments):
            continue  # the whole token normalises away ("[", a lone ZWNJ)
        if parts:
            parts.append(" ")
            pos += 1
        for s, e, out in segments:
            seg_src.append((m.start() + s, m.start() + e))
            seg_norm.append((pos, pos + len(out)))
            parts.append(out)
            pos += len(out)
    norm = "".join(parts)
    exact = norm == normalize(source)
    if not exact:  # should not happen: normalize() is token-local; keep working, but say so
        logger.warning("span index differs from normalize() for a %d-char text", len(source))
    return SourceIndex(
        source,
        norm,
        tuple(seg_src),
        tuple(s for s, _ in seg_norm),
        tuple(e for _, e in seg_norm),
        exact,
    )


def locate_normalized(source_text: str, span_norm: str, start: int = 0) -> tuple[int, int] | None:
    """Locate an already-normalised span; see :func:`locate_span`.

    Args:
        source_text: the original text.
        span_norm: ``normalize(span)``.
        start: search from this offset of the normalised source.
    """
    if not span_norm:
        return None
    index = source_index(source_text)
    nstart = index.norm.find(span_norm, start)
    if nstart < 0:
        return None
    return index.to_source(nstart, nstart + len(span_norm))


def locate_span(source_text: str, span: str) -> tuple[int, int] | None:
    """Find ``span`` in ``source_text`` after Bangla-safe normalisation of both.

    Args:
        source_text: verbatim statute text (e.g. ``EvidenceItem.text``).
        span: the quoted span, in any Unicode-equivalent spelling (ZWJ/ZWNJ, ``৷``/``।``,
            Bangla/ASCII digits, ``ৰ``/``ক্ষ``, precomposed or decomposed nukta, extra spaces).

    Returns:
        ``(start, end)`` offsets into ``source_text`` of the first match, such that
        ``normalize(span)`` occurs in ``normalize(source_text[start:end])``; None when the span
        does not occur or normalises to the empty string.
    """
    return locate_normalized(source_text, normalize(span))
