"""Run the board on a question: :func:`ask`, :func:`stream`, and saved runs.

:func:`ask` validates the input, runs the board, turns the final Formal Case Ledger into an
:class:`AskResult` (the ``python -m labourcrew ask --json`` object) and saves it under
``settings.runs_dir`` as one JSON file per run (sorted keys, UTF-8, two-space indent: equal runs
are byte-identical files). :func:`load_run` and :func:`list_runs` reopen them for the dashboard
and the evaluation.

Every result records the settings hash, the prompt hashes (LLM backends), the statute version and
the backend that actually answered each role (``backends``). ``usage`` counts model calls per
retrieval round and the *sequential* calls on the critical path (parallel calls -- the two
counsels, the per-claim audits -- count once per stage, by their maximum).

A run never crashes on a role failure (the Supervisor records it and the run degrades). Should the
board itself stop (recursion limit, a bug in an error handler), :func:`ask` still returns an
UNDECIDED result from the last ledger state with ``error`` set -- the only broad ``except`` of the
board, outside every role and after LangGraph's retries and handlers.
"""

from __future__ import annotations

import json
import logging
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from labourcrew.board.build import Board
from labourcrew.board.roles import validate_inputs
from labourcrew.board.state import CaseLedger, summarise_roles
from labourcrew.errors import DataError, InputError
from labourcrew.fileio import write_text_atomic
from labourcrew.gate.opinion_writer import fallback_opinion
from labourcrew.gate.trust_gate import undecided_result
from labourcrew.ledger.gate import Fact, GateResult, Opinion
from labourcrew.ledger.records import (
    EvidencePack,
)
from labourcrew.ledger.run import AskResult, RoleCall, RoundUsage, RunSummary
from labourcrew.settings import load_settings

__all__ = [
    "ask",
    "ask_batch",
    "stream",
    "result_from_ledger",
    "usage_by_round",
    "save_run",
    "load_run",
    "list_runs",
    "run_filename",
]

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------- ledger -> result


def usage_by_round(calls: Iterable[RoleCall]) -> list[RoundUsage]:
    """Model calls per retrieval round; sequential calls = sum over stages of the largest call."""
    per_round: dict[int, dict[str, int]] = defaultdict(dict)
    totals: dict[int, int] = defaultdict(int)
    for call in calls:
        stages = per_round[call.retrieval_round]
        stages[call.stage] = max(stages.get(call.stage, 0), call.llm_calls)
        totals[call.retrieval_round] += call.llm_calls
    return [
        RoundUsage(round=r, llm_calls=totals[r], sequential_llm_calls=sum(per_round[r].values()),
                   stages={k: v for k, v in per_round[r].items() if v})
        for r in sorted(per_round)
    ]


def _backends(calls: Iterable[RoleCall]) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    for call in calls:
        if call.status.status == "failed":
            continue
        names = out.setdefault(call.status.role, [])
        if call.status.backend not in names:
            names.append(call.status.backend)
    return {role: ", ".join(names) for role, names in out.items()}


