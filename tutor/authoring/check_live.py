"""The live half of ``tutor lessons check``: run the lesson's model and answer every question.

Answers come from the model, so what can go wrong is the lesson asking for something the
model does not have: a probe that does not exist, a slice out of range for some sizes in
``model.vary``, an answer written in the file that the model contradicts, a formula that does
not reproduce its probe.  Each is checked on the lesson's own sizes, on the smallest and the
largest sizes its ranges allow, and on a few random draws, since a learner may meet any.
"""
from __future__ import annotations

import itertools

from tutor.common.i18n import M_
from tutor.authoring.pinned import Pinned, placeholder_at
from tutor.course.schema import Lesson
from tutor.grading.kinds import kind_of
from tutor.live.claims_check import ClaimsChecker


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
    for corner in itertools.product((0, 1), repeat=len(vary)):   # the mixed corners: B largest with L smallest, …
        if len(set(corner)) < 2:
            continue
        fixed = {name: (pair[end], pair[end]) for (name, pair), end in zip(vary.items(), corner)}
        setup = lesson.model.model_copy(update={"vary": fixed})
        where = ", ".join(f"{name}={pair[0]}" for name, pair in fixed.items())
        yield 0, lesson.model_copy(update={"model": setup}), f"a corner of model.vary ({where})"
    for seed in range(1, count + 1):
        yield seed, lesson, f"variant seed {seed}"


def distinguishing_variant(lesson: Lesson) -> Lesson | None:
    """The lesson at sizes where every size name differs (None: no such sizes fit)."""
    fixed = distinguishing_sizes(lesson)
    if not fixed:
        return None
    setup = lesson.model.model_copy(update={"vary": {k: (v, v) for k, v in fixed.items()}})
    return lesson.model_copy(update={"model": setup})


def check_live(lesson: Lesson, hub, pinned: Pinned, count: int = 3, formula_ok: bool = True, earlier=None) -> None:
    """``earlier``: the course's lessons before this one (tutor.authoring.course_repeats.EarlierLessons), for the
    warning about a question a lesson before it already answers; None leaves that check out."""
    from tutor.live.compute import compute_live

    seen: set[str] = set()
    own = None
    drawn = []   # (live, where) for every other size a learner may meet: its axes must be told apart too
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
        else:
            drawn.append((live, where))
        checker = LiveChecker(lesson, live, pinned, where, own_sizes=not label)
        checker.run(formula_ok)
        if not label and earlier is not None:
            check_repeats(lesson, live, checker.truths, pinned, earlier)
    pinned.first_only = False
    if own is not None:
        _check_axis_sizes(lesson, hub, pinned, own, drawn)


def check_repeats(lesson: Lesson, live, truths: dict, pinned: Pinned, earlier) -> None:
    """A question whose answer a lesson before it states or asked (tutor.authoring.course_repeats): a
    warning at the question; and this lesson's own statements kept for the lessons after it."""
    from tutor.authoring.course_repeats import find_repeats

    earlier.register(lesson, live.tensors, live.sizes, truths)
    for repeat in find_repeats(lesson, truths, earlier.before(lesson.id)):
        pinned.warn(("questions", repeat.question), repeat.message(lesson))


def _check_axis_sizes(lesson: Lesson, hub, pinned: Pinned, own, drawn=()) -> None:
    """Shape-like questions whose sizes cannot tell two axes apart (tutor.authoring.axis_sizes): at the
    lesson's own sizes, and at every other size the check ran (corners, draws), since "new sizes" can
    give a learner any of them (la-tensors' embed[:, 1:-1] was (3, 3, 8) at B = 3, L = 5)."""
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
    reported = set()
    for live, where in ((own, ""), *drawn):
        if live.variant == distinct.variant:
            continue
        for found in same_size_axes(lesson, live, distinct):
            if found.index in reported:
                continue
            reported.add(found.index)
            question = lesson.questions[found.index]
            pinned.add(("questions", found.index, "probe" if getattr(question, "probe", None) else "answer"),
                       found.message(lesson) + where)


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


