"""Issue 24: the command line in Chinese (argparse's own words too), and `tutor progress` by title."""
import pytest

from tutor.cli.main import main
from tutor.common.i18n import set_language
from tutor.progress.store import ProgressStore
from progress_helpers import answer_once


@pytest.fixture(autouse=True)
def back_to_english():
    yield
    set_language("en")


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exit:
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


def test_help_is_chinese_down_to_argparses_own_words(capsys):
    code, out, _err = run(capsys, "--lang", "zh", "--help")
    assert code == 0
    for words in ("用法：tutor", "选项", "显示本帮助并退出", "列出、检查或新建课程文件", "查看、导出、导入或重置学习进度"):
        assert words in out, words
    for english in ("usage:", "options:", "show this help", "list, check or create"):
        assert english not in out, english


def test_a_subcommands_help_and_an_argparse_error_are_chinese(capsys):
    _code, out, _err = run(capsys, "--lang", "zh", "progress", "--help")
    assert "用法：tutor progress" in out and "把全部作答写入一个 JSON 文件" in out
    code, _out, err = run(capsys, "--lang", "zh", "progres")
    assert code == 2 and "错误" in err and "无效的选择" in err and "error" not in err


def test_progress_lists_lesson_titles_in_the_language(tmp_path, capsys):
    with ProgressStore(tmp_path) as store:
        answer_once(store, "la-ffn-shapes", "win-shape", "(1, 2)", True)
    code, out, _err = run(capsys, "--lang", "zh", "--home", str(tmp_path), "progress")
    assert code == 0 and "学习进度" in out and "前馈网络" in out and "la-ffn-shapes" not in out
    code, out, _err = run(capsys, "--lang", "en", "--home", str(tmp_path), "progress")
    assert "la-ffn-shapes" not in out and "Lesson" in out


def test_progress_export_import_and_reset_speak_chinese(tmp_path, capsys):
    with ProgressStore(tmp_path / "home") as store:
        answer_once(store, "la-ffn-shapes", "win-shape", "(1, 2)", True)
    export = tmp_path / "out.json"
    _code, out, _err = run(capsys, "--lang", "zh", "--home", str(tmp_path / "home"), "progress", "--export", str(export))
    assert out.startswith("已把 1 次作答")
    _code, out, _err = run(capsys, "--lang", "zh", "--home", str(tmp_path / "other"), "progress", "--import", str(export))
    assert out.startswith("已从") and "导入 1 条新作答" in out
    _code, out, _err = run(capsys, "--lang", "zh", "--home", str(tmp_path / "home"), "progress", "--reset", "--yes")
    assert out.startswith("进度已重置")


def test_lessons_check_summary_is_chinese(capsys):
    code, out, _err = run(capsys, "--lang", "zh", "lessons", "check", "--static")
    assert code == 0 and out.splitlines()[-1].startswith("检查了 ") and out.rstrip().endswith("全部有效")


def test_lessons_list_wraps_a_chinese_title_between_characters_not_at_its_space(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    _code, out, _err = run(capsys, "--lang", "zh", "lessons", "list")
    row = [line for line in out.splitlines() if "pr-softmax-stability" in line][0]
    # before: '数值稳定的' alone on the row, 'softmax：减去每行的最大值' below it
    assert "数值稳定的 softmax：" in row


def test_lessons_docs_in_chinese_shows_the_shipped_chinese_guide(capsys):
    _code, out, _err = run(capsys, "--lang", "zh", "lessons", "docs")
    assert out.startswith("# 编写课程：作者指南") and "format_version" in out and "symbolic_shape" in out
    _code, out, _err = run(capsys, "--lang", "zh", "lessons", "docs", "--path")
    assert out.strip().endswith("lessons.zh.md")
    _code, out, _err = run(capsys, "--lang", "en", "lessons", "docs")
    assert not out.startswith("# 编写课程")
