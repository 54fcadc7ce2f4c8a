"""The frame every page shares: page config, CSS, sidebar (settings and backend), header, errors.

Every page calls :func:`page` first and wraps its work in :func:`guard`, so a failure is shown
as a clear message with what to do -- never a traceback -- and secrets never reach the page.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

import streamlit as st

from labourcrew.errors import LabourCrewError
from labourcrew.settings import REPO_ROOT, Settings, available_presets, environ
from labourcrew.ui.resources import current_settings

__all__ = ["PageContext", "page", "guard", "show_error", "redact", "backend_summary", "link", "empty_state", "chart", "NOT_ADVICE"]

logger = logging.getLogger(__name__)

CSS_PATH = REPO_ROOT / "assets" / "style.css"
NOT_ADVICE = "এটি আইনি পরামর্শ নয় — তথ্যের জন্য আইনের পাঠ দেখানো হয়েছে। (Not legal advice.)"
# Short enough for the sidebar's one-line box (the longer name was cut at «… উদ্ধৃতিভিত্তিক (»); the box
# under it describes the backend in full.
_PRESET_NAMES = {
    "offline": "অফলাইন (offline)",
    "openai": "চ্যাট মডেল (openai)",
}
NAV: tuple[tuple[str, str], ...] = (
    ("app.py", "প্রশ্ন করুন · Ask"),
    ("pages/1_Run_inspector.py", "রান পরিদর্শক · Run inspector"),
    ("pages/2_StatuteGraph.py", "আইনের গ্রাফ · StatuteGraph"),
    ("pages/3_Annotate.py", "লেবেল করুন · Annotate"),
    ("pages/4_Calibration.py", "ক্যালিব্রেশন · Calibration"),
    ("pages/5_Evaluation.py", "মূল্যায়ন · Evaluation"),
)
"""Sidebar navigation: page file -> Bangla · English name."""
_SECRETISH = re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_\-*]{3,}")


@dataclass(frozen=True)
class PageContext:
    """What a page gets from the frame.

    Attributes:
        settings: frozen settings of this rerun (None when they could not be loaded; the error is
            already on the page).
    """

    settings: Settings | None


def redact(text: str, settings: Settings | None = None) -> str:
    """``text`` with API keys and tokens removed (exact secret values and ``sk-…`` shapes)."""
    out = str(text)
    if settings is not None:
        for secret in (settings.llm.api_key, settings.index.token):
            value = secret.get_secret_value() if secret is not None else ""
            if value:
                out = out.replace(value, "***")
    return _SECRETISH.sub(r"\1-***", out)


def show_error(exc: BaseException, settings: Settings | None = None, *, what: str = "") -> None:
    """Show ``exc`` as a message with what to do (no traceback; secrets redacted)."""
    head = f"{what}: " if what else ""
    if isinstance(exc, LabourCrewError):
        # The message may quote what a user typed or put in the URL: shown as text, never as markup.
        st.error(f"{head}{md_text(redact(str(exc), settings))}\n\n**যা করবেন (what to do):** {redact(exc.help_message, settings)}",
                 icon=":material/error:")
        logger.warning("%s%s", head, redact(str(exc), settings))
    else:
        st.error(
            f"{head}অপ্রত্যাশিত সমস্যা ({type(exc).__name__}): {md_text(redact(str(exc), settings)[:300])}\n\n"
            "**যা করবেন (what to do):** পৃষ্ঠাটি আবার চালান (Rerun). সমস্যা থাকলে সার্ভারের লগ দেখুন এবং "
            "`make test` চালিয়ে পরিবেশ যাচাই করুন।",
            icon=":material/error:",
        )
        logger.error("%sunexpected %s: %s", head, type(exc).__name__, redact(str(exc), settings))


@contextmanager
def guard(settings: Settings | None = None, *, what: str = "") -> Iterator[None]:
    """Run a block; show any exception with :func:`show_error` instead of a traceback.

    Streamlit's own control flow (``st.stop``, reruns, page switches) derives from
    ``BaseException`` and passes through untouched.
    """
    try:
        yield
    except Exception as exc:  # noqa: BLE001 -- the page boundary: every failure becomes a message
        show_error(exc, settings, what=what)


def backend_summary(settings: Settings) -> str:
    """One line naming the configured backend (model and endpoint host; never a key)."""
    if settings.board.backend == "offline":
        return "offline · নির্ধারিত উদ্ধৃতিভিত্তিক ভূমিকা (no chat model)"
    host = urlsplit(settings.llm.base_url).hostname if settings.llm.base_url else "default endpoint"
    key = "API key: set" if settings.llm.api_key is not None else "API key: missing"
    return html.escape(f"openai · {settings.llm.model} @ {host} · {key}")


def _css() -> None:
    try:
        css = CSS_PATH.read_text(encoding="utf-8")
    except OSError:
        logger.warning("missing stylesheet %s", CSS_PATH)
        return
    st.html(f"<style>{css}</style>")


def page(title: str, subtitle: str = "", *, icon: str = "⚖️") -> PageContext:
    """Set up a page: config, CSS, sidebar settings and backend indicator, header.

    Args:
        title: page title (Bangla first, English after a ``·``).
        subtitle: one caption line under the title.
        icon: page icon.

    Returns:
        The :class:`PageContext`; when the settings are invalid, the error is shown and
        ``settings`` is None (pages then show only what needs no settings).
    """
    st.set_page_config(page_title=f"LabourCrew — {title}", page_icon=icon, layout="wide")
    # Never a traceback in the browser, even for an error outside guard(); our own Bangla page
    # names replace the file-name navigation ("app", "Run inspector", ...).
    st.set_option("client.showErrorDetails", "type")
    st.set_option("client.showSidebarNavigation", False)
    _css()
    presets = available_presets()
    with st.sidebar:
        st.markdown("### LabourCrew")
        for path, label in NAV:
            link(path, label)
        st.caption("বাংলাদেশ শ্রম আইন, ২০০৬ — প্রকাশিত প্রতিটি উত্তর আইনের হুবহু পাঠে যাচাইকৃত; যাচাই করা না গেলে তা বলা হয়")
        wanted = environ("LABOURCREW_PRESET", "offline")
        default = presets.index(wanted) if wanted in presets else 0
        preset = st.selectbox("মডেল প্রিসেট (preset)", presets, index=default, key="lc_preset",
                              format_func=lambda p: _PRESET_NAMES.get(p, p))
    settings: Settings | None = None
    try:
        settings = current_settings(preset)
    except Exception as exc:  # noqa: BLE001 -- ConfigError and anything else: show, never crash the frame
        show_error(exc, what="সেটিংস (settings)")
    with st.sidebar:
        if settings is not None:
            st.markdown(f"<div class='lc-backend'>{backend_summary(settings)}</div>", unsafe_allow_html=True)
            st.caption(f"settings {settings.hash()[:12]} · gate: {settings.gate.mode}, α = {settings.gate.alpha:.2f}")
        st.caption(NOT_ADVICE)
    st.title(title)
    if subtitle:
        st.caption(subtitle)
    return PageContext(settings=settings)


_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>$:])")


def md_text(text: str) -> str:
    """``text`` from outside (a URL parameter, a search box, an error that quotes one) for a markdown
    context (``st.warning``, ``st.error``): HTML-escaped and markdown punctuation backslash-escaped, so
    ``[x](https://…)`` or ``![x](…)`` shows as typed, never as a link or a remote image.
    """
    return _MD_PUNCT.sub(r"\\\1", html.escape(str(text), quote=False))


def html_text(text: str) -> str:
    """``text`` a user typed (a question, its parts) or a quote, for a one-line HTML block in ``st.markdown``.

    HTML-escaped, line breaks as ``<br>``: inside an HTML block markdown is not parsed, so a pasted
    ``[x](https://…)`` or ``![x](https://…)`` shows as typed instead of becoming a link or a remote
    image, and a blank line in the text cannot end the block and let what follows be parsed.
    Use it with ``unsafe_allow_html=True`` and a block that starts with a tag (``<p>``, ``<div>``).
    """
    escaped = html.escape(text, quote=False)
    return re.sub(r"\r\n|\r|\n", "<br>", escaped)


def link(page_path: str, label: str, params: dict[str, str] | None = None) -> None:
    """A link to another page with query params (a plain caption if the page cannot be linked)."""
    try:
        st.page_link(page_path, label=label, query_params=params)
    except Exception as exc:  # noqa: BLE001 -- e.g. a page missing from a partial checkout
        logger.warning("cannot link to %s: %s", page_path, exc)
        st.caption(f"{label} ({page_path})")


def empty_state(message: str) -> None:
    """A friendly note for a page with nothing to show yet."""
    st.info(message, icon=":material/inbox:")


def chart(fig: object, key: str) -> None:
    """A plotly figure at full width, without the toolbar that would cover its (Bangla) title."""
    st.plotly_chart(fig, key=key, config={"displayModeBar": False})
