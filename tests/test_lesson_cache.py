"""The lesson cache: outlines for the first paint, the same validated lessons after, rebuilt when stale or bad."""
import json
import os
import subprocess
import sys
from pathlib import Path

import tutor
from tutor.cli.lessons import template_text
from tutor.course import cache
from tutor.course.cache import LessonOutline, open_catalog
from tutor.course.catalog import load_catalog
from tutor.course.schema import Lesson


def write(path: Path, text: str, stamp_ns: int) -> None:
    """Write with a given mtime: staleness is decided by stamps, never by the clock."""
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(stamp_ns, stamp_ns))


def lesson(lesson_id: str = "mine", title: str = "Mine") -> str:
    return template_text(lesson_id, title, "pr", 5, Path(f"{lesson_id}.yaml"), ["pr"])


def cache_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("lessons-*.json"))


def test_second_open_gives_outlines_then_the_same_lessons_as_the_files(tmp_path):
    lessons, store = tmp_path / "lessons", tmp_path / "cache"
    lessons.mkdir()
    write(lessons / "mine.yaml", lesson(), 1_000_000_000)
    first = open_catalog([lessons], cache_dir=store)
    assert first.complete_now and len(cache_files(store)) == 1

    opened = open_catalog([lessons], cache_dir=store)
    assert not opened.complete_now
    outline = opened.catalog.get("mine").lesson
    assert isinstance(outline, LessonOutline) and outline.title == "Mine"
    fresh = load_catalog([lessons])
    assert [item.lesson.id for item in opened.catalog.ordered()] == [item.lesson.id for item in fresh.ordered()]

    assert opened.complete() is False                      # nothing to redraw
    assert opened.complete_now and opened.complete() is False
    assert opened.catalog.index == fresh.index
    for lesson_id, item in fresh.lessons.items():
        got = opened.catalog.get(lesson_id)
        assert isinstance(got.lesson, Lesson) and got.lesson == item.lesson
        assert (got.path, got.builtin) == (item.path, item.builtin)


def test_an_edited_file_is_read_again_even_at_the_same_size(tmp_path):
    lessons, store = tmp_path / "lessons", tmp_path / "cache"
    lessons.mkdir()
    write(lessons / "mine.yaml", lesson(title="Mine"), 1_000_000_000)
    open_catalog([lessons], cache_dir=store)
    write(lessons / "mine.yaml", lesson(title="Ours"), 2_000_000_000)   # same size, later stamp
    opened = open_catalog([lessons], cache_dir=store)
    assert opened.complete_now and opened.catalog.get("mine").lesson.title == "Ours"
    again = open_catalog([lessons], cache_dir=store)
    assert not again.complete_now and again.catalog.get("mine").lesson.title == "Ours"

    (lessons / "mine.yaml").unlink()                          # a removed file is a change too
    assert open_catalog([lessons], cache_dir=store).catalog.get("mine") is None


def test_another_tutor_version_does_not_reuse_the_cache(tmp_path, monkeypatch):
    store = tmp_path / "cache"
    open_catalog(cache_dir=store)
    assert not open_catalog(cache_dir=store).complete_now
    monkeypatch.setattr(tutor, "__version__", tutor.__version__ + ".post1")
    assert open_catalog(cache_dir=store).complete_now


def test_a_corrupt_cache_is_ignored_and_rebuilt(tmp_path):
    store = tmp_path / "cache"
    open_catalog(cache_dir=store)
    [path] = cache_files(store)
    good = json.loads(path.read_text())
    for bad in (b"\x00not json", b"[]", json.dumps({**good, "lessons": [{"data": 3}]}).encode(),
                json.dumps({**good, "index": {"tracks": "la"}}).encode(),
                json.dumps(good).replace('"title": "', '"title": "\\u001b[2J', 1).encode()):   # an escape sequence
        path.write_bytes(bad)
        opened = open_catalog(cache_dir=store)
        assert opened.complete_now and len(opened.catalog.lessons) == len(good["lessons"])
        assert json.loads(path.read_text()) == good           # rewritten from the lesson files


def test_cached_data_that_fails_validation_is_replaced_by_the_files(tmp_path):
    """The outline checks pass, the schema does not: complete() reads the files and asks for a redraw."""
    store = tmp_path / "cache"
    open_catalog(cache_dir=store)
    [path] = cache_files(store)
    good = json.loads(path.read_text())
    tampered = json.loads(path.read_text())
    first = tampered["lessons"][0]["data"]
    first["title"] = "x" * 400                               # too long for the schema
    first["explanation"] = {"run": "code"}
    path.write_text(json.dumps(tampered))
    opened = open_catalog(cache_dir=store)
    assert not opened.complete_now
    assert opened.complete() is True
    fresh = load_catalog()
    assert {k: v.lesson for k, v in opened.catalog.lessons.items()} == {k: v.lesson for k, v in fresh.lessons.items()}
    assert json.loads(path.read_text()) == good


def test_a_catalog_with_problems_is_never_cached(tmp_path):
    lessons, store = tmp_path / "lessons", tmp_path / "cache"
    lessons.mkdir()
    write(lessons / "broken.yaml", "format_version: 1\nid: broken\ntitel: x\n", 1_000_000_000)
    assert open_catalog([lessons], cache_dir=store).catalog.broken
    assert cache_files(store) == []
    again = open_catalog([lessons], cache_dir=store)
    assert again.complete_now and again.catalog.broken


