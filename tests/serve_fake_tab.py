"""A stand-in for a served tab's ``tutor`` process, speaking textual-serve's protocol as Textual's
web driver does, for tests of the server around it (tests/test_serve_faults.py).

It records its pid and window size in the folder given as its argument, then writes frames of
FRAME bytes for as long as it lives.  Like Textual, it reads its input in a thread and leaves
on a "quit" message only between frames: while a write blocks (a browser that stopped reading),
it cannot leave, which is what left the real tabs running.
"""
import json
import os
import sys
import threading
from pathlib import Path

FRAME = 16 << 20   # larger than every kernel buffer between the server and a client: a write of one pauses


def read_input(folder: Path, quit_: threading.Event) -> None:
    stdin = sys.stdin.buffer
    while header := stdin.read(5):
        payload = stdin.read(int.from_bytes(header[1:5], "big"))
        if header[:1] == b"M":
            meta = json.loads(payload)
            if meta.get("type") == "resize":
                (folder / f"{os.getpid()}.resize").write_text(f"{meta['width']}x{meta['height']}")
            if meta.get("type") == "quit":
                quit_.set()
    quit_.set()


def main() -> None:
    folder = Path(sys.argv[1])
    (folder / f"{os.getpid()}.pid").write_text(f"{os.environ['COLUMNS']}x{os.environ['ROWS']}")
    quit_ = threading.Event()
    threading.Thread(target=read_input, args=(folder, quit_), daemon=True).start()
    out = sys.stdout.buffer
    out.write(b"__GANGLION__\n")
    out.flush()
    frame = b"D" + FRAME.to_bytes(4, "big") + b"x" * FRAME
    while not quit_.is_set():
        out.write(frame)
        out.flush()


if __name__ == "__main__":
    main()
