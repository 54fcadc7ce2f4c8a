"""The deliberation board (paper §3.1): roles over the Formal Case Ledger, wired with LangGraph.

Nothing is built at import time: call :func:`build_board` (or :func:`labourcrew.board.run.ask`).
"""

from __future__ import annotations

__all__ = ["build_board", "Board", "BoardDeps", "default_deps"]


def __getattr__(name: str):  # lazy: importing the package must stay cheap
    if name in ("build_board", "Board"):
        from labourcrew.board import build

        return getattr(build, name)
    if name in ("BoardDeps", "default_deps"):
        from labourcrew.board import deps

        return getattr(deps, name)
    raise AttributeError(name)
