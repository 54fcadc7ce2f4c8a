"""Parallel counsels and audits really overlap; the Supervisor's rounds and re-entries are bounded."""

from __future__ import annotations

import threading

import pytest

from labourcrew.board.run import ask
from labourcrew.board.supervisor import (
    actionable_requests,
    evidence_gap,
    merge_requests,
    sides_conflict,
    supervise,
)
from labourcrew.errors import TransientRoleError
from labourcrew.ledger.records import EvidenceItem, EvidencePack, ReleaseStatus, Side
from labourcrew.ledger.roles import InterpreterInput, RetrievalRequest
from labourcrew.llm.fakes import ScriptedBackend

Q = "প্রসূতি কল্যাণ সুবিধা কত দিনের জন্য পাওয়া যায়?"


class Rendezvous:
    """Each call waits at a barrier for ``parties`` calls: calls that run one after the other break it."""

    def __init__(self, inner, parties: int):
        self.inner = inner
        self.barrier = threading.Barrier(parties, timeout=10)
        self.threads: set[int] = set()

    def __call__(self, method: str):
        def call(inp):
            self.threads.add(threading.get_ident())
            self.barrier.wait()  # raises BrokenBarrierError when the other party never comes
            return getattr(self.inner, method)(inp)[0]
        return call


def test_worker_and_employer_counsel_run_in_parallel(make_board, offline) -> None:
    meet = Rendezvous(offline, parties=2)
    fake = ScriptedBackend({"counsel:worker": [meet("counsel")], "counsel:employer": [meet("counsel")]}, fallback=offline)
    r = ask(Q, board=make_board(fake), save=False)
    assert not meet.barrier.broken, "the two counsels did not run at the same time"
    assert len(meet.threads) == 2
    assert r.role_status["worker_counsel"]["status"] == "ok" and r.role_status["employer_counsel"]["status"] == "ok"
    assert {c.side for c in r.claims} >= {Side.WORKER, Side.EMPLOYER}


def test_serial_calls_break_the_rendezvous(offline) -> None:
    # The check above can fail: two calls made one after the other never meet.
    meet = Rendezvous(offline, parties=2)
    meet.barrier = threading.Barrier(2, timeout=0.2)
    with pytest.raises(threading.BrokenBarrierError):
        meet("counsel")(None)


def test_the_interpreter_runs_beside_both_counsels(make_board, offline) -> None:
    meet = Rendezvous(offline, parties=3)
    fake = ScriptedBackend({"counsel:worker": [meet("counsel")], "counsel:employer": [meet("counsel")],
                            "interpret": [meet("interpret")]}, fallback=offline)
    r = ask(Q, board=make_board(fake), save=False)
    assert not meet.barrier.broken, "the interpreter did not run at the same time as the counsels"
    stages = {c.status.role: c.stage for c in r.role_calls if c.retrieval_round == 0}
    assert stages["legal_interpreter"] == stages["worker_counsel"] == stages["employer_counsel"] == "counsel@r0d0"
    assert any(c.side == Side.INTERPRETER for c in r.claims)


def test_a_failed_counsel_degrades_and_the_interpreter_still_states_the_rule(make_board, offline) -> None:
    seen: list[InterpreterInput] = []

    def interpret(inp: InterpreterInput):
        seen.append(inp)
        return offline.interpret(inp)[0]

    errors = [TransientRoleError(f"down {i}") for i in range(3)]
    fake = ScriptedBackend({"counsel:employer": errors, "interpret": [interpret] * 5}, fallback=offline)
    r = ask(Q, board=make_board(fake), save=False)
    assert r.role_status["employer_counsel"]["status"] == "failed"
    assert seen and seen[0].claims == []  # beside the opening round it sees no claim of that round
    assert any(c.side == Side.INTERPRETER for c in r.claims)
    assert r.status == ReleaseStatus.DEGRADED
    # no rebuttal round after a failed counsel: one counsel stage in the first retrieval round
    assert {c.stage for c in r.role_calls if c.retrieval_round == 0 and c.status.role == "worker_counsel"} == {"counsel@r0d0"}


def test_no_rebuttal_round_when_the_sides_do_not_contradict(offline_board) -> None:
    r = ask(Q, board=offline_board, save=False)
    assert {c.side for c in r.claims} >= {Side.WORKER, Side.EMPLOYER}
    assert not r.conflicts
    stages = {c.stage for c in r.role_calls if c.status.role == "employer_counsel" and c.retrieval_round == 0}
    assert stages == {"counsel@r0d0"}
    assert not [c for c in r.claims if c.challenge_to]


