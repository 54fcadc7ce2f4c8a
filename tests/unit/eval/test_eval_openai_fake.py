"""The eval harness built with the OpenAI backend on a scripted fake chat model (no network).

The fake answers every role with schema-valid JSON computed from what it was sent: the Issue
Spotter a neutral analysis, each counsel one claim quoting the first unit of the Evidence Pack
verbatim plus one citing a node that is not on the pack, the interpreter no rule, the Trust Auditor
one verdict per claim id of its batch. The harness must write its report, record role calls and
tokens, and release nothing that is off the pack.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from labourcrew.eval.ablations import get_config
from labourcrew.eval.runner import EvalOptions, EvalResources, results_payload, run_configs, write_results
from labourcrew.ledger.roles import Role
from labourcrew.settings import load_settings

OFF_PACK = "2025:999"
_BLOCK = re.compile(r"^\[(\d{4}:[^\]]+)\] \(.*\)\n(.+)$", re.MULTILINE)


def _reply(role: Role, user: str) -> dict[str, Any]:
    if role == Role.ISSUE_SPOTTER:
        return {"question_type": "direct_factual", "language": "bn", "text_register": "formal", "section_labels": [],
                "concepts": [], "sub_questions": [], "cues": []}
    if role in (Role.WORKER_COUNSEL, Role.EMPLOYER_COUNSEL):
        node, text = _BLOCK.search(user).groups()
        span = text.strip()[:40].strip()
        return {"claims": [
            {"text": f"আইন অনুযায়ী: «{span}»", "citations": [{"node_id": node, "span": span}], "confidence": 0.9},
            {"text": "মালিক যা খুশি করতে পারেন।", "citations": [{"node_id": OFF_PACK, "span": "যা খুশি"}], "confidence": 0.9},
        ]}
    if role == Role.LEGAL_INTERPRETER:
        return {"governing_rule": None, "notes": "কোনো নিয়ম বেছে নেওয়া হয়নি।"}
    ids = re.findall(r'"claim_id": "([^"]+)"', user.split("<claims>")[1].split("</claims>")[0])
    return {"verdicts": [{"claim_id": cid, "verdict": "SUPPORT" if k % 2 == 0 else "NEI", "category": "factual",
                          "direction": None if k % 2 == 0 else "missing_condition", "checks": {}, "notes": "",
                          "retrieval_request": None} for k, cid in enumerate(ids)]}


class FakeRoleChat(BaseChatModel):
    """A chat model answering one board role with schema-valid JSON (see the module docstring)."""

    role: Role
    calls: list[str] = []

    @property
    def _llm_type(self) -> str:
        return "fake-role-chat"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        user = str(messages[-1].content)
        self.calls.append(self.role.value)
        content = json.dumps(_reply(self.role, user), ensure_ascii=False)
        msg = AIMessage(content=content, usage_metadata={"input_tokens": 700, "output_tokens": 90, "total_tokens": 790})
        return ChatResult(generations=[ChatGeneration(message=msg)])


def test_eval_full_config_on_the_openai_backend_with_a_fake_chat_model(
    monkeypatch, graph, lexical_port, dev_items, tmp_path
) -> None:
    monkeypatch.setenv("LABOURCREW_LLM__MODEL", "fake-model")
    made: list[FakeRoleChat] = []

    def factory(role: Role) -> FakeRoleChat:
        made.append(FakeRoleChat(role=role, calls=[]))
        return made[-1]

    res = EvalResources(load_settings("offline"), graph=graph, port=lexical_port, chat_model_factory=factory)
    opts = EvalOptions(backend="openai", gate_mode="categorical", runs_dir=tmp_path / "runs", workers=1,
                       resume=False, labels_path=tmp_path / "none.sqlite")
    items = [it for it in dev_items if it.id in ("devA-021", "devA-041")]
    (cr,) = run_configs([get_config("full")], items, opts=opts, res=res)
    path = write_results(results_payload([cr], dataset="dev", split="test"), tmp_path / "full.json")

    assert path.is_file() and json.loads(path.read_text(encoding="utf-8"))
    assert cr.settings.board.backend == "openai" and len(cr.records) == 2
    for record in cr.records:
        assert record.status in ("TGLO", "DEGRADED", "UNDECIDED")
        assert record.backend.startswith("openai:fake-model")
        assert record.prompt_hashes and set(record.prompt_hashes) >= {"trust_auditor", "worker_counsel"}
        calls = {c.status.role: c for c in record.role_calls}
        assert all(calls[r].llm_calls >= 1 and calls[r].status.tokens_in > 0 for r in ("issue_spotter", "worker_counsel", "trust_auditor"))
        audits = [c for c in record.role_calls if c.status.role == "trust_auditor"]
        assert len(audits) == len({c.retrieval_round for c in audits})  # one batched audit call per round
        on_pack = record.evidence_pack.node_ids()
        assert any(r.code for r in record.rejected_by_eep)  # the off-pack citation was refused
        for claim in record.claims:
            if claim.accepted:
                assert all(e.node_id in on_pack and e.node_id != OFF_PACK for e in claim.evidence)
    assert {m.role for m in made} >= {Role.ISSUE_SPOTTER, Role.TRUST_AUDITOR}
