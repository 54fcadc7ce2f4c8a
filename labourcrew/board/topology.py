"""The board's topology as Mermaid text, for the snapshot test and the docs.

``tests/board/snapshots/board.mmd`` holds the committed snapshot; a rewiring changes this text and
so shows up as a reviewed diff. Regenerate it after an intended change with
``python -c "from labourcrew.board.topology import write_snapshot; from labourcrew.wiring import topology_board; write_snapshot(topology_board())"``.
"""

from __future__ import annotations

from pathlib import Path

from labourcrew.board.build import Board

__all__ = ["SNAPSHOT_PATH", "board_mermaid", "write_snapshot"]

SNAPSHOT_PATH = Path(__file__).resolve().parents[2] / "tests" / "board" / "snapshots" / "board.mmd"


def board_mermaid(board: Board) -> str:
    """``board.get_graph().draw_mermaid()`` with a trailing newline (LangGraph's own renderer)."""
    text = board.get_graph().draw_mermaid()
    return text if text.endswith("\n") else text + "\n"


def write_snapshot(board: Board, path: Path = SNAPSHOT_PATH) -> Path:
    """Write the Mermaid snapshot of ``board`` to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(board_mermaid(board), encoding="utf-8")
    return path
