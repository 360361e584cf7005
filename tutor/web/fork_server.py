"""Tabs forked from one preloaded process, so a server's sessions share what they all import.

Why: each browser tab of ``tutor serve`` is its own ``tutor`` process, and importing torch alone
leaves ~140 MB of private memory in each (libtorch's operator registry, built by its static
initialisers) plus Textual, SymPy, NumPy and the tutor: ~255 MB PSS per tab, and 2-3 s of CPU
before a tab can draw, which ten tabs joining at once queue for on two cores.  Here one process
imports all that once; each tab is a fork of it, sharing those pages copy-on-write, and starts
drawing at once.

How: textual-serve runs a shell command per tab and talks to it over its stdin/stdout.  That
command (``launcher_command``) is a tiny Python that hands its own stdin, stdout and stderr to
this server over a Unix socket (SCM_RIGHTS), with its argv, environment and working folder; the
server forks, the child takes those descriptors and runs ``tutor`` as the command line would,
and the launcher waits for the child's exit status and exits with it.  If the server cannot be
reached the launcher runs ``python -m tutor`` itself, so a tab always starts.

The socket lives in a new folder only this account can enter.  The server imports but starts
no thread and no event loop before forking (a fork copies only the calling thread), and each
child reseeds its random generators, which it would otherwise share with its siblings.
"""
from __future__ import annotations

import json
import os
import shlex
import select
import signal
import socket
import struct
import sys
from pathlib import Path

from tutor.web.hub_service import without_hub_settings

MAX_REQUEST = 1 << 20
# What each tab needs before it can draw its roadmap and first lesson; imported once, here (a
# module a tab imports itself costs every tab its CPU and its own copy of the module's memory).
# Not torch._dynamo: nothing a tab does imports it since model.checkpoint stopped running
# initialisers on meta tensors, and it cost every server ~70 MB and ~2 s of CPU.  torch itself
# imports torch.distributed.
PRELOAD = ("torch", "torch.utils.serialization", "numpy", "sympy", "yaml", "textual.app",
           "textual.drivers.web_driver", "textual.layouts.horizontal", "textual.layouts.stream", "textual.scrollbar",
           "tutor.cli.main", "tutor.ui.app", "tutor.ui.screens.lesson", "tutor.ui.reload_check", "tutor.live.hub",
           "tutor.live.compute", "tutor.live.formula_check", "tutor.experiments.registry", "tutor.formulas.display",
           "tutor.grading.quiz", "tutor.course.catalog", "tutor.course.loader", "tutor.course.watcher",
           "tutor.model.checkpoint", "tutor.model.presets", "tutor.progress.store", "tutor.training.runs")

# The launcher: stdlib only, no site packages (-I -S), so it costs a few MB and milliseconds.
LAUNCHER = """
import json, os, socket, struct, sys
path, argv = sys.argv[1], sys.argv[2:]
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    request = json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    socket.send_fds(s, [struct.pack("!I", len(request)) + request], [0, 1, 2])
    status = s.recv(4)
except OSError:
    os.execv(sys.executable, [sys.executable, "-m", "tutor", *argv])
sys.exit(struct.unpack("!i", status)[0] if len(status) == 4 else 1)
"""


def launcher_command(socket_path: Path, tutor_args: list[str]) -> str:
    """The shell command textual-serve runs for a tab: the launcher, then the tutor's own arguments."""
    return shlex.join([sys.executable, "-I", "-S", "-c", LAUNCHER, str(socket_path), *tutor_args])


class ForkServer:
    """The fork server as ``tutor serve`` runs it: a child process, its private folder, its command."""

    def __init__(self, folder: Path, process) -> None:
        self.folder, self.process = folder, process
        self.socket_path = folder / "tabs.sock"

    @classmethod
    def start(cls, lesson_dirs: list[Path] = ()) -> "ForkServer":
        """Started in the background (see wait_ready); until it listens, the launcher runs tabs the plain way.
        ``lesson_dirs``: the tabs' --lessons folders (absolute), whose lessons it reads ahead."""
        import subprocess
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="tutor-tabs-"))   # 0700: only this account may connect
        # not the hub's settings and token (tutor serve --hub, --hub-service): every tab is a fork of this
        # process and takes its environment from its launcher; nothing here needs the hub's credentials
        environment = without_hub_settings(dict(os.environ))
        process = subprocess.Popen([sys.executable, "-m", "tutor.web.fork_server", str(folder / "tabs.sock"),
                                    str(os.getpid()), *map(str, lesson_dirs)],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=environment)
        return cls(folder, process)

    def wait_ready(self, timeout: float) -> bool:
        """Until the socket listens (True), or the fork server died or took longer than ``timeout``."""
        import time

        deadline = time.monotonic() + timeout
        while not self.socket_path.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def command(self, tutor_args: list[str]) -> str:
        return launcher_command(self.socket_path, tutor_args)

    def stop(self) -> None:
        import shutil

        self.process.terminate()
        try:
            self.process.wait(10)
        except Exception:
            self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def preload() -> None:
    import gc
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    limit_threads()
    gc.collect()
    gc.freeze()   # the collector never walks (and so never dirties) what every tab shares


