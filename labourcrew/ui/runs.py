"""Saved runs for the pages: listing and loading with bounded ``st.cache_data`` caches.

Cache keys include each file's modification time, so a new or rewritten run is seen at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from labourcrew.settings import Settings
from labourcrew.ui.frame import md_text
from labourcrew.viz.run_view import Marks, run_marks

if TYPE_CHECKING:
    from labourcrew.ledger.run import AskResult, RunSummary

__all__ = ["run_files", "summaries", "load", "all_results", "marks_for", "pick_run"]


def run_files(settings: Settings | None) -> tuple[tuple[str, float], ...]:
    """``((path, mtime), ...)`` of the saved runs, newest file name first."""
    if settings is None or not settings.runs_dir.is_dir():
        return ()
    files = sorted(settings.runs_dir.glob("*.json"), reverse=True)
    return tuple((str(p), p.stat().st_mtime) for p in files if p.is_file())


@st.cache_data(max_entries=512, show_spinner=False)
def _load_file(path: str, mtime: float) -> AskResult:
    from labourcrew.board.run import load_run

    return load_run(Path(path))


@st.cache_data(max_entries=16, show_spinner=False)
def _summaries(folder: str, files: tuple[tuple[str, float], ...]) -> list[RunSummary]:
    from labourcrew.board.run import list_runs

    return list_runs(Path(folder))


def summaries(settings: Settings | None) -> list[RunSummary]:
    """Saved runs, newest first (empty when there are none)."""
    files = run_files(settings)
    if not files or settings is None:
        return []
    return _summaries(str(settings.runs_dir), files)


def load(settings: Settings | None, run_id: str) -> AskResult:
    """One saved run by id.

    Raises:
        DataError: no such run in the runs folder.
    """
    from labourcrew.errors import DataError

    for path, mtime in run_files(settings):
        if Path(path).stem.endswith(f"_{run_id}"):
            return _load_file(path, mtime)
    raise DataError(f"সংরক্ষিত রানটি পাওয়া যায়নি — no saved run {run_id!r}",
                    help_message="Ask পৃষ্ঠায় একটি প্রশ্ন করুন, অথবা তালিকা থেকে একটি রান বেছে নিন — "
                                 "ask a question on the Ask page first, or pick a run from the list.")


def all_results(settings: Settings | None) -> list[AskResult]:
    """Every readable saved run, newest first (unreadable files are skipped)."""
    from labourcrew.errors import DataError

    out = []
    for path, mtime in run_files(settings):
        try:
            out.append(_load_file(path, mtime))
        except DataError:
            continue
    return out


def marks_for(settings: Settings | None, run_id: str | None, claim_id: str | None) -> Marks:
    """Graph marks for a run (or one claim of it); empty marks without a run id.

    A run that is not here (an old or mistyped link) is said in a warning and the section is still
    shown, unmarked: the section is what the link was for.
    """
    from labourcrew.errors import DataError

    if not run_id:
        return Marks()
    try:
        return run_marks(load(settings, run_id), claim_id)
    except DataError:
        st.warning(f"রানটি পাওয়া যায়নি: ‘{md_text(run_id[:40])}’ — ধারাটি চিহ্ন ছাড়া দেখানো হচ্ছে "
                   "(run not found: the section is shown without its marks)")
        return Marks()


def pick_run(settings: Settings | None, *, key: str, default_run: str | None = None) -> str | None:
    """Selectbox of saved runs (newest first, or ``default_run``); None when there are none."""
    runs = summaries(settings)
    if not runs:
        return None
    ids = [r.run_id for r in runs]
    labels = {r.run_id: f"{r.created[:19].replace('T', ' ')} · {r.status} · {r.question[:60]}" for r in runs}
    index = ids.index(default_run) if default_run in ids else 0
    if default_run and default_run not in ids:
        # A shared link to a run that is not here: say so, rather than silently showing another run.
        st.warning(f"রানটি পাওয়া যায়নি: ‘{md_text(default_run[:40])}’ — সর্বশেষ রান দেখানো হচ্ছে; নিচে অন্য রান বেছে নিন "
                   f"(run not found: showing the newest run instead; pick another below)")
    return st.selectbox("সংরক্ষিত রান (saved run)", ids, index=index, format_func=labels.get, key=key)
