"""The live half of ``tutor lessons check``: run the lesson's model and answer every question.

Answers come from the model, so what can go wrong is the lesson asking for something the
model does not have: a probe that does not exist, a slice out of range for some sizes in
``model.vary``, an answer written in the file that the model contradicts, a formula that does
not reproduce its probe.  Each is checked on the lesson's own sizes, on the smallest and the
largest sizes its ranges allow, and on a few random draws, since a learner may meet any.
"""
from __future__ import annotations

import difflib
import math

import numpy as np

from tutor.common.i18n import M_, message_of
from tutor.grading.answers import AnswerError, parse_number
from tutor.live.formula_check import bind_values, check_formula, parse_spec
from tutor.formulas.parse import FormulaError, evaluate_formula
from tutor.authoring.pinned import Pinned, placeholder_at
from tutor.course.schema import Lesson
from tutor.course.placeholders import Placeholder, PlaceholderError, lesson_texts, scan, value_of
from tutor.grading.probe_ref import ProbeRefError, parse_probe_ref
from tutor.grading.kinds import kind_of
from tutor.grading.tensor_access import QuestionError, probe_slice
from tutor.grading.quiz import truth_for


def variants(lesson: Lesson, count: int):
    """(variant_seed, lesson, label): own sizes first, then sizes that tell every size name apart
    (for symbolic shapes), then the ranges' corners, then draws."""
    yield None, lesson, ""
    if any(kind_of(q).wants_distinct_sizes(q) for q in lesson.questions):
        distinct = distinguishing_variant(lesson)
        if distinct:
            yield 0, distinct, "sizes that tell every size name apart"
    vary = lesson.model.vary
    if not vary:
        return
    for end, label in ((0, "smallest"), (1, "largest")):
        fixed = {name: (pair[end], pair[end]) for name, pair in vary.items()}
        setup = lesson.model.model_copy(update={"vary": fixed})
        yield 0, lesson.model_copy(update={"model": setup}), f"the {label} sizes in model.vary"
    for seed in range(1, count + 1):
        yield seed, lesson, f"variant seed {seed}"


def distinguishing_variant(lesson: Lesson) -> Lesson | None:
    """The lesson at sizes where every size name differs (None: no such sizes fit)."""
    fixed = distinguishing_sizes(lesson)
    if not fixed:
        return None
    setup = lesson.model.model_copy(update={"vary": {k: (v, v) for k, v in fixed.items()}})
    return lesson.model_copy(update={"model": setup})


def check_live(lesson: Lesson, hub, pinned: Pinned, count: int = 3, formula_ok: bool = True) -> None:
    from tutor.live.compute import compute_live

    seen: set[str] = set()
    own = None
    for seed, variant_lesson, label in variants(lesson, count):
        pinned.first_only = bool(label)
        try:
            live = compute_live(variant_lesson, hub, seed)
        except Exception as error:   # CheckpointError, sizes that do not fit: all the author's to fix
            pinned.add(_setup_field(lesson, error, label), _model_error(error, label))
            continue
        if live.variant in seen:
            continue
        seen.add(live.variant)
        where = M_(" (with {variant}: {label})", variant=live.variant, label=label) if label else ""
        if not label:
            own = live
            _check_vocabulary(lesson, hub, pinned)
        LiveChecker(lesson, live, pinned, where, own_sizes=not label).run(formula_ok)
    pinned.first_only = False
    if own is not None:
        _check_axis_sizes(lesson, hub, pinned, own)


def _check_axis_sizes(lesson: Lesson, hub, pinned: Pinned, own) -> None:
    """Shape-like questions whose own sizes cannot tell two axes apart (tutor.authoring.axis_sizes)."""
    from tutor.authoring.axis_sizes import same_size_axes
    from tutor.live.compute import compute_live

    if not any(kind_of(q).answer_has_axes for q in lesson.questions):
        return
    variant = distinguishing_variant(lesson)
    if variant is None:
        return
    try:
        distinct = compute_live(variant, hub, 0)
    except Exception:   # already reported by check_live for these sizes, when it runs them
        return
    for found in same_size_axes(lesson, own, distinct):
        question = lesson.questions[found.index]
        pinned.add(("questions", found.index, "probe" if getattr(question, "probe", None) else "answer"),
                   found.message(lesson))