def _opposed(side_text: str):
    """A counsel whose claim quotes the pack's first quotable unit, framed with ``side_text``."""
    from labourcrew.deliberation.extractive import clause_spans
    from labourcrew.ledger.roles import CounselOutput, ProposedCitation, ProposedClaim

    def counsel(inp):
        if inp.round >= 1:  # the rebuttal: nothing new to say
            return CounselOutput(claims=[])
        item = next(i for i in inp.pack.items if clause_spans(i.text))
        span = clause_spans(item.text)[0]
        return CounselOutput(claims=[ProposedClaim(text=f"{side_text} «{span}»", citations=[
            ProposedCitation(node_id=item.node_id, span=span)], confidence=0.7)])
    return counsel


def test_rebuttal_round_runs_when_the_sides_contradict(make_board, offline) -> None:
    fake = ScriptedBackend({"counsel:worker": [_opposed("শ্রমিক ছুটি পাইবেন:")] * 9,
                            "counsel:employer": [_opposed("শ্রমিক ছুটি পাইবেন না:")] * 9}, fallback=offline)
    board = make_board(fake)
    r = ask(Q, board=board, save=False)
    assert r.conflicts  # the two sides contradict each other on one unit
    stages = {c.stage for c in r.role_calls if c.status.role == "employer_counsel" and c.retrieval_round == 0}
    assert stages == {f"counsel@r0d{d}" for d in range(board.settings.board.max_deliberation_rounds)}
    # the rebuttal round is the two counsels only: the interpreter ran once, beside the opening
    assert [c.stage for c in r.role_calls if c.status.role == "legal_interpreter" and c.retrieval_round == 0] == ["counsel@r0d0"]
    assert r.error is None


def test_retrieval_reentry_is_bounded_and_merges_new_evidence(make_board, offline) -> None:
    def greedy_audit(inp):
        out, _ = offline.audit(inp)
        # Always ask for more: the cited section's every sibling and reference.
        return out.model_copy(update={"retrieval_request": RetrievalRequest(
            seeds=[n for n in inp.claim.cited_node_ids()], edge_types=["cross_ref", "parent", "child", "proviso"], hops=2,
            reason="test: always more")})

    def quiet_audit(inp):
        return offline.audit(inp)[0].model_copy(update={"retrieval_request": None})

    greedy = make_board(ScriptedBackend({"audit": [greedy_audit] * 200}, fallback=offline))
    r = ask(Q, board=greedy, save=False)
    # re-entered (then composed once no new claim asked for more), never beyond the budget
    assert 2 <= r.rounds <= greedy.settings.board.max_retrieval_rounds + 1
    assert [c.stage for c in r.role_calls if c.status.role == "retrieval_planner"] == [
        f"retrieval_planner@r{i}" for i in range(r.rounds)
    ]
    quiet = make_board(ScriptedBackend({"audit": [quiet_audit] * 200}, fallback=offline), board={"max_retrieval_rounds": 0})
    baseline = ask(Q, board=quiet, save=False)
    assert baseline.rounds == 1 and not baseline.retrieval_requests
    assert baseline.evidence_pack.node_ids() < r.evidence_pack.node_ids()  # new evidence merged in
    assert r.error is None


def _item(graph, node_id: str) -> EvidenceItem:
    unit = graph.units[node_id]
    return EvidenceItem(node_id=unit.node_id, section=unit.section, level=unit.level, text=unit.text,
                        channels=["dense"], score=1, provenance=1)


