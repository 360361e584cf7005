"""``tutor lessons check``: find every mistake in a lesson file before a learner does.

Three layers, each pinned to ``path:line:col``: the loader (YAML and schema), the catalog
(tracks, prerequisites, cycles, duplicate ids) and this module (concept ids, the formula,
bindings); then :mod:`tutor.authoring.check_live` runs the lesson's model and answers every
question from it.  Checking a user folder loads the built-in lessons as context, so its
prerequisites may name them, but only the files asked about are reported.  No Textual here,
and torch loads only for the live layer.
"""
from __future__ import annotations

import errno
from dataclasses import dataclass, field
from pathlib import Path


from tutor.course.catalog import Catalog, add_lesson_file, builtin_lessons_dir, cross_file_problems, \
    lesson_files, load_index
from tutor.authoring.check_overlay import unknown_concept
from tutor.authoring.formula_width import formula_size_warnings
from tutor.common.i18n import M_, message_of
from tutor.authoring.pinned import Pinned, placeholder_at
from tutor.course.loader import Problem, column_in_value, read_yaml, value_node, without_unknown_fields
from tutor.course.schema import Lesson
from tutor.course.placeholders import has_placeholders, lesson_texts, syntax_errors, unfilled_texts
from tutor.grading.kinds import kind_of
from tutor.grading.probe_ref import ProbeRefError, parse_probe_ref

# the size names compute_live reports; a formula may bind a symbol to any of them
KNOWN_SIZES = ("B", "L", "D", "H", "D_head", "d_k", "d_model", "V", "N", "T")


@dataclass
class CheckReport:
    files: list[Path] = field(default_factory=list)
    lessons: list[str] = field(default_factory=list)     # ids of the lessons that loaded
    problems: list[Problem] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)   # (lesson id, why) for model.requires
    translations: list[Path] = field(default_factory=list)   # overlays checked (course/overlay.py)
    warnings: list[Problem] = field(default_factory=list)   # translations incomplete or stale: not failures

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        return "\n".join(str(p) for p in self.problems)


def lesson_targets(paths: list[Path]) -> tuple[list[Path], list[Problem]]:
    """Files to check: each PATH is a lesson file or a folder of them; none means the built-ins."""
    if not paths:
        return lesson_files(builtin_lessons_dir()), []
    files, problems = [], []
    for path in paths:
        loop = _link_loop(path)
        if loop:
            problems.append(Problem(str(path), 1, 1, "", loop))
        elif path.is_dir():
            found = lesson_files(path)
            looped = [f for f in found if _link_loop(f)]
            problems += [Problem(str(f), 1, 1, "", _link_loop(f)) for f in looped]
            files += [f for f in found if f not in looped]
            if not found:
                problems.append(Problem(str(path), 1, 1, "", M_("no lesson files (*.yaml) in this folder")))
        elif path.exists() or path.is_symlink():
            files.append(path)   # a FIFO or a device: the loader says it is not a regular file, without reading
        else:
            problems.append(Problem(str(path), 1, 1, "", M_("no such file or folder")))
    return list(dict.fromkeys(files)), problems


def _link_loop(path: Path) -> str | None:
    """Why ``path`` cannot be followed (a symbolic link that leads back to itself), or None.

    Found here so the problem names the path given: resolving it later raised from deep in the
    catalog, and the message blamed the built-in lessons/index.yaml:1:1.
    """
    try:
        path.resolve(strict=True)
    except (RuntimeError, OSError) as error:
        if isinstance(error, RuntimeError) or getattr(error, "errno", None) == errno.ELOOP:
            return M_("a symbolic link that leads back to itself (a loop); point it at a lesson file or folder")
    return None


def build_catalog(files: list[Path], context_dirs: list[Path] = ()) -> Catalog:
    """The checked files on top of the built-in lessons (and --lessons folders) as context."""
    checked = {f.resolve() for f in files}
    catalog = Catalog(index=load_index())
    # a file checked alone may name a sibling file's lesson as a prerequisite
    siblings = [f.parent for f in files if f.suffix == ".yaml"]
    for folder in dict.fromkeys([builtin_lessons_dir(), *context_dirs, *siblings]):
        if folder.is_dir():
            for path in lesson_files(folder):
                if not _link_loop(path) and path.resolve() not in checked:   # a looping context file is not ours
                    add_lesson_file(catalog, path, builtin=True)
    catalog.broken.clear()          # context files are not ours to report
    for path in files:
        add_lesson_file(catalog, path, builtin=False)
    catalog.problems = cross_file_problems(catalog)
    return catalog


