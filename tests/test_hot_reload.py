"""Editing a lesson while the app runs: it reloads in place; a broken edit keeps the last good one."""
import os
from pathlib import Path

from textual.widgets import Tree

from journey_helpers import graded, text_of, wait_until
from tutor.ui.app import TutorApp
from tutor.course.catalog import load_catalog
from tutor.course.watcher import LessonWatcher, apply_changes
from tutor.cli.lessons import template_text
from tutor.ui.screens.lesson import LessonScreen


def save(path: Path, text: str) -> None:
    """Write and move the mtime forward, so even a same-size save within a tick is seen."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    stamp = max(before + 1_000_000_000, path.stat().st_mtime_ns)
    os.utime(path, ns=(stamp, stamp))


def lesson(lesson_id: str = "mine", title: str = "Mine") -> str:
    return template_text(lesson_id, title, "pr", 5, Path(f"{lesson_id}.yaml"), ["pr"])


def test_watcher_reloads_keeps_the_last_good_version_and_follows_renames(tmp_path):
    path = tmp_path / "mine.yaml"
    save(path, lesson())
    catalog = load_catalog([tmp_path])
    watcher = LessonWatcher(catalog.sources)
    assert watcher.poll() == []

    save(path, lesson(title="Mine, edited"))
    [reload] = apply_changes(catalog, watcher.poll())
    assert (reload.old_id, reload.new_id, reload.broken) == ("mine", "mine", False)
    assert catalog.get("mine").lesson.title == "Mine, edited"

    save(path, lesson(title="Mine, edited").replace("kind: shape", "kind: shapes"))
    [reload] = apply_changes(catalog, watcher.poll())
    assert reload.broken and reload.new_id == "mine"
    assert "kind must be one of" in reload.summary() and "last good version of mine stays" in reload.summary()
    assert catalog.get("mine").lesson.title == "Mine, edited"
    assert [b.path for b in catalog.broken] == [path]

    save(path, lesson("renamed"))
    [reload] = apply_changes(catalog, watcher.poll())
    assert (reload.old_id, reload.new_id, reload.broken) == ("mine", "renamed", False)
    assert catalog.get("mine") is None and not catalog.broken

    save(tmp_path / "other.yaml", lesson("other").replace("prerequisites: []", "prerequisites: [nope]"))
    [reload] = apply_changes(catalog, watcher.poll())
    assert reload.new_id == "other"
    assert any("no lesson has the id 'nope'" in p.message for p in catalog.problems)

    (tmp_path / "other.yaml").unlink()
    [reload] = apply_changes(catalog, watcher.poll())
    assert reload.removed and catalog.get("other") is None and not catalog.problems


def _labels(tree: Tree) -> list[str]:
    return [str(leaf.label) for node in tree.root.children for leaf in node.children]


async def test_user_lessons_on_the_roadmap_and_edited_while_open(tmp_path):
    path = tmp_path / "mine.yaml"
    save(path, lesson(title="Mine [/bold] [red]not markup"))
    save(tmp_path / "broken.yaml", "format_version: 1\nid: broken\ntitel: x\n")
    app = TutorApp(lesson_dirs=[tmp_path], preload_model=False, watch_interval=0.05)
    async with app.run_test(size=(120, 36)) as pilot:
        labels = _labels(app.screen.query_one(Tree))
        assert any("Mine [/bold] [red]not markup" in label for label in labels)   # beside the built-ins
        assert any("Scores: every query against every key" in label for label in labels)
        assert any(f"{tmp_path / 'broken.yaml'}:3:1: titel: unknown field" in label for label in labels)

        app.open_lesson("mine")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LessonScreen)
        await wait_until(pilot, lambda: screen.live is not None, "the live tensors")
        await pilot.press("ctrl+n", "ctrl+n", "ctrl+n")
        assert screen.question_index == 3

        edited = lesson(title="Mine, edited").replace("What do the weights in row 1", "Row one: what do the weights")
        save(path, edited)
        await wait_until(pilot, lambda: screen.lesson.title == "Mine, edited", "the reload")
        assert screen.question_index == 3
        assert "Row one: what do the weights" in text_of(screen, "#question", width=160)
        await wait_until(pilot, lambda: screen.live is not None, "recomputed tensors")
        assert "formula matches the model" in text_of(screen, "#formula-check", width=160)

        save(path, edited.replace("format_version: 1", "format_version: 2"))
        await wait_until(pilot, lambda: "has a problem" in text_of(screen, "#live-status", width=160), "the error")
        assert "format_version: 1" in text_of(screen, "#live-status", width=160)
        assert screen.lesson.title == "Mine, edited" and screen.live is not None    # the last good version stays

        fewer = edited.split("  - id: first-row")[0]        # keep the first two questions only
        save(path, fewer)
        await wait_until(pilot, lambda: len(screen.lesson.questions) == 2, "the shorter lesson")
        assert screen.question_index == 1                   # clamped to the last question

        await pilot.press("escape")
        await pilot.pause()
        tree = app.screen.query_one(Tree)
        assert any("Mine, edited" in label for label in _labels(tree))
        assert not any("format_version" in label for label in _labels(tree))


UNKNOWN_PROBE = ('    probe: "blocks.0.attn.pattern[0, 0, 1]"\n', '    probe: "blocks.0.attn.patern[0, 0, 1]"\n')


def test_the_live_check_of_a_reloaded_lesson_finds_what_loading_cannot(tmp_path):
    from tutor.authoring.reload_check import live_problems
    from tutor.live.hub import ModelHub

    path = tmp_path / "mine.yaml"
    save(path, lesson())
    catalog = load_catalog([tmp_path])
    watcher = LessonWatcher(catalog.sources)
    assert live_problems(path, catalog.get("mine").lesson, ModelHub()) == []

    text = lesson()
    assert UNKNOWN_PROBE[0] in text
    save(path, text.replace(*UNKNOWN_PROBE))
    [reload] = apply_changes(catalog, watcher.poll())
    assert not reload.broken                       # it loads: only running it shows the problem
    problems = live_problems(path, catalog.get("mine").lesson, ModelHub())
    assert problems and "unknown probe 'blocks.0.attn.patern'" in problems[0].message
    line = next(i for i, row in enumerate(path.read_text().splitlines(), 1) if "patern" in row)
    assert (problems[0].path, problems[0].line) == (str(path), line)
    checked = reload.with_live_problems(problems)
    assert checked.checked and not checked.broken
    assert checked.summary().startswith(f"{path}:{line}:") and "mine reloaded with this problem" in checked.summary()


async def test_a_save_with_an_unknown_probe_is_reported_while_the_lesson_is_open(tmp_path, monkeypatch):
    import threading

    import tutor.authoring.reload_check as reload_check

    threads = []
    real = reload_check.live_problems

    def recording(*args):
        threads.append(threading.current_thread() is threading.main_thread())
        return real(*args)

    monkeypatch.setattr(reload_check, "live_problems", recording)
    path = tmp_path / "mine.yaml"
    save(path, lesson())
    app = TutorApp(lesson_dirs=[tmp_path], preload_model=False, watch_interval=0.05)
    told = []
    original_notify = app.notify
    app.notify = lambda message, **kw: (told.append((message, kw.get("title"))), original_notify(message, **kw))[1]
    async with app.run_test(size=(120, 36)) as pilot:
        app.open_lesson("mine")
        await pilot.pause()
        screen = app.screen
        await wait_until(pilot, lambda: screen.live is not None, "the live tensors")

        save(path, lesson().replace(*UNKNOWN_PROBE))
        await wait_until(pilot, lambda: "live check found a problem" in text_of(screen, "#live-status", width=200),
                         "the live check's problem")
        status = text_of(screen, "#live-status", width=200)
        assert "unknown probe 'blocks.0.attn.patern'" in status and f"{path}:" in status
        assert any(title == "Lesson file has a problem" and "patern" in message for message, title in told)
        assert threads and not any(threads)        # never on the UI thread
        await wait_until(pilot, lambda: screen.live is not None, "recomputed tensors")
        assert "live check found a problem" in text_of(screen, "#live-status", width=200)   # kept after the recompute

        save(path, lesson(title="Mine, fixed"))
        await wait_until(pilot, lambda: screen.lesson.title == "Mine, fixed", "the fixed reload")
        await wait_until(pilot, lambda: screen.live is not None, "recomputed tensors")
        assert "live check" not in text_of(screen, "#live-status", width=200)


async def test_the_roadmap_cursor_stays_on_its_lesson_when_one_of_ones_own_appears(tmp_path):
    """A lesson of one's own added above the cursor: Enter still opens the lesson the cursor was on."""
    app = TutorApp(lesson_dirs=[tmp_path], home=tmp_path / "home", preload_model=False, watch_interval=0.05)
    async with app.run_test(size=(120, 36)) as pilot:
        tree = app.screen.query_one(Tree)
        roadmap = app.screen
        await wait_until(pilot, lambda: roadmap._wanted is None and tree.cursor_node is not None,
                         "the roadmap's first cursor, settled (it moves once the tree is laid out)")
        target = next(n for track in tree.root.children for n in track.children if n.data == "pr-masked-softmax")
        tree.move_cursor(target)
        await wait_until(pilot, lambda: tree.cursor_node is target, "the cursor on pr-masked-softmax")
        await pilot.press("enter")
        await graded(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, LessonScreen), "the lesson")
        save(tmp_path / "mine.yaml", lesson(title="Mine"))   # track pr, position 5: above the cursor
        await wait_until(pilot, lambda: any("Mine" in label for label in _labels(tree)), "the new lesson")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is roadmap and roadmap._wanted is None, "the roadmap, settled")
        assert tree.cursor_node.data == "pr-masked-softmax"
        await pilot.press("enter")
        await graded(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, LessonScreen), "the lesson")
        assert app.screen.lesson.id == "pr-masked-softmax"


