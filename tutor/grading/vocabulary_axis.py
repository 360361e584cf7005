"""Characters on a vocabulary axis: a logits row labelled ``'0' '1' … '>'`` rather than 17, 18 … 31.

Every live run carries the vocabulary of the model that drew its tensors (``vocab.chars``, one
code point per token id: the sort model's and the text model's differ), so a reveal labels an
axis that runs over token ids with the characters they stand for.  A checkpoint's vocabulary is
untrusted text: each label is the character as the position axes print it (``␣`` for a space),
made inert on one line (a control character shows as its control picture, never raw).
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # the course imports VOCABULARY at start-up, before numpy
from tutor.common.safe_text import one_line

VOCABULARY = "vocab.chars"                      # the live tensors' key: (V,) code points
VOCABULARY_AXES = ("vocabulary", "token id")    # axis names (reveal_focus's) that run over token ids


def vocabulary_labels(tensors: dict) -> tuple[str, ...]:
    """One label per token id of the run's model, or () when the run carries no vocabulary."""
    from tutor.model.tokenizer import char_label   # model/ loads torch lazily; the tokenizer does not

    codes = tensors.get(VOCABULARY)
    if codes is None:
        return ()
    return tuple(one_line(char_label(chr(int(code)))) for code in np.asarray(codes).ravel())


def axis_vocabulary(names: tuple[str, ...], shape: tuple[int, ...], labels: tuple[str, ...],
                    index: tuple = ()) -> tuple[tuple[str, ...] | None, ...]:
    """Per axis of the view, its characters when it runs over the whole vocabulary, else None.

    ``index`` is the ``show:`` slice that cut the probe (``names`` and ``shape`` are the probe's):
    an axis it takes a range of keeps the characters of that range, an axis it takes one entry of
    is gone.  An axis of another length (a toy distribution of 5) is no vocabulary axis."""
    return cut_labels(tuple(labels if name in VOCABULARY_AXES and labels and len(labels) == length else None
                            for name, length in zip(names, shape)), shape, index)


def cut_labels(whole: tuple[tuple[str, ...] | None, ...], shape: tuple[int, ...],
               index: tuple = ()) -> tuple[tuple[str, ...] | None, ...]:
    """Per-axis labels of a probe, cut as ``index`` cuts the probe: an axis taken a range of keeps
    that range's labels, an axis taken one entry of is gone."""
    steps = tuple(index) + (slice(None),) * (len(shape) - len(index))
    return tuple(tuple(labels[step]) if labels is not None else None
                 for labels, step in zip(whole, steps) if not isinstance(step, int))
