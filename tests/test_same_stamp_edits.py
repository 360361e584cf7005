"""An edit that keeps a lesson file's size and mtime is still seen, by the watcher and the cache.

Tools that preserve times (touch -r, cp -p, rsync -t, some editors) once made such an edit
invisible: the stamp was (mtime, size) only.  The ctime (which no user can set) and the inode
(new on a save by rename) now count too.  No clock is read: an in-place rewrite is repeated
until the file system's ctime moves, which it does at its next tick.
"""
import os
from pathlib import Path

from tutor.cli.lessons import template_text
from tutor.course.cache import open_catalog
from tutor.course.watcher import LessonWatcher

STAMP = 1_000_000_000


def lesson(title: str) -> str:
    return template_text("mine", title, "pr", 5, Path("mine.yaml"), ["pr"])


def write_keeping_mtime(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(STAMP, STAMP))


def rewrite_in_place(path: Path, text: str) -> None:
    """Same size, same mtime, same inode: only the ctime can tell."""
    before = path.stat().st_ctime_ns
    while True:
        write_keeping_mtime(path, text)
        if path.stat().st_ctime_ns != before:
            return


def replace_keeping_mtime(path: Path, text: str) -> None:
    """A save by rename: a new inode, the old times and size."""
    new = path.with_suffix(".tmp")
    write_keeping_mtime(new, text)
    os.replace(new, path)


def test_the_watcher_sees_edits_that_keep_size_and_mtime(tmp_path):
    path = tmp_path / "mine.yaml"
    write_keeping_mtime(path, lesson("Mine"))
    watcher = LessonWatcher([(tmp_path, False)])
    rewrite_in_place(path, lesson("Ours"))
    assert watcher.poll() == [(path, False)]
    replace_keeping_mtime(path, lesson("Mind"))
    assert watcher.poll() == [(path, False)]
    assert watcher.poll() == []


def test_the_cache_is_not_used_after_such_an_edit(tmp_path):
    lessons, store = tmp_path / "lessons", tmp_path / "cache"
    lessons.mkdir()
    path = lessons / "mine.yaml"
    write_keeping_mtime(path, lesson("Mine"))
    open_catalog([lessons], cache_dir=store)
    rewrite_in_place(path, lesson("Ours"))
    opened = open_catalog([lessons], cache_dir=store)
    assert opened.complete_now and opened.catalog.get("mine").lesson.title == "Ours"
    replace_keeping_mtime(path, lesson("Mind"))
    opened = open_catalog([lessons], cache_dir=store)
    assert opened.complete_now and opened.catalog.get("mine").lesson.title == "Mind"
