"""How the answer being typed reads, under the answer box, for kinds that offer a preview.

A formula is easy to mistype (a bracket left open, ``K.T`` written ``K``); seeing it printed as
the lesson prints formulas, or where it stops reading, before pressing Enter keeps a try from
going to a typo.  The kind computes the text (its ``preview`` hook); this widget only shows it,
and takes no line while there is nothing to show.
"""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tutor.common.i18n import _
from tutor.common.safe_text import neutralise


class AnswerPreview(Static):
    DEFAULT_CSS = """
    AnswerPreview {
        display: none;
        margin: 0 1;
        color: $text-muted;
    }
    """

    def show(self, preview: str | None) -> None:
        """``preview`` from the question kind; None hides the widget."""
        self.display = preview is not None
        if preview is not None:
            # a one-line reading beside its label: on 24 lines every line counts
            text = Text(_("Reads as:") + ("\n" if "\n" in preview else " "), style="italic")
            text.append(neutralise(preview, keep="\n"))
            text.no_wrap = True
            self.update(text)
