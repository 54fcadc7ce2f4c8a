"""Annotate: label logged claims faithful / unfaithful / unsure with the keyboard (1/2/3, ←/→), blind to
other labels by default; the disagreement queue, progress, Cohen's κ and Gwet's AC1, CSV/JSONL export."""

from labourcrew.gate.annotation_queue import build_queue, progress, queue_items
from labourcrew.ui import annotate, frame, runs
from labourcrew.ui.resources import cached_label_store, labels_path

ctx = frame.page("লেবেল করুন · Annotate", "প্রতিটি দাবি তার উদ্ধৃত আইনের পাঠের সঙ্গে মিলিয়ে দেখুন।", icon="🏷️")
with frame.guard(ctx.settings):
    if ctx.settings is not None:
        store = cached_label_store(str(labels_path(ctx.settings)))
        items = queue_items(runs.all_results(ctx.settings))
        annotate.render_guidelines(annotate.protocol_text(ctx.settings.gate.calibration_path.parent / "README.md"))
        annotator = annotate.read_annotator()
        blind, disputed = annotate.read_options()
        annotate.render_shortcuts()
        annotate.flash()
        annotate.render_undo(store)
        labels = store.list()
        if not items:
            frame.empty_state("লেবেল করার মতো কোনো দাবি নেই — আগে Ask পৃষ্ঠায় প্রশ্ন করুন। (No logged claims yet.)")
        elif not annotator:
            frame.empty_state("শুরু করতে আপনার নাম লিখুন। (Enter your name to start.)")
        else:
            annotate.render_progress(progress(items, labels, annotator))
            todo = build_queue(items, labels, annotator, skipped=annotate.skipped(),
                               current_system=ctx.settings.hash(), disputed_only=disputed)
            item = annotate.pick(todo)
            if item is not None:
                annotate.render_item(item, store, annotator, labels, blind=blind)
            else:
                frame.empty_state("এই সারিতে আর কিছু নেই — ধন্যবাদ! (Nothing left in this queue.)")
        annotate.render_agreement(labels, store.labels_sha256())
        annotate.render_exports(store)
