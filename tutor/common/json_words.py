"""The json module's words for a file that does not parse ("Expecting value"), as messages that
can be translated (see tutor.common.reworded); an import or a settings file meets them."""
from __future__ import annotations

from tutor.common.i18n import N_
from tutor.common.reworded import exact_words, reworded

_WORDINGS = exact_words((
    N_("Expecting value"), N_("Expecting property name enclosed in double quotes"), N_("Expecting ':' delimiter"),
    N_("Expecting ',' delimiter"), N_("Unterminated string starting at"), N_("Invalid control character at"),
    N_("Invalid \\escape"), N_("Invalid \\uXXXX escape"), N_("Extra data"),
    N_("Illegal trailing comma before end of object"), N_("Illegal trailing comma before end of array"),
))


def json_problem(written: str) -> str:
    """json's problem text as a Message when it is one of the wordings above, else as written."""
    return reworded(written, _WORDINGS)
