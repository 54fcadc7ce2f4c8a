"""The openai backend wires into the board: prompt hashes are one property on every RoleBackend."""

from __future__ import annotations

from labourcrew.board.faults import FaultInjectingBackend
from labourcrew.deliberation.extractive import OfflineBackend
from labourcrew.llm.fakes import ScriptedBackend
from labourcrew.llm.openai_backend import OpenAIBackend
from labourcrew.retrieval.pipeline import Retriever
from labourcrew.settings import load_settings
from labourcrew.wiring import make_deps


def test_make_deps_with_openai_backend_records_prompt_hashes(graph):
    settings = load_settings("openai", llm={"model": "stub-model", "base_url": "http://127.0.0.1:9/v1"})
    backend = OpenAIBackend(settings.llm, chat_model_factory=lambda role: None)  # never called here
    deps = make_deps(settings, graph=graph, retrieval=Retriever.lexical_only(settings, graph), backend=backend)
    assert deps.prompt_hashes and all(len(h) == 64 for h in deps.prompt_hashes.values())
    wrapped = FaultInjectingBackend(backend, rate=0.5, seed=1)
    assert wrapped.prompt_hashes == deps.prompt_hashes
    assert deps.retry_jitter and deps.retry_interval_s > 0.1  # online back-off


def test_prompt_hashes_is_a_property_of_every_backend(graph):
    settings = load_settings("offline")
    for backend in (OfflineBackend(graph, settings.offline), ScriptedBackend(),
                    OpenAIBackend(load_settings("openai", llm={"model": "m"}).llm, chat_model_factory=lambda r: None)):
        hashes = backend.prompt_hashes
        assert isinstance(hashes, dict), type(backend).__name__
