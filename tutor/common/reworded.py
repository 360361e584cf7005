"""Another program's message (Python's parser, libyaml) in words that can be translated.

Python's ``SyntaxError`` and PyYAML's errors are English strings made outside the tutor, so they
cannot go through gettext as they are.  Each wording an author or a learner meets is matched by
a pattern and rebuilt from a marked template with the same values; the rebuilt English must read
exactly as the other program wrote it, so a later version's new wording is shown as it is rather
than replaced by a sentence that no longer fits.
"""
from __future__ import annotations

import re
from typing import Iterable

from tutor.common.i18n import M_

WordTable = tuple[tuple[re.Pattern, str], ...]


def word_table(pairs: Iterable[tuple[str, str]]) -> WordTable:
    """(pattern of the other program's wording, template that rebuilds it from the pattern's groups)."""
    return tuple((re.compile(pattern), template) for pattern, template in pairs)


def exact_words(texts: Iterable[str]) -> WordTable:
    """A table of wordings that hold no values: each is its own pattern and template."""
    return word_table((re.escape(text), text) for text in texts)


def reworded(written: str, table: WordTable) -> str:
    """``written`` as a Message when one of ``table``'s wordings rebuilds it exactly, else as written."""
    for pattern, template in table:
        match = pattern.fullmatch(written)
        if match is not None:
            message = M_(template, **match.groupdict())
            if message == written:
                return message
    return written
