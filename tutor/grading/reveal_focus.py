"""What a reveal shows: the whole probe a question asked about, opened on the asked cells.

A question names a slice (``blocks.0.attn.pattern[0, 0, 2]``); showing only that slice hides
where it sits, and showing the tensor from its corner hides the slice.  So the reveal keeps
the whole tensor, marks the asked cells (for ``argmax``/``argmin`` only the winning cell),
and opens the view on them.  Axis names and token labels say what each index means.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tutor.grading.probe_ref import parse_probe_ref

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

    @property
    def sliced(self) -> bool:
        """The question named a part of the tensor: its header gives both shapes."""
        return self.asked_shape is not None and self.asked_shape != tuple(self.array.shape)

    @property
    def highlights(self) -> bool:
        """Marking every cell would mark nothing: only a part of the tensor is highlighted."""
        return bool(self.asked.any() and not self.asked.all())

    def labels_for(self, axis: int, plane: tuple[int, ...]) -> tuple[str, ...] | None:
        """Token labels along ``axis`` when it runs over the input's positions, else None."""
        if not self.token_labels or self.axis_names[axis] not in POSITION_AXES:
            return None
        batch = plane[self.axis_names.index("batch")] if "batch" in self.axis_names[:len(plane)] else 0
        row = self.token_labels[min(batch, len(self.token_labels) - 1)]
        return row if len(row) == self.array.shape[axis] else None


def axis_names(name: str, shape: tuple[int, ...], sizes: dict[str, int]) -> tuple[str, ...]:
    """Named from the probe when it is one of the model's, else from the sizes its axes match."""
    key = name.split(".", 2)[2] if name.startswith("blocks.") and name.count(".") >= 2 else name
    known = _PROBE_AXES.get(key) or (("batch", "position", "feature") if key in _RESIDUAL else None)
    if known and len(known) == len(shape):
        return known
    if name.startswith("params.") and len(shape) == 2:
        return ("in", "out")
    names = []
    for axis, length in enumerate(shape):
        matches = [word for size, word in _BY_SIZE if sizes.get(size) == length]
        names.append(matches[0] if len(matches) == 1 else f"axis {axis}")
    return tuple(names)


def reveal_for(tensors: dict[str, np.ndarray], reference: str, sizes: dict[str, int],
               token_labels=(), reduce: str | None = None) -> Reveal | None:
    """The reveal of ``reference`` (a probe reference), or None when it names nothing to show."""
    if not reference:
        return None
    ref = parse_probe_ref(reference)
    if ref.name not in tensors:
        return None
    array = np.asarray(tensors[ref.name], dtype=float)
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
    labels = tuple(tuple(row) for row in token_labels)
    return Reveal(array, reference, axis_names(ref.name, array.shape, sizes), asked, focus, labels,
                  asked_shape=asked_shape)
