"""The architecture holds: layers contract, no import cycles (lazy imports count), env vars read in
settings only, settings hash covers every tunable, one implementation of the shared rules."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from labourcrew.settings import REPO_ROOT, load_settings

PKG = REPO_ROOT / "labourcrew"


def _package_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "labourcrew" and len(parts) > 1 else None


def _imports() -> dict[str, set[str]]:
    """Package -> packages it imports, counting imports inside functions (lazy imports)."""
    edges: dict[str, set[str]] = defaultdict(set)
    for f in PKG.rglob("*.py"):
        rel = f.relative_to(REPO_ROOT).with_suffix("")
        mod = ".".join(rel.parts).removesuffix(".__init__")
        src = _package_of(mod)
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = mod.split(".")
                if node.level:
                    base = base[: len(base) - node.level + (f.name == "__init__.py")]
                    targets = [".".join(base + ([node.module] if node.module else []))]
                else:
                    targets = [node.module or ""]
            else:
                continue
            for t in targets:
                dst = _package_of(t)
                if src and dst and dst != src:
                    edges[src].add(dst)
    return edges


def test_no_import_cycle_between_packages():
    edges = _imports()
    assert edges, "the scan found no imports"
    two_way = sorted((a, b) for a in edges for b in edges[a] if a < b and a in edges.get(b, ()))
    assert two_way == []
    # and no longer cycle: a topological order exists
    seen: dict[str, int] = {}

    def visit(n: str, path: tuple[str, ...]) -> None:
        if seen.get(n) == 2:
            return
        assert seen.get(n) != 1, f"import cycle: {' -> '.join(path + (n,))}"
        seen[n] = 1
        for m in sorted(edges.get(n, ())):
            visit(m, path + (n,))
        seen[n] = 2

    for n in sorted(edges):
        visit(n, ())


def test_the_scan_sees_a_cycle_when_there_is_one(monkeypatch):
    # The cycle check can fail: a fake two-way import is reported.
    edges = _imports()
    edges["ledger"].add("board")
    assert ("board", "ledger") in [(a, b) for a in edges for b in edges[a] if a < b and a in edges.get(b, ())]


@pytest.mark.skipif(shutil.which("lint-imports", path=str(Path(sys.executable).parent)) is None,
                    reason="import-linter is not installed in this environment")
def test_import_linter_layers_contract_is_kept():
    exe = Path(sys.executable).parent / "lint-imports"
    out = subprocess.run([str(exe)], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout


def test_environment_variables_are_read_only_in_settings():
    offenders = []
    for f in [*PKG.rglob("*.py"), *(REPO_ROOT / "pages").glob("*.py"), REPO_ROOT / "app.py"]:
        if f == PKG / "settings.py":
            continue
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv"} and \
                    isinstance(node.value, ast.Name) and node.value.id == "os":
                offenders.append(f"{f.relative_to(REPO_ROOT)}:{node.lineno}")
    assert offenders == []


@pytest.mark.parametrize("group,field,value", [
    ("offline", "w_prior", 0.5),
    ("trust", "w_citation", 0.2),
    ("board", "max_deliberation_rounds", 3),
    ("retrieval", "pack_cap", 12),
    ("relevance", "rerank_depth", 20),
])
def test_settings_hash_covers_every_tunable(group, field, value):
    base = load_settings()
    changed = load_settings(**{group: {field: value}})
    assert getattr(getattr(changed, group), field) == value
    assert changed.hash() != base.hash()


def test_no_second_atomic_writer():
    # One atomic-write helper (labourcrew.fileio): nobody else calls mkstemp or os.replace.
    offenders = [
        str(f.relative_to(REPO_ROOT)) for f in PKG.rglob("*.py")
        if f.name != "fileio.py" and ("mkstemp(" in (t := f.read_text(encoding="utf-8")) or "os.replace(" in t)
    ]
    assert offenders == []


def test_llm_package_holds_model_adapters_only():
    names = {p.stem for p in (PKG / "llm").glob("*.py")}
    assert "offline" not in names and "backend" not in names and "faults" not in names
    # nothing imports stopwords or labels from a backend module
    for f in PKG.rglob("*.py"):
        text = f.read_text(encoding="utf-8")
        assert "extractive import QUESTION_STOPWORDS" not in text and "extractive import citation_label_bn" not in text
