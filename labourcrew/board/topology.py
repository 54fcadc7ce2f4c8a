"""The board's topology as Mermaid text, for the snapshot test and the docs.

``tests/board/snapshots/board.mmd`` holds the committed snapshot; a rewiring changes this text and
so shows up as a reviewed diff. Regenerate it with ``python -m labourcrew.board.topology``
(writes the file) after an intended change.
"""

from __future__ import annotations

import sys
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


def _offline_board() -> Board:
    # The topology does not depend on the retrieval index or the backend: use cheap stand-ins.
    from labourcrew.board.build import build_board
    from labourcrew.board.deps import BoardDeps, LexicalRetrieval
    from labourcrew.gate.crc import load_calibration
    from labourcrew.graph.statute_graph import load_graph
    from labourcrew.llm.offline import OfflineBackend
    from labourcrew.settings import load_settings

    settings = load_settings()
    graph = load_graph()
    deps = BoardDeps(
        graph=graph,
        retrieval=LexicalRetrieval(graph, settings),
        backend=OfflineBackend(graph),
        calibration=load_calibration(settings.gate.calibration_path, settings.gate.alpha),
    )
    return build_board(settings, deps)


if __name__ == "__main__":  # pragma: no cover -- maintenance entry point
    out = write_snapshot(_offline_board(), Path(sys.argv[1]) if len(sys.argv) > 1 else SNAPSHOT_PATH)
    sys.stdout.write(f"wrote {out}\n")
