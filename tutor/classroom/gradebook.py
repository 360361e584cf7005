"""The class report as CSV, for a gradebook or a spreadsheet.

Written with a UTF-8 byte-order mark, without which LibreOffice and Excel read 张伟 as
``å¼ ä¼Ÿ``.  Every text cell came from a learner's file, and a spreadsheet runs a cell that starts
with ``=``, ``+``, ``-`` or ``@`` as a formula (CSV injection): such a cell gets a leading
apostrophe, which spreadsheets show as text.  A plain number is not a formula, so ``-64`` (a
wrong answer a math class gives often) stays ``-64``.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from tutor.classroom.report import ClassReport
from tutor.common.safe_files import write_atomically

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
BOM = "\ufeff"


def cell(text: str) -> str:
    if text.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def lessons_csv(report: ClassReport) -> str:
    """One row per learner and lesson (never-opened lessons too): what a gradebook takes."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["learner", "lesson", "questions", "answered", "tried", "right_first_time", "hints", "give_ups",
                     "seconds"])
    for row in report.lessons:
        writer.writerow([cell(row.learner), cell(row.lesson_id), row.questions, row.answered, row.tried, row.right_first,
                         row.hints, row.give_ups, round(row.seconds)])
    return out.getvalue()


def questions_csv(report: ClassReport) -> str:
    """One row per question: right first time, and the commonest wrong answers with counts."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    width = max((len(q.wrong) for q in report.questions), default=0)
    header = ["lesson", "question", "prompt", "learners", "tried", "right_first_time", "percent_right_first_time"]
    for n in range(1, width + 1):
        header += [f"wrong_answer_{n}", f"wrong_answer_{n}_learners"]
    writer.writerow(header + ["other_wrong_answers", "other_wrong_answers_learners"])
    for q in report.questions:
        percent = "" if q.percent is None else round(q.percent)
        row = [cell(q.lesson_id), cell(q.question_id), cell(q.prompt), q.learners, q.tried, q.right_first, percent]
        for wrong in q.wrong:
            row += [cell(wrong.text), wrong.learners]
        row += ["", ""] * (width - len(q.wrong))
        writer.writerow(row + [q.other_answers, q.other_learners])
    return out.getvalue()


def write_csv(path: str | Path, text: str) -> None:
    """Atomically, never through a link or into a FIFO, with the byte-order mark; UnsafeFileError otherwise."""
    write_atomically(path, (BOM + text).encode("utf-8"))
