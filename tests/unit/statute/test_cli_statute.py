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


def test_show_section_has_units_notes_and_english(capsys, graph):
    _, out, _ = run(capsys, "statute", "show", "1", "--json")
    p = json.loads(out)
    labels = [u["label"] for u in p["units"]]
    assert labels[0] == "1" and "1(4)(j)(1)" in labels
    assert p["amendment_notes"] and p["english"]["outdated"] is True and p["diff_status"] == "amended"


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
