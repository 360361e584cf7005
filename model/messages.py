"""Error text that can be translated where it is shown, without ``model/`` knowing any language.

A checkpoint's or a training file's problem is raised here and printed by the CLI or the app,
which may show Chinese.  ``model/`` never imports ``tutor/``, so it cannot call gettext; instead
its messages keep their English template and values (tutor.common.i18n's Message extends this
class with gettext, and its ``translated()`` recognises both) while reading, comparing and printing
as the same English text as before.  ``M_`` is the name the catalog extractor looks for.
"""
from __future__ import annotations


class Message(str):
    """The English text, plus the template and values it was made from (to translate later)."""

    template: str
    values: dict

    def __new__(cls, template: str, **values) -> "Message":
        message = super().__new__(cls, template.format(**values) if values else template)
        message.template, message.values = template, values
        return message


def M_(template: str, **values) -> Message:
    """Mark a message for extraction, filled with ``values`` now and translated where it is shown."""
    return Message(template, **values)


def reason_of(error: BaseException) -> str:
    """An exception's text, still a Message when it was raised with one, to nest in another."""
    first = error.args[0] if len(error.args) == 1 else None
    return first if isinstance(first, str) else str(error)
