"""Run inspector: any saved run (the last one by default) -- role timeline, Hop Trace, claims side
by side and a why-accepted / why-rejected card per claim; export as JSON."""

from labourcrew.ui import frame, inspector, runs
from labourcrew.ui.resources import cached_graph

ctx = frame.page("রান পরিদর্শক · Run inspector", "কোন দাবি কেন টিকেছে বা বাদ পড়েছে — ধাপে ধাপে।", icon="🔎")
with frame.guard(ctx.settings):
    run_id = runs.pick_run(ctx.settings, key="ri_run", default_run=inspector.requested_run())
    if run_id is None:
        frame.empty_state("এখনো কোনো সংরক্ষিত রান নেই। Ask পৃষ্ঠায় একটি প্রশ্ন করুন। (No saved runs yet.)")
    else:
        inspector.render_run(runs.load(ctx.settings, run_id), cached_graph(), ctx.settings)
