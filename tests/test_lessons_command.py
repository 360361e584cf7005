"""`tutor lessons new | check | probes` as an author runs them, and docs/lessons.md kept in step."""
import re
from pathlib import Path

import pytest
import yaml

from tutor.cli.main import main

DOCS = Path(__file__).resolve().parents[1] / "docs" / "lessons.md"


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out + err


def test_new_then_check_then_refuse_to_overwrite(tmp_path, capsys):
    code, out = run(capsys, "lessons", "new", "my-first", "--dir", str(tmp_path / "mine"), "--track", "la",
                    "--title", 'Attention "weights"')
    path = tmp_path / "mine" / "my-first.yaml"
    assert code == 0 and f"wrote {path}" in out
    text = path.read_text(encoding="utf-8")
    assert "track: la" in text and "title: \"Attention 'weights'\"" in text and text.count("\n#") > 10

    code, out = run(capsys, "lessons", "check", str(path))
    assert (code, out.strip()) == (0, "checked 1 file, 1 lesson: all valid")

    code, out = run(capsys, "lessons", "new", "my-first", "--dir", str(tmp_path / "mine"))
    assert code == 1 and "already exists" in out


@pytest.mark.parametrize("argv,words", [
    (["Bad_Id"], "is not a lesson id"),
    (["ok", "--track", "zz"], "unknown track 'zz'"),
    (["la-scaled-scores"], "a built-in lesson already has the id"),
])
def test_new_refuses_bad_input(tmp_path, capsys, argv, words):
    code, out = run(capsys, "lessons", "new", *argv, "--dir", str(tmp_path))
    assert code == 1 and words in out and not list(tmp_path.iterdir())


def test_check_a_broken_folder_lists_every_problem_and_exits_1(tmp_path, capsys):
    (tmp_path / "a.yaml").write_text("format_version: 1\nid: a\ntitel: x\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_bytes(b"format_version: 1\nid: \xff\n")
    code, out = run(capsys, "lessons", "check", "--static", str(tmp_path))
    assert code == 1
    assert f"{tmp_path / 'a.yaml'}:3:1: titel: unknown field; did you mean 'title'?" in out
    assert f"{tmp_path / 'b.yaml'}:2:1: (file): byte 22 is not UTF-8" in out
    assert out.splitlines()[-1] == "checked 2 files, 0 lessons (static only: the live model was not run): 10 problems"
    assert out.splitlines()[0].endswith("titel: unknown field; did you mean 'title'?")   # missing fields after
    assert "Traceback" not in out


def test_check_with_no_path_checks_the_built_in_lessons(capsys):
    code, out = run(capsys, "lessons", "check", "--static")
    assert code == 0, out
    assert re.search(r"checked (\d+) files, \1 lessons \(static only[^)]*\)( \(\d+ warnings?\))?: all valid", out), out


def test_check_a_missing_path(tmp_path, capsys):
    code, out = run(capsys, "lessons", "check", str(tmp_path / "nope.yaml"))
    assert code == 1 and "no such file or folder" in out


@pytest.fixture(scope="module")
def probes_output():
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["lessons", "probes"]) == 0
    return buffer.getvalue()


def test_probes_lists_names_with_symbolic_shapes(probes_output):
    assert re.search(r"blocks\.0\.attn\.pattern\s+\(B, H, L, L\)", probes_output)
    assert re.search(r"params\.blocks\.0\.mlp\.W_in\s+\(D, 4D\)", probes_output)
    assert re.search(r"logits\s+\(B, L, V\)", probes_output)
    assert "shuffle" in probes_output


def test_the_docs_name_every_probe_parameter_and_experiment(probes_output):
    """docs/lessons.md must not drift from the code: every name `tutor lessons probes` prints."""
    docs = DOCS.read_text(encoding="utf-8")
    names = re.findall(r"^  ([a-z_][\w.]*)\s", probes_output, flags=re.MULTILINE)
    assert len(names) > 40
    missing = [name for name in names if name not in docs]
    assert not missing, f"docs/lessons.md does not mention: {missing}"


def _doc_examples() -> list[tuple[str, str]]:
    docs = DOCS.read_text(encoding="utf-8")
    return re.findall(r"<!-- example: ([\w-]+) -->\n```yaml\n(.*?)```", docs, flags=re.DOTALL)


def test_docs_show_an_example_of_every_question_kind():
    kinds = set()
    for name, block in _doc_examples():
        data = yaml.safe_load(block)
        items = data if isinstance(data, list) else data.get("questions", [])
        kinds |= {item.get("kind") for item in items if isinstance(item, dict)}
    from tutor.grading.kinds import KINDS
    assert set(KINDS) <= kinds, f"docs/lessons.md has no example of {sorted(set(KINDS) - kinds)}"


def test_every_docs_example_passes_the_check(tmp_path):
    """Full lessons are checked as they are; question snippets inside the complete example."""
    from tutor.authoring.check import check_paths

    examples = dict(_doc_examples())
    full = examples.pop("lesson")
    paths = [tmp_path / "lesson.yaml"]
    paths[0].write_text(full, encoding="utf-8")
    for name, block in examples.items():
        data = yaml.safe_load(full)
        data["id"] = f"doc-{name}"
        data["questions"] = yaml.safe_load(block)
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
        paths.append(path)
    report = check_paths(paths)
    assert report.ok, report.text()
    assert len(report.lessons) == len(paths)


def test_lessons_docs_prints_the_shipped_guide(capsys):
    assert main(["lessons", "docs"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Writing lessons") and "kind: shape" in out


def test_lessons_docs_path_names_a_readable_file(capsys):
    from pathlib import Path

    assert main(["lessons", "docs", "--path"]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert path.name == "lessons.md" and path.read_text(encoding="utf-8").startswith("# Writing lessons")


def test_a_closed_pipe_ends_a_printing_command_quietly():
    """`tutor lessons probes | head -1`: before, a BrokenPipeError traceback."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    command = f"{sys.executable} -m tutor lessons probes | head -1"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, env=env,
                          cwd=root, timeout=300)
    assert done.stdout.startswith("Names a lesson may use")
    assert done.stderr == "" and done.returncode in (0, 141)


def test_lessons_concepts_lists_every_concept_id_under_its_track(capsys):
    from tutor.cli.main import main
    from tutor.course.catalog import load_index

    assert main(["lessons", "concepts"]) == 0
    out = capsys.readouterr().out
    index = load_index()
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert listed == [c for track in index.tracks for c in index.concepts if c.split(".", 1)[0] == track.id]
    assert set(listed) == set(index.concepts) and "la.scaled-scores" in listed
