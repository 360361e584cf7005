"""Words on long-lived widgets that follow a language switch without rebuilding the widget.

Why: the dashboard is installed once and kept, because a training run, its chart and the unsaved
weights live in it; rebuilding it on F4 would throw them away.  So a widget made with ``worded``
remembers its English text (marked ``N_``) and ``relabel`` writes it again in the current
language: labels, buttons, check boxes, input placeholders, select options (the chosen value
kept) and tab titles.  Text that a panel recomputes anyway (statuses, charts) is the panel's own
business; it only needs to be redrawn.
"""
from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, Static, TabbedContent, TabPane
from textual.widgets._select import SelectOverlay

from tutor.common.i18n import _
from tutor.ui.localize import localize_bindings

WORDS = "_english_words"   # attribute: (msgid, template) or, for a Select, [(msgid, value), ...]


def worded(widget: Widget, message: str, template: str = "{}") -> Widget:
    """Show ``message`` (English, marked ``N_``) on ``widget`` through ``template`` ("{} "), in the
    current language, and remember it for ``relabel``."""
    setattr(widget, WORDS, (message, template))
    _write(widget)
    return widget


def _option_text(label) -> str:
    return label() if callable(label) else _(label)


class WordedSelect(Select):
    """A Select whose open menu names its keys in the interface language: Textual's menu binds
    Escape as "Dismiss menu", in English, and the footer showed it on a Chinese screen."""

    def on_mount(self) -> None:
        localize_bindings(self.query_one(SelectOverlay))


def worded_select(options: list[tuple[object, object]], **select_args) -> Select:
    """A Select whose option labels (English messages, or functions that word the label in the
    current language) follow the language."""
    select = WordedSelect([(_option_text(label), value) for label, value in options], **select_args)
    setattr(select, WORDS, list(options))
    return select


def relabel(root: Widget) -> None:
    """Write every remembered text under ``root`` again in the current language."""
    for widget in root.query("*"):
        if getattr(widget, WORDS, None) is not None:
            _write(widget)
        if isinstance(widget, WordedSelect) and widget.is_mounted:
            widget.on_mount()   # its menu's key names


def _write(widget: Widget) -> None:
    words = getattr(widget, WORDS)
    if isinstance(widget, Select):
        value = widget.value
        with widget.prevent(Select.Changed):   # the choice stays; nobody needs telling
            widget.set_options([(_option_text(label), option) for label, option in words])
            if widget.value == value:   # unchanged, so the box would keep the old words: step off and back
                widget.value = next((option for _label, option in words if option != value), value)
            widget.value = value
    else:
        message, template = words
        text = template.format(_(message))
        if isinstance(widget, (Button, Checkbox)):
            widget.label = text
            widget.refresh(layout=True)   # a label is not a layout reactive, but its width is the button's
        elif isinstance(widget, Input):
            widget.placeholder = text
        elif isinstance(widget, TabPane):
            widget.query_ancestor(TabbedContent).get_tab(widget).label = text
        elif isinstance(widget, (Label, Static)):
            widget.update(text)
