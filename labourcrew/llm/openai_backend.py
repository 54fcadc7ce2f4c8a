"""The ``openai`` backend: the board's language roles on any OpenAI-compatible chat endpoint.

:class:`OpenAIBackend` implements :class:`~labourcrew.ledger.roles.RoleBackend` (paper §3.1,
App. D). Each method renders the role's prompt (:mod:`labourcrew.prompting`), makes **one** chat
call and parses the reply into the role's output model.

Structured output -- the choice and why. The reply schema is sent as a plain-dict
``response_format={"type": "json_schema", "json_schema": {"name", "schema", "strict": False}}``
(method ``"json_schema"``, the default); the reply text is parsed and validated **here** with
pydantic, not by LangChain's ``with_structured_output`` parser:

* ``json_schema`` response formats are what OpenAI, vLLM (guided decoding), llama.cpp server
  (grammar from the schema) and Ollama (``format``) all constrain decoding with; forced tool
  calls (``function_calling``) are patchier on local servers (llama.cpp needs ``--jinja``,
  Ollama ignores a forced ``tool_choice``) and small models follow them less reliably;
* ``strict`` is off: OpenAI's strict mode rejects free-form maps (``AuditOutput.checks``),
  optional fields and numeric bounds, which our models use; local validation catches whatever the
  server lets through;
* parsing ourselves keeps the error mapping exact (refusal vs malformed vs schema violation) and
  identical for every server, and the schema is also written into the system message, so servers
  that ignore ``response_format`` still see it.

``method="json_object"`` (``{"type": "json_object"}``) and ``method="prompt"`` (no
``response_format``) are fallbacks for older servers; everything else is the same.

Failures (raised, never swallowed -- the board's ``RetryPolicy`` and Supervisor decide)::

    TransientRoleError   timeout, connection error, rate limit (429), HTTP 408/409/425/5xx,
                         truncated reply (finish_reason=length), empty reply, malformed JSON,
                         schema violation (first time for a given prompt)
    PermanentRoleError   refusal (``refusal`` field, content filter, a refusal sentence instead
                         of JSON), other HTTP 4xx (bad key, unknown model, bad request,
                         context overflow), and a schema failure repeated ``schema_failure_limit``
                         times for the same rendered prompt (temperature 0: it will not change)

Every error carries ``kind`` (e.g. ``"timeout"``, ``"schema_violation"``) and ``role``
attributes; its message never contains the API key (:func:`~labourcrew.llm.chat_models.redact`).

Accounting. Every chat request makes one :class:`~labourcrew.ledger.roles.CallUsage` with
``backend="openai:<model>"``, the tokens of the response's usage metadata (0 when no response
came), a cost estimate from :data:`PRICES_USD_PER_MTOK` (0 for unknown models) and
``llm_calls=1``. A successful call returns it; a failed one attaches it to the raised error
(:func:`~labourcrew.ledger.roles.attach_usage`) -- a truncated or malformed reply was answered and
its tokens were spent -- so the board's run record counts every request, retries included. The
same numbers are appended to :attr:`OpenAIBackend.calls` (a :class:`CallRecorder`);
:func:`count_llm_calls` turns those records into totals and the number of **sequential** calls
(the longest chain of calls that did not overlap in time).

Trust Auditor. :meth:`OpenAIBackend.audit_batch` audits all claims of a round in one call (one
prompt, ``prompts/trust_auditor.md``, over :class:`~labourcrew.ledger.roles.AuditBatchInput`);
:meth:`OpenAIBackend.audit` -- the board's fallback when a batch reply is malformed -- sends the same
prompt with one claim.

Thread safety. The board runs both counsels and the interpreter concurrently on one backend:
chat clients are created once per role under a lock and are themselves thread-safe; the call
recorder and the schema-failure counter are lock-protected.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from labourcrew.errors import (
    ConfigError,
    InputError,
    PermanentRoleError,
    RoleError,
    TransientRoleError,
)
from labourcrew.ledger.records import Side
from labourcrew.ledger.retrieval import IssueSpotting
from labourcrew.ledger.roles import (
    LANGUAGE_ROLES,
    AuditBatchInput,
    AuditBatchOutput,
    AuditInput,
    AuditOutput,
    CallUsage,
    CounselInput,
    CounselOutput,
    InterpreterInput,
    InterpreterOutput,
    Role,
    attach_usage,
)
from labourcrew.llm.chat_models import make_chat_model, redact, resolve_api_key
from labourcrew.prompting import IssueSpotterInput, load_prompt, prompt_hashes
from labourcrew.retrieval.exact import find_section_refs
from labourcrew.retrieval.issue_spotter import CONCEPTS
from labourcrew.settings import LLMSettings
from labourcrew.statute.normalize import to_ascii_digits

__all__ = [
    "StructuredMethod",
    "PRICES_USD_PER_MTOK",
    "estimate_cost",
    "LLMCallRecord",
    "LLMCallCount",
    "CallRecorder",
    "count_llm_calls",
    "IssueSpotterReply",
    "AuditBatchReply",
    "OpenAIBackend",
]

logger = logging.getLogger(__name__)

StructuredMethod = Literal["json_schema", "json_object", "prompt"]
ChatModelFactory = Callable[[Role], Any]  # role -> a LangChain chat model (BaseChatModel)

# List prices in USD per 1M tokens (input, output), OpenAI, 2025. A dated snapshot
# ("gpt-4o-mini-2024-07-18", "gpt-4o-latest") is priced as its family. Estimates only.
_SNAPSHOT = r"-(?:\d{4}-\d{2}-\d{2}|\d{4}|latest)"
PRICES_USD_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
    "o4-mini": (1.10, 4.40),
    "o3-mini": (1.10, 4.40),
}


def estimate_cost(
    model: str, tokens_in: int, tokens_out: int, prices: Mapping[str, tuple[float, float]] | None = None
) -> float:
    """Estimated cost in USD of one call; 0.0 for a model not in the table.

    Args:
        model: model name as configured.
        tokens_in: prompt tokens.
        tokens_out: completion tokens.
        prices: ``{model prefix: (USD per 1M input tokens, USD per 1M output tokens)}``;
            default :data:`PRICES_USD_PER_MTOK`.
    """
    table = PRICES_USD_PER_MTOK if prices is None else prices
    matches = [p for p in table if model == p or re.fullmatch(re.escape(p) + _SNAPSHOT, model)]
    if not matches:
        return 0.0
    price_in, price_out = table[max(matches, key=len)]
    return (tokens_in * price_in + tokens_out * price_out) / 1_000_000


# ---------------------------------------------------------------- call accounting


class LLMCallRecord(BaseModel):
    """One chat call as the backend saw it (successful or not)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str = Field(description="Board role that made the call.")
    model: str = Field(description="Model name the call went to.")
    started_s: float = Field(description="Start time, seconds on the backend's clock (monotonic).")
    ended_s: float = Field(description="End time, seconds on the same clock.")
    ok: bool = Field(description="True when the reply parsed into the role's output model.")
    error_kind: str | None = Field(default=None, description="Error kind when not ok (e.g. 'timeout').")
    tokens_in: int = Field(default=0, ge=0, description="Prompt tokens (0 when the server sent none).")
    tokens_out: int = Field(default=0, ge=0, description="Completion tokens.")
    cost_usd: float = Field(default=0.0, ge=0.0, description="Estimated cost in USD.")


