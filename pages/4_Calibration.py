"""Calibration: the record in force beside the settings' α and its guarantee in words; risk vs τ from the
labels; recompute τ by LTT (selective risk) or CRC, saving with confirmation when α differs from the
settings'; history with rollback; the split validation."""

from labourcrew.gate.crc import VALIDATION_FILE
from labourcrew.gate.recalibration import load_calibration_set, propose
from labourcrew.gate.system import calibration_for, system_of
from labourcrew.ui import calibration, frame, runs
from labourcrew.ui.resources import cached_graph, cached_label_store, labels_path

ctx = frame.page("ক্যালিব্রেশন · Calibration", "লেবেল থেকে ট্রাস্ট গেটের সীমা τ (Learn-then-Test / CRC).", icon="🎯")
with frame.guard(ctx.settings):
    if ctx.settings is not None:
        path = ctx.settings.gate.calibration_path
        current = calibration_for(ctx.settings)
        calibration.render_record(current, path, "বর্তমান রেকর্ড (record in force)", ctx.settings)
        calibration.render_guarantee(current)
        store = cached_label_store(str(labels_path(ctx.settings)))
        alpha = calibration.read_alpha(ctx.settings)
        method, delta = calibration.read_method(ctx.settings)
        labels = store.list()
        # The record is stamped with this system (system_of); labels are found by content key.
        results = runs.all_results(ctx.settings)
        # The committed calibration set stands in for labelled runs that are not saved here (runs/ is not committed).
        cal_set = load_calibration_set(path.parent / "calibration_set.jsonl")
        proposal = propose(results, labels, alpha=alpha, labels_sha256=store.labels_sha256(), calibration_set=cal_set,
                           method=method, delta=delta, system=system_of(ctx.settings))
        calibration.render_proposal(proposal, alpha, len(labels))
        changes = calibration.changes(runs.run_files(ctx.settings), results, current, proposal.record, cached_graph(),
                                      ctx.settings)
        calibration.render_changes(changes)
        calibration.render_save(proposal, path, ctx.settings)
        calibration.render_history(path, ctx.settings)
        calibration.render_validation(path.parent / VALIDATION_FILE)
