"""Ask page widgets: the Bangla question form, live progress per phase, and the answer.

The answer shows the release status as a badge with its plain-Bangla explanation, the opinion
with inline citations, and the cited passages with the verbatim spans highlighted inside the full
unit text (English parallel on a toggle, marked unofficial/outdated), the statute version and the
backends that answered, and that this is not legal advice.
"""

from __future__ import annotations

import html
import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import streamlit as st

from labourcrew.gate.clarify import parse_facts
from labourcrew.gate.opinion_writer import withheld_reason_bn
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import Fact
from labourcrew.ledger.records import ReleaseStatus
from labourcrew.retrieval.pipeline import MAX_QUESTION_CHARS, clean_question
from labourcrew.statute.ids import citation_label_bn
from labourcrew.statute.model import ENGLISH_VERSION
from labourcrew.statute.normalize import display_form, shorten, to_bangla_digits
from labourcrew.ui.frame import html_text, link
from labourcrew.viz.charts import fmt_tau
from labourcrew.viz.run_view import ERROR_HANDLER, PHASES, SIDE_TITLES, cited_passages, phase_of, unique_backends
from labourcrew.viz.statute import VERSION_NAMES, version_notice
from labourcrew.viz.style import STATUS_STYLE

if TYPE_CHECKING:
    from labourcrew.ledger.run import AskResult

__all__ = ["EXAMPLES", "ABSTENTION_DEMO", "AskInput", "read_input", "run_with_progress", "status_badge", "render_answer", "remember",
           "remembered"]

EXAMPLES: tuple[str, ...] = (
    "শ্রমিক বছরে কয়দিন নৈমিত্তিক ছুটি পান?",
    "ওভারটাইম কাজের জন্য কত হারে মজুরি পাওয়া যায়?",
    "একজন স্থায়ী শ্রমিক চাকরি ছাড়তে চাইলে কত দিনের নোটিশ দিতে হবে?",
    "ধারা ৪০০ অনুযায়ী ওভারটাইমের হার কত?",
    "লে-অফ ৪৫ দিনের বেশি চললে মালিক কি শ্রমিককে ছাঁটাই করতে পারে?",
)
"""Ask-page buttons. The last one releases with the shipped calibration (16(7) scores 0.964 >= τ = 0.939), so a
demo shows a verified answer; the first two end UNDECIDED with their provisions listed, as most questions do."""
ABSTENTION_DEMO = EXAMPLES[3]
"""The example that names a section the Act does not have: it shows how a false premise is named."""
PLACEHOLDER = "আপনার প্রশ্ন বাংলায় লিখুন — যেমন: “ছাঁটাই করা হলে কত দিনের মজুরি ক্ষতিপূরণ পাওয়া যায়?”"
# Newest first: the selector's default is the law in force.
VERSION_ORDER: tuple[str, ...] = ("2025", "2018", "en-2018")


@dataclass(frozen=True)
class AskInput:
    """What the user asked for on this rerun."""

    question: str
    version: str
    submitted: bool
    facts: tuple[Fact, ...] = ()


def _use_example(text: str) -> None:
    st.session_state["ask_q"] = text
    st.session_state["ask_go"] = True
    st.session_state["ask_facts"] = {}


def _use_fact(key: str, value: str) -> None:
    facts = dict(st.session_state.get("ask_facts") or {})
    facts[key] = value
    st.session_state["ask_facts"] = facts
    st.session_state["ask_go"] = True


REPEAT_S = 5.0
"""Asking the same thing again within this many seconds shows the answer just given (a double click on
Ask ran the board twice and saved two identical runs)."""


def _request_key(request: AskInput) -> tuple[str, str, tuple[Fact, ...]]:
    return clean_question(request.question), request.version, tuple(request.facts)


def is_repeat(request: AskInput) -> bool:
    """Whether ``request`` repeats the answer of the last :data:`REPEAT_S` seconds (not run again)."""
    last = st.session_state.get("ask_last")
    return last is not None and last[0] == _request_key(request) and time.monotonic() - last[1] < REPEAT_S


