"""Evidence Exchange Protocol at board level: no claim citing an off-ledger node survives into the
output, whatever a backend proposes; the refused attempts are kept with their reason."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labourcrew.board.run import ask
from labourcrew.ledger.roles import (
    CounselOutput,
    InterpreterOutput,
    ProposedCitation,
    ProposedClaim,
)
from labourcrew.llm.fakes import ScriptedBackend

Q = "স্থায়ী শ্রমিক কত দিনের নোটিশ দিয়ে চাকরি থেকে ইস্তফা দিতে পারেন?"
OFF_PACK = ["2025:400", "2025:999(1)", "2018:27(1)", "2025:46(1)", "2025:2(10)", "", "en-2018:27"]


CITE = st.one_of(st.tuples(st.just("on"), st.integers(0, 30)), st.tuples(st.just("off"), st.sampled_from(OFF_PACK)))
PLAN = st.lists(st.lists(CITE, min_size=1, max_size=3), min_size=1, max_size=4)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(worker=PLAN, employer=PLAN, interp=st.sampled_from(OFF_PACK))
def test_off_ledger_citations_never_reach_the_output(make_board, offline, worker, employer, interp) -> None:
    # Choices are drawn up front: the roles run in LangGraph's worker threads.
    def proposer(plan):
        def propose(inp):
            items = inp.pack.by_id()
            ids = list(items) or ["2025:27(1)"]
            claims = []
            for k, cites in enumerate(plan):
                nodes = [ids[i % len(ids)] if kind == "on" else i for kind, i in cites]
                citations = [ProposedCitation(node_id=n, span=(items[n].text[:40] if n in items else "কোন শ্রমিক ছুটি পাইবেন"))
                             for n in nodes]
                claims.append(ProposedClaim(text=f"দাবি {k}", citations=citations, confidence=0.5))
            return CounselOutput(claims=claims)
        return propose

    def interpret(inp):
        return InterpreterOutput(governing_rule=ProposedClaim(
            text="নিয়ম", citations=[ProposedCitation(node_id=interp, span="কোন শ্রমিক")], confidence=1.0))

    fake = ScriptedBackend({"counsel:worker": [proposer(worker)] * 10, "counsel:employer": [proposer(employer)] * 10,
                            "interpret": [interpret] * 5}, fallback=offline)
    r = ask(Q, board=make_board(fake), save=False)
    assert r.error is None and all(s["status"] != "failed" for s in r.role_status.values())
    on_ledger = r.evidence_pack.node_ids()
    for c in r.claims:
        assert all(e.node_id in on_ledger for e in c.evidence), c.claim_id
    for c in r.accepted():
        assert all(e.verified for e in c.evidence)
    off = [rc for rc in r.rejected_by_eep if rc.code in ("off_ledger", "invalid_shape")]
    assert off, "the interpreter always cites off the pack: its attempt must be on record"
    assert all(rc.reason for rc in r.rejected_by_eep)