def test_an_unwritable_cache_dir_costs_only_speed(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    opened = open_catalog(cache_dir=blocker / "cache")
    assert opened.complete_now and opened.catalog.lessons


def test_old_cache_files_are_pruned(tmp_path):
    store = tmp_path / "cache"
    for i in range(cache.KEEP_FILES + 3):
        folder = tmp_path / f"lessons{i}"
        folder.mkdir()
        write(folder / "mine.yaml", lesson(), 1_000_000_000)
        open_catalog([folder], cache_dir=store)
        assert cache.cache_file(cache.catalog_sources([folder]), store).exists()   # the newest always stays
    assert len(cache_files(store)) == cache.KEEP_FILES


def test_the_first_paint_path_imports_neither_pydantic_nor_yaml_nor_torch(tmp_path):
    store = tmp_path / "cache"
    open_catalog(cache_dir=store)
    code = ("import sys\nfrom tutor.cli.main import build_parser\nbuild_parser()\n"
            "from tutor.ui.app import TutorApp\nfrom tutor.ui.screens.roadmap import RoadmapScreen\n"
            f"app = TutorApp(lesson_dirs=[], home={str(tmp_path / 'home')!r})\n"
            f"assert not app.opened_catalog.complete_now\n"
            "print(sorted(m for m in ('pydantic', 'yaml', 'torch', 'numpy') if m in sys.modules))\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    # the app reads the default cache dir: point it at the one filled above
    cache_dir = Path(tmp_path / "xdg" / "tutor")
    cache_dir.mkdir(parents=True)
    for path in cache_files(store):
        (cache_dir / path.name).write_bytes(path.read_bytes())
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_app_completes_the_catalog_before_opening_a_lesson(tmp_path):
    from tutor.ui.app import TutorApp

    open_catalog()                                     # fills the test's private cache dir (conftest)
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    assert isinstance(app.catalog.get("la-tensors").lesson, LessonOutline)
    app.complete_catalog()                             # what open_lesson, review and hot reload call first
    assert isinstance(app.catalog.get("la-tensors").lesson, Lesson)


def test_each_language_has_its_own_cache_and_its_overlays_in_the_key(tmp_path):
    store = tmp_path / "cache"
    for language in ("en", "zh"):
        open_catalog(cache_dir=store, language=language)
    assert len(cache_files(store)) == 2
    opened = open_catalog(cache_dir=store, language="zh")
    assert not opened.complete_now and opened.catalog.language == "zh"
    fresh = load_catalog(language="zh")
    assert [i.lesson.title for i in opened.catalog.ordered()] == [i.lesson.title for i in fresh.ordered()]
    assert [t.title for t in opened.catalog.index.tracks] == [t.title for t in fresh.index.tracks]
    assert cache.cache_key(cache.catalog_sources([]), "zh") != cache.cache_key(cache.catalog_sources([]), "en")


async def test_the_lessons_are_validated_off_the_ui_thread_and_not_again(tmp_path, monkeypatch):
    """Before: the UI thread imported pydantic and validated every lesson in its ModelReady
    handler, so "model ready" was painted half a second after the model was."""
    import threading

    from journey_helpers import wait_until
    from tutor.live.hub import ModelHub
    from tutor.ui.app import TutorApp

    open_catalog()                                     # fills the test's private cache dir (conftest)
    on_ui_thread = []
    validate = cache.CachedCatalog.validate

    def watched(self):
        on_ui_thread.append(threading.current_thread() is threading.main_thread())
        return validate(self)

    monkeypatch.setattr(cache.CachedCatalog, "validate", watched)
    monkeypatch.setattr(TutorApp, "load_kept_model", lambda app: None)
    monkeypatch.setattr(ModelHub, "ensure_loaded", lambda hub: None)   # the model itself is not this test's
    app = TutorApp(home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.lessons_finished, "the lessons")
        assert isinstance(app.catalog.get("la-tensors").lesson, Lesson)
    assert on_ui_thread == [False]                     # once, on the worker: complete() used its result


async def test_the_lessons_wait_until_the_ui_has_taken_model_ready(tmp_path, monkeypatch):
    """Before: the model's thread went on to import pydantic and validate the lessons the moment it
    had posted ModelReady, so the UI thread handled that message and painted "model ready" in
    competition with it for the GIL (and the model's status was still "loading" meanwhile)."""
    from journey_helpers import wait_until
    from tutor.live.hub import ModelHub
    from tutor.ui.app import TutorApp

    open_catalog()
    seen = []
    validate = cache.CachedCatalog.validate

    def watched(self):
        seen.append((app.model_status, app.sub_title))
        return validate(self)

    monkeypatch.setattr(cache.CachedCatalog, "validate", watched)
    monkeypatch.setattr(TutorApp, "load_kept_model", lambda app: None)
    monkeypatch.setattr(ModelHub, "ensure_loaded", lambda hub: None)
    app = TutorApp(home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.lessons_finished, "the lessons")
    [(status, note)] = seen
    assert status == "ready" and note.startswith("model ready in ")