def check_paths(paths: list[Path] = (), context_dirs: list[Path] = (), live: bool = True,
                variants: int = 3, hub=None) -> CheckReport:
    """Check files and folders (none: the built-in lessons); never raises for a bad lesson.

    ``hub`` holds the model trained-weights lessons run on (default: the shipped checkpoint); a
    lesson whose ``model.requires`` that model does not meet is skipped, with the reason.
    """
    from tutor.authoring.check_overlay import check_overlays, overlays_beside, split_targets

    paths, overlays = split_targets(list(paths))   # translations are checked after their lessons
    files, problems = lesson_targets(paths) if paths or not overlays else ([], [])
    report = CheckReport(files=files, problems=problems)
    try:
        catalog = build_catalog(files, list(context_dirs))
    except Exception as error:   # the built-in index itself is broken: say so, no traceback
        report.problems.append(Problem(str(builtin_lessons_dir() / "index.yaml"), 1, 1, "", str(error)))
        return report
    checked = {str(f) for f in files}
    earlier = None
    report.problems += [p for b in catalog.broken for p in b.problems]
    report.problems += [p for p in catalog.problems if p.path in checked]
    for path, lesson in _loaded(files, catalog):
        report.lessons.append(lesson.id)
        pinned = Pinned(path, read_yaml(path)[1])
        formula_ok = check_static(lesson, catalog, pinned)
        report.warnings += formula_size_warnings(lesson, pinned) if formula_ok else []
        if live:
            from tutor.authoring.check_live import check_live
            from tutor.live.hub import ModelHub

            hub = hub or ModelHub()
            if earlier is None:
                from tutor.authoring.course_repeats import EarlierLessons

                earlier = EarlierLessons(catalog, hub)
            unmet = _unmet(lesson, hub)
            if unmet:
                report.skipped.append((lesson.id, unmet))
                report.problems += pinned.problems
                continue
            try:
                check_live(lesson, hub, pinned, variants, formula_ok, earlier)
            except Exception as error:   # a bug of ours must not hide the other lessons' results
                pinned.add((), M_("the live check stopped: {error}", error=type(error).__name__ + ": " + str(error)))
        report.problems += pinned.problems
        report.warnings += pinned.warnings
    report.warnings.sort(key=lambda w: w.path)   # checked in roadmap order (see _loaded), listed by file
    overlays = list(dict.fromkeys(overlays + overlays_beside(files)))
    errors, translation_warnings = check_overlays(overlays, catalog)
    report.warnings += translation_warnings
    report.problems += errors
    report.translations = overlays
    # by file and line; "required field is missing" (always at 1:1) after the located problems
    report.problems.sort(key=lambda p: (p.path, p.message.startswith("required field"), p.line, p.column))
    return report


def _unmet(lesson: Lesson, hub) -> str | None:
    """Why the hub's model does not fit the lesson's model.requires (None: it fits, or no requirement)."""
    if lesson.model.weights != "trained" or lesson.model.requires is None:
        return None
    from tutor.live.requirements import facts_of, unmet_requirement

    try:
        return unmet_requirement(lesson.model, facts_of(hub.current()))
    except Exception:   # no checkpoint: check_live reports it on model.weights
        return None


def _loaded(files: list[Path], catalog: Catalog):
    """(path, lesson) for each checked file that validates, duplicate ids included, so a file
    refused for its id still has the rest of its mistakes found in the same run."""
    by_path = {item.path: item.lesson for item in catalog.lessons.values()}
    # roadmap order, so that each lesson's statements are kept when the lessons after it are checked
    # (tutor.authoring.course_repeats); files not in the catalog after, by name
    place = {item.path: n for n, item in enumerate(catalog.ordered())}
    for path in sorted(set(files), key=lambda p: (place.get(p, len(place)), str(p))):
        lesson = by_path.get(path)
        if lesson is None:
            lesson = lesson_without_unknown_fields(path)
            if lesson is None:
                continue       # its problems are already in the report
        yield path, lesson


