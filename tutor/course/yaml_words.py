"""YAML's own words for a lesson file that does not parse ("could not find expected ':'"), as
messages that can be translated (see tutor.common.reworded).  libyaml's wordings come first, as
PyYAML's C loader writes them; the pure-Python loader's are below them."""
from __future__ import annotations

from tutor.common.i18n import N_
from tutor.common.reworded import reworded, word_table

_WORDINGS = word_table((
    (r"found a tab character that violates indentation", N_("found a tab character that violates indentation")),
    (r"found a tab character where an indentation space is expected",
     N_("found a tab character where an indentation space is expected")),
    (r"mapping values are not allowed in this context", N_("mapping values are not allowed in this context")),
    (r"block sequence entries are not allowed in this context",
     N_("block sequence entries are not allowed in this context")),
    (r"found unexpected end of stream", N_("found unexpected end of stream")),
    (r"did not find expected ',' or (?P<bracket>'[\]}]')", N_("did not find expected ',' or {bracket}")),
    (r"did not find expected key", N_("did not find expected key")),
    (r"did not find expected '-' indicator", N_("did not find expected '-' indicator")),
    (r"did not find expected node content", N_("did not find expected node content")),
    (r"could not find expected ':'", N_("could not find expected ':'")),
    (r"found unknown escape character", N_("found unknown escape character")),
    (r"found character that cannot start any token", N_("found character that cannot start any token")),
    (r"found unexpected ':'", N_("found unexpected ':'")),
    (r"mapping values are not allowed here", N_("mapping values are not allowed here")),
    (r"found character (?P<char>'.*') that cannot start any token",
     N_("found character {char} that cannot start any token")),
    (r"found unknown escape character (?P<char>'.*')", N_("found unknown escape character {char}")),
    (r"expected <block end>, but found '(?P<token>[^']*)'", N_("expected <block end>, but found '{token}'")),
    (r"expected ',' or (?P<bracket>'[\]}]'), but got '(?P<token>[^']*)'",
     N_("expected ',' or {bracket}, but got '{token}'")),
))


def yaml_problem(written: str) -> str:
    """PyYAML's problem text as a Message when it is one of the wordings above, else as written."""
    return reworded(written, _WORDINGS)
