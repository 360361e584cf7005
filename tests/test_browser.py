"""``tutor serve`` in a real browser: Debian's Chromium, driven by Playwright for Python (never a
browser of Playwright's own download).  A learner opens the printed address, opens the first
lesson, answers, sees the verdict and switches to Chinese, and no request leaves the machine.

The terminal is drawn on a canvas, so what the learner sees is read from what the page received
on its WebSocket (the app's screen updates), where every word on the screen arrives.  Skipped
where Chromium or playwright is not installed; ``.ci/run`` installs both."""
import asyncio
import re
import shutil
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from serve_process import running_serve

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WAIT = 180   # seconds: a deadline for a screen that never comes, not a speed check
CJK = re.compile(r"[\u4e00-\u9fff]")


class Screen:
    """Everything the page's WebSocket has received, as text, and waits for a word in it."""

    def __init__(self) -> None:
        self.text = ""

    def received(self, payload) -> None:
        self.text += payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload

    async def shows(self, pattern: str | re.Pattern, since: int = 0) -> int:
        deadline = time.monotonic() + WAIT
        while not re.search(pattern, self.text[since:]):
            assert time.monotonic() < deadline, f"never shown: {pattern!r}; last: {self.text[-400:]!r}"
            await asyncio.sleep(0.1)
        return len(self.text)


@pytest.fixture
async def browser():
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    playwright_api = pytest.importorskip("playwright.async_api")
    async with playwright_api.async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--no-first-run"])
        try:
            yield launched
        finally:
            await launched.close()


async def test_a_learner_answers_in_chromium_and_switches_to_chinese_with_nothing_fetched_elsewhere(browser, tmp_path):
    with running_serve(tmp_path) as (base, token, port):
        context = await browser.new_context(locale="en-US", viewport={"width": 1100, "height": 700})
        requested, screen = [], Screen()

        async def only_here(route) -> None:
            requested.append(route.request.url)
            if urlsplit(route.request.url).netloc == f"127.0.0.1:{port}":
                await route.continue_()
            else:
                await route.abort()

        await context.route("**/*", only_here)
        page = await context.new_page()
        sockets = []

        def on_websocket(websocket) -> None:
            sockets.append(websocket.url)
            websocket.on("framereceived", screen.received)

        page.on("websocket", on_websocket)
        await page.goto(f"{base}/?token={token}")
        await screen.shows("lessons in")                     # the roadmap's status line
        await screen.shows("model ready|model failed")
        await page.locator(".xterm-helper-textarea").focus()   # the keyboard, without a click on a row
        mark = len(screen.text)
        await page.keyboard.press("Enter")                   # the first lesson
        mark = await screen.shows("your prediction", since=mark)
        await page.keyboard.type("(2, 4)")
        await page.keyboard.press("Enter")
        mark = await screen.shows("Not quite|Correct|Right", since=mark)
        await page.keyboard.press("F4")                      # the language toggle
        await screen.shows(CJK, since=mark)
        await page.screenshot(path=str(tmp_path / "chinese.png"))
        assert Path(tmp_path / "chinese.png").stat().st_size > 0
        await context.close()
    assert requested and all(urlsplit(url).netloc == f"127.0.0.1:{port}" for url in requested), requested
    assert sockets and all(urlsplit(url).netloc == f"127.0.0.1:{port}" for url in sockets), sockets


async def test_a_student_hands_in_from_chromium_under_the_name_they_type(browser, tmp_path, monkeypatch):
    """The hand-in walk of docs/class.md in the browser: the palette, "Hand in my progress", the name field
    (filled with the login) emptied with Ctrl+U, a name typed, Enter; the export lands in the exchange."""
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    exchange.chmod(0o1733)
    monkeypatch.setenv("TUTOR_CLASS_EXCHANGE", str(exchange))
    (tmp_path / "home").mkdir()
    with running_serve(tmp_path / "home") as (base, token, _port):
        context = await browser.new_context(locale="en-US", viewport={"width": 1100, "height": 700})
        page = await context.new_page()
        screen = Screen()
        page.on("websocket", lambda websocket: websocket.on("framereceived", screen.received))
        await page.goto(f"{base}/?token={token}")
        mark = await screen.shows("lessons in")
        await page.locator(".xterm-helper-textarea").focus()
        await page.keyboard.press("Control+p")
        mark = await screen.shows("Search", since=mark)
        await page.keyboard.type("Hand in my")
        mark = await screen.shows("progress", since=mark)
        await page.keyboard.press("Enter")
        mark = await screen.shows(r"Hand in \(Enter\)", since=mark)
        await page.keyboard.press("Control+u")
        await page.keyboard.type("ana")
        await page.keyboard.press("Enter")
        await screen.shows("Handed in", since=mark)
        await page.screenshot(path=str(tmp_path / "handed-in.png"))
        await context.close()
    assert [path.name for path in exchange.iterdir()] == ["ana.json.gz"]
