"""The deliberation board (paper §3.1): roles over the Formal Case Ledger, wired with LangGraph.

Nothing is built at import time: :func:`labourcrew.wiring.make_board` builds a board from settings;
:func:`labourcrew.board.run.ask` runs it on a question.
"""
