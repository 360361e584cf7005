"""Shared by the journey tests: a lesson these tests control, and Pilot helpers.

The lesson lives here, not in lessons/, so edits to the built-in lessons cannot break the
journey tests; it varies L, so review can show it with new sizes.
"""
import asyncio
import io
from contextlib import asynccontextmanager

from rich.console import Console
from textual.widgets import Static

POLL = 0.05   # seconds between looks at a condition

LESSON = """\
format_version: 1
id: zz-journey
title: "Journey test lesson"
track: la
position: 999
concepts: [la.scaled-scores]
explanation: "A lesson the journey tests control."
formula:
  expr: "Q @ K.T"
  translation: "compare every query with every key"
model:
  weights: random
  text: ["12", "34"]
  d_model: 8
  n_head: 2
  vary:
    L: [2, 6]
probes: ["blocks.0.attn.scores"]
questions:
  - id: sym
    kind: symbolic_shape
    prompt: "The shape of the scores, in symbols?"
    answer: "(B, H, L, L)"
    probe: "blocks.0.attn.scores"
    hints: ["One table per head."]
  - id: pick
    kind: choice
    prompt: "Which is right?"
    choices: ["this one", "not this one"]
    answer: 0
"""


def write_lesson(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "zz-journey.yaml").write_text(LESSON, encoding="utf-8")
    return folder


def text_of(screen, selector: str, width: int = 120) -> str:
    """What a Static shows, as plain text (Rich renderables included)."""
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(screen.query_one(selector, Static).content)
    return console.export_text().strip()


async def wait_until(pilot, condition, what: str, *, seconds: float = 120.0, busy: bool = False) -> None:
    """The one way a Pilot test waits: let the app run (workers, messages, layout) until
    ``condition()`` holds, then let it settle once more; fail naming ``what`` after ``seconds``.

    ``busy``: a trainer keeps a core busy, and ``pilot.pause()`` waits for an idle CPU (up to a
    second a call), so only yield to the event loop.  ``seconds`` is an upper bound for a
    loaded machine, never a measurement: a quiet one is done in a fraction of it.
    """
    for _ in range(int(seconds / POLL)):
        if condition():
            if not busy:
                await pilot.pause()
            return
        await asyncio.sleep(POLL)
        if not busy:
            await pilot.pause()
    raise AssertionError(f"timed out waiting for {what}")


async def wait_for_live(pilot, screen) -> None:
    """Until the lesson on ``screen`` has its live tensors; a failure shows what its status line said."""
    try:
        await wait_until(pilot, lambda: screen.live is not None, "the lesson's live tensors")
    except AssertionError as error:
        raise AssertionError(f"{error}: {text_of(screen, '#live-status')}") from None


async def graded(pilot) -> None:
    """Until every answer being graded has its verdict drawn: the lesson screen grades in a worker
    thread (tutor.ui.screens.lesson_quiz), which ``pilot.pause()`` does not wait for."""
    await pilot.app.workers.wait_for_complete([worker for worker in pilot.app.workers if worker.group == "grade"])
    await pilot.pause()


async def type_answer(pilot, text: str) -> None:
    await pilot.press(*list(text))
    await pilot.press("enter")
    await graded(pilot)


def record_notifications(app) -> list[tuple[str, dict]]:
    """Keep every notify() call as (message, options), and still show it."""
    seen, show = [], app.notify

    def notify(message, **options):
        seen.append((str(message), options))
        return show(message, **options)

    app.notify = notify
    return seen


async def open_live_lesson(pilot, lesson_id: str, *args, **kwargs):
    """Open a lesson (``args`` as ``app.open_lesson`` takes them) and wait for its live tensors: the
    start of most lesson-screen tests."""
    pilot.app.open_lesson(lesson_id, *args, **kwargs)
    await pilot.pause()
    screen = pilot.app.screen
    await wait_for_live(pilot, screen)
    return screen


@asynccontextmanager
async def given_up_in_chinese(tmp_path, lesson_id: str, size: tuple[int, int], question: int = 0):
    """A lesson's question (the first unless told) given up (Ctrl+G) in the Chinese app: (pilot, screen) on its reveal.
    Its test sets English back afterwards (test_i18n and test_zh_words do, for every test)."""
    from tutor.common.i18n import set_language
    from tutor.ui.app import TutorApp

    set_language("zh")
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=size) as pilot:
        screen = await open_live_lesson(pilot, lesson_id, question)
        await pilot.press("ctrl+g")
        await pilot.pause()
        yield pilot, screen
