"""What a reveal shows: the whole probe a question asked about, opened on the asked cells.

A question names a slice (``blocks.0.attn.pattern[0, 0, 2]``); showing only that slice hides
where it sits, and showing the tensor from its corner hides the slice.  So the reveal keeps
the whole tensor, marks the asked cells (for ``argmax``/``argmin`` only the winning cell),
and opens the view on them.  Axis names and token labels say what each index means.

A question's ``show:`` is the author saying how much to show: the view is that slice and
nothing else, because the rest of the tensor may be what a later question asks
(``tutor.live.reveal_leaks`` checks that it is not).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tutor.common.safe_text import one_line
from tutor.grading.declared_shapes import declared_axes, declared_labels
from tutor.grading.number_format import format_number
from tutor.grading.probe_ref import parse_probe_ref
from tutor.grading.vocabulary_axis import axis_vocabulary, cut_labels, vocabulary_labels

# axis names of the model's probes, by the probe's name without its "blocks.N." prefix
_PROBE_AXES = {
    **dict.fromkeys(("attn.q", "attn.k", "attn.v", "attn.z"), ("batch", "head", "position", "feature")),
    **dict.fromkeys(("attn.scores", "attn.masked_scores", "attn.pattern"), ("batch", "head", "query", "key")),
    **dict.fromkeys(("mlp.pre", "mlp.post"), ("batch", "position", "hidden")),
    "logits": ("batch", "position", "vocabulary"),
    "params.W_E": ("token id", "feature"), "params.W_pos": ("position", "feature"),
    "params.W_U": ("feature", "vocabulary"),
}
_RESIDUAL = ("embed", "pos_embed", "resid_pre", "resid_mid", "resid_post", "attn_out", "mlp_out",
             "ln1.normalized", "ln2.normalized", "ln_final.normalized", "ln1.out", "ln2.out", "ln_final.out")
_BY_SIZE = (("B", "batch"), ("H", "head"), ("L", "position"), ("V", "vocabulary"), ("D", "feature"))
POSITION_AXES = ("position", "query", "key")


@dataclass(frozen=True)
class Reveal:
    array: np.ndarray                  # the whole probe
    reference: str                     # what the question asked, e.g. blocks.0.attn.pattern[0, 0, 2]
    axis_names: tuple[str, ...]
    asked: np.ndarray                  # bool, array's shape: the cells the question is about
    focus: tuple[int, ...]             # the first asked cell: the view opens here
    token_labels: tuple[tuple[str, ...], ...] = ()   # one tuple per batch row
    title: str = ""                     # shown instead of the reference (experiments' names are internal)
    asked_shape: tuple[int, ...] | None = None   # the slice's own shape, what a shape question asked about
    view: tuple = ()                    # the index of the probe on screen: () the whole probe, else show:'s slice
    vocabulary: tuple[tuple[str, ...] | None, ...] = ()   # per axis: its characters when it runs over token ids
    axis_values: tuple[tuple[str, ...] | None, ...] = ()  # per axis: the values its experiment labels it with
    numbers: tuple[tuple[int, ...] | None, ...] = ()      # per axis of a show: slice: the probe's own index of each entry

    def index_number(self, axis: int, i: int) -> int:
        """Entry ``i`` of ``axis`` as the probe counts it: a view of rows 4 to 13 numbers them 4 … 13,
        not 0 … 9, so a reveal need not say where its slice starts (r9it, it-mutual-information)."""
        along = self._numbers_along(axis)
        return along[i] if along is not None and i < len(along) else i

    def _numbers_along(self, axis: int) -> tuple[int, ...] | None:
        return self.numbers[axis] if axis < len(self.numbers) else None

    @property
    def sliced(self) -> bool:
        """The question named a part of the tensor: its header gives both shapes."""
        return self.asked_shape is not None and self.asked_shape != tuple(self.array.shape)

    @property
    def highlights(self) -> bool:
        """Marking every cell would mark nothing: only a part of the tensor is highlighted."""
        return bool(self.asked.any() and not self.asked.all())

    def labels_for(self, axis: int, plane: tuple[int, ...]) -> tuple[str, ...] | None:
        """The characters along ``axis`` when it runs over the vocabulary or the input's positions, else None."""
        if axis < len(self.vocabulary) and self.vocabulary[axis] is not None:
            return self.vocabulary[axis]
        if not self.token_labels or self.axis_names[axis] not in POSITION_AXES:
            return None
        batch = plane[self.axis_names.index("batch")] if "batch" in self.axis_names[:len(plane)] else 0
        row = self.token_labels[min(batch, len(self.token_labels) - 1)]
        along = self._numbers_along(axis)
        if along is not None and len(along) == self.array.shape[axis] and along and max(along) < len(row):
            return tuple(row[n] for n in along)   # positions 18-25 of a show: slice keep their characters (r9rest)
        return row if len(row) == self.array.shape[axis] else None

    def label_text(self, axis: int, plane: tuple[int, ...]) -> tuple[str, ...] | None:
        """What heads ``axis`` in the view: characters quoted ('a', so a space or a digit reads as a
        character), an experiment's declared values as they are (0.1 … 2 for temperatures)."""
        if axis < len(self.axis_values) and self.axis_values[axis] is not None:
            return self.axis_values[axis]
        labels = self.labels_for(axis, plane)
        return tuple(f"'{label}'" for label in labels) if labels else None


