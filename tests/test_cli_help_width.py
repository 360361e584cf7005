"""Issue 32: every --help fits the terminal, measured in cells (a Chinese character is two)."""
import argparse

import pytest
from rich.cells import cell_len

from tutor.cli.help_layout import fold_line
from tutor.cli.main import build_parser, main
from tutor.common.i18n import set_language


@pytest.fixture(autouse=True)
def back_to_english():
    yield
    set_language("en")


def command_paths(parser: argparse.ArgumentParser, path=()):
    """Every command and subcommand, found in the parser itself so a new one is covered too."""
    yield path
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from command_paths(sub, (*path, name))


COMMANDS = sorted(set(command_paths(build_parser())))


def help_text(capsys, monkeypatch, columns: int, language: str, path) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    with pytest.raises(SystemExit):
        main(["--lang", language, *path, "--help"])
    return capsys.readouterr().out


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "tutor")
@pytest.mark.parametrize("columns", [80, 52])
def test_chinese_help_is_no_wider_than_the_terminal(capsys, monkeypatch, path, columns):
    text = help_text(capsys, monkeypatch, columns, "zh", path)
    too_wide = [line for line in text.splitlines() if cell_len(line) > columns]
    assert not too_wide, too_wide


def test_the_commands_the_issue_names_are_all_checked():
    for path in [("lessons", "check"), ("train",), ("sample",), ("progress",), ("serve",),
                 ("class", "report"), ("lessons", "new")]:
        assert path in COMMANDS


def test_chinese_breaks_between_characters_never_before_a_closing_mark(capsys, monkeypatch):
    text = help_text(capsys, monkeypatch, 80, "zh", ("lessons", "check"))
    lines = text.splitlines()
    assert not any(line.lstrip().startswith(("）", "，", "。", "；")) for line in lines)
    # the long help of --checkpoint goes on over several lines, each under the help column
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("--checkpoint"))
    column = lines[start].index(lines[start].split()[2])
    assert lines[start + 1][:column].strip() == "" and lines[start + 1][column:].strip()


def test_english_help_is_laid_out_as_argparse_would(capsys, monkeypatch):
    text = help_text(capsys, monkeypatch, 80, "en", ("lessons", "check"))
    assert "  --static           skip the live model (fast; probes, answers and the\n" in text


def test_a_group_of_alternatives_wider_than_the_terminal_folds_at_its_separators():
    line = "                  [--export FILE | --import FILE | --reset | --export-reviews FILE.csv | --optimize]"
    folded = fold_line(line, 60, 18)
    assert all(cell_len(part) <= 60 for part in folded) and len(folded) > 1
    assert " ".join(part.strip() for part in folded) == line.strip()
    assert fold_line("short", 60, 2) == ["short"]
