"""Live numbers in lesson text: ``{{ decode.probs[0, 20] | .2f }}``.

A lesson's prose may quote a number of the model ("the model hedges 0.58/0.42").  The current
model changes when the learner trains their own, so a number typed into the file would go
stale; a placeholder names the probe slice instead and the lesson screen fills it in from the
live tensors.

Lesson files are untrusted input, so a placeholder is parsed, never evaluated: the reference
follows :mod:`tutor.grading.probe_ref`'s grammar (or is a size name), the format is one of a short
whitelist, and the output is built here.  Nothing of the author's text ever reaches
``str.format``, ``eval`` or a format spec it was not checked against.  No Textual and no torch.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from tutor.common.i18n import M_, _, message_of, translated
from tutor.common.lazy_import import numpy as np  # numpy (and the grading module) load on first fill, not at import
from tutor.course.token_text import VOCABULARY, text_of, token_of
from tutor.grading.probe_ref import ProbeRef, ProbeRefError, parse_probe_ref

OPEN, CLOSE = "{{", "}}"
# the sizes compute_live reports; the same names a formula may bind
SIZE_NAMES = ("B", "L", "D", "H", "D_head", "d_k", "d_model", "V", "N", "T")
MAX_BODY = 240            # characters between {{ and }}
MAX_VALUES = 12           # a slice longer than this is a table, not a number in a sentence
_FORMAT = re.compile(r"\.(\d)([fge%])|%|token|text")
FORMAT_HELP = M_(".2f (fixed decimals), .3g (significant digits), .1e (exponent), % (percent), .1% (percent with "
                 "decimals), token (the token a token id stands for, e.g. an argmax's) or text (a row of token ids "
                 "as the one line of text they spell, e.g. what a model generated)")
PREVIEW = "…"


class PlaceholderError(ValueError):
    """A placeholder that cannot be read or filled; ``start``/``end`` locate it in the text."""

    def __init__(self, message: str, source: str = "", start: int = 0, end: int = 0, short: str | None = None):
        self.message, self.source, self.start, self.end = message, source, start, end
        self.short = self._with_source(short) if short is not None else None   # the screen's form, no long lists
        super().__init__(self._with_source(message))

    def _with_source(self, message: str) -> str:
        return M_("placeholder {source}: {message}", source=_shown(self.source), message=message) \
            if self.source else message


@dataclass(frozen=True)
class Placeholder:
    ref: str                 # the size name or the probe reference as written (normalised)
    fmt: str | None          # a whitelisted format, or None for the default
    start: int               # text[start:end] is the whole {{ ... }}
    end: int
    probe: ProbeRef | None = None   # None for a size name
    source: str = ""                # the placeholder as written, for messages

    @property
    def is_size(self) -> bool:
        return self.probe is None


def _shown(source: str) -> str:
    """The placeholder as quoted in a message: one line, bounded."""
    text = " ".join(source.split())
    return text if len(text) <= 80 else text[:77] + "…"


def _parse(text: str, start: int, end: int) -> Placeholder:
    """One ``{{ REF | FMT }}`` at text[start:end]; raises PlaceholderError."""
    source = text[start:end]
    body = text[start + len(OPEN):end - len(CLOSE)]

    def fail(message: str) -> PlaceholderError:
        return PlaceholderError(message, source, start, end)

    if len(body) > MAX_BODY:
        raise fail(M_("too long (over {most} characters); write {{{{ probe[index] | format }}}}", most=MAX_BODY))
    reference, bar, fmt = body.partition("|")
    reference, fmt = reference.strip(), fmt.strip()
    if not reference:
        raise fail(M_("empty; name a probe slice such as decode.probs[20] or a size name such as D"))
    if bar:
        if "|" in fmt:
            raise fail(M_("use one '|' at most, before the format"))
        if not fmt:
            raise fail(M_("a format is missing after '|'; use {formats}", formats=FORMAT_HELP))
        if not _FORMAT.fullmatch(fmt):
            raise fail(M_("format {format!r} is not allowed; use {formats}", format=fmt[:20], formats=FORMAT_HELP))
    if reference in SIZE_NAMES:
        return Placeholder(reference, fmt or None, start, end, None, source)
    try:
        probe = parse_probe_ref(reference)
    except ProbeRefError as error:
        raise fail(M_("{error}; name a probe slice such as decode.probs[20] or a size name ({sizes})",
                      error=message_of(error), sizes=", ".join(SIZE_NAMES))) from None
    if probe.name in SIZE_NAMES:
        raise fail(M_("{name} is a size, a single number: write {{{{ {name} }}}} without an index", name=probe.name))
    return Placeholder(str(probe), fmt or None, start, end, probe, source)


def scan(text: str) -> list[Placeholder | PlaceholderError]:
    """Every placeholder of ``text`` in order, each parsed or the error that says why not.

    Linear in the text: one ``{{`` without a closing ``}}`` ends the scan, since no later one
    can have a closing pair either.
    """
    if not isinstance(text, str):
        return []
    found: list[Placeholder | PlaceholderError] = []
    position = 0
    while (start := text.find(OPEN, position)) >= 0:
        close = text.find(CLOSE, start + len(OPEN))
        if close < 0:
            found.append(PlaceholderError("'{{' is never closed with '}}'; a placeholder is "
                                          "{{ probe[index] | format }}", "", start, start + len(OPEN)))
            break
        end = close + len(CLOSE)
        try:
            found.append(_parse(text, start, end))
        except PlaceholderError as error:
            found.append(error)
        position = end
    return found


def lesson_texts(lesson) -> list[tuple[tuple, str]]:
    """(field location, text) of every field of a lesson whose placeholders are filled."""
    texts: list[tuple[tuple, str]] = [(("explanation",), lesson.explanation),
                                      (("formula", "translation"), lesson.formula.translation)]
    for i, question in enumerate(lesson.questions):
        texts.append((("questions", i, "prompt"), question.prompt))
        texts += [(("questions", i, "hints", j), hint) for j, hint in enumerate(question.hints)]
        if question.reveal:
            texts.append((("questions", i, "reveal"), question.reveal))
    return texts


def unfilled_texts(lesson) -> list[tuple[tuple, str]]:
    """Fields shown as written (the title, the choices): a placeholder there is a mistake."""
    texts: list[tuple[tuple, str]] = [(("title",), lesson.title)]
    for i, question in enumerate(lesson.questions):
        texts += [(("questions", i, "choices", j), choice)
                  for j, choice in enumerate(getattr(question, "choices", None) or [])]
    return texts


def lesson_problems(lesson, tensors: dict[str, np.ndarray], sizes: dict[str, int]
                    ) -> list[tuple[tuple, PlaceholderError]]:
    """Every placeholder of the lesson that cannot be filled from these tensors, with its field."""
    return [(loc, error) for loc, text in lesson_texts(lesson) for error in fill_report(text, tensors, sizes)[1]]


def find_placeholders(text: str) -> list[Placeholder]:
    """The placeholders of ``text``; raises PlaceholderError for the first one that does not parse."""
    found = scan(text)
    for item in found:
        if isinstance(item, PlaceholderError):
            raise item
    return found


def syntax_errors(text: str) -> list[PlaceholderError]:
    """Every placeholder of ``text`` that does not parse (the checker's static half)."""
    return [item for item in scan(text) if isinstance(item, PlaceholderError)]


def has_placeholders(text: str) -> bool:
    return isinstance(text, str) and OPEN in text


def _format_one(value: float, fmt: str | None) -> str:
    from tutor.grading.quiz import format_number

    if fmt is None:
        return format_number(value)
    if fmt == "%":
        spec = ".0%"
    else:
        match = _FORMAT.fullmatch(fmt)
        if match is None:       # parsing already refused it; never hand an unchecked spec to format()
            raise PlaceholderError(M_("format {format!r} is not allowed", format=fmt))
        spec = f".{int(match.group(1))}{match.group(2)}"
    return format(float(value), spec)


def _unknown(name: str, tensors: dict) -> tuple[str, str]:
    """Why a placeholder's name reads nothing, whole translatable sentences: (for authors, with
    every valid name; for the screen, only the closest one)."""
    from tutor.grading.tensor_access import probe_names

    known = probe_names(tensors)
    sizes = ", ".join(SIZE_NAMES)
    close = difflib.get_close_matches(name, [*tensors, *SIZE_NAMES], n=1)
    if close:
        return (M_("unknown probe {name!r}; did you mean {close!r}? Valid probes: {known} (or a size name: {sizes})",
                   name=name, close=close[0], known=known, sizes=sizes),
                M_("unknown probe {name!r}; did you mean {close!r}?", name=name, close=close[0]))
    return (M_("unknown probe {name!r}; valid probes: {known} (or a size name: {sizes})", name=name, known=known,
               sizes=sizes), M_("unknown probe {name!r}", name=name))


def value_of(placeholder: Placeholder, tensors: dict[str, np.ndarray], sizes: dict[str, int]) -> str:
    """The text a placeholder stands for; raises PlaceholderError naming the placeholder."""
    from tutor.grading.quiz import QuestionError, probe_slice

    source = placeholder.source or f"{{{{ {placeholder.ref} }}}}"

    def fail(message: str, short: str | None = None) -> PlaceholderError:
        return PlaceholderError(message, source, placeholder.start, placeholder.end, short)

    if placeholder.is_size:
        if placeholder.ref not in sizes:
            raise fail(M_("size {name!r} is not known for this model", name=placeholder.ref))
        return _format_one(float(sizes[placeholder.ref]), placeholder.fmt)
    name = placeholder.probe.name
    if name not in tensors:
        raise fail(*_unknown(name, tensors))
    try:
        array = np.asarray(probe_slice(tensors, placeholder.ref), dtype=float)
    except (QuestionError, ValueError, TypeError) as error:
        raise fail(message_of(error)) from None
    if array.size == 0:
        raise fail(M_("selects no values"))
    if placeholder.fmt == "text":
        return text_of(array, tensors, fail)
    if array.size > MAX_VALUES:
        raise fail(M_("selects {count} values {shape}; a placeholder shows one number or a list of at most {most}: "
                      "index further", count=array.size, shape=tuple(array.shape), most=MAX_VALUES))
    if placeholder.fmt == "token":
        return ", ".join(token_of(v, tensors, fail) for v in array.ravel())
    return ", ".join(_format_one(v, placeholder.fmt) for v in array.ravel())


def short_message(error: PlaceholderError) -> str:
    """The error without the long list of valid names (for the screen), still a Message to translate."""
    return error.short if error.short is not None else message_of(error)


def inline_error(error: PlaceholderError) -> str:
    """What is shown in place of a placeholder that cannot be filled."""
    return _("⟨error: {message}⟩").format(message=translated(short_message(error)))


def fill_report(text: str, tensors: dict[str, np.ndarray], sizes: dict[str, int]
                ) -> tuple[str, list[PlaceholderError]]:
    """Fill every placeholder; one that fails is shown inline as ⟨error: …⟩ and returned."""
    if not has_placeholders(text):
        return text, []
    out, errors, position = [], [], 0
    for item in scan(text):
        out.append(text[position:item.start])
        if isinstance(item, Placeholder):
            try:
                out.append(value_of(item, tensors, sizes))
            except PlaceholderError as error:
                errors.append(error)
                out.append(inline_error(error))
        else:
            errors.append(item)
            out.append(inline_error(item))
        position = item.end
    out.append(text[position:])
    return "".join(out), errors


def fill(text: str, tensors: dict[str, np.ndarray], sizes: dict[str, int]) -> str:
    """``text`` with every placeholder replaced by its live value; raises PlaceholderError."""
    filled, errors = fill_report(text, tensors, sizes)
    if errors:
        raise errors[0]
    return filled


def preview(text: str) -> str:
    """``text`` before the live tensors arrive: placeholders shown as …, broken ones as ⟨error: …⟩."""
    if not has_placeholders(text):
        return text
    out, position = [], 0
    for item in scan(text):
        out.append(text[position:item.start])
        out.append(PREVIEW if isinstance(item, Placeholder) else inline_error(item))
        position = item.end
    out.append(text[position:])
    return "".join(out)
