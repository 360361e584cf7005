"""Issue 32 (zh review U7): an open drop-down names its Escape key in the interface language.

Before: the footer under the open strategy menu read "esc Dismiss menu" on a Chinese screen."""
from textual.widgets import Select
from textual.widgets._select import SelectOverlay

from test_dashboard import tiny_preset  # noqa: F401 (its presets)
from test_dashboard_zh_errors import chinese_dashboard
from tutor.common.i18n import set_language


def escape_label(select: Select) -> str:
    [binding] = select.query_one(SelectOverlay)._bindings.key_to_bindings["escape"]
    return binding.description


async def test_the_open_menu_s_escape_key_reads_chinese_and_follows_f4(tmp_path):
    async with chinese_dashboard(tmp_path, (80, 24)) as (pilot, app, screen):
        selects = list(screen.query(Select))
        assert len(selects) >= 5   # the train, sample and attention tabs' menus
        assert {escape_label(select) for select in selects} == {"关闭菜单"}
        set_language("en")
        screen.relabel()
        await pilot.pause()
        assert {escape_label(select) for select in selects} == {"Dismiss menu"}