class LLMCallCount(BaseModel):
    """Totals over call records (see :func:`count_llm_calls`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    calls: int = Field(ge=0, description="Chat calls made (successful and failed).")
    ok: int = Field(ge=0, description="Calls whose reply parsed.")
    failed: int = Field(ge=0, description="Calls that raised.")
    sequential: int = Field(
        ge=0, description="Longest chain of calls that ran one after another (critical path, in calls)."
    )
    tokens_in: int = Field(ge=0, description="Prompt tokens, summed.")
    tokens_out: int = Field(ge=0, description="Completion tokens, summed.")
    cost_usd: float = Field(ge=0.0, description="Estimated cost in USD, summed.")
    by_role: dict[str, int] = Field(description="Calls per role.")


def count_llm_calls(records: Iterable[LLMCallRecord]) -> LLMCallCount:
    """Count chat calls and the sequential ones among them.

    ``sequential`` is the largest number of calls no two of which overlapped in time: the length
    of the longest chain of calls each starting after the previous ended, i.e. the calls on the
    critical path as the board actually scheduled them. Two counsels run concurrently count once;
    the same two run one after the other count twice.

    Args:
        records: call records, e.g. ``backend.calls.records()`` or a slice of it for one round.
    """
    recs = list(records)
    sequential, last_end = 0, float("-inf")
    for rec in sorted(recs, key=lambda r: r.ended_s):  # greedy interval scheduling
        if rec.started_s >= last_end:
            sequential += 1
            last_end = rec.ended_s
    by_role: dict[str, int] = {}
    for rec in recs:
        by_role[rec.role] = by_role.get(rec.role, 0) + 1
    ok = sum(r.ok for r in recs)
    return LLMCallCount(
        calls=len(recs),
        ok=ok,
        failed=len(recs) - ok,
        sequential=sequential,
        tokens_in=sum(r.tokens_in for r in recs),
        tokens_out=sum(r.tokens_out for r in recs),
        cost_usd=sum(r.cost_usd for r in recs),
        by_role=by_role,
    )


class CallRecorder:
    """Thread-safe, append-only list of :class:`LLMCallRecord` (one per chat call)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: list[LLMCallRecord] = []

    def add(self, record: LLMCallRecord) -> None:
        """Append one record."""
        with self._lock:
            self._records.append(record)

    def records(self, since: int = 0) -> list[LLMCallRecord]:
        """A snapshot of the records from index ``since`` on (``len(recorder)`` marks a point)."""
        with self._lock:
            return list(self._records[since:])

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)

    def count(self, since: int = 0) -> LLMCallCount:
        """:func:`count_llm_calls` over the records from ``since`` on."""
        return count_llm_calls(self.records(since))