class LiveChecker(ClaimsChecker):
    """The lesson's claims (tutor.live.lesson_claims) placed at their lines in the file, and what only
    an author weighs: a later prompt or hint that states an earlier answer, a right choice longer than
    the rest, and the translations beside the file."""

    pinned: Pinned

    def at(self, loc: tuple, offset: int) -> tuple[int, int] | None:
        return placeholder_at(self.pinned, loc, offset)

    def check_leaks(self) -> None:
        super().check_leaks()
        from tutor.authoring.choice_giveaway import long_right_choices
        from tutor.live.leaks import answers_in_questions, earlier_answer_message

        for leak in answers_in_questions(self.lesson, self.live.tensors, self.live.sizes, self.truths):
            if leak.question < leak.loc[1] and leak.loc[2] in ("prompt", "hints"):
                self.pinned.warn(leak.loc, earlier_answer_message(self.lesson, leak), self.at(leak.loc, leak.offset))
        self.check_box()
        self.check_hints()
        for found in long_right_choices(self.lesson, self.truths):
            self.pinned.warn(("questions", found.index, "choices", found.choice), found.message(self.lesson))
        self.check_says()
        if self.pinned.path.is_file():   # translations beside the file get the same guard
            from tutor.authoring.overlay_leaks import overlay_leaks, overlay_says_leaks

            found = overlay_leaks(self.lesson, self.pinned.path, self.live.tensors, self.live.sizes, self.truths)
            self.pinned.problems += [problem for problem in found if problem not in self.pinned.problems]
            found = overlay_says_leaks(self.lesson, self.pinned.path, self.truths)
            self.pinned.warnings += [warning for warning in found if warning not in self.pinned.warnings]

    def check_says(self) -> None:
        """A ``reject:`` entry's sentence that writes its question's answer (tutor.authoring.says_leaks)."""
        from tutor.authoring.says_leaks import says_leaks

        for leak in says_leaks(self.lesson, self.truths):
            loc = ("questions", leak.question, *leak.entry, "says")
            self.pinned.warn(loc, leak.message(self.lesson), self.at(loc, leak.offset))

    def check_box(self) -> None:
        """A formula box pinned open (``formula.given``) that answers a question of its lesson: the box
        rule would have folded it until that question was finished (tutor.session.formula_fold)."""
        if not self.lesson.formula.given:
            return
        from tutor.formulas.parse import FormulaError
        from tutor.live.box_leaks import box_leaks
        from tutor.live.formula_check import render_spec

        try:
            drawn = render_spec(self.lesson.formula)
        except FormulaError:
            drawn = None   # reported by the static check
        for leak in box_leaks(self.lesson, self.live.tensors, self.live.sizes, self.truths, drawn):
            self.pinned.warn(leak.loc, leak.message(self.lesson), self.at(leak.loc, leak.offset))

    def check_hints(self) -> None:
        """A hint that works its own question's answer out (its arithmetic gives the number, or it
        writes the formula in another form): one that writes the answer itself is the leak check's
        error already."""
        from tutor.live.leaks import answer_in, filled, question_label, raw_offset

        for index, truth in self.truths.items():
            question = self.lesson.questions[index]
            kind = kind_of(question)
            for number, hint in enumerate(question.hints):
                text, spans = filled(hint, self.live.tensors, self.live.sizes)
                if answer_in(text, question, truth) or not (hit := kind.computed_in(question, text, truth)):
                    continue
                loc = ("questions", index, "hints", number)
                self.pinned.warn(loc, M_("hint {number} of {question} works its answer out: {shown!r} gives {answer}; "
                                         "a hint may point the way, but the last step is the learner's",
                                         number=number + 1, question=question_label(index, question.id),
                                         shown=text[hit[0]:hit[1]], answer=truth.display),
                                 self.at(loc, raw_offset(hit[0], spans)))
