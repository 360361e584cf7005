"""Import files go through the shared safe reader (tutor.common.safe_files.read_json_file), whose
depth bound does not lean on the interpreter's recursion limit.

Before, the import check parsed with its own ``json.loads`` and caught RecursionError: with the
recursion limit raised (as a library in the same process may raise it), ``[`` nested 200,000
deep ran the C parser off its stack and the process died with SIGSEGV.
"""
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tutor.common.safe_files import UnsafeFileError, json_depth_over, read_json_file
from tutor.progress.import_check import MAX_IMPORT_BYTES
from tutor.progress.io import export_json, import_json
from tutor.progress.store import ProgressError, ProgressStore

ROOT = Path(__file__).resolve().parents[1]
GOOD = {"timestamp": "2024-05-01T12:00:00+00:00", "lesson_id": "la-shapes", "question_id": "q1",
        "answer": "(2, 3)", "correct": True, "hints_used": 0, "variant": None}


def export_file(path: Path, **changes) -> Path:
    path.write_text(json.dumps({"format": "tutor-progress", "version": 1, "last_position": None,
                                "answers": [{**GOOD, **changes}]}), encoding="utf-8")
    return path


@pytest.mark.parametrize("what", ["import", "settings"])
def test_deep_nesting_is_refused_whatever_the_recursion_limit(tmp_path, what):
    deep = tmp_path / "deep.json"
    levels = 200_000 if what == "import" else 32_000   # a settings file may have 64 KB
    deep.write_bytes(b"[" * levels + b"]" * levels)
    home = tmp_path / "home"
    home.mkdir()
    if what == "import":
        call = (f"from tutor.progress.io import import_json\nfrom tutor.progress.store import ProgressStore\n"
                f"with ProgressStore({str(home)!r}) as store:\n"
                f"    try:\n        import_json(store, {str(deep)!r})\n"
                f"    except Exception as error:\n        print(type(error).__name__, error)\n")
    else:
        (home / "settings.json").write_bytes(deep.read_bytes())
        call = (f"from tutor.common.settings import load_settings, settings_notice\n"
                f"print(load_settings({str(home)!r}), settings_notice({str(home)!r}))\n")
    code = f"import sys\nsys.setrecursionlimit(10**6)\n{call}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, f"died with {out.returncode}: {out.stderr[-500:]}"   # -11 (SIGSEGV) before
    assert "more than 32 levels" in out.stdout


def test_a_bracket_typed_in_an_answer_is_text_not_depth(tmp_path):
    path = export_file(tmp_path / "brackets.json", answer='[' * 40 + '\\"{' * 40)
    with ProgressStore(tmp_path / "home") as store:
        assert import_json(store, path).answers == 1


def test_depth_counts_what_the_parser_would_go_down():
    assert not json_depth_over(json.dumps({"a": [1, {"b": "[[[[[[[["}]}).encode(), 3)
    assert json_depth_over(b"[[[[1]]]]", 3) and not json_depth_over(b"[[[1]]]", 3)
    assert json_depth_over(json.dumps([{'x"[[': [[3]]}]).encode(), 3)      # an escaped quote ends no string
    assert not json_depth_over(json.dumps(["\\", {"a\\": '\\"[['}]).encode(), 2)
    assert json_depth_over(b"[}" * 3 + b"[[[[", 3)                         # unmatched: every opener counts


def test_a_fifo_a_huge_file_and_a_deep_file_are_refused_by_import_cleanly(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as handle:
        handle.truncate(MAX_IMPORT_BYTES + 1)   # sparse: no disk used
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 33 + "]" * 33, encoding="utf-8")   # well-formed, one level past the bound
    with ProgressStore(tmp_path / "home") as store:
        errors = {}

        def attempt(name, path):
            try:
                import_json(store, path)
            except ProgressError as error:
                errors[name] = str(error)
        worker = threading.Thread(target=attempt, args=("fifo", fifo), daemon=True)
        worker.start()
        worker.join(timeout=60)   # only bounds a regression
        assert not worker.is_alive(), "import blocked on a FIFO"
        attempt("huge", huge)
        attempt("deep", deep)
        assert store.answer_count() == 0
    assert "FIFO" in errors["fifo"]
    assert "more than the 67,108,864" in errors["huge"]
    assert "more than 32 levels" in errors["deep"]


def test_the_app_own_export_still_reads(tmp_path):
    with ProgressStore(tmp_path / "home") as store:
        import_json(store, export_file(tmp_path / "one.json"))
        export_json(store, tmp_path / "out.json")
    assert read_json_file(tmp_path / "out.json", MAX_IMPORT_BYTES)["format"] == "tutor-progress"
    with pytest.raises(UnsafeFileError, match="more than 2 levels"):
        read_json_file(tmp_path / "out.json", MAX_IMPORT_BYTES, max_depth=2)
