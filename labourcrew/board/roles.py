"""The board's role nodes: small LangGraph adapters over the pipeline's pure logic (paper §3.1).

Each node is a function named after its :class:`~labourcrew.ledger.roles.Role` that reads ledger
keys and returns a partial update. Its docstring lists what it reads and writes and the paper
section it implements. Dependencies come from the run context (:class:`BoardContext`), never from
globals.

Errors are **not** caught here: a node raises, LangGraph's ``RetryPolicy`` retries
:class:`~labourcrew.errors.TransientRoleError`, and only after the retries are exhausted (or at
once for any other error) does the Supervisor's failure recorder
(:mod:`labourcrew.board.supervisor`) record the role as failed. Before re-raising, a node tags the
exception with an :class:`AttemptInfo` (attempt number, first-attempt time, and the chat calls and
tokens of every attempt so far) so the recorder can report them.

Accounting: a failed attempt writes nothing to the ledger, so the usage of its chat calls (carried
by the backend's exception, :func:`~labourcrew.ledger.roles.usage_of`) waits in the context's
:class:`UsageTally` under the LangGraph task id; the successful attempt's
:class:`~labourcrew.ledger.run.RoleCall` -- or the failure record -- carries the total, so
``llm_calls`` and tokens count every chat request, retries included.

A backend's output is never trusted: it is validated into the role's output model (raw text or a
wrong type is a transient *malformed output* failure), proposed claims pass the Evidence Exchange
Protocol, and the auditor's verdict is capped by the deterministic skeptic checks.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypedDict, TypeVar

from langgraph.runtime import Runtime
from pydantic import BaseModel, ValidationError

from labourcrew.audit.citation_checker import check_claim
from labourcrew.audit.conditions import omitted_conditions
from labourcrew.audit.skeptic import skeptic_report, states_asked_amount
from labourcrew.board.deps import BoardDeps
from labourcrew.board.state import CaseLedger, aggregate_status
from labourcrew.deliberation.eep import LedgerView, make_claims
from labourcrew.errors import RoleError, TransientRoleError
from labourcrew.gate.opinion_writer import write_opinion
from labourcrew.gate.trust_gate import decide, gate_inputs, premise_errors
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.records import (
    Claim,
    Direction,
    EvidencePack,
    RoleStatus,
    Side,
    TrustFinding,
    Verdict,
)
from labourcrew.ledger.retrieval import IssueSpotting, PlannerRequest
from labourcrew.ledger.roles import (
    AuditBatchInput,
    AuditBatchOutput,
    AuditOutput,
    CallUsage,
    CounselInput,
    CounselOutput,
    InterpreterInput,
    InterpreterOutput,
    ProposedClaim,
    Role,
    batch_problems,
    usage_of,
)
from labourcrew.ledger.run import RoleCall
from labourcrew.retrieval.planner import make_plan, plan_from_request
from labourcrew.settings import Settings
from labourcrew.statute.model import EdgeType
from labourcrew.statute.normalize import normalize

__all__ = [
    "DETERMINISTIC",
    "BoardContext",
    "AuditTask",
    "MALFORMED_KINDS",
    "issue_spotter",
    "retrieval_planner",
    "statute_retriever",
    "link_hopper",
    "worker_counsel",
    "employer_counsel",
    "legal_interpreter",
    "citation_checker",
    "trust_auditor",
    "trust_gate",
    "issues_of",
    "stage_of",
    "cited_texts",
    "validate_inputs",
    "ATTEMPT_ATTR",
    "AttemptInfo",
    "UsageTally",
]

logger = logging.getLogger(__name__)

DETERMINISTIC = "deterministic"
"""Backend name recorded for roles that involve no model."""

ATTEMPT_ATTR = "_labourcrew_attempt"
_M = TypeVar("_M", bound=BaseModel)


class UsageTally:
    """Usage of the failed attempts of running node tasks, by LangGraph task id (thread-safe).

    A node's failed attempt cannot write to the ledger, so what its chat calls cost is kept here
    until the task ends: the successful attempt's :class:`~labourcrew.ledger.run.RoleCall` adds
    it, or the failure recorder takes it once the retries are exhausted. Bounded (the oldest
    entries are dropped) in case a board stops between the two.
    """

    def __init__(self, limit: int = 1024) -> None:
        self._lock = threading.Lock()
        self._usage: OrderedDict[str, CallUsage] = OrderedDict()
        self._limit = limit

    def add(self, task: str | None, usage: CallUsage | None, backend: str) -> CallUsage | None:
        """Add one failed attempt's usage to ``task``'s; returns the task's running total."""
        with self._lock:
            parts = [u for u in (self._usage.pop(task, None) if task else None, usage) if u is not None]
            if not parts:
                return None
            total = CallUsage.total(parts, backend)
            if task:
                self._usage[task] = total
                while len(self._usage) > self._limit:
                    self._usage.popitem(last=False)
            return total

    def get(self, task: str | None) -> CallUsage | None:
        """The running total of ``task``'s failed attempts (None when none made calls)."""
        with self._lock:
            return self._usage.get(task) if task else None

    def pop(self, task: str | None) -> CallUsage | None:
        """Remove and return ``task``'s entry (the task has ended)."""
        with self._lock:
            return self._usage.pop(task, None) if task else None


