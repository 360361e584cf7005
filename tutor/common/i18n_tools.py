"""Refresh the interface catalogs: ``python -m tutor.common.i18n_tools update|compile|check``.

- ``update``: extract every ``_()``, ``N_()``, ``M_()``, ``NP_()`` and ``ngettext()`` string, and the description
  of every ``@experiment(name, description)``, from tutor/ and model/ (Babel's
  Python extractor) and merge it into each ``tutor/locale/<lang>/LC_MESSAGES/tutor.po``: new
  strings arrive empty, strings no longer in the code are dropped (no fuzzy guesses).
- ``compile``: write the ``.mo`` beside each ``.po`` (what the app reads; both ship).
- ``check``: exit 1 when a string has no translation, the .po holds one the code no longer
  has, or a .mo is older than its .po's content. tests/test_i18n.py runs the same checks.

Babel is a development tool here (the ``test`` extra); the app itself only needs gettext.
"""
from __future__ import annotations

import io
import sys
from pathlib import Path

from tutor.common.i18n import DEFAULT, DOMAIN, LANGUAGES, LOCALE_DIR

SOURCE_DIR = LOCALE_DIR.parent
# model/ (installed as tutor.model) raises errors the CLI and the app translate; it marks them with its own M_
MODEL_DIR = SOURCE_DIR.parent / "model"
# experiment(name, description, ...): every experiment's description is a msgid (the probe listing shows it)
KEYWORDS = {"_": None, "N_": None, "M_": None, "ngettext": (1, 2), "NP_": ((1, "c"), 2), "P_": ((1, "c"), 2), "experiment": (2,)}


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def translated_languages() -> list[str]:
    return [code for code in LANGUAGES if code != DEFAULT]


def extract_catalog():
    """Every marked string of the source tree, as a Babel catalog (the template)."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    template = Catalog(project="transformer-tutor", fuzzy=False)
    for folder, prefix in ((SOURCE_DIR, ""), (MODEL_DIR, "../model/")):
        if not folder.is_dir():
            continue
        for filename, lineno, message, comments, context in extract_from_dir(
                str(folder), method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
                strip_comment_tags=True):
            template.add(message, None, [(prefix + filename, lineno)], auto_comments=comments, context=context)
    return template


def read_po(language: str):
    from babel.messages.pofile import read_po as babel_read_po

    with open(po_path(language), "rb") as handle:
        return babel_read_po(handle, locale=language, domain=DOMAIN)


def write_po(catalog, language: str) -> None:
    from babel.messages.pofile import write_po as babel_write_po

    path = po_path(language)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        babel_write_po(handle, catalog, width=100, ignore_obsolete=True, sort_by_file=True)


def compiled_bytes(catalog) -> bytes:
    from babel.messages.mofile import write_mo

    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def update(language: str) -> None:
    from babel.messages.catalog import Catalog

    template = extract_catalog()
    if po_path(language).exists():
        catalog = read_po(language)
        template.creation_date = catalog.creation_date   # a refresh changes strings, not the header
    else:
        catalog = Catalog(locale=language, domain=DOMAIN, project="transformer-tutor", fuzzy=False)
    catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
    write_po(catalog, language)


def compile_catalog(language: str) -> Path:
    target = po_path(language).with_suffix(".mo")
    target.write_bytes(compiled_bytes(read_po(language)))
    return target


def _key(message) -> object:
    return message.context, message.id   # the same words may be two messages in two contexts


def problems(language: str) -> list[str]:
    """What ``check`` reports for one language: untranslated, stale, and an out-of-date .mo."""
    template = {_key(m) for m in extract_catalog() if m.id}
    catalog = read_po(language)
    found = {_key(m): m for m in catalog if m.id}
    path = po_path(language)
    report = [f"{path}: no translation for {key!r} (run update, then translate it)" for key in sorted(template - set(found), key=str)]
    report += [f"{path}: {key!r} is not in the code any more (run update)" for key in sorted(set(found) - template, key=str)]
    for key in sorted(template & set(found), key=str):
        message = found[key]
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings) or message.fuzzy:
            report.append(f"{path}: {key!r} is not translated yet")
    mo = path.with_suffix(".mo")
    if not mo.exists() or mo.read_bytes() != compiled_bytes(catalog):
        report.append(f"{mo}: out of date with its .po (run compile)")
    return report


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] not in ("update", "compile", "check"):
        print("usage: python -m tutor.common.i18n_tools update|compile|check", file=sys.stderr)
        return 2
    found = []
    for language in translated_languages():
        if argv[0] == "update":
            update(language)
            print(f"updated {po_path(language)}")
        elif argv[0] == "compile":
            print(f"wrote {compile_catalog(language)}")
        else:
            found += problems(language)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
