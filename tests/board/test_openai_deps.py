"""The openai backend wires into the board (regression: prompt_hashes is a method on OpenAIBackend)."""

from __future__ import annotations

from labourcrew.board.deps import LexicalRetrieval, backend_prompt_hashes, default_deps
from labourcrew.llm.faults import FaultInjectingBackend
from labourcrew.llm.openai_backend import OpenAIBackend
from labourcrew.settings import load_settings


def test_default_deps_with_openai_backend_records_prompt_hashes(graph):
    settings = load_settings("openai", llm={"model": "stub-model", "base_url": "http://127.0.0.1:9/v1"})
    backend = OpenAIBackend(settings.llm, chat_model_factory=lambda role: None)  # never called here
    deps = default_deps(settings, graph=graph, retrieval=LexicalRetrieval(graph, settings), backend=backend)
    assert deps.prompt_hashes and all(len(h) == 64 for h in deps.prompt_hashes.values())
    wrapped = FaultInjectingBackend(backend, rate=0.5, seed=1)
    assert backend_prompt_hashes(wrapped) == deps.prompt_hashes
