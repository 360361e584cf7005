"""``tutor class report``: learners' hand-ins read through their question records (as the app scores
them), merged into per-learner and per-question figures, and written as a table, CSV and one HTML
page; a hostile or foreign file is named and skipped."""
import csv
import gzip
import io
import json
from datetime import datetime, timedelta, timezone

import pytest

from tutor.classroom.exports import read_class
from tutor.classroom.gradebook import cell, lessons_csv, questions_csv
from tutor.classroom.page import render_page
from tutor.classroom.report import TOP_WRONG, CourseLesson, CourseQuestion, build_report
from tutor.cli.main import main
from tutor.common.i18n import set_language
from tutor.progress.io import export_json
from tutor.progress.records import Answer as Try
from tutor.progress.records import Mode
from tutor.progress.store import ProgressStore

T0 = datetime(2026, 3, 1, 10, 0, tzinfo=timezone.utc)
SIZES = "B=2, L=4, D=8, H=2"
COURSE = [CourseLesson("la-shapes", "Shapes", (CourseQuestion("q1", "The shape of x?"),
                                                CourseQuestion("q2", "How many numbers?"))),
          CourseLesson("la-never", "Never opened", (CourseQuestion("n1", "Unseen?"),))]


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


def home_export(tmp_path, name, plays, learner=None):
    """A home played through the store's own rules, exported as the app exports it."""
    with ProgressStore(tmp_path / f"home-{name}") as store:
        for i, (question, text, correct) in enumerate(plays):
            moment = T0 + timedelta(minutes=i)
            if text is None:
                store.record_give_up("la-shapes", question, Mode.SCORED, 3, SIZES, moment)
            else:
                store.record(Try("la-shapes", question, text, correct, 0, moment, SIZES,
                                 shown_at=moment - timedelta(seconds=30)))
        path = tmp_path / f"{name}.json.gz"
        export_json(store, path, now=T0, learner=learner, compress=True)
    return path


def test_a_give_up_then_the_revealed_answer_is_not_got_and_practice_never_counts(tmp_path):
    """Issue 29, route 2. Before: the report took the earliest answer row as the first attempt, so
    give up, reopen, type the revealed answer read as right first time (the app: not got)."""
    path = home_export(tmp_path, "ben", [("q1", None, None), ("q1", "(2, 4, 8)", True), ("q1", "(9, 9)", False)])
    learners, problems = read_class([path])
    assert problems == []
    report = build_report(learners, COURSE)
    q1 = report.questions[0]
    assert (q1.learners, q1.right_first, q1.missed) == (1, 0, 1)
    assert q1.wrong == []   # "(9, 9)" was practice: not a belief of the class
    assert report.learners[0].give_ups == 1 and report.learners[0].right_first == 0


def test_attempts_are_taken_in_attempt_order_not_timestamp_order(tmp_path):
    """Before: attempt 2 stamped earlier than attempt 1 (write contention) made the right answer the
    "first attempt": right first time.  The record says after a retry, and the wrong try is a belief."""
    doc = {"format": "tutor-progress", "version": 3, "last_position": None, "outcomes": [],
           "answers": [answer(2, "q1", "(4, 8)", False, attempt=1), answer(1, "q1", "(2, 4, 8)", True, attempt=2)],
           "records": [{"lesson_id": "la-shapes", "question_id": "q1", "tries": 2, "hints_used": 0,
                        "hints_before_first": 0, "variant": None, "outcome": "after_retry",
                        "updated": "2026-03-02T10:00:00+00:00"}]}
    report = build_report(read_class([write(tmp_path / "ana.json", doc)])[0], COURSE)
    q1 = report.questions[0]
    assert (q1.right_first, q1.after_retry) == (0, 1)
    assert [(w.text, w.learners) for w in q1.wrong] == [("(4, 8)", 1)]


def test_one_belief_in_full_width_ascii_or_any_spacing_and_the_rest_counted_as_others(tmp_path):
    plays = {"ana": "(4, 8)", "fay": "( 4 , 8 )", "zhang": "（4，8）"}
    files = [home_export(tmp_path, name, [("q1", text, False)], learner=name) for name, text in plays.items()]
    others = [f"({n}, 1)" for n in range(9)]   # three tries each, 9 answers: more than are listed
    for number, name in enumerate(("gus", "eli", "dana")):
        files.append(home_export(tmp_path, name, [("q2", text, False) for text in others[3 * number:3 * number + 3]]))
    report = build_report(read_class(files)[0], COURSE)
    q1, q2 = report.questions[:2]
    assert [(w.text, w.learners, w.variant) for w in q1.wrong] == [("(4, 8)", 3, SIZES)]
    assert len(q2.wrong) == TOP_WRONG == 6 and (q2.other_answers, q2.other_learners) == (3, 1)   # dana's


