"""The StatuteGraph: every citable unit of every version, typed edges, alignment and diffs.

Built deterministically from ``data/statute/`` (paper §3.2) and cached as one JSON artefact under
``data/graph/`` keyed by a hash of the input files and the parser sources, so a second start
loads in well under a second and a parser change rebuilds automatically.

Edges (:class:`~labourcrew.statute.model.EdgeType`): ``parent``/``child`` (structure),
``proviso`` (a rule -> its provisos and explanations) and ``cross_ref`` (resolved references,
across chapters, to the most specific existing unit). References that cannot be resolved are kept
in :attr:`StatuteGraph.unresolved` with a reason; references to other statutes are kept as external.
"""

from __future__ import annotations

import difflib
import hashlib
import logging
import re
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import DataError, InputError
from labourcrew.fileio import write_text_atomic
from labourcrew.statute import crossref, english, model, normalize, parse_bn
from labourcrew.statute.ids import BN_TAILS
from labourcrew.statute.model import (
    DEFAULT_VERSION,
    ENGLISH_LABEL,
    ENGLISH_VERSION,
    VERSIONS,
    CrossRef,
    EdgeType,
    EnglishParallel,
    Level,
    SectionDiff,
    Unit,
)
from labourcrew.statute.normalize import to_ascii_digits

# How a sub-section says it is an exception to another one it names: "notwithstanding (2)",
# "(1) does not apply", "nothing in (1)", "other than (3) and (4)", "no order under (5) ... if".
CARVE_OUT = re.compile(r"যাহা কিছুই থাকুক না কেন|প্রযোজ্য হইবে না|কোন কিছুই|ব্যতীত অন্য|(?:যাইবে|হইবে) না,? যদি")
# "অন্য কোন আইনে যাহা কিছুই থাকুক না কেন" (notwithstanding any *other law*) reinforces a rule; it carves nothing out.
_OTHER_LAW = re.compile(r"অন্য কোন আইনে যাহা কিছুই")

__all__ = ["StatuteGraph", "build_graph", "load_graph", "parse_section_query", "SOURCES", "REPO_ROOT", "CARVE_OUT"]

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[2]
# version -> source file (relative to the data dir)
SOURCES: dict[str, str] = {
    "2018": "statute/bn/act-952_bdlaws_2025-11-11.html",
    "2025": "statute/bn/act-952_bdlaws_2026-03-29.html",
    ENGLISH_VERSION: "statute/en/Bangladesh-Labour-Act-2006_English-Upto-2018.txt",
}
_CODE = (parse_bn, crossref, english, normalize, model)
GRAPH_FORMAT = 1


