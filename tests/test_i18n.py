"""The interface language: choosing it, the catalogs, and the app and CLI speaking it."""
import json

import pytest
from textual.widgets import Tree

from tutor.cli.main import main
from tutor.common import i18n_tools
from tutor.common.i18n import DEFAULT, LANGUAGES, NAME_CONTEXT, _, current_language, language_code, \
    language_from_environment, language_name, language_names, resolve_language, set_language, shipped_languages
from tutor.ui.app import TutorApp

CATALOGS = i18n_tools.translated_languages()   # every shipped catalog, not only zh


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    set_language("en")


@pytest.mark.parametrize("value, code", [("zh_CN.UTF-8", "zh"), ("zh-Hans", "zh"), ("ZH", "zh"), ("zh_TW.Big5@x", "zh"),
                                         ("en_GB", "en"), ("fr_FR.UTF-8", None), ("", None), (None, None)])
def test_language_codes(value, code):
    assert language_code(value) == code


@pytest.mark.parametrize("environ, code", [
    ({"LANG": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),      # LC_ALL beats LANG
    ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),               # C means English, as gettext reads it
    ({"LC_MESSAGES": "zh_CN", "LANG": "en_US"}, "zh"),
    ({"LANGUAGE": "fr:zh_CN:en", "LANG": "en_US"}, "zh"),         # the first language we have, in order
    ({"LANGUAGE": "", "LANG": "zh_SG"}, "zh"),                    # an empty variable is skipped
    ({"LANG": "de_DE.UTF-8"}, None),
    ({}, None),
])
def test_locale_precedence_follows_gettext(environ, code):
    assert language_from_environment(environ) == code


def test_command_line_beats_setting_beats_locale():
    zh_locale = {"LANG": "zh_CN.UTF-8"}
    assert resolve_language("en", "zh", zh_locale) == "en"
    assert resolve_language(None, "en", zh_locale) == "en"
    assert resolve_language(None, None, zh_locale) == "zh"
    assert resolve_language(None, {"not": "a string"}, {}) == "en"   # a damaged settings file is ignored


def test_there_is_a_catalog_besides_english():
    assert CATALOGS and set(CATALOGS) == set(LANGUAGES) - {DEFAULT}


@pytest.mark.parametrize("language", CATALOGS)
def test_every_marked_string_is_translated_and_no_entry_is_stale(language):
    """Extract with Babel's Python API and compare with the shipped .po, entry by entry."""
    marked = {(message.context, message.id) for message in i18n_tools.extract_catalog() if message.id}
    catalog = i18n_tools.read_po(language)
    shipped = {(message.context, message.id): message for message in catalog if message.id}
    assert marked, "no marked strings found: the extractor is not looking at tutor/"
    assert sorted(marked - set(shipped), key=str) == [], f"marked in the code, missing from {language}/tutor.po"
    assert sorted(set(shipped) - marked, key=str) == [], f"in {language}/tutor.po, no longer in the code (run update)"
    untranslated = [key for key, message in shipped.items()
                    if message.fuzzy or not all(message.string if isinstance(message.string, tuple) else
                                                (message.string,))]
    assert untranslated == []


@pytest.mark.parametrize("language", CATALOGS)
def test_the_shipped_mo_is_compiled_from_the_po(language):
    mo = i18n_tools.po_path(language).with_suffix(".mo")
    assert mo.read_bytes() == i18n_tools.compiled_bytes(i18n_tools.read_po(language)), \
        "run: python -m tutor.common.i18n_tools compile"


@pytest.mark.parametrize("language", CATALOGS)
def test_each_catalog_names_its_own_language(language):
    name = language_name(language)
    assert name and name != language_name(DEFAULT), f"{language}/tutor.po does not translate the language's name"
    assert name in language_names()


def test_a_new_catalog_is_a_new_language_with_the_name_it_gives_itself(tmp_path):
    from babel.messages.catalog import Catalog

    catalog = Catalog(locale="fr", domain="tutor")
    catalog.add("English", "Français", context=NAME_CONTEXT)
    folder = tmp_path / "fr" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "tutor.mo").write_bytes(i18n_tools.compiled_bytes(catalog))
    assert shipped_languages(tmp_path) == ("en", "fr")
    assert language_name("fr", tmp_path) == "Français"
    assert shipped_languages() == LANGUAGES == (DEFAULT, *CATALOGS)


async def test_f4_and_the_palette_name_every_catalog_s_language(tmp_path):
    from tutor.ui.localize import binding_label
    from tutor.ui.palette import LessonCommands

    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        names = [language_name(code) for code in LANGUAGES]
        f4 = next(binding for binding in type(app).BINDINGS if binding.key == "f4")
        palette = [name for name, *_ in LessonCommands(app.screen)._commands() if name.startswith("Language")]
        for label in (binding_label(f4.description), palette[0]):
            assert all(name in label for name in names), label
        set_language("zh")
        assert binding_label(f4.description) == "语言：" + " / ".join(names)