def test_every_learner_gets_a_row_for_every_lesson_and_a_summary(tmp_path):
    ana = home_export(tmp_path, "ana", [("q1", "(2, 4, 8)", True), ("q2", "64", True)], learner="Ana")
    ben = home_export(tmp_path, "ben", [("q1", "(4, 8)", False)])
    report = build_report(read_class([ana, ben])[0], COURSE)
    assert [(r.learner, r.lesson_id, r.questions, r.answered, r.right_first) for r in report.lessons] == [
        ("Ana", "la-shapes", 2, 2, 2), ("Ana", "la-never", 1, 0, 0),
        ("ben", "la-shapes", 2, 0, 0), ("ben", "la-never", 1, 0, 0)]
    ana_row, ben_row = report.learners
    assert (ana_row.lessons_done, ana_row.lessons_total, ana_row.not_opened) == (1, 2, ("la-never",))
    assert ana_row.seconds == 60 and ana_row.last_seen == T0 + timedelta(minutes=1)
    assert ben_row.answered == 0 and report.questions[0].open == 1
    assert [q.question_id for q in report.hardest_first()] == ["q1", "q2"]   # 50 % before 100 %
    assert [lesson.id for lesson in build_report(read_class([ana])[0], COURSE, ["la-never"]).course] == ["la-never"]


def test_a_wrong_first_try_then_stopping_is_tried_and_not_right_first_time_everywhere(tmp_path, capsys):
    """The first try is the score: learners who each typed one wrong first answer and stopped read
    "0 of 1", not "0 of 0", in the page, the CSV and the text table (the bench's hub class did)."""
    ben = home_export(tmp_path, "ben", [("q1", "(4, 8)", False)])
    cy = home_export(tmp_path, "cy", [("q1", "(8,)", False)])
    report = build_report(read_class([ben, cy])[0], COURSE)
    q1 = report.questions[0]
    assert (q1.tried, q1.learners, q1.open, q1.right_first, q1.percent) == (2, 0, 2, 0, 0)
    assert [q.question_id for q in report.hardest_first()] == ["q1"]
    assert [(who.tried, who.answered, who.right_first) for who in report.learners] == [(1, 0, 0), (1, 0, 0)]
    rows = list(csv.DictReader(io.StringIO(lessons_csv(report))))
    assert [(r["learner"], r["tried"], r["right_first_time"]) for r in rows if r["lesson"] == "la-shapes"] == [
        ("ben", "1", "0"), ("cy", "1", "0")]
    first = next(csv.DictReader(io.StringIO(questions_csv(report))))
    assert (first["tried"], first["right_first_time"], first["percent_right_first_time"]) == ("2", "0", "0")
    page = render_page(report, T0, [])
    assert "0 of 1 (0%)" in page and "Right first time: 0% (0 of 2)" in page
    capsys.readouterr()
    assert main(["--lang", "en", "class", "report", str(ben), str(cy)]) == 0
    assert "0 of 1" in capsys.readouterr().out


def test_the_csv_opens_as_utf8_and_guards_only_real_formulas(tmp_path):
    files = [home_export(tmp_path, "zhang", [("q1", "=cmd|' /C calc'!A0", False), ("q2", "-64", False)],
                         learner="张伟")]
    report = build_report(read_class(files)[0], COURSE)
    text = lessons_csv(report)
    assert next(csv.reader(io.StringIO(text)))[0] == "learner"
    questions = list(csv.reader(io.StringIO(questions_csv(report))))
    assert questions[1][7] == "'=cmd|' /C calc'!A0" and questions[2][7] == "-64"   # before: "'-64"
    assert [cell(t) for t in ("-64", "+1.5e3", "-inf", "+x", "@SUM(A1)", "(4, 8)")] == [
        "-64", "+1.5e3", "'-inf", "'+x", "'@SUM(A1)", "(4, 8)"]
    out = tmp_path / "grades.csv"
    assert main(["class", "report", str(files[0]), "--csv", str(out)]) == 0
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and "张伟".encode() in raw   # before: no byte-order mark


def test_the_html_page_is_one_offline_file_with_every_text_escaped(tmp_path):
    files = [home_export(tmp_path, "mallory", [("q1", "<script>alert(1)</script>", False)],
                         learner="<b>Mallory</b>")]
    report = build_report(read_class(files)[0], COURSE)
    page = render_page(report, T0, ["bad.json: <i>is not a tutor progress export</i>"])
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;b&gt;Mallory&lt;/b&gt;" in page and "<i>" not in page
    assert "src=" not in page and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert page.count("<svg") == 1   # the one lesson opened; the other says no one opened it
    assert "Lessons no learner has opened" in page and 'Never opened <code id="la-never">' in page
    set_language("zh")
    page = render_page(report, T0, [])
    assert '<html lang="zh">' in page and "全班报告" in page


