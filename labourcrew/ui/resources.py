"""Settings and cached heavy resources of the dashboard (the only place they are created).

Settings are rebuilt on every rerun from the environment, Streamlit secrets and the sidebar's
choices; they are frozen pydantic objects, so a change yields a *new* object and a *new* cache
key -- no cached object is ever mutated. Heavy objects (StatuteGraph, board runner with its
encoder and Milvus client, label store) live in ``st.cache_resource`` keyed by a string that
identifies their settings (:func:`settings_key`): the non-secret settings hash plus a digest of
the secrets, so a changed key builds a new runner without the key itself ever being a cache
argument, a log line or a page element.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

import streamlit as st

from labourcrew.gate.labels import LabelStore
from labourcrew.graph.statute_graph import StatuteGraph, load_graph
from labourcrew.settings import Settings, environ, load_settings

__all__ = [
    "SECRET_NAMES",
    "secret_overrides",
    "current_settings",
    "settings_key",
    "labels_path",
    "cached_graph",
    "cached_label_store",
    "board_key",
    "cached_board",
]

logger = logging.getLogger(__name__)

# Streamlit-secrets names (top level of .streamlit/secrets.toml) -> settings override keys.
SECRET_NAMES: dict[str, str] = {
    "LABOURCREW_LLM__API_KEY": "llm__api_key",
    "OPENAI_API_KEY": "llm__api_key",
    "LABOURCREW_INDEX__TOKEN": "index__token",
}


def secret_overrides() -> dict[str, str]:
    """Secrets from ``st.secrets`` as settings overrides, for settings the environment leaves unset.

    ``LABOURCREW_LLM__API_KEY`` in the environment wins over any secret for the same setting.
    Returns an empty dict when there is no secrets file. Values are never logged.
    """
    out: dict[str, str] = {}
    try:
        names = list(st.secrets.keys())
    except Exception:  # no secrets.toml (FileNotFoundError / StreamlitSecretNotFoundError)
        return out
    for name, override in SECRET_NAMES.items():
        if environ("LABOURCREW_" + override.upper()) or override in out or name not in names:
            continue
        value = st.secrets[name]
        if isinstance(value, str) and value.strip():
            out[override] = value.strip()
    return out


def current_settings(preset: str | None = None, **overrides: Any) -> Settings:
    """Settings for this rerun: preset, ``LABOURCREW_*`` env, Streamlit secrets, then ``overrides``.

    Raises:
        ConfigError: unknown preset or invalid values (shown by :func:`labourcrew.ui.frame.guard`).
    """
    return load_settings(preset, **{**secret_overrides(), **overrides})


def _secret_digest(settings: Settings) -> str:
    h = hashlib.sha256()
    for secret in (settings.llm.api_key, settings.index.token):
        h.update(b"\0" + (secret.get_secret_value().encode() if secret is not None else b""))
    return h.hexdigest()[:16]


def settings_key(settings: Settings) -> str:
    """Cache key of everything built from ``settings``: non-secret hash, the index location (not in
    the hash, but a connection is to one place) and a digest of the secrets.
    """
    return f"{settings.hash()}:{settings.index.uri}:{_secret_digest(settings)}"


def labels_path(settings: Settings) -> Path:
    """The annotation label database: ``labels.sqlite`` next to the calibration record.

    Uses ``settings.gate.labels_path`` when the settings define it.
    """
    explicit = getattr(settings.gate, "labels_path", None)
    return Path(explicit) if explicit else settings.gate.calibration_path.parent / "labels.sqlite"


@st.cache_resource(show_spinner="StatuteGraph লোড হচ্ছে …")
def cached_graph() -> StatuteGraph:
    """The StatuteGraph of every version, loaded once per server process."""
    return load_graph()


@st.cache_resource(show_spinner=False)
def cached_label_store(path: str) -> LabelStore:
    """The SQLite label store at ``path`` (WAL; safe to share: one connection per thread).

    A new store is seeded from ``labels.jsonl`` beside it (the committed calibration labels), so a
    fresh clone's Annotate and Calibration pages start from the labels the shipped τ was fitted on.
    """
    fresh = not Path(path).exists()
    store = LabelStore(path)
    seed = Path(path).with_name("labels.jsonl")
    if fresh and seed.exists():
        store.import_jsonl(seed)
    return store


def board_key(settings: Settings) -> str:
    """Cache key of the board: :func:`settings_key` plus the calibration record's digest.

    The board loads the calibration record when it is built; a recomputed τ is a new file
    content, hence a new key and a new board -- the cached one is never changed.
    """
    from labourcrew.gate.recalibration import record_digest

    return f"{settings_key(settings)}:{record_digest(settings.gate.calibration_path)}"


@st.cache_resource(show_spinner="বোর্ড প্রস্তুত হচ্ছে (ইনডেক্স ও মডেল লোড) …", max_entries=4)
def cached_board(key: str, _settings: Settings) -> Any:
    """The compiled deliberation board for one :func:`board_key` (built once, never mutated).

    ``_settings`` is not hashed by Streamlit (leading underscore); ``key`` identifies it.

    Raises:
        IndexNotBuiltError / ConfigError: the index or the backend cannot be set up.
    """
    from labourcrew.wiring import make_board

    logger.info("building the deliberation board for settings %s", key.split(":", 1)[0][:12])
    return make_board(_settings, graph=cached_graph())
