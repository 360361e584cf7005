"""Python's own words for a formula that does not parse ("'(' was never closed"), as messages
that can be translated (the formula parser is ``ast.parse``; see tutor.common.reworded)."""
from __future__ import annotations

from tutor.common.i18n import N_
from tutor.common.reworded import reworded, word_table

_BRACKET = r"'(?P<{}>[()\[\]{{}}])'"

# (Python's wording as a pattern, the template that rebuilds it from the pattern's groups)
_WORDINGS = word_table((
    (r"invalid syntax", N_("invalid syntax")),
    (r"invalid syntax\. Perhaps you forgot a comma\?", N_("invalid syntax. Perhaps you forgot a comma?")),
    (_BRACKET.format("bracket") + r" was never closed", N_("{bracket!r} was never closed")),
    (r"unmatched " + _BRACKET.format("bracket"), N_("unmatched {bracket!r}")),
    (r"closing parenthesis " + _BRACKET.format("closing") + r" does not match opening parenthesis "
     + _BRACKET.format("opening"),
     N_("closing parenthesis {closing!r} does not match opening parenthesis {opening!r}")),
    (r"invalid decimal literal", N_("invalid decimal literal")),
    (r"invalid hexadecimal literal", N_("invalid hexadecimal literal")),
    (r"invalid octal literal", N_("invalid octal literal")),
    (r"invalid binary literal", N_("invalid binary literal")),
    (r"invalid digit '(?P<digit>\w)' in octal literal", N_("invalid digit {digit!r} in octal literal")),
    (r"invalid digit '(?P<digit>\w)' in binary literal", N_("invalid digit {digit!r} in binary literal")),
    (r"unterminated string literal \(detected at line (?P<line>\d+)\)",
     N_("unterminated string literal (detected at line {line})")),
    (r"leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
     N_("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers")),
    (r"unexpected character after line continuation character",
     N_("unexpected character after line continuation character")),
    (r"invalid character '(?P<char>.)' \((?P<code>U\+[0-9A-F]+)\)", N_("invalid character {char!r} ({code})")),
    (r"unexpected EOF while parsing", N_("unexpected EOF while parsing")),
    (r"expression expected after dictionary key and ':'", N_("expression expected after dictionary key and ':'")),
))


def syntax_problem(written: str) -> str:
    """Python's SyntaxError text as a Message when it is one of the wordings above, else as written."""
    return reworded(written, _WORDINGS)