def distinguishing_sizes(lesson: Lesson) -> dict[str, int] | None:
    """B, L (and D, H for random weights) at or above the lesson's own, with B, L, H, D_head, D
    and N all different, so a symbolic answer that is right only by coincidence is caught."""
    setup = lesson.model
    rows = setup.rows
    trained = setup.weights != "random"
    heads = [4] if trained else range(setup.n_head or 2, 17)
    n_layer = 2 if trained else setup.n_layer or 1
    for H in heads:
        widths = [16] if trained else range(max(1, (setup.d_model or 8) // H), 513 // H + 1)
        for D_head in widths:
            for B in range(len(rows), 17):
                for L in range(len(rows[0]), 65):
                    values = [B, L, H, D_head, H * D_head, n_layer]
                    if len(set(values)) == len(values) and H * D_head <= 512:
                        fixed = {"B": B, "L": L}
                        return fixed if trained else fixed | {"D": H * D_head, "H": H}
    return None


def _setup_field(lesson: Lesson, error: Exception, label: str) -> tuple:
    text = str(error)
    if type(error).__name__ == "CheckpointError":
        return ("model", "weights")
    if label and lesson.model.vary:
        return ("model", "vary")
    if "block_size" in text:
        return ("model", "text")
    if "divisible" in text:
        return ("model", "d_model")
    return ("model",)


def _model_error(error: Exception, label: str) -> str:
    where = f" with {label}" if label else ""
    if type(error).__name__ == "CheckpointError":
        return (f"weights: trained needs the default checkpoint, which could not be loaded: {error}; "
                "rebuild it (see the README) or use weights: random")
    return f"the lesson's model cannot run{where}: {error}"


def _check_vocabulary(lesson: Lesson, hub, pinned: Pinned) -> None:
    from tutor.model import CharTokenizer

    tokenizer = hub.tokenizer if lesson.model.weights == "trained" and hub.tokenizer else CharTokenizer()
    # token-id rows are checked against the vocabulary when the model runs
    unknown = sorted({ch for row in lesson.model.rows if isinstance(row, str) for ch in row if ch not in tokenizer.chars})
    if unknown:
        pinned.add(("model", "text"), M_("characters {chars!r} are not in the model's vocabulary and "
                                         "would be read as '?'; use printable ASCII", chars="".join(unknown)))


class LiveChecker:
    """Every probe, question, answer and the formula, against one run of the model."""

    def __init__(self, lesson: Lesson, live, pinned: Pinned, where: str, own_sizes: bool):
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
        """No answer in the text a learner reads before predicting it (see tutor.live.leaks)."""
        from tutor.live.leaks import find_leaks

        for leak in find_leaks(self.lesson, self.live.tensors, self.live.sizes, self.truths):
            self.given_away.add(leak.question)
            self.pinned.add(leak.loc, leak.message(self.lesson), placeholder_at(self.pinned, leak.loc, leak.offset))
        from tutor.live.leaks import answers_in_questions, earlier_answer_message

        for leak in answers_in_questions(self.lesson, self.live.tensors, self.live.sizes, self.truths):
            if leak.question < leak.loc[1] and leak.loc[2] in ("prompt", "hints"):
                self.pinned.warn(leak.loc, earlier_answer_message(self.lesson, leak),
                                 placeholder_at(self.pinned, leak.loc, leak.offset))
        from tutor.live.reveal_leaks import find_reveal_leaks

        for shown in find_reveal_leaks(self.lesson, self.live.tensors, self.live.sizes, self.truths,
                                       self.live.token_labels):
            self.given_away.add(shown.question)
            self.pinned.add(shown.loc, shown.message(self.lesson))
        from tutor.authoring.choice_giveaway import long_right_choices

        for found in long_right_choices(self.lesson, self.truths):
            self.pinned.warn(("questions", found.index, "choices", found.choice), found.message(self.lesson))
        if self.pinned.path.is_file():   # translations beside the file get the same guard
            from tutor.authoring.overlay_leaks import overlay_leaks

            found = overlay_leaks(self.lesson, self.pinned.path, self.live.tensors, self.live.sizes, self.truths)
            self.pinned.problems += [problem for problem in found if problem not in self.pinned.problems]

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
                                    placeholder_at(self.pinned, loc, item.start))

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

