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
