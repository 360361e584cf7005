"""Every probe, question, answer and the formula of a lesson, against one run of the model: the
claims half of the live check, shared by the lesson screen (tutor.live.lesson_claims, on the
learner's own weights) and ``tutor lessons check`` (tutor.authoring.check_live, which extends it).
It loads numpy and SymPy, so the lesson screen imports it only in its worker.
"""
from __future__ import annotations

import difflib
import math

import numpy as np

from tutor.common.i18n import M_, message_of
from tutor.course.placeholders import Placeholder, PlaceholderError, lesson_texts, scan, value_of
from tutor.course.schema import Lesson
from tutor.formulas.parse import FormulaError, evaluate_formula
from tutor.grading.answers import AnswerError, parse_number
from tutor.grading.kinds import kind_of
from tutor.grading.probe_ref import ProbeRefError, parse_probe_ref
from tutor.grading.quiz import truth_for
from tutor.grading.tensor_access import QuestionError, probe_slice
from tutor.live.formula_check import bind_values, check_formula, parse_spec


class ClaimsChecker:
    """Every probe, question, answer and the formula, against one run of the model.  ``pinned``
    collects what does not hold: anything with ``add(loc, message, at=None)`` and ``warn(...)`` (the
    authoring checker's :class:`tutor.authoring.pinned.Pinned`, which places each at its file line, or
    :class:`tutor.live.lesson_claims.Collected`, which only keeps them)."""

    def __init__(self, lesson: Lesson, live, pinned, where: str, own_sizes: bool):
        self.lesson, self.live, self.pinned, self.where, self.own_sizes = lesson, live, pinned, where, own_sizes
        self.truths: dict[int, object] = {}   # question index -> its live truth, for the leak check
        self.given_away: set[int] = set()       # question indices whose answer the text or a reveal shows

    def run(self, formula_ok: bool) -> None:
        for i, reference in enumerate(self.lesson.probes):
            self.resolve(("probes", i), reference)
        for i, question in enumerate(self.lesson.questions):
            self.check_question(i, question)
        if formula_ok:
            self.check_formula()
        self.check_placeholders()
        if self.own_sizes:
            self.check_leaks()

    def check_leaks(self) -> None:
        """No answer in the text a learner reads before predicting it (see tutor.live.leaks), nor in an
        earlier reveal (tutor.live.reveal_leaks)."""
        from tutor.live.leaks import find_leaks
        from tutor.live.reveal_leaks import find_reveal_leaks

        for leak in find_leaks(self.lesson, self.live.tensors, self.live.sizes, self.truths):
            self.given_away.add(leak.question)
            self.pinned.add(leak.loc, leak.message(self.lesson), self.at(leak.loc, leak.offset))
        for shown in find_reveal_leaks(self.lesson, self.live.tensors, self.live.sizes, self.truths,
                                       self.live.token_labels):
            self.given_away.add(shown.question)
            self.pinned.add(shown.loc, shown.message(self.lesson))

    def at(self, loc: tuple, offset: int) -> tuple[int, int] | None:
        """Where character ``offset`` of a text field is in the lesson's file: unknown here (no file)."""
        return None

    def check_placeholders(self) -> None:
        """Every {{ placeholder }} of the text must fill from this run (syntax is the static check's)."""
        for loc, text in lesson_texts(self.lesson):
            for item in scan(text):
                if not isinstance(item, Placeholder):
                    continue
                try:
                    value_of(item, self.live.tensors, self.live.sizes)
                except PlaceholderError as error:
                    self.pinned.add(loc, M_("{error}{where}", error=message_of(error), where=self.where),
                                    self.at(loc, item.start))

    def resolve(self, loc: tuple, reference: str) -> np.ndarray | None:
        """The probe slice, or None after pinning a problem with the valid names."""
        tensors = self.live.tensors
        try:
            name = parse_probe_ref(reference).name
        except ProbeRefError:
            return None   # a malformed reference was reported by the schema or the static check

        if name not in tensors:
            close = difflib.get_close_matches(name, list(tensors), n=1)
            hint = M_("did you mean {name!r}? ", name=close[0]) if close else ""
            probes = ", ".join(n for n in tensors if not n.startswith("params."))
            self.pinned.add(loc, M_("unknown probe {name!r}; {hint}valid probes for this model: {probes} "
                                    "(and params.*; 'tutor lessons probes' lists them with shapes)",
                                    name=name, hint=hint, probes=probes))
            return None
        try:
            array = probe_slice(tensors, reference)
        except QuestionError as error:
            self.pinned.add(loc, M_("{error}{where}", error=message_of(error), where=self.where))
            return None
        if array.size == 0:
            axes = ", ".join(str(axis) for axis, size in enumerate(array.shape) if size == 0)
            self.pinned.add(loc, M_("{reference} selects no values{where}: axis {axes} of the slice is empty "
                                    "(a start:stop past the end of its axis, or stop <= start; full shape "
                                    "{shape}); slice what exists for the smallest sizes", reference=reference,
                                    where=self.where, axes=axes, shape=tuple(tensors[name].shape)))
            return None
        return array

    def check_question(self, i: int, question) -> None:
        base = ("questions", i)
        for name in ("probe", "show"):
            reference = getattr(question, name, None)
            if reference is not None and self.resolve(base + (name,), reference) is None:
                return
        try:
            truth = truth_for(question, self.live.tensors, self.live.sizes)
        except (QuestionError, AnswerError) as error:
            by_answer = isinstance(error, AnswerError) or not getattr(question, "probe", None)
            field = "answer" if by_answer else "probe"
            self.pinned.add(base + (field,), M_("{error}{where}", error=message_of(error), where=self.where))
            return
        self.truths[i] = truth
        self.check_finite(base, question, truth)
        for problem in kind_of(question).check_answer(question, truth, self.live.tensors, self.live.sizes,
                                                      self.own_sizes):
            self.pinned.add(base + problem.field, M_("{error}{where}", error=problem.message, where=self.where))

    def check_finite(self, base, question, truth) -> None:
        """A NaN or infinite truth is almost always a broken probe or experiment, and a NaN truth
        cannot be typed; it is allowed only where the question says so (``nonfinite: true``, or an
        ``answer:`` that holds the value)."""
        if not kind_of(question).nonfinite(question, truth):
            return
        values = np.asarray(truth.value, dtype=float).ravel()
        bad = {"nan" if math.isnan(v) else str(float(v)) for v in values if not math.isfinite(v)}
        expected = set()
        answers = question.answer if isinstance(getattr(question, "answer", None), list) else [question.answer]
        for entry in answers:
            try:
                number = parse_number(str(entry)) if entry is not None else 0.0
            except AnswerError:
                continue
            if not math.isfinite(number):
                expected.add("nan" if math.isnan(number) else str(number))
        unexpected = sorted(bad - expected)
        if unexpected:
            self.pinned.add(base + ("probe",), M_("the model gives {values} for {probe}{where} ({truth}); if the "
                                                  "lesson means it, say so with nonfinite: true (or an answer: that "
                                                  "holds it), else fix the probe or experiment",
                                                  values=", ".join(unexpected), probe=question.probe, where=self.where,
                                                  truth=truth.display))

    def check_formula(self) -> None:
        spec = self.lesson.formula
        if spec.reproduces is None:
            return
        for symbol, source in spec.bind.items():
            if isinstance(source, str) and source not in self.live.sizes:
                if self.resolve(("formula", "bind", symbol), source) is None:
                    return
        if self.resolve(("formula", "reproduces"), spec.reproduces) is None:
            return
        result = check_formula(spec, self.live.tensors, self.live.sizes)
        if result.ok:
            return
        if result.max_error is None:
            self.pinned.add(("formula", "expr"), M_("the formula cannot be evaluated: {error}{where}",
                                                    error=result.reason, where=self.where))
            return
        detail = self._shape_detail()
        self.pinned.add(("formula", "reproduces"), M_("{error}{where}{detail}; check the formula and its bind: "
                                                      "slices, or raise formula.tolerance if the difference is "
                                                      "rounding", error=result.message, where=self.where,
                                                      detail=detail))

    def _shape_detail(self) -> str:
        spec = self.lesson.formula
        try:
            values = bind_values(spec, self.live.tensors, self.live.sizes)
            got = np.asarray(evaluate_formula(parse_spec(spec), values)).shape
        except (FormulaError, QuestionError):
            return ""
        want = probe_slice(self.live.tensors, spec.reproduces).shape
        return "" if got == want else f"; the formula gives shape {tuple(got)}, {spec.reproduces} is {tuple(want)}"

