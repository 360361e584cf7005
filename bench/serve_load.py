"""A class on one server: ``tutor serve`` with N simulated learners over WebSockets on loopback.

Run:  python bench/serve_load.py [--learners 1,5,10] [--keys 24] [--timeout 300] [--no-fork-server]

By default each tab is forked from the server's preloaded process (tutor.web.fork_server);
``--no-fork-server`` starts each from scratch, as tutor serve did before, to compare.  The
server's --max-sessions is set to the largest class size.

The script starts the real ``tutor serve`` on a free loopback port with a throwaway --home,
reads the address it prints (with any access token in it), and fetches that page as a
browser would (keeping any cookie it sets), then drives textual-serve's WebSocket protocol
(JSON text frames ``["stdin", keys]`` and ``["resize", {...}]`` in; the app's terminal
output as binary frames out) with the page's Origin.

For each N in ``--learners`` (one after another, on the same server) N learners join a
fraction of a second apart; each waits for its roadmap and its model, presses Enter to open
the first lesson, and waits for the answer box.  Once all are there they type at once, like
a class: ``--keys`` letters each at 80-200 ms intervals, timing every key from the moment it
is sent to the first output that shows it; after every 8 letters the learner clears the box,
types an answer and presses Enter (untimed).  With everyone still connected, the script sums
the memory of the server's child processes (one ``tutor`` per browser session).  Sessions
share the server's --home, so after the first class a learner may start in the lesson the
previous one left open instead of on the roadmap; either way they answer in that lesson.

Prints for each N: ``serve_sessions N``, ``rss_per_session_mb X`` (resident memory of one
session's processes), ``pss_per_session_mb`` (the pages that sessions have in common, such as
torch's libraries and the fork server's preloaded modules, shared among them),
``pss_per_learner_mb`` (the whole tree, the web server too, over N: what one more learner of a
class costs the machine, the figure beside a notebook learner's), ``join_p95_s``
(from connecting to a usable lesson), ``cpu_s_per_join`` (CPU time of the server and all its
processes until everyone could type, per learner: the machine-independent cost of a join; the
learners already in idle on their lesson meanwhile, so ``--learners 1,1,1`` gives one join
alone) and last ``keypress_p95_ms Y`` (goal with 10 learners on 2 cores: 100 at most).  Beside the
CPU per key it prints the time per key the server's and the sessions' threads waited for a CPU
that other work held (their run-queue time): what a busy machine adds to the latency.
Everything is bounded: at most ``--timeout`` seconds per N, and the server is stopped at the end.
"""
from __future__ import annotations

import argparse
import asyncio
import html
import os
import random
import re
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import aiohttp

ROADMAP_MARK = "lessons in"          # the roadmap's status line
MODEL_MARKS = ("model ready", "model failed")
LESSON_MARK = "our prediction"       # the answer box's placeholder; its first letter may be under the cursor
LETTERS = "xzqjvwky"                 # letters that escape sequences do not use
ANSWER = "\x15(2, 4)\r"              # ctrl+u clears the box, then an answer and Enter


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port: int) -> bool:
    """The address is printed before the server listens."""
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def tutor_command() -> list[str]:
    found = shutil.which("tutor")
    return [found] if found else [sys.executable, "-m", "tutor"]


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far."""
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return ticks / os.sysconf("SC_CLK_TCK")


def waiting_seconds(pids: list[int]) -> float:
    """Time the threads of these processes spent runnable but waiting for a CPU (the scheduler's
    run-queue time, /proc/PID/task/TID/schedstat): what other work on the machine adds to a keypress."""
    nanoseconds = 0
    for pid in pids:
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for thread in threads:
            try:
                with open(f"/proc/{pid}/task/{thread}/schedstat") as handle:
                    nanoseconds += int(handle.read().split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return nanoseconds / 1e9


def memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in KiB; (0, 0) when it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            fields = dict(line.split(":", 1) for line in handle if ":" in line)
        return int(fields["Rss"].split()[0]), int(fields["Pss"].split()[0])
    except (OSError, KeyError, ValueError):
        return 0, 0


class Learner:
    """One browser tab: the WebSocket, everything the app has drawn, and a way to wait for text."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.output = bytearray()
        self.changed = asyncio.Event()
        self.ws: aiohttp.ClientWebSocketResponse | None = None

    async def read(self) -> None:
        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.output += message.data
                self.changed.set()
            elif message.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                break

    async def wait_for(self, texts: tuple[str, ...] | str, since: int = 0, timeout: float = 120.0) -> float:
        """Seconds until any of ``texts`` shows in the output after byte ``since``."""
        texts = (texts,) if isinstance(texts, str) else texts
        start = time.perf_counter()
        while True:
            seen = bytes(self.output[since:]).decode("utf-8", "replace")
            if any(text in seen for text in texts):
                return time.perf_counter() - start
            self.changed.clear()
            left = timeout - (time.perf_counter() - start)
            if left <= 0:
                raise TimeoutError(f"{self.name}: waited {timeout:.0f} s for {texts!r}")
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except asyncio.TimeoutError:
                pass

    async def send_keys(self, keys: str) -> None:
        await self.ws.send_json(["stdin", keys])