@dataclass(frozen=True)
class BoardContext:
    """The run context every node receives (``runtime.context``)."""

    settings: Settings
    deps: BoardDeps
    tally: UsageTally = field(default_factory=UsageTally, compare=False, repr=False)


class AuditTask(TypedDict):
    """Input of the Trust Auditor task of one round: every claim still lacking a finding (sent by
    :func:`~labourcrew.board.routing.route_audits`).
    """

    claims: list[Claim]
    question: str
    cited_texts: dict[str, str]
    retrieval_round: int


MALFORMED_KINDS = frozenset({"malformed_json", "schema_violation", "truncated", "empty_output"})
"""Error kinds (``exc.kind`` of a backend's role error) that mean the model answered, but not with
a usable batch reply: the Trust Auditor then falls back to one call per claim."""


# ---------------------------------------------------------------- plumbing


class AttemptInfo(NamedTuple):
    """What a node tags its raised exception with (``ATTEMPT_ATTR``), for the failure recorder."""

    attempt: int = 1
    first: float | None = None
    usage: CallUsage | None = None  # chat calls of every attempt of the task so far
    task: str | None = None  # LangGraph task id (the same over the task's retries)


class _Attempt:
    """Attempt bookkeeping of one node execution (see :func:`_attempt`).

    Every backend result goes through :meth:`unpack` (or :meth:`took`) and every caught backend
    error through :meth:`absorb`, so the attempt knows the usage of all its chat calls -- the
    successful ones, the malformed replies and the ones that raised.
    """

    def __init__(self, role: Role, runtime: Runtime[BoardContext]):
        info = getattr(runtime, "execution_info", None)
        ctx = runtime.context
        self.role = role
        self.attempt = int(getattr(info, "node_attempt", 1) or 1)
        self.first = float(getattr(info, "node_first_attempt_time", None) or ctx.deps.clock())
        self.clock = ctx.deps.clock
        self.task: str | None = getattr(info, "task_id", None)
        self.tally = ctx.tally
        self.backend = ctx.deps.backend.name
        self.usages: list[CallUsage] = []
        self._absorbed: set[int] = set()

    def took(self, usage: Any) -> CallUsage:
        """Record a backend call's usage (anything but a CallUsage counts as no call)."""
        if not isinstance(usage, CallUsage):
            usage = CallUsage(backend=str(getattr(usage, "backend", "unknown")))
        self.usages.append(usage)
        return usage

    def unpack(self, result: Any, model: type[_M]) -> _M:
        """A backend result ``(output, usage)``: the usage recorded, the output validated into
        ``model`` (raw text or a wrong type is a transient malformed output; its call still counts).
        """
        if not (isinstance(result, tuple) and len(result) == 2):
            raise TransientRoleError(f"{self.role.value}: malformed output: expected (output, usage)")
        out, usage = result
        self.took(usage)
        return _expect(out, model, self.role)

    def absorb(self, exc: BaseException) -> None:
        """Record the usage a backend attached to ``exc`` (once per exception)."""
        if id(exc) in self._absorbed:
            return
        self._absorbed.add(id(exc))
        usage = usage_of(exc)
        if usage is not None:
            self.usages.append(usage)

    def _own(self) -> CallUsage | None:
        return CallUsage.total(self.usages, self.backend) if self.usages else None

    def failed(self) -> CallUsage | None:
        """This attempt failed: its usage joins the task's tally; returns the running total."""
        return self.tally.add(self.task, self._own(), self.backend)

    def call(
        self,
        stage: str,
        retrieval_round: int,
        *,
        claim_id: str | None = None,
        fallback: str | None = None,
    ) -> RoleCall:
        """The :class:`RoleCall` of the successful attempt: calls and tokens of every attempt."""
        parts = [u for u in (self.tally.get(self.task), self._own()) if u is not None]
        usage = CallUsage.total(parts, self.backend) if parts else None
        latency = max(0.0, (self.clock() - self.first) * 1000.0)
        status = RoleStatus(
            role=self.role.value,
            status="ok" if self.attempt == 1 else "retried",
            attempts=self.attempt,
            error=None,
            latency_ms=round(latency, 3),
            tokens_in=usage.tokens_in if usage else 0,
            tokens_out=usage.tokens_out if usage else 0,
            backend=usage.backend if usage else DETERMINISTIC,
        )
        return RoleCall(
            status=status,
            stage=stage,
            retrieval_round=retrieval_round,
            llm_calls=usage.llm_calls if usage else 0,
            cost_usd=usage.cost_usd if usage else 0.0,
            claim_id=claim_id,
            fallback=fallback,
        )