RENAMED = ("  - id: row-sum\n", "  - id: row-sum-renamed\n")


def test_a_question_renamed_by_an_edit_keeps_its_record_and_tries(tmp_path):
    """2026-12-adversary.md F8: two wrong tries on row-sum, the author renames it while it is on screen,
    and the next try was a fresh first attempt ("Right", first_try; the old record orphaned).  Now the
    reload names the rename, and the record (tries, answers, outcome) goes to the new id."""
    from datetime import datetime, timezone

    from tutor.grading.attempts import Outcome
    from tutor.progress.records import Answer, Mode
    from tutor.progress.store import ProgressStore

    path = tmp_path / "mine.yaml"
    save(path, lesson())
    catalog = load_catalog([tmp_path])
    watcher = LessonWatcher(catalog.sources)
    at = datetime(2026, 3, 1, tzinfo=timezone.utc)
    with ProgressStore(tmp_path / "home") as store:
        for text in ("2", "3"):
            store.record(Answer("mine", "row-sum", text, False, 0, at))
        save(path, lesson().replace(*RENAMED))
        [reload] = apply_changes(catalog, watcher.poll())
        assert reload.renamed == ((("mine", "row-sum"), ("mine", "row-sum-renamed")),)
        for old, new in reload.renamed:
            assert store.rename_question(old, new)
        mode, encounter, record = store.encounter_for("mine", "row-sum-renamed", Mode.SCORED, 3, at)
        assert (mode, encounter.attempts_left, record.tries) == (Mode.SCORED, 1, 2)
        assert store.question_record("mine", "row-sum") is None          # nothing orphaned
        _stored, record = store.record(Answer("mine", "row-sum-renamed", "1", True, 0, at))
        assert record.outcome is Outcome.AFTER_RETRY
        assert [(a.question_id, a.attempt) for a in store.answers()] == [("row-sum-renamed", n) for n in (1, 2, 3)]

        save(path, lesson())                                              # renamed back: the record follows again
        [reload] = apply_changes(catalog, watcher.poll())
        assert store.rename_question(*reload.renamed[0])
        assert store.question_record("mine", "row-sum").outcome is Outcome.AFTER_RETRY