def axis_names(name: str, shape: tuple[int, ...], sizes: dict[str, int]) -> tuple[str, ...]:
    """Named from the probe when it is one of the model's, else from the sizes its axes match."""
    key = name.split(".", 2)[2] if name.startswith("blocks.") and name.count(".") >= 2 else name
    known = _PROBE_AXES.get(key) or (("batch", "position", "feature") if key in _RESIDUAL else None)
    if known and len(known) == len(shape):
        return known
    if name.startswith("params.") and len(shape) == 2:
        return ("in", "out")
    declared = declared_axes(name)
    if declared and len(declared) == len(shape):
        return tuple(word or f"axis {axis}" for axis, word in enumerate(declared))
    names = []
    for axis, length in enumerate(shape):
        # a length of 1 is no sign of a size: an experiment's one-number result is not a batch of 1
        matches = [word for size, word in _BY_SIZE if sizes.get(size) == length] if length > 1 else []
        names.append(matches[0] if len(matches) == 1 else f"axis {axis}")
    return tuple(names)


def question_reveal(question, truth_label: str, tensors: dict[str, np.ndarray], sizes: dict[str, int],
                    token_labels=()) -> Reveal | None:
    """What the screen shows after ``question`` is answered: its ``show:`` slice alone, or the
    probe its truth came from, whole, with the asked cells marked."""
    if question.show:   # a winner is marked when the view is the slice the question reduces
        reduce = getattr(question, "reduce", None) if question.show == getattr(question, "probe", None) else None
        return reveal_for(tensors, question.show, sizes, token_labels, reduce, limit=True)
    return reveal_for(tensors, truth_label, sizes, token_labels, getattr(question, "reduce", None))


def reveal_for(tensors: dict[str, np.ndarray], reference: str, sizes: dict[str, int],
               token_labels=(), reduce: str | None = None, limit: bool = False) -> Reveal | None:
    """The reveal of ``reference`` (a probe reference), or None when it names nothing to show;
    ``limit`` shows the slice alone instead of the whole probe."""
    if not reference:
        return None
    ref = parse_probe_ref(reference)
    if ref.name not in tensors:
        return None
    array = np.asarray(tensors[ref.name], dtype=float)
    if limit and ref.index:
        return _limited(array, ref, sizes, token_labels, reduce, tensors)
    asked_shape = tuple(array[ref.index].shape) if array.ndim else None
    if array.ndim == 0:
        array = array.reshape(1)
    asked = np.zeros(array.shape, dtype=bool)
    asked[ref.index] = True
    cells = np.argwhere(asked)                                   # row-major: the slice's own order
    if reduce in ("argmax", "argmin") and len(cells):
        chosen = array[ref.index].ravel()
        finite = np.where(np.isnan(chosen), -np.inf if reduce == "argmax" else np.inf, chosen)
        winner = cells[int(np.argmax(finite) if reduce == "argmax" else np.argmin(finite))]
        asked[:] = False
        asked[tuple(winner)] = True
        cells = winner[None]
    focus = tuple(int(i) for i in cells[0]) if len(cells) else (0,) * array.ndim
    names = axis_names(ref.name, array.shape, sizes)
    labels = tuple(tuple(row) for row in token_labels) if reads_the_input(ref.name, names) else ()
    vocabulary = axis_vocabulary(names, array.shape, vocabulary_labels(tensors))
    return Reveal(array, reference, names, asked, focus, labels, asked_shape=asked_shape, vocabulary=vocabulary,
                  axis_values=declared_values(ref.name, array.shape, tensors))