def warm_lesson_cache(lesson_dirs: list[Path]) -> None:
    """Every tab starts from the lesson cache (tutor.course.cache).  Where there is none yet (a new
    machine or account, a lesson edited), each of ten tabs joining at once read and validated
    every lesson file itself, ~0.5 CPU-s apiece; read here once per language, each tab finds it
    fresh.  A folder that does not load is left for each tab to report on its own screen."""
    from tutor.common.i18n import LANGUAGES
    from tutor.course.cache import open_catalog

    for language in LANGUAGES:
        try:
            open_catalog(lesson_dirs, language=language)
        except Exception:   # the tab's own start meets it again and shows it
            pass


def limit_threads() -> None:
    """torch's thread counts for every tab forked from here (see tutor.web.TAB_THREADS).  Set once,
    before any fork: a thread count set in each child would come after torch read its own, and
    the inter-op count can only be set before torch's first parallel work."""
    import torch

    from tutor.web import tab_threads

    torch.set_num_threads(tab_threads(os.environ))
    torch.set_num_interop_threads(1)


def child(request: dict, fds: list[int]) -> None:
    """In the forked child: become the tab's ``tutor`` process; never returns."""
    code = 1
    try:
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        for fd in fds:
            os.close(fd)
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in request["env"].items()})
        os.chdir(request["cwd"])
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        reseed()
        import importlib

        import textual.constants   # read the tab's environment (TEXTUAL_DRIVER, COLUMNS...), not ours
        importlib.reload(textual.constants)
        import runpy

        sys.argv = ["tutor", *[str(arg) for arg in request["argv"]]]
        runpy.run_module("tutor", run_name="__main__", alter_sys=True)   # as ``python -m tutor`` runs
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:   # the tab's own error: shown on its stderr, as a separate process would
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def reseed() -> None:
    import random

    random.seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    if "torch" in sys.modules:
        sys.modules["torch"].seed()


def receive(connection: socket.socket) -> tuple[dict, list[int]]:
    message, fds, _flags, _address = socket.recv_fds(connection, MAX_REQUEST, 3)
    size = struct.unpack("!I", message[:4])[0]
    body = message[4:]
    while len(body) < size:
        more = connection.recv(size - len(body))
        if not more:
            break
        body += more
    return json.loads(body), fds


def serve(socket_path: Path, parent: int, lesson_dirs: list[Path] = ()) -> None:
    """Accept launchers until the parent (the ``tutor serve`` that started us) is gone."""
    preload()
    warm_lesson_cache(list(lesson_dirs))
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(socket_path))
    listener.listen(64)
    waiting: dict[int, socket.socket] = {}   # child pid -> its launcher's connection
    for signum in (signal.SIGTERM, signal.SIGINT):   # run the finally: the tabs end with us
        signal.signal(signum, leave)
    try:
        while os.getppid() == parent:
            reap(waiting)
            # 0.2 s: how soon a finished tab's status reaches its launcher, and a dead launcher's tab ends
            ready = readable([listener, *waiting.values()], 0.2)
            end_abandoned(waiting, ready)
            if listener.fileno() not in ready:
                continue
            connection, _ = listener.accept()
            connection.settimeout(None)
            try:
                request, fds = receive(connection)
            except (OSError, ValueError, struct.error):
                connection.close()
                continue
            pid = os.fork()
            if pid == 0:
                listener.close()
                for other in waiting.values():
                    other.close()
                connection.close()
                child(request, fds)
            for fd in fds:
                os.close(fd)
            waiting[pid] = connection
    finally:
        for pid in waiting:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def leave(*_) -> None:
    """Leave once: Ctrl+C reaches us with ``tutor serve``, whose SIGTERM then follows while we exit."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(0)


def readable(sockets: list[socket.socket], timeout: float) -> set[int]:
    """The descriptors among ``sockets`` with something to read, or at their end (poll: no limit
    on descriptor numbers, as select has)."""
    poller = select.poll()
    for one in sockets:
        poller.register(one, select.POLLIN)
    try:
        return {fd for fd, _event in poller.poll(timeout * 1000)}
    except InterruptedError:
        return set()


def end_abandoned(waiting: dict[int, socket.socket], ready: set[int]) -> None:
    """Kill the tabs whose launcher is gone.  A launcher sends nothing after its request, so a
    readable connection is one at its end: textual-serve stopped the tab's process group (its
    browser went away), and the tab itself, a child of ours, must not outlive it (it may be
    blocked writing a frame to a pipe nobody reads).  SIGKILL: a tab in that state handles nothing."""
    for pid, connection in list(waiting.items()):
        if connection.fileno() in ready:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            connection.close()
            del waiting[pid]   # reap() collects it, and has nobody to tell


def reap(waiting: dict[int, socket.socket]) -> None:
    """Tell each finished tab's launcher its exit status."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = waiting.pop(pid, None)
        if connection is not None:
            try:
                connection.sendall(struct.pack("!i", os.waitstatus_to_exitcode(status)))
            except OSError:
                pass
            connection.close()


if __name__ == "__main__":
    serve(Path(sys.argv[1]), int(sys.argv[2]), [Path(folder) for folder in sys.argv[3:]])
