"""A JSON copy of the validated lessons, so the roadmap paints before pydantic and YAML load.

Importing pydantic and building the lesson schema takes longer than Textual takes to paint
a screen, and reading 45 YAML files doubles it.  So the app paints the roadmap from
*outlines* (ids, titles, tracks, positions, question ids: what the roadmap, the palette and
the progress labels read) taken from this cache, and right after the first paint
``complete()`` validates the cached data with the real schema and swaps the lessons in
place.  Anything that needs a whole lesson calls ``complete()`` first.

The cache is only ever data: the file is parsed with ``json`` and every lesson is validated
again by pydantic (strict) before the app uses it, so a tampered cache can at worst show a
wrong title for a moment, and then it is thrown away and rebuilt from the lesson files.  It
is used only when its key matches: the tutor version, the stamps (mtime, size, ctime, inode) of every
lesson file and of the code that decides what validates, and the folders asked for.  A
catalog with broken files or cross-file problems is never cached: an author editing lessons
always sees fresh messages.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tutor
from tutor.common.i18n import DEFAULT, current_language
from tutor.course.catalog import Catalog, LoadedLesson, builtin_lessons_dir, lesson_files, load_catalog

CACHE_FORMAT = 1
KEEP_FILES = 8   # cache files kept (one per set of lesson folders); older ones are removed
# The code that decides what a lesson file validates to; an edit here must not reuse old data.
VALIDATION_CODE = ("course", "grading", "experiments")


@dataclass(frozen=True)
class QuestionOutline:
    id: str
    kind: str


@dataclass(frozen=True)
class LessonOutline:
    """The fields of a ``Lesson`` that the roadmap reads, until the validated lesson replaces it."""

    id: str
    title: str
    track: str
    position: int
    prerequisites: tuple[str, ...]
    questions: tuple[QuestionOutline, ...]


@dataclass(frozen=True)
class TrackOutline:
    id: str
    title: str
    description: str


@dataclass(frozen=True)
class IndexOutline:
    tracks: tuple[TrackOutline, ...]
    concepts: dict[str, str] = field(default_factory=dict)


class CacheCorrupt(ValueError):
    """The cache file is not what this module writes; it is ignored and rebuilt."""


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("tutor", appauthor=False))


# (mtime_ns, size, ctime_ns, inode): a same-size edit that keeps the mtime (touch -r, cp -p, an
# editor that preserves times) was once never noticed; no user can set the ctime, and a save
# by rename makes a new inode, so either still shows the edit.  The watcher uses it too.
Stamp = tuple[int, int, int, int]


def stamp_of(info: os.stat_result) -> Stamp:
    return (info.st_mtime_ns, info.st_size, info.st_ctime_ns, info.st_ino)


def _stamp(path: Path) -> list:
    try:
        info = os.stat(path)
    except OSError:
        return [str(path), None, None]
    return [str(path), *stamp_of(info)]


def _package_stamp(name: str) -> list:
    from importlib.util import find_spec

    spec = find_spec(name)   # finds without importing
    return _stamp(Path(spec.origin)) if spec and spec.origin else [name, None, None]


def cache_key(sources: list[tuple[Path, bool]], language: str = DEFAULT) -> dict:
    """Everything whose change could change the validated lessons, translations included."""
    files = []
    for folder, builtin in sources:
        try:
            paths = lesson_files(folder) + ([folder / "index.yaml"] if builtin else [])
            if language != DEFAULT:   # the overlays, as tutor.course.overlay finds them
                paths += sorted((Path(folder) / language).glob("*.yaml"))
        except OSError:
            paths = []
        files.append([str(folder), builtin, [_stamp(p) for p in paths]])
    code_root = Path(tutor.__file__).parent
    code = [_stamp(p) for part in VALIDATION_CODE for p in sorted((code_root / part).glob("*.py"))]
    return {"format": CACHE_FORMAT, "tutor": tutor.__version__, "language": language, "files": files, "code": code,
            "libraries": [_package_stamp("pydantic"), _package_stamp("pydantic_core"), _package_stamp("yaml")]}


def cache_file(sources: list[tuple[Path, bool]], cache_dir: Path | None = None, language: str = DEFAULT) -> Path:
    """One file per set of folders and language, so ``tutor``, ``tutor --lang zh`` and
    ``tutor --lessons mine`` do not evict each other."""
    name = hashlib.sha256(repr([language] + [(str(f), b) for f, b in sources]).encode()).hexdigest()[:16]
    return Path(cache_dir or default_cache_dir()) / f"lessons-{name}.json"


def catalog_sources(extra_dirs) -> list[tuple[Path, bool]]:
    return [(builtin_lessons_dir(), True)] + [(Path(d), False) for d in extra_dirs]


def save_catalog(catalog: Catalog, path: Path, key: dict) -> bool:
    """Write the cache atomically; False (and nothing written) when it must not or cannot be."""
    if catalog.broken or catalog.problems or catalog.folder_problems:
        return False
    content = {
        "key": key,
        "index": catalog.index.model_dump(mode="json"),
        "lessons": [{"path": str(item.path), "builtin": item.builtin, "data": item.lesson.model_dump(mode="json")}
                    for item in catalog.lessons.values()],
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        partial.write_text(json.dumps(content, ensure_ascii=True), encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        return False   # a read-only or full cache dir costs speed, never the lessons
    _prune(path)
    return True


def _prune(kept: Path) -> None:
    """Keep ``kept`` and the newest others, KEEP_FILES in all: each set of --lessons folders adds one."""
    try:
        others = [p for p in kept.parent.glob("lessons-*.json") if p != kept]
        others.sort(key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in others[KEEP_FILES - 1:]:
            old.unlink()
    except OSError:
        pass


# C0 and C1 control characters and DEL: the outlines reach the screen before the schema has
# seen them, so anything a terminal could read as a command sends the start to the files instead
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or _CONTROL.search(value):
        raise CacheCorrupt(f"{what} is not plain text")
    return value


def _outline(data: Any) -> LessonOutline:
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list) \
            or not isinstance(data.get("prerequisites"), list) or type(data.get("position")) is not int:
        raise CacheCorrupt("a lesson entry has the wrong shape")
    questions = []
    for question in data["questions"]:
        if not isinstance(question, dict):
            raise CacheCorrupt("a question entry has the wrong shape")
        questions.append(QuestionOutline(_text(question.get("id"), "question id"), _text(question.get("kind"), "kind")))
    return LessonOutline(_text(data.get("id"), "id"), _text(data.get("title"), "title"), _text(data.get("track"), "track"),
                         data["position"], tuple(_text(p, "prerequisite") for p in data["prerequisites"]),
                         tuple(questions))


def _index_outline(data: Any) -> IndexOutline:
    if not isinstance(data, dict) or not isinstance(data.get("tracks"), list) \
            or not isinstance(data.get("concepts", {}), dict):
        raise CacheCorrupt("the index has the wrong shape")
    tracks = []
    for track in data["tracks"]:
        if not isinstance(track, dict):
            raise CacheCorrupt("a track entry has the wrong shape")
        tracks.append(TrackOutline(_text(track.get("id"), "track id"), _text(track.get("title"), "track title"),
                                   _text(track.get("description", ""), "track description")))
    return IndexOutline(tuple(tracks), {_text(k, "concept"): _text(v, "concept") for k, v in data.get("concepts", {}).items()})


def read_cache(path: Path, key: dict) -> dict | None:
    """The cached content when it exists, parses and matches ``key``; else None."""
    try:
        content = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(content, dict) or content.get("key") != key or not isinstance(content.get("lessons"), list):
        return None
    return content


@dataclass(frozen=True)
class Validated:
    """Cached content validated into lessons, and the content it came from."""

    content: dict
    index: Any
    lessons: dict


@dataclass
class CachedCatalog:
    """The catalog the app starts with, and the promise to make its lessons whole.

    ``catalog`` is complete when the cache missed; otherwise it holds outlines until
    ``complete()`` (idempotent) validates the cached data and puts real lessons in place.
    """

    catalog: Catalog
    path: Path
    key: dict
    pending: dict | None = None          # cached content still to validate; None: complete
    extra_dirs: list[Path] = field(default_factory=list)
    language: str = DEFAULT

    @property
    def complete_now(self) -> bool:
        return self.pending is None

    def validate(self) -> "Validated | None":
        """The pending content as validated lessons, or None when it does not validate (or nothing
        is pending).  It only reads, so the model's worker thread runs it, pydantic's import
        included, while the UI thread stays free; ``complete`` puts the result in place."""
        content = self.pending
        if content is None:
            return None
        from pydantic import ValidationError

        from tutor.course.schema import Lesson, LessonIndex

        try:
            index = LessonIndex.model_validate_json(json.dumps(content["index"]), strict=True)
            lessons = {}
            for entry in content["lessons"]:
                lesson = Lesson.model_validate_json(json.dumps(entry["data"]), strict=True)
                lessons[lesson.id] = LoadedLesson(lesson, Path(entry["path"]), bool(entry["builtin"]))
            if list(lessons) != list(self.catalog.lessons):
                raise CacheCorrupt("the cached lessons changed under the outlines")
        except (ValidationError, CacheCorrupt, KeyError, TypeError):
            return None
        return Validated(content, index, lessons)

    def complete(self, validated: "Validated | None" = None) -> bool:
        """Swap validated lessons into the catalog (``validated``: what ``validate`` returned for
        the pending content; validated here when not given); True when the roadmap must be redrawn
        (the cache proved bad, and the lessons were read from their files instead)."""
        if self.pending is None:
            return False
        if validated is None or validated.content is not self.pending:
            validated = self.validate()
        self.pending = None
        if validated is None:
            self._replace(load_catalog(self.extra_dirs, language=self.language))
            save_catalog(self.catalog, self.path, self.key)
            return True
        self.catalog.index = validated.index
        self.catalog.lessons = validated.lessons
        return False

    def _replace(self, fresh: Catalog) -> None:
        """In place, so every screen holding the catalog sees the new content."""
        for name in ("index", "lessons", "broken", "problems", "folder_problems", "sources", "language"):
            setattr(self.catalog, name, getattr(fresh, name))


def open_catalog(extra_dirs=(), cache_dir: Path | None = None, language: str | None = None) -> CachedCatalog:
    """The catalog from the cache when it is fresh (outlines until ``complete()``), else from
    the lesson files, writing the cache for next time.  ``language``: as ``load_catalog``."""
    extra_dirs = [Path(d) for d in extra_dirs]
    language = language or current_language()
    sources = catalog_sources(extra_dirs)
    key = cache_key(sources, language)
    path = cache_file(sources, cache_dir, language)
    content = read_cache(path, key)
    if content is not None:
        try:
            index = _index_outline(content.get("index"))
            lessons = {}
            for entry in content["lessons"]:
                if not isinstance(entry, dict):
                    raise CacheCorrupt("a lesson entry has the wrong shape")
                outline = _outline(entry.get("data"))
                lessons[outline.id] = LoadedLesson(outline, Path(_text(entry.get("path"), "path")),
                                                   entry.get("builtin") is True)
        except CacheCorrupt:
            content = None
        else:
            catalog = Catalog(index=index, lessons=lessons, sources=sources, language=language)
            return CachedCatalog(catalog, path, key, pending=content, extra_dirs=extra_dirs, language=language)
    catalog = load_catalog(extra_dirs, language=language)
    save_catalog(catalog, path, key)
    return CachedCatalog(catalog, path, key, extra_dirs=extra_dirs, language=language)
