"""The Trust Auditor withholds a quote that leaves its rule's conditions in uncited sub-clauses
(labourcrew.audit.conditions), whichever backend made the claim."""

from __future__ import annotations


def test_the_trust_auditor_withholds_a_quote_that_drops_the_conditions(make_board, offline) -> None:
    from labourcrew.board.run import ask
    from labourcrew.ledger.records import Verdict
    from labourcrew.ledger.roles import CounselOutput, ProposedCitation, ProposedClaim
    from labourcrew.llm.fakes import ScriptedBackend

    span = "কোন শ্রমিককে বিনা নোটিশে বা নোটিশের পরিবর্তে বিনা মজুরীতে চাকুরী হইতে বরখাস্ত করা যাইবে"

    def dismiss(inp):
        if not any(i.node_id == "2025:23(1)" for i in inp.pack.items):
            return CounselOutput(claims=[])
        return CounselOutput(claims=[ProposedClaim(text=f"আইন অনুযায়ী: «{span}» (ধারা ২৩(১))", citations=[
            ProposedCitation(node_id="2025:23(1)", span=span)], confidence=0.9)])

    board = make_board(ScriptedBackend({"counsel:employer": [dismiss] * 9}, fallback=offline))
    r = ask("অসদাচরণের জন্য বিনা নোটিশে বরখাস্ত করা যায় কি? ধারা ২৩(১)", board=board, save=False)
    mine = [c for c in r.claims if c.side.value == "employer" and [e.node_id for e in c.evidence] == ["2025:23(1)"]]
    assert mine, "the scripted claim did not reach the ledger"
    finding = r.findings[mine[0].claim_id]
    assert finding.verdict == Verdict.NEI and finding.direction.value == "missing_condition"
    assert finding.checks["skeptic.sub_clause_conditions_cited"] is False and not mine[0].accepted


def test_each_check_is_stored_once_unless_the_board_disagrees(graph) -> None:
    """The board keeps its own ``skeptic.`` copy of a check only where it adds something: the
    backend did not report it, or reported another value."""
    from labourcrew.board.roles import _finding
    from labourcrew.ledger.records import Claim, ClaimCategory, EvidenceRef, Side, Verdict
    from labourcrew.ledger.roles import AuditOutput

    span = "কোন শ্রমিককে বিনা নোটিশে বা নোটিশের পরিবর্তে বিনা মজুরীতে চাকুরী হইতে বরখাস্ত করা যাইবে"
    claim = Claim(claim_id="e1", side=Side.EMPLOYER, text=f"আইন অনুযায়ী: «{span}»",
                  evidence=[EvidenceRef(node_id="2025:23(1)", span=span)], confidence=0.8)
    out = AuditOutput(verdict=Verdict.SUPPORT, category=ClaimCategory.FACTUAL,
                      checks={"numbers_match": True, "modal_preserved": False})
    checks = _finding(claim, out, {"2025:23(1)": graph.units["2025:23(1)"].text}, graph,
                      "অসদাচরণের জন্য কি বিনা নোটিশে বরখাস্ত করা যায়?").checks
    assert checks["numbers_match"] is True and "skeptic.numbers_match" not in checks  # same value: once
    assert checks["modal_preserved"] is False and checks["skeptic.modal_preserved"] is True  # they disagree
    assert checks["skeptic.sub_clause_conditions_cited"] is False  # only the board checks this