@pytest.mark.parametrize("language", CATALOGS)
def test_translations_keep_their_format_fields(language):
    """A {name} lost or renamed in translation would raise KeyError on screen."""
    import string

    for message in i18n_tools.read_po(language):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        fields = {name for _, name, _, _ in string.Formatter().parse(ids[-1]) if name}
        for text in strings:
            assert {name for _, name, _, _ in string.Formatter().parse(text) if name} == fields, message.id


def test_switching_language_switches_every_later_lookup():
    assert _("Help") == "Help"
    set_language("zh")
    assert (current_language(), _("Help")) == ("zh", "帮助")
    set_language("no-such-language")
    assert (current_language(), _("Help")) == ("en", "Help")


def test_cli_help_and_lessons_list_in_chinese(capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["--lang", "zh", "--help"])
    assert "不带命令运行 'tutor' 即可打开应用" in capsys.readouterr().out
    assert main(["--lang", "zh", "--home", str(tmp_path), "lessons", "list"]) == 0
    out = capsys.readouterr().out
    assert "课程" in out and "张量" in out and "[EN]" not in out   # every built-in lesson is translated
    assert main(["lessons", "new", "my-heads", "--dir", str(tmp_path / "mine"), "--title", "My heads"]) == 0
    capsys.readouterr()
    assert main(["--lang", "zh", "--home", str(tmp_path), "--lessons", str(tmp_path / "mine"), "lessons", "list"]) == 0
    assert "[EN] My heads" in capsys.readouterr().out          # a lesson without a translation is marked English


def test_cli_follows_the_remembered_setting_then_the_locale(capsys, tmp_path, monkeypatch):
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert main(["--home", str(tmp_path), "progress"]) == 0
    assert "还没有答题记录" in capsys.readouterr().out
    (tmp_path / "settings.json").write_text(json.dumps({"language": "en"}), encoding="utf-8")
    assert main(["--home", str(tmp_path), "progress"]) == 0
    assert "No answers recorded yet." in capsys.readouterr().out
    assert main(["--lang", "zh", "--home", str(tmp_path), "progress"]) == 0
    assert "还没有答题记录" in capsys.readouterr().out


