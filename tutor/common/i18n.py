"""The interface language: stdlib gettext catalogs shipped in the wheel (tutor/locale/).

Why gettext and not a dict of our own: translators, editors and Babel all read .po files,
plural rules come with the catalog, and a string nobody translated simply stays English.
Babel is only needed to refresh the catalogs (``python -m tutor.common.i18n_tools``); the
running app needs nothing beyond the standard library.

The choice, strongest first: ``tutor --lang``, the remembered setting (the palette's and
F4's toggle), then the locale as gettext reads it (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), then
English.  Strings marked at import time (class attributes) use ``N_`` and are translated
where they are shown, so switching language in a running app needs no re-import.
"""
from __future__ import annotations

import gettext
import os
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from tutor.model.messages import Message as TemplateText

DOMAIN = "tutor"
DEFAULT = "en"
SETTING = "language"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
_ENVIRONMENT_ORDER = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def shipped_languages(locale_dir: Path = LOCALE_DIR) -> tuple[str, ...]:
    """English, then every language with a compiled catalog in ``locale_dir``: adding a language
    is adding its catalog, and the toggle, the palette and ``--lang`` offer it."""
    found = sorted(path.parents[1].name for path in locale_dir.glob(f"*/LC_MESSAGES/{DOMAIN}.mo"))
    return (DEFAULT, *[code for code in found if code != DEFAULT])


LANGUAGES = shipped_languages()

_current = DEFAULT
_translation: gettext.NullTranslations = gettext.NullTranslations()


@lru_cache(maxsize=None)
def language_name(code: str, locale_dir: Path = LOCALE_DIR) -> str:
    """The language's own name ("中文"), as its catalog gives it; English for the source language."""
    if code == DEFAULT:
        return SOURCE_NAME
    catalog = gettext.translation(DOMAIN, localedir=str(locale_dir), languages=[code], fallback=True)
    return catalog.pgettext(NAME_CONTEXT, SOURCE_NAME)


def in_language(code: str, message: str, locale_dir: Path = LOCALE_DIR) -> str:
    """``message`` in the language ``code``, whatever the current language is (English without a catalog)."""
    if code == DEFAULT:
        return message
    return gettext.translation(DOMAIN, localedir=str(locale_dir), languages=[code], fallback=True).gettext(message)


def language_names() -> str:
    """Every language's own name, in the toggle's order: "English / 中文"."""
    return " / ".join(language_name(code) for code in LANGUAGES)


def language_code(value: str | None) -> str | None:
    """``zh_CN.UTF-8``, ``zh-Hans``, ``ZH`` -> ``zh``; ``en_GB`` -> ``en``; others -> None."""
    if not isinstance(value, str):
        return None
    code = value.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return code if code in LANGUAGES else None


def language_from_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """The locale's language as gettext finds it: the first of LANGUAGE, LC_ALL, LC_MESSAGES,
    LANG that is set decides (LANGUAGE may list several, ``zh_CN:en``); C and POSIX are English."""
    environ = os.environ if environ is None else environ
    for name in _ENVIRONMENT_ORDER:
        value = environ.get(name)
        if not value:
            continue
        if name != "LANGUAGE" and value.split(".")[0] in ("C", "POSIX"):
            return DEFAULT
        for part in value.split(":"):
            code = language_code(part)
            if code:
                return code
        if name != "LANGUAGE":
            return None   # a locale we have no catalog for: English, as gettext would fall back
    return None


def resolve_language(requested: str | None = None, remembered: object = None,
                     environ: Mapping[str, str] | None = None) -> str:
    """The language to use: the command line, else the setting, else the locale, else English."""
    for choice in (requested, remembered if isinstance(remembered, str) else None):
        code = language_code(choice)
        if code:
            return code
    return language_from_environment(environ) or DEFAULT


