"""Board topology snapshot: rewiring the board must be a reviewed diff of snapshots/board.mmd.

After an intended change regenerate it with ``python -m labourcrew.board.topology``.
"""

from __future__ import annotations

from pathlib import Path

from labourcrew.board.topology import SNAPSHOT_PATH, board_mermaid
from labourcrew.ledger.roles import Role

SNAPSHOT = Path(__file__).parent / "snapshots" / "board.mmd"


def test_topology_matches_the_committed_snapshot(offline_board) -> None:
    assert SNAPSHOT_PATH == SNAPSHOT.resolve()
    assert board_mermaid(offline_board) == SNAPSHOT.read_text(encoding="utf-8")


def test_every_role_is_a_node_with_a_failure_recorder(offline_board) -> None:
    nodes = set(offline_board.get_graph().nodes)
    for role in Role:
        assert role.value in nodes
        assert f"__error_handler__{role.value}" in nodes
    edges = {(e.source, e.target) for e in offline_board.get_graph().edges}
    # the two counsels fan out from the hopper and fan in to the supervisor
    for counsel in ("worker_counsel", "employer_counsel"):
        assert ("link_hopper", counsel) in edges and (counsel, "supervisor") in edges


def test_every_node_the_board_streams_belongs_to_a_progress_phase(offline_board) -> None:
    # The Ask page counted "__error_handler__…" nodes as extra steps ("9/8 ধাপ") with a green tick.
    from labourcrew.viz.run_view import ERROR_HANDLER, PHASES, phase_of

    phases = {k for k, _ in PHASES.values()}
    for node in offline_board.get_graph().nodes:
        if node.startswith("__") and not node.startswith(ERROR_HANDLER):
            continue  # LangGraph's __start__ / __end__ are never streamed
        key, label = phase_of(node)
        assert key in phases, node
        assert ("ব্যর্থ" in label) == node.startswith(ERROR_HANDLER), node