# ---------------------------------------------------------------- the Issue Spotter's reply

# Fields of IssueSpotting the backend fills itself rather than trusting the model with.
_SPOTTER_DERIVED = frozenset({"question", "concept_terms"})
_CONCEPT_KEYS = tuple(c.key for c in CONCEPTS)
_LABEL = re.compile(r"^\d+[A-Z]?(?:\([0-9A-Za-z]+\))*$")


def _spotter_reply_model() -> type[BaseModel]:
    # Built from IssueSpotting so the two cannot drift: same fields minus the derived ones.
    fields: dict[str, Any] = {}
    for name, info in IssueSpotting.model_fields.items():
        if name in _SPOTTER_DERIVED:
            continue
        fields[name] = (info.annotation, info)
    if "concepts" in fields:
        fields["concepts"] = (
            list[str],
            Field(
                default_factory=list,
                description="Keys of the concepts the question is about (only from the allowed list).",
                json_schema_extra={"items": {"type": "string", "enum": list(_CONCEPT_KEYS)}},
            ),
        )
    return create_model(
        "IssueSpotterReply",
        __config__=ConfigDict(extra="forbid"),
        __doc__="The Issue Spotter's analysis (IssueSpotting without the fields the backend derives).",
        **fields,
    )


IssueSpotterReply: type[BaseModel] = _spotter_reply_model()


def _grounded_labels(question: str, proposed: Iterable[str]) -> list[str]:
    """Section labels named by the question: the deterministic finder's, plus the model's whose
    section number occurs in the question (a model may read "২৭ এর ৩ক" better than a regex, but
    may not name a section the question does not).
    """
    labels = [r.label for r in find_section_refs(question)]
    digits = to_ascii_digits(question)
    for label in proposed:
        label = to_ascii_digits(str(label)).strip().replace(" ", "")
        head = re.match(r"\d+", label)
        if _LABEL.match(label) and head and re.search(rf"(?<!\d){head.group()}(?!\d)", digits):
            labels.append(label)
        elif label:
            logger.info("issue spotter: dropped section label %r not named in the question", label)
    return list(dict.fromkeys(labels))