def set_language(code: str) -> str:
    """Switch every later ``_()`` to ``code`` (unknown codes mean English); returns the code used."""
    global _current, _translation
    code = language_code(code) or DEFAULT
    _translation = gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[code], fallback=True) \
        if code != DEFAULT else gettext.NullTranslations()
    _current = code
    return code


def current_language() -> str:
    return _current


def other_language(code: str | None = None) -> str:
    """The language the toggle switches to (the languages taken in turn)."""
    codes = list(LANGUAGES)
    return codes[(codes.index(code or _current) + 1) % len(codes)]


def _(message: str) -> str:
    """The message in the current language (English when it has no translation)."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    return _translation.ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Mark a string for extraction without translating it yet (class attributes, constants)."""
    return message


class Message(TemplateText):
    """English text that keeps its template and values, so it is translated where it is shown.

    A lesson-file problem is made once (by the loader or ``lessons check``) and shown later, on
    stdout or on screen after F4 may have changed the language; being a ``str``, it still reads,
    compares and sorts as the English text everywhere else.  Values that are Messages themselves
    (a hint inside a problem) are translated with it.  ``model/``'s errors are the same kind of
    text (model.messages, which cannot import gettext) and are translated the same way.
    """

    def translated(self) -> str:
        return _translate_template(self)


def M_(template: str, **values) -> Message:
    """Mark a message for extraction, filled with ``values`` now and translated where it is shown."""
    return Message(template, **values)


# the words between a list's items, marked here so that each language gives its own ("，", "、")
LIST_SEPARATORS = (N_(", "), N_(" or "))


class ListText(Message):
    """Parts read as one list ("trained on the sort task, n_layer = 2"): the English is the parts
    joined by ``separator``; shown, each part is translated and joined by the language's own word."""

    parts: tuple
    separator: str

    def __new__(cls, parts, separator: str = ", ") -> "ListText":
        parts = tuple(parts)
        text = super().__new__(cls, separator.join(parts))   # the English, a template without values
        text.parts, text.separator = parts, separator
        return text

    def translated(self) -> str:
        return _(self.separator).join(translated(part) for part in self.parts)


def _is_message(text: object) -> bool:
    """A Message of ours or one ``model/`` raised (its own M_ makes the base class)."""
    return isinstance(text, TemplateText)


def _translate_template(message) -> str:
    text = _(message.template)
    if not message.values:
        return text
    try:
        # only nested messages are replaced: a number keeps its type for a spec such as {size:,}
        return text.format(**{name: translated(value) if _is_message(value) else value
                              for name, value in message.values.items()})
    except (KeyError, IndexError, ValueError):   # a translation that lost a placeholder: the English
        return str.__str__(message)


def translated(text: object) -> str:
    """A Message (ours or model/'s) in the current language; any other text as it is."""
    if isinstance(text, Message):
        return text.translated()   # a kind of Message may word itself (a list, a weights label)
    return _translate_template(text) if _is_message(text) else str(text)


def message_of(error: BaseException) -> str:
    """An exception's text, still a Message (to translate where it is shown) when it was raised with one."""
    first = error.args[0] if len(error.args) == 1 else None
    return first if _is_message(first) else str(error)


def error_text(error: BaseException) -> str:
    """What went wrong, in the current language.  Our own errors carry a Message that says it all;
    an error raised by a library (torch's RuntimeError) has only its English words, which cannot be
    translated, so the exception's type is named with them to say where they come from."""
    message = message_of(error)
    if _is_message(message):
        return translated(message)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def NP_(context: str, message: str) -> str:
    """Mark a string with a context for extraction (the same words meaning something else)."""
    return message


def P_(context: str, message: str) -> str:
    """The message in the current language, for the meaning ``context`` names (", " between
    numbers is "、" in Chinese, between clauses "，")."""
    return _translation.pgettext(context, message)


# Each catalog names its own language: its translation of "English" in this context ("中文").
NAME_CONTEXT = "the name of this language, in this language"
SOURCE_NAME = NP_("the name of this language, in this language", "English")
