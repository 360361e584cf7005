"""The class report as CSV, for a gradebook or a spreadsheet.

Every text cell came from a learner's file, and a spreadsheet runs a cell that starts with
``=``, ``+``, ``-`` or ``@`` as a formula (CSV injection): such cells get a leading apostrophe,
which spreadsheets show as text and do not print.  Numbers are written as numbers.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

from tutor.classroom.report import ClassReport
from tutor.common.safe_files import write_atomically

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def lessons_csv(report: ClassReport) -> str:
    """One row per learner and lesson: the first-attempt results a gradebook takes."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["learner", "lesson", "questions_answered", "right_first_time"])
    for row in report.lessons:
        writer.writerow([cell(row.learner), cell(row.lesson_id), row.answered, row.right_first])
    return out.getvalue()


def questions_csv(report: ClassReport) -> str:
    """One row per question: right first time, and the most common wrong answers with counts."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    width = max((len(q.wrong) for q in report.questions), default=0)
    header = ["lesson", "question", "learners", "right_first_time"]
    for n in range(1, width + 1):
        header += [f"wrong_answer_{n}", f"wrong_answer_{n}_learners"]
    writer.writerow(header)
    for q in report.questions:
        row = [cell(q.lesson_id), cell(q.question_id), q.learners, q.right_first]
        for text, count in q.wrong:
            row += [cell(text), count]
        writer.writerow(row)
    return out.getvalue()


def write_csv(path: str | Path, text: str) -> None:
    """Atomically, never through a link or into a FIFO; UnsafeFileError otherwise."""
    write_atomically(path, text.encode("utf-8"))
