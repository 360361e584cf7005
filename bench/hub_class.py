"""A class on a real JupyterHub, on loopback: N learners, each with their own tutor, timed.

Run (in an environment with the tutor installed with its ``jupyter`` extra, plus jupyterhub and
jupyterlab or jupyter_server, and configurable-http-proxy from the npm registry):

    python bench/hub_class.py --learners 5 [--proxy PATH/configurable-http-proxy] [--keys 16]
                              [--profile launcher|standalone] [--no-notebook]

The script writes a hub configuration into a throwaway folder and starts JupyterHub on
127.0.0.1: the dummy authenticator (any name logs in), the local process spawner in its
``simple`` form (each hub user a home folder of their own under the throwaway folder, all run
by this account: the same processes a real hub starts, without creating system users), and
configurable-http-proxy.  Then N learners, a third of a second apart, each: log in through the
hub's login form, wait for their server, open ``/user/NAME/tutor/`` (jupyter-server-proxy
starts that user's ``tutor serve`` through the entry point the ``jupyter`` extra registers),
open its WebSocket as textual.js does, wait for the roadmap and the model, press Enter for the
first lesson and wait for the answer box.  Once everyone is there they type ``--keys`` letters
at 80-200 ms intervals, each timed from sending to its echo, then submit an answer of their
own (a shape no one else types) and wait for the tutor's verdict.

Prints ``hub_learners N``, ``separate_homes yes|no`` (each learner's answer is in their own
home's progress database and in no other's), ``join_p95_s`` (from the login form to a usable
lesson), ``keypress_p95_ms``, ``pss_mb_per_learner`` (proportional memory of the tutor's
processes per learner: each user's ``tutor serve`` and tab; their Jupyter server beside it) and
``cpu_s_per_join`` (CPU time of the hub's processes from the first login until every learner
could type, per learner, split above it into the tutor, the users' Jupyter servers, the hub and
proxy: the machine-independent cost of a join, where the wall-clock join depends on the load).
Everything runs on 127.0.0.1 and is stopped at the end, also on failure.

``--profile standalone`` runs the tutor-only hub of docs/class.md instead: the hub spawns
jupyter-server-proxy's standalone proxy with the tutor behind it (no Jupyter server), and the
tutor is at ``/user/NAME/``.  Then, unless ``--no-notebook``, a JupyterLab learner running one
notebook kernel that imports torch and this model is measured alone (bench/notebook_learner.py):
``learner_pss_mb`` (a tutor learner: their tutor and the server beside it),
``notebook_learner_pss_mb`` and ``learner_to_notebook_ratio`` (goal in the standalone profile: 0.75).

``--profile hub`` runs the tutor-only hub without the proxy: the hub spawns ``tutor serve --hub``,
which checks the hub's login itself (tutor.web.hub_login); the tutor is at ``/user/NAME/``, and the
comparison with a notebook learner is printed as for ``standalone``.

``--profile service`` runs one tutor for the whole hub: a managed JupyterHub service
(``tutor serve --hub-service``, at ``/services/tutor/``), each learner's tab forked from its one
preloaded process, in a home of their own under the service's data folder; no learner has a server
of their own.  The learners start once the service listens (a teacher starts it before class).
Then, unless ``--no-notebook``, N notebook learners at once (bench/notebook_learner.py
``--learners N``) are measured beside them: per-learner PSS of each, and the ratio (goal: 0.75).

``--system-users`` spawns each learner as the system account ``learnerN`` (``useradd -m``, as root;
the environment must be one every account can run, docs/class.md), in its own home; a home that
already holds tutor progress opens in its last lesson, not the roadmap, so start from fresh homes.
``--hand-in EXCHANGE`` sets ``TUTOR_CLASS_EXCHANGE`` for the learners' servers and has each hand in
from the app after answering (ctrl+p, "Hand in my progress", Enter, a name, Enter), as ana, ben,
张伟 in turn.  The waits read the screen with its escape sequences removed (Textual draws a label
in styled pieces with cursor moves between them); one that times out writes the tab's frames to
``NAME.frames`` in the throwaway folder (kept with ``--keep``).
"""
from __future__ import annotations

