"""argparse's own words (usage, options, its error lines) in the interface language.

argparse translates through the stdlib's ``gettext`` module-level functions, looked up at call
time as ``argparse._`` and ``argparse.ngettext``, with no catalog of its own installed.  So
``tutor --lang zh --help`` printed Chinese help under an English "usage:" and "options:".
Rather than ship a second catalog for argparse's domain, its msgids are marked below so they
live in tutor's catalog with the rest, and ``localize_argparse`` points argparse's two names at
tutor's translation: the words switch with ``set_language`` like every other string.
"""
from __future__ import annotations

import argparse
import re

from tutor.common.i18n import N_, _, ngettext

# Every string argparse (Python 3.11) passes to _() or ngettext(), so the catalog keeps them.
ARGPARSE_MSGIDS = (
    N_("usage: "), N_("options"), N_("positional arguments"), N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"), N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"), N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("argument %(argument_name)s: %(message)s"), N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"), N_("expected at most one argument"), N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"), N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"), N_("ignored explicit argument %r"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"), N_("can't open '%(filename)s': %(error)s"),
)


# a section heading as argparse writes it, "选项:": its colon is argparse's own, half-width
_CJK_HEADING = re.compile(r"^(\S*[\u3400-\u9fff]\S*):$", re.M)


def _full_width_colons(format_help):
    def formatted(self) -> str:
        return _CJK_HEADING.sub(r"\1：", format_help(self))

    formatted.tutor_full_width = True
    return formatted


def localize_argparse() -> None:
    """Route argparse's words through tutor's catalog (English stays English), and end a Chinese
    section heading with a full-width colon, as Chinese writes it ("选项：", not "选项:")."""
    argparse._ = _
    argparse.ngettext = ngettext
    if not getattr(argparse.HelpFormatter.format_help, "tutor_full_width", False):
        argparse.HelpFormatter.format_help = _full_width_colons(argparse.HelpFormatter.format_help)
