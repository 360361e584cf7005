"""pydantic's messages for a broken file, in words that can be translated where they are shown.

A lesson file and a progress export are both checked by pydantic, whose messages are English
strings.  The rules an author or a learner breaks most are rebuilt here from marked templates;
each is used only when it reads exactly as pydantic wrote it, so a later pydantic's new wording
stays as it is instead of being replaced by a sentence that no longer fits.  A validator of
ours raises its ValueError with a Message already, which is kept as it is.
"""
from __future__ import annotations

from tutor.common.i18n import M_, N_, Message

PYDANTIC_WORDS = {
    "int_type": (N_("Input should be a valid integer"),),
    "int_from_float": (N_("Input should be a valid integer, got a number with a fractional part"),),
    "int_parsing": (N_("Input should be a valid integer, unable to parse string as an integer"),),
    "float_parsing": (N_("Input should be a valid number, unable to parse string as a number"),),
    "bool_parsing": (N_("Input should be a valid boolean, unable to interpret input"),),
    "finite_number": (N_("Input should be a finite number"),), "string_type": (N_("Input should be a valid string"),),
    "float_type": (N_("Input should be a valid number"),), "bool_type": (N_("Input should be a valid boolean"),),
    "list_type": (N_("Input should be a valid list"),), "dict_type": (N_("Input should be a valid dictionary"),),
    "greater_than_equal": (N_("Input should be greater than or equal to {ge}"),),
    "less_than_equal": (N_("Input should be less than or equal to {le}"),),
    "greater_than": (N_("Input should be greater than {gt}"),), "less_than": (N_("Input should be less than {lt}"),),
    "string_too_long": (N_("String should have at most {max_length} characters"),),
    "string_too_short": (N_("String should have at least {min_length} characters"),
                         N_("String should have at least {min_length} character")),
    "too_long": (N_("List should have at most {max_length} items after validation, not {actual_length}"),),
    "too_short": (N_("List should have at least {min_length} items after validation, not {actual_length}"),
                  N_("List should have at least {min_length} item after validation, not {actual_length}")),
    "string_pattern_mismatch": (N_("String should match pattern '{pattern}'"),),
    "missing": (N_("Field required"),),
    "extra_forbidden": (N_("Extra inputs are not permitted"),),
}


def pydantic_words(item: dict) -> str:
    """pydantic's message as a Message where it is one of PYDANTIC_WORDS, else as pydantic wrote it."""
    written = item["msg"].removeprefix("Value error, ")
    values = dict(item.get("ctx") or {})
    for template in PYDANTIC_WORDS.get(item["type"], ()):
        try:
            message = M_(template, **values)
        except (KeyError, IndexError, ValueError):
            continue
        if message == written:
            return message
    return written


def rule_of(item: dict) -> str:
    """The rule one error item broke: our validator's own Message when it raised one, else pydantic's words."""
    raised = (item.get("ctx") or {}).get("error")
    if isinstance(raised, ValueError) and raised.args and isinstance(raised.args[0], Message):
        return raised.args[0]
    return pydantic_words(item)
