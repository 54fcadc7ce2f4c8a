"""OpenAIBackend with scripted fake chat models: every role, failure mapping, token accounting."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from langchain_core.exceptions import (
    ModelAuthenticationError,
    ModelRateLimitError,
    ModelRefusalError,
    ModelTimeoutError,
)
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import SecretStr

from labourcrew.deliberation.eep import LedgerView, make_claim
from labourcrew.errors import (
    ConfigError,
    InputError,
    PermanentRoleError,
    TransientRoleError,
)
from labourcrew.ledger.records import (
    Claim,
    ClaimCategory,
    Direction,
    EvidenceRef,
    RejectedClaim,
    Side,
    Verdict,
)
from labourcrew.ledger.retrieval import IssueSpotting, QuestionType
from labourcrew.ledger.roles import (
    AuditInput,
    AuditOutput,
    CounselInput,
    CounselOutput,
    InterpreterInput,
    InterpreterOutput,
    Role,
    RoleBackend,
)
from labourcrew.llm.openai_backend import (
    LLMCallRecord,
    OpenAIBackend,
    count_llm_calls,
    estimate_cost,
)
from labourcrew.prompting import load_prompt
from labourcrew.retrieval.issue_spotter import CONCEPTS

QUESTION = "আমি একজন নারী শ্রমিক। ধারা ৪৬ অনুযায়ী প্রসূতি কল্যাণ সুবিধা কত দিনের জন্য পাব?"


def backend_with(kit, model, **kw) -> OpenAIBackend:
    settings = kw.pop("settings", None) or kit.llm_settings()
    return OpenAIBackend(settings, chat_model_factory=lambda role: model, **kw)


def span_of(pack, node_id: str, start: int = 4, length: int = 60) -> str:
    return pack.get(node_id).text[start : start + length]


def counsel_payload(pack, node_id: str = "2025:46(1)", text: str = "প্রসূতি কল্যাণ সুবিধা পাওয়ার অধিকার আছে।") -> dict:
    return {"claims": [{"text": text, "citations": [{"node_id": node_id, "span": span_of(pack, "2025:46(1)")}],
                        "confidence": 0.8, "challenge_to": None}]}


def audit_input(pack) -> AuditInput:
    item = pack.get("2025:46(1)")
    claim = Claim(claim_id="w1", side=Side.WORKER, text="প্রসূতি সুবিধা ৬০ দিন।",
                  evidence=[EvidenceRef(node_id=item.node_id, span=span_of(pack, item.node_id))], confidence=0.8)
    return AuditInput(question=QUESTION, claim=claim, cited_texts={item.node_id: item.text})


# ---------------------------------------------------------------- every role, happy path


def test_backend_satisfies_the_protocol(kit) -> None:
    backend = backend_with(kit, kit.scripted())
    assert isinstance(backend, RoleBackend)
    assert backend.name == "openai:gpt-4o-mini"
    assert set(backend.prompt_hashes) == {"issue_spotter", "worker_counsel", "employer_counsel",
                                            "legal_interpreter", "trust_auditor"}


def test_issue_spotter_returns_the_rule_based_record(kit) -> None:
    reply = {"question_type": "direct_factual", "language": "bn", "text_register": "colloquial",
             "section_labels": ["46", "999"], "concepts": ["maternity", "not_a_concept", "maternity"],
             "sub_questions": [], "cues": ["কত দিন"]}
    model = kit.scripted(kit.reply(reply, tokens_in=700, tokens_out=60))
    spotting, usage = backend_with(kit, model).spot_issues(f"  {QUESTION} ")
    assert isinstance(spotting, IssueSpotting)
    assert spotting.question == QUESTION
    assert spotting.question_type is QuestionType.DIRECT_FACTUAL
    assert spotting.section_labels == ["46"]  # 999 is not named in the question: dropped
    assert spotting.concepts == ["maternity"]
    maternity = next(c for c in CONCEPTS if c.key == "maternity")
    assert spotting.concept_terms == [maternity.act_terms]
    assert (usage.backend, usage.tokens_in, usage.tokens_out, usage.llm_calls) == ("openai:gpt-4o-mini", 700, 60, 1)
    # The prompt: instructions in the system message, the question only in the user message.
    messages, kwargs = model.seen[0]
    assert isinstance(messages[0], SystemMessage) and isinstance(messages[1], HumanMessage)
    assert QUESTION not in messages[0].content and QUESTION in messages[1].content
    fmt = kwargs["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "IssueSpotterReply"
    assert "maternity" in fmt["json_schema"]["schema"]["properties"]["concepts"]["items"]["enum"]


def test_issue_spotter_keeps_the_models_reading_of_a_named_section(kit) -> None:
    reply = {"question_type": "definitional", "language": "bn", "text_register": "formal",
             "section_labels": ["২(৬৫)"], "concepts": [], "sub_questions": [], "cues": []}
    spotting, _ = backend_with(kit, kit.scripted(kit.reply(reply))).spot_issues("ধারা ২ এর ৬৫ দফায় শ্রমিক কাকে বলে?")
    assert "2(65)" in spotting.section_labels


def test_issue_spotter_rejects_an_empty_question(kit) -> None:
    with pytest.raises(InputError):
        backend_with(kit, kit.scripted()).spot_issues("   ")


@pytest.mark.parametrize("side, role", [(Side.WORKER, Role.WORKER_COUNSEL), (Side.EMPLOYER, Role.EMPLOYER_COUNSEL)])
def test_counsel_parses_claims_and_uses_its_sides_prompt(kit, pack, side, role) -> None:
    model = kit.scripted(kit.reply(counsel_payload(pack)))
    out, usage = backend_with(kit, model).counsel(CounselInput(side=side, question=QUESTION, pack=pack))
    assert isinstance(out, CounselOutput) and len(out.claims) == 1
    assert out.claims[0].citations[0].span in pack.get("2025:46(1)").text
    assert usage.llm_calls == 1 and usage.cost_usd > 0
    system = model.seen[0][0][0].content
    assert system.startswith(load_prompt(role).system)


def test_counsel_passes_an_off_pack_citation_through_to_the_eep(kit, pack) -> None:
    payload = counsel_payload(pack, node_id="2025:999")  # not on the pack
    out, _ = backend_with(kit, kit.scripted(kit.reply(payload))).counsel(
        CounselInput(side=Side.WORKER, question=QUESTION, pack=pack)
    )
    proposed = out.claims[0]
    assert proposed.citations[0].node_id == "2025:999"
    result = make_claim(
        LedgerView(pack), claim_id="w1", side=Side.WORKER, text=proposed.text,
        evidence=[c.model_dump() for c in proposed.citations], confidence=proposed.confidence,
    )
    assert isinstance(result, RejectedClaim) and result.code == "off_ledger"


def test_counsel_with_a_non_counsel_side_is_an_input_error(kit, pack) -> None:
    with pytest.raises(InputError):
        backend_with(kit, kit.scripted()).counsel(CounselInput(side=Side.INTERPRETER, question="q", pack=pack))


def test_interpreter_and_empty_governing_rule(kit, pack) -> None:
    rule = counsel_payload(pack)["claims"][0]
    model = kit.scripted(kit.reply({"governing_rule": rule, "notes": "শর্তসাপেক্ষ।"}),
                         kit.reply({"governing_rule": None, "notes": "প্রাসঙ্গিক বিধান নেই।"}))
    backend = backend_with(kit, model)
    out, _ = backend.interpret(InterpreterInput(question=QUESTION, pack=pack))
    assert isinstance(out, InterpreterOutput) and out.governing_rule.citations[0].node_id == "2025:46(1)"
    out, _ = backend.interpret(InterpreterInput(question=QUESTION, pack=pack))
    assert out.governing_rule is None


def test_auditor_returns_verdict_category_direction_checks_and_request(kit, pack) -> None:
    reply = {"verdict": "NEI", "category": "temporal", "direction": "missing_condition",
             "checks": {"numbers_match": True, "time_limits_match": False},
             "notes": "শর্ত বাদ পড়েছে।",
             "retrieval_request": {"seeds": ["2025:46(1)"], "edge_types": ["proviso"], "hops": 1,
                                   "queries": [], "reason": "proviso missing"}}
    out, usage = backend_with(kit, kit.scripted(kit.reply(reply))).audit(audit_input(pack))
    assert isinstance(out, AuditOutput)
    assert (out.verdict, out.category, out.direction) == (Verdict.NEI, ClaimCategory.TEMPORAL, Direction.MISSING_CONDITION)
    assert out.checks == {"numbers_match": True, "time_limits_match": False}
    assert out.retrieval_request.seeds == ["2025:46(1)"]
    assert usage.tokens_in == 1200


def test_json_in_a_markdown_fence_is_accepted(kit, pack) -> None:
    fenced = "```json\n" + '{"verdict": "SUPPORT", "category": "numeric"}' + "\n```"
    out, _ = backend_with(kit, kit.scripted(kit.reply(fenced))).audit(audit_input(pack))
    assert out.verdict is Verdict.SUPPORT


# ---------------------------------------------------------------- failures


def test_malformed_json_is_transient_then_permanent_for_the_same_prompt(kit, pack) -> None:
    bad = '{"claims": [{"text": "অসম্পূর্ণ'
    backend = backend_with(kit, kit.scripted(kit.reply(bad), kit.reply(bad), kit.reply(counsel_payload(pack))))
    inp = CounselInput(side=Side.WORKER, question=QUESTION, pack=pack)
    with pytest.raises(TransientRoleError) as first:
        backend.counsel(inp)
    assert first.value.kind == "malformed_json" and first.value.retryable
    with pytest.raises(PermanentRoleError) as second:
        backend.counsel(inp)
    assert not second.value.retryable and "2 failures" in str(second.value)
    # Another prompt is unaffected by that count.
    out, _ = backend.counsel(inp.model_copy(update={"question": QUESTION + " আবার"}))
    assert out.claims


def test_schema_violation_is_transient_and_names_the_field(kit, pack) -> None:
    wrong = {"claims": [{"text": "x", "citations": [], "confidence": 7}]}
    backend = backend_with(kit, kit.scripted(kit.reply(wrong)))
    with pytest.raises(TransientRoleError, match=r"CounselOutput schema .*confidence") as err:
        backend.counsel(CounselInput(side=Side.EMPLOYER, question=QUESTION, pack=pack))
    assert err.value.kind == "schema_violation" and err.value.role == "employer_counsel"


def test_a_successful_reply_resets_the_failure_count(kit, pack) -> None:
    bad = "{not json"
    good = kit.reply({"verdict": "SUPPORT", "category": "numeric"})
    backend = backend_with(kit, kit.scripted(kit.reply(bad), good, kit.reply(bad)))
    inp = audit_input(pack)
    with pytest.raises(TransientRoleError):
        backend.audit(inp)
    backend.audit(inp)
    with pytest.raises(TransientRoleError):  # count restarted: still transient
        backend.audit(inp)


@pytest.mark.parametrize(
    "message",
    [
        AIMessage(content="", additional_kwargs={"refusal": "I can't help with that."}),
        AIMessage(content="I'm sorry, but I can't assist with that request."),
        AIMessage(content="দুঃখিত, আমি এই প্রশ্নের উত্তর দিতে পারব না।"),
        AIMessage(content="", response_metadata={"finish_reason": "content_filter"}),
        AIMessage(content=[{"type": "refusal", "refusal": "no"}]),
    ],
    ids=["refusal-field", "refusal-prose-en", "refusal-prose-bn", "content-filter", "refusal-block"],
)
def test_refusals_are_permanent(kit, pack, message) -> None:
    backend = backend_with(kit, kit.scripted(message))
    with pytest.raises(PermanentRoleError) as err:
        backend.interpret(InterpreterInput(question=QUESTION, pack=pack))
    assert err.value.kind == "refusal"


@pytest.mark.parametrize("content", ["", "   \n"])
def test_an_empty_answer_is_transient(kit, pack, content) -> None:
    with pytest.raises(TransientRoleError) as err:
        backend_with(kit, kit.scripted(kit.reply(content))).audit(audit_input(pack))
    assert err.value.kind == "empty_output"


@pytest.mark.parametrize(
    "exc, expected",
    [
        (ModelTimeoutError("timed out"), TransientRoleError),
        (ModelRateLimitError("slow down"), TransientRoleError),
        (ModelAuthenticationError("bad key"), PermanentRoleError),
        (ModelRefusalError("no"), PermanentRoleError),
        (TimeoutError("socket"), TransientRoleError),
    ],
)
def test_chat_model_errors_are_mapped(kit, pack, exc, expected) -> None:
    backend = backend_with(kit, kit.scripted(exc))
    with pytest.raises(expected) as err:
        backend.audit(audit_input(pack))
    assert err.value.__cause__ is exc
    assert backend.calls.count().failed == 1


def test_programming_errors_are_not_swallowed(kit, pack) -> None:
    bug = ValueError("a bug, not a model failure")
    with pytest.raises(ValueError) as err:
        backend_with(kit, kit.scripted(bug)).audit(audit_input(pack))
    assert err.value is bug


# ---------------------------------------------------------------- accounting and concurrency


def test_token_accounting_and_call_records(kit, pack) -> None:
    settings = kit.llm_settings(role_models={"trust_auditor": "my-local-model"})
    good = kit.reply({"verdict": "SUPPORT", "category": "numeric"}, tokens_in=1000, tokens_out=100)
    backend = backend_with(kit, kit.scripted(good, kit.reply("{oops", tokens_in=50, tokens_out=5),
                                             kit.reply(counsel_payload(pack), tokens_in=2000, tokens_out=200)),
                           settings=settings)
    _, audit_usage = backend.audit(audit_input(pack))
    assert audit_usage.backend == "openai:my-local-model" and audit_usage.cost_usd == 0.0  # unknown price
    with pytest.raises(TransientRoleError):
        backend.audit(audit_input(pack))
    _, counsel_usage = backend.counsel(CounselInput(side=Side.WORKER, question=QUESTION, pack=pack))
    assert counsel_usage.backend == "openai:gpt-4o-mini"
    assert counsel_usage.cost_usd == pytest.approx((2000 * 0.15 + 200 * 0.60) / 1e6)
    total = backend.calls.count()
    assert (total.calls, total.ok, total.failed, total.sequential) == (3, 2, 1, 3)
    assert (total.tokens_in, total.tokens_out) == (3050, 305)  # the failed call's tokens count too
    assert total.by_role == {"trust_auditor": 2, "worker_counsel": 1}
    assert backend.calls.count(since=2).calls == 1


def test_estimate_cost_matches_dated_snapshots_only_by_family() -> None:
    assert estimate_cost("gpt-4o-mini-2024-07-18", 1_000_000, 0) == pytest.approx(0.15)
    assert estimate_cost("gpt-4o-2024-08-06", 0, 1_000_000) == pytest.approx(10.0)
    assert estimate_cost("gpt-4o-minimal", 10, 10) == 0.0
    assert estimate_cost("llama3.1:8b", 10_000, 10_000) == 0.0


def test_count_llm_calls_counts_the_critical_path() -> None:
    def rec(role: str, start: float, end: float, ok: bool = True) -> LLMCallRecord:
        return LLMCallRecord(role=role, model="m", started_s=start, ended_s=end, ok=ok)

    # spotter, then two counsels in parallel, then two audits in parallel, then the interpreter.
    records = [rec("issue_spotter", 0, 1), rec("worker_counsel", 1, 3), rec("employer_counsel", 1.1, 2.5),
               rec("trust_auditor", 3.2, 4), rec("trust_auditor", 3.3, 4.5, ok=False), rec("legal_interpreter", 4.6, 5)]
    count = count_llm_calls(records)
    assert (count.calls, count.ok, count.failed, count.sequential) == (6, 5, 1, 4)
    assert count_llm_calls(records[1:3]).sequential == 1
    assert count_llm_calls([]).sequential == 0


def test_counsels_run_concurrently_on_one_backend(kit, pack) -> None:
    barrier = threading.Barrier(2)  # each call waits for the other: only concurrent calls finish
    models = {
        Role.WORKER_COUNSEL: kit.ScriptedChatModel(messages=iter([kit.reply(counsel_payload(pack))]), barrier=barrier),
        Role.EMPLOYER_COUNSEL: kit.ScriptedChatModel(messages=iter([kit.reply(counsel_payload(pack))]), barrier=barrier),
    }
    backend = OpenAIBackend(kit.llm_settings(), chat_model_factory=models.__getitem__)
    inputs = [CounselInput(side=s, question=QUESTION, pack=pack) for s in (Side.WORKER, Side.EMPLOYER)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(backend.counsel, inputs))
    assert all(out.claims for out, _ in results)
    count = backend.calls.count()
    assert (count.calls, count.sequential) == (2, 1)


@pytest.mark.parametrize("method, expected", [("json_object", {"type": "json_object"}), ("prompt", None)])
def test_fallback_structured_output_methods(kit, pack, method, expected) -> None:
    model = kit.scripted(kit.reply({"verdict": "REFUTE", "category": "numeric", "direction": "extra_condition"}))
    out, _ = backend_with(kit, model, method=method).audit(audit_input(pack))
    assert out.direction is Direction.EXTRA_CONDITION
    messages, kwargs = model.seen[0]
    assert kwargs.get("response_format") == expected
    assert '"verdict"' in messages[0].content  # the schema travels in the system message as well


# ---------------------------------------------------------------- configuration


def test_constructor_validates_configuration(kit, monkeypatch) -> None:
    with pytest.raises(ConfigError, match="no model"):
        OpenAIBackend(kit.llm_settings(model=None), chat_model_factory=lambda r: None)
    with pytest.raises(ConfigError):
        OpenAIBackend(kit.llm_settings(), chat_model_factory=lambda r: None, method="tools")  # type: ignore[arg-type]
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="API key"):
        OpenAIBackend(kit.llm_settings(api_key=None))
    # A local endpoint needs no key.
    OpenAIBackend(kit.llm_settings(api_key=None, base_url="http://127.0.0.1:9/v1"))


def test_the_key_is_not_in_any_repr(kit) -> None:
    from labourcrew.llm.chat_models import make_chat_model

    settings = kit.llm_settings(base_url="http://127.0.0.1:9/v1", api_key=SecretStr(kit.FAKE_KEY))
    backend = OpenAIBackend(settings)
    chat = make_chat_model(settings, Role.TRUST_AUDITOR)
    for shown in (repr(backend), str(backend), repr(chat), repr(settings), str(settings.model_dump())):
        assert kit.FAKE_KEY not in shown
    assert chat.max_retries == 0 and chat.temperature == 0.0
