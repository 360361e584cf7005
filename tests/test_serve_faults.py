"""``tutor serve`` under faults: a connection that drops while a frame is being written frees its
place and stops its tab, and a client cannot ask for a window of any size (2026-12-reliability.md
row 36).  The server runs here in-process around a stand-in tab (tests/serve_fake_tab.py), so
twenty tabs cost no tutor start each."""
import asyncio
import json
import os
import shlex
import socket
import struct
import sys
import time
from pathlib import Path

import pytest
from aiohttp import web

from tutor.web.server import Listen, make_server
from tutor.web.tab_process import MAX_COLUMNS, MAX_ROWS, window_size

FAKE_TAB = Path(__file__).resolve().parent / "serve_fake_tab.py"
HANDSHAKE = ("GET /ws?width={width}&height={height} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
             "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
HANG = 60   # seconds: a deadline for something that hangs, not a speed check


@pytest.fixture
async def server(tmp_path):
    """A served stand-in tab on a free port, at most 4 tabs at once: (the server, its port, the tabs' folder)."""
    tabs = tmp_path / "tabs"
    tabs.mkdir()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = shlex.join([sys.executable, str(FAKE_TAB), str(tabs)])
    served = make_server(command, Listen("127.0.0.1", port), None, max_sessions=4)
    runner = web.AppRunner(await served._make_app())
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield served, port, tabs
    finally:
        await runner.cleanup()
        for pid in pids(tabs):   # a failed test's tabs must not outlive it
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass


def pids(tabs: Path) -> list[int]:
    return [int(path.stem) for path in tabs.glob("*.pid")]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1] != "Z"   # a zombie has ended


async def open_tab(port: int, width="100", height="30") -> tuple[socket.socket, bytes]:
    """A WebSocket to the server with a small receive buffer, and what it received once the tab's
    first frame began to arrive (the HTTP 101 and the frame's first bytes), or the refusal."""
    loop = asyncio.get_running_loop()
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)   # before connect: the frame cannot fit
    client.setblocking(False)
    await loop.sock_connect(client, ("127.0.0.1", port))
    await loop.sock_sendall(client, HANDSHAKE.format(width=width, height=height, port=port).encode())
    received = b""
    while b"\r\n\r\n" not in received or (received.startswith(b"HTTP/1.1 101") and
                                           len(received) - received.index(b"\r\n\r\n") < 1000):
        more = await asyncio.wait_for(loop.sock_recv(client, 4096), HANG)
        if not more:
            break
        received += more
    return client, received


def reset(client: socket.socket) -> None:
    """Drop the connection as a crashed browser or a lost network does: a TCP reset, nothing read."""
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()


async def until(condition, what: str) -> None:
    deadline = time.monotonic() + HANG
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def test_twenty_connections_dropped_mid_frame_leave_no_tab_running_and_a_place_for_the_next(server):
    """textual-serve's stop re-raised the 'Connection lost' of a tab whose browser went away mid-frame:
    the place was never freed (the fifth tab of four got 503) and the tab ran on (466 MB each)."""
    served, port, tabs = server
    for attempt in range(20):
        client, received = await open_tab(port)
        assert received.startswith(b"HTTP/1.1 101"), (attempt, received[:200])
        reset(client)
        await until(lambda: served.open_sessions < 4, f"the dropped tab {attempt} kept its place")
    await until(lambda: served.open_sessions == 0, "a dropped tab kept its place")
    assert len(pids(tabs)) == 20
    await until(lambda: not any(alive(pid) for pid in pids(tabs)), "a dropped tab's process is still running")
    client, received = await open_tab(port)
    assert received.startswith(b"HTTP/1.1 101") and b"__GANGLION__" not in received   # the tab's frame flows
    reset(client)


async def test_the_window_a_client_asks_for_is_capped(server):
    """A client asking for 5000×5000 made a tab draw 25 million cells per frame."""
    served, port, tabs = server
    client, received = await open_tab(port, "5000", "99999999999999999999")
    assert received.startswith(b"HTTP/1.1 101")
    await until(lambda: pids(tabs), "the tab did not start")
    pid = pids(tabs)[0]
    assert (tabs / f"{pid}.pid").read_text() == f"{MAX_COLUMNS}x{MAX_ROWS}"
    resize = json.dumps(["resize", {"width": 3000, "height": 3000}]).encode()
    # a client's frame: text, masked (with a zero mask, which leaves the bytes as they are)
    await asyncio.get_running_loop().sock_sendall(client, bytes([0x81, 0x80 | len(resize)]) + bytes(4) + resize)
    await until(lambda: (tabs / f"{pid}.resize").exists(), "the resize did not reach the tab")
    assert (tabs / f"{pid}.resize").read_text() == f"{MAX_COLUMNS}x{MAX_ROWS}"
    reset(client)


def test_window_sizes_are_whole_numbers_within_the_caps():
    assert window_size(120, 40) == (120, 40)
    assert window_size("120", "40") == (120, 40)
    assert window_size(10**9, -5) == (MAX_COLUMNS, 1)
    assert window_size("wide", None) == (80, 24)
    assert window_size(float("inf"), True) == (80, 24)
    assert window_size(150.7, "1e9") == (150, 24)
