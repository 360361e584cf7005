"""`tutor lessons check` on a symbolic link that loops names that path, not the built-in index."""
from pathlib import Path

from tutor.authoring.check import check_paths
from tutor.cli.lessons import template_text

LOOP = "a symbolic link that leads back to itself"


def test_a_looping_folder_link_is_blamed_by_its_own_name(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    report = check_paths([tmp_path / "a"], live=False)
    assert [(p.path, p.line, p.column) for p in report.problems] == [(str(tmp_path / "a"), 1, 1)]
    assert LOOP in report.problems[0].message
    assert "index.yaml" not in str(report.problems[0])


def test_a_looping_file_in_a_folder_is_blamed_and_the_others_checked(tmp_path):
    good = tmp_path / "mine.yaml"
    good.write_text(template_text("mine", "Mine", "pr", 5, Path("mine.yaml"), ["pr"]), encoding="utf-8")
    (tmp_path / "loop.yaml").symlink_to(tmp_path / "loop.yaml")
    report = check_paths([tmp_path], live=False)
    assert [p.path for p in report.problems] == [str(tmp_path / "loop.yaml")]
    assert LOOP in report.problems[0].message and report.lessons == ["mine"]
    alone = check_paths([good], live=False)   # the loop beside it is context, not a problem of mine.yaml
    assert alone.problems == [] and alone.lessons == ["mine"]
