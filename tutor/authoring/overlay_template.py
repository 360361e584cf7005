"""``tutor lessons new ID --lang zh``: a translation overlay to fill in, for an existing lesson.

Each field is written empty (YAML null) under the English it translates, quoted as a
comment, so the file loads and passes the check from the start: an empty field is only a
"not translated yet" warning, and the learner sees the English, marked, until it is filled.
"""
from __future__ import annotations

import json

from tutor.course.overlay import english_prose, source_hash
from tutor.course.schema import Lesson

HEADER = """\
# Translation ({language}) of the lesson {lesson_id} ({english_file}).
# Only the words live here: probes, formulas, sizes and answers stay in the English file.
# Fill in each empty field (the English is in the comment above it); a field left empty is
# shown in English, marked [EN]. Keep every {{{{ placeholder }}}} and every number exactly as
# the English writes them. `tutor lessons check` checks this file; docs/lessons.md,
# "Translating a lesson", explains the format. `source` is the hash of the English this
# translates: set it to the value the check prints when you bring a translation up to date.
format_version: 1
lesson: {lesson_id}
source: "{source}"
"""


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _commented(text: str, indent: str) -> str:
    lines = text.strip("\n").splitlines() or [""]
    return "".join(f"{indent}#   {line}".rstrip() + "\n" for line in lines)


def _field(name: str, english: str, indent: str) -> str:
    if "\n" in english.strip():
        return f"{indent}# {name} (English):\n{_commented(english, indent)}{indent}{name}:\n"
    return f"{indent}# {name}: {_quoted(english)}\n{indent}{name}:\n"


def _list_field(name: str, english: list[str], indent: str) -> str:
    if not english:
        return ""
    items = "".join(f"{indent}#   - {_quoted(text)}\n" for text in english)
    return f"{indent}# {name} (English, in this order):\n{items}{indent}{name}:\n"


def overlay_template(lesson: Lesson, language: str, english_file: str) -> str:
    prose = english_prose(lesson)
    text = HEADER.format(language=language, lesson_id=lesson.id, english_file=english_file,
                         source=source_hash(lesson))
    text += _field("title", prose["title"], "")
    text += _field("explanation", prose["explanation"], "")
    text += "formula:\n" + _field("translation", prose["formula"]["translation"], "  ")
    text += "questions:\n"
    for question_id, words in prose["questions"].items():
        text += f"  {question_id}:\n"
        text += _field("prompt", words["prompt"], "    ")
        text += _list_field("hints", words["hints"], "    ")
        if words["reveal"]:
            text += _field("reveal", words["reveal"], "    ")
        if "choices" in words:
            text += _list_field("choices", words["choices"], "    ")
        if "says" in words:   # the reject: entries' sentences, in the file's order
            text += _list_field("says", words["says"], "    ")
    return text


def write_overlay_template(args) -> int:
    """The command: find lesson ``args.id`` (built-in, in --dir or in --lessons), write its overlay."""
    import sys
    from pathlib import Path

    from tutor.common.i18n import DEFAULT, LANGUAGES, _
    from tutor.common.safe_text import one_line
    from tutor.course.catalog import add_lesson_file, lesson_files, load_catalog
    from tutor.course.overlay import overlay_path

    def fail(message: str) -> int:
        print(one_line(_("tutor lessons new: {message}").format(message=message)), file=sys.stderr)
        return 1

    language = args.overlay_language
    if language not in LANGUAGES or language == DEFAULT:
        return fail(_("--lang {language!r}: translations can be written for {languages}").format(
            language=language, languages=", ".join(code for code in LANGUAGES if code != DEFAULT)))
    catalog = load_catalog(list(getattr(args, "lessons", [])), language=DEFAULT)
    if Path(args.dir).is_dir():
        for path in lesson_files(Path(args.dir)):
            if path.stem == args.id and args.id not in catalog.lessons:
                add_lesson_file(catalog, path, builtin=False)
    item = catalog.get(args.id)
    if item is None:
        return fail(_("no lesson has the id {id!r}; a translation needs the English lesson first "
                      "(built-in, in --dir or in --lessons)").format(id=args.id))
    path = overlay_path(Path(args.dir) / item.path.name, language)
    if path.exists() and not args.force:
        return fail(_("{path} already exists; add --force to overwrite it").format(path=path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(overlay_template(item.lesson, language, item.path.name), encoding="utf-8")
    except OSError as error:
        return fail(_("cannot write {path}: {error}").format(path=path, error=error.strerror or error))
    print(one_line(_("wrote {path}").format(path=path)))
    print(_("next: translate each field, then run\n  tutor lessons check {path}").format(path=one_line(str(path))))
    return 0