def declared_values(name: str, shape: tuple[int, ...], tensors: dict, index: tuple = ()) -> tuple:
    """Per axis of the view, the values of the output its experiment declares as that axis's labels
    (``(7 temperature = .T,)``) or the names it gives (``2 optimizer = SGD|Adam``), cut as ``index`` cuts the probe; None for an axis without, or whose
    output is missing or of another length (then it is counted 0, 1, … as before)."""
    outputs = declared_labels(name)
    if len(outputs) != len(shape):
        return ()
    whole = []
    for output, length in zip(outputs, shape):
        if isinstance(output, tuple):   # names the declaration gives (SGD|Adam), already one per entry
            whole.append(output if len(output) == length else None)
            continue
        values = np.asarray(tensors[output], dtype=float).ravel() if output in tensors else None
        whole.append(tuple(one_line(format_number(float(v))) for v in values)
                     if values is not None and values.size == length else None)
    return cut_labels(tuple(whole), shape, index)


def reads_the_input(name: str, names: tuple[str, ...]) -> bool:
    """Token labels belong only on the lesson's own rows: an experiment output with an axis that is
    none of the lesson's sizes (a padded batch of 2, a stage, a top-5) is laid out on other rows."""
    declared = declared_axes(name)
    return not declared or "batch" in names or None not in declared


def _limited(array: np.ndarray, ref, sizes: dict[str, int], token_labels, reduce: str | None,
             tensors: dict) -> Reveal:
    """The slice alone: the axes it keeps keep their names, token labels follow the batch rows it
    keeps (a position axis cut to a range keeps its positions' characters), and a
    vocabulary axis cut to a range keeps that range's characters (``logits[0, 4, 17:27]`` shows
    '0' … '9', though its columns count from 0)."""
    names = axis_names(ref.name, array.shape, sizes)
    part = np.asarray(ref.select(array), dtype=float)                              # the show: slice
    index = ref.index + (slice(None),) * (array.ndim - len(ref.index))
    kept = tuple(name for name, step in zip(names, index) if not isinstance(step, int))
    kept = tuple(f"axis {i}" if name.startswith("axis ") else name for i, name in enumerate(kept))   # renumbered
    rows = tuple(tuple(row) for row in token_labels) if reads_the_input(ref.name, names) else ()
    if "batch" in names and rows:
        step = index[names.index("batch")]
        rows = (rows[min(step, len(rows) - 1)],) if isinstance(step, int) else rows[step]
    vocabulary = axis_vocabulary(names, array.shape, vocabulary_labels(tensors), ref.index)
    values = declared_values(ref.name, array.shape, tensors, ref.index)
    numbers = tuple(tuple(range(length)[step]) if step != slice(None) else None
                    for length, step in zip(array.shape, index) if not isinstance(step, int))
    if part.ndim == 0:
        part, kept, vocabulary, values, numbers = part.reshape(1), kept or ("axis 0",), (), (), ()
    asked = np.ones(part.shape, dtype=bool)
    focus = (0,) * part.ndim
    if reduce in ("argmax", "argmin") and part.size:
        finite = np.where(np.isnan(part), -np.inf if reduce == "argmax" else np.inf, part)
        focus = tuple(int(i) for i in np.unravel_index(np.argmax(finite) if reduce == "argmax" else np.argmin(finite),
                                                       part.shape))
        asked[:] = False
        asked[focus] = True
    return Reveal(part, str(ref), kept, asked, focus, rows, view=ref.index, vocabulary=vocabulary, axis_values=values,
                  numbers=numbers)