import argparse
import asyncio
import html
import os
import random
import re
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_load import (LESSON_MARK, LETTERS, MODEL_MARKS, ROADMAP_MARK, Learner, cpu_seconds,  # noqa: E402
                        descendants, free_port, listening, memory_kb, p95)

VERDICT_MARKS = ("Not quite", "Correct", "Right")
HAND_IN_NAMES = ("ana", "ben", "张伟")       # what each learner types in the hand-in's name field, in turn
ESCAPES = re.compile(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])")


def screen_text(learner: Learner, since: int = 0) -> str:
    """What the tab drew after byte ``since`` with the terminal's escape sequences taken out: Textual
    styles a word in pieces and moves the cursor between them, so a label is one string only here."""
    return ESCAPES.sub(b"", bytes(learner.output[since:])).decode("utf-8", "replace")


async def wait_on_screen(learner: Learner, texts: tuple[str, ...], since: int, timeout: float,
                         frames: Path | None) -> None:
    """Until one of ``texts`` is drawn; on a timeout the tab's frames are written to ``frames`` (why it hung)."""
    deadline = time.monotonic() + timeout
    while not any(text in screen_text(learner, since) for text in texts):
        learner.changed.clear()
        if time.monotonic() > deadline:
            if frames is not None:
                frames.write_bytes(bytes(learner.output))
            raise TimeoutError(f"{learner.name}: waited {timeout:.0f} s for {texts!r}"
                               + (f"; the tab's frames are in {frames}" if frames else ""))
        try:
            await asyncio.wait_for(learner.changed.wait(), 1)
        except asyncio.TimeoutError:
            pass


async def hand_in_from_app(learner: Learner, name: str | None, frames: Path | None) -> None:
    """As a student does: ctrl+p, "Hand in my progress", Enter, their name in the field, Enter; then
    the app's "Handed in ..." message.  ``name`` None: a hub service's tab, which hands in under the
    hub login without asking."""
    mark = len(learner.output)
    await learner.send_keys("\x10")                       # ctrl+p: the command palette
    await wait_on_screen(learner, ("Search",), mark, 60, frames)
    mark = len(learner.output)
    await learner.send_keys("Hand in my")
    await wait_on_screen(learner, ("progress",), mark, 60, frames)
    mark = len(learner.output)
    await learner.send_keys("\r")
    if name is not None:
        await wait_on_screen(learner, ("Hand in (Enter)",), mark, 60, frames)
        mark = len(learner.output)
        await type_name(learner, name, frames)
    await wait_on_screen(learner, ("Handed in", "Permission denied"), mark, 120, frames)
    if "Handed in" not in screen_text(learner, mark):
        raise RuntimeError(f"{learner.name}: the hand-in was refused: {screen_text(learner, mark)[-300:]!r}")


async def type_name(learner: Learner, name: str, frames: Path | None) -> None:
    """The name field: Ctrl+U and the name in one message, then Enter."""
    mark = len(learner.output)
    await learner.send_keys(f"\x15{name}")                 # ctrl+u empties the field the login filled, in one message
    await wait_on_screen(learner, (name,), mark, 60, frames)
    await learner.send_keys("\r")


SERVICE = "tutor"   # the service's name in the hub: its pages are at /services/tutor/


def tutor_url(base: str, name: str, profile: str) -> str:
    """Where a learner opens the tutor: their own server's, or the hub service's."""
    if profile == "service":
        return f"{base}/services/{SERVICE}/"
    return f"{base}/user/{name}/{spawner_command(profile)[2]}"


def service_config(root: Path, service_port: int, environment: dict) -> str:
    """The hub's settings for --profile service (docs/class.md): the tutor as a managed service every
    user may open (the user role gains access:services!service=tutor), without the OAuth consent page."""
    command = [sys.executable, "-m", "tutor", "serve", "--hub-service", "--home", str(root / "service-data")]
    service = {"name": SERVICE, "url": f"http://127.0.0.1:{service_port}", "command": command,
               "oauth_no_confirm": True, "environment": environment}
    return f"""
c.JupyterHub.services.append({service!r})
c.JupyterHub.load_roles.append({{"name": "user", "scopes": ["self", "access:services!service={SERVICE}"]}})
"""