@contextmanager
def _attempt(role: Role, runtime: Runtime[BoardContext]) -> Iterator[_Attempt]:
    """Attempt bookkeeping: on an exception, its usage joins the task's tally and it is tagged with
    an :class:`AttemptInfo` before it is re-raised; on success the task's tally entry is dropped.
    """
    att = _Attempt(role, runtime)
    try:
        yield att
    except Exception as exc:
        att.absorb(exc)
        info = AttemptInfo(att.attempt, att.first, att.failed(), att.task)
        try:
            setattr(exc, ATTEMPT_ATTR, info)
        except (AttributeError, TypeError):  # exceptions with __slots__: report attempt 1
            pass
        raise
    else:
        att.tally.pop(att.task)


def _expect(value: Any, model: type[_M], role: Role) -> _M:
    """Validate a backend output into ``model``; anything else is a transient malformed output."""
    if isinstance(value, model):
        return value
    try:
        if isinstance(value, (str, bytes)):
            return model.model_validate_json(value)
        if isinstance(value, dict):
            return model.model_validate(value)
    except ValidationError as exc:
        raise TransientRoleError(
            f"{role.value}: malformed output ({exc.error_count()} validation error(s)): {str(value)[:80]!r}"
        ) from exc
    raise TransientRoleError(f"{role.value}: malformed output: expected {model.__name__}, got {type(value).__name__}")


def stage_of(role: Role, state: CaseLedger) -> str:
    """Board stage label of a call: parallel calls of one step share it (used to count the
    sequential model calls on the critical path).
    """
    r = state.get("retrieval_round", 0)
    if role in (Role.WORKER_COUNSEL, Role.EMPLOYER_COUNSEL):
        return f"counsel@r{r}d{state.get('deliberation_round', 0)}"
    if role == Role.TRUST_AUDITOR:
        return f"audit@r{r}"
    if role == Role.LEGAL_INTERPRETER:  # beside the counsels, in the same stage
        return f"counsel@r{r}d{state.get('deliberation_round', 0)}"
    return f"{role.value}@r{r}"


