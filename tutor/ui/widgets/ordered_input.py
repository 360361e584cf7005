"""An Input whose editing keys act in the order they were pressed.

Why a subclass: in Textual (8.2) a printable key is inserted by the Input as soon as it
arrives, but a key bound by the Input itself (backspace, delete, ctrl+u, ctrl+w, the arrows,
enter) is only acted on after the event has bubbled back up through every parent to the App,
which then looks the binding up.  When keys come in a burst (a held backspace, a paste, a slow
machine, or a browser whose keys reach a served tab in one WebSocket message), letters typed
after 200 backspaces are inserted before those backspaces are applied, and then deleted by
them: the keys are "lost".  The hand-in's name field handed in an empty name when Ctrl+U, the
name and Enter came in one message: the name went in, then Ctrl+U cleared it, then Enter.  Here
the Input runs its own bindings the moment a key reaches it, so every key takes effect in the
order it was pressed.  Priority bindings (the app's F3/ctrl+d) are still taken by the App
before the key is forwarded, and keys the Input does not bind bubble on as before.
"""
from __future__ import annotations

from textual import events
from textual.widgets import Input


class OrderedInput(Input):
    async def _on_key(self, event: events.Key) -> None:
        """Run the Input's own binding for this key now; anything else goes on to Input._on_key.

        Stopping the event keeps the App from running the same binding again when it arrives;
        prevent_default keeps Textual from calling the base classes' key handlers too.
        """
        bindings = [b for b in self._bindings.key_to_bindings.get(event.key, ()) if not b.priority]
        if bindings:
            event.stop()
            event.prevent_default()
            await self.run_action(bindings[0].action)
