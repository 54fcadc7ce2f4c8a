"""The ``ask`` sub-command: ``python -m labourcrew ask "<question>" [--version 2025] [--backend offline|openai] --json``.

* one question: prints one JSON object (``--json``) or a readable summary;
* ``--batch FILE.jsonl``: answers every line's ``question_bn`` (other fields passed through) and
  writes one JSON result per line (stdout or ``--out``), with the models and the index loaded once.

Every run is also saved under ``settings.runs_dir`` unless ``--no-save``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from labourcrew.errors import InputError
from labourcrew.fileio import check_output_path, read_batch
from labourcrew.statute.model import VERSIONS
from labourcrew.viz.statute import version_notice

__all__ = ["register", "cmd_ask"]


def _settings(a: argparse.Namespace):
    from labourcrew.settings import load_settings

    overrides: dict[str, Any] = {}
    if a.backend:
        overrides["board"] = {"backend": a.backend}
    if a.gate_mode:
        overrides["gate"] = {"mode": a.gate_mode}
    return load_settings(a.preset, **overrides)


def _gate(result) -> str:
    if result.gate_mode != "calibrated":
        return "gate: categorical (auditor verdicts)"
    return f"τ: {'∞ (fails closed)' if result.tau == float('inf') else round(result.tau, 3)}"


def _text(result) -> str:
    o = result.opinion
    lines = [
        f"অবস্থা (status): {result.status.value} — {result.status_reason}",
        f"statute version: {result.statute_version}   backend: {result.backend}   {_gate(result)}   "
        f"latency: {result.latency_s:.2f} s   rounds: {result.rounds}",
    ]
    notice = version_notice(result.statute_version)
    if notice:
        lines.append(f"সতর্কতা (note): {notice}")
    lines += ["", result.opinion_bn]
    for q in o.qualifiers:
        mark = "যাচাইকৃত" if q.released else "যাচাই করা হয়নি"
        lines.append(f"  শর্ত/ব্যতিক্রম — {q.citation} ({mark}): «{q.text}»")
    for c in o.closest:
        lead = f"{c.lead_in} " if c.lead_in else ""
        weak = " (দুর্বল মিল / weak match)" if c.weak else ""
        lines.append(f"  যাচাই করা হয়নি / not verified{weak} — {c.citation}: {lead}«{c.text}»")
        lines += [f"  {'    ' * (1 if k.tail else k.depth)}«{k.text}»" for k in c.clauses]
        if c.clauses_left_out:
            lines.append(f"      … আরও {c.clauses_left_out}টি দফা ({c.clauses_left_out} more clauses)")
    for note in o.premise_notes:
        lines.append(f"প্রশ্নের ভিত্তি (premise): {note}")
    if len([p for p in o.parts if not p.injection]) > 1:
        for p in o.parts:
            if not p.injection:
                lines.append(f"  অংশ {p.index}: {'উত্তর দেওয়া হয়েছে (answered)' if p.answered else 'যাচাই করা যায়নি (not answered)'} — {p.text}")
    for h in o.hints:
        lines.append(f"পরামর্শ (hint): {h}")
    for c in result.clarifications:
        choices = "; ".join(f"--fact {c.key}={ch.value} ({ch.label_bn})" for ch in c.choices)
        lines.append(f"প্রশ্ন (clarify): {c.question_bn} — {c.question_en}: {choices}")
    if result.opinion_en:
        lines += ["", result.opinion_en]
    lines += ["", "claims:"]
    for c in result.claims:
        mark = "✓" if c.accepted else "✗"
        why = "" if c.accepted else f"  [{c.rejection_reason}]"
        # the sections a claim quotes, so a reader can tell the claims apart without --json (a new user could not)
        cited = ", ".join(dict.fromkeys(e.node_id.split(":", 1)[-1] for e in c.evidence))
        lines.append(f"  {mark} {c.claim_id} ({c.side.value}, {c.verdict.value if c.verdict else '-'}, "
                     f"S={c.trust_score:.3f}{'; ' + cited if cited else ''}){why}")
    lines += ["", "roles:"]
    for role, s in result.role_status.items():
        extra = f" retried {s['retries']}" if s["retries"] else ""
        err = f" — {s['error']}" if s["status"] == "failed" else ""
        lines.append(f"  {role}: {s['status']}{extra} ({s['backend']}){err}")
    return "\n".join(lines)




def cmd_ask(a: argparse.Namespace) -> int:
    """Run ``ask`` (see module docstring). Returns the exit code."""
    from labourcrew.board.run import ask, ask_batch
    from labourcrew.gate.clarify import parse_facts
    from labourcrew.wiring import make_board

    if a.version is not None and a.version not in VERSIONS:
        raise InputError(f"আইনের এই সংস্করণ নেই: {a.version!r}; আছে: {', '.join(VERSIONS)} — "
                         f"unknown statute version {a.version!r}; known: {', '.join(VERSIONS)}")
    if (a.question is None) == (a.batch is None):
        raise InputError("একটি প্রশ্ন অথবা --batch FILE.jsonl দিন (দুটো একসঙ্গে নয়) — give either a question or --batch FILE.jsonl")
    try:
        facts = parse_facts(a.fact or [])
    except ValueError as exc:
        raise InputError(str(exc)) from exc
    check_output_path(a.out)
    if a.question is not None:
        from labourcrew.retrieval.pipeline import validate_question

        # Bad text is the user's to fix: say so before the index is opened (a missing index would hide it).
        validate_question(a.question)
    rows = read_batch(a.batch) if a.batch else None
    board = make_board(_settings(a))
    if rows is None:
        result = ask(a.question, version=a.version, board=board, english=a.english, save=not a.no_save, facts=facts)
        out = result.to_json(indent=None) if a.json else _text(result)
        if a.out:
            Path(a.out).write_text(out + "\n", encoding="utf-8")
        else:
            print(out)
        return 0
    sink = open(a.out, "w", encoding="utf-8") if a.out else sys.stdout  # noqa: SIM115 -- closed below
    try:
        for row in ask_batch(
            ({**r, **({"statute_version": a.version} if a.version else {})} for r in rows),
            board=board, english=a.english, save=not a.no_save,
        ):
            sink.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
            sink.flush()
    finally:
        if sink is not sys.stdout:
            sink.close()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``ask`` sub-command to the CLI."""
    p = sub.add_parser("ask", help="answer a question with the deliberation board")
    p.add_argument("question", nargs="?", help="the question (Bangla, English or romanised)")
    p.add_argument("--version", default=None, help=f"statute version ({', '.join(VERSIONS)}; default 2025)")
    p.add_argument("--backend", choices=("offline", "openai"), default=None, help="model backend (default: preset)")
    p.add_argument("--preset", default=None, help="settings preset (labourcrew/presets/*.json)")
    p.add_argument("--gate-mode", choices=("calibrated", "categorical"), default=None, help="Trust Gate mode")
    p.add_argument("--english", action="store_true", help="add the English rendering of the released claims")
    p.add_argument("--batch", default=None, metavar="FILE.jsonl", help="answer every line's question_bn")
    p.add_argument("--out", default=None, help="write the output here instead of stdout")
    p.add_argument("--no-save", action="store_true", help="do not save the run under settings.runs_dir")
    p.add_argument("--fact", action="append", metavar="KEY=VALUE",
                   help="a fact that decides the answer, e.g. years_of_service=4 (repeatable; answers the "
                        "'clarifications' of an earlier run)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_ask)