def issues_of(spotting: IssueSpotting | None, question: str) -> list[str]:
    """The issues the counsels and the interpreter see: the Act's wording of the spotted concepts,
    the sections named, and the sub-questions.
    """
    if spotting is None:
        return []
    issues = list(spotting.concept_terms)
    issues += [f"ধারা {label}" for label in spotting.section_labels]
    issues += [s for s in spotting.sub_questions if s != question]
    return list(dict.fromkeys(i for i in issues if i.strip()))


def _ctx(runtime: Runtime[BoardContext]) -> BoardContext:
    return runtime.context


def _next_ids(prefix: str, existing: list[Claim], n: int) -> list[str]:
    used = {c.claim_id for c in existing}
    out: list[str] = []
    k = sum(1 for c in existing if c.claim_id.startswith(prefix)) + 1
    while len(out) < n:
        cid = f"{prefix}{k}"
        if cid not in used:
            out.append(cid)
        k += 1
    return out


_PREFIX = {Side.WORKER: "w", Side.EMPLOYER: "e", Side.INTERPRETER: "i"}


def _key(side: Side, spans: list[str], text: str) -> tuple:
    return (side, frozenset(normalize(sp) for sp in spans), normalize(text))


def _admit(
    side: Side,
    proposed: list[ProposedClaim],
    state: CaseLedger,
    round_: int,
) -> tuple[list[Claim], list]:
    """Proposed claims -> ledger claims through the EEP.

    A proposal repeating a claim the side already made (same spans, same text) is dropped before
    ids are assigned (a re-entry round often re-finds the same spans).
    """
    pack = state.get("pack") or EvidencePack()
    existing = list(state.get("claims") or [])
    seen = {_key(c.side, [r.span for r in c.evidence], c.text) for c in existing}
    unique: list[ProposedClaim] = []
    for p in proposed:
        key = _key(side, [c.span for c in p.citations], p.text)
        if key not in seen:
            seen.add(key)
            unique.append(p)
    ids = _next_ids(_PREFIX[side], existing, len(unique))
    attempts = [
        {
            "claim_id": cid,
            "side": side,
            "text": p.text,
            "evidence": [{"node_id": c.node_id, "span": c.span} for c in p.citations],
            "confidence": p.confidence,
            "challenge_to": p.challenge_to,
            "round": round_,
            "retrieval_round": state.get("retrieval_round", 0),
        }
        for cid, p in zip(ids, unique, strict=True)
    ]
    claims, rejected, _ = make_claims(LedgerView(pack, existing), attempts)
    return claims, rejected


# ---------------------------------------------------------------- roles


