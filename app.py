"""LabourCrew dashboard, home page = Ask: `streamlit run app.py` (or `make run`).

Ask a question in Bangla; the deliberation board answers from the Bangladesh Labour Act, 2006 with
live progress per phase, a release-status badge, the opinion with inline citations and the cited
passages with the verbatim spans highlighted. Other pages: Run inspector, StatuteGraph,
Annotate, Calibration, Evaluation (``pages/``).
"""

import time

from labourcrew.board.run import stream
from labourcrew.ui import ask, frame
from labourcrew.ui.resources import board_key, cached_board, cached_graph

ctx = frame.page("প্রশ্ন করুন · Ask", "বাংলাদেশ শ্রম আইন, ২০০৬ — প্রকাশিত প্রতিটি উত্তর আইনের হুবহু পাঠে যাচাইকৃত; যাচাই করা না গেলে তা বলা হয়।")
with frame.guard(ctx.settings):
    request = ask.read_input(frame.backend_summary(ctx.settings) if ctx.settings else "")
    if request.submitted and ctx.settings is not None and not ask.is_repeat(request):
        started = time.monotonic()  # the time shown includes loading the board on the first question
        board = cached_board(board_key(ctx.settings), ctx.settings)
        ask.remember(ask.run_with_progress(
            stream(request.question, version=request.version, board=board, facts=request.facts), started), request)
    answer = ask.remembered()
    if answer is not None:
        ask.render_answer(answer, cached_graph())