def remember(result: AskResult | None, request: AskInput | None = None) -> None:
    """Keep the last answer of this browser session (shown again on reruns) and what was asked."""
    if result is not None:
        st.session_state["ask_result"] = result
        if request is not None:
            st.session_state["ask_last"] = (_request_key(request), time.monotonic())


def remembered() -> AskResult | None:
    """The last answer of this browser session, if any."""
    return st.session_state.get("ask_result")


def read_input(backend_line: str = "") -> AskInput:
    """Question area, example buttons (one click asks), version selector and the Ask button.

    Args:
        backend_line: the configured backend, shown next to the version selector.
    """
    # No max_chars: the browser silently drops a paste longer than the limit (the box was left empty and
    # the Ask button then said "the question is empty"); the length is checked here and on Ask instead.
    st.text_area("প্রশ্ন (question)", key="ask_q", height=110, placeholder=PLACEHOLDER)
    n = len(clean_question(st.session_state.get("ask_q", "") or ""))
    if n > MAX_QUESTION_CHARS:
        st.warning(f"প্রশ্নটি {to_bangla_digits(f'{n:,}')} অক্ষরের; সর্বোচ্চ {to_bangla_digits(f'{MAX_QUESTION_CHARS:,}')} "
                   f"অক্ষর — মূল আইনি বিষয়টুকু রেখে ছোট করুন (the question is {n:,} characters long; the limit is "
                   f"{MAX_QUESTION_CHARS:,}: shorten it to its legal issue).")
    else:
        st.caption(f"সর্বোচ্চ {to_bangla_digits(f'{MAX_QUESTION_CHARS:,}')} অক্ষর "
                   f"(at most {MAX_QUESTION_CHARS:,} characters, the same limit as the command line).")
    st.caption("উদাহরণ — একবার ক্লিক করলেই জিজ্ঞাসা করা হবে (examples, one click asks):")
    cols = st.columns(2)
    for i, text in enumerate(EXAMPLES):
        label = text + (" (ভুল ধারার নমুনা · demo)" if text == ABSTENTION_DEMO else "")
        cols[i % 2].button(label, key=f"ask_ex_{i}", on_click=_use_example, args=(text,), use_container_width=True)
    c1, c2 = st.columns([2, 1])
    version = c1.selectbox("আইনের সংস্করণ (statute version)", VERSION_ORDER, index=0, key="ask_version",
                           format_func=VERSION_NAMES.get)
    c2.write("")
    if backend_line:
        c1.caption(f"ব্যাকএন্ড (backend): {backend_line}")
    asked = c2.button("জিজ্ঞাসা করুন (Ask)", type="primary", key="ask_submit", use_container_width=True)
    go = asked or bool(st.session_state.pop("ask_go", False))
    if asked:
        st.session_state["ask_facts"] = {}
    facts = tuple(parse_facts(f"{k}={v}" for k, v in (st.session_state.get("ask_facts") or {}).items()))
    return AskInput(question=st.session_state.get("ask_q", "") or "", version=version, submitted=go, facts=facts)


def _detail(node: str, update: Any) -> str:
    if not isinstance(update, dict):
        return ""
    if "pack" in update and update["pack"] is not None:
        return f"{len(update['pack'].items)}টি একক প্রমাণ-প্যাকে (units on the pack)"
    if "claims" in update and update["claims"]:
        return f"{len(update['claims'])}টি দাবি (claims)"
    if "findings" in update and update["findings"]:
        return ", ".join(f"{k}: {v.verdict.value}" for k, v in update["findings"].items())
    if "gate" in update and update["gate"] is not None:
        return f"অবস্থা (status): {update['gate'].status.value}"
    if "spotting" in update and update["spotting"] is not None:
        return f"প্রশ্নের ধরন (type): {update['spotting'].question_type.value}"
    return ""