def issue_spotter(state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Issue Spotter (paper §3.3): neutral decomposition of the question.

    Reads: ``question``, ``version``. Writes: ``spotting``, ``answerable`` (the question without
    false-premise parts and injected instructions), ``section_ids``, ``premise_errors``, ``role_calls``.
    """
    from labourcrew.retrieval.exact import resolve_label

    ctx = _ctx(runtime)
    with _attempt(Role.ISSUE_SPOTTER, runtime) as att:
        spotting = att.unpack(ctx.deps.backend.spot_issues(state["question"]), IssueSpotting)
        version = state["version"]
        resolved = {lb: resolve_label(ctx.deps.graph, version, lb) for lb in spotting.section_labels}
        return {
            "spotting": spotting,
            "answerable": _answerable(spotting, [lb for lb, v in resolved.items() if v is None]),
            "section_ids": list(dict.fromkeys(v for v in resolved.values() if v)),
            "premise_errors": premise_errors(spotting.section_labels, resolved, version, ctx.deps.graph),
            "role_calls": [att.call(stage_of(Role.ISSUE_SPOTTER, state), 0)],
        }


def _answerable(spotting: IssueSpotting, missing: list[str]) -> str:
    """The question without the parts resting on a false premise and without injected instructions
    (what the counsels argue about); the question itself when nothing is set aside.
    """
    from labourcrew.retrieval.exact import find_section_refs
    from labourcrew.retrieval.issue_spotter import split_injection

    text, injected = split_injection(spotting.question)
    parts = list(spotting.parts)
    if missing and parts:
        keep = [p for p in parts if not any(r.label in missing for r in find_section_refs(p))]
        if keep and len(keep) < len(parts):
            return " ".join(keep)
    return text if injected and text else spotting.question


def _planner_request(state: CaseLedger) -> PlannerRequest | None:
    req = state.get("pending_request")
    if req is None:
        return None
    version = state["version"]
    seeds = [s for s in req.seeds if s.startswith(f"{version}:")]
    edges = {EdgeType(e) for e in req.edge_types if e in EdgeType._value2member_map_}
    return PlannerRequest(
        seeds=seeds,
        edge_types=edges or {EdgeType.PROVISO, EdgeType.CROSS_REF},
        hop_budget=req.hops,
        queries=[q for q in req.queries if q.strip()],
        question_type=state["spotting"].question_type,
    )


def retrieval_planner(state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Retrieval Planner (paper §3.3, ceilings B.2): a clamped plan for the question or, when the
    Supervisor re-enters retrieval, for the pending request (an evidence gap or the auditor's request).

    Reads: ``spotting``, ``version``, ``pending_request``. Writes: ``plan``, ``role_calls``.
    """
    ctx = _ctx(runtime)
    with _attempt(Role.RETRIEVAL_PLANNER, runtime) as att:
        request = _planner_request(state)
        if request is not None and (request.seeds or request.queries):
            # The rerank scores re-entry units against the user's question, not the request's seeds.
            plan = plan_from_request(request, ctx.settings).model_copy(update={"question": state["question"]})
        else:
            plan = make_plan(state["spotting"], ctx.settings, graph=ctx.deps.graph, version=state["version"],
                             thesaurus=ctx.deps.thesaurus)
        return {"plan": plan, "role_calls": [att.call(stage_of(Role.RETRIEVAL_PLANNER, state), state.get("retrieval_round", 0))]}


def statute_retriever(state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Statute Retriever (paper §3.3): dense + lexical + exact channels fused by weighted RRF.

    Reads: ``plan``, ``version``. Writes: ``retrieved`` (direct hits), ``role_calls``.
    """
    ctx = _ctx(runtime)
    with _attempt(Role.STATUTE_RETRIEVER, runtime) as att:
        hits = ctx.deps.retrieval.search(state["plan"], state["version"])
        return {
            "retrieved": EvidencePack(items=hits),
            "role_calls": [att.call(stage_of(Role.STATUTE_RETRIEVER, state), state.get("retrieval_round", 0))],
        }


def link_hopper(state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Link Hopper (paper §3.3): typed-edge expansion with a Hop Trace; the result is merged into
    the Evidence Pack (re-entries add to it).

    Reads: ``retrieved``, ``plan``, ``version``. Writes: ``pack`` (merged), ``role_calls``.
    """
    ctx = _ctx(runtime)
    with _attempt(Role.LINK_HOPPER, runtime) as att:
        direct = list((state.get("retrieved") or EvidencePack()).items)
        pack = ctx.deps.retrieval.expand(direct, state["plan"], state["version"])
        return {"pack": pack, "role_calls": [att.call(stage_of(Role.LINK_HOPPER, state), state.get("retrieval_round", 0))]}


def _counsel(side: Side, role: Role, state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    ctx = _ctx(runtime)
    with _attempt(role, runtime) as att:
        round_ = state.get("deliberation_round", 0)
        claims = list(state.get("claims") or [])
        others = [c for c in claims if c.side not in (side, Side.INTERPRETER)] if round_ >= 1 else []
        inp = CounselInput(
            side=side,
            question=state.get("answerable") or state["question"],
            issues=issues_of(state.get("spotting"), state["question"]),
            facts=[f"{f.key}={f.value}" for f in state.get("facts") or []],
            pack=state.get("pack") or EvidencePack(),
            round=round_,
            other_claims=others,
        )
        out = att.unpack(ctx.deps.backend.counsel(inp), CounselOutput)
        fresh, rejected = _admit(side, out.claims, state, round_)
        return {
            "claims": fresh,
            "rejected_by_eep": rejected,
            "role_calls": [att.call(stage_of(role, state), state.get("retrieval_round", 0))],
        }


def worker_counsel(state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Worker Counsel (paper §3.4): maps the facts to duties owed and entitlements, from the pack
    only; in the rebuttal round it sees the Employer Counsel's claims and may challenge one.

    Reads: ``question``, ``spotting``, ``pack``, ``claims``, ``deliberation_round``.
    Writes: ``claims``, ``rejected_by_eep``, ``role_calls``.
    """
    return _counsel(Side.WORKER, Role.WORKER_COUNSEL, state, runtime)


def employer_counsel(state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Employer Counsel (paper §3.4): mines the pack for exceptions, preconditions and provisos
    that defeat the worker's claims; may challenge one in the rebuttal round.

    Reads: ``question``, ``spotting``, ``pack``, ``claims``, ``deliberation_round``.
    Writes: ``claims``, ``rejected_by_eep``, ``role_calls``.
    """
    return _counsel(Side.EMPLOYER, Role.EMPLOYER_COUNSEL, state, runtime)


def legal_interpreter(state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Legal Interpreter (paper §3.4): states the governing rule from the pack, without declaring a
    winner. It runs beside the counsels, so it sees the claims of earlier rounds (none in the
    opening round), never its neighbours' claims of the same round.

    Reads: ``question``, ``spotting``, ``pack``, ``claims``.
    Writes: ``claims``, ``rejected_by_eep``, ``interpreter_notes``, ``role_calls``.
    """
    ctx = _ctx(runtime)
    with _attempt(Role.LEGAL_INTERPRETER, runtime) as att:
        inp = InterpreterInput(
            question=state.get("answerable") or state["question"],
            issues=issues_of(state.get("spotting"), state["question"]),
            pack=state.get("pack") or EvidencePack(),
            claims=list(state.get("claims") or []),
        )
        out = att.unpack(ctx.deps.backend.interpret(inp), InterpreterOutput)
        proposed = [out.governing_rule] if out.governing_rule is not None else []
        fresh, rejected = _admit(Side.INTERPRETER, proposed, state, state.get("deliberation_round", 0))
        return {
            "claims": fresh,
            "rejected_by_eep": rejected,
            "interpreter_notes": out.notes,
            "role_calls": [att.call(stage_of(Role.LEGAL_INTERPRETER, state), state.get("retrieval_round", 0))],
        }


def citation_checker(state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Citation Checker (paper §3.5): deterministic check of every citation of every claim
    (node on the pack, span verbatim after Bangla-safe normalisation).

    Reads: ``claims``, ``pack``. Writes: ``citation_checks``, ``role_calls``.
    """
    with _attempt(Role.CITATION_CHECKER, runtime) as att:
        pack = state.get("pack") or EvidencePack()
        items = pack.by_id()
        checks = {c.claim_id: check_claim(c, items) for c in state.get("claims") or []}
        return {
            "citation_checks": checks,
            "role_calls": [att.call(stage_of(Role.CITATION_CHECKER, state), state.get("retrieval_round", 0))],
        }


_SEVERITY = {Verdict.SUPPORT: 0, Verdict.NEI: 1, Verdict.REFUTE: 2}


def _finding(claim: Claim, out: AuditOutput, cited_texts: dict[str, str], graph: StatuteGraph,
             question: str) -> TrustFinding:
    """Merge the backend's reading with the deterministic skeptic checks (the stricter wins),
    among them the conditions a quote leaves in sub-clauses (:mod:`labourcrew.audit.conditions`) and, for a
    question that asks one amount of time, whether a quote states one
    (:func:`~labourcrew.audit.skeptic.states_asked_amount`; NEI when none does).
    """
    spans = [r.span for r in claim.evidence]
    report = skeptic_report(claim.text, spans, cited_texts)
    verdict, direction = out.verdict, out.direction
    if report.verdict_cap is not None and _SEVERITY[report.verdict_cap] > _SEVERITY[verdict]:
        verdict, direction = report.verdict_cap, report.direction or direction
    # The board's own skeptic copy of a check is kept only where it adds something: the backend did
    # not report that check, or reported another value (the offline auditor runs the same skeptic).
    checks = {**out.checks, **{f"skeptic.{k}": v for k, v in report.checks.items() if out.checks.get(k) != v}}
    skeptic_notes = list(report.notes)
    omitted = omitted_conditions(graph, claim.cited_node_ids())
    checks["skeptic.sub_clause_conditions_cited"] = not omitted
    if omitted:
        skeptic_notes.append("conditions in sub-clauses not cited: " + ", ".join(omitted))
        if _SEVERITY[Verdict.NEI] > _SEVERITY[verdict]:
            verdict, direction = Verdict.NEI, Direction.MISSING_CONDITION
    stated = states_asked_amount(question, spans)
    if stated is not None:
        checks["skeptic.asked_amount_stated"] = stated
        if not stated:
            skeptic_notes.append("the question asks an amount of time; no quote states one")
            if _SEVERITY[Verdict.NEI] > _SEVERITY[verdict]:
                verdict = Verdict.NEI
    notes = out.notes
    if skeptic_notes:
        notes = (notes + " | " if notes else "") + "skeptic: " + "; ".join(skeptic_notes)
    if verdict == Verdict.SUPPORT:
        direction = None
    return TrustFinding(
        claim_id=claim.claim_id,
        verdict=verdict,
        category=out.category,
        direction=direction,
        checks=checks,
        notes=notes,
    )


def _batch_reply(result: Any, inp: AuditBatchInput, att: _Attempt) -> tuple[dict[str, AuditOutput] | None, str]:
    """Validate a batch reply (its usage recorded on ``att``): ``(verdicts by claim id, "")`` or
    ``(None, why)``.
    """
    if not (isinstance(result, tuple) and len(result) == 2):
        return None, "expected (output, usage)"
    out, usage = result
    att.took(usage)
    try:
        batch = _expect(out, AuditBatchOutput, Role.TRUST_AUDITOR)
    except TransientRoleError as exc:
        return None, str(exc)
    problems = batch_problems(inp, batch)
    if problems:
        return None, "; ".join(problems)
    return batch.by_claim(), ""


def trust_auditor(task: AuditTask, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Trust Auditor (paper §3.5), one task per round: every claim of the round in **one** backend
    call (``audit_batch``): per claim a verdict SUPPORT/REFUTE/NEI against the cited spans,
    category, direction, typed skeptic checks, and a structured retrieval request when evidence is
    missing.

    The reply must hold exactly one verdict per claim id (a missing, extra or repeated id, raw
    text, a schema violation or a truncated reply makes it malformed); only then does the auditor
    fall back to one ``audit`` call per claim (recorded as the call's ``fallback``). Any other error
    propagates to the ``RetryPolicy`` and, once retries are exhausted, the failure recorder counts
    every claim of the round as NEI.

    Reads (task): ``claims``, ``question``, ``cited_texts``. Writes: ``findings``,
    ``retrieval_requests``, ``role_calls`` (one call per round).
    """
    ctx = _ctx(runtime)
    with _attempt(Role.TRUST_AUDITOR, runtime) as att:
        claims = list(task["claims"])
        inp = AuditBatchInput(question=task["question"], claims=claims, cited_texts=task["cited_texts"])
        backend = ctx.deps.backend
        fallback: str | None = None
        try:
            outs, why = _batch_reply(backend.audit_batch(inp), inp, att)
        except RoleError as exc:
            if getattr(exc, "kind", None) not in MALFORMED_KINDS:
                raise
            # The model answered but not with a parseable batch; the call counts (its usage is on exc).
            att.absorb(exc)
            outs, why = None, str(exc)
        if outs is None:
            logger.info("trust auditor: batch reply malformed (%s); auditing claim by claim", why)
            fallback = f"one call per claim (batch reply malformed: {why[:160]})"
            outs = {}
            for claim in claims:
                outs[claim.claim_id] = att.unpack(backend.audit(inp.single(claim)), AuditOutput)
        findings: dict[str, TrustFinding] = {}
        requests = []
        for claim in claims:
            out = outs[claim.claim_id]
            findings[claim.claim_id] = _finding(claim, out, inp.single(claim).cited_texts, ctx.deps.graph,
                                                inp.question)
            if out.retrieval_request is not None:
                requests.append(out.retrieval_request)
        r = task["retrieval_round"]
        return {
            "findings": findings,
            "retrieval_requests": requests,
            "role_calls": [att.call(f"audit@r{r}", r, fallback=fallback)],
        }


def trust_gate(state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Trust Gate + Opinion Writer (paper §3.6): release decision at τ (or categorical), status
    TGLO/DEGRADED/UNDECIDED, and the Bangla narrative from the released claims only.

    Reads: ``claims``, ``findings``, ``pack``, ``role_calls``, ``spotting``, ``section_ids``,
    ``premise_errors``, ``question``, ``version``, ``want_english``, ``facts``,
    ``clarification_round``.
    Writes: ``gate``, ``opinion``, ``role_calls``.
    """
    ctx = _ctx(runtime)
    with _attempt(Role.TRUST_GATE, runtime) as att:
        graph = ctx.deps.graph
        pack = state.get("pack") or EvidencePack()
        spotting = state.get("spotting")
        facts = list(state.get("facts") or [])
        # One reading of the question for the gate, shared with the re-gating of saved runs; the
        # thesaurus is the planner's (build_board sets it).
        inputs = gate_inputs(graph, spotting, state["question"], state["version"], facts,
                             thesaurus=ctx.deps.thesaurus)
        gate = decide(
            list(state.get("claims") or []),
            dict(state.get("findings") or {}),
            pack,
            calibration=ctx.deps.calibration,
            mode=ctx.settings.gate.mode,
            role_status=aggregate_status(state.get("role_calls") or []),
            primary=inputs.primary,
            context_of=graph.section_context,
            premise_errors=inputs.premise_errors,
            parts=inputs.parts,
            qualifiers_of=inputs.qualifiers_of,
            nothing_matched=inputs.nothing_matched,
        )
        opinion = write_opinion(
            gate, version=state["version"], graph=graph, english=bool(state.get("want_english")),
            pack=pack, question=state["question"], spotting=spotting, facts=facts,
            clarification_round=int(state.get("clarification_round", 0) or 0),
            relevance_floor=ctx.settings.offline.relevance_floor,
        )
        return {
            "gate": gate,
            "opinion": opinion,
            "role_calls": [att.call(stage_of(Role.TRUST_GATE, state), state.get("retrieval_round", 0))],
        }




def cited_texts(claims: Claim | list[Claim], pack: EvidencePack) -> dict[str, str]:
    """Node id -> verbatim unit text of each node the claim(s) cite that is on the pack (each node
    once, in order of first citation).
    """
    items = pack.by_id()
    claims = [claims] if isinstance(claims, Claim) else claims
    nodes = dict.fromkeys(n for c in claims for n in c.cited_node_ids())
    return {n: items[n].text for n in nodes if n in items}


def validate_inputs(question: object, version: str, deps: BoardDeps) -> tuple[str, str]:
    """Validate a question and version before a run.

    Raises:
        InputError: bad question (empty, oversized, no words) or unknown version.
        IndexNotBuiltError: the version is not indexed.
    """
    from labourcrew.retrieval.pipeline import validate_question

    return validate_question(question), deps.retrieval.check_version(version)
