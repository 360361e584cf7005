"""One browser tab's ``tutor`` process as textual-serve runs it, made to end whatever happens.

Why: textual-serve's AppService stops a tab by asking it to quit and awaiting the task that
copies its output to the browser.  When the connection drops while a large frame is being
written, that task has already died of ``ConnectionError("Connection lost")``; awaiting it
re-raises, the process is never stopped, and it stays blocked writing to a pipe nobody reads
(466 MB in the review, 2026-12-reliability.md row 36).  Here a tab runs in a process group of
its own (the shell textual-serve starts, and the tutor or the fork server's launcher under it),
and ``end`` stops that group once the polite quit has not done it.  A tab forked by the fork
server ends with its launcher (tutor.web.fork_server watches each launcher's connection).

Also here: the window size a browser asks for is capped.  The tab draws every cell of it on each
frame; a client asking for 5000×5000 made one tab hold hundreds of MB and the server write
frames of tens of MB.
"""
from __future__ import annotations

import asyncio
import os
import signal

from textual_serve.app_service import AppService

# Wider and taller than any screen shows at the page's smallest font (6 px on a 4K display is
# ~640×270 cells of 6 px): still a screenful at a font anyone reads, a bounded frame for anyone else.
MAX_COLUMNS, MAX_ROWS = 400, 200
QUIT_GRACE = 3.0   # seconds a tab may take to leave after "quit" before its process group is stopped
TERM_GRACE = 3.0   # seconds between SIGTERM and SIGKILL


def window_size(width, height) -> tuple[int, int]:
    """A client's requested size as columns and rows the tab will draw: whole numbers within the caps
    (anything else, such as a string or a float that is not a number, becomes 80×24)."""
    return clamp(width, 80, MAX_COLUMNS), clamp(height, 24, MAX_ROWS)


def clamp(value, default: int, top: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return default
    try:
        number = int(value)
    except (ValueError, OverflowError):
        return default
    return max(1, min(top, number))


class TabService(AppService):
    """textual-serve's AppService with: the tab's environment from ``environment`` (a function of
    textual-serve's own), a capped window size, a process group, and an ``end`` that always ends it."""

    def __init__(self, *args, environment, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.environment = environment

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        return self.environment(super()._build_environment(width, height))

    async def _open_app_process(self, width: int = 80, height: int = 24):
        """As textual-serve's, but in a new session: the whole tab can be stopped by its group."""
        self._process = process = await asyncio.create_subprocess_shell(
            self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self._build_environment(width=width, height=height),
            start_new_session=True)
        self._stdin = process.stdin
        return process

    async def start(self, width, height) -> None:
        await super().start(*window_size(width, height))

    async def set_terminal_size(self, width, height) -> None:
        await super().set_terminal_size(*window_size(width, height))

    async def end(self) -> None:
        """Stop the tab: politely while its output is still being read, then by signals.  Never raises
        an ordinary exception, and signals the group even when cancelled: the caller frees the place."""
        task = self._task
        try:
            if task is not None and not task.done():
                try:
                    await asyncio.wait_for(self.stop(), QUIT_GRACE)
                except Exception:   # the connection dropped, or the tab did not leave in time
                    pass
            if task is not None and task.done() and not task.cancelled():
                task.exception()   # retrieved: its connection error is why we are here, not news for the log
        finally:
            await self.stop_group()

    async def stop_group(self) -> None:
        """SIGTERM to the tab's group, then SIGKILL to whatever of it is left (the leader may be gone
        while a tutor under it is stuck writing a frame, which no polite signal reaches)."""
        process, task, self._task = self._process, self._task, None
        if task is not None and not task.done():
            task.cancel()   # nothing more to copy to a browser that is gone
        if process is None:
            return
        forced = process.returncode is None
        try:
            if forced:
                signal_group(process.pid, signal.SIGTERM)
                await asyncio.wait_for(process.wait(), TERM_GRACE)
        except asyncio.TimeoutError:
            pass
        finally:
            if forced:   # whatever is left of the group, such as a tutor stuck in a write under a dead shell
                signal_group(process.pid, signal.SIGKILL)
            # its pipes: a cancelled copier left them paused and open, a set of descriptors per dropped tab
            transport = getattr(process, "_transport", None)
            if transport is not None:
                transport.close()


def signal_group(leader: int, signum: int) -> None:
    """Signal a tab's process group (its id is its session leader's pid) if any of it is left."""
    try:
        os.killpg(leader, signum)
    except (ProcessLookupError, PermissionError):
        pass
