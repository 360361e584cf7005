"""Issue 24, the Chinese edition on screen: the palette's words and the help screen's wrapping."""
import io

import pytest
from rich.console import Console
from textual.command import CommandList, CommandPalette
from textual.widgets import Static

from tutor.common.i18n import set_language
from tutor.course.catalog import load_catalog
from tutor.ui.app import TutorApp
from tutor.ui.screens.help import HelpScreen


@pytest.fixture
def zh_app(tmp_path):
    set_language("zh")
    yield TutorApp(catalog=load_catalog([], language="zh"), home=tmp_path, preload_model=False, watch_interval=None)
    set_language("en")


def lines_of(static: Static, width: int) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(static.content)
    return console.export_text().splitlines()


async def test_the_palette_speaks_chinese_textuals_own_commands_included(zh_app):
    async with zh_app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+p")
        for _ in range(100):
            await pilot.pause(0.05)
            if isinstance(zh_app.screen, CommandPalette) and zh_app.screen.query_one(CommandList).option_count > 20:
                break
        palette = zh_app.screen
        assert palette.query_one("CommandInput").placeholder == "搜索命令……"
        names = [str(palette.query_one(CommandList).get_option_at_index(i).prompt)
                 for i in range(palette.query_one(CommandList).option_count)]
        shown = "\n".join(names)
        for word in ("课程：", "复习到期的题目", "仪表盘：训练模型", "按键", "截图"):
            assert word in shown, word
        for english in ("Keys", "Screenshot", "Lesson:", "Dashboard:", "Review due"):
            assert english not in shown, english


@pytest.mark.parametrize("width", [80, 120])
async def test_the_help_screen_wraps_chinese_between_characters(zh_app, width):
    async with zh_app.run_test(size=(width, 30)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(zh_app.screen, HelpScreen)
        notes = zh_app.screen.query_one("#help-notes", Static)
        lines = lines_of(notes, notes.content_region.width)
        text = "\n".join(lines)
        # before: each paragraph was one "word" for Rich, cut at the edge as '（ctr' / 'l+g）'
        assert "ctrl+g" in text and "ctrl+t" in text, text
        assert all(not line.rstrip().endswith(("ctr", "ctrl+", "（ct")) for line in lines), text
        full = [line for line in lines if line.strip()]
        assert sum(len(line.rstrip()) > 0 for line in full) >= 4


async def test_the_palette_says_no_matches_in_chinese(zh_app):
    async with zh_app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"qqqzzzxxx")
        palette = zh_app.screen
        commands = palette.query_one(CommandList)
        for _ in range(100):   # Textual adds the line after a countdown: wait for it, not for a time
            await pilot.pause(0.05)
            if commands.option_count == 1 and commands.get_option_at_index(0).id == palette._NO_MATCHES:
                break
        console = Console(width=60, record=True, file=io.StringIO(), color_system=None)
        console.print(commands.get_option_at_index(0).prompt)
        # before: Textual's own English "No matches found"
        assert console.export_text().strip() == "没有匹配的命令"