def spawner_command(profile: str) -> tuple[list[str], list[str], str]:
    """(Spawner.cmd, Spawner.args, the tutor's path under /user/NAME/) for a hub profile (docs/class.md)."""
    def here(name: str) -> str:
        return shutil.which(name, path=str(Path(sys.executable).parent)) or name

    if profile == "hub":   # the hub starts the tutor itself, which checks the hub's login (tutor serve --hub)
        return [sys.executable, "-m", "tutor", "serve", "--hub", "--max-sessions", "3", "--no-fork-server"], [], ""
    if profile == "standalone":   # the hub starts jupyter-server-proxy's standalone proxy and the tutor behind it
        return ([here("jupyter-standaloneproxy"), "--unix-socket=True", "--timeout=60", "--", sys.executable, "-m",
                 "tutor", "serve", "--unix-socket", "{unix_socket}", "--max-sessions", "3", "--no-fork-server"], [], "")
    return [here("jupyterhub-singleuser")], ["--allow-root"] if os.geteuid() == 0 else [], "tutor/"


def hub_config(root: Path, port: int, api_port: int, hub_port: int, proxy: str, token: str,
               profile: str = "launcher", system_users: bool = False, exchange: str = "",
               extra_env: tuple[str, ...] = (), service_port: int = 0) -> str:
    command, arguments, _path = spawner_command("hub" if profile == "service" else profile)
    if system_users:   # each learner the system user of that name (useradd -m), in their own home
        spawner = 'c.JupyterHub.spawner_class = "localprocess"'
        cache = ""
    else:
        homes = str(root / "homes" / "{username}")
        spawner = f'c.JupyterHub.spawner_class = "simple"\nc.SimpleLocalProcessSpawner.home_dir_template = {homes!r}'
        cache = f'"XDG_CACHE_HOME": {str(root / "cache")!r}, '
    exchange_setting = f'"TUTOR_CLASS_EXCHANGE": {exchange!r}, ' if exchange else ""
    exchange_setting += "".join(f"{key!r}: {value!r}, " for key, _eq, value in (e.partition("=") for e in extra_env))
    return f"""
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.pid_file = {str(root / 'proxy.pid')!r}
c.JupyterHub.db_url = "sqlite:///{root / 'hub.sqlite'}"
c.JupyterHub.cookie_secret_file = {str(root / 'cookie_secret')!r}
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
{spawner}
c.Spawner.cmd = {command!r}
c.Spawner.ip = "127.0.0.1"
c.Spawner.args = {arguments!r}   # --allow-root for a container's root, as on this bench machine
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
c.Spawner.environment = {{{cache}{exchange_setting}"LANG": "C.UTF-8",
                         "OMP_NUM_THREADS": "1", "JUPYTER_PREFER_ENV_PATH": "1"}}
c.JupyterHub.services = [{{"name": "bench", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": "bench", "scopes": ["admin:users", "admin:servers", "list:users"],
                            "services": ["bench"]}}]
c.JupyterHub.cleanup_servers = True
""" + (service_config(root, service_port, {**({"XDG_CACHE_HOME": str(root / "cache")} if not system_users else {}),
                                          **({"TUTOR_CLASS_EXCHANGE": exchange} if exchange else {}),
                                          **dict(e.partition("=")[::2] for e in extra_env),
                                          "LANG": "C.UTF-8", "OMP_NUM_THREADS": "1"})
       if profile == "service" else "")


async def log_in(session: aiohttp.ClientSession, base: str, name: str) -> None:
    async with session.get(f"{base}/hub/login") as response:
        page = await response.text()
    found = re.search(r'name="_xsrf"\s+value="([^"]+)"', page)
    form = {"username": name, "password": "class"}
    if found:
        form["_xsrf"] = html.unescape(found.group(1))
    async with session.post(f"{base}/hub/login?next=", data=form, allow_redirects=False) as response:
        if response.status != 302:   # logged in: a cookie and a redirect (the server is started by the API)
            raise RuntimeError(f"{name}: login answered {response.status}")


