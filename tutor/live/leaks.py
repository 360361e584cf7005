"""Does the lesson give an answer away before the learner predicts it?

For each question, the text a learner has seen before answering (the title, the explanation,
earlier questions' prompts, hints and reveals, the question's own
prompt and hints) is filled with the live numbers exactly as the screen fills it, and
searched for the live answer in the forms people write it.  No Textual, no torch: the live
tensors arrive as numpy arrays.

Where an answer is written, and in which forms, is each question kind's ``shown_in`` hook (the
searches are in tutor.grading.answer_text), so a new kind brings its own leak check.
"""
from __future__ import annotations

from dataclasses import dataclass

from tutor.common.i18n import M_
from tutor.course.placeholders import Placeholder, PlaceholderError, scan, value_of
from tutor.grading.kinds import kind_of


@dataclass(frozen=True)
class Leak:
    loc: tuple          # the text field where the answer appears
    offset: int         # character offset in the field as written in the file
    question: int       # index of the question whose answer appears
    shown: str          # the answer as it appears in the text

    def message(self, lesson) -> str:
        question = lesson.questions[self.question]
        where = M_("its own prompt") if self.loc[:2] == ("questions", self.question) and self.loc[2] == "prompt" \
            else M_("one of its hints (a hint may help, not answer)") \
            if self.loc[:3] == ("questions", self.question, "hints") else M_("text shown before it")
        return M_("gives away the answer to {question}: {shown!r} is here, in {where}; reword it so the learner "
                  "still has to predict (a live number belongs in that question's reveal)",
                  question=question_label(self.question, question.id), shown=self.shown, where=where)


def earlier_answer_message(lesson, leak: Leak) -> str:
    """A later question's prompt or hint that writes an earlier question's answer (a warning: the
    learner's runtime makes the earlier question not got if it is read first, so the text is
    better reworded)."""
    index, question = leak.loc[1], lesson.questions[leak.question]
    where = M_("its prompt") if leak.loc[2] == "prompt" else M_("one of its hints")
    return M_("{later} states the answer to {earlier} ({shown!r}) in {where}; a learner who skips ahead (Ctrl+N) "
              "reads it first, and {earlier} then counts as not got (answer seen): reword it so it does not "
              "repeat that answer", later=question_label(index, lesson.questions[index].id),
              earlier=question_label(leak.question, question.id), shown=leak.shown, where=where)


def question_label(index: int, question_id: str) -> str:
    """How every author message names a question: counted from 1 as a reader counts, with the
    0-based path the message's field column uses and the id, so 'question 3' never sits beside
    'questions.2' looking like a different question."""
    return M_("question {number} (questions.{index}, {id!r})", number=index + 1, index=index, id=question_id)


def seen_before(lesson, index: int) -> list[tuple[tuple, str]]:
    """(field, raw text) of everything on screen before question ``index`` is answered."""
    # the formula box and its "In words" line are not here: the box rule folds a box that answers an
    # untried question (tutor.live.box_leaks, tutor.session.formula_fold), and the check warns where
    # ``formula.given`` keeps it open
    texts = [(("title",), lesson.title), (("explanation",), lesson.explanation)]
    for i, question in enumerate(lesson.questions[: index + 1]):
        texts.append((("questions", i, "prompt"), question.prompt))
        texts += [(("questions", i, "hints", j), hint) for j, hint in enumerate(question.hints)]
        if i < index and question.reveal:
            texts.append((("questions", i, "reveal"), question.reveal))
    return texts


def filled(text: str, tensors, sizes) -> tuple[str, list[tuple[int, int, int, int]]]:
    """The text as the screen shows it, and (filled start, filled end, raw start, raw end) of each
    placeholder."""
    out, spans, position = [], [], 0
    for item in scan(text):
        out.append(text[position:item.start])
        shown = ""
        if isinstance(item, Placeholder):
            try:
                shown = value_of(item, tensors, sizes)
            except PlaceholderError:
                shown = ""
        start = sum(map(len, out))
        spans.append((start, start + len(shown), item.start, item.end))
        out.append(shown)
        position = item.end
    out.append(text[position:])
    return "".join(out), spans


def raw_offset(offset: int, spans: list[tuple[int, int, int, int]]) -> int:
    """Where a character of the filled text comes from in the file's text (a placeholder's start
    for any character of its value)."""
    delta = 0
    for filled_start, filled_end, raw_start, raw_end in spans:
        if offset < filled_start:
            break
        if offset < filled_end:
            return raw_start
        delta = raw_end - filled_end
    return offset + delta



def answer_in(text: str, question, truth) -> tuple[int, int, str] | None:
    """(start, end, as shown) of the question's answer in ``text``, if it is given away there."""
    hit = kind_of(question).shown_in(question, text, truth)
    return (hit[0], hit[1], text[hit[0]:hit[1]]) if hit else None


def find_leaks(lesson, tensors, sizes, truths: dict[int, object]) -> list[Leak]:
    """Every place a question's live answer (``truths[i]``) appears before it is answered."""
    leaks = []
    shown: dict[tuple, tuple[str, list]] = {}   # each field filled once, though every later question rereads it
    for index, truth in truths.items():
        question = lesson.questions[index]
        kind = kind_of(question)
        if any(lesson.questions[j].kind == question.kind and
               kind.same_answer(question, truth, lesson.questions[j], truths[j]) for j in truths if j < index):
            continue   # the learner predicted this very answer before: seeing it again gives nothing away
        for loc, raw in seen_before(lesson, index):
            if kind.prompt_may_show and loc == ("questions", index, "prompt"):
                continue
            if loc not in shown:
                shown[loc] = filled(raw, tensors, sizes)
            text, spans = shown[loc]
            hit = answer_in(text, question, truth)
            if hit:
                leaks.append(Leak(loc, raw_offset(hit[0], spans), index, hit[2]))
    return leaks


def own_texts(question, index: int) -> list[tuple[tuple, str]]:
    """(field, raw text) a question puts on screen: its prompt and hints, then its reveal's words."""
    texts = [(("questions", index, "prompt"), question.prompt)]
    texts += [(("questions", index, "hints", j), hint) for j, hint in enumerate(question.hints)]
    if question.reveal:
        texts.append((("questions", index, "reveal"), question.reveal))
    return texts


def answers_in_questions(lesson, tensors, sizes, truths: dict[int, object]) -> list[Leak]:
    """Every other question's answer that a question's own prompt, hints or reveal words write,
    earlier questions' answers too: a learner may skip ahead (Ctrl+N) and read a later prompt
    first.  The learner's runtime resolves what these show (tutor.session.look_ahead); ``lessons
    check`` warns about a later prompt or hint that states an earlier answer."""
    found = []
    for i, question in enumerate(lesson.questions):
        for loc, raw in own_texts(question, i):
            text, spans = filled(raw, tensors, sizes)
            for j, truth in truths.items():
                if j == i:
                    continue
                hit = answer_in(text, lesson.questions[j], truth)
                if hit:
                    found.append(Leak(loc, raw_offset(hit[0], spans), j, hit[2]))
    return found