def test_supervise_routes_by_phase(graph) -> None:
    from labourcrew.ledger.records import Claim, EvidenceRef

    base = {"phase": "deliberation", "deliberation_round": 0, "claims": [], "role_calls": []}
    step = supervise(base, graph=graph, max_retrieval_rounds=2)
    assert step["next_step"] == "check" and step["phase"] == "check" and step["deliberation_round"] == 1
    pack = EvidencePack(items=[_item(graph, "2025:46(1)")])
    span = graph.units["2025:46(1)"].text[:60]
    claim = Claim(claim_id="w1", side=Side.WORKER, text=span, evidence=[EvidenceRef(node_id="2025:46(1)", span=span)], confidence=0.8)
    # after the Citation Checker: 46(1)'s proviso is not on the pack -> re-enter before any audit
    check = {"phase": "check", "claims": [claim], "pack": pack, "retrieval_round": 0, "retrieval_requests": []}
    step = supervise(check, graph=graph, max_retrieval_rounds=2)
    assert step["next_step"] == "retrieve" and step["retrieval_round"] == 1 and step["phase"] == "deliberation"
    assert step["pending_request"].seeds == ["2025:46(1)"] and step["retrieval_requests"] == [step["pending_request"]]
    assert step["requests_consumed"] == 1
    # no re-entry left, or the unit already asked for: audit the unaudited claims
    assert supervise({**check, "retrieval_round": 2}, graph=graph, max_retrieval_rounds=2)["next_step"] == "audit"
    asked = {**check, "retrieval_requests": [step["pending_request"]]}
    assert supervise(asked, graph=graph, max_retrieval_rounds=2)["next_step"] == "audit"
    assert supervise({**check, "findings": {"w1": object()}, "retrieval_round": 2}, graph=graph,
                     max_retrieval_rounds=2)["next_step"] == "compose"
    # after the audits: the auditor's own request re-enters while rounds remain
    req = RetrievalRequest(seeds=["2025:46(1)"], edge_types=["proviso"], hops=1)
    audit = {"phase": "audit", "retrieval_requests": [req], "requests_consumed": 0, "retrieval_round": 0, "pack": pack}
    step = supervise(audit, graph=graph, max_retrieval_rounds=2)
    assert step["next_step"] == "retrieve" and step["retrieval_round"] == 1 and step["pending_request"].seeds == ["2025:46(1)"]
    assert supervise({**audit, "retrieval_round": 2}, graph=graph, max_retrieval_rounds=2)["next_step"] == "compose"
    assert supervise({**audit, "requests_consumed": 1}, graph=graph, max_retrieval_rounds=2)["next_step"] == "compose"
    assert supervise(audit, graph=graph, max_retrieval_rounds=0)["next_step"] == "compose"


def test_evidence_gap_asks_for_quotable_links_only(graph) -> None:
    from labourcrew.ledger.records import Claim, EvidenceRef
    from labourcrew.retrieval.link_hopper import required_links
    from labourcrew.statute.model import EdgeType, Level

    def claim_on(node_id: str) -> Claim:
        span = graph.units[node_id].text[:40]
        return Claim(claim_id="w1", side=Side.WORKER, text=span, evidence=[EvidenceRef(node_id=node_id, span=span)], confidence=0.8)

    # 2(15) cross-references a whole chapter: a title, nothing to quote, no retrieval round for it
    chapter_refs = [t for e, t in graph.neighbours("2025:2(15)", {EdgeType.CROSS_REF}) if graph.units[t].level == Level.CHAPTER]
    assert chapter_refs and not set(chapter_refs) & set(required_links(graph, "2025:2(15)"))
    assert evidence_gap([claim_on("2025:2(15)")], EvidencePack(items=[_item(graph, "2025:2(15)")]), graph) is None
    # 102(2) refers to section 108: that is asked for, once
    gap = evidence_gap([claim_on("2025:102(2)")], EvidencePack(items=[_item(graph, "2025:102(2)")]), graph)
    assert gap is not None and gap.seeds == ["2025:102(2)"] and "2025:108" in required_links(graph, "2025:102(2)")
    assert evidence_gap([claim_on("2025:102(2)")], EvidencePack(items=[_item(graph, "2025:102(2)")]), graph,
                        asked=["2025:102(2)"]) is None
    full = EvidencePack(items=[_item(graph, n) for n in ["2025:102(2)", *required_links(graph, "2025:102(2)")]])
    assert evidence_gap([claim_on("2025:102(2)")], full, graph) is None


def test_requests_already_satisfied_by_the_pack_are_dropped(graph) -> None:
    rule, proviso = graph.units["2025:46(1)"], graph.units["2025:46(1).proviso1"]
    pack = EvidencePack(items=[EvidenceItem(node_id=u.node_id, section="46", level=u.level, text=u.text, channels=["dense"],
                                            score=1, provenance=1) for u in (rule, proviso)])
    req = RetrievalRequest(seeds=["2025:46(1)"], edge_types=["proviso"], hops=1)
    assert actionable_requests([req], pack, graph) == []
    merged = merge_requests([req, RetrievalRequest(seeds=["2025:27(1)"], edge_types=["cross_ref"], hops=2, reason="b")])
    assert merged.seeds == ["2025:46(1)", "2025:27(1)"] and merged.hops == 2 and set(merged.edge_types) == {"proviso", "cross_ref"}


