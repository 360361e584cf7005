"""Textual's footer, rebuilt only when the keys it would show change."""
from __future__ import annotations

from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    """Why: Textual rebuilds the footer (every key a new widget, restyled) on each bindings refresh
    of its screen, and a new screen gets several at once: focus, the screen stack, the first idle.
    After the roadmap's first paint that was three rebuilds of the same keys, about 25 ms of the UI
    thread's time each, while the model's thread needed the GIL to import torch."""

    _composed: tuple | None = None   # shown_keys() as the last compose drew them

    def shown_keys(self) -> tuple:
        """Everything compose draws from: each shown key with its label, state and tooltip, and the
        palette key's place."""
        keys = tuple((binding, self.app.get_key_display(binding), enabled, tooltip)
                     for _node, binding, enabled, tooltip in self.screen.active_bindings.values() if binding.show)
        return keys, self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE

    def compose(self):
        self._composed = self.shown_keys() if self._bindings_ready else None
        yield from super().compose()

    async def recompose(self) -> None:
        if self._composed is not None and self.is_attached and self.shown_keys() == self._composed:
            return
        await super().recompose()
