"""Parallel counsels and audits really overlap; the Supervisor's rounds and re-entries are bounded."""

from __future__ import annotations

import threading

import pytest

from labourcrew.board.run import ask
from labourcrew.board.supervisor import (
    actionable_requests,
    merge_requests,
    supervise,
)
from labourcrew.errors import TransientRoleError
from labourcrew.ledger.records import EvidenceItem, EvidencePack, ReleaseStatus, Side
from labourcrew.ledger.roles import InterpreterInput, RetrievalRequest
from labourcrew.llm.fakes import ScriptedBackend
from labourcrew.settings import load_settings

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


def test_a_failed_counsel_degrades_and_the_interpreter_runs_one_sided(make_board, offline) -> None:
    seen: list[InterpreterInput] = []

    def interpret(inp: InterpreterInput):
        seen.append(inp)
        return offline.interpret(inp)[0]

    errors = [TransientRoleError(f"down {i}") for i in range(3)]
    fake = ScriptedBackend({"counsel:employer": errors, "interpret": [interpret] * 5}, fallback=offline)
    r = ask(Q, board=make_board(fake), save=False)
    assert r.role_status["employer_counsel"]["status"] == "failed"
    assert seen and {c.side for c in seen[0].claims} == {Side.WORKER}
    assert r.status == ReleaseStatus.DEGRADED
    # no rebuttal round after a failed counsel: one counsel stage in the first retrieval round
    assert {c.stage for c in r.role_calls if c.retrieval_round == 0 and c.status.role == "worker_counsel"} == {"counsel@r0d0"}


def test_rebuttal_round_runs_when_both_sides_argued(offline_board) -> None:
    r = ask(Q, board=offline_board, save=False)
    stages = {c.stage for c in r.role_calls if c.status.role == "employer_counsel" and c.retrieval_round == 0}
    assert stages == {f"counsel@r0d{d}" for d in range(load_settings().board.max_deliberation_rounds)}
    challenges = [c for c in r.claims if c.challenge_to]
    assert all(c.round == 1 for c in challenges)
    ids = {c.claim_id for c in r.claims}
    assert all(c.challenge_to in ids for c in challenges)


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
    baseline = ask(Q, board=make_board(ScriptedBackend({"audit": [quiet_audit] * 200}, fallback=offline)), save=False)
    assert baseline.rounds == 1
    assert baseline.evidence_pack.node_ids() < r.evidence_pack.node_ids()  # new evidence merged in
    assert r.error is None


def test_supervise_routes_by_phase(graph) -> None:
    base = {"phase": "deliberation", "deliberation_round": 0, "claims": [], "role_calls": []}
    assert supervise(base, graph=graph, max_retrieval_rounds=2)["next_step"] == "interpret"
    unit = graph.units["2025:46(1)"]
    pack = EvidencePack(items=[EvidenceItem(node_id=unit.node_id, section="46", level=unit.level, text=unit.text,
                                            channels=["dense"], score=1, provenance=1)])
    req = RetrievalRequest(seeds=["2025:46(1)"], edge_types=["proviso"], hops=1)
    audit = {"phase": "audit", "retrieval_requests": [req], "requests_consumed": 0, "retrieval_round": 0, "pack": pack}
    step = supervise(audit, graph=graph, max_retrieval_rounds=2)
    assert step["next_step"] == "retrieve" and step["retrieval_round"] == 1 and step["pending_request"].seeds == ["2025:46(1)"]
    assert supervise({**audit, "retrieval_round": 2}, graph=graph, max_retrieval_rounds=2)["next_step"] == "compose"
    assert supervise({**audit, "requests_consumed": 1}, graph=graph, max_retrieval_rounds=2)["next_step"] == "compose"


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
    assert r.status != ReleaseStatus.UNDECIDED or r.claims
    assert r.error is None
