"""The roadmap's content: the built-in lessons plus any folders the learner adds.

A broken file never hides the others: it is kept as a ``BrokenLesson`` with its problems so
the roadmap can list it with its error.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import tutor.lessons as builtin_lessons_package

from tutor.common.i18n import DEFAULT, M_, current_language

if TYPE_CHECKING:   # the loader pulls in YAML and pydantic: imported where used, after the first paint
    from tutor.course.loader import Problem
    from tutor.course.schema import Lesson, LessonIndex


def builtin_lessons_dir() -> Path:
    return Path(builtin_lessons_package.__file__).resolve().parent


@dataclass(frozen=True)
class LoadedLesson:
    lesson: Lesson
    path: Path
    builtin: bool


@dataclass(frozen=True)
class BrokenLesson:
    path: Path
    problems: list[Problem]


@dataclass
class Catalog:
    index: LessonIndex
    lessons: dict[str, LoadedLesson] = field(default_factory=dict)
    broken: list[BrokenLesson] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)   # cross-file problems
    folder_problems: list[Problem] = field(default_factory=list, repr=False)   # kept across reloads
    sources: list[tuple[Path, bool]] = field(default_factory=list, repr=False)  # (folder, builtin)
    language: str = DEFAULT   # lessons are shown through this language's overlays (course/overlay.py)

    def track_lessons(self, track_id: str) -> list[LoadedLesson]:
        found = [item for item in self.lessons.values() if item.lesson.track == track_id]
        return sorted(found, key=lambda item: (item.lesson.position, item.lesson.id))

    def ordered(self) -> list[LoadedLesson]:
        """Every lesson in roadmap order: tracks as the index orders them, then by position."""
        return [item for track in self.index.tracks for item in self.track_lessons(track.id)]

    def get(self, lesson_id: str) -> LoadedLesson | None:
        return self.lessons.get(lesson_id)


def lesson_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.yaml") if p.name != "index.yaml")


def load_index(folder: Path | None = None) -> LessonIndex:
    from tutor.course.loader import load_model_file
    from tutor.course.schema import LessonIndex

    return load_model_file(LessonIndex, (folder or builtin_lessons_dir()) / "index.yaml")


def load_lesson(path: Path) -> Lesson:
    """One lesson file, or LessonFileError with every problem found in it."""
    from tutor.course.loader import load_model_file
    from tutor.course.schema import Lesson

    return load_model_file(Lesson, path)


def load_catalog(extra_dirs: list[Path] = (), language: str | None = None) -> Catalog:
    """Built-in lessons first, then the learner's folders; cross-file rules checked last.

    ``language`` (default: the interface's) picks the translation overlays the lessons are shown in."""
    from tutor.course.loader import Problem
    from tutor.course.overlay import translate_index

    language = language or current_language()
    index = load_index()
    catalog = Catalog(index=translate_index(index, builtin_lessons_dir(), language) if language != DEFAULT else index,
                      language=language)
    catalog.sources = [(builtin_lessons_dir(), True)] + [(Path(d), False) for d in extra_dirs]
    for folder, builtin in catalog.sources:
        if not folder.is_dir():
            catalog.folder_problems.append(Problem(str(folder), 1, 1, "", M_("not a folder of lessons")))
            continue
        for path in lesson_files(folder):
            add_lesson_file(catalog, path, builtin)
    catalog.problems = catalog.folder_problems + cross_file_problems(catalog)
    return catalog


def refresh_file(catalog: Catalog, path: Path, builtin: bool) -> tuple[str | None, list[Problem]]:
    """Re-read one edited, added or removed file in place: (the id it now serves, its problems).

    A file broken by an edit keeps its last good lesson in the catalog, so a learner who has it
    open loses nothing; the problems are listed beside it until the next good save.
    """
    from tutor.course.loader import LessonFileError

    old_id = next((i for i, item in catalog.lessons.items() if item.path == path), None)
    catalog.broken = [b for b in catalog.broken if b.path != path]
    problems: list[Problem] = []
    if not path.exists():
        catalog.lessons.pop(old_id, None)
        new_id = None
    else:
        before = len(catalog.broken)
        try:
            lesson = load_lesson(path)
        except LessonFileError as error:
            catalog.broken.append(BrokenLesson(path, error.problems))
        else:
            if old_id is not None and old_id != lesson.id:
                del catalog.lessons[old_id]
            add_lesson_file(catalog, path, builtin, lesson)
        problems = [p for b in catalog.broken[before:] for p in b.problems]
        new_id = lesson_id_at(catalog, path)
    catalog.problems = catalog.folder_problems + cross_file_problems(catalog)
    return new_id, problems


def lesson_id_at(catalog: Catalog, path: Path) -> str | None:
    return next((i for i, item in catalog.lessons.items() if item.path == path), None)


def add_lesson_file(catalog: Catalog, path: Path, builtin: bool, lesson: Lesson | None = None) -> None:
    from tutor.course.loader import LessonFileError, Problem
    from tutor.course.overlay import translate_lesson

    if lesson is None:
        try:
            lesson = load_lesson(path)
        except LessonFileError as error:
            catalog.broken.append(BrokenLesson(path, error.problems))
            return
    previous = catalog.lessons.get(lesson.id)
    if previous is not None and previous.path != path:
        line, col = _line_of(path, ("id",))
        catalog.broken.append(BrokenLesson(path, [Problem(
            str(path), line, col, "id", M_("duplicate id {id!r}: {path} already uses it; choose another id", id=lesson.id, path=str(previous.path)))]))
        return
    if catalog.language != DEFAULT:
        lesson = translate_lesson(lesson, path, catalog.language)
    catalog.lessons[lesson.id] = LoadedLesson(lesson, path, builtin)


def _line_of(path: Path, loc: tuple) -> tuple[int, int]:
    from tutor.course.loader import locate, read_yaml
    _, root, _ = read_yaml(path)
    return locate(root, loc)


def cross_file_problems(catalog: Catalog) -> list[Problem]:
    """Unknown tracks and prerequisites, and prerequisite cycles."""
    from tutor.course.loader import Problem

    problems: list[Problem] = []
    tracks = {track.id for track in catalog.index.tracks}
    for item in catalog.lessons.values():
        lesson = item.lesson
        if lesson.track not in tracks:
            line, col = _line_of(item.path, ("track",))
            problems.append(Problem(str(item.path), line, col, "track",
                                    M_("unknown track {track!r}; use one of: {tracks}", track=lesson.track,
                                       tracks=", ".join(sorted(tracks)))))
        for i, prerequisite in enumerate(lesson.prerequisites):
            if prerequisite not in catalog.lessons:
                line, col = _line_of(item.path, ("prerequisites", i))
                close = difflib.get_close_matches(prerequisite, list(catalog.lessons), n=1)
                hint = M_("; did you mean {name!r}?", name=close[0]) if close else M_("; use the id: of another lesson")
                problems.append(Problem(str(item.path), line, col, f"prerequisites.{i}",
                                        M_("no lesson has the id {id!r}{hint}", id=prerequisite, hint=hint)))
    for cycle in prerequisite_cycles(catalog):
        # reported in every file of the cycle: any one of them may be the one to fix
        for k, lesson_id in enumerate(cycle):
            item = catalog.lessons[lesson_id]
            loop = cycle[k:] + cycle[:k]
            position = item.lesson.prerequisites.index(loop[1 % len(loop)])
            line, col = _line_of(item.path, ("prerequisites", position))
            problems.append(Problem(str(item.path), line, col, f"prerequisites.{position}",
                                    M_("prerequisite cycle: {cycle}; remove one of these prerequisites",
                                       cycle=" -> ".join(loop + [loop[0]]))))
    return problems


def prerequisite_cycles(catalog: Catalog) -> list[list[str]]:
    """Each cycle once, found by depth-first search over known prerequisites."""
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in catalog.lessons[node].lesson.prerequisites:
            if nxt not in catalog.lessons:
                continue
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for lesson_id in sorted(catalog.lessons):
        if lesson_id not in state:
            visit(lesson_id, [])
    return cycles
