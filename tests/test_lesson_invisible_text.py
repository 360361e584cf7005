"""Invisible, format and line-separator characters in a lesson's text are refused where they are."""
import unicodedata
from pathlib import Path

import pytest

from tutor.cli.lessons import template_text
from tutor.course.catalog import load_lesson
from tutor.course.loader import LessonFileError


@pytest.mark.parametrize("char, name", [
    ("\u061c", "ARABIC LETTER MARK"), ("\U000e0041", "TAG LATIN CAPITAL LETTER A"), ("\u200b", "ZERO WIDTH SPACE"),
    ("\u2028", "LINE SEPARATOR"), ("\u200e", "LEFT-TO-RIGHT MARK"), ("\u200f", "RIGHT-TO-LEFT MARK"),
])
def test_a_title_with_an_invisible_character_is_refused_with_its_name(tmp_path, char, name):
    path = tmp_path / "safe.yaml"
    escaped = f"\\U{ord(char):08x}"   # as YAML spells it in a double-quoted title
    text = template_text("safe", "Safe", "pr", 1, path, ["pr"]).replace('title: "Safe"', f'title: "Sa{escaped}fe"')
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LessonFileError) as error:
        load_lesson(path)
    message = str(error.value)
    assert "title" in message and f"U+{ord(char):04X} ({name})" in message and "invisible" in message


def test_the_pattern_covers_every_format_and_separator_character():
    from tutor.course.text_safety import HIDDEN

    hidden = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")]
    assert [c for c in hidden if not HIDDEN.fullmatch(c)] == []
    assert not HIDDEN.search("ordinary text, 中文, emoji 🙂, \u00e9, tabs\tand\nnewlines")


def test_the_built_in_lessons_hold_none(tmp_path):
    from tutor.course.text_safety import HIDDEN

    root = Path(__file__).resolve().parents[1] / "lessons"
    for path in root.rglob("*.yaml"):
        assert not HIDDEN.search(path.read_text(encoding="utf-8")), path