class StatuteGraph(BaseModel):
    """All versions of the Act as citable units with typed edges (paper §3.2)."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(description="Hash of inputs + parser code this graph was built from.")
    units: dict[str, Unit] = Field(description="Every unit of every version, by node id.")
    cross_refs: list[CrossRef] = Field(description="Every extracted reference, resolved or not.")
    english: dict[str, EnglishParallel] = Field(
        default_factory=dict, description="Bangla section node id -> aligned English section."
    )
    diffs: dict[str, SectionDiff] = Field(
        default_factory=dict, description="Section label -> 2018 vs 2025 change."
    )
    anomalies: dict[str, list[str]] = Field(
        default_factory=dict, description="Per version: odd things the parser saw (never fatal)."
    )

    # -- look-ups -------------------------------------------------------------------------
    @cached_property
    def _by_version(self) -> dict[str, list[Unit]]:
        out: dict[str, list[Unit]] = {}
        for u in self.units.values():
            out.setdefault(u.version, []).append(u)
        for v in out.values():
            v.sort(key=lambda u: u.order)
        return out

    @cached_property
    def _citing(self) -> dict[str, list[str]]:
        # Reverse of Unit.cross_refs, each list in document order.
        out: dict[str, list[str]] = {}
        for u in sorted(self.units.values(), key=lambda u: (u.version, u.order)):
            for t in dict.fromkeys(u.cross_refs):
                out.setdefault(t, []).append(u.node_id)
        return out

    def cited_by(self, node_id: str) -> list[str]:
        """Units whose cross-reference covers ``node_id``: those citing it or one of its ancestors
        (a reference to "ধারা ১৯৬খ" covers 196B(1)), nearest first, document order within, each
        once and never the unit itself or its own ancestors. A reference to a whole chapter names a
        title, not a rule: it is not inverted (a chapter's cited_by is []). [] for an unknown node.
        """
        out: list[str] = []
        chain: list[str] = []
        cur = self.units.get(node_id)
        while cur is not None and cur.level != Level.CHAPTER:
            chain.append(cur.node_id)
            cur = self.units.get(cur.parent) if cur.parent else None
        for n in chain:
            out.extend(c for c in self._citing.get(n, ()) if c not in chain)
        return list(dict.fromkeys(out))

    def qualifiers(self, node_id: str) -> list[str]:
        """The units that qualify ``node_id``: first the provisos and explanations of the unit and of
        its ancestors up to and including its section (nearest first, graph order within), then the
        **carve-outs**: units of the same section that refer back to it (:meth:`cited_by`) in the
        words of an exception (:data:`CARVE_OUT`: "উপ-ধারা (২) এ যাহা কিছুই থাকুক না কেন", "... এর
        বিধান প্রযোজ্য হইবে না", "... কোন নির্দেশ দেওয়া যাইবে না, যদি"). The Act states an exception
        either way: 115 -> [115.proviso1]; 20(2)(a) -> [20(3)]; 132(5) -> [132(6)]. Never the unit
        itself; [] for an unknown node.

        The one rule behind the qualifiers a quote carries and those the opinion weighs.
        """
        out: list[str] = []
        unit = cur = self.units.get(node_id)
        while cur is not None and cur.level != Level.CHAPTER:
            out.extend(p for p in cur.provisos if p != node_id)
            if cur.level == Level.SECTION or not cur.parent:
                break
            cur = self.units.get(cur.parent)
        if unit is not None and unit.level not in (Level.PROVISO, Level.EXPLANATION):
            for c in self.cited_by(node_id):
                other = self.units[c]
                if (other.section == unit.section and other.level not in (Level.PROVISO, Level.EXPLANATION)
                        and CARVE_OUT.search(other.text) and not _OTHER_LAW.search(other.text)):
                    out.append(c)
        return list(dict.fromkeys(o for o in out if o != node_id))

    @property
    def unresolved(self) -> list[CrossRef]:
        """In-Act references that did not resolve (external references are not counted)."""
        return [r for r in self.cross_refs if r.target is None and not r.external]

    def version_units(self, version: str) -> list[Unit]:
        """Units of one version in document order. Raises InputError for an unknown version."""
        check_version(version)
        return self._by_version.get(version, [])

    def get(self, node_id: str) -> Unit:
        """The unit with this id. Raises InputError when it does not exist."""
        try:
            return self.units[node_id]
        except KeyError:
            raise InputError(f"unknown node id {node_id!r}") from None

    def find_section(self, version: str, query: str) -> Unit | None:
        """Find a unit by its exact ASCII label at any level -- '211(1).proviso1', '26(2)(b).para1', as
        ``statute show`` prints and claims cite them -- or by a section reference the parser reads:
        '27', '২৭', '27(3A)', '২৭(৩ক)', 'ধারা ২৭'. None when neither names a unit of ``version``.

        Raises:
            InputError: unknown version.
        """
        check_version(version)
        exact = self.units.get(f"{version}:{query.strip()}")
        if exact is not None:
            return exact
        label = parse_section_query(query)
        if label is None:
            return None
        return self.units.get(f"{version}:{label}")

    def neighbours(self, node_id: str, edge_types: set[EdgeType] | None = None) -> list[tuple[EdgeType, str]]:
        """Typed out-edges of a node, in a deterministic order.

        Args:
            node_id: the source node.
            edge_types: which edge types to follow (when None, every edge the Act states:
                ``cited_by``, the inverse of ``cross_ref``, only when asked for).

        Returns:
            ``(edge type, target node id)`` pairs.
        """
        u = self.get(node_id)
        allowed = edge_types or set(EdgeType) - {EdgeType.CITED_BY}
        out: list[tuple[EdgeType, str]] = []
        if EdgeType.PARENT in allowed and u.parent:
            out.append((EdgeType.PARENT, u.parent))
        if EdgeType.CHILD in allowed:
            out.extend((EdgeType.CHILD, c) for c in u.children if c not in u.provisos)
        if EdgeType.PROVISO in allowed:
            out.extend((EdgeType.PROVISO, p) for p in u.provisos)
        if EdgeType.CROSS_REF in allowed:
            out.extend((EdgeType.CROSS_REF, t) for t in u.cross_refs)
        if EdgeType.CITED_BY in allowed:
            out.extend((EdgeType.CITED_BY, c) for c in self.cited_by(node_id))
        return out

    def descendants(self, node_id: str) -> list[Unit]:
        """The unit's descendants in document order (not including itself)."""
        out: list[Unit] = []
        stack = list(reversed(self.get(node_id).children))
        while stack:
            u = self.units[stack.pop()]
            out.append(u)
            stack.extend(reversed(u.children))
        return out

    def clauses(self, node_id: str) -> list[str]:
        """The units that complete a **lead-in**, in document order; [] for any other unit.

        A lead-in is a unit with text of its own whose sub-units (clauses, sub-clauses and their
        paragraphs; not its provisos or explanations, nor anything under those) finish its sentence:
        26(1) «… মালিক-» is completed by 26(1)(a), 26(1)(b) and 26(1)(b).para1 («লিখিত নোটিশ প্রদান
        করিয়া … অবসান করিতে পারিবেন»); 23(4) «… যথাঃ-» by its list of misconduct. Read alone, a lead-in
        says nothing ("… the employer-"), and neither does a clause («(ক) অপসারণ;»). A section made
        only of sub-sections has no text of its own and is not a lead-in; a chapter (a title) is not
        one either. [] for an unknown node.
        """
        memo = self._clause_lists
        if node_id not in memo:  # lead_ins asks for every ancestor's list, closest provisions for each entry's
            memo[node_id] = self._walk_clauses(node_id)
        return list(memo[node_id])

    @cached_property
    def _clause_lists(self) -> dict[str, list[str]]:
        return {}

    def _walk_clauses(self, node_id: str) -> list[str]:
        unit = self.units.get(node_id)
        if unit is None or unit.level == Level.CHAPTER or not unit.text.strip():
            return []
        out: list[str] = []
        stack = list(reversed(unit.children))
        while stack:
            child = self.units.get(stack.pop())
            if child is None or child.level in (Level.PROVISO, Level.EXPLANATION):
                continue
            if child.text.strip():
                out.append(child.node_id)
            stack.extend(reversed(child.children))
        return out

    def lead_ins(self, node_id: str) -> list[str]:
        """The lead-ins whose :meth:`clauses` include ``node_id``, nearest first: 26(1)(b).para1 ->
        [26(1)(b), 26(1)]; 2(45)(c) -> [2(45), 2] (section 2 «… এই আইনে-» leads into every definition).
        [] for a unit that completes no lead-in, a proviso's own rule, or an unknown node.
        """
        out: list[str] = []
        for a in self.ancestors(node_id) if node_id in self.units else []:
            if node_id not in self.clauses(a.node_id):
                break
            out.append(a.node_id)
        return out

    def section_text(self, node_id: str) -> str:
        """The unit's own text followed by all its descendants' texts, space-joined."""
        u = self.get(node_id)
        return " ".join(t for t in [u.text, *(d.text for d in self.descendants(node_id))] if t)

    def ancestors(self, node_id: str) -> list[Unit]:
        """Parents from the nearest up to the chapter."""
        out = []
        u = self.get(node_id)
        while u.parent:
            u = self.units[u.parent]
            out.append(u)
        return out

    def context_text(self, node_id: str) -> str:
        """Text to embed for a unit: section title, ancestors' lead text, then the unit's text."""
        u = self.get(node_id)
        parts: list[str] = []
        for a in reversed(self.ancestors(node_id)):
            if a.level == Level.SECTION:
                parts.append(a.title or "")
                parts.append(a.text)
            elif a.level != Level.CHAPTER:
                parts.append(a.text)
        if u.level == Level.SECTION:
            parts.append(u.title or "")
        parts.append(u.text)
        return " ".join(p for p in parts if p)

    def section_context(self, node_id: str) -> str:
        """Title and full text of the section a node lies in ("" for an unknown node).

        The Trust Gate's coverage check reads this text (a claim covers the question's issue when
        its section, not only the quoted clause, speaks of it).
        """
        unit = self.units.get(node_id)
        if unit is None:
            return ""
        sec = self.section_of(node_id)
        if sec is None:
            return unit.text
        return f"{sec.title or ''} {self.section_text(sec.node_id)}"

    def section_of(self, node_id: str) -> Unit | None:
        """The section unit a node belongs to (itself if a section; None for chapters)."""
        u = self.get(node_id)
        if u.section is None:
            return None
        return self.units.get(f"{u.version}:{u.section}")

    def english_counterpart(self, node_id: str) -> str | None:
        """Node id of the unofficial English unit that translates ``node_id``, or None.

        The unit of the same label in ``en-2018`` when it exists and has text (``2025:27(3A)`` ->
        ``en-2018:27(3A)``; both parsers use the Act's ASCII labels), else the English section aligned
        to the unit's section (:attr:`english`, section-level), else None (a chapter, or a section the
        2018 translation lacks). An English unit is its own counterpart. Outdated parallels (the 2025
        text differs) are returned too: the caller reads them as evidence of topic, not of the law.

        Raises:
            InputError: unknown node id (see :meth:`get`).
        """
        u = self.get(node_id)
        if u.version == ENGLISH_VERSION:
            return node_id
        same = self.units.get(f"{ENGLISH_VERSION}:{u.label}")
        if same is not None and same.text and not same.omitted:
            return same.node_id
        sec = self.section_of(node_id)
        par = self.english.get(sec.node_id) if sec is not None else None
        return par.node_id if par is not None else None

    def stats(self, version: str) -> dict:
        """Counts for ``statute stats`` (issue contract)."""
        units = self.version_units(version)
        secs = [u for u in units if u.level == Level.SECTION]
        refs = [r for r in self.cross_refs if r.source.startswith(f"{version}:")]
        in_act = [r for r in refs if not r.external]
        return {
            "version": version,
            "chapters": sum(u.level == Level.CHAPTER for u in units),
            "sections": len({u.label for u in secs if not u.omitted}),
            "sections_omitted": [u.label for u in secs if u.omitted],
            "lettered_sections": [u.label for u in secs if not u.label.isdigit()],
            "provisos": sum(u.level == Level.PROVISO for u in units),
            "explanations": sum(u.level == Level.EXPLANATION for u in units),
            "units": len(units),
            "units_by_level": {lv.value: sum(u.level == lv for u in units) for lv in Level},
            "cross_refs": len(in_act),
            "cross_refs_resolved": sum(r.target is not None for r in in_act),
            "cross_refs_unresolved": sum(r.target is None for r in in_act),
            "cross_refs_external": len(refs) - len(in_act),
            "english_aligned_sections": sum(1 for k in self.english if k.startswith(f"{version}:")),
            "anomalies": len(self.anomalies.get(version, [])),
        }


# --------------------------------------------------------------------------------------------
# queries and versions

_BN_LETTERS = parse_bn.BN_CONSONANTS


def check_version(version: str) -> str:
    """Return ``version`` if known, else raise InputError listing the known ones."""
    if version not in VERSIONS:
        raise InputError(f"unknown statute version {version!r}; known: {', '.join(VERSIONS)}")
    return version


# The tails citation_label_bn writes after a label ("ধারা ১১৫-এর শর্তাংশ"): what the app shows can be searched.
_BN_TAILS = {bn: f".{kind}1" for kind, bn in BN_TAILS.items()}
_QUERY = re.compile(
    rf"^\s*(?:ধারা|section|sec\.?|s\.)?\s*([0-9০-৯]+)\s*([A-Za-z{_BN_LETTERS}]?)\s*((?:\(\s*[0-9০-৯]+\s*[A-Za-z{_BN_LETTERS}]?\s*\))?(?:\(\s*[a-z{_BN_LETTERS}]{{1,3}}\s*\))?)\s*(?:ধারা)?"
    rf"\s*(?:-?\s*এর\s*({'|'.join(_BN_TAILS)}))?\s*$",
    re.IGNORECASE,
)


def parse_section_query(query: str) -> str | None:
    """Turn a section reference typed by a person into an ASCII label, or None.

    '27' -> '27'; '২৭' -> '27'; '27(3A)' / '২৭(৩ক)' -> '27(3A)'; '2(10)(b)' / '২(১০)(খ)' -> '2(10)(b)';
    'ধারা ২৭', 'section 27', '২৭ ধারা' -> '27'; '345c' -> '345C'; and the citations the app shows
    (:func:`~labourcrew.statute.ids.citation_label_bn`): 'ধারা ১১৫-এর শর্তাংশ' -> '115.proviso1',
    '২(১০)-এর ব্যাখ্যা' -> '2(10).explanation1', '২৬(২)(খ)-এর পরের অনুচ্ছেদ' -> '26(2)(b).para1' (the first
    one: the citation does not number them).
    """
    q = normalize.collapse_ws(__import__("unicodedata").normalize("NFC", query or ""))
    m = _QUERY.match(q)
    if not m:
        return None
    label = str(int(to_ascii_digits(m.group(1))))
    suf = m.group(2)
    if suf:
        label += parse_bn.romanize_suffix(suf) if suf in _BN_LETTERS else suf.upper()
    rest = m.group(3) or ""
    for part in re.findall(r"\(([^)]*)\)", rest):
        part = re.sub(r"\s+", "", part)
        mm = re.match(rf"^([0-9০-৯]+)([A-Za-z{_BN_LETTERS}]?)$", part)
        if mm:
            s = mm.group(2)
            s = parse_bn.romanize_suffix(s) if s in _BN_LETTERS and s else s.upper()
            label += f"({int(to_ascii_digits(mm.group(1)))}{s})"
        elif all(c in _BN_LETTERS for c in part):
            label += f"({parse_bn.clause_letter(part)})"
        else:
            label += f"({part.lower()})"
    tail = m.group(4)
    if tail:
        label += _BN_TAILS[normalize.collapse_ws(tail)]
    return label


# --------------------------------------------------------------------------------------------
# building


def _input_key(data_dir: Path) -> str:
    h = hashlib.sha256(f"graph-format-{GRAPH_FORMAT}".encode())
    for rel in sorted(SOURCES.values()):
        p = data_dir / rel
        if not p.exists():
            raise DataError(f"statute source missing: {p}")
        h.update(rel.encode())
        h.update(hashlib.sha256(p.read_bytes()).digest())
    for mod in _CODE:
        h.update(Path(mod.__file__).read_bytes())
    return h.hexdigest()[:16]


def _resolve(units: dict[str, Unit], version: str, ref: CrossRef) -> CrossRef:
    """Resolve ``ref.target_label`` to the most specific existing unit of ``version``."""
    if ref.external or not ref.target_label:
        return ref
    label = ref.target_label
    if f"{version}:{label}" in units:
        return ref.model_copy(update={"target": f"{version}:{label}", "exact": True})
    # Fall back to the nearest existing ancestor label: 27(3)(b) -> 27(3) -> 27.
    parts = re.findall(r"\([^)]*\)|\.[a-z]+\d+", label)
    base = label[: len(label) - sum(len(p) for p in parts)] if parts else label
    while parts:
        parts.pop()
        cand = base + "".join(parts)
        if f"{version}:{cand}" in units:
            return ref.model_copy(update={"target": f"{version}:{cand}", "exact": False,
                                          "reason": f"{label} not found; resolved to enclosing {cand}"})
    if label.startswith("ch"):
        reason = f"chapter {label[2:]} does not exist in version {version}"
    else:
        reason = f"section {base} does not exist in version {version}"
    return ref.model_copy(update={"target": None, "reason": reason})


def _section_lines(graph_units: list[Unit], section: str) -> list[str]:
    return [u.text for u in graph_units if u.section == section and u.text]


def _diffs(units: dict[str, Unit], by_version: dict[str, list[Unit]]) -> dict[str, SectionDiff]:
    old = {u.label: u for u in by_version["2018"] if u.level == Level.SECTION}
    new = {u.label: u for u in by_version["2025"] if u.level == Level.SECTION}
    old_lines: dict[str, list[str]] = {}
    new_lines: dict[str, list[str]] = {}
    for u in by_version["2018"]:
        if u.section and u.text:
            old_lines.setdefault(u.section, []).append(u.text)
    for u in by_version["2025"]:
        if u.section and u.text:
            new_lines.setdefault(u.section, []).append(u.text)
    out: dict[str, SectionDiff] = {}
    for label in sorted(set(old) | set(new), key=_label_sort_key):
        o, n = old.get(label), new.get(label)
        a = ([o.title or ""] + old_lines.get(label, [])) if o else []
        b = ([n.title or ""] + new_lines.get(label, [])) if n else []
        notes = []
        if n:
            notes = [note for u in by_version["2025"] if u.section == label for note in u.notes
                     if note.year == 2025]
        if o is None or o.omitted:
            status = "inserted" if n and not n.omitted else "unchanged"
        elif n is None or n.omitted:
            status = "omitted"
        elif [normalize.normalize(x) for x in a] == [normalize.normalize(x) for x in b]:
            status = "unchanged"
        else:
            status = "amended"
        diff = "" if status == "unchanged" else "\n".join(
            difflib.unified_diff(a, b, fromfile=f"2018:{label}", tofile=f"2025:{label}", lineterm="", n=1)
        )
        out[label] = SectionDiff(section=label, status=status, diff=diff, notes_2025=notes)  # type: ignore[arg-type]
    return out


def _label_sort_key(label: str) -> tuple[int, str]:
    m = re.match(r"(\d+)(.*)", label)
    return (int(m.group(1)), m.group(2)) if m else (10**6, label)


def build_graph(data_dir: Path | None = None) -> StatuteGraph:
    """Parse every source and build the StatuteGraph (no cache). About 3 s on 2 cores.

    Raises:
        DataError: a source file is missing or unparseable.
    """
    data_dir = Path(data_dir or REPO_ROOT / "data")
    key = _input_key(data_dir)
    units: dict[str, Unit] = {}
    anomalies: dict[str, list[str]] = {}
    by_version: dict[str, list[Unit]] = {}
    for version in ("2018", "2025"):
        parsed = parse_bn.parse_bangla(data_dir / SOURCES[version], version)
        by_version[version] = parsed.units
        anomalies[version] = parsed.anomalies
    en = english.parse_english(data_dir / SOURCES[ENGLISH_VERSION])
    by_version[ENGLISH_VERSION] = en.units
    anomalies[ENGLISH_VERSION] = list(en.anomalies)
    for vs in by_version.values():
        for u in vs:
            units[u.node_id] = u

    refs: list[CrossRef] = []
    for version in ("2018", "2025"):
        labels = {u.label for u in by_version[version]}
        for u in by_version[version]:
            refs.extend(crossref.extract_bangla_refs(u, labels.__contains__))
    refs.extend(en.refs)
    resolved: list[CrossRef] = []
    for r in refs:
        version = r.source.split(":", 1)[0]
        rr = _resolve(units, version, r)
        resolved.append(rr)
        if rr.target and rr.target != r.source:
            src = units[r.source]
            if rr.target not in src.cross_refs:
                src.cross_refs.append(rr.target)

    diffs = _diffs(units, by_version)
    english_map: dict[str, EnglishParallel] = {}
    en_sections = {u.label: u for u in by_version[ENGLISH_VERSION] if u.level == Level.SECTION}
    tmp = StatuteGraph(key=key, units=units, cross_refs=resolved)
    for version in ("2018", "2025"):
        for u in by_version[version]:
            if u.level != Level.SECTION or u.label not in en_sections:
                continue
            e = en_sections[u.label]
            outdated = version == "2025" and diffs.get(u.label) is not None and diffs[u.label].status != "unchanged"
            english_map[u.node_id] = EnglishParallel(
                node_id=e.node_id,
                text=" ".join(x for x in [e.title or "", tmp.section_text(e.node_id)] if x),
                label=ENGLISH_LABEL + ("; outdated: the 2025 text of this section differs" if outdated else ""),
                outdated=outdated,
            )
    return StatuteGraph(key=key, units=units, cross_refs=resolved, english=english_map, diffs=diffs,
                        anomalies=anomalies)


_CACHE: dict[str, StatuteGraph] = {}


def load_graph(data_dir: Path | None = None, cache_dir: Path | None = None) -> StatuteGraph:
    """Load the StatuteGraph from its JSON cache, building (and caching) it when stale or missing.

    Args:
        data_dir: folder holding ``statute/`` (default: the repo's ``data/``).
        cache_dir: where the JSON artefact lives (default: ``<data_dir>/graph``).

    Returns:
        The graph; the same object is returned for repeated calls in one process.
    """
    data_dir = Path(data_dir or REPO_ROOT / "data")
    key = _input_key(data_dir)
    if key in _CACHE:
        return _CACHE[key]
    cache_dir = Path(cache_dir or data_dir / "graph")
    path = cache_dir / f"statute_graph_{key}.json"
    graph: StatuteGraph | None = None
    if path.exists():
        try:
            graph = StatuteGraph.model_validate_json(path.read_bytes())
        except ValueError as exc:  # a damaged cache is rebuilt, never trusted
            log.warning("statute graph cache %s unreadable (%s); rebuilding", path, exc)
    if graph is None:
        log.info("building the StatuteGraph (key %s)", key)
        graph = build_graph(data_dir)
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            for old in cache_dir.glob("statute_graph_*.json"):
                old.unlink(missing_ok=True)
            write_text_atomic(path, graph.model_dump_json())
        except OSError as exc:  # read-only checkout: keep going without a cache
            log.warning("cannot write statute graph cache in %s: %s", cache_dir, exc)
    _CACHE[key] = graph
    return graph


__all__ += ["check_version", "DEFAULT_VERSION"]
