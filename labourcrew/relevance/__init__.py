"""Learned relevance: does a statute unit *govern* the answer to a question?

Phase between the StatuteGraph and its users (retrieval rerank, extractive deliberation, trust score):

* :mod:`~labourcrew.relevance.dataset` -- the hand-written training set ``data/train/`` and its verifier;
* :mod:`~labourcrew.retrieval.thesaurus` -- the Bangla labour-law thesaurus (what people say -> the Act's term);
* :mod:`~labourcrew.relevance.features` -- features of a (question, unit) pair;
* :mod:`~labourcrew.relevance.model` -- the committed artefact, its loader and scorer;
* :mod:`~labourcrew.relevance.train` -- deterministic training (``python -m labourcrew train relevance``).
"""
