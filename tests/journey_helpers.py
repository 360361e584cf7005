"""Shared by the journey tests: a lesson these tests control, and Pilot helpers.

The lesson lives here, not in lessons/, so edits to the built-in lessons cannot break the
journey tests; it varies L, so review can show it with new sizes.
"""
import asyncio
import io

from rich.console import Console
from textual.widgets import Static

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


async def wait_until(pilot, condition, what: str, tries: int = 1200) -> None:
    """Let the app run (workers, messages) until ``condition()`` holds."""
    for _ in range(tries):
        if condition():
            return
        await asyncio.sleep(0.05)
        await pilot.pause()
    raise AssertionError(f"timed out waiting for {what}")


async def wait_for_live(pilot, screen) -> None:
    for _ in range(1200):   # an upper bound for a busy machine; a quiet one takes a second
        if screen.live is not None:
            return
        await asyncio.sleep(0.05)
        await pilot.pause()
    raise AssertionError("the lesson's live tensors never arrived: " + text_of(screen, "#live-status"))


async def type_answer(pilot, text: str) -> None:
    await pilot.press(*list(text))
    await pilot.press("enter")
    await pilot.pause()


def record_notifications(app) -> list[tuple[str, dict]]:
    """Keep every notify() call as (message, options), and still show it."""
    seen, show = [], app.notify

    def notify(message, **options):
        seen.append((str(message), options))
        return show(message, **options)

    app.notify = notify
    return seen
