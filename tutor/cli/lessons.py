"""``tutor lessons ...``: list, check, create lesson files, and list what a lesson may read."""
from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path
from string import Template

from tutor.common.i18n import _, message_of, translated
from tutor.common.safe_text import one_line
from tutor.cli import lessons_try


def add_parser(commands) -> None:
    lessons = commands.add_parser("lessons", help=_("list, check or create lesson files"))
    sub = lessons.add_subparsers(dest="lessons_command", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help=_("list the lessons on the roadmap"))
    listing.set_defaults(func=run_lessons_list)

    check = sub.add_parser("check", help=_("check lesson files against the format and the live model"),
                           description=_("Check lesson files: the YAML, the schema, prerequisites, concept ids, "
                                       "and every probe, answer and formula against the live model. "
                                       "Exit status 0 when all are valid, 1 otherwise."))
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                       help=_("a lesson file or a folder of them (default: the built-in lessons)"))
    check.add_argument("--static", action="store_true",
                       help=_("skip the live model (fast; probes, answers and the formula are not checked)"))
    check.add_argument("--variants", type=int, default=3, metavar="N",
                       help=_("random size draws to check for lessons with model.vary (default 3)"))
    check.add_argument("--checkpoint", metavar="PATH", default=None,
                       help=_("run weights: trained lessons on this checkpoint instead of the shipped one "
                            "('random': untrained weights of the shipped shape); lessons whose model.requires "
                            "it does not meet are skipped with the reason"))
    check.set_defaults(func=run_lessons_check)

    new = sub.add_parser("new", help=_("write a commented starting lesson file that passes the check"))
    new.add_argument("id", help=_("the new lesson's id, e.g. my-softmax (lower case, digits, '.', '_', '-')"))
    new.add_argument("--dir", type=Path, default=Path("."), help=_("folder to write ID.yaml in (default: here)"))
    new.add_argument("--track", default="pr", help=_("track id from lessons/index.yaml (default: pr)"))
    new.add_argument("--title", default=None, help=_("the lesson's title"))
    new.add_argument("--position", type=int, default=100, help=_("order inside the track (default 100)"))
    new.add_argument("--force", action="store_true", help=_("overwrite an existing file"))
    new.add_argument("--lang", dest="overlay_language", default=None, metavar="LANG",
                     help=_("write a translation of the existing lesson ID instead, to DIR/LANG/ID.yaml (e.g. zh)"))
    new.set_defaults(func=run_lessons_new)

    probes = sub.add_parser("probes", help=_("list the probe names, params.* weights and experiments with shapes"))
    probes.add_argument("--experiments", action="store_true",
                        help=_("also run every experiment and list its tensors with shapes (slower)"))
    probes.set_defaults(func=run_lessons_probes)

    concepts = sub.add_parser("concepts", help=_("list the concept ids a lesson's concepts: may name, by track"))
    concepts.set_defaults(func=run_lessons_concepts)

    schema = sub.add_parser("schema", help=_("print the lesson format as JSON Schema (for editors)"),
                            description=_("Print the lesson format as JSON Schema, built from the tutor's own "
                                        "schema. 'tutor lessons new' writes it beside a new lesson as "
                                        "lesson.schema.json so an editor with the YAML language server "
                                        "completes field names and flags mistakes."))
    schema.set_defaults(func=run_lessons_schema)

    lessons_try.add_parser(sub)

    docs = sub.add_parser("docs", help=_("show the lesson-format guide (every field, each question kind, the checks)"),
                          description=_("Print the lesson-format guide that ships with tutor. "
                                      "--path prints where the file is instead."))
    docs.add_argument("--path", action="store_true", help=_("print the guide's file path instead of its text"))
    docs.set_defaults(func=run_lessons_docs)


def guide_name() -> str:
    """lessons.zh.md in Chinese (a guide of its own, shipped beside lessons.md), else lessons.md."""
    from importlib.resources import files

    from tutor.common.i18n import current_language

    translated = f"lessons.{current_language()}.md"
    return translated if files("tutor.docs").joinpath(translated).is_file() else "lessons.md"


def guide_text() -> str:
    from importlib.resources import files

    return files("tutor.docs").joinpath(guide_name()).read_text(encoding="utf-8")


def run_lessons_docs(args: argparse.Namespace) -> int:
    """Show the guide through a pager when stdout is a terminal, as ``git help`` does; plain text otherwise."""
    if args.path:
        from importlib.resources import as_file, files

        with as_file(files("tutor.docs").joinpath(guide_name())) as path:
            print(one_line(str(path)))
        return 0
    text = guide_text()
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.markdown import Markdown

        console = Console()
        with console.pager(styles=True):
            console.print(Markdown(text))
    else:
        sys.stdout.write(text)
    return 0