def result_from_ledger(
    ledger: Mapping[str, Any], *, board: Board, latency_s: float, error: str | None = None
) -> AskResult:
    """Build the :class:`AskResult` of a (final or partial) ledger."""
    meta = ledger["meta"]
    gate: GateResult | None = ledger.get("gate")
    opinion: Opinion | None = ledger.get("opinion")
    if gate is None:
        reason = f"the board stopped before the Trust Gate: {error}" if error else "the Trust Gate did not run"
        gate = undecided_result(reason, board.deps.calibration, board.settings.gate.mode)
        opinion = fallback_opinion(reason)
    if opinion is None:
        opinion = fallback_opinion(gate.status_reason)
    pack: EvidencePack = ledger.get("pack") or EvidencePack()
    spotting = ledger.get("spotting")
    calls = list(ledger.get("role_calls") or [])
    return AskResult(
        run_id=meta.run_id,
        created=meta.created,
        question=ledger["question"],
        statute_version=ledger["version"],
        status=gate.status,
        status_reason=gate.status_reason,
        backend=meta.backend,
        backends=_backends(calls),
        question_type=spotting.question_type.value if spotting is not None else None,
        spotting=spotting.model_dump(mode="json") if spotting is not None else None,
        evidence_pack=pack,
        hop_trace=list(pack.hop_trace),
        claims=list(gate.claims),
        rejected_by_eep=list(ledger.get("rejected_by_eep") or []),
        findings=dict(ledger.get("findings") or {}),
        tau=gate.tau,
        alpha=gate.alpha,
        gate_mode=gate.mode,
        calibration_note=gate.calibration_note,
        coverage=gate.coverage,
        premise_errors=list(gate.premise_errors),
        opinion_bn=opinion.opinion_bn,
        opinion_en=opinion.opinion_en,
        opinion=opinion,
        role_status=summarise_roles(calls),
        role_calls=calls,
        rounds=int(ledger.get("retrieval_round", 0) or 0) + 1,
        deliberation_rounds=int(ledger.get("deliberation_round", 0) or 0),
        retrieval_requests=list(ledger.get("retrieval_requests") or []),
        conflicts=list(ledger.get("conflicts") or []),
        interpreter_notes=ledger.get("interpreter_notes") or "",
        usage=usage_by_round(calls),
        latency_s=round(latency_s, 4),
        settings_hash=meta.settings_hash,
        prompt_hashes=dict(meta.prompt_hashes),
        error=error,
        facts=list(opinion.facts) or list(ledger.get("facts") or []),
        clarifications=list(opinion.clarifications),
    )


# ---------------------------------------------------------------- running


def _run(board: Board, state: CaseLedger) -> tuple[dict[str, Any], str | None]:
    """Run the board; return the last full ledger and the error that stopped it (if any)."""
    last: dict[str, Any] = dict(state)
    try:
        for chunk in board.compiled.stream(state, config=board.config, context=board.context, stream_mode="values"):
            last = chunk
    except Exception as exc:  # the board itself stopped: report it, never crash (module docstring)
        logger.exception("the board stopped: %s", exc)
        return last, f"{type(exc).__name__}: {exc}"
    return last, None


def _with_facts(state: CaseLedger, facts: Sequence[Fact], rounds: int | None) -> CaseLedger:
    state["facts"] = list(facts)
    state["clarification_round"] = rounds if rounds is not None else (1 if facts else 0)
    return state


def _prepare(question: object, version: str | None, board: Board) -> tuple[Board, str, str]:
    version = version or board.settings.statute.default_version
    q, v = validate_inputs(question, version, board.deps)
    return board, q, v


def ask(
    question: str,
    *,
    version: str | None = None,
    board: Board,
    english: bool = False,
    save: bool = True,
    runs_dir: Path | str | None = None,
    facts: Sequence[Fact] = (),
    clarification_round: int | None = None,
) -> AskResult:
    """Answer one question with the deliberation board.

    Args:
        question: the user's question (Bangla, English, romanised).
        version: statute version (default ``settings.statute.default_version``).
        board: a built board (:func:`labourcrew.wiring.make_board`; reuse it across questions).
        english: also render the released claims in English.
        save: write the run under ``runs_dir`` (default ``settings.runs_dir``).
        runs_dir: where runs are saved.
        facts: facts the user supplied (answers to clarifying questions); recorded on the ledger,
            passed to the counsels, and deciding which qualifiers/bands of a rule apply.
        clarification_round: clarification rounds already run (default: 1 when facts are given,
            else 0); no more questions are asked after two.

    Returns:
        The :class:`AskResult`.

    Raises:
        InputError: empty, oversized or wordless question; unknown version.
        IndexNotBuiltError: the version is not indexed.
    """
    board, q, v = _prepare(question, version, board)
    t0 = board.deps.clock()
    state = _with_facts(board.initial_state(q, v, english=english), facts, clarification_round)
    final, error = _run(board, state)
    result = result_from_ledger(final, board=board, latency_s=board.deps.clock() - t0, error=error)
    if save:
        save_run(result, runs_dir or board.settings.runs_dir)
    return result


