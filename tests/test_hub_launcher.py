"""The tutor on a JupyterHub: the jupyter extra's entry point starts each user's own ``tutor serve`` on a
private Unix socket, in their own home; tabs speak the browser's language.  Needs no jupyterhub: the
check against jupyter-server-proxy's own settings class is skipped where it is not installed."""
import os
import stat
import sys
import tomllib
from pathlib import Path

import pytest

from tutor.cli.main import main
from tutor.web.hub_launcher import setup_tutor
from tutor.web.server import browser_language

ROOT = Path(__file__).resolve().parents[1]


def test_each_user_gets_a_tutor_in_their_own_home_on_a_private_socket(monkeypatch, tmp_path):
    monkeypatch.delenv("TUTOR_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home" / "ana"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / "ana" / ".local" / "share"))
    config = setup_tutor()
    command = config["command"]
    assert command[:3] == [sys.executable, "-m", "tutor"]
    home = Path(command[command.index("--home") + 1])
    assert home.is_relative_to(tmp_path / "home" / "ana")
    assert command[command.index("serve") + 1:command.index("serve") + 3] == ["--unix-socket", "{unix_socket}"]
    assert "--no-fork-server" in command   # one tab per user: a preloaded parent would only add memory
    assert config["unix_socket"] is True and "tutor" in config["launcher_entry"]["title"]


def test_the_extra_registers_the_entry_point_jupyter_server_proxy_reads():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["jupyter_serverproxy_servers"] == {"tutor": "tutor.web.hub_launcher:setup_tutor"}
    assert any(dep.startswith("jupyter-server-proxy") for dep in project["optional-dependencies"]["jupyter"])


def test_jupyter_server_proxy_accepts_the_settings():
    config = pytest.importorskip("jupyter_server_proxy.config")
    process = config.ServerProcess(name="tutor", **setup_tutor())
    assert process.unix_socket is True and process.launcher_entry.title.startswith("Transformer")


def test_a_unix_socket_in_a_folder_others_can_enter_is_refused(tmp_path, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert main(["--home", str(tmp_path), "serve", "--unix-socket", str(shared / "tutor.sock")]) == 2
    assert "chmod 700" in capsys.readouterr().err
    assert not (shared / "tutor.sock").exists()


@pytest.mark.parametrize("header, language", [("zh-CN,zh;q=0.9,en;q=0.8", "zh"), ("en-GB,en;q=0.9", "en"),
                                              ("fr-FR,fr;q=0.9,zh;q=0.5,en;q=0.4", "zh"), ("de", None),
                                              ("en;q=0.2, zh-TW;q=0.8", "zh"), ("zh;q=0", None), ("", None),
                                              (None, None), ("zh;q=x", None)])
def test_the_browser_language_is_the_first_the_tutor_has(header, language):
    assert browser_language(header) == language


async def test_on_its_private_socket_the_tutor_serves_the_proxy_without_a_token(tmp_path):
    import asyncio
    import subprocess

    import aiohttp

    folder = tmp_path / "sock"
    folder.mkdir(mode=0o700)
    socket_path = folder / "tutor.sock"
    server = subprocess.Popen([sys.executable, "-m", "tutor", "--home", str(tmp_path), "serve",
                               "--unix-socket", str(socket_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        for _ in range(600):   # a deadline for a hung start, not a speed check
            if socket_path.exists() or server.poll() is not None:
                break
            await asyncio.sleep(0.1)
        assert stat.S_ISSOCK(os.stat(socket_path).st_mode)
        async with aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=str(socket_path))) as session:
            async with session.get("http://hub.example/", headers={"Host": "hub.example"}) as response:
                page = await response.text()
        assert response.status == 200 and "textual.js" in page and 'href="static/css/xterm.css"' in page
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_launcher_tile_names_the_tutor_in_every_language_with_the_learner_s_first(tmp_path):
    """The tile showed "Transformer math tutor" in a Chinese browser: jupyter-server-proxy gives it one
    title, read when the user's server starts, so it carries both; the learner's chosen language first."""
    from tutor.common.settings import save_setting
    from tutor.web.hub_launcher import launcher_title

    assert launcher_title(tmp_path, {"LANG": "en_US.UTF-8"}) == "Transformer math tutor · Transformer 数学导师"
    assert launcher_title(tmp_path, {"LANG": "zh_CN.UTF-8"}) == "Transformer 数学导师 · Transformer math tutor"
    save_setting(tmp_path, "language", "zh")
    assert launcher_title(tmp_path, {"LANG": "C"}).startswith("Transformer 数学导师")


def test_the_launcher_tile_has_the_tutor_icon():
    icon = Path(setup_tutor()["launcher_entry"]["icon_path"])
    assert icon.suffix == ".svg" and icon.read_text().startswith("<svg")   # jupyter-server-proxy wants an SVG
