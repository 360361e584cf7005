"""Token ids shown as what they stand for: ``{{ top_ids[0] | token }}`` and ``{{ samples[0] | text }}``.

Every live run carries the model's vocabulary as one code point per token id (``vocab.chars``), so
lesson text can name the token an id stands for ("the model's top choice is '1'") or show what a
model wrote, without the lesson file holding either: both follow the model the learner has now.
A model's vocabulary and output are untrusted text, so what comes out is made terminal-safe here.
"""
from __future__ import annotations

from tutor.common.i18n import M_
from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at import
from tutor.grading.vocabulary_axis import VOCABULARY

MAX_TEXT = 64             # token ids `| text` may join: a block's worth, the longest text a model writes at once


def _character(value: float, tensors: dict, fail, fmt: str = "token") -> str:
    """The character token id ``value`` stands for in the live model's vocabulary."""
    vocabulary = tensors.get(VOCABULARY)
    if vocabulary is None:
        raise fail(M_("'| {format}' needs the model's vocabulary, which this run does not carry", format=fmt))
    if not np.isfinite(value) or value != int(value) or not 0 <= value < len(vocabulary):
        raise fail(M_("'| {format}' names token ids, whole numbers from 0 to {last}; this slice holds {value:.6g}",
                      format=fmt, last=len(vocabulary) - 1, value=value))
    return chr(int(vocabulary[int(value)]))


def token_of(value: float, tensors: dict, fail) -> str:
    """The quoted token a token id stands for, printed as the reveal's axes print it."""
    from tutor.common.safe_text import one_line
    from tutor.model.tokenizer import char_label

    return "'" + one_line(char_label(_character(value, tensors, fail))) + "'"


def text_of(array: np.ndarray, tensors: dict, fail) -> str:
    """A row of token ids as the quoted line of text they spell: what a model wrote, shown as a string.

    A model's output is untrusted text (a learner may train on any file), so it is made terminal-safe
    on one line: a newline or tab shows as its control picture (␊, ␉) instead of breaking the sentence.
    """
    from tutor.common.safe_text import one_line

    if array.ndim != 1:
        raise fail(M_("'| text' spells one row of token ids; this slice has the shape {shape}: index it down to "
                      "one row", shape=tuple(array.shape)))
    if array.size > MAX_TEXT:
        raise fail(M_("'| text' spells at most {most} tokens; this slice holds {count}", most=MAX_TEXT,
                      count=array.size))
    return "\u201c" + one_line("".join(_character(v, tensors, fail, "text") for v in array)) + "\u201d"
