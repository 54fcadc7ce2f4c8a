"""HTML for statute passages: verbatim spans highlighted inside the full unit text.

Spans are located with :func:`labourcrew.audit.spans.locate_span` (Bangla-safe normalisation on
both sides, offsets mapped back to the *source* string), so the highlight always covers the
original characters of the unit even when the quote differs in ZWJ/ZWNJ, digits or dari.
Everything is HTML-escaped; nothing from a run is ever inserted unescaped.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.audit.spans import locate_span

__all__ = ["Highlight", "highlight", "highlight_html"]


class Highlight(BaseModel):
    """The result of highlighting spans in one text."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    html: str = Field(description="Escaped text with each found span wrapped in <mark class='lc-span'>.")
    found: list[tuple[int, int]] = Field(description="Merged (start, end) source offsets highlighted, ascending.")
    missing: list[str] = Field(description="Spans that do not occur in the text (shown as not verified).")


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def highlight(text: str, spans: Iterable[str], *, css_class: str = "lc-span") -> Highlight:
    """Wrap every occurrence-located span of ``spans`` in ``text`` with ``<mark>``.

    Args:
        text: the full verbatim unit text (source string, not normalised).
        spans: quoted spans, any Unicode-equivalent spelling; blank ones are ignored.
        css_class: class of the ``<mark>`` elements.

    Returns:
        :class:`Highlight`; overlapping spans are merged into one mark.
    """
    ranges: list[tuple[int, int]] = []
    missing: list[str] = []
    for span in spans:
        if not span or not span.strip():
            continue
        where = locate_span(text, span)
        if where is None:
            missing.append(span)
        else:
            ranges.append(where)
    merged = _merge(ranges)
    parts: list[str] = []
    pos = 0
    for start, end in merged:
        parts.append(html.escape(text[pos:start]))
        parts.append(f"<mark class='{html.escape(css_class)}'>{html.escape(text[start:end])}</mark>")
        pos = end
    parts.append(html.escape(text[pos:]))
    return Highlight(html="".join(parts), found=merged, missing=missing)


def highlight_html(text: str, spans: Iterable[str]) -> str:
    """Shorthand for ``highlight(text, spans).html``."""
    return highlight(text, spans).html
