"""The app starts and renders the statute browser (AppTest, offline)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from labourcrew.graph.statute_graph import REPO_ROOT


def test_app_renders_section_27():
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception
    assert any("ধারা ২৭" in s.value for s in at.subheader)
    assert any("(১) কোন স্থায়ী শ্রমিক" in m.value for m in at.markdown)


def test_unknown_section_shows_a_message_not_a_traceback():
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=120).run()
    at.text_input(key="sb_query").input("৯৯৯").run()
    assert not at.exception
    assert at.warning and "পাওয়া যায়নি" in at.warning[0].value
