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
  sign ``−`` is ``-``;
- superscript and subscript digits are refused, not folded: NFKC would read ``2⁶`` as ``26``
  and ``6⁴,9⁶`` as ``64,96``, a different answer from the one meant (``superscript_in``);
- ``负无穷`` / ``负无穷大`` are ``-inf`` and ``无穷`` / ``无穷大`` / ``正无穷`` are ``inf`` where a
  number is asked: each names one value, as ``-inf`` does (``CHINESE_INFINITY``).
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


# digits and signs NFKC would fold into plain ones (⁴ -> 4, ₂ -> 2): see the module docstring
_RAISED_OR_LOWERED = frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻₀₁₂₃₄₅₆₇₈₉₊₋")
CHINESE_INFINITY = {"负无穷": "-inf", "负无穷大": "-inf", "无穷": "inf", "无穷大": "inf", "正无穷": "inf",
                    "正无穷大": "inf"}


def superscript_in(text: str) -> str | None:
    """The first superscript or subscript digit or sign in ``text``, or None."""
    return next((ch for ch in text if ch in _RAISED_OR_LOWERED), None)
