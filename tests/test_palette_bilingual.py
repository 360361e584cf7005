"""Issue 32: the palette finds a command by the words on screen and by its English name.

Before: in Chinese, typing 语言 found nothing (the entry read "Language: English / 中文"), and
the English names of Textual's own commands ("quit", "keys") found nothing either."""
import pytest

from tutor.common.i18n import set_language
from tutor.course.catalog import load_catalog
from tutor.ui.app import TutorApp
from tutor.ui.palette import BilingualSystemCommands, LessonCommands


@pytest.fixture
def zh_app(tmp_path):
    set_language("zh")
    yield TutorApp(catalog=load_catalog([], language="zh"), home=tmp_path, preload_model=False, watch_interval=None)
    set_language("en")


async def found(provider, query: str) -> list[str]:
    return [str(hit.text or hit.match_display) for hit in [hit async for hit in provider.search(query)]]


async def test_chinese_words_and_english_names_both_find_a_command(zh_app):
    async with zh_app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        lessons = LessonCommands(zh_app.screen)
        assert any(name.startswith("语言：English / 中文") for name in await found(lessons, "语言"))
        assert any(name.startswith("语言：") for name in await found(lessons, "language"))
        assert any(name.startswith("仪表盘：训练模型") for name in await found(lessons, "train the model"))
        system = BilingualSystemCommands(zh_app.screen)
        assert "退出" in await found(system, "退出")
        assert "退出" in await found(system, "quit")
        assert await found(system, "qqqzzz") == []


async def test_english_search_is_unchanged(tmp_path):
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        names = await found(LessonCommands(app.screen), "language")
        assert names and names[0].startswith("Language: English / 中文")
        assert "Quit" in await found(BilingualSystemCommands(app.screen), "quit")
