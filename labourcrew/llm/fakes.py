"""Scripted fake backends for tests (no model, no network).

:class:`ScriptedBackend` implements :class:`~labourcrew.ledger.roles.RoleBackend` by replaying a
script per role *channel* -- ``spot_issues``, ``counsel:worker``, ``counsel:employer``,
``interpret``, ``audit``, ``audit_batch`` -- one step per call. A batched audit with no
``audit_batch`` step left is answered claim by claim from the ``audit`` script (and its fallback),
so a per-claim script drives the batched auditor too. A step is

* an output record (returned as is, with a :class:`CallUsage`),
* a callable ``step(inp) -> output`` (computed from the call's input),
* an exception instance (raised: a :class:`~labourcrew.errors.TransientRoleError` is retried by the
  board, a :class:`~labourcrew.errors.PermanentRoleError` is not),
* :data:`MALFORMED` or :class:`Malformed` (returns raw text that is not the role's output model),
* :data:`REFUSAL` (raises ``PermanentRoleError``: the model refused).

When a channel's script is used up the call goes to ``fallback`` (e.g. the offline backend), or
raises ``AssertionError`` if there is none. ``delays`` (channel -> seconds) make calls sleep, to
test that parallel roles overlap. Every call is logged in :attr:`ScriptedBackend.calls` with its
start/end times and thread.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from labourcrew.errors import PermanentRoleError
from labourcrew.ledger.roles import (
    AuditBatchInput,
    AuditBatchOutput,
    AuditInput,
    AuditOutput,
    AuditVerdict,
    BackendWrapper,
    CallUsage,
    CounselInput,
    CounselOutput,
    InterpreterInput,
    InterpreterOutput,
    RoleBackend,
    attach_usage,
    usage_of,
)

__all__ = ["Malformed", "MALFORMED", "REFUSAL", "CallRecord", "ScriptedBackend", "OneCallPerRole", "channel_of"]


@dataclass(frozen=True)
class Malformed:
    """A step that returns raw model text instead of the role's output record."""

    raw: str = '{"claims": [{"text": "মালিক'


MALFORMED = Malformed()
REFUSAL = object()
"""A step that refuses (raises PermanentRoleError)."""


@dataclass(frozen=True)
class CallRecord:
    """One call of a scripted backend."""

    channel: str
    start: float
    end: float
    thread: str
    outcome: str  # "ok", "raised:<Type>", "malformed", "fallback"


def channel_of(method: str, inp: Any) -> str:
    """The script channel of a call: ``counsel:worker`` for a worker counsel call, else the method."""
    if method == "counsel" and isinstance(inp, CounselInput):
        return f"counsel:{inp.side.value}"
    return method


