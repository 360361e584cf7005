"""The footer is rebuilt only when the keys it would show change (tutor/ui/footer.py)."""
import pytest
from textual.widgets import Footer as TextualFooter

from tutor.common.i18n import set_language
from tutor.ui.app import TutorApp


@pytest.fixture(autouse=True)
def _english_afterwards():
    """F4 sets the process's language; the tests after these must find English again."""
    yield
    set_language("en")


def footer_keys(app) -> list[str]:
    return [key.description for key in app.screen.query("FooterKey")]


async def test_the_roadmap_footer_is_built_once_and_again_only_when_its_keys_change(tmp_path, monkeypatch):
    """Before: Textual rebuilt it for each bindings refresh after the first paint (focus, the screen
    stack, the first idle), three times with the same keys, while the model's thread imported torch."""
    builds = []
    compose = TextualFooter.compose

    def counted(footer):
        if footer._bindings_ready:
            builds.append(footer.screen)
        yield from compose(footer)

    monkeypatch.setattr(TextualFooter, "compose", counted)
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(5):
            await pilot.pause()
        roadmap = app.screen
        assert "Help" in footer_keys(app)
        assert builds == [roadmap]
        await pilot.press("f4")   # the interface in Chinese: every key's label changes
        for _ in range(5):
            await pilot.pause()
        assert app.screen is roadmap and "帮助" in footer_keys(app) and "Help" not in footer_keys(app)
        assert builds == [roadmap, roadmap]
        await pilot.press("f4")
        for _ in range(5):
            await pilot.pause()
        assert "Help" in footer_keys(app) and builds == [roadmap] * 3
