"""StatuteGraph.english_counterpart: the unofficial English unit a Bangla unit's relevance features read."""

from __future__ import annotations

import pytest

from labourcrew.errors import InputError


def test_a_sub_unit_maps_to_the_english_unit_of_the_same_label(graph):
    en = graph.english_counterpart("2025:27(3A)")
    assert en == "en-2018:27(3A)"
    assert "resign" in graph.units[en].text.lower() or "absent" in graph.units[en].text.lower()
    assert graph.english_counterpart("2018:115") == "en-2018:115"
    assert "casual leave" in graph.context_text(graph.english_counterpart("2025:115")).lower()


def test_a_unit_without_an_english_label_falls_back_to_its_aligned_section(graph):
    # every Bangla unit whose own label the translation lacks gets its section's English, when aligned
    bn = [u for u in graph.version_units("2025") if u.text and u.section and f"en-2018:{u.label}" not in graph.units]
    with_section = [u for u in bn if f"2025:{u.section}" in graph.english]
    assert with_section, "the 2025 text has sub-units the 2018 translation does not number"
    for u in with_section[:50]:
        assert graph.english_counterpart(u.node_id) == graph.english[f"2025:{u.section}"].node_id


def test_units_the_translation_lacks_have_none_and_english_units_are_their_own(graph):
    # a section inserted in 2025 (348B, the national social dialogue forum) has no 2018 translation
    assert "2025:348B" in graph.units and "en-2018:348B" not in graph.units
    assert graph.english_counterpart("2025:348B") is None
    assert graph.english_counterpart("en-2018:27(1)") == "en-2018:27(1)"
    with pytest.raises(InputError):
        graph.english_counterpart("2025:9999")