def run_with_progress(events: Any, started: float | None = None) -> AskResult | None:
    """Consume ``labourcrew.board.run.stream(...)`` showing one line per finished role.

    Args:
        events: the iterator of ``(node, update)`` pairs ending with ``("result", AskResult)``.
        started: ``time.monotonic()`` when the user asked (so the time shown includes loading the
            board on the first question); default: now.

    Returns:
        The :class:`AskResult`, or None if the stream ended without one.
    """
    import itertools
    import time

    t0 = started if started is not None else time.monotonic()
    result = None
    done: list[str] = []
    events = iter(events)
    first = next(events, None)  # input errors surface here, before a progress box is opened
    if first is None:
        return None
    with st.status("বোর্ড কাজ করছে … (the board is working)", expanded=True) as status:
        for node, update in itertools.chain([first], events):
            if node == "result":
                result = update
                continue
            key, label = phase_of(node)
            detail = _detail(node, update)
            st.write(f"{'✗' if node.startswith(ERROR_HANDLER) else '✓'} {label}" + (f" — {detail}" if detail else ""))
            phases = {k for k, _ in PHASES.values()}
            if key in phases and key not in done:  # an unknown node is shown, never counted as a step
                done.append(key)
            status.update(label=f"{label} … ({len(done)}/{len(phases)} ধাপ, {time.monotonic() - t0:.1f} s)")
        if result is not None:
            total = time.monotonic() - t0
            # The loading note only when loading took noticeable time (the first question of a session).
            loading = total - result.latency_s
            note = ("; বাকিটা প্রথমবার মডেল ও সূচি লোড — the rest is first-time loading" if loading >= 1.0 else "")
            status.update(label=f"সম্পন্ন (done) — মোট {total:.1f} s (বোর্ড {result.latency_s:.1f} s{note})",
                          state="complete", expanded=False)
        else:
            status.update(label="বোর্ড থেমে গেছে (stopped)", state="error")
    return result


def status_badge(status: str, reason: str = "") -> None:
    """The prominent release-status badge with its plain-Bangla explanation."""
    style = STATUS_STYLE[status]
    st.markdown(
        f"<div class='lc-badge lc-badge-{status}' data-testid='lc-status-badge' style='border-color:{style['colour']};"
        f"background:{style['background']};color:{style['colour']}'>"
        f"<span class='lc-badge-status'>{status}</span><span class='lc-badge-headline'>{style['headline']}</span>"
        f"<div class='lc-badge-explanation'>{style['explanation']}</div>"
        + (f"<div class='lc-badge-reason'>{html.escape(reason)}</div>" if reason else "")
        + "</div>",
        unsafe_allow_html=True,
    )


def _direct(answer: Any) -> str:
    text = html.escape(answer.text_bn)
    phrase = html.escape(answer.phrase)
    text = text.replace(f"«{phrase}»", f"«<mark class='lc-direct-phrase'>{phrase}</mark>»", 1)
    return f"<p class='lc-direct' data-testid='lc-direct-answer'>{text}</p>"


def _amendment_html(a) -> str:
    return (f"<p class='lc-amended' data-testid='lc-amendment'>🛈 {html.escape(a.text_bn)}"
            f"<br><small>{html.escape(a.text_en)}</small></p>")