async def wait_ready(api: aiohttp.ClientSession, base: str, name: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    async with api.post(f"{base}/hub/api/users/{name}/server") as response:
        if response.status not in (201, 202, 400):   # 400: already running or starting
            raise RuntimeError(f"{name}: spawn answered {response.status}: {await response.text()}")
    while time.monotonic() < deadline:
        async with api.get(f"{base}/hub/api/users/{name}") as response:
            server = ((await response.json()).get("servers") or {}).get("")
        if server and server.get("ready"):
            return
        await asyncio.sleep(0.5)
    raise TimeoutError(f"{name}: server not ready after {timeout:.0f} s")


async def one_learner(base: str, api, index: int, keys: int, all_ready: asyncio.Event, ready: list,
                      latencies: list, done: asyncio.Event, profile: str = "launcher",
                      hand_in: bool = False, frames: Path | None = None) -> None:
    name = f"learner{index + 1}"
    learner = Learner(name)
    jar = aiohttp.CookieJar(unsafe=True)
    async with aiohttp.ClientSession(cookie_jar=jar, headers={"Accept-Language": "en"}) as session:
        started = time.perf_counter()
        await log_in(session, base, name)
        if profile != "service":   # the service is the hub's, already running: no server of one's own
            await wait_ready(api, base, name, 300)
        page_url = tutor_url(base, name, profile)
        for _attempt in range(120):   # jupyter-server-proxy starts tutor serve on the first request
            async with session.get(page_url) as response:
                page = await response.text()
                if response.status == 200 and "textual.js" in page:
                    break
            await asyncio.sleep(1)
        else:
            raise RuntimeError(f"{name}: {page_url} never served the tutor page ({response.status})")
        learner.ws = await session.ws_connect(f"{page_url.replace('http', 'ws', 1)}ws?width=100&height=30",
                                              headers={"Origin": base}, max_msg_size=0)
        reader = asyncio.create_task(learner.read())
        try:
            await learner.ws.send_json(["resize", {"width": 100, "height": 30}])
            await learner.wait_for(ROADMAP_MARK, timeout=300)
            await learner.wait_for(MODEL_MARKS, timeout=300)
            mark = len(learner.output)
            await learner.send_keys("\r")
            await learner.wait_for(LESSON_MARK, since=mark, timeout=120)
            ready.append(time.perf_counter() - started)
            await all_ready.wait()
            typed = ""
            for i in range(keys):
                typed += LETTERS[i % len(LETTERS)]
                mark = len(learner.output)
                sent = time.perf_counter()
                await learner.send_keys(typed[-1])
                await learner.wait_for(typed[-3:], since=mark, timeout=60)
                latencies.append(1000 * (time.perf_counter() - sent))
                await asyncio.sleep(random.uniform(0.08, 0.2))
            mark = len(learner.output)
            await learner.send_keys(f"\x15{own_answer(index)}\r")   # ctrl+u clears the box first
            await wait_on_screen(learner, VERDICT_MARKS, mark, 120, frames and frames / f"{name}.frames")
            if hand_in:
                await hand_in_from_app(learner, None if profile == "service" else HAND_IN_NAMES[index % len(HAND_IN_NAMES)],
                                       frames and frames / f"{name}.frames")
            await done.wait()                                          # connected until memory is measured
        finally:
            await learner.ws.close()
            reader.cancel()


def own_answer(index: int) -> str:
    """A shape only this learner types, so the answer shows whose progress it reached."""
    return f"({index + 101}, 7)"


def homes_are_separate(root: Path, count: int, system_users: bool = False, profile: str = "launcher") -> bool:
    from tutor.common.file_scope import login_folder_name

    for index in range(count):
        home = Path(os.path.expanduser(f"~learner{index + 1}")) if system_users else root / "homes" / f"learner{index + 1}"
        database = home / ".local" / "share" / "tutor" / "progress.db"
        if profile == "service":   # the service's data folder: a home per hub login
            database = root / "service-data" / "learners" / login_folder_name(f"learner{index + 1}") / "progress.db"
        if not database.exists():
            return False
        with sqlite3.connect(database) as con:
            texts = {row[0] for row in con.execute("SELECT answer FROM answers")}
        theirs = {own_answer(other) for other in range(count)} & texts
        if theirs != {own_answer(index)}:
            return False
    return True


def processes_by_kind(hub_pid: int) -> dict[str, list[int]]:
    """The hub's processes: the tutor's (each user's tutor serve and its tabs), the users' Jupyter
    servers, and the rest (the hub itself, the proxy)."""
    kinds: dict[str, list[int]] = {"tutor": [], "jupyter": [], "hub": [hub_pid]}
    below_tutor: set[int] = set()   # a tutor's own processes: the fork server, a tab's shell and launcher, the tabs
    for pid in descendants(hub_pid):
        if pid in below_tutor:
            continue
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        beside = "jupyterhub-singleuser" in command or "standaloneproxy" in command   # the user's server
        kind = "tutor" if "-m tutor" in command.split(" -- ")[0] else "jupyter" if beside else "hub"
        kinds[kind].append(pid)
        if kind == "tutor":
            below_tutor.update(descendants(pid))
    kinds["tutor"] += sorted(below_tutor)
    return kinds


def learner_memory(hub_pid: int) -> tuple[float, float]:
    """(PSS of the tutor's processes, PSS of the users' Jupyter servers), in MB; each process's PSS printed."""
    kinds = processes_by_kind(hub_pid)
    for kind in ("tutor", "jupyter"):
        for pid in kinds[kind]:
            print(f"  pss {memory_kb(pid)[1] / 1024:6.1f} MB  {threads(pid):3d} threads  {process_label(pid)}")
    return (sum(memory_kb(pid)[1] for pid in kinds["tutor"]) / 1024,
            sum(memory_kb(pid)[1] for pid in kinds["jupyter"]) / 1024)


def threads(pid: int) -> int:
    try:
        return int(next(line.split()[1] for line in open(f"/proc/{pid}/status") if line.startswith("Threads:")))
    except (OSError, StopIteration, ValueError):
        return 0


def process_label(pid: int) -> str:
    """What a process of a learner is: their tutor serve, a tab's shell or tutor, or the server beside them."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return "(gone)"
    if "standaloneproxy" in command or "singleuser" in command:
        return "the user's server (" + ("standalone proxy" if "standaloneproxy" in command else "Jupyter") + ")"
    if "tutor.web.fork_server" in command:   # the fork server, or a tab forked from it (same command line)
        try:
            parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            forked = b"tutor.web.fork_server" in Path(f"/proc/{parent}/cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            forked = False
        return "tab: the tutor app (forked)" if forked else "fork server (preloaded, tabs fork from it)"
    if " serve" in command.split(" -- ")[-1] and " -m tutor" in command:
        return "tutor serve (web server)"
    if command.startswith(("sh ", "/bin/sh ")):
        return "tab: its shell"
    return "tab: its launcher" if " -I -S -c " in command else "tab: the tutor app"


async def run_class(base: str, token: str, hub_pid: int, count: int, keys: int, timeout: float,
                    profile: str = "launcher", hand_in: bool = False, frames: Path | None = None) -> dict:
    random.seed(count)
    latencies: list[float] = []
    ready: list[float] = []
    all_ready, done = asyncio.Event(), asyncio.Event()
    # no user has a server yet; a hub service has (its start, the fork server's imports: before class)
    cpu_at_start = {kind: cpu_seconds(pids) for kind, pids in processes_by_kind(hub_pid).items()}
    async with aiohttp.ClientSession(headers={"Authorization": f"token {token}"}) as api:
        tasks = []
        for index in range(count):
            tasks.append(asyncio.create_task(one_learner(base, api, index, keys, all_ready, ready, latencies, done,
                                                          profile, hand_in, frames)))
            await asyncio.sleep(0.33)
        deadline = time.monotonic() + timeout

        async def until(condition) -> None:
            while not condition():
                failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
                if failed:
                    raise failed[0].exception()
                if time.monotonic() > deadline:
                    raise TimeoutError("the class did not finish in time")
                await asyncio.sleep(0.2)

        await until(lambda: len(ready) == count)
        join_cpu = {kind: cpu_seconds(pids) for kind, pids in processes_by_kind(hub_pid).items()}
        for kind, seconds in cpu_at_start.items():
            join_cpu[kind] -= seconds
        all_ready.set()
        await until(lambda: len(latencies) == count * keys)
        await asyncio.sleep(3)                 # the last answers are written
        tutor_mb, jupyter_mb = learner_memory(hub_pid)
        done.set()
        await asyncio.gather(*tasks)
    return {"join_p95_s": p95(ready), "keypress_p95_ms": p95(latencies), "pss_tutor": tutor_mb / count,
            "pss_jupyter": jupyter_mb / count, "keys": len(latencies),
            "cpu_per_join": {kind: seconds / count for kind, seconds in join_cpu.items()}}


def start_hub(root: Path, proxy: str, token: str, profile: str, system_users: bool = False,
              exchange: str = "", extra_env: tuple[str, ...] = ()) -> tuple[subprocess.Popen, str]:
    port, api_port, hub_port, service_port = free_port(), free_port(), free_port(), free_port()
    config = root / "jupyterhub_config.py"
    config.write_text(hub_config(root, port, api_port, hub_port, proxy, token, profile, system_users, exchange,
                                 extra_env, service_port))
    hub_bin = shutil.which("jupyterhub", path=str(Path(sys.executable).parent)) or "jupyterhub"
    log = open(root / "hub.log", "w")
    hub = subprocess.Popen([hub_bin, "-f", str(config)], cwd=root, stdout=log, stderr=subprocess.STDOUT,
                           start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not hub_answers(port):   # the proxy listens before the hub does
        if hub.poll() is not None:
            raise SystemExit(f"jupyterhub exited:\n{(root / 'hub.log').read_text()[-3000:]}")
        time.sleep(0.5)
    while profile == "service" and time.monotonic() < deadline and not listening(service_port):
        time.sleep(0.5)   # the service listens once its fork server has preloaded: before class starts
    return hub, f"http://127.0.0.1:{port}"


def hub_answers(port: int) -> bool:
    import urllib.request

    if not listening(port):
        return False
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/hub/api/", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def stop_hub(hub: subprocess.Popen, root: Path) -> None:
    try:
        os.killpg(hub.pid, signal.SIGTERM)   # the hub stops its users' servers (cleanup_servers)
        hub.wait(60)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    try:   # the proxy runs in a session of its own, and outlives a hub that failed early
        proxy = [int((root / "proxy.pid").read_text().strip())]
    except (OSError, ValueError):
        proxy = []
    for pid in [hub.pid, *descendants(hub.pid), *proxy]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def compare_with_notebook(learner_mb: float, learners: int = 1) -> None:
    """A tutor learner's PSS (their tutor and the server beside it) beside a JupyterLab learner's running
    one notebook kernel that imports torch and this model (bench/notebook_learner.py), as many of them
    at once as the class had (per learner: total / N, as for the tutor)."""
    from notebook_learner import measure

    notebook = measure(learners=learners)
    print(f"  notebook learner ({learners} at once): JupyterLab server {notebook['server']:.0f} MB + kernel "
          f"{notebook['kernel']:.0f} MB PSS; load average {os.getloadavg()[0]:.2f}")
    print(f"learner_pss_mb {learner_mb:.0f}")
    print(f"notebook_learner_pss_mb {notebook['learner']:.0f}")
    print(f"learner_to_notebook_ratio {learner_mb / notebook['learner']:.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=5, help="hub users in the class (default 5)")
    parser.add_argument("--keys", type=int, default=16, help="letters each learner types (default 16)")
    parser.add_argument("--proxy", default=shutil.which("configurable-http-proxy") or "configurable-http-proxy",
                        help="the configurable-http-proxy command (npm install configurable-http-proxy)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds allowed for the whole class")
    parser.add_argument("--keep", action="store_true", help="keep the throwaway folder (hub log, homes)")
    parser.add_argument("--profile", choices=("launcher", "standalone", "hub", "service"), default="launcher",
                        help="launcher: a JupyterLab server per learner with the tutor's tile (default); standalone: "
                             "jupyter-server-proxy's standalone proxy and the tutor only; hub: the tutor only, "
                             "checking the hub's login itself (tutor serve --hub); service: one tutor for the "
                             "whole hub, a managed service with a forked tab per learner (tutor serve "
                             "--hub-service; docs/class.md)")
    parser.add_argument("--no-notebook", action="store_true",
                        help="skip measuring a JupyterLab learner with a notebook kernel to compare with")
    parser.add_argument("--system-users", action="store_true",
                        help="spawn each learner as the system user learnerN (made beforehand with useradd -m; "
                             "run as root), in their own home, as a real hub does")
    parser.add_argument("--hand-in", metavar="EXCHANGE", default="",
                        help="the exchange folder of docs/class.md: each learner then hands in from the app "
                             "(palette, Hand in my progress, a name, Enter) as ana, ben, 张伟, ...")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="more environment for the learners' servers (and so their tabs), to measure a "
                             "setting such as MALLOC_ARENA_MAX=2 (repeatable)")
    args = parser.parse_args()
    if not 1 <= args.learners <= 40:
        raise SystemExit("between 1 and 40 learners")
    if args.system_users and args.profile == "service":
        raise SystemExit("--profile service runs one service account for everyone: no --system-users")
    if args.system_users and os.geteuid() != 0:
        raise SystemExit("--system-users spawns other accounts' servers: run as root")
    root = Path(tempfile.mkdtemp(prefix="tutor-hub-bench-"))
    os.chmod(root, 0o755)   # the learners' servers read the hub's throwaway folder
    token = secrets.token_hex(24)
    exchange = str(Path(args.hand_in).resolve()) if args.hand_in else ""
    hub, base = start_hub(root, args.proxy, token, args.profile, args.system_users, exchange, tuple(args.env))
    print(f"jupyterhub at {base} ({args.profile} profile); {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}", flush=True)
    try:
        result = asyncio.run(run_class(base, token, hub.pid, args.learners, args.keys, args.timeout,
                                       args.profile, bool(exchange), root))
        separate = homes_are_separate(root, args.learners, args.system_users, args.profile)
        if exchange:
            print(f"handed_in {args.learners} into {exchange}")
        print(f"  {result['keys']} keys timed; the user's server beside each tutor "
              f"({dict(standalone='standalone proxy', hub='none', service='none').get(args.profile, 'Jupyter server')}): "
              f"{result['pss_jupyter']:.0f} MB PSS; load average {os.getloadavg()[0]:.2f}")
        cpu = result["cpu_per_join"]
        print(f"  CPU per join: tutor {cpu['tutor']:.2f} s, the user's Jupyter server {cpu['jupyter']:.2f} s, "
              f"hub and proxy {cpu['hub']:.2f} s")
        print(f"hub_learners {args.learners}")
        print(f"separate_homes {'yes' if separate else 'no'}")
        print(f"join_p95_s {result['join_p95_s']:.1f}")
        print(f"keypress_p95_ms {result['keypress_p95_ms']:.1f}")
        print(f"pss_mb_per_learner {result['pss_tutor']:.0f}")
        print(f"cpu_s_per_join {sum(cpu.values()):.2f}", flush=True)
    finally:
        stop_hub(hub, root)
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    if not args.no_notebook:   # after the class, so that it takes no CPU from it
        compare_with_notebook(result["pss_tutor"] + result["pss_jupyter"],
                              args.learners if args.profile == "service" else 1)


if __name__ == "__main__":
    main()
