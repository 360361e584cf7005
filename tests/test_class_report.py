"""``tutor class report``: learners' exports (versions 1 and 2) merged into first attempts per learner and
lesson and the class's most common wrong answers; a hostile or foreign file is named and skipped."""
import csv
import io
import json

import pytest

from tutor.classroom.exports import read_class
from tutor.classroom.gradebook import lessons_csv, questions_csv
from tutor.classroom.report import build_report
from tutor.cli.main import main
from tutor.common.i18n import set_language


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    set_language("en")


def answer(ts, question, text, correct, attempt=1, hints=0, lesson="la-shapes"):
    return {"timestamp": f"2026-03-0{ts}T10:00:00+00:00", "lesson_id": lesson, "question_id": question,
            "answer": text, "correct": correct, "hints_used": hints, "variant": None, "attempt": attempt}


def write(path, doc):
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture
def class_files(tmp_path):
    """Ana (version 2, named inside), ben.json (version 1), and a hostile file with an escape sequence."""
    ana = write(tmp_path / "export-1.json", {
        "format": "tutor-progress", "version": 2, "learner": "Ana", "last_position": None, "outcomes": [],
        "answers": [
            answer(1, "q1", "(2, 4)", False), answer(1, "q1", "(4, 2)", True, attempt=2),
            answer(2, "q2", "0.25", True),
            answer(3, "q1", "(4, 2)", True),                     # a review later: not the first attempt
            answer(2, "q1", "0.5", True, lesson="pr-softmax"),
        ]})
    ben = write(tmp_path / "ben.json", {
        "format": "tutor-progress", "version": 1,
        "answers": [answer(4, "q1", "(2,4)", False), answer(4, "q2", "0.25", True, hints=1),
                    answer(5, "q2", "1/4", True)]})
    hostile = write(tmp_path / "mallory.json", {
        "format": "tutor-progress", "version": 2, "learner": "Mallory", "outcomes": [],
        "answers": [answer(1, "q1", "\x1b]0;pwned\x07(2, 4)", False)]})
    return ana, ben, hostile


def test_three_exports_one_hostile_give_the_expected_tables(class_files):
    learners, problems = read_class(list(class_files))
    assert [learner.name for learner in learners] == ["Ana", "ben"]
    assert len(problems) == 1 and "mallory.json" in problems[0] and "answer #1" in problems[0]
    assert "\x1b" not in problems[0]
    report = build_report(learners)
    assert [(r.learner, r.lesson_id, r.answered, r.right_first) for r in report.lessons] == [
        ("Ana", "la-shapes", 2, 1), ("Ana", "pr-softmax", 1, 1), ("ben", "la-shapes", 2, 0)]
    # q1: both first answered "(2, 4)" (spaced differently): the belief the class shares; ben's q2 used a hint
    assert [(q.lesson_id, q.question_id, q.learners, q.right_first, q.wrong) for q in report.questions] == [
        ("la-shapes", "q1", 2, 0, (("(2, 4)", 2),)), ("la-shapes", "q2", 2, 1, ()),
        ("pr-softmax", "q1", 1, 1, ())]
    rows = list(csv.reader(io.StringIO(lessons_csv(report))))
    assert rows == [["learner", "lesson", "questions_answered", "right_first_time"], ["Ana", "la-shapes", "2", "1"],
                    ["Ana", "pr-softmax", "1", "1"], ["ben", "la-shapes", "2", "0"]]
    rows = list(csv.reader(io.StringIO(questions_csv(report))))
    assert rows[1] == ["la-shapes", "q1", "2", "0", "(2, 4)", "2"]


def test_the_command_prints_the_tables_writes_csv_and_names_the_skipped_file(class_files, tmp_path, capsys):
    out_csv = tmp_path / "grades.csv"
    assert main(["class", "report", *map(str, class_files), "--csv", str(out_csv)]) == 1   # one file skipped
    out, err = capsys.readouterr()
    assert "Ana" in out and "ben" in out and "(2, 4) ×2" in out and "Mallory" not in out
    assert "skipped" in err and "mallory.json" in err and "\x1b" not in err + out
    assert out_csv.read_text().splitlines()[1] == "Ana,la-shapes,2,1"
    assert main(["class", "report", str(class_files[0]), str(class_files[1]), "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "第一次" in out or "首次" in out


@pytest.mark.parametrize("content", [b"[" * 100_000, b"not json", b'{"format": "other", "answers": []}',
                                     b'{"format": "tutor-progress", "version": 99, "answers": []}', b"\xff\xfe"])
def test_foreign_or_broken_files_are_skipped_never_merged(tmp_path, content):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    learners, problems = read_class([bad, tmp_path / "missing.json"])
    assert learners == [] and len(problems) == 2


def test_a_spreadsheet_formula_in_an_answer_is_written_as_text(tmp_path):
    file = write(tmp_path / "=cmd.json", {"format": "tutor-progress", "version": 1,
                                          "answers": [answer(1, "q1", "=HYPERLINK(\"x\")", False)]})
    report = build_report(read_class([file])[0])
    assert "'=cmd" in lessons_csv(report) and "'=HYPERLINK" in questions_csv(report)


def test_the_chinese_summary_line_and_skip_notice_read_as_chinese(class_files, capsys):
    """Before: "1 位学习者, 跳过 1 个文件" (an English comma) and "已跳过 无法读取 …"."""
    from tutor.common.i18n import set_language

    try:
        main(["--lang", "zh", "class", "report", *map(str, class_files)])
        out, err = capsys.readouterr()
        assert "2 位学习者，跳过 1 个文件" in out and "全班常见的错误想法" in out
        assert "tutor class report：跳过了一个文件：" in err
    finally:
        set_language("en")


def test_at_80_columns_ids_stay_whole_and_no_header_is_cut():
    """Before: 'la-contextual-embeddi…' and '最常见的错误答案（人 …': ids and headers cut with an ellipsis."""
    from rich.console import Console

    from tutor.classroom.report import ClassReport, LessonResult, QuestionResult
    from tutor.cli.classroom import render

    long_id = "la-contextual-embeddings"
    report = ClassReport(("Ana",), (LessonResult("Ana", long_id, 2, 1),),
                         (QuestionResult(long_id, "first-differ", 2, 1, (("(2, 4)", 1),)),))
    for language in ("en", "zh"):
        set_language(language)
        out = io.StringIO()
        render(report, Console(file=out, width=80, color_system=None))
        text = out.getvalue()
        assert "…" not in text and text.count(long_id) == 2, text
