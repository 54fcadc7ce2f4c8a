"""Fixtures of the model-backend tests: a real Evidence Pack, scripted chat models, a stub server.

* ``pack`` -- units of sections 46-47 (maternity benefit) of the 2025 text, verbatim from the
  StatuteGraph, as an Evidence Pack.
* :class:`ScriptedChatModel` -- LangChain's ``GenericFakeChatModel`` that also records what it was
  sent (messages and call kwargs such as ``response_format``).
* :class:`StubOpenAI` -- a scripted OpenAI-compatible server (stdlib ``http.server`` in a thread,
  127.0.0.1, ephemeral port) implementing ``POST /v1/chat/completions``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field, SecretStr

from labourcrew.ledger.records import EvidenceItem, EvidencePack
from labourcrew.settings import LLMSettings

FAKE_KEY = "sk-test-LEAKCANARY-0123456789abcdef"
PACK_NODES = ("2025:46(1)", "2025:46(1).proviso1", "2025:46(2)", "2025:47(1)", "2025:47(2)")


@pytest.fixture(scope="session")
def pack(graph) -> EvidencePack:
    """Five real units of the maternity-benefit sections (2025 text)."""
    items = []
    for rank, node_id in enumerate(PACK_NODES):
        unit = graph.units[node_id]
        items.append(
            EvidenceItem(
                node_id=node_id, section=unit.section, level=unit.level, text=unit.text,
                channels=["dense", "lexical"], score=1.0 - rank / 10, provenance=1.0,
            )
        )
    return EvidencePack(items=items)


def llm_settings(**kw: Any) -> LLMSettings:
    """LLM settings with a fake key and model (per-role overrides via ``role_models``)."""
    base = {"model": "gpt-4o-mini", "api_key": SecretStr(FAKE_KEY)}
    return LLMSettings(**{**base, **kw})


class ScriptedChatModel(GenericFakeChatModel):
    """``GenericFakeChatModel`` that records the messages and kwargs of every call."""

    seen: list[tuple[list[BaseMessage], dict[str, Any]]] = Field(default_factory=list)
    delay_s: float = 0.0
    barrier: Any = None  # a threading.Barrier the call waits on (concurrency tests)

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.seen.append((list(messages), dict(kwargs)))
        if self.barrier is not None:
            self.barrier.wait(timeout=10)
        if self.delay_s:
            time.sleep(self.delay_s)
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def reply(payload: Any, tokens_in: int = 1200, tokens_out: int = 150, **extra: Any) -> AIMessage:
    """An AIMessage whose content is ``payload`` (JSON-dumped unless already a string)."""
    content = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return AIMessage(
        content=content,
        usage_metadata={"input_tokens": tokens_in, "output_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
        **extra,
    )


def scripted(*messages: AIMessage | str | Exception) -> ScriptedChatModel:
    """A scripted chat model; an Exception in the script is raised at that call."""

    def gen() -> Iterator[AIMessage | str]:
        for m in messages:
            if isinstance(m, Exception):
                raise m
            yield m

    return ScriptedChatModel(messages=gen())


# ---------------------------------------------------------------- the stub OpenAI server

Responder = Callable[[dict[str, Any]], "StubReply"]


class StubReply:
    """One scripted HTTP answer: status, JSON body and a delay before answering."""

    def __init__(self, body: dict[str, Any], status: int = 200, delay_s: float = 0.0):
        self.body, self.status, self.delay_s = body, status, delay_s


def completion(content: str | None, *, model: str = "stub", tokens_in: int = 900, tokens_out: int = 120,
               finish_reason: str = "stop", refusal: str | None = None) -> dict[str, Any]:
    """A ``chat.completion`` body with usage."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
    }


class StubOpenAI:
    """A scripted OpenAI-compatible chat server on 127.0.0.1 (ephemeral port).

    ``responder(request_json) -> StubReply`` decides each answer; every request is kept in
    ``requests`` as ``(path, headers, json)``. Delays wait on an event that :meth:`close` sets, so
    shutdown never waits for a sleeping handler.
    """

    def __init__(self, responder: Responder):
        self.responder = responder
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append((self.path, dict(self.headers), body))
                if self.path.rstrip("/") != "/v1/chat/completions":
                    answer = StubReply({"error": {"message": f"no route {self.path}"}}, status=404)
                else:
                    answer = stub.responder(body)
                if answer.delay_s:
                    stub._closing.wait(answer.delay_s)
                data = json.dumps(answer.body, ensure_ascii=False).encode("utf-8")
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def close(self) -> None:
        self._closing.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub_server() -> Iterator[Callable[[Responder], StubOpenAI]]:
    """Factory fixture: ``stub_server(responder)`` starts a server, closed after the test."""
    servers: list[StubOpenAI] = []

    def start(responder: Responder) -> StubOpenAI:
        server = StubOpenAI(responder)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture(scope="session")
def kit() -> Any:
    """The helpers above as one namespace (test modules cannot import conftest in importlib mode)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        FAKE_KEY=FAKE_KEY, PACK_NODES=PACK_NODES, llm_settings=llm_settings, reply=reply,
        scripted=scripted, ScriptedChatModel=ScriptedChatModel, completion=completion, StubReply=StubReply,
    )