async def test_f4_switches_the_app_to_chinese_and_remembers_it(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "Linear algebra" in str(app.screen.query_one(Tree).root.children[2].label)
        await pilot.press("f4")
        await pilot.pause()
        tree = app.screen.query_one(Tree)
        assert "线性代数" in str(tree.root.children[2].label)
        assert "张量" in str(tree.root.children[2].children[0].label)
        assert json.loads((tmp_path / "settings.json").read_text(encoding="utf-8"))["language"] == "zh"
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen.sub_title == "按键"
        await pilot.press("escape", "f4")
        await pilot.pause()
        assert "Linear algebra" in str(app.screen.query_one(Tree).root.children[2].label)
        assert app.catalog.get("la-tensors").lesson.title.startswith("Tensors")


async def test_f4_in_a_lesson_keeps_the_lesson_the_question_and_what_is_typed(tmp_path):
    """Before: F4 dropped the learner on the roadmap and the place was lost."""
    from journey_helpers import open_live_lesson, text_of, type_answer, wait_for_live
    from tutor.ui.screens.lesson import LessonScreen

    from session_helpers import FIXTURE_LESSONS, TENSORS

    app = TutorApp(lesson_dirs=[FIXTURE_LESSONS], preload_model=False, home=tmp_path, watch_interval=None)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_live_lesson(pilot, TENSORS, 1)   # la-tensors frozen: its question 2's Chinese
            await type_answer(pilot, "(2, 4)")          # a wrong try: one of the three is spent
            await pilot.press("right", "x")             # keep the old answer and type on
            await pilot.press("f4")
            await pilot.pause()
            assert app.screen is screen and isinstance(screen, LessonScreen)
            assert screen.question_index == 1 and screen.query_one("#answer").value == "(2, 4)x"
            assert len(screen.session.encounter.results) == 1
            assert "现在只取一个词元" in text_of(screen, "#question") and screen.title.startswith("张量")
            await pilot.press("escape")
            await pilot.pause()
            assert "线性代数" in str(app.screen.query_one(Tree).root.children[2].label)
    finally:
        set_language("en")


async def test_f4_in_a_lesson_rewords_the_formula_check(tmp_path):
    """Before: after F4 to English the mark under the formula still read "✓ 公式与模型一致"."""
    from journey_helpers import open_live_lesson, text_of

    set_language("zh")
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_live_lesson(pilot, "it-information-entropy", 0)
        assert "公式与模型一致" in text_of(screen, "#formula-check")
        await pilot.press("f4")
        await pilot.pause()
        assert text_of(screen, "#formula-check").strip() == "✓ formula matches the model"


async def test_f4_on_a_reveal_rewords_its_box_and_tensor(tmp_path):
    """Before: after F4 the reveal still read 你的答案 / 正确答案 and its tensor's headers stayed Chinese."""
    from journey_helpers import given_up_in_chinese, text_of

    async with given_up_in_chinese(tmp_path, "la-tensors", (100, 30)) as (pilot, screen):
        assert "正确答案" in text_of(screen, "#your-answer") and "（已放弃）" in text_of(screen, "#your-answer")
        await pilot.press("f4")
        await pilot.pause()
        box = text_of(screen, "#your-answer")
        assert "Expected" in box and "(gave up)" in box and "正确答案" not in box, box
        assert "real embed" in text_of(screen, "#real-tensor", width=200)


async def test_f4_keeps_help_stats_the_dashboard_and_the_lesson_under_them(tmp_path):
    """Before: F4 anywhere but in a lesson closed every screen and left the learner on the roadmap
    (the dashboard, help, stats); help opened from a lesson took the lesson with it."""
    from journey_helpers import open_live_lesson, text_of
    from tutor.ui.screens.dashboard import DashboardScreen
    from tutor.ui.screens.help import HelpScreen
    from tutor.ui.screens.lesson import LessonScreen
    from tutor.ui.screens.roadmap import RoadmapScreen
    from tutor.ui.screens.stats import StatsScreen

    async def press_to(pilot, key, kind):
        """Press ``key``; the screen it leaves on top, which must be a ``kind``."""
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(pilot.app.screen, kind), (key, pilot.app.screen)
        return pilot.app.screen

    from session_helpers import FIXTURE_LESSONS, TENSORS

    app = TutorApp(lesson_dirs=[FIXTURE_LESSONS], preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        lesson = await open_live_lesson(pilot, TENSORS, 1)   # la-tensors frozen: its question 2's Chinese
        help_screen = await press_to(pilot, "f1", HelpScreen)
        assert await press_to(pilot, "f4", HelpScreen) is help_screen and help_screen.sub_title == "按键"
        assert "命令面板" in text_of(help_screen, "#help-keys")
        assert await press_to(pilot, "escape", LessonScreen) is lesson
        assert "现在只取一个词元" in text_of(lesson, "#question")
        roadmap = await press_to(pilot, "escape", RoadmapScreen)   # rebuilt in Chinese when shown
        assert "线性代数" in str(roadmap.query_one(Tree).root.children[2].label)
        stats = await press_to(pilot, "s", StatsScreen)
        assert await press_to(pilot, "f4", StatsScreen) is stats and stats.sub_title == "Stats"
        assert [str(column.label) for column in stats.query_one("DataTable").columns.values()][0] == "Track"
        assert str(stats.query_one("DataTable").get_row_at(0)[0]) == "Linear algebra"
        dashboard = await press_to(pilot, "f3", DashboardScreen)
        assert await press_to(pilot, "f4", DashboardScreen) is dashboard
        assert app.screen is dashboard and dashboard.title == "仪表盘"


async def test_f4_on_a_lessons_summary_keeps_it_with_the_titles_in_the_new_language(tmp_path):
    from journey_helpers import text_of
    from tutor.ui.screens.lesson_summary import LessonSummaryScreen

    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("la-contextual-embeddings", 1)
        await pilot.pause()
        app.screen.finish()
        await pilot.pause()
        summary = app.screen
        assert isinstance(summary, LessonSummaryScreen)
        await pilot.press("f4")
        await pilot.pause()
        assert app.screen is summary
        text = text_of(summary, "#summary-text")
        assert "本课完成：静态嵌入与上下文嵌入" in text and "下一课《Q、K 和 V" in text, text
        assert summary.title.startswith("静态嵌入")


async def test_f4_in_review_keeps_its_heading_and_turns_the_questions_to_come_too(tmp_path):
    """Before: F4 in review replaced "Review 1/2 · …" by the lesson's bare title, and the next
    review question still came from the old language's catalog."""
    from datetime import datetime, timedelta, timezone

    from journey_helpers import open_live_lesson, text_of, wait_for_live
    from tutor.ui.screens.review import ReviewScreen

    start = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)

    def make_app(at):
        app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
        ticks = iter(range(100_000))
        app.clock = lambda: at + timedelta(seconds=next(ticks))
        return app

    app = make_app(start)
    async with app.run_test(size=(80, 24)) as pilot:
        for lesson_id in ("la-tensors", "la-contextual-embeddings"):
            await open_live_lesson(pilot, lesson_id, 0)
            await pilot.press("ctrl+g")   # not got: a card
            await pilot.pause()
    app = make_app(start + timedelta(days=1))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.action_open_review()
        await pilot.pause()
        review = app.screen
        assert isinstance(review, ReviewScreen) and len(review.queue) == 2
        await wait_for_live(pilot, review)
        await pilot.press("f4")
        await pilot.pause()
        assert app.screen is review and review.sub_title == "复习 1/2"
        assert text_of(review, "#lesson-title").startswith("复习第 1/2 题 · 张量")
        assert text_of(review, "#question").startswith("本课第 1/")   # not a second "第 1/N 题" under the heading
        assert [item.lesson.title[:2] for item, _index in review.queue] == ["张量", "静态"]