def test_a_rename_never_overwrites_a_history_the_new_id_has(tmp_path):
    from datetime import datetime, timezone

    from tutor.grading.attempts import Outcome
    from tutor.progress.records import Answer
    from tutor.progress.store import ProgressStore

    at = datetime(2026, 3, 1, tzinfo=timezone.utc)
    with ProgressStore(tmp_path / "home") as store:
        store.record(Answer("mine", "row-sum", "2", False, 0, at))
        store.record(Answer("mine", "row-sum-renamed", "1", True, 0, at))   # an older version used that id
        assert not store.rename_question(("mine", "row-sum"), ("mine", "row-sum-renamed"))
        assert store.question_record("mine", "row-sum").tries == 1
        assert store.question_record("mine", "row-sum-renamed").outcome is Outcome.FIRST_TRY


async def test_renaming_the_question_on_screen_continues_its_tries(tmp_path):
    """F8 replayed as the adversary did it, in the app: Ctrl+N ×3, two wrong tries, rename, right."""
    from tutor.grading.attempts import Outcome

    path = tmp_path / "mine.yaml"
    save(path, lesson())
    app = TutorApp(home=tmp_path / "home", lesson_dirs=[tmp_path], preload_model=False, watch_interval=0.05)
    async with app.run_test(size=(120, 36)) as pilot:
        app.open_lesson("mine")
        await pilot.pause()
        screen = app.screen
        await wait_until(pilot, lambda: screen.live is not None, "the live tensors")
        await pilot.press("ctrl+n", "ctrl+n", "ctrl+n")
        for text in ("2", "3"):
            await pilot.press(*text, "enter")
        assert "1 try left" in text_of(screen, "#feedback", width=160)
        save(path, lesson().replace(*RENAMED))
        await wait_until(pilot, lambda: screen.lesson.questions[3].id == "row-sum-renamed", "the reload")
        await wait_until(pilot, lambda: screen.live is not None, "recomputed tensors")
        assert "already tried this question: 1 try left" in text_of(screen, "#feedback", width=160)
        await pilot.press("1", "enter")
        await pilot.pause()
        record = app.progress.store.question_record("mine", "row-sum-renamed")
        assert (record.outcome, record.tries) == (Outcome.AFTER_RETRY, 3)
        assert app.progress.store.question_record("mine", "row-sum") is None
