"""Key labels in the interface language.

Textual builds a class's key bindings once, when the class is defined, so their labels are
written in English (marked ``N_``) and translated per instance here; a language switch then
needs no re-import, only new screens.
"""
from __future__ import annotations

import dataclasses

from textual.binding import BindingsMap

from tutor.common.i18n import N_, _, language_names

# labels Textual gives its own bindings (the footer's palette key, the app's quit key)
TEXTUAL_LABELS = (N_("palette"), N_("Open the command palette"), N_("Quit"), N_("Dismiss menu"))


def binding_label(description: str) -> str:
    """A key's label in the current language; ``{languages}`` (F4's) becomes every shipped
    language's own name, read from the catalogs, so a new catalog needs no new label."""
    return _(description).replace("{languages}", language_names())


def localize_bindings(node) -> None:
    """Relabel ``node``'s bindings in the current language; the English labels are kept aside
    the first time, so switching back and forth never translates a translation."""
    english = getattr(node, "_english_bindings", None)
    if english is None:
        english = node._english_bindings = node._bindings.copy()
    localized = BindingsMap()
    for key, bindings in english.key_to_bindings.items():
        localized.key_to_bindings[key] = [
            dataclasses.replace(binding, description=binding_label(binding.description) if binding.description else "",
                                tooltip=_(binding.tooltip) if binding.tooltip else "")
            for binding in bindings]
    node._bindings = localized
