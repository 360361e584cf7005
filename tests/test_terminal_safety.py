"""Text from lessons, checkpoints and models never reaches the terminal as control characters.

A title with ``ESC [2J`` blanked the roadmap and ``ESC ]0;…`` set the terminal's title; these
check the neutraliser itself and each way a lesson's text reaches the screen or stdout.
"""
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Tree

from tutor.authoring.check import check_paths
from tutor.cli.lessons import template_text
from tutor.common.safe_text import find_unsafe, is_safe, neutralise, one_line

CLEAR_AND_RED = "\x1b[2J\x1b[31m"
SET_TITLE = "\x1b]0;TITLE\x1b\\"
RLO = "\u202e"


@pytest.mark.parametrize("text", [CLEAR_AND_RED, SET_TITLE, "\x9b31m", "\x9d0;t\x07", "a\x00b\x7fc", RLO + "abc",
                                  "\u2066x\u2069", "\r\x08\x0b\x0c"])
def test_neutralised_text_holds_no_control_or_bidi_character(text):
    safe = neutralise(text)
    assert is_safe(safe, keep="")
    assert not find_unsafe(safe)
    assert len(safe) == len(text)   # one visible stand-in per character: nothing silently vanishes


def test_esc_becomes_a_visible_picture_and_the_rest_stays_readable():
    assert neutralise(CLEAR_AND_RED + "red") == "␛[2J␛[31mred"
    assert neutralise(SET_TITLE) == "␛]0;TITLE␛\\"


def test_newline_and_tab_are_kept_unless_the_caller_wants_one_line():
    assert neutralise("a\nb\tc") == "a\nb\tc"
    assert one_line("a\nb\tc") == "a␊b␉c"
    assert neutralise("a\nb", keep="") == "a␊b"


def test_printable_unicode_is_untouched():
    text = "Softmax σ(x)ᵢ = eˣⁱ / Σ eˣʲ — 注意 ✓ 😀 é"
    assert neutralise(text) is text or neutralise(text) == text


def test_find_unsafe_gives_offsets_and_names_without_the_character():
    found = find_unsafe("ok\x1b[2J" + RLO)
    assert [f.offset for f in found] == [2, 6]
    assert found[0].description == "U+001B (ESCAPE)"
    assert found[1].description == "U+202E (RIGHT-TO-LEFT OVERRIDE)"
    assert all(is_safe(f.description, keep="") for f in found)


def test_checkpoint_meta_is_neutralised_in_the_weights_label(hub):
    from tutor.live.hub import ModelHub
    from tutor.model.checkpoint import describe_checkpoint

    label = describe_checkpoint("mine", {"data": "sort" + CLEAR_AND_RED, "steps": SET_TITLE})
    mine = ModelHub()
    mine.replace(hub.model, hub.tokenizer, label)   # every label the app shows passes through the hub
    assert is_safe(mine.label, keep="") and "sort" in mine.label and "␛[2J" in mine.label


# -- lessons ---------------------------------------------------------------------------------

def hostile_lessons(folder: Path) -> dict[str, str]:
    """Three lesson files: escapes spelled in a quoted title, a raw ESC, and a bidi override."""
    folder.mkdir(exist_ok=True)
    base = template_text("evil", "Evil", "pr", 1, folder / "evil.yaml", ["pr"])
    titles = {
        "evil": 'title: "\\e[2J\\e[31mRed \\x1b]0;TITLE\\x1b\\\\"',    # YAML escapes: ESC after parsing
        "raw": 'title: "x\x1by"',                                       # a raw ESC in the file
        "bidi": f"title: abc{RLO}def",                                  # printable as far as YAML goes
    }
    for name, title in titles.items():
        text = base.replace('title: "Evil"', title, 1).replace("id: evil", f"id: {name}", 1)
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return titles


def title_line(folder: Path, name: str) -> int:
    lines = (folder / f"{name}.yaml").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith("title:"))


def test_lessons_check_reports_each_hostile_title_at_its_line_and_column(tmp_path):
    hostile_lessons(tmp_path)
    report = check_paths([tmp_path], live=False)
    by_file = {Path(p.path).stem: p for p in report.problems}
    assert set(by_file) == {"evil", "raw", "bidi"}
    evil, raw, bidi = by_file["evil"], by_file["raw"], by_file["bidi"]
    assert (evil.line, evil.column, evil.field) == (title_line(tmp_path, "evil"), 8, "title")
    assert "U+001B (ESCAPE)" in evil.message
    assert (raw.line, raw.column) == (title_line(tmp_path, "raw"), 10)
    assert (bidi.line, bidi.column) == (title_line(tmp_path, "bidi"), 11)
    assert "U+202E (RIGHT-TO-LEFT OVERRIDE)" in bidi.message


def test_lessons_check_command_does_not_echo_escape(tmp_path):
    hostile_lessons(tmp_path)
    (tmp_path / "key.yaml").write_text('format_version: 1\nid: key\n"\\e]0;pwned\\a": 1\n', encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "tutor", "lessons", "check", "--static", str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    out = result.stdout + result.stderr
    assert "\x1b" not in out and "\x07" not in out and RLO not in out
    assert f"bidi.yaml:{title_line(tmp_path, 'bidi')}:11:" in out
    assert f"key.yaml:3:1:" in out


def test_lessons_list_prints_no_escape(tmp_path):
    hostile_lessons(tmp_path)
    result = subprocess.run([sys.executable, "-m", "tutor", "--lessons", str(tmp_path), "lessons", "list"],
                            capture_output=True, text=True, timeout=120, env={**__import__("os").environ,
                                                                               "COLUMNS": "200"})
    out = result.stdout + result.stderr
    assert "\x1b]0;" not in out and "\x1b[2J" not in out and RLO not in out
    assert "evil.yaml" in result.stderr   # reported as a problem, not listed


async def test_a_hostile_title_cannot_reach_the_roadmap(tmp_path):
    from tutor.ui.app import TutorApp

    hostile_lessons(tmp_path / "lessons")
    app = TutorApp(lesson_dirs=[tmp_path / "lessons"], home=tmp_path / "home", preload_model=False,
                   watch_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        tree = app.screen.query_one(Tree)
        labels = []
        stack = [tree.root]
        while stack:
            node = stack.pop()
            labels.append(str(node.label))
            stack.extend(node.children)
        assert any("Lesson files with problems (3)" in label for label in labels)
        assert all(is_safe(label, keep="") for label in labels), [l for l in labels if not is_safe(l, keep="")]
        assert "evil" not in {item.lesson.id for item in app.catalog.lessons.values()}


def test_a_stray_non_utf8_byte_from_the_terminal_is_read_as_a_replacement_character(tmp_path):
    """tmux paste of b'\\x9b' once ended the app with UnicodeDecodeError in Textual's input thread."""
    from textual.drivers import linux_driver

    from tutor.ui.app import TutorApp

    TutorApp(home=tmp_path, preload_model=False, watch_interval=None)   # picks its driver: the decoder is set then
    decode = linux_driver.getincrementaldecoder("utf-8")().decode
    assert decode(b"(B,\x9b L)", final=False) == "(B,\ufffd L)"
    # a character split across two reads still arrives whole
    assert decode(b"\xe4\xb8", final=False) + decode(b"\xad", final=True) == "中"
