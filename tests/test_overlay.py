"""Lesson translations as overlays: loading, applying, checking and writing them."""
from pathlib import Path

import pytest

from tutor.authoring.check import check_paths
from tutor.cli.main import main
from tutor.course.catalog import builtin_lessons_dir, load_catalog
from tutor.course.loader import LessonFileError
from tutor.course.overlay import UNTRANSLATED, apply_overlay, load_overlay, overlay_files, source_hash

ZH = builtin_lessons_dir() / "zh"
FIRST_TRACKS = ("la", "pr")   # translated in phase 1; the other tracks' English is still moving

LESSON = """\
format_version: 1
id: my-heads
title: "Heads split D into 2 parts"
track: la
position: 999
concepts: [la.multi-head-split]
explanation: |
  Each of the H = 2 heads
  gets D/H features.
formula:
  expr: "Q @ K.T"
  translation: "compare every query with every key"
model: {weights: random, text: ["12", "34"], d_model: 8, n_head: 2}
probes: ["blocks.0.attn.q"]
questions:
  - id: q-shape
    kind: shape
    prompt: "The shape of q, with {{ D_head }} features per head?"
    probe: "blocks.0.attn.q"
    hints: ["Heads come after the batch.", "D_head = 4."]
    reveal: "(B, H, L, D_head)"
  - id: pick
    kind: choice
    prompt: "How many heads?"
    choices: ["one head", "two heads"]
    answer: 1
"""


@pytest.fixture
def lesson_dir(tmp_path) -> Path:
    folder = tmp_path / "mine"
    (folder / "zh").mkdir(parents=True)
    (folder / "my-heads.yaml").write_text(LESSON, encoding="utf-8")
    return folder


def write_overlay(folder: Path, body: str, source: str | None = None) -> Path:
    catalog = load_catalog([folder], language="en")
    source = source or source_hash(catalog.get("my-heads").lesson)
    path = folder / "zh" / "my-heads.yaml"
    path.write_text(f'format_version: 1\nlesson: my-heads\nsource: "{source}"\n' + body, encoding="utf-8")
    return path


GOOD = """\
title: "多头把 D 分成 2 份"
explanation: |
  H = 2 个头中的每一个
  分到 D/H 个特征。
formula: {translation: "把每个查询和每个键比一比"}
questions:
  q-shape:
    prompt: "q 的形状是什么？每个头有 {{ D_head }} 个特征。"
    hints: ["头的轴在批次之后。", "D_head = 4。"]
    reveal: "(B, H, L, D_head)"
  pick:
    prompt: "有几个头？"
    choices: ["一个头", "两个头"]
"""


def test_built_in_overlays_load_and_translate_whole_tracks():
    catalog = load_catalog(language="en")
    translated = {load_overlay(path).lesson for path in overlay_files(builtin_lessons_dir(), "zh")}
    first = {item.lesson.id for item in catalog.ordered() if item.lesson.track in FIRST_TRACKS}
    assert first <= translated


def test_built_in_overlays_pass_the_check_complete_and_fresh():
    report = check_paths([ZH], live=False)
    assert report.problems == [], report.text()
    first = [w for w in report.warnings if Path(w.path).name.split("-")[0] in FIRST_TRACKS]
    assert first == [], "\n".join(map(str, first))


def test_applying_changes_prose_only():
    english = load_catalog(language="en").get("pr-masked-softmax").lesson
    chinese = load_catalog(language="zh").get("pr-masked-softmax").lesson
    assert chinese.title.startswith("因果掩码") and "−∞" in chinese.title
    prose = {"title", "explanation", "formula", "questions"}
    assert chinese.model_dump(exclude=prose) == english.model_dump(exclude=prose)
    assert chinese.formula.expr == english.formula.expr
    for mine, theirs in zip(chinese.questions, english.questions):
        keep = {"prompt", "hints", "reveal", "choices"}
        # a reject: entry's says: sentence is prose too; its form and nudge word are not
        mine, theirs = (q.model_dump(exclude=keep) for q in (mine, theirs))
        for dumped in (mine, theirs):
            for entry in dumped.get("reject", []):
                entry["says"] = bool(entry["says"])
        assert mine == theirs


def test_untranslated_fields_fall_back_to_marked_english(lesson_dir):
    write_overlay(lesson_dir, 'title: "多头"\nquestions:\n  q-shape:\n    hints: ["头的轴在批次之后。"]\n')
    lesson = load_catalog([lesson_dir], language="zh").get("my-heads").lesson
    assert lesson.title == "多头"
    assert lesson.explanation == UNTRANSLATED + "Each of the H = 2 heads\ngets D/H features.\n"
    assert lesson.questions[0].hints == ["头的轴在批次之后。", UNTRANSLATED + "D_head = 4."]
    assert lesson.questions[1].prompt == UNTRANSLATED + "How many heads?"
    assert lesson.questions[1].choices == ["one head", "two heads"]       # unmarked: a learner may type a choice's text
    assert load_catalog([lesson_dir], language="en").get("my-heads").lesson.title == "Heads split D into 2 parts"