def lesson_without_unknown_fields(path: Path) -> Lesson | None:
    """The lesson a file would be without its unknown fields (already reported), so the rest of
    its mistakes are found in the same run; None when it has other schema problems."""
    data, _root, problems = read_yaml(path)
    return None if problems else without_unknown_fields(Lesson, data)


def check_static(lesson: Lesson, catalog: Catalog, pinned: Pinned) -> bool:
    """Checks that need no model; returns whether the formula parsed."""
    known = list(catalog.index.concepts)
    for i, concept in enumerate(lesson.concepts):
        if concept not in known:
            pinned.add(("concepts", i), unknown_concept(concept, known))
    check_placeholder_syntax(lesson, pinned)
    check_question_texts(lesson, pinned)
    return check_formula_text(lesson, pinned)


def check_question_texts(lesson: Lesson, pinned: Pinned) -> None:
    """What each question's kind finds wrong in the question as written, with no model run
    (a choice whose text is how a learner picks another choice)."""
    for i, question in enumerate(lesson.questions):
        for problem in kind_of(question).check_text(question):
            report = pinned.warn if problem.warning else pinned.add
            report(("questions", i) + problem.field, problem.message)


def check_placeholder_syntax(lesson: Lesson, pinned: Pinned) -> None:
    """{{ placeholders }} that do not parse, and placeholders where the screen shows text as written."""
    for loc, text in lesson_texts(lesson):
        for error in syntax_errors(text):
            pinned.add(loc, message_of(error), placeholder_at(pinned, loc, error.start))
    for loc, text in unfilled_texts(lesson):
        if has_placeholders(text):
            what = M_("a choice") if "choices" in loc else M_("the title")
            pinned.add(loc, M_("{what} is shown as written, so a {{{{ placeholder }}}} is not filled there; "
                               "put the live number in the prompt, explanation or reveal", what=what))


def check_formula_text(lesson: Lesson, pinned: Pinned) -> bool:
    from tutor.live.formula_check import parse_spec
    from tutor.formulas.parse import FormulaError, formula_symbols
    from tutor.authoring.formula_provenance import redone_arithmetic, redone_in_questions

    spec = lesson.formula
    try:
        symbols = formula_symbols(parse_spec(spec))
    except FormulaError as error:
        node = value_node(pinned.root, ("formula", "expr"))
        at = column_in_value(node, error.column) if error.column else None
        near = M_(" (near {text!r})", text=spec.expr[max(0, error.column - 6):error.column + 5]) if error.column else ""
        pinned.add(("formula", "expr"), M_("formula does not parse: {error}{near}", error=error.message, near=near), at)
        return False
    for symbol, source in spec.bind.items():
        if symbol not in symbols:
            pinned.add(("formula", "bind", symbol), M_("{symbol!r} is not in the formula; remove it or use it", symbol=symbol))
        if isinstance(source, str) and source not in KNOWN_SIZES:
            try:
                parse_probe_ref(source)
            except ProbeRefError as error:
                pinned.add(("formula", "bind", symbol), M_("{error}; bind a probe slice, a size name ({sizes}) or a "
                                                           "number", error=message_of(error), sizes=", ".join(KNOWN_SIZES)))
    if spec.reproduces is not None:
        for symbol in sorted(symbols - set(spec.bind)):
            pinned.add(("formula", "bind") if spec.bind else ("formula", "reproduces"),
                       M_("symbol {symbol!r} has no value; add '{symbol}: <probe slice, size name or number>' "
                          "under formula.bind", symbol=symbol))
    for i, name in enumerate(spec.matrices):
        if name not in symbols:
            pinned.add(("formula", "matrices", i), M_("{name!r} is not in the formula; remove it", name=name))
    circular = redone_arithmetic(spec, KNOWN_SIZES)
    if circular:
        pinned.add(("formula", "reproduces"), circular)
    for i, message in redone_in_questions(lesson.questions, KNOWN_SIZES):
        pinned.add(("questions", i, "probe"), message)
    return True
