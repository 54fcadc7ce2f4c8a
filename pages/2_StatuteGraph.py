"""StatuteGraph explorer: a section by Bangla or ASCII number (or from a claim), its neighbourhood,
text with the run's cited spans highlighted, English parallel and the 2018 -> 2025 diff."""

from labourcrew.ui import explorer, frame, runs
from labourcrew.ui.resources import cached_graph
from labourcrew.viz.statute import section_view

ctx = frame.page("আইনের গ্রাফ · StatuteGraph", "ধারা খুঁজুন, প্রতিবেশ দেখুন, ২০১৮ ও ২০২৫ পাঠের পার্থক্য দেখুন।",
                 icon="🕸️")
with frame.guard(ctx.settings):
    q = explorer.read_query()
    marks = runs.marks_for(ctx.settings, q.run_id, q.claim_id)
    view = section_view(cached_graph(), q.version, q.query, evidence=marks.evidence, cited=marks.cited,
                        spans=marks.spans, graph_height_px=460)
    explorer.render_section(view, from_run=q.run_id)
