"""Loading lesson files as untrusted input, with every problem pinned to file:line:col.

The YAML is read in three passes over plain data: the event stream (to refuse aliases and
deep nesting before anything is built), the node tree (for line numbers and duplicate
keys), and ``yaml.safe_load`` (which never builds Python objects).  Validation errors from
pydantic are mapped back to the node tree so an author sees where to look.
"""
from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import yaml
from pydantic import BaseModel, ValidationError

from tutor.common.i18n import M_, translated
from tutor.common.pydantic_words import rule_of
from tutor.common.safe_files import open_nonblocking, os_reason
from tutor.common.safe_text import neutralise
from tutor.course.text_safety import reader_error_problem, scalar_nodes, unsafe_text_in
from tutor.course.yaml_words import yaml_problem

# libyaml's loaders are ~20x faster; the pure-Python ones behave the same where it is missing
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_FILE_BYTES = 200_000
MAX_DEPTH = 20
MAX_NODES = 20_000
# Explicit tags that only restate a plain type; anything else (python/object, !custom) is refused
# before a constructor ever sees it, so the message names the tag instead of a constructor error.
SAFE_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "seq", "map")}


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    column: int
    field: str
    message: str

    def __str__(self) -> str:
        # neutralised: paths, field names and messages may echo a hostile file's characters;
        # the message in the interface language, the path:line:col: field: before it as it is (tools read it)
        return neutralise(f"{self.path}:{self.line}:{self.column}: {self.field or '(file)'}: {translated(self.message)}")


class LessonFileError(Exception):
    """Raised with every problem found in one file."""

    def __init__(self, problems: list[Problem]):
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


def _mark_of(node_or_event) -> tuple[int, int]:
    mark = node_or_event.start_mark
    return mark.line + 1, mark.column + 1


def _screen_events(text: str, path: str) -> list[Problem]:
    """Refuse anchors/aliases (alias bombs), tags, and deep or huge documents before building."""
    depth = nodes = documents = 0
    for event in yaml.parse(text, Loader=SafeLoader):
        line, col = _mark_of(event)
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            return [Problem(path, line, col, "", M_("YAML anchors and aliases (& and *) are not allowed in lessons; write the value out"))]
        tag = getattr(event, "tag", None)
        if tag and tag not in SAFE_TAGS:
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            return [Problem(path, line, col, "", M_("YAML tag {tag} is not allowed; lessons are plain data "
                                                    "(remove the tag, and quote the value if it should be text)", tag=shown))]
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                return [Problem(path, line, col, "", M_("a lesson file holds one YAML document; remove the extra '---'"))]
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                return [Problem(path, line, col, "", M_("nesting deeper than {depth} levels is not allowed", depth=MAX_DEPTH))]
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        nodes += 1
        if nodes > MAX_NODES:
            return [Problem(path, line, col, "", M_("more than {count} YAML values; a lesson is far smaller", count=MAX_NODES))]
    return []


def _duplicate_keys(node: yaml.Node, path: str, trail: str = "") -> Iterable[Problem]:
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key, value in node.value:
            name = str(key.value)
            line, col = _mark_of(key)
            if name in seen:
                yield Problem(path, line, col, f"{trail}{name}", M_("duplicate key (first at line {line}); keep one", line=seen[name]))
            seen[name] = line
            yield from _duplicate_keys(value, path, f"{trail}{name}.")
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from _duplicate_keys(item, path, f"{trail}{i}.")


def _node_at(root: yaml.Node | None, loc: tuple) -> tuple[yaml.Node | None, bool]:
    """Walk a pydantic error location through the node tree; (node, whether loc[-1] is a key)."""
    node, is_key, _ = _walk(root, loc)
    return node, is_key