async def connect(session: aiohttp.ClientSession, page_url: str, learner: Learner) -> None:
    """As a browser: fetch the page (and its cookie), then open the WebSocket it names."""
    async with session.get(page_url) as response:
        response.raise_for_status()
        page = await response.text()
    found = re.search(r'data-session-websocket-url="([^"]+)"', page)
    parts = urlsplit(page_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    ws_url = html.unescape(found.group(1)) if found else urljoin(page_url, "/ws")
    ws_url = ws_url.replace("http://", "ws://", 1).replace("https://", "wss://", 1)
    joiner = "&" if "?" in ws_url else "?"
    learner.ws = await session.ws_connect(f"{ws_url}{joiner}width=100&height=30", headers={"Origin": origin},
                                          max_msg_size=0)


async def one_learner(session, page_url: str, learner: Learner, keys: int, all_ready: asyncio.Event,
                      ready: list, latencies: list, done: asyncio.Event) -> None:
    started = time.perf_counter()
    await connect(session, page_url, learner)
    reader = asyncio.create_task(learner.read())
    try:
        await learner.ws.send_json(["resize", {"width": 100, "height": 30}])
        # the roadmap, or the lesson an earlier session left open: all sessions share the server's --home
        await learner.wait_for((ROADMAP_MARK, LESSON_MARK), timeout=180)
        await learner.wait_for(MODEL_MARKS, timeout=180)
        if LESSON_MARK not in bytes(learner.output).decode("utf-8", "replace"):
            mark = len(learner.output)
            await learner.send_keys("\r")                 # the roadmap's cursor starts on the first lesson
            await learner.wait_for(LESSON_MARK, since=mark, timeout=120)
        ready.append(time.perf_counter() - started)
        await all_ready.wait()
        typed = ""
        for i in range(keys):
            char = LETTERS[i % len(LETTERS)]
            typed += char
            mark = len(learner.output)
            sent = time.perf_counter()
            await learner.send_keys(char)
            await learner.wait_for(typed[-3:], since=mark, timeout=30)
            latencies.append(1000 * (time.perf_counter() - sent))
            await asyncio.sleep(random.uniform(0.08, 0.2))
            if (i + 1) % 8 == 0:
                await learner.send_keys(ANSWER)
                typed = ""
                await asyncio.sleep(0.5)
        await done.wait()                                  # stay connected until memory is measured
    finally:
        await learner.ws.close()
        reader.cancel()


async def run_class(page_url: str, server_pid: int, count: int, keys: int) -> dict:
    random.seed(count)
    latencies: list[float] = []
    ready: list[float] = []
    all_ready, done = asyncio.Event(), asyncio.Event()
    # unsafe=True: keep cookies from an IP address (127.0.0.1), as a browser does
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        learners = [Learner(f"learner {i + 1}") for i in range(count)]
        cpu_at_start = cpu_seconds([server_pid, *descendants(server_pid)])
        tasks = []
        for learner in learners:
            tasks.append(asyncio.create_task(one_learner(session, page_url, learner, keys, all_ready, ready,
                                                         latencies, done)))
            await asyncio.sleep(0.3)                       # a class does not press Enter in the same millisecond
        while len(ready) < count:
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()
            await asyncio.sleep(0.1)
        sessions = descendants(server_pid)
        # every process of the server (itself, the fork server, the sessions) until all could type
        join_cpu = cpu_seconds([server_pid, *sessions]) - cpu_at_start
        cpu_before, typing_started = cpu_seconds(sessions), time.perf_counter()
        waited_before = waiting_seconds([server_pid, *sessions])
        server_cpu_before = cpu_seconds([server_pid])
        all_ready.set()
        while len(latencies) < count * keys:
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()
            await asyncio.sleep(0.1)
        cpu = cpu_seconds(sessions) - cpu_before
        waited = waiting_seconds([server_pid, *sessions]) - waited_before
        typing = time.perf_counter() - typing_started
        server_cpu = cpu_seconds([server_pid]) - server_cpu_before
        sessions = descendants(server_pid)
        memory = [memory_kb(pid) for pid in sessions]
        web_server = memory_kb(server_pid)
        done.set()
        await asyncio.gather(*tasks)
    q = statistics.quantiles(latencies, n=100)
    return {"latencies": latencies, "p50": statistics.median(latencies), "p95": q[94], "max": max(latencies),
            "rss_mb": sum(r for r, _ in memory) / 1024 / count, "pss_mb": sum(p for _, p in memory) / 1024 / count,
            "tree_pss_mb": (web_server[1] + sum(p for _, p in memory)) / 1024 / count,
            "processes": len(sessions), "join_s": max(ready), "join_p95_s": p95(ready),
            "cpu_s_per_join": join_cpu / count, "cpu_ms_per_key": 1000 * cpu / (count * keys),
            "cores_busy": cpu / typing, "server_cores_busy": server_cpu / typing,
            "waiting_ms_per_key": 1000 * waited / (count * keys)}


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) > 1 else values[0]


