"""Evaluation: per-category charts from the evaluation results, baselines and ablations side by
side; a clear empty state with the command that produces the results."""

from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.ui import evaluation, frame
from labourcrew.viz.evaluation import parse_results

ctx = frame.page("মূল্যায়ন · Evaluation", "ডেভ সেটে সিস্টেম, বেসলাইন ও অ্যাবলেশনের ফলাফল (metrics).", icon="📊")
with frame.guard(ctx.settings):
    files = evaluation.result_files(ctx.settings)
    if not files:
        evaluation.render_empty()
    else:
        path = evaluation.pick_results_file(files)
        results = parse_results(evaluation.read_results(str(path), path.stat().st_mtime))
        try:
            record_created = CalibrationRecord.load(ctx.settings.gate.calibration_path).created
        except Exception:  # noqa: BLE001 -- no readable record: nothing to compare with
            record_created = None
        evaluation.render_results(results, record_created)
