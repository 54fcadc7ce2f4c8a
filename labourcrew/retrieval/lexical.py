r"""BM25 lexical retrieval over units' ``text_norm`` (paper §3.3), Bangla- and English-aware.

Tokens of a text (after :func:`~labourcrew.statute.normalize.normalize`):

1. **words** -- maximal runs of letters, digits and combining marks. Python's ``\\w`` does not
   match Bangla vowel signs or the hasanta (categories Mn/Mc), which would split ``মজুরি`` into
   pieces, so the marks are added to the word class explicitly;
2. **character 3-grams** of every word longer than 3 code points, with ``#`` boundary markers
   (``#মজুরি#`` -> ``#মজ``, ``মজু``, ``জুর``, ``ুরি``, ``রি#``): Bangla inflects by suffix
   (``মজুরি``, ``মজুরির``, ``মজুরিতে``), which whole-word matching misses.

Before both, a *matching fold* unifies the long and short i/u vowel signs (``ী``->``ি``,
``ূ``->``ু``): the Act and its readers spell the same word both ways (``মজুরী``/``মজুরি``).
The fold is for matching only; cited text stays verbatim.

Scoring is bm25s (Lucene BM25, k1=1.2, b=0.75). Building over ~3,000 units takes well under a
second, so callers may simply rebuild at start; :meth:`LexicalIndex.save`/``load`` exist too.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import numpy as np

from labourcrew.errors import DataError, InputError
from labourcrew.fileio import write_json_atomic
from labourcrew.statute.normalize import normalize

__all__ = ["tokenize", "words_of", "QUESTION_STOPWORDS", "LexicalIndex", "TOKENIZER_VERSION"]

logger = logging.getLogger(__name__)

TOKENIZER_VERSION = "words+char3-fold1"  # bump when tokenize() changes: saved indexes then rebuild

# Letters/digits ([^\W_]) plus the Bangla combining marks \w misses: candrabindu, anusvara,
# visarga, nukta, vowel signs, hasanta, au length mark, vocalic vowel signs, sandhi mark; plus
# generic combining diacritics for Latin text.
_MARKS = "\u0981-\u0983\u09bc\u09be-\u09c4\u09c7\u09c8\u09cb-\u09cd\u09d7\u09e2\u09e3\u09fe\u0300-\u036f"
_WORD = re.compile(f"(?:[^\\W_]|[{_MARKS}])+")
_FOLD = str.maketrans({"\u09c0": "\u09bf", "\u09c2": "\u09c1"})  # ী->ি, ূ->ু


def _bm25s() -> ModuleType:
    """Import bm25s (lazily: ~0.2 s) and quieten it.

    bm25s sets its ``bm25s`` logger to DEBUG at import, so any entry point with a logging handler
    printed "Building index from tokens" on every build; WARNING keeps its real problems visible.
    """
    import bm25s

    for name in ("bm25s", "bm25s.utils.benchmark"):
        logging.getLogger(name).setLevel(logging.WARNING)
    return bm25s


def tokenize(text: str, *, ngram: int = 3, assume_normalized: bool = False) -> list[str]:
    """Words plus boundary-marked character n-grams of ``text``.

    Args:
        text: any Bangla/English text.
        ngram: n-gram length; words longer than ``ngram`` code points get n-grams.
        assume_normalized: skip :func:`normalize` (for ``text_norm`` already normalised).

    Returns:
        Tokens in text order: each word, then that word's n-grams.
    """
    t = text if assume_normalized else normalize(text)
    tokens: list[str] = []
    for word in _WORD.findall(t.translate(_FOLD)):
        tokens.append(word)
        if len(word) > ngram:
            padded = f"#{word}#"
            tokens.extend(padded[i : i + ngram] for i in range(len(padded) - ngram + 1))
    return tokens


class LexicalIndex:
    """BM25 index of units: ``build`` from ids and normalised texts, then ``search``.

    Args:
        k1, b: BM25 parameters (Lucene variant).
    """

    def __init__(self, *, k1: float = 1.2, b: float = 0.75):
        self.k1 = k1
        self.b = b
        self.node_ids: list[str] = []
        self.content_hash = ""
        self._bm25 = None

    @staticmethod
    def hash_corpus(node_ids: Sequence[str], texts_norm: Sequence[str]) -> str:
        """sha256 over the tokenizer version, ids and texts: equal hash, equal index."""
        h = hashlib.sha256(TOKENIZER_VERSION.encode())
        for n, t in zip(node_ids, texts_norm):
            h.update(b"\1" + n.encode() + b"\0" + t.encode())
        return h.hexdigest()

    @classmethod
    def build(cls, node_ids: Sequence[str], texts_norm: Sequence[str], *, k1: float = 1.2, b: float = 0.75) -> LexicalIndex:
        """Index ``texts_norm[i]`` under ``node_ids[i]``.

        Args:
            node_ids: unique unit ids, in document order (ties in scores keep this order).
            texts_norm: the units' ``text_norm`` (normalised again here; normalize is idempotent).

        Raises:
            InputError: lengths differ, no texts, or duplicate ids.
        """
        bm25s = _bm25s()

        ids, texts = list(node_ids), list(texts_norm)
        if len(ids) != len(texts):
            raise InputError(f"{len(ids)} node ids but {len(texts)} texts")
        if not ids:
            raise InputError("cannot build a lexical index over no texts")
        if len(set(ids)) != len(ids):
            raise InputError("duplicate node ids in lexical index input")
        self = cls(k1=k1, b=b)
        corpus = [tokenize(t) for t in texts]
        bm = bm25s.BM25(k1=k1, b=b, method="lucene")
        bm.index(corpus, show_progress=False)
        self._bm25 = bm
        self.node_ids = ids
        self.content_hash = cls.hash_corpus(ids, texts)
        logger.info("lexical index: %d units, %d terms", len(ids), len(bm.vocab_dict))
        return self

    def __len__(self) -> int:
        return len(self.node_ids)

    def search(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """Top-``k`` units for ``query`` by BM25.

        Args:
            query: raw question text (Bangla or English); normalised here.
            k: maximum number of hits (>= 1).

        Returns:
            ``[(node_id, score), ...]`` best first, only units sharing a token (score > 0); ties
            keep document order.

        Raises:
            InputError: empty query, query without any word, or bad ``k``.
            DataError: the index was not built or loaded.
        """
        if self._bm25 is None:
            raise DataError("lexical index is empty: build() or load() it first")
        if not isinstance(query, str) or not query.strip():
            raise InputError("empty query")
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise InputError(f"k must be a positive int, got {k!r}")
        tokens = tokenize(query)
        if not tokens:
            raise InputError(f"query {query!r} has no searchable words")
        known = [tok for tok in tokens if tok in self._bm25.vocab_dict]
        if not known:
            return []
        scores = np.asarray(self._bm25.get_scores(known), dtype=np.float64)
        order = np.lexsort((np.arange(len(scores)), -scores))  # score desc, then document order
        return [(self.node_ids[i], float(scores[i])) for i in order[:k] if scores[i] > 0]

    def save(self, directory: str | os.PathLike[str]) -> None:
        """Write the index (bm25s arrays + ``lexical_meta.json``) to ``directory``."""
        if self._bm25 is None:
            raise DataError("nothing to save: the lexical index is not built")
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        self._bm25.save(str(path), show_progress=False)
        meta = {
            "tokenizer": TOKENIZER_VERSION,
            "k1": self.k1,
            "b": self.b,
            "content_hash": self.content_hash,
            "node_ids": self.node_ids,
        }
        write_json_atomic(path / "lexical_meta.json", meta, indent=None)

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> LexicalIndex:
        """Read an index written by :meth:`save`.

        Raises:
            DataError: files missing or unreadable, or written by another tokenizer version.
        """
        bm25s = _bm25s()

        path = Path(directory)
        try:
            meta = json.loads((path / "lexical_meta.json").read_text(encoding="utf-8"))
            bm = bm25s.BM25.load(str(path))
        except (OSError, ValueError, KeyError) as exc:
            raise DataError(f"cannot load lexical index from {path}: {exc}") from exc
        if meta.get("tokenizer") != TOKENIZER_VERSION:
            raise DataError(f"lexical index at {path} uses tokenizer {meta.get('tokenizer')}, need {TOKENIZER_VERSION}")
        self = cls(k1=meta["k1"], b=meta["b"])
        self._bm25 = bm
        self.node_ids = list(meta["node_ids"])
        self.content_hash = meta["content_hash"]
        return self


# Function words of questions (colloquial and formal, Bangla and English): they carry no topic
# and, being absent from the Act's formal text, would otherwise count as unmatched rare words.
QUESTION_STOPWORDS: frozenset[str] = frozenset(
    tokenize(w, ngram=10**6)[0]  # the same normalisation and i/u fold as the question's words
    for w in (
        "কি কী কত কতো কতদিন কবে কোন কোনো কোনটি কেন কিভাবে কীভাবে কোথায় কে কাকে কার কাহার হয় হবে হবেন "
        "হলে হইলে যদি আমি আমার আমাকে আমরা আমাদের তিনি সে তার তাহার তাদের তাহাদের এর এ ও এবং বা অথবা না নাকি "
        "জন্য থেকে হতে হইতে পারে পারবে পারবেন পারি পাবে পাবেন পাবো পাব দিতে দিবে দেবে দেয় দেওয়া করতে করে "
        "করবে করবেন করা আছে নেই অনুযায়ী আইন আইনে আইনের শ্রম মতে বলো বলুন জানতে চাই জানাবেন দয়া করে এই সেই "
        "ঐ উক্ত কিনা কি না তো যে যা যায় গেলে থাকলে থাকে হচ্ছে হয়েছে হলো দিয়ে নিয়ে কিছু সব সকল প্রতি মধ্যে "
        "পর আগে পরে বিষয়ে সম্পর্কে ব্যাপারে বাংলাদেশ ২০০৬ 2006 বিধান ধারা "
        "what when how many much is are the a an of to in for on do does can could should would will i my "
        "me we our under act law section labour labor bangladesh please tell"
    ).split()
    if tokenize(w, ngram=10**6)
)


def words_of(text: str) -> list[str]:
    """Whole words of ``text`` after :func:`normalize` and the i/u fold (no n-grams)."""
    return tokenize(text, ngram=10**6)