def schema_text() -> str:
    import json

    from tutor.course.schema import lesson_json_schema

    return json.dumps(lesson_json_schema(), indent=2, ensure_ascii=False) + "\n"


def run_lessons_schema(args: argparse.Namespace) -> int:
    sys.stdout.write(schema_text())
    return 0


def run_lessons_list(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from tutor.common.i18n import _
    from tutor.common.safe_text import one_line
    from tutor.course.catalog import load_catalog
    from tutor.ui.widgets.prose import Prose

    catalog = load_catalog(args.lessons)
    table = Table(title=_("Lessons"), show_lines=False)
    for column in (_("track"), _("id"), _("title"), _("questions")):
        table.add_column(column)
    for track in catalog.index.tracks:
        for item in catalog.track_lessons(track.id):
            # Text, not str: a title is untrusted, so no markup and no control characters
            # Prose: a Chinese title wraps between characters, not at its only space
            table.add_row(track.id, item.lesson.id, Prose(Text(one_line(item.lesson.title))), str(len(item.lesson.questions)))
    console = Console()
    console.print(table)
    problems = [p for b in catalog.broken for p in b.problems] + catalog.problems
    for problem in problems:
        Console(stderr=True).print(Text(_("problem") + " ", style="red") + Text(str(problem)), highlight=False)
    return 1 if problems else 0


def run_lessons_check(args: argparse.Namespace) -> int:
    """Plain lines on stdout, one per problem, so editors and CI can parse them."""
    from tutor.authoring.check import check_paths

    variants = max(0, min(args.variants, 50))
    hub = None
    if args.checkpoint and not args.static:
        from tutor.live.hub import hub_for_checkpoint
        from tutor.model.checkpoint import CheckpointError

        try:
            hub = hub_for_checkpoint(args.checkpoint)
        except (CheckpointError, OSError, ValueError) as error:
            print(one_line(_("tutor lessons check: --checkpoint {path}: {error}").format(
                path=args.checkpoint, error=translated(message_of(error)))), file=sys.stderr)
            return 1
    report = check_paths(args.paths, context_dirs=args.lessons, live=not args.static, variants=variants, hub=hub)
    for problem in report.problems:
        print(problem)
    for lesson_id, why in report.skipped:
        print(one_line(_("skipped {lesson}: {why}").format(lesson=lesson_id, why=translated(why))))
    for warning in report.warnings:
        # "warning" stays English, like the path:line:col: before it: editors and CI match it
        print(one_line(f"{warning.path}:{warning.line}:{warning.column}: warning: {warning.field or '(file)'}: "
                       f"{translated(warning.message)}"))
    print(check_summary(report, hub.label if hub is not None else None, args.static))
    return 0 if report.ok else 1


def check_summary(report, model_label: str | None, static: bool) -> str:
    """The closing lines of ``lessons check`` in the interface language (plural forms by count)."""
    from tutor.common.i18n import ngettext

    files, lessons = len(report.files), len(report.lessons)
    summary = _("{files}, {lessons}").format(
        files=ngettext("checked {count} file", "checked {count} files", files).format(count=files),
        lessons=ngettext("{count} lesson", "{count} lessons", lessons).format(count=lessons))
    if model_label is not None:
        summary += one_line(_(" on {label}").format(label=model_label))
    if report.skipped:
        summary += _(" ({count} skipped for model.requires)").format(count=len(report.skipped))
    if static:
        summary += _(" (static only: the live model was not run)")
    lines = []
    if report.translations:
        shown = {str(path) for path in report.translations}
        count, warned = len(report.translations), sum(warning.path in shown for warning in report.warnings)
        lines.append(_("{summary}: {result}").format(
            summary=ngettext("checked {count} translation", "checked {count} translations", count).format(count=count),
            result=ngettext("{count} warning", "{count} warnings", warned).format(count=warned)))
    translated = {str(path) for path in report.translations}
    lesson_warnings = sum(warning.path not in translated for warning in report.warnings)
    if lesson_warnings:
        summary += _(" ({warnings})").format(
            warnings=ngettext("{count} warning", "{count} warnings", lesson_warnings).format(count=lesson_warnings))
    count = len(report.problems)
    result = _("all valid") if report.ok else ngettext("{count} problem", "{count} problems", count).format(count=count)
    lines.append(_("{summary}: {result}").format(summary=summary, result=result))
    return "\n".join(lines)


def template_text(lesson_id: str, title: str, track: str, position: int, path: Path, tracks: list[str]) -> str:
    from importlib.resources import files

    source = files("tutor.authoring").joinpath("template.yaml").read_text(encoding="utf-8")
    title = " ".join(title.replace("\\", "/").replace('"', "'").split())[:300]
    return Template(source).substitute(id=lesson_id, title=title, track=track, position=position,
                                       filename=str(path), folder=str(path.parent), tracks=", ".join(tracks))


def run_lessons_new(args: argparse.Namespace) -> int:
    if args.overlay_language:
        from tutor.authoring.overlay_template import write_overlay_template

        return write_overlay_template(args)
    from tutor.course.catalog import load_catalog
    from tutor.course.schema import ID_PATTERN, SCHEMA_FILE_NAME

    def fail(message: str) -> int:
        print(one_line(_("tutor lessons new: {message}").format(message=message)), file=sys.stderr)
        return 1

    if not re.fullmatch(ID_PATTERN.strip("^$"), args.id):
        return fail(_("{id} is not a lesson id; use lower-case letters, digits, '.', '_' and '-' "
                      "(at most 64 characters, starting with a letter or digit)").format(id=repr(args.id)))
    catalog = load_catalog()
    tracks = [t.id for t in catalog.index.tracks]
    if args.track not in tracks:
        return fail(_("unknown track {track}; use one of: {tracks}").format(track=repr(args.track),
                                                                           tracks=", ".join(tracks)))
    if args.id in catalog.lessons:
        return fail(_("a built-in lesson already has the id {id}; choose another id").format(id=repr(args.id)))
    if not 0 <= args.position <= 10_000:
        return fail(_("--position must be between 0 and 10000"))
    path = args.dir / f"{args.id}.yaml"
    if path.exists() and not args.force:
        return fail(_("{path} already exists; choose another id or add --force to overwrite it").format(path=path))
    title = args.title or _("New lesson: {id}").format(id=args.id)
    try:
        args.dir.mkdir(parents=True, exist_ok=True)
        path.write_text(template_text(args.id, title, args.track, args.position, path, tracks), encoding="utf-8")
        (args.dir / SCHEMA_FILE_NAME).write_text(schema_text(), encoding="utf-8")
    except OSError as error:
        return fail(_("cannot write {path}: {error}").format(path=path, error=error.strerror or error))
    shown, folder = one_line(str(path)), one_line(str(args.dir))
    schema = one_line(str(args.dir / SCHEMA_FILE_NAME))
    print(_("wrote {path} and {schema} (for editors with the YAML language server)\n"
            "next: edit it (`tutor lessons docs` explains every field), then run\n"
            "  tutor lessons check {path}\n"
            "  tutor --lessons {folder}").format(path=shown, schema=schema, folder=folder))
    return 0


def run_lessons_concepts(args: argparse.Namespace) -> int:
    """The ids from lessons/index.yaml with what each means, grouped under their track (the id's
    prefix), so an author picks one instead of guessing 'la.attention-bias'.

    On a terminal a description wraps under itself, between Chinese characters too, so the ids
    stay a column to scan; into a pipe each concept is one line, for grep."""
    from tutor.common.i18n import current_language
    from tutor.common.safe_text import one_line
    from tutor.common.wide_wrap import hanging_lines
    from tutor.course.catalog import builtin_lessons_dir, load_index
    from tutor.course.overlay import translate_index

    index = translate_index(load_index(), builtin_lessons_dir(), current_language())   # tracks and concepts
    width = max(map(len, index.concepts), default=0)
    columns = shutil.get_terminal_size().columns if sys.stdout.isatty() else 0
    fold = columns if columns - (2 + width + 2) >= 20 else None   # too narrow: let the terminal wrap
    for track in index.tracks:
        ids = [concept for concept in index.concepts if concept.split(".", 1)[0] == track.id]
        if ids:
            print(f"{track.id}  {one_line(track.title)}")
            for concept in ids:
                print("\n".join(hanging_lines(f"  {concept:<{width}}  ", one_line(index.concepts[concept]), fold)))
    return 0


def run_lessons_probes(args: argparse.Namespace) -> int:
    from tutor.authoring.probe_listing import fit, listing, render, trained_sizes

    # on a terminal, lines break at its width (descriptions under their column); piped, each entry stays one line
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    print(fit(_("Names a lesson may use in probes:, probe:, show:, formula.bind and formula.reproduces,\n"
                "with a slice such as blocks.0.attn.pattern[0, 1, 2:4]. Blocks repeat for every layer:\n"
                "blocks.0 .. blocks.N-1. pos_embed exists unless model.positions is none.\n"
                "Symbols: B batch rows, L tokens per row, D model width, H heads, D_head = D/H,\n"
                "V vocabulary, T block size (the longest input); a number is a fixed size, and n~ a size\n"
                "that depends on the lesson's sizes in another way. Size names for formula.bind and\n"
                "symbolic shapes: B, L, D, H, D_head, d_k (= D_head), d_model (= D), V, N (layers), T.\n"), width))
    print(render(listing(run_experiments=args.experiments), width))
    if not args.experiments:
        print("\n" + fit(_("(run 'tutor lessons probes --experiments' to list every experiment's tensors)"), width))
    print("\n" + fit(trained_sizes(), width))
    return 0
