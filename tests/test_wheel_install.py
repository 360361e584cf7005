"""The install docs/class.md gives a teacher works as written: a wheel built from the source with
``pip wheel``, installed in a fresh virtual environment, runs ``tutor`` with its lessons, model,
catalogs and docs (``pip install "transformer-tutor[jupyter]"`` failed: the package is on no index).

The fresh environment reaches this one's dependencies (torch, Textual...) through a .pth file, so
nothing is downloaded; this environment's own tutor (an editable install) is not on that path."""
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# what setuptools builds from; tests/, .git and the environments stay out of the copy
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "tutor", "model", "lessons", "docs")
INSTALLED = {"model": "tutor/model", "lessons": "tutor/lessons", "docs": "tutor/docs"}

pytestmark = pytest.mark.slow


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    assert result.returncode == 0, f"{command}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """``pip wheel --no-deps --no-build-isolation . -w dist`` (docs/class.md), from a copy of the source."""
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, source / name)
    dist = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", ".",
         "-w", str(dist)], cwd=source)
    [built] = dist.glob("transformer_tutor-*.whl")
    return built


def tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", *SOURCES[3:]], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("needs the git checkout to list the tracked files")
    return listed.stdout.split()


def test_the_wheel_carries_every_file_of_the_package_lessons_model_catalogs_and_docs(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = []
    for path in tracked_files():
        top, _, rest = path.partition("/")
        wanted.append(f"{INSTALLED[top]}/{rest}" if top in INSTALLED else path)
    assert [path for path in wanted if path not in names] == []
    assert any(name.endswith(".pt") for name in names) and any(name.endswith("tutor.mo") for name in names)


def test_the_wheel_installed_in_a_fresh_environment_lists_the_lessons_in_both_languages(wheel, tmp_path):
    environment = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(environment)])
    python = environment / "bin" / "python"
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
    ours = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    (site / "_tutor_test_dependencies.pth").write_text("".join(f"{path}\n" for path in ours))
    run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)])
    outside = tmp_path / "elsewhere"   # not the checkout: nothing may come from the source tree
    outside.mkdir()
    env = {**os.environ, "TUTOR_HOME": str(tmp_path / "home"), "COLUMNS": "120", "PYTHONPATH": ""}
    tutor = str(environment / "bin" / "tutor")
    where = run([str(python), "-c", "import tutor, tutor.model; print(tutor.__file__)"], cwd=outside, env=env)
    assert Path(where.stdout.strip()).is_relative_to(environment)
    english = run([tutor, "lessons", "list"], cwd=outside, env=env).stdout
    lesson_ids = [path.stem for path in (ROOT / "lessons").glob("*.yaml") if path.stem != "index"]   # index: the tracks
    assert lesson_ids and all(lesson_id in english for lesson_id in lesson_ids)
    chinese = run([tutor, "--lang", "zh", "lessons", "list"], cwd=outside, env=env).stdout
    assert "课" in chinese and lesson_ids[0] in chinese
    assert "question" in run([tutor, "lessons", "docs"], cwd=outside, env=env).stdout