def _to_spotting(question: str, reply: BaseModel) -> IssueSpotting:
    data = reply.model_dump()
    q = " ".join(unicodedata.normalize("NFC", question).split())
    known = {c.key: c for c in CONCEPTS}
    concepts = [k for k in dict.fromkeys(data.get("concepts", [])) if k in known]
    data.update(question=q, concepts=concepts)
    if "concept_terms" in IssueSpotting.model_fields:
        data["concept_terms"] = list(dict.fromkeys(known[k].act_terms for k in concepts))
    if "section_labels" in data:
        data["section_labels"] = _grounded_labels(q, data["section_labels"])
    return IssueSpotting.model_validate(data)


# ---------------------------------------------------------------- the Trust Auditor's replies


class AuditBatchReply(AuditBatchOutput):
    """A batch reply for a **one-claim** audit (the per-claim fallback): also accepts the bare
    verdict object a model may send when it sees a single claim (its id is filled in by
    :meth:`OpenAIBackend.audit`).
    """

    @model_validator(mode="before")
    @classmethod
    def _bare_verdict(cls, data: Any) -> Any:
        if isinstance(data, dict) and "verdicts" not in data and "verdict" in data:
            return {"verdicts": [{"claim_id": "", **data}]}
        return data


# response_format name of a reply model whose schema is another model's.
_SCHEMA_NAMES: dict[type[BaseModel], str] = {AuditBatchReply: AuditBatchOutput.__name__}


# ---------------------------------------------------------------- reply parsing

_FENCED = re.compile(r"^\s*```(?:json|JSON)?\s*\n?(.*?)\n?```\s*$", re.DOTALL)
# A refusal written as prose instead of JSON (checked only when the reply holds no "{").
_REFUSAL_TEXT = re.compile(
    r"^\s*(?:I'?m sorry|I am sorry|sorry|I can(?:not|'t)|I won'?t|I'?m unable|I am unable|"
    r"as an AI|I must decline|দুঃখিত|আমি (?:\S+\s){0,6}?(?:পারব|পারবো|পারছি|পারি) না)",
    re.IGNORECASE,
)


@cache
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    from langchain_core.utils.json_schema import dereference_refs

    schema = dereference_refs(model.model_json_schema())
    schema.pop("$defs", None)
    return schema


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, Mapping) and block.get("type") in ("text", "output_text"):
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return ""


def _refusal(message: Any) -> str | None:
    """The refusal the reply carries, if any (refusal field or block, or a content filter stop)."""
    refusal = (getattr(message, "additional_kwargs", None) or {}).get("refusal")
    if refusal:
        return str(refusal)
    content = getattr(message, "content", None)
    if isinstance(content, list):
        for block in content:
            if isinstance(block, Mapping) and block.get("type") == "refusal":
                return str(block.get("refusal") or "refused")
    if (getattr(message, "response_metadata", None) or {}).get("finish_reason") == "content_filter":
        return "stopped by a content filter"
    return None


def _tokens_of_error(exc: BaseException) -> tuple[int, int]:
    """(prompt, completion) tokens of the answered completion a client error carries, else (0, 0).

    With a ``response_format`` the client parses the reply itself and raises
    ``LengthFinishReasonError`` (``.completion``) for a reply cut at the token limit: the server
    answered and the tokens were spent.
    """
    usage = getattr(getattr(exc, "completion", None), "usage", None)
    try:
        return int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0)
    except (TypeError, ValueError):
        return 0, 0


def _error(cls: type[RoleError], kind: str, role: Role, message: str, help_message: str | None = None) -> RoleError:
    err = cls(message, help_message=help_message)
    err.kind = kind  # type: ignore[attr-defined]
    err.role = str(role)  # type: ignore[attr-defined]
    return err