def test_reentries_stop_at_the_budget_even_when_every_round_asks_for_more(make_board, offline) -> None:
    from labourcrew.deliberation.extractive import clause_spans
    from labourcrew.ledger.roles import CounselOutput, ProposedCitation, ProposedClaim

    used: set[str] = set()

    def fresh_worker(inp):  # a new verbatim claim every call, so every round has something to audit
        for item in inp.pack.items:
            spans = clause_spans(item.text)
            if item.node_id not in used and spans:
                used.add(item.node_id)
                return CounselOutput(claims=[ProposedClaim(text=f"«{spans[0]}»", citations=[
                    ProposedCitation(node_id=item.node_id, span=spans[0])], confidence=0.8)])
        return CounselOutput(claims=[])

    def greedy_audit(inp):
        out, _ = offline.audit(inp)
        # A text query is always actionable (the pack cannot already hold its answer).
        return out.model_copy(update={"retrieval_request": RetrievalRequest(
            queries=["মজুরীসহ ছুটি"], hops=1, reason=f"more for {inp.claim.claim_id}")})

    board = make_board(ScriptedBackend({"counsel:worker": [fresh_worker] * 50, "audit": [greedy_audit] * 200}, fallback=offline))
    r = ask(Q, board=board, save=False)
    assert r.rounds == board.settings.board.max_retrieval_rounds + 1
    # every claim says which retrieval round made it (the fresh worker adds one in each)
    assert {c.retrieval_round for c in r.claims} == set(range(r.rounds))
    assert r.status != ReleaseStatus.UNDECIDED or r.claims
    assert r.error is None


def test_only_a_contradiction_between_the_two_sides_calls_for_a_rebuttal(graph) -> None:
    from labourcrew.ledger.records import Claim, EvidenceRef

    span = graph.units["2025:115"].text[:50]

    def claim(cid: str, side: Side, text: str) -> Claim:
        return Claim(claim_id=cid, side=side, text=text, evidence=[EvidenceRef(node_id="2025:115", span=span)], confidence=0.7)

    yes, no = "শ্রমিক ছুটি পাইবেন", "শ্রমিক ছুটি পাইবেন না"
    assert [(x.a, x.b) for x in sides_conflict([claim("w1", Side.WORKER, yes), claim("e1", Side.EMPLOYER, no)])] == [("w1", "e1")]
    assert sides_conflict([claim("w1", Side.WORKER, yes), claim("i1", Side.INTERPRETER, no)]) == []
    assert sides_conflict([claim("w1", Side.WORKER, yes), claim("e1", Side.EMPLOYER, yes)]) == []
    base = {"phase": "deliberation", "deliberation_round": 0, "role_calls": [],
            "claims": [claim("w1", Side.WORKER, yes), claim("e1", Side.EMPLOYER, no)]}
    assert supervise(base, graph=graph, max_retrieval_rounds=2)["next_step"] == "rebut"
    assert supervise(base, graph=graph, max_retrieval_rounds=2, max_deliberation_rounds=1)["next_step"] == "check"


def test_path_completeness_and_the_evidence_gap_require_the_same_links(graph) -> None:
    # One rule (retrieval.link_hopper.required_links): what the metric counts as a missing link is
    # what the Supervisor would fetch.
    from labourcrew.eval.adapter import UnitResolver
    from labourcrew.ledger.records import Claim, EvidenceRef
    from labourcrew.retrieval.link_hopper import required_links

    resolver = UnitResolver(graph)
    for node in ("2025:102(2)", "2025:2(15)", "2025:46(1)", "2025:27(4)", "2025:80(1).explanation1"):
        linked = list(resolver.facts(node).linked)
        assert linked == required_links(graph, node)
        span = graph.units[node].text[:40]
        claim = Claim(claim_id="w1", side=Side.WORKER, text=span, evidence=[EvidenceRef(node_id=node, span=span)], confidence=0.8)
        gap = evidence_gap([claim], EvidencePack(items=[_item(graph, node)]), graph)
        assert (gap is not None) == bool(linked)
