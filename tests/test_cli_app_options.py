"""Opening the app parses only its own options; anything else gets the whole parser and its messages."""
import subprocess
import sys
from pathlib import Path

import pytest

from tutor.cli.main import build_parser, opens_the_app

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("argv, app", [
    ([], True), (["--home", "h", "--lang", "zh"], True), (["--lessons", "a", "--lessons", "b"], True),
    (["--home=h"], True), (["--version"], True),
    (["lessons", "list"], False), (["--home", "h", "progress"], False), (["--help"], False), (["-h"], False),
    (["--hom", "h"], False),      # an abbreviation: argparse may accept it, so the whole parser decides
    (["typo"], False),            # "invalid choice" with the list of commands, from the whole parser
])
def test_which_command_lines_open_the_app(argv, app):
    assert opens_the_app(argv) is app


def test_the_light_parser_reads_the_app_options_as_the_whole_one_does():
    argv = ["--home", "h", "--lessons", "a", "--lang", "zh"]
    light, whole = build_parser(commands=False).parse_args(argv), build_parser().parse_args(argv)
    assert vars(light) == {k: v for k, v in vars(whole).items() if k != "command"}


def test_opening_the_app_imports_no_subcommand_module():
    code = ("import sys\nfrom tutor.cli.main import build_parser, opens_the_app\n"
            "build_parser(commands=not opens_the_app(['--home', 'h'])).parse_args(['--home', 'h'])\n"
            "print(sorted(m for m in sys.modules if m.startswith('tutor.cli.') and m != 'tutor.cli.main'))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr
