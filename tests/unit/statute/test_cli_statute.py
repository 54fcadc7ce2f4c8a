"""The `python -m labourcrew statute ...` contract (issue: command-line contract)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from labourcrew.cli import main
from labourcrew.graph.statute_graph import REPO_ROOT


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_stats_json(capsys, graph):
    code, out, _ = run(capsys, "statute", "stats", "--version", "2025", "--json")
    s = json.loads(out)
    assert code == 0
    for key in ("chapters", "sections", "lettered_sections", "provisos", "explanations", "units", "cross_refs",
                "cross_refs_unresolved", "english_aligned_sections"):
        assert key in s
    assert s["chapters"] == 21 and s["provisos"] == 105 and s["explanations"] == 14
    assert "345C" in s["lettered_sections"] and s["english_aligned_sections"] >= 340


@pytest.mark.parametrize("query", ["27", "২৭", "27(3A)", "২৭(৩ক)"])
def test_show_accepts_bangla_and_ascii(capsys, graph, query):
    code, out, _ = run(capsys, "statute", "show", query, "--version", "2025", "--json")
    p = json.loads(out)
    assert code == 0 and p["section"] == "27"
    assert p["units"] and p["text"] and "diff_status" in p and "english" in p and "edges" in p


@pytest.mark.parametrize("label", ["211(1).proviso1", "298(1).explanation1", "152(2)(c).para1", "27(4)(b)"])
def test_show_takes_every_label_it_prints(capsys, graph, label):
    """Each [label] ``statute show 211`` prints can be shown on its own (provisos, explanations and
    paragraphs too, which the section parser does not read), and the dashboard's section view finds
    the same unit: both go through StatuteGraph.find_section."""
    from labourcrew.viz.statute import section_view

    section = label.split("(")[0].split(".")[0]
    _, whole, _ = run(capsys, "statute", "show", section, "--json")
    assert label in [u["label"] for u in json.loads(whole)["units"]]
    code, out, _ = run(capsys, "statute", "show", label, "--json")
    p = json.loads(out)
    assert code == 0 and p["node_id"] == f"2025:{label}" == section_view(graph, "2025", label).node_id
    assert p["units"][0]["text"] == graph.units[f"2025:{label}"].text and p["section"] == section


def test_show_section_has_units_notes_and_english(capsys, graph):
    _, out, _ = run(capsys, "statute", "show", "1", "--json")
    p = json.loads(out)
    labels = [u["label"] for u in p["units"]]
    assert labels[0] == "1" and "1(4)(j)(1)" in labels
    assert p["amendment_notes"] and p["english"]["outdated"] is True and p["diff_status"] == "amended"


def test_the_english_text_has_no_2018_to_2025_diff_line(capsys, graph):
    _, out, _ = run(capsys, "statute", "show", "27", "--version", "en-2018")
    assert out.startswith("en-2018:27") and "diff 2018->2025" not in out
    _, out, _ = run(capsys, "statute", "show", "27")
    assert "diff 2018->2025: amended" in out


def test_diff_json(capsys, graph):
    code, out, _ = run(capsys, "statute", "diff", "27", "--json")
    d = json.loads(out)
    assert code == 0 and d["section"] == "27" and d["status"] in {"amended", "unchanged"}


@pytest.mark.parametrize(
    "argv",
    [
        ["statute", "show", "999"],
        ["statute", "show", "garbage!!"],
        ["statute", "show", "27", "--version", "1999"],
        ["statute", "stats", "--version", "nope"],
        ["statute", "diff", "৪০০"],
        ["statute", "show", ""],
        ["statute", "show", "   "],
    ],
)
def test_bad_input_exit_2_one_line(capsys, graph, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.strip().count("\n") == 0 and "Traceback" not in err and "\u0980" <= err[0] <= "\u09ff" and " — " in err


def test_module_entry_point_bad_input_no_traceback():
    r = subprocess.run([sys.executable, "-m", "labourcrew", "statute", "show", "xyz"], cwd=REPO_ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "labourcrew", "nonsense"], cwd=REPO_ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