def stream(
    question: str,
    *,
    version: str | None = None,
    board: Board,
    english: bool = False,
    save: bool = True,
    runs_dir: Path | str | None = None,
    facts: Sequence[Fact] = (),
    clarification_round: int | None = None,
) -> Iterator[tuple[str, Any]]:
    """Like :func:`ask`, yielding ``(node name, partial update)`` as each role finishes, then
    ``("result", AskResult)`` last.

    Raises:
        InputError / IndexNotBuiltError: as :func:`ask`, before anything is yielded.
    """
    board, q, v = _prepare(question, version, board)
    t0 = board.deps.clock()
    state = _with_facts(board.initial_state(q, v, english=english), facts, clarification_round)
    last: dict[str, Any] = dict(state)
    error = None
    try:
        for mode, chunk in board.compiled.stream(
            state, config=board.config, context=board.context, stream_mode=["updates", "values"]
        ):
            if mode == "values":
                last = chunk
                continue
            for node, update in chunk.items():
                yield node, update
    except Exception as exc:  # as in ask(): the board itself stopped
        logger.exception("the board stopped: %s", exc)
        error = f"{type(exc).__name__}: {exc}"
    result = result_from_ledger(last, board=board, latency_s=board.deps.clock() - t0, error=error)
    if save:
        save_run(result, runs_dir or board.settings.runs_dir)
    yield "result", result


def ask_batch(
    lines: Iterable[Mapping[str, Any]],
    *,
    board: Board,
    english: bool = False,
    save: bool = True,
    runs_dir: Path | str | None = None,
) -> Iterator[dict[str, Any]]:
    """Answer every line's ``question_bn``; other fields are passed through.

    A line's ``statute_version`` (or ``version``) field picks its version. A line with bad input
    yields its fields plus ``status: null`` and ``error`` (the batch goes on).

    Yields:
        One JSON-ready dict per line: the passed-through fields, then the result's fields.
    """
    for i, line in enumerate(lines):
        passthrough = {k: v for k, v in line.items() if k != "question_bn"}
        version = line.get("statute_version") or line.get("version")
        try:
            question = line["question_bn"]
        except KeyError:
            yield {**passthrough, "status": None, "error": f"line {i + 1}: no 'question_bn' field"}
            continue
        try:
            result = ask(question, version=version, board=board, english=english, save=save, runs_dir=runs_dir)
        except InputError as exc:
            yield {**passthrough, "question_bn": question, "status": None, "error": str(exc)}
            continue
        yield {**passthrough, **result.model_dump(mode="json")}


# ---------------------------------------------------------------- saved runs


def run_filename(result: AskResult) -> str:
    """``20261130T080325Z_<run_id>.json``: sorts by time, unique by id."""
    stamp = re.sub(r"[^0-9T]", "", result.created.split(".")[0].split("+")[0])
    return f"{stamp}Z_{result.run_id}.json"


def save_run(result: AskResult, runs_dir: Path | str) -> Path:
    """Write a run as stable JSON (atomically). Returns the path."""
    path = write_text_atomic(Path(runs_dir) / run_filename(result), result.to_json() + "\n")
    logger.info("saved run %s to %s", result.run_id, path)
    return path


def load_run(ref: Path | str, runs_dir: Path | str | None = None) -> AskResult:
    """Reopen a saved run by path or by run id (looked up in ``runs_dir``).

    Raises:
        DataError: no such run, or the file is not a valid run.
    """
    path = Path(ref)
    if not path.is_file():
        folder = Path(runs_dir) if runs_dir is not None else load_settings().runs_dir
        matches = sorted(folder.glob(f"*_{ref}.json"))
        if not matches:
            raise DataError(f"no saved run {ref!r} in {folder}", help_message="List runs with labourcrew.board.run.list_runs().")
        path = matches[-1]
    try:
        return AskResult.model_validate_json(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise DataError(f"{path} is not a readable run: {exc}") from exc


def list_runs(runs_dir: Path | str | None = None) -> list[RunSummary]:
    """Saved runs, newest first (unreadable files are skipped with a warning)."""
    folder = Path(runs_dir) if runs_dir is not None else load_settings().runs_dir
    out: list[RunSummary] = []
    for path in sorted(folder.glob("*.json"), reverse=True):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            out.append(
                RunSummary(
                    run_id=data["run_id"], created=data["created"], question=data["question"],
                    status=data["status"], statute_version=data["statute_version"], backend=data["backend"],
                    path=str(path),
                )
            )
        except (OSError, ValueError, KeyError) as exc:
            logger.warning("skipping unreadable run file %s: %s", path, exc)
    return out
