"""A question whose answer a lesson before it already states, or already asked.

The leak checks (tutor.live.leaks, tutor.live.reveal_leaks) read one lesson; a learner reads the
course.  A later lesson that asks ln 96 after pr-cross-entropy's reveal said "log 96 ≈ 4.56", or the
shape of ``blocks.0.attn.q`` after la-qkv-projection asked it, tests memory, not the idea it
teaches.  So each question is searched, with its kind's own ``shown_in``, in what the lessons before
it state: their explanation, prompts, hints and reveal words filled with *their* live numbers on the
same model the learner has, and each of their answers as its reveal shows it; and compared with the
answers those lessons' questions already asked (its kind's ``same_answer``; for a shape, the same
probe slice).

"Before it" is the lesson's prerequisites, transitively.  Every lesson before it on the roadmap
was measured too (issue 31, /work/notes11/xcheck.md): on the course of December 2026 it gave 7
warnings where the prerequisites gave 3, and 3 of the 4 it added were coincidences between
unrelated lessons (gelu-gap's 4.43 against forward-kl's 4.427).  Matches a person would not call a
repeat are left out (each kind's ``distinctive`` hook, tutor.grading.round_numbers; ``written_precisely``): without that the prerequisites gave
40 warnings, 37 of them a size, a count or a round value (2, 4, '1.0000', '0.7').  A warning, not a
failure: the content is the author's to rework.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from tutor.common.i18n import M_
from tutor.grading.answer_text import numbers_in
from tutor.grading.kinds import kind_of
from tutor.grading.round_numbers import distinctive_number
from tutor.live.leaks import filled

PREREQUISITES, ROADMAP = "prerequisites", "roadmap"


@dataclass(frozen=True)
class Stated:
    """One thing an earlier lesson puts on screen: a text field as filled, or a revealed answer."""
    lesson: str          # the earlier lesson's id
    where: object        # the field, in words (a message)
    text: str            # as the screen shows it
    question: object = None   # for a revealed answer: the earlier question (same_answer compares it)
    truth: object = None


@dataclass
class Statements:
    """What one lesson states, on its own sizes: built once per run (tutor.authoring.course_repeats.EarlierLessons)."""
    lesson_id: str
    texts: list[Stated] = field(default_factory=list)
    answers: list[Stated] = field(default_factory=list)


@dataclass(frozen=True)
class Repeat:
    question: int        # the later question's index
    stated: Stated       # where an earlier lesson states it
    shown: str           # the answer as stated there
    asked: bool          # the earlier lesson asked it (same answer), not only stated it
    relation: str        # PREREQUISITES or ROADMAP

    def message(self, lesson) -> str:
        later = lesson.questions[self.question]
        label = short_label(self.question, later.id)
        relation = M_("a prerequisite") if self.relation == PREREQUISITES else M_("earlier on the roadmap")
        if self.asked:
            return M_("{later} asks again what {earlier} ({relation}) already asked: its {where}, {shown!r} there; "
                      "ask the next idea this lesson adds, not the earlier answer again",
                      later=label, earlier=self.stated.lesson, relation=relation, where=self.stated.where,
                      shown=self.shown)
        return M_("{later}'s answer is already stated by {earlier} ({relation}): its {where} states {shown!r}; "
                  "ask the next idea this lesson adds, not the earlier answer again",
                  later=label, earlier=self.stated.lesson, relation=relation, where=self.stated.where, shown=self.shown)


def short_label(index: int, question_id: str):
    return M_("question {number} ({id!r})", number=index + 1, id=question_id)


def statements_of(lesson, tensors, sizes, truths: dict[int, object]) -> Statements:
    """The explanation, prompts, hints and reveal words filled with this lesson's live numbers, and
    each answer as its reveal shows it."""
    found = Statements(lesson.id)

    def add(where, raw: str) -> None:
        if raw:
            found.texts.append(Stated(lesson.id, where, filled(raw, tensors, sizes)[0]))

    add(M_("explanation"), lesson.explanation)
    for i, question in enumerate(lesson.questions):
        label = short_label(i, question.id)
        add(M_("prompt of {question}", question=label), question.prompt)
        for j, hint in enumerate(question.hints):
            add(M_("hint {number} of {question}", number=j + 1, question=label), hint)
        add(M_("reveal of {question}", question=label), question.reveal or "")
        if i in truths:
            found.answers.append(Stated(lesson.id, M_("answer to {question}", question=label), truths[i].display,
                                        question, truths[i]))
    return found


def earlier_ids(catalog, lesson_id: str, scope: str = PREREQUISITES) -> list[tuple[str, str]]:
    """(lesson id, relation) of the lessons a learner meets before ``lesson_id``: its prerequisites,
    transitively, in roadmap order; with ``scope`` ROADMAP, then every other lesson before it on the
    roadmap (tracks in the index's order, lessons by position, as the roadmap screen lists them)."""
    order = [item.lesson.id for item in catalog.ordered()]
    place = {lid: n for n, lid in enumerate(order)}
    needed, stack = set(), [lesson_id]
    while stack:
        item = catalog.get(stack.pop())
        for name in item.lesson.prerequisites if item else ():
            if name not in needed and name != lesson_id:
                needed.add(name)
                stack.append(name)
    found = [(lid, PREREQUISITES) for lid in sorted(needed, key=lambda lid: place.get(lid, len(order)))
             if catalog.get(lid)]
    if scope == ROADMAP and lesson_id in place:
        found += [(lid, ROADMAP) for lid in order[:place[lesson_id]] if lid not in needed]
    return found


class EarlierLessons:
    """Each lesson's statements, computed once per ``lessons check`` run on the hub the check uses.

    The live check registers a lesson's own run (so a whole-course check computes no lesson twice);
    a lesson not checked in this run (a file checked alone: its prerequisites) is run here."""

    def __init__(self, catalog, hub, scope: str = PREREQUISITES):
        self.catalog, self.hub, self.scope = catalog, hub, scope
        self.known: dict[str, Statements | None] = {}

    def register(self, lesson, tensors, sizes, truths) -> None:
        self.known[lesson.id] = statements_of(lesson, tensors, sizes, truths)

    def statements(self, lesson_id: str) -> Statements | None:
        if lesson_id not in self.known:
            self.known[lesson_id] = self._compute(lesson_id)
        return self.known[lesson_id]

    def _compute(self, lesson_id: str) -> Statements | None:
        from tutor.grading.quiz import truth_for
        from tutor.live.compute import compute_live

        item = self.catalog.get(lesson_id)
        if item is None:
            return None
        try:
            live = compute_live(item.lesson, self.hub)
        except Exception:   # its requirement is unmet or it is broken: its own check says so
            return None
        truths = {}
        for i, question in enumerate(item.lesson.questions):
            try:
                truths[i] = truth_for(question, live.tensors, live.sizes)
            except Exception:   # reported by that lesson's own check
                continue
        return statements_of(item.lesson, live.tensors, live.sizes, truths)

    def before(self, lesson_id: str) -> list[tuple[Statements, str]]:
        found = []
        for lid, relation in earlier_ids(self.catalog, lesson_id, self.scope):
            statements = self.statements(lid)
            if statements is not None:
                found.append((statements, relation))
        return found


def find_repeats(lesson, truths: dict[int, object], earlier: list[tuple[Statements, str]]) -> list[Repeat]:
    """The first place, in the order given, that states or asked each question's answer."""
    found = []
    for index, truth in sorted(truths.items()):
        question = lesson.questions[index]
        if not kind_of(question).distinctive(question, truth):
            continue
        hit = next((repeat for statements, relation in earlier
                    for repeat in _repeats_in(index, question, truth, statements, relation)), None)
        if hit:
            found.append(hit)
    return found


def _repeats_in(index: int, question, truth, statements: Statements, relation: str):
    kind = kind_of(question)
    for stated in statements.answers:
        if asked_before(question, truth, stated.question, stated.truth):
            yield Repeat(index, stated, stated.truth.display, True, relation)
    if kind.answer_is_a_shape:
        return   # the same letters or sizes in prose are another tensor's as often as this one's
    for stated in statements.texts + statements.answers:
        hit = kind.shown_in(question, stated.text, truth)
        if hit and written_precisely(stated.text[hit[0]:hit[1]]):
            yield Repeat(index, stated, stated.text[hit[0]:hit[1]], False, relation)


def asked_before(question, truth, earlier, earlier_truth) -> bool:
    """The earlier question asked this one's answer: a shape of the same slice of the same tensor
    (at that lesson's sizes: (B, L, D) is the embeddings', the stream's and the attention output's
    alike, so the letters alone say nothing), else the same answer as its kind compares them."""
    if kind_of(question).answer_is_a_shape:
        return kind_of(earlier).answer_is_a_shape and _probe(question) is not None and _probe(question) == _probe(earlier)
    return earlier.kind == question.kind and kind_of(question).same_answer(question, truth, earlier, earlier_truth)


def written_precisely(shown: str) -> bool:
    """The answer as another lesson writes it is itself not round ('4.56', '0.982', '(B, H, L, L)'):
    '1.000' or '0.250' there is another quantity's round value as often as this answer rounded."""
    written = numbers_in(shown)
    if not written or re.search(r"[^\W\d_]", re.sub(r"[eE][-+−]?\d+|inf(?:inity)?", "", shown)):
        return True   # a formula, a phrase, a shape in symbols
    return any(distinctive_number(number.value) for number in written)


def _probe(question) -> str | None:
    """The probe reference as written, spaces aside (``embed[:, 1:]`` and ``embed[:,1:]`` are one slice)."""
    probe = getattr(question, "probe", None)
    return "".join(probe.split()) if probe else None
