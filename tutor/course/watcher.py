"""Hot reload for lesson authors: notice edited lesson files and reload them in the catalog.

Polling the modification times of a few dozen files once a second costs microseconds and
needs no platform-specific watcher or extra dependency; the app calls :meth:`poll` from a
timer.  No Textual here, so the reload rules are tested without an app.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from tutor.course.cache import Stamp, stamp_of
from tutor.course.catalog import Catalog, lesson_files, refresh_file
from tutor.course.loader import Problem



@dataclass(frozen=True)
class Reload:
    """What one changed file now means for the roadmap and for an open lesson."""

    path: Path
    old_id: str | None        # the lesson this file served before the change
    new_id: str | None        # the lesson it serves now (the last good one when broken)
    problems: list[Problem]   # empty when the file loaded cleanly
    removed: bool = False
    # the problems come from running the reloaded lesson on the model: the file loaded and its new
    # version is in use, but a learner would meet these (an unknown probe, a slice out of range)
    checked: bool = False
    # ((old lesson, old question), (new lesson, new question)): ids an edit renamed (see renamed_questions)
    renamed: tuple[tuple[tuple[str, str], tuple[str, str]], ...] = ()

    @property
    def broken(self) -> bool:
        return bool(self.problems) and not self.checked

    def with_live_problems(self, problems: list[Problem]) -> "Reload":
        return replace(self, problems=list(problems), checked=True)

    def summary(self) -> str:
        if self.removed:
            return f"{self.path.name} was removed"
        if self.checked and self.problems:
            more = f" (and {len(self.problems) - 1} more: run tutor lessons check)" if len(self.problems) > 1 else ""
            return f"{self.problems[0]}{more}; {self.new_id} reloaded with this problem"
        if self.broken:
            kept = f"; the last good version of {self.new_id} stays" if self.new_id else ""
            return f"{self.problems[0]}{kept}"
        return f"reloaded {self.new_id} from {self.path.name}"


class LessonWatcher:
    """Remembers each lesson file's stamp; ``poll`` returns the files that changed since."""

    def __init__(self, sources: list[tuple[Path, bool]]):
        self.sources = [(Path(folder), builtin) for folder, builtin in sources]
        self.stamps = self._scan()

    def _scan(self) -> dict[Path, tuple[Stamp, bool]]:
        stamps: dict[Path, tuple[Stamp, bool]] = {}
        for folder, builtin in self.sources:
            try:
                paths = lesson_files(folder)
            except OSError:
                continue
            for path in paths:
                try:
                    info = os.stat(path)
                except OSError:
                    continue   # vanished between listing and stat: seen as removed
                stamps[path] = (stamp_of(info), builtin)
        return stamps

    def poll(self) -> list[tuple[Path, bool]]:
        """(path, builtin) for every file added, changed or removed since the last poll."""
        now = self._scan()
        changed = [(path, entry[1]) for path, entry in now.items()
                   if path not in self.stamps or self.stamps[path][0] != entry[0]]
        changed += [(path, entry[1]) for path, entry in self.stamps.items() if path not in now]
        self.stamps = now
        return sorted(changed, key=lambda item: str(item[0]))


def apply_changes(catalog: Catalog, changes: list[tuple[Path, bool]]) -> list[Reload]:
    """Reload each changed file into the catalog; a broken edit keeps the last good lesson."""
    reloads = []
    for path, builtin in changes:
        old_id = next((i for i, item in catalog.lessons.items() if item.path == path), None)
        old = catalog.lessons[old_id].lesson if old_id else None
        removed = not path.exists()
        new_id, problems = refresh_file(catalog, path, builtin)
        new = catalog.lessons[new_id].lesson if new_id and not problems and not removed else None
        reloads.append(Reload(path, old_id, new_id, problems, removed, renamed=renamed_questions(old, new)))
    return reloads


def renamed_questions(old, new) -> tuple[tuple[tuple[str, str], tuple[str, str]], ...]:
    """The questions an edit renamed: at the same position, the old (lesson, question) id is gone
    from the new lesson and the new one was not in the old.  Why by position and whatever else
    changed: the learner who edits their own lesson while the app runs (2026-12-adversary.md F8)
    must not turn a question they have tried into a fresh first attempt by renaming it (or the
    lesson), and the record goes with the place the question holds on screen.  A rename while the
    app is closed cannot be told from a new question and stays one (renamed ids never inflate a lesson)."""
    if old is None or new is None:
        return ()
    before = {(old.id, q.id) for q in old.questions}
    after = {(new.id, q.id) for q in new.questions}
    return tuple(((old.id, o.id), (new.id, n.id)) for o, n in zip(old.questions, new.questions)
                 if (old.id, o.id) not in after and (new.id, n.id) not in before)
