"""asked_units: the unit a question asks an amount in (the short answer must be in it)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("question", "units"), [
    ("মাতৃত্বকালীন ছুটি কয়দিন পাবো?", {"day"}),            # fused with the question word
    ("চাকরি ছাড়তে কত দিনের নোটিশ দিতে হবে?", {"day"}),      # inflected unit
    ("casual leave koto din?", {"day"}),                   # romanised
    ("How many hours can an adult work in a day?", {"hour"}),
    ("কত মাস চাকরি করলে মাতৃত্বকালীন সুবিধা পাওয়া যায়?", {"month"}),
    ("ওভারটাইম কাজের জন্য কত হারে মজুরি পাওয়া যায়?", set()),  # a rate: no unit named
    ("overtime er rate koto? double naki?", set()),
])
def test_asked_units_reads_the_unit_a_question_asks_an_amount_in(question, units):
    from labourcrew.audit.skeptic import asked_units

    assert asked_units(question) == units


TEMP_NOTICE = "অস্থায়ী শ্রমিক চাকরি ছাড়তে কত দিনের নোটিশ দিবে?"


def test_a_quote_that_states_no_asked_amount_of_time_does_not_answer(graph):
    """27(2)'s closing words state no days; its clauses do (ত্রিশ দিনের, চৌদ্দ দিনের, as number words)."""
    from labourcrew.audit.skeptic import states_asked_amount

    tail = graph.units["2025:27(2)(b).para1"].text
    clauses = [graph.units["2025:27(2)(a)"].text, graph.units["2025:27(2)(b)"].text]
    assert states_asked_amount(TEMP_NOTICE, [tail]) is False
    assert states_asked_amount(TEMP_NOTICE, [tail, *clauses]) is True
    # a working day counts as a day; 46(1)'s «[৬০ (ষাট) দিন]» answers «কয়দিন»
    assert states_asked_amount("মাতৃত্বকালীন ছুটি কয়দিন পাবো?", [graph.units["2025:46(1)"].text]) is True
    assert states_asked_amount("মাতৃত্বকালীন ছুটি কয়দিন পাবো?", ["সাত কর্মদিবসের মধ্যে"]) is True


@pytest.mark.parametrize("question", [
    "ওভারটাইম কাজের জন্য কত হারে মজুরি পাওয়া যায়?",     # no unit asked
    "লে-অফ ৪৫ দিনের বেশি চললে কত টাকা ক্ষতিপূরণ পাবো?",   # money: the Act answers with a rate, not taka
    "নৈমিত্তিক ছুটি কত দিন? আর অসুস্থতা ছুটি কত দিন?",     # two parts: a quote may answer the other one
])
def test_the_rule_does_not_apply(question):
    from labourcrew.audit.skeptic import states_asked_amount

    assert states_asked_amount(question, ["লিখিত নোটিশ মালিকের নিকট প্রদান করিয়া"]) is None
