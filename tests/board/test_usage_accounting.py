"""Every chat request is in the run record: failed and retried attempts count (calls and tokens).

The ``openai`` backend runs on scripted fake chat models (no server): a reply cut short
(``finish_reason=length``) is answered -- its tokens were spent -- yet the role fails after its
retries. The fake delivers a cut reply both ways a real client does: as a message marked
``finish_reason=length``, or (what ``ChatOpenAI`` does under a ``response_format``) by raising
``openai.LengthFinishReasonError`` that carries the completion and its usage. The run's
``llm_calls`` and ``tokens_in/out`` (per role status and per round) must add up to what the fake
models were asked, exactly. Before the fix the failed attempts were missing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import openai
import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from openai.types.chat import ChatCompletion, ChatCompletionMessage
from openai.types.chat.chat_completion import Choice
from openai.types.completion_usage import CompletionUsage
from pydantic import SecretStr

from labourcrew.board.run import ask
from labourcrew.errors import TransientRoleError
from labourcrew.ledger.roles import LANGUAGE_ROLES, CallUsage, Role, attach_usage
from labourcrew.llm.fakes import OneCallPerRole, ScriptedBackend
from labourcrew.llm.openai_backend import OpenAIBackend
from labourcrew.settings import LLMSettings

Q = "নৈমিত্তিক ছুটি বছরে কত দিন পাওয়া যায়?"
TOKENS_IN, TOKENS_OUT = 1000, 2
SPOTTING = {"question_type": "direct_factual", "language": "bn", "text_register": "formal", "section_labels": [],
            "concepts": [], "sub_questions": [], "cues": []}

Reply = Callable[[Role, int], str]


def _length_error(text: str) -> openai.LengthFinishReasonError:
    completion = ChatCompletion(
        id="chatcmpl-fake", object="chat.completion", created=0, model="fake-model",
        choices=[Choice(index=0, finish_reason="length", message=ChatCompletionMessage(role="assistant", content=text))],
        usage=CompletionUsage(prompt_tokens=TOKENS_IN, completion_tokens=TOKENS_OUT, total_tokens=TOKENS_IN + TOKENS_OUT),
    )
    return openai.LengthFinishReasonError(completion=completion)


class CountingChat(BaseChatModel):
    """A fake chat model for one role: ``reply(role, n)`` gives the n-th reply's text (0-based);
    a reply that is not complete JSON is cut at the token limit (``cut``: "message" marks it
    ``finish_reason=length``, "raise" raises the client's ``LengthFinishReasonError``). Counts its
    requests."""

    role: Role
    reply: Any
    log: Any  # a shared list of (role, tokens_in, tokens_out), one per request
    lock: Any
    cut: str = "message"

    @property
    def _llm_type(self) -> str:
        return "counting-chat"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        with self.lock:
            n = sum(1 for r, _, _ in self.log if r == self.role)
            self.log.append((self.role, TOKENS_IN, TOKENS_OUT))
        text = self.reply(self.role, n)
        try:
            json.loads(text)
            finish = "stop"
        except ValueError:
            finish = "length"
            if self.cut == "raise":
                raise _length_error(text) from None
        msg = AIMessage(content=text, response_metadata={"finish_reason": finish},
                        usage_metadata={"input_tokens": TOKENS_IN, "output_tokens": TOKENS_OUT,
                                        "total_tokens": TOKENS_IN + TOKENS_OUT})
        return ChatResult(generations=[ChatGeneration(message=msg)])


def openai_on(reply: Reply, cut: str = "message") -> tuple[OpenAIBackend, list[tuple[Role, int, int]]]:
    log: list[tuple[Role, int, int]] = []
    lock = threading.Lock()
    backend = OpenAIBackend(
        LLMSettings(model="fake-model", api_key=SecretStr("sk-unused-0000")),
        chat_model_factory=lambda role: CountingChat(role=role, reply=reply, log=log, lock=lock, cut=cut),
    )
    return backend, log


def totals(result) -> tuple[int, int, int]:
    statuses = result.role_status.values()
    return (sum(s["llm_calls"] for s in statuses), sum(s["tokens_in"] for s in statuses),
            sum(s["tokens_out"] for s in statuses))


@pytest.mark.parametrize("cut", ["message", "raise"])
def test_truncated_replies_are_counted_for_failed_roles(make_board, cut: str) -> None:
    backend, log = openai_on(lambda role, n: '{"claims": [', cut)  # every reply cut at the token limit
    r = ask(Q, board=make_board(backend), save=False)
    failed = {k: s for k, s in r.role_status.items() if s["status"] == "failed"}
    assert failed and set(failed) <= {str(x) for x in LANGUAGE_ROLES}, r.role_status
    assert log, "no chat request was made"
    assert totals(r) == (len(log), TOKENS_IN * len(log), TOKENS_OUT * len(log))
    assert sum(u.llm_calls for u in r.usage) == len(log)  # the per-round usage agrees
    for role, s in failed.items():
        asked = sum(1 for x, _, _ in log if x == role)
        assert s["llm_calls"] == s["attempts"] == asked >= 1, (role, s)
        assert s["tokens_in"] == TOKENS_IN * asked and s["backend"] == "openai:fake-model", (role, s)
    assert backend.calls.count().calls == len(log)  # the backend's own log agrees with the run record


@pytest.mark.parametrize("cut", ["message", "raise"])
def test_a_retried_role_counts_every_attempt(make_board, cut: str) -> None:
    def reply(role: Role, n: int) -> str:
        if role == Role.ISSUE_SPOTTER and n >= 1:
            return json.dumps(SPOTTING)  # the retry succeeds
        return '{"question_type": "dir'

    backend, log = openai_on(reply, cut)
    r = ask(Q, board=make_board(backend), save=False)
    spotter = r.role_status["issue_spotter"]
    assert spotter["status"] == "retried" and spotter["attempts"] == 2, spotter
    assert (spotter["llm_calls"], spotter["tokens_in"], spotter["tokens_out"]) == (2, 2 * TOKENS_IN, 2 * TOKENS_OUT)
    assert totals(r) == (len(log), TOKENS_IN * len(log), TOKENS_OUT * len(log))


def _failing(kind: str | None, usage: CallUsage | None) -> TransientRoleError:
    err = TransientRoleError("counsel: malformed reply")
    if kind:
        err.kind = kind  # type: ignore[attr-defined]
    return attach_usage(err, usage) if usage else err


def test_one_call_per_role_counts_failed_calls_too(make_board, offline) -> None:
    # The worker counsel fails on every attempt (no usage of its own): each attempt is one call.
    fake = ScriptedBackend({"counsel:worker": [_failing(None, None) for _ in range(20)]}, fallback=offline)
    r = ask(Q, board=make_board(OneCallPerRole(fake)), save=False)
    worker = r.role_status["worker_counsel"]
    assert worker["status"] == "failed" and worker["attempts"] == 3, worker  # role_retries = 2
    assert worker["llm_calls"] == worker["attempts"], worker
    assert sum(u.llm_calls for u in r.usage) == sum(s["llm_calls"] for s in r.role_status.values())


def test_a_malformed_batch_audit_keeps_its_tokens(make_board, offline) -> None:
    spent = CallUsage(backend="openai:fake-model", tokens_in=500, tokens_out=7, llm_calls=1)
    fake = ScriptedBackend({"audit_batch": [_failing("malformed_json", spent) for _ in range(5)]}, fallback=offline)
    r = ask(Q, board=make_board(fake), save=False)
    first = next(c for c in r.role_calls if c.status.role == "trust_auditor")
    assert first.fallback and "batch reply malformed" in first.fallback
    assert first.llm_calls >= 1 and first.status.tokens_in >= 500 and first.status.tokens_out >= 7, first