def test_chinese_lines_join_without_a_stray_space(lesson_dir):
    write_overlay(lesson_dir, GOOD)
    lesson = load_catalog([lesson_dir], language="zh").get("my-heads").lesson
    assert lesson.explanation == "H = 2 个头中的每一个分到 D/H 个特征。"


def test_a_good_overlay_passes_and_a_stale_one_warns(lesson_dir):
    path = write_overlay(lesson_dir, GOOD)
    report = check_paths([lesson_dir], live=False)
    assert (report.problems, report.warnings) == ([], []), report.text()
    assert path in report.translations
    write_overlay(lesson_dir, GOOD, source="0123abcd")
    report = check_paths([lesson_dir], live=False)
    assert report.ok
    [stale] = report.warnings
    assert (stale.line, stale.field) == (3, "source") and "stale: the English of 'my-heads' changed" in stale.message
    assert f"source: {source_hash(load_catalog([lesson_dir], language='en').get('my-heads').lesson)}" in stale.message


@pytest.mark.parametrize("edit, line, field, message", [
    (("{{ D_head }}", "{{ D }}"), 11, "questions.q-shape.prompt", "the placeholders differ from the English"),
    (("D_head = 4。", "D_head = 5。"), 12, "questions.q-shape.hints.1", "the numbers differ from the English (missing 4; extra 5)"),
    (("  pick:", "  pik:"), 14, "questions.pik", "'my-heads' has no question 'pik'"),
    (("    reveal:", "    revael:"), 13, "questions.q-shape.revael", "unknown field"),
    (('choices: ["一个头", "两个头"]', 'choices: ["一个头", "两个头", "三个头"]'), 16, "questions.pick.choices", "the English has 2 choices"),
    (("有几个头？", "有几个头？\\u001b[2J"), 15, "questions.pick.prompt", "U+001B (ESCAPE)"),
])
def test_overlay_mistakes_are_located(lesson_dir, edit, line, field, message):
    path = write_overlay(lesson_dir, GOOD.replace(*edit))
    report = check_paths([path], live=False)
    assert not report.ok
    found = [p for p in report.problems if p.field == field]
    assert found, report.text()
    assert found[0].path == str(path) and found[0].line == line and message in found[0].message, str(found[0])


def test_missing_translations_are_warnings_not_failures(lesson_dir):
    write_overlay(lesson_dir, 'title: "多头把 D 分成 2 份"\n')
    report = check_paths([lesson_dir], live=False)
    assert report.ok, report.text()
    fields = {w.field for w in report.warnings}
    assert {"", "formula", "questions"} <= fields


def test_a_broken_overlay_leaves_the_lesson_in_english(lesson_dir):
    write_overlay(lesson_dir, "title: [not, text]\n")
    with pytest.raises(LessonFileError):
        load_overlay(lesson_dir / "zh" / "my-heads.yaml")
    lesson = load_catalog([lesson_dir], language="zh").get("my-heads").lesson
    assert lesson.title == UNTRANSLATED + "Heads split D into 2 parts"


def test_an_overlay_is_untrusted_yaml(lesson_dir):
    path = write_overlay(lesson_dir, 'title: !!python/object/apply:os.system ["echo hi"]\n')
    report = check_paths([path], live=False)
    assert any("YAML tag !!python/object/apply:os.system is not allowed" in p.message for p in report.problems)


def test_lessons_new_lang_writes_an_overlay_that_loads(lesson_dir, capsys):
    assert main(["lessons", "new", "my-heads", "--lang", "zh", "--dir", str(lesson_dir)]) == 0
    path = lesson_dir / "zh" / "my-heads.yaml"
    assert f"wrote {path}" in capsys.readouterr().out
    text = path.read_text(encoding="utf-8")
    assert "#   Each of the H = 2 heads" in text and "# prompt: \"How many heads?\"" in text
    report = check_paths([path], live=False)
    assert report.ok and report.warnings, report.text()
    assert main(["lessons", "new", "my-heads", "--lang", "zh", "--dir", str(lesson_dir)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["lessons", "new", "nope", "--lang", "zh", "--dir", str(lesson_dir)]) == 1
    assert main(["lessons", "new", "my-heads", "--lang", "en", "--dir", str(lesson_dir)]) == 1


def test_a_translation_that_gives_an_answer_away_is_reported_in_the_overlay(lesson_dir):
    """The leak check guards translations too: here the translated hint states q's real shape."""
    leaky = GOOD.replace('hints: ["头的轴在批次之后。", "D_head = 4。"]', 'hints: ["头的轴在批次之后。", "形状就是 (2, 2, 2, 4)。"]')
    path = write_overlay(lesson_dir, leaky)
    report = check_paths([lesson_dir], live=True)
    leaks = [p for p in report.problems if "gives away the answer" in p.message]
    assert [(p.path, p.field) for p in leaks] == [(str(path), "questions.q-shape.hints.1")], report.text()
    assert leaks[0].line == 12 and "(中文)" in leaks[0].message