def _walk(root: yaml.Node | None, loc: tuple) -> tuple[yaml.Node | None, bool, list]:
    """(node, whether it is the key of loc[-1], loc without the parts that are not in the file).

    pydantic puts union members in the location ('shape' for a question's kind, 'constrained-str'
    for a text-or-list field); they do not move in the tree and mean nothing to an author.
    """
    node, kept = root, []
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(node, yaml.MappingNode):
            match = next(((k, v) for k, v in node.value if str(k.value) == str(part)), None)
            if match is None:
                if last:
                    return node, False, kept
                continue
            kept.append(part)
            if last:
                return match[0], True, kept
            node = match[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            kept.append(part)
            node = node.value[part]
    return node, False, kept


def _did_you_mean(name: str, model: type[BaseModel] | None) -> str:
    if model is None:
        return ""
    close = difflib.get_close_matches(name, list(model.model_fields), n=1)
    return M_("; did you mean {name!r}?", name=close[0]) if close else M_("; allowed: {names}", names=", ".join(model.model_fields))


def _literal_message(item: dict) -> str:
    """A value outside a fixed list ('reduce: summ'): the closest allowed value when one is close,
    the list otherwise, rather than pydantic's sixteen-way 'Input should be ...'."""
    import re

    allowed = re.findall(r"'([^']*)'", str(item.get("ctx", {}).get("expected", "")))
    given = str(item.get("input"))
    close = difflib.get_close_matches(given, allowed, n=1, cutoff=0.6)
    if close:
        return M_("unknown value {value!r}; did you mean {close!r}?", value=given, close=close[0])
    return M_("unknown value {value!r}; allowed: {names}", value=given, names=", ".join(allowed)) if allowed else item["msg"]


def _model_for(schema: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The pydantic model that owns the last part of ``loc`` (to suggest field names)."""
    from tutor.course.schema import QUESTION_KINDS as kinds, FormulaSpec, ModelSetup, Track
    if len(loc) == 1:
        return schema
    if loc[0] == "formula":
        return FormulaSpec
    if loc[0] == "model":
        return ModelSetup
    if loc[0] == "tracks":
        return Track
    if loc[0] == "questions" and len(loc) >= 3:
        return kinds.get(str(loc[2]))
    return None


def _kind_names() -> list[str]:
    from tutor.course.schema import QUESTION_KINDS
    return list(QUESTION_KINDS)


def _validation_problems(error: ValidationError, root, path: str, schema) -> list[Problem]:
    problems, seen = [], set()
    for item in error.errors():
        loc = tuple(item["loc"])
        node, _, kept = _walk(root, loc)
        line, col = _mark_of(node) if node is not None else (1, 1)
        if item["type"] == "missing" and loc:
            kept = kept + [loc[-1]]
        field = ".".join(str(p) for p in kept)
        if (field, line, col) in seen:
            continue   # the other members of a union say the same thing less helpfully
        seen.add((field, line, col))
        message = rule_of(item)   # a validator's own Message, or pydantic's words, to translate later
        if item["type"] == "extra_forbidden":
            message = M_("unknown field{hint}", hint=_did_you_mean(str(loc[-1]), _model_for(schema, loc)))
        elif item["type"] == "missing":
            message = M_("required field is missing; add '{name}:'", name=loc[-1])
        elif item["type"] == "union_tag_invalid":
            message = M_("kind must be one of: {kinds}", kinds=", ".join(_kind_names()))
        elif item["type"] == "union_tag_not_found":
            *rest, last = _kind_names()
            message = M_("each question needs a kind: {kinds} or {last}", kinds=", ".join(rest), last=last)
        elif item["type"] == "literal_error" and loc == ("format_version",):
            message = M_("this tutor reads format_version: 1; convert the file or update the tutor")
        elif item["type"] == "literal_error":
            message = _literal_message(item)
        elif item["type"] == "string_type" and isinstance(item.get("input"), (int, float, bool)):
            message = M_("{message}; put the value in quotes, e.g. \"1234\"", message=message)
        problems.append(Problem(path, line, col, field, message))
    # a missing field is often the typo reported beside it ("titel"): the located problems first
    return sorted(problems, key=lambda p: (p.message.startswith("required field is missing"), p.line, p.column))


def _read_bounded(path: Path) -> bytes:
    """At most MAX_FILE_BYTES + 1 bytes, and only from a regular file.

    A lesson path may be a FIFO, a device such as /dev/zero, or a huge file.  It is opened once,
    without blocking (safe_files.open_nonblocking), and what was opened is checked (fstat): a
    check by name before the open could meet another file than the open (a symlink switched to
    a FIFO between the two hung ``lessons check``).  Symbolic links are followed: a teacher may
    link lessons into a folder, and the check is of the file reached.  Never more than the limit
    is read, so nothing fills memory.
    """
    fd = open_nonblocking(path)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(0, "not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            return b" " * (MAX_FILE_BYTES + 1)   # the caller reports the size; nothing is read
        chunks, total = [], 0
        while total <= MAX_FILE_BYTES:   # a file growing since fstat is still read only to the limit
            chunk = os.read(fd, MAX_FILE_BYTES + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_yaml(source: Path | str, text: str | bytes | None = None) -> tuple[Any, yaml.Node | None, list[Problem]]:
    """Read one YAML file safely; returns (data, node tree, problems)."""
    path = str(source)
    try:
        raw = _read_bounded(Path(source)) if text is None else text
    except OSError as error:
        return None, None, [Problem(path, 1, 1, "", M_("cannot read the file: {error}", error=os_reason(error)))]
    if isinstance(raw, bytes):
        if len(raw) > MAX_FILE_BYTES:
            return None, None, [Problem(path, 1, 1, "", M_("file is larger than {limit} bytes, the limit for a "
                                                             "lesson; split it into several lessons", limit=MAX_FILE_BYTES))]
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            line = raw[: error.start].count(b"\n") + 1
            return None, None, [Problem(path, line, 1, "", M_("byte {offset} is not UTF-8; save the file as UTF-8", offset=error.start))]
    if len(raw) > MAX_FILE_BYTES:
        return None, None, [Problem(path, 1, 1, "", M_("file is too long; lessons are limited to {limit} characters", limit=MAX_FILE_BYTES))]
    try:
        problems = _screen_events(raw, path)
        if problems:
            return None, None, problems
        loader = SafeLoader(raw)
        try:
            root = loader.get_single_node()
        finally:
            loader.dispose()
        data = _construct(root, path)
        if isinstance(data, Problem):
            return None, root, [data]
        problems = list(_duplicate_keys(root, path)) if root is not None else []
        problems += [Problem(path, *found) for found in unsafe_text_in(root)]
    except yaml.reader.ReaderError as error:   # a raw control character: say where it is
        return None, None, [Problem(path, *reader_error_problem(raw, error))]
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        reason = yaml_problem(getattr(error, "problem", None) or str(error))
        return None, None, [Problem(path, line, col, "", M_("YAML syntax: {reason}", reason=reason))]
    except RecursionError:
        return None, None, [Problem(path, 1, 1, "", M_("the YAML is nested too deeply"))]
    return data, root, problems


def _construct(root: yaml.Node | None, path: str):
    """Plain data from the node tree, or a Problem at the value PyYAML cannot convert.

    PyYAML's safe constructors raise ValueError for some plain scalars (a date such as
    2001-13-45, an integer of more than 4300 digits); find the value and say where it is.
    """
    if root is None:
        return None
    try:
        return yaml.constructor.SafeConstructor().construct_document(root)
    except (ValueError, TypeError, OverflowError) as error:
        reason = str(error)
    for node, _field in scalar_nodes(root, ""):
        try:
            yaml.constructor.SafeConstructor().construct_object(node)
        except (ValueError, TypeError, OverflowError) as error:
            line, col = _mark_of(node)
            return Problem(path, line, col, "", M_("cannot read this value ({error}); put it in quotes if it is text", error=error))
    return Problem(path, 1, 1, "", M_("cannot read the file: {error}", error=reason))


def validate(schema: type[BaseModel], data: Any, root, path: str):
    """Validate parsed data against a schema; (model or None, problems)."""
    if not isinstance(data, dict):
        return None, [Problem(path, 1, 1, "", M_("the file must be a YAML mapping of fields, not {type}", type=type(data).__name__))]
    try:
        return schema.model_validate(data), []
    except ValidationError as error:
        return None, _validation_problems(error, root, path, schema)


def read_model_file(schema: type[BaseModel], source: Path | str, text: str | bytes | None = None):
    """(model or None, the YAML tree, problems): one read and parse serves both the schema and
    the checks that pin their messages to positions in the file."""
    data, root, problems = read_yaml(source, text)
    if problems:
        return None, root, problems
    model, problems = validate(schema, data, root, str(source))
    return (None if problems else model), root, problems


def load_model_file(schema: type[BaseModel], source: Path | str, text: str | bytes | None = None):
    """Read and validate one file; returns the model or raises LessonFileError."""
    model, _root, problems = read_model_file(schema, source, text)
    if model is None:
        raise LessonFileError(problems)
    return model


def without_unknown_fields(schema: type[BaseModel], data: Any):
    """The file's model with its unknown fields left out, or None when something else is wrong too.

    An unknown field is reported by itself; dropping it lets the checker still run every later
    check (concepts, placeholders, probes, answers, leaks) on the rest of the file, so one typo
    does not hide the file's other mistakes until it is fixed.
    """
    import copy

    if not isinstance(data, dict):
        return None
    try:
        return schema.model_validate(data)
    except ValidationError as error:
        errors = error.errors()
    if any(item["type"] != "extra_forbidden" for item in errors):
        return None
    data = copy.deepcopy(data)
    for item in errors:
        _drop(data, tuple(item["loc"]))
    try:
        return schema.model_validate(data)
    except ValidationError:
        return None


def _drop(data: Any, loc: tuple) -> None:
    """Delete the key at a pydantic location, skipping the parts that are union members."""
    node = data
    for part in loc[:-1]:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
    if isinstance(node, dict):
        node.pop(loc[-1], None)


def locate(root: yaml.Node | None, loc: tuple) -> tuple[int, int]:
    """Line and column of a field given as a location tuple (for checks after validation)."""
    node, _ = _node_at(root, loc)
    return _mark_of(node) if node is not None else (1, 1)


def value_node(root: yaml.Node | None, loc: tuple) -> yaml.Node | None:
    """The value node (not the key) at ``loc``, or None when the file does not spell it out."""
    node = root
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if str(k.value) == str(part)), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
        else:
            return None
    return node


def column_in_value(node: yaml.Node | None, offset: int) -> tuple[int, int] | None:
    """File line and column of character ``offset`` (1-based) inside a one-line scalar.

    Lets an error inside a formula point at the character, not just the field; block and
    multi-line scalars fall back to the field's own position.
    """
    if not isinstance(node, yaml.ScalarNode) or node.start_mark.line != node.end_mark.line:
        return None
    quote = 1 if node.style in ("'", '"') else 0
    return node.start_mark.line + 1, node.start_mark.column + quote + offset