def _opinion(result: AskResult) -> None:
    o = result.opinion
    sentences = list(o.sentences)
    parts = []
    if sentences:
        parts.append(f"<p class='lc-framing'>{html.escape(sentences[0].text)}</p>")
    if o.direct_answer is not None:
        parts.append(_direct(o.direct_answer))
    for s in sentences[1:]:
        parts.append(f"<p>{html.escape(s.text)}</p>")
    for q in o.qualifiers:
        if q.released:  # already quoted above as a verified sentence
            continue
        mark = "যাচাই করা হয়নি (not verified)"
        why = "" if q.bears else " — আপনার দেওয়া তথ্যে প্রযোজ্য নয় (ruled out by your facts)"
        parts.append(f"<p class='lc-qualifier' data-testid='lc-qualifier'><b>শর্ত/ব্যতিক্রম — {html.escape(q.citation)}"
                     f"</b> ({mark}{why}): «{html.escape(q.text)}»</p>")
    if o.incomplete:
        parts.append("<p class='lc-incomplete'>⚠ উত্তরটি অসম্পূর্ণ: নিয়মটির একটি শর্ত/ব্যতিক্রম যাচাই করা যায়নি "
                     "(the answer is incomplete: an exception of the rule was not verified).</p>")
    if not o.closest:  # an UNDECIDED answer's notes are about the listed provisions: shown under them
        parts.extend(_amendment_html(a) for a in o.amendments)
    if o.facts:
        parts.append("<p class='lc-facts'>ধরে নেওয়া তথ্য (facts assumed): "
                     + html.escape("; ".join(f.label_bn for f in o.facts)) + "</p>")
    if not parts:
        parts = [f"<p>{html.escape(result.opinion_bn)}</p>"]
    st.markdown(f"<div class='lc-opinion'>{''.join(parts)}</div>", unsafe_allow_html=True)
    for note in o.premise_notes:
        st.warning(f"প্রশ্নের ভিত্তি (premise): {note}")
    real_parts = [p for p in o.parts if not p.injection]
    if len(real_parts) > 1:
        st.markdown("**প্রশ্নের অংশ (parts of the question)**")
        items = "".join(
            f"<li>অংশ {to_bangla_digits(str(p.index))}: "
            + ("✓ উত্তর দেওয়া হয়েছে (answered)" if p.answered else "✗ যাচাই করা যায়নি (not answered)")
            + f" — {html_text(p.text)}</li>" for p in real_parts)
        st.markdown(f"<ul class='lc-parts'>{items}</ul>", unsafe_allow_html=True)
    for h in o.hints:
        st.info(h)


def _clarify(result: AskResult) -> None:
    if not result.clarifications:
        return
    st.markdown("#### উত্তরটি আপনার অবস্থার উপর নির্ভর করে (the answer depends on your situation)")
    for i, c in enumerate(result.clarifications):
        st.markdown(f"**{html.escape(c.question_bn)}** <small>({html.escape(c.question_en)})</small>",
                    unsafe_allow_html=True)
        cols = st.columns(max(1, len(c.choices)))
        for j, (col, ch) in enumerate(zip(cols, c.choices, strict=True)):
            col.button(ch.label_bn, key=f"ask_clarify_{i}_{j}", on_click=_use_fact, args=(c.key, ch.value),
                       use_container_width=True)


ENGLISH_CHARS = 1500
"""Most characters of a section's English shown under a closest provision (section 2 alone is ~20,000)."""


def _closest(result: AskResult, graph: StatuteGraph | None = None, *, show_english: bool = False) -> None:
    o = result.opinion
    if not o.closest:
        return
    st.markdown("#### সবচেয়ে কাছের যে বিধানগুলো পাওয়া গেছে — যাচাই করা হয়নি (closest provisions found — NOT verified "
                "to answer the question)")
    if any(c.weak for c in o.closest):
        from labourcrew.gate.opinion_writer import WEAK_CLOSEST

        st.caption(f"{WEAK_CLOSEST[0]} ({WEAK_CLOSEST[1]})")
    # Under τ = ∞ every quote is withheld for the same reason, said once above: not under each one.
    fails_closed = result.gate_mode == "calibrated" and math.isinf(result.tau)
    english_done: set[str] = set()
    # Each amendment note right under the first listed provision of its section (a new user saw 27's note
    # under 26(2), the last entry); notes of sections not listed follow the list.
    notes_left = list(o.amendments)
    for c in o.closest:
        why = (f"<br><small>কেন প্রকাশ করা হয়নি (why withheld): {html.escape(c.why_withheld)}</small>"
               if c.why_withheld and not fails_closed else "")
        lead = f"<small class='lc-lead'>{html.escape(c.lead_in)}</small><br>" if c.lead_in else ""
        items = "".join(f"<li class='lc-depth-{min(k.depth, 3)}{' lc-found' if k.found else ''}'>«{html.escape(k.text)}»</li>"
                        for k in c.clauses if not k.tail)
        more = (f"<li><small>… আরও {to_bangla_digits(str(c.clauses_left_out))}টি দফা "
                f"({c.clauses_left_out} more clauses)</small></li>" if c.clauses_left_out else "")
        tail = "".join(f"«{html.escape(k.text)}»" for k in c.clauses if k.tail)
        clauses = (f"<ul class='lc-clauses'>{items}{more}</ul>" if items else "") + tail
        st.markdown(f"<div class='lc-closest lc-unverified' data-testid='lc-closest'><span class='lc-cite'>"
                    f"{html.escape(c.citation)} · যাচাই করা হয়নি{' · দুর্বল মিল (weak match)' if c.weak else ''}</span><br>"
                    f"{lead}«{html.escape(c.text)}»{clauses}{why}</div>",
                    unsafe_allow_html=True)
        section = graph.units[c.node_id].section if graph is not None and c.node_id in graph.units else None
        mine = [a for a in notes_left if a.node_id == c.node_id or (section is not None and a.section == section)]
        if mine:
            notes_left = [a for a in notes_left if a not in mine]
            st.markdown("".join(_amendment_html(a) for a in mine), unsafe_allow_html=True)
        if show_english and graph is not None and c.node_id in graph.units:
            _closest_english(graph, c.node_id, english_done)
    if notes_left:
        st.markdown("".join(_amendment_html(a) for a in notes_left), unsafe_allow_html=True)


