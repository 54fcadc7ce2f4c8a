"""Calibration: risk vs τ from the labels with the α line and the chosen τ, n, bound, label hash;
recompute τ (writes a new record, keeps the old one) with a before/after view of saved runs."""

from labourcrew.gate.crc import load_calibration
from labourcrew.gate.recalibration import load_calibration_set, propose
from labourcrew.ui import calibration, frame, runs
from labourcrew.ui.resources import cached_graph, cached_label_store, labels_path

ctx = frame.page("ক্যালিব্রেশন · Calibration", "লেবেল থেকে ট্রাস্ট গেটের সীমা τ (conformal risk control).", icon="🎯")
with frame.guard(ctx.settings):
    if ctx.settings is not None:
        path = ctx.settings.gate.calibration_path
        current = load_calibration(path, ctx.settings.gate.alpha)
        calibration.render_record(current, path, "বর্তমান রেকর্ড (record in force)")
        store = cached_label_store(str(labels_path(ctx.settings)))
        alpha = calibration.read_alpha(ctx.settings)
        labels = store.list()
        results = runs.all_results(ctx.settings)
        # The committed calibration set stands in for labelled runs that are not saved here (runs/ is not committed).
        cal_set = load_calibration_set(path.parent / "calibration_set.jsonl")
        proposal = propose(results, labels, alpha=alpha, labels_sha256=store.labels_sha256(), calibration_set=cal_set)
        calibration.render_proposal(proposal, alpha, len(labels))
        changes = calibration.changes(runs.run_files(ctx.settings), results, current, proposal.record, cached_graph())
        calibration.render_changes(changes)
        calibration.render_save(proposal, path)
        calibration.render_history(path)
        calibration.render_validation(path.parent / "validation.json")
