"""A lesson file is untrusted: loading, checking or showing one never runs code or exhausts the machine.

Each attack gets a clear, located error and leaves no trace; the canary files below would be
created by any payload that ran.
"""
import os
import time
from pathlib import Path

import pytest

from tutor.course.catalog import load_lesson
from tutor.authoring.check import check_paths
from tutor.course.loader import MAX_FILE_BYTES, LessonFileError, read_yaml
from tutor.cli.lessons import template_text


@pytest.fixture
def canary(tmp_path):
    path = tmp_path / "pwned"
    yield path
    assert not path.exists(), "a lesson file ran code"


def lesson_text(tmp_path: Path) -> str:
    return template_text("safe", "Safe", "pr", 1, tmp_path / "safe.yaml", ["pr"])


def refused(path: Path) -> str:
    with pytest.raises(LessonFileError) as error:
        load_lesson(path)
    return str(error.value)


@pytest.mark.parametrize("payload", [
    "!!python/object/apply:os.system ['touch {canary}']",
    "!!python/object/new:subprocess.Popen [['touch', '{canary}']]",
    "!!python/name:os.system",
    "!!python/module:os",
    "!custom 'x'",
    "!<tag:yaml.org,2002:python/object/apply:os.system> ['touch {canary}']",
])
def test_yaml_tags_that_build_objects_are_refused(tmp_path, canary, payload):
    path = tmp_path / "evil.yaml"
    path.write_text(f"format_version: 1\nid: {payload.format(canary=canary)}\n", encoding="utf-8")
    message = refused(path)
    assert f"{path}:2:5:" in message and "is not allowed; lessons are plain data" in message


def test_a_tag_on_a_mapping_is_refused(tmp_path, canary):
    path = tmp_path / "evil.yaml"
    path.write_text(f"!!python/object:os.system\nformat_version: 1\n", encoding="utf-8")
    assert "tag" in refused(path)


@pytest.mark.parametrize("expr,words", [
    ("__import__('os').system('touch {canary}')", "not allowed"),
    ("().__class__.__bases__[0].__subclasses__()", "column"),
    ("Q.__class__", "not allowed"),
    ("(lambda: __import__('os').system('touch {canary}'))()", "call at column 1 is not allowed"),
    ("eval('1')", "column"),
    ("open('{canary}', 'w')", "column"),
    ("[x for x in ().__class__.__mro__]", "column"),
    ("9**9**9**9", "column"),
])
def test_code_in_a_formula_is_refused_with_its_position(tmp_path, canary, expr, words):
    text = lesson_text(tmp_path).replace('"softmax(causal_mask(S))"',
                                         repr(expr.format(canary=canary)).replace("\\'", "''"))
    path = tmp_path / "safe.yaml"
    path.write_text(text, encoding="utf-8")
    report = check_paths([path])   # the full check, live model included
    fields = {p.field: p for p in report.problems}
    assert "formula.expr" in fields, report.text()
    assert "formula does not parse" in fields["formula.expr"].message
    assert words in fields["formula.expr"].message


def test_code_in_a_probe_reference_or_symbolic_answer_is_refused(tmp_path, canary):
    text = lesson_text(tmp_path).replace('probe: "blocks.0.attn.pattern"   #',
                                         f'probe: "__import__(\'os\').system(\'touch {canary}\')"   #')
    text = text.replace('answer: "(B, H, L, L)"', f'answer: "(__import__(\'os\'), B)"')
    path = tmp_path / "safe.yaml"
    path.write_text(text, encoding="utf-8")
    assert "is not a probe name" in refused(path)


def test_the_billion_laughs_is_refused_before_it_grows(tmp_path):
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [{','.join(['*a' + str(i - 1)] * 9)}]" for i in range(1, 10)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    started = time.perf_counter()
    message = refused(path)
    assert time.perf_counter() - started < 1
    assert f"{path}:1:5:" in message and "anchors and aliases" in message


def test_a_huge_file_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "huge.yaml"
    with open(path, "wb") as handle:
        handle.truncate(4 * 1024**3)   # a sparse 4 GiB file: reading it would exhaust memory
    started = time.perf_counter()
    assert f"larger than {MAX_FILE_BYTES} bytes" in refused(path)
    assert time.perf_counter() - started < 1


def test_a_long_file_just_over_the_limit_is_refused(tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text("# " + "x" * MAX_FILE_BYTES + "\n", encoding="utf-8")
    assert "limit" in refused(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_or_device_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    assert "not a regular file" in refused(fifo)
    assert "not a regular file" in str(read_yaml("/dev/zero")[2][0])


@pytest.mark.parametrize("text", ["a: " + "[" * 5000 + "]" * 5000, "a:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 60))
                                  + " " * 60 + "x: 1\n", "a: " + "{b: " * 3000 + "1" + "}" * 3000])
def test_deep_nesting_is_refused(tmp_path, text):
    path = tmp_path / "deep.yaml"
    path.write_text(text, encoding="utf-8")
    assert "nesting" in refused(path)


def test_too_many_values_are_refused(tmp_path):
    path = tmp_path / "wide.yaml"
    path.write_text("a: [" + ", ".join(["1"] * 30_000) + "]\n", encoding="utf-8")
    assert "more than" in refused(path)


def test_non_utf8_bytes_are_reported_with_their_line(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("format_version: 1\ntitle: caf\u00e9\n".encode("latin-1"))
    message = refused(path)
    assert f"{path}:2:1:" in message and "not UTF-8" in message


@pytest.mark.parametrize("value,words", [("1" * 5000, "cannot read this value"),
                                         ("2001-13-45", "cannot read this value")])
def test_values_python_cannot_convert_are_located(tmp_path, value, words):
    path = tmp_path / "value.yaml"
    path.write_text(f"format_version: 1\ntitle: {value}\n", encoding="utf-8")
    message = refused(path)
    assert f"{path}:2:8:" in message and words in message


def test_a_second_document_is_refused(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text("format_version: 1\n---\nformat_version: 1\n", encoding="utf-8")
    assert "one YAML document" in refused(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_link_switched_to_a_fifo_after_any_check_by_name_does_not_block(tmp_path, monkeypatch):
    """The loader checked the path by name (os.stat), then opened it: a symlink switched from a lesson
    to a FIFO between the two hung ``lessons check`` forever (2026-12-reliability.md row 42).  Here
    every check by name switches the link right after it; the file read must be the file checked."""
    import threading

    from tutor.course import loader

    lesson, fifo, link = tmp_path / "real.yaml", tmp_path / "pipe", tmp_path / "lesson.yaml"
    lesson.write_text("id: x\n", encoding="utf-8")
    os.mkfifo(fifo)
    link.symlink_to(lesson)

    def switching(check):
        def checked(path, *args, **kwargs):
            found = check(path, *args, **kwargs)
            if str(path) == str(link):
                link.unlink()
                link.symlink_to(fifo)
            return found
        return checked

    for name in ("stat", "lstat"):
        monkeypatch.setattr(loader.os, name, switching(getattr(os, name)))
    monkeypatch.setattr(loader.os.path, "exists", switching(os.path.exists))
    results = []
    reader = threading.Thread(target=lambda: results.append(read_yaml(link)), daemon=True)
    reader.start()
    reader.join(30)   # a deadline for a hang, not a speed check
    if reader.is_alive():   # let the blocked open finish, so the thread ends
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a lesson blocked on a FIFO it had not checked")
    data, _root, problems = results[0]
    assert data == {"id": "x"} or "not a regular file" in str(problems[0])
