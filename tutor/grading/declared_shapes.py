"""The axes an experiment declares for its outputs, read from its registered description.

The experiments sit above grading, so they hand their descriptions down here as they register
(``declare``) rather than grading reaching up for them; an experiment not yet imported has
declared nothing, and its outputs' axes are named from the sizes as before.

Every description names its outputs with their shapes in symbols, ``padding.pattern (2, H, L, L)``
or ``next_token.top_ids, .top_probs (B, L, 5)``; an axis that is none of the sizes may be
named in words with its length, ``sgd_adam.curves (2 optimizer, 31 step)``.  A reveal that guessed axis names from sizes
alone would call a top-5 axis "position" whenever L happens to be 5; the declaration says what
each axis is, so the view names it (and puts token labels only on real positions of real rows).

A counted axis may also name the output that holds its labels, ``temp_range.miss (7 temperature
= .T,)``: the experiment returns ``temp_range.T`` (7,) beside it, and the view heads that axis
with those values (0.1, 0.5, … 2) instead of counting it 0 … 6.  The labels must be an output of
the same experiment with one value per entry of the axis; otherwise the axis is counted as before.
An axis whose entries are things rather than numbers names them in the declaration, separated by
``|``: ``sgd_adam.travel (2 optimizer = SGD|Adam, 5 tensor = W_E|W_Q|W_in|gain|W_U)`` heads its
columns W_E … W_U, so a learner reading the reveal need not count to find which column is W_in.
"""
from __future__ import annotations

import functools
import re

_DESCRIPTIONS: dict[str, str] = {}   # experiment name -> its description, as registered

AXIS_WORDS = {"B": "batch", "H": "head", "L": "position", "V": "vocabulary", "D": "feature",
              "D_head": "feature", "d_k": "feature", "4D": "hidden"}
_SHAPE = re.compile(r"\(([^()]*)\)")
_JOIN = r"(?:\s*[/,]\s*|\s+and\s+)"   # "a.x, .y", "a.x / a.y", "a.x and a.y": one shape for each
_NAMES = re.compile(rf"((?:[a-z_0-9]*\.[\w.]+)(?:{_JOIN}[a-z_0-9]*\.[\w.]+)*)\s*$")
_AXIS = re.compile(r"^[\w+\-*/ ]{1,20}$")
_COUNTED = re.compile(r"^\d+ ([a-z]+)$")   # "31 step": an axis that is none of the sizes, named in words
_LABELLED = re.compile(r"^\d+ ([a-z]+) = (\.[A-Za-z_][\w.]*)$")   # "7 temperature = .T": and its labels' output
_NAMED = re.compile(r"^(\d+) ([a-z]+) = ([A-Za-z_]\w{0,11}(?:\|[A-Za-z_]\w{0,11})+)$")   # "2 optimizer = SGD|Adam"


def declare(experiment: str, description: str) -> None:
    """Called by ``tutor.experiments.registry.experiment`` for each experiment it registers."""
    _DESCRIPTIONS[experiment] = description
    _declarations.cache_clear()


@functools.lru_cache(maxsize=1)
def _declarations() -> dict[str, tuple[tuple[str | None, str | tuple[str, ...] | None], ...]]:
    """Each declared output's axes: (word, the output holding the axis's labels or the labels
    themselves), either None."""
    found: dict[str, tuple[tuple[str | None, str | None], ...]] = {}
    for experiment, text in _DESCRIPTIONS.items():
        for match in _SHAPE.finditer(text):
            axes = [a.strip() for a in match.group(1).split(",") if a.strip()]
            if not axes or not all(_AXIS.match(a) or _LABELLED.match(a) or _named(a) for a in axes):
                continue
            names = _NAMES.search(text[:match.start()])
            if not names:
                continue
            for name in re.split(_JOIN, names.group(1)):
                full = f"{experiment}{name}" if name.startswith(".") else name
                if full.startswith(experiment + "."):
                    found.setdefault(full, tuple(_axis_word(a, experiment) for a in axes))
    return found


def _named(axis: str) -> tuple[str, tuple[str, ...]] | None:
    """("optimizer", ("SGD", "Adam")) for "2 optimizer = SGD|Adam"; None unless one name per entry."""
    named = _NAMED.match(axis)
    if not named or len(names := tuple(named.group(3).split("|"))) != int(named.group(1)):
        return None
    return named.group(2), names


def _axis_word(axis: str, experiment: str) -> tuple[str | None, str | tuple[str, ...] | None]:
    """A size's word ("L" is "position"), the word of a counted axis ("31 step" is "step"), or None;
    and the output that labels it ("7 temperature = .T" is temp_range.T in temp_range), or the names
    the declaration gives its entries ("2 optimizer = SGD|Adam"), or None."""
    labelled = _LABELLED.match(axis)
    if labelled:
        return labelled.group(1), experiment + labelled.group(2)
    if named := _named(axis):
        return named
    counted = _COUNTED.match(axis)
    return (counted.group(1) if counted else AXIS_WORDS.get(axis)), None


def declared_axes(name: str) -> tuple[str | None, ...] | None:
    """Each axis's word (None for an axis that is not one of the lesson's sizes), or None if undeclared."""
    axes = _declarations().get(name)
    return tuple(word for word, _labels in axes) if axes is not None else None


def declared_labels(name: str) -> tuple[str | tuple[str, ...] | None, ...]:
    """Per axis, the output whose values label it, or the names the declaration gives (None where
    it gives neither); () if undeclared."""
    return tuple(labels for _word, labels in _declarations().get(name, ()))
