"""What a teacher would run instead of the tutor: one JupyterLab learner with a notebook kernel that
imports torch and this model and runs it, measured as bench/hub_class.py measures a tutor learner.

Run alone:  python bench/notebook_learner.py [--learners N]   (needs jupyterlab and ipykernel installed)

Starts ``jupyter lab`` on 127.0.0.1 in a throwaway folder (the server a hub user runs, as
jupyterhub-singleuser does), starts one kernel through its REST API, runs in it the cell a
notebook on this model starts with (import torch, load the shipped checkpoint, one forward pass
on a sentence), then sums the proportional memory (PSS) of the server and of the kernel.  Prints
``notebook_server_pss_mb``, ``notebook_kernel_pss_mb`` and ``notebook_learner_pss_mb``.  With
``--learners N``, N such learners (each their own server, home and kernel, as a hub's users) run
at once and the figures are per learner: total / N (they share library pages, as a class's
tutor learners do, so a class is compared with a class).
"""
from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_load import descendants, free_port, listening, memory_kb  # noqa: E402

CELL = """
import torch
from tutor.model.checkpoint import load_default_model
model, tokenizer, meta = load_default_model()
ids = torch.tensor([tokenizer.encode("the cat sat on the mat")])   # (1, L)
with torch.no_grad():
    logits = model(ids)                                            # (1, L, V)
print(tuple(logits.shape))
"""


def execute_request(code: str, session: str) -> dict:
    """A Jupyter messaging protocol (5.3) execute_request on the shell channel."""
    return {"header": {"msg_id": uuid.uuid4().hex, "msg_type": "execute_request", "session": session,
                       "username": "bench", "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}


async def run_cell(base: str, token: str, timeout: float) -> tuple[int, str]:
    """Start a kernel through the server, run CELL in it; (the kernel's pid, what it printed)."""
    headers = {"Authorization": f"token {token}"}
    async with aiohttp.ClientSession(headers=headers) as http:
        async with http.post(f"{base}/api/kernels", json={"name": "python3"}) as response:
            reply = await response.json(content_type=None)
            if response.status != 201 or "id" not in reply:   # seen once with 10 servers starting on 2 cores
                raise RuntimeError(f"starting a kernel at {base} answered {response.status}: {str(reply)[:300]}")
            kernel = reply["id"]
        session = uuid.uuid4().hex
        printed = []
        async with http.ws_connect(f"{base.replace('http', 'ws', 1)}/api/kernels/{kernel}/channels",
                                   max_msg_size=0) as channels:
            request = execute_request(CELL, session)
            await channels.send_str(json.dumps(request))
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                message = json.loads((await channels.receive(timeout=timeout)).data)
                if message.get("parent_header", {}).get("msg_id") != request["header"]["msg_id"]:
                    continue
                if message["msg_type"] == "stream":
                    printed.append(message["content"]["text"])
                if message["msg_type"] == "error":
                    raise RuntimeError("the cell failed: " + " ".join(message["content"]["traceback"])[-2000:])
                if message["msg_type"] == "execute_reply":
                    break
            else:
                raise TimeoutError("the cell did not finish")
    return kernel, "".join(printed).strip()


def kernel_pids(server_pid: int) -> list[int]:
    return [pid for pid in descendants(server_pid) if b"ipykernel" in Path(f"/proc/{pid}/cmdline").read_bytes()]


def start_lab(lab: str, root: Path) -> tuple[subprocess.Popen, int, str]:
    """One learner's JupyterLab server in its own home (as a hub user's), on a free port."""
    port, token = free_port(), secrets.token_hex(24)
    environment = {**os.environ, "HOME": str(root), "JUPYTER_PREFER_ENV_PATH": "1", "OMP_NUM_THREADS": "1",
                   "JUPYTER_TOKEN": token}
    options = ["--no-browser", "--ip=127.0.0.1", f"--port={port}", f"--ServerApp.root_dir={root}"]
    options += ["--allow-root"] if os.geteuid() == 0 else []
    server = subprocess.Popen([lab, *options], cwd=root, env=environment, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    return server, port, token


def measure(timeout: float = 600, learners: int = 1) -> dict:
    """Start ``learners`` JupyterLab servers, run the cell in a kernel of each, all running at once; return
    the PSS figures in MB per learner (their servers and kernels share library pages, as a class's do)."""
    lab = shutil.which("jupyter-lab", path=str(Path(sys.executable).parent)) or shutil.which("jupyter-lab")
    if lab is None:
        raise SystemExit("jupyterlab is not installed (pip install jupyterlab ipykernel)")
    top = Path(tempfile.mkdtemp(prefix="tutor-notebook-bench-"))
    servers = []
    try:
        for index in range(learners):
            root = top / f"learner{index + 1}"
            root.mkdir()
            servers.append(start_lab(lab, root))
        deadline = time.monotonic() + timeout
        for server, port, _token in servers:
            while not listening(port):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("jupyter lab did not start")
                time.sleep(0.5)

        async def run_all() -> list:
            return await asyncio.gather(*(run_cell(f"http://127.0.0.1:{port}", token, timeout)
                                          for _server, port, token in servers))

        printed = asyncio.run(run_all())[0][1]
        time.sleep(2)   # the kernels settle after their reply
        server_mb = sum(memory_kb(server.pid)[1] for server, _port, _token in servers) / 1024 / learners
        kernel_mb = sum(memory_kb(pid)[1] for server, _port, _token in servers
                        for pid in kernel_pids(server.pid)) / 1024 / learners
        return {"server": server_mb, "kernel": kernel_mb, "learner": server_mb + kernel_mb, "printed": printed,
                "learners": learners}
    finally:
        for server, _port, _token in servers:
            try:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(server.pid, signal.SIGKILL)
        shutil.rmtree(top, ignore_errors=True)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=1,
                        help="notebook learners running at once, each their own server and kernel (default 1)")
    args = parser.parse_args()
    if not 1 <= args.learners <= 20:
        raise SystemExit("between 1 and 20 learners")
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", flush=True)
    result = measure(learners=args.learners)
    print(f"  {result['learners']} learners at once; the cell printed {result['printed']}")
    print(f"notebook_server_pss_mb {result['server']:.0f}")
    print(f"notebook_kernel_pss_mb {result['kernel']:.0f}")
    print(f"notebook_learner_pss_mb {result['learner']:.0f}")


if __name__ == "__main__":
    main()
