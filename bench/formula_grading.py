"""How long a formula answer takes to grade, and whether each question's own tests hold (issue 30).

For every shipped formula question: its ``accept:`` and ``reject:`` lines graded as the lesson
screen grades them (the verdict must be right / wrong with the nudge's word), with the slowest
grade's wall and CPU time; then the answer that froze the app for 12.5 minutes before SymPy had
a budget (co-flash-attention, the right answer + 1e-300·(sin¹⁰⁰ − cos¹⁰⁰)), timed alone.

    python bench/formula_grading.py            # every question
    python bench/formula_grading.py la-svd     # only these lessons
"""
from __future__ import annotations

import sys
import time

from tutor.course.catalog import load_catalog
from tutor.grading.answers import AnswerError
from tutor.grading.kinds.formula import Given, nudge_of, read
from tutor.grading.quiz import grade, truth_for
from tutor.live.compute import compute_live
from tutor.live.hub import ModelHub

FREEZE = "l1 * exp(m1 - m) + l2 * exp(m2 - m) + 1e-300*(sin(l1)**100 - cos(l2)**100)"


def verdict(question, text: str, truth, sizes) -> tuple[str, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        result = grade(question, text, truth, sizes)
        word = "right" if result.correct else nudge_of(question, Given(read(question, text)), truth).word
    except AnswerError as error:
        word = getattr(error, "word", "unreadable")
    return word, time.perf_counter() - wall, time.process_time() - cpu


def main(only: list[str]) -> int:
    hub, catalog, failures = ModelHub(), load_catalog(), 0
    print(f"{'lesson/question':48} {'accept':>7} {'reject':>7} {'held':>5} {'slowest s':>10} {'its cpu s':>10}")
    for item in catalog.ordered():
        lesson = item.lesson
        questions = [q for q in lesson.questions if q.kind == "formula"]
        if not questions or (only and lesson.id not in only):
            continue
        live = compute_live(lesson, hub)
        for question in questions:
            truth = truth_for(question, live.tensors, live.sizes)
            cases = [(text, "right") for text in question.accept] + \
                [(wrong.expr, wrong.nudge) for wrong in [*question.reject, *question.wrong]]
            graded = [(text, want, *verdict(question, text, truth, live.sizes)) for text, want in cases]
            held = sum(got == want for _text, want, got, _wall, _cpu in graded)
            failures += len(graded) - held
            slowest = max(graded, key=lambda case: case[3])
            print(f"{lesson.id + '/' + question.id:48} {len(question.accept):7} {len(cases) - len(question.accept):7} "
                  f"{held:>2}/{len(graded):<2} {slowest[3]:10.3f} {slowest[4]:10.3f}")
            for text, want, got, _wall, _cpu in graded:
                if got != want:
                    print(f"    expected {want}, got {got}: {text}")
    lesson = catalog.get("co-flash-attention").lesson
    question = next(q for q in lesson.questions if q.id == "merge-formula")
    live = compute_live(lesson, hub)
    truth = truth_for(question, live.tensors, live.sizes)
    word, wall, cpu = verdict(question, FREEZE, truth, live.sizes)
    print(f"\nthe freezing answer on co-flash-attention: {word} in {wall:.2f} s wall, {cpu:.3f} s CPU in this process "
          f"(SymPy's child has 0.5 s of CPU; before the budget: 12.5 min frozen)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
