"""Annotate: label logged claims from saved runs faithful / unfaithful / unsure (SQLite, WAL; two
annotators can work at once); progress, Cohen's κ, CSV/JSONL export."""

from labourcrew.gate.annotation_queue import (
    agreement,
    build_queue,
    progress,
    queue_items,
)
from labourcrew.ui import annotate, frame, runs
from labourcrew.ui.resources import cached_label_store, labels_path

ctx = frame.page("লেবেল করুন · Annotate", "প্রতিটি দাবি তার উদ্ধৃত আইনের পাঠের সঙ্গে মিলিয়ে দেখুন।", icon="🏷️")
with frame.guard(ctx.settings):
    if ctx.settings is not None:
        store = cached_label_store(str(labels_path(ctx.settings)))
        items = queue_items(runs.all_results(ctx.settings))
        annotator = annotate.read_annotator()
        annotate.flash()
        if not items:
            frame.empty_state("লেবেল করার মতো কোনো দাবি নেই — আগে Ask পৃষ্ঠায় প্রশ্ন করুন। (No logged claims yet.)")
        elif not annotator:
            frame.empty_state("শুরু করতে আপনার নাম লিখুন। (Enter your name to start.)")
        else:
            labels = store.list()
            annotate.render_progress(progress(items, labels, annotator))
            todo = build_queue(items, labels, annotator, skipped=annotate.skipped())
            if todo:
                annotate.render_item(todo[0], store, annotator)
            else:
                frame.empty_state("সব দাবি লেবেল করা হয়েছে — ধন্যবাদ! (All claims labelled.)")
        annotate.render_agreement(agreement(store.list()))
        annotate.render_exports(store)
