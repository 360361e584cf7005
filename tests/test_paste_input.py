"""A bracketed paste is text (2026-12-reliability.md row 43): before, pasting
``(B, H, L, L)\\x1b]0;x\\x07`` into the answer box gave the question up (BEL read as Ctrl+G) and
recorded it as missed."""
from __future__ import annotations

from textual import events
from textual._xterm_parser import XTermParser

from tutor.ui.paste_input import PASTE_END, PASTE_START, PasteFilter, paste_safe_parser

HOSTILE = "(B, H, L, L)\x1b]0;x\x07"


def tokens(parser_class, chunks):
    parser = parser_class()
    found = []
    for chunk in chunks:
        found += list(parser.feed(chunk))
    return found


def test_textuals_parser_turns_an_escape_inside_a_paste_into_keys():
    """The bug this works around: without the filter, Ctrl+G arrives as a key press."""
    keys = [t.key for t in tokens(XTermParser, [PASTE_START + HOSTILE + PASTE_END]) if isinstance(t, events.Key)]
    assert "ctrl+g" in keys


def test_the_filtered_parser_gives_one_paste_of_text_and_no_keys():
    for chunks in ([PASTE_START + HOSTILE + PASTE_END],
                   [PASTE_START[:3], PASTE_START[3:] + HOSTILE[:14], HOSTILE[14:] + PASTE_END[:2], PASTE_END[2:]]):
        found = tokens(paste_safe_parser(XTermParser), chunks)
        assert [type(t) for t in found] == [events.Paste], chunks
        assert found[0].text == "(B, H, L, L)]0;x"


def test_outside_a_paste_nothing_is_held_back_or_changed():
    paste = PasteFilter()
    assert paste("\x1b") == "\x1b"                  # a lone Escape key goes on at once
    assert paste("abc\x07") == "abc\x07"            # Ctrl+G typed is Ctrl+G
    assert paste(PASTE_START + "a\x1bb" + PASTE_END + "\x07") == PASTE_START + "ab" + PASTE_END + "\x07"
    assert paste("\x1b[20") == "\x1b[20" and paste("0~x\x1b") == "0~x" and paste("y" + PASTE_END) == "y" + PASTE_END


async def test_a_pasted_escape_sequence_reaches_the_answer_box_as_text(tmp_path):
    from journey_helpers import open_live_lesson

    from tutor.ui.app import TutorApp

    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_live_lesson(pilot, "la-tensors", 0)
        box = screen.query_one("#answer")
        box.post_message(events.Paste("(2, 4,\x1b]0;x\x07 8)"))
        await pilot.pause()
        assert box.value == "(2, 4,]0;x 8)" and not screen.session.revealed
    from tutor.progress.store import ProgressStore

    with ProgressStore(tmp_path) as store:
        assert store.answer_count() == 0 and store.question_records() == []