def test_the_command_reads_an_exchange_writes_the_page_and_names_a_bad_file(tmp_path, capsys, monkeypatch):
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    home_export(tmp_path, "exchange/ana", [("q1", "(2, 4, 8)", True)], learner="Ana")
    (exchange / "bad.json").write_text('{"format": "tutor-progress", "version": 1, "answers": [{"x": %s}]}'
                                       % ("9" * 5000), encoding="utf-8")
    (exchange / ".ben.json.gz.x1.tmp").write_bytes(b"half")   # a hand-in being written: not read
    page = tmp_path / "report.html"
    monkeypatch.setattr("tutor.classroom.expected.live_truths", lambda catalog: lambda lesson, variant: None)
    assert main(["class", "report", "--exchange", str(exchange), "--html", str(page)]) == 1
    out, err = capsys.readouterr()
    assert "bad.json" in err and "4,300 digits" in err and ".tmp" not in err
    assert "Ana" in out and "1 learner, 1 file skipped" in out
    assert "Ana" in page.read_text(encoding="utf-8")
    assert main(["class", "report"]) == 2 and "exchange folder" in capsys.readouterr().err


@pytest.mark.parametrize("content", [b"[" * 100_000, b"not json", b'{"format": "other", "answers": []}',
                                     b'{"format": "tutor-progress", "version": 99, "answers": []}', b"\xff\xfe",
                                     gzip.compress(b"[" * 100_000, mtime=0)],
                         ids=["deep", "not-json", "other-format", "future-version", "not-utf8", "gzip-deep"])
def test_foreign_or_broken_files_are_skipped_never_merged(tmp_path, content):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    learners, problems = read_class([bad, tmp_path / "missing.json"])
    assert learners == [] and len(problems) == 2


def test_a_version_1_export_is_scored_by_the_migration_rules(tmp_path):
    ben = write(tmp_path / "ben.json", {
        "format": "tutor-progress", "version": 1,
        "answers": [answer(4, "q1", "(2,4)", False), answer(4, "q2", "0.25", True, hints=1)]})
    report = build_report(read_class([ben])[0], COURSE)
    assert [(q.question_id, q.learners, q.right_first) for q in report.questions[:2]] == [("q1", 1, 0), ("q2", 1, 0)]


def test_the_chinese_summary_line_and_skip_notice_read_as_chinese(tmp_path, capsys):
    ana = home_export(tmp_path, "ana", [("q1", "(2, 4, 8)", True)])
    bad = write(tmp_path / "bad.json", {"format": "other", "answers": []})
    main(["--lang", "zh", "class", "report", str(ana), str(bad)])
    out, err = capsys.readouterr()
    assert "1 位学习者，跳过 1 个文件" in out and "全班常见的错误想法" in out
    assert "tutor class report：跳过了一个文件：" in err


def test_at_80_columns_ids_stay_whole_and_no_header_is_cut(tmp_path):
    """Before: 'la-contextual-embeddi…' and '最常见的错误答案（人 …': ids and headers cut with an ellipsis."""
    from rich.console import Console

    from tutor.cli.classroom import render

    long_id = "la-contextual-embeddings"
    doc = {"format": "tutor-progress", "version": 1,
           "answers": [answer(1, "first-differ", "(2, 4)", False, lesson=long_id)]}
    report = build_report(read_class([write(tmp_path / "Ana.json", doc)])[0], [])
    for language in ("en", "zh"):
        set_language(language)
        out = io.StringIO()
        render(report, Console(file=out, width=80, color_system=None))
        text = out.getvalue()
        assert "…" not in text and text.count(long_id) == 1, text


def test_the_page_shows_the_right_answer_and_the_nudge_at_the_sizes_each_learner_saw(tmp_path):
    """The live step: the fixture lesson (la-tensors frozen) run again at B=2, L=4 (its seeded size draw
    replayed), graded as the app grades."""
    from session_helpers import FIXTURE_LESSONS, TENSORS

    from tutor.classroom.expected import fill_expected, live_truths, seed_for
    from tutor.classroom.outline import course_outline
    from tutor.course.catalog import load_catalog

    catalog = load_catalog([FIXTURE_LESSONS])
    assert seed_for(catalog.get(TENSORS).lesson.model, SIZES) is not None
    with ProgressStore(tmp_path / "home") as store:
        store.record(Try(TENSORS, "embed-shape", "（4，8）", False, 0, T0, SIZES))
        export_json(store, tmp_path / "zhang.json", now=T0, learner="张伟")
    report = build_report(read_class([tmp_path / "zhang.json"])[0], course_outline(catalog), [TENSORS])
    fill_expected(report, live_truths(catalog))
    embed = report.questions[0]
    assert embed.expected == {SIZES: "(2, 4, 8)"}
    assert [(w.text, w.variant) for w in embed.wrong] == [("(4,8)", SIZES)]   # full-width folded to ASCII
    assert "axes" in embed.wrong[0].nudge   # "Not quite. That has 2 axes; ..."
    page = render_page(report, T0, [])
    assert "(2, 4, 8)" in page and "axes" in page and "张伟" in page