def _closest_english(graph: StatuteGraph, node_id: str, done: set[str]) -> None:
    """The English parallel of a closest provision's section, once per section (the toggle on an UNDECIDED answer)."""
    sec = graph.section_of(node_id)
    if sec is None or sec.node_id in done:
        return
    done.add(sec.node_id)
    _english_card(graph.english.get(sec.node_id), limit=ENGLISH_CHARS)


def _english_card(english: Any, limit: int | None = None) -> None:
    """A section's unofficial English parallel (``None``: says there is none), cut at ``limit`` characters."""
    if english is None:
        st.caption("এই ধারার ইংরেজি পাঠ পাওয়া যায়নি (no English parallel).")
        return
    flag = "outdated — " if english.outdated else ""
    text = english.text if limit is None else shorten(english.text, limit)
    st.markdown(f"<div class='lc-english'><span class='lc-unofficial'>{flag}{html.escape(english.label)}"
                f"</span><br>{html.escape(text)}</div>", unsafe_allow_html=True)


def render_answer(result: AskResult, graph: StatuteGraph) -> None:
    """Everything the Ask page shows for one answered question."""
    status_badge(result.status.value, result.status_reason)
    notice = version_notice(result.statute_version)
    if notice:
        st.warning(notice)
    backends = ", ".join(unique_backends(result)) or result.backend
    tau = "categorical (auditor verdict)" if result.gate_mode == "categorical" else f"τ = {fmt_tau(result.tau)}"
    st.caption(f"আইনের সংস্করণ (statute version): **{VERSION_NAMES.get(result.statute_version, result.statute_version)}** · "
               f"উত্তর দিয়েছে (backends that answered): **{backends}** · {tau}, α = {result.alpha:.2f} · "
               f"run `{result.run_id}` · {result.latency_s:.1f} s")
    if result.gate_mode == "calibrated" and math.isinf(result.tau) and result.claims:
        # With no claim at all the badge already says why (nothing matched); τ is not the reason.
        # The badge and the opinion already say why (τ = ∞); a third box said it again (a new user counted
        # four). The record's note is the statistician's English: behind an expander, not in the worker's way.
        with st.expander("কেন τ = ∞? পরিসংখ্যানগত বিবরণ (why τ = ∞: statistical detail, English)"):
            # The reason (no τ for this system, or no record this system can use) is the gate's, on the badge.
            st.caption("নির্ভরযোগ্যতা-যাচাই (Trust Gate: প্রতিটি উদ্ধৃতি প্রকাশের আগে তার নির্ভরযোগ্যতা মাপা হয়) "
                       "কোনো উদ্ধৃতি প্রকাশ করে না (τ = ∞; কারণ ওপরে); নিচের বিধানগুলো যাচাই ছাড়া দেখানো হলো। "
                       "Calibration পৃষ্ঠায় বিস্তারিত; ক্যালিব্রেশন রেকর্ডের নোট:")
            st.caption(result.calibration_note or "no calibration record")
    elif result.gate_mode == "categorical" and result.status != ReleaseStatus.UNDECIDED:
        st.warning("অক্যালিব্রেটেড গেট: উদ্ধৃতিগুলো হুবহু আইনের পাঠ এবং নিরীক্ষক সমর্থন করেছেন, কিন্তু ভুলের হারের "
                   "কোনো পরিমাপিত সীমা নেই — উদ্ধৃত বিধানটি আপনার প্রশ্নের উত্তর নাও হতে পারে; আইনজীবীর সঙ্গে মিলিয়ে নিন "
                   "(uncalibrated, categorical gate: the quotes are verbatim and the auditor supported them, but no "
                   "calibrated risk bound stands behind this status: a quoted provision may not govern your question).")
    st.markdown("#### মতামত (opinion)")
    _opinion(result)
    _clarify(result)
    # Before the closest provisions: on an UNDECIDED answer the toggle shows their sections in English.
    # An answer on the English version already quotes the English text: no parallel to toggle.
    show_en = result.statute_version != ENGLISH_VERSION and st.toggle(
        "English parallel — unofficial translation (amended to 2018)", key="ask_english")
    _closest(result, graph, show_english=show_en)
    passages = cited_passages(result, graph)
    if passages:
        st.markdown("#### উদ্ধৃত আইনের পাঠ (cited passages) — হুবহু উদ্ধৃতি হলুদে চিহ্নিত")
    for p in passages:
        render_passage(p, run_id=result.run_id, show_english=show_en)
    withheld = [c for c in result.claims if not c.accepted]
    if withheld:
        with st.expander(f"প্রকাশ না-করা দাবি (withheld claims): {len(withheld)}"):
            for c in withheld:
                cites = ", ".join(citation_label_bn(e.node_id.split(":", 1)[-1]) for e in c.evidence) or "—"
                quote = " … ".join(display_form(e.matched_text or e.span) for e in c.evidence)
                st.markdown(f"<p class='lc-withheld'><b>{html_text(cites)}</b> — «{html_text(quote)}»<br>"
                            f"<small>{html_text(SIDE_TITLES.get(c.side.value, c.side.value))} · {c.claim_id} · "
                            f"যাচাই করা হয়নি (not verified): {html_text(withheld_reason_bn(c.rejection_reason) or '')}"
                            f"</small></p>", unsafe_allow_html=True)
    link("pages/1_Run_inspector.py", "এই রানের বিস্তারিত নিরীক্ষা (Run inspector) →", {"run": result.run_id})
    st.caption("এটি আইনি পরামর্শ নয়। নিজের ক্ষেত্রে সিদ্ধান্তের আগে একজন আইনজীবী বা শ্রম আদালতের সহায়তা নিন। (Not legal advice.)")


def render_passage(p: Any, *, run_id: str | None = None, show_english: bool = False) -> None:
    """One cited passage card (and its English parallel when asked)."""
    title = f"{p.citation}" + (f" — {html.escape(p.section_title)}" if p.section_title else "")
    st.markdown(
        f"<div class='lc-passage lc-cited'><span class='lc-cite'>{title} · <code>{html.escape(p.node_id)}</code></span>"
        f"{p.html}</div>",
        unsafe_allow_html=True,
    )
    if p.missing:
        st.warning("উদ্ধৃতি পাঠে পাওয়া যায়নি (span not found): " + " | ".join(p.missing))
    if run_id:
        link("pages/2_StatuteGraph.py", f"{p.citation} — গ্রাফে দেখুন (StatuteGraph)", {"node": p.node_id, "run": run_id})
    if show_english:
        _english_card(p.english)