def start_server(home: str, port: int, cache: str, extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "COLUMNS": "1000", "XDG_CACHE_HOME": cache, "TERM": "dumb"}
    command = tutor_command() + ["serve", "--port", str(port), "--home", home, *extra]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                              start_new_session=True)
    seen = ""
    deadline = time.monotonic() + 180   # the address comes once the tabs' preloaded process is ready
    while time.monotonic() < deadline:
        if select.select([server.stdout], [], [], 0.1)[0]:
            seen += os.read(server.stdout.fileno(), 65536).decode("utf-8", "replace")
        found = re.search(r"https?://[^\s'\"]+", seen)
        if found and f":{port}" in found.group(0) and listening(port):
            return server, found.group(0)
        if server.poll() is not None:
            break
    stop_server(server)
    raise SystemExit(f"tutor serve printed no address:\n{seen}")


def stop_server(server: subprocess.Popen) -> None:
    try:
        os.killpg(server.pid, signal.SIGINT)      # the server and every session it started
        server.wait(10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(server.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", default="1,5,10", help="class sizes, one after another (default 1,5,10)")
    parser.add_argument("--keys", type=int, default=24, help="letters each learner types (default 24)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds allowed per class size (default 300)")
    parser.add_argument("--no-fork-server", action="store_true",
                        help="start every tab's tutor from scratch (as before the fork server), to compare")
    args = parser.parse_args()
    sizes = [int(n) for n in args.learners.split(",")]
    if max(sizes) > 40:
        raise SystemExit("at most 40 learners: each session is a process with the model loaded")
    home = tempfile.mkdtemp(prefix="tutor-serve-bench-")
    extra = ("--max-sessions", str(max(sizes)), *(("--no-fork-server",) if args.no_fork_server else ()))
    server, url = start_server(str(Path(home) / "home"), free_port(), str(Path(home) / "cache"), extra)
    print(f"tutor serve at {urlsplit(url).netloc}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
          f"{args.keys} keys per learner", flush=True)
    results = {}
    try:
        for count in sizes:
            result = asyncio.run(asyncio.wait_for(run_class(url, server.pid, count, args.keys), args.timeout))
            results[count] = result
            print(f"serve_sessions {count}")
            print(f"  {result['processes']} processes; pss {result['pss_mb']:.0f} MB per session; slowest join "
                  f"{result['join_s']:.1f} s; keypress p50 {result['p50']:.1f} ms, max {result['max']:.1f} ms over "
                  f"{len(result['latencies'])} keys; load average {os.getloadavg()[0]:.2f}")
            print(f"  while typing the sessions used {result['cores_busy']:.2f} cores and the web server "
                  f"{result['server_cores_busy']:.2f}, "
                  f"{result['cpu_ms_per_key']:.1f} ms of CPU per key (answers and their grading included), and "
                  f"waited {result['waiting_ms_per_key']:.1f} ms per key for a CPU that other work held")
            print(f"rss_per_session_mb {result['rss_mb']:.0f}")
            print(f"pss_per_session_mb {result['pss_mb']:.0f}")
            print(f"pss_per_learner_mb {result['tree_pss_mb']:.0f}")
            print(f"join_p95_s {result['join_p95_s']:.1f}")
            print(f"cpu_s_per_join {result['cpu_s_per_join']:.2f}")
            print(f"keypress_p95_ms {result['p95']:.1f}", flush=True)
            time.sleep(2)                                   # the sessions of this class exit
    finally:
        stop_server(server)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
