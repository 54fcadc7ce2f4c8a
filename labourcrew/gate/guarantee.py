"""The Trust Gate's guarantee in words, for the person reading an answer (issue 11).

:func:`guarantee_text` states what the calibration record in force promises and the numbers it was
measured on -- α, δ, n, the release rate -- and nothing more: a fail-closed record promises
nothing but that nothing is released; a CRC record promises a mean, not a per-answer rate; an
uncalibrated (categorical fallback) record promises nothing.
"""

from __future__ import annotations

import math

from labourcrew.ledger.gate import CalibrationRecord, GateResult
from labourcrew.statute.normalize import to_bangla_digits

__all__ = ["guarantee_text"]


def _bn_pct(x: float) -> str:
    return to_bangla_digits(f"{100 * x:.0f}") + "%"


def _bn(n: float | int) -> str:
    return to_bangla_digits(str(n))


def guarantee_text(record: CalibrationRecord | GateResult) -> tuple[str, str]:
    """What the gate guarantees under ``record``, in plain Bangla and in English.

    Args:
        record: the calibration record in force (as the board loaded it: ``board.deps.calibration``).
            A :class:`GateResult` is accepted too, but it carries only τ, α and n: pass the record
            to state δ and the release rate.

    Returns:
        ``(bn, en)``: one or two sentences each, with α, δ, n and the release rate as measured.
    """
    if isinstance(record, GateResult):
        if record.mode == "categorical":
            return ("এই উত্তর ক্যালিব্রেট করা নয় (categorical gate): কোনো ঝুঁকির নিশ্চয়তা নেই।",
                    "This answer is uncalibrated (categorical gate): no error rate is guaranteed.")
        if math.isinf(record.tau):
            return ("ট্রাস্ট গেট বন্ধ (τ = ∞): কোনো দাবি প্রকাশিত হয় না।",
                    "The Trust Gate is closed (τ = ∞): nothing is released.")
        return (f"প্রকাশিত দাবিগুলো ট্রাস্ট স্কোরের সীমা τ = {to_bangla_digits(f'{record.tau:.3f}')} পেরিয়েছে, যা "
                f"{_bn(record.calibration_n)}টি লেবেল করা প্রশ্নে α = {_bn(record.alpha)}-এ ক্যালিব্রেট করা; δ ও প্রকাশের হার "
                "ক্যালিব্রেশন পৃষ্ঠায়।",
                f"Released claims cleared τ = {record.tau:.3f}, calibrated at α = {record.alpha:g} on "
                f"{record.calibration_n} labelled questions; δ and the release rate are on the Calibration page.")
    if record.fallback == "categorical":
        return ("এই উত্তর ক্যালিব্রেট করা নয়: ট্রাস্ট গেটের রেকর্ডটি অন্য সিস্টেমের জন্য, তাই কোনো ঝুঁকির নিশ্চয়তা নেই।",
                "This answer is uncalibrated: the Trust Gate record belongs to another system, so no error "
                "rate is guaranteed.")
    if record.fail_closed or math.isinf(record.tau):
        why = f" ({record.note})" if record.note else ""
        return ("ট্রাস্ট গেট বন্ধ (τ = ∞): লেবেল করা প্রশ্নে কোনো সীমা প্রয়োজনীয় নিশ্চয়তা দিতে পারেনি, তাই কোনো দাবি "
                f"প্রকাশিত হয় না। পরিমাপ: {_bn(record.n)}টি প্রশ্ন, α = {_bn(record.alpha)}।",
                f"The Trust Gate is closed (τ = ∞): no threshold met the guarantee on the {record.n} labelled "
                f"questions at α = {record.alpha:g}, so nothing is released{why}.")
    rate = record.release_rate
    rate_bn = f", যার {_bn_pct(rate)}-এ উত্তর প্রকাশিত হয়েছিল" if rate is not None else ""
    rate_en = f", {100 * rate:.0f}% of which got an answer" if rate is not None else ""
    if record.method == "ltt" and record.delta is not None:
        return (f"প্রকাশিত উত্তরগুলোর মধ্যে অন্তত একটি ভুল (অবিশ্বস্ত) উদ্ধৃতি থাকা উত্তরের হার {_bn_pct(record.alpha)}-এর "
                f"বেশি নয় — এই নিশ্চয়তা অন্তত {_bn_pct(1 - record.delta)} সম্ভাবনায় সত্য। পরিমাপ: {_bn(record.n)}টি "
                f"লেবেল করা প্রশ্ন{rate_bn}। এটি একটি হার, এই উত্তরটি নির্ভুল হওয়ার প্রতিশ্রুতি নয়।",
                f"Among released answers, at most {100 * record.alpha:.0f}% contain an unfaithful quote, with "
                f"probability at least {100 * (1 - record.delta):.0f}% (α = {record.alpha:g}, δ = {record.delta:g}); "
                f"measured on {record.n} labelled questions{rate_en}. It is a rate, not a promise about this answer.")
    return (f"গড়ে, প্রতি প্রশ্নে প্রকাশিত দাবির অবিশ্বস্ত অংশ {_bn_pct(record.alpha)}-এর বেশি নয় (যে প্রশ্নে কিছু প্রকাশিত "
            f"হয় না তা শূন্য ধরা হয়)। পরিমাপ: {_bn(record.n)}টি লেবেল করা প্রশ্ন{rate_bn}। প্রকাশিত উত্তরের মধ্যে "
            "ভুলের হারের নিশ্চয়তা এটি নয়।",
            f"On average over questions, the unfaithful share of released claims is at most "
            f"{100 * record.alpha:.0f}% (CRC, α = {record.alpha:g}; a question that releases nothing counts as 0); "
            f"measured on {record.n} labelled questions{rate_en}. This does not bound the error rate among "
            "released answers.")
