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


def localize_argparse() -> None:
    """Route argparse's words through tutor's catalog (English stays English)."""
    argparse._ = _
    argparse.ngettext = ngettext