class ScriptedBackend:
    """A :class:`RoleBackend` replaying scripted steps (module docstring).

    Args:
        scripts: channel -> steps, consumed one per call.
        fallback: backend answering once a channel's script is used up.
        delays: channel -> seconds to sleep before answering.
        name: backend name recorded by the board.
        llm_calls: channel -> chat-model calls to report per answered call (for call counting).
    """

    def __init__(
        self,
        scripts: Mapping[str, Iterable[Any]] | None = None,
        *,
        fallback: RoleBackend | None = None,
        delays: Mapping[str, float] | None = None,
        name: str = "scripted-fake",
        llm_calls: Mapping[str, int] | None = None,
    ) -> None:
        self.name = name
        self.fallback = fallback
        self.delays = dict(delays or {})
        self.llm_calls = dict(llm_calls or {})
        self._scripts: dict[str, deque[Any]] = defaultdict(deque)
        for channel, steps in (scripts or {}).items():
            self._scripts[channel].extend(steps)
        self.calls: list[CallRecord] = []
        self._lock = threading.Lock()

    @property
    def prompt_hashes(self) -> dict[str, str]:
        """A scripted backend has no prompts."""
        return {}

    def _usage(self, channel: str) -> CallUsage:
        return CallUsage(backend=self.name, llm_calls=self.llm_calls.get(channel.split(":")[0], self.llm_calls.get(channel, 0)))

    def remaining(self, channel: str) -> int:
        """Steps left in a channel's script."""
        with self._lock:
            return len(self._scripts[channel])

    def _call(self, method: str, inp: Any, fallback_call: Callable[[], tuple[Any, CallUsage]]) -> tuple[Any, CallUsage]:
        channel = channel_of(method, inp)
        start = time.time()
        delay = self.delays.get(channel, self.delays.get(method, 0.0))
        if delay:
            time.sleep(delay)
        with self._lock:
            step = self._scripts[channel].popleft() if self._scripts[channel] else _EMPTY
        outcome = "ok"
        try:
            if step is _EMPTY:
                if self.fallback is None:
                    raise AssertionError(f"no scripted step left for {channel} and no fallback")
                outcome = "fallback"
                return fallback_call()
            if step is REFUSAL:
                outcome = "raised:PermanentRoleError"
                raise PermanentRoleError(f"the model refused to answer the {channel} call")
            if isinstance(step, BaseException):
                outcome = f"raised:{type(step).__name__}"
                raise step
            if isinstance(step, Malformed):
                outcome = "malformed"
                return step.raw, self._usage(channel)
            if callable(step) and not isinstance(step, BaseModel):
                return step(inp), self._usage(channel)
            return step, self._usage(channel)
        finally:
            with self._lock:
                self.calls.append(CallRecord(channel, start, time.time(), threading.current_thread().name, outcome))

    def spot_issues(self, question: str) -> tuple[BaseModel, CallUsage]:
        return self._call("spot_issues", question, lambda: self.fallback.spot_issues(question))  # type: ignore[union-attr]

    def counsel(self, inp: CounselInput) -> tuple[CounselOutput, CallUsage]:
        return self._call("counsel", inp, lambda: self.fallback.counsel(inp))  # type: ignore[union-attr]

    def interpret(self, inp: InterpreterInput) -> tuple[InterpreterOutput, CallUsage]:
        return self._call("interpret", inp, lambda: self.fallback.interpret(inp))  # type: ignore[union-attr]

    def audit(self, inp: AuditInput) -> tuple[AuditOutput, CallUsage]:
        return self._call("audit", inp, lambda: self.fallback.audit(inp))  # type: ignore[union-attr]

    def audit_batch(self, inp: AuditBatchInput) -> tuple[AuditBatchOutput, CallUsage]:
        if self.remaining("audit_batch"):
            return self._call("audit_batch", inp, lambda: self.fallback.audit_batch(inp))  # type: ignore[union-attr]
        verdicts = []
        for claim in inp.claims:
            out, _ = self.audit(inp.single(claim))
            if not isinstance(out, AuditOutput):  # a malformed per-claim step makes the batch malformed
                return out, self._usage("audit_batch")
            verdicts.append(AuditVerdict(claim_id=claim.claim_id, **out.model_dump()))
        return AuditBatchOutput(verdicts=verdicts), self._usage("audit_batch")

    def records(self, channel: str) -> list[CallRecord]:
        """Calls made on one channel, in completion order."""
        with self._lock:
            return [c for c in self.calls if c.channel == channel]


_EMPTY = object()


class OneCallPerRole(BackendWrapper):
    """Wraps a backend and reports one chat-model call per role call.

    Stands in for an LLM backend whose every role method makes exactly one chat call (structured
    output), so the board's call structure -- total and sequential calls per round -- can be
    measured offline before a model is available. Counted as the ``openai`` backend counts: a
    call that raises is still one call, attached to the error
    (:func:`~labourcrew.ledger.roles.attach_usage`), so retries and failed roles add to the total.
    """

    def __init__(self, inner: RoleBackend, name: str = "one-call-per-role") -> None:
        super().__init__(inner, name)

    def _one(self, usage: CallUsage | None) -> CallUsage:
        base = usage or CallUsage(backend=self.name)
        return base.model_copy(update={"backend": self.name, "llm_calls": 1})

    def _call(self, method: str, inp: Any) -> tuple[Any, CallUsage]:
        try:
            out, usage = super()._call(method, inp)
        except Exception as exc:
            attach_usage(exc, self._one(usage_of(exc)))
            raise
        return out, self._one(usage if isinstance(usage, CallUsage) else None)