# ---------------------------------------------------------------- the backend


class OpenAIBackend:
    """:class:`~labourcrew.ledger.roles.RoleBackend` over an OpenAI-compatible chat endpoint.

    Args:
        llm: the ``llm`` settings group (``settings.llm``): base_url, api_key, model,
            role_models, timeout_s, temperature.
        chat_model_factory: ``role -> chat model`` (any LangChain ``BaseChatModel``); default
            :func:`~labourcrew.llm.chat_models.make_chat_model` with ``llm``. Tests inject
            scripted fakes here. Called at most once per role.
        method: structured-output method (see the module docstring); default ``"json_schema"``.
        prices: price table for cost estimates; default :data:`PRICES_USD_PER_MTOK`.
        schema_failure_limit: failures of the same rendered prompt to parse/validate after which
            the error is permanent (>= 1; default 2).
        prompts_dir: folder of the prompt files; default ``prompts/``.
        clock: monotonic clock in seconds for the call records; default ``time.perf_counter``.

    Raises:
        ConfigError: a language role has no model, no API key for the default endpoint (only when
            the default factory is used), or a prompt file is invalid (all prompts are loaded and
            validated here, so a bad prompt fails at start, not mid-run).
    """

    def __init__(
        self,
        llm: LLMSettings,
        chat_model_factory: ChatModelFactory | None = None,
        *,
        method: StructuredMethod = "json_schema",
        prices: Mapping[str, tuple[float, float]] | None = None,
        schema_failure_limit: int = 2,
        prompts_dir: Path | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if method not in ("json_schema", "json_object", "prompt"):
            raise ConfigError(f"unknown structured-output method {method!r}")
        if schema_failure_limit < 1:
            raise ConfigError("schema_failure_limit must be >= 1")
        missing = [str(r) for r in LANGUAGE_ROLES if not llm.model_for(str(r))]
        if missing:
            raise ConfigError(
                f"no model configured for role(s) {', '.join(missing)}",
                help_message="Set LABOURCREW_LLM__MODEL (or llm.role_models in the preset).",
            )
        if chat_model_factory is None:
            resolve_api_key(llm)  # fail fast on a missing key
            chat_model_factory = lambda role: make_chat_model(llm, role)  # noqa: E731
        self.llm = llm
        self.name = f"openai:{llm.model}" if llm.model else "openai"
        self.method: StructuredMethod = method
        self.prices = prices
        self.schema_failure_limit = schema_failure_limit
        self.prompts_dir = prompts_dir
        self.calls = CallRecorder()
        self._factory = chat_model_factory
        self._clock = clock
        self._models: dict[Role, Any] = {}
        self._models_lock = threading.Lock()
        self._failures: OrderedDict[str, int] = OrderedDict()
        self._failures_lock = threading.Lock()
        self._hashes = prompt_hashes(LANGUAGE_ROLES, prompts_dir)  # validates every prompt now

    def __repr__(self) -> str:  # no settings in the repr: nothing secret can leak through it
        return f"OpenAIBackend(name={self.name!r}, method={self.method!r})"

    # -- public API (RoleBackend) --------------------------------------------------------------

    @property
    def prompt_hashes(self) -> dict[str, str]:
        """sha256 of each role's prompt template, for the run record."""
        return dict(self._hashes)

    def model_for(self, role: Role) -> str:
        """The model name a role's calls go to."""
        return self.llm.model_for(str(role)) or ""

    def spot_issues(self, question: str) -> tuple[IssueSpotting, CallUsage]:
        """Issue Spotter (paper §3.3): the same :class:`IssueSpotting` record as the rule-based one.

        The backend, not the model, sets ``question`` (NFC, whitespace collapsed) and
        ``concept_terms`` (from :data:`~labourcrew.retrieval.issue_spotter.CONCEPTS`); unknown
        concept keys are dropped and section labels are kept only when the question names them.

        Raises:
            InputError: an empty question.
            TransientRoleError, PermanentRoleError: see the module docstring.
        """
        if not question or not question.strip():
            raise InputError("the question is empty")
        reply, usage = self._call(Role.ISSUE_SPOTTER, IssueSpotterInput(question=question), IssueSpotterReply)
        try:
            return _to_spotting(question, reply), usage
        except ValidationError as exc:
            what = f"reply does not make an IssueSpotting record ({exc.error_count()} error(s))"
            raise attach_usage(self._schema_failure(Role.ISSUE_SPOTTER, self.name, what), usage) from None

    def counsel(self, inp: CounselInput) -> tuple[CounselOutput, CallUsage]:
        """Worker or Employer Counsel (``inp.side``) for one round (paper §3.4).

        Claims are returned as the model proposed them, including citations of nodes that are not
        on the pack: the Evidence Exchange Protocol downstream rejects those, with a reason.

        Raises:
            InputError: ``inp.side`` is not worker or employer.
            TransientRoleError, PermanentRoleError: see the module docstring.
        """
        roles = {Side.WORKER: Role.WORKER_COUNSEL, Side.EMPLOYER: Role.EMPLOYER_COUNSEL}
        if inp.side not in roles:
            raise InputError(f"a counsel argues for the worker or the employer, not {inp.side!r}")
        return self._call(roles[inp.side], inp, CounselOutput)

    def interpret(self, inp: InterpreterInput) -> tuple[InterpreterOutput, CallUsage]:
        """Legal Interpreter: the governing rule, cited, without declaring a winner.

        Raises:
            TransientRoleError, PermanentRoleError: see the module docstring.
        """
        return self._call(Role.LEGAL_INTERPRETER, inp, InterpreterOutput)

    def audit_batch(self, inp: AuditBatchInput) -> tuple[AuditBatchOutput, CallUsage]:
        """Trust Auditor on all claims of a round in one call (paper §3.5): one verdict per claim.

        The reply is validated against the schema here; the board checks that its claim ids are
        exactly the input's (:func:`~labourcrew.ledger.roles.batch_problems`) and falls back to
        :meth:`audit` per claim when they are not.

        Raises:
            TransientRoleError, PermanentRoleError: see the module docstring.
        """
        return self._call(Role.TRUST_AUDITOR, inp, AuditBatchOutput)

    def audit(self, inp: AuditInput) -> tuple[AuditOutput, CallUsage]:
        """Trust Auditor on one claim (the per-claim fallback): the same prompt with one claim.

        A reply may be the batch object with the claim's one verdict or the bare verdict object.

        Raises:
            TransientRoleError, PermanentRoleError: see the module docstring; a reply whose one
                verdict names another claim id is a schema violation.
        """
        batch = AuditBatchInput(question=inp.question, claims=[inp.claim], cited_texts=inp.cited_texts)
        reply, usage = self._call(Role.TRUST_AUDITOR, batch, AuditBatchReply)
        ids = [v.claim_id for v in reply.verdicts]
        if len(ids) != 1 or ids[0] not in ("", inp.claim.claim_id):
            what = f"expected one verdict for claim {inp.claim.claim_id!r}, got claim ids {ids}"
            raise attach_usage(self._schema_failure(Role.TRUST_AUDITOR, self.name, what), usage)
        return reply.verdicts[0].output(), usage

    # -- one call ------------------------------------------------------------------------------

    def _chat_model(self, role: Role) -> Any:
        with self._models_lock:
            model = self._models.get(role)
            if model is None:
                model = self._models[role] = self._factory(role)
            return model

    def _request(self, system: str, out: type[BaseModel]) -> tuple[str, dict[str, Any]]:
        schema = _schema(out)
        system = (
            f"{system}\n\nThe reply must be one JSON object valid against this JSON Schema:\n"
            f"{json.dumps(schema, ensure_ascii=False)}"
        )
        if self.method == "json_schema":
            name = _SCHEMA_NAMES.get(out, out.__name__)
            fmt = {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}
            return system, {"response_format": fmt}
        if self.method == "json_object":
            return system, {"response_format": {"type": "json_object"}}
        return system, {}

    def _call(self, role: Role, inp: BaseModel, out: type[BaseModel]) -> tuple[Any, CallUsage]:
        from langchain_core.messages import HumanMessage, SystemMessage

        prompt = load_prompt(role, self.prompts_dir).render(inp)
        system, kwargs = self._request(prompt.system, out)
        messages = [SystemMessage(content=system), HumanMessage(content=prompt.user)]
        prompt_key = hashlib.sha256(f"{role}\x00{system}\x00{prompt.user}".encode()).hexdigest()
        model_name = self.model_for(role)
        backend = f"openai:{model_name}"
        chat = self._chat_model(role)

        started = self._clock()
        tokens_in = tokens_out = 0
        try:
            unsafe: Exception | None = None
            try:
                message = chat.invoke(messages, **kwargs)
            except Exception as exc:
                tokens_in, tokens_out = _tokens_of_error(exc)
                err = self._map_exception(role, backend, exc)
                if err is exc:  # not a model failure: a bug, let it surface unchanged
                    raise
                if self._safe_to_chain(exc):
                    raise err from exc
                unsafe = err
            if unsafe is not None:
                # The original's text shows the key: raised outside the handler, so neither
                # __cause__ nor __context__ keeps it reachable.
                raise unsafe
            usage = getattr(message, "usage_metadata", None) or {}
            tokens_in = int(usage.get("input_tokens") or 0)
            tokens_out = int(usage.get("output_tokens") or 0)
            parsed = self._parse(role, backend, message, out, prompt_key)
        except Exception as err:
            # The request was sent (and maybe answered, with tokens): it counts, failed or not.
            kind = getattr(err, "kind", "error") if isinstance(err, RoleError) else "unexpected"
            attach_usage(err, self._record(role, model_name, started, kind, tokens_in, tokens_out))
            raise
        except BaseException:  # KeyboardInterrupt and the like: logged, never counted as usage
            self._record(role, model_name, started, "unexpected", tokens_in, tokens_out)
            raise
        return parsed, self._record(role, model_name, started, None, tokens_in, tokens_out)

    def _record(
        self, role: Role, model: str, started: float, error: str | None, tokens_in: int, tokens_out: int
    ) -> CallUsage:
        """Log one chat request in :attr:`calls` and return its :class:`CallUsage` (the one place
        a request's accounting is made: the log and the run record agree by construction).
        """
        cost = estimate_cost(model, tokens_in, tokens_out, self.prices)
        self.calls.add(
            LLMCallRecord(
                role=str(role), model=model, started_s=started, ended_s=max(started, self._clock()),
                ok=error is None, error_kind=error, tokens_in=tokens_in, tokens_out=tokens_out,
                cost_usd=cost,
            )
        )
        return CallUsage(
            backend=f"openai:{model}", tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost, llm_calls=1
        )

    def _parse(self, role: Role, backend: str, message: Any, out: type[BaseModel], key: str) -> Any:
        refusal = _refusal(message)
        if refusal:
            raise _error(
                PermanentRoleError, "refusal", role, f"{role} ({backend}): the model refused: {self._clean(refusal)[:200]}",
                help_message="The model declined this request; the role is recorded as failed.",
            )
        text = _content_text(getattr(message, "content", "")).strip()
        finish = (getattr(message, "response_metadata", None) or {}).get("finish_reason")
        if not text:
            raise _error(TransientRoleError, "empty_output", role, f"{role} ({backend}): empty reply")
        if "{" not in text and _REFUSAL_TEXT.match(text):
            raise _error(
                PermanentRoleError, "refusal", role, f"{role} ({backend}): the model refused: {self._clean(text)[:200]}",
                help_message="The model declined this request; the role is recorded as failed.",
            )
        fenced = _FENCED.match(text)
        if fenced:  # some servers wrap JSON in a Markdown fence despite the instructions
            text = fenced.group(1).strip()
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            what = "truncated reply (finish_reason=length)" if finish == "length" else f"malformed JSON ({exc.msg} at {exc.pos})"
            raise self._schema_failure(role, backend, what, key, kind="malformed_json") from None
        try:
            parsed = out.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(root)"
            what = f"reply violates the {out.__name__} schema ({exc.error_count()} error(s); first at {where}: {first['msg']})"
            raise self._schema_failure(role, backend, what, key) from None
        with self._failures_lock:
            self._failures.pop(key, None)
        return parsed

    def _schema_failure(
        self, role: Role, backend: str, what: str, key: str | None = None, kind: str = "schema_violation"
    ) -> RoleError:
        count = 1
        if key is not None:
            with self._failures_lock:
                count = self._failures.pop(key, 0) + 1
                self._failures[key] = count
                while len(self._failures) > 512:  # bounded: the oldest prompts are forgotten
                    self._failures.popitem(last=False)
        message = f"{role} ({backend}): {what}"
        if count >= self.schema_failure_limit:
            return _error(
                PermanentRoleError, kind, role, f"{message}; {count} failures for the same prompt",
                help_message="The model keeps answering this prompt outside the schema; try another model.",
            )
        return _error(TransientRoleError, kind, role, message)

    def _clean(self, text: str) -> str:
        return redact(text, self.llm.api_key)

    def _map_exception(self, role: Role, backend: str, exc: Exception) -> Exception:
        """Map a chat-client exception to a role error (unknown exceptions are returned as is)."""
        import openai
        from langchain_core.exceptions import (
            ContextOverflowError,
            ModelError,
            ModelRefusalError,
        )

        kind, cls = self._classify(exc, openai, ModelError, ModelRefusalError, ContextOverflowError)
        if cls is None:
            return exc
        detail = self._clean(str(exc))[:300]
        return _error(cls, kind, role, f"{role} ({backend}): {kind}: {type(exc).__name__}: {detail}")

    def _safe_to_chain(self, exc: BaseException) -> bool:
        """True when no exception of the chain shows the API key in its text or repr."""
        secrets = [s for s in (self.llm.api_key.get_secret_value() if self.llm.api_key else "",) if s]
        seen: set[int] = set()
        node: BaseException | None = exc
        while node is not None and id(node) not in seen:
            seen.add(id(node))
            shown = f"{node}\n{node!r}"
            if any(secret in shown for secret in secrets) or redact(shown) != shown:
                return False
            node = node.__cause__ or node.__context__
        return True

    @staticmethod
    def _classify(
        exc: Exception, openai: Any, model_error: type, refusal: type, overflow: type
    ) -> tuple[str, type[RoleError] | None]:
        if isinstance(exc, refusal | openai.ContentFilterFinishReasonError):
            return "refusal", PermanentRoleError
        if isinstance(exc, openai.LengthFinishReasonError):
            return "truncated", TransientRoleError
        if isinstance(exc, overflow):
            return "context_overflow", PermanentRoleError
        if isinstance(exc, openai.APITimeoutError | TimeoutError):
            return "timeout", TransientRoleError
        if isinstance(exc, openai.APIConnectionError | ConnectionError):
            return "connection", TransientRoleError
        if isinstance(exc, openai.RateLimitError):
            return "rate_limit", TransientRoleError
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            if status in (408, 409, 425, 429) or status >= 500:
                return f"http_{status}", TransientRoleError
            return f"http_{status}", PermanentRoleError
        if isinstance(exc, openai.APIResponseValidationError):
            return "malformed_response", TransientRoleError
        if isinstance(exc, model_error):
            return type(exc).__name__, TransientRoleError if exc.is_retryable else PermanentRoleError
        if isinstance(exc, openai.OpenAIError):
            return "openai_error", TransientRoleError
        # A 200 reply whose body is not JSON or not UTF-8 (a proxy or server bug): the client raises
        # the decoder's error; a retry may get a clean body.
        if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
            return "malformed_response", TransientRoleError
        return "unexpected", None
