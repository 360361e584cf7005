"""Answers as Chinese learners type them: full-width digits, letters and punctuation.

A Chinese input method in its default mode types （２，２，４，４） for (2, 2, 4, 4) and
１／４ for 1/4.  Making the learner switch to half-width to be graded would punish the
habit, not the prediction, so the parsers see the text after this normalisation.

NFKC folds the full-width ASCII block (U+FF01-FF5E) and the ideographic space; the table
below covers what NFKC leaves alone.  Decisions, documented in docs/lessons.md:

- ``、`` (the enumeration comma) separates like ``,``;
- ``。`` between two digits is a decimal point (``0。25`` is what an IME gives for ``0.25``);
  at the very end it is the end of a sentence and is dropped; anywhere else it stays, and
  the parser says the answer cannot be read;
- ``【】`` and ``〔〕`` are brackets; ``⁄`` (from NFKC's ``½``) and ``∕`` are ``/``; the minus
  sign ``−`` is ``-``.
"""
from __future__ import annotations

import re
import unicodedata

_LEFT_ALONE_BY_NFKC = str.maketrans({
    "、": ",",
    "【": "[", "】": "]",
    "〔": "(", "〕": ")",
    "⁄": "/", "∕": "/",
    "−": "-",
})
_DECIMAL_MARK = re.compile(r"(?<=\d)。(?=\d)")


def normalize_answer_text(text: str) -> str:
    """The learner's text with full-width forms folded to the ASCII the parsers read."""
    folded = unicodedata.normalize("NFKC", text).translate(_LEFT_ALONE_BY_NFKC)
    folded = _DECIMAL_MARK.sub(".", folded).rstrip()
    return folded[:-1].rstrip() if folded.endswith("。") else folded
